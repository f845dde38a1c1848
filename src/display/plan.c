// SPDX-License-Identifier: GPL-2.0-only
/*
 * What `jobmix run` prints about its plan and its A/B: the --dry-run plan
 * (workload, ramp, estimate, devices, axes, rounds, outputs), what each
 * watched device did under each arm, and --until-decided's verdict lines.
 * Every string from outside reaches the terminal through esc_str (escape.h).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/escape.h"
#include "jobmix/plan_print.h"
#include "jobmix/progress.h"
#include "jobmix/ramp_order.h"
#include "jobmix/report.h"
#include "jobmix/run.h"
#include "jobmix/stats.h"
#include "jobmix/sys_dstat.h"
#include "jobmix/sys_knob.h"
#include "jobmix/workload.h"

/* Did device w do any I/O in any arm? */
static bool run_ab_dev_busy(const struct run_result *res, size_t w)
{
	for (size_t i = 0; i < res->narms; i++)
		if (res->arms[i].opened && (res->arms[i].dsum[w].rd_ios || res->arms[i].dsum[w].wr_ios))
			return true;
	return false;
}

/* The median and 99th percentile of h in ms, two cells ("-" for none). */
static void run_ab_blk_cells(const struct stats_hist *h)
{
	if (!h || !h->count) {
		printf(" %9s %9s", "-", "-");
		return;
	}
	printf(" %9.4f %9.4f", stats_hist_quantile(h, 0.50) / 1e6, stats_hist_quantile(h, 0.99) / 1e6);
}

/* What device w did under each arm, summed over every point's window. */
static void run_ab_device(const struct run_plan *p, const struct run_result *res, size_t w)
{
	char e[PATH_MAX * 4];   /* names and paths through esc_str (escape.h) */
	printf("\nDevice %s over every point's window (%s order, %u round%s)\n",
	       esc_str(e, sizeof(e), ESC_TEXT, res->dev[w]), ramp_order_name(p->order), p->rounds,
	       p->rounds > 1 ? "s" : "");
	int lw = 12;   /* the label column: as wide as the longest arm's name */
	for (size_t i = 0; i < res->narms; i++) {
		const char *l = p->matrix ? p->combos[p->arms[i].combo].label : res->arms[i].sched;
		if (l && (int)strlen(l) > lw)
			lw = (int)strlen(l);
	}
	bool blk = false;   /* the block tracer's columns: when an arm has its times */
	for (size_t i = 0; i < res->narms; i++)
		blk |= res->arms[i].opened && (res->arms[i].blk[w][0] || res->arms[i].blk[w][1]);
	printf("%-*s %5s %9s %8s %8s %8s %8s %7s %6s %7s", lw, p->matrix ? "arm" : "scheduler",
	       "round", "IOPS", "MB/s",
	       "KiB/req", "KiB/rd", "KiB/wr", "merged", "util", "qdepth");
	if (blk)
		printf(" %9s %9s %9s %9s", "sched p50", "sched p99", "dev p50", "dev p99");
	printf("\n");
	for (size_t i = 0; i < res->narms; i++) {
		const struct run_arm_result *a = &res->arms[i];
		if (!a->opened)
			continue;
		struct sys_drate d;
		struct sys_dstat zero = { 0 };
		sys_dstat_rates(&zero, &a->dsum[w], a->dsecs[w], &d);
		printf("%-*s %5u %9.1f %8.2f %8.1f %8.1f %8.1f %6.1f%% %5.1f%% %7.2f", lw,
		       esc_str(e, sizeof(e), ESC_TEXT, p->matrix ? p->combos[p->arms[i].combo].label :
			       a->sched), a->round + 1, d.iops, d.mb_s,
		       d.avg_req_kib, d.rd_req_kib, d.wr_req_kib, 100 * d.merge_ratio, 100 * d.util,
		       d.avg_qdepth);
		for (int k = 0; blk && k < 2; k++)
			run_ab_blk_cells(a->blk[w][k]);
		printf("\n");
	}
	if (blk)
		printf("sched, dev: ms a request waited in the IO scheduler (insert to issue) and spent "
		       "in the device\n(issue to completion), every point's requests together "
		       "(block tracepoints; '-': none)\n");
}

/*
 * What the devices did under each arm: the scheduling device, then every
 * other watched device that did any I/O (a raw device an entry read).
 */
void plan_print_devices(const struct run_plan *p, const struct run_result *res)
{
	char e[PATH_MAX * 4];
	run_ab_device(p, res, res->watch);
	for (size_t w = 0; w < res->ndevs; w++)
		if (w != res->watch && run_ab_dev_busy(res, w))
			run_ab_device(p, res, w);
	if (res->have_index)
		printf("index: %s/index.json\n", esc_str(e, sizeof(e), ESC_TEXT, res->index_dir));
}

/* "bfq Peak Load: inconclusive (-3.1%), about 4 more rounds (~6 min)". */
void plan_print_decide_line(const struct rep_verdict_item *v, double round_s)
{
	char e[400];
	printf("  %s: %s (%+.1f%%)", esc_str(e, sizeof(e), ESC_TEXT, v->what),
	       rep_mark_name(v->mark), v->change * 100);
	double t = v->need * round_s;
	if (v->mark == REP_INCONCLUSIVE && v->need)
		printf(", about %u more round%s (~%.0f %s at %.0f s a round) would decide it",
		       v->need, v->need == 1 ? "" : "s", t < 120 ? ceil(t) : ceil(t / 60),
		       t < 120 ? "s" : "min", round_s);
	else if (v->mark == REP_INCONCLUSIVE)
		printf(", the noise swamps the threshold");
	printf("\n");
}

/* Each round's order of the arms, named by labels[] (bracketed: a matrix's). */
static void dry_rounds(const struct run_plan *p, const char *const *labels, size_t n,
		       bool brackets)
{
	for (unsigned r = 0; r < p->rounds; r++) {
		unsigned ord[RUN_MAX_COMBOS > RUN_MAX_SCHEDS ? RUN_MAX_COMBOS : RUN_MAX_SCHEDS];
		ramp_ab_order(p->order, (unsigned)n, r, 0, ord);
		printf("round %u:   ", r + 1);
		for (size_t i = 0; i < n; i++)
			printf(brackets ? "%s[%s]" : "%s%s",
			       i ? (p->order == RAMP_ORDER_FAIR ? ", " : " then ") : "", labels[ord[i]]);
		printf("%s\n", p->order == RAMP_ORDER_FAIR && n > 1 ?
		       " (point by point, the order reversing at each step)" : "");
	}
}

/* Where a system axis is set, by its family, and what each target reads now. */
static void dry_knob_targets(const struct run_plan *p, const char *key,
			     const struct sys_knob_family *f)
{
	char now[256];
	enum sys_knob_on on = f ? f->on : SYS_KNOB_ON_SYSTEM;
	size_t n = on == SYS_KNOB_ON_DEVICES ? p->devs.n : on == SYS_KNOB_ON_MOUNTS ?
		   p->wl->ndirs : 1;
	for (size_t d = 0; d < n; d++) {
		const char *t = on == SYS_KNOB_ON_DEVICES ? p->devs.dev[d].name :
				on == SYS_KNOB_ON_MOUNTS ? p->wl->dirs[d] : "";
		sys_knob_now(f, key, t, now, sizeof(now));
		printf(on == SYS_KNOB_ON_DEVICES ? " %s, now %s;" : on == SYS_KNOB_ON_MOUNTS ?
		       " the mount of %s, now %s;" : " the system%s, now %s;", t, now);
	}
}

/* A matrix's plan: its axes, what each sets where, the arms' order and outputs. */
static void run_print_matrix(const struct run_plan *p)
{
	const struct run_args *a = p->args;
	printf("A/B:       %zu axes, %zu combinations, %u round%s, %s order\n", p->naxes,
	       p->ncombos, p->rounds, p->rounds > 1 ? "s" : "", ramp_order_name(p->order));
	for (size_t i = 0; i < p->naxes; i++) {
		const struct run_axis *ax = &p->axes[i];
		printf("axis:      %s = ", ax->key);
		for (size_t k = 0; k < ax->nvals; k++)
			printf("%s%s", k ? ", " : "", ax->vals[k]);
		if (ax->kind == RUN_AXIS_WL) {
			printf(" (the workload's; each arm its own copy)\n");
			continue;
		}
		if (ax->kind == RUN_AXIS_SCHED) {
			printf(" (switched on");
			for (size_t d = 0; d < p->devs.n; d++)
				if (p->devs.dev[d].settable)
					printf(" %s, now %s;", p->devs.dev[d].name, p->active[d]);
			printf(" restored at the end)\n");
			continue;
		}
		const struct sys_knob_family *f = ax->fam;
		if (f && f->on == SYS_KNOB_ON_SCRATCH) {
			printf(" (%s on %s per arm where it differs; unmounted at the end)\n",
			       f->scratch_only ? "a fresh mount" : "mkfs and mount", p->scratch);
			continue;
		}
		printf(" (set on");
		dry_knob_targets(p, ax->key, f);
		printf(" restored at the end)\n");
	}
	const char *labels[RUN_MAX_COMBOS];
	for (size_t i = 0; i < p->ncombos; i++)
		labels[i] = p->combos[i].label;
	dry_rounds(p, labels, p->ncombos, true);
	printf("index:     %s/<stamp>-%s-ab/index.json\n", a->outdir, p->wl->name);
	for (size_t i = 0; i < p->narms; i++) {
		const struct run_arm_plan *arm = &p->arms[i];
		const struct run_combo *c = &p->combos[arm->combo];
		if (p->rounds > 1)
			printf("output:    %s/<stamp>-%s-%s-r%u/run.json  %s\n", a->outdir, p->wl->name,
			       c->suffix, arm->round + 1, c->label);
		else
			printf("output:    %s/<stamp>-%s-%s/run.json  %s\n", a->outdir, p->wl->name,
			       c->suffix, c->label);
	}
}

/*
 * --dry-run's estimate of the run's length: its points (a list's, every arm
 * and round) at the time mode's duration, and the --max-time budget.
 */
static void run_print_estimate(const struct run_plan *p)
{
	const struct workload *wl = p->wl;
	unsigned pts = run_plan_points(p);
	double budget = run_plan_budget_s(p);
	char t[32];
	printf("estimate:  ");
	if (!pts)
		printf("the ramp decides its points");
	else
		printf("%u point%s", pts, pts > 1 ? "s" : "");
	if (pts && wl->measure.how == WL_MEASURE_TIME) {
		double s = pts * wl->measure.duration_s;
		if (wl->measure.warmup)
			s += (double)p->narms * wl_warmup_s(&wl->measure);
		prog_hms(t, sizeof(t), s);
		printf(", about %s (time mode; settling and switching not counted)", t);
	} else if (pts) {
		printf(", each as long as its jobs take (jobs mode): the status line tells the "
		       "time left from the first");
	}
	if (budget > 0) {
		prog_hms(t, sizeof(t), budget);
		printf("; at most %s (--max-time over %zu arm%s)", t, p->narms,
		       p->narms > 1 ? "s" : "");
	}
	printf("\n");
}

/* The plan, printed for --dry-run. */
void plan_print(const struct run_plan *p)
{
	const struct workload *wl = p->wl;
	const struct run_args *a = p->args;
	printf("jobmix run --dry-run: nothing created, switched or locked\n");
	printf("workload:  %s%s%s%s\n", wl->name, a->wl_file ? " (" : "",
	       a->wl_file ? a->wl_file : "", a->wl_file ? ")" : "");
	printf("mode:      %s, %u jobs per user\n", wl_ramp_mode_name(p->rcfg.mode),
	       wl->users.jobs_per_user);
	if (p->rcfg.nlist) {
		printf("users:     ");
		for (size_t i = 0; i < p->rcfg.nlist; i++)
			printf("%s%u", i ? "," : "", p->rcfg.list[i]);
		printf(" (%s, %u sample%s each)\n", ramp_points_name(p->rcfg.points),
		       p->rcfg.repeat, p->rcfg.repeat > 1 ? "s" : "");
	} else {
		printf("ramp:      from %u users, at most %u%s", p->rcfg.start, p->rcfg.max_users,
		       p->auto_end ? " (what the limits hold)" : "");
		if (p->rcfg.max_points)
			printf(", at most %u points", p->rcfg.max_points);
		if (p->rcfg.max_time_s > 0)
			printf(", at most %.0f s", p->rcfg.max_time_s);
		printf("\n");
	}
	printf("measure:   %s", wl->measure.how == WL_MEASURE_TIME ? "time mode" : "jobs mode");
	if (wl->measure.how == WL_MEASURE_TIME && wl->measure.ramp_s > 0)
		printf(" (%g s a point, the first %g s not counted)", wl->measure.duration_s,
		       wl->measure.ramp_s);
	else if (wl->measure.how == WL_MEASURE_TIME)
		printf(" (%g s a point)", wl->measure.duration_s);
	printf(", warm-up %s, settle %s%s", wl->measure.warmup ? "yes" : "no",
	       wl->measure.settle ? "yes" : "no", wl->measure.drop_caches ? " (drop caches)" : "");
	if (wl->measure.mem_limit)
		printf(", memory limit %llu MiB (the users' cgroup)",
		       (unsigned long long)(wl->measure.mem_limit >> 20));
	printf("\n");
	if (wl->measure.point_noise_pct > 0)
		printf("sizing:    %d pilot samples (not recorded) at the first point's users, "
		       "after the warm-up; when their relative sd is over %g%%, every point of "
		       "every arm %s x2, x4, x8 or x16 ((sd/target)^2 rounded up; a point at "
		       "most %.0f s)\n", RUN_SIZE_PILOTS, wl->measure.point_noise_pct,
		       wl->measure.how == WL_MEASURE_TIME ? "lasts" : "gets its jobs per user",
		       RUN_SIZE_MAX_POINT_S);
	run_print_estimate(p);
	if (p->scratch_raw)
		printf("scratch:   %s (%s): ITS CONTENTS ARE LOST; read and written raw by the "
		       "workload's entries (no file system made on it)\n", a->scratch, p->scratch);
	else if (p->scratch[0])
		printf("scratch:   %s (%s): ITS CONTENTS ARE LOST; a file system made on it "
		       "(mkfs, default ext4) and mounted at %s as the work directory, per arm "
		       "where the arms differ; unmounted at the end\n", a->scratch, p->scratch,
		       p->scratch_mp);
	for (size_t i = 0; i < wl->ndirs; i++)
		printf("work dir:  %s\n", wl->dirs[i]);
	for (size_t i = 0; i < p->devs.n; i++) {
		const struct sys_dev *d = &p->devs.dev[i];
		printf("device:    %s%s%s%s\n", d->name, d->settable ? " (scheduler now " : "",
		       d->settable ? p->active[i] : " (no settable scheduler)",
		       d->settable ? ")" : "");
	}
	if (p->matrix) {
		run_print_matrix(p);
		return;
	}
	if (p->ab) {
		printf("A/B:       %zu schedulers, %u round%s, %s order\n", p->nsched, p->rounds,
		       p->rounds > 1 ? "s" : "", ramp_order_name(p->order));
		for (size_t i = 0; i < p->devs.n; i++) {
			if (!p->devs.dev[i].settable)
				continue;
			printf("switched:  %s: ", p->devs.dev[i].name);
			for (size_t k = 0; k < p->nsched; k++)
				printf("%s%s", k ? ", " : "", p->scheds[k]);
			printf("; back to %s at the end\n", p->active[i]);
		}
		dry_rounds(p, (const char *const *)p->scheds, p->nsched, false);
		printf("index:     %s/<stamp>-%s-ab/index.json\n", a->outdir, wl->name);
	}
	for (size_t i = 0; i < p->narms; i++) {
		const struct run_arm_plan *arm = &p->arms[i];
		char suffix[64] = "";
		if (arm->sched && p->rounds > 1)
			snprintf(suffix, sizeof(suffix), "-%s-r%u", arm->sched, arm->round + 1);
		else if (arm->sched)
			snprintf(suffix, sizeof(suffix), "-%s", arm->sched);
		printf("output:    %s/<stamp>-%s%s/run.json\n", a->outdir, wl->name, suffix);
	}
}
