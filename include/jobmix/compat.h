/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where re-aim users come from: a re-aim workfile (and reaim.config) as a
 * jobmix workload, and an ad-hoc mix from the command line (--job).  Both
 * produce workload YAML text, which the one loader then validates, so a
 * mix from either is checked exactly as a file is.  Pure: reads the named
 * files, writes nothing.
 */
#ifndef JOBMIX_COMPAT_H
#define JOBMIX_COMPAT_H

#include <stdbool.h>
#include <stddef.h>

/* The jobmix kind that does an AIM7 / re-aim test's work, or NULL (*why says why). */
const char *compat_kind(const char *aim7_test, const char **why);
/* The AIM7 test names compat_kind() knows (NULL-terminated). */
extern const char *const compat_aim7_tests[];

/*
 * Most 'WEIGHT TESTNAME' lines an import takes: each becomes up to 7 YAML
 * nodes, and the loader takes at most 10000 (re-aim's own workfiles have
 * at most 60 lines).
 */
#define COMPAT_MAX_TESTS 1000

/* reaim.config, as read (values 0 / NULL when not given). */
struct compat_config {
	unsigned long filesize_k, poolsize_k;   /* KiB */
	bool have_filesize, have_poolsize;
	char *dirs[64];
	size_t ndirs;
	unsigned start, end, incr, jobs;        /* 0: not given */
	unsigned start_line, end_line;          /* where STARTUSERS / ENDUSERS were (0: not there) */
	int crossover;                          /* -1 not given, 0 off, 1 on */
};

/* Read a reaim.config; 0, or -1 with "FILE:LINE: message" (or "FILE: ...") in err. */
int compat_read_config(const char *path, struct compat_config *c, char *err, size_t errlen);
void compat_config_free(struct compat_config *c);

/*
 * A workfile (and config, may be NULL) as workload YAML in *yaml (malloc'd,
 * NUL-terminated), headed by a comment naming the sources.  sync is the
 * `sync:` to write (re-aim's default: "exec").  The files are read as
 * readfile.h says (regular, at most 1 MiB); the YAML is validated by the
 * loader before it is returned.  0, or -1 with "FILE:LINE: message" in err,
 * the line always the workfile's or the config's (a malformed line, an
 * unknown test, a NUL byte, a value out of the key's range, more than
 * COMPAT_MAX_TESTS tests, STARTUSERS above ENDUSERS).
 */
int compat_import(const char *workfile, const struct compat_config *cfg, const char *cfgpath,
		  const char *sync, char **yaml, char *err, size_t errlen);

/*
 * --job KIND[:WEIGHT][,KIND[:WEIGHT]...] as workload YAML in *yaml
 * (malloc'd).  0, or -1 with err set (unknown kind with a suggestion, bad
 * weight, a kind twice).
 */
int compat_adhoc(const char *spec, char **yaml, char *err, size_t errlen);

#endif
