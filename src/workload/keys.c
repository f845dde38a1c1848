// SPDX-License-Identifier: GPL-2.0-only
/*
 * The workload's keys, declared once (see wl_keys.h), and the pure
 * operations on them: parse a value from text, format it back, defaults,
 * the defaults that depend on other keys, checks across keys, and the key
 * reference.  No YAML here: the loader walks the document and hands each
 * scalar to wl_key_set(); `jobmix run` hands it option values.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobmix/parse.h"
#include "jobmix/wl_keys.h"

static const char *const layout_names[] = { "shared", "per_user", NULL };
static const char *const ramp_names[] = { "linear", "peak", "converge", "crossover", NULL };
static const char *const as_names[] = { "processes", "threads", NULL };
static const char *const measure_names[] = { "jobs", "time", NULL };
static const char *const sync_names[] = { "none", "file", "global", "exec", NULL };

#define OFF(m) offsetof(struct workload, m)
#define YEAR JM_DURATION_MAX

const struct wl_key wl_keys[] = {
	{ "name", WK_NAME, OFF(name), 0, 0, NULL, NULL, NULL,
	  "the workload's name (results folders carry it); default: the file name" },
	{ "description", WK_TEXT, OFF(description), 0, 0, "", NULL, NULL,
	  "free text" },
	{ "files", WK_SECTION, 0, 0, 0, NULL, NULL, NULL, "the job files" },
	{ "files.filesize", WK_SIZE, OFF(filesize), 1024, 1ull << 40, "10k", NULL, "filesize",
	  "AIM7 FILESIZE: fixed part of each job file" },
	{ "files.poolsize", WK_SIZE, OFF(poolsize), 0, 1ull << 40, "1m", NULL, "poolsize",
	  "AIM7 POOLSIZE: each job file is filesize + poolsize/users" },
	{ "files.dirs", WK_DIRS, 0, 1, 1024, "./jobmix-work", NULL, "dirs",
	  "one or more work directories (or one string); users are spread over them" },
	{ "files.layout", WK_ENUM, OFF(layout), 0, 0, "shared", layout_names, "layout",
	  "shared (re-aim: users share each directory) or per_user (a private one each)" },
	{ "users", WK_SECTION, 0, 0, 0, NULL, NULL, NULL, "the ramp of simulated users" },
	{ "users.start", WK_UINT, OFF(users.start), 1, 1000000, "1", NULL, "users.start",
	  "first user count" },
	{ "users.end", WK_END, OFF(users.end), 1, 1000000, "auto", NULL, "users.end",
	  "last user count (linear; auto: start) or the most an adaptive ramp may try" },
	{ "users.step", WK_STEP, OFF(users.step), 1, 1000000, "auto", NULL, "users.step",
	  "linear step, xF for a geometric list (x2: 1, 2, 4...), auto: 1" },
	{ "users.jobs_per_user", WK_UINT, OFF(users.jobs_per_user), 1, 1000000, "100", NULL,
	  "users.jobs_per_user", "AIM7's jobs per user per load point" },
	{ "users.mode", WK_ENUM, OFF(users.mode), 0, 0, "linear", ramp_names, "users.mode",
	  "ramp: linear, peak (to the peak), converge (past it), crossover" },
	{ "users.repeat", WK_REPEAT, OFF(users.repeat), 1, 100, "1", NULL, "users.repeat",
	  "samples per point, or auto (re-measure only the points that decide)" },
	{ "users.as", WK_ENUM, OFF(users.as), 0, 0, "processes", as_names, "users.as",
	  "users as processes (AIM7) or threads of one process (sysbench style)" },
	{ "users.converge_jpm_per_user", WK_REAL, OFF(users.converge_jpm_per_user), 0, 1e9,
	  "60", NULL, "users.converge_jpm_per_user",
	  "convergence: JPM per user at most this (default 60; crossover: 10)" },
	{ "users.max_points", WK_UINT, OFF(users.max_points), 0, 1000000, "0", NULL,
	  "users.max_points", "budget: load points measured (0: none)" },
	{ "users.max_time", WK_DURATION, OFF(users.max_time_s), 0, YEAR, "0", NULL,
	  "users.max_time_s", "budget: wall time, e.g. 2h (0: none)" },
	{ "sync", WK_ENUM, OFF(sync), 0, 0, "file", sync_names, "sync",
	  "what a sync point does: none (re-aim -y), file (fsync), global (sync(2)), exec (re-aim)" },
	{ "seed", WK_U64, OFF(seed), 0, 18446744073709551615.0, "1", NULL, "seed",
	  "run seed: job order and offsets" },
	{ "measure", WK_SECTION, 0, 0, 0, NULL, NULL, NULL, "how a load point is measured" },
	{ "measure.mode", WK_ENUM, OFF(measure.how), 0, 0, "jobs", measure_names, "measure.how",
	  "jobs (AIM7: fixed jobs per user) or time (fixed duration)" },
	{ "measure.duration", WK_DURATION, OFF(measure.duration_s), 1, YEAR, "30s", NULL,
	  "measure.duration_s", "time mode: length of each point" },
	{ "measure.ramp", WK_DURATION, OFF(measure.ramp_s), 0, YEAR, "0s", NULL, "measure.ramp_s",
	  "time mode: warm-up at the start of a point, not counted" },
	{ "measure.steady", WK_STEADY, OFF(measure.steady_pct), 0, 100, "off", NULL,
	  "measure.steady_pct", "time mode: steady-state band, e.g. \"jpm:2%\" (off: none)" },
	{ "measure.steady_windows", WK_UINT, OFF(measure.steady_windows), 2, 1000, "5", NULL,
	  "measure.steady_windows", "... over the last N one-second intervals" },
	{ "measure.settle", WK_BOOL, OFF(measure.settle), 0, 1, "true", NULL, "measure.settle",
	  "before each point: sync, wait for dirty pages to drain" },
	{ "measure.settle_timeout", WK_DURATION, OFF(measure.settle_timeout_s), 1, YEAR, "10s",
	  NULL, "measure.settle_timeout_s", "... at most this long" },
	{ "measure.drop_caches", WK_BOOL, OFF(measure.drop_caches), 0, 1, "false", NULL,
	  "measure.drop_caches", "... and drop the page cache (root)" },
	{ "measure.warmup", WK_BOOL, OFF(measure.warmup), 0, 1, "true", NULL, "measure.warmup",
	  "an unrecorded short pass before the first point" },
	{ "measure.require_quiet", WK_DURATION, OFF(measure.require_quiet_s), 0, YEAR, "0s", NULL,
	  "measure.require_quiet_s", "before each point wait, at most this long, until other "
	  "work takes at most 10% of the CPUs for a second (0: do not wait)" },
	{ "measure.interference_max", WK_REAL, OFF(measure.interference_max_pct), 0, 100, "auto",
	  NULL, "measure.interference_max_pct", "a sample during which other work took more than "
	  "this % of the CPUs is measured again (auto, 0 in run.json: the median of the run's "
	  "quiet samples + 10 (or half the rest), at least 15)" },
	{ "measure.remeasure", WK_UINT, OFF(measure.remeasure), 0, 100, "2", NULL,
	  "measure.remeasure", "... at most this many times a point; then it is kept, flagged "
	  "(0: flag only)" },
	{ "measure.point_noise", WK_PCT, OFF(measure.point_noise_pct), 0.5, 50, "off", NULL,
	  "measure.point_noise_pct", "size the points from the noise: pilot samples whose "
	  "relative sd is over this % make every point 2, 4, 8 or 16 times longer (off: no)" },
	{ "measure.mem_limit", WK_SIZE, OFF(measure.mem_limit), 0, 1ull << 50, "0", NULL,
	  "measure.mem_limit", "run the users in a memory cgroup of this size, so files larger "
	  "than it come from the device (root; 0: none)" },
	{ "mix", WK_MIX, 0, 1, 4096, NULL, NULL, "mix",
	  "the weighted jobs: - {job: KIND, weight: N, name: LABEL, PARAM: VALUE...}" },
};

const size_t wl_nkeys = sizeof(wl_keys) / sizeof(wl_keys[0]);

_Static_assert(sizeof(wl_keys) / sizeof(wl_keys[0]) <= 64, "workload.set has 64 bits");

const struct wl_key *wl_key_find(const char *path)
{
	for (size_t i = 0; i < wl_nkeys; i++)
		if (!strcmp(wl_keys[i].path, path))
			return &wl_keys[i];
	return NULL;
}

const char *wl_key_suggest(const char *path)
{
	const char *paths[sizeof(wl_keys) / sizeof(wl_keys[0]) + 1];
	for (size_t i = 0; i < wl_nkeys; i++)
		paths[i] = wl_keys[i].path;
	paths[wl_nkeys] = NULL;
	return jm_suggest(path, paths);
}

size_t wl_key_index(const struct wl_key *k)
{
	return (size_t)(k - wl_keys);
}

bool wl_key_is_set(const struct workload *wl, const struct wl_key *k)
{
	return (wl->set >> wl_key_index(k)) & 1;
}

static const char *leaf(const char *path)
{
	const char *dot = strrchr(path, '.');
	return dot ? dot + 1 : path;
}

const char *wl_key_what(const struct wl_key *k, char *buf, size_t len)
{
	const char *l = leaf(k->path);
	for (size_t i = 0; i < wl_nkeys; i++)
		if (&wl_keys[i] != k && !strcmp(leaf(wl_keys[i].path), l)) {
			snprintf(buf, len, "%s", k->path);
			return buf;
		}
	snprintf(buf, len, "%s", l);
	return buf;
}

enum wl_kclass wl_key_class(const struct wl_key *k)
{
	switch (k->type) {
	case WK_SECTION: return WKC_SECTION;
	case WK_DIRS: return WKC_DIRS;
	case WK_MIX: return WKC_MIX;
	case WK_TEXT: return WKC_TEXT;
	case WK_NAME:
	case WK_UINT:
	case WK_U64:
	case WK_SIZE:
	case WK_DURATION:
	case WK_BOOL:
	case WK_ENUM:
	case WK_REAL:
	case WK_END:
	case WK_STEP:
	case WK_REPEAT:
	case WK_STEADY:
	case WK_PCT:
		return WKC_SCALAR;
	}
	return WKC_SCALAR;
}

const char *wl_key_type_name(const struct wl_key *k)
{
	switch (k->type) {
	case WK_SECTION: return "section";
	case WK_NAME: return "name";
	case WK_TEXT: return "text";
	case WK_UINT: return "int";
	case WK_U64: return "int";
	case WK_SIZE: return "size";
	case WK_DURATION: return "duration";
	case WK_BOOL: return "bool";
	case WK_ENUM: return "enum";
	case WK_REAL: return "number";
	case WK_END: return "int|auto";
	case WK_STEP: return "int|xF|auto";
	case WK_REPEAT: return "int|auto";
	case WK_STEADY: return "band|off";
	case WK_PCT: return "pct|off";
	case WK_DIRS: return "dirs";
	case WK_MIX: return "list";
	}
	return "?";
}

/* ---- parsing one value ------------------------------------------------- */

/* A whole number in [min, max]: digits only, no sign or suffix. */
static int parse_uint(const char *what, const char *s, uint64_t min, uint64_t max,
		      uint64_t *out, char *err, size_t errlen)
{
	if (s[0] == '-' && isdigit((unsigned char)s[1])) {
		snprintf(err, errlen, "'%s' must not be negative, got '%s'", what, s);
		return -1;
	}
	for (const char *p = s; *p || p == s; p++)
		if (!isdigit((unsigned char)*p)) {
			snprintf(err, errlen, "'%s' expects a whole number, got '%s'", what, s);
			return -1;
		}
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno == ERANGE || v > max) {
		snprintf(err, errlen, "'%s' value %s is too large (at most %llu)", what, s,
			 (unsigned long long)max);
		return -1;
	}
	if (v < min) {
		snprintf(err, errlen, "'%s' must be at least %llu, got %s", what,
			 (unsigned long long)min, s);
		return -1;
	}
	*out = v;
	return 0;
}

static uint64_t key_max_u64(const struct wl_key *k)
{
	return k->max >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)k->max;
}

/* "jpm:2%", "2%", "2" (percent), or off / none / 0. */
static int parse_steady(const char *s, double *out, char *err, size_t errlen)
{
	const char *p = s;
	if (!strcmp(s, "off") || !strcmp(s, "none") || !strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	const char *colon = strchr(s, ':');
	if (colon) {
		if (strncasecmp(s, "jpm:", 4)) {
			snprintf(err, errlen, "'steady' measures only jpm (like \"jpm:2%%\"), got '%s'", s);
			return -1;
		}
		p = colon + 1;
	}
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || !isdigit((unsigned char)*p) || (*end && strcmp(end, "%")) || errno ||
	    !isfinite(v)) {
		snprintf(err, errlen, "'steady' expects a band like \"jpm:2%%\" or off, got '%s'", s);
		return -1;
	}
	if (v <= 0 || v > 100) {
		snprintf(err, errlen, "'steady' band must be above 0%% and at most 100%%, got '%s'", s);
		return -1;
	}
	*out = v;
	return 0;
}

/* A percentage in [k->min, k->max]: "3%" or "3", or off / none / 0 (0). */
static int parse_pct(const struct wl_key *k, const char *what, const char *s, double *out,
		     char *err, size_t errlen)
{
	if (!strcmp(s, "off") || !strcmp(s, "none") || !strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || !isdigit((unsigned char)*s) || (*end && strcmp(end, "%")) || errno ||
	    !isfinite(v)) {
		snprintf(err, errlen, "'%s' expects a percentage like 3%% or off, got '%s'", what, s);
		return -1;
	}
	if (v < k->min || v > k->max) {
		snprintf(err, errlen, "'%s' must be from %g%% to %g%% (or off), got '%s'", what,
			 k->min, k->max, s);
		return -1;
	}
	*out = v;
	return 0;
}

/* A name usable in file and folder names: [A-Za-z0-9._-], not starting with '.' or '-'. */
static bool good_name(const char *s)
{
	size_t len = strlen(s);
	if (!len || len >= WL_NAME_LEN || s[0] == '.' || s[0] == '-')
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return false;
	return true;
}

/* A number key whose default is auto: auto is 0 (the value derived at run time). */
static bool wl_key_real_auto(const struct wl_key *k)
{
	return k->def && !strcmp(k->def, "auto");
}

static int replace_str(char **at, const char *s, char *err, size_t errlen)
{
	char *d = strdup(s);
	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	free(*at);
	*at = d;
	return 0;
}

int wl_key_set(const struct wl_key *k, struct workload *wl, const char *text, char *err,
	       size_t errlen)
{
	char what[64], msg[200];
	char *at = (char *)wl + k->offset;
	const char *s = text;
	bool is_auto = !strcmp(s, "auto");
	uint64_t v;
	double d;
	wl_key_what(k, what, sizeof(what));
	switch (k->type) {
	case WK_SECTION:
	case WK_DIRS:
	case WK_MIX:
		snprintf(err, errlen, "'%s' is not a single value", k->path);
		return -1;
	case WK_NAME:
		if (!good_name(s)) {
			snprintf(err, errlen, "'%s' must be 1-%d letters, digits, '.', '_' or '-' "
				 "(not starting with '.' or '-'), got '%s'", what, WL_NAME_LEN - 1, s);
			return -1;
		}
		if (replace_str((char **)at, s, err, errlen))
			return -1;
		break;
	case WK_TEXT:
		if (replace_str((char **)at, s, err, errlen))
			return -1;
		break;
	case WK_UINT:
		if (parse_uint(what, s, (uint64_t)k->min, (uint64_t)k->max, &v, err, errlen))
			return -1;
		*(unsigned *)at = (unsigned)v;
		break;
	case WK_U64:
		if (parse_uint(what, s, 0, key_max_u64(k), &v, err, errlen))
			return -1;
		*(uint64_t *)at = v;
		break;
	case WK_SIZE:
		if (s[0] == '-') {
			snprintf(err, errlen, "'%s' must not be negative, got '%s'", what, s);
			return -1;
		}
		if (jm_parse_size(s, &v, msg, sizeof(msg))) {
			snprintf(err, errlen, "bad value for '%s': %s", what, msg);
			return -1;
		}
		if ((double)v < k->min || (double)v > k->max) {
			char lo[32], hi[32];
			jm_format_size((uint64_t)k->min, lo, sizeof(lo));
			jm_format_size((uint64_t)k->max, hi, sizeof(hi));
			snprintf(err, errlen, "'%s' %s is out of range [%s, %s]", what, s, lo, hi);
			return -1;
		}
		*(uint64_t *)at = v;
		break;
	case WK_DURATION:
		if (s[0] == '-') {
			snprintf(err, errlen, "'%s' must not be negative, got '%s'", what, s);
			return -1;
		}
		if (jm_parse_duration(s, &d, msg, sizeof(msg))) {
			snprintf(err, errlen, "bad value for '%s': %s", what, msg);
			return -1;
		}
		if (d > k->max) {
			snprintf(err, errlen, "'%s' %s is too long (at most a year)", what, s);
			return -1;
		}
		if (d == 0 && k->min > 0) {
			snprintf(err, errlen, "'%s' must be longer than 0, got '%s'", what, s);
			return -1;
		}
		*(double *)at = d;
		break;
	case WK_BOOL: {
		bool b;
		if (jm_parse_bool(s, &b, msg, sizeof(msg))) {
			snprintf(err, errlen, "bad value for '%s': %s", what, msg);
			return -1;
		}
		*(bool *)at = b;
		break;
	}
	case WK_ENUM: {
		int idx = -1;
		for (int i = 0; k->choices[i]; i++)
			if (!strcmp(k->choices[i], s))
				idx = i;
		if (idx < 0) {
			char list[128];
			const char *near = jm_suggest(s, k->choices);
			jm_join(k->choices, list, sizeof(list));
			snprintf(err, errlen, "'%s' must be one of %s, got '%s'%s%s%s", what, list, s,
				 near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
			return -1;
		}
		memcpy(at, &idx, sizeof(idx));
		break;
	}
	case WK_REAL:
		if (is_auto && wl_key_real_auto(k)) {
			*(double *)at = 0;
			break;
		}
		if (jm_parse_double(s, k->min, k->max, &d, msg, sizeof(msg))) {
			snprintf(err, errlen, "bad value for '%s': %s", what, msg);
			return -1;
		}
		if (d <= k->min) {
			snprintf(err, errlen, "'%s' must be above %g, got '%s'", what, k->min, s);
			return -1;
		}
		*(double *)at = d;
		break;
	case WK_END:
		if (is_auto) {
			*(unsigned *)at = 0;
			break;
		}
		if (parse_uint(what, s, (uint64_t)k->min, (uint64_t)k->max, &v, err, errlen))
			return -1;
		*(unsigned *)at = (unsigned)v;
		break;
	case WK_STEP:
		wl->users.geometric = false;
		if (is_auto) {
			*(unsigned *)at = 0;
			break;
		}
		if (s[0] == 'x') {
			/* x2: a geometric list, each point `step` times the last */
			if (parse_uint("step factor", s + 1, 2, 1024, &v, err, errlen))
				return -1;
			wl->users.geometric = true;
		} else if (parse_uint(what, s, (uint64_t)k->min, (uint64_t)k->max, &v, err, errlen)) {
			return -1;
		}
		*(unsigned *)at = (unsigned)v;
		break;
	case WK_REPEAT:
		wl->users.repeat_auto = is_auto;
		*(unsigned *)at = 1;
		if (is_auto)
			break;
		if (parse_uint(what, s, (uint64_t)k->min, (uint64_t)k->max, &v, err, errlen))
			return -1;
		*(unsigned *)at = (unsigned)v;
		break;
	case WK_STEADY:
		if (parse_steady(s, &d, err, errlen))
			return -1;
		*(double *)at = d;
		break;
	case WK_PCT:
		if (parse_pct(k, what, s, &d, err, errlen))
			return -1;
		*(double *)at = d;
		break;
	}
	wl->set |= 1ull << wl_key_index(k);
	return 0;
}

/* ---- formatting -------------------------------------------------------- */

static void format_double(double v, char *buf, size_t len);

/*
 * Seconds in the largest whole unit: 600 -> "10m", 0.5 -> "500ms"; else in
 * seconds with the digits that read back the same (1.0000000001s, not 1s).
 */
static void format_duration(double s, char *buf, size_t len)
{
	if (s == floor(s) && s < 1e15) {
		unsigned long long v = (unsigned long long)s;
		if (v && v % 3600 == 0)
			snprintf(buf, len, "%lluh", v / 3600);
		else if (v && v % 60 == 0)
			snprintf(buf, len, "%llum", v / 60);
		else
			snprintf(buf, len, "%llus", v);
		return;
	}
	double back;
	snprintf(buf, len, "%.0fms", s * 1000);
	if (s * 1000 == floor(s * 1000) && !jm_parse_duration(buf, &back, NULL, 0) && back == s)
		return;
	char num[40];
	format_double(s, num, sizeof(num));
	snprintf(buf, len, "%ss", num);
}

/* A double in the fewest digits that read back the same. */
static void format_double(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}

void wl_key_format(const struct wl_key *k, const struct workload *wl, char *buf, size_t len)
{
	const char *at = (const char *)wl + k->offset;
	char tmp[64];
	buf[0] = 0;
	switch (k->type) {
	case WK_SECTION:
	case WK_DIRS:
	case WK_MIX:
		return;
	case WK_NAME:
	case WK_TEXT: {
		const char *s = *(char *const *)at;
		snprintf(buf, len, "%s", s ? s : "");
		return;
	}
	case WK_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)at);
		return;
	case WK_U64:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)at);
		return;
	case WK_SIZE:
		jm_format_size(*(const uint64_t *)at, buf, len);
		return;
	case WK_DURATION:
		format_duration(*(const double *)at, buf, len);
		return;
	case WK_BOOL:
		snprintf(buf, len, "%s", *(const bool *)at ? "true" : "false");
		return;
	case WK_ENUM: {
		int idx;
		memcpy(&idx, at, sizeof(idx));
		snprintf(buf, len, "%s", k->choices[idx]);
		return;
	}
	case WK_REAL:
		if (*(const double *)at == 0 && wl_key_real_auto(k))
			snprintf(buf, len, "auto");
		else
			format_double(*(const double *)at, buf, len);
		return;
	case WK_END: {
		unsigned v = *(const unsigned *)at;
		if (v)
			snprintf(buf, len, "%u", v);
		else
			snprintf(buf, len, "auto");
		return;
	}
	case WK_STEP: {
		unsigned v = *(const unsigned *)at;
		if (!v)
			snprintf(buf, len, "auto");
		else
			snprintf(buf, len, "%s%u", wl->users.geometric ? "x" : "", v);
		return;
	}
	case WK_REPEAT:
		if (wl->users.repeat_auto)
			snprintf(buf, len, "auto");
		else
			snprintf(buf, len, "%u", *(const unsigned *)at);
		return;
	case WK_STEADY: {
		double v = *(const double *)at;
		if (v > 0) {
			format_double(v, tmp, sizeof(tmp));
			snprintf(buf, len, "jpm:%s%%", tmp);
		} else {
			snprintf(buf, len, "off");
		}
		return;
	}
	case WK_PCT: {
		double v = *(const double *)at;
		if (v > 0) {
			format_double(v, tmp, sizeof(tmp));
			snprintf(buf, len, "%s%%", tmp);
		} else {
			snprintf(buf, len, "off");
		}
		return;
	}
	}
}

/* ---- directories ------------------------------------------------------- */

int wl_dir_check(const struct workload *wl, const char *dir, char *err, size_t errlen)
{
	if (!*dir) {
		snprintf(err, errlen, "directory name is empty");
		return -1;
	}
	if (strlen(dir) >= PATH_MAX) {
		snprintf(err, errlen, "directory name is too long");
		return -1;
	}
	for (size_t j = 0; j < wl->ndirs; j++)
		if (wl->dirs[j] && !strcmp(wl->dirs[j], dir)) {
			snprintf(err, errlen, "directory '%s' is listed twice", dir);
			return -1;
		}
	return 0;
}

int wl_set_dirs(struct workload *wl, const char *const *dirs, size_t n, char *err, size_t errlen)
{
	const struct wl_key *k = wl_key_find("files.dirs");
	if (!n) {
		snprintf(err, errlen, "'dirs' is an empty list; give at least one directory");
		return -1;
	}
	if (n > (size_t)k->max) {
		snprintf(err, errlen, "'dirs' lists %zu directories (at most %.0f)", n, k->max);
		return -1;
	}
	char **list = calloc(n, sizeof(*list));
	if (!list) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	struct workload tmp = { .dirs = list };
	for (size_t i = 0; i < n; i++) {
		if (wl_dir_check(&tmp, dirs[i], err, errlen) || !(list[i] = strdup(dirs[i]))) {
			if (list[i] == NULL && !err[0])
				snprintf(err, errlen, "out of memory");
			for (size_t j = 0; j < tmp.ndirs; j++)
				free(list[j]);
			free(list);
			return -1;
		}
		tmp.ndirs++;
	}
	for (size_t i = 0; i < wl->ndirs; i++)
		free(wl->dirs[i]);
	free(wl->dirs);
	wl->dirs = list;
	wl->ndirs = n;
	wl->set |= 1ull << wl_key_index(k);
	return 0;
}

/* ---- defaults and checks ----------------------------------------------- */

int wl_defaults(struct workload *wl, const char *path)
{
	char err[256];
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	char name[WL_NAME_LEN];
	snprintf(name, sizeof(name), "%s", base);
	size_t len = strlen(name);
	if (len > 5 && !strcmp(name + len - 5, ".yaml"))
		name[len - 5] = 0;
	else if (len > 4 && !strcmp(name + len - 4, ".yml"))
		name[len - 4] = 0;
	for (char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			*p = '_';
	if (name[0] == '.' || name[0] == '-')
		name[0] = '_';
	if (!(wl->name = strdup(name[0] ? name : "workload")))
		return -1;
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		if (!k->def)
			continue;
		if (k->type == WK_DIRS) {
			if (wl_set_dirs(wl, &k->def, 1, err, sizeof(err)))
				return -1;
		} else if (wl_key_set(k, wl, k->def, err, sizeof(err))) {
			return -1;   /* a bad default is a bug the key tests catch */
		}
	}
	wl->set = 0;
	return 0;
}

void wl_resolve(struct workload *wl)
{
	struct wl_users *u = &wl->users;
	bool linear = u->mode == WL_RAMP_LINEAR;
	/* what was not given follows what was: a linear ramp ends at its start */
	if (!wl_key_is_set(wl, wl_key_find("users.end")))
		u->end = linear ? u->start : 0;
	if (!wl_key_is_set(wl, wl_key_find("users.step"))) {
		u->step = linear ? 1 : 0;
		u->geometric = false;
	}
	if (linear && !u->end)
		u->end = u->start;
	if (linear && !u->step)
		u->step = 1;
	if (!wl_key_is_set(wl, wl_key_find("users.converge_jpm_per_user")))
		u->converge_jpm_per_user = u->mode == WL_RAMP_CROSSOVER ? 10 : 60;
}

int wl_check(const struct workload *wl, const struct wl_key **key, size_t *entry, char *err,
	     size_t errlen)
{
	*key = NULL;
	*entry = (size_t)-1;
	if (wl->users.end && wl->users.end < wl->users.start) {
		*key = wl_key_find("users.end");
		snprintf(err, errlen, "users.end (%u) is below users.start (%u)", wl->users.end,
			 wl->users.start);
		return -1;
	}
	if (wl->measure.ramp_s >= wl->measure.duration_s) {
		*key = wl_key_find("measure.ramp");
		snprintf(err, errlen, "measure.ramp must be shorter than measure.duration");
		return -1;
	}
	for (size_t i = 0; wl->users.as == WL_USERS_THREADS && i < wl->nmix; i++)
		if (wl->mix[i].weight && (wl->mix[i].kind->flags & JOB_PROCESS_ONLY)) {
			*key = wl_key_find("users.as");
			*entry = i;
			snprintf(err, errlen, "job '%s' cannot run with users as threads",
				 wl->mix[i].kind->name);
			return -1;
		}
	return 0;
}

/* ---- the reference ----------------------------------------------------- */

static void range_text(const struct wl_key *k, char *buf, size_t len)
{
	char lo[32], hi[32];
	buf[0] = 0;
	switch (k->type) {
	case WK_SECTION:
	case WK_NAME:
	case WK_TEXT:
	case WK_BOOL:
	case WK_MIX:
	case WK_DIRS:
		return;
	case WK_ENUM:
		for (int i = 0; k->choices[i]; i++) {
			if (i)
				strncat(buf, ", ", len - strlen(buf) - 1);
			strncat(buf, k->choices[i], len - strlen(buf) - 1);
		}
		return;
	case WK_UINT:
	case WK_END:
	case WK_STEP:
	case WK_REPEAT:
		snprintf(buf, len, "%.0f..%.0f", k->min, k->max);
		return;
	case WK_U64:
		snprintf(buf, len, "0..2^64-1");
		return;
	case WK_SIZE:
		jm_format_size((uint64_t)k->min, lo, sizeof(lo));
		jm_format_size((uint64_t)k->max, hi, sizeof(hi));
		snprintf(buf, len, "%s..%s", lo, hi);
		return;
	case WK_DURATION:
		snprintf(buf, len, "%s..366d", k->min > 0 ? ">0" : "0");
		return;
	case WK_REAL:
		snprintf(buf, len, ">%g..%g%s", k->min, k->max, wl_key_real_auto(k) ? "|auto" : "");
		return;
	case WK_STEADY:
		snprintf(buf, len, ">0%%..100%%");
		return;
	case WK_PCT:
		snprintf(buf, len, "%g%%..%g%%|off", k->min, k->max);
		return;
	}
}

void wl_keys_print(FILE *f, bool markdown)
{
	if (markdown)
		fprintf(f, "| key | type | default | range | what it is |\n|---|---|---|---|---|\n");
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		char range[128];
		range_text(k, range, sizeof(range));
		const char *def = k->def ? k->def : "-";
		if (k->type == WK_SECTION)
			def = "";
		if (markdown)
			fprintf(f, "| `%s` | %s | %s%s%s | %s | %s |\n", k->path, wl_key_type_name(k),
				def[0] && def[0] != '-' ? "`" : "", def[0] ? def : "",
				def[0] && def[0] != '-' ? "`" : "", range, k->help);
		else
			fprintf(f, "%-28s %-12s %-14s %-18s %s\n", k->path, wl_key_type_name(k),
				def, range, k->help);
	}
}
