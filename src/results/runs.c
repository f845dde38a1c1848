// SPDX-License-Identifier: GPL-2.0-only
/*
 * The run set the reporting commands share (res_runs.h): every run.json
 * under the given paths, read into records; a file that cannot be read is
 * named with the reason through the warn hook and skipped (and listed for
 * the report's footnote), never a crash and never a silent gap.  Each file
 * found (run.json and the points.csv beside it) is noted as an input, so
 * that -o cannot name one of them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/proc.h"
#include "jobmix/res_index.h"
#include "jobmix/res_runs.h"

/* The hook and its argument, and the error buffer, of one res_runs_load. */
struct runs_ctx {
	res_runs_warn_fn warn;
	void *arg;
	char *err;
	size_t errlen;
};

/* Say pre, what, post through the warn hook. */
static void runs_warn(const struct runs_ctx *cx, const char *pre, const char *what,
		      const char *post)
{
	char msg[4200];
	if (!cx->warn)
		return;
	snprintf(msg, sizeof(msg), "%s%s%s", pre, what, post);
	cx->warn(cx->arg, msg);
}

static int runs_skip(struct res_runs *rs, const struct runs_ctx *cx, const char *what)
{
	runs_warn(cx, "skipped ", what, "");
	char **v = realloc(rs->skip, (rs->skipped + 1) * sizeof(*v));
	if (v)
		rs->skip = v;
	if (!v || !(rs->skip[rs->skipped] = strdup(what))) {
		snprintf(cx->err, cx->errlen, "out of memory");
		return -1;
	}
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
static int runs_note(struct res_runs *rs, const char *file)
{
	char csv[4096];
	const char *slash = strrchr(file, '/');
	if (slash)
		snprintf(csv, sizeof(csv), "%.*s/points.csv", (int)(slash - file), file);
	else
		snprintf(csv, sizeof(csv), "points.csv");
	return atom_set_add(&rs->inputs, file) || atom_set_add(&rs->inputs, csv) ? -1 : 0;
}

static int runs_add_path(struct res_runs *rs, const char *path, const struct runs_ctx *cx)
{
	char err[1024];
	char **files, **skip;
	size_t n, nskip;
	if (res_find_all(path, &files, &n, &skip, &nskip, cx->err, cx->errlen))
		return -1;
	int rc = 0;
	for (size_t i = 0; i < nskip; i++) {
		if (!rc && runs_skip(rs, cx, skip[i]))
			rc = -1;
		free(skip[i]);
	}
	free(skip);
	if (!n)
		runs_warn(cx, "no run.json under '", path, "'");
	/* a results root (not one run's folder) keeps an index of its runs */
	struct res_index *ix = NULL;
	struct stat rst;
	char own[4096];
	snprintf(own, sizeof(own), "%s/run.json", path);
	if (!rc && n && !stat(path, &rst) && S_ISDIR(rst.st_mode) && access(own, F_OK) &&
	    res_index_open(path, &ix))
		ix = NULL;
	struct res_rec *v = rc ? NULL : realloc(rs->run, (rs->n + n + 1) * sizeof(*v));
	if (!v) {
		snprintf(cx->err, cx->errlen, "out of memory");
		for (size_t i = 0; i < n; i++)
			free(files[i]);
		free(files);
		return -1;
	}
	rs->run = v;
	for (size_t i = 0; i < n; i++) {
		if (!rc && runs_note(rs, files[i])) {
			snprintf(cx->err, cx->errlen, "out of memory");
			rc = -1;
		}
		if (rc) {
			free(files[i]);
			continue;
		}
		/* identity before reading: a file rewritten meanwhile is read afresh next time */
		struct stat st;
		bool ident = ix && !lstat(files[i], &st) && S_ISREG(st.st_mode);
		if (ident && !res_index_get(ix, files[i], &st, &rs->run[rs->n])) {
			runs_check_owner(&rs->run[rs->n]);
			rs->n++;
		} else if (res_read(files[i], RES_READ_KINDS, &rs->run[rs->n], err, sizeof(err))) {
			if (!rc && runs_skip(rs, cx, err))
				rc = -1;
		} else {
			if (ident)
				res_index_put(ix, files[i], &st, &rs->run[rs->n]);
			runs_check_owner(&rs->run[rs->n]);
			rs->n++;
		}
		free(files[i]);
	}
	free(files);
	if (ix) {
		struct res_index_stats s;
		res_index_close(ix, !rc, &s);
		rs->index.hits += s.hits;
		rs->index.parsed += s.parsed;
		rs->index.rebuilt |= s.rebuilt;
		rs->index.dropped += s.dropped;
		rs->index.roots++;
	}
	return rc;
}

int res_runs_load(struct res_runs *rs, char *const *paths, size_t npaths, res_runs_warn_fn warn,
		  void *arg, char *err, size_t errlen)
{
	const struct runs_ctx cx = { warn, arg, err, errlen };
	memset(rs, 0, sizeof(*rs));
	static char *const dflt[] = { "results" };
	if (!npaths) {
		paths = dflt;
		npaths = 1;
	}
	for (size_t i = 0; i < npaths; i++)
		if (runs_add_path(rs, paths[i], &cx)) {
			res_runs_free(rs);
			return -1;
		}
	return 0;
}

void res_runs_free(struct res_runs *rs)
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
