// SPDX-License-Identifier: GPL-2.0-only
/*
 * Environment capture: kernel, host, CPUs, memory, and the filesystem,
 * mount, block devices and their queue settings holding a path.  Reads
 * only; uses mount.c, dev.c and queue.c, which never call back here.
 */
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "jobmix/sys.h"
#include "jobmix/version.h"

void sys_env_set_devices(struct sys_env *env, const struct sys_devset *set)
{
	const struct sys_queue *first = NULL;

	env->nqueues = 0;
	env->device[0] = env->scheduler[0] = env->schedulers[0] = 0;
	for (size_t i = 0; i < set->n && i < SYS_MAX_DEVS; i++) {
		struct sys_queue *q = &env->queues[env->nqueues++];
		sys_queue_read(&set->dev[i], q);
		if (!first && q->settable)
			first = q;
	}
	if (!first && env->nqueues)
		first = &env->queues[0];
	if (!first)
		return;
	snprintf(env->device, sizeof(env->device), "%s", first->dev);
	snprintf(env->scheduler, sizeof(env->scheduler), "%s", first->scheduler);
	snprintf(env->schedulers, sizeof(env->schedulers), "%s", first->schedulers);
}

void sys_env_set_mount(struct sys_env *env, const char *path)
{
	struct sys_mount m;
	if (sys_mount_find(path, &m) == 0) {
		snprintf(env->fs_type, sizeof(env->fs_type), "%s", m.fs_type);
		snprintf(env->mount_point, sizeof(env->mount_point), "%s", m.mount_point);
		sys_ctx_atime(m.options, env->mount_options, sizeof(env->mount_options));
	}
}

void sys_env_capture(const char *path, struct sys_env *env)
{
	struct utsname u;
	struct sysinfo si;

	memset(env, 0, sizeof(*env));
	snprintf(env->jobmix_version, sizeof(env->jobmix_version), "%s", JOBMIX_VERSION);
	if (uname(&u) == 0) {
		snprintf(env->kernel, sizeof(env->kernel), "%s", u.release);
		snprintf(env->machine, sizeof(env->machine), "%s", u.machine);
		snprintf(env->hostname, sizeof(env->hostname), "%s", u.nodename);
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	env->cpus = n > 0 ? (unsigned)n : 0;
	if (sysinfo(&si) == 0)
		env->mem_bytes = (uint64_t)si.totalram * (si.mem_unit ? si.mem_unit : 1);
	sys_context_capture(&env->ctx);

	if (!path)
		return;
	sys_env_set_mount(env, path);
	struct sys_devset set = { 0 };
	char err[256];
	if (sys_dev_resolve(path, &set, err, sizeof(err)) == 0)
		sys_env_set_devices(env, &set);
}
