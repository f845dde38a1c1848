// SPDX-License-Identifier: GPL-2.0-only
/*
 * A fleet's runs in PostgreSQL (res_db.h), through libpq: the same tables
 * as a results root's index (codec.c makes both from the schema's field
 * tables), keyed by run identity: `rel` is HOST/MACHINE-ID/RUN-ID (the
 * host name and identity the run recorded, its folder name or run_id
 * label; HOST/RUN-ID for a run that recorded no machine id), so pushing a
 * run again replaces it and many hosts, clones sharing a name among them,
 * push at once without meeting.
 *
 * The database records the layout it was made with (jobmix_meta, one row);
 * a database of another layout, or a damaged one (not one meta row, a
 * table or column missing), is refused with one line, never altered.  A URL carrying a
 * password is refused: passwords come from ~/.pgpass or PGPASSFILE, so
 * that none is in a process title, a shell history or a log line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "jobmix/intern.h"
#include "jobmix/res_db.h"
#include "codec.h"
#include "schema.h"

bool res_db_is_url(const char *s)
{
	return s && (!strncmp(s, "postgresql://", 13) || !strncmp(s, "postgres://", 11));
}

int res_db_check_url(const char *url, char *err, size_t errlen)
{
	if (!res_db_is_url(url)) {
		snprintf(err, errlen, "--db '%s': expected postgresql://[USER@][HOST][:PORT]/DB[?...]",
			 url);
		return -1;
	}
	const char *auth = strstr(url, "://") + 3;
	const char *end = auth + strcspn(auth, "/?");
	const char *at = memchr(auth, '@', (size_t)(end - auth));
	const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (colon || strstr(url, "password=")) {
		snprintf(err, errlen, "--db: the URL carries a password; jobmix takes none on its "
			 "command line (it would show in process titles and logs): put it in "
			 "~/.pgpass or the file PGPASSFILE names");
		return -1;
	}
	return 0;
}

/* The connection, or NULL with err: libpq's own message (it names no password). */
static PGconn *db_connect(const char *url, char *err, size_t errlen)
{
	if (res_db_check_url(url, err, errlen))
		return NULL;
	PGconn *c = PQconnectdb(url);
	if (!c || PQstatus(c) != CONNECTION_OK) {
		const char *m = c ? PQerrorMessage(c) : "out of memory";
		snprintf(err, errlen, "--db: cannot connect: %.*s", (int)strcspn(m, "\n"), m);
		PQfinish(c);
		return NULL;
	}
	PQsetNoticeProcessor(c, NULL, NULL);
	return c;
}

static int db_ok(PGconn *c, PGresult *r, const char *what, char *err, size_t errlen)
{
	ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
		PQclear(r);
		return 0;
	}
	const char *m = r ? PQresultErrorMessage(r) : PQerrorMessage(c);
	snprintf(err, errlen, "--db: %s: %.*s", what, (int)strcspn(m, "\n"), m);
	PQclear(r);
	return -1;
}

static int db_exec(PGconn *c, const char *sql, const char *what, char *err, size_t errlen)
{
	return db_ok(c, PQexec(c, sql), what, err, errlen);
}

/* The SQLSTATE of r's error ("" when none). */
static const char *db_state(const PGresult *r)
{
	const char *st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	return st ? st : "";
}

/*
 * Every table and column this jobmix reads and writes, each looked up once
 * (SELECT ... LIMIT 0): a table missing or a column it lacks is a damaged
 * layout.  0 or -1 with err.
 */
static int db_tables(PGconn *c, char *err, size_t errlen)
{
	struct res_sql_buf q = { 0 };
	res_sql_add(&q, "SELECT rel, dev, ino, size, mtime_ns, ctime_ns, schema_version, run_id, "
		    "fp_id, session");
	for (size_t i = 0; i < RES_SQL_NPARTS; i++)
		res_sql_cols(&q, res_sql_run_parts[i].prefix, res_sql_run_parts[i].table, false,
			     RES_SQL_PG);
	res_sql_add(&q, ", rec FROM runs LIMIT 0; SELECT rel, idx");
	res_sql_cols(&q, "", res_point_fields, false, RES_SQL_PG);
	res_sql_add(&q, " FROM points LIMIT 0; SELECT rel, pts FROM pts LIMIT 0; "
		    "SELECT rel, curves FROM curves LIMIT 0; SELECT rel, key, value FROM labels "
		    "LIMIT 0; SELECT rel, key, value FROM env LIMIT 0;");
	if (q.oom) {
		free(q.s);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	PGresult *r = PQexec(c, q.s);
	free(q.s);
	int rc = 0;
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		const char *m = r ? PQresultErrorMessage(r) : PQerrorMessage(c);
		snprintf(err, errlen, "--db: the database's tables are damaged (%.*s): left as they "
			 "are", (int)strcspn(m, "\n"), m);
		rc = -1;
	}
	PQclear(r);
	return rc;
}

/*
 * The layout the database's one jobmix_meta row records into *have: 0, or
 * 1 when there is no jobmix_meta table (none made yet), or -1 with err:
 * not one row (a damaged layout), or the database failed.
 */
static int db_meta(PGconn *c, int *have, char *err, size_t errlen)
{
	if (db_exec(c, "BEGIN; SELECT pg_advisory_xact_lock(7262303);", "lock", err, errlen))
		return -1;
	PGresult *r = PQexec(c, "SELECT layout FROM jobmix_meta");
	int rc = 0;
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0)) {
		*have = atoi(PQgetvalue(r, 0, 0));
	} else if (PQresultStatus(r) == PGRES_TUPLES_OK) {
		snprintf(err, errlen, "--db: the database's jobmix_meta holds %d rows, not the one "
			 "layout row jobmix made (a damaged layout): left as it is", PQntuples(r));
		rc = -1;
	} else if (!strcmp(db_state(r), "42P01")) {
		rc = 1;      /* undefined_table: no tables yet */
	} else {
		const char *m = r ? PQresultErrorMessage(r) : PQerrorMessage(c);
		snprintf(err, errlen, "--db: reading jobmix_meta: %.*s", (int)strcspn(m, "\n"), m);
		rc = -1;
	}
	PQclear(r);
	PQclear(PQexec(c, rc ? "ROLLBACK" : "COMMIT"));
	return rc;
}

/*
 * Make the tables and the layout row (one host at a time: an advisory
 * lock), committed only when every table is then of this layout (a table of
 * the same name made by another program: rolled back, nothing made).
 * 0 or -1 with err.
 */
static int db_make(PGconn *c, char *err, size_t errlen)
{
	char sql[256];
	char *ddl = res_sql_ddl(RES_SQL_PG);
	if (!ddl) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	snprintf(sql, sizeof(sql), "CREATE TABLE IF NOT EXISTS jobmix_meta (layout INTEGER); "
		 "INSERT INTO jobmix_meta SELECT %d WHERE NOT EXISTS (SELECT 1 FROM jobmix_meta);",
		 res_sql_layout());
	int rc = db_exec(c, "BEGIN; SELECT pg_advisory_xact_lock(7262303);", "lock", err, errlen) ||
		 db_exec(c, ddl, "making the tables", err, errlen) ||
		 db_exec(c, sql, "making the tables", err, errlen) || db_tables(c, err, errlen) ||
		 db_exec(c, "COMMIT", "commit", err, errlen) ? -1 : 0;
	free(ddl);
	if (rc)
		PQclear(PQexec(c, "ROLLBACK"));
	return rc;
}

/*
 * Make the tables when there are none, and check the layout of those there
 * are: the one layout row of this jobmix and every table and column it
 * uses.  Never alters tables it did not make.  0 or -1 with err.
 */
static int db_schema(PGconn *c, char *err, size_t errlen)
{
	int have = 0, m = db_meta(c, &have, err, errlen);
	if (m == 1) {
		if (db_make(c, err, errlen))
			return -1;
		m = db_meta(c, &have, err, errlen);    /* once: what was just made */
		if (m == 1)
			snprintf(err, errlen, "--db: jobmix_meta is still missing after making it");
	}
	if (m)
		return -1;
	if (have != res_sql_layout()) {
		snprintf(err, errlen, "--db: the database's tables are of layout %d, this "
			 "jobmix's %d (another version): left as they are", have, res_sql_layout());
		return -1;
	}
	return db_tables(c, err, errlen);
}

/*
 * The run's key: HOST/MACHINE-ID/ID, so that hosts sharing a name (clones)
 * never meet; a run recorded without env.machine_id (before it existed, or
 * on a host without /etc/machine-id) keeps HOST/ID.
 */
static void db_key(const struct res_rec *r, char *out, size_t len)
{
	const char *host = res_rec_get(r, "hostname"), *mid = "";
	if ((!host || !*host) && r->have_owner)
		host = r->owner.host;
	for (size_t i = 0; i < r->nenv; i++)
		if (!strcmp(r->env[i].key, "machine_id"))
			mid = r->env[i].value;
	snprintf(out, len, "%s/%s%s%s", host && *host ? host : "unknown-host", mid, *mid ? "/" : "",
		 r->id);
}

/* Parameters of one INSERT, as text (values borrowed or in bufs). */
struct db_params {
	const char *v[512];
	int len[512], fmt[512];
	char buf[512][40];
	int n;
};

static void par(struct db_params *p, const char *v)
{
	p->len[p->n] = 0;
	p->fmt[p->n] = 0;
	p->v[p->n++] = v;
}

static void par_fields(struct db_params *p, const struct res_field *table, const void *rec)
{
	for (const struct res_field *f = table; f->key && p->n < 511; f++) {
		const char *v = res_sql_text(f, rec, p->buf[p->n], sizeof(p->buf[p->n]));
		par(p, v);
	}
}

/* The INSERT of a run's row and of a point's row ($1.. placeholders); NULL: no memory. */
static int db_inserts(char **runs, char **points)
{
	struct res_sql_buf q = { 0 }, p = { 0 };
	size_t next = 1, n = 5;
	res_sql_add(&q, "INSERT INTO runs (rel, schema_version, run_id, fp_id, session");
	for (size_t i = 0; i < RES_SQL_NPARTS; i++) {
		res_sql_cols(&q, res_sql_run_parts[i].prefix, res_sql_run_parts[i].table, false,
			     RES_SQL_PG);
		n += res_sql_nfields(res_sql_run_parts[i].table);
	}
	res_sql_add(&q, ", rec) VALUES ($1");
	next = 2;
	res_sql_marks(&q, n - 1 + 1, RES_SQL_PG, &next);
	res_sql_add(&q, ")");
	res_sql_add(&p, "INSERT INTO points (rel, idx");
	res_sql_cols(&p, "", res_point_fields, false, RES_SQL_PG);
	res_sql_add(&p, ") VALUES ($1, $2");
	next = 3;
	res_sql_marks(&p, res_sql_nfields(res_point_fields), RES_SQL_PG, &next);
	res_sql_add(&p, ")");
	if (q.oom || p.oom) {
		free(q.s);
		free(p.s);
		return -1;
	}
	*runs = q.s;
	*points = p.s;
	return 0;
}

static int db_kvs(PGconn *c, const char *table, const char *key, const struct res_kv *kv,
		  size_t n, char *err, size_t errlen)
{
	char sql[160];
	snprintf(sql, sizeof(sql), "INSERT INTO %s (rel, key, value) VALUES ($1, $2, $3)", table);
	for (size_t i = 0; i < n; i++) {
		const char *v[3] = { key, kv[i].key, kv[i].value };
		if (db_ok(c, PQexecParams(c, sql, 3, NULL, v, NULL, NULL, 0), table, err, errlen))
			return -1;
	}
	return 0;
}

/* r's part that a table apart keeps (pts, curves), inserted under key by sql. */
static int db_put_apart(PGconn *c, const char *sql, const char *key, const struct res_rec *r,
			int (*encode)(const struct res_rec *r, unsigned char **out, size_t *n),
			const char *what, char *err, size_t errlen)
{
	unsigned char *b;
	size_t n;
	if (encode(r, &b, &n)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	const char *v[2] = { key, (const char *)b };
	int len[2] = { 0, (int)n }, fmt[2] = { 0, 1 };
	int rc = db_ok(c, PQexecParams(c, sql, 2, NULL, v, len, fmt, 0), what, err, errlen);
	free(b);
	return rc;
}

/* One run, replacing what the database had under its key, in one transaction. */
static int db_push_one(PGconn *c, const struct res_rec *r, const char *ins_run,
		       const char *ins_pt, char *err, size_t errlen)
{
	char key[512];
	db_key(r, key, sizeof(key));
	unsigned char *blob;
	size_t nblob;
	if (res_rec_encode(r, &blob, &nblob)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct db_params *p = calloc(1, sizeof(*p));
	if (!p) {
		free(blob);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	const char *k1[1] = { key };
	int rc = -1;
	if (db_exec(c, "BEGIN", "begin", err, errlen))
		goto out;
	const char *dels[] = { "DELETE FROM points WHERE rel = $1", "DELETE FROM labels WHERE rel = $1",
			       "DELETE FROM env WHERE rel = $1", "DELETE FROM pts WHERE rel = $1",
			       "DELETE FROM curves WHERE rel = $1", "DELETE FROM runs WHERE rel = $1" };
	for (size_t i = 0; i < sizeof(dels) / sizeof(dels[0]); i++)
		if (db_ok(c, PQexecParams(c, dels[i], 1, NULL, k1, NULL, NULL, 0), "replacing", err,
			  errlen))
			goto fail;
	char sv[16];
	snprintf(sv, sizeof(sv), "%u", r->schema_version);
	par(p, key);
	par(p, sv);
	par(p, r->id);
	par(p, r->fp_id);
	par(p, r->session[0] ? r->session : NULL);
	for (size_t i = 0; i < RES_SQL_NPARTS; i++)
		par_fields(p, res_sql_run_parts[i].table, (const char *)r + res_sql_run_parts[i].offset);
	p->v[p->n] = (const char *)blob;
	p->len[p->n] = (int)nblob;
	p->fmt[p->n++] = 1;
	if (db_ok(c, PQexecParams(c, ins_run, p->n, NULL, p->v, p->len, p->fmt, 0), "a run", err,
		  errlen))
		goto fail;
	if (db_put_apart(c, "INSERT INTO pts (rel, pts) VALUES ($1, $2)", key, r, res_points_encode,
			 "a run's points", err, errlen) ||
	    db_put_apart(c, "INSERT INTO curves (rel, curves) VALUES ($1, $2)", key, r,
			 res_curves_encode, "a run's curve", err, errlen))
		goto fail;
	for (size_t i = 0; i < r->npoints; i++) {
		char idx[24];
		snprintf(idx, sizeof(idx), "%zu", i);
		p->n = 0;
		par(p, key);
		par(p, idx);
		par_fields(p, res_point_fields, &r->points[i]);
		if (db_ok(c, PQexecParams(c, ins_pt, p->n, NULL, p->v, p->len, p->fmt, 0), "a point",
			  err, errlen))
			goto fail;
	}
	if (db_kvs(c, "labels", key, r->labels, r->nlabels, err, errlen) ||
	    db_kvs(c, "env", key, r->env, r->nenv, err, errlen) ||
	    db_exec(c, "COMMIT", "commit", err, errlen))
		goto fail;
	rc = 0;
	goto out;
fail:
	PQclear(PQexec(c, "ROLLBACK"));
out:
	free(p);
	free(blob);
	return rc;
}

int res_db_push(const char *url, const struct res_runs *rs, size_t *pushed, char *err,
		size_t errlen)
{
	*pushed = 0;
	PGconn *c = db_connect(url, err, errlen);
	if (!c)
		return -1;
	char *ins_run = NULL, *ins_pt = NULL;
	int rc = db_schema(c, err, errlen);
	if (!rc && db_inserts(&ins_run, &ins_pt)) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	for (size_t i = 0; !rc && i < rs->n; i++) {
		if (db_push_one(c, &rs->run[i], ins_run, ins_pt, err, errlen))
			rc = -1;
		else
			(*pushed)++;
	}
	free(ins_run);
	free(ins_pt);
	PQfinish(c);
	return rc;
}

int res_db_load(struct res_runs *rs, const char *url, char *err, size_t errlen)
{
	memset(rs, 0, sizeof(*rs));
	PGconn *c = db_connect(url, err, errlen);
	if (!c)
		return -1;
	int rc = db_schema(c, err, errlen);
	/* in the order report reads folders: HOST/ID/run.json sorted bytewise */
	static const char sel[] = "SELECT runs.rel, runs.rec, pts.pts, curves.curves FROM runs "
				  "LEFT JOIN pts ON pts.rel = runs.rel LEFT JOIN curves ON curves.rel = "
				  "runs.rel ORDER BY (runs.rel || '/') COLLATE \"C\"";
	PGresult *r = rc ? NULL : PQexecParams(c, sel, 0, NULL, NULL, NULL, NULL, 1);
	if (!rc && PQresultStatus(r) != PGRES_TUPLES_OK) {
		const char *m = PQresultErrorMessage(r);
		snprintf(err, errlen, "--db: reading the runs: %.*s", (int)strcspn(m, "\n"), m);
		rc = -1;
	}
	int n = rc ? 0 : PQntuples(r);
	if (n && !(rs->run = calloc((size_t)n, sizeof(*rs->run)))) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	for (int i = 0; !rc && i < n; i++) {
		struct res_rec *x = &rs->run[rs->n];
		const char *rel = PQgetvalue(r, i, 0);
		bool bad = res_rec_decode(PQgetvalue(r, i, 1), (size_t)PQgetlength(r, i, 1), x);
		if (!bad && !PQgetisnull(r, i, 3) &&
		    res_curves_decode(PQgetvalue(r, i, 3), (size_t)PQgetlength(r, i, 3), true, x)) {
			res_rec_free(x);
			bad = true;
		}
		if (!bad && PQgetisnull(r, i, 2))
			res_rec_drop_points(x);   /* none stored: not even the peak's */
		else if (!bad) {
			bad = res_points_decode(PQgetvalue(r, i, 2), (size_t)PQgetlength(r, i, 2), x);
			if (bad)
				res_rec_free(x);
			else
				res_rec_derive(x);
		}
		if (bad) {
			char msg[700];
			snprintf(msg, sizeof(msg), "%s: its record is not one this jobmix reads", rel);
			char **v = realloc(rs->skip, (rs->skipped + 1) * sizeof(*v));
			if (!v || !(v[rs->skipped] = strdup(msg))) {
				if (v)
					rs->skip = v;
				snprintf(err, errlen, "out of memory");
				rc = -1;
				break;
			}
			rs->skip = v;
			rs->skipped++;
			continue;
		}
		x->path = x->dir = util_istr(rel);
		rs->n++;
	}
	PQclear(r);
	PQfinish(c);
	if (rc)
		res_runs_free(rs);
	return rc;
}
