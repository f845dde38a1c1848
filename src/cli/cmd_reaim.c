// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix reaim [re-aim's options]`: re-aim's command line on jobmix.  The
 * workfile and reaim.config become a workload (compat.c), the options
 * become workload keys, and the run prints re-aim's console table (the
 * per-point numeric lines and "Max Jobs per Minute", which lkp-tests'
 * stats/reaim parser reads); -l PREFIX also writes re-aim's PREFIX.log and
 * PREFIX.csv.  A normal jobmix run folder is written (under ./results, or
 * --results DIR).  Everything that can be refused is refused before
 * anything is created: exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/atomic.h"
#include "jobmix/cli.h"
#include "jobmix/compat.h"
#include "jobmix/exitcode.h"
#include "jobmix/opt.h"
#include "jobmix/parse.h"
#include "jobmix/reaim.h"
#include "jobmix/results.h"
#include "run_opts.h"

/* re-aim's own option letters; --results is jobmix's. */
enum reaim_opt_id {
	REAIM_FILE = 'f',
	REAIM_CONFIG = 'c',
	REAIM_START = 's',
	REAIM_END = 'e',
	REAIM_INCR = 'i',
	REAIM_JOBS = 'j',
	REAIM_CROSSOVER = 'x',
	REAIM_QUICK = 'q',
	REAIM_GUESSPEAK = 'g',
	REAIM_REPEAT = 'r',
	REAIM_NOSYNC = 'y',
	REAIM_LOGPREFIX = 'l',
	REAIM_TIMEROFF = 't',
	REAIM_DEBUG = 'd',
	REAIM_MULTIUSER = 'm',
	REAIM_VERBOSE = 'v',
	REAIM_BRIEF = 'b',
	REAIM_ONEUSER = 'o',
	REAIM_PERIOD = 'p',
	REAIM_MONITOR_Z = 'Z',
	REAIM_MONITOR_z = 'z',
	REAIM_RESULTS = OPT_LONG_ID,
};

/* Hidden rows: re-aim options refused, their help the reason (reaim_parse says it). */
static const struct opt reaim_rows[] = {
	{ .id = REAIM_FILE, .letter = 'f', .name = "file", .arg = OPT_REQUIRED, .metavar = "FILE",
	  .help = "workfile (default 'workfile')", .values = "@files" },
	{ .id = REAIM_CONFIG, .letter = 'c', .name = "config", .arg = OPT_REQUIRED,
	  .metavar = "FILE", .help = "reaim.config (default 'reaim.config')", .values = "@files" },
	{ .id = REAIM_START, .letter = 's', .name = "startusers", .arg = OPT_REQUIRED,
	  .metavar = "N", .help = "users to start with" },
	{ .id = REAIM_END, .letter = 'e', .name = "endusers", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "users to end with" },
	{ .id = REAIM_INCR, .letter = 'i', .name = "increment", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "users to add each step (fixed: jobmix has no adaptive timer)" },
	{ .id = REAIM_JOBS, .letter = 'j', .name = "jobs", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "jobs per user" },
	{ .id = REAIM_CROSSOVER, .letter = 'x', .name = "crossover", .arg = OPT_NONE,
	  .help = "ramp until JPM per user <= 10 (jobmix: -m crossover)" },
	{ .id = REAIM_QUICK, .letter = 'q', .name = "quick", .arg = OPT_NONE,
	  .help = "ramp until JPM per user <= 60 (jobmix: -m converge)" },
	{ .id = REAIM_GUESSPEAK, .letter = 'g', .name = "guesspeak", .arg = OPT_NONE,
	  .help = "ramp until the peak (jobmix: -m peak)" },
	{ .id = REAIM_REPEAT, .letter = 'r', .name = "repeat", .arg = OPT_REQUIRED, .metavar = "N",
	  .help = "measure each point N times" },
	{ .id = REAIM_NOSYNC, .letter = 'y', .name = "nosync", .arg = OPT_NONE,
	  .help = "no sync at sync points (sync: none; default: exec)" },
	{ .id = REAIM_LOGPREFIX, .letter = 'l', .name = "logprefix", .arg = OPT_REQUIRED,
	  .metavar = "P", .help = "also write re-aim's P.log and P.csv" },
	{ .id = REAIM_TIMEROFF, .letter = 't', .name = "timeroff", .arg = OPT_NONE,
	  .help = "accepted (the increment is always fixed)" },
	{ .id = REAIM_DEBUG, .letter = 'd', .name = "debug", .arg = OPT_OPTIONAL, .metavar = "N",
	  .help = "accepted (no debug log)" },
	{ .id = REAIM_MULTIUSER, .letter = 'm', .name = "multiuser", .arg = OPT_NONE,
	  .help = "accepted" },
	{ .id = REAIM_VERBOSE, .letter = 'v', .name = "verbose", .arg = OPT_NONE,
	  .help = "accepted" },
	{ .id = REAIM_RESULTS, .name = "results", .arg = OPT_REQUIRED, .metavar = "DIR",
	  .help = "jobmix results folder root (default ./results)", .values = "@dirs" },
	{ .id = REAIM_BRIEF, .letter = 'b', .name = "brief", .arg = OPT_NONE, .hidden = true,
	  .help = "STP-style result files" },
	{ .id = REAIM_ONEUSER, .letter = 'o', .name = "oneuser", .arg = OPT_NONE, .hidden = true,
	  .help = "AIM9 single-user mode" },
	{ .id = REAIM_PERIOD, .letter = 'p', .name = "period", .arg = OPT_REQUIRED, .hidden = true,
	  .help = "AIM9 single-user mode" },
	{ .id = REAIM_MONITOR_Z, .letter = 'Z', .arg = OPT_REQUIRED, .hidden = true,
	  .help = "external monitoring tool" },
	{ .id = REAIM_MONITOR_z, .letter = 'z', .arg = OPT_REQUIRED, .hidden = true,
	  .help = "external monitoring tool" },
};

const struct opt_cmd cmd_reaim_opts = {
	.name = "reaim",
	.synopsis = "usage: jobmix reaim [re-aim options]\n",
	.footer = "Output: re-aim's console table on stdout; the jobmix run folder on stderr.\n",
	.rows = OPT_LIST(reaim_rows),
	.getopt_prefix = ":",
};

/*
 * A user count or job count, as re-aim's atoi but checked, into buf as
 * the number it is ("0001000" -> "1000": never cut); 0 or -1 (message
 * printed, naming the option).
 */
static int reaim_count(const char *opt, const char *s, char *buf, size_t len, unsigned *out)
{
	int64_t v;
	char err[200];
	if (jm_parse_int(s, 1, 1000000, &v, err, sizeof(err))) {
		fprintf(stderr, "jobmix reaim: %s '%.64s%s': %s\n", opt, s, strlen(s) > 64 ? "..." : "",
			err);
		return -1;
	}
	snprintf(buf, len, "%lld", (long long)v);
	if (out)
		*out = (unsigned)v;
	return 0;
}

/* A path option's value must fit a path (with `tail` appended); 0 or -1 (printed). */
static int reaim_path(const char *opt, const char *s, const char *tail)
{
	if (strlen(s) + strlen(tail) < PATH_MAX && *s)
		return 0;
	fprintf(stderr, "jobmix reaim: %s: %s (at most %d bytes%s%s)\n", opt,
		*s ? "the path is too long" : "an empty path", PATH_MAX - 1 - (int)strlen(tail),
		*tail ? " before " : "", tail);
	return -1;
}

/*
 * Before the run: PREFIX.log and PREFIX.csv can be written (each a target
 * the atomic writer accepts, and an existing regular file we may write or
 * a name in a folder we may write to), so an unwritable -l is refused
 * before anything runs.  Creates
 * nothing.  0 or -1 (printed).
 */
static int reaim_logs_writable(const char *prefix)
{
	static const char *const ext[] = { ".log", ".csv" };
	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX], dir[PATH_MAX], err[PATH_MAX + 512];
		struct stat st;
		snprintf(path, sizeof(path), "%s%s", prefix, ext[i]);
		/* the writer's rules first: no link, hard link or other user's file (atomic.h) */
		if (atom_check_at(AT_FDCWD, path, NULL, err, sizeof(err)) == ATOM_REFUSED) {
			fprintf(stderr, "jobmix reaim: -l %s: %s\n", prefix, err);
			return -1;
		}
		if (!stat(path, &st)) {
			if (!S_ISREG(st.st_mode)) {
				fprintf(stderr, "jobmix reaim: -l: %s exists and is not a regular file\n",
					path);
				return -1;
			}
			if (access(path, W_OK)) {
				fprintf(stderr, "jobmix reaim: -l: cannot write %s: %s\n", path,
					strerror(errno));
				return -1;
			}
			continue;
		}
		if (errno != ENOENT) {
			fprintf(stderr, "jobmix reaim: -l: %s: %s\n", path, strerror(errno));
			return -1;
		}
		snprintf(dir, sizeof(dir), "%s", path);
		char *slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = 0;
		else if (slash)
			*slash = 0;
		else
			snprintf(dir, sizeof(dir), ".");
		const char *why = NULL;
		if (stat(dir, &st) || (S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK)))
			why = strerror(errno);
		else if (!S_ISDIR(st.st_mode))
			why = strerror(ENOTDIR);
		if (why) {
			fprintf(stderr, "jobmix reaim: -l: cannot create %s: %s\n", path, why);
			return -1;
		}
	}
	return 0;
}

/*
 * re-aim's PREFIX.log and PREFIX.csv from the run's points (its layouts),
 * written with atomic.h's writer (a link, a hard link or another user's file
 * there is refused, not followed or truncated).  0 or -1.
 */
static int reaim_write_logs(const char *prefix, const char *run_dir)
{
	char path[PATH_MAX], err[PATH_MAX + 1024], when[64];
	struct res_rec rec;
	struct atom_file log, csv;
	snprintf(path, sizeof(path), "%s/run.json", run_dir);
	if (res_read(path, 0, &rec, err, sizeof(err))) {
		fprintf(stderr, "jobmix reaim: %s\n", err);
		return -1;
	}
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(when, sizeof(when), "%b %e %H:%M:%S %Y", &tm);
	int rc = -1;
	snprintf(path, sizeof(path), "%s.log", prefix);
	if (atom_begin_at(&log, AT_FDCWD, path, NULL, err, sizeof(err)))
		goto out;
	snprintf(path, sizeof(path), "%s.csv", prefix);
	if (atom_begin_at(&csv, AT_FDCWD, path, NULL, err, sizeof(err))) {
		atom_abort(&log);
		goto out;
	}
	fprintf(log.f, "Re-AIM Version 0.1.0 Run Date %s\nTimes are in seconds. \n"
		"ChildU time is cutime from the parent\nChildS time is cstime from the parent\n"
		"Written by jobmix reaim from %s\n\n"
		"                 Jobs/min/ Jobs/sec/ Time:   Time:  Time:   Time:           "
		"Running child time\n"
		"Forks  Jobs/min   child     child parent  childU childS  std_dev   JTI   :max  :min\n",
		when, run_dir);
	fprintf(csv.f, "Forks,JPM,JPM_C,JPS_C,parent_tm,childU_tm,childS_tm,std_dev,JTI,max_c,min_c\n");
	for (size_t i = 0; i < rec.npoints; i++) {
		const struct res_point *p = &rec.points[i];
		if (p->failed)
			continue;
		double jps = p->elapsed_s > 0 ? p->jobs_per_user / p->elapsed_s : 0;
		fprintf(log.f, "%-5u %8.2f %9.2f %9.2f %8.2f  %6.2f %6.2f%8.2f  %6.2f %5.2f %5.2f\n",
			p->users, p->jpm, jps * 60, jps, p->elapsed_s, p->user_cpu_s, p->sys_cpu_s,
			p->t_stddev, p->jti, p->t_max, p->t_min);
		fprintf(csv.f, "%u,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", p->users,
			p->jpm, jps * 60, jps, p->elapsed_s, p->user_cpu_s, p->sys_cpu_s, p->t_stddev,
			p->jti, p->t_max, p->t_min);
	}
	/* both written before either is put in place */
	if (atom_sync(&log, err, sizeof(err))) {
		atom_abort(&csv);
		goto out;
	}
	if (atom_sync(&csv, err, sizeof(err))) {
		atom_abort(&log);
		goto out;
	}
	if (atom_commit(&log, err, sizeof(err))) {
		atom_abort(&csv);
		goto out;
	}
	if (atom_commit(&csv, err, sizeof(err)))
		goto out;
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "jobmix reaim: %s\n", err);
	res_rec_free(&rec);
	return rc;
}

int reaim_parse(int argc, char **argv, struct reaim_opts *r)
{
	struct opt_parser p;
	int c;

	memset(r, 0, sizeof(*r));
	r->outdir = "results";
	optind = 0;   /* glibc: a full reset, whatever an earlier parse left */
	opterr = 0;
	if (opt_build(&p, &cmd_reaim_opts))
		return JM_EXIT_USAGE;
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		switch (c) {
		case REAIM_FILE:
			r->workfile = optarg;
			if (reaim_path("-f", optarg, ""))
				return JM_EXIT_USAGE;
			break;
		case REAIM_CONFIG:
			r->cfgpath = optarg;
			if (reaim_path("-c", optarg, ""))
				return JM_EXIT_USAGE;
			break;
		case REAIM_LOGPREFIX:
			r->prefix = optarg;
			if (reaim_path("-l", optarg, ".log"))
				return JM_EXIT_USAGE;
			break;
		case REAIM_START:
			if (reaim_count("-s", optarg, r->vals[0], sizeof(r->vals[0]), &r->start_n))
				return JM_EXIT_USAGE;
			r->start = r->vals[0];
			break;
		case REAIM_END:
			if (reaim_count("-e", optarg, r->vals[1], sizeof(r->vals[1]), &r->end_n))
				return JM_EXIT_USAGE;
			r->end = r->vals[1];
			break;
		case REAIM_INCR:
			if (reaim_count("-i", optarg, r->vals[2], sizeof(r->vals[2]), NULL))
				return JM_EXIT_USAGE;
			r->incr = r->vals[2];
			break;
		case REAIM_JOBS:
			if (reaim_count("-j", optarg, r->vals[3], sizeof(r->vals[3]), NULL))
				return JM_EXIT_USAGE;
			r->jobs = r->vals[3];
			break;
		case REAIM_REPEAT:
			if (reaim_count("-r", optarg, r->vals[4], sizeof(r->vals[4]), NULL))
				return JM_EXIT_USAGE;
			r->repeat = r->vals[4];
			break;
		case REAIM_CROSSOVER: r->mode = "crossover"; break;
		case REAIM_QUICK: r->mode = "converge"; break;
		case REAIM_GUESSPEAK: r->mode = "peak"; break;
		case REAIM_NOSYNC: r->nosync = true; break;
		case REAIM_TIMEROFF: case REAIM_DEBUG: case REAIM_MULTIUSER: case REAIM_VERBOSE: break;
		case REAIM_RESULTS:
			if (reaim_path("--results", optarg, ""))
				return JM_EXIT_USAGE;
			r->outdir = optarg;
			break;
		case 'h': opt_usage(stdout, &cmd_reaim_opts); return -1;
		case REAIM_BRIEF: case REAIM_ONEUSER: case REAIM_PERIOD: case REAIM_MONITOR_Z:
		case REAIM_MONITOR_z:
			fprintf(stderr, "jobmix reaim: re-aim's -%c (%s) is not supported\n", c,
				opt_by_id(&cmd_reaim_opts, c)->help);
			return JM_EXIT_USAGE;
		case ':':
			fprintf(stderr, "jobmix reaim: option '%s' needs a value\n", argv[optind - 1]);
			return JM_EXIT_USAGE;
		default:
			if (optopt)
				fprintf(stderr, "jobmix reaim: unknown re-aim option '-%c'\n", optopt);
			else
				fprintf(stderr, "jobmix reaim: unknown re-aim option '%s'\n",
					argv[optind - 1]);
			opt_usage(stderr, &cmd_reaim_opts);
			return JM_EXIT_USAGE;
		}
	}
	opterr = 1;
	if (optind < argc) {
		fprintf(stderr, "jobmix reaim: bad options: ");
		for (int i = optind; i < argc; i++)
			fprintf(stderr, "%s ", argv[i]);
		fprintf(stderr, "\n");
		return JM_EXIT_USAGE;
	}
	if (r->start && r->end && r->start_n > r->end_n) {
		fprintf(stderr, "jobmix reaim: Cannot run backwards (-s %s above -e %s)\n", r->start,
			r->end);
		return JM_EXIT_USAGE;
	}
	return 0;
}

int cmd_reaim(int argc, char **argv)
{
	struct reaim_opts ro;
	int prc = reaim_parse(argc, argv, &ro);
	if (prc)
		return prc < 0 ? JM_EXIT_OK : prc;
	const char *workfile = ro.workfile, *cfgpath = ro.cfgpath, *prefix = ro.prefix;
	const char *mode = ro.mode, *start = ro.start, *end = ro.end;
	struct run_opts o = { 0 };
	o.outdir = ro.outdir;
	if (!cfgpath) {
		cfgpath = "reaim.config";
		fprintf(stderr, "Using default config file 'reaim.config'\n");
	}
	if (!workfile) {
		workfile = "workfile";
		fprintf(stderr, "No workfile specified, using default 'workfile'\n");
	}

	struct compat_config cfg;
	char err[1200], dir[PATH_MAX];
	char *yaml = NULL;
	int rc = JM_EXIT_USAGE;
	if (prefix && reaim_logs_writable(prefix))
		return JM_EXIT_USAGE;
	if (compat_read_config(cfgpath, &cfg, err, sizeof(err))) {
		fprintf(stderr, "jobmix reaim: %s\n", err);
		return JM_EXIT_USAGE;
	}
	/* re-aim: the command line overrides the config, then refuses start above end */
	if (start)
		cfg.start = ro.start_n, cfg.start_line = 0;
	if (end)
		cfg.end = ro.end_n, cfg.end_line = 0;
	if (compat_import(workfile, &cfg, cfgpath, ro.nosync ? "none" : "exec", &yaml, err,
			  sizeof(err))) {
		fprintf(stderr, "jobmix reaim: %s\n", err);
		goto out;
	}
	o.wl_text = yaml;
	o.wl_label = workfile;
	o.progress = PROG_REAIM;
	o.rounds = 1;
	struct { const char *key, *val; } sets[] = {
		{ "users.mode", mode }, { "users.start", start }, { "users.step", ro.incr },
		{ "users.jobs_per_user", ro.jobs }, { "users.repeat", ro.repeat },
		/* -x, -q, -g ramp as far as they must, unless -e bounds them */
		{ "users.end", end ? end : mode ? "auto" : NULL },
	};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (!sets[i].val)
			continue;
		o.sets[o.nsets++] = (struct run_set){ sets[i].key, sets[i].val, "reaim" };
	}
	rc = run_main(&o, argc, argv, dir, sizeof(dir));
	if (prefix && dir[0] && reaim_write_logs(prefix, dir) && rc == JM_EXIT_OK)
		rc = JM_EXIT_RUN_FAILED;
out:
	free(yaml);
	compat_config_free(&cfg);
	return rc;
}
