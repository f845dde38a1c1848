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
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "jobmix/rng.h"
#include "jobmix/job_compute.h"

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
 *   of its first 10 characters (strncmp after each); ctime (with its zone
 *   check) of a clock that advances a second a round copied in; strcoll,
 *   strcspn, strpbrk, strrchr, strspn and strstr on the result.
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
		/*
		 * re-aim's ctime(): its localtime() checks the zone each call
		 * (glibc: a stat of /etc/localtime when TZ is unset), which
		 * localtime_r() does not; tzset() makes that check, then the
		 * thread-safe ctime_r (users may be threads)
		 */
		tzset();
		p = ctime_r(&t, tbuf);
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
	int64_t v = job_string_work((unsigned)job_scaled(c, STR_ROUNDS), time(NULL), &n);
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
	       "after each); ctime copied in (the zone checked each call, as ctime does: "
	       "with TZ unset, a stat of /etc/localtime); strcoll, strcspn, strpbrk, "
	       "strrchr, strspn, strstr. Fixes over re-aim: tzset and ctime_r instead of "
	       "ctime (the same work; users may be threads), "
	       "ctype arguments cast to unsigned char, its strncpy without a terminator "
	       "written as the memcpy it was.",
	.flags = 0,
	.run_once = string_run,
};

/* ---- mem_rtns_1 ---- */

/* re-aim's size table of mem_rtns_1 and mem_rtns_2 (40 sizes, 1 B to 8 KiB). */
static const unsigned short libc_sizes[] = {
	1, 3, 5, 7, 9, 11, 33, 65, 129, 1024,
	1025, 1023, 8192, 4096, 4095, 11, 33, 65, 129, 1024,
	1, 3, 5, 7, 9, 11, 33, 65, 129, 1024,
	1025, 1023, 8192, 4096, 4095, 11, 33, 65, 129, 1024,
};
#define LIBC_NSIZES (sizeof(libc_sizes) / sizeof(libc_sizes[0]))

#define MEM1_STRINGS 100 /* re-aim's MAXSTRINGS: 3 blocks each */
#define MEM1_STR "Hello, this is an average length string 1234"

/*
 * re-aim's mem_rtns_1 rounds: 100 times a copy of a 44-character string
 * (malloc + strcpy), a malloc and a calloc of sizes from its table; the
 * first byte of all 300 blocks read; the blocks freed from the last
 * triple back (string, calloc'd, malloc'd).  Counts calls and the bytes
 * asked for in *n.  Returns re-aim's running count, or -1 when an
 * allocation fails (what was allocated is freed).
 */
int64_t job_mem1_work(unsigned rounds, struct job_mem_count *n)
{
	char *blk[MEM1_STRINGS * 3];
	int64_t count = 0;
	unsigned j = 0;
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < MEM1_STRINGS; i++) {
			size_t len = strlen(MEM1_STR) + 1;
			size_t m = libc_sizes[i % LIBC_NSIZES];
			size_t z = libc_sizes[(i + 1) % LIBC_NSIZES];
			if (!(blk[j] = malloc(len)))
				goto fail;
			j++;
			strcpy(blk[j - 1], MEM1_STR);
			count += (int64_t)strlen(blk[j - 1]) + 1;
			if (!(blk[j] = malloc(m)))
				goto fail;
			j++;
			count += (int64_t)m;
			if (!(blk[j] = calloc(z, 1)))
				goto fail;
			j++;
			count += (int64_t)z;
			n->bytes += len + m + z;
		}
		for (unsigned i = 0; i < MEM1_STRINGS * 3; i++)
			count += *(volatile char *)blk[i];
		for (int i = MEM1_STRINGS * 3 - 3; i >= 0; i -= 3) {
			free(blk[i]);
			free(blk[i + 2]);
			free(blk[i + 1]);
		}
		j = 0;
		n->calls += 6 * MEM1_STRINGS;
	}
	return count;
fail:
	while (j-- > 0)
		free(blk[j]);
	return -1;
}

static int mem1_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params, (void)state;
	struct job_mem_count n = { 0 };
	int64_t count = job_mem1_work((unsigned)job_scaled(c, 100), &n);
	if (count < 0)
		return job_fail(c, "malloc", NULL, ENOMEM);
	job_sink = (uint64_t)count;
	return 0;
}

const struct job_kind job_mem_rtns_1 = {
	.name = "mem_rtns_1",
	.family = "library",
	.summary = "100 x re-aim's 300 malloc/calloc (1 B-8 KiB), first bytes read, 300 frees",
	.doc = "AIM7 mem_rtns_1, re-aim's work: 100 rounds, each of 100 triples: malloc and "
	       "strcpy of a 44-character string, a malloc and a calloc of sizes from re-aim's "
	       "40-entry table (1 B to 8 KiB); then the first byte of each of the 300 blocks "
	       "read, and the blocks freed from the last triple back (string, calloc'd, "
	       "malloc'd). The sum goes to a volatile sink; a failed allocation fails the job.",
	.flags = 0,
	.run_once = mem1_run,
};

/* ---- mem_rtns_2 ---- */

#define MEM2_ROUNDS 100
#define MEM2_MAX 8192

/*
 * re-aim's two 8,200-byte buffers as its stack frame holds them: 16-byte
 * aligned, so 8,208 bytes apart.  The distance matters: with b at a +
 * 8,200 the copies between them are 4 KiB-aliased (source and destination
 * 1 to 15 bytes apart modulo 4 KiB) and ran at 0.55-0.6 of re-aim's speed.
 */
struct mem2_state {
	_Alignas(16) char a[MEM2_MAX + sizeof(double)];
	_Alignas(16) char b[MEM2_MAX + sizeof(double)];
};
_Static_assert(offsetof(struct mem2_state, b) == 8208, "re-aim's buffer distance");

static int mem2_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void **state)
{
	(void)k, (void)params;
	struct mem2_state *s = calloc(1, sizeof(*s));
	if (!s)
		return job_fail(c, "allocate buffers", NULL, ENOMEM);
	*state = s;
	return 0;
}

/*
 * re-aim's mem_rtns_2 rounds: sizes from its 40-entry table (1 B to 8 KiB),
 * both buffers at offsets 0..7 that change with the round; per round two
 * memsets, a byte marked, memchr for it, memcmp, memcpy and memmove.
 */
void job_mem2_work(char *b1, char *b2, unsigned rounds, struct job_mem_count *n)
{
	for (unsigned r = 0; r < rounds; r++) {
		size_t off1 = r % sizeof(double), off2 = (r / sizeof(double)) % sizeof(double);
		size_t size = libc_sizes[r % LIBC_NSIZES];
		memset(b1 + off1, 'A', size);
		memset(b2 + off2, 'A', size);
		(b1 + off1)[r % size] = 'Z';
		char *p = memchr(b1 + off1, 'Z', size);
		int i = memcmp(b1 + off1, b2 + off2, size);
		if (i > 0 && p)
			*p = 'A';
		memcpy(b1 + off1, b2 + off2, size);
		memmove(b2 + off1, b1 + off2, size);
		n->calls += 6;
		n->bytes += 5 * size; /* memset x2, memcmp, memcpy, memmove (memchr stops early) */
	}
}

static int mem2_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params;
	struct mem2_state *s = state;
	struct job_mem_count n = { 0 };
	job_mem2_work(s->a, s->b, (unsigned)job_scaled(c, MEM2_ROUNDS), &n);
	job_sink = n.bytes + (uint64_t)s->b[MEM2_MAX / 2];
	return 0;
}

const struct job_kind job_mem_rtns_2 = {
	.name = "mem_rtns_2",
	.family = "library",
	.summary = "100 x re-aim's memset x2, memchr, memcmp, memcpy, memmove of 1 B to 8 KiB",
	.doc = "AIM7 mem_rtns_2, re-aim's work: 100 rounds, each of a size from re-aim's "
	       "40-entry table (1 B to 8 KiB, mean 1.1 KiB) at buffer offsets 0 to 7 that "
	       "change with the round: memset both buffers, mark a byte, memchr for it, "
	       "memcmp, memcpy and memmove. Buffers allocated once per user before the clock "
	       "starts (re-aim's were on the stack); results stored to a volatile sink.",
	.flags = 0,
	.setup = mem2_setup,
	.run_once = mem2_run,
	.teardown = job_free_state,
};

/* ---- ram_copy ---- */

#define RAM_ROUNDS 100
#define RAM_MAX (64u * 1024)

struct ram_state {
	char *a;          /* source: never written, as re-aim's static array */
	char *b;          /* destination */
};

static void ram_free(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void *state)
{
	(void)c, (void)k, (void)params;
	struct ram_state *s = state;
	if (s) {
		free(s->a);
		free(s->b);
		free(s);
	}
}

/*
 * re-aim copied from a static array it never wrote: its pages are the
 * kernel's zero page, so the source is always in cache.  calloc of this
 * size maps fresh anonymous memory and does not touch it: the same.
 */
static int ram_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		     void **state)
{
	(void)k, (void)params;
	struct ram_state *s = calloc(1, sizeof(*s));
	if (s) {
		s->a = calloc(1, RAM_MAX + sizeof(double));
		s->b = malloc(RAM_MAX + sizeof(double));
	}
	if (!s || !s->a || !s->b) {
		ram_free(c, k, params, s);
		return job_fail(c, "allocate buffers", NULL, ENOMEM);
	}
	memset(s->b, 1, RAM_MAX + sizeof(double));
	*state = s;
	return 0;
}

/*
 * re-aim's ram_copy: `rounds` memcpys, sizes from its 93-entry table (mostly
 * 1 to 63 bytes, a run of 127 B to 64 KiB in the middle), source and
 * destination at offsets 0..7 that change with the copy.
 */
void job_ram_work(char *a, char *b, unsigned rounds, struct job_mem_count *n)
{
	static const unsigned sizes[] = {
		1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7, 7,
		8, 9, 11, 17, 33, 63, 7, 7, 7, 7, 7, 7,
		1, 2, 3, 4, 5, 6, 7, 7, 7, 7, 7, 7,
		127, 256, 1001, 1200, 1492, 1500,
		1024, 2048, 3172, 4096, 8192, 16384, 32768, 65536, 512,
		7, 7, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6,
		7, 7, 7, 7, 7, 7, 8, 9, 11, 17, 33, 63,
		7, 7, 7, 7, 7, 7, 1, 2, 3, 4, 5, 6,
		7, 7, 7, 7, 7, 7,
	};
	for (unsigned r = 0; r < rounds; r++) {
		char *to = &b[r % sizeof(double)];
		const char *from = &a[(r / sizeof(double)) % sizeof(double)];
		size_t count = sizes[r % (sizeof(sizes) / sizeof(sizes[0]))];
		memcpy(to, from, count);
		n->calls++;
		n->bytes += count;
	}
}

static int ram_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		   void *state)
{
	(void)k, (void)params;
	struct ram_state *s = state;
	struct job_mem_count n = { 0 };
	job_ram_work(s->a, s->b, (unsigned)job_scaled(c, RAM_ROUNDS), &n);
	job_sink = n.bytes + (uint64_t)(unsigned char)s->b[RAM_ROUNDS];
	return 0;
}

const struct job_kind job_ram_copy = {
	.name = "ram_copy",
	.family = "library",
	.summary = "100 memcpys, re-aim's sizes (mostly 1-63 B, 127 B-64 KiB in the middle)",
	.doc = "AIM7 ram_copy, re-aim's work: 100 memcpys, sizes from re-aim's 93-entry table "
	       "(mostly 1 to 63 bytes; 127 B to 64 KiB for copies 36-50: about 140 KiB per "
	       "job), source and destination at offsets 0 to 7 that change with each copy, "
	       "between buffers allocated once per user before the clock starts. As in "
	       "re-aim, the source is never written (re-aim's was a static array it never "
	       "wrote), so its pages are the kernel's zero page and always in cache; a byte "
	       "of the result goes to a volatile sink, so -O2 keeps the copies.",
	.flags = 0,
	.setup = ram_setup,
	.run_once = ram_run,
	.teardown = ram_free,
};

/* ---- sort_rtns_1 ---- */

#define SORT_N 10000

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

static int sort_desc(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;
	return (b > a) - (b < a);
}

/* re-aim's table: 0..9999 in order, kept by the user from job to job. */
static int sort_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		      void **state)
{
	(void)k, (void)params;
	int *v = malloc(SORT_N * sizeof(*v));
	if (!v)
		return job_fail(c, "allocate the array", NULL, ENOMEM);
	for (int i = 0; i < SORT_N; i++)
		v[i] = i;
	*state = v;
	return 0;
}

/*
 * re-aim's sort_rtns_1: `rounds` (re-aim: 2) rounds of 3 qsorts of its table (ascending, which
 * it already is; descending; ascending again) and 2000 bsearches for
 * 0, 10, ..., 19990, half of them absent.  Each ascending sort is checked
 * and the hits counted (1000 a round).
 */
int job_sort_work(struct job_ctx *c, int *v, unsigned rounds, struct job_mem_count *n)
{
	for (unsigned round = 0; round < rounds; round++) {
		qsort(v, SORT_N, sizeof(*v), sort_cmp);
		qsort(v, SORT_N, sizeof(*v), sort_desc);
		qsort(v, SORT_N, sizeof(*v), sort_cmp);
		n->calls += 3;
		if (job_sort_check(c, v, SORT_N))
			return -1;
		unsigned hits = 0;
		for (int key = 0; key < 2 * SORT_N; key += 10) {
			hits += bsearch(&key, v, SORT_N, sizeof(*v), sort_cmp) != NULL;
			n->calls++;
		}
		if (hits != SORT_N / 10)
			return job_failf(c, "bsearch found %u of the %u keys present", hits,
					 SORT_N / 10);
		n->bytes += hits;
	}
	return 0;
}

static int sort_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params;
	int *v = state;
	struct job_mem_count n = { 0 };
	if (job_sort_work(c, v, (unsigned)job_scaled(c, 2), &n))
		return -1;
	job_sink = (uint64_t)v[SORT_N / 2] + n.calls;
	return 0;
}

const struct job_kind job_sort_rtns_1 = {
	.name = "sort_rtns_1",
	.family = "library",
	.summary = "2 x (3 qsorts of re-aim's 10k-int table: up, down, up; 2000 bsearches)",
	.doc = "AIM7 sort_rtns_1, re-aim's work: the user keeps re-aim's table of 10,000 ints "
	       "(0..9999, in order) from job to job; twice, qsort it ascending (it already "
	       "is), descending and ascending again, then bsearch for 0, 10, ..., 19990 (half "
	       "of them absent). The array is allocated once per user before the clock "
	       "starts. Fixes over re-aim: comparisons that cannot overflow; each ascending "
	       "sort is checked and the 1000 hits counted, and a wrong one fails the job.",
	.flags = 0,
	.setup = sort_setup,
	.run_once = sort_run,
	.teardown = job_free_state,
};

/* ---- misc_rtns_1 ---- */

#define MISC_ROUNDS 10

/*
 * re-aim's misc_rtns_1 round: terminal speeds of a termios, clock, ctermid,
 * getcwd, the four ids, getenv("PATH"), getgroups, getpid, getpgrp,
 * getppid, the password entries of root and of the real uid, the group of
 * the real gid, times, isatty and ttyname of stdin, uname: 21 calls.  The
 * re-entrant forms where re-aim used static buffers (users may be threads).
 * Missing entries (no PATH, no passwd line, stdin not a tty) are not errors.
 */
int job_misc_work(struct job_ctx *c, unsigned rounds, struct job_mem_count *n)
{
	char buf[2048], pwbuf[4096], term[L_ctermid], tty[256];
	gid_t groups[64];
	struct termios t;
	struct tms tms;
	struct utsname name;
	struct passwd pw, *pr;
	struct group gr, *gp;
	uint64_t acc = 0;
	memset(&t, 0, sizeof(t));
	for (unsigned r = 0; r < rounds; r++) {
		acc += (uint64_t)cfgetispeed(&t) + (uint64_t)cfgetospeed(&t);
		acc += (uint64_t)clock();
		if (!ctermid(term))
			return job_fail(c, "ctermid", NULL, errno);
		if (!getcwd(buf, sizeof(buf)))
			return job_fail(c, "getcwd", NULL, errno);
		uid_t uid = getuid();
		gid_t gid = getgid();
		acc += uid + geteuid() + gid + getegid();
		const char *env = getenv("PATH");
		acc += env != NULL;
		int ng = getgroups(sizeof(groups) / sizeof(groups[0]), groups);
		acc += (uint64_t)(ng > 0 ? ng : 0);
		acc += (uint64_t)getpid() + (uint64_t)getpgrp() + (uint64_t)getppid();
		int rc = getpwnam_r("root", &pw, pwbuf, sizeof(pwbuf), &pr);
		if (rc)
			return job_fail(c, "getpwnam_r of root", NULL, rc);
		rc = getpwuid_r(uid, &pw, pwbuf, sizeof(pwbuf), &pr);
		if (rc)
			return job_fail(c, "getpwuid_r", NULL, rc);
		rc = getgrgid_r(gid, &gr, pwbuf, sizeof(pwbuf), &gp);
		if (rc)
			return job_fail(c, "getgrgid_r", NULL, rc);
		acc += (uint64_t)times(&tms);
		acc += (uint64_t)isatty(STDIN_FILENO);
		acc += (uint64_t)ttyname_r(STDIN_FILENO, tty, sizeof(tty));
		if (uname(&name))
			return job_fail(c, "uname", NULL, errno);
		n->calls += 21;
	}
	job_sink = acc;
	return 0;
}

static int misc_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void *state)
{
	(void)k, (void)params, (void)state;
	struct job_mem_count n = { 0 };
	return job_misc_work(c, (unsigned)job_scaled(c, MISC_ROUNDS), &n);
}

const struct job_kind job_misc_rtns_1 = {
	.name = "misc_rtns_1",
	.family = "library",
	.summary = "10 x re-aim's 21 identity, terminal, passwd/group, times and uname calls",
	.doc = "AIM7 misc_rtns_1, re-aim's work: 10 rounds of cfgetispeed, cfgetospeed, "
	       "clock, ctermid, getcwd, getuid, geteuid, getgid, getegid, getenv(PATH), "
	       "getgroups, getpid, getpgrp, getppid, the password entries of root and of the "
	       "real uid, the group entry of the real gid, times, isatty, ttyname and uname. "
	       "Fixes over re-aim: the re-entrant forms (getpwnam_r, getpwuid_r, getgrgid_r, "
	       "ttyname_r, ctermid into a buffer: users may be threads); a missing PATH or "
	       "passwd entry is not an error; results stored to a volatile sink.",
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
	return job_dir_read(c, dirs, (unsigned)job_scaled(c, DIR_CALLS));
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
