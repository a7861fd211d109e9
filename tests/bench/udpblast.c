// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * udpblast - send small UDP datagrams as fast as one socket can, or count
 * them at the receiver over a fixed window.  make bench uses it for the
 * packets-per-second figure, where iperf3 -u spends its time on its own
 * bookkeeping and cannot saturate a forwarding path under TCG.
 *
 *   udpblast recv [-p PORT] [-w WINDOW] [-W WAIT] [-i IDLE]
 *   udpblast send [-p PORT] [-l LEN] [-t SECONDS] [-b BATCH] ADDRESS
 *
 * recv counts datagrams for WINDOW seconds starting at the first one
 * (received pps = count / WINDOW), then keeps counting until the socket
 * has been quiet for IDLE seconds (total, for the loss against what the
 * sender sent).  Both print one JSON object on stdout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define UDPBLAST_MAX_BATCH	256
#define UDPBLAST_MAX_LEN	1472
#define UDPBLAST_RCVBUF		(8 << 20)
#define UDPBLAST_POLL_MS	100

struct udpblast_opts {
	const char *port;
	const char *addr;
	double seconds;		/* send: how long to blast */
	double window;		/* recv: counting window */
	double wait;		/* recv: longest wait for the first datagram */
	double idle;		/* recv: quiet time that ends the run */
	unsigned int len;
	unsigned int batch;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: udpblast recv [-p PORT] [-w WINDOW] [-W WAIT] [-i IDLE]\n"
		"       udpblast send [-p PORT] [-l LEN] [-t SECONDS] [-b BATCH] ADDRESS\n"
		"\n"
		"recv: count UDP datagrams on PORT for WINDOW seconds (default 3)\n"
		"      from the first one (waiting up to WAIT seconds, default 30),\n"
		"      then until IDLE seconds (default 1) pass without one.\n"
		"send: send LEN-byte payloads (default 64) to ADDRESS:PORT for\n"
		"      SECONDS (default 5), BATCH (default 64) per sendmmsg().\n"
		"Default PORT 5300.  Each prints one JSON object.\n");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int parse_double(const char *s, double min, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return errno || end == s || *end || *out < min ? -1 : 0;
}

static int parse_uint(const char *s, unsigned int min, unsigned int max,
		      unsigned int *out)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* A UDP socket bound (recv) or connected (send) to the first address. */
static int udp_socket(const char *addr, const char *port, int passive)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_DGRAM,
		.ai_flags = passive ? AI_PASSIVE : 0,
	};
	struct addrinfo *res, *ai;
	int fd = -1, err;

	err = getaddrinfo(addr, port, &hints, &res);
	if (err) {
		fprintf(stderr, "udpblast: %s port %s: %s\n",
			addr ? addr : "*", port, gai_strerror(err));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (passive ? !bind(fd, ai->ai_addr, ai->ai_addrlen) :
			      !connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		close(fd);
		fd = -1;
	}
	if (fd < 0)
		fprintf(stderr, "udpblast: %s port %s: %s\n",
			addr ? addr : "*", port, strerror(errno));
	freeaddrinfo(res);
	return fd;
}

static int blast(const struct udpblast_opts *o)
{
	static char payload[UDPBLAST_MAX_LEN];
	struct mmsghdr msgs[UDPBLAST_MAX_BATCH];
	struct iovec iov = { payload, o->len };
	unsigned long long sent = 0, failed = 0;
	double start, end, t;
	unsigned int i;
	int fd, n;

	fd = udp_socket(o->addr, o->port, 0);
	if (fd < 0)
		return 1;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < o->batch; i++) {
		msgs[i].msg_hdr.msg_iov = &iov;
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	start = now();
	end = start + o->seconds;
	do {
		n = sendmmsg(fd, msgs, o->batch, 0);
		if (n > 0) {
			sent += n;
		} else if (errno == ENOBUFS || errno == ECONNREFUSED ||
			   errno == EAGAIN || errno == EINTR) {
			/* a full queue or an ICMP error: the path's doing */
			failed++;
		} else {
			perror("udpblast: sendmmsg");
			close(fd);
			return 1;
		}
		t = now();
	} while (t < end);
	close(fd);
	printf("{\"sent\": %llu, \"seconds\": %.6f, \"pps\": %.1f, "
	       "\"failed_calls\": %llu, \"len\": %u}\n",
	       sent, t - start, sent / (t - start), failed, o->len);
	return 0;
}

static int count(const struct udpblast_opts *o)
{
	static char bufs[UDPBLAST_MAX_BATCH][UDPBLAST_MAX_LEN];
	struct iovec iov[UDPBLAST_MAX_BATCH];
	struct mmsghdr msgs[UDPBLAST_MAX_BATCH];
	struct timeval tv = { 0, UDPBLAST_POLL_MS * 1000 };
	unsigned long long in_window = 0, total = 0;
	double first = 0, last = 0, t, started;
	int fd, n, rcvbuf = UDPBLAST_RCVBUF;
	unsigned int i;

	fd = udp_socket(NULL, o->port, 1);
	if (fd < 0)
		return 1;
	/* a slow reader must not be what loses datagrams */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < UDPBLAST_MAX_BATCH; i++) {
		iov[i].iov_base = bufs[i];
		iov[i].iov_len = sizeof(bufs[i]);
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	/* ready: the caller waits for this line before starting the sender */
	fprintf(stderr, "udpblast: listening on port %s\n", o->port);
	started = now();
	for (;;) {
		n = recvmmsg(fd, msgs, UDPBLAST_MAX_BATCH, MSG_WAITFORONE,
			     NULL);
		t = now();
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			perror("udpblast: recvmmsg");
			close(fd);
			return 1;
		}
		if (n > 0) {
			if (!total)
				first = t;
			total += n;
			if (t < first + o->window)
				in_window += n;
			last = t;
		}
		if (!total && t - started > o->wait) {
			fprintf(stderr, "udpblast: nothing received in %.0f s\n",
				o->wait);
			close(fd);
			return 1;
		}
		if (total && t - last > o->idle)
			break;
	}
	close(fd);
	if (last - first < o->window) {
		fprintf(stderr,
			"udpblast: the sender stopped %.2f s into the %.2f s window\n",
			last - first, o->window);
		return 1;
	}
	printf("{\"window_packets\": %llu, \"window_seconds\": %.6f, "
	       "\"pps\": %.1f, \"total_packets\": %llu}\n",
	       in_window, o->window, in_window / o->window, total);
	return 0;
}

int main(int argc, char **argv)
{
	struct udpblast_opts o = {
		.port = "5300", .seconds = 5, .window = 3, .wait = 30,
		.idle = 1, .len = 64, .batch = 64,
	};
	int send_mode, c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "send")) {
		send_mode = 1;
	} else if (!strcmp(argv[1], "recv")) {
		send_mode = 0;
	} else {
		usage(stderr);
		return 2;
	}
	argc--;
	argv++;
	while ((c = getopt(argc, argv, "p:l:t:b:w:W:i:h")) != -1) {
		int bad = 0;

		switch (c) {
		case 'p':
			o.port = optarg;
			break;
		case 'l':
			bad = parse_uint(optarg, 1, UDPBLAST_MAX_LEN, &o.len);
			break;
		case 'b':
			bad = parse_uint(optarg, 1, UDPBLAST_MAX_BATCH,
					 &o.batch);
			break;
		case 't':
			bad = parse_double(optarg, 0.1, &o.seconds);
			break;
		case 'w':
			bad = parse_double(optarg, 0.1, &o.window);
			break;
		case 'W':
			bad = parse_double(optarg, 0.1, &o.wait);
			break;
		case 'i':
			bad = parse_double(optarg, 0.1, &o.idle);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "udpblast: bad value for -%c: %s\n",
				c, optarg);
			return 2;
		}
	}
	if (send_mode) {
		if (optind != argc - 1) {
			usage(stderr);
			return 2;
		}
		o.addr = argv[optind];
		return blast(&o);
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	return count(&o);
}
