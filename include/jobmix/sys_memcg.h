/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The memory cgroup of run --mem-limit: a group made under the cgroup
 * jobmix runs in (cgroup v2 memory.max, or v1 memory.limit_in_bytes
 * where the memory controller is on a v1 hierarchy), named jobmix.PID,
 * which every user joins before it does any work, so that the users' page
 * cache is held to the limit and a file larger than it is read from the
 * device.  jobmix itself stays outside.  Removed at the end; a group a
 * killed jobmix left (its pid gone, no task in it) is removed by the next.
 */
#ifndef JOBMIX_SYS_MEMCG_H
#define JOBMIX_SYS_MEMCG_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define SYS_MEMCG_MIN (16ull << 20)   /* the smallest limit accepted */

struct sys_memcg {
	int version;              /* 1 or 2; 0: none */
	char dir[PATH_MAX];       /* the group's directory */
	int procs_fd;             /* its cgroup.procs, open for the users to join; -1 */
	uint64_t limit;           /* bytes */
};

/* What the group counted: its peak use, page cache, refaults, major faults, OOM kills. */
struct sys_memcg_stat {
	bool ok;
	uint64_t peak_bytes;      /* since the last sys_memcg_reset_peak */
	uint64_t file_bytes;      /* page cache charged to it now */
	uint64_t refault_file;    /* workingset refaults of file pages (cumulative) */
	uint64_t majfault;        /* cumulative */
	uint64_t oom_kill;        /* cumulative */
};

/*
 * Can a memory group be made here (the memory controller mounted, the
 * current group's directory writable)?  Reads only.  0, or -1 with err.
 */
int sys_memcg_check(char *err, size_t errlen);
/* Make the group with limit bytes.  0, or -1 with err (nothing left behind). */
int sys_memcg_create(struct sys_memcg *cg, uint64_t limit, char *err, size_t errlen);
/* Set its limit to limit bytes (an arm of its own).  0, or -1 with err. */
int sys_memcg_set_limit(struct sys_memcg *cg, uint64_t limit, char *err, size_t errlen);
/* Its counters now into st (st->ok false when they cannot be read). */
void sys_memcg_read(const struct sys_memcg *cg, struct sys_memcg_stat *st);
/* Start its peak afresh (v1 max_usage_in_bytes, v2 memory.peak where writable). */
void sys_memcg_reset_peak(const struct sys_memcg *cg);
/* Remove the group (its tasks gone).  0, or -1 with err.  A no-op when none. */
int sys_memcg_remove(struct sys_memcg *cg, char *err, size_t errlen);

#endif
