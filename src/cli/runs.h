/* SPDX-License-Identifier: GPL-2.0-only */
/* The runs `jobmix report`, `compare` and `plot` read (see runs.c). */
#ifndef JOBMIX_CLI_RUNS_H
#define JOBMIX_CLI_RUNS_H

#include <stddef.h>

#include "jobmix/atomic.h"
#include "jobmix/results.h"

struct runs {
	struct res_rec *run;
	size_t n;
	size_t skipped;      /* paths refused or not searched (each named on stderr) */
	char **skip;         /* each as "path: why", for the report's footnote */
	struct atom_set inputs;   /* every run.json found and its points.csv */
};

/*
 * Read every run under paths (run folders, run.json files, results roots;
 * none: ./results).  A run.json that cannot be read, and a folder that
 * cannot be searched, is warned about and skipped (and listed in skip); a
 * run still "running" whose owner is gone gets owner_gone.  Every run.json
 * found and the points.csv beside it are noted as inputs, so that -o cannot
 * name one of them.  -1 only when a path itself cannot be read (said on
 * stderr) or out of memory.
 */
int runs_load(struct runs *rs, char *const *paths, size_t npaths, const char *cmd);
void runs_free(struct runs *rs);
/* Split a comma list in place; -1 on an empty part or more than max parts. */
int runs_split(char *s, const char **out, size_t max, size_t *n);

#endif
