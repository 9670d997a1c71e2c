/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: the RFC 7306 atomic operations on target memory (rdmap-ext-04
 * 5.1; DIGEST 2.2.5). Pure functions over a kernel address, so KUnit can
 * test them without a device.
 */
#ifndef _SIW2_ATOMIC_H
#define _SIW2_ATOMIC_H

#include <linux/types.h>

/**
 * struct siw2_atomic_op - one atomic operation as the Request carries it
 * @aop: SIW2_AOP_* subcode
 * @add_swap: Add Data (FetchAdd) or Swap Data (Swap, CmpSwap)
 * @add_swap_mask: Add Mask (carry boundaries) or Swap Mask (CmpSwap)
 * @cmp: Compare Data (CmpSwap)
 * @cmp_mask: Compare Mask (CmpSwap)
 */
struct siw2_atomic_op {
	u8 aop;
	u64 add_swap;
	u64 add_swap_mask;
	u64 cmp;
	u64 cmp_mask;
};

u64 siw2_atomic_fetchadd_masked(u64 orig, u64 add, u64 add_mask);
u64 siw2_atomic_new_value(const struct siw2_atomic_op *op, u64 orig);
int siw2_atomic_apply(u64 *target, const struct siw2_atomic_op *op,
		      u64 *orig);

#endif /* _SIW2_ATOMIC_H */
