// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix sched [--restore] [DEVICE...]`: show the IO schedulers of the
 * block devices (all of /sys/block, or those named), or act on the records
 * a jobmix that was killed left (under /run/jobmix/sched): put back the
 * scheduler of a device that is still the one recorded, drop the record of
 * one that is another device now, clear the record of one that is gone.
 * A device held by a running A/B is left to it.  `jobmix restore` (and
 * `sched --restore` without devices) also acts on the records of every
 * other system value an axes matrix (run -X) left changed (sys_knob.h).
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/opt.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_knob.h"
#include "jobmix/sys_sched.h"

enum sched_opt_id { SCHED_RESTORE = OPT_LONG_ID };

static const struct opt sched_rows[] = {
	{ .arg = OPT_ROW, .metavar = "(no option)",
	  .help = "each device's schedulers, the active one in brackets" },
	{ .id = SCHED_RESTORE, .name = "restore", .arg = OPT_NONE,
	  .help = "put back the schedulers a killed jobmix left switched\n"
		  "(on the devices it left them on; records of devices\n"
		  "that changed or are gone are dropped); without devices,\n"
		  "also every value a matrix left (as `jobmix restore`)" },
};

const struct opt_cmd cmd_sched_opts = {
	.name = "sched",
	.synopsis = "usage: jobmix sched [--restore] [DEVICE...]\n",
	.rows = OPT_LIST(sched_rows),
	.col = 16,
	.flat = true,
};

/* What --restore did, counted by sys_repair kind. */
struct sched_tally {
	unsigned n[SYS_REPAIR_FAILED + 1];
};

static void sched_report(void *arg, enum sys_repair what, const char *msg)
{
	struct sched_tally *t = arg;
	t->n[what]++;
	/* a record not acted on (a value left as it is, or kept) goes to stderr */
	fflush(stdout);
	fprintf(what == SYS_REPAIR_FAILED || what == SYS_REPAIR_DROPPED ? stderr : stdout, "%s%s\n",
		what == SYS_REPAIR_FAILED ? "FAILED: " : "", msg);
}

/* The closing line of --restore: each kind of record met, and how many. */
static void sched_summary(const struct sched_tally *t)
{
	static const char *const said[] = {
		[SYS_REPAIR_RESTORED] = "restored",
		[SYS_REPAIR_DROPPED] = "dropped (another device or mount now, or a value set "
					"since: left as it is)",
		[SYS_REPAIR_CLEARED] = "cleared (device, mount or tunable gone)",
		[SYS_REPAIR_LEFT] = "left to a running jobmix",
		[SYS_REPAIR_FAILED] = "failed (record kept)",
	};
	char line[512] = "";
	size_t used = 0;
	for (size_t i = 0; i <= SYS_REPAIR_FAILED; i++)
		if (t->n[i] && used < sizeof(line))
			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%u %s",
						 used ? ", " : "", t->n[i], said[i]);
	printf("%s\n", used ? line : "nothing to restore");
}

static const struct opt restore_rows[] = {
	{ .arg = OPT_ROW, .metavar = "(no option)",
	  .help = "put back every IO scheduler and every system value\n"
		  "(queue attribute, sysctl, mount option, scratch mount)\n"
		  "a killed jobmix left changed, where the target is still\n"
		  "the one recorded and reads the value jobmix wrote (a\n"
		  "value set since is left, its record dropped)" },
};

const struct opt_cmd cmd_restore_opts = {
	.name = "restore",
	.synopsis = "usage: jobmix restore\n",
	.rows = OPT_LIST(restore_rows),
	.col = 16,
	.flat = true,
};

/*
 * --restore: every record, or those of the devices named (gone ones too);
 * with none named, the knobs' records as well.
 */
static int sched_restore(const char *cmd, int n, char **devs)
{
	struct sched_tally t = { 0 };
	char err[512];
	int failed = 0;
	if (geteuid() != 0) {
		fprintf(stderr, "jobmix %s: restoring needs root (its records are root's)\n", cmd);
		return JM_EXIT_USAGE;
	}
	for (int i = 0; i < (n ? n : 1); i++) {
		int rc = sys_sched_repair(n ? devs[i] : NULL, sched_report, &t, err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "jobmix %s: %s\n", cmd, err);
			return JM_EXIT_USAGE;
		}
		failed += rc;
	}
	if (!n) {
		int rc = sys_knob_repair(sched_report, &t, err, sizeof(err));
		if (rc < 0) {
			fprintf(stderr, "jobmix %s: %s\n", cmd, err);
			return JM_EXIT_USAGE;
		}
		failed += rc;
	}
	sched_summary(&t);
	return failed ? JM_EXIT_RUN_FAILED : JM_EXIT_OK;
}

static void sched_show(const char *dev)
{
	char active[SYS_SCHED_NAME], all[SYS_SCHED_LIST], out[SYS_SCHED_LIST + 8] = "";
	if (sys_sched_get(dev, active, sizeof(active), all, sizeof(all))) {
		printf("%-12s (no scheduler file)\n", dev);
		return;
	}
	char *save = NULL;
	for (char *w = strtok_r(all, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t n = strlen(out);
		snprintf(out + n, sizeof(out) - n, "%s%s%s%s", n ? " " : "",
			 strcmp(w, active) ? "" : "[", w, strcmp(w, active) ? "" : "]");
	}
	printf("%-12s %s%s\n", dev, out, sys_sched_settable(dev) ? "" : "  (not settable)");
}

int cmd_sched(int argc, char **argv)
{
	struct opt_parser p;
	bool restore = false;
	int c;
	if (opt_build(&p, &cmd_sched_opts))
		return JM_EXIT_USAGE;
	optind = 1;
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		switch (c) {
		case SCHED_RESTORE: restore = true; break;
		case 'h': opt_usage(stdout, &cmd_sched_opts); return JM_EXIT_OK;
		default: opt_usage(stderr, &cmd_sched_opts); return JM_EXIT_USAGE;
		}
	}
	if (restore)
		return sched_restore("sched", argc - optind, argv + optind);
	for (int i = optind; i < argc; i++)
		if (!sys_dev_name_valid(argv[i])) {
			fprintf(stderr, "jobmix sched: '%s' is not a block device listed in /sys/block\n",
				argv[i]);
			return JM_EXIT_USAGE;
		}
	if (optind < argc) {
		for (int i = optind; i < argc; i++)
			sched_show(argv[i]);
		return JM_EXIT_OK;
	}
	DIR *d = opendir("/sys/block");
	if (!d) {
		fprintf(stderr, "jobmix sched: cannot read /sys/block\n");
		return JM_EXIT_RUN_FAILED;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && sys_dev_name_valid(e->d_name))
			sched_show(e->d_name);
	closedir(d);
	return JM_EXIT_OK;
}

int cmd_restore(int argc, char **argv)
{
	struct opt_parser p;
	int c;
	if (opt_build(&p, &cmd_restore_opts))
		return JM_EXIT_USAGE;
	optind = 1;
	while ((c = opt_getopt(&p, argc, argv)) != -1) {
		switch (c) {
		case 'h': opt_usage(stdout, &cmd_restore_opts); return JM_EXIT_OK;
		default: opt_usage(stderr, &cmd_restore_opts); return JM_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "jobmix restore: takes no arguments ('%s')\n", argv[optind]);
		return JM_EXIT_USAGE;
	}
	return sched_restore("restore", 0, NULL);
}
