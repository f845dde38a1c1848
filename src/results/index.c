// SPDX-License-Identifier: GPL-2.0-only
/*
 * The results root's index (res_index.h): an SQLite file in the root that
 * keeps every run it has read, so that the reporting commands read 100,000
 * runs without parsing 100,000 JSON documents.  One per root: a folder
 * read inside a root that has one (the nearest folder above it that holds
 * an index and is ours) is read through it, its rows only (a rel range).
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
 * A run is current when its run.json has the device, inode, size, mtime and
 * ctime recorded (ctime: no user can set it back, as touch -d sets mtime);
 * otherwise it is parsed again and replaced.  Runs whose file is
 * gone are dropped.  The index is a cache: when it is of another layout
 * (user_version: a hash of the field tables and the codec's version), it
 * is rebuilt; when it cannot be opened or used, the runs are read from
 * their files as without one.
 *
 * Safety: jobmix often runs as root.  The index is only made and written
 * in a root owned by the effective user and writable by nobody else (so no
 * one can plant a symlink in its place or in its journal's), and SQLite is
 * asked not to follow a symlink.  An index file (or journal) that is there
 * is read only when owned by root or by us and writable by nobody else:
 * another user who owns it could rewrite its rows.  Otherwise it is neither
 * read nor written, and the caller is told why.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "jobmix/res_index.h"
#include "jobmix/res_runs.h"
#include "codec.h"
#include "schema.h"

#define IX_FILE ".jobmix-index.sqlite"

struct res_index {
	sqlite3 *db;
	char root[4096];               /* the folder walked: its files' names start with it */
	char sub[4096];                /* that folder's place in the index's root ("" or "n1/") */
	char subhi[4096];              /* sub's end: every rel under it is < subhi */
	sqlite3_stmt *get, *get_in, *put, *del_pts, *put_pt, *put_blob, *put_curves;
	char **gone;                   /* rows the scan found no run.json for (rel) */
	size_t ngone, capgone;
	bool scanned;                  /* res_index_scan ran: gone is complete */
	char file[4200];
	bool created;                  /* the file is this process's: removed when discarded */
	struct res_index_stats st;
	bool failed;                   /* a write failed: roll back, never commit half */
	size_t runs;                   /* after a refresh of the whole root: its runs */
	bool sized;                    /* runs is known (the last refresh was the whole root's) */
};

/*
 * Page sizes: a small index has 1 KiB pages (its 13 b-trees, one a table
 * and one a primary key, take a page each: 13 KiB, not 832), a large one
 * 64 KiB (a run's row, ~5 KB, fits in a page without overflow pages, so a
 * scan of 100,000 runs reads the table in order).  An index is made with
 * the size its walk calls for and moved (VACUUM) to the other size when
 * a refresh of the whole root finds it past IX_BIG runs, or under a
 * quarter of that.
 */
#define IX_PAGE_SMALL 1024
#define IX_PAGE_BIG 65536
#define IX_BIG 1000

/* Refreshes closed and waiting for res_index_settle (the command's outcome). */
#define IX_PENDING 64
static struct res_index *ix_pending[IX_PENDING];
static size_t ix_npending;

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
		case RF_ISTR: {
			const char *v = *(const char *const *)at;
			if (v && v[0])
				sqlite3_bind_text(s, c, v, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(s, c);
			break;
		}
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
	struct res_sql_buf q = { 0 }, p = { 0 };
	size_t next = 0;
	res_sql_add(&q, "INSERT OR REPLACE INTO runs (rel, dev, ino, size, mtime_ns, ctime_ns, "
		    "schema_version, run_id, fp_id, session");
	size_t n = 10;   /* dev .. session and rec; rel is the first mark */
	for (size_t i = 0; i < RES_SQL_NPARTS; i++) {
		res_sql_cols(&q, res_sql_run_parts[i].prefix, res_sql_run_parts[i].table, false,
			     RES_SQL_SQLITE);
		n += res_sql_nfields(res_sql_run_parts[i].table);
	}
	res_sql_add(&q, ", rec) VALUES (?");
	res_sql_marks(&q, n, RES_SQL_SQLITE, &next);
	res_sql_add(&q, ")");
	res_sql_add(&p, "INSERT INTO points (rel, idx");
	res_sql_cols(&p, "", res_point_fields, false, RES_SQL_SQLITE);
	res_sql_add(&p, ") VALUES (?, ?");
	res_sql_marks(&p, res_sql_nfields(res_point_fields), RES_SQL_SQLITE, &next);
	res_sql_add(&p, ")");
	int rc = q.oom || p.oom ||
		 ix_prepare(ix->db, "SELECT rel, dev, ino, size, mtime_ns, ctime_ns, rec FROM runs", &ix->get) ||
		 ix_prepare(ix->db, "SELECT rel, dev, ino, size, mtime_ns, ctime_ns, rec FROM runs "
			    "WHERE rel >= ?1 AND rel < ?2", &ix->get_in) ||
		 ix_prepare(ix->db, "INSERT OR REPLACE INTO pts (rel, pts) VALUES (?, ?)",
			    &ix->put_blob) ||
		 ix_prepare(ix->db, "INSERT OR REPLACE INTO curves (rel, curves) VALUES (?, ?)",
			    &ix->put_curves) ||
		 ix_prepare(ix->db, q.s, &ix->put) ||
		 ix_prepare(ix->db, "DELETE FROM points WHERE rel = ?", &ix->del_pts) ||
		 ix_prepare(ix->db, p.s, &ix->put_pt)
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

/* Make the tables afresh (the layout changed, or none yet), for nruns runs. */
static int ix_create(sqlite3 *db, size_t nruns)
{
	char *ddl = res_sql_ddl(RES_SQL_SQLITE), v[64], page[64];
	snprintf(v, sizeof(v), "PRAGMA user_version = %d;", res_sql_layout());
	/* the page size of a file that has tables is changed by VACUUM */
	snprintf(page, sizeof(page), "PRAGMA page_size = %d; VACUUM;",
		 nruns >= IX_BIG ? IX_PAGE_BIG : IX_PAGE_SMALL);
	int rc = !ddl || ix_exec(db, "BEGIN IMMEDIATE; DROP TABLE IF EXISTS runs; "
				     "DROP TABLE IF EXISTS points; DROP TABLE IF EXISTS labels; "
				     "DROP TABLE IF EXISTS env; DROP TABLE IF EXISTS pts; "
				     "DROP TABLE IF EXISTS curves; COMMIT;") ||
		 ix_exec(db, page) ||
		 ix_exec(db, "BEGIN IMMEDIATE;") ||
		 ix_exec(db, ddl) || ix_exec(db, v) || ix_exec(db, "COMMIT;") ? -1 : 0;
	if (rc)
		ix_exec(db, "ROLLBACK;");
	free(ddl);
	return rc;
}

/* The value of a PRAGMA that reads one integer, or -1. */
static int ix_pragma(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	int v = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
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

/*
 * May the index file (or its journal) be read and written?  Only when it
 * is a regular file owned by root or by us and writable by nobody else;
 * else why says so.  A file that is not there is ours to make.
 */
static bool ix_file_trusted(const char *file, char *why, size_t whylen)
{
	struct stat st;
	if (lstat(file, &st))
		return errno == ENOENT;
	if (!S_ISREG(st.st_mode))
		return false;   /* not ours to open: a symlink, a folder (said by none) */
	if ((st.st_uid == 0 || st.st_uid == geteuid()) && !(st.st_mode & (S_IWGRP | S_IWOTH)))
		return true;
	snprintf(why, whylen, "index '%s' is %s (another user could have written its rows): "
		 "ignored, the runs are read from their files", file,
		 st.st_uid != 0 && st.st_uid != geteuid() ? "owned by another user" :
		 "writable by others");
	return false;
}

/* ix to read the folder walk, at sub in its root ("" or ending in '/'). */
static void ix_aim(struct res_index *ix, const char *walk, const char *sub)
{
	snprintf(ix->root, sizeof(ix->root), "%s", walk);
	for (size_t n = strlen(ix->root); n > 1 && ix->root[n - 1] == '/'; n--)
		ix->root[n - 1] = 0;
	snprintf(ix->sub, sizeof(ix->sub), "%s", sub);
	snprintf(ix->subhi, sizeof(ix->subhi), "%s", sub);
	size_t n = strlen(ix->subhi);
	if (n)
		ix->subhi[n - 1] = '/' + 1;
}

/*
 * A refresh of file that this process closed and has not settled: taken
 * back (its transaction goes on; a second connection would wait for its
 * locks), or NULL.
 */
static struct res_index *ix_reopen(const char *file)
{
	for (size_t i = 0; i < ix_npending; i++) {
		struct res_index *ix = ix_pending[i];
		if (strcmp(ix->file, file))
			continue;
		ix_pending[i] = ix_pending[--ix_npending];
		for (size_t k = 0; k < ix->ngone; k++)
			free(ix->gone[k]);
		ix->ngone = 0;
		ix->scanned = false;
		memset(&ix->st, 0, sizeof(ix->st));
		return ix;
	}
	return NULL;
}

/*
 * Open the index in root to read the folder walk, at sub in root; nruns:
 * the runs the walk found (the page size of an index made afresh).
 */
static int ix_open(const char *root, const char *walk, const char *sub, size_t nruns,
		   struct res_index **out, bool retry, char *why, size_t whylen)
{
	*out = NULL;
	const char *mode = getenv("JOBMIX_INDEX");
	if (mode && !strcmp(mode, "off"))
		return 1;
	if (!ix_root_ours(root))
		return 1;
	char file[4200];
	snprintf(file, sizeof(file), "%s/%s", root, IX_FILE);
	if ((*out = ix_reopen(file))) {
		ix_aim(*out, walk, sub);
		return 0;
	}
	struct stat st;
	bool exists = !lstat(file, &st);
	static const char *const side[] = { "", "-journal", "-wal", "-shm" };
	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		char f[4300];
		snprintf(f, sizeof(f), "%s%s", file, side[i]);
		if (!ix_file_trusted(f, why, whylen))
			return 1;
	}
	struct res_index *ix = calloc(1, sizeof(*ix));
	if (!ix)
		return 1;
	snprintf(ix->file, sizeof(ix->file), "%s", file);
	ix->created = !exists || retry;
	ix_aim(ix, walk, sub);
	if (sqlite3_open_v2(file, &ix->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW, NULL) !=
	    SQLITE_OK)
		goto fail;
	sqlite3_busy_timeout(ix->db, 10000);
	ix_exec(ix->db, "PRAGMA synchronous = NORMAL;");
	int version = ix_pragma(ix->db, "PRAGMA user_version;");
	if (version < 0 && sqlite3_errcode(ix->db) != SQLITE_BUSY && !retry) {
		/* not a database (or a damaged one): it is only a cache, made afresh */
		sqlite3_close(ix->db);
		free(ix);
		if (unlink(file) && errno != ENOENT)
			return 1;
		return ix_open(root, walk, sub, nruns, out, true, why, whylen);
	}
	bool rebuild = mode && !strcmp(mode, "rebuild");
	if (version < 0)
		goto fail;
	if (rebuild || version != res_sql_layout()) {
		if (ix_create(ix->db, nruns))
			goto fail;
		ix->st.rebuilt = true;
	}
	/* deferred: readers share the file; the first write takes the lock */
	if (ix_statements(ix) || ix_exec(ix->db, "BEGIN;"))
		goto fail;
	*out = ix;
	return 0;
fail:
	ix->created = false;   /* a file that could not be used is left as it was */
	res_index_close(ix, false, NULL);
	return 1;
}

/*
 * The results root path lies in: the nearest folder above it (its real
 * path) that holds an index and is ours (ix_root_ours) into top, and
 * path's place in it ("n1/") into sub.  0, or -1 when there is none.
 */
static int ix_above(const char *path, char *top, size_t toplen, char *sub, size_t sublen)
{
	char real[PATH_MAX], file[PATH_MAX + 64];
	struct stat st;
	if (!realpath(path, real))
		return -1;
	for (size_t end = strlen(real); end > 1;) {
		while (end && real[end - 1] != '/')
			end--;
		size_t cut = end - 1;   /* the slash before the last name: real[0, cut) the parent */
		if (!end || !cut)
			return -1;      /* none above but '/' */
		snprintf(file, sizeof(file), "%.*s/%s", (int)cut, real, IX_FILE);
		snprintf(top, toplen, "%.*s", (int)cut, real);
		if (!lstat(file, &st) && ix_root_ours(top)) {
			int n = snprintf(sub, sublen, "%s/", real + cut + 1);
			return n > 0 && (size_t)n < sublen ? 0 : -1;
		}
		end = cut;
	}
	return -1;
}

int res_index_open(const char *path, size_t nruns, struct res_index **out, char *why,
		   size_t whylen)
{
	char top[PATH_MAX], sub[PATH_MAX];
	if (whylen)
		why[0] = 0;
	/* a folder inside a root with an index is read through that index, never one of its own */
	if (!ix_above(path, top, sizeof(top), sub, sizeof(sub)))
		return ix_open(top, path, sub, nruns, out, false, why, whylen);
	return ix_open(path, path, "", nruns, out, false, why, whylen);
}

/* The file's identity as the index keeps it. */
#define IX_NIDENT 5
static void ix_ident(const struct res_ident *st, sqlite3_int64 id[IX_NIDENT])
{
	id[0] = (sqlite3_int64)st->dev;
	id[1] = (sqlite3_int64)st->ino;
	id[2] = (sqlite3_int64)st->size;
	id[3] = (sqlite3_int64)st->mtime_ns;
	id[4] = (sqlite3_int64)st->ctime_ns;
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

/* A row's rel (in the index's root) as the walk names it, or NULL when it is not under the walk. */
static const char *ix_in(const struct res_index *ix, const char *full)
{
	size_t n = strlen(ix->sub);
	return full && !strncmp(full, ix->sub, n) ? full + n : NULL;
}

/* Bind the rows under the walk's folder to s's ?1 and ?2; false for the whole root (none bound). */
static bool ix_rows(const struct res_index *ix, sqlite3_stmt *s)
{
	if (!ix->sub[0])
		return false;
	sqlite3_bind_text(s, 1, ix->sub, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, ix->subhi, -1, SQLITE_STATIC);
	return true;
}

static bool ix_step_done(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE;
}

/* Note rel as a row whose run.json is gone (out of memory: the refresh is not committed). */
static void ix_gone(struct res_index *ix, const char *rel)
{
	if (ix->ngone == ix->capgone) {
		size_t cap = ix->capgone ? ix->capgone * 2 : 64;
		char **v = realloc(ix->gone, cap * sizeof(*v));
		if (!v) {
			ix->failed = true;
			return;
		}
		ix->gone = v;
		ix->capgone = cap;
	}
	if (!(ix->gone[ix->ngone] = strdup(rel))) {
		ix->failed = true;
		return;
	}
	ix->ngone++;
}

/* Drop every row the scan found no run.json for.  0 or -1. */
static int ix_prune(struct res_index *ix)
{
	enum { NT = 6 };
	sqlite3_stmt *del[NT] = { NULL };
	static const char *const sql[NT] = {
		"DELETE FROM points WHERE rel = ?", "DELETE FROM labels WHERE rel = ?",
		"DELETE FROM env WHERE rel = ?", "DELETE FROM pts WHERE rel = ?",
		"DELETE FROM curves WHERE rel = ?", "DELETE FROM runs WHERE rel = ?",
	};
	int rc = ix->scanned ? 0 : -1;
	for (int t = 0; !rc && ix->ngone && t < NT; t++)
		if (sqlite3_prepare_v2(ix->db, sql[t], -1, &del[t], NULL) != SQLITE_OK)
			rc = -1;
	for (size_t i = 0; !rc && i < ix->ngone; i++)
		for (int t = 0; !rc && t < NT; t++) {
			sqlite3_bind_text(del[t], 1, ix->gone[i], -1, SQLITE_STATIC);
			if (!ix_step_done(del[t]))
				rc = -1;
		}
	for (int t = 0; t < NT; t++)
		sqlite3_finalize(del[t]);
	if (!rc)
		ix->st.dropped = ix->ngone;
	return rc;
}

/* The walk's index of rel among rels[0..n) (sorted), or -1. */
static long ix_find(const char *const *rels, size_t n, const char *rel)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(rels[mid], rel);
		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* A blob of a table apart (pts, curves) into run r; 0, or -1 when it is not one. */
static int ix_blob_points(const void *p, size_t n, struct res_rec *r)
{
	if (res_points_decode(p, n, r))
		return -1;
	res_rec_derive(r);
	return 0;
}

static int ix_blob_curves(const void *p, size_t n, struct res_rec *r)
{
	return res_curves_decode(p, n, true, r);
}

static int ix_blob_curve(const void *p, size_t n, struct res_rec *r)
{
	return res_curves_decode(p, n, false, r);
}

/*
 * What the table apart `sql` (SELECT rel, blob) holds of every run the
 * scan filled, by one pass over it; a run it has none of (or one that
 * cannot be read) is read from its file.  0 or -1.
 */
static int ix_scan_apart(struct res_index *ix, const char *sql,
			 int (*decode)(const void *p, size_t n, struct res_rec *r),
			 const char *const *rels, size_t n, struct res_rec *recs, bool *done)
{
	sqlite3_stmt *s;
	char q[200];
	snprintf(q, sizeof(q), "%s%s", sql, ix->sub[0] ? " WHERE rel >= ?1 AND rel < ?2" : "");
	bool *have = calloc(n ? n : 1, sizeof(*have));
	if (!have || sqlite3_prepare_v2(ix->db, q, -1, &s, NULL) != SQLITE_OK) {
		free(have);
		return -1;
	}
	ix_rows(ix, s);
	int step;
	while ((step = sqlite3_step(s)) == SQLITE_ROW) {
		const char *rel = ix_in(ix, (const char *)sqlite3_column_text(s, 0));
		long i = rel ? ix_find(rels, n, rel) : -1;
		if (i < 0 || !done[i] || have[i])
			continue;
		have[i] = !decode(sqlite3_column_blob(s, 1), (size_t)sqlite3_column_bytes(s, 1),
				  &recs[i]);
	}
	sqlite3_finalize(s);
	for (size_t i = 0; i < n; i++)
		if (done[i] && !have[i]) {
			res_rec_free(&recs[i]);
			done[i] = false;
			ix->st.hits--;
		}
	free(have);
	return step == SQLITE_DONE ? 0 : -1;
}

int res_index_scan(struct res_index *ix, char *const *files, const struct res_ident *st, size_t n,
		   unsigned parts, struct res_rec *recs, bool *done,
		   void (*each)(struct res_rec *r, void *arg), void *arg)
{
	bool points = parts & RES_RUNS_POINTS;
	bool curves = points || (parts & RES_RUNS_CURVES);
	const char **rels = n ? malloc(n * sizeof(*rels)) : NULL;
	memset(done, 0, n * sizeof(*done));
	if (ix->failed || (n && !rels)) {
		free(rels);
		ix->failed = true;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		rels[i] = ix_rel(ix, files[i]);
		if (!rels[i] || (i && strcmp(rels[i - 1], rels[i]) >= 0)) {
			free(rels);     /* not under the root, or not in order: not the walk's */
			ix->failed = true;
			return -1;
		}
	}
	int step;
	sqlite3_stmt *get = ix_rows(ix, ix->get_in) ? ix->get_in : ix->get;
	while ((step = sqlite3_step(get)) == SQLITE_ROW) {
		const char *full = (const char *)sqlite3_column_text(get, 0);
		const char *rel = ix_in(ix, full);
		long i = rel ? ix_find(rels, n, rel) : -1;
		if (i < 0) {
			if (full)
				ix_gone(ix, full);
			continue;
		}
		sqlite3_int64 id[IX_NIDENT];
		ix_ident(&st[i], id);
		bool current = !done[i];
		for (int k = 0; k < IX_NIDENT && current; k++)
			current = sqlite3_column_type(get, k + 1) == SQLITE_INTEGER &&
				  sqlite3_column_int64(get, k + 1) == id[k];
		if (!current ||
		    res_rec_decode(sqlite3_column_blob(get, IX_NIDENT + 1),
				   (size_t)sqlite3_column_bytes(get, IX_NIDENT + 1), &recs[i]))
			continue;
		if (res_rec_set_path(&recs[i], files[i])) {
			res_rec_free(&recs[i]);
			continue;
		}
		res_rec_share_lists(&recs[i]);   /* at once: 100,000 runs, a few distinct lists */
		done[i] = true;
		ix->st.hits++;
		if (each && !points)
			each(&recs[i], arg);     /* at once: what it drops never piles up */
	}
	sqlite3_reset(get);
	sqlite3_clear_bindings(get);
	int rc = step == SQLITE_DONE && !ix->failed ? 0 : -1;
	/* the curves: whole for a read of every part, else the curve alone (run-level) */
	if (!rc && curves)
		rc = ix_scan_apart(ix, "SELECT rel, curves FROM curves",
				   points ? ix_blob_curves : ix_blob_curve, rels, n, recs, done);
	if (!rc && points)
		rc = ix_scan_apart(ix, "SELECT rel, pts FROM pts", ix_blob_points, rels, n, recs, done);
	for (size_t i = 0; !rc && points && each && i < n; i++)
		if (done[i])
			each(&recs[i], arg);
	free(rels);
	if (rc) {
		for (size_t i = 0; i < n; i++)
			if (done[i])
				res_rec_free(&recs[i]);
		memset(done, 0, n * sizeof(*done));
		ix->st.hits = 0;
		ix->failed = true;
		return -1;
	}
	ix->scanned = true;
	return 0;
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

/* r's part that a table apart keeps (pts, curves), stored under rel by s. */
static bool ix_put_apart(sqlite3_stmt *s, const char *rel, const struct res_rec *r,
			 int (*encode)(const struct res_rec *r, unsigned char **out, size_t *n))
{
	unsigned char *b;
	size_t n;
	if (encode(r, &b, &n))
		return false;
	sqlite3_bind_text(s, 1, rel, -1, SQLITE_STATIC);
	sqlite3_bind_blob(s, 2, b, (int)n, SQLITE_STATIC);
	bool ok = ix_step_done(s);
	free(b);
	return ok;
}

void res_index_put(struct res_index *ix, const char *file, const struct res_ident *st,
		   const struct res_rec *r)
{
	const char *in = ix_rel(ix, file);
	char rel[8400];
	if (!in || ix->failed)
		return;
	if ((size_t)snprintf(rel, sizeof(rel), "%s%s", ix->sub, in) >= sizeof(rel)) {
		ix->failed = true;
		return;
	}
	struct { unsigned char *b; size_t n; } e;
	if (res_rec_encode(r, &e.b, &e.n)) {
		ix->failed = true;
		return;
	}
	sqlite3_int64 id[IX_NIDENT];
	ix_ident(st, id);
	sqlite3_stmt *s = ix->put;
	int c = 1;
	sqlite3_bind_text(s, c++, rel, -1, SQLITE_STATIC);
	for (int i = 0; i < IX_NIDENT; i++)
		sqlite3_bind_int64(s, c++, id[i]);
	sqlite3_bind_int(s, c++, (int)r->schema_version);
	sqlite3_bind_text(s, c++, r->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, r->fp_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, c++, r->session, -1, SQLITE_STATIC);
	for (size_t i = 0; i < RES_SQL_NPARTS; i++)
		bind_fields(s, &c, res_sql_run_parts[i].table,
			    (const char *)r + res_sql_run_parts[i].offset);
	sqlite3_bind_blob(s, c, e.b, (int)e.n, SQLITE_STATIC);
	bool ok = ix_step_done(s);
	free(e.b);
	ok = ok && ix_put_apart(ix->put_blob, rel, r, res_points_encode) &&
	     ix_put_apart(ix->put_curves, rel, r, res_curves_encode);
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

/*
 * Move a committed index to the page size its runs call for (IX_BIG), by
 * VACUUM; one that other processes read is left as it is until the next
 * refresh (no wait for their locks).
 */
static void ix_fit(struct res_index *ix)
{
	int page = ix_pragma(ix->db, "PRAGMA page_size;"), want = 0;
	if (page > 0 && page < IX_PAGE_BIG && ix->runs >= IX_BIG)
		want = IX_PAGE_BIG;
	else if (page >= IX_PAGE_BIG && ix->runs < IX_BIG / 4)
		want = IX_PAGE_SMALL;
	if (!want)
		return;
	char sql[64];
	snprintf(sql, sizeof(sql), "PRAGMA page_size = %d; VACUUM;", want);
	sqlite3_busy_timeout(ix->db, 0);
	ix_exec(ix->db, sql);
}

/* End ix's transaction (commit or roll back) and free it; a discarded index this process made is removed. */
static void ix_finish(struct res_index *ix, bool commit)
{
	if (ix->db && ix->get && ix_exec(ix->db, commit && !ix->failed ? "COMMIT;" : "ROLLBACK;"))
		ix->failed = true;
	sqlite3_stmt *all[] = { ix->get, ix->get_in, ix->put, ix->del_pts, ix->put_pt, ix->put_blob,
				ix->put_curves };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		sqlite3_finalize(all[i]);
	if (ix->db && commit && !ix->failed && ix->sized)
		ix_fit(ix);
	if (ix->db)
		sqlite3_close(ix->db);
	if (!commit && ix->created && ix->file[0]) {
		char j[4300];
		snprintf(j, sizeof(j), "%s-journal", ix->file);
		unlink(ix->file);
		unlink(j);
	}
	for (size_t i = 0; i < ix->ngone; i++)
		free(ix->gone[i]);
	free(ix->gone);
	free(ix);
}

void res_index_close(struct res_index *ix, bool commit, struct res_index_stats *st)
{
	if (st)
		memset(st, 0, sizeof(*st));
	if (!ix)
		return;
	if (ix->db && commit && !ix->failed && ix->get && ix_prune(ix))
		ix->failed = true;
	if (!commit || ix->failed) {
		ix_finish(ix, false);
		return;
	}
	if (st)
		*st = ix->st;
	/* the whole root refreshed: it holds the runs read from it and the runs stored */
	ix->sized = !ix->sub[0];
	ix->runs = ix->st.hits + ix->st.parsed;
	if (ix_npending < IX_PENDING)
		ix_pending[ix_npending++] = ix;
	else
		ix_finish(ix, true);
}

void res_index_settle(bool commit)
{
	for (size_t i = 0; i < ix_npending; i++)
		ix_finish(ix_pending[i], commit);
	ix_npending = 0;
}
