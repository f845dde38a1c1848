// SPDX-License-Identifier: GPL-2.0-only
/*
 * `jobmix sched [--restore] [DEVICE...]`: show the IO schedulers of the
 * block devices (all of /sys/block, or those named), or put back the
 * schedulers a jobmix that was killed left switched (its state files under
 * /run/jobmix/sched).  A device held by a running A/B is left to it.
 */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_sched.h"

void cmd_sched_usage(FILE *f)
{
	fprintf(f, "usage: jobmix sched [--restore] [DEVICE...]\n"
		   "  (no option)   each device's schedulers, the active one in brackets\n"
		   "  --restore     put back the schedulers a killed jobmix left switched\n");
}

static void sched_report(void *arg, bool ok, const char *msg)
{
	int *n = arg;
	(*n)++;
	printf("%s%s\n", ok ? "" : "FAILED: ", msg);
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
	static const struct option longopts[] = {
		{ "restore", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool restore = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'R': restore = true; break;
		case 'h': cmd_sched_usage(stdout); return JM_EXIT_OK;
		default: cmd_sched_usage(stderr); return JM_EXIT_USAGE;
		}
	}
	for (int i = optind; i < argc; i++)
		if (!sys_dev_name_valid(argv[i])) {
			fprintf(stderr, "jobmix sched: '%s' is not a block device listed in /sys/block\n",
				argv[i]);
			return JM_EXIT_USAGE;
		}
	if (restore) {
		int seen = 0, failed = 0;
		if (optind == argc)
			failed = sys_sched_repair(NULL, sched_report, &seen);
		for (int i = optind; i < argc; i++)
			failed += sys_sched_repair(argv[i], sched_report, &seen);
		if (!seen)
			printf("nothing to restore\n");
		return failed ? JM_EXIT_RUN_FAILED : JM_EXIT_OK;
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
