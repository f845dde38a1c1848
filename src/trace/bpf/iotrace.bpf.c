// SPDX-License-Identifier: GPL-2.0-only
/*
 * The block layer's figures per watched device and operation, for one load
 * point at a time (the loader, src/trace/iotrace.c, sets `enabled` at the
 * point's release and clears it at its end, then sums and zeroes each
 * CPU's figures, the pcpu map, through its mmap):
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
 *
 * Cheap on the request's path: each CPU adds into its own figures (its
 * lines never leave it); the requests in flight per device are the one figure shared
 * (two atomic adds a request), and the request table (a hash of the
 * request's address) is looked up once an event.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "iotrace_layout.h"

char LICENSE[] SEC("license") = "GPL";

/*
 * set before the load: each slot's disk (IOT_MKDEV; 0 unused), how many
 * are watched, the rows of the requests by entry (0: none kept)
 */
const volatile __u32 watch_dev[IOT_SLOTS];
const volatile __u32 nslots = 1;
const volatile __u32 nrows = 0;

/* what the loader switches */
volatile __u32 enabled;
/*
 * requests in flight per slot (IOT_ON: the time-weighted depth counts),
 * kept across points: the only figure the CPUs share, on a line of its own
 */
__u64 iot_inflight[IOT_SLOTS] __attribute__((aligned(64)));

/* each CPU's figures (one element a CPU, mapped by the loader, which sums and zeroes them) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);          /* the loader sets the CPUs' count */
	__type(key, __u32);
	__type(value, struct iot_pcpu);
} pcpu SEC(".maps");

/* each user's word: its pid and its job's entry (iotrace_layout.h), stored by the user */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, IOT_TAGS);
	__type(key, __u32);
	__type(value, __u64);
} tags SEC(".maps");

/* the requests by entry: element (cpu * nslots + slot) * nrows + row (the loader sizes it) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iot_ent);
} ents SEC(".maps");

struct iot_req {
	__u64 insert_ns;         /* 0: not seen inserted (since its last issue) */
	__u64 issue_ns;          /* 0: not issued (or completed: an entry is kept for the
				  * request's next use, a request being its tag's) */
	__u32 slot, op;
	__u32 row;               /* its entry's row (0: other), from its insert or issue */
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

/* This CPU's figures; NULL only if the loader sized the map short. */
static __always_inline struct iot_pcpu *mine(void)
{
	__u32 cpu = bpf_get_smp_processor_id();
	return bpf_map_lookup_elem(&pcpu, &cpu);
}

/*
 * v into histogram (slot, op, what) of this CPU's figures: plain adds
 * (another program interrupting this one on its CPU can lose one); min
 * is kept as min + 1 (0: none yet), max as max + 1.
 */
static __always_inline void put(struct iot_pcpu *p, int slot, __u32 op, __u32 what, __u64 v)
{
	__u32 s = IOT_STAT_IX((__u32)slot, op, what);
	if (s >= IOT_NSTAT)
		return;
	__u32 h = s * IOT_BUCKETS + bucket_of(v);
	if (h >= IOT_NHIST)
		return;
	p->hist[h]++;
	struct iot_stat *st = &p->stat[s];
	st->sum += v;
	if (!st->min1 || v + 1 < st->min1)
		st->min1 = v + 1;
	if (v + 1 > st->max1)
		st->max1 = v + 1;
}

static __always_inline void count(struct iot_pcpu *p, int slot, __u32 op, __u32 c)
{
	__u32 i = IOT_CNT_IX((__u32)slot, op, c);
	if (i < IOT_NCNT)
		p->cnt[i]++;
}

/*
 * The depth of slot moves by d (+1, -1) at `now`: the one shared atomic.
 * While IOT_ON is set, the old depth's bucket is left and the new one's
 * entered at now (this CPU's sums; a move within one bucket is neither).
 * Returns the old depth.
 */
static __always_inline __u64 depth_step(struct iot_pcpu *p, __u32 slot, __s64 d, __u64 now)
{
	if (slot >= IOT_SLOTS)
		return 0;
	__u64 old = __sync_fetch_and_add(&iot_inflight[slot], d);
	__u64 was = old & IOT_DEPTH_MASK;
	if (!(old & IOT_ON))
		return was;
	__u32 b0 = bucket_of(was), b1 = bucket_of(was + d);
	if (b0 == b1)
		return was;
	__u32 i0 = slot * IOT_BUCKETS + b0, i1 = slot * IOT_BUCKETS + b1;
	barrier_var(i0);             /* the checks below kept for the verifier */
	barrier_var(i1);
	/*
	 * atomic although this CPU's: a completion interrupting an issue on
	 * this CPU must not lose a timestamp (a whole uptime in one bucket);
	 * uncontended, its line stays in this CPU's cache
	 */
	if (i0 < IOT_SLOTS * IOT_BUCKETS && i1 < IOT_SLOTS * IOT_BUCKETS) {
		__sync_fetch_and_add(&p->tw_left[i0], now);
		__sync_fetch_and_add(&p->tw_entered[i1], now);
	}
	return was;
}

/* The row of the entry whose job the current process runs: 0 ('other') unless a user's. */
static __always_inline __u32 row_now(void)
{
	if (!nrows)
		return 0;
	/* the thread's id (users as threads share a process's): what each user stores */
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), k = tid & (IOT_TAGS - 1);
	__u64 *v = bpf_map_lookup_elem(&tags, &k);
	if (!v)
		return 0;
	__u64 w = *v;
	__u32 row = (__u32)w;
	return (__u32)(w >> 32) == tid && row < nrows ? row : 0;
}

/* This CPU's figures of (slot, row); NULL when no rows are kept. */
static __always_inline struct iot_ent *ent_of(__u32 slot, __u32 row)
{
	if (!nrows)
		return NULL;
	__u32 i = (bpf_get_smp_processor_id() * nslots + slot) * nrows + row;
	return bpf_map_lookup_elem(&ents, &i);
}

/* A request's time `what` (IOT_SCHED, IOT_DEV) into its entry's row. */
static __always_inline void ent_put(struct iot_ent *e, __u32 what, __u64 v)
{
	__u32 b = bucket_of(v);
	barrier_var(b);              /* the check below kept for the verifier */
	if (e && what < 2 && b < IOT_BUCKETS)
		e->hist[what][b]++;
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
		r->row = row_now();
		return 0;
	}
	struct iot_req n = { .insert_ns = bpf_ktime_get_ns(), .slot = (__u32)slot, .row = row_now() };
	if (bpf_map_update_elem(&reqs, &key, &n, BPF_ANY)) {
		struct iot_pcpu *p = mine();
		if (p)
			count(p, slot, 0, IOT_LOST);
	}
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(iot_issue, struct request *rq)
{
	if (!enabled)
		return 0;
	int slot = rq_slot(rq);
	struct iot_pcpu *p = mine();
	if (slot < 0 || slot >= IOT_SLOTS || !p)
		return 0;
	__u64 now = bpf_ktime_get_ns(), key = (__u64)rq;
	__u32 op = op_of(rq->cmd_flags);
	struct iot_req *r = bpf_map_lookup_elem(&reqs, &key);
	if (r && r->issue_ns)
		return 0;            /* issued twice without a completion: the first counts */
	/* inserted: its inserter's entry (this may be a kworker); else the issuer's */
	__u32 row = r && r->insert_ns ? r->row : row_now();
	struct iot_ent *e = ent_of((__u32)slot, row);
	if (e && op < IOT_OPS)
		e->requests[op]++;
	if (r && r->insert_ns) {
		put(p, slot, op, IOT_SCHED, now - r->insert_ns);
		ent_put(e, IOT_SCHED, now - r->insert_ns);
	} else {
		count(p, slot, op, IOT_BYPASSED);
	}
	put(p, slot, op, IOT_SIZE, rq->__data_len);
	put(p, slot, op, IOT_DEPTH, depth_step(p, (__u32)slot, 1, now) + 1);
	if (r) {                     /* updated in place: no map update on the hot path */
		r->issue_ns = now;
		r->insert_ns = 0;
		r->slot = (__u32)slot;
		r->op = op;
		r->row = row;
		return 0;
	}
	struct iot_req n = { .issue_ns = now, .slot = (__u32)slot, .op = op, .row = row };
	if (bpf_map_update_elem(&reqs, &key, &n, BPF_ANY)) {
		depth_step(p, (__u32)slot, -1, bpf_ktime_get_ns());
		count(p, slot, op, IOT_LOST);
	}
	return 0;
}

/* A request leaves: its device time when it was issued; the in-flight count kept true. */
static __always_inline void iot_done(struct request *rq, bool completed)
{
	__u64 key = (__u64)rq;
	struct iot_req *r = bpf_map_lookup_elem(&reqs, &key);
	struct iot_pcpu *p = mine();
	if (!r || !p)
		return;
	__u32 slot = r->slot, op = r->op;
	if (slot >= IOT_SLOTS)
		return;
	if (r->issue_ns) {
		__u64 now = bpf_ktime_get_ns();
		depth_step(p, slot, -1, now);
		if (enabled && completed) {
			put(p, slot, op, IOT_DEV, now - r->issue_ns);
			ent_put(ent_of(slot, r->row), IOT_DEV, now - r->issue_ns);
		}
	}
	/* kept, cleared: the request's address comes back with its tag (no map update) */
	r->issue_ns = 0;
	r->insert_ns = 0;
	if (!completed && enabled)   /* requeued: it is inserted and issued again */
		count(p, slot, op, IOT_REQUEUED);
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
	struct iot_pcpu *p = mine();
	if (slot < 0 || !p)
		return 0;
	struct iot_req *r = bpf_map_lookup_elem(&reqs, &key);
	if (r) {
		r->insert_ns = 0;
		r->issue_ns = 0;
	}
	count(p, slot, op_of(rq->cmd_flags), IOT_MERGED);
	return 0;
}

static __always_inline void bio_merged(struct bio *bio)
{
	if (!enabled)
		return;
	int slot = slot_of(bio->bi_bdev->bd_disk);
	struct iot_pcpu *p = mine();
	if (slot >= 0 && p)
		count(p, slot, op_of(bio->bi_opf), IOT_MERGED);
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
