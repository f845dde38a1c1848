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
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <yaml.h>

#include "jobmix/job.h"
#include "jobmix/parse.h"
#include "jobmix/readfile.h"
#include "jobmix/wl_keys.h"
#include "jobmix/workload.h"

/* State of one load: where messages go and what is being filled. */
struct ld {
	const char *path;
	yaml_document_t *doc;
	struct wl_error *err;
	struct workload *wl;
	const yaml_node_t *at[64];     /* the value node of each key given (wl_keys order) */
};

static const char *const entry_keys[] = { "job", "weight", "name", NULL };

/* ---- messages --------------------------------------------------------- */

/* "FILE:LINE:COL: message" at a 1-based line and column; the position kept in L->err. */
__attribute__((format(printf, 4, 0)))
static int ld_vfail_at(struct ld *L, size_t line, size_t col, const char *fmt, va_list ap)
{
	int off = snprintf(L->err->msg, sizeof(L->err->msg), "%s:%zu:%zu: ", L->path, line, col);
	if (off < 0 || (size_t)off >= sizeof(L->err->msg))
		return -1;
	L->err->line = line;
	L->err->col = col;
	L->err->text = (size_t)off;
	vsnprintf(L->err->msg + off, sizeof(L->err->msg) - (size_t)off, fmt, ap);
	return -1;
}

__attribute__((format(printf, 4, 5)))
static int ld_fail_at(struct ld *L, size_t line, size_t col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ld_vfail_at(L, line, col, fmt, ap);
	va_end(ap);
	return -1;
}

/* "FILE:LINE:COL: message" for node n (1:1 when there is no node). */
__attribute__((format(printf, 3, 4)))
static int ld_fail(struct ld *L, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	ld_vfail_at(L, n ? n->start_mark.line + 1 : 1, n ? n->start_mark.column + 1 : 1, fmt, ap);
	va_end(ap);
	return -1;
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
 * Could s be a key of a workload (1-64 letters, digits, '_', '.', '-')?
 * Every key jobmix knows is one; the text of a key that is not one is
 * never quoted back: a file that is not a workload at all (`jobmix check
 * /etc/shadow` as root) would otherwise have its first line printed.
 */
static bool ld_key_like(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return false;
	return true;
}

/*
 * Validate the key of pair i of mapping map: a plain string that could be
 * a key name, not a merge key, not seen before in this mapping, and one of
 * known[] (unless known is NULL: the caller checks).  *name gets the key's
 * text.
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
	if (!ld_key_like(s)) {
		char list[256];
		list[0] = 0;
		if (known)
			jm_join(known, list, sizeof(list));
		return ld_fail(L, k, "a key in %s that is not a key name (%zu bytes of text, not "
			       "shown: keys are letters, digits, '_', '.' and '-')%s%s%s", section,
			       strlen(s), known ? "; known keys: " : "", list,
			       map == yaml_document_get_root_node(L->doc) &&
			       pair == map->data.mapping.pairs.start ? " (is this a workload file?)" : "");
	}
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
	jm_join(known, list, sizeof(list));
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

/* A mix entry's name: usable in file and folder names. */
static int ld_name(struct ld *L, const yaml_node_t *n, const char *what, const char **out)
{
	if (ld_scalar(L, n, what, out))
		return -1;
	size_t len = strlen(*out);
	bool good = len && len < WL_NAME_LEN && (*out)[0] != '.' && (*out)[0] != '-';
	for (const char *p = *out; good && *p; p++)
		good = isalnum((unsigned char)*p) || strchr("._-", *p);
	if (!good)
		return ld_fail(L, n, "'%s' must be 1-%d letters, digits, '.', '_' or '-' "
			       "(not starting with '.' or '-'), got '%s'", what, WL_NAME_LEN - 1,
			       *out);
	return 0;
}

/* ---- sections --------------------------------------------------------- */

/* dirs: one directory or a list of distinct ones; replaces the default. */
static int ld_dirs(struct ld *L, const yaml_node_t *v)
{
	struct workload *wl = L->wl;
	char msg[300];
	size_t n = 1;
	if (v->type == YAML_SEQUENCE_NODE)
		n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	else if (v->type != YAML_SCALAR_NODE || ld_is_null(v))
		return ld_fail(L, v, "'dirs' expects a directory or a list of them, got %s",
			       ld_what(v));
	const char **dirs = calloc(n ? n : 1, sizeof(*dirs));
	if (!dirs)
		return ld_fail(L, v, "out of memory");
	int rc = 0;
	struct workload seen = { .dirs = (char **)dirs };
	for (size_t i = 0; !rc && i < n && n <= 1024; i++) {
		const yaml_node_t *d = v->type == YAML_SEQUENCE_NODE
			? ld_node(L, v->data.sequence.items.start[i]) : v;
		if (ld_scalar(L, d, "dirs", &dirs[i]))
			rc = -1;
		else if (wl_dir_check(&seen, dirs[i], msg, sizeof(msg)))
			rc = ld_fail(L, d, "%s", msg);
		seen.ndirs++;
	}
	if (!rc && wl_set_dirs(wl, dirs, n, msg, sizeof(msg)))
		rc = ld_fail(L, v, "%s", msg);
	free(dirs);
	return rc;
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
	if (job_param_parse(jp, wl_entry_values(e, jp), s, msg, sizeof(msg)))
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
	job_common_defaults(&e->common);

	size_t np = job_nparams_all(e->kind);
	const char *known[JOB_MAX_PARAMS + JOB_NCOMMON + 4];
	size_t nk = 0;
	for (size_t i = 0; entry_keys[i]; i++)
		known[nk++] = entry_keys[i];
	for (size_t i = 0; i < np; i++)
		known[nk++] = job_param_at(e->kind, i)->name;
	known[nk] = NULL;

	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *key;
		if (ld_key(L, map, p, NULL, "the mix entry", &key))
			return -1;
		const yaml_node_t *k = ld_node(L, p->key), *v = ld_node(L, p->value);
		if (!strcmp(key, "job"))
			continue;
		if (!strcmp(key, "weight")) {
			uint64_t w = 0;
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
			if (!job_nparams(e->kind))
				return ld_fail(L, k, "unknown key '%s': job '%s' takes no parameters "
					       "of its own (only job, weight, name and what every "
					       "job takes: %s)", key, e->kind->name, known[3]);
			jm_join(known + 3, list, sizeof(list));
			return ld_fail(L, k, "unknown parameter '%s' for job '%s'; it takes: %s", key,
				       e->kind->name, list);
		}
		if (ld_param(L, e, jp, v))
			return -1;
		e->set_mask |= 1ull << job_param_index(e->kind, jp);
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
	if (n > WL_MAX_MIX)
		return ld_fail(L, seq, "the mix has %zu entries (at most %d)", n, WL_MAX_MIX);
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

/*
 * The keys of one mapping: the table's keys whose parent is `section` ("" at
 * the top).  Each value goes where its key's type says; scalars through
 * wl_key_set(), the same parser the command line uses.
 */
static int ld_section(struct ld *L, const yaml_node_t *map, const char *section)
{
	const char *known[sizeof(L->at) / sizeof(L->at[0]) + 1];
	size_t nk = 0, plen = strlen(section);
	char label[80];
	for (size_t i = 0; i < wl_nkeys; i++) {
		const char *p = wl_keys[i].path;
		if (plen ? !strncmp(p, section, plen) && p[plen] == '.' && !strchr(p + plen + 1, '.')
			 : !strchr(p, '.'))
			known[nk++] = p + (plen ? plen + 1 : 0);
	}
	known[nk] = NULL;
	if (plen)
		snprintf(label, sizeof(label), "'%s'", section);
	else
		snprintf(label, sizeof(label), "the workload");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top; p++) {
		const char *key, *s;
		char path[128], what[64], msg[400];
		if (ld_key(L, map, p, known, label, &key))
			return -1;
		snprintf(path, sizeof(path), "%s%s%s", section, plen ? "." : "", key);
		const struct wl_key *k = wl_key_find(path);
		const yaml_node_t *v = ld_node(L, p->value);
		L->at[wl_key_index(k)] = v;
		wl_key_what(k, what, sizeof(what));
		int rc = 0;
		switch (wl_key_class(k)) {
		case WKC_SECTION:
			rc = ld_mapping(L, v, k->path) || ld_section(L, v, k->path) ? -1 : 0;
			break;
		case WKC_DIRS:
			rc = ld_dirs(L, v);
			break;
		case WKC_MIX:
			rc = ld_mix(L, v);
			if (!rc)
				L->wl->set |= 1ull << wl_key_index(k);
			break;
		case WKC_TEXT:
			if (ld_is_null(v))
				break;
			/* fall through */
		case WKC_SCALAR:
			if (ld_scalar(L, v, what, &s))
				return -1;
			if (wl_key_set(k, L->wl, s, msg, sizeof(msg)))
				rc = ld_fail(L, v, "%s", msg);
			break;
		}
		if (rc)
			return -1;
	}
	return 0;
}

/* The top-level mapping, then checks that span sections. */
static int ld_top(struct ld *L, yaml_node_t *root)
{
	struct workload *wl = L->wl;
	const struct wl_key *k;
	size_t entry;
	char msg[300];
	if (root->type != YAML_MAPPING_NODE)
		return ld_fail(L, root, "the top level must be a mapping (name:, files:, users:, "
			       "mix: ...), got %s", ld_what(root));
	if (ld_section(L, root, ""))
		return -1;
	if (!wl->nmix)
		return ld_fail(L, root, "the workload has no 'mix:' (the list of jobs to run)");
	wl_resolve(wl);
	if (wl_check(wl, &k, &entry, msg, sizeof(msg))) {
		const yaml_node_t *at = k ? L->at[wl_key_index(k)] : NULL;
		if (entry == (size_t)-1)
			return ld_fail(L, at, "%s", msg);
		const struct wl_entry *e = &wl->mix[entry];
		return ld_fail_at(L, (size_t)e->line, (size_t)e->col, "%s (users.as: threads at line "
				  "%zu)", msg, at ? at->start_mark.line + 1 : 1);
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
		return ld_fail_at(L, line, col, "invalid input: %s (byte 0x%02x)", problem,
				  (unsigned)parser->problem_value & 0xff);
	}
	if (parser->context)
		return ld_fail_at(L, line, col, "syntax error: %s (%s at %zu:%zu)", problem,
				  parser->context, parser->context_mark.line + 1,
				  parser->context_mark.column + 1);
	return ld_fail_at(L, line, col, "syntax error: %s", problem);
}

/*
 * A first pass over the event stream, before the document API builds any
 * node: nesting past WL_MAX_DEPTH or more than WL_MAX_NODES nodes (each
 * alias counted once here; ld_bound() counts them expanded) stop at the first event beyond the limit (its line and column), so a
 * deep or huge document is refused after reading only what the limit
 * allows.  libyaml's scanner is quadratic in flow nesting; half a million
 * '[' in one MiB took over a minute in yaml_parser_load().  The bounds are
 * the same ld_bound() applies to the loaded document (a node at depth d
 * is inside d - 1 collections).
 */
static int ld_prescan(struct ld *L, const char *data, size_t len)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	size_t open = 0, nodes = 0;   /* nodes: aliases each count as one */
	int ret = -1;

	if (!yaml_parser_initialize(&parser)) {
		snprintf(L->err->msg, sizeof(L->err->msg), "%s: out of memory", L->path);
		return -1;
	}
	yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
	for (;;) {
		if (!yaml_parser_parse(&parser, &ev)) {
			ld_syntax(L, &parser, data, len);
			break;
		}
		yaml_event_type_t t = ev.type;
		size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
		bool node = t == YAML_SCALAR_EVENT || t == YAML_ALIAS_EVENT ||
			    t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT;
		yaml_event_delete(&ev);
		if (node && open + 1 > WL_MAX_DEPTH) {
			ld_fail_at(L, line, col, "the workload is nested more than %d levels deep",
				   WL_MAX_DEPTH);
			break;
		}
		if (node && ++nodes > WL_MAX_NODES) {
			ld_fail_at(L, line, col, "the workload has more than %d YAML nodes (aliases "
				   "counted as expanded); refusing it", WL_MAX_NODES);
			break;
		}
		if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT)
			open++;
		else if ((t == YAML_SEQUENCE_END_EVENT || t == YAML_MAPPING_END_EVENT) && open)
			open--;
		if (t == YAML_STREAM_END_EVENT) {
			ret = 0;
			break;
		}
	}
	yaml_parser_delete(&parser);
	return ret;
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
	if (ld_prescan(L, data, len)) {
		yaml_parser_delete(&parser);
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
		ld_fail_at(L, extra.start_mark.line + 1, extra.start_mark.column + 1, "more than one "
			   "YAML document ('---'); a workload file holds exactly one");
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
	memset(err, 0, sizeof(*err));
	if (len > WL_MAX_FILE_SIZE) {
		snprintf(err->msg, sizeof(err->msg), "%s: too large (%zu bytes; a workload file is "
			 "at most %d bytes)", path, len, WL_MAX_FILE_SIZE);
		return -1;
	}
	if (!(wl->path = strdup(path)) || wl_defaults(wl, path)) {
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

int wl_load(const char *path, struct workload *wl, struct wl_error *err)
{
	char *data = NULL;
	size_t len = 0;
	memset(wl, 0, sizeof(*wl));
	memset(err, 0, sizeof(*err));
	if (jm_read_file(path, WL_MAX_FILE_SIZE, "workload file", &data, &len, err->msg,
			 sizeof(err->msg)))
		return -1;
	int rc = wl_load_buffer(path, data, len, wl, err);
	free(data);
	return rc;
}
