// SPDX-License-Identifier: GPL-2.0-only
/* Change points by windowed Welch t-test splitting on the log scale (changepoint.h). */
#include "jobmix/changepoint.h"

#include <stdbool.h>
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

/* ---- blocks ------------------------------------------------------------------- */

/* Prefix sums over blocks: of the block mean logs, their squares, the within SS, runs. */
struct cpb_sums {
	double *m, *m2, *w, *nr;
};

/* A set of blocks: their count, sum and sum of squares of means, within SS, runs. */
struct cpb_set {
	double k, s, s2, w, nr;
};

static struct cpb_set cpb_span(const struct cpb_sums *p, size_t a, size_t b)
{
	return (struct cpb_set){ (double)(b - a), p->m[b] - p->m[a], p->m2[b] - p->m2[a],
				 p->w[b] - p->w[a], p->nr[b] - p->nr[a] };
}

static struct cpb_set cpb_add(struct cpb_set x, struct cpb_set y)
{
	return (struct cpb_set){ x.k + y.k, x.s + y.s, x.s2 + y.s2, x.w + y.w, x.nr + y.nr };
}

/*
 * Student's t of set b's mean block against set a's (see changepoint.h):
 * the variance of a block mean from the spread of the means about their
 * side's mean, or pooled with the runs' spread within blocks when that is
 * the larger.  false when there is no degree of freedom to estimate it.
 */
static bool cpb_test(const struct cpb_set *a, const struct cpb_set *b, double vdiff, double *t,
		     double *df, double *se, double *d)
{
	double ssb = (a->s2 - a->s * a->s / a->k) + (b->s2 - b->s * b->s / b->k);
	double dfb = a->k + b->k - 2, ssw = a->w + b->w, dfw = a->nr + b->nr - a->k - b->k;
	double nbar = (a->nr + b->nr) / (a->k + b->k), v;
	ssb = fmax(0, ssb);
	*d = b->s / b->k - a->s / a->k;
	/* a segment with a second level shift in it: the successive differences' spread */
	if (isfinite(vdiff) && dfb > 0 && vdiff < ssb / dfb)
		ssb = vdiff * dfb;
	if (dfb > 0 && (dfw <= 0 || ssb / dfb >= ssw / dfw / nbar)) {
		v = ssb / dfb;
		*df = dfb;
	} else if (dfw > 0 && dfb > 0) {   /* one block a side: no spread between blocks, untestable */
		v = (ssb + ssw / nbar) / (dfb + dfw);
		*df = dfb + dfw;
	} else {
		return false;
	}
	*se = sqrt(v * (1 / a->k + 1 / b->k));
	*t = *se > 0 ? *d / *se : (*d == 0 ? 0 : (*d > 0 ? INFINITY : -INFINITY));
	return true;
}

struct cpb_run {
	const struct cpb_sums *ps;
	const double *bm;              /* the block means */
	struct cp_opts o;
	struct cp_run r;               /* the block boundaries found */
};

/*
 * The most significant interval of blocks [lo, hi) against the rest (the
 * smallest p: sides of different sizes have different df): 0 none.
 */
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/*
 * The variance of a block mean from the successive differences of blocks
 * [lo, hi), robust to a few level shifts among them: the median squared
 * difference over 2 x 0.4549 (the median of chi-square 1); NAN with fewer
 * than 4 differences.
 */
static double cpb_vdiff(const double *bm, size_t lo, size_t hi)
{
	size_t k = hi - lo - 1;
	if (hi - lo < 5)
		return NAN;
	double *d = malloc(sizeof(*d) * k);
	if (!d)
		return NAN;
	for (size_t i = 0; i < k; i++)
		d[i] = (bm[lo + i + 1] - bm[lo + i]) * (bm[lo + i + 1] - bm[lo + i]);
	qsort(d, k, sizeof(*d), cmp_dbl);
	double med = k % 2 ? d[k / 2] : (d[k / 2 - 1] + d[k / 2]) / 2;
	free(d);
	return med / (2 * 0.4549);
}

static int cpb_best(const struct cpb_run *c, size_t lo, size_t hi, size_t *bi, size_t *bj)
{
	double best = 2, cand = 0, vd = cpb_vdiff(c->bm, lo, hi);
	*bi = *bj = 0;
	for (size_t i = lo; i < hi; i++) {
		for (size_t j = i + 1; j <= hi; j++) {
			if (i == lo && j == hi)
				continue;
			struct cpb_set in = cpb_span(c->ps, i, j);
			struct cpb_set out = cpb_add(cpb_span(c->ps, lo, i), cpb_span(c->ps, j, hi));
			double t, df, se, d;
			if (!cpb_test(&out, &in, vd, &t, &df, &se, &d))
				continue;
			cand++;
			if (fabs(expm1(d)) < c->o.min_change)
				continue;
			double p = isfinite(t) ? stats_t_p(t, df) : 0;
			if (p < best) {
				best = p;
				*bi = i;
				*bj = j;
			}
		}
	}
	return *bi != *bj && best * cand < c->o.alpha;
}

static void cpb_segment(struct cpb_run *c, size_t nb)
{
	size_t stack_lo[256], stack_hi[256], top = 0;
	stack_lo[top] = 0;
	stack_hi[top++] = nb;
	while (top && !c->r.nomem) {
		size_t lo = stack_lo[--top], hi = stack_hi[top], i, j;
		if (hi - lo < 2 || !cpb_best(c, lo, hi, &i, &j))
			continue;
		size_t cut[4] = { lo, i, j, hi }, ncut = 0;
		for (size_t k = 0; k < 4; k++)
			if (!ncut || cut[k] != cut[ncut - 1])
				cut[ncut++] = cut[k];
		for (size_t k = 1; k + 1 < ncut; k++)
			cp_add(&c->r, cut[k]);
		if (top + ncut > sizeof(stack_lo) / sizeof(stack_lo[0])) {
			c->r.nomem = 1;
			return;
		}
		for (size_t k = 0; k + 1 < ncut; k++) {
			stack_lo[top] = cut[k];
			stack_hi[top++] = cut[k + 1];
		}
	}
}

int cp_detect_blocks(const double *x, size_t n, const size_t *start, size_t nb,
		     const struct cp_opts *o_in, struct cp_point **out, size_t *nout)
{
	struct cp_opts o = o_in ? *o_in : (struct cp_opts){ 0 };
	struct cpb_sums ps = { 0 };
	double *bm = NULL;
	struct cpb_run c = { .ps = &ps };
	*out = NULL;
	*nout = 0;
	if (!(o.alpha > 0))
		o.alpha = CP_ALPHA_DEFAULT;
	c.o = o;
	if (!nb || start[0] != 0 || start[nb] != n)
		return -1;
	for (size_t b = 0; b < nb; b++)
		if (start[b + 1] <= start[b])
			return -1;
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return -1;
	ps.m = calloc(nb + 1, sizeof(double));
	ps.m2 = calloc(nb + 1, sizeof(double));
	ps.w = calloc(nb + 1, sizeof(double));
	ps.nr = calloc(nb + 1, sizeof(double));
	bm = calloc(nb, sizeof(double));
	c.bm = bm;
	if (!ps.m || !ps.m2 || !ps.w || !ps.nr || !bm)
		goto nomem;
	for (size_t b = 0; b < nb; b++) {
		double s = 0, q = 0, k = (double)(start[b + 1] - start[b]);
		for (size_t i = start[b]; i < start[b + 1]; i++)
			s += log(x[i]);
		for (size_t i = start[b]; i < start[b + 1]; i++)
			q += (log(x[i]) - s / k) * (log(x[i]) - s / k);
		bm[b] = s / k;
		ps.m[b + 1] = ps.m[b] + s / k;
		ps.m2[b + 1] = ps.m2[b] + (s / k) * (s / k);
		ps.w[b + 1] = ps.w[b] + q;
		ps.nr[b + 1] = ps.nr[b] + k;
	}
	cpb_segment(&c, nb);
	if (c.r.nomem)
		goto nomem;
	if (c.r.n) {
		qsort(c.r.at, c.r.n, sizeof(*c.r.at), cp_cmp);
		*out = calloc(c.r.n, sizeof(**out));
		if (!*out)
			goto nomem;
		for (size_t i = 0; i < c.r.n; i++) {
			struct cp_point *p = &(*out)[i];
			size_t at = c.r.at[i], lo = i ? c.r.at[i - 1] : 0, hi = i + 1 < c.r.n ? c.r.at[i + 1] : nb;
			struct cpb_set a = cpb_span(&ps, lo, at), b = cpb_span(&ps, at, hi);
			double se = 0, d = 0;
			p->at = start[at];
			p->seg_lo = start[lo];
			p->seg_hi = start[hi];
			if (!cpb_test(&a, &b, cpb_vdiff(bm, lo, hi), &p->t, &p->df, &se, &d)) {
				p->t = NAN;
				p->df = 0;
			}
			p->p = isfinite(p->t) ? stats_t_p(p->t, p->df) : isnan(p->t) ? NAN : 0;
			p->before = exp(a.s / a.k);
			p->after = exp(b.s / b.k);
			p->change = expm1(d);
			double q = se > 0 ? stats_t_quantile(p->df, 0.05) * se : 0;
			p->lo = expm1(d - q);
			p->hi = expm1(d + q);
		}
		*nout = c.r.n;
	}
	free(c.r.at);
	free(ps.m);
	free(ps.m2);
	free(ps.w);
	free(ps.nr);
	free(bm);
	return 0;
nomem:
	free(bm);
	free(c.r.at);
	free(ps.m);
	free(ps.m2);
	free(ps.w);
	free(ps.nr);
	free(*out);
	*out = NULL;
	return -1;
}
