/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Recorded strings (labels, kernel, scheduler, run ids, workload names and
 * descriptions, paths, failure reasons) made safe for the output they
 * reach.  One helper per format:
 *
 *   ESC_TEXT   a terminal: control characters C0 (newline, CR and tab
 *              included), DEL and C1 (U+0080..U+009F), and bytes that are
 *              not UTF-8, shown visibly as \xNN (C1: \u00NN), so that a
 *              label cannot move the cursor, clear the screen or set a title;
 *   ESC_LINES  the same, newlines kept (a multi-line block jobmix made);
 *   ESC_MD     Markdown: as ESC_TEXT (a cell never spans lines), and
 *              '\', '|', '[', ']', '`' and a '<' that could open a tag
 *              backslash-escaped;
 *   ESC_CSV    a CSV field (RFC 4180): controls as ESC_TEXT (one record a
 *              line), quoted when it holds ',' or '"' ('"' doubled), and a
 *              leading "'" on a text cell that a spreadsheet would take as
 *              a formula (starting with =, +, -, @, tab or CR and not a
 *              number).
 *
 * JSON needs none of these (jansson escapes), HTML has its own in the
 * report (src/report/render.c).
 */
#ifndef JOBMIX_ESCAPE_H
#define JOBMIX_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

enum esc_fmt { ESC_TEXT, ESC_LINES, ESC_MD, ESC_CSV };

/* s (NULL: "") escaped for fmt, written to f. */
void esc_put(FILE *f, enum esc_fmt fmt, const char *s);
/*
 * s escaped for fmt into buf (always terminated; cut before an escape or
 * a character that does not fit whole).  Returns buf, for printf.
 */
const char *esc_str(char *buf, size_t len, enum esc_fmt fmt, const char *s);
/* Terminal columns the escaped s takes (one per character, as the tables count). */
size_t esc_width(enum esc_fmt fmt, const char *s);
/*
 * s with every byte that is not part of well-formed UTF-8 written as \xNN
 * (the rest as it is), so that a value in another encoding is kept, and
 * visible, in a JSON string: into buf (always terminated, cut before an
 * escape that does not fit) as snprintf does.  Returns the length the
 * whole would take (>= len: it was cut).
 */
size_t esc_utf8_fix(char *buf, size_t len, const char *s);

#endif
