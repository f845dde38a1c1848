// SPDX-License-Identifier: GPL-2.0-only
/* What the reporting commands share: atomic output files, option values, errors (see reporting.h). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/exitcode.h"
#include "jobmix/gnuplot.h"

#include "reporting.h"

int outfile_open(struct outfile *o, const char *path, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (!path[0] || strlen(path) + 16 >= sizeof(o->tmp)) {
		snprintf(err, errlen, "output '%s': invalid path", path);
		return -1;
	}
	snprintf(o->path, sizeof(o->path), "%s", path);
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", path);
	int fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "create '%s' failed: %s", o->tmp, strerror(errno));
		o->tmp[0] = 0;
		return -1;
	}
	fchmod(fd, 0644);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		snprintf(err, errlen, "open '%s' failed: %s", o->tmp, strerror(errno));
		close(fd);
		unlink(o->tmp);
		o->tmp[0] = 0;
		return -1;
	}
	return 0;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	if (!o->tmp[0]) {
		if (fflush(o->f) || ferror(o->f)) {
			snprintf(err, errlen, "write to standard output failed");
			return -1;
		}
		return 0;
	}
	int e = 0;
	if (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f)))
		e = errno ? errno : EIO;
	if (fclose(o->f) && !e)
		e = errno;
	o->f = NULL;
	if (!e && rename(o->tmp, o->path))
		e = errno;
	if (e) {
		snprintf(err, errlen, "write '%s' failed: %s", o->path, strerror(e));
		unlink(o->tmp);
		o->tmp[0] = 0;
		return -1;
	}
	o->tmp[0] = 0;
	return 0;
}

void outfile_abort(struct outfile *o)
{
	if (o->tmp[0]) {
		if (o->f)
			fclose(o->f);
		unlink(o->tmp);
		o->tmp[0] = 0;
	}
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
		if (gp_report_svg(rep, t, &svg[t], &len, err, sizeof(err)))
			fprintf(stderr, "jobmix report: warning: no chart for workload '%s': %s\n",
				rep->table[t].workload ? rep->table[t].workload : "", err);
	}
	return svg;
}

void report_charts_free(char **svg, size_t n)
{
	for (size_t i = 0; svg && i < n; i++)
		free(svg[i]);
	free(svg);
}
