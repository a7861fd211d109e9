// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostileblast - send hostile torus frames out of one port as fast as a
 * packet socket can: a mix of wrong versions, unknown types, hop limit
 * 0, truncated headers, inner IP lengths that lie, VLAN tags, frames for
 * another host's MAC, addresses outside the fabric, plain garbage, and a
 * share of valid data frames (to be forwarded or delivered).  Every
 * frame is drawn from a seeded PRNG, so a run can be repeated.
 * tests/vm/hostile_flood.py runs it into a node of a rack, and into a
 * plain veth pair as the line-rate baseline.
 *
 *   hostileblast -i IFNAME [-t SECONDS] [-s SEED] [-b BATCH] [-v VALID%]
 *                [-d DIMS] [-S SRC] [-D VICTIM]
 *
 * AF_PACKET raw socket with PACKET_QDISC_BYPASS, sendmmsg() batches.
 * Prints one JSON object: frames sent, rate, and frames sent per kind.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/torus.h>

#define HB_MAX_BATCH	256
#define HB_FRAME_MAX	1514	/* within a 1500-byte port MTU */
#define HB_PAYLOAD_MAX	200
#define HB_TYPE_UNKNOWN	99
#define HB_VLAN_HLEN	4
#define HB_IP4_HLEN	20
#define HB_IP6_HLEN	40
#define HB_HOP_LIMIT	8

/* what a frame is; the victim's counter that must take it in brackets */
enum hb_kind {
	HB_VALID,		/* forwarded or delivered */
	HB_VERSION,		/* version */
	HB_CTRL_VERSION,	/* a control frame of another version: version */
	HB_TYPE,		/* an unknown frame type: malformed */
	HB_FLAGS,		/* unknown flags: malformed */
	HB_TRUNCATED,		/* shorter than the torus header: malformed */
	HB_PROTO,		/* a payload neither IPv4 nor IPv6: proto */
	HB_BAD_DST,		/* destination outside the fabric: bad_addr */
	HB_BAD_VIA,		/* via point outside the fabric: bad_addr */
	HB_HOP_LIMIT_0,		/* hop_limit */
	HB_IP_LYING_LENGTH,	/* to the victim, IPv4 lengths lie: delivered */
	HB_IP6_LYING_LENGTH,	/* to the victim, IPv6 length lies: delivered */
	HB_VLAN,		/* 802.1Q-tagged: vlan */
	HB_OTHER_HOST,		/* unicast to another MAC: other_host */
	HB_RANDOM,		/* random bytes after the ethertype: any */
	HB_NKINDS
};

static const char *const hb_kind_names[HB_NKINDS] = {
	[HB_VALID] = "valid",
	[HB_VERSION] = "version",
	[HB_CTRL_VERSION] = "ctrl_version",
	[HB_TYPE] = "type",
	[HB_FLAGS] = "flags",
	[HB_TRUNCATED] = "truncated",
	[HB_PROTO] = "proto",
	[HB_BAD_DST] = "bad_dst",
	[HB_BAD_VIA] = "bad_via",
	[HB_HOP_LIMIT_0] = "hop_limit_0",
	[HB_IP_LYING_LENGTH] = "ip_lying_length",
	[HB_IP6_LYING_LENGTH] = "ip6_lying_length",
	[HB_VLAN] = "vlan",
	[HB_OTHER_HOST] = "other_host",
	[HB_RANDOM] = "random",
};

struct hb_opts {
	const char *ifname;
	double seconds;
	uint64_t seed;
	unsigned int batch;
	unsigned int valid_pct;
	unsigned int ndims;
	uint8_t dims[TORUS_MAX_AXES];
	uint8_t src[TORUS_MAX_AXES];
	uint8_t victim[TORUS_MAX_AXES];
};

struct hb_gen {
	const struct hb_opts *o;
	uint64_t state;
	uint8_t mac[ETH_ALEN];	/* the sending port's */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hostileblast -i IFNAME [-t SECONDS] [-s SEED] [-b BATCH] [-v VALID%%]\n"
		"                    [-d DIMS] [-S SRC] [-D VICTIM]\n"
		"\n"
		"Send hostile torus frames out of IFNAME (a packet socket with\n"
		"PACKET_QDISC_BYPASS, BATCH frames per sendmmsg(), default 64) for\n"
		"SECONDS (default 5).  Each frame is drawn from a PRNG seeded with\n"
		"SEED (default 1): VALID%% (default 20) are valid data frames to a\n"
		"random node, the rest are spread over the hostile kinds.  DIMS\n"
		"(default 3,3) are the fabric's extents, SRC (default 0,0) the\n"
		"sender's coordinates, VICTIM (default 1,0) the node across the\n"
		"cable.  Prints one JSON object: sent, failed, seconds, fps and\n"
		"the frames sent per kind.\n");
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

static int parse_ulong(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return errno || end == s || *end || *out < min || *out > max ? -1 : 0;
}

/* "1,2,3" into @c; the number of axes, or -1 */
static int parse_coord(const char *s, unsigned int max, uint8_t *c)
{
	unsigned int n = 0;
	unsigned long v;
	char *end;

	for (;;) {
		errno = 0;
		v = strtoul(s, &end, 10);
		if (errno || end == s || v > max || n == TORUS_MAX_AXES)
			return -1;
		c[n++] = (uint8_t)v;
		if (!*end)
			return (int)n;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
}

/* splitmix64: small, fast, and the same stream for the same seed */
static uint64_t hb_rand(struct hb_gen *g)
{
	uint64_t z = (g->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int hb_below(struct hb_gen *g, unsigned int n)
{
	return (unsigned int)(hb_rand(g) % n);
}

static void hb_bytes(struct hb_gen *g, uint8_t *p, size_t n)
{
	uint64_t r = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!(i & 7))
			r = hb_rand(g);
		p[i] = (uint8_t)r;
		r >>= 8;
	}
}

/* a node of the fabric, at random */
static void hb_node(struct hb_gen *g, uint8_t *c)
{
	unsigned int a;

	memset(c, 0, TORUS_MAX_AXES);
	for (a = 0; a < g->o->ndims; a++)
		c[a] = (uint8_t)hb_below(g, g->o->dims[a]);
}

static uint16_t hb_ip_csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The address plan: 10.x.y.z for up to three axes. */
static void hb_addr4(const uint8_t *c, uint8_t *a)
{
	a[0] = TORUS_IPV4_PREFIX >> 24;
	a[1] = c[0];
	a[2] = c[1];
	a[3] = c[2];
}

/* fd74:6f72:7573::/64, one coordinate byte per axis after it */
static void hb_addr6(const uint8_t *c, unsigned int ndims, uint8_t *a)
{
	static const uint8_t prefix[8] = {
		0xfd, 0x74, 0x6f, 0x72, 0x75, 0x73, 0, 0
	};

	memset(a, 0, 16);
	memcpy(a, prefix, sizeof(prefix));
	memcpy(a + 8, c, ndims);
}

/* A UDP datagram in IPv4 from @src to @dst; with @lie, the total length
 * and header length do not match what is there.  Returns its length.
 */
static size_t hb_ip4(struct hb_gen *g, uint8_t *p, const uint8_t *src,
		     const uint8_t *dst, int lie)
{
	size_t body = 8 + hb_below(g, 56);	/* UDP header + payload */
	size_t len = HB_IP4_HLEN + body;
	uint16_t total = (uint16_t)len;
	uint8_t ihl = 5;

	if (lie) {
		switch (hb_below(g, 3)) {
		case 0:		/* longer than the frame */
			total = (uint16_t)(len + 1 + hb_below(g, 2000));
			break;
		case 1:		/* shorter than its own header */
			total = (uint16_t)hb_below(g, HB_IP4_HLEN);
			break;
		default:	/* a header length past the datagram */
			ihl = hb_below(g, 2) ? 15 : 1;
			break;
		}
	}
	p[0] = (uint8_t)(0x40 | ihl);
	p[1] = 0;
	p[2] = (uint8_t)(total >> 8);
	p[3] = (uint8_t)total;
	memset(p + 4, 0, 4);		/* id, fragment */
	p[8] = 64;			/* TTL */
	p[9] = 17;			/* UDP */
	memset(p + 10, 0, 2);		/* checksum, below */
	hb_addr4(src, p + 12);
	hb_addr4(dst, p + 16);
	if (!lie) {
		uint16_t csum = hb_ip_csum(p, HB_IP4_HLEN);

		p[10] = (uint8_t)(csum >> 8);
		p[11] = (uint8_t)csum;
	}
	/* UDP: to the discard port, checksum 0 (none) */
	p[20] = 0x9c;
	p[21] = 0x40;
	p[22] = 0;
	p[23] = 9;
	p[24] = (uint8_t)(body >> 8);
	p[25] = (uint8_t)body;
	memset(p + 26, 0, 2);
	hb_bytes(g, p + 28, body - 8);
	return len;
}

/* An IPv6 datagram whose payload length is longer than what follows. */
static size_t hb_ip6_lying(struct hb_gen *g, uint8_t *p, const uint8_t *src,
			   const uint8_t *dst)
{
	size_t body = hb_below(g, 64);
	uint16_t plen = (uint16_t)(body + 1 + hb_below(g, 3000));

	memset(p, 0, HB_IP6_HLEN);
	p[0] = 0x60;
	p[4] = (uint8_t)(plen >> 8);
	p[5] = (uint8_t)plen;
	p[6] = 17;
	p[7] = 64;
	hb_addr6(src, g->o->ndims, p + 8);
	hb_addr6(dst, g->o->ndims, p + 24);
	hb_bytes(g, p + HB_IP6_HLEN, body);
	return HB_IP6_HLEN + body;
}

static void hb_hdr(uint8_t *p, uint8_t version, uint8_t type, uint8_t hop,
		   uint8_t flags, uint16_t proto, const uint8_t *dst,
		   const uint8_t *src, const uint8_t *via)
{
	struct torus_hdr h = {
		.version = version,
		.type = type,
		.hop_limit = hop,
		.flags = flags,
		.proto = htons(proto),
	};

	memcpy(h.dst, dst, TORUS_MAX_AXES);
	memcpy(h.src, src, TORUS_MAX_AXES);
	if (via)
		memcpy(h.via, via, TORUS_MAX_AXES);
	memcpy(p, &h, TORUS_HDR_LEN);
}

static enum hb_kind hb_pick(struct hb_gen *g)
{
	if (hb_below(g, 100) < g->o->valid_pct)
		return HB_VALID;
	return (enum hb_kind)(1 + hb_below(g, HB_NKINDS - 1));
}

/* One frame of @kind into @f; returns its length. */
static size_t hb_frame(struct hb_gen *g, enum hb_kind kind, uint8_t *f)
{
	const struct hb_opts *o = g->o;
	uint8_t dst[TORUS_MAX_AXES], out[TORUS_MAX_AXES] = { 0 };
	uint8_t *h = f + ETH_HLEN, *ip = h + TORUS_HDR_LEN;
	size_t len = 0;

	memset(f, 0xff, ETH_ALEN);	/* broadcast, as on an Ethernet port */
	memcpy(f + ETH_ALEN, g->mac, ETH_ALEN);
	f[2 * ETH_ALEN] = ETH_P_TORUS >> 8;
	f[2 * ETH_ALEN + 1] = ETH_P_TORUS & 0xff;
	hb_node(g, dst);
	/* one axis beyond its extent: outside the fabric */
	out[0] = (uint8_t)(o->dims[0] + hb_below(g, 256 - o->dims[0]));

	switch (kind) {
	case HB_VALID:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT, 0,
		       ETH_P_IP, dst, o->src, NULL);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_VERSION:
		hb_hdr(h, (uint8_t)(TORUS_HDR_VERSION + 1 + hb_below(g, 254)),
		       TORUS_T_DATA, HB_HOP_LIMIT, 0, ETH_P_IP, dst, o->src,
		       NULL);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_CTRL_VERSION:
		hb_hdr(h, hb_below(g, 2) ? 0 : TORUS_HDR_VERSION + 1,
		       TORUS_T_CTRL, 1, 0, 0, dst, o->src, NULL);
		len = hb_below(g, HB_PAYLOAD_MAX);
		hb_bytes(g, ip, len);
		break;
	case HB_TYPE:
		hb_hdr(h, TORUS_HDR_VERSION,
		       hb_below(g, 2) ? 0 : HB_TYPE_UNKNOWN + hb_below(g, 100),
		       HB_HOP_LIMIT, 0, ETH_P_IP, dst, o->src, NULL);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_FLAGS:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT,
		       (uint8_t)(TORUS_F_VIA << (1 + hb_below(g, 7))),
		       ETH_P_IP, dst, o->src, NULL);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_TRUNCATED:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT, 0,
		       ETH_P_IP, dst, o->src, NULL);
		return ETH_HLEN + hb_below(g, TORUS_HDR_LEN);
	case HB_PROTO:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT, 0,
		       hb_below(g, 2) ? ETH_P_ARP : ETH_P_TORUS, dst, o->src,
		       NULL);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_BAD_DST:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT, 0,
		       ETH_P_IP, out, o->src, NULL);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_BAD_VIA:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT,
		       TORUS_F_VIA, ETH_P_IP, dst, o->src, out);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_HOP_LIMIT_0:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, 0, 0, ETH_P_IP, dst,
		       o->src, NULL);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_IP_LYING_LENGTH:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT, 0,
		       ETH_P_IP, o->victim, o->src, NULL);
		len = hb_ip4(g, ip, o->src, o->victim, 1);
		break;
	case HB_IP6_LYING_LENGTH:
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT, 0,
		       ETH_P_IPV6, o->victim, o->src, NULL);
		len = hb_ip6_lying(g, ip, o->src, o->victim);
		break;
	case HB_VLAN:
		/* the tag goes between the MACs and the torus ethertype */
		f[2 * ETH_ALEN] = ETH_P_8021Q >> 8;
		f[2 * ETH_ALEN + 1] = ETH_P_8021Q & 0xff;
		f[ETH_HLEN] = 0;
		f[ETH_HLEN + 1] = (uint8_t)(1 + hb_below(g, 4094));
		f[ETH_HLEN + 2] = ETH_P_TORUS >> 8;
		f[ETH_HLEN + 3] = ETH_P_TORUS & 0xff;
		h += HB_VLAN_HLEN;
		ip += HB_VLAN_HLEN;
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT, 0,
		       ETH_P_IP, dst, o->src, NULL);
		len = HB_VLAN_HLEN + hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_OTHER_HOST:
		/* a locally administered unicast address nobody here has */
		hb_bytes(g, f, ETH_ALEN);
		f[0] = (uint8_t)((f[0] & 0xfc) | 0x02);
		hb_hdr(h, TORUS_HDR_VERSION, TORUS_T_DATA, HB_HOP_LIMIT, 0,
		       ETH_P_IP, dst, o->src, NULL);
		len = hb_ip4(g, ip, o->src, dst, 0);
		break;
	case HB_RANDOM:
	default:
		len = hb_below(g, HB_PAYLOAD_MAX);
		hb_bytes(g, h, len);
		/* a valid control header would go to the daemon's sockets,
		 * uncounted by the data path; keep the flood countable
		 */
		if (len >= 2 && h[0] == TORUS_HDR_VERSION &&
		    h[1] == TORUS_T_CTRL)
			h[1] = HB_TYPE_UNKNOWN;
		return ETH_HLEN + len;
	}
	return ETH_HLEN + TORUS_HDR_LEN + len;
}

static int hb_socket(const char *ifname, uint8_t *mac)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct ifreq ifr = { 0 };
	int fd, one = 1;

	if (strlen(ifname) >= IFNAMSIZ) {
		fprintf(stderr, "hostileblast: %s: name too long\n", ifname);
		return -1;
	}
	/* protocol 0: this socket sends only, it receives nothing */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror("hostileblast: socket");
		return -1;
	}
	strcpy(ifr.ifr_name, ifname);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex || ioctl(fd, SIOCGIFHWADDR, &ifr) ||
	    bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "hostileblast: %s: %s\n", ifname,
			strerror(errno));
		close(fd);
		return -1;
	}
	memcpy(mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	/* straight to the driver, as a NIC's line rate is measured */
	if (setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)))
		perror("hostileblast: PACKET_QDISC_BYPASS");
	return fd;
}

static int blast(const struct hb_opts *o)
{
	static uint8_t frames[HB_MAX_BATCH][HB_FRAME_MAX];
	struct iovec iov[HB_MAX_BATCH];
	struct mmsghdr msgs[HB_MAX_BATCH];
	enum hb_kind kinds[HB_MAX_BATCH];
	unsigned long long sent = 0, failed = 0, per_kind[HB_NKINDS] = { 0 };
	struct hb_gen g = { .o = o, .state = o->seed };
	double start, end, t;
	unsigned int i, k;
	int fd, n;

	fd = hb_socket(o->ifname, g.mac);
	if (fd < 0)
		return 1;
	memset(msgs, 0, sizeof(msgs));
	for (i = 0; i < o->batch; i++) {
		iov[i].iov_base = frames[i];
		msgs[i].msg_hdr.msg_iov = &iov[i];
		msgs[i].msg_hdr.msg_iovlen = 1;
	}
	start = now();
	end = start + o->seconds;
	do {
		for (i = 0; i < o->batch; i++) {
			kinds[i] = hb_pick(&g);
			iov[i].iov_len = hb_frame(&g, kinds[i], frames[i]);
		}
		n = sendmmsg(fd, msgs, o->batch, 0);
		if (n > 0) {
			sent += (unsigned int)n;
			for (i = 0; i < (unsigned int)n; i++)
				per_kind[kinds[i]]++;
		} else if (errno == ENOBUFS || errno == EAGAIN ||
			   errno == EINTR || errno == ENETDOWN) {
			/* a full queue or a cut cable: the port's doing */
			failed++;
		} else {
			perror("hostileblast: sendmmsg");
			close(fd);
			return 1;
		}
		t = now();
	} while (t < end);
	close(fd);
	printf("{\"sent\": %llu, \"failed_calls\": %llu, \"seconds\": %.6f, "
	       "\"fps\": %.1f, \"batch\": %u, \"seed\": %llu, \"kinds\": {",
	       sent, failed, t - start, sent / (t - start), o->batch,
	       (unsigned long long)o->seed);
	for (k = 0; k < HB_NKINDS; k++)
		printf("%s\"%s\": %llu", k ? ", " : "", hb_kind_names[k],
		       per_kind[k]);
	printf("}}\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hb_opts o = {
		.seconds = 5, .seed = 1, .batch = 64, .valid_pct = 20,
		.ndims = 2, .dims = { 3, 3 }, .victim = { 1, 0 },
	};
	int c, nsrc = 2, nvictim = 2, n;
	unsigned long v;

	while ((c = getopt_long(argc, argv, "i:t:s:b:v:d:S:D:h", longopts,
				NULL)) != -1) {
		int bad = 0;

		switch (c) {
		case 'i':
			o.ifname = optarg;
			break;
		case 't':
			bad = parse_double(optarg, 0.001, &o.seconds);
			break;
		case 's':
			bad = parse_ulong(optarg, 0, ~0UL, &v);
			o.seed = v;
			break;
		case 'b':
			bad = parse_ulong(optarg, 1, HB_MAX_BATCH, &v);
			o.batch = (unsigned int)v;
			break;
		case 'v':
			bad = parse_ulong(optarg, 0, 100, &v);
			o.valid_pct = (unsigned int)v;
			break;
		case 'd':
			n = parse_coord(optarg, 255, o.dims);
			bad = n < 1 || n > TORUS_IPV4_MAX_AXES;
			for (v = 0; !bad && v < (unsigned long)n; v++)
				bad = !o.dims[v];
			o.ndims = bad ? 0 : (unsigned int)n;
			break;
		case 'S':
			nsrc = parse_coord(optarg, 255, o.src);
			break;
		case 'D':
			nvictim = parse_coord(optarg, 255, o.victim);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "hostileblast: bad value for -%c: %s\n",
				c, optarg);
			return 2;
		}
	}
	if (!o.ifname || optind != argc || nsrc != (int)o.ndims ||
	    nvictim != (int)o.ndims) {
		usage(stderr);
		return 2;
	}
	for (v = 0; v < o.ndims; v++) {
		if (o.src[v] >= o.dims[v] || o.victim[v] >= o.dims[v]) {
			fprintf(stderr, "hostileblast: -S/-D outside -d\n");
			return 2;
		}
	}
	return blast(&o);
}
