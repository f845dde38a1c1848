// SPDX-License-Identifier: GPL-2.0-only
/*
 * Machine counters at a load point's window edges (see sys_pstat.h): CPU
 * time by state, context switches, load, pressure stalls and a few vmstat
 * counters.  Reads only; no allocation (the files are read into a stack
 * buffer), so a snapshot costs a handful of small reads.
 */
#include <fcntl.h>
#include <math.h>
#include <errno.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/sys_pstat.h"

#define PSTAT_BUF 16384   /* /proc/vmstat is about 6 KB; /proc/stat's cpu line comes first */

static const char *const cpu_names[SYS_CPU_NSTATES] = {
	"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal",
};

static const char *const psi_names[SYS_PSI_NRES] = { "cpu", "io", "memory" };

/*
 * The vmstat fields kept: each name adds to its item.  Kernels before 5.8
 * name the refaults workingset_refault alone; allocstall was one counter
 * before 4.9.
 */
static const struct {
	const char *field;
	enum sys_vm_item item;
} vm_fields[] = {
	{ "pgscan_kswapd", SYS_VM_PGSCAN },       { "pgscan_direct", SYS_VM_PGSCAN },
	{ "pgscan_khugepaged", SYS_VM_PGSCAN },   { "pgscan_proactive", SYS_VM_PGSCAN },
	{ "pgsteal_kswapd", SYS_VM_PGSTEAL },     { "pgsteal_direct", SYS_VM_PGSTEAL },
	{ "pgsteal_khugepaged", SYS_VM_PGSTEAL }, { "pgsteal_proactive", SYS_VM_PGSTEAL },
	{ "pgmajfault", SYS_VM_PGMAJFAULT },      { "allocstall", SYS_VM_ALLOCSTALL },
	{ "allocstall_dma", SYS_VM_ALLOCSTALL },  { "allocstall_dma32", SYS_VM_ALLOCSTALL },
	{ "allocstall_normal", SYS_VM_ALLOCSTALL }, { "allocstall_movable", SYS_VM_ALLOCSTALL },
	{ "allocstall_device", SYS_VM_ALLOCSTALL }, { "nr_dirtied", SYS_VM_NR_DIRTIED },
	{ "nr_written", SYS_VM_NR_WRITTEN },      { "workingset_refault", SYS_VM_REFAULT },
	{ "workingset_refault_anon", SYS_VM_REFAULT }, { "workingset_refault_file", SYS_VM_REFAULT },
};

static const char *const vm_names[SYS_VM_NITEMS] = {
	"pgscan", "pgsteal", "pgmajfault", "allocstall", "nr_dirtied", "nr_written", "refault",
};

const char *sys_cpu_state_name(enum sys_cpu_state s)
{
	return (unsigned)s < SYS_CPU_NSTATES ? cpu_names[s] : "?";
}

const char *sys_psi_res_name(enum sys_psi_res r)
{
	return (unsigned)r < SYS_PSI_NRES ? psi_names[r] : "?";
}

const char *sys_vm_item_name(enum sys_vm_item v)
{
	return (unsigned)v < SYS_VM_NITEMS ? vm_names[v] : "?";
}

/* The file's first cap - 1 bytes, NUL-terminated: its length, or -1. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;
	if (fd < 0)
		return -1;
	while (n + 1 < cap) {
		ssize_t r = read(fd, buf + n, cap - 1 - n);
		if (r < 0) {
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = 0;
	return (ssize_t)n;
}

/* The next line of *p (NUL-terminated in place is not needed: callers parse up to '\n'). */
static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');
	return nl ? nl + 1 : NULL;
}

int sys_pstat_parse_stat(const char *text, struct sys_pstat *s)
{
	bool cpu = false, ctxt = false;
	memset(s->cpu, 0, sizeof(s->cpu));
	s->ctxt = 0;
	for (const char *l = text; l && *l; l = next_line(l)) {
		if (!strncmp(l, "cpu ", 4)) {
			const char *p = l + 4;
			for (int k = 0; k < SYS_CPU_NSTATES; k++) {
				char *end;
				unsigned long long v = strtoull(p, &end, 10);
				if (end == p || (*end != ' ' && *end != '\n' && *end))
					break;
				s->cpu[k] = v;
				p = end;
				cpu = k >= SYS_CPU_IDLE;  /* at least user..idle */
			}
		} else if (!strncmp(l, "ctxt ", 5)) {
			s->ctxt = strtoull(l + 5, NULL, 10);
			ctxt = true;
		}
	}
	s->ok_stat = cpu && ctxt;
	return s->ok_stat ? 0 : -1;
}

int sys_pstat_parse_loadavg(const char *text, struct sys_pstat *s)
{
	double l1, l5, l15;
	unsigned run, all;
	s->ok_load = sscanf(text, "%lf %lf %lf %u/%u", &l1, &l5, &l15, &run, &all) == 5;
	if (s->ok_load) {
		s->load1 = l1;
		s->running = run;
	}
	return s->ok_load ? 0 : -1;
}

/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=123" */
int sys_pstat_parse_psi(const char *text, struct sys_psi *p)
{
	bool some = false;
	memset(p, 0, sizeof(*p));
	for (const char *l = text; l && *l; l = next_line(l)) {
		bool is_some = !strncmp(l, "some ", 5), is_full = !strncmp(l, "full ", 5);
		if (!is_some && !is_full)
			continue;
		const char *t = strstr(l, "total=");
		const char *nl = strchr(l, '\n');
		if (!t || (nl && t > nl))
			continue;
		char *end;
		unsigned long long v = strtoull(t + 6, &end, 10);
		if (end == t + 6)
			continue;
		if (is_some) {
			p->some_us = v;
			some = true;
		} else {
			p->full_us = v;
			p->has_full = true;
		}
	}
	p->ok = some;
	return some ? 0 : -1;
}

int sys_pstat_parse_vmstat(const char *text, struct sys_pstat *s)
{
	memset(s->vm, 0, sizeof(s->vm));
	memset(s->vm_has, 0, sizeof(s->vm_has));
	s->ok_vm = false;
	for (const char *l = text; l && *l; l = next_line(l)) {
		const char *sp = strchr(l, ' ');
		const char *nl = strchr(l, '\n');
		if (!sp || (nl && sp > nl))
			continue;
		size_t len = (size_t)(sp - l);
		for (size_t i = 0; i < sizeof(vm_fields) / sizeof(vm_fields[0]); i++) {
			if (strlen(vm_fields[i].field) != len || strncmp(l, vm_fields[i].field, len))
				continue;
			s->vm[vm_fields[i].item] += strtoull(sp + 1, NULL, 10);
			s->vm_has[vm_fields[i].item] = true;
			s->ok_vm = true;
			break;
		}
	}
	return s->ok_vm ? 0 : -1;
}

int sys_pstat_cgroup_v2(const char *text, char *path, size_t len)
{
	for (const char *l = text; l && *l; l = next_line(l)) {
		if (strncmp(l, "0::", 3))
			continue;
		const char *p = l + 3, *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (!n || n >= len)
			return -1;
		memcpy(path, p, n);
		path[n] = 0;
		return 0;
	}
	return -1;
}

/* The cgroup v2 mount point from /proc/self/mountinfo ("- cgroup2 " lines). */
static int cgroup2_mount(char *buf, size_t cap, char *mnt, size_t len)
{
	if (slurp("/proc/self/mountinfo", buf, cap) < 0)
		return -1;
	for (const char *l = buf; l && *l; l = next_line(l)) {
		const char *nl = strchr(l, '\n'), *dash = strstr(l, " - cgroup2 ");
		if (!dash || (nl && dash > nl))
			continue;
		char id[32], parent[32], devno[32], root[4096], point[4096];
		if (sscanf(l, "%31s %31s %31s %4095s %4095s", id, parent, devno, root, point) != 5 ||
		    strcmp(root, "/") || strlen(point) >= len)
			continue;
		snprintf(mnt, len, "%s", point);
		return 0;
	}
	return -1;
}

/* This process's cgroup v2 directory, or -1 (v1 only, or a group at the root). */
static int own_cgroup(char *buf, size_t cap, char *dir, size_t len)
{
	char rel[2048], mnt[2048];
	if (slurp("/proc/self/cgroup", buf, cap) < 0 || sys_pstat_cgroup_v2(buf, rel, sizeof(rel)) ||
	    !strcmp(rel, "/") || cgroup2_mount(buf, cap, mnt, sizeof(mnt)))
		return -1;
	if ((size_t)snprintf(dir, len, "%s%s", mnt, rel) >= len)
		return -1;
	return 0;
}

void sys_pstat_read(struct sys_pstat *s, const char *cg_dir)
{
	char buf[PSTAT_BUF], path[4096], own[4096];

	memset(s, 0, sizeof(*s));
	if (slurp("/proc/stat", buf, sizeof(buf)) >= 0)
		sys_pstat_parse_stat(buf, s);
	if (slurp("/proc/loadavg", buf, sizeof(buf)) >= 0)
		sys_pstat_parse_loadavg(buf, s);
	if (slurp("/proc/vmstat", buf, sizeof(buf)) >= 0)
		sys_pstat_parse_vmstat(buf, s);
	for (int r = 0; r < SYS_PSI_NRES; r++) {
		snprintf(path, sizeof(path), "/proc/pressure/%s", psi_names[r]);
		if (slurp(path, buf, sizeof(buf)) >= 0)
			sys_pstat_parse_psi(buf, &s->psi[r]);
	}
	if (!cg_dir && !own_cgroup(buf, sizeof(buf), own, sizeof(own)))
		cg_dir = own;
	for (int r = 0; cg_dir && r < SYS_PSI_NRES; r++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s.pressure", cg_dir, psi_names[r]) >=
		    sizeof(path))
			break;
		if (slurp(path, buf, sizeof(buf)) >= 0)
			sys_pstat_parse_psi(buf, &s->cg_psi[r]);
	}
}

/* b - a, or 0 when the counter went back (a reset, or a different source). */
static double dcount(uint64_t a, uint64_t b)
{
	return b >= a ? (double)(b - a) : 0.0;
}

static void psi_delta(const struct sys_psi *a, const struct sys_psi *b, double secs, double *some,
		      double *full)
{
	*some = *full = NAN;
	if (!a->ok || !b->ok || !(secs > 0))
		return;
	*some = dcount(a->some_us, b->some_us) / 1e6 / secs * 100;
	if (a->has_full && b->has_full)
		*full = dcount(a->full_us, b->full_us) / 1e6 / secs * 100;
}

void sys_pstat_delta(const struct sys_pstat *a, const struct sys_pstat *b, double secs,
		     long user_hz, struct sys_pdelta *d)
{
	memset(d, 0, sizeof(*d));
	bool t = secs > 0 && user_hz > 0;
	d->ok_cpu = t && a->ok_stat && b->ok_stat;
	if (d->ok_cpu) {
		double all = 0;
		for (int k = 0; k < SYS_CPU_NSTATES; k++) {
			d->cpu_s[k] = dcount(a->cpu[k], b->cpu[k]) / (double)user_hz;
			all += d->cpu_s[k];
		}
		d->busy_s = all - d->cpu_s[SYS_CPU_IDLE] - d->cpu_s[SYS_CPU_IOWAIT];
		d->steal_pct = all > 0 ? d->cpu_s[SYS_CPU_STEAL] / all * 100 : 0;
		d->ctxt_s = dcount(a->ctxt, b->ctxt) / secs;
	}
	d->ok_load = b->ok_load;
	d->load1 = b->ok_load ? b->load1 : NAN;
	for (int r = 0; r < SYS_PSI_NRES; r++) {
		psi_delta(&a->psi[r], &b->psi[r], secs, &d->psi_some_pct[r], &d->psi_full_pct[r]);
		psi_delta(&a->cg_psi[r], &b->cg_psi[r], secs, &d->cg_psi_some_pct[r],
			  &d->cg_psi_full_pct[r]);
	}
	d->ok_vm = t && a->ok_vm && b->ok_vm;
	for (int v = 0; v < SYS_VM_NITEMS; v++)
		d->vm_s[v] = d->ok_vm && a->vm_has[v] && b->vm_has[v]
			? dcount(a->vm[v], b->vm[v]) / secs : NAN;
}

double sys_pstat_other_pct(const struct sys_pdelta *d, double secs, unsigned ncpu,
			   double users_cpu_s)
{
	if (!d->ok_cpu || !(secs > 0) || !ncpu)
		return NAN;
	double busy_not_steal = d->busy_s - d->cpu_s[SYS_CPU_STEAL];
	double other = busy_not_steal - users_cpu_s;
	if (other < 0)
		other = 0;
	double pct = (other + d->cpu_s[SYS_CPU_STEAL]) / (secs * ncpu) * 100;
	return pct > 100 ? 100 : pct;
}

bool sys_wait_quiet(double timeout_s, double max_pct, volatile sig_atomic_t *stop,
		    double *waited, double *last_pct)
{
	struct timespec t0, t1, t2;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), hz = sysconf(_SC_CLK_TCK);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	*waited = 0;
	*last_pct = NAN;
	while (!(stop && *stop)) {
		struct sys_pstat a, b;
		struct sys_pdelta d;
		sys_pstat_read(&a, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		struct timespec one = { 1, 0 };
		while (nanosleep(&one, &one) && errno == EINTR && !(stop && *stop))
			;
		sys_pstat_read(&b, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t2);
		double secs = (double)(t2.tv_sec - t1.tv_sec) + (double)(t2.tv_nsec - t1.tv_nsec) / 1e9;
		*waited = (double)(t2.tv_sec - t0.tv_sec) + (double)(t2.tv_nsec - t0.tv_nsec) / 1e9;
		sys_pstat_delta(&a, &b, secs, hz, &d);
		if (d.ok_cpu && secs > 0.5) {
			*last_pct = sys_pstat_other_pct(&d, secs, ncpu > 0 ? (unsigned)ncpu : 1, 0);
			if (*last_pct <= max_pct)
				return true;
		}
		if (*waited >= timeout_s)
			break;
	}
	return false;
}
