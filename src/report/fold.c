// SPDX-License-Identifier: GPL-2.0-only
/*
 * A row's runs folded into one value (rep_value: the centre, its spread,
 * the rounds, the noise), what a run's state and keys show, and which row
 * a row is tested against: what the tables (table.c), pivots (pivot.c) and
 * verdicts (verdict.c) all take, apart from them so none includes another
 * in a circle.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/report.h"
#include "jobmix/stats.h"
#include "internal.h"

/* A key's value as shown: "-" when absent, "none" for a setting given empty (flags none). */
const char *rep_key_value(const struct res_rec *r, const char *key)
{
	const char *v = res_rec_get(r, key);
	const struct res_setting *st = v && !v[0] ? res_setting_find(r, key) : NULL;
	if (st && st->value == v)
		return "none";
	return v && v[0] ? v : "-";
}

bool rep_run_complete(const struct res_rec *r)
{
	if (r->status != RES_COMPLETE)
		return false;
	if (!r->points || r->points_part)   /* read without (all) its points: what they said */
		return r->npoints_ok > 0;
	for (size_t i = 0; i < r->npoints; i++)
		if (!r->points[i].failed && !r->points[i].interrupted)
			return true;
	return false;
}

const char *rep_run_state(const struct res_rec *r)
{
	if (r->status == RES_RUNNING && r->owner_gone)
		return "running, owner gone";
	if (r->status != RES_COMPLETE)
		return res_status_name(r->status);
	return rep_run_complete(r) ? "complete" : "no point measured";
}

double rep_run_noise(const struct res_rec *r, double *df)
{
	double n = r->summary.noise_sd_rel;
	bool measured = isfinite(n) && n > 0 && r->summary.noise_df > 0;
	*df = measured ? r->summary.noise_df : 0;
	return measured ? n : NAN;
}

void rep_value_free(struct rep_value *val)
{
	free(val->x);
	free(val->round);
	val->x = NULL;
	val->round = NULL;
}

int rep_fold_runs(const struct res_rec *const *runs, size_t n, bool qc, bool qc_max,
		  struct rep_value *val)
{
	return rep_fold_measure(runs, n, qc, qc_max, NULL, val);
}

int rep_fold_measure(const struct res_rec *const *runs, size_t n, bool qc, bool qc_max,
		     const struct rep_measure *ms, struct rep_value *val)
{
	memset(val, 0, sizeof(*val));
	val->mean = val->amean = val->sd = val->gmean = val->gsd = val->noise = NAN;
	val->x = calloc(n ? n : 1, sizeof(*val->x));
	val->round = calloc(n ? n : 1, sizeof(*val->round));
	if (!val->x || !val->round) {
		rep_value_free(val);
		return -1;
	}
	size_t complete = 0, nnoise = 0;
	for (size_t i = 0; i < n; i++)
		complete += rep_run_complete(runs[i]);
	const char *session = NULL;
	bool one_session = true;
	double noise2 = 0;
	for (size_t i = 0; i < n; i++) {
		const struct res_rec *r = runs[i];
		double v, df;
		unsigned u;
		bool ne;
		if (complete && !rep_run_complete(r))
			continue;
		ne = false;
		if (ms ? !rep_run_measure(r, ms, &v, &u) : !rep_run_metric(r, qc, qc_max, &v, &u, &ne))
			continue;
		val->round[val->n] = r->session[0] ? r->sched.round : UINT_MAX;
		val->x[val->n++] = v;
		val->not_established = val->not_established || ne;
		if (u && (!val->users_lo || u < val->users_lo))
			val->users_lo = u;
		if (u > val->users_hi)
			val->users_hi = u;
		if (!r->session[0] || (session && strcmp(session, r->session)))
			one_session = false;
		session = r->session;
		/* the runs' measured noise is of JPM: no other metric's */
		double nz = ms && ms->m->src != REP_MS_JPM ? NAN : rep_run_noise(r, &df);
		if (isfinite(nz)) {
			noise2 += nz * nz;
			val->noise_df += df;
			nnoise++;
		}
	}
	val->incomplete_only = !complete && val->n;
	val->reps = val->n;
	val->noise = nnoise ? sqrt(noise2 / (double)nnoise) : NAN;
	if (one_session && session && val->n)
		val->session = session;
	else {
		free(val->round);
		val->round = NULL;
	}
	rep_value_finish(val);
	if (ms && ms->m->quantile > 0 && val->n) {
		/* a percentile across runs: of their merged histograms, never a mean of percentiles */
		struct stats_hist *h = calloc(1, sizeof(*h));
		bool all = h != NULL;
		for (size_t i = 0; all && i < n; i++)
			if (!complete || rep_run_complete(runs[i])) {
				double v;
				unsigned u;
				if (rep_run_measure(runs[i], ms, &v, &u))
					all = rep_run_hist(runs[i], ms, h);
			}
		if (all && h->count)
			val->mean = val->amean = stats_hist_quantile(h, ms->m->quantile) / 1e6;
		free(h);
	}
	return 0;
}

/*
 * The one centre of n values (docs/reports.md, "One centre"), for every
 * metric, table, pivot and chart alike: the geometric mean x/÷ the spread
 * factor exp(sd of the logs) when every value is positive (what compare
 * shows and the tests compare: the % is the ratio of these centres), else
 * the arithmetic mean ± sd.
 */
void rep_value_finish(struct rep_value *val)
{
	val->gsd = NAN;
	if (!val->n)
		return;
	struct stats_summary s;
	stats_summarize(val->x, val->n, &s);
	val->sd = val->n >= 2 ? s.stddev : NAN;
	double lg = 0, ss = 0;
	for (unsigned i = 0; i < val->n; i++)
		lg += val->x[i] > 0 ? log(val->x[i]) : NAN;
	double ml = lg / val->n;
	val->gmean = exp(ml);
	for (unsigned i = 0; i < val->n && isfinite(ml); i++)
		ss += (log(val->x[i]) - ml) * (log(val->x[i]) - ml);
	if (val->n >= 2 && isfinite(ml))
		val->gsd = exp(sqrt(ss / (val->n - 1)));
	val->amean = s.mean;
	val->mean = isfinite(val->gmean) ? val->gmean : s.mean;
}

size_t rep_ref_row(const struct rep_report *rep, const struct rep_table *t, size_t j)
{
	const struct rep_opts *o = &rep->opts;
	size_t kr = (size_t)-1;
	for (size_t k = 0; k < o->nby; k++)
		if (!strcmp(o->by[k], rep->ref_key))
			kr = k;
	const char *want = rep->ref_value[0] || o->ref ? rep->ref_value : t->ref_value;
	if (kr == (size_t)-1 || !want)
		return j;   /* the reference is a column's (pivot), every row its own */
	for (size_t i = 0; i < t->nrow; i++) {
		bool same = !strcmp(t->row[i].key[kr], want);
		for (size_t k = 0; k < o->nby && same; k++)
			same = k == kr || !strcmp(t->row[i].key[k], t->row[j].key[k]);
		if (same)
			return i;
	}
	return (size_t)-1;
}

/* ---- curves (series.c) ------------------------------------------------ */

void rep_row_label(const struct rep_report *r, const struct rep_row *row, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t k = 0; k < r->opts.nby && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? " / " : "", row->key[k]);
}
