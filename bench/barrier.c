// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ideal start barrier, for bench/barrier.sh and tests/e2e/load.sh: N
 * forked processes that do nothing but what jobmix's users do at the
 * barrier (read the clock once, sleep on a futex, note when they left,
 * sleep until all have left), released by one FUTEX_WAKE made as a
 * real-time task.  Its release spread (first to last user leaving) is what
 * this machine's scheduler and address-space switches cost with no harness
 * at all: the floor jobmix's own spread is set against.
 *
 *   barrier N     prints "spread_ms wake_ms" for one release of N users
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct shared {
	uint32_t go, all_left, left, ready;
	uint64_t left_at[];
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until_set(uint32_t *word)
{
	while (!__atomic_load_n(word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, word, FUTEX_WAIT, 0, NULL, NULL, 0);
}

static void set_and_wake(uint32_t *word)
{
	__atomic_store_n(word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static void user(struct shared *sh, unsigned i, unsigned n)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)now_ns();
	__atomic_add_fetch(&sh->ready, 1, __ATOMIC_ACQ_REL);
	sleep_until_set(&sh->go);
	sh->left_at[i] = now_ns();
	if (__atomic_add_fetch(&sh->left, 1, __ATOMIC_ACQ_REL) == n)
		set_and_wake(&sh->all_left);
	else
		sleep_until_set(&sh->all_left);
	_exit(0);
}

int main(int argc, char **argv)
{
	char *end;
	unsigned long n = argc == 2 ? strtoul(argv[1], &end, 10) : 0;
	if (argc != 2 || *end || n < 1 || n > 100000) {
		fprintf(stderr, "usage: barrier USERS (1-100000)\n");
		return 2;
	}
	size_t len = sizeof(struct shared) + n * sizeof(uint64_t);
	struct shared *sh = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("barrier: mmap");
		return 1;
	}
	unsigned forked = 0;
	for (; forked < n; forked++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "barrier: fork of user %u: %s\n", forked, strerror(errno));
			set_and_wake(&sh->all_left); /* the users forked so far end */
			set_and_wake(&sh->go);
			return 1;
		}
		if (pid == 0)
			user(sh, forked, (unsigned)n);
	}
	while (__atomic_load_n(&sh->ready, __ATOMIC_ACQUIRE) < n)
		usleep(1000);
	usleep(200000); /* every user asleep on the futex, not on its way there */

	struct sched_param rt = { .sched_priority = 1 }, was = { 0 };
	bool raised = !sched_setscheduler(0, SCHED_FIFO, &rt);
	uint64_t t0 = now_ns();
	set_and_wake(&sh->go);
	uint64_t t1 = now_ns();
	if (raised)
		sched_setscheduler(0, SCHED_OTHER, &was);
	while (wait(NULL) > 0 || errno == EINTR)
		;
	uint64_t first = UINT64_MAX, last = 0;
	for (unsigned long i = 0; i < n; i++) {
		if (sh->left_at[i] < first)
			first = sh->left_at[i];
		if (sh->left_at[i] > last)
			last = sh->left_at[i];
	}
	printf("%.3f %.3f\n", (double)(last - first) / 1e6, (double)(t1 - t0) / 1e6);
	return 0;
}
