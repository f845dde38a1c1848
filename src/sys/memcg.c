// SPDX-License-Identifier: GPL-2.0-only
/* The users' memory cgroup (sys_memcg.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/sys_memcg.h"
#include "sys_int.h"

/* Does the comma list opts hold word? */
static bool memcg_has_word(const char *opts, const char *word)
{
	size_t n = strlen(word);
	for (const char *c = opts; c && *c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
		if (!strncmp(c, word, n) && (c[n] == ',' || c[n] == 0 || c[n] == ' ' ||
					     c[n] == '\n'))
			return true;
	return false;
}

/* A file's text (at most len - 1 bytes).  0 or -1. */
static int memcg_read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

/*
 * Where the memory controller is: the mount point of the hierarchy that
 * has it (v2: a cgroup2 mount whose cgroup.controllers lists memory) and
 * the current process's group path in it.  The version, or 0.
 */
static int memcg_find(char *mnt, size_t mlen, char *grp, size_t glen)
{
	char line[4096];
	int version = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (!version && fgets(line, sizeof(line), f)) {
		char point[PATH_MAX], *dash = strstr(line, " - ");
		char type[64], src[256], super[1024];
		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(dash + 3, "%63s %255s %1023s", type, src, super) != 3)
			continue;
		if (!strcmp(type, "cgroup") && memcg_has_word(super, "memory")) {
			version = 1;
			snprintf(mnt, mlen, "%s", point);
		} else if (!strcmp(type, "cgroup2")) {
			char path[PATH_MAX + 32], ctl[512];
			snprintf(path, sizeof(path), "%s/cgroup.controllers", point);
			if (!memcg_read_file(path, ctl, sizeof(ctl)) && strstr(ctl, "memory")) {
				version = 2;
				snprintf(mnt, mlen, "%s", point);
			}
		}
	}
	fclose(f);
	if (!version)
		return 0;
	/* the group: "N:memory:/path" (v1) or "0::/path" (v2) */
	f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return 0;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
		if (!b)
			continue;
		*b = 0;
		b[1 + strcspn(b + 1, "\n")] = 0;
		if ((version == 1 && memcg_has_word(a + 1, "memory")) ||
		    (version == 2 && !strcmp(line, "0") && a[1] == 0)) {
			snprintf(grp, glen, "%s", strcmp(b + 1, "/") ? b + 1 : "");
			found = true;
		}
	}
	fclose(f);
	return found ? version : 0;
}

int sys_memcg_check(char *err, size_t errlen)
{
	char mnt[PATH_MAX], grp[PATH_MAX], dir[2 * PATH_MAX];
	int v = memcg_find(mnt, sizeof(mnt), grp, sizeof(grp));
	if (!v)
		return sys_err(err, errlen, "--mem-limit: no memory cgroup controller mounted "
				 "(cgroup v2 with memory, or v1 memory)");
	snprintf(dir, sizeof(dir), "%s%s", mnt, grp);
	if (access(dir, W_OK))
		return sys_err(err, errlen, "--mem-limit: cannot make a group in %s: %s", dir,
				 strerror(errno));
	if (v == 2) {
		char path[2 * PATH_MAX + 32], ctl[512];
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", dir);
		if (memcg_read_file(path, ctl, sizeof(ctl)) || !strstr(ctl, "memory"))
			return sys_err(err, errlen, "--mem-limit: cgroup v2 %s does not hand the "
					 "memory controller to its children (cgroup.subtree_control)",
					 dir);
	}
	return 0;
}

/* Remove groups jobmix.PID under parent whose jobmix is gone (rmdir fails on a busy one). */
static void memcg_sweep(const char *parent)
{
	DIR *d = opendir(parent);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "jobmix.", 7))
			continue;
		long pid = strtol(e->d_name + 7, &end, 10);
		if (*end || pid <= 0 || pid == (long)getpid() || !kill((pid_t)pid, 0) ||
		    errno != ESRCH)
			continue;
		char path[PATH_MAX + 300];
		snprintf(path, sizeof(path), "%s/%s", parent, e->d_name);
		rmdir(path);
	}
	closedir(d);
}

/* Write text to the group's file name.  0 or -1. */
static int memcg_write(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

int sys_memcg_create(struct sys_memcg *cg, uint64_t limit, char *err, size_t errlen)
{
	char mnt[PATH_MAX], grp[PATH_MAX], parent[2 * PATH_MAX], text[32];
	memset(cg, 0, sizeof(*cg));
	cg->procs_fd = -1;
	int v = memcg_find(mnt, sizeof(mnt), grp, sizeof(grp));
	if (!v)
		return sys_err(err, errlen, "--mem-limit: no memory cgroup controller mounted");
	snprintf(parent, sizeof(parent), "%s%s", mnt, grp);
	memcg_sweep(parent);
	if ((size_t)snprintf(cg->dir, sizeof(cg->dir), "%s/jobmix.%ld", parent, (long)getpid()) >=
	    sizeof(cg->dir))
		return sys_err(err, errlen, "--mem-limit: cgroup path too long");
	if (mkdir(cg->dir, 0755))
		return sys_err(err, errlen, "--mem-limit: mkdir %s: %s", cg->dir, strerror(errno));
	cg->version = v;
	cg->limit = limit;
	snprintf(text, sizeof(text), "%" PRIu64, limit);
	if (memcg_write(cg->dir, v == 2 ? "memory.max" : "memory.limit_in_bytes", text)) {
		int e = errno;
		char e2[64];
		sys_memcg_remove(cg, e2, sizeof(e2));
		return sys_err(err, errlen, "--mem-limit: setting %s in %s: %s", text, parent,
				 strerror(e));
	}
	if (v == 2)   /* no swapping the users' memory out instead of dropping cache */
		memcg_write(cg->dir, "memory.swap.max", "0");
	else
		memcg_write(cg->dir, "memory.swappiness", "0");
	char procs[PATH_MAX + 32];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg->dir);
	cg->procs_fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (cg->procs_fd < 0) {
		int e = errno;
		char e2[64];
		sys_memcg_remove(cg, e2, sizeof(e2));
		return sys_err(err, errlen, "--mem-limit: %s: %s", procs, strerror(e));
	}
	return 0;
}

int sys_memcg_set_limit(struct sys_memcg *cg, uint64_t limit, char *err, size_t errlen)
{
	char text[32];
	snprintf(text, sizeof(text), "%" PRIu64, limit);
	if (memcg_write(cg->dir, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes", text))
		return sys_err(err, errlen, "memory limit %s on %s: %s", text, cg->dir,
				 strerror(errno));
	cg->limit = limit;
	return 0;
}

/* A number from a "key value" file (memory.stat, memory.events, oom_control). */
static bool memcg_key(const char *text, const char *key, uint64_t *out)
{
	size_t n = strlen(key);
	for (const char *c = text; c && *c; c = strchr(c, '\n') ? strchr(c, '\n') + 1 : NULL)
		if (!strncmp(c, key, n) && c[n] == ' ') {
			*out = strtoull(c + n + 1, NULL, 10);
			return true;
		}
	return false;
}

void sys_memcg_read(const struct sys_memcg *cg, struct sys_memcg_stat *st)
{
	char path[PATH_MAX + 64], text[8192];
	memset(st, 0, sizeof(*st));
	if (!cg || !cg->version)
		return;
	bool v2 = cg->version == 2;
	snprintf(path, sizeof(path), "%s/%s", cg->dir, v2 ? "memory.peak" : "memory.max_usage_in_bytes");
	if (memcg_read_file(path, text, sizeof(text)))
		return;
	st->peak_bytes = strtoull(text, NULL, 10);
	snprintf(path, sizeof(path), "%s/memory.stat", cg->dir);
	if (memcg_read_file(path, text, sizeof(text)) ||
	    !memcg_key(text, v2 ? "file" : "cache", &st->file_bytes))
		return;
	if (!memcg_key(text, "workingset_refault_file", &st->refault_file))
		memcg_key(text, "workingset_refault", &st->refault_file);
	memcg_key(text, "pgmajfault", &st->majfault);
	snprintf(path, sizeof(path), "%s/%s", cg->dir, v2 ? "memory.events" : "memory.oom_control");
	if (!memcg_read_file(path, text, sizeof(text)))
		memcg_key(text, "oom_kill", &st->oom_kill);
	st->ok = true;
}

void sys_memcg_reset_peak(const struct sys_memcg *cg)
{
	if (cg && cg->version)
		memcg_write(cg->dir, cg->version == 2 ? "memory.peak" : "memory.max_usage_in_bytes",
			    cg->version == 2 ? "reset" : "0");
}

int sys_memcg_remove(struct sys_memcg *cg, char *err, size_t errlen)
{
	if (!cg->dir[0])
		return 0;
	if (cg->procs_fd >= 0)
		close(cg->procs_fd);
	cg->procs_fd = -1;
	/* the users' last exits are asynchronous to their reaping: a moment's grace */
	for (int tries = 0; rmdir(cg->dir) && errno != ENOENT; tries++) {
		if (errno != EBUSY || tries >= 50)
			return sys_err(err, errlen, "cannot remove %s: %s", cg->dir,
					 strerror(errno));
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	cg->dir[0] = 0;
	cg->version = 0;
	return 0;
}
