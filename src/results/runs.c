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

#include <jansson.h>

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

/*
 * Note a run.json found (its identity st as the walk found it) as an
 * input, and the points.csv beside it as its companion (atomic.h: looked
 * at only when an output exists); kept: file is interned (a run's path),
 * not copied.  -1: no memory.
 */
static int runs_note(struct res_runs *rs, const char *file, const struct res_ident *id, bool kept)
{
	rs->inputs.companion = "points.csv";
	rs->inputs.companion_of = "run.json";
	if (!S_ISREG(id->mode))
		return atom_set_add(&rs->inputs, file);
	struct stat st = { .st_dev = (dev_t)id->dev, .st_ino = (ino_t)id->ino };
	return kept ? atom_set_add_kept(&rs->inputs, file, &st) :
		      atom_set_add_st(&rs->inputs, file, &st);
}

/* What a run read becomes in the set. */
struct runs_fin {
	unsigned parts;
	res_runs_project_fn project;
	void *parg;
};

/* A run read into the set: projected and its points dropped (a run-level read), lists shared. */
static void runs_finish(struct res_rec *r, void *arg)
{
	const struct runs_fin *f = arg;
	if (!(f->parts & RES_RUNS_POINTS)) {
		if (f->project)
			f->project(r, f->parg);
		if (f->parts & RES_RUNS_PEAK)
			res_rec_keep_peak_points(r);
		else
			res_rec_drop_points(r);
		/* the curves read alone (out of memory: by and curve kept as they are) */
		if (!(f->parts & RES_RUNS_CURVES))
			res_summary_drop_by(&r->summary);
		else
			res_summary_keep_curve(&r->summary);
	}
	res_rec_share_lists(r);   /* out of memory: it keeps its own */
	runs_check_owner(r);
}

/* Is path a results root: a folder that is not itself a run? */
static bool runs_is_root(const char *path)
{
	struct stat st;
	char own[4096];
	snprintf(own, sizeof(own), "%s/run.json", path);
	return !stat(path, &st) && S_ISDIR(st.st_mode) && access(own, F_OK);
}

/* Close root's index refresh into the set's figures. */
static void runs_index_close(struct res_runs *rs, struct res_index *ix, bool commit)
{
	struct res_index_stats s;
	res_index_close(ix, commit, &s);
	rs->index.hits += s.hits;
	rs->index.parsed += s.parsed;
	rs->index.rebuilt |= s.rebuilt;
	rs->index.dropped += s.dropped;
	rs->index.roots++;
}

/*
 * The runs under path: the walk (one lstat a run), then the root's index
 * in one pass over its rows for the runs it holds current, then every
 * other run.json parsed (and stored in the index).  Without
 * RES_RUNS_POINTS a run's points are neither decoded nor kept.
 */
static int runs_add_path(struct res_runs *rs, const char *path, unsigned parts,
			 const struct runs_ctx *cx, res_runs_project_fn project, void *parg)
{
	char err[1024];
	char **files, **skip;
	struct res_ident *st;
	size_t n, nskip;
	if (res_find_stat(path, &files, &st, &n, &skip, &nskip, cx->err, cx->errlen))
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
	struct res_rec *v = rc ? NULL : realloc(rs->run, (rs->n + n + 1) * sizeof(*v));
	bool *done = v ? calloc(n + 1, sizeof(*done)) : NULL;
	if (!done) {
		snprintf(cx->err, cx->errlen, "out of memory");
		if (v)
			rs->run = v;
		for (size_t i = 0; i < n; i++)
			free(files[i]);
		free(files);
		free(st);
		return -1;
	}
	rs->run = v;
	struct res_rec *at = rs->run + rs->n;
	/* a results root (not one run's folder) keeps an index of its runs */
	struct res_index *ix = NULL;
	char why[4400];
	if (n && runs_is_root(path) && res_index_open(path, n, &ix, why, sizeof(why))) {
		ix = NULL;
		if (why[0])
			runs_warn(cx, "", why, "");
	}
	struct runs_fin fin = { parts, project, parg };
	if (ix && res_index_scan(ix, files, st, n, parts, at, done, runs_finish, &fin)) {
		runs_index_close(rs, ix, false);
		ix = NULL;
	}
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (rc) {
			if (done[i])
				res_rec_free(&at[i]);
			free(files[i]);
			continue;
		}
		struct res_rec r;
		if (done[i]) {
			r = at[i];     /* finished by the scan */
		} else if (res_read(files[i], RES_READ_KINDS, &r, err, sizeof(err))) {
			/* an input all the same: -o may not name it */
			if (runs_note(rs, files[i], &st[i], false) || runs_skip(rs, cx, err)) {
				snprintf(cx->err, cx->errlen, "out of memory");
				rc = -1;
			}
			free(files[i]);
			continue;
		} else {
			if (ix && S_ISREG(st[i].mode))
				res_index_put(ix, files[i], &st[i], &r);
			runs_finish(&r, &fin);
		}
		if (runs_note(rs, r.path, &st[i], true)) {
			snprintf(cx->err, cx->errlen, "out of memory");
			res_rec_free(&r);
			rc = -1;
		} else {
			at[kept++] = r;    /* kept <= i: the slot is free or its own */
		}
		free(files[i]);
	}
	rs->n += kept;
	free(files);
	free(st);
	free(done);
	if (ix)
		runs_index_close(rs, ix, !rc);
	return rc;
}

/*
 * An A/B's index folder (<stamp>-<workload>-ab/index.json, schema
 * jobmix-ab/N) holds no run.json: its runs are the folders its runs[].dir
 * name, relative to it.  Each is added as a path of its own; 1 when path
 * is such a folder (its runs added or an error set), 0 when it is not.
 */
static int runs_add_ab_index(struct res_runs *rs, const char *path, unsigned parts,
			     const struct runs_ctx *cx, res_runs_project_fn project, void *parg)
{
	char file[4096], dir[4096];
	struct stat st;
	snprintf(file, sizeof(file), "%s/index.json", path);
	snprintf(dir, sizeof(dir), "%s/run.json", path);
	if (stat(path, &st) || !S_ISDIR(st.st_mode) || access(file, R_OK) || !access(dir, F_OK))
		return 0;
	json_t *doc = json_load_file(file, 0, NULL);
	const char *schema = json_string_value(json_object_get(doc, "schema"));
	json_t *runs = json_object_get(doc, "runs");
	if (!schema || strncmp(schema, "jobmix-ab/", 10) || !json_is_array(runs)) {
		json_decref(doc);
		return 0;
	}
	size_t i;
	json_t *run;
	const char *prev = "";
	int rc = 1;
	json_array_foreach(runs, i, run) {
		const char *d = json_string_value(json_object_get(run, "dir"));
		if (!d || !d[0] || !strcmp(d, prev))
			continue;
		prev = d;
		snprintf(dir, sizeof(dir), "%s/%s", path, d);
		if (access(dir, F_OK)) {
			runs_warn(cx, "the A/B index names a run folder that is gone: '", dir, "'");
			continue;
		}
		if (runs_add_path(rs, dir, parts, cx, project, parg)) {
			rc = -1;
			break;
		}
	}
	json_decref(doc);
	return rc;
}

int res_runs_load_parts(struct res_runs *rs, char *const *paths, size_t npaths, unsigned parts,
			res_runs_project_fn project, void *parg, res_runs_warn_fn warn, void *arg,
			char *err, size_t errlen)
{
	const struct runs_ctx cx = { warn, arg, err, errlen };
	memset(rs, 0, sizeof(*rs));
	static char *const dflt[] = { "results" };
	if (!npaths) {
		paths = dflt;
		npaths = 1;
	}
	for (size_t i = 0; i < npaths; i++) {
		int ab = runs_add_ab_index(rs, paths[i], parts, &cx, project, parg);
		if (ab < 0 || (!ab && runs_add_path(rs, paths[i], parts, &cx, project, parg))) {
			res_runs_free(rs);
			return -1;
		}
	}
	return 0;
}

int res_runs_load(struct res_runs *rs, char *const *paths, size_t npaths, res_runs_warn_fn warn,
		  void *arg, char *err, size_t errlen)
{
	return res_runs_load_parts(rs, paths, npaths, RES_RUNS_POINTS | RES_RUNS_CURVES, NULL, NULL,
				   warn, arg, err, errlen);
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
