// SPDX-License-Identifier: GPL-2.0-only
/*
 * The start barrier of a load point's users: two futex words in the shared
 * map's first page (load_internal.h).  Users wait here (user.c), the parent
 * releases them (point.c); apart from both so neither includes the other.
 * The monotonic clock they all read is here too, so the barrier needs
 * nothing from user.c.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/load_internal.h"

uint64_t load_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void futex_wait_for(uint32_t *word)
{
	while (!__atomic_load_n(word, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, word, FUTEX_WAIT, 0, NULL, NULL, 0);
}

static void futex_open(uint32_t *word)
{
	__atomic_store_n(word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * A user at the start barrier: it sleeps until go is set (spurious and
 * signal wake-ups re-check; if the parent dies first, PR_SET_PDEATHSIG ends
 * the user), notes when it left, then waits until all users have left.
 *
 * The clock is read once before the sleep: a forked user's first read
 * faults in the vDSO's data page, and that fault, taken by every user one
 * after another after the release, was 15% of the spread at 2,000 users
 * (bench/barrier.sh).
 */
uint64_t load_barrier_wait(struct load_header *hdr, unsigned users)
{
	(void)load_now_ns();
	futex_wait_for(&hdr->go);
	uint64_t left_at = load_now_ns();
	if (__atomic_add_fetch(&hdr->left, 1, __ATOMIC_ACQ_REL) == users)
		futex_open(&hdr->all_left);
	else
		futex_wait_for(&hdr->all_left);
	return left_at;
}

/*
 * Release every user at once: one store, one wake of all waiters.  The
 * kernel wakes them one by one inside that call, and the first ones woken
 * would preempt the parent there and run their jobs while the rest still
 * sleep (half a second of spread at 1,000 users on 2 CPUs); so the parent
 * makes the call as a real-time task where it may (root), and drops back
 * at once.  Nothing of the users' work runs under it.
 */
void load_barrier_release(struct load_header *hdr)
{
	int policy = sched_getscheduler(0);
	struct sched_param was, rt = { .sched_priority = 1 };
	bool raised = policy == SCHED_OTHER && !sched_getparam(0, &was) &&
		      !sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &rt);
	futex_open(&hdr->go);
	if (raised)
		sched_setscheduler(0, SCHED_OTHER, &was);
}
