// SPDX-License-Identifier: GPL-2.0-only
/* What report, compare and plot share on the command line (see reporting.h for why it is cli's). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/escape.h"
#include "jobmix/exitcode.h"
#include "jobmix/gnuplot.h"
#include "jobmix/res_db.h"

#include "reporting.h"

/* ---- the shared options --------------------------------------------------- */

/* Split a comma list in place into at most max parts; -1 when there are more or one is empty. */
static int runs_split(char *s, const char **out, size_t max, size_t *n)
{
	*n = 0;
	for (char *tok = s, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = 0;
		if (!*tok || *n == max)
			return -1;
		out[(*n)++] = tok;
	}
	return 0;
}


#define REPC_ALL (REPC_REPORT | REPC_COMPARE | REPC_PLOT)

/*
 * --metric's help: its list of metrics is rep_metrics[]'s (rep_metric_names),
 * wrapped as the help's lines; filled before main, so --help, the man page
 * and `help --values` all show the table as it is.
 */
static char rep_metric_help[2048];

/* text wrapped at width columns into out: lines break at a space or after a '|'. */
static void rep_help_wrap(const char *text, char *out, size_t len, size_t width)
{
	size_t o = 0, col = 0;
	for (const char *t = text; *t;) {
		size_t n = strcspn(t, " |");
		n += t[n] ? 1 : 0;   /* the separator stays with its word */
		size_t vis = n - (t[n - 1] == ' ');
		if (col && col + vis > width && o + 1 < len) {
			o -= out[o - 1] == ' ';
			out[o++] = '\n';
			col = 0;
		}
		if (o + n >= len)
			break;
		memcpy(out + o, t, n);
		o += n;
		col += n;
		t += n;
	}
	out[o] = 0;
}

__attribute__((constructor)) static void rep_metric_help_fill(void)
{
	char names[1024], text[1536];
	rep_metric_names(names, sizeof(names), false);
	snprintf(text, sizeof(text), "what the table shows, repeatable (default jpm: Peak Load and "
		 "Quick Convergence): %s (ENTRY a mix entry or kind; none: every entry; --metrics "
		 "lists them with their meaning).  Each run's figure at its Peak Load point (a "
		 "single-point run: its one point); marks by the metric's direction (lower elapsed "
		 "is better)", names);
	rep_help_wrap(text, rep_metric_help, sizeof(rep_metric_help), 60);
}

static const struct opt rep_common[] = {
	{ .id = REPO_FORMAT, .letter = 'f', .name = "format", .arg = OPT_REQUIRED,
	  .metavar = "FMT", .help = "text (default) | md | csv | json | html",
	  .values = "text md csv json html", .only = REPC_REPORT },
	{ .id = REPO_FORMAT, .letter = 'f', .name = "format", .arg = OPT_REQUIRED,
	  .metavar = "FMT", .help = "text (default) | md | csv | json",
	  .values = "text md csv json", .only = REPC_COMPARE | REPC_HISTORY },
	{ .id = REPO_BY, .letter = 'b', .name = "by", .arg = OPT_REQUIRED, .metavar = "KEYS",
	  .help = "grouping keys, comma separated or repeated: any env field,\n"
		  "-L label, workload setting or run -X axis (report and plot:\n"
		  "default kernel,scheduler)" },
	{ .id = REPO_WORKLOAD, .letter = 'w', .name = "workload", .arg = OPT_REQUIRED,
	  .metavar = "NAME", .help = "only this workload", .values = "@workloads" },
	{ .id = REPO_QC, .name = "qc", .arg = OPT_REQUIRED, .metavar = "converge|max",
	  .help = "Quick Convergence: JPM where the ramp converged\n"
		  "(default) or the ramp's maximum (re-aim's -q)", .values = "converge max" },
	{ .id = REPO_SCHED_ORDER, .name = "sched-order", .arg = OPT_REQUIRED, .metavar = "LIST",
	  .help = "order of the last key's values (e.g. mq-deadline,bfq)",
	  .only = REPC_REPORT | REPC_PLOT },
	{ .id = REPO_THRESHOLD, .name = "threshold", .arg = OPT_REQUIRED, .metavar = "PCT",
	  .help = "smallest change that is marked or counts (default 2%)",
	  .only = REPC_REPORT | REPC_COMPARE | REPC_HISTORY },
	{ .id = REPO_ALPHA, .name = "alpha", .arg = OPT_REQUIRED, .metavar = "P",
	  .help = "the false-alarm rate worse and better are held to\n"
		  "(default 0.05; jobmix-nightly --until-decided splits it\n"
		  "over its looks)", .only = REPC_REPORT | REPC_COMPARE },
	{ .id = REPO_ALLOW_DIFF, .name = "allow-diff", .arg = OPT_REQUIRED, .metavar = "KEYS",
	  .help = "fold runs whose fingerprints differ in these keys (e.g.\n"
		  "users.jobs_per_user, sync, session); default: never",
	  .only = REPC_ALL | REPC_HISTORY },
	{ .id = REPO_METRIC, .letter = 'm', .name = "metric", .arg = OPT_REQUIRED,
	  .metavar = "NAME", .help = rep_metric_help,
	  .only = REPC_ALL | REPC_HISTORY },
	{ .id = REPO_COLS, .name = "cols", .arg = OPT_REQUIRED, .metavar = "KEYS",
	  .help = "pivot these keys' values into columns (and the pseudo-keys\n"
		  "entry, metric): --by fs --cols entry,metric",
	  .only = REPC_REPORT | REPC_PLOT },
	{ .id = REPO_REF, .name = "ref", .arg = OPT_REQUIRED, .metavar = "KEY=VALUE",
	  .help = "the reference of the marks: the row (a --by key) or column\n"
		  "(a --cols key, entry) with that value (default: the first\n"
		  "value of the last --by key)", .only = REPC_REPORT | REPC_PLOT },
	{ .id = REPO_EVIDENCE, .name = "evidence", .arg = OPT_NONE,
	  .help = "list what else changed (the machine's and the device's\n"
		  "evidence beyond its noise) for every group, not only beside\n"
		  "a worse or better verdict", .only = REPC_COMPARE },
	{ .id = REPO_DB, .name = "db", .arg = OPT_REQUIRED, .metavar = "URL",
	  .help = "read the runs jobmix push stored in this PostgreSQL\n"
		  "database (postgresql://[USER@]HOST[:PORT]/DB; a password\n"
		  "from ~/.pgpass or PGPASSFILE, never the URL) instead of paths",
	  .only = REPC_REPORT | REPC_PLOT | REPC_HISTORY },
	{ .id = REPO_DB, .name = "db", .arg = OPT_REQUIRED, .metavar = "URL",
	  .help = "the runs jobmix push stored in this PostgreSQL database;\n"
		  "each side is then KEY=VALUE filters (night=2026-12-01\n"
		  "hostname=h1 -- night=2026-12-02 hostname=h1)",
	  .only = REPC_COMPARE },
	{ .id = REPO_METRICS, .name = "metrics", .arg = OPT_NONE,
	  .help = "list the metrics --metric takes, with unit and direction",
	  .only = REPC_ALL },
	{ .id = REPO_WIDE, .name = "wide", .arg = OPT_NONE,
	  .help = "text: a row and a note a line, however long (default:\n"
		  "tables folded and notes wrapped to 100 columns)",
	  .only = REPC_REPORT | REPC_COMPARE | REPC_HISTORY },
	{ .id = REPO_OUTPUT, .letter = 'o', .name = "output", .arg = OPT_REQUIRED,
	  .metavar = "FILE", .help = "write there (atomically) instead of standard output",
	  .values = "@files", .only = REPC_REPORT | REPC_COMPARE | REPC_HISTORY },
	{ .id = REPO_OUTPUT, .letter = 'o', .name = "output", .arg = OPT_REQUIRED,
	  .metavar = "FILE", .help = "the chart; .png or .svg chooses the format.  Runs of\n"
	  "several workloads: one chart each, FILE-<workload>.png", .values = "@files",
	  .only = REPC_PLOT },
};

const struct opt_list rep_common_opts = OPT_LIST(rep_common);

#define bad(...) cli_usage_error(name, __VA_ARGS__)

int rep_common_parse(int id, char *arg, enum rep_cmd_bit cmd, struct rep_opts *o,
		     struct rep_cli *cl)
{
	const char *name = cmd == REPC_REPORT ? "report" : cmd == REPC_COMPARE ? "compare" :
			   cmd == REPC_HISTORY ? "history" : "plot";
	switch (id) {
	case REPO_FORMAT:
		if ((cmd == REPC_COMPARE || cmd == REPC_HISTORY) &&
		    (rep_format_parse(arg, &cl->fmt) || cl->fmt == REP_HTML))
			return bad("--format '%s': expected text, md, csv or json", arg);
		if (rep_format_parse(arg, &cl->fmt))
			return bad("--format '%s': expected text, md, csv, json or html", arg);
		return 0;
	case REPO_BY: {
		/* --by a,b or --by a --by b: the first replaces the default, the rest add */
		size_t have = cl->by_given ? o->nby : 0, n = 0;
		if (runs_split(arg, o->by + have, REP_MAX_KEYS - have, &n))
			return bad("--by: 1 to %d non-empty keys in all, comma separated or repeated",
				   REP_MAX_KEYS);
		o->nby = have + n;
		cl->by_given = true;
		return 0;
	}
	case REPO_WORKLOAD: o->workload = arg; return 0;
	case REPO_OUTPUT: cl->output = arg; return 0;
	case REPO_QC:
		if (cli_parse_qc(arg, &o->qc_max))
			return bad("--qc '%s': expected converge or max", arg);
		return 0;
	case REPO_SCHED_ORDER:
		if (runs_split(arg, cl->order, 64, &o->norder))
			return bad("--sched-order: 1 to 64 non-empty names, comma separated");
		o->order = cl->order;
		return 0;
	case REPO_THRESHOLD:
		if (cli_parse_pct(arg, &o->threshold))
			return bad("--threshold '%s': expected a percentage such as 2%%", arg);
		return 0;
	case REPO_ALPHA: {
		char *end;
		double v = strtod(arg, &end);
		if (end == arg || *end || !(v > 0) || !(v <= 0.5))
			return bad("--alpha '%s': expected a probability above 0, at most 0.5", arg);
		o->alpha = v;
		return 0;
	}
	case REPO_METRIC: {
		char err[512];
		if (rep_opts_add_metric(o, arg, err, sizeof(err)))
			return bad("%s", err);
		return 0;
	}
	case REPO_COLS:
		if (runs_split(arg, o->cols, REP_MAX_KEYS, &o->ncols))
			return bad("--cols: 1 to %d non-empty keys, comma separated", REP_MAX_KEYS);
		return 0;
	case REPO_REF:
		if (!strchr(arg, '=') || arg[0] == '=')
			return bad("--ref '%s': expected KEY=VALUE", arg);
		o->ref = arg;
		return 0;
	case REPO_METRICS: cl->metrics = true; return 0;
	case REPO_DB: {
		char err[512];
		if (res_db_check_url(arg, err, sizeof(err)))
			return bad("%s", err);
		cl->db = arg;
		return 0;
	}
	case REPO_EVIDENCE: o->evidence = true; return 0;
	case REPO_WIDE: o->wide = true; return 0;
	case REPO_ALLOW_DIFF:
		if (runs_split(arg, o->allow_diff, REP_MAX_ALLOW, &o->nallow))
			return bad("--allow-diff: 1 to %d non-empty keys, comma separated",
				   REP_MAX_ALLOW);
		return 0;
	}
	return 1;
}

#undef bad

int cli_parse_pct(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || (*end && strcmp(end, "%")) || !(v > 0) || !(v < 100))
		return -1;
	*out = v / 100;
	return 0;
}

int cli_parse_qc(const char *s, bool *qc_max)
{
	if (strcmp(s, "converge") && strcmp(s, "max"))
		return -1;
	*qc_max = !strcmp(s, "max");
	return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "jobmix %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return JM_EXIT_USAGE;
}

static void cli_runs_warn(void *arg, const char *msg)
{
	fprintf(stderr, "jobmix %s: warning: %s\n", (const char *)arg, msg);
}

int cli_runs_none(struct res_runs *rs, const char *cmd)
{
	size_t skipped = rs->skipped;
	res_runs_free(rs);
	return cli_usage_error(cmd, "no run read (%zu path%s skipped)", skipped,
			       skipped == 1 ? "" : "s");
}

int cli_runs_load(struct res_runs *rs, const char *db, char *const *paths, size_t npaths, unsigned parts,
		  const char *cmd)
{
	char err[1024];
	if (db && npaths) {
		fprintf(stderr, "jobmix %s: --db reads the database's runs: give no paths with it\n",
			cmd);
		return JM_EXIT_USAGE;
	}
	if (db) {
		if (res_db_load(rs, db, err, sizeof(err))) {
			fprintf(stderr, "jobmix %s: %s\n", cmd, err);
			return JM_EXIT_RUN_FAILED;   /* the database refused or failed */
		}
		for (size_t i = 0; i < rs->skipped; i++)
			fprintf(stderr, "jobmix %s: warning: skipped %s\n", cmd, rs->skip[i]);
		return 0;
	}
	/* JOBMIX_READ=points: every part of every run (to check a run-level read against) */
	const char *read = getenv("JOBMIX_READ");
	if (read && !strcmp(read, "points"))
		parts |= RES_RUNS_POINTS | RES_RUNS_CURVES;
	/* read without points: evidence's figures kept from those at the peak */
	if (res_runs_load_parts(rs, paths, npaths, parts & ~CLI_RUNS_EVIDENCE,
				(parts & CLI_RUNS_EVIDENCE) && !(parts & RES_RUNS_POINTS) ?
				rep_run_project : NULL, NULL, cli_runs_warn,
				(void *)cmd, err, sizeof(err))) {
		fprintf(stderr, "jobmix %s: %s\n", cmd, err);
		return JM_EXIT_USAGE;
	}
	const char *ix = getenv("JOBMIX_INDEX");
	if (ix && !strcmp(ix, "stats"))
		fprintf(stderr, "jobmix %s: index: %zu root(s), %zu runs from the index, %zu parsed, "
			"%zu dropped%s\n", cmd, rs->index.roots, rs->index.hits, rs->index.parsed,
			rs->index.dropped, rs->index.rebuilt ? ", rebuilt" : "");
	return 0;
}

int cli_runs_load_where(struct res_runs *rs, const char *db, char *const *where, size_t n, unsigned parts,
			const char *cmd)
{
	for (size_t k = 0; k < n; k++) {
		const char *eq = strchr(where[k], '=');
		if (!eq || eq == where[k]) {
			fprintf(stderr, "jobmix %s: with --db each side is KEY=VALUE filters: '%s' is "
				"not one\n", cmd, where[k]);
			return JM_EXIT_USAGE;
		}
	}
	int rc = cli_runs_load(rs, db, NULL, 0, parts, cmd);
	if (rc)
		return rc;
	size_t kept = 0;
	for (size_t i = 0; i < rs->n; i++) {
		bool keep = true;
		for (size_t k = 0; k < n && keep; k++) {
			const char *eq = strchr(where[k], '=');
			char key[256];
			snprintf(key, sizeof(key), "%.*s", (int)(eq - where[k]), where[k]);
			const char *v = res_rec_get(&rs->run[i], key);
			keep = v && !strcmp(v, eq + 1);
		}
		if (keep)
			rs->run[kept++] = rs->run[i];
		else
			res_rec_free(&rs->run[i]);
	}
	rs->n = kept;
	return 0;
}

int cli_order_check(const struct res_runs *rs, const char *key, const char *cmd)
{
	for (size_t i = 0; i < rs->n; i++)
		if (res_rec_get(&rs->run[i], key))
			return 0;
	return cli_usage_error(cmd, "--order '%s': no run has it (label runs with -L %s=VALUE)",
			       key, key);
}

/* Each table's users chart through gnuplot (gp_report_svg); NULL without gnuplot. */
char **report_charts(const struct rep_report *rep)
{
	char err[8192];
	if (!rep->ntable)
		return NULL;
	if (!gp_available()) {
		fprintf(stderr, "jobmix report: warning: gnuplot is not on PATH: no charts "
			"(Debian: apt-get install gnuplot-nox)\n");
		return NULL;
	}
	char **svg = calloc(rep->ntable, sizeof(*svg));
	if (!svg)
		return NULL;
	for (size_t t = 0; t < rep->ntable; t++) {
		size_t len;
		char wl[1024];
		if (gp_report_svg(rep, t, &svg[t], &len, err, sizeof(err)))
			fprintf(stderr, "jobmix report: warning: no chart for workload '%s': %s\n",
				esc_str(wl, sizeof(wl), ESC_TEXT, rep->table[t].workload), err);
	}
	return svg;
}

void report_charts_free(char **svg, size_t n)
{
	for (size_t i = 0; svg && i < n; i++)
		free(svg[i]);
	free(svg);
}
