// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jobmix(1) manual page, in roff, generated from what drives the
 * program's own help: the commands table (src/main.c), each command's option
 * table (opt.h: the same rows its --help prints, each a tagged paragraph,
 * its synopsis and footer as prose) and the job registry (the catalogue
 * `jobmix jobs` prints).  docs/jobmix.1 is this output (`make man`); a test
 * fails when it is stale.  Also the wording of a job parameter that `jobmix
 * jobs` shares.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/job.h"
#include "jobmix/man.h"
#include "jobmix/opt.h"
#include "jobmix/parse.h"
#include "jobmix/version.h"
#include "jobmix/wl_keys.h"

const char *jobs_type_name(const struct job_param *p)
{
	switch (p->type) {
	case JP_INT: return "int";
	case JP_SIZE: return "size";
	case JP_BOOL: return "bool";
	case JP_ENUM: return "enum";
	case JP_FLAGS: return "flags";
	case JP_DOUBLE: return "number";
	case JP_RANGE: return "range";
	case JP_WEIGHTS: return "ratios";
	case JP_DEVICE: return "device";
	}
	return "?";
}

void jobs_range_text(const struct job_param *p, char *buf, size_t len)
{
	buf[0] = 0;
	if (p->type == JP_ENUM || p->type == JP_FLAGS) {
		for (int i = 0; p->choices && p->choices[i]; i++) {
			if (i)
				strncat(buf, p->type == JP_FLAGS ? "|" : ",", len - strlen(buf) - 1);
			strncat(buf, p->choices[i], len - strlen(buf) - 1);
		}
	} else if (p->type == JP_INT) {
		snprintf(buf, len, "%.0f..%.0f", p->min, p->max);
	} else if (p->type == JP_DOUBLE) {
		snprintf(buf, len, "%g..%g", p->min, p->max);
	} else if (p->type == JP_WEIGHTS) {
		snprintf(buf, len, "1..%d each, up to %d", JOB_WEIGHT_MAX, JOB_MAX_WEIGHTS);
	} else if (p->type == JP_SIZE || p->type == JP_RANGE) {
		char lo[32], hi[32];
		jm_format_size((uint64_t)p->min, lo, sizeof(lo));
		jm_format_size((uint64_t)p->max, hi, sizeof(hi));
		snprintf(buf, len, "%s..%s", lo, hi);
	}
}

/* ---- roff ----------------------------------------------------------------- */

/* Text for roff: backslashes and hyphens escaped, a leading '.' or '\'' guarded. */
static void man_text(FILE *f, const char *s, size_t len)
{
	if (len && (s[0] == '.' || s[0] == '\''))
		fputs("\\&", f);
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else
			fputc(s[i], f);
	}
}

static void man_line(FILE *f, const char *s)
{
	man_text(f, s, strlen(s));
	fputc('\n', f);
}

static size_t lead_spaces(const char *s)
{
	size_t n = 0;
	while (s[n] == ' ')
		n++;
	return n;
}

/* "usage: jobmix CMD ARGS" (or "jobmix CMD ARGS") as "\fBjobmix CMD\fR ARGS". */
static void man_usage_line(FILE *f, const char *line)
{
	const char *args = line + (strncmp(line, "usage: ", 7) ? 0 : strlen("usage: "));
	const char *sp = strchr(args, ' ');
	sp = sp ? strchr(sp + 1, ' ') : NULL;
	fputs("\\fB", f);
	man_text(f, args, sp ? (size_t)(sp - args) : strlen(args));
	fputs("\\fR", f);
	if (sp)
		man_text(f, sp, strlen(sp));
	fputc('\n', f);
}

/*
 * The free text of an option table (its synopsis, its footer) as roff: a
 * "usage:" line and the other forms under it ("       jobmix ..."),
 * unindented prose with its indented continuation lines, and "heading:"
 * lines.
 */
static void man_free_text(FILE *f, const char *text)
{
	enum { NONE, USAGE, PROSE } in = NONE;
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[1024];
		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		line += len + (nl ? 1 : 0);
		size_t ind = lead_spaces(buf);
		char *body = buf + ind;
		if (!*body) {
			in = NONE;
			continue;
		}
		if (!strncmp(buf, "usage: ", 7) ||
		    (in == USAGE && ind && !strncmp(body, "jobmix ", 7))) {
			fputs(in == USAGE ? ".br\n" : ".PP\n", f);
			man_usage_line(f, body);
			in = USAGE;
			continue;
		}
		size_t bl = strlen(body);
		if (!ind && body[bl - 1] == ':') {  /* a heading */
			fputs(".PP\n\\fI", f);
			man_text(f, body, bl);
			fputs("\\fR\n", f);
			in = NONE;
			continue;
		}
		if (in != PROSE)
			fputs(".PP\n", f);
		man_line(f, body);
		in = PROSE;
	}
}

/* A command's usage line and the other forms under it, for SYNOPSIS. */
static void man_synopsis(FILE *f, const struct opt_cmd *c)
{
	const char *line = c->synopsis;
	for (bool first = true; *line; first = false) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char buf[1024];
		snprintf(buf, sizeof(buf), "%.*s", (int)len, line);
		const char *body = buf + lead_spaces(buf);
		if (first ? strncmp(buf, "usage: ", 7) : body == buf || strncmp(body, "jobmix ", 7))
			return;
		fputs(".br\n", f);
		man_usage_line(f, body);
		line += len + (nl ? 1 : 0);
	}
}

/* An option's names in bold, its value in italics: "\fB-u\fR, \fB--users\fR \fISPEC\fR". */
static void man_opt_label(FILE *f, const struct opt *o)
{
	const char *meta = o->metavar ? o->metavar : "";
	bool opt = o->arg == OPT_OPTIONAL;
	if (!o->letter && !o->name) {           /* an argument's row: PATH */
		fputs("\\fI", f);
		man_text(f, meta, strlen(meta));
		fputs("\\fR\n", f);
		return;
	}
	if (o->letter)
		fprintf(f, "\\fB\\-%c\\fR%s", o->letter, o->name ? ", " : "");
	if (o->name) {
		fputs("\\fB\\-\\-", f);
		man_text(f, o->name, strlen(o->name));
		fputs("\\fR", f);
	}
	if (*meta) {
		fputs(opt ? "[\\fI" : " \\fI", f);
		man_text(f, meta, strlen(meta));
		fputs(opt ? "\\fR]" : "\\fR", f);
	}
	fputc('\n', f);
}

/*
 * A command's section from its option table: the synopsis and footer text
 * as roff (man_usage_text), each listed row a tagged paragraph, each
 * section heading in italics.
 */
static void man_opt_table(FILE *f, const struct opt_cmd *c)
{
	struct opt_iter it = { 0 };
	const struct opt *o;
	man_free_text(f, c->synopsis);
	while ((o = opt_next(c, &it))) {
		if (o->hidden)
			continue;
		if (o->section) {
			fputs(".PP\n\\fI", f);
			man_text(f, o->section, strlen(o->section));
			fputs("\\fR\n", f);
		}
		fputs(".TP\n", f);
		man_opt_label(f, o);
		for (const char *h = o->help ? o->help : ""; *h;) {
			size_t len = strcspn(h, "\n");
			man_text(f, h, len);
			fputc('\n', f);
			h += len + (h[len] == '\n');
		}
	}
	if (c->footer)
		man_free_text(f, c->footer);
}

/* A command's examples as the man page shows them: what, then the line in bold, unfilled. */
static void man_examples(FILE *f, const struct opt_cmd *c)
{
	for (const struct opt_example *e = c->examples; e && e->what; e++) {
		fputs(".PP\n", f);
		man_line(f, e->what);
		fputs(".RS\n.nf\n\\fB", f);
		man_text(f, e->line, strlen(e->line));
		fputs("\\fR\n.fi\n.RE\n", f);
	}
}


/* One job parameter as a .TP entry: its name, type, default ("" when empty) and range. */
static void man_param(FILE *f, const struct job_param *p)
{
	char range[256], head[512];
	jobs_range_text(p, range, sizeof(range));
	snprintf(head, sizeof(head), "%s, default %s%s%s", jobs_type_name(p),
		 p->def[0] ? p->def : "\"\"", range[0] ? "; " : "", range);
	fputs(".TP\n\\fB", f);
	man_text(f, p->name, strlen(p->name));
	fputs("\\fR (", f);
	man_text(f, head, strlen(head));
	fputs(")\n", f);
	man_line(f, p->help);
}
/* The job catalogue: every kind with its summary and parameters (the registry). */
static void man_jobs(FILE *f)
{
	fputs(".SH JOBS\n", f);
	man_line(f, "The job kinds a mix can name (job: in a mix entry), from the registry; "
		    "'jobmix jobs NAME' says more about each.");
	for (size_t i = 0; i < job_nkinds; i++) {
		const struct job_kind *k = job_kinds[i];
		fputs(".TP\n\\fB", f);
		man_text(f, k->name, strlen(k->name));
		fputs("\\fR (", f);
		man_text(f, k->family, strlen(k->family));
		fputs(")\n", f);
		man_line(f, k->summary);
		size_t n = job_nparams(k);
		if (!n)
			continue;
		fputs(".RS\n", f);
		for (size_t j = 0; j < n; j++) {
			man_param(f, &k->params[j]);
		}
		fputs(".RE\n", f);
	}
	man_line(f, "Every job kind also takes these parameters:");
	fputs(".RS\n", f);
	for (size_t j = 0; j < JOB_NCOMMON; j++) {
		man_param(f, &job_common_params[j]);
	}
	fputs(".RE\n", f);
}

/* ---- WORKLOAD KEYS: the one key table (src/workload/keys.c) --------------- */
static void man_workload_keys(FILE *f)
{
	fputs(".SH WORKLOAD KEYS\n", f);
	man_line(f, "A workload file is YAML.  Every key is checked; errors name FILE:LINE:COL.  "
		    "'jobmix check WORKLOAD' prints a workload with every default filled; "
		    "'jobmix run -P KEY=VALUE' sets any key from the command line.");
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		char what[160];
		if (k->def && k->def[0])
			snprintf(what, sizeof(what), " (%s, default %s)", wl_key_type_name(k), k->def);
		else
			snprintf(what, sizeof(what), " (%s)", wl_key_type_name(k));
		fputs(".TP\n\\fB", f);
		man_text(f, k->path, strlen(k->path));
		fputs("\\fR", f);
		man_line(f, what);
		man_line(f, k->help);
	}
}

static const char *const man_description[] = {
	"jobmix is a mixed-workload throughput harness in the line of AIM Suite VII and OSDL "
	"re-aim-7, for kernel, filesystem and storage performance engineers.  A YAML workload "
	"describes a weighted job mix; a forking load generator runs N simulated users, each "
	"executing the mix; jobmix ramps N to find the peak jobs per minute (JPM) and the quick "
	"convergence point, and records every load point in a run folder (run.json, points.csv).",
	"report, compare and plot read those run folders: the kernel x IO-scheduler comparison "
	"table, regressions against a baseline (exit 1), and gnuplot charts.",
	NULL,
};

static const char *const man_workloads[] = {
	"A WORKLOAD argument (run, check) is a file when it names one or holds a '/'.  "
	"Otherwise it is a name, NAME or NAME.yaml, found as NAME.yaml in the first of:",
	NULL,
};

static const char *const man_search[][2] = {
	{ "./", "the current directory" },
	{ "$XDG_CONFIG_HOME/jobmix/workloads",
	  "your own mixes (XDG_CONFIG_HOME defaults to ~/.config)" },
	{ "<prefix>/share/jobmix/workloads",
	  "the shipped mixes, found from the jobmix binary's own location (in a build tree: "
	  "its workloads/)" },
};

static const char *const man_exit[][2] = {
	{ "0", "success" },
	{ "1", "compare: a significant regression" },
	{ "2", "usage or configuration error (nothing is created on disk)" },
	{ "3", "a load point failed" },
	{ "129, 130, 143", "interrupted by SIGHUP, SIGINT, SIGTERM (the results keep what was "
	  "measured, status interrupted)" },
};

static const char *const man_files[][2] = {
	{ "<prefix>/libexec/jobmix", "programs and scripts jobs run (exec_test, shell_rtns_*), "
	  "found relative to the jobmix binary (in a build tree: its libexec/)" },
	{ "<prefix>/share/jobmix/workloads", "the shipped workloads" },
	{ "./results/<YYYYmmdd-HHMMSS>-<workload>/", "a run folder: run.json and points.csv "
	  "(-o DIR chooses the results folder)" },
	{ "./jobmix-work", "the default work directory (files.dirs, -d); jobmix removes "
	  "what it creates there" },
	{ "<results root>/.jobmix-index.sqlite", "the index report, compare, plot and history "
	  "read a results root through (SQLite; a cache of its runs, refreshed by each run.json's "
	  "identity and mtime, made only in a root owned by the user and written by nobody else; "
	  "safe to delete)" },
};

static void man_pairs(FILE *f, const char *const (*rows)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fputs(".TP\n\\fB", f);
		man_text(f, rows[i][0], strlen(rows[i][0]));
		fputs("\\fR\n", f);
		man_line(f, rows[i][1]);
	}
}

static void man_paras(FILE *f, const char *const *paras)
{
	for (size_t i = 0; paras[i]; i++) {
		if (i)
			fputs(".PP\n", f);
		man_line(f, paras[i]);
	}
}

#define NROWS(a) (sizeof(a) / sizeof(a[0]))

int man_page(FILE *f, const struct cli_command *cmds, size_t n)
{
	fputs(".\\\" Generated by 'jobmix help --man' from the commands table, each command's\n"
	      ".\\\" --help and the job registry: do not edit ('make man' rewrites it).\n", f);
	fprintf(f, ".TH JOBMIX 1 \"\" \"jobmix %s\" \"User Commands\"\n", JOBMIX_VERSION);
	fputs(".nh\n.ad l\n", f);
	fputs(".SH NAME\njobmix \\- mixed\\-workload throughput harness (AIM7, re\\-aim\\-7)\n", f);
	fputs(".SH SYNOPSIS\n", f);
	fputs("\\fBjobmix\\fR \\fICOMMAND\\fR [\\fIARGS\\fR]\n", f);
	for (size_t i = 0; i < n; i++) {
		if (!cmds[i].opts)
			return -1;       /* every command has its option table */
		man_synopsis(f, cmds[i].opts);
	}
	fputs(".SH DESCRIPTION\n", f);
	man_paras(f, man_description);
	fputs(".SH COMMANDS\n", f);
	for (size_t i = 0; i < n; i++) {
		fputs(".TP\n\\fB", f);
		man_text(f, cmds[i].name, strlen(cmds[i].name));
		fputs("\\fR\n", f);
		man_line(f, cmds[i].help);
	}
	for (size_t i = 0; i < n; i++) {
		fputs(".SS \"jobmix ", f);
		man_text(f, cmds[i].name, strlen(cmds[i].name));
		fputs("\"\n", f);
		man_line(f, cmds[i].help);
		man_opt_table(f, cmds[i].opts);
	}
	fputs(".SH WORKLOADS\n", f);
	man_paras(f, man_workloads);
	man_pairs(f, man_search, NROWS(man_search));
	fputs(".PP\n", f);
	man_line(f, "'jobmix workloads' lists what each directory holds, with descriptions, and "
		    "which file shadows which.  The file used is printed when a run starts and "
		    "recorded in run.json (workload.path, workload.found).");
	man_workload_keys(f);
	man_jobs(f);
	fputs(".SH EXAMPLES\n", f);
	for (size_t i = 0; i < n; i++)
		man_examples(f, cmds[i].opts);
	fputs(".SH EXIT STATUS\n", f);
	man_pairs(f, man_exit, NROWS(man_exit));
	fputs(".SH ENVIRONMENT\n", f);
	fputs(".TP\n\\fBXDG_CONFIG_HOME\\fR, \\fBHOME\\fR\n", f);
	man_line(f, "where your own workloads are searched (see WORKLOADS)");
	fputs(".TP\n\\fBJOBMIX_INDEX\\fR\n", f);
	man_line(f, "off: read a results root without its index (none made); rebuild: make the "
		 "index afresh; stats: as usual, and say on stderr how many runs came from the index, "
		 "were parsed and were dropped");
	fputs(".TP\n\\fBJOBMIX_READ\\fR\n", f);
	man_line(f, "points: report, compare, plot and history read every part of every run (its "
		 "points too), which prints the same as the run-level read they make by default "
		 "(a check of it)");
	fputs(".TP\n\\fBJOBMIX_STATE_DIR\\fR\n", f);
	man_line(f, "an absolute path: the directory of locks, knob and scheduler records and "
		 "scratch mounts instead of /run/jobmix (checked as it is: root's, mode 0700); "
		 "tests give each script its own");
	fputs(".SH FILES\n", f);
	man_pairs(f, man_files, NROWS(man_files));
	fputs(".SH SEE ALSO\n", f);
	fputs(".BR fio (1),\n.BR sysbench (1),\n.BR gnuplot (1)\n", f);
	return 0;
}

