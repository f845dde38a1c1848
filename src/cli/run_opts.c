// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix run`'s command line: parsing, the overrides it applies to the
 * loaded workload, and the user counts of a linear ramp.  Nothing here
 * touches the disk or /sys.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/parse.h"
#include "jobmix/ramp.h"
#include "run_opts.h"
#include "progress.h"

void cmd_run_usage(FILE *f)
{
	fprintf(f,
		"usage: jobmix run WORKLOAD [options]\n"
		"  WORKLOAD               a workload file, or a name: NAME.yaml in ./, in\n"
		"                         $XDG_CONFIG_HOME/jobmix/workloads, or shipped\n"
		"                         ('jobmix workloads' lists them)\n"
		"  -u, --users SPEC       user counts: N, A-B, A-B/S, A-BxF, or a comma list\n"
		"  -m, --mode MODE        linear | peak | converge | crossover\n"
		"  -j, --jobs N           jobs per user per load point (AIM7 J)\n"
		"  -d, --dir DIR          work directory (repeatable; overrides files.dirs)\n"
		"  -r, --repeat N|auto    samples per load point\n"
		"  -L, --label KEY=VALUE  label the run (repeatable; kernel= and scheduler=\n"
		"                         override the detected values in reports)\n"
		"  -o, --output DIR       results folder (default ./results)\n"
		"      --seed N           run seed (job order and offsets)\n"
		"      --sync MODE        none | file | global | exec\n"
		"      --measure HOW      jobs (AIM7: fixed jobs per user) | time\n"
		"      --duration D       time mode: length of each point (e.g. 30s)\n"
		"      --timeout D        kill users still running after D (default: derived)\n"
		"      --reap-timeout D   leave behind users SIGKILL has not ended after D\n"
		"                         (uninterruptible sleep), fail the point, stop (10s)\n"
		"      --max-users N, --max-points N, --max-time D   ramp budgets\n"
		"      --threads          run users as threads of one process\n"
		"      --progress STYLE   auto | plain | json | none\n"
		"      --order ORDER      -m linear: ascending (default) | descending | shuffle\n"
		"                         (seeded by --seed; the table still prints by users)\n"
		"      --no-settle        do not sync and wait for dirty pages before each point\n"
		"      --settle-timeout D bound on that wait (default 10s)\n"
		"      --drop-caches      also drop the page cache before each point (root)\n"
		"      --no-warmup        no unrecorded warm-up pass before the first point\n"
		"  -q, --quiet            print only the run folder\n"
		"  -v, --verbose          per-job and per-device figures for every point\n"
		"IO-scheduler A/B (root):\n"
		"  -s, --sched S[,S...]   run once per IO scheduler (or 'all' the device lists),\n"
		"                         restoring the original scheduler at the end\n"
		"      --device NAME[,..] devices to switch and sample (names in /sys/block);\n"
		"                         default: the devices holding the work directories\n"
		"      --order ORDER      fair (default: linear ramps interleaved point by\n"
		"                         point, A B then B A; adaptive ramps rotated by round)\n"
		"                         | sequential (all of A, then all of B)\n"
		"      --rounds N         repeat the whole set of schedulers N times\n");
}

/* Report a usage or configuration error; returns the exit code for it. */
__attribute__((format(printf, 1, 2))) int run_bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "jobmix run: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return JM_EXIT_USAGE;
}

int run_parse_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
		{ "users", required_argument, NULL, 'u' },
		{ "mode", required_argument, NULL, 'm' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "dir", required_argument, NULL, 'd' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "label", required_argument, NULL, 'L' },
		{ "output", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, 1 },
		{ "sync", required_argument, NULL, 2 },
		{ "measure", required_argument, NULL, 3 },
		{ "duration", required_argument, NULL, 4 },
		{ "timeout", required_argument, NULL, 5 },
		{ "max-users", required_argument, NULL, 6 },
		{ "max-points", required_argument, NULL, 7 },
		{ "max-time", required_argument, NULL, 8 },
		{ "threads", no_argument, NULL, 9 },
		{ "progress", required_argument, NULL, 10 },
		{ "sched", required_argument, NULL, 's' },
		{ "device", required_argument, NULL, 11 },
		{ "order", required_argument, NULL, 12 },
		{ "rounds", required_argument, NULL, 13 },
		{ "no-settle", no_argument, NULL, 14 },
		{ "settle-timeout", required_argument, NULL, 15 },
		{ "drop-caches", no_argument, NULL, 16 },
		{ "no-warmup", no_argument, NULL, 17 },
		{ "reap-timeout", required_argument, NULL, 18 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	char err[256];
	optind = 1;
	o->outdir = "results";
	o->progress = PROG_AUTO;
	while ((c = getopt_long(argc, argv, "u:m:j:d:r:L:o:s:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': o->users = optarg; break;
		case 'm': o->mode = optarg; break;
		case 'j': {
			int64_t v;
			if (jm_parse_int(optarg, 1, 100000000, &v, err, sizeof(err)))
				return run_bad("-j: %s", err);
			o->jobs = (long)v;
			break;
		}
		case 'd':
			if (o->ndirs == MAX_DIRS)
				return run_bad("too many -d directories (at most %d)", MAX_DIRS);
			if (!*optarg)
				return run_bad("-d: empty directory name");
			o->dirs[o->ndirs++] = optarg;
			break;
		case 'r': o->repeat = optarg; break;
		case 'L': {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg)
				return run_bad("-L '%s': expected KEY=VALUE", optarg);
			if (o->nlabels == MAX_LABELS)
				return run_bad("too many -L labels (at most %d)", MAX_LABELS);
			struct res_label *l = &o->labels[o->nlabels++];
			if ((size_t)(eq - optarg) >= sizeof(l->key) || strlen(eq + 1) >= sizeof(l->value))
				return run_bad("-L '%s': key or value too long", optarg);
			snprintf(l->key, sizeof(l->key), "%.*s", (int)(eq - optarg), optarg);
			snprintf(l->value, sizeof(l->value), "%s", eq + 1);
			break;
		}
		case 'o': o->outdir = optarg; break;
		case 1: o->seed = optarg; break;
		case 2: o->sync = optarg; break;
		case 3: o->measure = optarg; break;
		case 4: o->duration = optarg; break;
		case 5: o->timeout = optarg; break;
		case 6: o->max_users = optarg; break;
		case 7: o->max_points = optarg; break;
		case 8: o->max_time = optarg; break;
		case 9: o->threads = true; break;
		case 10:
			if (prog_parse_style(optarg, &o->progress))
				return run_bad("--progress '%s': expected auto, plain, json or none", optarg);
			break;
		case 's': o->scheds = optarg; break;
		case 11: o->devices = optarg; break;
		case 12:
			if (!strcmp(optarg, "ascending") || !strcmp(optarg, "descending") ||
			    !strcmp(optarg, "shuffle")) {
				o->points = optarg;
				break;
			}
			if (strcmp(optarg, "fair") && strcmp(optarg, "sequential"))
				return run_bad("--order '%s': expected ascending, descending, shuffle, "
					       "fair or sequential", optarg);
			o->sequential = !strcmp(optarg, "sequential");
			o->order_given = true;
			break;
		case 13: {
			int64_t v;
			if (jm_parse_int(optarg, 1, 1000, &v, err, sizeof(err)))
				return run_bad("--rounds: %s", err);
			o->rounds = (unsigned)v;
			break;
		}
		case 14: o->no_settle = true; break;
		case 15: o->settle_timeout = optarg; break;
		case 18: o->reap_timeout = optarg; break;
		case 16: o->drop_caches = true; break;
		case 17: o->no_warmup = true; break;
		case 'q': o->verbosity = -1; break;
		case 'v': o->verbosity = 1; break;
		case 'h': cmd_run_usage(stdout); return -1;
		default: cmd_run_usage(stderr); return JM_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "jobmix run: expected one workload (a file or a name)\n");
		cmd_run_usage(stderr);
		return JM_EXIT_USAGE;
	}
	o->workload = argv[optind];
	if (!o->scheds && (o->rounds > 1 || o->order_given))
		return run_bad("--rounds and --order need -s (an IO-scheduler A/B)");
	if (!o->rounds)
		o->rounds = 1;
	return 0;
}

/* Command-line overrides on top of the loaded workload; exit code or 0. */
int run_apply_overrides(const struct run_opts *o, struct workload *wl)
{
	char err[256];
	if (o->ndirs) {
		char **dirs = calloc(o->ndirs, sizeof(*dirs));
		if (!dirs)
			return run_bad("out of memory");
		for (size_t i = 0; i < o->ndirs; i++)
			dirs[i] = strdup(o->dirs[i]);
		for (size_t i = 0; i < wl->ndirs; i++)
			free(wl->dirs[i]);
		free(wl->dirs);
		wl->dirs = dirs;
		wl->ndirs = o->ndirs;
	}
	if (o->jobs)
		wl->users.jobs_per_user = (unsigned)o->jobs;
	if (o->mode) {
		static const char *const modes[] = { "linear", "peak", "converge", "crossover", NULL };
		int m = -1;
		for (int i = 0; modes[i]; i++)
			if (!strcmp(o->mode, modes[i]))
				m = i;
		if (m < 0)
			return run_bad("-m '%s': expected linear, peak, converge or crossover", o->mode);
		/* A linear workload's `end` is its last point, not an adaptive budget. */
		if (wl->users.mode == WL_RAMP_LINEAR && m != WL_RAMP_LINEAR)
			wl->users.end = 0;
		wl->users.mode = (enum wl_ramp_mode)m;
		if (m == WL_RAMP_CROSSOVER && wl->users.converge_jpm_per_user == 60)
			wl->users.converge_jpm_per_user = 10;
		if (m == WL_RAMP_CONVERGE && wl->users.converge_jpm_per_user == 10)
			wl->users.converge_jpm_per_user = 60;
	}
	if (o->repeat) {
		int64_t v;
		if (!strcmp(o->repeat, "auto")) {
			wl->users.repeat_auto = true;
			wl->users.repeat = 1;
		} else if (jm_parse_int(o->repeat, 1, RAMP_MAX_SAMPLES, &v, err, sizeof(err))) {
			return run_bad("-r: %s", err);
		} else {
			wl->users.repeat = (unsigned)v;
			wl->users.repeat_auto = false;
		}
	}
	if (o->seed) {
		int64_t v;
		if (jm_parse_int(o->seed, 0, INT64_MAX, &v, err, sizeof(err)))
			return run_bad("--seed: %s", err);
		wl->seed = (uint64_t)v;
	}
	if (o->sync) {
		if (!strcmp(o->sync, "none"))
			wl->sync = JOB_SYNC_NONE;
		else if (!strcmp(o->sync, "file"))
			wl->sync = JOB_SYNC_FILE;
		else if (!strcmp(o->sync, "global"))
			wl->sync = JOB_SYNC_GLOBAL;
		else if (!strcmp(o->sync, "exec"))
			wl->sync = JOB_SYNC_EXEC;
		else
			return run_bad("--sync '%s': expected none, file, global or exec", o->sync);
	}
	if (o->measure) {
		if (!strcmp(o->measure, "jobs"))
			wl->measure.how = WL_MEASURE_JOBS;
		else if (!strcmp(o->measure, "time"))
			wl->measure.how = WL_MEASURE_TIME;
		else
			return run_bad("--measure '%s': expected jobs or time", o->measure);
	}
	if (o->duration) {
		double d;
		if (jm_parse_duration(o->duration, &d, err, sizeof(err)))
			return run_bad("--duration: %s", err);
		if (d < 1)
			return run_bad("--duration '%s': must be at least 1s", o->duration);
		wl->measure.duration_s = d;
	}
	if (o->max_users) {
		int64_t v;
		if (jm_parse_int(o->max_users, 1, 1000000, &v, err, sizeof(err)))
			return run_bad("--max-users: %s", err);
		wl->users.end = (unsigned)v;
	}
	if (o->max_points) {
		int64_t v;
		if (jm_parse_int(o->max_points, 1, 1000000, &v, err, sizeof(err)))
			return run_bad("--max-points: %s", err);
		wl->users.max_points = (unsigned)v;
	}
	if (o->max_time) {
		double d;
		if (jm_parse_duration(o->max_time, &d, err, sizeof(err)))
			return run_bad("--max-time: %s", err);
		wl->users.max_time_s = d;
	}
	if (o->no_settle)
		wl->measure.settle = false;
	if (o->settle_timeout) {
		double d;
		if (jm_parse_duration(o->settle_timeout, &d, err, sizeof(err)))
			return run_bad("--settle-timeout: %s", err);
		if (d <= 0)
			return run_bad("--settle-timeout '%s': must be positive", o->settle_timeout);
		wl->measure.settle_timeout_s = d;
	}
	if (o->drop_caches)
		wl->measure.drop_caches = true;
	if (o->no_warmup)
		wl->measure.warmup = false;
	if (wl->measure.drop_caches && !wl->measure.settle)
		return run_bad("dropping the page cache is part of settling: not with --no-settle");
	if (o->threads)
		wl->users.as = WL_USERS_THREADS;
	if (wl->users.as == WL_USERS_THREADS)
		for (size_t i = 0; i < wl->nmix; i++)
			if (wl->mix[i].weight && (wl->mix[i].kind->flags & JOB_PROCESS_ONLY))
				return run_bad("job '%s' cannot run with users as threads", wl->mix[i].name);
	return 0;
}

/* The user counts of a linear ramp: -u, or the workload's start..end/step. */
int run_linear_list(const struct run_opts *o, const struct workload *wl, unsigned **list,
		       size_t *n)
{
	char err[256];
	if (o->users) {
		if (ramp_parse_users(o->users, list, n, err, sizeof(err)))
			return run_bad("-u: %s", err);
		return 0;
	}
	char spec[64];
	unsigned end = wl->users.end ? wl->users.end : wl->users.start;
	unsigned step = wl->users.step ? wl->users.step : 1;
	snprintf(spec, sizeof(spec), "%u-%u%c%u", wl->users.start, end < wl->users.start ? wl->users.start : end,
		 wl->users.geometric ? 'x' : '/', wl->users.geometric && step < 2 ? 2 : step);
	if (ramp_parse_users(spec, list, n, err, sizeof(err)))
		return run_bad("users: %s", err);
	return 0;
}
