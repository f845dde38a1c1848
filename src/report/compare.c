// SPDX-License-Identifier: GPL-2.0-only
/*
 * The nightly view: baseline runs against candidate runs, per workload
 * present on both sides, metric by metric (peak, quick convergence, JPM at
 * every user count measured on both), p-values Holm-adjusted over the
 * whole night so that many metrics do not make a noisy night red.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "jobmix/escape.h"
#include "jobmix/report.h"
#include "jobmix/stats.h"
#include "internal.h"

struct rep_side {
	const struct res_rec **run;
	size_t n;
};

static int rep_side_of(const struct res_rec *r, size_t n, const char *wl, struct rep_side *s)
{
	s->n = 0;
	s->run = calloc(n ? n : 1, sizeof(*s->run));
	if (!s->run)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].wl_name, wl))
			s->run[s->n++] = &r[i];
	return 0;
}

/* Every JPM sample at `users` over a side's runs (failed points left out). */
static int rep_side_at(const struct rep_side *s, unsigned users, struct rep_value *v)
{
	size_t cap = 0;
	for (size_t i = 0; i < s->n; i++)
		for (size_t b = 0; b < s->run[i]->summary.nby; b++)
			if (s->run[i]->summary.by[b].users == users)
				cap += s->run[i]->summary.by[b].n;
	memset(v, 0, sizeof(*v));
	v->mean = v->sd = NAN;
	v->x = calloc(cap ? cap : 1, sizeof(*v->x));
	if (!v->x)
		return -1;
	double noise2 = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct res_summary *sm = &s->run[i]->summary;
		double nz = rep_run_noise(s->run[i]);
		for (size_t b = 0; b < sm->nby; b++) {
			const struct res_by_users *by = &sm->by[b];
			if (by->users != users || by->failed)
				continue;
			for (unsigned k = 0; k < by->n && by->samples; k++)
				if (isfinite(by->samples[k])) {
					v->x[v->n++] = by->samples[k];
					noise2 += nz * nz;
				}
		}
	}
	rep_value_finish(v, noise2);
	return 0;
}

static bool rep_side_has(const struct rep_side *s, unsigned users)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t b = 0; b < s->run[i]->summary.nby; b++)
			if (s->run[i]->summary.by[b].users == users && !s->run[i]->summary.by[b].failed)
				return true;
	return false;
}

static int rep_cmp_push(struct rep_cmp *c, size_t *cap, const char *wl, const char *metric,
			unsigned users, const struct rep_value *a, const struct rep_value *b,
			const struct rep_opts *o)
{
	if (c->nrow == *cap) {
		size_t nc = *cap ? *cap * 2 : 32;
		struct rep_cmp_row *v = realloc(c->row, nc * sizeof(*v));
		if (!v)
			return -1;
		c->row = v;
		*cap = nc;
	}
	struct rep_test t;
	rep_test_values(a, b, o->threshold, o->alpha, &t);
	struct rep_cmp_row *r = &c->row[c->nrow++];
	memset(r, 0, sizeof(*r));
	r->workload = wl;
	snprintf(r->metric, sizeof(r->metric), "%s", metric);
	r->users = users;
	r->na = a->n;
	r->nb = b->n;
	r->mean_a = a->mean;
	r->mean_b = b->mean;
	r->sd_a = a->sd;
	r->sd_b = b->sd;
	r->change = t.change;
	r->rule = t.rule;
	r->p = t.mark == REP_UNTESTED ? NAN : t.p;
	r->p_adj = NAN;
	r->verdict = t.mark == REP_UNTESTED ? REP_V_UNTESTED : REP_V_SAME;
	return 0;
}

static int rep_cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

static int rep_compare_workload(const struct rep_side *a, const struct rep_side *b,
				const char *wl, const struct rep_opts *o, struct rep_cmp *c,
				size_t *cap)
{
	struct rep_value va, vb;
	int rc = 0;
	for (int qc = 0; qc < 2 && !rc; qc++) {
		memset(&va, 0, sizeof(va));
		memset(&vb, 0, sizeof(vb));
		if (rep_fold_runs(a->run, a->n, qc, o->qc_max, &va) ||
		    rep_fold_runs(b->run, b->n, qc, o->qc_max, &vb) ||
		    rep_cmp_push(c, cap, wl, qc ? "qc" : "peak", 0, &va, &vb, o))
			rc = -1;
		free(va.x);
		free(vb.x);
	}
	/* user counts measured on both sides, ascending */
	size_t nu = 0, capu = 0;
	for (size_t i = 0; i < a->n; i++)
		capu += a->run[i]->summary.nby;
	unsigned *users = calloc(capu ? capu : 1, sizeof(*users));
	if (!users)
		return -1;
	for (size_t i = 0; i < a->n; i++)
		for (size_t k = 0; k < a->run[i]->summary.nby; k++) {
			unsigned u = a->run[i]->summary.by[k].users;
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
		if (rep_side_at(a, users[j], &va) || rep_side_at(b, users[j], &vb) ||
		    rep_cmp_push(c, cap, wl, m, users[j], &va, &vb, o))
			rc = -1;
		free(va.x);
		free(vb.x);
		va.x = vb.x = NULL;
	}
	free(users);
	return rc;
}

int rep_compare(const struct res_rec *a, size_t na, const struct res_rec *b, size_t nb,
		const struct rep_opts *o_in, struct rep_cmp *out, char *err, size_t errlen)
{
	struct rep_opts o = *o_in;
	memset(out, 0, sizeof(*out));
	if (!(o.threshold > 0))
		o.threshold = REP_THRESHOLD_DEFAULT;
	if (!(o.alpha > 0))
		o.alpha = REP_ALPHA;
	out->threshold = o.threshold;
	out->alpha = o.alpha;
	size_t cap = 0;
	struct rep_side sa = { 0 }, sb = { 0 };
	for (size_t i = 0; i < na; i++) {
		const char *wl = a[i].wl_name;
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = strcmp(a[k].wl_name, wl) != 0;
		if (!first || (o.workload && strcmp(o.workload, wl)))
			continue;
		if (rep_side_of(a, na, wl, &sa) || rep_side_of(b, nb, wl, &sb))
			goto nomem;
		if (sb.n && rep_compare_workload(&sa, &sb, wl, &o, out, &cap))
			goto nomem;
		free(sa.run);
		free(sb.run);
		sa.run = sb.run = NULL;
	}
	/* Holm over every tested row of the night */
	double *p = calloc(out->nrow ? out->nrow : 1, sizeof(*p)), *adj = NULL;
	size_t *ix = calloc(out->nrow ? out->nrow : 1, sizeof(*ix));
	size_t np = 0;
	if (!p || !ix) {
		free(p);
		free(ix);
		goto nomem;
	}
	for (size_t i = 0; i < out->nrow; i++)
		if (isfinite(out->row[i].p)) {
			ix[np] = i;
			p[np++] = out->row[i].p;
		}
	adj = calloc(np ? np : 1, sizeof(*adj));
	if (!adj) {
		free(p);
		free(ix);
		goto nomem;
	}
	stats_holm(p, np, adj);
	for (size_t k = 0; k < np; k++) {
		struct rep_cmp_row *r = &out->row[ix[k]];
		r->p_adj = adj[k];
		if (adj[k] < o.alpha && fabs(r->change) >= o.threshold) {
			r->verdict = r->change < 0 ? REP_V_WORSE : REP_V_BETTER;
			if (r->verdict == REP_V_WORSE)
				out->worse++;
			else
				out->better++;
		}
	}
	free(p);
	free(ix);
	free(adj);
	return 0;
nomem:
	free(sa.run);
	free(sb.run);
	rep_cmp_free(out);
	snprintf(err, errlen, "compare: out of memory");
	return -1;
}

void rep_cmp_free(struct rep_cmp *c)
{
	free(c->row);
	memset(c, 0, sizeof(*c));
}

static const char *rep_verdict_name(enum rep_verdict v)
{
	static const char *const n[] = { "same", "WORSE", "better", "untested" };
	return n[v];
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

/* One row's cells: metric, n, baseline, candidate, change, p, p_adj, verdict. */
static void rep_cmp_cells(const struct rep_cmp_row *r, char cell[8][64])
{
	char sa[32], sb[32];
	snprintf(cell[0], 64, "%s", r->metric);
	snprintf(cell[1], 64, "%u/%u", r->na, r->nb);
	rep_fmt_num(sa, sizeof(sa), r->sd_a, " ± %.0f");
	rep_fmt_num(sb, sizeof(sb), r->sd_b, " ± %.0f");
	if (isfinite(r->mean_a))
		snprintf(cell[2], 64, "%.0f%s", r->mean_a, isfinite(r->sd_a) ? sa : "");
	else
		snprintf(cell[2], 64, "-");
	if (isfinite(r->mean_b))
		snprintf(cell[3], 64, "%.0f%s", r->mean_b, isfinite(r->sd_b) ? sb : "");
	else
		snprintf(cell[3], 64, "-");
	rep_fmt_num(cell[4], 64, r->change * 100, "%+.1f%%");
	rep_fmt_num(cell[5], 64, r->p, "%.3g");
	rep_fmt_num(cell[6], 64, r->p_adj, "%.3g");
	snprintf(cell[7], 64, "%s%s", rep_verdict_name(r->verdict),
		 r->rule == 'z' && r->verdict != REP_V_UNTESTED ? " (noise)" : "");
}

static size_t rep_w(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static int rep_cmp_text(FILE *f, const struct rep_cmp *c, bool md)
{
	static const char *const head[8] = { "Metric", "n", "Baseline", "Candidate", "Change", "p",
					     "p (Holm)", "Verdict" };
	char cell[8][64];
	for (size_t i = 0; i < c->nrow;) {
		const char *wl = c->row[i].workload;
		size_t end = i;
		while (end < c->nrow && c->row[end].workload == wl)
			end++;
		size_t w[8];
		for (int k = 0; k < 8; k++)
			w[k] = rep_w(head[k]);
		for (size_t j = i; j < end; j++) {
			rep_cmp_cells(&c->row[j], cell);
			for (int k = 0; k < 8; k++)
				if (rep_w(cell[k]) > w[k])
					w[k] = rep_w(cell[k]);
		}
		fputs(md ? "### " : "", f);
		esc_put(f, md ? ESC_MD : ESC_TEXT, wl);   /* recorded: escaped (escape.h) */
		fputs(md ? ": baseline against candidate\n\n" : ": baseline against candidate\n", f);
		for (size_t j = i - 1; j + 1 <= end; j++) {
			const char *const *row = (const char *const *)head;
			const char *cells[8];
			if (j != i - 1) {
				rep_cmp_cells(&c->row[j], cell);
				for (int k = 0; k < 8; k++)
					cells[k] = cell[k];
				row = cells;
			}
			if (md)
				fputs("|", f);
			for (int k = 0; k < 8; k++) {
				size_t pad = w[k] - rep_w(row[k]);
				bool right = k >= 1 && k <= 6 && j != i - 1;
				if (md)
					fputc(' ', f);
				for (size_t q = 0; right && q < pad; q++)
					fputc(' ', f);
				fputs(row[k], f);
				for (size_t q = 0; !right && q < pad && (md || k < 7); q++)
					fputc(' ', f);
				fputs(md ? " |" : k < 7 ? "  " : "", f);
			}
			fputc('\n', f);
			if (md && j == i - 1) {
				fputs("|", f);
				for (int k = 0; k < 8; k++) {
					for (size_t q = 0; q < w[k] + 2; q++)
						fputc('-', f);
					fputs("|", f);
				}
				fputc('\n', f);
			}
		}
		fputc('\n', f);
		i = end;
	}
	fprintf(f, "%s%zu metrics compared: %zu worse, %zu better (p < %g after Holm's correction "
		"and a change of at least %g%%).\n", md ? "" : "", c->nrow, c->worse, c->better,
		c->alpha, c->threshold * 100);
	return 0;
}

static json_t *rep_jn(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

int rep_cmp_render(FILE *f, const struct rep_cmp *c, enum rep_format fmt)
{
	if (fmt == REP_TEXT || fmt == REP_MD)
		rep_cmp_text(f, c, fmt == REP_MD);
	else if (fmt == REP_CSV) {
		fputs("workload,metric,users,n_base,n_cand,base_mean,base_sd,cand_mean,cand_sd,"
		      "change_pct,rule,p,p_holm,verdict\n", f);
		for (size_t i = 0; i < c->nrow; i++) {
			const struct rep_cmp_row *r = &c->row[i];
			char v[7][32];
			rep_fmt_num(v[0], 32, r->mean_a, "%.6g");
			rep_fmt_num(v[1], 32, r->sd_a, "%.6g");
			rep_fmt_num(v[2], 32, r->mean_b, "%.6g");
			rep_fmt_num(v[3], 32, r->sd_b, "%.6g");
			rep_fmt_num(v[4], 32, r->change * 100, "%.4g");
			rep_fmt_num(v[5], 32, r->p, "%.4g");
			rep_fmt_num(v[6], 32, r->p_adj, "%.4g");
			for (int k = 0; k < 7; k++)
				if (!strcmp(v[k], "-"))
					v[k][0] = 0;
			char users[16] = "", rule[2] = { r->rule, 0 };
			if (r->users)
				snprintf(users, sizeof(users), "%u", r->users);
			esc_put(f, ESC_CSV, r->workload);
			fprintf(f, ",%s,%s,%u,%u,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", r->metric, users,
				r->na, r->nb, v[0], v[1], v[2], v[3], v[4], rule, v[5], v[6],
				rep_verdict_name(r->verdict));
		}
	} else if (fmt == REP_JSON) {
		json_t *doc = json_object(), *rows = json_array();
		json_object_set_new(doc, "threshold", json_real(c->threshold));
		json_object_set_new(doc, "alpha", json_real(c->alpha));
		json_object_set_new(doc, "worse", json_integer((json_int_t)c->worse));
		json_object_set_new(doc, "better", json_integer((json_int_t)c->better));
		json_object_set_new(doc, "rows", rows);
		for (size_t i = 0; i < c->nrow; i++) {
			const struct rep_cmp_row *r = &c->row[i];
			json_t *o = json_object();
			char rule[2] = { r->rule, 0 };
			json_object_set_new(o, "workload", json_string(r->workload));
			json_object_set_new(o, "metric", json_string(r->metric));
			json_object_set_new(o, "users", r->users ? json_integer(r->users) : json_null());
			json_object_set_new(o, "n_base", json_integer(r->na));
			json_object_set_new(o, "n_cand", json_integer(r->nb));
			json_object_set_new(o, "base_mean", rep_jn(r->mean_a));
			json_object_set_new(o, "base_sd", rep_jn(r->sd_a));
			json_object_set_new(o, "cand_mean", rep_jn(r->mean_b));
			json_object_set_new(o, "cand_sd", rep_jn(r->sd_b));
			json_object_set_new(o, "change", rep_jn(r->change));
			json_object_set_new(o, "rule", r->rule ? json_string(rule) : json_null());
			json_object_set_new(o, "p", rep_jn(r->p));
			json_object_set_new(o, "p_holm", rep_jn(r->p_adj));
			json_object_set_new(o, "verdict", json_string(rep_verdict_name(r->verdict)));
			json_array_append_new(rows, o);
		}
		/* ASCII only: no C1 control reaches a terminal raw (escape.h) */
		int rc = json_dumpf(doc, f,
				    JSON_INDENT(2) | JSON_REAL_PRECISION(10) | JSON_ENSURE_ASCII);
		fputc('\n', f);
		json_decref(doc);
		if (rc)
			return -1;
	} else {
		return -1;
	}
	return ferror(f) ? -1 : 0;
}
