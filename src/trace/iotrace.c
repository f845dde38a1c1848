// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracer's loader (iotrace.h): the skeleton of iotrace.bpf.c opened,
 * loaded and attached once a run; its globals (.bss, mapped) switched and
 * read between points.  Built without libbpf (IOTRACE=0 in the Makefile),
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
#include <bpf/libbpf.h>
#include "iotrace.skel.h"

struct iotrace {
	struct iotrace_bpf *skel;
	size_t n;
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
	if ((err = iotrace_bpf__load(t->skel))) {
		snprintf(why, len, "block tracing off: the kernel refused the BPF program: %s",
			 strerror(-err));
		goto fail;
	}
	if ((err = iotrace_bpf__attach(t->skel))) {
		snprintf(why, len, "block tracing off: cannot attach to the block tracepoints: %s",
			 strerror(-err));
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned dev = iot_devno(names[i]);
		if (!dev) {
			snprintf(why, len, "block tracing off: no device number for '%s'", names[i]);
			goto fail;
		}
		t->skel->bss->watch_dev[i] = dev;
	}
	t->n = n;
	return t;
fail:
	iotrace_close(t);
	return NULL;
}

void iotrace_start(struct iotrace *t)
{
	if (t)
		__atomic_store_n(&t->skel->bss->enabled, 1, __ATOMIC_RELEASE);
}

void iotrace_stop(struct iotrace *t)
{
	if (t)
		__atomic_store_n(&t->skel->bss->enabled, 0, __ATOMIC_RELEASE);
}

int iotrace_read(const struct iotrace *t, size_t slot, struct res_dev *d)
{
	if (!t || slot >= t->n)
		return 0;
	const struct iotrace_bpf__bss *b = t->skel->bss;
	struct iotrace_raw raw = {
		.hist = (const uint64_t *)&b->iot_hist[IOT_STAT_IX(slot, 0, 0) * IOT_BUCKETS],
		.stat = (const uint64_t (*)[4])&b->iot_stat[IOT_STAT_IX(slot, 0, 0)],
		.cnt = (const uint64_t *)&b->iot_cnt[IOT_CNT_IX(slot, 0, 0)],
		.tw = (const uint64_t *)&b->iot_tw[slot * IOT_BUCKETS],
	};
	return iotrace_figures(&raw, d);
}

void iotrace_clear(struct iotrace *t)
{
	if (!t)
		return;
	struct iotrace_bpf__bss *b = t->skel->bss;
	memset((void *)b->iot_hist, 0, sizeof(b->iot_hist));
	memset((void *)b->iot_stat, 0, sizeof(b->iot_stat));
	memset((void *)b->iot_cnt, 0, sizeof(b->iot_cnt));
	memset((void *)b->iot_tw, 0, sizeof(b->iot_tw));
	memset((void *)b->iot_tw_last, 0, sizeof(b->iot_tw_last));
}

void iotrace_close(struct iotrace *t)
{
	if (!t)
		return;
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
