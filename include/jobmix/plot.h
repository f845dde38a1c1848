/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Charts: gnuplot scripts from report curves (report.h).  Pure: no forking,
 * no files but the FILE * it is given; gnuplot.h runs the scripts.
 *
 * A script is self-contained: the data inline as datablocks ($d0 << EOD),
 * the terminal (pngcairo when this gnuplot has it, else png; or svg), no
 * `set output`, so gnuplot writes the image to its standard output.  Every
 * text that comes from input (workload names, labels) is written as a
 * single-quoted gnuplot string with control characters replaced, and the
 * terminal is noenhanced, so it prints literally and cannot end a command.
 *
 * The users chart: JPM against users, one curve per row of a report table
 * (rep_series: the runs the table counts, by the one centre), overlaid;
 * error bars (the spread about the centre) where a point has one; each
 * row's peak and quick-convergence mark a point of its own curve, in its
 * colour, with two point types the key names; a line only between user
 * counts of a dense region (plot_users_jump), points alone across a jump;
 * a row drawn from incomplete runs dashed and labelled so; a tested row's
 * label its peak change with its interval; a log2 user axis when the users
 * span more than 16x.
 *
 * The trend chart (--trend): per row, the peak and the quick convergence
 * JPM of its runs against the run date (the UTC day the run started),
 * runs of one day folded into mean +- sd.
 */
#ifndef JOBMIX_PLOT_H
#define JOBMIX_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "jobmix/report.h"

#define PLOT_LOG_SPAN 16.0      /* log user axis when max/min users exceeds this */
#define PLOT_WIDTH 960
#define PLOT_HEIGHT 600

enum plot_term { PLOT_PNG, PLOT_SVG };

/* The terminal for an output path by its suffix (.png or .svg, any case); -1 otherwise. */
int plot_term_from_path(const char *path, enum plot_term *out);

struct plot_opts {
	enum plot_term term;
	const char *workload;   /* named in the title; may be NULL */
	bool qc_max;            /* quick convergence is re-aim's maximum (--qc max) */
	const char *order;      /* the trend's x: this label's values; NULL: run dates */
};

/*
 * Is a line from user count a to the next measured count b (a < b) a jump
 * over counts not measured, drawn as points without a line?  When b is
 * more than twice a and more than step (the curve's median step) above it:
 * 4 -> 119 in 1,2,3,4,119 is; a doubling ramp's 8 -> 16 and a linear
 * ramp's 1 -> 11 by 10 are not.
 */
bool plot_users_jump(unsigned a, unsigned b, unsigned step);

/*
 * The users chart of n curves.  Curves or points without a finite JPM are
 * left out.  0; -1 with err set when nothing is left to draw or on a write
 * error.
 */
int plot_script(FILE *f, const struct rep_series *s, size_t n, const struct plot_opts *o,
		char *err, size_t errlen) __attribute__((warn_unused_result));

/* ---- trend over run dates (or a label) ---------------------------------------- */

struct plot_trend_pt {
	char x[64];                     /* YYYY-MM-DD (UTC) from the run's `started`, or the
					 * value of the order key (r->opts.series_order) */
	unsigned npeak, nqc;            /* runs of that day with the value */
	double peak, peak_sd;           /* mean, sd (NAN when npeak < 2); NAN when npeak == 0 */
	double qc, qc_sd;
};

/* A change point of a trend line (changepoint.h over its runs in order). */
struct plot_trend_cp {
	char x[64];                     /* the x of the first run after the change */
	bool qc;                        /* in quick convergence, else in the peak */
	double change;                  /* after / before - 1 */
};

struct plot_trend {
	char label[256];                /* the row's keys, "kernel / scheduler" */
	struct plot_trend_pt *pt;       /* in order, owned */
	size_t npt;
	struct plot_trend_cp *cp;       /* owned */
	size_t ncp;
};

/*
 * Table t of a report as trend lines, one per row: each run's peak
 * (summary.peak_jpm, else max_jpm) and quick convergence (converge_jpm,
 * or max_jpm, re-aim's -q figure, when r->opts.qc_max), as the report's
 * table takes them, grouped by the day it started, or with
 * r->opts.series_order by that label's value (numbers in numeric order).
 * Runs whose `started` is not an ISO-8601 date (or without the label) are
 * left out.  The change points of each line are found as `jobmix history`
 * finds them (complete runs in order: by the label, then start time, then
 * id; cp_detect's defaults).  0 or -1.
 */
int plot_trend_build(const struct rep_report *r, size_t t, struct plot_trend **out, size_t *n);
void plot_trend_free(struct plot_trend *tr, size_t n);

/* The trend chart.  0; -1 with err set when nothing is left to draw or on a write error. */
int plot_trend_script(FILE *f, const struct plot_trend *tr, size_t n, const struct plot_opts *o,
		      char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * Table t's rows' block-layer histograms (run.json's blk_hist, every
 * operation, every point of the row's runs that did not fail, each run's
 * device as dev.* names it): four panels, the time in the IO scheduler,
 * in the device, the request size and the depth at issue, each row a
 * line of its share of requests per bucket.  -1 with err when no row has
 * any (runs not traced) or out of memory.
 */
int plot_hist_script(FILE *f, const struct rep_report *r, size_t t, const struct plot_opts *o,
		     char *err, size_t errlen) __attribute__((warn_unused_result));
/* plot_hist_script into a malloc'ed *script of *len bytes. */
int plot_report_hist(const struct rep_report *r, size_t t, enum plot_term term, char **script,
		     size_t *len, char *err, size_t errlen);

/*
 * Table t of a report as one chart's script (malloc'd, *len bytes): its
 * rows' curves (rep_series) or, with trend, their trend lines; titled
 * with the table's workload, the convergence as r->opts.qc_max says.
 * 0; -1 with err set (nothing to draw, out of memory).
 */
int plot_report_script(const struct rep_report *r, size_t t, bool trend, enum plot_term term,
		       char **script, size_t *len, char *err, size_t errlen)
	__attribute__((warn_unused_result));

/*
 * An SVG document as gnuplot's svg terminal wrote it (doc, *len bytes,
 * NUL-terminated) cut to begin at its "<svg" element, the XML prolog
 * dropped so that it can be inlined in HTML: moved to the start of doc,
 * *len updated.  -1 when doc holds no <svg element (nothing changed).
 */
int plot_svg_inline(char *doc, size_t *len) __attribute__((warn_unused_result));

/*
 * Text as a gnuplot single-quoted string, quotes included: ' doubled,
 * control characters and DEL replaced by '?', cut (on a UTF-8 boundary)
 * to fit len.  Exposed for the tests.
 */
void plot_quote(const char *s, char *out, size_t len);

/*
 * The chart of a pivoted table (--metric other than jpm, or --cols):
 * grouped bars, one group per row, one bar per column, error bars of +- sd
 * over the cell's runs (none for a single run), the metrics' units on the
 * y axis.  0; -1 with err set when no cell has a value or on a write error.
 */
int plot_pivot_script(FILE *f, const struct rep_report *rep, size_t t, const struct plot_opts *o,
		      char *err, size_t errlen) __attribute__((warn_unused_result));

#endif
