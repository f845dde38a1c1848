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
#include "jobmix/escape.h"
#include "jobmix/exitcode.h"
#include "jobmix/opt.h"
#include "jobmix/parse.h"
#include "jobmix/ramp.h"
#include "jobmix/wl_keys.h"
#include "reporting.h"
#include "run_opts.h"
#include "jobmix/progress.h"

/* Named ids of run's options: the letter, or past OPT_LONG_ID. */
enum run_opt_id {
	RUN_USERS = 'u',
	RUN_MODE = 'm',
	RUN_JOBS = 'j',
	RUN_DIR = 'd',
	RUN_REPEAT = 'r',
	RUN_LABEL = 'L',
	RUN_OUTPUT = 'o',
	RUN_SCHED = 's',
	RUN_SET = 'P',
	RUN_QUIET = 'q',
	RUN_VERBOSE = 'v',
	RUN_SEED = OPT_LONG_ID,
	RUN_SYNC,
	RUN_MEASURE,
	RUN_DURATION,
	RUN_TIMEOUT,
	RUN_MAX_USERS,
	RUN_MAX_POINTS,
	RUN_MAX_TIME,
	RUN_THREADS,
	RUN_PROGRESS,
	RUN_DEVICE,
	RUN_ORDER,
	RUN_ROUNDS,
	RUN_NO_SETTLE,
	RUN_SETTLE_TIMEOUT,
	RUN_DROP_CACHES,
	RUN_NO_WARMUP,
	RUN_JOB,
	RUN_REAP_TIMEOUT,
	RUN_DRY_RUN,
	RUN_AXIS = 'X',
	RUN_ALLOW_SYSCTL = RUN_DRY_RUN + 1,
	RUN_METRIC,
	RUN_SCRATCH,
	RUN_MEM_LIMIT,
	RUN_REQUIRE_QUIET,
	RUN_INTERFERENCE_MAX,
	RUN_REMEASURE,
	RUN_UNTIL_DECIDED,
	RUN_MAX_ROUNDS,
	RUN_DECIDE_TIME,
	RUN_THRESHOLD,
	RUN_NO_TRACE,
	RUN_TRACE_SAMPLE,
	RUN_POINT_NOISE,
};

/*
 * run's options.  A row with a key sets that workload key (to its value,
 * for a flag; to the argument otherwise) through run_apply_overrides.
 */
static const struct opt run_rows[] = {
	{ .arg = OPT_ROW, .metavar = "WORKLOAD",
	  .help = "a workload file, or a name: NAME.yaml in ./, in\n"
		  "$XDG_CONFIG_HOME/jobmix/workloads, or shipped\n"
		  "('jobmix workloads' lists them)" },
	{ .id = RUN_JOB, .name = "job", .arg = OPT_REQUIRED, .metavar = "SPEC",
	  .help = "an ad-hoc mix instead of a workload", .values = "@jobs @list" },
	{ .id = RUN_SET, .letter = 'P', .name = "set", .arg = OPT_REQUIRED, .metavar = "KEY=VALUE",
	  .help = "set a workload key (users.jobs_per_user=50, files.filesize=1m,\n"
		  "ENTRY.PARAM=VALUE for a job parameter; `jobmix check --keys`)" },
	{ .id = RUN_USERS, .letter = 'u', .name = "users", .arg = OPT_REQUIRED, .metavar = "SPEC",
	  .help = "user counts: N, A-B, A-B/S, A-BxF, or a comma list;\n"
		  "N% is a share of the online CPUs (100%, 50%-400%)" },
	{ .id = RUN_MODE, .letter = 'm', .name = "mode", .arg = OPT_REQUIRED, .metavar = "MODE",
	  .help = "linear | peak | converge | crossover", .key = "users.mode",
	  .values = "linear peak converge crossover" },
	{ .id = RUN_JOBS, .letter = 'j', .name = "jobs", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "jobs per user per load point (AIM7 J)", .key = "users.jobs_per_user" },
	{ .id = RUN_DIR, .letter = 'd', .name = "dir", .arg = OPT_REQUIRED, .metavar = "DIR",
	  .help = "work directory (repeatable; overrides files.dirs)", .values = "@dirs" },
	{ .id = RUN_REPEAT, .letter = 'r', .name = "repeat", .arg = OPT_REQUIRED,
	  .metavar = "N|auto", .help = "samples per load point", .key = "users.repeat" },
	{ .id = RUN_LABEL, .letter = 'L', .name = "label", .arg = OPT_REQUIRED,
	  .metavar = "KEY=VALUE", .help = "label the run (repeatable; kernel= and scheduler=\n"
					  "override the detected values in reports)" },
	{ .id = RUN_OUTPUT, .letter = 'o', .name = "output", .arg = OPT_REQUIRED, .metavar = "DIR",
	  .help = "results folder (default ./results)", .values = "@files" },
	{ .id = RUN_SEED, .name = "seed", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "run seed (job order and offsets)", .key = "seed" },
	{ .id = RUN_SYNC, .name = "sync", .arg = OPT_REQUIRED, .metavar = "MODE",
	  .help = "none | file | global | exec", .key = "sync", .values = "none file global exec" },
	{ .id = RUN_MEASURE, .name = "measure", .arg = OPT_REQUIRED, .metavar = "HOW",
	  .help = "jobs (AIM7: fixed jobs per user) | time", .key = "measure.mode",
	  .values = "jobs time" },
	{ .id = RUN_DURATION, .name = "duration", .arg = OPT_REQUIRED, .metavar = "D",
	  .help = "time mode: length of each point (e.g. 30s)", .key = "measure.duration" },
	{ .id = RUN_TIMEOUT, .name = "timeout", .arg = OPT_REQUIRED, .metavar = "D",
	  .help = "kill users still running after D (default: derived)" },
	{ .id = RUN_REAP_TIMEOUT, .name = "reap-timeout", .arg = OPT_REQUIRED, .metavar = "D",
	  .help = "leave behind users SIGKILL has not ended after D\n"
		  "(uninterruptible sleep), fail the point, stop (10s)" },
	{ .id = RUN_MAX_USERS, .name = "max-users", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "ramp budget: the most users a point may have (users.end)",
	  .key = "users.end" },
	{ .id = RUN_MAX_POINTS, .name = "max-points", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "ramp budget: load points measured", .key = "users.max_points" },
	{ .id = RUN_MAX_TIME, .name = "max-time", .arg = OPT_REQUIRED, .metavar = "D",
	  .help = "ramp budget: wall time, e.g. 2h", .key = "users.max_time" },
	{ .id = RUN_THREADS, .name = "threads", .arg = OPT_NONE,
	  .help = "run users as threads of one process", .key = "users.as", .value = "threads" },
	{ .id = RUN_PROGRESS, .name = "progress", .arg = OPT_REQUIRED, .metavar = "STYLE",
	  .help = "auto | plain | json | none | reaim (re-aim's console table)",
	  .values = "auto plain json none reaim" },
	{ .id = RUN_ORDER, .name = "order", .arg = OPT_REQUIRED, .metavar = "ORDER",
	  .help = "-m linear: ascending (default) | descending | shuffle\n"
		  "(seeded by --seed; the table still prints by users)",
	  .values = "ascending descending shuffle fair sequential" },
	{ .id = RUN_NO_SETTLE, .name = "no-settle", .arg = OPT_NONE,
	  .help = "do not sync and wait for dirty pages before each point",
	  .key = "measure.settle", .value = "false" },
	{ .id = RUN_SETTLE_TIMEOUT, .name = "settle-timeout", .arg = OPT_REQUIRED, .metavar = "D",
	  .help = "bound on that wait (default 10s)", .key = "measure.settle_timeout" },
	{ .id = RUN_DROP_CACHES, .name = "drop-caches", .arg = OPT_NONE,
	  .help = "also drop the page cache before each point (root)",
	  .key = "measure.drop_caches", .value = "true" },
	{ .id = RUN_NO_WARMUP, .name = "no-warmup", .arg = OPT_NONE,
	  .help = "no unrecorded warm-up pass before the first point",
	  .key = "measure.warmup", .value = "false" },
	{ .id = RUN_REQUIRE_QUIET, .name = "require-quiet", .arg = OPT_REQUIRED, .metavar = "D",
	  .help = "before each point wait, at most D, for a second in which\n"
		  "other work takes at most 10% of the CPUs",
	  .key = "measure.require_quiet" },
	{ .id = RUN_INTERFERENCE_MAX, .name = "interference-max", .arg = OPT_REQUIRED,
	  .metavar = "PCT", .help = "a sample during which other work took more than PCT% of\n"
		  "the CPUs is measured again and flagged (default: the\n"
		  "median of the run's quiet samples + 10 (or half\n"
		  "the rest), at least 15)",
	  .key = "measure.interference_max" },
	{ .id = RUN_REMEASURE, .name = "remeasure", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "... at most N times a point (default 2; 0: flag only)",
	  .key = "measure.remeasure" },
	{ .id = RUN_POINT_NOISE, .name = "point-noise", .arg = OPT_REQUIRED, .metavar = "PCT",
	  .help = "size the points from the noise: 3 pilot samples before\n"
		  "the first point (not recorded); when their relative sd is\n"
		  "over PCT (0.5%-50%), every point of every arm gets 2, 4, 8\n"
		  "or 16 times the jobs per user (or the duration), a point\n"
		  "at most 60 s; in run.json \"sizing\" and the fingerprint",
	  .key = "measure.point_noise" },
	{ .id = RUN_MEM_LIMIT, .name = "mem-limit", .arg = OPT_REQUIRED, .metavar = "SIZE",
	  .help = "run the users in a memory cgroup of SIZE (root), so\n"
		  "files larger than it are read from the device",
	  .key = "measure.mem_limit" },
	{ .id = RUN_NO_TRACE, .name = "no-trace", .arg = OPT_NONE,
	  .help = "no block-layer tracing (on by default as root with BTF:\n"
		  "blk.* figures from the block tracepoints, docs/tracing.md)" },
	{ .id = RUN_TRACE_SAMPLE, .name = "trace-sample", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "the tracer's times, sizes and depths from 1 request in N,\n"
		  "at random (default 16; 1: every request; the counts are\n"
		  "every request's; blk.sample in run.json)" },
	{ .id = RUN_QUIET, .letter = 'q', .name = "quiet", .arg = OPT_NONE,
	  .help = "print only the run folder" },
	{ .id = RUN_VERBOSE, .letter = 'v', .name = "verbose", .arg = OPT_NONE,
	  .help = "per-job and per-device figures for every point" },
	{ .id = RUN_DRY_RUN, .name = "dry-run", .arg = OPT_NONE,
	  .help = "print the plan (arms, order, users, devices, what would be\n"
		  "switched, outputs) and exit 0, touching nothing" },
	{ .id = RUN_SCHED, .letter = 's', .name = "sched", .arg = OPT_REQUIRED,
	  .metavar = "S[,S...]", .section = "IO-scheduler A/B (root):",
	  .help = "run once per IO scheduler (or 'all' the device lists),\n"
		  "restoring the original scheduler at the end", .values = "all @schedulers @list" },
	{ .id = RUN_DEVICE, .name = "device", .arg = OPT_REQUIRED, .metavar = "NAME[,..]",
	  .help = "devices to switch and sample (names in /sys/block);\n"
		  "default: the devices holding the work directories", .values = "@devices @list" },
	{ .arg = OPT_ROW, .name = "order", .metavar = "ORDER",
	  .help = "fair (default: the arms in lockstep, linear and adaptive\n"
		  "ramps alike, each step A B then B A, rotated by round)\n"
		  "| sequential (all of A, then all of B)" },
	{ .id = RUN_ROUNDS, .name = "rounds", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "repeat the whole set of arms N times" },
	{ .id = RUN_UNTIL_DECIDED, .name = "until-decided", .arg = OPT_NONE,
	  .help = "add rounds until every arm's verdict against the first\n"
		  "is worse, better or same (a sequential test, valid\n"
		  "however early it stops), or the budget is spent" },
	{ .id = RUN_MAX_ROUNDS, .name = "max-rounds", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "--until-decided's budget in rounds (default 20)" },
	{ .id = RUN_DECIDE_TIME, .name = "decide-time", .arg = OPT_REQUIRED, .metavar = "D",
	  .help = "--until-decided's budget in wall time (e.g. 30m): no round\n"
		  "is begun that the last one's time says would pass it" },
	{ .id = RUN_THRESHOLD, .name = "threshold", .arg = OPT_REQUIRED, .metavar = "PCT",
	  .help = "the change the closing table's verdicts (and\n"
		  "--until-decided) call worse or better, and within which\n"
		  "same (default 2%)" },
	{ .id = RUN_AXIS, .letter = 'X', .name = "axis", .arg = OPT_REQUIRED,
	  .metavar = "KEY=V1,V2[,..]", .section = "A/B matrix (system keys need root):",
	  .help = "one arm per combination of every -X's values (repeatable):\n"
		  "sched, queue.ATTR (each device), a vm.* or kernel.sched_*\n"
		  "sysctl, mount=strictatime,relatime,noatime, a workload key\n"
		  "or ENTRY.PARAM; with --scratch also fs=ext2,ext4,...,\n"
		  "fs.mkfs=OPTIONS and any mount option (data=journal);\n"
		  "system values restored at the end" },
	{ .id = RUN_SCRATCH, .name = "scratch", .arg = OPT_REQUIRED, .metavar = "DEV",
	  .help = "a whole or loop block device whose contents may be\n"
		  "destroyed: a file system is made on it (mkfs, -X fs;\n"
		  "default ext4) and mounted as the work directory, and\n"
		  "unmounted at the end", .values = "@files" },
	{ .id = RUN_ALLOW_SYSCTL, .name = "allow-sysctl", .arg = OPT_NONE,
	  .help = "let -X vary any sysctl, not only vm.* and kernel.sched_*" },
	{ .id = RUN_METRIC, .name = "metric", .arg = OPT_REQUIRED, .metavar = "NAME",
	  .help = "what the A/B's closing table shows, repeatable (default jpm;\n"
		  "`jobmix report --metrics` lists them: read_mb_s, dev.iops ...)" },
};

static const struct opt_example run_examples[] = {
	{ "a ramp: 1 to 64 users, until the peak is established, on /mnt/test",
	  "jobmix run fserver -u 1-64 -m peak -d /mnt/test" },
	{ "an A/B: two IO schedulers in fair order, paired in 3 rounds",
	  "jobmix run sched-ab -u 1,2,4,8 -d /mnt/test -s mq-deadline,bfq --rounds 3" },
	{ "a matrix: every combination of two axes (4 arms), the plan only",
	  "jobmix run randio -d /mnt/test -X rio.flags=none,direct -X rio.block=4k,16k --dry-run" },
	{ NULL, NULL },
};

const struct opt_cmd cmd_run_opts = {
	.name = "run",
	.synopsis = "usage: jobmix run WORKLOAD [options]\n"
		    "       jobmix run --job KIND[:WEIGHT][,KIND[:WEIGHT]...] [options]\n",
	.rows = OPT_LIST(run_rows),
	.examples = run_examples,
};

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
	struct opt_parser p;
	int c, rc;
	char err[1024];
	optind = 1;
	o->outdir = "results";
	o->progress = PROG_AUTO;
	if (opt_build(&p, &cmd_run_opts))
		return run_bad("option table too large");
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		bool done = false;
		const struct opt *ko = opt_by_id(&cmd_run_opts, c);
		if (ko && ko->key) {
			if ((rc = run_add_set(o, ko->key, ko->value ? ko->value : optarg,
					      opt_said(ko))))
				return rc;
			done = true;
		}
		if (c == RUN_MAX_USERS)
			o->max_users = optarg;
		if (done)
			continue;
		switch (c) {
		case RUN_USERS: o->users = optarg; break;
		case RUN_DIR:
			if (o->ndirs == MAX_DIRS)
				return run_bad("too many -d directories (at most %d)", MAX_DIRS);
			if (!*optarg)
				return run_bad("-d: empty directory name");
			o->dirs[o->ndirs++] = optarg;
			break;
		case RUN_LABEL: {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg)
				return run_bad("-L '%s': expected KEY=VALUE", optarg);
			if (o->nlabels == MAX_LABELS)
				return run_bad("too many -L labels (at most %d)", MAX_LABELS);
			struct res_label *l = &o->labels[o->nlabels++];
			char key[sizeof(l->key)];
			if ((size_t)(eq - optarg) >= sizeof(key))
				return run_bad("-L '%s': key or value too long", optarg);
			snprintf(key, sizeof(key), "%.*s", (int)(eq - optarg), optarg);
			/* bytes that are not UTF-8 kept visibly, as \xNN (as run.json stores them) */
			if (esc_utf8_fix(l->key, sizeof(l->key), key) >= sizeof(l->key) ||
			    esc_utf8_fix(l->value, sizeof(l->value), eq + 1) >= sizeof(l->value))
				return run_bad("-L '%s': key or value too long", optarg);
			break;
		}
		case RUN_SET: {
			char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg)
				return run_bad("-P '%s': expected KEY=VALUE (`jobmix check --keys` lists "
					       "the keys)", optarg);
			*eq = 0;   /* argv is ours to split */
			if ((rc = run_add_set(o, optarg, eq + 1, "-P")))
				return rc;
			break;
		}
		case RUN_OUTPUT: o->outdir = optarg; break;
		case RUN_TIMEOUT: o->timeout = optarg; break;
		case RUN_PROGRESS:
			if (prog_parse_style(optarg, &o->progress))
				return run_bad("--progress '%s': expected auto, plain, json, none or reaim", optarg);
			break;
		case RUN_SCHED: o->scheds = optarg; break;
		case RUN_AXIS:
			if (o->naxes == RUN_MAX_AXES)
				return run_bad("-X: at most %d axes", RUN_MAX_AXES);
			if (run_axis_parse(optarg, &o->axes[o->naxes], err, sizeof(err)))
				return run_bad("%s", err);
			o->naxes++;
			break;
		case RUN_ALLOW_SYSCTL: o->allow_sysctl = true; break;
		case RUN_NO_TRACE: o->no_trace = true; break;
		case RUN_TRACE_SAMPLE: {
			int64_t v;
			if (jm_parse_int(optarg, 1, 1 << 20, &v, err, sizeof(err)))
				return run_bad("--trace-sample: %s", err);
			o->trace_sample = (unsigned)v;
			break;
		}
		case RUN_SCRATCH: o->scratch = optarg; break;
		case RUN_METRIC:
			if (rep_opts_add_metric(&o->table, optarg, err, sizeof(err)))
				return run_bad("%s", err);
			break;
		case RUN_DEVICE: o->devices = optarg; break;
		case RUN_ORDER:
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
		case RUN_ROUNDS: {
			int64_t v;
			if (jm_parse_int(optarg, 1, 1000, &v, err, sizeof(err)))
				return run_bad("--rounds: %s", err);
			o->rounds = (unsigned)v;
			break;
		}
		case RUN_UNTIL_DECIDED: o->until_decided = true; break;
		case RUN_MAX_ROUNDS: {
			int64_t v;
			if (jm_parse_int(optarg, 2, 1000, &v, err, sizeof(err)))
				return run_bad("--max-rounds: %s", err);
			o->max_rounds = (unsigned)v;
			break;
		}
		case RUN_DECIDE_TIME: o->decide_time = optarg; break;
		case RUN_THRESHOLD:
			if (cli_parse_pct(optarg, &o->threshold))
				return run_bad("--threshold '%s': expected a percentage such as 5%%",
					       optarg);
			break;
		case RUN_JOB: o->jobspec = optarg; break;
		case RUN_REAP_TIMEOUT: o->reap_timeout = optarg; break;
		case RUN_QUIET: o->verbosity = -1; break;
		case RUN_DRY_RUN: o->dry_run = true; break;
		case RUN_VERBOSE: o->verbosity = 1; break;
		case 'h': opt_usage(stdout, &cmd_run_opts); return -1;
		default: opt_usage(stderr, &cmd_run_opts); return JM_EXIT_USAGE;
		}
	}
	if (o->jobspec ? optind != argc : optind != argc - 1) {
		fprintf(stderr, o->jobspec ? "jobmix run: --job runs without a workload file\n"
			: "jobmix run: expected one workload: a file or a name (or --job KIND[:WEIGHT],...)\n");
		opt_usage(stderr, &cmd_run_opts);
		return JM_EXIT_USAGE;
	}
	o->workload = o->jobspec ? NULL : argv[optind];
	if (!o->scheds && !o->naxes && (o->rounds > 1 || o->order_given))
		return run_bad("--rounds and --order need -s or -X (an A/B)");
	if (!o->scheds && !o->naxes && o->table.nmetric)
		return run_bad("--metric chooses an A/B's closing table: it needs -s or -X "
			       "(`jobmix report --metric` for a run's folder)");
	if (!o->until_decided && (o->max_rounds || o->decide_time))
		return run_bad("--max-rounds and --decide-time are --until-decided's budget");
	if (o->until_decided && !o->scheds && !o->naxes)
		return run_bad("--until-decided needs -s or -X (an A/B)");
	if (!o->scheds && !o->naxes && o->threshold > 0)
		return run_bad("--threshold sets an A/B's verdicts: it needs -s or -X");
	if (o->until_decided && o->rounds)
		return run_bad("--until-decided adds rounds itself: give --max-rounds, not --rounds");
	if (o->until_decided)
		o->rounds = o->max_rounds ? o->max_rounds : RUN_DECIDE_ROUNDS;
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
