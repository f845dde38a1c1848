/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A results root's index (src/results/index.c): an SQLite file in the root
 * (res_index_file()) that keeps each run read from it, current by its
 * run.json's device, inode, size, mtime and ctime, so that the reporting commands
 * read a root of 100,000 runs without parsing each.  A cache: rebuilt when
 * missing or of another layout, skipped when it cannot be used.
 *
 * JOBMIX_INDEX=off: never used; =rebuild: made afresh; =stats: as usual, and
 * the reporting commands say on stderr what the index did.
 */
#ifndef JOBMIX_RES_INDEX_H
#define JOBMIX_RES_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "jobmix/results.h"

struct res_index;

struct res_index_stats {
	size_t hits;       /* runs read from the index */
	size_t parsed;     /* runs parsed from run.json and stored */
	size_t dropped;    /* runs whose run.json is gone, taken out */
	bool rebuilt;      /* made afresh (none, another layout, or asked) */
};

/* The index file's name in a root. */
const char *res_index_file(void);

/*
 * Open (or make) the index that reads the folder path and begin a refresh:
 * the index of the nearest folder above path that holds one (a results
 * root path lies in: its rows under path are read, and only those are
 * dropped when their run.json is gone), else path's own; nruns: the runs
 * the walk found (the page size of an index made afresh: small ones are
 * small).  A second open of an index this process has closed and not
 * settled goes on in the same transaction.  0: *out is open; 1: no
 * index here (turned off, root not a folder owned by us and written by
 * nobody else, the file not a regular one, SQLite refused, or busy for 10 s),
 * read without one; why (else "") says so when the file, or its journal,
 * is owned by another user than root and us, or writable by others: such
 * an index is neither read nor written.
 */
int res_index_open(const char *path, size_t nruns, struct res_index **out, char *why,
		   size_t whylen);
/*
 * Every run of the walk that the index holds current, in one pass over its
 * rows: files[0..n) (under path, sorted by strcmp), st[i] the identity of
 * files[i] as the walk found it.  recs[i] is filled (path and dir set, its
 * lists shared; the parts of res_runs.h: with RES_RUNS_POINTS its points
 * too, without RES_RUNS_CURVES or it no summary.by) and done[i] set for each;
 * then each(&recs[i], arg) is called on it when each is not NULL (without
 * points: as soon as it is decoded, while it holds its peak's points).
 * The rows of runs not among files (their run.json gone) are dropped when
 * the refresh is committed.  0, or -1 when the index could not be read
 * (what was filled is freed, done cleared: read the files).
 */
int res_index_scan(struct res_index *ix, char *const *files, const struct res_ident *st, size_t n,
		   unsigned parts, struct res_rec *recs, bool *done,
		   void (*each)(struct res_rec *r, void *arg), void *arg);
/* Store run r read from file (identity st), after res_index_scan. */
void res_index_put(struct res_index *ix, const char *file, const struct res_ident *st,
		   const struct res_rec *r);
/*
 * End the refresh: with commit, drop the runs the scan did not find and
 * keep the transaction until res_index_settle; else roll back and close.
 * What it did into st (may be NULL).  ix may be NULL.
 */
void res_index_close(struct res_index *ix, bool commit, struct res_index_stats *st);
/*
 * The command's outcome for every refresh closed since: commit them, or
 * (bad input: nothing on disk may change) roll them back, removing an
 * index file this process made.  A process that ends without settling
 * leaves its refreshes uncommitted (SQLite rolls them back).
 */
void res_index_settle(bool commit);

#endif
