// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RPC-over-RDMA server transport (rpcrdma_svc.h).  Requirement IDs:
 * Documentation/conformance.md, RPCRDMA2-*.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "rpcrdma_svc.h"
#include "rpcrdma_xprt.h"

#define SVC_ARENA	(3 * (size_t)RR_SVC_MAX_DATA)

struct rr_svc_conn {
	struct rdma_cm_id *id;
	struct ibv_mr *recv_mr, *send_mr, *arena_mr;
	uint8_t *recv_buf, *send_buf, *arena;
	const struct rr_limits *lim;
	unsigned int flags;
	uint32_t vers;			/* 0 until the first valid header */
	uint32_t send_inline;		/* the client's receive size */
	uint32_t peer_brs;		/* the client's BRS (PROP-7 default) */
	uint32_t cb_xid;		/* the last reverse-direction XID */
	struct rr_svc_stats st;
};

static int svc_post_recv(struct rr_svc_conn *c, unsigned int i)
{
	return rdma_post_recv(c->id, (void *)(uintptr_t)i,
			      c->recv_buf + (size_t)i * RR_XPRT_INLINE,
			      RR_XPRT_INLINE, c->recv_mr);
}

/* Wait for one completion on @cq; -1 on error or a closed connection. */
static int svc_poll(struct ibv_cq *cq, struct ibv_wc *wc)
{
	struct timespec nap = { 0, 20000 };
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)))
		nanosleep(&nap, NULL);
	return n < 0 || wc->status != IBV_WC_SUCCESS ? -1 : 0;
}

/*
 * Send the first @len octets of the send buffer, by Send with Invalidate
 * of @inv when it is not 0, and wait for the (signaled) completion.
 */
static int svc_send(struct rr_svc_conn *c, size_t len, uint32_t inv)
{
	struct ibv_sge sge = { (uintptr_t)c->send_buf, len, c->send_mr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
				  .opcode = inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED,
				  .invalidate_rkey = inv }, *bad;
	struct ibv_wc wc;

	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -1;
	return svc_poll(c->id->send_cq, &wc);
}

static int svc_send_inv(struct rr_svc_conn *c, struct rr_hdr *h, const void *msg,
			size_t mlen, uint32_t inv)
{
	size_t len;

	if (rr_encode(h, c->send_buf, RR_XPRT_INLINE, &len) ||
	    len + mlen > RR_XPRT_INLINE)
		return -1;
	if (mlen)
		memcpy(c->send_buf + len, msg, mlen);
	return svc_send(c, len + mlen, inv);
}

static int svc_send_hdr(struct rr_svc_conn *c, struct rr_hdr *h, const void *msg,
			size_t mlen)
{
	return svc_send_inv(c, h, msg, mlen, 0);
}

/*
 * The handle a Call asks this side to invalidate with its Reply: only a
 * Version 2 rdma_inv_handle that is one of the Call's own handles
 * (RPCRDMA2-INV-1, -2); anything else is ignored and the Reply goes by
 * plain Send.
 */
static uint32_t svc_inv_handle(const struct rr_hdr *h)
{
	uint32_t i;

	if (h->vers != RR_VERS_2 || !h->inv_handle)
		return 0;
	for (i = 0; i < h->nreads; i++)
		if (h->reads[i].seg.handle == h->inv_handle)
			return h->inv_handle;
	for (i = 0; i < h->nsegs; i++)
		if (h->segs[i].handle == h->inv_handle)
			return h->inv_handle;
	return 0;
}

/* An RDMA2_ERROR (or Version 1 ERR_*) for a header that failed. */
static int svc_error(struct rr_svc_conn *c, const struct rr_hdr *failed,
		     const struct rr_status *st)
{
	struct rr_hdr e;

	c->st.errors++;
	rr_set_error(&e, failed, RR_XPRT_RECVS, st, c->lim);
	return svc_send_hdr(c, &e, NULL, 0);
}

static int svc_error2(struct rr_svc_conn *c, const struct rr_hdr *h, uint32_t err,
		      uint32_t a, uint32_t b)
{
	struct rr_hdr e;

	c->st.errors++;
	rr_hdr_init(&e, h->vers, h->xid, RR_XPRT_RECVS, RR_ERROR);
	e.flags = h->vers == RR_VERS_2 ? RR_F_RESPONSE : 0;	/* HDR-6 */
	e.err = err;
	e.err_a = a;
	e.err_b = b;
	if (h->vers == RR_VERS_1 && err != RR_ERR_VERS) {
		e.err = RR_ERR_BAD_XDR;		/* v1's ERR_CHUNK */
		e.err_a = e.err_b = 0;
	}
	return svc_send_hdr(c, &e, NULL, 0);
}

/* Answer a CONNPROP with this side's properties (RPCRDMA2-CONNPROP-*). */
static int svc_connprop(struct rr_svc_conn *c, const struct rr_hdr *h)
{
	const struct rr_prop *p = rr_find_prop(h, RR_PROP_RBSIZ);
	uint32_t rbsiz = p ? p->value : RR_RBSIZ_DEFAULT;
	struct rr_hdr r;

	c->st.connprops++;
	p = rr_find_prop(h, RR_PROP_BRS);
	c->peer_brs = p ? p->value : RR_BRS_INLINE;
	/* The client's receives hold RBSIZ (PROP-6); never below v1's 1024. */
	if (rbsiz < RR_V1_INLINE)
		rbsiz = RR_V1_INLINE;
	c->send_inline = rbsiz < RR_XPRT_INLINE ? rbsiz : RR_XPRT_INLINE;
	rr_hdr_init(&r, RR_VERS_2, h->xid, RR_XPRT_RECVS, RR_CONNPROP);
	r.flags = RR_F_RESPONSE;
	rr_add_prop(&r, RR_PROP_RBSIZ, RR_XPRT_INLINE);
	rr_add_prop(&r, RR_PROP_BRS, RR_BRS_NONE);
	return svc_send_hdr(c, &r, NULL, 0);
}

/* RDMA Read every segment of read chunk @k's position into @dst. */
static int svc_pull(struct rr_svc_conn *c, const struct rr_hdr *h, uint32_t pos,
		    uint8_t *dst, size_t room, size_t *got)
{
	struct ibv_wc wc;
	uint32_t i;

	*got = 0;
	for (i = 0; i < h->nreads; i++) {
		const struct rr_seg *s = &h->reads[i].seg;

		if (h->reads[i].position != pos)
			continue;
		if (s->length > room - *got)
			return -EMSGSIZE;
		if (s->length &&
		    (rdma_post_read(c->id, NULL, dst + *got, s->length, c->arena_mr,
				    IBV_SEND_SIGNALED, s->offset, s->handle) ||
		     svc_poll(c->id->send_cq, &wc)))
			return -EIO;
		*got += s->length;
	}
	return 0;
}

/*
 * svc_call_msg - the Call message: inline, or pulled from a Position-Zero
 * Read chunk (RDMA_NOMSG), with each other Read chunk's content pulled
 * and put back at its XDR position (then zero padding to a word): RFC
 * 8166 3.4.5, positions in ascending order.
 * Return: 0 with *len set, -EMSGSIZE (too large), -EINVAL (bad
 * positions), -EIO (an RDMA Read failed).
 */
static int svc_call_msg(struct rr_svc_conn *c, const struct rr_hdr *h,
			const uint8_t *in, size_t ilen, uint8_t *msg, size_t *len)
{
	uint8_t *base = c->arena + 2 * (size_t)RR_SVC_MAX_DATA;
	size_t out = 0, from = 0, got, pad;
	uint32_t i, pos, last = 0;
	int rv;

	if (h->htype == RR_NOMSG) {
		if (!h->nreads || h->reads[0].position)
			return -EINVAL;
		/* The whole Call, pulled into the spare area first. */
		rv = svc_pull(c, h, 0, base, RR_SVC_MAX_DATA, &ilen);
		if (rv)
			return rv;
		in = base;
		c->st.read_chunks++;
	}
	if (ilen > RR_SVC_MAX_DATA)
		return -EMSGSIZE;
	for (i = 0; i < h->nreads; i++) {
		pos = h->reads[i].position;
		if (!pos || (i && pos == last))
			continue;	/* Position Zero, or a chunk's later segment */
		if (pos < out || pos % 4 || pos - out > ilen - from)
			return -EINVAL;
		memcpy(msg + out, in + from, pos - out);
		from += pos - out;
		out = pos;
		if (out + (ilen - from) + 3 >= RR_SVC_MAX_DATA)
			return -EMSGSIZE;
		rv = svc_pull(c, h, pos, msg + out,
			      RR_SVC_MAX_DATA - out - (ilen - from) - 3, &got);
		if (rv)
			return rv;
		pad = (4 - got % 4) % 4;
		memset(msg + out + got, 0, pad);
		out += got + pad;
		last = pos;
		c->st.read_chunks++;
	}
	memcpy(msg + out, in + from, ilen - from);
	*len = out + ilen - from;
	return 0;
}

/* RDMA Write @len octets of @src into chunk @ch, segment by segment. */
static int svc_push(struct rr_svc_conn *c, struct rr_hdr *h, struct rr_chunk *ch,
		    const uint8_t *src, size_t len)
{
	struct ibv_wc wc;
	uint32_t i;
	size_t n;

	for (i = 0; i < ch->nsegs; i++) {
		struct rr_seg *s = &h->segs[ch->first + i];

		n = len < s->length ? len : s->length;
		if (n && (rdma_post_write(c->id, NULL, (void *)src, n, c->arena_mr,
					  IBV_SEND_SIGNALED, s->offset, s->handle) ||
			  svc_poll(c->id->send_cq, &wc)))
			return -EIO;
		s->length = n;		/* the Reply says what was written */
		src += n;
		len -= n;
	}
	return 0;
}

static size_t svc_chunk_room(const struct rr_hdr *h, const struct rr_chunk *ch)
{
	size_t n = 0;
	uint32_t i;

	for (i = 0; i < ch->nsegs; i++)
		n += h->segs[ch->first + i].length;
	return n;
}

/*
 * svc_reply - send the program's Reply the way the Call allows: a
 * DDP-eligible item into the first Write chunk, the rest inline, or all
 * of it into the Reply chunk; ERR_WRITE_RESOURCE / ERR_REPLY_RESOURCE
 * when the Call gave too little room (RPCRDMA2-ERR-8, -9).
 */
static int svc_reply(struct rr_svc_conn *c, struct rr_hdr *call, uint8_t *msg,
		     const struct rr_svc_reply *r)
{
	struct rr_hdr h;
	size_t len = r->len, hl, pad, room;
	uint32_t inv;

	rr_hdr_init(&h, call->vers, call->xid, RR_XPRT_RECVS, RR_MSG);
	h.flags = call->vers == RR_VERS_2 ? RR_F_RESPONSE : 0;	/* HDR-3 */
	if (call->nwrites && r->ddp_len) {
		struct rr_chunk *w = &call->writes[0];

		room = svc_chunk_room(call, w);
		if (room < r->ddp_len)
			return svc_error2(c, call, RR_ERR_WRITE_RESOURCE, 1, r->ddp_len);
		if (svc_push(c, call, w, msg + r->ddp_off, r->ddp_len))
			return -1;
		c->st.write_chunks++;
		rr_add_write(&h, &call->segs[w->first], w->nsegs);
		/* The content and its padding leave the inline stream. */
		pad = (4 - r->ddp_len % 4) % 4;
		memmove(msg + r->ddp_off, msg + r->ddp_off + r->ddp_len + pad,
			len - r->ddp_off - r->ddp_len - pad);
		len -= r->ddp_len + pad;
	}
	if (rr_encode(&h, c->send_buf, RR_XPRT_INLINE, &hl))
		return -1;
	inv = svc_inv_handle(call);
	c->st.invalidations += inv != 0;
	if (hl + len <= c->send_inline)
		return svc_send_inv(c, &h, msg, len, inv);
	if (!call->has_reply || svc_chunk_room(call, &call->reply) < len) {
		c->st.invalidations -= inv != 0;
		return svc_error2(c, call, RR_ERR_REPLY_RESOURCE, len, 0);
	}
	if (svc_push(c, call, &call->reply, msg, len))
		return -1;
	c->st.reply_chunks++;
	h.htype = RR_NOMSG;
	rr_set_reply(&h, &call->segs[call->reply.first], call->reply.nsegs);
	return svc_send_inv(c, &h, NULL, 0, inv);
}

/**
 * rr_svc_callback - a reverse-direction call to the client (RFC 8167; in
 * Version 2 every client offers at least inline ones unless its BRS says
 * otherwise, RPCRDMA2-BIDIR-1, PROP-7)
 * @conn: the connection whose Call the program is serving
 * @msg: the whole RPC Call (its xid is set here)
 * @len: its length, inline only (the client's RBSIZ)
 * @reply: where the client's Reply message goes
 * @rmax: its size
 * @rlen: out: the Reply's length
 *
 * The client is waiting for the Reply to its own Call, so the next
 * message it sends is this one's Reply.
 *
 * Return: 0, -EOPNOTSUPP (Version 1, or the client's BRS is NONE),
 * -EMSGSIZE, -EPROTO (not the Reply expected), -EIO.
 */
int rr_svc_callback(struct rr_svc_conn *c, void *msg, size_t len,
		    void *reply, size_t rmax, size_t *rlen)
{
	uint8_t *m = msg, *buf;
	struct rr_status st;
	struct rr_hdr h;
	struct ibv_wc wc;
	uint32_t xid;
	size_t hl;

	if (c->vers != RR_VERS_2 || c->peer_brs == RR_BRS_NONE)
		return -EOPNOTSUPP;
	xid = 0x80000000u | ++c->cb_xid;	/* apart from the client's XIDs */
	m[0] = xid >> 24;
	m[1] = xid >> 16;
	m[2] = xid >> 8;
	m[3] = xid;
	rr_hdr_init(&h, RR_VERS_2, xid, RR_XPRT_RECVS, RR_MSG);	/* a Call: flags 0 */
	if (rr_encode(&h, c->send_buf, RR_XPRT_INLINE, &hl) ||
	    hl + len > c->send_inline)
		return -EMSGSIZE;
	if (svc_send_hdr(c, &h, msg, len))
		return -EIO;
	if (svc_poll(c->id->recv_cq, &wc))
		return -EIO;
	buf = c->recv_buf + (size_t)wc.wr_id * RR_XPRT_INLINE;
	if (rr_decode(buf, wc.byte_len, c->lim, &h, &st) || h.vers != RR_VERS_2 ||
	    h.htype != RR_MSG || !(h.flags & RR_F_RESPONSE) || h.xid != xid ||
	    wc.byte_len - h.payload > rmax) {
		svc_post_recv(c, (unsigned int)wc.wr_id);
		return -EPROTO;
	}
	*rlen = wc.byte_len - h.payload;
	memcpy(reply, buf + h.payload, *rlen);
	c->st.callbacks++;
	return svc_post_recv(c, (unsigned int)wc.wr_id) ? -EIO : 0;
}

/* One received message; -1 ends the connection. */
static int svc_one(struct rr_svc_conn *c, const uint8_t *buf, uint32_t blen,
		   rr_svc_fn fn, void *ctx)
{
	uint8_t *cmsg = c->arena, *rmsg = c->arena + RR_SVC_MAX_DATA;
	struct rr_svc_reply r = { 0 };
	struct rr_status st;
	struct rr_hdr h;
	size_t clen;
	int rv;

	if ((c->flags & RR_SVC_DROP_V2) && !c->vers && blen >= 8 && buf[7] == RR_VERS_2)
		return -1;			/* as some Version 1 servers do */
	if (rr_decode(buf, blen, c->lim, &h, &st)) {
		/* Taking no Write chunk at all: REPLY_RESOURCE (ERR-6). */
		if (st.err == RR_ERR_WRITE_CHUNKS && !c->lim->max_writes &&
		    h.vers == RR_VERS_2)
			return svc_error2(c, &h, RR_ERR_REPLY_RESOURCE, 0, 0);
		return svc_error(c, &h, &st);	/* ERR-3, -4, -5, -6, -7 */
	}
	if (h.htype == RR_ERROR)
		return -1;			/* a requester never sends one: ERR-1 */
	if (c->vers && h.vers != c->vers) {	/* VER-6 */
		st.err = RR_ERR_VERS;
		return svc_error(c, &h, &st);
	}
	c->vers = h.vers;
	c->st.vers = h.vers;
	if (h.htype == RR_CONNPROP)
		return svc_connprop(c, &h);
	if (h.vers == RR_VERS_2 && (h.flags & RR_F_RESPONSE))
		return svc_error2(c, &h, RR_ERR_BAD_XDR, 0, 0);	/* a Reply to a server */
	rv = svc_call_msg(c, &h, buf + h.payload, blen - h.payload, cmsg, &clen);
	if (rv == -EIO)
		return -1;
	if (rv == -EMSGSIZE)		/* ERR-10: permanent for this XID */
		return svc_error2(c, &h, RR_ERR_SYSTEM, 0, 0);
	if (rv)
		return svc_error2(c, &h, RR_ERR_BAD_XDR, 0, 0);
	c->st.calls++;
	fn(ctx, c, cmsg, clen, rmsg, RR_SVC_MAX_DATA, &r);
	return svc_reply(c, &h, rmsg, &r);
}

static int svc_conn_setup(struct rr_svc_conn *c)
{
	unsigned int i;

	c->recv_buf = calloc(RR_XPRT_RECVS, RR_XPRT_INLINE);
	c->send_buf = calloc(1, RR_XPRT_INLINE);
	c->arena = calloc(1, SVC_ARENA);
	if (!c->recv_buf || !c->send_buf || !c->arena)
		return -1;
	c->recv_mr = rdma_reg_msgs(c->id, c->recv_buf,
				   (size_t)RR_XPRT_RECVS * RR_XPRT_INLINE);
	c->send_mr = rdma_reg_msgs(c->id, c->send_buf, RR_XPRT_INLINE);
	/* RDMA Read sinks need remote write access on iWARP. */
	c->arena_mr = ibv_reg_mr(c->id->pd, c->arena, SVC_ARENA,
				 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->recv_mr || !c->send_mr || !c->arena_mr)
		return -1;
	for (i = 0; i < RR_XPRT_RECVS; i++)
		if (svc_post_recv(c, i))
			return -1;
	return 0;
}

static void svc_conn_free(struct rr_svc_conn *c)
{
	if (c->recv_mr)
		rdma_dereg_mr(c->recv_mr);
	if (c->send_mr)
		rdma_dereg_mr(c->send_mr);
	if (c->arena_mr)
		ibv_dereg_mr(c->arena_mr);
	if (c->id)
		rdma_destroy_ep(c->id);
	free(c->recv_buf);
	free(c->send_buf);
	free(c->arena);
}

/**
 * rr_svc_serve - accept connections on @port and serve each to its end
 * @port: RDMA (rdma_cm TCP port space) port
 * @lim: what this side accepts in a header (its RDMA2_ERRORs follow)
 * @flags: RR_SVC_DROP_V2 or 0
 * @fn: the RPC program
 * @ctx: its context
 * @conns: connections to serve, then return (0: for ever)
 * @done: called with each connection's statistics, or NULL
 *
 * Return: 0, or -1 when listening fails.
 */
int rr_svc_serve(const char *port, const struct rr_limits *lim,
		 unsigned int flags, rr_svc_fn fn, void *ctx, int conns,
		 void (*done)(const struct rr_svc_stats *st))
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE,
				       .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 8, .max_recv_wr = RR_XPRT_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_cm_id *lid;
	uint8_t pd[RR_CM_LEN], fl;
	int served = 0;

	if (rdma_getaddrinfo(NULL, port, &hints, &res))
		return -1;
	if (rdma_create_ep(&lid, res, NULL, &qa)) {
		rdma_freeaddrinfo(res);
		return -1;
	}
	rdma_freeaddrinfo(res);
	if (rdma_listen(lid, 4)) {
		rdma_destroy_ep(lid);
		return -1;
	}
	printf("listening on %s\n", port);
	fflush(stdout);
	while (!conns || served < conns) {
		struct rr_svc_conn c = { .lim = lim, .flags = flags,
					 .send_inline = RR_V1_INLINE,
					 .peer_brs = RR_BRS_INLINE };
		struct rdma_conn_param cp = { 0 };
		const struct rdma_cm_event *ev;
		uint32_t ssz, rsz;
		struct ibv_wc wc;

		if (rdma_get_request(lid, &c.id))
			break;
		ev = c.id->event;
		if (ev && !rr_cm_decode(ev->param.conn.private_data,
					ev->param.conn.private_data_len, &fl, &ssz, &rsz))
			c.send_inline = rsz < RR_XPRT_INLINE ? rsz : RR_XPRT_INLINE;
		/*
		 * The request's initiator_depth is what the client's IRD lets
		 * this side read at once (rdma_cm turns the peer's view round).
		 */
		cp.initiator_depth = ev && ev->param.conn.initiator_depth < 4 ?
				     ev->param.conn.initiator_depth : 4;
		cp.responder_resources = ev ? ev->param.conn.responder_resources : 0;
		rr_cm_encode(pd, 0, RR_XPRT_INLINE, RR_XPRT_INLINE);
		cp.private_data = pd;
		cp.private_data_len = sizeof(pd);
		if (svc_conn_setup(&c) || rdma_accept(c.id, &cp)) {
			svc_conn_free(&c);
			continue;
		}
		served++;
		while (!svc_poll(c.id->recv_cq, &wc)) {
			unsigned int i = (unsigned int)wc.wr_id;

			if (svc_one(&c, c.recv_buf + (size_t)i * RR_XPRT_INLINE,
				    wc.byte_len, fn, ctx) || svc_post_recv(&c, i))
				break;
		}
		if (done)
			done(&c.st);
		rdma_disconnect(c.id);
		svc_conn_free(&c);
	}
	rdma_destroy_ep(lid);
	return 0;
}
