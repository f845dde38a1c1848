// SPDX-License-Identifier: GPL-2.0-only
/*
 * Machine counters (sys_pstat.h): the parsers on fixed texts of each file
 * (old and new kernels' layouts, damaged lines), the deltas and shares on
 * made-up snapshots, and a real window on this machine with a CPU hog of
 * known length: its CPU time shows in the busy time and in the "other
 * work" share when the hog is not counted as the users'.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/sys_pstat.h"

static const char stat_text[] =
	"cpu  19369 5 18939 1524469 4172 0 1282 7158 0 0\n"
	"cpu0 8243 0 8768 765303 1614 0 240 3422 0 0\n"
	"intr 123 4 5\n"
	"ctxt 9876543\n"
	"btime 1764680000\n";

static void test_parse_stat(void **state)
{
	(void)state;
	struct sys_pstat s;
	assert_int_equal(sys_pstat_parse_stat(stat_text, &s), 0);
	assert_true(s.ok_stat);
	assert_int_equal(s.cpu[SYS_CPU_USER], 19369);
	assert_int_equal(s.cpu[SYS_CPU_NICE], 5);
	assert_int_equal(s.cpu[SYS_CPU_IDLE], 1524469);
	assert_int_equal(s.cpu[SYS_CPU_STEAL], 7158);
	assert_int_equal(s.ctxt, 9876543);
	/* a 2.6.11-style line without steal: states up to softirq, steal 0 */
	assert_int_equal(sys_pstat_parse_stat("cpu  1 2 3 4 5 6 7\nctxt 1\n", &s), 0);
	assert_int_equal(s.cpu[SYS_CPU_SOFTIRQ], 7);
	assert_int_equal(s.cpu[SYS_CPU_STEAL], 0);
	/* no cpu line, or no ctxt, or a cut line: not usable */
	assert_int_equal(sys_pstat_parse_stat("ctxt 5\n", &s), -1);
	assert_int_equal(sys_pstat_parse_stat("cpu  1 2 3 4\n", &s), -1);
	assert_int_equal(sys_pstat_parse_stat("cpu  1 2\nctxt 3\n", &s), -1);
	assert_false(s.ok_stat);
}

static void test_parse_psi(void **state)
{
	(void)state;
	struct sys_psi p;
	assert_int_equal(sys_pstat_parse_psi("some avg10=0.00 avg60=1.20 avg300=8.25 total=99536621\n"
					     "full avg10=0.00 avg60=0.00 avg300=0.00 total=42\n",
					     &p), 0);
	assert_true(p.ok && p.has_full);
	assert_int_equal(p.some_us, 99536621);
	assert_int_equal(p.full_us, 42);
	/* cpu before 5.13: no full line */
	assert_int_equal(sys_pstat_parse_psi("some avg10=1.00 avg60=0.00 avg300=0.00 total=7\n", &p), 0);
	assert_false(p.has_full);
	assert_int_equal(p.some_us, 7);
	assert_int_equal(sys_pstat_parse_psi("", &p), -1);
	assert_int_equal(sys_pstat_parse_psi("some avg10=1.00\nfull total=3\n", &p), -1);
	assert_false(p.ok);
}

static void test_parse_vmstat(void **state)
{
	(void)state;
	struct sys_pstat s;
	const char *text = "nr_free_pages 1000\n"
			   "workingset_refault_anon 3\n"
			   "workingset_refault_file 118558\n"
			   "nr_dirtied 510833\n"
			   "nr_written 335493\n"
			   "allocstall_dma32 2\n"
			   "allocstall_normal 5\n"
			   "pgmajfault 2155\n"
			   "pgsteal_kswapd 10\n"
			   "pgsteal_direct 1\n"
			   "pgscan_kswapd 20\n"
			   "pgscan_direct 4\n"
			   "pgscan_direct_throttle 999\n"
			   "pgscan_anon 7777\n";
	assert_int_equal(sys_pstat_parse_vmstat(text, &s), 0);
	assert_int_equal(s.vm[SYS_VM_REFAULT], 118561);
	assert_int_equal(s.vm[SYS_VM_NR_DIRTIED], 510833);
	assert_int_equal(s.vm[SYS_VM_NR_WRITTEN], 335493);
	assert_int_equal(s.vm[SYS_VM_ALLOCSTALL], 7);
	assert_int_equal(s.vm[SYS_VM_PGMAJFAULT], 2155);
	assert_int_equal(s.vm[SYS_VM_PGSTEAL], 11);
	/* pgscan_direct_throttle and pgscan_anon are other counters: not summed in */
	assert_int_equal(s.vm[SYS_VM_PGSCAN], 24);
	assert_true(s.vm_has[SYS_VM_PGSCAN]);
	/* an old kernel: one workingset_refault, one allocstall */
	assert_int_equal(sys_pstat_parse_vmstat("workingset_refault 9\nallocstall 4\n", &s), 0);
	assert_int_equal(s.vm[SYS_VM_REFAULT], 9);
	assert_int_equal(s.vm[SYS_VM_ALLOCSTALL], 4);
	assert_false(s.vm_has[SYS_VM_NR_DIRTIED]);
	assert_int_equal(sys_pstat_parse_vmstat("nr_free_pages 1\n", &s), -1);
}

static void test_parse_loadavg_cgroup(void **state)
{
	(void)state;
	struct sys_pstat s;
	char path[256];
	assert_int_equal(sys_pstat_parse_loadavg("1.25 0.80 0.40 3/412 98765\n", &s), 0);
	assert_true(fabs(s.load1 - 1.25) < 1e-9);
	assert_int_equal(s.running, 3);
	assert_int_equal(sys_pstat_parse_loadavg("garbage\n", &s), -1);
	assert_int_equal(sys_pstat_cgroup_v2("4:memory:/x\n0::/user.slice/run-1.scope\n", path,
					     sizeof(path)), 0);
	assert_string_equal(path, "/user.slice/run-1.scope");
	assert_int_equal(sys_pstat_cgroup_v2("4:memory:/x\n1:cpu:/\n", path, sizeof(path)), -1);
}

static void test_delta(void **state)
{
	(void)state;
	struct sys_pstat a, b;
	struct sys_pdelta d;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.ok_stat = b.ok_stat = a.ok_vm = b.ok_vm = b.ok_load = true;
	/* 2 s on 2 CPUs at 100 Hz: 400 ticks; users 150, system 50, idle 100, iowait 40, steal 60 */
	b.cpu[SYS_CPU_USER] = 150;
	b.cpu[SYS_CPU_SYSTEM] = 50;
	b.cpu[SYS_CPU_IDLE] = 100;
	b.cpu[SYS_CPU_IOWAIT] = 40;
	b.cpu[SYS_CPU_STEAL] = 60;
	a.ctxt = 1000;
	b.ctxt = 5000;
	b.load1 = 2.5;
	a.psi[SYS_PSI_IO] = (struct sys_psi){ true, true, 1000000, 500000 };
	b.psi[SYS_PSI_IO] = (struct sys_psi){ true, true, 1500000, 600000 };
	a.psi[SYS_PSI_CPU] = (struct sys_psi){ true, false, 0, 0 };
	b.psi[SYS_PSI_CPU] = (struct sys_psi){ true, false, 200000, 0 };
	a.vm[SYS_VM_PGMAJFAULT] = 10;
	b.vm[SYS_VM_PGMAJFAULT] = 30;
	a.vm_has[SYS_VM_PGMAJFAULT] = b.vm_has[SYS_VM_PGMAJFAULT] = true;
	sys_pstat_delta(&a, &b, 2.0, 100, &d);
	assert_true(d.ok_cpu);
	assert_true(fabs(d.cpu_s[SYS_CPU_USER] - 1.5) < 1e-9);
	assert_true(fabs(d.busy_s - 2.6) < 1e-9);           /* user + system + steal */
	assert_true(fabs(d.steal_pct - 15.0) < 1e-9);
	assert_true(fabs(d.ctxt_s - 2000) < 1e-9);
	assert_true(fabs(d.load1 - 2.5) < 1e-9);
	assert_true(fabs(d.psi_some_pct[SYS_PSI_IO] - 25.0) < 1e-9);
	assert_true(fabs(d.psi_full_pct[SYS_PSI_IO] - 5.0) < 1e-9);
	assert_true(fabs(d.psi_some_pct[SYS_PSI_CPU] - 10.0) < 1e-9);
	assert_true(isnan(d.psi_full_pct[SYS_PSI_CPU]));     /* no full line */
	assert_true(isnan(d.psi_some_pct[SYS_PSI_MEM]));     /* not read */
	assert_true(fabs(d.vm_s[SYS_VM_PGMAJFAULT] - 10) < 1e-9);
	assert_true(isnan(d.vm_s[SYS_VM_PGSCAN]));           /* not exposed */
	/* the users used 1.2 s of the 2.0 s busy (not steal): other 0.8 + steal 0.6 of 4 CPU-s */
	assert_true(fabs(sys_pstat_other_pct(&d, 2.0, 2, 1.2) - 35.0) < 1e-9);
	/* the users used it all: steal alone */
	assert_true(fabs(sys_pstat_other_pct(&d, 2.0, 2, 2.0) - 15.0) < 1e-9);
	/* a counter that went back counts nothing, never a huge number */
	b.ctxt = 10;
	sys_pstat_delta(&a, &b, 2.0, 100, &d);
	assert_true(d.ctxt_s == 0);
	b.ok_stat = false;
	sys_pstat_delta(&a, &b, 2.0, 100, &d);
	assert_false(d.ok_cpu);
	assert_true(isnan(sys_pstat_other_pct(&d, 2.0, 2, 1.0)));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A real window with a child spinning 0.6 s: at least most of it shows as busy CPU time. */
static void test_real_window(void **state)
{
	(void)state;
	struct sys_pstat a, b;
	struct sys_pdelta d;
	sys_pstat_read(&a, NULL);
	if (!a.ok_stat) {
		printf("# SKIP no /proc/stat\n");
		return;
	}
	double t0 = now_s();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		volatile unsigned long x = 0;
		while (now_s() - t0 < 0.6)
			x++;
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	sys_pstat_read(&b, NULL);
	double secs = now_s() - t0;
	long hz = sysconf(_SC_CLK_TCK);
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	sys_pstat_delta(&a, &b, secs, hz, &d);
	assert_true(d.ok_cpu);
	assert_true(d.busy_s >= 0.45);              /* the hog's 0.6 s, less tick granularity */
	assert_true(d.busy_s <= secs * (double)ncpu + 0.05);
	assert_true(d.ctxt_s > 0);
	/* counted as other work (no users), the hog is at least ~0.45 s of the window's capacity */
	double other = sys_pstat_other_pct(&d, secs, (unsigned)ncpu, 0.0);
	assert_true(other >= 0.45 / (secs * (double)ncpu) * 100);
	if (a.psi[SYS_PSI_CPU].ok)
		assert_true(b.psi[SYS_PSI_CPU].some_us >= a.psi[SYS_PSI_CPU].some_us);
	else
		printf("# no /proc/pressure (psi=0 or an old kernel)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_parse_psi),
		cmocka_unit_test(test_parse_vmstat),
		cmocka_unit_test(test_parse_loadavg_cgroup),
		cmocka_unit_test(test_delta),
		cmocka_unit_test(test_real_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
