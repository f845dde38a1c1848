// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix run WORKLOAD [options]`: the command line of the run engine
 * (run.h).  The options are parsed apart (run_opts.c); here the workload is
 * loaded, the engine's plan built (everything that can be refused is
 * refused there, before anything is created or changed), the signals set
 * up, and the plan run with hooks that draw the progress (progress.c);
 * an A/B ends with its comparison table.  --dry-run prints the plan
 * (display/plan.c) and touches nothing.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/cli.h"
#include "jobmix/compat.h"
#include "jobmix/escape.h"
#include "jobmix/exitcode.h"
#include "jobmix/gnuplot.h"
#include "jobmix/parse.h"
#include "jobmix/plot.h"
#include "jobmix/report.h"
#include "jobmix/run.h"
#include "jobmix/workload.h"
#include "jobmix/paths.h"
#include "jobmix/progress.h"
#include "jobmix/plan_print.h"
#include "run_opts.h"
#include "jobmix/res_runs.h"
#include "reporting.h"

static volatile sig_atomic_t run_stop;

/*
 * The signals that end a run: each only sets run_stop (the engine polls it,
 * stops the point, restores what the run changed and writes its results);
 * then INT, TERM and HUP exit with their codes and the others are raised
 * again with their default action, so the exit status says the signal.
 */
static const int run_stop_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF,
	SIGPIPE, SIGABRT, SIGSEGV, SIGBUS,
};

/*
 * A stop signal.  SIGPIPE from a write of our own (a reader of stdout gone)
 * is ignored, as before: the write fails, the run goes on.  SIGSEGV, SIGBUS
 * and SIGABRT that are faults of this process (not sent by another one)
 * cannot be survived: the default action at once, records left to `jobmix
 * restore` as after SIGKILL.  Async-signal-safe.
 */
static void on_stop(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	bool sent = si && (si->si_code == SI_USER || si->si_code == SI_QUEUE ||
			   si->si_code == SI_TKILL) && si->si_pid != getpid();
	if (sig == SIGPIPE && !sent)
		return;
	if ((sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT) && !sent) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	if (!run_stop)
		run_stop = sig;
}

/* Stop signals set run_stop from here on (on_stop). */
static void run_signals_catch(void)
{
	struct sigaction sa = { .sa_sigaction = on_stop, .sa_flags = SA_SIGINFO };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(run_stop_signals) / sizeof(run_stop_signals[0]); i++)
		sigaction(run_stop_signals[i], &sa, NULL);
}

/* After the run has restored everything: a stop signal but INT/TERM/HUP raised again. */
static void run_signals_reraise(void)
{
	int sig = run_stop;
	if (!sig || sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
		return;
	sigset_t set;
	fflush(stdout);
	fflush(stderr);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
}

/* What the hooks draw on: one progress per arm. */
struct cli_run {
	const struct run_opts *o;
	const struct run_plan *plan;
	struct prog *progs;
	size_t narms;
	bool matrix;              /* -X: arms are combinations, tagged by their short names */
	struct run_result *res;   /* the engine's, as it fills it (--until-decided) */
	double decide_s;          /* --decide-time, 0: none */
	double rounds_s;          /* the rounds' seconds so far */
	char why[160];            /* why the rounds stopped */
	struct prog_run total;    /* the whole run: arm k of N, round r of R, time left */
};

static void hook_arm_open(void *arg, size_t arm, const struct run_arm_info *in)
{
	struct cli_run *c = arg;
	struct prog *p = &c->progs[arm];
	prog_init_arm(p, c->o->progress, c->o->verbosity, in->wl, in->env, in->dir, in->tag,
		      c->matrix, in->first);
	p->run = &c->total;
	p->arm_no = (unsigned)(arm % (c->total.arms ? c->total.arms : 1)) + 1;
	p->round_no = arm < c->plan->narms ? c->plan->arms[arm].round + 1 : 1;
}

static bool hook_wants_ticks(void *arg, size_t arm)
{
	struct cli_run *c = arg;
	return prog_wants_ticks(&c->progs[arm]);
}

static void hook_tick(void *arg, size_t arm)
{
	struct cli_run *c = arg;
	prog_tick(&c->progs[arm]);
}

static void hook_point_start(void *arg, size_t arm, const char *phase, unsigned users, unsigned k,
			     unsigned sample)
{
	struct cli_run *c = arg;
	prog_point_start(&c->progs[arm], phase, users, k, sample);
}

static void hook_point_done(void *arg, size_t arm, const struct load_point *p,
			    const struct workload *wl, const char *const *devs,
			    const struct sys_drate *rates, const bool *have,
			    const struct res_blk *const *blk, size_t ndevs, const struct res_machine *m)
{
	struct cli_run *c = arg;
	prog_point_done(&c->progs[arm], p, wl);
	prog_point_devices(&c->progs[arm], devs, rates, have, blk, ndevs);
	prog_point_machine(&c->progs[arm], m);
}

static void hook_arm_done(void *arg, size_t arm, const char *status, const struct ramp_summary *s,
			  const char *why, unsigned samples)
{
	struct cli_run *c = arg;
	prog_finish(&c->progs[arm], status, s, why, samples);
}

static void hook_message(void *arg, size_t arm, enum run_msg kind, const char *text)
{
	struct cli_run *c = arg;
	if (kind == RUN_MSG_NOTE && c->o->verbosity < 0)
		return;
	if (kind != RUN_MSG_ERROR && arm < c->narms)
		prog_message(&c->progs[arm], "%s", text);
	else
		fprintf(stderr, "jobmix run: %s\n", text);
}

/*
 * With gnuplot present, the schedulers' JPM curves overlaid in one chart,
 * <index folder>/chart.png (what `jobmix plot` draws for these runs).
 */
static void run_ab_chart(struct run_result *res, const struct rep_report *rep)
{
	char err[512], path[PATH_MAX + 16];
	char *text = NULL;
	size_t len = 0;
	if (!res->have_index || !rep->ntable || !gp_available())
		return;
	snprintf(path, sizeof(path), "%s/chart.png", res->index_dir);
	if (plot_report_script(rep, 0, false, PLOT_PNG, &text, &len, err, sizeof(err)) ||
	    gp_render_file(text, len, res->index_dirfd, "chart.png", NULL, err, sizeof(err))) {
		fprintf(stderr, "jobmix run: the A/B chart: %s\n", err);
	} else {
		printf("chart: %s\n", path);
		if (run_result_set_chart(res, "chart.png", err, sizeof(err)))
			fprintf(stderr, "jobmix run: %s\n", err);
	}
	free(text);
}

/* The closing table's options: rows by scheduler or the matrix's axes, --metric, --threshold. */
static void run_ab_ropts(const struct run_opts *o, const struct run_plan *p, struct rep_opts *ro)
{
	*ro = (struct rep_opts){ .order = p->scheds, .norder = p->nsched };
	if (p->matrix) {
		/*
		 * one row per combination: the axes are the keys (the scheduler's as
		 * env has it); one-value axes first, as the reference is the first
		 * value of the last key: a one-value axis compares nothing
		 */
		*ro = (struct rep_opts){ .nby = 0 };
		for (int many = 0; many < 2; many++)
			for (size_t i = 0; i < p->naxes && ro->nby < REP_MAX_KEYS; i++)
				if ((p->axes[i].nvals > 1) == many)
					ro->by[ro->nby++] = p->axes[i].kind == RUN_AXIS_SCHED ?
							    "scheduler" : p->axes[i].key;
	}
	for (size_t i = 0; i < o->table.nmetric; i++, ro->nmetric++) {
		ro->metric[ro->nmetric] = o->table.metric[i];
		ro->msel[ro->nmetric] = o->table.msel[i];
	}
	ro->threshold = o->threshold;
}

#define RUN_DECIDE_ITEMS 64

/*
 * The closing table's verdicts over the arms of the first `rounds` rounds
 * (their ramps are done: read as complete); *n the compared figures
 * (at most RUN_DECIDE_ITEMS in v).  0 or -1 (nothing could be read).
 */
static int run_decide_verdicts(struct cli_run *c, unsigned rounds, struct rep_verdict_item *v,
			       size_t *n)
{
	char *dirs[RUN_MAX_SCHEDS * 64];
	size_t nd = 0;
	struct res_runs rs;
	struct rep_report rep;
	struct rep_opts ro;
	char err[512];
	for (size_t i = 0; i < c->res->narms && nd < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (c->res->arms[i].opened && c->res->arms[i].round < rounds)
			dirs[nd++] = c->res->arms[i].dir;
	if (!nd || cli_runs_load(&rs, NULL, dirs, nd, RES_RUNS_POINTS | RES_RUNS_CURVES, "run"))
		return -1;
	for (size_t i = 0; i < rs.n; i++)
		if (rs.run[i].status == RES_RUNNING)
			rs.run[i].status = RES_COMPLETE;
	run_ab_ropts(c->o, c->plan, &ro);
	int rc = rep_build(rs.run, rs.n, &ro, &rep, err, sizeof(err));
	if (!rc) {
		*n = rep_verdicts(&rep, v, RUN_DECIDE_ITEMS);
		if (*n > RUN_DECIDE_ITEMS)
			*n = RUN_DECIDE_ITEMS;
		rep_free(&rep);
	}
	res_runs_free(&rs);
	return rc;
}

/*
 * run.round_done for --until-decided: the verdicts after this round; stop
 * when every tested one is worse, better or same, or the budget is spent.
 */
static const char *hook_round_done(void *arg, unsigned rounds, double seconds)
{
	struct cli_run *c = arg;
	struct rep_verdict_item v[RUN_DECIDE_ITEMS];
	size_t n = 0, tested = 0, open = 0;
	bool say = c->o->verbosity >= 0 && c->o->progress != PROG_JSON &&
		   c->o->progress != PROG_NONE;
	c->rounds_s += seconds;
	double round_s = c->rounds_s / rounds;
	if (run_decide_verdicts(c, rounds, v, &n))
		n = 0;
	for (size_t i = 0; i < n; i++) {
		tested += v[i].rule != 0;
		open += v[i].rule && v[i].mark == REP_INCONCLUSIVE;
	}
	if (tested && !open)
		snprintf(c->why, sizeof(c->why), "decided after %u rounds", rounds);
	else if (!n)
		snprintf(c->why, sizeof(c->why), "undecided: no figure is compared (the arms are one "
			 "row of the table: the same value twice?)");
	else if (rounds >= c->plan->rounds)
		snprintf(c->why, sizeof(c->why), "undecided: the budget of %u rounds is spent",
			 c->plan->rounds);
	else if (c->decide_s > 0 && c->rounds_s + round_s > c->decide_s)
		snprintf(c->why, sizeof(c->why), "undecided: another round would pass --decide-time "
			 "(%.0f s a round)", round_s);
	else
		c->why[0] = 0;
	if (say) {
		printf("until decided: round %u (%.0f s): %zu of %zu compared figures decided%s%s\n",
		       rounds, seconds, tested - open, n, c->why[0] ? "; " : "", c->why);
		for (size_t i = 0; c->why[0] && i < n; i++)
			plan_print_decide_line(&v[i], round_s);
		fflush(stdout);
	}
	return c->why[0] ? c->why : NULL;
}

/*
 * The comparison table that ends an A/B: the report's table over the arms'
 * run folders (one row per scheduler, rounds folded, marks against the
 * first scheduler), then what the device did under each scheduler.
 */
static void run_ab_table(const struct run_opts *o, const struct run_plan *p,
			 struct run_result *res)
{
	if (o->verbosity < 0 || o->progress == PROG_JSON || o->progress == PROG_NONE)
		return;
	char *dirs[RUN_MAX_SCHEDS * 64];
	size_t nd = 0;
	for (size_t i = 0; i < res->narms && nd < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (res->arms[i].opened)
			dirs[nd++] = res->arms[i].dir;
	if (!nd)
		return;
	struct res_runs rs;
	struct rep_report rep;
	struct rep_opts ro;
	run_ab_ropts(o, p, &ro);
	char err[512];
	printf("\n");
	fflush(stdout);
	if (cli_runs_load(&rs, NULL, dirs, nd, RES_RUNS_POINTS | RES_RUNS_CURVES, "run") == 0) {
		if (rep_build(rs.run, rs.n, &ro, &rep, err, sizeof(err)) == 0) {
			rep_render(stdout, &rep, REP_TEXT, NULL);
			run_ab_chart(res, &rep);
			rep_free(&rep);
		} else {
			fprintf(stderr, "jobmix run: the A/B table: %s\n", err);
		}
		res_runs_free(&rs);
	}
	if (res->ndevs)
		plan_print_devices(p, res);
}

/* The workload: --job's ad-hoc mix, a front end's text, or a file or name.  0 or exit code. */
static int run_load(const struct run_opts *o, struct workload *wl, char *file, size_t filelen,
		    enum wlf_origin *found)
{
	struct wl_error werr;
	char err[512], label[600];
	char *text = NULL;
	int lrc;
	if (o->jobspec) {
		/* an ad-hoc mix: made into workload text, loaded as a file would be */
		if (compat_adhoc(o->jobspec, &text, err, sizeof(err)))
			return run_bad("%s", err);
		snprintf(label, sizeof(label), "--job %s", o->jobspec);
		lrc = wl_load_buffer(label, text, strlen(text), wl, &werr);
		free(text);
	} else if (o->wl_text) {
		lrc = wl_load_buffer(o->wl_label, o->wl_text, strlen(o->wl_text), wl, &werr);
	} else {
		char where[8192];
		if (wlf_resolve(o->workload, file, filelen, found, where, sizeof(where)))
			return run_bad("%s", where);
		lrc = wl_load(file, wl, &werr);
	}
	if (lrc) {
		esc_put(stderr, ESC_TEXT, werr.msg);   /* the loader quotes the file (escape.h) */
		fputc('\n', stderr);
		return JM_EXIT_USAGE;
	}
	return 0;
}

/* A duration option, positive; 0 or an exit code. */
static int run_duration(const char *opt, const char *given, double *out)
{
	char err[256];
	if (!given)
		return 0;
	if (jm_parse_duration(given, out, err, sizeof(err)))
		return run_bad("%s: %s", opt, err);
	if (*out <= 0)
		return run_bad("%s '%s': must be positive", opt, given);
	return 0;
}

/* The engine's arguments from the parsed options (no parsing: the durations come after). */
static void run_args_from(const struct run_opts *o, struct run_args *a, int argc, char **argv)
{
	*a = (struct run_args){
		.users = o->users, .max_users = o->max_users, .outdir = o->outdir,
		.dirs = o->dirs, .ndirs = o->ndirs, .sets = o->sets, .nsets = o->nsets,
		.labels = o->labels, .nlabels = o->nlabels, .scheds = o->scheds,
		.devices = o->devices, .order = o->order, .points_given = o->points_given,
		.points = o->points_order, .rounds = o->rounds ? o->rounds : 1,
		.axes = o->axes, .naxes = o->naxes, .allow_sysctl = o->allow_sysctl,
		.scratch = o->scratch, .no_trace = o->no_trace, .trace_sample = o->trace_sample,
		.argc = argc, .argv = argv,
	};
}

/* What wl_again needs: the options and the engine's arguments. */
struct run_again {
	const struct run_opts *o;
	const struct run_args *args;
};

/*
 * run_args.wl_again: the workload loaded again as the run's was, the
 * command line's settings on it, then the arm's workload axes.
 */
static int run_wl_again(void *arg, const struct run_set *extra, size_t nextra,
			struct workload *out, char *err, size_t errlen)
{
	const struct run_again *ra = arg;
	char file[PATH_MAX];
	enum wlf_origin found;
	struct run_set sets[MAX_SETS + RUN_MAX_AXES];
	struct run_args a = *ra->args;
	if (a.nsets + nextra > sizeof(sets) / sizeof(sets[0])) {
		snprintf(err, errlen, "-X: too many settings");
		return JM_EXIT_USAGE;
	}
	memcpy(sets, a.sets, a.nsets * sizeof(sets[0]));
	memcpy(sets + a.nsets, extra, nextra * sizeof(sets[0]));
	a.sets = sets;
	a.nsets += nextra;
	int rc = run_load(ra->o, out, file, sizeof(file), &found);
	if (rc) {
		snprintf(err, errlen, "-X: the workload did not load again");
		return rc;
	}
	return run_apply_overrides(&a, out, err, errlen);
}

/* Run the plan with the progress hooks; the A/B table.  The exit code. */
static int run_go(const struct run_opts *o, const struct run_plan *plan, char *dir,
		  size_t dirlen)
{
	struct cli_run c = { .o = o, .plan = plan, .narms = plan->narms, .matrix = plan->matrix };
	struct run_result res;
	c.res = &res;
	if (o->decide_time && run_duration("--decide-time", o->decide_time, &c.decide_s))
		return JM_EXIT_USAGE;
	c.total = (struct prog_run){ .rounds = plan->rounds ? plan->rounds : 1,
				     .points_total = run_plan_points(plan),
				     .budget_s = run_plan_budget_s(plan), .t_start = prog_now_ns() };
	c.total.arms = (unsigned)(plan->narms / c.total.rounds);
	c.progs = calloc(plan->narms, sizeof(*c.progs));
	if (!c.progs)
		return run_bad("out of memory");
	const struct run_hooks hooks = {
		.arg = &c, .arm_open = hook_arm_open, .wants_ticks = hook_wants_ticks,
		.tick = hook_tick, .point_start = hook_point_start, .point_done = hook_point_done,
		.arm_done = hook_arm_done, .message = hook_message,
		.round_done = o->until_decided ? hook_round_done : NULL,
	};
	/* Signals only set run_stop from here on; the engine releases its session on every path. */
	run_signals_catch();
	int rc = run_execute(plan, &hooks, &run_stop, &res);
	if (plan->ab)
		run_ab_table(o, plan, &res);
	if (dir && dirlen && res.narms && res.arms[0].opened)
		snprintf(dir, dirlen, "%s", res.arms[0].dir);
	run_result_free(&res);
	free(c.progs);
	run_signals_reraise();
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o = { 0 };
	int rc = run_parse_args(argc, argv, &o);
	if (!rc)
		rc = run_main(&o, argc, argv, NULL, 0);
	else if (rc < 0)
		rc = JM_EXIT_OK;
	return rc;
}

int run_main(const struct run_opts *o, int argc, char **argv, char *dir, size_t dirlen)
{
	struct workload wl = { 0 };
	struct run_args args;
	struct run_plan plan;
	struct paths paths;
	char file[PATH_MAX] = "", err[1024];
	enum wlf_origin found = 0;
	int rc;

	if (dir && dirlen)
		dir[0] = 0;
	run_args_from(o, &args, argc, argv);
	struct run_again again = { .o = o, .args = &args };
	args.wl_again = run_wl_again;
	args.wl_again_arg = &again;
	rc = run_load(o, &wl, file, sizeof(file), &found);
	if (!rc && (rc = run_apply_overrides(&args, &wl, err, sizeof(err))))
		fprintf(stderr, "jobmix run: %s\n", err);
	if (!rc)
		rc = run_duration("--timeout", o->timeout, &args.timeout_s);
	if (!rc)
		rc = run_duration("--reap-timeout", o->reap_timeout, &args.reap_timeout_s);
	double decide_s;
	if (!rc)
		rc = run_duration("--decide-time", o->decide_time, &decide_s);
	if (rc)
		goto out;
	args.wl_file = file[0] ? file : NULL;
	args.wl_found = wlf_origin_name(found);
	paths_find(&paths);
	args.libexec_dir = paths.libexec;
	if ((rc = run_plan_build(&args, &wl, &plan, err, sizeof(err)))) {
		fprintf(stderr, "jobmix run: %s\n", err);
		goto out;
	}
	if (o->verbosity >= 0)
		for (char *l = plan.notes, *nl; *l; l = nl + 1) {
			nl = strchr(l, '\n');
			fprintf(stderr, "jobmix run: %.*s\n", (int)(nl - l), l);
		}
	rc = o->dry_run ? (plan_print(&plan), JM_EXIT_OK) : run_go(o, &plan, dir, dirlen);
	run_plan_free(&plan);
out:
	wl_free(&wl);
	return rc;
}
