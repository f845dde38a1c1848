// SPDX-License-Identifier: GPL-2.0-only
/*
 * The results root's index (res_index.h): an SQLite file in the root that
 * keeps every run it has read, so that the reporting commands read 100,000
 * runs without parsing 100,000 JSON documents.
 *
 * Its tables are made from the schema's field tables (schema.c), the same
 * rows that write and read run.json: `runs` has a column per key of the run,
 * its summary, sched and warmup records (dots become underscores, a prefix
 * names the record), `points` a column per key of a load point, `labels` and
 * `env` the key/value pairs.  Each run's whole record, the parts a table
 * cannot hold in one row (mix entries, histograms, devices, by-users
 * samples, settings) included, is also kept as one blob encoded by walking
 * the same field tables; the reporting commands decode that blob, and the
 * columns are for SQL and for the fleet's database.
 *
 * A run is current when its run.json has the device, inode, size and mtime
 * recorded; otherwise it is parsed again and replaced.  Runs whose file is
 * gone are dropped.  The index is a cache: when it is of another layout
 * (user_version: a hash of the field tables and the codec's version), it
 * is rebuilt; when it cannot be opened or used, the runs are read from
 * their files as without one.
 *
 * Safety: jobmix often runs as root.  The index is only made and written
 * in a root owned by the effective user and writable by nobody else (so no
 * one can plant a symlink in its place or in its journal's), and SQLite is
 * asked not to follow a symlink.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "jobmix/res_index.h"
#include "schema.h"

#define IX_CODEC 1                 /* bump when the blob's layout changes */
#define IX_FILE ".jobmix-index.sqlite"

struct res_index {
	sqlite3 *db;
	char root[4096];
	sqlite3_stmt *get, *put, *del_pts, *put_pt, *seen;
	unsigned long gen;             /* this refresh's mark on every run seen */
	struct res_index_stats st;
	bool failed;                   /* a write failed: roll back, never commit half */
};

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

static void put_point(struct ix_buf *e, const struct res_point *p)
{
	put_fields(e, res_point_fields, p);
	put_u64(e, p->nkinds);
	for (size_t k = 0; k < p->nkinds; k++) {
		const struct res_kind *q = &p->kinds[k];
		put_str(e, q->name);
		put_fields(e, res_kind_fields, q);
		const struct res_hist *h = q->hist;
		put_u64(e, h ? h->nb + 1 : 0);
		if (!h)
			continue;
		put_u64(e, h->count);
		put_u64(e, h->sum_ns);
		put_u64(e, h->min_ns);
		put_u64(e, h->max_ns);
		for (size_t b = 0; b < h->nb; b++) {
			put_u64(e, h->b[b].i);
			put_u64(e, h->b[b].n);
		}
	}
	put_u64(e, p->ndevs);
	for (size_t k = 0; k < p->ndevs; k++) {
		put_str(e, p->devs[k].name);
		put_fields(e, res_dev_fields, &p->devs[k]);
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
		size_t nb = get_count(d, 16);
		if (!nb || d->bad)
			continue;
		struct res_hist *h = calloc(1, sizeof(*h) + (nb - 1) * sizeof(h->b[0]));
		if (!h) {
			d->bad = true;
			break;
		}
		q->hist = h;
		h->count = get_u64(d);
		h->sum_ns = get_u64(d);
		h->min_ns = get_u64(d);
		h->max_ns = get_u64(d);
		for (h->nb = 0; h->nb < nb - 1; h->nb++) {
			h->b[h->nb].i = (uint32_t)get_u64(d);
			h->b[h->nb].n = get_u64(d);
		}
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
	put_u64(e, r->npoints);
	for (size_t i = 0; i < r->npoints; i++)
		put_point(e, &r->points[i]);
	put_fields(e, res_summary_fields, &r->summary);
	put_u64(e, r->summary.nby);
	for (size_t i = 0; i < r->summary.nby; i++) {
		const struct res_by_users *b = &r->summary.by[i];
		put_fields(e, res_by_users_fields, b);
		put_u64(e, b->n);
		put_bytes(e, b->samples, b->n * sizeof(double));
	}
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
}

static void get_rec(struct ix_in *d, struct res_rec *r)
{
	r->schema_version = (unsigned)get_u64(d);
	get_str(d, r->id, sizeof(r->id));
	get_fields(d, res_run_fields, r);
	r->labels = get_kvs(d, &r->nlabels);
	r->env = get_kvs(d, &r->nenv);
	r->npoints = d->bad ? 0 : get_count(d, 64);
	r->points = r->npoints ? calloc(r->npoints, sizeof(*r->points)) : NULL;
	if (r->npoints && !r->points) {
		r->npoints = 0;
		d->bad = true;
	}
	for (size_t i = 0; i < r->npoints; i++) {
		if (d->bad) {   /* the rest stay empty: res_rec_free frees what was made */
			r->npoints = i;
			break;
		}
		get_point(d, &r->points[i]);
	}
	res_summary_init(&r->summary);
	get_fields(d, res_summary_fields, &r->summary);
	r->summary.nby = d->bad ? 0 : get_count(d, 16);
	r->summary.by = r->summary.nby ? calloc(r->summary.nby, sizeof(*r->summary.by)) : NULL;
	if (r->summary.nby && !r->summary.by) {
		r->summary.nby = 0;
		d->bad = true;
	}
	for (size_t i = 0; i < r->summary.nby && !d->bad; i++) {
		struct res_by_users *b = &r->summary.by[i];
		get_fields(d, res_by_users_fields, b);
		size_t n = get_count(d, sizeof(double));
		if (n != b->n)
			d->bad = true;
		if (!n || d->bad)
			continue;
		b->samples = malloc(n * sizeof(double));
		if (!b->samples)
			d->bad = true;
		else
			get_bytes(d, b->samples, n * sizeof(double));
	}
	r->have_sched = get_u64(d) != 0;
	res_sched_init(&r->sched);
	get_fields(d, res_sched_fields, &r->sched);
	r->have_warmup = get_u64(d) != 0;
	get_fields(d, res_warmup_fields, &r->warmup);
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
	get_str(d, r->fp_id, sizeof(r->fp_id));
	r->fp_legacy = get_u64(d) != 0;
	get_str(d, r->session, sizeof(r->session));
	get_str(d, r->round_text, sizeof(r->round_text));
	r->have_owner = get_u64(d) != 0;
	r->owner.pid = (long)get_u64(d);
	r->owner.start = get_u64(d);
	get_str(d, r->owner.boot, sizeof(r->owner.boot));
	get_str(d, r->owner.host, sizeof(r->owner.host));
	if (d->p != d->end)
		d->bad = true;
}

/* ---- the tables, made from the field tables ---------------------------------------- */

/* The records whose keys are columns of `runs`, with their column prefixes. */
struct ix_part {
	const char *prefix;
	const struct res_field *table;
	size_t (*at)(void);             /* the record's offset in struct res_rec */
};

static size_t at_run(void) { return 0; }
static size_t at_summary(void) { return offsetof(struct res_rec, summary); }
static size_t at_sched(void) { return offsetof(struct res_rec, sched); }
static size_t at_warmup(void) { return offsetof(struct res_rec, warmup); }

static const struct ix_part ix_run_parts[] = {
	{ "", res_run_fields, at_run },
	{ "summary_", res_summary_fields, at_summary },
	{ "sched_", res_sched_fields, at_sched },
	{ "warmup_", res_warmup_fields, at_warmup },
};
#define IX_NPARTS (sizeof(ix_run_parts) / sizeof(ix_run_parts[0]))

/* A field's SQL column name: prefix and key, dots as underscores. */
static void ix_col(char *out, size_t len, const char *prefix, const char *key)
{
	snprintf(out, len, "%s%s", prefix, key);
	for (char *c = out; *c; c++)
		if (*c == '.')
			*c = '_';
}

static const char *ix_sqltype(enum res_ftype t)
{
	switch (t) {
	case RF_REAL: return "REAL";
	case RF_STR: case RF_STATUS: return "TEXT";
	default: return "INTEGER";
	}
}

struct ix_sql {
	char *s;
	size_t n, cap;
	bool oom;
};

static void sql_add(struct ix_sql *q, const char *s)
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

/* ", col TYPE" (ddl) or ", col" for every row of table. */
static void sql_cols(struct ix_sql *q, const char *prefix, const struct res_field *table, bool ddl)
{
	char col[160];
	for (const struct res_field *f = table; f->key; f++) {
		ix_col(col, sizeof(col), prefix, f->key);
		sql_add(q, ", \"");
		sql_add(q, col);
		sql_add(q, "\"");
		if (ddl) {
			sql_add(q, " ");
			sql_add(q, ix_sqltype(f->type));
		}
	}
}

static size_t ix_nfields(const struct res_field *table)
{
	size_t n = 0;
	while (table[n].key)
		n++;
	return n;
}

/* ", ?" n times. */
static void sql_marks(struct ix_sql *q, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sql_add(q, ", ?");
}

/* The layout's hash: the codec's version and every table's keys and types. */
static int ix_layout(void)
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

/* The CREATE statements (one string). */
static char *ix_ddl(void)
{
	struct ix_sql q = { 0 };
	sql_add(&q, "CREATE TABLE runs (rel TEXT PRIMARY KEY, dev INTEGER, ino INTEGER, "
		    "size INTEGER, mtime_ns INTEGER, gen INTEGER, schema_version INTEGER, "
		    "run_id TEXT, fp_id TEXT, session TEXT");
	for (size_t i = 0; i < IX_NPARTS; i++)
		sql_cols(&q, ix_run_parts[i].prefix, ix_run_parts[i].table, true);
	sql_add(&q, ", rec BLOB);\nCREATE TABLE points (rel TEXT, idx INTEGER");
	sql_cols(&q, "", res_point_fields, true);
	sql_add(&q, ", PRIMARY KEY (rel, idx));\n"
		    "CREATE TABLE labels (rel TEXT, key TEXT, value TEXT, PRIMARY KEY (rel, key));\n"
		    "CREATE TABLE env (rel TEXT, key TEXT, value TEXT, PRIMARY KEY (rel, key));\n");
	return q.oom ? (free(q.s), NULL) : q.s;
}

/* ---- binding ------------------------------------------------------------------------- */

static void bind_fields(sqlite3_stmt *s, int *col, const struct res_field *table, const void *rec)
{
	for (const struct res_field *f = table; f->key; f++) {
		const char *at = (const char *)rec + f->offset;
		int c = (*col)++;
		switch (f->type) {
		case RF_UINT: sqlite3_bind_int64(s, c, *(const unsigned *)at); break;
		case RF_USERS:
			if (*(const unsigned *)at)
				sqlite3_bind_int64(s, c, *(const unsigned *)at);
			else
				sqlite3_bind_null(s, c);
			break;
		case RF_U64: sqlite3_bind_int64(s, c, (sqlite3_int64)*(const uint64_t *)at); break;
		case RF_U64N:
			if (*(const uint64_t *)at == UINT64_MAX)
				sqlite3_bind_null(s, c);
			else
				sqlite3_bind_int64(s, c, (sqlite3_int64)*(const uint64_t *)at);
			break;
		case RF_REAL:
			if (isfinite(*(const double *)at))
				sqlite3_bind_double(s, c, *(const double *)at);
			else
				sqlite3_bind_null(s, c);
			break;
		case RF_BOOL: sqlite3_bind_int(s, c, *(const bool *)at); break;
		case RF_TRI:
			if (*(const int *)at < 0)
				sqlite3_bind_null(s, c);
			else
				sqlite3_bind_int(s, c, *(const int *)at);
			break;
		case RF_STATUS:
			sqlite3_bind_text(s, c, res_status_name(*(const enum res_status *)at), -1,
					  SQLITE_STATIC);
			break;
		case RF_STR:
			if (*at)
				sqlite3_bind_text(s, c, at, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(s, c);
			break;
		}
	}
}

static int ix_prepare(sqlite3 *db, const char *sql, sqlite3_stmt **s)
{
	return sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, s, NULL) == SQLITE_OK
		       ? 0 : -1;
}

static int ix_statements(struct res_index *ix)
{
	struct ix_sql q = { 0 }, p = { 0 };
	sql_add(&q, "INSERT OR REPLACE INTO runs (rel, dev, ino, size, mtime_ns, gen, "
		    "schema_version, run_id, fp_id, session");
	size_t n = 10;
	for (size_t i = 0; i < IX_NPARTS; i++) {
		sql_cols(&q, ix_run_parts[i].prefix, ix_run_parts[i].table, false);
		n += ix_nfields(ix_run_parts[i].table);
	}
	sql_add(&q, ", rec) VALUES (?");
	sql_marks(&q, n);
	sql_add(&q, ")");
	sql_add(&p, "INSERT INTO points (rel, idx");
	sql_cols(&p, "", res_point_fields, false);
	sql_add(&p, ") VALUES (?, ?");
	sql_marks(&p, ix_nfields(res_point_fields));
	sql_add(&p, ")");
	int rc = q.oom || p.oom ||
		 ix_prepare(ix->db, "SELECT dev, ino, size, mtime_ns, rec FROM runs WHERE rel = ?",
			    &ix->get) ||
		 ix_prepare(ix->db, q.s, &ix->put) ||
		 ix_prepare(ix->db, "DELETE FROM points WHERE rel = ?", &ix->del_pts) ||
		 ix_prepare(ix->db, p.s, &ix->put_pt) ||
		 ix_prepare(ix->db, "UPDATE runs SET gen = ? WHERE rel = ?", &ix->seen)
		 ? -1 : 0;
	free(q.s);
	free(p.s);
	return rc;
}

/* ---- opening ------------------------------------------------------------------------- */

static int ix_exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

/* Make the tables afresh (the layout changed, or none yet). */
static int ix_create(sqlite3 *db)
{
	char *ddl = ix_ddl(), v[64];
	snprintf(v, sizeof(v), "PRAGMA user_version = %d;", ix_layout());
	int rc = !ddl || ix_exec(db, "BEGIN IMMEDIATE; DROP TABLE IF EXISTS runs; "
				     "DROP TABLE IF EXISTS points; DROP TABLE IF EXISTS labels; "
				     "DROP TABLE IF EXISTS env;") ||
		 ix_exec(db, ddl) || ix_exec(db, v) || ix_exec(db, "COMMIT;") ? -1 : 0;
	if (rc)
		ix_exec(db, "ROLLBACK;");
	free(ddl);
	return rc;
}

static int ix_version(sqlite3 *db)
{
	sqlite3_stmt *s;
	int v = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version;", -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return v;
}

const char *res_index_file(void)
{
	return IX_FILE;
}

/* May the index in root be made and written by us?  (Owned by us, written by nobody else.) */
static bool ix_root_ours(const char *root)
{
	struct stat st;
	return !lstat(root, &st) && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

static int ix_open(const char *root, struct res_index **out, bool retry)
{
	*out = NULL;
	const char *mode = getenv("JOBMIX_INDEX");
	if (mode && !strcmp(mode, "off"))
		return 1;
	if (!ix_root_ours(root))
		return 1;
	char file[4200];
	snprintf(file, sizeof(file), "%s/%s", root, IX_FILE);
	struct stat st;
	if (!lstat(file, &st) && !S_ISREG(st.st_mode))
		return 1;               /* not ours to open: a symlink, a folder */
	struct res_index *ix = calloc(1, sizeof(*ix));
	if (!ix)
		return 1;
	snprintf(ix->root, sizeof(ix->root), "%s", root);
	for (size_t n = strlen(ix->root); n > 1 && ix->root[n - 1] == '/'; n--)
		ix->root[n - 1] = 0;
	if (sqlite3_open_v2(file, &ix->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK)
		goto fail;
	sqlite3_busy_timeout(ix->db, 10000);
	ix_exec(ix->db, "PRAGMA synchronous = NORMAL;");
	int version = ix_version(ix->db);
	if (version < 0 && sqlite3_errcode(ix->db) != SQLITE_BUSY && !retry) {
		/* not a database (or a damaged one): it is only a cache, made afresh */
		sqlite3_close(ix->db);
		free(ix);
		if (unlink(file) && errno != ENOENT)
			return 1;
		return ix_open(root, out, true);
	}
	bool rebuild = mode && !strcmp(mode, "rebuild");
	if (version < 0)
		goto fail;
	if (rebuild || version != ix_layout()) {
		if (ix_create(ix->db))
			goto fail;
		ix->st.rebuilt = true;
	}
	if (ix_statements(ix) || ix_exec(ix->db, "BEGIN IMMEDIATE;"))
		goto fail;
	/* this refresh's mark: one more than any so far */
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(ix->db, "SELECT coalesce(max(gen), 0) + 1 FROM runs", -1, &s, NULL) !=
	    SQLITE_OK)
		goto fail_tx;
	if (sqlite3_step(s) == SQLITE_ROW)
		ix->gen = (unsigned long)sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (!ix->gen)
		goto fail_tx;
	*out = ix;
	return 0;
fail_tx:
	ix_exec(ix->db, "ROLLBACK;");
fail:
	res_index_close(ix, false, NULL);
	return 1;
}

int res_index_open(const char *root, struct res_index **out)
{
	return ix_open(root, out, false);
}

/* The file's identity as the index keeps it. */
static void ix_ident(const struct stat *st, sqlite3_int64 id[4])
{
	id[0] = (sqlite3_int64)st->st_dev;
	id[1] = (sqlite3_int64)st->st_ino;
	id[2] = (sqlite3_int64)st->st_size;
	id[3] = (sqlite3_int64)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The file's name relative to the root ("" when it is not under it). */
static const char *ix_rel(const struct res_index *ix, const char *file)
{
	size_t n = strlen(ix->root);
	if (strncmp(file, ix->root, n) || file[n] != '/')
		return NULL;
	while (file[n] == '/')
		n++;
	return file + n;
}

/* path and dir as res_read makes them. */
static void ix_paths(struct res_rec *r, const char *file)
{
	snprintf(r->path, sizeof(r->path), "%s", file);
	snprintf(r->dir, sizeof(r->dir), "%s", file);
	char *slash = strrchr(r->dir, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(r->dir, sizeof(r->dir), ".");
}

int res_index_get(struct res_index *ix, const char *file, const struct stat *st, struct res_rec *out)
{
	const char *rel = ix_rel(ix, file);
	sqlite3_int64 id[4];
	int rc = 1;
	if (!rel || ix->failed)
		return 1;
	ix_ident(st, id);
	sqlite3_reset(ix->get);
	sqlite3_bind_text(ix->get, 1, rel, -1, SQLITE_STATIC);
	if (sqlite3_step(ix->get) != SQLITE_ROW)
		goto out;
	for (int i = 0; i < 4; i++)
		if (sqlite3_column_int64(ix->get, i) != id[i])
			goto out;
	struct ix_in d = { sqlite3_column_blob(ix->get, 4), NULL, false };
	d.end = d.p + sqlite3_column_bytes(ix->get, 4);
	if (!d.p)
		goto out;
	memset(out, 0, sizeof(*out));
	get_rec(&d, out);
	if (d.bad) {
		res_rec_free(out);
		goto out;
	}
	ix_paths(out, file);
	sqlite3_reset(ix->seen);
	sqlite3_bind_int64(ix->seen, 1, (sqlite3_int64)ix->gen);
	sqlite3_bind_text(ix->seen, 2, rel, -1, SQLITE_STATIC);
	if (sqlite3_step(ix->seen) != SQLITE_DONE)
		ix->failed = true;
	ix->st.hits++;
	rc = 0;
out:
	sqlite3_reset(ix->get);
	sqlite3_clear_bindings(ix->get);
	return rc;
}

static bool ix_step_done(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE;
}

static bool ix_put_kvs(struct res_index *ix, const char *table, const char *rel,
		       const struct res_kv *kv, size_t n)
{
	char sql[160];
	sqlite3_stmt *del, *put;
	snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE rel = ?", table);
	if (sqlite3_prepare_v2(ix->db, sql, -1, &del, NULL) != SQLITE_OK)
		return false;
	snprintf(sql, sizeof(sql), "INSERT OR REPLACE INTO %s (rel, key, value) VALUES (?, ?, ?)",
		 table);
	if (sqlite3_prepare_v2(ix->db, sql, -1, &put, NULL) != SQLITE_OK) {
		sqlite3_finalize(del);
		return false;
	}
	sqlite3_bind_text(del, 1, rel, -1, SQLITE_STATIC);
	bool ok = ix_step_done(del);
	for (size_t i = 0; ok && i < n; i++) {
		sqlite3_bind_text(put, 1, rel, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 2, kv[i].key, -1, SQLITE_STATIC);
		sqlite3_bind_text(put, 3, kv[i].value, -1, SQLITE_STATIC);
		ok = ix_step_done(put);
	}
	sqlite3_finalize(del);
	sqlite3_finalize(put);
	return ok;
}

void res_index_put(struct res_index *ix, const char *file, const struct stat *st,
		   const struct res_rec *r)
{
	const char *rel = ix_rel(ix, file);
	if (!rel || ix->failed)
		return;
	struct ix_buf e = { 0 };
	put_rec(&e, r);
	if (e.oom) {
		free(e.b);
		ix->failed = true;
		return;
	}
	sqlite3_int64 id[4];
	ix_ident(st, id);
	sqlite3_stmt *s = ix->put;
	int c = 1;
	sqlite3_bind_text(s, c++, rel, -1, SQLITE_STATIC);
	for (int i = 0; i < 4; i++)
		sqlite3_bind_int64(s, c++, id[i]);
	sqlite3_bind_int64(s, c++, (sqlite3_int64)ix->gen);
	sqlite3_bind_int(s, c++, (int)r->schema_version);
	sqlite3_bind_text(s, c++, r->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, r->fp_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, r->session, -1, SQLITE_STATIC);
	for (size_t i = 0; i < IX_NPARTS; i++)
		bind_fields(s, &c, ix_run_parts[i].table, (const char *)r + ix_run_parts[i].at());
	sqlite3_bind_blob(s, c, e.b, (int)e.n, SQLITE_STATIC);
	bool ok = ix_step_done(s);
	free(e.b);
	sqlite3_bind_text(ix->del_pts, 1, rel, -1, SQLITE_STATIC);
	ok = ok && ix_step_done(ix->del_pts);
	for (size_t i = 0; ok && i < r->npoints; i++) {
		c = 1;
		sqlite3_bind_text(ix->put_pt, c++, rel, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ix->put_pt, c++, (sqlite3_int64)i);
		bind_fields(ix->put_pt, &c, res_point_fields, &r->points[i]);
		ok = ix_step_done(ix->put_pt);
	}
	ok = ok && ix_put_kvs(ix, "labels", rel, r->labels, r->nlabels) &&
	     ix_put_kvs(ix, "env", rel, r->env, r->nenv);
	if (!ok)
		ix->failed = true;
	else
		ix->st.parsed++;
}

void res_index_close(struct res_index *ix, bool commit, struct res_index_stats *st)
{
	if (st)
		memset(st, 0, sizeof(*st));
	if (!ix)
		return;
	if (ix->db && commit && !ix->failed && ix->get) {
		/* the runs not seen in this walk are gone */
		char sql[256];
		snprintf(sql, sizeof(sql),
			 "DELETE FROM points WHERE rel IN (SELECT rel FROM runs WHERE gen <> %lu); "
			 "DELETE FROM labels WHERE rel IN (SELECT rel FROM runs WHERE gen <> %lu); ",
			 ix->gen, ix->gen);
		char sql2[256];
		snprintf(sql2, sizeof(sql2),
			 "DELETE FROM env WHERE rel IN (SELECT rel FROM runs WHERE gen <> %lu); "
			 "DELETE FROM runs WHERE gen <> %lu;", ix->gen, ix->gen);
		if (ix_exec(ix->db, sql) || ix_exec(ix->db, sql2))
			ix->failed = true;
		else
			ix->st.dropped = (size_t)sqlite3_changes(ix->db);
	}
	if (ix->db && ix->get && ix_exec(ix->db, commit && !ix->failed ? "COMMIT;" : "ROLLBACK;"))
		ix->failed = true;
	if (st && commit && !ix->failed)
		*st = ix->st;
	sqlite3_stmt *all[] = { ix->get, ix->put, ix->del_pts, ix->put_pt, ix->seen };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		sqlite3_finalize(all[i]);
	if (ix->db)
		sqlite3_close(ix->db);
	free(ix);
}
