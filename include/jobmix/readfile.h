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
#define JM_READ_MAX_RUN (64u << 20)        /* 64 MiB: a 2,000-point run is ~10 MiB */

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
