// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the workload loader: the input is a workload file's
 * bytes, loaded with wl_load_buffer() (what wl_load() does after reading a
 * file).  A workload that loads is printed and the printed form must load
 * again, as `jobmix check` promises; a crash, a leak, an abort or a
 * sanitizer report is a finding.  Built and run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "jobmix/workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	wl_free(&again);
	wl_free(&wl);
	free(text);
	return 0;
}
