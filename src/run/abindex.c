// SPDX-License-Identifier: GPL-2.0-only
/* The A/B index (see abindex.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "abindex.h"
#include "jobmix/atomic.h"
#include "jobmix/results.h"

/* [A-Za-z0-9._-] kept, anything else '_' (as run folders are named). */
static void abx_sanitize(const char *in, char *out, size_t len)
{
	size_t n = 0;
	for (const char *c = in ? in : ""; *c && n + 1 < len && n < 64; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			  (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-';
		out[n++] = ok ? *c : '_';
	}
	out[n] = 0;
	if (!n)
		snprintf(out, len, "run");
}

int abx_create(struct abindex *x, const char *outdir, const char *wl_name,
	       const char *const *scheds, size_t nsched, bool matrix, const char *devices,
	       const char *originals, const char *order, const char *mode, unsigned rounds,
	       char *err, size_t errlen)
{
	char stamp[32], name[72], leaf[160];
	struct tm tm;
	time_t now = time(NULL);
	int pfd = -1;
	memset(x, 0, sizeof(*x));
	x->dirfd = -1;
	x->matrix = matrix;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	abx_sanitize(wl_name, name, sizeof(name));
	if (atom_mkdirs(outdir, err, errlen))
		return -1;
	pfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0) {
		snprintf(err, errlen, "open '%s' failed: %s", outdir, strerror(errno));
		return -1;
	}
	/* the folder held from its mkdir on (atom_mkdir_at): written through, never re-resolved */
	for (unsigned i = 1;; i++) {
		if (i == 1)
			snprintf(leaf, sizeof(leaf), "%s-%s-ab", stamp, name);
		else
			snprintf(leaf, sizeof(leaf), "%s-%s-ab-%u", stamp, name, i);
		snprintf(x->dir, sizeof(x->dir), "%s/%s", outdir, leaf);
		x->dirfd = atom_mkdir_at(pfd, leaf, 0755);
		if (x->dirfd >= 0)
			break;
		if (x->dirfd == ATOM_REFUSED || errno != EEXIST || i == 1000) {
			snprintf(err, errlen, "create A/B folder '%s' failed: %s", x->dir,
				 x->dirfd == ATOM_REFUSED ? "not the folder just made (replaced?)"
							  : strerror(errno));
			x->dirfd = -1;
			close(pfd);
			return -1;
		}
	}
	json_t *s = json_array(), *orig = json_object(), *devs = json_array();
	for (size_t i = 0; s && i < nsched; i++)
		json_array_append_new(s, json_string(scheds[i]));
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", devices ? devices : "");
	char *save = NULL;
	for (char *w = strtok_r(buf, " ", &save); devs && w; w = strtok_r(NULL, " ", &save))
		json_array_append_new(devs, json_string(w));
	snprintf(buf, sizeof(buf), "%s", originals ? originals : "");
	for (char *w = strtok_r(buf, " ", &save); orig && w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '=');
		if (eq) {
			*eq = 0;
			json_object_set_new(orig, w, json_string(eq + 1));
		}
	}
	x->doc = json_pack("{s:s, s:s, s:s?, s:o, s:o, s:o, s:s, s:s, s:i, s:[], s:[], s:n, s:n}",
			   "schema", "jobmix-ab/1", "status", "running", "workload", wl_name,
			   matrix ? "arms" : "schedulers", s, "devices", devs, "original", orig, "order", order,
			   "mode", mode, "rounds", (int)rounds, "runs", "sequence", "restored",
			   "restore_error");
	if (!x->doc || abx_write(x, err, errlen)) {
		if (!x->doc)
			snprintf(err, errlen, "out of memory building the A/B index");
		struct stat held, at;
		unlinkat(x->dirfd, "index.json", 0);
		if (!fstat(x->dirfd, &held) && !fstatat(pfd, leaf, &at, AT_SYMLINK_NOFOLLOW) &&
		    held.st_dev == at.st_dev && held.st_ino == at.st_ino)
			unlinkat(pfd, leaf, AT_REMOVEDIR);
		close(x->dirfd);
		x->dirfd = -1;
		close(pfd);
		json_decref(x->doc);
		x->doc = NULL;
		return -1;
	}
	close(pfd);
	return 0;
}

/* What an arm is called in runs[] and sequence[]: its scheduler, or a matrix's combination. */
static const char *abx_arm_key(const struct abindex *x)
{
	return x->matrix ? "arm" : "scheduler";
}

int abx_add_run(struct abindex *x, const char *sched, unsigned round, const char *run_dir)
{
	const char *base = strrchr(run_dir, '/');
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "../%s", base ? base + 1 : run_dir);
	json_t *runs = json_object_get(x->doc, "runs");
	return json_array_append_new(runs, json_pack("{s:s, s:i, s:s, s:s}", abx_arm_key(x), sched,
						      "round", (int)round, "dir", rel, "status",
						      "running"));
}

int abx_set_run_status(struct abindex *x, const char *run_dir, const char *status)
{
	const char *base = strrchr(run_dir, '/');
	base = base ? base + 1 : run_dir;
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(x->doc, "runs"), i, r) {
		const char *d = json_string_value(json_object_get(r, "dir"));
		if (d && !strcmp(d + 3, base))
			return json_object_set_new(r, "status", json_string(status));
	}
	return -1;
}

int abx_add_point(struct abindex *x, const char *sched, unsigned round, unsigned users,
		  unsigned sample)
{
	return json_array_append_new(json_object_get(x->doc, "sequence"),
				     json_pack("{s:s, s:i, s:i, s:i}", abx_arm_key(x), sched, "round",
					       (int)round, "users", (int)users, "sample",
					       (int)sample));
}

void abx_set_chart(struct abindex *x, const char *name)
{
	json_object_set_new(x->doc, "chart", json_string(name));
}

void abx_set_rounds(struct abindex *x, unsigned rounds, const char *why)
{
	json_object_set_new(x->doc, "rounds_run", json_integer(rounds));
	json_object_set_new(x->doc, "until_decided", why ? res_json_str(why) : json_null());
}

void abx_set_end(struct abindex *x, const char *status, int restored, const char *restore_error)
{
	json_object_set_new(x->doc, "status", json_string(status));
	json_object_set_new(x->doc, "restored", restored < 0 ? json_null() : json_boolean(restored));
	json_object_set_new(x->doc, "restore_error",
			    restore_error && restore_error[0] ? res_json_str(restore_error)
							      : json_null());
}

static int abx_fill(FILE *f, void *doc)
{
	if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER))
		return -1;
	return fputc('\n', f) == EOF ? -1 : 0;
}

int abx_write(struct abindex *x, char *err, size_t errlen)
{
	char e[1024];
	if (atom_write_at(x->dirfd, "index.json", abx_fill, x->doc, NULL, e, sizeof(e))) {
		snprintf(err, errlen, "A/B folder '%s': %s", x->dir, e);
		return -1;
	}
	return 0;
}

void abx_free(struct abindex *x)
{
	json_decref(x->doc);
	x->doc = NULL;
	if (x->dirfd >= 0)
		close(x->dirfd);
	x->dirfd = -1;
}
