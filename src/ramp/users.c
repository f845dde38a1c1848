// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parsing of -u user-count specs: "N", "A-B", "A-B/S", "A-BxF" and comma
 * lists, and CPU shares ("N%").  Messages quote the spec or its item and
 * do not name the option: the caller does.
 */
#include "jobmix/ramp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Read a decimal number at *p (at least one digit), advancing *p.  Returns 0,
 * 1 when there is no digit, 2 when it exceeds `max`.
 */
static int users_number(const char **p, uint64_t max, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	bool big = false;

	if (*s < '0' || *s > '9')
		return 1;
	while (*s >= '0' && *s <= '9') {
		if (!big) {
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > max)
				big = true;
		}
		s++;
	}
	*p = s;
	*out = v;
	return big ? 2 : 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

/* Append v to the growing list, failing past RAMP_LIST_MAX. */
static int users_push(unsigned **list, size_t *n, size_t *cap, unsigned v)
{
	if (*n >= RAMP_LIST_MAX)
		return -1;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		unsigned *nl = realloc(*list, nc * sizeof(*nl));
		if (!nl)
			return -2;
		*list = nl;
		*cap = nc;
	}
	(*list)[(*n)++] = v;
	return 0;
}

/*
 * Parse one comma-separated item of length len into the list.  Returns 0 or
 * -1 with err set (the item is quoted in the message).
 */
static int users_item(const char *item, size_t len, unsigned **list, size_t *n, size_t *cap,
		      char *err, size_t errlen)
{
	char buf[128];
	const char *p;
	uint64_t a, b = 0, step = 1;
	bool range = false, geometric = false;
	int rc;

	if (len == 0) {
		snprintf(err, errlen, "empty item (two commas, or a comma at an end)");
		return -1;
	}
	if (len >= sizeof(buf)) {
		snprintf(err, errlen, "item '%.*s...' is too long", 20, item);
		return -1;
	}
	memcpy(buf, item, len);
	buf[len] = '\0';
	p = buf;

	rc = users_number(&p, RAMP_USERS_MAX, &a);
	if (rc == 1)
		goto garbage;
	if (rc == 2)
		goto too_large;
	if (*p == '-') {
		p++;
		range = true;
		rc = users_number(&p, RAMP_USERS_MAX, &b);
		if (rc == 1)
			goto garbage;
		if (rc == 2)
			goto too_large;
		if (*p == '/' || *p == 'x' || *p == 'X') {
			geometric = *p != '/';
			p++;
			rc = users_number(&p, RAMP_USERS_MAX, &step);
			if (rc == 1)
				goto garbage;
			if (rc == 2)
				goto too_large;
		}
	}
	if (*p != '\0')
		goto garbage;
	if (a == 0 || (range && b == 0)) {
		snprintf(err, errlen, "zero users in '%s' (user counts start at 1)", buf);
		return -1;
	}
	if (!range)
		b = a;
	if (b < a) {
		snprintf(err, errlen, "'%s' is not ascending", buf);
		return -1;
	}
	if (geometric && step < 2) {
		snprintf(err, errlen, "factor in '%s' must be an integer >= 2", buf);
		return -1;
	}
	if (!geometric && step == 0) {
		snprintf(err, errlen, "step 0 in '%s'", buf);
		return -1;
	}
	for (uint64_t v = a; v <= b; v = geometric ? v * step : v + step) {
		rc = users_push(list, n, cap, (unsigned)v);
		if (rc == -1) {
			snprintf(err, errlen, "'%s' makes more than %u user counts", buf,
				 RAMP_LIST_MAX);
			return -1;
		}
		if (rc) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;

garbage:
	snprintf(err, errlen, "cannot parse '%s' (expected N, A-B, A-B/S or A-BxF)", buf);
	return -1;
too_large:
	snprintf(err, errlen, "'%s' has a number above %u users", buf, RAMP_USERS_MAX);
	return -1;
}

/* Comma list -> sorted unique list; see ramp.h. */
int ramp_parse_users(const char *spec, unsigned **list, size_t *n, char *err, size_t errlen)
{
	unsigned *out = NULL;
	size_t cnt = 0, cap = 0;
	const char *s = spec;

	*list = NULL;
	*n = 0;
	if (!spec || !*spec) {
		snprintf(err, errlen, "empty user list");
		return -1;
	}
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (users_item(s, len, &out, &cnt, &cap, err, errlen))
			goto fail;
		if (!comma)
			break;
		s = comma + 1;
	}
	qsort(out, cnt, sizeof(*out), cmp_unsigned);
	size_t w = 0;
	for (size_t i = 0; i < cnt; i++)
		if (w == 0 || out[w - 1] != out[i])
			out[w++] = out[i];
	*list = out;
	*n = w;
	return 0;

fail:
	free(out);
	return -1;
}

/*
 * "N%" -> round(N × ncpus / 100) users (at least 1), every occurrence, into
 * out; the rest copied.  0, or -1 with err set.
 */
int ramp_users_resolve_cpus(const char *spec, unsigned ncpus, char *out, size_t outlen,
			    char *err, size_t errlen)
{
	size_t o = 0;
	const char *s = spec;
	if (!spec || !*spec) {
		snprintf(err, errlen, "empty user list");
		return -1;
	}
	while (*s) {
		size_t digits = strspn(s, "0123456789.");
		/* N% only where a count begins (the item's start or after '-'), as a whole number */
		bool at_count = s == spec || s[-1] == ',' || s[-1] == '-';
		if (digits && s[digits] == '%' && !at_count)
			goto bad;
		if (digits && s[digits] == '%') {
			char num[32], *end;
			if (digits >= sizeof(num))
				goto bad;
			memcpy(num, s, digits);
			num[digits] = 0;
			double pct = strtod(num, &end);
			if (*end || !(pct > 0) || pct > 1e9)
				goto bad;
			double users = pct * ncpus / 100.0 + 0.5;
			if (users > RAMP_USERS_MAX) {
				snprintf(err, errlen, "%s%% of %u CPUs is above %u users", num, ncpus,
					 RAMP_USERS_MAX);
				return -1;
			}
			unsigned u = users < 1 ? 1 : (unsigned)users;
			int w = snprintf(out + o, outlen - o, "%u", u);
			if (w < 0 || (size_t)w >= outlen - o)
				goto long_;
			o += (size_t)w;
			s += digits + 1;
			if (*s && !strchr(",-/xX", *s))
				goto bad;
			continue;
		}
		if (digits) {
			if (o + digits >= outlen)
				goto long_;
			memcpy(out + o, s, digits);
			o += digits;
			s += digits;
			continue;
		}
		if (*s == '%')
			goto bad;
		if (o + 1 >= outlen)
			goto long_;
		out[o++] = *s++;
	}
	out[o] = 0;
	return 0;
bad:
	snprintf(err, errlen, "cannot parse '%s' (a share of the CPUs is N%%, like 100%% or "
		 "50%%-400%%, where a user count goes)", spec);
	return -1;
long_:
	snprintf(err, errlen, "'%s' is too long", spec);
	return -1;
}
