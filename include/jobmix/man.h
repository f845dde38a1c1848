/* SPDX-License-Identifier: GPL-2.0-only */
/* The jobmix(1) manual page and the wording of a job parameter (src/display/man.c). */
#ifndef JOBMIX_MAN_H
#define JOBMIX_MAN_H

#include <stddef.h>
#include <stdio.h>

#include "jobmix/job.h"

struct cli_command;

/*
 * The whole manual page in roff, from the commands table, each command's
 * option table and the job registry: 0, or -1 when a command has no option
 * table.
 */
int man_page(FILE *f, const struct cli_command *cmds, size_t n);

/* "int", "size", "bool", "enum", "flags", "number". */
const char *jobs_type_name(const struct job_param *p);
/* The accepted values: "a,b,c" (enum), "a|b" (flags), "1..64", "4k..1g"; "" for bool. */
void jobs_range_text(const struct job_param *p, char *buf, size_t len);

#endif
