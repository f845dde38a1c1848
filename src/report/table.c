// SPDX-License-Identifier: GPL-2.0-only
/*
 * From run records to the comparison tables: one table per workload, rows
 * grouped by the --by keys and ordered as the reference table (outer keys
 * in order of first appearance, the last key in --sched-order), repeats
 * folded, each row tested against its reference (see report.h), and the
 * curves a chart draws.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/parse.h"
#include "jobmix/report.h"
#include "jobmix/stats.h"
#include "internal.h"

static const char *const rep_default_by[] = { "kernel", "scheduler" };

bool rep_match(const struct res_rec *r, const char *sel)
{
	const char *eq = strchr(sel, '=');
	if (!eq)
		return !strcmp(r->id, sel);
	char key[64];
	if ((size_t)(eq - sel) >= sizeof(key))
		return false;
	snprintf(key, sizeof(key), "%.*s", (int)(eq - sel), sel);
	const char *v = res_rec_get(r, key);
	return v && !strcmp(v, eq + 1);
}

/* Fold one metric over a row's runs. */
static int rep_fold(const struct rep_report *rep, struct rep_row *row, bool qc,
		    struct rep_value *val)
{
	const struct res_rec **v = calloc(row->nrun, sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < row->nrun; i++)
		v[i] = &rep->runs[row->run[i]];
	int rc = rep_fold_runs(v, row->nrun, qc, rep->opts.qc_max, val);
	free(v);
	return rc;
}

/* Rank of a value among a key's values: its index in `order`, else after them by first appearance. */
struct rep_rank {
	const char **v;
	size_t n;
};

static size_t rep_rank_of(struct rep_rank *rk, const char *v, const char *const *order,
			  size_t norder)
{
	for (size_t i = 0; i < norder; i++)
		if (!strcmp(order[i], v))
			return i;
	for (size_t i = 0; i < rk->n; i++)
		if (!strcmp(rk->v[i], v))
			return norder + i;
	rk->v[rk->n] = v;
	return norder + rk->n++;
}

struct rep_sortrow {
	size_t rank[REP_MAX_KEYS];
	size_t first;                 /* first run's index, for stability */
	struct rep_row *row;
};

static int rep_cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct rep_sortrow *a = pa, *b = pb;
	size_t nkeys = *(const size_t *)arg;
	for (size_t k = 0; k < nkeys; k++)
		if (a->rank[k] != b->rank[k])
			return a->rank[k] < b->rank[k] ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static bool rep_same_keys(const struct rep_row *a, const struct rep_row *b, size_t nkeys)
{
	for (size_t k = 0; k < nkeys; k++)
		if (strcmp(a->key[k], b->key[k]))
			return false;
	return true;
}

/* One workload's runs (idx[0..n)) into rows. */
static int rep_build_table(struct rep_report *rep, const char *wl, const size_t *idx, size_t n,
			   struct rep_table *t)
{
	const struct rep_opts *o = &rep->opts;
	size_t nk = o->nby;
	struct rep_sortrow *sr = calloc(n, sizeof(*sr));
	struct rep_row *rows = calloc(n, sizeof(*rows));
	struct rep_rank rk[REP_MAX_KEYS] = { 0 };
	int rc = -1;
	if (!sr || !rows)
		goto out;
	for (size_t k = 0; k < nk; k++)
		if (!(rk[k].v = calloc(n, sizeof(*rk[k].v))))
			goto out;
	t->workload = wl;
	t->nrow = 0;
	for (size_t i = 0; i < n; i++) {
		const struct res_rec *r = &rep->runs[idx[i]];
		struct rep_row probe = { 0 };
		for (size_t k = 0; k < nk; k++)
			probe.key[k] = rep_key_value(r, o->by[k]);
		size_t j;
		for (j = 0; j < t->nrow && !rep_same_keys(&rows[j], &probe, nk); j++)
			;
		if (j == t->nrow) {
			rows[j] = probe;
			if (!(rows[j].run = calloc(n, sizeof(size_t))))
				goto out;
			sr[j].first = i;
			for (size_t k = 0; k < nk; k++)
				sr[j].rank[k] = rep_rank_of(&rk[k], probe.key[k],
							    k == nk - 1 ? o->order : NULL,
							    k == nk - 1 ? o->norder : 0);
			t->nrow++;
		}
		rows[j].run[rows[j].nrun++] = idx[i];
	}
	for (size_t j = 0; j < t->nrow; j++)
		sr[j].row = &rows[j];
	qsort_r(sr, t->nrow, sizeof(*sr), rep_cmp_rows, &nk);
	t->row = calloc(t->nrow, sizeof(*t->row));
	if (!t->row)
		goto out;
	for (size_t j = 0; j < t->nrow; j++)
		t->row[j] = *sr[j].row;
	/* the default reference: the first value of the last key (its lowest rank) */
	t->ref_value = NULL;
	for (size_t j = 0, best = (size_t)-1; j < t->nrow; j++)
		if (sr[j].rank[nk - 1] < best) {
			best = sr[j].rank[nk - 1];
			t->ref_value = t->row[j].key[nk - 1];
		}
	free(rows);
	rows = NULL;
	rc = 0;
out:
	if (rows) {
		for (size_t j = 0; j < n; j++)
			free(rows[j].run);
		free(rows);
	}
	for (size_t k = 0; k < REP_MAX_KEYS; k++)
		free(rk[k].v);
	free(sr);
	return rc;
}

/* Sum the device counters of every measured point of the row's runs (rep_dev). */
static void rep_row_device(const struct rep_report *rep, struct rep_row *row)
{
	struct rep_dev *d = &row->dev;
	double ios = 0, sectors = 0, merges = 0, busy_ms = 0, queue_ms = 0, secs = 0;
	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < row->nrun; i++) {
		const struct res_rec *r = &rep->runs[row->run[i]];
		char dev[32];
		rep_run_device(r, dev, sizeof(dev));
		if (!dev[0])
			continue;
		for (size_t p = 0; p < r->npoints; p++) {
			const struct res_point *pt = &r->points[p];
			if (pt->failed || pt->interrupted)
				continue;
			for (size_t k = 0; k < pt->ndevs; k++) {
				const struct res_dev *x = &pt->devs[k];
				if (strcmp(x->name, dev) || !isfinite(x->window_s) || x->window_s <= 0)
					continue;
				if (!d->device[0])
					snprintf(d->device, sizeof(d->device), "%s", dev);
				d->points++;
				ios += (double)(x->rd_ios + x->wr_ios);
				sectors += (double)(x->rd_sectors + x->wr_sectors);
				merges += (double)(x->rd_merges + x->wr_merges);
				busy_ms += (double)x->io_ticks_ms;
				queue_ms += (double)x->time_in_queue_ms;
				secs += x->window_s;
			}
		}
	}
	d->iops = d->mb_s = d->req_kib = d->merge_ratio = d->util = d->qdepth = NAN;
	if (!d->points || secs <= 0)
		return;
	d->iops = ios / secs;
	d->mb_s = sectors * 512 / 1e6 / secs;
	d->req_kib = ios > 0 ? sectors / 2 / ios : NAN;
	d->merge_ratio = ios + merges > 0 ? merges / (ios + merges) : NAN;
	d->util = busy_ms / 1000 / secs;
	d->qdepth = queue_ms / 1000 / secs;
}

/* Row id, status (every run that is not complete, by state), folded values. */
static int rep_fill_row(struct rep_report *rep, struct rep_row *row)
{
	const struct res_rec *first = &rep->runs[row->run[0]];
	if (row->nrun == 1)
		snprintf(row->id, sizeof(row->id), "%s", first->id);
	else
		snprintf(row->id, sizeof(row->id), "%s +%zu", first->id, row->nrun - 1);
	static const char *const states[] = { "failed", "interrupted", "running",
					      "running, owner gone", "no point measured" };
	unsigned cnt[5] = { 0 }, bad = 0;
	for (size_t i = 0; i < row->nrun; i++) {
		const char *st = rep_run_state(&rep->runs[row->run[i]]);
		for (int s = 0; s < 5; s++)
			if (!strcmp(st, states[s])) {
				cnt[s]++;
				bad++;
			}
	}
	size_t len = 0;
	for (int s = 0; s < 5 && len < sizeof(row->status); s++) {
		if (!cnt[s])
			continue;
		if (row->nrun == 1)
			len += (size_t)snprintf(row->status + len, sizeof(row->status) - len, "%s",
						states[s]);
		else
			len += (size_t)snprintf(row->status + len, sizeof(row->status) - len,
						"%s%u %s", len ? ", " : "", cnt[s], states[s]);
	}
	if (bad && bad < row->nrun && len < sizeof(row->status))
		snprintf(row->status + len, sizeof(row->status) - len, ": not counted");
	if (rep_fold(rep, row, false, &row->peak) || rep_fold(rep, row, true, &row->qc))
		return -1;
	rep_row_device(rep, row);
	return 0;
}

/* Is row j (all of its runs) the baseline? */
static bool rep_row_is_baseline(const struct rep_report *rep, const struct rep_row *row)
{
	for (size_t i = 0; i < row->nrun; i++)
		if (!rep_match(&rep->runs[row->run[i]], rep->opts.baseline))
			return false;
	return true;
}

/* Each row against its reference; Holm over every test of the table, then the verdicts. */
static int rep_test_table(struct rep_report *rep, struct rep_table *t)
{
	const struct rep_opts *o = &rep->opts;
	size_t nk = o->nby, nt = 0;
	struct rep_test **all = calloc(2 * t->nrow + 1, sizeof(*all));
	if (!all)
		return -1;
	for (size_t j = 0; j < t->nrow; j++) {
		struct rep_row *row = &t->row[j];
		size_t ref = (size_t)-1;
		memset(&row->tpeak, 0, sizeof(row->tpeak));
		memset(&row->tqc, 0, sizeof(row->tqc));
		row->tpeak.change = row->tqc.change = NAN;
		if (o->baseline) {
			if (rep_row_is_baseline(rep, row))
				continue;
			for (size_t i = 0; i < t->nrow && ref == (size_t)-1; i++)
				if (i != j && rep_row_is_baseline(rep, &t->row[i]) &&
				    !strcmp(t->row[i].key[nk - 1], row->key[nk - 1]))
					ref = i;
		} else {
			ref = rep_ref_row(rep, t, j);
			if (ref == j)
				continue;
		}
		if (ref == (size_t)-1)
			continue;
		t->row[ref].is_ref = true;
		rep_test_values(&t->row[ref].peak, &row->peak, o->threshold, o->alpha, &row->tpeak);
		rep_test_values(&t->row[ref].qc, &row->qc, o->threshold, o->alpha, &row->tqc);
		row->tpeak.ref = row->tqc.ref = ref;
		all[nt++] = &row->tpeak;
		all[nt++] = &row->tqc;
	}
	rep_holm_tests(all, nt, o->threshold, o->alpha, false);
	free(all);
	return 0;
}

static int rep_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool rep_listed(const char *key, const char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], key))
			return true;
	return false;
}

/* The keys a fingerprint comparison leaves out: the --by keys and --allow-diff's. */
static size_t rep_ignored(const struct rep_opts *o, const char **out)
{
	size_t n = 0;
	for (size_t k = 0; k < o->nby; k++)
		out[n++] = o->by[k];
	for (size_t k = 0; k < o->ncols; k++)
		out[n++] = o->cols[k];
	for (size_t k = 0; k < o->nallow; k++)
		out[n++] = o->allow_diff[k];
	return n;
}

bool rep_same_measure(const struct rep_opts *o, const struct res_rec *a, const struct res_rec *b)
{
	const char *ign[2 * REP_MAX_KEYS + REP_MAX_ALLOW];
	size_t ni = rep_ignored(o, ign);
	if (res_fp_diff(a, b, ign, ni, NULL, NULL))
		return false;
	return rep_listed("session", ign, ni) || !strcmp(a->session, b->session);
}

/* Keys every run answers (res_rec_get's own), known even when no run has a value. */
static const char *const rep_fixed_keys[] = { "kernel", "scheduler", "workload", "status", "id",
					      "run_id", "started", "session", "round",
					      "fingerprint", NULL };

int rep_check_keys(const struct res_rec *runs, size_t nruns, const char *const *keys, size_t n,
		   const char *what, char *err, size_t errlen)
{
	for (size_t k = 0; k < n; k++) {
		bool known = rep_listed(keys[k], rep_fixed_keys, 10);
		for (size_t i = 0; i < nruns && !known; i++)
			known = res_rec_get(&runs[i], keys[k]) != NULL;
		if (known)
			continue;
		/* a suggestion from every key some run has */
		const char *best = NULL;
		unsigned bd = 4;
		for (size_t i = 0; i < nruns; i++) {
			const struct res_rec *r = &runs[i];
			for (size_t j = 0; j < r->nlabels + r->nenv + r->nsettings; j++) {
				const char *c = j < r->nlabels ? r->labels[j].key :
						j < r->nlabels + r->nenv ? r->env[j - r->nlabels].key :
						r->settings[j - r->nlabels - r->nenv].key;
				unsigned d = jm_edit_distance(keys[k], c);
				if (d < bd) {
					bd = d;
					best = c;
				}
			}
		}
		snprintf(err, errlen, "%s '%s': no run has a label, env field or workload setting of "
			 "that name%s%s%s", what, keys[k], best ? " (did you mean '" : "",
			 best ? best : "", best ? "'?)" : "");
		return -1;
	}
	return 0;
}

bool rep_diff_follows(const struct res_rec *a, const struct res_rec *b, const char *key)
{
	size_t n = strlen(key);
	if (strncmp(key, "mix.", 4) || n < 9 || strcmp(key + n - 5, ".runs"))
		return false;
	const struct res_setting *ja = res_setting_find(a, "users.jobs_per_user");
	const struct res_setting *jb = res_setting_find(b, "users.jobs_per_user");
	return ja && jb && strcmp(ja->value, jb->value);
}

struct rep_diffs {
	char *buf;
	size_t len, cap;
	bool vals;                      /* key a vs b, else key a */
	const struct res_rec *a, *b;
};

static void rep_diff_add(const char *key, const char *va, const char *vb, void *ctx)
{
	struct rep_diffs *d = ctx;
	if (d->len >= d->cap || (d->a && rep_diff_follows(d->a, d->b, key)))
		return;
	if (d->vals)
		d->len += (size_t)snprintf(d->buf + d->len, d->cap - d->len, "%s%s %s vs %s",
					   d->len ? ", " : "", key, va, vb);
	else
		d->len += (size_t)snprintf(d->buf + d->len, d->cap - d->len, "%s%s %s",
					   d->len ? ", " : "", key, va);
}

/*
 * What tells the tables of one workload apart: for each table its own
 * values of the keys in which it differs from the first table of the
 * workload (or, for that one, from the next), and the keys with both values.
 */
static void rep_table_differs(const struct rep_report *rep, struct rep_table *tabs, size_t n)
{
	const char *ign[2 * REP_MAX_KEYS + REP_MAX_ALLOW];
	size_t ni = rep_ignored(&rep->opts, ign);
	for (size_t i = 0; i < n; i++) {
		const struct res_rec *other = tabs[i ? 0 : 1].fp;
		struct rep_diffs mine = { tabs[i].differs, 0, sizeof(tabs[i].differs), false,
					  tabs[i].fp, other };
		struct rep_diffs both = { tabs[i].others, 0, sizeof(tabs[i].others), true,
					  tabs[i].fp, other };
		res_fp_diff(tabs[i].fp, other, ign, ni, rep_diff_add, &mine);
		res_fp_diff(tabs[i].fp, other, ign, ni, rep_diff_add, &both);
		if (strcmp(tabs[i].fp->session, other->session) && !rep_listed("session", ign, ni)) {
			mine.a = both.a = NULL;
			rep_diff_add("session", tabs[i].fp->session[0] ? tabs[i].fp->session : "none",
				     other->session[0] ? other->session : "none", &mine);
			rep_diff_add("session", tabs[i].fp->session[0] ? tabs[i].fp->session : "none",
				     other->session[0] ? other->session : "none", &both);
		}
	}
}

/* The rounds of an A/B session in a table whose runs all come from it (0 otherwise). */
static unsigned rep_table_rounds(const struct rep_report *rep, const struct rep_table *t)
{
	unsigned rounds = 0;
	for (size_t j = 0; j < t->nrow; j++)
		for (size_t i = 0; i < t->row[j].nrun; i++) {
			const struct res_rec *r = &rep->runs[t->row[j].run[i]];
			if (!r->session[0] || strcmp(r->session, t->fp->session))
				return 0;
			if (r->sched.round + 1 > rounds)
				rounds = r->sched.round + 1;
		}
	return rounds;
}

/*
 * The axes of the tables: the --cols run keys, the measures, whether the
 * tables pivot, and the reference (--ref KEY=VALUE, else the last --by
 * key's first value, per table).
 */
static int rep_setup_axes(struct rep_report *out, char *err, size_t errlen)
{
	struct rep_opts *ro = &out->opts;
	if (ro->ncols > REP_MAX_KEYS || ro->nmetric > REP_MAX_METRICS) {
		snprintf(err, errlen, "--cols: at most %d keys; --metric: at most %d", REP_MAX_KEYS,
			 REP_MAX_METRICS);
		return -1;
	}
	for (size_t k = 0; k < ro->ncols; k++) {
		if (rep_listed(ro->cols[k], ro->by, ro->nby)) {
			snprintf(err, errlen, "--cols '%s': also a --by key (a key is rows or "
				 "columns)", ro->cols[k]);
			return -1;
		}
		if (!rep_is_pseudo(ro->cols[k]))
			out->ckey[out->nckey++] = ro->cols[k];
	}
	if (rep_check_keys(out->runs, out->nruns, out->ckey, out->nckey, "--cols", err, errlen))
		return -1;
	static const char *const jpm[] = { "jpm" };
	bool only_jpm = !ro->nmetric || (ro->nmetric == 1 && !strcmp(ro->metric[0], "jpm"));
	out->pivot = !only_jpm || ro->ncols > 0;
	if (out->pivot) {
		if (!ro->nmetric && rep_opts_add_metric(ro, jpm[0], err, errlen))
			return -1;
		if (rep_measures_build(out, err, errlen))
			return -1;
		if (ro->baseline) {
			snprintf(err, errlen, "--baseline: not with --metric or --cols (--ref "
				 "KEY=VALUE names the reference)");
			return -1;
		}
	}
	snprintf(out->ref_key, sizeof(out->ref_key), "%s", ro->by[ro->nby - 1]);
	if (!ro->ref)
		return 0;
	const char *eq = strchr(ro->ref, '=');
	if (!eq || eq == ro->ref || (size_t)(eq - ro->ref) >= sizeof(out->ref_key)) {
		snprintf(err, errlen, "--ref '%s': expected KEY=VALUE", ro->ref);
		return -1;
	}
	snprintf(out->ref_key, sizeof(out->ref_key), "%.*s", (int)(eq - ro->ref), ro->ref);
	snprintf(out->ref_value, sizeof(out->ref_value), "%s", eq + 1);
	bool ok = rep_listed(out->ref_key, ro->by, ro->nby) ||
		  (out->pivot && (rep_listed(out->ref_key, out->ckey, out->nckey) ||
				  !strcmp(out->ref_key, "entry")));
	if (!ok) {
		snprintf(err, errlen, "--ref '%s': '%s' is not a --by key%s", ro->ref, out->ref_key,
			 out->pivot ? ", a --cols key or entry" : "");
		return -1;
	}
	return 0;
}

int rep_build(const struct res_rec *runs, size_t nruns, const struct rep_opts *o,
	      struct rep_report *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->opts = *o;
	out->runs = runs;
	out->nruns = nruns;
	struct rep_opts *ro = &out->opts;
	if (!ro->nby) {
		ro->nby = 2;
		ro->by[0] = rep_default_by[0];
		ro->by[1] = rep_default_by[1];
	}
	if (ro->nby > REP_MAX_KEYS) {
		snprintf(err, errlen, "--by: at most %d keys", REP_MAX_KEYS);
		return -1;
	}
	if (ro->nallow > REP_MAX_ALLOW) {
		snprintf(err, errlen, "--allow-diff: at most %d keys", REP_MAX_ALLOW);
		return -1;
	}
	if (rep_opts_resolve(ro, err, errlen))
		return -1;
	if (!(ro->threshold > 0))
		ro->threshold = REP_THRESHOLD_DEFAULT;
	if (!(ro->alpha > 0))
		ro->alpha = REP_ALPHA;
	if (rep_check_keys(runs, nruns, ro->by, ro->nby, "--by", err, errlen))
		return -1;
	if (rep_setup_axes(out, err, errlen)) {
		free(out->measure);   /* built before a later refusal (--ref, --baseline) */
		out->measure = NULL;
		out->nmeasure = 0;
		return -1;
	}

	/* the workloads, sorted by name; within each, one table per fingerprint */
	const char **wls = calloc(nruns ? nruns : 1, sizeof(*wls));
	size_t *idx = calloc(nruns ? nruns : 1, sizeof(*idx));
	size_t *tab_of = calloc(nruns ? nruns : 1, sizeof(*tab_of));
	size_t nwl = 0;
	if (!wls || !idx || !tab_of)
		goto nomem;
	for (size_t i = 0; i < nruns; i++) {
		if (o->workload && strcmp(runs[i].wl_name, o->workload))
			continue;
		size_t j;
		for (j = 0; j < nwl && strcmp(wls[j], runs[i].wl_name); j++)
			;
		if (j == nwl)
			wls[nwl++] = runs[i].wl_name;
	}
	qsort(wls, nwl, sizeof(*wls), rep_cmp_str);
	out->table = calloc(nruns ? nruns : 1, sizeof(*out->table));
	if (!out->table)
		goto nomem;
	bool any_base = false;
	for (size_t w = 0; w < nwl; w++) {
		size_t first = out->ntable;
		for (size_t i = 0; i < nruns; i++) {
			if (strcmp(runs[i].wl_name, wls[w]))
				continue;
			size_t t;
			for (t = first; t < out->ntable && !rep_same_measure(ro, out->table[t].fp, &runs[i]);
			     t++)
				;
			if (t == out->ntable) {
				out->table[t].workload = wls[w];
				out->table[t].fp = &runs[i];
				out->ntable++;
			}
			tab_of[i] = t;
		}
		for (size_t t = first; t < out->ntable; t++) {
			size_t n = 0;
			for (size_t i = 0; i < nruns; i++)
				if (!strcmp(runs[i].wl_name, wls[w]) && tab_of[i] == t) {
					idx[n++] = i;
					any_base = any_base ||
						   (ro->baseline && rep_match(&runs[i], ro->baseline));
				}
			struct rep_table *tb = &out->table[t];
			if (rep_build_table(out, wls[w], idx, n, tb))
				goto nomem;
			for (size_t j = 0; j < tb->nrow; j++)
				if (rep_fill_row(out, &tb->row[j]))
					goto nomem;
			tb->rounds = rep_table_rounds(out, tb);
		}
		if (out->ntable - first > 1)
			rep_table_differs(out, &out->table[first], out->ntable - first);
	}
	if (ro->baseline && !any_base) {
		snprintf(err, errlen, "--baseline '%s': no run matches it", ro->baseline);
		goto fail;
	}
	for (size_t w = 0; w < out->ntable; w++)
		if (rep_test_table(out, &out->table[w]))
			goto nomem;
	if ((out->pivot && rep_pivot_build(out)) || rep_gmean_build(out))
		goto nomem;
	free(wls);
	free(idx);
	free(tab_of);
	return 0;
nomem:
	snprintf(err, errlen, "report: out of memory");
fail:
	free(wls);
	free(idx);
	free(tab_of);
	rep_free(out);
	return -1;
}

void rep_free(struct rep_report *r)
{
	for (size_t w = 0; w < r->ntable; w++) {
		for (size_t j = 0; j < r->table[w].nrow; j++) {
			struct rep_row *row = &r->table[w].row[j];
			free(row->run);
			rep_value_free(&row->peak);
			rep_value_free(&row->qc);
		}
		rep_pivot_free(r->table[w].pv, r->table[w].nrow);
		free(r->table[w].row);
	}
	free(r->measure);
	r->measure = NULL;
	r->nmeasure = 0;
	free(r->gm);
	r->gm = NULL;
	r->ngm = 0;
	free(r->table);
	r->table = NULL;
	r->ntable = 0;
}
