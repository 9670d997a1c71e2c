// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suites for MPA FPDU framing (drivers/siw2/siw2_fpdu.c): CRC32c,
 * PAD, the RTR FPDUs and the header-less Terminate. The byte images are
 * the ones of ../shared/specs/DIGEST.md section 1.4, written out here.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "siw2_fpdu.h"

/* DIGEST 1.4: zero-length RDMA Write RTR, RV=1, STag 1, TO 0, CRC on. */
static const u8 rtr_write_img[20] = {
	0x00, 0x0e, 0xc1, 0x40, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xeb, 0xd3, 0x4c, 0x5f,
};

/* DIGEST 1.4: zero-length RDMA Read Request RTR, QN 1, MSN 1. */
static const u8 rtr_read_img[52] = {
	0x00, 0x2e, 0x41, 0x41, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x27, 0xdb, 0xd7, 0xe7,
};

/* DIGEST 1.4: Terminate 2/0/0x06 (Insufficient IRD), QN 2, MSN 1. */
static const u8 term_img[28] = {
	0x00, 0x16, 0x41, 0x47, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x20, 0x06, 0x00, 0x00,
	0x65, 0x40, 0xfb, 0x1b,
};

/* BASE-MPA-9: CRC-32C("123456789") = 0xE3069283. */
static void crc_check_value_base_mpa_9(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, siw2_fpdu_crc("123456789", 9), 0xe3069283U);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_crc("", 0), 0U);
}

static void rtr_write_image(struct kunit *test)
{
	u8 buf[64];

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, siw2_fpdu_rtr_write(buf, sizeof(buf), true), 20);
	KUNIT_EXPECT_MEMEQ(test, buf, rtr_write_img, sizeof(rtr_write_img));
	KUNIT_EXPECT_EQ(test, buf[20], 0xa5);	/* nothing written past it */
}

static void rtr_read_image(struct kunit *test)
{
	u8 buf[64];

	memset(buf, 0xa5, sizeof(buf));
	KUNIT_ASSERT_EQ(test, siw2_fpdu_rtr_read(buf, sizeof(buf), true), 52);
	KUNIT_EXPECT_MEMEQ(test, buf, rtr_read_img, sizeof(rtr_read_img));
}

static void terminate_image_mpa2_ird_9(struct kunit *test)
{
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, siw2_fpdu_terminate(buf, sizeof(buf), 1, 1, 2, 0,
						  0x06, true), 28);
	KUNIT_EXPECT_MEMEQ(test, buf, term_img, sizeof(term_img));
}

/* BASE-MPA-4: without CRC the field is present and zero. */
static void no_crc_zero_field_base_mpa_4(struct kunit *test)
{
	static const u8 zero[4];
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, siw2_fpdu_rtr_write(buf, sizeof(buf), false), 20);
	KUNIT_EXPECT_MEMEQ(test, buf, rtr_write_img, 16);
	KUNIT_EXPECT_MEMEQ(test, buf + 16, zero, 4);
}

/* BASE-MPA-8: PAD makes 2 + ULPDU_Length + PAD a multiple of 4, zeroed. */
static void seal_pad_base_mpa_8(struct kunit *test)
{
	static const struct { size_t ulpdu, pad; } cases[] = {
		{ 0, 2 }, { 1, 1 }, { 2, 0 }, { 3, 3 }, { 14, 0 }, { 15, 3 },
		{ 16, 2 }, { 17, 1 }, { 18, 0 },
	};
	u8 buf[64];
	int i, j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		size_t body = 2 + cases[i].ulpdu + cases[i].pad;

		memset(buf, 0xa5, sizeof(buf));
		KUNIT_ASSERT_EQ(test, siw2_fpdu_seal(buf, sizeof(buf),
						     cases[i].ulpdu, true),
				(int)(body + 4));
		KUNIT_EXPECT_EQ(test, buf[0], 0);
		KUNIT_EXPECT_EQ(test, buf[1], (u8)cases[i].ulpdu);
		for (j = 0; j < cases[i].pad; j++)
			KUNIT_EXPECT_EQ(test, buf[2 + cases[i].ulpdu + j], 0);
		/* The ULPDU itself is untouched. */
		if (cases[i].ulpdu)
			KUNIT_EXPECT_EQ(test, buf[2], 0xa5);
	}
}

static void seal_errors(struct kunit *test)
{
	u8 buf[64];

	KUNIT_EXPECT_EQ(test, siw2_fpdu_seal(buf, sizeof(buf), 65536, true),
			-EMSGSIZE);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_seal(buf, 19, 14, true), -ENOSPC);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_rtr_write(buf, 19, true), -ENOSPC);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_rtr_write(buf, 15, true), -ENOSPC);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_rtr_read(buf, 51, true), -ENOSPC);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_terminate(buf, 27, 1, 1, 2, 0, 6, true),
			-ENOSPC);
}

static void check_complete_and_truncated(struct kunit *test)
{
	size_t len = 0;
	int n;

	for (n = 0; n < sizeof(rtr_read_img); n++)
		KUNIT_EXPECT_EQ(test, siw2_fpdu_check(rtr_read_img, n, true,
						      &len),
				SIW2_FPDU_INCOMPLETE);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_check(rtr_read_img, 52, true, &len),
			SIW2_FPDU_OK);
	KUNIT_EXPECT_EQ(test, len, 52);
}

/* Bytes of a following FPDU do not belong to this one. */
static void check_stops_at_fpdu_end(struct kunit *test)
{
	u8 two[sizeof(term_img) + sizeof(rtr_write_img)];
	size_t len = 0;

	memcpy(two, term_img, sizeof(term_img));
	memcpy(two + sizeof(term_img), rtr_write_img, sizeof(rtr_write_img));
	KUNIT_EXPECT_EQ(test, siw2_fpdu_check(two, sizeof(two), true, &len),
			SIW2_FPDU_OK);
	KUNIT_EXPECT_EQ(test, len, 28);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_check(two + len, sizeof(two) - len,
					      true, &len), SIW2_FPDU_OK);
	KUNIT_EXPECT_EQ(test, len, 20);
}

/* Any single flipped bit in ULPDU_Length..PAD or CRC is a CRC error. */
static void check_crc_errors_base_mpa_9(struct kunit *test)
{
	u8 buf[sizeof(rtr_write_img)];
	size_t len;
	int byte, bit;

	for (byte = 2; byte < sizeof(buf); byte++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(buf, rtr_write_img, sizeof(buf));
			buf[byte] ^= 1 << bit;
			KUNIT_EXPECT_EQ(test, siw2_fpdu_check(buf, sizeof(buf),
							      true, &len),
					SIW2_FPDU_E_CRC);
			/* Without CRC only the framing is checked. */
			KUNIT_EXPECT_EQ(test, siw2_fpdu_check(buf, sizeof(buf),
							      false, &len),
					SIW2_FPDU_OK);
		}
	}
}

/* RFC 6581 9: a Read RTR is answered with a zero-length Read Response. */
static void read_resp0_layout(struct kunit *test)
{
	u8 buf[32];
	size_t len;
	u32 stag;
	u64 to;
	int n;

	n = siw2_fpdu_read_resp0(buf, sizeof(buf), 0x12345678,
				 0x1122334455667788ULL, true);
	KUNIT_ASSERT_EQ(test, n, 20);
	/* ULPDU_Length 14, T=1 L=1 DV=1 RV=1 opcode 2, STag, TO. */
	KUNIT_EXPECT_EQ(test, buf[0], 0x00);
	KUNIT_EXPECT_EQ(test, buf[1], 0x0e);
	KUNIT_EXPECT_EQ(test, buf[2], 0xc1);
	KUNIT_EXPECT_EQ(test, buf[3], 0x42);
	KUNIT_EXPECT_EQ(test, buf[4], 0x12);
	KUNIT_EXPECT_EQ(test, buf[7], 0x78);
	KUNIT_EXPECT_EQ(test, buf[8], 0x11);
	KUNIT_EXPECT_EQ(test, buf[15], 0x88);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_check(buf, n, true, &len), SIW2_FPDU_OK);
	KUNIT_EXPECT_EQ(test, len, 20);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, n, &stag, &to),
			SIW2_FPDU_READ_RESP0);
	KUNIT_EXPECT_EQ(test, stag, 0x12345678);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_read_resp0(buf, 19, 1, 0, true), -ENOSPC);
}

/* MPA2-P2P-15: only the exact zero-length RTR forms are recognised. */
static void classify_rtr_mpa2_p2p_15(struct kunit *test)
{
	u8 buf[64];
	u32 stag = 0;
	u64 to = 0;

	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(rtr_write_img, sizeof(rtr_write_img),
						     &stag, &to), SIW2_FPDU_WRITE_RTR);
	KUNIT_EXPECT_EQ(test, stag, 1);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(rtr_read_img, sizeof(rtr_read_img),
						     &stag, &to), SIW2_FPDU_READ_RTR);
	KUNIT_EXPECT_EQ(test, stag, 1);
	KUNIT_EXPECT_EQ(test, to, 0);
	/* Built by the encoders, with and without CRC. */
	KUNIT_ASSERT_GT(test, siw2_fpdu_rtr_write(buf, sizeof(buf), false), 0);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 20, &stag, &to),
			SIW2_FPDU_WRITE_RTR);
	KUNIT_ASSERT_GT(test, siw2_fpdu_rtr_read(buf, sizeof(buf), false), 0);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 52, &stag, &to),
			SIW2_FPDU_READ_RTR);

	/* A Write that is not the last segment is no RTR. */
	memcpy(buf, rtr_write_img, sizeof(rtr_write_img));
	buf[2] &= ~0x40;
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 20, &stag, &to), SIW2_FPDU_OTHER);
	/* RV 2 is not an RTR: it precedes any use of RDMAP v2. */
	memcpy(buf, rtr_write_img, sizeof(rtr_write_img));
	buf[3] = 0x80;
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 20, &stag, &to), SIW2_FPDU_OTHER);
	/* A Send of 14 octets is no RTR either. */
	memcpy(buf, rtr_write_img, sizeof(rtr_write_img));
	buf[2] = 0x41;
	buf[3] = 0x43;
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 20, &stag, &to), SIW2_FPDU_OTHER);
	/* A Read Request for data, or with another MSN, QN or MO. */
	memcpy(buf, rtr_read_img, sizeof(rtr_read_img));
	buf[35] = 0x01;		/* RDMARDSZ = 1 */
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 52, &stag, &to), SIW2_FPDU_OTHER);
	memcpy(buf, rtr_read_img, sizeof(rtr_read_img));
	buf[15] = 0x02;		/* MSN 2 */
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 52, &stag, &to), SIW2_FPDU_OTHER);
	memcpy(buf, rtr_read_img, sizeof(rtr_read_img));
	buf[11] = 0x00;		/* QN 0 */
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 52, &stag, &to), SIW2_FPDU_OTHER);
	memcpy(buf, rtr_read_img, sizeof(rtr_read_img));
	buf[19] = 0x04;		/* MO 4 */
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 52, &stag, &to), SIW2_FPDU_OTHER);
	/* Other lengths, and too few bytes. */
	memcpy(buf, rtr_write_img, sizeof(rtr_write_img));
	buf[1] = 0x10;
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(buf, 24, &stag, &to), SIW2_FPDU_OTHER);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(rtr_write_img, 3, &stag, &to),
			SIW2_FPDU_OTHER);
	KUNIT_EXPECT_EQ(test, siw2_fpdu_classify_rtr(rtr_read_img, 30, &stag, &to),
			SIW2_FPDU_OTHER);
}

static struct kunit_case siw2_fpdu_cases[] = {
	KUNIT_CASE(crc_check_value_base_mpa_9),
	KUNIT_CASE(rtr_write_image),
	KUNIT_CASE(rtr_read_image),
	KUNIT_CASE(terminate_image_mpa2_ird_9),
	KUNIT_CASE(no_crc_zero_field_base_mpa_4),
	KUNIT_CASE(seal_pad_base_mpa_8),
	KUNIT_CASE(seal_errors),
	KUNIT_CASE(check_complete_and_truncated),
	KUNIT_CASE(check_stops_at_fpdu_end),
	KUNIT_CASE(check_crc_errors_base_mpa_9),
	KUNIT_CASE(read_resp0_layout),
	KUNIT_CASE(classify_rtr_mpa2_p2p_15),
	{}
};

static struct kunit_suite siw2_fpdu_suite = {
	.name = "siw2_fpdu",
	.test_cases = siw2_fpdu_cases,
};

kunit_test_suites(&siw2_fpdu_suite);

MODULE_LICENSE("Dual BSD/GPL");
