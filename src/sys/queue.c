// SPDX-License-Identifier: GPL-2.0-only
/*
 * Queue settings of a block device: scheduler, nr_requests, read-ahead,
 * request size limit, rotational, block sizes, write cache, nomerges and
 * the active scheduler's tunables (queue/iosched/).  Reads only.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/sys_queue.h"
#include "sys_int.h"

/* A number from /sys/block/<dev>/<attr>, or -1. */
static long sys_queue_num(const char *dev, const char *attr)
{
	char buf[64], *end;
	if (sys_dev_attr(dev, attr, buf, sizeof(buf)))
		return -1;
	long v = strtol(buf, &end, 10);
	return end == buf ? -1 : v;
}

static int sys_tunable_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sys_tunable *)a)->name, ((const struct sys_tunable *)b)->name);
}

/* The files of queue/iosched/, sorted by name (names checked like device names). */
static void sys_queue_tunables(const char *dev, struct sys_queue *q)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/block/%s/queue/iosched", sys_sysfs(), dev);
	DIR *d = opendir(p);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) && q->ntunables < SYS_MAX_TUNABLES) {
		char attr[96];
		struct sys_tunable *t = &q->tunables[q->ntunables];
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof(t->name))
			continue;
		snprintf(attr, sizeof(attr), "queue/iosched/%s", e->d_name);
		if (sys_dev_attr(dev, attr, t->value, sizeof(t->value)))
			continue;   /* write-only or an unsafe name */
		snprintf(t->name, sizeof(t->name), "%s", e->d_name);
		q->ntunables++;
	}
	closedir(d);
	qsort(q->tunables, q->ntunables, sizeof(q->tunables[0]), sys_tunable_cmp);
}

void sys_queue_read(const struct sys_dev *d, struct sys_queue *q)
{
	const char *dev = d->name;
	memset(q, 0, sizeof(*q));
	snprintf(q->dev, sizeof(q->dev), "%s", dev);
	snprintf(q->via, sizeof(q->via), "%s", d->via);
	q->stacked = d->stacked;
	q->settable = sys_sched_settable(dev);
	sys_sched_get(dev, q->scheduler, sizeof(q->scheduler), q->schedulers, sizeof(q->schedulers));
	q->nr_requests = sys_queue_num(dev, "queue/nr_requests");
	q->read_ahead_kb = sys_queue_num(dev, "queue/read_ahead_kb");
	q->max_sectors_kb = sys_queue_num(dev, "queue/max_sectors_kb");
	q->rotational = sys_queue_num(dev, "queue/rotational");
	q->logical_block_size = sys_queue_num(dev, "queue/logical_block_size");
	q->physical_block_size = sys_queue_num(dev, "queue/physical_block_size");
	q->nomerges = sys_queue_num(dev, "queue/nomerges");
	sys_dev_attr(dev, "queue/write_cache", q->write_cache, sizeof(q->write_cache));
	sys_queue_tunables(dev, q);
}
