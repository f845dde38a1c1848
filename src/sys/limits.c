// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine's limits on users: the kernel's task limits (pid_max,
 * threads-max, pids cgroups) beside what runs now, and the process's
 * resource limits (see sys_tasks_fit, sys_max_users and sys_fit_limits in
 * sys.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "jobmix/sys.h"

/* A single unsigned number from a /proc file; 0 if unreadable. */
static uint64_t sys_read_u64(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	unsigned long long v = 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

uint64_t sys_tasks_margin(uint64_t limit)
{
	uint64_t m = limit / 10 + (limit % 10 != 0);
	return m < 256 ? 256 : m;
}

/* Tasks a limit leaves for a load: the limit less what is in use and its margin. */
static uint64_t sys_tasks_room(uint64_t limit, uint64_t used)
{
	uint64_t keep = used + sys_tasks_margin(limit);
	return limit > keep ? limit - keep : 0;
}

uint64_t sys_tasks_fit(const struct sys_tasks *t, uint64_t per_user, uint64_t users, char *why,
		       size_t whylen)
{
	char cg[SYS_STR + 32];
	snprintf(cg, sizeof(cg), "pids.max of cgroup %s", t->cg_path[0] ? t->cg_path : "?");
	const struct {
		const char *name;
		uint64_t limit, used;
	} lim[] = {
		{ "pid_max", t->pid_max, t->running },
		{ "threads-max", t->threads_max, t->running },
		{ cg, t->cg_max, t->cg_current },
	};
	uint64_t fit = UINT64_MAX;
	size_t bind = 0;
	if (!per_user)
		per_user = 1;
	if (whylen)
		why[0] = 0;
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		if (!lim[i].limit)
			continue;
		uint64_t f = sys_tasks_room(lim[i].limit, lim[i].used) / per_user;
		if (f < fit) {
			fit = f;
			bind = i;
		}
	}
	if (fit >= users)
		return fit;
	char each[48] = "";
	if (per_user > 1)
		snprintf(each, sizeof(each), " (%llu a user)", (unsigned long long)per_user);
	uint64_t need = users > UINT64_MAX / per_user ? UINT64_MAX : users * per_user;
	snprintf(why, whylen,
		 "%llu %s %llu task%s%s, but %s is %llu and %llu are in use (with a margin "
		 "of %llu, at most %llu users fit)", (unsigned long long)users,
		 users == 1 ? "user needs" : "users need", (unsigned long long)need,
		 need == 1 ? "" : "s", each, lim[bind].name, (unsigned long long)lim[bind].limit,
		 (unsigned long long)lim[bind].used,
		 (unsigned long long)sys_tasks_margin(lim[bind].limit), (unsigned long long)fit);
	return fit;
}

/* The mount of one cgroup hierarchy: where it is, and which cgroup is its root. */
struct sys_cg_mount {
	char dir[SYS_STR];
	char root[SYS_STR];
};

/*
 * From /proc/self/mountinfo: the cgroup2 mount (v2) and the cgroup mount
 * with the pids controller (v1).  dir "" for one not mounted.
 */
static void sys_cg_mounts(struct sys_cg_mount *v2, struct sys_cg_mount *v1)
{
	char line[4096];
	v2->dir[0] = v1->dir[0] = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char root[SYS_STR], dir[SYS_STR], type[64], super[1024];
		const char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %255s %255s", root, dir) != 2 ||
		    sscanf(dash + 3, "%63s %*s %1023s", type, super) != 2)
			continue;
		struct sys_cg_mount *m = NULL;
		if (!strcmp(type, "cgroup2") && !v2->dir[0])
			m = v2;
		else if (!strcmp(type, "cgroup") && !v1->dir[0]) {
			char *save = NULL;
			for (char *o = strtok_r(super, ",", &save); o; o = strtok_r(NULL, ",", &save))
				if (!strcmp(o, "pids"))
					m = v1;
		}
		if (m) {
			snprintf(m->dir, sizeof(m->dir), "%s", dir);
			snprintf(m->root, sizeof(m->root), "%s", root);
		}
	}
	fclose(f);
}

/*
 * Walk from this process's cgroup `path` (as /proc/self/cgroup says it) up
 * to the root of hierarchy `m`, keeping in t the pids.max with the least
 * room.
 */
static void sys_cg_walk(const struct sys_cg_mount *m, const char *path, struct sys_tasks *t)
{
	char dir[PATH_MAX], p[PATH_MAX + 16], v[64];
	size_t rl = strlen(m->root);
	if (strcmp(m->root, "/") && !strncmp(path, m->root, rl) &&
	    (path[rl] == '/' || !path[rl]))
		path += rl;   /* a mount of a cgroup below the root (a container's) */
	snprintf(dir, sizeof(dir), "%s%s", m->dir, strcmp(path, "/") ? path : "");
	size_t top = strlen(m->dir);
	for (;;) {
		snprintf(p, sizeof(p), "%s/pids.max", dir);
		FILE *f = fopen(p, "re");
		unsigned long long lim = 0;
		if (f) {
			if (fgets(v, sizeof(v), f) && strncmp(v, "max", 3))
				lim = strtoull(v, NULL, 10);
			fclose(f);
		}
		if (lim) {
			snprintf(p, sizeof(p), "%s/pids.current", dir);
			uint64_t cur = sys_read_u64(p);
			if (!t->cg_max || sys_tasks_room(lim, cur) < sys_tasks_room(t->cg_max, t->cg_current)) {
				t->cg_max = lim;
				t->cg_current = cur;
				snprintf(t->cg_path, sizeof(t->cg_path), "%s", dir);
			}
		}
		char *slash = strrchr(dir, '/');
		if (!slash || (size_t)(slash - dir) < top)
			break;
		*slash = 0;
	}
}

void sys_tasks_read(struct sys_tasks *t)
{
	memset(t, 0, sizeof(*t));
	t->pid_max = sys_read_u64("/proc/sys/kernel/pid_max");
	t->threads_max = sys_read_u64("/proc/sys/kernel/threads-max");
	FILE *f = fopen("/proc/loadavg", "re");
	if (f) {
		unsigned long long n = 0;
		if (fscanf(f, "%*s %*s %*s %*u/%llu", &n) == 1)
			t->running = n;
		fclose(f);
	}
	struct sys_cg_mount v2, v1;
	sys_cg_mounts(&v2, &v1);
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return;
	char line[4096];
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c1 = *c2 = 0;
		const char *ctrl = c1 + 1, *path = c2 + 1;
		if (!strcmp(line, "0") && !ctrl[0] && v2.dir[0]) {
			sys_cg_walk(&v2, path, t);
			continue;
		}
		char list[1024];
		snprintf(list, sizeof(list), ",%s,", ctrl);
		if (strstr(list, ",pids,") && v1.dir[0])
			sys_cg_walk(&v1, path, t);
	}
	fclose(f);
}

unsigned sys_max_users(unsigned per_user)
{
	struct sys_tasks t;
	char why[8];
	sys_tasks_read(&t);
	uint64_t users = sys_tasks_fit(&t, per_user, 0, why, sizeof(why));
	struct rlimit rl;
	if (geteuid() != 0 && !getrlimit(RLIMIT_NPROC, &rl) && rl.rlim_cur != RLIM_INFINITY) {
		uint64_t by_nproc = rl.rlim_cur > 64 ? (rl.rlim_cur - 64) / (per_user ? per_user : 1) : 1;
		if (by_nproc < users)
			users = by_nproc;
	}
	return users > 1000000 ? 1000000 : users < 1 ? 1 : (unsigned)users;
}

uint64_t sys_nofile_hard(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max == RLIM_INFINITY)
		return UINT64_MAX;
	return rl.rlim_max;
}

/* Is the soft limit below need?  Then is the hard one enough (*raise set)? */
static int fit_one(int res, const char *name, uint64_t need, bool *raise, struct rlimit *rl,
		   char *err, size_t errlen)
{
	*raise = false;
	if (getrlimit(res, rl)) {
		snprintf(err, errlen, "getrlimit(%s): %s", name, strerror(errno));
		return -1;
	}
	if (rl->rlim_cur == RLIM_INFINITY || rl->rlim_cur >= need)
		return 0;
	if (rl->rlim_max != RLIM_INFINITY && rl->rlim_max < need) {
		snprintf(err, errlen,
			 "this load point needs %llu %s but the hard limit is %llu: raise it "
			 "(ulimit -H%s, /etc/security/limits.conf) or use fewer users%s",
			 (unsigned long long)need, name, (unsigned long long)rl->rlim_max,
			 res == RLIMIT_NOFILE ? "n" : "u",
			 res == RLIMIT_NOFILE ? " (as processes, each user has its own table)" : "");
		return -1;
	}
	*raise = true;
	return 0;
}

static int raise_to(int res, const char *name, struct rlimit *rl, uint64_t need, char *err,
		    size_t errlen)
{
	rl->rlim_cur = need;
	if (!setrlimit(res, rl))
		return 0;
	snprintf(err, errlen, "setrlimit(%s, %llu): %s", name, (unsigned long long)need,
		 strerror(errno));
	return -1;
}

int sys_fit_limits(uint64_t nofile, uint64_t nproc, char *err, size_t errlen)
{
	struct rlimit fl, pl;
	bool raise_f, raise_p = false;
	if (fit_one(RLIMIT_NOFILE, "open files (RLIMIT_NOFILE)", nofile, &raise_f, &fl, err,
		    errlen))
		return -1;
	if (geteuid() != 0 &&
	    fit_one(RLIMIT_NPROC, "tasks (RLIMIT_NPROC)", nproc, &raise_p, &pl, err, errlen))
		return -1;
	if ((raise_f && raise_to(RLIMIT_NOFILE, "RLIMIT_NOFILE", &fl, nofile, err, errlen)) ||
	    (raise_p && raise_to(RLIMIT_NPROC, "RLIMIT_NPROC", &pl, nproc, err, errlen)))
		return -1;
	return 0;
}
