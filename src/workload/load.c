// SPDX-License-Identifier: GPL-2.0-only
/*
 * YAML workload file -> struct workload: read (regular files only, size
 * capped), hash (SHA-256), parse with libyaml's document API, bound the
 * document (nodes reachable through aliases, nesting, alias cycles), then
 * walk it against the schema, filling defaults.  Every error names the
 * file, the 1-based line and column of the offending node and, where one
 * is close, a "did you mean".  The only file that includes <yaml.h>.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <yaml.h>

#include "jobmix/job.h"
#include "jobmix/parse.h"
#include "jobmix/workload.h"

/* State of one load: where messages go and what is being filled. */
struct ld {
	const char *path;
	yaml_document_t *doc;
	struct wl_error *err;
	struct workload *wl;
	const yaml_node_t *as_node;    /* users.as, for the threads check */
	bool cjpm_set;                 /* converge_jpm_per_user was given */
};

static const char *const top_keys[] = { "name", "description", "files", "users", "sync",
					"seed", "measure", "mix", NULL };
static const char *const files_keys[] = { "filesize", "poolsize", "dirs", "layout", NULL };
static const char *const layout_names[] = { "shared", "per_user", NULL };
static const char *const users_keys[] = { "start", "end", "step", "jobs_per_user", "mode",
					  "repeat", "as", "converge_jpm_per_user",
					  "max_points", "max_time", NULL };
static const char *const measure_keys[] = { "mode", "duration", "ramp", "steady",
					    "steady_windows", "settle", "settle_timeout",
					    "drop_caches", "warmup", NULL };
static const char *const entry_keys[] = { "job", "weight", "name", NULL };

static const char *const ramp_names[] = { "linear", "peak", "converge", "crossover", NULL };
static const char *const as_names[] = { "processes", "threads", NULL };
static const char *const measure_names[] = { "jobs", "time", NULL };
static const char *const sync_names[] = { "none", "file", "global", "exec", NULL };

/* ---- messages --------------------------------------------------------- */

/* "FILE:LINE:COL: message" for node n (1:1 when there is no node). */
__attribute__((format(printf, 3, 4)))
static int ld_fail(struct ld *L, const yaml_node_t *n, const char *fmt, ...)
{
	size_t line = n ? n->start_mark.line + 1 : 1, col = n ? n->start_mark.column + 1 : 1;
	int off = snprintf(L->err->msg, sizeof(L->err->msg), "%s:%zu:%zu: ", L->path, line, col);
	if (off < 0 || (size_t)off >= sizeof(L->err->msg))
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(L->err->msg + off, sizeof(L->err->msg) - (size_t)off, fmt, ap);
	va_end(ap);
	return -1;
}

/* Join a NULL-terminated word list with ", " into buf. */
static void ld_join(const char *const *words, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; words[i]; i++) {
		if (i)
			strncat(buf, ", ", len - strlen(buf) - 1);
		strncat(buf, words[i], len - strlen(buf) - 1);
	}
}

/* " (did you mean 'x'?)" or "" */
static void ld_hint(const char *s, const char *const *candidates, char *buf, size_t len)
{
	const char *near = jm_suggest(s, candidates);
	if (near)
		snprintf(buf, len, " (did you mean '%s'?)", near);
	else
		buf[0] = 0;
}

/* ---- node access ------------------------------------------------------ */

static yaml_node_t *ld_node(const struct ld *L, int index)
{
	return yaml_document_get_node(L->doc, index);
}

static bool ld_is_null(const yaml_node_t *n)
{
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *v = (const char *)n->data.scalar.value;
	return !*v || !strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") ||
	       !strcmp(v, "NULL");
}

static const char *ld_what(const yaml_node_t *n)
{
	switch (n->type) {
	case YAML_MAPPING_NODE: return "a mapping";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_SCALAR_NODE: return ld_is_null(n) ? "nothing (null)" : "a single value";
	default: return "an empty node";
	}
}

/* The text of a scalar node that must hold a value; `what` names it in messages. */
static int ld_scalar(struct ld *L, const yaml_node_t *n, const char *what, const char **out)
{
	if (n->type != YAML_SCALAR_NODE)
		return ld_fail(L, n, "'%s' expects a single value, got %s", what, ld_what(n));
	if (ld_is_null(n))
		return ld_fail(L, n, "'%s' has no value", what);
	if (strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return ld_fail(L, n, "'%s' contains a NUL character", what);
	*out = (const char *)n->data.scalar.value;
	return 0;
}

static int ld_mapping(struct ld *L, const yaml_node_t *n, const char *what)
{
	if (n->type != YAML_MAPPING_NODE)
		return ld_fail(L, n, "'%s' expects a mapping (key: value lines), got %s", what,
			       ld_what(n));
	return 0;
}

/*
 * Validate the key of pair i of mapping map: a plain string, not a merge
 * key, not seen before in this mapping, and one of known[] (unless known
 * is NULL: the caller checks).  *name gets the key's text.
 */
static int ld_key(struct ld *L, const yaml_node_t *map, const yaml_node_pair_t *pair,
		  const char *const *known, const char *section, const char **name)
{
	const yaml_node_t *k = ld_node(L, pair->key);
	if (k->type != YAML_SCALAR_NODE || ld_is_null(k))
		return ld_fail(L, k, "keys in %s must be plain names, got %s", section, ld_what(k));
	const char *s = (const char *)k->data.scalar.value;
	if (!strcmp(s, "<<") && k->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
		return ld_fail(L, k, "merge keys ('<<') are not supported; write the keys out");
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start; p < pair; p++) {
		const yaml_node_t *prev = ld_node(L, p->key);
		if (prev->type == YAML_SCALAR_NODE && !strcmp((const char *)prev->data.scalar.value, s))
			return ld_fail(L, k, "duplicate key '%s' in %s (first given at line %zu)", s,
				       section, prev->start_mark.line + 1);
	}
	*name = s;
	if (!known)
		return 0;
	for (size_t i = 0; known[i]; i++)
		if (!strcmp(known[i], s))
			return 0;
	char hint[96], list[256];
	ld_hint(s, known, hint, sizeof(hint));
	if (hint[0])
		return ld_fail(L, k, "unknown key '%s' in %s%s", s, section, hint);
	ld_join(known, list, sizeof(list));
	return ld_fail(L, k, "unknown key '%s' in %s; known keys: %s", s, section, list);
}

/* ---- values ----------------------------------------------------------- */

/* An unsigned integer in [min, max]; words only digits (no sign, no suffix). */
static int ld_uint(struct ld *L, const yaml_node_t *n, const char *what, uint64_t min,
		   uint64_t max, uint64_t *out)
{
	const char *s;
	if (ld_scalar(L, n, what, &s))
		return -1;
	if (s[0] == '-' && isdigit((unsigned char)s[1]))
		return ld_fail(L, n, "'%s' must not be negative, got '%s'", what, s);
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return ld_fail(L, n, "'%s' expects a whole number, got '%s'", what, s);
	errno = 0;
	unsigned long long v = strtoull(s, NULL, 10);
	if (errno == ERANGE || v > max)
		return ld_fail(L, n, "'%s' value %s is too large (at most %llu)", what, s,
			       (unsigned long long)max);
	if (v < min)
		return ld_fail(L, n, "'%s' must be at least %llu, got %s", what,
			       (unsigned long long)min, s);
	*out = v;
	return 0;
}

static int ld_unsigned(struct ld *L, const yaml_node_t *n, const char *what, unsigned min,
		       unsigned max, unsigned *out)
{
	uint64_t v;
	if (ld_uint(L, n, what, min, max, &v))
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* A size (4k, 16m, ...) in [min, max] bytes. */
static int ld_size(struct ld *L, const yaml_node_t *n, const char *what, uint64_t min,
		   uint64_t max, uint64_t *out)
{
	const char *s;
	char msg[200], lo[32], hi[32];
	if (ld_scalar(L, n, what, &s))
		return -1;
	if (s[0] == '-')
		return ld_fail(L, n, "'%s' must not be negative, got '%s'", what, s);
	uint64_t v;
	if (jm_parse_size(s, &v, msg, sizeof(msg)))
		return ld_fail(L, n, "bad value for '%s': %s", what, msg);
	if (v < min || v > max) {
		jm_format_size(min, lo, sizeof(lo));
		jm_format_size(max, hi, sizeof(hi));
		return ld_fail(L, n, "'%s' %s is out of range [%s, %s]", what, s, lo, hi);
	}
	*out = v;
	return 0;
}

/* A duration (30s, 2m, 500ms) in seconds; zero allowed only if allow_zero. */
static int ld_duration(struct ld *L, const yaml_node_t *n, const char *what, bool allow_zero,
		       double *out)
{
	const char *s;
	char msg[200];
	if (ld_scalar(L, n, what, &s))
		return -1;
	if (s[0] == '-')
		return ld_fail(L, n, "'%s' must not be negative, got '%s'", what, s);
	double v;
	if (jm_parse_duration(s, &v, msg, sizeof(msg)))
		return ld_fail(L, n, "bad value for '%s': %s", what, msg);
	if (v > 366.0 * 86400)
		return ld_fail(L, n, "'%s' %s is too long (at most a year)", what, s);
	if (v == 0 && !allow_zero)
		return ld_fail(L, n, "'%s' must be longer than 0, got '%s'", what, s);
	*out = v;
	return 0;
}

/* true/false (yes/no, on/off). */
static int ld_bool(struct ld *L, const yaml_node_t *n, const char *what, bool *out)
{
	const char *s;
	char msg[200];
	if (ld_scalar(L, n, what, &s))
		return -1;
	if (jm_parse_bool(s, out, msg, sizeof(msg)))
		return ld_fail(L, n, "bad value for '%s': %s", what, msg);
	return 0;
}

/* One of choices[] (exact match); the index goes to *out. */
static int ld_choice(struct ld *L, const yaml_node_t *n, const char *what,
		     const char *const *choices, int *out)
{
	const char *s;
	if (ld_scalar(L, n, what, &s))
		return -1;
	for (int i = 0; choices[i]; i++)
		if (!strcmp(choices[i], s)) {
			*out = i;
			return 0;
		}
	char hint[96], list[128];
	ld_hint(s, choices, hint, sizeof(hint));
	ld_join(choices, list, sizeof(list));
	return ld_fail(L, n, "'%s' must be one of %s, got '%s'%s", what, list, s, hint);
}

/* A name usable in file and folder names: [A-Za-z0-9._-], not starting with '.' or '-'. */
static bool ld_good_name(const char *s)
{
	size_t len = strlen(s);
	if (!len || len >= WL_NAME_LEN || s[0] == '.' || s[0] == '-')
		return false;
	for (const char *p = s; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			return false;
	return true;
}

static int ld_name(struct ld *L, const yaml_node_t *n, const char *what, const char **out)
{
	if (ld_scalar(L, n, what, out))
		return -1;
	if (!ld_good_name(*out))
		return ld_fail(L, n, "'%s' must be 1-%d letters, digits, '.', '_' or '-' "
			       "(not starting with '.' or '-'), got '%s'", what, WL_NAME_LEN - 1,
			       *out);
	return 0;
}

static char *ld_strdup(struct ld *L, const yaml_node_t *n, const char *s)
{
	char *d = strdup(s);
	if (!d)
		ld_fail(L, n, "out of memory");
	return d;
}

/* ---- sections --------------------------------------------------------- */

/* dirs: one directory or a list of distinct ones; replaces the default. */
static int ld_dirs(struct ld *L, const yaml_node_t *v)
{
	struct workload *wl = L->wl;
	size_t n = 1;
	if (v->type == YAML_SEQUENCE_NODE)
		n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	else if (v->type != YAML_SCALAR_NODE || ld_is_null(v))
		return ld_fail(L, v, "'dirs' expects a directory or a list of them, got %s",
			       ld_what(v));
	if (!n)
		return ld_fail(L, v, "'dirs' is an empty list; give at least one directory");
	if (n > 1024)
		return ld_fail(L, v, "'dirs' lists %zu directories (at most 1024)", n);
	char **dirs = calloc(n, sizeof(*dirs));
	if (!dirs)
		return ld_fail(L, v, "out of memory");
	for (size_t i = 0; i < wl->ndirs; i++)
		free(wl->dirs[i]);
	free(wl->dirs);
	wl->dirs = dirs;
	wl->ndirs = 0;
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *d = v->type == YAML_SEQUENCE_NODE
			? ld_node(L, v->data.sequence.items.start[i]) : v;
		const char *s;
		if (ld_scalar(L, d, "dirs", &s))
			return -1;
		if (!*s)
			return ld_fail(L, d, "directory name is empty");
		if (strlen(s) >= PATH_MAX)
			return ld_fail(L, d, "directory name is too long");
		for (size_t j = 0; j < wl->ndirs; j++)
			if (!strcmp(wl->dirs[j], s))
				return ld_fail(L, d, "directory '%s' is listed twice", s);
		if (!(wl->dirs[wl->ndirs] = ld_strdup(L, d, s)))
			return -1;
		wl->ndirs++;
	}
	return 0;
}

/* files: {filesize, poolsize, dirs} */
static int ld_files(struct ld *L, const yaml_node_t *map)
{
	struct workload *wl = L->wl;
	if (ld_mapping(L, map, "files"))
		return -1;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *key;
		int rc;
		if (ld_key(L, map, p, files_keys, "'files'", &key))
			return -1;
		const yaml_node_t *v = ld_node(L, p->value);
		if (!strcmp(key, "filesize"))
			rc = ld_size(L, v, key, 1024, 1ull << 40, &wl->filesize);
		else if (!strcmp(key, "poolsize"))
			rc = ld_size(L, v, key, 0, 1ull << 40, &wl->poolsize);
		else if (!strcmp(key, "layout")) {
			int idx;
			if (!(rc = ld_choice(L, v, key, layout_names, &idx)))
				wl->layout = (enum wl_layout)idx;
		} else
			rc = ld_dirs(L, v);
		if (rc)
			return -1;
	}
	return 0;
}

/* users: {...}; defaults that depend on the mode come later (ld_users_resolve). */
static int ld_users(struct ld *L, const yaml_node_t *map)
{
	struct wl_users *u = &L->wl->users;
	const yaml_node_t *end_node = NULL;
	bool cjpm_set = false;
	if (ld_mapping(L, map, "users"))
		return -1;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *key, *s;
		int rc = 0, idx;
		if (ld_key(L, map, p, users_keys, "'users'", &key))
			return -1;
		const yaml_node_t *v = ld_node(L, p->value);
		bool is_auto = v->type == YAML_SCALAR_NODE &&
			       !strcmp((const char *)v->data.scalar.value, "auto");
		if (!strcmp(key, "start")) {
			rc = ld_unsigned(L, v, key, 1, 1000000, &u->start);
		} else if (!strcmp(key, "end")) {
			end_node = v;
			if (is_auto)
				u->end = 0;
			else
				rc = ld_unsigned(L, v, key, 1, 1000000, &u->end);
		} else if (!strcmp(key, "step")) {
			u->geometric = false;
			if (is_auto) {
				u->step = 0;
			} else if (v->type == YAML_SCALAR_NODE && v->data.scalar.value[0] == 'x') {
				/* x2: a geometric list, each point `step` times the last */
				yaml_node_t tmp = *v;
				tmp.data.scalar.value++;
				tmp.data.scalar.length--;
				rc = ld_unsigned(L, &tmp, "step factor", 2, 1024, &u->step);
				u->geometric = true;
			} else {
				rc = ld_unsigned(L, v, key, 1, 1000000, &u->step);
			}
		} else if (!strcmp(key, "jobs_per_user")) {
			rc = ld_unsigned(L, v, key, 1, 1000000, &u->jobs_per_user);
		} else if (!strcmp(key, "mode")) {
			if (!(rc = ld_choice(L, v, "users.mode", ramp_names, &idx)))
				u->mode = (enum wl_ramp_mode)idx;
		} else if (!strcmp(key, "repeat")) {
			u->repeat_auto = is_auto;
			u->repeat = 1;
			if (!is_auto)
				rc = ld_unsigned(L, v, key, 1, 100, &u->repeat);
		} else if (!strcmp(key, "as")) {
			L->as_node = v;
			if (!(rc = ld_choice(L, v, "users.as", as_names, &idx)))
				u->as = (enum wl_user_model)idx;
		} else if (!strcmp(key, "converge_jpm_per_user")) {
			cjpm_set = true;
			if (!(rc = ld_scalar(L, v, key, &s))) {
				char msg[200];
				if (jm_parse_double(s, 0, 1e9, &u->converge_jpm_per_user, msg, sizeof(msg)))
					rc = ld_fail(L, v, "bad value for '%s': %s", key, msg);
				else if (u->converge_jpm_per_user <= 0)
					rc = ld_fail(L, v, "'%s' must be above 0, got '%s'", key, s);
			}
		} else if (!strcmp(key, "max_points")) {
			rc = ld_unsigned(L, v, key, 0, 1000000, &u->max_points);
		} else {
			rc = ld_duration(L, v, key, true, &u->max_time_s);
		}
		if (rc)
			return -1;
	}
	if (u->end && u->end < u->start)
		return ld_fail(L, end_node, "users.end (%u) is below users.start (%u)", u->end, u->start);
	L->cjpm_set = cjpm_set;
	return 0;
}

/* Defaults that depend on users.mode (also when there is no users: section). */
static void ld_users_resolve(struct ld *L)
{
	struct wl_users *u = &L->wl->users;
	if (u->mode == WL_RAMP_LINEAR) {
		if (!u->end)
			u->end = u->start;
		if (!u->step)
			u->step = 1;
	}
	if (!L->cjpm_set)
		u->converge_jpm_per_user = u->mode == WL_RAMP_CROSSOVER ? 10 : 60;
}

/* "jpm:2%", "2%", "2" (percent), or off / 0 (no steady-state check). */
static int ld_steady(struct ld *L, const yaml_node_t *n, double *out)
{
	const char *s, *p;
	if (ld_scalar(L, n, "steady", &s))
		return -1;
	if (!strcmp(s, "off") || !strcmp(s, "none") || !strcmp(s, "0")) {
		*out = 0;
		return 0;
	}
	p = s;
	const char *colon = strchr(s, ':');
	if (colon) {
		if (strncasecmp(s, "jpm:", 4))
			return ld_fail(L, n, "'steady' measures only jpm (like \"jpm:2%%\"), got '%s'", s);
		p = colon + 1;
	}
	char *end;
	errno = 0;
	double v = strtod(p, &end);
	if (end == p || !isdigit((unsigned char)*p) || (*end && strcmp(end, "%")) || errno || !isfinite(v))
		return ld_fail(L, n, "'steady' expects a band like \"jpm:2%%\" or off, got '%s'", s);
	if (v <= 0 || v > 100)
		return ld_fail(L, n, "'steady' band must be above 0%% and at most 100%%, got '%s'", s);
	*out = v;
	return 0;
}

/*
 * measure: {mode, duration, ramp, steady, steady_windows, settle,
 *           settle_timeout, drop_caches, warmup}
 */
static int ld_measure(struct ld *L, const yaml_node_t *map)
{
	struct wl_measure_cfg *m = &L->wl->measure;
	const yaml_node_t *ramp_node = NULL;
	if (ld_mapping(L, map, "measure"))
		return -1;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *key;
		int rc, idx;
		if (ld_key(L, map, p, measure_keys, "'measure'", &key))
			return -1;
		const yaml_node_t *v = ld_node(L, p->value);
		if (!strcmp(key, "mode")) {
			if (!(rc = ld_choice(L, v, "measure.mode", measure_names, &idx)))
				m->how = (enum wl_measure)idx;
		} else if (!strcmp(key, "duration")) {
			rc = ld_duration(L, v, key, false, &m->duration_s);
		} else if (!strcmp(key, "ramp")) {
			ramp_node = v;
			rc = ld_duration(L, v, key, true, &m->ramp_s);
		} else if (!strcmp(key, "steady")) {
			rc = ld_steady(L, v, &m->steady_pct);
		} else if (!strcmp(key, "settle")) {
			rc = ld_bool(L, v, "measure.settle", &m->settle);
		} else if (!strcmp(key, "settle_timeout")) {
			rc = ld_duration(L, v, "measure.settle_timeout", false, &m->settle_timeout_s);
		} else if (!strcmp(key, "drop_caches")) {
			rc = ld_bool(L, v, "measure.drop_caches", &m->drop_caches);
		} else if (!strcmp(key, "warmup")) {
			rc = ld_bool(L, v, "measure.warmup", &m->warmup);
		} else {
			rc = ld_unsigned(L, v, key, 2, 1000, &m->steady_windows);
		}
		if (rc)
			return -1;
	}
	if (m->ramp_s >= m->duration_s)
		return ld_fail(L, ramp_node, "measure.ramp must be shorter than measure.duration");
	return 0;
}

/* A job parameter's value: a scalar, or for flags also a list of words. */
static int ld_param(struct ld *L, struct wl_entry *e, const struct job_param *jp,
		    const yaml_node_t *v)
{
	char text[512], msg[300];
	const char *s;
	if (jp->type == JP_FLAGS && v->type == YAML_SEQUENCE_NODE) {
		text[0] = 0;
		for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
			const yaml_node_t *w = ld_node(L, *i);
			if (ld_scalar(L, w, jp->name, &s))
				return -1;
			if (strlen(text) + strlen(s) + 2 > sizeof(text))
				return ld_fail(L, w, "'%s' lists too many flags", jp->name);
			if (text[0])
				strcat(text, "|");
			strcat(text, s);
		}
		s = text;
	} else if (ld_scalar(L, v, jp->name, &s)) {
		return -1;
	}
	if (job_param_parse(jp, e->params, s, msg, sizeof(msg)))
		return ld_fail(L, v, "bad value for '%s' of job '%s': %s", jp->name, e->kind->name, msg);
	return 0;
}

/* One mix entry: {job: NAME, weight: N, name: LABEL, PARAM: VALUE...} */
static int ld_entry(struct ld *L, const yaml_node_t *map, struct wl_entry *e)
{
	const yaml_node_t *job_node = NULL;
	char msg[300];
	const char *s;
	e->line = (int)map->start_mark.line + 1;
	e->col = (int)map->start_mark.column + 1;
	e->weight = 1;
	if (map->type != YAML_MAPPING_NODE)
		return ld_fail(L, map, "a mix entry must be a mapping like {job: NAME, weight: N}, "
			       "got %s", ld_what(map));
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *name;
		if (ld_key(L, map, p, NULL, "the mix entry", &name))
			return -1;
		if (!strcmp(name, "job") && !job_node)
			job_node = ld_node(L, p->value);
	}
	if (!job_node)
		return ld_fail(L, map, "mix entry has no 'job:' key");
	if (ld_scalar(L, job_node, "job", &s))
		return -1;
	e->kind = job_find(s);
	if (!e->kind) {
		const char *near = job_suggest(s);
		if (near)
			return ld_fail(L, job_node, "unknown job '%s' (did you mean '%s'?)", s, near);
		return ld_fail(L, job_node, "unknown job '%s' (`jobmix jobs` lists them)", s);
	}
	snprintf(e->name, sizeof(e->name), "%s", e->kind->name);
	e->params = calloc(1, e->kind->params_size ? e->kind->params_size : 1);
	if (!e->params)
		return ld_fail(L, map, "out of memory");
	if (job_params_defaults(e->kind, e->params, msg, sizeof(msg)))
		return ld_fail(L, job_node, "%s", msg);

	size_t np = job_nparams(e->kind);
	const char *known[JOB_MAX_PARAMS + 4];
	size_t nk = 0;
	for (size_t i = 0; entry_keys[i]; i++)
		known[nk++] = entry_keys[i];
	for (size_t i = 0; i < np; i++)
		known[nk++] = e->kind->params[i].name;
	known[nk] = NULL;

	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *key;
		if (ld_key(L, map, p, NULL, "the mix entry", &key))
			return -1;
		const yaml_node_t *k = ld_node(L, p->key), *v = ld_node(L, p->value);
		if (!strcmp(key, "job"))
			continue;
		if (!strcmp(key, "weight")) {
			uint64_t w;
			if (ld_uint(L, v, key, 0, UINT32_MAX, &w))
				return -1;
			e->weight = (uint32_t)w;
			continue;
		}
		if (!strcmp(key, "name")) {
			const char *label;
			if (ld_name(L, v, key, &label))
				return -1;
			snprintf(e->name, sizeof(e->name), "%s", label);
			continue;
		}
		const struct job_param *jp = job_param_find(e->kind, key);
		if (!jp) {
			char list[512];
			const char *near = jm_suggest(key, known);
			if (near && job_param_find(e->kind, near))
				return ld_fail(L, k, "unknown parameter '%s' for job '%s' (did you "
					       "mean '%s'?)", key, e->kind->name, near);
			if (near)
				return ld_fail(L, k, "unknown key '%s' in the mix entry (did you mean "
					       "'%s'?)", key, near);
			if (!np)
				return ld_fail(L, k, "unknown key '%s': job '%s' takes no parameters "
					       "(only job, weight, name)", key, e->kind->name);
			ld_join(known + 3, list, sizeof(list));
			return ld_fail(L, k, "unknown parameter '%s' for job '%s'; it takes: %s", key,
				       e->kind->name, list);
		}
		if (ld_param(L, e, jp, v))
			return -1;
		e->set_mask |= 1ull << (jp - e->kind->params);
	}
	if (e->kind->check && e->kind->check(e->kind, e->params, e->set_mask, msg, sizeof(msg)))
		return ld_fail(L, map, "job '%s': %s", e->kind->name, msg);
	return 0;
}

/* mix: a non-empty list of entries with distinct names and some weight. */
static int ld_mix(struct ld *L, const yaml_node_t *seq)
{
	struct workload *wl = L->wl;
	if (seq->type != YAML_SEQUENCE_NODE)
		return ld_fail(L, seq, "'mix' expects a list of jobs (- {job: NAME, weight: N}), "
			       "got %s", ld_what(seq));
	size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	if (!n)
		return ld_fail(L, seq, "the mix is empty; list at least one job");
	if (n > 4096)
		return ld_fail(L, seq, "the mix has %zu entries (at most 4096)", n);
	wl->mix = calloc(n, sizeof(*wl->mix));
	if (!wl->mix)
		return ld_fail(L, seq, "out of memory");
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *item = ld_node(L, seq->data.sequence.items.start[i]);
		struct wl_entry *e = &wl->mix[i];
		wl->nmix++;
		if (ld_entry(L, item, e))
			return -1;
		for (size_t j = 0; j < i; j++) {
			if (strcmp(wl->mix[j].name, e->name))
				continue;
			if (wl->mix[j].kind == e->kind)
				return ld_fail(L, item, "job '%s' appears twice in the mix (first at "
					       "line %d); give each a distinct 'name:'", e->kind->name,
					       wl->mix[j].line);
			return ld_fail(L, item, "mix entry name '%s' is already used at line %d",
				       e->name, wl->mix[j].line);
		}
		total += e->weight;
	}
	if (!total)
		return ld_fail(L, seq, "every weight in the mix is 0; nothing would run");
	return 0;
}

/* ---- whole document ---------------------------------------------------- */

#define WL_MAX_NODES 10000
#define WL_MAX_DEPTH 64

/*
 * Count the nodes reachable from n as a reader would see them, following
 * aliases (a shared node counts each time it is reached), so an alias
 * bomb stops at WL_MAX_NODES; nesting stops at WL_MAX_DEPTH, and a node
 * reached again while inside itself is an alias cycle.
 */
static int ld_bound(struct ld *L, yaml_node_t *n, unsigned depth, unsigned char *inside,
		    size_t *count)
{
	size_t idx = (size_t)(n - L->doc->nodes.start);
	if (++*count > WL_MAX_NODES)
		return ld_fail(L, n, "the workload has more than %d YAML nodes (aliases counted as "
			       "expanded); refusing it", WL_MAX_NODES);
	if (depth > WL_MAX_DEPTH)
		return ld_fail(L, n, "the workload is nested more than %d levels deep", WL_MAX_DEPTH);
	if (inside[idx])
		return ld_fail(L, n, "alias cycle: this node contains an alias to itself");
	int rc = 0;
	inside[idx] = 1;
	if (n->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *i = n->data.sequence.items.start;
		     !rc && i < n->data.sequence.items.top; i++)
			rc = ld_bound(L, ld_node(L, *i), depth + 1, inside, count);
	} else if (n->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
		     !rc && p < n->data.mapping.pairs.top; p++) {
			rc = ld_bound(L, ld_node(L, p->key), depth + 1, inside, count);
			if (!rc)
				rc = ld_bound(L, ld_node(L, p->value), depth + 1, inside, count);
		}
	}
	inside[idx] = 0;
	return rc;
}

/* Defaults for everything; name from the file's basename. */
static int ld_defaults(struct workload *wl, const char *path)
{
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
	wl->name = strdup(name[0] ? name : "workload");
	wl->description = strdup("");
	wl->dirs = calloc(1, sizeof(*wl->dirs));
	if (!wl->name || !wl->description || !wl->dirs)
		return -1;
	wl->dirs[0] = strdup("./jobmix-work");
	if (!wl->dirs[0])
		return -1;
	wl->ndirs = 1;
	wl->filesize = 10 * 1024;
	wl->poolsize = 1024 * 1024;
	wl->users = (struct wl_users){ .start = 1, .jobs_per_user = 100, .mode = WL_RAMP_LINEAR,
				       .repeat = 1, .as = WL_USERS_PROCESSES };
	wl->measure = (struct wl_measure_cfg){ .how = WL_MEASURE_JOBS, .duration_s = 30,
					       .steady_windows = 5, .settle = true,
					       .settle_timeout_s = 10, .warmup = true };
	wl->sync = JOB_SYNC_FILE;
	wl->seed = 1;
	return 0;
}

/* The top-level mapping, then checks that span sections. */
static int ld_top(struct ld *L, yaml_node_t *root)
{
	struct workload *wl = L->wl;
	const yaml_node_t *mix_node = NULL;
	if (root->type != YAML_MAPPING_NODE)
		return ld_fail(L, root, "the top level must be a mapping (name:, files:, users:, "
			       "mix: ...), got %s", ld_what(root));
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		const char *key, *s;
		int rc = 0, idx;
		if (ld_key(L, root, p, top_keys, "the workload", &key))
			return -1;
		const yaml_node_t *v = ld_node(L, p->value);
		if (!strcmp(key, "name")) {
			if (!(rc = ld_name(L, v, key, &s))) {
				free(wl->name);
				rc = (wl->name = ld_strdup(L, v, s)) ? 0 : -1;
			}
		} else if (!strcmp(key, "description")) {
			if (ld_is_null(v))
				continue;
			if (!(rc = ld_scalar(L, v, key, &s))) {
				free(wl->description);
				rc = (wl->description = ld_strdup(L, v, s)) ? 0 : -1;
			}
		} else if (!strcmp(key, "files")) {
			rc = ld_files(L, v);
		} else if (!strcmp(key, "users")) {
			rc = ld_users(L, v);
		} else if (!strcmp(key, "sync")) {
			if (!(rc = ld_choice(L, v, key, sync_names, &idx)))
				wl->sync = (enum job_sync)idx;
		} else if (!strcmp(key, "seed")) {
			rc = ld_uint(L, v, key, 0, UINT64_MAX, &wl->seed);
		} else if (!strcmp(key, "measure")) {
			rc = ld_measure(L, v);
		} else {
			mix_node = v;
			rc = ld_mix(L, v);
		}
		if (rc)
			return -1;
	}
	if (!mix_node)
		return ld_fail(L, root, "the workload has no 'mix:' (the list of jobs to run)");
	ld_users_resolve(L);
	for (size_t i = 0; wl->users.as == WL_USERS_THREADS && i < wl->nmix; i++) {
		const struct wl_entry *e = &wl->mix[i];
		if (e->kind->flags & JOB_PROCESS_ONLY) {
			snprintf(L->err->msg, sizeof(L->err->msg), "%s:%d:%d: job '%s' cannot run "
				 "with users as threads (users.as: threads at line %zu)", L->path,
				 e->line, e->col, e->kind->name, L->as_node->start_mark.line + 1);
			return -1;
		}
	}
	return 0;
}

/* libyaml's error as "FILE:LINE:COL: syntax error: problem (context at L:C)". */
static int ld_syntax(struct ld *L, yaml_parser_t *parser, const char *data, size_t len)
{
	size_t line = parser->problem_mark.line + 1, col = parser->problem_mark.column + 1;
	const char *problem = parser->problem ? parser->problem : "unknown error";
	if (parser->error == YAML_MEMORY_ERROR) {
		snprintf(L->err->msg, sizeof(L->err->msg), "%s: out of memory while parsing", L->path);
		return -1;
	}
	if (parser->error == YAML_READER_ERROR) {
		/* the reader reports a byte offset, not a mark */
		line = 1, col = 1;
		for (size_t i = 0; i < parser->problem_offset && i < len; i++) {
			if (data[i] == '\n')
				line++, col = 1;
			else if (((unsigned char)data[i] & 0xc0) != 0x80)
				col++;
		}
		snprintf(L->err->msg, sizeof(L->err->msg), "%s:%zu:%zu: invalid input: %s (byte 0x%02x)",
			 L->path, line, col, problem, (unsigned)parser->problem_value & 0xff);
		return -1;
	}
	if (parser->context)
		snprintf(L->err->msg, sizeof(L->err->msg), "%s:%zu:%zu: syntax error: %s (%s at %zu:%zu)",
			 L->path, line, col, problem, parser->context,
			 parser->context_mark.line + 1, parser->context_mark.column + 1);
	else
		snprintf(L->err->msg, sizeof(L->err->msg), "%s:%zu:%zu: syntax error: %s", L->path,
			 line, col, problem);
	return -1;
}

/* Parse exactly one document from data and fill L->wl from it. */
static int ld_parse(struct ld *L, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_document_t doc, extra;
	bool have_doc = false, have_extra = false;
	unsigned char *inside = NULL;
	int ret = -1;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(L->err->msg, sizeof(L->err->msg), "%s: out of memory", L->path);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	if (!yaml_parser_load(&parser, &doc)) {
		ld_syntax(L, &parser, data, len);
		goto out;
	}
	have_doc = true;
	L->doc = &doc;
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	if (!root) {
		ld_fail(L, NULL, "no YAML document: the file is empty or only comments");
		goto out;
	}
	if (!yaml_parser_load(&parser, &extra)) {
		ld_syntax(L, &parser, data, len);
		goto out;
	}
	have_extra = true;
	if (yaml_document_get_root_node(&extra)) {
		snprintf(L->err->msg, sizeof(L->err->msg), "%s:%zu:%zu: more than one YAML document "
			 "('---'); a workload file holds exactly one", L->path,
			 extra.start_mark.line + 1, extra.start_mark.column + 1);
		goto out;
	}
	size_t count = 0, nnodes = (size_t)(doc.nodes.top - doc.nodes.start);
	inside = calloc(nnodes, 1);
	if (!inside) {
		ld_fail(L, NULL, "out of memory");
		goto out;
	}
	if (ld_bound(L, root, 1, inside, &count))
		goto out;
	ret = ld_top(L, root);
out:
	free(inside);
	if (have_extra)
		yaml_document_delete(&extra);
	if (have_doc)
		yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	L->doc = NULL;
	return ret;
}

/* SHA-256 of the bytes as 64 hex digits. */
static int ld_sha256(const char *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	if (!EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
		return -1;
	for (unsigned i = 0; i < mdlen; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	return 0;
}

int wl_load_buffer(const char *path, const char *data, size_t len, struct workload *wl,
		   struct wl_error *err)
{
	struct ld L = { .path = path, .err = err, .wl = wl };
	memset(wl, 0, sizeof(*wl));
	err->msg[0] = 0;
	if (len > WL_MAX_FILE_SIZE) {
		snprintf(err->msg, sizeof(err->msg), "%s: too large (%zu bytes; a workload file is "
			 "at most %d bytes)", path, len, WL_MAX_FILE_SIZE);
		return -1;
	}
	if (!(wl->path = strdup(path)) || ld_defaults(wl, path)) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", path);
		goto fail;
	}
	if (ld_sha256(data, len, wl->sha256)) {
		snprintf(err->msg, sizeof(err->msg), "%s: SHA-256 failed", path);
		goto fail;
	}
	if (ld_parse(&L, data, len))
		goto fail;
	return 0;
fail:
	wl_free(wl);
	return -1;
}

/* Read a regular file of at most WL_MAX_FILE_SIZE bytes; never blocks on FIFOs or devices. */
static int ld_read(const char *path, char **out, size_t *outlen, struct wl_error *err)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int fd = -1, ret = -1;

	if (stat(path, &st)) {
		snprintf(err->msg, sizeof(err->msg), "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		snprintf(err->msg, sizeof(err->msg), "%s: is a directory, not a workload file", path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err->msg, sizeof(err->msg), "%s: not a regular file", path);
		return -1;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err->msg, sizeof(err->msg), "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		snprintf(err->msg, sizeof(err->msg), "%s: not a regular file", path);
		goto out;
	}
	if (st.st_size > WL_MAX_FILE_SIZE) {
		snprintf(err->msg, sizeof(err->msg), "%s: too large (%lld bytes; a workload file is "
			 "at most %d bytes)", path, (long long)st.st_size, WL_MAX_FILE_SIZE);
		goto out;
	}
	buf = malloc(WL_MAX_FILE_SIZE + 1);
	if (!buf) {
		snprintf(err->msg, sizeof(err->msg), "%s: out of memory", path);
		goto out;
	}
	for (;;) {
		ssize_t n = read(fd, buf + len, WL_MAX_FILE_SIZE + 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(err->msg, sizeof(err->msg), "%s: cannot read: %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > WL_MAX_FILE_SIZE) {
			snprintf(err->msg, sizeof(err->msg), "%s: too large (a workload file is at "
				 "most %d bytes)", path, WL_MAX_FILE_SIZE);
			goto out;
		}
	}
	*out = buf;
	*outlen = len;
	buf = NULL;
	ret = 0;
out:
	free(buf);
	close(fd);
	return ret;
}

int wl_load(const char *path, struct workload *wl, struct wl_error *err)
{
	char *data = NULL;
	size_t len = 0;
	memset(wl, 0, sizeof(*wl));
	err->msg[0] = 0;
	if (ld_read(path, &data, &len, err))
		return -1;
	int rc = wl_load_buffer(path, data, len, wl, err);
	free(data);
	return rc;
}
