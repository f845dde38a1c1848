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
#include "jobmix/wl_keys.h"
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

double wl_warmup_s(const struct wl_measure_cfg *m)
{
	double s = m->duration_s / 4;
	return s < WL_WARMUP_MAX_S ? s : WL_WARMUP_MAX_S;
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
void wl_put_quoted(FILE *f, const char *s)
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

void *wl_entry_values(struct wl_entry *e, const struct job_param *p)
{
	return job_param_is_common(p) ? (void *)&e->common : e->params;
}

const void *wl_entry_cvalues(const struct wl_entry *e, const struct job_param *p)
{
	return job_param_is_common(p) ? (const void *)&e->common : e->params;
}

/* The mix entries, each with every parameter (the common ones last). */
static void wl_print_mix(FILE *f, const struct workload *wl)
{
	for (size_t i = 0; i < wl->nmix; i++) {
		const struct wl_entry *e = &wl->mix[i];
		fprintf(f, "  - job: %s\n    weight: %u\n", e->kind->name, e->weight);
		if (strcmp(e->name, e->kind->name)) {
			fputs("    name: ", f);
			wl_put_value(f, e->name);
			fputc('\n', f);
		}
		for (size_t p = 0; p < job_nparams_all(e->kind); p++) {
			const struct job_param *jp = job_param_at(e->kind, p);
			char val[256];
			job_param_format(jp, wl_entry_cvalues(e, jp), val, sizeof(val));
			fprintf(f, "    %s: ", jp->name);
			wl_put_value(f, val);
			fputc('\n', f);
		}
	}
}

/*
 * Every key in the table's order, sections as nested mappings, every
 * default filled; loads back to the same workload.
 */
void wl_print(FILE *f, const struct workload *wl)
{
	char val[512];
	fprintf(f, "# %s (sha256 %s), resolved\n", wl->path ? wl->path : "-", wl->sha256);
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		const char *dot = strrchr(k->path, '.');
		const char *indent = dot ? "  " : "";
		fprintf(f, "%s%s:", indent, dot ? dot + 1 : k->path);
		wl_key_format(k, wl, val, sizeof(val));
		switch (wl_key_class(k)) {
		case WKC_SECTION:
			fputc('\n', f);
			break;
		case WKC_TEXT: {
			/* the string itself: val[] would cut a long description */
			const char *s = *(char *const *)((const char *)wl + k->offset);
			fputc(' ', f);
			wl_put_quoted(f, s ? s : "");
			fputc('\n', f);
			break;
		}
		case WKC_DIRS:
			fputc('\n', f);
			for (size_t d = 0; d < wl->ndirs; d++) {
				fprintf(f, "%s  - ", indent);
				wl_put_quoted(f, wl->dirs[d]);
				fputc('\n', f);
			}
			break;
		case WKC_MIX:
			fputc('\n', f);
			wl_print_mix(f, wl);
			break;
		case WKC_SCALAR:
			fputc(' ', f);
			wl_put_value(f, val);
			fputc('\n', f);
			break;
		}
	}
}

int wl_yaml_keys(FILE *f, const struct wl_kv *kv, size_t n, const char **bad)
{
	*bad = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct wl_key *k = wl_key_find(kv[i].key);
		if (!k || wl_key_class(k) == WKC_SECTION || wl_key_class(k) == WKC_MIX) {
			*bad = kv[i].key;
			return -1;
		}
	}
	for (size_t i = 0; i < wl_nkeys; i++) {
		const struct wl_key *k = &wl_keys[i];
		const char *dot = strrchr(k->path, '.');
		const char *indent = dot ? "  " : "";
		size_t plen = strlen(k->path);
		bool first = true;
		for (size_t j = 0; j < n; j++) {
			const char *key = kv[j].key;
			if (wl_key_class(k) == WKC_SECTION) {
				if (!strncmp(key, k->path, plen) && key[plen] == '.') {
					fprintf(f, "%s:\n", k->path);
					break;
				}
				continue;
			}
			if (strcmp(key, k->path))
				continue;
			switch (wl_key_class(k)) {
			case WKC_SECTION:
			case WKC_MIX:
				break;
			case WKC_DIRS:
				if (first)
					fprintf(f, "%s%s:\n", indent, dot ? dot + 1 : k->path);
				fprintf(f, "%s  - ", indent);
				wl_put_quoted(f, kv[j].value);
				fputc('\n', f);
				break;
			case WKC_TEXT:
				fprintf(f, "%s%s: ", indent, dot ? dot + 1 : k->path);
				wl_put_quoted(f, kv[j].value);
				fputc('\n', f);
				break;
			case WKC_SCALAR:
				fprintf(f, "%s%s: ", indent, dot ? dot + 1 : k->path);
				wl_put_value(f, kv[j].value);
				fputc('\n', f);
				break;
			}
			first = false;
		}
	}
	return 0;
}
