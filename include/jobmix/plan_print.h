/* SPDX-License-Identifier: GPL-2.0-only */
/* What `jobmix run` prints about its plan and its A/B (src/display/plan.c). */
#ifndef JOBMIX_PLAN_PRINT_H
#define JOBMIX_PLAN_PRINT_H

struct run_plan;
struct run_result;
struct rep_verdict_item;

/* The plan, printed for --dry-run: nothing is created, switched or locked. */
void plan_print(const struct run_plan *p);
/*
 * What the devices did under each arm: the scheduling device, then every
 * other watched device that did any I/O; then the A/B's index.
 */
void plan_print_devices(const struct run_plan *p, const struct run_result *res);
/* "bfq Peak Load: inconclusive (-3.1%), about 4 more rounds (~6 min)". */
void plan_print_decide_line(const struct rep_verdict_item *v, double round_s);

#endif
