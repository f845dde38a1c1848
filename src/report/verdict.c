// SPDX-License-Identifier: GPL-2.0-only
/*
 * The test behind every mark and verdict (report.h): one metric of a row
 * against its reference, on the log scale, with the first rule that has a
 * measured noise (paired rounds, Welch, the other side's spread, the runs'
 * own repeats), or untested when there is none; then the verdict, worse,
 * better, same (an equivalence claim) or inconclusive, and for an
 * inconclusive one how many runs a side would decide it.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/report.h"
#include "jobmix/stats.h"
#include "internal.h"

#define REP_NEED_MAX 1000   /* beyond this "many": the noise swamps the threshold */

const char *rep_mark_name(enum rep_mark m)
{
	static const char *const n[] = { "untested", "same", "worse", "better", "inconclusive" };
	return (unsigned)m < 5 ? n[m] : "untested";
}

void rep_pct(char *buf, size_t len, double change)
{
	double v = change * 100;
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (fabs(v) < 1000)
		snprintf(buf, len, "%+.1f", v);
	else
		snprintf(buf, len, "%+.3g", v);
}

/*
 * An interval's bound as rep_pct, capped where tiny n or a huge t quantile
 * puts it beyond a factor REP_CI_CAP: "<-99.0", ">+9900" say the interval
 * is unbounded there, never "-100.0" or "+4.3e+14".
 */
void rep_pct_bound(char *buf, size_t len, double bound)
{
	if (isnan(bound))
		snprintf(buf, len, "-");
	else if (bound > REP_CI_CAP - 1)
		snprintf(buf, len, ">%+.0f", (REP_CI_CAP - 1) * 100);
	else if (bound < 1 / REP_CI_CAP - 1)
		snprintf(buf, len, "<%+.1f", (1 / REP_CI_CAP - 1) * 100);
	else
		rep_pct(buf, len, bound);
}

/* Mean and sample sd of log x[0..n); false if a value is not positive. */
static bool rep_logs(const double *x, size_t n, double *mean, double *sd)
{
	double s = 0, ss = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || !isfinite(x[i]))
			return false;
		s += log(x[i]);
	}
	*mean = s / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (log(x[i]) - *mean) * (log(x[i]) - *mean);
	*sd = n >= 2 ? sqrt(ss / (double)(n - 1)) : NAN;
	return true;
}

/* Where a and b share an A/B session: the log ratios of the rounds both have, in round order. */
static unsigned rep_pairs(const struct rep_value *a, const struct rep_value *b, double *d)
{
	unsigned k = 0, *rd = malloc((b->n ? b->n : 1) * sizeof(*rd));
	if (!rd || !a->round || !b->round || !a->session || !b->session ||
	    strcmp(a->session, b->session)) {
		free(rd);
		return 0;
	}
	for (unsigned i = 0; i < b->n; i++)
		for (unsigned j = 0; j < a->n; j++)
			if (b->round[i] == a->round[j] && b->round[i] != UINT_MAX && a->x[j] > 0 &&
			    b->x[i] > 0) {
				/* insert by round: the sequential test reads them as measured */
				unsigned m = k++;
				for (; m > 0 && rd[m - 1] > b->round[i]; m--) {
					rd[m] = rd[m - 1];
					d[m] = d[m - 1];
				}
				rd[m] = b->round[i];
				d[m] = log(b->x[i]) - log(a->x[j]);
				break;
			}
	free(rd);
	return k;
}

/* A t statistic on delta over se with df: stat, p, the 95% interval of exp(delta) - 1. */
static void rep_t_result(struct rep_test *t, double delta, double se, double df)
{
	t->df = df;
	t->change = expm1(delta);
	if (se > 0) {
		double q = stats_t_quantile(df, 0.05);
		t->stat = delta / se;
		t->p = stats_t_p(t->stat, df);
		t->lo = expm1(delta - q * se);
		t->hi = expm1(delta + q * se);
	} else {   /* no spread at all: the values are identical or exactly apart */
		if (fabs(delta) < STATS_SEQ_SAME_LOG) {   /* identical to rounding: no change */
			delta = 0;
			t->change = 0;
		}
		t->stat = delta == 0 ? 0 : (delta > 0 ? INFINITY : -INFINITY);
		t->p = delta == 0 ? 1 : 0;
		t->lo = t->hi = t->change;
	}
}

/*
 * Rule 'p': the confidence sequence of the rounds' log ratios (stats.h),
 * valid however many rounds were looked at before: its interval, its
 * always-valid p-value, and the rounds more that would decide it.
 */
static void rep_seq_result(struct rep_test *t, const double *d, unsigned k, double threshold,
			   double alpha)
{
	struct stats_seq q;
	stats_seq_test(d, k, threshold, alpha, &q);
	t->rule = 'p';
	t->pairs = k;
	t->sd_log = q.sd;
	t->df = k - 1;
	t->stat = q.t;
	t->p = q.p;
	t->change = expm1(q.mean);
	t->lo = expm1(q.lo);
	t->hi = expm1(q.hi);
	t->seq_need = q.need;
}

void rep_test_values(const struct rep_value *a, const struct rep_value *b, double threshold,
		     double alpha, struct rep_test *t)
{
	memset(t, 0, sizeof(*t));
	t->mark = REP_UNTESTED;
	t->change = t->lo = t->hi = t->stat = t->df = t->p = t->p_adj = t->sd_log = NAN;
	if (!a->n && !b->n)
		return;   /* neither has it (a convergence neither reached): nothing compared */
	if (!a->n || !b->n) {
		t->why = "no value on one side";
		return;
	}
	if (a->incomplete_only || b->incomplete_only) {
		t->why = "no complete run on one side";
		return;
	}
	double ma, sa, mb, sb;
	if (!rep_logs(a->x, a->n, &ma, &sa) || !rep_logs(b->x, b->n, &mb, &sb)) {
		t->why = "a value is not positive";
		return;
	}
	double delta = mb - ma;
	t->change = expm1(delta);
	if (!(threshold > 0))
		threshold = REP_THRESHOLD_DEFAULT;
	if (!(alpha > 0))
		alpha = REP_ALPHA;
	t->nmin = a->n < b->n ? a->n : b->n;
	/* 'p': the rounds of one A/B session paired, tested sequentially */
	double *d = calloc(b->n ? b->n : 1, sizeof(*d));
	unsigned k = d ? rep_pairs(a, b, d) : 0;
	if (k >= 2) {
		rep_seq_result(t, d, k, threshold, alpha);
		free(d);
		return;
	}
	free(d);
	if (a->n >= 2 && b->n >= 2 && (sa > 0 || sb > 0)) {   /* 't': Welch on the logs */
		double va = sa * sa / a->n, vb = sb * sb / b->n;
		double df = (va + vb) * (va + vb) /
			    (va * va / (a->n - 1) + vb * vb / (b->n - 1));
		t->rule = 't';
		t->sd_log = sqrt((sa * sa + sb * sb) / 2);
		rep_t_result(t, delta, sqrt(va + vb), df);
		return;
	}
	/* 'o': one side alone, the other's spread for both */
	const struct rep_value *many = a->n >= 2 ? a : b->n >= 2 ? b : NULL;
	double sm = many == a ? sa : sb;
	if (many && (a->n == 1 || b->n == 1) && sm > 0) {
		t->rule = 'o';
		t->sd_log = sm;
		rep_t_result(t, delta, sm * sqrt(1.0 / a->n + 1.0 / b->n), (double)(many->n - 1));
		return;
	}
	/* 'z': the noise the runs measured with their repeats */
	bool na = isfinite(a->noise) && a->noise > 0 && a->noise_df > 0;
	bool nb = isfinite(b->noise) && b->noise > 0 && b->noise_df > 0;
	if (na || nb) {
		double sa2 = na ? a->noise : b->noise, sb2 = nb ? b->noise : a->noise;
		double ra = a->reps > 0 ? a->reps : a->n, rb = b->reps > 0 ? b->reps : b->n;
		double df = (na ? a->noise_df : 0) + (nb ? b->noise_df : 0);
		t->rule = 'z';
		t->sd_log = sqrt((sa2 * sa2 + sb2 * sb2) / 2);
		rep_t_result(t, delta, sqrt(sa2 * sa2 / ra + sb2 * sb2 / rb), df);
		return;
	}
	t->why = a->n == 1 && b->n == 1 ? "n=1, noise not measured" : "no spread measured";
}

/*
 * More runs a side at which the measured noise would decide a change like
 * this one (a fixed-sample rule: below the threshold, an interval inside
 * it; at or beyond it, an interval that excludes no change): the total
 * less the runs of the smaller side, at least one.  0 when it cannot be
 * said (no noise, or more than REP_NEED_MAX).  Paired rounds ask their
 * confidence sequence instead (seq_need).
 */
static unsigned rep_need(const struct rep_test *t, double threshold)
{
	double s = t->sd_log, d = fabs(log1p(t->change)), T = log1p(threshold);
	if (t->rule == 'p')
		return t->seq_need;
	if (!(s > 0) || !isfinite(d))
		return 0;
	double room = d >= T ? d : T - d;
	if (!(room > 0))
		return 0;
	double z = 1.96 * s / room;
	double n = 2 * z * z;
	if (!(n < REP_NEED_MAX))
		return 0;
	unsigned total = (unsigned)ceil(n);
	return total > t->nmin ? total - t->nmin : 1;
}

void rep_verdict(struct rep_test *t, double p, double threshold, double alpha,
		 bool lower_better)
{
	if (!t->rule) {
		t->mark = REP_UNTESTED;
		return;
	}
	if (p < alpha && fabs(t->change) >= threshold) {
		bool up = t->change > 0;
		t->mark = up != lower_better ? REP_BETTER : REP_WORSE;
	} else if (t->lo > -threshold && t->hi < threshold) {
		t->mark = REP_SAME;
	} else {
		t->mark = REP_INCONCLUSIVE;
		t->need = rep_need(t, threshold);
		return;
	}
	t->need = 0;
}

void rep_holm_tests(struct rep_test *const *t, size_t n, double threshold, double alpha,
		    bool lower_better)
{
	double *p = calloc(n ? n : 1, sizeof(*p)), *adj = calloc(n ? n : 1, sizeof(*adj));
	size_t *ix = calloc(n ? n : 1, sizeof(*ix));
	size_t np = 0;
	if (p && adj && ix) {
		for (size_t i = 0; i < n; i++)
			if (t[i]->rule && isfinite(t[i]->p)) {
				ix[np] = i;
				p[np++] = t[i]->p;
			}
		stats_holm(p, np, adj);
		for (size_t k = 0; k < np; k++)
			t[ix[k]]->p_adj = adj[k];
	} else {   /* no memory: Bonferroni over all, never looser */
		for (size_t i = 0; i < n; i++)
			t[i]->p_adj = fmin(1, t[i]->p * (double)n);
	}
	for (size_t i = 0; i < n; i++)
		rep_verdict(t[i], t[i]->p_adj, threshold, alpha, lower_better);
	free(p);
	free(adj);
	free(ix);
}

void rep_holm_dir(struct rep_test *const *t, const bool *lower, size_t n, double threshold,
		  double alpha)
{
	rep_holm_tests(t, n, threshold, alpha, false);
	for (size_t i = 0; i < n; i++)
		if (lower[i])
			rep_verdict(t[i], t[i]->p_adj, threshold, alpha, true);
}

/*
 * mmtests' Gmean of the ratios: the mean of the log ratios; its interval
 * from each test's own (the log half-width over its t quantile is the
 * test's standard error; the mean's is their root sum of squares over n),
 * normal; NAN when a ratio was not tested.
 */
void rep_gmean_ci(const struct rep_test *const *t, size_t n, double *ratio, double *lo,
		  double *hi)
{
	double s = 0, v = 0;
	bool all = n > 0;
	*ratio = *lo = *hi = NAN;
	if (!n)
		return;
	for (size_t i = 0; i < n; i++) {
		s += log1p(t[i]->change);
		if (!t[i]->rule || !isfinite(t[i]->lo) || !isfinite(t[i]->hi)) {
			all = false;
			continue;
		}
		double q = stats_t_quantile(t[i]->df, 0.05);
		double se = q > 0 ? (log1p(t[i]->hi) - log1p(t[i]->lo)) / (2 * q) : NAN;
		v += se * se;
	}
	double m = s / (double)n;
	*ratio = exp(m);
	if (all && isfinite(v)) {
		double h = 1.96 * sqrt(v) / (double)n;
		*lo = exp(m - h);
		*hi = exp(m + h);
	}
}

/* Put one compared test into out[n] when there is room; n + 1. */
static size_t rep_verdict_put(struct rep_verdict_item *out, size_t max, size_t n,
			      const char *label, const char *metric, const struct rep_test *t)
{
	if (n < max) {
		struct rep_verdict_item *v = &out[n];
		snprintf(v->what, sizeof(v->what), "%s%s%s", label, label[0] ? " " : "", metric);
		v->mark = t->mark;
		v->rule = t->rule;
		v->change = t->change;
		v->need = t->mark == REP_INCONCLUSIVE ? t->need : 0;
	}
	return n + 1;
}

size_t rep_verdicts(const struct rep_report *r, struct rep_verdict_item *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ntable; i++) {
		const struct rep_table *t = &r->table[i];
		for (size_t j = 0; j < t->nrow; j++) {
			const struct rep_row *row = &t->row[j];
			char label[256];
			rep_row_label(r, row, label, sizeof(label));
			if (t->pv) {
				for (size_t c = 0; c < t->pv->ncol; c++) {
					const struct rep_cell *cl = &t->pv->cell[j * t->pv->ncol + c];
					if (cl->compared)
						n = rep_verdict_put(out, max, n, label, t->pv->col[c].title,
								    &cl->t);
				}
				continue;
			}
			/* compared: tested, or untested for a reason (neither side: not compared) */
			if (row->tpeak.rule || row->tpeak.why)
				n = rep_verdict_put(out, max, n, label, "Peak Load", &row->tpeak);
			if (row->tqc.rule || row->tqc.why)
				n = rep_verdict_put(out, max, n, label, "Quick Convergence", &row->tqc);
		}
	}
	return n;
}
