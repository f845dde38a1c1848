// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for `jobmix reaim`'s option parser: the input split on
 * NUL bytes is argv after "reaim" (at most 32 words), parsed by
 * reaim_parse(), which touches no file.  What it accepts must hold: the
 * counts as numbers of at most 7 digits (never cut), start not above end.
 * A crash, a leak or a sanitizer report is a finding.  Built and run by
 * `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobmix/reaim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	char *buf = malloc(size + 1), *argv[34];
	int argc = 0;
	if (!buf)
		abort();
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();
	memcpy(buf, data, size);
	buf[size] = 0;
	argv[argc++] = "reaim";
	for (size_t i = 0; i <= size && argc < 33;) {
		argv[argc++] = buf + i;
		i += strlen(buf + i) + 1;
	}
	argv[argc] = NULL;
	/* its messages go to stderr: not the fuzzer's log */
	FILE *err = stderr, *out = stdout;
	stderr = devnull;
	stdout = devnull;
	struct reaim_opts r;
	int rc = reaim_parse(argc, argv, &r);
	stderr = err;
	stdout = out;
	if (!rc) {
		const char *const counts[] = { r.start, r.end, r.incr, r.jobs, r.repeat };
		for (size_t i = 0; i < 5; i++)
			if (counts[i] && (strlen(counts[i]) > 7 || strspn(counts[i], "0123456789") !=
					  strlen(counts[i])))
				abort();
		if (r.start && r.end && r.start_n > r.end_n)
			abort();
	}
	free(buf);
	return 0;
}
