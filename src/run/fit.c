// SPDX-License-Identifier: GPL-2.0-only
/*
 * A point's needs (load) against the machine's limits (sys): refused or
 * made room for before the point forks.  See fit.h.
 */
#include <stdio.h>

#include "jobmix/load.h"
#include "jobmix/sys.h"
#include "fit.h"

int run_check_tasks(const struct workload *wl, unsigned users, char *err, size_t errlen)
{
	struct sys_tasks t;
	sys_tasks_read(&t);
	return sys_tasks_fit(&t, load_user_tasks(wl), users, err, errlen) < users ? -1 : 0;
}

int run_fit_rlimits(const struct workload *wl, unsigned users, char *err, size_t errlen)
{
	struct load_need n;
	char why[384];
	load_need(wl, users, &n);
	if (!sys_fit_limits(n.nofile, n.nproc, why, sizeof(why)))
		return 0;
	snprintf(err, errlen, "%u users%s: %s", users,
		 wl->users.as == WL_USERS_THREADS ? " as threads of one process" : "", why);
	return -1;
}

int run_fit_limits(const struct workload *wl, unsigned users, char *err, size_t errlen)
{
	if (run_check_tasks(wl, users, err, errlen))
		return -1;
	return run_fit_rlimits(wl, users, err, errlen);
}

unsigned run_max_users_by_limits(const struct workload *wl)
{
	unsigned by_tasks = sys_max_users(load_user_tasks(wl));
	unsigned by_fds = load_max_users_by_nofile(wl, sys_nofile_hard());
	return by_fds < by_tasks ? by_fds : by_tasks;
}
