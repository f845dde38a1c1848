// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix plot [PATH...] -o FILE.png|FILE.svg`: the runs under the paths
 * (read as `jobmix report` reads them, grouped into rows the same way) as
 * gnuplot charts, one per workload: JPM against users per row, or with
 * --trend the rows' peak and quick convergence by run date.  The chart of
 * a single workload goes to FILE itself; with several workloads (and no
 * --workload) each goes to FILE-<workload>.<suffix>, the paths printed on
 * standard output.  --script writes the gnuplot scripts instead of
 * running gnuplot (to FILE, or standard output).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/atomic.h"
#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/gnuplot.h"
#include "jobmix/plot.h"
#include "jobmix/report.h"
#include "reporting.h"

#define PLOT_USAGE(...) cli_usage_error("plot", __VA_ARGS__)

enum plot_opt_id {
	PLOT_TERM = 't',
	PLOT_TREND = REPO_OWN,
	PLOT_SCRIPT,
	PLOT_ORDER,
	PLOT_HIST,
};

static const struct opt plot_rows[] = {
	{ .arg = OPT_ROW, .metavar = "PATH",
	  .help = "run folders, run.json files or results roots\n"
		  "(searched recursively; default ./results)" },
	{ .include = &rep_common_opts, .mask = REPC_PLOT },
	{ .id = PLOT_TREND, .name = "trend", .arg = OPT_NONE,
	  .help = "peak and quick convergence against run date (nightly),\n"
		  "with the change points jobmix history finds" },
	{ .id = PLOT_ORDER, .name = "order", .arg = OPT_REQUIRED, .metavar = "KEY",
	  .help = "--trend against this label's values (-L night=...;\n"
		  "numbers numerically), not the run date" },
	{ .id = PLOT_HIST, .name = "hist", .arg = OPT_NONE,
	  .help = "the block-layer histograms of each row (an A/B arm with\n"
		  "--by scheduler): time in the IO scheduler and in the\n"
		  "device, request size, depth (docs/tracing.md)" },
	{ .id = PLOT_SCRIPT, .name = "script", .arg = OPT_NONE,
	  .help = "write the gnuplot script, data inline, to FILE (or\n"
		  "standard output without -o) instead of running gnuplot" },
	{ .id = PLOT_TERM, .letter = 't', .name = "term", .arg = OPT_REQUIRED,
	  .metavar = "png|svg", .help = "the script's terminal when FILE has neither suffix",
	  .values = "png svg" },
};

const struct opt_cmd cmd_plot_opts = {
	.name = "plot",
	.synopsis = "usage: jobmix plot [PATH...] -o FILE.png|FILE.svg [options]\n",
	.footer = "Needs gnuplot on PATH (Debian: gnuplot-nox) unless --script is given.\n"
		  "Exit status: 0 charts written, 2 bad usage, no runs or no gnuplot, 3 gnuplot\n"
		  "or a write failed, or --db's database refused or failed.\n",
	.rows = OPT_LIST(plot_rows),
};

/* A workload's name reduced to [A-Za-z0-9._-] for a file name ("unnamed" when empty). */
static void plot_wl_tag(const char *name, char *out, size_t len)
{
	size_t k = 0;
	for (; name && name[k] && k + 1 < len; k++) {
		char c = name[k];
		bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		out[k] = keep ? c : '_';
	}
	out[k] = 0;
	if (!k)
		snprintf(out, len, "unnamed");
}

/*
 * The output path of table t: `output` itself when there is one table,
 * else with "-<workload>" (plot_wl_tag) before its suffix, "-<workload>-N"
 * when N-1 earlier tables took that name.  -1 when too long.
 */
static int plot_out_path(const char *output, const struct rep_report *rep, size_t t, char *out,
			 size_t len)
{
	if (rep->ntable == 1)
		return (size_t)snprintf(out, len, "%s", output) < len ? 0 : -1;
	char wl[160], other[160], tag[192];
	unsigned same = 1;
	plot_wl_tag(rep->table[t].workload, wl, sizeof(wl));
	for (size_t i = 0; i < t; i++) {
		plot_wl_tag(rep->table[i].workload, other, sizeof(other));
		same += !strcmp(wl, other);
	}
	if (same > 1)
		snprintf(tag, sizeof(tag), "-%s-%u", wl, same);
	else
		snprintf(tag, sizeof(tag), "-%s", wl);
	const char *slash = strrchr(output, '/');
	const char *base = slash ? slash + 1 : output;
	const char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		dot = base + strlen(base);
	return (size_t)snprintf(out, len, "%.*s%s%s", (int)(dot - output), output, tag, dot) < len ?
		       0 : -1;
}

/* Can files be made in the output's folder?  Said on stderr when not. */
static int plot_check_dir(const char *output)
{
	char dir[4096];
	const char *slash = strrchr(output, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == output)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - output), output);
	if (access(dir, W_OK | X_OK)) {
		PLOT_USAGE("-o '%s': cannot write in '%s': %s", output, dir, strerror(errno));
		return -1;
	}
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	struct opt_parser p;
	struct rep_opts o = { 0 };
	struct rep_cli cl = { .fmt = REP_TEXT };
	const char *termarg = NULL;
	bool trend = false, script = false, hist = false;
	enum plot_term term = PLOT_PNG;
	int c, rc;

	if (opt_build(&p, &cmd_plot_opts))
		return PLOT_USAGE("option table too large");
	optind = 1;
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		if ((rc = rep_common_parse(c, optarg, REPC_PLOT, &o, &cl)) != 1) {
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case PLOT_TREND: trend = true; break;
		case PLOT_HIST: hist = true; break;
		case PLOT_SCRIPT: script = true; break;
		case PLOT_ORDER: o.series_order = optarg; break;
		case PLOT_TERM:
			if (strcmp(optarg, "png") && strcmp(optarg, "svg"))
				return PLOT_USAGE("--term '%s': expected png or svg", optarg);
			termarg = optarg;
			break;
		case 'h': opt_usage(stdout, &cmd_plot_opts); return JM_EXIT_OK;
		default: opt_usage(stderr, &cmd_plot_opts); return JM_EXIT_USAGE;
		}
	}
	const char *output = cl.output;
	if (hist && trend)
		return PLOT_USAGE("--hist and --trend are two charts: give one");
	if (o.series_order && !trend)
		return PLOT_USAGE("--order '%s' orders the trend: give --trend too", o.series_order);

	/* The terminal: the output's suffix, else --term (scripts only), else png. */
	bool to_stdout = !output || !strcmp(output, "-");
	bool suffixed = !to_stdout && plot_term_from_path(output, &term) == 0;
	if (!script) {
		if (to_stdout)
			return PLOT_USAGE("-o FILE.png or -o FILE.svg is required (or --script)");
		if (!suffixed)
			return PLOT_USAGE("-o '%s': the chart's name must end in .png or .svg", output);
	}
	if (termarg) {
		enum plot_term want = strcmp(termarg, "svg") ? PLOT_PNG : PLOT_SVG;
		if (suffixed && want != term)
			return PLOT_USAGE("--term %s contradicts -o '%s'", termarg, output);
		term = want;
	}
	if (!script && !gp_available())
		return PLOT_USAGE("gnuplot is not on PATH; it draws the charts (Debian: apt-get "
				"install gnuplot-nox), or use --script to get the script");
	if (!to_stdout && plot_check_dir(output))
		return JM_EXIT_USAGE;

	struct res_runs rs;
	if (cl.metrics)
		return rep_metrics_render(stdout) ? JM_EXIT_RUN_FAILED : JM_EXIT_OK;
	/* a chart draws each run's curve (summary.by); --trend its summary */
	unsigned parts = rep_opts_parts(&o) | (trend ? 0 : RES_RUNS_CURVES) |
			 (hist ? RES_RUNS_POINTS : 0);
	int lrc = cli_runs_load(&rs, cl.db, argv + optind, (size_t)(argc - optind), parts, "plot");
	if (lrc)
		return lrc;
	if (o.series_order && rs.n && cli_order_check(&rs, o.series_order, "plot")) {
		res_runs_free(&rs);
		return JM_EXIT_USAGE;
	}
	struct rep_report rep;
	char err[8192];
	rc = JM_EXIT_OK;
	size_t drawn = 0;
	struct outfile sout = { .f = NULL };
	if (!rs.n) {
		res_runs_free(&rs);
		return PLOT_USAGE("no run to plot");
	}
	if (rep_build(rs.run, rs.n, &o, &rep, err, sizeof(err))) {
		res_runs_free(&rs);
		return PLOT_USAGE("%s", err);
	}
	if (!rep.ntable) {
		rc = o.workload ? PLOT_USAGE("no run of workload '%s'", o.workload) :
				  PLOT_USAGE("no run to plot");
		goto done;
	}
	/* Scripts to standard output go one after the other, for reading. */
	if (script && to_stdout && outfile_open(&sout, NULL, NULL, err, sizeof(err))) {
		rc = PLOT_USAGE("%s", err);
		goto done;
	}
	/* every chart's target judged before any is drawn (atomic.h) */
	for (size_t t = 0; t < rep.ntable && !to_stdout; t++) {
		char path[4096];
		if (plot_out_path(output, &rep, t, path, sizeof(path)) == 0 &&
		    atom_check_at(AT_FDCWD, path, &rs.inputs, err, sizeof(err)) == ATOM_REFUSED) {
			rc = PLOT_USAGE("%s", err);
			goto done;
		}
	}
	for (size_t t = 0; t < rep.ntable; t++) {
		char path[4096], *text = NULL;
		size_t len = 0;
		if (!to_stdout && plot_out_path(output, &rep, t, path, sizeof(path))) {
			rc = PLOT_USAGE("-o '%s': path too long", output);
			goto done;
		}
		if (hist ? plot_report_hist(&rep, t, term, &text, &len, err, sizeof(err)) :
		    plot_report_script(&rep, t, trend, term, &text, &len, err, sizeof(err))) {
			fprintf(stderr, "jobmix plot: warning: %s\n", err);
			continue;
		}
		if (script && to_stdout) {
			fwrite(text, 1, len, sout.f);
		} else if (script) {
			struct outfile of;
			int o_rc = outfile_open(&of, path, &rs.inputs, err, sizeof(err));
			if (o_rc || fwrite(text, 1, len, of.f) != len ||
			    outfile_commit(&of, err, sizeof(err))) {
				fprintf(stderr, "jobmix plot: %s\n", of.f ? "write failed" : err);
				outfile_abort(&of);
				rc = o_rc == ATOM_REFUSED ? JM_EXIT_USAGE : JM_EXIT_RUN_FAILED;
				free(text);
				goto done;
			}
		} else {
			int g = gp_render_file(text, len, AT_FDCWD, path, &rs.inputs, err, sizeof(err));
			if (g) {
				fprintf(stderr, "jobmix plot: %s: %s\n", path, err);
				rc = g == GP_NOT_FOUND || g == GP_REFUSED ? JM_EXIT_USAGE : JM_EXIT_RUN_FAILED;
				free(text);
				goto done;
			}
		}
		free(text);
		if (!to_stdout)
			printf("%s\n", path);
		drawn++;
	}
	if (script && to_stdout && outfile_commit(&sout, err, sizeof(err))) {
		rc = JM_EXIT_RUN_FAILED;
		fprintf(stderr, "jobmix plot: %s\n", err);
		goto done;
	}
	if (!drawn)
		rc = PLOT_USAGE("nothing to plot");
	else if (fflush(stdout))
		rc = JM_EXIT_RUN_FAILED;
done:
	rep_free(&rep);
	res_runs_free(&rs);
	return rc;
}
