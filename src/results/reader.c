// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading runs back: run.json into the typed records of results.h through
 * the schema's tables, and finding every run.json below a results root.
 */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "jobmix/intern.h"
#include "jobmix/readfile.h"
#include "jobmix/results.h"
#include "jobmix/stats.h"
#include "schema.h"

void res_kinds_free(struct res_kind *k, size_t n)
{
	for (size_t i = 0; k && i < n; i++)
		free(k[i].hist);
	free(k);
}

/*
 * jobs_by_kind.ENTRY.hist into k->hist: a histogram of our layout, buckets
 * in range and counting up to count; anything else is left out (NULL), as
 * a file without one.  -1 only when out of memory.
 */
static int res_hist_read(const json_t *o, const char *layout, const char *sfx,
			 struct res_hist **out);

static int res_read_hist(const json_t *o, struct res_kind *k)
{
	return res_hist_read(o, RES_HIST_LAYOUT, "_ns", &k->hist);
}

/*
 * A histogram of run.json (res_hist_json's) of layout `layout`, its sum,
 * min and max keys ending in sfx, into *out; anything else is left out
 * (NULL).  -1 only when out of memory.
 */
static int res_hist_read(const json_t *o, const char *layout, const char *sfx,
			 struct res_hist **out)
{
	const json_t *lay = json_object_get(o, "layout"), *bs = json_object_get(o, "buckets");
	json_int_t c = json_integer_value(json_object_get(o, "count"));
	char key[3][16];
	*out = NULL;
	if (!json_is_object(o) || !json_is_string(lay) ||
	    strcmp(json_string_value(lay), layout) || !json_is_array(bs) || c <= 0 ||
	    json_array_size(bs) > 4096)
		return 0;
	size_t nb = json_array_size(bs);
	struct res_hist *h = calloc(1, sizeof(*h) + nb * sizeof(h->b[0]));
	if (!h)
		return -1;
	snprintf(key[0], sizeof(key[0]), "sum%s", sfx);
	snprintf(key[1], sizeof(key[1]), "min%s", sfx);
	snprintf(key[2], sizeof(key[2]), "max%s", sfx);
	h->count = (uint64_t)c;
	h->sum_ns = (uint64_t)json_integer_value(json_object_get(o, key[0]));
	h->min_ns = (uint64_t)json_integer_value(json_object_get(o, key[1]));
	h->max_ns = (uint64_t)json_integer_value(json_object_get(o, key[2]));
	uint64_t total = 0;
	for (size_t i = 0; i < nb; i++) {
		const json_t *e = json_array_get(bs, i);
		json_int_t bi = json_integer_value(json_array_get(e, 0));
		json_int_t bn = json_integer_value(json_array_get(e, 1));
		if (json_array_size(e) != 2 || bi < 0 || bi >= 4096 || bn <= 0) {
			free(h);
			return 0;
		}
		h->b[h->nb++] = (struct res_hist_bucket){ .i = (uint32_t)bi, .n = (uint64_t)bn };
		total += (uint64_t)bn;
	}
	if (total != h->count || h->min_ns > h->max_ns) {
		free(h);
		return 0;
	}
	*out = h;
	return 0;
}

/* points[].devices.DEV.blk_hist into d->blk (NULL when there is none).  -1 out of memory. */
static int res_read_blk(const json_t *o, struct res_dev *d)
{
	if (!json_is_object(o))
		return 0;
	struct res_blk *b = calloc(1, sizeof(*b));
	bool any = false;
	if (!b)
		return -1;
	for (int op = 0; op < RES_BLK_NOPS; op++) {
		const json_t *oj = json_object_get(o, res_blk_op_names[op]);
		for (int w = 0; w < RES_BLK_NWHAT; w++) {
			if (res_hist_read(json_object_get(oj, res_blk_what_names[w]), RES_BLK_LAYOUT,
					  "", &b->h[op][w])) {
				res_blk_free(b);
				return -1;
			}
			any |= b->h[op][w] != NULL;
		}
	}
	if (res_hist_read(json_object_get(o, "time_depth"), RES_BLK_LAYOUT, "", &b->tdepth)) {
		res_blk_free(b);
		return -1;
	}
	any |= b->tdepth != NULL;
	if (!any) {
		free(b);
		b = NULL;
	}
	d->blk = b;
	return 0;
}

void res_rec_drop_points(struct res_rec *r)
{
	for (size_t i = 0; i < r->npoints; i++) {
		res_kinds_free(r->points[i].kinds, r->points[i].nkinds);
		res_devs_free(r->points[i].devs, r->points[i].ndevs);
	}
	free(r->points);
	r->points = NULL;
	r->npoints = 0;
	r->points_part = false;
}

/* s's by-users entries and samples freed (the curve left as it is). */
static void res_summary_free_by(struct res_summary *s)
{
	for (size_t i = 0; i < s->nby && !s->by_packed; i++)
		free(s->by[i].samples);
	free(s->by);
	s->by = NULL;
	s->nby = 0;
	s->by_packed = false;
}

void res_summary_drop_by(struct res_summary *s)
{
	res_summary_free_by(s);
	free(s->curve);
	s->curve = NULL;
	s->ncurve = 0;
	s->curve_own = false;
}

int res_summary_curve(struct res_summary *s)
{
	free(s->curve);
	s->curve = NULL;
	s->ncurve = 0;
	s->curve_own = false;
	if (!s->nby)
		return 0;
	if (!(s->curve = calloc(s->nby, sizeof(*s->curve))))
		return -1;
	for (size_t i = 0; i < s->nby; i++)
		s->curve[i] = (struct res_curve_pt){ s->by[i].users, s->by[i].n & 0x7fffffffu,
						     s->by[i].failed, s->by[i].samples };
	s->ncurve = s->nby;
	return 0;
}

int res_summary_keep_curve(struct res_summary *s)
{
	size_t total = 0;
	for (size_t i = 0; i < s->nby; i++)
		total += s->by[i].samples ? s->by[i].n : 0;
	struct res_curve_pt *c = s->nby ? calloc(1, s->nby * sizeof(*c) + total * sizeof(double))
					: NULL;
	if (s->nby && !c)
		return -1;
	double *room = c ? (double *)(c + s->nby) : NULL;
	for (size_t i = 0; i < s->nby; i++) {
		const struct res_by_users *b = &s->by[i];
		c[i] = (struct res_curve_pt){ b->users, b->n & 0x7fffffffu, b->failed, NULL };
		if (b->samples && b->n) {
			memcpy(room, b->samples, b->n * sizeof(double));
			c[i].samples = room;
			room += b->n;
		}
	}
	size_t n = s->nby;
	res_summary_drop_by(s);
	s->curve = c;
	s->ncurve = n;
	s->curve_own = true;
	return 0;
}

void res_rec_keep_peak_points(struct res_rec *r)
{
	size_t k = 0;
	bool *keep = r->npoints ? calloc(r->npoints, sizeof(*keep)) : NULL;
	if (r->npoints && !keep)
		return;   /* out of memory: every point kept */
	for (size_t i = 0; i < r->npoints; i++)   /* judged before any moves */
		keep[i] = res_rec_peak_point(r, i);
	for (size_t i = 0; i < r->npoints; i++) {
		struct res_point *p = &r->points[i];
		res_kinds_free(p->kinds, p->nkinds);
		p->kinds = NULL;
		p->nkinds = 0;
		if (!keep[i]) {
			res_devs_free(p->devs, p->ndevs);
			continue;
		}
		r->points[k++] = *p;
	}
	free(keep);
	r->npoints = k;
	r->points_part = true;
	if (!k) {
		free(r->points);
		r->points = NULL;
		r->points_part = false;
	}
}

void res_rec_free(struct res_rec *r)
{
	if (!r)
		return;
	res_rec_drop_points(r);
	res_summary_drop_by(&r->summary);
	if (!r->lists_shared) {
		free(r->labels);
		free(r->env);
		free(r->settings);
	}
	res_rec_init(r);
}

bool res_rec_peak_point(const struct res_rec *r, size_t i)
{
	const struct res_summary *s = &r->summary;
	unsigned u = r->points[i].users;
	bool any = false;
	if (s->peak_beaten && isfinite(s->best_jpm)) {
		any = true;
		if (u == s->best_users)
			return true;
	}
	if (isfinite(s->peak_jpm)) {
		any = true;
		if (u == s->peak_users)
			return true;
	}
	if (isfinite(s->max_jpm)) {
		any = true;
		if (u == s->max_jpm_users)
			return true;
	}
	if (any)
		return false;
	for (size_t k = 0; k < r->npoints; k++)
		if (!r->points[k].failed && !r->points[k].interrupted)
			return u == r->points[k].users;
	return false;
}

void res_rec_derive(struct res_rec *r)
{
	r->npoints_ok = 0;
	r->fail_users = 0;
	r->fail_reason = "";
	for (size_t i = 0; i < r->npoints; i++) {
		const struct res_point *p = &r->points[i];
		if (!p->failed && !p->interrupted)
			r->npoints_ok++;
		if (p->failed && p->reason[0]) {
			r->fail_users = p->users;
			r->fail_reason = util_istr(p->reason);
		}
	}
}

/*
 * The JPM range of r's points at users (0: every count), failed ones too
 * (the ramp keeps their samples: a count that failed has a mean of them);
 * false when there is none.
 */
static bool res_points_range(const struct res_rec *r, unsigned users, double *lo, double *hi)
{
	bool any = false;
	for (size_t i = 0; i < r->npoints; i++) {
		const struct res_point *p = &r->points[i];
		if (!isfinite(p->jpm) || (users && p->users != users))
			continue;
		*lo = any && *lo < p->jpm ? *lo : p->jpm;
		*hi = any && *hi > p->jpm ? *hi : p->jpm;
		any = true;
	}
	return any;
}

/* Is figure v of field what at users one the points measured?  0, or -1 with err. */
static int res_check_figure(const struct res_rec *r, const char *what, double v, unsigned users,
			    char *err, size_t errlen)
{
	double lo = 0, hi = 0;
	if (!isfinite(v))
		return 0;
	char at[32] = "";
	if (users)
		snprintf(at, sizeof(at), " at %u users", users);
	if (!res_points_range(r, users, &lo, &hi)) {
		snprintf(err, errlen, "'%s': summary.%s %.6g%s contradicts its points: none "
			 "measured there", r->path, what, v, at);
		return -1;
	}
	double slack = 1e-9 * (fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi)) + 1e-9;
	if (v >= lo - slack && v <= hi + slack)
		return 0;
	if (lo == hi)
		snprintf(err, errlen, "'%s': summary.%s %.6g%s contradicts its points: they "
			 "measured %.6g JPM there", r->path, what, v, at, lo);
	else
		snprintf(err, errlen, "'%s': summary.%s %.6g%s contradicts its points: they "
			 "measured %.6g to %.6g JPM there", r->path, what, v, at, lo, hi);
	return -1;
}

int res_rec_check_summary(const struct res_rec *r, char *err, size_t errlen)
{
	const struct res_summary *s = &r->summary;
	if (r->points_part)
		return 0;     /* only some of its points kept: judged when read whole */
	if (res_check_figure(r, "peak_jpm", s->peak_jpm, s->peak_users, err, errlen) ||
	    res_check_figure(r, "best_jpm", s->best_jpm, s->best_users, err, errlen) ||
	    res_check_figure(r, "converge_jpm", s->converge_jpm, s->converge_users, err, errlen) ||
	    res_check_figure(r, "max_jpm", s->max_jpm, s->max_jpm_users, err, errlen))
		return -1;
	for (size_t i = 0; i < s->nby; i++) {
		const struct res_by_users *b = &s->by[i];
		if (!b->n)
			continue;   /* no sample: its mean is no figure */
		if (res_check_figure(r, "by_users[].jpm_mean", b->jpm_mean, b->users, err, errlen))
			return -1;
		for (size_t k = 0; k < b->n && b->samples; k++)
			if (res_check_figure(r, "by_users[].jpm_samples[]", b->samples[k], b->users,
					     err, errlen))
				return -1;
	}
	return 0;
}

int res_rec_share_lists(struct res_rec *r)
{
	if (r->lists_shared)
		return 0;
	const void *l = r->nlabels ? util_intern_blob(r->labels, r->nlabels * sizeof(*r->labels)) : NULL;
	const void *e = r->nenv ? util_intern_blob(r->env, r->nenv * sizeof(*r->env)) : NULL;
	const void *s = r->nsettings ? util_intern_blob(r->settings,
							 r->nsettings * sizeof(*r->settings)) : NULL;
	if ((r->nlabels && !l) || (r->nenv && !e) || (r->nsettings && !s))
		return -1;
	free(r->labels);
	free(r->env);
	free(r->settings);
	/* shared and never written again: res_rec_free leaves them */
	r->labels = (struct res_kv *)l;
	r->env = (struct res_kv *)e;
	r->settings = (struct res_setting *)s;
	r->lists_shared = true;
	return 0;
}

/* The empty run, made once: 100,000 runs read start from it. */
static void res_rec_init_once(struct res_rec *r)
{
	memset(r, 0, sizeof(*r));
	r->path = r->dir = r->wl_path = r->wl_description = "";
	r->users_spec = r->users_resolved = r->fail_reason = "";
	r->id = r->session = r->wl_name = r->wl_sha256 = "";
	res_fields_init(res_run_fields, r, 0);
	res_summary_init(&r->summary);
	res_sched_init(&r->sched);
	res_warmup_init(&r->warmup);
	r->owner.host = r->owner.boot = "";
}

void res_rec_init(struct res_rec *r)
{
	static struct res_rec empty;
	static bool made;
	if (!made) {
		res_rec_init_once(&empty);
		made = true;
	}
	*r = empty;
}

/* "jobmix-run/N" -> N in 1..RES_SCHEMA_VERSION, else 0. */
static unsigned res_schema_version(const char *s)
{
	size_t n = strlen(RES_SCHEMA_PREFIX);
	if (strncmp(s, RES_SCHEMA_PREFIX, n) || !s[n])
		return 0;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s + n, &end, 10);
	if (errno || *end || s[n] < '1' || s[n] > '9' || v > RES_SCHEMA_VERSION)
		return 0;
	return (unsigned)v;
}

/* A JSON scalar as text: strings as they are, numbers as printed, null as "". */
static void res_scalar_text(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%.15g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else
		buf[0] = 0;
}

/* An object of scalars as key/value text (nested values skipped). */
static int res_read_kv(const json_t *o, struct res_kv **out, size_t *n)
{
	const char *key;
	json_t *v;
	size_t k = 0;
	*out = NULL;
	*n = 0;
	if (!json_is_object(o) || !json_object_size(o))
		return 0;
	*out = calloc(json_object_size(o), sizeof(**out));
	if (!*out)
		return -1;
	json_object_foreach((json_t *)o, key, v) {
		if (json_is_object(v) || json_is_array(v))
			continue;
		snprintf((*out)[k].key, sizeof((*out)[k].key), "%s", key);
		res_scalar_text(v, (*out)[k].value, sizeof((*out)[k].value));
		k++;
	}
	*n = k;
	return 0;
}

/*
 * An object {name: {record}} (jobs_by_kind, devices) into a malloc'd array
 * of records of `size` bytes, each named by its key (a char[name_size] at
 * name_off); absent or null: none.  `legacy` (or NULL): a table read after
 * `table`, for the keys an older file wrote with another meaning.
 */
static int res_read_named(const json_t *o, const char *member, const struct res_field *table,
			  const struct res_field *legacy, size_t size, size_t name_off,
			  size_t name_size, void **out, size_t *n, const char *where, char *err,
			  size_t errlen)
{
	const char *key;
	json_t *v;
	*out = NULL;
	*n = 0;
	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s: '%s' is not an object", where, member);
		return -1;
	}
	if (!json_object_size(o))
		return 0;
	char *v0 = calloc(json_object_size(o), size);
	if (!v0) {
		snprintf(err, errlen, "%s: out of memory", where);
		return -1;
	}
	*out = v0;
	json_object_foreach((json_t *)o, key, v) {
		char *rec = v0 + *n * size;
		char w[256];
		snprintf(w, sizeof(w), "%s.%s.%s", where, member, key);
		if (!json_is_object(v)) {
			snprintf(err, errlen, "%s: not an object", w);
			return -1;
		}
		res_fields_init(table, rec, size);
		snprintf(rec + name_off, name_size, "%s", key);
		if (res_fields_from_json(table, v, rec, w, err, errlen) ||
		    (legacy && res_fields_from_json(legacy, v, rec, w, err, errlen)))
			return -1;
		(*n)++;
	}
	return 0;
}


/* points[].devices.DEV.blk_entries (version 9) into d->blk's rows; absent: none.  0 or -1. */
static int res_read_blk_ent(const json_t *o, struct res_dev *d, const char *where, char *err,
			    size_t errlen)
{
	if (!json_is_object(o) || !json_object_size(o))
		return 0;
	if (!d->blk && !(d->blk = calloc(1, sizeof(*d->blk)))) {
		snprintf(err, errlen, "%s: out of memory", where);
		return -1;
	}
	if (res_read_named(o, "blk_entries", res_blk_ent_fields, NULL, sizeof(struct res_blk_ent),
			   offsetof(struct res_blk_ent, name), sizeof(d->blk->ent->name),
			   (void **)&d->blk->ent, &d->blk->nent, where, err, errlen))
		return -1;
	/* the entries in the file's order (its indexes are not kept) */
	int e = 0;
	for (size_t i = 0; i < d->blk->nent; i++)
		d->blk->ent[i].entry = strcmp(d->blk->ent[i].name, "other") ? e++ : -1;
	return 0;
}

static int res_read_points(const json_t *a, unsigned flags, struct res_rec *r, const char *file,
			   char *err, size_t errlen)
{
	if (!json_is_array(a)) {
		snprintf(err, errlen, "'%s': 'points' is not an array", file);
		return -1;
	}
	size_t n = json_array_size(a);
	if (!n)
		return 0;
	r->points = calloc(n, sizeof(*r->points));
	if (!r->points) {
		snprintf(err, errlen, "'%s': out of memory", file);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *o = json_array_get(a, i);
		struct res_point *p = &r->points[i];
		char where[PATH_MAX + 32];
		snprintf(where, sizeof(where), "'%s': points[%zu]", file, i);
		res_point_init(p);
		r->npoints = i + 1;
		if (!json_is_object(o)) {
			snprintf(err, errlen, "%s: not an object", where);
			return -1;
		}
		if (res_fields_from_json(res_point_fields, o, p, where, err, errlen))
			return -1;
		if (isnan(p->jobs_per_cpu_s))   /* before 7: from its counts */
			p->jobs_per_cpu_s = res_point_jpcs(p->jobs, p->user_cpu_s, p->sys_cpu_s);
		bool old = r->schema_version < 5;   /* rates over the point, *_job the entry's */
		if ((flags & RES_READ_KINDS) &&
		    res_read_named(json_object_get(o, "jobs_by_kind"), "jobs_by_kind",
				   res_kind_fields, old ? res_kind_legacy_fields : NULL,
				   sizeof(struct res_kind), offsetof(struct res_kind, name),
				   sizeof(p->kinds->name), (void **)&p->kinds, &p->nkinds, where, err,
				   errlen))
			return -1;
		for (size_t k = 0; old && k < p->nkinds; k++)
			res_kind_legacy(&p->kinds[k]);
		/* before 6 the rates were one user's: both from the counts */
		for (size_t k = 0; r->schema_version < 6 && k < p->nkinds; k++)
			res_kind_rates(&p->kinds[k], p->elapsed_s);
		const json_t *jk = json_object_get(o, "jobs_by_kind");
		for (size_t k = 0; (flags & RES_READ_KINDS) && k < p->nkinds; k++)
			if (res_read_hist(json_object_get(json_object_get(jk, p->kinds[k].name), "hist"),
					  &p->kinds[k])) {
				snprintf(err, errlen, "%s: out of memory", where);
				return -1;
			}
		if (res_read_named(json_object_get(o, "devices"), "devices", res_dev_fields, NULL,
				   sizeof(struct res_dev), offsetof(struct res_dev, name),
				   sizeof(p->devs->name), (void **)&p->devs, &p->ndevs, where, err,
				   errlen))
			return -1;
		const json_t *jd = json_object_get(o, "devices");
		for (size_t k = 0; (flags & RES_READ_KINDS) && k < p->ndevs; k++) {
			const json_t *dj = json_object_get(jd, p->devs[k].name);
			if (res_read_blk(json_object_get(dj, "blk_hist"), &p->devs[k])) {
				snprintf(err, errlen, "%s: out of memory", where);
				return -1;
			}
			if (res_read_blk_ent(json_object_get(dj, "blk_entries"), &p->devs[k], where,
					     err, errlen))
				return -1;
		}
	}
	return 0;
}

static int res_read_summary(const json_t *o, struct res_summary *s, const char *file, char *err,
			    size_t errlen)
{
	char where[PATH_MAX + 32];
	snprintf(where, sizeof(where), "'%s': summary", file);
	res_summary_init(s);
	if (!o || json_is_null(o))
		return 0;
	if (!json_is_object(o)) {
		snprintf(err, errlen, "%s: not an object", where);
		return -1;
	}
	if (res_fields_from_json(res_summary_fields, o, s, where, err, errlen))
		return -1;
	const json_t *by = json_object_get(o, "by_users");
	if (!by || json_is_null(by))
		return 0;
	if (!json_is_array(by)) {
		snprintf(err, errlen, "%s: 'by_users' is not an array", where);
		return -1;
	}
	if (!json_array_size(by))
		return 0;
	s->by = calloc(json_array_size(by), sizeof(*s->by));
	if (!s->by) {
		snprintf(err, errlen, "%s: out of memory", where);
		return -1;
	}
	for (size_t i = 0; i < json_array_size(by); i++) {
		const json_t *u = json_array_get(by, i);
		struct res_by_users *b = &s->by[i];
		char w[PATH_MAX + 64];
		snprintf(w, sizeof(w), "%s.by_users[%zu]", where, i);
		s->nby = i + 1;
		b->jpm_mean = b->jpm_sd = b->ci95_lo = b->ci95_hi = NAN;
		if (!json_is_object(u)) {
			snprintf(err, errlen, "%s: not an object", w);
			return -1;
		}
		if (res_fields_from_json(res_by_users_fields, u, b, w, err, errlen))
			return -1;
		const json_t *js = json_object_get(u, "jpm_samples");
		if (js && !json_is_array(js)) {
			snprintf(err, errlen, "%s: 'jpm_samples' is not an array", w);
			return -1;
		}
		/* n counts the samples: n without as many samples is corrupt (it sizes copies) */
		size_t ns = js ? json_array_size(js) : 0;
		if (ns != b->n) {
			snprintf(err, errlen, "%s: %zu jpm_samples for n = %u", w, ns, b->n);
			return -1;
		}
		if (!ns)
			continue;
		b->samples = calloc(ns, sizeof(*b->samples));
		if (!b->samples) {
			snprintf(err, errlen, "%s: out of memory", w);
			return -1;
		}
		for (size_t k = 0; k < ns; k++) {
			const json_t *v = json_array_get(js, k);
			if (!json_is_number(v) && !json_is_null(v)) {
				snprintf(err, errlen, "%s: jpm_samples[%zu] is not a number", w, k);
				return -1;
			}
			b->samples[k] = json_is_null(v) ? NAN : json_number_value(v);
		}
	}
	return 0;
}

/* The folder part of a path to run.json, and its last component. */
int res_rec_set_path(struct res_rec *r, const char *file)
{
	const char *slash = strrchr(file, '/');
	/* every run its own: kept, not looked up */
	r->path = util_keep_n(file, strlen(file));
	r->dir = slash ? util_keep_n(file, (size_t)(slash - file)) : ".";
	if (!r->path || !r->dir) {
		r->path = r->dir = "";
		return -1;
	}
	return 0;
}

static void res_dir_and_id(struct res_rec *r)
{
	char real[PATH_MAX];
	const char *d = realpath(r->dir, real) ? real : r->dir;
	const char *leaf = strrchr(d, '/');
	r->id = util_istr(leaf && leaf[1] ? leaf + 1 : d);
}

static const char *res_kv_find(const struct res_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].value;
	return NULL;
}

/*
 * What the run measured (its settings and fingerprint, from the resolved
 * workload), its A/B session and its owner.  0, or -1 with err set.
 */
static int res_read_what(const json_t *doc, struct res_rec *out, const char *file, char *err,
			 size_t errlen)
{
	const json_t *resolved = json_object_get(json_object_get(doc, "workload"), "resolved");
	unsigned jobs = 0;
	for (size_t i = 0; i < out->npoints && !jobs; i++)
		if (!out->points[i].failed)
			jobs = out->points[i].jobs_per_user;
	const json_t *axes = json_object_get(doc, "axes"), *av;
	const char *ak;
	if (axes && !json_is_null(axes) && !json_is_object(axes)) {
		snprintf(err, errlen, "'%s': \"axes\" is not an object", file);
		return -1;
	}
	json_object_foreach((json_t *)axes, ak, av)
		if (!json_is_string(av)) {
			snprintf(err, errlen, "'%s': axes.%s is not a string", file, ak);
			return -1;
		}
	if (res_settings(resolved, axes, jobs, &out->settings, &out->nsettings)) {
		snprintf(err, errlen, "'%s': out of memory", file);
		return -1;
	}
	out->fp_legacy = !res_setting_find(out, "users.jobs_per_user") ||
			 out->schema_version < 4;
	for (size_t i = 0; i < out->nsettings && out->fp_legacy; i++)
		if (strstr(out->settings[i].key, ".runs") && !strncmp(out->settings[i].key, "mix.", 4))
			out->fp_legacy = false;
	res_fp_id(out->settings, out->nsettings, out->fp_id, sizeof(out->fp_id));
	if (out->have_sched && out->sched.ab_index[0]) {
		/* the session is the index's folder: <root>/<stamp>-<workload>-ab/index.json */
		char buf[PATH_MAX];
		snprintf(buf, sizeof(buf), "%s", out->sched.ab_index);
		char *slash = strrchr(buf, '/');
		if (slash)
			*slash = 0;
		slash = strrchr(buf, '/');
		out->session = util_istr(slash ? slash + 1 : buf);
	}
	if (out->have_sched)
		snprintf(out->round_text, sizeof(out->round_text), "%u", out->sched.round + 1);
	const json_t *ow = json_object_get(doc, "owner");
	if (json_is_object(ow) && json_is_integer(json_object_get(ow, "pid"))) {
		const json_t *start = json_object_get(ow, "start");
		const char *boot = json_string_value(json_object_get(ow, "boot"));
		const char *host = json_string_value(json_object_get(ow, "host"));
		out->owner.pid = (long)json_integer_value(json_object_get(ow, "pid"));
		out->owner.start = json_is_integer(start) ? (unsigned long long)json_integer_value(start) : 0;
		out->owner.boot = util_istr(boot);
		out->owner.host = util_istr(host);
		out->have_owner = true;
	}
	return 0;
}

int res_read(const char *path, unsigned flags, struct res_rec *out, char *err, size_t errlen)
{
	struct stat st;
	json_error_t je;
	json_t *doc = NULL;

	res_rec_init(out);
	if (!path || !path[0]) {
		snprintf(err, errlen, "results: no path given");
		return -1;
	}
	if (stat(path, &st)) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		return -1;
	}
	char whole[PATH_MAX];
	snprintf(whole, sizeof(whole), S_ISDIR(st.st_mode) ? "%s/run.json" : "%s", path);
	if (res_rec_set_path(out, whole)) {
		snprintf(err, errlen, "'%s': out of memory", path);
		return -1;
	}
	const char *file = out->path;
	char *text = NULL;
	size_t len = 0;
	if (jm_read_file(file, JM_READ_MAX_RUN, "run.json", &text, &len, err, errlen))
		goto fail;
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	free(text);
	if (!doc) {
		if (je.line > 0)
			snprintf(err, errlen, "%s:%d:%d: %s", file, je.line, je.column, je.text);
		else
			snprintf(err, errlen, "'%s': %s", file, je.text);
		goto fail;
	}
	if (!json_is_object(doc)) {
		snprintf(err, errlen, "'%s': not a jobmix run (expected a JSON object)", file);
		goto fail;
	}
	const json_t *schema = json_object_get(doc, "schema");
	if (!json_is_string(schema)) {
		snprintf(err, errlen, "'%s': not a jobmix run (no \"schema\" string)", file);
		goto fail;
	}
	out->schema_version = res_schema_version(json_string_value(schema));
	if (!out->schema_version) {
		snprintf(err, errlen, "'%s': unsupported schema '%s' (this jobmix reads %s1 to %s%d)",
			 file, json_string_value(schema), RES_SCHEMA_PREFIX, RES_SCHEMA_PREFIX,
			 RES_SCHEMA_VERSION);
		goto fail;
	}
	/* status and the workload's name are what every table needs */
	if (!json_is_string(json_object_get(doc, "status"))) {
		snprintf(err, errlen, "'%s': no run status", file);
		goto fail;
	}
	const json_t *w = json_object_get(doc, "workload");
	if (!json_is_object(w) || !json_is_string(json_object_get(w, "name"))) {
		snprintf(err, errlen, "'%s': no workload name", file);
		goto fail;
	}
	char where[PATH_MAX + 8];
	snprintf(where, sizeof(where), "'%s'", file);
	if (res_fields_from_json(res_run_fields, doc, out, where, err, errlen))
		goto fail;
	const json_t *labels = json_object_get(doc, "labels");
	const json_t *env = json_object_get(doc, "env");
	if ((labels && !json_is_object(labels) && !json_is_null(labels)) ||
	    (env && !json_is_object(env) && !json_is_null(env))) {
		snprintf(err, errlen, "'%s': 'labels' and 'env' must be objects", file);
		goto fail;
	}
	if (res_read_kv(labels, &out->labels, &out->nlabels) ||
	    res_read_kv(env, &out->env, &out->nenv)) {
		snprintf(err, errlen, "'%s': out of memory", file);
		goto fail;
	}
	const json_t *points = json_object_get(doc, "points");
	if (!points) {
		snprintf(err, errlen, "'%s': no 'points'", file);
		goto fail;
	}
	if (res_read_points(points, flags, out, file, err, errlen))
		goto fail;
	if (res_read_summary(json_object_get(doc, "summary"), &out->summary, file, err, errlen) ||
	    res_rec_check_summary(out, err, errlen))
		goto fail;
	if (res_summary_curve(&out->summary)) {
		snprintf(err, errlen, "'%s': out of memory", file);
		goto fail;
	}
	res_sched_init(&out->sched);
	const json_t *sched = json_object_get(doc, "sched");
	if (sched && !json_is_null(sched)) {
		snprintf(where, sizeof(where), "'%s': sched", file);
		if (!json_is_object(sched)) {
			snprintf(err, errlen, "%s: not an object", where);
			goto fail;
		}
		if (res_fields_from_json(res_sched_fields, sched, &out->sched, where, err, errlen))
			goto fail;
		out->have_sched = true;
	}
	const json_t *warm = json_object_get(doc, "warmup");
	if (warm && !json_is_null(warm)) {
		snprintf(where, sizeof(where), "'%s': warmup", file);
		if (!json_is_object(warm)) {
			snprintf(err, errlen, "%s: not an object", where);
			goto fail;
		}
		out->warmup.elapsed_s = out->warmup.jpm = NAN;
		if (res_fields_from_json(res_warmup_fields, warm, &out->warmup, where, err, errlen))
			goto fail;
		out->have_warmup = true;
	}
	if (res_read_what(doc, out, file, err, errlen))
		goto fail;
	res_dir_and_id(out);
	const char *run_id = res_kv_find(out->labels, out->nlabels, "run_id");
	if (run_id && run_id[0])
		out->id = util_istr(run_id);
	res_rec_derive(out);
	json_decref(doc);
	return 0;
fail:
	json_decref(doc);
	res_rec_free(out);
	return -1;
}

const char *res_rec_get(const struct res_rec *r, const char *key)
{
	const char *v = res_kv_find(r->labels, r->nlabels, key);
	if (v)
		return v;
	v = res_kv_find(r->env, r->nenv, key);
	if (v)
		return v;
	if (!strcmp(key, "workload"))
		return r->wl_name;
	if (!strcmp(key, "status"))
		return res_status_name(r->status);
	if (!strcmp(key, "id") || !strcmp(key, "run_id"))
		return r->id[0] ? r->id : NULL;
	const struct res_setting *st = res_setting_find(r, key);
	if (st)
		return st->value;
	if (!strcmp(key, "started"))
		return r->started;
	if (!strcmp(key, "session"))
		return r->session[0] ? r->session : NULL;
	if (!strcmp(key, "round"))
		return r->have_sched ? r->round_text : NULL;
	if (!strcmp(key, "fingerprint"))
		return r->fp_id;
	return NULL;
}

/* ---- finding runs -------------------------------------------------------- */

struct res_found {
	char *file;
	struct res_ident id;     /* its identity as the walk found it */
};

void res_ident_of(const struct stat *st, struct res_ident *id)
{
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (int64_t)st->st_size;
	id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
	id->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
	id->mode = (unsigned)st->st_mode;
}

struct res_list {
	struct res_found *v;
	size_t n, cap;
};

static int res_list_add(struct res_list *l, const char *s, const struct stat *st)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct res_found *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	if (!(l->v[l->n].file = strdup(s)))
		return -1;
	if (st)
		res_ident_of(st, &l->v[l->n].id);
	else
		memset(&l->v[l->n].id, 0, sizeof(l->v[l->n].id));
	l->n++;
	return 0;
}

static void res_list_free(struct res_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].file);
	free(l->v);
}

/* "path: why" into the skipped list (when there is one). */
static int res_skip(struct res_list *skip, const char *path, const char *why)
{
	char line[PATH_MAX + 128];
	if (!skip)
		return 0;
	snprintf(line, sizeof(line), "%s: %s", path, why);
	return res_list_add(skip, line, NULL);
}

#define RES_FIND_DEPTH 16

/* The next folder of d (dir's) as a path into p, or NULL at the end: files and links passed over. */
static const char *res_next_dir(DIR *d, const char *dir, char *p, size_t len)
{
	struct dirent *e;
	struct stat st;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		int n = snprintf(p, len, "%s/%s", dir, e->d_name);
		if (n < 0 || (size_t)n >= len)
			continue;
		if (e->d_type == DT_UNKNOWN && (lstat(p, &st) || !S_ISDIR(st.st_mode)))
			continue;
		return p;
	}
	return NULL;
}

/*
 * Walk dir (depth-limited, symbolic links never followed): a folder that
 * holds run.json is a run and is not descended further.  What cannot be
 * walked (an unreadable folder, one too deep, a run.json that is not a
 * regular file) goes into skip with why.  One lstat a run: folders are
 * told by the entry's type where the filesystem gives it.
 */
static int res_walk(const char *dir, unsigned depth, struct res_list *l, struct res_list *skip)
{
	char p[PATH_MAX];
	struct stat st;
	if (depth > RES_FIND_DEPTH)
		return res_skip(skip, dir, "deeper than 16 folders below the root: not searched");
	snprintf(p, sizeof(p), "%s/run.json", dir);
	if (!lstat(p, &st)) {
		if (S_ISREG(st.st_mode))
			return res_list_add(l, p, &st);
		if (res_skip(skip, p, "not a regular file"))
			return -1;
	}
	DIR *d = opendir(dir);
	if (!d)
		return res_skip(skip, dir, strerror(errno));
	int rc = 0;
	while (!rc && res_next_dir(d, dir, p, sizeof(p)))
		rc = res_walk(p, depth + 1, l, skip);
	closedir(d);
	return rc;
}

/*
 * A results root of many run folders: its folders walked by up to four
 * threads (each its own lists), since the lstat of every run.json is most
 * of what reading 100,000 runs through the index costs.
 */
#define RES_WALK_THREADS 4
#define RES_WALK_PARALLEL 2048   /* folders in the root before threads pay */

struct res_share {
	char **sub;              /* the root's folders */
	size_t nsub, from, step;
	struct res_list l, skip;
	bool want_skip;
	int rc;
};

static void *res_walk_share(void *arg)
{
	struct res_share *w = arg;
	for (size_t i = w->from; i < w->nsub && !w->rc; i += w->step)
		w->rc = res_walk(w->sub[i], 1, &w->l, w->want_skip ? &w->skip : NULL);
	return NULL;
}

/* Move every entry of from onto the end of to (from emptied).  -1: no memory. */
static int res_list_join(struct res_list *to, struct res_list *from)
{
	if (!to->n) {   /* taken whole */
		free(to->v);
		*to = *from;
		*from = (struct res_list){ 0 };
		return 0;
	}
	if (to->n + from->n > to->cap) {
		size_t cap = to->n + from->n;
		struct res_found *v = realloc(to->v, (cap ? cap : 1) * sizeof(*v));
		if (!v)
			return -1;
		to->v = v;
		to->cap = cap;
	}
	if (from->n)
		memcpy(to->v + to->n, from->v, from->n * sizeof(*from->v));
	to->n += from->n;
	free(from->v);
	from->v = NULL;
	from->n = from->cap = 0;
	return 0;
}

/*
 * The root dir walked: its own run.json, else its folders, by threads
 * when there are many of them (the same lists as res_walk, in another order:
 * the caller sorts them).
 */
static int res_walk_root(const char *dir, struct res_list *l, struct res_list *skip)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof(p), "%s/run.json", dir);
	if (!lstat(p, &st) || errno != ENOENT)
		return res_walk(dir, 0, l, skip);
	DIR *d = opendir(dir);
	if (!d)
		return res_walk(dir, 0, l, skip);   /* says why */
	struct { char **v; size_t n, cap; } sub = { 0 };
	int rc = 0;
	while (!rc && res_next_dir(d, dir, p, sizeof(p))) {
		if (sub.n == sub.cap) {
			size_t cap = sub.cap ? sub.cap * 2 : 256;
			char **v = realloc(sub.v, cap * sizeof(*v));
			if (!v) {
				rc = -1;
				break;
			}
			sub.v = v;
			sub.cap = cap;
		}
		if (!(sub.v[sub.n] = strdup(p)))
			rc = -1;
		else
			sub.n++;
	}
	closedir(d);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = cpus > 1 ? (size_t)(cpus < RES_WALK_THREADS ? cpus : RES_WALK_THREADS) : 1;
	if (sub.n < RES_WALK_PARALLEL)
		nt = 1;
	char **names = rc ? NULL : sub.v;
	struct res_share w[RES_WALK_THREADS];
	pthread_t tid[RES_WALK_THREADS];
	bool started[RES_WALK_THREADS] = { false };
	for (size_t t = 0; !rc && t < nt; t++) {
		w[t] = (struct res_share){ .sub = names, .nsub = sub.n, .from = t, .step = nt,
					   .want_skip = skip != NULL };
		/* the first share is this thread's; a thread that cannot start: its share here */
		started[t] = t && !pthread_create(&tid[t], NULL, res_walk_share, &w[t]);
	}
	for (size_t t = 0; !rc && t < nt; t++)
		if (!started[t])
			res_walk_share(&w[t]);
	for (size_t t = 0; names && t < nt; t++) {   /* every thread joined, come what may */
		if (started[t])
			pthread_join(tid[t], NULL);
		if (!rc && (w[t].rc || res_list_join(l, &w[t].l) ||
			    (skip && res_list_join(skip, &w[t].skip))))
			rc = -1;
	}
	for (size_t t = 0; t < nt && names; t++) {   /* what a failure left */
		res_list_free(&w[t].l);
		res_list_free(&w[t].skip);
	}
	for (size_t i = 0; i < sub.n; i++)
		free(sub.v[i]);
	free(sub.v);
	return rc;
}

static int res_cmp(const void *a, const void *b)
{
	return strcmp(((const struct res_found *)a)->file, ((const struct res_found *)b)->file);
}

/* The list's files into a malloc'd array (and their identities into *id when asked); l emptied. */
static int res_list_take(struct res_list *l, char ***files, struct res_ident **id)
{
	char **v = malloc((l->n ? l->n : 1) * sizeof(*v));
	struct res_ident *s = id ? malloc((l->n ? l->n : 1) * sizeof(*s)) : NULL;
	if (!v || (id && !s)) {
		free(v);
		free(s);
		return -1;
	}
	for (size_t i = 0; i < l->n; i++) {
		v[i] = l->v[i].file;
		if (s)
			s[i] = l->v[i].id;
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
	*files = v;
	if (id)
		*id = s;
	return 0;
}

int res_find_stat(const char *path, char ***files, struct res_ident **sts, size_t *n,
		  char ***skipped, size_t *nskipped, char *err, size_t errlen)
{
	struct res_list l = { 0 }, sk = { 0 };
	struct stat st;
	*files = NULL;
	*n = 0;
	if (sts)
		*sts = NULL;
	if (skipped) {
		*skipped = NULL;
		*nskipped = 0;
	}
	if (stat(path, &st)) {
		snprintf(err, errlen, "'%s': %s", path, strerror(errno));
		return -1;
	}
	int rc = S_ISDIR(st.st_mode) ? res_walk_root(path, &l, skipped ? &sk : NULL) :
		 res_list_add(&l, path, &st);
	if (!rc && l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), res_cmp);
	if (!rc && sk.n > 1)   /* the walk's threads find them in any order */
		qsort(sk.v, sk.n, sizeof(*sk.v), res_cmp);
	size_t found = l.n, nsk = sk.n;
	char **skv = NULL;
	if (rc || res_list_take(&l, files, sts)) {
		snprintf(err, errlen, "'%s': out of memory", path);
		res_list_free(&l);
		res_list_free(&sk);
		return -1;
	}
	if (skipped && res_list_take(&sk, &skv, NULL)) {
		snprintf(err, errlen, "'%s': out of memory", path);
		for (size_t i = 0; i < found; i++)
			free((*files)[i]);
		free(*files);
		*files = NULL;
		if (sts) {
			free(*sts);
			*sts = NULL;
		}
		res_list_free(&sk);
		return -1;
	}
	*n = found;
	if (skipped) {
		*skipped = skv;
		*nskipped = nsk;
	}
	return 0;
}

int res_find_all(const char *path, char ***files, size_t *n, char ***skipped, size_t *nskipped,
		 char *err, size_t errlen)
{
	return res_find_stat(path, files, NULL, n, skipped, nskipped, err, errlen);
}

int res_find(const char *path, char ***files, size_t *n, char *err, size_t errlen)
{
	return res_find_all(path, files, n, NULL, NULL, err, errlen);
}

void res_hist_add_to(struct stats_hist *into, const struct res_hist *h)
{
	if (!h || !h->count)
		return;
	if (!into->count || h->min_ns < into->min_ns)
		into->min_ns = h->min_ns;
	if (h->max_ns > into->max_ns)
		into->max_ns = h->max_ns;
	into->count += h->count;
	into->sum_ns += h->sum_ns;
	for (size_t b = 0; b < h->nb; b++)
		into->bucket[h->b[b].i < STATS_HIST_BUCKETS ? h->b[b].i : STATS_HIST_BUCKETS - 1] +=
			(uint32_t)h->b[b].n;
}
