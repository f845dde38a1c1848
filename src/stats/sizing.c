// SPDX-License-Identifier: GPL-2.0-only
/*
 * Noise-sized points (stats.h): the power-of-two factor a run multiplies
 * its points by when its pilot samples are noisier than the target.  Pure;
 * no I/O.
 */
#include <math.h>

#include "jobmix/stats.h"

/* Most the factor the noise asks is counted to (2^20: a sd 1000 times the target). */
#define SIZE_WANTED_MAX (1u << 20)

void stats_size_factor(double sd_pct, double target_pct, double point_s, double max_point_s,
		       struct stats_sizing *out)
{
	*out = (struct stats_sizing){ .factor = 1, .wanted = 1 };
	if (!(target_pct > 0) || !isfinite(sd_pct) || sd_pct <= target_pct)
		return;
	double want = (sd_pct / target_pct) * (sd_pct / target_pct);
	while (out->wanted < want && out->wanted < SIZE_WANTED_MAX)
		out->wanted *= 2;
	out->factor = out->wanted;
	if (out->factor > STATS_SIZE_MAX) {
		out->factor = STATS_SIZE_MAX;
		out->capped_max = true;
	}
	if (max_point_s > 0 && point_s > 0)
		while (out->factor > 1 && point_s * out->factor > max_point_s) {
			out->factor /= 2;
			out->capped_time = true;
		}
}
