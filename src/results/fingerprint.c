// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a run measured, as comparable text: its settings (the resolved
 * workload flattened to the keys `jobmix check --keys` and -P use, plus
 * each mix entry's kind, weight, runs per user and parameters) and its
 * fingerprint, the settings that define what a load point is.  Two runs
 * are folded or tested against each other only when their fingerprints
 * agree (report.h); the settings are --by keys as well.
 *
 * One table maps the members of run.json's workload.resolved to setting
 * names and says which belong to the fingerprint.  The writer records the
 * fingerprint it derives this way; the reader derives it again from the
 * resolved workload of any schema, so runs written before the fingerprint
 * existed are told apart the same way.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jobmix/results.h"

enum fp_class {
	FP_NO,      /* a setting only: where, how long to search, the seed */
	FP_YES,     /* part of what a point is */
	FP_TIMED,   /* part of it in time mode only (measure.mode time) */
	FP_SET,     /* part of it when set (not 0, 0.0): runs from before the key still fold */
};

struct fp_row {
	const char *json;     /* member path in workload.resolved */
	const char *key;      /* setting name (the workload key) */
	enum fp_class fp;
};

/*
 * Every member of workload.resolved but the mix.  tests/unit/test_results.c
 * checks that each workload key with a run.json name is here under its
 * own name, so a new key cannot be missed.
 */
static const struct fp_row fp_rows[] = {
	{ "filesize", "files.filesize", FP_YES },
	{ "poolsize", "files.poolsize", FP_YES },
	{ "dirs", "files.dirs", FP_NO },
	{ "layout", "files.layout", FP_YES },
	{ "users.start", "users.start", FP_NO },
	{ "users.end", "users.end", FP_NO },
	{ "users.step", "users.step", FP_NO },
	{ "users.geometric", "users.geometric", FP_NO },
	{ "users.jobs_per_user", "users.jobs_per_user_asked", FP_NO },
	{ "users.mode", "users.mode", FP_YES },
	{ "users.repeat", "users.repeat", FP_NO },
	{ "users.repeat_auto", "users.repeat_auto", FP_NO },
	{ "users.as", "users.as", FP_YES },
	{ "users.converge_jpm_per_user", "users.converge_jpm_per_user", FP_YES },
	{ "users.max_points", "users.max_points", FP_NO },
	{ "users.max_time_s", "users.max_time", FP_NO },
	{ "sync", "sync", FP_YES },
	{ "seed", "seed", FP_NO },
	{ "measure.how", "measure.mode", FP_YES },
	{ "measure.duration_s", "measure.duration", FP_TIMED },
	{ "measure.ramp_s", "measure.ramp", FP_TIMED },
	{ "measure.steady_pct", "measure.steady", FP_TIMED },
	{ "measure.steady_windows", "measure.steady_windows", FP_TIMED },
	{ "measure.settle", "measure.settle", FP_YES },
	{ "measure.settle_timeout_s", "measure.settle_timeout", FP_NO },
	{ "measure.drop_caches", "measure.drop_caches", FP_YES },
	{ "measure.warmup", "measure.warmup", FP_YES },
	{ "measure.mem_limit", "measure.mem_limit", FP_SET },
	{ "measure.require_quiet_s", "measure.require_quiet", FP_NO },
	{ "measure.interference_max_pct", "measure.interference_max", FP_NO },
	{ "measure.remeasure", "measure.remeasure", FP_NO },
	/* the target of noise-sized points; the size chosen is in users.jobs_per_user or
	 * measure.duration already (the sized workload is what run.json resolves) */
	{ "measure.point_noise_pct", "measure.point_noise", FP_SET },
	{ NULL, NULL, FP_NO },
};

const char *res_fp_json_key(size_t i, const char **key)
{
	if (!fp_rows[i].json)
		return NULL;
	*key = fp_rows[i].key;
	return fp_rows[i].json;
}

/* A JSON scalar (or a list of them) as text: lists joined with '|' as flags are written. */
static void fp_text(const json_t *v, char *buf, size_t len)
{
	buf[0] = 0;
	if (json_is_string(v)) {
		snprintf(buf, len, "%s", json_string_value(v));
	} else if (json_is_integer(v)) {
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	} else if (json_is_real(v)) {
		snprintf(buf, len, "%.15g", json_real_value(v));
	} else if (json_is_boolean(v)) {
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	} else if (json_is_array(v)) {
		size_t i, n = 0;
		const json_t *e;
		json_array_foreach(v, i, e) {
			char one[256];
			fp_text(e, one, sizeof(one));
			if (n < len)
				n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "|" : "", one);
		}
	}
}

/* The member at a dotted path ("users.as"), or NULL. */
static const json_t *fp_get(const json_t *o, const char *path)
{
	char part[64];
	while (o && json_is_object(o)) {
		const char *dot = strchr(path, '.');
		if (!dot)
			return json_object_get(o, path);
		snprintf(part, sizeof(part), "%.*s", (int)(dot - path), path);
		o = json_object_get(o, part);
		path = dot + 1;
	}
	return NULL;
}

struct fp_list {
	struct res_setting *v;
	size_t n, cap;
	bool nomem;
};

static void fp_add(struct fp_list *l, const char *key, const char *value, bool fp)
{
	if (l->nomem)
		return;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 48;
		struct res_setting *v = realloc(l->v, cap * sizeof(*v));
		if (!v) {
			l->nomem = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	struct res_setting *s = &l->v[l->n++];
	memset(s, 0, sizeof(*s));   /* whole bytes: equal lists intern to one (res_rec_share_lists) */
	snprintf(s->key, sizeof(s->key), "%s", key);
	snprintf(s->value, sizeof(s->value), "%s", value);
	s->fp = fp;
}

static int fp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct res_setting *)a)->key, ((const struct res_setting *)b)->key);
}

/*
 * The parameters every job kind takes (job.h's job_common_params) with
 * their defaults as fp_text() writes them.  At its default such a
 * parameter is a setting but not part of the fingerprint, so a run from
 * before it existed folds with one at its default; any other value is (runs
 * at scale 1.1 never fold with runs at 1).  tests/unit/test_results.c
 * checks this list against the jobs' table.
 */
const char *const res_fp_common[][2] = { { "scale", "1" }, { NULL, NULL } };

/* A common parameter at its default (name pk, value text val)? */
static bool fp_common_default(const char *pk, const char *val)
{
	for (size_t i = 0; res_fp_common[i][0]; i++)
		if (!strcmp(pk, res_fp_common[i][0]))
			return !strcmp(val, res_fp_common[i][1]);
	return false;
}

/* The mix entries: kind, weight, runs per user (since schema 4) and every parameter. */
static unsigned fp_mix(const json_t *mix, struct fp_list *l, bool *have_runs)
{
	size_t i;
	const json_t *e;
	unsigned total = 0;
	*have_runs = json_array_size(mix) > 0;
	json_array_foreach(mix, i, e)
		if (!json_is_integer(json_object_get(e, "runs_per_user")))
			*have_runs = false;
	json_array_foreach(mix, i, e) {
		char name[128], key[200], val[256];
		fp_text(json_object_get(e, "name"), name, sizeof(name));
		if (!name[0])
			fp_text(json_object_get(e, "job"), name, sizeof(name));
		fp_text(json_object_get(e, "job"), val, sizeof(val));
		snprintf(key, sizeof(key), "mix.%s.job", name);
		fp_add(l, key, val, true);
		fp_text(json_object_get(e, "weight"), val, sizeof(val));
		snprintf(key, sizeof(key), "mix.%s.weight", name);
		fp_add(l, key, val, !*have_runs);
		const json_t *runs = json_object_get(e, "runs_per_user");
		if (*have_runs) {
			fp_text(runs, val, sizeof(val));
			snprintf(key, sizeof(key), "mix.%s.runs", name);
			fp_add(l, key, val, true);
			total += (unsigned)json_integer_value(runs);
		}
		const char *pk;
		const json_t *pv;
		json_object_foreach((json_t *)json_object_get(e, "params"), pk, pv) {
			if (json_is_null(pv))
				continue;   /* unset (a device not named): as in files before the key */
			fp_text(pv, val, sizeof(val));
			snprintf(key, sizeof(key), "%s.%s", name, pk);
			fp_add(l, key, val, !fp_common_default(pk, val));
		}
	}
	return total;
}

int res_settings(const json_t *resolved, const json_t *axes, unsigned jobs_run,
		 struct res_setting **out, size_t *nout)
{
	struct fp_list l = { 0 };
	*out = NULL;
	*nout = 0;
	if (!json_is_object(resolved))
		return 0;
	const json_t *how = fp_get(resolved, "measure.how");
	bool timed = json_is_string(how) && !strcmp(json_string_value(how), "time");
	char val[256];
	for (const struct fp_row *r = fp_rows; r->json; r++) {
		const json_t *v = fp_get(resolved, r->json);
		if (!v || (r->fp == FP_SET && json_is_number(v) && json_number_value(v) == 0))
			continue;
		fp_text(v, val, sizeof(val));
		fp_add(&l, r->key, val, r->fp == FP_YES || r->fp == FP_SET ||
		       (r->fp == FP_TIMED && timed));
	}
	bool have_runs;
	unsigned total = fp_mix(json_object_get(resolved, "mix"), &l, &have_runs);
	/* the jobs each user ran: the mix's runs, else what the points say, else what was asked */
	const json_t *asked = fp_get(resolved, "users.jobs_per_user");
	if (have_runs)
		snprintf(val, sizeof(val), "%u", total);
	else if (jobs_run)
		snprintf(val, sizeof(val), "%u", jobs_run);
	else
		fp_text(asked, val, sizeof(val));
	if (val[0])
		fp_add(&l, "users.jobs_per_user", val, true);
	/*
	 * a matrix arm's axes: what the workload does not say (a queue attribute,
	 * a sysctl, the mount's options) defines its points as much as a setting
	 * does; the scheduler's is the env's "scheduler", as for -s
	 */
	const char *ak;
	const json_t *av;
	json_object_foreach((json_t *)axes, ak, av) {
		bool have = !strcmp(ak, "sched") || !json_is_string(av);
		for (size_t i = 0; i < l.n && !have; i++)
			have = !strcmp(l.v[i].key, ak);
		if (!have)
			fp_add(&l, ak, json_string_value(av), true);
	}
	if (l.nomem) {
		free(l.v);
		return -1;
	}
	qsort(l.v, l.n, sizeof(*l.v), fp_cmp);
	*out = l.v;
	*nout = l.n;
	return 0;
}

void res_fp_id(const struct res_setting *s, size_t n, char *out, size_t len)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a over "key=value\n" of the fingerprint */
	for (size_t i = 0; i < n; i++) {
		if (!s[i].fp)
			continue;
		for (const char *p = s[i].key; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h = (h ^ '=') * 1099511628211ull;
		for (const char *p = s[i].value; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h = (h ^ '\n') * 1099511628211ull;
	}
	snprintf(out, len, "%016llx", (unsigned long long)h);
}

json_t *res_fingerprint_json(const json_t *resolved, const json_t *axes)
{
	struct res_setting *s;
	size_t n;
	if (res_settings(resolved, axes, 0, &s, &n))
		return NULL;
	json_t *o = json_object(), *keys = json_object();
	char id[20];
	res_fp_id(s, n, id, sizeof(id));
	bool ok = o && keys && !json_object_set_new(o, "id", json_string(id)) &&
		  !json_object_set(o, "keys", keys);
	for (size_t i = 0; ok && i < n; i++)
		if (s[i].fp && json_object_set_new(keys, s[i].key, json_string(s[i].value)))
			ok = false;
	json_decref(keys);
	free(s);
	if (!ok) {
		json_decref(o);
		return NULL;
	}
	return o;
}

const struct res_setting *res_setting_find(const struct res_rec *r, const char *key)
{
	size_t lo = 0, hi = r->nsettings;
	while (lo < hi) {   /* settings are sorted by key */
		size_t mid = (lo + hi) / 2;
		int c = strcmp(r->settings[mid].key, key);
		if (!c)
			return &r->settings[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool fp_ignored(const char *key, const char *const *ignore, size_t nignore)
{
	for (size_t i = 0; i < nignore; i++)
		if (!strcmp(ignore[i], key))
			return true;
	return false;
}

/* The fingerprint keys in which a and b differ (results.h). */
size_t res_fp_diff(const struct res_rec *a, const struct res_rec *b, const char *const *ignore,
		   size_t nignore, void (*f)(const char *key, const char *va, const char *vb,
					     void *ctx), void *ctx)
{
	size_t i = 0, j = 0, n = 0;
	if (a->settings == b->settings && a->nsettings == b->nsettings)
		return 0;   /* one list (interned: runs of one workload share it) */
	while (i < a->nsettings || j < b->nsettings) {
		const struct res_setting *x = i < a->nsettings ? &a->settings[i] : NULL;
		const struct res_setting *y = j < b->nsettings ? &b->settings[j] : NULL;
		int c = !x ? 1 : !y ? -1 : strcmp(x->key, y->key);
		const char *key = c <= 0 ? x->key : y->key;
		bool fp = (c <= 0 && x->fp) || (c >= 0 && y->fp);
		const char *va = c <= 0 ? x->value : NULL, *vb = c >= 0 ? y->value : NULL;
		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
		if (!fp || fp_ignored(key, ignore, nignore))
			continue;
		if (va && vb && !strcmp(va, vb))
			continue;
		/* present on one side only: a run from before runs were recorded does not know it */
		if ((!va && a->fp_legacy) || (!vb && b->fp_legacy))
			continue;
		n++;
		if (f)   /* absent "-"; empty (an empty list: flags none) "none" */
			f(key, !va ? "-" : va[0] ? va : "none", !vb ? "-" : vb[0] ? vb : "none", ctx);
	}
	return n;
}
