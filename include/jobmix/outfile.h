/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An output file that is standard output when the path is NULL or "-",
 * else atomic.h's writer (a temp file beside the target renamed onto it on
 * commit, removed on abort; a device or FIFO written in place; links, hard
 * links, other users' files and the command's own inputs refused).
 */
#ifndef JOBMIX_OUTFILE_H
#define JOBMIX_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "jobmix/atomic.h"

struct outfile {
	FILE *f;
	bool file;             /* false: standard output */
	struct atom_file a;
};

/*
 * inputs (may be NULL): the files the command read, which the output may
 * not be.  0, or ATOM_REFUSED (a usage error: exit 2) / ATOM_ERR with err.
 */
int outfile_open(struct outfile *o, const char *path, const struct atom_set *inputs, char *err,
		 size_t errlen);
/* Flush and put in place; -1 with err (the target as it was).  o->f is NULL after. */
int outfile_commit(struct outfile *o, char *err, size_t errlen);
void outfile_abort(struct outfile *o);

#endif
