// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process jobs: fork_test, exec_test, shell_rtns_1/2/3 (children whose exit
 * status is checked), jmp_test (setjmp/longjmp out of a recursion) and
 * signal_test (signals to self).  Programs and scripts run by these jobs
 * ship in jobmix's libexec directory (c->libexec_dir, found from the binary's
 * own location); nothing is looked up in a fixed path.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jobmix/job.h"

#define FORK_LOOPS 100
#define EXEC_LOOPS 5
#define EXEC_PROG  "exec_test.sh"
#define SHELL      "/bin/sh"
#define CHILD_ERR  160       /* bytes of a child's stderr kept for messages */

/* waitpid() retried on EINTR. */
static pid_t proc_wait(pid_t pid, int *status)
{
	pid_t r;
	do
		r = waitpid(pid, status, 0);
	while (r < 0 && errno == EINTR);
	return r;
}

/* "exited with status 3" / "was killed by signal 9 (Killed)" */
static void proc_status_text(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "ended with wait status 0x%x", (unsigned)status);
}

/* read() retried on EINTR. */
static ssize_t proc_read(int fd, void *buf, size_t len)
{
	ssize_t n;
	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/*
 * Fork and execv(argv[0]) with stdin and stdout on /dev/null and stderr
 * into a pipe, whose first bytes are kept in errtxt; wait for the child.
 * The child works in the user's directory, entered by its held descriptor
 * (fchdir, never a path through the work directory's parents), so nothing
 * a script does relative to its working directory lands outside the area.
 * An exec failure comes back through a close-on-exec pipe as the child's
 * errno and is reported as "exec '<path>' failed: <strerror><hint>".
 * Returns 0 with *status set, or -1 after job_fail().
 */
static int proc_spawn(struct job_ctx *c, char *const argv[], const char *hint, int *status,
		      char *errtxt, size_t errlen)
{
	int ret = -1, nullfd = -1, xp[2] = { -1, -1 }, ep[2] = { -1, -1 };
	errtxt[0] = 0;
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nullfd < 0) {
		job_fail(c, "open", "/dev/null", errno);
		goto out;
	}
	if (pipe2(xp, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		job_fail(c, "pipe", NULL, errno);
		goto out;
	}
	pid_t pid = fork();
	if (pid < 0) {
		job_fail(c, "fork", NULL, errno);
		goto out;
	}
	if (pid == 0) {
		/* the child: only async-signal-safe calls; dup2 clears close-on-exec */
		if (fchdir(c->dir_fd)) {
			/* not a directory (a test's context): stays where jobmix is */
		}
		if (dup2(nullfd, 0) >= 0 && dup2(nullfd, 1) >= 0 && dup2(ep[1], 2) >= 0)
			execv(argv[0], argv);
		int e = errno;
		if (write(xp[1], &e, sizeof(e)) < 0)
			_exit(126);
		_exit(127);
	}
	close(xp[1]);
	close(ep[1]);
	xp[1] = ep[1] = -1;
	int xerr = 0;
	ssize_t xn = proc_read(xp[0], &xerr, sizeof(xerr));
	size_t have = 0;
	char chunk[512];
	for (;;) {
		ssize_t n = proc_read(ep[0], chunk, sizeof(chunk));
		if (n <= 0)
			break;
		size_t take = (size_t)n < errlen - 1 - have ? (size_t)n : errlen - 1 - have;
		memcpy(errtxt + have, chunk, take);
		have += take;
	}
	errtxt[have] = 0;
	while (have && (errtxt[have - 1] == '\n' || errtxt[have - 1] == ' '))
		errtxt[--have] = 0;
	if (proc_wait(pid, status) < 0) {
		job_fail(c, "waitpid", argv[0], errno);
		goto out;
	}
	if (xn == (ssize_t)sizeof(xerr)) {
		job_failf(c, "exec '%s' failed: %s%s", argv[0], strerror(xerr), hint ? hint : "");
		goto out;
	}
	ret = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (xp[i] >= 0)
			close(xp[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	if (nullfd >= 0)
		close(nullfd);
	return ret;
}

/*
 * fork_test, re-aim's work: 100 x (fork, the child exits at once, the
 * parent waits until no child is left).  re-aim's wait() loop made a
 * second wait that returned ECHILD; this one waits for its own child and
 * then asks again (ECHILD), the same two calls, without reaping anything
 * of another user in the same process.  The child calls _exit(0): exit()
 * would run the load generator's atexit handlers in the child.
 */
static int proc_fork_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			 void *state)
{
	(void)k, (void)params, (void)state;
	const int forks = (int)job_scaled(c, FORK_LOOPS);
	for (int i = 0; i < forks; i++) {
		int st;
		pid_t pid = fork();
		if (pid < 0)
			return job_fail(c, "fork", NULL, errno);
		if (pid == 0)
			_exit(0);
		if (proc_wait(pid, &st) < 0)
			return job_fail(c, "waitpid", NULL, errno);
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			char why[80];
			proc_status_text(st, why, sizeof(why));
			return job_failf(c, "forked child %d %s, expected exit status 0", i, why);
		}
		if (proc_wait(pid, &st) >= 0 || errno != ECHILD)
			return job_failf(c, "forked child %d could be waited for twice", i);
	}
	return 0;
}

const struct job_kind job_fork_test = {
	.name = "fork_test",
	.family = "proc",
	.summary = "100 x (fork, child _exit(0), wait, wait again: ECHILD), status checked",
	.doc = "AIM7 fork_test, re-aim's work: 100 x fork; the child exits at once; the "
	       "parent waits for it and checks it exited with status 0, then waits once more "
	       "and gets ECHILD, as re-aim's wait() loop did (two wait calls a fork). Fixes "
	       "over re-aim: the waits name the child (users in one process cannot reap each "
	       "other's children) and the child calls _exit(0), not exit(0) (no atexit "
	       "handlers of the load generator in the child). Process-only: forking from a "
	       "user thread would copy the whole multi-threaded load generator.",
	.flags = JOB_PROCESS_ONLY | JOB_FORKS,
	.run_once = proc_fork_run,
};

/* Check a child's status is a normal exit with `want`; fail with its stderr. */
static int proc_check(struct job_ctx *c, char *const argv[], int status, int want,
		      const char *errtxt)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == want)
		return 0;
	char why[80];
	proc_status_text(status, why, sizeof(why));
	return job_failf(c, "'%s%s%s' %s, expected exit status %d%s%s", argv[0],
			 argv[1] ? " " : "", argv[1] ? argv[1] : "", why, want,
			 *errtxt ? ": " : "", errtxt);
}

/*
 * exec_test, re-aim's work: 5 x fork + exec of a shell script (re-aim's
 * scripts/true, here libexec/exec_test.sh) that runs ls -l; the script
 * exits with the status given as its argument (40..44 here), so a status
 * of 0 or 127 can never be mistaken for a successful exec.
 */
static int proc_exec_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			 void *state)
{
	(void)k, (void)params, (void)state;
	if (!c->libexec_dir || !*c->libexec_dir)
		return job_failf(c, "no libexec directory given (it holds %s)", EXEC_PROG);
	char path[PATH_MAX], code[16], errtxt[CHILD_ERR];
	job_path(path, c->libexec_dir, EXEC_PROG);
	const int execs = (int)job_scaled(c, EXEC_LOOPS);
	for (int i = 0; i < execs; i++) {
		int st, want = 40 + i % EXEC_LOOPS;
		snprintf(code, sizeof(code), "%d", want);
		char *argv[] = { path, code, NULL };
		if (proc_spawn(c, argv, " (is the libexec directory right?)", &st, errtxt,
			       sizeof(errtxt)))
			return -1;
		if (proc_check(c, argv, st, want, errtxt))
			return -1;
	}
	return 0;
}

const struct job_kind job_exec_test = {
	.name = "exec_test",
	.family = "proc",
	.summary = "5 x fork + exec of a /bin/sh script running ls -l (re-aim's true), status checked",
	.doc = "AIM7 exec_test, re-aim's work: 5 x (fork, exec of a shell script, wait). As "
	       "re-aim's scripts/true, the script (libexec/exec_test.sh, found through the "
	       "libexec directory next to the jobmix binary, never an install path) is exec'd "
	       "directly, so the kernel starts /bin/sh on it, and it runs `ls -l` (of libexec; "
	       "re-aim's listed its current directory) into /dev/null. It exits with the status "
	       "given as its argument (40..44), which is checked, so a failed exec cannot pass; "
	       "an exec failure is reported with the path and errno. Process-only.",
	.flags = JOB_PROCESS_ONLY | JOB_FORKS,
	.run_once = proc_exec_run,
};

/* shell_rtns_*: /bin/sh runs libexec/<script>; the script must exit 0. */
static int proc_shell_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			  void *state)
{
	(void)params, (void)state;
	const char *script = k->variant;
	if (!c->libexec_dir || !*c->libexec_dir)
		return job_failf(c, "no libexec directory given (it holds %s)", script);
	char path[PATH_MAX], errtxt[CHILD_ERR];
	job_path(path, c->libexec_dir, script);
	if (access(path, R_OK))
		return job_fail(c, "find script", path, errno);
	/* as re-aim's system("<script> 9"): a shell that runs the script, another shell */
	char *argv[] = { SHELL, "-c", "\"$0\" 9", path, NULL };
	/* one run of the script is the unit: a scale of 1.1 runs it twice in a job of ten */
	for (uint64_t n = job_scaled(c, 1); n > 0; n--) {
		int st;
		if (proc_spawn(c, argv, NULL, &st, errtxt, sizeof(errtxt)) ||
		    proc_check(c, argv, st, 0, errtxt))
			return -1;
	}
	return 0;
}

const struct job_kind job_shell_rtns_1 = {
	.name = "shell_rtns_1",
	.family = "proc",
	.summary = "sh -c runs libexec/shell_rtns_1.sh: ls -l of libexec > /dev/null",
	.doc = "AIM7 shell_rtns_1, re-aim's work: as re-aim's system(\"aim_1.sh 9\"), "
	       "`/bin/sh -c` runs libexec/shell_rtns_1.sh with the argument 9 (a second "
	       "shell), which lists jobmix's libexec directory with `ls -l > /dev/null` "
	       "(re-aim's aim_1.sh listed its working directory; libexec is the same on every "
	       "machine).  The listing's status and the shell's exit status are checked, its "
	       "stderr quoted on failure.  Process-only.",
	.flags = JOB_PROCESS_ONLY | JOB_FORKS,
	.variant = "shell_rtns_1.sh",
	.run_once = proc_shell_run,
};

const struct job_kind job_shell_rtns_2 = {
	.name = "shell_rtns_2",
	.family = "proc",
	.summary = "sh -c runs libexec/shell_rtns_2.sh 9: re-aim's aim_2.sh, a 5 s sleep",
	.doc = "AIM7 shell_rtns_2, re-aim's work: as re-aim's system(\"aim_2.sh 9\"), "
	       "`/bin/sh -c` runs libexec/shell_rtns_2.sh with the argument 9, which sleeps "
	       "5 s (1 s for an argument of 10 or more; re-aim always passed 9).  The job is "
	       "idle time, not work: in a mix it lowers JPM as it did in re-aim's figures.  "
	       "The shell's exit status is checked.  Process-only.",
	.flags = JOB_PROCESS_ONLY | JOB_FORKS,
	.variant = "shell_rtns_2.sh",
	.run_once = proc_shell_run,
};

const struct job_kind job_shell_rtns_3 = {
	.name = "shell_rtns_3",
	.family = "proc",
	.summary = "sh -c runs libexec/shell_rtns_3.sh: ls -l of libexec > /dev/null",
	.doc = "AIM7 shell_rtns_3, re-aim's work (its aim_3.sh is aim_1.sh's twin): as "
	       "re-aim's system(\"aim_3.sh 9\"), `/bin/sh -c` runs libexec/shell_rtns_3.sh "
	       "with the argument 9, which lists jobmix's libexec directory with `ls -l > "
	       "/dev/null`; the listing's status and the shell's exit status are checked.  "
	       "Process-only.",
	.flags = JOB_PROCESS_ONLY | JOB_FORKS,
	.variant = "shell_rtns_3.sh",
	.run_once = proc_shell_run,
};

/* ---- jmp_test ------------------------------------------------------------ */

#define JMP_LOOPS 1000

/*
 * re-aim's dummy_function recursed 10 levels by tail calls before its
 * longjmp; gcc -O2 (as re-aim is built) turns the tail calls into a loop
 * that never runs and leaves one call that longjmps at once.  This is that
 * call: out of line, so the jump leaves a real frame.
 */
__attribute__((noinline, noclone)) static void jmp_leap(jmp_buf *env)
{
	longjmp(*env, 1);
}

/* re-aim's loop: setjmp, the call that jumps back; returns the jumps that came. */
static int job_jmp_work(unsigned loops)
{
	volatile int jumps = 0;
	for (volatile unsigned i = 0; i < loops; i++) {
		jmp_buf env;
		if (setjmp(env) == 0)
			jmp_leap(&env);
		else
			jumps = jumps + 1;
	}
	return jumps;
}

static int proc_jmp_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			void *state)
{
	(void)k, (void)params, (void)state;
	const int loops = (int)job_scaled(c, JMP_LOOPS);
	int jumps = job_jmp_work((unsigned)loops);
	if (jumps != loops)
		return job_failf(c, "%d of %d longjmps came back", jumps, loops);
	return 0;
}

const struct job_kind job_jmp_test = {
	.name = "jmp_test",
	.family = "proc",
	.summary = "1000 x (setjmp, a call that longjmps back), as re-aim's runs at -O2",
	.doc = "AIM7 jmp_test, re-aim's work as its -O2 build does it: 1000 x (setjmp, one "
	       "out-of-line call that longjmps back to it). re-aim's source recursed 10 levels "
	       "by tail calls before the longjmp; gcc -O2 turns those into a loop that never "
	       "runs, so its binary does no recursion, and neither does this job, at any "
	       "optimisation level. The jumps are counted (volatile) and checked.",
	.run_once = proc_jmp_run,
};

/* ---- signal_test ----------------------------------------------------------- */

#define SIG_LOOPS 1000
#define SIG_SIGNAL SIGUSR1

/*
 * The handler can only reach static storage.  signal_test is
 * JOB_PROCESS_ONLY, so a process holds one user and this counter is never
 * shared between users.  volatile sig_atomic_t: re-aim's counter was not
 * volatile and its test hung under -O (the compiler kept it in a register).
 */
static volatile sig_atomic_t sig_count, sig_reinstalled;
static struct sigaction sig_sa;

/*
 * re-aim's handler: re-install itself (its signal(SIGUSR2, sighandler), one
 * rt_sigaction per delivery; sigaction is async-signal-safe), then count.
 */
static void sig_handler(int sig)
{
	(void)sig;
	if (!sigaction(SIG_SIGNAL, &sig_sa, NULL))
		sig_reinstalled = sig_reinstalled + 1;
	sig_count = sig_count + 1;
}

/*
 * 1000 x tgkill(self): the signal is aimed at the calling thread and is
 * unblocked, so it is delivered before tgkill returns; the counter is
 * checked after every signal.  The previous action and mask are restored.
 */
static int proc_signal_run(struct job_ctx *c, const struct job_kind *k, const void *params,
			   void *state)
{
	(void)k, (void)params, (void)state;
	struct sigaction sa, old;
	sigset_t set, oldmask;
	int ret = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sigemptyset(&sa.sa_mask);
	sig_sa = sa;
	if (sigaction(SIG_SIGNAL, &sa, &old))
		return job_fail(c, "sigaction", NULL, errno);
	sigemptyset(&set);
	sigaddset(&set, SIG_SIGNAL);
	int err = pthread_sigmask(SIG_UNBLOCK, &set, &oldmask);
	if (err) {
		job_fail(c, "pthread_sigmask", NULL, err);
		goto restore_action;
	}
	pid_t pid = getpid(), tid = gettid();
	sig_count = 0;
	sig_reinstalled = 0;
	const int loops = (int)job_scaled(c, SIG_LOOPS);
	for (int i = 0; i < loops; i++) {
		if (tgkill(pid, tid, SIG_SIGNAL)) {
			job_fail(c, "tgkill", NULL, errno);
			goto restore_mask;
		}
		if (sig_count != i + 1) {
			job_failf(c, "signal %d to self not handled (count %d)", i, (int)sig_count);
			goto restore_mask;
		}
	}
	if (sig_reinstalled != loops) {
		job_failf(c, "the handler re-installed itself %d times, not %d",
			  (int)sig_reinstalled, loops);
		goto restore_mask;
	}
	job_sink = (uint64_t)sig_count;
	ret = 0;
restore_mask:
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
restore_action:
	if (sigaction(SIG_SIGNAL, &old, NULL) && !ret)
		ret = job_fail(c, "sigaction (restore)", NULL, errno);
	return ret;
}

const struct job_kind job_signal_test = {
	.name = "signal_test",
	.family = "proc",
	.summary = "1000 x SIGUSR1 to self with a handler, every delivery counted",
	.doc = "AIM7 signal_test: install a SIGUSR1 handler, send SIGUSR1 to the calling "
	       "thread 1000 times (tgkill: delivered before the call returns) and check the "
	       "handler's counter after each one; the handler re-installs itself on every "
	       "delivery, as re-aim's did; then restore the previous handler and "
	       "signal mask.  The counter is a volatile sig_atomic_t (re-aim's was not "
	       "volatile and hung under -O).  Process-only (the handler's counter is per process).",
	.flags = JOB_PROCESS_ONLY,
	.run_once = proc_signal_run,
};
