// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/trace-floor.sh's programs: what a tp_btf program call costs before
 * its body (the kernel's raw-tracepoint path and an empty program), and
 * what a body like the block tracer's unsampled issue and completion
 * (src/trace/bpf/iotrace.bpf.c) adds, on a tracepoint a user fires at
 * will: raw_syscalls' sys_enter and sys_exit, every getppid(2) one each.
 *
 *   fl_empty_a..d   sys_enter, nothing (1, 2 or 4 attached: the slope is
 *                   one more program's call on a tracepoint already on)
 *   fl_empty_x      sys_exit, nothing (with fl_empty_a: two calls a
 *                   syscall, as two a request: issue and completion)
 *   fl_ren_a..d     task_rename (prctl(PR_SET_NAME)), nothing: the same
 *                   slope on a tracepoint of the ordinary kind, as the
 *                   block layer's are (the syscalls' may fault: each of
 *                   their BPF calls is wrapped apart)
 *   fl_issue        sys_enter, iot_issue's unsampled path: its slot, its
 *                   CPU's figures, its request's element (flags read and
 *                   written), the issued and bypassed counts, a random
 *                   draw, its CPU's in-flight atomic
 *   fl_complete     sys_exit, iot_done's unsampled path: the element's
 *                   flags read and cleared, the in-flight atomic
 *
 * The element is the one of index `req_ix`'s CPU: spread = 0, every CPU
 * the same element (its line crosses between CPUs each call when two
 * threads run, as a request's element does between the issuing and the
 * completing CPU); spread = 1, each CPU its own line.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define FL_SLOTS 8
#define FL_CPUS 64
#define FL_NCNT (FL_SLOTS * 4 * 5)

/* the watched syscall, as the tracer's watched disk: getppid(2) */
const volatile __u32 watch[FL_SLOTS] = { 110 };
const volatile __u32 nslots = 1;
/* never sampled (the draw still made): the unsampled path only */
const volatile __u32 sample_below = 0;
volatile __u32 enabled = 1;
volatile __u32 spread;

struct fl_pcpu {
	__u64 cnt[FL_NCNT];
};
struct fl_infl {
	__s64 n[FL_SLOTS];
};
struct fl_req {
	__u64 ns;
	__u32 flags, row;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FL_CPUS);
	__type(key, __u32);
	__type(value, struct fl_pcpu);
} pcpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, FL_CPUS);
	__type(key, __u32);
	__type(value, struct fl_infl);
} infl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct fl_req);
} reqs SEC(".maps");

#define EMPTY(name, tp) \
	SEC("tp_btf/" tp) int name(void *ctx) { return 0; }
EMPTY(fl_empty_a, "sys_enter")
EMPTY(fl_empty_b, "sys_enter")
EMPTY(fl_empty_c, "sys_enter")
EMPTY(fl_empty_d, "sys_enter")
EMPTY(fl_empty_x, "sys_exit")
EMPTY(fl_ren_a, "task_rename")
EMPTY(fl_ren_b, "task_rename")
EMPTY(fl_ren_c, "task_rename")
EMPTY(fl_ren_d, "task_rename")

static __always_inline int slot_of(__u32 id)
{
#pragma unroll
	for (int i = 0; i < FL_SLOTS; i++)
		if (i < nslots && watch[i] == id)
			return i;
	return -1;
}

static __always_inline struct fl_pcpu *mine(void)
{
	__u32 cpu = bpf_get_smp_processor_id();
	return bpf_map_lookup_elem(&pcpu, &cpu);
}

static __always_inline void count(struct fl_pcpu *p, int slot, __u32 op, __u32 c)
{
	__u32 i = ((__u32)slot * 4 + op) * 5 + c;
	if (i < FL_NCNT)
		p->cnt[i]++;
}

static __always_inline void depth_step(__u32 slot, __s64 d)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct fl_infl *v = bpf_map_lookup_elem(&infl, &cpu);
	if (v && slot < FL_SLOTS)
		__sync_fetch_and_add(&v->n[slot], d);
}

/* the request's element: one for all CPUs, or (spread) one line each */
static __always_inline struct fl_req *req_of(struct pt_regs *regs, __u32 slot)
{
	__u32 i = (__u32)regs->orig_ax & 1;      /* a load through the context, as rq->tag */
	if (spread)
		i += bpf_get_smp_processor_id() * 4;
	if (i >= 256)
		return NULL;
	i += slot * 256;
	return bpf_map_lookup_elem(&reqs, &i);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(fl_issue, struct pt_regs *regs, long id)
{
	if (!enabled)
		return 0;
	int slot = slot_of((__u32)id);
	struct fl_pcpu *p = mine();
	if (slot < 0 || slot >= FL_SLOTS || !p)
		return 0;
	__u32 op = (__u32)regs->di & 3;
	struct fl_req *r = req_of(regs, (__u32)slot);
	__u32 f = r ? r->flags : 0;
	if (f & 0x80000000u)
		return 0;
	count(p, slot, op, 4);
	if (!r)
		return 0;
	__u32 s = bpf_get_prandom_u32() < sample_below ? 4 : 0;
	if (!(f & 1))
		count(p, slot, op, 0);
	depth_step((__u32)slot, 1);
	r->flags = 2 | s | op << 4;
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(fl_complete, struct pt_regs *regs, long ret)
{
	int slot = slot_of((__u32)regs->orig_ax);
	if (slot < 0 || slot >= FL_SLOTS)
		return 0;
	struct fl_req *r = req_of(regs, (__u32)slot);
	if (!r)
		return 0;
	__u32 f = r->flags;
	r->flags = 0;
	if (!(f & 2))
		return 0;
	depth_step((__u32)slot, -1);
	struct fl_pcpu *p;
	if (!enabled || !(p = mine()))
		return 0;
	if (f & 4)
		count(p, slot, 0, 2);
	return 0;
}
