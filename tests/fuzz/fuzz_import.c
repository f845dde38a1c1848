// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for `jobmix import`'s reading side: the input is a
 * re-aim workfile, written to a memfd and imported through /proc/self/fd/N
 * (compat_import reads paths only, as root reads a file someone wrote).
 * An import either fails with "FILE:LINE: ..." or "FILE: ..." naming the
 * workfile, or gives YAML that loads (compat_import validates it; loaded
 * again here: it must).  A crash, a leak, a hang or a sanitizer report is
 * a finding.  Built and run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jobmix/compat.h"
#include "jobmix/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	char err[1200], *yaml = NULL;

	if (fd < 0) {
		fd = memfd_create("workfile", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	if (compat_import(path, NULL, NULL, "exec", &yaml, err, sizeof(err))) {
		/* every message names the workfile */
		if (strncmp(err, path, strlen(path)) || yaml)
			abort();
		return 0;
	}
	struct workload wl;
	struct wl_error werr;
	if (wl_load_buffer("imported.yaml", yaml, strlen(yaml), &wl, &werr)) {
		fprintf(stderr, "import made YAML that does not load: %s\n%s", werr.msg, yaml);
		abort();
	}
	wl_free(&wl);
	free(yaml);
	return 0;
}
