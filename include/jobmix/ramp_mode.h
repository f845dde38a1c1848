/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ramp modes: what a workload's users.mode says (workload.h) and what
 * the ramp runs (ramp.h), one enum both take without taking each other.
 */
#ifndef JOBMIX_RAMP_MODE_H
#define JOBMIX_RAMP_MODE_H

enum wl_ramp_mode { WL_RAMP_LINEAR, WL_RAMP_PEAK, WL_RAMP_CONVERGE, WL_RAMP_CROSSOVER };

#endif
