// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix run`'s command line: parsing into struct run_opts (the orders
 * typed once, after the loop); the engine (run.h) takes it from there.
 * Nothing here touches the disk or /sys.
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
#include "jobmix/wl_keys.h"
#include "run_opts.h"
#include "progress.h"

void cmd_run_usage(FILE *f)
{
	fprintf(f,
		"usage: jobmix run WORKLOAD [options]\n"
		"       jobmix run --job KIND[:WEIGHT][,KIND[:WEIGHT]...] [options]\n"
		"  WORKLOAD               a workload file, or a name: NAME.yaml in ./, in\n"
		"                         $XDG_CONFIG_HOME/jobmix/workloads, or shipped\n"
		"                         ('jobmix workloads' lists them)\n"
		"      --job SPEC         an ad-hoc mix instead of a workload\n"
		"  -P, --set KEY=VALUE    set a workload key (users.jobs_per_user=50, files.filesize=1m,\n"
		"                         ENTRY.PARAM=VALUE for a job parameter; `jobmix check --keys`)\n"
		"  -u, --users SPEC       user counts: N, A-B, A-B/S, A-BxF, or a comma list;\n"
		"                         N%% is a share of the online CPUs (100%%, 50%%-400%%)\n"
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
		"      --progress STYLE   auto | plain | json | none | reaim (re-aim's console table)\n"
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
		"      --order ORDER      fair (default: the arms in lockstep, linear and adaptive\n"
		"                         ramps alike, each step A B then B A, rotated by round)\n"
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

/* Queue KEY=VALUE for the workload; 0 or an exit code. */
static int run_add_set(struct run_opts *o, const char *key, const char *value, const char *opt)
{
	if (o->nsets == MAX_SETS)
		return run_bad("too many workload settings (at most %d)", MAX_SETS);
	o->sets[o->nsets++] = (struct run_set){ key, value, opt };
	return 0;
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
		{ "job", required_argument, NULL, 18 },
		{ "set", required_argument, NULL, 'P' },
		{ "reap-timeout", required_argument, NULL, 19 },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	/* options that set one workload key: the key and, for flags, the value */
	static const struct {
		int opt;
		const char *name, *key, *value;
	} keyopts[] = {
		{ 'm', "-m", "users.mode", NULL },
		{ 'j', "-j", "users.jobs_per_user", NULL },
		{ 'r', "-r", "users.repeat", NULL },
		{ 1, "--seed", "seed", NULL },
		{ 2, "--sync", "sync", NULL },
		{ 3, "--measure", "measure.mode", NULL },
		{ 4, "--duration", "measure.duration", NULL },
		{ 6, "--max-users", "users.end", NULL },
		{ 7, "--max-points", "users.max_points", NULL },
		{ 8, "--max-time", "users.max_time", NULL },
		{ 9, "--threads", "users.as", "threads" },
		{ 14, "--no-settle", "measure.settle", "false" },
		{ 15, "--settle-timeout", "measure.settle_timeout", NULL },
		{ 16, "--drop-caches", "measure.drop_caches", "true" },
		{ 17, "--no-warmup", "measure.warmup", "false" },
	};
	int c, rc;
	char err[256];
	optind = 1;
	o->outdir = "results";
	o->progress = PROG_AUTO;
	while ((c = getopt_long(argc, argv, "u:m:j:d:r:L:o:s:P:qvh", longopts, NULL)) != -1) {
		bool done = false;
		for (size_t i = 0; i < sizeof(keyopts) / sizeof(keyopts[0]) && !done; i++) {
			if (keyopts[i].opt != c)
				continue;
			if ((rc = run_add_set(o, keyopts[i].key,
					      keyopts[i].value ? keyopts[i].value : optarg,
					      keyopts[i].name)))
				return rc;
			done = true;
		}
		if (c == 6)
			o->max_users = optarg;
		if (done)
			continue;
		switch (c) {
		case 'u': o->users = optarg; break;
		case 'd':
			if (o->ndirs == MAX_DIRS)
				return run_bad("too many -d directories (at most %d)", MAX_DIRS);
			if (!*optarg)
				return run_bad("-d: empty directory name");
			o->dirs[o->ndirs++] = optarg;
			break;
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
		case 'P': {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg)
				return run_bad("-P '%s': expected KEY=VALUE (`jobmix check --keys` lists "
					       "the keys)", optarg);
			*eq = 0;   /* argv is ours to split */
			if ((rc = run_add_set(o, optarg, eq + 1, "-P")))
				return rc;
			break;
		}
		case 'o': o->outdir = optarg; break;
		case 5: o->timeout = optarg; break;
		case 10:
			if (prog_parse_style(optarg, &o->progress))
				return run_bad("--progress '%s': expected auto, plain, json, none or reaim", optarg);
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
		case 18: o->jobspec = optarg; break;
		case 19: o->reap_timeout = optarg; break;
		case 'q': o->verbosity = -1; break;
		case 'v': o->verbosity = 1; break;
		case 'h': cmd_run_usage(stdout); return -1;
		default: cmd_run_usage(stderr); return JM_EXIT_USAGE;
		}
	}
	if (o->jobspec ? optind != argc : optind != argc - 1) {
		fprintf(stderr, o->jobspec ? "jobmix run: --job runs without a workload file\n"
			: "jobmix run: expected one workload: a file or a name (or --job KIND[:WEIGHT],...)\n");
		cmd_run_usage(stderr);
		return JM_EXIT_USAGE;
	}
	o->workload = o->jobspec ? NULL : argv[optind];
	if (!o->scheds && (o->rounds > 1 || o->order_given))
		return run_bad("--rounds and --order need -s (an IO-scheduler A/B)");
	if (!o->rounds)
		o->rounds = 1;
	o->order = o->sequential ? RAMP_ORDER_SEQUENTIAL : RAMP_ORDER_FAIR;
	if (o->points) {
		o->points_given = true;
		o->points_order = !strcmp(o->points, "shuffle") ? RAMP_POINTS_SHUFFLE :
				  !strcmp(o->points, "descending") ? RAMP_POINTS_DESCENDING :
				  RAMP_POINTS_ASCENDING;
	}
	return 0;
}
