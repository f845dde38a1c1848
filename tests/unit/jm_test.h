/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers shared by the unit tests. */
#ifndef JOBMIX_TEST_H
#define JOBMIX_TEST_H

#include <dirent.h>
#include <string.h>

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

#endif
