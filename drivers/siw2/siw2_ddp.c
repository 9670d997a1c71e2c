// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: receive-side decoding of the DDP/RDMAP header of one FPDU
 * (RFC 5041, RFC 5040), after MPA framing and CRC were checked, and of a
 * received Terminate's control word. Requirement IDs refer to
 * ../shared/specs/DIGEST.md.
 *
 * Pure functions over buffers, tested by KUnit. One table describes every
 * opcode of RFC 5040 and of the extension drafts (RFC 7306's Immediate
 * Data and Atomics and rdma-commit's Commit Request and Response on RV 1
 * and 2, RDMAP v2's Read V2 and Send with Immediate Data on RV 2 only);
 * the extensions are accepted only where the connection negotiated them.
 *
 * Reserved fields are not checked on receive: the DDP Rsvd bits (0x3C of
 * the DDP control octet), the RDMAP Rsv bits, and the RsvdULP of a Send
 * without Invalidate. RFC 5041 and RFC 5040 define them as "set to zero
 * on transmit, not checked (ignored) on receive", so a non-zero value is
 * not an error and the value is not used (BASE-DDP-1, BASE-RDMAP-2).
 */

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "siw2_compat.h"

#include "siw2_ddp.h"

/* siw2_rdmap_op_desc.flags */
#define SIW2_OPF_INVAL		0x01	/* RsvdULP[8..39] is the STag to invalidate */
#define SIW2_OPF_SINGLE		0x02	/* one segment only: L=1, MO 0 */
#define SIW2_OPF_NO_PAYLOAD	0x04	/* nothing after the RDMAP header */
#define SIW2_OPF_EXT		0x08	/* needs SIW2_DDP_FEAT_EXT */
#define SIW2_OPF_IMM		0x10	/* 8 octets of Immediate Data: a length error is 0/2/0xFF */
#define SIW2_OPF_IMM_TAIL	0x20	/* the L=1 segment is the 8-octet immediate (DEC-6) */
#define SIW2_OPF_COMMIT		0x40	/* needs SIW2_DDP_FEAT_COMMIT */

/**
 * struct siw2_rdmap_op_desc - what the receiver expects of one opcode
 * @name: for logs and traces
 * @rvs: BIT(rv) for every RDMAP version the opcode is valid on; 0 means
 *	"reserved": Terminate 0/2/0x06
 * @tagged: the T bit the opcode must carry
 * @qn: untagged: the only queue number the opcode may use
 * @hdr_len: RDMAP header octets after the DDP header
 * @flags: SIW2_OPF_*
 */
struct siw2_rdmap_op_desc {
	const char *name;
	u8 rvs;
	bool tagged;
	u8 qn;
	u8 hdr_len;
	u8 flags;
};

#define SIW2_RV1 BIT(SIW2_RDMAP_V1)
#define SIW2_RV2 BIT(SIW2_RDMAP_V2)
#define SIW2_RV12 (SIW2_RV1 | SIW2_RV2)

/*
 * Indexed by the 5-bit opcode (DEC-1; DIGEST 1.2, 2.2.1, 2.3.2, 2.4.1, 3.3).
 * Every operation is valid on RV 2 too (V2-HDR-1); RDMA Commit carries the
 * connection's RV, 1 or 2 (COMMIT-HDR-1, AMB-4).
 */
static const struct siw2_rdmap_op_desc siw2_rdmap_ops[32] = {
	[SIW2_OP_WRITE] = {
		.name = "RDMA Write", .rvs = SIW2_RV12, .tagged = true,
	},
	[SIW2_OP_READ_REQ] = {
		.name = "RDMA Read Request", .rvs = SIW2_RV12,
		.qn = SIW2_QN_READ_REQ,
		.hdr_len = sizeof(struct siw2_rdmap_read_req),
		.flags = SIW2_OPF_SINGLE | SIW2_OPF_NO_PAYLOAD,
	},
	[SIW2_OP_READ_RESP] = {
		.name = "RDMA Read Response", .rvs = SIW2_RV12, .tagged = true,
	},
	[SIW2_OP_SEND] = {
		.name = "Send", .rvs = SIW2_RV12, .qn = SIW2_QN_SEND,
	},
	[SIW2_OP_SEND_INV] = {
		.name = "Send with Invalidate", .rvs = SIW2_RV12,
		.qn = SIW2_QN_SEND, .flags = SIW2_OPF_INVAL,
	},
	[SIW2_OP_SEND_SE] = {
		.name = "Send with SE", .rvs = SIW2_RV12, .qn = SIW2_QN_SEND,
	},
	[SIW2_OP_SEND_SE_INV] = {
		.name = "Send with SE and Invalidate", .rvs = SIW2_RV12,
		.qn = SIW2_QN_SEND, .flags = SIW2_OPF_INVAL,
	},
	[SIW2_OP_TERMINATE] = {
		.name = "Terminate", .rvs = SIW2_RV12, .qn = SIW2_QN_TERMINATE,
		.hdr_len = SIW2_TERM_CTRL_LEN, .flags = SIW2_OPF_SINGLE,
	},
	/* EXT-HDR-4/5, EXT-IMM-6/9/10/12, EXT-ATOMIC-10/14/19/20 */
	[SIW2_OP_IMM] = {
		.name = "Immediate Data", .rvs = SIW2_RV12,
		.qn = SIW2_QN_SEND, .hdr_len = SIW2_IMM_LEN,
		.flags = SIW2_OPF_EXT | SIW2_OPF_SINGLE | SIW2_OPF_NO_PAYLOAD |
			 SIW2_OPF_IMM,
	},
	[SIW2_OP_IMM_SE] = {
		.name = "Immediate Data with SE", .rvs = SIW2_RV12,
		.qn = SIW2_QN_SEND, .hdr_len = SIW2_IMM_LEN,
		.flags = SIW2_OPF_EXT | SIW2_OPF_SINGLE | SIW2_OPF_NO_PAYLOAD |
			 SIW2_OPF_IMM,
	},
	[SIW2_OP_ATOMIC_REQ] = {
		.name = "Atomic Request", .rvs = SIW2_RV12,
		.qn = SIW2_QN_READ_REQ,
		.hdr_len = sizeof(struct siw2_rdmap_atomic_req),
		.flags = SIW2_OPF_EXT | SIW2_OPF_SINGLE | SIW2_OPF_NO_PAYLOAD,
	},
	[SIW2_OP_ATOMIC_RESP] = {
		.name = "Atomic Response", .rvs = SIW2_RV12,
		.qn = SIW2_QN_RESPONSE,
		.hdr_len = sizeof(struct siw2_rdmap_atomic_resp),
		.flags = SIW2_OPF_EXT | SIW2_OPF_SINGLE | SIW2_OPF_NO_PAYLOAD,
	},
	/*
	 * COMMIT-HDR-2/3/4/5/6/7, AMB-15: single untagged segments, MO 0.
	 * A Request may have octets after its header: no DDP or RDMAP error
	 * but payload, which the Responder answers with Status 2 (AMB-14).
	 */
	[SIW2_OP_COMMIT_REQ] = {
		.name = "RDMA Commit Request", .rvs = SIW2_RV12,
		.qn = SIW2_QN_READ_REQ,
		.hdr_len = sizeof(struct siw2_rdmap_commit_req),
		.flags = SIW2_OPF_COMMIT | SIW2_OPF_SINGLE | SIW2_OPF_INVAL,
	},
	[SIW2_OP_COMMIT_RESP] = {
		.name = "RDMA Commit Response", .rvs = SIW2_RV12,
		.qn = SIW2_QN_RESPONSE,
		.hdr_len = sizeof(struct siw2_rdmap_commit_resp),
		.flags = SIW2_OPF_COMMIT | SIW2_OPF_SINGLE | SIW2_OPF_NO_PAYLOAD,
	},
	/* V2-HDR-4/5/6, V2-READ-1/4/5, V2-IMM-7/8/10 */
	[SIW2_OP_READ_V2_REQ] = {
		.name = "RDMA Read V2 Request", .rvs = SIW2_RV2,
		.qn = SIW2_QN_READ_REQ,
		.hdr_len = sizeof(struct siw2_rdmap_read_v2_req),
		.flags = SIW2_OPF_EXT | SIW2_OPF_SINGLE | SIW2_OPF_NO_PAYLOAD,
	},
	[SIW2_OP_READ_V2_RESP] = {
		.name = "RDMA Read V2 Response", .rvs = SIW2_RV2,
		.qn = SIW2_QN_RESPONSE, .flags = SIW2_OPF_EXT,
	},
	[SIW2_OP_SEND_IMM] = {
		.name = "Send with Immediate Data", .rvs = SIW2_RV2,
		.qn = SIW2_QN_SEND, .flags = SIW2_OPF_EXT | SIW2_OPF_IMM_TAIL,
	},
	[SIW2_OP_SEND_INV_IMM] = {
		.name = "Send with Invalidate and Immediate Data",
		.rvs = SIW2_RV2, .qn = SIW2_QN_SEND,
		.flags = SIW2_OPF_EXT | SIW2_OPF_IMM_TAIL | SIW2_OPF_INVAL,
	},
	[SIW2_OP_SEND_SE_IMM] = {
		.name = "Send with SE and Immediate Data", .rvs = SIW2_RV2,
		.qn = SIW2_QN_SEND, .flags = SIW2_OPF_EXT | SIW2_OPF_IMM_TAIL,
	},
	[SIW2_OP_SEND_SE_INV_IMM] = {
		.name = "Send with Invalidate and SE and Immediate Data",
		.rvs = SIW2_RV2, .qn = SIW2_QN_SEND,
		.flags = SIW2_OPF_EXT | SIW2_OPF_IMM_TAIL | SIW2_OPF_INVAL,
	},
};

/**
 * siw2_rdmap_op_name - name of an RDMAP opcode
 * @op: the opcode; only its low 5 bits count
 *
 * Return: a static string, "reserved" for an unassigned opcode.
 */
const char *siw2_rdmap_op_name(u8 op)
{
	const char *name = siw2_rdmap_ops[op & SIW2_RDMAP_OP_MASK].name;

	return name ? name : "reserved";
}

/**
 * siw2_rdmap_op_tagged - is an opcode's message tagged?
 * @op: the opcode; only its low 5 bits count
 *
 * Return: the T bit its segments carry.
 */
bool siw2_rdmap_op_tagged(u8 op)
{
	return siw2_rdmap_ops[op & SIW2_RDMAP_OP_MASK].tagged;
}

/**
 * siw2_rdmap_op_qn - the queue number of an untagged opcode
 * @op: the opcode; only its low 5 bits count
 *
 * Return: the one queue its messages use (0 for tagged ones).
 */
u32 siw2_rdmap_op_qn(u8 op)
{
	return siw2_rdmap_ops[op & SIW2_RDMAP_OP_MASK].qn;
}

/**
 * siw2_rdmap_send_op - the opcode of a Send
 * @inv: it invalidates an STag at the receiver
 * @se: Solicited Event
 * @imm: it ends with 8 octets of Immediate Data (RDMAP v2)
 *
 * Return: one of the eight Send opcodes (RFC 5040 4.3, V2-HDR-4).
 */
u8 siw2_rdmap_send_op(bool inv, bool se, bool imm)
{
	static const u8 ops[2][2][2] = {
		{ { SIW2_OP_SEND, SIW2_OP_SEND_INV },
		  { SIW2_OP_SEND_SE, SIW2_OP_SEND_SE_INV } },
		{ { SIW2_OP_SEND_IMM, SIW2_OP_SEND_INV_IMM },
		  { SIW2_OP_SEND_SE_IMM, SIW2_OP_SEND_SE_INV_IMM } },
	};

	return ops[imm][se][inv];
}

/**
 * siw2_ddp_hdr_len - DDP plus RDMAP header octets a control word announces
 * @ctrl: the DDP/RDMAP control word (FPDU octets 2..3), host order
 *
 * For a Send with Immediate Data's last segment this includes the 8
 * octets of Immediate Data. An opcode no version defines gets the bare
 * DDP header: siw2_ddp_decode() refuses it anyway.
 *
 * Return: the length, at most 70 (an Atomic Request).
 */
u32 siw2_ddp_hdr_len(u16 ctrl)
{
	const struct siw2_rdmap_op_desc *op =
		&siw2_rdmap_ops[ctrl & SIW2_RDMAP_OP_MASK];
	u32 len;

	if (ctrl & SIW2_DDP_F_TAGGED)
		return sizeof(struct siw2_ddp_tagged);
	len = sizeof(struct siw2_ddp_untagged) + op->hdr_len;
	if ((op->flags & SIW2_OPF_IMM_TAIL) && (ctrl & SIW2_DDP_F_LAST))
		len += SIW2_IMM_LEN;
	return len;
}

/*
 * An optional operation the connection did not negotiate is refused as
 * an opcode the receiver does not support: 0/2/0x06, Remote Operation
 * Error / Unexpected OpCode, what COMMIT-DISC-2 says a peer without
 * Commit reports and what un-negotiated RFC 7306 messages get (DEC-1).
 */
static bool siw2_ddp_op_negotiated(const struct siw2_rdmap_op_desc *op,
				   u8 feat)
{
	if ((op->flags & SIW2_OPF_EXT) && !(feat & SIW2_DDP_FEAT_EXT))
		return false;
	return !(op->flags & SIW2_OPF_COMMIT) || (feat & SIW2_DDP_FEAT_COMMIT);
}

static int siw2_ddp_fail(struct siw2_term_code *term, u8 layer, u8 etype,
			 u8 code)
{
	term->layer = layer;
	term->etype = etype;
	term->code = code;
	return -EPROTO;
}

/**
 * siw2_ddp_decode - decode and validate one DDP segment's headers
 * @ulpdu: the ULPDU, i.e. the FPDU after its 2-octet ULPDU_Length
 * @ulpdu_len: ULPDU_Length
 * @rv: the connection's RDMAP version (1, or 2 when negotiated)
 * @feat: SIW2_DDP_FEAT_* the connection negotiated: EXT for RFC 7306
 *	Immediate Data and Atomics (with @rv 2 also Read V2 and Send with
 *	Immediate), COMMIT for RDMA Commit Request and Response
 * @info: the decoded headers; on error, the fields decoded so far
 * @term: on error, the Terminate the receiver must send (DIGEST 3.4)
 *
 * The checks, in this order (the first failing one decides):
 *
 * * fewer than 2 octets: DDP Local Catastrophic 1/0/0x00
 * * DV != 1: tagged 1/1/0x04, untagged 1/2/0x06 (BASE-DDP-1)
 * * RV != @rv: 0/2/0x05 (BASE-RDMAP-1)
 * * opcode not valid on @rv, including any opcode with 0x10 set on RV 1,
 *   or one of a family not in @feat: 0/2/0x06 (DEC-1, COMMIT-DISC-2)
 * * T bit other than the opcode's: 0/2/0x06 (DIGEST 3.3)
 * * ULPDU shorter than the DDP header (14 tagged, 18 untagged;
 *   BASE-DDP-2): 1/0/0x00. RFC 5041 has no code for a truncated segment,
 *   and one whose header is cut off names no STag or queue, so neither
 *   EType 1 nor 2 fits; the stream can only be torn down.
 * * untagged QN other than the opcode's: 1/2/0x01 Invalid QN
 * * single-segment messages (Read Request and V2, Terminate, Immediate
 *   Data, Atomic and Commit Request and Response): MO != 0: 1/2/0x04
 *   Invalid MO; L=0: 0/2/0x06
 * * ULPDU shorter than DDP plus RDMAP header (Read Request 46, Terminate
 *   22, Commit Request 38, ...), or a message without payload (Read
 *   Requests, Atomics, Commit Response) with octets after its header:
 *   0/2/0x06. The header length is defined by the opcode, so a message
 *   of another length is not a valid message of that opcode; using the
 *   same code for too short and too long keeps "Read Request of the wrong
 *   length" a single error.
 * * Immediate Data not exactly 8 octets, or a Send with Immediate Data
 *   whose last segment is not exactly the 8 octets: 0/2/0xFF (EXT-IMM-12,
 *   V2-IMM-8, DEC-9)
 *
 * A Commit Request longer than its header is valid: @info->payload_len
 * counts the octets after it (AMB-14).
 *
 * Reserved bits are ignored (see the top of this file). MSN and MO
 * sequencing, STag validation and buffer lookup are the caller's.
 *
 * Return: 0, or -EPROTO with @term set.
 */
int siw2_ddp_decode(const void *ulpdu, size_t ulpdu_len, u8 rv, u8 feat,
		    struct siw2_ddp_info *info, struct siw2_term_code *term)
{
	const struct siw2_rdmap_op_desc *op;
	const u8 *p = ulpdu;
	size_t ddp_len, hdr_len;
	u16 ctrl;

	memset(info, 0, sizeof(*info));
	if (ulpdu_len < sizeof(ctrl))
		return siw2_ddp_fail(term, SIW2_TERM_LAYER_DDP,
				     SIW2_TERM_ETYPE_CATASTROPHIC, 0);
	ctrl = get_unaligned_be16(p);
	info->tagged = ctrl & SIW2_DDP_F_TAGGED;
	info->last = ctrl & SIW2_DDP_F_LAST;
	info->dv = (ctrl & SIW2_DDP_DV_MASK) >> 8;
	info->rv = (ctrl & SIW2_RDMAP_RV_MASK) >> SIW2_RDMAP_RV_SHIFT;
	info->opcode = ctrl & SIW2_RDMAP_OP_MASK;

	if (info->dv != (SIW2_DDP_DV1 >> 8)) {
		if (info->tagged)
			return siw2_ddp_fail(term, SIW2_TERM_LAYER_DDP,
					     SIW2_TERM_ETYPE_DDP_TAGGED,
					     SIW2_TERM_DDP_T_BAD_DV);
		return siw2_ddp_fail(term, SIW2_TERM_LAYER_DDP,
				     SIW2_TERM_ETYPE_DDP_UNTAGGED,
				     SIW2_TERM_DDP_U_BAD_DV);
	}
	if (info->rv != rv)
		return siw2_ddp_fail(term, SIW2_TERM_LAYER_RDMAP,
				     SIW2_TERM_ETYPE_REMOTE_OP,
				     SIW2_TERM_RDMAP_BAD_RV);
	op = &siw2_rdmap_ops[info->opcode];
	if (!(op->rvs & BIT(info->rv)) || info->tagged != op->tagged ||
	    !siw2_ddp_op_negotiated(op, feat))
		return siw2_ddp_fail(term, SIW2_TERM_LAYER_RDMAP,
				     SIW2_TERM_ETYPE_REMOTE_OP,
				     SIW2_TERM_RDMAP_BAD_OPCODE);

	ddp_len = info->tagged ? sizeof(struct siw2_ddp_tagged) :
				 sizeof(struct siw2_ddp_untagged);
	if (ulpdu_len < ddp_len)
		return siw2_ddp_fail(term, SIW2_TERM_LAYER_DDP,
				     SIW2_TERM_ETYPE_CATASTROPHIC, 0);
	if (info->tagged) {
		const struct siw2_ddp_tagged *h = ulpdu;

		info->stag = be32_to_cpu(h->stag);
		info->to = be64_to_cpu(h->to);
	} else {
		const struct siw2_ddp_untagged *h = ulpdu;

		if (op->flags & SIW2_OPF_INVAL)
			info->inval_stag = be32_to_cpu(h->rsvd_ulp);
		info->qn = be32_to_cpu(h->qn);
		info->msn = be32_to_cpu(h->msn);
		info->mo = be32_to_cpu(h->mo);
		if (info->qn != op->qn)
			return siw2_ddp_fail(term, SIW2_TERM_LAYER_DDP,
					     SIW2_TERM_ETYPE_DDP_UNTAGGED,
					     SIW2_TERM_DDP_U_BAD_QN);
	}
	if (op->flags & SIW2_OPF_SINGLE) {
		if (info->mo)
			return siw2_ddp_fail(term, SIW2_TERM_LAYER_DDP,
					     SIW2_TERM_ETYPE_DDP_UNTAGGED,
					     SIW2_TERM_DDP_U_BAD_MO);
		if (!info->last)
			return siw2_ddp_fail(term, SIW2_TERM_LAYER_RDMAP,
					     SIW2_TERM_ETYPE_REMOTE_OP,
					     SIW2_TERM_RDMAP_BAD_OPCODE);
	}
	hdr_len = ddp_len + op->hdr_len;
	if ((op->flags & SIW2_OPF_IMM_TAIL) && info->last)
		hdr_len += SIW2_IMM_LEN;
	if (ulpdu_len < hdr_len ||
	    ((op->flags & (SIW2_OPF_NO_PAYLOAD | SIW2_OPF_IMM_TAIL)) &&
	     info->last && ulpdu_len != hdr_len))
		return siw2_ddp_fail(term, SIW2_TERM_LAYER_RDMAP,
				     SIW2_TERM_ETYPE_REMOTE_OP,
				     op->flags & (SIW2_OPF_IMM | SIW2_OPF_IMM_TAIL) ?
				     SIW2_TERM_RDMAP_UNSPECIFIED :
				     SIW2_TERM_RDMAP_BAD_OPCODE);
	info->hdr_len = hdr_len;
	info->payload_len = ulpdu_len - hdr_len;

	switch (info->opcode) {
	case SIW2_OP_IMM:
	case SIW2_OP_IMM_SE:
		info->imm = get_unaligned_be64(p + ddp_len);
		return 0;
	case SIW2_OP_SEND_IMM:
	case SIW2_OP_SEND_INV_IMM:
	case SIW2_OP_SEND_SE_IMM:
	case SIW2_OP_SEND_SE_INV_IMM:
		if (info->last)
			info->imm = get_unaligned_be64(p + ddp_len);
		return 0;
	case SIW2_OP_ATOMIC_REQ: {
		const struct siw2_rdmap_atomic_req *a = (const void *)(p + ddp_len);

		/* Reserved bits and unused fields ignored (EXT-ATOMIC-6..9). */
		info->aop = be32_to_cpu(a->aopcode) & SIW2_AOP_MASK;
		info->req_id = be32_to_cpu(a->req_id);
		info->atomic_stag = be32_to_cpu(a->stag);
		info->atomic_to = be64_to_cpu(a->to);
		info->add_swap = be64_to_cpu(a->add_swap);
		info->add_swap_mask = be64_to_cpu(a->add_swap_mask);
		info->cmp = be64_to_cpu(a->cmp);
		info->cmp_mask = be64_to_cpu(a->cmp_mask);
		return 0;
	}
	case SIW2_OP_ATOMIC_RESP: {
		const struct siw2_rdmap_atomic_resp *a = (const void *)(p + ddp_len);

		info->req_id = be32_to_cpu(a->orig_req_id);
		info->orig_value = be64_to_cpu(a->orig_value);
		return 0;
	}
	case SIW2_OP_COMMIT_REQ: {
		const struct siw2_rdmap_commit_req *c = (const void *)(p + ddp_len);

		info->req_id = be32_to_cpu(c->req_id);
		info->sink_stag = be32_to_cpu(c->sink_stag);
		info->sink_len = be32_to_cpu(c->sink_len);
		info->sink_to = be64_to_cpu(c->sink_to);
		return 0;
	}
	case SIW2_OP_COMMIT_RESP: {
		const struct siw2_rdmap_commit_resp *c = (const void *)(p + ddp_len);

		info->req_id = be32_to_cpu(c->orig_req_id);
		info->commit_status = be32_to_cpu(c->status);
		return 0;
	}
	case SIW2_OP_READ_V2_REQ: {
		const struct siw2_rdmap_read_v2_req *r = (const void *)(p + ddp_len);

		info->read_size = be32_to_cpu(r->read_size);
		info->src_stag = be32_to_cpu(r->src_stag);
		info->src_to = be64_to_cpu(r->src_to);
		return 0;
	}
	default:
		break;
	}
	if (info->opcode == SIW2_OP_READ_REQ) {
		const struct siw2_rdmap_read_req *rr = (const void *)(p + ddp_len);

		info->sink_stag = be32_to_cpu(rr->sink_stag);
		info->sink_to = be64_to_cpu(rr->sink_to);
		info->read_size = be32_to_cpu(rr->read_size);
		info->src_stag = be32_to_cpu(rr->src_stag);
		info->src_to = be64_to_cpu(rr->src_to);
	} else if (info->opcode == SIW2_OP_TERMINATE) {
		info->term_ctrl = get_unaligned_be32(p + ddp_len);
	}
	return 0;
}

/* A range of codes of one (Layer, EType), from DIGEST 3.4. */
struct siw2_term_known {
	u8 layer;
	u8 etype;
	u8 lo;
	u8 hi;
};

static const struct siw2_term_known siw2_term_known_codes[] = {
	{ 0, 0, 0x00, 0xff },	/* RDMAP Local Catastrophic, any code */
	{ 0, 1, 0x00, 0x04 },	/* Remote Protection: STag .. TO wrap */
	{ 0, 1, 0x09, 0x09 },	/* STag cannot be invalidated */
	{ 0, 1, 0xff, 0xff },	/* unspecified */
	{ 0, 2, 0x05, 0x09 },	/* Remote Operation: RV .. STag invalidate */
	{ 0, 2, 0xff, 0xff },	/* unspecified */
	{ 1, 0, 0x00, 0x00 },	/* DDP Local Catastrophic */
	{ 1, 1, 0x00, 0x04 },	/* DDP tagged */
	{ 1, 2, 0x01, 0x06 },	/* DDP untagged */
	{ 2, 0, 0x01, 0x07 },	/* MPA (RFC 5044, RFC 6581; AMB-5) */
};

/**
 * siw2_term_code_known - whether DIGEST 3.4 defines a Terminate code
 * @c: Layer, EType and Code
 *
 * Return: true for a defined (Layer, EType, Code).
 */
bool siw2_term_code_known(const struct siw2_term_code *c)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(siw2_term_known_codes); i++) {
		const struct siw2_term_known *k = &siw2_term_known_codes[i];

		if (c->layer == k->layer && c->etype == k->etype &&
		    c->code >= k->lo && c->code <= k->hi)
			return true;
	}
	return false;
}

/*
 * Linux siw (6.12, little-endian hosts) builds the Terminate Control with
 * bitfields that put Layer in the LOW and EType in the HIGH nibble of
 * octet 0, and M/D/R in bits 0x01/0x02/0x04 of octet 2.
 */
#define SIW2_TERM_SIW_F_M	0x01
#define SIW2_TERM_SIW_F_D	0x02
#define SIW2_TERM_SIW_F_R	0x04

/**
 * siw2_ddp_term_parse - read a received Terminate's control word
 * @payload: the Terminate Control and what follows (ULPDU offset 18)
 * @len: octets at @payload
 * @code: Layer, EType and Code
 * @m: DDP Segment Length valid
 * @d: DDP header included
 * @r: RDMAP header included
 * @swapped: set when the Linux siw layout was recognised
 *
 * The RFC 5040 layout: Layer is the top and EType the low nibble of
 * octet 0, Code octet 1, M/D/R 0x80/0x40/0x20 of octet 2. If that reading
 * is not a known code (siw2_term_code_known()) but the nibble-swapped
 * reading of Linux siw is, the swapped reading (flags included) is used.
 * A code known in both readings is taken in the RFC layout: siw's 2/0/5..7
 * and 1/0/0, for instance, then read as 0/2/5..7 and 0/1/0.
 *
 * Return: 0 with a known code; -ENOENT when neither reading is known (the
 * RFC reading is reported); -EMSGSIZE when @len < 4.
 */
int siw2_ddp_term_parse(const void *payload, size_t len,
			struct siw2_term_code *code, bool *m, bool *d, bool *r,
			bool *swapped)
{
	struct siw2_term_code alt;
	const u8 *p = payload;

	*swapped = false;
	if (len < SIW2_TERM_CTRL_LEN)
		return -EMSGSIZE;
	code->layer = p[0] >> 4;
	code->etype = p[0] & 0xf;
	code->code = p[1];
	*m = p[2] & (SIW2_TERM_F_M >> 8);
	*d = p[2] & (SIW2_TERM_F_D >> 8);
	*r = p[2] & (SIW2_TERM_F_R >> 8);
	if (siw2_term_code_known(code))
		return 0;

	alt.layer = p[0] & 0xf;
	alt.etype = p[0] >> 4;
	alt.code = p[1];
	if (!siw2_term_code_known(&alt))
		return -ENOENT;
	*code = alt;
	*m = p[2] & SIW2_TERM_SIW_F_M;
	*d = p[2] & SIW2_TERM_SIW_F_D;
	*r = p[2] & SIW2_TERM_SIW_F_R;
	*swapped = true;
	return 0;
}

/**
 * siw2_commit_log_decode - read the octets after a Commit Request's region
 * @tail: those octets
 * @len: how many there are (the segment's payload)
 * @log: filled with the log update they ask for
 *
 * siw2 knows one thing there: its log update (SIW2-DEC-1), of exactly
 * the extension's length, type and zero reserved bits. Anything else is
 * more than siw2 can do, which the Responder answers with Status 2
 * (AMB-14, COMMIT-VAL-2).
 *
 * Return: true if @tail is a log update.
 */
bool siw2_commit_log_decode(const void *tail, size_t len,
			    struct siw2_commit_log_info *log)
{
	const struct siw2_rdmap_commit_log *t = tail;

	if (len != sizeof(*t) || be16_to_cpu(t->type) != SIW2_COMMIT_EXT_LOG ||
	    t->rsvd)
		return false;
	log->stag = be32_to_cpu(t->log_stag);
	log->to = be64_to_cpu(t->log_to);
	memcpy(&log->value, t->value, sizeof(log->value));
	return true;
}

/**
 * siw2_commit_log_encode - write a log update after a Commit's region
 * @tail: sizeof(struct siw2_rdmap_commit_log) octets
 * @log: what to ask for (SIW2-DEC-1)
 */
void siw2_commit_log_encode(void *tail, const struct siw2_commit_log_info *log)
{
	struct siw2_rdmap_commit_log *t = tail;

	t->type = cpu_to_be16(SIW2_COMMIT_EXT_LOG);
	t->rsvd = 0;
	t->log_stag = cpu_to_be32(log->stag);
	t->log_to = cpu_to_be64(log->to);
	memcpy(t->value, &log->value, sizeof(t->value));
}
