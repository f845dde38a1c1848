// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scratch device's pure parts: the mkfs option allow-list of each file
 * system, and the device identity compared before every mkfs and mount,
 * read from a fake sysfs in a temp dir (a diskseq or backing file that
 * changes is another device).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobmix/sys_dev.h"
#include "jobmix/sys_scratch.h"

static void expect_ok(const char *type, const char *v)
{
	char err[512] = "";
	int rc = sys_scratch_mkfs_allowed(type, v, err, sizeof(err));
	if (rc)
		fprintf(stderr, "%s '%s': %s\n", type, v, err);
	assert_int_equal(rc, 0);
}

static void expect_refused(const char *type, const char *v, const char *names)
{
	char err[512] = "";
	assert_int_equal(sys_scratch_mkfs_allowed(type, v, err, sizeof(err)), -1);
	if (!strstr(err, names))
		fprintf(stderr, "%s '%s': '%s' does not name '%s'\n", type, v, err, names);
	assert_non_null(strstr(err, names));
}

static void test_mkfs_allowed(void **state)
{
	(void)state;
	expect_ok("ext4", "-b 4096");
	expect_ok("ext4", "-b4096 -E root_owner=0:0 -O ^has_journal -L x -J size=64");
	expect_ok("ext2", "-I 256 -m 0 -T largefile");
	expect_ok("xfs", "-m crc=1 -i size=512 -d agcount=4 -l size=64m -n ftype=1");
	expect_ok("btrfs", "-n 16k -m dup --csum xxhash -L x");
	expect_ok("btrfs", "--csum=xxhash");
	expect_ok("f2fs", "-O extra_attr -l x -o 5");
}

static void test_mkfs_refused(void **state)
{
	(void)state;
	expect_refused("btrfs", "-f /dev/loop9", "'/dev/loop9' has a '/'");
	expect_refused("btrfs", "-f loop9", "'-f' is not an mkfs.btrfs option");
	expect_refused("btrfs", "-L x loop9", "'loop9' is not an option");
	expect_refused("btrfs", "--rootdir x", "'--rootdir' is not an mkfs.btrfs option");
	expect_refused("btrfs", "--csumx y", "'--csumx'");
	expect_refused("btrfs", "--", "'--' is not an mkfs.btrfs option");
	expect_refused("xfs", "-r rtdev=/dev/loop9", "has a '/'");
	expect_refused("xfs", "-r extsize=4k", "'-r' is not an mkfs.xfs option");
	expect_refused("xfs", "-l logdev=loop9", "'-l logdev'");
	expect_refused("xfs", "-d name=x", "'-d name'");
	expect_refused("xfs", "-d file", "'-d file'");
	expect_refused("xfs", "-c options=x", "'-c'");
	expect_refused("ext4", "-J device=x", "'-J device'");
	expect_refused("ext4", "-J location=x", "'-J location'");
	expect_refused("ext4", "-d x", "'-d' is not an mkfs.ext4 option");
	expect_refused("ext4", "-z x", "'-z'");
	expect_refused("ext4", "-l x", "'-l'");
	expect_refused("ext4", "-c", "'-c'");
	expect_refused("ext4", "-n", "'-n'");
	expect_refused("ext4", "-S", "'-S'");
	expect_refused("ext4", "-M x", "'-M'");
	expect_refused("ext4", "-t ext2", "'-t'");
	expect_refused("ext4", "-jF", "'-jF'");
	expect_refused("ext4", "-L", "-L takes a value");
	expect_refused("ext4", "-E", "-E takes a value");
	expect_refused("ext4", "-E offset=1", "'-E offset'");
	expect_refused("ext4", "-b 4096 -", "'-' is not an mkfs.ext4 option");
	expect_refused("f2fs", "-c loop9", "'-c'");
	expect_refused("f2fs", "-S 1", "'-S'");
	expect_refused("zfs", "-b 1", "not a file system jobmix makes");
}

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static void test_identity(void **state)
{
	(void)state;
	char a[SYS_SCRATCH_ID], b[SYS_SCRATCH_ID], err[1024], path[256], img[256];
	snprintf(root, sizeof(root), "/tmp/jm-scratch-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/block", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/block/loop7", root);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/block/loop7/loop", root);
	mkdir(path, 0700);
	snprintf(img, sizeof(img), "%s/img", root);
	put("img", "x");
	put("block/loop7/dev", "7:7");
	put("block/loop7/diskseq", "40");
	put("block/loop7/loop/backing_file", img);
	sys_dev_set_sysfs(root);
	assert_int_equal(sys_scratch_identity("loop7", a, sizeof(a)), 0);
	assert_non_null(strstr(a, "dev 7:7, diskseq 40, backing "));
	struct sys_scratch_hold h = { .fd = -1, .excl = -1 };
	snprintf(h.name, sizeof(h.name), "loop7");
	snprintf(h.id, sizeof(h.id), "%s", a);
	assert_int_equal(sys_scratch_same(&h, err, sizeof(err)), 0);
	assert_false(h.changed);
	/* detached and attached again: a new diskseq */
	put("block/loop7/diskseq", "41");
	assert_int_equal(sys_scratch_same(&h, err, sizeof(err)), -1);
	assert_true(h.changed);
	assert_non_null(strstr(err, "another device under its name"));
	assert_non_null(strstr(err, "nothing written"));
	/* no diskseq (an older kernel): another backing file is another device */
	snprintf(path, sizeof(path), "%s/block/loop7/diskseq", root);
	unlink(path);
	assert_int_equal(sys_scratch_identity("loop7", a, sizeof(a)), 0);
	unlink(img);
	put("other", "y");
	put("img", "z");   /* the same name, another inode */
	assert_int_equal(sys_scratch_identity("loop7", b, sizeof(b)), 0);
	assert_string_not_equal(a, b);
	/* gone */
	snprintf(h.id, sizeof(h.id), "%s", b);
	h.changed = false;
	snprintf(path, sizeof(path), "%s/block/loop7/dev", root);
	unlink(path);
	assert_int_equal(sys_scratch_same(&h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no longer listed"));
	sys_dev_set_sysfs(NULL);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mkfs_allowed),
		cmocka_unit_test(test_mkfs_refused),
		cmocka_unit_test(test_identity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
