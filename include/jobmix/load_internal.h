/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The load generator's inside (load.h is its interface): the per-user
 * record in the shared mapping and the user-side entry points.  Only
 * src/load and its unit tests include it.  The parent creates the mapping before
 * forking; each user writes only its own slot; the parent reads the slots
 * after reaping.
 */
#ifndef JOBMIX_LOAD_INTERNAL_H
#define JOBMIX_LOAD_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "jobmix/load.h"

enum user_state { USER_STARTING = 0, USER_READY, USER_DONE, USER_FAILED };

#define LOAD_MAX_INTERVALS 4096   /* time mode: 1-second completion counters */

struct user_slot {
	int state;                /* enum user_state */
	uint64_t t_start_ns;      /* CLOCK_MONOTONIC when the barrier let this user go */
	uint64_t t_end_ns;        /* CLOCK_MONOTONIC when the last counted job ended */
	uint64_t jobs;            /* jobs completed (time mode: inside the window) */
	char err[JOB_ERR_LEN];
	/* followed by nentries x struct load_entry_stats, then nintervals x uint32_t */
};

/*
 * The map's first page: the release time and the start barrier.  Users
 * wait on `go` (a shared futex) until the parent sets it and wakes them
 * all in one call.  (A pipe closed at the release, as before, made every
 * woken user queue on the pipe's mutex, one hand-off at a time: seconds of
 * spread at 2,000 users.)
 */
#define LOAD_HEADER_SIZE 4096
struct load_header {
	volatile uint64_t t0_ns;
	uint32_t go;              /* 0 until the release; futex word */
	uint32_t left;            /* users that have left the barrier */
	uint32_t all_left;        /* 1 once every user has: the second futex word */
};

/*
 * The start barrier.  The parent releases (load_barrier_release); each user
 * wakes, notes the time (load_barrier_wait returns it) and waits again
 * until every user has left, so that no user runs into its jobs while
 * others still wait to be scheduled for the first time; the last to leave
 * lets them all go.
 */
uint64_t load_barrier_wait(struct load_header *hdr, unsigned users);
void load_barrier_release(struct load_header *hdr);

/* Everything a user needs, prepared by the parent before forking. */
struct load_user_cfg {
	const struct load_cfg *cfg;
	const unsigned *counts;   /* runs per entry per pass of the job list */
	unsigned jobs;            /* sum of counts */
	struct load_header *hdr;  /* shared: the release time */
	char *map;                /* shared mapping of all slots */
	size_t slot_size;
	unsigned nintervals;
	int ready_fd;             /* write one byte when set up */
	int pattern_fd;           /* memfd with the I/O pattern, mapped privately */
	pid_t parent;             /* the parent: a user whose parent is gone exits */
	/*
	 * Held descriptors of the point's directories, opened by the parent
	 * beneath the area's roots before forking (users inherit them, threads
	 * share them): each work dir's shared dir, and the users' directories
	 * (load_user_dir_index).
	 */
	const int *shared_fds;
	const int *user_fds;
};

static inline struct user_slot *load_slot(const struct load_user_cfg *u, unsigned i)
{
	return (struct user_slot *)(u->map + (size_t)i * u->slot_size);
}

static inline struct load_entry_stats *load_slot_entries(struct user_slot *s)
{
	return (struct load_entry_stats *)(s + 1);
}


/*
 * The directory user i works in: "<root>/work", shared by every user placed
 * in that work dir (files.layout: shared, as re-aim), or "<root>/u<i>"
 * (per_user); and the shared dir of work dir d (prepare()'s files).
 */
void load_user_dir(const struct load_cfg *cfg, unsigned user, char *buf, size_t len);
void load_shared_dir(const struct load_cfg *cfg, size_t d, char *buf, size_t len);
/*
 * The users' directories of a point: how many (one per work dir shared by
 * its users, or one per user), the one of user i, and its name beneath its
 * area root ("work" or "u<i>", leaf of len bytes).
 */
size_t load_user_dirs(const struct load_cfg *cfg);
size_t load_user_dir_index(const struct load_cfg *cfg, unsigned user);
void load_user_dir_name(const struct load_cfg *cfg, size_t index, char *leaf, size_t len);
int load_ipc_key(pid_t owner, unsigned user);
uint64_t load_now_ns(void);

/* Body of one user (process or thread); returns 0 or -1 (slot err set). */
int load_user_main(const struct load_user_cfg *u, unsigned user);
/* Process-mode user: runs load_user_main and _exit()s. */
void load_user_process(const struct load_user_cfg *u, unsigned user) __attribute__((noreturn));
/* Thread-mode host process: runs users [0, n) as threads and _exit()s. */
void load_user_threads(const struct load_user_cfg *u) __attribute__((noreturn));

#endif
