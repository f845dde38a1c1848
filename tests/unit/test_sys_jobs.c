// SPDX-License-Identifier: GPL-2.0-only
/*
 * The IPC, network, process and heap jobs beyond "runs once": tcp_test and
 * udp_test only ever address 127.0.0.1 (every bind, connect and sendto is
 * interposed and checked, and both run in a network namespace holding
 * nothing but lo); shared_memory leaves no SysV object behind, not even when
 * its user is killed mid-job, and replaces a leftover semaphore at its key;
 * exec_test and shell_rtns_1 fail with a clear message when the libexec
 * directory is wrong; fifo_test leaves its directory empty; signal_test
 * restores the previous handler and mask; the heap jobs restore the break.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jm_test.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/job.h"

/* ---- interposed socket calls: every address the jobs use is recorded ---- */

static int net_addrs;            /* addresses seen by bind/connect/sendto */
static int net_foreign;          /* of which not 127.0.0.1                */
static int net_nodelay;          /* setsockopt(TCP_NODELAY, 1) calls      */
static char net_foreign_text[128];

static void net_note(const char *fn, const struct sockaddr *sa, socklen_t len)
{
	if (!sa)
		return;
	net_addrs++;
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
		if (in->sin_addr.s_addr == htonl(INADDR_LOOPBACK))
			return;
	}
	net_foreign++;
	snprintf(net_foreign_text, sizeof(net_foreign_text), "%s: family %d, not 127.0.0.1", fn,
		 sa->sa_family);
}

/* glibc declares these with a transparent union under _GNU_SOURCE */
int bind(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	net_note("bind", addr.__sockaddr__, len);
	return (int)syscall(SYS_bind, fd, addr.__sockaddr__, len);
}

int connect(int fd, __CONST_SOCKADDR_ARG addr, socklen_t len)
{
	net_note("connect", addr.__sockaddr__, len);
	return (int)syscall(SYS_connect, fd, addr.__sockaddr__, len);
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, __CONST_SOCKADDR_ARG addr,
	       socklen_t len)
{
	net_note("sendto", addr.__sockaddr__, len);
	return syscall(SYS_sendto, fd, buf, n, flags, addr.__sockaddr__, len);
}

int setsockopt(int fd, int level, int name, const void *val, socklen_t len)
{
	if (level == IPPROTO_TCP && name == TCP_NODELAY && len == sizeof(int) &&
	    *(const int *)val == 1)
		net_nodelay++;
	return (int)syscall(SYS_setsockopt, fd, level, name, val, len);
}

/* ---- a user context in a fresh directory ---------------------------------- */

struct fx {
	char root[64];
	char udir[PATH_MAX], sdir[PATH_MAX], libexec[PATH_MAX];
	int ufd, sfd;
	char *iobuf;
	struct jm_rng rng;
	struct job_ctx c;
};

static int fx_setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	if (!f)
		return -1;
	snprintf(f->root, sizeof(f->root), "/tmp/jobmix-sys-XXXXXX");
	char cwd[PATH_MAX];
	if (!mkdtemp(f->root) || !getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(f->udir, sizeof(f->udir), "%s/u0", f->root);
	snprintf(f->sdir, sizeof(f->sdir), "%s/shared", f->root);
	snprintf(f->libexec, sizeof(f->libexec), "%s/libexec", cwd);
	if (mkdir(f->udir, 0700) || mkdir(f->sdir, 0700))
		return -1;
	f->iobuf = aligned_alloc(4096, JOB_IOBUF_SIZE);
	if (!f->iobuf)
		return -1;
	job_fill_pattern(f->iobuf, JOB_IOBUF_SIZE, 7);
	jm_rng_seed(&f->rng, 7, 0);
	f->ufd = dir_fd(f->udir);
	f->sfd = dir_fd(f->sdir);
	if (f->ufd < 0 || f->sfd < 0)
		return -1;
	f->c = (struct job_ctx){ .dir = f->udir, .dir_fd = f->ufd, .shared_dir = f->sdir,
				 .shared_fd = f->sfd,
				 .libexec_dir = f->libexec, .nusers = 1, .filesize = 64 << 10,
				 .sync = JOB_SYNC_NONE, .rng = &f->rng, .iobuf = f->iobuf };
	*state = f;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", f->root);
	int rc = system(cmd);
	close(f->ufd);
	close(f->sfd);
	free(f->iobuf);
	free(f);
	return rc ? -1 : 0;
}

/* Run one kind (none of these has parameters) once, with its setup and teardown. */
static int run_job(struct job_ctx *c, const char *name)
{
	const struct job_kind *k = job_find(name);
	assert_non_null(k);
	assert_int_equal(k->params_size, 0);
	c->job_name = k->name;
	c->err[0] = 0;
	void *st = NULL;
	if (k->setup && k->setup(c, k, NULL, &st))
		return -1;
	int rc = k->run_once(c, k, NULL, st);
	if (k->teardown)
		k->teardown(c, k, NULL, st);
	return rc;
}

/* A SysV key no semaphore set uses now, distinct per call. */
static key_t free_key(void)
{
	static unsigned n;
	for (;;) {
		key_t k = (key_t)(0x4a4d0000u ^ ((unsigned)getpid() << 4) ^ n++);
		if (k != IPC_PRIVATE && semget(k, 0, 0) < 0 && errno == ENOENT)
			return k;
	}
}

/* ---- network ---------------------------------------------------------------- */

/*
 * re-aim's message counts and sizes: tcp_test 89 messages one way,
 * pipe_cpy, stream_pipe and dgram_pipe 99 round trips, shared_memory 100
 * copies in and out, sizes from re-aim's 37-entry table (1 to 4096 bytes).
 */
static void test_message_counts(void **state)
{
	struct fx *f = *state;
	static const struct { const char *name; unsigned msgs; } want[] = {
		{ "tcp_test", 89 }, { "pipe_cpy", 99 }, { "stream_pipe", 99 }, { "dgram_pipe", 99 },
		{ "shared_memory", 100 },
	};
	assert_int_equal(job_reaim_msg_size(0), 1);
	assert_int_equal(job_reaim_msg_size(10), 4096);
	assert_int_equal(job_reaim_msg_size(36), 2048);
	assert_int_equal(job_reaim_msg_size(37), 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t bytes = 0;
		for (unsigned m = 0; m < want[i].msgs; m++)
			bytes += job_reaim_msg_size(m);
		memset(&f->c.io, 0, sizeof(f->c.io));
		if (run_job(&f->c, want[i].name))
			fail_msg("%s", f->c.err);
		assert_int_equal(f->c.io.wops, want[i].msgs);
		assert_int_equal(f->c.io.rops, want[i].msgs);
		assert_int_equal(f->c.io.wbytes, bytes);
		assert_int_equal(f->c.io.rbytes, bytes);
	}
}

static void test_net_addresses_are_loopback(void **state)
{
	struct fx *f = *state;
	net_addrs = net_foreign = net_nodelay = 0;
	if (run_job(&f->c, "tcp_test"))
		fail_msg("%s", f->c.err);
	/* the interposition saw the listener's bind and the client's connect */
	assert_true(net_addrs >= 2);
	assert_int_equal(net_nodelay, 2);
	int after_tcp = net_addrs;
	if (run_job(&f->c, "udp_test"))
		fail_msg("%s", f->c.err);
	/* one bind plus at least 99 sendto */
	assert_true(net_addrs - after_tcp >= 100);
	if (net_foreign)
		fail_msg("%d non-loopback addresses, e.g. %s", net_foreign, net_foreign_text);
}

/* Bring lo up in this (new) network namespace. */
static int lo_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	if (s < 0)
		return -1;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (!rc) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return rc;
}

/*
 * In a child: a new network namespace whose only interface is lo, then both
 * jobs.  Exit 0 on success, 77 when namespaces are not permitted.
 */
static void test_net_in_namespace_with_only_lo(void **state)
{
	struct fx *f = *state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNET))
			_exit(77);
		if (lo_up())
			_exit(2);
		struct if_nameindex *ifs = if_nameindex();
		if (!ifs || !ifs[0].if_name || strcmp(ifs[0].if_name, "lo") || ifs[1].if_name)
			_exit(3);
		if_freenameindex(ifs);
		if (run_job(&f->c, "tcp_test") || run_job(&f->c, "udp_test")) {
			fprintf(stderr, "%s\n", f->c.err);
			_exit(1);
		}
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* ---- SysV IPC ---------------------------------------------------------------- */

struct shm_count {
	int segs;        /* segments created by the pid     */
	int not_removed; /* of which not yet marked SHM_DEST */
};

/* Count the shared memory segments whose creator is pid (/proc/sysvipc/shm). */
static struct shm_count shm_by_creator(pid_t pid)
{
	struct shm_count r = { 0, 0 };
	FILE *fp = fopen("/proc/sysvipc/shm", "r");
	assert_non_null(fp);
	char line[512];
	int perms_col = -1, cpid_col = -1;
	if (fgets(line, sizeof(line), fp)) {
		int col = 0;
		for (char *t = strtok(line, " \t\n"); t; t = strtok(NULL, " \t\n"), col++) {
			if (!strcmp(t, "perms"))
				perms_col = col;
			if (!strcmp(t, "cpid"))
				cpid_col = col;
		}
	}
	assert_true(perms_col >= 0 && cpid_col >= 0);
	while (fgets(line, sizeof(line), fp)) {
		unsigned long perms = 0;
		long cpid = -1;
		int col = 0;
		for (char *t = strtok(line, " \t\n"); t; t = strtok(NULL, " \t\n"), col++) {
			if (col == perms_col)
				perms = strtoul(t, NULL, 8);
			if (col == cpid_col)
				cpid = strtol(t, NULL, 10);
		}
		if (cpid == pid) {
			r.segs++;
			if (!(perms & 01000)) /* SHM_DEST */
				r.not_removed++;
		}
	}
	fclose(fp);
	return r;
}

/* Is a semaphore set with this key listed in /proc/sysvipc/sem? */
static bool sem_listed(key_t key)
{
	FILE *fp = fopen("/proc/sysvipc/sem", "r");
	assert_non_null(fp);
	char line[512];
	bool found = false;
	if (fgets(line, sizeof(line), fp)) /* header: key is the first column */
		while (fgets(line, sizeof(line), fp))
			if (strtol(line, NULL, 10) == (long)key)
				found = true;
	fclose(fp);
	return found;
}

static void test_shm_counting_sees_segments(void **state)
{
	(void)state;
	/* the /proc parser above really finds a segment of ours */
	struct shm_count before = shm_by_creator(getpid());
	int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	assert_true(id >= 0);
	struct shm_count during = shm_by_creator(getpid());
	assert_int_equal(shmctl(id, IPC_RMID, NULL), 0);
	assert_int_equal(during.segs, before.segs + 1);
	assert_int_equal(during.not_removed, before.not_removed + 1);
	key_t key = free_key();
	int sid = semget(key, 1, IPC_CREAT | IPC_EXCL | 0600);
	assert_true(sid >= 0);
	bool listed = sem_listed(key);
	assert_int_equal(semctl(sid, 0, IPC_RMID), 0);
	assert_true(listed);
	assert_false(sem_listed(key));
}

static void test_shm_leaves_no_objects(void **state)
{
	struct fx *f = *state;
	f->c.ipc_key = free_key();
	struct shm_count before = shm_by_creator(getpid());
	assert_false(sem_listed(f->c.ipc_key));
	for (int i = 0; i < 3; i++)
		if (run_job(&f->c, "shared_memory"))
			fail_msg("%s", f->c.err);
	struct shm_count after = shm_by_creator(getpid());
	assert_int_equal(after.segs, before.segs);
	assert_false(sem_listed(f->c.ipc_key));
	errno = 0;
	assert_true(semget(f->c.ipc_key, 0, 0) < 0 && errno == ENOENT);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/*
 * A user killed in the middle of shared_memory: stop it at a moment its
 * segment is already marked for removal (the job does that right after
 * attaching; the stop is retried if it lands in that short window), kill
 * it, and nothing but its semaphore set is left, which the parent removes
 * by key as the load generator does.
 */
static void test_shm_killed_user_leaks_no_segment(void **state)
{
	struct fx *f = *state;
	f->c.ipc_key = free_key();
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		for (;;)
			if (run_job(&f->c, "shared_memory"))
				_exit(1);
	}
	int st, stops = 0;
	bool stopped = false;
	struct shm_count seen = { 0, 0 };
	sleep_ms(20);
	/* no assertion until the child is dead: a failure must not leave it stopped */
	for (;;) {
		stopped = !kill(pid, SIGSTOP) && waitpid(pid, &st, WUNTRACED) == pid &&
			  WIFSTOPPED(st);
		if (!stopped)
			break;
		seen = shm_by_creator(pid);
		stops++;
		if (!seen.not_removed || stops == 50)
			break;
		kill(pid, SIGCONT);
		sleep_ms(1);
	}
	kill(pid, SIGKILL);
	pid_t reaped = waitpid(pid, &st, 0);
	struct shm_count left = shm_by_creator(pid);
	int sid = semget(f->c.ipc_key, 0, 0);
	if (sid >= 0) /* the parent's clean-up by key, as the load generator does */
		semctl(sid, 0, IPC_RMID);
	assert_true(stopped);
	assert_int_equal(seen.not_removed, 0);
	assert_int_equal(reaped, pid);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	assert_int_equal(left.segs, 0);
	assert_false(sem_listed(f->c.ipc_key));
}

static void test_shm_replaces_leftover_semaphore(void **state)
{
	struct fx *f = *state;
	f->c.ipc_key = free_key();
	int old = semget(f->c.ipc_key, 1, IPC_CREAT | IPC_EXCL | 0600);
	assert_true(old >= 0);
	int rc = run_job(&f->c, "shared_memory");
	struct semid_ds ds;
	union {
		int val;
		struct semid_ds *buf;
	} arg = { .buf = &ds };
	bool old_alive = semctl(old, 0, IPC_STAT, arg) == 0;
	if (old_alive)
		semctl(old, 0, IPC_RMID);
	if (rc)
		fail_msg("%s", f->c.err);
	assert_false(old_alive);
	assert_false(sem_listed(f->c.ipc_key));
}

/* ---- processes ----------------------------------------------------------------- */

static void test_exec_wrong_libexec_is_clear(void **state)
{
	struct fx *f = *state;
	if (run_job(&f->c, "exec_test"))
		fail_msg("with the right libexec: %s", f->c.err);
	f->c.libexec_dir = "/nonexistent/jobmix-libexec";
	assert_int_equal(run_job(&f->c, "exec_test"), -1);
	assert_non_null(strstr(f->c.err, "exec_test: "));
	assert_non_null(strstr(f->c.err, "'/nonexistent/jobmix-libexec/exec_test.sh'"));
	assert_non_null(strstr(f->c.err, strerror(ENOENT)));
	assert_non_null(strstr(f->c.err, "libexec"));
	assert_int_equal(run_job(&f->c, "shell_rtns_1"), -1);
	assert_non_null(strstr(f->c.err, "/nonexistent/jobmix-libexec/shell_rtns_1.sh"));
	f->c.libexec_dir = NULL;
	assert_int_equal(run_job(&f->c, "exec_test"), -1);
	assert_non_null(strstr(f->c.err, "libexec"));
}

static void test_shell_rtns_run(void **state)
{
	struct fx *f = *state;
	static const char *const names[] = { "shell_rtns_1", "shell_rtns_2", "shell_rtns_3" };
	for (int i = 0; i < 3; i++)
		if (run_job(&f->c, names[i]))
			fail_msg("%s", f->c.err);
}

static void test_fifo_leaves_dir_empty(void **state)
{
	struct fx *f = *state;
	if (run_job(&f->c, "fifo_test"))
		fail_msg("%s", f->c.err);
	assert_int_equal(count_entries(f->udir), 0);
	/* a FIFO left behind by a killed run of the same user is replaced */
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/fifo_test.u%u", f->udir, f->c.user);
	assert_int_equal(mkfifo(path, 0600), 0);
	if (run_job(&f->c, "fifo_test"))
		fail_msg("%s", f->c.err);
	assert_int_equal(count_entries(f->udir), 0);
}

static volatile sig_atomic_t test_usr1;

static void test_usr1_handler(int sig)
{
	(void)sig;
	test_usr1 = test_usr1 + 1;
}

static void test_signal_restores_handler_and_mask(void **state)
{
	struct fx *f = *state;
	struct sigaction sa, prev, now;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = test_usr1_handler;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &prev), 0);
	sigset_t usr1, mask;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	/* blocked on entry: the job unblocks it for itself and blocks it again */
	assert_int_equal(sigprocmask(SIG_BLOCK, &usr1, NULL), 0);
	test_usr1 = 0;
	int rc = run_job(&f->c, "signal_test");
	assert_int_equal(sigprocmask(SIG_UNBLOCK, &usr1, &mask), 0);
	assert_int_equal(sigaction(SIGUSR1, &prev, &now), 0);
	if (rc)
		fail_msg("%s", f->c.err);
	assert_true(sigismember(&mask, SIGUSR1));
	assert_ptr_equal(now.sa_handler, test_usr1_handler);
	/* none of the job's 1000 signals reached the previous handler */
	assert_int_equal(test_usr1, 0);
}

static void test_heap_restores_break(void **state)
{
	struct fx *f = *state;
	void *before = sbrk(0);
	if (run_job(&f->c, "page_test"))
		fail_msg("%s", f->c.err);
	assert_ptr_equal(sbrk(0), before);
	if (run_job(&f->c, "brk_test"))
		fail_msg("%s", f->c.err);
	assert_ptr_equal(sbrk(0), before);
}

static void test_process_only_flags(void **state)
{
	(void)state;
	static const char *const only[] = { "fork_test", "exec_test", "shell_rtns_1",
					    "shell_rtns_2", "shell_rtns_3", "signal_test",
					    "page_test", "brk_test" };
	static const char *const threads[] = { "pipe_cpy", "stream_pipe", "dgram_pipe",
					       "fifo_test", "tcp_test", "udp_test",
					       "shared_memory", "jmp_test" };
	for (size_t i = 0; i < sizeof(only) / sizeof(only[0]); i++)
		assert_true(job_find(only[i])->flags & JOB_PROCESS_ONLY);
	for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++)
		assert_false(job_find(threads[i])->flags & JOB_PROCESS_ONLY);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, fx_setup, fx_teardown)
	const struct CMUnitTest tests[] = {
		T(test_message_counts),
		T(test_net_addresses_are_loopback),
		T(test_net_in_namespace_with_only_lo),
		T(test_shm_counting_sees_segments),
		T(test_shm_leaves_no_objects),
		T(test_shm_killed_user_leaks_no_segment),
		T(test_shm_replaces_leftover_semaphore),
		T(test_exec_wrong_libexec_is_clear),
		T(test_shell_rtns_run),
		T(test_fifo_leaves_dir_empty),
		T(test_signal_restores_handler_and_mask),
		T(test_heap_restores_break),
		T(test_process_only_flags),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
