// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the workload loader: the input is a workload file's
 * bytes, loaded with wl_load_buffer() (what wl_load() does after reading a
 * file).  A workload that loads is printed, and the printed form must load
 * back to the same workload, as `jobmix check` promises (every value equal;
 * only which parameters were given differs: the printed form gives all).
 * A crash, a leak, an abort or a sanitizer report is a finding.  Built and
 * run by `make fuzz`.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The first field in which b differs from a, or NULL when they are the same workload. */
static const char *fz_differs(const struct workload *a, const struct workload *b)
{
#define FZ_SAME(field) if (memcmp(&a->field, &b->field, sizeof(a->field))) return #field
	if (strcmp(a->name, b->name))
		return "name";
	if (strcmp(a->description, b->description))
		return "description";
	FZ_SAME(filesize);
	FZ_SAME(poolsize);
	FZ_SAME(ndirs);
	for (size_t i = 0; i < a->ndirs; i++)
		if (strcmp(a->dirs[i], b->dirs[i]))
			return "dirs";
	FZ_SAME(layout);
	FZ_SAME(users.start);
	FZ_SAME(users.end);
	FZ_SAME(users.step);
	FZ_SAME(users.geometric);
	FZ_SAME(users.jobs_per_user);
	FZ_SAME(users.mode);
	FZ_SAME(users.repeat);
	FZ_SAME(users.repeat_auto);
	FZ_SAME(users.as);
	FZ_SAME(users.converge_jpm_per_user);
	FZ_SAME(users.max_points);
	FZ_SAME(users.max_time_s);
	FZ_SAME(measure.how);
	FZ_SAME(measure.duration_s);
	FZ_SAME(measure.ramp_s);
	FZ_SAME(measure.steady_pct);
	FZ_SAME(measure.steady_windows);
	FZ_SAME(measure.settle);
	FZ_SAME(measure.settle_timeout_s);
	FZ_SAME(measure.drop_caches);
	FZ_SAME(measure.warmup);
	FZ_SAME(sync);
	FZ_SAME(seed);
	FZ_SAME(nmix);
	for (size_t i = 0; i < a->nmix; i++) {
		const struct wl_entry *x = &a->mix[i], *y = &b->mix[i];
		if (x->kind != y->kind || strcmp(x->name, y->name) || x->weight != y->weight)
			return "mix entry";
		if (x->kind->params_size && memcmp(x->params, y->params, x->kind->params_size))
			return "mix entry parameters";
	}
	return NULL;
#undef FZ_SAME
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct workload wl, again;
	struct wl_error err;
	char *text = NULL;
	size_t len = 0;

	if (wl_load_buffer("fuzz.yaml", (const char *)data, size, &wl, &err))
		return 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		abort();
	wl_print(f, &wl);
	if (fclose(f))
		abort();
	if (wl_load_buffer("printed.yaml", text, len, &again, &err)) {
		fprintf(stderr, "the printed form does not load: %s\n--- printed:\n%s", err.msg, text);
		abort();
	}
	const char *what = fz_differs(&wl, &again);
	if (what) {
		fprintf(stderr, "the printed form loads to another %s\n--- printed:\n%s", what, text);
		abort();
	}
	wl_free(&again);
	wl_free(&wl);
	free(text);
	return 0;
}
