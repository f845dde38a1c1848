// SPDX-License-Identifier: GPL-2.0-only
/*
 * The nightly view: baseline runs against candidate runs, per workload,
 * fingerprint and --by group present on both sides, metric by metric
 * (peak, quick convergence, JPM at every user count measured on both),
 * p-values Holm-adjusted over the whole night so that many metrics do not
 * make a noisy night red.  Only complete runs are compared; every run that
 * is not, and every group one side lacks, is listed as missing evidence.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jobmix/escape.h"
#include "jobmix/report.h"
#include "jobmix/stats.h"
#include "internal.h"

/* The complete runs of one side that are folded together. */
struct rep_group {
	const struct res_rec *fp;       /* the first: its fingerprint and keys stand for all */
	const struct res_rec **run;
	size_t n;
	bool matched;
};

struct rep_groups {
	struct rep_group *v;
	size_t n;
};

static bool rep_same_keys_of(const struct rep_opts *o, const struct res_rec *a,
			     const struct res_rec *b)
{
	for (size_t k = 0; k < o->nby; k++)
		if (strcmp(rep_key_value(a, o->by[k]), rep_key_value(b, o->by[k])))
			return false;
	return true;
}

/* Same measurement for compare: the fingerprint (sessions are the sides' business). */
static bool rep_cmp_same(const struct rep_opts *o, const struct res_rec *a, const struct res_rec *b)
{
	const char *ign[REP_MAX_KEYS + REP_MAX_ALLOW];
	size_t ni = 0;
	for (size_t k = 0; k < o->nby; k++)
		ign[ni++] = o->by[k];
	for (size_t k = 0; k < o->nallow; k++)
		ign[ni++] = o->allow_diff[k];
	return !res_fp_diff(a, b, ign, ni, NULL, NULL);
}

static int rep_gap(struct rep_cmp *c, char side, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rep_gap(struct rep_cmp *c, char side, const char *fmt, ...)
{
	struct rep_cmp_gap *v = realloc(c->gap, (c->ngap + 1) * sizeof(*v));
	if (!v)
		return -1;
	c->gap = v;
	struct rep_cmp_gap *g = &c->gap[c->ngap++];
	g->side = side;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(g->what, sizeof(g->what), fmt, ap);
	va_end(ap);
	return 0;
}

/* A run that is not complete, with the reason its last failed point gives. */
static int rep_gap_run(struct rep_cmp *c, char side, const struct res_rec *r)
{
	const char *why = "";
	unsigned users = 0;
	for (size_t i = r->npoints; i-- > 0 && !why[0];)
		if (r->points[i].failed && r->points[i].reason[0]) {
			why = r->points[i].reason;
			users = r->points[i].users;
		}
	if (!r->points && r->fail_reason && r->fail_reason[0]) {   /* read without its points */
		why = r->fail_reason;
		users = r->fail_users;
	}
	if (why[0])
		return rep_gap(c, side, "%s run %s: %s (at %u users: %s)", r->wl_name, r->id,
			       rep_run_state(r), users, why);
	return rep_gap(c, side, "%s run %s: %s", r->wl_name, r->id, rep_run_state(r));
}

/* "scheduler=bfq kernel=6.1": a group's --by values. */
static void rep_group_name(const struct rep_opts *o, const struct res_rec *r, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t k = 0; k < o->nby && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", k ? " " : "", o->by[k],
				      rep_key_value(r, o->by[k]));
}

/*
 * A side's complete runs into groups (workload, fingerprint, --by values).
 * A group that folds runs of different kernels or schedulers, keys --by and
 * --allow-diff leave alone, is refused: -1 with err.
 */
static int rep_group_side(const struct res_rec *r, size_t n, const struct rep_opts *o,
			  const char *side, struct rep_groups *out, char *err, size_t errlen)
{
	static const char *const mixed_keys[] = { "kernel", "scheduler" };
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	out->n = 0;
	if (!out->v)
		goto nomem;
	for (size_t i = 0; i < n; i++) {
		if (o->workload && strcmp(r[i].wl_name, o->workload))
			continue;
		if (!rep_run_complete(&r[i]))
			continue;
		size_t g;
		for (g = 0; g < out->n; g++) {
			const struct res_rec *f = out->v[g].fp;
			if (!strcmp(f->wl_name, r[i].wl_name) && rep_same_keys_of(o, f, &r[i]) &&
			    rep_cmp_same(o, f, &r[i]))
				break;
		}
		if (g == out->n) {
			out->v[g].fp = &r[i];
			if (!(out->v[g].run = calloc(n, sizeof(*out->v[g].run))))
				goto nomem;
			out->n++;
		}
		struct rep_group *gr = &out->v[g];
		for (size_t k = 0; k < 2; k++) {
			const char *key = mixed_keys[k];
			bool free_key = false;
			for (size_t j = 0; j < o->nby; j++)
				free_key = free_key || !strcmp(o->by[j], key);
			for (size_t j = 0; j < o->nallow; j++)
				free_key = free_key || !strcmp(o->allow_diff[j], key);
			const char *va = rep_key_value(gr->fp, key), *vb = rep_key_value(&r[i], key);
			if (!free_key && strcmp(va, vb)) {
				snprintf(err, errlen, "the %s's %s runs differ in %s (%s in %s, %s in %s): "
					 "give --by %s to compare each with its own, or --allow-diff "
					 "%s to fold them", side, r[i].wl_name, key, va, gr->fp->id, vb,
					 r[i].id, key, key);
				return -1;
			}
		}
		gr->run[gr->n++] = &r[i];
	}
	return 0;
nomem:
	snprintf(err, errlen, "compare: out of memory");
	return -1;
}

static void rep_groups_free(struct rep_groups *g)
{
	for (size_t i = 0; g->v && i < g->n; i++)
		free(g->v[i].run);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

/* Per run, the mean JPM at `users` (failed samples left out); the runs' noise beside. */
static int rep_side_at(const struct rep_group *s, unsigned users, struct rep_value *v)
{
	memset(v, 0, sizeof(*v));
	v->mean = v->amean = v->sd = v->gmean = v->gsd = v->noise = NAN;
	v->x = calloc(s->n ? s->n : 1, sizeof(*v->x));
	if (!v->x)
		return -1;
	double noise2 = 0;
	size_t nnoise = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct res_summary *sm = &s->run[i]->summary;
		double sum = 0, df;
		unsigned k = 0;
		for (size_t b = 0; b < sm->ncurve; b++) {
			const struct res_curve_pt *by = &sm->curve[b];
			if (by->users != users || by->failed || !by->samples)
				continue;
			for (unsigned q = 0; q < by->n; q++)
				if (isfinite(by->samples[q])) {
					sum += by->samples[q];
					k++;
				}
		}
		if (!k)
			continue;
		v->x[v->n++] = sum / k;
		v->reps += k;
		double nz = rep_run_noise(s->run[i], &df);
		if (isfinite(nz)) {
			noise2 += nz * nz;
			v->noise_df += df;
			nnoise++;
		}
	}
	v->noise = nnoise ? sqrt(noise2 / (double)nnoise) : NAN;
	rep_value_finish(v);
	return 0;
}

static bool rep_side_has(const struct rep_group *s, unsigned users)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t b = 0; b < s->run[i]->summary.ncurve; b++)
			if (s->run[i]->summary.curve[b].users == users && !s->run[i]->summary.curve[b].failed)
				return true;
	return false;
}

/* A side's geometric mean and spread factor (struct rep_cmp_row); NAN when not all positive. */
static void rep_cmp_centre(const struct rep_value *v, double *g, double *f)
{
	double s = 0, ss = 0;
	*g = *f = NAN;
	for (unsigned i = 0; i < v->n; i++) {
		if (!(v->x[i] > 0) || !isfinite(v->x[i]))
			return;
		s += log(v->x[i]);
	}
	if (!v->n)
		return;
	double m = s / v->n;
	*g = exp(m);
	for (unsigned i = 0; i < v->n; i++)
		ss += (log(v->x[i]) - m) * (log(v->x[i]) - m);
	if (v->n >= 2)
		*f = exp(sqrt(ss / (v->n - 1)));
}

static int rep_cmp_push(struct rep_cmp *c, size_t *cap, const struct rep_opts *o,
			const struct rep_group *ga, const char *metric, unsigned users,
			const struct rep_value *a, const struct rep_value *b)
{
	if (c->nrow == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		struct rep_cmp_row *v = realloc(c->row, nc * sizeof(*v));
		if (!v)
			return -1;
		c->row = v;
		*cap = nc;
	}
	if (!a->n && !b->n)
		return 0;   /* neither side has it: nothing to compare */
	struct rep_cmp_row *r = &c->row[c->nrow++];
	memset(r, 0, sizeof(*r));
	r->workload = ga->fp->wl_name;
	rep_group_name(o, ga->fp, r->group, sizeof(r->group));
	snprintf(r->metric, sizeof(r->metric), "%s", metric);
	r->users = users;
	r->na = a->n;
	r->nb = b->n;
	r->mean_a = a->amean;   /* compare's arithmetic mean (JSON base_mean) */
	r->mean_b = b->amean;
	r->sd_a = a->sd;
	r->sd_b = b->sd;
	rep_cmp_centre(a, &r->gmean_a, &r->gf_a);
	rep_cmp_centre(b, &r->gmean_b, &r->gf_b);
	rep_test_values(a, b, o->threshold, o->alpha, &r->t);
	return 0;
}

static int rep_cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* Each --metric of a group (ENTRY-less entry metrics once per entry of the baseline's runs). */
static int rep_compare_measures(const struct rep_group *a, const struct rep_group *b,
				const struct rep_opts *o, struct rep_cmp *c, size_t *cap)
{
	for (size_t i = 0; i < o->nmetric; i++) {
		const struct rep_metric *m = o->msel[i].m;   /* rep_opts_resolve: rep_compare's */
		const char *entry = o->msel[i].entry;
		const struct res_point *p0 = a->n && a->run[0]->npoints ? &a->run[0]->points[0] : NULL;
		size_t ne = m->src == REP_MS_ENTRY && !entry[0] ? (p0 ? p0->nkinds : 0) : 1;
		for (size_t e = 0; e < ne; e++) {
			struct rep_measure ms = { .m = m, .metric_ix = i };
			struct rep_value va, vb;
			snprintf(ms.entry, sizeof(ms.entry), "%s",
				 m->src == REP_MS_ENTRY && !entry[0] ? p0->kinds[e].name : entry);
			if (m->src == REP_MS_ENTRY)
				snprintf(ms.name, sizeof(ms.name), "%s.%s", ms.entry, m->name);
			else
				snprintf(ms.name, sizeof(ms.name), "%s", o->metric[i]);
			if (rep_fold_measure(a->run, a->n, false, false, &ms, &va))
				return -1;
			if (rep_fold_measure(b->run, b->n, false, false, &ms, &vb)) {
				rep_value_free(&va);
				return -1;
			}
			size_t before = c->nrow;
			int rc = rep_cmp_push(c, cap, o, a, ms.name, 0, &va, &vb);
			if (c->nrow > before)
				c->row[before].lower_better = !m->higher_better;
			rep_value_free(&va);
			rep_value_free(&vb);
			if (rc)
				return -1;
		}
	}
	return 0;
}

/* What else changed between groups a and b: into c->ev, ranked largest first. */
static int rep_compare_evidence(const struct rep_group *a, const struct rep_group *b,
				const struct rep_opts *o, struct rep_cmp *c)
{
	struct rep_evidence e;
	if (rep_evidence_between(a->run, a->n, b->run, b->n, o, &e))
		return -1;
	if (c->nevg == c->evgcap) {
		size_t nc = c->evgcap ? c->evgcap * 2 : 8;
		struct rep_cmp_evg *v = realloc(c->evg, nc * sizeof(*v));
		if (!v)
			return -1;
		c->evg = v;
		c->evgcap = nc;
	}
	if (c->nev + e.n > c->evcap) {
		size_t nc = c->evcap * 2 + e.n + 16;
		struct rep_cmp_ev *v = realloc(c->ev, nc * sizeof(*v));
		if (!v)
			return -1;
		c->ev = v;
		c->evcap = nc;
	}
	struct rep_cmp_evg *g = &c->evg[c->nevg];
	memset(g, 0, sizeof(*g));
	g->workload = a->fp->wl_name;
	rep_group_name(o, a->fp, g->group, sizeof(g->group));
	g->first = c->nev;
	g->n = e.n;
	g->looked = e.looked;
	g->tested = e.tested;
	for (size_t k = 0; k < e.n; k++) {
		c->ev[c->nev] = e.ev[k];
		c->ev[c->nev++].group = c->nevg;
	}
	c->nevg++;
	return 0;
}

/* Peak, quick convergence and JPM at each user count both groups measured. */
static int rep_compare_group(const struct rep_group *a, const struct rep_group *b,
			     const struct rep_opts *o, struct rep_cmp *c, size_t *cap)
{
	struct rep_value va, vb;
	int rc = 0;
	if (o->nmetric && !(o->nmetric == 1 && !strcmp(o->metric[0], "jpm")))
		return rep_compare_measures(a, b, o, c, cap);
	for (int qc = 0; qc < 2 && !rc; qc++) {
		if (rep_fold_runs(a->run, a->n, qc, o->qc_max, &va))
			return -1;
		if (rep_fold_runs(b->run, b->n, qc, o->qc_max, &vb)) {
			rep_value_free(&va);
			return -1;
		}
		if (rep_cmp_push(c, cap, o, a, qc ? "qc" : "peak", 0, &va, &vb))
			rc = -1;
		rep_value_free(&va);
		rep_value_free(&vb);
	}
	size_t nu = 0, capu = 0;
	for (size_t i = 0; i < a->n; i++)
		capu += a->run[i]->summary.ncurve;
	unsigned *users = calloc(capu ? capu : 1, sizeof(*users));
	if (!users)
		return -1;
	for (size_t i = 0; i < a->n; i++)
		for (size_t k = 0; k < a->run[i]->summary.ncurve; k++) {
			unsigned u = a->run[i]->summary.curve[k].users;
			bool seen = false;
			for (size_t j = 0; j < nu && !seen; j++)
				seen = users[j] == u;
			if (!seen && u && rep_side_has(a, u) && rep_side_has(b, u))
				users[nu++] = u;
		}
	qsort(users, nu, sizeof(*users), rep_cmp_unsigned);
	for (size_t j = 0; j < nu && !rc; j++) {
		char m[32];
		snprintf(m, sizeof(m), "jpm@%u", users[j]);
		memset(&va, 0, sizeof(va));
		memset(&vb, 0, sizeof(vb));
		if (rep_side_at(a, users[j], &va) || rep_side_at(b, users[j], &vb) ||
		    rep_cmp_push(c, cap, o, a, m, users[j], &va, &vb))
			rc = -1;
		rep_value_free(&va);
		rep_value_free(&vb);
	}
	free(users);
	return rc;
}

struct rep_diff_text {
	char *buf;
	size_t len, cap;
	const struct res_rec *a, *b;
};

static void rep_diff_text_add(const char *key, const char *va, const char *vb, void *ctx)
{
	struct rep_diff_text *d = ctx;
	if (d->len < d->cap && !rep_diff_follows(d->a, d->b, key))
		d->len += (size_t)snprintf(d->buf + d->len, d->cap - d->len, "%s%s %s vs %s",
					   d->len ? ", " : "", key, va, vb);
}

/*
 * A workload both sides measured, but never the same way: refused with
 * what differs between the first group of each side.
 */
static int rep_refuse_diff(const struct rep_opts *o, const struct rep_group *a,
			   const struct rep_group *b, char *err, size_t errlen)
{
	char what[768];
	struct rep_diff_text d = { what, 0, sizeof(what), a->fp, b->fp };
	const char *ign[REP_MAX_KEYS + REP_MAX_ALLOW];
	size_t ni = 0;
	for (size_t k = 0; k < o->nby; k++)
		ign[ni++] = o->by[k];
	for (size_t k = 0; k < o->nallow; k++)
		ign[ni++] = o->allow_diff[k];
	what[0] = 0;
	if (!res_fp_diff(a->fp, b->fp, ign, ni, rep_diff_text_add, &d))
		rep_group_name(o, a->fp, what, sizeof(what));   /* same measure, other --by values */
	snprintf(err, errlen, "%s: the baseline and the candidate measured it differently (%s): "
		 "not comparable; --allow-diff KEY,... compares them anyway", a->fp->wl_name, what);
	return -1;
}

/* Match the sides' groups; list what one side lacks; compare the pairs. */
static int rep_compare_groups(struct rep_groups *ga, struct rep_groups *gb,
			      const struct rep_opts *o, struct rep_cmp *c, char *err, size_t errlen)
{
	size_t cap = 0;
	char name[256];
	for (size_t i = 0; i < ga->n; i++) {
		struct rep_group *a = &ga->v[i];
		for (size_t j = 0; j < gb->n && !a->matched; j++) {
			struct rep_group *b = &gb->v[j];
			if (b->matched || strcmp(a->fp->wl_name, b->fp->wl_name) ||
			    !rep_same_keys_of(o, a->fp, b->fp) || !rep_cmp_same(o, a->fp, b->fp))
				continue;
			a->matched = b->matched = true;
			if (rep_compare_group(a, b, o, c, &cap) || rep_compare_evidence(a, b, o, c))
				goto nomem;
		}
	}
	/* a workload on both sides of which nothing matched: measured differently */
	for (size_t i = 0; i < ga->n; i++) {
		if (ga->v[i].matched)
			continue;
		bool wl_matched = false;
		const struct rep_group *other = NULL;
		for (size_t k = 0; k < ga->n; k++)
			wl_matched = wl_matched || (ga->v[k].matched &&
						    !strcmp(ga->v[k].fp->wl_name, ga->v[i].fp->wl_name));
		for (size_t j = 0; j < gb->n && !other; j++)
			if (!strcmp(gb->v[j].fp->wl_name, ga->v[i].fp->wl_name))
				other = &gb->v[j];
		if (other && !wl_matched && !rep_cmp_same(o, ga->v[i].fp, other->fp))
			return rep_refuse_diff(o, &ga->v[i], other, err, errlen);
	}
	for (int s = 0; s < 2; s++) {
		struct rep_groups *g = s ? gb : ga;
		for (size_t i = 0; i < g->n; i++) {
			if (g->v[i].matched)
				continue;
			rep_group_name(o, g->v[i].fp, name, sizeof(name));
			if (rep_gap(c, s ? 'b' : 'a', "%s%s%s%s (fingerprint %s, %zu run%s): only the %s "
				    "has it", g->v[i].fp->wl_name, name[0] ? " [" : "", name,
				    name[0] ? "]" : "", g->v[i].fp->fp_id, g->v[i].n,
				    g->v[i].n == 1 ? "" : "s", s ? "candidate" : "baseline"))
				goto nomem;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "compare: out of memory");
	return -1;
}

/* The geometric mean of each group's and metric's ratios over its workloads (not jpm@N). */
static int rep_cmp_gmean(struct rep_cmp *c)
{
	const struct rep_test **t = calloc(c->nrow + 1, sizeof(*t));
	bool *done = calloc(c->nrow + 1, sizeof(*done));
	c->gm = calloc(c->nrow + 1, sizeof(*c->gm));
	if (!t || !done || !c->gm) {
		free(t);
		free(done);
		return -1;
	}
	for (size_t i = 0; i < c->nrow; i++) {
		const struct rep_cmp_row *r = &c->row[i];
		if (done[i] || r->users || !isfinite(r->t.change))
			continue;
		size_t n = 0;
		for (size_t j = i; j < c->nrow; j++) {
			const struct rep_cmp_row *x = &c->row[j];
			if (!done[j] && !x->users && isfinite(x->t.change) &&
			    !strcmp(x->metric, r->metric) && !strcmp(x->group, r->group)) {
				done[j] = true;
				t[n++] = &x->t;
			}
		}
		if (n < 2)
			continue;
		struct rep_gmean *g = &c->gm[c->ngm++];
		snprintf(g->label, sizeof(g->label), "%s", r->group);
		snprintf(g->col, sizeof(g->col), "%s", r->metric);
		g->n = n;
		g->lower_better = r->lower_better;
		rep_gmean_ci(t, n, &g->ratio, &g->lo, &g->hi);
	}
	free(t);
	free(done);
	return 0;
}

int rep_compare(const struct res_rec *a, size_t na, const struct res_rec *b, size_t nb,
		const struct rep_opts *o_in, struct rep_cmp *out, char *err, size_t errlen)
{
	struct rep_opts o = *o_in;
	struct rep_groups ga = { 0 }, gb = { 0 };
	memset(out, 0, sizeof(*out));
	if (!(o.threshold > 0))
		o.threshold = REP_THRESHOLD_DEFAULT;
	if (!(o.alpha > 0))
		o.alpha = REP_ALPHA;
	if (rep_opts_resolve(&o, err, errlen))
		return -1;
	out->threshold = o.threshold;
	out->alpha = o.alpha;
	out->evidence_all = o.evidence;
	out->wide = o.wide;
	for (size_t k = 0; k < o.nby; k++)
		if (rep_check_keys(a, na, &o.by[k], 1, "--by", err, errlen) &&
		    rep_check_keys(b, nb, &o.by[k], 1, "--by", err, errlen))
			return -1;
	for (int s = 0; s < 2; s++) {
		const struct res_rec *r = s ? b : a;
		for (size_t i = 0, n = s ? nb : na; i < n; i++) {
			if (o.workload && strcmp(o.workload, r[i].wl_name))
				continue;
			if (!rep_run_complete(&r[i]) && rep_gap_run(out, s ? 'b' : 'a', &r[i]))
				goto nomem;
			out->remeasured[s] += r[i].summary.remeasured;
			out->interfered[s] += r[i].summary.interfered;
		}
	}
	if (rep_group_side(a, na, &o, "baseline", &ga, err, errlen) ||
	    rep_group_side(b, nb, &o, "candidate", &gb, err, errlen) ||
	    rep_compare_groups(&ga, &gb, &o, out, err, errlen))
		goto fail;
	struct rep_test **all = calloc(out->nrow ? out->nrow : 1, sizeof(*all));
	if (!all)
		goto nomem;
	bool *lower = calloc(out->nrow ? out->nrow : 1, sizeof(*lower));
	if (!lower) {
		free(all);
		goto nomem;
	}
	for (size_t i = 0; i < out->nrow; i++) {
		all[i] = &out->row[i].t;
		lower[i] = out->row[i].lower_better;
	}
	rep_holm_dir(all, lower, out->nrow, o.threshold, o.alpha);
	free(all);
	free(lower);
	if (rep_cmp_gmean(out))
		goto nomem;
	for (size_t i = 0; i < out->nrow; i++)
		out->count[out->row[i].t.mark]++;
	out->worse = out->count[REP_WORSE];
	out->better = out->count[REP_BETTER];
	rep_groups_free(&ga);
	rep_groups_free(&gb);
	return 0;
nomem:
	snprintf(err, errlen, "compare: out of memory");
fail:
	rep_groups_free(&ga);
	rep_groups_free(&gb);
	rep_cmp_free(out);
	return -1;
}

void rep_cmp_free(struct rep_cmp *c)
{
	free(c->ev);
	free(c->evg);
	free(c->gm);
	c->gm = NULL;
	c->ngm = 0;
	free(c->row);
	free(c->gap);
	memset(c, 0, sizeof(*c));
}

/* How compare names a verdict: WORSE stands out. */
static const char *rep_verdict_name(enum rep_mark m)
{
	return m == REP_WORSE ? "WORSE" : rep_mark_name(m);
}

/* fmt is one of this file's literals, with one double conversion. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void rep_fmt_num(char *buf, size_t len, double v, const char *fmt)
{
	if (isfinite(v))
		snprintf(buf, len, fmt, v);
	else
		snprintf(buf, len, "-");
}
#pragma GCC diagnostic pop

#define REP_CMP_COLS 8

/* One row's cells: metric, n, baseline, candidate, change [interval], p, p_adj, verdict. */
static void rep_cmp_cells(const struct rep_cmp_row *r, char (*cell)[REP_CELL])
{
	const struct rep_test *t = &r->t;
	snprintf(cell[0], REP_CELL, "%s", r->metric);
	snprintf(cell[1], REP_CELL, "%u/%u", r->na, r->nb);
	/*
	 * The centres the change is the ratio of: geometric mean ×/÷ the spread
	 * as a factor (mean ± sd when a value is not positive); 3 significant
	 * digits or more, JPM as integers, seconds and latencies not rounded away
	 */
	double g[2] = { r->gmean_a, r->gmean_b }, gf[2] = { r->gf_a, r->gf_b };
	double m[2] = { r->mean_a, r->mean_b }, sd[2] = { r->sd_a, r->sd_b };
	for (int k = 0; k < 2; k++) {
		char sm[32], ss[32];
		bool geo = isfinite(g[k]);
		rep_fmt_val(sm, sizeof(sm), geo ? g[k] : m[k]);
		if (geo && isfinite(gf[k]))
			snprintf(cell[2 + k], REP_CELL, gf[k] < 10 ? "%s ×/÷ %.3f" : "%s ×/÷ %.3g", sm,
				 gf[k]);
		else if (!geo && isfinite(m[k]) && isfinite(sd[k])) {
			rep_fmt_val(ss, sizeof(ss), sd[k]);
			snprintf(cell[2 + k], REP_CELL, "%s ± %s", sm, ss);
		} else
			snprintf(cell[2 + k], REP_CELL, "%s", sm);
	}
	if (t->rule) {
		char lo[24], hi[24];
		rep_pct_bound(lo, sizeof(lo), t->lo);
		rep_pct_bound(hi, sizeof(hi), t->hi);
		snprintf(cell[4], REP_CELL, "%+.1f%% [%s, %s]", t->change * 100, lo, hi);
	} else {
		rep_fmt_num(cell[4], REP_CELL, t->change * 100, "%+.1f%%");
	}
	rep_fmt_num(cell[5], REP_CELL, t->rule ? t->p : NAN, "%.3g");
	rep_fmt_num(cell[6], REP_CELL, t->rule ? t->p_adj : NAN, "%.3g");
	if (t->mark == REP_INCONCLUSIVE && t->need)
		snprintf(cell[7], REP_CELL, "inconclusive (~%u more %s a side)", t->need,
			 t->rule == 'p' ? (t->need == 1 ? "round" : "rounds") :
			 t->need == 1 ? "run" : "runs");
	else if (t->mark == REP_UNTESTED)
		snprintf(cell[7], REP_CELL, "untested (%s)", t->why ? t->why : "-");
	else
		snprintf(cell[7], REP_CELL, "%s", rep_verdict_name(t->mark));
}

static bool rep_same_group(const struct rep_cmp_row *a, const struct rep_cmp_row *b)
{
	return a->workload == b->workload && !strcmp(a->group, b->group);
}

/* The evidence group of rows [i, end) (one workload and group), or NULL. */
static const struct rep_cmp_evg *rep_cmp_evg_of(const struct rep_cmp *c, size_t i)
{
	for (size_t k = 0; k < c->nevg; k++)
		if (c->evg[k].workload == c->row[i].workload && !strcmp(c->evg[k].group,
									 c->row[i].group))
			return &c->evg[k];
	return NULL;
}

/* The width compare's text fits: REP_TEXT_COLS, 0 (no limit) with --wide. */
static size_t rep_cmp_width(const struct rep_cmp *c)
{
	return c->wide ? 0 : REP_TEXT_COLS;
}

/*
 * A note under a table: Markdown as it is after md_lead, text wrapped at
 * the width after lead (its later lines after cont).  text is not escaped.
 */
static void rep_cmp_note(FILE *f, const struct rep_cmp *c, bool md, const char *md_lead,
			 const char *lead, const char *cont, const char *text)
{
	if (md)
		fprintf(f, "%s%s\n", md_lead, text);
	else
		rep_wrap(f, text, rep_cmp_width(c), lead, cont);
}

/*
 * Under a group's table: what else changed, beside a worse or better
 * verdict (every group with --evidence).
 */
static void rep_cmp_ev_text(FILE *f, const struct rep_cmp *c, size_t i, size_t end, bool md)
{
	bool verdict = c->evidence_all;
	for (size_t j = i; j < end; j++)
		verdict = verdict || c->row[j].t.mark == REP_WORSE || c->row[j].t.mark == REP_BETTER;
	const struct rep_cmp_evg *g = rep_cmp_evg_of(c, i);
	if (!verdict || !g || !g->looked)
		return;
	char line[512];
	const char *lead = md ? "**What else changed**" : "what else changed";
	if (!g->tested)
		snprintf(line, sizeof(line), "%s: untested (%zu evidence metrics; a side with fewer "
			 "than 2 runs has no measured noise)", lead, g->looked);
	else if (!g->n)
		snprintf(line, sizeof(line), "%s: nothing beyond its noise (%zu evidence metrics, "
			 "%zu tested)", lead, g->looked, g->tested);
	else
		snprintf(line, sizeof(line), "%s (p < %g after Holm's correction over the %zu tested; "
			 "a change of at least %g%%, or 1 point), largest first:", lead, c->alpha,
			 g->tested, c->threshold * 100);
	rep_cmp_note(f, c, md, "\n", "  ", "    ", line);
	for (size_t k = g->first; g->tested && k < g->first + g->n; k++) {
		char w[256];
		rep_evidence_word(w, sizeof(w), &c->ev[k]);
		rep_cmp_note(f, c, md, "- ", "    ", "      ", w);
	}
}

/* Rows [i, end) (one workload and group) as a grid, the header its row 0. */
static int rep_cmp_grid(const struct rep_cmp *c, size_t i, size_t end, struct rep_grid *g)
{
	static const char *const head[REP_CMP_COLS] = { "Metric", "n", "Baseline", "Candidate",
							"Change [95% CI]", "p", "p (Holm)",
							"Verdict" };
	g->ncol = REP_CMP_COLS;
	g->nrow = end - i + 1;
	g->stub = 1;   /* the metric names each part of a folded table */
	g->group = 1;
	g->cell = calloc(g->ncol * g->nrow, REP_CELL);
	g->numeric = calloc(g->ncol, sizeof(bool));
	if (!g->cell || !g->numeric) {
		free(g->cell);
		free(g->numeric);
		return -1;
	}
	for (size_t k = 0; k < REP_CMP_COLS; k++) {
		snprintf(CELL(g, 0, k), REP_CELL, "%s", head[k]);
		g->numeric[k] = k >= 1 && k <= 6;
	}
	for (size_t j = i; j < end; j++)
		rep_cmp_cells(&c->row[j], &CELL(g, j - i + 1, 0));
	return 0;
}

/* The geometric means over the workloads, after the tables. */
static void rep_cmp_gmean_text(FILE *f, const struct rep_cmp *c, bool md)
{
	static const char title[] = "Geometric mean over the workloads (mmtests' Gmean of the "
				    "candidate/baseline ratios; 95% interval from each ratio's own):";
	if (md)
		fprintf(f, "### %s\n\n", title);
	else
		rep_wrap(f, title, rep_cmp_width(c), "", "  ");
	for (size_t i = 0; i < c->ngm; i++) {
		const struct rep_gmean *g = &c->gm[i];
		char ci[64] = "untested", line[512];
		if (isfinite(g->lo))
			snprintf(ci, sizeof(ci), "%+.1f%% to %+.1f%%", (g->lo - 1) * 100,
				 (g->hi - 1) * 100);
		snprintf(line, sizeof(line), "gmean %s over %zu workloads: ratio %.4f (%+.1f%%), 95%% "
			 "CI %s%s", g->col, g->n, g->ratio, (g->ratio - 1) * 100, ci,
			 g->lower_better ? " (lower is better)" : "");
		rep_cmp_note(f, c, md, "- ", "  ", "    ", line);
		if (!g->label[0])
			continue;
		if (md) {
			fputs("  - group ", f);
			esc_put(f, ESC_MD, g->label);
			fputc('\n', f);
			continue;
		}
		snprintf(line, sizeof(line), "group %s", g->label);
		rep_wrap(f, line, rep_cmp_width(c), "    ", "      ");
	}
	fputc('\n', f);
}

static int rep_cmp_text(FILE *f, const struct rep_cmp *c, bool md)
{
	for (size_t i = 0; i < c->nrow;) {
		size_t end = i;
		while (end < c->nrow && rep_same_group(&c->row[end], &c->row[i]))
			end++;
		const char *g = c->row[i].group;
		enum esc_fmt ek = md ? ESC_MD : ESC_TEXT;   /* recorded: escaped (escape.h) */
		fputs(md ? "### " : "", f);
		esc_put(f, ek, c->row[i].workload);
		if (g[0]) {
			fputs(" [", f);
			esc_put(f, ek, g);
			fputs("]", f);
		}
		fputs(md ? ": baseline against candidate\n\n" : ": baseline against candidate\n", f);
		struct rep_grid grid;
		if (rep_cmp_grid(c, i, end, &grid))
			return -1;
		int rc = rep_text_grid(f, &grid, md, rep_cmp_width(c));
		free(grid.cell);
		free(grid.numeric);
		if (rc)
			return -1;
		rep_cmp_ev_text(f, c, i, end, md);
		fputc('\n', f);
		i = end;
	}
	if (c->ngap) {
		fprintf(f, "%sMissing evidence (%zu):\n%s", md ? "### " : "", c->ngap, md ? "\n" : "");
		for (size_t i = 0; i < c->ngap; i++) {
			const char *side = c->gap[i].side == 'a' ? "baseline" : "candidate";
			char line[sizeof(c->gap[i].what) + 16];
			if (md) {
				fprintf(f, "- %s: ", side);
				esc_put(f, ESC_MD, c->gap[i].what);
				fputc('\n', f);
				continue;
			}
			snprintf(line, sizeof(line), "%s: %s", side, c->gap[i].what);
			rep_wrap(f, line, rep_cmp_width(c), "  ", "    ");
		}
		fputc('\n', f);
	}
	if (c->ngm)
		rep_cmp_gmean_text(f, c, md);
	char line[1024];
	snprintf(line, sizeof(line), "%zu metrics compared: %zu worse, %zu better, %zu same, %zu "
		 "inconclusive, %zu untested (worse/better: p < %g after Holm's correction and a "
		 "change of at least %g%%; same: the 95%% interval within ±%g%%; each side its "
		 "geometric mean ×/÷ its spread as a factor, the change their ratio)%s", c->nrow,
		 c->count[REP_WORSE], c->count[REP_BETTER], c->count[REP_SAME],
		 c->count[REP_INCONCLUSIVE], c->count[REP_UNTESTED], c->alpha, c->threshold * 100,
		 c->threshold * 100, c->ngap ? "; evidence is missing (above)." : ".");
	rep_cmp_note(f, c, md, "", "", "  ", line);
	if (c->remeasured[0] + c->remeasured[1] + c->interfered[0] + c->interfered[1]) {
		snprintf(line, sizeof(line), "Busy host: %u and %u samples (baseline, candidate) were "
			 "measured again because other work took more than their run's bound (the "
			 "figures use the re-measures); %u and %u points kept flagged, no clean "
			 "re-measure left.", c->remeasured[0], c->remeasured[1], c->interfered[0],
			 c->interfered[1]);
		rep_cmp_note(f, c, md, "", "", "  ", line);
	}
	return 0;
}

static json_t *rep_jn(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static void rep_cmp_csv(FILE *f, const struct rep_cmp *c)
{
	fputs("workload,group,metric,users,n_base,n_cand,base_mean,base_sd,cand_mean,cand_sd,"
	      "change_pct,ci_lo_pct,ci_hi_pct,rule,p,p_holm,verdict,need,untested\n", f);
	for (size_t i = 0; i < c->nrow; i++) {
		const struct rep_cmp_row *r = &c->row[i];
		const struct rep_test *t = &r->t;
		char v[10][32];
		rep_fmt_num(v[0], 32, r->mean_a, "%.6g");
		rep_fmt_num(v[1], 32, r->sd_a, "%.6g");
		rep_fmt_num(v[2], 32, r->mean_b, "%.6g");
		rep_fmt_num(v[3], 32, r->sd_b, "%.6g");
		rep_fmt_num(v[4], 32, t->change * 100, "%.4g");
		rep_fmt_num(v[5], 32, t->rule ? t->lo * 100 : NAN, "%.4g");
		rep_fmt_num(v[6], 32, t->rule ? t->hi * 100 : NAN, "%.4g");
		rep_fmt_num(v[7], 32, t->rule ? t->p : NAN, "%.4g");
		rep_fmt_num(v[8], 32, t->rule ? t->p_adj : NAN, "%.4g");
		rep_fmt_num(v[9], 32, t->need ? t->need : NAN, "%.0f");
		for (int k = 0; k < 10; k++)
			if (!strcmp(v[k], "-"))
				v[k][0] = 0;
		char users[16] = "", rule[2] = { t->rule, 0 };
		if (r->users)
			snprintf(users, sizeof(users), "%u", r->users);
		esc_put(f, ESC_CSV, r->workload);
		fputc(',', f);
		esc_put(f, ESC_CSV, r->group);
		fprintf(f, ",%s,%s,%u,%u,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n",
			r->metric, users, r->na, r->nb, v[0], v[1], v[2], v[3], v[4], v[5],
			v[6], rule, v[7], v[8], rep_mark_name(t->mark), v[9],
			t->rule || !t->why ? "" : t->why);
	}
	for (size_t i = 0; i < c->ngm; i++) {
		const struct rep_gmean *g = &c->gm[i];
		char v[3][32];
		rep_fmt_num(v[0], 32, (g->ratio - 1) * 100, "%.4g");
		rep_fmt_num(v[1], 32, (g->lo - 1) * 100, "%.4g");
		rep_fmt_num(v[2], 32, (g->hi - 1) * 100, "%.4g");
		for (int k = 0; k < 3; k++)
			if (!strcmp(v[k], "-"))
				v[k][0] = 0;
		fputs("gmean,", f);
		esc_put(f, ESC_CSV, g->label);
		fprintf(f, ",%s,,%zu,%zu,,,,,%s,%s,%s,,,,,,\n", g->col, g->n, g->n, v[0], v[1], v[2]);
	}
}

static int rep_cmp_json(FILE *f, const struct rep_cmp *c)
{
	json_t *doc = json_object(), *rows = json_array(), *gaps = json_array(), *cnt = json_object();
	json_object_set_new(doc, "threshold", json_real(c->threshold));
	json_object_set_new(doc, "alpha", json_real(c->alpha));
	json_object_set_new(doc, "worse", json_integer((json_int_t)c->worse));
	json_object_set_new(doc, "better", json_integer((json_int_t)c->better));
	for (int m = 0; m < 5; m++)
		json_object_set_new(cnt, rep_mark_name((enum rep_mark)m),
				    json_integer((json_int_t)c->count[m]));
	json_object_set_new(doc, "verdicts", cnt);
	json_object_set_new(doc, "rows", rows);
	json_object_set_new(doc, "missing", gaps);
	for (size_t i = 0; i < c->nrow; i++) {
		const struct rep_cmp_row *r = &c->row[i];
		const struct rep_test *t = &r->t;
		json_t *o = json_object();
		char rule[2] = { t->rule, 0 };
		json_object_set_new(o, "workload", json_string(r->workload));
		json_object_set_new(o, "group", json_string(r->group));
		json_object_set_new(o, "metric", json_string(r->metric));
		json_object_set_new(o, "users", r->users ? json_integer(r->users) : json_null());
		json_object_set_new(o, "n_base", json_integer(r->na));
		json_object_set_new(o, "n_cand", json_integer(r->nb));
		json_object_set_new(o, "base_mean", rep_jn(r->mean_a));
		json_object_set_new(o, "base_sd", rep_jn(r->sd_a));
		json_object_set_new(o, "cand_mean", rep_jn(r->mean_b));
		json_object_set_new(o, "cand_sd", rep_jn(r->sd_b));
		json_object_set_new(o, "base_gmean", rep_jn(r->gmean_a));
		json_object_set_new(o, "base_factor", rep_jn(r->gf_a));
		json_object_set_new(o, "cand_gmean", rep_jn(r->gmean_b));
		json_object_set_new(o, "cand_factor", rep_jn(r->gf_b));
		json_object_set_new(o, "change", rep_jn(t->change));
		json_object_set_new(o, "change_lo", t->rule ? rep_jn(t->lo) : json_null());
		json_object_set_new(o, "change_hi", t->rule ? rep_jn(t->hi) : json_null());
		json_object_set_new(o, "rule", t->rule ? json_string(rule) : json_null());
		json_object_set_new(o, "p", t->rule ? rep_jn(t->p) : json_null());
		json_object_set_new(o, "p_holm", t->rule ? rep_jn(t->p_adj) : json_null());
		json_object_set_new(o, "verdict", json_string(rep_mark_name(t->mark)));
		json_object_set_new(o, "need", t->need ? json_integer(t->need) : json_null());
		json_object_set_new(o, "untested", !t->rule && t->why ? json_string(t->why) :
				    json_null());
		json_array_append_new(rows, o);
	}
	json_t *gm = json_array();
	json_object_set_new(doc, "gmean", gm);
	for (size_t i = 0; gm && i < c->ngm; i++) {
		const struct rep_gmean *g = &c->gm[i];
		json_array_append_new(gm, json_pack("{s:s, s:s, s:i, s:o, s:o, s:o, s:b}", "group",
						    g->label, "metric", g->col, "workloads", (int)g->n,
						    "ratio", rep_jn(g->ratio), "lo", rep_jn(g->lo),
						    "hi", rep_jn(g->hi), "lower_better",
						    g->lower_better));
	}
	json_t *evs = json_array();
	json_object_set_new(doc, "evidence", evs);
	for (size_t i = 0; evs && i < c->nevg; i++) {
		const struct rep_cmp_evg *g = &c->evg[i];
		json_t *ch = json_array();
		for (size_t k = g->first; ch && k < g->first + g->n; k++) {
			const struct rep_cmp_ev *e = &c->ev[k];
			json_array_append_new(ch, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:b}",
							    "metric", e->metric, "unit", e->unit,
							    "base", rep_jn(e->base), "cand",
							    rep_jn(e->cand), "change", rep_jn(e->change),
							    "p", rep_jn(e->p), "points", e->points));
		}
		json_array_append_new(evs, json_pack("{s:s, s:s, s:i, s:i, s:o}", "workload",
						     g->workload, "group", g->group, "looked",
						     (int)g->looked, "tested", (int)g->tested,
						     "changed", ch));
	}
	for (size_t i = 0; i < c->ngap; i++)
		json_array_append_new(gaps, json_pack("{s:s, s:s}", "side",
						      c->gap[i].side == 'a' ? "baseline" : "candidate",
						      "what", c->gap[i].what));
	/* ASCII only: no C1 control reaches a terminal raw (escape.h) */
	int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(doc);
	return rc ? -1 : 0;
}

int rep_cmp_render(FILE *f, const struct rep_cmp *c, enum rep_format fmt)
{
	if (fmt == REP_TEXT || fmt == REP_MD) {
		if (rep_cmp_text(f, c, fmt == REP_MD))
			return -1;
	} else if (fmt == REP_CSV)
		rep_cmp_csv(f, c);
	else if (fmt == REP_JSON) {
		if (rep_cmp_json(f, c))
			return -1;
	} else {
		return -1;
	}
	return ferror(f) ? -1 : 0;
}
