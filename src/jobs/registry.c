// SPDX-License-Identifier: GPL-2.0-only
/* The registry of job kinds, generated from the one list in kinds.h. */
#include <string.h>

#include "jobmix/job.h"
#include "jobmix/parse.h"
#include "kinds.h"

#define DECLARE_KIND(n) extern const struct job_kind job_##n;
JOB_KINDS(DECLARE_KIND)
#undef DECLARE_KIND

#define KIND_PTR(n) &job_##n,
const struct job_kind *const job_kinds[] = { JOB_KINDS(KIND_PTR) NULL };
#undef KIND_PTR

const size_t job_nkinds = sizeof(job_kinds) / sizeof(job_kinds[0]) - 1;

const struct job_kind *job_find(const char *name)
{
	for (size_t i = 0; i < job_nkinds; i++)
		if (!strcmp(job_kinds[i]->name, name))
			return job_kinds[i];
	return NULL;
}

const char *job_suggest(const char *name)
{
	const char *names[job_nkinds + 1];
	for (size_t i = 0; i < job_nkinds; i++)
		names[i] = job_kinds[i]->name;
	names[job_nkinds] = NULL;
	return jm_suggest(name, names);
}

size_t job_nparams(const struct job_kind *k)
{
	size_t n = 0;
	while (n < JOB_MAX_PARAMS && k->params[n].name)
		n++;
	return n;
}

size_t job_nparams_all(const struct job_kind *k)
{
	return job_nparams(k) + JOB_NCOMMON;
}

const struct job_param *job_param_at(const struct job_kind *k, size_t i)
{
	size_t own = job_nparams(k);
	return i < own ? &k->params[i] : &job_common_params[i - own];
}

bool job_param_is_common(const struct job_param *p)
{
	return p >= job_common_params && p < job_common_params + JOB_NCOMMON;
}

size_t job_param_index(const struct job_kind *k, const struct job_param *p)
{
	if (job_param_is_common(p))
		return job_nparams(k) + (size_t)(p - job_common_params);
	return (size_t)(p - k->params);
}

const struct job_param *job_param_find(const struct job_kind *k, const char *name)
{
	for (size_t i = 0; i < job_nparams_all(k); i++)
		if (!strcmp(job_param_at(k, i)->name, name))
			return job_param_at(k, i);
	return NULL;
}
