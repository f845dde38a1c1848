// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix import WORKFILE [-c reaim.config] [-o FILE.yaml]`: a re-aim
 * workfile (and its config) as a jobmix workload, validated by the loader
 * before anything is written (compat_import: errors name the workfile's or
 * the config's lines, never the YAML's); -o writes with atomic.h's writer (a
 * temp file renamed onto the target; never the workfile or config read),
 * else standard output.  Any error: exit 2, nothing written.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/atomic.h"
#include "jobmix/cli.h"
#include "jobmix/compat.h"
#include "jobmix/exitcode.h"
#include "jobmix/opt.h"
#include "jobmix/workload.h"

enum import_opt_id { IMPORT_CONFIG = 'c', IMPORT_OUTPUT = 'o' };

static const struct opt import_rows[] = {
	{ .id = IMPORT_CONFIG, .letter = 'c', .name = "config", .arg = OPT_REQUIRED,
	  .metavar = "FILE", .help = "reaim.config to read (default: none; re-aim's defaults)",
	  .values = "@files" },
	{ .id = IMPORT_OUTPUT, .letter = 'o', .name = "output", .arg = OPT_REQUIRED,
	  .metavar = "FILE", .help = "write the workload there (atomically) instead of stdout",
	  .values = "@files" },
};

const struct opt_cmd cmd_import_opts = {
	.name = "import",
	.synopsis = "usage: jobmix import WORKFILE [-c reaim.config] [-o FILE.yaml]\n\n"
		    "A re-aim workfile ('WEIGHT TESTNAME' lines, '#' comments, FILESIZE:/POOLSIZE:\n"
		    "lines) and its reaim.config (FILESIZE, POOLSIZE, DISKDIR, STARTUSERS, ENDUSERS,\n"
		    "INCREMENT, JOBS, CROSSOVER) as a jobmix workload, validated; 'sync: exec' as\n"
		    "re-aim's default.\n",
	.footer = "Exit status: 0, or 2 on any error (nothing written).\n",
	.rows = OPT_LIST(import_rows),
	.col = 22,
};

int cmd_import(int argc, char **argv)
{
	struct opt_parser p;
	const char *cfgpath = NULL, *out = NULL;
	char err[1200];
	int c;
	if (opt_build(&p, &cmd_import_opts))
		return JM_EXIT_USAGE;
	optind = 1;
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		switch (c) {
		case IMPORT_CONFIG: cfgpath = optarg; break;
		case IMPORT_OUTPUT: out = optarg; break;
		case 'h': opt_usage(stdout, &cmd_import_opts); return JM_EXIT_OK;
		default: opt_usage(stderr, &cmd_import_opts); return JM_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "jobmix import: expected one workfile\n");
		opt_usage(stderr, &cmd_import_opts);
		return JM_EXIT_USAGE;
	}
	const char *workfile = argv[optind];
	struct compat_config cfg;
	char *yaml = NULL;
	int rc = JM_EXIT_USAGE;
	if (cfgpath && compat_read_config(cfgpath, &cfg, err, sizeof(err))) {
		fprintf(stderr, "jobmix import: %s\n", err);
		return JM_EXIT_USAGE;
	}
	if (compat_import(workfile, cfgpath ? &cfg : NULL, cfgpath, "exec", &yaml, err,
			  sizeof(err))) {
		fprintf(stderr, "jobmix import: %s\n", err);
		goto out;
	}
	if (out) {
		char werrbuf[8192];
		struct atom_set in = { 0 };
		struct atom_buf b = { yaml, strlen(yaml) };
		if (atom_set_add(&in, workfile) || atom_set_add(&in, cfgpath)) {
			fprintf(stderr, "jobmix import: out of memory\n");
			atom_set_free(&in);
			goto out;
		}
		int w = atom_write(out, atom_fill_buf, &b, &in, werrbuf, sizeof(werrbuf));
		atom_set_free(&in);
		if (w) {
			fprintf(stderr, "jobmix import: %s\n", werrbuf);
			goto out;
		}
		fprintf(stderr, "jobmix import: %s -> %s\n", workfile, out);
	} else {
		fputs(yaml, stdout);
		if (fflush(stdout)) {
			perror("jobmix import: writing output");
			goto out;
		}
	}
	rc = JM_EXIT_OK;
out:
	free(yaml);
	if (cfgpath)
		compat_config_free(&cfg);
	return rc;
}
