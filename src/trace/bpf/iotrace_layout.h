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
	IOT_LOST,                /* a tag out of the request table's range: not measured */
	IOT_ISSUED,              /* requests issued (every one: the times may be sampled) */
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
 * the counters and the time-weighted depth (the ns per slot and depth
 * bucket, from the depth clock's ticks).
 * A whole number of cache lines, so that no two CPUs share one.
 */
struct iot_pcpu {
	unsigned long long hist[IOT_NHIST];
	struct iot_stat stat[IOT_NSTAT];
	unsigned long long cnt[IOT_NCNT];
	unsigned long long tw[IOT_SLOTS * IOT_BUCKETS];
};

/*
 * One CPU's requests issued on it less those completed on it, per slot
 * (the infl map; the depth is their sum over the CPUs): one cache line.
 */
struct iot_infl {
	long long n[IOT_SLOTS];
};
#define IOT_MAX_CPUS 1024        /* CPUs the depth is summed over (possible CPUs beyond: not) */
#define IOT_TICK_NS 1000000ull   /* the depth clock's period: the time-weighted depth's sampling */

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

/*
 * A request in flight (the reqs map, indexed by its tag): what was seen
 * of it, its time (its insert's while inserted, its issue's once issued;
 * taken for every issue, for an insert only when sampled) and its entry's row.
 */
#define IOT_RQ_TAGS 1024         /* tags a hardware queue: a larger tag is counted lost */
#define IOT_MAX_HCTX 256         /* hardware queues a device: a request on a later one, lost */
#define IOT_RQ_INSERTED 1u
#define IOT_RQ_ISSUED 2u
#define IOT_RQ_SAMPLED 4u        /* its times, size and depth go into the histograms */
#define IOT_RQ_OP_SHIFT 4        /* bits 4-5: its operation (read, write, flush, other) */
struct iot_req {
	unsigned long long ns;
	unsigned int flags, row;
};

/* Index of (slot, op, what) into the stat array; times IOT_BUCKETS + bucket into hist. */
#define IOT_STAT_IX(slot, op, what) (((slot) * IOT_OPS + (op)) * IOT_NWHAT + (what))
#define IOT_CNT_IX(slot, op, c) (((slot) * IOT_OPS + (op)) * IOT_NCOUNT + (c))

/* The kernel's dev_t of a whole disk (major << 20 | minor), the watch map's key. */
#define IOT_MKDEV(ma, mi) (((unsigned)(ma) << 20) | (unsigned)(mi))

#endif
