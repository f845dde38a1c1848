/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The run engine: what `jobmix run` (and `jobmix reaim`) does after its
 * command line.  Two steps:
 *
 *   run_plan_build()  parsed arguments + the loaded workload -> a typed,
 *                     validated plan (arms, rounds, user list or ramp,
 *                     budgets, devices, schedulers, outputs).  Reads the
 *                     system (sysfs, /proc, the limits) but changes nothing:
 *                     refusing happens here, before anything is created.
 *   run_execute()     runs a plan: the session (work area, devices, the
 *                     scheduler switch, released in reverse on every path),
 *                     the arms' rounds and points, their run folders and
 *                     an A/B's index.  It reports upward only through the
 *                     hooks table; it prints nothing.
 */
#ifndef JOBMIX_RUN_H
#define JOBMIX_RUN_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "jobmix/load.h"
#include "jobmix/ramp.h"
#include "jobmix/ramp_order.h"
#include "jobmix/results.h"
#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_dstat.h"
#include "jobmix/sys_sched.h"
#include "jobmix/sys_scratch.h"
#include "jobmix/workload.h"

#define RUN_MAX_SCHEDS 8
#define RUN_MAX_AXES 6            /* -X axes, the scheduler's included */
#define RUN_MAX_AXIS_VALS 8       /* values of one axis */
/* --point-noise: pilot samples taken, and the longest a sized point may be predicted to take. */
#define RUN_SIZE_PILOTS 3
#define RUN_SIZE_MAX_POINT_S 60.0
#define RUN_MAX_COMBOS 64         /* arms of a matrix, before rounds */
#define RUN_MAX_KNOBS 32          /* system values held (an axis on each device) */

/* What an axis varies. */
enum run_axis_kind {
	RUN_AXIS_SCHED,               /* the IO scheduler (-s, -X sched) */
	RUN_AXIS_SYS,                 /* a system knob (sys_knob.h): queue.*, a sysctl, mount */
	RUN_AXIS_WL,                  /* a workload key or ENTRY.PARAM */
};

struct sys_knob_family;

/*
 * One -X axis (or -s): its key and values, split once from the command
 * line's text (run_axis_parse, which also marks the scheduler's); the plan
 * classifies the others once, with the workload and the scratch device in
 * hand (kind, fam), and carries them to the engine.  vals point into buf
 * (run_axis_copy moves one).
 */
struct run_axis {
	enum run_axis_kind kind;
	char key[64];                 /* "sched", "queue.read_ahead_kb", "fileio.block" */
	/* a system axis's family (sys_knob.h), classified once by the plan; else NULL */
	const struct sys_knob_family *fam;
	const char *vals[RUN_MAX_AXIS_VALS];
	size_t nvals;
	char buf[512];                /* the values' text */
};

/*
 * Split -X "KEY=V1,V2,..." into ax: the key, the values (none empty, none
 * twice, at most RUN_MAX_AXIS_VALS), kind RUN_AXIS_SCHED for sched and
 * scheduler, else RUN_AXIS_WL until the plan finds a knob family for it.
 * The only reading of an -X's text.  0, or JM_EXIT_USAGE with err ("-X ...").
 */
int run_axis_parse(const char *spec, struct run_axis *ax, char *err, size_t errlen);
/* *dst = *src, its vals pointing into dst's own buf. */
void run_axis_copy(struct run_axis *dst, const struct run_axis *src);

/* A workload key (or ENTRY.PARAM of a mix entry) set from the command line. */
struct run_set {
	const char *key;
	const char *value;
	const char *opt;      /* the option that gave it, for messages */
};

/* What the command line asked of a run, parsed: no string here is parsed again but lists. */
struct run_args {
	const char *users;            /* -u as given (its N% unresolved), NULL: none */
	const char *max_users;        /* --max-users as given, for messages; NULL */
	const char *outdir;           /* where the run folders go */
	const char *const *dirs;      /* -d: the work directories, ndirs 0: the workload's */
	size_t ndirs;
	const struct run_set *sets;   /* workload keys, in the order given */
	size_t nsets;
	const struct res_label *labels;
	size_t nlabels;
	double timeout_s;             /* --timeout, 0: derived from the last point */
	double reap_timeout_s;        /* --reap-timeout, 0: the load generator's default */
	const char *scheds;           /* -s LIST | all: an IO-scheduler A/B; NULL: none */
	const struct run_axis *axes;  /* -X KEY=V1,V2,..., split (run_axis_parse) */
	size_t naxes;
	bool allow_sysctl;            /* --allow-sysctl: any sysctl may be an axis */
	bool no_trace;                /* --no-trace: no block-layer tracing (iotrace.h) */
	unsigned trace_sample;        /* --trace-sample: 1 request in N timed; 0: IOTRACE_SAMPLE */
	const char *scratch;          /* --scratch DEV: mkfs and mount per arm; NULL: none */
	/*
	 * A fresh workload as the run's (loaded again, the command line's
	 * settings on it) with extra settings on top: an arm's workload axes.
	 * 0, or an exit code with err.  NULL: workload axes are refused.
	 */
	int (*wl_again)(void *arg, const struct run_set *extra, size_t nextra,
			struct workload *out, char *err, size_t errlen);
	void *wl_again_arg;
	const char *devices;          /* --device LIST, NULL: the work dirs' devices */
	enum ramp_order order;        /* an A/B's order */
	bool points_given;            /* --order ascending|descending|shuffle */
	enum ramp_points points;
	unsigned rounds;              /* an A/B's rounds, >= 1 */
	const char *wl_file;          /* the workload file, for messages */
	const char *wl_found;         /* how it was found (run.json workload.found), or NULL */
	const char *libexec_dir;      /* the jobs' programs */
	int argc;                     /* recorded in run.json */
	char **argv;
};

/*
 * The command line's -d and key settings on top of the loaded workload,
 * through the key table, then wl_resolve and the checks across keys.
 * 0, or JM_EXIT_USAGE with err.
 */
int run_apply_overrides(const struct run_args *a, struct workload *wl, char *err, size_t errlen);

#define RUN_SUFFIX_MAX 30   /* a matrix arm's folder-name part: longer ones are cut and hashed */

/* One combination of axis values, with its workload. */
struct run_combo {
	size_t val[RUN_MAX_AXES];     /* the value index of each axis */
	char label[256];              /* "queue.read_ahead_kb=128 fileio.block=4k" */
	char suffix[128];             /* for the run folder's name, <= RUN_SUFFIX_MAX characters */
	struct workload *wl;          /* the run's, or its own (workload axes; owned) */
	bool own_wl;
};

/* One ramp of a run: the only one, or one combination in one round of an A/B. */
struct run_arm_plan {
	const char *sched;            /* NULL: no switch (a plain run) */
	unsigned round;
	size_t combo;                 /* into run_plan.combos */
};

/* A validated run. */
struct run_plan {
	const struct run_args *args;  /* borrowed */
	struct workload *wl;          /* borrowed: loaded, overrides applied */
	struct ramp_cfg rcfg;         /* every arm's ramp */
	unsigned *list;               /* a linear ramp's user counts (owned), or NULL */
	size_t nlist;
	bool auto_end;                /* users.end: what the limits hold */
	unsigned most;                /* the most users the run can reach, 0: unbounded (auto) */
	unsigned ncpus;               /* online CPUs, what N% of -u is a share of */
	const char *users;            /* -u with every N% resolved, NULL: none */
	char users_buf[1024];
	struct sys_devset devs;       /* the devices watched (and switched in an A/B) */
	/* the device the work directory is on (the scratch device's, else the first
	 * work dir's top device): where an entry's file I/O goes; "": none found */
	char work_dev[SYS_DEV_NAME];
	char active[SYS_MAX_DEVS][SYS_SCHED_NAME];  /* each settable one's scheduler now */
	bool ab;
	const char *scheds[RUN_MAX_SCHEDS];
	char sched_buf[RUN_MAX_SCHEDS][SYS_SCHED_NAME];
	size_t nsched;
	enum ramp_order order;
	unsigned rounds;              /* 1 unless an A/B */
	struct run_axis axes[RUN_MAX_AXES];   /* a matrix's axes, the scheduler's first */
	size_t naxes;
	bool matrix;                  /* -X given: arms are combinations of the axes */
	bool sys_axes;                /* a system knob among them (root, held, restored) */
	struct run_combo *combos;     /* the combinations (one when no matrix) */
	size_t ncombos;
	struct run_arm_plan *arms;    /* ncombos x rounds (round-major), or the one arm */
	size_t narms;
	bool repair;                  /* a plain run as root: act on what a killed jobmix left */
	uint64_t mem_limit;           /* the first arm's memory cgroup limit, 0: none */
	bool memcg;                   /* an arm runs its users in a memory cgroup */
	char scratch[64];             /* --scratch's device name, "": none */
	char scratch_mp[PATH_MAX];    /* where its file system is mounted: the work directory */
	bool scratch_raw;             /* an entry reads or writes it raw: no file system made */
	/* the scratch device, held from its check to run_plan_free (owned), or NULL */
	struct sys_scratch_hold *scratch_hold;
	char notes[1024];             /* what the plan noticed, lines for the user */
};

/* 0, or JM_EXIT_USAGE with err (the plan freed). */
int run_plan_build(const struct run_args *a, struct workload *wl, struct run_plan *p, char *err,
		   size_t errlen);
/* The points the plan measures over every arm and round; 0 when the ramps decide. */
unsigned run_plan_points(const struct run_plan *p);
/* --max-time over every arm and round (each ramp's own), seconds; 0: none. */
double run_plan_budget_s(const struct run_plan *p);
void run_plan_free(struct run_plan *p);

enum run_msg {
	RUN_MSG_NOTE,                 /* worth saying unless quiet */
	RUN_MSG_ARM,                  /* on the arm's progress, always */
	RUN_MSG_ERROR,                /* an error or warning */
};
#define RUN_NO_ARM ((size_t)-1)

/* An arm's run folder as it opens. */
struct run_arm_info {
	const struct workload *wl;
	const struct sys_env *env;    /* the environment as the arm runs */
	const char *dir;
	const char *sched;            /* NULL: a plain run */
	const char *tag;              /* what its lines are tagged with: the scheduler, the
					 matrix combination's short name; NULL: a plain run */
	bool first;                   /* the run's first arm to open */
};

/* How the engine reports upward; any hook may be NULL. */
struct run_hooks {
	void *arg;
	void (*arm_open)(void *arg, size_t arm, const struct run_arm_info *info);
	/* a point's progress ticks (load_cfg.tick), wanted or not */
	bool (*wants_ticks)(void *arg, size_t arm);
	void (*tick)(void *arg, size_t arm);
	void (*point_start)(void *arg, size_t arm, const char *phase, unsigned users, unsigned k,
			    unsigned sample);
	/*
	 * a measured point, with the devices' rates over its window (have[i]: a
	 * whole window), their block tracer's figures (blk[i], NULL: none) and
	 * what the machine did meanwhile
	 */
	void (*point_done)(void *arg, size_t arm, const struct load_point *p,
			   const struct workload *wl, const char *const *devs,
			   const struct sys_drate *rates, const bool *have,
			   const struct res_blk *const *blk, size_t ndevs,
			   const struct res_machine *m);
	void (*arm_done)(void *arg, size_t arm, const char *status, const struct ramp_summary *s,
			 const char *why, unsigned samples);
	void (*message)(void *arg, size_t arm, enum run_msg kind, const char *text);
	/*
	 * An A/B's round ended (rounds done so far, the last one's seconds):
	 * NULL to go on, else why it stops adding rounds ("decided", "budget:
	 * 20 rounds"), recorded in the A/B index (run --until-decided).  Not
	 * called after the last planned round unless wanted; may be NULL.
	 */
	const char *(*round_done)(void *arg, unsigned rounds, double seconds);
};

/* One arm as it ended. */
struct run_arm_result {
	const char *sched;
	unsigned round;
	bool opened;                  /* it has a run folder */
	char dir[PATH_MAX];
	/* device counters summed over the arm's points, per watched device */
	struct sys_dstat dsum[SYS_MAX_DEVS];
	double dsecs[SYS_MAX_DEVS];
	/*
	 * the block tracer's times over the arm's points, all operations
	 * merged: [device][0] in the IO scheduler, [1] in the device (owned;
	 * NULL: none traced)
	 */
	struct stats_hist *blk[SYS_MAX_DEVS][2];
};

struct abindex;
struct stats_hist;

struct run_result {
	int rc;                       /* the exit code */
	struct run_arm_result *arms;
	size_t narms;
	size_t ndevs;                 /* the watched devices */
	char dev[SYS_MAX_DEVS][SYS_DEV_NAME];
	size_t watch;                 /* the first switched device among them */
	bool have_index;              /* an A/B's index folder */
	char index_dir[PATH_MAX];
	int index_dirfd;
	struct abindex *index;
	unsigned rounds;              /* an A/B's rounds measured (all of them, or fewer when
				       * round_done stopped it) */
	char stopped[160];            /* what round_done said ("" when it was not asked) */
};

/*
 * Run plan p; *stop (a signal number set by the caller's handler) stops it
 * between and within points.  Fills res (free it with run_result_free);
 * returns the exit code.
 */
int run_execute(const struct run_plan *p, const struct run_hooks *h,
		volatile sig_atomic_t *stop, struct run_result *res);
/* Record an A/B's chart (a file name in the index folder) in its index.  0 or -1 with err. */
int run_result_set_chart(struct run_result *res, const char *name, char *err, size_t errlen);
void run_result_free(struct run_result *res);

#endif
