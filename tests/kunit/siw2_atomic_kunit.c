// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for the RFC 7306 atomic operations on target memory
 * (drivers/siw2/siw2_atomic.c), against DIGEST 2.2.5 and EXT-ATOMIC-2..5.
 */

#include <kunit/test.h>
#include <linux/slab.h>

#include "siw2_atomic.h"
#include "siw2_wire.h"

/* DIGEST 2.2.5's masked FetchAdd, bit by bit, as the reference. */
static u64 ref_fetchadd(u64 orig, u64 add, u64 add_mask)
{
	unsigned int bit, carry = 0, sum;
	u64 res = 0, m;

	for (bit = 0; bit < 64; bit++) {
		m = 1ULL << bit;
		sum = carry + !!(orig & m) + !!(add & m);
		carry = (sum >> 1) & 1;
		if (sum & 1)
			res |= m;
		carry = carry && !(add_mask & m);
	}
	return res;
}

/* Hand-picked FetchAdds, then many from a fixed-seed xorshift. */
static void fetchadd_masked_matches_digest(struct kunit *test)
{
	static const u64 t[][4] = {
		/* orig, add, mask, result */
		{ 41, 1, 0, 42 },
		{ ~0ULL, 2, 0, 1 },				/* wraps */
		{ 0x00000001ffffffffULL, 0x0000000100000001ULL,
		  0x8000000080000000ULL, 0x0000000200000000ULL },	/* two fields */
		{ 0xffff0001ffff0002ULL, 0x0001000100010001ULL,
		  0x8000800080008000ULL, 0x0000000200000003ULL },	/* four fields */
		{ 0xf0f0f0f0f0f0f0f0ULL, 0xffffffffffffffffULL, ~0ULL,
		  0x0f0f0f0f0f0f0f0fULL },		/* no carries: XOR */
	};
	u64 x = 0x9e3779b97f4a7c15ULL, o, a, m;
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		KUNIT_EXPECT_EQ(test, ref_fetchadd(t[i][0], t[i][1], t[i][2]),
				t[i][3]);
		KUNIT_EXPECT_EQ(test, siw2_atomic_fetchadd_masked(t[i][0], t[i][1],
								  t[i][2]),
				t[i][3]);
	}
	for (i = 0; i < 3000; i++) {
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		o = x;
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		a = x;
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		m = i % 3 ? x : 0;
		KUNIT_ASSERT_EQ_MSG(test, siw2_atomic_fetchadd_masked(o, a, m),
				    ref_fetchadd(o, a, m),
				    "orig 0x%llx add 0x%llx mask 0x%llx", o, a, m);
	}
}

/*
 * EXT-ATOMIC-4/5 and DEC-17: what each operation leaves at the target;
 * EXT-ATOMIC-7: a Swap ignores its mask (0 here).
 */
static void new_value_per_operation(struct kunit *test)
{
	struct siw2_atomic_op swap = { .aop = SIW2_AOP_SWAP, .add_swap = 5 };
	struct siw2_atomic_op cs = { .aop = SIW2_AOP_CMP_SWAP, .add_swap = 99,
				     .add_swap_mask = ~0ULL, .cmp = 7,
				     .cmp_mask = ~0ULL };
	struct siw2_atomic_op mcs = {
		.aop = SIW2_AOP_CMP_SWAP, .add_swap = 0xdeadbeef00000000ULL,
		.add_swap_mask = 0xffffffff00000000ULL,
		.cmp = 0x1234567855555555ULL, .cmp_mask = 0xffffffffULL };
	struct siw2_atomic_op aw = { .aop = SIW2_AOP_CMP_SWAP,
				     .add_swap = 0x1122334455667788ULL,
				     .add_swap_mask = ~0ULL };

	KUNIT_EXPECT_EQ_MSG(test, siw2_atomic_new_value(&swap, 1234), 5ULL,
			    "EXT-ATOMIC-4/7: Swap (mask 0) leaves the Swap Data");
	KUNIT_EXPECT_EQ_MSG(test, siw2_atomic_new_value(&cs, 7), 99ULL,
			    "EXT-ATOMIC-5: CmpSwap that matches stores the Swap Data");
	KUNIT_EXPECT_EQ_MSG(test, siw2_atomic_new_value(&cs, 8), 8ULL,
			    "EXT-ATOMIC-5: CmpSwap that does not match keeps the original");
	KUNIT_EXPECT_EQ_MSG(test, siw2_atomic_new_value(&mcs, 0xaaaaaaaa55555555ULL),
			    0xdeadbeef55555555ULL,
			    "EXT-ATOMIC-5: masked CmpSwap that matches stores the masked swap");
	KUNIT_EXPECT_EQ_MSG(test, siw2_atomic_new_value(&mcs, 0xaaaaaaaa55555554ULL),
			    0xaaaaaaaa55555554ULL,
			    "EXT-ATOMIC-5: masked CmpSwap that does not match keeps the original");
	/* Compare Mask 0 always matches: an Atomic Write. */
	KUNIT_EXPECT_EQ(test, siw2_atomic_new_value(&aw, 42), aw.add_swap);
}

/* On memory: results, originals, and refusals that write nothing. */
static void apply_on_memory_ext_atomic_3(struct kunit *test)
{
	struct siw2_atomic_op fa = { .aop = SIW2_AOP_FETCH_ADD, .add_swap = 3 };
	struct siw2_atomic_op mfa = { .aop = SIW2_AOP_FETCH_ADD, .add_swap = 1,
				      .add_swap_mask = 0x80000000ULL };
	struct siw2_atomic_op bad = { .aop = 3, .add_swap = 1 };
	u64 *p = kunit_kzalloc(test, 16, GFP_KERNEL);
	u64 orig;

	KUNIT_ASSERT_NOT_NULL(test, p);
	p[0] = 10;
	KUNIT_EXPECT_EQ(test, siw2_atomic_apply(p, &fa, &orig), 0);
	KUNIT_EXPECT_EQ_MSG(test, orig, 10ULL,
			    "EXT-ATOMIC-26: original value read in memory byte order");
	KUNIT_EXPECT_EQ_MSG(test, p[0], 13ULL,
			    "EXT-ATOMIC-26: FetchAdd in memory byte order");
	p[0] = 0xffffffffULL;
	KUNIT_EXPECT_EQ(test, siw2_atomic_apply(p, &mfa, &orig), 0);
	KUNIT_EXPECT_EQ_MSG(test, p[0], 0ULL,
			    "EXT-ATOMIC-26: masked FetchAdd in memory order, carry ends at bit 31");
	/* EXT-ATOMIC-2/3: misaligned, nothing written. */
	p[0] = 0x1111111111111111ULL;
	p[1] = 0x2222222222222222ULL;
	KUNIT_EXPECT_EQ_MSG(test, siw2_atomic_apply((u64 *)((u8 *)p + 4), &fa,
						    &orig), -EINVAL,
			    "EXT-ATOMIC-2: a misaligned target is refused");
	KUNIT_EXPECT_EQ(test, siw2_atomic_apply(p, &bad, &orig), -EINVAL);
	KUNIT_EXPECT_EQ(test, p[0], 0x1111111111111111ULL);
	KUNIT_EXPECT_EQ(test, p[1], 0x2222222222222222ULL);
}

static struct kunit_case siw2_atomic_cases[] = {
	KUNIT_CASE(fetchadd_masked_matches_digest),
	KUNIT_CASE(new_value_per_operation),
	KUNIT_CASE(apply_on_memory_ext_atomic_3),
	{}
};

static struct kunit_suite siw2_atomic_suite = {
	.name = "siw2_atomic",
	.test_cases = siw2_atomic_cases,
};

kunit_test_suite(siw2_atomic_suite);
