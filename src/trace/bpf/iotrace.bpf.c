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
 *   every issue          counted (by operation; bypassed), as merges and
 *                        requeues are: every request's
 *   the depth clock      the time-weighted depth: each tick (a CPU-clock
 *                        perf event, every IOT_TICK_NS) the depth now
 *
 * The times, sizes, depths at issue and the entries' rows are of 1 request
 * in the sampling rate (sample_below), chosen at random at its first sight
 * (its insert, else its issue) and kept in its element of the request table
 * so that its issue and completion agree.
 *
 * CO-RE against the running kernel's BTF (tp_btf programs: the request's
 * fields are read by direct, relocated loads, no probe-read helper calls);
 * nothing is read from it but its queue's disk, its hardware queue, its
 * tags, its flags and its length.
 *
 * Cheap on the request's path (issue 46: a request costs what the device's
 * CPU work does not have to spare): each CPU adds into its own figures and
 * its own in-flight count (an atomic add on a line of its own; no line is
 * bounced between CPUs but the request's element of the table, indexed by
 * its tag: an array, its lookups inlined by the verifier); the clock is
 * read for a sampled request only.
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
/* CPUs (possible: the pcpu and infl maps' elements), the depth clock's period */
const volatile __u32 ncpus = 1;
const volatile __u64 tick_ns = IOT_TICK_NS;
/* the depth clock's last tick (iot_tick) */
__u64 tick_last;

/*
 * Each CPU's requests issued on it less those completed on it, per slot
 * (their sum over the CPUs is the depth; one may be negative): kept
 * across points, a cache line per CPU, no line shared by two CPUs.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);          /* the loader sets the CPUs' count */
	__type(key, __u32);
	__type(value, struct iot_infl);
} infl SEC(".maps");

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

/*
 * The requests in flight, one element a request of a watched device: slot
 * * per_slot + the request's hardware queue * IOT_RQ_TAGS + its tag (the
 * scheduler's tag when the queue has a scheduler, else the driver's: a
 * request holds it from its allocation to its completion).  An array: the
 * verifier inlines its lookups (no hash, no lock).  The loader sizes it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct iot_req);
} reqs SEC(".maps");

/* entries of reqs per slot (the loader's: its largest device's hardware queues * IOT_RQ_TAGS) */
const volatile __u32 per_slot = IOT_RQ_TAGS;
/* a request's times sampled when a random 32 bits fall below this (0xffffffff: every one) */
const volatile __u32 sample_below = 0xffffffff;

/* The watched slot of a disk, or -1. */
static __always_inline int slot_of(struct gendisk *disk)
{
	if (!disk)
		return -1;
	__u32 dev = IOT_MKDEV(disk->major, disk->first_minor);
#pragma unroll
	for (int i = 0; i < IOT_SLOTS; i++)
		if (i < nslots && watch_dev[i] == dev)
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
 * This CPU's in-flight count of slot moved by d (+1 at an issue, -1 at a
 * completion): an atomic add on its own line (a completion interrupting
 * an issue on this CPU must not lose one), no line bounced between CPUs.
 */
static __always_inline void depth_step(__u32 slot, __s64 d)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct iot_infl *v = bpf_map_lookup_elem(&infl, &cpu);
	if (v && slot < IOT_SLOTS)
		__sync_fetch_and_add(&v->n[slot], d);
}

/* The requests in flight on slot now: every CPU's count summed (a sampled issue, a tick). */
static __always_inline __u64 depth_now(__u32 slot)
{
	__s64 d = 0;
	for (__u32 c = 0; c < IOT_MAX_CPUS && c < ncpus; c++) {
		__u32 k = c;
		struct iot_infl *v = bpf_map_lookup_elem(&infl, &k);
		if (v && slot < IOT_SLOTS)
			d += v->n[slot];
	}
	return d > 0 ? (__u64)d : 0;
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

/*
 * Request rq's element of reqs, of watched slot slot; NULL: its tag out of
 * the table's range (counted lost by its issue).
 */
static __always_inline struct iot_req *req_of(struct request *rq, __u32 slot)
{
	int tag = rq->internal_tag;
	struct blk_mq_hw_ctx *h = rq->mq_hctx;
	if (tag < 0)
		tag = rq->tag;
	if (tag < 0 || tag >= IOT_RQ_TAGS || !h)
		return NULL;
	__u32 i = h->queue_num * IOT_RQ_TAGS + (__u32)tag;
	if (i >= per_slot)
		return NULL;
	i += slot * per_slot;
	return bpf_map_lookup_elem(&reqs, &i);
}

/* Whether a request's times are taken: one in the sampling rate, at random. */
static __always_inline __u32 sampled(void)
{
	if (sample_below == 0xffffffff)
		return IOT_RQ_SAMPLED;
	return bpf_get_prandom_u32() < sample_below ? IOT_RQ_SAMPLED : 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(iot_insert, struct request *rq)
{
	if (!enabled)
		return 0;
	int slot = rq_slot(rq);
	if (slot < 0)
		return 0;
	struct iot_req *r = req_of(rq, (__u32)slot);
	if (!r)
		return 0;
	__u32 s = sampled();
	r->flags = IOT_RQ_INSERTED | s;
	if (s) {                     /* its entry and time: a sampled request's only */
		r->row = row_now();
		r->ns = bpf_ktime_get_ns();
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
	__u32 op = op_of(rq->cmd_flags);
	struct iot_req *r = req_of(rq, (__u32)slot);
	__u32 f = r ? r->flags : 0;
	if (f & IOT_RQ_ISSUED)
		return 0;            /* issued twice without a completion: the first counts */
	count(p, slot, op, IOT_ISSUED);
	if (!r) {
		count(p, slot, op, IOT_LOST);
		return 0;
	}
	__u32 s = f & IOT_RQ_INSERTED ? f & IOT_RQ_SAMPLED : sampled();
	if (!(f & IOT_RQ_INSERTED))
		count(p, slot, op, IOT_BYPASSED);
	depth_step((__u32)slot, 1);
	if (s) {
		/* inserted: its inserter's entry (this may be a kworker); else the issuer's */
		__u32 row = f & IOT_RQ_INSERTED ? r->row : row_now();
		struct iot_ent *e = ent_of((__u32)slot, row);
		__u64 now = bpf_ktime_get_ns();
		if (e && op < IOT_OPS)
			e->requests[op]++;
		r->row = row;
		if (f & IOT_RQ_INSERTED) {
			put(p, slot, op, IOT_SCHED, now - r->ns);
			ent_put(e, IOT_SCHED, now - r->ns);
		}
		put(p, slot, op, IOT_SIZE, rq->__data_len);
		put(p, slot, op, IOT_DEPTH, depth_now((__u32)slot));
		r->ns = now;
	}
	r->flags = IOT_RQ_ISSUED | s | op << IOT_RQ_OP_SHIFT;
	return 0;
}

/* A request leaves: its device time when it was sampled; the in-flight count kept true. */
static __always_inline void iot_done(struct request *rq, bool completed)
{
	int slot = rq_slot(rq);
	if (slot < 0 || slot >= IOT_SLOTS)
		return;
	struct iot_req *r = req_of(rq, (__u32)slot);
	if (!r)
		return;
	__u32 f = r->flags, op = f >> IOT_RQ_OP_SHIFT & 3;
	r->flags = 0;
	if (!(f & IOT_RQ_ISSUED))
		return;
	depth_step((__u32)slot, -1);
	struct iot_pcpu *p;
	if (!enabled || !(p = mine()))
		return;
	if (completed && (f & IOT_RQ_SAMPLED)) {
		__u64 ns = bpf_ktime_get_ns() - r->ns;
		put(p, slot, op, IOT_DEV, ns);
		ent_put(ent_of((__u32)slot, r->row), IOT_DEV, ns);
	}
	if (!completed)              /* requeued: it is inserted and issued again */
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
	int slot = rq_slot(rq);
	if (slot < 0)
		return 0;
	/* cleared between points too: its tag's next request must not find its insert */
	struct iot_req *r = req_of(rq, (__u32)slot);
	if (r)
		r->flags = 0;
	struct iot_pcpu *p = mine();
	if (enabled && p)
		count(p, slot, op_of(rq->cmd_flags), IOT_MERGED);
	return 0;
}

/*
 * The depth clock (a CPU-clock perf event on one CPU, every tick_ns): the
 * time since the last tick to each watched slot's depth now, on this CPU's
 * figures.  The time-weighted depth is so sampled at even times, off the
 * requests' path.
 */
SEC("perf_event")
int iot_tick(void *ctx)
{
	__u64 now = bpf_ktime_get_ns(), last = tick_last;
	tick_last = now;
	if (!enabled || !last || now <= last)
		return 0;
	__u64 dt = now - last;
	if (dt > 2 * tick_ns)        /* a tick missed or the first of a window: one period */
		dt = tick_ns;
	struct iot_pcpu *p = mine();
	if (!p)
		return 0;
	for (__u32 slot = 0; slot < IOT_SLOTS && slot < nslots; slot++) {
		__u32 i = slot * IOT_BUCKETS + bucket_of(depth_now(slot));
		barrier_var(i);
		if (i < IOT_SLOTS * IOT_BUCKETS)
			p->tw[i] += dt;
	}
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
