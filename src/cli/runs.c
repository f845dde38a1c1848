// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run set the reporting commands share: every run.json under the given
 * paths, read into records; a file that cannot be read is named with the
 * reason and skipped, never a crash and never a silent gap.  Each file
 * found (run.json and the points.csv beside it) is noted as an input, so
 * that -o cannot name one of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runs.h"

/* Note a run.json found and the points.csv beside it as inputs.  -1: no memory. */
static int runs_note(struct runs *rs, const char *file)
{
	char csv[4096];
	const char *slash = strrchr(file, '/');
	if (slash)
		snprintf(csv, sizeof(csv), "%.*s/points.csv", (int)(slash - file), file);
	else
		snprintf(csv, sizeof(csv), "points.csv");
	return atom_set_add(&rs->inputs, file) || atom_set_add(&rs->inputs, csv) ? -1 : 0;
}

static int runs_add_path(struct runs *rs, const char *path, const char *cmd)
{
	char err[1024];
	char **files;
	size_t n;
	if (res_find(path, &files, &n, err, sizeof(err))) {
		fprintf(stderr, "jobmix %s: %s\n", cmd, err);
		return -1;
	}
	if (!n)
		fprintf(stderr, "jobmix %s: warning: no run.json under '%s'\n", cmd, path);
	struct res_rec *v = realloc(rs->run, (rs->n + n + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "jobmix %s: out of memory\n", cmd);
		for (size_t i = 0; i < n; i++)
			free(files[i]);
		free(files);
		return -1;
	}
	rs->run = v;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		if (!rc && runs_note(rs, files[i])) {
			fprintf(stderr, "jobmix %s: out of memory\n", cmd);
			rc = -1;
		}
		if (rc) {
			free(files[i]);
			continue;
		}
		if (res_read(files[i], 0, &rs->run[rs->n], err, sizeof(err))) {
			fprintf(stderr, "jobmix %s: warning: skipped %s\n", cmd, err);
			rs->skipped++;
		} else {
			rs->n++;
		}
		free(files[i]);
	}
	free(files);
	return rc;
}

int runs_load(struct runs *rs, char *const *paths, size_t npaths, const char *cmd)
{
	memset(rs, 0, sizeof(*rs));
	static char *const dflt[] = { "results" };
	if (!npaths) {
		paths = dflt;
		npaths = 1;
	}
	for (size_t i = 0; i < npaths; i++)
		if (runs_add_path(rs, paths[i], cmd)) {
			runs_free(rs);
			return -1;
		}
	return 0;
}

void runs_free(struct runs *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		res_rec_free(&rs->run[i]);
	free(rs->run);
	atom_set_free(&rs->inputs);
	memset(rs, 0, sizeof(*rs));
}

/* Split a comma list in place into at most max parts; -1 when there are more or one is empty. */
int runs_split(char *s, const char **out, size_t max, size_t *n)
{
	*n = 0;
	for (char *tok = s, *next; tok; tok = next) {
		next = strchr(tok, ',');
		if (next)
			*next++ = 0;
		if (!*tok || *n == max)
			return -1;
		out[(*n)++] = tok;
	}
	return 0;
}
