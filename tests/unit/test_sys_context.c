// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run's machine context (sys_context.h): the pure helpers on fixed
 * inputs (bracketed modes, CPU lists, cpuinfo layouts of x86 and arm, the
 * strictatime rule), and a capture on this machine checked against what
 * the kernel says (sched_getaffinity in a child pinned to one CPU,
 * sysconf, sysinfo, /proc/cmdline), never against constants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobmix/sys_context.h"

static void test_helpers(void **state)
{
	(void)state;
	char out[256];
	sys_ctx_bracketed("always [madvise] never", out, sizeof(out));
	assert_string_equal(out, "madvise");
	sys_ctx_bracketed("always madvise never", out, sizeof(out));
	assert_string_equal(out, "");
	unsigned char set[16] = { 0 };
	sys_ctx_cpu_list(set, 128, out, sizeof(out));
	assert_string_equal(out, "");
	set[0] = 0x0f;          /* 0-3 */
	set[1] = 0x01;          /* 8 */
	set[1] |= 0x0c;         /* 10-11 */
	set[15] = 0x80;         /* 127 */
	sys_ctx_cpu_list(set, 128, out, sizeof(out));
	assert_string_equal(out, "0-3,8,10-11,127");
	sys_ctx_cpu_list(set, 128, out, 8);   /* whole ranges only */
	assert_string_equal(out, "0-3,8");
	sys_ctx_cpu_model("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n",
			  out, sizeof(out));
	assert_string_equal(out, "AMD EPYC 7B13");
	sys_ctx_cpu_model("processor\t: 0\nBogoMIPS\t: 50.00\nCPU part\t: 0xd0c\n", out, sizeof(out));
	assert_string_equal(out, "");
	sys_ctx_cpu_model("Processor\t: ARMv7 Processor rev 4 (v7l)\n", out, sizeof(out));
	assert_string_equal(out, "ARMv7 Processor rev 4 (v7l)");
	sys_ctx_atime("rw", out, sizeof(out));
	assert_string_equal(out, "rw,strictatime");
	sys_ctx_atime("rw,relatime,discard", out, sizeof(out));
	assert_string_equal(out, "rw,relatime,discard");
	sys_ctx_atime("ro,noatime", out, sizeof(out));
	assert_string_equal(out, "ro,noatime");
	sys_ctx_atime("rw,norelatime", out, sizeof(out));   /* an option that only looks alike */
	assert_string_equal(out, "rw,norelatime,strictatime");
	sys_ctx_atime("", out, sizeof(out));
	assert_string_equal(out, "");
}

static void test_capture(void **state)
{
	(void)state;
	struct sys_context c;
	sys_context_capture(&c);
	assert_int_equal(c.cpus_online, (unsigned)sysconf(_SC_NPROCESSORS_ONLN));
	cpu_set_t set;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	assert_int_equal(c.cpus_allowed, (unsigned)CPU_COUNT(&set));
	struct sysinfo si;
	assert_int_equal(sysinfo(&si), 0);
	assert_true(c.mem_bytes == (uint64_t)si.totalram * si.mem_unit);
	FILE *f = fopen("/proc/cmdline", "r");
	char line[1024] = "";
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
		line[strcspn(line, "\n")] = 0;
		assert_string_equal(c.cmdline, line);
	}
	assert_true(c.virt[0] != 0);            /* a name or "none" */
	assert_non_null(strstr(c.build, "-O"));
	/* pinned to one CPU (as under taskset -c N): one CPU allowed, that one listed */
	CPU_ZERO(&set);
	for (int i = 0; i < CPU_SETSIZE; i++) {
		cpu_set_t all;
		if (sched_getaffinity(0, sizeof(all), &all) == 0 && CPU_ISSET(i, &all)) {
			CPU_SET(i, &set);
			break;
		}
	}
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct sys_context k;
		char want[16];
		int cpu = -1;
		for (int i = 0; i < CPU_SETSIZE && cpu < 0; i++)
			if (CPU_ISSET(i, &set))
				cpu = i;
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(3);
		sys_context_capture(&k);
		snprintf(want, sizeof(want), "%d", cpu);
		_exit(k.cpus_allowed == 1 && !strcmp(k.cpus_allowed_list, want) ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_helpers),
		cmocka_unit_test(test_capture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
