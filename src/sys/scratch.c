// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scratch device (sys_scratch.h): checked before it is used, a file
 * system made and mounted on it per arm, unmounted at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/sys.h"
#include "jobmix/sys_dev.h"
#include "jobmix/sys_scratch.h"
#include "sys_int.h"

#define SCRATCH_MKFS_TIMEOUT_S 600

static const struct {
	const char *type;
	const char *force;        /* mkfs's "even if a file system is there" */
	bool ext;                 /* mke2fs: -E for the lazy initialisation */
} scratch_types[] = {
	{ "ext2", "-F", false }, { "ext3", "-F", true }, { "ext4", "-F", true },
	{ "xfs", "-f", false },  { "btrfs", "-f", false }, { "f2fs", "-f", false },
};
#define SCRATCH_NTYPES (sizeof(scratch_types) / sizeof(scratch_types[0]))

/* Per-mount flags a mount option text may name; the rest go to the file system. */
static const struct {
	const char *name;
	unsigned long flag;
} scratch_flags[] = {
	{ "noatime", MS_NOATIME }, { "strictatime", MS_STRICTATIME },
	{ "relatime", MS_RELATIME }, { "nodiratime", MS_NODIRATIME },
	{ "lazytime", MS_LAZYTIME }, { "sync", MS_SYNCHRONOUS }, { "dirsync", MS_DIRSYNC },
	{ "nosuid", MS_NOSUID }, { "nodev", MS_NODEV }, { "noexec", MS_NOEXEC },
};
#define SCRATCH_NFLAGS (sizeof(scratch_flags) / sizeof(scratch_flags[0]))

static int scratch_type(const char *type)
{
	for (size_t i = 0; i < SCRATCH_NTYPES; i++)
		if (!strcmp(type, scratch_types[i].type))
			return (int)i;
	return -1;
}

/* The mkfs program of type, into path.  0 or -1. */
static int scratch_mkfs_path(const char *type, char *path, size_t len)
{
	static const char *const dirs[] = { "/usr/sbin", "/sbin", "/usr/bin", "/bin" };
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, len, "%s/mkfs.%s", dirs[i], type);
		if (!access(path, X_OK))
			return 0;
	}
	return -1;
}

int sys_scratch_fs_check(const char *type, char *err, size_t errlen)
{
	char path[PATH_MAX];
	if (scratch_type(type) < 0)
		return sys_err(err, errlen, "-X fs=%s: not a file system jobmix makes (%s)",
				   type, SYS_SCRATCH_TYPES);
	if (scratch_mkfs_path(type, path, sizeof(path)))
		return sys_err(err, errlen, "-X fs=%s: mkfs.%s is not installed (Debian: %s)",
				   type, type, !strcmp(type, "xfs") ? "xfsprogs" :
				   !strcmp(type, "btrfs") ? "btrfs-progs" :
				   !strcmp(type, "f2fs") ? "f2fs-tools" : "e2fsprogs");
	return 0;
}

/* Every character of v in set, v not empty and not longer than the limit. */
static bool scratch_chars(const char *v, const char *set)
{
	if (!v[0] || strlen(v) >= SYS_SCRATCH_OPTS)
		return false;
	for (const char *c = v; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || strchr(set, *c)))
			return false;
	return true;
}

int sys_scratch_mkfs_check(const char *v, char *err, size_t errlen)
{
	if (!scratch_chars(v, "_=.:^/+- ") || v[0] == ' ' || strstr(v, "  ") ||
	    v[strlen(v) - 1] == ' ')
		return sys_err(err, errlen, "-X fs.mkfs=%s: mkfs options are words of letters, "
				   "digits and _=.:^/+- separated by single spaces (no commas: "
				   "repeat -O), at most %d characters", v, SYS_SCRATCH_OPTS - 1);
	if (v[0] != '-')
		return sys_err(err, errlen, "-X fs.mkfs=%s: options start with '-' (the device "
				   "is jobmix's to give)", v);
	return 0;
}

int sys_scratch_mount_check(const char *v, char *err, size_t errlen)
{
	char buf[SYS_SCRATCH_OPTS], *save = NULL;
	if (!scratch_chars(v, "_=.:/+-"))
		return sys_err(err, errlen, "-X mount=%s: mount options are letters, digits and "
				   "_=.:/- joined by '+' (data=journal+noatime)", v);
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *w = strtok_r(buf, "+", &save); w; w = strtok_r(NULL, "+", &save))
		if (!strcmp(w, "ro") || !strcmp(w, "remount") || !strcmp(w, "bind") ||
		    !strcmp(w, "rw"))
			return sys_err(err, errlen, "-X mount=%s: '%s' is not an option of a "
					   "scratch mount", v, w);
	if (strstr(v, "++") || v[0] == '+' || v[strlen(v) - 1] == '+')
		return sys_err(err, errlen, "-X mount=%s: an empty option", v);
	return 0;
}

void sys_scratch_mount_point(const char *dev, char *out, size_t len)
{
	snprintf(out, len, "%s/scratch/%s", sys_state_dir(), dev);
}

/* ---- the checks ------------------------------------------------------------------- */

/* The mountinfo line whose device is maj:min: its mount point, or "". */
static void scratch_mounted(unsigned maj, unsigned mnr, char *mp, size_t len)
{
	char line[4096], want[32];
	mp[0] = 0;
	snprintf(want, sizeof(want), "%u:%u", maj, mnr);
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char id[32], point[PATH_MAX];
		/* ID PARENT MAJ:MIN ROOT POINT ... */
		if (sscanf(line, "%*s %*s %31s %*s %4095s", id, point) == 2 && !strcmp(id, want)) {
			snprintf(mp, len, "%s", point);
			break;
		}
	}
	fclose(f);
}

/* "MAJ:MIN" of a /sys/class/block entry into maj, mnr.  0 or -1. */
static int scratch_devnum(const char *name, unsigned *maj, unsigned *mnr)
{
	char path[PATH_MAX], buf[32];
	snprintf(path, sizeof(path), "%s/class/block/%s/dev", sys_sysfs(), name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return sscanf(buf, "%u:%u", maj, mnr) == 2 ? 0 : -1;
}

/* Is swap active on /dev/name? */
static bool scratch_swap(const char *name)
{
	char line[1024], dev[PATH_MAX], want[PATH_MAX];
	bool on = false;
	snprintf(want, sizeof(want), "/dev/%s", name);
	FILE *f = fopen("/proc/swaps", "re");
	if (!f)
		return false;
	while (!on && fgets(line, sizeof(line), f))
		on = sscanf(line, "%4095s", dev) == 1 && !strcmp(dev, want);
	fclose(f);
	return on;
}

/* The first partition of name in sysfs ("loop0p1"), into part; false when none. */
static bool scratch_partition(const char *name, char *part, size_t len)
{
	char path[PATH_MAX];
	bool found = false;
	snprintf(path, sizeof(path), "%s/block/%s", sys_sysfs(), name);
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		struct stat st;
		char p2[PATH_MAX + 300];
		if (strncmp(e->d_name, name, strlen(name)))
			continue;
		snprintf(p2, sizeof(p2), "%s/%s/partition", path, e->d_name);
		if (!stat(p2, &st)) {
			snprintf(part, len, "%s", e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* Another device stacked on name (dm, md): its name into who; false when none. */
static bool scratch_holder(const char *name, char *who, size_t len)
{
	char path[PATH_MAX];
	bool found = false;
	snprintf(path, sizeof(path), "%s/block/%s/holders", sys_sysfs(), name);
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *e;
	while (!found && (e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(who, len, "%s", e->d_name);
			found = true;
		}
	closedir(d);
	return found;
}

/* Does the device's start hold a partition table?  Its kind, or NULL. */
static const char *scratch_table(const unsigned char *b, size_t n)
{
	if (n >= 1024 && !memcmp(b + 512, "EFI PART", 8))
		return "a GPT partition table";
	if (n >= 4096 + 8 && !memcmp(b + 4096, "EFI PART", 8))
		return "a GPT partition table";
	if (n >= 512 && b[510] == 0x55 && b[511] == 0xaa) {
		for (int i = 0; i < 4; i++) {
			const unsigned char *e = b + 446 + 16 * i;
			/* boot flag 0 or 0x80, a type, a non-zero size */
			if ((e[0] == 0 || e[0] == 0x80) && e[4] &&
			    (e[12] | e[13] | e[14] | e[15]))
				return "an MBR partition table";
		}
	}
	return NULL;
}

int sys_scratch_check(const char *path, char *name, size_t nlen, char *err, size_t errlen)
{
	char real[PATH_MAX], buf[64], mp[PATH_MAX], other[NAME_MAX + 1];
	struct stat st;
	unsigned maj, mnr;
	if (!realpath(path, real))
		return sys_err(err, errlen, "--scratch %s: %s", path, strerror(errno));
	if (stat(real, &st) || !S_ISBLK(st.st_mode))
		return sys_err(err, errlen, "--scratch %s: not a block device", path);
	const char *n = real + 5;
	if (strncmp(real, "/dev/", 5) || strchr(n, '/') || strlen(n) >= nlen)
		return sys_err(err, errlen, "--scratch %s: not a device of /dev (%s)", path,
				   real);
	if (!sys_dev_name_valid(n)) {
		char p2[PATH_MAX];
		snprintf(p2, sizeof(p2), "%s/class/block/%s/partition", sys_sysfs(), n);
		if (!stat(p2, &st))
			return sys_err(err, errlen, "--scratch %s: a partition; jobmix makes "
					   "file systems only on a whole device or a loop device",
					   path);
		return sys_err(err, errlen, "--scratch %s: not a whole device listed in "
				   "/sys/block", path);
	}
	if (scratch_devnum(n, &maj, &mnr) || makedev(maj, mnr) != st.st_rdev)
		return sys_err(err, errlen, "--scratch %s: its device number is not what "
				   "/sys/block/%s says", path, n);
	if (!sys_dev_attr(n, "ro", buf, sizeof(buf)) && buf[0] == '1')
		return sys_err(err, errlen, "--scratch %s: read-only", path);
	if (!sys_dev_attr(n, "size", buf, sizeof(buf)) && strtoull(buf, NULL, 10) < 2048)
		return sys_err(err, errlen, "--scratch %s: empty or under 1 MiB (a loop device "
				   "without its file?)", path);
	if (scratch_partition(n, other, sizeof(other)))
		return sys_err(err, errlen, "--scratch %s: holds partitions (%s); jobmix does "
				   "not make a file system over a partition table", path, other);
	if (scratch_holder(n, other, sizeof(other)))
		return sys_err(err, errlen, "--scratch %s: %s is stacked on it (device mapper "
				   "or md)", path, other);
	scratch_mounted(maj, mnr, mp, sizeof(mp));
	char ours[PATH_MAX];
	sys_scratch_mount_point(n, ours, sizeof(ours));
	if (mp[0] && !strcmp(mp, ours)) {
		/* jobmix's own, left by a killed run: its record unmounts it (a live run's lock refuses) */
		snprintf(name, nlen, "%s", n);
		return 0;
	}
	if (mp[0])
		return sys_err(err, errlen, "--scratch %s: holds a mounted file system (at %s); "
				   "unmount it first", path, mp);
	if (scratch_swap(n))
		return sys_err(err, errlen, "--scratch %s: swap is active on it", path);
	struct sys_devset root = { 0 };
	char e2[256];
	if (!sys_dev_resolve("/", &root, e2, sizeof(e2)))
		for (size_t i = 0; i < root.n; i++)
			if (!strcmp(root.dev[i].name, n))
				return sys_err(err, errlen, "--scratch %s: the root file system's "
						   "device", path);
	int fd = open(real, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0)
		return sys_err(err, errlen, "--scratch %s: %s", path, errno == EBUSY ?
				   "in use (mounted, or held open exclusively)" : strerror(errno));
	unsigned char head[8192];
	ssize_t got = pread(fd, head, sizeof(head), 0);
	close(fd);
	if (got < 0)
		return sys_err(err, errlen, "--scratch %s: cannot read it: %s", path,
				   strerror(errno));
	const char *table = scratch_table(head, (size_t)got);
	if (table)
		return sys_err(err, errlen, "--scratch %s: holds %s; jobmix does not make a "
				   "file system over it (wipefs it first if it is yours to lose)",
				   path, table);
	snprintf(name, nlen, "%s", n);
	return 0;
}

/* ---- making and mounting -------------------------------------------------------- */

/*
 * Run argv (an absolute program) with stdin from /dev/null, its output
 * kept (the last of it) in out.  Its exit status, or -1 (errno).
 */
static int scratch_exec(char *const argv[], char *out, size_t outlen)
{
	int pfd[2];
	out[0] = 0;
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		static char *const envp[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C",
					      NULL };
		int nul = open("/dev/null", O_RDONLY);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(pfd[1], 1) < 0 || dup2(pfd[1], 2) < 0)
			_exit(127);
		execve(argv[0], argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	size_t used = 0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int r = poll(&p, 1, 1000);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > SCRATCH_MKFS_TIMEOUT_S) {
			kill(pid, SIGKILL);
			snprintf(out, outlen, "timed out after %d s", SCRATCH_MKFS_TIMEOUT_S);
			break;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			continue;
		char chunk[512];
		ssize_t n = read(pfd[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (used + 1 >= outlen) {   /* keep the last of it */
				memmove(out, out + outlen / 2, used - outlen / 2);
				used -= outlen / 2;
			}
			out[used++] = chunk[i] == '\n' ? ' ' : chunk[i];
		}
		out[used] = 0;
	}
	close(pfd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* mkfs.TYPE on /dev/dev with the options.  0, or -1 with err. */
static int scratch_mkfs(const char *dev, const char *type, const char *opts, char *err,
			size_t errlen)
{
	char prog[PATH_MAX], devpath[PATH_MAX], words[SYS_SCRATCH_OPTS], out[600];
	char *argv[64];
	size_t n = 0;
	int t = scratch_type(type);
	if (t < 0 || scratch_mkfs_path(type, prog, sizeof(prog)))
		return sys_err(err, errlen, "mkfs.%s: not found", type);
	snprintf(devpath, sizeof(devpath), "/dev/%s", dev);
	snprintf(words, sizeof(words), "%s", opts ? opts : "");
	argv[n++] = prog;
	argv[n++] = (char *)scratch_types[t].force;
	argv[n++] = "-q";
	if (scratch_types[t].ext && !strstr(words, "-E")) {
		argv[n++] = "-E";
		argv[n++] = "lazy_itable_init=0,lazy_journal_init=0";
	}
	char *save = NULL;
	for (char *w = strtok_r(words, " ", &save); w && n < 60; w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n++] = devpath;
	argv[n] = NULL;
	int rc = scratch_exec(argv, out, sizeof(out));
	if (rc)
		return sys_err(err, errlen, "mkfs.%s%s%s /dev/%s failed (%s%d)%s%s", type,
				   opts && opts[0] ? " " : "", opts ? opts : "", dev,
				   rc < 0 ? "cannot run it: " : "exit ", rc < 0 ? errno : rc,
				   out[0] ? ": " : "", out);
	return 0;
}

/* The flags and file-system data of a mount option text ("data=journal+noatime"). */
static void scratch_mount_opts(const char *v, unsigned long *flags, char *data, size_t len)
{
	char buf[SYS_SCRATCH_OPTS], *save = NULL;
	size_t used = 0;
	*flags = 0;
	data[0] = 0;
	snprintf(buf, sizeof(buf), "%s", v ? v : "");
	for (char *w = strtok_r(buf, "+", &save); w; w = strtok_r(NULL, "+", &save)) {
		bool flag = false;
		for (size_t i = 0; i < SCRATCH_NFLAGS && !flag; i++)
			if (!strcmp(w, scratch_flags[i].name)) {
				*flags |= scratch_flags[i].flag;
				flag = true;
			}
		if (!flag && used < len)
			used += (size_t)snprintf(data + used, len - used, "%s%s", used ? "," : "", w);
	}
}

int sys_scratch_state(const char *dev, char *out, size_t len)
{
	char mp[PATH_MAX];
	struct sys_mount m;
	struct stat st;
	sys_scratch_mount_point(dev, mp, sizeof(mp));
	snprintf(out, len, "none");
	if (lstat(mp, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return -1;
	if (!sys_mount_find(mp, &m) && !strcmp(m.mount_point, mp))
		snprintf(out, len, "mounted");
	return 0;
}

int sys_scratch_unmount(const char *dev, char *err, size_t errlen)
{
	char mp[PATH_MAX], state[16];
	sys_scratch_mount_point(dev, mp, sizeof(mp));
	if (sys_scratch_state(dev, state, sizeof(state)))
		return sys_err(err, errlen, "%s: not a directory of jobmix's", mp);
	if (!strcmp(state, "mounted")) {
		sync();
		int tries = 0;
		while (umount2(mp, UMOUNT_NOFOLLOW)) {
			if (errno != EBUSY || ++tries > 50)
				return sys_err(err, errlen, "cannot unmount %s: %s", mp,
						   strerror(errno));
			usleep(100 * 1000);   /* the users' last files closing */
		}
	}
	if (rmdir(mp) && errno != ENOENT)
		return sys_err(err, errlen, "unmounted %s but cannot remove it: %s", mp,
				   strerror(errno));
	return 0;
}

int sys_scratch_make(const char *dev, const char *type, bool mkfs, const char *mkfs_opts,
		     const char *mount_opts, char *read_back, size_t rblen, char *err,
		     size_t errlen)
{
	char mp[PATH_MAX], devpath[PATH_MAX], data[SYS_SCRATCH_OPTS], shown[PATH_MAX + 16];
	unsigned long flags;
	if (rblen)
		read_back[0] = 0;
	if (sys_scratch_unmount(dev, err, errlen))
		return -1;
	if (mkfs && scratch_mkfs(dev, type, mkfs_opts, err, errlen))
		return -1;
	/* <state dir>/scratch/DEV, each level ours and private */
	int top = sys_dir_open(AT_FDCWD, sys_state_dir(), sys_state_dir(), true, err, errlen);
	if (top < 0)
		return -1;
	snprintf(shown, sizeof(shown), "%s/scratch", sys_state_dir());
	int sd = sys_dir_open(top, "scratch", shown, true, err, errlen);
	close(top);
	if (sd < 0)
		return -1;
	sys_scratch_mount_point(dev, mp, sizeof(mp));
	int md = sys_dir_open(sd, dev, mp, true, err, errlen);
	close(sd);
	if (md < 0)
		return -1;
	close(md);
	snprintf(devpath, sizeof(devpath), "/dev/%s", dev);
	scratch_mount_opts(mount_opts, &flags, data, sizeof(data));
	if (mount(devpath, mp, type, flags | MS_NOSUID | MS_NODEV, data[0] ? data : NULL)) {
		int e = errno;
		rmdir(mp);
		return sys_err(err, errlen, "mount -t %s%s%s %s %s: %s", type,
				   mount_opts && mount_opts[0] ? " -o " : "",
				   mount_opts ? mount_opts : "", devpath, mp, strerror(e));
	}
	struct sys_mount m;
	if (rblen && !sys_mount_find(mp, &m) && !strcmp(m.mount_point, mp))
		snprintf(read_back, rblen, "%s %s", m.fs_type, m.options);
	return 0;
}
