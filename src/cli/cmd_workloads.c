// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix workloads [--names]`: the workloads `jobmix run NAME` can find,
 * directory by directory in search order (./, the config directory, the
 * shipped workloads), each with its description, and which file shadows
 * which.  Reads the files; writes nothing.  Names, descriptions and paths
 * reach the terminal escaped (escape.h).
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
#include "jobmix/workload.h"
#include "jobmix/paths.h"

enum workloads_opt_id { WORKLOADS_NAMES = OPT_LONG_ID };

static const struct opt workloads_rows[] = {
	{ .arg = OPT_ROW, .metavar = "(no option)",
	  .help = "every workload found by name, directory by directory in\n"
		  "search order, with its description; a name found in an\n"
		  "earlier directory shadows the same name in a later one" },
	{ .id = WORKLOADS_NAMES, .name = "names", .arg = OPT_NONE,
	  .help = "only the names, one a line (what 'jobmix run NAME' takes)" },
};

/* Parsed by hand (no argument but options); the table gives the help and the names. */
const struct opt_cmd cmd_workloads_opts = {
	.name = "workloads",
	.synopsis = "usage: jobmix workloads [--names]\n",
	.footer = "Search order for a NAME: ./NAME.yaml, $XDG_CONFIG_HOME/jobmix/workloads\n"
		  "(default ~/.config/jobmix/workloads), then the shipped workloads.\n",
	.rows = OPT_LIST(workloads_rows),
	.col = 16,
	.flat = true,
};

struct wls_dir {
	struct wlf_dir d;
	char **names;
	size_t n;
};

/* The first directory before `upto` that holds name, or -1. */
static int wls_before(const struct wls_dir *dirs, size_t upto, const char *name)
{
	for (size_t i = 0; i < upto; i++)
		for (size_t j = 0; j < dirs[i].n; j++)
			if (!strcmp(dirs[i].names[j], name))
				return (int)i;
	return -1;
}

/* The first directory after `from` that holds name, or -1. */
static int wls_after(const struct wls_dir *dirs, size_t from, const char *name)
{
	for (size_t i = from + 1; i < WLF_NDIRS; i++)
		for (size_t j = 0; j < dirs[i].n; j++)
			if (!strcmp(dirs[i].names[j], name))
				return (int)i;
	return -1;
}

/* The workload's description, or why it does not load, into buf. */
static void wls_describe(const char *file, char *buf, size_t len)
{
	struct workload wl;
	struct wl_error err;
	if (wl_load(file, &wl, &err)) {
		const char *msg = err.msg;
		size_t fl = strlen(file);
		if (!strncmp(msg, file, fl) && msg[fl] == ':')
			msg += fl;
		snprintf(buf, len, "(invalid: %s)", msg[0] == ':' ? msg + 1 : msg);
		return;
	}
	snprintf(buf, len, "%s", wl.description && wl.description[0] ? wl.description : "-");
	wl_free(&wl);
}

static void wls_list(const struct wls_dir *dirs)
{
	static const char *const what[] = {
		[WLF_CWD] = "./NAME.yaml", [WLF_CONFIG] = "config", [WLF_SHIPPED] = "shipped",
	};
	printf("Workloads by name, in search order (the first found is used):\n");
	for (size_t i = 0; i < WLF_NDIRS; i++) {
		const struct wls_dir *w = &dirs[i];
		if (!w->d.path[0]) {
			printf("\n(%s: no such directory to search)\n", what[w->d.origin]);
			continue;
		}
		putchar('\n');
		esc_put(stdout, ESC_TEXT, w->d.path);
		printf(" (%s)\n", what[w->d.origin]);
		if (!w->n)
			printf("  (none)\n");
		for (size_t j = 0; j < w->n; j++) {
			char file[PATH_MAX + NAME_MAX + 8], desc[1024];
			snprintf(file, sizeof(file), "%s/%s.yaml", w->d.path, w->names[j]);
			char en[NAME_MAX * 4 + 1], ep[PATH_MAX * 4 + 1];
			wls_describe(file, desc, sizeof(desc));
			printf("  %-16s ", esc_str(en, sizeof(en), ESC_TEXT, w->names[j]));
			esc_put(stdout, ESC_TEXT, desc);
			int b = wls_before(dirs, i, w->names[j]);
			int a = wls_after(dirs, i, w->names[j]);
			if (b >= 0 || a >= 0)
				printf("  [%s %s/%s.yaml]", b >= 0 ? "shadowed by" : "shadows",
				       esc_str(ep, sizeof(ep), ESC_TEXT, dirs[b >= 0 ? b : a].d.path), en);
			putchar('\n');
		}
	}
}

/* Every name found, once, sorted. */
static void wls_names(const struct wls_dir *dirs)
{
	char **all = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < WLF_NDIRS; i++)
		for (size_t j = 0; j < dirs[i].n; j++) {
			if (wls_before(dirs, i, dirs[i].names[j]) >= 0)
				continue;
			if (n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				char **v = realloc(all, nc * sizeof(*v));
				if (!v)
					goto out;
				all = v;
				cap = nc;
			}
			all[n++] = dirs[i].names[j];
		}
	for (size_t i = 1; i < n; i++)   /* insertion sort: a few dozen names */
		for (size_t j = i; j > 0 && strcmp(all[j - 1], all[j]) > 0; j--) {
			char *t = all[j];
			all[j] = all[j - 1];
			all[j - 1] = t;
		}
	for (size_t i = 0; i < n; i++) {
		esc_put(stdout, ESC_TEXT, all[i]);
		putchar('\n');
	}
out:
	free(all);
}

int cmd_workloads(int argc, char **argv)
{
	bool names = false;
	for (int i = 1; i < argc; i++) {
		const struct opt *o = strchr(argv[i], '=') ? NULL :
				      opt_find(&cmd_workloads_opts, argv[i]);
		if (o && o->id == WORKLOADS_NAMES) {
			names = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			opt_usage(stdout, &cmd_workloads_opts);
			return JM_EXIT_OK;
		} else {
			fprintf(stderr, "jobmix workloads: unexpected argument '%s'\n", argv[i]);
			opt_usage(stderr, &cmd_workloads_opts);
			return JM_EXIT_USAGE;
		}
	}
	struct wlf_dir d[WLF_NDIRS];
	struct wls_dir dirs[WLF_NDIRS];
	int rc = JM_EXIT_OK;
	wlf_dirs(d);
	memset(dirs, 0, sizeof(dirs));
	for (size_t i = 0; i < WLF_NDIRS; i++) {
		dirs[i].d = d[i];
		if (wlf_scan(d[i].path, &dirs[i].names, &dirs[i].n)) {
			fprintf(stderr, "jobmix workloads: out of memory\n");
			rc = JM_EXIT_USAGE;
			goto out;
		}
	}
	if (names)
		wls_names(dirs);
	else
		wls_list(dirs);
	if (fflush(stdout)) {
		perror("jobmix workloads: writing output");
		rc = JM_EXIT_USAGE;
	}
out:
	for (size_t i = 0; i < WLF_NDIRS; i++)
		wlf_names_free(dirs[i].names, dirs[i].n);
	return rc;
}
