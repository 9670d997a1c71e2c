// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rr-echo-srv: an RPC-over-RDMA server of the echo program (RR_PROG_ECHO
 * version 1: procedure 0 NULL, procedure 1 ECHO returns its opaque
 * argument as a DDP-eligible result, procedure 2 ECHO_VIA_CB has the
 * client echo it first, by a reverse-direction ECHO call on the same
 * connection, and returns what came back), and of NFS version 3 NULL so
 * that siw2-rpcping's default call works against it too.
 *
 *   rr-echo-srv [-p PORT] [-n CONNS] [-V HIGH] [-D] [-r READS] [-w WRITES] [-s SEGS]
 *
 * -V 1 makes a Version 1 only server (ERR_VERS to a Version 2 client);
 * -D makes it close the connection instead (RPCRDMA2-VER-5);
 * -r, -w, -s: the most read segments, write chunks and segments per chunk
 * a header may carry (beyond them: ERR_READ_CHUNKS, ERR_WRITE_CHUNKS,
 * ERR_SEGMENTS).  One line per connection with what it did.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rpcrdma_svc.h"
#include "rpcrdma_xprt.h"
#include "rr_onc.h"

#define ECHO_NULL	0
#define ECHO_ECHO	1
#define ECHO_VIA_CB	2	/* echoed by the client, in the reverse direction */

/* The accepted reply's header with @stat; returns the results' stream. */
static void reply_hdr(struct rr_xdr *o, uint32_t xid, uint32_t stat)
{
	rr_xdr_u32(o, xid);
	rr_xdr_u32(o, RR_RPC_REPLY);
	rr_xdr_u32(o, 0);		/* MSG_ACCEPTED */
	rr_xdr_u32(o, RR_AUTH_NONE);
	rr_xdr_u32(o, 0);
	rr_xdr_u32(o, stat);
}

/*
 * The argument echoed by the client (a reverse-direction ECHO, inline):
 * the result's octets into @o as an opaque, or an RPC error status.
 */
static uint32_t via_callback(struct rr_svc_conn *conn, const uint8_t *d,
			     uint32_t n, struct rr_xdr *o)
{
	static uint8_t cb[RR_XPRT_INLINE], back[RR_XPRT_INLINE];
	struct rr_xdr a, r;
	const uint8_t *e;
	size_t blen;
	uint32_t en;
	char why[96];

	rr_xdr_init(&a, cb, sizeof(cb));
	rr_rpc_call_hdr(&a, 0, RR_PROG_ECHO, 1, ECHO_ECHO);
	rr_xdr_opaque(&a, d, n);
	if (a.bad || rr_svc_callback(conn, cb, a.off, back, sizeof(back), &blen))
		return 5;			/* SYSTEM_ERR */
	rr_xdr_init(&r, back, blen);
	if (rr_rpc_reply_hdr(&r, (uint32_t)cb[0] << 24 | cb[1] << 16 | cb[2] << 8 | cb[3],
			     why, sizeof(why)))
		return 5;
	e = rr_xdr_get_opaque(&r, &en, n);
	if (!e)
		return 5;
	rr_xdr_opaque(o, e, en);
	return 0;
}

static void echo_prog(void *ctx, struct rr_svc_conn *conn, const uint8_t *call,
		      size_t clen, uint8_t *reply, size_t rmax, struct rr_svc_reply *r)
{
	struct rr_xdr in, o;
	uint32_t xid, prog, vers, proc, n, st;
	const uint8_t *d;
	size_t at;

	(void)ctx;
	rr_xdr_init(&in, (void *)call, clen);
	rr_xdr_init(&o, reply, rmax);
	xid = rr_xdr_get_u32(&in);
	rr_xdr_get_u32(&in);			/* CALL */
	rr_xdr_get_u32(&in);			/* rpcvers */
	prog = rr_xdr_get_u32(&in);
	vers = rr_xdr_get_u32(&in);
	proc = rr_xdr_get_u32(&in);
	rr_xdr_get_u32(&in);
	rr_xdr_get_opaque(&in, &n, 400);	/* cred */
	rr_xdr_get_u32(&in);
	rr_xdr_get_opaque(&in, &n, 400);	/* verf */
	if (in.bad) {
		reply_hdr(&o, xid, 4);		/* GARBAGE_ARGS */
	} else if (prog == RR_PROG_NFS && vers == 3 && proc == 0) {
		reply_hdr(&o, xid, 0);
	} else if (prog != RR_PROG_ECHO || vers != 1) {
		reply_hdr(&o, xid, 1);		/* PROG_UNAVAIL */
	} else if (proc == ECHO_NULL) {
		reply_hdr(&o, xid, 0);
	} else if (proc == ECHO_ECHO) {
		d = rr_xdr_get_opaque(&in, &n, RR_SVC_MAX_DATA - 64);
		if (!d) {
			reply_hdr(&o, xid, 4);
		} else {
			reply_hdr(&o, xid, 0);
			r->ddp_off = o.off + 4;
			r->ddp_len = n;
			rr_xdr_opaque(&o, d, n);
		}
	} else if (proc == ECHO_VIA_CB) {
		d = rr_xdr_get_opaque(&in, &n, RR_XPRT_INLINE - 256);
		if (!d) {
			reply_hdr(&o, xid, 4);
		} else {
			reply_hdr(&o, xid, 0);
			at = o.off;
			st = via_callback(conn, d, n, &o);
			if (st) {
				o.off = at - 4;
				rr_xdr_u32(&o, st);
			}
		}
	} else {
		reply_hdr(&o, xid, 3);		/* PROC_UNAVAIL */
	}
	r->len = o.off;
	if (o.bad)
		r->len = r->ddp_len = 0;
}

static void conn_done(const struct rr_svc_stats *st)
{
	printf("connection: version %u, %u calls, %u errors, %u connprops, %u read chunks, %u write chunks, %u reply chunks, %u invalidations, %u callbacks\n",
	       st->vers, st->calls, st->errors, st->connprops, st->read_chunks,
	       st->write_chunks, st->reply_chunks, st->invalidations, st->callbacks);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct rr_limits lim = {
		.vers_low = 1, .vers_high = 2,
		.max_reads = 4, .max_writes = 1, .max_segs = 4,
	};
	const char *port = "20050";
	unsigned int flags = 0;
	int conns = 0, o;

	while ((o = getopt(argc, argv, "p:n:V:Dr:w:s:")) != -1) {
		switch (o) {
		case 'p': port = optarg; break;
		case 'n': conns = atoi(optarg); break;
		case 'V': lim.vers_high = atoi(optarg); break;
		case 'D': flags |= RR_SVC_DROP_V2; break;
		case 'r': lim.max_reads = atoi(optarg); break;
		case 'w': lim.max_writes = atoi(optarg); break;
		case 's': lim.max_segs = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: rr-echo-srv [-p PORT] [-n CONNS] [-V HIGH] [-D] [-r READS] [-w WRITES] [-s SEGS]\n");
			return 2;
		}
	}
	if (rr_svc_serve(port, &lim, flags, echo_prog, NULL, conns, conn_done)) {
		perror("rr-echo-srv: listen");
		return 1;
	}
	return 0;
}
