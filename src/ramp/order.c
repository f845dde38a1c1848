// SPDX-License-Identifier: GPL-2.0-only
/* The order of an A/B's arms (see ramp_order.h).  Pure. */
#include "jobmix/ramp_order.h"

const char *ramp_order_name(enum ramp_order o)
{
	return o == RAMP_ORDER_SEQUENTIAL ? "sequential" : "fair";
}

void ramp_ab_order(enum ramp_order o, unsigned k, unsigned round, unsigned step, unsigned *out)
{
	if (!k)
		return;
	unsigned rot = o == RAMP_ORDER_FAIR ? round % k : 0;
	int reverse = o == RAMP_ORDER_FAIR && (step % 2) == 1;
	for (unsigned i = 0; i < k; i++) {
		unsigned j = reverse ? k - 1 - i : i;
		out[i] = (j + rot) % k;
	}
}
