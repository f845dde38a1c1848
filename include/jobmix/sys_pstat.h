/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The machine's own counters over a load point's timed window: CPU time by
 * state and context switches (/proc/stat), the load average (/proc/loadavg),
 * pressure stall totals for cpu, io and memory (/proc/pressure, and the
 * cgroup v2 group's *.pressure where there is one), and the /proc/vmstat
 * counters that explain I/O and memory behaviour.  A snapshot is read at the
 * window's edges (never inside it); sys_pstat_delta turns two snapshots into
 * rates and shares.  The parsers take the files' text, so they are tested
 * on fixed inputs; sys_pstat_read reads the files.
 */
#ifndef JOBMIX_SYS_PSTAT_H
#define JOBMIX_SYS_PSTAT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* /proc/stat's cpu line, in its order */
enum sys_cpu_state {
	SYS_CPU_USER, SYS_CPU_NICE, SYS_CPU_SYSTEM, SYS_CPU_IDLE, SYS_CPU_IOWAIT, SYS_CPU_IRQ,
	SYS_CPU_SOFTIRQ, SYS_CPU_STEAL, SYS_CPU_NSTATES
};

enum sys_psi_res { SYS_PSI_CPU, SYS_PSI_IO, SYS_PSI_MEM, SYS_PSI_NRES };

/* the /proc/vmstat deltas kept (a sum of several fields for some) */
enum sys_vm_item {
	SYS_VM_PGSCAN,          /* pgscan_kswapd + pgscan_direct (+ khugepaged, proactive) */
	SYS_VM_PGSTEAL,         /* pgsteal_* likewise */
	SYS_VM_PGMAJFAULT,
	SYS_VM_ALLOCSTALL,      /* allocstall_* summed over the zones */
	SYS_VM_NR_DIRTIED,
	SYS_VM_NR_WRITTEN,
	SYS_VM_REFAULT,         /* workingset_refault_anon + _file (or workingset_refault) */
	SYS_VM_NITEMS
};

/* The name of a state, resource or vmstat item as run.json and --metric spell it. */
const char *sys_cpu_state_name(enum sys_cpu_state s);
const char *sys_psi_res_name(enum sys_psi_res r);
const char *sys_vm_item_name(enum sys_vm_item v);

struct sys_psi {
	bool ok;                /* the file was read */
	bool has_full;          /* a "full" line (cpu has none before 5.13) */
	uint64_t some_us, full_us;
};

struct sys_pstat {
	bool ok_stat, ok_load, ok_vm;
	uint64_t cpu[SYS_CPU_NSTATES];    /* USER_HZ ticks since boot, all CPUs */
	uint64_t ctxt;
	double load1;                     /* 1-minute load average */
	unsigned running;                 /* runnable tasks now (4th field before '/') */
	struct sys_psi psi[SYS_PSI_NRES]; /* system-wide */
	struct sys_psi cg_psi[SYS_PSI_NRES]; /* this process's cgroup v2 group; ok false: none */
	uint64_t vm[SYS_VM_NITEMS];
	bool vm_has[SYS_VM_NITEMS];
};

/* Parsers of each file's text; 0 or -1 when nothing usable was found. */
int sys_pstat_parse_stat(const char *text, struct sys_pstat *s);
int sys_pstat_parse_loadavg(const char *text, struct sys_pstat *s);
int sys_pstat_parse_psi(const char *text, struct sys_psi *p);
int sys_pstat_parse_vmstat(const char *text, struct sys_pstat *s);

/*
 * The cgroup v2 group of a /proc/self/cgroup text ("0::/path" line): the
 * path below the v2 mount, or -1 when there is none (v1 only).
 */
int sys_pstat_cgroup_v2(const char *text, char *path, size_t len);

/*
 * Read every file (what cannot be read is marked not ok; never fails).
 * cg_dir: the users' cgroup v2 directory (e.g. /sys/fs/cgroup/x), NULL to
 * find this process's own from /proc/self/cgroup and /proc/self/mountinfo.
 */
void sys_pstat_read(struct sys_pstat *s, const char *cg_dir);

/* What happened between two snapshots `secs` apart, on `ncpu` CPUs. */
struct sys_pdelta {
	bool ok_cpu, ok_load, ok_vm;
	double cpu_s[SYS_CPU_NSTATES];   /* CPU seconds in each state */
	double busy_s;                   /* all but idle and iowait */
	double steal_pct;                /* steal over all CPU time, in % */
	double ctxt_s;                   /* context switches a second */
	double load1;                    /* at the window's end */
	/* PSI: the share of the window some / all tasks stalled, in % (NAN: not read) */
	double psi_some_pct[SYS_PSI_NRES], psi_full_pct[SYS_PSI_NRES];
	double cg_psi_some_pct[SYS_PSI_NRES], cg_psi_full_pct[SYS_PSI_NRES];
	double vm_s[SYS_VM_NITEMS];      /* a second (NAN: not exposed) */
};

/* Pure.  user_hz: sysconf(_SC_CLK_TCK). */
void sys_pstat_delta(const struct sys_pstat *a, const struct sys_pstat *b, double secs,
		     long user_hz, struct sys_pdelta *d);

/*
 * The share of the window's CPU capacity (secs x ncpu) that other work
 * took: busy time not spent by the users (users_cpu_s, their user + system
 * time) plus steal, in % (0 when negative: the counters' granularity).
 */
double sys_pstat_other_pct(const struct sys_pdelta *d, double secs, unsigned ncpu,
			   double users_cpu_s);

/*
 * Wait, at most timeout_s, for a quiet second: one in which busy time and
 * steal together take at most max_pct of every CPU (jobmix idle, no user
 * running, so it is all other work).  Sleeps between readings (no polling);
 * ends early when *stop is set.  *waited: seconds spent; *last_pct: the last
 * second's share.  true when a quiet second was found.
 */
bool sys_wait_quiet(double timeout_s, double max_pct, volatile sig_atomic_t *stop,
		    double *waited, double *last_pct);

#endif
