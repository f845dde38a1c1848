/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The limits a run's points must fit: what load says a point needs
 * (load_need, load_user_tasks) against what sys reads of the kernel's task
 * limits and the process's rlimits.  The engine's, so that load never
 * reaches sys.
 */
#ifndef JOBMIX_RUN_FIT_H
#define JOBMIX_RUN_FIT_H

#include <stddef.h>

#include "jobmix/workload.h"

/*
 * Can the kernel's task limits hold a point of `users` beside what runs
 * now?  0, or -1 with err naming the limit that binds.  Reads only.
 */
int run_check_tasks(const struct workload *wl, unsigned users, char *err, size_t errlen);
/* Raise the soft rlimits for a point's need (up to the hard ones); 0, or -1 with err. */
int run_fit_rlimits(const struct workload *wl, unsigned users, char *err, size_t errlen);
/* run_check_tasks, then run_fit_rlimits: what each point passes before it forks. */
int run_fit_limits(const struct workload *wl, unsigned users, char *err, size_t errlen);
/* The most users the task limits and the hard RLIMIT_NOFILE allow. */
unsigned run_max_users_by_limits(const struct workload *wl);

#endif
