// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: RFC 7306 atomic operations on the target page (rdmap-ext-04 5.1,
 * DIGEST 2.2.5), executed with CPU atomic instructions so that they are
 * atomic against every other agent: other QPs and devices, and the local
 * CPUs (IB_ATOMIC_GLOB, EXT-ATOMIC-25). The value is in target-memory
 * (host) order; only the wire carries big-endian values (EXT-ATOMIC-26).
 */

#include <linux/atomic.h>
#include <linux/errno.h>

#include "siw2_atomic.h"
#include "siw2_wire.h"

/**
 * siw2_atomic_fetchadd_masked - FetchAdd with an Add Mask
 * @orig: the target's value
 * @add: Add Data
 * @add_mask: a 1 bit ends a field: no carry leaves that bit
 *
 * rdmap-ext-04 5.1.1: the 64 bits are split into independent fields, each
 * ending at a 1 in @add_mask; every field is added separately. With
 * @add_mask 0 this is the plain 64-bit sum.
 *
 * Return: the new value.
 */
u64 siw2_atomic_fetchadd_masked(u64 orig, u64 add, u64 add_mask)
{
	/*
	 * Add without carries, then propagate each carry until a field
	 * boundary stops it: the carries out of boundary bits are dropped.
	 */
	u64 sum = orig ^ add;
	u64 carry = (orig & add) & ~add_mask;

	while (carry) {
		u64 c = carry << 1;

		carry = (sum & c) & ~add_mask;
		sum ^= c;
	}
	return sum;
}

/**
 * siw2_atomic_new_value - what an operation leaves at the target
 * @op: the operation; @op->aop must be a known subcode
 * @orig: the target's value before it
 *
 * Return: the value to store (@orig when a CmpSwap does not match).
 */
u64 siw2_atomic_new_value(const struct siw2_atomic_op *op, u64 orig)
{
	switch (op->aop) {
	case SIW2_AOP_FETCH_ADD:
		return siw2_atomic_fetchadd_masked(orig, op->add_swap,
						   op->add_swap_mask);
	case SIW2_AOP_SWAP:
		return op->add_swap;	/* EXT-ATOMIC-4 */
	default:	/* SIW2_AOP_CMP_SWAP, EXT-ATOMIC-5 */
		if ((op->cmp ^ orig) & op->cmp_mask)
			return orig;
		return (orig & ~op->add_swap_mask) |
		       (op->add_swap & op->add_swap_mask);
	}
}

/**
 * siw2_atomic_apply - execute an atomic operation on target memory
 * @target: the 8-byte aligned target, a kernel address
 * @op: the operation
 * @orig: set to the value before the operation
 *
 * Plain FetchAdd and Swap map to one instruction; the masked forms and
 * CmpSwap retry a compare-and-exchange until no other writer came
 * between the read and the store.
 *
 * Return: 0, or -EINVAL for a misaligned target or an unknown subcode
 * (nothing is written then).
 */
int siw2_atomic_apply(u64 *target, const struct siw2_atomic_op *op,
		      u64 *orig)
{
	u64 old, new;

	if ((unsigned long)target & 7 || op->aop > SIW2_AOP_CMP_SWAP)
		return -EINVAL;
	if (op->aop == SIW2_AOP_FETCH_ADD && !op->add_swap_mask) {
		*orig = atomic64_fetch_add(op->add_swap, (atomic64_t *)target);
		return 0;
	}
	if (op->aop == SIW2_AOP_SWAP) {
		*orig = atomic64_xchg((atomic64_t *)target, op->add_swap);
		return 0;
	}
	old = atomic64_read((atomic64_t *)target);
	do {
		new = siw2_atomic_new_value(op, old);
		if (new == old)
			break;	/* a CmpSwap that does not match writes nothing */
	} while (!atomic64_try_cmpxchg((atomic64_t *)target, (s64 *)&old,
				       new));
	*orig = old;
	return 0;
}
