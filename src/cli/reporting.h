/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the reporting commands (report, compare, plot) share, and why it is
 * cli's: their shared option table and its parser, their error line, the
 * run set loaded with its warnings printed (cli_runs_load over res_runs.h),
 * and the charts the HTML report inlines with their warnings printed.  All
 * of it prints to stderr, so none of it may live below cli; what is not
 * command line (reading runs, making and running gnuplot scripts, writing
 * an output file, outfile.h) is in results/, report/, plot/ and util/.
 */
#ifndef JOBMIX_CLI_REPORTING_H
#define JOBMIX_CLI_REPORTING_H

#include <stdbool.h>
#include <stdio.h>

#include "jobmix/atomic.h"
#include "jobmix/opt.h"
#include "jobmix/outfile.h"
#include "jobmix/report.h"
#include "jobmix/res_runs.h"

/* "2%", "2", "0.5%" as a fraction in (0, 1); -1 otherwise. */
int cli_parse_pct(const char *s, double *out);
/* --qc converge|max; -1 otherwise. */
int cli_parse_qc(const char *s, bool *qc_max);
/* "jobmix CMD: message" on stderr; returns the usage exit code. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The options report, compare and plot share: one table (rep_common_opts),
 * which each command's own table includes with its REPC_ bit, and one
 * parser of their values.  Per-command ids start at REPO_OWN.
 */
enum rep_opt_id {
	REPO_FORMAT = 'f',
	REPO_BY = 'b',
	REPO_WORKLOAD = 'w',
	REPO_OUTPUT = 'o',
	REPO_METRIC = 'm',
	REPO_QC = OPT_LONG_ID,
	REPO_SCHED_ORDER,
	REPO_THRESHOLD,
	REPO_ALLOW_DIFF,
	REPO_COLS,
	REPO_REF,
	REPO_METRICS,
	REPO_EVIDENCE,
	REPO_DB,
	REPO_ALPHA,
	REPO_WIDE,
	REPO_OWN = OPT_LONG_ID + 64,
};

enum rep_cmd_bit { REPC_REPORT = 1, REPC_COMPARE = 2, REPC_PLOT = 4, REPC_HISTORY = 8 };

extern const struct opt_list rep_common_opts;

/* What the shared options give besides rep_opts. */
struct rep_cli {
	enum rep_format fmt;
	const char *output;            /* -o, or NULL */
	const char *order[64];         /* --sched-order's names (rep_opts.order points here) */
	bool metrics;                  /* --metrics: list them and exit */
	bool by_given;                 /* a --by seen: later ones add their keys */
	const char *db;                /* --db URL: the runs from that database, not paths */
};

/*
 * The value of shared option id for command cmd (its REPC_ bit): into o
 * and cl.  0 taken, 1 not a shared option, or JM_EXIT_USAGE (said on stderr).
 */
int rep_common_parse(int id, char *arg, enum rep_cmd_bit cmd, struct rep_opts *o,
		     struct rep_cli *cl);

/*
 * res_runs_load_parts for command cmd: its warnings and its error on stderr
 * as "jobmix CMD: warning: ..." and "jobmix CMD: ...".  parts: res_runs.h's,
 * and CLI_RUNS_EVIDENCE for a command that says what else changed (the
 * figures rep_run_project keeps of a run read without its points).  With db
 * (--db URL), the database's runs instead (paths must be none).  0, or the
 * exit code, said on stderr: JM_EXIT_RUN_FAILED when the database refused
 * or failed (a damaged layout, another version, no connection), else
 * JM_EXIT_USAGE.
 */
#define CLI_RUNS_EVIDENCE 0x100u
int cli_runs_load(struct res_runs *rs, const char *db, char *const *paths, size_t npaths, unsigned parts,
		  const char *cmd);

/*
 * A load that read no run: frees rs and says "jobmix CMD: no run read (N
 * paths skipped)".  Returns JM_EXIT_USAGE.
 */
int cli_runs_none(struct res_runs *rs, const char *cmd);

/*
 * The runs of database db for which every KEY=VALUE of where holds (a
 * label, env field or setting, as --by names them).  0, or the exit code
 * said on stderr (a filter that is not KEY=VALUE: JM_EXIT_USAGE; the
 * database: as cli_runs_load).
 */
int cli_runs_load_where(struct res_runs *rs, const char *db, char *const *where, size_t n, unsigned parts,
			const char *cmd);

/*
 * --order KEY of command cmd: 0 when some run of rs has KEY, else the usage
 * error said (JM_EXIT_USAGE).
 */
int cli_order_check(const struct res_runs *rs, const char *key, const char *cmd);

/*
 * One SVG chart per table of the report (NULL entries where none could be
 * drawn, said on stderr), or NULL when gnuplot is not there.
 */
char **report_charts(const struct rep_report *rep);
void report_charts_free(char **svg, size_t n);

#endif
