// SPDX-License-Identifier: GPL-2.0-only
/* A process's identity over time: pid, start time and boot (see proc.h). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/proc.h"

/* A small /proc file into buf (NUL-terminated); its length, or -1. */
static ssize_t proc_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return n;
}

int util_proc_start_time(long pid, unsigned long long *start)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (pid <= 0 || proc_read(path, buf, sizeof(buf)) < 0)
		return -1;
	char *p = strrchr(buf, ')');   /* the command name may hold spaces and parens */
	if (!p)
		return -1;
	p++;
	for (int field = 3; field < 22; field++) {   /* after ")": field 3 on; start is 22 */
		p = strchr(p + 1, ' ');
		if (!p)
			return -1;
	}
	return sscanf(p, " %llu", start) == 1 ? 0 : -1;
}

int util_boot_id(char *buf, size_t len)
{
	if (proc_read("/proc/sys/kernel/random/boot_id", buf, len) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

bool util_proc_alive(long pid, unsigned long long start, const char *boot)
{
	char now[40];
	unsigned long long st;
	if (util_boot_id(now, sizeof(now)) || strcmp(now, boot))
		return false;
	return !util_proc_start_time(pid, &st) && st == start;
}
