// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recorded strings escaped for the terminal, Markdown and CSV (see
 * escape.h): one walk over the string that hands each piece (a character,
 * or the escape that replaces it) to a sink: a stream, a buffer, a count.
 */
#include "jobmix/escape.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Where the pieces go. */
struct esc_sink {
	FILE *f;                 /* a stream, or */
	char *buf;               /* a buffer of len (cut before a piece that does not fit) */
	size_t len, used;
	bool full;
	size_t cols;             /* columns so far */
};

static void esc_emit(struct esc_sink *k, const char *p, size_t n, size_t cols)
{
	k->cols += cols;
	if (k->f) {
		fwrite(p, 1, n, k->f);
		return;
	}
	if (!k->buf || k->full)
		return;
	if (k->used + n >= k->len) {
		k->full = true;
		return;
	}
	memcpy(k->buf + k->used, p, n);
	k->used += n;
	k->buf[k->used] = 0;
}

/* Bytes of the well-formed UTF-8 character at p (1 for ASCII), 0 when it is not one. */
static size_t esc_utf8(const unsigned char *p)
{
	unsigned c = p[0];
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		unsigned lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		unsigned lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 &&
		       (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

size_t esc_utf8_fix(char *buf, size_t len, const char *s)
{
	size_t need = 0;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		size_t n = esc_utf8(p);
		char hex[8];
		const char *piece = (const char *)p;
		if (!n) {
			snprintf(hex, sizeof(hex), "\\x%02x", *p);
			piece = hex;
		}
		size_t k = n ? n : 4;
		if (buf && need + k < len)
			memcpy(buf + need, piece, k);
		else if (buf && need < len)
			len = need + 1;   /* cut here: nothing after fits either */
		need += k;
		p += n ? n : 1;
	}
	if (buf && len)
		buf[need < len ? need : len - 1] = 0;
	return need;
}

/* Would a spreadsheet take this text cell for a formula? */
static bool esc_formula(const char *s)
{
	if (!s[0] || !strchr("=+-@\t\r", s[0]) || !strcmp(s, "-"))
		return false;
	char *end;
	strtod(s, &end);
	return end == s || *end;   /* a number ("-5", "+1e3") is not */
}

/* In Markdown: a byte that would be markup here. */
static bool esc_md_special(const unsigned char *p)
{
	if (strchr("\\|[]`", *p))
		return true;
	/* '<' opens raw HTML only before a letter, '/', '!' or '?' */
	return *p == '<' && ((p[1] >= 'a' && p[1] <= 'z') || (p[1] >= 'A' && p[1] <= 'Z') ||
			     p[1] == '/' || p[1] == '!' || p[1] == '?');
}

static void esc_walk(struct esc_sink *k, enum esc_fmt fmt, const char *str)
{
	const unsigned char *p = (const unsigned char *)(str ? str : "");
	char e[8];
	bool quote = fmt == ESC_CSV && strpbrk((const char *)p, ",\"");
	if (quote)
		esc_emit(k, "\"", 1, 1);
	if (fmt == ESC_CSV && esc_formula((const char *)p))
		esc_emit(k, "'", 1, 1);
	while (*p) {
		size_t n = esc_utf8(p);
		if (n == 0) {                                 /* not UTF-8 */
			snprintf(e, sizeof(e), "\\x%02x", *p);
			esc_emit(k, e, 4, 4);
			p++;
		} else if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {   /* C1 */
			snprintf(e, sizeof(e), "\\u00%02x", p[1]);
			esc_emit(k, e, 6, 6);
			p += 2;
		} else if (n > 1) {
			esc_emit(k, (const char *)p, n, 1);
			p += n;
		} else if ((*p < 0x20 && !(fmt == ESC_LINES && *p == '\n')) || *p == 0x7f) {
			snprintf(e, sizeof(e), "\\x%02x", *p);
			esc_emit(k, e, 4, 4);
			p++;
		} else if (fmt == ESC_MD && esc_md_special(p)) {
			e[0] = '\\';
			e[1] = (char)*p;
			esc_emit(k, e, 2, 2);
			p++;
		} else if (fmt == ESC_CSV && *p == '"') {
			esc_emit(k, "\"\"", 2, 2);
			p++;
		} else {
			esc_emit(k, (const char *)p, 1, 1);
			p++;
		}
	}
	if (quote)
		esc_emit(k, "\"", 1, 1);
}

void esc_put(FILE *f, enum esc_fmt fmt, const char *s)
{
	struct esc_sink k = { .f = f };
	esc_walk(&k, fmt, s);
}

const char *esc_str(char *buf, size_t len, enum esc_fmt fmt, const char *s)
{
	struct esc_sink k = { .buf = buf, .len = len };
	if (len)
		buf[0] = 0;
	esc_walk(&k, fmt, s);
	return buf;
}

size_t esc_width(enum esc_fmt fmt, const char *s)
{
	struct esc_sink k = { 0 };
	esc_walk(&k, fmt, s);
	return k.cols;
}
