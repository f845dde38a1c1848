// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run's plan: the command line's settings on top of the loaded workload,
 * then everything that can be refused (users, ramp budgets, the limits,
 * devices, schedulers) checked and made typed, before anything is created
 * on disk or changed in /sys.  Reads the system, changes nothing.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "jobmix/exitcode.h"
#include "jobmix/job.h"
#include "jobmix/load.h"
#include "jobmix/ramp.h"
#include "jobmix/run.h"
#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "jobmix/parse.h"
#include "jobmix/sys_knob.h"
#include "jobmix/sys_memcg.h"
#include "jobmix/sys_scratch.h"
#include "jobmix/sys_sched.h"
#include "jobmix/sys_settle.h"
#include "jobmix/wl_keys.h"
#include "jobmix/workload.h"
#include "fit.h"

/* Convergence point resolution: within 3% of the first count that meets it. */
#define RUN_CONVERGE_TOL 0.03

/* The message into err; returns JM_EXIT_USAGE. */
static int __attribute__((format(printf, 3, 4)))
plan_bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return JM_EXIT_USAGE;
}

/*
 * ENTRY.PARAM=VALUE: a job parameter of the mix entry named ENTRY, parsed
 * and set; the job's check across its parameters runs once all overrides
 * are in (plan_check_params), so their order does not matter.  0, 1 (not
 * one), or an exit code; touched[i] marks entry i.
 */
static int plan_set_param(const struct run_set *st, struct workload *wl, bool *touched,
			  char *err, size_t errlen)
{
	const char *dot = strrchr(st->key, '.');
	char msg[300];
	if (!dot)
		return 1;
	for (size_t i = 0; i < wl->nmix; i++) {
		struct wl_entry *e = &wl->mix[i];
		if (strlen(e->name) != (size_t)(dot - st->key) || strncmp(e->name, st->key,
									   (size_t)(dot - st->key)))
			continue;
		const struct job_param *jp = job_param_find(e->kind, dot + 1);
		if (!jp)
			return plan_bad(err, errlen, "%s %s: job '%s' has no parameter '%s' "
					"(`jobmix jobs %s`)", st->opt, st->key, e->kind->name, dot + 1,
					e->kind->name);
		if (job_param_parse(jp, wl_entry_values(e, jp), st->value, msg, sizeof(msg)))
			return plan_bad(err, errlen, "%s %s=%s: %s", st->opt, st->key, st->value, msg);
		e->set_mask |= 1ull << job_param_index(e->kind, jp);
		touched[i] = true;
		return 0;
	}
	return 1;
}

/* The job's own check of each entry an override touched, once; 0 or an exit code. */
static int plan_check_params(const struct run_args *a, const struct workload *wl,
			     const bool *touched, char *err, size_t errlen)
{
	char msg[300];
	for (size_t i = 0; i < wl->nmix; i++) {
		const struct wl_entry *e = &wl->mix[i];
		if (!touched[i] || !e->kind->check ||
		    !e->kind->check(e->kind, e->params, e->set_mask, msg, sizeof(msg)))
			continue;
		/* name the overrides of this entry, as given */
		char given[512] = "";
		size_t len = strlen(e->name);
		for (size_t k = 0; k < a->nsets; k++) {
			const struct run_set *st = &a->sets[k];
			if (strncmp(st->key, e->name, len) || st->key[len] != '.')
				continue;
			size_t off = strlen(given);
			snprintf(given + off, sizeof(given) - off, "%s%s %s=%s", off ? ", " : "",
				 st->opt, st->key, st->value);
		}
		return plan_bad(err, errlen, "%s: job '%s': %s", given, e->kind->name, msg);
	}
	return 0;
}

/* An unknown key: say what it might have been.  Returns the exit code. */
static int plan_unknown_key(const struct run_set *st, char *err, size_t errlen)
{
	const char *near = wl_key_suggest(st->key), *dot = strchr(st->key, '.');
	if (!near && dot)
		return plan_bad(err, errlen, "%s: '%s' is neither a workload key (`jobmix check "
				"--keys`) nor a parameter of a mix entry named '%.*s'", st->opt,
				st->key, (int)(dot - st->key), st->key);
	return plan_bad(err, errlen, "%s: unknown workload key '%s'%s%s%s (`jobmix check --keys` "
			"lists them)", st->opt, st->key, near ? " (did you mean '" : "",
			near ? near : "", near ? "'?)" : "");
}

/*
 * Command-line overrides on top of the loaded workload, through the key
 * table (the same parsing and ranges as the file).  users.mode first, as a
 * linear workload's end is its last point and not an adaptive budget; then
 * the rest in the order given; then each touched job's check across its
 * parameters, once (so -P a.block=... -P a.file_size=... works in either
 * order); then the defaults that depend on the mode (an explicit
 * converge_jpm_per_user stays) and the checks across keys.
 */
int run_apply_overrides(const struct run_args *a, struct workload *wl, char *err, size_t errlen)
{
	char msg[512];
	int rc = 0;
	if (a->ndirs && wl_set_dirs(wl, a->dirs, a->ndirs, msg, sizeof(msg)))
		return plan_bad(err, errlen, "-d: %s", msg);
	bool *touched = calloc(wl->nmix ? wl->nmix : 1, sizeof(*touched));
	if (!touched)
		return plan_bad(err, errlen, "out of memory");
	for (int pass = 0; pass < 2 && !rc; pass++)
		for (size_t i = 0; i < a->nsets && !rc; i++) {
			const struct run_set *st = &a->sets[i];
			bool mode = !strcmp(st->key, "users.mode");
			if (mode != (pass == 0))
				continue;
			const struct wl_key *k = wl_key_find(st->key);
			if (!k) {
				rc = plan_set_param(st, wl, touched, err, errlen);
				if (rc == 1)
					rc = plan_unknown_key(st, err, errlen);
				continue;
			}
			enum wl_ramp_mode before = wl->users.mode;
			if (wl_key_set(k, wl, st->value, msg, sizeof(msg)))
				rc = plan_bad(err, errlen, "%s %s: %s", st->opt, st->value, msg);
			/* A linear workload's `end` is its last point, not an adaptive budget. */
			else if (mode && before == WL_RAMP_LINEAR && wl->users.mode != WL_RAMP_LINEAR)
				wl->users.end = 0;
		}
	if (!rc)
		rc = plan_check_params(a, wl, touched, err, errlen);
	free(touched);
	if (rc)
		return rc;
	wl_resolve(wl);
	const struct wl_key *k;
	size_t entry;
	if (wl->measure.drop_caches && !wl->measure.settle)
		return plan_bad(err, errlen, "dropping the page cache is part of settling: not with "
				"--no-settle");
	if (wl_check(wl, &k, &entry, msg, sizeof(msg)))
		return plan_bad(err, errlen, "%s", msg);
	return 0;
}

/*
 * The user counts of a linear ramp: -u (p->users, its N% resolved; quoted
 * as the user wrote it when it differs), or the workload's start..end/step.
 */
static int plan_linear_list(struct run_plan *p, char *err, size_t errlen)
{
	const char *given = p->args->users;
	const struct workload *wl = p->wl;
	char msg[256];
	if (p->users) {
		if (!ramp_parse_users(p->users, &p->list, &p->nlist, msg, sizeof(msg)))
			return 0;
		if (given && strcmp(given, p->users))
			return plan_bad(err, errlen, "-u '%s': %s", given, msg);
		return plan_bad(err, errlen, "-u: %s", msg);
	}
	char spec[64];
	unsigned end = wl->users.end ? wl->users.end : wl->users.start;
	unsigned step = wl->users.step ? wl->users.step : 1;
	snprintf(spec, sizeof(spec), "%u-%u%c%u", wl->users.start,
		 end < wl->users.start ? wl->users.start : end, wl->users.geometric ? 'x' : '/',
		 wl->users.geometric && step < 2 ? 2 : step);
	if (ramp_parse_users(spec, &p->list, &p->nlist, msg, sizeof(msg)))
		return plan_bad(err, errlen, "users: %s", msg);
	return 0;
}

/* The device the work directory is on (run_plan.work_dev); none found: "". */
static void plan_work_dev(struct run_plan *p)
{
	struct sys_devset set = { 0 };
	char msg[512];
	p->work_dev[0] = 0;
	if (p->scratch[0] && !p->scratch_raw)
		snprintf(p->work_dev, sizeof(p->work_dev), "%s", p->scratch);
	else if (p->wl->ndirs && !sys_dev_resolve(p->wl->dirs[0], &set, msg, sizeof(msg)) &&
		 set.n)
		snprintf(p->work_dev, sizeof(p->work_dev), "%s", set.dev[0].name);
}

/* The devices to watch: --device names, else those holding the work dirs. 0 or exit code. */
static int plan_devices(struct run_plan *p, char *err, size_t errlen)
{
	char msg[512];
	const char *list = p->args->devices;
	plan_work_dev(p);
	if (list) {
		char buf[512];
		if (strlen(list) >= sizeof(buf))
			return plan_bad(err, errlen, "--device: list too long");
		snprintf(buf, sizeof(buf), "%s", list);
		char *save = NULL;
		for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
			if (sys_dev_add_name(w, &p->devs, msg, sizeof(msg)))
				return plan_bad(err, errlen, "--device: %s", msg);
		return 0;
	}
	if (p->scratch[0] && !p->scratch_raw) {   /* the work directory: the fs made on it */
		if (sys_dev_add_name(p->scratch, &p->devs, msg, sizeof(msg)))
			return plan_bad(err, errlen, "--scratch: %s", msg);
	} else {
		for (size_t i = 0; i < p->wl->ndirs; i++)
			if (sys_dev_resolve(p->wl->dirs[i], &p->devs, msg, sizeof(msg)) &&
			    (p->args->scheds || p->args->naxes))
				return plan_bad(err, errlen, "-s: %s", msg);
	}
	/* a device an axis gives an entry (-X ENTRY.device=none,/dev/X) is watched too */
	for (size_t i = 0; i < p->args->naxes; i++) {
		const struct run_axis *ax = &p->args->axes[i];
		size_t len = strlen(ax->key);
		if (len < 8 || strcmp(ax->key + len - 7, ".device"))
			continue;
		for (size_t v = 0; v < ax->nvals; v++) {
			const char *d = strncmp(ax->vals[v], "/dev/", 5) ? ax->vals[v] : ax->vals[v] + 5;
			bool have = !strcmp(ax->vals[v], "none");
			for (size_t k = 0; !have && k < p->devs.n; k++)
				have = !strcmp(p->devs.dev[k].name, d);
			if (!have && sys_dev_add_name(d, &p->devs, msg, sizeof(msg)))
				return plan_bad(err, errlen, "-X %s: %s", ax->key, msg);
		}
	}
	/* a device an entry reads directly (seqread device:) is watched and switched too */
	for (size_t i = 0; i < p->wl->nmix; i++) {
		const struct wl_entry *e = &p->wl->mix[i];
		bool writes = false;
		const char *d = e->kind->device ? e->kind->device(e->params, &writes) : NULL;
		bool have = false;
		for (size_t k = 0; d && k < p->devs.n; k++)
			have = have || !strcmp(p->devs.dev[k].name, d);
		if (d && writes && strcmp(d, p->scratch))
			return plan_bad(err, errlen, "%s: device /dev/%s: its mode writes, and jobmix "
					"writes only to the run's scratch device (--scratch /dev/%s: "
					"its contents are lost)", e->name, d, d);
		if (d && !have && sys_dev_add_name(d, &p->devs, msg, sizeof(msg)))
			return plan_bad(err, errlen, "%s device %s: %s", e->name, d, msg);
	}
	return 0;
}

/* Is name in every settable device's list? */
static bool plan_sched_everywhere(const struct run_plan *p, const char *name)
{
	for (size_t i = 0; i < p->devs.n; i++)
		if (p->devs.dev[i].settable && !sys_sched_listed(p->devs.dev[i].name, name))
			return false;
	return true;
}

static int plan_add_sched(struct run_plan *p, const char *name, char *err, size_t errlen)
{
	for (size_t i = 0; i < p->nsched; i++)
		if (!strcmp(p->scheds[i], name))
			return plan_bad(err, errlen, "-s: scheduler '%s' given twice", name);
	if (p->nsched == RUN_MAX_SCHEDS)
		return plan_bad(err, errlen, "-s: at most %d schedulers", RUN_MAX_SCHEDS);
	snprintf(p->sched_buf[p->nsched], SYS_SCHED_NAME, "%s", name);
	p->scheds[p->nsched] = p->sched_buf[p->nsched];
	p->nsched++;
	return 0;
}

/* Note which devices met have no settable scheduler, and which ones are switched instead. */
static void plan_note_unsettable(struct run_plan *p)
{
	char on[SYS_MAX_DEVS * SYS_DEV_NAME + 16] = "";
	for (size_t i = 0; i < p->devs.n; i++)
		if (p->devs.dev[i].settable) {
			size_t n = strlen(on);
			snprintf(on + n, sizeof(on) - n, "%s%s", n ? ", " : "", p->devs.dev[i].name);
		}
	for (size_t i = 0; i < p->devs.n; i++) {
		size_t n = strlen(p->notes);
		if (!p->devs.dev[i].settable)
			snprintf(p->notes + n, sizeof(p->notes) - n,
				 "%s has no settable IO scheduler%s; switching %s\n",
				 p->devs.dev[i].name,
				 p->devs.dev[i].stacked ? " (its I/O is scheduled below it)" : "", on);
	}
}

/* -s all: every scheduler the first settable device offers that all of them offer. */
static int plan_all_schedulers(struct run_plan *p, char *err, size_t errlen)
{
	char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
	for (size_t i = 0; i < p->devs.n; i++) {
		if (!p->devs.dev[i].settable)
			continue;
		sys_sched_get(p->devs.dev[i].name, active, sizeof(active), all, sizeof(all));
		char *save = NULL;
		for (char *w = strtok_r(all, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			if (!plan_sched_everywhere(p, w))
				continue;
			int rc = plan_add_sched(p, w, err, errlen);
			if (rc)
				return rc;
		}
		break;
	}
	plan_note_unsettable(p);
	return 0;
}

/*
 * The schedulers (-s's names, or -X sched's values; all: every one the
 * devices offer), checked against every settable device's queue/scheduler
 * before anything is changed.  0 or an exit code.
 */
static int plan_schedulers(struct run_plan *p, bool every, const char *const *want, size_t nwant,
			   char *err, size_t errlen)
{
	char names[SYS_MAX_DEVS * SYS_DEV_NAME + 64] = "";
	size_t settable = 0;
	for (size_t i = 0; i < p->devs.n; i++) {
		size_t n = strlen(names);
		snprintf(names + n, sizeof(names) - n, "%s%s%s", n ? ", " : "", p->devs.dev[i].name,
			 p->devs.dev[i].settable ? "" : " (no settable scheduler)");
		settable += p->devs.dev[i].settable;
	}
	if (!settable)
		return plan_bad(err, errlen, "-s: no device with a settable IO scheduler among %s",
				p->devs.n ? names : "the work directories' devices");
	if (every)
		return plan_all_schedulers(p, err, errlen);
	for (size_t k = 0; k < nwant; k++) {
		const char *w = want[k];
		for (size_t i = 0; i < p->devs.n; i++) {
			const struct sys_dev *d = &p->devs.dev[i];
			char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST];
			if (!d->settable)
				continue;
			if (!sys_sched_listed(d->name, w)) {
				sys_sched_get(d->name, active, sizeof(active), all, sizeof(all));
				return plan_bad(err, errlen, "-s: '%s' is not a scheduler %s offers (%s)",
						w, d->name, all);
			}
		}
		int rc = plan_add_sched(p, w, err, errlen);
		if (rc)
			return rc;
	}
	if (!p->nsched)
		return plan_bad(err, errlen, "-s: no scheduler given");
	plan_note_unsettable(p);
	return 0;
}

/* The schedulers -s LIST | all names, or -X sched's (sx); 0 or an exit code. */
static int plan_sched_list(struct run_plan *p, const struct run_axis *sx, char *err,
			   size_t errlen)
{
	const char *list = p->args->scheds, *names[256];   /* of buf's, at most half */
	size_t n = 0;
	char buf[512];
	if (!list)
		return plan_schedulers(p, sx->nvals == 1 && !strcmp(sx->vals[0], "all"), sx->vals,
				       sx->nvals, err, errlen);
	if (strlen(list) >= sizeof(buf))
		return plan_bad(err, errlen, "-s: list too long");
	snprintf(buf, sizeof(buf), "%s", list);
	char *save = NULL;
	for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save))
		names[n++] = w;
	return plan_schedulers(p, !strcmp(list, "all"), names, n, err, errlen);
}

/* A user count the task limits cannot hold, refused naming where it came from. */
static int plan_bad_tasks(const struct run_plan *p, const char *why, char *err, size_t errlen)
{
	if (p->args->users)
		return plan_bad(err, errlen, "-u %s: %s; lower -u", p->args->users, why);
	if (p->args->max_users)
		return plan_bad(err, errlen, "--max-users %s: %s; lower --max-users",
				p->args->max_users, why);
	return plan_bad(err, errlen, "users of %s: %s; lower users.end",
			p->args->wl_file ? p->args->wl_file : "", why);
}

/* The users: -u resolved, a linear list, the ramp's configuration and budgets. */
static int plan_users(struct run_plan *p, char *err, size_t errlen)
{
	const struct run_args *a = p->args;
	const struct workload *wl = p->wl;
	char msg[512];
	int rc;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	p->ncpus = cpus > 0 ? (unsigned)cpus : 1;
	p->users = a->users;
	if (a->users) {
		if (ramp_users_resolve_cpus(a->users, p->ncpus, p->users_buf, sizeof(p->users_buf),
					    msg, sizeof(msg)))
			return plan_bad(err, errlen, "-u: %s", msg);
		p->users = p->users_buf;
	}
	if (wl->users.mode == WL_RAMP_LINEAR || a->users) {
		rc = plan_linear_list(p, err, errlen);
		if (rc)
			return rc;
	}
	p->rcfg = (struct ramp_cfg){
		.mode = wl->users.mode, .list = p->list, .nlist = p->nlist,
		.start = wl->users.start, .growth = 2,
		.max_users = wl->users.mode == WL_RAMP_LINEAR && !a->max_users ? 0 : wl->users.end,
		.max_points = wl->users.max_points, .max_time_s = wl->users.max_time_s,
		.repeat = wl->users.repeat ? wl->users.repeat : 1,
		.repeat_auto = wl->users.repeat_auto,
		.converge_jpm_per_user = wl->users.converge_jpm_per_user,
		.converge_tol = RUN_CONVERGE_TOL,
		.converge_prior = RAMP_CONV_NOISE_PRIOR,
		.points_seed = wl->seed,
	};
	if (a->points_given) {
		if (wl->users.mode != WL_RAMP_LINEAR)
			return plan_bad(err, errlen, "--order %s needs a linear ramp (-m linear)",
					ramp_points_name(a->points));
		p->rcfg.points = a->points;
	}
	if (wl->measure.drop_caches && !sys_can_drop_caches())
		return plan_bad(err, errlen, "dropping the page cache needs root "
				"(/proc/sys/vm/drop_caches)");
	p->auto_end = wl->users.mode != WL_RAMP_LINEAR && !p->nlist && !p->rcfg.max_users;
	if (p->auto_end) {
		/* users.end: auto, bounded by what the machine and the limits allow */
		p->rcfg.max_users = run_max_users_by_limits(wl);
	}
	if (wl->users.mode != WL_RAMP_LINEAR && p->nlist) {
		/* -u A-B with an adaptive mode: search within [A, B] */
		p->rcfg.start = p->list[0];
		p->rcfg.max_users = p->list[p->nlist - 1];
		p->rcfg.list = NULL;
		p->rcfg.nlist = 0;
	}
	if (ramp_cfg_check(&p->rcfg, msg, sizeof(msg)))
		return plan_bad(err, errlen, "%s", msg);
	/* the most users this run can reach must fit the kernel's and the process's limits */
	p->most = p->rcfg.max_users;
	for (size_t i = 0; i < p->nlist; i++)
		if (p->list[i] > p->most)
			p->most = p->list[i];
	/* (an auto users.end is what the task limits hold; each point is checked again) */
	if (p->most && !p->auto_end && run_check_tasks(wl, p->most, msg, sizeof(msg)))
		return plan_bad_tasks(p, msg, err, errlen);
	if (p->most && run_fit_rlimits(wl, p->most, msg, sizeof(msg)))
		return plan_bad(err, errlen, "%s", msg);
	return 0;
}

/* Is the first word of key (before its first '.') a mix entry's name? */
static bool plan_is_entry(const struct workload *wl, const char *key)
{
	const char *dot = strchr(key, '.');
	for (size_t i = 0; dot && i < wl->nmix; i++)
		if (strlen(wl->mix[i].name) == (size_t)(dot - key) &&
		    !strncmp(wl->mix[i].name, key, (size_t)(dot - key)))
			return true;
	return false;
}

int run_axis_parse(const char *spec, struct run_axis *ax, char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	memset(ax, 0, sizeof(*ax));
	if (!eq || eq == spec || !eq[1])
		return plan_bad(err, errlen, "-X '%s': give KEY=VALUE1,VALUE2,...", spec);
	if ((size_t)(eq - spec) >= sizeof(ax->key))
		return plan_bad(err, errlen, "-X '%.40s...': key too long", spec);
	if (strlen(eq + 1) >= sizeof(ax->buf))
		return plan_bad(err, errlen, "-X %.*s: list too long", (int)(eq - spec), spec);
	snprintf(ax->key, sizeof(ax->key), "%.*s", (int)(eq - spec), spec);
	snprintf(ax->buf, sizeof(ax->buf), "%s", eq + 1);
	for (char *v = ax->buf, *c; v; v = c) {
		c = strchr(v, ',');
		if (c)
			*c++ = 0;
		if (!v[0])
			return plan_bad(err, errlen, "-X %s: an empty value in '%s'", ax->key, eq + 1);
		for (size_t i = 0; i < ax->nvals; i++)
			if (!strcmp(ax->vals[i], v))
				return plan_bad(err, errlen, "-X %s: value '%s' given twice", ax->key,
						v);
		if (ax->nvals == RUN_MAX_AXIS_VALS)
			return plan_bad(err, errlen, "-X %s: at most %d values", ax->key,
					RUN_MAX_AXIS_VALS);
		ax->vals[ax->nvals++] = v;
	}
	ax->kind = !strcmp(ax->key, "sched") || !strcmp(ax->key, "scheduler") ? RUN_AXIS_SCHED :
		   RUN_AXIS_WL;
	return 0;
}

void run_axis_copy(struct run_axis *dst, const struct run_axis *src)
{
	*dst = *src;
	for (size_t i = 0; i < src->nvals; i++)
		dst->vals[i] = dst->buf + (src->vals[i] - src->buf);
}

/* Key checked by its family on target: 0 or an exit code. */
static int plan_knob_check(const struct sys_knob_family *f, const struct run_axis *ax,
			   const char *target, bool allow_any, char *err, size_t errlen)
{
	return sys_knob_check(f, ax->key, target, ax->vals, ax->nvals, allow_any, err, errlen) ?
	       JM_EXIT_USAGE : 0;
}

/* A system axis checked on every target its family sets it on, changing nothing. */
static int plan_check_sys(const struct run_plan *p, const struct run_axis *ax, char *err,
			  size_t errlen)
{
	const struct sys_knob_family *f = ax->fam;
	int rc = 0;
	if (geteuid() != 0)
		return plan_bad(err, errlen, "-X %s: setting system values needs root", ax->key);
	if (!f || f->on == SYS_KNOB_ON_SYSTEM)
		return plan_knob_check(f, ax, "", p->args->allow_sysctl, err, errlen);
	if (f->on == SYS_KNOB_ON_SCRATCH && p->scratch_raw)
		return plan_bad(err, errlen, "-X %s: the scratch device %s is read or written raw by "
				"the workload: no file system is made on it", ax->key, p->scratch);
	if (f->on == SYS_KNOB_ON_SCRATCH && !p->scratch[0])
		return plan_bad(err, errlen, "-X %s: file systems are made only on a scratch "
				"device: give --scratch DEV (its contents are lost)", ax->key);
	if (f->on == SYS_KNOB_ON_SCRATCH)
		return plan_knob_check(f, ax, p->scratch, false, err, errlen);
	for (size_t i = 0; !rc && f->on == SYS_KNOB_ON_MOUNTS && i < p->wl->ndirs; i++)
		rc = plan_knob_check(f, ax, p->wl->dirs[i], false, err, errlen);
	if (f->on != SYS_KNOB_ON_DEVICES)
		return rc;
	if (!p->devs.n)
		return plan_bad(err, errlen, "-X %s: no block device under the work directories "
				"(give -d on one, or --device)", ax->key);
	for (size_t i = 0; !rc && i < p->devs.n; i++)
		if ((rc = plan_knob_check(f, ax, p->devs.dev[i].name, false, err, errlen)) == 0 &&
		    f->sched_bound && p->devs.dev[i].settable &&
		    sys_knob_check_iosched(ax->key, p->devs.dev[i].name, p->active[i],
					   (const char *const *)p->scheds, p->nsched, err, errlen))
			rc = JM_EXIT_USAGE;
	return rc;
}

/*
 * -X fs.mkfs: every value against every file system it is made with (-X
 * fs, ext4 without one), from that mkfs's allow-list.  0 or an exit code.
 */
static int plan_mkfs_opts(const struct run_plan *p, char *err, size_t errlen)
{
	static const char *const ext4[] = { "ext4" };
	const struct run_axis *fs = NULL, *mk = NULL;
	for (size_t i = 0; i < p->naxes; i++)
		if (p->axes[i].kind == RUN_AXIS_SYS && !strcmp(p->axes[i].key, "fs"))
			fs = &p->axes[i];
		else if (p->axes[i].kind == RUN_AXIS_SYS && !strcmp(p->axes[i].key, "fs.mkfs"))
			mk = &p->axes[i];
	const char *const *types = fs ? fs->vals : ext4;
	size_t ntypes = fs ? fs->nvals : 1;
	for (size_t m = 0; mk && m < mk->nvals; m++)
		for (size_t t = 0; t < ntypes; t++)
			if (sys_scratch_mkfs_allowed(types[t], mk->vals[m], err, errlen))
				return JM_EXIT_USAGE;
	return 0;
}

/*
 * The -X axes: `sched` is -s by another name; a key that names a mix
 * entry, or is a workload key, is a workload axis; queue.*, sysctls and
 * mount are system axes, checked here on every target.  The scheduler's
 * axis comes first.  0 or an exit code.
 */
static const struct run_axis *plan_sched_axis(const struct run_args *a);

static int plan_axes(struct run_plan *p, char *err, size_t errlen)
{
	const struct run_args *a = p->args;
	struct run_axis *ax = &p->axes[0];
	int rc;
	if (a->naxes + (a->scheds ? 1 : 0) > RUN_MAX_AXES)
		return plan_bad(err, errlen, "-X: at most %d axes", RUN_MAX_AXES);
	/* [0] is the scheduler's when there is one (vals point into each axis's own buf: never moved) */
	size_t first = p->nsched ? 1 : 0;
	p->naxes = first;
	for (size_t i = 0; i < a->naxes; i++) {
		const struct run_axis *given = &a->axes[i];
		struct run_axis *x = &p->axes[p->naxes];
		for (size_t k = first; k < p->naxes; k++)
			if (!strcmp(p->axes[k].key, given->key))
				return plan_bad(err, errlen, "-X %s: given twice", given->key);
		if (given->kind == RUN_AXIS_SCHED) {
			const struct run_axis *sx = plan_sched_axis(a);
			if (a->scheds)
				return plan_bad(err, errlen, "-X %s and -s: give the schedulers once",
						given->key);
			if (sx != given)   /* -X sched=a -X scheduler=b: which? */
				return plan_bad(err, errlen, "-X %s and -X %s: give the schedulers "
						"once", sx->key, given->key);
			continue;   /* taken as -s below */
		}
		run_axis_copy(x, given);
		/* classified once: the family rides with the axis to the engine */
		x->fam = plan_is_entry(p->wl, x->key) ? NULL :
			 sys_knob_family(x->key, p->scratch[0]);
		if (x->fam) {
			x->kind = RUN_AXIS_SYS;
			if ((rc = plan_check_sys(p, x, err, errlen)))
				return rc;
			p->sys_axes = true;
		} else if (!strcmp(x->key, "dirs") || !strncmp(x->key, "dirs.", 5)) {
			return plan_bad(err, errlen, "-X %s: the work directories are not an axis",
					x->key);
		} else if (!strcmp(x->key, "measure.point_noise")) {
			/* sized once for the run, so that the arms' points stay alike */
			return plan_bad(err, errlen, "-X %s: the arms' points are sized once, "
					"together; give --point-noise", x->key);
		} else {
			x->kind = RUN_AXIS_WL;
			if (!a->wl_again)
				return plan_bad(err, errlen, "-X %s: workload axes need a workload "
						"jobmix can load again", x->key);
		}
		p->naxes++;
	}
	if ((rc = plan_mkfs_opts(p, err, errlen)))
		return rc;
	if (p->nsched) {
		*ax = (struct run_axis){ .kind = RUN_AXIS_SCHED };
		snprintf(ax->key, sizeof(ax->key), "sched");
		for (size_t i = 0; i < p->nsched; i++)
			ax->vals[ax->nvals++] = p->scheds[i];
	}
	return 0;
}

/* The -X sched=LIST given as an axis, taken as -s's list; NULL when none. */
static const struct run_axis *plan_sched_axis(const struct run_args *a)
{
	for (size_t i = 0; i < a->naxes; i++)
		if (a->axes[i].kind == RUN_AXIS_SCHED)
			return &a->axes[i];
	return NULL;
}

/*
 * Combination c's workload: the workload axes' values as settings on a
 * fresh copy.  A value the key table or the job refuses is refused here,
 * before anything runs.
 */
static int plan_combo_wl(struct run_plan *p, struct run_combo *c, char *err, size_t errlen)
{
	struct run_set extra[RUN_MAX_AXES];
	size_t n = 0;
	for (size_t i = 0; i < p->naxes; i++)
		if (p->axes[i].kind == RUN_AXIS_WL)
			extra[n++] = (struct run_set){ .key = p->axes[i].key,
						       .value = p->axes[i].vals[c->val[i]],
						       .opt = "-X" };
	if (!n) {
		c->wl = p->wl;
		return 0;
	}
	c->wl = calloc(1, sizeof(*c->wl));
	if (!c->wl)
		return plan_bad(err, errlen, "out of memory");
	c->own_wl = true;
	char msg[512];
	int rc = p->args->wl_again(p->args->wl_again_arg, extra, n, c->wl, msg, sizeof(msg));
	if (rc)
		return plan_bad(err, errlen, "%s", msg);
	if (strcmp(c->wl->name, p->wl->name))
		return plan_bad(err, errlen, "-X: an axis may not rename the workload ('%s')",
				c->wl->name);
	const char *mp = p->scratch_mp;
	if (p->scratch[0] && !p->scratch_raw && wl_set_dirs(c->wl, &mp, 1, msg, sizeof(msg)))
		return plan_bad(err, errlen, "--scratch: %s", msg);
	return 0;
}

/* Every combination of the axes' values (the last axis varying fastest). */
static int plan_combos(struct run_plan *p, char *err, size_t errlen)
{
	size_t n = 1;
	for (size_t i = 0; i < p->naxes; i++) {
		n *= p->axes[i].nvals;
		if (n > RUN_MAX_COMBOS)
			return plan_bad(err, errlen, "-X: more than %d combinations of the axes' "
					"values", RUN_MAX_COMBOS);
	}
	p->combos = calloc(n, sizeof(*p->combos));
	if (!p->combos)
		return plan_bad(err, errlen, "out of memory");
	p->ncombos = n;
	for (size_t c = 0; c < n; c++) {
		struct run_combo *cb = &p->combos[c];
		size_t rest = c, lused = 0, sused = 0;
		uint32_t h = 2166136261u;   /* FNV-1a over every value, for a cut suffix */
		for (size_t i = p->naxes; i-- > 0;) {
			cb->val[i] = rest % p->axes[i].nvals;
			rest /= p->axes[i].nvals;
		}
		for (size_t i = 0; i < p->naxes; i++) {
			const char *v = p->axes[i].vals[cb->val[i]];
			if (lused < sizeof(cb->label))
				lused += (size_t)snprintf(cb->label + lused, sizeof(cb->label) - lused,
							  "%s%s=%s", i ? " " : "", p->axes[i].key,
							  v);
			if (sused < sizeof(cb->suffix))
				sused += (size_t)snprintf(cb->suffix + sused, sizeof(cb->suffix) - sused,
							  "%s%s", i ? "-" : "", v);
			for (const char *ch = v; ; ch++) {
				h = (h ^ (unsigned char)*ch) * 16777619u;   /* the NUL parts them */
				if (!*ch)
					break;
			}
		}
		/* a long one cut with its hash: 32 arms never share a folder name (issue 43) */
		if (sused > RUN_SUFFIX_MAX)
			snprintf(cb->suffix + RUN_SUFFIX_MAX - 9, 10, "-%08x", (unsigned)h);
		/* a folder name's word: [A-Za-z0-9._-] */
		for (char *ch = cb->suffix; *ch; ch++)
			if (!((*ch >= 'a' && *ch <= 'z') || (*ch >= 'A' && *ch <= 'Z') ||
			      (*ch >= '0' && *ch <= '9') || *ch == '.' || *ch == '_' || *ch == '-'))
				*ch = '_';
		int rc = plan_combo_wl(p, cb, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

/* The arms: one, or every combination in every round (round-major). */
static int plan_arms(struct run_plan *p, char *err, size_t errlen)
{
	int rc;
	if (!p->matrix) {
		p->ncombos = 1;
		p->combos = calloc(1, sizeof(*p->combos));
		if (!p->combos)
			return plan_bad(err, errlen, "out of memory");
		p->combos[0].wl = p->wl;
	}
	if (p->matrix && (rc = plan_combos(p, err, errlen)))
		return rc;
	size_t k = p->matrix ? p->ncombos : p->ab ? p->nsched : 1;
	p->rounds = p->ab ? p->args->rounds : 1;
	p->narms = k * p->rounds;
	p->arms = calloc(p->narms, sizeof(*p->arms));
	if (!p->arms)
		return plan_bad(err, errlen, "out of memory");
	for (size_t i = 0; i < p->narms; i++) {
		struct run_arm_plan *arm = &p->arms[i];
		*arm = (struct run_arm_plan){ .round = (unsigned)(i / k),
					      .combo = p->matrix ? i % k : 0 };
		if (p->matrix && p->nsched)
			arm->sched = p->axes[0].vals[p->combos[arm->combo].val[0]];
		else if (!p->matrix && p->ab)
			arm->sched = p->scheds[i % k];
	}
	return 0;
}

/* measure.mem_limit (--mem-limit, or an axis): each arm's in range, a group makeable.  0 or code. */
static int plan_memcg(struct run_plan *p, char *err, size_t errlen)
{
	char msg[512], sz[32];
	struct sysinfo si;
	uint64_t ram = sysinfo(&si) ? 0 : (uint64_t)si.totalram * (si.mem_unit ? si.mem_unit : 1);
	for (size_t c = 0; c < p->ncombos; c++) {
		uint64_t l = p->combos[c].wl->measure.mem_limit;
		if (!l)
			continue;
		jm_format_size(l, sz, sizeof(sz));
		if (!p->combos[c].wl->measure.settle)
			return plan_bad(err, errlen, "--mem-limit: the work files' pages are dropped "
					"before each point as part of settling: not with --no-settle");
		if (l < SYS_MEMCG_MIN)
			return plan_bad(err, errlen, "--mem-limit %s: below the 16m a memory cgroup "
					"needs to run the users", sz);
		if (ram && l >= ram)
			return plan_bad(err, errlen, "--mem-limit %s: not below the machine's memory "
					"(%.1f GiB): it would limit nothing", sz, (double)ram / (1 << 30));
		if (!p->memcg) {
			if (geteuid() != 0)
				return plan_bad(err, errlen, "--mem-limit: making a memory cgroup needs "
						"root");
			if (sys_memcg_check(msg, sizeof(msg)))
				return plan_bad(err, errlen, "%s", msg);
		}
		p->memcg = true;
	}
	p->mem_limit = p->combos[p->arms[0].combo].wl->measure.mem_limit;
	return 0;
}

/*
 * --scratch DEV: checked (sys_scratch_check), and the work directory made
 * the file system jobmix mounts on it.  0 or an exit code.
 */
static int plan_scratch(struct run_plan *p, char *err, size_t errlen)
{
	const struct run_args *a = p->args;
	char msg[512];
	if (geteuid() != 0)
		return plan_bad(err, errlen, "--scratch: making file systems needs root");
	p->scratch_hold = calloc(1, sizeof(*p->scratch_hold));
	if (!p->scratch_hold)
		return plan_bad(err, errlen, "out of memory");
	*p->scratch_hold = (struct sys_scratch_hold){ .fd = -1, .excl = -1 };
	if (sys_scratch_check(a->scratch, p->scratch_hold, msg, sizeof(msg)))
		return plan_bad(err, errlen, "%s", msg);
	snprintf(p->scratch, sizeof(p->scratch), "%s", p->scratch_hold->name);
	/* an entry that reads or writes it raw: no file system is made on it */
	for (size_t i = 0; i < p->wl->nmix; i++) {
		const struct wl_entry *e = &p->wl->mix[i];
		bool writes;
		const char *d = e->kind->device ? e->kind->device(e->params, &writes) : NULL;
		p->scratch_raw = p->scratch_raw || (d && !strcmp(d, p->scratch));
	}
	if (p->scratch_raw) {
		sys_scratch_share(p->scratch_hold);   /* the jobs open it O_EXCL */
		return 0;   /* the work directories are the workload's (-d) */
	}
	if (a->ndirs)
		return plan_bad(err, errlen, "--scratch and -d: the work directory is the file "
				"system made on the scratch device");
	if (a->devices)
		return plan_bad(err, errlen, "--scratch and --device: the devices watched are the "
				"scratch device");
	sys_scratch_mount_point(p->scratch, p->scratch_mp, sizeof(p->scratch_mp));
	const char *mp = p->scratch_mp;
	if (wl_set_dirs(p->wl, &mp, 1, msg, sizeof(msg)))
		return plan_bad(err, errlen, "--scratch: %s", msg);
	return 0;
}

static int plan_build(struct run_plan *p, char *err, size_t errlen)
{
	const struct run_args *a = p->args;
	char msg[512], where[PATH_MAX];
	int rc;
	/* results and work files never on a file system jobmix formats or unmounts */
	if (a->outdir && sys_scratch_inside(a->outdir, where, sizeof(where)))
		return plan_bad(err, errlen, "-o %s: inside %s, where jobmix mounts and unmounts "
				"the scratch file systems it makes; give a results folder elsewhere",
				a->outdir, where);
	for (size_t i = 0; i < a->ndirs; i++)
		if (sys_scratch_inside(a->dirs[i], where, sizeof(where)))
			return plan_bad(err, errlen, "-d %s: inside %s, where jobmix mounts and "
					"unmounts the scratch file systems it makes (--scratch DEV "
					"makes the work directory there itself)", a->dirs[i], where);
	if (a->scratch && (rc = plan_scratch(p, err, errlen)))
		return rc;
	for (size_t i = 0; (!p->scratch[0] || p->scratch_raw) && i < p->wl->ndirs; i++) {
		if (sys_scratch_inside(p->wl->dirs[i], where, sizeof(where)))
			return plan_bad(err, errlen, "%s: a work directory inside %s, where jobmix "
					"mounts and unmounts the scratch file systems it makes",
					p->wl->dirs[i], where);
		if (load_workdir_check(p->wl->dirs[i], msg, sizeof(msg)))
			return plan_bad(err, errlen, "%s", msg);
	}
	if ((rc = plan_users(p, err, errlen)))
		return rc;
	const struct run_axis *sx = plan_sched_axis(a);
	bool scheds = a->scheds || sx;
	if (scheds && geteuid() != 0)
		return plan_bad(err, errlen, "-s: switching IO schedulers needs root");
	if ((rc = plan_devices(p, err, errlen)))
		return rc;
	for (size_t i = 0; i < p->devs.n; i++) {
		char all[SYS_SCHED_LIST];
		if (p->devs.dev[i].settable)
			sys_sched_get(p->devs.dev[i].name, p->active[i], sizeof(p->active[i]), all,
				      sizeof(all));
	}
	p->ab = scheds || a->naxes > 0;
	p->order = a->order;
	p->repair = !p->ab && geteuid() == 0;
	if (scheds && (rc = plan_sched_list(p, sx, err, errlen)))
		return rc;
	if (a->naxes && (rc = plan_axes(p, err, errlen)))
		return rc;
	/* -X sched=... alone is a scheduler A/B as -s makes */
	for (size_t i = 0; i < p->naxes; i++)
		p->matrix = p->matrix || p->axes[i].kind != RUN_AXIS_SCHED;
	if ((rc = plan_arms(p, err, errlen)))
		return rc;
	return plan_memcg(p, err, errlen);
}

int run_plan_build(const struct run_args *a, struct workload *wl, struct run_plan *p, char *err,
		   size_t errlen)
{
	*p = (struct run_plan){ .args = a, .wl = wl };
	int rc = plan_build(p, err, errlen);
	if (rc)
		run_plan_free(p);
	return rc;
}

void run_plan_free(struct run_plan *p)
{
	for (size_t i = 0; p->combos && i < p->ncombos; i++)
		if (p->combos[i].own_wl) {
			wl_free(p->combos[i].wl);
			free(p->combos[i].wl);
		}
	free(p->combos);
	p->combos = NULL;
	p->ncombos = 0;
	if (p->scratch_hold) {
		sys_scratch_release(p->scratch_hold);
		free(p->scratch_hold);
		p->scratch_hold = NULL;
	}
	free(p->list);
	free(p->arms);
	p->list = NULL;
	p->arms = NULL;
	p->nlist = p->narms = 0;
}

unsigned run_plan_points(const struct run_plan *p)
{
	if (!p->rcfg.nlist || p->rcfg.repeat_auto)
		return 0;
	unsigned rep = p->rcfg.repeat ? p->rcfg.repeat : 1;
	return (unsigned)p->rcfg.nlist * rep * (unsigned)(p->narms ? p->narms : 1);
}

double run_plan_budget_s(const struct run_plan *p)
{
	return p->rcfg.max_time_s > 0 ? p->rcfg.max_time_s * (double)(p->narms ? p->narms : 1) : 0;
}
