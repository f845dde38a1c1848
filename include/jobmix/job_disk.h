/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Geometry helpers of the AIM7 disk jobs (src/jobs/disk.c), apart so that
 * tests/unit/test_disk.c can check them without running a job.  Private to
 * the disk family; nothing else includes this.
 */
#ifndef JOBMIX_JOBS_DISK_H
#define JOBMIX_JOBS_DISK_H

#include <stdbool.h>
#include <stdint.h>

#include "jobmix/rng.h"

/* AIM7's I/O unit. */
#define JOB_DISK_UNIT 1024u

/* Bytes per request: 1 KiB, or for O_DIRECT max(1 KiB, logical block size). */
unsigned job_disk_unit(bool direct, unsigned logical_block_size);

/* Requests of `unit` bytes in a D-byte file: D rounded down, at least one. */
uint64_t job_disk_blocks(uint64_t filesize, unsigned unit);

/* Byte offset of a block drawn uniformly from all nblocks (the whole file). */
uint64_t job_disk_rand_offset(struct jm_rng *r, uint64_t nblocks, unsigned unit);

#endif
