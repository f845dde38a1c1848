// SPDX-License-Identifier: GPL-2.0-only
/* Scalar parsing shared by the loader, job parameters and the CLI. */
#include "jobmix/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Report a bad value; `fmt` is a literal with one %s. */
#define bad(err, errlen, fmt, s) ((err) ? snprintf((err), (errlen), fmt, (s)) : 0, -1)

int jm_parse_size(const char *s, uint64_t *out, char *err, size_t errlen)
{
	const char *p = s;
	if (!s || !*s)
		return bad(err, errlen, "expected a size like 16k, got '%s'", s ? s : "");
	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)*p))
		return bad(err, errlen, "expected a size like 16k, got '%s'", s);
	errno = 0;
	char *end;
	unsigned long long v = strtoull(p, &end, 10);
	if (errno == ERANGE)
		return bad(err, errlen, "size '%s' is too large", s);
	unsigned shift = 0;
	switch (tolower((unsigned char)*end)) {
	case 'k': shift = 10; end++; break;
	case 'm': shift = 20; end++; break;
	case 'g': shift = 30; end++; break;
	case 't': shift = 40; end++; break;
	default: break;
	}
	if (shift && tolower((unsigned char)*end) == 'i')
		end++;
	if (tolower((unsigned char)*end) == 'b')
		end++;
	if (*end)
		return bad(err, errlen, "expected a size like 16k (suffixes k, m, g, t), got '%s'", s);
	if (shift && v > (UINT64_MAX >> shift))
		return bad(err, errlen, "size '%s' is too large", s);
	*out = (uint64_t)v << shift;
	return 0;
}

int jm_parse_int(const char *s, int64_t min, int64_t max, int64_t *out, char *err, size_t errlen)
{
	if (!s || !*s)
		return bad(err, errlen, "expected an integer, got '%s'", s ? s : "");
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end)
		return bad(err, errlen, "expected an integer, got '%s'", s);
	if (errno == ERANGE || v < min || v > max) {
		if (err)
			snprintf(err, errlen, "value %s is out of range [%lld, %lld]", s,
				 (long long)min, (long long)max);
		return -1;
	}
	*out = v;
	return 0;
}

int jm_parse_double(const char *s, double min, double max, double *out, char *err, size_t errlen)
{
	if (!s || !*s)
		return bad(err, errlen, "expected a number, got '%s'", s ? s : "");
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return bad(err, errlen, "expected a number, got '%s'", s);
	if (errno == ERANGE || v < min || v > max) {
		if (err)
			snprintf(err, errlen, "value %s is out of range [%g, %g]", s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

int jm_parse_duration(const char *s, double *out, char *err, size_t errlen)
{
	if (!s || !*s)
		return bad(err, errlen, "expected a duration like 30s, got '%s'", s ? s : "");
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (end == s || !isfinite(v) || v < 0 || errno == ERANGE)
		return bad(err, errlen, "expected a duration like 30s, got '%s'", s);
	double mul = 1;
	if (!strcmp(end, "") || !strcmp(end, "s"))
		mul = 1;
	else if (!strcmp(end, "ms"))
		mul = 1e-3;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		mul = 60;
	else if (!strcmp(end, "h"))
		mul = 3600;
	else
		return bad(err, errlen, "expected a duration like 30s (units ms, s, m, h), got '%s'", s);
	/* past the cap, nanosecond deadlines overflow (5200000h: every point failed at once) */
	if (v * mul > JM_DURATION_MAX)
		return bad(err, errlen, "duration '%s' is longer than a year (at most 8784h)", s);
	*out = v * mul;
	return 0;
}

int jm_parse_bool(const char *s, bool *out, char *err, size_t errlen)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };
	for (int i = 0; s && yes[i]; i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return bad(err, errlen, "expected true or false, got '%s'", s ? s : "");
}

void jm_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char suf[] = "kmgt";
	int i = -1;
	uint64_t v = bytes;
	while (v && !(v & 1023) && i < 3) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, suf[i]);
}

unsigned jm_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 64;
	unsigned row[64];
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned prev = row[0];
		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned cur = row[j];
			unsigned cost = a[i - 1] == b[j - 1] ? 0 : 1;
			unsigned v = prev + cost;
			if (row[j] + 1 < v)
				v = row[j] + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			row[j] = v;
			prev = cur;
		}
	}
	return row[lb];
}

const char *jm_suggest(const char *s, const char *const *candidates)
{
	const char *best = NULL;
	unsigned bestd = 0;
	size_t ls = strlen(s);
	unsigned limit = ls <= 3 ? 1 : ls <= 6 ? 2 : 3;
	for (size_t i = 0; candidates[i]; i++) {
		unsigned d = jm_edit_distance(s, candidates[i]);
		if (d <= limit && (!best || d < bestd)) {
			best = candidates[i];
			bestd = d;
		}
	}
	return best;
}

void jm_join(const char *const *words, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; words[i]; i++) {
		if (i)
			strncat(buf, ", ", len - strlen(buf) - 1);
		strncat(buf, words[i], len - strlen(buf) - 1);
	}
}
