/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The client side of an RPC-over-RDMA transport in user space (librdmacm,
 * libibverbs; any RDMA device): connection with Linux's private data,
 * version negotiation (Version 2 first, Version 1 after ERR_VERS,
 * draft section 7), credits, inline thresholds, and Read, Write and
 * Reply chunks in memory registered per call.  One call at a time.
 */
#ifndef RPCRDMA_XPRT_H
#define RPCRDMA_XPRT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpcrdma_xdr.h"

#define RR_XPRT_RECVS		16	/* receives posted: the credits asked */
#define RR_XPRT_INLINE		4096	/* each receive buffer, RBSIZ */

struct rdma_cm_id;
struct ibv_mr;
struct ibv_mw;

/*
 * A reverse-direction program: answers the server's Call (@call, @clen)
 * with a Reply message of at most @rmax octets in @reply, its length in
 * *@rlen (0: no answer).
 */
typedef void (*rr_xprt_cb)(void *ctx, const uint8_t *call, size_t clen,
			   uint8_t *reply, size_t rmax, size_t *rlen);

/**
 * struct rr_xprt - one connection
 * @vers: the version in use (RR_VERS_1 or RR_VERS_2)
 * @send_inline: the most this side sends inline: the peer's receive size
 *	(its private data, its RBSIZ, or the version's default)
 * @credits: the peer's last grant
 * @peer_props: a Version 2 peer's CONNPROP was seen
 * @peer_rbsiz: its RBSIZ (RR_RBSIZ_DEFAULT if it sent none)
 * @peer_brs: its BRS
 * @peer_vers_low, @peer_vers_high: the range an ERR_VERS gave (0: none)
 * @first_lost: the Version 2 first message went unanswered (the
 *	connection ended or the reply never came: RPCRDMA2-VER-5)
 * @mw_ok: the device has type 2 memory windows (chunks may use them)
 * @mw: the windows the chunks of one call use (Read, Write, Reply)
 * @inv_rkey: the STag the last Reply invalidated (Send with Invalidate),
 *	or 0
 * @cb: set before connecting: this client takes reverse-direction Calls
 *	(inline, BRS RDMA2_RVREQSUP_INLINE; NULL: BRS NONE) and @cb answers
 *	them while a Call of its own waits for its Reply
 * @cb_ctx: @cb's context
 * @callbacks: reverse-direction Calls answered
 * @err: the last failure, in words
 */
struct rr_xprt {
	struct rdma_cm_id *id;
	struct ibv_mr *recv_mr;
	struct ibv_mr *send_mr;
	uint8_t *recv_buf;
	uint8_t *send_buf;
	uint32_t vers;
	uint32_t send_inline;
	uint32_t credits;
	uint32_t xid;
	bool peer_props;
	uint32_t peer_rbsiz;
	uint32_t peer_brs;
	uint32_t peer_vers_low;
	uint32_t peer_vers_high;
	bool first_lost;
	bool mw_ok;
	struct ibv_mw *mw[3];
	uint32_t inv_rkey;
	rr_xprt_cb cb;
	void *cb_ctx;
	uint32_t callbacks;
	int timeout_ms;
	char err[200];
};

/**
 * struct rr_call - one RPC
 * @msg: the Call message (ONC RPC, its xid first; rr_call() sets the xid)
 * @msglen: its length
 * @reply: where the Reply message goes
 * @replymax: its size
 * @replylen: out: the Reply's length
 * @wdata: a Write chunk's memory for a DDP-eligible result, or NULL
 * @wlen: its size
 * @wgot: out: octets the responder wrote there
 * @reply_chunk: offer a Reply chunk of @replymax octets
 * @force_read: send the Call as a Position-Zero Read chunk even if it fits
 * @rdpos: with @rdlen, a data item's content at @rdpos in @msg goes as a
 *	Read chunk at that XDR position instead of inline
 * @rdlen: its length (0: none)
 * @retry: resend under the last Call's XID (after ERR_WRITE_RESOURCE or
 *	ERR_REPLY_RESOURCE, RPCRDMA2-ERR-8, -9)
 * @remote_inv: (Version 2, a device with memory windows) open the chunks
 *	through memory windows and ask the responder to invalidate one of
 *	them with its Reply (rdma_inv_handle, RPCRDMA2-INV-1)
 * @invalidated: out: the responder did (the Reply came by Send with
 *	Invalidate of that window's STag)
 * @call_how: out: how the Call went ("inline", "read chunk", "data read
 *	chunk")
 * @reply_how: out: how the Reply came ("inline", "reply chunk")
 * @retried: out: NULL, or how the library resent the Call after an
 *	RDMA2_ERROR the draft says to retry ("position zero": after
 *	ERR_READ_CHUNKS, RPCRDMA2-ERR-5; "reply chunk": after ERR_WRITE_CHUNKS
 *	or, offering a Write chunk, ERR_REPLY_RESOURCE, ERR-6)
 * @err: out: the RDMA2_ERROR code when rr_xprt_call() returns -EREMOTEIO
 * @err_a: out: its first argument
 * @err_b: out: its second argument
 */
struct rr_call {
	void *msg;
	size_t msglen;
	void *reply;
	size_t replymax;
	size_t replylen;
	void *wdata;
	size_t wlen;
	size_t wgot;
	bool reply_chunk;
	bool force_read;
	size_t rdpos;
	size_t rdlen;
	bool retry;
	bool remote_inv;
	bool invalidated;
	const char *retried;
	const char *call_how;
	const char *reply_how;
	uint32_t err;
	uint32_t err_a;
	uint32_t err_b;
};

int rr_xprt_connect(struct rr_xprt *x, const char *host, const char *port,
		    uint32_t want_vers, int timeout_ms);
void rr_xprt_close(struct rr_xprt *x);
int rr_xprt_call(struct rr_xprt *x, struct rr_call *c);
int rr_xprt_raw(struct rr_xprt *x, const void *hdr, size_t len,
		struct rr_hdr *h);

#endif
