// SPDX-License-Identifier: GPL-2.0-only
/*
 * Nightly history (history.h): report's grouping, each row's runs put in
 * run order, their Peak Load and Quick Convergence series, the change
 * points in each, and the state of the newest segment.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jobmix/escape.h"
#include "jobmix/exitcode.h"
#include "jobmix/history.h"
#include "internal.h"

static const char *const hist_default_by[] = { "hostname", "scheduler" };

/* ---- run order -------------------------------------------------------------- */

struct hist_sort {
	const struct res_rec *runs;
	const char *key;               /* NULL: start time */
};

/* A value as a number when the whole of it is one. */
static bool as_number(const char *s, double *v)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	*v = strtod(s, &end);
	return !*end && !errno;
}

static int hist_cmp(const void *pa, const void *pb, void *arg)
{
	const struct hist_sort *c = arg;
	const struct res_rec *a = &c->runs[*(const size_t *)pa], *b = &c->runs[*(const size_t *)pb];
	if (c->key) {
		const char *va = res_rec_get(a, c->key), *vb = res_rec_get(b, c->key);
		double na, nb;
		if (!va != !vb)
			return va ? -1 : 1;    /* runs without the label last */
		if (va && as_number(va, &na) && as_number(vb, &nb) && na != nb)
			return na < nb ? -1 : 1;
		int d = va ? strcmp(va, vb) : 0;
		if (d)
			return d;
	}
	int d = strcmp(a->started, b->started);
	return d ? d : strcmp(a->id, b->id);
}

/* ---- one series ------------------------------------------------------------- */

/* The newest value against the rest of its segment, on the log scale. */
static double newest_z(const double *x, size_t lo, size_t n)
{
	size_t m = n - 1 - lo;     /* the segment's other values */
	if (n < 1 || m < 3)
		return NAN;
	double s = 0, ss = 0;
	for (size_t i = lo; i + 1 < n; i++)
		s += log(x[i]);
	double mean = s / (double)m;
	for (size_t i = lo; i + 1 < n; i++)
		ss += (log(x[i]) - mean) * (log(x[i]) - mean);
	double sd = sqrt(ss / (double)(m - 1));
	return sd > 0 ? (log(x[n - 1]) - mean) / sd : NAN;
}

/* A run's value in series s: its Peak Load, Quick Convergence or measure. */
static bool hist_value(const struct hist_report *h, const struct hist_series *s,
		       const struct res_rec *r, double *v)
{
	unsigned u;
	bool ne;
	if (s->measure != SIZE_MAX)
		return rep_run_measure(r, &h->rep.measure[s->measure], v, &u);
	return rep_run_metric(r, s->qc, h->opts.rep.qc_max, v, &u, &ne);
}

/* Is a higher value better in series s? */
static bool hist_higher(const struct hist_report *h, const struct hist_series *s)
{
	return s->measure == SIZE_MAX || h->rep.measure[s->measure].m->higher_better;
}

/* The run's block key: its order value ("" when it has none). */
static const char *hist_block_key(const struct hist_report *h, size_t run)
{
	if (!h->opts.order)
		return h->runs[run].id;
	const char *v = res_rec_get(&h->runs[run], h->opts.order);
	return v ? v : "";
}

/* Blocks: runs of one order value, one block each (no order: every run its own). */
static int hist_blocks(const struct hist_report *h, struct hist_series *s)
{
	s->bstart = malloc(sizeof(*s->bstart) * (s->n + 1));
	if (!s->bstart)
		return -1;
	s->nb = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!i || !h->opts.order ||
		    strcmp(hist_block_key(h, s->run[i]), hist_block_key(h, s->run[i - 1])))
			s->bstart[s->nb++] = i;
	s->bstart[s->nb] = s->n;
	return 0;
}

/* The env keys a change point's cause looks at, by what they are. */
static const char *const hist_env_keys[] = { "kernel", "fs_type", "mount_options", "scheduler" };

static size_t hist_env_add(char *buf, size_t len, size_t n, const char *k, const char *a,
			   const char *b)
{
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s -> %s", n ? ", " : "", k,
				      a ? a : "(none)", b ? b : "(none)");
	return n;
}

/* A setting of run r ("" when it has none). */
static const char *hist_setting(const struct res_rec *r, const char *key)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, key))
			return r->settings[i].value;
	return NULL;
}

static bool hist_same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The mean of an evidence figure over runs [lo, hi) of s; NAN when none has it. */
static double hist_ev_mean(const struct hist_report *h, const struct hist_series *s,
			   const char *name, size_t lo, size_t hi)
{
	double sum = 0, v;
	size_t k = 0;
	for (size_t i = lo; i < hi; i++)
		if (rep_run_evidence(&h->runs[s->run[i]], name, &v)) {
			sum += v;
			k++;
		}
	return k ? sum / (double)k : NAN;
}

static const char *const hist_interference[] = { "machine.other_pct", "machine.steal_pct",
						  "psi.cpu.some", "psi.io.some", "machine.load1" };

/*
 * What else changed at change point p (see hist_cause): the env of the
 * last run before it against the first after it, and the interference of
 * the segments either side.
 */
static void hist_classify(const struct hist_report *h, const struct hist_series *s,
			  const struct cp_point *p, struct hist_cause *c)
{
	const struct res_rec *a = &h->runs[s->run[p->at - 1]], *b = &h->runs[s->run[p->at]];
	size_t n = 0;
	bool kernel = false;
	memset(c, 0, sizeof(*c));
	for (size_t k = 0; k < sizeof(hist_env_keys) / sizeof(hist_env_keys[0]); k++) {
		const char *va = res_rec_get(a, hist_env_keys[k]), *vb = res_rec_get(b, hist_env_keys[k]);
		if (hist_same(va, vb))
			continue;
		kernel = kernel || !k;
		n = hist_env_add(c->env, sizeof(c->env), n, hist_env_keys[k], va, vb);
	}
	for (size_t i = 0; i < b->nsettings; i++) {
		const char *va = hist_setting(a, b->settings[i].key);
		if (!hist_same(va, b->settings[i].value))
			n = hist_env_add(c->env, sizeof(c->env), n, b->settings[i].key, va,
					 b->settings[i].value);
	}
	for (size_t i = 0; i < a->nsettings; i++)
		if (!hist_setting(b, a->settings[i].key))
			n = hist_env_add(c->env, sizeof(c->env), n, a->settings[i].key,
					 a->settings[i].value, NULL);
	n = 0;
	for (size_t k = 0; k < sizeof(hist_interference) / sizeof(hist_interference[0]); k++) {
		double x = hist_ev_mean(h, s, hist_interference[k], p->seg_lo, p->at);
		double y = hist_ev_mean(h, s, hist_interference[k], p->at, p->seg_hi);
		if (isfinite(x) && isfinite(y) && n < sizeof(c->machine))
			n += (size_t)snprintf(c->machine + n, sizeof(c->machine) - n, "%s%s %.3g -> %.3g",
					      n ? ", " : "", hist_interference[k], x, y);
	}
	/* the CPU left to the run: what other work (steal counted in) did not take */
	double oa = hist_ev_mean(h, s, "machine.other_pct", p->seg_lo, p->at);
	double ob = hist_ev_mean(h, s, "machine.other_pct", p->at, p->seg_hi);
	c->avail = isfinite(oa) && isfinite(ob) && oa < 100 && ob < 100 ?
		   (100 - ob) / (100 - oa) - 1 : NAN;
	double ch = p->change * (hist_higher(h, s) ? 1 : -1);
	/*
	 * Or the run's wait for a CPU: other work took at least 10 points more
	 * (or less) and the run's CPU pressure (psi.cpu.some) moved 25 points
	 * the same way.  A fork-heavy mix loses far more than the CPU share
	 * other work takes (a slower build, ASan, measures a smaller share).
	 */
	double pa = hist_ev_mean(h, s, "psi.cpu.some", p->seg_lo, p->at);
	double pb = hist_ev_mean(h, s, "psi.cpu.some", p->at, p->seg_hi);
	bool waited = isfinite(c->avail) && isfinite(pa) && isfinite(pb) &&
		      fabs(ob - oa) >= 10 && fabs(pb - pa) >= 25 && (pb - pa) * (ob - oa) > 0;
	if (c->env[0])
		c->cls = kernel ? HIST_KERNEL : HIST_SETTING;
	else if (isfinite(c->avail) && fabs(ob - oa) >= 1 && c->avail * ch > 0 &&
		 (waited || fabs(log1p(c->avail)) >= 0.5 * fabs(log1p(p->change))))
		c->cls = HIST_HOST;
	else
		c->cls = HIST_UNEXPLAINED;
}

/* Detect and classify the change points of the first nb blocks of s. */
static int hist_detect(const struct hist_report *h, struct hist_series *s, size_t nb,
		       struct cp_point **cp, size_t *ncp, struct hist_cause **cause)
{
	size_t n = s->bstart[nb];
	*cause = NULL;
	int rc = h->opts.order ? cp_detect_blocks(s->x, n, s->bstart, nb, &h->opts.cp, cp, ncp) :
				 cp_detect(s->x, n, &h->opts.cp, cp, ncp);
	if (rc)
		return -1;
	*cause = calloc(*ncp ? *ncp : 1, sizeof(**cause));
	if (!*cause)
		return -1;
	for (size_t c = 0; c < *ncp; c++)
		hist_classify(h, s, &(*cp)[c], &(*cause)[c]);
	return 0;
}

/* The state of the newest change that is not the host's: *judged its index, SIZE_MAX none. */
static enum hist_state hist_judge(const struct hist_report *h, const struct hist_series *s,
				  const struct cp_point *cp, const struct hist_cause *cause,
				  size_t ncp, size_t *judged)
{
	*judged = SIZE_MAX;
	for (size_t c = ncp; c-- > 0;) {
		if (cause[c].cls == HIST_HOST)
			continue;
		*judged = c;
		double ch = cp[c].change * (hist_higher(h, s) ? 1 : -1);
		return ch <= -h->opts.rep.threshold ? HIST_REGRESSION :
		       ch >= h->opts.rep.threshold ? HIST_IMPROVEMENT : HIST_FLAT;
	}
	return HIST_FLAT;
}

/* The geometric mean of x[lo, hi). */
static double hist_gm(const double *x, size_t lo, size_t hi)
{
	double g = 0;
	for (size_t i = lo; i < hi; i++)
		g += log(x[i]);
	return exp(g / (double)(hi - lo));
}

/* How many earlier nights hist_known looks back through for a regression. */
#define HIST_KNOWN_BACK 8

/*
 * Was the series' regression known with only its first nb blocks: a
 * regression then, and the newest segment's level not below that one's by
 * the threshold.  1 known, 0 not, -1 out of memory.
 */
static int hist_known_at(const struct hist_report *h, struct hist_series *s, size_t nb)
{
	struct cp_point *cp = NULL;
	struct hist_cause *cause = NULL;
	size_t ncp = 0, judged;
	int known = 0;
	if (hist_detect(h, s, nb, &cp, &ncp, &cause)) {
		free(cp);
		free(cause);
		return -1;
	}
	if (hist_judge(h, s, cp, cause, ncp, &judged) == HIST_REGRESSION) {
		double was = hist_gm(s->x, cp[judged].at, s->bstart[nb]);
		double now = hist_gm(s->x, s->cp[s->judged].at, s->n);
		double deeper = (now / was - 1) * (hist_higher(h, s) ? 1 : -1);
		known = deeper > -h->opts.rep.threshold;
	}
	free(cp);
	free(cause);
	return known;
}

/*
 * Alert once: a regression the series had without its newest block, as
 * deep, is known; so is one it had a few blocks before and lost since (a
 * change one block showed, its next block's test too short to find again),
 * back to the block its change point is at.
 */
static int hist_known(const struct hist_report *h, struct hist_series *s)
{
	if (s->state != HIST_REGRESSION || s->nb < 2)
		return 0;
	size_t at = s->cp[s->judged].at;
	for (size_t nb = s->nb - 1, k = 0; nb > 0 && s->bstart[nb] > at && k < HIST_KNOWN_BACK;
	     nb--, k++) {
		int known = hist_known_at(h, s, nb);
		if (known < 0)
			return -1;
		if (known) {
			s->known = true;
			break;
		}
	}
	return 0;
}

/* Is run r before the accepted block (hist_opts.accept) in the series' order? */
static bool hist_before_accept(const struct hist_report *h, size_t r)
{
	const char *v = h->opts.order && h->opts.accept ? res_rec_get(&h->runs[r], h->opts.order) : NULL;
	double a, b;
	if (!v)
		return false;
	if (as_number(v, &a) && as_number(h->opts.accept, &b))
		return a < b;
	return strcmp(v, h->opts.accept) < 0;
}

static int hist_series_make(struct hist_report *h, size_t t, size_t rw, bool qc, size_t measure,
			    const size_t *order, size_t norder, struct hist_series *s)
{
	memset(s, 0, sizeof(*s));
	s->table = t;
	s->row = rw;
	s->qc = qc;
	s->measure = measure;
	s->newest_left = SIZE_MAX;
	s->newest_z = NAN;
	s->judged = SIZE_MAX;
	s->run = malloc(sizeof(*s->run) * (norder ? norder : 1));
	s->x = malloc(sizeof(*s->x) * (norder ? norder : 1));
	if (!s->run || !s->x)
		return -1;
	for (size_t i = 0; i < norder; i++) {
		const struct res_rec *r = &h->runs[order[i]];
		double v;
		if (hist_before_accept(h, order[i])) {
			s->naccepted++;
			continue;
		}
		if (r->summary.interfered) {
			s->nflagged++;   /* other work is in its figures: not evidence */
			continue;
		}
		if (!rep_run_complete(r) || !hist_value(h, s, r, &v) || !(v > 0) || !isfinite(v)) {
			s->nleft++;
			if (i + 1 == norder)
				s->newest_left = order[i];
			continue;
		}
		s->run[s->n] = order[i];
		s->x[s->n++] = v;
	}
	if (hist_blocks(h, s))
		return -1;
	if (s->n && hist_detect(h, s, s->nb, &s->cp, &s->ncp, &s->cause))
		return -1;
	s->state = hist_judge(h, s, s->cp, s->cause, s->ncp, &s->judged);
	if (hist_known(h, s))
		return -1;
	s->newest_z = s->n ? newest_z(s->x, s->ncp ? s->cp[s->ncp - 1].at : 0, s->n) : NAN;
	return 0;
}

/*
 * Did peer series o move with a change of `change` at its block b: a change
 * point there of that sign, or its level over the blocks from b (to its
 * next change point) apart from the level before (from its last one) by
 * half the change or more, that way.  A peer whose own test has too few
 * blocks since b to find it yet still moved with it.
 */
static bool hist_peer_moved(const struct hist_series *o, size_t b, double change)
{
	size_t at = o->bstart[b], lo = 0, hi = o->n;
	for (size_t d = 0; d < o->ncp; d++) {
		if (o->cp[d].at == at && o->cp[d].change * change > 0)
			return true;
		if (o->cp[d].at < at && o->cp[d].at > lo)
			lo = o->cp[d].at;
		if (o->cp[d].at > at && o->cp[d].at < hi)
			hi = o->cp[d].at;
	}
	double moved = log(hist_gm(o->x, at, hi) / hist_gm(o->x, lo, at));
	double want = log1p(change);
	return moved * want > 0 && fabs(moved) >= fabs(want) / 2;
}

/*
 * Across hosts (rows of one table: --by hostname): a change on one host
 * only, at a block others ran without one, is that host's; one on every
 * host at the same block, the change's (kernel, setting) for all.
 */
static void hist_fleet(struct hist_report *h)
{
	for (size_t i = 0; i < h->ns; i++) {
		struct hist_series *s = &h->s[i];
		for (size_t c = 0; c < s->ncp; c++) {
			const char *at = hist_block_key(h, s->run[s->cp[c].at]);
			size_t peers = 0, with = 0;
			for (size_t j = 0; j < h->ns; j++) {
				const struct hist_series *o = &h->s[j];
				if (j == i || o->table != s->table || o->qc != s->qc ||
				    o->measure != s->measure || !h->opts.order)
					continue;
				size_t b = SIZE_MAX;
				for (size_t k = 1; k < o->nb && b == SIZE_MAX; k++)
					if (!strcmp(hist_block_key(h, o->run[o->bstart[k]]), at))
						b = k;
				if (b == SIZE_MAX)
					continue;   /* did not run that block, or only began there */
				peers++;
				with += hist_peer_moved(o, b, s->cp[c].change);
			}
			struct hist_cause *u = &s->cause[c];
			if (!peers)
				continue;
			if (with == peers) {
				snprintf(u->fleet, sizeof(u->fleet), "on every host (%zu)", peers + 1);
			} else if (!with) {
				snprintf(u->fleet, sizeof(u->fleet),
					 "this host only: %zu other host%s ran %s %s without it", peers,
					 peers == 1 ? "" : "s", h->opts.order, at);
				u->cls = HIST_HOST;
			} else {
				snprintf(u->fleet, sizeof(u->fleet), "on %zu of %zu hosts", with + 1,
					 peers + 1);
			}
		}
		s->state = hist_judge(h, s, s->cp, s->cause, s->ncp, &s->judged);
		if (s->state != HIST_REGRESSION)
			s->known = false;
	}
	/* alert once across the fleet: a host's regression at a block another host's is known at */
	for (size_t i = 0; i < h->ns; i++) {
		struct hist_series *s = &h->s[i];
		if (s->state != HIST_REGRESSION || s->known)
			continue;
		const char *at = hist_block_key(h, s->run[s->cp[s->judged].at]);
		for (size_t j = 0; j < h->ns && !s->known; j++) {
			const struct hist_series *o = &h->s[j];
			s->known = j != i && o->table == s->table && o->qc == s->qc &&
				   o->measure == s->measure && o->state == HIST_REGRESSION && o->known &&
				   !strcmp(hist_block_key(h, o->run[o->cp[o->judged].at]), at);
		}
	}
}

/* Does any run of the row have the series' figure? */
static bool row_has(const struct hist_report *h, const struct rep_row *row, bool qc,
		    size_t measure)
{
	struct hist_series s = { .qc = qc, .measure = measure };
	for (size_t i = 0; i < row->nrun; i++) {
		double v;
		if (hist_value(h, &s, &h->runs[row->run[i]], &v))
			return true;
	}
	return false;
}

int hist_build(const struct res_rec *runs, size_t nruns, const struct hist_opts *o,
	       struct hist_report *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->opts = *o;
	out->runs = runs;
	out->nruns = nruns;
	if (!out->opts.rep.nby) {
		for (size_t k = 0; k < 2; k++)
			out->opts.rep.by[k] = hist_default_by[k];
		out->opts.rep.nby = 2;
	}
	if (!(out->opts.rep.threshold > 0))
		out->opts.rep.threshold = REP_THRESHOLD_DEFAULT;
	if (rep_build(runs, nruns, &out->opts.rep, &out->rep, err, errlen))
		return -1;
	size_t cap = 0, nm = out->rep.pivot ? out->rep.nmeasure : 0;
	for (size_t t = 0; t < out->rep.ntable; t++)
		cap += (2 + nm) * out->rep.table[t].nrow;
	out->s = calloc(cap ? cap : 1, sizeof(*out->s));
	if (!out->s)
		goto oom;
	struct hist_sort ctx = { runs, o->order };
	for (size_t t = 0; t < out->rep.ntable; t++) {
		const struct rep_table *tb = &out->rep.table[t];
		for (size_t rw = 0; rw < tb->nrow; rw++) {
			const struct rep_row *row = &tb->row[rw];
			size_t *ord = malloc(sizeof(*ord) * (row->nrun ? row->nrun : 1));
			if (!ord)
				goto oom;
			memcpy(ord, row->run, sizeof(*ord) * row->nrun);
			qsort_r(ord, row->nrun, sizeof(*ord), hist_cmp, &ctx);
			/* --metric: a series per measure (jpm: Peak Load and Quick Convergence) */
			for (size_t m = 0; m < (nm ? nm : 1); m++) {
				bool jpm = !nm || out->rep.measure[m].m->src == REP_MS_JPM;
				for (int qc = 0; qc < (jpm ? 2 : 1); qc++) {
					size_t ms = jpm ? SIZE_MAX : m;
					if ((qc || !jpm) && !row_has(out, row, qc, ms))
						continue;
					if (hist_series_make(out, t, rw, qc, ms, ord, row->nrun,
							     &out->s[out->ns++])) {
						free(ord);
						goto oom;
					}
				}
			}
			free(ord);
		}
	}
	if (out->opts.order && out->opts.rep.nby && !strcmp(out->opts.rep.by[0], "hostname"))
		hist_fleet(out);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	hist_free(out);
	return -1;
}

void hist_free(struct hist_report *h)
{
	for (size_t i = 0; h->s && i < h->ns; i++) {
		free(h->s[i].run);
		free(h->s[i].x);
		free(h->s[i].cp);
		free(h->s[i].cause);
		free(h->s[i].bstart);
	}
	free(h->s);
	rep_free(&h->rep);
	memset(h, 0, sizeof(*h));
}

int hist_exit_code(const struct hist_report *h)
{
	bool missing = false;
	for (size_t i = 0; i < h->ns; i++) {
		if (h->s[i].state == HIST_REGRESSION && (!h->s[i].known || h->opts.sticky))
			return JM_EXIT_REGRESSION;
		missing = missing || h->s[i].newest_left != SIZE_MAX || !h->s[i].n;
	}
	return missing ? JM_EXIT_INCOMPLETE : JM_EXIT_OK;
}

/* ---- rendering ---------------------------------------------------------------- */

static const char *hist_state_name(enum hist_state s)
{
	return s == HIST_REGRESSION ? "regression" : s == HIST_IMPROVEMENT ? "improvement" : "flat";
}

static const char *hist_class_name(enum hist_class c)
{
	return c == HIST_KERNEL ? "kernel" : c == HIST_SETTING ? "setting" :
	       c == HIST_HOST ? "host" : "unexplained";
}

/* A change point's cause in words: "setting (add_long.scale 1 -> 1.2)". */
static void cause_text(const struct hist_cause *c, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s", hist_class_name(c->cls));
	if (c->env[0] && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (%s)", c->env);
	else if (c->cls == HIST_HOST && isfinite(c->avail) && n < len)
		n += (size_t)snprintf(buf + n, len - n, " (the CPU other work left the run %+.1f%%)",
				      c->avail * 100);
	if (c->fleet[0] && n < len)
		snprintf(buf + n, len - n, "; %s", c->fleet);
}

/* The series' metric as a title ("Peak Load JPM", "elapsed (s)") into buf. */
static const char *metric_name(const struct hist_report *h, const struct hist_series *s,
			       char *buf, size_t len)
{
	if (s->measure == SIZE_MAX)
		return s->qc ? "Quick Convergence JPM" : "Peak Load JPM";
	const struct rep_measure *m = &h->rep.measure[s->measure];
	snprintf(buf, len, "%s (%s, %s is better)", m->name, m->m->unit,
		 m->m->higher_better ? "higher" : "lower");
	return buf;
}

/* The series' key in csv and json: peak, qc, or the measure's name. */
static const char *metric_key(const struct hist_report *h, const struct hist_series *s)
{
	return s->measure == SIZE_MAX ? (s->qc ? "qc" : "peak") : h->rep.measure[s->measure].name;
}

/* A value of the series with its unit ("4323 JPM", "2.31 s") into buf. */
static const char *hist_fmt(const struct hist_report *h, const struct hist_series *s, double v,
			    bool unit, char *buf, size_t len)
{
	if (s->measure == SIZE_MAX)
		snprintf(buf, len, unit ? "%.0f JPM" : "%.0f", v);
	else
		snprintf(buf, len, unit ? "%.4g %s" : "%.4g", v, h->rep.measure[s->measure].m->unit);
	return buf;
}

/*
 * The group's label, "fserver [hostname vm1, scheduler none]", its
 * recorded strings escaped for fmt (ESC_TEXT or ESC_MD; a CSV field is
 * escaped whole by its writer: ESC_LINES leaves it as recorded but for
 * controls).
 */
static void group_label(const struct hist_report *h, const struct hist_series *s,
			enum esc_fmt fmt, char *buf, size_t len)
{
	const struct rep_table *tb = &h->rep.table[s->table];
	const struct rep_row *row = &tb->row[s->row];
	char e1[512], e2[512];
	size_t n = (size_t)snprintf(buf, len, "%s [", esc_str(e1, sizeof(e1), fmt, tb->workload));
	for (size_t k = 0; k < h->rep.opts.nby && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s %s", k ? ", " : "",
				      esc_str(e1, sizeof(e1), fmt, h->rep.opts.by[k]),
				      esc_str(e2, sizeof(e2), fmt, row->key[k]));
	if (n < len && tb->differs[0])
		n += (size_t)snprintf(buf + n, len - n, "; %s",
				      esc_str(e1, sizeof(e1), fmt, tb->differs));
	if (n < len)
		snprintf(buf + n, len - n, "]");
}

/* The run's place in the order: its label (with --order) and its id, escaped for fmt. */
static void run_name(const struct hist_report *h, size_t run, enum esc_fmt fmt, char *buf,
		     size_t len)
{
	const struct res_rec *r = &h->runs[run];
	const char *v = h->opts.order ? res_rec_get(r, h->opts.order) : NULL;
	char e1[256], e2[512], e3[256];
	if (v)
		snprintf(buf, len, "%s %s (%s)", esc_str(e1, sizeof(e1), fmt, h->opts.order),
			 esc_str(e2, sizeof(e2), fmt, v), esc_str(e3, sizeof(e3), fmt, r->id));
	else
		snprintf(buf, len, "%s", esc_str(e3, sizeof(e3), fmt, r->id));
}

/*
 * One line of the text output, wrapped at REP_TEXT_COLS (--wide: not)
 * after lead, its later lines after cont.
 */
static void hist_say(FILE *f, const struct hist_report *h, const char *lead, const char *cont,
		     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void hist_say(FILE *f, const struct hist_report *h, const char *lead, const char *cont,
		     const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	rep_wrap(f, line, h->opts.rep.wide ? 0 : REP_TEXT_COLS, lead, cont);
}

static void render_text_series(FILE *f, const struct hist_report *h, const struct hist_series *s)
{
	char g[1400], a[512], b[512], pc[32], lo[32], hi[32], mn[256], v1[64], v2[64];
	group_label(h, s, ESC_TEXT, g, sizeof(g));
	char left[160] = "", part[96] = "";
	if (s->nleft)
		snprintf(part, sizeof(part), "%zu left out: not complete or no figure", s->nleft);
	if (s->nflagged)
		snprintf(left, sizeof(left), " (%s%s%zu left out: points flagged, other work over the "
			 "run's bound)", part, s->nleft ? "; " : "", s->nflagged);
	else if (s->nleft)
		snprintf(left, sizeof(left), " (%s)", part);
	hist_say(f, h, "", "  ", "%s: %s, %zu run%s in order of %s%s", g,
		 metric_name(h, s, mn, sizeof(mn)), s->n, s->n == 1 ? "" : "s",
		 h->opts.order ? h->opts.order : "start time", left);
	if (!s->n) {
		hist_say(f, h, "  ", "    ", s->nflagged ? "no complete run with this figure and no "
			 "flagged point" : "no complete run with this figure");
		return;
	}
	size_t from = 0;
	for (size_t c = 0; c <= s->ncp; c++) {
		size_t to = c < s->ncp ? s->cp[c].at : s->n;
		double gm = 0;
		for (size_t i = from; i < to; i++)
			gm += log(s->x[i]);
		gm = exp(gm / (double)(to - from));
		run_name(h, s->run[from], ESC_TEXT, a, sizeof(a));
		run_name(h, s->run[to - 1], ESC_TEXT, b, sizeof(b));
		hist_say(f, h, "  ", "    ", "runs %zu-%zu: %s (geometric mean of %zu), %s .. %s", from + 1, to,
			hist_fmt(h, s, gm, true, v1, sizeof(v1)), to - from, a, b);
		if (c < s->ncp) {
			const struct cp_point *p = &s->cp[c];
			rep_pct(pc, sizeof(pc), p->change);
			rep_pct_bound(lo, sizeof(lo), p->lo);
			rep_pct_bound(hi, sizeof(hi), p->hi);
			run_name(h, s->run[p->at], ESC_TEXT, a, sizeof(a));
			hist_say(f, h, "  ", "    ", "change at run %zu (%s): %s -> %s, %s%% [%s%%, %s%%], p %.2g",
				p->at + 1, a, hist_fmt(h, s, p->before, false, v1, sizeof(v1)),
				hist_fmt(h, s, p->after, false, v2, sizeof(v2)), pc, lo, hi, p->p);
			char cz[1400];
			cause_text(&s->cause[c], cz, sizeof(cz));
			hist_say(f, h, "    ", "      ", "cause: %s", cz);
			if (s->cause[c].machine[0])
				hist_say(f, h, "    ", "      ", "machine: %s", s->cause[c].machine);
		}
		from = to;
	}
	run_name(h, s->run[s->n - 1], ESC_TEXT, a, sizeof(a));
	if (isfinite(s->newest_z))
		hist_say(f, h, "  ", "    ", "newest: %s at %s, %+.1f sd from the rest of its segment", a,
			hist_fmt(h, s, s->x[s->n - 1], true, v1, sizeof(v1)), s->newest_z);
	if (s->newest_left != SIZE_MAX) {
		run_name(h, s->newest_left, ESC_TEXT, b, sizeof(b));
		hist_say(f, h, "  ", "    ", "the newest run, %s, is %s: missing evidence", b,
			rep_run_state(&h->runs[s->newest_left]));
	}
	if (s->naccepted)
		hist_say(f, h, "  ", "    ", "%zu run%s before the accepted baseline %s %s left out",
			 s->naccepted, s->naccepted == 1 ? "" : "s", h->opts.order, h->opts.accept);
	if (s->judged != SIZE_MAX) {
		const struct cp_point *p = &s->cp[s->judged];
		rep_pct(pc, sizeof(pc), p->change);
		run_name(h, s->run[p->at], ESC_TEXT, a, sizeof(a));
		hist_say(f, h, "  ", "    ", "newest segment: %s%s (%s%% since %s)", s->known ? "known " : "",
			hist_state_name(s->state), pc, a);
	} else if (s->ncp) {
		hist_say(f, h, "  ", "    ", "newest segment: flat (every change point the host's)");
	} else {
		hist_say(f, h, "  ", "    ", "newest segment: flat (no change point in %zu runs)", s->n);
	}
}

/* md and csv: one line per change point, and one per series without any. */
static void render_rows(FILE *f, const struct hist_report *h, bool md)
{
	char g[1400], a[512], pc[32], lo[32], hi[32], mn[256], v1[64], v2[64];
	if (md)
		fprintf(f, "| series | metric | runs | change at | before | after | change | 95%% CI | p | newest segment |\n"
			   "|---|---|---:|---|---:|---:|---:|---|---:|---|\n");
	else
		fprintf(f, "series,metric,runs,change_at,before,after,change,ci_lo,ci_hi,p,newest_segment\n");
	for (size_t i = 0; i < h->ns; i++) {
		const struct hist_series *s = &h->s[i];
		group_label(h, s, md ? ESC_MD : ESC_LINES, g, sizeof(g));
		for (size_t c = 0; c < (s->ncp ? s->ncp : 1); c++) {
			const struct cp_point *p = s->ncp ? &s->cp[c] : NULL;
			if (p)
				run_name(h, s->run[p->at], md ? ESC_MD : ESC_LINES, a, sizeof(a));
			if (md) {
				fprintf(f, "| %s | %s | %zu | ", g, metric_name(h, s, mn, sizeof(mn)), s->n);
				if (p) {
					rep_pct(pc, sizeof(pc), p->change);
					rep_pct_bound(lo, sizeof(lo), p->lo);
					rep_pct_bound(hi, sizeof(hi), p->hi);
					fprintf(f, "%s | %s | %s | %s%% | [%s%%, %s%%] | %.2g | %s |\n", a,
						hist_fmt(h, s, p->before, false, v1, sizeof(v1)),
						hist_fmt(h, s, p->after, false, v2, sizeof(v2)), pc, lo,
						hi, p->p,
						c + 1 == s->ncp ? hist_state_name(s->state) : "");
				} else {
					fprintf(f, " |  |  |  |  |  | flat |\n");
				}
				continue;
			}
			esc_put(f, ESC_CSV, g);
			fputc(',', f);
			esc_put(f, ESC_CSV, metric_key(h, s));
			fprintf(f, ",%zu,", s->n);
			if (p) {
				esc_put(f, ESC_CSV, a);
				fprintf(f, ",%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s\n", p->before, p->after,
					p->change, p->lo, p->hi, p->p,
					c + 1 == s->ncp ? hist_state_name(s->state) : "");
			} else {
				fprintf(f, ",,,,,,,flat\n");
			}
		}
	}
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *v)
{
	return v ? res_json_str(v) : json_null();   /* bytes that are not UTF-8 escaped */
}

static json_t *series_json(const struct hist_report *h, const struct hist_series *s)
{
	const struct rep_table *tb = &h->rep.table[s->table];
	const struct rep_row *row = &tb->row[s->row];
	json_t *group = json_object(), *runs = json_array(), *cps = json_array();
	for (size_t k = 0; k < h->rep.opts.nby; k++)
		json_object_set_new(group, h->rep.opts.by[k], jstr(row->key[k]));
	for (size_t j = 0; j < s->n; j++) {
		const struct res_rec *r = &h->runs[s->run[j]];
		json_array_append_new(runs, json_pack("{s:o, s:o, s:o, s:o}", "id", jstr(r->id),
						      "started", jstr(r->started), "order",
						      jstr(h->opts.order ? res_rec_get(r, h->opts.order)
								 : NULL),
						      "value", jnum(s->x[j])));
	}
	for (size_t c = 0; c < s->ncp; c++) {
		const struct cp_point *p = &s->cp[c];
		const struct hist_cause *u = &s->cause[c];
		json_array_append_new(cps, json_pack("{s:I, s:o, s:o, s:o, s:o, s:[o, o], s:o, s:{s:s, s:s, s:s, s:s, s:o}}",
						     "at", (json_int_t)p->at, "run",
						     jstr(h->runs[s->run[p->at]].id), "before",
						     jnum(p->before), "after", jnum(p->after), "change",
						     jnum(p->change), "ci95", jnum(p->lo), jnum(p->hi),
						     "p", jnum(p->p), "cause", "class",
						     hist_class_name(u->cls), "env", u->env, "machine",
						     u->machine, "fleet", u->fleet, "cpu_left_change",
						     jnum(u->avail)));
	}
	return json_pack("{s:o, s:o, s:o, s:s, s:I, s:I, s:s, s:b, s:o, s:o, s:o, s:o}", "workload",
			 jstr(tb->workload), "fingerprint", jstr(tb->fp ? tb->fp->fp_id : NULL),
			 "group", group, "metric", metric_key(h, s), "left_out",
			 (json_int_t)s->nleft, "flagged_out", (json_int_t)s->nflagged, "state", hist_state_name(s->state), "known",
			 s->known, "newest_z",
			 jnum(s->newest_z), "newest_missing",
			 jstr(s->newest_left != SIZE_MAX ? h->runs[s->newest_left].id : NULL),
			 "runs", runs, "change_points", cps);
}

static int render_json(FILE *f, const struct hist_report *h)
{
	json_t *all = json_array();
	for (size_t i = 0; all && i < h->ns; i++)
		if (json_array_append_new(all, series_json(h, &h->s[i])))
			all = (json_decref(all), NULL);
	json_t *doc = all ? json_pack("{s:o, s:f, s:o}", "order", jstr(h->opts.order), "threshold",
				      h->opts.rep.threshold, "series", all) : NULL;
	int rc = doc && !json_dumpf(doc, f, JSON_INDENT(1) | JSON_ENSURE_ASCII) && fputc('\n', f) != EOF
		 ? 0 : -1;
	json_decref(doc);
	return rc;
}

int hist_render(FILE *f, const struct hist_report *h, enum rep_format fmt)
{
	switch (fmt) {
	case REP_JSON:
		if (render_json(f, h))
			return -1;
		break;
	case REP_MD:
	case REP_CSV:
		render_rows(f, h, fmt == REP_MD);
		break;
	default:
		for (size_t i = 0; i < h->ns; i++) {
			if (i)
				fputc('\n', f);
			render_text_series(f, h, &h->s[i]);
		}
		if (!h->ns)
			fprintf(f, "no series\n");
		char vd[2048];
		hist_verdict(h, vd, sizeof(vd));
		fputc('\n', f);
		hist_say(f, h, "", "  ", "verdict: %s", vd);
		fputc('\n', f);
		hist_say(f, h, "", "  ", "change points: Welch t on log JPM over windows of %u runs a side "
			   "(at least %u), p < %.2g after Bonferroni over the windows; a newest "
			   "segment beginning with a fall of %.0f%% or more (a rise, where lower is better) is a regression",
			h->opts.cp.window ? h->opts.cp.window : CP_WINDOW_DEFAULT,
			h->opts.cp.min_seg ? h->opts.cp.min_seg : CP_MIN_SEG_DEFAULT,
			h->opts.cp.alpha > 0 ? h->opts.cp.alpha : CP_ALPHA_DEFAULT,
			h->opts.rep.threshold * 100);
		break;
	}
	return ferror(f) ? -1 : 0;
}

/* "cpu Peak Load -18.2% [-24, -12] since night 5 (setting: add_long.scale 1 -> 1.2)" */
static void verdict_change(const struct hist_report *h, const struct hist_series *s, size_t c,
			   char *buf, size_t len)
{
	const struct cp_point *p = &s->cp[c];
	char pc[32], lo[32], hi[32], mn[256], cz[1400], g[1400];
	rep_pct(pc, sizeof(pc), p->change);
	rep_pct_bound(lo, sizeof(lo), p->lo);
	rep_pct_bound(hi, sizeof(hi), p->hi);
	cause_text(&s->cause[c], cz, sizeof(cz));
	group_label(h, s, ESC_TEXT, g, sizeof(g));
	snprintf(buf, len, "%s %s %s%% [%s, %s] since %s %s (%s)", g,
		 metric_name(h, s, mn, sizeof(mn)), pc, lo, hi,
		 h->opts.order ? h->opts.order : "run", hist_block_key(h, s->run[p->at]), cz);
}

void hist_verdict(const struct hist_report *h, char *buf, size_t len)
{
	const struct hist_series *known = NULL, *host = NULL, *missing = NULL;
	char w[4096];
	for (size_t i = 0; i < h->ns; i++) {
		const struct hist_series *s = &h->s[i];
		if (s->state == HIST_REGRESSION && (!s->known || h->opts.sticky)) {
			verdict_change(h, s, s->judged, w, sizeof(w));
			snprintf(buf, len, "%sREGRESSION in %s", s->known ? "known " : "", w);
			return;
		}
		if (s->state == HIST_REGRESSION && !known)
			known = s;
		/* the host's change into or out of one of the newest two blocks */
		if (s->ncp && s->cause[s->ncp - 1].cls == HIST_HOST && !host &&
		    s->cp[s->ncp - 1].at >= s->bstart[s->nb > 1 ? s->nb - 2 : 0])
			host = s;
		if ((s->newest_left != SIZE_MAX || !s->n) && !missing)
			missing = s;
	}
	if (known) {
		verdict_change(h, known, known->judged, w, sizeof(w));
		snprintf(buf, len, "known regression since %s %s, in %s",
			 h->opts.order ? h->opts.order : "run",
			 hist_block_key(h, known->run[known->cp[known->judged].at]), w);
	} else if (missing) {
		char g[1400];
		group_label(h, missing, ESC_TEXT, g, sizeof(g));
		snprintf(buf, len, "evidence missing: the newest run of %s is not complete", g);
	} else if (host) {
		verdict_change(h, host, host->ncp - 1, w, sizeof(w));
		snprintf(buf, len, "host change, not a regression: %s", w);
	} else {
		snprintf(buf, len, "no regression in %zu series", h->ns);
	}
}
