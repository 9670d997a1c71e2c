/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * siw2 work request rules, shared verbatim by drivers/siw2 and
 * userspace-provider/: what each send queue opcode may carry and what it
 * needs from the connection. The kernel checks every work request against
 * these rules (posted through ib_post_send() or taken from a send queue
 * ring); the provider checks them before it writes a ring entry, so a
 * process sees the same errno the kernel would give.
 *
 * Opcodes are the numbers of struct siw2_sq_wqe.opcode (siw2-abi.h):
 * IB_UVERBS_WR_* (enum ibv_wr_opcode, enum ib_wr_opcode) plus
 * SIW2_WR_SEND_WITH_INV_IMM. Both sides assert at build time that the
 * SIW2_SQ_OP_* names below equal their own.
 */
#ifndef SIW2_WR_H
#define SIW2_WR_H

#include <linux/types.h>

#include "siw2-abi.h"

/* Send queue opcodes (rdma-core 44's ib_user_verbs.h lacks the last ones). */
enum {
	SIW2_SQ_OP_RDMA_WRITE = 0,
	SIW2_SQ_OP_RDMA_WRITE_WITH_IMM = 1,
	SIW2_SQ_OP_SEND = 2,
	SIW2_SQ_OP_SEND_WITH_IMM = 3,
	SIW2_SQ_OP_RDMA_READ = 4,
	SIW2_SQ_OP_ATOMIC_CMP_AND_SWP = 5,
	SIW2_SQ_OP_ATOMIC_FETCH_AND_ADD = 6,
	SIW2_SQ_OP_LOCAL_INV = 7,
	SIW2_SQ_OP_BIND_MW = 8,		/* type 2 windows: ring entries only */
	SIW2_SQ_OP_SEND_WITH_INV = 9,
	SIW2_SQ_OP_RDMA_READ_WITH_INV = 11,
	SIW2_SQ_OP_MASKED_ATOMIC_CMP_AND_SWP = 12,
	SIW2_SQ_OP_MASKED_ATOMIC_FETCH_AND_ADD = 13,
	SIW2_SQ_OP_FLUSH = 14,		/* RDMA Commit (IB_UVERBS_WR_FLUSH) */
	SIW2_SQ_OP_ATOMIC_WRITE = 15,
	SIW2_SQ_OP_NUM = 16,	/* below: the IB_UVERBS_WR_* numbers */
};

/* What an opcode is (siw2_wr_rules()). */
enum {
	SIW2_WRF_OK = 1 << 0,		/* siw2 carries it */
	SIW2_WRF_EXT = 1 << 1,		/* the peer takes RFC 7306 (DEC-4) */
	SIW2_WRF_RV2 = 1 << 2,		/* RDMAP version 2 only (V2-HDR-4) */
	SIW2_WRF_INLINE = 1 << 3,	/* may carry inline data */
	SIW2_WRF_ATOMIC = 1 << 4,	/* Atomic operands; one 8-octet sink */
	SIW2_WRF_WORD = 1 << 5,		/* 8 octets, one SGE or inline (DEC-17) */
	SIW2_WRF_READ = 1 << 6,		/* max_sge_rd sinks but Read V2 (DEC-7) */
	SIW2_WRF_REMOTE = 1 << 7,	/* names a remote buffer (raddr, rkey) */
	SIW2_WRF_IMM = 1 << 8,		/* carries Immediate Data (imm) */
	SIW2_WRF_INV = 1 << 9,		/* names an STag to invalidate */
	SIW2_WRF_LOCAL = 1 << 10,	/* no message: done by the local side */
	SIW2_WRF_ORQ = 1 << 11,		/* holds an ORD slot until answered */
	SIW2_WRF_COMMIT = 1 << 12,	/* RDMA Commit: the peer takes it (DEC-4) */
	SIW2_WRF_NO_RING = 1 << 13,	/* never in a send queue ring */
	SIW2_WRF_DV = 1 << 14,		/* user space: through siw2dv only */
	SIW2_WRF_BIND = 1 << 15,	/* binds a memory window (ring entry's bind) */
};

#define SIW2_WRF_ATOMIC_OP \
	(SIW2_WRF_OK | SIW2_WRF_EXT | SIW2_WRF_ATOMIC | SIW2_WRF_REMOTE | \
	 SIW2_WRF_ORQ)
/* One SGE per Read Request (RFC 5040 4.4), unless it goes as Read V2. */
#define SIW2_WR_MAX_SGE_RD	1

/**
 * siw2_wr_rules - the rules of a send queue opcode
 * @op: struct siw2_sq_wqe.opcode (ib_wr_opcode / ibv_wr_opcode)
 *
 * Return: SIW2_WRF_* flags; 0 (no SIW2_WRF_OK) for an opcode siw2 does
 * not carry.
 */
static inline __u32 siw2_wr_rules(__u32 op)
{
	static const __u16 rules[SIW2_SQ_OP_NUM] = {
		[SIW2_SQ_OP_RDMA_WRITE] = SIW2_WRF_OK | SIW2_WRF_INLINE |
					  SIW2_WRF_REMOTE,
		[SIW2_SQ_OP_RDMA_WRITE_WITH_IMM] = SIW2_WRF_OK | SIW2_WRF_EXT |
						   SIW2_WRF_INLINE |
						   SIW2_WRF_REMOTE |
						   SIW2_WRF_IMM,
		[SIW2_SQ_OP_SEND] = SIW2_WRF_OK | SIW2_WRF_INLINE,
		[SIW2_SQ_OP_SEND_WITH_IMM] = SIW2_WRF_OK | SIW2_WRF_RV2 |
					     SIW2_WRF_INLINE | SIW2_WRF_IMM,
		[SIW2_SQ_OP_RDMA_READ] = SIW2_WRF_OK | SIW2_WRF_READ |
					 SIW2_WRF_REMOTE | SIW2_WRF_ORQ,
		[SIW2_SQ_OP_ATOMIC_CMP_AND_SWP] = SIW2_WRF_ATOMIC_OP,
		[SIW2_SQ_OP_ATOMIC_FETCH_AND_ADD] = SIW2_WRF_ATOMIC_OP,
		[SIW2_SQ_OP_LOCAL_INV] = SIW2_WRF_OK | SIW2_WRF_INV |
					 SIW2_WRF_LOCAL,
		/*
		 * The window, the region and the range come in the ring
		 * entry's bind fields, which no other path carries.
		 */
		[SIW2_SQ_OP_BIND_MW] = SIW2_WRF_OK | SIW2_WRF_LOCAL |
				       SIW2_WRF_BIND,
		[SIW2_SQ_OP_SEND_WITH_INV] = SIW2_WRF_OK | SIW2_WRF_INLINE |
					     SIW2_WRF_INV,
		/* No user verb makes it: rings refuse it. */
		[SIW2_SQ_OP_RDMA_READ_WITH_INV] = SIW2_WRF_OK | SIW2_WRF_READ |
						  SIW2_WRF_REMOTE |
						  SIW2_WRF_ORQ |
						  SIW2_WRF_NO_RING,
		/* libibverbs has no masked atomic verb. */
		[SIW2_SQ_OP_MASKED_ATOMIC_CMP_AND_SWP] = SIW2_WRF_ATOMIC_OP |
							 SIW2_WRF_DV,
		[SIW2_SQ_OP_MASKED_ATOMIC_FETCH_AND_ADD] = SIW2_WRF_ATOMIC_OP |
							   SIW2_WRF_DV,
		/*
		 * A range (raddr, rkey, commit.len) made durable by the peer,
		 * and its log update; no local buffer. rdma-core 44 has no
		 * flush verb: siw2dv.
		 */
		[SIW2_SQ_OP_FLUSH] = SIW2_WRF_OK | SIW2_WRF_COMMIT |
				     SIW2_WRF_REMOTE | SIW2_WRF_ORQ |
				     SIW2_WRF_DV,
		[SIW2_SQ_OP_ATOMIC_WRITE] = SIW2_WRF_OK | SIW2_WRF_EXT |
					    SIW2_WRF_INLINE | SIW2_WRF_WORD |
					    SIW2_WRF_REMOTE | SIW2_WRF_ORQ,
	};

	if (op == SIW2_WR_SEND_WITH_INV_IMM)
		return rules[SIW2_SQ_OP_SEND_WITH_IMM] | SIW2_WRF_INV |
		       SIW2_WRF_DV;
	return op < SIW2_SQ_OP_NUM ? rules[op] : 0;
}

#endif /* SIW2_WR_H */
