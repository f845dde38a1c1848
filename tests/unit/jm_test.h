/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers shared by the unit tests. */
#ifndef JOBMIX_TEST_H
#define JOBMIX_TEST_H

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Entries in dir other than . and .., or -1 if it cannot be opened. */
static inline int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

/*
 * A held descriptor of dir, as the load generator gives jobs (job_ctx's
 * dir_fd and shared_fd); -1 if it cannot be opened.
 */
static inline int dir_fd(const char *dir)
{
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

#endif
