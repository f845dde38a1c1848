/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Inside the results module: a run record as bytes (the index's and the
 * fleet database's `rec`), and the SQL tables of runs, both made from the
 * schema's field tables (codec.c).
 */
#ifndef JOBMIX_RESULTS_CODEC_H
#define JOBMIX_RESULTS_CODEC_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/results.h"

/*
 * The record as res_read reads it (RES_READ_KINDS), all but path, dir,
 * owner_gone, its curve (res_curves_encode) and its points but those at its
 * peak (res_points_encode: a run-level read never decodes them), into a
 * malloc'd *out of *n bytes.  0, or -1 out of memory.
 */
int res_rec_encode(const struct res_rec *r, unsigned char **out, size_t *n);
/* Back into out (path and dir left empty, no points); -1 when the bytes are not one (out empty). */
int res_rec_decode(const void *p, size_t n, struct res_rec *out);
/*
 * r's summary.by as bytes (the index's and the database's `curves`), and
 * back into r: with figures summary.by and its curve, else the curve alone
 * (res_curve_pt, what a run-level read keeps).  -1: not one, or no memory.
 */
int res_curves_encode(const struct res_rec *r, unsigned char **out, size_t *n);
int res_curves_decode(const void *p, size_t n, bool figures, struct res_rec *r);
/* r's points as bytes (the index's and the database's `pts`), and back into r (its points replaced). */
int res_points_encode(const struct res_rec *r, unsigned char **out, size_t *n);
int res_points_decode(const void *p, size_t n, struct res_rec *r);

enum res_sql { RES_SQL_SQLITE, RES_SQL_PG };

/* The records whose keys are columns of `runs`, with their column prefixes. */
struct res_sql_part {
	const char *prefix;
	const struct res_field *table;
	size_t offset;                  /* the record's offset in struct res_rec */
};
#define RES_SQL_NPARTS 4
extern const struct res_sql_part res_sql_run_parts[RES_SQL_NPARTS];

/* A hash of the codec's version and every table's keys and types (never 0). */
int res_sql_layout(void);
/* CREATE TABLE runs, points, labels, env (PostgreSQL: IF NOT EXISTS); malloc'd, NULL: no memory. */
char *res_sql_ddl(enum res_sql d);

struct res_sql_buf {
	char *s;
	size_t n, cap;
	bool oom;
};
void res_sql_add(struct res_sql_buf *q, const char *s);
/* ", col TYPE" (ddl) or ", col" for every row of table. */
void res_sql_cols(struct res_sql_buf *q, const char *prefix, const struct res_field *table,
		  bool ddl, enum res_sql d);
/* ", ?" (SQLite) or ", $k" (PostgreSQL, k from *next on) n times. */
void res_sql_marks(struct res_sql_buf *q, size_t n, enum res_sql d, size_t *next);
size_t res_sql_nfields(const struct res_field *table);
/* A field's SQL column name: prefix and key, dots as underscores. */
void res_sql_col(char *out, size_t len, const char *prefix, const char *key);
/* A field's value as SQL text (in buf, or the record's own string); NULL for null. */
const char *res_sql_text(const struct res_field *f, const void *rec, char *buf, size_t len);

#endif
