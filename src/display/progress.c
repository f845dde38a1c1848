// SPDX-License-Identifier: GPL-2.0-only
/*
 * Run output: header, per-point table lines, status line, JSON Lines events.
 * Every string from outside (workload, paths, kernel, devices, schedulers,
 * failure reasons) reaches the terminal through esc_str (escape.h).
 */
#include "jobmix/progress.h"

#include "jobmix/escape.h"
#include "jobmix/parse.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int prog_parse_style(const char *s, enum prog_style *out)
{
	static const char *const names[] = { "auto", "plain", "json", "none", "reaim" };
	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum prog_style)i;
			return 0;
		}
	return -1;
}

/* s made safe for the terminal, in buf (E: a buffer of the caller's). */
#define E(buf, s) esc_str((buf), sizeof(buf), ESC_TEXT, (s))

uint64_t prog_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Emit one JSON Lines event and free it. */
static void event(struct prog *p, json_t *ev)
{
	json_object_set_new(ev, "t", json_real((double)(prog_now_ns() - p->t_start) / 1e9));
	char *s = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
	if (s) {
		fprintf(p->out, "%s\n", s);
		fflush(p->out);
		free(s);
	}
	json_decref(ev);
}

static void clear_status(struct prog *p)
{
	if (p->status_shown) {
		fputs("\r\033[K", p->out);
		p->status_shown = false;
	}
}

/*
 * What a user runs at a point, for the header: the jobs per user after the
 * rounding rule (each kind's share of J rounded, any non-zero share at least
 * one), "31 jobs/user (-j 10: each of 31 kinds at least once)" where that
 * differs from J; in time mode the window instead (users run the list over
 * and over until it ends).
 */
static void prog_jobs_text(const struct workload *wl, char *buf, size_t len)
{
	unsigned j = wl->users.jobs_per_user, kinds = 0, raised = 0;
	uint64_t sum = 0;
	unsigned *counts;

	if (wl->measure.how == WL_MEASURE_TIME) {
		snprintf(buf, len, "%g s a point (--measure time)", wl->measure.duration_s);
		return;
	}
	counts = calloc(wl->nmix ? wl->nmix : 1, sizeof(*counts));
	if (!counts) {
		snprintf(buf, len, "%u jobs/user", j);
		return;
	}
	unsigned total = wl_job_counts(wl, j, counts);
	for (size_t i = 0; i < wl->nmix; i++)
		sum += wl->mix[i].weight;
	for (size_t i = 0; i < wl->nmix; i++) {
		if (!wl->mix[i].weight)
			continue;
		kinds++;
		/* a share that rounds to 0, run once all the same */
		raised += 2.0 * (double)wl->mix[i].weight * j < (double)sum;
	}
	free(counts);
	if (total == j)
		snprintf(buf, len, "%u jobs/user", j);
	else if (raised)
		snprintf(buf, len, "%u jobs/user (-j %u: each of %u kinds at least once)", total, j,
			 kinds);
	else
		snprintf(buf, len, "%u jobs/user (-j %u: each kind's share rounded)", total, j);
}

void prog_init(struct prog *p, enum prog_style style, int verbosity, const struct workload *wl,
	       const struct sys_env *env, const char *run_dir)
{
	prog_init_arm(p, style, verbosity, wl, env, run_dir, NULL, false, true);
}

void prog_init_arm(struct prog *p, enum prog_style style, int verbosity, const struct workload *wl,
		   const struct sys_env *env, const char *run_dir, const char *tag, bool matrix,
		   bool header)
{
	memset(p, 0, sizeof(*p));
	p->tag = tag;
	p->tag_key = matrix ? "arm" : "scheduler";
	p->out = stdout;
	p->tty = isatty(STDOUT_FILENO);
	p->style = style == PROG_AUTO ? PROG_PLAIN : style;
	p->verbosity = verbosity;
	p->run_dir = run_dir;
	p->t_start = prog_now_ns();
	if (p->style == PROG_JSON) {
		event(p, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i}", "event", "start",
				   "workload", wl->name, "run_dir", run_dir, "kernel", env->kernel,
				   "device", env->device, "scheduler", env->scheduler, "cpus",
				   (int)env->cpus));
		return;
	}
	p->crossover = wl->users.mode == WL_RAMP_CONVERGE || wl->users.mode == WL_RAMP_CROSSOVER;
	if (p->style == PROG_REAIM) {
		if (!header)
			return;
		fprintf(p->out, "\n%s\n", wl->sync == JOB_SYNC_NONE
			? "Not executing sync during disk activity---faster execution."
			: "Using default sync behavior during disk activity;  consider using -y.");
		fprintf(p->out, "REAIM Workload\n"
			"Times are in seconds - Child times from tms.cstime and tms.cutime\n\n"
			"Num     Parent   Child   Child  Jobs per   Jobs/min/  Std_dev  Std_dev  JTI\n"
			"Forked  Time     SysTime UTime   Minute     Child      Time     Percent \n");
		fflush(p->out);
		return;
	}
	if (p->style == PROG_NONE || verbosity < 0 || !header)
		return;
	char e1[512], e2[4096 * 4], e4[256], e5[256], e6[256], jobs[96];
	prog_jobs_text(wl, jobs, sizeof(jobs));
	fprintf(p->out, "jobmix %s: %s (%s), %s, %s mode, sync %s, %s\n",
		env->jobmix_version, E(e1, wl->name), E(e2, wl->path), jobs,
		wl_ramp_mode_name(wl->users.mode), wl_sync_name(wl->sync),
		wl->users.as == WL_USERS_THREADS ? "users as threads" : "users as processes");
	fprintf(p->out, "kernel %s, %u cpus, %s on %s%s%s%s, work in %s%s\n", E(e1, env->kernel),
		env->cpus, env->fs_type[0] ? E(e4, env->fs_type) : "?",
		env->device[0] ? E(e5, env->device) : "no device", env->scheduler[0] ? " (" : "",
		E(e6, env->scheduler), env->scheduler[0] ? ")" : "", E(e2, wl->dirs[0]),
		wl->ndirs > 1 ? " ..." : "");
	if (tag)
		fprintf(p->out, "%-12s ", p->tag_key);
	fprintf(p->out, "%7s %12s %10s %10s %7s %9s %9s\n", "users", "JPM", "JPM/user",
		"elapsed_s", "JTI", "user_s", "sys_s");
	fflush(p->out);
}

void prog_point_start(struct prog *p, const char *phase, unsigned users, unsigned k,
		      unsigned sample)
{
	if (p->style == PROG_JSON) {
		event(p, json_pack("{s:s, s:s, s:i, s:i, s:i}", "event", "point_start", "phase",
				   phase ? phase : "", "users", (int)users, "point", (int)k,
				   "sample", (int)sample));
		return;
	}
	p->phase = phase ? phase : "";
	p->users = users;
	p->k = k;
	p->t_point = prog_now_ns();
	prog_tick(p);
}

bool prog_wants_ticks(const struct prog *p)
{
	return p->tty && p->style == PROG_PLAIN && p->verbosity >= 0;
}

void prog_hms(char *buf, size_t len, double s)
{
	unsigned t = s > 0 ? (unsigned)(s + 0.5) : 0;
	if (t >= 3600)
		snprintf(buf, len, "%u:%02u:%02u", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%02u:%02u", t / 60, t % 60);
}

/*
 * The status line's totals: where ("arm 2 of 4, round 1 of 2, ") and what
 * is left (", left ~03:10" from the planned points at the measured pace,
 * ", budget left 04:00" when only --max-time bounds it); "" unknown.
 */
void prog_total_text(const struct prog *p, uint64_t now, char *where, size_t wlen,
		     char *total, size_t tlen)
{
	const struct prog_run *r = p->run;
	where[0] = total[0] = 0;
	if (!r)
		return;
	if (r->arms > 1 || r->rounds > 1)
		snprintf(where, wlen, "arm %u of %u, round %u of %u, ", p->arm_no, r->arms,
			 p->round_no, r->rounds);
	struct ramp_eta e = { .points_total = r->points_total, .points_done = r->points_done,
			      .elapsed_s = (double)(now - r->t_start) / 1e9,
			      .budget_s = r->budget_s };
	double left = ramp_eta_s(&e);
	if (isnan(left))
		return;
	char t[24];
	prog_hms(t, sizeof(t), left);
	bool paced = r->points_total && r->points_done;
	snprintf(total, tlen, ", %s %s%s", paced ? "left" : "budget left", paced ? "~" : "", t);
}

void prog_tick(void *arg)
{
	struct prog *p = arg;
	if (!prog_wants_ticks(p))
		return;
	/* Estimate: the last point's time scaled by users (JPM roughly flat past peak). */
	double eta = p->last_users ? p->last_elapsed * p->users / p->last_users : 0;
	uint64_t now = prog_now_ns();
	double el = (double)(now - p->t_start) / 1e9;
	double in_point = (double)(now - p->t_point) / 1e9;
	double left = eta > in_point ? eta - in_point : 0;
	char next[32] = "?", where[64] = "", total[48] = "";
	if (eta > 0)
		snprintf(next, sizeof(next), "~%.0fs", left);
	prog_total_text(p, now, where, sizeof(where), total, sizeof(total));
	clear_status(p);
	fprintf(p->out, "[%s] %susers %u, point %u, elapsed %02d:%02d%s, next decision in %s, "
		"last %.1f JPM", p->phase, where, p->users, p->k, (int)(el / 60), (int)el % 60,
		total, next, p->last_jpm);
	fflush(p->out);
	p->status_shown = true;
}

void prog_reaim_line(FILE *f, const struct load_point *pt)
{
	double pct = pt->user_time.mean > 0 ? 100 * pt->user_time.stddev / pt->user_time.mean : 0;
	fprintf(f, "%-8u%-8.2f %-7.2f %-7.2f %-10.2f %-10.2f %-8.2f %-8.2f %-4d \n", pt->users,
		pt->elapsed_s, pt->sys_cpu_s, pt->user_cpu_s, pt->jpm, pt->jpm_per_user,
		pt->user_time.stddev, pct, (int)pt->jti);
}

/*
 * An entry's rates over all its users, as run.json's read_mb_s / write_mb_s
 * (res_entry_mb_s): its bytes over its read (write) phases' wall time.
 */
static void prog_entry_rates(FILE *f, const struct load_entry_stats *e, double elapsed_s)
{
	double job = (double)e->lat.sum_ns / 1e9;
	double r = res_entry_mb_s(e->io.rbytes, res_phase_s(e->io.rtime_ns, job), job, elapsed_s);
	double w = res_entry_mb_s(e->io.wbytes, res_phase_s(e->io.wtime_ns, job), job, elapsed_s);
	if (e->io.rbytes && isfinite(r))
		fprintf(f, "  read %8.1f MB/s", r);
	if (e->io.wbytes && isfinite(w))
		fprintf(f, "  write %8.1f MB/s", w);
}

void prog_point_done(struct prog *p, const struct load_point *pt, const struct workload *wl)
{
	p->points++;
	if (p->run)
		p->run->points_done++;
	if (!pt->failed && pt->jpm > p->max_jpm)
		p->max_jpm = pt->jpm;
	char eb[sizeof(pt->reason) * 4];
	if (p->style == PROG_REAIM) {
		if (pt->failed)
			fprintf(p->out, "Failed point at %u users: %s\n", pt->users, E(eb, pt->reason));
		else
			prog_reaim_line(p->out, pt);
		fflush(p->out);
		return;
	}
	p->last_jpm = pt->jpm;
	p->last_elapsed = pt->elapsed_s;
	p->last_users = pt->users;
	if (p->style == PROG_JSON) {
		event(p, json_pack("{s:s, s:i, s:f, s:f, s:f, s:f, s:f, s:f, s:b, s:s?, s:s?}",
				   "event", "point", "users", (int)pt->users, "jpm", pt->jpm,
				   "jpm_per_user", pt->jpm_per_user, "elapsed_s", pt->elapsed_s, "jti",
				   pt->jti, "user_cpu_s", pt->user_cpu_s, "sys_cpu_s", pt->sys_cpu_s,
				   "failed", pt->failed, "reason", pt->failed ? pt->reason : NULL,
				   p->tag_key, p->tag));
		return;
	}
	if (p->style == PROG_NONE || p->verbosity < 0)
		return;
	clear_status(p);
	if (p->tag)
		fprintf(p->out, "%-12s ", E(eb, p->tag));
	if (pt->failed)
		fprintf(p->out, "%7u %12s %10s %10.3f %7s %9.2f %9.2f  FAILED\n", pt->users, "-", "-",
			pt->elapsed_s, "-", pt->user_cpu_s, pt->sys_cpu_s);
	else
		fprintf(p->out, "%7u %12.1f %10.1f %10.3f %7.1f %9.2f %9.2f%s\n", pt->users, pt->jpm,
			pt->jpm_per_user, pt->elapsed_s, pt->jti, pt->user_cpu_s, pt->sys_cpu_s,
			pt->steady_checked ? (pt->steady_attained ? "  steady" : "  not steady") : "");
	if (p->verbosity > 0) {
		for (size_t i = 0; i < pt->nentries; i++) {
			const struct load_entry_stats *e = &pt->entries[i];
			if (!e->runs)
				continue;
			double mean = (double)e->lat.sum_ns / (double)e->runs / 1e6;
			char en[256];
			fprintf(p->out, "        %-20s runs %6llu  mean %9.3f ms  p99 %9.3f ms",
				E(en, wl->mix[i].name), (unsigned long long)e->runs, mean,
				stats_hist_quantile(&e->lat, 0.99) / 1e6);
			prog_entry_rates(p->out, e, pt->elapsed_s);
			fputc('\n', p->out);
		}
	}
	fflush(p->out);
}

void prog_point_machine(struct prog *p, const struct res_machine *m)
{
	if (p->style != PROG_PLAIN || p->verbosity < 0 || !m)
		return;
	if (m->noisy == 1)
		fprintf(p->out, "        noisy: other work took %.0f%% of the CPUs (steal %.1f%%)\n",
			m->other_pct, m->steal_pct);
	if (isfinite(m->mem_limit_bytes)) {
		char lim[32], peak[32];
		jm_format_size((uint64_t)m->mem_limit_bytes, lim, sizeof(lim));
		jm_format_size(isfinite(m->mem_peak_bytes) ? (uint64_t)m->mem_peak_bytes : 0, peak,
			       sizeof(peak));
		fprintf(p->out, "        memory: limit %s, peak %s, page cache hits %.0f%%, "
			"refaults %.0f/s%s\n", lim, peak, m->cache_hit_pct, m->mem_refault_s,
			m->mem_oom_kills > 0 ? " (OOM kills: the limit is too low for the users)" :
			"");
	}
	if (p->verbosity < 1)
		return;
	fprintf(p->out, "        machine  other %5.1f%%  steal %4.1f%%  iowait %6.2f s  ctxt %8.0f/s  "
		"load %5.2f  psi cpu %5.1f%%  io %5.1f%%  mem %5.1f%%  majflt %6.1f/s\n",
		m->other_pct, m->steal_pct, m->iowait_s, m->ctxt_s, m->load1, m->psi_cpu_some,
		m->psi_io_some, m->psi_mem_some, m->pgmajfault_s);
}

/* ms with 4 decimals into buf, "-" when there is none (NAN). */
static const char *prog_ms(char *buf, size_t len, double ms)
{
	if (isfinite(ms))
		snprintf(buf, len, "%.4f", ms);
	else
		snprintf(buf, len, "-");
	return buf;
}

/* A traced device's requests by entry, a line each (entries without requests too). */
static void prog_blk_entries(struct prog *p, const struct res_blk *b)
{
	for (size_t i = 0; b && i < b->nent; i++) {
		const struct res_blk_ent *e = &b->ent[i];
		char en[256], q[4][32];
		fprintf(p->out, "          entry %-20s requests %8llu (r %llu w %llu)  sched p50 %s "
			"p99 %s ms  dev p50 %s p99 %s ms\n", E(en, e->name),
			(unsigned long long)e->requests, (unsigned long long)e->reads,
			(unsigned long long)e->writes, prog_ms(q[0], sizeof(q[0]), e->sched_p50_ms),
			prog_ms(q[1], sizeof(q[1]), e->sched_p99_ms),
			prog_ms(q[2], sizeof(q[2]), e->dev_p50_ms),
			prog_ms(q[3], sizeof(q[3]), e->dev_p99_ms));
	}
}

void prog_point_devices(struct prog *p, const char *const *names, const struct sys_drate *r,
			const bool *have, const struct res_blk *const *blk, size_t n)
{
	if (p->style != PROG_PLAIN || p->verbosity < 1)
		return;
	for (size_t i = 0; i < n; i++) {
		char e[256];
		if (!have[i]) {
			fprintf(p->out, "        device %-10s (no counters for this point)\n",
				E(e, names[i]));
			continue;
		}
		const struct sys_drate *d = &r[i];
		fprintf(p->out,
			"        device %-10s %9.1f IOPS (r %.1f w %.1f) %8.2f MB/s  %6.1f KiB/req "
			"(r %.1f w %.1f)  merged %4.1f%%  util %5.1f%%  qdepth %5.2f\n",
			E(e, names[i]), d->iops, d->rd_iops, d->wr_iops, d->mb_s, d->avg_req_kib,
			d->rd_req_kib, d->wr_req_kib, 100 * d->merge_ratio, 100 * d->util,
			d->avg_qdepth);
		prog_blk_entries(p, blk ? blk[i] : NULL);
	}
	fflush(p->out);
}

void prog_message(struct prog *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (p->style == PROG_JSON) {
		event(p, json_pack("{s:s, s:s}", "event", "message", "text", msg));
		return;
	}
	char e[sizeof(msg) * 4];
	clear_status(p);
	fprintf(stderr, "jobmix run: %s\n", E(e, msg));
}

void prog_finish(struct prog *p, const char *status, const struct ramp_summary *s,
		 const char *why, unsigned samples)
{
	char stop[400];
	snprintf(stop, sizeof(stop), "%s%s%s", ramp_stop_name(s->stop_reason), why ? ": " : "",
		 why ? why : "");
	double wall = (double)(prog_now_ns() - p->t_start) / 1e9;
	if (p->style == PROG_JSON) {
		json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:f, s:s}", "event", "end", "status",
				       status, "run_dir", p->run_dir, "points", (int)samples,
				       "wall_s", wall, "stop_reason", ramp_stop_name(s->stop_reason));
		if (why)
			json_object_set_new(ev, "stop_detail", json_string(why));
		char un[200];
		ramp_unreached_peak(s, un, sizeof(un));
		if (un[0])
			json_object_set_new(ev, "peak_unreached", json_string(un));
		ramp_unreached_converge(s, un, sizeof(un));
		if (un[0])
			json_object_set_new(ev, "converge_unreached", json_string(un));
		if (s->have_peak) {
			json_object_set_new(ev, "peak_established", json_boolean(s->peak_established));
			json_object_set_new(ev, "peak_beaten", json_boolean(s->peak_beaten));
			json_object_set_new(ev, "peak_jpm", json_real(s->peak_jpm));
			json_object_set_new(ev, "peak_users", json_integer(s->peak_users));
			json_object_set_new(ev, "best_jpm", json_real(s->best_jpm));
			json_object_set_new(ev, "best_users", json_integer(s->best_users));
			if (s->peak_users_lo) {
				json_object_set_new(ev, "peak_users_lo", json_integer(s->peak_users_lo));
				json_object_set_new(ev, "peak_users_hi", json_integer(s->peak_users_hi));
			}
			if (s->peak_ci_hi > 0) {
				json_object_set_new(ev, "peak_ci95_lo", json_real(s->peak_ci_lo));
				json_object_set_new(ev, "peak_ci95_hi", json_real(s->peak_ci_hi));
			}
		}
		if (s->nsuspect) {
			json_t *a = json_array();
			for (unsigned i = 0; i < s->nsuspect; i++)
				json_array_append_new(a, json_integer(s->suspect_users[i]));
			json_object_set_new(ev, "suspect_users", a);
		}
		if (s->noise_df) {
			json_object_set_new(ev, "noise_sd_rel", json_real(s->noise_rel));
			json_object_set_new(ev, "noise_df", json_integer(s->noise_df));
		}
		if (s->have_converge) {
			json_object_set_new(ev, "converge_jpm", json_real(s->converge_jpm));
			json_object_set_new(ev, "converge_users", json_integer(s->converge_users));
		}
		if (s->fail_users)
			json_object_set_new(ev, "fail_users", json_integer(s->fail_users));
		if (s->converge_early_users)
			json_object_set_new(ev, "converge_early_users",
					    json_integer(s->converge_early_users));
		event(p, ev);
		return;
	}
	char e[4096 * 4];
	clear_status(p);
	if (p->style == PROG_REAIM) {
		if (p->crossover && s->have_converge)
			fprintf(p->out, "Crossover achieved\n");
		fprintf(p->out, "Max Jobs per Minute %.2f\n", p->max_jpm);
		fflush(p->out);
		for (unsigned i = 0; i < s->nsuspect; i++)
			fprintf(stderr, "jobmix reaim: suspect: the point at %u users lies %.0f%% %s "
				"its neighbours' line (beyond the noise; -r auto samples it again)\n",
				s->suspect_users[i], 100 * fabs(s->suspect_dev[i]),
				s->suspect_dev[i] < 0 ? "below" : "above");
		fprintf(stderr, "jobmix reaim: %s after %u points in %.1f s (%s); results: %s\n",
			status, samples, wall, stop, E(e, p->run_dir));
		return;
	}
	if (p->style != PROG_NONE && p->verbosity >= 0) {
		if (p->tag)
			fprintf(p->out, "%s: ", E(e, p->tag));
		/*
		 * One answer (issue 42, docs/ramps.md): the summary's peak is its
		 * best point too; when a later point beat the search's peak, the
		 * summary's is that point, shown once as the best point.
		 */
		if (s->have_peak)
			fprintf(p->out, "%s: %.1f JPM at %u users%s\n",
				s->peak_established ? "peak" : "best point", s->peak_jpm, s->peak_users,
				s->peak_beaten ? " (no peak claimed: it beat the peak the search settled "
						 "on beyond the noise; measure with -r auto)"
				: s->peak_flat ? " (flat within the noise)" : "");
		if (s->have_peak && s->fail_users)
			fprintf(p->out, "peak not established: the point at %u users failed before "
				"JPM fell beyond the noise\n", s->fail_users);
		if (s->have_peak && s->peak_users_hi > s->peak_users_lo) {
			fprintf(p->out, "within the noise of it: %u to %u users", s->peak_users_lo,
				s->peak_users_hi);
			/* an open top: the range ends at the search's ceiling (ramp.h) */
			if (s->last_users && s->peak_users_hi > s->last_users)
				fprintf(p->out, " (the search's ceiling: nothing measured above %u "
					"users is below it)", s->last_users);
			fputc('\n', p->out);
		}
		if (s->have_peak && s->peak_ci_hi > 0)
			fprintf(p->out, "the peak's 95%% interval: %.1f to %.1f JPM\n", s->peak_ci_lo,
				s->peak_ci_hi);
		for (unsigned i = 0; i < s->nsuspect; i++)
			fprintf(p->out, "suspect: the point at %u users lies %.0f%% %s its neighbours' "
				"line, beyond the noise%s\n", s->suspect_users[i],
				100 * fabs(s->suspect_dev[i]), s->suspect_dev[i] < 0 ? "below" : "above",
				i ? "" : " (a burst of host noise, or the curve: -r auto samples such a "
				"point again)");
		if (s->have_converge) {
			fprintf(p->out, "quick convergence: %.1f JPM at %u users", s->converge_jpm,
				s->converge_users);
			double per_user = s->converge_jpm / s->converge_users;
			if (s->converge_tol > 0 && per_user > s->converge_threshold)
				fprintf(p->out, " (%.1f JPM/user: the crossing within %.1f%% above them)",
					per_user, 100 * s->converge_tol);
			else if (s->converge_tol > 0)
				fprintf(p->out, " (to within %.1f%% of them)", 100 * s->converge_tol);
			fputc('\n', p->out);
		} else if (s->converge_early_users) {
			fprintf(p->out, "quick convergence: none (JPM/user <= %g from %u users on, "
				"not past the peak)\n", s->converge_threshold, s->converge_early_users);
		}
		char un[200];
		ramp_unreached_peak(s, un, sizeof(un));
		if (un[0])
			fprintf(p->out, "%s\n", un);
		ramp_unreached_converge(s, un, sizeof(un));
		if (un[0])
			fprintf(p->out, "%s\n", un);
		if (s->noise_df)
			fprintf(p->out, "noise: samples at one user count spread %.1f%% (sd, pooled, "
				"%u degrees of freedom)\n", 100 * s->noise_rel, s->noise_df);
		fprintf(p->out, "%s after %u points in %.1f s (%s)\n", status, samples, wall, stop);
	}
	fprintf(p->out, "results: %s\n", E(e, p->run_dir));
	fflush(p->out);
}
