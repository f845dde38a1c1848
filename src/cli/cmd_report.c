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
#include "runs.h"

void cmd_report_usage(FILE *f)
{
	fprintf(f,
		"usage: jobmix report [PATH...] [options]\n"
		"  PATH                   run folders, run.json files or results roots\n"
		"                         (searched recursively; default ./results)\n"
		"  -f, --format FMT       text (default) | md | csv | json | html\n"
		"  -b, --by KEYS          grouping keys, comma separated (default kernel,scheduler;\n"
		"                         any env field or -L label)\n"
		"  -w, --workload NAME    only this workload\n"
		"      --qc converge|max  Quick Convergence: JPM where the ramp converged\n"
		"                         (default) or the ramp's maximum (re-aim's -q)\n"
		"      --sched-order LIST order of the last key's values (e.g. mq-deadline,bfq)\n"
		"      --baseline SEL     compare with the runs SEL selects (a run id or KEY=VALUE)\n"
		"                         instead of the first row of each group\n"
		"      --threshold PCT    smallest change that is marked (default 2%%)\n"
		"      --allow-diff KEYS  fold runs whose fingerprints differ in these keys (e.g.\n"
		"                         users.jobs_per_user, sync, session); default: never\n"
		"      --device-stats     add what the scheduling device did (IOPS, MB/s, KiB per\n"
		"                         request, merged, utilisation, queue depth; schema 2 runs)\n"
		"  -o, --output FILE      write there (atomically) instead of standard output\n"
		"exit: 0 a table was written, 2 bad input or no run read, 3 the output failed\n");
}

#define bad(...) cli_usage_error("report", __VA_ARGS__)

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "by", required_argument, NULL, 'b' },
		{ "workload", required_argument, NULL, 'w' },
		{ "qc", required_argument, NULL, 1 },
		{ "sched-order", required_argument, NULL, 2 },
		{ "baseline", required_argument, NULL, 3 },
		{ "threshold", required_argument, NULL, 4 },
		{ "device-stats", no_argument, NULL, 5 },
		{ "allow-diff", required_argument, NULL, 6 },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rep_opts o = { 0 };
	enum rep_format fmt = REP_TEXT;
	const char *order[64];
	const char *output = NULL;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:b:w:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (rep_format_parse(optarg, &fmt))
				return bad("--format '%s': expected text, md, csv, json or html", optarg);
			break;
		case 'b':
			if (runs_split(optarg, o.by, REP_MAX_KEYS, &o.nby))
				return bad("--by: 1 to %d non-empty keys, comma separated", REP_MAX_KEYS);
			break;
		case 'w': o.workload = optarg; break;
		case 1:
			if (cli_parse_qc(optarg, &o.qc_max))
				return bad("--qc '%s': expected converge or max", optarg);
			break;
		case 2:
			if (runs_split(optarg, order, 64, &o.norder))
				return bad("--sched-order: 1 to 64 non-empty names, comma separated");
			o.order = order;
			break;
		case 3: o.baseline = optarg; break;
		case 4:
			if (cli_parse_pct(optarg, &o.threshold))
				return bad("--threshold '%s': expected a percentage such as 2%%", optarg);
			break;
		case 5: o.device_stats = true; break;
		case 6:
			if (runs_split(optarg, o.allow_diff, REP_MAX_ALLOW, &o.nallow))
				return bad("--allow-diff: 1 to %d non-empty keys, comma separated",
					   REP_MAX_ALLOW);
			break;
		case 'o': output = optarg; break;
		case 'h': cmd_report_usage(stdout); return JM_EXIT_OK;
		default: cmd_report_usage(stderr); return JM_EXIT_USAGE;
		}
	}
	struct runs rs;
	if (runs_load(&rs, argv + optind, (size_t)(argc - optind), "report"))
		return JM_EXIT_USAGE;
	struct rep_report rep;
	char err[8192];
	int rc = JM_EXIT_OK;
	if (!rs.n) {
		runs_free(&rs);
		return bad("no run read (%zu path%s skipped)", rs.skipped, rs.skipped == 1 ? "" : "s");
	}
	o.skipped = (const char *const *)rs.skip;
	o.nskipped = rs.skipped;
	if (rep_build(rs.run, rs.n, &o, &rep, err, sizeof(err))) {
		runs_free(&rs);
		return bad("%s", err);
	}
	if (o.workload && !rep.ntable) {
		rep_free(&rep);
		runs_free(&rs);
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
	runs_free(&rs);
	return rc;
}
