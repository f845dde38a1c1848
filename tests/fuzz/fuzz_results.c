// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the run.json reader: the input is written to a
 * memfd and read back by res_read() through /proc/self/fd/N (the reader
 * reads paths only), with jobs_by_kind; a run that reads is also looked up
 * by the keys `jobmix report --by` uses.  A crash, a leak or a sanitizer
 * report is a finding.  Built and run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jobmix/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	static const char *const keys[] = { "kernel", "scheduler", "workload", "status", "id",
					    "run_id", "started", "nonesuch" };
	struct res_rec rec;
	char err[1024];

	if (fd < 0) {
		fd = memfd_create("run.json", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	if (res_read(path, RES_READ_KINDS, &rec, err, sizeof(err)))
		return 0;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		(void)res_rec_get(&rec, keys[i]);
	res_rec_free(&rec);
	return 0;
}
