// SPDX-License-Identifier: GPL-2.0-only
/*
 * IPC jobs: pipe_cpy, stream_pipe and dgram_pipe (one round-trip loop over a
 * pipe or an AF_UNIX socketpair), fifo_test (the same loop through a FIFO in
 * the user's directory) and shared_memory (SysV shared memory guarded by a
 * SysV semaphore).  Every descriptor is close-on-exec, so a user that also
 * runs exec_test or shell_rtns_* never hands them to a child.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/job.h"

#define IPC_TRIPS   99
#define IPC_MAX_MSG JOB_REAIM_MSG_MAX

enum ipc_chan { IPC_PIPE, IPC_STREAM, IPC_DGRAM };

struct ipc_variant {
	enum ipc_chan chan;
	const char *what;    /* for messages */
};

/* Message size of round trip i: re-aim's table, cycling. */
static size_t ipc_msg_size(int i)
{
	return job_reaim_msg_size((unsigned)i);
}

/*
 * IPC_TRIPS (times the scale) write-then-read round trips from wfd to rfd, each message a
 * different slice of the user's pattern buffer, each read checked byte for
 * byte.  With dgram set, one recv() must return exactly one whole message.
 * what names the channel in messages (a FIFO: its name in dir; dir NULL
 * for the others).
 */
static int ipc_round_trips(struct job_ctx *c, int wfd, int rfd, bool dgram, const char *dir,
			   const char *what)
{
	char buf[IPC_MAX_MSG + 1];
	const int trips = (int)job_scaled(c, IPC_TRIPS);
	for (int i = 0; i < trips; i++) {
		size_t n = ipc_msg_size(i);
		const char *src = c->iobuf + (size_t)i * 64;
		if (job_write_all(wfd, src, n) < 0)
			return job_fail_at(c, "write", dir, what, errno);
		ssize_t got;
		if (dgram) {
			do
				got = recv(rfd, buf, sizeof(buf), 0);
			while (got < 0 && errno == EINTR);
		} else {
			got = job_read_all(rfd, buf, n);
		}
		if (got < 0)
			return job_fail_at(c, "read", dir, what, errno);
		if ((size_t)got != n)
			return job_failf(c, "round trip %d through %s%s%s: wrote %zu bytes, read %zd",
					 i, dir ? dir : "", dir ? "/" : "", what, n, got);
		if (memcmp(buf, src, n))
			return job_failf(c, "round trip %d through %s%s%s: %zu bytes read back differ",
					 i, dir ? dir : "", dir ? "/" : "", what, n);
		c->io.wops++, c->io.rops++;
		c->io.wbytes += n, c->io.rbytes += n;
	}
	return 0;
}

/* pipe_cpy, stream_pipe, dgram_pipe: the channel comes from the kind's variant. */
static int ipc_pipe_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			void *state)
{
	(void)params, (void)state;
	const struct ipc_variant *v = k->variant;
	int fd[2];
	int rc;
	if (v->chan == IPC_PIPE)
		rc = pipe2(fd, O_CLOEXEC);
	else
		rc = socketpair(AF_UNIX, (v->chan == IPC_STREAM ? SOCK_STREAM : SOCK_DGRAM) |
				SOCK_CLOEXEC, 0, fd);
	if (rc)
		return job_fail(c, v->chan == IPC_PIPE ? "pipe" : "socketpair", NULL, errno);
	/* a pipe is written at fd[1]; either end of a socketpair will do */
	rc = ipc_round_trips(c, fd[1], fd[0], v->chan == IPC_DGRAM, NULL, v->what);
	close(fd[0]);
	close(fd[1]);
	return rc;
}

static const struct ipc_variant ipc_pipe_v = { IPC_PIPE, "pipe" };
static const struct ipc_variant ipc_stream_v = { IPC_STREAM, "AF_UNIX stream socketpair" };
static const struct ipc_variant ipc_dgram_v = { IPC_DGRAM, "AF_UNIX datagram socketpair" };

const struct job_kind job_pipe_cpy = {
	.name = "pipe_cpy",
	.family = "ipc",
	.summary = "pipe: 99 write-then-read round trips of 1..4096 bytes, verified",
	.doc = "AIM7 pipe_cpy.  One pipe; 99 round trips, each writing a message into the pipe "
	       "and reading it back in the same process.  Message sizes cycle through re-aim's "
	       "table of 37 sizes from 1 to 4096 bytes; every message is a different slice of the user's "
	       "pattern buffer and is compared byte for byte after the read.",
	.variant = &ipc_pipe_v,
	.run_once = ipc_pipe_run,
};

const struct job_kind job_stream_pipe = {
	.name = "stream_pipe",
	.family = "ipc",
	.summary = "AF_UNIX stream socketpair: 99 round trips of 1..4096 bytes, verified",
	.doc = "AIM7 stream_pipe: pipe_cpy's 99 verified round trips (re-aim's sizes 1..4096 bytes, "
	       "powers of two) over an AF_UNIX SOCK_STREAM socketpair.",
	.variant = &ipc_stream_v,
	.run_once = ipc_pipe_run,
};

const struct job_kind job_dgram_pipe = {
	.name = "dgram_pipe",
	.family = "ipc",
	.summary = "AF_UNIX datagram socketpair: 99 round trips of 1..4096 bytes, verified",
	.doc = "AIM7 dgram_pipe: pipe_cpy's 99 verified round trips (re-aim's sizes 1..4096 bytes, "
	       "powers of two) over an AF_UNIX SOCK_DGRAM socketpair; each receive must return "
	       "exactly one whole datagram.",
	.variant = &ipc_dgram_v,
	.run_once = ipc_pipe_run,
};

#define FIFO_NAME 48

/* Before the barrier: the FIFO's name, the user's own (a state of FIFO_NAME bytes). */
static int ipc_fifo_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
			  void **state)
{
	(void)params;
	char *name = malloc(FIFO_NAME);
	if (!name)
		return job_fail(c, "malloc", NULL, ENOMEM);
	*state = job_own_name(name, FIFO_NAME, c, k->name);
	return 0;
}

/*
 * fifo_test: mkfifo in the user's directory, open a non-blocking reader
 * first (so the writer's open does not wait for a second process), make the
 * reader blocking again, run the round trips, close and remove the FIFO.
 * Every call is beneath the held directory (mkfifoat, openat with
 * O_NOFOLLOW, unlinkat).
 */
static int ipc_fifo_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			void *state)
{
	(void)k, (void)params;
	const char *name = state;
	const int dfd = c->dir_fd;
	int rfd = -1, wfd = -1, ret = -1;
	/* a FIFO left by a killed run of this user; the directory is ours */
	if (unlinkat(dfd, name, 0) && errno != ENOENT)
		return job_fail_at(c, "unlink", c->dir, name, errno);
	if (mkfifoat(dfd, name, 0600))
		return job_fail_at(c, "mkfifo", c->dir, name, errno);
	rfd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (rfd < 0) {
		job_fail_at(c, "open for reading", c->dir, name, errno);
		goto out;
	}
	wfd = openat(dfd, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	if (wfd < 0) {
		job_fail_at(c, "open for writing", c->dir, name, errno);
		goto out;
	}
	int fl = fcntl(rfd, F_GETFL);
	if (fl < 0 || fcntl(rfd, F_SETFL, fl & ~O_NONBLOCK)) {
		job_fail_at(c, "fcntl", c->dir, name, errno);
		goto out;
	}
	ret = ipc_round_trips(c, wfd, rfd, false, c->dir, name);
out:
	if (wfd >= 0)
		close(wfd);
	if (rfd >= 0)
		close(rfd);
	if (unlinkat(dfd, name, 0) && !ret)
		ret = job_fail_at(c, "unlink", c->dir, name, errno);
	return ret;
}

const struct job_kind job_fifo_test = {
	.name = "fifo_test",
	.family = "ipc",
	.summary = "FIFO in the user's directory: 99 round trips of 1..4096 bytes, removed",
	.doc = "AIM7 fifo_test: mkfifo in the user's private directory, then pipe_cpy's 99 "
	       "verified write-then-read round trips (1..4096 bytes) through it, then close "
	       "and unlink.  One process does both ends: the reader is opened non-blocking "
	       "first so the writer's open cannot wait for a peer, then made blocking again.  "
	       "The name is per user, so users never collide (re-aim used pid % 100000).",
	.flags = JOB_DISK,
	.setup = ipc_fifo_setup,
	.run_once = ipc_fifo_run,
	.teardown = job_free_state,
};

/* ---- shared_memory ------------------------------------------------------ */

#define SHM_SIZE  (64u << 10)
#define SHM_LOOPS 100

union ipc_semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

/* One semop on semaphore 0, retried on EINTR. */
static int ipc_semop(int semid, short delta)
{
	struct sembuf op = { .sem_num = 0, .sem_op = delta, .sem_flg = 0 };
	int rc;
	do
		rc = semop(semid, &op, 1);
	while (rc && errno == EINTR);
	return rc;
}

/*
 * Create the user's semaphore with its own key (IPC_CREAT|IPC_EXCL) and set
 * it to 1.  A set already holding the key is a leftover of a killed user of
 * an earlier point: remove it and try once more.  Returns the id or -1.
 */
static int ipc_sem_create(struct job_ctx *c)
{
	key_t key = (key_t)c->ipc_key;
	int id = -1;
	for (int attempt = 0; attempt < 2; attempt++) {
		id = semget(key, 1, IPC_CREAT | IPC_EXCL | 0600);
		if (id >= 0 || errno != EEXIST || key == IPC_PRIVATE || attempt)
			break;
		int old = semget(key, 0, 0);
		if (old >= 0 && semctl(old, 0, IPC_RMID) && errno != EIDRM && errno != EINVAL) {
			job_failf(c, "remove leftover semaphore key 0x%x failed: %s",
				  (unsigned)key, strerror(errno));
			return -1;
		}
	}
	if (id < 0) {
		job_failf(c, "semget key 0x%x failed: %s", (unsigned)key, strerror(errno));
		return -1;
	}
	union ipc_semun arg = { .val = 1 };
	if (semctl(id, 0, SETVAL, arg)) {
		job_failf(c, "semctl SETVAL failed: %s", strerror(errno));
		semctl(id, 0, IPC_RMID);
		return -1;
	}
	return id;
}

/*
 * 64 KiB of SysV shared memory, marked for removal right after attaching (so
 * it vanishes with the process even if the user is killed), and a semaphore;
 * 100 x (lock, copy in, unlock, lock, copy out, unlock), the copies of
 * re-aim's message sizes.  The last copy out is checked against what went in.
 */
static int ipc_shm_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void *state)
{
	(void)k, (void)params, (void)state;
	int ret = -1, semid = -1;
	char *shm = (void *)-1;
	char *out = malloc(SHM_SIZE);
	if (!out)
		return job_fail(c, "malloc", NULL, ENOMEM);
	int shmid = shmget(IPC_PRIVATE, SHM_SIZE, IPC_CREAT | 0600);
	if (shmid < 0) {
		job_fail(c, "shmget", NULL, errno);
		goto out;
	}
	shm = shmat(shmid, NULL, 0);
	int at_err = errno;
	if (shmctl(shmid, IPC_RMID, NULL) && shm != (void *)-1) {
		job_fail(c, "shmctl IPC_RMID", NULL, errno);
		goto out;
	}
	if (shm == (void *)-1) {
		job_fail(c, "shmat", NULL, at_err);
		goto out;
	}
	semid = ipc_sem_create(c);
	if (semid < 0)
		goto out;
	const char *src = NULL;
	size_t n = 0;
	const int loops = (int)job_scaled(c, SHM_LOOPS);
	for (int i = 0; i < loops; i++) {
		/* re-aim copies its message sizes (1 B to 4 KiB), not the whole segment */
		n = job_reaim_msg_size((unsigned)i);
		src = c->iobuf + (size_t)i * 64;
		if (ipc_semop(semid, -1))
			goto semfail;
		memcpy(shm, src, n);
		if (ipc_semop(semid, 1))
			goto semfail;
		if (ipc_semop(semid, -1))
			goto semfail;
		memcpy(out, shm, n);
		if (ipc_semop(semid, 1))
			goto semfail;
		c->io.wops++, c->io.rops++;
		c->io.wbytes += n, c->io.rbytes += n;
	}
	if (memcmp(out, src, n)) {
		job_failf(c, "shared memory read back differs from what was copied in");
		goto out;
	}
	ret = 0;
	goto out;
semfail:
	job_fail(c, "semop", NULL, errno);
out:
	if (semid >= 0 && semctl(semid, 0, IPC_RMID) && !ret)
		ret = job_fail(c, "semctl IPC_RMID", NULL, errno);
	if (shm != (void *)-1)
		shmdt(shm);
	free(out);
	return ret;
}

const struct job_kind job_shared_memory = {
	.name = "shared_memory",
	.family = "ipc",
	.summary = "64 KiB SysV shm + semaphore: 100 x (lock, copy in, unlock, lock, copy out, "
		   "unlock) of 1 B-4 KiB",
	.doc = "AIM7 shared_memory.  A 64 KiB SysV shared memory segment (IPC_PRIVATE) is "
	       "attached and at once marked for removal, so it disappears with the process "
	       "even if the user is killed; a one-semaphore SysV set is created with the "
	       "user's own IPC key (IPC_CREAT|IPC_EXCL) and removed at the end of the job; "
	       "the load generator removes a set left by a killed user, and a leftover found "
	       "at the key is removed before one retry.  Then 100 x (lock, copy in, unlock, "
	       "lock, copy out, unlock), each copy of re-aim's next message size (its "
	       "37-entry table, 1 B to 4 KiB); the last copy out is verified.  "
	       "Nothing is shared between users and nothing leaks when a user dies.",
	.run_once = ipc_shm_run,
};
