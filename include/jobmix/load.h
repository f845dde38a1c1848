/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The forking load generator: one load point = N users running the mix.
 *
 * The parent prepares shared files (untimed), forks N users (or one process
 * with N threads), waits until every user has set up, starts the clock
 * (CLOCK_MONOTONIC) and releases them together through the start barrier,
 * a futex word in the shared mapping (one store, one wake of every user).
 * Each user writes its finish time, per-entry counts, latency histogram
 * and I/O counters into a shared mapping; the parent sleeps in
 * ppoll() (never busy-polls), reaps every user, and kills all of them when
 * one fails, the time limit passes or a stop is requested.
 */
#ifndef JOBMIX_LOAD_H
#define JOBMIX_LOAD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "jobmix/job.h"
#include "jobmix/stats.h"
#include "jobmix/workload.h"

/*
 * The directories jobmix created for a run: <dir>/jobmix.<pid>.<n>/, each
 * holding a marker file (LOAD_AREA_MARKER) that names its owner: pid,
 * process start time and boot id.  Each root is held open from its
 * creation (root_fds), as are the work directories above them: everything
 * the run makes there is made beneath those descriptors with *at() calls
 * and O_NOFOLLOW, never through a path (the paths in roots are for
 * messages and the run's records).
 */
#define LOAD_AREA_MARKER ".jobmix-area"
/* How long clearing or removing the area may take before it is left to its child. */
#define LOAD_CLEAN_TIMEOUT_S 60.0
struct load_area {
	char **roots;             /* one per workload dir, created by us */
	int *root_fds;            /* the held descriptor of each root */
	size_t n;
	void *priv;               /* identities and descriptors of what we created */
	unsigned stale_removed;   /* stale areas of dead jobmix runs removed on create */
	char stale_note[512];     /* the first of them, for the user */
	char workdir_note[512];   /* a work directory a gone run made, taken over to remove */
	unsigned others;          /* live areas of other jobmix runs in the work directories */
	long other_pid;           /* the first of them */
	char others_note[512];    /* ... said for the user */
	/*
	 * Clearing and removal run in a child process waited for this long
	 * (0: LOAD_CLEAN_TIMEOUT_S); on a timeout the child is left to finish
	 * and left_note says what was left where.
	 */
	double clean_timeout_s;
	unsigned stuck_users;     /* users left behind by a point: not cleared between points */
	char left_note[640];
};

/*
 * Can dir be a work directory?  Refused: "/" and the system directories
 * (/etc, /usr, /proc, /sys, /dev but /dev/shm, ...), a path any of whose
 * existing components is a symlink (give the real path), and one any of
 * whose existing components (the work directory itself too) another user
 * could change (load_dir_trusted).  0, or -1 with err set.  Nothing is
 * created.
 */
int load_workdir_check(const char *dir, char *err, size_t errlen);
/*
 * The trust rule for one existing directory on a work directory's path
 * (st as lstat gave it; euid the invoking user): owned by root or euid and
 * writable by neither group nor others, or sticky and owned by root (as
 * /tmp).  Anything else could be renamed, and the work directory swapped,
 * by another user.  0, or -1 with err naming path, its owner and mode.
 * Not a directory: 0 (refused elsewhere).
 */
int load_dir_trusted(const char *path, const struct stat *st, uid_t euid, char *err,
		     size_t errlen);
/*
 * Create one private root under each of wl->dirs (mkdir, never reuse),
 * after removing the work areas that earlier jobmix runs left there when
 * killed (their marker names an owner that is gone); areas of live runs and
 * anything without a marker are left alone (a live one of another run is
 * counted in others).  A work directory that a gone run made is taken over:
 * removed at the end if empty then (workdir_note).
 */
int load_area_create(const struct workload *wl, struct load_area *a, char *err, size_t errlen);
/* The held descriptor of root i. */
int load_area_root_fd(const struct load_area *a, size_t i);
/*
 * Remove everything below and including each root, and a work directory
 * we made once empty; never follows symlinks; frees a (its notes stay).
 * Bounded (clean_timeout_s): -1 with errno ETIMEDOUT and left_note set.
 */
int load_area_remove(struct load_area *a);
/* Empty each root (keep the roots) between load points; bounded as removal. */
int load_area_clear(struct load_area *a);
/*
 * Bring the area to the same state before a change of conditions (an IO
 * scheduler switch): write back each root's filesystem (syncfs) and drop the
 * cached pages of every file jobmix has there.  0, or -1 if any step failed.
 */
int load_area_settle(struct load_area *a);

/* What settling before a point found and did (see load_cfg.settle). */
struct load_settle {
	uint64_t dirty_bytes;        /* dirty page cache when settling began */
	uint64_t writeback_bytes;    /* under writeback when settling began */
	uint64_t left_bytes;         /* dirty + writeback when it ended */
	double wait_s;               /* how long it took */
	bool drained;                /* dirty + writeback drained within the bound */
	bool dropped;                /* the page cache was dropped */
	bool full;                   /* the hook ran (else only wait_s, of a plain sync) */
};

/* The two ends of a point's measured window (see load_cfg.mark). */
enum load_mark { LOAD_MARK_START, LOAD_MARK_END };

/* How long a point waits for killed users to exit before leaving them behind. */
#define LOAD_REAP_TIMEOUT_S 10.0

struct load_cfg {
	const struct workload *wl;
	const struct load_area *area;
	unsigned users;
	unsigned jobs_per_user;   /* requested J (counts are rounded per entry) */
	double timeout_s;         /* kill users still running after this (> 0)  */
	double reap_timeout_s;    /* wait this long for killed users to go (0: LOAD_REAP_TIMEOUT_S) */
	uint64_t seed;            /* run seed; user i's RNG: (seed, i)           */
	unsigned sample;          /* repeat index, varies the seed               */
	const char *libexec_dir;
	enum wl_measure measure;
	double duration_s;        /* time mode */
	double ramp_s;            /* time mode: warm-up excluded from the window */
	double steady_pct;        /* time mode: steady-state band (0 = off)      */
	unsigned steady_windows;
	/*
	 * Optional: called about once a second while users run (a terminal's
	 * status line).  The parent still sleeps in between; NULL: never.
	 */
	void (*tick)(void *arg);
	void *tick_arg;
	/*
	 * Optional: called in the parent at the ends of the measured window:
	 * LOAD_MARK_START just before the users are released (time mode with a
	 * warm-up: when the warm-up ends), LOAD_MARK_END when the last user has
	 * finished (time mode: when the window closes).  Set-up and clean-up
	 * lie outside.  now_ns is CLOCK_MONOTONIC.  A point that fails or is
	 * interrupted may get START without END.  Runs while users run: keep
	 * it short.  NULL: never.
	 */
	void (*mark)(void *arg, enum load_mark mark, uint64_t now_ns);
	void *mark_arg;
	/*
	 * Optional: called in the parent once every user has set up, just
	 * before the release (outside the timed region), to give every point
	 * the same starting state: write back, wait for dirty pages to drain,
	 * drop caches.  Fills *rec; -1 with err set fails the point.  NULL: a
	 * plain sync(2), timed.
	 */
	int (*settle)(void *arg, struct load_settle *rec, char *err, size_t errlen);
	void *settle_arg;
	/*
	 * Optional: a cgroup's cgroup.procs, open for writing, that every user
	 * process joins before any work (run --mem-limit).  <= 2: none.
	 */
	int cgroup_fd;
	/*
	 * Optional: where each user says which mix entry its job is of (the
	 * block tracer's requests by entry, iotrace.h): at each job's start a
	 * plain store of tid << 32 | entry + 1 into word tid & entry_tags_mask
	 * (the thread's id: users as threads share their process's pid)
	 * (shared memory mapped before the users fork: no system call).
	 * NULL: not said.
	 */
	uint64_t *entry_tags;
	uint32_t entry_tags_mask;
};

/* Per mix entry, summed over users. */
struct load_entry_stats {
	uint64_t runs;
	struct stats_hist lat;    /* per-job latency, ns */
	struct job_io io;
};

struct load_point {
	unsigned users;
	unsigned jobs_per_user;   /* actual, after rounding */
	uint64_t jobs;            /* completed jobs counted for JPM */
	bool failed;
	bool interrupted;
	char reason[512];         /* why it failed */
	unsigned failed_users;
	unsigned stuck_users;     /* still there reap_timeout_s after SIGKILL; left behind */
	double release_spread_ms; /* first to last user starting work after the release */
	double elapsed_s;
	double jpm, jpm_per_user;
	struct stats_summary user_time; /* per-user finish times, s */
	struct stats_summary user_jobs; /* jobs each user completed (counted ones) */
	double jti;
	double user_cpu_s, sys_cpu_s;
	bool steady_checked, steady_attained;   /* time mode */
	bool settled;             /* settle below was done */
	struct load_settle settle;
	size_t nentries;
	struct load_entry_stats *entries; /* nentries, owned */
};

/*
 * Run one load point.  *stop is polled (set by SIGINT/SIGTERM/SIGHUP handlers);
 * when it becomes non-zero the users are killed and the point is marked
 * interrupted.  Returns 0 when the point was measured (it may still be
 * failed: see out->failed), -1 on a set-up error (err set).  The caller
 * makes room in the limits first for what load_need says the point needs
 * (the run engine does, src/run/fit.c).
 */
int load_run_point(const struct load_cfg *cfg, struct load_point *out,
		   volatile sig_atomic_t *stop, char *err, size_t errlen);
void load_point_free(struct load_point *p);

/*
 * What a point of `users` needs of the process limits: descriptors in one
 * process (the parent's, and per user the kinds' fds_held plus
 * JOB_FDS_TRANSIENT; all users' in thread mode) and tasks of this user.
 */
struct load_need {
	uint64_t nofile, nproc;
};
void load_need(const struct workload *wl, unsigned users, struct load_need *n);
/* Tasks one user may run at once: itself, its forking jobs' children, sync: exec's programs. */
unsigned load_user_tasks(const struct workload *wl);
/*
 * The most users the descriptors allow under a hard RLIMIT_NOFILE of `hard`
 * (UINT64_MAX: none); UINT_MAX when they do not grow with the users.  Pure
 * but for counting the parent's open descriptors.
 */
unsigned load_max_users_by_nofile(const struct workload *wl, uint64_t hard);

#endif
