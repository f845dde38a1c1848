// SPDX-License-Identifier: GPL-2.0-only
/* `jobmix run` (placeholder until the load generator lands). */
#include <stdio.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"

int cmd_run(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "jobmix run: not implemented yet\n");
	return JM_EXIT_USAGE;
}
