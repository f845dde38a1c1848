/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Who a process is across time: its start time (clock ticks since boot,
 * /proc/PID/stat field 22) and the boot it ran in, so that a recorded
 * owner can be told from a later process that reuses its pid.
 */
#ifndef JOBMIX_PROC_H
#define JOBMIX_PROC_H

#include <stdbool.h>
#include <stddef.h>

/* The start time of pid; 0, or -1 when it is gone or unreadable. */
int util_proc_start_time(long pid, unsigned long long *start);
/* This boot's id (/proc/sys/kernel/random/boot_id, 36 characters); 0 or -1. */
int util_boot_id(char *buf, size_t len);
/*
 * Is the process pid that started at `start` in boot `boot` still
 * running?  False when the boot differs, the pid is gone, or it is another
 * process now.
 */
bool util_proc_alive(long pid, unsigned long long start, const char *boot);

#endif
