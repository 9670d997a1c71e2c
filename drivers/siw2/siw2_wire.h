/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 wire formats: every on-the-wire layout siw2 parses or builds, with
 * accessors. Shared by the protocol code and the KUnit suites. Requirement
 * IDs refer to ../shared/specs/DIGEST.md.
 */
#ifndef _SIW2_WIRE_H
#define _SIW2_WIRE_H

#include <linux/build_bug.h>
#include <linux/compiler_attributes.h>
#include <linux/types.h>
#include <asm/byteorder.h>

/* ---- MPA Request/Reply frame (RFC 5044 7.1, RFC 6581 6; BASE-MPA-1) ---- */

#define SIW2_MPA_KEY_LEN	16
#define SIW2_MPA_KEY_REQ	"MPA ID Req Frame"
#define SIW2_MPA_KEY_REP	"MPA ID Rep Frame"

/* Octet 16: M C R S, then the 4 Res bits (BASE-MPA-2, MPA2-HDR-2). */
#define SIW2_MPA_F_MARKERS	0x80	/* sender wants Markers */
#define SIW2_MPA_F_CRC		0x40	/* CRC used (BASE-MPA-4) */
#define SIW2_MPA_F_REJECT	0x20	/* Reply only: connection rejected */
#define SIW2_MPA_F_ENHANCED	0x10	/* S: Private Data starts with IRD/ORD */
#define SIW2_MPA_F_RES		0x0f

/*
 * siw2's capability bits in Res, meaningful with Rev 2 only (DEC-4).
 * 0x08 stays free: Linux siw uses it privately.
 */
#define SIW2_MPA_CAP_RDMAP_V2	0x04
#define SIW2_MPA_CAP_COMMIT	0x02
#define SIW2_MPA_CAPS		(SIW2_MPA_CAP_RDMAP_V2 | SIW2_MPA_CAP_COMMIT)
/*
 * Reply only: the Responder understood the bits. Linux siw answers with
 * the Request's own flags octet, Res included, so an unconfirmed echo must
 * not count as agreement (amends DEC-4, which kept 0x01 reserved).
 */
#define SIW2_MPA_CAP_ACK	0x01

#define SIW2_MPA_REV1		1
#define SIW2_MPA_REV2		2

/* PD_Length bound on the wire (BASE-MPA-5, MPA2-HDR-7). */
#define SIW2_MPA_MAX_PD_WIRE	512

struct siw2_mpa_hdr {
	u8 key[SIW2_MPA_KEY_LEN];
	u8 flags;
	u8 rev;
	__be16 pd_len;
} __packed;
static_assert(sizeof(struct siw2_mpa_hdr) == 20);

static inline u16 siw2_mpa_pd_len(const struct siw2_mpa_hdr *h)
{
	return be16_to_cpu(h->pd_len);
}

/* ---- RFC 6581 9: enhanced connection data, first 4 octets of PD ---- */

#define SIW2_MPA_V2_P2P		0x8000	/* A, IRD word */
#define SIW2_MPA_V2_FPDU_RTR	0x4000	/* B, IRD word (never offered, DEC-3) */
#define SIW2_MPA_V2_WRITE_RTR	0x8000	/* C, ORD word */
#define SIW2_MPA_V2_READ_RTR	0x4000	/* D, ORD word */
#define SIW2_MPA_V2_VAL		0x3fff	/* IRD/ORD value */
#define SIW2_MPA_V2_NO_NEG	0x3fff	/* "ULP negotiates" (MPA2-IRD-6) */

struct siw2_mpa_v2 {
	__be16 ird;
	__be16 ord;
} __packed;
static_assert(sizeof(struct siw2_mpa_v2) == 4);

static inline u16 siw2_mpa_v2_ird(const struct siw2_mpa_v2 *v)
{
	return be16_to_cpu(v->ird) & SIW2_MPA_V2_VAL;
}

static inline u16 siw2_mpa_v2_ord(const struct siw2_mpa_v2 *v)
{
	return be16_to_cpu(v->ord) & SIW2_MPA_V2_VAL;
}

/* ---- MPA FPDU framing (RFC 5044 5; BASE-MPA-8, BASE-MPA-9) ---- */

#define SIW2_MPA_HDR_LEN	2	/* ULPDU_Length */
#define SIW2_MPA_CRC_LEN	4	/* CRC32c, stored little-endian */

/* Pad making 2 + ULPDU_Length + PAD a multiple of 4. */
static inline unsigned int siw2_mpa_pad(unsigned int ulpdu_len)
{
	return (4 - ((SIW2_MPA_HDR_LEN + ulpdu_len) & 3)) & 3;
}

/* ---- DDP/RDMAP control word, FPDU octets 2..3 (BASE-DDP-1, DIGEST 1.1) ---- */

#define SIW2_DDP_F_TAGGED	0x8000
#define SIW2_DDP_F_LAST		0x4000
#define SIW2_DDP_RSVD		0x3c00
#define SIW2_DDP_DV_MASK	0x0300
#define SIW2_DDP_DV1		0x0100	/* DDP version 1 */
#define SIW2_RDMAP_RV_MASK	0x00c0
#define SIW2_RDMAP_RV_SHIFT	6
#define SIW2_RDMAP_OP_MASK	0x001f	/* 5 bits, DEC-1 */

/* RDMAP versions (BASE-RDMAP-1; V2-HDR-1 once negotiated, DEC-4). */
#define SIW2_RDMAP_V1		1
#define SIW2_RDMAP_V2		2

/*
 * RDMAP opcodes, the seeds' numbering only (DIGEST 1.2, DEC-19): RFC 5040,
 * then rdmap-ext-04 (RV 1 or 2), rdma-commit, rdmap-ext-v2 (RV 2 only).
 */
enum siw2_rdmap_op {
	SIW2_OP_WRITE = 0x0,
	SIW2_OP_READ_REQ = 0x1,
	SIW2_OP_READ_RESP = 0x2,
	SIW2_OP_SEND = 0x3,
	SIW2_OP_SEND_INV = 0x4,
	SIW2_OP_SEND_SE = 0x5,
	SIW2_OP_SEND_SE_INV = 0x6,
	SIW2_OP_TERMINATE = 0x7,
	SIW2_OP_IMM = 0x8,		/* EXT-IMM-*, AMB-1 */
	SIW2_OP_IMM_SE = 0x9,
	SIW2_OP_ATOMIC_REQ = 0xa,	/* EXT-ATOMIC-*, QN 1 */
	SIW2_OP_ATOMIC_RESP = 0xb,	/* QN 3 */
	SIW2_OP_COMMIT_REQ = 0xc,	/* COMMIT-HDR-*, QN 1, AMB-1 */
	SIW2_OP_COMMIT_RESP = 0xd,	/* QN 3 */
	SIW2_OP_READ_V2_REQ = 0x11,	/* V2-READ-*, QN 1 */
	SIW2_OP_READ_V2_RESP = 0x12,	/* QN 3, untagged */
	SIW2_OP_SEND_IMM = 0x13,	/* V2-IMM-* */
	SIW2_OP_SEND_INV_IMM = 0x14,
	SIW2_OP_SEND_SE_IMM = 0x15,
	SIW2_OP_SEND_SE_INV_IMM = 0x16,
};

/* Untagged queue numbers (RFC 5040; QN 3 from rdmap-ext). */
enum siw2_qn {
	SIW2_QN_SEND = 0,
	SIW2_QN_READ_REQ = 1,
	SIW2_QN_TERMINATE = 2,
	SIW2_QN_RESPONSE = 3,
};

static inline u16 siw2_ddp_ctrl(bool tagged, bool last, u8 rv, u8 op)
{
	return (tagged ? SIW2_DDP_F_TAGGED : 0) | (last ? SIW2_DDP_F_LAST : 0) |
	       SIW2_DDP_DV1 | (rv << SIW2_RDMAP_RV_SHIFT) |
	       (op & SIW2_RDMAP_OP_MASK);
}

/* Tagged DDP header, 14 octets (BASE-DDP-2). */
struct siw2_ddp_tagged {
	__be16 ctrl;
	__be32 stag;
	__be64 to;
} __packed;
static_assert(sizeof(struct siw2_ddp_tagged) == 14);

/* Untagged DDP header, 18 octets (BASE-DDP-2); rsvd_ulp = Invalidate STag. */
struct siw2_ddp_untagged {
	__be16 ctrl;
	__be32 rsvd_ulp;
	__be32 qn;
	__be32 msn;
	__be32 mo;
} __packed;
static_assert(sizeof(struct siw2_ddp_untagged) == 18);

/* Longest DDP plus RDMAP header of any message (an Atomic Request). */
#define SIW2_DDP_HDR_MAX	(18 + 52)

/* RDMA Read Request header, after the untagged header on QN 1. */
struct siw2_rdmap_read_req {
	__be32 sink_stag;
	__be64 sink_to;
	__be32 read_size;
	__be32 src_stag;
	__be64 src_to;
} __packed;
static_assert(sizeof(struct siw2_rdmap_read_req) == 28);

/* Atomic Operation Request header, after the untagged header on QN 1. */
struct siw2_rdmap_atomic_req {
	__be32 aopcode;		/* low 4 bits; the rest reserved (EXT-ATOMIC-6) */
	__be32 req_id;
	__be32 stag;
	__be64 to;
	__be64 add_swap;
	__be64 add_swap_mask;
	__be64 cmp;
	__be64 cmp_mask;
} __packed;
static_assert(sizeof(struct siw2_rdmap_atomic_req) == 52);

#define SIW2_AOP_MASK		0xf
/* Atomic Operation Subcodes (rdmap-ext-04 10) */
#define SIW2_AOP_FETCH_ADD	0x0
#define SIW2_AOP_SWAP		0x1
#define SIW2_AOP_CMP_SWAP	0x2

/* Atomic Operation Response header, after the untagged header on QN 3. */
struct siw2_rdmap_atomic_resp {
	__be32 orig_req_id;
	__be64 orig_value;
} __packed;
static_assert(sizeof(struct siw2_rdmap_atomic_resp) == 12);

/*
 * RDMA Commit Request header, after the untagged header on QN 1
 * (COMMIT-HDR-3, COMMIT-HDR-5): one region [sink_to, sink_to + sink_len)
 * (DEC-12). Octets after it, the draft's TBD extensions, are no header
 * siw2 knows (AMB-14).
 */
struct siw2_rdmap_commit_req {
	__be32 req_id;
	__be32 sink_stag;
	__be32 sink_len;
	__be64 sink_to;
} __packed;
static_assert(sizeof(struct siw2_rdmap_commit_req) == 20);

/*
 * siw2's log update (COMMIT-ATOM-2, SIW2-DEC-1): the one extension siw2
 * reads in the octets after a Commit Request's region (AMB-14). Once the
 * commit succeeded, the 8 octets of @value go to [log_to, log_to + 8) of
 * @log_stag in one aligned store, made durable before the Response. Any
 * other octets after the region are answered with Status 2.
 */
struct siw2_rdmap_commit_log {
	__be16 type;		/* SIW2_COMMIT_EXT_LOG */
	__be16 rsvd;		/* zero */
	__be32 log_stag;
	__be64 log_to;
	u8 value[8];		/* stored as they come, like an 8-octet Write */
} __packed;
static_assert(sizeof(struct siw2_rdmap_commit_log) == 24);

/* The extension type: the high bit marks it as siw2's own (SIW2-DEC-1). */
#define SIW2_COMMIT_EXT_LOG	0x8001

/* RDMA Commit Response header, after the untagged header on QN 3. */
struct siw2_rdmap_commit_resp {
	__be32 orig_req_id;	/* the Request's req_id (COMMIT-HDR-6) */
	__be32 status;		/* enum siw2_commit_status */
} __packed;
static_assert(sizeof(struct siw2_rdmap_commit_resp) == 8);

/*
 * Commit Response Status: the draft defines 0 only, siw2 the rest
 * (DEC-13). A non-zero Status is no Terminate: the stream lives on
 * (COMMIT-ERR-3).
 */
enum siw2_commit_status {
	SIW2_COMMIT_ST_OK = 0,
	SIW2_COMMIT_ST_MEDIA = 1,	/* durability or media failure; data still in the buffer */
	SIW2_COMMIT_ST_LIMITS = 2,	/* beyond implementation limits, e.g. AMB-14 */
	SIW2_COMMIT_ST_RETRY = 3,	/* transient: the Requester may retry */
	SIW2_COMMIT_ST_NOT_DURABLE = 4,	/* visible, not all durable (SIW2-DEC-2) */
	SIW2_COMMIT_ST_LOG_REFUSED = 5,	/* durable word, volatile range (SIW2-DEC-1) */
};

/* Immediate Data: the message's 8 octets, or a Send with Immediate's last. */
#define SIW2_IMM_LEN		8

/* RDMA Read Request V2 header, after the untagged header on QN 1. */
struct siw2_rdmap_read_v2_req {
	__be32 read_size;
	__be32 src_stag;
	__be64 src_to;
} __packed;
static_assert(sizeof(struct siw2_rdmap_read_v2_req) == 16);

/* Terminate Control (RFC 5040 4.8): Layer, EType, Code, M/D/R flags. */
#define SIW2_TERM_F_M		0x00008000	/* DDP Segment Length valid */
#define SIW2_TERM_F_D		0x00004000	/* DDP header included */
#define SIW2_TERM_F_R		0x00002000	/* RDMAP header included */

static inline u32 siw2_term_ctrl(u8 layer, u8 etype, u8 code)
{
	return (u32)(layer & 0xf) << 28 | (u32)(etype & 0xf) << 24 |
	       (u32)code << 16;
}

/* ---- Terminate layers and the RDMAP codes used so far (DIGEST 3.4) ---- */

#define SIW2_TERM_LAYER_RDMAP		0
#define SIW2_TERM_LAYER_DDP		1
#define SIW2_TERM_ETYPE_REMOTE_OP	2
#define SIW2_TERM_RDMAP_BAD_OPCODE	0x06

/* ---- Terminate codes for MPA errors: Layer 2, EType 0 (AMB-5) ---- */

#define SIW2_TERM_LAYER_LLP		2
#define SIW2_TERM_ETYPE_MPA		0
#define SIW2_TERM_MPA_TCP_LOST		0x01
#define SIW2_TERM_MPA_CRC		0x02
#define SIW2_TERM_MPA_MARKER		0x03
#define SIW2_TERM_MPA_BAD_FRAME		0x04
#define SIW2_TERM_MPA_CATASTROPHIC	0x05
#define SIW2_TERM_MPA_NO_IRD		0x06
#define SIW2_TERM_MPA_NO_RTR		0x07

#endif /* _SIW2_WIRE_H */
