/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Parsing of scalar values shared by the workload loader, job parameters
 * and the command line: sizes with k/m/g/t suffixes (powers of 1024),
 * integers with range checks, durations, booleans.  Pure functions.
 */
#ifndef JOBMIX_PARSE_H
#define JOBMIX_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "4k" "16m" "2g" "1t" "512" (bytes); case-insensitive, optional trailing 'b'/'ib'. */
int jm_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);
/* Decimal integer within [min, max]. */
int jm_parse_int(const char *s, int64_t min, int64_t max, int64_t *out, char *err, size_t errlen);
/* Finite double within [min, max]. */
int jm_parse_double(const char *s, double min, double max, double *out, char *err, size_t errlen);
/* Longest duration taken anywhere (a year of 366 days, in seconds). */
#define JM_DURATION_MAX (366.0 * 86400)
/* "30s" "2m" "1h" "500ms" "45" (seconds), at most JM_DURATION_MAX. */
int jm_parse_duration(const char *s, double *out, char *err, size_t errlen);
/* YAML 1.1-ish booleans: true/false/yes/no/on/off (case-insensitive). */
int jm_parse_bool(const char *s, bool *out, char *err, size_t errlen);

/* Format bytes in the largest exact suffix: 10240 -> "10k", 1000 -> "1000". */
void jm_format_size(uint64_t bytes, char *buf, size_t len);

/* Levenshtein distance, capped; for "did you mean". */
unsigned jm_edit_distance(const char *a, const char *b);
/* Best of candidates (NULL-terminated) within a small distance of s, or NULL. */
const char *jm_suggest(const char *s, const char *const *candidates);
/* Join a NULL-terminated word list with ", " into buf (truncated to fit). */
void jm_join(const char *const *words, char *buf, size_t len);

#endif
