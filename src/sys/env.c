// SPDX-License-Identifier: GPL-2.0-only
/*
 * Environment capture: kernel, host (name and identity), CPUs, memory, and
 * the filesystem, mount, block devices and their queue settings holding a
 * path.  Reads only; uses mount.c, dev.c and queue.c, which never call back
 * here.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "jobmix/sys.h"
#include "jobmix/version.h"

/* 32 hex digits at s into 16 bytes; -1 when s is not that. */
static int sys_env_hex16(const char *s, unsigned char out[16])
{
	for (int i = 0; i < 16; i++) {
		unsigned v;
		if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (unsigned char)v;
	}
	return s[32] == 0 || s[32] == '\n' ? 0 : -1;
}

/* The machine id of the first file of the two that holds one; -1: none. */
static int sys_env_read_machine_id(unsigned char id[16])
{
	static const char *const files[] = { "/etc/machine-id", "/var/lib/dbus/machine-id" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char line[64] = "";
		FILE *f = fopen(files[i], "re");
		if (!f)
			continue;
		bool got = fgets(line, sizeof(line), f) != NULL;
		fclose(f);
		if (got && !sys_env_hex16(line, id))
			return 0;
	}
	return -1;
}

void sys_env_machine_id(char *out, size_t len)
{
	unsigned char id[16], app[16], h[EVP_MAX_MD_SIZE];
	unsigned hn = 0;
	if (len)
		out[0] = 0;
	if (len < 33 || sys_env_read_machine_id(id) || sys_env_hex16(SYS_ENV_APP_ID, app) ||
	    !HMAC(EVP_sha256(), id, sizeof(id), app, sizeof(app), h, &hn) || hn < 16)
		return;
	/* as sd_id128_get_machine_app_specific: a version 4, variant 1 UUID */
	h[6] = (unsigned char)((h[6] & 0x0f) | 0x40);
	h[8] = (unsigned char)((h[8] & 0x3f) | 0x80);
	for (int i = 0; i < 16; i++)
		snprintf(out + 2 * i, 3, "%02x", h[i]);
}

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
	sys_env_machine_id(env->machine_id, sizeof(env->machine_id));
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
