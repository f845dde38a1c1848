// SPDX-License-Identifier: GPL-2.0-only
/*
 * The user side of a load point: build and shuffle the job list, set every
 * mix entry up, report ready, wait at the barrier, run the jobs timing each
 * with CLOCK_MONOTONIC, and record the results in the user's shared slot.
 * Everything is allocated before the barrier: the job loop allocates nothing
 * and logs nothing.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/load_internal.h"

void load_user_dir(const struct load_cfg *cfg, unsigned user, char *buf, size_t len)
{
	if (cfg->wl->layout == WL_LAYOUT_PER_USER)
		snprintf(buf, len, "%s/u%u", cfg->area->roots[user % cfg->area->n], user);
	else
		snprintf(buf, len, "%s/work", cfg->area->roots[user % cfg->area->n]);
}

void load_shared_dir(const struct load_cfg *cfg, size_t d, char *buf, size_t len)
{
	snprintf(buf, len, "%s/shared", cfg->area->roots[d]);
}

size_t load_user_dirs(const struct load_cfg *cfg)
{
	return cfg->wl->layout == WL_LAYOUT_PER_USER ? cfg->users : cfg->area->n;
}

size_t load_user_dir_index(const struct load_cfg *cfg, unsigned user)
{
	return cfg->wl->layout == WL_LAYOUT_PER_USER ? user : user % cfg->area->n;
}

void load_user_dir_name(const struct load_cfg *cfg, size_t index, char *leaf, size_t len)
{
	if (cfg->wl->layout == WL_LAYOUT_PER_USER)
		snprintf(leaf, len, "u%zu", index);
	else
		snprintf(leaf, len, "work");
}

/*
 * A SysV key unique to (the jobmix process that runs the point, user);
 * never IPC_PRIVATE.  Both the user and the parent compute it from the
 * parent's pid, so the parent can remove what a killed user left.
 */
int load_ipc_key(pid_t owner, unsigned user)
{
	uint64_t x = ((uint64_t)owner << 32) | user;
	uint64_t h = jm_splitmix64(&x);
	int key = (int)(h & 0x7fffffff);
	return key ? key : 1;
}

static int fail(struct user_slot *s, const char *msg)
{
	if (!s->err[0])
		snprintf(s->err, sizeof(s->err), "%s", msg);
	s->state = USER_FAILED;
	return -1;
}

int load_user_main(const struct load_user_cfg *u, unsigned user)
{
	const struct load_cfg *cfg = u->cfg;
	const struct workload *wl = cfg->wl;
	struct user_slot *slot = load_slot(u, user);
	struct load_entry_stats *es = load_slot_entries(slot);
	uint32_t *intervals = (uint32_t *)(es + wl->nmix);
	int ret = -1;
	unsigned *list = NULL, *last = NULL;
	void **states = NULL;
	size_t nsetup = 0;
	char *iobuf = MAP_FAILED;
	char dir[PATH_MAX], shared[PATH_MAX], msg[JOB_ERR_LEN + 64];
	struct jm_rng rng;
	struct job_ctx c = { 0 };

	jm_rng_seed(&rng, cfg->seed, ((uint64_t)cfg->sample << 32) | user);
	load_user_dir(cfg, user, dir, sizeof(dir));
	load_shared_dir(cfg, user % cfg->area->n, shared, sizeof(shared));

	list = malloc(sizeof(*list) * (u->jobs ? u->jobs : 1));
	states = calloc(wl->nmix, sizeof(*states));
	last = malloc(sizeof(*last) * wl->nmix);
	/* Private copy-on-write view of the shared pattern: cheap for many users. */
	iobuf = mmap(NULL, JOB_IOBUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE, u->pattern_fd, 0);
	if (!list || !states || !last || iobuf == MAP_FAILED) {
		fail(slot, "out of memory setting up the user");
		goto out;
	}
	/* The job list: counts[i] runs of entry i, shuffled (Fisher-Yates). */
	unsigned n = 0;
	for (size_t i = 0; i < wl->nmix; i++)
		for (unsigned r = 0; r < u->counts[i]; r++)
			list[n++] = (unsigned)i;
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)jm_rng_below(&rng, i);
		unsigned t = list[i - 1];
		list[i - 1] = list[j];
		list[j] = t;
	}
	/* Where each entry runs for the last time (jobs mode: sysbench's thread end). */
	for (size_t i = 0; i < wl->nmix; i++)
		last[i] = UINT_MAX;
	for (unsigned i = 0; i < n; i++)
		last[list[i]] = i;

	c = (struct job_ctx){
		.dir = dir, .dir_fd = u->user_fds[load_user_dir_index(cfg, user)],
		.shared_dir = shared, .shared_fd = u->shared_fds[user % cfg->area->n],
		.libexec_dir = cfg->libexec_dir,
		.user = user, .nusers = cfg->users,
		.filesize = wl_job_filesize(wl, cfg->users), .sync = wl->sync,
		.rng = &rng, .iobuf = iobuf, .ipc_key = load_ipc_key(u->parent, user),
	};
	for (; nsetup < wl->nmix; nsetup++) {
		const struct wl_entry *e = &wl->mix[nsetup];
		if (!u->counts[nsetup] || !e->kind->setup)
			continue;
		c.entry = (unsigned)nsetup;
		c.job_name = e->name;
		c.scale = e->common.scale;
		if (e->kind->setup(&c, e->kind, e->params, &states[nsetup])) {
			snprintf(msg, sizeof(msg), "setup: %s", c.err);
			fail(slot, msg);
			goto out;
		}
	}

	slot->state = USER_READY;
	char b = 'r';
	if (write(u->ready_fd, &b, 1) != 1) {
		fail(slot, "cannot report ready to the parent");
		goto out;
	}
	slot->t_start_ns = load_barrier_wait(u->hdr, cfg->users);

	const uint64_t t0 = u->hdr->t0_ns;
	const bool timed = cfg->measure == WL_MEASURE_TIME;
	/*
	 * the block tracer's word for this user (load.h), told each job's entry;
	 * NULL: none.  Keyed by the thread's id, not the process's: users as
	 * threads share one pid, each has its own tid (a process user's is its pid)
	 */
	const uint64_t pid = (uint64_t)gettid();
	uint64_t *tag = cfg->entry_tags ? &cfg->entry_tags[pid & cfg->entry_tags_mask] : NULL;
	const uint64_t win_lo = t0 + (uint64_t)(cfg->ramp_s * 1e9);
	const uint64_t win_hi = win_lo + (uint64_t)(cfg->duration_s * 1e9);
	uint64_t jobs = 0, last_end = t0;
	for (unsigned pass = 0;; pass++) {
		for (unsigned i = 0; i < n; i++) {
			const struct wl_entry *e = &wl->mix[list[i]];
			struct load_entry_stats *st = &es[list[i]];
			c.entry = list[i];
			c.job_name = e->name;
			c.scale = e->common.scale;
			c.last_run = !timed && last[list[i]] == i;
			memset(&c.io, 0, sizeof(c.io));
			if (tag)
				__atomic_store_n(tag, pid << 32 | (list[i] + 1u), __ATOMIC_RELAXED);
			uint64_t a = load_now_ns();
			int rc = e->kind->run_once(&c, e->kind, e->params, states[list[i]]);
			uint64_t z = load_now_ns();
			if (rc) {
				fail(slot, c.err[0] ? c.err : "job failed without a message");
				goto out;
			}
			if (timed && (z < win_lo || z > win_hi))
				goto next; /* outside the measured window */
			stats_hist_add(&st->lat, z - a);
			st->runs++;
			st->io.rbytes += c.io.rbytes;
			st->io.wbytes += c.io.wbytes;
			st->io.rops += c.io.rops;
			st->io.wops += c.io.wops;
			st->io.rtime_ns += c.io.rtime_ns;
			st->io.wtime_ns += c.io.wtime_ns;
			st->io.fsyncs += c.io.fsyncs;
			st->io.syncs += c.io.syncs;
			st->io.extents += c.io.extents;
			st->io.extent_files += c.io.extent_files;
			jobs++;
			last_end = z;
			if (timed) {
				uint64_t k = (z - win_lo) / 1000000000ull;
				intervals[k < u->nintervals ? k : u->nintervals - 1]++;
			}
next:
			if (timed && z >= win_hi)
				goto done;
		}
		if (!timed)
			break;
	}
done:
	slot->jobs = jobs;
	slot->t_end_ns = timed ? win_hi : last_end;
	slot->state = USER_DONE;
	ret = 0;
out:
	for (size_t i = 0; i < nsetup; i++) {
		const struct wl_entry *e = &wl->mix[i];
		if (u->counts[i] && e->kind->teardown) {
			c.entry = (unsigned)i;
			c.job_name = e->name;
			c.scale = e->common.scale;
			e->kind->teardown(&c, e->kind, e->params, states[i]);
		}
	}
	if (iobuf != MAP_FAILED)
		munmap(iobuf, JOB_IOBUF_SIZE);
	free(states);
	free(last);
	free(list);
	return ret;
}

/* Join the users' memory cgroup (load_cfg.cgroup_fd) before any work.  0 or -1. */
static int load_user_join(const struct load_user_cfg *u)
{
	int fd = u->cfg->cgroup_fd;
	return fd > 2 && write(fd, "0", 1) != 1 ? -1 : 0;
}

/*
 * Every handler the parent set up for itself back to the default: a user
 * never runs the parent's stop or restore handlers (a SIGUSR1 or SIGSEGV
 * kills it as it would any process).  SIGPIPE: the default (pipe_default)
 * or ignored (threads, as the parent's writes were).
 */
static void user_signals_default(bool pipe_default)
{
	sigset_t none;
	sigemptyset(&none);
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sig == SIGKILL || sig == SIGSTOP || sigaction(sig, NULL, &sa))
			continue;
		if ((sa.sa_flags & SA_SIGINFO) || (sa.sa_handler != SIG_DFL &&
						   sa.sa_handler != SIG_IGN))
			signal(sig, SIG_DFL);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, pipe_default ? SIG_DFL : SIG_IGN);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Reset what the parent set up for itself, then run the user. */
void load_user_process(const struct load_user_cfg *u, unsigned user)
{
	user_signals_default(true);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* a parent killed before the line above left us without that signal */
	if (getppid() != u->parent)
		_exit(1);
	setpgid(0, 0); /* own group: the parent kills the user and its children together */
	if (load_user_join(u)) {
		fail(load_slot(u, user), "cannot join the users' memory cgroup");
		_exit(1);
	}
	_exit(load_user_main(u, user) ? 1 : 0);
}

struct thread_arg {
	const struct load_user_cfg *u;
	unsigned user;
	pthread_t tid;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;
	if (load_user_main(a->u, a->user))
		_exit(1); /* one failed user fails the point: end the host at once */
	return NULL;
}

void load_user_threads(const struct load_user_cfg *u)
{
	user_signals_default(false);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != u->parent)
		_exit(1);
	setpgid(0, 0);
	if (load_user_join(u)) {
		fail(load_slot(u, 0), "cannot join the users' memory cgroup");
		_exit(1);
	}
	unsigned n = u->cfg->users;
	struct thread_arg *args = calloc(n, sizeof(*args));
	if (!args)
		_exit(1);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 1u << 20);
	unsigned started = 0;
	for (; started < n; started++) {
		args[started] = (struct thread_arg){ .u = u, .user = started };
		if (pthread_create(&args[started].tid, &attr, thread_main, &args[started])) {
			fail(load_slot(u, started), "pthread_create failed");
			_exit(1);
		}
	}
	for (unsigned i = 0; i < started; i++)
		pthread_join(args[i].tid, NULL);
	_exit(0);
}
