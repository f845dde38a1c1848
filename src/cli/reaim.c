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
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jobmix/atomic.h"
#include "jobmix/cli.h"
#include "jobmix/compat.h"
#include "jobmix/exitcode.h"
#include "jobmix/parse.h"
#include "jobmix/results.h"
#include "run_opts.h"

void cmd_reaim_usage(FILE *f)
{
	fprintf(f,
		"usage: jobmix reaim [re-aim options]\n"
		"  -f, --file FILE        workfile (default 'workfile')\n"
		"  -c, --config FILE      reaim.config (default 'reaim.config')\n"
		"  -s, --startusers N     users to start with\n"
		"  -e, --endusers N       users to end with\n"
		"  -i, --increment N      users to add each step (fixed: jobmix has no adaptive timer)\n"
		"  -j, --jobs N           jobs per user\n"
		"  -x, --crossover        ramp until JPM per user <= 10 (jobmix: -m crossover)\n"
		"  -q, --quick            ramp until JPM per user <= 60 (jobmix: -m converge)\n"
		"  -g, --guesspeak        ramp until the peak (jobmix: -m peak)\n"
		"  -r, --repeat N         measure each point N times\n"
		"  -y, --nosync           no sync at sync points (sync: none; default: exec)\n"
		"  -l, --logprefix P      also write re-aim's P.log and P.csv\n"
		"  -t, --timeroff         accepted (the increment is always fixed)\n"
		"  -d, --debug[N]         accepted (no debug log)\n"
		"  -m, --multiuser, -v, --verbose   accepted\n"
		"      --results DIR      jobmix results folder root (default ./results)\n"
		"Output: re-aim's console table on stdout; the jobmix run folder on stderr.\n");
}

/* A user count or job count, as re-aim's atoi but checked; 0 or -1 (message printed). */
static int reaim_count(const char *opt, const char *s, unsigned long *out)
{
	int64_t v;
	char err[200];
	if (jm_parse_int(s, 1, 1000000, &v, err, sizeof(err))) {
		fprintf(stderr, "jobmix reaim: %s '%s': %s\n", opt, s, err);
		return -1;
	}
	*out = (unsigned long)v;
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

int cmd_reaim(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "verbose", no_argument, NULL, 'v' },
		{ "startusers", required_argument, NULL, 's' },
		{ "endusers", required_argument, NULL, 'e' },
		{ "increment", required_argument, NULL, 'i' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "debug", optional_argument, NULL, 'd' },
		{ "logprefix", required_argument, NULL, 'l' },
		{ "file", required_argument, NULL, 'f' },
		{ "crossover", no_argument, NULL, 'x' },
		{ "multiuser", no_argument, NULL, 'm' },
		{ "quick", no_argument, NULL, 'q' },
		{ "timeroff", no_argument, NULL, 't' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "config", required_argument, NULL, 'c' },
		{ "nosync", no_argument, NULL, 'y' },
		{ "guesspeak", no_argument, NULL, 'g' },
		{ "brief", no_argument, NULL, 'b' },
		{ "oneuser", no_argument, NULL, 'o' },
		{ "period", required_argument, NULL, 'p' },
		{ "results", required_argument, NULL, 1 },
		{ NULL, 0, NULL, 0 },
	};
	static char vals[8][32];
	const char *workfile = NULL, *cfgpath = NULL, *prefix = NULL, *mode = NULL;
	const char *start = NULL, *end = NULL, *incr = NULL, *jobs = NULL, *repeat = NULL;
	bool nosync = false;
	unsigned long v;
	int c;

	struct run_opts o = { 0 };
	o.outdir = "results";
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":bvs:e:i:j:d::f:l:p:r:c:Z:z:mqothxyg", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'f': workfile = optarg; break;
		case 'c': cfgpath = optarg; break;
		case 'l': prefix = optarg; break;
		case 's': if (reaim_count("-s", optarg, &v)) return JM_EXIT_USAGE; start = optarg; break;
		case 'e': if (reaim_count("-e", optarg, &v)) return JM_EXIT_USAGE; end = optarg; break;
		case 'i': if (reaim_count("-i", optarg, &v)) return JM_EXIT_USAGE; incr = optarg; break;
		case 'j': if (reaim_count("-j", optarg, &v)) return JM_EXIT_USAGE; jobs = optarg; break;
		case 'r':
			if (reaim_count("-r", optarg, &v))
				return JM_EXIT_USAGE;
			repeat = optarg;
			break;
		case 'x': mode = "crossover"; break;
		case 'q': mode = "converge"; break;
		case 'g': mode = "peak"; break;
		case 'y': nosync = true; break;
		case 't': case 'd': case 'm': case 'v': break;
		case 1: o.outdir = optarg; break;
		case 'h': cmd_reaim_usage(stdout); return JM_EXIT_OK;
		case 'b': case 'o': case 'p': case 'Z': case 'z':
			fprintf(stderr, "jobmix reaim: re-aim's -%c (%s) is not supported\n", c,
				c == 'b' ? "STP-style result files" : c == 'o' || c == 'p'
				? "AIM9 single-user mode" : "external monitoring tool");
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
			cmd_reaim_usage(stderr);
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
	if (start && end && strtoul(start, NULL, 10) > strtoul(end, NULL, 10)) {
		fprintf(stderr, "jobmix reaim: Cannot run backwards (-s %s above -e %s)\n", start, end);
		return JM_EXIT_USAGE;
	}
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
	if (compat_read_config(cfgpath, &cfg, err, sizeof(err))) {
		fprintf(stderr, "jobmix reaim: %s\n", err);
		return JM_EXIT_USAGE;
	}
	if (compat_import(workfile, &cfg, cfgpath, nosync ? "none" : "exec", &yaml, err,
			  sizeof(err))) {
		fprintf(stderr, "jobmix reaim: %s\n", err);
		goto out;
	}
	for (int k = 0; prefix && k < 2; k++) {   /* -l's files judged before the run */
		char lp[PATH_MAX];
		snprintf(lp, sizeof(lp), "%s.%s", prefix, k ? "csv" : "log");
		if (atom_check_at(AT_FDCWD, lp, NULL, err, sizeof(err)) == ATOM_REFUSED) {
			fprintf(stderr, "jobmix reaim: -l %s: %s\n", prefix, err);
			goto out;
		}
	}
	o.wl_text = yaml;
	o.wl_label = workfile;
	o.progress = PROG_REAIM;
	o.rounds = 1;
	size_t n = 0;
	struct { const char *key, *val; } sets[] = {
		{ "users.mode", mode }, { "users.start", start }, { "users.step", incr },
		{ "users.jobs_per_user", jobs }, { "users.repeat", repeat },
		/* -x, -q, -g ramp as far as they must, unless -e bounds them */
		{ "users.end", end ? end : mode ? "auto" : NULL },
	};
	for (size_t i = 0; i < sizeof(sets) / sizeof(sets[0]); i++) {
		if (!sets[i].val)
			continue;
		snprintf(vals[n], sizeof(vals[n]), "%s", sets[i].val);
		o.sets[o.nsets++] = (struct run_set){ sets[i].key, vals[n], "reaim" };
		n++;
	}
	rc = run_main(&o, argc, argv, dir, sizeof(dir));
	if (prefix && dir[0] && reaim_write_logs(prefix, dir) && rc == JM_EXIT_OK)
		rc = JM_EXIT_RUN_FAILED;
out:
	free(yaml);
	compat_config_free(&cfg);
	return rc;
}
