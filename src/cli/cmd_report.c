// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix report [PATH...]`: the runs under the paths as the classic
 * comparison table, one per workload (see report.h for grouping and marks).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/parse.h"
#include "jobmix/report.h"
#include "reporting.h"

enum report_opt_id {
	REPORT_BASELINE = REPO_OWN,
	REPORT_DEVICE_STATS,
};

static const struct opt report_rows[] = {
	{ .arg = OPT_ROW, .metavar = "PATH",
	  .help = "run folders, run.json files or results roots\n"
		  "(searched recursively; default ./results)" },
	{ .include = &rep_common_opts, .mask = REPC_REPORT },
	{ .id = REPORT_BASELINE, .name = "baseline", .arg = OPT_REQUIRED, .metavar = "SEL",
	  .help = "compare with the runs SEL selects (a run id or KEY=VALUE)\n"
		  "instead of the first row of each group" },
	{ .id = REPORT_DEVICE_STATS, .name = "device-stats", .arg = OPT_NONE,
	  .help = "add what the device the entries did their I/O on did (IOPS,\n"
		  "MB/s, KiB per request, merged, utilisation, queue depth;\n"
		  "schema 2 runs)" },
};

static const struct opt_example report_examples[] = {
	{ "an A/B's arms, from the index folder the run names",
	  "jobmix report results/20261201-040416-sched-ab-ab" },
	{ "every run under results/ as one HTML page",
	  "jobmix report results/ -f html -o report.html" },
	{ NULL, NULL },
};

const struct opt_cmd cmd_report_opts = {
	.name = "report",
	.synopsis = "usage: jobmix report [PATH...] [options]\n",
	.footer = "exit: 0 a table was written, 2 bad input or no run read, 3 the output failed,\n"
		  "or --db's database refused or failed (a damaged layout, another version)\n",
	.rows = OPT_LIST(report_rows),
	.examples = report_examples,
};

#define bad(...) cli_usage_error("report", __VA_ARGS__)

int cmd_report(int argc, char **argv)
{
	struct opt_parser p;
	struct rep_opts o = { 0 };
	struct rep_cli cl = { .fmt = REP_TEXT };
	int c, rc;
	if (opt_build(&p, &cmd_report_opts))
		return bad("option table too large");
	optind = 1;
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		if ((rc = rep_common_parse(c, optarg, REPC_REPORT, &o, &cl)) != 1) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case REPORT_BASELINE: o.baseline = optarg; break;
		case REPORT_DEVICE_STATS: o.device_stats = true; break;
		case 'h': opt_usage(stdout, &cmd_report_opts); return JM_EXIT_OK;
		default: opt_usage(stderr, &cmd_report_opts); return JM_EXIT_USAGE;
		}
	}
	enum rep_format fmt = cl.fmt;
	const char *output = cl.output;
	struct res_runs rs;
	if (cl.metrics)
		return rep_metrics_render(stdout) ? JM_EXIT_RUN_FAILED : JM_EXIT_OK;
	/* the HTML report's charts draw each run's curve (summary.by) */
	unsigned parts = CLI_RUNS_EVIDENCE | rep_opts_parts(&o) |
			 (cl.fmt == REP_HTML ? RES_RUNS_CURVES : 0);
	int lrc = cli_runs_load(&rs, cl.db, argv + optind, (size_t)(argc - optind), parts, "report");
	if (lrc)
		return lrc;
	struct rep_report rep;
	char err[8192];
	rc = JM_EXIT_OK;
	if (!rs.n)
		return cli_runs_none(&rs, "report");
	o.skipped = (const char *const *)rs.skip;
	o.nskipped = rs.skipped;
	if (rep_build(rs.run, rs.n, &o, &rep, err, sizeof(err))) {
		res_runs_free(&rs);
		return bad("%s", err);
	}
	if (o.workload && !rep.ntable) {
		rep_free(&rep);
		res_runs_free(&rs);
		return bad("no run of workload '%s'", o.workload);
	}
	char **svg = NULL;
	if (fmt == REP_HTML)
		svg = report_charts(&rep);
	struct outfile out;
	if (outfile_open(&out, output, &rs.inputs, err, sizeof(err))) {
		rc = bad("%s", err);
		goto done;
	}
	if (rep_render(out.f, &rep, fmt, (const char *const *)svg) ||
	    outfile_commit(&out, err, sizeof(err))) {
		fprintf(stderr, "jobmix report: %s\n", out.f ? "write failed" : err);
		outfile_abort(&out);
		rc = JM_EXIT_RUN_FAILED;
	}
done:
	report_charts_free(svg, rep.ntable);
	rep_free(&rep);
	res_runs_free(&rs);
	return rc;
}
