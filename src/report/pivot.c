// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tables in the experiment's shape: the measures (--metric) and the values
 * of the --cols keys as columns, the --by keys as rows, one cell per row
 * and column folded over the row's runs that have the column's values,
 * each cell tested against its reference cell (--ref KEY=VALUE: the cell
 * with that value of KEY and every other coordinate its own), with Holm
 * over the table and each measure's own direction; and the geometric mean
 * of the ratios across the workloads' tables (mmtests' Gmean).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/report.h"
#include "internal.h"

#define REP_MAX_DEVS 16   /* devices of one point's entries told apart */

bool rep_is_pseudo(const char *k)
{
	return !strcmp(k, "entry") || !strcmp(k, "metric");
}

/* Add an entry name to the list (distinct, first appearance); its index. */
static size_t rep_entry_add(const char **ent, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(ent[i], name))
			return i;
	ent[*n] = name;
	return (*n)++;
}

/*
 * dev.METRIC (blk.METRIC) where a point's entries did their I/O on several
 * devices: one measure per device the runs' entries used (dev.loop2.kib_req), true; one
 * device a point (or none recorded): false, the metric stays one measure
 * (each point's own entries' device).  At most limit measures in all.
 */
static bool rep_measures_devs(struct rep_report *rep, const struct rep_metric *m, size_t mi,
			      size_t limit)
{
	bool several = false;
	const char *d[REP_MAX_DEVS];
	for (size_t r = 0; r < rep->nruns && !several; r++)
		for (size_t p = 0; p < rep->runs[r].npoints && !several; p++)
			several = rep_point_devices(&rep->runs[r].points[p], d, 2) > 1;
	if (!several)
		return false;
	size_t first = rep->nmeasure;
	for (size_t r = 0; r < rep->nruns; r++)
		for (size_t p = 0; p < rep->runs[r].npoints; p++) {
			size_t n = rep_point_devices(&rep->runs[r].points[p], d, REP_MAX_DEVS);
			for (size_t k = 0; k < n; k++) {
				size_t j = first;
				while (j < rep->nmeasure && strcmp(rep->measure[j].entry, d[k]))
					j++;
				if (j < rep->nmeasure || rep->nmeasure >= limit)
					continue;
				struct rep_measure *ms = &rep->measure[rep->nmeasure++];
				ms->m = m;
				ms->metric_ix = mi;
				snprintf(ms->entry, sizeof(ms->entry), "%s", d[k]);
				int pre = (int)(strchr(m->name, '.') - m->name);
				snprintf(ms->name, sizeof(ms->name), "%.*s.%s.%s", pre, m->name, d[k],
					 m->name + pre + 1);
			}
		}
	return true;
}

/* The measures of --metric: each entry metric without ENTRY once per entry the runs recorded. */
int rep_measures_build(struct rep_report *rep, char *err, size_t errlen)
{
	const struct rep_opts *o = &rep->opts;
	size_t cap = 0, nent = 0;
	for (size_t i = 0; i < rep->nruns; i++)
		for (size_t p = 0; p < rep->runs[i].npoints; p++)
			cap += rep->runs[i].points[p].nkinds;
	cap += o->nmetric + 1;
	const char **ent = calloc(cap, sizeof(*ent));
	rep->measure = calloc(o->nmetric * cap + 1, sizeof(*rep->measure));
	if (!ent || !rep->measure) {
		free(ent);
		snprintf(err, errlen, "report: out of memory");
		return -1;
	}
	for (size_t i = 0; i < o->nmetric; i++) {
		const struct rep_metric *m = o->msel[i].m;   /* rep_opts_resolve: rep_build's */
		const char *entry = o->msel[i].entry;
		size_t first = rep->nmeasure;
		if (m->src == REP_MS_DEV && !entry[0] && rep_measures_devs(rep, m, i, o->nmetric * cap))
			continue;
		if (m->src == REP_MS_ENTRY && !entry[0]) {
			for (size_t r = 0; r < rep->nruns; r++)
				for (size_t p = 0; p < rep->runs[r].npoints; p++)
					for (size_t k = 0; k < rep->runs[r].points[p].nkinds; k++) {
						const char *nm = rep->runs[r].points[p].kinds[k].name;
						size_t ix = rep_entry_add(ent, &nent, nm), j;
						for (j = first; j < rep->nmeasure &&
						     strcmp(rep->measure[j].entry, nm); j++)
							;
						if (j < rep->nmeasure)
							continue;
						struct rep_measure *ms = &rep->measure[rep->nmeasure++];
						ms->m = m;
						snprintf(ms->entry, sizeof(ms->entry), "%s", nm);
						snprintf(ms->name, sizeof(ms->name), "%s.%s", nm, m->name);
						ms->metric_ix = i;
						ms->entry_ix = ix;
					}
			if (rep->nmeasure == first) {
				snprintf(err, errlen, "--metric '%s': no run recorded a mix entry's "
					 "figures", o->metric[i]);
				goto fail;
			}
			continue;
		}
		struct rep_measure *ms = &rep->measure[rep->nmeasure++];
		ms->m = m;
		ms->metric_ix = i;
		snprintf(ms->entry, sizeof(ms->entry), "%s", entry);
		snprintf(ms->name, sizeof(ms->name), "%s", o->metric[i]);
		if (entry[0] && m->src == REP_MS_ENTRY) {
			bool found = false;
			for (size_t r = 0; r < rep->nruns && !found; r++)
				for (size_t p = 0; p < rep->runs[r].npoints && !found; p++)
					for (size_t k = 0; k < rep->runs[r].points[p].nkinds; k++) {
						const struct res_kind *kd = &rep->runs[r].points[p].kinds[k];
						if (!strcmp(kd->name, entry) || !strcmp(kd->job, entry)) {
							ms->entry_ix = rep_entry_add(ent, &nent, kd->name);
							found = true;
							break;
						}
					}
			if (!found) {
				snprintf(err, errlen, "--metric '%s': no run has a mix entry or job "
					 "kind '%s'", o->metric[i], entry);
				goto fail;
			}
		}
	}
	free(ent);
	return 0;
fail:
	free(ent);
	return -1;
}

struct rep_colsort {
	size_t rank[REP_MAX_KEYS + 2];
	struct rep_col col;
};

static int rep_colsort_cmp(const void *pa, const void *pb)
{
	const struct rep_colsort *a = pa, *b = pb;
	for (size_t k = 0; k < REP_MAX_KEYS + 2; k++)
		if (a->rank[k] != b->rank[k])
			return a->rank[k] < b->rank[k] ? -1 : 1;
	return 0;
}

/*
 * The column title: the --cols values in their order, then the measure
 * (its full name, "rw.iops", or without ENTRY when entry is a column key)
 * where the measures vary or nothing else names the column.
 */
static void rep_col_title(const struct rep_report *rep, struct rep_col *c)
{
	const struct rep_opts *o = &rep->opts;
	const struct rep_measure *ms = &rep->measure[c->measure];
	bool many = false, e_col = false, m_col = false;
	for (size_t i = 0; i < rep->nmeasure; i++)
		many = many || i != c->measure;
	for (size_t k = 0; k < o->ncols; k++) {
		e_col = e_col || !strcmp(o->cols[k], "entry");
		m_col = m_col || !strcmp(o->cols[k], "metric");
	}
	const char *mname = e_col ? ms->m->name : ms->name;
	size_t n = 0, ck = 0;
	c->title[0] = 0;
	for (size_t k = 0; k < o->ncols && n < sizeof(c->title); k++) {
		const char *part;
		if (!strcmp(o->cols[k], "entry"))
			part = ms->entry[0] ? ms->entry : NULL;
		else if (!strcmp(o->cols[k], "metric"))
			part = mname;
		else
			part = c->key[ck++];
		if (part)
			n += (size_t)snprintf(c->title + n, sizeof(c->title) - n, "%s%s", n ? " " : "",
					      part);
	}
	if (!m_col && (many || !n) && n < sizeof(c->title))
		snprintf(c->title + n, sizeof(c->title) - n, "%s%s", n ? " " : "", mname);
}

/* Does run r have column c's values of the --cols run keys? */
static bool rep_run_in_col(const struct rep_report *rep, const struct res_rec *r,
			   const struct rep_col *c)
{
	for (size_t k = 0; k < rep->nckey; k++)
		if (strcmp(rep_key_value(r, rep->ckey[k]), c->key[k]))
			return false;
	return true;
}

size_t rep_cell_runs(const struct rep_report *rep, const struct rep_table *t, size_t j, size_t c,
		     const struct res_rec **out)
{
	size_t n = 0;
	for (size_t i = 0; i < t->row[j].nrun; i++) {
		const struct res_rec *r = &rep->runs[t->row[j].run[i]];
		if (rep_run_in_col(rep, r, &t->pv->col[c]))
			out[n++] = r;
	}
	return n;
}

bool rep_cols_same_runs(const struct rep_report *rep, const struct rep_col *c,
			const struct rep_col *d)
{
	for (size_t k = 0; k < rep->nckey; k++)
		if (strcmp(c->key[k], d->key[k]))
			return false;
	return true;
}

/* Table t's columns: each tuple of --cols values its runs have, times each measure, sorted. */
static int rep_pivot_cols(struct rep_report *rep, struct rep_table *t, struct rep_pivot *pv)
{
	const struct rep_opts *o = &rep->opts;
	size_t nrun = 0;
	for (size_t j = 0; j < t->nrow; j++)
		nrun += t->row[j].nrun;
	/* the distinct tuples, by first appearance */
	const char *(*tup)[REP_MAX_KEYS] = calloc(nrun + 1, sizeof(*tup));
	size_t ntup = 0;
	struct rep_colsort *cs = NULL;
	if (!tup)
		return -1;
	for (size_t j = 0; j < t->nrow; j++)
		for (size_t i = 0; i < t->row[j].nrun; i++) {
			const struct res_rec *r = &rep->runs[t->row[j].run[i]];
			size_t u;
			for (u = 0; u < ntup; u++) {
				bool same = true;
				for (size_t k = 0; k < rep->nckey && same; k++)
					same = !strcmp(tup[u][k], rep_key_value(r, rep->ckey[k]));
				if (same)
					break;
			}
			if (u == ntup) {
				for (size_t k = 0; k < rep->nckey; k++)
					tup[ntup][k] = rep_key_value(r, rep->ckey[k]);
				ntup++;
			}
		}
	if (!ntup)
		ntup = 1;
	cs = calloc(ntup * rep->nmeasure + 1, sizeof(*cs));
	if (!cs) {
		free(tup);
		return -1;
	}
	size_t nc = 0;
	for (size_t u = 0; u < ntup; u++)
		for (size_t m = 0; m < rep->nmeasure; m++) {
			struct rep_colsort *c = &cs[nc++];
			size_t nr = 0;
			bool said_e = false, said_m = false;
			memcpy(c->col.key, tup[u], sizeof(c->col.key));
			c->col.measure = m;
			for (size_t k = 0; k < o->ncols; k++) {
				if (!strcmp(o->cols[k], "entry")) {
					said_e = true;
					c->rank[nr++] = rep->measure[m].entry_ix;
				} else if (!strcmp(o->cols[k], "metric")) {
					said_m = true;
					c->rank[nr++] = rep->measure[m].metric_ix;
				} else {   /* a run key: its tuple's first appearance */
					c->rank[nr++] = u;
				}
			}
			if (!said_m)
				c->rank[nr++] = rep->measure[m].metric_ix;
			if (!said_e)
				c->rank[nr++] = rep->measure[m].entry_ix;
			rep_col_title(rep, &c->col);
		}
	qsort(cs, nc, sizeof(*cs), rep_colsort_cmp);
	pv->col = calloc(nc, sizeof(*pv->col));
	if (pv->col)
		for (size_t i = 0; i < nc; i++)
			pv->col[pv->ncol++] = cs[i].col;
	free(cs);
	free(tup);
	return pv->col ? 0 : -1;
}

/* The cell that cell (j, c) is tested against: (row, col), or row -1 for none; itself: a reference. */
static void rep_ref_cell(const struct rep_report *rep, const struct rep_table *t, size_t j,
			 size_t c, size_t *rj, size_t *rc)
{
	const struct rep_pivot *pv = t->pv;
	const struct rep_col *col = &pv->col[c];
	*rj = rep_ref_row(rep, t, j);
	*rc = c;
	if (*rj != j)
		return;
	size_t kc = (size_t)-1;
	for (size_t k = 0; k < rep->nckey; k++)
		if (!strcmp(rep->ckey[k], rep->ref_key))
			kc = k;
	bool by_entry = !strcmp(rep->ref_key, "entry");
	if (kc == (size_t)-1 && !by_entry)
		return;
	const struct rep_measure *ms = &rep->measure[col->measure];
	for (size_t i = 0; i < pv->ncol; i++) {
		const struct rep_col *x = &pv->col[i];
		const struct rep_measure *mx = &rep->measure[x->measure];
		bool same = by_entry ? mx->m == ms->m && mx->metric_ix == ms->metric_ix &&
				       !strcmp(mx->entry, rep->ref_value)
				     : x->measure == col->measure &&
				       !strcmp(x->key[kc], rep->ref_value);
		for (size_t k = 0; k < rep->nckey && same; k++)
			same = k == kc || !strcmp(x->key[k], col->key[k]);
		if (same) {
			*rc = i;
			return;
		}
	}
	*rj = (size_t)-1;
}

/* Fold each cell, then test each against its reference; Holm over the table by direction. */
static int rep_pivot_table(struct rep_report *rep, struct rep_table *t)
{
	struct rep_pivot *pv = calloc(1, sizeof(*pv));
	if (!pv || rep_pivot_cols(rep, t, pv)) {
		free(pv);
		return -1;
	}
	t->pv = pv;
	size_t nr = t->nrow, nc = pv->ncol;
	pv->cell = calloc(nr * nc + 1, sizeof(*pv->cell));
	const struct res_rec **v = calloc(rep->nruns + 1, sizeof(*v));
	struct rep_test **all = calloc(nr * nc + 1, sizeof(*all));
	bool *lower = calloc(nr * nc + 1, sizeof(*lower));
	int rc = -1;
	if (!pv->cell || !v || !all || !lower)
		goto out;
	for (size_t j = 0; j < nr; j++)
		for (size_t c = 0; c < nc; c++) {
			size_t n = rep_cell_runs(rep, t, j, c, v);
			struct rep_cell *cl = &pv->cell[j * nc + c];
			if (rep_fold_measure(v, n, false, false, &rep->measure[pv->col[c].measure],
					     &cl->v))
				goto out;
			memset(&cl->t, 0, sizeof(cl->t));
			cl->t.change = NAN;
		}
	size_t nt = 0;
	for (size_t j = 0; j < nr; j++)
		for (size_t c = 0; c < nc; c++) {
			struct rep_cell *cl = &pv->cell[j * nc + c];
			size_t rj, rcol;
			rep_ref_cell(rep, t, j, c, &rj, &rcol);
			if (rj == (size_t)-1 || (rj == j && rcol == c))
				continue;
			struct rep_cell *ref = &pv->cell[rj * nc + rcol];
			rep_test_values(&ref->v, &cl->v, rep->opts.threshold, rep->opts.alpha, &cl->t);
			if (!cl->t.rule && !cl->t.why)
				continue;   /* neither has a value */
			cl->t.ref = rj;
			cl->ref_col = rcol;
			cl->compared = true;
			ref->is_ref = true;
			t->row[rj].is_ref = true;
			lower[nt] = !rep->measure[pv->col[c].measure].m->higher_better;
			all[nt++] = &cl->t;
		}
	rep_holm_dir(all, lower, nt, rep->opts.threshold, rep->opts.alpha);
	rc = 0;
out:
	free(v);
	free(all);
	free(lower);
	return rc;
}

int rep_pivot_build(struct rep_report *rep)
{
	for (size_t i = 0; i < rep->ntable; i++)
		if (rep_pivot_table(rep, &rep->table[i]))
			return -1;
	return 0;
}

void rep_pivot_free(struct rep_pivot *pv, size_t nrow)
{
	if (!pv)
		return;
	for (size_t i = 0; i < nrow * pv->ncol; i++)
		rep_value_free(&pv->cell[i].v);
	free(pv->cell);
	free(pv->col);
	free(pv);
}

/* ---- across workloads ------------------------------------------------------- */

/* Add one compared value to the summary of its row label and column. */
static int rep_gmean_add(struct rep_report *rep, const char *label, const char *col,
			 const struct rep_test *t, bool lower, const struct rep_test ***tests,
			 size_t *cap)
{
	size_t i;
	for (i = 0; i < rep->ngm; i++)
		if (!strcmp(rep->gm[i].label, label) && !strcmp(rep->gm[i].col, col))
			break;
	if (i == rep->ngm) {
		if (rep->ngm == *cap)
			return -1;
		struct rep_gmean *g = &rep->gm[rep->ngm++];
		memset(g, 0, sizeof(*g));
		snprintf(g->label, sizeof(g->label), "%s", label);
		snprintf(g->col, sizeof(g->col), "%s", col);
		g->lower_better = lower;
	}
	tests[i][rep->gm[i].n++] = t;
	return 0;
}

int rep_gmean_build(struct rep_report *rep)
{
	size_t cap = 0;
	for (size_t i = 0; i < rep->ntable; i++)
		cap += rep->table[i].nrow * (rep->table[i].pv ? rep->table[i].pv->ncol : 2);
	if (rep->ntable < 2 || !cap)
		return 0;
	rep->gm = calloc(cap, sizeof(*rep->gm));
	const struct rep_test ***tests = calloc(cap, sizeof(*tests));
	int rc = -1;
	if (!rep->gm || !tests)
		goto out;
	for (size_t i = 0; i < cap; i++)
		if (!(tests[i] = calloc(rep->ntable, sizeof(**tests))))
			goto out;
	for (size_t i = 0; i < rep->ntable; i++) {
		const struct rep_table *t = &rep->table[i];
		for (size_t j = 0; j < t->nrow; j++) {
			char label[256];
			rep_row_label(rep, &t->row[j], label, sizeof(label));
			if (!t->pv) {
				const struct rep_test *ts[2] = { &t->row[j].tpeak, &t->row[j].tqc };
				static const char *const nm[2] = { "Peak Load", "Quick Convergence" };
				for (int k = 0; k < 2; k++)
					if (isfinite(ts[k]->change) && (ts[k]->rule || ts[k]->why) &&
					    rep_gmean_add(rep, label, nm[k], ts[k], false, tests, &cap))
						goto out;
				continue;
			}
			for (size_t c = 0; c < t->pv->ncol; c++) {
				const struct rep_cell *cl = &t->pv->cell[j * t->pv->ncol + c];
				bool lower = !rep->measure[t->pv->col[c].measure].m->higher_better;
				if (cl->compared && isfinite(cl->t.change) &&
				    rep_gmean_add(rep, label, t->pv->col[c].title, &cl->t, lower, tests,
						  &cap))
					goto out;
			}
		}
	}
	size_t keep = 0;
	for (size_t i = 0; i < rep->ngm; i++) {
		struct rep_gmean *g = &rep->gm[i];
		if (g->n < 2)
			continue;
		rep_gmean_ci(tests[i], g->n, &g->ratio, &g->lo, &g->hi);
		rep->gm[keep++] = *g;
	}
	rep->ngm = keep;
	rc = 0;
out:
	for (size_t i = 0; tests && i < cap; i++)
		free(tests[i]);
	free(tests);
	return rc;
}
