/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The job interface.
 *
 * A job kind is one classic AIM7 test (disk_rr, add_int, ...) or one
 * parametrised I/O pattern (fileio, seqread, streams).  Each kind is a
 * `const struct job_kind job_<name>` defined in src/jobs/<family>.c and
 * listed once in src/jobs/kinds.h; the registry, `jobmix jobs` and the
 * job table of docs/jobs.md are generated from that list.
 *
 * Lifecycle of one mix entry during one load point:
 *
 *   parent, before fork, untimed:   prepare()   once per work directory
 *   each user, before the barrier:  setup()     once per user
 *   each user, timed:               run_once()  as often as the job list says
 *   each user, after its last job:  teardown()
 *
 * The parent removes the whole work area it created afterwards, so a job
 * that is killed half-way leaves nothing behind.  Jobs must be re-entrant:
 * with `users: {as: threads}` several users share one process, so no
 * mutable statics (kinds that cannot run as threads set JOB_PROCESS_ONLY).
 *
 * Errors: a hook returns 0 or -1; on -1 it has described the failure with
 * job_fail() ("disk_rr: read '/w/u3/rr' failed: Input/output error").
 * A failed job makes its user, and therefore the load point, fail.
 *
 * Files: jobs run as root in directories that other users may be able to
 * reach the path of, so no hook ever resolves a path through the work
 * directory: every file is made, opened, linked and removed beneath a
 * descriptor the parent holds (c->dir_fd, c->shared_fd, p->shared_fd) with
 * the *at() calls and O_NOFOLLOW, by its leaf name.  The paths (c->dir,
 * c->shared_dir) are for messages only, built on the error path
 * (job_fail_at: "disk_rr: read '/mnt/t/jobmix.1.0/work/disk_rr.u3' failed").
 * A directory swapped in above the work directory, or symlinks planted
 * under the names the jobs use, are then never followed.
 *
 * See src/jobs/template.c.txt for a commented example kind.
 */
#ifndef JOBMIX_JOB_H
#define JOBMIX_JOB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "jobmix/rng.h"

/* ---- parameters ---------------------------------------------------- */

enum job_ptype {
	JP_INT,    /* int64_t                                       */
	JP_SIZE,   /* uint64_t bytes; YAML takes 4k, 16m, 2g, 1t   */
	JP_BOOL,   /* bool                                          */
	JP_ENUM,   /* int: index into choices[]                     */
	JP_FLAGS,  /* unsigned: bit i set for choices[i]; YAML: list or "a|b" */
	JP_DOUBLE, /* double                                        */
	JP_RANGE,  /* struct job_range; YAML "4k" or "4k-64k" (sizes, lo <= hi) */
	JP_WEIGHTS, /* struct job_weights; YAML "1:20" (whole numbers >= 1), "" none */
	JP_DEVICE, /* char[JOB_DEVICE_LEN]: a block device's name ("/dev/X" or "X"), "" none */
};

#define JOB_DEVICE_LEN 32

/* A size, or a range of sizes to draw from (lo == hi: fixed). */
struct job_range {
	uint64_t lo, hi;
};

#define JOB_MAX_WEIGHTS 256
#define JOB_WEIGHT_MAX 1000000

/* Relative weights, one per item (n == 0: none given, all alike). */
struct job_weights {
	unsigned n;
	uint32_t w[JOB_MAX_WEIGHTS];
};

/*
 * One parameter, declared once.  The same entry drives YAML parsing,
 * `jobmix jobs NAME` and docs/jobs.md's table.  `def` is the default written
 * as it would be in YAML and is parsed by the same code as user input.
 */
struct job_param {
	const char *name;
	enum job_ptype type;
	size_t offset;               /* into the kind's parameter struct */
	double min, max;             /* inclusive range (INT, SIZE, DOUBLE) */
	const char *def;             /* default, YAML spelling */
	const char *const *choices;  /* ENUM, FLAGS: NULL-terminated */
	const char *help;
};

#define JOB_MAX_PARAMS 16

/*
 * The parameters every kind takes, declared once (job_common_params[],
 * src/jobs/params.c) and held beside the kind's own (struct wl_entry's
 * `common`).  They come after a kind's own parameters everywhere they are
 * listed: `jobmix jobs NAME`, run.json, `jobmix check`; set_mask bit
 * job_nparams(k) + i is common parameter i.
 *
 * scale multiplies one job's work: its loops for the compute kinds, its
 * requests and bytes for the I/O kinds, its operations for the rest (see
 * job_scaled()), so a candidate can do exactly 10% more work per job
 * (-X ENTRY.scale=1,1.1) and a regression is injected that no idle CPU
 * can absorb.
 */
struct job_common {
	double scale;              /* 0.01 to 100; 1: the kind's own work */
};

#define JOB_NCOMMON 1
extern const struct job_param job_common_params[JOB_NCOMMON + 1]; /* name == NULL ends it */

/* ---- what a running job sees ----------------------------------------- */

/*
 * What a sync point (where re-aim called DO_SYNC) does.  Values are the
 * indices of the workload's `sync:` names: none, file, global, exec.
 */
enum job_sync { JOB_SYNC_NONE, JOB_SYNC_FILE, JOB_SYNC_GLOBAL, JOB_SYNC_EXEC };

/* Work counted by the job itself; the load generator zeroes and collects it. */
struct job_io {
	uint64_t rbytes, wbytes;   /* bytes read / written          */
	uint64_t rops, wops;       /* read / write requests          */
	uint64_t rtime_ns;         /* optional: time spent in a read phase  */
	uint64_t wtime_ns;         /* optional: time spent in a write phase */
	uint64_t fsyncs;           /* fsync/fdatasync calls made by the job    */
	uint64_t syncs;            /* sync points that synced (sync: not none) */
	uint64_t extents;          /* optional: extents of the files written (job_extents) */
	uint64_t extent_files;     /* ... over this many files (0: not measured)         */
};

#define JOB_ERR_LEN 256

/* Per-user (per-thread) context.  Everything here is set before the barrier. */
struct job_ctx {
	/*
	 * The directory the user works in (exists): shared by the users of
	 * the same work dir (files.layout: shared, re-aim's way) or private
	 * (per_user).  dir_fd is a descriptor of it the parent holds (users
	 * inherit it; threads share it): make every file beneath it with
	 * openat(dir_fd, leaf, ...|O_NOFOLLOW) and the other *at() calls.
	 * Name the user's own files with job_own_name(); dir is the path, for
	 * messages only.
	 */
	const char *dir;
	int dir_fd;
	const char *shared_dir;    /* directory shared by users of the same work dir */
	int shared_fd;             /* ... its held descriptor, as dir_fd */
	const char *libexec_dir;   /* helper scripts/programs shipped with jobmix */
	unsigned user;             /* 0-based user index                        */
	unsigned nusers;           /* users in this load point                  */
	unsigned entry;            /* index of the mix entry being run          */
	bool last_run;             /* the user's last run of this entry (fixed job
				    * counts; never in fixed-duration points)   */
	uint64_t filesize;         /* AIM7 D in bytes: FILESIZE + POOLSIZE/users, KiB-rounded */
	enum job_sync sync;        /* workload's sync: setting                  */
	struct jm_rng *rng;        /* per-user, reproducible                    */
	char *iobuf;               /* JOB_IOBUF_SIZE bytes, 4 KiB aligned, non-zero pattern */
	struct job_io io;          /* the job adds to it                        */
	char err[JOB_ERR_LEN];     /* set by job_fail()                         */
	const char *job_name;      /* for messages                              */
	/*
	 * The entry's scale (struct job_common), set with job_name before each
	 * hook; a job turns its counts into work with job_scaled().  0 (a
	 * context made without one, as in a test) is 1.
	 */
	double scale;
	/*
	 * A SysV IPC key unique to this user in this run.  A job that needs a
	 * SysV object that cannot be marked for removal at once (a semaphore
	 * set) creates it with this key; the parent removes any object with
	 * this key after reaping the user, so a killed user leaks nothing.
	 */
	int ipc_key;
};

#define JOB_IOBUF_SIZE (4u << 20)

/* What prepare() sees: once per work directory per load point, in the parent. */
struct job_prep {
	const char *shared_dir;    /* for messages only */
	int shared_fd;             /* held descriptor of it: make files beneath it */
	unsigned nusers;           /* users in this load point (all dirs)       */
	unsigned dir_users;        /* users placed in this work directory       */
	unsigned entry;
	uint64_t filesize;
	enum job_sync sync;
	uint64_t seed;
	char err[JOB_ERR_LEN];
	const char *job_name;
	double scale;              /* the entry's scale (0: 1): size shared files with job_scaled_max() */
};

/* ---- a kind ------------------------------------------------------------ */

enum job_flags {
	JOB_IO           = 1u << 0, /* moves bytes: report MB/s and IOPS           */
	JOB_PROCESS_ONLY = 1u << 1, /* cannot run with users as threads            */
	JOB_DISK         = 1u << 2, /* touches the work directories                 */
	JOB_FORKS        = 1u << 3, /* a job starts child processes (counts for NPROC) */
};

/* Descriptors a user may have open at once beyond what fds_held() declares. */
#define JOB_FDS_TRANSIENT 8

struct job_kind {
	const char *name;
	const char *family;        /* disk, compute, ipc, proc, mem, fileio, ... */
	const char *summary;       /* one line for `jobmix jobs`                  */
	const char *doc;           /* longer description, fixes over re-aim, ...  */
	unsigned flags;
	size_t params_size;        /* size of the kind's parameter struct (0: none) */
	const void *variant;       /* kind-private constant data (e.g. disk mode)   */
	struct job_param params[JOB_MAX_PARAMS]; /* terminated by name == NULL */
	/* optional: descriptors one user keeps open between jobs (setup state) */
	unsigned (*fds_held)(const void *params);
	/*
	 * optional: of those, the ones opened with job_shared_open(): held
	 * once per process and work directory, whatever its users (threads)
	 */
	unsigned (*fds_shared)(const void *params);
	/*
	 * optional: the block device the entry reads (and, *writes, writes)
	 * directly ("loop0"), or NULL.  Watched by the run; written only when it
	 * is the run's --scratch device.
	 */
	const char *(*device)(const void *params, bool *writes);

	/*
	 * optional: cross-parameter check at load time; message into err.
	 * set_mask bit i: params[i] was given explicitly (not a default).
	 */
	int (*check)(const struct job_kind *k, const void *params, uint64_t set_mask, char *err,
		     size_t errlen);
	int (*prepare)(struct job_prep *p, const struct job_kind *k, const void *params);
	int (*setup)(struct job_ctx *c, const struct job_kind *k, const void *params, void **state);
	int (*run_once)(struct job_ctx *c, const struct job_kind *k, const void *params, void *state);
	void (*teardown)(struct job_ctx *c, const struct job_kind *k, const void *params, void *state);
};

/* ---- registry (src/jobs/registry.c) ------------------------------------ */

extern const struct job_kind *const job_kinds[];
extern const size_t job_nkinds;

const struct job_kind *job_find(const char *name);
/* Closest kind name by edit distance, or NULL if nothing is close. */
const char *job_suggest(const char *name);
/* A parameter of k by name: its own or a common one (job_param_is_common); NULL: none. */
const struct job_param *job_param_find(const struct job_kind *k, const char *name);
/* The kind's own parameters (k->params[0..n)). */
size_t job_nparams(const struct job_kind *k);
/*
 * Every parameter k takes: its own, then the common ones.  job_param_at(k,
 * i) for i < job_nparams_all(k); job_param_index() is p's i (its set_mask bit).
 */
size_t job_nparams_all(const struct job_kind *k);
const struct job_param *job_param_at(const struct job_kind *k, size_t i);
size_t job_param_index(const struct job_kind *k, const struct job_param *p);
bool job_param_is_common(const struct job_param *p);
/* Every common parameter's default into *common. */
void job_common_defaults(struct job_common *common);

/*
 * Parse `text` as a value of parameter p into params (at p->offset).
 * Returns 0, or -1 with a message ("expected a size like 16k") in err.
 */
int job_param_parse(const struct job_param *p, void *params, const char *text,
		    char *err, size_t errlen);
/* Write a parameter's current value in YAML spelling. */
void job_param_format(const struct job_param *p, const void *params, char *buf, size_t len);
/* Fill params with every default; returns -1 only on a bad table (a bug). */
int job_params_defaults(const struct job_kind *k, void *params, char *err, size_t errlen);

/* ---- helpers for job implementations (src/jobs/util.c) ----------------- */

/* Describe a failure: "<job>: <op> '<path>' failed: <strerror(err)>"; returns -1. */
int job_fail(struct job_ctx *c, const char *op, const char *path, int err);
/* The same for the file leaf in the directory dir: "<job>: <op> '<dir>/<leaf>' failed: ..." */
int job_fail_at(struct job_ctx *c, const char *op, const char *dir, const char *leaf, int err);
int job_failf(struct job_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int job_prep_fail(struct job_prep *p, const char *op, const char *path, int err);
/* prepare()'s failure on leaf in p->shared_dir: "<job>: <op> '<shared_dir>/<leaf>' failed: ..." */
int job_prep_fail_at(struct job_prep *p, const char *op, const char *leaf, int err);

/* Build "<dir>/<name>" into buf (PATH_MAX); returns buf. */
char *job_path(char *buf, const char *dir, const char *name);
/*
 * The user's own file `name`: "<name>.u<user>" into buf (len bytes), a
 * leaf of c->dir_fd unique among the users sharing the directory; returns
 * buf.  job_own_path() is the same as a path ("<dir>/<name>.u<user>",
 * PATH_MAX), for messages.
 */
char *job_own_name(char *buf, size_t len, const struct job_ctx *c, const char *name);
char *job_own_path(char *buf, const struct job_ctx *c, const char *name);

/* Full-length I/O, retrying short transfers and EINTR; -1 with errno set. */
ssize_t job_pwrite_all(int fd, const void *buf, size_t len, off_t off);
ssize_t job_pread_all(int fd, void *buf, size_t len, off_t off);
ssize_t job_write_all(int fd, const void *buf, size_t len);
ssize_t job_read_all(int fd, void *buf, size_t len);

/*
 * The workload's sync: policy at a point where re-aim's DO_SYNC ran:
 * none: nothing (re-aim -y); file: fsync(fd) (if fd >= 0); global: sync();
 * exec: /bin/sh -c sync, waited for (re-aim's default system("sync")).
 * Counts c->io.syncs (and c->io.fsyncs for file).  dir and leaf name fd's
 * file in a message (either may be NULL).
 */
int job_sync_point(struct job_ctx *c, int fd, const char *dir, const char *leaf);

/* Logical block size of the device holding the directory open at dirfd (for O_DIRECT); 512 if unknown. */
unsigned job_dio_align(int dirfd);

/*
 * The extents of the file open at fd as the file system lays it out
 * (FIEMAP, its dirty pages written back first: FIEMAP_FLAG_SYNC).  0 with
 * *n set; -1 with errno when the file system cannot tell (ENOTTY,
 * EOPNOTSUPP: tmpfs and others) or the call failed.
 */
int job_extents(int fd, uint64_t *n);
/*
 * A file shared by the users of a work directory, opened once per process:
 * users that are threads of one process (users.as: threads) get the same
 * descriptor, as sysbench's threads share theirs; a user process has its
 * own.  openat(dirfd, leaf, flags | O_NOFOLLOW | O_CLOEXEC) the first
 * time; later opens of the same dirfd, leaf and flags count a reference.
 * Only for I/O at explicit offsets (pread/pwrite) and fsync.  Returns the
 * descriptor, or -1 with errno.  job_shared_close() drops a reference and
 * closes the descriptor with the last; job_shared_count() is the number
 * of descriptors the table holds (for tests).
 */
int job_shared_open(int dirfd, const char *leaf, int flags);
void job_shared_close(int fd);
unsigned job_shared_count(void);
/* job_extents(fd) added to c->io.extents / extent_files when the file system can tell. */
void job_count_extents(struct job_ctx *c, int fd);

/* True if leaf (of dirfd, not followed) is a regular file of exactly size bytes, its blocks allocated. */
bool job_file_is_filled(int dirfd, const char *leaf, uint64_t size);
/*
 * Create leaf beneath dirfd (O_NOFOLLOW) and write it fully (not sparse) in
 * 1 MiB requests with a pattern in which every 4 KiB block is distinct,
 * then fsync it (its pages end clean).  Returns 0 or an errno value with
 * *op naming the failed operation.
 */
int job_fill_file(int dirfd, const char *leaf, uint64_t size, uint64_t seed, const char **op);
/*
 * The same written in requests of `req` bytes (at most 1 MiB), as a tool
 * that prepares its files that way does (sysbench prepare writes its block
 * size): the page cache and the file's extents end up the same.
 */
int job_fill_file_req(int dirfd, const char *leaf, uint64_t size, uint64_t seed, size_t req,
		      const char **op);

/*
 * The buffer for requests of `block` bytes: c->iobuf when it is large and
 * aligned enough, else a new aligned, pattern-filled buffer stored in *own
 * (the caller frees it).  With direct, block must be a multiple of the
 * O_DIRECT alignment of the directory open at dirfd (dir names it in the
 * message).  NULL on failure, with c->err set.
 */
char *job_io_buffer(struct job_ctx *c, int dirfd, const char *dir, bool direct, uint64_t block,
		    char **own);
/*
 * Is /dev/name a block device nobody has claimed (no mounted file system,
 * no exclusive holder: an O_EXCL open of it succeeds)?  Its size into
 * *bytes.  0, or -1 with err naming it and why.
 */
int job_device_check(const char *name, uint64_t *bytes, char *err, size_t errlen);
/* Open /dev/name with flags (O_CLOEXEC added), its size into *bytes: the fd, or -1 (failed). */
int job_device_open(struct job_ctx *c, const char *name, int flags, uint64_t *bytes);

/*
 * Message size i (cycling) of re-aim's pipe and socket tests: its table of
 * 37 sizes from 1 to 4096 bytes (mean 718), small ones first.
 */
size_t job_reaim_msg_size(unsigned i);
#define JOB_REAIM_MSG_MAX 4096

/* Fill a buffer with a reproducible non-zero pattern. */
void job_fill_pattern(void *buf, size_t len, uint64_t seed);
/* A teardown hook for a state that setup() allocated in one block: free(state). */
void job_free_state(struct job_ctx *c, const struct job_kind *k, const void *params, void *state);

/*
 * One job's count of work units, n, times the entry's scale (c->scale),
 * computed once when the job starts.  A whole product (within 1e-9, as
 * 1000 x 1.1) is taken as it is; a fraction rounds up with a probability
 * equal to the fraction, drawn from the user's reproducible c->rng (down
 * without one), so each job's count is within one unit of n x scale and
 * the mean over jobs is exactly n x scale: work scales linearly even for
 * a count of 1 (shell_rtns: scale 1.1 runs the script twice in one job
 * of ten).  At least 1 when n is.  scale 1 draws nothing and returns n.
 */
uint64_t job_scaled(struct job_ctx *c, uint64_t n);
/* The most job_scaled() can return for n at scale (0: 1): for sizing what the jobs share. */
uint64_t job_scaled_max(double scale, uint64_t n);
/* The rounding of job_scaled() with u, a uniform draw in [0, 1) (pure, for tests). */
uint64_t job_scale_round(uint64_t n, double scale, double u);

/* A value compilers must assume is used (keeps compute kernels honest). */
extern volatile uint64_t job_sink;

#endif
