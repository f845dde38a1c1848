// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracer's raw counts of one device into run.json's figures (see
 * iotrace.h): a histogram per operation and figure, and the percentiles of
 * all operations together.  Pure: no BPF, unit-tested.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/iotrace.h"
#include "jobmix/stats.h"
#include "bpf/iotrace_layout.h"

_Static_assert(IOT_BUCKETS == STATS_HIST_BUCKETS && IOT_SUB == STATS_HIST_SUB,
	       "the BPF program's histograms are stats_hist's");
_Static_assert(IOT_OPS == (int)RES_BLK_NOPS && (int)IOT_NWHAT == (int)RES_BLK_NWHAT, "one layout");
_Static_assert(IOT_BYPASSED == (int)IOTRACE_BYPASSED && IOT_MERGED == (int)IOTRACE_MERGED &&
	       IOT_REQUEUED == (int)IOTRACE_REQUEUED && IOT_LOST == (int)IOTRACE_LOST &&
	       IOT_ISSUED == (int)IOTRACE_ISSUED && IOT_NCOUNT == (int)IOTRACE_NCOUNTERS,
	       "the counters' public order is the program's");

/* One counted histogram as run.json keeps it, or NULL (nothing counted, or no memory: *nomem). */
static struct res_hist *fig_hist(const uint64_t *b, const uint64_t st[4], bool *nomem)
{
	size_t nb = 0;
	uint64_t total = 0;
	for (size_t i = 0; i < IOT_BUCKETS; i++)
		nb += b[i] != 0;
	if (!nb)
		return NULL;
	struct res_hist *h = calloc(1, sizeof(*h) + nb * sizeof(h->b[0]));
	if (!h) {
		*nomem = true;
		return NULL;
	}
	for (size_t i = 0; i < IOT_BUCKETS; i++)
		if (b[i]) {
			h->b[h->nb++] = (struct res_hist_bucket){ .i = (uint32_t)i, .n = b[i] };
			total += b[i];
		}
	/* the buckets are the truth: a count raced apart from them follows them */
	h->count = total;
	h->sum_ns = st[1];
	h->min_ns = st[2] ? st[2] - 1 : 0;        /* kept plus one: 0 is none */
	h->max_ns = st[3] ? st[3] - 1 : 0;
	if (h->max_ns < h->min_ns)
		h->max_ns = h->min_ns;
	return h;
}

void iotrace_hist_add(struct stats_hist *into, const struct res_blk *b, enum res_blk_what what)
{
	for (int op = 0; b && op < RES_BLK_NOPS; op++)
		res_hist_add_to(into, b->h[op][what]);
}

/*
 * Quantile q of every operation's histogram of `what` together, divided by
 * unit; NAN: none.  A depth (a count) below 8 is the whole number its
 * bucket holds, not a point spread over it.
 */
static double fig_quantile(const struct res_blk *b, int what, double q, double unit)
{
	struct stats_hist *all = calloc(1, sizeof(*all));
	double v = NAN;
	if (!all)
		return NAN;
	iotrace_hist_add(all, b, (enum res_blk_what)what);
	if (all->count)
		v = stats_hist_quantile(all, q);
	/* below 8 a bucket is one whole value: a depth of 1 is 1, not 1.67 */
	if (what == RES_BLK_DEPTH && v < IOT_SUB)
		v = floor(v);
	v /= unit;
	free(all);
	return v;
}

/* The lowest value of stats_hist bucket i. */
static uint64_t fig_bucket_lo(unsigned i)
{
	if (i < IOT_SUB)
		return i;
	unsigned msb = i / IOT_SUB + 2, sub = i % IOT_SUB;
	return (1ull << msb) + (uint64_t)sub * (1ull << (msb - 3));
}

/*
 * The time-weighted depth: a histogram whose buckets hold nanoseconds
 * (count their sum), sum the depth-weighted time, min and max the lowest
 * and highest depth seen (each bucket's lower bound).  NULL: no time.
 */
static struct res_hist *fig_tdepth(const uint64_t *tw, bool *nomem)
{
	uint64_t st[4] = { 0 };
	int lo = -1, hi = -1;
	for (int i = 0; tw && i < IOT_BUCKETS; i++)
		if (tw[i]) {
			lo = lo < 0 ? i : lo;
			hi = i;
		}
	if (lo < 0)
		return NULL;
	struct res_hist *h = fig_hist(tw, st, nomem);
	if (!h)
		return NULL;
	double sum = 0;
	for (size_t i = 0; i < h->nb; i++)
		sum += (double)fig_bucket_lo(h->b[i].i) * (double)h->b[i].n;
	h->sum_ns = (uint64_t)sum;
	h->min_ns = fig_bucket_lo((unsigned)lo);
	h->max_ns = fig_bucket_lo((unsigned)hi);
	return h;
}

/* Quantile q of the time-weighted depth, the whole depth its time falls at; NAN: none. */
static double fig_tquantile(const struct res_hist *h, double q)
{
	struct stats_hist *s = h ? calloc(1, sizeof(*s)) : NULL;
	double v = NAN;
	if (!s)
		return NAN;
	/* weights in microseconds: stats_hist counts in 32 bits */
	for (size_t i = 0; i < h->nb; i++) {
		uint64_t us = (h->b[i].n + 999) / 1000;
		s->bucket[h->b[i].i] += (uint32_t)(us > UINT32_MAX ? UINT32_MAX : us);
		s->count += us;
	}
	s->min_ns = h->min_ns;
	s->max_ns = h->max_ns;
	if (s->count)
		v = stats_hist_quantile(s, q);
	free(s);
	return v < IOT_SUB ? floor(v) : v;
}

/*
 * Quantile q (ms) of a histogram of ns kept without its min and max (an
 * entry's row): the buckets' bounds stand for them.  NAN: none.
 */
static double fig_row_quantile(const uint64_t *b, double q)
{
	struct stats_hist *h = calloc(1, sizeof(*h));
	int lo = -1, hi = -1;
	double v = NAN;
	if (!h)
		return NAN;
	for (int i = 0; i < IOT_BUCKETS; i++)
		if (b[i]) {
			h->bucket[i] = (uint32_t)(b[i] > UINT32_MAX ? UINT32_MAX : b[i]);
			h->count += h->bucket[i];
			lo = lo < 0 ? i : lo;
			hi = i;
		}
	if (h->count) {
		h->min_ns = fig_bucket_lo((unsigned)lo);
		h->max_ns = hi + 1 < IOT_BUCKETS ? fig_bucket_lo((unsigned)hi + 1) - 1 :
			    fig_bucket_lo((unsigned)hi);
		v = stats_hist_quantile(h, q) / 1e6;
	}
	free(h);
	return v;
}

void iotrace_entry_figures(const uint64_t *sched, const uint64_t *dev, const uint64_t *req,
			   unsigned sample, int entry, struct res_blk_ent *e)
{
	uint64_t k = sample ? sample : 1;    /* the sampled requests, each standing for k */
	memset(e, 0, sizeof(*e));
	e->entry = entry;
	snprintf(e->name, sizeof(e->name), "%s", entry < 0 ? "other" : "");
	for (int op = 0; op < IOT_OPS; op++)
		e->requests += req[op] * k;
	e->reads = req[RES_BLK_READ] * k;
	e->writes = req[RES_BLK_WRITE] * k;
	e->sched_p50_ms = fig_row_quantile(sched, 0.50);
	e->sched_p99_ms = fig_row_quantile(sched, 0.99);
	e->dev_p50_ms = fig_row_quantile(dev, 0.50);
	e->dev_p99_ms = fig_row_quantile(dev, 0.99);
}

void iotrace_tw_clamp(uint64_t *tw, uint64_t window_ns)
{
	uint64_t sum = 0;
	for (int b = 0; b < IOT_BUCKETS; b++)
		sum += tw[b];
	if (!window_ns) {
		memset(tw, 0, IOT_BUCKETS * sizeof(*tw));
		return;
	}
	if (sum <= window_ns)
		return;
	/* a tick's worth over the window (its first tick's time began before it): scaled down */
	for (int b = 0; b < IOT_BUCKETS; b++)
		tw[b] = (uint64_t)((double)tw[b] * ((double)window_ns / (double)sum));
}

int iotrace_figures(const struct iotrace_raw *raw, struct res_dev *d)
{
	struct res_blk *b = calloc(1, sizeof(*b));
	bool nomem = !b;
	uint64_t c[IOT_NCOUNT] = { 0 };
	for (int op = 0; !nomem && op < RES_BLK_NOPS; op++) {
		for (int w = 0; w < RES_BLK_NWHAT; w++)
			b->h[op][w] = fig_hist(raw->hist + ((size_t)op * IOT_NWHAT + (size_t)w) *
					       IOT_BUCKETS, raw->stat[op * IOT_NWHAT + w], &nomem);
		for (int k = 0; k < IOT_NCOUNT; k++)
			c[k] += raw->cnt[op * IOT_NCOUNT + k];
	}
	if (!nomem)
		b->tdepth = fig_tdepth(raw->tw, &nomem);
	if (nomem) {
		res_blk_free(b);
		return -1;
	}
	/* every request counted; the histograms may hold a sample of them */
	d->blk_requests = c[IOT_ISSUED];
	d->blk_sample = raw->sample ? raw->sample : 1;
	d->blk_sched_p50_ms = fig_quantile(b, RES_BLK_SCHED, 0.50, 1e6);
	d->blk_sched_p99_ms = fig_quantile(b, RES_BLK_SCHED, 0.99, 1e6);
	d->blk_dev_p50_ms = fig_quantile(b, RES_BLK_DEV, 0.50, 1e6);
	d->blk_dev_p99_ms = fig_quantile(b, RES_BLK_DEV, 0.99, 1e6);
	d->blk_req_kib_p50 = fig_quantile(b, RES_BLK_SIZE, 0.50, 1024);
	d->blk_depth_p50 = fig_quantile(b, RES_BLK_DEPTH, 0.50, 1);
	d->blk_depth_p90 = fig_quantile(b, RES_BLK_DEPTH, 0.90, 1);
	d->blk_tdepth_p50 = fig_tquantile(b->tdepth, 0.50);
	d->blk_tdepth_p90 = fig_tquantile(b->tdepth, 0.90);
	d->blk_bypassed = c[IOT_BYPASSED];
	d->blk_merged = c[IOT_MERGED];
	d->blk_requeued = c[IOT_REQUEUED];
	d->blk_lost = c[IOT_LOST];
	res_blk_free(d->blk);
	d->blk = b;
	return 0;
}
