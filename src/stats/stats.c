// SPDX-License-Identifier: GPL-2.0-only
/* Summary statistics, confidence intervals, Welch's test, histograms. */
#include "jobmix/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

void stats_summarize(const double *x, size_t n, struct stats_summary *out)
{
	*out = (struct stats_summary){ .n = n };
	if (!n)
		return;
	double sum = 0;
	out->min = out->max = x[0];
	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < out->min)
			out->min = x[i];
		if (x[i] > out->max)
			out->max = x[i];
	}
	out->mean = sum / (double)n;
	if (n < 2)
		return;
	double ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->stddev = sqrt(ss / (double)(n - 1));
}

double stats_mean(const double *x, size_t n)
{
	struct stats_summary s;
	stats_summarize(x, n, &s);
	return s.mean;
}

double stats_stddev(const double *x, size_t n)
{
	struct stats_summary s;
	stats_summarize(x, n, &s);
	return s.stddev;
}

double stats_jti(const double *t, size_t n)
{
	struct stats_summary s;
	stats_summarize(t, n, &s);
	if (n < 2 || s.mean <= 0)
		return 100.0;
	double j = (1.0 - s.stddev / s.mean) * 100.0;
	return j < 0 ? 0 : j;
}

static double ibeta(double a, double b, double x);

/*
 * Two-sided 95% Student t quantile: the t whose two-sided p-value,
 * I(df/(df+t^2); df/2, 1/2), is 0.05, found by bisection (the p-value falls
 * as t grows).  Exact for every df, no table.
 */
double stats_t95(unsigned df)
{
	if (df == 0)
		return INFINITY;
	double lo = 1.959, hi = 12.71;   /* t(inf) and t(1) bracket every df */
	for (int i = 0; i < 64 && hi - lo > 1e-12; i++) {
		double mid = (lo + hi) / 2;
		double p = ibeta(df / 2.0, 0.5, df / (df + mid * mid));
		if (p > 0.05)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double stats_ci95_half(const struct stats_summary *s)
{
	if (s->n < 2)
		return NAN;   /* one sample says nothing about the spread */
	return stats_t95((unsigned)(s->n - 1)) * s->stddev / sqrt((double)s->n);
}

double stats_geomean(const double *x, size_t n)
{
	double sum = 0;
	if (!n)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0))
			return NAN;
		sum += log(x[i]);
	}
	return exp(sum / (double)n);
}

void stats_ci95_log(const double *x, size_t n, double *lo, double *hi)
{
	double g = stats_geomean(x, n), ss = 0;

	*lo = *hi = NAN;
	if (n < 2 || isnan(g))
		return;
	double m = log(g);
	for (size_t i = 0; i < n; i++)
		ss += (log(x[i]) - m) * (log(x[i]) - m);
	struct stats_summary s = { .n = n, .mean = m, .stddev = sqrt(ss / (double)(n - 1)) };
	double h = stats_ci95_half(&s);
	*lo = exp(m - h);
	*hi = exp(m + h);
}

/* Regularized incomplete beta via continued fraction (Numerical Recipes' method). */
static double betacf(double a, double b, double x)
{
	const double eps = 3e-14, fpmin = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1, c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < fpmin)
		d = fpmin;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < fpmin)
			d = fpmin;
		c = 1 + aa / c;
		if (fabs(c) < fpmin)
			c = fpmin;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < fpmin)
			d = fpmin;
		c = 1 + aa / c;
		if (fabs(c) < fpmin)
			c = fpmin;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

static double ibeta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x);
	double bt = exp(lbt);
	if (x < (a + 1) / (a + b + 2))
		return bt * betacf(a, b, x) / a;
	return 1 - bt * betacf(b, a, 1 - x) / b;
}

double stats_welch(const struct stats_summary *a, const struct stats_summary *b, double *t_out,
		   double *df_out)
{
	double t = 0, df = 0, p = 1.0;
	if (a->n >= 2 && b->n >= 2) {
		double va = a->stddev * a->stddev / (double)a->n;
		double vb = b->stddev * b->stddev / (double)b->n;
		if (va + vb <= 0) {
			p = a->mean == b->mean ? 1.0 : 0.0;
			t = a->mean == b->mean ? 0 : (a->mean > b->mean ? INFINITY : -INFINITY);
			df = (double)(a->n + b->n - 2);
		} else {
			t = (a->mean - b->mean) / sqrt(va + vb);
			df = (va + vb) * (va + vb) /
			     (va * va / (double)(a->n - 1) + vb * vb / (double)(b->n - 1));
			p = ibeta(df / 2, 0.5, df / (df + t * t));
		}
	}
	if (t_out)
		*t_out = t;
	if (df_out)
		*df_out = df;
	return p;
}

double stats_welch_p(const struct stats_summary *a, const struct stats_summary *b)
{
	return stats_welch(a, b, NULL, NULL);
}

double stats_t_p(double t, double df)
{
	if (!(df > 0))
		return NAN;
	if (!isfinite(t))
		return isnan(t) ? NAN : 0;
	return ibeta(df / 2, 0.5, df / (df + t * t));
}

double stats_t_quantile(double df, double p)
{
	if (!(df > 0) || !(p > 0 && p < 1))
		return NAN;
	/* the two-sided p-value falls as t grows: bisect on it */
	double lo = 0, hi = 1;
	while (stats_t_p(hi, df) > p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = (lo + hi) / 2;
		if (stats_t_p(mid, df) > p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double stats_normal_p(double z)
{
	return erfc(fabs(z) / sqrt(2.0));
}

void stats_holm(const double *p, size_t n, double *adj)
{
	/* order by p (insertion sort on indices: n is a night's metrics, small) */
	size_t *ix = n ? malloc(n * sizeof(*ix)) : NULL;
	if (n && !ix) {
		for (size_t i = 0; i < n; i++)   /* no memory: Bonferroni, never looser */
			adj[i] = fmin(1.0, p[i] * (double)n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		size_t j = i;
		for (; j > 0 && p[ix[j - 1]] > p[i]; j--)
			ix[j] = ix[j - 1];
		ix[j] = i;
	}
	double run = 0;
	for (size_t k = 0; k < n; k++) {
		double v = fmin(1.0, p[ix[k]] * (double)(n - k));
		run = fmax(run, v);   /* adjusted p-values never decrease along the order */
		adj[ix[k]] = run;
	}
	free(ix);
}

void stats_hist_merge(struct stats_hist *into, const struct stats_hist *from)
{
	if (from->count && (!into->count || from->min_ns < into->min_ns))
		into->min_ns = from->min_ns;
	into->count += from->count;
	into->sum_ns += from->sum_ns;
	if (from->max_ns > into->max_ns)
		into->max_ns = from->max_ns;
	for (unsigned i = 0; i < STATS_HIST_BUCKETS; i++)
		into->bucket[i] += from->bucket[i];
}

/* Lower bound and width of bucket i (inverse of stats_hist_index). */
static void bucket_range(unsigned i, double *lo, double *width)
{
	if (i < STATS_HIST_SUB) {
		*lo = i;
		*width = 1;
		return;
	}
	unsigned msb = i / STATS_HIST_SUB + 2, sub = i % STATS_HIST_SUB;
	double step = ldexp(1.0, (int)msb - 3);
	*lo = ldexp(1.0, (int)msb) + sub * step;
	*width = step;
}

double stats_hist_quantile(const struct stats_hist *h, double q)
{
	if (!h->count)
		return 0;
	uint64_t rank = (uint64_t)ceil(q * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	double min = (double)h->min_ns, max = (double)h->max_ns;
	uint64_t seen = 0;
	for (unsigned i = 0; i < STATS_HIST_BUCKETS; i++) {
		uint64_t cnt = h->bucket[i];
		if (seen + cnt < rank) {
			seen += cnt;
			continue;
		}
		/*
		 * The k-th of the bucket's cnt samples, spread evenly over the
		 * bucket narrowed to [min, max]; an end that is the min or the
		 * max is itself a sample.
		 */
		double lo, w;
		bucket_range(i, &lo, &w);
		double a = lo, b = lo + w;
		if (i == STATS_HIST_BUCKETS - 1 && max > b)
			b = max;              /* the last bucket holds everything above */
		/* this bucket's samples lie in [lo, b): min and max are in it when so */
		bool has_min = min >= lo, has_max = max < b || b == max;
		if (has_min)
			a = min;
		if (has_max)
			b = max;
		double k = (double)(rank - seen), n = (double)cnt, f;
		if (n <= 1)
			f = has_max ? 1 : has_min ? 0 : 0.5;
		else if (has_min && has_max)
			f = (k - 1) / (n - 1);
		else if (has_min)
			f = (k - 1) / n;
		else if (has_max)
			f = k / n;
		else
			f = (k - 0.5) / n;
		return a + (b - a) * f;
	}
	return max;
}
