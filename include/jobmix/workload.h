/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A workload: the resolved contents of one YAML workload file, every
 * default filled in.  Produced by wl_load() (src/workload/), consumed by the
 * run command, the load generator and the results writer.  Nothing here
 * knows about YAML; only src/workload/load.c includes <yaml.h>.
 */
#ifndef JOBMIX_WORKLOAD_H
#define JOBMIX_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "jobmix/job.h"
#include "jobmix/ramp_mode.h"

enum wl_user_model { WL_USERS_PROCESSES, WL_USERS_THREADS };
enum wl_measure { WL_MEASURE_JOBS, WL_MEASURE_TIME };
/*
 * Where users make their own files: shared (re-aim: the users placed in a
 * work directory all work in one directory there) or per_user (a private
 * directory each).  Values index the names "shared", "per_user".
 */
enum wl_layout { WL_LAYOUT_SHARED, WL_LAYOUT_PER_USER };

#define WL_NAME_LEN 64

struct wl_entry {
	const struct job_kind *kind;
	char name[WL_NAME_LEN];   /* job name, or the entry's `name:` */
	uint32_t weight;
	void *params;             /* kind->params_size bytes, defaults filled */
	struct job_common common; /* the parameters every kind takes (scale)  */
	uint64_t set_mask;        /* bit job_param_index(): given in the file */
	int line, col;            /* 1-based position of the entry            */
};

struct wl_users {
	unsigned start;           /* first user count (>= 1)                      */
	unsigned end;             /* last (linear) or max users (adaptive); 0 = auto */
	unsigned step;            /* linear step; 0 = auto                           */
	bool geometric;           /* linear list grows by factor `step` (1-1024x2)  */
	unsigned jobs_per_user;   /* AIM7's jobs per user per point                 */
	enum wl_ramp_mode mode;
	unsigned repeat;          /* measurements per point (>= 1; 1 with auto)     */
	bool repeat_auto;         /* `repeat: auto`: re-measure only the points that decide */
	enum wl_user_model as;
	double converge_jpm_per_user; /* 60 for converge, 10 for crossover          */
	unsigned max_points;      /* budget: load points measured (0 = no limit)    */
	double max_time_s;        /* budget: wall time (0 = no limit)               */
};

struct wl_measure_cfg {
	enum wl_measure how;      /* jobs (AIM7, default) or time                   */
	double duration_s;        /* time mode: length of a point                   */
	double ramp_s;            /* time mode: excluded warm-up at the start       */
	double steady_pct;        /* steady-state band in %, 0 = no check           */
	unsigned steady_windows;  /* intervals the band must hold over              */
	bool settle;              /* before each point: sync, wait for dirty pages to drain */
	double settle_timeout_s;  /* bound on that wait                             */
	bool drop_caches;         /* and drop the page cache (root)                 */
	bool warmup;              /* an unrecorded short pass before the first point */
	uint64_t mem_limit;       /* the users' memory cgroup limit, bytes (0: none)  */
	double require_quiet_s;   /* wait at most this for a quiet machine before a point (0: no) */
	double interference_max_pct;  /* other work above this % of the CPUs: re-measure (0: auto) */
	unsigned remeasure;       /* ... at most this many times a point (stats.h)      */
	double point_noise_pct;   /* size the points from pilot samples to this relative sd (0: no) */
};

struct workload {
	char *path;               /* as given                                      */
	char sha256[65];          /* of the file's bytes, hex                      */
	char *name;
	char *description;
	uint64_t filesize;        /* AIM7 FILESIZE, bytes                          */
	uint64_t poolsize;        /* AIM7 POOLSIZE, bytes                          */
	char **dirs;
	size_t ndirs;
	enum wl_layout layout;    /* files.layout                                  */
	struct wl_users users;
	struct wl_measure_cfg measure;
	enum job_sync sync;
	uint64_t seed;
	struct wl_entry *mix;
	size_t nmix;
	uint64_t set;             /* bit i: wl_keys[i] was given (file, -P, options) */
};

/* Where and what went wrong while loading; message is complete on its own. */
struct wl_error {
	char msg[1024];           /* "FILE:LINE:COL: message" */
	size_t line, col;         /* where (1-based), 0 when the message has no position */
	size_t text;              /* offset in msg of the message after "FILE:LINE:COL: " */
};

/* Most entries a mix takes. */
#define WL_MAX_MIX 4096

/* Largest workload file accepted, in bytes. */
#define WL_MAX_FILE_SIZE (1 << 20)

/*
 * Load and validate a workload file.  Returns 0, or -1 with err->msg set
 * (and *wl left empty: nothing to free).  Only regular files are read.
 * Nothing on disk is touched.
 */
int wl_load(const char *path, struct workload *wl, struct wl_error *err);
/* The same from bytes in memory; `path` names them in messages and the default name. */
int wl_load_buffer(const char *path, const char *data, size_t len, struct workload *wl,
		   struct wl_error *err);
void wl_free(struct workload *wl);
/* Where e holds parameter p's value (a parameter of e's kind): e->params or &e->common. */
void *wl_entry_values(struct wl_entry *e, const struct job_param *p);
const void *wl_entry_cvalues(const struct wl_entry *e, const struct job_param *p);

/* Print the resolved workload as YAML (defaults filled) to f. */
void wl_print(FILE *f, const struct workload *wl);
/* A string as a YAML double-quoted scalar. */
void wl_put_quoted(FILE *f, const char *s);

/* One workload key's value in YAML spelling ("10k", "exec"), for wl_yaml_keys(). */
struct wl_kv {
	const char *key;          /* a key path: "files.filesize" */
	const char *value;
};
/*
 * Workload YAML of the keys given, nested and ordered as the key table
 * (wl_keys.h) says, sections written only when a key below them is given;
 * a key given more than once is a list (files.dirs).  The mix is the
 * caller's, after it.  -1 with *bad naming a key the table does not have
 * (or a section, or the mix): nothing written then.
 */
int wl_yaml_keys(FILE *f, const struct wl_kv *kv, size_t n, const char **bad);

/* AIM7's D for n users: filesize + poolsize / n, rounded down to whole KiB. */
uint64_t wl_job_filesize(const struct workload *wl, unsigned nusers);

/*
 * Runs of each mix entry per user: round(weight/Σweight × jobs_per_user),
 * any non-zero weight at least 1.  counts[] has wl->nmix slots; returns the
 * total (the actual jobs per user).
 */
unsigned wl_job_counts(const struct workload *wl, unsigned jobs_per_user, unsigned *counts);

/* Time mode: how long the warm-up pass lasts (a quarter of the duration, at most 10 s). */
#define WL_WARMUP_MAX_S 10.0
double wl_warmup_s(const struct wl_measure_cfg *m);

const char *wl_ramp_mode_name(enum wl_ramp_mode m);
const char *wl_sync_name(enum job_sync s);
const char *wl_layout_name(enum wl_layout l);

#endif
