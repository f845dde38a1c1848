/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout the BPF program (iotrace.bpf.c) and its loader (iotrace.c)
 * share: which devices are watched (slots), the operations told apart, the
 * figures kept and the histogram layout (stats.h's: log-linear, 8
 * sub-buckets per power of two, 384 buckets), so that a histogram read out
 * of the kernel is a run.json histogram as it is.  Includes nothing: the
 * BPF side has vmlinux.h, the loader <stdint.h>.
 */
#ifndef JOBMIX_IOTRACE_LAYOUT_H
#define JOBMIX_IOTRACE_LAYOUT_H

#define IOT_SLOTS 8              /* watched devices (SYS_MAX_DEVS) */
#define IOT_OPS 4                /* read, write, flush, other (discard, write zeroes, ...) */
#define IOT_SUB 8                /* STATS_HIST_SUB */
#define IOT_BUCKETS 384          /* STATS_HIST_BUCKETS */

enum iot_what {
	IOT_SCHED,               /* insert to issue, ns */
	IOT_DEV,                 /* issue to complete, ns */
	IOT_SIZE,                /* bytes of a request at its issue */
	IOT_DEPTH,               /* requests in flight on its device at an issue, itself included */
	IOT_NWHAT
};

enum iot_count {
	IOT_BYPASSED,            /* issued without an insert seen (no scheduler queue) */
	IOT_MERGED,              /* a request or a bio merged into another request */
	IOT_REQUEUED,            /* put back after an issue */
	IOT_LOST,                /* the request table was full: a time not measured */
	IOT_NCOUNT
};

/*
 * One histogram's totals (the buckets are apart, in the hist array): count
 * unused (the buckets' sum is the count), min and max kept plus one (0:
 * nothing counted).
 */
struct iot_stat {
	unsigned long long count, sum, min1, max1;
};

#define IOT_NSTAT (IOT_SLOTS * IOT_OPS * IOT_NWHAT)
#define IOT_NHIST (IOT_NSTAT * IOT_BUCKETS)
#define IOT_NCNT (IOT_SLOTS * IOT_OPS * IOT_NCOUNT)

/*
 * One CPU's figures (the program adds into its own CPU's, without atomics;
 * the loader sums the CPUs after a point): the histograms, their totals,
 * the counters and the time-weighted depth as two sums per slot and depth
 * bucket, of the times the depth left the bucket and of the times it
 * entered it (their difference over a window is the time spent there).
 * A whole number of cache lines, so that no two CPUs share one.
 */
struct iot_pcpu {
	unsigned long long hist[IOT_NHIST];
	struct iot_stat stat[IOT_NSTAT];
	unsigned long long cnt[IOT_NCNT];
	unsigned long long tw_left[IOT_SLOTS * IOT_BUCKETS];
	unsigned long long tw_entered[IOT_SLOTS * IOT_BUCKETS];
};

/*
 * A slot's in-flight word: the requests in flight below, IOT_ON set while
 * the time-weighted depth counts (the loader flips it by an atomic xor, so
 * that each change of the depth is either before or after the flip and the
 * depth at the flip is exact).
 */
#define IOT_ON (1ull << 62)
#define IOT_DEPTH_MASK (IOT_ON - 1)

/*
 * Requests by mix entry (issue 46 item 5): each user stores, at each
 * job's start, tid << 32 | entry + 1 into word tid & (IOT_TAGS - 1) of the
 * tags map (its thread id: users as threads share a pid; mapped into the
 * users: a plain store, no system call); a request inserted or issued by a
 * thread whose word holds its own id
 * is that entry's (row entry + 1), any other is row 0 ('other': writeback,
 * the journal, a user's child).  The rows are kept per CPU and slot.
 */
#define IOT_TAGS 65536
#define IOT_MAX_ROWS 33          /* 'other' and the first 32 entries: more, no rows at all */
struct iot_ent {
	unsigned long long hist[2][IOT_BUCKETS];   /* IOT_SCHED, IOT_DEV ns */
	unsigned long long requests[IOT_OPS];      /* issued */
	unsigned long long pad[4];                 /* to a whole number of cache lines */
};

/* Index of (slot, op, what) into the stat array; times IOT_BUCKETS + bucket into hist. */
#define IOT_STAT_IX(slot, op, what) (((slot) * IOT_OPS + (op)) * IOT_NWHAT + (what))
#define IOT_CNT_IX(slot, op, c) (((slot) * IOT_OPS + (op)) * IOT_NCOUNT + (c))

/* The kernel's dev_t of a whole disk (major << 20 | minor), the watch map's key. */
#define IOT_MKDEV(ma, mi) (((unsigned)(ma) << 20) | (unsigned)(mi))

#endif
