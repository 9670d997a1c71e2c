/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The server side of an RPC-over-RDMA transport in user space: Versions 1
 * and 2 (the client's choice, answered in kind), CONNPROP, credits, the
 * Call pulled from Read chunks, a DDP-eligible result pushed into a Write
 * chunk, a large Reply into a Reply chunk, and every RDMA2_ERROR a
 * client's header can call for.  One connection at a time.
 */
#ifndef RPCRDMA_SVC_H
#define RPCRDMA_SVC_H

#include <stddef.h>
#include <stdint.h>

#include "rpcrdma_xdr.h"

#define RR_SVC_MAX_DATA		(8u << 20)	/* largest Call or Reply */

/**
 * struct rr_svc_reply - what a program answers
 * @len: the whole Reply message's length (built in the buffer given)
 * @ddp_off: where a DDP-eligible data item's content starts in it
 *	(after its length word), or 0
 * @ddp_len: that content's length (0: none); with a Write chunk it goes
 *	there and leaves the inline stream (RFC 8166 XDR reduction)
 */
struct rr_svc_reply {
	size_t len;
	size_t ddp_off;
	size_t ddp_len;
};

struct rr_svc_conn;

typedef void (*rr_svc_fn)(void *ctx, struct rr_svc_conn *conn,
			  const uint8_t *call, size_t clen, uint8_t *reply,
			  size_t rmax, struct rr_svc_reply *r);

/**
 * struct rr_svc_stats - what one connection did
 */
struct rr_svc_stats {
	uint32_t vers;
	uint32_t calls;
	uint32_t errors;	/* RDMA2_ERROR / ERR_* answers */
	uint32_t connprops;
	uint32_t read_chunks;
	uint32_t write_chunks;
	uint32_t reply_chunks;
	uint32_t invalidations;	/* Replies by Send with Invalidate */
	uint32_t callbacks;	/* reverse-direction calls answered */
};

/* Test behaviour: close the connection on a Version 2 first message. */
#define RR_SVC_DROP_V2		0x1

int rr_svc_callback(struct rr_svc_conn *conn, void *msg, size_t len,
		    void *reply, size_t rmax, size_t *rlen);
int rr_svc_serve(const char *port, const struct rr_limits *lim,
		 unsigned int flags, rr_svc_fn fn, void *ctx, int conns,
		 void (*done)(const struct rr_svc_stats *st));

#endif
