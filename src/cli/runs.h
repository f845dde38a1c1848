/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run set's old names, for src/cli/run.c only, until it takes
 * res_runs.h itself (the run set now lives in src/results/runs.c; the
 * reporting commands use res_runs.h and cli_runs_load).
 */
#ifndef JOBMIX_CLI_RUNS_H
#define JOBMIX_CLI_RUNS_H

#include "jobmix/res_runs.h"
#include "reporting.h"

struct runs {
	struct res_runs rr;
	struct res_rec *run;      /* rr's, after runs_load */
	size_t n;
};

static inline int runs_load(struct runs *rs, char *const *paths, size_t npaths, const char *cmd)
{
	int rc = cli_runs_load(&rs->rr, paths, npaths, cmd);
	rs->run = rs->rr.run;
	rs->n = rs->rr.n;
	return rc;
}

static inline void runs_free(struct runs *rs)
{
	res_runs_free(&rs->rr);
}

#endif
