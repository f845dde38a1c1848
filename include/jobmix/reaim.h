/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `jobmix reaim`'s command line (src/cli/cmd_reaim.c), parsed apart from
 * the run: public so that the unit test and the fuzz target reach it
 * without a private cli header.
 */
#ifndef JOBMIX_REAIM_H
#define JOBMIX_REAIM_H

#include <stdbool.h>

struct reaim_opts {
	const char *workfile, *cfgpath, *prefix, *mode, *outdir;   /* NULL: not given */
	const char *start, *end, *incr, *jobs, *repeat;            /* in vals[], or NULL */
	unsigned start_n, end_n;
	bool nosync;
	char vals[5][16];        /* the counts as parsed (at most 7 digits): never cut */
};

/*
 * re-aim's options into r (pointers into argv or r->vals).  0; -1 when
 * --help was printed; or an exit code, the message printed (an unknown or
 * unsupported option, a bad count naming the option, an over-long path,
 * -s above -e).  Touches no file.
 */
int reaim_parse(int argc, char **argv, struct reaim_opts *r);

#endif
