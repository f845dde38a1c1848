// SPDX-License-Identifier: GPL-2.0-only
/*
 * The output writer (atomic.h) against every kind of target: a new file,
 * a regular file (its owner and mode kept, another user's too), a hard
 * link, symbolic links (to a file, dangling, to a device, /proc/self/fd of
 * a pipe and of a file, as /dev/stdout is), a character device, a FIFO
 * with and without a reader, a directory, one of the command's inputs; the
 * call sequence (file fsync, rename, folder fsync) through the test hooks;
 * every error path leaving the old file whole and no temp file behind; a
 * held folder written through after its name was swapped for a link.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobmix/atomic.h"
#include "jm_test.h"

static char dir[PATH_MAX];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/jobmix-atomic.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

static int teardown(void **state)
{
	(void)state;
	atom_set_ops(NULL);
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* <dir>/<name> */
static const char *at(const char *name)
{
	static char p[4][PATH_MAX];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

static void put(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

/* The file's contents ("" when it cannot be read). */
static const char *slurp(const char *path)
{
	static char buf[4096];
	buf[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return buf;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static int write_text(const char *path, const char *text, const struct atom_set *in, char *err,
		      size_t errlen)
{
	struct atom_buf b = { text, strlen(text) };
	return atom_write(path, atom_fill_buf, &b, in, err, errlen);
}

static mode_t kind_of(const char *path)
{
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & S_IFMT;
}

/* ---- regular files ------------------------------------------------------------ */

static void test_new_file(void **state)
{
	(void)state;
	char err[1024];
	mode_t mask = umask(022);
	assert_int_equal(write_text(at("new.txt"), "hello\n", NULL, err, sizeof(err)), 0);
	umask(mask);
	assert_string_equal(slurp(at("new.txt")), "hello\n");
	struct stat st;
	assert_int_equal(stat(at("new.txt"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(count_entries(dir), 1);   /* no temp left */
}

/* An existing file keeps its owner, group and permission bits (set-id dropped). */
static void test_keeps_owner_mode(void **state)
{
	(void)state;
	char err[1024];
	put(at("mine"), "old", 0640);
	assert_int_equal(write_text(at("mine"), "new", NULL, err, sizeof(err)), 0);
	struct stat st;
	assert_int_equal(stat(at("mine"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_string_equal(slurp(at("mine")), "new");
	if (geteuid() != 0) {
		skip();
		return;
	}
	/* another user's 0600 file, as root: replaced, still theirs and 0600 */
	put(at("theirs"), "old", 04600);
	assert_int_equal(chown(at("theirs"), 65534, 65534), 0);
	assert_int_equal(chmod(at("theirs"), 04600), 0);
	assert_int_equal(write_text(at("theirs"), "new", NULL, err, sizeof(err)), 0);
	assert_int_equal(stat(at("theirs"), &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_string_equal(slurp(at("theirs")), "new");
	assert_int_equal(count_entries(dir), 2);
}

/* A user who cannot give a new file the old one's owner does not replace it (real fchown). */
static void test_other_user_refused(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		skip();
		return;
	}
	char sub[PATH_MAX];
	assert_int_equal(chmod(dir, 0755), 0);   /* mkdtemp's 0700 keeps the other user out */
	snprintf(sub, sizeof(sub), "%s/open", dir);
	assert_int_equal(mkdir(sub, 0777), 0);
	assert_int_equal(chmod(sub, 0777), 0);
	char file[PATH_MAX + 8];
	snprintf(file, sizeof(file), "%s/f", sub);
	put(file, "root's", 0644);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[1024];
		if (setgid(65534) || setuid(65534))
			_exit(10);
		int rc = write_text(file, "nobody's", NULL, err, sizeof(err));
		if (rc != ATOM_REFUSED || !strstr(err, "cannot be kept")) {
			fprintf(stderr, "as nobody: %d %s\n", rc, err);
			_exit(11);
		}
		_exit(0);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_string_equal(slurp(file), "root's");
	struct stat st;
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(count_entries(sub), 1);
}

static void test_hard_link_refused(void **state)
{
	(void)state;
	char err[1024];
	put(at("a"), "old", 0644);
	assert_int_equal(link(at("a"), at("b")), 0);
	assert_int_equal(write_text(at("b"), "new", NULL, err, sizeof(err)), ATOM_REFUSED);
	assert_non_null(strstr(err, "2 hard links"));
	assert_string_equal(slurp(at("a")), "old");
	assert_string_equal(slurp(at("b")), "old");
	assert_int_equal(count_entries(dir), 2);
}

/* An output that is one of the inputs, by any name, is refused (the input intact). */
static void test_input_refused(void **state)
{
	(void)state;
	char err[1024], other[PATH_MAX + 8];
	struct atom_set in = { 0 };
	put(at("run.json"), "{\"the\": \"record\"}", 0644);
	assert_int_equal(atom_set_add(&in, at("run.json")), 0);
	assert_int_equal(atom_set_add(&in, at("points.csv")), 0);   /* absent: skipped */
	assert_int_equal(in.n, 1);
	assert_int_equal(write_text(at("run.json"), "report", &in, err, sizeof(err)), ATOM_REFUSED);
	assert_non_null(strstr(err, "inputs"));
	snprintf(other, sizeof(other), "%s/./run.json", dir);
	assert_int_equal(write_text(other, "report", &in, err, sizeof(err)), ATOM_REFUSED);
	assert_string_equal(slurp(at("run.json")), "{\"the\": \"record\"}");
	/* a file that is not an input is written */
	assert_int_equal(write_text(at("out.txt"), "report", &in, err, sizeof(err)), 0);
	struct atom_set m = { 0 };
	assert_int_equal(atom_set_merge(&m, &in), 0);
	assert_int_equal(m.n, 1);
	assert_int_equal(atom_check_at(AT_FDCWD, at("run.json"), &m, err, sizeof(err)),
			 ATOM_REFUSED);
	atom_set_free(&m);
	atom_set_free(&in);
	assert_int_equal(count_entries(dir), 2);
}

/* ---- links ---------------------------------------------------------------------- */

static void test_symlink_to_file_refused(void **state)
{
	(void)state;
	char err[1024];
	put(at("target"), "old", 0644);
	assert_int_equal(symlink(at("target"), at("link")), 0);
	assert_int_equal(write_text(at("link"), "new", NULL, err, sizeof(err)), ATOM_REFUSED);
	assert_non_null(strstr(err, at("link")));
	assert_non_null(strstr(err, at("target")));
	assert_int_equal(kind_of(at("link")), S_IFLNK);
	assert_string_equal(slurp(at("target")), "old");
	/* dangling: nothing made through it */
	assert_int_equal(symlink(at("nowhere"), at("dangling")), 0);
	assert_int_equal(write_text(at("dangling"), "new", NULL, err, sizeof(err)), ATOM_REFUSED);
	assert_non_null(strstr(err, "does not exist"));
	assert_int_equal(access(at("nowhere"), F_OK), -1);
	/* to a directory */
	assert_int_equal(symlink("/tmp", at("todir")), 0);
	assert_int_equal(write_text(at("todir"), "new", NULL, err, sizeof(err)), ATOM_REFUSED);
	assert_int_equal(count_entries(dir), 4);
}

/* /dev/stdout is /proc/self/fd/1: a pipe there is written in place, a regular file refused. */
static void test_proc_fd_link(void **state)
{
	(void)state;
	char err[1024], path[64], got[64] = "";
	int p[2];
	assert_int_equal(pipe(p), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	assert_int_equal(write_text(path, "to the pipe\n", NULL, err, sizeof(err)), 0);
	assert_int_equal(read(p[0], got, sizeof(got) - 1), 12);
	assert_string_equal(got, "to the pipe\n");
	close(p[0]);
	close(p[1]);
	put(at("stdout.txt"), "old", 0644);
	int fd = open(at("stdout.txt"), O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	assert_int_equal(write_text(path, "new", NULL, err, sizeof(err)), ATOM_REFUSED);
	assert_non_null(strstr(err, "regular file"));
	close(fd);
	assert_string_equal(slurp(at("stdout.txt")), "old");
	assert_int_equal(count_entries(dir), 1);
}

/* ---- devices and FIFOs ------------------------------------------------------------ */

static void test_char_device(void **state)
{
	(void)state;
	char err[1024];
	assert_int_equal(write_text("/dev/null", "gone\n", NULL, err, sizeof(err)), 0);
	assert_int_equal(kind_of("/dev/null"), S_IFCHR);
	/* through a link to it */
	assert_int_equal(symlink("/dev/null", at("null")), 0);
	assert_int_equal(write_text(at("null"), "gone\n", NULL, err, sizeof(err)), 0);
	assert_int_equal(kind_of(at("null")), S_IFLNK);
	assert_int_equal(kind_of("/dev/null"), S_IFCHR);
	assert_int_equal(count_entries(dir), 1);
}

static void test_fifo(void **state)
{
	(void)state;
	char err[1024], got[64] = "";
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	/* no reader: an error at once, not a hang */
	assert_int_equal(write_text(at("fifo"), "x", NULL, err, sizeof(err)), ATOM_ERR);
	assert_non_null(strstr(err, "no reader"));
	assert_int_equal(kind_of(at("fifo")), S_IFIFO);
	int rd = open(at("fifo"), O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(write_text(at("fifo"), "down the fifo", NULL, err, sizeof(err)), 0);
	assert_int_equal(read(rd, got, sizeof(got) - 1), 13);
	assert_string_equal(got, "down the fifo");
	close(rd);
	assert_int_equal(kind_of(at("fifo")), S_IFIFO);
	assert_int_equal(count_entries(dir), 1);
}

/* A private record (the scheduler state): 0600 when new, a FIFO or a link refused. */
static void test_private_record(void **state)
{
	(void)state;
	char err[1024];
	struct atom_buf b = { "original=bfq\n", 13 };
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	mode_t mask = umask(022);
	assert_int_equal(atom_write_private_at(dfd, "loop5", atom_fill_buf, &b, err, sizeof(err)), 0);
	umask(mask);
	struct stat st;
	assert_int_equal(stat(at("loop5"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_string_equal(slurp(at("loop5")), "original=bfq\n");
	struct atom_buf b2 = { "original=none\n", 14 };
	assert_int_equal(atom_write_private_at(dfd, "loop5", atom_fill_buf, &b2, err, sizeof(err)), 0);
	assert_string_equal(slurp(at("loop5")), "original=none\n");
	assert_int_equal(mkfifo(at("loop6"), 0600), 0);
	int rd = open(at("loop6"), O_RDONLY | O_NONBLOCK);
	assert_true(rd >= 0);
	assert_int_equal(atom_write_private_at(dfd, "loop6", atom_fill_buf, &b, err, sizeof(err)),
			 ATOM_REFUSED);
	assert_non_null(strstr(err, "a FIFO"));
	close(rd);
	assert_int_equal(symlink("/dev/null", at("loop7")), 0);
	assert_int_equal(atom_write_private_at(dfd, "loop7", atom_fill_buf, &b, err, sizeof(err)),
			 ATOM_REFUSED);
	assert_int_equal(kind_of(at("loop7")), S_IFLNK);
	assert_int_equal(count_entries(dir), 3);   /* no temp left */
	close(dfd);
}

static void test_directory_refused(void **state)
{
	(void)state;
	char err[1024];
	assert_int_equal(mkdir(at("d"), 0755), 0);
	assert_int_equal(write_text(at("d"), "x", NULL, err, sizeof(err)), ATOM_REFUSED);
	assert_non_null(strstr(err, "a directory"));
	assert_int_equal(write_text(at("d/"), "x", NULL, err, sizeof(err)), ATOM_REFUSED);
	assert_int_equal(write_text("", "x", NULL, err, sizeof(err)), ATOM_REFUSED);
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(count_entries(at("d")), 0);
}

/* ---- the call sequence and failures --------------------------------------------- */

/* What the hooks saw: 'f' fsync of a file, 'd' fsync of a folder, 'r' rename, 'c' fchown. */
static char seq[64];
static size_t nseq;
static ino_t seq_dir_ino;     /* the folder fsynced */
static char fail_at;          /* the hook that fails, 0 none */
static int fail_errno;

static void note(char c)
{
	if (nseq + 1 < sizeof(seq))
		seq[nseq++] = c;
	seq[nseq] = 0;
}

static int hook_fsync(int fd)
{
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	char c = S_ISDIR(st.st_mode) ? 'd' : 'f';
	if (c == 'd')
		seq_dir_ino = st.st_ino;
	note(c);
	if (fail_at == c) {
		errno = fail_errno;
		return -1;
	}
	return fsync(fd);
}

static int hook_rename(int ofd, const char *old, int nfd, const char *new, unsigned flags)
{
	note('r');
	if (fail_at == 'r') {
		errno = fail_errno;
		return -1;
	}
	return renameat2(ofd, old, nfd, new, flags);
}

static int hook_fchown(int fd, uid_t uid, gid_t gid)
{
	note('c');
	if (fail_at == 'c') {
		errno = fail_errno;
		return -1;
	}
	return fchown(fd, uid, gid);
}

static const struct atom_ops hooks = {
	.fsync = hook_fsync, .fchown = hook_fchown, .renameat2 = hook_rename,
};

static void hooks_on(char fail, int e)
{
	nseq = 0;
	seq[0] = 0;
	seq_dir_ino = 0;
	fail_at = fail;
	fail_errno = e;
	atom_set_ops(&hooks);
}

/* The file is fsynced, then renamed, then its folder fsynced. */
static void test_sequence(void **state)
{
	(void)state;
	char err[1024];
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	hooks_on(0, 0);
	assert_int_equal(write_text(at("seq"), "1", NULL, err, sizeof(err)), 0);
	assert_string_equal(seq, "frd");
	assert_int_equal(seq_dir_ino, st.st_ino);
	hooks_on(0, 0);
	assert_int_equal(write_text(at("seq"), "2", NULL, err, sizeof(err)), 0);
	assert_string_equal(seq, "cfrd");   /* replacing: the owner given first */
	atom_set_ops(NULL);
	assert_string_equal(slurp(at("seq")), "2");
	assert_int_equal(count_entries(dir), 1);
}

/* Each failing step: the old file whole, no temp left, err says what failed. */
static void test_failures_keep_old(void **state)
{
	(void)state;
	static const struct {
		char at;
		int e;
		int rc;
		const char *said;
		const char *after;   /* the file's contents after */
	} cases[] = {
		{ 'f', ENOSPC, ATOM_ERR, "fsync", "old" },
		{ 'r', EIO, ATOM_ERR, "rename", "old" },
		{ 'c', EPERM, ATOM_REFUSED, "cannot be kept", "old" },
		/* after the rename the new file is there; the error says it may not last */
		{ 'd', EIO, ATOM_ERR, "fsync of its folder", "new" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[1024] = "";
		put(at("f"), "old", 0644);
		hooks_on(cases[i].at, cases[i].e);
		assert_int_equal(write_text(at("f"), "new", NULL, err, sizeof(err)), cases[i].rc);
		atom_set_ops(NULL);
		if (!strstr(err, cases[i].said))
			print_error("case %c: '%s'\n", cases[i].at, err);
		assert_non_null(strstr(err, cases[i].said));
		assert_string_equal(slurp(at("f")), cases[i].after);
		assert_int_equal(count_entries(dir), 1);
	}
}

/* A fill that runs out of space half way: the old file intact, the temp gone. */
static int fill_enospc(FILE *f, void *ctx)
{
	(void)ctx;
	fputs("half of it", f);
	errno = ENOSPC;
	return -1;
}

static void test_fill_enospc(void **state)
{
	(void)state;
	char err[1024];
	put(at("report.txt"), "the old report", 0644);
	assert_int_equal(atom_write(at("report.txt"), fill_enospc, NULL, NULL, err, sizeof(err)),
			 ATOM_ERR);
	assert_non_null(strstr(err, strerror(ENOSPC)));
	assert_non_null(strstr(err, at("report.txt")));
	assert_string_equal(slurp(at("report.txt")), "the old report");
	assert_int_equal(count_entries(dir), 1);
	/* staged by hand and aborted: the same */
	struct atom_file a;
	assert_int_equal(atom_begin_at(&a, AT_FDCWD, at("report.txt"), NULL, err, sizeof(err)), 0);
	fputs("never", a.f);
	assert_int_equal(atom_sync(&a, err, sizeof(err)), 0);
	assert_int_equal(count_entries(dir), 2);   /* the temp, beside it */
	atom_abort(&a);
	atom_abort(&a);   /* twice is harmless */
	assert_string_equal(slurp(at("report.txt")), "the old report");
	assert_int_equal(count_entries(dir), 1);
}

/* The target replaced, or made, while it was written: not overwritten. */
static void test_changed_meanwhile(void **state)
{
	(void)state;
	char err[1024];
	struct atom_file a;
	put(at("t"), "old", 0644);
	assert_int_equal(atom_begin_at(&a, AT_FDCWD, at("t"), NULL, err, sizeof(err)), 0);
	fputs("new", a.f);
	put(at("other"), "someone else's", 0644);
	assert_int_equal(rename(at("other"), at("t")), 0);
	assert_int_equal(atom_commit(&a, err, sizeof(err)), ATOM_REFUSED);
	assert_non_null(strstr(err, "changed while"));
	assert_string_equal(slurp(at("t")), "someone else's");
	assert_int_equal(count_entries(dir), 1);
	assert_int_equal(atom_begin_at(&a, AT_FDCWD, at("n"), NULL, err, sizeof(err)), 0);
	fputs("new", a.f);
	assert_int_equal(symlink("/etc/passwd", at("n")), 0);
	assert_int_equal(atom_commit(&a, err, sizeof(err)), ATOM_REFUSED);
	assert_int_equal(kind_of(at("n")), S_IFLNK);
	assert_int_equal(count_entries(dir), 2);
}

/* ---- held folders ----------------------------------------------------------------- */

/* Written through a held folder after its name was swapped for a link elsewhere. */
static void test_at_held_folder(void **state)
{
	(void)state;
	char err[1024];
	int fd = atom_mkdir_at(AT_FDCWD, at("run"), 0755);
	assert_true(fd >= 0);
	struct atom_buf b = { "one", 3 };
	assert_int_equal(atom_write_at(fd, "run.json", atom_fill_buf, &b, NULL, err, sizeof(err)),
			 0);
	assert_int_equal(mkdir(at("elsewhere"), 0755), 0);
	assert_int_equal(rename(at("run"), at("run.moved")), 0);
	assert_int_equal(symlink(at("elsewhere"), at("run")), 0);
	b = (struct atom_buf){ "two", 3 };
	assert_int_equal(atom_write_at(fd, "run.json", atom_fill_buf, &b, NULL, err, sizeof(err)),
			 0);
	close(fd);
	assert_string_equal(slurp(at("run.moved/run.json")), "two");
	assert_int_equal(count_entries(at("run.moved")), 1);
	assert_int_equal(count_entries(at("elsewhere")), 0);
	/* a name taken: EEXIST */
	assert_int_equal(atom_mkdir_at(AT_FDCWD, at("elsewhere"), 0755), -1);
	assert_int_equal(errno, EEXIST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keeps_owner_mode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_other_user_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hard_link_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_input_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_to_file_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_fd_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_char_device, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fifo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_directory_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_record, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sequence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failures_keep_old, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fill_enospc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_at_held_folder, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
