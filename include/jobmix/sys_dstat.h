/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Device statistics: /sys/block/<dev>/stat read at two moments, and what
 * the device did in between (IOPS, MB/s, request size, merges, utilisation,
 * queue depth).  The arithmetic is pure.
 */
#ifndef JOBMIX_SYS_DSTAT_H
#define JOBMIX_SYS_DSTAT_H

#include <stdint.h>

/* The counters of Documentation/block/stat.rst (missing ones stay 0). */
struct sys_dstat {
	uint64_t rd_ios, rd_merges, rd_sectors, rd_ticks;
	uint64_t wr_ios, wr_merges, wr_sectors, wr_ticks;
	uint64_t in_flight, io_ticks, time_in_queue;
	uint64_t dc_ios, dc_merges, dc_sectors, dc_ticks;
	uint64_t fl_ios, fl_ticks;
};

/* Read /sys/block/<dev>/stat (dev checked).  0 or -1. */
int sys_dstat_read(const char *dev, struct sys_dstat *s);

/* Between two readings `secs` apart. */
struct sys_drate {
	double secs;
	uint64_t rd_ios, wr_ios, rd_merges, wr_merges, rd_sectors, wr_sectors, fl_ios;
	uint64_t io_ticks_ms, time_in_queue_ms;
	double iops, rd_iops, wr_iops;
	double mb_s, rd_mb_s, wr_mb_s;       /* 10^6 bytes per second */
	double avg_req_kib;                  /* (read + write) KiB per request, 0 with none */
	double rd_req_kib, wr_req_kib;
	double merge_ratio;                  /* merged / (merged + issued), 0..1 */
	double util;                         /* busy time / secs, 0..1 (can pass 1 slightly) */
	double avg_qdepth;                   /* time in queue / secs */
};

/*
 * Rates from `a` (earlier) to `b`.  A counter that went backwards (device
 * re-created) counts as 0; secs <= 0 gives zero rates.
 */
void sys_dstat_rates(const struct sys_dstat *a, const struct sys_dstat *b, double secs,
		     struct sys_drate *r);

#endif
