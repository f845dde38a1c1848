// SPDX-License-Identifier: GPL-2.0-only
/*
 * The peak search (src/ramp) against a dense sweep on simulated curves:
 * many trials in a second, where bench/convergence.sh takes half an hour
 * for three.  Each sample is the true curve times (1 + sd x N(0,1)); every
 * point costs the same time, so time_x = points / dense points.  For each
 * curve it prints the medians over trials of points, time_x, |err| (the
 * reported peak JPM against the true maximum) and curve (the true curve at
 * the chosen users against the true maximum), for `-m peak -r auto` and for
 * a single dense sweep 1..DENSE (its argmax).  The curves are shaped after
 * the fserver and quick mixes measured on this project's VM (see
 * bench/convergence.sh); the simulation tells how the search behaves, the
 * real bench whether that holds on the machine.  A second table asks how
 * faithful the real bench's yardstick is (it cannot know the true curve and
 * judges against the dense sweeps of several rounds): see yardsticks().
 *
 *   bench/ramp-sim.sh [TRIALS]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/ramp.h"

#define DENSE 48

struct curve {
	const char *name;
	double tau;      /* rise: 1 - exp(-u / tau) */
	double decline;  /* fraction lost per 100 users past the rise */
	double sd;       /* relative noise of one sample */
	double bump, at, width; /* a local rise on the top: bump x exp(-((u - at) / width)^2) */
};

static double curve_at(const struct curve *c, unsigned u)
{
	double b = c->bump ? c->bump * exp(-pow(((double)u - c->at) / c->width, 2)) : 0;
	return 50000.0 * (1.0 - exp(-(double)u / c->tau)) * (1.0 - c->decline * u / 100.0) * (1.0 + b);
}

static double curve_max(const struct curve *c)
{
	double m = 0;
	for (unsigned u = 1; u <= DENSE; u++)
		if (curve_at(c, u) > m)
			m = curve_at(c, u);
	return m;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return ((rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2.0 * log(uniform())) * cos(2.0 * M_PI * uniform());
}

static double sample(const struct curve *c, unsigned u)
{
	return curve_at(c, u) * (1.0 + c->sd * gauss());
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct result {
	double points, err, curve;
	unsigned users; /* the chosen user count (0: no peak claimed) */
	double jpm;     /* the peak JPM reported */
};

static struct result run_peak(const struct curve *c)
{
	static struct ramp_obs obs[RAMP_MAX_OBS];
	size_t nobs = 0;
	unsigned samples = 0;
	struct ramp_cfg cfg = { .mode = WL_RAMP_PEAK, .start = 1, .growth = 2,
				.max_users = DENSE, .repeat_auto = true };
	struct ramp *r = ramp_new(&cfg);
	for (;;) {
		struct ramp_decision d = ramp_next(r, obs, nobs, samples, samples * 2.0);
		if (d.stop != RAMP_GOING)
			break;
		size_t i;
		for (i = 0; i < nobs && obs[i].users != d.users; i++)
			;
		if (i == nobs) {
			memset(&obs[nobs], 0, sizeof(obs[nobs]));
			obs[nobs++].users = d.users;
		}
		if (obs[i].n < RAMP_MAX_SAMPLES)
			obs[i].jpm[obs[i].n++] = sample(c, d.users);
		ramp_obs_update(&obs[i]);
		samples++;
	}
	struct ramp_summary s;
	ramp_summarize(r, obs, nobs, &s);
	ramp_free(r);
	double m = curve_max(c);
	return (struct result){ .points = samples,
				.err = s.have_peak ? fabs(s.peak_jpm / m - 1) * 100 : NAN,
				.curve = s.have_peak ? (curve_at(c, s.peak_users) / m - 1) * 100 : NAN,
				.users = s.have_peak ? s.peak_users : 0, .jpm = s.peak_jpm };
}

/* One sample per user count 1..DENSE, kept in x[1..DENSE]; its argmax. */
static struct result run_dense(const struct curve *c, double *x)
{
	double best = -1;
	unsigned bu = 1;
	for (unsigned u = 1; u <= DENSE; u++) {
		x[u] = sample(c, u);
		if (x[u] > best) {
			best = x[u];
			bu = u;
		}
	}
	double m = curve_max(c);
	return (struct result){ .points = DENSE, .err = fabs(best / m - 1) * 100,
				.curve = (curve_at(c, bu) / m - 1) * 100, .users = bu, .jpm = best };
}

/*
 * bench/convergence.sh cannot know the true curve: it judges each round's
 * dense sweep and search against the dense curve pooled over rounds.  How
 * faithful is that yardstick?  ROUNDS rounds of a dense sweep and a search,
 * judged (as the bench does) against the mean of the dense sweeps of every
 * round ("pooled", the dense sweep judged partly against itself) and of
 * every other round ("others"), beside the truth.  Medians over trials x
 * rounds of |err| and curve for each method under each yardstick.
 */
#define ROUNDS 4
enum { YS_TRUE, YS_POOLED, YS_OTHERS, YS_SMOOTH, YS_N };
static const char *const ys_name[YS_N] = { "true", "pooled", "others", "smooth" };

static void judge(const double *ref, const struct result *x, double *err, double *cur)
{
	double best = 0;
	for (unsigned u = 1; u <= DENSE; u++)
		if (ref[u] > best)
			best = ref[u];
	*err = x->users ? fabs(x->jpm / best - 1) * 100 : NAN;
	*cur = x->users ? (ref[x->users] / best - 1) * 100 : NAN;
}

static void yardsticks(const struct curve *c, int trials)
{
	size_t n = (size_t)trials * ROUNDS;
	/* per yardstick y and method m (dense, peak): err at V(y, m, 0), curve at V(y, m, 1) */
	double *buf = malloc(sizeof(double) * n * YS_N * 4);
#define V(y, m, k) (buf + ((size_t)(y) * 4 + (size_t)(m) * 2 + (k)) * n)
	if (!buf) {
		fprintf(stderr, "ramp-sim: out of memory\n");
		exit(1);
	}
	size_t at = 0;
	for (int t = 0; t < trials; t++) {
		double x[ROUNDS][DENSE + 1];
		struct result res[ROUNDS][2];
		for (int r = 0; r < ROUNDS; r++) {
			res[r][0] = run_dense(c, x[r]);
			res[r][1] = run_peak(c);
		}
		for (int r = 0; r < ROUNDS; r++, at++) {
			double ref[YS_N][DENSE + 1];
			for (unsigned u = 1; u <= DENSE; u++) {
				double all = 0;
				for (int q = 0; q < ROUNDS; q++)
					all += x[q][u];
				ref[YS_TRUE][u] = curve_at(c, u);
				ref[YS_POOLED][u] = all / ROUNDS;
				ref[YS_OTHERS][u] = (all - x[r][u]) / (ROUNDS - 1);
			}
			for (unsigned u = 1; u <= DENSE; u++) {
				double sum = 0;
				unsigned k = 0;
				for (unsigned w = u > 2 ? u - 2 : 1; w <= u + 2 && w <= DENSE; w++, k++)
					sum += ref[YS_OTHERS][w];
				ref[YS_SMOOTH][u] = sum / k;
			}
			for (int y = 0; y < YS_N; y++)
				for (int m = 0; m < 2; m++)
					judge(ref[y], &res[r][m], &V(y, m, 0)[at], &V(y, m, 1)[at]);
		}
	}
	for (int y = 0; y < YS_N; y++) {
		printf("%-14s %-7s", c->name, ys_name[y]);
		for (int m = 0; m < 2; m++) {
			size_t k = 0; /* a search that claimed no peak has no err, no curve */
			double *e = V(y, m, 0), *cu = V(y, m, 1);
			for (size_t i = 0; i < n; i++)
				if (!isnan(e[i])) {
					e[k] = e[i];
					cu[k++] = cu[i];
				}
			printf(" %9.2f %9.2f", median(e, k), median(cu, k));
		}
		printf("\n");
	}
#undef V
	free(buf);
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 400;
	static const struct curve curves[] = {
		{ .name = "fserver-like", .tau = 4.9, .decline = 0.02, .sd = 0.066 },
		{ .name = "fserver-noisy", .tau = 4.9, .decline = 0.02, .sd = 0.12 },
		{ .name = "fserver-falls", .tau = 4.9, .decline = 0.2, .sd = 0.066 },
		/* runs d-e of fserver: 8-10% higher about 27-32 users than on the rest of the top */
		{ .name = "fserver-bump", .tau = 4.9, .decline = 0.02, .sd = 0.08,
		  .bump = 0.08, .at = 29, .width = 4 },
		{ .name = "quick-like", .tau = 4.0, .decline = 0.03, .sd = 0.036 },
		{ .name = "peaked", .tau = 10.0, .decline = 1.2, .sd = 0.05 },
	};
	if (trials < 1 || trials > 100000) {
		fprintf(stderr, "usage: ramp-sim [TRIALS 1..100000]\n");
		return 2;
	}
	double *pts = malloc(sizeof(double) * (size_t)trials);
	double *err = malloc(sizeof(double) * (size_t)trials);
	double *cur = malloc(sizeof(double) * (size_t)trials);
	if (!pts || !err || !cur)
		return 1;
	printf("%-14s %-6s %8s %8s %8s %9s %9s\n", "curve", "mode", "points", "time_x", "|err|_%",
	       "curve_%", "mean");
	for (size_t k = 0; k < sizeof(curves) / sizeof(curves[0]); k++) {
		for (int mode = 0; mode < 2; mode++) {
			for (int t = 0; t < trials; t++) {
				double xs[DENSE + 1];
				struct result x = mode ? run_peak(&curves[k]) : run_dense(&curves[k], xs);
				pts[t] = x.points;
				err[t] = x.err;
				cur[t] = x.curve;
			}
			double p = median(pts, (size_t)trials), cmean = 0;
			for (int t = 0; t < trials; t++)
				cmean += cur[t] / trials;
			printf("%-14s %-6s %8.1f %8.3f %8.2f %9.2f %9.2f\n", curves[k].name,
			       mode ? "peak" : "dense", p, p / DENSE, median(err, (size_t)trials),
			       median(cur, (size_t)trials), cmean);
		}
	}
	printf("\nthe bench's yardsticks, %d rounds (medians over trials x rounds):\n", ROUNDS);
	printf("%-14s %-7s %9s %9s %9s %9s\n", "curve", "judged", "dense_err", "curve",
	       "peak_err", "curve");
	for (size_t k = 0; k < sizeof(curves) / sizeof(curves[0]); k++)
		yardsticks(&curves[k], trials / ROUNDS > 50 ? trials / ROUNDS : 50);
	free(pts);
	free(err);
	free(cur);
	return 0;
}
