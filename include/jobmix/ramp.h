/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ramp strategies: which user count to measure next.  A pure module: it is
 * fed the observations so far and answers with a decision; it never forks,
 * sleeps or reads a clock (elapsed time is passed in).
 *
 *   linear     the given list of user counts, in order
 *   peak       geometric growth until JPM stops rising beyond the noise,
 *              then golden-section refinement between the bracketing points
 *   converge   peak, then onward (a jump to the predicted crossing) until
 *              JPM/user <= threshold (60), then regula falsi to the first
 *              user count that meets it (within a tolerance that widens to
 *              the measured noise: ramp_cfg.converge_tol)
 *   crossover  converge with threshold 10
 *
 * The caller's loop:
 *
 *	struct ramp_obs obs[RAMP_MAX_OBS]; size_t nobs = 0; unsigned samples = 0;
 *	for (;;) {
 *		struct ramp_decision d = ramp_next(r, obs, nobs, samples, elapsed);
 *		if (d.stop != RAMP_GOING)
 *			break;
 *		measure d.users once; find the obs with users == d.users or
 *		append one (zeroed, users set); on success jpm[n++] = JPM, on
 *		failure failed = true; ramp_obs_update(); samples++;
 *	}
 *	ramp_summarize(r, obs, nobs, &summary);
 *
 * Noise: two points differ "significantly" when both have >= 2 samples and
 * Welch's test gives p < 0.05 with a difference of at least half the noise
 * floor; otherwise when the difference exceeds a relative threshold: the
 * noise floor (cfg->noise_rel, default 2%), or, once repeated samples exist,
 * t(0.975, df) x the pooled relative standard deviation x sqrt(1/na + 1/nb)
 * (never below half the floor).  The best point is the one with the highest
 * mean less one standard error of the pooled noise, so a lucky single sample
 * does not outrank a repeated point of nearly the same mean; with equal
 * sample counts that is simply the highest mean.
 *
 * repeat_auto: before a peak claim the best point and the points that decide
 * it (its neighbours, and the drop above it) are sampled again until each is
 * told apart from the best, by Welch's test or by the measured noise but never
 * by the default floor alone (a noisy machine beats 2% easily), or has
 * RAMP_AUTO_SAMPLES samples.  A flat claim is decided on the best and its
 * neighbours only, at RAMP_FLAT_SAMPLES each: points on a top flat within
 * the noise are not told apart by more samples, and sampling them five
 * times over costs more than a dense sweep.  Before refining, -r auto
 * samples the best and a neighbour twice, so the refinement knows the
 * noise and stops at RAMP_REFINE_FLAT_REL where the top is flat within it.
 * A drop is the first successful point above the best from which every
 * successful point is below it beyond the noise (a failed point is never
 * one); -r auto measures the next growth step past a drop
 * before believing it, so a single low point (a burst of host noise) does
 * not end the search below the peak.  -m peak maps a flat top before it
 * ends: while a gap between the measured points of the peak's range (those
 * not below the best beyond the noise) is wider than RAMP_FLAT_GAP_REL of
 * the range's top users, it measures the gap's midpoint once ("map top"),
 * so the summary's pick of where the top leans has neighbours to read.
 * bench/ramp-sim.sh weighs these choices on simulated curves in seconds.
 *
 * Budgets bound a search, they do not end it early: when growth reaches
 * max_users and the best point lies below the top, the search refines
 * between the best point's neighbours and ends with the peak established
 * (a drop) or flat ("flat below max_users"); only a curve still rising at
 * the ceiling stops as max_users, with no claim.  max_points and max_time
 * end a search wherever it is: no sample is started that would pass
 * max_points, nor one that ramp_predict_s puts past max_time_s.
 *
 * A failed observation is past the edge: growth stops there, refinement
 * stays below it, it is never the peak, never the drop and never measured
 * again.  A failure above the best bounds the search but does not
 * establish the peak: refined up to it with no fall seen below it, the
 * search stops as failed with the best working point and no claim.
 *
 * Every GOING decision asks for one more sample, each user count gets at
 * most RAMP_MAX_SAMPLES samples, new user counts are distinct and bounded,
 * and the number of decisions is capped, so a ramp always terminates.
 */
#ifndef JOBMIX_RAMP_H
#define JOBMIX_RAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "jobmix/ramp_mode.h"

#define RAMP_MAX_SAMPLES 32
#define RAMP_MAX_OBS 1024
#define RAMP_USERS_MAX 1000000u        /* hard ceiling on any user count */
#define RAMP_LIST_MAX 100000u          /* most user counts a -u list may give */
#define RAMP_AUTO_SAMPLES 5            /* repeat_auto: samples per deciding point */
#define RAMP_FLAT_SAMPLES 2            /* ... per point of a top flat within the measured noise */
#define RAMP_NOISE_DEFAULT 0.02        /* relative noise floor for single samples */
#define RAMP_REFINE_REL 0.03           /* refinement stops at width <= 3% of users (or <= 2) */
#define RAMP_REFINE_FLAT_REL 0.4       /* ... or <= 40% when the best's neighbours are within the noise */
#define RAMP_FLAT_GAP_REL 0.2          /* a flat top is mapped until no gap in it is wider than 20% of its top users */
#define RAMP_LOF_SPAN 1.2              /* the reported range reads between-point noise off three points this close */
#define RAMP_CONV_GAIN 0.1             /* converge: a doubling that gains less is a slow rise ... */
#define RAMP_CONV_GROW_DIV 8           /* ... not grown past 1/8 of the crossing it predicts */
#define RAMP_SUSPECT_SPAN 1.5          /* converge: neighbours of a point are within this factor of its users */
#define RAMP_SUSPECT_REL 0.06          /* ... and disagree beyond this (log ratio) before the noise is measured */
#define RAMP_SUSPECT_MAX 8             /* suspect points the summary lists */
#define RAMP_CONV_TOL_SD 2.0           /* converge: the tolerance widens to this many sd of one sample's noise ... */
#define RAMP_CONV_TOL_MAX 0.06         /* ... at most this (twice the default 3%) */
#define RAMP_CONV_TOL_CROSS_MAX 0.10   /* ... or of the crossing's own scatter, at most this */
/*
 * converge: the crossing's single-sample noise `jobmix run` assumes
 * (ramp_cfg.converge_prior) until two of its samples measure it.  The
 * crossing's points scatter more than the top's repeats: on the project's
 * VM, quiet, 3.6-9% sd over one round's crossing points (bench/README.md)
 * while the top's repeats agreed within 0.2-3%.
 */
#define RAMP_CONV_NOISE_PRIOR 0.05
#define RAMP_PEAK_POOLED 6             /* a peak's noise: its neighbours sampled twice, or pooled from 6 samples */
#define RAMP_GAP_COST 0.4             /* a gap probe that costs at most this share of a single-sampled best's sample goes first */
#define RAMP_SETTLE_MAX 12             /* samples the settling of a peak may ask before it gives up its claim */

/* Everything measured at one user count (all repeats). */
struct ramp_obs {
	unsigned users;
	unsigned n;                       /* samples */
	double jpm[RAMP_MAX_SAMPLES];
	double mean, sd;                  /* of jpm; filled by ramp_obs_update() */
	double ci_lo, ci_hi;              /* 95% CI of jpm's geometric mean (stats_ci95_log) */
	bool failed;                      /* a sample failed: treat as past the edge */
	double secs;                      /* wall seconds its samples took, summed (0: unknown) */
};

/*
 * Mean, sample sd and the 95% CI over jpm[0..n-1]: the CI of the mean of
 * log JPM, transformed back (stats_ci95_log: about the geometric mean,
 * always positive); NAN, unknown, for n < 2 or a sample <= 0.
 */
void ramp_obs_update(struct ramp_obs *o);

enum ramp_stop {
	RAMP_GOING = 0,
	RAMP_DONE,             /* list finished / peak established / converged */
	RAMP_FLAT,             /* curve flat within the noise */
	RAMP_MAX_USERS,        /* budget hit */
	RAMP_MAX_POINTS,
	RAMP_MAX_TIME,
	RAMP_FAILED,           /* a point failed and nothing more can be decided */
	RAMP_INTERRUPTED,      /* stopped by a signal (set by the caller: the ramp never is) */
};

/* Where the crossing's tolerance (ramp_summary.converge_tol) came from. */
enum ramp_tol_src {
	RAMP_TOL_CONFIGURED,   /* cfg.converge_tol as given */
	RAMP_TOL_NOISE,        /* twice the top's measured single-sample noise */
	RAMP_TOL_SCATTER,      /* twice the scatter of the crossing's own samples */
	RAMP_TOL_PRIOR,        /* twice cfg.converge_prior: the crossing's noise not yet measured */
};

/* "going", "done", "flat", "max_users", "max_points", "max_time", "failed", "interrupted". */
const char *ramp_stop_name(enum ramp_stop s);
/*
 * "configured", "top noise", "crossing scatter", "crossing prior" (run.json
 * summary.converge_tol_from).
 */
const char *ramp_tol_src_name(enum ramp_tol_src s);

/* The order a linear ramp measures its list in. */
enum ramp_points { RAMP_POINTS_ASCENDING, RAMP_POINTS_DESCENDING, RAMP_POINTS_SHUFFLE };

/* "ascending", "descending", "shuffle". */
const char *ramp_points_name(enum ramp_points p);

struct ramp_cfg {
	enum wl_ramp_mode mode;
	const unsigned *list;     /* linear: user counts in order (copied by ramp_new) */
	size_t nlist;
	/*
	 * linear: measure the list ascending (as given), descending, or in a
	 * random order drawn from points_seed (every count once; the standard
	 * defence against drift in a sweep).  Adaptive modes: ascending only.
	 */
	enum ramp_points points;
	uint64_t points_seed;
	unsigned start;           /* adaptive: first user count (0 = 1) */
	double growth;            /* adaptive: geometric factor (0 = 2; else > 1) */
	unsigned max_users;       /* 0 = no limit (RAMP_USERS_MAX) */
	unsigned max_points;      /* measured points (samples), 0 = no limit */
	double max_time_s;        /* 0 = no limit */
	unsigned repeat;          /* samples per point (0 = 1; capped at RAMP_MAX_SAMPLES) */
	bool repeat_auto;         /* 1 sample per point; deciding points up to RAMP_AUTO_SAMPLES */
	double converge_jpm_per_user; /* 0 = 60 (10 in crossover mode) */
	double noise_rel;         /* single-sample relative noise floor, 0 = RAMP_NOISE_DEFAULT */
	/*
	 * Convergence resolution: bisection stops once the first count that
	 * meets the threshold is within this fraction of itself from the
	 * highest measured count that does not, or a count meets it with
	 * JPM/user within this fraction below it (0: exactly the first count).
	 * JPM past the peak is noisy, so refining below the noise buys nothing:
	 * once the noise is measured the tolerance widens to RAMP_CONV_TOL_SD x
	 * the single-sample noise, at most RAMP_CONV_TOL_MAX, or, once two
	 * samples lie about the crossing, to RAMP_CONV_TOL_SD x their scatter,
	 * at most RAMP_CONV_TOL_CROSS_MAX, when wider.  With a tolerance
	 * the search measures the noise first (the best and a neighbour sampled
	 * twice, phase "noise probe", where points cost least).
	 */
	double converge_tol;
	/*
	 * converge, with a tolerance: the single-sample noise assumed at the
	 * crossing until two of its samples measure it (0: none): the tolerance
	 * is at least RAMP_CONV_TOL_SD x this, at most RAMP_CONV_TOL_CROSS_MAX,
	 * so that a first jump landing within the band the crossing's points
	 * scatter over settles it (`jobmix run`: RAMP_CONV_NOISE_PRIOR)
	 */
	double converge_prior;
};

struct ramp_decision {
	enum ramp_stop stop;      /* RAMP_GOING: measure `users` once more */
	unsigned users;
	/*
	 * "list", "repeat", "grow", "refine", "confirm", "confirm top",
	 * "noise probe", "past drop", "map top", "converge", or why it stopped
	 */
	const char *phase;
};

/*
 * The outcome.  have_peak: a successful point exists and peak_users/peak_jpm
 * are the best measured point (highest mean JPM); it is a claim only when
 * peak_established is true: the strategy saw JPM fall beyond the noise above
 * the best point (successful points below it; a failed point is no fall, see
 * fail_users) and narrowed the bracket around it, or found the curve flat
 * below any failure (peak_flat: then peak_users is only where it was
 * measured; -m peak reports the point of the flat top, within
 * peak_users_lo..hi, whose neighbourhood, it and the measured points either
 * side weighted by samples, has the highest mean, and best_users the best
 * point by rank).  For a linear ramp the same test
 * is applied to the list's points.  A budget stop before that leaves
 * peak_established false.
 *
 * have_converge: the first user count with mean JPM/users <= threshold was
 * found (adaptive modes: bracketed to one user, i.e. the count below it was
 * measured and did not meet it, or it is the first count of the range;
 * linear: at the list's resolution), and it lies past the peak (above
 * peak_users): Quick Convergence is where the ramp converges into overload,
 * and a count at or below the peak that meets the threshold (each user slow
 * from the start, a 0 or low point) is not it (converge_early_users).
 * converge_jpm is the mean JPM there.  converge/crossover with a tolerance
 * (converge_tol > 0): a measured count within the tolerance of that first
 * count: the first measured count that meets the threshold, or (past the
 * peak, where JPM does not rise) one just short of it, JPM/users at most
 * threshold x (1 + converge_tol), every count below it measured missing it.
 *
 * best_users/best_jpm: since issue 42 the same as peak_users/peak_jpm (one
 * answer: the peak the search settled on, -m peak's flat-top pick, or the
 * highest mean when a measured count lies above the peak's interval, then
 * peak_beaten), filled whenever any point succeeded.  It is not the
 * maximum: the largest JPM measured is the results' summary.max_jpm.
 */
struct ramp_summary {
	bool have_peak;
	unsigned peak_users;
	double peak_jpm;
	bool peak_established;
	bool peak_flat;
	/*
	 * converge/crossover: a point measured past the peak the search settled
	 * on beat it beyond the noise (a noise-fooled search, or a curve that
	 * rises again); the peak is then not claimed as established.
	 */
	bool peak_beaten;
	bool have_converge;
	/*
	 * The first count meeting the threshold, when it lies at or below
	 * peak_users (have_converge is then false); 0 when not so.
	 */
	unsigned converge_early_users;
	/*
	 * Why the peak is not established, when a failure is why: the lowest
	 * failed count above the best, with no fall beyond the noise seen
	 * between them (the search stops as failed); 0 when not so.
	 */
	unsigned fail_users;
	unsigned converge_users;
	double converge_jpm;
	/*
	 * Adaptive modes: the tolerance the crossing was settled to, a fraction
	 * of converge_users (cfg.converge_tol, widened to the measured noise or
	 * the crossing's scatter: conv_tol_why in ramp.c); 0 when exact or not
	 * converged.
	 */
	double converge_tol;
	enum ramp_tol_src converge_tol_src;   /* where converge_tol came from */
	double converge_scatter;              /* the crossing's samples' relative sd; 0: none */
	unsigned converge_scatter_df;         /* its degrees of freedom (samples - 1) */
	unsigned best_users;
	double best_jpm;
	double converge_threshold;   /* JPM per user used */
	enum ramp_stop stop_reason;  /* RAMP_GOING while the ramp has not stopped */
	/*
	 * The machine's noise as the ramp saw it: the relative sd of samples at
	 * one user count, pooled over every repeated count (noise_df degrees of
	 * freedom; 0 and 0 when no count was measured twice).
	 */
	double noise_rel;
	unsigned noise_df;
	/*
	 * The user counts the measured noise cannot tell from the peak: the
	 * measured points on either side of peak_users whose JPM is not below
	 * it beyond the noise, and the unmeasured gaps out to the nearest
	 * point that is (or failed), that point excluded: the true top may lie
	 * anywhere short of it (issue 42: a range of the points alone held the
	 * true top in 49-78% of noisy -m peak trials).  With no such point
	 * below: the lowest measured count; above: the search's ceiling
	 * (cfg.max_users; a linear list's last count), nothing measured saying
	 * the curve falls before it.  Below: by the ramp's significance test,
	 * or by the pooled noise on the ratio scale (log of the peak's mean
	 * over the point's beyond t95 x noise_rel x the standard error
	 * factor, widened for the m comparisons and by the between-point
	 * noise that close counts show beyond noise_rel: drift, bursts), so
	 * that neither Welch's test on two samples a side nor a
	 * band wider than the peak itself takes in a point far below it.  0
	 * and 0 without a peak or before the noise is measured (noise_df < 2:
	 * the default floor alone would call a noisy top narrow).
	 */
	unsigned peak_users_lo, peak_users_hi;
	/*
	 * The peak's own 95% interval of JPM, on the ratio scale: peak_jpm x
	 * exp(+-t95 x noise_rel / sqrt(n)) with the pooled noise (noise_df >= 2;
	 * n the peak's samples), else the peak's own samples' (ramp_obs ci_lo,
	 * ci_hi; n >= 2); 0 and 0 when neither is known.
	 */
	double peak_ci_lo, peak_ci_hi;
	/*
	 * converge/crossover: the points past the peak whose JPM lies off the
	 * line through their neighbours beyond the noise (a burst of host noise
	 * rather than the curve; -r auto samples such a deciding point again
	 * before it moves the bracket): their users and their relative distance
	 * from that line (-0.15: 15% below), at most RAMP_SUSPECT_MAX, by users.
	 */
	unsigned nsuspect;
	unsigned suspect_users[RAMP_SUSPECT_MAX];
	double suspect_dev[RAMP_SUSPECT_MAX];
	/*
	 * What was asked and how far the ramp got (issue 42: the closing lines
	 * and run.json's summary.outcome say what was not reached): a peak
	 * search (adaptive modes), a crossing (converge/crossover); the highest
	 * successful count measured and its mean JPM; the budgets.
	 */
	bool peak_wanted, converge_wanted;
	unsigned last_users;
	double last_jpm;
	double max_time_s;
	unsigned max_points;
};

/*
 * What a ramp did not reach, one line each, "" when there is nothing to
 * say: "peak: not established (max_time)" for a peak search without an
 * established peak; "quick convergence: not reached within 6m (last 134
 * users at 92.0 JPM/user)" (or "crossover: ...") for a crossing search
 * that found none (within N points, or "(stopped: REASON)" when no budget
 * ended it).  Both the terminal and run.json use these.
 */
void ramp_unreached_peak(const struct ramp_summary *s, char *buf, size_t len);
void ramp_unreached_converge(const struct ramp_summary *s, char *buf, size_t len);

struct ramp;  /* opaque state */

/* Check a configuration; 0, or -1 with a message in err. */
int ramp_cfg_check(const struct ramp_cfg *cfg, char *err, size_t errlen);
/* NULL on an invalid configuration (see ramp_cfg_check) or out of memory. */
struct ramp *ramp_new(const struct ramp_cfg *cfg);
void ramp_free(struct ramp *r);
/*
 * Next step, given every observation so far (one entry per user count, any
 * order) and the samples measured and wall time used so far.  Once it has
 * answered with a stop, it keeps answering with that stop.
 */
struct ramp_decision ramp_next(struct ramp *r, const struct ramp_obs *obs, size_t nobs,
			       unsigned samples, double elapsed_s);
void ramp_summarize(const struct ramp *r, const struct ramp_obs *obs, size_t nobs,
		    struct ramp_summary *out);

/*
 * Parse a -u SPEC: "N", "A-B" (step 1), "A-B/S" (step S), "A-BxF" (factor
 * F, an integer >= 2: A, A*F, A*F^2 ... up to B), or a comma list of those.
 * Ranges stop at the last value <= B.  Returns a malloc'd ascending,
 * de-duplicated list of at most RAMP_LIST_MAX counts, each 1..RAMP_USERS_MAX;
 * -1 with a message naming the offending part in err.
 */
int ramp_parse_users(const char *spec, unsigned **list, size_t *n, char *err, size_t errlen);
/*
 * CPU-relative users (lkp's nr_task): every "N%" in spec becomes
 * round(N x ncpus / 100), at least 1 ("100%" on 8 CPUs: "8"; "50%-400%":
 * "4-32"), the rest kept; out is then a spec for ramp_parse_users.  0, or
 * -1 with err set.
 */
int ramp_users_resolve_cpus(const char *spec, unsigned ncpus, char *out, size_t outlen,
			    char *err, size_t errlen);

/*
 * Budgets are budgets (issue 42): the predicted wall seconds of one more
 * sample at `users`, from the points measured so far (ramp_obs.secs):
 * the mean sample time at that count when it was measured, else a line
 * fitted to sample time against users / JPM (each user runs the same jobs,
 * so a point takes about its users over its JPM; a fixed-duration point
 * fits a flat line) with the JPM at `users` read from the measured points
 * (interpolated between them, the nearest one's beyond them), never below
 * the smallest sample time measured nor the line through the origin and
 * the highest count's ratio; twice that past twice the highest count
 * measured (a jump: JPM falls past the peak, unmeasured).  NAN when no
 * point carries its time.  ramp_next
 * does not start a sample that the prediction puts past max_time_s.
 */
double ramp_predict_s(const struct ramp_obs *obs, size_t nobs, unsigned users);

/*
 * What a run's time left is estimated from (the status line, --dry-run).
 * points_total: the points the plan measures over every arm and round, 0
 * when the ramps decide (a peak search); budget_s: --max-time over every
 * arm and round, 0 none.  The points still to come at the mean wall time a
 * point has taken so far (elapsed_s / points_done: warm-ups, settling and
 * switching included), capped by the budget left.
 */
struct ramp_eta {
	unsigned points_total, points_done;
	double elapsed_s;         /* since the run began */
	double budget_s;
};
/* Seconds left, or NAN when nothing bounds it yet (no point measured, no budget). */
double ramp_eta_s(const struct ramp_eta *e);

#endif
