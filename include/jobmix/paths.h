/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where jobmix's own files are, and where a workload named on the command
 * line is found (see paths.c).
 */
#ifndef JOBMIX_PATHS_H
#define JOBMIX_PATHS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * The files that ship with jobmix, found from the running binary's own
 * location (/proc/self/exe), so that a relocated install works:
 *   build tree  <dir of jobmix>/libexec, <dir of jobmix>/workloads
 *   installed   <prefix>/bin/jobmix: <prefix>/libexec/jobmix,
 *               <prefix>/share/jobmix/workloads
 * The build tree is tried first (a ./jobmix in a source tree never uses an
 * installed copy's files).
 */
struct paths {
	char libexec[PATH_MAX];   /* programs and scripts jobs run */
	char shipped[PATH_MAX];   /* shipped workloads; "" when none was found */
	bool installed;           /* the installed layout (not a build tree) */
};

void paths_find(struct paths *p);

/* Where a workload was found, in search order. */
enum wlf_origin {
	WLF_PATH,       /* the argument named an existing file (or held a '/') */
	WLF_CWD,        /* ./NAME.yaml */
	WLF_CONFIG,     /* $XDG_CONFIG_HOME/jobmix/workloads/NAME.yaml */
	WLF_SHIPPED,    /* the installed share directory, or the build tree's workloads/ */
};

#define WLF_NDIRS 3   /* the directories searched for a name: cwd, config, shipped */

struct wlf_dir {
	enum wlf_origin origin;
	char path[PATH_MAX];      /* "" when it cannot be named (no HOME, no shipped dir) */
};

/* The directories searched for a name, in order (cwd ".", config, shipped). */
void wlf_dirs(struct wlf_dir dirs[WLF_NDIRS]);
/* "path", "cwd", "config", "shipped": how run.json and `jobmix workloads` say it. */
const char *wlf_origin_name(enum wlf_origin o);

/*
 * The workload names (file names less .yaml) of the regular files in dir,
 * sorted; none when it is missing or unreadable.  0, or -1 out of memory.
 */
int wlf_scan(const char *dir, char ***names, size_t *n);
void wlf_names_free(char **names, size_t n);

/*
 * The workload file an argument means: a path as given (an existing file,
 * or anything holding a '/'), else NAME (a trailing .yaml dropped) looked
 * up as NAME.yaml in ./, the config directory, then the shipped one.
 * 0 with out set, or -1 with err naming every place searched.  Reads
 * directory entries only.
 */
int wlf_resolve(const char *arg, char *out, size_t outlen, enum wlf_origin *origin, char *err,
		size_t errlen);

#endif
