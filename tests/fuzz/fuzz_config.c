// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for reaim.config: the input is the config, written to a
 * memfd and read through /proc/self/fd/N by compat_read_config(); a config
 * that reads is then imported with tests/data/reaim/workfile.fserver, as
 * `jobmix import -c` and `jobmix reaim -c` do.  Each step either fails
 * with a message naming its file, or the YAML loads.  A crash, a leak, a
 * hang or a sanitizer report is a finding.  Built and run by `make fuzz`
 * (from the top of the tree).
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

static const char workfile[] = "tests/data/reaim/workfile.fserver";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	char err[1200], *yaml = NULL;
	struct compat_config cfg;

	if (fd < 0) {
		fd = memfd_create("reaim.config", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		abort();
	if (compat_read_config(path, &cfg, err, sizeof(err))) {
		if (strncmp(err, path, strlen(path)))
			abort();
		return 0;
	}
	if (compat_import(workfile, &cfg, path, "exec", &yaml, err, sizeof(err))) {
		/* named: the config (STARTUSERS above ENDUSERS) or the workfile */
		if ((strncmp(err, path, strlen(path)) && strncmp(err, workfile, strlen(workfile))) ||
		    yaml)
			abort();
		compat_config_free(&cfg);
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
	compat_config_free(&cfg);
	return 0;
}
