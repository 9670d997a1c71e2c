/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ONC RPC (RFC 5531) messages for the RPC-over-RDMA tools: a bounded XDR
 * stream, call headers with AUTH_SYS, reply headers, and calls over TCP
 * with record marking (rpcbind and MOUNT, which nfsd serves on TCP only).
 */
#ifndef RR_ONC_H
#define RR_ONC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RR_RPC_CALL		0
#define RR_RPC_REPLY		1
#define RR_AUTH_NONE		0
#define RR_AUTH_SYS		1

#define RR_PROG_PORTMAP		100000
#define RR_PROG_NFS		100003
#define RR_PROG_MOUNT		100005
#define RR_PROG_ECHO		0x20000999u	/* siw2's echo program (user range) */

/* An XDR stream over a caller's buffer; any overrun sets @bad and stays. */
struct rr_xdr {
	uint8_t *p;
	size_t len;
	size_t off;
	bool bad;
};

void rr_xdr_init(struct rr_xdr *x, void *buf, size_t len);
void rr_xdr_u32(struct rr_xdr *x, uint32_t v);
void rr_xdr_u64(struct rr_xdr *x, uint64_t v);
void rr_xdr_opaque(struct rr_xdr *x, const void *d, uint32_t n);
uint32_t rr_xdr_get_u32(struct rr_xdr *x);
uint64_t rr_xdr_get_u64(struct rr_xdr *x);
const uint8_t *rr_xdr_get_opaque(struct rr_xdr *x, uint32_t *n, uint32_t max);
void rr_xdr_skip(struct rr_xdr *x, size_t n);

void rr_rpc_call_hdr(struct rr_xdr *x, uint32_t xid, uint32_t prog,
		     uint32_t vers, uint32_t proc);
int rr_rpc_reply_hdr(struct rr_xdr *x, uint32_t xid, char *why, size_t wlen);
int rr_rpc_tcp(const char *host, uint16_t port, const void *call, size_t clen,
	       void *reply, size_t rmax, size_t *rlen);
int rr_rpc_getport(const char *host, uint32_t prog, uint32_t vers,
		   uint16_t *port);

#endif
