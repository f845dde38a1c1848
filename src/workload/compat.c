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
#include "jobmix/workload.h"

/*
 * The AIM7 tests (re-aim-7's registered names) with a jobmix kind of the
 * same name doing the same work (see the README's "Against sysbench and
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

static FILE *cp_open(const char *path, const char *what, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	if (!f)
		cp_fail(err, errlen, path, 0, "cannot open %s: %s", what, strerror(errno));
	return f;
}

/* ---- reaim.config ------------------------------------------------------ */

void compat_config_free(struct compat_config *c)
{
	for (size_t i = 0; i < c->ndirs; i++)
		free(c->dirs[i]);
	memset(c, 0, sizeof(*c));
	c->crossover = -1;
}

int compat_read_config(const char *path, struct compat_config *c, char *err, size_t errlen)
{
	static const char *const keys[] = { "FILESIZE", "POOLSIZE", "DISKDIR", "STARTUSERS",
					    "ENDUSERS", "INCREMENT", "JOBS", "CROSSOVER",
					    "VERBOSE", "BRIEF", NULL };
	char *line = NULL, *w[3];
	size_t cap = 0;
	unsigned lineno = 0;
	int rc = -1;
	memset(c, 0, sizeof(*c));
	c->crossover = -1;
	FILE *f = cp_open(path, "the config", err, errlen);
	if (!f)
		return -1;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		size_t n = cp_words(line, w, 2);
		if (!n)
			continue;
		int k = -1;
		for (int i = 0; keys[i]; i++)
			if (!strcasecmp(w[0], keys[i]))
				k = i;
		if (k < 0) {
			cp_fail(err, errlen, path, lineno, "unknown line '%s' (reaim.config takes "
				"FILESIZE, POOLSIZE, DISKDIR, STARTUSERS, ENDUSERS, INCREMENT, JOBS, "
				"CROSSOVER, VERBOSE, BRIEF)", w[0]);
			goto out;
		}
		if (n != 2) {
			cp_fail(err, errlen, path, lineno, "%s takes one value", keys[k]);
			goto out;
		}
		unsigned long v;
		switch (k) {
		case 0: case 1:
			if (cp_size_k(w[1], &v)) {
				cp_fail(err, errlen, path, lineno, "%s '%s': expected a size like 10K or "
					"1M", keys[k], w[1]);
				goto out;
			}
			if (k == 0)
				c->filesize_k = v, c->have_filesize = true;
			else
				c->poolsize_k = v, c->have_poolsize = true;
			break;
		case 2:
			if (c->ndirs == sizeof(c->dirs) / sizeof(c->dirs[0])) {
				cp_fail(err, errlen, path, lineno, "too many DISKDIR lines (at most %zu)",
					sizeof(c->dirs) / sizeof(c->dirs[0]));
				goto out;
			}
			if (!(c->dirs[c->ndirs] = strdup(w[1]))) {
				cp_fail(err, errlen, path, lineno, "out of memory");
				goto out;
			}
			c->ndirs++;
			break;
		default:
			if (cp_number(w[1], 1000000, &v) || (k >= 3 && k <= 6 && !v)) {
				cp_fail(err, errlen, path, lineno, "%s '%s': expected a whole number%s",
					keys[k], w[1], k >= 3 && k <= 6 ? " above 0" : "");
				goto out;
			}
			if (k == 3) c->start = (unsigned)v;
			if (k == 4) c->end = (unsigned)v;
			if (k == 5) c->incr = (unsigned)v;
			if (k == 6) c->jobs = (unsigned)v;
			if (k == 7) c->crossover = v == 1;
			break;
		}
	}
	if (ferror(f)) {
		cp_fail(err, errlen, path, 0, "cannot read: %s", strerror(errno));
		goto out;
	}
	/* re-aim: a first DISKDIR of OFF turns the directories off (the default then) */
	if (c->ndirs && !strcmp(c->dirs[0], "OFF")) {
		for (size_t i = 0; i < c->ndirs; i++)
			free(c->dirs[i]);
		c->ndirs = 0;
	}
	rc = 0;
out:
	free(line);
	fclose(f);
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

int compat_import(const char *workfile, const struct compat_config *cfg, const char *cfgpath,
		  const char *sync, char **yaml, char *err, size_t errlen)
{
	struct cp_entry *mix = NULL;
	size_t nmix = 0, mcap = 0, cap = 0, ylen = 0;
	char *line = NULL, *w[3], name[WL_NAME_LEN];
	unsigned lineno = 0;
	unsigned long filesize_k = cfg && cfg->have_filesize ? cfg->filesize_k : 10;
	unsigned long poolsize_k = cfg && cfg->have_poolsize ? cfg->poolsize_k : 1024;
	int rc = -1;
	FILE *y = NULL, *f = cp_open(workfile, "the workfile", err, errlen);
	*yaml = NULL;
	if (!f)
		return -1;
	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (line[0] == '#')
			continue;
		size_t n = cp_words(line, w, 2);
		unsigned long v;
		if (!n)
			continue;
		if (n == 2 && (!strcasecmp(w[0], "FILESIZE:") || !strcasecmp(w[0], "POOLSIZE:"))) {
			if (cp_size_k(w[1], &v)) {
				cp_fail(err, errlen, workfile, lineno, "%s '%s': expected a size like 10K "
					"or 1M", w[0], w[1]);
				goto out;
			}
			if (toupper((unsigned char)w[0][0]) == 'F')
				filesize_k = v;
			else
				poolsize_k = v;
			continue;
		}
		if (n != 2 || cp_number(w[0], UINT32_MAX, &v)) {
			cp_fail(err, errlen, workfile, lineno, "expected 'WEIGHT TESTNAME', "
				"'FILESIZE: <N>K|M' or 'POOLSIZE: <N>K|M'");
			goto out;
		}
		const char *why, *kind = compat_kind(w[1], &why);
		if (!kind) {
			const char *near = job_suggest(w[1]);
			if (why)
				cp_fail(err, errlen, workfile, lineno, "test '%s': %s", w[1], why);
			else
				cp_fail(err, errlen, workfile, lineno, "unknown test '%s'%s%s%s", w[1],
					near ? " (did you mean '" : "", near ? near : "",
					near ? "'?)" : " (not an AIM7 test)");
			goto out;
		}
		/* re-aim runs a test listed twice as two entries; jobmix names the second */
		unsigned again = 1;
		for (size_t i = 0; i < nmix; i++)
			if (!strcmp(mix[i].kind, kind))
				again++;
		if (nmix == mcap) {
			size_t nc = mcap ? mcap * 2 : 32;
			struct cp_entry *nm = realloc(mix, nc * sizeof(*nm));
			if (!nm) {
				cp_fail(err, errlen, workfile, lineno, "out of memory");
				goto out;
			}
			mix = nm;
			mcap = nc;
		}
		mix[nmix++] = (struct cp_entry){ kind, v, lineno, again };
	}
	if (ferror(f)) {
		cp_fail(err, errlen, workfile, 0, "cannot read: %s", strerror(errno));
		goto out;
	}
	if (!nmix) {
		cp_fail(err, errlen, workfile, 0, "no 'WEIGHT TESTNAME' line: the mix is empty");
		goto out;
	}

	y = open_memstream(yaml, &ylen);
	if (!y) {
		cp_fail(err, errlen, workfile, 0, "out of memory");
		goto out;
	}
	cp_name(workfile, name, sizeof(name));
	fputs("# imported by `jobmix import` from the re-aim workfile ", y);
	fputs(workfile, y);
	if (cfgpath)
		fprintf(y, "\n# and its config %s", cfgpath);
	fputc('\n', y);
	/* the keys, through the workload key table; re-aim's own defaults: users 1 to 5 by 1, 100 jobs */
	char desc[4200], fs[32], ps[32], us[4][16];
	unsigned start = cfg && cfg->start ? cfg->start : 1;
	unsigned end = cfg && cfg->end ? cfg->end : 5;
	snprintf(desc, sizeof(desc), "re-aim workfile %s%s%s", workfile, cfgpath ? ", config " : "",
		 cfgpath ? cfgpath : "");
	snprintf(fs, sizeof(fs), "%luk", filesize_k);
	snprintf(ps, sizeof(ps), "%luk", poolsize_k);
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
		cp_fail(err, errlen, workfile, 0, "internal: '%s' is not a workload key", bad);
		goto out;
	}
	fputs("mix:\n", y);

	for (size_t i = 0; i < nmix; i++) {
		fprintf(y, "  - {job: %s, weight: %lu", mix[i].kind, mix[i].weight);
		if (mix[i].again > 1)
			fprintf(y, ", name: %s-%u", mix[i].kind, mix[i].again);
		fprintf(y, "}   # line %u\n", mix[i].line);
	}
	if (fclose(y)) {
		y = NULL;
		cp_fail(err, errlen, workfile, 0, "out of memory");
		goto out;
	}
	y = NULL;
	rc = 0;
out:
	if (y)
		fclose(y);
	if (rc) {
		free(*yaml);
		*yaml = NULL;
	}
	free(mix);
	free(line);
	fclose(f);
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
