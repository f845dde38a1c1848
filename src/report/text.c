// SPDX-License-Identifier: GPL-2.0-only
/*
 * Text that fits a width, shared by report and compare: a grid of cells
 * as aligned text (folded into parts that repeat its stub columns when
 * wider than the width) or a Markdown table, and notes wrapped at spaces.
 * Width 0 (--wide) keeps a row and a note on one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/escape.h"
#include "internal.h"

/*
 * Text as lines of at most width columns (0: one line), broken at spaces:
 * the first line after lead, the rest after cont.  A word longer than a
 * line (a path) stands alone on its line, whole.
 */
void rep_wrap(FILE *f, const char *text, size_t width, const char *lead, const char *cont)
{
	size_t col = strlen(lead), start = col;
	char word[1536];
	fputs(lead, f);
	if (!width) {
		esc_put(f, ESC_TEXT, text);
		fputc('\n', f);
		return;
	}
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " ");
		snprintf(word, sizeof(word), "%.*s", (int)n, p);
		size_t w = esc_width(ESC_TEXT, word);
		if (col > start && col + 1 + w > width) {
			fputc('\n', f);
			fputs(cont, f);
			col = start = strlen(cont);
		} else if (col > start) {
			fputc(' ', f);
			col++;
		}
		esc_put(f, ESC_TEXT, word);
		col += w;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

static void rep_pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

/* The grid's columns col[0..n) as aligned text or a Markdown table, widths w. */
static int rep_text_cols(FILE *f, struct rep_grid *g, const size_t *w, const size_t *col,
			 size_t ncol, bool md)
{
	enum esc_fmt ef = md ? ESC_MD : ESC_TEXT;
	for (size_t r = 0; r < g->nrow; r++) {
		char *line = NULL;
		size_t llen = 0;
		FILE *lf = open_memstream(&line, &llen);
		if (!lf)
			return -1;
		if (md)
			fputs("|", lf);
		for (size_t i = 0; i < ncol; i++) {
			size_t c = col[i];
			const char *s = CELL(g, r, c);
			size_t pad = w[c] - esc_width(ef, s);
			bool last = i + 1 == ncol;
			if (md) {
				fputc(' ', lf);
				esc_put(lf, ef, s);
				rep_pad(lf, pad);
				fputs(" |", lf);
			} else if (g->numeric[c] && r > 0) {
				rep_pad(lf, pad);
				esc_put(lf, ef, s);
				if (!last)
					fputs("  ", lf);
			} else {
				esc_put(lf, ef, s);
				if (!last) {
					rep_pad(lf, pad);
					fputs("  ", lf);
				}
			}
		}
		fclose(lf);
		while (llen && line[llen - 1] == ' ')   /* no trailing blanks */
			line[--llen] = 0;
		fputs(line, f);
		free(line);
		fputc('\n', f);
		if (md && r == 0) {
			fputs("|", f);
			for (size_t i = 0; i < ncol; i++) {
				size_t c = col[i];
				fputc(g->numeric[c] ? '-' : ':', f);
				for (size_t k = 0; k < w[c]; k++)
					fputc('-', f);
				fputs(g->numeric[c] ? ":|" : "-|", f);
			}
			fputc('\n', f);
		}
	}
	return 0;
}

/*
 * A grid as aligned text or a Markdown table.  Text wider than width
 * (0: no limit) is folded: the stub columns, then as many of the rest
 * (in their groups) as fit, a blank line, the stub again and the next
 * ones; a group wider than a line alone gets a part of its own.
 */
int rep_text_grid(FILE *f, struct rep_grid *g, bool md, size_t width)
{
	enum esc_fmt ef = md ? ESC_MD : ESC_TEXT;
	size_t *w = calloc(g->ncol, sizeof(*w)), *col = calloc(g->ncol, sizeof(*col));
	size_t stub = g->stub ? g->stub : 1, grp = g->group ? g->group : 1, total = 0;
	int rc = 0;
	if (!w || !col) {
		free(w);
		free(col);
		return -1;
	}
	for (size_t r = 0; r < g->nrow; r++)
		for (size_t c = 0; c < g->ncol; c++)
			if (esc_width(ef, CELL(g, r, c)) > w[c])
				w[c] = esc_width(ef, CELL(g, r, c));
	for (size_t c = 0; c < g->ncol; c++)
		total += w[c] + (c ? 2 : 0);
	if (md || !width || total <= width || stub >= g->ncol) {
		for (size_t c = 0; c < g->ncol; c++)
			col[c] = c;
		rc = rep_text_cols(f, g, w, col, g->ncol, md);
		goto out;
	}
	size_t sw = 0;
	for (size_t c = 0; c < stub; c++)
		sw += w[c] + (c ? 2 : 0);
	for (size_t c = stub; c < g->ncol && !rc;) {
		size_t n = 0, lw = sw;
		for (size_t k = 0; k < stub; k++)
			col[n++] = k;
		while (c < g->ncol) {
			size_t gw = 0, e = c + grp < g->ncol ? c + grp : g->ncol;
			for (size_t k = c; k < e; k++)
				gw += w[k] + 2;
			if (n > stub && lw + gw > width)
				break;
			for (size_t k = c; k < e; k++)
				col[n++] = k;
			lw += gw;
			c = e;
		}
		if (col[stub] != stub)
			fputc('\n', f);
		rc = rep_text_cols(f, g, w, col, n, md);
	}
out:
	free(w);
	free(col);
	return rc;
}
