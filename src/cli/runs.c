// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run set the reporting commands share: every run.json under the given
 * paths, read into records; a file that cannot be read is named with the
 * reason and skipped (and listed for the report's footnote), never a crash
 * and never a silent gap.  Each file
 * found (run.json and the points.csv beside it) is noted as an input, so
 * that -o cannot name one of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/proc.h"
#include "runs.h"

static int runs_skip(struct runs *rs, const char *cmd, const char *what)
{
	fprintf(stderr, "jobmix %s: warning: skipped %s\n", cmd, what);
	char **v = realloc(rs->skip, (rs->skipped + 1) * sizeof(*v));
	if (!v)
		return -1;
	rs->skip = v;
	if (!(rs->skip[rs->skipped] = strdup(what)))
		return -1;
	rs->skipped++;
	return 0;
}

/* A run left "running" by a process that is gone (killed, or another boot). */
static void runs_check_owner(struct res_rec *r)
{
	char host[256] = "";
	if (r->status != RES_RUNNING || !r->have_owner)
		return;
	if (gethostname(host, sizeof(host) - 1) || strcmp(host, r->owner.host))
		return;   /* another machine's run: who can tell */
	r->owner_gone = !util_proc_alive(r->owner.pid, r->owner.start, r->owner.boot);
}

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
	char **files, **skip;
	size_t n, nskip;
	if (res_find_all(path, &files, &n, &skip, &nskip, err, sizeof(err))) {
		fprintf(stderr, "jobmix %s: %s\n", cmd, err);
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < nskip; i++) {
		if (!rc && runs_skip(rs, cmd, skip[i]))
			rc = -1;
		free(skip[i]);
	}
	free(skip);
	if (!n)
		fprintf(stderr, "jobmix %s: warning: no run.json under '%s'\n", cmd, path);
	struct res_rec *v = rc ? NULL : realloc(rs->run, (rs->n + n + 1) * sizeof(*v));
	if (!v) {
		fprintf(stderr, "jobmix %s: out of memory\n", cmd);
		for (size_t i = 0; i < n; i++)
			free(files[i]);
		free(files);
		return -1;
	}
	rs->run = v;
	for (size_t i = 0; i < n; i++) {
		if (!rc && runs_note(rs, files[i])) {
			fprintf(stderr, "jobmix %s: out of memory\n", cmd);
			rc = -1;
		}
		if (rc) {
			free(files[i]);
			continue;
		}
		if (res_read(files[i], RES_READ_KINDS, &rs->run[rs->n], err, sizeof(err))) {
			if (!rc && runs_skip(rs, cmd, err))
				rc = -1;
		} else {
			runs_check_owner(&rs->run[rs->n]);
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
	for (size_t i = 0; i < rs->skipped && rs->skip; i++)
		free(rs->skip[i]);
	free(rs->skip);
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
