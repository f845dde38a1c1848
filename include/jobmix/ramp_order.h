/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The order of an A/B: which arm (IO scheduler) is measured when.  Pure.
 *
 * On a shared machine throughput drifts over minutes, so measuring all of
 * A and then all of B confounds the drift with the scheduler.  Fair order,
 * for linear and adaptive ramps alike (the arms in lockstep): at each step
 * every arm measures its next user count in turn, the order reversed at
 * every other step (A B, B A, A B, ...) and rotated from round to round
 * (A B C, B C A, C A B, ...).  Sequential: one whole ramp per arm, A B C,
 * in every round.
 */
#ifndef JOBMIX_RAMP_ORDER_H
#define JOBMIX_RAMP_ORDER_H

enum ramp_order { RAMP_ORDER_FAIR, RAMP_ORDER_SEQUENTIAL };

/* "fair" | "sequential". */
const char *ramp_order_name(enum ramp_order o);

/*
 * The k arm indices (0..k-1) in the order they run at `step` of `round`
 * into out[k].  Each index appears exactly once.
 */
void ramp_ab_order(enum ramp_order o, unsigned k, unsigned round, unsigned step, unsigned *out);

#endif
