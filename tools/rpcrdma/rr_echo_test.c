// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rr-echo-test: the library's client against rr-echo-srv.  Echo calls
 * with each way a payload can travel (inline; the Call as a Position-Zero
 * Read chunk; the argument as a Read chunk at its XDR position; the
 * result in a Write chunk; the Reply in a Reply chunk), every byte
 * compared, and each RDMA2_ERROR a requester can draw from a responder
 * (RPCRDMA2-ERR-*), with the connection still serving a call after each.
 * With memory windows (siw2), chunks opened through windows that the
 * Reply's Send with Invalidate closes (RPCRDMA2-INV-*).
 *
 *   rr-echo-test [-v VERS] [-e VERS] [-p PORT] [-R] HOST
 *
 * -R: against rr-echo-srv -r 0 -w 0, the requester's retries only.
 * -v: the version to offer (2); -e: the version the connection must end
 * up with (the server's highest common one; default as -v).  The server
 * must run with its defaults: at most 4 read segments, 1 write chunk, 4
 * segments per chunk.  TAP-like lines, exit 1 if any failed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpcrdma_xprt.h"
#include "rr_onc.h"

static struct rr_xprt t;
static int nok, nfail;
static uint8_t callbuf[RR_XPRT_INLINE * 64];
static uint8_t replybuf[RR_XPRT_INLINE * 64];
static uint8_t wbuf[RR_XPRT_INLINE * 64];

static void result(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		nok++;
		printf("ok %d - %s\n", nok + nfail, name);
		return;
	}
	nfail++;
	printf("not ok %d - %s: ", nok + nfail, name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void pattern(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 131 + seed) ^ (i >> 8));
}

/* The ECHO Call of @n pattern octets; returns where the content starts. */
static size_t echo_args(struct rr_call *c, size_t n, uint32_t seed)
{
	struct rr_xdr a;
	size_t at;

	rr_xdr_init(&a, callbuf, sizeof(callbuf));
	rr_rpc_call_hdr(&a, 0, RR_PROG_ECHO, 1, 1);
	at = a.off + 4;
	rr_xdr_u32(&a, n);
	pattern(callbuf + at, n, seed);
	rr_xdr_skip(&a, n + (4 - n % 4) % 4);
	memset(callbuf + at + n, 0, (4 - n % 4) % 4);
	memset(c, 0, sizeof(*c));
	c->msg = callbuf;
	c->msglen = a.off;
	c->reply = replybuf;
	c->replymax = sizeof(replybuf);
	return at;
}

/* The echoed result: inline in the Reply, or in the Write chunk. */
static bool echo_check(struct rr_call *c, size_t n, uint32_t seed, char *why,
		       size_t wl)
{
	static uint8_t want[sizeof(wbuf)];
	struct rr_xdr r;
	const uint8_t *d;
	uint32_t dl;

	pattern(want, n, seed);
	rr_xdr_init(&r, c->reply, c->replylen);
	if (rr_rpc_reply_hdr(&r, t.xid, why, wl))
		return false;
	if (c->wdata && c->wgot) {
		dl = rr_xdr_get_u32(&r);
		if (r.bad || dl != n || c->wgot != n || memcmp(c->wdata, want, n)) {
			snprintf(why, wl, "write chunk: length %u, %zu written, want %zu", dl,
				 c->wgot, n);
			return false;
		}
		return true;
	}
	d = rr_xdr_get_opaque(&r, &dl, sizeof(wbuf));
	if (!d || dl != n || memcmp(d, want, n)) {
		snprintf(why, wl, "result of %u octets differs (want %zu)", d ? dl : 0, n);
		return false;
	}
	return true;
}

/*
 * expect_echo - one ECHO of @n octets: @how is "inline", "read" (Position-Zero
 * Read chunk), "data" (the argument as a Read chunk), "write" (result to
 * a Write chunk) or "reply" (a Reply chunk); the transport's own account
 * must say the same.
 */
static void expect_echo(const char *name, size_t n, const char *how, const char *call_how,
		 const char *reply_how)
{
	struct rr_call c;
	size_t at = echo_args(&c, n, n);
	char why[256] = "";
	int rv;

	if (!strcmp(how, "read")) {
		c.force_read = true;
	} else if (!strcmp(how, "data")) {
		c.rdpos = at;
		c.rdlen = n;
	} else if (!strcmp(how, "write")) {
		c.wdata = wbuf;
		c.wlen = n;
	} else if (!strcmp(how, "reply")) {
		c.reply_chunk = true;
	}
	rv = rr_xprt_call(&t, &c);
	if (rv) {
		result(false, name, "%s", t.err);
		return;
	}
	if (!echo_check(&c, n, n, why, sizeof(why))) {
		result(false, name, "%s", why);
		return;
	}
	result(!strcmp(c.call_how, call_how) && !strcmp(c.reply_how, reply_how), name,
	       "call went %s (want %s), reply came %s (want %s)", c.call_how, call_how,
	       c.reply_how, reply_how);
}

/*
 * expect_inv - an ECHO whose chunks go through memory windows, asking the
 * server to invalidate one with its Reply; @how as expect_echo().
 */
static void expect_inv(const char *name, size_t n, const char *how)
{
	struct rr_call c;
	char why[256] = "";
	int rv;

	echo_args(&c, n, n + 1);
	c.remote_inv = true;
	if (!strcmp(how, "read")) {
		c.force_read = true;
	} else if (!strcmp(how, "write")) {
		c.wdata = wbuf;
		c.wlen = n;
	} else {
		c.reply_chunk = true;
	}
	rv = rr_xprt_call(&t, &c);
	if (t.vers != RR_VERS_2) {
		/* Version 1 has no rdma_inv_handle: the library says so. */
		result(rv == -EOPNOTSUPP, name, "rv %d (%s), want EOPNOTSUPP", rv, t.err);
		return;
	}
	if (rv) {
		result(false, name, "%s", t.err);
		return;
	}
	if (!echo_check(&c, n, n + 1, why, sizeof(why))) {
		result(false, name, "%s", why);
		return;
	}
	result(c.invalidated, name, "the Reply came without Send with Invalidate");
}

/* The echo program in the reverse direction: the server's ECHO calls. */
static void client_echo(void *ctx, const uint8_t *call, size_t clen,
			uint8_t *reply, size_t rmax, size_t *rlen)
{
	struct rr_xdr in, o;
	uint32_t xid, n, i;
	const uint8_t *d;

	(void)ctx;
	rr_xdr_init(&in, (void *)call, clen);
	xid = rr_xdr_get_u32(&in);
	for (i = 0; i < 5; i++)
		rr_xdr_get_u32(&in);		/* CALL .. proc */
	for (i = 0; i < 2; i++) {
		rr_xdr_get_u32(&in);
		rr_xdr_get_opaque(&in, &n, 400);	/* cred, verf */
	}
	d = rr_xdr_get_opaque(&in, &n, RR_XPRT_INLINE);
	*rlen = 0;
	if (!d)
		return;
	rr_xdr_init(&o, reply, rmax);
	rr_xdr_u32(&o, xid);
	rr_xdr_u32(&o, RR_RPC_REPLY);
	rr_xdr_u32(&o, 0);
	rr_xdr_u32(&o, RR_AUTH_NONE);
	rr_xdr_u32(&o, 0);
	rr_xdr_u32(&o, 0);
	rr_xdr_opaque(&o, d, n);
	if (!o.bad)
		*rlen = o.off;
}

/*
 * ECHO_VIA_CB: the server has this client echo the argument by a
 * reverse-direction Call first (RPCRDMA2-BIDIR-1); Version 1 here has no
 * reverse direction, and the server answers SYSTEM_ERR.
 */
static void expect_callback(const char *name, size_t n)
{
	uint32_t before = t.callbacks;
	struct rr_call c;
	char why[256] = "";
	int rv;

	echo_args(&c, n, 9);
	callbuf[23] = 2;			/* proc: ECHO_VIA_CB */
	rv = rr_xprt_call(&t, &c);
	if (rv) {
		result(false, name, "%s", t.err);
		return;
	}
	if (t.vers == RR_VERS_1) {
		struct rr_xdr r;

		rr_xdr_init(&r, c.reply, c.replylen);
		result(rr_rpc_reply_hdr(&r, t.xid, why, sizeof(why)) &&
		       strstr(why, "accept_stat 5") && t.callbacks == before, name,
		       "Version 1: %s (want accept_stat 5, no callback)", why);
		return;
	}
	if (!echo_check(&c, n, 9, why, sizeof(why))) {
		result(false, name, "%s", why);
		return;
	}
	result(t.callbacks == before + 1, name, "%u reverse-direction Calls answered, want 1",
	       t.callbacks - before);
}

static bool still_serves(char *why, size_t wl)
{
	struct rr_call c;

	echo_args(&c, 8, 1);
	if (rr_xprt_call(&t, &c)) {
		snprintf(why, wl, "no echo after it: %s", t.err);
		return false;
	}
	return echo_check(&c, 8, 1, why, wl);
}

/* Words of a raw header; v2 adds the flags word after rdma_htype. */
static size_t raw_start(struct rr_xdr *x, uint8_t *buf, size_t room, uint32_t vers,
			uint32_t htype)
{
	rr_xdr_init(x, buf, room);
	rr_xdr_u32(x, ++t.xid);
	rr_xdr_u32(x, vers);
	rr_xdr_u32(x, RR_XPRT_RECVS);
	rr_xdr_u32(x, htype);
	if (vers == RR_VERS_2)
		rr_xdr_u32(x, 0);
	return x->off;
}

static void seg(struct rr_xdr *x, uint32_t len)
{
	rr_xdr_u32(x, 0x12345678);	/* never used: the header fails first */
	rr_xdr_u32(x, len);
	rr_xdr_u64(x, 0x1000);
}

/*
 * raw_expect - send a crafted header, expect @err (and @a when not ~0);
 * a Version 1 connection gets ERR_CHUNK for everything but ERR_VERS.
 */
static void raw_expect(const char *name, struct rr_xdr *x, uint32_t err, uint32_t a)
{
	struct rr_hdr h;
	char why[256];
	int rv;

	if (t.vers == RR_VERS_1 && err != RR_ERR_VERS) {
		err = RR_ERR_BAD_XDR;
		a = ~0u;
	}
	rv = rr_xprt_raw(&t, x->p, x->off, &h);
	if (rv) {
		result(false, name, "%s", t.err);
		return;
	}
	/* The error copies the XID, has type 4 (RPCRDMA2-ERR-2). */
	if (h.htype != RR_ERROR || h.err != err || (a != ~0u && h.err_a != a) ||
	    h.xid != t.xid) {
		result(false, name, "answer: type %u err %s (%u, %u) xid 0x%x; want %s",
		       h.htype, rr_err_name(h.err), h.err_a, h.err_b, h.xid,
		       rr_err_name(err));
		return;
	}
	if (h.vers == RR_VERS_2 && !(h.flags & RR_F_RESPONSE)) {
		result(false, name, "RDMA2_ERROR without F_RESPONSE (RPCRDMA2-HDR-6)");
		return;
	}
	if (!still_serves(why, sizeof(why))) {
		result(false, name, "%s", why);
		return;
	}
	result(true, name, "");
}

static void errors(void)
{
	uint8_t b[1024];
	struct rr_xdr x;
	struct rr_call c;
	char why[256];
	int i, rv;

	/* ERR_VERS: an unknown version, answered with the server's range. */
	raw_start(&x, b, sizeof(b), 3, RR_MSG);
	rr_xdr_u32(&x, 0);
	raw_expect("ERR_VERS for rdma_vers 3, words 0-3 read in any version (RPCRDMA2-VER-4, RPCRDMA2-HDR-1, RPCRDMA2-HDR-7)", &x, RR_ERR_VERS, 1);

	/* ERR_INVAL_HTYPE: a header type nobody defined. */
	raw_start(&x, b, sizeof(b), t.vers, 7);
	rr_xdr_u32(&x, 0);
	raw_expect("ERR_INVAL_HTYPE for type 7 (RPCRDMA2-ERR-3, RPCRDMA2-EXT-1)", &x, RR_ERR_INVAL_HTYPE, ~0u);

	/* ERR_BAD_XDR: a read list that runs past the message. */
	raw_start(&x, b, sizeof(b), t.vers, RR_MSG);
	if (t.vers == RR_VERS_2)
		rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 1);
	rr_xdr_u32(&x, 0);
	raw_expect("ERR_BAD_XDR for a truncated read list (RPCRDMA2-ERR-4)", &x,
		  RR_ERR_BAD_XDR, ~0u);

	/* ERR_READ_CHUNKS: five read chunks (positions), four allowed. */
	raw_start(&x, b, sizeof(b), t.vers, RR_MSG);
	if (t.vers == RR_VERS_2)
		rr_xdr_u32(&x, 0);
	for (i = 0; i < 5; i++) {
		rr_xdr_u32(&x, 1);
		rr_xdr_u32(&x, 4 * (i + 1));
		seg(&x, 64);
	}
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);	/* a word of "RPC message" */
	raw_expect("ERR_READ_CHUNKS for 5 read chunks (RPCRDMA2-ERR-5)", &x,
		  RR_ERR_READ_CHUNKS, 4);

	/* ERR_SEGMENTS: one read chunk of five segments, four allowed. */
	raw_start(&x, b, sizeof(b), t.vers, RR_NOMSG);
	if (t.vers == RR_VERS_2)
		rr_xdr_u32(&x, 0);
	for (i = 0; i < 5; i++) {
		rr_xdr_u32(&x, 1);
		rr_xdr_u32(&x, 0);
		seg(&x, 64);
	}
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	raw_expect("ERR_SEGMENTS for a 5-segment read chunk (RPCRDMA2-ERR-7)", &x,
		  RR_ERR_SEGMENTS, 4);

	/* ERR_WRITE_CHUNKS: two write chunks, one allowed. */
	raw_start(&x, b, sizeof(b), t.vers, RR_MSG);
	if (t.vers == RR_VERS_2)
		rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	for (i = 0; i < 2; i++) {
		rr_xdr_u32(&x, 1);
		rr_xdr_u32(&x, 1);
		seg(&x, 64);
	}
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);	/* a word of "RPC message" */
	raw_expect("ERR_WRITE_CHUNKS for 2 write chunks (RPCRDMA2-ERR-6)", &x,
		  RR_ERR_WRITE_CHUNKS, 1);

	/* ERR_SEGMENTS: a reply chunk of five segments, four allowed. */
	raw_start(&x, b, sizeof(b), t.vers, RR_MSG);
	if (t.vers == RR_VERS_2)
		rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 1);
	rr_xdr_u32(&x, 5);
	for (i = 0; i < 5; i++)
		seg(&x, 64);
	rr_xdr_u32(&x, 0);
	raw_expect("ERR_SEGMENTS for a 5-segment reply chunk (RPCRDMA2-ERR-7)", &x,
		  RR_ERR_SEGMENTS, 4);

	/* ERR_SYSTEM: a Call larger than the server takes (never read). */
	raw_start(&x, b, sizeof(b), t.vers, RR_NOMSG);
	if (t.vers == RR_VERS_2)
		rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 1);
	rr_xdr_u32(&x, 0);
	seg(&x, 64u << 20);
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	rr_xdr_u32(&x, 0);
	raw_expect("ERR_SYSTEM for a 64 MiB Call (RPCRDMA2-ERR-10)", &x, RR_ERR_SYSTEM, ~0u);

	/* A Call marked as a Reply (F_RESPONSE set): ERR_BAD_XDR. */
	if (t.vers == RR_VERS_2) {
		raw_start(&x, b, sizeof(b), RR_VERS_2, RR_MSG);
		memset(b + 16, 0, 4);
		b[19] = RR_F_RESPONSE;
		for (i = 0; i < 4; i++)
			rr_xdr_u32(&x, 0);	/* inv_handle, three empty lists */
		rr_rpc_call_hdr(&x, t.xid, RR_PROG_ECHO, 1, 0);
		raw_expect("ERR_BAD_XDR for a Call with F_RESPONSE set (RPCRDMA2-HDR-3)", &x,
			   RR_ERR_BAD_XDR, ~0u);
	}

	/* The other version within the connection: ERR_VERS (VER-6). */
	raw_start(&x, b, sizeof(b), t.vers == RR_VERS_2 ? RR_VERS_1 : RR_VERS_2, RR_MSG);
	for (i = 0; i < (t.vers == RR_VERS_2 ? 3 : 4); i++)
		rr_xdr_u32(&x, 0);
	rr_rpc_call_hdr(&x, t.xid, RR_PROG_ECHO, 1, 0);
	raw_expect("ERR_VERS for a change of version on the connection (RPCRDMA2-VER-6)", &x,
		   RR_ERR_VERS, 1);

	/* ERR_WRITE_RESOURCE, then the same XID with room (ERR-8). */
	echo_args(&c, 8192, 8192);
	c.wdata = wbuf;
	c.wlen = 4096;
	rv = rr_xprt_call(&t, &c);
	if (rv != -EREMOTEIO || c.err != (t.vers == RR_VERS_2 ? RR_ERR_WRITE_RESOURCE : RR_ERR_BAD_XDR) ||
	    (t.vers == RR_VERS_2 && (c.err_a != 1 || c.err_b != 8192))) {
		result(false, "ERR_WRITE_RESOURCE for a 4 KiB Write chunk, 8 KiB result (RPCRDMA2-ERR-8)",
		       "rv %d err %s (%u, %u): %s", rv, rr_err_name(c.err), c.err_a, c.err_b, t.err);
	} else {
		echo_args(&c, 8192, 8192);
		c.wdata = wbuf;
		c.wlen = 8192;
		c.retry = true;
		rv = rr_xprt_call(&t, &c);
		result(!rv && echo_check(&c, 8192, 8192, why, sizeof(why)),
		       "ERR_WRITE_RESOURCE for a 4 KiB Write chunk, then the same XID with 8 KiB (RPCRDMA2-ERR-8)",
		       "retry: %s", rv ? t.err : why);
	}

	/* ERR_REPLY_RESOURCE: a 16 KiB Reply, no chunk for it (ERR-9). */
	echo_args(&c, 16384, 3);
	rv = rr_xprt_call(&t, &c);
	if (rv != -EREMOTEIO || c.err != (t.vers == RR_VERS_2 ? RR_ERR_REPLY_RESOURCE : RR_ERR_BAD_XDR) ||
	    (t.vers == RR_VERS_2 && c.err_a < 16384)) {
		result(false, "ERR_REPLY_RESOURCE for a 16 KiB Reply without a chunk (RPCRDMA2-ERR-9)",
		       "rv %d err %s (%u): %s", rv, rr_err_name(c.err), c.err_a, t.err);
	} else {
		echo_args(&c, 16384, 3);
		c.reply_chunk = true;
		c.retry = true;
		rv = rr_xprt_call(&t, &c);
		result(!rv && echo_check(&c, 16384, 3, why, sizeof(why)),
		       "ERR_REPLY_RESOURCE, then the same XID with a Reply chunk (RPCRDMA2-ERR-9)",
		       "retry: %s", rv ? t.err : why);
	}
}

/*
 * Against a server that takes no Read and no Write chunk (rr-echo-srv -r 0
 * -w 0): the requester's retries (RPCRDMA2-ERR-5, RPCRDMA2-ERR-6).
 */
static void retries(void)
{
	struct rr_call c;
	char why[256] = "";
	size_t at;
	int rv;

	/* An inline Call (the server takes no Read chunk either). */
	echo_args(&c, 3000, 5);
	c.wdata = wbuf;
	c.wlen = 3000;
	rv = rr_xprt_call(&t, &c);
	result(!rv && c.retried && !strcmp(c.retried, "reply chunk") &&
	       echo_check(&c, 3000, 5, why, sizeof(why)),
	       "ERR_REPLY_RESOURCE from a server without Write chunks, then the same XID with a Reply chunk (RPCRDMA2-ERR-6)",
	       "rv %d retried %s reply %s: %s %s", rv, c.retried ? c.retried : "-",
	       c.reply_how ? c.reply_how : "-", t.err, why);
	at = echo_args(&c, 3000, 6);
	c.rdpos = at;
	c.rdlen = 3000;
	rv = rr_xprt_call(&t, &c);
	result(rv == -EREMOTEIO && c.err == RR_ERR_READ_CHUNKS && c.retried &&
	       !strcmp(c.retried, "position zero"),
	       "ERR_READ_CHUNKS, the Call again as a Position-Zero Read chunk, refused again: the RPC fails (RPCRDMA2-ERR-5)",
	       "rv %d err %s retried %s", rv, rr_err_name(c.err), c.retried ? c.retried : "-");
	expect_echo("ECHO 100 octets inline after the refusals", 100, "inline", "inline",
		    "inline");
}

int main(int argc, char **argv)
{
	const char *port = "20050";
	uint32_t want = RR_VERS_2, expect = 0;
	bool retry_mode = false;
	int o;

	while ((o = getopt(argc, argv, "v:e:p:R")) != -1) {
		switch (o) {
		case 'R': retry_mode = true; break;
		case 'v': want = atoi(optarg); break;
		case 'e': expect = atoi(optarg); break;
		case 'p': port = optarg; break;
		default: goto usage;
		}
	}
	if (argc - optind != 1) {
usage:
		fprintf(stderr, "usage: rr-echo-test [-v VERS] [-e VERS] [-p PORT] [-R] HOST\n");
		return 2;
	}
	if (!expect)
		expect = want;
	t.cb = client_echo;
	if (rr_xprt_connect(&t, argv[optind], port, want, 20000)) {
		printf("not ok 1 - connect: %s\n", t.err);
		return 1;
	}
	/*
	 * RPCRDMA2-VER-1, VER-2: one CONNPROP of rdma_vers 2 first; VER-4:
	 * ERR_VERS, then Version 1; RPCRDMA2-VER-5: the same when the server
	 * drops the connection instead.
	 */
	result(t.vers == expect, "version negotiated after one first message (RPCRDMA2-VER-1, RPCRDMA2-VER-2, RPCRDMA2-VER-4, RPCRDMA2-VER-5)",
	       "version %u, want %u", t.vers, expect);
	printf("# version %u (offered %u", t.vers, want);
	if (t.first_lost)
		printf("; first message unanswered");
	else if (t.peer_vers_high)
		printf("; ERR_VERS %u-%u", t.peer_vers_low, t.peer_vers_high);
	if (t.peer_props)
		printf("; peer RBSIZ %u BRS %u", t.peer_rbsiz, t.peer_brs);
	printf("), inline send %u\n", t.send_inline);
	if (t.vers == RR_VERS_2)
		result(t.peer_props && t.peer_rbsiz == RR_XPRT_INLINE && t.peer_brs == RR_BRS_NONE,
		       "CONNPROP answered: RBSIZ 4096, BRS none, F_RESPONSE (RPCRDMA2-CONNPROP-1, RPCRDMA2-PROP-6, RPCRDMA2-HDR-5)",
		       "props %d RBSIZ %u BRS %u", t.peer_props, t.peer_rbsiz, t.peer_brs);

	if (retry_mode) {
		retries();
		rr_xprt_close(&t);
		printf("%d passed, %d failed\n", nok, nfail);
		return nfail ? 1 : 0;
	}
	expect_echo("ECHO 100 octets inline (RPCRDMA2-VER-3: 4096-octet inline)", 100, "inline", "inline", "inline");
	expect_echo("ECHO 64 octets, the Call as a Position-Zero Read chunk (RPCRDMA2-TYPE-1: RDMA2_NOMSG)", 64, "read",
	     "read chunk", "inline");
	expect_echo("ECHO 3000 octets, the argument as a Read chunk at its position", 3000,
	     "data", "data read chunk", "inline");
	expect_echo("ECHO 200000 octets: Read chunk in, Write chunk out", 200000, "write",
	     "read chunk", "inline");
	expect_echo("ECHO 65536 octets: Read chunk in, Reply chunk out", 65536, "reply",
	     "read chunk", "reply chunk");
	expect_echo("ECHO 1 octet inline", 1, "inline", "inline", "inline");
	/* One Call at a time: never more out than the grant (at least 1). */
	result(t.credits == RR_XPRT_RECVS, "the server grants 16 credits, its posted Receives (RPCRDMA2-CRED-1)",
	       "grant %u", t.credits);
	expect_callback("ECHO_VIA_CB 1000 octets: the server's reverse-direction Call answered inline (RPCRDMA2-BIDIR-1)",
			1000);
	if (t.mw_ok) {
		expect_inv("ECHO 200000 octets, the Write chunk's window invalidated by the Reply (RPCRDMA2-INV-1, RPCRDMA2-INV-2, RPCRDMA2-INV-3)",
			   200000, "write");
		expect_inv("ECHO 65536 octets, the Reply chunk's window invalidated by the Reply (RPCRDMA2-INV-1, RPCRDMA2-INV-2)",
			   65536, "reply");
		expect_inv("ECHO 64 octets, the Read chunk's window invalidated by the Reply (RPCRDMA2-INV-2)",
			   64, "read");
		expect_echo("ECHO 100 octets inline after the windows", 100, "inline",
			    "inline", "inline");
	}
	errors();
	/*
	 * Last, as it ends the connection: this library's client never sends
	 * RDMA2_ERROR (it encodes CONNPROP, MSG and NOMSG only); a server here
	 * takes one as a broken requester and closes (RPCRDMA2-ERR-1).
	 */
	{
		uint8_t b[64];
		struct rr_xdr x;
		struct rr_hdr h;

		int rv;

		/* Well formed: Version 2's carries F_RESPONSE (HDR-6). */
		raw_start(&x, b, sizeof(b), t.vers, RR_ERROR);
		if (t.vers == RR_VERS_2)
			b[19] = RR_F_RESPONSE;
		rr_xdr_u32(&x, RR_ERR_BAD_XDR);		/* ERR_CHUNK in Version 1 */
		memset(&h, 0, sizeof(h));
		rv = rr_xprt_raw(&t, x.p, x.off, &h);
		result(rv != 0, "an RDMA2_ERROR from the requester ends the connection (RPCRDMA2-ERR-1)",
		       "the server answered it: type %u err %s", h.htype, rr_err_name(h.err));
	}
	rr_xprt_close(&t);
	printf("%d passed, %d failed\n", nok, nfail);
	return nfail ? 1 : 0;
}
