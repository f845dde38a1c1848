// SPDX-License-Identifier: GPL-2.0-only
/*
 * Running gnuplot (see gnuplot.h): fork, exec `gnuplot` from PATH with the
 * script on its stdin, collect stdout and stderr, all in one poll loop
 * bounded by a deadline; the child's exit is awaited on a pidfd (or, where
 * the kernel has none, with short sleeps up to the same deadline).  The
 * scripts themselves are made in src/report/plot.c (plot.h), pure; this is
 * the one place that runs the external program.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobmix/atomic.h"
#include "jobmix/gnuplot.h"
#include "jobmix/plot.h"

#define GP_PROGRAM "gnuplot"
#define GP_STDERR_KEEP 4096

bool gp_available(void)
{
	const char *path = getenv("PATH");
	char dflt[256], file[PATH_MAX];
	if (!path) {
		size_t n = confstr(_CS_PATH, dflt, sizeof(dflt));
		path = n && n <= sizeof(dflt) ? dflt : "/bin:/usr/bin";
	}
	for (const char *p = path;;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		struct stat st;
		if (n == 0)
			snprintf(file, sizeof(file), "./%s", GP_PROGRAM);
		else
			snprintf(file, sizeof(file), "%.*s/%s", (int)n, p, GP_PROGRAM);
		if (!stat(file, &st) && S_ISREG(st.st_mode) && !access(file, X_OK))
			return true;
		if (!end)
			return false;
		p = end + 1;
	}
}

static double gp_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Milliseconds left until deadline, for poll (0 when past). */
static int gp_ms_left(double deadline)
{
	double left = deadline - gp_now();
	return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

static void gp_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Append up to what a read gives to a growing buffer; -1 when it would pass max. */
static int gp_grow(char **buf, size_t *len, size_t *cap, size_t want, size_t max)
{
	if (*len + want + 1 <= *cap)
		return 0;
	if (*len + want > max)
		return -1;
	size_t ncap = *cap ? *cap : 65536;
	while (ncap < *len + want + 1)
		ncap *= 2;
	char *nb = realloc(*buf, ncap);
	if (!nb)
		return -1;
	*buf = nb;
	*cap = ncap;
	return 0;
}

/* gnuplot's stderr, trimmed, for an error message ("" when it said nothing). */
static const char *gp_said(char *ebuf, size_t elen)
{
	while (elen && (ebuf[elen - 1] == '\n' || ebuf[elen - 1] == ' ' || ebuf[elen - 1] == '\r'))
		elen--;
	ebuf[elen] = 0;
	return ebuf;
}

/*
 * Wait for pid to exit until deadline: on a pidfd when there is one, else
 * with 10 ms sleeps.  Kills it (SIGKILL) at the deadline.  Its wait status
 * in *status; 1 when it had to be killed, 0 otherwise, -1 on error.
 */
static int gp_wait(pid_t pid, int pidfd, double deadline, int *status)
{
	int killed = 0;
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return killed;
		if (w < 0 && errno != EINTR)
			return -1;
		if (killed) {
			/* SIGKILL cannot be refused: this wait ends. */
			while ((w = waitpid(pid, status, 0)) < 0 && errno == EINTR)
				;
			return w == pid ? 1 : -1;
		}
		int ms = gp_ms_left(deadline);
		if (ms == 0) {
			kill(pid, SIGKILL);
			killed = 1;
			continue;
		}
		if (pidfd >= 0) {
			struct pollfd p = { .fd = pidfd, .events = POLLIN };
			if (poll(&p, 1, ms) < 0 && errno != EINTR)
				return -1;
		} else {
			struct timespec ts = { 0, 10 * 1000 * 1000 };
			nanosleep(&ts, NULL);
		}
	}
}

/* The pipes between jobmix and one gnuplot, and what came back. */
struct gp_io {
	int in, out, err, st;           /* script to its stdin; its stdout, stderr; exec status */
	const char *script;
	size_t len, sent;
	char *buf;                      /* its stdout */
	size_t blen, bcap;
	bool too_big;
	char ebuf[GP_STDERR_KEEP + 1];  /* the start of its stderr */
	size_t elen;
	int exec_errno;                 /* set when the exec failed */
	size_t stlen;
};

/*
 * Fork and exec gnuplot with pipes on its stdin, stdout and stderr, and a
 * close-on-exec pipe that carries errno back when the exec fails.  The
 * parent's ends into io.  The pid, or -1 with err set.
 */
static pid_t gp_spawn(struct gp_io *io, char *err, size_t errlen)
{
	int in[2] = { -1, -1 }, op[2] = { -1, -1 }, ep[2] = { -1, -1 }, sp[2] = { -1, -1 };
	pid_t pid = -1;
	if (pipe2(in, O_CLOEXEC) || pipe2(op, O_CLOEXEC) || pipe2(ep, O_CLOEXEC) ||
	    pipe2(sp, O_CLOEXEC)) {
		snprintf(err, errlen, "gnuplot: pipe failed: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "gnuplot: fork failed: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		struct sigaction dfl = { .sa_handler = SIG_DFL };
		char *argv[] = { GP_PROGRAM, NULL };
		sigemptyset(&dfl.sa_mask);
		sigaction(SIGPIPE, &dfl, NULL);
		if (dup2(in[0], 0) >= 0 && dup2(op[1], 1) >= 0 && dup2(ep[1], 2) >= 0)
			execvp(GP_PROGRAM, argv);
		int e = errno;
		ssize_t wr = write(sp[1], &e, sizeof(e));
		(void)wr;
		_exit(127);
	}
	if (fcntl(in[1], F_SETFL, O_NONBLOCK)) {
		snprintf(err, errlen, "gnuplot: fcntl failed: %s", strerror(errno));
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		pid = -1;
		goto out;
	}
	io->in = in[1];
	io->out = op[0];
	io->err = ep[0];
	io->st = sp[0];
	in[1] = op[0] = ep[0] = sp[0] = -1;
out:
	for (int i = 0; i < 2; i++) {
		gp_close(&in[i]);
		gp_close(&op[i]);
		gp_close(&ep[i]);
		gp_close(&sp[i]);
	}
	return pid;
}

/* One ready descriptor of io: write more script, or read what came back. */
static void gp_service(struct gp_io *io, int *fd)
{
	ssize_t n;
	if (fd == &io->in) {
		n = write(io->in, io->script + io->sent, io->len - io->sent);
		if (n > 0)
			io->sent += (size_t)n;
		if ((n < 0 && errno != EAGAIN && errno != EINTR) || io->sent == io->len)
			gp_close(&io->in);   /* done, or gnuplot stopped reading */
		return;
	}
	if (fd == &io->out) {
		if (io->too_big || gp_grow(&io->buf, &io->blen, &io->bcap, 65536, GP_MAX_OUTPUT)) {
			char sink[65536];
			io->too_big = true;
			n = read(io->out, sink, sizeof(sink));
		} else {
			n = read(io->out, io->buf + io->blen, io->bcap - io->blen - 1);
			if (n > 0)
				io->blen += (size_t)n;
		}
	} else if (fd == &io->err) {
		char tmp[1024];
		n = read(io->err, tmp, sizeof(tmp));
		if (n > 0) {
			size_t room = GP_STDERR_KEEP - io->elen;
			size_t k = (size_t)n < room ? (size_t)n : room;
			memcpy(io->ebuf + io->elen, tmp, k);
			io->elen += k;
		}
	} else {
		n = read(io->st, (char *)&io->exec_errno + io->stlen,
			 sizeof(io->exec_errno) - io->stlen);
		if (n > 0)
			io->stlen += (size_t)n;
		if (io->stlen == sizeof(io->exec_errno))
			n = 0;
	}
	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN))
		gp_close(fd);
}

/*
 * Feed the script and drain stdout, stderr and the exec-status pipe until
 * gnuplot has closed its ends or the deadline passes.  0, or -1 with err
 * set when poll fails.
 */
static int gp_pump(struct gp_io *io, double deadline, char *err, size_t errlen)
{
	if (io->len == 0)
		gp_close(&io->in);
	while (io->out >= 0 || io->err >= 0 || io->st >= 0) {
		int *all[4] = { &io->in, &io->out, &io->err, &io->st };
		struct pollfd p[4];
		int *fds[4], np = 0;
		for (int i = 0; i < 4; i++) {
			if (*all[i] < 0)
				continue;
			p[np] = (struct pollfd){ .fd = *all[i], .events = i ? POLLIN : POLLOUT };
			fds[np++] = all[i];
		}
		int ms = gp_ms_left(deadline);
		int r = ms ? poll(p, (nfds_t)np, ms) : 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(err, errlen, "gnuplot: poll failed: %s", strerror(errno));
			return -1;
		}
		if (r == 0)
			return 0;   /* the deadline: the caller kills it */
		for (int i = 0; i < np; i++)
			if (p[i].revents)
				gp_service(io, fds[i]);
	}
	return 0;
}

int gp_run(const char *script, size_t len, unsigned timeout_s, char **out, size_t *outlen,
	   char *err, size_t errlen)
{
	unsigned limit = timeout_s ? timeout_s : GP_TIMEOUT_S;
	double deadline = gp_now() + limit;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	bool sig_saved = false;
	int pidfd = -1, rc = GP_ERR, status = 0;
	pid_t pid = -1;
	struct gp_io *io = calloc(1, sizeof(*io));

	*out = NULL;
	*outlen = 0;
	if (!io) {
		snprintf(err, errlen, "gnuplot: out of memory");
		return GP_ERR;
	}
	io->in = io->out = io->err = io->st = -1;
	io->script = script;
	io->len = len;
	if (!gp_available()) {
		snprintf(err, errlen, "gnuplot is not on PATH; it draws the charts "
			 "(Debian: apt-get install gnuplot-nox), or use --script to get the script");
		rc = GP_NOT_FOUND;
		goto out;
	}
	/* A gnuplot that exits early must not kill us through the script pipe. */
	sigemptyset(&ign.sa_mask);
	sig_saved = sigaction(SIGPIPE, &ign, &old) == 0;
	pid = gp_spawn(io, err, errlen);
	if (pid < 0)
		goto out;
#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	if (gp_pump(io, deadline, err, errlen))
		goto out;
	gp_close(&io->in);
	gp_close(&io->out);
	gp_close(&io->err);

	int killed = gp_wait(pid, pidfd, deadline, &status);
	pid = -1;
	if (killed < 0) {
		snprintf(err, errlen, "gnuplot: waitpid failed: %s", strerror(errno));
		goto out;
	}
	if (io->stlen == sizeof(io->exec_errno)) {
		snprintf(err, errlen, "gnuplot: cannot execute '%s': %s", GP_PROGRAM,
			 strerror(io->exec_errno));
		rc = io->exec_errno == ENOENT ? GP_NOT_FOUND : GP_ERR;
		goto out;
	}
	if (killed == 1) {
		snprintf(err, errlen, "gnuplot: no result after %u s; killed", limit);
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char how[64];
		if (WIFSIGNALED(status))
			snprintf(how, sizeof(how), "killed by signal %d", WTERMSIG(status));
		else
			snprintf(how, sizeof(how), "exit status %d", WEXITSTATUS(status));
		snprintf(err, errlen, "gnuplot failed (%s):\n%s", how, gp_said(io->ebuf, io->elen));
		goto out;
	}
	if (io->too_big) {
		snprintf(err, errlen, "gnuplot: its output exceeds %u MiB", GP_MAX_OUTPUT >> 20);
		goto out;
	}
	if (io->blen == 0) {
		snprintf(err, errlen, "gnuplot wrote no image:\n%s", gp_said(io->ebuf, io->elen));
		goto out;
	}
	io->buf[io->blen] = 0;
	*out = io->buf;
	*outlen = io->blen;
	io->buf = NULL;
	rc = 0;
out:
	if (pid > 0)
		gp_wait(pid, pidfd, gp_now(), &status);   /* kills and reaps */
	if (sig_saved)
		sigaction(SIGPIPE, &old, NULL);
	gp_close(&pidfd);
	gp_close(&io->in);
	gp_close(&io->out);
	gp_close(&io->err);
	gp_close(&io->st);
	free(io->buf);
	free(io);
	return rc;
}

int gp_render_file(const char *script, size_t len, int dirfd, const char *path,
		   const struct atom_set *inputs, char *err, size_t errlen)
{
	struct atom_file out;
	char *img = NULL;
	size_t n = 0;
	/* the target judged before gnuplot runs: a refusal costs nothing */
	int rc = atom_begin_at(&out, dirfd, path, inputs, err, errlen);
	if (rc)
		return rc == ATOM_REFUSED ? GP_REFUSED : GP_ERR;
	rc = gp_run(script, len, 0, &img, &n, err, errlen);
	if (rc) {
		atom_abort(&out);
		return rc;
	}
	if (fwrite(img, 1, n, out.f) != n) {
		snprintf(err, errlen, "write '%s' failed: %s", path, strerror(errno ? errno : EIO));
		atom_abort(&out);
		rc = GP_ERR;
	} else {
		rc = atom_commit(&out, err, errlen);
		rc = rc == ATOM_REFUSED ? GP_REFUSED : rc ? GP_ERR : 0;
	}
	free(img);
	return rc;
}

int gp_render_svg(const char *script, char **svg, size_t *len, char *err, size_t errlen)
{
	char *doc = NULL;
	size_t n = 0;
	int rc = gp_run(script, strlen(script), 0, &doc, &n, err, errlen);
	*svg = NULL;
	*len = 0;
	if (rc)
		return rc;
	if (plot_svg_inline(doc, &n)) {
		snprintf(err, errlen, "gnuplot wrote no SVG document (a script for the svg terminal?)");
		free(doc);
		return GP_ERR;
	}
	*svg = doc;
	*len = n;
	return 0;
}

int gp_report_svg(const struct rep_report *r, size_t t, char **svg, size_t *len, char *err,
		  size_t errlen)
{
	char *script = NULL;
	size_t slen = 0;
	*svg = NULL;
	*len = 0;
	if (!gp_available()) {
		snprintf(err, errlen, "gnuplot is not on PATH; it draws the charts "
			 "(Debian: apt-get install gnuplot-nox)");
		return GP_NOT_FOUND;
	}
	if (plot_report_script(r, t, false, PLOT_SVG, &script, &slen, err, errlen))
		return GP_ERR;
	int rc = gp_render_svg(script, svg, len, err, errlen);
	free(script);
	return rc;
}
