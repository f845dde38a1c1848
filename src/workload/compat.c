// SPDX-License-Identifier: GPL-2.0-only
/*
 * re-aim's inputs as jobmix workloads: the workfile (`WEIGHT TESTNAME`
 * lines, `#` comments, optional `FILESIZE:`/`POOLSIZE:` lines) and
 * reaim.config (FILESIZE, POOLSIZE, DISKDIR, STARTUSERS, ENDUSERS,
 * INCREMENT, JOBS, CROSSOVER; VERBOSE and BRIEF accepted and ignored), read
 * as re-aim documents them but stricter: a line it cannot read is an error
 * naming FILE:LINE, never skipped.  And --job's ad-hoc mixes.  The output
 * is workload YAML; the loader validates it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jobmix/compat.h"
#include "jobmix/job.h"
#include "jobmix/readfile.h"
#include "jobmix/wl_keys.h"
#include "jobmix/workload.h"

/*
 * The AIM7 tests (re-aim-7's registered names) with a jobmix kind of the
 * same name doing the same work (see docs/jobs.md, "Against sysbench and
 * re-aim").  Names are the kinds' own: the table is here so that a test
 * walks it against the registry.
 */
const char *const compat_aim7_tests[] = {
	"add_double", "add_float", "add_int", "add_long", "add_short", "array_rtns", "brk_test",
	"creat_clo", "dgram_pipe", "dir_rtns_1", "disk_bcp", "disk_brd", "disk_brr", "disk_brw",
	"disk_bwrt", "disk_cp", "disk_dio_cp", "disk_dio_rd", "disk_dio_rr", "disk_dio_rw",
	"disk_dio_wrt", "disk_rd", "disk_rr", "disk_rw", "disk_src", "disk_wrt", "div_double",
	"div_float", "div_int", "div_long", "div_short", "exec_test", "fifo_test", "fork_test",
	"fun_cal", "fun_cal1", "fun_cal15", "fun_cal2", "jmp_test", "link_test", "matrix_rtns",
	"mem_rtns_1", "mem_rtns_2", "misc_rtns_1", "mul_double", "mul_float", "mul_int",
	"mul_long", "mul_short", "new_raph", "num_rtns_1", "page_test", "pipe_cpy", "ram_copy",
	"series_1", "shared_memory", "shell_rtns_1", "shell_rtns_2", "shell_rtns_3", "sieve",
	"signal_test", "sort_rtns_1", "stream_pipe", "string_rtns", "sync_disk_cp",
	"sync_disk_rw", "sync_disk_update", "sync_disk_wrt", "tcp_test", "trig_rtns", "udp_test",
	NULL,
};

/* re-aim tests jobmix does not do (yet), and why. */
static const struct {
	const char *name, *why;
} compat_missing[] = {
	{ "disk_aio_rr", "re-aim's libaio variant of disk_rr has no jobmix kind yet" },
	{ "disk_aio_rw", "re-aim's libaio variant of disk_rw has no jobmix kind yet" },
	{ "disk_aiodio_rr", "re-aim's libaio O_DIRECT disk_rr has no jobmix kind yet" },
	{ "disk_aiodio_rw", "re-aim's libaio O_DIRECT disk_rw has no jobmix kind yet" },
	{ "test1", "re-aim's test1 is a driver self-test, not a workload" },
};

const char *compat_kind(const char *aim7_test, const char **why)
{
	*why = NULL;
	for (size_t i = 0; compat_aim7_tests[i]; i++)
		if (!strcmp(compat_aim7_tests[i], aim7_test)) {
			const struct job_kind *k = job_find(aim7_test);
			return k ? k->name : NULL;
		}
	for (size_t i = 0; i < sizeof(compat_missing) / sizeof(compat_missing[0]); i++)
		if (!strcmp(compat_missing[i].name, aim7_test))
			*why = compat_missing[i].why;
	return NULL;
}

/* ---- small readers ----------------------------------------------------- */

__attribute__((format(printf, 5, 6)))
static int cp_fail(char *err, size_t errlen, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int off = line ? snprintf(err, errlen, "%s:%u: ", file, line)
		       : snprintf(err, errlen, "%s: ", file);
	if (off < 0 || (size_t)off >= errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err + off, errlen - (size_t)off, fmt, ap);
	va_end(ap);
	return -1;
}

/* A whole number (digits only) up to max; 0 or -1. */
static int cp_number(const char *s, unsigned long max, unsigned long *out)
{
	if (!isdigit((unsigned char)*s))
		return -1;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return -1;
	errno = 0;
	unsigned long v = strtoul(s, NULL, 10);
	if (errno || v > max)
		return -1;
	*out = v;
	return 0;
}

/* re-aim's size: N followed by K or M (KiB, MiB), into KiB; 0 or -1. */
static int cp_size_k(const char *s, unsigned long *kib)
{
	char num[32];
	size_t n = strspn(s, "0123456789");
	unsigned long v;
	if (!n || n >= sizeof(num) || !s[n] || s[n + 1] || !strchr("KkMm", s[n]))
		return -1;
	memcpy(num, s, n);
	num[n] = 0;
	if (cp_number(num, 1ul << 30, &v))
		return -1;
	*kib = (s[n] == 'M' || s[n] == 'm') ? v * 1024 : v;
	return 0;
}

/* Split a line into at most max words (in place); returns the count (max + 1: too many). */
static size_t cp_words(char *line, char **w, size_t max)
{
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
		if (*t == '#')
			break;   /* a trailing comment */
		if (n == max)
			return max + 1;
		w[n++] = t;
	}
	return n;
}

/* The lines of a file read whole: NUL-terminated in place, numbered from 1. */
struct cp_text {
	const char *path;
	char *buf;
	size_t len, pos;
	unsigned lineno;
};

/* Read path (what: "workfile", "reaim.config") whole and capped: regular files only. */
static int cp_open(struct cp_text *t, const char *path, const char *what, char *err,
		   size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->path = path;
	return jm_read_file(path, JM_READ_MAX_TEXT, what, &t->buf, &t->len, err, errlen);
}

/*
 * The next line in *line (its newline dropped): 1, 0 at the end, -1 for a
 * line holding a NUL byte (re-aim's fgets would end the line there and
 * read the rest as the next one; a text file has none).
 */
static int cp_next(struct cp_text *t, char **line, char *err, size_t errlen)
{
	if (t->pos >= t->len)
		return 0;
	char *start = t->buf + t->pos;
	char *nl = memchr(start, '\n', t->len - t->pos);
	size_t n = nl ? (size_t)(nl - start) : t->len - t->pos;
	t->lineno++;
	const char *nul = memchr(start, 0, n);
	if (nul)
		return cp_fail(err, errlen, t->path, t->lineno, "a NUL byte at column %zu (a text "
			       "file has none)", (size_t)(nul - start) + 1);
	start[n] = 0;
	t->pos += n + 1;
	*line = start;
	return 1;
}

/* A path in a YAML comment: control characters and '\' escaped, so it stays one line. */
static void cp_put_comment(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\')
			fputs("\\\\", f);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
	}
}

/*
 * A value taken from FILE:LINE checked as the workload key it becomes
 * (the loader's own parser and range), so a bad one is named where it was
 * written, not in the YAML made from it.  label is the re-aim name.
 */
static int cp_check_key(const char *key, const char *value, const char *file, unsigned line,
			const char *label, const char *given, char *err, size_t errlen)
{
	struct workload scratch;
	char msg[300];
	const struct wl_key *k = wl_key_find(key);
	memset(&scratch, 0, sizeof(scratch));
	if (!k)
		return cp_fail(err, errlen, file, line, "internal: '%s' is not a workload key", key);
	if (wl_key_set(k, &scratch, value, msg, sizeof(msg)))
		return cp_fail(err, errlen, file, line, "%s %s: %s", label, given, msg);
	return 0;
}

/* ---- reaim.config ------------------------------------------------------ */

void compat_config_free(struct compat_config *c)
{
	for (size_t i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	memset(c, 0, sizeof(*c));
	c->crossover = -1;
}

/* One "KEY VALUE" line of reaim.config (k indexes keys[] of compat_read_config). */
static int cp_config_line(struct compat_config *c, int k, const char *key, const char *val,
			  const char *path, unsigned lineno, char *err, size_t errlen)
{
	unsigned long v;
	char text[40];
	switch (k) {
	case 0: case 1:
		if (cp_size_k(val, &v))
			return cp_fail(err, errlen, path, lineno, "%s '%s': expected a size like 10K "
				       "or 1M", key, val);
		snprintf(text, sizeof(text), "%luk", v);
		if (cp_check_key(k == 0 ? "files.filesize" : "files.poolsize", text, path, lineno,
				 key, val, err, errlen))
			return -1;
		if (k == 0)
			c->filesize_k = v, c->have_filesize = true;
		else
			c->poolsize_k = v, c->have_poolsize = true;
		return 0;
	case 2: {
		struct workload seen = { .dirs = c->dirs, .ndirs = c->ndirs };
		char msg[300];
		if (c->ndirs == sizeof(c->dirs) / sizeof(c->dirs[0]))
			return cp_fail(err, errlen, path, lineno, "too many DISKDIR lines (at most "
				       "%zu)", sizeof(c->dirs) / sizeof(c->dirs[0]));
		if (wl_dir_check(&seen, val, msg, sizeof(msg)))
			return cp_fail(err, errlen, path, lineno, "DISKDIR: %s", msg);
		if (!(c->dirs[c->ndirs] = strdup(val)))
			return cp_fail(err, errlen, path, lineno, "out of memory");
		c->ndirs++;
		return 0;
	}
	default:
		if (cp_number(val, 1000000, &v) || (k >= 3 && k <= 6 && !v))
			return cp_fail(err, errlen, path, lineno, "%s '%s': expected a whole number%s",
				       key, val, k >= 3 && k <= 6 ? " above 0" : "");
		if (k == 3)
			c->start = (unsigned)v, c->start_line = lineno;
		if (k == 4)
			c->end = (unsigned)v, c->end_line = lineno;
		if (k == 5)
			c->incr = (unsigned)v;
		if (k == 6)
			c->jobs = (unsigned)v;
		/* re-aim's sample reaim.config: "'1' for on, anything else for off" */
		if (k == 7)
			c->crossover = v == 1;
		return 0;
	}
}

int compat_read_config(const char *path, struct compat_config *c, char *err, size_t errlen)
{
	static const char *const keys[] = { "FILESIZE", "POOLSIZE", "DISKDIR", "STARTUSERS",
					    "ENDUSERS", "INCREMENT", "JOBS", "CROSSOVER",
					    "VERBOSE", "BRIEF", NULL };
	struct cp_text t;
	char *line, *w[3];
	int rc = -1, more;
	memset(c, 0, sizeof(*c));
	c->crossover = -1;
	if (cp_open(&t, path, "reaim.config", err, errlen))
		return -1;
	while ((more = cp_next(&t, &line, err, errlen)) > 0) {
		size_t n = cp_words(line, w, 2);
		if (!n)
			continue;
		int k = -1;
		for (int i = 0; keys[i]; i++)
			if (!strcasecmp(w[0], keys[i]))
				k = i;
		if (k < 0) {
			cp_fail(err, errlen, path, t.lineno, "unknown line '%s' (reaim.config takes "
				"FILESIZE, POOLSIZE, DISKDIR, STARTUSERS, ENDUSERS, INCREMENT, JOBS, "
				"CROSSOVER, VERBOSE, BRIEF)", w[0]);
			goto out;
		}
		if (n != 2) {
			cp_fail(err, errlen, path, t.lineno, "%s takes one value", keys[k]);
			goto out;
		}
		if (cp_config_line(c, k, keys[k], w[1], path, t.lineno, err, errlen))
			goto out;
	}
	if (more < 0)
		goto out;
	/* re-aim: a first DISKDIR of OFF turns the directories off (the default then) */
	if (c->ndirs && !strcmp(c->dirs[0], "OFF")) {
		for (size_t i = 0; i < c->ndirs; i++)
			free(c->dirs[i]);
		c->ndirs = 0;
	}
	rc = 0;
out:
	free(t.buf);
	if (rc)
		compat_config_free(c);
	return rc;
}

/* ---- the workfile ------------------------------------------------------ */

struct cp_entry {
	const char *kind;
	unsigned long weight;
	unsigned line;
	unsigned again;      /* 2 for the second line of the same test, ... */
};

/* The workfile read: its mix and sizes. */
struct cp_work {
	struct cp_entry *mix;
	size_t nmix, cap;
	unsigned long filesize_k, poolsize_k;
	unsigned filesize_line, poolsize_line;
	unsigned seen[sizeof(compat_aim7_tests) / sizeof(compat_aim7_tests[0])];
};

/* "workfile.fserver" -> "fserver"; anything else: the base name made safe. */
static void cp_name(const char *path, char *out, size_t len)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (!strncmp(base, "workfile.", 9) && base[9])
		base += 9;
	snprintf(out, len, "%s", base);
	for (char *p = out; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._-", *p))
			*p = '_';
	if (!out[0] || out[0] == '.' || out[0] == '-')
		snprintf(out, len, "reaim");
}

/* The index of an AIM7 test in compat_aim7_tests, or -1. */
static int cp_test_index(const char *name)
{
	for (int i = 0; compat_aim7_tests[i]; i++)
		if (!strcmp(compat_aim7_tests[i], name))
			return i;
	return -1;
}

/*
 * One line of the workfile (words w[0..n-1]): a FILESIZE:/POOLSIZE: line or
 * a 'WEIGHT TESTNAME' entry appended to wk.  A test listed again counts
 * up in wk->seen (one counter per AIM7 test: linear in the lines).
 */
static int cp_work_line(struct cp_work *wk, char **w, size_t n, const char *file, unsigned line,
			char *err, size_t errlen)
{
	unsigned long v;
	char text[40];
	if (n == 2 && (!strcasecmp(w[0], "FILESIZE:") || !strcasecmp(w[0], "POOLSIZE:"))) {
		bool fs = toupper((unsigned char)w[0][0]) == 'F';
		if (cp_size_k(w[1], &v))
			return cp_fail(err, errlen, file, line, "%s '%s': expected a size like 10K or "
				       "1M", w[0], w[1]);
		snprintf(text, sizeof(text), "%luk", v);
		if (cp_check_key(fs ? "files.filesize" : "files.poolsize", text, file, line, w[0],
				 w[1], err, errlen))
			return -1;
		if (fs)
			wk->filesize_k = v, wk->filesize_line = line;
		else
			wk->poolsize_k = v, wk->poolsize_line = line;
		return 0;
	}
	if (n != 2 || cp_number(w[0], UINT32_MAX, &v))
		return cp_fail(err, errlen, file, line, "expected 'WEIGHT TESTNAME', 'FILESIZE: "
			       "<N>K|M' or 'POOLSIZE: <N>K|M'");
	const char *why, *kind = compat_kind(w[1], &why);
	int ti = cp_test_index(w[1]);
	if (!kind || ti < 0) {
		const char *near = job_suggest(w[1]);
		if (why)
			return cp_fail(err, errlen, file, line, "test '%s': %s", w[1], why);
		return cp_fail(err, errlen, file, line, "unknown test '%s'%s%s%s", w[1],
			       near ? " (did you mean '" : "", near ? near : "",
			       near ? "'?)" : " (not an AIM7 test)");
	}
	if (wk->nmix == COMPAT_MAX_TESTS)
		return cp_fail(err, errlen, file, line, "more than %d tests listed (an imported "
			       "workfile takes at most %d)", COMPAT_MAX_TESTS, COMPAT_MAX_TESTS);
	if (wk->nmix == wk->cap) {
		size_t nc = wk->cap ? wk->cap * 2 : 32;
		struct cp_entry *nm = realloc(wk->mix, nc * sizeof(*nm));
		if (!nm)
			return cp_fail(err, errlen, file, line, "out of memory");
		wk->mix = nm;
		wk->cap = nc;
	}
	/* re-aim runs a test listed twice as two entries; jobmix names the second */
	wk->mix[wk->nmix++] = (struct cp_entry){ kind, v, line, ++wk->seen[ti] };
	return 0;
}

/* Read the workfile into wk; 0 or -1 with "FILE:LINE: message". */
static int cp_read_work(const char *workfile, struct cp_work *wk, char *err, size_t errlen)
{
	struct cp_text t;
	char *line, *w[3];
	int more, rc = -1;
	if (cp_open(&t, workfile, "workfile", err, errlen))
		return -1;
	while ((more = cp_next(&t, &line, err, errlen)) > 0) {
		if (line[0] == '#')
			continue;
		size_t n = cp_words(line, w, 2);
		if (n && cp_work_line(wk, w, n, workfile, t.lineno, err, errlen))
			goto out;
	}
	if (more < 0)
		goto out;
	if (!wk->nmix) {
		cp_fail(err, errlen, workfile, 0, "no 'WEIGHT TESTNAME' line: the mix is empty");
		goto out;
	}
	rc = 0;
out:
	free(t.buf);
	return rc;
}

/*
 * re-aim refuses STARTUSERS above ENDUSERS ("Cannot run backwards", after
 * its command line overrode the config): the same, naming where each came
 * from (a config line, or the option when its line is 0).
 */
static int cp_check_users(const struct compat_config *cfg, const char *cfgpath, char *err,
			  size_t errlen)
{
	if (!cfg || !cfg->start || !cfg->end || cfg->start <= cfg->end)
		return 0;
	char a[64], b[64];
	if (cfg->start_line)
		snprintf(a, sizeof(a), "STARTUSERS %u", cfg->start);
	else
		snprintf(a, sizeof(a), "-s %u", cfg->start);
	if (cfg->end_line)
		snprintf(b, sizeof(b), "ENDUSERS %u (line %u)", cfg->end, cfg->end_line);
	else
		snprintf(b, sizeof(b), "-e %u", cfg->end);
	return cp_fail(err, errlen, cfgpath ? cfgpath : "reaim", cfg->start_line ? cfg->start_line
		       : cfg->end_line, "%s is above %s: the ramp would run backwards (re-aim "
		       "refuses it too)", a, b);
}

/* The workload YAML of wk and cfg into *yaml; *first is the YAML line of the first entry. */
static int cp_write_yaml(const char *workfile, const struct cp_work *wk,
			 const struct compat_config *cfg, const char *cfgpath, const char *sync,
			 char **yaml, size_t *first, char *err, size_t errlen)
{
	char name[WL_NAME_LEN], desc[4200], fs[32], ps[32], us[4][16];
	size_t ylen = 0;
	FILE *y = open_memstream(yaml, &ylen);
	if (!y)
		return cp_fail(err, errlen, workfile, 0, "out of memory");
	cp_name(workfile, name, sizeof(name));
	fputs("# imported by `jobmix import` from the re-aim workfile ", y);
	cp_put_comment(y, workfile);
	if (cfgpath) {
		fputs("\n# and its config ", y);
		cp_put_comment(y, cfgpath);
	}
	fputc('\n', y);
	/* the keys, through the workload key table; re-aim's own defaults: users 1 to 5 by 1, 100 jobs */
	unsigned start = cfg && cfg->start ? cfg->start : 1;
	unsigned end = cfg && cfg->end ? cfg->end : 5;
	snprintf(desc, sizeof(desc), "re-aim workfile %s%s%s", workfile, cfgpath ? ", config " : "",
		 cfgpath ? cfgpath : "");
	snprintf(fs, sizeof(fs), "%luk", wk->filesize_k);
	snprintf(ps, sizeof(ps), "%luk", wk->poolsize_k);
	snprintf(us[0], sizeof(us[0]), "%u", start);
	snprintf(us[1], sizeof(us[1]), "%u", end < start ? start : end);
	snprintf(us[2], sizeof(us[2]), "%u", cfg && cfg->incr ? cfg->incr : 1);
	snprintf(us[3], sizeof(us[3]), "%u", cfg && cfg->jobs ? cfg->jobs : 100);
	struct wl_kv kv[16 + sizeof(cfg->dirs) / sizeof(cfg->dirs[0])] = {
		{ "name", name }, { "description", desc },
		{ "files.filesize", fs }, { "files.poolsize", ps },
		{ "users.start", us[0] }, { "users.end", us[1] }, { "users.step", us[2] },
		{ "users.jobs_per_user", us[3] },
		{ "users.mode", cfg && cfg->crossover == 1 ? "crossover" : "linear" },
		{ "sync", sync ? sync : "exec" },
	};
	size_t nkv = 10;
	for (size_t i = 0; cfg && i < cfg->ndirs; i++)
		kv[nkv++] = (struct wl_kv){ "files.dirs", cfg->dirs[i] };
	const char *bad;
	if (wl_yaml_keys(y, kv, nkv, &bad)) {
		fclose(y);
		return cp_fail(err, errlen, workfile, 0, "internal: '%s' is not a workload key", bad);
	}
	fputs("mix:\n", y);
	/* the header's lines, to map the loader's positions back to workfile lines */
	fflush(y);
	*first = 1;
	for (size_t i = 0; i < ylen; i++)
		*first += (*yaml)[i] == '\n';
	for (size_t i = 0; i < wk->nmix; i++) {
		const struct cp_entry *e = &wk->mix[i];
		fprintf(y, "  - {job: %s, weight: %lu", e->kind, e->weight);
		if (e->again > 1)
			fprintf(y, ", name: %s-%u", e->kind, e->again);
		fprintf(y, "}   # line %u\n", e->line);
	}
	if (fclose(y))
		return cp_fail(err, errlen, workfile, 0, "out of memory");
	return 0;
}

int compat_import(const char *workfile, const struct compat_config *cfg, const char *cfgpath,
		  const char *sync, char **yaml, char *err, size_t errlen)
{
	struct cp_work wk = {
		.filesize_k = cfg && cfg->have_filesize ? cfg->filesize_k : 10,
		.poolsize_k = cfg && cfg->have_poolsize ? cfg->poolsize_k : 1024,
	};
	struct workload wl;
	struct wl_error werr;
	size_t first = 0;
	int rc = -1;
	*yaml = NULL;
	if (cp_read_work(workfile, &wk, err, errlen) || cp_check_users(cfg, cfgpath, err, errlen) ||
	    cp_write_yaml(workfile, &wk, cfg, cfgpath, sync, yaml, &first, err, errlen))
		goto out;
	/*
	 * The loader's checks, with its positions (in YAML nobody sees) given as
	 * the workfile line of the entry; the values were checked at their lines.
	 */
	if (wl_load_buffer(workfile, *yaml, strlen(*yaml), &wl, &werr)) {
		const char *msg = werr.msg + werr.text;
		if (werr.line >= first && werr.line < first + wk.nmix)
			cp_fail(err, errlen, workfile, wk.mix[werr.line - first].line, "%s", msg);
		else if (cfgpath)
			cp_fail(err, errlen, workfile, 0, "with %s: the workload it makes is not "
				"valid: %s", cfgpath, msg);
		else
			cp_fail(err, errlen, workfile, 0, "the workload it makes is not valid: %s",
				msg);
		goto out;
	}
	wl_free(&wl);
	rc = 0;
out:
	if (rc) {
		free(*yaml);
		*yaml = NULL;
	}
	free(wk.mix);
	return rc;
}

/* ---- --job --------------------------------------------------------------- */

int compat_adhoc(const char *spec, char **yaml, char *err, size_t errlen)
{
	char *copy = strdup(spec ? spec : ""), *save = NULL;
	const char *seen[256];
	size_t nseen = 0, ylen = 0;
	int rc = -1;
	FILE *y = NULL;
	*yaml = NULL;
	if (!copy) {
		snprintf(err, errlen, "--job: out of memory");
		return -1;
	}
	if (!*copy) {
		snprintf(err, errlen, "--job: no job given (KIND[:WEIGHT][,KIND[:WEIGHT]...])");
		goto out;
	}
	y = open_memstream(yaml, &ylen);
	if (!y) {
		snprintf(err, errlen, "--job: out of memory");
		goto out;
	}
	const struct wl_kv kv[] = { { "name", "adhoc" } };
	const char *bad;
	fprintf(y, "# ad-hoc mix: --job %s\n", spec);
	if (wl_yaml_keys(y, kv, 1, &bad)) {
		snprintf(err, errlen, "--job: internal: '%s' is not a workload key", bad);
		goto out;
	}
	fputs("mix:\n", y);
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(t, ':');
		unsigned long weight = 1;
		if (colon) {
			*colon = 0;
			if (cp_number(colon + 1, UINT32_MAX, &weight)) {
				snprintf(err, errlen, "--job: weight '%s' of '%s' is not a whole number "
					 "(0 to %u)", colon + 1, t, UINT32_MAX);
				goto out;
			}
		}
		const struct job_kind *k = job_find(t);
		if (!k) {
			const char *near = job_suggest(t);
			snprintf(err, errlen, "--job: unknown job '%s'%s%s%s", t,
				 near ? " (did you mean '" : "", near ? near : "",
				 near ? "'?)" : " (`jobmix jobs` lists them)");
			goto out;
		}
		for (size_t i = 0; i < nseen; i++)
			if (!strcmp(seen[i], k->name)) {
				snprintf(err, errlen, "--job: '%s' given twice", k->name);
				goto out;
			}
		if (nseen == sizeof(seen) / sizeof(seen[0])) {
			snprintf(err, errlen, "--job: too many jobs (at most %zu)", nseen);
			goto out;
		}
		seen[nseen++] = k->name;
		fprintf(y, "  - {job: %s, weight: %lu}\n", k->name, weight);
	}
	if (!nseen) {
		snprintf(err, errlen, "--job: no job given (KIND[:WEIGHT][,KIND[:WEIGHT]...])");
		goto out;
	}
	rc = 0;
out:
	if (y && fclose(y) && !rc) {
		snprintf(err, errlen, "--job: out of memory");
		rc = -1;
	}
	if (rc) {
		free(*yaml);
		*yaml = NULL;
	}
	free(copy);
	return rc;
}
