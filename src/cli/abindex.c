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
	       const char *const *scheds, size_t nsched, const char *devices,
	       const char *originals, const char *order, const char *mode, unsigned rounds,
	       char *err, size_t errlen)
{
	char stamp[32], name[72];
	struct tm tm;
	time_t now = time(NULL);
	memset(x, 0, sizeof(*x));
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	abx_sanitize(wl_name, name, sizeof(name));
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "create '%s' failed: %s", outdir, strerror(errno));
		return -1;
	}
	for (unsigned i = 1;; i++) {
		if (i == 1)
			snprintf(x->dir, sizeof(x->dir), "%s/%s-%s-ab", outdir, stamp, name);
		else
			snprintf(x->dir, sizeof(x->dir), "%s/%s-%s-ab-%u", outdir, stamp, name, i);
		if (mkdir(x->dir, 0755) == 0)
			break;
		if (errno != EEXIST || i == 1000) {
			snprintf(err, errlen, "create A/B folder '%s' failed: %s", x->dir,
				 strerror(errno));
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
			   "schedulers", s, "devices", devs, "original", orig, "order", order,
			   "mode", mode, "rounds", (int)rounds, "runs", "sequence", "restored",
			   "restore_error");
	if (!x->doc || abx_write(x, err, errlen)) {
		if (!x->doc)
			snprintf(err, errlen, "out of memory building the A/B index");
		rmdir(x->dir);
		json_decref(x->doc);
		x->doc = NULL;
		return -1;
	}
	return 0;
}

int abx_add_run(struct abindex *x, const char *sched, unsigned round, const char *run_dir)
{
	const char *base = strrchr(run_dir, '/');
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "../%s", base ? base + 1 : run_dir);
	json_t *runs = json_object_get(x->doc, "runs");
	return json_array_append_new(runs, json_pack("{s:s, s:i, s:s, s:s}", "scheduler", sched,
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
				     json_pack("{s:s, s:i, s:i, s:i}", "scheduler", sched, "round",
					       (int)round, "users", (int)users, "sample",
					       (int)sample));
}

void abx_set_chart(struct abindex *x, const char *name)
{
	json_object_set_new(x->doc, "chart", json_string(name));
}

void abx_set_end(struct abindex *x, const char *status, int restored, const char *restore_error)
{
	json_object_set_new(x->doc, "status", json_string(status));
	json_object_set_new(x->doc, "restored", restored < 0 ? json_null() : json_boolean(restored));
	json_object_set_new(x->doc, "restore_error",
			    restore_error && restore_error[0] ? res_json_str(restore_error)
							      : json_null());
}

int abx_write(struct abindex *x, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], tmp[PATH_MAX + 48];
	snprintf(path, sizeof(path), "%s/index.json", x->dir);
	snprintf(tmp, sizeof(tmp), "%s/.index.json.tmp", x->dir);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		goto fail;
	if (json_dumpfd(x->doc, fd, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || write(fd, "\n", 1) != 1 ||
	    fsync(fd)) {
		close(fd);
		goto fail;
	}
	if (close(fd) || rename(tmp, path))
		goto fail;
	return 0;
fail:
	snprintf(err, errlen, "write '%s' failed: %s", path, strerror(errno));
	unlink(tmp);
	return -1;
}

void abx_free(struct abindex *x)
{
	json_decref(x->doc);
	x->doc = NULL;
}
