/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Running gnuplot: the program `gnuplot` found on PATH is executed (no
 * shell, no arguments) with a script on a pipe to its standard input; what
 * it writes to its standard output (the image) is captured.  Its standard
 * error is kept and handed back in err when it fails.  It is killed when
 * it takes longer than GP_TIMEOUT_S.  SIGPIPE is ignored while the script
 * is written and restored after.
 */
#ifndef JOBMIX_GNUPLOT_H
#define JOBMIX_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "jobmix/report.h"

#define GP_TIMEOUT_S 30
#define GP_MAX_OUTPUT (64u << 20)  /* an image larger than this is refused */

/* Return values besides 0. */
#define GP_ERR (-1)                /* gnuplot failed, timed out, or an I/O error */
#define GP_NOT_FOUND (-2)          /* no gnuplot on PATH: a usage/configuration error */
#define GP_REFUSED (-3)            /* the output is not one to write (atomic.h): a usage error */

struct atom_set;

/* Is an executable `gnuplot` on PATH? */
bool gp_available(void);

/*
 * Run gnuplot on script[0..len); its standard output into *out (malloc'd,
 * NUL-terminated past *outlen).  timeout_s 0 means GP_TIMEOUT_S.  0,
 * GP_ERR or GP_NOT_FOUND, with err set (gnuplot's own messages included).
 */
int gp_run(const char *script, size_t len, unsigned timeout_s, char **out, size_t *outlen,
	   char *err, size_t errlen) __attribute__((warn_unused_result));

/*
 * Run gnuplot and write its output to path (relative to dirfd, or
 * AT_FDCWD) with atomic.h's writer, which judges the target before gnuplot
 * runs; inputs (may be NULL): files the output may not be.  Nothing is
 * written when gnuplot fails or writes nothing.  0, GP_ERR, GP_NOT_FOUND or
 * GP_REFUSED.
 */
int gp_render_file(const char *script, size_t len, int dirfd, const char *path,
		   const struct atom_set *inputs, char *err, size_t errlen)
	__attribute__((warn_unused_result));

/*
 * For the HTML report: run a script made for the svg terminal (plot.h,
 * PLOT_SVG) and return the SVG document in *svg (malloc'd, NUL-terminated,
 * *len bytes), starting at its "<svg" (the XML prolog dropped so it can be
 * inlined in HTML).  0, GP_ERR or GP_NOT_FOUND.
 */
int gp_render_svg(const char *script, char **svg, size_t *len, char *err, size_t errlen)
	__attribute__((warn_unused_result));

/*
 * For the HTML report: table t of a report as its users chart in SVG (the
 * script of plot_report_script for the svg terminal, run by
 * gp_render_svg).  0, GP_ERR (also when the table has nothing to draw) or
 * GP_NOT_FOUND, with err set.
 */
int gp_report_svg(const struct rep_report *r, size_t t, char **svg, size_t *len, char *err,
		  size_t errlen) __attribute__((warn_unused_result));

#endif
