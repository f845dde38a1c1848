// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix run WORKLOAD [options]`: orchestration only.  The options
 * are parsed apart (run_opts.c); everything that can be rejected is
 * rejected before anything is created on disk or changed in /sys.  A
 * session (session.c) then acquires the work area, the devices of an A/B
 * (lock, saved original scheduler) and the scheduler switch, and releases
 * them in reverse order on every path.
 *
 * A run has one arm, or for an IO-scheduler A/B (-s) one arm per scheduler
 * and round, each with its own ramp and run folder.  Each step asks an
 * arm's ramp for the next user count and measures it (run.json rewritten
 * atomically); the arms take turns in the order ramp_order.h defines.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abindex.h"
#include "devwin.h"
#include "jobmix/cli.h"
#include "jobmix/compat.h"
#include "jobmix/escape.h"
#include "jobmix/exitcode.h"
#include "jobmix/gnuplot.h"
#include "jobmix/load.h"
#include "jobmix/parse.h"
#include "jobmix/plot.h"
#include "jobmix/ramp.h"
#include "jobmix/ramp_order.h"
#include "jobmix/report.h"
#include "jobmix/results.h"
#include "jobmix/sys.h"
#include "jobmix/sys_sched.h"
#include "jobmix/sys_settle.h"
#include "jobmix/workload.h"
#include "paths.h"
#include "progress.h"
#include "record.h"
#include "run_opts.h"
#include "runs.h"
#include "session.h"

static volatile sig_atomic_t run_stop;

static void on_stop(int sig)
{
	run_stop = sig;
}

/* Convergence point resolution: within 3% of the first count that meets it. */
#define RUN_CONVERGE_TOL 0.03
#define RUN_MAX_SCHEDS 8

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

/* One ramp of the run: the only one, or one scheduler in one round of an A/B. */
struct arm {
	const char *sched;        /* NULL: no switch (a plain run) */
	unsigned round;
	struct ramp *ramp;
	struct ramp_obs *obs;
	size_t nobs;
	unsigned samples;
	double busy_s;            /* wall time spent on this arm's points */
	struct ramp_decision pending;
	bool have_pending;
	bool done;
	bool warmed;              /* the warm-up pass ran (or is not wanted) */
	enum res_status status;
	char why[256];            /* the first failure, for the stop reason printed at the end */
	struct res_run *res;
	struct prog prog;
	struct load_point prev;
	bool have_prev;
	/* device counters summed over the arm's points, per watched device */
	struct sys_dstat dsum[SYS_MAX_DEVS];
	double dsecs[SYS_MAX_DEVS];
};

/* Everything the steps share. */
struct run {
	const struct run_opts *o;
	struct workload *wl;
	int argc;
	char **argv;
	struct session sess;
	struct sys_devset devs;
	struct devwin dw;
	struct sys_env env;
	const char *scheds[RUN_MAX_SCHEDS];
	char sched_buf[RUN_MAX_SCHEDS][SYS_SCHED_NAME];
	size_t nsched;
	bool ab;
	enum ramp_order order;
	struct arm *arms;
	size_t narms;
	struct ramp_cfg rcfg;
	double timeout;
	double reap_timeout;      /* --reap-timeout, 0: the load generator's default */
	char wl_file[PATH_MAX];   /* the workload file: the argument, or where its name was found */
	enum wlf_origin wl_found;
	struct paths paths;       /* libexec (jobs' programs), found from the binary */
	struct abindex index;
	bool have_index;
	bool header_done;
	const char *users;        /* -u with every N% resolved (NULL: none given) */
	char users_buf[1024];
	unsigned ncpus;           /* online CPUs, what N% of -u is a share of */
	int rc;                   /* the exit code so far */
};

/* The devices to watch: --device names, else those holding the work dirs. 0 or exit code. */
static int run_devices(struct run *r)
{
	char err[512];
	if (r->o->devices) {
		char buf[512];
		if (strlen(r->o->devices) >= sizeof(buf))
			return run_bad("--device: list too long");
		snprintf(buf, sizeof(buf), "%s", r->o->devices);
		char *save = NULL;
		for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
			if (sys_dev_add_name(w, &r->devs, err, sizeof(err)))
				return run_bad("--device: %s", err);
		return 0;
	}
	for (size_t i = 0; i < r->wl->ndirs; i++)
		if (sys_dev_resolve(r->wl->dirs[i], &r->devs, err, sizeof(err)) && r->o->scheds)
			return run_bad("-s: %s", err);
	return 0;
}

/* Is name in every settable device's list? */
static bool run_sched_everywhere(const struct run *r, const char *name)
{
	for (size_t i = 0; i < r->devs.n; i++)
		if (r->devs.dev[i].settable && !sys_sched_listed(r->devs.dev[i].name, name))
			return false;
	return true;
}

static int run_add_sched(struct run *r, const char *name)
{
	for (size_t i = 0; i < r->nsched; i++)
		if (!strcmp(r->scheds[i], name))
			return run_bad("-s: scheduler '%s' given twice", name);
	if (r->nsched == RUN_MAX_SCHEDS)
		return run_bad("-s: at most %d schedulers", RUN_MAX_SCHEDS);
	snprintf(r->sched_buf[r->nsched], SYS_SCHED_NAME, "%s", name);
	r->scheds[r->nsched] = r->sched_buf[r->nsched];
	r->nsched++;
	return 0;
}

/* Say which devices met have no settable scheduler, and which ones are switched instead. */
static void run_note_unsettable(const struct run *r)
{
	char on[SYS_MAX_DEVS * SYS_DEV_NAME + 16] = "";
	for (size_t i = 0; i < r->devs.n; i++)
		if (r->devs.dev[i].settable) {
			size_t n = strlen(on);
			snprintf(on + n, sizeof(on) - n, "%s%s", n ? ", " : "", r->devs.dev[i].name);
		}
	for (size_t i = 0; i < r->devs.n; i++)
		if (!r->devs.dev[i].settable && r->o->verbosity >= 0)
			fprintf(stderr, "jobmix run: %s has no settable IO scheduler%s; switching %s\n",
				r->devs.dev[i].name,
				r->devs.dev[i].stacked ? " (its I/O is scheduled below it)" : "", on);
}

/*
 * -s LIST | all, checked against every settable device's queue/scheduler
 * before anything is changed.  0 or an exit code.
 */
static int run_schedulers(struct run *r)
{
	const char *list = r->o->scheds;
	char names[SYS_MAX_DEVS * SYS_DEV_NAME + 64] = "";
	size_t settable = 0;
	for (size_t i = 0; i < r->devs.n; i++) {
		size_t n = strlen(names);
		snprintf(names + n, sizeof(names) - n, "%s%s%s", n ? ", " : "", r->devs.dev[i].name,
			 r->devs.dev[i].settable ? "" : " (no settable scheduler)");
		settable += r->devs.dev[i].settable;
	}
	if (!settable)
		return run_bad("-s: no device with a settable IO scheduler among %s",
			       r->devs.n ? names : "the work directories' devices");
	if (!strcmp(list, "all")) {
		char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
		for (size_t i = 0; i < r->devs.n; i++) {
			if (!r->devs.dev[i].settable)
				continue;
			sys_sched_get(r->devs.dev[i].name, active, sizeof(active), all, sizeof(all));
			char *save = NULL;
			for (char *w = strtok_r(all, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
				if (!run_sched_everywhere(r, w))
					continue;
				int rc = run_add_sched(r, w);
				if (rc)
					return rc;
			}
			break;
		}
		run_note_unsettable(r);
		return 0;
	}
	char buf[512];
	if (strlen(list) >= sizeof(buf))
		return run_bad("-s: list too long");
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		for (size_t i = 0; i < r->devs.n; i++) {
			const struct sys_dev *d = &r->devs.dev[i];
			char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
			if (!d->settable)
				continue;
			if (!sys_sched_listed(d->name, w)) {
				sys_sched_get(d->name, active, sizeof(active), all, sizeof(all));
				return run_bad("-s: '%s' is not a scheduler %s offers (%s)", w, d->name,
					       all);
			}
		}
		int rc = run_add_sched(r, w);
		if (rc)
			return rc;
	}
	if (!r->nsched)
		return run_bad("-s: no scheduler given");
	run_note_unsettable(r);
	return 0;
}

static void run_repair_report(void *arg, enum sys_repair what, const char *msg)
{
	(void)arg;
	fprintf(stderr, "jobmix run: %s%s\n", what == SYS_REPAIR_FAILED ? "warning: " : "", msg);
}

/*
 * A plain run acts on what a killed jobmix left on the devices its work
 * directories resolve to, and on no other (an A/B's hold does it for the
 * devices it switches).  Root only: the records are root's.
 */
static void run_repair(const struct run *r)
{
	struct sys_devset set = { 0 };
	char err[512];
	if (r->ab || geteuid() != 0)
		return;
	for (size_t i = 0; i < r->wl->ndirs; i++)
		if (sys_dev_resolve(r->wl->dirs[i], &set, err, sizeof(err))) {
			/* a work dir without a block device has nothing to repair */
		}
	for (size_t i = 0; i < set.n; i++)
		if (sys_sched_repair(set.dev[i].name, run_repair_report, NULL, err, sizeof(err)) < 0) {
			fprintf(stderr, "jobmix run: warning: scheduler records not acted on: %s\n",
				err);
			return;
		}
}

/* Switch to the arm's scheduler (if another is active) and open its run folder. */
static int arm_enter(struct run *r, struct arm *a)
{
	char err[512];
	if (a->sched && strcmp(r->sess.current, a->sched)) {
		if (session_switch(&r->sess, a->sched, err, sizeof(err))) {
			fprintf(stderr, "jobmix run: %s\n", err);
			r->rc = JM_EXIT_RUN_FAILED;
			return -1;
		}
	}
	if (a->res)
		return 0;
	/* the environment as this arm runs: its scheduler active, its tunables */
	struct sys_env env = r->env;
	if (r->devs.n)
		sys_env_set_devices(&env, &r->devs);
	char suffix[64];
	if (a->sched && r->o->rounds > 1)
		snprintf(suffix, sizeof(suffix), "%s-r%u", a->sched, a->round + 1);
	else
		snprintf(suffix, sizeof(suffix), "%s", a->sched ? a->sched : "");
	a->res = rec_run_create_named(r->o->outdir, r->wl, &env, r->o->labels, r->o->nlabels,
				      r->argc, r->argv, suffix, wlf_origin_name(r->wl_found), err,
				      sizeof(err));
	if (!a->res) {
		fprintf(stderr, "jobmix run: %s\n", err);
		r->rc = JM_EXIT_USAGE;
		return -1;
	}
	if (r->o->users && res_run_set_users(a->res, r->o->users, r->ncpus, r->users)) {
		fprintf(stderr, "jobmix run: out of memory recording the users\n");
		r->rc = JM_EXIT_RUN_FAILED;
		return -1;
	}
	if (a->sched) {
		struct res_sched rs;
		res_sched_init(&rs);
		snprintf(rs.scheduler, sizeof(rs.scheduler), "%s", a->sched);
		session_devices(&r->sess, rs.devices, sizeof(rs.devices));
		session_originals(&r->sess, rs.original, sizeof(rs.original));
		snprintf(rs.order, sizeof(rs.order), "%s", ramp_order_name(r->order));
		rs.round = a->round;
		if (r->have_index)
			snprintf(rs.ab_index, sizeof(rs.ab_index), "%s/index.json", r->index.dir);
		if (res_run_set_sched(a->res, &rs) ||
		    (r->have_index && abx_add_run(&r->index, a->sched, a->round, res_run_dir(a->res)))) {
			fprintf(stderr, "jobmix run: out of memory recording the scheduler\n");
			r->rc = JM_EXIT_RUN_FAILED;
			return -1;
		}
	}
	prog_init_arm(&a->prog, r->o->progress, r->o->verbosity, r->wl, &env, res_run_dir(a->res),
		      a->sched, !r->header_done);
	r->header_done = true;
	if (res_run_write(a->res, RES_RUNNING, err, sizeof(err)) ||
	    (r->have_index && abx_write(&r->index, err, sizeof(err)))) {
		fprintf(stderr, "jobmix run: %s\n", err);
		r->rc = JM_EXIT_RUN_FAILED;
		return -1;
	}
	return 0;
}

/* Add a point's device counters to the arm's sums. */
static void arm_add_devices(struct arm *a, const struct devwin *w)
{
	for (size_t i = 0; i < w->n; i++) {
		if (!w->ok[0][i] || !w->ok[1][i])
			continue;
		const struct sys_dstat *x = &w->at[0][i], *y = &w->at[1][i];
		struct sys_dstat *s = &a->dsum[i];
		s->rd_ios += y->rd_ios - x->rd_ios;
		s->wr_ios += y->wr_ios - x->wr_ios;
		s->rd_merges += y->rd_merges - x->rd_merges;
		s->wr_merges += y->wr_merges - x->wr_merges;
		s->rd_sectors += y->rd_sectors - x->rd_sectors;
		s->wr_sectors += y->wr_sectors - x->wr_sectors;
		s->fl_ios += y->fl_ios - x->fl_ios;
		s->io_ticks += y->io_ticks - x->io_ticks;
		s->time_in_queue += y->time_in_queue - x->time_in_queue;
		a->dsecs[i] += (double)(w->t[1] - w->t[0]) / 1e9;
	}
}

/* load_cfg.settle: the run's settling (sys_settle) before a point's release. */
static int run_settle(void *arg, struct load_settle *rec, char *err, size_t errlen)
{
	const struct wl_measure_cfg *m = arg;
	struct sys_settle_rec sr;
	int rc = sys_settle(m->settle_timeout_s, m->drop_caches, &sr, err, errlen);
	*rec = (struct load_settle){
		.dirty_bytes = sr.dirty_bytes, .writeback_bytes = sr.writeback_bytes,
		.left_bytes = sr.left_bytes, .wait_s = sr.wait_s, .drained = sr.drained,
		.dropped = sr.dropped, .full = true,
	};
	return rc;
}

/* The load point of `users` users of the run's workload, as measured or as a warm-up. */
static struct load_cfg run_point_cfg(struct run *r, struct arm *a, unsigned users)
{
	return (struct load_cfg){
		.wl = r->wl, .area = &r->sess.area, .users = users,
		.jobs_per_user = r->wl->users.jobs_per_user,
		.timeout_s = point_timeout(r->timeout, a->have_prev ? &a->prev : NULL, users),
		.reap_timeout_s = r->reap_timeout,
		.seed = r->wl->seed, .sample = samples_at(a->obs, a->nobs, users),
		.libexec_dir = r->paths.libexec, .measure = r->wl->measure.how,
		.duration_s = r->wl->measure.duration_s, .ramp_s = r->wl->measure.ramp_s,
		.steady_pct = r->wl->measure.steady_pct,
		.steady_windows = r->wl->measure.steady_windows,
		.tick = prog_wants_ticks(&a->prog) ? prog_tick : NULL, .tick_arg = &a->prog,
		.mark = r->dw.n ? devwin_mark : NULL, .mark_arg = &r->dw,
		.settle = r->wl->measure.settle ? run_settle : NULL,
		.settle_arg = &r->wl->measure,
	};
}

/* Arm a failed (r->rc set); the first reason is kept for the stop reason. */
static void arm_fail(struct run *r, struct arm *a, const char *why)
{
	if (a->status != RES_FAILED || !a->why[0])
		snprintf(a->why, sizeof(a->why), "%s", why);
	a->status = RES_FAILED;
	r->rc = JM_EXIT_RUN_FAILED;
}

/*
 * The warm-up: one short unrecorded pass of the mix at the arm's first
 * point's users (a quarter of the jobs per user in jobs mode; in time mode
 * a quarter of the duration, at most 10 s), so that the first measured
 * point does not start cold.  Recorded in run.json "warmup".  0, or -1
 * when the run must stop (r->rc set).
 */
static int arm_warmup(struct run *r, struct arm *a, unsigned users)
{
	char err[512];
	struct load_point p;
	struct load_cfg lc = run_point_cfg(r, a, users);
	unsigned j = r->wl->users.jobs_per_user / 4;
	lc.jobs_per_user = j ? j : 1;
	bool timed = lc.measure == WL_MEASURE_TIME;
	if (timed) {
		lc.duration_s = wl_warmup_s(&r->wl->measure);
		lc.ramp_s = lc.steady_pct = 0;
	}
	lc.measure = timed ? WL_MEASURE_TIME : WL_MEASURE_JOBS;
	lc.mark = NULL;
	lc.sample = 0;
	a->warmed = true;
	if (r->o->verbosity >= 0 && timed)
		prog_message(&a->prog, "warm-up: %u users for %g s (not recorded)", users,
			     lc.duration_s);
	else if (r->o->verbosity >= 0)
		prog_message(&a->prog, "warm-up: %u users, %u jobs each (not recorded)", users,
			     lc.jobs_per_user);
	if (load_run_point(&lc, &p, &run_stop, err, sizeof(err))) {
		fprintf(stderr, "jobmix run: warm-up: %s\n", err);
		arm_fail(r, a, err);
		load_point_free(&p);
		return -1;
	}
	struct res_warmup w = {
		.users = users, .jobs_per_user = p.jobs_per_user, .elapsed_s = p.elapsed_s,
		.jpm = p.jpm, .failed = p.failed,
	};
	snprintf(w.reason, sizeof(w.reason), "%s", p.reason);
	bool interrupted = p.interrupted, failed = p.failed;
	load_point_free(&p);
	if (interrupted)
		return -1;
	if (res_run_set_warmup(a->res, &w)) {
		fprintf(stderr, "jobmix run: out of memory recording the warm-up\n");
		arm_fail(r, a, "out of memory");
		return -1;
	}
	if (failed) {
		prog_message(&a->prog, "warm-up failed: %s", w.reason);
		arm_fail(r, a, w.reason);
		return -1;
	}
	return 0;
}

/*
 * Measure one point of arm a at decision d and record it.  0, or -1 when
 * the run must stop (failure, interruption; r->rc set).
 */
static int arm_measure(struct run *r, struct arm *a, struct ramp_decision d)
{
	char err[512];
	struct load_point p;
	struct load_cfg lc = run_point_cfg(r, a, d.users);
	devwin_reset(&r->dw);
	prog_point_start(&a->prog, d.phase, d.users, a->samples + 1, lc.sample);
	uint64_t t0 = prog_now_ns();
	if (load_run_point(&lc, &p, &run_stop, err, sizeof(err))) {
		fprintf(stderr, "jobmix run: %s\n", err);
		arm_fail(r, a, err);
		load_point_free(&p);
		return -1;
	}
	a->busy_s += (double)(prog_now_ns() - t0) / 1e9;
	if (p.interrupted) {
		/* an interrupted point is not a measurement: keep it out */
		if (p.stuck_users) {
			fprintf(stderr, "jobmix run: %s\n", p.reason);
			arm_fail(r, a, p.reason);
		}
		load_point_free(&p);
		return -1;
	}
	a->samples++;
	struct res_dev rd[SYS_MAX_DEVS];
	struct sys_drate rate[SYS_MAX_DEVS];
	bool have[SYS_MAX_DEVS];
	const char *names[SYS_MAX_DEVS];
	size_t nd = 0;
	for (size_t i = 0; i < r->dw.n; i++) {
		names[i] = r->dw.name[i];
		have[i] = devwin_rates(&r->dw, i, &rate[i]);
		if (have[i])
			rec_dev(r->dw.name[i], &rate[i], &rd[nd++]);
	}
	if (!p.failed)
		arm_add_devices(a, &r->dw);
	if (rec_add_point_devs(a->res, &p, lc.sample, r->wl, rd, nd) ||
	    (r->have_index && abx_add_point(&r->index, a->sched, a->round, p.users, lc.sample))) {
		fprintf(stderr, "jobmix run: out of memory recording a point\n");
		arm_fail(r, a, "out of memory");
		load_point_free(&p);
		return -1;
	}
	record_obs(a->obs, &a->nobs, &p);
	prog_point_done(&a->prog, &p, r->wl);
	prog_point_devices(&a->prog, names, rate, have, r->dw.n);
	if (a->have_prev)
		load_point_free(&a->prev);
	a->prev = p;
	a->have_prev = true;
	struct ramp_summary sum;
	ramp_summarize(a->ramp, a->obs, a->nobs, &sum);
	if (rec_set_summary(a->res, a->obs, a->nobs, &sum, a->samples, a->busy_s))
		prog_message(&a->prog, "out of memory recording the summary");
	if (p.failed) {
		/*
		 * Recorded, and the run will say a point failed (status failed,
		 * exit 3), but the ramp decides what comes next: a failed point
		 * is past the edge, so growth stops there and an adaptive search
		 * brackets below it, within the budgets.
		 */
		prog_message(&a->prog, "load point failed: %s", p.reason);
		arm_fail(r, a, p.reason);
	}
	if (res_run_write(a->res, RES_RUNNING, err, sizeof(err)) ||
	    (r->have_index && abx_write(&r->index, err, sizeof(err)))) {
		fprintf(stderr, "jobmix run: %s\n", err);
		arm_fail(r, a, err);
		return -1;
	}
	/* Users that outlived SIGKILL may still hold the work area: no more points. */
	return a->prev.stuck_users ? -1 : 0;
}

/*
 * One step of an arm: every sample its ramp asks for at one user count (a
 * linear ramp's repeats), or until the ramp stops.  0, or -1 to stop all.
 */
static int arm_step(struct run *r, struct arm *a)
{
	struct ramp_decision d;
	unsigned users = 0;
	for (;;) {
		if (run_stop)
			return -1;
		if (a->have_pending) {
			d = a->pending;
			a->have_pending = false;
		} else {
			d = ramp_next(a->ramp, a->obs, a->nobs, a->samples, a->busy_s);
		}
		if (d.stop != RAMP_GOING) {
			a->done = true;
			return 0;
		}
		if (users && d.users != users) {
			a->pending = d;
			a->have_pending = true;
			return 0;
		}
		users = d.users;
		if (arm_enter(r, a))
			return -1;
		if (!a->warmed && r->wl->measure.warmup && arm_warmup(r, a, d.users))
			return -1;
		if (arm_measure(r, a, d))
			return -1;
	}
}

/*
 * Every arm of round `round` to its end, in the fair or sequential order.
 * Fair: the arms in lockstep, linear and adaptive alike: at each step every
 * arm that is not done measures its next user count (all the samples its
 * ramp asks there), in an order that reverses from step to step, so a slow
 * spell of the machine falls on every arm and not on the one that happens
 * to run then.
 */
static int run_round(struct run *r, unsigned round)
{
	size_t k = r->ab ? r->nsched : 1;
	unsigned order[RUN_MAX_SCHEDS];
	struct arm *arms = &r->arms[round * k];
	bool interleave = r->ab && r->order == RAMP_ORDER_FAIR;
	for (unsigned step = 0;; step++) {
		bool left = false;
		ramp_ab_order(r->order, (unsigned)k, round, interleave ? step : 0, order);
		for (size_t i = 0; i < k; i++) {
			struct arm *a = &arms[order[i]];
			while (!a->done) {
				if (arm_step(r, a))
					return -1;
				if (interleave)
					break;
			}
			left = left || !a->done;
		}
		if (!left)
			return 0;
	}
}

/*
 * With gnuplot present, the schedulers' JPM curves overlaid in one chart,
 * <index folder>/chart.png (what `jobmix plot` draws for these runs).
 */
static void run_ab_chart(struct run *r, const struct rep_report *rep)
{
	char err[512], path[PATH_MAX + 16];
	char *text = NULL;
	size_t len = 0;
	if (!r->have_index || !rep->ntable || !gp_available())
		return;
	snprintf(path, sizeof(path), "%s/chart.png", r->index.dir);
	if (plot_report_script(rep, 0, false, PLOT_PNG, &text, &len, err, sizeof(err)) ||
	    gp_render_file(text, len, r->index.dirfd, "chart.png", NULL, err, sizeof(err))) {
		fprintf(stderr, "jobmix run: the A/B chart: %s\n", err);
	} else {
		printf("chart: %s\n", path);
		abx_set_chart(&r->index, "chart.png");
		if (abx_write(&r->index, err, sizeof(err)))
			fprintf(stderr, "jobmix run: %s\n", err);
	}
	free(text);
}

/*
 * The comparison table that ends an A/B: the report's table over the arms'
 * run folders (one row per scheduler, rounds folded, marks against the
 * first scheduler), then what the device did under each scheduler.
 */
static void run_ab_table(struct run *r)
{
	if (r->o->verbosity < 0 || r->o->progress == PROG_JSON || r->o->progress == PROG_NONE)
		return;
	char *dirs[RUN_MAX_SCHEDS * 64];
	size_t nd = 0;
	for (size_t i = 0; i < r->narms && nd < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (r->arms[i].res)
			dirs[nd++] = (char *)res_run_dir(r->arms[i].res);
	if (!nd)
		return;
	struct runs rs;
	struct rep_report rep;
	struct rep_opts ro = { .order = r->scheds, .norder = r->nsched };
	char err[512];
	printf("\n");
	fflush(stdout);
	if (runs_load(&rs, dirs, nd, "run") == 0) {
		if (rep_build(rs.run, rs.n, &ro, &rep, err, sizeof(err)) == 0) {
			rep_render(stdout, &rep, REP_TEXT, NULL);
			run_ab_chart(r, &rep);
			rep_free(&rep);
		} else {
			fprintf(stderr, "jobmix run: the A/B table: %s\n", err);
		}
		runs_free(&rs);
	}

	size_t watch = 0;   /* the first held device's counters */
	for (size_t i = 0; i < r->dw.n; i++)
		if (r->sess.nholds && !strcmp(r->dw.name[i], r->sess.holds[0].dev))
			watch = i;
	if (!r->dw.n)
		return;
	char e[PATH_MAX * 4];   /* names and paths through esc_str (escape.h) */
	printf("\nDevice %s over every point's window (%s order, %u round%s)\n",
	       esc_str(e, sizeof(e), ESC_TEXT, r->dw.name[watch]), ramp_order_name(r->order),
	       r->o->rounds, r->o->rounds > 1 ? "s" : "");
	printf("%-12s %5s %9s %8s %8s %8s %8s %7s %6s %7s\n", "scheduler", "round", "IOPS", "MB/s",
	       "KiB/req", "KiB/rd", "KiB/wr", "merged", "util", "qdepth");
	for (size_t i = 0; i < r->narms; i++) {
		struct arm *a = &r->arms[i];
		if (!a->res)
			continue;
		struct sys_drate d;
		struct sys_dstat zero = { 0 };
		sys_dstat_rates(&zero, &a->dsum[watch], a->dsecs[watch], &d);
		printf("%-12s %5u %9.1f %8.2f %8.1f %8.1f %8.1f %6.1f%% %5.1f%% %7.2f\n",
		       esc_str(e, sizeof(e), ESC_TEXT, a->sched), a->round + 1, d.iops, d.mb_s, d.avg_req_kib, d.rd_req_kib, d.wr_req_kib,
		       100 * d.merge_ratio, 100 * d.util, d.avg_qdepth);
	}
	if (r->have_index)
		printf("index: %s/index.json\n", esc_str(e, sizeof(e), ESC_TEXT, r->index.dir));
}

/* "SIGINT", "SIGTERM", "SIGHUP" for what run_stop holds. */
static const char *run_signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a signal";
	}
}

/* Close every arm's run.json: final status, summary, whether the scheduler came back. */
static void run_finish_arms(struct run *r, enum res_status status)
{
	char err[512];
	for (size_t i = 0; i < r->narms; i++) {
		struct arm *a = &r->arms[i];
		if (!a->res)
			continue;
		/* interrupted says more than a failed point before it */
		enum res_status st = status == RES_INTERRUPTED || a->status == RES_RUNNING ?
				     status : a->status;
		struct ramp_summary sum;
		char why[300] = "";
		ramp_summarize(a->ramp, a->obs, a->nobs, &sum);
		/* a ramp stopped from outside: say why, not that it was still going */
		if (sum.stop_reason == RAMP_GOING && st == RES_INTERRUPTED) {
			sum.stop_reason = RAMP_INTERRUPTED;
			snprintf(why, sizeof(why), "%s", run_signal_name(run_stop));
		} else if (sum.stop_reason == RAMP_GOING && st == RES_FAILED) {
			sum.stop_reason = RAMP_FAILED;
			snprintf(why, sizeof(why), "%s", a->why[0] ? a->why : "an error (above)");
		} else if (sum.stop_reason == RAMP_FAILED && a->why[0]) {
			snprintf(why, sizeof(why), "%s", a->why);
		}
		if (rec_set_summary(a->res, a->obs, a->nobs, &sum, a->samples, a->busy_s))
			prog_message(&a->prog, "out of memory recording the summary");
		if (a->sched) {
			struct res_sched rs;
			res_sched_init(&rs);
			snprintf(rs.scheduler, sizeof(rs.scheduler), "%s", a->sched);
			session_devices(&r->sess, rs.devices, sizeof(rs.devices));
			session_originals(&r->sess, rs.original, sizeof(rs.original));
			snprintf(rs.order, sizeof(rs.order), "%s", ramp_order_name(r->order));
			rs.round = a->round;
			rs.restored = !r->sess.restore_failed;
			snprintf(rs.restore_error, sizeof(rs.restore_error), "%s",
				 r->sess.restore_error);
			if (r->have_index)
				snprintf(rs.ab_index, sizeof(rs.ab_index), "%s/index.json",
					 r->index.dir);
			if (res_run_set_sched(a->res, &rs))
				prog_message(&a->prog, "out of memory recording the scheduler");
		}
		if (res_run_write(a->res, st, err, sizeof(err))) {
			fprintf(stderr, "jobmix run: %s\n", err);
			if (r->rc == JM_EXIT_OK)
				r->rc = JM_EXIT_RUN_FAILED;
		}
		if (r->have_index)
			abx_set_run_status(&r->index, res_run_dir(a->res), res_status_name(st));
		prog_finish(&a->prog, res_status_name(st), &sum, why[0] ? why : NULL, a->samples);
	}
	if (r->have_index) {
		abx_set_end(&r->index, res_status_name(status), !r->sess.restore_failed,
			    r->sess.restore_error);
		if (abx_write(&r->index, err, sizeof(err))) {
			fprintf(stderr, "jobmix run: %s\n", err);
			if (r->rc == JM_EXIT_OK)
				r->rc = JM_EXIT_RUN_FAILED;
		}
	}
}

/* A user count the task limits cannot hold, refused naming where it came from. */
static int run_bad_tasks(const struct run *r, const char *why)
{
	if (r->o->users)
		return run_bad("-u %s: %s; lower -u", r->o->users, why);
	if (r->o->max_users)
		return run_bad("--max-users %s: %s; lower --max-users", r->o->max_users, why);
	return run_bad("users of %s: %s; lower users.end", r->wl_file, why);
}

/* Parse, load, check: everything that can be refused, before anything changes. 0 or exit code. */
static int run_prepare(struct run *r, unsigned **list, size_t *nlist)
{
	const struct run_opts *o = r->o;
	struct wl_error werr;
	char err[512], label[600];
	char *text = NULL;
	int lrc;
	if (o->jobspec) {
		/* an ad-hoc mix: made into workload text, loaded as a file would be */
		if (compat_adhoc(o->jobspec, &text, err, sizeof(err)))
			return run_bad("%s", err);
		snprintf(label, sizeof(label), "--job %s", o->jobspec);
		lrc = wl_load_buffer(label, text, strlen(text), r->wl, &werr);
		free(text);
	} else if (o->wl_text) {
		lrc = wl_load_buffer(o->wl_label, o->wl_text, strlen(o->wl_text), r->wl, &werr);
	} else {
		char where[8192];
		if (wlf_resolve(o->workload, r->wl_file, sizeof(r->wl_file), &r->wl_found, where,
				sizeof(where)))
			return run_bad("%s", where);
		lrc = wl_load(r->wl_file, r->wl, &werr);
	}
	if (lrc) {
		esc_put(stderr, ESC_TEXT, werr.msg);   /* the loader quotes the file (escape.h) */
		fputc('\n', stderr);
		return JM_EXIT_USAGE;
	}
	int rc = run_apply_overrides(o, r->wl);
	if (rc)
		return rc;
	if (o->timeout) {
		if (jm_parse_duration(o->timeout, &r->timeout, err, sizeof(err)))
			return run_bad("--timeout: %s", err);
		if (r->timeout <= 0)
			return run_bad("--timeout '%s': must be positive", o->timeout);
	}
	if (o->reap_timeout) {
		if (jm_parse_duration(o->reap_timeout, &r->reap_timeout, err, sizeof(err)))
			return run_bad("--reap-timeout: %s", err);
		if (r->reap_timeout <= 0)
			return run_bad("--reap-timeout '%s': must be positive", o->reap_timeout);
	}
	const struct workload *wl = r->wl;
	for (size_t i = 0; i < wl->ndirs; i++)
		if (load_workdir_check(wl->dirs[i], err, sizeof(err)))
			return run_bad("%s", err);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	r->ncpus = cpus > 0 ? (unsigned)cpus : 1;
	r->users = o->users;
	if (o->users) {
		if (ramp_users_resolve_cpus(o->users, r->ncpus, r->users_buf, sizeof(r->users_buf),
					    err, sizeof(err)))
			return run_bad("-u: %s", err);
		r->users = r->users_buf;
	}
	if (wl->users.mode == WL_RAMP_LINEAR || o->users) {
		rc = run_linear_list(r->users, o->users, wl, list, nlist);
		if (rc)
			return rc;
	}
	r->rcfg = (struct ramp_cfg){
		.mode = wl->users.mode, .list = *list, .nlist = *nlist,
		.start = wl->users.start, .growth = 2,
		.max_users = wl->users.mode == WL_RAMP_LINEAR && !o->max_users ? 0 : wl->users.end,
		.max_points = wl->users.max_points, .max_time_s = wl->users.max_time_s,
		.repeat = wl->users.repeat ? wl->users.repeat : 1,
		.repeat_auto = wl->users.repeat_auto,
		.converge_jpm_per_user = wl->users.converge_jpm_per_user,
		.converge_tol = RUN_CONVERGE_TOL,
		.points_seed = wl->seed,
	};
	if (o->points) {
		if (wl->users.mode != WL_RAMP_LINEAR)
			return run_bad("--order %s needs a linear ramp (-m linear)", o->points);
		r->rcfg.points = !strcmp(o->points, "shuffle") ? RAMP_POINTS_SHUFFLE :
				 !strcmp(o->points, "descending") ? RAMP_POINTS_DESCENDING :
				 RAMP_POINTS_ASCENDING;
	}
	if (wl->measure.drop_caches && !sys_can_drop_caches())
		return run_bad("dropping the page cache needs root (/proc/sys/vm/drop_caches)");
	bool auto_end = wl->users.mode != WL_RAMP_LINEAR && !*nlist && !r->rcfg.max_users;
	if (auto_end) {
		/* users.end: auto, bounded by what the machine and the limits allow */
		r->rcfg.max_users = load_max_users_by_limits(wl);
	}
	if (wl->users.mode != WL_RAMP_LINEAR && *nlist) {
		/* -u A-B with an adaptive mode: search within [A, B] */
		r->rcfg.start = (*list)[0];
		r->rcfg.max_users = (*list)[*nlist - 1];
		r->rcfg.list = NULL;
		r->rcfg.nlist = 0;
	}
	if (ramp_cfg_check(&r->rcfg, err, sizeof(err)))
		return run_bad("%s", err);
	/* the most users this run can reach must fit the kernel's and the process's limits */
	unsigned most = r->rcfg.max_users;
	for (size_t i = 0; i < *nlist; i++)
		if ((*list)[i] > most)
			most = (*list)[i];
	/* (an auto users.end is what the task limits hold; each point is checked again) */
	if (most && !auto_end && load_check_tasks(wl, most, err, sizeof(err)))
		return run_bad_tasks(r, err);
	if (most && load_fit_rlimits(wl, most, err, sizeof(err)))
		return run_bad("%s", err);
	if (o->scheds && geteuid() != 0)
		return run_bad("-s: switching IO schedulers needs root");
	rc = run_devices(r);
	if (rc)
		return rc;
	r->ab = o->scheds != NULL;
	r->order = o->sequential ? RAMP_ORDER_SEQUENTIAL : RAMP_ORDER_FAIR;
	if (r->ab) {
		rc = run_schedulers(r);
		if (rc)
			return rc;
	}
	size_t k = r->ab ? r->nsched : 1;
	r->narms = k * (r->ab ? o->rounds : 1);
	r->arms = calloc(r->narms, sizeof(*r->arms));
	if (!r->arms)
		return run_bad("out of memory");
	for (size_t i = 0; i < r->narms; i++) {
		struct arm *a = &r->arms[i];
		a->sched = r->ab ? r->scheds[i % k] : NULL;
		a->round = (unsigned)(i / k);
		a->status = RES_RUNNING;
		a->ramp = ramp_new(&r->rcfg);
		a->obs = calloc(RAMP_MAX_OBS, sizeof(*a->obs));
		if (!a->ramp || !a->obs)
			return run_bad("out of memory");
	}
	return 0;
}

static void run_free(struct run *r)
{
	for (size_t i = 0; r->arms && i < r->narms; i++) {
		struct arm *a = &r->arms[i];
		if (a->have_prev)
			load_point_free(&a->prev);
		res_run_free(a->res);
		ramp_free(a->ramp);
		free(a->obs);
	}
	free(r->arms);
	if (r->have_index)
		abx_free(&r->index);
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	int rc = run_parse_args(argc, argv, &o);
	if (rc)
		return rc < 0 ? JM_EXIT_OK : rc;
	return run_main(&o, argc, argv, NULL, 0);
}

int run_main(const struct run_opts *opts, int argc, char **argv, char *dir, size_t dirlen)
{
	struct run_opts o = *opts;
	struct workload wl = { 0 };
	struct run r = { .o = &o, .wl = &wl, .argc = argc, .argv = argv };
	unsigned *list = NULL;
	size_t nlist = 0;
	char err[512];
	int rc;

	if (dir && dirlen)
		dir[0] = 0;
	rc = run_prepare(&r, &list, &nlist);
	if (rc)
		goto out;

	/* Signals only set run_stop from here on; every path below releases the session. */
	struct sigaction sa = { .sa_handler = on_stop };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* A scheduler a killed jobmix left switched on this run's devices is put back first. */
	run_repair(&r);

	if (session_open_area(&r.sess, &wl, err, sizeof(err))) {
		fprintf(stderr, "jobmix run: %s\n", err);
		rc = JM_EXIT_USAGE;
		goto out;
	}
	sys_env_capture(r.sess.area.roots[0], &r.env);
	if (r.devs.n)
		sys_env_set_devices(&r.env, &r.devs);
	devwin_init(&r.dw, &r.devs);
	if (r.ab) {
		if (session_hold(&r.sess, &r.devs, err, sizeof(err))) {
			fprintf(stderr, "jobmix run: %s\n", err);
			rc = JM_EXIT_USAGE;
			goto out;
		}
		char devices[256], originals[256];
		session_devices(&r.sess, devices, sizeof(devices));
		session_originals(&r.sess, originals, sizeof(originals));
		if (abx_create(&r.index, o.outdir, wl.name, r.scheds, r.nsched, devices, originals,
			       ramp_order_name(r.order), wl_ramp_mode_name(r.rcfg.mode), o.rounds, err,
			       sizeof(err))) {
			fprintf(stderr, "jobmix run: %s\n", err);
			rc = JM_EXIT_USAGE;
			goto out;
		}
		r.have_index = true;
	}
	paths_find(&r.paths);

	r.rc = JM_EXIT_OK;
	for (unsigned round = 0; round < (r.ab ? o.rounds : 1); round++)
		if (run_round(&r, round))
			break;
	enum res_status status = r.rc == JM_EXIT_OK ? RES_COMPLETE : RES_FAILED;
	if (run_stop) {
		status = RES_INTERRUPTED;
		r.rc = run_stop == SIGTERM ? JM_EXIT_SIGTERM
		       : run_stop == SIGHUP ? JM_EXIT_SIGHUP : JM_EXIT_SIGINT;
	}
	/* The schedulers come back before anything is reported. */
	if (session_release_devices(&r.sess) && r.rc == JM_EXIT_OK)
		r.rc = JM_EXIT_RUN_FAILED;
	run_finish_arms(&r, status);
	if (r.ab)
		run_ab_table(&r);
	if (dir && dirlen && r.narms && r.arms[0].res)
		snprintf(dir, dirlen, "%s", res_run_dir(r.arms[0].res));
	rc = r.rc;
out:
	if (session_close(&r.sess) && rc == JM_EXIT_OK)
		rc = JM_EXIT_RUN_FAILED;
	run_free(&r);
	free(list);
	wl_free(&wl);
	return rc;
}
