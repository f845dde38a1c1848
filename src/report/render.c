// SPDX-License-Identifier: GPL-2.0-only
/*
 * The comparison tables written out: aligned text (the reference layout),
 * Markdown, CSV, JSON and one self-contained HTML file.  Text, Markdown and
 * HTML share one grid of cells; CSV and JSON carry the numbers as numbers.
 * A missing value is "-" (empty in CSV, null in JSON), never 0.  Every
 * recorded string is escaped for its format (escape.h; HTML here).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jobmix/escape.h"
#include "jobmix/report.h"
#include "internal.h"


/* Pretty header of a grouping key. */
static const char *rep_key_title(const char *key)
{
	if (!strcmp(key, "kernel"))
		return "Kernel Version";
	if (!strcmp(key, "scheduler"))
		return "IO Scheduler";
	return key;
}

/* Was the metric compared with a reference at all (a reference row is not)? */
static bool rep_compared(const struct rep_test *t)
{
	return t->rule || t->why;
}

/* A mark as the Mark column shows it: "****" worse, "++++" better, else the verdict's name. */
static const char *rep_mark_text(enum rep_mark m)
{
	return m == REP_WORSE ? REP_MARK_WORSE : m == REP_BETTER ? REP_MARK_BETTER : rep_mark_name(m);
}

/*
 * The row's mark: worse if either metric is worse, else better if either is
 * better, else inconclusive, else same, else untested; "" for a row that
 * was compared with nothing (a reference).
 */
static const char *rep_row_mark_text(const struct rep_row *row, enum rep_mark *out)
{
	const struct rep_test *t[2] = { &row->tpeak, &row->tqc };
	static const enum rep_mark order[] = { REP_WORSE, REP_BETTER, REP_INCONCLUSIVE, REP_SAME,
					       REP_UNTESTED };
	*out = REP_UNTESTED;
	if (!rep_compared(t[0]) && !rep_compared(t[1]))
		return "";
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (int i = 0; i < 2; i++)
			if (rep_compared(t[i]) && t[i]->mark == order[k]) {
				*out = order[k];
				return rep_mark_text(order[k]);
			}
	return "";
}

/* A pivoted row's mark: its worst cell's, as rep_row_mark_text orders them. */
static const char *rep_pivot_row_mark(const struct rep_table *t, size_t j, enum rep_mark *out)
{
	static const enum rep_mark order[] = { REP_WORSE, REP_BETTER, REP_INCONCLUSIVE, REP_SAME,
					       REP_UNTESTED };
	const struct rep_pivot *pv = t->pv;
	*out = REP_UNTESTED;
	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (size_t c = 0; c < pv->ncol; c++) {
			const struct rep_cell *cl = &pv->cell[j * pv->ncol + c];
			if (cl->compared && cl->t.mark == order[k]) {
				*out = order[k];
				return rep_mark_text(order[k]);
			}
		}
	return "";
}

/*
 * The one centre and the spread about it (table.c's rep_value_finish):
 * "9165 ×/÷ 2.318" about a geometric mean, "-3.2 ± 1.1" about an
 * arithmetic one, the centre alone for one value; whole: JPM as integers.
 */
static void rep_fmt_centre(const struct rep_value *v, bool whole, char *buf, size_t len)
{
	char m[32], sd[32];
	if (!v->n) {
		snprintf(buf, len, "-");
		return;
	}
	if (whole)
		snprintf(m, sizeof(m), "%.0f", v->mean);
	else
		rep_fmt_val(m, sizeof(m), v->mean);
	if (isfinite(v->gmean) && isfinite(v->gsd))
		snprintf(buf, len, v->gsd < 10 ? "%s ×/÷ %.3f" : "%s ×/÷ %.3g", m, v->gsd);
	else if (!isfinite(v->gmean) && v->n >= 2 && isfinite(v->sd)) {
		if (whole)
			snprintf(sd, sizeof(sd), "%.0f", v->sd);
		else
			rep_fmt_val(sd, sizeof(sd), v->sd);
		snprintf(buf, len, "%s ± %s", m, sd);
	} else
		snprintf(buf, len, "%s", m);
}

static void rep_fmt_value(const struct rep_value *v, bool peak, char *buf, size_t len)
{
	rep_fmt_centre(v, true, buf, len);
	if (v->n && peak && v->not_established && strlen(buf) + 1 < len)
		strcat(buf, "?");
}

static void rep_fmt_users(const struct rep_value *v, char *buf, size_t len)
{
	if (!v->n || !v->users_lo)
		snprintf(buf, len, "-");
	else if (v->users_lo == v->users_hi)
		snprintf(buf, len, "%u", v->users_lo);
	else
		snprintf(buf, len, "%u-%u", v->users_lo, v->users_hi);
}

/* "-16.5% [-20.1, -12.7]": the change and its 95% interval; the change alone when untested. */
static void rep_fmt_change(const struct rep_test *t, char *buf, size_t len)
{
	if (!rep_compared(t) || !isfinite(t->change))
		buf[0] = 0;
	else if (t->rule && isfinite(t->lo) && isfinite(t->hi)) {
		char lo[24], hi[24];
		rep_pct_bound(lo, sizeof(lo), t->lo);
		rep_pct_bound(hi, sizeof(hi), t->hi);
		snprintf(buf, len, "%+.1f%% [%s, %s]", t->change * 100, lo, hi);
	}
	else
		snprintf(buf, len, "%+.1f%%", t->change * 100);
}

/* What a test rests on, in words: "Welch's t = -4.10, df 3.2" and so on. */
static void rep_fmt_rule(const struct rep_test *t, char *buf, size_t len)
{
	switch (t->rule) {
	case 'p':
		snprintf(buf, len, "%u rounds paired, confidence sequence, t = %.2f, df %.0f",
			 t->pairs, t->stat, t->df);
		break;
	case 't':
		snprintf(buf, len, "Welch's t = %.2f, df %.1f", t->stat, t->df);
		break;
	case 'o':
		snprintf(buf, len, "the other side's spread, t = %.2f, df %.0f", t->stat, t->df);
		break;
	case 'z':
		snprintf(buf, len, "the runs' measured noise %.1f%%, t = %.2f, df %.0f",
			 t->sd_log * 100, t->stat, t->df);
		break;
	default:
		snprintf(buf, len, "untested (%s)", t->why ? t->why : "-");
	}
}

/* The verdict with its evidence: "inconclusive (about 6 more runs a side would decide it)". */
static void rep_fmt_verdict(const struct rep_test *t, char *buf, size_t len)
{
	if (t->mark == REP_INCONCLUSIVE && t->need)
		snprintf(buf, len, "inconclusive (about %u more %s a side would decide it)", t->need,
			 t->rule == 'p' ? (t->need == 1 ? "round" : "rounds") :
			 t->need == 1 ? "run" : "runs");
	else if (t->mark == REP_INCONCLUSIVE)
		snprintf(buf, len, "inconclusive (the noise swamps the threshold)");
	else if (t->mark == REP_UNTESTED)
		snprintf(buf, len, "untested (%s)", t->why ? t->why : "-");
	else
		snprintf(buf, len, "%s", rep_mark_name(t->mark));
}

/* ---- the grid ----------------------------------------------------------- */

#define REP_DEV_COLS 7

/* The device columns of a row: name, IOPS, MB/s, KiB/req, merged %, util %, queue depth. */
static void rep_fmt_dev(const struct rep_dev *d, char (*cell)[REP_CELL], size_t len)
{
	snprintf(cell[0], len, "%s", d->device[0] ? d->device : "-");
	const double v[] = { d->iops, d->mb_s, d->req_kib, 100 * d->merge_ratio, 100 * d->util,
			     d->qdepth };
	static const int prec[] = { 0, 2, 1, 0, 0, 2 };
	for (size_t i = 0; i < 6; i++) {
		if (isfinite(v[i]))
			snprintf(cell[1 + i], len, "%.*f%s", prec[i], v[i], i == 3 || i == 4 ? "%" : "");
		else
			snprintf(cell[1 + i], len, "-");
	}
}

static int rep_pivot_grid(const struct rep_report *rep, const struct rep_table *t,
			  struct rep_grid *g);

static int rep_grid_make(const struct rep_report *rep, const struct rep_table *t,
			 struct rep_grid *g)
{
	if (t->pv)
		return rep_pivot_grid(rep, t, g);
	size_t nk = rep->opts.nby, nd = rep->opts.device_stats ? REP_DEV_COLS : 0;
	g->ncol = nk + 9 + nd;
	g->stub = nk + 1;   /* the keys and the Run ID name each part of a folded table */
	g->group = 1;
	g->nrow = t->nrow + 1;
	g->cell = calloc(g->ncol * g->nrow, REP_CELL);
	g->numeric = calloc(g->ncol, sizeof(bool));
	if (!g->cell || !g->numeric) {
		free(g->cell);
		free(g->numeric);
		return -1;
	}
	static const char *const tail[] = { "Run ID", "n", "Peak Load", "Users", "Quick Convergence",
					    "Users", "Peak %", "QC %", "Mark" };
	static const bool tail_num[] = { false, true, true, true, true, true, true, true, false };
	for (size_t k = 0; k < nk; k++)
		snprintf(CELL(g, 0, k), REP_CELL, "%s", rep_key_title(rep->opts.by[k]));
	for (size_t c = 0; c < 9; c++) {
		snprintf(CELL(g, 0, nk + c), REP_CELL, "%s", tail[c]);
		g->numeric[nk + c] = tail_num[c];
	}
	static const char *const dev_title[REP_DEV_COLS] = { "Device", "IOPS", "MB/s", "KiB/req",
							     "Merged", "Util", "QD" };
	for (size_t c = 0; c < nd; c++) {
		snprintf(CELL(g, 0, nk + 9 + c), REP_CELL, "%s", dev_title[c]);
		g->numeric[nk + 9 + c] = c > 0;
	}
	for (size_t j = 0; j < t->nrow; j++) {
		const struct rep_row *row = &t->row[j], *prev = j ? &t->row[j - 1] : NULL;
		size_t r = j + 1;
		/* an outer key is printed once for its group */
		bool same = prev != NULL;
		for (size_t k = 0; k < nk; k++) {
			same = same && k + 1 < nk && !strcmp(prev->key[k], row->key[k]);
			snprintf(CELL(g, r, k), REP_CELL, "%s", same ? "" : row->key[k]);
		}
		if (row->status[0])
			snprintf(CELL(g, r, nk), REP_CELL, "%s (%s)", row->id, row->status);
		else
			snprintf(CELL(g, r, nk), REP_CELL, "%s", row->id);
		snprintf(CELL(g, r, nk + 1), REP_CELL, "%zu", row->nrun);
		rep_fmt_value(&row->peak, true, CELL(g, r, nk + 2), REP_CELL);
		rep_fmt_users(&row->peak, CELL(g, r, nk + 3), REP_CELL);
		rep_fmt_value(&row->qc, false, CELL(g, r, nk + 4), REP_CELL);
		rep_fmt_users(&row->qc, CELL(g, r, nk + 5), REP_CELL);
		rep_fmt_change(&row->tpeak, CELL(g, r, nk + 6), REP_CELL);
		rep_fmt_change(&row->tqc, CELL(g, r, nk + 7), REP_CELL);
		enum rep_mark m;
		snprintf(CELL(g, r, nk + 8), REP_CELL, "%s", rep_row_mark_text(row, &m));
		if (nd)
			rep_fmt_dev(&row->dev, &CELL(g, r, nk + 9), REP_CELL);
	}
	return 0;
}

void rep_fmt_val(char *buf, size_t len, double v)
{
	double a = fabs(v);
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 100 || a == 0)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 10)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/* A pivot's cell: "841 ×/÷ 1.014 (n 2)", "2.31", "-": the one centre, and n per cell. */
static void rep_fmt_cell(const struct rep_value *v, char *buf, size_t len)
{
	rep_fmt_centre(v, false, buf, len);
	if (v->n >= 2 && strlen(buf) + 8 < len)
		snprintf(buf + strlen(buf), len - strlen(buf), " (n %u)", v->n);
}

/* A cell's change and mark: "+12.1% ++++", "-0.4% same"; "" for a reference or nothing compared. */
static void rep_fmt_cell_mark(const struct rep_cell *c, char *buf, size_t len)
{
	if (!c->compared)
		buf[0] = 0;
	else if (isfinite(c->t.change))
		snprintf(buf, len, "%+.1f%% %s", c->t.change * 100, rep_mark_text(c->t.mark));
	else
		snprintf(buf, len, "%s", rep_mark_text(c->t.mark));
}

/* The pivoted grid: the --by keys, n, then per column its value and its change with mark. */
static int rep_pivot_grid(const struct rep_report *rep, const struct rep_table *t,
			  struct rep_grid *g)
{
	const struct rep_pivot *pv = t->pv;
	size_t nk = rep->opts.nby;
	g->ncol = nk + 1 + 2 * pv->ncol;
	g->nrow = t->nrow + 1;
	g->stub = nk + 1;   /* the keys and n */
	g->group = 2;       /* a value and its % */
	g->cell = calloc(g->ncol * g->nrow, REP_CELL);
	g->numeric = calloc(g->ncol, sizeof(bool));
	if (!g->cell || !g->numeric) {
		free(g->cell);
		free(g->numeric);
		return -1;
	}
	for (size_t k = 0; k < nk; k++)
		snprintf(CELL(g, 0, k), REP_CELL, "%s", rep_key_title(rep->opts.by[k]));
	snprintf(CELL(g, 0, nk), REP_CELL, "n");
	g->numeric[nk] = true;
	for (size_t c = 0; c < pv->ncol; c++) {
		snprintf(CELL(g, 0, nk + 1 + 2 * c), REP_CELL, "%s", pv->col[c].title);
		snprintf(CELL(g, 0, nk + 2 + 2 * c), REP_CELL, "%%");
		g->numeric[nk + 1 + 2 * c] = g->numeric[nk + 2 + 2 * c] = true;
	}
	for (size_t j = 0; j < t->nrow; j++) {
		const struct rep_row *row = &t->row[j], *prev = j ? &t->row[j - 1] : NULL;
		bool same = prev != NULL;
		for (size_t k = 0; k < nk; k++) {
			same = same && k + 1 < nk && !strcmp(prev->key[k], row->key[k]);
			snprintf(CELL(g, j + 1, k), REP_CELL, "%s", same ? "" : row->key[k]);
		}
		snprintf(CELL(g, j + 1, nk), REP_CELL, "%zu", row->nrun);
		for (size_t c = 0; c < pv->ncol; c++) {
			const struct rep_cell *cl = &pv->cell[j * pv->ncol + c];
			rep_fmt_cell(&cl->v, CELL(g, j + 1, nk + 1 + 2 * c), REP_CELL);
			rep_fmt_cell_mark(cl, CELL(g, j + 1, nk + 2 + 2 * c), REP_CELL);
		}
	}
	return 0;
}

/* The pivot's headline: its metrics with units ("write_mb_s (MB/s), elapsed (s)"). */
static void rep_pivot_what(const struct rep_report *rep, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (size_t i = 0; i < rep->nmeasure && n < len; i++) {
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = rep->measure[k].m == rep->measure[i].m;
		if (!dup)
			n += (size_t)snprintf(buf + n, len - n, "%s%s (%s)", n ? ", " : "",
					      rep->measure[i].m->name, rep->measure[i].m->unit);
	}
}

static void rep_grid_free(struct rep_grid *g)
{
	free(g->cell);
	free(g->numeric);
}

/* ---- footnotes ---------------------------------------------------------- */

static double rep_converge_threshold(const struct rep_report *rep, const struct rep_table *t)
{
	for (size_t j = 0; j < t->nrow; j++)
		for (size_t i = 0; i < t->row[j].nrun; i++) {
			double v = rep->runs[t->row[j].run[i]].summary.converge_threshold;
			if (isfinite(v))
				return v;
		}
	return 60;
}

/* "ME  +4.1% [95% CI ...] vs REF: rule, p = (Holm): verdict". */
static void rep_test_line(const struct rep_test *ts, const char *me, const char *ref, char *buf,
			  size_t len)
{
	char rule[160], verdict[96];
	rep_fmt_rule(ts, rule, sizeof(rule));
	rep_fmt_verdict(ts, verdict, sizeof(verdict));
	if (!ts->rule && isfinite(ts->change))
		snprintf(buf, len, "%s %+.1f%% vs %s: %s", me, ts->change * 100, ref, verdict);
	else if (!ts->rule)
		snprintf(buf, len, "%s vs %s: %s", me, ref, verdict);
	else {
		char lo[24], hi[24];
		rep_pct_bound(lo, sizeof(lo), ts->lo);
		rep_pct_bound(hi, sizeof(hi), ts->hi);
		snprintf(buf, len, "%s %+.1f%% [95%% CI %s%% to %s%%] vs %s: %s, p = %.3g "
			 "(Holm %.3g): %s", me, ts->change * 100, lo, hi, ref, rule, ts->p,
			 ts->p_adj, verdict);
	}
}

/* One compared metric of a row: verdict, change, interval, rule, p-values. */
static void rep_test_note(const struct rep_report *rep, const struct rep_table *t,
			  const struct rep_row *row, const struct rep_test *ts, const char *metric,
			  char *buf, size_t len)
{
	char me[256], ref[256], rule[160], verdict[96];
	rep_row_label(rep, row, me, sizeof(me));
	rep_row_label(rep, &t->row[ts->ref], ref, sizeof(ref));
	rep_fmt_rule(ts, rule, sizeof(rule));
	rep_fmt_verdict(ts, verdict, sizeof(verdict));
	if (!ts->rule && isfinite(ts->change))
		snprintf(buf, len, "%s  %s %+.1f%% vs %s: %s", me, metric, ts->change * 100, ref,
			 verdict);
	else if (!ts->rule)
		snprintf(buf, len, "%s  %s vs %s: %s", me, metric, ref, verdict);
	else {
		char lo[24], hi[24];
		rep_pct_bound(lo, sizeof(lo), ts->lo);
		rep_pct_bound(hi, sizeof(hi), ts->hi);
		snprintf(buf, len, "%s  %s %+.1f%% [95%% CI %s%% to %s%%] vs %s: %s, p = %.3g "
			 "(Holm %.3g): %s", me, metric, ts->change * 100, lo, hi, ref, rule, ts->p,
			 ts->p_adj, verdict);
	}
}

/*
 * Samples other work disturbed beyond the run's bound (run.json summary
 * remeasured, interfered) in the table's runs: how many were measured
 * again (the figures and verdicts use the re-measures) and how many are
 * kept flagged.  "" when none.
 */
static void rep_interference_note(const struct rep_report *rep, const struct rep_table *t,
				  char *buf, size_t len)
{
	unsigned again = 0, flagged = 0, runs = 0;
	buf[0] = 0;
	for (size_t j = 0; j < t->nrow; j++)
		for (size_t i = 0; i < t->row[j].nrun; i++) {
			const struct res_summary *s = &rep->runs[t->row[j].run[i]].summary;
			again += s->remeasured;
			flagged += s->interfered;
			runs += s->remeasured || s->interfered;
		}
	if (!again && !flagged)
		return;
	snprintf(buf, len, "Busy host: in %u run%s, %u sample%s measured again because other work "
		 "took more than the run's bound (discarded; the figures and marks use the "
		 "re-measures); %u point%s kept flagged, no clean re-measure left (other work is "
		 "in their figures; run.json points[].machine.interfered).", runs,
		 runs == 1 ? "" : "s", again, again == 1 ? " was" : "s were",
		 flagged, flagged == 1 ? "" : "s");
}

/*
 * A table whose runs are one round of one A/B session rests on one ramp per
 * arm: say so, and how many rounds the noise it measured would need to
 * decide a change of the threshold.
 */
static void rep_rounds_note(const struct rep_report *rep, const struct rep_table *t, char *buf,
			    size_t len)
{
	double s = NAN;
	buf[0] = 0;
	if (t->rounds != 1)
		return;
	for (size_t j = 0; j < t->nrow; j++) {
		const struct rep_value *v[2] = { &t->row[j].peak, &t->row[j].qc };
		for (int i = 0; i < 2; i++)
			if (isfinite(v[i]->noise) && !(v[i]->noise <= s))
				s = v[i]->noise;
	}
	double T = log1p(rep->opts.threshold);
	if (isfinite(s)) {
		double n = 2 * (1.96 * s / T) * (1.96 * s / T);
		snprintf(buf, len, "These marks rest on one round: one ramp per arm, judged by the "
			 "noise its repeats measured (%.1f%% a sample), not by rounds; at that noise a "
			 "%g%% change needs about %.0f rounds (--rounds) to be told apart.", s * 100,
			 rep->opts.threshold * 100, ceil(n < 2 ? 2 : n));
	} else {
		snprintf(buf, len, "These rows rest on one round with no measured noise: untested; "
			 "--rounds 3 or more (or -r 2) gives the arms a test.");
	}
}

/*
 * "Marks: each row against the row with scheduler=none and the same
 * kernel, io (the reference: --ref, default the first value of the last
 * --by key); " -- a pivot's reference may be a column's.
 */
static void rep_ref_words(const struct rep_report *rep, const struct rep_table *t, char *buf,
			  size_t len)
{
	const struct rep_opts *o = &rep->opts;
	const char *val = rep->opts.ref ? rep->ref_value : t->ref_value ? t->ref_value : "-";
	bool row_ref = false;
	for (size_t k = 0; k < o->nby; k++)
		row_ref = row_ref || !strcmp(o->by[k], rep->ref_key);
	size_t n = (size_t)snprintf(buf, len, "Marks: each %s against the %s with %s=%s",
				    t->pv ? "cell" : "row", t->pv ? "cell" : "row", rep->ref_key,
				    val);
	size_t other = 0;
	const char *keys[2 * REP_MAX_KEYS + 1];
	for (size_t k = 0; k < o->nby; k++)
		if (strcmp(o->by[k], rep->ref_key))
			keys[other++] = o->by[k];
	for (size_t k = 0; t->pv && k < o->ncols; k++)
		if (strcmp(o->cols[k], rep->ref_key) && strcmp(o->cols[k], "metric"))
			keys[other++] = o->cols[k];
	if (t->pv)
		keys[other++] = "metric";
	for (size_t k = 0; k < other && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", k ? ", " : " and the same ",
				      rep_key_title(keys[k]));
	if (n < len)
		snprintf(buf + n, len - n, " (the reference%s: --ref KEY=VALUE, default the first "
			 "value of the last --by key); ", row_ref ? " row" : " column");
}

/* The lines under a pivoted table: what a cell is, the metrics, the marks, each test. */
static void rep_pivot_notes(const struct rep_report *rep, const struct rep_table *t,
			    void (*emit)(const char *, void *), void *ctx)
{
	char line[1536];
	const struct rep_opts *o = &rep->opts;
	emit("Values: each run's figure at its Peak Load point (a single-point run: its one "
	     "point; the samples there folded), over a cell's n complete runs its one centre: the "
	     "geometric mean ×/÷ the spread factor (the arithmetic mean ± sd where a value is not "
	     "positive; a percentile of the merged histograms), as compare shows it; % is the "
	     "change between the centres.  Each run is one point of the table: -L/-P KEY=VALUE name its axes; --by users.start with one -u per run gives a "
	     "row per user count.", ctx);
	for (size_t i = 0; i < rep->nmeasure; i++) {
		const struct rep_metric *m = rep->measure[i].m;
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = rep->measure[k].m == m;
		if (dup)
			continue;
		snprintf(line, sizeof(line), "%s%s: %s, in %s, %s is better.",
			 m->src == REP_MS_ENTRY ? "ENTRY." : "", m->name, m->doc, m->unit,
			 m->higher_better ? "higher" : "lower");
		emit(line, ctx);
	}
	if (t->others[0]) {
		snprintf(line, sizeof(line), "Measured differently from the workload's other table: "
			 "%s; runs are folded and tested only within a table.", t->others);
		emit(line, ctx);
	}
	rep_ref_words(rep, t, line, sizeof(line));
	size_t n = strlen(line);
	snprintf(line + n, sizeof(line) - n, "%s worse, %s better by each metric's direction (a "
		 "lower time or latency is better, its rise worse): p < %g after Holm's correction "
		 "over the table and a change of at least %g%%; same: the 95%% interval of the "
		 "change within ±%g%%; inconclusive: neither; untested: no spread measured (log-scale "
		 "tests: paired rounds of one A/B, Welch's t with >= 2 runs a side, the other side's "
		 "spread; the runs' own noise is of JPM only).", REP_MARK_WORSE, REP_MARK_BETTER,
		 o->alpha, o->threshold * 100, o->threshold * 100);
	emit(line, ctx);
	const struct rep_pivot *pv = t->pv;
	for (size_t j = 0; j < t->nrow; j++)
		for (size_t c = 0; c < pv->ncol; c++) {
			const struct rep_cell *cl = &pv->cell[j * pv->ncol + c];
			if (!cl->compared)
				continue;
			char me[256], ref[256], col[256];
			const struct rep_row *rr = &t->row[cl->t.ref];
			rep_row_label(rep, &t->row[j], me, sizeof(me));
			rep_row_label(rep, rr, ref, sizeof(ref));
			snprintf(col, sizeof(col), "%s", pv->col[c].title);
			snprintf(me + strlen(me), sizeof(me) - strlen(me), "  %s", col);
			snprintf(ref + strlen(ref), sizeof(ref) - strlen(ref), " %s",
				 pv->col[cl->ref_col].title);
			rep_test_line(&cl->t, me, ref, line, sizeof(line));
			emit(line, ctx);
		}
}

/*
 * Under a marked row or cell: what else changed between its runs b[] (label
 * me) and its reference's a[] (them) (rep_evidence_between), one line.
 */
static void rep_evidence_line(const struct rep_report *rep, const struct res_rec *const *a,
			      size_t na, const struct res_rec *const *b, size_t nb, const char *me,
			      const char *them, void (*emit)(const char *, void *), void *ctx)
{
	struct rep_evidence e;
	char line[1536];
	if (rep_evidence_between(a, na, b, nb, &rep->opts, &e) || !e.looked)
		return;
	if (!e.tested)
		snprintf(line, sizeof(line), "%s: what else changed vs %s: untested (a side with "
			 "fewer than 2 runs has no measured noise)", me, them);
	else if (!e.n)
		snprintf(line, sizeof(line), "%s: what else changed vs %s: nothing beyond its noise "
			 "(%zu evidence metrics tested)", me, them, e.tested);
	else {
		int used = snprintf(line, sizeof(line), "%s: what else changed vs %s (Holm over %zu "
				    "tested), largest first:", me, them, e.tested);
		for (size_t k = 0; k < e.n && used > 0 && (size_t)used < sizeof(line); k++) {
			char w[256];
			rep_evidence_word(w, sizeof(w), &e.ev[k]);
			used += snprintf(line + used, sizeof(line) - (size_t)used, "%s %s",
					 k ? "," : "", w);
		}
	}
	emit(line, ctx);
}

/* Under a marked row of the classic table: its runs against its reference row's. */
static void rep_evidence_note(const struct rep_report *rep, const struct rep_row *row,
			      const struct rep_row *ref, void (*emit)(const char *, void *),
			      void *ctx)
{
	const struct res_rec **a = calloc(ref->nrun + 1, sizeof(*a));
	const struct res_rec **b = calloc(row->nrun + 1, sizeof(*b));
	char me[256], them[256];
	if (a && b) {
		for (size_t i = 0; i < ref->nrun; i++)
			a[i] = &rep->runs[ref->run[i]];
		for (size_t i = 0; i < row->nrun; i++)
			b[i] = &rep->runs[row->run[i]];
		rep_row_label(rep, row, me, sizeof(me));
		rep_row_label(rep, ref, them, sizeof(them));
		rep_evidence_line(rep, a, ref->nrun, b, row->nrun, me, them, emit, ctx);
	}
	free(a);
	free(b);
}

/*
 * Under a pivoted table: what else changed beside each marked cell, once per
 * pair of run sets (the cells of one row whose columns differ only in the
 * measure share their runs, and so their evidence).
 */
static void rep_pivot_evidence(const struct rep_report *rep, const struct rep_table *t,
			       void (*emit)(const char *, void *), void *ctx)
{
	const struct rep_pivot *pv = t->pv;
	const struct res_rec **a = calloc(rep->nruns + 1, sizeof(*a));
	const struct res_rec **b = calloc(rep->nruns + 1, sizeof(*b));
	if (!a || !b)
		goto out;
	for (size_t j = 0; j < t->nrow; j++)
		for (size_t c = 0; c < pv->ncol; c++) {
			const struct rep_cell *cl = &pv->cell[j * pv->ncol + c];
			if (!cl->compared || (cl->t.mark != REP_WORSE && cl->t.mark != REP_BETTER))
				continue;
			bool seen = false;
			for (size_t d = 0; d < c && !seen; d++) {
				const struct rep_cell *o = &pv->cell[j * pv->ncol + d];
				seen = o->compared && (o->t.mark == REP_WORSE || o->t.mark == REP_BETTER) &&
				       o->t.ref == cl->t.ref &&
				       rep_cols_same_runs(rep, &pv->col[d], &pv->col[c]) &&
				       rep_cols_same_runs(rep, &pv->col[o->ref_col], &pv->col[cl->ref_col]);
			}
			if (seen)
				continue;
			char me[256], them[256];
			size_t nb = rep_cell_runs(rep, t, j, c, b);
			size_t na = rep_cell_runs(rep, t, cl->t.ref, cl->ref_col, a);
			rep_row_label(rep, &t->row[j], me, sizeof(me));
			rep_row_label(rep, &t->row[cl->t.ref], them, sizeof(them));
			if (rep->nckey) {
				snprintf(me + strlen(me), sizeof(me) - strlen(me), "  %s",
					 pv->col[c].title);
				snprintf(them + strlen(them), sizeof(them) - strlen(them), " %s",
					 pv->col[cl->ref_col].title);
			}
			rep_evidence_line(rep, a, na, b, nb, me, them, emit, ctx);
		}
out:
	free(a);
	free(b);
}

/*
 * The lines under a table: what the columns mean, the rule of the marks,
 * what tells it from the workload's other tables, and one line per
 * compared metric.  emit(line, ctx) is called for each.
 */
static void rep_notes(const struct rep_report *rep, const struct rep_table *t,
		      void (*emit)(const char *, void *), void *ctx)
{
	char line[1536];
	const struct rep_opts *o = &rep->opts;
	size_t nk = o->nby;
	if (t->pv) {
		rep_pivot_notes(rep, t, emit, ctx);
		rep_pivot_evidence(rep, t, emit, ctx);
		return;
	}
	emit("Peak Load: the ramp's established peak, geometric mean ×/÷ spread factor over n "
	     "complete runs; '?': a ramp "
	     "that established no peak (none found, or a later point beat it): its best point, "
	     "as its run printed it ('best point:').",
	     ctx);
	if (o->qc_max)
		snprintf(line, sizeof(line), "Quick Convergence: the maximum JPM of the "
			 "convergence ramp (as re-aim's -q printed it).");
	else
		snprintf(line, sizeof(line), "Quick Convergence: JPM at the first user count past "
			 "the peak where each user completes at most %g jobs per minute; '-': not "
			 "reached.", rep_converge_threshold(rep, t));
	emit(line, ctx);
	if (t->others[0]) {
		snprintf(line, sizeof(line), "Measured differently from the workload's other table: "
			 "%s; runs are folded and tested only within a table (--allow-diff KEY folds "
			 "them, --by KEY compares them).", t->others);
		emit(line, ctx);
	}
	if (o->baseline)
		snprintf(line, sizeof(line), "Marks: each row against the row of '%s' with the "
			 "same %s; ", o->baseline, rep_key_title(o->by[nk - 1]));
	else
		rep_ref_words(rep, t, line, sizeof(line));
	size_t n = strlen(line);
	snprintf(line + n, sizeof(line) - n, "%s worse, %s better: p < %g after Holm's correction "
		 "over the table and a change of at least %g%%; same: the 95%% interval of the "
		 "change within ±%g%%; inconclusive: neither; untested: no noise measured for it "
		 "(log-scale tests: paired rounds of one A/B, Welch's t with >= 2 runs a side, the "
		 "other side's spread, or the noise the runs' repeats measured).", REP_MARK_WORSE,
		 REP_MARK_BETTER, o->alpha, o->threshold * 100, o->threshold * 100);
	emit(line, ctx);
	rep_rounds_note(rep, t, line, sizeof(line));
	if (line[0])
		emit(line, ctx);
	rep_interference_note(rep, t, line, sizeof(line));
	if (line[0])
		emit(line, ctx);
	for (size_t j = 0; j < t->nrow; j++) {
		const struct rep_row *row = &t->row[j];
		if (rep_compared(&row->tpeak)) {
			rep_test_note(rep, t, row, &row->tpeak, "Peak Load", line, sizeof(line));
			emit(line, ctx);
		}
		if (row->tpeak.mark == REP_WORSE || row->tpeak.mark == REP_BETTER)
			rep_evidence_note(rep, row, &t->row[row->tpeak.ref], emit, ctx);
		if (rep_compared(&row->tqc)) {
			rep_test_note(rep, t, row, &row->tqc, "Quick Convergence", line, sizeof(line));
			emit(line, ctx);
		}
	}
}

/* The paths that could not be read, after the tables. */
static void rep_skipped_notes(const struct rep_report *rep, void (*emit)(const char *, void *),
			      void *ctx)
{
	char line[1200];
	for (size_t i = 0; i < rep->opts.nskipped; i++) {
		snprintf(line, sizeof(line), "skipped: %s", rep->opts.skipped[i]);
		emit(line, ctx);
	}
}

/* Where text notes go: the stream and the width they wrap at (0: --wide, one line each). */
struct rep_text_out {
	FILE *f;
	size_t width;
};

static void rep_emit_text(const char *line, void *ctx)
{
	const struct rep_text_out *o = ctx;
	rep_wrap(o->f, line, o->width, "  ", "    ");
}

static void rep_emit_md(const char *line, void *ctx)
{
	fputs("- ", ctx);
	esc_put(ctx, ESC_MD, line);
	fputc('\n', ctx);
}

/* ---- text and Markdown ---------------------------------------------------- */

/* The width text tables and notes fit: REP_TEXT_COLS, 0 (no limit) with --wide. */
static size_t rep_text_width(const struct rep_report *rep)
{
	return rep->opts.wide ? 0 : REP_TEXT_COLS;
}

static int rep_text_table(FILE *f, const struct rep_report *rep, const struct rep_table *t,
			  bool md)
{
	struct rep_grid g;
	enum esc_fmt ef = md ? ESC_MD : ESC_TEXT;
	if (rep_grid_make(rep, t, &g))
		return -1;
	size_t nruns = 0;
	for (size_t j = 0; j < t->nrow; j++)
		nruns += t->row[j].nrun;
	if (md)
		fputs("### ", f);
	esc_put(f, ef, t->workload);
	if (t->differs[0]) {
		fputs(" [", f);
		esc_put(f, ef, t->differs);
		fputs("]", f);
	}
	char what[512] = "Maximum Jobs Per Minute";
	if (t->pv)
		rep_pivot_what(rep, what, sizeof(what));
	fputs(": ", f);
	esc_put(f, ef, what);
	fprintf(f, " (%zu run%s)\n%s", nruns, nruns == 1 ? "" : "s", md ? "\n" : "");
	int rc = rep_text_grid(f, &g, md, rep_text_width(rep));
	rep_grid_free(&g);
	if (rc)
		return -1;
	fputc('\n', f);
	struct rep_text_out to = { f, rep_text_width(rep) };
	if (md)
		rep_notes(rep, t, rep_emit_md, f);
	else
		rep_notes(rep, t, rep_emit_text, &to);
	fputc('\n', f);
	return 0;
}

/* ---- across workloads ------------------------------------------------------ */

static const char rep_gmean_title[] = "Geometric mean across workloads (mmtests' Gmean of "
				      "the ratios to the reference)";
static const char rep_gmean_note[] = "Gmean: each row's ratio to its reference (as the marks "
	"take it) in every workload's table that has both, their geometric mean over the "
	"workloads; the 95% interval from each ratio's own (the root sum of their log-scale "
	"standard errors, normal), '-' when a ratio was untested.  For a lower-is-better metric "
	"a ratio below 1 is the better.";

/* The summary grid: row, column, workloads, ratio, change, 95% interval. */
static int rep_gmean_grid(const struct rep_report *rep, struct rep_grid *g)
{
	static const char *const head[] = { "Row", "Column", "Workloads", "Gmean ratio",
					    "Change", "95% CI" };
	static const bool num[] = { false, false, true, true, true, true };
	g->ncol = 6;
	g->nrow = rep->ngm + 1;
	g->cell = calloc(g->ncol * g->nrow, REP_CELL);
	g->numeric = calloc(g->ncol, sizeof(bool));
	if (!g->cell || !g->numeric) {
		free(g->cell);
		free(g->numeric);
		return -1;
	}
	for (size_t c = 0; c < 6; c++) {
		snprintf(CELL(g, 0, c), REP_CELL, "%s", head[c]);
		g->numeric[c] = num[c];
	}
	for (size_t i = 0; i < rep->ngm; i++) {
		const struct rep_gmean *gm = &rep->gm[i];
		snprintf(CELL(g, i + 1, 0), REP_CELL, "%s", gm->label);
		snprintf(CELL(g, i + 1, 1), REP_CELL, "%s", gm->col);
		snprintf(CELL(g, i + 1, 2), REP_CELL, "%zu", gm->n);
		snprintf(CELL(g, i + 1, 3), REP_CELL, "%.4f", gm->ratio);
		snprintf(CELL(g, i + 1, 4), REP_CELL, "%+.1f%%", (gm->ratio - 1) * 100);
		if (isfinite(gm->lo))
			snprintf(CELL(g, i + 1, 5), REP_CELL, "%+.1f%% to %+.1f%%",
				 (gm->lo - 1) * 100, (gm->hi - 1) * 100);
		else
			snprintf(CELL(g, i + 1, 5), REP_CELL, "-");
	}
	return 0;
}

static int rep_text_gmean(FILE *f, const struct rep_report *rep, bool md)
{
	struct rep_grid g;
	if (!rep->ngm)
		return 0;
	if (rep_gmean_grid(rep, &g))
		return -1;
	fprintf(f, "%s%s\n%s", md ? "### " : "", rep_gmean_title, md ? "\n" : "");
	int rc = rep_text_grid(f, &g, md, rep_text_width(rep));
	rep_grid_free(&g);
	fputc('\n', f);
	struct rep_text_out to = { f, rep_text_width(rep) };
	if (md)
		rep_emit_md(rep_gmean_note, f);
	else
		rep_emit_text(rep_gmean_note, &to);
	fputc('\n', f);
	return rc;
}

/* ---- HTML ----------------------------------------------------------------- */

static void rep_html_escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default:   /* control characters visible, as in text (escape.h) */
			if ((unsigned char)*s < 0x20 || *s == 0x7f)
				fprintf(f, "\\x%02x", (unsigned char)*s);
			else if ((unsigned char)s[0] == 0xc2 && (unsigned char)s[1] >= 0x80 &&
				 (unsigned char)s[1] < 0xa0)
				fprintf(f, "\\u00%02x", (unsigned char)*++s);
			else
				fputc(*s, f);
		}
	}
}

static void rep_emit_html(const char *line, void *ctx)
{
	FILE *f = ctx;
	fputs("<li>", f);
	rep_html_escape(f, line);
	fputs("</li>\n", f);
}

/* An SVG document inlined: its XML declaration and doctype left out. */
static void rep_html_svg(FILE *f, const char *svg)
{
	const char *start = strstr(svg, "<svg");
	if (!start)
		return;
	fputs("<div class=\"chart\">\n", f);
	fputs(start, f);
	fputs("\n</div>\n", f);
}

/*
 * What the page is of: "nightly 2026-12-01" (every run labelled with one
 * night), "A/B <session>" (every run of one session), "run <id>", else
 * "<n> runs"; then the workloads.
 */
static void rep_html_title(const struct rep_report *rep, char *buf, size_t len)
{
	const struct res_rec *r0 = rep->nruns ? &rep->runs[0] : NULL;
	const char *night = r0 ? rep_key_value(r0, "night") : "-";
	bool one_night = r0 && strcmp(night, "-"), one_ab = r0 && r0->session[0];
	for (size_t i = 1; i < rep->nruns; i++) {
		one_night = one_night && !strcmp(rep_key_value(&rep->runs[i], "night"), night);
		one_ab = one_ab && !strcmp(rep->runs[i].session, r0->session);
	}
	size_t n;
	if (one_night)
		n = (size_t)snprintf(buf, len, "nightly %s", night);
	else if (one_ab)
		n = (size_t)snprintf(buf, len, "A/B %s", r0->session);
	else if (rep->nruns == 1)
		n = (size_t)snprintf(buf, len, "run %s", r0->id);
	else
		n = (size_t)snprintf(buf, len, "%zu runs", rep->nruns);
	for (size_t i = 0; i < rep->ntable && n < len; i++) {
		bool seen = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(rep->table[k].workload, rep->table[i].workload);
		if (!seen)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n && !i ? ": " : ", ",
					      rep->table[i].workload);
	}
}

/* The worst mark of a page: worse, then better, inconclusive, same; untested when none. */
static enum rep_mark rep_html_worst(const struct rep_report *rep)
{
	static const enum rep_mark rank[] = { REP_WORSE, REP_BETTER, REP_INCONCLUSIVE, REP_SAME };
	for (size_t k = 0; k < 4; k++)
		for (size_t i = 0; i < rep->ntable; i++)
			for (size_t j = 0; j < rep->table[i].nrow; j++) {
				const struct rep_row *w = &rep->table[i].row[j];
				if ((rep_compared(&w->tpeak) && w->tpeak.mark == rank[k]) ||
				    (rep_compared(&w->tqc) && w->tqc.mark == rank[k]))
					return rank[k];
			}
	return REP_UNTESTED;
}

/*
 * The verdict first: the page's worst mark, coloured, and every compared
 * Peak Load with its change and 95% interval (the tables' notes, in full).
 */
static void rep_html_verdict(FILE *f, const struct rep_report *rep)
{
	enum rep_mark m = rep_html_worst(rep);
	char line[1536];
	fprintf(f, "<div class=\"verdict %s\" id=\"verdict\">\n<p><strong>Verdict: %s</strong>",
		rep_mark_name(m), m == REP_UNTESTED ? "nothing compared" : rep_mark_name(m));
	fputs("</p>\n<ul>\n", f);
	for (size_t i = 0; i < rep->ntable; i++) {
		const struct rep_table *t = &rep->table[i];
		for (size_t j = 0; j < t->nrow && !t->pv; j++)
			if (rep_compared(&t->row[j].tpeak)) {
				rep_test_note(rep, t, &t->row[j], &t->row[j].tpeak, "Peak Load", line,
					      sizeof(line));
				fputs("<li>", f);
				rep_html_escape(f, t->workload);
				fputs(": ", f);
				rep_html_escape(f, line);
				fputs("</li>\n", f);
			}
	}
	fputs("</ul>\n</div>\n", f);
}

static int rep_html(FILE *f, const struct rep_report *rep, const char *const *svg)
{
	char title[768];
	rep_html_title(rep, title, sizeof(title));
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width\">\n<title>jobmix ", f);
	rep_html_escape(f, title);
	fputs("</title>\n<style>\n"
	      "body { font-family: sans-serif; margin: 2em; color: #222; overflow-wrap: break-word; }\n"
	      ".verdict { border-left: 0.4em solid #999; background: #f3f3f3; padding: 0.2em 1em; }\n"
	      ".verdict.worse { border-color: #c00; background: #fde2e2; }\n"
	      ".verdict.better { border-color: #080; background: #e2f5e2; }\n"
	      ".verdict.inconclusive { border-color: #c90; background: #fff6d6; }\n"
	      ".verdict.same { border-color: #080; }\n"
	      ".scroll { max-width: 100%; overflow-x: auto; }\n"
	      "pre { max-width: 100%; overflow-x: auto; white-space: pre-wrap; }\n"
	      "table { border-collapse: collapse; margin: 1em 0; }\n"
	      "th, td { border: 1px solid #bbb; padding: 0.25em 0.6em; overflow-wrap: normal; }\n"
	      "th { background: #eee; }\n"
	      "td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }\n"
	      "tr.worse td { background: #fde2e2; }\n"
	      "tr.better td { background: #e2f5e2; }\n"
	      "tr.inconclusive td { background: #fff6d6; }\n"
	      "ul.notes { font-size: 0.9em; color: #444; }\n"
	      ".chart svg { max-width: 100%; height: auto; }\n"
	      "</style>\n</head>\n<body>\n<h1>jobmix ", f);
	rep_html_escape(f, title);
	fputs("</h1>\n", f);
	rep_html_verdict(f, rep);
	for (size_t i = 0; i < rep->ntable; i++) {
		const struct rep_table *t = &rep->table[i];
		struct rep_grid g;
		if (rep_grid_make(rep, t, &g))
			return -1;
		fputs("<h2>", f);
		rep_html_escape(f, t->workload);
		if (t->differs[0]) {
			fputs(" [", f);
			rep_html_escape(f, t->differs);
			fputs("]", f);
		}
		char what[512] = "Maximum Jobs Per Minute";
		if (t->pv)
			rep_pivot_what(rep, what, sizeof(what));
		fputs(": ", f);
		rep_html_escape(f, what);
		fputs("</h2>\n<div class=\"scroll\"><table>\n<tr>", f);
		for (size_t c = 0; c < g.ncol; c++) {
			fputs("<th>", f);
			rep_html_escape(f, CELL(&g, 0, c));
			fputs("</th>", f);
		}
		fputs("</tr>\n", f);
		for (size_t r = 1; r < g.nrow; r++) {
			enum rep_mark m;
			const char *txt = t->pv ? rep_pivot_row_mark(t, r - 1, &m) :
					  rep_row_mark_text(&t->row[r - 1], &m);
			fprintf(f, "<tr%s%s%s>", txt[0] ? " class=\"" : "", txt[0] ? rep_mark_name(m) : "",
				txt[0] ? "\"" : "");
			for (size_t c = 0; c < g.ncol; c++) {
				fputs(g.numeric[c] ? "<td class=\"num\">" : "<td>", f);
				rep_html_escape(f, CELL(&g, r, c));
				fputs("</td>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("</table></div>\n<ul class=\"notes\">\n", f);
		rep_notes(rep, t, rep_emit_html, f);
		fputs("</ul>\n", f);
		if (svg && svg[i])
			rep_html_svg(f, svg[i]);
		rep_grid_free(&g);
	}
	if (rep->ngm) {
		struct rep_grid g;
		if (rep_gmean_grid(rep, &g))
			return -1;
		fprintf(f, "<h2>%s</h2>\n<table>\n", rep_gmean_title);
		for (size_t r = 0; r < g.nrow; r++) {
			fputs("<tr>", f);
			for (size_t c = 0; c < g.ncol; c++) {
				fputs(r == 0 ? "<th>" : g.numeric[c] ? "<td class=\"num\">" : "<td>", f);
				rep_html_escape(f, CELL(&g, r, c));
				fputs(r == 0 ? "</th>" : "</td>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("</table>\n<ul class=\"notes\">\n", f);
		rep_emit_html(rep_gmean_note, f);
		fputs("</ul>\n", f);
		rep_grid_free(&g);
	}
	if (!rep->ntable)
		fputs("<p>No runs.</p>\n", f);
	if (rep->opts.nskipped) {
		fputs("<ul class=\"notes\">\n", f);
		rep_skipped_notes(rep, rep_emit_html, f);
		fputs("</ul>\n", f);
	}
	fputs("</body>\n</html>\n", f);
	return 0;
}

/* ---- CSV and JSON ------------------------------------------------------------ */

static void rep_csv_str(FILE *f, const char *s)
{
	esc_put(f, ESC_CSV, s);
}

/* fmt is one of this file's literals, with one double conversion. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void rep_csv_num(FILE *f, double v, const char *fmt)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, fmt, v);
}
#pragma GCC diagnostic pop

static void rep_csv_metric(FILE *f, const struct rep_value *v, const struct rep_test *t)
{
	bool cmp = rep_compared(t), tested = t->rule != 0;
	rep_csv_num(f, v->n ? v->mean : NAN, "%.6g");
	rep_csv_num(f, v->sd, "%.6g");
	fprintf(f, ",%u", v->n);
	rep_csv_num(f, v->users_lo ? v->users_lo : NAN, "%.0f");
	rep_csv_num(f, v->users_hi ? v->users_hi : NAN, "%.0f");
	fprintf(f, ",%d", v->n && !v->not_established);
	rep_csv_num(f, cmp ? t->change * 100 : NAN, "%.4g");
	rep_csv_num(f, tested ? t->lo * 100 : NAN, "%.4g");
	rep_csv_num(f, tested ? t->hi * 100 : NAN, "%.4g");
	fprintf(f, ",%s", cmp ? rep_mark_text(t->mark) : "");
	fprintf(f, ",%s", cmp ? rep_mark_name(t->mark) : "");
	if (tested)
		fprintf(f, ",%c", t->rule);
	else
		fputc(',', f);
	rep_csv_num(f, tested ? t->p : NAN, "%.4g");
	rep_csv_num(f, tested ? t->p_adj : NAN, "%.4g");
	rep_csv_num(f, t->need ? t->need : NAN, "%.0f");
	fputc(',', f);
	rep_csv_str(f, cmp && !tested && t->why ? t->why : "");
}

/* The columns of a pivoted table's CSV header. */
static void rep_csv_pivot_head(FILE *f, const struct rep_report *rep, const struct rep_table *t)
{
	static const char *const part[] = { "", " sd", " n", " change_pct", " ci_lo_pct",
					     " ci_hi_pct", " verdict" };
	fputs("workload,table", f);
	for (size_t k = 0; k < rep->opts.nby; k++) {
		fputc(',', f);
		rep_csv_str(f, rep->opts.by[k]);
	}
	fputs(",runs", f);
	for (size_t c = 0; c < t->pv->ncol; c++)
		for (size_t i = 0; i < sizeof(part) / sizeof(part[0]); i++) {
			char h[256];
			snprintf(h, sizeof(h), "%s%s", t->pv->col[c].title, part[i]);
			fputc(',', f);
			rep_csv_str(f, h);
		}
	fputc('\n', f);
}

/* Do two pivoted tables have the same columns (one CSV header serves both)? */
static bool rep_same_cols(const struct rep_table *a, const struct rep_table *b)
{
	if (a->pv->ncol != b->pv->ncol)
		return false;
	for (size_t c = 0; c < a->pv->ncol; c++)
		if (strcmp(a->pv->col[c].title, b->pv->col[c].title))
			return false;
	return true;
}

static void rep_csv_pivot(FILE *f, const struct rep_report *rep)
{
	for (size_t i = 0; i < rep->ntable; i++) {
		const struct rep_table *t = &rep->table[i];
		if (!i || !rep_same_cols(&rep->table[i - 1], t))
			rep_csv_pivot_head(f, rep, t);
		for (size_t j = 0; j < t->nrow; j++) {
			rep_csv_str(f, t->workload);
			fputc(',', f);
			rep_csv_str(f, t->differs);
			for (size_t k = 0; k < rep->opts.nby; k++) {
				fputc(',', f);
				rep_csv_str(f, t->row[j].key[k]);
			}
			fprintf(f, ",%zu", t->row[j].nrun);
			for (size_t c = 0; c < t->pv->ncol; c++) {
				const struct rep_cell *cl = &t->pv->cell[j * t->pv->ncol + c];
				bool tested = cl->compared && cl->t.rule;
				rep_csv_num(f, cl->v.n ? cl->v.mean : NAN, "%.6g");
				rep_csv_num(f, cl->v.sd, "%.6g");
				fprintf(f, ",%u", cl->v.n);
				rep_csv_num(f, cl->compared ? cl->t.change * 100 : NAN, "%.4g");
				rep_csv_num(f, tested ? cl->t.lo * 100 : NAN, "%.4g");
				rep_csv_num(f, tested ? cl->t.hi * 100 : NAN, "%.4g");
				fprintf(f, ",%s", cl->compared ? rep_mark_name(cl->t.mark) : "");
			}
			fputc('\n', f);
		}
	}
}

/* The geometric means across workloads, after the tables. */
static void rep_csv_gmean(FILE *f, const struct rep_report *rep)
{
	if (!rep->ngm)
		return;
	fputs("summary,row,column,workloads,gmean_ratio,ci_lo,ci_hi,lower_better\n", f);
	for (size_t i = 0; i < rep->ngm; i++) {
		const struct rep_gmean *g = &rep->gm[i];
		fputs("gmean,", f);
		rep_csv_str(f, g->label);
		fputc(',', f);
		rep_csv_str(f, g->col);
		fprintf(f, ",%zu", g->n);
		rep_csv_num(f, g->ratio, "%.6g");
		rep_csv_num(f, g->lo, "%.6g");
		rep_csv_num(f, g->hi, "%.6g");
		fprintf(f, ",%d\n", g->lower_better);
	}
}

static int rep_csv(FILE *f, const struct rep_report *rep)
{
	const struct rep_opts *o = &rep->opts;
	if (rep->pivot) {
		rep_csv_pivot(f, rep);
		rep_csv_gmean(f, rep);
		return 0;
	}
	fputs("workload,table", f);
	for (size_t k = 0; k < o->nby; k++) {
		fputc(',', f);
		rep_csv_str(f, o->by[k]);
	}
	static const char *const m[] = { "peak", "qc" };
	fputs(",run_id,runs,status", f);
	for (int i = 0; i < 2; i++)
		fprintf(f, ",%s_jpm,%s_sd,%s_n,%s_users_lo,%s_users_hi,%s_established,"
			"%s_change_pct,%s_ci_lo_pct,%s_ci_hi_pct,%s_mark,%s_verdict,%s_rule,%s_p,"
			"%s_p_holm,%s_need,%s_untested", m[i], m[i], m[i], m[i], m[i], m[i], m[i],
			m[i], m[i], m[i], m[i], m[i], m[i], m[i], m[i], m[i]);
	if (o->device_stats)
		fputs(",device,dev_iops,dev_mb_s,dev_req_kib,dev_merge_ratio,dev_util,dev_qdepth", f);
	fputc('\n', f);
	for (size_t i = 0; i < rep->ntable; i++) {
		const struct rep_table *t = &rep->table[i];
		for (size_t j = 0; j < t->nrow; j++) {
			const struct rep_row *row = &t->row[j];
			rep_csv_str(f, t->workload);
			fputc(',', f);
			rep_csv_str(f, t->differs);
			for (size_t k = 0; k < o->nby; k++) {
				fputc(',', f);
				rep_csv_str(f, row->key[k]);
			}
			fputc(',', f);
			rep_csv_str(f, row->id);
			fprintf(f, ",%zu,", row->nrun);
			rep_csv_str(f, row->status[0] ? row->status : "complete");
			rep_csv_metric(f, &row->peak, &row->tpeak);
			rep_csv_metric(f, &row->qc, &row->tqc);
			if (o->device_stats) {
				const struct rep_dev *d = &row->dev;
				fputc(',', f);
				rep_csv_str(f, d->device);
				rep_csv_num(f, d->iops, "%.6g");
				rep_csv_num(f, d->mb_s, "%.6g");
				rep_csv_num(f, d->req_kib, "%.6g");
				rep_csv_num(f, d->merge_ratio, "%.6g");
				rep_csv_num(f, d->util, "%.6g");
				rep_csv_num(f, d->qdepth, "%.6g");
			}
			fputc('\n', f);
		}
	}
	rep_csv_gmean(f, rep);
	return 0;
}

static json_t *rep_jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *rep_json_metric(const struct rep_report *rep, const struct rep_table *t,
			       const struct rep_value *v, const struct rep_test *ts)
{
	json_t *o = json_object(), *x = json_array();
	if (!o || !x) {
		json_decref(o);
		json_decref(x);
		return NULL;
	}
	for (unsigned i = 0; i < v->n; i++)
		json_array_append_new(x, rep_jnum(v->x[i]));
	json_object_set_new(o, "mean", rep_jnum(v->n ? v->mean : NAN));
	json_object_set_new(o, "sd", rep_jnum(v->sd));
	json_object_set_new(o, "gmean", rep_jnum(v->n ? v->gmean : NAN));
	json_object_set_new(o, "factor", rep_jnum(v->gsd));
	json_object_set_new(o, "n", json_integer(v->n));
	json_object_set_new(o, "values", x);
	json_object_set_new(o, "noise", rep_jnum(v->noise));
	json_object_set_new(o, "users_lo", v->users_lo ? json_integer(v->users_lo) : json_null());
	json_object_set_new(o, "users_hi", v->users_hi ? json_integer(v->users_hi) : json_null());
	json_object_set_new(o, "established", json_boolean(v->n && !v->not_established));
	bool cmp = rep_compared(ts), tested = ts->rule != 0;
	json_object_set_new(o, "change", cmp ? rep_jnum(ts->change) : json_null());
	json_object_set_new(o, "change_lo", tested ? rep_jnum(ts->lo) : json_null());
	json_object_set_new(o, "change_hi", tested ? rep_jnum(ts->hi) : json_null());
	json_object_set_new(o, "verdict", cmp ? json_string(rep_mark_name(ts->mark)) : json_null());
	char rule[2] = { ts->rule, 0 };
	json_object_set_new(o, "rule", tested ? json_string(rule) : json_null());
	json_object_set_new(o, "stat", tested ? rep_jnum(ts->stat) : json_null());
	json_object_set_new(o, "df", tested ? rep_jnum(ts->df) : json_null());
	json_object_set_new(o, "p", tested ? rep_jnum(ts->p) : json_null());
	json_object_set_new(o, "p_holm", tested ? rep_jnum(ts->p_adj) : json_null());
	json_object_set_new(o, "need", ts->need ? json_integer(ts->need) : json_null());
	json_object_set_new(o, "untested", cmp && !tested && ts->why ? json_string(ts->why) :
			    json_null());
	if (cmp) {
		char ref[256];
		rep_row_label(rep, &t->row[ts->ref], ref, sizeof(ref));
		json_object_set_new(o, "against", json_string(ref));
	} else {
		json_object_set_new(o, "against", json_null());
	}
	return o;
}

/* A pivoted cell as JSON: its value over the runs and its test. */
static json_t *rep_json_cell(const struct rep_report *rep, const struct rep_table *t,
			     const struct rep_cell *cl)
{
	json_t *o = json_object(), *x = json_array();
	if (!o || !x) {
		json_decref(o);
		json_decref(x);
		return NULL;
	}
	const struct rep_value *v = &cl->v;
	const struct rep_test *ts = &cl->t;
	for (unsigned i = 0; i < v->n; i++)
		json_array_append_new(x, rep_jnum(v->x[i]));
	bool tested = cl->compared && ts->rule;
	json_object_set_new(o, "mean", rep_jnum(v->n ? v->mean : NAN));
	json_object_set_new(o, "sd", rep_jnum(v->sd));
	json_object_set_new(o, "gmean", rep_jnum(v->n ? v->gmean : NAN));
	json_object_set_new(o, "factor", rep_jnum(v->gsd));
	json_object_set_new(o, "n", json_integer(v->n));
	json_object_set_new(o, "values", x);
	json_object_set_new(o, "change", cl->compared ? rep_jnum(ts->change) : json_null());
	json_object_set_new(o, "change_lo", tested ? rep_jnum(ts->lo) : json_null());
	json_object_set_new(o, "change_hi", tested ? rep_jnum(ts->hi) : json_null());
	json_object_set_new(o, "verdict", cl->compared ? json_string(rep_mark_name(ts->mark)) :
			    json_null());
	char rule[2] = { ts->rule, 0 };
	json_object_set_new(o, "rule", tested ? json_string(rule) : json_null());
	json_object_set_new(o, "p", tested ? rep_jnum(ts->p) : json_null());
	json_object_set_new(o, "p_holm", tested ? rep_jnum(ts->p_adj) : json_null());
	json_object_set_new(o, "untested", cl->compared && !tested && ts->why ?
			    json_string(ts->why) : json_null());
	if (cl->compared) {
		char ref[256];
		rep_row_label(rep, &t->row[ts->ref], ref, sizeof(ref));
		json_object_set_new(o, "against", json_pack("{s:s, s:s}", "row", ref, "column",
							    t->pv->col[cl->ref_col].title));
	} else {
		json_object_set_new(o, "against", json_null());
	}
	return o;
}

/* A pivoted table's columns: title, metric, unit, direction, entry, the --cols values. */
static json_t *rep_json_cols(const struct rep_report *rep, const struct rep_table *t)
{
	json_t *a = json_array();
	for (size_t c = 0; a && c < t->pv->ncol; c++) {
		const struct rep_col *col = &t->pv->col[c];
		const struct rep_measure *ms = &rep->measure[col->measure];
		json_t *keys = json_object();
		for (size_t k = 0; k < rep->nckey; k++)
			json_object_set_new(keys, rep->ckey[k], json_string(col->key[k]));
		json_array_append_new(a, json_pack("{s:s, s:s, s:s, s:s?, s:s, s:b, s:o}", "title",
						   col->title, "metric", ms->name, "kind",
						   ms->m->name, "entry",
						   ms->entry[0] ? ms->entry : NULL, "unit",
						   ms->m->unit, "higher_better",
						   ms->m->higher_better, "keys", keys));
	}
	return a;
}

static json_t *rep_json_gmean(const struct rep_report *rep)
{
	json_t *a = json_array();
	for (size_t i = 0; a && i < rep->ngm; i++) {
		const struct rep_gmean *g = &rep->gm[i];
		json_array_append_new(a, json_pack("{s:s, s:s, s:i, s:o, s:o, s:o, s:b}", "row",
						   g->label, "column", g->col, "workloads",
						   (int)g->n, "ratio", rep_jnum(g->ratio), "lo",
						   rep_jnum(g->lo), "hi", rep_jnum(g->hi),
						   "lower_better", g->lower_better));
	}
	return a;
}

static int rep_json(FILE *f, const struct rep_report *rep)
{
	const struct rep_opts *o = &rep->opts;
	json_t *doc = json_object(), *tables = json_array(), *by = json_array();
	if (!doc || !tables || !by) {
		json_decref(doc);
		json_decref(tables);
		json_decref(by);
		return -1;
	}
	for (size_t k = 0; k < o->nby; k++)
		json_array_append_new(by, json_string(o->by[k]));
	json_object_set_new(doc, "by", by);
	json_object_set_new(doc, "threshold", json_real(o->threshold));
	json_object_set_new(doc, "alpha", json_real(o->alpha));
	json_object_set_new(doc, "qc", json_string(o->qc_max ? "max" : "converge"));
	json_object_set_new(doc, "baseline", o->baseline ? json_string(o->baseline) : json_null());
	json_object_set_new(doc, "ref", json_pack("{s:s, s:s?}", "key", rep->ref_key, "value",
						  o->ref ? rep->ref_value : NULL));
	json_object_set_new(doc, "gmean", rep_json_gmean(rep));
	json_object_set_new(doc, "tables", tables);
	json_t *sk = json_array();
	json_object_set_new(doc, "skipped", sk);
	for (size_t i = 0; sk && i < o->nskipped; i++)
		json_array_append_new(sk, json_string(o->skipped[i]));
	for (size_t i = 0; i < rep->ntable; i++) {
		const struct rep_table *t = &rep->table[i];
		json_t *jt = json_object(), *rows = json_array();
		json_object_set_new(jt, "workload", json_string(t->workload));
		json_object_set_new(jt, "fingerprint", json_string(t->fp ? t->fp->fp_id : ""));
		json_object_set_new(jt, "differs", t->differs[0] ? json_string(t->differs) : json_null());
		json_object_set_new(jt, "rounds", t->rounds ? json_integer(t->rounds) : json_null());
		json_object_set_new(jt, "rows", rows);
		json_object_set_new(jt, "ref_value", t->ref_value && !o->ref ?
				    json_string(t->ref_value) : json_null());
		if (t->pv)
			json_object_set_new(jt, "columns", rep_json_cols(rep, t));
		json_array_append_new(tables, jt);
		for (size_t j = 0; j < t->nrow; j++) {
			const struct rep_row *row = &t->row[j];
			json_t *jr = json_object(), *keys = json_object(), *ids = json_array();
			for (size_t k = 0; k < o->nby; k++)
				json_object_set_new(keys, o->by[k], json_string(row->key[k]));
			for (size_t r = 0; r < row->nrun; r++) {
				const struct res_rec *run = &rep->runs[row->run[r]];
				json_t *ji = json_object();
				json_object_set_new(ji, "id", json_string(run->id));
				json_object_set_new(ji, "status", json_string(res_status_name(run->status)));
				json_object_set_new(ji, "path", json_string(run->path));
				json_array_append_new(ids, ji);
			}
			json_object_set_new(jr, "keys", keys);
			json_object_set_new(jr, "runs", ids);
			enum rep_mark m;
			if (t->pv) {
				json_t *cells = json_array();
				for (size_t c = 0; cells && c < t->pv->ncol; c++)
					json_array_append_new(cells, rep_json_cell(rep, t,
						&t->pv->cell[j * t->pv->ncol + c]));
				json_object_set_new(jr, "cells", cells);
				json_object_set_new(jr, "mark",
						    json_string(rep_pivot_row_mark(t, j, &m)));
			} else {
				json_object_set_new(jr, "peak", rep_json_metric(rep, t, &row->peak,
										&row->tpeak));
				json_object_set_new(jr, "qc", rep_json_metric(rep, t, &row->qc,
									      &row->tqc));
				json_object_set_new(jr, "mark", json_string(rep_row_mark_text(row, &m)));
			}
			if (o->device_stats) {
				const struct rep_dev *d = &row->dev;
				json_object_set_new(
					jr, "device",
					json_pack("{s:s?, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
						  d->device[0] ? d->device : NULL, "points",
						  (int)d->points, "iops", rep_jnum(d->iops), "mb_s",
						  rep_jnum(d->mb_s), "req_kib", rep_jnum(d->req_kib),
						  "merge_ratio", rep_jnum(d->merge_ratio), "util",
						  rep_jnum(d->util), "qdepth", rep_jnum(d->qdepth)));
			}
			json_array_append_new(rows, jr);
		}
	}
	/* ASCII only: no C1 control reaches a terminal raw (escape.h) */
	int rc = json_dumpf(doc, f,
			    JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
	fputc('\n', f);
	json_decref(doc);
	return rc ? -1 : 0;
}

int rep_format_parse(const char *s, enum rep_format *out)
{
	static const char *const names[] = { "text", "md", "csv", "json", "html" };
	for (int i = 0; i < 5; i++)
		if (!strcmp(s, names[i])) {
			*out = (enum rep_format)i;
			return 0;
		}
	return -1;
}

int rep_render(FILE *f, const struct rep_report *rep, enum rep_format fmt, const char *const *svg)
{
	int rc = 0;
	switch (fmt) {
	case REP_TEXT:
	case REP_MD:
		for (size_t i = 0; i < rep->ntable && !rc; i++)
			rc = rep_text_table(f, rep, &rep->table[i], fmt == REP_MD);
		if (!rc)
			rc = rep_text_gmean(f, rep, fmt == REP_MD);
		if (!rc && rep->opts.nskipped) {
			struct rep_text_out to = { f, rep_text_width(rep) };
			if (fmt == REP_MD)
				rep_skipped_notes(rep, rep_emit_md, f);
			else
				rep_skipped_notes(rep, rep_emit_text, &to);
			fputc('\n', f);
		}
		break;
	case REP_CSV:
		rc = rep_csv(f, rep);
		break;
	case REP_JSON:
		rc = rep_json(f, rep);
		break;
	case REP_HTML:
		rc = rep_html(f, rep, svg);
		break;
	}
	return rc || ferror(f) ? -1 : 0;
}
