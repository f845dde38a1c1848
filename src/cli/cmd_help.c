// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix help [COMMAND | --man]`: the command list, one command's help, or
 * the jobmix(1) manual page (written by src/display/man.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/opt.h"
#include "jobmix/man.h"

enum help_opt_id { HELP_MAN = OPT_LONG_ID, HELP_VALUES };

static const struct opt help_rows[] = {
	{ .arg = OPT_ROW, .metavar = "(no argument)", .help = "the commands" },
	{ .arg = OPT_ROW, .metavar = "COMMAND",
	  .help = "that command's help (as 'jobmix COMMAND --help')" },
	{ .id = HELP_MAN, .name = "man", .arg = OPT_NONE,
	  .help = "the jobmix(1) manual page, in roff" },
	{ .id = HELP_VALUES, .name = "values", .arg = OPT_NONE, .hidden = true,
	  .help = "--values COMMAND OPTION: the values OPTION takes, one a line (for completion)" },
};

/* Looked at by hand: `help` takes one argument (or --values and two). */
const struct opt_cmd cmd_help_opts = {
	.name = "help",
	.synopsis = "usage: jobmix help [COMMAND | --man]\n",
	.rows = OPT_LIST(help_rows),
	.col = 17,
	.flat = true,
};

void cli_commands_usage(FILE *f, const struct cli_command *cmds, size_t n)
{
	fprintf(f, "usage: jobmix COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\n'jobmix help COMMAND' (or 'jobmix COMMAND --help') describes each command;\n"
		"'man jobmix' the whole tool.\n");
}

/*
 * `jobmix help --values COMMAND OPTION`: what bash completion offers for
 * OPTION's value, from the command's option table (opt_values).  Exit 0
 * when OPTION takes a value (none printed: nothing to offer), 2 when it is
 * not one of COMMAND's or takes none.
 */
static int help_values(int argc, char **argv, const struct cli_command *cmds, size_t n)
{
	if (argc != 4) {
		fprintf(stderr, "jobmix help: --values COMMAND OPTION\n");
		return JM_EXIT_USAGE;
	}
	for (size_t i = 0; i < n; i++) {
		if (strcmp(argv[2], cmds[i].name))
			continue;
		if (!cmds[i].opts || opt_values(stdout, cmds[i].opts, argv[3]))
			return JM_EXIT_USAGE;
		return fflush(stdout) ? JM_EXIT_USAGE : JM_EXIT_OK;
	}
	fprintf(stderr, "jobmix help: unknown command '%s'\n", argv[2]);
	return JM_EXIT_USAGE;
}

int cli_help(int argc, char **argv, const struct cli_command *cmds, size_t n)
{
	if (argc < 2) {
		cli_commands_usage(stdout, cmds, n);
		return JM_EXIT_OK;
	}
	const struct opt *o = opt_find(&cmd_help_opts, argv[1]);
	if (o && o->id == HELP_VALUES)
		return help_values(argc, argv, cmds, n);
	if (argc > 2) {
		fprintf(stderr, "jobmix help: one command at a time\n");
		return JM_EXIT_USAGE;
	}
	if (o && o->id == HELP_MAN && !strchr(argv[1], '=')) {
		if (man_page(stdout, cmds, n) || fflush(stdout)) {
			perror("jobmix help: writing the manual page");
			return JM_EXIT_USAGE;
		}
		return JM_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			opt_usage(stdout, cmds[i].opts);
			return JM_EXIT_OK;
		}
	fprintf(stderr, "jobmix help: unknown command '%s'\n", argv[1]);
	cli_commands_usage(stderr, cmds, n);
	return JM_EXIT_USAGE;
}
