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

/* The verdict of a sequence lo..hi about mean at the margins dn < 0 < up. */
static enum stats_seq_verdict stats_seq_verdict(double mean, double lo, double hi, double dn,
						double up)
{
	if (lo > 0 && mean >= up)
		return STATS_SEQ_UP;
	if (hi < 0 && mean <= dn)
		return STATS_SEQ_DOWN;
	if (lo > dn && hi < up)
		return STATS_SEQ_SAME;
	return STATS_SEQ_UNDECIDED;
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

void stats_seq_test(const double *d, size_t n, double thr, double alpha, struct stats_seq *out)
{
	struct stats_summary s;
	double dn = log1p(-thr), up = log1p(thr);

	*out = (struct stats_seq){ .n = n, .mean = NAN, .sd = NAN, .lo = -INFINITY,
				   .hi = INFINITY };
	if (!n)
		return;
	stats_summarize(d, n, &s);
	out->mean = s.mean;
	if (n < 2)
		return;
	out->sd = s.stddev;
	double h = stats_cs_t(n, alpha) * s.stddev / sqrt((double)n);
	if (isfinite(h)) {   /* sd 0 and t* finite: the sequence is the mean itself */
		out->lo = s.mean - h;
		out->hi = s.mean + h;
	}
	out->verdict = stats_seq_verdict(s.mean, out->lo, out->hi, dn, up);
	if (out->verdict == STATS_SEQ_UNDECIDED)
		out->need = stats_seq_need(n, s.mean, s.stddev, alpha, dn, up);
}
