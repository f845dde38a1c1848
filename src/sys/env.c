// SPDX-License-Identifier: GPL-2.0-only
/*
 * Environment capture: kernel, host, CPUs, memory, and the filesystem,
 * mount, block device and IO scheduler holding a path.  Reads only.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "jobmix/exitcode.h"
#include "jobmix/sys.h"
#include "sys_int.h"

int sys_existing_path(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX], real[PATH_MAX];

	if (!path || !path[0] || strlen(path) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		if (realpath(buf, real)) {
			if (strlen(real) >= len)
				return -1;
			snprintf(out, len, "%s", real);
			return 0;
		}
		if (errno != ENOENT || !strcmp(buf, ".") || !strcmp(buf, "/"))
			return -1;
		size_t n = strlen(buf);
		while (n > 1 && buf[n - 1] == '/')
			buf[--n] = 0;
		char *slash = strrchr(buf, '/');
		if (!slash)
			snprintf(buf, sizeof(buf), ".");
		else if (slash == buf)
			buf[1] = 0;
		else
			*slash = 0;
	}
}

/* Decode mountinfo's octal escapes (\040 space, \011 tab, \012, \134) in place. */
static void sys_unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = 0;
}

/* Does mount point mp contain path (component-wise prefix)? */
static bool sys_mp_covers(const char *mp, const char *path)
{
	size_t n = strlen(mp);
	if (n == 1 && mp[0] == '/')
		return path[0] == '/';
	return strncmp(mp, path, n) == 0 && (path[n] == 0 || path[n] == '/');
}

/* Is `opt` one of the comma-separated options in list? */
static bool sys_opt_listed(const char *list, const char *opt, size_t optlen)
{
	const char *p = list;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n == optlen && !strncmp(p, opt, n))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

/* Per-mount options, then each super option not already among them. */
static void sys_merge_opts(char *out, size_t len, const char *mnt, const char *super)
{
	size_t used = (size_t)snprintf(out, len, "%s", mnt);
	if (used >= len)
		return;
	const char *p = super;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n && !sys_opt_listed(mnt, p, n) && used + 1 + n < len) {
			if (used)
				out[used++] = ',';
			memcpy(out + used, p, n);
			used += n;
			out[used] = 0;
		}
		if (!end)
			break;
		p = end + 1;
	}
}

/*
 * Split one mountinfo line into the fields we need; false on a malformed
 * line.  Pointers point into `line`, which is modified.
 */
static bool sys_mountinfo_fields(char *line, unsigned *maj, unsigned *min, char **mp,
				 char **opts, char **fstype, char **source, char **super)
{
	char *f[6], *save = NULL, *w;
	size_t n = 0;
	line[strcspn(line, "\n")] = 0;
	for (w = strtok_r(line, " ", &save); w && n < 6; w = strtok_r(NULL, " ", &save))
		f[n++] = w;
	if (n < 6 || sscanf(f[2], "%u:%u", maj, min) != 2)
		return false;
	/* optional fields, up to the "-" separator */
	while (w && strcmp(w, "-"))
		w = strtok_r(NULL, " ", &save);
	if (!w)
		return false;
	*fstype = strtok_r(NULL, " ", &save);
	*source = strtok_r(NULL, " ", &save);
	*super = strtok_r(NULL, " ", &save);
	if (!*fstype || !*source)
		return false;
	if (!*super)
		*super = "";
	*mp = f[4];
	*opts = f[5];
	sys_unescape(*mp);
	sys_unescape(*source);
	return true;
}

int sys_mount_find(const char *path, struct sys_mount *m)
{
	char at[PATH_MAX];
	struct stat st;
	FILE *f = NULL;
	char *line = NULL;
	size_t cap = 0;
	int ret = -1;
	size_t best_dev = 0, best_any = 0;   /* mount point length + 1; 0 = none */
	struct sys_mount dev_m = {0}, any_m = {0};

	memset(m, 0, sizeof(*m));
	if (sys_existing_path(path, at, sizeof(at)) || stat(at, &st))
		goto out;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		goto out;
	while (getline(&line, &cap, f) > 0) {
		unsigned maj, min;
		char *mp, *opts, *fstype, *source, *super;
		if (!sys_mountinfo_fields(line, &maj, &min, &mp, &opts, &fstype, &source, &super))
			continue;
		if (!sys_mp_covers(mp, at))
			continue;
		size_t score = strlen(mp) + 1;
		bool dev_match = maj == major(st.st_dev) && min == minor(st.st_dev);
		/* ">=": a later line with the same mount point is mounted over it */
		struct sys_mount *into = NULL;
		if (dev_match && score >= best_dev) {
			best_dev = score;
			into = &dev_m;
		} else if (!dev_match && score >= best_any) {
			best_any = score;
			into = &any_m;
		}
		if (!into)
			continue;
		into->major = maj;
		into->minor = min;
		snprintf(into->mount_point, sizeof(into->mount_point), "%s", mp);
		snprintf(into->fs_type, sizeof(into->fs_type), "%s", fstype);
		snprintf(into->source, sizeof(into->source), "%s", source);
		sys_merge_opts(into->options, sizeof(into->options), opts, super);
	}
	if (best_dev) {
		*m = dev_m;
		ret = 0;
	} else if (best_any) {
		*m = any_m;
		ret = 0;
	}
out:
	free(line);
	if (f)
		fclose(f);
	return ret;
}

void sys_env_capture(const char *path, struct sys_env *env)
{
	struct utsname u;
	struct sysinfo si;
	struct sys_mount m;

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

	if (!path)
		return;
	if (sys_mount_find(path, &m) == 0) {
		snprintf(env->fs_type, sizeof(env->fs_type), "%s", m.fs_type);
		snprintf(env->mount_point, sizeof(env->mount_point), "%s", m.mount_point);
		snprintf(env->mount_options, sizeof(env->mount_options), "%s", m.options);
	}
	if (sys_block_device(path, env->device, sizeof(env->device)) == 0)
		sys_sched_get(env->device, env->scheduler, sizeof(env->scheduler),
			      env->schedulers, sizeof(env->schedulers));
}

/* A single unsigned number from a /proc file; 0 if unreadable. */
static uint64_t sys_read_u64(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	unsigned long long v = 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

unsigned sys_max_users(void)
{
	uint64_t lim = UINT32_MAX;
	struct rlimit rl;
	if (!getrlimit(RLIMIT_NPROC, &rl) && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < lim)
		lim = rl.rlim_cur;
	static const char *const files[] = { "/proc/sys/kernel/threads-max",
					     "/proc/sys/kernel/pid_max" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint64_t v = sys_read_u64(files[i]);
		if (v && v < lim)
			lim = v;
	}
	uint64_t users = lim > 64 ? (lim - 64) / 2 : 1;
	return users > 1000000 ? 1000000 : users < 1 ? 1 : (unsigned)users;
}
