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
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
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

/*
 * ---- mkfs options: an allow-list per file system ----------------------------------
 *
 * Only options that name no path and no device: an mkfs option that takes
 * one (btrfs's extra devices as positional words, xfs's -r rtdev= and -l
 * logdev=, mke2fs's -J device= and -d, -z, -l files) would write to, or
 * read from, something that is not the scratch device.  Anything not
 * listed is refused, and so is a '/' anywhere and a word that is no option.
 */
struct scratch_opt {
	const char *name;             /* "-b", "--csum" */
	bool arg;                     /* takes a value (the next word, or attached) */
	const char *const *subs;      /* the value is KEY or KEY=V, KEY one of these; NULL: any */
};

static const char *const ext_E[] = {
	"stride", "stripe_width", "stripe-width", "resize", "lazy_itable_init",
	"lazy_journal_init", "packed_meta_blocks", "root_owner", "test_fs", "discard",
	"nodiscard", "quotatype", "num_backup_sb", "encoding", "encoding_flags",
	"assume_storage_prezeroed", "orphan_file_size", NULL,
};
static const char *const ext_J[] = { "size", "fast_commit_size", NULL };
static const struct scratch_opt ext_opts[] = {
	{ "-b", true, NULL }, { "-C", true, NULL }, { "-D", false, NULL }, { "-e", true, NULL },
	{ "-E", true, ext_E }, { "-g", true, NULL }, { "-G", true, NULL }, { "-i", true, NULL },
	{ "-I", true, NULL }, { "-j", false, NULL }, { "-J", true, ext_J }, { "-L", true, NULL },
	{ "-m", true, NULL }, { "-N", true, NULL }, { "-o", true, NULL }, { "-O", true, NULL },
	{ "-r", true, NULL }, { "-T", true, NULL }, { "-U", true, NULL }, { NULL, false, NULL },
};

static const char *const xfs_b[] = { "size", NULL };
static const char *const xfs_m[] = {
	"crc", "finobt", "uuid", "rmapbt", "reflink", "inobtcount", "bigtime", NULL,
};
static const char *const xfs_d[] = {
	"agcount", "agsize", "size", "sunit", "swidth", "su", "sw", "noalign", "cowextsize",
	"extszinherit", "daxinherit", "projinherit", "concurrency", "sectsize", NULL,
};
static const char *const xfs_i[] = {
	"size", "maxpct", "align", "attr", "projid32bit", "sparse", "nrext64", "exchange",
	"perblock", NULL,
};
static const char *const xfs_l[] = {
	"internal", "size", "version", "sunit", "su", "lazy-count", "concurrency", "sectsize",
	"agnum", NULL,
};
static const char *const xfs_n[] = { "size", "version", "ftype", "parent", NULL };
static const char *const xfs_s[] = { "size", NULL };
static const struct scratch_opt xfs_opts[] = {
	{ "-b", true, xfs_b }, { "-m", true, xfs_m }, { "-d", true, xfs_d },
	{ "-i", true, xfs_i }, { "-l", true, xfs_l }, { "-n", true, xfs_n },
	{ "-s", true, xfs_s }, { "-L", true, NULL }, { "-K", false, NULL }, { NULL, false, NULL },
};

static const struct scratch_opt btrfs_opts[] = {
	{ "-L", true, NULL }, { "-n", true, NULL }, { "-s", true, NULL }, { "-d", true, NULL },
	{ "-m", true, NULL }, { "-O", true, NULL }, { "-R", true, NULL }, { "-K", false, NULL },
	{ "-M", false, NULL }, { "-b", true, NULL }, { "-U", true, NULL },
	{ "--csum", true, NULL }, { "--checksum", true, NULL }, { NULL, false, NULL },
};

static const struct scratch_opt f2fs_opts[] = {
	{ "-a", true, NULL }, { "-C", true, NULL }, { "-e", true, NULL }, { "-E", true, NULL },
	{ "-i", false, NULL }, { "-l", true, NULL }, { "-o", true, NULL }, { "-O", true, NULL },
	{ "-R", true, NULL }, { "-s", true, NULL }, { "-t", true, NULL }, { "-T", true, NULL },
	{ "-U", true, NULL }, { "-w", true, NULL }, { "-z", true, NULL }, { NULL, false, NULL },
};

static const struct {
	const char *type;
	const char *force;        /* mkfs's "even if a file system is there" */
	bool ext;                 /* mke2fs: -E for the lazy initialisation */
	const struct scratch_opt *opts;   /* the options jobmix passes on */
} scratch_types[] = {
	{ "ext2", "-F", false, ext_opts }, { "ext3", "-F", true, ext_opts },
	{ "ext4", "-F", true, ext_opts },  { "xfs", "-f", false, xfs_opts },
	{ "btrfs", "-f", false, btrfs_opts }, { "f2fs", "-f", false, f2fs_opts },
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
	const char *slash = strchr(v, '/');
	if (slash) {
		const char *w = slash;
		while (w > v && w[-1] != ' ')
			w--;
		return sys_err(err, errlen, "-X fs.mkfs=%s: '%.*s' has a '/': mkfs options that "
				   "name a path or a device are not passed on (the device is "
				   "jobmix's to give)", v, (int)strcspn(w, " "), w);
	}
	if (!scratch_chars(v, "_=.:^+- ") || v[0] == ' ' || strstr(v, "  ") ||
	    v[strlen(v) - 1] == ' ')
		return sys_err(err, errlen, "-X fs.mkfs=%s: mkfs options are words of letters, "
				   "digits and _=.:^+- separated by single spaces (no commas: "
				   "repeat -O), at most %d characters", v, SYS_SCRATCH_OPTS - 1);
	if (v[0] != '-')
		return sys_err(err, errlen, "-X fs.mkfs=%s: options start with '-' (the device "
				   "is jobmix's to give)", v);
	return 0;
}

/* The listed option word w is ("-b", "-b4096", "--csum=x"); its attached value into *val. */
static const struct scratch_opt *scratch_opt_find(const struct scratch_opt *t, const char *w,
						  const char **val)
{
	*val = NULL;
	for (; t->name; t++) {
		size_t n = strlen(t->name);
		if (strncmp(w, t->name, n))
			continue;
		if (!w[n])
			return t;
		if (!t->arg || (t->name[1] == '-' && w[n] != '='))
			continue;
		*val = w + n + (t->name[1] == '-');
		return t;
	}
	return NULL;
}

/* The names of a table, space-separated, into out. */
static void scratch_opt_names(const char *const *names, size_t stride, char *out, size_t len)
{
	size_t used = 0;
	out[0] = 0;
	for (const char *const *n = names; *n && used < len;
	     n = (const char *const *)((const char *)n + stride))
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", *n);
}

/* Is v a value option o takes (a sub-option of its list, when it has one)?  0 or -1. */
static int scratch_opt_value(const char *all, const char *type, const struct scratch_opt *o,
			     const char *v, char *err, size_t errlen)
{
	char names[512];
	if (!v[0])
		return sys_err(err, errlen, "-X fs.mkfs=%s: %s takes a value", all, o->name);
	if (!o->subs)
		return 0;
	size_t k = strcspn(v, "=");
	for (const char *const *s = o->subs; *s; s++)
		if (strlen(*s) == k && !strncmp(*s, v, k))
			return 0;
	scratch_opt_names(o->subs, sizeof(*o->subs), names, sizeof(names));
	return sys_err(err, errlen, "-X fs.mkfs=%s: '%s %.*s' is not an mkfs.%s option jobmix "
			   "passes on (%s takes %s)", all, o->name, (int)k, v, type, o->name,
			   names);
}

int sys_scratch_mkfs_allowed(const char *type, const char *v, char *err, size_t errlen)
{
	char words[SYS_SCRATCH_OPTS], names[512], *save = NULL;
	int t = scratch_type(type);
	if (t < 0)
		return sys_err(err, errlen, "-X fs=%s: not a file system jobmix makes (%s)", type,
				   SYS_SCRATCH_TYPES);
	if (sys_scratch_mkfs_check(v, err, errlen))
		return -1;
	const struct scratch_opt *tab = scratch_types[t].opts;
	snprintf(words, sizeof(words), "%s", v);
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		const char *val;
		const struct scratch_opt *o = w[0] == '-' && w[1] ? scratch_opt_find(tab, w, &val) :
					      NULL;
		if (!o && w[0] != '-')
			return sys_err(err, errlen, "-X fs.mkfs=%s: '%s' is not an option (a word "
					   "that names a device or a file is not passed on: the "
					   "device is jobmix's to give)", v, w);
		if (!o) {
			scratch_opt_names(&tab->name, sizeof(*tab), names, sizeof(names));
			return sys_err(err, errlen, "-X fs.mkfs=%s: '%s' is not an mkfs.%s option "
					   "jobmix passes on (only options that name no path or "
					   "device: %s)", v, w, type, names);
		}
		if (!o->arg)
			continue;
		if (!val && !(val = strtok_r(NULL, " ", &save)))
			return sys_err(err, errlen, "-X fs.mkfs=%s: %s takes a value", v, o->name);
		if (scratch_opt_value(v, type, o, val, err, errlen))
			return -1;
	}
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

/* Is path base, or beneath it? */
static bool scratch_under(const char *path, const char *base)
{
	size_t n = strlen(base);
	return !strncmp(path, base, n) && (!path[n] || path[n] == '/' || !strcmp(base, "/"));
}

/*
 * path made absolute: its nearest existing ancestor resolved (realpath),
 * the missing rest appended with "." and ".." applied.  0 or -1.
 */
static int scratch_abs(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX], rest[PATH_MAX] = "", real[PATH_MAX];
	if (!path[0] || strlen(path) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", path);
	while (!realpath(buf[0] ? buf : ".", real)) {
		char *slash = strrchr(buf, '/'), tmp[PATH_MAX];
		const char *leaf = slash ? slash + 1 : buf;
		snprintf(tmp, sizeof(tmp), "%s%s%s", leaf, rest[0] ? "/" : "", rest);
		snprintf(rest, sizeof(rest), "%s", tmp);
		if (!slash)
			buf[0] = 0;
		else if (slash == buf)
			snprintf(buf, sizeof(buf), "/");
		else
			*slash = 0;
	}
	snprintf(out, len, "%s", real);
	char *save = NULL;
	for (char *w = strtok_r(rest, "/", &save); w; w = strtok_r(NULL, "/", &save)) {
		size_t n = strlen(out);
		if (!strcmp(w, "."))
			continue;
		if (!strcmp(w, "..")) {
			char *up = strrchr(out, '/');
			if (up && up != out)
				*up = 0;
			else
				snprintf(out, len, "/");
			continue;
		}
		if (n + strlen(w) + 2 > len)
			return -1;
		snprintf(out + n, len - n, "%s%s", n > 1 ? "/" : "", w);
	}
	return 0;
}

bool sys_scratch_inside(const char *path, char *where, size_t len)
{
	char real[PATH_MAX], base[PATH_MAX], b[PATH_MAX];
	const char *const dirs[] = { sys_state_dir(), SYS_STATE_DIR_DEFAULT };
	if (scratch_abs(path, real, sizeof(real)))
		return false;
	for (int i = 0; i < 2; i++) {
		snprintf(base, sizeof(base), "%s/scratch", dirs[i]);
		if (scratch_under(real, base) ||
		    (!scratch_abs(base, b, sizeof(b)) && scratch_under(real, b))) {
			snprintf(where, len, "%s", base);
			return true;
		}
	}
	return false;
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

/* The kernel name of block device number rdev (sysfs /dev/block/MAJ:MIN), into name.  0 or -1. */
static int scratch_name_of(dev_t rdev, char *name, size_t len)
{
	char link[PATH_MAX], real[PATH_MAX];
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys_sysfs(), major(rdev), minor(rdev));
	if (!realpath(link, real))
		return -1;
	const char *n = strrchr(real, '/');
	snprintf(name, len, "%s", n ? n + 1 : real);
	return 0;
}

/* A loop device's backing file as sysfs names it, " (deleted)" noted in *deleted.  0 or -1. */
static int scratch_backing(const char *loop, char *path, size_t len, bool *deleted)
{
	static const char gone[] = " (deleted)";
	*deleted = false;
	if (strncmp(loop, "loop", 4) || sys_dev_attr(loop, "loop/backing_file", path, len) ||
	    !path[0])
		return -1;
	size_t n = strlen(path);
	if (n > sizeof(gone) - 1 && !strcmp(path + n - (sizeof(gone) - 1), gone)) {
		path[n - (sizeof(gone) - 1)] = 0;
		*deleted = true;
	}
	return 0;
}

/* Is this stat what st names (the same block device, or the same file)? */
static bool scratch_same_node(const struct stat *a, const struct stat *b)
{
	if (S_ISBLK(a->st_mode) || S_ISBLK(b->st_mode))
		return S_ISBLK(a->st_mode) && S_ISBLK(b->st_mode) && a->st_rdev == b->st_rdev;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * Another loop device than `self` whose backing file or device is st: its
 * name into who; false when none.
 */
static bool scratch_loop_over(const struct stat *st, const char *self, char *who, size_t len)
{
	char path[PATH_MAX], bf[PATH_MAX];
	bool found = false, deleted;
	snprintf(path, sizeof(path), "%s/block", sys_sysfs());
	DIR *d = opendir(path);
	if (!d)
		return false;
	struct dirent *e;
	while (!found && (e = readdir(d))) {
		struct stat b;
		if (strncmp(e->d_name, "loop", 4) || !strcmp(e->d_name, self) ||
		    scratch_backing(e->d_name, bf, sizeof(bf), &deleted) || stat(bf, &b))
			continue;
		if (scratch_same_node(st, &b)) {
			snprintf(who, len, "%s", e->d_name);
			found = true;
		}
	}
	closedir(d);
	return found;
}

/* Is st active swap (a swap partition or a swap file)? */
static bool scratch_swap(const struct stat *st)
{
	char line[1024], path[PATH_MAX];
	bool on = false;
	FILE *f = fopen("/proc/swaps", "re");
	if (!f)
		return false;
	while (!on && fgets(line, sizeof(line), f)) {
		struct stat s;
		on = sscanf(line, "%4095s", path) == 1 && path[0] == '/' && !stat(path, &s) &&
		     scratch_same_node(st, &s);
	}
	fclose(f);
	return on;
}

static int scratch_check_dev(const char *who, const char *n, dev_t rdev, int depth,
			     char *err, size_t errlen);

/*
 * The backing file of loop device `loop` (what it reads and writes):
 * root's and writable by no one else, no other loop device's, not swap, and
 * when it is a block device, that device checked as the scratch device is.
 * fd: an open descriptor of the loop device.  0, or -1 with err.
 */
static int scratch_check_backing(const char *who, const char *loop, int fd, int depth,
				 char *err, size_t errlen)
{
	char bf[PATH_MAX], other[NAME_MAX + 1], w2[PATH_MAX + 64];
	struct loop_info64 li;
	struct stat st;
	bool deleted;
	if (scratch_backing(loop, bf, sizeof(bf), &deleted))
		return sys_err(err, errlen, "%s: a loop device without a backing file", who);
	snprintf(w2, sizeof(w2), "%s: its backing %s", who, bf);
	if (deleted)
		return sys_err(err, errlen, "%s: the loop device's backing file %s was deleted or "
				   "replaced", who, bf);
	if (stat(bf, &st))
		return sys_err(err, errlen, "%s: %s", w2, strerror(errno));
	if (ioctl(fd, LOOP_GET_STATUS64, &li))
		return sys_err(err, errlen, "%s: cannot ask the loop device what it reads: %s",
				   who, strerror(errno));
	if (li.lo_device != (uint64_t)st.st_dev || li.lo_inode != (uint64_t)st.st_ino)
		return sys_err(err, errlen, "%s: is not the file the loop device reads (renamed "
				   "or replaced)", w2);
	if (scratch_loop_over(&st, loop, other, sizeof(other)))
		return sys_err(err, errlen, "%s: also backs /dev/%s; jobmix makes no file system "
				   "on a file or device another loop device reads", w2, other);
	if (scratch_swap(&st))
		return sys_err(err, errlen, "%s: swap is active on it", w2);
	if (S_ISBLK(st.st_mode)) {
		char name[NAME_MAX + 1];
		if (scratch_name_of(st.st_rdev, name, sizeof(name)))
			return sys_err(err, errlen, "%s: not a device sysfs lists", w2);
		snprintf(w2, sizeof(w2), "%s: its backing device /dev/%s", who, name);
		return scratch_check_dev(w2, name, st.st_rdev, depth + 1, err, errlen);
	}
	if (!S_ISREG(st.st_mode))
		return sys_err(err, errlen, "%s: not a regular file or a block device", w2);
	if (st.st_uid != 0)
		return sys_err(err, errlen, "%s: owned by uid %u, not root: its owner could read "
				   "and write the scratch file system", w2, (unsigned)st.st_uid);
	if (st.st_mode & 022)
		return sys_err(err, errlen, "%s: writable by its %s (mode %04o): chmod go-w it",
				   w2, st.st_mode & 002 ? "others" : "group",
				   (unsigned)(st.st_mode & 07777));
	return 0;
}

/*
 * Device n (number rdev) in the chain of the scratch device (depth 0: the
 * scratch device itself; `who` names it in messages): a whole device,
 * writable, nothing stacked on it, not mounted (but at its own scratch
 * mount point, depth 0), not swap, not the root's, no other loop device's
 * backing device; a loop device followed to its backing file.  Backing
 * block devices must open O_EXCL.  0, or -1 with err.
 */
static int scratch_check_dev(const char *who, const char *n, dev_t rdev, int depth,
			     char *err, size_t errlen)
{
	char buf[64], mp[PATH_MAX], other[NAME_MAX + 1], ours[PATH_MAX], devpath[PATH_MAX];
	struct stat st = { .st_mode = S_IFBLK, .st_rdev = rdev };
	unsigned maj, mnr;
	if (depth > SYS_SCRATCH_DEPTH)
		return sys_err(err, errlen, "%s: more than %d loop layers", who, SYS_SCRATCH_DEPTH);
	if (!sys_dev_name_valid(n)) {
		snprintf(devpath, sizeof(devpath), "%s/class/block/%s/partition", sys_sysfs(), n);
		if (!stat(devpath, &st))
			return sys_err(err, errlen, "%s: a partition; jobmix makes file systems only "
					   "on a whole device or a loop device", who);
		return sys_err(err, errlen, "%s: not a whole device listed in /sys/block", who);
	}
	if (scratch_devnum(n, &maj, &mnr) || makedev(maj, mnr) != rdev)
		return sys_err(err, errlen, "%s: its device number is not what /sys/block/%s says",
				   who, n);
	if (!sys_dev_attr(n, "ro", buf, sizeof(buf)) && buf[0] == '1')
		return sys_err(err, errlen, "%s: read-only", who);
	if (!sys_dev_attr(n, "size", buf, sizeof(buf)) && strtoull(buf, NULL, 10) < 2048)
		return sys_err(err, errlen, "%s: empty or under 1 MiB (a loop device without its "
				   "file?)", who);
	if (scratch_partition(n, other, sizeof(other)))
		return sys_err(err, errlen, "%s: holds partitions (%s); jobmix does not make a file "
				   "system over a partition table", who, other);
	if (scratch_holder(n, other, sizeof(other)))
		return sys_err(err, errlen, "%s: %s is stacked on it (device mapper or md)", who,
				   other);
	scratch_mounted(maj, mnr, mp, sizeof(mp));
	sys_scratch_mount_point(n, ours, sizeof(ours));
	/* jobmix's own, left by a killed run: its record unmounts it (a live run's lock refuses) */
	if (mp[0] && (depth || strcmp(mp, ours)))
		return sys_err(err, errlen, "%s: holds a mounted file system (at %s); unmount it "
				   "first", who, mp);
	if (scratch_swap(&st))
		return sys_err(err, errlen, "%s: swap is active on it", who);
	struct sys_devset root = { 0 };
	char e2[256];
	if (!sys_dev_resolve("/", &root, e2, sizeof(e2)))
		for (size_t i = 0; i < root.n; i++)
			if (!strcmp(root.dev[i].name, n))
				return sys_err(err, errlen, "%s: the root file system's device", who);
	if (depth == 0 && scratch_loop_over(&st, "", other, sizeof(other)))
		return sys_err(err, errlen, "%s: the backing device of /dev/%s; jobmix makes no "
				   "file system on a device a loop device reads", who, other);
	snprintf(devpath, sizeof(devpath), "/dev/%s", n);
	int fd = open(devpath, O_RDONLY | O_CLOEXEC | (depth ? O_EXCL : 0));
	struct stat fst;
	if (fd < 0)
		return sys_err(err, errlen, "%s: %s", who, errno == EBUSY ?
				   "in use (mounted, or held open exclusively)" : strerror(errno));
	int rc = 0;
	if (fstat(fd, &fst) || !S_ISBLK(fst.st_mode) || fst.st_rdev != rdev)
		rc = sys_err(err, errlen, "%s: %s is not device %u:%u", who, devpath, maj, mnr);
	else if (!strncmp(n, "loop", 4))
		rc = scratch_check_backing(who, n, fd, depth, err, errlen);
	close(fd);
	return rc;
}

void sys_scratch_release(struct sys_scratch_hold *h)
{
	if (h->excl >= 0)
		close(h->excl);
	if (h->fd >= 0)
		close(h->fd);
	h->excl = h->fd = -1;
}

void sys_scratch_share(struct sys_scratch_hold *h)
{
	if (h->excl >= 0)
		close(h->excl);
	h->excl = -1;
}

int sys_scratch_identity(const char *name, char *id, size_t len)
{
	char v[PATH_MAX], bf[PATH_MAX];
	bool deleted;
	struct stat st;
	id[0] = 0;
	if (!sys_dev_name_valid(name) || sys_dev_attr(name, "dev", v, sizeof(v)) || !v[0])
		return -1;
	int n = snprintf(id, len, "dev %s", v);
	if (!sys_dev_attr(name, "diskseq", v, sizeof(v)) && v[0] && n >= 0 && (size_t)n < len)
		n += snprintf(id + n, len - (size_t)n, ", diskseq %s", v);
	if (!scratch_backing(name, bf, sizeof(bf), &deleted) && n >= 0 && (size_t)n < len) {
		if (deleted || stat(bf, &st))
			snprintf(id + n, len - (size_t)n, ", backing %s (gone)", bf);
		else
			snprintf(id + n, len - (size_t)n, ", backing %s (%u:%u inode %llu)", bf,
				 major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino);
	}
	return 0;
}

/* The diskseq of the device under fd (BLKGETDISKSEQ), 0 when the kernel has none. */
static unsigned long long scratch_fd_seq(int fd)
{
#ifdef BLKGETDISKSEQ
	__u64 seq = 0;
	if (fd >= 0 && !ioctl(fd, BLKGETDISKSEQ, &seq))
		return seq;
#else
	(void)fd;
#endif
	return 0;
}

int sys_scratch_same(struct sys_scratch_hold *h, char *err, size_t errlen)
{
	char now[SYS_SCRATCH_ID], path[PATH_MAX];
	struct stat st, fst;
	const char *why = NULL;
	snprintf(path, sizeof(path), "/dev/%s", h->name);
	if (sys_scratch_identity(h->name, now, sizeof(now)))
		why = "no longer listed in /sys/block";
	else if (strcmp(now, h->id))
		why = "another device under its name";
	else if (h->fd >= 0 && (stat(path, &st) || !S_ISBLK(st.st_mode) ||
				(unsigned long long)st.st_rdev != h->rdev))
		why = "its /dev node is now another device";
	else if (h->fd >= 0 && (fstat(h->fd, &fst) || (unsigned long long)fst.st_rdev != h->rdev))
		why = "the device held is not the one checked";
	else if (h->fd >= 0 && h->seq && scratch_fd_seq(h->fd) != h->seq)
		why = "the device held has another diskseq";
	if (!why)
		return 0;
	h->changed = true;
	return sys_err(err, errlen, "scratch %s: %s (checked as %s; now %s): the run stops, "
			   "nothing written to it", path, why, h->id, now[0] ? now : "none");
}

int sys_scratch_check(const char *path, struct sys_scratch_hold *h, char *err, size_t errlen)
{
	char real[PATH_MAX], ours[PATH_MAX], mp[PATH_MAX], who[PATH_MAX + 16];
	struct stat st, fst;
	*h = (struct sys_scratch_hold){ .fd = -1, .excl = -1 };
	if (!realpath(path, real))
		return sys_err(err, errlen, "--scratch %s: %s", path, strerror(errno));
	if (stat(real, &st) || !S_ISBLK(st.st_mode))
		return sys_err(err, errlen, "--scratch %s: not a block device", path);
	const char *n = real + 5;
	if (strncmp(real, "/dev/", 5) || strchr(n, '/') || strlen(n) >= sizeof(h->name))
		return sys_err(err, errlen, "--scratch %s: not a device of /dev (%s)", path,
				   real);
	/* held first, checked after: a loop device cannot be detached while it is open */
	h->fd = open(real, O_RDONLY | O_CLOEXEC);
	if (h->fd < 0)
		return sys_err(err, errlen, "--scratch %s: %s", path, strerror(errno));
	snprintf(h->name, sizeof(h->name), "%s", n);
	snprintf(who, sizeof(who), "--scratch %s", path);
	if (fstat(h->fd, &fst) || fst.st_rdev != st.st_rdev) {
		sys_err(err, errlen, "--scratch %s: changed while it was opened", path);
		goto fail;
	}
	if (scratch_check_dev(who, n, st.st_rdev, 0, err, errlen))
		goto fail;
	h->rdev = st.st_rdev;
	h->seq = scratch_fd_seq(h->fd);
	if (sys_scratch_identity(n, h->id, sizeof(h->id))) {
		sys_err(err, errlen, "--scratch %s: not listed in /sys/block", path);
		goto fail;
	}
	scratch_mounted(major(st.st_rdev), minor(st.st_rdev), mp, sizeof(mp));
	sys_scratch_mount_point(n, ours, sizeof(ours));
	if (mp[0] && !strcmp(mp, ours))
		return 0;   /* a killed run's file system: its repair unmounts it, then mkfs */
	h->excl = open(real, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (h->excl < 0) {
		sys_err(err, errlen, "--scratch %s: %s", path, errno == EBUSY ?
			"in use (mounted, or held open exclusively)" : strerror(errno));
		goto fail;
	}
	unsigned char head[8192];
	ssize_t got = pread(h->excl, head, sizeof(head), 0);
	if (got < 0) {
		sys_err(err, errlen, "--scratch %s: cannot read it: %s", path, strerror(errno));
		goto fail;
	}
	const char *table = scratch_table(head, (size_t)got);
	if (table) {
		sys_err(err, errlen, "--scratch %s: holds %s; jobmix does not make a file system "
			"over it (wipefs it first if it is yours to lose)", path, table);
		goto fail;
	}
	return 0;
fail:
	sys_scratch_release(h);
	return -1;
}

/* ---- making and mounting -------------------------------------------------------- */

/*
 * Run argv (an absolute program) with stdin from /dev/null, its output
 * kept (the last of it) in out.  Its exit status, or -1 (errno).
 */
static int scratch_exec(char *const argv[], char *out, size_t outlen)
{
	int pfd[2];
	pid_t parent = getpid();
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
		/* dies with jobmix: no mkfs left running on the device after a SIGKILL */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(127);
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
	size_t first = n;
	bool lazy = scratch_types[t].ext;
	char *save = NULL;
	for (char *w = strtok_r(words, " ", &save); w && n < 58; w = strtok_r(NULL, " ", &save)) {
		argv[n++] = w;
		lazy = lazy && strncmp(w, "-E", 2);
	}
	if (lazy) {   /* before the user's words: their -E, when given, is the one */
		memmove(argv + first + 2, argv + first, (n - first) * sizeof(argv[0]));
		argv[first] = "-E";
		argv[first + 1] = "lazy_itable_init=0,lazy_journal_init=0";
		n += 2;
	}
	argv[n++] = "--";   /* the device, never an option */
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

/*
 * The O_EXCL descriptor of h again, once nothing claims the device (an
 * unmount just done may take a moment to let it go).  0, or -1 with err.
 */
static int scratch_excl(struct sys_scratch_hold *h, char *err, size_t errlen)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/dev/%s", h->name);
	for (int tries = 0; h->excl < 0; tries++) {
		h->excl = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);
		if (h->excl >= 0)
			break;
		if (errno != EBUSY || tries >= 20)
			return sys_err(err, errlen, "scratch %s: cannot hold it exclusively: %s", path,
					   errno == EBUSY ? "someone else holds it" : strerror(errno));
		usleep(100 * 1000);
	}
	return 0;
}

int sys_scratch_make(struct sys_scratch_hold *h, const char *type, bool mkfs,
		     const char *mkfs_opts, const char *mount_opts, char *read_back, size_t rblen, char *err,
		     size_t errlen)
{
	char mp[PATH_MAX], devpath[PATH_MAX], data[SYS_SCRATCH_OPTS], shown[PATH_MAX + 16];
	unsigned long flags;
	if (rblen)
		read_back[0] = 0;
	const char *dev = h->name;
	if (sys_scratch_unmount(dev, err, errlen) || scratch_excl(h, err, errlen) ||
	    sys_scratch_same(h, err, errlen))
		return -1;
	if (mkfs) {
		sys_scratch_share(h);   /* mkfs opens it O_EXCL itself */
		if (scratch_mkfs(dev, type, mkfs_opts, err, errlen) || scratch_excl(h, err, errlen) ||
		    sys_scratch_same(h, err, errlen))
			return -1;
	}
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
	if (sys_scratch_same(h, err, errlen)) {
		rmdir(mp);
		return -1;
	}
	sys_scratch_share(h);   /* the mount claims it */
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
