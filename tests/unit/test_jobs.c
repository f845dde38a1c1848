// SPDX-License-Identifier: GPL-2.0-only
/*
 * Walks the registry: unique names, documented parameters, valid defaults,
 * and every kind runs once (prepare, setup, run_once, teardown) in a fresh
 * temporary directory, succeeds, leaves its user directory empty and, for
 * I/O kinds, reports the bytes it moved.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jm_test.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/job.h"

static void test_registry_shape(void **state)
{
	(void)state;
	assert_true(job_nkinds > 0);
	for (size_t i = 0; i < job_nkinds; i++) {
		const struct job_kind *k = job_kinds[i];
		assert_non_null(k->name);
		assert_non_null(k->family);
		assert_non_null(k->summary);
		assert_non_null(k->run_once);
		assert_ptr_equal(job_find(k->name), k);
		for (size_t j = i + 1; j < job_nkinds; j++)
			assert_string_not_equal(k->name, job_kinds[j]->name);
		size_t n = job_nparams(k);
		if (n)
			assert_true(k->params_size > 0);
		for (size_t p = 0; p < n; p++) {
			const struct job_param *jp = &k->params[p];
			assert_non_null(jp->help);
			assert_true(strlen(jp->help) > 5);
			assert_non_null(jp->def);
			assert_true(jp->offset < k->params_size);
			if (jp->type == JP_ENUM || jp->type == JP_FLAGS)
				assert_non_null(jp->choices);
			for (size_t q = p + 1; q < n; q++)
				assert_string_not_equal(jp->name, k->params[q].name);
		}
		char *params = calloc(1, k->params_size + 1);
		char err[256] = "";
		int rc = job_params_defaults(k, params, err, sizeof(err));
		if (rc)
			print_error("%s\n", err);
		assert_int_equal(rc, 0);
		/* the formatted default parses back to the same bytes */
		for (size_t p = 0; p < n; p++) {
			char text[128];
			char *again = calloc(1, k->params_size + 1);
			job_params_defaults(k, again, err, sizeof(err));
			job_param_format(&k->params[p], params, text, sizeof(text));
			assert_int_equal(job_param_parse(&k->params[p], again, text, err, sizeof(err)), 0);
			assert_memory_equal(params, again, k->params_size);
			free(again);
		}
		free(params);
	}
}

static void remove_tree(const char *path)
{
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", path);
}

/* Run one kind once with its defaults; returns 0 on success. */
static int run_kind(const struct job_kind *k, struct job_io *io_out, char *err, size_t errlen)
{
	char root[] = "/tmp/jobmix-test-XXXXXX";
	if (!mkdtemp(root))
		return -1;
	char udir[PATH_MAX], sdir[PATH_MAX], libexec[PATH_MAX], cwd[PATH_MAX];
	snprintf(udir, sizeof(udir), "%s/u0", root);
	snprintf(sdir, sizeof(sdir), "%s/shared", root);
	mkdir(udir, 0700);
	mkdir(sdir, 0700);
	if (!getcwd(cwd, sizeof(cwd)))
		return -1;
	snprintf(libexec, sizeof(libexec), "%s/libexec", cwd);

	void *params = calloc(1, k->params_size + 1);
	char *iobuf = aligned_alloc(4096, JOB_IOBUF_SIZE);
	job_fill_pattern(iobuf, JOB_IOBUF_SIZE, 1);
	struct jm_rng rng;
	jm_rng_seed(&rng, 1, 0);
	int rc = job_params_defaults(k, params, err, errlen);
	int ufd = dir_fd(udir), sfd = dir_fd(sdir);
	struct job_prep prep = { .shared_dir = sdir, .shared_fd = sfd, .nusers = 1, .dir_users = 1,
				 .filesize = 10 * 1024 + 1024 * 1024, .sync = JOB_SYNC_FILE,
				 .seed = 1, .job_name = k->name };
	struct job_ctx c = { .dir = udir, .dir_fd = ufd, .shared_dir = sdir, .shared_fd = sfd,
			     .libexec_dir = libexec,
			     .nusers = 1, .filesize = prep.filesize, .sync = JOB_SYNC_FILE,
			     .rng = &rng, .iobuf = iobuf, .job_name = k->name };
	void *st = NULL;
	if (!rc && k->prepare && k->prepare(&prep, k, params)) {
		snprintf(err, errlen, "prepare: %s", prep.err);
		rc = -1;
	}
	if (!rc && k->setup && k->setup(&c, k, params, &st)) {
		snprintf(err, errlen, "setup: %s", c.err);
		rc = -1;
	}
	if (!rc) {
		if (k->run_once(&c, k, params, st)) {
			snprintf(err, errlen, "run_once: %s", c.err);
			rc = -1;
		}
		if (k->teardown)
			k->teardown(&c, k, params, st);
	}
	if (!rc && count_entries(udir) != 0) {
		snprintf(err, errlen, "left %d entries in its user directory", count_entries(udir));
		rc = -1;
	}
	*io_out = c.io;
	close(ufd);
	close(sfd);
	remove_tree(root);
	free(iobuf);
	free(params);
	return rc;
}

static void test_every_kind_runs_once(void **state)
{
	(void)state;
	int failures = 0;
	for (size_t i = 0; i < job_nkinds; i++) {
		const struct job_kind *k = job_kinds[i];
		struct job_io io = { 0 };
		char err[512] = "";
		if (run_kind(k, &io, err, sizeof(err))) {
			print_error("%s: %s\n", k->name, err);
			failures++;
			continue;
		}
		if ((k->flags & JOB_IO) && io.rbytes + io.wbytes == 0) {
			print_error("%s: an I/O kind that reported no bytes\n", k->name);
			failures++;
		}
		if ((k->flags & JOB_IO) && io.rops + io.wops == 0) {
			print_error("%s: an I/O kind that reported no operations\n", k->name);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry_shape),
		cmocka_unit_test(test_every_kind_runs_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
