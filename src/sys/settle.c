// SPDX-License-Identifier: GPL-2.0-only
/* Settling before a load point (see sys_settle.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/sys_settle.h"

#define SYS_DROP_CACHES "/proc/sys/vm/drop_caches"

int sys_meminfo_dirty(const char *path, uint64_t *dirty, uint64_t *writeback)
{
	FILE *f = fopen(path ? path : "/proc/meminfo", "re");
	char line[256];
	int have = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && have != 3) {
		unsigned long long kb;
		if (sscanf(line, "Dirty: %llu kB", &kb) == 1) {
			*dirty = (uint64_t)kb * 1024;
			have |= 1;
		} else if (sscanf(line, "Writeback: %llu kB", &kb) == 1) {
			*writeback = (uint64_t)kb * 1024;
			have |= 2;
		}
	}
	fclose(f);
	return have == 3 ? 0 : -1;
}

static double sys_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool sys_can_drop_caches(void)
{
	return access(SYS_DROP_CACHES, W_OK) == 0;
}

int sys_settle(double timeout_s, bool drop_caches, struct sys_settle_rec *rec, char *err,
	       size_t errlen)
{
	uint64_t d = 0, w = 0;
	double t0 = sys_now_s();
	memset(rec, 0, sizeof(*rec));
	if (sys_meminfo_dirty(NULL, &rec->dirty_bytes, &rec->writeback_bytes)) {
		snprintf(err, errlen, "read /proc/meminfo: no Dirty/Writeback lines");
		return -1;
	}
	sync();
	for (;;) {
		if (sys_meminfo_dirty(NULL, &d, &w)) {
			snprintf(err, errlen, "read /proc/meminfo: no Dirty/Writeback lines");
			return -1;
		}
		rec->left_bytes = d + w;
		if (rec->left_bytes <= SYS_SETTLE_DRAINED) {
			rec->drained = true;
			break;
		}
		if (sys_now_s() - t0 >= timeout_s)
			break;
		/* other writers on the machine: push again, then sleep a little */
		sync();
		struct timespec nap = { 0, 20 * 1000 * 1000 };
		nanosleep(&nap, NULL);
	}
	if (drop_caches) {
		int fd = open(SYS_DROP_CACHES, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, "1\n", 2) != 2) {
			snprintf(err, errlen, "drop the page cache (%s): %s", SYS_DROP_CACHES,
				 strerror(errno));
			if (fd >= 0)
				close(fd);
			rec->wait_s = sys_now_s() - t0;
			return -1;
		}
		close(fd);
		rec->dropped = true;
	}
	rec->wait_s = sys_now_s() - t0;
	return 0;
}
