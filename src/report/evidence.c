// SPDX-License-Identifier: GPL-2.0-only
/*
 * What else changed between two sets of runs (compare beside a verdict,
 * report under a marked row): lkp's "changed monitor metrics" for jobmix's
 * evidence, each tested against the noise the runs measured.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/report.h"
#include "jobmix/stats.h"
#include "internal.h"

/* The evidence "what else changed" looks at: the device's, the CPUs', the kernel's. */
static const char *const rep_evidence[] = {
	"dev.kib_req", "dev.iops", "dev.mb_s", "dev.qdepth", "dev.util", "blk.sched_p50_ms",
	"blk.sched_p99_ms", "blk.dev_p50_ms", "blk.dev_p99_ms", "blk.req_kib_p50", "blk.depth_p50",
	"blk.depth_p90", "cpu.user", "cpu.sys",
	"machine.other_pct", "machine.steal_pct", "machine.iowait_s", "machine.ctxt_s",
	"machine.load1", "psi.cpu.some", "psi.io.some", "psi.io.full", "psi.memory.some",
	"vm.pgmajfault_s", "vm.pgscan_s", "vm.refault_s", "vm.nr_written_s", "mem.cache_hit_pct",
};
#define REP_NEVIDENCE (sizeof(rep_evidence) / sizeof(rep_evidence[0]))
_Static_assert(REP_NEVIDENCE <= REP_MAX_EVIDENCE, "rep_evidence.ev holds every metric");

/*
 * Is evidence metric m's difference between the sides at least the
 * threshold (a percentage: 1 point), and its p (ev->p)?  Tested on the log
 * scale as verdicts are (the sides' runs, Welch or paired rounds) when
 * every value is positive, else Welch on the values.  *tested false when
 * a side has no measured spread (fewer than 2 runs).
 */
static bool rep_ev_test(const struct rep_metric *m, const struct rep_value *a,
			const struct rep_value *b, const struct rep_opts *o, struct rep_cmp_ev *ev,
			bool *tested)
{
	*tested = false;
	if (a->n < 2 || b->n < 2)
		return false;   /* a side's noise not measured */
	struct stats_summary sa, sb;
	stats_summarize(a->x, a->n, &sa);
	stats_summarize(b->x, b->n, &sb);
	ev->points = !strcmp(m->unit, "%");
	ev->base = sa.mean;
	ev->cand = sb.mean;
	ev->change = sa.mean != 0 ? sb.mean / sa.mean - 1 : NAN;
	bool positive = sa.min > 0 && sb.min > 0;
	if (!ev->points && positive) {
		struct rep_test t;
		rep_test_values(a, b, o->threshold, o->alpha, &t);
		if (!t.rule)
			return false;
		*tested = true;
		ev->p = t.p;
		ev->change = t.change;
		ev->size = fabs(log1p(t.change));
		return fabs(t.change) >= o->threshold;
	}
	if (sa.stddev == 0 && sb.stddev == 0)
		return false;   /* no spread measured on either side */
	double tstat, df;
	ev->p = stats_welch(&sa, &sb, &tstat, &df);
	*tested = isfinite(ev->p);
	ev->size = ev->points ? fabs(log((sb.mean + 1) / (sa.mean + 1))) :
		   fabs(log((sb.mean + 1e-9) / (sa.mean + 1e-9)));
	double diff = sb.mean - sa.mean;
	bool big = ev->points ? fabs(diff) >= 1 :
		   sa.mean > 0 ? fabs(diff / sa.mean) >= o->threshold : diff != 0;
	return *tested && big;
}

static int rep_ev_cmp(const void *x, const void *y)
{
	const struct rep_cmp_ev *a = x, *b = y;
	return a->size > b->size ? -1 : a->size < b->size;
}

int rep_evidence_between(const struct res_rec *const *a, size_t na,
			 const struct res_rec *const *b, size_t nb, const struct rep_opts *o,
			 struct rep_evidence *out)
{
	struct rep_cmp_ev cand[REP_NEVIDENCE];
	double p[REP_NEVIDENCE], adj[REP_NEVIDENCE];
	size_t ncand = 0, np = 0;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < REP_NEVIDENCE; i++) {
		const struct rep_metric *m;
		char entry[64], err[256];
		if (rep_metric_parse(rep_evidence[i], &m, entry, sizeof(entry), err, sizeof(err)))
			continue;
		struct rep_measure ms = { .m = m, .proj = (unsigned)i + 1 };
		snprintf(ms.name, sizeof(ms.name), "%s", rep_evidence[i]);
		struct rep_value va, vb;
		if (rep_fold_measure(a, na, false, false, &ms, &va))
			return -1;
		if (rep_fold_measure(b, nb, false, false, &ms, &vb)) {
			rep_value_free(&va);
			return -1;
		}
		struct rep_cmp_ev ev = { .unit = m->unit };
		snprintf(ev.metric, sizeof(ev.metric), "%s", rep_evidence[i]);
		bool tested, big = rep_ev_test(m, &va, &vb, o, &ev, &tested);
		out->looked += va.n || vb.n;
		out->tested += tested;
		rep_value_free(&va);
		rep_value_free(&vb);
		if (tested)
			p[np++] = ev.p;
		if (tested && big)
			cand[ncand++] = ev;
	}
	/* beyond the noise: Holm over every tested metric (A/A stays quiet) */
	stats_holm(p, np, adj);
	for (size_t k = 0; k < ncand; k++) {
		double pa = 1;
		for (size_t q = 0; q < np; q++)
			if (p[q] == cand[k].p)
				pa = adj[q];
		if (!(pa < o->alpha))
			continue;
		cand[k].p = pa;
		out->ev[out->n++] = cand[k];
	}
	qsort(out->ev, out->n, sizeof(*out->ev), rep_ev_cmp);
	return 0;
}

void rep_evidence_word(char *buf, size_t len, const struct rep_cmp_ev *e)
{
	if (e->points) {
		snprintf(buf, len, "%s %+.1f points (%.3g -> %.3g%%)", e->metric, e->cand - e->base,
			 e->base, e->cand);
	} else if (isfinite(e->change)) {
		char pct[32];
		rep_pct(pct, sizeof(pct), e->change);
		snprintf(buf, len, "%s %s%% (%.3g -> %.3g %s)", e->metric, pct, e->base, e->cand,
			 e->unit);
	} else {
		snprintf(buf, len, "%s from 0 to %.3g %s", e->metric, e->cand, e->unit);
	}
}

void rep_run_project(struct res_rec *r, void *arg)
{
	(void)arg;
	_Static_assert(REP_NEVIDENCE <= RES_PROJ_MAX, "a run's proj holds every evidence metric");
	static const struct rep_metric *metric[REP_NEVIDENCE];
	static bool parsed;
	if (!parsed) {   /* once: this runs for every run read */
		for (size_t i = 0; i < REP_NEVIDENCE; i++) {
			char entry[64], err[256];
			if (rep_metric_parse(rep_evidence[i], &metric[i], entry, sizeof(entry), err,
					     sizeof(err)))
				metric[i] = NULL;
		}
		parsed = true;
	}
	r->proj_users = 0;
	for (size_t i = 0; i < REP_NEVIDENCE; i++) {
		double v = NAN;
		unsigned u = 0;
		struct rep_measure ms = { .m = metric[i] };
		if (ms.m && !rep_run_measure(r, &ms, &v, &u))
			v = NAN;
		r->proj[i] = v;
		if (u)
			r->proj_users = u;
	}
	r->nproj = REP_NEVIDENCE;
}

bool rep_run_evidence(const struct res_rec *r, const char *name, double *v)
{
	for (size_t i = 0; i < REP_NEVIDENCE; i++) {
		const struct rep_metric *m;
		char entry[64], err[256];
		unsigned u;
		if (strcmp(rep_evidence[i], name) ||
		    rep_metric_parse(name, &m, entry, sizeof(entry), err, sizeof(err)))
			continue;
		struct rep_measure ms = { .m = m, .proj = (unsigned)i + 1 };
		return rep_run_measure(r, &ms, v, &u) && isfinite(*v);
	}
	return false;
}
