// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix check [--quiet] WORKLOAD...`: load and validate each workload
 * (a file, or a name found as `jobmix run` finds it); print each resolved
 * workload (defaults filled) as YAML on stdout, every error on stderr.
 * Exit 0 when all are valid, 2 otherwise.  Reads the files only; writes
 * nothing.  What reaches the terminal is escaped (escape.h): the YAML keeps
 * its lines, a C1 character becomes its YAML escape \u00NN.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/escape.h"
#include "jobmix/exitcode.h"
#include "jobmix/opt.h"
#include "jobmix/wl_keys.h"
#include "jobmix/workload.h"
#include "jobmix/paths.h"

enum check_opt_id { CHECK_QUIET = 'q', CHECK_KEYS = OPT_LONG_ID, CHECK_MARKDOWN };

static const struct opt check_rows[] = {
	{ .id = CHECK_QUIET, .letter = 'q', .name = "quiet", .arg = OPT_NONE,
	  .help = "print nothing on success (errors still go to stderr)" },
	{ .id = CHECK_KEYS, .name = "keys", .arg = OPT_NONE,
	  .help = "every workload key: type, default, range, what it is" },
	{ .id = CHECK_MARKDOWN, .name = "markdown", .arg = OPT_NONE,
	  .help = "with --keys: as docs/workload.md's table" },
};

/* Parsed by hand (a lone '-' and '--' as before); the table gives the help and the names. */
const struct opt_cmd cmd_check_opts = {
	.name = "check",
	.synopsis = "usage: jobmix check [--quiet] WORKLOAD...\n"
		    "       jobmix check --keys [--markdown]\n\n"
		    "Validate workload files; print each one resolved, with every default filled.\n"
		    "A WORKLOAD is a file, or a name found as 'jobmix run' finds it.\n",
	.footer = "Exit status: 0 all valid, 2 any error.\n",
	.rows = OPT_LIST(check_rows),
	.col = 16,
	.flat = true,
};

int cmd_check(int argc, char **argv)
{
	bool quiet = false, options = true, keys = false, markdown = false;
	int nfiles = 0, bad = 0, printed = 0;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (options && a[0] == '-' && a[1]) {
			const struct opt *o = strchr(a, '=') ? NULL : opt_find(&cmd_check_opts, a);
			if (!strcmp(a, "--")) {
				options = false;
			} else if (o && o->id == CHECK_QUIET) {
				quiet = true;
			} else if (o && o->id == CHECK_KEYS) {
				keys = true;
			} else if (o && o->id == CHECK_MARKDOWN) {
				markdown = true;
			} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
				opt_usage(stdout, &cmd_check_opts);
				return JM_EXIT_OK;
			} else {
				fprintf(stderr, "jobmix check: unknown option '%s'\n", a);
				opt_usage(stderr, &cmd_check_opts);
				return JM_EXIT_USAGE;
			}
			continue;
		}
		nfiles++;
	}
	if (keys || markdown) {
		if (!keys || nfiles) {
			fprintf(stderr, "jobmix check: --markdown goes with --keys, and --keys takes no "
				"file\n");
			return JM_EXIT_USAGE;
		}
		wl_keys_print(stdout, markdown);
		return fflush(stdout) ? JM_EXIT_USAGE : JM_EXIT_OK;
	}
	if (!nfiles) {
		fprintf(stderr, "jobmix check: no workload file given\n");
		opt_usage(stderr, &cmd_check_opts);
		return JM_EXIT_USAGE;
	}
	options = true;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (options && a[0] == '-' && a[1]) {
			if (!strcmp(a, "--"))
				options = false;
			continue;
		}
		struct workload wl;
		struct wl_error err;
		char file[PATH_MAX], where[8192];
		enum wlf_origin origin;
		if (wlf_resolve(a, file, sizeof(file), &origin, where, sizeof(where))) {
			fputs("jobmix check: ", stderr);
			esc_put(stderr, ESC_TEXT, where);
			fputc('\n', stderr);
			bad++;
			continue;
		}
		if (wl_load(file, &wl, &err)) {
			esc_put(stderr, ESC_TEXT, err.msg);
			fputc('\n', stderr);
			bad++;
			continue;
		}
		if (!quiet) {
			char *yaml = NULL;
			size_t ylen = 0;
			FILE *mf = open_memstream(&yaml, &ylen);
			if (printed++)
				fputs("---\n", stdout);
			if (mf) {
				wl_print(mf, &wl);
				fclose(mf);
				esc_put(stdout, ESC_LINES, yaml);
			} else {
				bad++;
				fprintf(stderr, "jobmix check: out of memory\n");
			}
			free(yaml);
		}
		wl_free(&wl);
	}
	if (fflush(stdout)) {
		perror("jobmix check: writing output");
		return JM_EXIT_USAGE;
	}
	return bad ? JM_EXIT_USAGE : JM_EXIT_OK;
}
