// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 library jobs: string_rtns, mem_rtns_1, mem_rtns_2, ram_copy,
 * sort_rtns_1, misc_rtns_1 and dir_rtns_1.  They exercise the C library
 * and a few cheap system calls; none touches the work directories.  Data
 * comes from the user's seeded RNG, results are checked where there is
 * something to check (a wrong one fails the job) and otherwise go to the
 * volatile job_sink, so -O2 keeps the work.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "jobmix/rng.h"
#include "compute.h"

/* Free a state allocated in one block. */
static void libc_free_state(struct job_ctx *c, const struct job_kind *k, const void *params,
			    void *state)
{
	(void)c, (void)k, (void)params;
	free(state);
}

/* ---- string_rtns ---- */

#define STR_ROUNDS 100
#define STR_BUF 1024
#define STR_CAT "What is your name?"

/*
 * re-aim's string_rtns, round by round on one 1 KiB buffer whose contents
 * carry over from round to round as in re-aim (its ctype scan meets the
 * previous round's leftovers):
 *   a number through sprintf("%g"), atof and strtod, then sprintf("%ld"),
 *   atol, atoi and strtol; a 100-character line of every character class
 *   sprintf'd over the buffer; 11 ctype classifications of each of 1,023
 *   characters, lower case letters twiddled through toupper and tolower,
 *   upper case through tolower and toupper; the buffer filled with strcat
 *   of an 18-character question (strcmp after each), refilled with strncat
 *   of its first 10 characters (strncmp after each); ctime of a clock that
 *   advances a second a round copied in; strcoll, strcspn, strpbrk,
 *   strrchr, strspn and strstr on the result.
 * Counts what it calls in *n.  Returns re-aim's counter.
 */
int64_t job_string_work(unsigned rounds, time_t t0, struct job_str_count *n)
{
	char buffer[STR_BUF], catbuf[32], tbuf[64], *p;
	int64_t itemp1 = 0, itemp2 = 0;
	time_t t = t0;
	memset(buffer, 0, sizeof(buffer));
	for (unsigned r = 0; r < rounds; r++) {
		double d1 = (double)itemp1 / 1000.0;
		snprintf(buffer, sizeof(buffer), "%g", d1);
		double d2 = atof(buffer);
		double d3 = strtod(buffer, &p);
		long l1 = (long)(1000 * d2);
		snprintf(buffer, sizeof(buffer), "%ld", l1);
		long l2 = atol(buffer);
		itemp1 = atoi(buffer);
		long l3 = strtol(buffer, &p, 10);
		n->sprintf += 2;
		n->numeric += 5;
		job_sink = (uint64_t)l2 + (uint64_t)l3 + (uint64_t)(d3 != d2);

		snprintf(buffer, sizeof(buffer), " \t\n\r\b0123456789 abcde fghij klmno pqrst uvwxy z "
			 "ABCDE FGHIJ KLMNO PQRST UVWXY Z .,;:!@#$%%^&*()_-+=|\\\"'`[]}{");
		n->sprintf++;
		for (p = buffer; p != &buffer[sizeof(buffer) - 1]; p++) {
			int ch = (unsigned char)*p;
			itemp1 += isalnum(ch) != 0;
			itemp1 += isalpha(ch) != 0;
			itemp1 += iscntrl(ch) != 0;
			itemp1 += isdigit(ch) != 0;
			itemp1 += isgraph(ch) != 0;
			if (islower(ch)) {
				itemp1++;
				*p = (char)toupper(ch);
				*p = (char)tolower((unsigned char)*p);
				n->casemap += 2;
			}
			ch = (unsigned char)*p;
			itemp1 += isprint(ch) != 0;
			itemp1 += ispunct(ch) != 0;
			itemp1 += isspace(ch) != 0;
			if (isupper(ch)) {
				itemp1++;
				*p = (char)tolower(ch);
				*p = (char)toupper((unsigned char)*p);
				n->casemap += 2;
			}
			itemp1 += isxdigit((unsigned char)*p) != 0;
			n->ctype += 11;
		}

		snprintf(catbuf, sizeof(catbuf), "%s", STR_CAT);
		itemp2 = (int64_t)strlen(catbuf);
		snprintf(buffer, sizeof(buffer), "%s", catbuf);
		n->sprintf += 2;
		itemp2 += strcmp(buffer, catbuf) == 0;
		n->cmp++;
		while (sizeof(buffer) - strlen(buffer) > strlen(catbuf)) {
			strcat(buffer, catbuf);
			itemp2 += strcmp(buffer, catbuf) == 0;
			n->strcat++;
			n->cmp++;
		}
		strcpy(buffer, catbuf);
		while (sizeof(buffer) - strlen(buffer) > strlen(catbuf)) {
			strncat(buffer, catbuf, 10);
			itemp2 += strncmp(buffer, catbuf, 10) == 0;
			n->strncat++;
			n->cmp++;
		}
		p = ctime_r(&t, tbuf); /* re-aim: ctime(), not thread-safe */
		t++;
		n->ctime++;
		if (p) {
			size_t len = strlen(p);
			memcpy(buffer, p, len); /* re-aim's strncpy(buffer, p, strlen(p)) */
		}
		itemp1 += strcoll(buffer, catbuf) == 0;
		itemp1 += strcspn(buffer, "jfamsond") > 4;
		itemp1 += strpbrk(buffer, " ;\n") == NULL;
		itemp1 += strrchr(buffer, '\n') == NULL;
		itemp1 += strspn(buffer, "abcdefghijklmnopqrstuvwxyz") > 5;
		itemp1 += strstr(buffer, buffer) != buffer;
		n->search += 6;
		if (itemp2 > 100) {
			itemp2 = 0;
			itemp1++;
		}
	}
	return itemp1;
}

static int string_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void *state)
{
	(void)k, (void)params, (void)state;
	struct job_str_count n = { 0 };
	int64_t v = job_string_work(STR_ROUNDS, time(NULL), &n);
	if (v < 0)
		return job_failf(c, "re-aim's counter went negative (%lld)", (long long)v);
	job_sink = (uint64_t)v + n.strcat;
	return 0;
}

const struct job_kind job_string_rtns = {
	.name = "string_rtns",
	.family = "library",
	.summary = "100 x re-aim's string round: conversions, 11 ctype calls x 1,023 chars, "
		   "1 KiB strcat/strncat fills, ctime, searches",
	.doc = "AIM7 string_rtns, re-aim's work: 100 rounds on one 1 KiB buffer whose "
	       "contents carry over between rounds. Each round: sprintf(\"%g\"), atof, strtod, "
	       "sprintf(\"%ld\"), atol, atoi, strtol; a 100-character line of every character "
	       "class written over the buffer; isalnum, isalpha, iscntrl, isdigit, isgraph, "
	       "islower, isprint, ispunct, isspace, isupper, isxdigit on each of 1,023 "
	       "characters, lower and upper case letters twiddled through toupper and "
	       "tolower; the buffer filled by 55 strcats of an 18-character question (strcmp "
	       "after each) and refilled by 99 strncats of its first 10 characters (strncmp "
	       "after each); ctime copied in; strcoll, strcspn, strpbrk, strrchr, strspn, "
	       "strstr. Fixes over re-aim: ctime_r instead of ctime (users may be threads), "
	       "ctype arguments cast to unsigned char, its strncpy without a terminator "
	       "written as the memcpy it was.",
	.flags = 0,
	.run_once = string_run,
};

/* ---- mem_rtns_1 ---- */

#define MEM1_ROUNDS 100
#define MEM1_BLOCKS 150 /* allocations per round; as many frees: 300 calls */
#define MEM1_MAX 4096

/*
 * 100 rounds of 150 allocations (malloc and calloc alternately, 16 B to
 * 4 KiB) then 150 frees in a scattered order.  Each malloc'd block is
 * written at both ends; each calloc'd block is checked zero at both ends.
 */
static int mem1_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params, (void)state;
	unsigned char *blk[MEM1_BLOCKS];
	size_t len[MEM1_BLOCKS];
	uint64_t acc = 0;
	int ret = -1, n = 0;
	for (int round = 0; round < MEM1_ROUNDS; round++) {
		for (n = 0; n < MEM1_BLOCKS; n++) {
			len[n] = 16 + jm_rng_below(c->rng, MEM1_MAX - 15);
			if (n % 2) {
				blk[n] = calloc(1, len[n]);
				if (!blk[n]) {
					job_fail(c, "calloc", NULL, ENOMEM);
					goto out;
				}
				if (blk[n][0] || blk[n][len[n] - 1]) {
					job_failf(c, "calloc of %zu bytes returned non-zero memory",
						  len[n]);
					n++;
					goto out;
				}
			} else {
				blk[n] = malloc(len[n]);
				if (!blk[n]) {
					job_fail(c, "malloc", NULL, ENOMEM);
					goto out;
				}
			}
			blk[n][0] = (unsigned char)n;
			blk[n][len[n] - 1] = (unsigned char)round;
		}
		/* 7 is prime to 150: every block exactly once, not in allocation order */
		for (int i = 0; i < MEM1_BLOCKS; i++) {
			int j = (i * 7) % MEM1_BLOCKS;
			acc += blk[j][0] + blk[j][len[j] - 1];
			free(blk[j]);
		}
		n = 0;
	}
	job_sink = acc;
	ret = 0;
out:
	for (int i = 0; i < n; i++)
		free(blk[i]);
	return ret;
}

const struct job_kind job_mem_rtns_1 = {
	.name = "mem_rtns_1",
	.family = "library",
	.summary = "100 x 300 malloc/calloc/free calls of 16 B to 4 KiB",
	.doc = "AIM7 mem_rtns_1: 100 rounds of 150 allocations (malloc and calloc "
	       "alternately, random sizes from 16 B to 4 KiB) followed by 150 frees in a "
	       "scattered order; the allocator is the work. Fixes over re-aim: each block is "
	       "written (malloc) or checked zero (calloc) at both ends and the bytes go to a "
	       "volatile sink, so the compiler cannot drop the malloc/free pairs; a failed "
	       "allocation fails the job.",
	.flags = 0,
	.run_once = mem1_run,
};

/* ---- mem_rtns_2 ---- */

#define MEM2_MAX 8192

struct mem2_state {
	unsigned char a[MEM2_MAX], b[MEM2_MAX];
};

static int mem2_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void **state)
{
	(void)k, (void)params;
	struct mem2_state *s = malloc(sizeof(*s));
	if (!s)
		return job_fail(c, "allocate buffers", NULL, ENOMEM);
	*state = s;
	return 0;
}

/* 100 x memset, memcpy, memcmp, memchr (a hit and a miss) and an overlapping memmove. */
static int mem2_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params;
	struct mem2_state *s = state;
	uint64_t acc = 0;
	for (int i = 0; i < 100; i++) {
		size_t n = 1 + jm_rng_below(c->rng, MEM2_MAX);
		int byte = (int)(jm_rng_next(c->rng) & 0xff);
		memset(s->a, byte, n);
		memcpy(s->b, s->a, n);
		if (memcmp(s->a, s->b, n))
			return job_failf(c, "memcmp after memcpy of %zu bytes differs", n);
		if (memchr(s->b, byte, n) != s->b || memchr(s->b, byte ^ 1, n))
			return job_failf(c, "memchr over %zu bytes of 0x%02x is wrong", n, byte);
		s->b[n - 1] = (unsigned char)(byte ^ 0x5a);
		memmove(s->b + n / 2, s->b, n - n / 2);
		acc += s->b[n - 1] + (uint64_t)memcmp(s->a, s->b, n);
	}
	job_sink = acc;
	return 0;
}

const struct job_kind job_mem_rtns_2 = {
	.name = "mem_rtns_2",
	.family = "library",
	.summary = "100 x memset, memcpy, memcmp, memchr, memmove of up to 8 KiB",
	.doc = "AIM7 mem_rtns_2: 100 rounds, each of a random length from 1 B to 8 KiB: "
	       "memset, memcpy, memcmp, memchr (one hit, one miss) and an overlapping "
	       "memmove, on buffers allocated once per user before the clock starts. Fixes "
	       "over re-aim: lengths and bytes from the user's seeded RNG, memcmp and memchr "
	       "results checked, the rest stored to a volatile sink.",
	.flags = 0,
	.setup = mem2_setup,
	.run_once = mem2_run,
	.teardown = libc_free_state,
};

/* ---- ram_copy ---- */

#define RAM_MAX (64u * 1024)

struct ram_state {
	unsigned char src[RAM_MAX], dst[RAM_MAX];
};

static int ram_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void **state)
{
	(void)k, (void)params;
	struct ram_state *s = malloc(sizeof(*s));
	if (!s)
		return job_fail(c, "allocate buffers", NULL, ENOMEM);
	job_fill_pattern(s->src, sizeof(s->src), c->user + 1);
	*state = s;
	return 0;
}

/* 100 memcpys, lengths 1, 2, 4, ..., 64 KiB in turn; the last byte copied is checked. */
static int ram_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		   void *state)
{
	(void)k, (void)params;
	struct ram_state *s = state;
	uint64_t acc = 0;
	for (unsigned i = 0; i < 100; i++) {
		size_t n = (size_t)1 << (i % 17);
		s->dst[n - 1] = (unsigned char)~s->src[n - 1];
		memcpy(s->dst, s->src, n);
		if (s->dst[n - 1] != s->src[n - 1])
			return job_failf(c, "memcpy of %zu bytes did not copy its last byte", n);
		acc += s->dst[n / 2];
	}
	job_sink = acc;
	return 0;
}

const struct job_kind job_ram_copy = {
	.name = "ram_copy",
	.family = "library",
	.summary = "100 memcpys of 1 B to 64 KiB",
	.doc = "AIM7 ram_copy: 100 memcpys, the lengths going 1 B, 2 B, 4 B, ... 64 KiB and "
	       "round again, between buffers allocated once per user before the clock "
	       "starts. Fix over re-aim: the last byte of each copy is checked and a byte of "
	       "it stored to a volatile sink, so -O2 keeps the copies.",
	.flags = 0,
	.setup = ram_setup,
	.run_once = ram_run,
	.teardown = libc_free_state,
};

/* ---- sort_rtns_1 ---- */

#define SORT_N 10000
#define SORT_SEARCHES 2000

static int sort_cmp(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	return (a > b) - (a < b);
}

int job_sort_check(struct job_ctx *c, const int *v, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (v[i - 1] > v[i])
			return job_failf(c, "qsort left %d before %d at index %zu of %zu", v[i - 1],
					 v[i], i, n);
	return 0;
}

int job_bsearch_check(struct job_ctx *c, const int *v, size_t n, int key, bool present)
{
	const int *hit = bsearch(&key, v, n, sizeof(*v), sort_cmp);
	if (present && (!hit || *hit != key))
		return job_failf(c, "bsearch did not find %d, which is in the array", key);
	if (!present && hit)
		return job_failf(c, "bsearch found %d, which is not in the array", key);
	return 0;
}

/* Fill v with even values in one of three orders: random, descending, nearly sorted. */
static void sort_fill(struct jm_rng *r, int *v, size_t n, int order)
{
	for (size_t i = 0; i < n; i++) {
		int x = (int)(jm_rng_below(r, 1u << 30));
		if (order == 1)
			x = (int)(2 * (n - i)) * 1000 + x % 1000;
		else if (order == 2)
			x = (int)(2 * i) * 1000 + x % 4000;
		v[i] = x & ~1;
	}
}

static int sort_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void **state)
{
	(void)k, (void)params;
	int *v = malloc(SORT_N * sizeof(*v));
	if (!v)
		return job_fail(c, "allocate the array", NULL, ENOMEM);
	*state = v;
	return 0;
}

/*
 * 2 x (3 qsorts of 10k ints, each checked sorted; 2000 bsearches in the
 * last: half for values present, half for odd values that cannot be).
 */
static int sort_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params;
	int *v = state;
	for (int round = 0; round < 2; round++) {
		for (int order = 0; order < 3; order++) {
			sort_fill(c->rng, v, SORT_N, order);
			qsort(v, SORT_N, sizeof(*v), sort_cmp);
			if (job_sort_check(c, v, SORT_N))
				return -1;
		}
		for (int i = 0; i < SORT_SEARCHES; i++) {
			int key = v[jm_rng_below(c->rng, SORT_N)];
			bool present = i % 2 == 0;
			if (!present)
				key |= 1;
			if (job_bsearch_check(c, v, SORT_N, key, present))
				return -1;
		}
	}
	job_sink = (uint64_t)v[SORT_N / 2];
	return 0;
}

const struct job_kind job_sort_rtns_1 = {
	.name = "sort_rtns_1",
	.family = "library",
	.summary = "2 x (3 qsorts of 10k ints + 2000 bsearches), checked",
	.doc = "AIM7 sort_rtns_1: twice, qsort 10,000 ints three times (random, descending "
	       "and nearly sorted input), then 2000 bsearches in the sorted array, half for "
	       "values it holds and half for values it cannot hold; the array is allocated "
	       "once per user before the clock starts. Fixes over re-aim: data from the "
	       "user's seeded RNG; each sort is checked ordered and each bsearch hit or "
	       "miss verified, and a wrong one fails the job.",
	.flags = 0,
	.setup = sort_setup,
	.run_once = sort_run,
	.teardown = libc_free_state,
};

/* ---- misc_rtns_1 ---- */

/* 10 x the identity calls, getpwuid_r of the real uid, and uname. */
static int misc_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params, (void)state;
	char buf[8192];
	uint64_t acc = 0;
	for (int i = 0; i < 10; i++) {
		uid_t uid = getuid();
		acc += (uint64_t)getpid() + (uint64_t)getppid() + uid + geteuid() + getgid();
		struct passwd pw, *res = NULL;
		int rc = getpwuid_r(uid, &pw, buf, sizeof(buf), &res);
		if (rc)
			return job_fail(c, "getpwuid_r", NULL, rc);
		if (res)
			acc += strlen(res->pw_name) + res->pw_gid;
		struct utsname u;
		if (uname(&u))
			return job_fail(c, "uname", NULL, errno);
		acc += strlen(u.release);
	}
	job_sink = acc;
	return 0;
}

const struct job_kind job_misc_rtns_1 = {
	.name = "misc_rtns_1",
	.family = "library",
	.summary = "10 x getpid, getppid, getuid, geteuid, getgid, getpwuid_r, uname",
	.doc = "AIM7 misc_rtns_1: 10 rounds of the identity calls (getpid, getppid, getuid, "
	       "geteuid, getgid), a password-database lookup of the real uid (getpwuid_r: "
	       "reads /etc/passwd or asks NSS; a uid without an entry is not an error) and "
	       "uname. Fixes over re-aim: the re-entrant getpwuid_r (users may be threads), "
	       "errors from it or uname fail the job, results stored to a volatile sink.",
	.flags = 0,
	.run_once = misc_run,
};

/* ---- dir_rtns_1 ---- */

#define DIR_CALLS 10000

int job_dir_read(struct job_ctx *c, const char *const *dirs, unsigned calls)
{
	DIR *d = NULL;
	const char *path = NULL;
	char tried[256] = "";
	int open_err = ENOENT;
	for (size_t i = 0; dirs[i] && !d; i++) {
		d = opendir(dirs[i]);
		if (d) {
			path = dirs[i];
			break;
		}
		open_err = errno;
		size_t used = strlen(tried);
		snprintf(tried + used, sizeof(tried) - used, "%s'%s'", used ? ", " : "", dirs[i]);
	}
	if (!d)
		return job_failf(c, "cannot open a directory to read (tried %s): %s",
				 tried[0] ? tried : "none", strerror(open_err));
	uint64_t acc = 0, seen = 0;
	int ret = -1;
	for (unsigned n = 0; n < calls; n++) {
		errno = 0;
		struct dirent *e = readdir(d);
		if (e) {
			acc += (unsigned char)e->d_name[0];
			seen++;
			continue;
		}
		if (errno) {
			job_fail(c, "readdir", path, errno);
			goto out;
		}
		if (!seen) {
			job_failf(c, "readdir '%s' returned no entries at all", path);
			goto out;
		}
		rewinddir(d);
	}
	job_sink = acc;
	ret = 0;
out:
	closedir(d);
	return ret;
}

static int dir_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		   void *state)
{
	(void)k, (void)params, (void)state;
	static const char *const dirs[] = { "/usr/bin", "/etc", "/", NULL };
	return job_dir_read(c, dirs, DIR_CALLS);
}

const struct job_kind job_dir_rtns_1 = {
	.name = "dir_rtns_1",
	.family = "library",
	.summary = "10,000 readdir calls over /usr/bin (or /etc, /), rewinding at its end",
	.doc = "AIM7 dir_rtns_1: opens /usr/bin (else /etc, else /) and makes 10,000 readdir "
	       "calls, rewinding the stream whenever it reaches the end, then closes it. "
	       "Fixes over re-aim: a directory that cannot be opened, a readdir error or an "
	       "empty listing fails the job with the path and the reason; the names read go "
	       "to a volatile sink.",
	.flags = 0,
	.run_once = dir_run,
};
