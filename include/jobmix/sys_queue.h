/* SPDX-License-Identifier: GPL-2.0-only */
/* A block device's queue settings, as the environment of a run records them. */
#ifndef JOBMIX_SYS_QUEUE_H
#define JOBMIX_SYS_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/sys_dev.h"
#include "jobmix/sys_sched.h"

#define SYS_MAX_TUNABLES 24

/* One file of queue/iosched/ (the active scheduler's own tunables). */
struct sys_tunable {
	char name[32];
	char value[64];
};

/* Settings of /sys/block/<dev>/queue; a number that could not be read is -1. */
struct sys_queue {
	char dev[SYS_DEV_NAME];
	char via[SYS_DEV_NAME];         /* stacked device above it, "" if none */
	bool stacked;
	bool settable;                  /* offers a choice of schedulers */
	char scheduler[SYS_SCHED_NAME]; /* active, "" without a scheduler file */
	char schedulers[SYS_SCHED_LIST];
	long nr_requests, read_ahead_kb, max_sectors_kb, rotational;
	long logical_block_size, physical_block_size, nomerges;
	char write_cache[32];           /* "write back" | "write through" | "" */
	size_t ntunables;
	struct sys_tunable tunables[SYS_MAX_TUNABLES];
};

/* Read every setting of one resolved device. */
void sys_queue_read(const struct sys_dev *d, struct sys_queue *q);

#endif
