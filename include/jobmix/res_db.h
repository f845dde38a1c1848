/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A fleet's runs in one PostgreSQL database (src/results/pg.c): `jobmix
 * push` loads runs into it, and report, plot and history read them back
 * with --db URL.  Its tables are a results root's index's (codec.h: runs,
 * points, labels, env, made from the schema's field tables), a run's key
 * (`rel`) being HOST/MACHINE-ID/RUN-ID (HOST/RUN-ID for a run that
 * recorded no machine id), so a run pushed again replaces itself and hosts
 * that share a name never meet.
 */
#ifndef JOBMIX_RES_DB_H
#define JOBMIX_RES_DB_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/res_runs.h"

/* Does s name a database (postgresql:// or postgres://)? */
bool res_db_is_url(const char *s);
/*
 * 0 when url is one jobmix takes; -1 with err when it is not a PostgreSQL
 * URL or carries a password (use ~/.pgpass or PGPASSFILE).
 */
int res_db_check_url(const char *url, char *err, size_t errlen);
/*
 * Every run of rs into the database at url (the tables made when there are
 * none; refused when they are of another layout or damaged), each in its own
 * transaction.  0, or -1 with err; *pushed counts the runs stored.
 */
int res_db_push(const char *url, const struct res_runs *rs, size_t *pushed, char *err,
		size_t errlen);
/* Every run in the database into rs (as res_runs_load would).  0, or -1 with err. */
int res_db_load(struct res_runs *rs, const char *url, char *err, size_t errlen);

#endif
