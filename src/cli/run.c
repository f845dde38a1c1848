// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix run WORKLOAD.yaml [options]`: load and validate the workload,
 * apply command-line overrides, then loop: ask the ramp strategy for the
 * next user count, measure a load point, record it (run.json rewritten
 * atomically), print its line.  Everything that can be rejected is
 * rejected before anything is created on disk.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/load.h"
#include "jobmix/parse.h"
#include "jobmix/ramp.h"
#include "jobmix/results.h"
#include "jobmix/sys.h"
#include "jobmix/workload.h"
#include "progress.h"

static volatile sig_atomic_t run_stop;

static void on_stop(int sig)
{
	run_stop = sig;
}

/* Convergence point resolution: within 3% of the first count that meets it. */
#define RUN_CONVERGE_TOL 0.03

#define MAX_DIRS 64
#define MAX_LABELS 32

struct run_opts {
	const char *workload;
	const char *users;        /* -u SPEC */
	const char *mode;         /* -m */
	const char *outdir;
	const char *dirs[MAX_DIRS];
	size_t ndirs;
	struct res_label labels[MAX_LABELS];
	size_t nlabels;
	long jobs;                /* -j, 0 = workload's */
	const char *repeat;       /* -r N | auto */
	const char *seed, *sync, *measure, *duration, *timeout;
	const char *max_users, *max_points, *max_time;
	bool threads;
	int verbosity;            /* -1 quiet, 0 normal, 1 verbose */
	enum prog_style progress;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: jobmix run WORKLOAD.yaml [options]\n"
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
		"      --max-users N, --max-points N, --max-time D   ramp budgets\n"
		"      --threads          run users as threads of one process\n"
		"      --progress STYLE   auto | plain | json | none\n"
		"  -q, --quiet            print only the run folder\n"
		"  -v, --verbose          per-job figures for every point\n");
}

/* Report a usage or configuration error; returns the exit code for it. */
__attribute__((format(printf, 1, 2))) static int bad(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "jobmix run: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	return JM_EXIT_USAGE;
}

static int parse_args(int argc, char **argv, struct run_opts *o)
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
	while ((c = getopt_long(argc, argv, "u:m:j:d:r:L:o:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'u': o->users = optarg; break;
		case 'm': o->mode = optarg; break;
		case 'j': {
			int64_t v;
			if (jm_parse_int(optarg, 1, 100000000, &v, err, sizeof(err)))
				return bad("-j: %s", err);
			o->jobs = (long)v;
			break;
		}
		case 'd':
			if (o->ndirs == MAX_DIRS)
				return bad("too many -d directories (at most %d)", MAX_DIRS);
			if (!*optarg)
				return bad("-d: empty directory name");
			o->dirs[o->ndirs++] = optarg;
			break;
		case 'r': o->repeat = optarg; break;
		case 'L': {
			const char *eq = strchr(optarg, '=');
			if (!eq || eq == optarg)
				return bad("-L '%s': expected KEY=VALUE", optarg);
			if (o->nlabels == MAX_LABELS)
				return bad("too many -L labels (at most %d)", MAX_LABELS);
			struct res_label *l = &o->labels[o->nlabels++];
			if ((size_t)(eq - optarg) >= sizeof(l->key) || strlen(eq + 1) >= sizeof(l->value))
				return bad("-L '%s': key or value too long", optarg);
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
				return bad("--progress '%s': expected auto, plain, json or none", optarg);
			break;
		case 'q': o->verbosity = -1; break;
		case 'v': o->verbosity = 1; break;
		case 'h': usage(stdout); return -1;
		default: usage(stderr); return JM_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "jobmix run: expected one workload file\n");
		usage(stderr);
		return JM_EXIT_USAGE;
	}
	o->workload = argv[optind];
	return 0;
}

/* Command-line overrides on top of the loaded workload; exit code or 0. */
static int apply_overrides(const struct run_opts *o, struct workload *wl)
{
	char err[256];
	if (o->ndirs) {
		char **dirs = calloc(o->ndirs, sizeof(*dirs));
		if (!dirs)
			return bad("out of memory");
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
			return bad("-m '%s': expected linear, peak, converge or crossover", o->mode);
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
			return bad("-r: %s", err);
		} else {
			wl->users.repeat = (unsigned)v;
			wl->users.repeat_auto = false;
		}
	}
	if (o->seed) {
		int64_t v;
		if (jm_parse_int(o->seed, 0, INT64_MAX, &v, err, sizeof(err)))
			return bad("--seed: %s", err);
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
			return bad("--sync '%s': expected none, file, global or exec", o->sync);
	}
	if (o->measure) {
		if (!strcmp(o->measure, "jobs"))
			wl->measure.how = WL_MEASURE_JOBS;
		else if (!strcmp(o->measure, "time"))
			wl->measure.how = WL_MEASURE_TIME;
		else
			return bad("--measure '%s': expected jobs or time", o->measure);
	}
	if (o->duration) {
		double d;
		if (jm_parse_duration(o->duration, &d, err, sizeof(err)))
			return bad("--duration: %s", err);
		if (d < 1)
			return bad("--duration '%s': must be at least 1s", o->duration);
		wl->measure.duration_s = d;
	}
	if (o->max_users) {
		int64_t v;
		if (jm_parse_int(o->max_users, 1, 1000000, &v, err, sizeof(err)))
			return bad("--max-users: %s", err);
		wl->users.end = (unsigned)v;
	}
	if (o->max_points) {
		int64_t v;
		if (jm_parse_int(o->max_points, 1, 1000000, &v, err, sizeof(err)))
			return bad("--max-points: %s", err);
		wl->users.max_points = (unsigned)v;
	}
	if (o->max_time) {
		double d;
		if (jm_parse_duration(o->max_time, &d, err, sizeof(err)))
			return bad("--max-time: %s", err);
		wl->users.max_time_s = d;
	}
	if (o->threads)
		wl->users.as = WL_USERS_THREADS;
	if (wl->users.as == WL_USERS_THREADS)
		for (size_t i = 0; i < wl->nmix; i++)
			if (wl->mix[i].weight && (wl->mix[i].kind->flags & JOB_PROCESS_ONLY))
				return bad("job '%s' cannot run with users as threads", wl->mix[i].name);
	return 0;
}

/* The user counts of a linear ramp: -u, or the workload's start..end/step. */
static int linear_list(const struct run_opts *o, const struct workload *wl, unsigned **list,
		       size_t *n)
{
	char err[256];
	if (o->users) {
		if (ramp_parse_users(o->users, list, n, err, sizeof(err)))
			return bad("-u: %s", err);
		return 0;
	}
	char spec[64];
	unsigned end = wl->users.end ? wl->users.end : wl->users.start;
	unsigned step = wl->users.step ? wl->users.step : 1;
	snprintf(spec, sizeof(spec), "%u-%u%c%u", wl->users.start, end < wl->users.start ? wl->users.start : end,
		 wl->users.geometric ? 'x' : '/', wl->users.geometric && step < 2 ? 2 : step);
	if (ramp_parse_users(spec, list, n, err, sizeof(err)))
		return bad("users: %s", err);
	return 0;
}

/* Time limit of the next point: --timeout, or derived from what was measured. */
static double point_timeout(double given, const struct load_point *prev, unsigned users)
{
	if (given > 0)
		return given;
	if (!prev || prev->elapsed_s <= 0)
		return 1800;
	double scale = prev->users ? (double)users / prev->users : 1;
	if (scale < 1)
		scale = 1;
	double t = 10 * prev->elapsed_s * scale + 60;
	return t > 86400 ? 86400 : t;
}

/* The executable's directory + /libexec (scripts and helpers shipped with jobmix). */
static void find_libexec(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(buf, len, "libexec");
		return;
	}
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	snprintf(buf, len, "%s/libexec", exe);
}

/* Merge one sample into the observation for its user count. */
static struct ramp_obs *record_obs(struct ramp_obs *obs, size_t *nobs, const struct load_point *p)
{
	size_t i;
	for (i = 0; i < *nobs && obs[i].users != p->users; i++)
		;
	if (i == *nobs) {
		if (*nobs == RAMP_MAX_OBS)
			return NULL;
		memset(&obs[i], 0, sizeof(obs[i]));
		obs[i].users = p->users;
		(*nobs)++;
	}
	if (obs[i].n < RAMP_MAX_SAMPLES)
		obs[i].jpm[obs[i].n++] = p->jpm;
	if (p->failed)
		obs[i].failed = true;
	ramp_obs_update(&obs[i]);
	return &obs[i];
}

static unsigned samples_at(const struct ramp_obs *obs, size_t nobs, unsigned users)
{
	for (size_t i = 0; i < nobs; i++)
		if (obs[i].users == users)
			return obs[i].n;
	return 0;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	struct workload wl = { 0 };
	struct wl_error werr;
	struct load_area area = { 0 };
	struct res_run *res = NULL;
	struct ramp *ramp = NULL;
	struct ramp_obs *obs = NULL;
	unsigned *list = NULL;
	size_t nlist = 0, nobs = 0;
	struct load_point prev = { 0 };
	bool have_prev = false;
	char err[512];
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? JM_EXIT_OK : rc;

	if (wl_load(o.workload, &wl, &werr)) {
		fprintf(stderr, "%s\n", werr.msg);
		return JM_EXIT_USAGE;
	}
	rc = apply_overrides(&o, &wl);
	if (rc)
		goto out;
	double timeout = 0;
	if (o.timeout) {
		if (jm_parse_duration(o.timeout, &timeout, err, sizeof(err))) {
			rc = bad("--timeout: %s", err);
			goto out;
		}
		if (timeout <= 0) {
			rc = bad("--timeout '%s': must be positive", o.timeout);
			goto out;
		}
	}
	if (wl.users.mode == WL_RAMP_LINEAR || o.users) {
		rc = linear_list(&o, &wl, &list, &nlist);
		if (rc)
			goto out;
	}
	struct ramp_cfg rcfg = {
		.mode = wl.users.mode, .list = list, .nlist = nlist,
		.start = wl.users.start, .growth = 2,
		.max_users = wl.users.mode == WL_RAMP_LINEAR && !o.max_users ? 0 : wl.users.end,
		.max_points = wl.users.max_points, .max_time_s = wl.users.max_time_s,
		.repeat = wl.users.repeat ? wl.users.repeat : 1, .repeat_auto = wl.users.repeat_auto,
		.converge_jpm_per_user = wl.users.converge_jpm_per_user,
		.converge_tol = RUN_CONVERGE_TOL,
	};
	if (wl.users.mode != WL_RAMP_LINEAR && !nlist && !rcfg.max_users)
		rcfg.max_users = sys_max_users(); /* users.end: auto */
	if (wl.users.mode != WL_RAMP_LINEAR && nlist) {
		/* -u A-B with an adaptive mode: search within [A, B] */
		rcfg.start = list[0];
		rcfg.max_users = list[nlist - 1];
		rcfg.list = NULL;
		rcfg.nlist = 0;
	}
	ramp = ramp_new(&rcfg);
	obs = calloc(RAMP_MAX_OBS, sizeof(*obs));
	if (!ramp || !obs) {
		rc = bad("out of memory");
		goto out;
	}

	/* From here on things are created on disk. */
	if (load_area_create(&wl, &area, err, sizeof(err))) {
		fprintf(stderr, "jobmix run: %s\n", err);
		rc = JM_EXIT_USAGE;
		goto out;
	}
	struct sys_env env;
	sys_env_capture(area.roots[0], &env);
	res = res_run_create(o.outdir, &wl, &env, o.labels, o.nlabels, argc, argv, err,
			     sizeof(err));
	if (!res) {
		fprintf(stderr, "jobmix run: %s\n", err);
		rc = JM_EXIT_USAGE;
		goto out;
	}
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	char libexec[PATH_MAX];
	find_libexec(libexec, sizeof(libexec));
	struct prog prog;
	prog_init(&prog, o.progress, o.verbosity, &wl, &env, res_run_dir(res));
	if (res_run_write(res, "running", err, sizeof(err))) {
		fprintf(stderr, "jobmix run: %s\n", err);
		rc = JM_EXIT_RUN_FAILED;
		goto out;
	}

	const char *status = "complete";
	unsigned samples = 0;
	uint64_t t_start = prog_now_ns();
	rc = JM_EXIT_OK;
	for (;;) {
		double wall = (double)(prog_now_ns() - t_start) / 1e9;
		struct ramp_decision d = ramp_next(ramp, obs, nobs, samples, wall);
		if (d.stop != RAMP_GOING)
			break;
		if (run_stop)
			break;
		struct load_cfg lc = {
			.wl = &wl, .area = &area, .users = d.users,
			.jobs_per_user = wl.users.jobs_per_user,
			.timeout_s = point_timeout(timeout, have_prev ? &prev : NULL, d.users),
			.seed = wl.seed, .sample = samples_at(obs, nobs, d.users),
			.libexec_dir = libexec, .measure = wl.measure.how,
			.duration_s = wl.measure.duration_s, .ramp_s = wl.measure.ramp_s,
			.steady_pct = wl.measure.steady_pct, .steady_windows = wl.measure.steady_windows,
			.tick = prog_wants_ticks(&prog) ? prog_tick : NULL, .tick_arg = &prog,
		};
		struct load_point p;
		prog_point_start(&prog, d.phase, d.users, samples + 1, lc.sample);
		if (load_run_point(&lc, &p, &run_stop, err, sizeof(err))) {
			fprintf(stderr, "jobmix run: %s\n", err);
			status = "failed";
			rc = JM_EXIT_RUN_FAILED;
			load_point_free(&p);
			break;
		}
		if (p.interrupted) {
			/* an interrupted point is not a measurement: keep it out */
			load_point_free(&p);
			break;
		}
		samples++;
		res_run_add_point(res, &p, lc.sample, &wl);
		record_obs(obs, &nobs, &p);
		prog_point_done(&prog, &p, &wl);
		if (have_prev)
			load_point_free(&prev);
		prev = p;
		have_prev = true;
		struct ramp_summary sum;
		ramp_summarize(ramp, obs, nobs, &sum);
		res_run_set_summary(res, obs, nobs, &sum, samples,
				    (double)(prog_now_ns() - t_start) / 1e9);
		if (p.failed) {
			prog_message(&prog, "load point failed: %s", p.reason);
			status = "failed";
			rc = JM_EXIT_RUN_FAILED;
			break;
		}
		if (res_run_write(res, "running", err, sizeof(err))) {
			fprintf(stderr, "jobmix run: %s\n", err);
			status = "failed";
			rc = JM_EXIT_RUN_FAILED;
			break;
		}
	}
	if (run_stop) {
		status = "interrupted";
		rc = run_stop == SIGTERM ? JM_EXIT_SIGTERM : JM_EXIT_SIGINT;
	}
	struct ramp_summary sum;
	ramp_summarize(ramp, obs, nobs, &sum);
	res_run_set_summary(res, obs, nobs, &sum, samples, (double)(prog_now_ns() - t_start) / 1e9);
	if (res_run_write(res, status, err, sizeof(err))) {
		fprintf(stderr, "jobmix run: %s\n", err);
		if (rc == JM_EXIT_OK)
			rc = JM_EXIT_RUN_FAILED;
	}
	prog_finish(&prog, status, &sum, samples);
out:
	if (have_prev)
		load_point_free(&prev);
	if (area.n && load_area_remove(&area)) {
		fprintf(stderr, "jobmix run: could not remove every work file\n");
		if (rc == JM_EXIT_OK)
			rc = JM_EXIT_RUN_FAILED;
	}
	res_run_free(res);
	ramp_free(ramp);
	free(obs);
	free(list);
	wl_free(&wl);
	return rc;
}
