// SPDX-License-Identifier: GPL-2.0-only
/*
 * The parent side of a load point: prepare, fork, release (the barrier is
 * barrier.c), supervise, reap, measure.  The parent never busy-polls: it sleeps in ppoll() with SIGCHLD,
 * SIGINT, SIGTERM and SIGHUP unblocked only there, and wakes for a user's exit, a
 * stop request or the time limit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/load_internal.h"

static void on_sigchld(int sig)
{
	(void)sig; /* only interrupts ppoll() */
}

struct supervisor {
	const struct load_cfg *cfg;
	struct load_user_cfg u;
	struct load_point *out;
	pid_t *pids;              /* per process (users, or the one thread host) */
	unsigned nprocs, alive;
	bool killed;              /* we killed the users: later deaths are ours */
	bool gave_up;             /* some users outlived the reap deadline */
	sigset_t waitmask;        /* the mask inside ppoll() */
	volatile sig_atomic_t *stop;
};

static void set_reason(struct load_point *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_reason(struct load_point *out, const char *fmt, ...)
{
	out->failed = true;
	if (out->reason[0])
		return; /* keep the first cause */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
}

static void kill_all(struct supervisor *s)
{
	for (unsigned i = 0; i < s->nprocs; i++)
		if (s->pids[i] > 0) {
			kill(-s->pids[i], SIGKILL); /* the user's process group */
			kill(s->pids[i], SIGKILL);  /* in case setpgid had not happened */
		}
	s->killed = true;
}

/* Which user failed in the thread host (first slot marked failed), or -1. */
static int failed_slot(const struct supervisor *s)
{
	for (unsigned i = 0; i < s->cfg->users; i++)
		if (load_slot(&s->u, i)->state == USER_FAILED)
			return (int)i;
	return -1;
}

/* Reap every exited process without blocking; judge each exit. */
static void reap(struct supervisor *s)
{
	for (;;) {
		int st;
		struct rusage ru;
		pid_t pid = wait4(-1, &st, WNOHANG, &ru);
		if (pid <= 0)
			return;
		unsigned i;
		for (i = 0; i < s->nprocs && s->pids[i] != pid; i++)
			;
		if (i == s->nprocs)
			continue; /* not ours */
		s->pids[i] = -pid;
		s->alive--;
		s->out->user_cpu_s += (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
		s->out->sys_cpu_s += (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
			continue;
		if (s->killed)
			continue; /* a death we caused; the reason is set already */
		/* In thread mode the host stands for all users; find the one that failed. */
		int user = s->nprocs == 1 && s->cfg->wl->users.as == WL_USERS_THREADS
				   ? failed_slot(s) : (int)i;
		const char *err = user >= 0 ? load_slot(&s->u, (unsigned)user)->err : "";
		s->out->failed_users++;
		if (WIFSIGNALED(st))
			set_reason(s->out, "user %d killed by signal %d (%s)%s%s", user,
				   WTERMSIG(st), strsignal(WTERMSIG(st)), err[0] ? ": " : "", err);
		else
			set_reason(s->out, "user %d failed: %s", user,
				   err[0] ? err : "exited with a non-zero status");
		kill_all(s);
	}
}

/*
 * Sleep until something happens (a child exits, a signal, fd readable) or
 * the deadline passes.  Returns 1 if fd is readable, 0 otherwise.
 */
static int wait_event(struct supervisor *s, int fd, uint64_t deadline_ns)
{
	uint64_t now = load_now_ns();
	if (now >= deadline_ns)
		return 0;
	uint64_t left = deadline_ns - now;
	struct timespec ts = { (time_t)(left / 1000000000ull), (long)(left % 1000000000ull) };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = ppoll(fd >= 0 ? &pfd : NULL, fd >= 0 ? 1 : 0, &ts, &s->waitmask);
	return n > 0 && (pfd.revents & (POLLIN | POLLHUP));
}

/*
 * A user that SIGKILL cannot end (uninterruptible sleep: a hung device, a
 * frozen cgroup) is left behind rather than waited for: the point fails
 * naming the pids, and the run stops with what it measured.
 */
static void leave_stuck(struct supervisor *s, double waited_s)
{
	struct load_point *out = s->out;
	char pids[160] = "";
	size_t len = 0;
	unsigned listed = 0;
	for (unsigned i = 0; i < s->nprocs && len < sizeof(pids) - 16; i++)
		if (s->pids[i] > 0) {
			len += (size_t)snprintf(pids + len, sizeof(pids) - len, "%s%ld",
						listed++ ? ", " : "", (long)s->pids[i]);
		}
	if (listed < s->alive && len < sizeof(pids) - 8)
		snprintf(pids + len, sizeof(pids) - len, ", ...");
	bool threads = s->cfg->wl->users.as == WL_USERS_THREADS;
	out->stuck_users = threads ? s->cfg->users : s->alive;
	char what[256];
	snprintf(what, sizeof(what),
		 "%u user process%s still there %.0f s after SIGKILL (pid %s; uninterruptible "
		 "sleep?): left behind", s->alive, s->alive == 1 ? "" : "es", waited_s, pids);
	size_t have = strlen(out->reason);
	if (!have)
		snprintf(out->reason, sizeof(out->reason), "%s", what);
	else if (have + 3 < sizeof(out->reason))
		snprintf(out->reason + have, sizeof(out->reason) - have, "; %s", what);
	out->failed = true;
	s->gave_up = true;
}

/*
 * After a stop, a failure or the time limit: make sure everyone is gone,
 * within a deadline (a second signal does not cut it short, the deadline
 * does: the parent never waits forever for a user).
 */
static void finish_off(struct supervisor *s)
{
	if (s->gave_up)
		return;
	if (!s->killed)
		kill_all(s);
	double lim = s->cfg->reap_timeout_s > 0 ? s->cfg->reap_timeout_s : LOAD_REAP_TIMEOUT_S;
	uint64_t deadline = load_now_ns() + (uint64_t)(lim * 1e9);
	for (;;) {
		reap(s);
		if (!s->alive)
			return;
		uint64_t now = load_now_ns();
		if (now >= deadline) {
			leave_stuck(s, lim);
			return;
		}
		uint64_t wake = now + 100000000ull;
		wait_event(s, -1, wake < deadline ? wake : deadline);
	}
}

/*
 * Empty the work area for the next point.  Users left behind (stuck in
 * uninterruptible sleep: a hung or frozen filesystem) may still hold it,
 * and touching it could hang the parent as well: it is left for the run's
 * removal, which waits for it no longer than the reap timeout.  A clear
 * that does not finish in time fails the point.
 */
static void clean_area(struct supervisor *s)
{
	struct load_area *a = (struct load_area *)s->cfg->area;
	struct load_point *out = s->out;
	if (s->gave_up) {
		a->stuck_users += out->stuck_users;
		a->clean_timeout_s = s->cfg->reap_timeout_s > 0 ? s->cfg->reap_timeout_s
								 : LOAD_REAP_TIMEOUT_S;
		return;
	}
	if (!load_area_clear(a))
		return;
	if (errno == ETIMEDOUT)
		set_reason(out, "could not clear the work area: %s", a->left_note);
	else if (!out->failed)
		set_reason(out, "could not remove every work file");
}

static void remove_ipc(unsigned users)
{
	for (unsigned i = 0; i < users; i++) {
		int key = load_ipc_key(getpid(), i);
		int id = semget(key, 0, 0);
		if (id >= 0)
			semctl(id, 0, IPC_RMID);
		id = shmget(key, 0, 0);
		if (id >= 0)
			shmctl(id, IPC_RMID, NULL);
	}
}

/* Per-second completions over the window: steady if the last k are within ±pct of their mean. */
static void steady_check(const struct supervisor *s)
{
	const struct load_cfg *cfg = s->cfg;
	unsigned k = cfg->steady_windows ? cfg->steady_windows : 5;
	unsigned full = (unsigned)floor(cfg->duration_s);
	struct load_point *out = s->out;
	out->steady_checked = true;
	if (full < k || full > s->u.nintervals) {
		out->steady_attained = false;
		return;
	}
	double v[k], sum = 0;
	for (unsigned j = 0; j < k; j++) {
		uint64_t c = 0;
		for (unsigned i = 0; i < cfg->users; i++) {
			struct user_slot *sl = load_slot(&s->u, i);
			uint32_t *iv = (uint32_t *)(load_slot_entries(sl) + cfg->wl->nmix);
			c += iv[full - k + j];
		}
		v[j] = (double)c * 60.0; /* jobs in one second -> JPM */
		sum += v[j];
	}
	double mean = sum / k;
	out->steady_attained = mean > 0;
	for (unsigned j = 0; j < k; j++)
		if (fabs(v[j] - mean) > mean * cfg->steady_pct / 100.0)
			out->steady_attained = false;
}

/* Fill out's metrics from the slots of a point where every user finished. */
static void measure(struct supervisor *s, uint64_t t0)
{
	const struct load_cfg *cfg = s->cfg;
	struct load_point *out = s->out;
	unsigned n = cfg->users;
	double *t = calloc(n, sizeof(*t));
	double tmax = 0;
	uint64_t first = UINT64_MAX, last = 0;
	if (!t) {
		set_reason(out, "out of memory measuring the point");
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct user_slot *sl = load_slot(&s->u, i);
		if (sl->state != USER_DONE) {
			set_reason(out, "user %u did not finish (state %d)", i, sl->state);
			free(t);
			return;
		}
		t[i] = (double)(sl->t_end_ns - t0) / 1e9;
		if (sl->t_start_ns < first)
			first = sl->t_start_ns;
		if (sl->t_start_ns > last)
			last = sl->t_start_ns;
		if (t[i] > tmax)
			tmax = t[i];
		out->jobs += sl->jobs;
		struct load_entry_stats *es = load_slot_entries(sl);
		for (size_t e = 0; e < out->nentries; e++) {
			struct load_entry_stats *to = &out->entries[e];
			to->runs += es[e].runs;
			stats_hist_merge(&to->lat, &es[e].lat);
			to->io.rbytes += es[e].io.rbytes;
			to->io.wbytes += es[e].io.wbytes;
			to->io.rops += es[e].io.rops;
			to->io.wops += es[e].io.wops;
			to->io.rtime_ns += es[e].io.rtime_ns;
			to->io.wtime_ns += es[e].io.wtime_ns;
			to->io.fsyncs += es[e].io.fsyncs;
			to->io.syncs += es[e].io.syncs;
			to->io.extents += es[e].io.extents;
			to->io.extent_files += es[e].io.extent_files;
		}
	}
	out->release_spread_ms = (double)(last - first) / 1e6;
	stats_summarize(t, n, &out->user_time);
	double tj = out->jti = stats_jti(t, n);
	for (unsigned i = 0; i < n; i++)
		t[i] = (double)load_slot(&s->u, i)->jobs;
	stats_summarize(t, n, &out->user_jobs);
	/*
	 * In time mode every user runs until the window closes, so finish times
	 * say nothing: JTI is taken over the jobs each user completed in the
	 * window instead (equal work done: 100).
	 */
	out->jti = cfg->measure == WL_MEASURE_TIME ? stats_jti(t, n) : tj;
	out->elapsed_s = cfg->measure == WL_MEASURE_TIME ? cfg->duration_s : tmax;
	if (out->elapsed_s > 0) {
		out->jpm = (double)out->jobs * 60.0 / out->elapsed_s;
		out->jpm_per_user = out->jpm / n;
	}
	if (cfg->measure == WL_MEASURE_TIME && cfg->steady_pct > 0)
		steady_check(s);
	/* a window in which no job completed measured nothing: not a 0-JPM point */
	if (cfg->measure == WL_MEASURE_TIME && !out->jobs)
		set_reason(out, "no job completed in the window (%g s)", cfg->duration_s);
	free(t);
}

/* The held descriptors of a point's directories (-1: not open). */
struct point_dirs {
	int *shared;              /* per work dir */
	int *user;                /* per users' directory (load_user_dirs) */
	size_t nshared, nuser;
};

/* Make (mkdirat, 0700) and open the directory leaf beneath root i; its descriptor or -1 (reason set). */
static int open_dir_at(const struct load_cfg *cfg, struct load_point *out, size_t i,
		       const char *leaf)
{
	int rfd = load_area_root_fd(cfg->area, i);
	int fd = -1;
	if (!mkdirat(rfd, leaf, 0700) || errno == EEXIST)
		fd = openat(rfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		set_reason(out, "mkdir '%s/%s': %s", cfg->area->roots[i], leaf, strerror(errno));
	return fd;
}

static void close_dirs(struct point_dirs *pd)
{
	for (size_t i = 0; pd->shared && i < pd->nshared; i++)
		if (pd->shared[i] >= 0)
			close(pd->shared[i]);
	for (size_t i = 0; pd->user && i < pd->nuser; i++)
		if (pd->user[i] >= 0)
			close(pd->user[i]);
	free(pd->shared);
	free(pd->user);
	memset(pd, 0, sizeof(*pd));
}

/*
 * Make and open the shared and the users' directories beneath the area's
 * held roots (the users inherit the descriptors), and run every prepare()
 * hook beneath the shared ones.
 */
static int prepare_dirs(const struct load_cfg *cfg, struct load_point *out, struct point_dirs *pd)
{
	const struct workload *wl = cfg->wl;
	const size_t n = cfg->area->n;
	char path[PATH_MAX], leaf[32];
	pd->nshared = n;
	pd->nuser = load_user_dirs(cfg);
	pd->shared = malloc(n * sizeof(*pd->shared));
	pd->user = malloc(pd->nuser * sizeof(*pd->user));
	if (!pd->shared || !pd->user) {
		set_reason(out, "out of memory opening the work directories");
		return -1;
	}
	for (size_t d = 0; d < pd->nshared; d++)
		pd->shared[d] = -1;
	for (size_t u = 0; u < pd->nuser; u++)
		pd->user[u] = -1;
	for (size_t d = 0; d < n; d++)
		if ((pd->shared[d] = open_dir_at(cfg, out, d, "shared")) < 0)
			return -1;
	for (size_t u = 0; u < pd->nuser; u++) {
		load_user_dir_name(cfg, u, leaf, sizeof(leaf));
		if ((pd->user[u] = open_dir_at(cfg, out, u % n, leaf)) < 0)
			return -1;
	}
	for (size_t e = 0; e < wl->nmix; e++) {
		const struct wl_entry *en = &wl->mix[e];
		if (!en->kind->prepare || !en->weight)
			continue;
		for (size_t d = 0; d < n; d++) {
			load_shared_dir(cfg, d, path, sizeof(path));
			unsigned dir_users = cfg->users / (unsigned)n +
					     (d < cfg->users % n ? 1 : 0);
			struct job_prep p = {
				.shared_dir = path, .shared_fd = pd->shared[d],
				.nusers = cfg->users, .dir_users = dir_users,
				.entry = (unsigned)e, .filesize = wl_job_filesize(wl, cfg->users),
				.sync = wl->sync, .seed = cfg->seed, .job_name = en->name,
				.scale = en->common.scale,
			};
			if (dir_users && en->kind->prepare(&p, en->kind, en->params)) {
				set_reason(out, "prepare: %s", p.err);
				return -1;
			}
		}
	}
	return 0;
}

/* A memfd holding the I/O pattern; users map it privately (copy on write). */
static int make_pattern(uint64_t seed)
{
	int fd = memfd_create("jobmix-pattern", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, JOB_IOBUF_SIZE)) {
		close(fd);
		return -1;
	}
	void *p = mmap(NULL, JOB_IOBUF_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		close(fd);
		return -1;
	}
	job_fill_pattern(p, JOB_IOBUF_SIZE, seed);
	munmap(p, JOB_IOBUF_SIZE);
	return fd;
}

/* One point's state across its phases, released in reverse by point_end. */
struct point_run {
	struct supervisor s;
	struct point_dirs pd;
	int ready[2];             /* users write one byte each when set up */
	unsigned *counts;
	void *map;
	size_t maplen;
	bool masked;              /* the signal mask and SIGCHLD handler are ours */
	sigset_t oldmask;
	struct sigaction oldsa;
	uint64_t t0;
};

/* What a phase says comes next. */
enum point_next {
	POINT_ON,                 /* the next phase */
	POINT_KILL,               /* kill the users, then clean up */
	POINT_STOPPED,            /* nothing to kill: a stop before the fork */
	POINT_CLEAN,              /* measured, or failed before any user: clean up */
};

/*
 * Set up: the result's entries, the job counts, the shared map (a header
 * page, then a slot per user), the I/O pattern and the ready pipe.  0, or
 * -1 with err.
 */
static int point_setup(struct point_run *pr, char *err, size_t errlen)
{
	const struct load_cfg *cfg = pr->s.cfg;
	const struct workload *wl = cfg->wl;
	struct load_point *out = pr->s.out;
	const bool threads = wl->users.as == WL_USERS_THREADS;
	memset(out, 0, sizeof(*out));
	out->users = cfg->users;
	out->nentries = wl->nmix;
	out->entries = calloc(wl->nmix, sizeof(*out->entries));
	pr->counts = calloc(wl->nmix, sizeof(*pr->counts));
	pr->s.pids = calloc(threads ? 1 : cfg->users, sizeof(*pr->s.pids));
	if (!out->entries || !pr->counts || !pr->s.pids) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	unsigned jobs = wl_job_counts(wl, cfg->jobs_per_user, pr->counts);
	out->jobs_per_user = jobs;

	unsigned nint = 0;
	if (cfg->measure == WL_MEASURE_TIME) {
		double secs = cfg->duration_s + 2;
		nint = secs > LOAD_MAX_INTERVALS ? LOAD_MAX_INTERVALS : (unsigned)secs;
	}
	size_t slot = sizeof(struct user_slot) + wl->nmix * sizeof(struct load_entry_stats) +
		      nint * sizeof(uint32_t);
	slot = (slot + 63) & ~(size_t)63;
	pr->maplen = LOAD_HEADER_SIZE + slot * cfg->users;
	pr->map = mmap(NULL, pr->maplen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pr->map == MAP_FAILED) {
		snprintf(err, errlen, "cannot map %zu bytes for %u users: %s", pr->maplen,
			 cfg->users, strerror(errno));
		return -1;
	}
	pr->s.u = (struct load_user_cfg){
		.cfg = cfg, .counts = pr->counts, .jobs = jobs, .hdr = pr->map,
		.map = (char *)pr->map + LOAD_HEADER_SIZE, .slot_size = slot, .nintervals = nint,
		.pattern_fd = make_pattern(cfg->seed), .parent = getpid(),
	};
	if (pr->s.u.pattern_fd < 0 || pipe2(pr->ready, O_CLOEXEC)) {
		snprintf(err, errlen, "cannot set up the barrier: %s", strerror(errno));
		return -1;
	}
	pr->s.u.ready_fd = pr->ready[1];
	return 0;
}

/*
 * SIGCHLD and the asynchronous signals that stop a run (the caller's
 * handlers set *stop) are delivered only inside ppoll(), never in between,
 * so a stop is never slept through.
 */
static void point_block_signals(struct point_run *pr)
{
	static const int wake[] = { SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM,
				    SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGPIPE };
	sigset_t block;
	struct sigaction sa = { .sa_handler = on_sigchld };
	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(wake) / sizeof(wake[0]); i++)
		sigaddset(&block, wake[i]);
	sigprocmask(SIG_BLOCK, &block, &pr->oldmask);
	sigaction(SIGCHLD, &sa, &pr->oldsa);
	pr->masked = true;
	pr->s.waitmask = pr->oldmask;
	for (size_t i = 0; i < sizeof(wake) / sizeof(wake[0]); i++)
		sigdelset(&pr->s.waitmask, wake[i]);
}

/* The point's directories, then a clean start (re-aim's "sync;sync;sync"). */
static enum point_next point_prepare(struct point_run *pr)
{
	if (prepare_dirs(pr->s.cfg, pr->s.out, &pr->pd))
		return POINT_CLEAN;
	pr->s.u.shared_fds = pr->pd.shared;
	pr->s.u.user_fds = pr->pd.user;
	/* Every point starts clean: the previous point's dirty data is written
	 * back outside the timed region. */
	sync();
	return *pr->s.stop ? POINT_STOPPED : POINT_ON;
}

/* Fork the users (or the one process of thread users). */
static enum point_next point_fork(struct point_run *pr)
{
	struct supervisor *s = &pr->s;
	const bool threads = s->cfg->wl->users.as == WL_USERS_THREADS;
	s->nprocs = threads ? 1 : s->cfg->users;
	for (unsigned i = 0; i < s->nprocs; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			set_reason(s->out, "fork of user %u failed: %s", i, strerror(errno));
			return POINT_KILL;
		}
		if (pid == 0) {
			close(pr->ready[0]);
			if (threads)
				load_user_threads(&s->u);
			load_user_process(&s->u, i);
		}
		setpgid(pid, pid);
		s->pids[i] = pid;
		s->alive++;
	}
	close(pr->ready[1]);
	pr->ready[1] = -1;
	return POINT_ON;
}

/* Wait until every user is set up (one byte each), or one dies. */
static enum point_next point_wait_ready(struct point_run *pr)
{
	struct supervisor *s = &pr->s;
	const struct load_cfg *cfg = s->cfg;
	uint64_t deadline = load_now_ns() + (uint64_t)(cfg->timeout_s * 1e9);
	unsigned nready = 0;
	while (nready < cfg->users) {
		if (wait_event(s, pr->ready[0], deadline)) {
			char buf[256];
			ssize_t r = read(pr->ready[0], buf, sizeof(buf));
			if (r > 0)
				nready += (unsigned)r;
			else if (r == 0)
				break; /* every writer gone */
		}
		reap(s);
		if (s->out->failed || *s->stop)
			return POINT_KILL;
		if (load_now_ns() >= deadline) {
			set_reason(s->out, "users not set up after %.0f s (time limit)",
				   cfg->timeout_s);
			return POINT_KILL;
		}
	}
	if (nready < cfg->users) {
		reap(s);
		set_reason(s->out, "only %u of %u users got ready", nready, cfg->users);
		return POINT_KILL;
	}
	return POINT_ON;
}

/* The same starting state for every point, outside the timed region. */
static enum point_next point_settle(struct point_run *pr)
{
	const struct load_cfg *cfg = pr->s.cfg;
	struct load_point *out = pr->s.out;
	if (cfg->settle) {
		char serr[384];
		if (cfg->settle(cfg->settle_arg, &out->settle, serr, sizeof(serr))) {
			set_reason(out, "settling before the point failed: %s", serr);
			return POINT_KILL;
		}
	} else {
		uint64_t ts = load_now_ns();
		sync();
		out->settle.wait_s = (double)(load_now_ns() - ts) / 1e9;
	}
	out->settled = true;
	reap(&pr->s);
	return out->failed || *pr->s.stop ? POINT_KILL : POINT_ON;
}

/*
 * Release and supervise: the window's start mark, the clock starts, then
 * the barrier opens for everyone at once; then wait for the users, with
 * the ticks, the marks due (time mode marks the window it counts:
 * [t0 + ramp, t0 + ramp + duration]) and the time limit; then measure.
 */
static enum point_next point_release(struct point_run *pr)
{
	struct supervisor *s = &pr->s;
	const struct load_cfg *cfg = s->cfg;
	const bool threads = cfg->wl->users.as == WL_USERS_THREADS;
	const bool timed = cfg->measure == WL_MEASURE_TIME;
	uint64_t mark_at[2] = { 0, 0 };   /* pending marks (time mode), 0 = none */
	if (cfg->mark && (!timed || cfg->ramp_s <= 0))
		cfg->mark(cfg->mark_arg, LOAD_MARK_START, load_now_ns());
	uint64_t t0 = load_now_ns();
	s->u.hdr->t0_ns = t0;
	load_barrier_release(s->u.hdr);
	if (cfg->mark && timed) {
		if (cfg->ramp_s > 0)
			mark_at[LOAD_MARK_START] = t0 + (uint64_t)(cfg->ramp_s * 1e9);
		mark_at[LOAD_MARK_END] = t0 + (uint64_t)((cfg->ramp_s + cfg->duration_s) * 1e9);
	}

	double limit = cfg->timeout_s;
	if (timed)
		limit += cfg->ramp_s + cfg->duration_s;
	uint64_t deadline = t0 + (uint64_t)(limit * 1e9);
	uint64_t next_tick = t0 + 1000000000ull;
	while (s->alive) {
		uint64_t wake = deadline;
		if (cfg->tick && next_tick < wake)
			wake = next_tick;
		for (int m = 0; m < 2; m++)
			if (mark_at[m] && mark_at[m] < wake)
				wake = mark_at[m];
		wait_event(s, -1, wake);
		uint64_t now = load_now_ns();
		for (int m = 0; m < 2; m++)
			if (mark_at[m] && now >= mark_at[m]) {
				mark_at[m] = 0;
				cfg->mark(cfg->mark_arg, (enum load_mark)m, now);
			}
		if (cfg->tick && now >= next_tick) {
			cfg->tick(cfg->tick_arg);
			next_tick += 1000000000ull;
		}
		reap(s);
		if (s->out->failed || *s->stop)
			return POINT_KILL;
		if (s->alive && load_now_ns() >= deadline) {
			set_reason(s->out, "%u of %u users still running after %.0f s (time limit); "
				   "killed", s->alive * (threads ? cfg->users : 1), cfg->users, limit);
			return POINT_KILL;
		}
	}
	/* Jobs mode: the window ends with the last user; time mode: marks still due now. */
	if (cfg->mark && !timed)
		cfg->mark(cfg->mark_arg, LOAD_MARK_END, load_now_ns());
	for (int m = 0; m < 2; m++)
		if (mark_at[m])
			cfg->mark(cfg->mark_arg, (enum load_mark)m, load_now_ns());
	measure(s, t0);
	return POINT_CLEAN;
}

/* Release everything the point holds, in reverse; `next` says how it ended. */
static void point_end(struct point_run *pr, enum point_next next)
{
	struct supervisor *s = &pr->s;
	if (next == POINT_KILL)
		finish_off(s);
	if ((next == POINT_KILL || next == POINT_STOPPED) && *s->stop) {
		/* interrupted is not failed: the reason says why, failed stays as found */
		s->out->interrupted = true;
		if (!s->out->reason[0])
			snprintf(s->out->reason, sizeof(s->out->reason), "interrupted by signal %d",
				 (int)*s->stop);
	}
	if (pr->masked) {
		finish_off(s);
		remove_ipc(s->cfg->users);
		close_dirs(&pr->pd);
		clean_area(s);
		sigaction(SIGCHLD, &pr->oldsa, NULL);
		sigprocmask(SIG_SETMASK, &pr->oldmask, NULL);
	}
	for (int i = 0; i < 2; i++)
		if (pr->ready[i] >= 0)
			close(pr->ready[i]);
	if (s->u.pattern_fd >= 0)
		close(s->u.pattern_fd);
	if (pr->map != MAP_FAILED)
		munmap(pr->map, pr->maplen);
	free(pr->counts);
	free(s->pids);
}

int load_run_point(const struct load_cfg *cfg, struct load_point *out,
		   volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	static enum point_next (*const phases[])(struct point_run *) = {
		point_prepare, point_fork, point_wait_ready, point_settle, point_release,
	};
	struct point_run pr = {
		.s = { .cfg = cfg, .out = out, .stop = stop, .u.pattern_fd = -1 },
		.ready = { -1, -1 }, .map = MAP_FAILED,
	};
	if (point_setup(&pr, err, errlen)) {
		point_end(&pr, POINT_CLEAN);
		return -1;
	}
	point_block_signals(&pr);
	enum point_next next = POINT_ON;
	for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]) && next == POINT_ON; i++)
		next = phases[i](&pr);
	point_end(&pr, next);
	return 0;
}

void load_point_free(struct load_point *p)
{
	free(p->entries);
	p->entries = NULL;
}
