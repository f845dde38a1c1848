// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracer's loader (iotrace.h): the skeleton of iotrace.bpf.c opened,
 * loaded and attached once a run, its depth clock on a CPU-clock perf
 * event; its switch (.bss, mapped) flipped at a point's edges, each
 * CPU's figures (the pcpu map, mapped) summed and
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
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "iotrace.skel.h"

_Static_assert(IOTRACE_TAGS_MASK == IOT_TAGS - 1, "one tags map");

struct iotrace {
	struct iotrace_bpf *skel;
	size_t n;
	struct iot_pcpu *pc;                    /* each CPU's figures (the pcpu map, mapped) */
	size_t ncpu, maplen;
	uint64_t *tags;                         /* the users' words (the tags map, mapped) */
	struct iot_ent *ent;                    /* by CPU, slot and row (the ents map); NULL none */
	size_t rows, entlen;
	unsigned sample;                        /* 1 in sample requests' times taken */
	struct bpf_link *tick;                  /* the depth clock (iot_tick on a CPU-clock event) */
	uint64_t t0, t1;                        /* the window: counting on, off (CLOCK_MONOTONIC) */
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

/* The hardware queues of /sys/block/NAME (its mq directory's entries); 1 when unknown. */
static unsigned iot_hctxs(const char *name)
{
	char path[256];
	unsigned n = 0;
	snprintf(path, sizeof(path), "/sys/block/%s/mq", name);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));)
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n ? n : 1;
}

/* The random 32 bits below which a request is sampled: one in `sample` (1: every one). */
static uint32_t iot_sample_below(unsigned sample)
{
	return sample <= 1 ? UINT32_MAX : (uint32_t)((1ull << 32) / sample);
}

/*
 * Before the load: the watched disks, one figures element a possible CPU,
 * the rows by entry ('other' and each of nentries; none past IOT_MAX_ROWS),
 * the request table (per device, its hardware queues' tags: the largest's).
 */
static int iot_setup(struct iotrace *t, const char *const *names, size_t n, size_t nentries,
		     char *why, size_t len)
{
	int ncpu = libbpf_num_possible_cpus();
	unsigned hctx = 1;
	t->rows = nentries && nentries + 1 <= IOT_MAX_ROWS ? nentries + 1 : 0;
	for (size_t i = 0; i < n; i++) {
		unsigned dev = iot_devno(names[i]), h = iot_hctxs(names[i]);
		if (!dev) {
			snprintf(why, len, "block tracing off: no device number for '%s'", names[i]);
			return -1;
		}
		t->skel->rodata->watch_dev[i] = dev;
		hctx = h > hctx ? h : hctx;
	}
	hctx = hctx > IOT_MAX_HCTX ? IOT_MAX_HCTX : hctx;
	t->skel->rodata->nslots = (uint32_t)n;
	t->skel->rodata->nrows = (uint32_t)t->rows;
	t->skel->rodata->per_slot = hctx * IOT_RQ_TAGS;
	t->skel->rodata->sample_below = iot_sample_below(t->sample);
	t->skel->rodata->ncpus = (uint32_t)(ncpu > 0 ? ncpu : 1);
	if (ncpu <= 0 || bpf_map__set_max_entries(t->skel->maps.pcpu, (uint32_t)ncpu) ||
	    bpf_map__set_max_entries(t->skel->maps.infl, (uint32_t)ncpu) ||
	    bpf_map__set_max_entries(t->skel->maps.reqs, (uint32_t)(n * hctx * IOT_RQ_TAGS)) ||
	    (t->rows && bpf_map__set_max_entries(t->skel->maps.ents,
						 (uint32_t)((size_t)ncpu * n * t->rows)))) {
		snprintf(why, len, "block tracing off: cannot size the figures for the CPUs");
		return -1;
	}
	t->ncpu = (size_t)ncpu;
	return 0;
}

/* An mmapable array map's sz bytes mapped into jobmix (*len: the length mapped); NULL: no. */
static void *iot_mmap(const struct bpf_map *map, size_t sz, size_t *len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	*len = (sz + page - 1) / page * page;
	void *m = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);
	return m == MAP_FAILED ? NULL : m;
}

/*
 * After the load: the CPUs' figures mapped into jobmix (read and zeroed
 * between points), the users' words (inherited by the users, who store
 * into them), the rows by entry.
 */
static int iot_map(struct iotrace *t, char *why, size_t len)
{
	size_t n = t->ncpu * t->n * t->rows, tl;
	t->pc = iot_mmap(t->skel->maps.pcpu, t->ncpu * sizeof(struct iot_pcpu), &t->maplen);
	t->tags = t->pc ? iot_mmap(t->skel->maps.tags, IOT_TAGS * sizeof(uint64_t), &tl) : NULL;
	t->ent = t->tags && n ? iot_mmap(t->skel->maps.ents, n * sizeof(struct iot_ent),
					 &t->entlen) : NULL;
	if (!t->pc || !t->tags || (n && !t->ent)) {
		snprintf(why, len, "block tracing off: cannot map the tracer's figures: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The depth clock: iot_tick on a CPU-clock perf event of the first online
 * CPU (a timer, ticking idle or not) every IOT_TICK_NS; the link owns the
 * event's descriptor.  -1 (why says why): no clock, no time-weighted depth.
 */
static int iot_clock(struct iotrace *t, char *why, size_t len)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = IOT_TICK_NS,
	};
	int fd = -1;
	for (int cpu = 0; fd < 0 && cpu < (int)t->ncpu; cpu++)
		fd = (int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "no time-weighted depth: no CPU-clock event: %s",
			 strerror(errno));
		return -1;
	}
	t->tick = bpf_program__attach_perf_event(t->skel->progs.iot_tick, fd);
	if (!t->tick) {
		snprintf(why, len, "no time-weighted depth: cannot attach its clock: %s",
			 strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

struct iotrace *iotrace_open(const char *const *names, size_t n, size_t nentries,
			     unsigned sample, char *why, size_t len)
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
	t->n = n;
	t->sample = sample ? sample : 1;
	if (iot_setup(t, names, n, nentries, why, len))
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
	/* without a CPU-clock event (perf events refused) the rest still counts */
	if (iot_clock(t, why, len))
		why[0] = '\0';
	return t;
fail:
	iotrace_close(t);
	return NULL;
}

void iotrace_start(struct iotrace *t)
{
	if (!t)
		return;
	t->t0 = iot_now();
	__atomic_store_n(&t->skel->bss->enabled, 1, __ATOMIC_RELEASE);
}

void iotrace_stop(struct iotrace *t)
{
	if (!t)
		return;
	__atomic_store_n(&t->skel->bss->enabled, 0, __ATOMIC_RELEASE);
	t->t1 = iot_now();
}

/* One slot's figures summed over the CPUs, as iotrace_figures reads them. */
struct iot_sum {
	uint64_t hist[IOT_OPS * IOT_NWHAT * IOT_BUCKETS];
	uint64_t stat[IOT_OPS * IOT_NWHAT][4];
	uint64_t cnt[IOT_OPS * IOT_NCOUNT];
	uint64_t tw[IOT_BUCKETS];
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
	for (size_t i = 0; i < IOT_BUCKETS; i++)
		s->tw[i] += c->tw[slot * IOT_BUCKETS + i];
}

/* Slot's rows by entry, summed over the CPUs, into b->ent (row 0 'other').  0 or -1. */
static int iot_read_rows(const struct iotrace *t, size_t slot, struct res_blk *b)
{
	if (!t->rows || !b)
		return 0;
	struct iot_ent *sum = calloc(1, sizeof(*sum));
	if (!sum || !(b->ent = calloc(t->rows, sizeof(*b->ent)))) {
		free(sum);
		return -1;
	}
	for (size_t r = 0; r < t->rows; r++) {
		memset(sum, 0, sizeof(*sum));
		for (size_t c = 0; c < t->ncpu; c++) {
			const struct iot_ent *e = &t->ent[(c * t->n + slot) * t->rows + r];
			for (size_t i = 0; i < 2 * IOT_BUCKETS; i++)
				(&sum->hist[0][0])[i] += (&e->hist[0][0])[i];
			for (size_t op = 0; op < IOT_OPS; op++)
				sum->requests[op] += e->requests[op];
		}
		iotrace_entry_figures((const uint64_t *)sum->hist[0], (const uint64_t *)sum->hist[1],
				      (const uint64_t *)sum->requests, t->sample, (int)r - 1,
				      &b->ent[r]);
	}
	b->nent = t->rows;
	free(sum);
	return 0;
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
	iotrace_tw_clamp(s->tw, t->t1 > t->t0 ? t->t1 - t->t0 : 0);
	struct iotrace_raw raw = {
		.hist = s->hist, .stat = (const uint64_t (*)[4])s->stat, .cnt = s->cnt, .tw = s->tw,
		.sample = t->sample,
	};
	int rc = iotrace_figures(&raw, d);
	free(s);
	return rc ? rc : iot_read_rows(t, slot, d->blk);
}

void iotrace_clear(struct iotrace *t)
{
	if (!t)
		return;
	memset(t->pc, 0, t->ncpu * sizeof(*t->pc));
	if (t->ent)
		memset(t->ent, 0, t->ncpu * t->n * t->rows * sizeof(*t->ent));
	t->t0 = t->t1 = 0;
}

uint64_t *iotrace_tags(const struct iotrace *t)
{
	return t && t->rows ? t->tags : NULL;
}

void iotrace_close(struct iotrace *t)
{
	if (!t)
		return;
	if (t->pc)
		munmap(t->pc, t->maplen);
	if (t->tags)
		munmap(t->tags, IOT_TAGS * sizeof(uint64_t));
	if (t->ent)
		munmap(t->ent, t->entlen);
	bpf_link__destroy(t->tick);
	iotrace_bpf__destroy(t->skel);
	free(t);
}

#else /* !JOBMIX_IOTRACE */

struct iotrace *iotrace_open(const char *const *names, size_t n, size_t nentries,
			     unsigned sample, char *why, size_t len)
{
	(void)names;
	(void)n;
	(void)nentries;
	(void)sample;
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

uint64_t *iotrace_tags(const struct iotrace *t)
{
	(void)t;
	return NULL;
}

void iotrace_close(struct iotrace *t)
{
	(void)t;
}

#endif
