// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running a plan (run.h).  A session (run_session.h) acquires the work
 * area, the devices of an A/B (lock, saved original scheduler) and the
 * scheduler switch, and releases them in reverse order on every path.
 *
 * A run has one arm, or for an IO-scheduler A/B one arm per scheduler and
 * round, each with its own ramp and run folder.  Each step asks an arm's
 * ramp for the next user count and measures it (run.json rewritten
 * atomically); the arms take turns in the order ramp_order.h defines.
 * Nothing here prints: everything goes up through the hooks.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "abindex.h"
#include "devwin.h"
#include "jobmix/exitcode.h"
#include "jobmix/load.h"
#include "jobmix/ramp.h"
#include "jobmix/ramp_order.h"
#include "jobmix/results.h"
#include "jobmix/run.h"
#include "jobmix/run_record.h"
#include "jobmix/run_session.h"
#include "jobmix/stats.h"
#include "jobmix/sys.h"
#include "jobmix/sys_knob.h"
#include "jobmix/sys_pstat.h"
#include "jobmix/sys_scratch.h"
#include "jobmix/sys_sched.h"
#include "jobmix/sys_settle.h"
#include "fit.h"

struct run;

/* The latest quiet samples the interference bound is the median of (stats.h). */
#define RUN_QUIET_KEEP 256

/* One ramp of the run, as it goes. */
struct arm {
	const char *sched;        /* NULL: no switch (a plain run) */
	const char *label;        /* the arm in the index: its scheduler or combination */
	const struct run_combo *combo;
	struct workload *wl;      /* its workload (its combination's) */
	bool axes_recorded;       /* its run.json has what its axes set */
	unsigned round;
	size_t idx;
	struct run *run;
	struct ramp *ramp;
	struct ramp_obs *obs;
	size_t nobs;
	unsigned samples;
	double busy_s;            /* wall time spent on this arm's points */
	double wall_s;            /* ... and in its steps: warm-up, waits, recording (the budget's) */
	struct ramp_decision pending;
	bool have_pending;
	bool done;
	bool warmed;              /* the warm-up pass ran (or is not wanted) */
	double quiet_wait_s;      /* --require-quiet before this point: waited; NAN not asked */
	int quiet;                /* ... a quiet second found (1), the wait ran out (0), -1 */
	bool last_noisy;          /* the last recorded point was noisy (machine.noisy) */
	double last_other_pct;    /* ... other work's share of the CPUs then */
	unsigned remeasured;      /* samples of this point discarded: other work over the bound */
	double disc_other_pct;    /* ... the most other work took in one; NAN none */
	double disc_jpm_sum;      /* ... their JPMs summed */
	enum res_status status;
	char why[256];            /* the first failure, for the stop reason */
	struct res_run *res;
	struct load_point prev;
	bool have_prev;
	struct run_arm_result *out;
};

/* Everything the steps share. */
struct run {
	const struct run_plan *p;
	const struct run_args *a;
	struct workload *wl;
	const struct run_hooks *h;
	volatile sig_atomic_t *stop;
	struct run_result *res;   /* what run_execute hands back */
	struct session sess;
	struct devwin dw;
	struct sys_env env;
	struct arm *arms;
	struct abindex index;
	bool have_index;
	bool header_done;
	int rc;                   /* the exit code so far */
	char sys_now[RUN_MAX_AXES][SYS_KNOB_VAL];   /* each system axis's value now, "" unset */
	char scratch_now[3][SYS_SCRATCH_OPTS];      /* the scratch fs, mkfs and mount options */
	bool scratch_made;                          /* ... made and mounted as they say */
	double quiet_pct[RUN_QUIET_KEEP];           /* other_pct of the latest quiet samples */
	size_t nquiet;                              /* ... recorded so far (a ring past KEEP) */
	bool sized;                                 /* --point-noise: the points were sized */
	struct res_sizing sizing;                   /* ... how: every arm's run.json "sizing" */
	double pilot_jpm[RUN_SIZE_PILOTS];          /* ... the kept pilots' JPMs */
};

static void __attribute__((format(printf, 4, 5)))
say(const struct run *r, size_t arm, enum run_msg kind, const char *fmt, ...)
{
	char text[1024];
	va_list ap;
	if (!r->h->message)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	r->h->message(r->h->arg, arm, kind, text);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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

static void run_repair_report(void *arg, enum sys_repair what, const char *msg)
{
	say(arg, RUN_NO_ARM, RUN_MSG_ERROR, "%s%s", what == SYS_REPAIR_FAILED ? "warning: " : "",
	    msg);
}

/*
 * A plain run acts on what a killed jobmix left on the devices its work
 * directories resolve to, and on no other (an A/B's hold does it for the
 * devices it switches).  Knob records and scratch mounts are acted on only
 * by the hold of the knob (run_hold_knobs, run_scratch_open): a value set
 * by hand since is not this run's to reset; the rest is named
 * (run_note_left) and left to `jobmix restore`.  Root only: the records are
 * root's.
 */
static void run_repair(struct run *r)
{
	struct sys_devset set = { 0 };
	char err[512];
	if (!r->p->repair)
		return;
	for (size_t i = 0; i < r->wl->ndirs; i++)
		if (sys_dev_resolve(r->wl->dirs[i], &set, err, sizeof(err))) {
			/* a work dir without a block device has nothing to repair */
		}
	for (size_t i = 0; i < set.n; i++)
		if (sys_sched_repair(set.dev[i].name, run_repair_report, r, err, sizeof(err)) < 0) {
			say(r, RUN_NO_ARM, RUN_MSG_ERROR,
			    "warning: scheduler records not acted on: %s", err);
			return;
		}
}

/* The scheduler record of an arm's run.json (end: as the run ends). */
static int arm_record_sched(struct run *r, struct arm *a, bool end)
{
	struct res_sched rs;
	res_sched_init(&rs);
	/* an arm of a matrix without a scheduler axis: the one left active */
	const char *sched = a->sched;
	for (size_t i = 0; !sched && i < r->p->devs.n; i++)
		if (r->p->devs.dev[i].settable)
			sched = r->p->active[i];
	/* the record's strings point at these while it is written */
	char devices[256], original[256], ab_index[PATH_MAX];
	rs.scheduler = sched ? sched : "";
	session_devices(&r->sess, devices, sizeof(devices));
	session_originals(&r->sess, original, sizeof(original));
	rs.devices = devices;
	rs.original = original;
	rs.order = ramp_order_name(r->p->order);
	rs.round = a->round;
	if (end) {
		rs.restored = !r->sess.restore_failed;
		rs.restore_error = r->sess.restore_error;
		rs.rounds_run = r->res->rounds;
		rs.until_decided = r->h->round_done ? r->res->stopped : "";
	}
	if (r->have_index) {
		snprintf(ab_index, sizeof(ab_index), "%s/index.json", r->index.dir);
		rs.ab_index = ab_index;
	}
	return res_run_set_sched(a->res, &rs);
}

/*
 * A matrix arm's axes into its run.json: every axis's value, and what each
 * system value on each target was set to, read back and will return to.
 */
static int arm_record_axes(struct run *r, struct arm *a)
{
	const struct run_plan *p = r->p;
	struct res_axis ax[RUN_MAX_AXES];
	struct res_axis_set set[SESSION_MAX_KNOBS];
	size_t nset = 0;
	if (!p->matrix)
		return 0;
	for (size_t i = 0; i < p->naxes; i++) {
		memset(&ax[i], 0, sizeof(ax[i]));
		snprintf(ax[i].key, sizeof(ax[i].key), "%s", p->axes[i].key);
		snprintf(ax[i].value, sizeof(ax[i].value), "%s", p->axes[i].vals[a->combo->val[i]]);
	}
	for (size_t k = 0; k < r->sess.nknobs; k++) {
		const struct sys_knob *kb = &r->sess.knobs[k];
		struct res_axis_set *st = &set[nset++];
		memset(st, 0, sizeof(*st));
		snprintf(st->key, sizeof(st->key), "%s", kb->key);
		snprintf(st->target, sizeof(st->target), "%s", kb->target);
		snprintf(st->value, sizeof(st->value), "%s", kb->current);
		snprintf(st->read_back, sizeof(st->read_back), "%s", r->sess.read_back[k]);
		snprintf(st->original, sizeof(st->original), "%s", kb->original);
	}
	return res_run_set_axes(a->res, ax, p->naxes, set, nset);
}

/* The run's sizing into the arm's run.json, with its sized workload.  0 or -1 (no memory). */
static int arm_record_sizing(struct run *r, struct arm *a)
{
	return res_run_set_sizing(a->res, &r->sizing, r->pilot_jpm, r->sizing.pilots,
				  rec_workload_json(a->wl));
}

/* Open the arm's run folder: run.json as it starts, the A/B index's entry, the progress. */
static int arm_open(struct run *r, struct arm *a)
{
	char err[512];
	/* the environment as this arm runs: its scheduler active, its tunables */
	struct sys_env env = r->env;
	if (r->p->devs.n)
		sys_env_set_devices(&env, &r->p->devs);
	if (r->p->matrix)   /* a mount axis may have remounted the work file system */
		sys_env_set_mount(&env, r->sess.area.roots[0]);
	char suffix[160];
	const char *name = r->p->matrix ? a->combo->suffix : a->sched;
	if (name && r->p->rounds > 1)
		snprintf(suffix, sizeof(suffix), "%s-r%u", name, a->round + 1);
	else
		snprintf(suffix, sizeof(suffix), "%s", name ? name : "");
	a->res = rec_run_create_named(r->a->outdir, a->wl, &env, r->a->labels, r->a->nlabels,
				      r->a->argc, r->a->argv, suffix, r->a->wl_found, err,
				      sizeof(err));
	if (!a->res) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		r->rc = JM_EXIT_USAGE;
		return -1;
	}
	a->out->opened = true;
	snprintf(a->out->dir, sizeof(a->out->dir), "%s", res_run_dir(a->res));
	if (r->a->users && res_run_set_users(a->res, r->a->users, r->p->ncpus, r->p->users)) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "out of memory recording the users");
		r->rc = JM_EXIT_RUN_FAILED;
		return -1;
	}
	if (a->label && (arm_record_sched(r, a, false) || arm_record_axes(r, a) ||
			 (r->have_index && abx_add_run(&r->index, a->label, a->round,
						       res_run_dir(a->res))))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "out of memory recording the scheduler");
		r->rc = JM_EXIT_RUN_FAILED;
		return -1;
	}
	if (r->sized && arm_record_sizing(r, a)) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "out of memory recording the sizing");
		r->rc = JM_EXIT_RUN_FAILED;
		return -1;
	}
	struct run_arm_info info = {
		.wl = a->wl, .env = &env, .dir = res_run_dir(a->res), .sched = a->sched,
		.tag = r->p->matrix ? a->combo->suffix : a->sched,
		.first = !r->header_done,
	};
	if (r->h->arm_open)
		r->h->arm_open(r->h->arg, a->idx, &info);
	r->header_done = true;
	if (res_run_write(a->res, RES_RUNNING, err, sizeof(err)) ||
	    (r->have_index && abx_write(&r->index, err, sizeof(err)))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		r->rc = JM_EXIT_RUN_FAILED;
		return -1;
	}
	return 0;
}

/* The scratch file system combination c asks for: {fs, mkfs options, mount options}. */
static void scratch_want(const struct run_plan *p, const struct run_combo *c, const char *want[3])
{
	want[0] = "ext4";
	want[1] = want[2] = "";
	for (size_t i = 0; p->matrix && i < p->naxes; i++) {
		const struct run_axis *ax = &p->axes[i];
		const char *v = ax->vals[c->val[i]];
		if (ax->kind != RUN_AXIS_SYS)
			continue;
		if (!strcmp(ax->key, "fs"))
			want[0] = v;
		else if (!strcmp(ax->key, "fs.mkfs"))
			want[1] = v;
		else if (!strcmp(ax->key, "mount"))
			want[2] = v;
	}
}

static bool scratch_same(const char *const x[3], const char *const y[3])
{
	return !strcmp(x[0], y[0]) && !strcmp(x[1], y[1]) && !strcmp(x[2], y[2]);
}

/*
 * The scratch file system as `want` says, unless it is so already: made
 * again (mkfs) when the file system or its mkfs options change, mounted
 * afresh when only the mount options do; the work area on it again when
 * wl.  0, or -1 with err.
 */
static int scratch_to(struct run *r, const char *const want[3], const struct workload *wl,
		      char *err, size_t errlen)
{
	bool mkfs = !r->scratch_made || strcmp(r->scratch_now[0], want[0]) ||
		    strcmp(r->scratch_now[1], want[1]);
	if (!mkfs && !strcmp(r->scratch_now[2], want[2]))
		return 0;
	r->scratch_made = false;
	if (session_scratch(&r->sess, r->p->scratch_hold, wl, want[0], mkfs, want[1], want[2], err,
			    errlen))
		return -1;
	for (int i = 0; i < 3; i++)
		snprintf(r->scratch_now[i], sizeof(r->scratch_now[i]), "%s", want[i]);
	r->scratch_made = true;
	return 0;
}

/*
 * --scratch: hold the device (its knob record: unmounted on every exit),
 * then make and mount, once each, every other file system the arms ask
 * for, so that a value mkfs or mount refuses stops the run before
 * anything else changes; the first arm's last, left mounted for the work
 * area.  0, or -1 with err.
 */
static int run_scratch_open(struct run *r, char *err, size_t errlen)
{
	const struct run_plan *p = r->p;
	const char *first[3], *w[3], *v[3];
	if (session_hold_knob(&r->sess, sys_knob_family("fs", true), "fs", p->scratch, err,
			      errlen))
		return -1;
	scratch_want(p, &p->combos[p->arms[0].combo], first);
	size_t tried = 0;
	for (size_t c = 0; c < p->ncombos; c++) {
		bool seen = false;
		scratch_want(p, &p->combos[c], w);
		for (size_t d = 0; d < c && !seen; d++) {
			scratch_want(p, &p->combos[d], v);
			seen = scratch_same(v, w);
		}
		if (seen || scratch_same(w, first))
			continue;
		if (scratch_to(r, w, NULL, err, errlen))
			return -1;
		tried++;
	}
	if (scratch_to(r, first, NULL, err, errlen))
		return -1;
	if (tried)
		say(r, RUN_NO_ARM, RUN_MSG_NOTE, "scratch %s: each of the %zu file systems the arms "
		    "ask for made and mounted once, as a check", p->scratch, tried + 1);
	return 0;
}

/*
 * Set the arm's system axes where another value is set now (the scratch
 * file system first); what each target read back is kept for the arm's
 * run.json (its first entry's).
 */
static int arm_set_axes(struct run *r, struct arm *a)
{
	char err[512];
	const struct run_plan *p = r->p;
	if (p->scratch[0] && !p->scratch_raw) {
		const char *want[3];
		scratch_want(p, a->combo, want);
		if (scratch_to(r, want, r->wl, err, sizeof(err))) {
			say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
			r->rc = JM_EXIT_RUN_FAILED;
			return -1;
		}
	}
	for (size_t i = 0; p->matrix && i < p->naxes; i++) {
		const struct run_axis *ax = &p->axes[i];
		const char *v = ax->vals[a->combo->val[i]];
		const struct sys_knob_family *f = ax->fam;
		if (ax->kind != RUN_AXIS_SYS || !strcmp(r->sys_now[i], v) || !f ||
		    f->on == SYS_KNOB_ON_SCRATCH)
			continue;
		if (session_set_knob(&r->sess, ax->key, v, err, sizeof(err))) {
			say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
			r->rc = JM_EXIT_RUN_FAILED;
			return -1;
		}
		snprintf(r->sys_now[i], sizeof(r->sys_now[i]), "%s", v);
		for (size_t k = 0; !a->res && k < r->sess.nknobs; k++) {
			const struct sys_knob *kb = &r->sess.knobs[k];
			if (!strcmp(kb->key, ax->key) && strcmp(r->sess.read_back[k], v))
				say(r, a->idx, RUN_MSG_NOTE, "%s=%s on %s reads back as '%s'", kb->key,
				    v, kb->target[0] ? kb->target : "the system",
				    r->sess.read_back[k]);
		}
	}
	return 0;
}

/*
 * A scheduler switch makes the device's elevator afresh, its tunables at
 * their defaults: the iosched axes' values are set again after it.
 */
static void run_forget_iosched(struct run *r)
{
	for (size_t i = 0; r->p->matrix && i < r->p->naxes; i++)
		if (r->p->axes[i].fam && r->p->axes[i].fam->sched_bound)
			r->sys_now[i][0] = 0;
}

/*
 * Switch to the arm's scheduler, then its axes (where others are set: an
 * iosched tunable under the scheduler it belongs to), and open its run
 * folder.
 */
static int arm_enter(struct run *r, struct arm *a)
{
	char err[512];
	if (a->sched && strcmp(r->sess.current, a->sched)) {
		if (session_switch(&r->sess, a->sched, err, sizeof(err))) {
			say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
			r->rc = JM_EXIT_RUN_FAILED;
			return -1;
		}
		run_forget_iosched(r);
	}
	if (arm_set_axes(r, a))
		return -1;
	uint64_t limit = a->wl->measure.mem_limit;
	if (limit && session_memcg(&r->sess, limit, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		r->rc = JM_EXIT_RUN_FAILED;
		return -1;
	}
	return a->res ? 0 : arm_open(r, a);
}

/* Add a point's device counters to the arm's sums. */
static void arm_add_devices(struct arm *a, const struct devwin *w)
{
	for (size_t i = 0; i < w->n; i++) {
		if (!w->ok[0][i] || !w->ok[1][i])
			continue;
		const struct sys_dstat *x = &w->at[0][i], *y = &w->at[1][i];
		struct sys_dstat *s = &a->out->dsum[i];
		s->rd_ios += y->rd_ios - x->rd_ios;
		s->wr_ios += y->wr_ios - x->wr_ios;
		s->rd_merges += y->rd_merges - x->rd_merges;
		s->wr_merges += y->wr_merges - x->wr_merges;
		s->rd_sectors += y->rd_sectors - x->rd_sectors;
		s->wr_sectors += y->wr_sectors - x->wr_sectors;
		s->fl_ios += y->fl_ios - x->fl_ios;
		s->io_ticks += y->io_ticks - x->io_ticks;
		s->time_in_queue += y->time_in_queue - x->time_in_queue;
		a->out->dsecs[i] += (double)(w->t[1] - w->t[0]) / 1e9;
	}
}

/* A point's block-layer times of device i into the arm's sums (the A/B's device table).  0 or -1. */
static int arm_add_blk(struct arm *a, size_t i, const struct res_blk *b)
{
	static const enum res_blk_what what[2] = { RES_BLK_SCHED, RES_BLK_DEV };
	for (int w = 0; b && w < 2; w++) {
		struct stats_hist **h = &a->out->blk[i][w];
		if (!*h && !(*h = calloc(1, sizeof(**h))))
			return -1;
		iotrace_hist_add(*h, b, what[w]);
	}
	return 0;
}

/*
 * load_cfg.settle: the run's settling (sys_settle) before a point's release;
 * under a memory limit the work files' cached pages are dropped first, so
 * that what the users read back is charged to their group (files the
 * parent prepared were charged to jobmix's).
 */
static int run_settle(void *arg, struct load_settle *rec, char *err, size_t errlen)
{
	struct arm *a = arg;
	const struct wl_measure_cfg *m = &a->wl->measure;
	struct session *sess = &a->run->sess;
	if (m->mem_limit && sess->have_area && load_area_settle(&sess->area)) {
		snprintf(err, errlen, "cannot drop the work files' cached pages for the memory limit");
		return -1;
	}
	struct sys_settle_rec sr;
	int rc = sys_settle(m->settle_timeout_s, m->drop_caches, &sr, err, errlen);
	*rec = (struct load_settle){
		.dirty_bytes = sr.dirty_bytes, .writeback_bytes = sr.writeback_bytes,
		.left_bytes = sr.left_bytes, .wait_s = sr.wait_s, .drained = sr.drained,
		.dropped = sr.dropped, .full = true,
	};
	return rc;
}

/* load_cfg.tick: the arm's progress tick, through the hooks. */
static void arm_tick(void *arg)
{
	struct arm *a = arg;
	a->run->h->tick(a->run->h->arg, a->idx);
}

/* The load point of `users` users of the run's workload, as measured or as a warm-up. */
static struct load_cfg run_point_cfg(struct run *r, struct arm *a, unsigned users)
{
	const struct run_hooks *h = r->h;
	bool ticks = h->tick && h->wants_ticks && h->wants_ticks(h->arg, a->idx);
	return (struct load_cfg){
		.wl = a->wl, .area = &r->sess.area, .users = users,
		.jobs_per_user = a->wl->users.jobs_per_user,
		.timeout_s = point_timeout(r->a->timeout_s, a->have_prev ? &a->prev : NULL, users),
		.reap_timeout_s = r->a->reap_timeout_s,
		.seed = a->wl->seed, .sample = samples_at(a->obs, a->nobs, users),
		.libexec_dir = r->a->libexec_dir, .measure = a->wl->measure.how,
		.duration_s = a->wl->measure.duration_s, .ramp_s = a->wl->measure.ramp_s,
		.steady_pct = a->wl->measure.steady_pct,
		.steady_windows = a->wl->measure.steady_windows,
		.tick = ticks ? arm_tick : NULL, .tick_arg = a,
		.mark = devwin_mark, .mark_arg = &r->dw,   /* devices and the machine */
		.settle = a->wl->measure.settle ? run_settle : NULL,
		.settle_arg = a,
		/* the users join the memory cgroup of an arm with a limit */
		.cgroup_fd = r->sess.have_memcg && a->wl->measure.mem_limit ?
			     r->sess.memcg.procs_fd : -1,
		/* each user's job entry, for the block tracer's requests by entry */
		.entry_tags = iotrace_tags(r->dw.tr), .entry_tags_mask = IOTRACE_TAGS_MASK,
	};
}

/*
 * A point under a memory limit whose users the group's OOM killer killed:
 * its reason says so ("user 3 killed by the memory cgroup's OOM killer
 * (memory.max 64M)"), not "killed by signal 9".  From the group's oom_kill
 * count (v2 memory.events, v1 memory.oom_control) before and after.
 */
static void run_name_oom(const struct sys_memcg *cg, const struct sys_memcg_stat *m0,
			 struct load_point *p)
{
	struct sys_memcg_stat m1;
	char limit[64], text[sizeof(p->reason)];
	int user, used = 0;
	sys_memcg_read(cg, &m1);
	if (!p->failed || !m0->ok || !m1.ok || m1.oom_kill <= m0->oom_kill)
		return;
	unsigned long long kills = (unsigned long long)(m1.oom_kill - m0->oom_kill);
	unsigned long long lim = (unsigned long long)cg->limit;
	snprintf(limit, sizeof(limit), "%s %llu%s", cg->version == 2 ? "memory.max" :
		 "memory.limit_in_bytes", lim % (1ull << 20) ? lim : lim >> 20,
		 lim % (1ull << 20) ? " bytes" : "M");
	if (sscanf(p->reason, "user %d killed by signal 9 (%*[^)])%n", &user, &used) == 1 && used)
		snprintf(text, sizeof(text), "user %d killed by the memory cgroup's OOM killer (%s; "
			 "%llu OOM kill%s in this point)%s", user, limit, kills, kills > 1 ? "s" : "",
			 p->reason + used);
	else
		snprintf(text, sizeof(text), "%s; the memory cgroup's OOM killer killed %llu "
			 "process%s in this point (%s)", p->reason, kills, kills > 1 ? "es" : "",
			 limit);
	snprintf(p->reason, sizeof(p->reason), "%s", text);
}

/* A point (or a warm-up) measured, the limits fitted first; an OOM kill named.  0 or -1. */
static int run_load_point(struct run *r, struct arm *a, const struct load_cfg *lc,
			  struct load_point *p, char *err, size_t errlen)
{
	const struct sys_memcg *cg = lc->cgroup_fd > 2 ? &r->sess.memcg : NULL;
	struct sys_memcg_stat m0;
	sys_memcg_read(cg, &m0);
	if (run_fit_limits(a->wl, lc->users, err, errlen) ||
	    load_run_point(lc, p, r->stop, err, errlen))
		return -1;
	if (cg)
		run_name_oom(cg, &m0, p);
	return 0;
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
	struct load_point p = { 0 };
	struct load_cfg lc = run_point_cfg(r, a, users);
	unsigned j = a->wl->users.jobs_per_user / 4;
	lc.jobs_per_user = j ? j : 1;
	bool timed = lc.measure == WL_MEASURE_TIME;
	if (timed) {
		lc.duration_s = wl_warmup_s(&a->wl->measure);
		lc.ramp_s = lc.steady_pct = 0;
	}
	lc.measure = timed ? WL_MEASURE_TIME : WL_MEASURE_JOBS;
	lc.mark = NULL;
	lc.sample = 0;
	a->warmed = true;
	if (timed)
		say(r, a->idx, RUN_MSG_NOTE, "warm-up: %u users for %g s (not recorded)", users,
		    lc.duration_s);
	else
		say(r, a->idx, RUN_MSG_NOTE, "warm-up: %u users, %u jobs each (not recorded)",
		    users, lc.jobs_per_user);
	if (run_load_point(r, a, &lc, &p, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "warm-up: %s", err);
		arm_fail(r, a, err);
		load_point_free(&p);
		return -1;
	}
	struct res_warmup w = {
		.users = users, .jobs_per_user = p.jobs_per_user, .elapsed_s = p.elapsed_s,
		.jpm = p.jpm, .failed = p.failed, .reason = p.reason,
	};
	bool interrupted = p.interrupted, failed = p.failed;
	load_point_free(&p);
	if (interrupted)
		return -1;
	if (res_run_set_warmup(a->res, &w)) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "out of memory recording the warm-up");
		arm_fail(r, a, "out of memory");
		return -1;
	}
	if (failed) {
		say(r, a->idx, RUN_MSG_ARM, "warm-up failed: %s", w.reason);
		arm_fail(r, a, w.reason);
		return -1;
	}
	return 0;
}

/* The machine over a point's window (devwin), the page cache's hits, the quiet wait. */
static void arm_machine(struct run *r, const struct arm *a, const struct load_point *p,
			struct res_machine *m)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	devwin_machine(&r->dw, p->user_cpu_s + p->sys_cpu_s, ncpu > 0 ? (unsigned)ncpu : 1, m);
	/* the page cache's hits: what the users read that the devices did not */
	double user_rd = 0, dev_rd;
	for (size_t e = 0; e < p->nentries; e++)
		user_rd += (double)p->entries[e].io.rbytes;
	if (user_rd > 0 && devwin_read_bytes(&r->dw, &dev_rd))
		m->cache_hit_pct = dev_rd >= user_rd ? 0 : 100 * (1 - dev_rd / user_rd);
	m->quiet_wait_s = a->quiet_wait_s;
	m->quiet = a->quiet;
}

/*
 * A sample other work disturbed beyond the bound (stats.h): true when it
 * is to be discarded and measured again (what it measured kept in the arm
 * for the sample that replaces it).  Else m gets the bound, the flag and
 * the discarded samples' figures, and a quiet sample joins the bound's
 * history.
 */
static bool arm_interfered(struct run *r, struct arm *a, const struct load_point *p,
			   struct res_machine *m)
{
	const struct wl_measure_cfg *mc = &a->wl->measure;
	size_t nq = r->nquiet < RUN_QUIET_KEEP ? r->nquiet : RUN_QUIET_KEEP;
	double bound = stats_interfere_bound(mc->interference_max_pct, r->quiet_pct, nq);
	enum stats_interfere_act act = p->failed || p->stuck_users ? STATS_IF_KEEP :
		stats_interfere_decide(m->other_pct, bound, a->remeasured, mc->remeasure);
	if (act == STATS_IF_REMEASURE) {
		a->remeasured++;
		if (!(a->disc_other_pct >= m->other_pct))
			a->disc_other_pct = m->other_pct;
		a->disc_jpm_sum += p->jpm;
		say(r, a->idx, RUN_MSG_NOTE, "%u users: other work took %.0f%% of the CPUs (bound "
		    "%.0f%%): measured again (%u of at most %u)", p->users, m->other_pct, bound,
		    a->remeasured, mc->remeasure);
		return true;
	}
	bool judged = isfinite(bound) && isfinite(m->other_pct);
	m->interference_max_pct = judged ? bound : NAN;
	m->interfered = judged ? act == STATS_IF_FLAG : -1;
	m->remeasured = a->remeasured;
	m->discarded_other_pct = a->remeasured ? a->disc_other_pct : NAN;
	m->discarded_jpm = a->remeasured ? a->disc_jpm_sum / a->remeasured : NAN;
	if (act == STATS_IF_FLAG)
		say(r, a->idx, RUN_MSG_NOTE, "%u users: other work took %.0f%% of the CPUs (bound "
		    "%.0f%%), no re-measure left: kept, flagged", p->users, m->other_pct, bound);
	else if (!p->failed && isfinite(m->other_pct))
		r->quiet_pct[r->nquiet++ % RUN_QUIET_KEEP] = m->other_pct;
	a->remeasured = 0;
	a->disc_other_pct = NAN;
	a->disc_jpm_sum = 0;
	return false;
}

/*
 * One pilot sample of --point-noise at `users`: measured as a point, not
 * recorded.  Other work over the interference bound (as arm_interfered
 * judges points) discards it, at most measure.remeasure times a pilot, so
 * that a disturbance does not pass for the mix's own noise; a kept quiet
 * pilot joins the bound's history.  0 with *jpm and *secs, 1 discarded,
 * -1 when the run must stop (r->rc set).
 */
static int run_pilot(struct run *r, struct arm *a, unsigned users, unsigned *redone,
		     double *jpm, double *secs)
{
	char err[512];
	const struct wl_measure_cfg *mc = &a->wl->measure;
	struct load_point p = { 0 };
	struct load_cfg lc = run_point_cfg(r, a, users);
	lc.tick = NULL;   /* no point of the progress's: it has not started one */
	lc.sample = 0;
	devwin_reset(&r->dw);
	r->dw.cg = lc.cgroup_fd > 2 ? &r->sess.memcg : NULL;
	a->quiet_wait_s = NAN;
	a->quiet = -1;
	if (run_load_point(r, a, &lc, &p, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "pilot sample: %s", err);
		arm_fail(r, a, err);
		load_point_free(&p);
		return -1;
	}
	if (p.interrupted || p.failed) {
		if (p.failed || p.stuck_users) {
			say(r, a->idx, RUN_MSG_ARM, "pilot sample failed: %s", p.reason);
			arm_fail(r, a, p.reason);
		}
		load_point_free(&p);
		return -1;
	}
	struct res_machine m;
	arm_machine(r, a, &p, &m);
	size_t nq = r->nquiet < RUN_QUIET_KEEP ? r->nquiet : RUN_QUIET_KEEP;
	double bound = stats_interfere_bound(mc->interference_max_pct, r->quiet_pct, nq);
	enum stats_interfere_act act = stats_interfere_decide(m.other_pct, bound, *redone,
							      mc->remeasure);
	*jpm = p.jpm;
	*secs = p.elapsed_s;
	load_point_free(&p);
	if (act == STATS_IF_REMEASURE) {
		++*redone;
		say(r, a->idx, RUN_MSG_NOTE, "pilot sample: other work took %.0f%% of the CPUs "
		    "(bound %.0f%%): taken again (%u of at most %u)", m.other_pct, bound, *redone,
		    mc->remeasure);
		return 1;
	}
	if (act == STATS_IF_FLAG)
		say(r, a->idx, RUN_MSG_NOTE, "pilot sample: other work took %.0f%% of the CPUs "
		    "(bound %.0f%%), no re-measure left: kept", m.other_pct, bound);
	else if (isfinite(m.other_pct))
		r->quiet_pct[r->nquiet++ % RUN_QUIET_KEEP] = m.other_pct;
	return 0;
}

/* Multiply the points of every workload the arms run (each once) by f: jobs or duration. */
static void run_size_apply(struct run *r, unsigned f)
{
	struct workload *done[RUN_MAX_COMBOS + 1];
	size_t ndone = 0;
	for (size_t i = 0; i <= r->p->ncombos; i++) {
		struct workload *wl = i < r->p->ncombos ? r->p->combos[i].wl : r->wl;
		bool seen = false;
		for (size_t k = 0; k < ndone; k++)
			seen = seen || done[k] == wl;
		if (seen || !wl)
			continue;
		done[ndone++] = wl;
		if (wl->measure.how == WL_MEASURE_TIME)
			wl->measure.duration_s *= f;
		else
			wl->users.jobs_per_user *= f;
	}
}

/*
 * --point-noise: once a run, before the first measured point, RUN_SIZE_PILOTS
 * pilot samples at its users on the arm that measures it first; their
 * relative sd against the target gives the factor (stats_size_factor)
 * every point of every arm is made larger by: its jobs per user (time
 * mode: its duration).  The size chosen is recorded in every arm's
 * run.json ("sizing", and the workload it resolves: the fingerprint
 * follows).  0, or -1 when the run must stop (r->rc set).
 */
static int run_size_points(struct run *r, struct arm *a, unsigned users)
{
	const struct workload *wl = a->wl;
	bool timed = wl->measure.how == WL_MEASURE_TIME;
	double secs[RUN_SIZE_PILOTS], s;
	unsigned redone = 0, tries = 0;
	size_t n = 0;
	r->sized = true;
	say(r, a->idx, RUN_MSG_NOTE, "sizing the points: %d pilot samples of %u users (not "
	    "recorded), target %g%% relative sd", RUN_SIZE_PILOTS, users, wl->measure.point_noise_pct);
	while (n < RUN_SIZE_PILOTS) {
		if (*r->stop)
			return -1;
		int rc = run_pilot(r, a, users, &tries, &r->pilot_jpm[n], &s);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			redone++;
			continue;
		}
		secs[n++] = s;
		tries = 0;   /* the re-measures are counted a pilot, as a point's */
	}
	double mean = stats_mean(r->pilot_jpm, n);
	double sd_pct = mean > 0 ? 100 * stats_stddev(r->pilot_jpm, n) / mean : NAN;
	double point_s = timed ? wl->measure.duration_s : stats_mean(secs, n);
	double max_s = RUN_SIZE_MAX_POINT_S;
	if (wl->users.max_time_s > 0 && wl->users.max_time_s / 10 < max_s)
		max_s = wl->users.max_time_s / 10;   /* a budget is not spent on a few points */
	if (max_s < point_s)
		max_s = point_s;
	struct stats_sizing f;
	stats_size_factor(sd_pct, wl->measure.point_noise_pct, point_s, max_s, &f);
	r->sizing = (struct res_sizing){
		.target_pct = wl->measure.point_noise_pct, .users = users, .pilots = (unsigned)n,
		.redone = redone, .mean_jpm = mean, .sd_pct = sd_pct, .pilot_s = stats_mean(secs, n),
		.wanted = f.wanted, .factor = f.factor, .capped = f.capped_max || f.capped_time,
		.max_point_s = max_s, .measure = timed ? "time" : "jobs",
		.jobs_per_user_asked = wl->users.jobs_per_user,
		.duration_asked_s = timed ? wl->measure.duration_s : NAN,
	};
	run_size_apply(r, f.factor);
	r->sizing.jobs_per_user = wl->users.jobs_per_user;
	r->sizing.duration_s = timed ? wl->measure.duration_s : NAN;
	char size[64], cap[96] = "";
	if (timed)
		snprintf(size, sizeof(size), "%g s a point", wl->measure.duration_s);
	else
		snprintf(size, sizeof(size), "%u jobs a user", wl->users.jobs_per_user);
	if (f.capped_time)
		snprintf(cap, sizeof(cap), " (the noise asked x%u: capped so that a point stays "
			 "within %.0f s)", f.wanted, max_s);
	else if (f.capped_max)
		snprintf(cap, sizeof(cap), " (the noise asked x%u: capped at x%u)", f.wanted,
			 STATS_SIZE_MAX);
	if (f.factor > 1 || f.wanted > 1)
		say(r, a->idx, RUN_MSG_NOTE, "points sized x%u: pilots %.1f%% sd > %g%% target: %s%s",
		    f.factor, sd_pct, wl->measure.point_noise_pct, size, cap);
	else
		say(r, a->idx, RUN_MSG_NOTE, "points as asked (x1): pilots %.1f%% sd <= %g%% target: "
		    "%s", sd_pct, wl->measure.point_noise_pct, size);
	for (size_t i = 0; i < r->p->narms; i++)
		if (r->arms[i].res && arm_record_sizing(r, &r->arms[i])) {
			say(r, RUN_NO_ARM, RUN_MSG_ERROR, "out of memory recording the sizing");
			arm_fail(r, a, "out of memory");
			return -1;
		}
	return 0;
}

/* The block tracer's figures of n devices freed. */
static void nd_free(struct res_dev *rd, size_t n)
{
	for (size_t i = 0; i < n; i++)
		res_blk_free(rd[i].blk);
}

/*
 * The tracer's rows by entry named by the arm's mix ("other" is named);
 * rows past its mix (another arm's larger one) dropped.
 */
static void arm_name_rows(const struct arm *a, struct res_blk *b)
{
	size_t n = 0;
	for (size_t i = 0; b && i < b->nent; i++) {
		int e = b->ent[i].entry;
		if (e >= 0 && (size_t)e >= a->wl->nmix)
			continue;
		b->ent[n] = b->ent[i];
		if (e >= 0)
			snprintf(b->ent[n].name, sizeof(b->ent[n].name), "%s", a->wl->mix[e].name);
		n++;
	}
	if (b)
		b->nent = n;
}

/* A measured point into the arm's run.json and the A/B index; the hooks told.  0 or -1. */
static int arm_record(struct run *r, struct arm *a, const struct load_point *p, unsigned sample,
		      const struct res_machine *m)
{
	struct res_dev rd[SYS_MAX_DEVS];
	struct sys_drate rate[SYS_MAX_DEVS];
	bool have[SYS_MAX_DEVS];
	const char *names[SYS_MAX_DEVS];
	const struct res_blk *blk[SYS_MAX_DEVS] = { NULL };
	size_t nd = 0;
	bool nomem = false;
	for (size_t i = 0; i < r->dw.n; i++) {
		names[i] = r->dw.name[i];
		have[i] = devwin_rates(&r->dw, i, &rate[i]);
		if (!have[i])
			continue;
		rec_dev(r->dw.name[i], &rate[i], &rd[nd]);
		nomem |= devwin_trace(&r->dw, i, &rd[nd]) != 0;
		arm_name_rows(a, rd[nd].blk);
		blk[i] = rd[nd].blk;
		if (!p->failed)
			nomem |= arm_add_blk(a, i, rd[nd].blk);
		nd++;
	}
	if (!p->failed)
		arm_add_devices(a, &r->dw);
	a->last_noisy = m->noisy == 1 && !p->failed;
	a->last_other_pct = m->other_pct;
	nomem = nomem || rec_add_point_devs(a->res, p, sample, a->wl, r->p->work_dev, rd, nd, m);
	if (nomem ||
	    (r->have_index && abx_add_point(&r->index, a->label, a->round, p->users, sample))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "out of memory recording a point");
		arm_fail(r, a, "out of memory");
		nd_free(rd, nd);
		return -1;
	}
	record_obs(a->obs, &a->nobs, p);
	if (r->h->point_done)
		r->h->point_done(r->h->arg, a->idx, p, a->wl, names, rate, have, blk, r->dw.n, m);
	nd_free(rd, nd);
	return 0;
}

/*
 * Measure one point of arm a at decision d and record it.  0, 1 when other
 * work disturbed it and it is to be measured again (not recorded), or -1
 * when the run must stop (failure, interruption; r->rc set).
 */
static int arm_measure(struct run *r, struct arm *a, struct ramp_decision d)
{
	char err[512];
	struct load_point p = { 0 };
	struct load_cfg lc = run_point_cfg(r, a, d.users);
	uint64_t t_all = now_ns();
	devwin_reset(&r->dw);
	r->dw.cg = lc.cgroup_fd > 2 ? &r->sess.memcg : NULL;
	if (r->h->point_start)
		r->h->point_start(r->h->arg, a->idx, d.phase, d.users, a->samples + 1, lc.sample);
	a->quiet_wait_s = NAN;
	a->quiet = -1;
	if (a->wl->measure.require_quiet_s > 0) {
		/* a quiet machine first: at most the wait asked, sleeping, the users not forked */
		double waited, pct;
		a->quiet = sys_wait_quiet(a->wl->measure.require_quiet_s, RES_NOISY_PCT, r->stop,
					  &waited, &pct);
		a->quiet_wait_s = waited;
		if (!a->quiet && !*r->stop)
			say(r, a->idx, RUN_MSG_NOTE, "no quiet second in %.0f s before %u users (other "
			    "work took %.0f%% of the CPUs): measured anyway", waited, d.users, pct);
	}
	uint64_t t0 = now_ns();
	/* the limits made room for (fit.c) before the point forks */
	if (run_load_point(r, a, &lc, &p, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		arm_fail(r, a, err);
		load_point_free(&p);
		return -1;
	}
	a->busy_s += (double)(now_ns() - t0) / 1e9;
	if (p.interrupted) {
		/* an interrupted point is not a measurement: keep it out */
		if (p.stuck_users) {
			say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", p.reason);
			arm_fail(r, a, p.reason);
		}
		load_point_free(&p);
		return -1;
	}
	struct res_machine m;
	arm_machine(r, a, &p, &m);
	if (arm_interfered(r, a, &p, &m)) {
		load_point_free(&p);
		return 1;
	}
	a->samples++;
	if (arm_record(r, a, &p, lc.sample, &m)) {
		load_point_free(&p);
		return -1;
	}
	/* what the sample took, waits and recording included: the next one's prediction */
	for (size_t i = 0; i < a->nobs; i++)
		if (a->obs[i].users == d.users)
			a->obs[i].secs += (double)(now_ns() - t_all) / 1e9;
	if (a->have_prev)
		load_point_free(&a->prev);
	a->prev = p;
	a->have_prev = true;
	struct ramp_summary sum;
	ramp_summarize(a->ramp, a->obs, a->nobs, &sum);
	if (rec_set_summary(a->res, a->obs, a->nobs, &sum, a->samples, a->busy_s))
		say(r, a->idx, RUN_MSG_ARM, "out of memory recording the summary");
	if (p.failed) {
		/*
		 * Recorded, and the run will say a point failed (status failed,
		 * exit 3), but the ramp decides what comes next: a failed point
		 * is past the edge, so growth stops there and an adaptive search
		 * brackets below it, within the budgets.
		 */
		say(r, a->idx, RUN_MSG_ARM, "load point failed: %s", p.reason);
		arm_fail(r, a, p.reason);
	}
	if (res_run_write(a->res, RES_RUNNING, err, sizeof(err)) ||
	    (r->have_index && abx_write(&r->index, err, sizeof(err)))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
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
static int arm_step_in(struct run *r, struct arm *a, uint64_t t0)
{
	struct ramp_decision d;
	unsigned users = 0;
	for (;;) {
		if (*r->stop)
			return -1;
		if (a->have_pending) {
			d = a->pending;
			a->have_pending = false;
		} else {
			/* the budget is wall time: the arm's steps so far and this one's */
			d = ramp_next(a->ramp, a->obs, a->nobs, a->samples,
				      a->wall_s + (double)(now_ns() - t0) / 1e9);
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
		if (!a->warmed && a->wl->measure.warmup && arm_warmup(r, a, d.users))
			return -1;
		if (!r->sized && a->wl->measure.point_noise_pct > 0 &&
		    run_size_points(r, a, d.users))
			return -1;
		int rc = arm_measure(r, a, d);
		if (rc < 0)
			return -1;
		if (rc > 0) {   /* other work over the bound: the same point again */
			a->pending = d;
			a->have_pending = true;
			continue;
		}
		/*
		 * -r auto: a point other work disturbed is measured once more (both
		 * samples kept and folded), within this step, before the ramp decides
		 */
		if (a->wl->users.repeat_auto && a->last_noisy &&
		    samples_at(a->obs, a->nobs, d.users) == 1) {
			say(r, a->idx, RUN_MSG_NOTE, "%u users: noisy (other work took %.0f%% of the "
			    "CPUs): measured again (-r auto)", d.users, a->last_other_pct);
			a->pending = d;
			a->have_pending = true;
		}
	}
}

static int arm_step(struct run *r, struct arm *a)
{
	uint64_t t0 = now_ns();
	int rc = arm_step_in(r, a, t0);
	a->wall_s += (double)(now_ns() - t0) / 1e9;
	return rc;
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
	size_t k = r->p->matrix ? r->p->ncombos : r->p->ab ? r->p->nsched : 1;
	unsigned order[RUN_MAX_COMBOS > RUN_MAX_SCHEDS ? RUN_MAX_COMBOS : RUN_MAX_SCHEDS];
	struct arm *arms = &r->arms[round * k];
	bool interleave = r->p->ab && r->p->order == RAMP_ORDER_FAIR;
	for (unsigned step = 0;; step++) {
		bool left = false;
		ramp_ab_order(r->p->order, (unsigned)k, round, interleave ? step : 0, order);
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

/* "SIGINT", "SIGUSR1", ... for what stop holds. */
static const char *run_signal_name(int sig)
{
	const char *abbrev = sig > 0 ? sigabbrev_np(sig) : NULL;
	static char name[32];
	if (!abbrev)
		return "a signal";
	snprintf(name, sizeof(name), "SIG%s", abbrev);
	return name;
}

/* Close one arm's run.json: final status, summary, whether the scheduler came back. */
static void run_finish_arm(struct run *r, struct arm *a, enum res_status status)
{
	char err[512];
	/* interrupted says more than a failed point before it */
	enum res_status st = status == RES_INTERRUPTED || a->status == RES_RUNNING ?
			     status : a->status;
	struct ramp_summary sum;
	char why[300] = "";
	ramp_summarize(a->ramp, a->obs, a->nobs, &sum);
	/* a ramp stopped from outside: say why, not that it was still going */
	if (sum.stop_reason == RAMP_GOING && st == RES_INTERRUPTED) {
		sum.stop_reason = RAMP_INTERRUPTED;
		snprintf(why, sizeof(why), "%s", run_signal_name(*r->stop));
	} else if (sum.stop_reason == RAMP_GOING && st == RES_FAILED) {
		sum.stop_reason = RAMP_FAILED;
		snprintf(why, sizeof(why), "%s", a->why[0] ? a->why : "an error (above)");
	} else if (sum.stop_reason == RAMP_FAILED && a->why[0]) {
		snprintf(why, sizeof(why), "%s", a->why);
	}
	if (rec_set_summary(a->res, a->obs, a->nobs, &sum, a->samples, a->busy_s))
		say(r, a->idx, RUN_MSG_ARM, "out of memory recording the summary");
	if (a->label && arm_record_sched(r, a, true))
		say(r, a->idx, RUN_MSG_ARM, "out of memory recording the scheduler");
	if (res_run_write(a->res, st, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		if (r->rc == JM_EXIT_OK)
			r->rc = JM_EXIT_RUN_FAILED;
	}
	if (r->have_index)
		abx_set_run_status(&r->index, res_run_dir(a->res), res_status_name(st));
	if (r->h->arm_done)
		r->h->arm_done(r->h->arg, a->idx, res_status_name(st), &sum, why[0] ? why : NULL,
			       a->samples);
}

/* Close every arm's run.json and the A/B index. */
static void run_finish_arms(struct run *r, enum res_status status)
{
	char err[512];
	for (size_t i = 0; i < r->p->narms; i++)
		if (r->arms[i].res)
			run_finish_arm(r, &r->arms[i], status);
	if (r->have_index) {
		abx_set_end(&r->index, res_status_name(status), !r->sess.restore_failed,
			    r->sess.restore_error);
		if (abx_write(&r->index, err, sizeof(err))) {
			say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
			if (r->rc == JM_EXIT_OK)
				r->rc = JM_EXIT_RUN_FAILED;
		}
	}
}

/* The arms' state and their results records.  0 or -1 (out of memory). */
static int run_arms_new(struct run *r, struct run_result *res)
{
	const struct run_plan *p = r->p;
	r->arms = calloc(p->narms, sizeof(*r->arms));
	res->arms = calloc(p->narms, sizeof(*res->arms));
	if (!r->arms || !res->arms)
		return -1;
	res->narms = p->narms;
	for (size_t i = 0; i < p->narms; i++) {
		struct arm *a = &r->arms[i];
		a->sched = p->arms[i].sched;
		a->round = p->arms[i].round;
		a->combo = &p->combos[p->arms[i].combo];
		a->wl = a->combo->wl;
		a->label = p->matrix ? a->combo->label : a->sched;
		a->idx = i;
		a->run = r;
		a->status = RES_RUNNING;
		a->disc_other_pct = NAN;
		a->out = &res->arms[i];
		a->out->sched = a->sched;
		a->out->round = a->round;
		a->ramp = ramp_new(&p->rcfg);
		a->obs = calloc(RAMP_MAX_OBS, sizeof(*a->obs));
		if (!a->ramp || !a->obs)
			return -1;
	}
	return 0;
}

static void run_arms_free(struct run *r)
{
	for (size_t i = 0; r->arms && i < r->p->narms; i++) {
		struct arm *a = &r->arms[i];
		if (a->have_prev)
			load_point_free(&a->prev);
		res_run_free(a->res);
		ramp_free(a->ramp);
		free(a->obs);
	}
	free(r->arms);
}

/*
 * Hold every system value the matrix varies, before anything changes:
 * a queue attribute on each watched device, a sysctl once, the mount of
 * each work directory once.  0, or -1 with err (the session releases what
 * was held).
 */
static int run_hold_knobs(struct run *r, char *err, size_t errlen)
{
	const struct run_plan *p = r->p;
	for (size_t i = 0; p->matrix && i < p->naxes; i++) {
		const struct run_axis *ax = &p->axes[i];
		if (ax->kind != RUN_AXIS_SYS)
			continue;
		const struct sys_knob_family *f = ax->fam;
		if (!f || f->on == SYS_KNOB_ON_SCRATCH)
			continue;   /* the scratch file system's (run_scratch_open) */
		size_t n = f->on == SYS_KNOB_ON_DEVICES ? p->devs.n :
			   f->on == SYS_KNOB_ON_MOUNTS ? r->wl->ndirs : 1;
		for (size_t t = 0; t < n; t++) {
			const char *target = f->on == SYS_KNOB_ON_DEVICES ? p->devs.dev[t].name :
					     f->on == SYS_KNOB_ON_MOUNTS ? r->sess.area.roots[t] : "";
			if (f->on == SYS_KNOB_ON_MOUNTS && session_holds_mount(&r->sess, target))
				continue;   /* two work directories on one mount */
			if (session_hold_knob(&r->sess, f, ax->key, target, err, errlen))
				return -1;
		}
	}
	return 0;
}

/* An A/B: hold its devices and knobs, and make its index.  0 or an exit code. */
static int run_ab_open(struct run *r, struct run_result *res)
{
	const struct run_plan *p = r->p;
	char err[512], devices[256], originals[256];
	if (p->nsched && session_hold(&r->sess, &p->devs, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		return JM_EXIT_USAGE;
	}
	if (run_hold_knobs(r, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		return JM_EXIT_USAGE;
	}
	session_devices(&r->sess, devices, sizeof(devices));
	session_originals(&r->sess, originals, sizeof(originals));
	const char *labels[RUN_MAX_COMBOS];
	for (size_t i = 0; p->matrix && i < p->ncombos; i++)
		labels[i] = p->combos[i].label;
	if (abx_create(&r->index, r->a->outdir, r->wl->name, p->matrix ? labels : p->scheds,
		       p->matrix ? p->ncombos : p->nsched, p->matrix, devices,
		       originals, ramp_order_name(p->order), wl_ramp_mode_name(p->rcfg.mode),
		       p->rounds, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		return JM_EXIT_USAGE;
	}
	r->have_index = true;
	res->index = malloc(sizeof(*res->index));
	if (!res->index) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "out of memory");
		return JM_EXIT_RUN_FAILED;
	}
	return 0;
}

/* session.say: the session's messages, as the engine's. */
static void run_session_say(void *arg, const char *text)
{
	say(arg, RUN_NO_ARM, RUN_MSG_ERROR, "%s", text);
}

/* Knob records killed runs left that this run did not hold: named, left to `jobmix restore`. */
static void run_note_left(struct run *r)
{
	char names[768];
	int n = geteuid() == 0 ? sys_knob_left(names, sizeof(names)) : 0;
	if (n > 0)
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "warning: %d value%s a killed jobmix left changed "
		    "(not this run's to put back; `jobmix restore` acts on %s): %s", n,
		    n > 1 ? "s" : "", n > 1 ? "them" : "it", names);
}

/*
 * The block tracer on the watched devices (iotrace.h), unless --no-trace:
 * when it cannot be, one line says why and the run goes on without.
 */
static void run_trace_open(struct run *r)
{
	char why[256];
	const char *names[SYS_MAX_DEVS];
	size_t nentries = 0;     /* the requests by entry: rows for the largest mix */
	if (r->a->no_trace || !r->dw.n)
		return;
	for (size_t i = 0; i < r->dw.n; i++)
		names[i] = r->dw.name[i];
	for (size_t i = 0; i < r->p->narms; i++)
		if (r->arms[i].wl->nmix > nentries)
			nentries = r->arms[i].wl->nmix;
	r->dw.tr = iotrace_open(names, r->dw.n, nentries,
				 r->a->trace_sample ? r->a->trace_sample : IOTRACE_SAMPLE, why,
				 sizeof(why));
	if (!r->dw.tr)
		say(r, RUN_NO_ARM, RUN_MSG_NOTE, "%s", why);
}

/* Acquire the session (work area, devices); 0 or an exit code. */
static int run_open(struct run *r, struct run_result *res)
{
	const struct run_plan *p = r->p;
	char err[512];
	if (run_arms_new(r, res)) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "out of memory");
		return JM_EXIT_USAGE;
	}
	/* A scheduler a killed jobmix left switched on this run's devices is put back first. */
	run_repair(r);
	if (p->scratch[0] && !p->scratch_raw && run_scratch_open(r, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		/* a value mkfs or mount refuses is the command line's; another device is not */
		return p->scratch_hold->changed ? JM_EXIT_RUN_FAILED : JM_EXIT_USAGE;
	}
	if (session_open_area(&r->sess, r->wl, err, sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		return JM_EXIT_USAGE;
	}
	if (p->memcg && session_memcg(&r->sess, p->mem_limit ? p->mem_limit : SYS_MEMCG_MIN, err,
				      sizeof(err))) {
		say(r, RUN_NO_ARM, RUN_MSG_ERROR, "%s", err);
		return JM_EXIT_USAGE;
	}
	sys_env_capture(r->sess.area.roots[0], &r->env);
	if (p->devs.n)
		sys_env_set_devices(&r->env, &p->devs);
	devwin_init(&r->dw, &p->devs);
	run_trace_open(r);
	res->ndevs = r->dw.n;
	for (size_t i = 0; i < r->dw.n; i++)
		snprintf(res->dev[i], sizeof(res->dev[i]), "%s", r->dw.name[i]);
	int rc = p->ab ? run_ab_open(r, res) : 0;
	if (!rc)
		run_note_left(r);
	return rc;
}

/* Measure every round; the schedulers back; every run.json closed.  The exit code. */
static int run_measure(struct run *r)
{
	r->rc = JM_EXIT_OK;
	for (unsigned round = 0; round < r->p->rounds; round++) {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (run_round(r, round))
			break;
		r->res->rounds = round + 1;
		if (!r->h->round_done || *r->stop)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		const char *why = r->h->round_done(r->h->arg, round + 1, (double)(t1.tv_sec - t0.tv_sec) +
						   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (why) {
			snprintf(r->res->stopped, sizeof(r->res->stopped), "%s", why);
			break;
		}
	}
	if (r->have_index)
		abx_set_rounds(&r->index, r->res->rounds, r->h->round_done ? r->res->stopped : NULL);
	enum res_status status = r->rc == JM_EXIT_OK ? RES_COMPLETE : RES_FAILED;
	if (*r->stop) {
		status = RES_INTERRUPTED;
		r->rc = *r->stop == SIGTERM ? JM_EXIT_SIGTERM
			: *r->stop == SIGHUP ? JM_EXIT_SIGHUP : JM_EXIT_SIGINT;
	}
	/* The schedulers come back before anything is reported. */
	if (session_release_devices(&r->sess) && r->rc == JM_EXIT_OK)
		r->rc = JM_EXIT_RUN_FAILED;
	run_finish_arms(r, status);
	return r->rc;
}

int run_execute(const struct run_plan *p, const struct run_hooks *h,
		volatile sig_atomic_t *stop, struct run_result *res)
{
	struct run r = {
		.p = p, .a = p->args, .wl = p->wl, .h = h, .stop = stop, .res = res,
	};
	r.sess.say = run_session_say;
	r.sess.say_arg = &r;
	*res = (struct run_result){ .index_dirfd = -1 };
	int rc = run_open(&r, res);
	if (!rc)
		rc = run_measure(&r);
	if (r.have_index) {
		/* the index stays open for the caller's chart (run_result_set_chart) */
		res->have_index = true;
		snprintf(res->index_dir, sizeof(res->index_dir), "%s", r.index.dir);
		res->index_dirfd = r.index.dirfd;
		if (res->index)
			*res->index = r.index;
		else
			abx_free(&r.index);
	}
	for (size_t i = 0; i < r.dw.n; i++)
		if (r.sess.nholds && !strcmp(r.dw.name[i], r.sess.holds[0].dev))
			res->watch = i;
	if (session_close(&r.sess) && rc == JM_EXIT_OK)
		rc = JM_EXIT_RUN_FAILED;
	iotrace_close(r.dw.tr);
	run_arms_free(&r);
	res->rc = rc;
	return rc;
}

int run_result_set_chart(struct run_result *res, const char *name, char *err, size_t errlen)
{
	if (!res->index) {
		snprintf(err, errlen, "no A/B index");
		return -1;
	}
	abx_set_chart(res->index, name);
	return abx_write(res->index, err, errlen);
}

void run_result_free(struct run_result *res)
{
	if (res->index) {
		abx_free(res->index);
		free(res->index);
	}
	for (size_t i = 0; res->arms && i < res->narms; i++)
		for (size_t d = 0; d < SYS_MAX_DEVS; d++) {
			free(res->arms[i].blk[d][0]);
			free(res->arms[i].blk[d][1]);
		}
	free(res->arms);
	*res = (struct run_result){ .index_dirfd = -1 };
}
