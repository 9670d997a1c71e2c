/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: work request rules (siw2_wr.c), on top of the rules the provider
 * shares (include/uapi/rdma/siw2-wr.h).
 */
#ifndef _SIW2_WR_H
#define _SIW2_WR_H

#include <linux/bits.h>

#include <uapi/rdma/siw2-wr.h>

struct siw2_qp;
struct siw2_sqe;

/*
 * Kernel consumers only (IB_WR_REG_MR): refused on a user QP. Above the
 * 16 bits of the shared rules (siw2-wr.h), so no shared flag takes it.
 */
#define SIW2_WRF_KVERB	BIT(16)

u32 siw2_wr_rules_of(u32 op);
enum ib_wc_opcode siw2_wr_wc_opcode(enum ib_wr_opcode op);
int siw2_wr_check(const struct siw2_qp *qp, u32 op, bool inl, u32 num_sge,
		  u64 len);
void siw2_wr_atomic(struct siw2_sqe *sqe, u64 compare_add, u64 swap,
		    u64 compare_add_mask, u64 swap_mask);

#endif /* _SIW2_WR_H */
