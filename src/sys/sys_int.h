/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared inside src/sys only. */
#ifndef JOBMIX_SYS_INT_H
#define JOBMIX_SYS_INT_H

#include <stddef.h>

/*
 * Resolve `path` (realpath) or, when it does not exist yet, its nearest
 * existing ancestor ("." for a missing relative leaf).  0 or -1.
 */
int sys_existing_path(const char *path, char *out, size_t len);

/* The sysfs root every /sys path is built on ("/sys"; see sys_dev_set_sysfs). */
const char *sys_sysfs(void);

#endif
