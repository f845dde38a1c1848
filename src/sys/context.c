// SPDX-License-Identifier: GPL-2.0-only
/* The run's machine context (see sys_context.h).  Reads only. */
#include <fcntl.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "jobmix/sys_context.h"

#ifndef JOBMIX_BUILD
#define JOBMIX_BUILD ""
#endif

/* The first line of a small file, without its newline; "" when unreadable. */
static void read_line(const char *path, char *out, size_t len)
{
	out[0] = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t n = read(fd, out, len - 1);
	close(fd);
	out[n > 0 ? n : 0] = 0;
	out[strcspn(out, "\n")] = 0;
}

void sys_ctx_bracketed(const char *text, char *out, size_t len)
{
	const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;
	out[0] = 0;
	if (a && b && (size_t)(b - a - 1) < len)
		snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
}

void sys_ctx_cpu_list(const unsigned char *set, size_t nbits, char *out, size_t len)
{
	size_t used = 0;
	out[0] = 0;
	for (size_t i = 0; i < nbits; i++) {
		if (!(set[i / 8] >> (i % 8) & 1))
			continue;
		size_t j = i;
		while (j + 1 < nbits && (set[(j + 1) / 8] >> ((j + 1) % 8) & 1))
			j++;
		int w = j > i ? snprintf(out + used, len - used, "%s%zu-%zu", used ? "," : "", i, j)
			      : snprintf(out + used, len - used, "%s%zu", used ? "," : "", i);
		if (w < 0 || (size_t)w >= len - used) {
			out[used] = 0;   /* whole ranges only */
			return;
		}
		used += (size_t)w;
		i = j;
	}
}

void sys_ctx_cpu_model(const char *cpuinfo, char *out, size_t len)
{
	static const char *const keys[] = { "model name", "Processor", "cpu model", "cpu" };
	out[0] = 0;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t kl = strlen(keys[k]);
		for (const char *l = cpuinfo; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			if (strncmp(l, keys[k], kl) || (l[kl] != ' ' && l[kl] != '\t' && l[kl] != ':'))
				continue;
			const char *c = strchr(l, ':'), *nl = strchr(l, '\n');
			if (!c || (nl && c > nl))
				continue;
			c++;
			while (*c == ' ' || *c == '\t')
				c++;
			size_t n = nl ? (size_t)(nl - c) : strlen(c);
			snprintf(out, len, "%.*s", (int)n, c);
			return;
		}
	}
}

/* Does the comma list have the option `o`? */
static bool has_opt(const char *list, const char *o)
{
	size_t n = strlen(o);
	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, o, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

void sys_ctx_atime(const char *options, char *out, size_t len)
{
	bool said = has_opt(options, "relatime") || has_opt(options, "noatime") ||
		    has_opt(options, "strictatime");
	snprintf(out, len, "%s%s", options, said || !options[0] ? "" : ",strictatime");
}

/* The hypervisor: cpuid leaf 0x40000000's vendor, else /sys/hypervisor/type, else "none". */
static void virt_of(const char *cpuinfo, char *out, size_t len)
{
	snprintf(out, len, "none");
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	__cpuid(1, a, b, c, d);
	if (c & (1u << 31)) {
		static const struct { const char *sig, *name; } known[] = {
			{ "KVMKVMKVM", "kvm" }, { "Microsoft Hv", "hyperv" }, { "VMwareVMware", "vmware" },
			{ "XenVMMXenVMM", "xen" }, { "TCGTCGTCGTCG", "qemu-tcg" }, { " lrpepyh vr", "parallels" },
			{ "ACRNACRNACRN", "acrn" }, { "bhyve bhyve ", "bhyve" },
		};
		char sig[13];
		__cpuid(0x40000000, a, b, c, d);
		memcpy(sig, &b, 4);
		memcpy(sig + 4, &c, 4);
		memcpy(sig + 8, &d, 4);
		sig[12] = 0;
		snprintf(out, len, "unknown hypervisor");
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strncmp(sig, known[i].sig, strlen(known[i].sig)))
				snprintf(out, len, "%s", known[i].name);
		return;
	}
#endif
	char t[64];
	read_line("/sys/hypervisor/type", t, sizeof(t));
	if (t[0])
		snprintf(out, len, "%s", t);
	else if (strstr(cpuinfo, " hypervisor"))
		snprintf(out, len, "unknown hypervisor");
}

void sys_context_capture(struct sys_context *c)
{
	static char cpuinfo[65536];
	memset(c, 0, sizeof(*c));
	int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	if (fd >= 0) {
		ssize_t r;
		while (n + 1 < sizeof(cpuinfo) && (r = read(fd, cpuinfo + n, sizeof(cpuinfo) - 1 - n)) > 0)
			n += (size_t)r;
		close(fd);
	}
	cpuinfo[n] = 0;
	sys_ctx_cpu_model(cpuinfo, c->cpu_model, sizeof(c->cpu_model));
	long on = sysconf(_SC_NPROCESSORS_ONLN);
	c->cpus_online = on > 0 ? (unsigned)on : 0;
	cpu_set_t set;
	CPU_ZERO(&set);
	if (!sched_getaffinity(0, sizeof(set), &set)) {
		c->cpus_allowed = (unsigned)CPU_COUNT(&set);
		sys_ctx_cpu_list((const unsigned char *)&set, CPU_SETSIZE, c->cpus_allowed_list,
				 sizeof(c->cpus_allowed_list));
	}
	read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", c->governor,
		  sizeof(c->governor));
	char v[64];
	read_line("/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v));
	if (v[0]) {
		snprintf(c->boost, sizeof(c->boost), "%s", v[0] == '1' ? "on" : "off");
	} else {
		read_line("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v));
		if (v[0])
			snprintf(c->boost, sizeof(c->boost), "%s", v[0] == '1' ? "off" : "on");
	}
	read_line("/sys/devices/system/cpu/smt/active", v, sizeof(v));
	if (v[0])
		snprintf(c->smt, sizeof(c->smt), "%s", v[0] == '1' ? "on" : "off");
	read_line("/sys/kernel/mm/transparent_hugepage/enabled", v, sizeof(v));
	sys_ctx_bracketed(v, c->thp, sizeof(c->thp));
	read_line("/sys/kernel/mm/transparent_hugepage/defrag", v, sizeof(v));
	sys_ctx_bracketed(v, c->thp_defrag, sizeof(c->thp_defrag));
	struct sysinfo si;
	if (!sysinfo(&si)) {
		uint64_t unit = si.mem_unit ? si.mem_unit : 1;
		c->mem_bytes = (uint64_t)si.totalram * unit;
		c->swap_bytes = (uint64_t)si.totalswap * unit;
	}
	read_line("/proc/cmdline", c->cmdline, sizeof(c->cmdline));
	virt_of(cpuinfo, c->virt, sizeof(c->virt));
	snprintf(c->build, sizeof(c->build), "%s", JOBMIX_BUILD);
}
