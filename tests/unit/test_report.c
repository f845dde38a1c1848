// SPDX-License-Identifier: GPL-2.0-only
/*
 * The report module on hand-made run records: grouping by keys and
 * folding of repeats, row order, missing values, the mark rules (Welch's t
 * with repeats, the measured noise with single runs, untested without one,
 * paired rounds, the four verdicts, the threshold, a baseline), tables per
 * fingerprint, each output format against a golden file in
 * tests/data/report (JM_UPDATE_GOLDEN=1 rewrites them), curves for charts,
 * and compare with Holm's correction, refusals and missing evidence (and out
 * of memory without a double free).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/intern.h"
#include "jobmix/plot.h"
#include "jobmix/report.h"
#include "jobmix/stats.h"

#define MAXRUNS 32

struct runset {
	struct res_rec run[MAXRUNS];
	size_t n;
};

/* One complete run: peak (0: none), qc (0: none), noise (0: none measured). */
static struct res_rec *mk(struct runset *s, const char *id, const char *wl, const char *kernel,
			  const char *sched, double peak, unsigned pu, bool est, double qc,
			  unsigned qu, double noise)
{
	assert_true(s->n < MAXRUNS);
	struct res_rec *r = &s->run[s->n++];
	res_rec_init(r);
	r->id = util_istr(id);
	char path[256];
	snprintf(path, sizeof(path), "/r/%s/run.json", id);
	assert_int_equal(res_rec_set_path(r, path), 0);
	r->wl_name = util_istr(wl);
	char started[32];
	snprintf(started, sizeof(started), "2026-11-%02zuT01:00:00Z", s->n);
	r->started = util_istr(started);
	r->status = RES_COMPLETE;
	r->schema_version = 1;
	r->nenv = 2;
	r->env = calloc(2, sizeof(*r->env));
	snprintf(r->env[0].key, sizeof(r->env[0].key), "kernel");
	snprintf(r->env[0].value, sizeof(r->env[0].value), "%s", kernel);
	snprintf(r->env[1].key, sizeof(r->env[1].key), "scheduler");
	snprintf(r->env[1].value, sizeof(r->env[1].value), "%s", sched ? sched : "");
	if (peak > 0) {
		r->summary.peak_jpm = peak;
		r->summary.peak_users = pu;
		r->summary.max_jpm = peak;
		r->summary.max_jpm_users = pu;
	}
	r->summary.peak_established = est;
	if (qc > 0) {
		r->summary.converge_jpm = qc;
		r->summary.converge_users = qu;
		r->summary.best_jpm = peak;
	}
	r->summary.converge_threshold = 60;
	/* one measured point: a complete run has one */
	r->npoints = 1;
	r->points = calloc(1, sizeof(*r->points));
	res_point_init(&r->points[0]);
	r->points[0].users = pu ? pu : 1;
	r->points[0].jpm = peak;
	if (noise > 0) {
		r->summary.noise_sd_rel = noise;
		r->summary.noise_df = 4;
	}
	return r;
}

/* by_users entries: users[i] with one sample each, jpm[i]. */
static void mk_curve(struct res_rec *r, const unsigned *users, const double *jpm, size_t n)
{
	r->summary.by = calloc(n, sizeof(*r->summary.by));
	r->summary.nby = n;
	for (size_t i = 0; i < n; i++) {
		struct res_by_users *b = &r->summary.by[i];
		b->users = users[i];
		b->n = 1;
		b->jpm_mean = jpm[i];
		b->samples = calloc(1, sizeof(double));
		b->samples[0] = jpm[i];
	}
	assert_int_equal(res_summary_curve(&r->summary), 0);   /* as the reader makes it */
}

static void set_label(struct res_rec *r, const char *k, const char *v)
{
	r->labels = realloc(r->labels, (r->nlabels + 1) * sizeof(*r->labels));
	snprintf(r->labels[r->nlabels].key, sizeof(r->labels[0].key), "%s", k);
	snprintf(r->labels[r->nlabels].value, sizeof(r->labels[0].value), "%s", v);
	r->nlabels++;
}

/* A setting of the run's workload (fp: part of its fingerprint), kept sorted by key. */
static void set_setting(struct res_rec *r, const char *k, const char *v, bool fp)
{
	r->settings = realloc(r->settings, (r->nsettings + 1) * sizeof(*r->settings));
	size_t i = r->nsettings;
	while (i > 0 && strcmp(r->settings[i - 1].key, k) > 0) {
		r->settings[i] = r->settings[i - 1];
		i--;
	}
	snprintf(r->settings[i].key, sizeof(r->settings[i].key), "%s", k);
	snprintf(r->settings[i].value, sizeof(r->settings[i].value), "%s", v);
	r->settings[i].fp = fp;
	r->nsettings++;
}

/* An A/B arm: its session and round. */
static void set_arm(struct res_rec *r, const char *session, unsigned round)
{
	r->have_sched = true;
	r->sched.round = round;
	r->session = util_istr(session);
}

static void free_set(struct runset *s)
{
	for (size_t i = 0; i < s->n; i++)
		res_rec_free(&s->run[i]);
	s->n = 0;
}

/* The classic example: two kernels, two schedulers, one regression. */
static void classic(struct runset *s)
{
	mk(s, "279446", "fserver", "2.6.0-test5", "deadline", 8950, 16, true, 8542, 412, 0.01);
	mk(s, "279444", "fserver", "2.6.0-test5", "as", 8785, 16, true, 8489, 410, 0.01);
	mk(s, "281816", "fserver", "2.6.0-test6", "deadline", 8302, 14, true, 7949, 380, 0.01);
	mk(s, "281817", "fserver", "2.6.0-test6", "as", 6934, 12, true, 6945, 330, 0.01);
}

static const struct rep_row *row_of(const struct rep_table *t, const char *k0, const char *k1)
{
	for (size_t j = 0; j < t->nrow; j++)
		if (!strcmp(t->row[j].key[0], k0) && (!k1 || !strcmp(t->row[j].key[1], k1)))
			return &t->row[j];
	fail_msg("no row %s/%s", k0, k1 ? k1 : "");
	return NULL;
}

static void test_group_and_marks(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	classic(&s);
	mk(&s, "other", "dbase", "2.6.0-test5", "deadline", 100, 1, true, 90, 2, 0.01);
	struct rep_opts o = { 0 };
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 2);   /* workloads never mixed, sorted by name */
	assert_string_equal(rep.table[0].workload, "dbase");
	const struct rep_table *t = &rep.table[1];
	assert_int_equal(t->nrow, 4);
	/* kernels in order of appearance, schedulers likewise */
	assert_string_equal(t->row[0].key[0], "2.6.0-test5");
	assert_string_equal(t->row[0].key[1], "deadline");
	assert_string_equal(t->row[1].key[1], "as");
	assert_string_equal(t->row[3].key[0], "2.6.0-test6");
	/* single runs with 1% measured noise: as is 1.8% worse than deadline in test5
	 * (under the 2% threshold, but the interval reaches past it: inconclusive),
	 * 16.5% worse in test6 (worse by the measured-noise rule) */
	assert_int_equal(t->row[0].tpeak.mark, REP_UNTESTED);
	assert_null(t->row[0].tpeak.why);   /* the reference: compared with nothing */
	assert_true(t->row[0].is_ref);
	assert_int_equal(t->row[1].tpeak.mark, REP_INCONCLUSIVE);
	assert_int_equal(t->row[1].tpeak.rule, 'z');
	assert_true(t->row[1].tpeak.lo < -0.02 && t->row[1].tpeak.hi > 0);
	assert_true(t->row[1].tpeak.need > 1);   /* more runs would decide it */
	assert_int_equal(t->row[3].tpeak.mark, REP_WORSE);
	assert_int_equal(t->row[3].tpeak.rule, 'z');
	assert_true(t->row[3].tpeak.hi < 0 && t->row[3].tpeak.lo > -1);
	assert_true(fabs(t->row[3].tpeak.change - (6934.0 / 8302 - 1)) < 1e-12);
	assert_true(t->row[3].tpeak.p_adj >= t->row[3].tpeak.p);   /* Holm over the table */
	assert_int_equal(t->row[3].tqc.mark, REP_WORSE);
	assert_int_equal(t->row[3].tpeak.ref, 2);
	rep_free(&rep);

	/* --sched-order puts "as" first: it becomes the reference */
	const char *order[] = { "as" };
	o.order = order;
	o.norder = 1;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	t = &rep.table[1];
	assert_string_equal(t->row[0].key[1], "as");
	assert_int_equal(t->row[3].tpeak.mark, REP_BETTER);
	rep_free(&rep);

	/* --baseline kernel=2.6.0-test5: each test6 row against test5's same scheduler */
	o.order = NULL;
	o.norder = 0;
	o.baseline = "kernel=2.6.0-test5";
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	t = &rep.table[1];
	const struct rep_row *d6 = row_of(t, "2.6.0-test6", "deadline");
	const struct rep_row *a6 = row_of(t, "2.6.0-test6", "as");
	assert_int_equal(d6->tpeak.mark, REP_WORSE);       /* 8302 vs 8950: -7.2% */
	assert_string_equal(t->row[d6->tpeak.ref].key[1], "deadline");
	assert_string_equal(t->row[a6->tpeak.ref].key[1], "as");
	assert_int_equal(row_of(t, "2.6.0-test5", "as")->tpeak.mark, REP_UNTESTED);
	rep_free(&rep);
	o.baseline = "kernel=9.9";
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "kernel=9.9"));
	o.baseline = "279446";   /* a run id */
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	t = &rep.table[1];
	assert_int_equal(row_of(t, "2.6.0-test6", "deadline")->tpeak.mark, REP_WORSE);
	assert_int_equal(row_of(t, "2.6.0-test6", "as")->tpeak.mark, REP_UNTESTED);  /* no "as" baseline */
	rep_free(&rep);
	free_set(&s);
}

static void test_fold_and_welch(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	/* three repeats a side: A 1000 +- 10, B 950 +- 10 (5% worse, clearly) */
	const double a[] = { 990, 1000, 1010 }, b[] = { 940, 950, 960 };
	for (int i = 0; i < 3; i++) {
		char id[16];
		snprintf(id, sizeof(id), "a%d", i);
		mk(&s, id, "w", "6.1", "mq-deadline", a[i], 8, true, 0, 0, 0);
		snprintf(id, sizeof(id), "b%d", i);
		mk(&s, id, "w", "6.1", "bfq", b[i], i == 2 ? 10 : 8, i != 1, 0, 0, 0);
	}
	struct rep_opts o = { 0 };
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	const struct rep_table *t = &rep.table[0];
	assert_int_equal(t->nrow, 2);
	const struct rep_row *ra = &t->row[0], *rb = &t->row[1];
	assert_int_equal(ra->nrun, 3);
	assert_int_equal(ra->peak.n, 3);
	/* one centre (docs/reports.md): the geometric mean, x/÷ the factor; sd the arithmetic */
	assert_true(fabs(ra->peak.mean - cbrt(990.0 * 1000 * 1010)) < 1e-9);
	assert_true(fabs(ra->peak.amean - 1000) < 1e-9);
	assert_true(fabs(ra->peak.sd - 10) < 1e-9);
	double l0 = log(990), l1 = log(1000), l2 = log(1010), lm = (l0 + l1 + l2) / 3;
	assert_true(fabs(ra->peak.gsd - exp(sqrt(((l0 - lm) * (l0 - lm) + (l1 - lm) * (l1 - lm) +
						 (l2 - lm) * (l2 - lm)) / 2))) < 1e-12);
	assert_string_equal(ra->id, "a0 +2");
	assert_false(ra->peak.not_established);
	assert_true(rb->peak.not_established);     /* one of its ramps established none */
	assert_int_equal(rb->peak.users_lo, 8);
	assert_int_equal(rb->peak.users_hi, 10);
	assert_int_equal(rb->tpeak.rule, 't');
	assert_int_equal(rb->tpeak.mark, REP_WORSE);
	assert_true(rb->tpeak.p < 0.01);
	assert_true(rb->tpeak.df > 3.9 && rb->tpeak.df < 4.1);
	/* the interval is of the ratio of geometric means: never below -100% */
	assert_true(rb->tpeak.lo > -0.09 && rb->tpeak.hi < -0.02);
	/* qc missing everywhere: n 0, mean NAN, nothing compared (no rule, no reason) */
	assert_int_equal(rb->qc.n, 0);
	assert_true(isnan(rb->qc.mean));
	assert_int_equal(rb->tqc.mark, REP_UNTESTED);
	assert_int_equal(rb->tqc.rule, 0);
	assert_null(rb->tqc.why);
	rep_free(&rep);
	/* a 20% threshold: the same 5%, its interval within +-20%, is the same */
	o.threshold = 0.2;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.table[0].row[1].tpeak.mark, REP_SAME);
	rep_free(&rep);
	/* --qc max: the ramp's maximum (summary.max_jpm), as re-aim's -q */
	o.threshold = 0;
	o.qc_max = true;
	s.run[0].summary.max_jpm = 1234;
	s.run[0].summary.max_jpm_users = 16;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.table[0].row[0].qc.n, 3);
	assert_true(fabs(rep.table[0].row[0].qc.x[0] - 1234) < 1e-9);
	assert_int_equal(rep.table[0].row[0].qc.users_hi, 16);
	rep_free(&rep);
	free_set(&s);
}

static void test_noise_rule(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	struct rep_opts o = { 0 };
	/* 6% apart, single runs: with 1% noise each measured by the runs: worse;
	 * with no noise measured there is nothing to test against: untested, no
	 * mark, no p-value (there used to be an assumed 5%) */
	mk(&s, "x", "w", "k", "a", 1000, 4, true, 0, 0, 0.01);
	mk(&s, "y", "w", "k", "b", 940, 4, true, 0, 0, 0.01);
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.table[0].row[1].tpeak.mark, REP_WORSE);
	assert_int_equal(rep.table[0].row[1].tpeak.rule, 'z');
	rep_free(&rep);
	s.run[0].summary.noise_sd_rel = NAN;
	s.run[1].summary.noise_sd_rel = NAN;
	s.run[0].summary.noise_df = s.run[1].summary.noise_df = 0;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	const struct rep_test *t = &rep.table[0].row[1].tpeak;
	assert_int_equal(t->mark, REP_UNTESTED);
	assert_int_equal(t->rule, 0);
	assert_true(isnan(t->p));
	assert_string_equal(t->why, "n=1, noise not measured");
	assert_true(isnan(rep.table[0].row[1].peak.noise));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(rep_render(f, &rep, REP_TEXT, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "untested (n=1, noise not measured)"));
	const char *rule = strstr(buf, "Marks:");   /* **** appears only where the rule is told */
	assert_non_null(rule);
	assert_true(strstr(buf, REP_MARK_WORSE) > rule);
	assert_null(strstr(strstr(buf, REP_MARK_WORSE) + 1, REP_MARK_WORSE));
	free(buf);
	rep_free(&rep);
	/* one side a single run, the other two 36% apart: the other side's spread
	 * decides, and it decides nothing (was QC -42.8% ****, p = 2e-15) */
	free_set(&s);
	mk(&s, "x1", "w", "k", "a", 40152, 4, true, 0, 0, 0);
	mk(&s, "x2", "w", "k", "a", 27800, 4, true, 0, 0, 0);
	mk(&s, "y", "w", "k", "b", 23666, 4, true, 0, 0, 0);
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	t = &rep.table[0].row[1].tpeak;
	assert_int_equal(t->rule, 'o');
	assert_true(t->p > 0.1);
	assert_int_equal(t->mark, REP_INCONCLUSIVE);
	assert_true(t->lo > -1 && t->hi > 0);
	rep_free(&rep);
	free_set(&s);
}

static void test_labels_and_status(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	struct rep_opts o = { 0 };
	struct res_rec *r = mk(&s, "x", "w", "6.1", "mq-deadline", 1000, 4, false, 0, 0, 0);
	set_label(r, "scheduler", "bfq");   /* labels override the recorded env */
	set_label(r, "run_id", "night-1");
	r->status = RES_INTERRUPTED;
	r = mk(&s, "y", "w", "6.1", NULL, 0, 0, false, 0, 0, 0);   /* no peak, no scheduler */
	r->status = RES_FAILED;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	const struct rep_table *t = &rep.table[0];
	assert_int_equal(t->nrow, 2);
	assert_string_equal(t->row[0].key[1], "bfq");
	assert_string_equal(t->row[0].status, "interrupted");
	assert_string_equal(t->row[1].key[1], "-");
	assert_string_equal(t->row[1].status, "failed");
	assert_int_equal(t->row[1].peak.n, 0);
	assert_int_equal(t->row[1].tpeak.mark, REP_UNTESTED);
	rep_free(&rep);
	/* --by any label or env field */
	o.by[0] = "run_id";
	o.nby = 1;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.table[0].nrow, 2);
	assert_string_equal(rep.table[0].row[0].key[0], "night-1");
	rep_free(&rep);
	free_set(&s);
}

/* Render to a string. */
static char *render(const struct rep_report *rep, enum rep_format fmt, const char *const *svg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rep_render(f, rep, fmt, svg), 0);
	fclose(f);
	return buf;
}

/* Compare text with tests/data/report/<name>, or rewrite it with JM_UPDATE_GOLDEN=1. */
static void golden(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "tests/data/report/%s", name);
	if (getenv("JM_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
		return;
	}
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("golden file %s missing (run with JM_UPDATE_GOLDEN=1)", path);
	static char want[65536];
	size_t n = fread(want, 1, sizeof(want) - 1, f);
	want[n] = 0;
	fclose(f);
	if (strcmp(want, text))
		print_error("%s differs; got:\n%s\n", path, text);
	assert_string_equal(want, text);
}

static void test_formats_golden(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	classic(&s);
	/* a folded pair with a missing convergence and a hostile label */
	mk(&s, "r1", "fserver", "6.1", "bfq", 9000, 20, true, 0, 0, 0.02);
	struct res_rec *r = mk(&s, "r2", "fserver", "6.1", "bfq", 9100, 24, false, 0, 0, 0.02);
	set_label(r, "note", "a,\"b\"<c>&");
	struct rep_opts o = { 0 };
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	static const struct { enum rep_format f; const char *name; } fm[] = {
		{ REP_TEXT, "classic.txt" }, { REP_MD, "classic.md" }, { REP_CSV, "classic.csv" },
		{ REP_JSON, "classic.json" }, { REP_HTML, "classic.html" },
	};
	const char *svg[] = { "<?xml version=\"1.0\"?>\n<svg width=\"10\"><text>c</text></svg>" };
	for (size_t i = 0; i < sizeof(fm) / sizeof(fm[0]); i++) {
		char *out = render(&rep, fm[i].f, fm[i].f == REP_HTML ? svg : NULL);
		golden(fm[i].name, out);
		if (fm[i].f == REP_TEXT) {
			/* the reference's shape: kernel printed once per group, **** on the regression */
			assert_non_null(strstr(out, "Kernel Version  IO Scheduler  Run ID"));
			const char *l = strstr(out, "\n2.6.0-test6");
			assert_non_null(l);
			const char *next = strchr(l + 1, '\n');
			assert_non_null(strstr(next, "281817"));
			assert_true(next[1] == ' ');   /* the kernel is not repeated */
			assert_non_null(strstr(next, REP_MARK_WORSE));
			assert_non_null(strstr(out, "9050 ×/÷ 1.008?"));   /* folded (one centre), not established */
		}
		if (fm[i].f == REP_HTML) {
			assert_non_null(strstr(out, "<svg width=\"10\">"));
			assert_null(strstr(out, "<?xml"));
			assert_null(strstr(out, "http"));   /* self-contained */
		}
		free(out);
	}
	rep_free(&rep);
	/* the label as a key: escaped in every format */
	o.by[0] = "note";
	o.nby = 1;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	char *csv = render(&rep, REP_CSV, NULL);
	assert_non_null(strstr(csv, "\"a,\"\"b\"\"<c>&\""));
	free(csv);
	char *html = render(&rep, REP_HTML, NULL);
	assert_non_null(strstr(html, "a,&quot;b&quot;&lt;c&gt;&amp;"));
	assert_null(strstr(html, "<c>"));
	free(html);
	rep_free(&rep);
	free_set(&s);
}

/* No byte of out would drive a terminal: no C0 but newline, no DEL, no C1 (raw or UTF-8). */
static void no_controls(const char *what, const char *out)
{
	for (const unsigned char *p = (const unsigned char *)out; *p; p++) {
		bool c1 = *p >= 0x80 && *p < 0xa0 && (p == (const unsigned char *)out ||
						      p[-1] == 0xc2 || p[-1] < 0x80);
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f || c1)
			fail_msg("%s: control byte 0x%02x at offset %td", what, *p,
				 (const char *)p - out);
	}
}

/* The strings of the hostile runs (each reaches the report through another field). */
#define H_WL "w\033[2J|x"                          /* the workload name */
#define H_KERNEL "6.1\033]0;owned\007"             /* an OSC title */
#define H_SCHED "bfq\r\nfake | row"                /* CR, newline, a pipe */
#define H_ID "=cmd|' /C calc'!A0"                 /* a spreadsheet formula, as run id */
#define H_NOTE "\xc2\x9b" "31m<b>[x](y)`z`\\ @SUM(1)" /* C1 CSI, markup, backslash */

static void hostile(struct runset *s)
{
	struct res_rec *r = mk(s, "base", H_WL, "6.0", "mq-deadline", 1000, 4, true, 900, 8, 0.01);
	set_label(r, "note", "plain");
	r = mk(s, "x", H_WL, H_KERNEL, H_SCHED, 800, 4, true, 700, 8, 0.01);
	r->id = util_istr(H_ID);   /* as the reader sets it from run_id */
	set_label(r, "note", H_NOTE);
}

/*
 * A run whose workload name, kernel, scheduler, run id and a label hold
 * ESC [2J, an OSC title sequence, CR, newline, '|', a C1 CSI and
 * "=cmd|' /C calc'!A0": each format against its golden file
 * (tests/data/report/hostile.*), none with a raw control character, the
 * Markdown table one line per row, the CSV one record per line with the
 * formula cell neutralised; compare's formats likewise.
 */
static void test_hostile_golden(void **state)
{
	(void)state;
	struct runset s = { 0 }, b = { 0 };
	struct rep_report rep;
	char err[256];
	hostile(&s);
	struct rep_opts o = { .by = { "kernel", "scheduler", "note" }, .nby = 3 };
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	static const struct { enum rep_format f; const char *name; } fm[] = {
		{ REP_TEXT, "hostile.txt" }, { REP_MD, "hostile.md" }, { REP_CSV, "hostile.csv" },
		{ REP_JSON, "hostile.json" }, { REP_HTML, "hostile.html" },
	};
	for (size_t i = 0; i < sizeof(fm) / sizeof(fm[0]); i++) {
		char *out = render(&rep, fm[i].f, NULL);
		golden(fm[i].name, out);
		no_controls(fm[i].name, out);
		if (fm[i].f == REP_TEXT) {
			assert_non_null(strstr(out, "w\\x1b[2J|x: Maximum Jobs Per Minute"));
			assert_non_null(strstr(out, "6.1\\x1b]0;owned\\x07"));
			assert_non_null(strstr(out, "bfq\\x0d\\x0afake | row"));
			assert_non_null(strstr(out, "\\u009b31m"));
		}
		if (fm[i].f == REP_MD) {
			assert_non_null(strstr(out, "### w\\x1b\\[2J\\|x: Maximum"));
			assert_non_null(strstr(out, "bfq\\x0d\\x0afake \\| row"));
			assert_non_null(strstr(out, "\\<b>\\[x\\](y)\\`z\\`\\\\ @SUM(1)"));
			/* the table: a header, its rule, two rows, each with 13 columns' pipes */
			size_t rows = 0;
			for (const char *l = strstr(out, "\n|"); l; l = strstr(l + 1, "\n|")) {
				size_t pipes = 0;
				for (const char *c = l + 1; *c && *c != '\n'; c++)
					pipes += *c == '|' && c[-1] != '\\';
				assert_int_equal(pipes, 3 + 9 + 1);
				rows++;
			}
			assert_int_equal(rows, 4);
		}
		if (fm[i].f == REP_CSV) {
			size_t lines = 0;
			for (const char *c = out; *c; c++)
				lines += *c == '\n';
			assert_int_equal(lines, 3);   /* header and two runs */
			assert_non_null(strstr(out, ",'=cmd|' /C calc'!A0,"));   /* the formula */
			assert_non_null(strstr(out, ",\\u009b31m<b>"));   /* '@' not first: as is */
			assert_non_null(strstr(out, "\nw\\x1b[2J|x,"));   /* no ',' or '"': bare */
		}
		if (fm[i].f == REP_JSON)
			assert_non_null(strstr(out, "\\u001B[2J|x"));   /* jansson, ASCII only */
		if (fm[i].f == REP_HTML)
			assert_non_null(strstr(out, "\\u009b31m&lt;b&gt;"));
		free(out);
	}
	rep_free(&rep);

	/* compare: the workload name in its title and rows */
	struct res_rec *r = mk(&b, "c", H_WL, "6.2", "bfq", 990, 4, true, 880, 8, 0.01);
	(void)r;
	struct rep_cmp c;
	struct rep_opts co = { .allow_diff = { "kernel", "scheduler" }, .nallow = 2 };
	assert_int_equal(rep_compare(s.run, s.n, b.run, b.n, &co, &c, err, sizeof(err)), 0);
	static const struct { enum rep_format f; const char *name; } cf[] = {
		{ REP_TEXT, "hostile-cmp.txt" }, { REP_MD, "hostile-cmp.md" },
		{ REP_CSV, "hostile-cmp.csv" }, { REP_JSON, "hostile-cmp.json" },
	};
	for (size_t i = 0; i < sizeof(cf) / sizeof(cf[0]); i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		assert_non_null(f);
		assert_int_equal(rep_cmp_render(f, &c, cf[i].f), 0);
		fclose(f);
		golden(cf[i].name, buf);
		no_controls(cf[i].name, buf);
		free(buf);
	}
	rep_cmp_free(&c);
	free_set(&s);
	free_set(&b);
}

/*
 * One fileio run of the IOPS experiment: labels io, bs, test; its one
 * point with a mix entry "rw" doing iops and taking elapsed seconds.
 */
static struct res_rec *mk_io(struct runset *s, const char *id, const char *wl, const char *io,
			     const char *bs, const char *test, double iops, double elapsed)
{
	struct res_rec *r = mk(s, id, wl, "6.1", "none", 1000, 16, true, 0, 0, 0);
	set_label(r, "io", io);
	set_label(r, "bs", bs);
	set_label(r, "test", test);
	struct res_point *p = &r->points[0];
	p->elapsed_s = elapsed;
	p->nkinds = 1;
	p->kinds = calloc(1, sizeof(*p->kinds));
	snprintf(p->kinds[0].name, sizeof(p->kinds[0].name), "rw");
	snprintf(p->kinds[0].job, sizeof(p->kinds[0].job), "fileio");
	p->kinds[0].iops = iops;
	p->kinds[0].p99_ms = 16000 / iops;
	return r;
}

/*
 * The IOPS experiment's table, in two workloads: buffered/direct x 16k/4k
 * rows, read and write columns; 4k does more IOPS (better) and takes
 * longer (elapsed, lower is better: worse); direct 4k writes the same.
 */
static void iops_runs(struct runset *s)
{
	static const char *const wl[] = { "fileio-a", "fileio-b" };
	static const char *const io[] = { "buffered", "direct" };
	char id[32];
	for (int w = 0; w < 2; w++)
		for (int i = 0; i < 2; i++)
			for (int k = 0; k < 2; k++) {   /* two repeats */
				double d = k ? 1.002 : 0.998, f = w ? 1.1 : 1;
				snprintf(id, sizeof(id), "%c%c%d", wl[w][7], io[i][0], k);
				mk_io(s, id, wl[w], io[i], "16k", "read", 1000 * d * f, 2.0 * d);
				mk_io(s, id, wl[w], io[i], "16k", "write", 800 * d * f, 2.5 * d);
				mk_io(s, id, wl[w], io[i], "4k", "read", 3000 * d * f, 2.6 * d);
				mk_io(s, id, wl[w], io[i], "4k", "write",
				      (i ? 800 : 2000) * d * f, 2.5 * d);
			}
}

/* The cell of row (k0, k1) under column title col. */
static const struct rep_cell *cell_of(const struct rep_table *t, const char *k0, const char *k1,
				      const char *col)
{
	size_t j = (size_t)(row_of(t, k0, k1) - t->row);
	for (size_t c = 0; c < t->pv->ncol; c++)
		if (!strcmp(t->pv->col[c].title, col))
			return &t->pv->cell[j * t->pv->ncol + c];
	fail_msg("no column %s", col);
	return NULL;
}

/*
 * --by io,bs --cols test with a higher-is-better and a lower-is-better
 * metric: each format against its golden file (tests/data/report/pivot.*);
 * the marks follow each metric's direction, the reference is bs=16k with
 * the same io (not the other test: the old default compared WRITE with
 * READ), and the geometric mean over the two workloads is the product's root.
 */
static void test_pivot_golden(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[512];
	iops_runs(&s);
	struct rep_opts o = { .by = { "io", "bs" }, .nby = 2, .cols = { "test" }, .ncols = 1,
			      .metric = { "rw.iops", "elapsed" }, .nmetric = 2 };
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 2);
	const struct rep_table *t = &rep.table[0];
	assert_non_null(t->pv);
	assert_int_equal(t->pv->ncol, 4);
	assert_string_equal(t->pv->col[0].title, "read rw.iops");
	assert_string_equal(t->pv->col[1].title, "read elapsed");
	assert_string_equal(t->pv->col[2].title, "write rw.iops");
	/* 4k reads: +200% IOPS better, +30% elapsed worse; against 16k of the same io */
	const struct rep_cell *c = cell_of(t, "buffered", "4k", "read rw.iops");
	assert_true(c->compared);
	assert_int_equal(c->t.mark, REP_BETTER);
	assert_string_equal(t->row[c->t.ref].key[1], "16k");
	assert_string_equal(t->row[c->t.ref].key[0], "buffered");
	assert_true(fabs(c->t.change - 2.0) < 1e-9);
	c = cell_of(t, "buffered", "4k", "read elapsed");
	assert_int_equal(c->t.mark, REP_WORSE);
	assert_true(fabs(c->t.change - 0.3) < 1e-9);
	c = cell_of(t, "direct", "4k", "write rw.iops");
	assert_int_equal(c->t.mark, REP_SAME);
	assert_false(cell_of(t, "direct", "16k", "write rw.iops")->compared);
	/* a rate's repeats fold into the one centre, the geometric mean (not the harmonic) */
	c = cell_of(t, "buffered", "16k", "read rw.iops");
	assert_true(fabs(c->v.mean - sqrt(998.0 * 1002)) < 1e-6);
	/* the gmean over the two workloads: each workload's ratio is the same, 3 */
	bool seen = false;
	for (size_t i = 0; i < rep.ngm; i++)
		if (!strcmp(rep.gm[i].label, "buffered / 4k") &&
		    !strcmp(rep.gm[i].col, "read rw.iops")) {
			assert_int_equal(rep.gm[i].n, 2);
			assert_true(fabs(rep.gm[i].ratio - 3.0) < 1e-9);
			assert_true(rep.gm[i].lo < 3.0 && rep.gm[i].hi > 3.0);
			seen = true;
		}
	assert_true(seen);
	static const struct { enum rep_format f; const char *name; } fm[] = {
		{ REP_TEXT, "pivot.txt" }, { REP_MD, "pivot.md" }, { REP_CSV, "pivot.csv" },
		{ REP_JSON, "pivot.json" }, { REP_HTML, "pivot.html" },
	};
	for (size_t i = 0; i < sizeof(fm) / sizeof(fm[0]); i++) {
		char *out = render(&rep, fm[i].f, NULL);
		golden(fm[i].name, out);
		free(out);
	}
	/* the chart: grouped bars, a group per row, a bar per column, sd error bars, units */
	char *sc = NULL;
	size_t sl = 0;
	FILE *pf = open_memstream(&sc, &sl);
	struct plot_opts po = { .term = PLOT_SVG, .workload = "fileio-a" };
	assert_int_equal(plot_pivot_script(pf, &rep, 0, &po, err, sizeof(err)), 0);
	fclose(pf);
	assert_non_null(strstr(sc, "set style histogram errorbars"));
	assert_non_null(strstr(sc, "set ylabel 'ops/s, s'"));
	assert_non_null(strstr(sc, "\"buffered / 4k\" 2999.994"));
	assert_non_null(strstr(sc, "'' using 8:9 title 'write elapsed'"));
	assert_null(strstr(sc, "using 10:11"));
	free(sc);
	char *script = NULL;
	assert_int_equal(plot_report_script(&rep, 1, false, PLOT_PNG, &script, &sl, err,
					    sizeof(err)), 0);
	assert_non_null(strstr(script, "histogram"));
	free(script);
	rep_free(&rep);

	/* --ref test=read: each write cell against the read cell of its own row */
	o.ref = "test=read";
	o.nmetric = 1;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	t = &rep.table[0];
	c = cell_of(t, "buffered", "4k", "write");
	assert_true(c->compared);
	assert_string_equal(t->pv->col[c->ref_col].title, "read");
	assert_true(fabs(c->t.change - (2000.0 / 3000 - 1)) < 1e-2);
	assert_false(cell_of(t, "buffered", "4k", "read")->compared);
	rep.opts.wide = true;   /* the notes whole, one a line */
	char *out = render(&rep, REP_TEXT, NULL);
	assert_non_null(strstr(out, "Marks: each cell against the cell with test=read and the same "
				    "io, bs, metric (the reference column"));
	free(out);
	rep_free(&rep);
	/* a --ref key that is neither rows nor columns; a metric that is none */
	o.ref = "sync=none";
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--ref"));
	o.ref = NULL;
	o.metric[0] = "rw.jpm_s";
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not a metric"));
	free_set(&s);
}

/*
 * compare --metric: IOPS down 20% and elapsed up 25% in both workloads:
 * both worse (elapsed by its direction, lower is better), an A/A night
 * quiet, and the geometric mean over the two workloads 0.8 and 1.25.
 */
static void test_compare_metrics(void **state)
{
	(void)state;
	struct runset a = { 0 }, b = { 0 }, a2 = { 0 };
	static const char *const wl[] = { "fileio-a", "fileio-b" };
	for (int w = 0; w < 2; w++)
		for (int k = 0; k < 3; k++) {
			double d = 1 + 0.002 * (k - 1);
			mk_io(&a, "a", wl[w], "direct", "4k", "read", 1000 * d, 2.0 * d);
			mk_io(&a2, "a2", wl[w], "direct", "4k", "read", 1000 / d, 2.0 / d);
			mk_io(&b, "b", wl[w], "direct", "4k", "read", 800 * d, 2.5 * d);
		}
	struct rep_opts o = { .metric = { "rw.iops", "elapsed" }, .nmetric = 2 };
	struct rep_cmp c;
	char err[512];
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrow, 4);
	for (size_t i = 0; i < c.nrow; i++) {
		bool el = !strcmp(c.row[i].metric, "elapsed");
		assert_true(el || !strcmp(c.row[i].metric, "rw.iops"));
		assert_int_equal(c.row[i].lower_better, el);
		assert_int_equal(c.row[i].t.mark, REP_WORSE);
	}
	assert_int_equal(c.worse, 4);
	assert_int_equal(c.ngm, 2);
	for (size_t i = 0; i < c.ngm; i++) {
		double want = !strcmp(c.gm[i].col, "elapsed") ? 1.25 : 0.8;
		assert_int_equal(c.gm[i].n, 2);
		assert_true(fabs(c.gm[i].ratio - want) < 1e-6);
		assert_true(c.gm[i].lo < want && c.gm[i].hi > want);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(rep_cmp_render(f, &c, REP_TEXT), 0);
	fclose(f);
	golden("cmp-metric.txt", buf);
	free(buf);
	rep_cmp_free(&c);
	/* A/A: the same figures both sides (mirrored noise): nothing worse or better */
	assert_int_equal(rep_compare(a.run, a.n, a2.run, a2.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.worse + c.better, 0);
	rep_cmp_free(&c);
	free_set(&a);
	free_set(&a2);
	free_set(&b);
}

/* Every metric reads a field the results schema has, and says its unit. */
static void test_metric_table(void **state)
{
	(void)state;
	size_t n = 0;
	for (const struct rep_metric *m = rep_metrics; m->name; m++, n++) {
		const struct rep_metric *got;
		char entry[64], err[512], name[96];
		snprintf(name, sizeof(name), "%s%s", m->src == REP_MS_ENTRY ? "w1." : "", m->name);
		assert_int_equal(rep_metric_parse(name, &got, entry, sizeof(entry), err,
						  sizeof(err)), 0);
		assert_ptr_equal(got, m);
		assert_string_equal(entry, m->src == REP_MS_ENTRY ? "w1" : "");
		assert_non_null(m->unit);
		assert_true(m->unit[0]);
		if (m->src != REP_MS_DEV)
			continue;
		/* a device's metric names one of several: dev.loop3.iops, blk.loop3.dev_p99_ms */
		const char *dot = strchr(m->name, '.');
		snprintf(name, sizeof(name), "%.*s.loop3%s", (int)(dot - m->name), m->name, dot);
		assert_int_equal(rep_metric_parse(name, &got, entry, sizeof(entry), err,
						  sizeof(err)), 0);
		assert_ptr_equal(got, m);
		assert_string_equal(entry, "loop3");
	}
	assert_true(n >= 18);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(rep_metrics_render(f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "ENTRY.read_mb_s"));
	assert_non_null(strstr(buf, "points[].elapsed_s"));
	free(buf);
}

static void test_series(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	const unsigned u[] = { 1, 2, 4 };
	const double j1[] = { 100, 180, 200 }, j2[] = { 110, 190, 220 };
	mk_curve(mk(&s, "a", "w", "k", "s", 200, 4, true, 150, 8, 0), u, j1, 3);
	mk_curve(mk(&s, "b", "w", "k", "s", 220, 4, true, 0, 0, 0), u, j2, 2);
	struct rep_opts o = { 0 };
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	struct rep_series *se;
	size_t n;
	assert_int_equal(rep_series(&rep, 0, &se, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(se[0].label, "k / s");
	assert_int_equal(se[0].npt, 3);
	assert_int_equal(se[0].pt[0].users, 1);
	assert_int_equal(se[0].pt[0].n, 2);
	/* the one centre of the runs' points, bars x/÷ their spread factor */
	assert_true(fabs(se[0].pt[0].mean - sqrt(100.0 * 110)) < 1e-9);
	double fac = exp(fabs(log(110.0 / 100)) / sqrt(2));
	assert_true(fabs(se[0].pt[0].hi - sqrt(100.0 * 110) * fac) < 1e-6);
	assert_int_equal(se[0].pt[2].n, 1);
	assert_true(isnan(se[0].pt[2].lo));
	/* the marks are points of the curve: at 4 only run a measured, 200 */
	assert_int_equal(se[0].peak_users, 4);
	assert_true(fabs(se[0].peak_jpm - 200) < 1e-9);
	assert_int_equal(se[0].qc_users, 0);   /* 8 users: no point of the curve */
	rep_series_free(se, n);
	rep_free(&rep);
	free_set(&s);
}

static void test_compare(void **state)
{
	(void)state;
	struct runset a = { 0 }, b = { 0 };
	struct rep_cmp c;
	char err[256];
	struct rep_opts o = { 0 };
	const unsigned u[] = { 1, 2, 4, 8 };
	/* the same runs on both sides: nothing is worse */
	for (int i = 0; i < 3; i++) {
		const double j[] = { 100 + i, 190 + i, 200 + i, 150 + i };
		mk_curve(mk(&a, "a", "w", "k", "s", 200 + i, 4, true, 150 + i, 8, 0.01), u, j, 4);
		mk_curve(mk(&b, "b", "w", "k", "s", 200 + i, 4, true, 150 + i, 8, 0.01), u, j, 4);
	}
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrow, 6);   /* peak, qc, jpm@1, 2, 4, 8 */
	assert_string_equal(c.row[2].metric, "jpm@1");
	assert_int_equal(c.worse, 0);
	assert_int_equal(c.better, 0);
	rep_cmp_free(&c);
	/* the candidate 10% slower everywhere: worse, after Holm */
	for (size_t i = 0; i < b.n; i++) {
		b.run[i].summary.peak_jpm *= 0.9;
		b.run[i].summary.converge_jpm *= 0.9;
		for (size_t k = 0; k < b.run[i].summary.nby; k++)
			b.run[i].summary.by[k].samples[0] *= 0.9;
	}
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.worse, 6);
	for (size_t i = 0; i < c.nrow; i++) {
		assert_true(c.row[i].t.p_adj >= c.row[i].t.p);
		assert_int_equal(c.row[i].t.mark, REP_WORSE);
		assert_int_equal(c.row[i].t.rule, 't');
	}
	rep_cmp_free(&c);
	/* but not beyond a 15% threshold */
	o.threshold = 0.15;
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.worse, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(rep_cmp_render(f, &c, REP_TEXT), 0);
	fclose(f);
	assert_non_null(strstr(buf, "6 metrics compared: 0 worse"));
	free(buf);
	rep_cmp_free(&c);
	/* one noisy metric among many: p = 0.03 alone, but not after Holm over six */
	o.threshold = 0;
	for (size_t i = 0; i < b.n; i++) {
		b.run[i].summary.peak_jpm /= 0.9;
		b.run[i].summary.converge_jpm /= 0.9;
		for (size_t k = 0; k < b.run[i].summary.nby; k++)
			b.run[i].summary.by[k].samples[0] /= 0.9;
	}
	const double shift[] = { -4.5, -4.0, -5.0 };
	for (size_t i = 0; i < b.n; i++)
		b.run[i].summary.by[3].samples[0] += shift[i];   /* jpm@8: about 3% lower */
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_true(c.row[5].t.p < 0.05);
	assert_true(c.row[5].t.p_adj >= 0.05 || c.row[5].t.p_adj > c.row[5].t.p);
	rep_cmp_free(&c);
	free_set(&a);
	free_set(&b);
}

/* Render a comparison to a string. */
static __attribute__((noinline)) char *render_cmp(const struct rep_cmp *c, enum rep_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(rep_cmp_render(f, c, fmt), 0);
	fclose(f);
	return buf;
}

/*
 * What else changed: beside a verdict, the evidence metric that moved
 * beyond its noise (a device's request size 4 -> 17 KiB, the runs' spread
 * 2%) is listed first; one that moved within its noise (other_pct) is not;
 * the same values on both sides list nothing, even with --evidence; one run
 * a side is untested.
 */
static void test_compare_evidence(void **state)
{
	(void)state;
	struct runset a = { 0 }, b = { 0 };
	struct rep_cmp c;
	char err[256];
	struct rep_opts o = { 0 };
	const double wob[] = { 1.00, 1.02, 0.98 }, other[] = { 20, 35, 5 };
	for (int i = 0; i < 3; i++) {
		struct res_rec *x = mk(&a, "a", "w", "k", "s", 2500 * wob[i], 2, true, 0, 0, 0);
		struct res_rec *y = mk(&b, "b", "w", "k", "s", 5800 * wob[i], 2, true, 0, 0, 0);
		struct res_rec *both[2] = { x, y };
		for (int s2 = 0; s2 < 2; s2++) {
			struct res_point *pt = &both[s2]->points[0];
			pt->ndevs = 1;
			pt->devs = calloc(1, sizeof(*pt->devs));
			res_dev_init(pt->devs);
			snprintf(pt->devs->name, sizeof(pt->devs->name), "loop1");
			pt->devs->avg_req_kib = (s2 ? 17.2 : 4.0) * wob[i];
			pt->machine.other_pct = other[(i + s2) % 3];
			both[s2]->nenv = 3;
			both[s2]->env = realloc(both[s2]->env, 3 * sizeof(*both[s2]->env));
			snprintf(both[s2]->env[2].key, sizeof(both[s2]->env[2].key), "device");
			snprintf(both[s2]->env[2].value, sizeof(both[s2]->env[2].value), "loop1");
		}
	}
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_true(c.better > 0);
	assert_int_equal(c.nevg, 1);
	assert_true(c.evg[0].tested >= 2);
	assert_true(c.evg[0].n >= 1);
	assert_string_equal(c.ev[c.evg[0].first].metric, "dev.kib_req");
	for (size_t k = 0; k < c.evg[0].n; k++)
		assert_string_not_equal(c.ev[c.evg[0].first + k].metric, "machine.other_pct");
	char *txt = render_cmp(&c, REP_TEXT);
	assert_non_null(strstr(txt, "what else changed (p < 0.05 after Holm"));
	assert_non_null(strstr(txt, "    dev.kib_req +330.0% (4 -> 17.2 KiB)"));
	free(txt);
	rep_cmp_free(&c);
	/* A/A: the baseline against itself, --evidence: nothing beyond its noise */
	o.evidence = true;
	assert_int_equal(rep_compare(a.run, a.n, a.run, a.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.worse + c.better, 0);
	assert_int_equal(c.evg[0].n, 0);
	txt = render_cmp(&c, REP_TEXT);
	assert_non_null(strstr(txt, "what else changed: nothing beyond its noise"));
	free(txt);
	rep_cmp_free(&c);
	/* without --evidence and no verdict: no list */
	o.evidence = false;
	assert_int_equal(rep_compare(a.run, a.n, a.run, a.n, &o, &c, err, sizeof(err)), 0);
	txt = render_cmp(&c, REP_TEXT);
	assert_null(strstr(txt, "what else changed"));
	free(txt);
	rep_cmp_free(&c);
	/* one run a side: untested */
	o.evidence = true;
	assert_int_equal(rep_compare(a.run, 1, b.run, 1, &o, &c, err, sizeof(err)), 0);
	txt = render_cmp(&c, REP_TEXT);
	assert_non_null(strstr(txt, "what else changed: untested"));
	free(txt);
	rep_cmp_free(&c);
	free_set(&a);
	free_set(&b);
}

/*
 * A pivoted table (--metric elapsed --cols test) says what else changed
 * beside a marked cell, once per pair of run sets: scheduler t's runs took
 * longer and their device saw 4x larger requests; A/A (t against itself)
 * says nothing.
 */
static void test_pivot_evidence(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[512];
	const double wob[] = { 1.00, 1.02, 0.98 };
	for (int sc = 0; sc < 2; sc++)
		for (int i = 0; i < 3; i++) {
			char id[16];
			snprintf(id, sizeof(id), "%c%d", sc ? 't' : 's', i);
			struct res_rec *r = mk(&s, id, "w", "k", sc ? "t" : "s", 1000, 2, true, 0, 0, 0);
			set_label(r, "test", "read");
			struct res_point *pt = &r->points[0];
			pt->elapsed_s = (sc ? 20.0 : 10.0) * wob[i];
			pt->ndevs = 1;
			pt->devs = calloc(1, sizeof(*pt->devs));
			res_dev_init(pt->devs);
			snprintf(pt->devs->name, sizeof(pt->devs->name), "loop1");
			pt->devs->avg_req_kib = (sc ? 17.2 : 4.0) * wob[i];
			r->nenv = 3;
			r->env = realloc(r->env, 3 * sizeof(*r->env));
			snprintf(r->env[2].key, sizeof(r->env[2].key), "device");
			snprintf(r->env[2].value, sizeof(r->env[2].value), "loop1");
		}
	struct rep_opts o = { .wide = true, .by = { "scheduler" }, .nby = 1, .cols = { "test" }, .ncols = 1,
			      .metric = { "elapsed", "jpm" }, .nmetric = 2 };
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_non_null(rep.table[0].pv);
	const struct rep_cell *cl = cell_of(&rep.table[0], "t", NULL, "read elapsed");
	assert_int_equal(cl->t.mark, REP_WORSE);
	char *txt = render(&rep, REP_TEXT, NULL);
	const char *w = strstr(txt, "what else changed vs s read jpm (Holm over");
	assert_null(w);   /* the jpm cell is not marked: no line of its own */
	w = strstr(txt, "t  read elapsed: what else changed vs s read elapsed (Holm over");
	assert_non_null(w);
	assert_non_null(strstr(w, "dev.kib_req +330.0% (4 -> 17.2 KiB)"));
	assert_null(strstr(w + strlen("t  read elapsed: what else changed"),
			   "what else changed"));   /* once */
	free(txt);
	rep_free(&rep);
	/* A/A: scheduler t's runs relabelled s: one row, nothing marked, nothing listed */
	for (size_t i = 3; i < s.n; i++) {
		snprintf(s.run[i].env[1].value, sizeof(s.run[i].env[1].value), "s");
		s.run[i].points[0].elapsed_s = 10.0 * wob[i - 3];
		s.run[i].points[0].devs->avg_req_kib = 4.0 * wob[(i + 1) % 3];
	}
	o.by[0] = "kernel";
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	txt = render(&rep, REP_TEXT, NULL);
	assert_null(strstr(txt, "what else changed"));
	free(txt);
	rep_free(&rep);
	free_set(&s);
}

/* A run's point with entry "e" whose 100 jobs all took ms milliseconds (its histogram). */
static void set_entry_hist(struct res_rec *r, double ms)
{
	struct res_point *pt = &r->points[0];
	pt->nkinds = 1;
	pt->kinds = calloc(1, sizeof(*pt->kinds));
	memset(pt->kinds, 0, sizeof(*pt->kinds));
	snprintf(pt->kinds[0].name, sizeof(pt->kinds[0].name), "e");
	snprintf(pt->kinds[0].job, sizeof(pt->kinds[0].job), "seqread");
	uint64_t ns = (uint64_t)(ms * 1e6);
	struct stats_hist h = { 0 };
	for (int i = 0; i < 100; i++)
		stats_hist_add(&h, ns);
	pt->kinds[0].p50_ms = pt->kinds[0].p99_ms = ms;   /* what each run recorded */
	struct res_hist *rh = calloc(1, sizeof(*rh) + sizeof(rh->b[0]));
	*rh = (struct res_hist){ .count = h.count, .sum_ns = h.sum_ns, .min_ns = h.min_ns,
				 .max_ns = h.max_ns, .nb = 1 };
	rh->b[0] = (struct res_hist_bucket){ .i = stats_hist_index(ns), .n = 100 };
	pt->kinds[0].hist = rh;
}

/*
 * Percentiles across runs come from the merged histograms: runs of 100
 * jobs at 10 ms and 100 at 1 ms have a median of 1 ms and a p99 of 10 ms
 * together, not the 5.5 ms an average of their percentiles would say.
 */
static void test_merged_percentiles(void **state)
{
	(void)state;
	struct runset a = { 0 }, b = { 0 };
	struct rep_cmp c;
	char err[256];
	struct rep_opts o = { .nmetric = 2, .metric = { "e.p50_ms", "e.p99_ms" } };
	set_entry_hist(mk(&a, "a1", "w", "k", "s", 1000, 1, true, 0, 0, 0), 10);
	set_entry_hist(mk(&a, "a2", "w", "k", "s", 1000, 1, true, 0, 0, 0), 1);
	set_entry_hist(mk(&b, "b1", "w", "k", "s", 1000, 1, true, 0, 0, 0), 1);
	set_entry_hist(mk(&b, "b2", "w", "k", "s", 1000, 1, true, 0, 0, 0), 1);
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrow, 2);
	assert_string_equal(c.row[0].metric, "e.p50_ms");
	assert_true(c.row[0].mean_a > 0.9 && c.row[0].mean_a < 1.1);     /* not 5.5 */
	assert_string_equal(c.row[1].metric, "e.p99_ms");
	assert_true(c.row[1].mean_a > 9 && c.row[1].mean_a < 11);        /* not 5.5 */
	assert_true(c.row[0].mean_b > 0.9 && c.row[0].mean_b < 1.1);
	rep_cmp_free(&c);
	/* a run without a histogram (a file from before them): the runs' own figures */
	free(a.run[1].points[0].kinds[0].hist);
	a.run[1].points[0].kinds[0].hist = NULL;
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_true(c.row[0].mean_a > 5 && c.row[0].mean_a < 6);
	rep_cmp_free(&c);
	free_set(&a);
	free_set(&b);
}

/*
 * Runs of one workload measured differently (-j 20 against -j 200, sync none)
 * are separate tables headed by what differs, never one row (was: n 3,
 * 41322 ± 3415); --by on the setting compares them; --allow-diff folds them.
 */
static void test_fingerprint_tables(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	struct rep_opts o = { 0 };
	struct res_rec *r = mk(&s, "j20", "quick", "6.1", "none", 40000, 4, true, 0, 0, 0);
	set_setting(r, "users.jobs_per_user", "20", true);
	set_setting(r, "sync", "file", true);
	set_setting(r, "seed", "1", false);
	r = mk(&s, "j200", "quick", "6.1", "none", 45000, 4, true, 0, 0, 0);
	set_setting(r, "users.jobs_per_user", "200", true);
	set_setting(r, "sync", "file", true);
	set_setting(r, "seed", "2", false);   /* not in the fingerprint: no split */
	r = mk(&s, "j20b", "quick", "6.1", "none", 41000, 4, true, 0, 0, 0);
	set_setting(r, "users.jobs_per_user", "20", true);
	set_setting(r, "sync", "none", true);
	set_setting(r, "seed", "1", false);
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(rep.table[i].nrow, 1);
		assert_int_equal(rep.table[i].row[0].nrun, 1);
		assert_string_equal(rep.table[i].workload, "quick");
	}
	assert_string_equal(rep.table[0].differs, "users.jobs_per_user 20");
	assert_string_equal(rep.table[1].differs, "users.jobs_per_user 200");
	assert_string_equal(rep.table[2].differs, "sync none");
	char *txt = render(&rep, REP_TEXT, NULL);
	assert_non_null(strstr(txt, "quick [users.jobs_per_user 200]: Maximum Jobs Per Minute (1 run)"));
	assert_non_null(strstr(txt, "users.jobs_per_user 200 vs 20"));
	free(txt);
	rep_free(&rep);
	/* --by the setting: one table, a row each, tested against each other */
	o.by[0] = "users.jobs_per_user";
	o.nby = 1;
	s.run[2].settings[1].fp = false;   /* (only -j differs now) */
	snprintf(s.run[2].settings[1].value, sizeof(s.run[2].settings[1].value), "file");
	s.run[2].settings[1].fp = true;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 1);
	assert_int_equal(rep.table[0].nrow, 2);
	assert_string_equal(rep.table[0].row[0].key[0], "20");
	assert_int_equal(rep.table[0].row[0].nrun, 2);
	rep_free(&rep);
	/* --allow-diff folds them into one row */
	o.nby = 0;
	o.allow_diff[0] = "users.jobs_per_user";
	o.nallow = 1;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 1);
	assert_int_equal(rep.table[0].row[0].nrun, 3);
	rep_free(&rep);
	/* an unknown --by key is an error, with a suggestion */
	o.nallow = 0;
	o.by[0] = "users.jobs_per_usr";
	o.nby = 1;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'users.jobs_per_usr'"));
	assert_non_null(strstr(err, "did you mean 'users.jobs_per_user'"));
	free_set(&s);
}

/* Two A/B sessions are two tables; within one, the rounds are paired. */
static void test_sessions_and_rounds(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	struct rep_opts o = { .wide = true };   /* the notes whole, one a line */
	/* session 1, six rounds: B is 10% below A in each round while the rounds
	 * drift by 30%; paired, that is clear; unpaired it would not be */
	const double drift[] = { 1.0, 1.3, 0.8, 1.1, 0.9, 1.2 };
	for (unsigned k = 0; k < 6; k++) {
		set_arm(mk(&s, "a", "sab", "6.1", "mq-deadline", 1000 * drift[k], 8, true, 0, 0, 0),
			"S1-ab", k);
		set_arm(mk(&s, "b", "sab", "6.1", "bfq", 900 * drift[k] * (k == 1 ? 1.01 : 1), 8, true,
			   0, 0, 0), "S1-ab", k);
	}
	/* session 2, one round, noise measured by the repeats */
	set_arm(mk(&s, "c", "sab", "6.1", "mq-deadline", 1000, 8, true, 0, 0, 0.08), "S2-ab", 0);
	set_arm(mk(&s, "d", "sab", "6.1", "bfq", 1000, 8, true, 0, 0, 0.08), "S2-ab", 0);
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 2);
	const struct rep_table *t1 = &rep.table[0], *t2 = &rep.table[1];
	if (t1->rounds != 6) {
		const struct rep_table *x = t1;
		t1 = t2;
		t2 = x;
	}
	assert_int_equal(t1->rounds, 6);
	assert_int_equal(t2->rounds, 1);
	assert_non_null(strstr(t1->differs, "session S1-ab"));
	const struct rep_test *tp = &t1->row[1].tpeak;
	assert_int_equal(tp->rule, 'p');
	assert_int_equal(tp->pairs, 6);
	assert_int_equal(tp->mark, REP_WORSE);
	/* one round: judged by the measured noise and said so */
	assert_int_equal(t2->row[1].tpeak.rule, 'z');
	assert_int_equal(t2->row[1].tpeak.mark, REP_INCONCLUSIVE);
	char *txt = render(&rep, REP_TEXT, NULL);
	assert_non_null(strstr(txt, "These marks rest on one round"));
	assert_non_null(strstr(txt, "rounds (--rounds) to be told apart"));
	free(txt);
	rep_free(&rep);
	/* --allow-diff session folds the sessions into one table */
	o.allow_diff[0] = "session";
	o.nallow = 1;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	assert_int_equal(rep.ntable, 1);
	assert_int_equal(rep.table[0].row[0].nrun, 7);
	assert_int_equal(rep.table[0].row[1].tpeak.rule, 't');   /* not one session: unpaired */
	rep_free(&rep);
	free_set(&s);
}

/* The baseline and candidate cells of compare's row `metric`: the numbers the columns show. */
static bool cmp_cells(const char *txt, const char *metric, double *base, double *cand)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "\n%s ", metric);
	const char *l = strstr(txt, pat);
	return l && sscanf(l + 1, "%*s %*s %lf ×/÷ %*f %lf ×/÷", base, cand) == 2;
}

/*
 * One centre: compare's columns are the geometric means the change is the
 * ratio of, with the spread as a factor, so the sign and size read off
 * them (was "8418 ± 6076 -> 8170 ± 216  +15.3%": arithmetic means that fell
 * beside a change that rose).  And the "Holm p 0.91 at -12.5%": Welch on
 * the log scale with one slow run on a side (its spread ×/÷ 1.3), Holm
 * over the night's rows: honest, and now visible in the column.
 */
static void test_compare_one_centre(void **state)
{
	(void)state;
	struct runset a = { 0 }, b = { 0 };
	struct rep_cmp c;
	char err[512];
	struct rep_opts o = { 0 };
	const double va[] = { 12000, 11950, 1300 }, vb[] = { 8000, 8170, 8400 };
	for (int i = 0; i < 3; i++) {
		mk(&a, i ? "A" : "A0", "w", "k", "s", va[i], 8, true, 0, 0, 0);
		mk(&b, i ? "B" : "B0", "w", "k", "s", vb[i], 8, true, 0, 0, 0);
	}
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.row[0].t.rule, 't');
	assert_true(c.row[0].mean_a > c.row[0].mean_b && c.row[0].t.change > 0.3);
	char *txt = render_cmp(&c, REP_TEXT);
	double ba, ca;
	assert_true(cmp_cells(txt, "peak", &ba, &ca));
	assert_true(ca > ba);   /* the change is up: so are the columns */
	assert_true(fabs(ca / ba - 1 - c.row[0].t.change) < 0.002);
	free(txt);
	rep_cmp_free(&c);
	free_set(&a);
	free_set(&b);
	/* -12.5% with a slow baseline run: Welch on logs, p 0.52; Holm over peak and qc: 1 */
	const double wa[] = { 9000, 9200, 5400 }, wb[] = { 6700, 6650, 6690 };
	for (int i = 0; i < 3; i++) {
		mk(&a, i ? "A" : "A0", "w", "k", "s", wa[i], 8, true, wa[i] * 0.9, 16, 0);
		mk(&b, i ? "B" : "B0", "w", "k", "s", wb[i], 8, true, wb[i] * 0.9, 16, 0);
	}
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	const struct rep_test *t = &c.row[0].t;
	assert_int_equal(t->rule, 't');
	assert_true(t->change < -0.115 && t->change > -0.135);
	print_message("-12.5%%: p %.3f, Holm %.3f over %zu rows\n", t->p, t->p_adj, c.nrow);
	assert_true(t->p > 0.3 && t->p_adj >= t->p && t->p_adj > 0.9);
	assert_int_equal(t->mark, REP_INCONCLUSIVE);
	assert_true(c.row[0].gf_a > 1.3 && c.row[0].gf_b < 1.01);
	txt = render_cmp(&c, REP_TEXT);
	assert_true(cmp_cells(txt, "peak", &ba, &ca));
	assert_true(ca < ba && fabs(ca / ba - 1 - t->change) < 0.002);
	assert_non_null(strstr(txt, "×/÷ 1.3"));   /* the spread that explains the p */
	free(txt);
	rep_cmp_free(&c);
	free_set(&a);
	free_set(&b);
}

/*
 * Three paired rounds of a clear -10% are undecided under the sequential
 * test, and what it asks for is more rounds, enough to bound the
 * sequence (was "inconclusive (about 2 rounds a side would decide it)"
 * after 3 rounds: a total below what ran).
 */
static void test_rounds_need_more(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	struct rep_opts o = { .wide = true };   /* the notes whole, one a line */
	const double d[] = { -0.16, -0.10, -0.04 };
	for (unsigned k = 0; k < 3; k++) {
		set_arm(mk(&s, "a", "sab", "6.1", "mq-deadline", 1000, 8, true, 0, 0, 0), "S1", k);
		set_arm(mk(&s, "b", "sab", "6.1", "bfq", 1000 * exp(d[k]), 8, true, 0, 0, 0), "S1", k);
	}
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	const struct rep_test *tp = &rep.table[0].row[1].tpeak;
	assert_int_equal(tp->rule, 'p');
	assert_int_equal(tp->mark, REP_INCONCLUSIVE);
	assert_true(tp->need >= 1 && tp->pairs + tp->need >= 5);
	/* what run --until-decided waits on: the one compared figure, undecided */
	struct rep_verdict_item v[4];
	assert_int_equal(rep_verdicts(&rep, v, 4), 1);
	assert_string_equal(v[0].what, "6.1 / bfq Peak Load");
	assert_int_equal(v[0].mark, REP_INCONCLUSIVE);
	assert_int_equal(v[0].need, tp->need);
	char *txt = render(&rep, REP_TEXT, NULL);
	assert_non_null(strstr(txt, "more rounds a side would decide it"));
	assert_null(strstr(txt, "about 2 rounds a side"));
	free(txt);
	rep_free(&rep);
	free_set(&s);
}

/*
 * Figures that mean their names: a beaten peak shows the ramp's best point
 * with '?'; a convergence at or below the peak is none; an incomplete run
 * is not folded beside complete ones.
 */
static void test_figures(void **state)
{
	(void)state;
	struct runset s = { 0 };
	struct rep_report rep;
	char err[256];
	struct rep_opts o = { 0 };
	struct res_rec *r = mk(&s, "beaten", "w", "k", "a", 12275, 5, true, 0, 0, 0);
	r->summary.peak_beaten = true;
	r->summary.best_jpm = 56087;
	r->summary.best_users = 106;
	r = mk(&s, "lowqc", "w", "k", "b", 5000, 8, true, 700, 1, 0);   /* "converged" at 1 user */
	r = mk(&s, "ok", "w", "k", "c", 5000, 8, true, 400, 16, 0);
	r = mk(&s, "failed", "w", "k", "c", 1, 1, true, 0, 0, 0);
	r->status = RES_FAILED;
	assert_int_equal(rep_build(s.run, s.n, &o, &rep, err, sizeof(err)), 0);
	const struct rep_table *t = &rep.table[0];
	assert_true(fabs(t->row[0].peak.mean - 56087) < 1e-9);
	assert_true(t->row[0].peak.not_established);
	assert_int_equal(t->row[0].peak.users_lo, 106);
	assert_int_equal(t->row[1].qc.n, 0);
	assert_int_equal(t->row[2].qc.n, 1);
	assert_int_equal(t->row[2].nrun, 2);
	assert_int_equal(t->row[2].peak.n, 1);   /* the failed run is not folded */
	assert_true(fabs(t->row[2].peak.mean - 5000) < 1e-9);
	assert_string_equal(t->row[2].status, "1 failed: not counted");
	char *txt = render(&rep, REP_TEXT, NULL);
	assert_non_null(strstr(txt, "56087?"));
	free(txt);
	rep_free(&rep);
	free_set(&s);
}

/*
 * compare: identical runs are never a verdict (was "jpm@1 +546.3% p 1.18e-62
 * better (noise)"); a failed, interrupted or dead candidate is missing
 * evidence, never green; runs measured differently are refused; a side that
 * folds two schedulers is refused; equivalence is said when it is shown.
 */
static void test_compare_honest(void **state)
{
	(void)state;
	struct runset a = { 0 }, b = { 0 };
	struct rep_cmp c;
	char err[512];
	struct rep_opts o = { 0 };
	const unsigned u[] = { 1, 2 };
	const double ja[] = { 3000, 10000 }, jb[] = { 19390, 9000 };
	mk_curve(mk(&a, "A", "tiny", "k", "s", 10000, 2, false, 0, 0, 0), u, ja, 2);
	mk_curve(mk(&b, "B", "tiny", "k", "s", 9000, 2, false, 0, 0, 0), u, jb, 2);
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrow, 3);   /* peak, jpm@1, jpm@2: no side converged */
	assert_int_equal(c.worse + c.better, 0);
	assert_int_equal(c.count[REP_UNTESTED], 3);
	assert_int_equal(c.ngap, 0);
	char *txt = render_cmp(&c, REP_TEXT);
	assert_non_null(strstr(txt, "untested (n=1, noise not measured)"));
	/* the rows carry no verdict but untested: the words come only in the summary */
	const char *sum = strstr(txt, "metrics compared");
	assert_non_null(sum);
	size_t rows = (size_t)(sum - txt);
	assert_true((size_t)(strstr(txt, "better") - txt) > rows);
	assert_null(strstr(txt, "WORSE"));
	assert_true((size_t)(strstr(txt, "same") - txt) > rows);
	free(txt);
	rep_cmp_free(&c);
	/* the candidate failed: listed, and nothing of it is compared */
	b.run[0].status = RES_FAILED;
	b.run[0].points[0].failed = true;
	b.run[0].points[0].users = 2;
	snprintf(b.run[0].points[0].reason, sizeof(b.run[0].points[0].reason), "ENOSPC");
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrow, 0);
	assert_int_equal(c.ngap, 2);   /* the failed run, and tiny on the baseline only */
	assert_int_equal(c.gap[0].side, 'b');
	assert_non_null(strstr(c.gap[0].what, "failed (at 2 users: ENOSPC)"));
	assert_non_null(strstr(c.gap[1].what, "only the baseline has it"));
	rep_cmp_free(&c);
	/* a "running" run whose owner is gone, and a complete run of no point */
	b.run[0].status = RES_RUNNING;
	b.run[0].owner_gone = true;
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_non_null(strstr(c.gap[0].what, "running, owner gone"));
	rep_cmp_free(&c);
	b.run[0].status = RES_COMPLETE;
	b.run[0].npoints = 0;
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_non_null(strstr(c.gap[0].what, "no point measured"));
	b.run[0].npoints = 1;
	rep_cmp_free(&c);
	free_set(&b);
	/* measured differently: refused, naming what differs; --allow-diff compares */
	set_setting(&a.run[0], "users.jobs_per_user", "20", true);
	mk_curve(mk(&b, "B", "tiny", "k", "s", 9000, 2, false, 0, 0, 0), u, jb, 2);
	set_setting(&b.run[0], "users.jobs_per_user", "200", true);
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "users.jobs_per_user 20 vs 200"));
	o.allow_diff[0] = "users.jobs_per_user";
	o.nallow = 1;
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrow, 3);
	rep_cmp_free(&c);
	o.nallow = 0;
	free_set(&a);
	free_set(&b);
	/* a side that would fold two schedulers: refused unless --by scheduler */
	for (int i = 0; i < 3; i++) {
		mk(&a, "A", "w", "k", i ? "bfq" : "none", 1000 + i, 4, true, 0, 0, 0);
		mk(&b, "B", "w", "k", i ? "bfq" : "none", 1000 + i, 4, true, 0, 0, 0);
	}
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "differ in scheduler"));
	o.by[0] = "scheduler";
	o.nby = 1;
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.nrow, 2);   /* the peak for none and for bfq */
	assert_string_equal(c.row[0].group, "scheduler=none");
	rep_cmp_free(&c);
	free_set(&a);
	free_set(&b);
	/* five tight runs a side, 0.2% apart: the same, shown (an equivalence claim) */
	o.nby = 0;
	for (int i = 0; i < 5; i++) {
		mk(&a, "A", "w", "k", "s", 1000 + i, 4, true, 0, 0, 0);
		mk(&b, "B", "w", "k", "s", 1002 + i, 4, true, 0, 0, 0);
	}
	assert_int_equal(rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err)), 0);
	assert_int_equal(c.row[0].t.mark, REP_SAME);
	assert_true(c.row[0].t.lo > -0.02 && c.row[0].t.hi < 0.02);
	rep_cmp_free(&c);
	free_set(&a);
	free_set(&b);
}

/*
 * A run whose by_users n is huge without samples (a crafted run.json
 * before the reader bounded n): the copy compare sizes by n cannot be
 * had, and compare says out of memory.  It freed the other side's values
 * a second time there ("double free or corruption").
 */
static void test_compare_alloc_fails(void **state)
{
	(void)state;
	struct runset a = { 0 }, b = { 0 };
	struct rep_cmp c;
	char err[256];
	struct rep_opts o = { 0 };
	const unsigned u[] = { 1 };
	const double j[] = { 100 };
	/* the copy must fail to be had: where memory is overcommitted it would not */
	double *probe = calloc(UINT_MAX, sizeof(double));
	if (probe) {
		free(probe);
		skip();
	}
	mk_curve(mk(&a, "a", "w", "k", "s", 100, 1, true, 0, 0, 0), u, j, 1);
	mk_curve(mk(&b, "b", "w", "k", "s", 100, 1, true, 0, 0, 0), u, j, 1);
	free(a.run[0].summary.by[0].samples);
	a.run[0].summary.by[0].samples = NULL;
	a.run[0].summary.by[0].n = UINT_MAX;
	assert_int_equal(res_summary_curve(&a.run[0].summary), 0);
	/* (the copies are sized by the runs now, not by a count the file states) */
	int rc = rep_compare(a.run, a.n, b.run, b.n, &o, &c, err, sizeof(err));
	assert_true(rc == 0 || (rc == -1 && strstr(err, "out of memory")));
	if (rc == 0)
		rep_cmp_free(&c);
	free_set(&a);
	free_set(&b);
}

/* The sanitizer build: a calloc that cannot be had returns NULL, as libc's does. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

/*
 * An interval from tiny n or a huge t quantile: its bounds beyond x/÷ 100
 * read as unbounded (issue 43: "[-100.0, +4.3e+14]"); ordinary ones as ever.
 */
static void test_interval_bounds(void **state)
{
	(void)state;
	char b[32];
	rep_pct_bound(b, sizeof(b), 4.3e12);
	assert_string_equal(b, ">+9900");
	rep_pct_bound(b, sizeof(b), -1.0);
	assert_string_equal(b, "<-99.0");
	rep_pct_bound(b, sizeof(b), -0.201);
	assert_string_equal(b, "-20.1");
	rep_pct_bound(b, sizeof(b), 0.043);
	assert_string_equal(b, "+4.3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_and_marks),
		cmocka_unit_test(test_fold_and_welch),
		cmocka_unit_test(test_noise_rule),
		cmocka_unit_test(test_labels_and_status),
		cmocka_unit_test(test_formats_golden),
		cmocka_unit_test(test_hostile_golden),
		cmocka_unit_test(test_pivot_golden),
		cmocka_unit_test(test_metric_table),
		cmocka_unit_test(test_compare_metrics),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_fingerprint_tables),
		cmocka_unit_test(test_sessions_and_rounds),
		cmocka_unit_test(test_compare_one_centre),
		cmocka_unit_test(test_rounds_need_more),
		cmocka_unit_test(test_figures),
		cmocka_unit_test(test_compare_honest),
		cmocka_unit_test(test_compare_evidence),
		cmocka_unit_test(test_pivot_evidence),
		cmocka_unit_test(test_merged_percentiles),
		cmocka_unit_test(test_compare_alloc_fails),
		cmocka_unit_test(test_interval_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
