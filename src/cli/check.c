// SPDX-License-Identifier: GPL-2.0-only
/* `jobmix check FILE...` (placeholder until the loader lands). */
#include <stdio.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"

int cmd_check(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "jobmix check: not implemented yet\n");
	return JM_EXIT_USAGE;
}
