// SPDX-License-Identifier: GPL-2.0-only
/* jobmix: sub-command dispatch only. */
#include <stdio.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *help;
} commands[] = {
	{ "run", cmd_run, "run a workload: ramp users, measure JPM, write results" },
	{ "check", cmd_check, "validate workload files and print them resolved" },
	{ "jobs", cmd_jobs, "list job kinds, or one kind's parameters" },
	{ "sched", cmd_sched, "show IO schedulers; --restore what a killed jobmix left switched" },
	{ "report", cmd_report, "runs as the kernel x IO-scheduler comparison table" },
	{ "compare", cmd_compare, "baseline against candidate runs; exit 1 on a regression" },
	{ "plot", cmd_plot, "runs as gnuplot charts: JPM against users, or --trend by date" },
	{ "import", cmd_import, "a re-aim workfile (and reaim.config) as a jobmix workload" },
	{ "reaim", cmd_reaim, "re-aim's command line and console output, on jobmix" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: jobmix COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'jobmix COMMAND --help' describes each command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return JM_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return JM_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("jobmix %s\n", JOBMIX_VERSION);
		return JM_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "jobmix: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return JM_EXIT_USAGE;
}
