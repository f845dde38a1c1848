// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/trace-floor.sh's loader and clock: loads trace-floor.bpf.o, then
 * per round, for each set of its programs (the order rotated each round
 * so that drift favours none), attaches the set, times CALLS getppid(2)
 * calls in each of THREADS threads (one pinned to each CPU from the
 * last), and detaches.  Prints per set the ns a syscall and per
 * comparison the paired difference over the rounds with its 95%
 * interval; then, with the kernel's run-time stats on (bpf_enable_stats:
 * a descriptor, off again when it closes), each program's own ns a call.
 *
 * (task_rename's sets time prctl(PR_SET_NAME) calls instead.)
 *
 *   trace-floor OBJ ROUNDS CALLS THREADS
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdint.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAXP 4
struct set {
	const char *name, *what;
	const char *progs[MAXP];
	int spread;
	int rename;              /* the calls timed: prctl(PR_SET_NAME), not getppid(2) */
};

static const struct set sets[] = {
	{ "none", "nothing attached", { 0 }, 0, 0 },
	{ "e1", "1 empty on sys_enter", { "fl_empty_a" }, 0, 0 },
	{ "e2", "2 empty on sys_enter", { "fl_empty_a", "fl_empty_b" }, 0, 0 },
	{ "e4", "4 empty on sys_enter", { "fl_empty_a", "fl_empty_b", "fl_empty_c", "fl_empty_d" }, 0, 0 },
	{ "ex", "empty on sys_enter + sys_exit", { "fl_empty_a", "fl_empty_x" }, 0, 0 },
	{ "ic", "issue + complete bodies, one element", { "fl_issue", "fl_complete" }, 0, 0 },
	{ "ics", "issue + complete bodies, an element a CPU", { "fl_issue", "fl_complete" }, 1, 0 },
	{ "rnone", "prctl(PR_SET_NAME), nothing attached", { 0 }, 0, 1 },
	{ "r1", "prctl, 1 empty on task_rename", { "fl_ren_a" }, 0, 1 },
	{ "r2", "prctl, 2 empty on task_rename", { "fl_ren_a", "fl_ren_b" }, 0, 1 },
	{ "r4", "prctl, 4 empty on task_rename", { "fl_ren_a", "fl_ren_b", "fl_ren_c", "fl_ren_d" }, 0, 1 },
};
#define NSETS (int)(sizeof(sets) / sizeof(sets[0]))

static struct bpf_object *obj;
static volatile unsigned *spread;
static volatile int rename_calls;
static long calls;
static int nthreads;
static pthread_barrier_t go, done;
static double thread_ns[64];
static volatile int quit;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

/* one thread: pinned, then per measurement CALLS getppid(2) timed */
static void *worker(void *arg)
{
	int i = (int)(long)arg, ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t cs;
	CPU_ZERO(&cs);
	CPU_SET((ncpu - 1 - i + ncpu) % ncpu, &cs);
	pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs);
	for (;;) {
		pthread_barrier_wait(&go);
		if (quit)
			return NULL;
		double t0 = now_ns();
		if (rename_calls)
			for (long k = 0; k < calls; k++)
				syscall(SYS_prctl, PR_SET_NAME, "trace-floor", 0, 0, 0);
		else
			for (long k = 0; k < calls; k++)
				syscall(SYS_getppid);
		thread_ns[i] = (now_ns() - t0) / calls;
		pthread_barrier_wait(&done);
	}
}

/* the mean ns a syscall over the threads of one measurement */
static double measure(void)
{
	double s = 0;
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&done);
	for (int i = 0; i < nthreads; i++)
		s += thread_ns[i];
	return s / nthreads;
}

static int attach(const struct set *st, struct bpf_link **links)
{
	*spread = (unsigned)st->spread;
	rename_calls = st->rename;
	for (int i = 0; i < MAXP; i++) {
		links[i] = NULL;
		if (!st->progs[i])
			continue;
		struct bpf_program *p = bpf_object__find_program_by_name(obj, st->progs[i]);
		links[i] = p ? bpf_program__attach(p) : NULL;
		if (!links[i]) {
			fprintf(stderr, "trace-floor: attach %s failed\n", st->progs[i]);
			return -1;
		}
	}
	return 0;
}

static void detach(struct bpf_link **links)
{
	for (int i = 0; i < MAXP; i++)
		if (links[i])
			bpf_link__destroy(links[i]);
}

static const double tq[] = { 0, 12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23,
			     2.20, 2.18, 2.16, 2.14, 2.13, 2.12, 2.11, 2.10, 2.09, 2.09 };

/* mean, sd and the 95% half-interval of the mean of n values */
static void summary(const double *v, int n, double *m, double *sd, double *h)
{
	double s = 0, q = 0;
	for (int i = 0; i < n; i++)
		s += v[i];
	*m = s / n;
	for (int i = 0; i < n; i++)
		q += (v[i] - *m) * (v[i] - *m);
	*sd = n > 1 ? sqrt(q / (n - 1)) : 0;
	*h = n > 1 ? (n - 1 <= 20 ? tq[n - 1] : 2.0) * *sd / sqrt(n) : 0;
}

static int set_ix(const char *name)
{
	for (int i = 0; i < NSETS; i++)
		if (!strcmp(sets[i].name, name))
			return i;
	return -1;
}

/* a paired difference over the rounds: (a - b) / div */
static void diff(double (*ns)[NSETS], int rounds, const char *a, const char *b, double div,
		 const char *what)
{
	int ia = set_ix(a), ib = set_ix(b);
	double d[256], m, sd, h;
	for (int r = 0; r < rounds; r++)
		d[r] = (ns[r][ia] - ns[r][ib]) / div;
	summary(d, rounds, &m, &sd, &h);
	printf("  %-28s %7.1f ns (95%% CI %6.1f .. %6.1f; sd %5.1f)\n", what, m, m - h, m + h, sd);
}

static int prog_stats(const char *name, __u64 *ns, __u64 *cnt)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, name);
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	memset(&info, 0, sizeof(info));
	if (!p || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return -1;
	*ns = info.run_time_ns;
	*cnt = info.run_cnt;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: trace-floor OBJ ROUNDS CALLS THREADS\n");
		return 2;
	}
	int rounds = atoi(argv[2]);
	calls = atol(argv[3]);
	nthreads = atoi(argv[4]);
	if (rounds < 2 || rounds > 256 || calls < 1 || nthreads < 1 || nthreads > 64)
		return 2;
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "trace-floor: loading %s failed\n", argv[1]);
		return 1;
	}
	struct bpf_map *bss = bpf_object__find_map_by_name(obj, ".bss");
	size_t sz;
	/* .bss holds `spread` only (`enabled`, set, is in .data) */
	spread = bss ? (volatile unsigned *)(void *)(uintptr_t)bpf_map__initial_value(bss, &sz) : NULL;
	if (!spread) {
		fprintf(stderr, "trace-floor: no mapped .bss\n");
		return 1;
	}
	pthread_barrier_init(&go, NULL, (unsigned)nthreads + 1);
	pthread_barrier_init(&done, NULL, (unsigned)nthreads + 1);
	pthread_t th[64];
	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(long)i);

	static double ns[256][NSETS];
	struct bpf_link *links[MAXP];
	measure();                           /* warm up */
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < NSETS; k++) {
			int s = (k + r) % NSETS;
			if (attach(&sets[s], links))
				return 1;
			ns[r][s] = measure();
			detach(links);
		}
	printf("%d rounds of %ld syscalls in %d thread(s), ns a syscall:\n", rounds, calls,
	       nthreads);
	for (int s = 0; s < NSETS; s++) {
		double v[256], m, sd, h;
		for (int r = 0; r < rounds; r++)
			v[r] = ns[r][s];
		summary(v, rounds, &m, &sd, &h);
		printf("  %-5s %-42s %7.1f (sd %4.1f)\n", sets[s].name, sets[s].what, m, sd);
	}
	printf("paired differences a call:\n");
	diff(ns, rounds, "e1", "none", 1, "e1 - none (tp on + 1 call)");
	diff(ns, rounds, "e2", "e1", 1, "e2 - e1 (one more call)");
	diff(ns, rounds, "e4", "e1", 3, "(e4 - e1) / 3 (a call)");
	diff(ns, rounds, "ex", "e1", 1, "ex - e1 (exit tp on + call)");
	diff(ns, rounds, "ex", "none", 2, "(ex - none) / 2");
	diff(ns, rounds, "ic", "ex", 2, "(ic - ex) / 2 (body)");
	diff(ns, rounds, "ics", "ex", 2, "(ics - ex) / 2 (body)");
	diff(ns, rounds, "ic", "ics", 1, "ic - ics (shared line)");
	diff(ns, rounds, "r1", "rnone", 1, "r1 - rnone (tp on + 1 call)");
	diff(ns, rounds, "r2", "r1", 1, "r2 - r1 (one more call)");
	diff(ns, rounds, "r4", "r1", 3, "(r4 - r1) / 3 (a call)");

	/* the programs' own time (the kernel's run-time stats, on while sfd is open) */
	int sfd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (sfd < 0) {
		fprintf(stderr, "trace-floor: bpf_enable_stats: %s\n", strerror(errno));
	} else {
		static const char *st[] = { "e1", "ex", "ic", "ics", "r1" };
		printf("with bpf_stats on (%d rounds), ns a syscall and the programs' own ns a call:\n",
		       rounds);
		for (int k = 0; k < 5; k++) {
			const struct set *set = &sets[set_ix(st[k])];
			double t = 0, pn[MAXP] = { 0 }, pc[MAXP] = { 0 };
			for (int r = 0; r < rounds; r++) {
				__u64 n0[MAXP] = { 0 }, c0[MAXP] = { 0 }, n1, c1;
				if (attach(set, links))
					return 1;
				for (int i = 0; i < MAXP && set->progs[i]; i++)
					prog_stats(set->progs[i], &n0[i], &c0[i]);
				t += measure() / rounds;
				for (int i = 0; i < MAXP && set->progs[i]; i++)
					if (!prog_stats(set->progs[i], &n1, &c1)) {
						pn[i] += (double)(n1 - n0[i]);
						pc[i] += (double)(c1 - c0[i]);
					}
				detach(links);
			}
			printf("  %-5s %7.1f ns a syscall;", set->name, t);
			for (int i = 0; i < MAXP && set->progs[i]; i++)
				printf(" %s %.1f ns (%.0f calls)", set->progs[i], pc[i] ? pn[i] / pc[i] : 0,
				       pc[i]);
			printf("\n");
		}
		close(sfd);
	}
	quit = 1;
	pthread_barrier_wait(&go);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	bpf_object__close(obj);
	return 0;
}
