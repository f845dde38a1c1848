/* SPDX-License-Identifier: GPL-2.0-only */
/* The exit-code scale, mapped in one place (main and the sub-commands). */
#ifndef JOBMIX_EXITCODE_H
#define JOBMIX_EXITCODE_H

enum jm_exit {
	JM_EXIT_OK = 0,
	JM_EXIT_REGRESSION = 1,   /* compare: a significant regression */
	JM_EXIT_USAGE = 2,        /* bad command line or configuration */
	JM_EXIT_RUN_FAILED = 3,   /* run: a load point failed */
	JM_EXIT_INCOMPLETE = 3,   /* compare: evidence missing (a run not complete, a group one side lacks) */
	JM_EXIT_SIGHUP = 129,
	JM_EXIT_SIGINT = 130,
	JM_EXIT_SIGTERM = 143,
};

#endif
