// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metadata jobs: creat_clo (create/close churn on one name) and link_test
 * (hard-link churn).  Names live in the user's private directory, so they
 * cannot collide between users (re-aim used pid % 100000).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "jobmix/job.h"

static int creat_clo_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			 void *state)
{
	(void)k, (void)params, (void)state;
	char path[PATH_MAX];
	job_own_path(path, c, "creat_clo");
	for (int i = 0; i < 1000; i++) {
		int fd = creat(path, 0600);
		if (fd < 0)
			return job_fail(c, "creat", path, errno);
		if (close(fd))
			return job_fail(c, "close", path, errno);
	}
	if (unlink(path))
		return job_fail(c, "unlink", path, errno);
	return 0;
}

const struct job_kind job_creat_clo = {
	.name = "creat_clo",
	.family = "fs",
	.summary = "1000 x (creat, close) of one file name, then unlink",
	.doc = "AIM7 creat-clo: file creation and close churn in the user's directory.",
	.flags = JOB_DISK,
	.run_once = creat_clo_run,
};

#define LINKS 8

static int link_test_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			 void *state)
{
	(void)k, (void)params, (void)state;
	char names[LINKS][PATH_MAX];
	int ret = -1, made = 0;
	for (int i = 0; i < LINKS; i++) {
		char leaf[32];
		snprintf(leaf, sizeof(leaf), "link_test.%d", i);
		job_own_path(names[i], c, leaf);
	}
	int fd = open(names[0], O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		return job_fail(c, "create", names[0], errno);
	close(fd);
	made = 1;
	for (; made < LINKS; made++)
		if (link(names[0], names[made])) {
			job_fail(c, "link", names[made], errno);
			goto out;
		}
	for (int i = 0; i < 63; i++) {
		int n = 1 + i % (LINKS - 1);
		if (unlink(names[n])) {
			job_fail(c, "unlink", names[n], errno);
			goto out;
		}
		if (link(names[0], names[n])) {
			job_fail(c, "link", names[n], errno);
			made = n; /* names[n] is gone; the rest still exist */
			goto out_partial;
		}
	}
	ret = 0;
out:
	for (int i = 0; i < made; i++)
		unlink(names[i]);
	return ret;
out_partial:
	for (int i = 0; i < LINKS; i++)
		unlink(names[i]);
	return ret;
}

const struct job_kind job_link_test = {
	.name = "link_test",
	.family = "fs",
	.summary = "8 names: create one, link 7; 63 x (unlink, link); unlink all",
	.doc = "AIM7 link_test: hard-link churn on one inode.",
	.flags = JOB_DISK,
	.run_once = link_test_run,
};
