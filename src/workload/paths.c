// SPDX-License-Identifier: GPL-2.0-only
/*
 * Where jobmix's own files are (libexec, shipped workloads), found from the
 * binary's location, and how a workload argument becomes a file: a path as
 * given, else a name searched in ./, $XDG_CONFIG_HOME/jobmix/workloads and
 * the shipped workloads.  Reads /proc/self/exe, the environment and
 * directory entries; writes nothing.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/parse.h"
#include "jobmix/paths.h"

#define WLF_SUFFIX ".yaml"
#define WLF_MAX_NAMES 256

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

/* The running binary's directory; "." when /proc/self/exe cannot be read. */
static void exe_dir(char *buf, size_t len)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(buf, len, ".");
		return;
	}
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	snprintf(buf, len, "%s", slash == exe ? "/" : exe);
}

void paths_find(struct paths *p)
{
	char dir[PATH_MAX], cand[PATH_MAX + 32];
	exe_dir(dir, sizeof(dir));
	memset(p, 0, sizeof(*p));

	/* the build tree: libexec/ and workloads/ beside the binary */
	snprintf(cand, sizeof(cand), "%s/libexec", dir);
	if (is_dir(cand)) {
		snprintf(p->libexec, sizeof(p->libexec), "%s", cand);
		snprintf(cand, sizeof(cand), "%s/workloads", dir);
		/* the real path (a sanitizer build links to the tree's own) */
		char real[PATH_MAX];
		if (is_dir(cand))
			snprintf(p->shipped, sizeof(p->shipped), "%s",
				 realpath(cand, real) ? real : cand);
		return;
	}
	/* installed: <prefix>/bin/jobmix */
	char prefix[PATH_MAX];
	snprintf(prefix, sizeof(prefix), "%s", dir);
	char *slash = strrchr(prefix, '/');
	if (slash && slash != prefix)
		*slash = 0;
	else
		snprintf(prefix, sizeof(prefix), "%s", slash ? "" : ".");
	p->installed = true;
	snprintf(p->libexec, sizeof(p->libexec), "%s/libexec/jobmix", prefix);
	snprintf(cand, sizeof(cand), "%s/share/jobmix/workloads", prefix);
	if (is_dir(cand))
		snprintf(p->shipped, sizeof(p->shipped), "%s", cand);
}

/* $XDG_CONFIG_HOME/jobmix/workloads (an absolute XDG_CONFIG_HOME), else ~/.config/... */
static void config_dir(char *buf, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	buf[0] = 0;
	if (xdg && xdg[0] == '/')
		snprintf(buf, len, "%s/jobmix/workloads", xdg);
	else if (home && home[0] == '/')
		snprintf(buf, len, "%s/.config/jobmix/workloads", home);
}

void wlf_dirs(struct wlf_dir dirs[WLF_NDIRS])
{
	struct paths p;
	paths_find(&p);
	dirs[0].origin = WLF_CWD;
	snprintf(dirs[0].path, sizeof(dirs[0].path), ".");
	dirs[1].origin = WLF_CONFIG;
	config_dir(dirs[1].path, sizeof(dirs[1].path));
	dirs[2].origin = WLF_SHIPPED;
	snprintf(dirs[2].path, sizeof(dirs[2].path), "%s", p.shipped);
}

const char *wlf_origin_name(enum wlf_origin o)
{
	switch (o) {
	case WLF_PATH: return "path";
	case WLF_CWD: return "cwd";
	case WLF_CONFIG: return "config";
	case WLF_SHIPPED: return "shipped";
	}
	return "?";
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int wlf_scan(const char *dir, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	if (!dir[0])
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	char **v = calloc(WLF_MAX_NAMES + 1, sizeof(*v));
	if (!v) {
		closedir(d);
		return -1;
	}
	size_t k = 0, sl = strlen(WLF_SUFFIX);
	struct dirent *e;
	while ((e = readdir(d)) && k < WLF_MAX_NAMES) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len <= sl || strcmp(e->d_name + len - sl, WLF_SUFFIX))
			continue;
		char full[PATH_MAX + 256];
		snprintf(full, sizeof(full), "%s/%s", dir, e->d_name);
		if (!is_file(full))
			continue;
		v[k] = strndup(e->d_name, len - sl);
		if (!v[k]) {
			closedir(d);
			wlf_names_free(v, k);
			return -1;
		}
		k++;
	}
	closedir(d);
	if (!k) {
		free(v);
		return 0;
	}
	qsort(v, k, sizeof(*v), cmp_str);
	*names = v;
	*n = k;
	return 0;
}

void wlf_names_free(char **names, size_t n)
{
	for (size_t i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

/* The closest name any searched directory holds, into buf; "" when none is close. */
static void wlf_suggest(const char *name, const struct wlf_dir *dirs, char *buf, size_t len)
{
	buf[0] = 0;
	for (size_t i = 0; i < WLF_NDIRS && !buf[0]; i++) {
		char **names;
		size_t n;
		if (wlf_scan(dirs[i].path, &names, &n) || !n)
			continue;
		const char *near = jm_suggest(name, (const char *const *)names);
		if (near)
			snprintf(buf, len, "%s", near);
		wlf_names_free(names, n);
	}
}

int wlf_resolve(const char *arg, char *out, size_t outlen, enum wlf_origin *origin, char *err,
		size_t errlen)
{
	if (!arg[0]) {
		snprintf(err, errlen, "empty workload name");
		return -1;
	}
	/* a path as given: the loader reports what is wrong with it */
	if (strchr(arg, '/') || is_file(arg)) {
		if (strlen(arg) >= outlen) {
			snprintf(err, errlen, "workload path too long");
			return -1;
		}
		snprintf(out, outlen, "%s", arg);
		*origin = WLF_PATH;
		return 0;
	}
	char name[NAME_MAX + 1];
	size_t len = strlen(arg), sl = strlen(WLF_SUFFIX);
	if (len > sl && !strcmp(arg + len - sl, WLF_SUFFIX))
		len -= sl;
	if (len > NAME_MAX - sl) {
		snprintf(err, errlen, "workload name too long");
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)len, arg);

	struct wlf_dir dirs[WLF_NDIRS];
	wlf_dirs(dirs);
	char searched[4 * PATH_MAX] = "";
	for (size_t i = 0; i < WLF_NDIRS; i++) {
		char cand[PATH_MAX + NAME_MAX + 8];
		size_t s = strlen(searched);
		if (!dirs[i].path[0]) {
			snprintf(searched + s, sizeof(searched) - s, "%s(no %s directory)",
				 s ? ", " : "", wlf_origin_name(dirs[i].origin));
			continue;
		}
		snprintf(cand, sizeof(cand), "%s/%s%s", dirs[i].path, name, WLF_SUFFIX);
		snprintf(searched + s, sizeof(searched) - s, "%s%s", s ? ", " : "", cand);
		if (is_file(cand) && strlen(cand) < outlen) {
			snprintf(out, outlen, "%s", cand);
			*origin = dirs[i].origin;
			return 0;
		}
	}
	char near[NAME_MAX + 1];
	wlf_suggest(name, dirs, near, sizeof(near));
	snprintf(err, errlen, "no workload '%s': not a file, and none of %s exists (%s%s%s'jobmix "
		 "workloads' lists them)", arg, searched, near[0] ? "did you mean '" : "", near,
		 near[0] ? "'? " : "");
	return -1;
}
