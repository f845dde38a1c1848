// SPDX-License-Identifier: GPL-2.0-only
/*
 * Charts: gnuplot scripts from hand-made curves (the log axis switch, error
 * bars only with n >= 2, the peak and convergence markers, hostile labels,
 * the trend by run date) and, when gnuplot is installed, running them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/gnuplot.h"
#include "jobmix/intern.h"
#include "jobmix/plot.h"

/* The script for n curves, malloc'd; NULL when plot_script fails (err set). */
static char *script_of(const struct rep_series *s, size_t n, const struct plot_opts *o,
		       char *err, size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	int rc = plot_script(f, s, n, o, err, errlen);
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* A curve over users u[0..n) with JPM 1000 * users and the given sample counts. */
static struct rep_series curve(const char *label, const unsigned *u, const unsigned *nsamp,
			       size_t n)
{
	struct rep_series s;
	memset(&s, 0, sizeof(s));
	snprintf(s.label, sizeof(s.label), "%s", label);
	s.pt = calloc(n, sizeof(*s.pt));
	assert_non_null(s.pt);
	s.npt = n;
	for (size_t i = 0; i < n; i++) {
		s.pt[i].users = u[i];
		s.pt[i].n = nsamp ? nsamp[i] : 1;
		s.pt[i].mean = 1000.0 * u[i];
		s.pt[i].lo = s.pt[i].n >= 2 ? 990.0 * u[i] : NAN;
		s.pt[i].hi = s.pt[i].n >= 2 ? 1010.0 * u[i] : NAN;
	}
	s.peak_jpm = s.qc_jpm = NAN;
	return s;
}

static void free_curves(struct rep_series *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].pt);
}

/* Number of lines of text that start with prefix. */
static int lines_starting(const char *text, const char *prefix)
{
	int n = 0;
	size_t k = strlen(prefix);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		n += !strncmp(p, prefix, k);
	return n;
}

static void test_term_from_path(void **state)
{
	(void)state;
	enum plot_term t;
	assert_int_equal(plot_term_from_path("a/chart.png", &t), 0);
	assert_int_equal(t, PLOT_PNG);
	assert_int_equal(plot_term_from_path("CHART.SVG", &t), 0);
	assert_int_equal(t, PLOT_SVG);
	assert_int_equal(plot_term_from_path("chart.pdf", &t), -1);
	assert_int_equal(plot_term_from_path(".png", &t), -1);
	assert_int_equal(plot_term_from_path("png", &t), -1);
	assert_int_equal(plot_term_from_path(NULL, &t), -1);
}

/* The whole script for a small A/B: the golden expectation. */
static void test_golden_ab(void **state)
{
	(void)state;
	const unsigned u[] = { 1, 2, 4 }, n2[] = { 2, 2, 2 }, n1[] = { 1, 2, 1 };
	struct rep_series s[2] = { curve("A / mq-deadline", u, n2, 3), curve("A / bfq", u, n1, 3) };
	s[0].peak_users = 4;
	s[0].peak_jpm = 4000;
	s[0].qc_users = 2;
	s[0].qc_jpm = 2000;
	s[1].peak_users = 4;
	s[1].peak_jpm = 4000;
	struct plot_opts o = { .term = PLOT_SVG, .workload = "quick" };
	char err[256] = "";
	char *got = script_of(s, 2, &o, err, sizeof(err));
	assert_non_null(got);
	const char *want =
		"# jobmix plot: jobs per minute against users (generated; the data is inline; the image goes to stdout)\n"
		"reset\n"
		"set terminal svg size 960,600 noenhanced font 'sans,11' background rgb 'white'\n"
		"set termoption noenhanced\n"
		"set encoding utf8\n"
		"set title 'quick: jobs per minute against users'\n"
		"set grid\n"
		"set key outside below center vertical Left reverse maxrows 6\n"
		"set yrange [0:*]\n"
		"set xlabel 'users'\n"
		"set ylabel 'jobs per minute (JPM)'\n"
		"set xrange [0:5]\n"
		"set xtics 1\n"
		"set style line 1 linetype 1 linewidth 2 pointtype 7 pointsize 1\n"
		"set style line 2 linetype 2 linewidth 2 pointtype 7 pointsize 1\n"
		"$d0 << EOD\n"
		"1 1000 990 1010 2\n"
		"2 2000 1980 2020 2\n"
		"4 4000 3960 4040 2\n"
		"EOD\n"
		"$d1 << EOD\n"
		"1 1000 1000 1000 1\n"
		"2 2000 1980 2020 2\n"
		"4 4000 4000 4000 1\n"
		"EOD\n"
		"$d1_e << EOD\n"
		"2 2000 1980 2020 2\n"
		"EOD\n"
		"$peak << EOD\n"
		"4 4000 1\n"
		"4 4000 2\n"
		"EOD\n"
		"$qc << EOD\n"
		"2 2000 1\n"
		"EOD\n"
		"plot $d0 using 1:2:3:4 with yerrorlines ls 1 title 'A / mq-deadline', \\\n"
		"     $d1 using 1:2 with linespoints ls 2 title 'A / bfq', \\\n"
		"     $d1_e using 1:2:3:4 with yerrorbars ls 2 notitle, \\\n"
		"     $peak using 1:2:3 with points pointtype 6 pointsize 2.5 linewidth 2 linecolor variable notitle, \\\n"
		"     NaN with points pointtype 6 pointsize 2.5 linewidth 2 linecolor rgb 'black' title 'peak', \\\n"
		"     $qc using 1:2:3 with points pointtype 8 pointsize 2.5 linewidth 2 linecolor variable notitle, \\\n"
		"     NaN with points pointtype 8 pointsize 2.5 linewidth 2 linecolor rgb 'black' title 'quick convergence'\n";
	assert_string_equal(got, want);
	free(got);
	free_curves(s, 2);
}

/* The user axis turns logarithmic when max/min users exceeds 16. */
static void test_log_axis(void **state)
{
	(void)state;
	const struct {
		unsigned lo, hi;
		bool log;
	} cases[] = {
		{ 1, 16, false }, { 1, 17, true }, { 2, 32, false }, { 2, 33, true },
		{ 4, 4, false }, { 1, 1024, true }, { 100, 1600, false },
	};
	struct plot_opts o = { .term = PLOT_PNG, .workload = "w" };
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const unsigned u[] = { cases[i].lo, cases[i].hi };
		struct rep_series s = curve("r", u, NULL, 2);
		char err[256] = "";
		char *got = script_of(&s, 1, &o, err, sizeof(err));
		assert_non_null(got);
		if (cases[i].log != (lines_starting(got, "set logscale x 2\n") == 1))
			fail_msg("users %u..%u: log axis expected %d", cases[i].lo, cases[i].hi,
				 cases[i].log);
		/* Markers and the curves of every row decide the span, not one row. */
		free(got);
		free_curves(&s, 1);
	}
	/* Two rows: 1..8 and 8..64 together span 64x. */
	const unsigned a[] = { 1, 8 }, b[] = { 8, 64 };
	struct rep_series two[2] = { curve("a", a, NULL, 2), curve("b", b, NULL, 2) };
	char err[256];
	char *got = script_of(two, 2, &o, err, sizeof(err));
	assert_non_null(got);
	assert_int_equal(lines_starting(got, "set logscale x 2\n"), 1);
	free(got);
	free_curves(two, 2);
}

/* Error bars only on points with n >= 2 (and a finite sd). */
static void test_error_bars(void **state)
{
	(void)state;
	const unsigned u[] = { 1, 2, 3, 4 };
	struct plot_opts o = { .term = PLOT_PNG };
	char err[256];

	const unsigned none[] = { 1, 1, 1, 1 };
	struct rep_series s = curve("r", u, none, 4);
	char *got = script_of(&s, 1, &o, err, sizeof(err));
	assert_non_null(got);
	assert_null(strstr(got, "yerror"));
	assert_non_null(strstr(got, "$d0 using 1:2 with linespoints ls 1 title 'r'\n"));
	free(got);
	free_curves(&s, 1);

	const unsigned all[] = { 2, 3, 5, 2 };
	s = curve("r", u, all, 4);
	got = script_of(&s, 1, &o, err, sizeof(err));
	assert_non_null(got);
	assert_non_null(strstr(got, "$d0 using 1:2:3:4 with yerrorlines ls 1 title 'r'\n"));
	assert_null(strstr(got, "$d0_e"));
	free(got);
	/* n >= 2 with an unknown spread draws no bar. */
	s.pt[1].lo = NAN;
	got = script_of(&s, 1, &o, err, sizeof(err));
	assert_non_null(got);
	assert_non_null(strstr(got, "$d0_e << EOD\n1 1000 990 1010 2\n3 3000 2970 3030 5\n"
				    "4 4000 3960 4040 2\nEOD\n"));
	assert_non_null(strstr(got, "$d0_e using 1:2:3:4 with yerrorbars ls 1 notitle"));
	free(got);
	free_curves(&s, 1);

	const unsigned some[] = { 1, 2, 1, 0 };
	s = curve("r", u, some, 4);
	got = script_of(&s, 1, &o, err, sizeof(err));
	assert_non_null(got);
	assert_non_null(strstr(got, "$d0_e << EOD\n2 2000 1980 2020 2\nEOD\n"));
	assert_null(strstr(got, "yerrorlines"));
	free(got);
	free_curves(&s, 1);
}

/* The peak and the convergence point: distinct point types, named in the key. */
static void test_markers(void **state)
{
	(void)state;
	const unsigned u[] = { 1, 2, 4, 8 };
	struct rep_series s[2] = { curve("a", u, NULL, 4), curve("b", u, NULL, 4) };
	struct plot_opts o = { .term = PLOT_PNG };
	char err[256];

	/* No markers at all: neither block nor key entry. */
	char *got = script_of(s, 2, &o, err, sizeof(err));
	assert_non_null(got);
	assert_null(strstr(got, "$peak"));
	assert_null(strstr(got, "$qc"));
	free(got);

	s[0].peak_users = 4;
	s[0].peak_jpm = 4100.5;
	s[1].peak_users = 8;
	s[1].peak_jpm = 7999;
	s[1].qc_users = 8;
	s[1].qc_jpm = 7999;
	s[0].qc_users = 2;         /* a user count without a JPM: left out */
	got = script_of(s, 2, &o, err, sizeof(err));
	assert_non_null(got);
	/* each mark carries its row's linetype: drawn in the row's colour, the key in black */
	assert_non_null(strstr(got, "$peak << EOD\n4 4100.5 1\n8 7999 2\nEOD\n"));
	assert_non_null(strstr(got, "$qc << EOD\n8 7999 2\nEOD\n"));
	assert_non_null(strstr(got, "$peak using 1:2:3 with points pointtype 6 pointsize 2.5 "
				    "linewidth 2 linecolor variable notitle"));
	assert_null(strstr(got, "$peak using 1:2 with"));
	assert_non_null(strstr(got, "title 'peak'"));
	assert_non_null(strstr(got, "$qc using 1:2:3 with points pointtype 8 "));
	assert_non_null(strstr(got, "title 'quick convergence'\n"));
	free(got);

	o.qc_max = true;
	got = script_of(s, 2, &o, err, sizeof(err));
	assert_non_null(got);
	assert_non_null(strstr(got, "title 'quick convergence (max)'\n"));
	free(got);
	free_curves(s, 2);
}

/* Past 8 rows gnuplot's colours repeat: point and dash types tell the rows apart. */
static void test_many_rows(void **state)
{
	(void)state;
	const unsigned u[] = { 1, 2 };
	struct rep_series s[17];
	for (size_t i = 0; i < 17; i++)
		s[i] = curve("r", u, NULL, 2);
	struct plot_opts o = { .term = PLOT_PNG };
	char err[256];
	char *got = script_of(s, 17, &o, err, sizeof(err));
	assert_non_null(got);
	assert_non_null(strstr(got, "set style line 8 linetype 8 linewidth 2 pointtype 7 pointsize 1\n"));
	assert_non_null(strstr(got, "set style line 9 linetype 9 linewidth 2 dashtype 3 pointtype 5 pointsize 1\n"));
	assert_non_null(strstr(got, "set style line 17 linetype 17 linewidth 2 dashtype 4 pointtype 13 pointsize 1\n"));
	assert_non_null(strstr(got, "$d16 using 1:2 with linespoints ls 17 title 'r'"));
	free(got);
	free_curves(s, 17);
}

/* Curves without points are left out; nothing at all is an error. */
static void test_empty(void **state)
{
	(void)state;
	const unsigned u[] = { 1, 2 };
	struct rep_series s[2] = { curve("a", u, NULL, 2), curve("b", u, NULL, 2) };
	s[1].pt[0].mean = NAN;
	s[1].pt[1].mean = NAN;
	struct plot_opts o = { .term = PLOT_PNG, .workload = "w" };
	char err[256] = "";
	char *got = script_of(s, 2, &o, err, sizeof(err));
	assert_non_null(got);
	assert_null(strstr(got, "$d1"));
	assert_int_equal(lines_starting(got, "plot $d0 "), 1);
	free(got);
	s[0].pt[0].mean = NAN;
	s[0].pt[1].mean = NAN;
	assert_null(script_of(s, 2, &o, err, sizeof(err)));
	assert_non_null(strstr(err, "nothing to plot for workload w"));
	assert_null(script_of(NULL, 0, &o, err, sizeof(err)));
	free_curves(s, 2);
}

static void test_quote(void **state)
{
	(void)state;
	char q[64];
	plot_quote("plain", q, sizeof(q));
	assert_string_equal(q, "'plain'");
	plot_quote("it's", q, sizeof(q));
	assert_string_equal(q, "'it''s'");
	plot_quote("a_b^c{d}\"e\\f", q, sizeof(q));
	assert_string_equal(q, "'a_b^c{d}\"e\\f'");
	plot_quote("line\nnext\r\t\x7f", q, sizeof(q));
	assert_string_equal(q, "'line?next??" "?'");
	plot_quote("bad \xff\xc3 utf8 \xc3\xa9", q, sizeof(q));
	assert_string_equal(q, "'bad ?? utf8 \xc3\xa9'");
	plot_quote(NULL, q, sizeof(q));
	assert_string_equal(q, "''");
	/* Cut to fit, never inside a UTF-8 sequence or a doubled quote. */
	plot_quote("abc\xc3\xa9", q, 7);
	assert_string_equal(q, "'abc'");
	plot_quote("ab'c", q, 6);
	assert_string_equal(q, "'ab'");
	plot_quote("x", q, 2);
	assert_string_equal(q, "");
}

/*
 * Hostile labels: gnuplot command injection through quotes, newlines,
 * semicolons, backquotes; enhanced-text markup.  Every label stays inside
 * one quoted string on the plot command's lines.
 */
static const char *const hostile[] = {
	"x'; system('touch /tmp/jobmix-pwned-1'); print '",
	"x\nsystem 'touch /tmp/jobmix-pwned-2'\n",
	"`touch /tmp/jobmix-pwned-3`",
	"x\" . system(\"touch /tmp/jobmix-pwned-4\") . \"",
	"a_b^c{d}@e&f~g \\ \\n ; # EOD",
	"EOD\nsystem 'touch /tmp/jobmix-pwned-5'",
	"x\\'; system('touch /tmp/jobmix-pwned-6'); #",
};

static char *hostile_script(enum plot_term term, char *err, size_t errlen)
{
	const size_t n = sizeof(hostile) / sizeof(hostile[0]);
	struct rep_series s[sizeof(hostile) / sizeof(hostile[0])];
	const unsigned u[] = { 1, 2 };
	for (size_t i = 0; i < n; i++)
		s[i] = curve(hostile[i], u, NULL, 2);
	struct plot_opts o = { .term = term, .workload = "w'; system('touch /tmp/jobmix-pwned-7') #" };
	char *got = script_of(s, n, &o, err, errlen);
	free_curves(s, n);
	return got;
}

static void test_hostile_labels(void **state)
{
	(void)state;
	char err[256];
	char *got = hostile_script(PLOT_PNG, err, sizeof(err));
	assert_non_null(got);
	assert_int_equal(lines_starting(got, "system"), 0);
	assert_int_equal(lines_starting(got, "EOD"), 7);   /* the 7 curves' blocks only */
	assert_non_null(strstr(got, "set title 'w''; system(''touch /tmp/jobmix-pwned-7'') #: "));
	assert_non_null(strstr(got, "title 'x''; system(''touch /tmp/jobmix-pwned-1''); print '''"));
	assert_non_null(strstr(got, "title 'x?system ''touch /tmp/jobmix-pwned-2''?'"));
	/* gnuplot substitutes neither `...` nor @macros inside single quotes. */
	assert_non_null(strstr(got, "title '`touch /tmp/jobmix-pwned-3`'"));
	assert_non_null(strstr(got, "title 'x\" . system(\"touch /tmp/jobmix-pwned-4\") . \"'"));
	assert_non_null(strstr(got, "title 'a_b^c{d}@e&f~g \\ \\n ; # EOD'"));
	assert_non_null(strstr(got, "title 'EOD?system ''touch /tmp/jobmix-pwned-5'''"));
	assert_non_null(strstr(got, "title 'x\\''; system(''touch /tmp/jobmix-pwned-6''); #'"));
	free(got);
}

/* ---- the trend ------------------------------------------------------------ */

static struct res_rec *trend_runs(size_t n)
{
	struct res_rec *r = calloc(n, sizeof(*r));
	assert_non_null(r);
	for (size_t i = 0; i < n; i++) {
		res_rec_init(&r[i]);
		r[i].summary.peak_jpm = NAN;
		r[i].summary.max_jpm = NAN;
		r[i].summary.converge_jpm = NAN;
		r[i].summary.best_jpm = NAN;
	}
	return r;
}

static char *trend_script_of(const struct plot_trend *tr, size_t n, const struct plot_opts *o)
{
	char *buf = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	int rc = plot_trend_script(f, tr, n, o, err, sizeof(err));
	fclose(f);
	if (rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void test_trend(void **state)
{
	(void)state;
	struct res_rec *runs = trend_runs(6);
	const char *started[] = { "2026-11-30T02:00:00Z", "2026-11-28T02:00:00Z",
				  "2026-11-30T02:30:00Z", "not a date", "2026-11-29T02:00:00Z",
				  "2026-11-28T03:00:00Z" };
	const double peak[] = { 1000, 900, 1100, 5, NAN, 950 };
	const double maxj[] = { 1, 1, 1, 1, 800, 1 };
	const double qc[] = { 700, NAN, 900, 5, 600, 650 };
	for (size_t i = 0; i < 6; i++) {
		runs[i].started = util_istr(started[i]);
		runs[i].summary.peak_jpm = peak[i];
		runs[i].summary.max_jpm = maxj[i];
		runs[i].summary.converge_jpm = qc[i];
		runs[i].summary.best_jpm = qc[i] + 1;
	}
	size_t idx0[] = { 0, 1, 2, 3 }, idx1[] = { 4, 5 };
	struct rep_row rows[2];
	memset(rows, 0, sizeof(rows));
	rows[0].key[0] = "6.1";
	rows[0].key[1] = "bfq";
	rows[0].run = idx0;
	rows[0].nrun = 4;
	rows[1].key[0] = "6.2";
	rows[1].key[1] = NULL;
	rows[1].run = idx1;
	rows[1].nrun = 2;
	struct rep_table tb = { .workload = "fserver", .row = rows, .nrow = 2 };
	struct rep_report rep;
	memset(&rep, 0, sizeof(rep));
	rep.opts.by[0] = "kernel";
	rep.opts.by[1] = "scheduler";
	rep.opts.nby = 2;
	rep.runs = runs;
	rep.nruns = 6;
	rep.table = &tb;
	rep.ntable = 1;

	struct plot_trend *tr;
	size_t n;
	assert_int_equal(plot_trend_build(&rep, 1, &tr, &n), -1);
	assert_int_equal(plot_trend_build(&rep, 0, &tr, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(tr[0].label, "6.1 / bfq");
	assert_string_equal(tr[1].label, "6.2 / -");
	/* row 0: 11-28 (one run: 900, qc none), 11-30 (two runs folded); the bad date left out */
	assert_int_equal(tr[0].npt, 2);
	assert_string_equal(tr[0].pt[0].x, "2026-11-28");
	assert_int_equal(tr[0].pt[0].npeak, 1);
	assert_true(tr[0].pt[0].peak == 900 && isnan(tr[0].pt[0].peak_sd));
	assert_int_equal(tr[0].pt[0].nqc, 0);
	assert_true(isnan(tr[0].pt[0].qc));
	assert_string_equal(tr[0].pt[1].x, "2026-11-30");
	assert_int_equal(tr[0].pt[1].npeak, 2);
	assert_true(fabs(tr[0].pt[1].peak - 1050) < 1e-9);
	assert_true(fabs(tr[0].pt[1].peak_sd - sqrt(5000)) < 1e-9);
	assert_true(fabs(tr[0].pt[1].qc - 800) < 1e-9);
	/* row 1: a run without a peak uses its best point */
	assert_int_equal(tr[1].npt, 2);
	assert_string_equal(tr[1].pt[0].x, "2026-11-28");
	assert_string_equal(tr[1].pt[1].x, "2026-11-29");
	assert_true(tr[1].pt[1].peak == 800);

	struct plot_opts o = { .term = PLOT_SVG, .workload = "fserver" };
	char *got = trend_script_of(tr, n, &o);
	assert_non_null(got);
	assert_non_null(strstr(got, "set xdata time\n"));
	assert_non_null(strstr(got, "set timefmt '%Y-%m-%d'\n"));
	assert_non_null(strstr(got, "set xrange ['2026-11-27':'2026-12-01']\n"));
	assert_non_null(strstr(got, "$p0 << EOD\n2026-11-28 900 900 900 1\n2026-11-30 1050 "));
	assert_non_null(strstr(got, "$p0_e << EOD\n2026-11-30 1050 "));
	assert_non_null(strstr(got, "$q0 << EOD\n2026-11-30 800 "));
	assert_non_null(strstr(got, "title '6.1 / bfq: peak'"));
	assert_non_null(strstr(got, "title '6.1 / bfq: quick convergence'"));
	assert_non_null(strstr(got, "title '6.2 / -: peak'"));
	assert_non_null(strstr(got, "set title 'fserver: peak and quick convergence by run date'\n"));
	free(got);
	plot_trend_free(tr, n);

	/* --qc max: the ramp's maximum (max_jpm), as the report's table shows it */
	rep.opts.qc_max = true;
	runs[2].summary.max_jpm = 3;
	assert_int_equal(plot_trend_build(&rep, 0, &tr, &n), 0);
	assert_true(fabs(tr[0].pt[1].qc - 2) < 1e-9);
	assert_true(tr[1].pt[1].qc == 800);
	o.qc_max = true;
	got = trend_script_of(tr, n, &o);
	assert_non_null(got);
	assert_non_null(strstr(got, "title '6.1 / bfq: quick convergence (max)'"));
	free(got);
	plot_trend_free(tr, n);

	/* Nothing dated: an error, not an empty chart. */
	for (size_t i = 0; i < 6; i++)
		runs[i].started = "";
	assert_int_equal(plot_trend_build(&rep, 0, &tr, &n), 0);
	assert_null(trend_script_of(tr, n, &o));
	plot_trend_free(tr, n);
	free(runs);
}

/*
 * --order night: the trend's x is the label (numbers numerically: night 10
 * after night 9), and the change points jobmix history would find are
 * marked where they are; an A/A series (one level, noise) gets none.
 */
static void test_trend_order(void **state)
{
	(void)state;
	enum { N = 24 };
	struct res_rec *runs = trend_runs(N);
	struct res_kv lab[N];
	struct res_point pt[N];
	size_t idx[N];
	for (size_t i = 0; i < N; i++) {
		/* nights given out of order; a 20% fall from night 13 on; +-1% noise */
		unsigned night = (unsigned)((i * 7) % N) + 1;
		double noise = 1 + 0.01 * (double)((int)((night * 37) % 5) - 2) / 2;
		snprintf(lab[i].key, sizeof(lab[i].key), "night");
		snprintf(lab[i].value, sizeof(lab[i].value), "%u", night);
		runs[i].labels = &lab[i];
		runs[i].nlabels = 1;
		runs[i].status = RES_COMPLETE;
		memset(&pt[i], 0, sizeof(pt[i]));
		runs[i].points = &pt[i];
		runs[i].npoints = 1;
		runs[i].started = "2026-11-01T00:00:00Z";
		char id[16];
		snprintf(id, sizeof(id), "r%02zu", i);
		runs[i].id = util_istr(id);
		runs[i].summary.peak_jpm = (night >= 13 ? 800 : 1000) * noise;
		idx[i] = i;
	}
	struct rep_row row = { .run = idx, .nrun = N };
	row.key[0] = "vm";
	struct rep_table tb = { .workload = "fserver", .row = &row, .nrow = 1 };
	struct rep_report rep;
	memset(&rep, 0, sizeof(rep));
	rep.opts.by[0] = "hostname";
	rep.opts.nby = 1;
	rep.opts.series_order = "night";
	rep.runs = runs;
	rep.nruns = N;
	rep.table = &tb;
	rep.ntable = 1;
	struct plot_trend *tr;
	size_t n;
	assert_int_equal(plot_trend_build(&rep, 0, &tr, &n), 0);
	assert_int_equal(tr[0].npt, N);
	assert_string_equal(tr[0].pt[0].x, "1");
	assert_string_equal(tr[0].pt[9].x, "10");    /* not "10" after "1" as text */
	assert_string_equal(tr[0].pt[N - 1].x, "24");
	assert_int_equal(tr[0].ncp, 1);
	assert_string_equal(tr[0].cp[0].x, "13");
	assert_false(tr[0].cp[0].qc);
	assert_true(fabs(tr[0].cp[0].change + 0.2) < 0.01);
	struct plot_opts o = { .term = PLOT_SVG, .workload = "fserver", .order = "night" };
	char *got = trend_script_of(tr, n, &o);
	assert_non_null(got);
	assert_null(strstr(got, "set xdata time"));
	assert_non_null(strstr(got, "set xlabel 'night'\n"));
	assert_non_null(strstr(got, "set xrange [0.5:24.5]\n"));
	assert_non_null(strstr(got, "set xtics rotate by -30 ('1' 1, '2' 2, "));
	assert_non_null(strstr(got, "set arrow from 13, graph 0 to 13, graph 1 nohead"));
	assert_non_null(strstr(got, "set label 'vm peak -20.1%' at 13, graph 0.970"));
	assert_non_null(strstr(got, "set title 'fserver: peak and quick convergence by night'\n"));
	free(got);
	plot_trend_free(tr, n);

	/* A/A: the same level throughout, no change point, nothing marked */
	for (size_t i = 0; i < N; i++)
		runs[i].summary.peak_jpm = 1000 * (1 + 0.01 * (double)((int)((i * 37) % 5) - 2) / 2);
	assert_int_equal(plot_trend_build(&rep, 0, &tr, &n), 0);
	assert_int_equal(tr[0].ncp, 0);
	got = trend_script_of(tr, n, &o);
	assert_non_null(got);
	assert_null(strstr(got, "set arrow"));
	assert_null(strstr(got, "change point"));
	free(got);
	plot_trend_free(tr, n);

	/* by date: the change point marked at the first run's day after it */
	rep.opts.series_order = NULL;
	for (size_t i = 0; i < N; i++) {
		unsigned night = (unsigned)atoi(lab[i].value);
		char day[32];
		snprintf(day, sizeof(day), "2026-10-%02uT02:00:00Z", night);
		runs[i].started = util_istr(day);
		runs[i].summary.peak_jpm = night >= 13 ? 800 : 1000;
		runs[i].summary.peak_jpm *= 1 + 0.01 * (double)((int)((night * 37) % 5) - 2) / 2;
	}
	assert_int_equal(plot_trend_build(&rep, 0, &tr, &n), 0);
	assert_int_equal(tr[0].ncp, 1);
	assert_string_equal(tr[0].cp[0].x, "2026-10-13");
	o.order = NULL;
	got = trend_script_of(tr, n, &o);
	assert_non_null(got);
	assert_non_null(strstr(got, "set arrow from '2026-10-13', graph 0 to '2026-10-13', graph 1"));
	free(got);
	plot_trend_free(tr, n);
	free(runs);
}

/* ---- through the report module ------------------------------------------- */

/* A complete run of workload wl on kernel k: by_users 1, 2, 4 with JPM scale x users. */
static void mk_run(struct res_rec *r, const char *wl, const char *k, const char *started,
		   double scale)
{
	res_rec_init(r);
	char id[192];
	snprintf(id, sizeof(id), "%s-%s-%s", wl, k, started);
	r->id = util_istr(id);
	r->wl_name = util_istr(wl);
	r->started = util_istr(started);
	r->status = RES_COMPLETE;
	r->npoints_ok = 3;   /* read without its points: complete, as they said */
	r->schema_version = 1;
	r->nenv = 2;
	r->env = calloc(2, sizeof(*r->env));
	assert_non_null(r->env);
	snprintf(r->env[0].key, sizeof(r->env[0].key), "kernel");
	snprintf(r->env[0].value, sizeof(r->env[0].value), "%s", k);
	snprintf(r->env[1].key, sizeof(r->env[1].key), "scheduler");
	snprintf(r->env[1].value, sizeof(r->env[1].value), "bfq");
	r->summary.nby = 3;
	r->summary.by = calloc(3, sizeof(*r->summary.by));
	assert_non_null(r->summary.by);
	for (unsigned i = 0; i < 3; i++) {
		struct res_by_users *b = &r->summary.by[i];
		b->users = 1u << i;
		b->n = 1;
		b->samples = calloc(1, sizeof(double));
		assert_non_null(b->samples);
		b->samples[0] = b->jpm_mean = scale * b->users;
		b->jpm_sd = b->ci95_lo = b->ci95_hi = NAN;
	}
	assert_int_equal(res_summary_curve(&r->summary), 0);   /* as the reader makes it */
	r->summary.peak_jpm = r->summary.max_jpm = scale * 4;
	r->summary.peak_users = r->summary.max_jpm_users = 4;
	r->summary.peak_established = true;
}

static void test_report_script(void **state)
{
	(void)state;
	struct res_rec runs[4];
	mk_run(&runs[0], "fserver", "6.1", "2026-11-01T01:00:00Z", 1000);
	mk_run(&runs[1], "fserver", "6.1", "2026-11-01T02:00:00Z", 1100);
	mk_run(&runs[2], "fserver", "6.2", "2026-11-02T01:00:00Z", 900);
	mk_run(&runs[3], "dbase", "6.1", "2026-11-02T01:00:00Z", 500);
	struct rep_opts o = { 0 };
	struct rep_report rep;
	char err[1024] = "";
	assert_int_equal(rep_build(runs, 4, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 2);
	for (size_t t = 0; t < rep.ntable; t++) {
		char *text;
		size_t len;
		bool fs = !strcmp(rep.table[t].workload, "fserver");
		assert_int_equal(plot_report_script(&rep, t, false, PLOT_SVG, &text, &len, err,
						    sizeof(err)), 0);
		assert_int_equal(strlen(text), len);
		assert_non_null(strstr(text, fs ? "set title 'fserver: jobs per minute" :
						  "set title 'dbase: jobs per minute"));
		assert_non_null(strstr(text, "title '6.1 / bfq'"));
		if (fs) {
			/* the two 6.1 runs (1000, 1100) by the one centre: n = 2 at every user count */
			assert_non_null(strstr(text, "$d0 << EOD\n1 1048.808848 980.4541615 1121.929044 2\n"));
			assert_non_null(strstr(text, "with yerrorlines ls 1 title '6.1 / bfq'"));
			assert_non_null(strstr(text, "title '6.2 / bfq'"));
		}
		free(text);
		assert_int_equal(plot_report_script(&rep, t, true, PLOT_PNG, &text, &len, err,
						    sizeof(err)), 0);
		assert_non_null(strstr(text, "set xdata time"));
		if (fs)
			assert_non_null(strstr(text, "$p0 << EOD\n2026-11-01 4200 3917.157288 4482.842712 2\nEOD\n"));
		free(text);
		if (gp_available()) {
			assert_int_equal(gp_report_svg(&rep, t, &text, &len, err, sizeof(err)), 0);
			assert_true(!strncmp(text, "<svg", 4) && strstr(text, "6.1 / bfq"));
			free(text);
		}
	}
	assert_int_equal(plot_report_script(&rep, 2, false, PLOT_SVG, &(char *){ NULL },
					    &(size_t){ 0 }, err, sizeof(err)), -1);
	rep_free(&rep);
	for (size_t i = 0; i < 4; i++)
		res_rec_free(&runs[i]);
}

/* A run of workload "w" on kernel k measuring u[0..n) at JPM j[], its peak at peak users. */
static void mk_ramp(struct res_rec *r, const char *k, const char *id, enum res_status st,
		    const unsigned *u, const double *j, size_t n, unsigned peak)
{
	res_rec_init(r);
	r->id = util_istr(id);
	r->wl_name = util_istr("w");
	r->started = util_istr("2026-11-01T01:00:00Z");
	r->status = st;
	r->npoints_ok = (unsigned)n;
	r->schema_version = 1;
	r->nenv = 2;
	r->env = calloc(2, sizeof(*r->env));
	assert_non_null(r->env);
	snprintf(r->env[0].key, sizeof(r->env[0].key), "kernel");
	snprintf(r->env[0].value, sizeof(r->env[0].value), "%s", k);
	snprintf(r->env[1].key, sizeof(r->env[1].key), "scheduler");
	snprintf(r->env[1].value, sizeof(r->env[1].value), "bfq");
	r->summary.nby = n;
	r->summary.by = calloc(n, sizeof(*r->summary.by));
	assert_non_null(r->summary.by);
	for (size_t i = 0; i < n; i++) {
		struct res_by_users *b = &r->summary.by[i];
		b->users = u[i];
		b->n = 2;   /* two samples, +-1%: a run's point is their mean */
		b->samples = calloc(2, sizeof(double));
		assert_non_null(b->samples);
		b->samples[0] = j[i] * 0.99;
		b->samples[1] = j[i] * 1.01;
		b->jpm_mean = j[i];
		b->jpm_sd = b->ci95_lo = b->ci95_hi = NAN;
		if (u[i] == peak)
			r->summary.peak_jpm = r->summary.max_jpm = j[i];
	}
	assert_int_equal(res_summary_curve(&r->summary), 0);
	r->summary.peak_users = r->summary.max_jpm_users = peak;
	r->summary.peak_established = true;
}

/* The data line of block name at users (its text up to the newline), or NULL. */
static const char *block_line(const char *text, const char *name, unsigned users, char *buf,
			      size_t len)
{
	char head[64], at[32];
	snprintf(head, sizeof(head), "$%s << EOD\n", name);
	const char *b = strstr(text, head), *e;
	if (!b)
		return NULL;
	b += strlen(head);
	e = strstr(b, "\nEOD\n");
	snprintf(at, sizeof(at), "%u ", users);
	for (const char *p = b; p && p <= e; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, at, strlen(at))) {
			size_t n = (size_t)(strchr(p, '\n') - p);
			snprintf(buf, len, "%.*s", (int)n, p);
			return buf;
		}
	return NULL;
}

/*
 * The chart a person posts (issue 43): the peak mark is a point of its own
 * curve (the user count the runs name, the curve's value there), drawn in
 * the row's colour; no line across the counts a ramp skipped (4 -> 119);
 * an interrupted run the table leaves out is not drawn; a tested row's
 * label carries its change and interval, the reference says so.
 */
static void test_series_marks(void **state)
{
	(void)state;
	const unsigned u[] = { 1, 2, 3, 4, 119 }, ui[] = { 1, 2, 3, 4, 8, 119 };
	const double a[] = { 100, 200, 300, 400, 350 }, b[] = { 120, 240, 360, 480, 420 },
		     c[] = { 100, 200, 300, 4000, 5000, 350 }, d[] = { 90, 180, 270, 360, 315 };
	const double e[] = { 100, 200, 390, 380, 350 };
	struct res_rec runs[8];
	mk_ramp(&runs[0], "6.1", "a", RES_COMPLETE, u, a, 5, 4);
	mk_ramp(&runs[1], "6.1", "b", RES_COMPLETE, u, b, 5, 4);
	mk_ramp(&runs[2], "6.1", "c", RES_INTERRUPTED, ui, c, 6, 8);
	mk_ramp(&runs[3], "6.1", "e", RES_COMPLETE, u, e, 5, 3);   /* one run names 3: outvoted */
	mk_ramp(&runs[4], "6.2", "f", RES_COMPLETE, u, d, 5, 4);
	mk_ramp(&runs[5], "6.2", "g", RES_COMPLETE, u, d, 5, 4);
	mk_ramp(&runs[6], "6.2", "h", RES_COMPLETE, u, d, 5, 4);
	mk_ramp(&runs[7], "6.2", "i", RES_COMPLETE, u, b, 5, 4);
	struct rep_opts o = { .baseline = "kernel=6.1" };
	struct rep_report rep;
	char err[1024] = "", line[256], pk[256];
	assert_int_equal(rep_build(runs, 8, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 1);
	char *text;
	size_t len;
	assert_int_equal(plot_report_script(&rep, 0, false, PLOT_SVG, &text, &len, err,
					    sizeof(err)), 0);
	/* the interrupted run is not drawn: no 8 users, no 4000 JPM at 4 */
	assert_null(block_line(text, "d0", 8, line, sizeof(line)));
	assert_non_null(block_line(text, "d0", 4, line, sizeof(line)));
	double y4 = strtod(strchr(line, ' ') + 1, NULL);
	assert_true(y4 > 380 && y4 < 480);
	/* the mark: at 4 users (two runs of three name it), the curve's own value, row 1's colour */
	assert_non_null(block_line(text, "peak", 4, pk, sizeof(pk)));
	char want[128];
	snprintf(want, sizeof(want), "4 %.10g 1", y4);
	assert_string_equal(pk, want);
	/* 4 -> 119 is a jump: a blank line, gnuplot breaks the line there */
	assert_non_null(strstr(text, "\n\n119 "));
	assert_null(strstr(text, "\n\n2 "));
	/* the A/B labels: the change with its interval, the reference named */
	assert_non_null(strstr(text, "title '6.1 / bfq (reference)'"));
	const char *l2 = strstr(text, "title '6.2 / bfq: peak -");
	assert_non_null(l2);
	assert_non_null(strstr(l2, "% ["));
	free(text);
	rep_free(&rep);
	for (size_t i = 0; i < 8; i++)
		res_rec_free(&runs[i]);
	assert_true(plot_users_jump(4, 119, 1));
	assert_false(plot_users_jump(8, 16, 1));    /* a doubling ramp */
	assert_false(plot_users_jump(1, 11, 10));   /* a linear ramp by 10 */
	assert_false(plot_users_jump(4, 5, 1));
}

/* ---- running gnuplot (skipped without it) ------------------------------------ */

static void test_gnuplot_runs(void **state)
{
	(void)state;
	if (!gp_available())
		skip();
	const unsigned u[] = { 1, 2, 4, 64 }, ns[] = { 1, 3, 2, 1 };
	struct rep_series s = curve("A / x_y", u, ns, 4);
	s.peak_users = 64;
	s.peak_jpm = 64000;
	s.qc_users = 4;
	s.qc_jpm = 4000;
	char err[1024] = "";
	struct plot_opts o = { .term = PLOT_PNG, .workload = "w" };
	char *scr = script_of(&s, 1, &o, err, sizeof(err));
	assert_non_null(scr);
	char *img;
	size_t len;
	assert_int_equal(gp_run(scr, strlen(scr), 0, &img, &len, err, sizeof(err)), 0);
	assert_true(len > 8 && !memcmp(img, "\x89PNG\r\n\x1a\n", 8));
	free(img);
	free(scr);

	o.term = PLOT_SVG;
	scr = script_of(&s, 1, &o, err, sizeof(err));
	assert_non_null(scr);
	assert_int_equal(gp_render_svg(scr, &img, &len, err, sizeof(err)), 0);
	assert_true(len == strlen(img) && !strncmp(img, "<svg", 4));
	assert_non_null(strstr(img, "A / x_y"));
	assert_non_null(strstr(img, "</svg>"));
	free(img);
	free(scr);
	free_curves(&s, 1);

	/* The hostile labels run without running anything. */
	scr = hostile_script(PLOT_SVG, err, sizeof(err));
	assert_non_null(scr);
	assert_int_equal(gp_render_svg(scr, &img, &len, err, sizeof(err)), 0);
	free(img);
	free(scr);
	char pwned[64];
	for (int i = 1; i <= 7; i++) {
		snprintf(pwned, sizeof(pwned), "/tmp/jobmix-pwned-%d", i);
		if (access(pwned, F_OK) == 0)
			fail_msg("%s exists: a label ran a command", pwned);
	}
}

static void test_gnuplot_failures(void **state)
{
	(void)state;
	if (!gp_available())
		skip();
	char err[1024] = "", *out;
	size_t len;
	const char *bad = "set terminal svg\nplot $nothing using 1:2\n";
	assert_int_equal(gp_run(bad, strlen(bad), 0, &out, &len, err, sizeof(err)), GP_ERR);
	assert_null(out);
	assert_non_null(strstr(err, "gnuplot failed (exit status"));
	assert_non_null(strstr(err, "nothing"));   /* gnuplot's own message passed on */

	const char *none = "print 1\n";
	assert_int_equal(gp_run(none, strlen(none), 0, &out, &len, err, sizeof(err)), GP_ERR);
	assert_non_null(strstr(err, "gnuplot wrote no image"));

	/* gnuplot stops reading early: no SIGPIPE for us, its verdict stands. */
	size_t big = 4u << 20;
	char *early = malloc(big + 1);
	assert_non_null(early);
	memset(early, '#', big);
	memcpy(early, "exit\n", 5);
	early[big - 1] = '\n';
	early[big] = 0;
	assert_int_equal(gp_run(early, big, 0, &out, &len, err, sizeof(err)), GP_ERR);
	assert_non_null(strstr(err, "gnuplot wrote no image"));
	free(early);

	/* Killed at the deadline. */
	const char *slow = "pause 20\n";
	assert_int_equal(gp_run(slow, strlen(slow), 1, &out, &len, err, sizeof(err)), GP_ERR);
	assert_non_null(strstr(err, "no result after 1 s; killed"));

	/* Not on PATH. */
	char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	assert_false(gp_available());
	assert_int_equal(gp_run(none, strlen(none), 0, &out, &len, err, sizeof(err)),
			 GP_NOT_FOUND);
	assert_non_null(strstr(err, "gnuplot is not on PATH"));
	assert_int_equal(gp_render_svg(none, &out, &len, err, sizeof(err)), GP_NOT_FOUND);
	if (path)
		setenv("PATH", path, 1);
	free(path);
}

/*
 * gp_render_file judges the target before gnuplot runs (atomic.h): a link
 * to a regular file is refused even with no gnuplot on PATH, and left as
 * it was; a plain path with no gnuplot is GP_NOT_FOUND, nothing written.
 */
static void test_render_file_target(void **state)
{
	(void)state;
	char dir[] = "/tmp/jobmix-plot-XXXXXX", path[128], link[128], err[512];
	const char *script = "plot x\n";
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/real.png", dir);
	snprintf(link, sizeof(link), "%s/link.png", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("old", f);
	fclose(f);
	assert_int_equal(symlink(path, link), 0);
	char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	setenv("PATH", "/nonexistent", 1);
	assert_int_equal(gp_render_file(script, strlen(script), AT_FDCWD, link, NULL, err,
					sizeof(err)), GP_REFUSED);
	assert_non_null(strstr(err, "symbolic link"));
	char out[128];
	snprintf(out, sizeof(out), "%s/new.png", dir);
	assert_int_equal(gp_render_file(script, strlen(script), AT_FDCWD, out, NULL, err,
					sizeof(err)), GP_NOT_FOUND);
	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(access(out, F_OK), -1);
	unlink(link);
	unlink(path);
	assert_int_equal(rmdir(dir), 0);   /* no temp file left behind */
}

/* The SVG gnuplot writes, cut to its <svg element for inlining; no <svg: left as it was. */
static void test_svg_inline(void **state)
{
	(void)state;
	char doc[] = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg width=\"9\"><g/></svg>\n";
	size_t len = strlen(doc);
	assert_int_equal(plot_svg_inline(doc, &len), 0);
	assert_string_equal(doc, "<svg width=\"9\"><g/></svg>\n");
	assert_int_equal(len, strlen(doc));
	assert_int_equal(plot_svg_inline(doc, &len), 0);   /* already at the start: unchanged */
	assert_string_equal(doc, "<svg width=\"9\"><g/></svg>\n");
	char png[] = "\x89PNG not svg";
	size_t plen = strlen(png);
	assert_int_equal(plot_svg_inline(png, &plen), -1);
	assert_int_equal(plen, strlen("\x89PNG not svg"));
	assert_string_equal(png, "\x89PNG not svg");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_term_from_path),
		cmocka_unit_test(test_golden_ab),
		cmocka_unit_test(test_log_axis),
		cmocka_unit_test(test_error_bars),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_many_rows),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_svg_inline),
		cmocka_unit_test(test_hostile_labels),
		cmocka_unit_test(test_trend),
		cmocka_unit_test(test_trend_order),
		cmocka_unit_test(test_report_script),
		cmocka_unit_test(test_series_marks),
		cmocka_unit_test(test_gnuplot_runs),
		cmocka_unit_test(test_gnuplot_failures),
		cmocka_unit_test(test_render_file_target),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
