/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Interned strings: one copy of each distinct string for the life of the
 * process, so that 100,000 run records share their workload paths, host
 * names and settings instead of each holding fixed buffers of its own.
 * An interned string is never freed and never changes: a record holding
 * one may be copied, and freeing the record does not touch it.
 * Not thread-safe: records are read and built on the main thread.
 */
#ifndef JOBMIX_INTERN_H
#define JOBMIX_INTERN_H

#include <stddef.h>

/* The one copy of s ("" for NULL); NULL only when out of memory. */
const char *util_intern(const char *s);
/* The same for the n bytes at s (no NUL needed among them). */
const char *util_intern_n(const char *s, size_t n);
/* The same as util_intern, but "" when out of memory (for records that must stay readable). */
const char *util_istr(const char *s);
/*
 * The one copy of the n bytes at p (n > 0), aligned for any record: for
 * arrays of records shared by many runs (their labels, env and settings),
 * equal when their bytes are.  NULL out of memory.
 */
const void *util_intern_blob(const void *p, size_t n);
/*
 * A copy of the n bytes at s (NUL added) kept with the pool's strings,
 * without looking for an equal one: for strings every run has its own (its
 * path), where the lookup would cost and save nothing.  NULL out of memory.
 */
const char *util_keep_n(const char *s, size_t n);
/* Bytes held by the pool (its strings, slots and blocks): for benchmarks. */
size_t util_intern_bytes(void);

#endif
