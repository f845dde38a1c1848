/* SPDX-License-Identifier: GPL-2.0-only */
/* Inside the report module: helpers the table, its renderers and compare share. */
#ifndef JOBMIX_REPORT_INTERNAL_H
#define JOBMIX_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/report.h"

/* A run's value of a grouping key, "-" when it has none. */
const char *rep_key_value(const struct res_rec *r, const char *key);
/* Test b against its reference a (rules 't' and 'z' of report.h). */
void rep_test_values(const struct rep_value *a, const struct rep_value *b, double threshold,
		     double alpha, struct rep_test *t);
/* One metric (peak or qc) folded over n runs; val->x is malloc'd. */
int rep_fold_runs(const struct res_rec *const *runs, size_t n, bool qc, bool qc_max,
		  struct rep_value *val);
/* mean, sd and noise (root mean square of the n per-run noises summed in noise2_sum). */
void rep_value_finish(struct rep_value *val, double noise2_sum);
/* A run's measured relative noise per sample, or REP_NOISE_DEFAULT. */
double rep_run_noise(const struct res_rec *r);
/* "kernel / scheduler" values of a row. */
void rep_row_label(const struct rep_report *r, const struct rep_row *row, char *buf, size_t len);

#endif
