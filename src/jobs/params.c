// SPDX-License-Identifier: GPL-2.0-only
/* Job parameter values: parsing from YAML text, formatting, defaults. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/job.h"
#include "jobmix/parse.h"

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
