// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a load point needs of the process limits (descriptors, tasks) and
 * of the kernel's task limits (pid_max, threads-max, pids cgroups), so that
 * a point is refused or the limits raised before it forks, never failed
 * half-way by EMFILE or EAGAIN (nor the machine's other processes with it).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/load.h"
#include "jobmix/sys.h"

/* Descriptors the parent has open now, and a reserve for its own needs. */
static unsigned parent_fds(void)
{
	unsigned n = 0;
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return 64;
	while (readdir(d))
		n++;
	closedir(d);
	return n + 16;
}

/*
 * Descriptors one user may have open at once: all of them (a user process),
 * or (threads) those not shared with the process's other users.
 */
static unsigned user_fds(const struct workload *wl, bool own_only)
{
	unsigned n = JOB_FDS_TRANSIENT;
	for (size_t e = 0; e < wl->nmix; e++) {
		const struct wl_entry *m = &wl->mix[e];
		if (!m->weight || !m->kind->fds_held)
			continue;
		n += m->kind->fds_held(m->params);
		if (own_only && m->kind->fds_shared)
			n -= m->kind->fds_shared(m->params);
	}
	return n;
}

/* Shared files (fds_shared) a process of thread users holds: a set per work directory. */
static unsigned process_shared_fds(const struct workload *wl)
{
	unsigned n = 0;
	for (size_t e = 0; e < wl->nmix; e++)
		if (wl->mix[e].weight && wl->mix[e].kind->fds_shared)
			n += wl->mix[e].kind->fds_shared(wl->mix[e].params);
	return n * (unsigned)wl->ndirs;
}

/* Tasks one user may run at once: itself, and what its jobs start. */
static unsigned user_tasks(const struct workload *wl)
{
	unsigned n = 1;
	for (size_t e = 0; e < wl->nmix; e++)
		if (wl->mix[e].weight && (wl->mix[e].kind->flags & JOB_FORKS)) {
			n += 2; /* a child, which may start one program (a shell's) */
			break;
		}
	if (wl->sync == JOB_SYNC_EXEC)
		n += 2; /* a shell and the sync program */
	return n;
}

/* The point's directories the parent holds open (and every user inherits). */
static uint64_t dir_fds(const struct workload *wl, unsigned users)
{
	return wl->ndirs + (wl->layout == WL_LAYOUT_PER_USER ? users : wl->ndirs);
}

void load_need(const struct workload *wl, unsigned users, struct load_need *n)
{
	bool threads = wl->users.as == WL_USERS_THREADS;
	uint64_t per = user_fds(wl, threads);
	n->nofile = parent_fds() + dir_fds(wl, users) +
		    (threads ? (uint64_t)users * per + process_shared_fds(wl) : per);
	n->nproc = (uint64_t)users * user_tasks(wl) + 1 + 64;
}

int load_check_tasks(const struct workload *wl, unsigned users, char *err, size_t errlen)
{
	struct sys_tasks t;
	sys_tasks_read(&t);
	return sys_tasks_fit(&t, user_tasks(wl), users, err, errlen) < users ? -1 : 0;
}

int load_fit_rlimits(const struct workload *wl, unsigned users, char *err, size_t errlen)
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

int load_fit_limits(const struct workload *wl, unsigned users, char *err, size_t errlen)
{
	if (load_check_tasks(wl, users, err, errlen))
		return -1;
	return load_fit_rlimits(wl, users, err, errlen);
}

unsigned load_max_users_by_limits(const struct workload *wl)
{
	unsigned by_tasks = sys_max_users(user_tasks(wl));
	uint64_t hard = sys_nofile_hard();
	const bool threads = wl->users.as == WL_USERS_THREADS;
	const bool per_user = wl->layout == WL_LAYOUT_PER_USER;
	if (hard == UINT64_MAX || (!threads && !per_user))
		return by_tasks;
	/*
	 * Per user: with threads its descriptors, and with per_user its
	 * directory (held in every process); in process mode only the latter
	 * grows with the users.
	 */
	uint64_t base = parent_fds() + 2 * wl->ndirs +
			(threads ? process_shared_fds(wl) : user_fds(wl, false));
	uint64_t per = (threads ? user_fds(wl, true) : 0) + (per_user ? 1 : 0);
	if (hard <= base + per)
		return 1;
	uint64_t u = (hard - base) / per;
	return u < by_tasks ? (unsigned)u : by_tasks;
}
