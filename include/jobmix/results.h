/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Results: the run.json schema, declared once, with its writer and reader.
 *
 * A run folder results/<YYYYmmdd-HHMMSS>-<workload>[-N]/ (UTC time of
 * creation, workload name reduced to [A-Za-z0-9._-]) holds run.json and
 * points.csv, rewritten atomically (atomic.h: temp file, fsync, rename,
 * fsync dir) after every load point, through a descriptor of the folder
 * held from its mkdir on: a folder renamed or replaced by a link mid-run
 * is not followed.
 *
 * The schema is the field tables in src/results/schema.c: each key of a
 * run, a load point, a per-kind entry, a per-user-count aggregate and the
 * summary is one row (JSON key, type, offset in the typed record below,
 * first schema version that wrote it, one line of doc).  The writer and
 * the reader are both driven by those rows, so a key cannot be written
 * and not read.  Dotted keys ("user_time_s.min") live in a nested object;
 * a nested object whose members are all null is written as null.
 *
 * run.json, top level: schema ("jobmix-run/N"), status, started, finished,
 * command [argv...], workload {path, sha256, name, description, resolved},
 * labels {key: value}, env {...}, points [...], summary {...}, and since
 * version 2 sched {...} (the IO scheduler of an A/B arm) and each point's
 * devices {name: {...}} (what each block device did).  Version 5 made a
 * mix entry's rates (reads_s, writes_s, fsyncs_s, iops, read_mb_s,
 * write_mb_s) its work over its own job time (before: the *_job figures)
 * and named the whole point's share *_point; the reader maps the older
 * keys onto these (see res_kind_legacy_fields).  Version 6 made those
 * rates the entry's over all its users (res_entry_rate: what sysbench and
 * fio print) and named one user's rate *_user; the reader recomputes both
 * from the counts of older files (res_kind_rates).  `resolved`
 * (the workload with every default filled in) and `env` are objects the run
 * side builds; the reader keeps env and labels as key/value strings.
 *
 * Missing values: a real that is unknown is NAN in a record and null in
 * JSON; a user count that is unknown is 0 (user counts start at 1).
 *
 * points.csv: one header line, then one row per point:
 *   users,sample,jobs_per_user,jobs,elapsed_s,jpm,jpm_per_user,t_min,t_max,
 *   t_mean,t_stddev,jti,user_cpu_s,sys_cpu_s,failed,failed_users
 * (failed is 0 or 1; an unknown number is an empty field).
 *
 * This header includes nothing from load, ramp, workload or sys: the run
 * command's adapters (src/cli/record.c) fill these records.
 */
#ifndef JOBMIX_RESULTS_H
#define JOBMIX_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RES_SCHEMA_PREFIX "jobmix-run/"
#define RES_SCHEMA_VERSION 10          /* written; the reader accepts 1..this */
#define RES_SCHEMA "jobmix-run/10"

/* jansson's document type, without making every includer include <jansson.h>. */
typedef struct json_t json_t;

enum res_status { RES_RUNNING, RES_COMPLETE, RES_INTERRUPTED, RES_FAILED };
/* "running", "complete", "interrupted", "failed"; NULL out of range. */
const char *res_status_name(enum res_status s);

struct res_kv {
	char key[64];
	char value[192];
};
/* -L labels are these. */
#define res_label res_kv

/* One mix entry's figures at one point (jobs_by_kind.<name>). */
/*
 * An entry's latency histogram as run.json keeps it (jobs_by_kind.ENTRY.hist,
 * version 5): the layout of stats_hist (RES_HIST_LAYOUT: log-linear, 8
 * sub-buckets per power of two of nanoseconds), only the buckets that
 * counted, so that histograms of users, repeats, runs and hosts add up
 * exactly and a percentile across them is read off their sum.
 */
#define RES_HIST_LAYOUT "ns-log2-8"
struct res_hist_bucket {
	uint32_t i;              /* the stats_hist bucket index */
	uint64_t n;              /* samples in it */
};
struct res_hist {
	uint64_t count, sum_ns, min_ns, max_ns;
	size_t nb;
	struct res_hist_bucket b[];
};

/* Add h (NULL or empty: nothing) into a stats_hist of the same layout (stats.h). */
struct stats_hist;
void res_hist_add_to(struct stats_hist *into, const struct res_hist *h);

struct res_kind {
	char name[64];           /* the entry's name (the JSON key) */
	char job[64];            /* its kind */
	char device[32];         /* the block device it did its I/O on (version 6), "": none known */
	uint64_t runs;
	double job_time_s;       /* sum of the runs' times */
	double mean_ms, p50_ms, p99_ms, max_ms;   /* latency of one run; NAN with no runs */
	uint64_t rbytes, wbytes, rops, wops;
	uint64_t fsyncs, syncs;                   /* fsyncs of files, sync points (version 2) */
	/*
	 * The entry's rates over all its users (version 6, res_entry_rate):
	 * iops (reads + writes) and fsyncs over the point's wall time; reads
	 * and read bytes over its read phases' wall time, writes and written
	 * bytes over its write phases' (for a job without phases: the point's
	 * wall time, sysbench's and fio's figure).
	 */
	double read_time_s, write_time_s;         /* its read / write phases, else job_time_s */
	double reads_s, writes_s, fsyncs_s, iops;
	double read_mb_s, write_mb_s;
	/*
	 * One user's rates (version 6; version 5 wrote them without _user):
	 * reads and read bytes over read_time_s, writes and written bytes over
	 * write_time_s, fsyncs and iops over job_time_s.
	 */
	double reads_s_user, writes_s_user, fsyncs_s_user, iops_user;
	double read_mb_s_user, write_mb_s_user;
	/* the whole point's share: work over the point's elapsed time (version 5 names) */
	double reads_s_point, writes_s_point, fsyncs_s_point, iops_point;
	double read_mb_s_point, write_mb_s_point;
	/* extents per file it wrote, after the write phase (FIEMAP; version 5; NAN: not measured) */
	double extents;
	struct res_hist *hist;   /* its jobs' latency histogram (owned; NULL: none recorded) */
};

/* Free n kinds and their histograms (the array too). */
void res_kinds_free(struct res_kind *k, size_t n);

/*
 * The block layer's distributions of one device over a point's window, from
 * the block tracepoints (src/trace, version 8; points[].devices.DEV.blk_hist):
 * per operation (read, write, flush, other) the time in the IO scheduler
 * (insert to issue, ns), the time in the device (issue to complete, ns),
 * the request sizes (bytes, at issue) and the requests in flight at each
 * issue, each in stats_hist's layout (RES_BLK_LAYOUT, as RES_HIST_LAYOUT
 * but of any unit), so that they add up across points and runs.
 */
#define RES_BLK_LAYOUT "log2-8"
enum res_blk_op { RES_BLK_READ, RES_BLK_WRITE, RES_BLK_FLUSH, RES_BLK_OTHER, RES_BLK_NOPS };
enum res_blk_what { RES_BLK_SCHED, RES_BLK_DEV, RES_BLK_SIZE, RES_BLK_DEPTH, RES_BLK_NWHAT };
/* "read", "write", "flush", "other"; "sched", "dev", "size", "depth" (the JSON keys). */
extern const char *const res_blk_op_names[RES_BLK_NOPS];
extern const char *const res_blk_what_names[RES_BLK_NWHAT];
/*
 * The requests of one mix entry on a device (points[].devices.DEV.blk_entries,
 * version 9): those issued (or inserted) by the users while they ran a job
 * of the entry; entry -1, "other", those of no user (writeback, the journal).
 */
struct res_blk_ent {
	int entry;               /* the mix entry's index; -1: other */
	char name[64];           /* the entry's name (the JSON key), "other" */
	uint64_t requests, reads, writes;
	double sched_p50_ms, sched_p99_ms;   /* NAN: none inserted */
	double dev_p50_ms, dev_p99_ms;       /* NAN: none completed */
};
struct res_blk {
	struct res_hist *h[RES_BLK_NOPS][RES_BLK_NWHAT];   /* owned; NULL: nothing counted */
	/*
	 * the time-weighted depth (blk_hist.time_depth): each bucket's n the
	 * ns the device spent with that many requests in flight (0 included),
	 * count their sum; owned, NULL: none
	 */
	struct res_hist *tdepth;
	struct res_blk_ent *ent; /* by entry, "other" first (owned); NULL: not kept */
	size_t nent;
};
/* Free b, its histograms too (NULL: nothing). */
void res_blk_free(struct res_blk *b);

/*
 * What one block device did over a point's measured window, from
 * /sys/block/<dev>/stat read at the release of the users and at the end
 * (points[].devices.<name>, since version 2), and from the block
 * tracepoints over the same window (blk.*, version 8; NAN, null: not traced).
 */
struct res_dev {
	char name[32];           /* the device (the JSON key) */
	double window_s;         /* between the two readings */
	uint64_t rd_ios, wr_ios, rd_merges, wr_merges, rd_sectors, wr_sectors, flushes;
	uint64_t io_ticks_ms, time_in_queue_ms;
	double iops, read_iops, write_iops;
	double mb_s, read_mb_s, write_mb_s;      /* 10^6 bytes per second */
	double avg_req_kib, read_req_kib, write_req_kib;   /* NAN with no requests */
	double merge_ratio;      /* merged / (merged + issued) */
	double util;             /* busy fraction of the window */
	double avg_qdepth;       /* requests in flight on average */
	/* the tracepoints' figures (version 8), all operations together */
	uint64_t blk_requests;   /* requests issued; UINT64_MAX: not traced */
	double blk_sched_p50_ms, blk_sched_p99_ms;   /* insert to issue; NAN: none inserted */
	double blk_dev_p50_ms, blk_dev_p99_ms;       /* issue to complete */
	double blk_req_kib_p50;  /* request size at issue */
	double blk_depth_p50, blk_depth_p90;         /* requests in flight at an issue */
	double blk_tdepth_p50, blk_tdepth_p90;       /* ... over the window's time (idle: 0) */
	uint64_t blk_bypassed, blk_merged, blk_requeued, blk_lost;
	/* the histograms and percentiles from 1 request in this, at random (version 10) */
	uint64_t blk_sample;
	struct res_blk *blk;     /* the histograms; NULL: none (not traced, or not read) */
};

/* One load point (one sample at one user count). */
/*
 * What the whole machine did over a point's timed window (read at the
 * release and at the end, as the device counters are): CPU seconds by
 * state (all CPUs), the share other work took, pressure stalls, vmstat
 * rates.  NAN where a file could not be read (no PSI, an old kernel).
 */
struct res_machine {
	double window_s;
	double user_s, nice_s, system_s, idle_s, iowait_s, irq_s, softirq_s, steal_s;
	double busy_s;                 /* all states but idle and iowait */
	double other_pct;              /* of the CPUs' capacity: busy time not the users', and steal */
	double steal_pct;              /* steal over all CPU time */
	double ctxt_s, load1;
	double psi_cpu_some, psi_cpu_full, psi_io_some, psi_io_full, psi_mem_some, psi_mem_full;
	double cg_psi_cpu_some, cg_psi_cpu_full, cg_psi_io_some, cg_psi_io_full, cg_psi_mem_some,
		cg_psi_mem_full;       /* the users' cgroup v2 group's, when there is one */
	double pgscan_s, pgsteal_s, pgmajfault_s, allocstall_s, nr_dirtied_s, nr_written_s,
		refault_s;
	int noisy;                     /* other_pct or steal_pct above RES_NOISY_PCT; -1 unknown */
	/* the users' memory cgroup (run --mem-limit); NAN without one */
	double mem_limit_bytes, mem_peak_bytes, mem_refault_s, mem_majfault_s, mem_oom_kills;
	double cache_hit_pct;          /* 1 - device bytes read / bytes the users read, in % */
	double quiet_wait_s;           /* --require-quiet: waited for a quiet machine; NAN: not asked */
	int quiet;                     /* ... and found one (0: the wait ran out); -1 not asked */
	/* samples that survive a busy host (version 7; stats.h's interference bound) */
	double interference_max_pct;   /* the bound this sample was judged by; NAN: not judged */
	int interfered;                /* other_pct above it, no re-measure left: kept, flagged */
	unsigned remeasured;           /* samples before it at this point discarded as over it */
	double discarded_other_pct;    /* ... the most other work took in one of them; NAN: none */
	double discarded_jpm;          /* ... their mean JPM; NAN: none */
};

/* A point during which other work took more than this share of the CPUs is noisy. */
#define RES_NOISY_PCT 10.0

struct res_point {
	unsigned users, sample, jobs_per_user;
	uint64_t jobs;
	double elapsed_s, jpm, jpm_per_user;
	double t_min, t_max, t_mean, t_stddev;   /* per-user finish times, s */
	double j_min, j_max, j_mean, j_stddev;   /* jobs per user (version 2) */
	double jti, user_cpu_s, sys_cpu_s;
	double jobs_per_cpu_s;   /* jobs / (user_cpu_s + sys_cpu_s) (version 7; derived before) */
	bool failed;
	unsigned failed_users;
	unsigned stuck_users;    /* outlived SIGKILL by the reap deadline (version 3) */
	double release_spread_ms;  /* first to last user released (version 3; NAN unknown) */
	char reason[512];        /* "" when none */
	bool interrupted;
	int steady_checked, steady_attained;   /* time mode: 0/1; -1 (null) in jobs mode */
	/* settling before the point (version 2; unknown: UINT64_MAX, NAN, -1) */
	uint64_t settle_dirty_bytes, settle_writeback_bytes, settle_left_bytes;
	double settle_wait_s;
	int settle_drained, settle_dropped;
	struct res_machine machine;   /* the machine over the timed window (version 5) */
	size_t nkinds;
	struct res_kind *kinds;  /* owned by the record's owner */
	size_t ndevs;
	struct res_dev *devs;    /* owned by the record's owner; none before version 2 */
};

/* Everything measured at one user count (summary.by_users[]). */
struct res_by_users {
	unsigned users, n;
	double jpm_mean, jpm_sd, ci95_lo, ci95_hi;
	bool failed;
	double *samples;         /* n JPM samples, owned */
};

/*
 * One user count of a run's ramp as compare and the charts read it: a
 * summary.by entry without its figures (res_summary_curve).
 */
struct res_curve_pt {
	unsigned users;
	unsigned n : 31;         /* n JPM samples */
	unsigned failed : 1;
	const double *samples;   /* 16 bytes: 100,000 runs x 18 user counts */
};

struct res_summary {
	double max_jpm;          /* best JPM over points that completed */
	unsigned max_jpm_users;
	double peak_jpm;         /* the ramp's best point ... */
	unsigned peak_users;
	bool peak_established;   /* ... and whether it is a claim */
	bool peak_flat, peak_beaten;
	double converge_threshold;
	double converge_jpm;     /* JPM at the first user count with JPM/user <= threshold (within
				  * converge_tol of it: see ramp.h, have_converge) */
	unsigned converge_users;
	double best_jpm;         /* the ramp's best point by the noise-aware rank (not the maximum) */
	unsigned best_users;
	unsigned points_measured;
	double wall_s;
	const char *stop_reason;   /* interned (intern.h), as the strings below */
	double noise_sd_rel;     /* pooled relative sd of repeated samples; NAN if none */
	unsigned noise_df;
	unsigned peak_users_lo;  /* users about the peak within the noise of it; 0: none */
	unsigned peak_users_hi;
	double peak_ci95_lo;     /* the peak's 95% interval of JPM (ratio scale); NAN: unknown */
	double peak_ci95_hi;
	double converge_tol;     /* the crossing's tolerance, a fraction of converge_users; NAN: none */
	const char *converge_tol_from; /* why: "configured", "top noise", "crossing scatter", "crossing prior"; "" */
	double converge_scatter; /* the crossing's samples' relative sd (conv_scatter); NAN: none */
	const char *suspect_users; /* converge: points past the peak off their neighbours, "1292 1335"; "" none */
	const char *outcome;     /* what the ramp did not reach (ramp_unreached_*), "; "-joined; "" all */
	unsigned remeasured;       /* samples discarded: other work over the bound (version 7) */
	unsigned interfered;       /* points kept flagged: over it, no re-measure left */
	size_t nby;
	struct res_by_users *by; /* owned */
	bool by_packed;          /* the samples live in by's block (freed with it) */
	size_t ncurve;
	struct res_curve_pt *curve;  /* by's user counts (res_summary_curve); owned */
	bool curve_own;          /* curve's samples live in its block (by may be gone) */
};

/*
 * The IO scheduler a run was measured under, when jobmix switched it (an
 * A/B arm): run.json "sched" (since version 2; null for a run that did not
 * switch).  Per device lists are space-separated "dev=value" words.
 */
struct res_sched {
	const char *scheduler;   /* the one made active for this run */
	const char *devices;     /* the devices switched, space separated (interned, as below) */
	const char *original;    /* "dev=scheduler ..." active before jobmix switched */
	int restored;            /* -1 unknown (running), 0 restore failed, 1 restored */
	const char *restore_error; /* why the restore failed; "" */
	const char *order;       /* fair | sequential */
	unsigned round;          /* A/B round (0 first) */
	const char *ab_index;    /* the A/B index.json grouping the arms */
	unsigned rounds_run;     /* rounds the A/B ran, when it ended (version 7; 0 before) */
	const char *until_decided; /* --until-decided: why the rounds stopped; "" without it */
};

/*
 * The unrecorded warm-up pass before a run's first point (run.json
 * "warmup", since version 2; null when there was none).
 */
struct res_warmup {
	unsigned users, jobs_per_user;
	double elapsed_s, jpm;
	bool failed;
	const char *reason;      /* interned (intern.h); "" none */
};

/*
 * Noise-sized points (run --point-noise, run.json "sizing", since version
 * 9; absent without it): the pilot samples the run took once, before its
 * first point, and the size every point of every arm then had.  Their
 * JPMs are written beside, as "sizing.pilots_jpm" (res_run_set_sizing).
 */
struct res_sizing {
	double target_pct;       /* measure.point_noise */
	unsigned users;          /* the pilots' user count */
	unsigned pilots;         /* pilot samples kept */
	unsigned redone;         /* pilots discarded: other work over the interference bound */
	double mean_jpm, sd_pct; /* the kept pilots' mean JPM and relative sd (%) */
	double pilot_s;          /* a pilot's mean elapsed time */
	unsigned wanted;         /* the factor the noise asked (a power of two) */
	unsigned factor;         /* the factor taken, after the caps */
	bool capped;             /* cut to 16, or to keep a point within max_point_s */
	double max_point_s;      /* the longest a sized point may be predicted to take */
	const char *measure;     /* "jobs" (jobs_per_user sized) or "time" (duration) */
	unsigned jobs_per_user_asked, jobs_per_user;
	double duration_asked_s, duration_s;
};

/*
 * One setting of a run: a workload key as `jobmix check --keys` and -P name
 * it ("users.as", "files.filesize"), a mix entry's "mix.NAME.job|weight|runs"
 * or a parameter "NAME.PARAM", with its value as text.  fp: part of the
 * fingerprint, what defines a load point (see fingerprint.c).
 */
struct res_setting {
	char key[200];
	char value[256];
	bool fp;
};

/* Who wrote a run (run.json "owner", since version 4): to tell a dead "running" run. */
struct res_owner {
	long pid;
	unsigned long long start;   /* process start time, clock ticks since boot */
	const char *boot;            /* /proc/sys/kernel/random/boot_id */
	const char *host;           /* interned (intern.h) */
};

#define RES_PROJ_MAX 28          /* rep_run_project: what "what else changed" takes */

/* A whole run as read back. */
struct res_rec {
	const char *path;        /* the run.json read (interned, intern.h, as the strings below) */
	const char *dir;         /* its folder */
	const char *id;          /* label run_id, else the folder's name */
	unsigned schema_version;
	enum res_status status;
	const char *started, *finished;
	const char *wl_name, *wl_sha256, *wl_path, *wl_description;
	const char *users_spec;  /* -u as given ("100%"), "" when none (since 3) */
	const char *users_resolved; /* -u with every N% resolved to users */
	unsigned users_cpus;     /* online CPUs N% was taken of */
	const char *wl_found;     /* how the workload was found (path, cwd, config, shipped) */
	size_t nlabels, nenv;
	struct res_kv *labels, *env;   /* env values as text */
	size_t npoints;
	struct res_point *points;  /* NULL (npoints 0) when read without them (RES_RUNS_POINTS) */
	/* from the points, kept when they are not read (res_rec_derive) */
	unsigned npoints_ok;     /* points that completed: neither failed nor interrupted */
	unsigned fail_users;     /* the last failed point that says why: its users ... */
	const char *fail_reason; /* ... and why (interned); "" none */
	bool lists_shared;       /* labels, env, settings are interned (util_intern_blob) */
	/*
	 * A run-level read (res_runs_load_parts without RES_RUNS_POINTS): while
	 * it is read, points holds only the points at the summary's user counts
	 * (res_rec_peak_point), without their mix entries (points_part); the
	 * reading command takes what it needs from them into proj (its
	 * `project` hook) and they are dropped.
	 */
	bool points_part;
	unsigned nproj, proj_users;
	double proj[RES_PROJ_MAX];
	struct res_summary summary;
	bool have_sched;         /* a "sched" object was recorded */
	struct res_sched sched;
	bool have_warmup;        /* a "warmup" object was recorded */
	struct res_warmup warmup;
	/* what it measured: settings sorted by key, derived from workload.resolved */
	struct res_setting *settings;
	size_t nsettings;
	char fp_id[20];          /* short hash of the fingerprint's keys and values */
	bool fp_legacy;          /* before schema 4: the mix's runs per user unknown */
	const char *session;     /* the A/B session (its index folder's name), "" for none */
	char round_text[12];     /* the A/B round from 1, as text (a --by key) */
	bool have_owner;
	struct res_owner owner;
	bool owner_gone;         /* running, and its owner is no longer (set by the caller) */
};

/* ---- what a run measured (fingerprint.c) ------------------------------------ */

/*
 * The settings of a resolved workload (run.json workload.resolved), sorted
 * by key, with the fingerprint flagged; users.jobs_per_user is the jobs a
 * user ran (the mix's runs per user, else jobs_run when not 0, else what
 * was asked).  axes (run.json "axes", or NULL): a matrix arm's values, each
 * key the workload does not have (queue.read_ahead_kb, vm.dirty_ratio,
 * mount) added as a fingerprint setting; "sched" is not (the env's
 * scheduler).  0 with a malloc'd list (none for a resolved that is not an
 * object), -1 out of memory.
 */
int res_settings(const json_t *resolved, const json_t *axes, unsigned jobs_run,
		 struct res_setting **out, size_t *nout);
/* A short id of the fingerprint (16 hex digits) into out. */
void res_fp_id(const struct res_setting *s, size_t n, char *out, size_t len);
/* run.json's "fingerprint": {"id": ..., "keys": {key: value}}; NULL out of memory. */
json_t *res_fingerprint_json(const json_t *resolved, const json_t *axes);
/* A run's setting by key (binary search), or NULL. */
const struct res_setting *res_setting_find(const struct res_rec *r, const char *key);
/*
 * The fingerprint keys in which runs a and b differ, keys in ignore[]
 * left out, in key order: f(key, value in a, value in b, ctx) for each
 * ("-" where a side has none); f may be NULL.  A key one side lacks is a
 * difference unless that side is fp_legacy (then it is unknown).  Returns
 * how many differ.
 */
size_t res_fp_diff(const struct res_rec *a, const struct res_rec *b, const char *const *ignore,
		   size_t nignore, void (*f)(const char *key, const char *va, const char *vb,
					     void *ctx), void *ctx);
/* Row i of the resolved-member table: its JSON path (NULL past the end) and *key. */
const char *res_fp_json_key(size_t i, const char **key);
/*
 * The parameters every job kind takes, {name, default as text}, ended by
 * {NULL, NULL}: at the default a setting outside the fingerprint (runs from
 * before the parameter fold with runs at its default), else inside it.
 */
extern const char *const res_fp_common[][2];

/* ---- the schema ---------------------------------------------------------- */

enum res_ftype {
	RF_UINT,     /* unsigned, always a number */
	RF_USERS,    /* unsigned user count; 0 <-> null */
	RF_U64,
	RF_U64N,     /* uint64_t; UINT64_MAX <-> null */
	RF_REAL,     /* double; NAN <-> null */
	RF_BOOL,
	RF_TRI,      /* int -1 (null) / 0 / 1 */
	RF_STR,      /* char[size]; "" <-> null */
	RF_STATUS,   /* enum res_status as its name */
	RF_ISTR,     /* const char *, interned (intern.h), never NULL; "" <-> null */
};

struct res_field {
	const char *key;         /* JSON key; "a.b" is member b of object a */
	enum res_ftype type;
	size_t offset;
	size_t size;             /* RF_STR: the buffer's size */
	unsigned since;          /* schema version that first wrote it */
	const char *doc;
	const char *csv;         /* points.csv column, in table order; NULL: not a column */
};

/* Each table ends with a row whose key is NULL. */
extern const struct res_field res_run_fields[];      /* struct res_rec, top level */
extern const struct res_field res_point_fields[];    /* struct res_point */
extern const struct res_field res_kind_fields[];     /* struct res_kind */
/* Keys of struct res_kind as files before version 5 wrote them (reader only). */
extern const struct res_field res_kind_legacy_fields[];
/* A kind read from a file before version 5: the phase times its keys did not carry. */
void res_kind_legacy(struct res_kind *k);
/* jobs / (user_cpu_s + sys_cpu_s): a point's jobs per CPU second of its users; NAN without CPU. */
double res_point_jpcs(uint64_t jobs, double user_cpu_s, double sys_cpu_s);
/*
 * An entry's rate over all its users: `count` requests (or bytes) done in
 * phases its users spent `phase_s` seconds in (summed over users), of
 * `job_s` seconds in its jobs, in a point of `elapsed_s` wall seconds.  The
 * users were in the entry job_s / elapsed_s at a time on average; at that
 * concurrency the phases took phase_s / (job_s / elapsed_s) of wall time,
 * and the rate is count over it.  phase_s >= job_s (a job without phases):
 * count / elapsed_s exactly.  NAN when a time is not positive.
 */
double res_entry_rate(double count, double phase_s, double job_s, double elapsed_s);
/*
 * The one MB/s formula: `bytes` (1 MB = 1e6 bytes) as res_entry_rate, what
 * run.json's read_mb_s / write_mb_s hold (res_kind_rates, run/record.c) and
 * the progress line prints (display/progress.c); test_progress holds them
 * equal.
 */
double res_entry_mb_s(uint64_t bytes, double phase_s, double job_s, double elapsed_s);
/* A phase's time summed over users: phase_ns, or the job time when none was timed. */
double res_phase_s(uint64_t phase_ns, double job_s);
/* Fill k's rates (all users' and *_user, *_point) from its counts and times. */
void res_kind_rates(struct res_kind *k, double elapsed_s);
extern const struct res_field res_by_users_fields[]; /* struct res_by_users */
extern const struct res_field res_summary_fields[];  /* struct res_summary */
extern const struct res_field res_dev_fields[];      /* struct res_dev */
extern const struct res_field res_sched_fields[];    /* struct res_sched */
extern const struct res_field res_blk_ent_fields[];  /* struct res_blk_ent */
extern const struct res_field res_warmup_fields[];   /* struct res_warmup */
extern const struct res_field res_sizing_fields[];   /* struct res_sizing (writer only) */

/* An empty point / summary: every real NAN, every count 0, steady null. */
void res_point_init(struct res_point *p);
void res_summary_init(struct res_summary *s);
/* An empty device record (reals NAN) / scheduler record (restored -1). */
void res_dev_init(struct res_dev *d);
/* Free n devices and their histograms (the array too). */
void res_devs_free(struct res_dev *d, size_t n);
void res_sched_init(struct res_sched *s);
void res_warmup_init(struct res_warmup *w);
/* An empty run: its strings "" (never NULL), its figures as the inits above. */
void res_rec_init(struct res_rec *r);
/*
 * Is point i at one of the user counts r's summary names (the ramp's best
 * when beaten, its peak, its largest JPM; with none of them, its first
 * completed point's): what a run-level read keeps of r's points.
 */
bool res_rec_peak_point(const struct res_rec *r, size_t i);
/* npoints_ok, fail_users and fail_reason from r's points. */
void res_rec_derive(struct res_rec *r);
/*
 * Does r's summary agree with its points?  Every JPM figure the summary
 * gives at a user count (peak_jpm, best_jpm, converge_jpm, max_jpm, each
 * summary.by_users entry's mean and samples) must lie within the JPM its
 * points measured at that count (a mean of them, or the largest; all of
 * them when the count is null), as jobmix writes it.  0, or -1 with err naming
 * the field, its value and what the points measured: a run.json edited or
 * damaged, which is refused rather than compared.  A figure with no
 * point at its count contradicts them too; a run holding only
 * some of its points (points_part) is not checked.
 */
int res_rec_check_summary(const struct res_rec *r, char *err, size_t errlen);
/*
 * r's labels, env and settings replaced by interned copies (runs of one
 * host, kernel and workload share one), never freed; -1 out of memory
 * (r keeps its own).
 */
int res_rec_share_lists(struct res_rec *r);
/* Free s's by-users entries, their samples and the curve (nby, ncurve 0). */
void res_summary_drop_by(struct res_summary *s);
/* s's curve made from its by-users entries (their samples shared).  -1 out of memory. */
int res_summary_curve(struct res_summary *s);
/* The curve with its own samples, by-users entries freed (a run-level read).  -1 out of memory. */
int res_summary_keep_curve(struct res_summary *s);
/* Keep only r's points at the peak (res_rec_peak_point), without their mix entries (points_part). */
void res_rec_keep_peak_points(struct res_rec *r);
/* Free r's points (npoints 0): what res_rec_derive keeps stays. */
void res_rec_drop_points(struct res_rec *r);
/* r's path (file) and dir (its folder, "." for none), interned; -1 out of memory. */
int res_rec_set_path(struct res_rec *r, const char *file);

/*
 * JSON values as run.json writes them, for the objects the run side builds
 * (env, the resolved workload): a number, or null when it is not finite; an
 * unsigned 64-bit integer; a string whose bytes that are not UTF-8 become
 * '?' (NULL gives null).  NULL when out of memory.
 */
json_t *res_json_num(double v);
json_t *res_json_u64(uint64_t v);
json_t *res_json_str(const char *s);

/* ---- writing --------------------------------------------------------------- */

struct res_run;   /* a run folder being written */

/* What a run states about itself when it starts. */
struct res_run_head {
	const char *wl_name, *wl_path, *wl_sha256, *wl_description;
	const char *wl_found;     /* path | cwd | config | shipped, or NULL (null) */
	json_t *resolved;        /* borrowed: the workload, every default filled in */
	json_t *env;             /* borrowed: the environment object, or NULL */
	const struct res_kv *labels;
	size_t nlabels;
	int argc;
	char **argv;
	const char *name_suffix;  /* appended to the folder name ("-bfq"), or NULL */
	const struct res_owner *owner;  /* who writes it, or NULL (no "owner") */
};

/*
 * Create a new run folder under outdir (each missing component created);
 * never reuses an existing folder: a name taken in the same second gets
 * -2, -3, ...  Writes a first run.json with status "running".  NULL with
 * err set.
 */
struct res_run *res_run_create(const char *outdir, const struct res_run_head *head, char *err,
			       size_t errlen);
const char *res_run_dir(const struct res_run *r);
/* Append one load point; also keeps summary.max_jpm (best completed point). */
int res_run_add_point(struct res_run *r, const struct res_point *p)
	__attribute__((warn_unused_result));
/* Set (replace) the run's "warmup" object. */
int res_run_set_warmup(struct res_run *r, const struct res_warmup *w)
	__attribute__((warn_unused_result));
/*
 * Set (replace) the run's "sizing" object (s, and the kept pilots' JPMs
 * pilot_jpm[0..n)), and its workload.resolved with the sized workload's
 * (resolved: taken over), the fingerprint derived again from it (and the
 * run's axes).  0 or -1 (out of memory; resolved freed).
 */
int res_run_set_sizing(struct res_run *r, const struct res_sizing *s, const double *pilot_jpm,
		       size_t n, json_t *resolved) __attribute__((warn_unused_result));
/*
 * Set the run's "users" object: -u as given, the online CPUs a share N% was
 * taken of, and the spec with every N% resolved (since schema 3).
 */
int res_run_set_users(struct res_run *r, const char *spec, unsigned cpus, const char *resolved)
	__attribute__((warn_unused_result));
/* One value of a matrix arm's axis (run.json "axes": {key: value}). */
struct res_axis {
	char key[64];
	char value[128];
};
/* What an arm set on the system, where, what it read back and what it found. */
struct res_axis_set {
	char key[64];           /* queue.read_ahead_kb, vm.dirty_ratio, mount */
	char target[256];       /* the device, the mount point; "" for a sysctl */
	char value[128];        /* what was written */
	char read_back[256];    /* what the kernel then said */
	char original[256];     /* what was there before the matrix */
};
/*
 * Set (replace) the arm's "axes" and "axes_set", and its "fingerprint"
 * again with the axes in it (res_settings).
 */
int res_run_set_axes(struct res_run *r, const struct res_axis *ax, size_t n,
		     const struct res_axis_set *set, size_t nset) __attribute__((warn_unused_result));
/* Set (replace) the run's "sched" object. */
int res_run_set_sched(struct res_run *r, const struct res_sched *s)
	__attribute__((warn_unused_result));
/* Replace the summary (max_jpm/max_jpm_users are kept from the points). */
int res_run_set_summary(struct res_run *r, const struct res_summary *s)
	__attribute__((warn_unused_result));
/*
 * Write run.json and points.csv atomically with the given status; a status
 * other than running also sets "finished".  Both are written and fsynced
 * before either is renamed (points.csv first, run.json last), so a failed
 * write (a full file system) replaces neither: on error the previous files
 * are left as they were, agreeing, and err names the folder, the file and
 * the reason.
 */
int res_run_write(struct res_run *r, enum res_status status, char *err, size_t errlen)
	__attribute__((warn_unused_result));
void res_run_free(struct res_run *r);

/* ---- reading ----------------------------------------------------------------- */

#define RES_READ_KINDS 1u    /* also read every point's jobs_by_kind */

/*
 * Read a run: `path` is a run folder (its run.json) or a file.  Accepts
 * schema versions 1..RES_SCHEMA_VERSION; a file that is truncated, not
 * JSON, of another schema or version, or whose keys have the wrong types
 * is refused with err naming the path (and line:column for bad JSON).
 * 0, or -1 with *out empty.  Free with res_rec_free().
 */
int res_read(const char *path, unsigned flags, struct res_rec *out, char *err, size_t errlen)
	__attribute__((warn_unused_result));
void res_rec_free(struct res_rec *r);

/*
 * A run's value for a grouping key: a label of that name, else an env
 * field, else a setting ("users.jobs_per_user", "fileio.block"), else one
 * of "workload", "status", "id", "run_id", "started", "session" (an A/B's),
 * "round" (its round, from 1), "fingerprint" (fp_id); NULL when it has
 * none.  Labels kernel= and scheduler= thus override the recorded
 * environment.
 */
const char *res_rec_get(const struct res_rec *r, const char *key);

/*
 * Every run.json under `path` (a run folder, a run.json file, or a root
 * searched recursively, symbolic links not followed), sorted by path.
 * 0 with a malloc'd list (free each and the list), -1 with err set when
 * `path` cannot be read.
 */
int res_find(const char *path, char ***files, size_t *n, char *err, size_t errlen)
	__attribute__((warn_unused_result));
/*
 * The same, and what could not be searched ("path: why": an unreadable
 * folder, one deeper than 16 below the root, a run.json that is not a
 * regular file) into *skipped (malloc'd like files).
 */
int res_find_all(const char *path, char ***files, size_t *n, char ***skipped, size_t *nskipped,
		 char *err, size_t errlen) __attribute__((warn_unused_result));
/*
 * A file's identity as the index keeps it (from lstat): a run.json unchanged
 * keeps it.  ctime is in it because no user can set it back (touch -d sets
 * mtime, and moves ctime on).
 */
struct res_ident {
	uint64_t dev, ino;
	int64_t size, mtime_ns, ctime_ns;
	unsigned mode;
};
struct stat;
void res_ident_of(const struct stat *st, struct res_ident *id);
/* The same, with each run.json's identity as the walk found it into *id (malloc'd). */
int res_find_stat(const char *path, char ***files, struct res_ident **id, size_t *n,
		  char ***skipped, size_t *nskipped, char *err, size_t errlen)
	__attribute__((warn_unused_result));

#endif
