// SPDX-License-Identifier: GPL-2.0-only
/*
 * Adapters from what the run measures (load points, the ramp's summary, the
 * workload, the environment) to the results schema's records and objects.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "jobmix/intern.h"
#include "jobmix/proc.h"
#include "jobmix/wl_keys.h"
#include "jobmix/run_record.h"

/* Set o[k] = v (stealing v); clears *ok on any failure (v NULL: no memory). */
static void put(json_t *o, const char *k, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(o, k, v))
		*ok = false;
}

static void push(json_t *a, json_t *v, bool *ok)
{
	if (!v || json_array_append_new(a, v))
		*ok = false;
}

/* Per mix entry: counts, latency and I/O rates (see results.h). */
static void rec_kind(const struct load_entry_stats *e, const struct wl_entry *we, size_t i,
		     double elapsed_s, struct res_kind *k)
{
	const struct stats_hist *h = &e->lat;
	const struct job_io *io = &e->io;
	double job_s = (double)h->sum_ns / 1e9;
	bool lat = h->count > 0, el = elapsed_s > 0;
	double rt = res_phase_s(io->rtime_ns, job_s);
	double wt = res_phase_s(io->wtime_ns, job_s);

	memset(k, 0, sizeof(*k));
	if (we && we->name[0])
		snprintf(k->name, sizeof(k->name), "%s", we->name);
	else if (we && we->kind)
		snprintf(k->name, sizeof(k->name), "%s", we->kind->name);
	else
		snprintf(k->name, sizeof(k->name), "entry%zu", i);
	snprintf(k->job, sizeof(k->job), "%s", we && we->kind ? we->kind->name : "");
	bool writes;
	const char *dev = we && we->kind && we->kind->device ? we->kind->device(we->params, &writes)
							     : NULL;
	if (dev && dev[0])
		snprintf(k->device, sizeof(k->device), "%s", dev);
	k->runs = e->runs;
	k->job_time_s = job_s;
	k->mean_ms = lat ? (double)h->sum_ns / (double)h->count / 1e6 : NAN;
	k->p50_ms = lat ? stats_hist_quantile(h, 0.50) / 1e6 : NAN;
	k->p99_ms = lat ? stats_hist_quantile(h, 0.99) / 1e6 : NAN;
	k->max_ms = lat ? (double)h->max_ns / 1e6 : NAN;
	/* the histogram itself, its counted buckets only (results.h res_hist) */
	size_t nb = 0;
	for (size_t b = 0; lat && b < STATS_HIST_BUCKETS; b++)
		nb += h->bucket[b] > 0;
	k->hist = lat ? malloc(sizeof(*k->hist) + nb * sizeof(k->hist->b[0])) : NULL;
	if (k->hist) {
		*k->hist = (struct res_hist){ .count = h->count, .sum_ns = h->sum_ns,
					      .min_ns = h->min_ns, .max_ns = h->max_ns };
		for (size_t b = 0; b < STATS_HIST_BUCKETS; b++)
			if (h->bucket[b])
				k->hist->b[k->hist->nb++] = (struct res_hist_bucket){
					.i = (uint32_t)b, .n = h->bucket[b] };
	}
	k->rbytes = io->rbytes;
	k->wbytes = io->wbytes;
	k->rops = io->rops;
	k->wops = io->wops;
	k->fsyncs = io->fsyncs;
	k->syncs = io->syncs;
	k->read_time_s = rt;
	k->write_time_s = wt;
	res_kind_rates(k, el ? elapsed_s : NAN);
	k->extents = io->extent_files ? (double)io->extents / (double)io->extent_files : NAN;
}

int rec_point(const struct load_point *p, unsigned sample, const struct workload *wl,
	      struct res_point *o)
{
	res_point_init(o);
	o->users = p->users;
	o->sample = sample;
	o->jobs_per_user = p->jobs_per_user;
	o->jobs = p->jobs;
	o->elapsed_s = p->elapsed_s;
	o->jpm = p->jpm;
	o->jpm_per_user = p->jpm_per_user;
	o->t_min = p->user_time.min;
	o->t_max = p->user_time.max;
	o->t_mean = p->user_time.mean;
	o->t_stddev = p->user_time.stddev;
	o->j_min = p->user_jobs.min;
	o->j_max = p->user_jobs.max;
	o->j_mean = p->user_jobs.mean;
	o->j_stddev = p->user_jobs.stddev;
	o->jti = p->jti;
	o->user_cpu_s = p->user_cpu_s;
	o->sys_cpu_s = p->sys_cpu_s;
	o->jobs_per_cpu_s = res_point_jpcs(p->jobs, p->user_cpu_s, p->sys_cpu_s);
	o->failed = p->failed;
	o->failed_users = p->failed_users;
	o->stuck_users = p->stuck_users;
	if (!p->failed && !p->interrupted)
		o->release_spread_ms = p->release_spread_ms;
	snprintf(o->reason, sizeof(o->reason), "%s", p->reason);
	o->interrupted = p->interrupted;
	if (wl && wl->measure.how == WL_MEASURE_TIME) {
		o->steady_checked = p->steady_checked;
		o->steady_attained = p->steady_attained;
	}
	if (p->settled)
		o->settle_wait_s = p->settle.wait_s;
	if (p->settled && p->settle.full) {
		o->settle_dirty_bytes = p->settle.dirty_bytes;
		o->settle_writeback_bytes = p->settle.writeback_bytes;
		o->settle_left_bytes = p->settle.left_bytes;
		o->settle_wait_s = p->settle.wait_s;
		o->settle_drained = p->settle.drained;
		o->settle_dropped = p->settle.dropped;
	}
	if (!p->nentries)
		return 0;
	o->kinds = calloc(p->nentries, sizeof(*o->kinds));
	if (!o->kinds)
		return -1;
	o->nkinds = p->nentries;
	for (size_t i = 0; i < p->nentries; i++)
		rec_kind(&p->entries[i], wl && i < wl->nmix ? &wl->mix[i] : NULL, i, p->elapsed_s,
			 &o->kinds[i]);
	return 0;
}

static int rec_cmp_by_users(const void *a, const void *b)
{
	unsigned x = ((const struct res_by_users *)a)->users, y = ((const struct res_by_users *)b)->users;
	return x < y ? -1 : x > y;
}

int rec_summary(const struct ramp_obs *obs, size_t nobs, const struct ramp_summary *s,
		unsigned samples, double wall_s, struct res_summary *o)
{
	res_summary_init(o);
	if (s->have_peak) {
		o->peak_jpm = s->peak_jpm;
		o->peak_users = s->peak_users;
		o->best_jpm = s->best_jpm;
		o->best_users = s->best_users;
	}
	o->peak_established = s->peak_established;
	o->peak_flat = s->peak_flat;
	o->peak_beaten = s->peak_beaten;
	o->converge_threshold = s->converge_threshold;
	if (s->have_converge) {
		o->converge_jpm = s->converge_jpm;
		o->converge_users = s->converge_users;
		if (s->converge_tol > 0) {
			o->converge_tol = s->converge_tol;
			o->converge_tol_from = util_istr(ramp_tol_src_name(s->converge_tol_src));
		}
		if (s->converge_scatter_df)
			o->converge_scatter = s->converge_scatter;
	}
	o->points_measured = samples;
	o->wall_s = wall_s;
	o->stop_reason = ramp_stop_name(s->stop_reason);
	if (s->noise_df)
		o->noise_sd_rel = s->noise_rel;
	o->noise_df = s->noise_df;
	o->peak_users_lo = s->peak_users_lo;
	o->peak_users_hi = s->peak_users_hi;
	if (s->peak_ci_hi > 0) {
		o->peak_ci95_lo = s->peak_ci_lo;
		o->peak_ci95_hi = s->peak_ci_hi;
	}
	char suspect[96] = "";
	for (unsigned i = 0, at = 0; i < s->nsuspect && at < sizeof(suspect); i++)
		at += (unsigned)snprintf(suspect + at, sizeof(suspect) - at, "%s%u", i ? " " : "",
					 s->suspect_users[i]);
	o->suspect_users = util_istr(suspect);
	char pk[160], cv[200], both[400];
	ramp_unreached_peak(s, pk, sizeof(pk));
	ramp_unreached_converge(s, cv, sizeof(cv));
	snprintf(both, sizeof(both), "%s%s%s", pk, pk[0] && cv[0] ? "; " : "", cv);
	o->outcome = util_istr(both);
	if (!nobs)
		return 0;
	o->by = calloc(nobs, sizeof(*o->by));
	if (!o->by)
		return -1;
	o->nby = nobs;
	for (size_t i = 0; i < nobs; i++) {
		const struct ramp_obs *b = &obs[i];
		o->by[i] = (struct res_by_users){
			.users = b->users, .n = b->n < RAMP_MAX_SAMPLES ? b->n : RAMP_MAX_SAMPLES,
			.jpm_mean = b->mean, .jpm_sd = b->sd, .ci95_lo = b->ci_lo,
			.ci95_hi = b->ci_hi, .failed = b->failed, .samples = (double *)b->jpm,
		};
	}
	/* by users, whatever order the points were measured in */
	qsort(o->by, nobs, sizeof(*o->by), rec_cmp_by_users);
	return 0;
}

/* One parameter's value, typed: sizes and ints as integers, flags as a list. */
static json_t *rec_param_json(const struct job_param *p, const void *params)
{
	const char *at = (const char *)params + p->offset;
	switch (p->type) {
	case JP_INT: {
		int64_t v;
		memcpy(&v, at, sizeof(v));
		return json_integer((json_int_t)v);
	}
	case JP_SIZE: {
		uint64_t v;
		memcpy(&v, at, sizeof(v));
		return res_json_u64(v);
	}
	case JP_BOOL: {
		bool v;
		memcpy(&v, at, sizeof(v));
		return json_boolean(v);
	}
	case JP_DOUBLE: {
		double v;
		memcpy(&v, at, sizeof(v));
		return res_json_num(v);
	}
	case JP_ENUM: {
		int v;
		memcpy(&v, at, sizeof(v));
		return res_json_str(p->choices[v]);
	}
	case JP_FLAGS: {
		unsigned v;
		memcpy(&v, at, sizeof(v));
		json_t *a = json_array();
		bool ok = a != NULL;
		for (int i = 0; ok && p->choices[i]; i++)
			if (v & (1u << i))
				push(a, res_json_str(p->choices[i]), &ok);
		if (!ok) {
			json_decref(a);
			return NULL;
		}
		return a;
	}
	case JP_RANGE:
	case JP_WEIGHTS: {
		/* a fixed size as a number (as JP_SIZE), a range or weights as written */
		struct job_range r;
		memcpy(&r, at, sizeof(r));
		if (p->type == JP_RANGE && r.lo == r.hi)
			return res_json_u64(r.lo);
		char text[JOB_MAX_WEIGHTS * 8 + 8];
		job_param_format(p, params, text, sizeof(text));
		return res_json_str(text);
	}
	case JP_DEVICE:
		return at[0] ? res_json_str(at) : json_null();
	}
	return json_null();
}

/* One mix entry: kind, name, weight, runs per user (what the job list holds), parameters. */
static json_t *rec_mix_json(const struct wl_entry *e, unsigned runs, bool *ok)
{
	json_t *o = json_object(), *params = json_object(), *set = json_array();
	if (!o || !params || !set) {
		*ok = false;
		json_decref(params);
		json_decref(set);
		return o;
	}
	const struct job_kind *k = e->kind;
	put(o, "job", res_json_str(k ? k->name : NULL), ok);
	put(o, "name", res_json_str(e->name[0] ? e->name : (k ? k->name : "")), ok);
	put(o, "weight", json_integer(e->weight), ok);
	put(o, "runs_per_user", json_integer(runs), ok);
	size_t n = k ? job_nparams_all(k) : 0;
	for (size_t i = 0; i < n && e->params; i++) {
		const struct job_param *p = job_param_at(k, i);
		put(params, p->name, rec_param_json(p, wl_entry_cvalues(e, p)), ok);
		if (i < 64 && (e->set_mask & (1ULL << i)))
			push(set, res_json_str(p->name), ok);
	}
	put(o, "params", params, ok);
	put(o, "params_set", set, ok);
	return o;
}

/* o[path] = v, making the parent object of "a.b" as needed. */
static void put_path(json_t *o, const char *path, json_t *v, bool *ok)
{
	const char *dot = strchr(path, '.');
	if (!dot) {
		put(o, path, v, ok);
		return;
	}
	char parent[64];
	snprintf(parent, sizeof(parent), "%.*s", (int)(dot - path), path);
	json_t *sub = json_object_get(o, parent);
	if (!sub) {
		sub = json_object();
		put(o, parent, sub, ok);
	}
	if (sub)
		put(sub, dot + 1, v, ok);
	else
		json_decref(v);
}

/* The resolved workload for run.json: every key with a json name, typed, from the key table. */
json_t *rec_workload_json(const struct workload *wl)
{
	bool okv = true, *ok = &okv;
	json_t *o = json_object();
	if (!o)
		return NULL;
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		const char *at = (const char *)wl + k->offset;
		char path[96];
		if (!k->json)
			continue;
		switch (k->type) {
		case WK_SECTION:
		case WK_NAME:
		case WK_TEXT:
			break;   /* names and text go in workload.name and .description */
		case WK_UINT:
		case WK_END:
			put_path(o, k->json, json_integer(*(const unsigned *)at), ok);
			break;
		case WK_STEP:
			put_path(o, k->json, json_integer(*(const unsigned *)at), ok);
			snprintf(path, sizeof(path), "%.*sgeometric", (int)(strrchr(k->json, '.') + 1 - k->json),
				 k->json);
			put_path(o, path, json_boolean(wl->users.geometric), ok);
			break;
		case WK_REPEAT:
			put_path(o, k->json, json_integer(*(const unsigned *)at), ok);
			snprintf(path, sizeof(path), "%s_auto", k->json);
			put_path(o, path, json_boolean(wl->users.repeat_auto), ok);
			break;
		case WK_U64:
		case WK_SIZE:
			put_path(o, k->json, res_json_u64(*(const uint64_t *)at), ok);
			break;
		case WK_DURATION:
		case WK_REAL:
		case WK_STEADY:
		case WK_PCT:
			put_path(o, k->json, res_json_num(*(const double *)at), ok);
			break;
		case WK_BOOL:
			put_path(o, k->json, json_boolean(*(const bool *)at), ok);
			break;
		case WK_ENUM: {
			int v;
			memcpy(&v, at, sizeof(v));
			put_path(o, k->json, res_json_str(k->choices[v]), ok);
			break;
		}
		case WK_DIRS: {
			json_t *dirs = json_array();
			for (size_t d = 0; dirs && d < wl->ndirs; d++)
				push(dirs, res_json_str(wl->dirs[d]), ok);
			put_path(o, k->json, dirs, ok);
			break;
		}
		case WK_MIX: {
			json_t *mix = json_array();
			unsigned *runs = calloc(wl->nmix ? wl->nmix : 1, sizeof(*runs));
			if (!runs)
				*ok = false;
			else
				wl_job_counts(wl, wl->users.jobs_per_user, runs);
			for (size_t m = 0; mix && runs && m < wl->nmix; m++)
				push(mix, rec_mix_json(&wl->mix[m], runs[m], ok), ok);
			free(runs);
			put_path(o, k->json, mix, ok);
			break;
		}
		}
	}
	if (!okv) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* A string, or null when it is empty. */
static json_t *str_or_null(const char *s)
{
	return s && s[0] ? res_json_str(s) : json_null();
}

/* A number read from /sys, or null when it could not be read (-1). */
static json_t *num_or_null(long v)
{
	return v < 0 ? json_null() : json_integer(v);
}

/* One device's queue settings (env.queues[]). */
static json_t *rec_queue_json(const struct sys_queue *q)
{
	bool ok = true;
	json_t *o = json_object(), *t = json_object();
	if (!o || !t) {
		json_decref(o);
		json_decref(t);
		return NULL;
	}
	put(o, "device", res_json_str(q->dev), &ok);
	put(o, "via", str_or_null(q->via), &ok);
	put(o, "stacked", json_boolean(q->stacked), &ok);
	put(o, "settable", json_boolean(q->settable), &ok);
	put(o, "scheduler", str_or_null(q->scheduler), &ok);
	put(o, "schedulers", res_json_str(q->schedulers), &ok);
	put(o, "nr_requests", num_or_null(q->nr_requests), &ok);
	put(o, "read_ahead_kb", num_or_null(q->read_ahead_kb), &ok);
	put(o, "max_sectors_kb", num_or_null(q->max_sectors_kb), &ok);
	put(o, "rotational", num_or_null(q->rotational), &ok);
	put(o, "logical_block_size", num_or_null(q->logical_block_size), &ok);
	put(o, "physical_block_size", num_or_null(q->physical_block_size), &ok);
	put(o, "write_cache", str_or_null(q->write_cache), &ok);
	put(o, "nomerges", num_or_null(q->nomerges), &ok);
	for (size_t i = 0; i < q->ntunables; i++)
		put(t, q->tunables[i].name, res_json_str(q->tunables[i].value), &ok);
	put(o, "iosched", t, &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* env.context: what else the numbers depend on (sys_context.h). */
static json_t *rec_context_json(const struct sys_context *c)
{
	bool ok = true;
	json_t *o = json_object();
	if (!o)
		return NULL;
	put(o, "cpu_model", str_or_null(c->cpu_model), &ok);
	put(o, "cpus_online", json_integer(c->cpus_online), &ok);
	put(o, "cpus_allowed", c->cpus_allowed ? json_integer(c->cpus_allowed) : json_null(), &ok);
	put(o, "cpus_allowed_list", str_or_null(c->cpus_allowed_list), &ok);
	put(o, "governor", str_or_null(c->governor), &ok);
	put(o, "boost", str_or_null(c->boost), &ok);
	put(o, "smt", str_or_null(c->smt), &ok);
	put(o, "thp", str_or_null(c->thp), &ok);
	put(o, "thp_defrag", str_or_null(c->thp_defrag), &ok);
	put(o, "mem_bytes", res_json_u64(c->mem_bytes), &ok);
	put(o, "swap_bytes", res_json_u64(c->swap_bytes), &ok);
	put(o, "cmdline", res_json_str(c->cmdline), &ok);
	put(o, "virt", res_json_str(c->virt), &ok);
	put(o, "build", res_json_str(c->build), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *rec_env_json(const struct sys_env *e)
{
	if (!e)
		return json_null();
	bool ok = true;
	json_t *o = json_object();
	if (!o)
		return NULL;
	put(o, "kernel", res_json_str(e->kernel), &ok);
	put(o, "hostname", res_json_str(e->hostname), &ok);
	put(o, "machine_id", str_or_null(e->machine_id), &ok);
	put(o, "machine", res_json_str(e->machine), &ok);
	put(o, "cpus", json_integer(e->cpus), &ok);
	put(o, "mem_bytes", res_json_u64(e->mem_bytes), &ok);
	put(o, "fs_type", res_json_str(e->fs_type), &ok);
	put(o, "mount_point", res_json_str(e->mount_point), &ok);
	put(o, "mount_options", res_json_str(e->mount_options), &ok);
	put(o, "device", str_or_null(e->device), &ok);
	put(o, "scheduler", str_or_null(e->scheduler), &ok);
	put(o, "schedulers", res_json_str(e->schedulers), &ok);
	put(o, "jobmix_version", res_json_str(e->jobmix_version), &ok);
	put(o, "context", rec_context_json(&e->ctx), &ok);
	json_t *qs = json_array();
	put(o, "queues", qs, &ok);
	for (size_t i = 0; qs && i < e->nqueues; i++)
		push(qs, rec_queue_json(&e->queues[i]), &ok);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int rec_add_point(struct res_run *r, const struct load_point *p, unsigned sample,
		  const struct workload *wl)
{
	struct res_point rp;
	int rc = rec_point(p, sample, wl, &rp);
	if (!rc)
		rc = res_run_add_point(r, &rp);
	res_kinds_free(rp.kinds, rp.nkinds);
	return rc;
}

int rec_set_summary(struct res_run *r, const struct ramp_obs *obs, size_t nobs,
		    const struct ramp_summary *s, unsigned samples, double wall_s)
{
	struct res_summary rs;
	int rc = rec_summary(obs, nobs, s, samples, wall_s, &rs);
	if (!rc)
		rc = res_run_set_summary(r, &rs);
	free(rs.by);
	return rc;
}

void rec_dev(const char *name, const struct sys_drate *d, struct res_dev *out)
{
	res_dev_init(out);
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->window_s = d->secs;
	out->rd_ios = d->rd_ios;
	out->wr_ios = d->wr_ios;
	out->rd_merges = d->rd_merges;
	out->wr_merges = d->wr_merges;
	out->rd_sectors = d->rd_sectors;
	out->wr_sectors = d->wr_sectors;
	out->flushes = d->fl_ios;
	out->io_ticks_ms = d->io_ticks_ms;
	out->time_in_queue_ms = d->time_in_queue_ms;
	bool t = d->secs > 0;
	out->iops = t ? d->iops : NAN;
	out->read_iops = t ? d->rd_iops : NAN;
	out->write_iops = t ? d->wr_iops : NAN;
	out->mb_s = t ? d->mb_s : NAN;
	out->read_mb_s = t ? d->rd_mb_s : NAN;
	out->write_mb_s = t ? d->wr_mb_s : NAN;
	out->avg_req_kib = d->rd_ios + d->wr_ios ? d->avg_req_kib : NAN;
	out->read_req_kib = d->rd_ios ? d->rd_req_kib : NAN;
	out->write_req_kib = d->wr_ios ? d->wr_req_kib : NAN;
	out->merge_ratio = d->rd_ios + d->wr_ios + d->rd_merges + d->wr_merges ? d->merge_ratio : NAN;
	out->util = t ? d->util : NAN;
	out->avg_qdepth = t ? d->avg_qdepth : NAN;
}

int rec_add_point_devs(struct res_run *r, const struct load_point *p, unsigned sample,
		       const struct workload *wl, const char *work_dev, const struct res_dev *devs,
		       size_t ndevs, const struct res_machine *m)
{
	struct res_point rp;
	int rc = rec_point(p, sample, wl, &rp);
	/* an entry on the work directory does its I/O on the work directory's device */
	for (size_t i = 0; !rc && work_dev && wl && i < rp.nkinds && i < wl->nmix; i++)
		if (!rp.kinds[i].device[0] && wl->mix[i].kind &&
		    (wl->mix[i].kind->flags & JOB_DISK))
			snprintf(rp.kinds[i].device, sizeof(rp.kinds[i].device), "%s", work_dev);
	if (!rc) {
		if (m)
			rp.machine = *m;
		rp.devs = (struct res_dev *)devs;
		rp.ndevs = ndevs;
		rc = res_run_add_point(r, &rp);
	}
	res_kinds_free(rp.kinds, rp.nkinds);
	return rc;
}

struct res_run *rec_run_create(const char *outdir, const struct workload *wl,
			       const struct sys_env *env, const struct res_kv *labels,
			       size_t nlabels, int argc, char **argv, char *err, size_t errlen)
{
	return rec_run_create_named(outdir, wl, env, labels, nlabels, argc, argv, NULL, NULL, err,
				    errlen);
}

struct res_run *rec_run_create_named(const char *outdir, const struct workload *wl,
				     const struct sys_env *env, const struct res_kv *labels,
				     size_t nlabels, int argc, char **argv, const char *suffix,
				     const char *found, char *err, size_t errlen)
{
	json_t *resolved = rec_workload_json(wl), *envj = rec_env_json(env);
	struct res_run *r = NULL;
	char host[256] = "", boot[40] = "";
	struct res_owner owner = { .pid = (long)getpid(), .host = host, .boot = boot };
	bool have_owner = !util_proc_start_time(owner.pid, &owner.start) &&
			  !util_boot_id(boot, sizeof(boot)) && !gethostname(host, sizeof(host) - 1);
	if (!resolved || !envj) {
		snprintf(err, errlen, "results: out of memory");
		goto out;
	}
	struct res_run_head h = {
		.wl_name = wl->name, .wl_path = wl->path, .wl_sha256 = wl->sha256,
		.wl_description = wl->description, .wl_found = found, .resolved = resolved,
		.env = json_is_null(envj) ? NULL : envj,
		.labels = labels, .nlabels = nlabels, .argc = argc, .argv = argv,
		.name_suffix = suffix, .owner = have_owner ? &owner : NULL,
	};
	r = res_run_create(outdir, &h, err, errlen);
out:
	json_decref(resolved);
	json_decref(envj);
	return r;
}
