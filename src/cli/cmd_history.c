// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix history [PATH...]`: every series of comparable runs under the
 * paths in run order, with the change points in it (see history.h and
 * changepoint.h); exit 1 when a series' newest segment is a regression.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/history.h"
#include "jobmix/parse.h"
#include "reporting.h"

enum history_opt_id {
	HISTORY_ORDER = REPO_OWN,
	HISTORY_WINDOW,
	HISTORY_ALPHA,
	HISTORY_MIN_SEG,
};

static const struct opt history_rows[] = {
	{ .arg = OPT_ROW, .metavar = "PATH",
	  .help = "run folders, run.json files or results roots\n"
		  "(searched recursively; default ./results)" },
	{ .include = &rep_common_opts, .mask = REPC_HISTORY },
	{ .id = HISTORY_ORDER, .name = "order", .arg = OPT_REQUIRED, .metavar = "KEY",
	  .help = "order runs by this label (-L night=..., commit=N; numbers\n"
		  "numerically, else as text), ties by start; default: start" },
	{ .id = HISTORY_WINDOW, .name = "window", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "runs compared either side of a split (default 50)" },
	{ .id = HISTORY_ALPHA, .name = "alpha", .arg = OPT_REQUIRED, .metavar = "P",
	  .help = "significance of a change point, after Bonferroni over\n"
		  "the windows (default 0.001)" },
	{ .id = HISTORY_MIN_SEG, .name = "min-seg", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "fewest runs either side of a change (default 5)" },
};

static const struct opt_example history_examples[] = {
	{ "history: the change points of every nightly series, night by night",
	  "jobmix history results/nightly --order night" },
	{ NULL, NULL },
};

const struct opt_cmd cmd_history_opts = {
	.name = "history",
	.synopsis = "usage: jobmix history [PATH...] [options]\n",
	.footer = "Series are report's rows (one workload and fingerprint; --by default\n"
		  "hostname,scheduler, so a kernel change is found, not split off).\n"
		  "exit: 0 no regression, 1 a series' newest segment fell by the threshold or\n"
		  "more, 2 bad input or no run read, 3 a series' newest run is not complete, or\n"
		  "--db's database refused or failed\n",
	.rows = OPT_LIST(history_rows),
	.examples = history_examples,
};

void cmd_history_usage(FILE *f)
{
	opt_usage(f, &cmd_history_opts);
}

#define bad(...) cli_usage_error("history", __VA_ARGS__)

static int parse_count(const char *opt, const char *arg, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 10);
	if (!*arg || *end || arg[0] == '-' || v < lo || v > hi)
		return bad("%s '%s': expected a whole number from %u to %u", opt, arg, lo, hi);
	*out = (unsigned)v;
	return 0;
}

int cmd_history(int argc, char **argv)
{
	struct opt_parser p;
	struct hist_opts o = { 0 };
	struct rep_cli cl = { .fmt = REP_TEXT };
	int c, rc;
	if (opt_build(&p, &cmd_history_opts))
		return bad("option table too large");
	optind = 1;
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		if ((rc = rep_common_parse(c, optarg, REPC_HISTORY, &o.rep, &cl)) != 1) {
			if (rc)
				return rc;
			continue;
		}
		char *end;
		switch (c) {
		case HISTORY_ORDER: o.order = optarg; break;
		case HISTORY_WINDOW:
			if (parse_count("--window", optarg, 2, 100000, &o.cp.window))
				return JM_EXIT_USAGE;
			break;
		case HISTORY_MIN_SEG:
			if (parse_count("--min-seg", optarg, 2, 100000, &o.cp.min_seg))
				return JM_EXIT_USAGE;
			break;
		case HISTORY_ALPHA:
			o.cp.alpha = strtod(optarg, &end);
			if (!*optarg || *end || !(o.cp.alpha > 0 && o.cp.alpha < 0.5))
				return bad("--alpha '%s': expected a probability in (0, 0.5)", optarg);
			break;
		case 'h': cmd_history_usage(stdout); return JM_EXIT_OK;
		default: cmd_history_usage(stderr); return JM_EXIT_USAGE;
		}
	}
	if (o.cp.min_seg && o.cp.window && o.cp.min_seg > o.cp.window)
		return bad("--min-seg %u is more than --window %u", o.cp.min_seg, o.cp.window);
	struct res_runs rs;
	int lrc = cli_runs_load(&rs, cl.db, argv + optind, (size_t)(argc - optind),
				rep_opts_parts(&o.rep), "history");
	if (lrc)
		return lrc;
	if (!rs.n)
		return cli_runs_none(&rs, "history");
	if (o.order && cli_order_check(&rs, o.order, "history")) {
		res_runs_free(&rs);
		return JM_EXIT_USAGE;
	}
	o.rep.skipped = (const char *const *)rs.skip;
	o.rep.nskipped = rs.skipped;
	struct hist_report h;
	char err[8192];
	if (hist_build(rs.run, rs.n, &o, &h, err, sizeof(err))) {
		res_runs_free(&rs);
		return bad("%s", err);
	}
	if (o.rep.workload && !h.ns) {
		hist_free(&h);
		res_runs_free(&rs);
		return bad("no run of workload '%s'", o.rep.workload);
	}
	struct outfile out;
	if (outfile_open(&out, cl.output, &rs.inputs, err, sizeof(err))) {
		rc = bad("%s", err);
	} else if (hist_render(out.f, &h, cl.fmt) || outfile_commit(&out, err, sizeof(err))) {
		fprintf(stderr, "jobmix history: %s\n", out.f ? "write failed" : err);
		outfile_abort(&out);
		rc = JM_EXIT_RUN_FAILED;
	} else {
		rc = hist_exit_code(&h);
	}
	hist_free(&h);
	res_runs_free(&rs);
	return rc;
}
