// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2-rpcping: how an RPC-over-RDMA server answers, as ping does for
 * hosts.  Connects offering Version 2 (falls back to what the server
 * speaks), prints the negotiated version and transport properties, then
 * times COUNT calls one after another and prints round-trip percentiles.
 *
 *   siw2-rpcping [-v VERS] [-p PORT] [-c COUNT] [-s SIZE] HOST
 *
 * The call is NFS version 3 NULL (any NFS server: the kernel's nfsd on
 * port 20049, the default), or with -s SIZE the echo program's ECHO of
 * SIZE octets (rr-echo-srv), checked on return.  Exit 0 when every call
 * succeeded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rpcrdma_xprt.h"
#include "rr_onc.h"

static uint8_t callbuf[1 << 20], replybuf[1 << 20], wbuf[1 << 20];

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static const char *brs_name(uint32_t b)
{
	return b == RR_BRS_NONE ? "none" : b == RR_BRS_INLINE ? "inline" :
	       b == RR_BRS_GENL ? "general" : "?";
}

/* One call; 0 when its reply is a successful one (and the echo matches). */
static int one(struct rr_xprt *t, size_t size)
{
	struct rr_call c = { .reply = replybuf, .replymax = sizeof(replybuf) };
	struct rr_xdr a, r;
	const uint8_t *d;
	uint32_t n;
	char why[96];

	rr_xdr_init(&a, callbuf, sizeof(callbuf));
	if (!size) {
		rr_rpc_call_hdr(&a, 0, RR_PROG_NFS, 3, 0);
	} else {
		rr_rpc_call_hdr(&a, 0, RR_PROG_ECHO, 1, 1);
		rr_xdr_u32(&a, size);
		memset(callbuf + a.off, 0x5a, size);
		memset(callbuf + a.off + size, 0, (4 - size % 4) % 4);
		rr_xdr_skip(&a, size + (4 - size % 4) % 4);
		if (size > 1024) {	/* a large result goes by Write chunk */
			c.wdata = wbuf;
			c.wlen = size;
		}
	}
	c.msg = callbuf;
	c.msglen = a.off;
	if (rr_xprt_call(t, &c))
		return -1;
	rr_xdr_init(&r, c.reply, c.replylen);
	if (rr_rpc_reply_hdr(&r, t->xid, why, sizeof(why))) {
		snprintf(t->err, sizeof(t->err), "%s", why);
		return -1;
	}
	if (!size)
		return 0;
	if (c.wgot) {
		if (c.wgot != size || wbuf[0] != 0x5a || wbuf[size - 1] != 0x5a)
			return -1;
		return 0;
	}
	d = rr_xdr_get_opaque(&r, &n, size);
	return d && n == size && d[0] == 0x5a && d[n - 1] == 0x5a ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *port = "20049";
	uint32_t want = RR_VERS_2;
	size_t size = 0;
	int count = 100, o, i, bad = 0;
	struct rr_xprt t = { 0 };
	double *rtt, t0, sum = 0;

	while ((o = getopt(argc, argv, "v:p:c:s:")) != -1) {
		switch (o) {
		case 'v': want = atoi(optarg); break;
		case 'p': port = optarg; break;
		case 'c': count = atoi(optarg); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		default: goto usage;
		}
	}
	if (argc - optind != 1 || count < 1 || size > sizeof(wbuf) - 256) {
usage:
		fprintf(stderr, "usage: siw2-rpcping [-v VERS] [-p PORT] [-c COUNT] [-s SIZE] HOST\n");
		return 2;
	}
	if (rr_xprt_connect(&t, argv[optind], port, want, 10000)) {
		fprintf(stderr, "siw2-rpcping: %s:%s: %s\n", argv[optind], port, t.err);
		return 1;
	}
	printf("siw2-rpcping %s:%s: RPC-over-RDMA version %u (offered %u", argv[optind], port,
	       t.vers, want);
	if (t.peer_vers_high)
		printf("; the server speaks %u-%u", t.peer_vers_low, t.peer_vers_high);
	printf("), inline send %u receive %u, credits %u\n", t.send_inline, RR_XPRT_INLINE,
	       t.credits);
	if (t.peer_props)
		printf("  server properties: RBSIZ %u, BRS %s\n", t.peer_rbsiz, brs_name(t.peer_brs));
	else
		printf("  server properties: none (Version 1 has no CONNPROP)\n");
	rtt = calloc(count, sizeof(*rtt));
	if (!rtt)
		return 1;
	for (i = 0; i < count; i++) {
		t0 = now_us();
		if (one(&t, size)) {
			fprintf(stderr, "siw2-rpcping: call %d: %s\n", i + 1, t.err);
			bad++;
			break;
		}
		rtt[i] = now_us() - t0;
		sum += rtt[i];
	}
	if (!bad) {
		qsort(rtt, count, sizeof(*rtt), cmp_double);
		printf("%d calls of %s: round trip us min %.1f p50 %.1f p90 %.1f p99 %.1f max %.1f mean %.1f\n",
		       count, size ? "ECHO" : "NFS NULL",
		       rtt[0], rtt[count / 2], rtt[count * 9 / 10], rtt[count * 99 / 100],
		       rtt[count - 1], sum / count);
		if (size)
			printf("  ECHO of %zu octets each, checked\n", size);
	}
	free(rtt);
	rr_xprt_close(&t);
	return bad ? 1 : 0;
}
