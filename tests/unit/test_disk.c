// SPDX-License-Identifier: GPL-2.0-only
/*
 * The AIM7 disk jobs: exact bytes and requests for a known D, the same
 * work under every sync: setting, random offsets over the whole file, the
 * O_DIRECT unit, cleanup on success and on error, and disk_src's tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jm_test.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "jobmix/job.h"
#include "jobmix/job_disk.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

/* A work area: root/u0 (the user's directory) and root/shared. */
struct area {
	char root[PATH_MAX], udir[PATH_MAX], sdir[PATH_MAX];
	char *iobuf;
	struct jm_rng rng;
};

static int area_setup(void **state)
{
	struct area *a = calloc(1, sizeof(*a));
	assert_non_null(a);
	snprintf(a->root, sizeof(a->root), "/tmp/jobmix-disk-XXXXXX");
	assert_non_null(mkdtemp(a->root));
	snprintf(a->udir, sizeof(a->udir), "%s/u0", a->root);
	snprintf(a->sdir, sizeof(a->sdir), "%s/shared", a->root);
	assert_int_equal(mkdir(a->udir, 0700), 0);
	assert_int_equal(mkdir(a->sdir, 0700), 0);
	a->iobuf = aligned_alloc(4096, JOB_IOBUF_SIZE);
	assert_non_null(a->iobuf);
	job_fill_pattern(a->iobuf, JOB_IOBUF_SIZE, 1);
	jm_rng_seed(&a->rng, 1, 0);
	*state = a;
	return 0;
}

static void remove_tree(const char *path)
{
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", path);
}

static int area_teardown(void **state)
{
	struct area *a = *state;
	remove_tree(a->root);
	free(a->iobuf);
	free(a);
	return 0;
}

/* Files and directories below dir, recursively (dir itself not counted). */
static void count_tree(const char *dir, int *files, int *dirs)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		struct stat st;
		assert_int_equal(lstat(p, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			(*dirs)++;
			count_tree(p, files, dirs);
		} else {
			(*files)++;
		}
	}
	closedir(d);
}

struct run_opts {
	uint64_t prep_filesize; /* 0: same as filesize */
	bool no_prepare;
	unsigned user;
	bool removed_dir;       /* make udir, hold it, remove it: the job's directory is gone */
};

/* Prepare, setup, run once, teardown; returns run_once's result. */
static int run_kind_in(struct area *a, const char *udir, const char *name, uint64_t filesize,
		       enum job_sync sync, const struct run_opts *o, struct job_io *io,
		       char *err, size_t errlen)
{
	const struct job_kind *k = job_find(name);
	assert_non_null(k);
	if (o && o->removed_dir)
		assert_int_equal(mkdir(udir, 0700), 0);
	int ufd = dir_fd(udir), sfd = dir_fd(a->sdir);
	assert_true(ufd >= 0 && sfd >= 0);
	if (o && o->removed_dir)
		assert_int_equal(rmdir(udir), 0);
	struct job_prep prep = { .shared_dir = a->sdir, .shared_fd = sfd, .nusers = 1,
				 .dir_users = 1,
				 .filesize = o && o->prep_filesize ? o->prep_filesize : filesize,
				 .sync = sync, .seed = 1, .job_name = k->name };
	struct job_ctx c = { .dir = udir, .dir_fd = ufd, .shared_dir = a->sdir, .shared_fd = sfd,
			     .nusers = 1,
			     .user = o ? o->user : 0, .filesize = filesize, .sync = sync,
			     .rng = &a->rng, .iobuf = a->iobuf, .job_name = k->name };
	void *st = NULL;
	int rc = 0;
	if (k->prepare && !(o && o->no_prepare)) {
		rc = k->prepare(&prep, k, NULL);
		if (rc)
			snprintf(err, errlen, "prepare: %s", prep.err);
		assert_int_equal(rc, 0);
	}
	if (k->setup)
		assert_int_equal(k->setup(&c, k, NULL, &st), 0);
	rc = k->run_once(&c, k, NULL, st);
	if (rc)
		snprintf(err, errlen, "%s", c.err);
	if (k->teardown)
		k->teardown(&c, k, NULL, st);
	*io = c.io;
	close(ufd);
	close(sfd);
	return rc;
}

static struct job_io run_ok(struct area *a, const char *name, uint64_t filesize,
			    enum job_sync sync)
{
	struct job_io io = { 0 };
	char err[JOB_ERR_LEN + 16] = "";
	int rc = run_kind_in(a, a->udir, name, filesize, sync, NULL, &io, err, sizeof(err));
	if (rc)
		print_error("%s: %s\n", name, err);
	assert_int_equal(rc, 0);
	assert_int_equal(count_entries(a->udir), 0);
	return io;
}

/* Expected work for D = 64 blocks of the kind's unit, in blocks. */
struct expect {
	const char *name;
	uint64_t rblocks, wblocks;
};

static const struct expect expected[] = {
	/* fill D, D random reads */
	{ "disk_rr", 64, 64 },  { "disk_brr", 64, 64 },  { "disk_dio_rr", 64, 64 },
	/* fill D, D random writes */
	{ "disk_rw", 0, 128 },  { "disk_brw", 0, 128 },  { "disk_dio_rw", 0, 128 },
	/* fill D, read D; disk_brd and disk_dio_rd read the shared file (re-aim's) */
	{ "disk_rd", 64, 64 },  { "disk_brd", 64, 0 },   { "disk_dio_rd", 64, 0 },
	/* write D */
	{ "disk_wrt", 0, 64 },  { "disk_bwrt", 0, 64 },  { "disk_dio_wrt", 0, 64 },
	/* copy D */
	{ "disk_cp", 64, 64 },  { "disk_bcp", 64, 64 },  { "disk_dio_cp", 64, 64 },
	/* O_SYNC: D/2 */
	{ "sync_disk_rw", 0, 64 },       /* fill D/2, D/2 random writes   */
	{ "sync_disk_wrt", 0, 32 },      /* D/2 writes                    */
	{ "sync_disk_cp", 32, 32 },      /* copy D/2                      */
	{ "sync_disk_update", 32, 96 },  /* fill D, D/2 (read, write)     */
};

static unsigned unit_of(const char *name, const char *dir)
{
	int fd = dir_fd(dir);
	unsigned unit = job_disk_unit(strstr(name, "_dio_") != NULL, job_dio_align(fd));
	close(fd);
	return unit;
}

static void test_exact_bytes(void **state)
{
	struct area *a = *state;
	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		const struct expect *e = &expected[i];
		unsigned unit = unit_of(e->name, a->udir);
		struct job_io io = run_ok(a, e->name, 64 * unit, JOB_SYNC_FILE);
		if (io.rbytes != e->rblocks * unit || io.wbytes != e->wblocks * unit)
			print_error("%s: read %llu written %llu\n", e->name,
				    (unsigned long long)io.rbytes, (unsigned long long)io.wbytes);
		assert_int_equal(io.rbytes, e->rblocks * unit);
		assert_int_equal(io.wbytes, e->wblocks * unit);
		assert_int_equal(io.rops, e->rblocks);
		assert_int_equal(io.wops, e->wblocks);
	}
	/* the brief's example, spelled out */
	struct job_io io = run_ok(a, "disk_rr", 64 * KiB, JOB_SYNC_FILE);
	assert_int_equal(io.wbytes, 64 * KiB);
	assert_int_equal(io.rbytes, 64 * KiB);
	assert_int_equal(io.rops, 64);
}

static void test_sync_setting_moves_same_bytes(void **state)
{
	struct area *a = *state;
	static const char *const kinds[] = { "disk_rr", "disk_rw", "disk_rd", "disk_wrt",
					     "disk_cp", "disk_dio_rw" };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct job_io none = run_ok(a, kinds[i], 40 * KiB, JOB_SYNC_NONE);
		struct job_io file = run_ok(a, kinds[i], 40 * KiB, JOB_SYNC_FILE);
		assert_true(none.rbytes + none.wbytes > 0);
		assert_int_equal(none.rbytes, file.rbytes);
		assert_int_equal(none.wbytes, file.wbytes);
		assert_int_equal(none.rops, file.rops);
		assert_int_equal(none.wops, file.wops);
	}
	/* sync(2) once, on one kind: same work again */
	struct job_io none = run_ok(a, "disk_wrt", 40 * KiB, JOB_SYNC_NONE);
	struct job_io global = run_ok(a, "disk_wrt", 40 * KiB, JOB_SYNC_GLOBAL);
	assert_int_equal(none.syncs, 0);
	assert_int_equal(global.syncs, 2);
	global.syncs = 0;
	assert_memory_equal(&none, &global, sizeof(none));
}

/*
 * sync: exec runs the sync program (re-aim's system("sync")) at every sync
 * point: as many as sync: global, the same bytes, no fsync of the file.
 * Sync points per job: rr 2, rw 2, rd 2, wrt 2, cp 3; buffer-cache kinds none.
 */
static void test_sync_exec(void **state)
{
	struct area *a = *state;
	static const struct { const char *kind; uint64_t syncs; } want[] = {
		{ "disk_rr", 2 }, { "disk_rw", 2 }, { "disk_rd", 2 }, { "disk_wrt", 2 },
		{ "disk_cp", 3 }, { "disk_brr", 0 }, { "sync_disk_wrt", 0 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		struct job_io g = run_ok(a, want[i].kind, 16 * KiB, JOB_SYNC_GLOBAL);
		struct job_io x = run_ok(a, want[i].kind, 16 * KiB, JOB_SYNC_EXEC);
		struct job_io f = run_ok(a, want[i].kind, 16 * KiB, JOB_SYNC_FILE);
		assert_int_equal(x.syncs, want[i].syncs);
		assert_int_equal(g.syncs, want[i].syncs);
		assert_int_equal(f.syncs, want[i].syncs);
		assert_int_equal(x.fsyncs, 0);
		assert_int_equal(x.wbytes, g.wbytes);
		assert_int_equal(x.rbytes, g.rbytes);
		assert_int_equal(x.wops + x.rops, g.wops + g.rops);
	}
	/* file: an fsync only where the job still holds its file open */
	struct job_io f = run_ok(a, "disk_rd", 16 * KiB, JOB_SYNC_FILE);
	assert_int_equal(f.fsyncs, 2);
}

/* D = 64 MiB in 1 KiB blocks: offsets fall in both halves, beyond re-aim's 32 MiB cap. */
static void test_random_offsets_span_file(void **state)
{
	(void)state;
	struct jm_rng r;
	jm_rng_seed(&r, 7, 3);
	const uint64_t d = 64 * MiB, n = d / JOB_DISK_UNIT;
	const int draws = 20000;
	int upper = 0;
	uint64_t hi = 0;
	for (int i = 0; i < draws; i++) {
		uint64_t off = job_disk_rand_offset(&r, n, JOB_DISK_UNIT);
		assert_true(off < d);
		assert_int_equal(off % JOB_DISK_UNIT, 0);
		if (off >= 32 * MiB)
			upper++;
		if (off > hi)
			hi = off;
	}
	/* a fair coin over 20000 draws: 50% +- 3% is far outside 5 sigma (0.35%) */
	assert_in_range(upper, draws * 47 / 100, draws * 53 / 100);
	assert_true(hi >= d - d / 100);
	/* a 1 TiB file: the top 1% is reached too */
	const uint64_t big = 1ull << 40;
	hi = 0;
	for (int i = 0; i < 2000; i++) {
		uint64_t off = job_disk_rand_offset(&r, big / 4096, 4096);
		assert_true(off < big);
		if (off > hi)
			hi = off;
	}
	assert_true(hi >= big - big / 100);
}

static void test_unit_and_blocks(void **state)
{
	(void)state;
	assert_int_equal(job_disk_unit(false, 4096), 1024);
	assert_int_equal(job_disk_unit(true, 512), 1024);
	assert_int_equal(job_disk_unit(true, 4096), 4096);
	assert_int_equal(job_disk_blocks(10 * KiB, 1024), 10);
	assert_int_equal(job_disk_blocks(10 * KiB + 1000, 4096), 2); /* rounded down */
	assert_int_equal(job_disk_blocks(100, 4096), 1);             /* at least one */
	assert_int_equal(job_disk_blocks(0, 1024), 1);
}

/* dio kinds move whole, aligned units of max(1 KiB, logical block size). */
static void test_dio_unit(void **state)
{
	struct area *a = *state;
	int ufd = dir_fd(a->udir);
	unsigned lbs = job_dio_align(ufd);
	close(ufd);
	unsigned unit = job_disk_unit(true, lbs);
	assert_true(unit >= 1024);
	assert_int_equal(unit % lbs, 0);
	/* D not a multiple of the unit: rounded down */
	uint64_t d = 20 * (uint64_t)unit + unit / 2;
	struct job_io io = run_ok(a, "disk_dio_rd", d, JOB_SYNC_NONE);
	assert_int_equal(io.rops, 20);
	assert_int_equal(io.rbytes, 20 * (uint64_t)unit);
	assert_int_equal(io.rbytes % lbs, 0);
	/* D smaller than one unit: one unit */
	io = run_ok(a, "disk_dio_rr", 100, JOB_SYNC_NONE);
	assert_int_equal(io.rops, 1);
	assert_int_equal(io.rbytes, unit);
	io = run_ok(a, "disk_dio_cp", 100, JOB_SYNC_NONE);
	assert_int_equal(io.wbytes, unit);
	/* the buffered kinds keep 1 KiB whatever the device */
	io = run_ok(a, "disk_brd", d, JOB_SYNC_NONE);
	assert_int_equal(io.rops, d / 1024);
}

/* A failing job still removes its file and names the path. */
static void test_cleanup_on_error(void **state)
{
	struct area *a = *state;
	struct job_io io;
	char err[JOB_ERR_LEN + 16] = "";
	/* no source file: fails on open, before creating anything */
	struct run_opts o = { .no_prepare = true };
	assert_int_equal(run_kind_in(a, a->udir, "disk_bcp", 8 * KiB, JOB_SYNC_NONE, &o, &io,
				     err, sizeof(err)), -1);
	assert_non_null(strstr(err, "disk_bcp.0.src"));
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(count_entries(a->udir), 0);
	/* a source shorter than D: fails half-way, after the target was created */
	o = (struct run_opts){ .prep_filesize = 8 * KiB };
	assert_int_equal(run_kind_in(a, a->udir, "disk_cp", 16 * KiB, JOB_SYNC_FILE, &o, &io,
				     err, sizeof(err)), -1);
	assert_non_null(strstr(err, "too short"));
	assert_int_equal(io.wops, 8);
	assert_int_equal(count_entries(a->udir), 0);
	/* a user directory that is gone (removed while held) */
	char gone[PATH_MAX];
	snprintf(gone, sizeof(gone), "%s/missing", a->root);
	o = (struct run_opts){ .removed_dir = true };
	assert_int_equal(run_kind_in(a, gone, "disk_rr", 8 * KiB, JOB_SYNC_NONE, &o, &io,
				     err, sizeof(err)), -1);
	assert_non_null(strstr(err, "disk_rr: create '"));
	assert_non_null(strstr(err, gone));
}

/* The cp source holds D bytes of non-zero data. */
static void test_cp_source(void **state)
{
	struct area *a = *state;
	run_ok(a, "disk_cp", 12 * KiB, JOB_SYNC_NONE);
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/disk_cp.0.src", a->sdir);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	unsigned char buf[12 * 1024];
	assert_int_equal(fread(buf, 1, sizeof(buf), f), sizeof(buf));
	assert_int_equal(fgetc(f), EOF);
	fclose(f);
	size_t zeros = 0;
	for (size_t i = 0; i < sizeof(buf); i++)
		zeros += buf[i] == 0;
	assert_int_equal(zeros, 0);
}

/* disk_src: 25 dirs, 320 files; nothing added by two users' runs. */
static void test_disk_src(void **state)
{
	struct area *a = *state;
	struct job_io io;
	char err[JOB_ERR_LEN + 16] = "";
	char u1[PATH_MAX], tree[PATH_MAX];
	snprintf(u1, sizeof(u1), "%s/u1", a->root);
	assert_int_equal(mkdir(u1, 0700), 0);
	struct run_opts o1 = { .user = 1 };
	assert_int_equal(run_kind_in(a, a->udir, "disk_src", 8 * KiB, JOB_SYNC_NONE, NULL, &io,
				     err, sizeof(err)), 0);
	assert_int_equal(run_kind_in(a, u1, "disk_src", 8 * KiB, JOB_SYNC_NONE, &o1, &io, err,
				     sizeof(err)), 0);
	assert_int_equal(count_entries(a->udir), 0);
	assert_int_equal(count_entries(u1), 0);
	snprintf(tree, sizeof(tree), "%s/disk_src.0", a->sdir);
	int files = 0, dirs = 0;
	count_tree(tree, &files, &dirs);
	/* re-aim's fakeh: 8 directories of 40 files, the list, 23 directories below */
	assert_int_equal(files, 8 * 40 + 1);
	assert_int_equal(dirs, 23);
	/* without its tree it fails, naming the missing path */
	remove_tree(tree);
	struct run_opts o = { .no_prepare = true };
	assert_int_equal(run_kind_in(a, a->udir, "disk_src", 8 * KiB, JOB_SYNC_NONE, &o, &io,
				     err, sizeof(err)), -1);
	assert_non_null(strstr(err, tree));
	assert_int_equal(count_entries(a->udir), 0);
}

/*
 * tmpfs: kernels before 6.6 reject O_DIRECT there.  Either the dio kind
 * works, or it fails saying O_DIRECT is not supported and naming the path.
 */
static void test_dio_on_tmpfs(void **state)
{
	(void)state;
	struct statfs sfs;
	if (statfs("/dev/shm", &sfs) || sfs.f_type != 0x01021994 /* TMPFS_MAGIC */)
		skip();
	struct area t = { 0 };
	snprintf(t.root, sizeof(t.root), "/dev/shm/jobmix-disk-XXXXXX");
	assert_non_null(mkdtemp(t.root));
	snprintf(t.udir, sizeof(t.udir), "%s/u0", t.root);
	snprintf(t.sdir, sizeof(t.sdir), "%s/shared", t.root);
	assert_int_equal(mkdir(t.udir, 0700), 0);
	assert_int_equal(mkdir(t.sdir, 0700), 0);
	t.iobuf = aligned_alloc(4096, JOB_IOBUF_SIZE);
	job_fill_pattern(t.iobuf, JOB_IOBUF_SIZE, 1);
	jm_rng_seed(&t.rng, 1, 0);
	struct job_io io = { 0 };
	char err[JOB_ERR_LEN + 16] = "";
	int rc = run_kind_in(&t, t.udir, "disk_dio_wrt", 8 * KiB, JOB_SYNC_NONE, NULL, &io, err,
			     sizeof(err));
	if (rc) {
		assert_non_null(strstr(err, "O_DIRECT is not supported"));
		assert_non_null(strstr(err, t.udir));
	} else {
		assert_int_equal(io.wbytes, 8 * KiB);
	}
	assert_int_equal(count_entries(t.udir), 0);
	remove_tree(t.root);
	free(t.iobuf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exact_bytes, area_setup, area_teardown),
		cmocka_unit_test_setup_teardown(test_sync_setting_moves_same_bytes, area_setup,
						area_teardown),
		cmocka_unit_test(test_random_offsets_span_file),
		cmocka_unit_test(test_unit_and_blocks),
		cmocka_unit_test_setup_teardown(test_dio_unit, area_setup, area_teardown),
		cmocka_unit_test_setup_teardown(test_sync_exec, area_setup, area_teardown),
		cmocka_unit_test_setup_teardown(test_cleanup_on_error, area_setup, area_teardown),
		cmocka_unit_test_setup_teardown(test_cp_source, area_setup, area_teardown),
		cmocka_unit_test_setup_teardown(test_disk_src, area_setup, area_teardown),
		cmocka_unit_test(test_dio_on_tmpfs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
