// SPDX-License-Identifier: GPL-2.0-only
/*
 * Charts: gnuplot scripts from report curves (see plot.h).  Pure: writes
 * to the FILE * it is given, nothing else.
 */
#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "jobmix/changepoint.h"
#include "jobmix/plot.h"
#include "jobmix/stats.h"
#include "internal.h"

/* One point of a drawn line: x as gnuplot reads it (users or a date). */
struct plot_xy {
	char x[16];
	double y, lo, hi;   /* the bar from lo to hi; NAN when none */
	unsigned n;
	bool gap;           /* no line from the point before (a jump over counts not measured) */
};

int plot_term_from_path(const char *path, enum plot_term *out)
{
	size_t len = path ? strlen(path) : 0;
	if (len > 4 && !strcasecmp(path + len - 4, ".png")) {
		*out = PLOT_PNG;
		return 0;
	}
	if (len > 4 && !strcasecmp(path + len - 4, ".svg")) {
		*out = PLOT_SVG;
		return 0;
	}
	return -1;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t plot_utf8_len(const unsigned char *s)
{
	size_t n;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void plot_quote(const char *s, char *out, size_t len)
{
	size_t o = 0;
	if (len < 3) {
		if (len)
			out[0] = 0;
		return;
	}
	out[o++] = '\'';
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		size_t n = plot_utf8_len(p);
		const char *put = (const char *)p;
		size_t need = n;
		if (n == 0 || *p < 0x20 || *p == 0x7f) {
			put = "?";
			need = 1;
			n = 1;
		} else if (*p == '\'') {
			put = "''";
			need = 2;
		}
		if (o + need + 2 > len)   /* the closing quote and the NUL */
			break;
		memcpy(out + o, put, need);
		o += need;
		p += n;
	}
	out[o++] = '\'';
	out[o] = 0;
}

/*
 * The lines every chart starts with: the terminal (pngcairo when this
 * gnuplot has it), no enhanced text, the title.
 */
static void plot_head(FILE *f, const struct plot_opts *o, const char *what)
{
	char title[600], text[400];
	fprintf(f, "# jobmix plot: %s (generated; the data is inline; the image goes to stdout)\n",
		what);
	fputs("reset\n", f);
	if (o->term == PLOT_SVG)
		fprintf(f, "set terminal svg size %d,%d noenhanced font 'sans,11' "
			   "background rgb 'white'\n", PLOT_WIDTH, PLOT_HEIGHT);
	else
		fprintf(f, "if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {\n"
			   "    set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n"
			   "} else {\n"
			   "    set terminal png size %d,%d noenhanced\n"
			   "}\n", PLOT_WIDTH, PLOT_HEIGHT, PLOT_WIDTH, PLOT_HEIGHT);
	fputs("set termoption noenhanced\n", f);
	fputs("set encoding utf8\n", f);
	if (o->workload && o->workload[0])
		snprintf(text, sizeof(text), "%s: %s", o->workload, what);
	else
		snprintf(text, sizeof(text), "%s", what);
	plot_quote(text, title, sizeof(title));
	fprintf(f, "set title %s\n", title);
	fputs("set grid\n", f);
	fputs("set key outside below center vertical Left reverse maxrows 6\n", f);
	fputs("set yrange [0:*]\n", f);
}

/*
 * Line style ls for row i: gnuplot's 8 colours in turn; past the first 8
 * rows also another point type and dash pattern, so no two rows look the
 * same.  `second` (the trend's convergence line) is dashed with squares.
 */
static void plot_style(FILE *f, size_t ls, size_t i, bool second)
{
	static const int pt[] = { 7, 5, 13, 11, 15 }, pt2[] = { 5, 4, 12, 10, 14 };
	size_t round = (i / 8) % 5;
	fprintf(f, "set style line %zu linetype %zu linewidth 2", ls, i + 1);
	if (second || round)
		fprintf(f, " dashtype %zu", round + 2);
	fprintf(f, " pointtype %d pointsize 1\n", second ? pt2[round] : pt[round]);
}

/* Does the point carry a bar (a spread)? */
static bool plot_has_bar(const struct plot_xy *p)
{
	return isfinite(p->lo) && isfinite(p->hi);
}

/* A point's data line: x y lo hi n (lo = hi = y without a bar). */
static void plot_xy_line(FILE *f, const struct plot_xy *p)
{
	bool bar = plot_has_bar(p);
	fprintf(f, "%s %.10g %.10g %.10g %u\n", p->x, p->y, bar ? p->lo : p->y, bar ? p->hi : p->y,
		p->n);
}

/*
 * A line's datablocks: $<name> with every point (x y lo hi n; a blank line
 * before a point with gap, where gnuplot breaks the line), and, when only
 * some points have a bar, $<name>_e with those points.  Returns 0 when
 * there are no error bars, 1 when every point has one (yerrorlines), 2 for
 * some (linespoints and yerrorbars on $<name>_e).
 */
static int plot_blocks(FILE *f, const char *name, const struct plot_xy *p, size_t n)
{
	size_t with = 0;
	fprintf(f, "$%s << EOD\n", name);
	for (size_t i = 0; i < n; i++) {
		if (i && p[i].gap)
			fputs("\n", f);
		plot_xy_line(f, &p[i]);
		with += plot_has_bar(&p[i]);
	}
	fputs("EOD\n", f);
	if (with == 0)
		return 0;
	if (with == n)
		return 1;
	fprintf(f, "$%s_e << EOD\n", name);
	for (size_t i = 0; i < n; i++)
		if (plot_has_bar(&p[i]))
			plot_xy_line(f, &p[i]);
	fputs("EOD\n", f);
	return 2;
}

/* The plot elements of one line drawn from plot_blocks' datablocks. */
static void plot_line_cmd(FILE *f, bool *first, const char *name, int bars, int ls,
			  const char *title)
{
	char q[600];
	plot_quote(title, q, sizeof(q));
	fputs(*first ? "plot " : ", \\\n     ", f);
	*first = false;
	if (bars == 1) {
		fprintf(f, "$%s using 1:2:3:4 with yerrorlines ls %d title %s", name, ls, q);
		return;
	}
	fprintf(f, "$%s using 1:2 with linespoints ls %d title %s", name, ls, q);
	if (bars == 2)
		fprintf(f, ", \\\n     $%s_e using 1:2:3:4 with yerrorbars ls %d notitle", name, ls);
}

static int plot_finish(FILE *f, char *err, size_t errlen)
{
	if (fflush(f) || ferror(f)) {
		snprintf(err, errlen, "writing the gnuplot script failed");
		return -1;
	}
	return 0;
}

/* ---- the users chart -------------------------------------------------------- */

static int plot_cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

bool plot_users_jump(unsigned a, unsigned b, unsigned step)
{
	return b > 2 * a && b - a > step;
}

/* The median step between the curve's drawable user counts u[0..n) (ascending); 0 for < 2. */
static unsigned plot_median_step(const unsigned *u, size_t n)
{
	if (n < 2)
		return 0;
	unsigned *d = malloc((n - 1) * sizeof(*d));
	if (!d)
		return UINT32_MAX;   /* out of memory: draw every line, as before */
	for (size_t i = 1; i < n; i++)
		d[i - 1] = u[i] - u[i - 1];
	qsort(d, n - 1, sizeof(*d), plot_cmp_uint);
	unsigned m = d[(n - 2) / 2];
	free(d);
	return m;
}

/*
 * The drawable points of a curve into p (room for c->npt); their number.
 * A point after a jump (plot_users_jump over the curve's median step)
 * starts a new line.
 */
static size_t plot_curve_points(const struct rep_series *c, struct plot_xy *p)
{
	size_t k = 0;
	unsigned *u = malloc((c->npt ? c->npt : 1) * sizeof(*u));
	for (size_t i = 0; i < c->npt; i++) {
		const struct rep_curve_pt *q = &c->pt[i];
		if (!q->users || !isfinite(q->mean))
			continue;
		snprintf(p[k].x, sizeof(p[k].x), "%u", q->users);
		p[k].y = q->mean;
		p[k].lo = q->lo;
		p[k].hi = q->hi;
		p[k].n = q->n;
		p[k].gap = false;
		if (u)
			u[k] = q->users;
		k++;
	}
	unsigned step = u ? plot_median_step(u, k) : UINT32_MAX;
	for (size_t i = 1; u && i < k; i++)
		p[i].gap = plot_users_jump(u[i - 1], u[i], step);
	free(u);
	return k;
}

int plot_script(FILE *f, const struct rep_series *s, size_t n, const struct plot_opts *o,
		char *err, size_t errlen)
{
	unsigned umin = 0, umax = 0;
	size_t maxpt = 0, ncurves = 0, npeak = 0, nqc = 0;
	struct plot_xy *p = NULL;
	int *bars = NULL;
	int rc = -1;

	for (size_t i = 0; i < n; i++) {
		maxpt = s[i].npt > maxpt ? s[i].npt : maxpt;
		for (size_t j = 0; j < s[i].npt; j++) {
			unsigned u = s[i].pt[j].users;
			if (!u || !isfinite(s[i].pt[j].mean))
				continue;
			umin = !umin || u < umin ? u : umin;
			umax = u > umax ? u : umax;
		}
		if (s[i].peak_users && isfinite(s[i].peak_jpm))
			npeak++;
		if (s[i].qc_users && isfinite(s[i].qc_jpm))
			nqc++;
	}
	if (!umax) {
		snprintf(err, errlen, "nothing to plot%s%s: no load point with a JPM",
			 o->workload ? " for workload " : "", o->workload ? o->workload : "");
		return -1;
	}
	p = calloc(maxpt ? maxpt : 1, sizeof(*p));
	bars = calloc(n ? n : 1, sizeof(*bars));
	if (!p || !bars) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}

	plot_head(f, o, "jobs per minute against users");
	fputs("set xlabel 'users'\n", f);
	fputs("set ylabel 'jobs per minute (JPM)'\n", f);
	if ((double)umax / umin > PLOT_LOG_SPAN) {
		fputs("set logscale x 2\n", f);
		fprintf(f, "set xrange [%g:%g]\n", umin / 1.2, umax * 1.2);
	} else {
		unsigned pad = (umax - umin) / 20 + 1;
		fprintf(f, "set xrange [%u:%u]\n", umin > pad ? umin - pad : 0, umax + pad);
		if (umax - umin <= 20)
			fputs("set xtics 1\n", f);
	}
	for (size_t i = 0; i < n; i++)
		plot_style(f, i + 1, i, s[i].incomplete);

	for (size_t i = 0; i < n; i++) {
		size_t k = plot_curve_points(&s[i], p);
		char name[32];
		bars[i] = -1;
		if (!k)
			continue;
		snprintf(name, sizeof(name), "d%zu", i);
		bars[i] = plot_blocks(f, name, p, k);
		ncurves++;
	}
	/* the marks: users, JPM, the row's linetype (its colour) */
	if (npeak) {
		fputs("$peak << EOD\n", f);
		for (size_t i = 0; i < n; i++)
			if (s[i].peak_users && isfinite(s[i].peak_jpm))
				fprintf(f, "%u %.10g %zu\n", s[i].peak_users, s[i].peak_jpm, i + 1);
		fputs("EOD\n", f);
	}
	if (nqc) {
		fputs("$qc << EOD\n", f);
		for (size_t i = 0; i < n; i++)
			if (s[i].qc_users && isfinite(s[i].qc_jpm))
				fprintf(f, "%u %.10g %zu\n", s[i].qc_users, s[i].qc_jpm, i + 1);
		fputs("EOD\n", f);
	}

	bool first = true;
	for (size_t i = 0; i < n; i++) {
		char name[32];
		if (bars[i] < 0)
			continue;
		snprintf(name, sizeof(name), "d%zu", i);
		plot_line_cmd(f, &first, name, bars[i], (int)i + 1, s[i].label);
	}
	/* each mark in its row's colour; the key names the shape once, in black */
	if (npeak)
		fputs(", \\\n     $peak using 1:2:3 with points pointtype 6 pointsize 2.5 linewidth 2 "
		      "linecolor variable notitle, \\\n     NaN with points pointtype 6 pointsize 2.5 "
		      "linewidth 2 linecolor rgb 'black' title 'peak'", f);
	if (nqc)
		fprintf(f, ", \\\n     $qc using 1:2:3 with points pointtype 8 pointsize 2.5 linewidth 2 "
			   "linecolor variable notitle, \\\n     NaN with points pointtype 8 pointsize 2.5 "
			   "linewidth 2 linecolor rgb 'black' title '%s'",
			o->qc_max ? "quick convergence (max)" : "quick convergence");
	fputs("\n", f);
	rc = plot_finish(f, err, errlen);
out:
	free(p);
	free(bars);
	return rc;
}

/* ---- the trend chart ---------------------------------------------------------- */

/* One run's figures at its x (its day, or its order key's value). */
struct plot_day_run {
	char x[64];
	const struct res_rec *run;
	double peak, qc;
};

/* A value as a number when the whole of it is one. */
static bool plot_as_number(const char *s, double *v)
{
	char *end;
	if (!s || !*s)
		return false;
	*v = strtod(s, &end);
	return !*end && isfinite(*v);
}

/* x order: numbers numerically when both are, else as text (dates sort so). */
static int plot_x_cmp(const char *a, const char *b)
{
	double na, nb;
	if (plot_as_number(a, &na) && plot_as_number(b, &nb) && na != nb)
		return na < nb ? -1 : 1;
	return strcmp(a, b);
}

/* Runs in order: x, then start time, then id (as `jobmix history` orders them). */
static int plot_day_cmp(const void *pa, const void *pb)
{
	const struct plot_day_run *a = pa, *b = pb;
	int d = plot_x_cmp(a->x, b->x);
	if (!d)
		d = strcmp(a->run->started, b->run->started);
	return d ? d : strcmp(a->run->id, b->run->id);
}

/* Is s an ISO-8601 date (YYYY-MM-DD, then the end or 'T')?  Its day into date. */
static bool plot_iso_day(const char *s, char date[11])
{
	for (int i = 0; i < 10; i++) {
		bool dash = i == 4 || i == 7;
		if (dash ? s[i] != '-' : !isdigit((unsigned char)s[i]))
			return false;
	}
	if (s[10] && s[10] != 'T' && s[10] != ' ')
		return false;
	memcpy(date, s, 10);
	date[10] = 0;
	return true;
}

/* Mean and sd of the finite peaks (or quick convergences) of d[0..n); their count. */
static unsigned plot_fold(const struct plot_day_run *d, size_t n, bool qc, double *mean, double *sd)
{
	double sum = 0, ss = 0;
	unsigned k = 0;
	for (size_t i = 0; i < n; i++) {
		double v = qc ? d[i].qc : d[i].peak;
		if (isfinite(v)) {
			sum += v;
			k++;
		}
	}
	*mean = k ? sum / k : NAN;
	*sd = NAN;
	if (k < 2)
		return k;
	for (size_t i = 0; i < n; i++) {
		double v = qc ? d[i].qc : d[i].peak;
		if (isfinite(v))
			ss += (v - *mean) * (v - *mean);
	}
	*sd = sqrt(ss / (k - 1));
	return k;
}

/* The change points of the peak (or quick convergence) over d's complete runs, in order. */
static int plot_trend_cps(const struct plot_day_run *d, size_t nd, bool qc, struct plot_trend *tr)
{
	double *x = malloc(sizeof(*x) * (nd ? nd : 1));
	size_t *at = malloc(sizeof(*at) * (nd ? nd : 1)), n = 0, ncp = 0;
	struct cp_point *cp = NULL;
	int rc = -1;
	if (!x || !at)
		goto out;
	for (size_t i = 0; i < nd; i++) {
		double v = qc ? d[i].qc : d[i].peak;
		if (rep_run_complete(d[i].run) && isfinite(v) && v > 0) {
			at[n] = i;
			x[n++] = v;
		}
	}
	struct cp_opts o = { 0 };
	if (n && cp_detect(x, n, &o, &cp, &ncp))
		goto out;
	if (ncp) {
		struct plot_trend_cp *v = realloc(tr->cp, (tr->ncp + ncp) * sizeof(*v));
		if (!v)
			goto out;
		tr->cp = v;
		for (size_t i = 0; i < ncp; i++) {
			struct plot_trend_cp *c = &tr->cp[tr->ncp++];
			snprintf(c->x, sizeof(c->x), "%s", d[at[cp[i].at]].x);
			c->qc = qc;
			c->change = cp[i].change;
		}
	}
	rc = 0;
out:
	free(cp);
	free(x);
	free(at);
	return rc;
}

/* Row w of a table as one trend line. */
static int plot_trend_row(const struct rep_report *r, const struct rep_row *w,
			  struct plot_trend *tr)
{
	struct plot_day_run *d = calloc(w->nrun ? w->nrun : 1, sizeof(*d));
	size_t nd = 0;
	const char *key = r->opts.series_order;
	if (!d)
		return -1;
	for (size_t k = 0; k < w->nrun; k++) {
		const struct res_rec *run = &r->runs[w->run[k]];
		if (key) {
			const char *v = res_rec_get(run, key);
			if (!v || !*v)
				continue;
			snprintf(d[nd].x, sizeof(d[nd].x), "%s", v);
		} else if (!plot_iso_day(run->started, d[nd].x)) {
			continue;
		}
		d[nd].run = run;
		unsigned u;
		bool ne;
		/* as the report's table takes them */
		if (!rep_run_metric(run, false, r->opts.qc_max, &d[nd].peak, &u, &ne))
			d[nd].peak = NAN;
		if (!rep_run_metric(run, true, r->opts.qc_max, &d[nd].qc, &u, &ne))
			d[nd].qc = NAN;
		nd++;
	}
	qsort(d, nd, sizeof(*d), plot_day_cmp);
	tr->pt = calloc(nd ? nd : 1, sizeof(*tr->pt));
	if (!tr->pt || plot_trend_cps(d, nd, false, tr) || plot_trend_cps(d, nd, true, tr)) {
		free(d);
		return -1;
	}
	for (size_t i = 0; i < nd;) {
		size_t j = i;
		while (j < nd && !strcmp(d[j].x, d[i].x))
			j++;
		struct plot_trend_pt *q = &tr->pt[tr->npt++];
		memcpy(q->x, d[i].x, sizeof(q->x));
		q->npeak = plot_fold(d + i, j - i, false, &q->peak, &q->peak_sd);
		q->nqc = plot_fold(d + i, j - i, true, &q->qc, &q->qc_sd);
		i = j;
	}
	free(d);
	return 0;
}

int plot_trend_build(const struct rep_report *r, size_t t, struct plot_trend **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (t >= r->ntable)
		return -1;
	const struct rep_table *tb = &r->table[t];
	struct plot_trend *tr = calloc(tb->nrow ? tb->nrow : 1, sizeof(*tr));
	if (!tr)
		return -1;
	for (size_t i = 0; i < tb->nrow; i++) {
		const struct rep_row *w = &tb->row[i];
		for (size_t k = 0; k < r->opts.nby && k < REP_MAX_KEYS; k++) {
			size_t o = strlen(tr[i].label);
			snprintf(tr[i].label + o, sizeof(tr[i].label) - o, "%s%s", k ? " / " : "",
				 w->key[k] ? w->key[k] : "-");
		}
		if (plot_trend_row(r, w, &tr[i])) {
			plot_trend_free(tr, i + 1);
			return -1;
		}
	}
	*out = tr;
	*n = tb->nrow;
	return 0;
}

void plot_trend_free(struct plot_trend *tr, size_t n)
{
	if (!tr)
		return;
	for (size_t i = 0; i < n; i++) {
		free(tr[i].pt);
		free(tr[i].cp);
	}
	free(tr);
}

/* A date moved by days (whole UTC days), as YYYY-MM-DD. */
static void plot_day_add(const char *date, int days, char out[11])
{
	struct tm tm = { 0 };
	tm.tm_year = atoi(date) - 1900;
	tm.tm_mon = atoi(date + 5) - 1;
	tm.tm_mday = atoi(date + 8) + days;
	tm.tm_hour = 12;
	time_t t = timegm(&tm);
	gmtime_r(&t, &tm);
	strftime(out, 11, "%Y-%m-%d", &tm);
}

/* Whole days from a to b (both YYYY-MM-DD). */
static long plot_day_span(const char *a, const char *b)
{
	struct tm ta = { 0 }, tb = { 0 };
	ta.tm_year = atoi(a) - 1900;
	ta.tm_mon = atoi(a + 5) - 1;
	ta.tm_mday = atoi(a + 8);
	tb.tm_year = atoi(b) - 1900;
	tb.tm_mon = atoi(b + 5) - 1;
	tb.tm_mday = atoi(b + 8);
	return (long)((timegm(&tb) - timegm(&ta)) / 86400);
}

/* The x values of every line, each once, in order (borrowed strings); their number. */
static size_t plot_trend_xs(const struct plot_trend *tr, size_t n, const char ***out)
{
	size_t total = 0, k = 0;
	for (size_t i = 0; i < n; i++)
		total += tr[i].npt;
	const char **v = malloc(sizeof(*v) * (total ? total : 1));
	*out = v;
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < tr[i].npt; j++)
			v[k++] = tr[i].pt[j].x;
	for (size_t i = 1; i < k; i++) {      /* insertion sort: lines are already in order */
		const char *x = v[i];
		size_t j = i;
		while (j && plot_x_cmp(v[j - 1], x) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || strcmp(v[u - 1], v[i]))
			v[u++] = v[i];
	return u;
}

/* Position of x among xs (1-based); 0 when absent. */
static size_t plot_x_pos(const char *const *xs, size_t nx, const char *x)
{
	size_t lo = 0, hi = nx;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int d = plot_x_cmp(xs[mid], x);
		if (!d)
			return mid + 1;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* One point's x in the script: its date, or its position among xs. */
static void plot_trend_x(const struct plot_opts *o, const char *const *xs, size_t nx,
			 const char *x, char *out, size_t len)
{
	if (o->order)
		snprintf(out, len, "%zu", plot_x_pos(xs, nx, x));
	else
		snprintf(out, len, "%s", x);
}

int plot_trend_script(FILE *f, const struct plot_trend *tr, size_t n, const struct plot_opts *o,
		      char *err, size_t errlen)
{
	const char *first_day = NULL, *last_day = NULL;
	size_t maxpt = 0, nx = 0;
	struct plot_xy *p = NULL;
	int *bars = NULL;
	const char **xs = NULL;
	int rc = -1;
	const char *qcname = o->qc_max ? "quick convergence (max)" : "quick convergence";

	for (size_t i = 0; i < n; i++) {
		maxpt = tr[i].npt > maxpt ? tr[i].npt : maxpt;
		for (size_t j = 0; j < tr[i].npt; j++) {
			const struct plot_trend_pt *q = &tr[i].pt[j];
			if (!isfinite(q->peak) && !isfinite(q->qc))
				continue;
			if (!first_day || plot_x_cmp(q->x, first_day) < 0)
				first_day = q->x;
			if (!last_day || plot_x_cmp(q->x, last_day) > 0)
				last_day = q->x;
		}
	}
	if (!first_day) {
		snprintf(err, errlen, "nothing to plot%s%s: no run with a %s peak or convergence",
			 o->workload ? " for workload " : "", o->workload ? o->workload : "",
			 o->order ? "labelled" : "dated");
		return -1;
	}
	p = calloc(maxpt ? maxpt : 1, sizeof(*p));
	bars = calloc(2 * (n ? n : 1), sizeof(*bars));
	nx = plot_trend_xs(tr, n, &xs);
	if (!p || !bars || !xs) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}

	if (o->order) {
		char what[200], q[300];
		snprintf(what, sizeof(what), "peak and quick convergence by %s", o->order);
		plot_head(f, o, what);
		plot_quote(o->order, q, sizeof(q));
		fprintf(f, "set xlabel %s\n", q);
		fputs("set ylabel 'jobs per minute (JPM)'\n", f);
		fprintf(f, "set xrange [0.5:%zu.5]\n", nx);
		fputs("set xtics rotate by -30 (", f);
		size_t step = (nx + 23) / 24;  /* at most 24 labels */
		for (size_t i = 0; i < nx; i += step) {
			plot_quote(xs[i], q, sizeof(q));
			fprintf(f, "%s%s %zu", i ? ", " : "", q, i + 1);
		}
		fputs(")\n", f);
	} else {
		plot_head(f, o, "peak and quick convergence by run date");
		fputs("set xlabel 'run date (UTC)'\n", f);
		fputs("set ylabel 'jobs per minute (JPM)'\n", f);
		fputs("set xdata time\n", f);
		fputs("set timefmt '%Y-%m-%d'\n", f);
		fputs("set format x '%Y-%m-%d'\n", f);
		fputs("set xtics rotate by -30\n", f);
		char lo[11], hi[11];
		long span = plot_day_span(first_day, last_day);
		plot_day_add(first_day, -1, lo);
		plot_day_add(last_day, 1, hi);
		fprintf(f, "set xrange ['%s':'%s']\n", lo, hi);
		fprintf(f, "set xtics %ld\n", 86400L * (span / 12 + 1));
	}
	for (size_t i = 0; i < n; i++) {
		plot_style(f, 2 * i + 1, i, false);
		plot_style(f, 2 * i + 2, i, true);
	}
	/* the change points: a dotted line in the line's colour, the change beside it */
	size_t ncp = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < tr[i].ncp; c++) {
			const struct plot_trend_cp *cp = &tr[i].cp[c];
			char x[80], text[400], q[600];
			plot_trend_x(o, xs, nx, cp->x, x, sizeof(x));
			const char *at = o->order ? x : NULL;
			char quoted[100];
			if (!at) {
				snprintf(quoted, sizeof(quoted), "'%s'", x);
				at = quoted;
			}
			fprintf(f, "set arrow from %s, graph 0 to %s, graph 1 nohead dashtype 3 "
				   "linetype %zu linewidth 1 back\n", at, at, i + 1);
			snprintf(text, sizeof(text), "%s %s %+.1f%%", tr[i].label,
				 cp->qc ? "qc" : "peak", 100 * cp->change);
			plot_quote(text, q, sizeof(q));
			fprintf(f, "set label %s at %s, graph %.3f left offset 0.5,0 textcolor "
				   "linetype %zu front\n", q, at, 0.97 - 0.04 * (double)(ncp % 12), i + 1);
			ncp++;
		}
	if (ncp)
		fprintf(f, "# %zu change point%s (jobmix history's method), dotted\n", ncp,
			ncp == 1 ? "" : "s");

	for (size_t i = 0; i < n; i++) {
		for (int m = 0; m < 2; m++) {
			size_t k = 0;
			char name[32];
			for (size_t j = 0; j < tr[i].npt; j++) {
				const struct plot_trend_pt *q = &tr[i].pt[j];
				double y = m ? q->qc : q->peak;
				if (!isfinite(y))
					continue;
				plot_trend_x(o, xs, nx, q->x, p[k].x, sizeof(p[k].x));
				double sd = m ? q->qc_sd : q->peak_sd;
				p[k].y = y;
				p[k].lo = isfinite(sd) ? y - sd : NAN;
				p[k].hi = isfinite(sd) ? y + sd : NAN;
				p[k].n = m ? q->nqc : q->npeak;
				p[k].gap = false;
				k++;
			}
			bars[2 * i + m] = -1;
			if (!k)
				continue;
			snprintf(name, sizeof(name), "%s%zu", m ? "q" : "p", i);
			bars[2 * i + m] = plot_blocks(f, name, p, k);
		}
	}

	bool first = true;
	for (size_t i = 0; i < n; i++) {
		for (int m = 0; m < 2; m++) {
			char name[32], title[400];
			if (bars[2 * i + m] < 0)
				continue;
			snprintf(name, sizeof(name), "%s%zu", m ? "q" : "p", i);
			snprintf(title, sizeof(title), "%s: %s", tr[i].label, m ? qcname : "peak");
			plot_line_cmd(f, &first, name, bars[2 * i + m], (int)(2 * i + m + 1), title);
		}
	}
	fputs("\n", f);
	rc = plot_finish(f, err, errlen);
out:
	free(p);
	free(bars);
	free(xs);
	return rc;
}

/* A datablock word: a quoted string with no quote, backslash or control character. */
static void plot_data_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f || *s == '"' || *s == '\\' ? '_' : *s, f);
	fputc('"', f);
}

int plot_pivot_script(FILE *f, const struct rep_report *rep, size_t t, const struct plot_opts *o,
		      char *err, size_t errlen)
{
	const struct rep_table *tab = &rep->table[t];
	const struct rep_pivot *pv = tab->pv;
	char what[512], units[256], q[600];
	size_t n = 0, nu = 0, drawn = 0;
	if (!pv || !pv->ncol || !tab->nrow) {
		snprintf(err, errlen, "nothing to draw");
		return -1;
	}
	what[0] = units[0] = 0;
	for (size_t c = 0; c < pv->ncol; c++) {
		const struct rep_metric *m = rep->measure[pv->col[c].measure].m;
		bool seen = false;
		for (size_t k = 0; k < c && !seen; k++)
			seen = rep->measure[pv->col[k].measure].m == m;
		if (!seen && n < sizeof(what))
			n += (size_t)snprintf(what + n, sizeof(what) - n, "%s%s", n ? ", " : "", m->name);
		seen = false;
		for (size_t k = 0; k < c && !seen; k++)
			seen = !strcmp(rep->measure[pv->col[k].measure].m->unit, m->unit);
		if (!seen && nu < sizeof(units))
			nu += (size_t)snprintf(units + nu, sizeof(units) - nu, "%s%s", nu ? ", " : "",
					       m->unit);
	}
	plot_head(f, o, what);
	plot_quote(units, q, sizeof(q));
	fprintf(f, "set ylabel %s\n", q);
	fputs("set style data histogram\n"
	      "set style histogram errorbars gap 1 linewidth 1\n"
	      "set style fill solid 0.7 border -1\n"
	      "set boxwidth 0.9\n"
	      "set xtics nomirror rotate by -20\n"
	      "set datafile missing '?'\n", f);
	/* one line per row (a group), two columns per column of the table (mean, sd) */
	fputs("$bars << EOD\n", f);
	for (size_t j = 0; j < tab->nrow; j++) {
		char label[256];
		rep_row_label(rep, &tab->row[j], label, sizeof(label));
		plot_data_str(f, label);
		for (size_t c = 0; c < pv->ncol; c++) {
			const struct rep_value *v = &pv->cell[j * pv->ncol + c].v;
			if (v->n && isfinite(v->mean)) {
				fprintf(f, " %.10g %.10g", v->mean, v->n >= 2 && isfinite(v->sd) ? v->sd : 0.0);
				drawn++;
			} else {
				fputs(" ? ?", f);
			}
		}
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	if (!drawn) {
		snprintf(err, errlen, "no cell has a value to draw");
		return -1;
	}
	for (size_t c = 0; c < pv->ncol; c++) {
		plot_quote(pv->col[c].title, q, sizeof(q));
		if (c == 0)
			fprintf(f, "plot $bars using 2:3:xtic(1) title %s linetype 1", q);
		else
			fprintf(f, ", \\\n     '' using %zu:%zu title %s linetype %zu", 2 + 2 * c,
				3 + 2 * c, q, c + 1);
	}
	fputc('\n', f);
	return plot_finish(f, err, errlen);
}

/* The middle of stats_hist bucket i (as stats.c lays them out). */
static double plot_hist_mid(unsigned i)
{
	if (i < STATS_HIST_SUB)
		return i;
	unsigned msb = i / STATS_HIST_SUB + 2, sub = i % STATS_HIST_SUB;
	double step = ldexp(1.0, (int)msb - 3);
	return ldexp(1.0, (int)msb) + (sub + 0.5) * step;
}

/*
 * Row j's block-layer histograms of `what` (every operation), summed over
 * every point of its runs that did not fail, of each run's device
 * (rep_run_device), into h (zeroed first).
 */
static void plot_row_hist(const struct rep_report *rep, const struct rep_row *row,
			  enum res_blk_what what, struct stats_hist *h)
{
	memset(h, 0, sizeof(*h));
	for (size_t k = 0; k < row->nrun; k++) {
		const struct res_rec *r = &rep->runs[row->run[k]];
		char dev[32];
		rep_run_device(r, dev, sizeof(dev));
		for (size_t i = 0; i < r->npoints; i++) {
			const struct res_point *p = &r->points[i];
			for (size_t d = 0; !p->failed && !p->interrupted && d < p->ndevs; d++) {
				const struct res_blk *b = p->devs[d].blk;
				if (!b || strcmp(p->devs[d].name, dev))
					continue;
				for (int op = 0; op < RES_BLK_NOPS; op++) {
					const struct res_hist *x = b->h[op][what];
					for (size_t n = 0; x && n < x->nb; n++)
						h->bucket[x->b[n].i < STATS_HIST_BUCKETS ? x->b[n].i :
							  STATS_HIST_BUCKETS - 1] += (uint32_t)x->b[n].n;
					h->count += x ? x->count : 0;
				}
			}
		}
	}
}

int plot_hist_script(FILE *f, const struct rep_report *rep, size_t t, const struct plot_opts *o,
		     char *err, size_t errlen)
{
	static const struct { enum res_blk_what w; const char *title, *unit; double div; } panel[] = {
		{ RES_BLK_SCHED, "time in the IO scheduler (insert to issue)", "ms", 1e6 },
		{ RES_BLK_DEV, "time in the device (issue to completion)", "ms", 1e6 },
		{ RES_BLK_SIZE, "request size at issue", "KiB", 1024 },
		{ RES_BLK_DEPTH, "requests in flight at an issue", "requests", 1 },
	};
	const struct rep_table *tab = &rep->table[t];
	struct stats_hist *h = malloc(sizeof(*h));
	bool have[4] = { false }, *drawn = calloc(4 * tab->nrow + 1, sizeof(*drawn));
	size_t npanel = 0;
	if (!h || !drawn) {
		free(h);
		free(drawn);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	plot_head(f, o, "block-layer histograms, every point's requests (share of them)");
	/* the data: one block per row and panel, "x share%" per counted bucket */
	for (size_t q = 0; q < 4; q++)
		for (size_t j = 0; j < tab->nrow; j++) {
			plot_row_hist(rep, &tab->row[j], panel[q].w, h);
			if (!h->count)
				continue;
			have[q] = drawn[q * tab->nrow + j] = true;
			fprintf(f, "$h%zu_%zu << EOD\n", q, j);
			for (unsigned i = 0; i < STATS_HIST_BUCKETS; i++)
				if (h->bucket[i])
					fprintf(f, "%.6g %.4f\n", plot_hist_mid(i) / panel[q].div,
						100.0 * h->bucket[i] / (double)h->count);
			fputs("EOD\n", f);
		}
	free(h);
	for (size_t q = 0; q < 4; q++)
		npanel += have[q];
	if (!npanel) {
		free(drawn);
		snprintf(err, errlen, "%s: no block-layer histograms in these runs (a run as root "
			 "with BTF, without --no-trace, records them)", tab->workload ? tab->workload :
			 "the runs");
		return -1;
	}
	fprintf(f, "set multiplot layout %zu,%d\n", (npanel + 1) / 2, npanel > 1 ? 2 : 1);
	fputs("set logscale x 2\nset format x '%.2g'\nset ylabel '% of requests'\n"
	      "set key inside top right vertical maxrows 8\nset style data linespoints\n", f);
	for (size_t q = 0; q < 4; q++) {
		char title[200];
		if (!have[q])
			continue;
		plot_quote(panel[q].title, title, sizeof(title));
		fprintf(f, "set title %s\nset xlabel '%s'\nplot ", title, panel[q].unit);
		bool first = true;
		for (size_t j = 0; j < tab->nrow; j++) {
			char label[256], ql[300];
			if (!drawn[q * tab->nrow + j])
				continue;
			rep_row_label(rep, &tab->row[j], label, sizeof(label));
			plot_quote(label, ql, sizeof(ql));
			fprintf(f, "%s$h%zu_%zu title %s", first ? "" : ", ", q, j, ql);
			first = false;
		}
		fputs("\n", f);
	}
	fputs("unset multiplot\n", f);
	free(drawn);
	return ferror(f) ? -1 : 0;
}

int plot_report_hist(const struct rep_report *rep, size_t t, enum plot_term term, char **script,
		     size_t *len, char *err, size_t errlen)
{
	struct plot_opts po = { .term = term, .workload = rep->table[t].workload };
	FILE *f = open_memstream(script, len);
	*script = NULL;
	if (!f) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	int rc = plot_hist_script(f, rep, t, &po, err, errlen);
	if (fclose(f) && !rc) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	if (rc) {
		free(*script);
		*script = NULL;
		*len = 0;
	}
	return rc;
}

int plot_report_script(const struct rep_report *rep, size_t t, bool trend, enum plot_term term,
		       char **script, size_t *len, char *err, size_t errlen)
{
	struct plot_opts po = { .term = term, .qc_max = rep->opts.qc_max,
				.order = rep->opts.series_order };
	struct rep_series *s = NULL;
	struct plot_trend *tr = NULL;
	size_t n = 0;
	int rc = -1;
	FILE *f = NULL;

	*script = NULL;
	*len = 0;
	if (t >= rep->ntable) {
		snprintf(err, errlen, "no table %zu in the report", t);
		return -1;
	}
	po.workload = rep->table[t].workload;
	if (trend ? plot_trend_build(rep, t, &tr, &n) : rep_series(rep, t, &s, &n)) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	f = open_memstream(script, len);
	if (!f) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	if (rep->table[t].pv && !trend)
		rc = plot_pivot_script(f, rep, t, &po, err, errlen);
	else
		rc = trend ? plot_trend_script(f, tr, n, &po, err, errlen) :
			     plot_script(f, s, n, &po, err, errlen);
out:
	if (f && fclose(f) && !rc) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	if (rc) {
		free(*script);
		*script = NULL;
		*len = 0;
	}
	if (trend)
		plot_trend_free(tr, n);
	else
		rep_series_free(s, n);
	return rc;
}

int plot_svg_inline(char *doc, size_t *len)
{
	char *start = strstr(doc, "<svg");
	if (!start)
		return -1;
	*len -= (size_t)(start - doc);
	memmove(doc, start, *len + 1);
	return 0;
}
