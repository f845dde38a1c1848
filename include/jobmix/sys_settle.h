/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Settling before a load point: the same starting state for every point,
 * outside the timed region.  sync(2), then wait (sleeping, bounded) until
 * the kernel's dirty and writeback page counts (/proc/meminfo) have
 * drained, and optionally drop the page cache (root).
 */
#ifndef JOBMIX_SYS_SETTLE_H
#define JOBMIX_SYS_SETTLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYS_SETTLE_TIMEOUT_DEFAULT 10.0   /* s */
#define SYS_SETTLE_DRAINED (1u << 20)      /* dirty + writeback at most this: drained */

struct sys_settle_rec {
	uint64_t dirty_bytes;        /* Dirty at the start of the settling */
	uint64_t writeback_bytes;    /* Writeback at the start */
	uint64_t left_bytes;         /* dirty + writeback when it ended */
	double wait_s;               /* how long it took (sync, wait, drop) */
	bool drained;                /* left_bytes <= SYS_SETTLE_DRAINED within the timeout */
	bool dropped;                /* the page cache was dropped */
};

/*
 * Dirty and Writeback from /proc/meminfo (the file's path may be given for
 * tests; NULL: /proc/meminfo).  0 or -1.
 */
int sys_meminfo_dirty(const char *path, uint64_t *dirty, uint64_t *writeback);

/*
 * Settle: sync, wait up to timeout_s for dirty + writeback to drain
 * (checked every 20 ms, sleeping in between), then with drop_caches write
 * 1 to /proc/sys/vm/drop_caches.  Fills *rec; -1 with err set when the page
 * cache could not be dropped (not root) or meminfo cannot be read.
 */
int sys_settle(double timeout_s, bool drop_caches, struct sys_settle_rec *rec, char *err,
	       size_t errlen);

/* May this process drop the page cache (the file is writable)? */
bool sys_can_drop_caches(void);

#endif
