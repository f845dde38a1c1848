/* SPDX-License-Identifier: GPL-2.0-only */
/* Sub-commands; each returns a process exit code (see exitcode.h). */
#ifndef JOBMIX_CLI_H
#define JOBMIX_CLI_H

#include <stddef.h>
#include <stdio.h>

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_workloads(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_reaim(int argc, char **argv);

/* Each command's --help text (also `jobmix help COMMAND`), from its option table. */
void cmd_run_usage(FILE *f);
void cmd_check_usage(FILE *f);
void cmd_jobs_usage(FILE *f);
void cmd_workloads_usage(FILE *f);
void cmd_sched_usage(FILE *f);
void cmd_report_usage(FILE *f);
void cmd_compare_usage(FILE *f);
void cmd_history_usage(FILE *f);
void cmd_push_usage(FILE *f);
void cmd_plot_usage(FILE *f);
void cmd_import_usage(FILE *f);
void cmd_reaim_usage(FILE *f);
void cmd_help_usage(FILE *f);
void cmd_restore_usage(FILE *f);

/*
 * Each command's option table (opt.h): its getopt arrays, --help,
 * man page section and completion values.
 */
struct opt_cmd;
extern const struct opt_cmd cmd_run_opts, cmd_check_opts, cmd_workloads_opts, cmd_jobs_opts,
	cmd_sched_opts, cmd_report_opts, cmd_compare_opts, cmd_history_opts, cmd_push_opts, cmd_plot_opts, cmd_import_opts,
	cmd_reaim_opts, cmd_help_opts, cmd_restore_opts;

/* One row of the commands table (src/main.c): dispatch, --help, man page. */
struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	void (*usage)(FILE *f);
	const char *help;         /* one line */
	const struct opt_cmd *opts;   /* its options: man page section, `help --values` */
};

/* The commands table's one-line list: `jobmix --help`. */
void cli_commands_usage(FILE *f, const struct cli_command *cmds, size_t n);
/*
 * `jobmix help [COMMAND | --man]`: the command list, one command's help,
 * or the jobmix(1) man page in roff, generated from cmds, each command's
 * option table and the job registry; hidden, `jobmix help --values COMMAND
 * OPTION`: the values bash completion offers for OPTION.
 */
int cli_help(int argc, char **argv, const struct cli_command *cmds, size_t n);

#endif
