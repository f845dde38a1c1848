// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix compare BASELINE... -- CANDIDATE...`: the nightly view.  Exit 1
 * when any metric regressed significantly (Holm-corrected) beyond the
 * threshold, 0 when none did, 2 on bad input.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/report.h"
#include "reporting.h"
#include "runs.h"

void cmd_compare_usage(FILE *f)
{
	fprintf(f,
		"usage: jobmix compare [options] BASELINE... -- CANDIDATE...   (options before --)\n"
		"  BASELINE, CANDIDATE    run folders, run.json files or results roots\n"
		"  -f, --format FMT       text (default) | md | csv | json\n"
		"  -w, --workload NAME    only this workload\n"
		"  -b, --by KEYS          compare group by group (e.g. scheduler): any env field,\n"
		"                         -L label or workload setting\n"
		"      --qc converge|max  which Quick Convergence figure to compare\n"
		"      --threshold PCT    smallest change that counts (default 2%%)\n"
		"      --allow-diff KEYS  compare runs whose fingerprints differ in these keys\n"
		"  -o, --output FILE      write there (atomically) instead of standard output\n"
		"exit: 0 no regression and nothing missing, 1 a significant regression, 2 bad input\n"
		"      (or sides that are not comparable), 3 evidence missing: a run that is not\n"
		"      complete, or a workload or group on one side only\n");
}

#define bad(...) cli_usage_error("compare", __VA_ARGS__)

int cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "workload", required_argument, NULL, 'w' },
		{ "qc", required_argument, NULL, 1 },
		{ "threshold", required_argument, NULL, 2 },
		{ "by", required_argument, NULL, 'b' },
		{ "allow-diff", required_argument, NULL, 3 },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rep_opts o = { 0 };
	enum rep_format fmt = REP_TEXT;
	const char *output = NULL;
	int c, sep = -1;
	/* options come before "--": getopt would take the separator itself */
	for (int i = 1; i < argc && sep < 0; i++)
		if (!strcmp(argv[i], "--"))
			sep = i;
	int nopt = sep < 0 ? argc : sep;
	optind = 1;
	while ((c = getopt_long(nopt, argv, "f:w:b:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (rep_format_parse(optarg, &fmt) || fmt == REP_HTML)
				return bad("--format '%s': expected text, md, csv or json", optarg);
			break;
		case 'w': o.workload = optarg; break;
		case 'b':
			if (runs_split(optarg, o.by, REP_MAX_KEYS, &o.nby))
				return bad("--by: 1 to %d non-empty keys, comma separated", REP_MAX_KEYS);
			break;
		case 3:
			if (runs_split(optarg, o.allow_diff, REP_MAX_ALLOW, &o.nallow))
				return bad("--allow-diff: 1 to %d non-empty keys, comma separated",
					   REP_MAX_ALLOW);
			break;
		case 1:
			if (cli_parse_qc(optarg, &o.qc_max))
				return bad("--qc '%s': expected converge or max", optarg);
			break;
		case 2:
			if (cli_parse_pct(optarg, &o.threshold))
				return bad("--threshold '%s': expected a percentage such as 2%%", optarg);
			break;
		case 'o': output = optarg; break;
		case 'h': cmd_compare_usage(stdout); return JM_EXIT_OK;
		default: cmd_compare_usage(stderr); return JM_EXIT_USAGE;
		}
	}
	if (sep < 0 || sep == optind || sep == argc - 1) {
		cmd_compare_usage(stderr);
		return bad("expected BASELINE... -- CANDIDATE...");
	}
	struct runs a, b;
	if (runs_load(&a, argv + optind, (size_t)(sep - optind), "compare"))
		return JM_EXIT_USAGE;
	if (runs_load(&b, argv + sep + 1, (size_t)(argc - sep - 1), "compare")) {
		runs_free(&a);
		return JM_EXIT_USAGE;
	}
	int rc = JM_EXIT_OK;
	char err[8192];
	struct rep_cmp cmp;
	if (!a.n || !b.n) {
		rc = bad("no readable run on the %s side", !a.n ? "baseline" : "candidate");
		goto out;
	}
	if (rep_compare(a.run, a.n, b.run, b.n, &o, &cmp, err, sizeof(err))) {
		rc = bad("%s", err);
		goto out;
	}
	if (!cmp.nrow && !cmp.ngap) {
		rep_cmp_free(&cmp);
		rc = bad("no workload has runs on both sides");
		goto out;
	}
	struct outfile of;
	if (atom_set_merge(&a.inputs, &b.inputs)) {
		rep_cmp_free(&cmp);
		rc = bad("out of memory");
		goto out;
	}
	if (outfile_open(&of, output, &a.inputs, err, sizeof(err))) {
		rep_cmp_free(&cmp);
		rc = bad("%s", err);
		goto out;
	}
	if (rep_cmp_render(of.f, &cmp, fmt) || outfile_commit(&of, err, sizeof(err))) {
		fprintf(stderr, "jobmix compare: %s\n", of.f ? "write failed" : err);
		outfile_abort(&of);
		rc = JM_EXIT_RUN_FAILED;
	} else if (cmp.worse) {
		rc = JM_EXIT_REGRESSION;
	} else if (cmp.ngap || a.skipped || b.skipped) {
		if (a.skipped || b.skipped)
			fprintf(stderr, "jobmix compare: %zu path%s skipped (above): evidence missing\n",
				a.skipped + b.skipped, a.skipped + b.skipped == 1 ? "" : "s");
		rc = JM_EXIT_INCOMPLETE;
	}
	rep_cmp_free(&cmp);
out:
	runs_free(&a);
	runs_free(&b);
	return rc;
}
