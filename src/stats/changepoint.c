// SPDX-License-Identifier: GPL-2.0-only
/* Change points by windowed Welch t-test splitting on the log scale (changepoint.h). */
#include "jobmix/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/stats.h"

/* Prefix sums of log x and its square: any span's mean and variance in O(1). */
struct cp_sums {
	double *s, *q;                 /* s[i] = sum of log x[0..i), q[i] of squares */
};

struct cp_side {
	double n, mean, var;
};

static struct cp_side cp_span(const struct cp_sums *ps, size_t a, size_t b)
{
	struct cp_side d = { (double)(b - a), 0, 0 };
	double s = ps->s[b] - ps->s[a], q = ps->q[b] - ps->q[a];
	d.mean = s / d.n;
	d.var = d.n > 1 ? fmax(0, (q - s * d.mean) / (d.n - 1)) : 0;
	return d;
}

/* Welch's t of b against a (b - a over its standard error) and its df. */
static double cp_welch(const struct cp_side *a, const struct cp_side *b, double *df, double *se)
{
	double va = a->var / a->n, vb = b->var / b->n;
	*se = sqrt(va + vb);
	if (!(*se > 0)) {
		*df = a->n + b->n - 2;
		return b->mean == a->mean ? 0 : (b->mean > a->mean ? INFINITY : -INFINITY);
	}
	*df = (va + vb) * (va + vb) / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	return (b->mean - a->mean) / *se;
}

struct cp_run {
	const struct cp_sums *ps;
	struct cp_opts o;
	size_t *at;                    /* the splits found */
	size_t n, cap;
	int nomem;
};

static void cp_add(struct cp_run *r, size_t k)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		size_t *v = realloc(r->at, cap * sizeof(*v));
		if (!v) {
			r->nomem = 1;
			return;
		}
		r->at = v;
		r->cap = cap;
	}
	r->at[r->n++] = k;
}

/*
 * Split [lo, hi) where the windowed Welch |t| is largest, if that split is
 * significant after Bonferroni over the candidates, and search both sides
 * again.  Iterative over a small stack of segments (no deep recursion on
 * long series).
 */
static void cp_segment(struct cp_run *r, size_t lo0, size_t hi0)
{
	size_t stack_lo[128], stack_hi[128], top = 0;
	stack_lo[top] = lo0;
	stack_hi[top++] = hi0;
	size_t m = r->o.min_seg, w = r->o.window;
	while (top && !r->nomem) {
		size_t lo = stack_lo[--top], hi = stack_hi[top];
		if (hi - lo < 2 * m)
			continue;
		double best_t = 0, best_df = 0;
		size_t best = 0, cand = 0;
		for (size_t k = lo + m; k + m <= hi; k++) {
			size_t a = k - lo > w ? k - w : lo, b = hi - k > w ? k + w : hi;
			struct cp_side x = cp_span(r->ps, a, k), y = cp_span(r->ps, k, b);
			double df, se, t = cp_welch(&x, &y, &df, &se);
			double ch = expm1(y.mean - x.mean);
			cand++;
			if (fabs(ch) < r->o.min_change)
				continue;
			if (fabs(t) > fabs(best_t)) {
				best_t = t;
				best_df = df;
				best = k;
			}
		}
		if (!best)
			continue;
		/*
		 * Neighbouring candidates see nearly the same windows: the tests are
		 * about as many independent ones as there are windows in the segment,
		 * and that is the Bonferroni count (1 for a segment within a window).
		 */
		double p = isfinite(best_t) ? stats_t_p(best_t, best_df) : 0;
		double ntests = fmax(1, (double)cand / (double)w);
		if (!(p * ntests < r->o.alpha))
			continue;
		cp_add(r, best);
		if (top + 2 > sizeof(stack_lo) / sizeof(stack_lo[0])) {
			r->nomem = 1;   /* (128 nested open segments: a series of 2^64 values) */
			return;
		}
		stack_lo[top] = lo;
		stack_hi[top++] = best;
		stack_lo[top] = best;
		stack_hi[top++] = hi;
	}
}

static int cp_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

int cp_detect(const double *x, size_t n, const struct cp_opts *o_in, struct cp_point **out,
	      size_t *nout)
{
	struct cp_opts o = o_in ? *o_in : (struct cp_opts){ 0 };
	struct cp_sums ps = { 0 };
	struct cp_run r = { .ps = &ps };
	*out = NULL;
	*nout = 0;
	if (!(o.alpha > 0))
		o.alpha = CP_ALPHA_DEFAULT;
	if (!o.window)
		o.window = CP_WINDOW_DEFAULT;
	if (!o.min_seg)
		o.min_seg = CP_MIN_SEG_DEFAULT;
	if (o.min_seg < 2)
		o.min_seg = 2;
	if (o.window < o.min_seg)
		o.window = o.min_seg;
	r.o = o;
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return -1;
	ps.s = calloc(n + 1, sizeof(double));
	ps.q = calloc(n + 1, sizeof(double));
	if (!ps.s || !ps.q)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		double l = log(x[i]);
		ps.s[i + 1] = ps.s[i] + l;
		ps.q[i + 1] = ps.q[i] + l * l;
	}
	cp_segment(&r, 0, n);
	if (r.nomem)
		goto nomem;
	if (r.n) {
		qsort(r.at, r.n, sizeof(*r.at), cp_cmp);
		*out = calloc(r.n, sizeof(**out));
		if (!*out)
			goto nomem;
		for (size_t i = 0; i < r.n; i++) {
			struct cp_point *c = &(*out)[i];
			c->at = r.at[i];
			c->seg_lo = i ? r.at[i - 1] : 0;
			c->seg_hi = i + 1 < r.n ? r.at[i + 1] : n;
			struct cp_side a = cp_span(&ps, c->seg_lo, c->at), b = cp_span(&ps, c->at, c->seg_hi);
			double se;
			c->t = cp_welch(&a, &b, &c->df, &se);
			c->p = isfinite(c->t) ? stats_t_p(c->t, c->df) : 0;
			c->before = exp(a.mean);
			c->after = exp(b.mean);
			c->change = expm1(b.mean - a.mean);
			double q = se > 0 ? stats_t_quantile(c->df, 0.05) * se : 0;
			c->lo = expm1(b.mean - a.mean - q);
			c->hi = expm1(b.mean - a.mean + q);
		}
		*nout = r.n;
	}
	free(r.at);
	free(ps.s);
	free(ps.q);
	return 0;
nomem:
	free(r.at);
	free(ps.s);
	free(ps.q);
	free(*out);
	*out = NULL;
	return -1;
}
