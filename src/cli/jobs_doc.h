/* SPDX-License-Identifier: GPL-2.0-only */
/* How `jobmix jobs` words a job parameter; shared with the man page (cmd_help.c). */
#ifndef JOBMIX_CLI_JOBS_DOC_H
#define JOBMIX_CLI_JOBS_DOC_H

#include <stddef.h>

#include "jobmix/job.h"

/* "int", "size", "bool", "enum", "flags", "number". */
const char *jobs_type_name(const struct job_param *p);
/* The accepted values: "a,b,c" (enum), "a|b" (flags), "1..64", "4k..1g"; "" for bool. */
void jobs_range_text(const struct job_param *p, char *buf, size_t len);

#endif
