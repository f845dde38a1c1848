// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metadata jobs: creat_clo (create/close churn on one name) and link_test
 * (hard-link churn).  Names live in the user's directory and carry the
 * user, so they cannot collide between users (re-aim used pid % 100000).
 * Every call is beneath the held directory descriptor (openat with
 * O_NOFOLLOW, linkat, unlinkat), by names made before the barrier.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "jobmix/job.h"

#define FS_NAME 48
#define LINKS 8

/* Per user: the names of its files (one for creat_clo, LINKS for link_test). */
struct fs_state {
	char name[LINKS][FS_NAME];
};

/* Before the barrier: creat_clo's one name or link_test's eight. */
static int fs_setup(struct job_ctx *c, const struct job_kind *k, const void *params,
		    void **state)
{
	(void)params;
	struct fs_state *s = malloc(sizeof(*s));
	if (!s)
		return job_fail(c, "malloc", NULL, ENOMEM);
	const unsigned n = k->variant ? LINKS : 1;
	for (unsigned i = 0; i < n; i++) {
		char leaf[32];
		if (n == 1)
			snprintf(leaf, sizeof(leaf), "%s", k->name);
		else
			snprintf(leaf, sizeof(leaf), "%s.%u", k->name, i);
		job_own_name(s->name[i], sizeof(s->name[i]), c, leaf);
	}
	*state = s;
	return 0;
}

/* creat(2) as re-aim's: O_CREAT|O_WRONLY|O_TRUNC, here beneath the directory, not followed. */
static int creat_clo_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			 void *state)
{
	(void)k, (void)params;
	const char *name = ((const struct fs_state *)state)->name[0];
	for (uint64_t i = job_scaled(c, 1000); i > 0; i--) {
		int fd = openat(c->dir_fd, name, O_CREAT | O_WRONLY | O_TRUNC | O_NOFOLLOW |
				O_CLOEXEC, 0600);
		if (fd < 0)
			return job_fail_at(c, "creat", c->dir, name, errno);
		if (close(fd))
			return job_fail_at(c, "close", c->dir, name, errno);
	}
	if (unlinkat(c->dir_fd, name, 0))
		return job_fail_at(c, "unlink", c->dir, name, errno);
	return 0;
}

const struct job_kind job_creat_clo = {
	.name = "creat_clo",
	.family = "fs",
	.summary = "1000 x (creat, close) of one file name, then unlink",
	.doc = "AIM7 creat-clo: file creation and close churn in the user's directory.",
	.flags = JOB_DISK,
	.setup = fs_setup,
	.run_once = creat_clo_run,
	.teardown = job_free_state,
};

static int link_test_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			 void *state)
{
	(void)k, (void)params;
	const struct fs_state *s = state;
	const int dfd = c->dir_fd;
	int ret = -1, made = 0;
	int fd = openat(dfd, s->name[0], O_CREAT | O_TRUNC | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			0600);
	if (fd < 0)
		return job_fail_at(c, "create", c->dir, s->name[0], errno);
	close(fd);
	made = 1;
	/* linkat without AT_SYMLINK_FOLLOW links the name itself, never a link's target */
	for (; made < LINKS; made++)
		if (linkat(dfd, s->name[0], dfd, s->name[made], 0)) {
			job_fail_at(c, "link", c->dir, s->name[made], errno);
			goto out;
		}
	const int relinks = (int)job_scaled(c, 63);
	for (int i = 0; i < relinks; i++) {
		int n = 1 + i % (LINKS - 1);
		if (unlinkat(dfd, s->name[n], 0)) {
			job_fail_at(c, "unlink", c->dir, s->name[n], errno);
			goto out;
		}
		if (linkat(dfd, s->name[0], dfd, s->name[n], 0)) {
			job_fail_at(c, "link", c->dir, s->name[n], errno);
			made = n; /* name[n] is gone; the rest still exist */
			goto out_partial;
		}
	}
	ret = 0;
out:
	for (int i = 0; i < made; i++)
		unlinkat(dfd, s->name[i], 0);
	return ret;
out_partial:
	for (int i = 0; i < LINKS; i++)
		unlinkat(dfd, s->name[i], 0);
	return ret;
}

const struct job_kind job_link_test = {
	.name = "link_test",
	.family = "fs",
	.summary = "8 names: create one, link 7; 63 x (unlink, link); unlink all",
	.doc = "AIM7 link_test: hard-link churn on one inode.",
	.flags = JOB_DISK,
	.variant = "links",
	.setup = fs_setup,
	.run_once = link_test_run,
	.teardown = job_free_state,
};
