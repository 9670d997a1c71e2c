// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: work requests - what each send queue opcode is, written once.
 *
 * The rules (what an opcode may carry, what it needs from the
 * connection) come from include/uapi/rdma/siw2-wr.h, which the provider
 * shares; the kernel adds what only it has: the completion opcode and the
 * kernel-only IB_WR_REG_MR. The post checks of ib_post_send() and of the
 * send queue ring, the completions and the transmit engine all derive
 * from here. Nothing here calls another file of the driver.
 */

#include <linux/build_bug.h>
#include <rdma/ib_verbs.h>

#include "siw2.h"
#include "siw2_wr.h"

/* The shared names are the kernel's numbers. */
#define SIW2_WR_SAME(a, b) static_assert((int)(a) == (int)(b))

SIW2_WR_SAME(SIW2_SQ_OP_RDMA_WRITE, IB_WR_RDMA_WRITE);
SIW2_WR_SAME(SIW2_SQ_OP_RDMA_WRITE_WITH_IMM, IB_WR_RDMA_WRITE_WITH_IMM);
SIW2_WR_SAME(SIW2_SQ_OP_SEND, IB_WR_SEND);
SIW2_WR_SAME(SIW2_SQ_OP_SEND_WITH_IMM, IB_WR_SEND_WITH_IMM);
SIW2_WR_SAME(SIW2_SQ_OP_RDMA_READ, IB_WR_RDMA_READ);
SIW2_WR_SAME(SIW2_SQ_OP_ATOMIC_CMP_AND_SWP, IB_WR_ATOMIC_CMP_AND_SWP);
SIW2_WR_SAME(SIW2_SQ_OP_ATOMIC_FETCH_AND_ADD, IB_WR_ATOMIC_FETCH_AND_ADD);
SIW2_WR_SAME(SIW2_SQ_OP_LOCAL_INV, IB_WR_LOCAL_INV);
SIW2_WR_SAME(SIW2_SQ_OP_BIND_MW, IB_WR_BIND_MW);
SIW2_WR_SAME(SIW2_SQ_OP_SEND_WITH_INV, IB_WR_SEND_WITH_INV);
SIW2_WR_SAME(SIW2_SQ_OP_RDMA_READ_WITH_INV, IB_WR_RDMA_READ_WITH_INV);
SIW2_WR_SAME(SIW2_SQ_OP_MASKED_ATOMIC_CMP_AND_SWP, IB_WR_MASKED_ATOMIC_CMP_AND_SWP);
SIW2_WR_SAME(SIW2_SQ_OP_MASKED_ATOMIC_FETCH_AND_ADD, IB_WR_MASKED_ATOMIC_FETCH_AND_ADD);
SIW2_WR_SAME(SIW2_SQ_OP_FLUSH, IB_WR_FLUSH);
SIW2_WR_SAME(SIW2_SQ_OP_ATOMIC_WRITE, IB_WR_ATOMIC_WRITE);
static_assert(SIW2_MAX_SGE_RD == SIW2_WR_MAX_SGE_RD);
static_assert((int)SIW2_WR_SEND_WITH_INV_IMM >= (int)SIW2_SQ_OP_NUM &&
	      (int)SIW2_WR_SEND_WITH_INV_IMM != (int)IB_WR_REG_MR);

/* The completion each opcode reports; a hole is a Send's. */
static const u8 siw2_wr_wc_tbl[SIW2_SQ_OP_NUM] = {
	[IB_WR_RDMA_WRITE] = IB_WC_RDMA_WRITE,
	[IB_WR_RDMA_WRITE_WITH_IMM] = IB_WC_RDMA_WRITE,
	[IB_WR_SEND] = IB_WC_SEND,
	[IB_WR_SEND_WITH_IMM] = IB_WC_SEND,
	[IB_WR_RDMA_READ] = IB_WC_RDMA_READ,
	[IB_WR_ATOMIC_CMP_AND_SWP] = IB_WC_COMP_SWAP,
	[IB_WR_ATOMIC_FETCH_AND_ADD] = IB_WC_FETCH_ADD,
	[IB_WR_LOCAL_INV] = IB_WC_LOCAL_INV,
	[IB_WR_BIND_MW] = IB_WC_BIND_MW,
	[IB_WR_SEND_WITH_INV] = IB_WC_SEND,
	[IB_WR_RDMA_READ_WITH_INV] = IB_WC_RDMA_READ,
	[IB_WR_MASKED_ATOMIC_CMP_AND_SWP] = IB_WC_MASKED_COMP_SWAP,
	[IB_WR_MASKED_ATOMIC_FETCH_AND_ADD] = IB_WC_MASKED_FETCH_ADD,
	[IB_WR_FLUSH] = IB_WC_FLUSH,
	[IB_WR_ATOMIC_WRITE] = IB_WC_ATOMIC_WRITE,
};

/**
 * siw2_wr_rules_of - the rules of a kernel work request opcode
 * @op: IB_WR_*; SIW2_WR_SEND_WITH_INV_IMM as a ring entry names it
 *
 * Return: SIW2_WRF_* (siw2-wr.h), plus SIW2_WRF_KVERB for the opcodes
 * only kernel consumers have; 0 for an opcode siw2 does not carry.
 */
u32 siw2_wr_rules_of(u32 op)
{
	/* Fast registration: a local operation of kernel consumers. */
	if (op == IB_WR_REG_MR)
		return SIW2_WRF_OK | SIW2_WRF_LOCAL | SIW2_WRF_KVERB;
	return siw2_wr_rules(op);
}

/**
 * siw2_wr_wc_opcode - the completion opcode of a send work request
 * @op: IB_WR_*
 *
 * Return: IB_WC_*.
 */
enum ib_wc_opcode siw2_wr_wc_opcode(enum ib_wr_opcode op)
{
	if (op == IB_WR_REG_MR)
		return IB_WC_REG_MR;
	return (u32)op < SIW2_SQ_OP_NUM ? siw2_wr_wc_tbl[op] : IB_WC_SEND;
}

/**
 * siw2_wr_check - may this work request be queued on this QP?
 * @qp: QP; its connection's abilities count once it is in RTS
 * @op: IB_WR_* (a ring's SIW2_WR_SEND_WITH_INV_IMM included)
 * @inl: the data is inline
 * @num_sge: SGEs (0 with inline data)
 * @len: payload length: the SGEs' sum, or the inline data; an RDMA
 *	Commit's range length
 *
 * Shared by siw2_post_send(), siw2_post_commit() and the send queue
 * ring. An extension operation needs a peer that takes it (DEC-4): a
 * peer without it could not parse the message, and nothing goes on the
 * wire.
 *
 * Return: 0, -EOPNOTSUPP for an opcode siw2 (or the peer) does not carry,
 * or -EINVAL.
 */
int siw2_wr_check(const struct siw2_qp *qp, u32 op, bool inl, u32 num_sge,
		  u64 len)
{
	u32 r = siw2_wr_rules_of(op);

	if (!(r & SIW2_WRF_OK))
		return -EOPNOTSUPP;
	/* The original value lands in one local 8-octet buffer. */
	if ((r & SIW2_WRF_ATOMIC) &&
	    (num_sge != 1 || len != sizeof(u64) || inl))
		return -EINVAL;
	/* An Atomic Write: 8 octets, from one SGE or inline (DEC-17). */
	if ((r & SIW2_WRF_WORD) && (num_sge > 1 || len != sizeof(u64)))
		return -EINVAL;
	/*
	 * One sink per Read Request (RFC 5040 4.4): max_sge_rd. A Read V2
	 * names no sink on the wire, so any local SGE list will do (DEC-7).
	 */
	if ((r & SIW2_WRF_READ) &&
	    ((num_sge > SIW2_MAX_SGE_RD && !READ_ONCE(qp->read_v2)) || inl))
		return -EINVAL;
	if ((r & SIW2_WRF_KVERB) && qp->base.uobject)
		return -EINVAL;
	/* A bind names no local buffer: the window, MR and range only. */
	if ((r & SIW2_WRF_BIND) && (num_sge || inl))
		return -EINVAL;
	/* A Commit names a remote range of up to 2^32 - 1 octets (DEC-12). */
	if (r & SIW2_WRF_COMMIT) {
		if (num_sge || inl || len > U32_MAX)
			return -EINVAL;
		return qp->conn.caps & SIW2_MPA_CAP_COMMIT ? 0 : -EOPNOTSUPP;
	}
	if ((r & SIW2_WRF_EXT) && !siw2_conn_ext(&qp->conn))
		return -EOPNOTSUPP;
	/* Send with Immediate Data is RDMAP v2 only (V2-HDR-4). */
	if ((r & SIW2_WRF_RV2) && siw2_conn_rv(&qp->conn) != SIW2_RDMAP_V2)
		return -EOPNOTSUPP;
	if (num_sge > qp->cap.max_send_sge || len > SIW2_MAX_MSG_SIZE)
		return -EINVAL;
	if (inl && (len > qp->cap.max_inline_data || !(r & SIW2_WRF_INLINE)))
		return -EINVAL;
	return 0;
}

/**
 * siw2_wr_atomic - the Atomic Request of an atomic work request
 * @sqe: the work request; its opcode is set
 * @compare_add: ib_atomic_wr's operands
 * @swap: likewise
 * @compare_add_mask: likewise (masked forms only)
 * @swap_mask: likewise (masked forms only)
 *
 * The wire fields the operation does not use get the values
 * rdmap-ext-04 5.2.1 prescribes (EXT-ATOMIC-7..9); a plain CmpSwap
 * compares and swaps all 64 bits (DIGEST 4.1). Other opcodes: nothing.
 */
void siw2_wr_atomic(struct siw2_sqe *sqe, u64 compare_add, u64 swap,
		    u64 compare_add_mask, u64 swap_mask)
{
	struct siw2_atomic_op *a = &sqe->atomic;

	switch (sqe->opcode) {
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_MASKED_ATOMIC_FETCH_AND_ADD:
		a->aop = SIW2_AOP_FETCH_ADD;
		a->add_swap = compare_add;
		a->add_swap_mask = sqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD ?
				   0 : compare_add_mask;
		a->cmp = 0;
		a->cmp_mask = ~0ULL;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_MASKED_ATOMIC_CMP_AND_SWP:
		a->aop = SIW2_AOP_CMP_SWAP;
		a->add_swap = swap;
		a->cmp = compare_add;
		if (sqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP) {
			a->add_swap_mask = ~0ULL;
			a->cmp_mask = ~0ULL;
		} else {
			a->add_swap_mask = swap_mask;
			a->cmp_mask = compare_add_mask;
		}
		break;
	case IB_WR_ATOMIC_WRITE:
		/* DEC-17: a CmpSwap that always matches; data set at start. */
		a->aop = SIW2_AOP_CMP_SWAP;
		a->add_swap = 0;
		a->add_swap_mask = ~0ULL;
		a->cmp = 0;
		a->cmp_mask = 0;
		break;
	default:
		break;
	}
}
