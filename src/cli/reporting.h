/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An output file written with atomic.h's writer (a temp file beside the
 * target renamed onto it on commit, removed on abort; a device or FIFO
 * written in place; links, hard links, other users' files and the
 * command's own inputs refused), or standard output when the path is NULL
 * or "-".  Also what the reporting commands share: their option values,
 * their error line, the charts the HTML report inlines.
 */
#ifndef JOBMIX_CLI_REPORTING_H
#define JOBMIX_CLI_REPORTING_H

#include <stdbool.h>
#include <stdio.h>

#include "jobmix/atomic.h"
#include "jobmix/report.h"

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

/* "2%", "2", "0.5%" as a fraction in (0, 1); -1 otherwise. */
int cli_parse_pct(const char *s, double *out);
/* --qc converge|max; -1 otherwise. */
int cli_parse_qc(const char *s, bool *qc_max);
/* "jobmix CMD: message" on stderr; returns the usage exit code. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * One SVG chart per table of the report (NULL entries where none could be
 * drawn, said on stderr), or NULL when gnuplot is not there.
 */
char **report_charts(const struct rep_report *rep);
void report_charts_free(char **svg, size_t n);

#endif
