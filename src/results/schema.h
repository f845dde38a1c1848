/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the results module: the walks over the schema's field tables. */
#ifndef JOBMIX_RESULTS_SCHEMA_H
#define JOBMIX_RESULTS_SCHEMA_H

#include <stdint.h>

#include <jansson.h>

#include "jobmix/results.h"

/* A record with every field of `table` missing: reals NAN, tri-states and U64N null. */
void res_fields_init(const struct res_field *table, void *rec, size_t size);

/* Every row of `table` from rec into obj (nested objects made as needed). */
int res_fields_to_json(const struct res_field *table, const void *rec, json_t *obj);
/*
 * Every row of `table` from obj into rec; a missing key leaves the field
 * as it was, a key of the wrong type is an error naming `where` and the key.
 */
int res_fields_from_json(const struct res_field *table, const json_t *obj, void *rec,
			 const char *where, char *err, size_t errlen);

#endif
