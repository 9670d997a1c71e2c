/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * RPC-over-RDMA transport headers, Version 1 (RFC 8166) and Version 2
 * (draft-cel-nfsv4-rpcrdma-version-two-09, DIGEST.md 2.5): encode and
 * decode, no I/O.  Every field is XDR: 32-bit big-endian words, 64-bit
 * "hyper" offsets.  The draft's XDR does not compile as written (AMB-19);
 * this follows its intent: propid, proc and errcode are uint32.
 *
 * A decoder never trusts a length: every count is checked against what
 * the buffer holds and against the caller's limits before anything is
 * stored, and a failure says which RDMA2_ERROR a responder should send.
 */
#ifndef RPCRDMA_XDR_H
#define RPCRDMA_XDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RR_VERS_1		1
#define RR_VERS_2		2

/* Header types (v1 rdma_proc, v2 rdma_htype). */
#define RR_MSG			0
#define RR_NOMSG		1
#define RR_MSGP			2	/* v1 only, not used (RFC 8166 4.5) */
#define RR_DONE			3	/* v1 only, not used */
#define RR_ERROR		4
#define RR_CONNPROP		5	/* v2 only */

#define RR_F_RESPONSE		0x00000001u	/* v2 rdma_flags */

/* RDMA2_ERROR codes; v1 has 1 (ERR_VERS) and 2 (ERR_CHUNK) only. */
#define RR_ERR_VERS		1
#define RR_ERR_BAD_XDR		2	/* v1 ERR_CHUNK */
#define RR_ERR_INVAL_HTYPE	3
#define RR_ERR_READ_CHUNKS	4
#define RR_ERR_WRITE_CHUNKS	5
#define RR_ERR_SEGMENTS		6
#define RR_ERR_WRITE_RESOURCE	7
#define RR_ERR_REPLY_RESOURCE	8
#define RR_ERR_SYSTEM		9

/* Transport properties (v2 4.2). */
#define RR_PROP_RBSIZ		1
#define RR_PROP_BRS		2
#define RR_BRS_NONE		0
#define RR_BRS_INLINE		1
#define RR_BRS_GENL		2
#define RR_RBSIZ_DEFAULT	4096
#define RR_V1_INLINE		1024	/* v1 default inline threshold */

/* Storage of one decoded header; a decoder refuses more than this. */
#define RR_MAX_READS		16	/* read segments */
#define RR_MAX_WRITES		8	/* write chunks */
#define RR_MAX_SEGS		64	/* segments of write and reply chunks */
#define RR_MAX_PROPS		16	/* known properties kept */

/* Linux's connection private data (rpcrdma_connect_private). */
#define RR_CM_MAGIC		0xf6ab0e18u
#define RR_CM_F_SND_W_INV_OK	0x01
#define RR_CM_LEN		8

struct rr_seg {
	uint32_t handle;	/* STag */
	uint32_t length;
	uint64_t offset;	/* tagged offset */
};

struct rr_read {
	uint32_t position;	/* XDR position in the RPC message */
	struct rr_seg seg;
};

/* A write chunk, or the reply chunk: segs[first .. first + nsegs). */
struct rr_chunk {
	uint32_t first;
	uint32_t nsegs;
};

struct rr_prop {
	uint32_t id;
	uint32_t value;		/* RBSIZ or BRS; the default if empty */
	bool present;		/* carried with data (not defaulted) */
};

/**
 * struct rr_hdr - one transport header, either version
 * @payload: for RR_MSG, offset of the RPC message after the header
 * @err_a, @err_b: the error's arguments (ERR_VERS low/high,
 *	READ/WRITE_CHUNKS max chunks, SEGMENTS max segments,
 *	WRITE_RESOURCE chunk index/length needed, REPLY_RESOURCE length)
 */
struct rr_hdr {
	uint32_t xid;
	uint32_t vers;
	uint32_t credit;
	uint32_t htype;
	uint32_t flags;		/* v2 */
	uint32_t inv_handle;	/* v2, RR_MSG/RR_NOMSG */

	uint32_t nreads;
	struct rr_read reads[RR_MAX_READS];
	uint32_t nwrites;
	struct rr_chunk writes[RR_MAX_WRITES];
	bool has_reply;
	struct rr_chunk reply;
	uint32_t nsegs;
	struct rr_seg segs[RR_MAX_SEGS];

	uint32_t err;
	uint32_t err_a;
	uint32_t err_b;

	uint32_t nprops;	/* known properties carried */
	struct rr_prop props[RR_MAX_PROPS];

	size_t payload;
};

/**
 * struct rr_limits - what a receiver accepts
 * @vers_low, @vers_high: versions spoken (ERR_VERS range)
 * @max_reads: read segments; beyond: ERR_READ_CHUNKS
 * @max_writes: write chunks; beyond: ERR_WRITE_CHUNKS
 * @max_segs: segments in one write or reply chunk; beyond: ERR_SEGMENTS
 */
struct rr_limits {
	uint32_t vers_low;
	uint32_t vers_high;
	uint32_t max_reads;
	uint32_t max_writes;
	uint32_t max_segs;
};

/**
 * struct rr_status - a decode verdict
 * @err: 0, or the RR_ERR_* a responder answers with
 * @arg: that error's argument (the limit exceeded)
 * @where: octet offset of the field that failed, for diagnostics
 */
struct rr_status {
	uint32_t err;
	uint32_t arg;
	size_t where;
};

int rr_decode(const void *buf, size_t len, const struct rr_limits *lim,
	      struct rr_hdr *h, struct rr_status *st);
int rr_encode(const struct rr_hdr *h, void *buf, size_t room, size_t *len);

void rr_hdr_init(struct rr_hdr *h, uint32_t vers, uint32_t xid,
		 uint32_t credit, uint32_t htype);
int rr_add_read(struct rr_hdr *h, uint32_t position, const struct rr_seg *s);
int rr_add_write(struct rr_hdr *h, const struct rr_seg *s, uint32_t n);
int rr_set_reply(struct rr_hdr *h, const struct rr_seg *s, uint32_t n);
int rr_set_error(struct rr_hdr *h, const struct rr_hdr *failed,
		 uint32_t credit, const struct rr_status *st,
		 const struct rr_limits *lim);
int rr_add_prop(struct rr_hdr *h, uint32_t id, uint32_t value);
const struct rr_prop *rr_find_prop(const struct rr_hdr *h, uint32_t id);

void rr_cm_encode(uint8_t out[RR_CM_LEN], uint8_t flags, uint32_t send_size,
		  uint32_t recv_size);
int rr_cm_decode(const void *pd, size_t len, uint8_t *flags,
		 uint32_t *send_size, uint32_t *recv_size);

const char *rr_err_name(uint32_t err);

#endif
