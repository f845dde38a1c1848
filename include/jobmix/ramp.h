/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ramp strategies: which user count to measure next.  A pure module: it is
 * fed the observations so far and answers with a decision; it never forks,
 * sleeps or reads a clock (elapsed time is passed in).
 *
 *   linear     the given list of user counts
 *   peak       geometric growth until JPM stops rising beyond the noise,
 *              then refinement between the bracketing points
 *   converge   peak, then onward until JPM/user <= threshold (60)
 *   crossover  converge with threshold 10
 */
#ifndef JOBMIX_RAMP_H
#define JOBMIX_RAMP_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/workload.h"

#define RAMP_MAX_SAMPLES 32
#define RAMP_MAX_OBS 1024

/* Everything measured at one user count (all repeats). */
struct ramp_obs {
	unsigned users;
	unsigned n;                       /* samples */
	double jpm[RAMP_MAX_SAMPLES];
	double mean, sd, ci_lo, ci_hi;    /* of jpm; filled by ramp_obs_update() */
	bool failed;                      /* a sample failed: treat as past the edge */
};

void ramp_obs_update(struct ramp_obs *o);

enum ramp_stop {
	RAMP_GOING = 0,
	RAMP_DONE,             /* list finished / peak established / converged */
	RAMP_FLAT,             /* curve flat within the noise */
	RAMP_MAX_USERS,        /* budget hit */
	RAMP_MAX_POINTS,
	RAMP_MAX_TIME,
	RAMP_FAILED,           /* a point failed and nothing more can be decided */
};

const char *ramp_stop_name(enum ramp_stop s);

struct ramp_cfg {
	enum wl_ramp_mode mode;
	const unsigned *list;     /* linear: user counts in order */
	size_t nlist;
	unsigned start;           /* adaptive: first user count (>= 1) */
	double growth;            /* adaptive: geometric factor (default 2) */
	unsigned max_users;       /* 0 = no limit */
	unsigned max_points;      /* measured points (samples), 0 = no limit */
	double max_time_s;        /* 0 = no limit */
	unsigned repeat;          /* samples per point */
	bool repeat_auto;         /* extra samples only where a decision needs them */
	double converge_jpm_per_user;
};

struct ramp_decision {
	enum ramp_stop stop;      /* RAMP_GOING: measure `users` once more */
	unsigned users;
	const char *phase;        /* "list", "grow", "refine", "converge", ... */
};

struct ramp_summary {
	bool have_peak;
	unsigned peak_users;
	double peak_jpm;
	bool have_converge;
	unsigned converge_users;
	double converge_jpm;
	double converge_max_jpm;
	enum ramp_stop stop_reason;
};

struct ramp;  /* opaque state */

struct ramp *ramp_new(const struct ramp_cfg *cfg);
void ramp_free(struct ramp *r);
/*
 * Next step, given every observation so far (one entry per user count) and
 * the samples measured and wall time used so far.
 */
struct ramp_decision ramp_next(struct ramp *r, const struct ramp_obs *obs, size_t nobs,
			       unsigned samples, double elapsed_s);
void ramp_summarize(const struct ramp *r, const struct ramp_obs *obs, size_t nobs,
		    struct ramp_summary *out);

/*
 * Parse a -u SPEC: "N", "A-B" (step 1), "A-B/S" (step S), "A-BxF" (factor F),
 * or a comma list of those.  Returns a malloc'd ascending, de-duplicated list.
 */
int ramp_parse_users(const char *spec, unsigned **list, size_t *n, char *err, size_t errlen);

#endif
