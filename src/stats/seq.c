// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sequential test of paired rounds (stats.h): Lai's t-mixture
 * confidence sequence and the verdict worse/better/same/undecided that an
 * A/B may look at after every round.  Pure functions; no I/O.
 *
 * For values y (the log ratios less a candidate mean m), scale-invariant
 * reduction (sd integrated out with the right Haar measure) and theta ~
 * N(0, tau^2) give the mixture likelihood ratio
 *
 *   M_n(m) = (1 + n tau^2)^(-1/2) x (V / (V - S^2 tau^2 / (1 + n tau^2)))^(n/2)
 *
 * with S = sum y, V = sum y^2.  In terms of Student's t of m (r = t^2 /
 * (n - 1 + t^2) = S^2 / (n V)) it rises with |t|, so the set {m : M_n(m) <
 * 1/alpha} is the interval mean +- t* sd / sqrt(n) with t* solved in closed
 * form below.  M_n(m) for the true m is a nonnegative martingale of mean 1,
 * and Ville's inequality bounds the chance it ever reaches 1/alpha by alpha.
 */
#include "jobmix/stats.h"

#include <math.h>

double stats_cs_t(size_t n, double alpha)
{
	if (n < 2 || !(alpha > 0 && alpha < 1))
		return INFINITY;
	double nt = (double)n * STATS_CS_TAU * STATS_CS_TAU;
	/* g = (1 + n tau^2)^((n-1)/n) alpha^(2/n); the sequence is bounded when g > 1 */
	double g = exp(((double)n - 1) / (double)n * log1p(nt) + 2.0 / (double)n * log(alpha));
	if (!(g > 1))
		return INFINITY;
	double one_r = (g - 1) / nt;   /* 1 - r*, in (0, 1) */
	return sqrt(((double)n - 1) * (1 - one_r) / one_r);
}

/*
 * The fewest values k > n at which a sequence about this mean with this sd
 * would decide: a half-width below |mean| when the mean is beyond a margin
 * (a change), below the room to the nearer margin otherwise (same).
 */
static unsigned stats_seq_need(size_t n, double mean, double sd, double alpha, double dn,
			       double up)
{
	double room;
	if (mean >= up || mean <= dn)
		room = fabs(mean);
	else
		room = fmin(up - mean, mean - dn);
	if (!(sd > 0) || !(room > 0) || !isfinite(room))
		return 0;
	/* the half-width falls as k grows: the first k past the room, by bisection */
	size_t lo = n, hi = n + STATS_SEQ_MAX_NEED;
	if (!(stats_cs_t(hi, alpha) * sd / sqrt((double)hi) < room))
		return 0;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (stats_cs_t(mid, alpha) * sd / sqrt((double)mid) < room)
			hi = mid;
		else
			lo = mid;
	}
	return (unsigned)(hi - n);
}

/* log M_k(0): the mixture ratio of mean 0 after k values of sum sum and sum of squares ss. */
static double stats_seq_logm0(size_t k, double sum, double ss)
{
	double nt = (double)k * STATS_CS_TAU * STATS_CS_TAU;
	if (!(ss > 0))
		return 0;   /* all zero: no evidence either way */
	double r = fmin(1, sum * sum / ((double)k * ss));
	return -0.5 * log1p(nt) + (double)k / 2 * (log1p(nt) - log1p(nt * (1 - r)));
}

void stats_seq_test(const double *d, size_t n, double thr, double alpha, struct stats_seq *out)
{
	double dn = log1p(-thr), up = log1p(thr), sum = 0, ss = 0, logm = 0;

	*out = (struct stats_seq){ .n = n, .mean = NAN, .sd = NAN, .lo = -INFINITY,
				   .hi = INFINITY, .t = NAN, .p = 1 };
	for (size_t k = 1; k <= n; k++) {
		sum += d[k - 1];
		ss += d[k - 1] * d[k - 1];
		if (k < 2)
			continue;
		struct stats_summary s;
		stats_summarize(d, k, &s);
		logm = fmax(logm, stats_seq_logm0(k, sum, ss));
		double h = stats_cs_t(k, alpha) * s.stddev / sqrt((double)k);
		if (isfinite(h)) {   /* sd 0 and t* finite: the sequence is the mean itself */
			out->lo = fmax(out->lo, s.mean - h);
			out->hi = fmin(out->hi, s.mean + h);
		}
		out->mean = s.mean;
		out->sd = s.stddev;
	}
	if (n == 1)
		out->mean = d[0];
	if (n < 2)
		return;
	out->p = fmin(1, exp(-logm));
	if (fabs(out->mean) < STATS_SEQ_SAME_LOG && !(out->sd >= STATS_SEQ_SAME_LOG)) {
		/* identical pairs (to rounding): no change, not an infinite t */
		out->mean = out->sd = 0;
		out->p = 1;
	}
	out->t = out->sd > 0 ? out->mean / (out->sd / sqrt((double)n)) :
		 out->mean == 0 ? 0 : copysign(INFINITY, out->mean);
	if (out->lo > out->hi) {   /* the prefixes disagree: keep the latest interval */
		double h = stats_cs_t(n, alpha) * out->sd / sqrt((double)n);
		out->lo = out->mean - h;
		out->hi = out->mean + h;
	}
	if (out->p < alpha && out->mean >= up)
		out->verdict = STATS_SEQ_UP;
	else if (out->p < alpha && out->mean <= dn)
		out->verdict = STATS_SEQ_DOWN;
	else if (out->lo > dn && out->hi < up)
		out->verdict = STATS_SEQ_SAME;
	else
		out->need = stats_seq_need(n, out->mean, out->sd, alpha, dn, up);
}
