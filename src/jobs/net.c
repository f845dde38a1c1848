// SPDX-License-Identifier: GPL-2.0-only
/*
 * Network jobs over the loopback interface: tcp_test (a fresh TCP connection
 * and 89 request/echo round trips) and udp_test (99 datagrams to a bound
 * socket).  The only address ever bound, connected to or sent to is
 * 127.0.0.1 (net_addr() below); ports come from the kernel (bind port 0).
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "jobmix/job.h"

#define NET_MAX_MSG   JOB_REAIM_MSG_MAX
#define TCP_MSGS      89      /* re-aim: read_write_close(90): 89 messages */
#define UDP_DGRAMS    99
#define UDP_WAIT_MS   250     /* resend a datagram not seen after this */
#define UDP_MAX_TRIES 40      /* then give up: 10 s without delivery   */
#define UDP_HDR       4       /* sequence number in front of the payload */

/* 127.0.0.1 and port (network order); the one address these jobs use. */
static struct sockaddr_in net_addr(in_port_t port)
{
	struct sockaddr_in sa;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = port;
	return sa;
}

/* re-aim's message sizes, cycling. */
static size_t net_msg_size(int i)
{
	return job_reaim_msg_size((unsigned)i);
}

/* A socket bound to 127.0.0.1 on a kernel-chosen port; *sa gets the address. */
static int net_bound_socket(struct job_ctx *c, int type, struct sockaddr_in *sa)
{
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return job_fail(c, "socket", NULL, errno);
	int one = 1;
	*sa = net_addr(0);
	socklen_t len = sizeof(*sa);
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    getsockname(fd, (struct sockaddr *)sa, &len)) {
		job_fail(c, "bind to 127.0.0.1", NULL, errno);
		close(fd);
		return -1;
	}
	return fd;
}

static int net_nodelay(int fd)
{
	int one = 1;
	return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * tcp_test: listen on 127.0.0.1:0, connect (loopback completes the handshake
 * into the listen backlog, so one thread can then accept), TCP_NODELAY on
 * both ends, then re-aim's 89 messages one way: the accepted (server) end
 * writes, the client reads and checks.  The client closes first, so the
 * TIME_WAIT socket sits on its ephemeral port.
 */
static int net_tcp_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void *state)
{
	(void)k, (void)params, (void)state;
	char cbuf[NET_MAX_MSG];
	struct sockaddr_in sa;
	int cfd = -1, sfd = -1, ret = -1;
	int lfd = net_bound_socket(c, SOCK_STREAM, &sa);
	if (lfd < 0)
		return -1;
	if (listen(lfd, 1)) {
		job_fail(c, "listen", NULL, errno);
		goto out;
	}
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (cfd < 0) {
		job_fail(c, "socket", NULL, errno);
		goto out;
	}
	int one = 1;
	if (setsockopt(cfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) || net_nodelay(cfd)) {
		job_fail(c, "setsockopt", NULL, errno);
		goto out;
	}
	if (connect(cfd, (struct sockaddr *)&sa, sizeof(sa))) {
		job_fail(c, "connect to 127.0.0.1", NULL, errno);
		goto out;
	}
	do
		sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (sfd < 0 && errno == EINTR);
	if (sfd < 0) {
		job_fail(c, "accept", NULL, errno);
		goto out;
	}
	if (net_nodelay(sfd)) {
		job_fail(c, "setsockopt TCP_NODELAY", NULL, errno);
		goto out;
	}
	const int msgs = (int)job_scaled(c, TCP_MSGS);
	for (int i = 0; i < msgs; i++) {
		size_t n = net_msg_size(i);
		const char *src = c->iobuf + (size_t)i * 64;
		if (job_write_all(sfd, src, n) < 0) {
			job_fail(c, "send", "server", errno);
			goto out;
		}
		ssize_t got = job_read_all(cfd, cbuf, n);
		if (got != (ssize_t)n || memcmp(cbuf, src, n)) {
			if (got < 0)
				job_fail(c, "recv", "client", errno);
			else
				job_failf(c, "message %d: client got %zd of %zu bytes or wrong data",
					  i, got, n);
			goto out;
		}
		c->io.wops++, c->io.rops++;
		c->io.wbytes += n, c->io.rbytes += n;
	}
	ret = 0;
out:
	if (cfd >= 0)
		close(cfd);
	if (sfd >= 0)
		close(sfd);
	close(lfd);
	return ret;
}

const struct job_kind job_tcp_test = {
	.name = "tcp_test",
	.family = "net",
	.summary = "new TCP connection over 127.0.0.1, TCP_NODELAY, 89 verified messages one way",
	.doc = "AIM7 tcp_test.  A listener on 127.0.0.1 (port chosen by the kernel), a client "
	       "connection to it, accepted in the same thread, TCP_NODELAY on both ends; then "
	       "re-aim's 89 messages one way: the accepted end sends 1..4096 bytes (re-aim's "
	       "37 sizes, cycling), the client reads and checks them.  All three sockets are closed, the client first, so each job leaves "
	       "one TIME_WAIT socket on a client port (loopback reuses those; at very high job "
	       "rates see net.ipv4.ip_local_port_range and tcp_tw_reuse).  Only 127.0.0.1 is "
	       "ever used, and ports come from the kernel, so users never collide.",
	.run_once = net_tcp_run,
};

/*
 * Wait up to UDP_WAIT_MS for a datagram on fd and receive it into buf.
 * Returns its length, 0 on timeout, -1 with errno set.
 */
static ssize_t net_udp_recv(int fd, char *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n = poll(&pfd, 1, UDP_WAIT_MS);
	if (n <= 0)
		return n < 0 && errno != EINTR ? -1 : 0;
	ssize_t got = recv(fd, buf, len, MSG_DONTWAIT);
	if (got < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (got == 0) /* cannot be a datagram of ours: they carry a header */
		errno = EPROTO;
	return got ? got : -1;
}

/*
 * udp_test: a socket bound to 127.0.0.1:0 receives 99 datagrams sent to it
 * by a second socket; each carries a sequence number and 1..4096 bytes of
 * payload and is checked.  Loopback can drop under heavy load (a full
 * backlog), so a datagram not seen within UDP_WAIT_MS is sent again and
 * late duplicates are recognised by their sequence number and skipped.
 */
static int net_udp_run(struct job_ctx *c, const struct job_kind *k, const void *params,
		       void *state)
{
	(void)k, (void)params, (void)state;
	char msg[UDP_HDR + NET_MAX_MSG], buf[UDP_HDR + NET_MAX_MSG + 1];
	struct sockaddr_in sa;
	int cfd = -1, ret = -1;
	int sfd = net_bound_socket(c, SOCK_DGRAM, &sa);
	if (sfd < 0)
		return -1;
	cfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (cfd < 0) {
		job_fail(c, "socket", NULL, errno);
		goto out;
	}
	const uint32_t dgrams = (uint32_t)job_scaled(c, UDP_DGRAMS);
	for (uint32_t seq = 0; seq < dgrams; seq++) {
		size_t n = net_msg_size((int)seq), len = UDP_HDR + n;
		memcpy(msg, &seq, UDP_HDR);
		memcpy(msg + UDP_HDR, c->iobuf + (size_t)seq * 64, n);
		bool seen = false;
		for (int tries = 0; !seen; tries++) {
			if (tries == UDP_MAX_TRIES) {
				job_failf(c, "datagram %u sent %d times to 127.0.0.1 port %u, never "
					  "received", seq, tries, ntohs(sa.sin_port));
				goto out;
			}
			ssize_t sent = sendto(cfd, msg, len, 0, (struct sockaddr *)&sa, sizeof(sa));
			if (sent < 0 && errno != EINTR && errno != ENOBUFS) {
				job_fail(c, "sendto 127.0.0.1", NULL, errno);
				goto out;
			}
			if (sent >= 0 && (size_t)sent != len) {
				job_failf(c, "datagram %u: sent %zd of %zu bytes", seq, sent, len);
				goto out;
			}
			/* drain until this sequence number arrives or the wait runs out */
			for (;;) {
				ssize_t got = net_udp_recv(sfd, buf, sizeof(buf));
				if (got < 0) {
					job_fail(c, "recv", NULL, errno);
					goto out;
				}
				if (got == 0)
					break;
				uint32_t rseq = seq;
				if (got >= UDP_HDR)
					memcpy(&rseq, buf, UDP_HDR);
				if (rseq < seq)
					continue; /* a late copy of an earlier datagram */
				if (got != (ssize_t)len || memcmp(buf, msg, len)) {
					job_failf(c, "datagram %u: received %zd bytes, expected %zu, "
						  "or wrong data", seq, got, len);
					goto out;
				}
				seen = true;
				break;
			}
		}
	}
	ret = 0;
out:
	if (cfd >= 0)
		close(cfd);
	close(sfd);
	return ret;
}

const struct job_kind job_udp_test = {
	.name = "udp_test",
	.family = "net",
	.summary = "99 verified datagrams of 1..4096 bytes to a socket bound on 127.0.0.1",
	.doc = "AIM7 udp_test.  A socket bound to 127.0.0.1 (port chosen by the kernel) and a "
	       "sender; 99 x (sendto, receive, check).  Each datagram carries a 4-byte sequence "
	       "number and 1..4096 bytes of payload (powers of two, cycling).  Loopback may drop "
	       "a datagram under heavy load: one not received within 250 ms is sent again (late "
	       "duplicates are skipped by sequence number) and the job fails after 40 tries, "
	       "instead of blocking for ever.  Only 127.0.0.1 is ever used.",
	.run_once = net_udp_run,
};
