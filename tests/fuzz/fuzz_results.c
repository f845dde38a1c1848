// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the run.json reader and what reads its records: the
 * input is written to a memfd and read by res_read() through
 * /proc/self/fd/N (the reader reads paths only), with jobs_by_kind.  A run
 * that reads is then reported as `jobmix report` and `jobmix compare` would,
 * beside the runs kept in tests/data/runs (tables in every format, chart
 * curves, the comparison), and looked up by the --by keys.  A crash, a
 * leak or a sanitizer report is a finding.  Built and run by `make fuzz`
 * (from the top of the tree).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jobmix/report.h"
#include "jobmix/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const ref_files[] = { "tests/data/runs/v1-peak.json",
					 "tests/data/runs/v2-ab-bfq.json" };
#define NREF (sizeof(ref_files) / sizeof(ref_files[0]))
static struct res_rec runs[NREF + 1];   /* the stored runs, then the input's */
static size_t nref;
static FILE *devnull;

/* Tables, curves and the comparison of the stored runs and the input's run (last in runs[]). */
static void fz_report(void)
{
	const struct rep_opts o = { 0 };
	struct rep_report rep;
	struct rep_cmp cmp;
	char err[512];

	if (!rep_build(runs, nref + 1, &o, &rep, err, sizeof(err))) {
		for (int fmt = REP_TEXT; fmt <= REP_HTML; fmt++)
			(void)rep_render(devnull, &rep, (enum rep_format)fmt, NULL);
		for (size_t t = 0; t < rep.ntable; t++) {
			struct rep_series *s;
			size_t n;
			if (!rep_series(&rep, t, &s, &n))
				rep_series_free(s, n);
		}
		rep_free(&rep);
	}
	if (!rep_compare(runs, nref, &runs[nref], 1, &o, &cmp, err, sizeof(err))) {
		for (int fmt = REP_TEXT; fmt <= REP_HTML; fmt++)
			(void)rep_cmp_render(devnull, &cmp, (enum rep_format)fmt);
		rep_cmp_free(&cmp);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	static const char *const keys[] = { "kernel", "scheduler", "workload", "status", "id",
					    "run_id", "started", "nonesuch" };
	char err[1024];

	if (fd < 0) {
		fd = memfd_create("run.json", 0);
		devnull = fopen("/dev/null", "w");
		if (fd < 0 || !devnull)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		for (size_t i = 0; i < NREF; i++)
			if (!res_read(ref_files[i], RES_READ_KINDS, &runs[nref], err, sizeof(err)))
				nref++;
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	struct res_rec *rec = &runs[nref];
	if (res_read(path, RES_READ_KINDS, rec, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		(void)res_rec_get(rec, keys[i]);
	fz_report();
	res_rec_free(rec);
	return 0;
}
