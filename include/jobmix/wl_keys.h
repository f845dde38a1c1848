/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workload's keys, declared once: name (its dotted path), type, where
 * its value lives in struct workload, range, default, run.json name and one
 * line of doc.  The same table drives the YAML loader, `jobmix check`'s
 * resolved output, `jobmix run`'s overrides (-j, -m, ..., -P key=value),
 * `jobmix import`, run.json's resolved workload and docs/workload.md's key
 * table (`jobmix check --keys --markdown`).  Every type is handled in a
 * switch without a default case, so a type without a handler does not
 * compile (-Wswitch -Werror); tests walk every key.
 */
#ifndef JOBMIX_WL_KEYS_H
#define JOBMIX_WL_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jobmix/workload.h"

enum wl_ktype {
	WK_SECTION,    /* a mapping of the keys below it                      */
	WK_NAME,       /* char *: letters, digits, '.', '_', '-'              */
	WK_TEXT,       /* char *: any string                                  */
	WK_UINT,       /* unsigned in [min, max]                              */
	WK_U64,        /* uint64_t in [0, max]                                */
	WK_SIZE,       /* uint64_t bytes; 4k, 16m, 2g, 1t                     */
	WK_DURATION,   /* double seconds; 30s, 2m; min > 0: zero refused      */
	WK_BOOL,       /* bool                                                */
	WK_ENUM,       /* an enum: index into choices[]                       */
	WK_REAL,       /* double above min, at most max                       */
	WK_END,        /* unsigned or auto (0)                                */
	WK_STEP,       /* unsigned, xF (geometric: users.geometric) or auto   */
	WK_REPEAT,     /* unsigned or auto (users.repeat_auto)                */
	WK_STEADY,     /* "jpm:2%", "2%" or off (0)                           */
	WK_PCT,        /* double percent "3%" or "3" in [min, max], or off (0) */
	WK_DIRS,       /* one directory or a list (files.dirs)                */
	WK_MIX,        /* the list of jobs                                    */
};

/* How a key's value is written: what the loader and the printer switch on. */
enum wl_kclass {
	WKC_SECTION,   /* a mapping of keys          */
	WKC_DIRS,      /* a string or a list of them */
	WKC_MIX,       /* the list of jobs           */
	WKC_TEXT,      /* a free string (null: none) */
	WKC_SCALAR,    /* one value, parsed by wl_key_set() */
};

struct wl_key {
	const char *path;              /* "users.start"; sections are "users"  */
	enum wl_ktype type;
	size_t offset;                 /* into struct workload                 */
	double min, max;               /* inclusive range of numbers and sizes */
	const char *def;               /* default in YAML spelling; NULL: none */
	const char *const *choices;    /* WK_ENUM: NULL-terminated             */
	const char *json;              /* path in run.json's resolved workload; NULL: not there */
	const char *help;              /* one line                             */
};

extern const struct wl_key wl_keys[];
extern const size_t wl_nkeys;

/* The key at a dotted path, or NULL. */
const struct wl_key *wl_key_find(const char *path);
/* The closest known path to a misspelt one (for "did you mean"), or NULL. */
const char *wl_key_suggest(const char *path);
/* Index of k in wl_keys (its bit in workload.set). */
size_t wl_key_index(const struct wl_key *k);
/* How messages name k: its last component, or the whole path when that is ambiguous. */
const char *wl_key_what(const struct wl_key *k, char *buf, size_t len);
/* The class of k's type (one switch over every type decides it). */
enum wl_kclass wl_key_class(const struct wl_key *k);
/* The type in words: "size", "duration", ... */
const char *wl_key_type_name(const struct wl_key *k);
/* Was k given (file, command line), rather than defaulted? */
bool wl_key_is_set(const struct workload *wl, const struct wl_key *k);

/*
 * Parse `text` as k's value into wl and mark k as set.  Not for sections,
 * dirs or the mix (-1 with a message).  Messages name the key and the
 * value ("'start' must be at least 1, got 0"), without a location.
 */
int wl_key_set(const struct wl_key *k, struct workload *wl, const char *text, char *err,
	       size_t errlen);
/* k's value in YAML spelling ("10k", "auto", "x2", "jpm:2%"); "" for sections, dirs, mix. */
void wl_key_format(const struct wl_key *k, const struct workload *wl, char *buf, size_t len);

/* Check one directory name for files.dirs against the ones already listed; 0 or -1. */
int wl_dir_check(const struct workload *wl, const char *dir, char *err, size_t errlen);
/* Replace files.dirs with n copies; marks it set.  0, or -1 (message). */
int wl_set_dirs(struct workload *wl, const char *const *dirs, size_t n, char *err,
		size_t errlen);

/* Every default (name from the file name of path); 0, or -1 out of memory. */
int wl_defaults(struct workload *wl, const char *path);
/* Defaults that depend on other keys: a linear ramp's end and step, the convergence criterion. */
void wl_resolve(struct workload *wl);
/*
 * Checks that span keys (end below start, ramp not below duration, jobs
 * that cannot run as threads).  0, or -1 with err set; *key is the key at
 * fault and *entry the mix entry (or (size_t)-1).
 */
int wl_check(const struct workload *wl, const struct wl_key **key, size_t *entry, char *err,
	     size_t errlen);

/* The key reference: a Markdown table (README), or plain text. */
void wl_keys_print(FILE *f, bool markdown);

#endif
