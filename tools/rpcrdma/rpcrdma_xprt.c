// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RPC-over-RDMA client transport (rpcrdma_xprt.h).  Requirement IDs:
 * Documentation/conformance.md, RPCRDMA2-*.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#include "rpcrdma_xprt.h"

static int rr_fail(struct rr_xprt *x, int rv, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err, sizeof(x->err), fmt, ap);
	va_end(ap);
	return rv;
}

static long long rr_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static const struct rr_limits rr_client_limits = {
	.vers_low = RR_VERS_1,
	.vers_high = RR_VERS_2,
	.max_reads = RR_MAX_READS,
	.max_writes = RR_MAX_WRITES,
	.max_segs = RR_MAX_SEGS,
};

static int rr_post_recv(struct rr_xprt *x, unsigned int i)
{
	return rdma_post_recv(x->id, (void *)(uintptr_t)i,
			      x->recv_buf + (size_t)i * RR_XPRT_INLINE,
			      RR_XPRT_INLINE, x->recv_mr);
}

/*
 * rr_wait - the Send's completion and one Receive's
 * @x: transport
 * @ri: out: the receive buffer's index
 * @blen: out: octets received
 *
 * Polls both queues (the provider's rings: no system call) and sleeps
 * briefly between empty looks.
 */
static int rr_wait(struct rr_xprt *x, unsigned int *ri, uint32_t *blen)
{
	long long deadline = rr_now_ms() + x->timeout_ms;
	struct timespec nap = { 0, 20000 };
	bool sent = false, got = false;
	struct ibv_wc wc;

	while (!sent || !got) {
		int n = 0;

		if (!sent && (n = ibv_poll_cq(x->id->send_cq, 1, &wc)) > 0) {
			if (wc.status != IBV_WC_SUCCESS)
				return rr_fail(x, -EIO, "send completion: %s",
					       ibv_wc_status_str(wc.status));
			sent = true;
			continue;
		}
		if (!got && (n = ibv_poll_cq(x->id->recv_cq, 1, &wc)) > 0) {
			if (wc.status != IBV_WC_SUCCESS)
				return rr_fail(x, -EIO, "receive completion: %s",
					       ibv_wc_status_str(wc.status));
			*ri = (unsigned int)wc.wr_id;
			*blen = wc.byte_len;
			x->inv_rkey = wc.wc_flags & IBV_WC_WITH_INV ?
				      wc.invalidated_rkey : 0;
			got = true;
			continue;
		}
		if (n < 0)
			return rr_fail(x, -EIO, "ibv_poll_cq failed");
		if (rr_now_ms() > deadline)
			return rr_fail(x, -ETIMEDOUT, "no %s after %d ms",
				       sent ? "reply" : "send completion",
				       x->timeout_ms);
		nanosleep(&nap, NULL);
	}
	return 0;
}

/* Send the first @len octets of the send buffer and take the answer. */
static int rr_exchange(struct rr_xprt *x, size_t len, struct rr_hdr *h,
		       uint8_t **rbuf, uint32_t *blen, unsigned int *ri)
{
	struct rr_status st;
	int rv;

	if (rdma_post_send(x->id, NULL, x->send_buf, len, x->send_mr,
			   IBV_SEND_SIGNALED))
		return rr_fail(x, -errno, "rdma_post_send: %s", strerror(errno));
	rv = rr_wait(x, ri, blen);
	if (rv)
		return rv;
	*rbuf = x->recv_buf + (size_t)*ri * RR_XPRT_INLINE;
	if (rr_decode(*rbuf, *blen, &rr_client_limits, h, &st)) {
		rr_post_recv(x, *ri);
		return rr_fail(x, -EPROTO, "undecodable reply header (%s at octet %zu)",
			       rr_err_name(st.err), st.where);
	}
	return 0;
}

/* An RDMA2_ERROR in words; ERR_VERS keeps the peer's range. */
static int rr_error_reply(struct rr_xprt *x, const struct rr_hdr *h)
{
	if (h->err == RR_ERR_VERS) {
		x->peer_vers_low = h->err_a;
		x->peer_vers_high = h->err_b;
		return rr_fail(x, -EPROTONOSUPPORT, "ERR_VERS: the peer speaks versions %u-%u",
			       h->err_a, h->err_b);
	}
	return rr_fail(x, -EREMOTEIO, "RDMA%s_ERROR %s (%u, %u)",
		       h->vers == RR_VERS_2 ? "2" : "", rr_err_name(h->err),
		       h->err_a, h->err_b);
}

/*
 * Version 2's first message: this side's properties (RPCRDMA2-CONNPROP-1,
 * VER-2: rdma_vers 2, well under 1024 octets).  The peer answers with its
 * own CONNPROP, or with ERR_VERS when it lacks Version 2 (VER-4).
 */
static int rr_connprop(struct rr_xprt *x)
{
	struct rr_hdr h;
	const struct rr_prop *p;
	unsigned int ri;
	uint8_t *rbuf;
	uint32_t blen;
	size_t len;
	int rv;

	rr_hdr_init(&h, RR_VERS_2, ++x->xid, RR_XPRT_RECVS, RR_CONNPROP);
	rr_add_prop(&h, RR_PROP_RBSIZ, RR_XPRT_INLINE);
	/* Reverse-direction Calls inline when there is a program for them. */
	rr_add_prop(&h, RR_PROP_BRS, x->cb ? RR_BRS_INLINE : RR_BRS_NONE);
	if (rr_encode(&h, x->send_buf, 1024, &len))
		return rr_fail(x, -EINVAL, "CONNPROP does not encode");
	rv = rr_exchange(x, len, &h, &rbuf, &blen, &ri);
	if (rv == -EIO || rv == -ETIMEDOUT)
		x->first_lost = true;
	if (rv)
		return rv;
	rr_post_recv(x, ri);
	if (h.htype == RR_ERROR)
		return rr_error_reply(x, &h);
	if (h.vers != RR_VERS_2 || h.htype != RR_CONNPROP ||
	    !(h.flags & RR_F_RESPONSE))
		return rr_fail(x, -EPROTO, "answer to CONNPROP: version %u type %u flags 0x%x",
			       h.vers, h.htype, h.flags);
	x->peer_props = true;
	p = rr_find_prop(&h, RR_PROP_RBSIZ);
	x->peer_rbsiz = p ? p->value : RR_RBSIZ_DEFAULT;
	p = rr_find_prop(&h, RR_PROP_BRS);
	x->peer_brs = p ? p->value : RR_BRS_INLINE;
	x->send_inline = x->peer_rbsiz < RR_XPRT_INLINE ? x->peer_rbsiz : RR_XPRT_INLINE;
	x->credits = h.credit;
	return 0;
}

static int rr_xprt_open(struct rr_xprt *x, const char *host, const char *port,
			uint32_t vers)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 4, .max_recv_wr = RR_XPRT_RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param cp = { .responder_resources = 4,
				      .initiator_depth = 0 };
	const struct rdma_cm_event *ev;
	struct ibv_device_attr dattr;
	uint32_t ssz, rsz;
	uint8_t pd[RR_CM_LEN], fl;
	unsigned int i;

	x->vers = vers;
	if (rdma_getaddrinfo(host, port, &hints, &res))
		return rr_fail(x, -EHOSTUNREACH, "rdma_getaddrinfo %s:%s: %s", host, port,
			       strerror(errno));
	if (rdma_create_ep(&x->id, res, NULL, &qa)) {
		rdma_freeaddrinfo(res);
		x->id = NULL;
		return rr_fail(x, -errno, "rdma_create_ep: %s", strerror(errno));
	}
	rdma_freeaddrinfo(res);
	x->recv_buf = calloc(RR_XPRT_RECVS, RR_XPRT_INLINE);
	x->send_buf = calloc(1, RR_XPRT_INLINE);
	if (!x->recv_buf || !x->send_buf)
		return rr_fail(x, -ENOMEM, "out of memory");
	x->recv_mr = rdma_reg_msgs(x->id, x->recv_buf,
				   (size_t)RR_XPRT_RECVS * RR_XPRT_INLINE);
	x->send_mr = rdma_reg_msgs(x->id, x->send_buf, RR_XPRT_INLINE);
	if (!x->recv_mr || !x->send_mr)
		return rr_fail(x, -errno, "rdma_reg_msgs: %s", strerror(errno));
	/* Every credit asked for is a posted Receive (RPCRDMA2-CRED-1). */
	for (i = 0; i < RR_XPRT_RECVS; i++)
		if (rr_post_recv(x, i))
			return rr_fail(x, -errno, "rdma_post_recv: %s", strerror(errno));
	/* Linux's private data; no Send with Invalidate towards us. */
	rr_cm_encode(pd, 0, RR_XPRT_INLINE, RR_XPRT_INLINE);
	cp.private_data = pd;
	cp.private_data_len = sizeof(pd);
	if (rdma_connect(x->id, &cp))
		return rr_fail(x, -errno, "rdma_connect %s:%s: %s", host, port,
			       strerror(errno));
	x->send_inline = vers == RR_VERS_2 ? 1024 : RR_V1_INLINE;
	ev = x->id->event;
	if (ev && !rr_cm_decode(ev->param.conn.private_data,
				ev->param.conn.private_data_len, &fl, &ssz, &rsz))
		x->send_inline = rsz < RR_XPRT_INLINE ? rsz : RR_XPRT_INLINE;
	x->credits = 1;
	x->mw_ok = false;
	if (!ibv_query_device(x->id->verbs, &dattr) &&
	    (dattr.device_cap_flags & (IBV_DEVICE_MEM_WINDOW_TYPE_2A |
				       IBV_DEVICE_MEM_WINDOW_TYPE_2B))) {
		x->mw_ok = true;
		for (i = 0; i < 3 && x->mw_ok; i++) {
			x->mw[i] = ibv_alloc_mw(x->id->pd, IBV_MW_TYPE_2);
			x->mw_ok = x->mw[i] != NULL;
		}
	}
	return vers == RR_VERS_2 ? rr_connprop(x) : 0;
}

/**
 * rr_xprt_close - disconnect and free
 * @x: transport (may be half open)
 */
void rr_xprt_close(struct rr_xprt *x)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		if (x->mw[i])
			ibv_dealloc_mw(x->mw[i]);
		x->mw[i] = NULL;
	}
	if (x->id)
		rdma_disconnect(x->id);
	if (x->recv_mr)
		rdma_dereg_mr(x->recv_mr);
	if (x->send_mr)
		rdma_dereg_mr(x->send_mr);
	if (x->id)
		rdma_destroy_ep(x->id);
	free(x->recv_buf);
	free(x->send_buf);
	x->id = NULL;
	x->recv_mr = x->send_mr = NULL;
	x->recv_buf = x->send_buf = NULL;
}

/**
 * rr_xprt_connect - connect, negotiating the version (draft section 7)
 * @x: transport, zeroed
 * @host: server
 * @port: its RDMA port (20049 for NFS)
 * @want_vers: RR_VERS_2 to offer Version 2 first, RR_VERS_1 for 1 only
 * @timeout_ms: how long a reply may take
 *
 * With Version 2 the first message is a CONNPROP.  A server without
 * Version 2 answers ERR_VERS; the connection is then replaced by one
 * that speaks a version of the server's range (VER-4, VER-6: never a
 * change of version within a connection).  A first message that goes
 * unanswered (the connection ends, or no reply within @timeout_ms) is
 * taken for a Version 1 server's too (VER-5).
 *
 * Return: 0 (x->vers says which), or a negative errno with x->err set.
 */
int rr_xprt_connect(struct rr_xprt *x, const char *host, const char *port,
		    uint32_t want_vers, int timeout_ms)
{
	int rv;

	x->timeout_ms = timeout_ms;
	rv = rr_xprt_open(x, host, port, want_vers);
	if (rv && x->first_lost) {
		/* A server without Version 2 may just drop it (VER-5). */
		x->peer_vers_low = x->peer_vers_high = RR_VERS_1;
		rv = -EPROTONOSUPPORT;
	}
	if (rv != -EPROTONOSUPPORT)
		return rv;
	rr_xprt_close(x);
	if (x->peer_vers_low > RR_VERS_1 || x->peer_vers_high < RR_VERS_1)
		return rr_fail(x, -EPROTONOSUPPORT, "no common version (peer %u-%u)",
			       x->peer_vers_low, x->peer_vers_high);
	return rr_xprt_open(x, host, port, RR_VERS_1);
}

static struct ibv_mr *rr_reg(struct rr_xprt *x, void *p, size_t len, int acc,
			     struct rr_seg *s)
{
	struct ibv_mr *mr = ibv_reg_mr(x->id->pd, p, len, acc);

	if (mr) {
		s->handle = mr->rkey;
		s->length = len;
		s->offset = (uintptr_t)p;
	}
	return mr;
}

/* Post one local work request (bind, invalidate) and wait for it. */
static int rr_local_wr(struct rr_xprt *x, struct ibv_send_wr *wr)
{
	long long deadline = rr_now_ms() + x->timeout_ms;
	struct timespec nap = { 0, 20000 };
	struct ibv_send_wr *bad;
	struct ibv_wc wc;
	int n;

	wr->send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(x->id->qp, wr, &bad))
		return rr_fail(x, -EIO, "ibv_post_send (local): %s", strerror(errno));
	while (!(n = ibv_poll_cq(x->id->send_cq, 1, &wc))) {
		if (rr_now_ms() > deadline)
			return rr_fail(x, -ETIMEDOUT, "no completion of a local work request");
		nanosleep(&nap, NULL);
	}
	if (n < 0 || wc.status != IBV_WC_SUCCESS)
		return rr_fail(x, -EIO, "local work request: %s",
			       n < 0 ? "poll failed" : ibv_wc_status_str(wc.status));
	return 0;
}

/*
 * rr_reg_mw - register @p for this call and open it to the peer through
 * window @k with a fresh key: the segment names the window, which the
 * responder may invalidate with its Reply (RPCRDMA2-INV-3: a window,
 * not the MR, is what a peer may invalidate).
 */
static struct ibv_mr *rr_reg_mw(struct rr_xprt *x, unsigned int k, void *p,
				size_t len, int acc, struct rr_seg *s)
{
	struct ibv_mr *mr = ibv_reg_mr(x->id->pd, p, len, IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_MW_BIND);
	struct ibv_send_wr wr = { .opcode = IBV_WR_BIND_MW };
	uint32_t rkey;

	if (!mr)
		return NULL;
	rkey = ibv_inc_rkey(x->mw[k]->rkey);
	wr.bind_mw.mw = x->mw[k];
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)p;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = acc & ~IBV_ACCESS_LOCAL_WRITE;
	if (rr_local_wr(x, &wr)) {
		ibv_dereg_mr(mr);
		return NULL;
	}
	x->mw[k]->rkey = rkey;
	s->handle = rkey;
	s->length = len;
	s->offset = (uintptr_t)p;
	return mr;
}

/* Close window @k unless the Reply's Send with Invalidate did. */
static void rr_unbind(struct rr_xprt *x, unsigned int k)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_LOCAL_INV };

	if (x->inv_rkey == x->mw[k]->rkey)
		return;
	wr.invalidate_rkey = x->mw[k]->rkey;
	rr_local_wr(x, &wr);
}

static uint32_t rr_chunk_len(const struct rr_hdr *h, const struct rr_chunk *c)
{
	uint32_t i, n = 0;

	for (i = 0; i < c->nsegs; i++)
		n += h->segs[c->first + i].length;
	return n;
}

/* The Reply's header against what the Call offered. */
static int rr_take_reply(struct rr_xprt *x, struct rr_call *c,
			 const struct rr_hdr *h, const uint8_t *rbuf,
			 uint32_t blen)
{
	uint32_t n;

	if (h->htype == RR_ERROR) {
		c->err = h->err;
		c->err_a = h->err_a;
		c->err_b = h->err_b;
		return rr_error_reply(x, h);
	}
	if (h->vers != x->vers)		/* RPCRDMA2-VER-6 */
		return rr_fail(x, -EPROTO, "reply in version %u on a version %u connection",
			       h->vers, x->vers);
	if (h->vers == RR_VERS_2 && !(h->flags & RR_F_RESPONSE))
		return rr_fail(x, -EPROTO, "reply without F_RESPONSE");	/* HDR-3 */
	x->credits = h->credit;
	c->wgot = 0;
	if (h->nwrites) {
		if (!c->wdata || h->nwrites > 1)
			return rr_fail(x, -EPROTO, "reply returns %u write chunks, 1 offered at most",
				       h->nwrites);
		c->wgot = rr_chunk_len(h, &h->writes[0]);
		if (c->wgot > c->wlen)
			return rr_fail(x, -EPROTO, "write chunk: %zu octets written, %zu offered",
				       c->wgot, c->wlen);
	}
	if (h->htype == RR_MSG) {
		n = blen - h->payload;
		if (n > c->replymax)
			return rr_fail(x, -EMSGSIZE, "inline reply of %u octets", n);
		memcpy(c->reply, rbuf + h->payload, n);
		c->replylen = n;
		c->reply_how = "inline";
		return 0;
	}
	if (h->htype == RR_NOMSG && c->reply_chunk && h->has_reply) {
		n = rr_chunk_len(h, &h->reply);
		if (n > c->replymax)
			return rr_fail(x, -EPROTO, "reply chunk: %u octets, %zu offered", n,
				       c->replymax);
		c->replylen = n;
		c->reply_how = "reply chunk";
		return 0;
	}
	return rr_fail(x, -EPROTO, "reply of type %u%s", h->htype,
		       h->htype == RR_NOMSG ? " without a reply chunk" : "");
}

/*
 * rr_reverse - answer a reverse-direction Call (Version 2 RDMA2_MSG with
 * F_RESPONSE clear, RPCRDMA2-BIDIR-1, HDR-3) that came while this side's
 * own Call waits, then take the next message into @h.
 */
static int rr_reverse(struct rr_xprt *x, struct rr_hdr *h, uint8_t **rbuf,
		      uint32_t *blen, unsigned int *ri)
{
	static uint8_t call[RR_XPRT_INLINE], reply[RR_XPRT_INLINE];
	struct rr_hdr r;
	size_t clen = *blen - h->payload, rlen = 0, hl;

	memcpy(call, *rbuf + h->payload, clen);
	rr_post_recv(x, *ri);
	if (!x->cb)
		return rr_fail(x, -EPROTO, "a reverse-direction Call, and BRS was NONE");
	x->cb(x->cb_ctx, call, clen, reply, sizeof(reply), &rlen);
	rr_hdr_init(&r, RR_VERS_2, h->xid, RR_XPRT_RECVS, RR_MSG);
	r.flags = RR_F_RESPONSE;
	if (!rlen || rr_encode(&r, x->send_buf, RR_XPRT_INLINE, &hl) ||
	    hl + rlen > x->send_inline)
		return rr_fail(x, -EPROTO, "no inline Reply to the reverse-direction Call");
	memcpy(x->send_buf + hl, reply, rlen);
	x->callbacks++;
	return rr_exchange(x, hl + rlen, h, rbuf, blen, ri);
}

/*
 * rr_call_once - one attempt of rr_xprt_call()
 *
 * Chunk memory is registered for this call only and deregistered once
 * the Reply is in, so the peer cannot reach it afterwards.
 *
 * Return: 0, or a negative errno with x->err set (-EREMOTEIO: the peer
 * answered RDMA2_ERROR; -EPROTONOSUPPORT: ERR_VERS).
 */
static int rr_call_once(struct rr_xprt *x, struct rr_call *c)
{
	struct ibv_mr *mr_c = NULL, *mr_w = NULL, *mr_r = NULL, *mr_d = NULL;
	struct rr_seg s;
	struct rr_hdr h;
	unsigned int ri = 0;
	uint8_t *rbuf, *m = c->msg;
	uint32_t blen, inv, xid = c->retry ? x->xid : ++x->xid;
	size_t hl, rdend = c->rdpos + c->rdlen + (4 - c->rdlen % 4) % 4;
	bool win;
	int rv;

	if (c->msglen < 4 || c->msglen % 4 || c->rdpos % 4 ||
	    (c->rdlen && (c->rdpos < 4 || rdend > c->msglen)))
		return rr_fail(x, -EINVAL, "a Call is whole XDR words");
	c->err = c->err_a = c->err_b = 0;
	m[0] = xid >> 24;
	m[1] = xid >> 16;
	m[2] = xid >> 8;
	m[3] = xid;
	rr_hdr_init(&h, x->vers, xid, RR_XPRT_RECVS, RR_MSG);
	c->invalidated = false;
	x->inv_rkey = 0;
	win = c->remote_inv && x->mw_ok && x->vers == RR_VERS_2;
	if (c->remote_inv && !win) {
		rv = rr_fail(x, -EOPNOTSUPP, "remote invalidation needs Version 2 and memory windows");
		goto out;
	}
	rv = -ENOMEM;
	if (c->wdata) {
		mr_w = win ? rr_reg_mw(x, 1, c->wdata, c->wlen, IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE, &s) :
			     rr_reg(x, c->wdata, c->wlen,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &s);
		if (!mr_w || rr_add_write(&h, &s, 1))
			goto out;
		if (win)
			h.inv_handle = s.handle;	/* INV-1: one of its own */
	}
	if (c->reply_chunk) {
		mr_r = win ? rr_reg_mw(x, 2, c->reply, c->replymax, IBV_ACCESS_LOCAL_WRITE |
				       IBV_ACCESS_REMOTE_WRITE, &s) :
			     rr_reg(x, c->reply, c->replymax,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &s);
		if (!mr_r || rr_set_reply(&h, &s, 1))
			goto out;
		if (win && !h.inv_handle)
			h.inv_handle = s.handle;
	}
	if (rr_encode(&h, x->send_buf, RR_XPRT_INLINE, &hl)) {
		rv = rr_fail(x, -EINVAL, "header does not encode");
		goto out;
	}
	if (c->rdlen) {
		/* The item's content leaves the inline stream (XDR reduction). */
		mr_d = rr_reg(x, m + c->rdpos, c->rdlen, IBV_ACCESS_REMOTE_READ, &s);
		if (!mr_d || rr_add_read(&h, c->rdpos, &s) ||
		    rr_encode(&h, x->send_buf, RR_XPRT_INLINE, &hl))
			goto out;
		if (hl + c->msglen - (rdend - c->rdpos) > x->send_inline) {
			rv = rr_fail(x, -EMSGSIZE, "the rest of the Call does not fit inline");
			goto out;
		}
		memcpy(x->send_buf + hl, m, c->rdpos);
		memcpy(x->send_buf + hl + c->rdpos, m + rdend, c->msglen - rdend);
		hl += c->msglen - (rdend - c->rdpos);
		c->call_how = "data read chunk";
	} else if (!c->force_read && hl + c->msglen <= x->send_inline) {
		memcpy(x->send_buf + hl, c->msg, c->msglen);
		hl += c->msglen;
		c->call_how = "inline";
	} else {
		/* Too large to send: the peer pulls it (RDMA_NOMSG). */
		h.htype = RR_NOMSG;
		mr_c = win ? rr_reg_mw(x, 0, c->msg, c->msglen, IBV_ACCESS_REMOTE_READ, &s) :
			     rr_reg(x, c->msg, c->msglen, IBV_ACCESS_REMOTE_READ, &s);
		if (win && mr_c && !h.inv_handle)
			h.inv_handle = s.handle;
		if (!mr_c || rr_add_read(&h, 0, &s) ||
		    rr_encode(&h, x->send_buf, x->send_inline, &hl))
			goto out;
		c->call_how = "read chunk";
	}
	inv = h.inv_handle;
	rv = rr_exchange(x, hl, &h, &rbuf, &blen, &ri);
	while (!rv && h.vers == RR_VERS_2 && h.htype == RR_MSG &&
	       !(h.flags & RR_F_RESPONSE))
		rv = rr_reverse(x, &h, &rbuf, &blen, &ri);
	if (rv)
		goto out;
	/* RPCRDMA2-INV-2: only the handle asked for may be invalidated. */
	c->invalidated = inv && x->inv_rkey == inv;
	if (x->inv_rkey && x->inv_rkey != inv)
		rv = rr_fail(x, -EPROTO, "the Reply invalidated 0x%08x, not the handle asked for",
			     x->inv_rkey);
	else if (h.xid != xid)
		rv = rr_fail(x, -EPROTO, "reply for xid 0x%08x, 0x%08x expected", h.xid, xid);
	else
		rv = rr_take_reply(x, c, &h, rbuf, blen);
	rr_post_recv(x, ri);
out:
	if (rv == -ENOMEM)
		rr_fail(x, rv, "memory registration: %s", strerror(errno));
	/* Windows close before their MRs go (an MR with a bound window stays). */
	if (win) {
		if (mr_c)
			rr_unbind(x, 0);
		if (mr_w)
			rr_unbind(x, 1);
		if (mr_r)
			rr_unbind(x, 2);
	}
	if (mr_c)
		ibv_dereg_mr(mr_c);
	if (mr_d)
		ibv_dereg_mr(mr_d);
	if (mr_w)
		ibv_dereg_mr(mr_w);
	if (mr_r)
		ibv_dereg_mr(mr_r);
	return rv;
}

/**
 * rr_xprt_raw - send a transport header as given and take the answer
 * @x: connected transport
 * @hdr: the octets to send (any content: a peer's error paths)
 * @len: their length (at most RR_XPRT_INLINE)
 * @h: out: the answer's decoded header
 *
 * Return: 0, or a negative errno with x->err set.
 */
int rr_xprt_raw(struct rr_xprt *x, const void *hdr, size_t len,
		struct rr_hdr *h)
{
	unsigned int ri;
	uint8_t *rbuf;
	uint32_t blen;
	int rv;

	if (len > RR_XPRT_INLINE)
		return rr_fail(x, -EMSGSIZE, "raw header of %zu octets", len);
	memcpy(x->send_buf, hdr, len);
	rv = rr_exchange(x, len, h, &rbuf, &blen, &ri);
	if (!rv)
		rr_post_recv(x, ri);
	return rv;
}

/**
 * rr_xprt_call - one RPC: the Call inline or as a Position-Zero Read chunk,
 * the Reply inline or in a Reply chunk, a DDP-eligible result in a Write
 * chunk, with the retries the draft asks of a requester
 * @x: connected transport
 * @c: the call (see struct rr_call)
 *
 * ERR_READ_CHUNKS to a Call with a data item's Read chunk: the Call goes
 * again, whole, as a Position-Zero Read chunk; a second refusal ends the
 * RPC (RPCRDMA2-ERR-5).  ERR_WRITE_CHUNKS, or ERR_REPLY_RESOURCE to a Call
 * with a Write chunk: again without Write chunks and with a Reply chunk
 * (ERR-6).  Both under the same XID.
 *
 * Return: 0, or a negative errno with x->err set (-EREMOTEIO: the peer
 * answered RDMA2_ERROR; -EPROTONOSUPPORT: ERR_VERS).
 */
int rr_xprt_call(struct rr_xprt *x, struct rr_call *c)
{
	struct rr_call again;
	int rv;

	c->retried = NULL;
	rv = rr_call_once(x, c);
	if (rv != -EREMOTEIO || c->retry)
		return rv;
	again = *c;
	again.retry = true;
	if (c->err == RR_ERR_READ_CHUNKS && c->rdlen) {
		again.rdlen = 0;
		again.rdpos = 0;
		again.force_read = true;
		again.retried = "position zero";
	} else if ((c->err == RR_ERR_WRITE_CHUNKS ||
		    c->err == RR_ERR_REPLY_RESOURCE) && c->wdata &&
		   !c->reply_chunk) {
		again.wdata = NULL;
		again.wlen = 0;
		again.reply_chunk = true;
	} else {
		return rv;
	}
	rv = rr_call_once(x, &again);
	again.retry = c->retry;
	again.retried = c->err == RR_ERR_READ_CHUNKS ? "position zero" : "reply chunk";
	again.rdlen = c->rdlen;
	again.rdpos = c->rdpos;
	again.force_read = c->force_read;
	again.wdata = c->wdata;
	again.wlen = c->wlen;
	again.reply_chunk = c->reply_chunk;
	*c = again;
	return rv;
}
