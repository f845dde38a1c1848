// SPDX-License-Identifier: GPL-2.0-only
/*
 * The curves a chart draws (report.h, rep_series): per row of a table, the
 * JPM of the runs the table counts against users, folded by the one centre,
 * and the peak and convergence marks as points of that curve.  Pure.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/report.h"
#include "jobmix/stats.h"
#include "internal.h"

/* One run's point at one user count. */
struct rep_run_pt {
	unsigned users, n;
	double mean, sd;        /* of the run's samples there; sd NAN when n < 2 */
};

static int rep_cmp_run_pt(const void *a, const void *b)
{
	const struct rep_run_pt *x = a, *y = b;
	return x->users < y->users ? -1 : x->users > y->users;
}

/* The runs of a row the table counts: the complete ones, all when none is.  Their number. */
static size_t rep_series_runs(const struct rep_report *r, const struct rep_row *row,
			      const struct res_rec **out, bool *incomplete)
{
	size_t n = 0, complete = 0;
	for (size_t i = 0; i < row->nrun; i++)
		complete += rep_run_complete(&r->runs[row->run[i]]);
	for (size_t i = 0; i < row->nrun; i++)
		if (!complete || rep_run_complete(&r->runs[row->run[i]]))
			out[n++] = &r->runs[row->run[i]];
	*incomplete = !complete && n;
	return n;
}

/* A run's point from its finite samples; false when it has none. */
static bool rep_run_point(const struct res_curve_pt *by, double *x, struct rep_run_pt *out)
{
	unsigned k = 0;
	if (by->failed || !by->users || !by->samples)
		return false;
	for (unsigned j = 0; j < by->n; j++)
		if (isfinite(by->samples[j]))
			x[k++] = by->samples[j];
	if (!k)
		return false;
	struct stats_summary st;
	stats_summarize(x, k, &st);
	*out = (struct rep_run_pt){ .users = by->users, .n = k, .mean = st.mean,
				    .sd = k >= 2 ? st.stddev : NAN };
	return true;
}

/*
 * Each run's points (not failed, with samples) into p (room: every curve
 * entry), by users; their number, or -1 out of memory.
 */
static long rep_run_points(const struct res_rec *const *runs, size_t nrun, struct rep_run_pt *p)
{
	size_t m = 0, most = 1;
	for (size_t i = 0; i < nrun; i++)
		for (size_t b = 0; b < runs[i]->summary.ncurve; b++)
			most = runs[i]->summary.curve[b].n > most ? runs[i]->summary.curve[b].n : most;
	double *x = malloc(most * sizeof(*x));
	if (!x)
		return -1;
	for (size_t i = 0; i < nrun; i++)
		for (size_t b = 0; b < runs[i]->summary.ncurve; b++)
			m += rep_run_point(&runs[i]->summary.curve[b], x, &p[m]);
	free(x);
	qsort(p, m, sizeof(*p), rep_cmp_run_pt);
	return (long)m;
}

/* The runs' points at one user count p[0..n) as one point of the curve. */
static int rep_curve_fold(const struct rep_run_pt *p, size_t n, struct rep_curve_pt *out)
{
	*out = (struct rep_curve_pt){ .users = p[0].users, .n = (unsigned)n, .lo = NAN, .hi = NAN };
	for (size_t i = 0; i < n; i++)
		out->samples += p[i].n;
	if (n == 1) {
		out->mean = p[0].mean;
		if (isfinite(p[0].sd)) {
			out->lo = p[0].mean - p[0].sd;
			out->hi = p[0].mean + p[0].sd;
		}
		return 0;
	}
	struct rep_value v = { .n = (unsigned)n };
	v.x = malloc(n * sizeof(*v.x));
	if (!v.x)
		return -1;
	for (size_t i = 0; i < n; i++)
		v.x[i] = p[i].mean;
	rep_value_finish(&v);
	out->mean = v.mean;
	if (isfinite(v.gmean) && isfinite(v.gsd)) {
		out->lo = v.mean / v.gsd;
		out->hi = v.mean * v.gsd;
	} else if (isfinite(v.sd)) {
		out->lo = v.mean - v.sd;
		out->hi = v.mean + v.sd;
	}
	rep_value_free(&v);
	return 0;
}

/* The curve's point at users; NULL when it has none. */
static const struct rep_curve_pt *rep_curve_at(const struct rep_series *se, unsigned users)
{
	for (size_t i = 0; i < se->npt; i++)
		if (se->pt[i].users == users)
			return &se->pt[i];
	return NULL;
}

/*
 * A mark (peak, or quick convergence) as a point of the curve: the user
 * count most runs name (rep_run_metric, as the table takes it), ties to the
 * higher curve; 0 and NAN when no run names one the curve has.
 */
static void rep_curve_mark(const struct rep_report *r, const struct res_rec *const *runs,
			   size_t nrun, bool qc, const struct rep_series *se, unsigned *users,
			   double *jpm)
{
	unsigned votes = 0;
	*users = 0;
	*jpm = NAN;
	for (size_t i = 0; i < nrun; i++) {
		double v;
		unsigned u, k = 0;
		bool ne;
		if (!rep_run_metric(runs[i], qc, r->opts.qc_max, &v, &u, &ne) || !u)
			continue;
		const struct rep_curve_pt *c = rep_curve_at(se, u);
		if (!c)
			continue;
		unsigned n = 0;
		for (size_t j = 0; j < nrun; j++)
			n += rep_run_metric(runs[j], qc, r->opts.qc_max, &v, &k, &ne) && k == u;
		if (n > votes || (n == votes && c->mean > *jpm)) {
			votes = n;
			*users = u;
			*jpm = c->mean;
		}
	}
}

/* The label: the row's keys; a tested row's change and interval; incomplete runs said. */
static void rep_series_label(const struct rep_report *r, const struct rep_row *row,
			     struct rep_series *se)
{
	const struct rep_test *t = &row->tpeak;
	size_t n;
	rep_row_label(r, row, se->label, sizeof(se->label));
	n = strlen(se->label);
	if (t->rule && isfinite(t->change) && isfinite(t->lo) && isfinite(t->hi)) {
		char ch[24], lo[24], hi[24];
		rep_pct(ch, sizeof(ch), t->change);
		rep_pct_bound(lo, sizeof(lo), t->lo);
		rep_pct_bound(hi, sizeof(hi), t->hi);
		n += (size_t)snprintf(se->label + n, sizeof(se->label) - n, ": peak %s%% [%s, %s] %s",
				      ch, lo, hi, rep_mark_name(t->mark));
	} else if (row->is_ref) {
		n += (size_t)snprintf(se->label + n, sizeof(se->label) - n, " (reference)");
	}
	if (se->incomplete && n < sizeof(se->label))
		snprintf(se->label + n, sizeof(se->label) - n, " (incomplete runs: %s)", row->status);
}

/* One row's curve and marks. */
static int rep_series_row(const struct rep_report *r, const struct rep_row *row,
			  struct rep_series *se)
{
	const struct res_rec **runs = calloc(row->nrun ? row->nrun : 1, sizeof(*runs));
	struct rep_run_pt *p = NULL;
	size_t total = 0, nrun;
	long m;
	int rc = -1;
	se->peak_jpm = se->qc_jpm = NAN;
	if (!runs)
		return -1;
	nrun = rep_series_runs(r, row, runs, &se->incomplete);
	rep_series_label(r, row, se);
	for (size_t i = 0; i < nrun; i++)
		total += runs[i]->summary.ncurve;
	p = calloc(total ? total : 1, sizeof(*p));
	se->pt = calloc(total ? total : 1, sizeof(*se->pt));
	if (!p || !se->pt)
		goto out;
	if ((m = rep_run_points(runs, nrun, p)) < 0)
		goto out;
	for (size_t a = 0, b; a < (size_t)m; a = b) {
		for (b = a; b < (size_t)m && p[b].users == p[a].users; b++)
			;
		if (rep_curve_fold(p + a, b - a, &se->pt[se->npt++]))
			goto out;
	}
	rep_curve_mark(r, runs, nrun, false, se, &se->peak_users, &se->peak_jpm);
	rep_curve_mark(r, runs, nrun, true, se, &se->qc_users, &se->qc_jpm);
	rc = 0;
out:
	free(p);
	free(runs);
	return rc;
}

int rep_series(const struct rep_report *r, size_t t, struct rep_series **out, size_t *nout)
{
	const struct rep_table *tab = &r->table[t];
	struct rep_series *s = calloc(tab->nrow ? tab->nrow : 1, sizeof(*s));
	*out = NULL;
	*nout = 0;
	if (!s)
		return -1;
	for (size_t j = 0; j < tab->nrow; j++)
		if (rep_series_row(r, &tab->row[j], &s[j])) {
			rep_series_free(s, tab->nrow);
			return -1;
		}
	*out = s;
	*nout = tab->nrow;
	return 0;
}

void rep_series_free(struct rep_series *s, size_t n)
{
	if (!s)
		return;
	for (size_t i = 0; i < n; i++)
		free(s[i].pt);
	free(s);
}
