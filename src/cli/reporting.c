// SPDX-License-Identifier: GPL-2.0-only
/* What the reporting commands share: output files (atomic.h), option values, errors (see reporting.h). */
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/escape.h"
#include "jobmix/exitcode.h"
#include "jobmix/gnuplot.h"

#include "reporting.h"

int outfile_open(struct outfile *o, const char *path, const struct atom_set *inputs, char *err,
		 size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	int rc = atom_begin_at(&o->a, AT_FDCWD, path, inputs, err, errlen);
	if (rc)
		return rc;
	o->f = o->a.f;
	o->file = true;
	return 0;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	if (!o->file) {
		if (fflush(o->f) || ferror(o->f)) {
			snprintf(err, errlen, "write to standard output failed");
			return -1;
		}
		return 0;
	}
	o->f = NULL;
	o->file = false;
	return atom_commit(&o->a, err, errlen) ? -1 : 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->file)
		atom_abort(&o->a);
	o->file = false;
	o->f = NULL;
}

int cli_parse_pct(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || (*end && strcmp(end, "%")) || !(v > 0) || !(v < 100))
		return -1;
	*out = v / 100;
	return 0;
}

int cli_parse_qc(const char *s, bool *qc_max)
{
	if (strcmp(s, "converge") && strcmp(s, "max"))
		return -1;
	*qc_max = !strcmp(s, "max");
	return 0;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "jobmix %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return JM_EXIT_USAGE;
}

/* Each table's users chart through gnuplot (gp_report_svg); NULL without gnuplot. */
char **report_charts(const struct rep_report *rep)
{
	char err[8192];
	if (!rep->ntable)
		return NULL;
	if (!gp_available()) {
		fprintf(stderr, "jobmix report: warning: gnuplot is not on PATH: no charts "
			"(Debian: apt-get install gnuplot-nox)\n");
		return NULL;
	}
	char **svg = calloc(rep->ntable, sizeof(*svg));
	if (!svg)
		return NULL;
	for (size_t t = 0; t < rep->ntable; t++) {
		size_t len;
		char wl[1024];
		if (gp_report_svg(rep, t, &svg[t], &len, err, sizeof(err)))
			fprintf(stderr, "jobmix report: warning: no chart for workload '%s': %s\n",
				esc_str(wl, sizeof(wl), ESC_TEXT, rep->table[t].workload), err);
	}
	return svg;
}

void report_charts_free(char **svg, size_t n)
{
	for (size_t i = 0; svg && i < n; i++)
		free(svg[i]);
	free(svg);
}
