/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `jobmix run` prints while it runs: a header and one aligned line per
 * load point (plain), plus a status line on a terminal, or JSON Lines events
 * (--progress=json) for wrapping tools.  Nothing is printed from the users.
 */
#ifndef JOBMIX_PROGRESS_H
#define JOBMIX_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "jobmix/load.h"
#include "jobmix/results.h"
#include "jobmix/ramp.h"
#include "jobmix/sys.h"
#include "jobmix/sys_dstat.h"
#include "jobmix/workload.h"

/* PROG_REAIM: re-aim's console table (numeric lines, "Max Jobs per Minute") */
enum prog_style { PROG_AUTO, PROG_PLAIN, PROG_JSON, PROG_NONE, PROG_REAIM };

/* The whole run, shared by its arms' progress: what the time left is told from. */
struct prog_run {
	unsigned arms, rounds;    /* distinct arms and rounds (1 and 1: a plain run) */
	unsigned points_total;    /* planned points over every arm and round; 0: the ramps decide */
	double budget_s;          /* --max-time over every arm and round; 0: none */
	unsigned points_done;     /* measured (warm-ups not counted) */
	uint64_t t_start;
};

struct prog {
	enum prog_style style;    /* resolved: never AUTO */
	struct prog_run *run;     /* NULL: no total told */
	unsigned arm_no, round_no;   /* this arm's place, from 1 */
	bool tty;                 /* stdout is a terminal: status line on */
	int verbosity;            /* -1 quiet, 0 normal, 1 verbose */
	FILE *out;
	const char *run_dir;
	bool status_shown;        /* a status line is on screen */
	unsigned points;
	double last_jpm;
	double last_elapsed;
	unsigned last_users;
	uint64_t t_start;
	/* the point being measured, for the status line */
	const char *phase;
	unsigned users, k;
	uint64_t t_point;
	const char *tag;          /* A/B arm: the scheduler, first column of each line */
	const char *tag_key;      /* what tag is: "scheduler", or "arm" (a -X combination) */
	double max_jpm;           /* largest JPM of a completed point (re-aim's Max) */
	bool crossover;           /* the ramp stops at a convergence criterion */
};

/*
 * One load point as re-aim printed it: "Num Parent_Time Child_SysTime
 * Child_UTime Jobs/min Jobs/min/child Std_dev_Time Std_dev_Percent JTI",
 * its printf layout (what lkp-tests' stats/reaim reads).
 */
void prog_reaim_line(FILE *f, const struct load_point *pt);

/*
 * The status line's totals at `now`: where ("arm 2 of 4, round 1 of 2, ";
 * "" for a plain run) and the time left (", left ~03:10", or ", budget left
 * 04:00" when only --max-time bounds it; "" when nothing does yet).
 */
void prog_total_text(const struct prog *p, uint64_t now, char *where, size_t wlen,
		     char *total, size_t tlen);

int prog_parse_style(const char *s, enum prog_style *out);
uint64_t prog_now_ns(void);
void prog_init(struct prog *p, enum prog_style style, int verbosity, const struct workload *wl,
	       const struct sys_env *env, const char *run_dir);
/*
 * The same for one arm of an A/B: lines carry `tag` (the scheduler, or a
 * matrix arm's short name when matrix) in a first column; `header` false
 * leaves out the header (another arm printed it).
 */
void prog_init_arm(struct prog *p, enum prog_style style, int verbosity, const struct workload *wl,
		   const struct sys_env *env, const char *run_dir, const char *tag, bool matrix,
		   bool header);
/* The machine over the point: a noisy line, and with -v its counters. */
void prog_point_machine(struct prog *p, const struct res_machine *m);
/*
 * Verbose: one line per device with what it did over the point's window,
 * and when traced by entry (blk[i]'s rows; blk may be NULL) a line per
 * entry with its requests and their times.
 */
void prog_point_devices(struct prog *p, const char *const *names, const struct sys_drate *r,
			const bool *have, const struct res_blk *const *blk, size_t n);
void prog_point_start(struct prog *p, const char *phase, unsigned users, unsigned k,
		      unsigned sample);
/* Redraw the status line (terminal only); suits load_cfg.tick. */
void prog_tick(void *p);
/* Does this output want ticks at all? */
bool prog_wants_ticks(const struct prog *p);
/* s seconds as mm:ss, or h:mm:ss from an hour (the status line's, the dry run's). */
void prog_hms(char *buf, size_t len, double s);
void prog_point_done(struct prog *p, const struct load_point *pt, const struct workload *wl);
void prog_message(struct prog *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The end: status, the summary, the stop reason (with `why`, its detail, or NULL). */
void prog_finish(struct prog *p, const char *status, const struct ramp_summary *s,
		 const char *why, unsigned samples);

#endif
