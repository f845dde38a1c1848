// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run folder and its files: run.json (the whole run as one JSON
 * document, kept in memory and rewritten after every load point) and
 * points.csv, both replaced atomically through a descriptor of the run
 * folder held from the moment it is made (atomic.h), so that a folder
 * renamed or swapped for a symbolic link mid-run is not followed.  Keys
 * come from the schema's tables (schema.c); see results.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "jobmix/atomic.h"
#include "jobmix/results.h"
#include "schema.h"

struct res_run {
	char dir[PATH_MAX];
	int dirfd;          /* the run folder, held from its mkdir on */
	json_t *doc;
	json_t *points;     /* borrowed from doc */
	json_t *summary;    /* borrowed from doc */
	bool have_max;
	double max_jpm;
	unsigned max_users;
	unsigned remeasured, interfered;   /* summary's: over the points so far */
};

/* Set o[k] = v (stealing v); clears *ok on any failure (v NULL: no memory). */
static void res_put(json_t *o, const char *k, json_t *v, bool *ok)
{
	if (!v || json_object_set_new(o, k, v))
		*ok = false;
}

static void res_push(json_t *a, json_t *v, bool *ok)
{
	if (!v || json_array_append_new(a, v))
		*ok = false;
}

static void res_iso_time(time_t t, char *buf, size_t len)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the folder --------------------------------------------------------- */

/* The workload name reduced to a safe folder-name part. */
static void res_sanitize(const char *name, char *out, size_t len)
{
	size_t n = 0;
	for (const char *c = name ? name : ""; *c && n + 1 < len && n < 64; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
		out[n++] = ok ? *c : '_';
	}
	out[n] = 0;   /* it follows the time stamp, so "." or ".." cannot mean a directory */
	if (!n)
		snprintf(out, len, "run");
}

/*
 * A run folder's suffix (a matrix arm's values, a round) as a safe name
 * part of at most len - 1 characters: cut where it is longer, with an
 * FNV-1a hash of the whole suffix after the cut, so arms whose values share
 * their first characters keep names of their own.
 */
static void res_suffix(const char *suffix, char *out, size_t len)
{
	uint32_t h = 2166136261u;
	for (const char *c = suffix; *c; c++)
		h = (h ^ (unsigned char)*c) * 16777619u;
	res_sanitize(suffix, out, len);
	if (strlen(suffix) < len - 1 || len < 20)
		return;
	snprintf(out + len - 11, 11, "-%08x", (unsigned)h);   /* "-" and 8 hex digits */
}

/*
 * mkdir a fresh <outdir>/<stamp>-<name>[-N] (never an existing one) into
 * r->dir and hold it (r->dirfd, atom_mkdir_at: checked to be the folder
 * made, then written through whatever becomes of its name).  *pfd: outdir, left open, and leaf the
 * folder's name in it, for undoing.
 */
static int res_make_run_dir(struct res_run *r, const char *outdir, time_t now, const char *wlname,
			    const char *suffix, int *pfd, char *leaf, size_t leaflen, char *err,
			    size_t errlen)
{
	char stamp[32], name[112], suf[40] = "";
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	res_sanitize(wlname, name, sizeof(name));
	if (suffix && suffix[0]) {
		res_suffix(suffix, suf, sizeof(suf));
		size_t n = strlen(name);
		snprintf(name + n, sizeof(name) - n, "-%s", suf);
	}
	*pfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*pfd < 0) {
		snprintf(err, errlen, "open results directory '%s' failed: %s", outdir,
			 strerror(errno));
		return -1;
	}
	for (unsigned i = 1; i <= 1000; i++) {
		if (i == 1)
			snprintf(leaf, leaflen, "%s-%s", stamp, name);
		else
			snprintf(leaf, leaflen, "%s-%s-%u", stamp, name, i);
		int n = snprintf(r->dir, sizeof(r->dir), "%s/%s", outdir, leaf);
		if (n < 0 || (size_t)n >= sizeof(r->dir)) {
			snprintf(err, errlen, "results directory '%s': path too long", outdir);
			return -1;
		}
		r->dirfd = atom_mkdir_at(*pfd, leaf, 0755);
		if (r->dirfd >= 0)
			return 0;
		if (r->dirfd == ATOM_REFUSED) {
			r->dirfd = -1;
			snprintf(err, errlen, "run folder '%s' is not the folder just made (replaced?): "
				 "refusing to write there", r->dir);
			return -1;
		}
		if (errno != EEXIST) {
			snprintf(err, errlen, "create run folder '%s' failed: %s", r->dir,
				 strerror(errno));
			return -1;
		}
	}
	snprintf(err, errlen, "create run folder '%s/%s-%s': too many runs in one second", outdir,
		 stamp, name);
	return -1;
}

/* Undo a run folder made and held: its files, then it, when <pfd>/<leaf> is still it. */
static void res_unmake_run_dir(struct res_run *r, int pfd, const char *leaf)
{
	struct stat held, now;
	unlinkat(r->dirfd, "run.json", 0);
	unlinkat(r->dirfd, "points.csv", 0);
	if (!fstat(r->dirfd, &held) && !fstatat(pfd, leaf, &now, AT_SYMLINK_NOFOLLOW) &&
	    held.st_dev == now.st_dev && held.st_ino == now.st_ino)
		unlinkat(pfd, leaf, AT_REMOVEDIR);
}

/* ---- the run ------------------------------------------------------------ */

/* The summary of a run with no points yet, written as the schema says. */
static json_t *res_summary_json(const struct res_summary *s, bool *ok)
{
	json_t *o = json_object(), *by = json_array();
	if (!o || !by || res_fields_to_json(res_summary_fields, s, o)) {
		*ok = false;
		json_decref(by);
		return o;
	}
	for (size_t i = 0; i < s->nby; i++) {
		const struct res_by_users *b = &s->by[i];
		json_t *u = json_object(), *js = json_array();
		if (!u || !js || res_fields_to_json(res_by_users_fields, b, u)) {
			*ok = false;
			json_decref(u);
			json_decref(js);
			break;
		}
		for (unsigned k = 0; k < b->n && b->samples; k++)
			res_push(js, res_json_num(b->samples[k]), ok);
		res_put(u, "jpm_samples", js, ok);
		res_push(by, u, ok);
	}
	res_put(o, "by_users", by, ok);
	return o;
}

struct res_run *res_run_create(const char *outdir, const struct res_run_head *h, char *err,
			       size_t errlen)
{
	struct res_run *r = NULL;
	bool ok = true;
	char when[32], leaf[NAME_MAX + 1];
	int pfd = -1;

	if (!outdir || !h) {
		snprintf(err, errlen, "results: no output directory or run");
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "results: out of memory");
		return NULL;
	}
	r->dirfd = -1;
	time_t now = time(NULL);
	if (atom_mkdirs(outdir, err, errlen))
		goto fail;
	if (res_make_run_dir(r, outdir, now, h->wl_name, h->name_suffix, &pfd, leaf, sizeof(leaf),
			     err, errlen))
		goto fail;

	r->doc = json_object();
	if (!r->doc)
		goto nomem;
	res_iso_time(now, when, sizeof(when));
	res_put(r->doc, "schema", json_string(RES_SCHEMA), &ok);
	res_put(r->doc, "status", json_string(res_status_name(RES_RUNNING)), &ok);
	res_put(r->doc, "started", json_string(when), &ok);
	res_put(r->doc, "finished", json_null(), &ok);

	json_t *cmd = json_array();
	res_put(r->doc, "command", cmd, &ok);
	for (int i = 0; cmd && i < h->argc; i++)
		res_push(cmd, res_json_str(h->argv[i]), &ok);

	json_t *w = json_object();
	res_put(r->doc, "workload", w, &ok);
	if (w) {
		res_put(w, "path", res_json_str(h->wl_path), &ok);
		res_put(w, "found", res_json_str(h->wl_found), &ok);
		res_put(w, "sha256", res_json_str(h->wl_sha256), &ok);
		res_put(w, "name", res_json_str(h->wl_name), &ok);
		res_put(w, "description", res_json_str(h->wl_description), &ok);
		res_put(w, "resolved", h->resolved ? json_deep_copy(h->resolved) : json_null(), &ok);
	}
	res_put(r->doc, "fingerprint",
		h->resolved ? res_fingerprint_json(h->resolved, NULL) : json_null(), &ok);
	if (h->owner)
		res_put(r->doc, "owner",
			json_pack("{s:I, s:I, s:s, s:s}", "pid", (json_int_t)h->owner->pid, "start",
				  (json_int_t)h->owner->start, "boot", h->owner->boot, "host",
				  h->owner->host), &ok);
	else
		res_put(r->doc, "owner", json_null(), &ok);

	json_t *lab = json_object();
	res_put(r->doc, "labels", lab, &ok);
	for (size_t i = 0; lab && i < h->nlabels; i++)
		res_put(lab, h->labels[i].key, res_json_str(h->labels[i].value), &ok);

	res_put(r->doc, "env", h->env ? json_deep_copy(h->env) : json_null(), &ok);
	res_put(r->doc, "users", json_null(), &ok);
	res_put(r->doc, "warmup", json_null(), &ok);
	r->points = json_array();
	res_put(r->doc, "points", r->points, &ok);
	struct res_summary empty;
	res_summary_init(&empty);
	r->summary = res_summary_json(&empty, &ok);
	res_put(r->doc, "summary", r->summary, &ok);
	if (!ok)
		goto nomem;
	if (res_run_write(r, RES_RUNNING, err, errlen))
		goto fail;
	close(pfd);
	return r;

nomem:
	snprintf(err, errlen, "results: out of memory building run.json");
fail:
	if (r->dirfd >= 0) {
		res_unmake_run_dir(r, pfd, leaf);
		close(r->dirfd);
	}
	if (pfd >= 0)
		close(pfd);
	json_decref(r->doc);
	free(r);
	return NULL;
}

const char *res_run_dir(const struct res_run *r)
{
	return r->dir;
}

/* summary.max_jpm / max_jpm_users: best JPM over points that completed. */
static void res_put_max(struct res_run *r, bool *ok)
{
	res_put(r->summary, "max_jpm", r->have_max ? res_json_num(r->max_jpm) : json_null(), ok);
	res_put(r->summary, "max_jpm_users",
		r->have_max ? json_integer(r->max_users) : json_null(), ok);
	res_put(r->summary, "remeasured", json_integer(r->remeasured), ok);
	res_put(r->summary, "interfered", json_integer(r->interfered), ok);
}

/*
 * A histogram as run.json keeps it: {layout, count, sum SFX, min SFX, max SFX,
 * buckets [[index, n], ...]} ("_ns" for a latency's, "" for the block
 * layer's).  NULL when out of memory.
 */
static json_t *res_hist_json(const struct res_hist *h, const char *layout, const char *sfx)
{
	bool ok = true;
	char key[3][16];
	json_t *hj = json_object(), *bs = json_array();
	snprintf(key[0], sizeof(key[0]), "sum%s", sfx);
	snprintf(key[1], sizeof(key[1]), "min%s", sfx);
	snprintf(key[2], sizeof(key[2]), "max%s", sfx);
	res_put(hj, "layout", json_string(layout), &ok);
	res_put(hj, "count", json_integer((json_int_t)h->count), &ok);
	res_put(hj, key[0], json_integer((json_int_t)h->sum_ns), &ok);
	res_put(hj, key[1], json_integer((json_int_t)h->min_ns), &ok);
	res_put(hj, key[2], json_integer((json_int_t)h->max_ns), &ok);
	for (size_t b = 0; bs && b < h->nb; b++)
		if (json_array_append_new(bs, json_pack("[I, I]", (json_int_t)h->b[b].i,
							(json_int_t)h->b[b].n)))
			ok = false;
	res_put(hj, "buckets", bs, &ok);
	if (ok)
		return hj;
	json_decref(hj);
	return NULL;
}

/* A device's blk_hist: {read: {sched: HIST, dev: ..., size, depth}, write: ...}, counted ones. */
static json_t *res_blk_json(const struct res_blk *b)
{
	bool ok = true;
	json_t *o = json_object();
	for (int op = 0; o && op < RES_BLK_NOPS; op++) {
		json_t *oj = NULL;
		for (int w = 0; w < RES_BLK_NWHAT; w++) {
			if (!b->h[op][w])
				continue;
			if (!oj && !(oj = json_object()))
				ok = false;
			res_put(oj, res_blk_what_names[w], res_hist_json(b->h[op][w],
									 RES_BLK_LAYOUT, ""), &ok);
		}
		if (oj)
			res_put(o, res_blk_op_names[op], oj, &ok);
	}
	if (o && b->tdepth)
		res_put(o, "time_depth", res_hist_json(b->tdepth, RES_BLK_LAYOUT, ""), &ok);
	if (ok)
		return o;
	json_decref(o);
	return NULL;
}

/*
 * o[name] = v for the i-th entry of a mix (name "entry" when empty; two
 * entries of one name: the second keyed NAME#i, both kept).
 */
static void res_put_entry(json_t *o, const char *name, size_t i, json_t *v, bool *ok)
{
	char key[sizeof(((struct res_kind *)0)->name) + 24];
	snprintf(key, sizeof(key), "%s", name[0] ? name : "entry");
	if (json_object_get(o, key))
		snprintf(key + strlen(key), sizeof(key) - strlen(key), "#%zu", i);
	res_put(o, key, v, ok);
}

/* A device's blk_entries: {ENTRY: {requests, ...}, other: ...} (res_blk_ent_fields). */
static json_t *res_blk_ent_json(const struct res_blk *b)
{
	bool ok = true;
	json_t *o = json_object();
	for (size_t i = 0; o && i < b->nent; i++) {
		json_t *e = json_object();
		if (!e || res_fields_to_json(res_blk_ent_fields, &b->ent[i], e)) {
			json_decref(e);
			ok = false;
			break;
		}
		res_put_entry(o, b->ent[i].name, i, e, &ok);
	}
	if (o && ok)
		return o;
	json_decref(o);
	return NULL;
}

int res_run_add_point(struct res_run *r, const struct res_point *p)
{
	bool ok = true;
	json_t *o = json_object(), *kinds = json_object();
	if (!o || !kinds || res_fields_to_json(res_point_fields, p, o))
		goto nomem;
	for (size_t i = 0; i < p->nkinds; i++) {
		const struct res_kind *k = &p->kinds[i];
		json_t *ko = json_object();
		if (!ko || res_fields_to_json(res_kind_fields, k, ko)) {
			json_decref(ko);
			goto nomem;
		}
		if (k->hist)
			res_put(ko, "hist", res_hist_json(k->hist, RES_HIST_LAYOUT, "_ns"), &ok);
		res_put_entry(kinds, k->name, i, ko, &ok);
	}
	res_put(o, "jobs_by_kind", kinds, &ok);
	kinds = NULL;
	json_t *devs = json_object();
	for (size_t i = 0; devs && i < p->ndevs; i++) {
		json_t *d = json_object();
		if (!d || res_fields_to_json(res_dev_fields, &p->devs[i], d)) {
			json_decref(d);
			ok = false;
			break;
		}
		if (p->devs[i].blk)
			res_put(d, "blk_hist", res_blk_json(p->devs[i].blk), &ok);
		if (p->devs[i].blk && p->devs[i].blk->nent)
			res_put(d, "blk_entries", res_blk_ent_json(p->devs[i].blk), &ok);
		res_put(devs, p->devs[i].name[0] ? p->devs[i].name : "device", d, &ok);
	}
	res_put(o, "devices", devs, &ok);
	if (!ok || json_array_append_new(r->points, o))
		return -1;
	if (!p->failed && !p->interrupted && isfinite(p->jpm) &&
	    (!r->have_max || p->jpm > r->max_jpm)) {
		r->have_max = true;
		r->max_jpm = p->jpm;
		r->max_users = p->users;
	}
	r->remeasured += p->machine.remeasured;
	r->interfered += p->machine.interfered == 1;
	res_put_max(r, &ok);
	return ok ? 0 : -1;
nomem:
	json_decref(o);
	json_decref(kinds);
	return -1;
}

int res_run_set_warmup(struct res_run *r, const struct res_warmup *w)
{
	json_t *o = json_object();
	if (!o || res_fields_to_json(res_warmup_fields, w, o) ||
	    json_object_set_new(r->doc, "warmup", o))
		return -1;
	return 0;
}

int res_run_set_sizing(struct res_run *r, const struct res_sizing *s, const double *pilot_jpm,
		       size_t n, json_t *resolved)
{
	bool ok = resolved != NULL;
	json_t *o = json_object(), *pj = json_array();
	json_t *w = json_object_get(r->doc, "workload");
	if (!o || !pj || !w || res_fields_to_json(res_sizing_fields, s, o))
		ok = false;
	for (size_t i = 0; ok && i < n; i++)
		res_push(pj, res_json_num(pilot_jpm[i]), &ok);
	if (ok) {
		res_put(o, "pilots_jpm", pj, &ok);
		pj = NULL;
	}
	json_t *fp = ok ? res_fingerprint_json(resolved, json_object_get(r->doc, "axes")) : NULL;
	if (!fp)
		ok = false;
	if (ok) {
		res_put(w, "resolved", resolved, &ok);
		resolved = NULL;
		res_put(r->doc, "fingerprint", fp, &ok);
		fp = NULL;
		res_put(r->doc, "sizing", o, &ok);
		o = NULL;
	}
	json_decref(fp);
	json_decref(o);
	json_decref(pj);
	json_decref(resolved);
	return ok ? 0 : -1;
}

int res_run_set_users(struct res_run *r, const char *spec, unsigned cpus, const char *resolved)
{
	json_t *o = json_object();
	bool ok = o != NULL;
	if (ok) {
		res_put(o, "spec", res_json_str(spec), &ok);
		res_put(o, "cpus", json_integer(cpus), &ok);
		res_put(o, "resolved", res_json_str(resolved), &ok);
	}
	if (!ok || json_object_set_new(r->doc, "users", o))
		return -1;
	return 0;
}

int res_run_set_sched(struct res_run *r, const struct res_sched *s)
{
	json_t *o = json_object();
	if (!o || res_fields_to_json(res_sched_fields, s, o) ||
	    json_object_set_new(r->doc, "sched", o))
		return -1;
	return 0;
}

int res_run_set_axes(struct res_run *r, const struct res_axis *ax, size_t n,
		     const struct res_axis_set *set, size_t nset)
{
	bool ok = true;
	json_t *o = json_object(), *a = json_array();
	if (!o || !a)
		ok = false;
	for (size_t i = 0; ok && i < n; i++)
		ok = !json_object_set_new(o, ax[i].key, res_json_str(ax[i].value));
	for (size_t i = 0; ok && i < nset; i++) {
		json_t *e = json_object();
		res_put(e, "key", res_json_str(set[i].key), &ok);
		res_put(e, "target", res_json_str(set[i].target), &ok);
		res_put(e, "value", res_json_str(set[i].value), &ok);
		res_put(e, "read_back", res_json_str(set[i].read_back), &ok);
		res_put(e, "original", res_json_str(set[i].original), &ok);
		if (!ok || !e || json_array_append_new(a, e)) {   /* append_new frees e itself */
			if (!ok)
				json_decref(e);
			ok = false;
		}
	}
	const json_t *resolved = json_object_get(json_object_get(r->doc, "workload"), "resolved");
	if (ok && resolved)
		res_put(r->doc, "fingerprint", res_fingerprint_json(resolved, o), &ok);
	if (!ok) {
		json_decref(o);
		json_decref(a);
		return -1;
	}
	res_put(r->doc, "axes", o, &ok);
	res_put(r->doc, "axes_set", a, &ok);
	return ok ? 0 : -1;
}

int res_run_set_summary(struct res_run *r, const struct res_summary *s)
{
	bool ok = true;
	json_t *sum = res_summary_json(s, &ok);
	if (!ok || json_object_update(r->summary, sum)) {
		json_decref(sum);
		return -1;
	}
	json_decref(sum);
	res_put_max(r, &ok);
	return ok ? 0 : -1;
}

/* ---- writing ------------------------------------------------------------ */

/* A CSV field from a JSON number/bool; empty for null or missing. */
static void res_csv_field(FILE *f, const json_t *v, bool first)
{
	if (!first)
		fputc(',', f);
	if (json_is_integer(v))
		fprintf(f, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		fprintf(f, "%.10g", json_real_value(v));
	else if (json_is_boolean(v))
		fputc(json_is_true(v) ? '1' : '0', f);
}

/* points.csv: the point fields that name a column, in the schema's order. */
static int res_write_csv(FILE *f, void *ctx)
{
	const json_t *points = ctx;
	size_t i;
	json_t *p;
	bool first = true;
	char parent[64];

	for (const struct res_field *c = res_point_fields; c->key; c++)
		if (c->csv) {
			fprintf(f, "%s%s", first ? "" : ",", c->csv);
			first = false;
		}
	fputc('\n', f);
	json_array_foreach(points, i, p) {
		first = true;
		for (const struct res_field *c = res_point_fields; c->key; c++) {
			if (!c->csv)
				continue;
			const char *dot = strchr(c->key, '.');
			const json_t *v;
			if (dot) {
				snprintf(parent, sizeof(parent), "%.*s", (int)(dot - c->key), c->key);
				v = json_object_get(json_object_get(p, parent), dot + 1);
			} else {
				v = json_object_get(p, c->key);
			}
			res_csv_field(f, v, first);
			first = false;
		}
		fputc('\n', f);
	}
	return 0;
}

static int res_write_json(FILE *f, void *ctx)
{
	if (json_dumpf(ctx, f, JSON_INDENT(2) | JSON_REAL_PRECISION(15)))
		return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}

/*
 * One of the run's files written to a temp file in the run folder and
 * fsynced (atomic.h), not yet renamed.  0, or -1 with err set and nothing
 * left behind.
 */
static int res_stage(struct atom_file *a, int dirfd, const char *name, int (*fill)(FILE *, void *),
		     void *ctx, char *err, size_t errlen)
{
	if (atom_begin_at(a, dirfd, name, NULL, err, errlen))
		return -1;
	errno = 0;
	if (fill(a->f, ctx)) {
		snprintf(err, errlen, "write '%s' failed: %s", name, strerror(errno ? errno : EIO));
		atom_abort(a);
		return -1;
	}
	return atom_sync(a, err, errlen) ? -1 : 0;
}

/*
 * points.csv and run.json replaced together: both written and fsynced
 * before either is renamed, run.json renamed last.  When writing either
 * fails (a full file system) neither is replaced, so a reader never finds
 * them disagreeing; err names the folder, the file and the reason.
 */
static int res_write_files(struct res_run *r, char *err, size_t errlen)
{
	struct atom_file csv, js;
	char e[1024];
	if (res_stage(&csv, r->dirfd, "points.csv", res_write_csv, r->points, e, sizeof(e)))
		goto fail;
	if (res_stage(&js, r->dirfd, "run.json", res_write_json, r->doc, e, sizeof(e))) {
		atom_abort(&csv);
		goto fail;
	}
	if (atom_commit(&csv, e, sizeof(e))) {
		atom_abort(&js);
		goto fail;
	}
	if (atom_commit(&js, e, sizeof(e)))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "run folder '%s': %s", r->dir, e);
	return -1;
}

int res_run_write(struct res_run *r, enum res_status status, char *err, size_t errlen)
{
	bool ok = true;
	const char *name = res_status_name(status);
	if (!name) {
		snprintf(err, errlen, "results: unknown run status %d", (int)status);
		return -1;
	}
	res_put(r->doc, "status", json_string(name), &ok);
	if (status != RES_RUNNING) {
		char when[32];
		res_iso_time(time(NULL), when, sizeof(when));
		res_put(r->doc, "finished", json_string(when), &ok);
	} else {
		res_put(r->doc, "finished", json_null(), &ok);
	}
	if (!ok) {
		snprintf(err, errlen, "results: out of memory");
		return -1;
	}
	return res_write_files(r, err, errlen);
}

void res_run_free(struct res_run *r)
{
	if (!r)
		return;
	if (r->dirfd >= 0)
		close(r->dirfd);
	json_decref(r->doc);
	free(r);
}
