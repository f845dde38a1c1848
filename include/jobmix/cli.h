/* SPDX-License-Identifier: GPL-2.0-only */
/* Sub-commands; each returns a process exit code (see exitcode.h). */
#ifndef JOBMIX_CLI_H
#define JOBMIX_CLI_H

#include <stddef.h>
#include <stdio.h>

/*
 * Every command, once: X(name) declares cmd_<name>(), its entry point, and
 * cmd_<name>_opts, its option table (opt.h: the getopt arrays, --help via
 * opt_usage(), the man page section, the completion values).  A command is
 * its row here, its row of commands[] (src/main.c) and src/cli/cmd_<name>.c.
 */
#define CLI_COMMANDS(X)                                                        \
	X(run) X(check) X(jobs) X(workloads) X(sched) X(restore) X(report)     \
	X(compare) X(history) X(push) X(plot) X(import) X(reaim) X(help)

struct opt_cmd;
#define CLI_DECLARE(name)                                                      \
	int cmd_##name(int argc, char **argv);                                 \
	extern const struct opt_cmd cmd_##name##_opts;
CLI_COMMANDS(CLI_DECLARE)
#undef CLI_DECLARE

/* One row of the commands table (src/main.c): dispatch, --help, man page. */
struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;         /* one line */
	const struct opt_cmd *opts;   /* its options: --help, man page section, `help --values` */
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
