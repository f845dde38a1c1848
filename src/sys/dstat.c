// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device statistics: the counters of /sys/block/<dev>/stat, and the rates
 * between two readings.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/sys_dev.h"
#include "jobmix/sys_dstat.h"

int sys_dstat_read(const char *dev, struct sys_dstat *s)
{
	char line[512];
	memset(s, 0, sizeof(*s));
	if (sys_dev_attr(dev, "stat", line, sizeof(line)))
		return -1;
	uint64_t *f[] = {
		&s->rd_ios, &s->rd_merges, &s->rd_sectors, &s->rd_ticks,
		&s->wr_ios, &s->wr_merges, &s->wr_sectors, &s->wr_ticks,
		&s->in_flight, &s->io_ticks, &s->time_in_queue,
		&s->dc_ios, &s->dc_merges, &s->dc_sectors, &s->dc_ticks,
		&s->fl_ios, &s->fl_ticks,
	};
	const char *p = line;
	size_t n = 0;
	for (; n < sizeof(f) / sizeof(f[0]); n++) {
		int used;
		if (sscanf(p, "%" SCNu64 "%n", f[n], &used) != 1)
			break;
		p += used;
	}
	return n >= 11 ? 0 : -1;   /* kernels before 4.18 have 11 fields */
}

static uint64_t sys_delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;
}

void sys_dstat_rates(const struct sys_dstat *a, const struct sys_dstat *b, double secs,
		     struct sys_drate *r)
{
	memset(r, 0, sizeof(*r));
	r->secs = secs;
	r->rd_ios = sys_delta(a->rd_ios, b->rd_ios);
	r->wr_ios = sys_delta(a->wr_ios, b->wr_ios);
	r->rd_merges = sys_delta(a->rd_merges, b->rd_merges);
	r->wr_merges = sys_delta(a->wr_merges, b->wr_merges);
	r->rd_sectors = sys_delta(a->rd_sectors, b->rd_sectors);
	r->wr_sectors = sys_delta(a->wr_sectors, b->wr_sectors);
	r->fl_ios = sys_delta(a->fl_ios, b->fl_ios);
	r->io_ticks_ms = sys_delta(a->io_ticks, b->io_ticks);
	r->time_in_queue_ms = sys_delta(a->time_in_queue, b->time_in_queue);

	uint64_t ios = r->rd_ios + r->wr_ios, merges = r->rd_merges + r->wr_merges;
	if (ios)
		r->avg_req_kib = (double)(r->rd_sectors + r->wr_sectors) * 512.0 / 1024.0 / (double)ios;
	if (r->rd_ios)
		r->rd_req_kib = (double)r->rd_sectors * 512.0 / 1024.0 / (double)r->rd_ios;
	if (r->wr_ios)
		r->wr_req_kib = (double)r->wr_sectors * 512.0 / 1024.0 / (double)r->wr_ios;
	if (ios + merges)
		r->merge_ratio = (double)merges / (double)(ios + merges);
	if (secs <= 0)
		return;
	r->rd_iops = (double)r->rd_ios / secs;
	r->wr_iops = (double)r->wr_ios / secs;
	r->iops = r->rd_iops + r->wr_iops;
	r->rd_mb_s = (double)r->rd_sectors * 512.0 / 1e6 / secs;
	r->wr_mb_s = (double)r->wr_sectors * 512.0 / 1e6 / secs;
	r->mb_s = r->rd_mb_s + r->wr_mb_s;
	r->util = (double)r->io_ticks_ms / 1000.0 / secs;
	r->avg_qdepth = (double)r->time_in_queue_ms / 1000.0 / secs;
}
