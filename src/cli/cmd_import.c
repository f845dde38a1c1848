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
#include "jobmix/workload.h"

void cmd_import_usage(FILE *f)
{
	fprintf(f, "usage: jobmix import WORKFILE [-c reaim.config] [-o FILE.yaml]\n\n"
		"A re-aim workfile ('WEIGHT TESTNAME' lines, '#' comments, FILESIZE:/POOLSIZE:\n"
		"lines) and its reaim.config (FILESIZE, POOLSIZE, DISKDIR, STARTUSERS, ENDUSERS,\n"
		"INCREMENT, JOBS, CROSSOVER) as a jobmix workload, validated; 'sync: exec' as\n"
		"re-aim's default.\n"
		"  -c, --config FILE   reaim.config to read (default: none; re-aim's defaults)\n"
		"  -o, --output FILE   write the workload there (atomically) instead of stdout\n"
		"Exit status: 0, or 2 on any error (nothing written).\n");
}

int cmd_import(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfgpath = NULL, *out = NULL;
	char err[1200];
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': cfgpath = optarg; break;
		case 'o': out = optarg; break;
		case 'h': cmd_import_usage(stdout); return JM_EXIT_OK;
		default: cmd_import_usage(stderr); return JM_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "jobmix import: expected one workfile\n");
		cmd_import_usage(stderr);
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
