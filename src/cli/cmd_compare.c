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

static const struct opt compare_rows[] = {
	{ .arg = OPT_ROW, .metavar = "BASELINE, CANDIDATE",
	  .help = "run folders, run.json files or results roots (with --db:\n"
		  "KEY=VALUE filters over the database's runs)" },
	{ .include = &rep_common_opts, .mask = REPC_COMPARE },
};

static const struct opt_example compare_examples[] = {
	{ "a nightly: tonight's runs against last night's; exit 1 on a regression",
	  "jobmix compare results/nightly/2026-12-01 -- results/nightly/2026-12-02" },
	{ "two folders of an A/B, as JSON",
	  "jobmix compare results/a -- results/b -f json" },
	{ NULL, NULL },
};

const struct opt_cmd cmd_compare_opts = {
	.name = "compare",
	.synopsis = "usage: jobmix compare [options] BASELINE... -- CANDIDATE... [options]\n",
	.footer = "exit: 0 no regression and nothing missing, 1 a significant regression, 2 bad input\n"
		  "      (or sides that are not comparable), 3 evidence missing: a run that is not\n"
		  "      complete, or a workload or group on one side only; or --db's database\n"
		  "      refused or failed\n",
	.rows = OPT_LIST(compare_rows),
	.examples = compare_examples,
};

#define bad(...) cli_usage_error("compare", __VA_ARGS__)

int cmd_compare(int argc, char **argv)
{
	struct opt_parser p;
	struct rep_opts o = { 0 };
	struct rep_cli cl = { .fmt = REP_TEXT };
	int c, sep = -1;
	if (opt_build(&p, &cmd_compare_opts))
		return bad("option table too large");
	/* options come before "--": getopt would take the separator itself */
	for (int i = 1; i < argc && sep < 0; i++)
		if (!strcmp(argv[i], "--"))
			sep = i;
	/*
	 * Options before "--" and after the candidates (compare A -- B -f json):
	 * each side parsed apart, its paths moved behind its options.
	 */
	int nopt = sep < 0 ? argc : sep, first = 1, bfirst = 0, bargc = 0;
	char **bargv = sep < 0 ? NULL : argv + sep;
	for (int side = 0; side < 2; side++) {
		int rc = 0;
		optind = 0;   /* glibc: start afresh */
		while (!rc && (c = side ? opt_getopt(&p, bargc, bargv) : opt_getopt(&p, nopt, argv))
			      != -1)
			rc = rep_common_parse(c, optarg, REPC_COMPARE, &o, &cl);
		if (rc == 1 && c == 'h') {
			opt_usage(stdout, &cmd_compare_opts);
			return JM_EXIT_OK;
		}
		if (rc == 1) {
			opt_usage(stderr, &cmd_compare_opts);
			return JM_EXIT_USAGE;
		}
		if (rc)
			return rc;
		if (!side)
			first = optind;
		else
			bfirst = optind;
		if (sep < 0)
			break;
		bargc = argc - sep;   /* "--" stands as the tail's argv[0] */
	}
	enum rep_format fmt = cl.fmt;
	const char *output = cl.output;
	if (sep < 0 || sep == first || bfirst >= bargc) {
		opt_usage(stderr, &cmd_compare_opts);
		return bad("expected BASELINE... -- CANDIDATE...");
	}
	optind = first;
	struct res_runs a, b;
	if (cl.metrics)
		return rep_metrics_render(stdout) ? JM_EXIT_RUN_FAILED : JM_EXIT_OK;
	/* with --db, each side is KEY=VALUE filters over the database's runs */
	int (*load)(struct res_runs *, const char *, char *const *, size_t, unsigned, const char *) =
		cl.db ? cli_runs_load_where : cli_runs_load;
	unsigned parts = CLI_RUNS_EVIDENCE | RES_RUNS_CURVES | rep_opts_parts(&o);
	int lrc = load(&a, cl.db, argv + optind, (size_t)(sep - optind), parts, "compare");
	if (lrc)
		return lrc;
	/* the same paths on both sides (an A/A check of a results root): read once */
	size_t na = (size_t)(sep - optind), nb = (size_t)(bargc - bfirst);
	bool same = !cl.db && na == nb && na;
	for (size_t i = 0; same && i < na; i++)
		same = !strcmp(argv[optind + (int)i], bargv[bfirst + (int)i]);
	struct res_runs *pb = same ? &a : &b;
	if (!same && (lrc = load(&b, cl.db, bargv + bfirst, nb, parts, "compare"))) {
		res_runs_free(&a);
		return lrc;
	}
	int rc = JM_EXIT_OK;
	char err[8192];
	struct rep_cmp cmp;
	if (!a.n || !pb->n) {
		rc = bad("no readable run on the %s side", !a.n ? "baseline" : "candidate");
		goto out;
	}
	if (rep_compare(a.run, a.n, pb->run, pb->n, &o, &cmp, err, sizeof(err))) {
		rc = bad("%s", err);
		goto out;
	}
	if (!cmp.nrow && !cmp.ngap) {
		rep_cmp_free(&cmp);
		rc = bad("no workload has runs on both sides");
		goto out;
	}
	struct outfile of;
	if (!same && atom_set_merge(&a.inputs, &b.inputs)) {
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
	} else if (cmp.ngap || a.skipped || pb->skipped) {
		if (a.skipped || pb->skipped)
			fprintf(stderr, "jobmix compare: %zu path%s skipped (above): evidence missing\n",
				a.skipped + pb->skipped, a.skipped + pb->skipped == 1 ? "" : "s");
		rc = JM_EXIT_INCOMPLETE;
	}
	rep_cmp_free(&cmp);
out:
	res_runs_free(&a);
	if (!same)
		res_runs_free(&b);
	return rc;
}
