// SPDX-License-Identifier: GPL-2.0-only
/* Job parameter values: parsing from YAML text, formatting, defaults. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/job.h"
#include "jobmix/parse.h"

/* The parameters every kind takes (job.h, struct job_common): declared once, here. */
const struct job_param job_common_params[JOB_NCOMMON + 1] = {
	{ .name = "scale", .type = JP_DOUBLE, .offset = offsetof(struct job_common, scale),
	  .min = 0.01, .max = 100, .def = "1",
	  .help = "multiplies one job's work: loops (compute), requests and bytes (I/O), "
		  "operations (the rest); n x scale per job, a fraction rounded up with that "
		  "probability, so the mean is exact (1.1: 10% more work)" },
	{ 0 },
};

void job_common_defaults(struct job_common *common)
{
	char err[160];
	memset(common, 0, sizeof(*common));
	for (size_t i = 0; i < JOB_NCOMMON; i++) {
		const struct job_param *p = &job_common_params[i];
		/* the defaults are constants a unit test parses: they cannot fail */
		if (job_param_parse(p, common, p->def, err, sizeof(err)))
			abort();
	}
}

static int choice_index(const struct job_param *p, const char *s, size_t len)
{
	for (int i = 0; p->choices && p->choices[i]; i++)
		if (strlen(p->choices[i]) == len && !strncmp(p->choices[i], s, len))
			return i;
	return -1;
}

static int bad_choice(const struct job_param *p, const char *s, char *err, size_t errlen)
{
	char list[256] = "";
	for (int i = 0; p->choices && p->choices[i]; i++) {
		if (i)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, p->choices[i], sizeof(list) - strlen(list) - 1);
	}
	const char *near = p->choices ? jm_suggest(s, p->choices) : NULL;
	if (near)
		snprintf(err, errlen, "'%s' is not one of %s (did you mean '%s'?)", s, list, near);
	else
		snprintf(err, errlen, "'%s' is not one of %s", s, list);
	return -1;
}

/* One size of a range within the parameter's bounds; the message names it and the whole. */
static int range_size(const struct job_param *p, const char *text, const char *s, size_t len,
		      uint64_t *v, char *err, size_t errlen)
{
	char word[64], msg[160];
	snprintf(word, sizeof(word), "%.*s", (int)len, s);
	if (jm_parse_size(word, v, msg, sizeof(msg))) {
		snprintf(err, errlen, "'%s' in '%s': %s", word, text, msg);
		return -1;
	}
	if ((double)*v < p->min || (double)*v > p->max) {
		char lo[32], hi[32];
		jm_format_size((uint64_t)p->min, lo, sizeof(lo));
		jm_format_size((uint64_t)p->max, hi, sizeof(hi));
		snprintf(err, errlen, "size '%s' in '%s' is out of range [%s, %s]", word, text, lo,
			 hi);
		return -1;
	}
	return 0;
}

/* "4k" or "4k-64k" into a job_range. */
static int parse_range(const struct job_param *p, const char *text, struct job_range *r,
		       char *err, size_t errlen)
{
	const char *dash = strchr(text, '-');
	size_t n1 = dash ? (size_t)(dash - text) : strlen(text);
	if (range_size(p, text, text, n1, &r->lo, err, errlen))
		return -1;
	r->hi = r->lo;
	if (dash && range_size(p, text, dash + 1, strlen(dash + 1), &r->hi, err, errlen))
		return -1;
	if (r->hi < r->lo) {
		snprintf(err, errlen, "range '%s' ends below its start (expected LOW-HIGH, e.g. 4k-64k)",
			 text);
		return -1;
	}
	return 0;
}

/* "1:20" (or "1,20", "1 20"; "" none) into job_weights. */
static int parse_weights(const char *text, struct job_weights *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	for (const char *s = text + strspn(text, ":, "); *s; s += strspn(s, ":, ")) {
		size_t n = strcspn(s, ":, ");
		char word[32], msg[160];
		int64_t v;
		snprintf(word, sizeof(word), "%.*s", (int)n, s);
		if (w->n == JOB_MAX_WEIGHTS) {
			snprintf(err, errlen, "'%s' gives more than %d weights", text, JOB_MAX_WEIGHTS);
			return -1;
		}
		if (n >= sizeof(word) || jm_parse_int(word, 1, JOB_WEIGHT_MAX, &v, msg, sizeof(msg))) {
			snprintf(err, errlen, "weight '%s' in '%s' is not a whole number 1..%d "
				 "(expected e.g. 1:20)", word, text, JOB_WEIGHT_MAX);
			return -1;
		}
		w->w[w->n++] = (uint32_t)v;
		s += n;
	}
	return 0;
}

int job_param_parse(const struct job_param *p, void *params, const char *text,
		    char *err, size_t errlen)
{
	char *at = (char *)params + p->offset;
	switch (p->type) {
	case JP_INT: {
		int64_t v;
		if (jm_parse_int(text, (int64_t)p->min, (int64_t)p->max, &v, err, errlen))
			return -1;
		memcpy(at, &v, sizeof(v));
		return 0;
	}
	case JP_SIZE: {
		uint64_t v;
		if (jm_parse_size(text, &v, err, errlen))
			return -1;
		if ((double)v < p->min || (double)v > p->max) {
			char lo[32], hi[32];
			jm_format_size((uint64_t)p->min, lo, sizeof(lo));
			jm_format_size((uint64_t)p->max, hi, sizeof(hi));
			snprintf(err, errlen, "size %s is out of range [%s, %s]", text, lo, hi);
			return -1;
		}
		memcpy(at, &v, sizeof(v));
		return 0;
	}
	case JP_BOOL: {
		bool v;
		if (jm_parse_bool(text, &v, err, errlen))
			return -1;
		memcpy(at, &v, sizeof(v));
		return 0;
	}
	case JP_DOUBLE: {
		double v;
		if (jm_parse_double(text, p->min, p->max, &v, err, errlen))
			return -1;
		memcpy(at, &v, sizeof(v));
		return 0;
	}
	case JP_ENUM: {
		int i = choice_index(p, text, strlen(text));
		if (i < 0)
			return bad_choice(p, text, err, errlen);
		memcpy(at, &i, sizeof(i));
		return 0;
	}
	case JP_FLAGS: {
		/* "direct|sync", "direct,sync", "none" or "" */
		unsigned v = 0;
		const char *s = text;
		while (*s) {
			size_t n = strcspn(s, "|, ");
			if (n) {
				char word[64];
				snprintf(word, sizeof(word), "%.*s", (int)n, s);
				int i = choice_index(p, s, n);
				if (i < 0 && strcmp(word, "none"))
					return bad_choice(p, word, err, errlen);
				if (i >= 0)
					v |= 1u << i;
			}
			s += n;
			s += strspn(s, "|, ");
		}
		memcpy(at, &v, sizeof(v));
		return 0;
	}
	case JP_RANGE: {
		struct job_range r;
		if (parse_range(p, text, &r, err, errlen))
			return -1;
		memcpy(at, &r, sizeof(r));
		return 0;
	}
	case JP_WEIGHTS: {
		struct job_weights w;
		if (parse_weights(text, &w, err, errlen))
			return -1;
		memcpy(at, &w, sizeof(w));
		return 0;
	}
	case JP_DEVICE: {
		/* "", "none", "/dev/NAME" or "NAME": a kernel name of [A-Za-z0-9_.-] */
		const char *n = strncmp(text, "/dev/", 5) ? text : text + 5;
		if (!strcmp(text, "none") || !text[0]) {
			memset(at, 0, JOB_DEVICE_LEN);
			return 0;
		}
		bool ok = n[0] && n[0] != '.' && strlen(n) < JOB_DEVICE_LEN;
		for (const char *c = n; ok && *c; c++)
			ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
			     (*c >= '0' && *c <= '9') || *c == '_' || *c == '-' || *c == '.';
		if (!ok) {
			snprintf(err, errlen, "'%s' is not a block device's name (/dev/NAME)", text);
			return -1;
		}
		memset(at, 0, JOB_DEVICE_LEN);
		memcpy(at, n, strlen(n));
		return 0;
	}
	}
	snprintf(err, errlen, "parameter '%s' has an unknown type", p->name);
	return -1;
}

void job_param_format(const struct job_param *p, const void *params, char *buf, size_t len)
{
	const char *at = (const char *)params + p->offset;
	switch (p->type) {
	case JP_INT: {
		int64_t v;
		memcpy(&v, at, sizeof(v));
		snprintf(buf, len, "%lld", (long long)v);
		return;
	}
	case JP_SIZE: {
		uint64_t v;
		memcpy(&v, at, sizeof(v));
		jm_format_size(v, buf, len);
		return;
	}
	case JP_BOOL: {
		bool v;
		memcpy(&v, at, sizeof(v));
		snprintf(buf, len, "%s", v ? "true" : "false");
		return;
	}
	case JP_DOUBLE: {
		double v;
		memcpy(&v, at, sizeof(v));
		snprintf(buf, len, "%.15g", v);      /* the fewest digits that read back the same */
		if (strtod(buf, NULL) != v)
			snprintf(buf, len, "%.17g", v);
		return;
	}
	case JP_ENUM: {
		int v;
		memcpy(&v, at, sizeof(v));
		snprintf(buf, len, "%s", p->choices[v]);
		return;
	}
	case JP_FLAGS: {
		unsigned v;
		memcpy(&v, at, sizeof(v));
		buf[0] = 0;
		for (int i = 0; p->choices[i]; i++) {
			if (!(v & (1u << i)))
				continue;
			if (buf[0])
				strncat(buf, "|", len - strlen(buf) - 1);
			strncat(buf, p->choices[i], len - strlen(buf) - 1);
		}
		if (!buf[0])
			snprintf(buf, len, "none");
		return;
	}
	case JP_RANGE: {
		struct job_range r;
		char lo[32], hi[32];
		memcpy(&r, at, sizeof(r));
		jm_format_size(r.lo, lo, sizeof(lo));
		jm_format_size(r.hi, hi, sizeof(hi));
		if (r.lo == r.hi)
			snprintf(buf, len, "%s", lo);
		else
			snprintf(buf, len, "%s-%s", lo, hi);
		return;
	}
	case JP_WEIGHTS: {
		const struct job_weights *w = (const struct job_weights *)(const void *)at;
		unsigned n;
		memcpy(&n, &w->n, sizeof(n));
		buf[0] = 0;
		for (unsigned i = 0; i < n && strlen(buf) + 12 < len; i++) {
			uint32_t v;
			memcpy(&v, &w->w[i], sizeof(v));
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%u", i ? ":" : "", v);
		}
		return;
	}
	case JP_DEVICE:
		snprintf(buf, len, "%s%.*s", at[0] ? "/dev/" : "none", JOB_DEVICE_LEN - 1, at);
		return;
	}
	snprintf(buf, len, "?");
}

int job_params_defaults(const struct job_kind *k, void *params, char *err, size_t errlen)
{
	if (k->params_size)
		memset(params, 0, k->params_size);
	for (size_t i = 0; i < job_nparams(k); i++) {
		const struct job_param *p = &k->params[i];
		char msg[200];
		if (job_param_parse(p, params, p->def ? p->def : "", msg, sizeof(msg))) {
			snprintf(err, errlen, "%s: default of '%s' is invalid: %s", k->name, p->name, msg);
			return -1;
		}
	}
	return 0;
}
