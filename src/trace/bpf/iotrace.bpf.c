// SPDX-License-Identifier: GPL-2.0-only
/*
 * The block layer's figures per watched device and operation, for one load
 * point at a time (the loader, src/trace/iotrace.c, sets `enabled` at the
 * point's release and clears it at its end, then reads and zeroes the
 * arrays below through the skeleton's mmap of .bss):
 *
 *   insert -> issue      time in the IO scheduler (a request issued without
 *                        an insert bypassed it: counted, no time)
 *   issue -> complete    time in the device
 *   at issue             the request's bytes, the requests in flight on the
 *                        device (itself included)
 *   merge, requeue       counted
 *
 * CO-RE against the running kernel's BTF (tp_btf programs: the request's
 * fields are read by direct, relocated loads, no probe-read helper calls);
 * nothing is read from it but its queue's disk, its flags and its length.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "iotrace_layout.h"

char LICENSE[] SEC("license") = "GPL";

/* what the loader sets */
volatile __u32 enabled;
volatile __u32 watch_dev[IOT_SLOTS];   /* IOT_MKDEV of each slot's disk; 0 unused */

/* what it reads and zeroes after each point */
__u64 iot_hist[IOT_NHIST];
struct iot_stat iot_stat[IOT_NSTAT];
__u64 iot_cnt[IOT_NCNT];
/* requests in flight per slot, kept across points (never zeroed) */
__s64 iot_inflight[IOT_SLOTS];
/*
 * the time-weighted depth: ns the slot's device spent at each depth (its
 * bucket), from one change of the depth to the next; when it last changed
 * (0: not since the loader zeroed it)
 */
__u64 iot_tw[IOT_SLOTS * IOT_BUCKETS];
__u64 iot_tw_last[IOT_SLOTS];

struct iot_req {
	__u64 insert_ns;         /* 0: not seen inserted (since its last issue) */
	__u64 issue_ns;          /* 0: not issued (or completed: an entry is kept for the
				  * request's next use, a request being its tag's) */
	__u32 slot, op;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);      /* the struct request's address */
	__type(value, struct iot_req);
} reqs SEC(".maps");

/* The watched slot of a disk, or -1. */
static __always_inline int slot_of(struct gendisk *disk)
{
	if (!disk)
		return -1;
	__u32 dev = IOT_MKDEV(disk->major, disk->first_minor);
#pragma unroll
	for (int i = 0; i < IOT_SLOTS; i++)
		if (watch_dev[i] == dev)
			return i;
	return -1;
}

static __always_inline int rq_slot(struct request *rq)
{
	return slot_of(rq->q->disk);
}

/* read 0, write 1, flush 2, anything else 3 */
static __always_inline __u32 op_of(__u32 opf)
{
	__u32 op = opf & 0xff;       /* REQ_OP_MASK */
	return op < 3 ? op : 3;
}

/* stats_hist_index(): log-linear, 8 sub-buckets per power of two */
static __always_inline __u32 bucket_of(__u64 v)
{
	if (v < IOT_SUB)
		return (__u32)v;
	__u32 msb = 0;
	__u64 x = v;
	if (x >> 32) { x >>= 32; msb += 32; }
	if (x >> 16) { x >>= 16; msb += 16; }
	if (x >> 8) { x >>= 8; msb += 8; }
	if (x >> 4) { x >>= 4; msb += 4; }
	if (x >> 2) { x >>= 2; msb += 2; }
	if (x >> 1) msb += 1;
	__u32 sub = (__u32)(v >> (msb - 3)) & (IOT_SUB - 1);
	__u32 idx = (msb - 2) * IOT_SUB + sub;
	return idx < IOT_BUCKETS ? idx : IOT_BUCKETS - 1;
}

static __always_inline void put(int slot, __u32 op, __u32 what, __u64 v)
{
	__u32 s = IOT_STAT_IX((__u32)slot, op, what);
	if (s >= IOT_NSTAT)
		return;
	__u32 h = s * IOT_BUCKETS + bucket_of(v);
	if (h >= IOT_NHIST)
		return;
	__sync_fetch_and_add(&iot_hist[h], 1);
	struct iot_stat *st = &iot_stat[s];
	__sync_fetch_and_add(&st->sum, v);
	/*
	 * the count is the buckets' (the loader sums them); min is kept as
	 * min + 1 (0: none yet), max as max + 1; a lost race between CPUs
	 * leaves a neighbour's value, never a wrong bucket
	 */
	if (!st->min1 || v + 1 < st->min1)
		st->min1 = v + 1;
	if (v + 1 > st->max1)
		st->max1 = v + 1;
}

/*
 * The depth changes from `was` at `now`: the time since the last change
 * goes to was's bucket.  The exchange and the in-flight count are two
 * atomics, not one: a change racing on another CPU can lend its interval
 * to a neighbouring depth.
 */
static __always_inline void tw_step(__u32 slot, __s64 was, __u64 now)
{
	if (slot >= IOT_SLOTS)
		return;
	__u64 last = __sync_lock_test_and_set(&iot_tw_last[slot], now);
	if (!enabled || !last || now <= last)
		return;
	__u32 b = bucket_of(was > 0 ? (__u64)was : 0);
	__u32 i = slot * IOT_BUCKETS + b;
	if (i < IOT_SLOTS * IOT_BUCKETS)
		__sync_fetch_and_add(&iot_tw[i], now - last);
}

static __always_inline void count(int slot, __u32 op, __u32 c)
{
	__u32 i = IOT_CNT_IX((__u32)slot, op, c);
	if (i < IOT_NCNT)
		__sync_fetch_and_add(&iot_cnt[i], 1);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(iot_insert, struct request *rq)
{
	if (!enabled)
		return 0;
	int slot = rq_slot(rq);
	if (slot < 0)
		return 0;
	__u64 key = (__u64)rq;
	struct iot_req *r = bpf_map_lookup_elem(&reqs, &key);
	if (r) {                     /* a request's address comes back (tags): in place */
		r->insert_ns = bpf_ktime_get_ns();
		r->issue_ns = 0;
		r->slot = (__u32)slot;
		return 0;
	}
	struct iot_req n = { .insert_ns = bpf_ktime_get_ns(), .slot = (__u32)slot };
	if (bpf_map_update_elem(&reqs, &key, &n, BPF_ANY))
		count(slot, 0, IOT_LOST);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(iot_issue, struct request *rq)
{
	if (!enabled)
		return 0;
	int slot = rq_slot(rq);
	if (slot < 0 || slot >= IOT_SLOTS)
		return 0;
	__u64 now = bpf_ktime_get_ns(), key = (__u64)rq;
	__u32 op = op_of(rq->cmd_flags);
	struct iot_req *r = bpf_map_lookup_elem(&reqs, &key);
	if (r && r->issue_ns)
		return 0;            /* issued twice without a completion: the first counts */
	if (r && r->insert_ns)
		put(slot, op, IOT_SCHED, now - r->insert_ns);
	else
		count(slot, op, IOT_BYPASSED);
	put(slot, op, IOT_SIZE, rq->__data_len);
	__s64 was = __sync_fetch_and_add(&iot_inflight[slot], 1), depth = was + 1;
	tw_step((__u32)slot, was, now);
	put(slot, op, IOT_DEPTH, depth > 0 ? (__u64)depth : 1);
	if (r) {                     /* updated in place: no map update on the hot path */
		r->issue_ns = now;
		r->insert_ns = 0;
		r->slot = (__u32)slot;
		r->op = op;
		return 0;
	}
	struct iot_req n = { .issue_ns = now, .slot = (__u32)slot, .op = op };
	if (bpf_map_update_elem(&reqs, &key, &n, BPF_ANY)) {
		__sync_fetch_and_add(&iot_inflight[slot], -1);
		count(slot, op, IOT_LOST);
	}
	return 0;
}

/* A request leaves: its device time when it was issued; the in-flight count kept true. */
static __always_inline void iot_done(struct request *rq, bool completed)
{
	__u64 key = (__u64)rq;
	struct iot_req *r = bpf_map_lookup_elem(&reqs, &key);
	if (!r)
		return;
	__u32 slot = r->slot, op = r->op;
	if (slot >= IOT_SLOTS)
		return;
	if (r->issue_ns) {
		__u64 now = bpf_ktime_get_ns();
		tw_step(slot, __sync_fetch_and_add(&iot_inflight[slot], -1), now);
		if (enabled && completed)
			put(slot, op, IOT_DEV, now - r->issue_ns);
	}
	/* kept, cleared: the request's address comes back with its tag (no map update) */
	r->issue_ns = 0;
	r->insert_ns = 0;
	if (!completed && enabled)   /* requeued: it is inserted and issued again */
		count(slot, op, IOT_REQUEUED);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(iot_complete, struct request *rq, blk_status_t error, unsigned int nr_bytes)
{
	iot_done(rq, true);
	return 0;
}

SEC("tp_btf/block_rq_requeue")
int BPF_PROG(iot_requeue, struct request *rq)
{
	iot_done(rq, false);
	return 0;
}

/* A request merged into another goes without a completion. */
SEC("tp_btf/block_rq_merge")
int BPF_PROG(iot_rq_merge, struct request *rq)
{
	__u64 key = (__u64)rq;
	if (!enabled)
		return 0;
	int slot = rq_slot(rq);
	if (slot < 0)
		return 0;
	struct iot_req *r = bpf_map_lookup_elem(&reqs, &key);
	if (r) {
		r->insert_ns = 0;
		r->issue_ns = 0;
	}
	count(slot, op_of(rq->cmd_flags), IOT_MERGED);
	return 0;
}

static __always_inline void bio_merged(struct bio *bio)
{
	if (!enabled)
		return;
	int slot = slot_of(bio->bi_bdev->bd_disk);
	if (slot >= 0)
		count(slot, op_of(bio->bi_opf), IOT_MERGED);
}

SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(iot_backmerge, struct bio *bio)
{
	bio_merged(bio);
	return 0;
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(iot_frontmerge, struct bio *bio)
{
	bio_merged(bio);
	return 0;
}
