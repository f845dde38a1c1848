// SPDX-License-Identifier: GPL-2.0-only
/* The machine's limits on users (see sys_max_users in sys.h). */
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

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
