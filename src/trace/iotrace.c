// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracer's loader (iotrace.h): the skeleton of iotrace.bpf.c opened,
 * loaded and attached once a run; its switches (.bss, mapped) flipped at
 * a point's edges, each CPU's figures (the pcpu map, mapped) summed and
 * zeroed between points.  Built without libbpf (IOTRACE=0 in the Makefile),
 * iotrace_open says so and the rest does nothing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/iotrace.h"
#include "jobmix/sys_dev.h"
#include "bpf/iotrace_layout.h"

#ifdef JOBMIX_IOTRACE
#include <sys/mman.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "iotrace.skel.h"

/* A window's edge of one slot: the depth when the time-weighted depth was switched, and when. */
struct iot_edge {
	uint64_t depth, ns;
};

struct iotrace {
	struct iotrace_bpf *skel;
	size_t n;
	struct iot_pcpu *pc;                    /* each CPU's figures (the pcpu map, mapped) */
	size_t ncpu, maplen;
	struct iot_edge edge[2][IOT_SLOTS];     /* [on | off] */
};

/* libbpf's own messages: kept out of the terminal (the one line says why). */
static int iot_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

/* The kernel's dev_t of /sys/block/NAME ("7:3" in its dev file); 0 when unknown. */
static unsigned iot_devno(const char *name)
{
	char buf[32];
	unsigned ma, mi;
	if (sys_dev_attr(name, "dev", buf, sizeof(buf)) || sscanf(buf, "%u:%u", &ma, &mi) != 2)
		return 0;
	return IOT_MKDEV(ma, mi);
}

/* bpf_ktime_get_ns's clock */
static uint64_t iot_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Before the load: the watched disks, one figures element a possible CPU. */
static int iot_setup(struct iotrace *t, const char *const *names, size_t n, char *why, size_t len)
{
	int ncpu = libbpf_num_possible_cpus();
	for (size_t i = 0; i < n; i++) {
		unsigned dev = iot_devno(names[i]);
		if (!dev) {
			snprintf(why, len, "block tracing off: no device number for '%s'", names[i]);
			return -1;
		}
		t->skel->rodata->watch_dev[i] = dev;
	}
	if (ncpu <= 0 || bpf_map__set_max_entries(t->skel->maps.pcpu, (uint32_t)ncpu)) {
		snprintf(why, len, "block tracing off: cannot size the figures for the CPUs");
		return -1;
	}
	t->ncpu = (size_t)ncpu;
	return 0;
}

/* After the load: the CPUs' figures mapped into jobmix (read and zeroed between points). */
static int iot_map(struct iotrace *t, char *why, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t sz = t->ncpu * sizeof(struct iot_pcpu);
	t->maplen = (sz + (size_t)page - 1) / (size_t)page * (size_t)page;
	void *m = mmap(NULL, t->maplen, PROT_READ | PROT_WRITE, MAP_SHARED,
		       bpf_map__fd(t->skel->maps.pcpu), 0);
	if (m == MAP_FAILED) {
		snprintf(why, len, "block tracing off: cannot map the tracer's figures: %s",
			 strerror(errno));
		return -1;
	}
	t->pc = m;
	return 0;
}

struct iotrace *iotrace_open(const char *const *names, size_t n, char *why, size_t len)
{
	struct iotrace *t = NULL;
	int err;
	if (geteuid() != 0) {
		snprintf(why, len, "block tracing off: not root");
		return NULL;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		snprintf(why, len, "block tracing off: the kernel has no BTF (/sys/kernel/btf/vmlinux)");
		return NULL;
	}
	if (!n || n > IOT_SLOTS) {
		snprintf(why, len, "block tracing off: %zu devices to watch (1 to %d)", n, IOT_SLOTS);
		return NULL;
	}
	libbpf_set_print(iot_quiet);
	t = calloc(1, sizeof(*t));
	if (!t || !(t->skel = iotrace_bpf__open())) {
		snprintf(why, len, "block tracing off: cannot open the BPF program: %s",
			 strerror(t ? errno : ENOMEM));
		goto fail;
	}
	if (iot_setup(t, names, n, why, len))
		goto fail;
	if ((err = iotrace_bpf__load(t->skel))) {
		snprintf(why, len, "block tracing off: the kernel refused the BPF program: %s",
			 strerror(-err));
		goto fail;
	}
	if (iot_map(t, why, len))
		goto fail;
	if ((err = iotrace_bpf__attach(t->skel))) {
		snprintf(why, len, "block tracing off: cannot attach to the block tracepoints: %s",
			 strerror(-err));
		goto fail;
	}
	t->n = n;
	return t;
fail:
	iotrace_close(t);
	return NULL;
}

/*
 * Switch each slot's time-weighted depth on (IOT_ON set) or off, noting
 * the depth at the switch and its time: the window's edge.
 */
static void iot_switch(struct iotrace *t, bool on)
{
	for (size_t i = 0; i < t->n; i++) {
		uint64_t *w = (uint64_t *)&t->skel->bss->iot_inflight[i];
		uint64_t ns = iot_now();
		uint64_t old = on ? __atomic_fetch_or(w, IOT_ON, __ATOMIC_SEQ_CST)
				  : __atomic_fetch_and(w, ~IOT_ON, __ATOMIC_SEQ_CST);
		if (!(old & IOT_ON) == on)
			t->edge[!on][i] = (struct iot_edge){ .depth = old & IOT_DEPTH_MASK, .ns = ns };
	}
}

void iotrace_start(struct iotrace *t)
{
	if (!t)
		return;
	iot_switch(t, true);
	__atomic_store_n(&t->skel->bss->enabled, 1, __ATOMIC_RELEASE);
}

void iotrace_stop(struct iotrace *t)
{
	if (!t)
		return;
	__atomic_store_n(&t->skel->bss->enabled, 0, __ATOMIC_RELEASE);
	iot_switch(t, false);
}

/* One slot's figures summed over the CPUs, as iotrace_figures reads them. */
struct iot_sum {
	uint64_t hist[IOT_OPS * IOT_NWHAT * IOT_BUCKETS];
	uint64_t stat[IOT_OPS * IOT_NWHAT][4];
	uint64_t cnt[IOT_OPS * IOT_NCOUNT];
	uint64_t left[IOT_BUCKETS], entered[IOT_BUCKETS], tw[IOT_BUCKETS];
};

/* CPU c's figures of slot into s: counts and sums added, min and max (kept plus one) kept. */
static void iot_add_cpu(struct iot_sum *s, const struct iot_pcpu *c, size_t slot)
{
	const uint64_t *h = (const uint64_t *)&c->hist[IOT_STAT_IX(slot, 0, 0) * IOT_BUCKETS];
	const struct iot_stat *st = &c->stat[IOT_STAT_IX(slot, 0, 0)];
	for (size_t i = 0; i < IOT_OPS * IOT_NWHAT * IOT_BUCKETS; i++)
		s->hist[i] += h[i];
	for (size_t i = 0; i < IOT_OPS * IOT_NWHAT; i++) {
		s->stat[i][1] += st[i].sum;
		if (st[i].min1 && (!s->stat[i][2] || st[i].min1 < s->stat[i][2]))
			s->stat[i][2] = st[i].min1;
		if (st[i].max1 > s->stat[i][3])
			s->stat[i][3] = st[i].max1;
	}
	for (size_t i = 0; i < IOT_OPS * IOT_NCOUNT; i++)
		s->cnt[i] += c->cnt[IOT_CNT_IX(slot, 0, 0) + i];
	for (size_t i = 0; i < IOT_BUCKETS; i++) {
		s->left[i] += c->tw_left[slot * IOT_BUCKETS + i];
		s->entered[i] += c->tw_entered[slot * IOT_BUCKETS + i];
	}
}

int iotrace_read(const struct iotrace *t, size_t slot, struct res_dev *d)
{
	if (!t || slot >= t->n)
		return 0;
	struct iot_sum *s = calloc(1, sizeof(*s));
	if (!s)
		return -1;
	for (size_t c = 0; c < t->ncpu; c++)
		iot_add_cpu(s, &t->pc[c], slot);
	const struct iot_edge *on = &t->edge[0][slot], *off = &t->edge[1][slot];
	iotrace_tw_span(s->left, s->entered, on->depth, on->ns, off->depth, off->ns, s->tw);
	struct iotrace_raw raw = {
		.hist = s->hist, .stat = (const uint64_t (*)[4])s->stat, .cnt = s->cnt, .tw = s->tw,
	};
	int rc = iotrace_figures(&raw, d);
	free(s);
	return rc;
}

void iotrace_clear(struct iotrace *t)
{
	if (!t)
		return;
	memset(t->pc, 0, t->ncpu * sizeof(*t->pc));
	memset(t->edge, 0, sizeof(t->edge));
}

void iotrace_close(struct iotrace *t)
{
	if (!t)
		return;
	if (t->pc)
		munmap(t->pc, t->maplen);
	iotrace_bpf__destroy(t->skel);
	free(t);
}

#else /* !JOBMIX_IOTRACE */

struct iotrace *iotrace_open(const char *const *names, size_t n, char *why, size_t len)
{
	(void)names;
	(void)n;
	snprintf(why, len, "block tracing off: jobmix was built without it (clang, bpftool and "
		 "libbpf-dev: make deps, then make)");
	return NULL;
}

void iotrace_start(struct iotrace *t)
{
	(void)t;
}

void iotrace_stop(struct iotrace *t)
{
	(void)t;
}

int iotrace_read(const struct iotrace *t, size_t slot, struct res_dev *d)
{
	(void)t;
	(void)slot;
	(void)d;
	return 0;
}

void iotrace_clear(struct iotrace *t)
{
	(void)t;
}

void iotrace_close(struct iotrace *t)
{
	(void)t;
}

#endif
