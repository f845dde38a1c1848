/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a file someone else named: regular files only (a FIFO, device,
 * socket or directory is refused without blocking on it), size capped, the
 * whole file into memory.  jobmix runs as root and reads workloads,
 * workfiles, configs and run.json files that others wrote; every such read
 * goes through here.
 */
#ifndef JOBMIX_READFILE_H
#define JOBMIX_READFILE_H

#include <stddef.h>

/* Caps: a workload file, a re-aim workfile or reaim.config; a run.json. */
#define JM_READ_MAX_TEXT (1u << 20)        /* 1 MiB */
/*
 * 64 MiB: run.json holds ~420 bytes per job kind per point (v1-peak.json),
 * so this is ~2,500 points of a 60-kind mix (AIM7 alltests), ~25,000 of a
 * 6-kind one; a dense 1-1000 user sweep of alltests is ~26 MB.
 */
#define JM_READ_MAX_RUN (64u << 20)

/*
 * Read path (at most cap bytes) into *out, malloc'd and NUL-terminated, its
 * length in *len.  `what` names the file in messages ("workload file").
 * 0, or -1 with "PATH: reason" in err: cannot open (strerror), is a
 * directory, not a regular file, too large, cannot read.
 */
int jm_read_file(const char *path, size_t cap, const char *what, char **out, size_t *len,
		 char *err, size_t errlen) __attribute__((warn_unused_result));

/* Is path a regular file (stat, symbolic links followed)?  Never opens it. */
int jm_is_regular(const char *path);

#endif
