// SPDX-License-Identifier: GPL-2.0-only
/* `jobmix jobs [NAME] [--markdown]`: the job catalogue, from the registry. */
#include <stdio.h>
#include <string.h>

#include "jobmix/cli.h"
#include "jobmix/exitcode.h"
#include "jobmix/job.h"
#include "jobmix/opt.h"
#include "jobmix/man.h"

static void show_kind(const struct job_kind *k)
{
	printf("%s (%s): %s\n", k->name, k->family, k->summary);
	static const struct {
		unsigned flag;
		const char *text;
	} flags[] = {
		{ JOB_DISK, "uses the work directories" },
		{ JOB_IO, "reports bytes and requests (MB/s, IOPS)" },
		{ JOB_PROCESS_ONLY, "users as processes only" },
	};
	const char *sep = "flags: ";
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (k->flags & flags[i].flag) {
			printf("%s%s", sep, flags[i].text);
			sep = ", ";
		}
	if (sep[0] == ',')
		putchar('\n');
	if (k->doc)
		printf("\n%s\n", k->doc);
	size_t n = job_nparams_all(k);
	printf("\nParameters%s:\n", job_nparams(k) ? "" : " (only those every job takes)");
	for (size_t i = 0; i < n; i++) {
		const struct job_param *p = job_param_at(k, i);
		char range[256];
		if (i == job_nparams(k) && i)
			printf("  every job takes:\n");
		jobs_range_text(p, range, sizeof(range));
		printf("  %-14s %-6s default %-8s %s\n", p->name, jobs_type_name(p),
		       p->def[0] ? p->def : "\"\"", range);
		printf("  %-14s %s\n", "", p->help);
	}
}

/* docs/jobs.md's job table: one row per kind, parameters inline. */
static void markdown(void)
{
	printf("| job | family | what it does | parameters |\n|---|---|---|---|\n");
	for (size_t i = 0; i < job_nkinds; i++) {
		const struct job_kind *k = job_kinds[i];
		printf("| `%s` | %s | %s | ", k->name, k->family, k->summary);
		size_t n = job_nparams(k);
		for (size_t j = 0; j < n; j++)
			printf("%s`%s`=%s", j ? ", " : "", k->params[j].name,
			       k->params[j].def[0] ? k->params[j].def : "\"\"");
		printf("%s |\n", n ? "" : "-");
	}
	printf("\nEvery job also takes ");
	for (size_t j = 0; j < JOB_NCOMMON; j++) {
		const struct job_param *p = &job_common_params[j];
		printf("%s`%s`=%s (%s)", j ? "; " : "", p->name, p->def, p->help);
	}
	printf(".\n");
}

enum jobs_opt_id { JOBS_MARKDOWN = OPT_LONG_ID };

static const struct opt jobs_rows[] = {
	{ .arg = OPT_ROW, .metavar = "(no argument)",
	  .help = "every job kind: name, family, what it does" },
	{ .arg = OPT_ROW, .metavar = "NAME", .help = "one kind: what it does, its flags and parameters" },
	{ .id = JOBS_MARKDOWN, .name = "markdown", .arg = OPT_NONE,
	  .help = "the job table as Markdown (docs/jobs.md's)" },
};

/* One argument, looked at by hand; the table gives the help and the names. */
const struct opt_cmd cmd_jobs_opts = {
	.name = "jobs",
	.synopsis = "usage: jobmix jobs [NAME | --markdown]\n",
	.rows = OPT_LIST(jobs_rows),
	.col = 17,
	.flat = true,
};

int cmd_jobs(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		opt_usage(stdout, &cmd_jobs_opts);
		return JM_EXIT_OK;
	}
	const struct opt *o = argc > 1 ? opt_find(&cmd_jobs_opts, argv[1]) : NULL;
	if (o && o->id == JOBS_MARKDOWN && !strchr(argv[1], '=')) {
		markdown();
		return JM_EXIT_OK;
	}
	if (argc > 1) {
		const struct job_kind *k = job_find(argv[1]);
		if (!k) {
			const char *near = job_suggest(argv[1]);
			fprintf(stderr, "jobmix: unknown job '%s'%s%s%s\n", argv[1],
				near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
			return JM_EXIT_USAGE;
		}
		show_kind(k);
		return JM_EXIT_OK;
	}
	for (size_t i = 0; i < job_nkinds; i++)
		printf("%-18s %-8s %s\n", job_kinds[i]->name, job_kinds[i]->family,
		       job_kinds[i]->summary);
	return JM_EXIT_OK;
}
