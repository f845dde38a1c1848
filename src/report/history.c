// SPDX-License-Identifier: GPL-2.0-only
/*
 * Nightly history (history.h): report's grouping, each row's runs put in
 * run order, their Peak Load and Quick Convergence series, the change
 * points in each, and the state of the newest segment.
 */
#include <errno.h>
#include <math.h>
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
	s->run = malloc(sizeof(*s->run) * (norder ? norder : 1));
	s->x = malloc(sizeof(*s->x) * (norder ? norder : 1));
	if (!s->run || !s->x)
		return -1;
	for (size_t i = 0; i < norder; i++) {
		const struct res_rec *r = &h->runs[order[i]];
		double v;
		if (!rep_run_complete(r) || !hist_value(h, s, r, &v) || !(v > 0) || !isfinite(v)) {
			s->nleft++;
			if (i + 1 == norder)
				s->newest_left = order[i];
			continue;
		}
		s->run[s->n] = order[i];
		s->x[s->n++] = v;
	}
	if (s->n && cp_detect(s->x, s->n, &h->opts.cp, &s->cp, &s->ncp))
		return -1;
	double thr = h->opts.rep.threshold;
	if (s->ncp) {
		/* a fall, or for a lower-is-better metric a rise */
		double ch = s->cp[s->ncp - 1].change * (hist_higher(h, s) ? 1 : -1);
		if (ch <= -thr)
			s->state = HIST_REGRESSION;
		else if (ch >= thr)
			s->state = HIST_IMPROVEMENT;
	}
	s->newest_z = s->n ? newest_z(s->x, s->ncp ? s->cp[s->ncp - 1].at : 0, s->n) : NAN;
	return 0;
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
	}
	free(h->s);
	rep_free(&h->rep);
	memset(h, 0, sizeof(*h));
}

int hist_exit_code(const struct hist_report *h)
{
	bool missing = false;
	for (size_t i = 0; i < h->ns; i++) {
		if (h->s[i].state == HIST_REGRESSION)
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

static void render_text_series(FILE *f, const struct hist_report *h, const struct hist_series *s)
{
	char g[1400], a[512], b[512], pc[32], lo[32], hi[32], mn[256], v1[64], v2[64];
	group_label(h, s, ESC_TEXT, g, sizeof(g));
	fprintf(f, "%s: %s, %zu run%s in order of %s", g, metric_name(h, s, mn, sizeof(mn)), s->n,
		s->n == 1 ? "" : "s", h->opts.order ? h->opts.order : "start time");
	if (s->nleft)
		fprintf(f, " (%zu left out: not complete or no figure)", s->nleft);
	fputc('\n', f);
	if (!s->n) {
		fprintf(f, "  no complete run with this figure\n");
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
		fprintf(f, "  runs %zu-%zu: %s (geometric mean of %zu), %s .. %s\n", from + 1, to,
			hist_fmt(h, s, gm, true, v1, sizeof(v1)), to - from, a, b);
		if (c < s->ncp) {
			const struct cp_point *p = &s->cp[c];
			rep_pct(pc, sizeof(pc), p->change);
			rep_pct_bound(lo, sizeof(lo), p->lo);
			rep_pct_bound(hi, sizeof(hi), p->hi);
			run_name(h, s->run[p->at], ESC_TEXT, a, sizeof(a));
			fprintf(f, "  change at run %zu (%s): %s -> %s, %s%% [%s%%, %s%%], p %.2g\n",
				p->at + 1, a, hist_fmt(h, s, p->before, false, v1, sizeof(v1)),
				hist_fmt(h, s, p->after, false, v2, sizeof(v2)), pc, lo, hi, p->p);
		}
		from = to;
	}
	run_name(h, s->run[s->n - 1], ESC_TEXT, a, sizeof(a));
	if (isfinite(s->newest_z))
		fprintf(f, "  newest: %s at %s, %+.1f sd from the rest of its segment\n", a,
			hist_fmt(h, s, s->x[s->n - 1], true, v1, sizeof(v1)), s->newest_z);
	if (s->newest_left != SIZE_MAX) {
		run_name(h, s->newest_left, ESC_TEXT, b, sizeof(b));
		fprintf(f, "  the newest run, %s, is %s: missing evidence\n", b,
			rep_run_state(&h->runs[s->newest_left]));
	}
	if (s->ncp) {
		const struct cp_point *p = &s->cp[s->ncp - 1];
		rep_pct(pc, sizeof(pc), p->change);
		run_name(h, s->run[p->at], ESC_TEXT, a, sizeof(a));
		fprintf(f, "  newest segment: %s (%s%% since %s)\n", hist_state_name(s->state), pc, a);
	} else {
		fprintf(f, "  newest segment: flat (no change point in %zu runs)\n", s->n);
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
		json_array_append_new(cps, json_pack("{s:I, s:o, s:o, s:o, s:o, s:[o, o], s:o}",
						     "at", (json_int_t)p->at, "run",
						     jstr(h->runs[s->run[p->at]].id), "before",
						     jnum(p->before), "after", jnum(p->after), "change",
						     jnum(p->change), "ci95", jnum(p->lo), jnum(p->hi),
						     "p", jnum(p->p)));
	}
	return json_pack("{s:o, s:o, s:o, s:s, s:I, s:s, s:o, s:o, s:o, s:o}", "workload",
			 jstr(tb->workload), "fingerprint", jstr(tb->fp ? tb->fp->fp_id : NULL),
			 "group", group, "metric", metric_key(h, s), "left_out",
			 (json_int_t)s->nleft, "state", hist_state_name(s->state), "newest_z",
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
		fprintf(f, "\nchange points: Welch t on log JPM over windows of %u runs a side "
			   "(at least %u), p < %.2g after Bonferroni over the windows; a newest "
			   "segment beginning with a fall of %.0f%% or more (a rise, where lower is better) is a regression\n",
			h->opts.cp.window ? h->opts.cp.window : CP_WINDOW_DEFAULT,
			h->opts.cp.min_seg ? h->opts.cp.min_seg : CP_MIN_SEG_DEFAULT,
			h->opts.cp.alpha > 0 ? h->opts.cp.alpha : CP_ALPHA_DEFAULT,
			h->opts.rep.threshold * 100);
		break;
	}
	return ferror(f) ? -1 : 0;
}
