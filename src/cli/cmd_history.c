// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix history [PATH...]`: every series of comparable runs under the
 * paths in run order, with the change points in it (see history.h and
 * changepoint.h); exit 1 when a series' newest segment is a regression.
 */
#include <getopt.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/atomic.h"
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
	HISTORY_STICKY,
	HISTORY_ACCEPT,
};

/* Where --accept keeps the accepted baseline: in the results root, beside its index. */
#define HISTORY_ACCEPT_FILE ".jobmix-history-accept"

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
	  .help = "fewest runs either side of a change (default 5; with\n"
		  "--order the unit is a block: one value of the key)" },
	{ .id = HISTORY_STICKY, .name = "sticky", .arg = OPT_NONE,
	  .help = "exit 1 every night a regression stands, not only the\n"
		  "night it first appears (or deepens by the threshold)" },
	{ .id = HISTORY_ACCEPT, .name = "accept", .arg = OPT_REQUIRED, .metavar = "BLOCK",
	  .help = "with --order and one results root: make that block (a\n"
		  "value of the key) the baseline; kept in ROOT/" HISTORY_ACCEPT_FILE },
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
		  "With --order a block (one value: a night) is one sample set; change points\n"
		  "fall between blocks and each names its cause (kernel, setting, host,\n"
		  "unexplained); a host change never exits 1, a known regression exits 0\n"
		  "after its first night unless --sticky.\n"
		  "exit: 0 no regression, 1 a series' newest segment fell by the threshold or\n"
		  "more (first seen tonight), 2 bad input or no run read, 3 a series' newest run is not complete, or\n"
		  "--db's database refused or failed\n",
	.rows = OPT_LIST(history_rows),
	.examples = history_examples,
};

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

/* ROOT's accepted block for key order into buf: 1 found, 0 none. */
static int history_accept_read(const char *root, const char *order, char *buf, size_t len)
{
	char path[4096], line[1024];
	snprintf(path, sizeof(path), "%s/%s", root, HISTORY_ACCEPT_FILE);
	FILE *f = fopen(path, "re");
	int found = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *tab = strchr(line, '\t');
		line[strcspn(line, "\n")] = 0;
		if (tab && (size_t)(tab - line) == strlen(order) && !strncmp(line, order, strlen(order))) {
			snprintf(buf, len, "%s", tab + 1);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/* --accept: ROOT/.jobmix-history-accept holds "KEY<TAB>BLOCK", written atomically. */
static int history_accept_write(const char *root, const char *order, const char *block)
{
	char path[4096], body[1200], err[1024];
	snprintf(path, sizeof(path), "%s/%s", root, HISTORY_ACCEPT_FILE);
	int n = snprintf(body, sizeof(body), "%s\t%s\n", order, block);
	struct atom_buf b = { body, (size_t)n };
	if (atom_write(path, atom_fill_buf, &b, NULL, err, sizeof(err))) {
		fprintf(stderr, "jobmix history: --accept: %s\n", err);
		return JM_EXIT_RUN_FAILED;
	}
	return 0;
}

/* Does any run have the block value? */
static bool history_has_block(const struct res_runs *rs, const char *order, const char *block)
{
	for (size_t i = 0; i < rs->n; i++) {
		const char *v = res_rec_get(&rs->run[i], order);
		if (v && !strcmp(v, block))
			return true;
	}
	return false;
}

int cmd_history(int argc, char **argv)
{
	struct opt_parser p;
	struct hist_opts o = { 0 };
	struct rep_cli cl = { .fmt = REP_TEXT };
	const char *accept = NULL;
	char accepted[1024];
	struct stat st;
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
		case HISTORY_STICKY: o.sticky = true; break;
		case HISTORY_ACCEPT:
			if (!*optarg || strpbrk(optarg, "\t\n"))
				return bad("--accept '%s': a value of the --order key", optarg);
			accept = optarg;
			break;
		case 'h': opt_usage(stdout, &cmd_history_opts); return JM_EXIT_OK;
		default: opt_usage(stderr, &cmd_history_opts); return JM_EXIT_USAGE;
		}
	}
	if (o.cp.min_seg && o.cp.window && o.cp.min_seg > o.cp.window)
		return bad("--min-seg %u is more than --window %u", o.cp.min_seg, o.cp.window);
	if (accept && (!o.order || argc - optind != 1 || cl.db || stat(argv[optind], &st) ||
		       !S_ISDIR(st.st_mode)))
		return bad("--accept '%s': needs --order and one results root (a folder)", accept);
	struct res_runs rs;
	int lrc = cli_runs_load(&rs, cl.db, argv + optind, (size_t)(argc - optind),
				rep_opts_parts(&o.rep) | CLI_RUNS_EVIDENCE, "history");
	if (lrc)
		return lrc;
	if (!rs.n)
		return cli_runs_none(&rs, "history");
	if (o.order && cli_order_check(&rs, o.order, "history")) {
		res_runs_free(&rs);
		return JM_EXIT_USAGE;
	}
	if (accept) {
		if (!history_has_block(&rs, o.order, accept)) {
			res_runs_free(&rs);
			return bad("--accept '%s': no run has %s %s", accept, o.order, accept);
		}
		if ((rc = history_accept_write(argv[optind], o.order, accept))) {
			res_runs_free(&rs);
			return rc;
		}
		o.accept = accept;
	}
	for (int i = optind; !o.accept && o.order && !cl.db && i < argc; i++)
		if (history_accept_read(argv[i], o.order, accepted, sizeof(accepted)))
			o.accept = accepted;
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
