/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Change points in a series of run results (nightly history): where the
 * level of a metric shifted, deterministically, for series of a handful of
 * points and of thousands.  Pure: no I/O, no randomness.
 *
 * The method (in the line of Hunter / Apache Otava's t-test splitting):
 * the values are taken on the log scale (a change is a ratio, as in the
 * reports).  A segment [lo, hi) is split at the index k that maximises
 * Welch's |t| between the `window` values before k and the `window`
 * values from k on (each side at least `min_seg` values, within the
 * segment); the split is significant when that t's two-sided p-value,
 * Bonferroni-corrected for the independent windows in the segment
 * (candidates / window, at least 1: neighbouring candidates see nearly the
 * same windows), is below `alpha`
 * and the change (ratio of the two sides' geometric means less one) is at
 * least `min_change` in size.  A significant split is kept and both sides
 * are searched again (binary segmentation), until no segment splits.
 * Then each change point is described by the whole segments either side
 * of it (up to the neighbouring change points): their geometric means, the
 * change with its 95% interval (Welch on the logs) and its p-value.
 */
#ifndef JOBMIX_CHANGEPOINT_H
#define JOBMIX_CHANGEPOINT_H

#include <stddef.h>

#define CP_ALPHA_DEFAULT 0.001     /* Otava's default significance */
#define CP_WINDOW_DEFAULT 50       /* values compared either side of a split */
#define CP_MIN_SEG_DEFAULT 5       /* fewest values a side (3: 6.6% of flat 60-value series split, 5: 3.4%) */

struct cp_opts {
	double alpha;                  /* 0: CP_ALPHA_DEFAULT */
	unsigned window;               /* 0: CP_WINDOW_DEFAULT */
	unsigned min_seg;              /* 0: CP_MIN_SEG_DEFAULT (at least 2) */
	double min_change;             /* smallest |change| that counts (0: any) */
};

struct cp_point {
	size_t at;                     /* index of the first value after the change */
	size_t seg_lo, seg_hi;         /* the segments compared: [seg_lo, at) and [at, seg_hi) */
	double before, after;          /* geometric means of those segments */
	double change;                 /* after / before - 1 */
	double lo, hi;                 /* 95% interval of change */
	double t, df, p;               /* Welch's t on the logs, its df, two-sided p */
};

/*
 * The change points of x[0..n) (every value > 0; a value that is not is an
 * error), in index order, into a malloc'd *out (NULL when none).  0, or -1
 * (a value not positive, or out of memory) with *out NULL.
 */
int cp_detect(const double *x, size_t n, const struct cp_opts *o, struct cp_point **out,
	      size_t *nout);

/*
 * The same for a series of blocks (the runs of one night, one kernel, one
 * commit: one sample set each): block b is x[start[b], start[b + 1]), with
 * start[0] = 0 and start[nb] = n.  A change point falls only between
 * blocks, and the unit of evidence is the block, not the run: runs of one
 * night are not independent evidence of a change across nights.
 *
 * Each block is its mean log; a set of blocks is tested against another by
 * Student's t on those means, the variance of a block mean estimated as in
 * a one-way analysis of variance: from the spread of the block means about
 * their side's mean (df blocks - 2), or, when that is no larger than what
 * the runs' own spread within their blocks predicts (s_within^2 / runs a
 * block), from both pooled (df blocks - 2 + runs - blocks).  So a block's
 * own spread is part of the test, and a night that varies more from night
 * to night than within itself is judged by the nights.
 *
 * The search (circular binary segmentation, Olshen et al. 2004): in a
 * segment of blocks, every inner interval [i, j) against the rest of the
 * segment, a side at least one block (an interval touching an end is a
 * single split; an inner one, a night or a few apart, two change points:
 * one bad night beside good ones is found); the largest |t| is significant
 * when its p times the number of intervals tried is below alpha and its
 * change at least min_change.  o->window and o->min_seg are not used.
 * at, seg_lo and seg_hi are indices into x (block starts).  0, or -1 (a
 * value not positive, bad starts, out of memory) with *out NULL.
 */
int cp_detect_blocks(const double *x, size_t n, const size_t *start, size_t nb,
		     const struct cp_opts *o, struct cp_point **out, size_t *nout);

#endif
