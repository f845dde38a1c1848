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
	 * converge/crossover: the peak search ends once; later points (past the
	 * peak, measured for the crossing) do not reopen it, so noise there
	 * cannot send the ramp back to hunting a peak.  0: not frozen.
	 */
	unsigned peak_frozen_users;
};

/* The measured points (a sample or a failure), ascending by users. */
struct ramp_view {
	const struct ramp_obs *p[RAMP_MAX_OBS];
	size_t n;
	double noise_s;            /* pooled relative sd of repeated points */
	unsigned noise_df;         /* its degrees of freedom (0: no estimate) */
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
				(flat_top && width <= RAMP_REFINE_FLAT_REL * pe->best->users));
}

/* First success at or below the threshold and what lies just below it. */
static void conv_eval(const struct ramp *r, const struct ramp_view *v, struct ramp_conv *ce)
{
	*ce = (struct ramp_conv){ 0 };
	for (size_t i = 0; i < v->n; i++) {
		const struct ramp_obs *o = v->p[i];
		if (obs_ok(o) && o->mean / o->users <= r->thr) {
			ce->at = o;
			ce->below = i ? v->p[i - 1] : NULL;
			unsigned below = ce->below ? ce->below->users : r->lo_bound;
			ce->resolved = o->users - below <= 1 ||
				       (ce->below && o->users - below <= r->cfg.converge_tol * o->users);
			return;
		}
	}
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
 * Is o below p beyond the noise, for the peak's range?  By the ramp's test
 * (ramp_sig_below), or by the measured noise on the ratio scale: log(p/o)
 * beyond noise_band (never below half the floor).  Welch's test on two
 * samples a side has about one degree of freedom (t95 = 12.7): on a noisy
 * top it called a point at 3% of the peak within the noise; the pooled
 * noise, measured at every repeated count, has more.  And a band read as a
 * fraction of the peak reaches 100% on a noisy top with few degrees of
 * freedom (t95(2) x 20% x 1.22 = 1.05: every point within it), where noise
 * that multiplies JPM puts the same band between ratios (1 : e^1.05).
 */
static bool range_below(const struct ramp *r, const struct ramp_view *v,
			const struct ramp_obs *p, const struct ramp_obs *o)
{
	if (ramp_sig_below(r, v, p, o))
		return true;
	if (v->noise_df < 2 || !obs_ok(p) || !obs_ok(o) || !(p->mean > 0))
		return false;
	if (!(o->mean > 0))
		return true;
	double band = noise_band(v, p, o);
	if (band < 0.5 * r->noise)
		band = 0.5 * r->noise;
	return log(p->mean / o->mean) > band;
}

/*
 * The peak's range (ramp.h, peak_users_lo..hi): the view's points a..b
 * about p out to the first on either side below it beyond the noise
 * (range_below).
 */
static void peak_range(const struct ramp *r, const struct ramp_view *v, const struct ramp_obs *p,
		       size_t *a, size_t *b)
{
	size_t at = 0;

	while (v->p[at] != p)
		at++;
	for (*a = at; *a > 0 && !range_below(r, v, p, v->p[*a - 1]); --*a)
		;
	for (*b = at; *b + 1 < v->n && !range_below(r, v, p, v->p[*b + 1]); ++*b)
		;
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
		if (r->cfg.repeat_auto && v->noise_df < 2 && (again = noise_sample(&pe)))
			return go(again->users, "confirm");
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
 * falls to the threshold is about JPM/thr: jump there instead of doubling
 * (at most 16x, within the cap).  0 when that is no step forward.
 */
static unsigned conv_predict(const struct ramp *r, const struct ramp_view *v,
			     const struct ramp_obs *top)
{
	if (!(r->thr > 0) || !(top->mean > 0))
		return 0;
	double want = ceil(top->mean / r->thr);
	double most = (double)top->users * 16;
	if (want > most)
		want = most;
	if (want > (double)r->cap)
		want = (double)r->cap;
	unsigned next = (unsigned)want;
	if (next <= top->users || view_find(v, next))
		return 0;
	return next;
}

/*
 * The next count inside the bracket (below, at): where JPM interpolated
 * linearly between the two crosses thr x users (regula falsi), kept at
 * least an eighth of the bracket from either end so that the bracket
 * shrinks on both sides; the midpoint when that is not defined.
 */
static unsigned conv_split(const struct ramp *r, const struct ramp_conv *ce)
{
	unsigned hi = ce->at->users;
	unsigned lo = ce->below ? ce->below->users : r->lo_bound;
	unsigned w = hi - lo, mid = lo + w / 2;
	if (!obs_ok(ce->below) || w < 8)
		return mid;
	double a = lo, b = hi, ja = ce->below->mean, jb = ce->at->mean;
	double s = (jb - ja) / (b - a);
	if (!(r->thr - s > 0))
		return mid;
	double n = (ja - s * a) / (r->thr - s);
	double margin = w / 8.0;
	if (!(n >= a + margin))
		n = a + margin;
	if (n > b - margin)
		n = b - margin;
	unsigned next = (unsigned)floor(n + 0.5);
	return next > lo && next < hi ? next : mid;
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
 * Convergence search: grow past the highest success until mean JPM/users
 * <= thr, then bisect to the first count that meets it.  A first count at
 * or below the peak (each user slow from the start) is no convergence into
 * overload: the search ends there without a Quick Convergence.
 */
static struct ramp_decision conv_step(struct ramp *r, const struct ramp_view *v)
{
	struct ramp_conv ce;

	r->conv_done = false;
	conv_eval(r, v, &ce);
	if (ce.at && ce.at->users <= conv_peak_users(r, v))
		return r->peak_frozen_users
			? halt(RAMP_DONE, "JPM/user met the threshold at or below the peak: no quick convergence")
			: halt(RAMP_MAX_USERS, "max_users reached before the peak");
	if (ce.at && !ce.resolved)
		return go(conv_split(r, &ce), "refine");
	if (ce.at) {
		const struct ramp_obs *pick = NULL;
		if (r->cfg.repeat_auto) {
			const struct ramp_obs *n = ce.at, *p = ce.below;
			double lim = r->thr * n->users;
			if (obs_n(n) < RAMP_AUTO_SAMPLES && !(obs_n(n) >= 2 && n->ci_hi <= lim))
				pick = fewer(pick, n);
			if (obs_ok(p) && obs_n(p) < RAMP_AUTO_SAMPLES &&
			    !(obs_n(p) >= 2 && p->ci_lo > r->thr * p->users))
				pick = fewer(pick, p);
		}
		if (pick)
			return go(pick->users, "confirm");
		r->conv_done = true;
		return halt(RAMP_DONE, "converged");
	}
	const struct ramp_obs *top = NULL, *fail = NULL;
	for (size_t i = v->n; i-- > 0;) {
		if (obs_ok(v->p[i])) {
			top = v->p[i];
			break;
		}
	}
	if (!top)
		return halt(RAMP_FAILED, "first point failed");
	for (size_t i = 0; i < v->n; i++) {
		if (v->p[i]->failed && v->p[i]->users > top->users) {
			fail = v->p[i];
			break;
		}
	}
	unsigned next = conv_predict(r, v, top);
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
		bool converge = r->cfg.mode == WL_RAMP_CONVERGE || r->cfg.mode == WL_RAMP_CROSSOVER;
		if (converge && r->peak_frozen_users) {
			d = conv_step(r, v);
		} else {
			d = peak_step(r, v);
			if (converge && (d.stop == RAMP_DONE || d.stop == RAMP_FLAT)) {
				struct ramp_peak pe;
				peak_eval(r, v, &pe);
				r->peak_frozen_users = pe.best ? pe.best->users : 0;
			}
			if (converge && (d.stop == RAMP_DONE || d.stop == RAMP_FLAT ||
					 d.stop == RAMP_MAX_USERS))
				d = conv_step(r, v);
		}
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

void ramp_summarize(const struct ramp *r, const struct ramp_obs *obs, size_t nobs,
		    struct ramp_summary *out)
{
	struct ramp_view *v = malloc(sizeof(*v));
	struct ramp_peak pe;
	struct ramp_conv ce;

	*out = (struct ramp_summary){ .stop_reason = r->stop, .converge_threshold = r->thr };
	if (!v)
		return;
	view_build(v, obs, nobs);
	out->noise_rel = v->noise_s;
	out->noise_df = v->noise_df;
	peak_eval(r, v, &pe);
	if (pe.best) {
		out->have_peak = true;
		out->peak_users = pe.best->users;
		out->peak_jpm = pe.best->mean;
		out->best_users = pe.best->users;
		out->best_jpm = pe.best->mean;
	}
	const struct ramp_obs *frozen = r->peak_frozen_users ? view_find(v, r->peak_frozen_users) : NULL;
	if (frozen) {
		/* the peak the search established; the ramp's maximum may lie past it */
		out->peak_users = frozen->users;
		out->peak_jpm = frozen->mean;
		out->peak_beaten = pe.best && pe.best != frozen && ramp_sig_below(r, v, pe.best, frozen);
	}
	if (out->have_peak && v->noise_df >= 2) {
		size_t a, b;
		peak_range(r, v, frozen ? frozen : pe.best, &a, &b);
		out->peak_users_lo = v->p[a]->users;
		out->peak_users_hi = v->p[b]->users;
		/* -m peak ended on a flat top: the peak is where the top leans */
		if (r->cfg.mode == WL_RAMP_PEAK && r->peak_flat) {
			const struct ramp_obs *f = flat_pick(v, a, b, pe.best);
			out->peak_users = f->users;
			out->peak_jpm = f->mean;
		}
	}
	if (r->cfg.mode == WL_RAMP_LINEAR) {
		out->peak_established = pe.best && ((pe.drop && pe.narrow) || pe.flat);
		out->peak_flat = pe.best && pe.flat;
	} else {
		out->peak_established = r->peak_done && !out->peak_beaten;
		out->peak_flat = r->peak_flat;
	}
	if (!out->peak_established && pe.fail && !pe.drop)
		out->fail_users = pe.fail->users;
	conv_eval(r, v, &ce);
	if (ce.at) {
		if (r->cfg.mode == WL_RAMP_LINEAR)
			out->have_converge = true;
		else if (r->cfg.mode == WL_RAMP_PEAK)
			out->have_converge = ce.resolved;
		else
			out->have_converge = r->conv_done;
	}
	/* Quick Convergence is the ramp converging into overload: past the peak only */
	if (ce.at && out->have_peak && ce.at->users <= out->peak_users) {
		out->have_converge = false;
		out->converge_early_users = ce.at->users;
	}
	if (out->have_converge) {
		out->converge_users = ce.at->users;
		out->converge_jpm = ce.at->mean;
	}
	free(v);
}
