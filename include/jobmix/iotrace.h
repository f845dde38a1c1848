/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The block layer's distributions per load point (issue 46): a BPF program
 * on block_rq_insert, _issue, _complete, _requeue, _merge and the bio
 * merges, for the watched devices only, loaded once a run (CO-RE against
 * the running kernel's BTF; src/trace/bpf/iotrace.bpf.c), switched on at
 * a point's release and off at its end (a store into the program's mapped
 * globals: no system call in the window, no polling), then read and
 * zeroed.  Its links are file descriptors: a process that dies, killed or
 * not, leaves no program attached.
 *
 * Optional: iotrace_open says why it cannot (not root, no BTF, built
 * without libbpf, the kernel refused) and the run goes on without.
 */
#ifndef JOBMIX_IOTRACE_H
#define JOBMIX_IOTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "jobmix/results.h"

struct iotrace;

/* The default sampling rate: the times of 1 request in this (run --trace-sample). */
#define IOTRACE_SAMPLE 16

/*
 * Load and attach the tracer for the n devices named (as /sys/block lists
 * them; slot i is names[i]; at most 8), the requests kept by mix entry
 * for nentries entries (0, or more than 32: not kept), the times, sizes
 * and depths at issue of one request in `sample`, at random (0 or 1:
 * every request; the counts are every request's).  NULL with why
 * ("tracing off: ...", one line) when it cannot.
 */
struct iotrace *iotrace_open(const char *const *names, size_t n, size_t nentries,
			     unsigned sample, char *why, size_t len);
/* Start counting (the point's release) / stop (its end).  t may be NULL. */
void iotrace_start(struct iotrace *t);
void iotrace_stop(struct iotrace *t);
/*
 * Device slot's figures since the last clear into d: blk_* and d->blk (the
 * histograms, allocated; freed by res_blk_free).  -1 when out of memory
 * (d's blk fields as they were).
 */
int iotrace_read(const struct iotrace *t, size_t slot, struct res_dev *d);
/*
 * The users' words (iotrace_layout.h: IOT_TAGS of them, mapped shared, so
 * that the users forked after the open inherit them): each user stores
 * pid << 32 | entry + 1 into word pid & (IOT_TAGS - 1) at each job's start,
 * and its requests are that entry's.  NULL: not kept.
 */
uint64_t *iotrace_tags(const struct iotrace *t);
#define IOTRACE_TAGS_MASK 65535u
/* Zero every figure (between points, counting stopped). */
void iotrace_clear(struct iotrace *t);
/* Detach and unload; t may be NULL. */
void iotrace_close(struct iotrace *t);

/*
 * The counters of a device's requests per operation, in the program's
 * order (figures.c asserts it equal to iotrace_layout.h's).
 */
enum iotrace_counter {
	IOTRACE_BYPASSED,        /* issued without an insert seen */
	IOTRACE_MERGED,          /* a request or a bio merged into another */
	IOTRACE_REQUEUED,        /* put back after an issue */
	IOTRACE_LOST,            /* a tag out of the request table's range */
	IOTRACE_ISSUED,          /* requests issued (every one) */
	IOTRACE_NCOUNTERS
};

/*
 * The pure part (figures.c; no BPF): one device's raw counts, as the
 * program keeps them, into d.  hist: [op][what][bucket] counts, stat:
 * [op][what] {unused, sum, min + 1, max + 1} (0: none), cnt:
 * [op][counter] (enum iotrace_counter), of that device's slot;
 * blk_requests the counter of requests issued (every one), blk_sample the
 * sampling rate of the histograms.
 */
struct iotrace_raw {
	const uint64_t *hist;                   /* RES_BLK_NOPS x RES_BLK_NWHAT x 384 */
	const uint64_t (*stat)[4];              /* RES_BLK_NOPS x RES_BLK_NWHAT */
	const uint64_t *cnt;                    /* RES_BLK_NOPS x IOTRACE_NCOUNTERS */
	const uint64_t *tw;                     /* 384: ns at each depth's bucket; NULL none */
	unsigned sample;                        /* the histograms hold 1 request in this (0: 1) */
};
int iotrace_figures(const struct iotrace_raw *raw, struct res_dev *d);
/*
 * One row of the requests by entry (entry -1: 'other') from its sums over
 * the sampled requests (1 in sample; 0 or 1: every one): the scheduler and
 * device times (384 buckets of ns each) and the requests issued by
 * operation (RES_BLK_NOPS), each standing for `sample` requests (the
 * counts are so scaled: estimates); e's name is "other" or left empty.
 */
void iotrace_entry_figures(const uint64_t *sched, const uint64_t *dev, const uint64_t *req,
			   unsigned sample, int entry, struct res_blk_ent *e);
/*
 * The time-weighted depth of a window (tw: 384 buckets of ns, the depth
 * clock's ticks, each the time since the one before) kept within the
 * window's window_ns: scaled down when the ticks sum to more (the first
 * tick's time began before the window), zeroed with no window (0).
 */
void iotrace_tw_clamp(uint64_t *tw, uint64_t window_ns);

struct stats_hist;
/* Add b's histograms of `what`, every operation's, into `into` (stats.h's layout). */
void iotrace_hist_add(struct stats_hist *into, const struct res_blk *b, enum res_blk_what what);

#endif
