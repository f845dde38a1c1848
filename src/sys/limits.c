// SPDX-License-Identifier: GPL-2.0-only
/* The machine's limits on users (see sys_max_users and sys_fit_limits in sys.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

unsigned sys_max_users(void)
{
	uint64_t lim = UINT32_MAX;
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NPROC, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < lim)
		lim = rl.rlim_cur;
	static const char *const files[] = { "/proc/sys/kernel/threads-max",
					     "/proc/sys/kernel/pid_max" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint64_t v = sys_read_u64(files[i]);
		if (v && v < lim)
			lim = v;
	}
	uint64_t users = lim > 64 ? (lim - 64) / 2 : 1;
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
