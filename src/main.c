// SPDX-License-Identifier: GPL-2.0-only
/* jobmix: sub-command dispatch only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/parse.h"
#include "jobmix/res_index.h"
#include "jobmix/sys_sched.h"
#include "jobmix/version.h"

/* The commands: dispatch, `jobmix --help`, `jobmix help COMMAND` and the man page. */
static const struct cli_command commands[] = {
	{ "run", cmd_run, "run a workload: ramp users, measure JPM, write results",
	  &cmd_run_opts },
	{ "check", cmd_check, "validate workloads and print them resolved",
	  &cmd_check_opts },
	{ "workloads", cmd_workloads,
	  "the workloads found by name, with descriptions", &cmd_workloads_opts },
	{ "jobs", cmd_jobs, "list job kinds, or one kind's parameters",
	  &cmd_jobs_opts },
	{ "sched", cmd_sched,
	  "show IO schedulers; --restore what a killed jobmix left switched", &cmd_sched_opts },
	{ "restore", cmd_restore,
	  "put back every scheduler and system value a killed jobmix left changed",
	  &cmd_restore_opts },
	{ "report", cmd_report,
	  "runs as the kernel x IO-scheduler comparison table", &cmd_report_opts },
	{ "compare", cmd_compare,
	  "baseline against candidate runs; exit 1 on a regression", &cmd_compare_opts },
	{ "history", cmd_history,
	  "change points in each series of comparable runs; exit 1 on a regression",
	  &cmd_history_opts },
	{ "push", cmd_push,
	  "runs into a fleet's PostgreSQL database (report/plot/history --db)", &cmd_push_opts },
	{ "plot", cmd_plot,
	  "runs as gnuplot charts: JPM against users, or --trend by date", &cmd_plot_opts },
	{ "import", cmd_import,
	  "a re-aim workfile (and reaim.config) as a jobmix workload", &cmd_import_opts },
	{ "reaim", cmd_reaim, "re-aim's command line and console output, on jobmix",
	  &cmd_reaim_opts },
	{ "help", cmd_help, "a command's help, or the manual page (--man)",
	  &cmd_help_opts },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* cmd_help (cli.h) is here: it needs the commands table. */
int cmd_help(int argc, char **argv)
{
	return cli_help(argc, argv, commands, NCOMMANDS);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		cli_commands_usage(stderr, commands, NCOMMANDS);
		return JM_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		cli_commands_usage(stdout, commands, NCOMMANDS);
		return JM_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("jobmix %s\n", JOBMIX_VERSION);
		return JM_EXIT_OK;
	}
	/* JOBMIX_STATE_DIR: a private directory of locks and records instead of
	 * /run/jobmix (tests, and two jobmix installations kept apart) */
	const char *state = getenv("JOBMIX_STATE_DIR");
	if (state && state[0]) {
		if (state[0] != '/') {
			fprintf(stderr, "jobmix: JOBMIX_STATE_DIR='%s': not an absolute path\n", state);
			return JM_EXIT_USAGE;
		}
		sys_sched_set_dir(state);
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		int rc = commands[i].fn(argc - 1, argv + 1);
		/* a results root's index changes only when the input was good */
		res_index_settle(rc != JM_EXIT_USAGE);
		return rc;
	}
	const char *names[NCOMMANDS + 1];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i].name;
	names[NCOMMANDS] = NULL;
	const char *near = jm_suggest(argv[1], names);
	if (near)
		fprintf(stderr, "jobmix: unknown command '%s' (did you mean '%s'?)\n", argv[1],
			near);
	else
		fprintf(stderr, "jobmix: unknown command '%s'\n", argv[1]);
	cli_commands_usage(stderr, commands, NCOMMANDS);
	return JM_EXIT_USAGE;
}
