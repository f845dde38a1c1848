/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Statistics: summary of samples, Jain-style job time index (AIM7's JTI),
 * confidence intervals, Welch's t-test, and a fixed-size log-linear latency
 * histogram that users fill without allocating on the hot path.
 * Pure functions; no I/O.
 */
#ifndef JOBMIX_STATS_H
#define JOBMIX_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats_summary {
	size_t n;
	double min, max, mean;
	double stddev;            /* sample stddev (n-1); 0 for n < 2 */
};

void stats_summarize(const double *x, size_t n, struct stats_summary *out);
double stats_mean(const double *x, size_t n);
double stats_stddev(const double *x, size_t n);
/* AIM7 job time index: max(0, (1 - stddev/mean) * 100); 100 when n < 2. */
double stats_jti(const double *t, size_t n);
/* Two-sided Student t quantile for 95% with df degrees of freedom (computed; INFINITY for 0). */
double stats_t95(unsigned df);
/* 95% CI half-width of the mean: t95(n-1) * sd / sqrt(n); NAN (unknown) for n < 2. */
double stats_ci95_half(const struct stats_summary *s);
/* Geometric mean: exp of the mean of log x; NAN for n = 0 or any x <= 0. */
double stats_geomean(const double *x, size_t n);
/*
 * 95% CI for a ratio-scale figure (JPM, a rate: positive, its noise
 * multiplies it): the CI of the mean of log x, exp(mean +- t95(n-1) x
 * sd / sqrt(n)) of the logs, an interval about the geometric mean that is
 * always positive, however far apart the samples (two samples of 1,000 and
 * 100,000 JPM give 2.0e-9 .. 5.1e16, where the CI of the arithmetic mean
 * is -578,457 .. 679,457: two samples bound little, but never below 0;
 * samples within a few percent give about the CI of the mean).  *lo and *hi
 * are NAN (unknown) for n < 2 or any x <= 0.
 */
void stats_ci95_log(const double *x, size_t n, double *lo, double *hi);
/*
 * Welch's t-test of two samples' means; returns the two-sided p-value
 * (1.0 when either side has n < 2 or both variances are 0 and means equal).
 */
double stats_welch_p(const struct stats_summary *a, const struct stats_summary *b);
/* The same test, also giving t (a - b over its standard error) and Welch's df (0 when n < 2). */
double stats_welch(const struct stats_summary *a, const struct stats_summary *b, double *t,
		   double *df);
/* Two-sided p-value of Student's t with df (> 0, not necessarily whole) degrees of freedom. */
double stats_t_p(double t, double df);
/* The t whose two-sided p-value is p at df degrees of freedom (p 0.05: the 95% quantile). */
double stats_t_quantile(double df, double p);
/* Two-sided p-value of a standard normal statistic z. */
double stats_normal_p(double z);
/*
 * Holm's step-down adjustment of n p-values for multiple comparisons
 * (family-wise error rate): adj[i] is p[i]'s adjusted value.
 */
void stats_holm(const double *p, size_t n, double *adj);

/*
 * The sequential test of paired rounds (seq.c): an always-valid confidence
 * sequence for the mean of n values (the log ratios of an A/B's rounds)
 * whose spread is not known, Lai's (1976) t-mixture: for each candidate
 * mean m, the scale-invariant likelihood ratio of "the mean is m + theta x
 * sd" against "it is m", theta mixed over N(0, tau^2), is a martingale
 * under "it is m" whatever sd is; the sequence is the m whose ratio stays
 * below 1/alpha.  By Ville's inequality it misses the true mean at ANY
 * round with probability at most alpha, so a verdict may be looked at
 * after every round and the rounds stopped when it decides (optional
 * stopping) without raising the false-alarm rate.  It is
 * mean +- stats_cs_t(n, alpha) x sd / sqrt(n) (sd the sample sd).
 */
#define STATS_CS_TAU 1.0          /* the mixture's sd of the effect in sds (docs/reports.md) */
#define STATS_SEQ_MAX_NEED 1000   /* beyond this many more rounds: "many" (0) */
#define STATS_SEQ_SAME_LOG 1e-12 /* log ratios closer than this are identical values */

/*
 * The t multiplier of the confidence sequence after n values at level
 * alpha: INFINITY while n values bound nothing (n < 5 at alpha 0.05).
 */
double stats_cs_t(size_t n, double alpha);

enum stats_seq_verdict {
	STATS_SEQ_UNDECIDED,
	STATS_SEQ_SAME,           /* the sequence inside (log1p(-thr), log1p(thr)) */
	STATS_SEQ_UP,             /* the sequence above 0 and the mean at least log1p(thr) */
	STATS_SEQ_DOWN,           /* below 0 and the mean at most log1p(-thr) */
};

struct stats_seq {
	size_t n;
	double mean, sd;          /* of the values; sd NAN for n < 2 */
	/*
	 * The confidence sequence after the n values in their order: the
	 * intersection of its intervals over the prefixes 2..n (itself a
	 * confidence sequence); -+INFINITY while unbounded.
	 */
	double lo, hi;
	double t;                 /* Student's t of the mean against 0 (NAN for n < 2) */
	/*
	 * The always-valid p-value of "no change": 1 over the largest mixture
	 * ratio of mean 0 over the prefixes, at most 1.  P(p <= a) <= a at any
	 * stopping round, so Holm over such p-values stays valid too.
	 */
	double p;
	enum stats_seq_verdict verdict;
	/*
	 * Undecided: more values (rounds) after which the sequence would
	 * decide if the mean and sd stayed as measured (at least 1); 0 when
	 * it cannot be said (no spread measured, or more than
	 * STATS_SEQ_MAX_NEED).
	 */
	unsigned need;
};

/*
 * The sequential verdict of values d[0..n) (log ratios, in the order they
 * were measured) at relative threshold thr (0.05: a 5% change) and level
 * alpha: up when p < alpha and the mean is at least log1p(thr), down when
 * p < alpha and it is at most log1p(-thr), same when the sequence lies
 * inside those margins.  Pure.
 */
void stats_seq_test(const double *d, size_t n, double thr, double alpha, struct stats_seq *out);

/*
 * Samples that survive a busy host (interfere.c).  A sample during which
 * other work (machine.other_pct: busy CPU time not the users', and steal)
 * took more than a bound is measured again, at most a set number of times;
 * the last one is kept flagged when every try was over.  The bound is
 * given (run --interference-max), or the median other_pct of the run's
 * kept unflagged samples so far plus STATS_INTERFERE_MARGIN_PCT (or half
 * of the share left to the users, 100 - median, when that is less), at
 * least STATS_INTERFERE_FLOOR_PCT: a host that is always as busy re-measures
 * nothing, one whose other work rises mid-run does.
 */
#define STATS_INTERFERE_MARGIN_PCT 10.0
#define STATS_INTERFERE_FLOOR_PCT 15.0

/*
 * The bound in % of the CPUs: given when > 0, else from the other_pct of
 * the run's quiet samples quiet[0..n) (NAN ones skipped); NAN while there
 * is none (the first sample is not judged).
 */
double stats_interfere_bound(double given, const double *quiet, size_t n);

enum stats_interfere_act {
	STATS_IF_KEEP,            /* within the bound (or nothing to judge) */
	STATS_IF_REMEASURE,       /* over it: discard the sample, measure again */
	STATS_IF_FLAG,            /* over it, no re-measure left: keep it, flagged */
};

/* What to do with a sample whose other work took other_pct, done re-measures of max made. */
enum stats_interfere_act stats_interfere_decide(double other_pct, double bound, unsigned done,
						unsigned max);

/*
 * Noise-sized points (sizing.c): pilot samples whose relative sd is over
 * a target make every point f times larger, f = (sd / target)^2 (the sd of
 * a mean of f independent parts falls as 1/sqrt(f)) rounded up to a power
 * of two, so that one machine's nights choose the same size; at most
 * STATS_SIZE_MAX, and at most what keeps a point (point_s now) within
 * max_point_s.
 */
#define STATS_SIZE_MAX 16u

struct stats_sizing {
	unsigned factor;          /* what the points are multiplied by (1: as asked) */
	unsigned wanted;          /* ... what the noise asked before the caps (<= 1 << 20) */
	bool capped_max;          /* cut to STATS_SIZE_MAX */
	bool capped_time;         /* cut so that a point stays within max_point_s */
};

/*
 * The factor for pilots of relative sd sd_pct (%) against target_pct (%);
 * point_s: how long a point takes as asked, max_point_s: the most a sized
 * one may (<= 0: no bound).  A NAN sd or a target <= 0 gives 1.  Pure.
 */
void stats_size_factor(double sd_pct, double target_pct, double point_s, double max_point_s,
		       struct stats_sizing *out);

/*
 * Latency histogram: log-linear buckets over nanoseconds, 8 sub-buckets per
 * power of two (about 9% relative resolution), 1 ns .. ~2^47 ns (39 h).
 */
#define STATS_HIST_SUB 8
#define STATS_HIST_OCTAVES 48
#define STATS_HIST_BUCKETS (STATS_HIST_SUB * STATS_HIST_OCTAVES)

struct stats_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns;          /* valid when count > 0 */
	uint64_t max_ns;
	uint32_t bucket[STATS_HIST_BUCKETS];
};

static inline unsigned stats_hist_index(uint64_t ns)
{
	if (ns < STATS_HIST_SUB)
		return (unsigned)ns;
	unsigned msb = 63u - (unsigned)__builtin_clzll(ns);           /* >= 3 */
	unsigned sub = (unsigned)(ns >> (msb - 3)) & (STATS_HIST_SUB - 1);
	unsigned idx = (msb - 2) * STATS_HIST_SUB + sub;
	return idx < STATS_HIST_BUCKETS ? idx : STATS_HIST_BUCKETS - 1;
}

static inline void stats_hist_add(struct stats_hist *h, uint64_t ns)
{
	if (!h->count++ || ns < h->min_ns)
		h->min_ns = ns;
	h->sum_ns += ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	h->bucket[stats_hist_index(ns)]++;
}

void stats_hist_merge(struct stats_hist *into, const struct stats_hist *from);
/*
 * Value (ns) at quantile q in [0,1] (the sample of rank ceil(q x count)),
 * from the buckets and the exact min and max: the bucket's samples are
 * taken as spread evenly over it, narrowed to [min, max] (where the bucket
 * holds the min or the max, that sample sits there).  So min <= q(a) <=
 * q(b) <= max for a <= b, q(0) is min and q(1) max, one sample gives its
 * own value, and jobs that all take about the same time give a p99 at or
 * above their mean within a bucket's width (a midpoint fell up to 6% below
 * a lone sample, and below the mean).
 */
double stats_hist_quantile(const struct stats_hist *h, double q);

#endif
