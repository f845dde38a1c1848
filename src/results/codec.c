// SPDX-License-Identifier: GPL-2.0-only
/*
 * A run record as bytes, and the SQL tables of runs (codec.h): both walks
 * over the schema's field tables (schema.c), the rows that write and read
 * run.json, so that the index (index.c) and the fleet's database (pg.c)
 * hold what run.json holds, under the same names.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/intern.h"
#include "codec.h"
#include "schema.h"

#define IX_CODEC 8                 /* bump when the blob's or the tables' layout changes */

/* ---- the blob: a walk over the field tables ----------------------------------- */

struct ix_buf {
	unsigned char *b;
	size_t n, cap;
	bool oom;
};

static void put_bytes(struct ix_buf *e, const void *p, size_t n)
{
	if (e->oom)
		return;
	if (e->n + n > e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 16384;
		while (cap < e->n + n)
			cap *= 2;
		unsigned char *b = realloc(e->b, cap);
		if (!b) {
			e->oom = true;
			return;
		}
		e->b = b;
		e->cap = cap;
	}
	memcpy(e->b + e->n, p, n);
	e->n += n;
}

static void put_u64(struct ix_buf *e, uint64_t v)
{
	put_bytes(e, &v, sizeof(v));
}

static void put_str(struct ix_buf *e, const char *s)
{
	uint32_t n = (uint32_t)strlen(s);
	put_bytes(e, &n, sizeof(n));
	put_bytes(e, s, n);
}

/* The bytes put into e, to the caller (malloc'd): 0, or -1 out of memory (e freed). */
static int ix_buf_take(struct ix_buf *e, unsigned char **out, size_t *n)
{
	if (e->oom) {
		free(e->b);
		*out = NULL;
		*n = 0;
		return -1;
	}
	*out = e->b;
	*n = e->n;
	return 0;
}

/* Every row of table from rec. */
static void put_fields(struct ix_buf *e, const struct res_field *table, const void *rec)
{
	for (const struct res_field *f = table; f->key; f++) {
		const char *at = (const char *)rec + f->offset;
		switch (f->type) {
		case RF_UINT: case RF_USERS: put_u64(e, *(const unsigned *)at); break;
		case RF_U64: case RF_U64N: put_u64(e, *(const uint64_t *)at); break;
		case RF_REAL: put_bytes(e, at, sizeof(double)); break;
		case RF_BOOL: put_u64(e, *(const bool *)at); break;
		case RF_TRI: put_u64(e, (uint64_t)(int64_t)*(const int *)at); break;
		case RF_STATUS: put_u64(e, (uint64_t)*(const enum res_status *)at); break;
		case RF_STR: put_str(e, at); break;
		case RF_ISTR: {
			const char *v = *(const char *const *)at;
			put_str(e, v ? v : "");
			break;
		}
		}
	}
}

struct ix_in {
	const unsigned char *p, *end;
	bool bad;
};

static void get_bytes(struct ix_in *d, void *out, size_t n)
{
	if (d->bad || (size_t)(d->end - d->p) < n) {
		d->bad = true;
		memset(out, 0, n);
		return;
	}
	memcpy(out, d->p, n);
	d->p += n;
}

static uint64_t get_u64(struct ix_in *d)
{
	uint64_t v;
	get_bytes(d, &v, sizeof(v));
	return v;
}

/* A count of records of `size` bytes that the rest of the blob could hold. */
static size_t get_count(struct ix_in *d, size_t size)
{
	uint64_t n = get_u64(d);
	if (n > (uint64_t)(d->end - d->p) / (size ? size : 1) + 1 || n > 1u << 24) {
		d->bad = true;
		return 0;
	}
	return (size_t)n;
}

static void get_str(struct ix_in *d, char *out, size_t size)
{
	uint32_t n;
	get_bytes(d, &n, sizeof(n));
	if (d->bad || n >= size || (size_t)(d->end - d->p) < n) {
		d->bad = true;
		out[0] = 0;
		return;
	}
	memcpy(out, d->p, n);
	out[n] = 0;
	d->p += n;
}

/* A string of the blob, interned ("" when the blob is bad or memory runs out). */
static const char *get_istr(struct ix_in *d)
{
	uint32_t n;
	get_bytes(d, &n, sizeof(n));
	if (d->bad || (size_t)(d->end - d->p) < n) {
		d->bad = true;
		return "";
	}
	const char *s = util_intern_n((const char *)d->p, n);
	if (!s) {
		d->bad = true;
		return "";
	}
	d->p += n;
	return s;
}

static void get_fields(struct ix_in *d, const struct res_field *table, void *rec)
{
	for (const struct res_field *f = table; f->key && !d->bad; f++) {
		char *at = (char *)rec + f->offset;
		switch (f->type) {
		case RF_UINT: case RF_USERS: *(unsigned *)at = (unsigned)get_u64(d); break;
		case RF_U64: case RF_U64N: *(uint64_t *)at = get_u64(d); break;
		case RF_REAL: get_bytes(d, at, sizeof(double)); break;
		case RF_BOOL: *(bool *)at = get_u64(d) != 0; break;
		case RF_TRI: *(int *)at = (int)(int64_t)get_u64(d); break;
		case RF_STATUS: {
			uint64_t s = get_u64(d);
			if (s > RES_FAILED)
				d->bad = true;
			*(enum res_status *)at = (enum res_status)s;
			break;
		}
		case RF_STR: get_str(d, at, f->size); break;
		case RF_ISTR: *(const char **)at = get_istr(d); break;
		}
	}
}

static void put_kvs(struct ix_buf *e, const struct res_kv *kv, size_t n)
{
	put_u64(e, n);
	for (size_t i = 0; i < n; i++) {
		put_str(e, kv[i].key);
		put_str(e, kv[i].value);
	}
}

static struct res_kv *get_kvs(struct ix_in *d, size_t *n)
{
	*n = get_count(d, 8);
	struct res_kv *kv = *n ? calloc(*n, sizeof(*kv)) : NULL;
	if (*n && !kv)
		d->bad = true;
	for (size_t i = 0; kv && i < *n && !d->bad; i++) {
		get_str(d, kv[i].key, sizeof(kv[i].key));
		get_str(d, kv[i].value, sizeof(kv[i].value));
	}
	return kv;
}

/* A point; without kinds, none of its mix entries. */
/*
 * Lists shared by many runs (labels, env, settings): the bytes of a list
 * as the blob holds it, interned, name the interned list decoded from them
 * the first time (memo), so that 100,000 runs decode a few lists, not
 * 100,000 of them.
 */
struct list_memo {
	const void *enc;       /* the interned encoding */
	const void *list;      /* the interned list */
	size_t n;
};
static struct {
	struct list_memo *slot;
	size_t nslot, n;
} memo;

static struct list_memo *memo_find(const void *enc)
{
	if (!memo.nslot)
		return NULL;
	size_t i = ((uintptr_t)enc >> 4) & (memo.nslot - 1);
	while (memo.slot[i].enc && memo.slot[i].enc != enc)
		i = (i + 1) & (memo.nslot - 1);
	return &memo.slot[i];
}

static void memo_put(const void *enc, const void *list, size_t n)
{
	if ((memo.n + 1) * 2 > memo.nslot) {
		size_t nslot = memo.nslot ? memo.nslot * 2 : 64;
		struct list_memo *old = memo.slot, *v = calloc(nslot, sizeof(*v));
		size_t oldn = memo.nslot;
		if (!v)
			return;   /* not remembered: decoded again next time */
		memo.slot = v;
		memo.nslot = nslot;
		for (size_t i = 0; i < oldn; i++)
			if (old[i].enc)
				*memo_find(old[i].enc) = old[i];
		free(old);
	}
	struct list_memo *m = memo_find(enc);
	if (!m->enc)
		memo.n++;
	*m = (struct list_memo){ enc, list, n };
}

/* The end of a list of records of `strs` strings and `nums` numbers at d (d unmoved); NULL: bad. */
static const unsigned char *list_end(const struct ix_in *d, unsigned strs, unsigned nums)
{
	struct ix_in l = *d;
	size_t n = get_count(&l, 8);
	for (size_t i = 0; i < n && !l.bad; i++) {
		for (unsigned k = 0; k < strs && !l.bad; k++) {
			uint32_t len;
			get_bytes(&l, &len, sizeof(len));
			if (!l.bad && (size_t)(l.end - l.p) < len)
				l.bad = true;
			else if (!l.bad)
				l.p += len;
		}
		for (unsigned k = 0; k < nums; k++)
			get_u64(&l);
	}
	return l.bad ? NULL : l.p;
}

/*
 * A shared list at d: its interned copy when these bytes were seen before
 * (*list, *n set, d moved past it, true), else false (d unmoved) and
 * *enc the interned bytes to remember it by (NULL: none).
 */
static bool list_seen(struct ix_in *d, unsigned strs, unsigned nums, const void **list, size_t *n,
		      const void **enc)
{
	const unsigned char *end = list_end(d, strs, nums);
	*enc = end ? util_intern_blob(d->p, (size_t)(end - d->p)) : NULL;
	struct list_memo *m = *enc ? memo_find(*enc) : NULL;
	if (!m || !m->enc)
		return false;
	*list = m->list;
	*n = m->n;
	d->p = end;
	return true;
}

/* Remember the list decoded from enc, interned; false when it could not be. */
static bool list_learn(const void *enc, void **list, size_t n, size_t size)
{
	if (!n)
		return true;
	const void *shared = util_intern_blob(*list, n * size);
	if (!shared)
		return false;
	free(*list);
	*list = (void *)shared;
	if (enc)
		memo_put(enc, shared, n);
	return true;
}

/* A shared list's own copy (for a record whose lists are not all shared). */
static void *list_own(const void *list, size_t n, size_t size, struct ix_in *d)
{
	void *v = n ? malloc(n * size) : NULL;
	if (n && !v)
		d->bad = true;
	else if (n)
		memcpy(v, list, n * size);
	return v;
}

/* A histogram (NULL: none) as its bucket count + 1 (0: none), totals and buckets. */
static void put_hist(struct ix_buf *e, const struct res_hist *h)
{
	put_u64(e, h ? h->nb + 1 : 0);
	if (!h)
		return;
	put_u64(e, h->count);
	put_u64(e, h->sum_ns);
	put_u64(e, h->min_ns);
	put_u64(e, h->max_ns);
	for (size_t b = 0; b < h->nb; b++) {
		put_u64(e, h->b[b].i);
		put_u64(e, h->b[b].n);
	}
}

/* put_hist's histogram back (NULL: none; d->bad when out of memory). */
static struct res_hist *get_hist(struct ix_in *d)
{
	size_t nb = get_count(d, 16);
	if (!nb || d->bad)
		return NULL;
	struct res_hist *h = calloc(1, sizeof(*h) + (nb - 1) * sizeof(h->b[0]));
	if (!h) {
		d->bad = true;
		return NULL;
	}
	h->count = get_u64(d);
	h->sum_ns = get_u64(d);
	h->min_ns = get_u64(d);
	h->max_ns = get_u64(d);
	for (h->nb = 0; h->nb < nb - 1; h->nb++) {
		h->b[h->nb].i = (uint32_t)get_u64(d);
		h->b[h->nb].n = get_u64(d);
	}
	return h;
}

/* A device's block-layer histograms (with the entries' ones: kinds), a flag first. */
static void put_blk(struct ix_buf *e, const struct res_blk *b)
{
	put_u64(e, b != NULL);
	for (int op = 0; b && op < RES_BLK_NOPS; op++)
		for (int w = 0; w < RES_BLK_NWHAT; w++)
			put_hist(e, b->h[op][w]);
	if (!b)
		return;
	put_hist(e, b->tdepth);
	put_u64(e, b->nent);
	for (size_t i = 0; i < b->nent; i++) {
		put_str(e, b->ent[i].name);
		put_u64(e, (uint64_t)(b->ent[i].entry + 1));
		put_fields(e, res_blk_ent_fields, &b->ent[i]);
	}
}

/* A device's rows by entry (blk_entries) into b. */
static void get_blk_ent(struct ix_in *d, struct res_blk *b)
{
	size_t n = d->bad ? 0 : get_count(d, 16);
	b->ent = n ? calloc(n, sizeof(*b->ent)) : NULL;
	if (n && !b->ent) {
		d->bad = true;
		return;
	}
	for (b->nent = 0; b->nent < n && !d->bad; b->nent++) {
		struct res_blk_ent *x = &b->ent[b->nent];
		get_str(d, x->name, sizeof(x->name));
		x->entry = (int)get_u64(d) - 1;
		get_fields(d, res_blk_ent_fields, x);
	}
}

static struct res_blk *get_blk(struct ix_in *d)
{
	if (!get_u64(d) || d->bad)
		return NULL;
	struct res_blk *b = calloc(1, sizeof(*b));
	if (!b) {
		d->bad = true;
		return NULL;
	}
	for (int op = 0; op < RES_BLK_NOPS && !d->bad; op++)
		for (int w = 0; w < RES_BLK_NWHAT && !d->bad; w++)
			b->h[op][w] = get_hist(d);
	if (!d->bad)
		b->tdepth = get_hist(d);
	get_blk_ent(d, b);
	return b;
}

static void put_point(struct ix_buf *e, const struct res_point *p, bool kinds)
{
	put_fields(e, res_point_fields, p);
	put_u64(e, kinds ? p->nkinds : 0);
	for (size_t k = 0; kinds && k < p->nkinds; k++) {
		const struct res_kind *q = &p->kinds[k];
		put_str(e, q->name);
		put_fields(e, res_kind_fields, q);
		put_hist(e, q->hist);
	}
	put_u64(e, p->ndevs);
	for (size_t k = 0; k < p->ndevs; k++) {
		put_str(e, p->devs[k].name);
		put_fields(e, res_dev_fields, &p->devs[k]);
		put_blk(e, kinds ? p->devs[k].blk : NULL);
	}
}

static void get_point(struct ix_in *d, struct res_point *p)
{
	res_point_init(p);
	get_fields(d, res_point_fields, p);
	p->nkinds = get_count(d, 16);
	p->kinds = p->nkinds ? calloc(p->nkinds, sizeof(*p->kinds)) : NULL;
	if (p->nkinds && !p->kinds) {
		p->nkinds = 0;
		d->bad = true;
	}
	for (size_t k = 0; k < p->nkinds && !d->bad; k++) {
		struct res_kind *q = &p->kinds[k];
		get_str(d, q->name, sizeof(q->name));
		get_fields(d, res_kind_fields, q);
		q->hist = get_hist(d);
	}
	p->ndevs = d->bad ? 0 : get_count(d, 16);
	p->devs = p->ndevs ? calloc(p->ndevs, sizeof(*p->devs)) : NULL;
	if (p->ndevs && !p->devs) {
		p->ndevs = 0;
		d->bad = true;
	}
	for (size_t k = 0; k < p->ndevs && !d->bad; k++) {
		res_dev_init(&p->devs[k]);
		get_str(d, p->devs[k].name, sizeof(p->devs[k].name));
		get_fields(d, res_dev_fields, &p->devs[k]);
		p->devs[k].blk = get_blk(d);
	}
}

/* The record as res_read reads it (with RES_READ_KINDS), but for path, dir and owner_gone. */
static void put_rec(struct ix_buf *e, const struct res_rec *r)
{
	put_u64(e, r->schema_version);
	put_str(e, r->id);
	put_fields(e, res_run_fields, r);
	put_kvs(e, r->labels, r->nlabels);
	put_kvs(e, r->env, r->nenv);
	put_u64(e, r->npoints_ok);
	put_u64(e, r->fail_users);
	put_str(e, r->fail_reason ? r->fail_reason : "");
	put_fields(e, res_summary_fields, &r->summary);
	put_u64(e, r->have_sched);
	put_fields(e, res_sched_fields, &r->sched);
	put_u64(e, r->have_warmup);
	put_fields(e, res_warmup_fields, &r->warmup);
	put_u64(e, r->nsettings);
	for (size_t i = 0; i < r->nsettings; i++) {
		put_str(e, r->settings[i].key);
		put_str(e, r->settings[i].value);
		put_u64(e, r->settings[i].fp);
	}
	put_str(e, r->fp_id);
	put_u64(e, r->fp_legacy);
	put_str(e, r->session);
	put_str(e, r->round_text);
	put_u64(e, r->have_owner);
	put_u64(e, (uint64_t)r->owner.pid);
	put_u64(e, r->owner.start);
	put_str(e, r->owner.boot);
	put_str(e, r->owner.host);
	size_t np = 0;
	for (size_t i = 0; i < r->npoints; i++)
		np += res_rec_peak_point(r, i);
	put_u64(e, np);
	for (size_t i = 0; i < r->npoints; i++)
		if (res_rec_peak_point(r, i))
			put_point(e, &r->points[i], false);
}

static void get_rec(struct ix_in *d, struct res_rec *r)
{
	r->schema_version = (unsigned)get_u64(d);
	r->id = get_istr(d);
	get_fields(d, res_run_fields, r);
	/* the lists: shared when all three are, else each its own (lists_shared says which, always) */
	const void *enc[3], *list;
	bool shared[3];
	size_t ln;
	if ((shared[0] = list_seen(d, 2, 0, &list, &ln, &enc[0]))) {
		r->labels = (struct res_kv *)list;
		r->nlabels = ln;
	} else {
		r->labels = get_kvs(d, &r->nlabels);
		shared[0] = !d->bad && list_learn(enc[0], (void **)&r->labels, r->nlabels,
						  sizeof(*r->labels));
	}
	if (!d->bad && (shared[1] = list_seen(d, 2, 0, &list, &ln, &enc[1]))) {
		r->env = (struct res_kv *)list;
		r->nenv = ln;
	} else {
		r->env = d->bad ? NULL : get_kvs(d, &r->nenv);
		shared[1] = !d->bad && list_learn(enc[1], (void **)&r->env, r->nenv, sizeof(*r->env));
	}
	if (shared[0] != shared[1]) {   /* one of each: both their own */
		if (shared[0])
			r->labels = list_own(r->labels, r->nlabels, sizeof(*r->labels), d);
		else
			r->env = list_own(r->env, r->nenv, sizeof(*r->env), d);
	}
	r->lists_shared = shared[0] && shared[1];
	r->npoints_ok = (unsigned)get_u64(d);
	r->fail_users = (unsigned)get_u64(d);
	r->fail_reason = get_istr(d);
	res_summary_init(&r->summary);
	get_fields(d, res_summary_fields, &r->summary);
	r->have_sched = get_u64(d) != 0;
	res_sched_init(&r->sched);
	get_fields(d, res_sched_fields, &r->sched);
	r->have_warmup = get_u64(d) != 0;
	get_fields(d, res_warmup_fields, &r->warmup);
	shared[2] = false;
	if (!d->bad && (shared[2] = list_seen(d, 2, 1, &list, &ln, &enc[2]))) {
		r->settings = (struct res_setting *)list;
		r->nsettings = ln;
	} else {
		r->nsettings = d->bad ? 0 : get_count(d, 16);
		r->settings = r->nsettings ? calloc(r->nsettings, sizeof(*r->settings)) : NULL;
		if (r->nsettings && !r->settings) {
			r->nsettings = 0;
			d->bad = true;
		}
		for (size_t i = 0; i < r->nsettings && !d->bad; i++) {
			get_str(d, r->settings[i].key, sizeof(r->settings[i].key));
			get_str(d, r->settings[i].value, sizeof(r->settings[i].value));
			r->settings[i].fp = get_u64(d) != 0;
		}
		shared[2] = !d->bad && list_learn(enc[2], (void **)&r->settings, r->nsettings,
						  sizeof(*r->settings));
	}
	if (r->lists_shared && !shared[2]) {   /* each its own: res_rec_free frees them */
		r->labels = list_own(r->labels, r->nlabels, sizeof(*r->labels), d);
		r->env = list_own(r->env, r->nenv, sizeof(*r->env), d);
		r->lists_shared = false;
	} else if (!r->lists_shared && shared[2]) {
		r->settings = list_own(r->settings, r->nsettings, sizeof(*r->settings), d);
	}
	get_str(d, r->fp_id, sizeof(r->fp_id));
	r->fp_legacy = get_u64(d) != 0;
	r->session = get_istr(d);
	get_str(d, r->round_text, sizeof(r->round_text));
	r->have_owner = get_u64(d) != 0;
	r->owner.pid = (long)get_u64(d);
	r->owner.start = get_u64(d);
	r->owner.boot = get_istr(d);
	r->owner.host = get_istr(d);
	/* the points at the summary's user counts, without mix entries (res_rec_peak_point) */
	size_t np = d->bad ? 0 : get_count(d, 64);
	r->points = np ? calloc(np, sizeof(*r->points)) : NULL;
	if (np && !r->points)
		d->bad = true;
	for (size_t i = 0; r->points && i < np && !d->bad; i++) {
		r->npoints = i + 1;
		get_point(d, &r->points[i]);
	}
	r->points_part = r->npoints > 0;
	if (d->p != d->end)
		d->bad = true;
}

/* ---- the tables, made from the field tables ---------------------------------------- */

/* The records whose keys are columns of `runs`, with their column prefixes. */
const struct res_sql_part res_sql_run_parts[RES_SQL_NPARTS] = {
	{ "", res_run_fields, 0 },
	{ "summary_", res_summary_fields, offsetof(struct res_rec, summary) },
	{ "sched_", res_sched_fields, offsetof(struct res_rec, sched) },
	{ "warmup_", res_warmup_fields, offsetof(struct res_rec, warmup) },
};

void res_sql_col(char *out, size_t len, const char *prefix, const char *key)
{
	snprintf(out, len, "%s%s", prefix, key);
	for (char *c = out; *c; c++)
		if (*c == '.')
			*c = '_';
}

static const char *ix_sqltype(enum res_ftype t, enum res_sql d)
{
	switch (t) {
	case RF_REAL: return d == RES_SQL_PG ? "DOUBLE PRECISION" : "REAL";
	case RF_STR: case RF_ISTR: case RF_STATUS: return "TEXT";
	default: return d == RES_SQL_PG ? "BIGINT" : "INTEGER";
	}
}

void res_sql_add(struct res_sql_buf *q, const char *s)
{
	size_t l = strlen(s);
	if (q->oom)
		return;
	if (q->n + l + 1 > q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 4096;
		while (cap < q->n + l + 1)
			cap *= 2;
		char *p = realloc(q->s, cap);
		if (!p) {
			q->oom = true;
			return;
		}
		q->s = p;
		q->cap = cap;
	}
	memcpy(q->s + q->n, s, l + 1);
	q->n += l;
}

void res_sql_cols(struct res_sql_buf *q, const char *prefix, const struct res_field *table,
		  bool ddl, enum res_sql d)
{
	char col[160];
	for (const struct res_field *f = table; f->key; f++) {
		res_sql_col(col, sizeof(col), prefix, f->key);
		res_sql_add(q, ", \"");
		res_sql_add(q, col);
		res_sql_add(q, "\"");
		if (ddl) {
			res_sql_add(q, " ");
			res_sql_add(q, ix_sqltype(f->type, d));
		}
	}
}

size_t res_sql_nfields(const struct res_field *table)
{
	size_t n = 0;
	while (table[n].key)
		n++;
	return n;
}

void res_sql_marks(struct res_sql_buf *q, size_t n, enum res_sql d, size_t *next)
{
	char m[24];
	for (size_t i = 0; i < n; i++) {
		if (d == RES_SQL_PG)
			snprintf(m, sizeof(m), ", $%zu", (*next)++);
		else
			snprintf(m, sizeof(m), ", ?");
		res_sql_add(q, m);
	}
}

int res_sql_layout(void)
{
	const struct res_field *tables[] = { res_run_fields, res_point_fields, res_kind_fields,
					     res_by_users_fields, res_summary_fields,
					     res_dev_fields, res_sched_fields, res_warmup_fields };
	uint32_t h = 2166136261u ^ IX_CODEC ^ (RES_SCHEMA_VERSION << 8);
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (const struct res_field *f = tables[t]; f->key; f++) {
			for (const char *c = f->key; *c; c++)
				h = (h ^ (unsigned char)*c) * 16777619u;
			h = (h ^ (uint32_t)f->type ^ (uint32_t)(f->size << 4)) * 16777619u;
		}
	return (int)(h & 0x7fffffff) | 1;
}

char *res_sql_ddl(enum res_sql d)
{
	struct res_sql_buf q = { 0 };
	const char *in = d == RES_SQL_PG ? "BIGINT" : "INTEGER";
	char head[512];
	snprintf(head, sizeof(head), "CREATE TABLE %sruns (rel TEXT PRIMARY KEY, dev %s, ino %s, "
		 "size %s, mtime_ns %s, ctime_ns %s, schema_version %s, run_id TEXT, fp_id TEXT, "
		 "session TEXT", d == RES_SQL_PG ? "IF NOT EXISTS " : "", in, in, in, in, in, in);
	res_sql_add(&q, head);
	for (size_t i = 0; i < RES_SQL_NPARTS; i++)
		res_sql_cols(&q, res_sql_run_parts[i].prefix, res_sql_run_parts[i].table, true, d);
	res_sql_add(&q, d == RES_SQL_PG ? ", rec BYTEA);\nCREATE TABLE IF NOT EXISTS points (rel TEXT, idx BIGINT"
				      : ", rec BLOB);\nCREATE TABLE points (rel TEXT, idx INTEGER");
	res_sql_cols(&q, "", res_point_fields, true, d);
	res_sql_add(&q, ", PRIMARY KEY (rel, idx));\n");
	/* the points whole (res_points_encode), apart: a run-level read never touches them */
	res_sql_add(&q, d == RES_SQL_PG ? "CREATE TABLE IF NOT EXISTS pts (rel TEXT PRIMARY KEY, pts BYTEA);\n"
				      : "CREATE TABLE pts (rel TEXT PRIMARY KEY, pts BLOB);\n");
	/* its curve (summary.by_users, res_curves_encode): read by compare and the charts */
	res_sql_add(&q, d == RES_SQL_PG ? "CREATE TABLE IF NOT EXISTS curves (rel TEXT PRIMARY KEY, "
					  "curves BYTEA);\n"
				      : "CREATE TABLE curves (rel TEXT PRIMARY KEY, curves BLOB);\n");
	for (int t = 0; t < 2; t++) {
		snprintf(head, sizeof(head), "CREATE TABLE %s%s (rel TEXT, key TEXT, value TEXT, "
			 "PRIMARY KEY (rel, key));\n", d == RES_SQL_PG ? "IF NOT EXISTS " : "",
			 t ? "env" : "labels");
		res_sql_add(&q, head);
	}
	return q.oom ? (free(q.s), NULL) : q.s;
}

int res_rec_encode(const struct res_rec *r, unsigned char **out, size_t *n)
{
	struct ix_buf e = { 0 };
	put_rec(&e, r);
	return ix_buf_take(&e, out, n);
}

int res_curves_encode(const struct res_rec *r, unsigned char **out, size_t *n)
{
	struct ix_buf e = { 0 };
	put_u64(&e, r->summary.nby);
	for (size_t i = 0; i < r->summary.nby; i++) {
		const struct res_by_users *b = &r->summary.by[i];
		put_fields(&e, res_by_users_fields, b);
		put_u64(&e, b->n);
		put_bytes(&e, b->samples, b->n * sizeof(double));
	}
	return ix_buf_take(&e, out, n);
}

int res_curves_decode(const void *p, size_t n, bool figures, struct res_rec *r)
{
	struct ix_in d = { p, (const unsigned char *)p + n, false };
	struct res_summary *s = &r->summary;
	res_summary_drop_by(s);
	if (!p)
		return -1;
	size_t nby = get_count(&d, 16);
	/* the entries and all their samples in one block: 100,000 runs x 18 */
	struct ix_in look = d;
	size_t total = 0;
	for (size_t i = 0; i < nby && !look.bad; i++) {
		struct res_by_users b;
		get_fields(&look, res_by_users_fields, &b);
		size_t k = get_count(&look, sizeof(double));
		if (k != b.n || k > (size_t)(look.end - look.p) / sizeof(double))
			look.bad = true;
		else
			look.p += k * sizeof(double);
		total += k;
	}
	if (look.bad || look.p != look.end)
		return -1;
	if (!nby)
		return 0;
	if (!figures) {   /* the curve alone (res_curve_pt), its samples in its block */
		s->curve = calloc(1, nby * sizeof(*s->curve) + total * sizeof(double));
		if (!s->curve)
			return -1;
		double *room = (double *)(s->curve + nby);
		for (size_t i = 0; i < nby; i++) {
			struct res_by_users b;
			get_fields(&d, res_by_users_fields, &b);
			size_t k = get_count(&d, sizeof(double));
			s->curve[i] = (struct res_curve_pt){ b.users, b.n & 0x7fffffffu, b.failed,
							     k ? room : NULL };
			get_bytes(&d, room, k * sizeof(double));
			room += k;
		}
		s->ncurve = nby;
		s->curve_own = true;
		return d.bad ? (res_summary_drop_by(s), -1) : 0;
	}
	s->by = calloc(1, nby * sizeof(*s->by) + total * sizeof(double));
	if (!s->by)
		return -1;
	s->nby = nby;
	s->by_packed = true;
	double *room = (double *)(s->by + nby);
	for (size_t i = 0; i < nby && !d.bad; i++) {
		struct res_by_users *b = &s->by[i];
		get_fields(&d, res_by_users_fields, b);
		size_t k = get_count(&d, sizeof(double));
		if (!k)
			continue;
		b->samples = room;
		room += k;
		get_bytes(&d, b->samples, k * sizeof(double));
	}
	if (d.bad || res_summary_curve(s)) {
		res_summary_drop_by(s);
		return -1;
	}
	return 0;
}

int res_points_encode(const struct res_rec *r, unsigned char **out, size_t *n)
{
	struct ix_buf e = { 0 };
	put_u64(&e, r->npoints);
	for (size_t i = 0; i < r->npoints; i++)
		put_point(&e, &r->points[i], true);
	return ix_buf_take(&e, out, n);
}

int res_points_decode(const void *p, size_t n, struct res_rec *r)
{
	struct ix_in d = { p, (const unsigned char *)p + n, false };
	res_rec_drop_points(r);
	if (!p)
		return -1;
	size_t np = get_count(&d, 64);
	struct res_point *pt = np ? calloc(np, sizeof(*pt)) : NULL;
	if (np && !pt)
		return -1;
	r->points = pt;
	for (size_t i = 0; i < np; i++) {
		if (d.bad)   /* the rest stay empty: res_rec_drop_points frees what was made */
			break;
		r->npoints = i + 1;
		get_point(&d, &r->points[i]);
	}
	if (d.bad || d.p != d.end) {
		res_rec_drop_points(r);
		return -1;
	}
	return 0;
}

int res_rec_decode(const void *p, size_t n, struct res_rec *out)
{
	struct ix_in d = { p, (const unsigned char *)p + n, false };
	res_rec_init(out);
	if (!p)
		return -1;
	get_rec(&d, out);
	if (d.bad) {
		res_rec_free(out);
		return -1;
	}
	return 0;
}

const char *res_sql_text(const struct res_field *f, const void *rec, char *buf, size_t len)
{
	const char *at = (const char *)rec + f->offset;
	switch (f->type) {
	case RF_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)at);
		return buf;
	case RF_USERS:
		if (!*(const unsigned *)at)
			return NULL;
		snprintf(buf, len, "%u", *(const unsigned *)at);
		return buf;
	case RF_U64N:
		if (*(const uint64_t *)at == UINT64_MAX)
			return NULL;
		/* fall through */
	case RF_U64:
		if (*(const uint64_t *)at > INT64_MAX)
			return NULL;   /* beyond a signed 64-bit column */
		snprintf(buf, len, "%" PRIu64, *(const uint64_t *)at);
		return buf;
	case RF_REAL:
		if (!isfinite(*(const double *)at))
			return NULL;
		snprintf(buf, len, "%.17g", *(const double *)at);
		return buf;
	case RF_BOOL:
		snprintf(buf, len, "%d", *(const bool *)at ? 1 : 0);
		return buf;
	case RF_TRI:
		if (*(const int *)at < 0)
			return NULL;
		snprintf(buf, len, "%d", *(const int *)at);
		return buf;
	case RF_STATUS:
		return res_status_name(*(const enum res_status *)at);
	case RF_STR:
		return *at ? at : NULL;
	case RF_ISTR: {
		const char *v = *(const char *const *)at;
		return v && v[0] ? v : NULL;
	}
	}
	return NULL;
}

