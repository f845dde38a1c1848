// SPDX-License-Identifier: GPL-2.0-only
/*
 * jm-true: the tiny program exec_test runs.  Exits with the status given as
 * its first argument (0 without one), so the caller can tell that the exec
 * really happened.
 */
#include <stdlib.h>

int main(int argc, char **argv)
{
	return argc > 1 ? (int)(strtol(argv[1], NULL, 10) & 0xff) : 0;
}
