// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a loaded workload offers its users: freeing, printing it resolved
 * (as YAML that loads back to the same workload), AIM7's per-user job
 * counts and job file size.  No YAML library here: output is written by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/parse.h"
#include "jobmix/workload.h"

void wl_free(struct workload *wl)
{
	if (!wl)
		return;
	free(wl->path);
	free(wl->name);
	free(wl->description);
	for (size_t i = 0; i < wl->ndirs; i++)
		free(wl->dirs[i]);
	free(wl->dirs);
	for (size_t i = 0; i < wl->nmix; i++)
		free(wl->mix[i].params);
	free(wl->mix);
	memset(wl, 0, sizeof(*wl));
}

const char *wl_ramp_mode_name(enum wl_ramp_mode m)
{
	switch (m) {
	case WL_RAMP_LINEAR: return "linear";
	case WL_RAMP_PEAK: return "peak";
	case WL_RAMP_CONVERGE: return "converge";
	case WL_RAMP_CROSSOVER: return "crossover";
	}
	return "?";
}

const char *wl_sync_name(enum job_sync s)
{
	switch (s) {
	case JOB_SYNC_NONE: return "none";
	case JOB_SYNC_FILE: return "file";
	case JOB_SYNC_GLOBAL: return "global";
	case JOB_SYNC_EXEC: return "exec";
	}
	return "?";
}

const char *wl_layout_name(enum wl_layout l)
{
	return l == WL_LAYOUT_PER_USER ? "per_user" : "shared";
}

uint64_t wl_job_filesize(const struct workload *wl, unsigned nusers)
{
	uint64_t d = wl->filesize + wl->poolsize / (nusers ? nusers : 1);
	return d & ~(uint64_t)1023;
}

/* round(w * j / sum), halves up, exact for any 32-bit operands. */
static unsigned wl_share(uint64_t w, uint64_t j, uint64_t sum)
{
	__extension__ typedef unsigned __int128 u128;
	u128 num = (u128)w * j;
	u128 q = num / sum, r = num % sum;
	if (2 * r >= sum)
		q++;
	return (unsigned)q;
}

unsigned wl_job_counts(const struct workload *wl, unsigned jobs_per_user, unsigned *counts)
{
	uint64_t sum = 0;
	unsigned total = 0;
	for (size_t i = 0; i < wl->nmix; i++)
		sum += wl->mix[i].weight;
	for (size_t i = 0; i < wl->nmix; i++) {
		unsigned c = 0;
		if (sum && wl->mix[i].weight) {
			c = wl_share(wl->mix[i].weight, jobs_per_user, sum);
			if (!c)
				c = 1;
		}
		counts[i] = c;
		total += c;
	}
	return total;
}

/* A string as a YAML double-quoted scalar. */
static void wl_put_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\x%02x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void wl_format_double(double v, char *buf, size_t len);

/*
 * Seconds in the largest whole unit: 600 -> "10m", 0.5 -> "500ms"; else in
 * seconds with the digits that read back the same (1.0000000001s, not 1s).
 */
static void wl_format_duration(double s, char *buf, size_t len)
{
	if (s == floor(s) && s < 1e15) {
		unsigned long long v = (unsigned long long)s;
		if (v && v % 3600 == 0)
			snprintf(buf, len, "%lluh", v / 3600);
		else if (v && v % 60 == 0)
			snprintf(buf, len, "%llum", v / 60);
		else
			snprintf(buf, len, "%llus", v);
		return;
	}
	double back;
	snprintf(buf, len, "%.0fms", s * 1000);
	if (s * 1000 == floor(s * 1000) && !jm_parse_duration(buf, &back, NULL, 0) && back == s)
		return;
	char num[40];
	wl_format_double(s, num, sizeof(num));
	snprintf(buf, len, "%ss", num);
}

/* A double in the fewest digits that read back the same. */
static void wl_format_double(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
}

/* A job parameter value: plain when it is a simple word, else quoted. */
static void wl_put_value(FILE *f, const char *s)
{
	bool plain = *s && !strchr("-?:,[]{}#&*!|>'\"%@`", *s);
	for (const char *p = s; plain && *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-|/",
			    *p))
			plain = false;
	if (plain && (!strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL")))
		plain = false;
	if (plain)
		fputs(s, f);
	else
		wl_put_quoted(f, s);
}

void wl_print(FILE *f, const struct workload *wl)
{
	char a[64], b[64];
	const struct wl_users *u = &wl->users;
	const struct wl_measure_cfg *m = &wl->measure;

	fprintf(f, "# %s (sha256 %s), resolved\n", wl->path ? wl->path : "-", wl->sha256);
	fputs("name: ", f);
	wl_put_value(f, wl->name);
	fputs("\ndescription: ", f);
	wl_put_quoted(f, wl->description);
	jm_format_size(wl->filesize, a, sizeof(a));
	jm_format_size(wl->poolsize, b, sizeof(b));
	fprintf(f, "\nfiles:\n  filesize: %s\n  poolsize: %s\n  dirs:\n", a, b);
	for (size_t i = 0; i < wl->ndirs; i++) {
		fputs("    - ", f);
		wl_put_quoted(f, wl->dirs[i]);
		fputc('\n', f);
	}
	fprintf(f, "  layout: %s\n", wl_layout_name(wl->layout));
	fprintf(f, "users:\n  start: %u\n", u->start);
	if (u->end)
		fprintf(f, "  end: %u\n", u->end);
	else
		fputs("  end: auto\n", f);
	if (!u->step)
		fputs("  step: auto\n", f);
	else
		fprintf(f, "  step: %s%u\n", u->geometric ? "x" : "", u->step);
	fprintf(f, "  jobs_per_user: %u\n  mode: %s\n", u->jobs_per_user,
		wl_ramp_mode_name(u->mode));
	if (u->repeat_auto)
		fputs("  repeat: auto\n", f);
	else
		fprintf(f, "  repeat: %u\n", u->repeat);
	wl_format_duration(u->max_time_s, a, sizeof(a));
	wl_format_double(u->converge_jpm_per_user, b, sizeof(b));
	fprintf(f, "  as: %s\n  converge_jpm_per_user: %s\n  max_points: %u\n  max_time: %s\n",
		u->as == WL_USERS_THREADS ? "threads" : "processes", b, u->max_points, a);
	fprintf(f, "sync: %s\nseed: %llu\n", wl_sync_name(wl->sync), (unsigned long long)wl->seed);
	wl_format_duration(m->duration_s, a, sizeof(a));
	wl_format_duration(m->ramp_s, b, sizeof(b));
	fprintf(f, "measure:\n  mode: %s\n  duration: %s\n  ramp: %s\n",
		m->how == WL_MEASURE_TIME ? "time" : "jobs", a, b);
	if (m->steady_pct > 0) {
		wl_format_double(m->steady_pct, a, sizeof(a));
		fprintf(f, "  steady: \"jpm:%s%%\"\n", a);
	} else
		fputs("  steady: off\n", f);
	wl_format_duration(m->settle_timeout_s, a, sizeof(a));
	fprintf(f, "  steady_windows: %u\n  settle: %s\n  settle_timeout: %s\n"
		"  drop_caches: %s\n  warmup: %s\nmix:\n", m->steady_windows,
		m->settle ? "true" : "false", a, m->drop_caches ? "true" : "false",
		m->warmup ? "true" : "false");
	for (size_t i = 0; i < wl->nmix; i++) {
		const struct wl_entry *e = &wl->mix[i];
		fprintf(f, "  - job: %s\n    weight: %u\n", e->kind->name, e->weight);
		if (strcmp(e->name, e->kind->name)) {
			fputs("    name: ", f);
			wl_put_value(f, e->name);
			fputc('\n', f);
		}
		for (size_t p = 0; p < job_nparams(e->kind); p++) {
			char val[256];
			job_param_format(&e->kind->params[p], e->params, val, sizeof(val));
			fprintf(f, "    %s: ", e->kind->params[p].name);
			wl_put_value(f, val);
			fputc('\n', f);
		}
	}
}
