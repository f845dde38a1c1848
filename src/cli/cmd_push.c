// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix push [PATH...] --db postgresql://...`: every run under the paths
 * (as report reads them) into a fleet's PostgreSQL database (res_db.h),
 * each replacing what the database held under its key (HOST/RUN-ID), so a
 * push may be repeated and many hosts may push at once.  report, plot and
 * history read them back with --db.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/opt.h"
#include "jobmix/res_db.h"
#include "reporting.h"

enum push_opt_id { PUSH_DB = OPT_LONG_ID, PUSH_QUIET = 'q' };

static const struct opt push_rows[] = {
	{ .arg = OPT_ROW, .metavar = "PATH",
	  .help = "run folders, run.json files or results roots\n"
		  "(searched recursively; default ./results)" },
	{ .id = PUSH_DB, .name = "db", .arg = OPT_REQUIRED, .metavar = "URL",
	  .help = "postgresql://[USER@][HOST][:PORT]/DB[?host=/socket/dir];\n"
		  "the tables are made when there are none; a password comes\n"
		  "from ~/.pgpass or PGPASSFILE, never the URL (required)" },
	{ .id = PUSH_QUIET, .letter = 'q', .name = "quiet", .arg = OPT_NONE,
	  .help = "say nothing when all went well" },
};

const struct opt_cmd cmd_push_opts = {
	.name = "push",
	.synopsis = "usage: jobmix push [PATH...] --db URL [-q]\n",
	.footer = "Exit status: 0 every run read was stored, 2 bad usage or no run read,\n"
		  "3 the database refused or failed (the runs stored before stay).\n",
	.rows = OPT_LIST(push_rows),
};

#define bad(...) cli_usage_error("push", __VA_ARGS__)

int cmd_push(int argc, char **argv)
{
	struct opt_parser p;
	const char *db = NULL;
	bool quiet = false;
	char err[1024];
	int c;
	if (opt_build(&p, &cmd_push_opts))
		return bad("option table too large");
	optind = 1;
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		switch (c) {
		case PUSH_DB:
			if (res_db_check_url(optarg, err, sizeof(err)))
				return bad("%s", err);
			db = optarg;
			break;
		case PUSH_QUIET: quiet = true; break;
		case 'h': opt_usage(stdout, &cmd_push_opts); return JM_EXIT_OK;
		default: opt_usage(stderr, &cmd_push_opts); return JM_EXIT_USAGE;
		}
	}
	if (!db)
		return bad("--db URL is required (postgresql://...)");
	struct res_runs rs;
	if (cli_runs_load(&rs, NULL, argv + optind, (size_t)(argc - optind), RES_RUNS_POINTS | RES_RUNS_CURVES,
			  "push"))
		return JM_EXIT_USAGE;
	if (!rs.n)
		return cli_runs_none(&rs, "push");
	size_t pushed = 0;
	int rc = res_db_push(db, &rs, &pushed, err, sizeof(err));
	if (rc)
		fprintf(stderr, "jobmix push: %s (%zu of %zu runs stored)\n", err, pushed, rs.n);
	else if (!quiet)
		printf("jobmix push: %zu run%s stored%s\n", pushed, pushed == 1 ? "" : "s",
		       rs.skipped ? " (some paths skipped: above)" : "");
	res_runs_free(&rs);
	return rc ? JM_EXIT_RUN_FAILED : JM_EXIT_OK;
}
