// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ramp strategies (linear, peak, converge, crossover): pure decision logic.
 * Every call re-reads the observations into a sorted view and decides from
 * them; the only state kept is the configuration, the stop once given, and
 * what the last call concluded about the peak and the convergence point.
 */
#include "jobmix/ramp.h"
#include "jobmix/rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/stats.h"

#define RAMP_GOLDEN 0.3819660112501051   /* 2 - phi */
#define RAMP_RECONVERGE 3
#define RAMP_PREDICT_FAR 2.0      /* ramp_predict_s: past twice the highest count measured */
#define RAMP_MAX_DECISIONS ((unsigned long)RAMP_MAX_OBS * RAMP_MAX_SAMPLES + 64)

struct ramp {
	struct ramp_cfg cfg;       /* normalised; cfg.list points to list below */
	unsigned *list;            /* linear: our copy */
	unsigned cap;              /* highest user count ever proposed */
	unsigned lo_bound;         /* one below the lowest count of the range */
	unsigned base;             /* samples per point before any confirmation */
	double thr;                /* convergence threshold, JPM per user */
	double noise;              /* single-sample relative noise floor */
	unsigned last_users;
	unsigned long decisions;
	enum ramp_stop stop;
	const char *stop_phase;
	bool peak_done, peak_flat; /* what the last call concluded */
	bool conv_done;
	/*
	 * converge/crossover: the search settled on a count just short of the
	 * threshold (conv_eval's near), reported as the convergence; 0 when not so.
	 */
	unsigned conv_near_users;
	/*
	 * converge/crossover: the peak search ends once; later points (past the
	 * peak, measured for the crossing) do not reopen it, so noise there
	 * cannot send the ramp back to hunting a peak.  0: not frozen.
	 */
	unsigned peak_frozen_users;
	/*
	 * converge/crossover: the highest count measured when the peak search
	 * handed over to the crossing before refining (the top stopped rising,
	 * or fell at its last growth step); 0 when it did not.  The peak is
	 * then finished after the crossing (peak_finish), on the points up to
	 * top_users, with the crossing's first point as the one past them.
	 */
	unsigned top_users;
	/*
	 * the best count and its samples when the crossing search began (0:
	 * not begun): a best not sampled since is confirmed before the peak
	 * is refined about it (peak_finish)
	 */
	unsigned jump_best_users, jump_best_n;
	bool handover;             /* peak_step's last answer was a hand-over */
	unsigned settle_n;         /* samples the peak's settling asked for (peak_settle) */
	unsigned reconverge;       /* crossing searches run again past a moved peak (conv_settle) */
	unsigned settled_users;    /* where conv_settle last found the peak; 0: not yet */
	bool conv_halted;          /* the crossing search has ended: conv_stop, conv_phase */
	enum ramp_stop conv_stop;
	const char *conv_phase;
};

/* The measured points (a sample or a failure), ascending by users. */
struct ramp_view {
	const struct ramp_obs *p[RAMP_MAX_OBS];
	size_t n;
	double noise_s;            /* pooled relative sd of repeated points */
	unsigned noise_df;         /* its degrees of freedom (0: no estimate) */
	double excess2;            /* the reported range's between-point variance (range_excess); else 0 */
};

/* What the observations say about the peak. */
struct ramp_peak {
	const struct ramp_obs *best;     /* highest mean; NULL: nothing succeeded */
	const struct ramp_obs *rise;     /* last point significantly above all below it */
	const struct ramp_obs *drop;     /* first success above best from which all successes are below it beyond the noise */
	const struct ramp_obs *fail;     /* lowest failed point above best: it bounds the search */
	const struct ramp_obs *lo, *hi;  /* measured neighbours of best (NULL: none) */
	unsigned lo_users, hi_users;     /* their counts; lo_bound / 0 when none */
	size_t nafter;                   /* successful points above `rise` */
	bool drop_top;                   /* the drop is the highest point measured */
	bool flat, narrow;
};

/* What the observations say about the convergence point. */
struct ramp_conv {
	const struct ramp_obs *at;       /* first success with mean/users <= thr */
	const struct ramp_obs *below;    /* the measured point just below it */
	bool resolved;                   /* nothing unmeasured between them */
	const struct ramp_obs *near;     /* past_peak: a point just short of thr (conv_eval) */
};

void ramp_obs_update(struct ramp_obs *o)
{
	struct stats_summary s;
	unsigned n = o->n < RAMP_MAX_SAMPLES ? o->n : RAMP_MAX_SAMPLES;

	stats_summarize(o->jpm, n, &s);
	o->mean = s.mean;
	o->sd = s.stddev;
	/* JPM is a rate: its CI on the ratio scale, never below zero */
	stats_ci95_log(o->jpm, n, &o->ci_lo, &o->ci_hi);
}

const char *ramp_stop_name(enum ramp_stop s)
{
	switch (s) {
	case RAMP_GOING:
		return "going";
	case RAMP_DONE:
		return "done";
	case RAMP_FLAT:
		return "flat";
	case RAMP_MAX_USERS:
		return "max_users";
	case RAMP_MAX_POINTS:
		return "max_points";
	case RAMP_MAX_TIME:
		return "max_time";
	case RAMP_FAILED:
		return "failed";
	case RAMP_INTERRUPTED:
		return "interrupted";
	}
	return "unknown";
}

const char *ramp_tol_src_name(enum ramp_tol_src s)
{
	switch (s) {
	case RAMP_TOL_CONFIGURED:
		return "configured";
	case RAMP_TOL_NOISE:
		return "top noise";
	case RAMP_TOL_SCATTER:
		return "crossing scatter";
	case RAMP_TOL_PRIOR:
		return "crossing prior";
	}
	return "unknown";
}

static bool obs_ok(const struct ramp_obs *o)
{
	return o && !o->failed && o->n > 0;
}

static unsigned obs_n(const struct ramp_obs *o)
{
	return o->n < RAMP_MAX_SAMPLES ? o->n : RAMP_MAX_SAMPLES;
}

int ramp_cfg_check(const struct ramp_cfg *cfg, char *err, size_t errlen)
{
	if (cfg->mode == WL_RAMP_LINEAR) {
		if (!cfg->list || cfg->nlist == 0) {
			snprintf(err, errlen, "ramp: linear mode needs a list of user counts");
			return -1;
		}
		for (size_t i = 0; i < cfg->nlist; i++) {
			if (cfg->list[i] == 0 || cfg->list[i] > RAMP_USERS_MAX) {
				snprintf(err, errlen, "ramp: user count %u out of range 1..%u",
					 cfg->list[i], RAMP_USERS_MAX);
				return -1;
			}
		}
	} else if (cfg->mode != WL_RAMP_PEAK && cfg->mode != WL_RAMP_CONVERGE &&
		   cfg->mode != WL_RAMP_CROSSOVER) {
		snprintf(err, errlen, "ramp: unknown mode %d", (int)cfg->mode);
		return -1;
	}
	if (cfg->growth != 0 && !(cfg->growth > 1.0 && cfg->growth <= 1000.0)) {
		snprintf(err, errlen, "ramp: growth factor %g must be above 1", cfg->growth);
		return -1;
	}
	if (cfg->mode != WL_RAMP_LINEAR && cfg->points != RAMP_POINTS_ASCENDING) {
		snprintf(err, errlen, "ramp: a %s order needs a linear ramp (-m linear)",
			 ramp_points_name(cfg->points));
		return -1;
	}
	if ((unsigned)cfg->points > RAMP_POINTS_SHUFFLE) {
		snprintf(err, errlen, "ramp: unknown order of points");
		return -1;
	}
	if (cfg->start > RAMP_USERS_MAX || cfg->max_users > RAMP_USERS_MAX) {
		snprintf(err, errlen, "ramp: user counts are limited to %u", RAMP_USERS_MAX);
		return -1;
	}
	if (cfg->mode != WL_RAMP_LINEAR && cfg->max_users && cfg->start > cfg->max_users) {
		snprintf(err, errlen, "ramp: start %u is above max_users %u", cfg->start,
			 cfg->max_users);
		return -1;
	}
	if (!(cfg->max_time_s >= 0) || !(cfg->converge_jpm_per_user >= 0) ||
	    !(cfg->noise_rel >= 0 && cfg->noise_rel < 1) ||
	    !(cfg->converge_tol >= 0 && cfg->converge_tol < 0.5)) {
		snprintf(err, errlen, "ramp: negative or out-of-range budget or threshold");
		return -1;
	}
	return 0;
}

const char *ramp_points_name(enum ramp_points p)
{
	static const char *const n[] = { "ascending", "descending", "shuffle" };
	return (unsigned)p < 3 ? n[p] : "?";
}

/* The list in the order it is measured: reversed, or a seeded Fisher-Yates shuffle. */
static void ramp_order_points(unsigned *v, size_t n, enum ramp_points p, uint64_t seed)
{
	if (p == RAMP_POINTS_DESCENDING) {
		for (size_t i = 0; i < n / 2; i++) {
			unsigned t = v[i];
			v[i] = v[n - 1 - i];
			v[n - 1 - i] = t;
		}
	} else if (p == RAMP_POINTS_SHUFFLE && n > 1) {
		struct jm_rng g;
		jm_rng_seed(&g, seed, 0x6f72646572ULL);   /* a stream of its own: "order" */
		for (size_t i = n - 1; i > 0; i--) {
			size_t j = (size_t)jm_rng_below(&g, i + 1);
			unsigned t = v[i];
			v[i] = v[j];
			v[j] = t;
		}
	}
}

struct ramp *ramp_new(const struct ramp_cfg *cfg)
{
	char err[160];
	struct ramp *r = NULL;

	if (ramp_cfg_check(cfg, err, sizeof(err)))
		goto fail;
	r = calloc(1, sizeof(*r));
	if (!r)
		goto fail;
	r->cfg = *cfg;
	if (cfg->mode == WL_RAMP_LINEAR) {
		r->list = malloc(cfg->nlist * sizeof(*r->list));
		if (!r->list)
			goto fail;
		memcpy(r->list, cfg->list, cfg->nlist * sizeof(*r->list));
		r->cfg.list = r->list;
		ramp_order_points(r->list, cfg->nlist, cfg->points, cfg->points_seed);
	} else {
		r->cfg.list = NULL;
		r->cfg.nlist = 0;
	}
	if (!r->cfg.start)
		r->cfg.start = 1;
	if (r->cfg.growth == 0)
		r->cfg.growth = 2.0;
	r->cap = r->cfg.max_users ? r->cfg.max_users : RAMP_USERS_MAX;
	r->lo_bound = (cfg->mode == WL_RAMP_LINEAR ? r->list[0] : r->cfg.start) - 1;
	if (cfg->mode == WL_RAMP_LINEAR)
		for (size_t i = 0; i < cfg->nlist; i++)
			if (r->list[i] - 1 < r->lo_bound)
				r->lo_bound = r->list[i] - 1;
	r->base = r->cfg.repeat ? r->cfg.repeat : 1;
	if (r->base > RAMP_MAX_SAMPLES)
		r->base = RAMP_MAX_SAMPLES;
	if (r->cfg.repeat_auto)
		r->base = 1;
	r->thr = r->cfg.converge_jpm_per_user;
	if (r->thr <= 0)
		r->thr = cfg->mode == WL_RAMP_CROSSOVER ? 10.0 : 60.0;
	r->noise = r->cfg.noise_rel > 0 ? r->cfg.noise_rel : RAMP_NOISE_DEFAULT;
	return r;

fail:
	if (r)
		free(r->list);
	free(r);
	return NULL;
}

void ramp_free(struct ramp *r)
{
	if (!r)
		return;
	free(r->list);
	free(r);
}

static int view_cmp(const void *a, const void *b)
{
	const struct ramp_obs *x = *(const struct ramp_obs *const *)a;
	const struct ramp_obs *y = *(const struct ramp_obs *const *)b;
	if (x->users != y->users)
		return x->users < y->users ? -1 : 1;
	return (x > y) - (x < y);   /* duplicates: keep the first entry */
}

/*
 * Sort the measured observations by users (a duplicate count keeps its
 * first entry) and pool the relative variance of the repeated ones.
 */
static void view_build(struct ramp_view *v, const struct ramp_obs *obs, size_t nobs)
{
	double ss = 0;
	size_t k = 0;

	v->n = 0;
	v->noise_df = 0;
	v->noise_s = 0;
	v->excess2 = 0;
	if (nobs > RAMP_MAX_OBS)
		nobs = RAMP_MAX_OBS;
	for (size_t i = 0; i < nobs; i++)
		if (obs[i].failed || obs[i].n > 0)
			v->p[k++] = &obs[i];
	qsort(v->p, k, sizeof(v->p[0]), view_cmp);
	for (size_t i = 0; i < k; i++) {
		const struct ramp_obs *o = v->p[i];
		if (v->n && v->p[v->n - 1]->users == o->users)
			continue;
		v->p[v->n++] = o;
		if (obs_ok(o) && obs_n(o) >= 2 && o->mean > 0) {
			double rel = o->sd / o->mean;
			ss += (double)(obs_n(o) - 1) * rel * rel;
			v->noise_df += obs_n(o) - 1;
		}
	}
	if (v->noise_df)
		v->noise_s = sqrt(ss / v->noise_df);
}

static const struct ramp_obs *view_find(const struct ramp_view *v, unsigned users)
{
	size_t lo = 0, hi = v->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->p[mid]->users == users)
			return v->p[mid];
		if (v->p[mid]->users < users)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void obs_summary(const struct ramp_obs *o, struct stats_summary *s)
{
	*s = (struct stats_summary){ .n = obs_n(o), .mean = o->mean, .stddev = o->sd,
				     .min = o->mean, .max = o->mean };
}

/*
 * The relative difference between a's and b's means that the measured
 * noise explains at 95% (t95 x pooled relative sd x the standard error
 * factor); meaningful only with v->noise_df >= 2.
 */
static double noise_band(const struct ramp_view *v, const struct ramp_obs *a,
			 const struct ramp_obs *b)
{
	return stats_t95(v->noise_df) * v->noise_s * sqrt(1.0 / obs_n(a) + 1.0 / obs_n(b));
}

/* Is b's mean below a's beyond the noise?  A failed b always is. */
static bool ramp_sig_below(const struct ramp *r, const struct ramp_view *v,
			   const struct ramp_obs *a, const struct ramp_obs *b)
{
	if (!obs_ok(a))
		return false;
	if (b->failed)
		return true;
	if (!obs_ok(b))
		return false;
	double diff = a->mean - b->mean, ref = fabs(a->mean);
	if (diff <= 0)
		return false;
	if (obs_n(a) >= 2 && obs_n(b) >= 2) {
		struct stats_summary sa, sb;
		if (diff < 0.5 * r->noise * ref)
			return false;
		obs_summary(a, &sa);
		obs_summary(b, &sb);
		return stats_welch_p(&sa, &sb) < 0.05;
	}
	double rel = r->noise;
	if (v->noise_df >= 2) {
		rel = noise_band(v, a, b);
		if (rel < 0.5 * r->noise)
			rel = 0.5 * r->noise;
	}
	return diff > rel * ref;
}

/*
 * How a point ranks for "best": its mean less one standard error from the
 * pooled relative noise (0 until some point has repeats).  Points with equal
 * sample counts rank by mean; a lucky single sample does not outrank a point
 * whose repeats established nearly the same mean (the winner's curse).
 */
static double score(const struct ramp_view *v, const struct ramp_obs *o)
{
	return o->mean * (1.0 - v->noise_s / sqrt((double)obs_n(o)));
}

/*
 * Is b within the measured noise of a (noise_band)?  False until the noise
 * is measured (noise_df >= 2): the default floor alone never makes two
 * points equal.
 */
static bool within_noise(const struct ramp_view *v, const struct ramp_obs *a,
			 const struct ramp_obs *b)
{
	if (v->noise_df < 2 || !obs_ok(a) || !obs_ok(b))
		return false;
	return fabs(a->mean - b->mean) <= noise_band(v, a, b) * fabs(a->mean);
}

static bool conv_mode(const struct ramp *r)
{
	return r->cfg.mode == WL_RAMP_CONVERGE || r->cfg.mode == WL_RAMP_CROSSOVER;
}

/* One growth step above the peak: where a wide bracket above it is probed first. */
static unsigned settle_step(const struct ramp *r, const struct ramp_obs *p)
{
	double x = floor(p->users * r->cfg.growth + 0.5);
	return x > p->users ? (unsigned)x : p->users + 1;
}

/*
 * converge/crossover, once the crossing search has begun (the peak finished
 * or settled after it): is the peak p bracketed within a growth step either
 * side (lo, hi its measured neighbours, both below it) with nothing
 * between them likely to rise above it?  That is settled, flat or not: the
 * peak's range reports how far it reaches, and the points between cost the
 * crossing's time (issue 42: +35% on a quiet curve; a quiet round of
 * 2026-12-07 refined a top bracketed by 256 and 512 users to 451-474 in 5
 * points, 58 s, its points a minute apart drifting 4% while repeats agreed
 * within 1%).  -m peak refines it to RAMP_REFINE_REL.
 */
static bool conv_step_narrow(const struct ramp *r, const struct ramp_view *v,
			     const struct ramp_obs *lo, const struct ramp_obs *p,
			     const struct ramp_obs *hi)
{
	if (!(conv_mode(r) && (r->top_users || r->peak_frozen_users) && obs_ok(lo) && obs_ok(hi) &&
	      obs_ok(p) && hi->users <= settle_step(r, p) && settle_step(r, lo) >= p->users &&
	      lo->mean > 0 && p->mean >= lo->mean && p->mean >= hi->mean))
		return false;
	/*
	 * and the parabola through the three (log JPM against log users)
	 * rises above p by less than the measured noise: a sharp hump
	 * between them is still refined
	 */
	double x0 = log(lo->users), x1 = log(p->users), x2 = log(hi->users);
	double y0 = log(lo->mean), y1 = log(p->mean), y2 = log(hi->mean);
	double d = (x1 - x0) * (y1 - y2) - (x1 - x2) * (y1 - y0);
	if (!(fabs(d) > 0))
		return true;          /* flat: nothing rises between them */
	double xv = x1 - 0.5 * ((x1 - x0) * (x1 - x0) * (y1 - y2) -
				(x1 - x2) * (x1 - x2) * (y1 - y0)) / d;
	double yv = y0 * (xv - x1) * (xv - x2) / ((x0 - x1) * (x0 - x2)) +
		    y1 * (xv - x0) * (xv - x2) / ((x1 - x0) * (x1 - x2)) +
		    y2 * (xv - x0) * (xv - x1) / ((x2 - x0) * (x2 - x1));
	double noise = v->noise_df >= 2 ? v->noise_s : 0;
	return yv - y1 <= log1p(noise);
}

/* Find best, the last significant rise, a drop above best, flatness and the bracket. */
static void peak_eval(const struct ramp *r, const struct ramp_view *v, struct ramp_peak *pe)
{
	const struct ramp_obs *maxbelow = NULL;
	size_t bi = 0;

	*pe = (struct ramp_peak){ .lo_users = r->lo_bound };
	for (size_t i = 0; i < v->n; i++) {
		const struct ramp_obs *o = v->p[i];
		if (!obs_ok(o))
			continue;
		if (!maxbelow || ramp_sig_below(r, v, o, maxbelow))
			pe->rise = o;
		if (!maxbelow || o->mean > maxbelow->mean)
			maxbelow = o;
		if (!pe->best || score(v, o) > score(v, pe->best)) {
			pe->best = o;
			bi = i;
		}
	}
	if (!pe->best)
		return;
	/*
	 * The drop: the first point above best from which on every point is
	 * below it beyond the noise.  A point below best with one above it
	 * that is not is a dip (a burst of host noise), not the fall past
	 * the peak.  Only successes count: a failed point (ENOSPC, a crashed
	 * user) says nothing about JPM; it bounds the search (pe->fail) but
	 * is never the drop, so it never establishes the peak.
	 */
	for (size_t i = v->n; i-- > bi + 1;) {
		if (!obs_ok(v->p[i]))
			continue;
		if (!ramp_sig_below(r, v, pe->best, v->p[i]))
			break;
		pe->drop = v->p[i];
	}
	for (size_t i = bi + 1; i < v->n && !pe->fail; i++)
		if (v->p[i]->failed)
			pe->fail = v->p[i];
	pe->drop_top = pe->drop && pe->drop == v->p[v->n - 1];
	for (size_t i = 0; i < v->n; i++)
		if (obs_ok(v->p[i]) && v->p[i]->users > pe->rise->users)
			pe->nafter++;
	/* a top cut short by a failure above it is not known to be flat */
	pe->flat = !pe->drop && !pe->fail && pe->nafter >= 2;
	if (bi > 0) {
		pe->lo = v->p[bi - 1];
		pe->lo_users = pe->lo->users;
	}
	if (bi + 1 < v->n) {
		pe->hi = v->p[bi + 1];
		pe->hi_users = pe->hi->users;
	}
	/*
	 * Narrow enough: within a few percent of the best's users, or, where
	 * neither neighbour is below the best beyond the measured noise (a top
	 * flat within it), within 40% of them: a finer placement than the
	 * noise can resolve costs points and buys nothing.  The default floor
	 * alone never counts (a noise-free curve is refined to the point).
	 */
	unsigned width = pe->hi ? pe->hi_users - pe->lo_users : 0;
	bool flat_top = pe->lo && pe->hi && within_noise(v, pe->best, pe->lo) &&
			within_noise(v, pe->best, pe->hi);
	pe->narrow = pe->hi && (width <= 2 || width <= RAMP_REFINE_REL * pe->best->users ||
				(flat_top && width <= RAMP_REFINE_FLAT_REL * pe->best->users) ||
				conv_step_narrow(r, v, pe->lo, pe->best, pe->hi));
}

/*
 * The scatter of the crossing's own points: the relative sd (of log JPM)
 * of every sample of the successful points past the frozen peak within
 * RAMP_SUSPECT_SPAN of the highest success, about their mean; *df its
 * degrees of freedom (samples - 1; 0: fewer than two samples, 0 returned).
 * Past the peak JPM is near flat, so these samples measure one JPM again
 * and again; their spread is the noise the crossing is read through, often
 * several times the top's (issue 42's quiet rounds: the top's repeats
 * within 0.2-3%, the crossing's points 7-10% apart).  The curve's own fall
 * across the span adds to it a little (about 1-2% on the rounds measured).
 */
static double conv_scatter(const struct ramp *r, const struct ramp_view *v, unsigned *df)
{
	const struct ramp_obs *top = NULL;
	double sum = 0, ss = 0;
	unsigned n = 0;

	*df = 0;
	if (!r->peak_frozen_users)
		return 0;
	for (size_t i = v->n; i-- > 0 && !top;)
		if (obs_ok(v->p[i]))
			top = v->p[i];
	if (!top || top->users <= r->peak_frozen_users)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		double mean = n ? sum / n : 0;
		for (size_t i = 0; i < v->n; i++) {
			const struct ramp_obs *o = v->p[i];
			if (!obs_ok(o) || o->users <= r->peak_frozen_users ||
			    o->users * RAMP_SUSPECT_SPAN < top->users)
				continue;
			for (unsigned k = 0; k < obs_n(o); k++) {
				if (!(o->jpm[k] > 0))
					continue;
				double x = log(o->jpm[k]);
				if (pass) {
					ss += (x - mean) * (x - mean);
				} else {
					sum += x;
					n++;
				}
			}
		}
	}
	if (n < 2)
		return 0;
	*df = n - 1;
	return sqrt(ss / (n - 1));
}

/*
 * The crossing's tolerance (conv_eval, and the converge/crossover search's
 * aim and next count).  cfg.converge_tol, widened once the noise is
 * measured (noise_df >= 2) to the band within which one sample's JPM/user
 * cannot be told from the threshold, RAMP_CONV_TOL_SD x
 * the single-sample noise (about its 95% band), at most RAMP_CONV_TOL_MAX.
 * The crossing's own points may scatter more than the top's repeats
 * (conv_scatter): once two samples lie there, the same band of their
 * scatter, at most RAMP_CONV_TOL_CROSS_MAX, when wider; before that (the
 * crossing search started, fewer than two samples about it), the band of
 * cfg.converge_prior, when wider: a crossing point costs the most a
 * point can, and the top's repeats (a few percent apart) tell little of
 * the crossing's scatter, so a first jump landing within the band the
 * crossing's points usually scatter over settles it (issue 42: quiet
 * rounds spent two more crossing points, 60 s, where the first had landed
 * 5.6% off).
 * A count whose JPM/user meets the threshold within that band is, as far as
 * its sample can tell, where the curve crosses it; a bracket narrower than
 * it is ordered by the noise (two counts 3% apart whose samples spread 7%
 * each meet the threshold in either order); and every point spent
 * narrowing it costs the most a point can (each user takes the longest
 * there).  0 stays 0: an exact crossing was asked for.  *why (may be NULL):
 * which of the three it is (enum ramp_tol_src).
 */
static double conv_tol_why(const struct ramp *r, const struct ramp_view *v, int *why)
{
	double tol = r->cfg.converge_tol, s = RAMP_CONV_TOL_SD * v->noise_s;
	int src = RAMP_TOL_CONFIGURED;
	unsigned df;

	if (tol > 0 && v->noise_df >= 2 && s > tol) {
		tol = s < RAMP_CONV_TOL_MAX ? s : RAMP_CONV_TOL_MAX;
		src = RAMP_TOL_NOISE;
	}
	double c = RAMP_CONV_TOL_SD * conv_scatter(r, v, &df);
	bool prior = !df && r->peak_frozen_users && conv_mode(r) && r->cfg.converge_prior > 0;
	if (prior)
		c = RAMP_CONV_TOL_SD * r->cfg.converge_prior;
	if (c > RAMP_CONV_TOL_CROSS_MAX)
		c = RAMP_CONV_TOL_CROSS_MAX;
	if (tol > 0 && (df >= 1 || prior) && c > tol) {
		tol = c;
		src = df ? RAMP_TOL_SCATTER : RAMP_TOL_PRIOR;
	}
	if (why)
		*why = src;
	return tol;
}

static double conv_tol(const struct ramp *r, const struct ramp_view *v)
{
	return conv_tol_why(r, v, NULL);
}

/*
 * Measure the noise before a decision that rests on it (the best and a
 * neighbour sampled twice: noise_sample): under -r auto, and in
 * converge/crossover with a tolerance, where the crossing's tolerance is
 * the noise (conv_tol) and a flat top is told from a drop by it.  Those
 * samples are taken where points are cheapest, at the top of the growth,
 * before the jump to the crossing.
 */
static bool wants_noise(const struct ramp *r)
{
	return r->cfg.repeat_auto || (conv_mode(r) && r->cfg.converge_tol > 0);
}

/* The phase of such a sample: -r auto's confirmation, else the crossing's noise probe. */
static const char *noise_phase(const struct ramp *r)
{
	return r->cfg.repeat_auto ? "confirm" : "noise probe";
}

/*
 * First success at or below the threshold and what lies just below it;
 * resolved when nothing unmeasured lies between them (within the
 * tolerance).  past_peak (converge/crossover, `at` past the peak): also
 * when `at` meets the threshold within the tolerance, JPM/users in
 * [thr x (1 - tol), thr].  Past the peak JPM does not rise with users, so
 * every count m below at.mean / thr has JPM(m)/m >= at.mean/m > thr: the
 * first count that meets it lies within tol x users below at, measured or
 * not.  (With no tolerance the count below is always measured.)
 *
 * The same holds on the other side: past_peak, when the highest success
 * below `at` (every success when none meets) misses the threshold within
 * the tolerance, JPM/users in (thr, thr x (1 + tol)], every count m from
 * near.mean / thr on has JPM(m)/m <= near.mean/m <= thr, so the first count
 * that meets it lies within tol x users above `near`: `near` settles the
 * crossing by itself (when `at` does not), as close to it as such an `at`
 * would.  One sample cannot tell which side of the threshold a count within
 * the noise of it lies on, so both sides are the window (conv_tol).  The
 * caller checks that `near` lies past the peak.
 */
static void conv_eval(const struct ramp *r, const struct ramp_view *v, struct ramp_conv *ce,
		      bool past_peak)
{
	const struct ramp_obs *near = NULL;
	double tol = conv_tol(r, v);

	*ce = (struct ramp_conv){ 0 };
	for (size_t i = 0; i < v->n; i++) {
		const struct ramp_obs *o = v->p[i];
		if (!obs_ok(o))
			continue;
		if (o->mean / o->users > r->thr) {
			near = o;
			continue;
		}
		double span = tol * o->users;
		ce->at = o;
		ce->below = i ? v->p[i - 1] : NULL;
		unsigned below = ce->below ? ce->below->users : r->lo_bound;
		ce->resolved = o->users - below <= 1 || (ce->below && o->users - below <= span);
		if (past_peak && span > 0 && o->users - o->mean / r->thr <= span)
			ce->resolved = true;
		break;
	}
	if (past_peak && tol > 0 && near && near->mean / near->users <= r->thr * (1 + tol))
		ce->near = near;
}

static struct ramp_decision go(unsigned users, const char *phase)
{
	return (struct ramp_decision){ .stop = RAMP_GOING, .users = users, .phase = phase };
}

static struct ramp_decision halt(enum ramp_stop s, const char *phase)
{
	return (struct ramp_decision){ .stop = s, .users = 0, .phase = phase };
}

/* Of two candidates for one more sample, the one with fewer (then fewer users). */
static const struct ramp_obs *fewer(const struct ramp_obs *a, const struct ramp_obs *b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	if (obs_n(a) != obs_n(b))
		return obs_n(a) < obs_n(b) ? a : b;
	return a->users <= b->users ? a : b;
}

/*
 * -r auto, learning the noise: the best until it has two samples, then
 * whichever neighbour has fewer; never a failed point (it is not measured
 * again).  NULL when they have two each.
 */
static const struct ramp_obs *noise_sample(const struct ramp_peak *pe)
{
	if (obs_n(pe->best) < 2)
		return pe->best;
	return fewer(obs_ok(pe->lo) && obs_n(pe->lo) < 2 ? pe->lo : NULL,
		     obs_ok(pe->hi) && obs_n(pe->hi) < 2 ? pe->hi : NULL);
}

/*
 * repeat_auto: before a peak claim, the point to sample again: best until it
 * has two samples (a CI), and best and each deciding point d that are not
 * yet told apart (by Welch's test, or by the measured noise; the default
 * floor alone does not count), up to RAMP_AUTO_SAMPLES each.  NULL when
 * nothing needs it.
 */
static const struct ramp_obs *confirm_peak(const struct ramp *r, const struct ramp_view *v,
					   const struct ramp_obs *best,
					   const struct ramp_obs *const *d, size_t nd,
					   unsigned cap)
{
	const struct ramp_obs *pick = NULL;

	if (!r->cfg.repeat_auto)
		return NULL;
	if (obs_n(best) < 2)
		return best;
	for (size_t i = 0; i < nd; i++) {
		if (!obs_ok(d[i]) || d[i] == best)
			continue;
		/*
		 * Told apart: by Welch's test, or by the measured noise; never
		 * by the default floor alone (a noisy machine beats it).
		 */
		if (ramp_sig_below(r, v, best, d[i]) && (obs_n(d[i]) >= 2 || v->noise_df >= 2))
			continue;
		if (obs_n(d[i]) < cap)
			pick = fewer(pick, d[i]);
		if (obs_n(best) < cap)
			pick = fewer(pick, best);
	}
	return pick;
}

/* Next growth step above t: t*growth (at least t+1), or cap once, or 0. */
static unsigned grow_next(const struct ramp *r, const struct ramp_view *v, unsigned t)
{
	double want = floor((double)t * r->cfg.growth + 0.5);
	unsigned next = want > (double)r->cap ? r->cap + 1u : (unsigned)want;
	if (next <= t)
		next = t + 1;
	if (next <= r->cap)
		return next;
	if (t < r->cap && !view_find(v, r->cap))
		return r->cap;
	return 0;
}

/* Golden-section probe in the larger side of the bracket around the best point. */
static unsigned refine_probe(const struct ramp_peak *pe)
{
	unsigned b = pe->best->users, gl = b - pe->lo_users, gh = pe->hi_users - b;
	unsigned x;
	if (gh >= gl) {
		unsigned step = (unsigned)floor(RAMP_GOLDEN * gh + 0.5);
		x = b + (step ? step : 1);
		if (x >= pe->hi_users)
			x = pe->hi_users - 1;
	} else {
		unsigned step = (unsigned)floor(RAMP_GOLDEN * gl + 0.5);
		x = b - (step ? step : 1);
		if (x <= pe->lo_users)
			x = pe->lo_users + 1;
	}
	return x;
}

/*
 * Is o below p beyond the noise, for the peak's range?  By the measured
 * noise on the ratio scale: log(p/o) beyond crit x the pooled relative sd x
 * the standard error factor (never below half the floor), where crit is
 * Student's t for a family of m comparisons (p against each of the view's
 * m other successful points) at 95% together: the two-sided quantile at
 * 0.05 / m (Bonferroni; t95 for one).  The peak is the best of m + 1 noisy
 * points, so its lead over the rest is partly noise; the range is the set
 * of counts that could be the best (Hsu's multiple comparisons with the
 * best), which a per-point 95% test made too narrow: it held the best of
 * other rounds' sweeps in 75-88% of rounds (bench/ramp-sim.sh).  Ratios,
 * not fractions of the peak: a band read as a fraction reaches 100% on a
 * noisy top with few degrees of freedom, where noise that multiplies JPM
 * puts the same band between ratios (1 : e^1.05).  A failed o is always
 * below.
 */
static bool range_below(const struct ramp *r, const struct ramp_view *v,
			const struct ramp_obs *p, const struct ramp_obs *o, double crit)
{
	if (o->failed)
		return true;
	if (v->noise_df < 2 || !obs_ok(p) || !obs_ok(o) || !(p->mean > 0))
		return false;
	if (!(o->mean > 0))
		return true;
	double s2 = v->noise_s * v->noise_s;
	double band = crit * sqrt(s2 * (1.0 / obs_n(p) + 1.0 / obs_n(o)) + 2 * v->excess2);
	if (band < 0.5 * r->noise)
		band = 0.5 * r->noise;
	return log(p->mean / o->mean) > band;
}

/*
 * The variance between points that the samples at one count do not show
 * (log scale), for the reported range: 0 when the points agree with the
 * pooled noise.  Repeats are taken back to back, so noise that lasts
 * longer than a point (drift, a burst of other work) moves a point's
 * samples together and the pooled sd misses it, while the point's mean
 * carries it whole: a count measured high in a good minute then outranks
 * its neighbours "beyond the noise" that were measured in a bad one.
 * Where the search measured close counts (three consecutive points within
 * RAMP_LOF_SPAN of users: refining, mapping, settling), a smooth curve
 * puts the middle one on the line (in log users) through the outer two,
 * give or take its curvature (about 0.1% on a rise like u / (u + k) at
 * that span; growth's doublings lie too far apart to tell curvature from
 * noise, and a wider span read test_peak_range's corner as noise); the
 * residuals' squares beyond what the pooled noise predicts, over the same
 * sum for a between-point variance x2 of each mean (1 + wa^2 + wb^2), are
 * x2's moment estimate.  bench/ramp-sim.sh 2000 noisy: without it the
 * range held the true top in 81.6% of -m peak -r auto trials under drift
 * and 87.5% of -m converge -r 1 under bursts; with it 95.8% and 96.6%.
 */
static double range_excess(const struct ramp_view *v)
{
	double rr = 0, cw = 0, cb = 0;

	for (size_t i = 1; i + 1 < v->n; i++) {
		const struct ramp_obs *a = v->p[i - 1], *o = v->p[i], *b = v->p[i + 1];
		if (!obs_ok(a) || !obs_ok(o) || !obs_ok(b) || !(a->mean > 0) || !(o->mean > 0) ||
		    !(b->mean > 0) || b->users > RAMP_LOF_SPAN * a->users)
			continue;
		double xa = log(a->users), xb = log(b->users);
		double wb = (log(o->users) - xa) / (xb - xa), wa = 1 - wb;
		double res = log(o->mean) - wa * log(a->mean) - wb * log(b->mean);
		rr += res * res;
		cw += 1.0 / obs_n(o) + wa * wa / obs_n(a) + wb * wb / obs_n(b);
		cb += 1 + wa * wa + wb * wb;
	}
	if (!(cb > 0))
		return 0;
	double x2 = (rr - v->noise_s * v->noise_s * cw) / cb;
	return x2 > 0 ? x2 : 0;
}

/*
 * The peak's range (ramp.h, peak_users_lo..hi): the view's points a..b
 * about p out to the first on either side below it beyond the noise
 * (range_below).
 */
static void peak_range(const struct ramp *r, const struct ramp_view *v, const struct ramp_obs *p,
		       size_t *a, size_t *b)
{
	size_t at = 0, m = 0;

	for (size_t i = 0; i < v->n; i++)
		m += obs_ok(v->p[i]) && v->p[i] != p;
	double crit = 0;
	if (v->noise_df >= 2) {
		/* one-sided at 0.05 / m: the normal's quantile, over the two-sided 95% one's */
		double widen = stats_t_quantile(1e9, 0.05 / (m ? m : 1)) / stats_t_quantile(1e9, 0.05);
		crit = stats_t95(v->noise_df) * (widen > 1 ? widen : 1);
	}
	while (v->p[at] != p)
		at++;
	for (*a = at; *a > 0 && !range_below(r, v, p, v->p[*a - 1], crit); --*a)
		;
	for (*b = at; *b + 1 < v->n && !range_below(r, v, p, v->p[*b + 1], crit); ++*b)
		;
}

/*
 * The peak's range as reported (ramp.h, peak_users_lo..hi): the points a..b
 * that cannot be told from the peak and the unmeasured gaps out to the
 * nearest measured count on either side that is below it beyond the noise
 * (or failed): the true top may lie anywhere short of those, and a range
 * ending at the last point not below would claim a precision the gaps do
 * not have.  Below the lowest point measured: that point (the search's
 * start).  Above the highest, when it is not below the peak: the search's
 * ceiling (max_users; a linear list's last count), since nothing measured
 * says the curve falls before it.
 */
static void range_span(const struct ramp *r, const struct ramp_view *v, size_t a, size_t b,
		       unsigned *lo, unsigned *hi)
{
	*lo = a > 0 ? v->p[a - 1]->users + 1 : v->p[a]->users;
	if (b + 1 < v->n)
		*hi = v->p[b + 1]->users - 1;
	else if (r->cfg.mode != WL_RAMP_LINEAR && r->cfg.max_users > v->p[b]->users)
		*hi = r->cfg.max_users;
	else
		*hi = v->p[b]->users;
}

/*
 * A flat top, mapped before it is picked: the peak's range (peak_range)
 * spans the user counts the noise cannot tell from the best, and the
 * growth steps measured only a few of them (16, 32, 48 of a top that runs
 * from 8 to 48).  flat_pick reads which way the top leans from each point's
 * neighbours, which a gap of 16 users hides.  The midpoint of the widest
 * gap in the range while any gap is wider than RAMP_FLAT_GAP_REL of the
 * range's top users (and than 2 users); 0 when the range is mapped.
 */
static unsigned map_probe(const struct ramp *r, const struct ramp_view *v,
			  const struct ramp_obs *best)
{
	unsigned gap = 0, at = 0;
	size_t a, b;

	if (v->noise_df < 2)
		return 0;
	peak_range(r, v, best, &a, &b);
	for (size_t i = a; i < b; i++) {
		unsigned lo = v->p[i]->users, hi = v->p[i + 1]->users;
		if (hi - lo > gap) {
			gap = hi - lo;
			at = lo + gap / 2;
		}
	}
	return gap > 2 && gap > RAMP_FLAT_GAP_REL * v->p[b]->users ? at : 0;
}

/*
 * converge/crossover: has growth stopped rising, or is a slow rise not worth
 * its next step?  The highest point is a drop, or it is not above the best
 * below it beyond the noise, or it gained less than RAMP_CONV_GAIN over it
 * while the next growth step would measure more than 1/RAMP_CONV_GROW_DIV
 * of the crossing its JPM predicts (JPM / thr): a point costs about its
 * users, a top rising a few percent a doubling moves the crossing less than
 * the noise of one point there, and the crossing's own points predict it
 * again.  Needs two successful points below the top, and, when the best is
 * not the top, two successful points above the best: one low point past
 * it is as often a dip (a burst of host noise) as the fall, and a jump
 * from a dip leaves the top unmeasured (issue 42: 4 users, then 119).
 */
static bool conv_topped(const struct ramp *r, const struct ramp_view *v,
			const struct ramp_peak *pe, unsigned next)
{
	const struct ramp_obs *top = v->p[v->n - 1], *below = NULL;
	unsigned nok = 0;

	if (!obs_ok(top))
		return false;
	for (size_t i = 0; i + 1 < v->n; i++) {
		if (!obs_ok(v->p[i]))
			continue;
		nok++;
		if (!below || v->p[i]->mean > below->mean)
			below = v->p[i];
	}
	if (nok < 2)
		return false;
	/*
	 * The peak found before the jump: two points measured above the best
	 * (a single low point is a dip as often as the fall), or the best at
	 * the top rising too slowly to be worth its next step.
	 */
	unsigned above = 0;
	for (size_t i = 0; i < v->n; i++)
		above += obs_ok(v->p[i]) && v->p[i]->users > pe->best->users;
	if (above >= 2)
		return true;
	if (pe->best != top)
		return false;
	return top->mean < below->mean * (1.0 + RAMP_CONV_GAIN) &&
	       (double)next * RAMP_CONV_GROW_DIV > top->mean / r->thr;
}

/*
 * The highest mean among the view's successes (the lowest count on a tie):
 * the peak a settled search reports, so that no measured count lies above
 * it and Quick Convergence, a measured count, never exceeds it.
 */
static const struct ramp_obs *top_pick(const struct ramp_view *v)
{
	const struct ramp_obs *p = NULL;

	for (size_t i = 0; i < v->n; i++)
		if (obs_ok(v->p[i]) && (!p || v->p[i]->mean > p->mean))
			p = v->p[i];
	return p;
}

/* Samples at counts measured at least twice: what the pooled noise rests on. */
static unsigned pooled_samples(const struct ramp_view *v)
{
	unsigned n = 0;

	for (size_t i = 0; i < v->n; i++)
		if (obs_ok(v->p[i]) && obs_n(v->p[i]) >= 2)
			n += obs_n(v->p[i]);
	return n;
}

/* The successes measured next below and above p (NULL: none). */
static void ok_neighbours(const struct ramp_view *v, const struct ramp_obs *p,
			  const struct ramp_obs **lo, const struct ramp_obs **hi)
{
	*lo = *hi = NULL;
	for (size_t i = 0; i < v->n; i++) {
		const struct ramp_obs *o = v->p[i];
		if (!obs_ok(o) || o == p)
			continue;
		if (o->users < p->users)
			*lo = o;
		else if (!*hi)
			*hi = o;
	}
}

/* A sample's cost at o: its users over its JPM (each user runs the same jobs). */
static double obs_cost(const struct ramp_obs *o)
{
	return o->mean > 0 ? o->users / o->mean : INFINITY;
}

/*
 * The noise at the peak, where it costs least.  A measured peak needs each
 * measured neighbour sampled twice or the pooled noise from
 * RAMP_PEAK_POOLED samples: the neighbours with one sample (fewer()) unless
 * their cost is over twice that of the samples the pool lacks taken at the
 * peak (far past the peak a point costs ten times one at it: issue 42, a
 * crossing point sampled again for the peak's noise); NULL when the
 * neighbours have two each.  (A neighbour's second sample also tells
 * whether it lies below.)
 */
static const struct ramp_obs *cheapest(const struct ramp_view *v, const struct ramp_obs *p,
				       const struct ramp_obs *lo, const struct ramp_obs *hi)
{
	double nb = (lo ? obs_cost(lo) : 0) + (hi ? obs_cost(hi) : 0);
	unsigned lack = RAMP_PEAK_POOLED - pooled_samples(v);

	if (!lo && !hi)
		return NULL;
	return nb <= 2 * lack * obs_cost(p) ? fewer(lo, hi) : p;
}


/*
 * The lowest unmeasured growth step inside a gap between two successes at
 * or below p, from the lower of them (*from); 0 when there is none.  A
 * jump to the crossing leaves such a gap between the top of the growth
 * and the crossing's first point, and the crossing's points lie a fraction
 * of a growth step apart: the gap below p is rarely right under it (issue
 * 42: 64 users, then 646 and 832; the peak search sampled 832 again and
 * doubled past it to 1,664, 64 s, with 128 and 256 never measured).
 */
static unsigned gap_below(const struct ramp *r, const struct ramp_view *v,
			  const struct ramp_obs *p, const struct ramp_obs **from)
{
	const struct ramp_obs *a = NULL;

	*from = NULL;
	for (size_t i = 0; i < v->n && v->p[i]->users <= p->users; i++) {
		const struct ramp_obs *b = v->p[i];
		if (!obs_ok(b))
			continue;
		if (a) {
			unsigned g = settle_step(r, a);
			if (g < b->users && !view_find(v, g)) {
				*from = a;
				return g;
			}
		}
		a = b;
	}
	return 0;
}

/*
 * Is p a measured peak (issue 42)?  It has two samples, the noise is
 * measured at the top (each measured neighbour sampled twice, or the pooled
 * noise rests on RAMP_PEAK_POOLED samples), a success above it is measured
 * and its neighbours' means lie below its own.
 */
static bool peak_measured(const struct ramp *r, const struct ramp_view *v,
			  const struct ramp_obs *p, bool flat)
{
	const struct ramp_obs *lo, *hi;

	if (!obs_ok(p) || obs_n(p) < 2)
		return false;
	ok_neighbours(v, p, &lo, &hi);
	if (!hi && !(flat && lo))
		return false;
	/* on a top flat within the noise, neighbours not above it beyond the noise */
	if (flat ? (hi && ramp_sig_below(r, v, hi, p)) || (lo && ramp_sig_below(r, v, lo, p))
		 : hi->mean >= p->mean || (lo && lo->mean >= p->mean))
		return false;
	return pooled_samples(v) >= RAMP_PEAK_POOLED ||
	       ((!lo || obs_n(lo) >= 2) && (!hi || obs_n(hi) >= 2));
}

/*
 * Before a peak claim: settle the peak on every point measured (issue 42).
 * The peak is the highest mean (top_pick): sampled twice; with two
 * successes measured above it (else the next growth step past the top: a
 * single low point is a dip as often as the fall); the noise measured at
 * it (its neighbours sampled twice unless the pooled noise rests on
 * RAMP_PEAK_POOLED samples); and the bracket about it narrow as peak_eval
 * asks (else a golden-section probe in it: a jump that landed above
 * everything measured goes back and measures between).  Each new sample may
 * move the peak and the settling starts over about it.  GOING with a point,
 * Growth past the top only when grow (converge: not past a crossing, where
 * a point costs the most).
 * GOING with a point,
 * or RAMP_DONE with *claim whether the peak is measured (peak_measured;
 * flat: the search found the top flat within the noise);
 * no claim once RAMP_SETTLE_MAX samples did not settle it, or when growth
 * is blocked at the top.
 */
static struct ramp_decision peak_settle(struct ramp *r, const struct ramp_view *v, bool flat,
					bool grow, bool *claim)
{
	const struct ramp_obs *p = top_pick(v), *lo, *hi, *pick = NULL;
	bool fail_above = false;

	*claim = false;
	if (!p)
		return halt(RAMP_DONE, "no peak");
	if (r->settle_n >= RAMP_SETTLE_MAX)
		return halt(RAMP_DONE, "peak not settled");
	ok_neighbours(v, p, &lo, &hi);
	unsigned above = 0;
	for (size_t i = 0; i < v->n; i++) {
		above += obs_ok(v->p[i]) && v->p[i]->users > p->users;
		fail_above = fail_above || (v->p[i]->failed && v->p[i]->users > p->users);
	}
	const struct ramp_obs *gap_lo = NULL;
	unsigned gap = above < 2 ? gap_below(r, v, p, &gap_lo) : 0;
	bool gap_open = gap != 0;
	/*
	 * a single sample above everything measured far past the top (a
	 * crossing point read as the peak) is sampled again only once the
	 * gap's cheap points are measured: one of them may hold the peak and
	 * spare the crossing's most costly point (issue 42: a quiet round
	 * sampled a crossing point again, 31 s, and then found the peak at
	 * 128-177 users, 4 s a point)
	 */
	if (obs_n(p) < 2 && !(gap_open && gap / gap_lo->mean <= RAMP_GAP_COST * obs_cost(p)))
		pick = p;
	else if (gap_open) {
		/*
		 * a jump that landed above everything measured (the crossing
		 * read as the peak): the gap below it first, where points cost
		 * less than past it and may hold the peak
		 */
		r->settle_n++;
		return go(gap, "settle peak");
	} else if (above < 2 && !fail_above && !(flat && lo && !ramp_sig_below(r, v, p, lo))) {
		/*
		 * (a top flat within the noise out to the highest count needs no
		 * point past it)  With one point above the peak (the crossing,
		 * say), the second lies between them: the growth step from the
		 * peak, or the geometric middle when that step reaches the
		 * crossing; a doubling past the crossing would cost twice a
		 * crossing point (bench/ramp-sim.sh quick: 72 of 169 s)
		 */
		unsigned top = v->p[v->n - 1]->users, s = settle_step(r, p);
		if (s >= top)
			s = (unsigned)floor(sqrt((double)p->users * top) + 0.5);
		unsigned next = above && s > p->users && s < top && !view_find(v, s) ? s :
				grow ? grow_next(r, v, top) : 0;
		if (!next)
			return halt(RAMP_DONE, "growth blocked above the peak");
		r->settle_n++;
		return go(next, "past peak");
	} else if (hi && hi->users > settle_step(r, p) && !view_find(v, settle_step(r, p))) {
		/* a bracket wider than a growth step: its cheap end first */
		r->settle_n++;
		return go(settle_step(r, p), "settle peak");
	} else if (pooled_samples(v) < RAMP_PEAK_POOLED) {
		pick = cheapest(v, p, lo && obs_n(lo) < 2 ? lo : NULL, hi && obs_n(hi) < 2 ? hi : NULL);
	}
	if (pick && obs_n(pick) < RAMP_MAX_SAMPLES) {
		r->settle_n++;
		return go(pick->users, "settle peak");
	}
	if (!hi) {
		*claim = peak_measured(r, v, p, flat);
		return halt(RAMP_DONE, *claim ? "peak settled" : "no point above the peak");
	}
	struct ramp_peak pe = { .best = p, .lo = lo, .hi = hi, .lo_users = lo ? lo->users : r->lo_bound,
				.hi_users = hi->users };
	unsigned width = pe.hi_users - pe.lo_users;
	bool flat_top = within_noise(v, p, hi) && (!lo || within_noise(v, p, lo));
	bool step = conv_step_narrow(r, v, lo, p, hi);
	bool narrow = width <= 2 || width <= RAMP_REFINE_REL * p->users || step ||
		      (flat_top && width <= RAMP_REFINE_FLAT_REL * p->users);
	unsigned x = narrow ? 0 : refine_probe(&pe);
	if (x && !view_find(v, x)) {
		r->settle_n++;
		return go(x, "settle peak");
	}
	*claim = peak_measured(r, v, p, flat || flat_top);
	return halt(RAMP_DONE, *claim ? "peak settled" : "peak not measured");
}

/*
 * Peak search.  Returns GOING with a point to measure, DONE or FLAT when
 * the peak is established (r->peak_done set), MAX_USERS when growth is
 * blocked, FAILED when the first point failed or when a failed point above
 * the best bounds the search with no fall seen below it (the best point
 * below the failure found, the peak not established).
 */
static struct ramp_decision peak_step(struct ramp *r, const struct ramp_view *v)
{
	struct ramp_peak pe;

	r->peak_done = r->peak_flat = false;
	peak_eval(r, v, &pe);
	if (!pe.best) {
		if (!view_find(v, r->cfg.start))
			return go(r->cfg.start, "grow");
		return halt(RAMP_FAILED, "first point failed");
	}
	unsigned top = v->p[v->n - 1]->users;
	/* nothing grows past a failed point */
	unsigned next = pe.fail ? 0 : grow_next(r, v, top);
	/*
	 * The user ceiling bounds the search, it does not end it: with growth
	 * blocked (max_users, or a failed point above the best) and the best
	 * point below the top, refine between the best point's neighbours,
	 * then decide as on a drop or a plateau.
	 */
	bool ceiling = !next && pe.hi;
	/*
	 * converge/crossover: the crossing lies far past the top and each
	 * growth step costs as much as every point below it, so once growth
	 * stops rising the search hands over to the crossing (a jump there),
	 * and finishes the peak after it (peak_finish): the crossing's first
	 * point is the point past a drop that -r auto would otherwise grow to.
	 * -r auto measures the noise first (the best and a neighbour twice).
	 */
	if (conv_mode(r) && next && !pe.fail && conv_topped(r, v, &pe, next)) {
		const struct ramp_obs *again;
		if (wants_noise(r) && v->noise_df < 2 && (again = noise_sample(&pe)))
			return go(again->users, noise_phase(r));
		r->handover = true;
		return halt(RAMP_DONE, "top reached");
	}
	/*
	 * -r auto: a drop is believed once the point past it (the next
	 * growth step) is below the best as well; a burst of host noise
	 * makes one low point, rarely two at different user counts.
	 */
	if (r->cfg.repeat_auto && pe.drop_top && next)
		return go(next, "past drop");
	if ((pe.drop || ceiling) && !pe.narrow) {
		/*
		 * -r auto: learn the machine's noise (the best and a neighbour
		 * sampled twice) before refining, so the refinement knows when
		 * the top is flat within it.  Those samples the confirmation
		 * would take anyway.
		 */
		const struct ramp_obs *again;
		if (wants_noise(r) && v->noise_df < 2 && (again = noise_sample(&pe)))
			return go(again->users, noise_phase(r));
		return go(refine_probe(&pe), "refine");
	}
	/*
	 * Refined up to a failed point without a fall below it: the best
	 * point that works is found, but what JPM does past it is unknown.
	 * No claim, and nothing to confirm.
	 */
	if (pe.fail && !pe.drop)
		return halt(RAMP_FAILED, "a point above the best failed: peak not established");
	if (pe.drop || pe.flat || ceiling) {
		const struct ramp_obs *d[3];
		size_t nd = 0;
		if (pe.drop) {
			d[nd++] = pe.lo;
			d[nd++] = pe.hi;
			d[nd++] = pe.drop;
		} else {
			/*
			 * Flat: the best against its neighbours only.  Sampling
			 * every point of a long plateau five times costs more than
			 * a dense sweep on a noisy machine and cannot place the
			 * peak better than the noise allows.
			 */
			if (pe.lo && pe.lo->users >= pe.rise->users)
				d[nd++] = pe.lo;
			if (pe.hi)
				d[nd++] = pe.hi;
		}
		const struct ramp_obs *again =
			confirm_peak(r, v, pe.best, d, nd,
				     pe.drop ? RAMP_AUTO_SAMPLES : RAMP_FLAT_SAMPLES);
		if (again)
			return go(again->users, "confirm");
		unsigned mid;
		if (!pe.drop && r->cfg.mode == WL_RAMP_PEAK && (mid = map_probe(r, v, pe.best)))
			return go(mid, "map top");
		if (r->cfg.mode == WL_RAMP_PEAK) {
			/* a measured peak (issue 42); converge settles after the crossing */
			bool claim;
			struct ramp_decision sd = peak_settle(r, v, !pe.drop, true, &claim);
			if (sd.stop == RAMP_GOING || !claim)
				return sd;
		}
		r->peak_done = true;
		r->peak_flat = !pe.drop;
		if (pe.drop)
			return halt(RAMP_DONE, "peak established");
		return halt(RAMP_FLAT, pe.flat ? "flat" : "flat below max_users");
	}
	/*
	 * -r auto, growth blocked with the best at the top: one sample there
	 * may be a burst of host noise above a curve that has turned down.
	 * The top and the point below it are sampled twice before the search
	 * gives up its claim; if the best moves below the top, the ceiling's
	 * refinement above takes over.
	 */
	const struct ramp_obs *again;
	if (!next && r->cfg.repeat_auto && pe.lo && (again = noise_sample(&pe)))
		return go(again->users, "confirm top");
	if (!next)
		return halt(RAMP_MAX_USERS, "max_users reached before the peak");
	return go(next, "grow");
}

/*
 * Past the peak JPM changes slowly with users, so the count where JPM/users
 * meets thr is about JPM/thr: the middle of the window of counts that
 * settle the crossing by themselves, JPM/users within the tolerance of thr
 * on either side (conv_eval).
 */
static double conv_aim(const struct ramp *r, double jpm)
{
	return jpm / r->thr;
}

/* The jump from the highest success: its JPM's crossing; 0 when that is no step forward. */
static unsigned conv_predict(const struct ramp *r, const struct ramp_view *v,
			     const struct ramp_obs *top)
{
	if (!(r->thr > 0) || !(top->mean > 0))
		return 0;
	double want = ceil(conv_aim(r, top->mean));
	if (want > (double)r->cap)
		want = (double)r->cap;
	unsigned next = (unsigned)want;
	if (next <= top->users || view_find(v, next))
		return 0;
	return next;
}

/*
 * The next count inside the bracket (below, at).  When the two differ
 * beyond the noise, JPM has a slope there: where JPM interpolated linearly
 * between them crosses thr x users (regula falsi).  Otherwise JPM is flat
 * across the bracket within the noise, and a slope read from two noisy
 * samples a few percent apart is noise: their pooled JPM predicts the
 * crossing (conv_aim).  Kept at least an eighth of the bracket from either
 * end so that it shrinks on both sides; the midpoint when not defined.
 */
static unsigned conv_split(const struct ramp *r, const struct ramp_view *v,
			   const struct ramp_conv *ce)
{
	unsigned hi = ce->at->users;
	unsigned lo = ce->below ? ce->below->users : r->lo_bound;
	unsigned w = hi - lo, mid = lo + w / 2;
	if (!obs_ok(ce->below) || w < 8)
		return mid;
	const struct ramp_obs *p = ce->below, *q = ce->at;
	double a = lo, b = hi, ja = p->mean, jb = q->mean, n;
	if (ramp_sig_below(r, v, p, q) || ramp_sig_below(r, v, q, p)) {
		double s = (jb - ja) / (b - a);
		if (!(r->thr - s > 0))
			return mid;
		n = (ja - s * a) / (r->thr - s);
	} else {
		n = conv_aim(r, (ja * obs_n(p) + jb * obs_n(q)) / (obs_n(p) + obs_n(q)));
	}
	double margin = w / 8.0;
	if (!(n >= a + margin))
		n = a + margin;
	if (n > b - margin)
		n = b - margin;
	unsigned next = (unsigned)floor(n + 0.5);
	return next > lo && next < hi ? next : mid;
}

/*
 * The JPM the crossing is predicted from: the mean, weighted by samples, of
 * the successful points about it: hi (else lo; either may be NULL, not
 * both), and every point past the frozen peak within RAMP_SUSPECT_SPAN of
 * its users.  Past the peak JPM is near flat, so each point near the
 * crossing measures the same JPM again; pooled, one noisy sample no longer
 * steers the next count alone (a sample 10% low moved it 10%).  A point far
 * below (the top of the growth, before the first jump) is left out once
 * the crossing has points of its own: the top's JPM is often above the
 * crossing's (it falls past the peak).
 */
static double conv_pool(const struct ramp *r, const struct ramp_view *v,
			const struct ramp_obs *lo, const struct ramp_obs *hi)
{
	double at = (hi ? hi : lo)->users, sum = 0, n = 0;

	for (size_t i = 0; i < v->n; i++) {
		const struct ramp_obs *o = v->p[i];
		bool near = o->users * RAMP_SUSPECT_SPAN >= at && o->users <= at * RAMP_SUSPECT_SPAN &&
			    (o->users > r->peak_frozen_users || o->users == at);
		if (!obs_ok(o) || !near)
			continue;
		sum += o->mean * obs_n(o);
		n += obs_n(o);
	}
	return n > 0 ? sum / n : NAN;
}

/* The standard normal's distribution function. */
static double norm_cdf(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

/*
 * How likely a point at n settles the crossing (conv_eval's rules), when c
 * is where JPM/users meets thr and the JPM the point measures lies off c's
 * by a relative error of sd sigma: it settles when its JPM/users lies
 * within the tolerance of thr on either side, or meets it with the point
 * below (lo, 0: none) within the tolerance of it, or misses it with the
 * point above (hi, 0: none) within the tolerance of it.  With x = (c/n)(1 +
 * e), JPM/users over thr: it meets when x <= 1, within the tolerance when
 * 1 - tol <= x <= 1 + tol.
 */
static double conv_settle_p(double n, double c, double sigma, double tol, unsigned lo,
			    unsigned hi)
{
	double p_meet = norm_cdf((n / c - 1) / sigma);
	double p_near = norm_cdf(((1 + tol) * n / c - 1) / sigma);
	double p = lo && n - lo <= tol * n ? p_meet
		   : p_meet - norm_cdf(((1 - tol) * n / c - 1) / sigma);
	return p + (hi && hi - n <= tol * hi ? 1 - p_meet : p_near - p_meet);
}

/*
 * With a tolerance: the count most likely to settle the crossing next
 * (conv_settle_p), between lo (the highest success below it that misses
 * thr; NULL: lo_bound) and hi (the first that meets it; NULL: the cap).
 * The estimate c: where JPM interpolated between lo and hi crosses thr x
 * users when they differ beyond the noise (regula falsi), else the
 * crossing of their pooled JPM (JPM past the peak is near flat), or of the
 * one there is.  The candidates: the middle of the tolerance window, c;
 * the count a tolerance below hi (settles unless it meets thr well below
 * it); the count a tolerance above lo (settles if it meets thr at all).
 * The JPM's error: the measured noise (else the floor), or the crossing's
 * scatter (conv_scatter) when wider, of the point and of the estimate,
 * sqrt(2) x.  0 when no count qualifies or none is likely
 * (below 20%: conv_split then shrinks the bracket instead).
 */
static unsigned conv_next(const struct ramp *r, const struct ramp_view *v,
			  const struct ramp_obs *lo, const struct ramp_obs *hi)
{
	double tol = conv_tol(r, v), c = NAN, best_p = 0;
	unsigned a = lo ? lo->users : r->lo_bound, b = hi ? hi->users : r->cap + 1, best = 0;

	if (!(tol > 0) || (lo && !obs_ok(lo)) || (hi && !obs_ok(hi)) || (!lo && !hi))
		return 0;
	if (lo && hi && (ramp_sig_below(r, v, lo, hi) || ramp_sig_below(r, v, hi, lo))) {
		double s = (hi->mean - lo->mean) / ((double)b - a);
		if (r->thr - s > 0)
			c = (lo->mean - s * a) / (r->thr - s);
	}
	if (!(c > 0))
		c = conv_pool(r, v, lo, hi) / r->thr;
	if (!(c > 0))
		return 0;
	double sigma = sqrt(2.0) * (v->noise_df >= 2 ? v->noise_s : r->noise);
	unsigned sdf;
	double sc = conv_scatter(r, v, &sdf);
	if (sdf >= 1 && sc * sqrt(2.0) > sigma)
		sigma = sqrt(2.0) * sc;
	double cand[3] = { ceil(c), hi ? ceil((1 - tol) * b) : 0,
			   lo ? floor(a / (1 - tol)) : 0 };
	for (size_t k = 0; k < 3; k++) {
		double n = cand[k];
		if (!(n > a && n < b) || n > (double)r->cap || view_find(v, (unsigned)n))
			continue;
		double p = conv_settle_p(n, c, sigma, tol, lo ? a : 0, hi ? b : 0);
		if (p > best_p + 1e-9) {
			best_p = p;
			best = (unsigned)n;
		}
	}
	return best_p >= 0.2 ? best : 0;
}

/* The peak a convergence point must lie past: the one the search froze, else the best. */
static unsigned conv_peak_users(const struct ramp *r, const struct ramp_view *v)
{
	struct ramp_peak pe;

	if (r->peak_frozen_users)
		return r->peak_frozen_users;
	peak_eval(r, v, &pe);
	return pe.best ? pe.best->users : 0;
}

/*
 * Does the point at v->p[i], past the frozen peak, disagree with its
 * neighbours beyond the noise?  Its reference is the line (log JPM against
 * users) through the nearest successful points past the peak on either
 * side, each within RAMP_SUSPECT_SPAN of its users: JPM past the peak
 * changes slowly, so one sample far off the line through its neighbours is
 * a burst of host noise, not the curve.  Beyond the noise: the residual
 * beyond t95 x the pooled noise x its standard error factor (at least half
 * the floor), or beyond RAMP_SUSPECT_REL before the noise is measured.  -1
 * below, +1 above, 0 not suspect (or no neighbour on one side to tell).
 */
static int conv_suspect(const struct ramp *r, const struct ramp_view *v, size_t i, double *dev)
{
	const struct ramp_obs *o = v->p[i], *lo = NULL, *hi = NULL;

	if (!obs_ok(o) || !r->peak_frozen_users || o->users <= r->peak_frozen_users ||
	    !(o->mean > 0))
		return 0;
	for (size_t j = i; j-- > 0 && !lo;)
		if (obs_ok(v->p[j]))
			lo = v->p[j];
	for (size_t j = i + 1; j < v->n && !hi; j++)
		if (obs_ok(v->p[j]))
			hi = v->p[j];
	if (!lo || !hi || lo->users <= r->peak_frozen_users || !(lo->mean > 0) ||
	    !(hi->mean > 0) || o->users > RAMP_SUSPECT_SPAN * lo->users ||
	    hi->users > RAMP_SUSPECT_SPAN * o->users)
		return 0;
	double wh = ((double)o->users - lo->users) / ((double)hi->users - lo->users), wl = 1 - wh;
	double res = log(o->mean) - wl * log(lo->mean) - wh * log(hi->mean);
	double band = RAMP_SUSPECT_REL;
	if (v->noise_df >= 2) {
		band = stats_t95(v->noise_df) * v->noise_s *
		       sqrt(1.0 / obs_n(o) + wl * wl / obs_n(lo) + wh * wh / obs_n(hi));
		if (band < 0.5 * r->noise)
			band = 0.5 * r->noise;
	}
	if (dev)
		*dev = expm1(res);
	return fabs(res) <= band ? 0 : res < 0 ? -1 : 1;
}

/* The view's index of o (which it holds). */
static size_t view_index(const struct ramp_view *v, const struct ramp_obs *o)
{
	size_t i = 0;
	while (v->p[i] != o)
		i++;
	return i;
}

/*
 * Convergence search: from the highest success, jump to its predicted
 * crossing (conv_predict) and predict again from every point measured
 * there until mean JPM/users <= thr, then narrow the bracket to the first
 * count that meets it (conv_split); a point whose JPM/users lies within
 * the tolerance of thr, meeting it or just short of it, settles it by
 * itself (conv_eval).  -r auto samples a deciding point again while it
 * disagrees with its neighbours beyond the noise (conv_suspect), before it
 * moves the bracket.  A first count at or
 * below the peak (each user slow from the start) is no convergence into
 * overload: the search ends there without a Quick Convergence.
 */
static struct ramp_decision conv_step(struct ramp *r, const struct ramp_view *v)
{
	struct ramp_conv ce;

	r->conv_done = false;
	r->conv_near_users = 0;
	conv_eval(r, v, &ce, true);
	if (ce.at && ce.at->users <= conv_peak_users(r, v))
		return r->peak_frozen_users
			? halt(RAMP_DONE, "JPM/user met the threshold at or below the peak: no quick convergence")
			: halt(RAMP_MAX_USERS, "max_users reached before the peak");
	const struct ramp_obs *top = NULL, *fail = NULL;
	for (size_t i = v->n; i-- > 0;) {
		if (obs_ok(v->p[i])) {
			top = v->p[i];
			break;
		}
	}
	if (!top)
		return halt(RAMP_FAILED, "first point failed");
	if (r->cfg.repeat_auto) {
		const struct ramp_obs *d[2] = { ce.at ? ce.at : top, ce.at ? ce.below : NULL }, *pick = NULL;
		for (size_t k = 0; k < 2; k++)
			if (obs_ok(d[k]) && obs_n(d[k]) < RAMP_AUTO_SAMPLES &&
			    conv_suspect(r, v, view_index(v, d[k]), NULL))
				pick = fewer(pick, d[k]);
		if (pick)
			return go(pick->users, "confirm");
	}
	if (!(ce.at && ce.resolved) && ce.near && ce.near->users > conv_peak_users(r, v)) {
		r->conv_done = true;
		r->conv_near_users = ce.near->users;
		return halt(RAMP_DONE, "converged");
	}
	if (ce.at && !ce.resolved) {
		unsigned n = conv_next(r, v, obs_ok(ce.below) ? ce.below : NULL, ce.at);
		return go(n ? n : conv_split(r, v, &ce), "refine");
	}
	if (ce.at) {
		r->conv_done = true;
		return halt(RAMP_DONE, "converged");
	}
	for (size_t i = 0; i < v->n; i++) {
		if (v->p[i]->failed && v->p[i]->users > top->users) {
			fail = v->p[i];
			break;
		}
	}
	unsigned next = r->cfg.converge_tol > 0 ? conv_next(r, v, top, NULL) : 0;
	if (!next)
		next = conv_predict(r, v, top);
	if (!next)
		next = grow_next(r, v, top->users);
	if (fail && (!next || next >= fail->users)) {
		if (fail->users - top->users >= 2)
			return go(top->users + (fail->users - top->users) / 2, "converge");
		return halt(RAMP_FAILED, "failed before converging");
	}
	if (!next)
		return halt(RAMP_MAX_USERS, "max_users reached before converging");
	return go(next, "converge");
}

/*
 * converge/crossover after a hand-over (r->top_users): the peak search
 * finished once the crossing search has ended, on the points up to the top
 * of its growth and the first point past it when that lies within the next
 * growth step (beyond it, refining towards the crossing would cost more
 * than the crossing).  A drop there is believed as peak_step believes one,
 * and -r auto believes a drop at the top once the first point past it is
 * below the best as well, else it measures the next growth step first (and
 * counts it in).  A believed drop is refined and confirmed as peak_step
 * does; otherwise the top is flat out to the points past it (or they beat
 * it: ramp_summarize says so).  GOING with a point, or DONE when finished.
 */
static struct ramp_decision peak_finish(struct ramp *r, const struct ramp_view *v)
{
	struct ramp_view *w = malloc(sizeof(*w));
	const struct ramp_obs *past = NULL, *again, *d[3];
	struct ramp_decision out = halt(RAMP_DONE, "peak finished");
	struct ramp_peak pe;
	size_t nd = 0;

	r->peak_done = r->peak_flat = false;
	if (!w)
		return halt(RAMP_FAILED, "out of memory");
	w->n = 0;
	w->noise_s = v->noise_s;
	w->noise_df = v->noise_df;
	for (size_t i = 0; i < v->n; i++) {
		if (v->p[i]->users <= r->top_users)
			w->p[w->n++] = v->p[i];
		else if (!past && obs_ok(v->p[i]))
			past = v->p[i];
	}
	unsigned step = grow_next(r, v, r->top_users);
	bool near = past && past->users <= (double)r->top_users * r->cfg.growth;
	if (near)
		w->p[w->n++] = past;
	peak_eval(r, w, &pe);
	if (!pe.best)
		goto out;
	/* -r auto: a drop at the top alone is believed from a point past it within a growth step */
	bool drop = pe.drop && (!pe.drop_top || pe.drop == past || !r->cfg.repeat_auto);
	if (pe.drop && !drop && step && (!past || step < past->users) && !view_find(v, step)) {
		r->top_users = step;
		out = go(step, "past drop");
		goto out;
	}
	if (drop && !pe.narrow) {
		/*
		 * a best whose samples all date from before the crossing is
		 * sampled once more before the drop about it is refined: the
		 * host may have drifted between them and its neighbours (issue
		 * 42: a quiet round of 2026-12-07 read 72k at 128 users before
		 * the crossing and 64-66k at 104-147 after it, and refined the
		 * "drop" to 127-129 in 9 points, 36 s)
		 */
		bool stale = pe.best->users == r->jump_best_users &&
			     obs_n(pe.best) == r->jump_best_n && obs_n(pe.best) < RAMP_MAX_SAMPLES;
		if (wants_noise(r) && w->noise_df < 2 && (again = noise_sample(&pe)))
			out = go(again->users, noise_phase(r));
		else if (stale)
			out = go(pe.best->users, "confirm");
		else
			out = go(refine_probe(&pe), "refine");
		goto out;
	}
	r->peak_frozen_users = pe.best->users;
	if (pe.fail && !drop)
		goto out;      /* refined up to a failure with no fall below it: no claim */
	if (drop) {
		d[nd++] = pe.lo;
		d[nd++] = pe.hi;
		d[nd++] = pe.drop;
	} else {
		if (pe.lo && pe.lo->users >= pe.rise->users)
			d[nd++] = pe.lo;
		if (pe.hi)
			d[nd++] = pe.hi;
	}
	again = confirm_peak(r, w, pe.best, d, nd, drop ? RAMP_AUTO_SAMPLES : RAMP_FLAT_SAMPLES);
	if (again) {
		out = go(again->users, "confirm");
		goto out;
	}
	r->peak_done = true;
	r->peak_flat = !drop;
out:
	free(w);
	return out;
}

/*
 * converge/crossover, the crossing found: the peak settled on every point
 * (peak_settle), then frozen there.  When it moved (a point measured for
 * the crossing, or the settling's, lies above the peak the search froze),
 * the crossing search runs again past it, at most RAMP_RECONVERGE times.
 */
static struct ramp_decision conv_settle(struct ramp *r, const struct ramp_view *v)
{
	for (;;) {
		bool claim;
		struct ramp_conv ce;
		conv_eval(r, v, &ce, false);
		const struct ramp_obs *p = top_pick(v);
		struct ramp_decision d = peak_settle(r, v, false, !ce.at || (p && p->users < ce.at->users),
						     &claim);
		if (d.stop == RAMP_GOING)
			return d;
		p = top_pick(v);
		unsigned was = r->settled_users ? r->settled_users : r->peak_frozen_users;
		if (p)
			r->settled_users = p->users;
		if (p && p->users != was && r->reconverge < RAMP_RECONVERGE) {
			r->reconverge++;
			r->peak_frozen_users = p->users;
			r->peak_done = false;
			d = conv_step(r, v);
			if (d.stop == RAMP_GOING) {
				r->conv_halted = false;
				return d;
			}
			r->conv_stop = d.stop;
			r->conv_phase = d.phase;
			continue;
		}
		if (p)
			r->peak_frozen_users = p->users;
		r->peak_done = claim;
		r->peak_flat = false;
		return halt(r->conv_stop, r->conv_phase);
	}
}

/*
 * converge/crossover: the peak search until it ends or hands over, then the
 * crossing search, then (after a hand-over) the peak finished.  The stop is
 * the crossing search's.
 */
static struct ramp_decision converge_step(struct ramp *r, const struct ramp_view *v)
{
	struct ramp_decision d;

	if (!r->peak_frozen_users) {
		r->handover = false;
		d = peak_step(r, v);
		if (d.stop == RAMP_GOING)
			return d;
		if (r->handover || d.stop == RAMP_DONE || d.stop == RAMP_FLAT) {
			struct ramp_peak pe;
			peak_eval(r, v, &pe);
			r->peak_frozen_users = pe.best ? pe.best->users : 0;
			if (r->handover)
				r->top_users = v->p[v->n - 1]->users;
			if (pe.best) {
				r->jump_best_users = pe.best->users;
				r->jump_best_n = obs_n(pe.best);
			}
		} else if (d.stop != RAMP_MAX_USERS) {
			return d;
		}
	}
	if (!r->conv_halted) {
		d = conv_step(r, v);
		if (d.stop == RAMP_GOING)
			return d;
		r->conv_halted = true;
		r->conv_stop = d.stop;
		r->conv_phase = d.phase;
	}
	if (r->top_users) {
		d = peak_finish(r, v);
		if (d.stop != RAMP_DONE)
			return d;
	}
	return conv_settle(r, v);
}

/* Linear: the list in order, then (repeat_auto) confirmation around the best. */
static struct ramp_decision linear_step(struct ramp *r, const struct ramp_view *v)
{
	bool failed = false;

	for (size_t i = 0; i < v->n; i++)
		failed = failed || v->p[i]->failed;
	bool capped = false;
	for (size_t i = 0; i < r->cfg.nlist; i++) {
		unsigned u = r->list[i];
		if (view_find(v, u))
			continue;
		if (failed)
			return halt(RAMP_FAILED, "point failed");
		if (u > r->cap) {
			capped = true;   /* in a shuffled list, counts below may follow */
			continue;
		}
		return go(u, "list");
	}
	if (capped)
		return halt(RAMP_MAX_USERS, "max_users reached");
	struct ramp_peak pe;
	peak_eval(r, v, &pe);
	if (pe.best) {
		const struct ramp_obs *d[2] = { pe.lo, pe.hi };
		const struct ramp_obs *again = confirm_peak(r, v, pe.best, d, 2, RAMP_AUTO_SAMPLES);
		if (again)
			return go(again->users, "confirm");
	}
	return failed ? halt(RAMP_FAILED, "point failed") : halt(RAMP_DONE, "list finished");
}

/* A point still short of its base samples: the last one first, else the lowest. */
static const struct ramp_obs *pending(const struct ramp *r, const struct ramp_obs *obs,
				      size_t nobs)
{
	const struct ramp_obs *pick = NULL;

	if (nobs > RAMP_MAX_OBS)
		nobs = RAMP_MAX_OBS;
	for (size_t i = 0; i < nobs; i++) {
		const struct ramp_obs *o = &obs[i];
		if (o->failed || o->n >= r->base || o->users == 0)
			continue;
		if (o->users == r->last_users)
			return o;
		if (!pick || o->users < pick->users)
			pick = o;
	}
	return pick;
}

struct ramp_decision ramp_next(struct ramp *r, const struct ramp_obs *obs, size_t nobs,
			       unsigned samples, double elapsed_s)
{
	struct ramp_view *v = NULL;
	struct ramp_decision d;

	if (r->stop != RAMP_GOING)
		return halt(r->stop, r->stop_phase);
	if (++r->decisions > RAMP_MAX_DECISIONS) {
		d = halt(RAMP_FAILED, "decision limit reached");
		goto out;
	}
	v = malloc(sizeof(*v));
	if (!v) {
		d = halt(RAMP_FAILED, "out of memory");
		goto out;
	}
	view_build(v, obs, nobs);
	const struct ramp_obs *p = pending(r, obs, nobs);
	if (p) {
		d = go(p->users, "repeat");
	} else if (r->cfg.mode == WL_RAMP_LINEAR) {
		d = linear_step(r, v);
	} else {
		d = conv_mode(r) ? converge_step(r, v) : peak_step(r, v);
	}
	if (d.stop == RAMP_GOING) {
		if (d.users < 1 || d.users > r->cap) {
			d = halt(RAMP_FAILED, "internal: user count out of range");
		} else if (!view_find(v, d.users) && nobs >= RAMP_MAX_OBS) {
			d = halt(RAMP_MAX_POINTS, "observation table full");
		} else if (r->cfg.max_points && samples >= r->cfg.max_points) {
			d = halt(RAMP_MAX_POINTS, "max_points reached");
		} else if (r->cfg.max_time_s > 0 && elapsed_s >= r->cfg.max_time_s) {
			d = halt(RAMP_MAX_TIME, "max_time reached");
		} else if (r->cfg.max_time_s > 0 &&
			   elapsed_s + ramp_predict_s(obs, nobs, d.users) > r->cfg.max_time_s) {
			/* (NAN, nothing timed yet, compares false: the first point is measured) */
			d = halt(RAMP_MAX_TIME, "max_time: the next point would overrun it");
		}
	}
out:
	free(v);
	if (d.stop != RAMP_GOING) {
		r->stop = d.stop;
		r->stop_phase = d.phase;
	} else {
		r->last_users = d.users;
	}
	return d;
}

/*
 * A top flat within the noise: of the view's points a..b, the one whose
 * neighbourhood (it and the measured points on either side, weighted by
 * their samples) has the highest mean.  Where single points cannot be told
 * apart, their neighbours tell which way the curve leans; the best point
 * alone is the one the noise favoured most.
 */
static const struct ramp_obs *flat_pick(const struct ramp_view *v, size_t a, size_t b,
					const struct ramp_obs *best)
{
	const struct ramp_obs *pick = best;
	double top = 0;

	for (size_t i = a; i <= b; i++) {
		const struct ramp_obs *o = v->p[i];
		double sum = 0, w = 0;
		if (!obs_ok(o))
			continue;
		for (size_t j = i ? i - 1 : 0; j <= i + 1 && j < v->n; j++)
			if (obs_ok(v->p[j])) {
				sum += v->p[j]->mean * obs_n(v->p[j]);
				w += obs_n(v->p[j]);
			}
		if (sum / w > top) {
			top = sum / w;
			pick = o;
		}
	}
	return pick;
}

/* The peak's 95% interval (ramp.h, peak_ci_lo..hi) at the point o it was measured at. */
static void peak_interval(const struct ramp_view *v, const struct ramp_obs *o,
			  struct ramp_summary *out)
{
	if (!obs_ok(o) || !(out->peak_jpm > 0))
		return;
	if (v->noise_df >= 2) {
		double h = stats_t95(v->noise_df) * v->noise_s / sqrt((double)obs_n(o));
		out->peak_ci_lo = out->peak_jpm * exp(-h);
		out->peak_ci_hi = out->peak_jpm * exp(h);
	} else if (obs_n(o) >= 2 && o->ci_lo > 0) {
		out->peak_ci_lo = o->ci_lo;
		out->peak_ci_hi = o->ci_hi;
	}
}

/* The upper end of the peak's interval at o (peak_interval), else o's mean. */
static double interval_hi(const struct ramp_view *v, const struct ramp_obs *o)
{
	struct ramp_summary t = { .peak_jpm = o->mean };

	peak_interval(v, o, &t);
	return t.peak_ci_hi > 0 ? t.peak_ci_hi : o->mean;
}

/*
 * One answer (issue 42): the peak the search reports, unless a measured
 * count's mean lies above its interval (its mean when it has none): then
 * the highest mean beats it.  NULL for NULL.
 */
static const struct ramp_obs *peak_unbeaten(const struct ramp_view *v, const struct ramp_obs *p)
{
	const struct ramp_obs *top = top_pick(v);

	if (!p || !top || top == p || top->mean <= interval_hi(v, p) * (1 + 1e-12))
		return p;
	return top;
}

void ramp_summarize(const struct ramp *r, const struct ramp_obs *obs, size_t nobs,
		    struct ramp_summary *out)
{
	struct ramp_view *v = malloc(sizeof(*v));
	struct ramp_peak pe;
	struct ramp_conv ce;

	*out = (struct ramp_summary){ .stop_reason = r->stop, .converge_threshold = r->thr,
				      .peak_wanted = r->cfg.mode != WL_RAMP_LINEAR,
				      .converge_wanted = conv_mode(r),
				      .max_time_s = r->cfg.max_time_s, .max_points = r->cfg.max_points };
	for (size_t i = 0; i < nobs; i++)
		if (obs_ok(&obs[i]) && obs[i].users > out->last_users) {
			out->last_users = obs[i].users;
			out->last_jpm = obs[i].mean;
		}
	if (!v)
		return;
	view_build(v, obs, nobs);
	out->noise_rel = v->noise_s;
	out->noise_df = v->noise_df;
	peak_eval(r, v, &pe);
	const struct ramp_obs *frozen = r->peak_frozen_users ? view_find(v, r->peak_frozen_users) : NULL;
	/* the peak the search settled on; the ramp's best point may lie past it */
	const struct ramp_obs *p = obs_ok(frozen) ? frozen : pe.best;
	if (p && v->noise_df >= 2 && r->cfg.mode == WL_RAMP_PEAK && r->peak_flat) {
		/* -m peak ended on a flat top: the peak is where the top leans */
		size_t a, b;
		peak_range(r, v, pe.best, &a, &b);
		p = flat_pick(v, a, b, pe.best);
	}
	const struct ramp_obs *q = peak_unbeaten(v, p);
	out->peak_beaten = q != p;
	p = q;
	if (p) {
		out->have_peak = true;
		out->peak_users = out->best_users = p->users;
		out->peak_jpm = out->best_jpm = p->mean;
	}
	conv_eval(r, v, &ce, false);
	/* settled just short of the threshold (conv_eval's near): that count is the convergence */
	const struct ramp_obs *near = conv_mode(r) && r->conv_done && r->conv_near_users
		? view_find(v, r->conv_near_users) : NULL;
	const struct ramp_obs *c = obs_ok(near) ? near : ce.at;
	if (p && c && c->mean > p->mean) {
		/* Quick Convergence above the peak: the crossing beats it */
		p = top_pick(v);
		out->peak_beaten = true;
		out->peak_users = out->best_users = p->users;
		out->peak_jpm = out->best_jpm = p->mean;
	}
	if (out->have_peak && v->noise_df >= 2) {
		size_t a, b;
		v->excess2 = range_excess(v);
		peak_range(r, v, p, &a, &b);
		v->excess2 = 0;
		range_span(r, v, a, b, &out->peak_users_lo, &out->peak_users_hi);
	}
	if (out->have_peak)
		peak_interval(v, p, out);
	if (conv_mode(r) && r->peak_frozen_users) {
		for (size_t i = 0; i < v->n && out->nsuspect < RAMP_SUSPECT_MAX; i++) {
			double dev;
			if (conv_suspect(r, v, i, &dev)) {
				out->suspect_users[out->nsuspect] = v->p[i]->users;
				out->suspect_dev[out->nsuspect++] = dev;
			}
		}
	}
	if (r->cfg.mode == WL_RAMP_LINEAR) {
		out->peak_established = pe.best && ((pe.drop && pe.narrow) || pe.flat);
		out->peak_flat = pe.best && pe.flat;
	} else {
		out->peak_established = r->peak_done;
		out->peak_flat = r->peak_flat;
	}
	/* a peak is a measured peak (issue 42): never from single samples or a dip */
	if (out->peak_established)
		out->peak_established = !out->peak_beaten &&
					peak_measured(r, v, p, out->peak_flat);
	if (!out->peak_established)
		out->peak_flat = false;
	if (!out->peak_established && pe.fail && !pe.drop)
		out->fail_users = pe.fail->users;
	if (ce.at) {
		if (r->cfg.mode == WL_RAMP_LINEAR)
			out->have_converge = true;
		else if (r->cfg.mode == WL_RAMP_PEAK)
			out->have_converge = ce.resolved;
		else
			out->have_converge = r->conv_done;
	}
	if (near)
		out->have_converge = true;
	/* Quick Convergence is the ramp converging into overload: past the peak only */
	if (c && out->have_peak && c->users <= out->peak_users) {
		if (c == ce.at)
			out->converge_early_users = c->users;
		out->have_converge = false;
	}
	if (out->have_converge) {
		out->converge_users = c->users;
		out->converge_jpm = c->mean;
		if (r->cfg.mode != WL_RAMP_LINEAR) {
			int why;
			out->converge_tol = conv_tol_why(r, v, &why);
			out->converge_tol_src = (enum ramp_tol_src)why;
			out->converge_scatter = conv_scatter(r, v, &out->converge_scatter_df);
		}
	}
	free(v);
}

double ramp_eta_s(const struct ramp_eta *e)
{
	double left = NAN;
	if (e->points_total && e->points_done && e->elapsed_s > 0) {
		unsigned todo = e->points_total > e->points_done ? e->points_total - e->points_done
								 : 0;
		left = todo * (e->elapsed_s / e->points_done);
	}
	if (e->budget_s > 0) {
		double b = e->budget_s > e->elapsed_s ? e->budget_s - e->elapsed_s : 0;
		left = isnan(left) || b < left ? b : left;
	}
	return left;
}

/* The mean JPM at u read from the measured successes: interpolated, else the nearest's. */
static double predict_jpm(const struct ramp_obs *obs, size_t nobs, unsigned u)
{
	const struct ramp_obs *lo = NULL, *hi = NULL;

	for (size_t i = 0; i < nobs; i++) {
		const struct ramp_obs *o = &obs[i];
		if (!obs_ok(o) || !(o->mean > 0))
			continue;
		if (o->users <= u && (!lo || o->users > lo->users))
			lo = o;
		if (o->users >= u && (!hi || o->users < hi->users))
			hi = o;
	}
	if (!lo || !hi)
		return lo ? lo->mean : hi ? hi->mean : NAN;
	if (lo == hi)
		return lo->mean;
	double f = (double)(u - lo->users) / (hi->users - lo->users);
	return lo->mean + f * (hi->mean - lo->mean);
}

/* The pooled relative sd of log JPM over counts sampled twice or more; the 2% floor without. */
static double predict_noise(const struct ramp_obs *obs, size_t nobs)
{
	double ss = 0;
	unsigned df = 0;

	for (size_t i = 0; i < nobs; i++) {
		const struct ramp_obs *o = &obs[i];
		if (!obs_ok(o) || o->n < 2)
			continue;
		double m = 0;
		for (unsigned k = 0; k < o->n; k++)
			m += log(fmax(o->jpm[k], 1e-9)) / o->n;
		for (unsigned k = 0; k < o->n; k++)
			ss += pow(log(fmax(o->jpm[k], 1e-9)) - m, 2);
		df += o->n - 1;
	}
	return df ? fmax(sqrt(ss / df), RAMP_NOISE_DEFAULT) : RAMP_NOISE_DEFAULT;
}

double ramp_predict_s(const struct ramp_obs *obs, size_t nobs, unsigned users)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, w = 0, ymin = INFINITY, ratio = 0;
	unsigned at = 0;

	for (size_t i = 0; i < nobs; i++) {
		const struct ramp_obs *o = &obs[i];
		if (!(o->secs > 0) || !o->n)
			continue;
		double y = o->secs / o->n;
		if (o->users == users)
			return y * (1 + 2 * predict_noise(obs, nobs));
		ymin = fmin(ymin, y);
		if (!obs_ok(o) || !(o->mean > 0))
			continue;
		double x = o->users / o->mean;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		w++;
		if (o->users > at) {
			/* the highest count's: the last points in an upward search */
			at = o->users;
			ratio = y / x;
		}
	}
	if (!isfinite(ymin))
		return NAN;
	double jpm = predict_jpm(obs, nobs, users);
	if (!(jpm > 0) || !w)
		return ymin;
	double x = users / jpm, den = w * sxx - sx * sx, pred = ymin;
	double c = w >= 2 && den > 0 ? (w * sxy - sx * sy) / den : 0;
	if (c > 0)
		pred = fmax(pred, (sy - c * sx) / w + c * x);
	else
		pred = fmax(pred, ratio * x);   /* no line: the highest count's ratio */
	/*
	 * a jump far past the points measured: JPM there is unknown and falls
	 * past the peak (the sim's top curve loses 45% from 86 to 950 users: a line fitted
	 * below predicts 950 users at 0.58 of their time)
	 */
	if (users > 2 * at)
		pred *= RAMP_PREDICT_FAR;
	/* a sample's time is as noisy as its JPM: two sd of the pooled noise above */
	return pred * (1 + 2 * predict_noise(obs, nobs));
}

/* "6m", "90 s", "2h": a budget as a person gave it. */
static void budget_str(double s, char *buf, size_t len)
{
	if (s >= 3600 && fmod(s, 3600) == 0)
		snprintf(buf, len, "%.0fh", s / 3600);
	else if (s >= 60 && fmod(s, 60) == 0)
		snprintf(buf, len, "%.0fm", s / 60);
	else
		snprintf(buf, len, "%.0f s", s);
}

void ramp_unreached_peak(const struct ramp_summary *s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s->peak_wanted && !s->peak_established)
		snprintf(buf, len, "peak: not established (%s)", ramp_stop_name(s->stop_reason));
}

void ramp_unreached_converge(const struct ramp_summary *s, char *buf, size_t len)
{
	char within[64], last[96] = "";

	buf[0] = '\0';
	if (!s->converge_wanted || s->have_converge || s->converge_early_users)
		return;
	if (s->stop_reason == RAMP_MAX_TIME && s->max_time_s > 0) {
		char b[32];
		budget_str(s->max_time_s, b, sizeof(b));
		snprintf(within, sizeof(within), "within %s", b);
	} else if (s->stop_reason == RAMP_MAX_POINTS && s->max_points) {
		snprintf(within, sizeof(within), "within %u points", s->max_points);
	} else {
		snprintf(within, sizeof(within), "(stopped: %s)", ramp_stop_name(s->stop_reason));
	}
	if (s->last_users)
		snprintf(last, sizeof(last), " (last %u users at %.1f JPM/user)", s->last_users,
			 s->last_jpm / s->last_users);
	snprintf(buf, len, "%s: not reached %s%s",
		 s->converge_threshold <= 10 ? "crossover" : "quick convergence", within, last);
}
