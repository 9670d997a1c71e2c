// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suites for the siw2 MPA Request/Reply codec and the RFC 6581
 * negotiation (drivers/siw2/siw2_mpa.c).
 *
 * Requirement IDs refer to ../shared/specs/DIGEST.md (§1.4, §2.1, §3.1).
 * Every expected value is written out in the tables below, from the digest
 * and the kernel-doc contract; none is computed by the code under test.
 * Wire constants (keys, flag bits) are spelled as literals taken from the
 * digest, so a wrong constant in siw2_wire.h is caught too.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "siw2_mpa.h"

#define KEY_REQ "MPA ID Req Frame"	/* DIGEST 2.1.1: 4D 50 41 20 ... 71 ... */
#define KEY_REP "MPA ID Rep Frame"
#define HDR 20				/* BASE-MPA-1 */
#define ENH 4				/* MPA2-HDR-6 */

#define W SIW2_RTR_WRITE
#define R SIW2_RTR_READ
#define B SIW2_RTR_FPDU

/* Raw frame builder, independent of the encoder: returns the PD start. */
static u8 *put_hdr(u8 *buf, const char *key, u8 flags, u8 rev, u16 pd_len)
{
	memcpy(buf, key, 16);
	buf[16] = flags;
	buf[17] = rev;
	buf[18] = pd_len >> 8;
	buf[19] = pd_len & 0xff;
	return buf + HDR;
}

static void put_enh(u8 *p, u16 ird_word, u16 ord_word)
{
	p[0] = ird_word >> 8;
	p[1] = ird_word & 0xff;
	p[2] = ord_word >> 8;
	p[3] = ord_word & 0xff;
}

static u8 pattern_pd[600];

static void fill_pattern(void)
{
	int i;

	for (i = 0; i < sizeof(pattern_pd); i++)
		pattern_pd[i] = (u8)(i * 7 + 3);
}

/* ====================== Encoder ====================== */

/* BASE-MPA-1: the key follows the kind; a bare Rev 1 frame is 20 octets. */
static void encode_key_per_kind_base_mpa_1(struct kunit *test)
{
	struct siw2_mpa_frame f = { .kind = SIW2_MPA_REQUEST, .rev = 1 };
	u8 buf[32];

	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), HDR);
	KUNIT_EXPECT_MEMEQ(test, buf, KEY_REQ, 16);
	/* flags 0, Rev 1, PD_Length 0 (MPA2-HDR-1: Res sent as zero) */
	KUNIT_EXPECT_MEMEQ(test, buf + 16, ((u8[]){ 0, 1, 0, 0 }), 4);

	f.kind = SIW2_MPA_REPLY;
	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), HDR);
	KUNIT_EXPECT_MEMEQ(test, buf, KEY_REP, 16);
	KUNIT_EXPECT_MEMEQ(test, buf + 16, ((u8[]){ 0, 1, 0, 0 }), 4);
	KUNIT_EXPECT_EQ(test, siw2_mpa_frame_len(&f), (size_t)HDR);
}

/* Octet 16 and 17 for every flag (BASE-MPA-2, MPA2-HDR-1/3, DEC-4). */
struct flags_case {
	const char *desc;
	enum siw2_mpa_kind kind;
	u8 rev;
	bool m, c, r, s;
	u8 caps;
	u8 exp_flags;
};

static const struct flags_case flags_cases[] = {
	{ "req_rev1_none", SIW2_MPA_REQUEST, 1, 0, 0, 0, 0, 0, 0x00 },
	{ "req_rev1_M", SIW2_MPA_REQUEST, 1, 1, 0, 0, 0, 0, 0x80 },
	{ "req_rev1_C", SIW2_MPA_REQUEST, 1, 0, 1, 0, 0, 0, 0x40 },
	/* R is meaningful in a Reply only: never sent in a Request */
	{ "req_rev1_R_not_sent", SIW2_MPA_REQUEST, 1, 0, 0, 1, 0, 0, 0x00 },
	{ "rep_rev1_R", SIW2_MPA_REPLY, 1, 0, 0, 1, 0, 0, 0x20 },
	{ "rep_rev1_MCR", SIW2_MPA_REPLY, 1, 1, 1, 1, 0, 0, 0xe0 },
	{ "req_rev2_none", SIW2_MPA_REQUEST, 2, 0, 0, 0, 0, 0, 0x00 },
	{ "req_rev2_S", SIW2_MPA_REQUEST, 2, 0, 0, 0, 1, 0, 0x10 },
	{ "req_rev2_cap_rdmap_v2_0x04", SIW2_MPA_REQUEST, 2, 0, 0, 0, 0, 0x04, 0x04 },
	{ "req_rev2_cap_commit_0x02", SIW2_MPA_REQUEST, 2, 0, 0, 0, 0, 0x02, 0x02 },
	{ "req_rev2_S_caps_0x06", SIW2_MPA_REQUEST, 2, 0, 0, 0, 1, 0x06, 0x16 },
	{ "req_rev2_all_R_not_sent", SIW2_MPA_REQUEST, 2, 1, 1, 1, 1, 0x06, 0xd6 },
	{ "rep_rev2_all", SIW2_MPA_REPLY, 2, 1, 1, 1, 1, 0x06, 0xf6 },
	{ "rep_rev2_C_S", SIW2_MPA_REPLY, 2, 0, 1, 0, 1, 0, 0x50 },
};

static void flags_desc(const struct flags_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(flags, flags_cases, flags_desc);

static void encode_flags_rev_base_mpa_2_dec_4(struct kunit *test)
{
	const struct flags_case *t = test->param_value;
	struct siw2_mpa_frame f = {
		.kind = t->kind, .rev = t->rev, .markers = t->m, .crc = t->c,
		.reject = t->r, .enhanced = t->s, .caps = t->caps,
		.ird = 5, .ord = 6,
	};
	int exp_len = HDR + (t->s ? ENH : 0);
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), exp_len);
	KUNIT_EXPECT_MEMEQ(test, buf, t->kind == SIW2_MPA_REQUEST ? KEY_REQ : KEY_REP, 16);
	KUNIT_EXPECT_EQ(test, buf[16], t->exp_flags);
	KUNIT_EXPECT_EQ(test, buf[17], t->rev);
	KUNIT_EXPECT_EQ(test, buf[18], 0);
	KUNIT_EXPECT_EQ(test, buf[19], t->s ? ENH : 0);
	if (t->s)
		KUNIT_EXPECT_MEMEQ(test, buf + HDR, ((u8[]){ 0, 5, 0, 6 }), 4);
}

/* Every refused frame, with its error (kernel-doc of siw2_mpa_encode()). */
struct enc_err_case {
	const char *desc;
	struct siw2_mpa_frame f;
	size_t size;
	int exp;
	const char *req;	/* the requirements the row asserts, for messages */
};

#define REQ2(...) { .kind = SIW2_MPA_REQUEST, .rev = 2, __VA_ARGS__ }
#define REQ1(...) { .kind = SIW2_MPA_REQUEST, .rev = 1, __VA_ARGS__ }

static const struct enc_err_case enc_err_cases[] = {
	{ "rev0", { .kind = SIW2_MPA_REQUEST, .rev = 0 }, 64, -EINVAL },
	{ "rev3", { .kind = SIW2_MPA_REPLY, .rev = 3 }, 64, -EINVAL },
	{ "rev255", { .kind = SIW2_MPA_REQUEST, .rev = 255 }, 64, -EINVAL },
	/* MPA2-HDR-3: enhanced features need Rev 2 */
	{ "rev1_enhanced", REQ1(.enhanced = true), 64, -EINVAL, .req = "MPA2-HDR-3" },
	/* DEC-4: caps only with Rev 2 */
	{ "rev1_caps_0x04", REQ1(.caps = 0x04), 64, -EINVAL, .req = "MPA2-HDR-3, DEC-4" },
	{ "rev1_caps_0x02", REQ1(.caps = 0x02), 64, -EINVAL, .req = "MPA2-HDR-3, DEC-4" },
	/* DEC-4: 0x08 is Linux siw's, 0x01 reserved, upper nibble is flags */
	{ "caps_0x08", REQ2(.caps = 0x08), 64, -EINVAL },
	{ "caps_0x01", REQ2(.caps = 0x01), 64, -EINVAL },
	{ "caps_0x10", REQ2(.caps = 0x10), 64, -EINVAL },
	{ "caps_0x80", REQ2(.caps = 0x80), 64, -EINVAL },
	/* 14-bit IRD/ORD (DIGEST 2.1.2) */
	{ "ird_0x4000", REQ2(.enhanced = true, .ird = 0x4000), 64, -EINVAL },
	{ "ord_0x4000", REQ2(.enhanced = true, .ord = 0x4000), 64, -EINVAL },
	{ "ird_0xffff", REQ2(.enhanced = true, .ird = 0xffff), 64, -EINVAL },
	{ "ord_0x8000", REQ2(.enhanced = true, .p2p = true, .ord = 0x8000), 64, -EINVAL },
	/* BASE-MPA-5, MPA2-HDR-7: 512 octets including enhanced data */
	{ "rev1_pd_513", REQ1(.pd_len = 513), 600, -EMSGSIZE },
	{ "rev2_enh_pd_509", REQ2(.enhanced = true, .pd_len = 509), 600, -EMSGSIZE },
	{ "rev2_enh_pd_509_small_buf", REQ2(.enhanced = true, .pd_len = 509), 20, -EMSGSIZE },
	{ "rev1_pd_512_ok", REQ1(.pd_len = 512), 600, HDR + 512 },
	{ "rev2_enh_pd_508_ok", REQ2(.enhanced = true, .pd_len = 508), 600, HDR + 512 },
	/* buffer too small */
	{ "size_0", REQ1(), 0, -ENOSPC },
	{ "size_19", REQ1(), 19, -ENOSPC },
	{ "size_20_ok", REQ1(), 20, HDR },
	{ "enh_size_23", REQ2(.enhanced = true), 23, -ENOSPC },
	{ "enh_size_24_ok", REQ2(.enhanced = true), 24, HDR + ENH },
	{ "enh_pd7_size_30", REQ2(.enhanced = true, .pd_len = 7), 30, -ENOSPC },
	{ "enh_pd7_size_31_ok", REQ2(.enhanced = true, .pd_len = 7), 31, HDR + ENH + 7 },
	{ "ird_ord_0x3fff_ok", REQ2(.enhanced = true, .ird = 0x3fff, .ord = 0x3fff), 64,
	  HDR + ENH },
};

static void enc_err_desc(const struct enc_err_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(enc_err, enc_err_cases, enc_err_desc);

static void encode_errors_and_limits(struct kunit *test)
{
	const struct enc_err_case *t = test->param_value;
	struct siw2_mpa_frame f = t->f;
	u8 *buf = kunit_kzalloc(test, 640, GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fill_pattern();
	if (f.pd_len)
		f.pd = pattern_pd;
	memset(buf, 0xaa, 640);
	ret = siw2_mpa_encode(&f, buf, t->size);
	KUNIT_EXPECT_EQ_MSG(test, ret, t->exp, "%s", t->req ?: "");
	/* nothing is written beyond @size (and nothing at all on error) */
	if (ret < 0)
		KUNIT_EXPECT_EQ(test, buf[0], 0xaa);
	KUNIT_EXPECT_EQ(test, buf[t->size], 0xaa);
	if (ret > 0) {
		KUNIT_EXPECT_EQ(test, (size_t)ret, siw2_mpa_frame_len(&f));
		KUNIT_EXPECT_EQ(test, (buf[18] << 8) | buf[19], ret - HDR);
		KUNIT_EXPECT_MEMEQ(test, buf + HDR + (f.enhanced ? ENH : 0),
				   pattern_pd, f.pd_len);
	}
}

/*
 * MPA2-HDR-7 / BASE-MPA-5: a PD length near 0xffff must be refused with
 * -EMSGSIZE however large the buffer; the 16-bit wire PD_Length must never
 * wrap (e.g. 0xffff + 4 enhanced octets is not 3).
 */
static void encode_pd_len_no_wrap_mpa2_hdr_7(struct kunit *test)
{
	static const u16 lens[] = { 0xffff, 0xfffe, 0xfffd, 0xfffc, 0x8000 };
	size_t size = 0x10000 + 64;
	u8 *src = kunit_kzalloc(test, 0x10000, GFP_KERNEL);
	u8 *buf = kunit_kzalloc(test, size, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, src);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		struct siw2_mpa_frame f = {
			.kind = SIW2_MPA_REQUEST, .rev = 2, .enhanced = true,
			.pd = src, .pd_len = lens[i],
		};

		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_encode(&f, buf, size), -EMSGSIZE,
				    "enhanced, pd_len 0x%x", lens[i]);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_encode(&f, buf, 64), -EMSGSIZE,
				    "enhanced, pd_len 0x%x, 64-byte buffer", lens[i]);
		f.enhanced = false;
		f.rev = 1;
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_encode(&f, buf, size), -EMSGSIZE,
				    "rev 1, pd_len 0x%x", lens[i]);
	}
}

/* MPA2-HDR-6: PD_Length counts the 4 enhanced octets, which come first. */
static void encode_pd_len_counts_enhanced_mpa2_hdr_6(struct kunit *test)
{
	static const u8 ulp[10] = "0123456789";
	struct siw2_mpa_frame f = {
		.kind = SIW2_MPA_REPLY, .rev = 2, .enhanced = true,
		.ird = 0x0102, .ord = 0x0304, .pd = ulp, .pd_len = 10,
	};
	u8 buf[64];

	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), HDR + ENH + 10);
	KUNIT_EXPECT_EQ(test, buf[18], 0);
	KUNIT_EXPECT_EQ(test, buf[19], ENH + 10);
	KUNIT_EXPECT_MEMEQ(test, buf + HDR, ((u8[]){ 0x01, 0x02, 0x03, 0x04 }), 4);
	KUNIT_EXPECT_MEMEQ(test, buf + HDR + ENH, ulp, 10);
	KUNIT_EXPECT_EQ(test, siw2_mpa_frame_len(&f), (size_t)(HDR + ENH + 10));

	/* without S the PD is the ULP's alone (MPA2-HDR-1) */
	f.enhanced = false;
	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), HDR + 10);
	KUNIT_EXPECT_EQ(test, buf[19], 10);
	KUNIT_EXPECT_MEMEQ(test, buf + HDR, ulp, 10);
}

/* A/B/C/D placement and IRD/ORD values (DIGEST 2.1.2, MPA2-P2P-3/4). */
struct enh_case {
	const char *desc;
	bool p2p;
	u8 rtr;
	u16 ird, ord;
	u8 exp[4];
};

static const struct enh_case enh_cases[] = {
	{ "A0_BCD_requested_zeroed_mpa2_p2p_3", false, B | W | R, 16, 16,
	  { 0x00, 0x10, 0x00, 0x10 } },
	{ "A1_none", true, 0, 16, 16, { 0x80, 0x10, 0x00, 0x10 } },
	{ "A1_B", true, B, 16, 16, { 0xc0, 0x10, 0x00, 0x10 } },
	{ "A1_C", true, W, 16, 16, { 0x80, 0x10, 0x80, 0x10 } },
	{ "A1_D", true, R, 16, 16, { 0x80, 0x10, 0x40, 0x10 } },
	{ "A1_CD", true, W | R, 16, 16, { 0x80, 0x10, 0xc0, 0x10 } },
	{ "A1_BCD_3fff", true, B | W | R, 0x3fff, 0x3fff, { 0xff, 0xff, 0xff, 0xff } },
	{ "A0_ird_3fff_ord_0", false, 0, 0x3fff, 0, { 0x3f, 0xff, 0x00, 0x00 } },
	{ "A0_ird_1234_ord_2345", false, 0, 0x1234, 0x2345, { 0x12, 0x34, 0x23, 0x45 } },
	{ "A0_zero", false, 0, 0, 0, { 0, 0, 0, 0 } },
	{ "A1_C_ird_1_ord_3ffe", true, W, 1, 0x3ffe, { 0x80, 0x01, 0xbf, 0xfe } },
	{ "A1_D_ird_0x2000", true, R, 0x2000, 0x0001, { 0xa0, 0x00, 0x40, 0x01 } },
};

static void enh_desc(const struct enh_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(enh, enh_cases, enh_desc);

static void encode_enhanced_abcd_ird_ord(struct kunit *test)
{
	const struct enh_case *t = test->param_value;
	struct siw2_mpa_frame f = {
		.kind = SIW2_MPA_REQUEST, .rev = 2, .enhanced = true,
		.p2p = t->p2p, .rtr = t->rtr, .ird = t->ird, .ord = t->ord,
	};
	u8 buf[32];

	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), HDR + ENH);
	KUNIT_EXPECT_EQ(test, buf[16], 0x10);
	KUNIT_EXPECT_MEMEQ(test, buf + HDR, t->exp, 4);
}

/* Without S no enhanced data is written, whatever p2p/rtr/ird/ord say. */
static void encode_unenhanced_has_no_ird_ord_mpa2_hdr_1(struct kunit *test)
{
	struct siw2_mpa_frame f = {
		.kind = SIW2_MPA_REQUEST, .rev = 2, .p2p = true, .rtr = W | R,
		.ird = 7, .ord = 9,
	};
	u8 buf[32];

	memset(buf, 0xaa, sizeof(buf));
	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), HDR);
	KUNIT_EXPECT_MEMEQ(test, buf + 16, ((u8[]){ 0, 2, 0, 0 }), 4);
	KUNIT_EXPECT_EQ(test, buf[HDR], 0xaa);
}

static struct kunit_case encode_cases[] = {
	KUNIT_CASE(encode_key_per_kind_base_mpa_1),
	KUNIT_CASE_PARAM(encode_flags_rev_base_mpa_2_dec_4, flags_gen_params),
	KUNIT_CASE_PARAM(encode_errors_and_limits, enc_err_gen_params),
	KUNIT_CASE(encode_pd_len_no_wrap_mpa2_hdr_7),
	KUNIT_CASE(encode_pd_len_counts_enhanced_mpa2_hdr_6),
	KUNIT_CASE_PARAM(encode_enhanced_abcd_ird_ord, enh_gen_params),
	KUNIT_CASE(encode_unenhanced_has_no_ird_ord_mpa2_hdr_1),
	{}
};

static struct kunit_suite siw2_mpa_encode_suite = {
	.name = "siw2_mpa_encode",
	.test_cases = encode_cases,
};

/* ====================== DIGEST §1.4 byte images ====================== */

static const u8 vec_request[24] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x50, 0x02, 0x00, 0x04, 0x80, 0x10, 0xc0, 0x10,
};

static const u8 vec_reply[24] = {
	0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
	0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	0x50, 0x02, 0x00, 0x04, 0x80, 0x10, 0x80, 0x10,
};

/* Rev 2, C=1 S=1, PD_Length=4, IRD=16 A=1, ORD=16 C=1 D=1 */
static void vector_request_encode(struct kunit *test)
{
	struct siw2_mpa_frame f = {
		.kind = SIW2_MPA_REQUEST, .rev = 2, .crc = true,
		.enhanced = true, .p2p = true, .rtr = W | R,
		.ird = 16, .ord = 16,
	};
	u8 buf[32];

	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), 24);
	KUNIT_EXPECT_MEMEQ(test, buf, vec_request, 24);
	/* exactly 24 bytes of room are enough */
	KUNIT_EXPECT_EQ(test, siw2_mpa_encode(&f, buf, 24), 24);
}

/* Rev 2, C=1 S=1, PD_Length=4, IRD=16 A=1, ORD=16 C=1 (Write RTR chosen) */
static void vector_reply_encode(struct kunit *test)
{
	struct siw2_mpa_frame f = {
		.kind = SIW2_MPA_REPLY, .rev = 2, .crc = true,
		.enhanced = true, .p2p = true, .rtr = W,
		.ird = 16, .ord = 16,
	};
	u8 buf[32];

	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&f, buf, sizeof(buf)), 24);
	KUNIT_EXPECT_MEMEQ(test, buf, vec_reply, 24);
}

static void expect_vec_fields(struct kunit *test, const struct siw2_mpa_frame *f,
			      enum siw2_mpa_kind kind, u8 rtr)
{
	KUNIT_EXPECT_EQ(test, f->kind, kind);
	KUNIT_EXPECT_EQ(test, f->rev, 2);
	KUNIT_EXPECT_FALSE(test, f->markers);
	KUNIT_EXPECT_TRUE(test, f->crc);
	KUNIT_EXPECT_FALSE(test, f->reject);
	KUNIT_EXPECT_TRUE(test, f->enhanced);
	KUNIT_EXPECT_EQ(test, f->caps, 0);
	KUNIT_EXPECT_TRUE(test, f->p2p);
	KUNIT_EXPECT_EQ(test, f->rtr, rtr);
	KUNIT_EXPECT_EQ(test, f->ird, 16);
	KUNIT_EXPECT_EQ(test, f->ord, 16);
	KUNIT_EXPECT_EQ(test, f->pd_len, 0);
	KUNIT_EXPECT_NULL(test, f->pd);
}

static void vector_request_decode(struct kunit *test)
{
	struct siw2_mpa_frame f;
	size_t flen = 0;

	KUNIT_ASSERT_EQ(test, siw2_mpa_parse_hdr(vec_request, 24, SIW2_MPA_REQUEST, &flen),
			SIW2_MPA_OK);
	KUNIT_EXPECT_EQ(test, flen, (size_t)24);
	memset(&f, 0x5a, sizeof(f));
	KUNIT_ASSERT_EQ(test, siw2_mpa_decode(vec_request, 24, SIW2_MPA_REQUEST, &f),
			SIW2_MPA_OK);
	expect_vec_fields(test, &f, SIW2_MPA_REQUEST, W | R);
}

static void vector_reply_decode(struct kunit *test)
{
	struct siw2_mpa_frame f;
	size_t flen = 0;

	KUNIT_ASSERT_EQ(test, siw2_mpa_parse_hdr(vec_reply, 24, SIW2_MPA_REPLY, &flen),
			SIW2_MPA_OK);
	KUNIT_EXPECT_EQ(test, flen, (size_t)24);
	memset(&f, 0x5a, sizeof(f));
	KUNIT_ASSERT_EQ(test, siw2_mpa_decode(vec_reply, 24, SIW2_MPA_REPLY, &f),
			SIW2_MPA_OK);
	expect_vec_fields(test, &f, SIW2_MPA_REPLY, W);
}

static struct kunit_case vector_cases[] = {
	KUNIT_CASE(vector_request_encode),
	KUNIT_CASE(vector_reply_encode),
	KUNIT_CASE(vector_request_decode),
	KUNIT_CASE(vector_reply_decode),
	{}
};

static struct kunit_suite siw2_mpa_vector_suite = {
	.name = "siw2_mpa_digest_vectors",
	.test_cases = vector_cases,
};

/* ====================== Parser / decoder ====================== */

/* BASE-MPA-1: a Request where a Reply is expected, and vice versa. */
static void decode_wrong_kind_key(struct kunit *test)
{
	struct siw2_mpa_frame f;
	size_t flen;

	KUNIT_EXPECT_EQ(test, siw2_mpa_parse_hdr(vec_request, 24, SIW2_MPA_REPLY, &flen),
			SIW2_MPA_E_KEY);
	KUNIT_EXPECT_EQ(test, siw2_mpa_decode(vec_request, 24, SIW2_MPA_REPLY, &f),
			SIW2_MPA_E_KEY);
	KUNIT_EXPECT_EQ(test, siw2_mpa_parse_hdr(vec_reply, 24, SIW2_MPA_REQUEST, &flen),
			SIW2_MPA_E_KEY);
	KUNIT_EXPECT_EQ(test, siw2_mpa_decode(vec_reply, 24, SIW2_MPA_REQUEST, &f),
			SIW2_MPA_E_KEY);
}

/* One corrupted key byte, at each of the 16 positions. */
static void decode_key_corrupted_each_byte(struct kunit *test)
{
	struct siw2_mpa_frame f;
	size_t flen;
	u8 buf[24];
	int i;

	for (i = 0; i < 16; i++) {
		memcpy(buf, vec_request, 24);
		buf[i] ^= 0x20;	/* e.g. case flip: "mPA ID ..." */
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_parse_hdr(buf, 24, SIW2_MPA_REQUEST, &flen),
				    SIW2_MPA_E_KEY, "byte %d", i);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, 24, SIW2_MPA_REQUEST, &f),
				    SIW2_MPA_E_KEY, "byte %d", i);
		memcpy(buf, vec_reply, 24);
		buf[i] = 0;
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, 24, SIW2_MPA_REPLY, &f),
				    SIW2_MPA_E_KEY, "reply byte %d", i);
	}
}

/* BASE-MPA-3, MPA2-HDR-5: Rev 1 and 2 only. */
static void decode_rev_base_mpa_3(struct kunit *test)
{
	static const struct { u8 rev; enum siw2_mpa_err exp; } c[] = {
		{ 0, SIW2_MPA_E_REV }, { 1, SIW2_MPA_OK }, { 2, SIW2_MPA_OK },
		{ 3, SIW2_MPA_E_REV }, { 255, SIW2_MPA_E_REV },
	};
	struct siw2_mpa_frame f;
	size_t flen;
	u8 buf[HDR];
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		put_hdr(buf, KEY_REQ, 0, c[i].rev, 0);
		flen = 0;
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_parse_hdr(buf, HDR, SIW2_MPA_REQUEST, &flen),
				    c[i].exp, "rev %u", c[i].rev);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, HDR, SIW2_MPA_REQUEST, &f),
				    c[i].exp, "rev %u", c[i].rev);
		if (c[i].exp == SIW2_MPA_OK) {
			KUNIT_EXPECT_EQ(test, flen, (size_t)HDR);
			KUNIT_EXPECT_EQ(test, f.rev, c[i].rev);
		}
		put_hdr(buf, KEY_REP, 0, c[i].rev, 0);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, HDR, SIW2_MPA_REPLY, &f),
				    c[i].exp, "reply rev %u", c[i].rev);
	}
}

/* BASE-MPA-5, MPA2-HDR-7: PD_Length above 512 is seen from the header alone. */
static void decode_pd_len_limit_base_mpa_5(struct kunit *test)
{
	static const u16 bad[] = { 513, 514, 1024, 0x8000, 0xffff };
	u8 *buf = kunit_kzalloc(test, HDR + 512, GFP_KERNEL);
	struct siw2_mpa_frame f;
	size_t flen;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		put_hdr(buf, KEY_REQ, 0x10, 2, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_parse_hdr(buf, HDR, SIW2_MPA_REQUEST, &flen),
				    SIW2_MPA_E_PD_LEN, "pd_len %u", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, HDR + 512, SIW2_MPA_REQUEST, &f),
				    SIW2_MPA_E_PD_LEN, "pd_len %u", bad[i]);
		put_hdr(buf, KEY_REP, 0, 1, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_parse_hdr(buf, HDR, SIW2_MPA_REPLY, &flen),
				    SIW2_MPA_E_PD_LEN, "rev1 pd_len %u", bad[i]);
	}
	/* 512 itself is fine, enhanced data included */
	put_hdr(buf, KEY_REQ, 0x10, 2, 512);
	flen = 0;
	KUNIT_EXPECT_EQ(test, siw2_mpa_parse_hdr(buf, HDR, SIW2_MPA_REQUEST, &flen), SIW2_MPA_OK);
	KUNIT_EXPECT_EQ(test, flen, (size_t)(HDR + 512));
	KUNIT_ASSERT_EQ(test, siw2_mpa_decode(buf, HDR + 512, SIW2_MPA_REQUEST, &f), SIW2_MPA_OK);
	KUNIT_EXPECT_EQ(test, f.pd_len, 508);
	KUNIT_EXPECT_PTR_EQ(test, f.pd, (const u8 *)buf + HDR + ENH);
}

/* Every length shorter than the 20-octet header is INCOMPLETE. */
static void decode_truncated_header(struct kunit *test)
{
	struct siw2_mpa_frame f;
	size_t len, flen;

	for (len = 0; len < HDR; len++) {
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_parse_hdr(vec_request, len,
							     SIW2_MPA_REQUEST, &flen),
				    SIW2_MPA_INCOMPLETE, "len %zu", len);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(vec_request, len,
							  SIW2_MPA_REQUEST, &f),
				    SIW2_MPA_INCOMPLETE, "len %zu", len);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(vec_reply, len,
							  SIW2_MPA_REPLY, &f),
				    SIW2_MPA_INCOMPLETE, "reply len %zu", len);
	}
}

/* Every length below the whole frame is INCOMPLETE; more is fine. */
static void decode_truncated_frame(struct kunit *test)
{
	static const struct { u8 flags, rev; u16 pd_len; } c[] = {
		{ 0x10, 2, ENH + 200 },	/* enhanced + 200 ULP octets */
		{ 0x10, 2, ENH },	/* enhanced only */
		{ 0x00, 1, 5 },
		{ 0x00, 2, 512 },
	};
	u8 *buf = kunit_kzalloc(test, HDR + 512 + 16, GFP_KERNEL);
	struct siw2_mpa_frame f;
	size_t len, flen, full;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		put_hdr(buf, KEY_REQ, c[i].flags, c[i].rev, c[i].pd_len);
		full = HDR + c[i].pd_len;
		for (len = HDR; len < full; len++) {
			flen = 0;
			KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_parse_hdr(buf, len, SIW2_MPA_REQUEST,
								     &flen),
					    SIW2_MPA_OK, "case %d len %zu", i, len);
			KUNIT_EXPECT_EQ_MSG(test, flen, full, "case %d len %zu", i, len);
			KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, len, SIW2_MPA_REQUEST, &f),
					    SIW2_MPA_INCOMPLETE, "case %d len %zu", i, len);
		}
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, full, SIW2_MPA_REQUEST, &f),
				    SIW2_MPA_OK, "case %d full", i);
		/* bytes past the frame are not looked at */
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, full + 16, SIW2_MPA_REQUEST, &f),
				    SIW2_MPA_OK, "case %d full+16", i);
		KUNIT_EXPECT_EQ(test, f.pd_len, c[i].pd_len - (c[i].flags ? ENH : 0));
	}
}

/* S on Rev 2 needs the 4 enhanced octets: PD_Length 0..3 is E_ENHANCED. */
static void decode_s_short_pd_rev2_mpa2_hdr_6(struct kunit *test)
{
	struct siw2_mpa_frame f;
	u8 buf[HDR + 8] = {};
	size_t flen;
	u16 pd;

	for (pd = 0; pd < ENH; pd++) {
		put_hdr(buf, KEY_REQ, 0x10, 2, pd);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_parse_hdr(buf, sizeof(buf),
							     SIW2_MPA_REQUEST, &flen),
				    SIW2_MPA_E_ENHANCED, "pd_len %u", pd);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, sizeof(buf), SIW2_MPA_REQUEST, &f),
				    SIW2_MPA_E_ENHANCED, "pd_len %u", pd);
		put_hdr(buf, KEY_REP, 0x50, 2, pd);
		KUNIT_EXPECT_EQ_MSG(test, siw2_mpa_decode(buf, sizeof(buf), SIW2_MPA_REPLY, &f),
				    SIW2_MPA_E_ENHANCED, "reply pd_len %u", pd);
	}
	put_hdr(buf, KEY_REQ, 0x10, 2, ENH);
	KUNIT_EXPECT_EQ(test, siw2_mpa_decode(buf, sizeof(buf), SIW2_MPA_REQUEST, &f),
			SIW2_MPA_OK);
	KUNIT_EXPECT_EQ(test, f.pd_len, 0);
}

/* MPA2-HDR-2: with Rev 1, S (and any Res bit) is not checked: unenhanced. */
static void decode_s_on_rev1_ignored_mpa2_hdr_2(struct kunit *test)
{
	static const u16 pds[] = { 0, 2, 8 };
	struct siw2_mpa_frame f;
	u8 buf[HDR + 8];
	int i;

	for (i = 0; i < ARRAY_SIZE(pds); i++) {
		u8 *pd = put_hdr(buf, KEY_REQ, 0x1f, 1, pds[i]);

		put_enh(pd, 0x8010, 0xc010);
		put_enh(pd + 4, 0x1234, 0x5678);
		memset(&f, 0x5a, sizeof(f));
		KUNIT_ASSERT_EQ_MSG(test, siw2_mpa_decode(buf, sizeof(buf), SIW2_MPA_REQUEST, &f),
				    SIW2_MPA_OK, "pd_len %u", pds[i]);
		KUNIT_EXPECT_EQ(test, f.rev, 1);
		KUNIT_EXPECT_FALSE(test, f.enhanced);
		KUNIT_EXPECT_EQ(test, f.caps, 0);	/* DEC-4: Rev 2 only */
		KUNIT_EXPECT_FALSE(test, f.p2p);
		KUNIT_EXPECT_EQ(test, f.rtr, 0);
		KUNIT_EXPECT_EQ(test, f.ird, 0);
		KUNIT_EXPECT_EQ(test, f.ord, 0);
		KUNIT_EXPECT_EQ(test, f.pd_len, pds[i]);
		if (pds[i])
			KUNIT_EXPECT_PTR_EQ(test, f.pd, (const u8 *)buf + HDR);
	}
}

/* MPA2-HDR-2 + DEC-4: a Rev 2 Reply keeps 0x04/0x02 and ACK 0x01, ignores 0x08. */
static void decode_res_bits_rev2_dec_4(struct kunit *test)
{
	static const struct { u8 flags, caps; } c[] = {
		{ 0x0f, 0x07 }, { 0x08, 0x00 }, { 0x01, 0x01 }, { 0x04, 0x04 },
		{ 0x02, 0x02 }, { 0x09, 0x01 }, { 0xcb, 0x03 },
	};
	struct siw2_mpa_frame f;
	u8 buf[HDR];
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		put_hdr(buf, KEY_REP, c[i].flags, 2, 0);
		KUNIT_ASSERT_EQ_MSG(test, siw2_mpa_decode(buf, HDR, SIW2_MPA_REPLY, &f),
				    SIW2_MPA_OK, "flags 0x%02x", c[i].flags);
		KUNIT_EXPECT_EQ_MSG(test, f.caps, c[i].caps, "flags 0x%02x", c[i].flags);
		KUNIT_EXPECT_FALSE(test, f.enhanced);
	}
}

/* BASE-MPA-2: M and C decode; R only counts in a Reply. */
static void decode_flags_r_in_request_ignored(struct kunit *test)
{
	static const struct {
		enum siw2_mpa_kind kind; u8 flags; bool m, c, r;
	} c[] = {
		{ SIW2_MPA_REQUEST, 0x20, 0, 0, 0 },
		{ SIW2_MPA_REQUEST, 0xe0, 1, 1, 0 },
		{ SIW2_MPA_REPLY, 0x20, 0, 0, 1 },
		{ SIW2_MPA_REPLY, 0x80, 1, 0, 0 },
		{ SIW2_MPA_REPLY, 0x40, 0, 1, 0 },
		{ SIW2_MPA_REPLY, 0xe0, 1, 1, 1 },
		{ SIW2_MPA_REPLY, 0x00, 0, 0, 0 },
	};
	struct siw2_mpa_frame f;
	u8 buf[HDR];
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		put_hdr(buf, c[i].kind == SIW2_MPA_REQUEST ? KEY_REQ : KEY_REP,
			c[i].flags, 1, 0);
		KUNIT_ASSERT_EQ(test, siw2_mpa_decode(buf, HDR, c[i].kind, &f), SIW2_MPA_OK);
		KUNIT_EXPECT_EQ_MSG(test, f.kind, c[i].kind, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, f.markers, c[i].m, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, f.crc, c[i].c, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, f.reject, c[i].r, "case %d", i);
	}
}

/* Private data round trip: pointer into the buffer, length, content. */
struct pd_case {
	const char *desc;
	u8 rev;
	bool enhanced;
	u16 pd_len;
};

static const struct pd_case pd_cases[] = {
	{ "rev2_enh_pd_0", 2, true, 0 },
	{ "rev2_enh_pd_1", 2, true, 1 },
	{ "rev2_enh_pd_200", 2, true, 200 },
	{ "rev2_enh_pd_252", 2, true, 252 },
	{ "rev2_enh_pd_508", 2, true, 508 },
	{ "rev1_pd_0", 1, false, 0 },
	{ "rev1_pd_1", 1, false, 1 },
	{ "rev1_pd_200", 1, false, 200 },
	{ "rev1_pd_252", 1, false, 252 },
	{ "rev1_pd_512", 1, false, 512 },
	{ "rev2_plain_pd_252", 2, false, 252 },
};

static void pd_desc(const struct pd_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pd, pd_cases, pd_desc);

static void decode_pd_round_trip(struct kunit *test)
{
	const struct pd_case *t = test->param_value;
	size_t exp_len = HDR + (t->enhanced ? ENH : 0) + t->pd_len;
	u8 *buf = kunit_kzalloc(test, 600, GFP_KERNEL);
	struct siw2_mpa_frame in = {
		.kind = SIW2_MPA_REPLY, .rev = t->rev, .enhanced = t->enhanced,
		.crc = true, .ird = 0x2a, .ord = 0x15,
		.pd = t->pd_len ? pattern_pd : NULL, .pd_len = t->pd_len,
	}, out;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	fill_pattern();
	KUNIT_ASSERT_EQ(test, siw2_mpa_encode(&in, buf, 600), (int)exp_len);
	memset(&out, 0x5a, sizeof(out));
	KUNIT_ASSERT_EQ(test, siw2_mpa_decode(buf, exp_len, SIW2_MPA_REPLY, &out), SIW2_MPA_OK);
	KUNIT_EXPECT_EQ(test, out.rev, t->rev);
	KUNIT_EXPECT_EQ(test, out.enhanced, t->enhanced);
	KUNIT_EXPECT_TRUE(test, out.crc);
	KUNIT_EXPECT_EQ(test, out.pd_len, t->pd_len);
	KUNIT_EXPECT_EQ(test, out.ird, t->enhanced ? 0x2a : 0);
	KUNIT_EXPECT_EQ(test, out.ord, t->enhanced ? 0x15 : 0);
	if (t->pd_len) {
		KUNIT_EXPECT_PTR_EQ(test, out.pd,
				    (const u8 *)buf + HDR + (t->enhanced ? ENH : 0));
		KUNIT_EXPECT_MEMEQ(test, out.pd, pattern_pd, t->pd_len);
	} else {
		/* no ULP data: NULL, or at least not before the PD */
		KUNIT_EXPECT_TRUE(test, !out.pd ||
				  out.pd == buf + HDR + (t->enhanced ? ENH : 0));
	}
}

/* MPA2-P2P-4/6: with A=0, B/C/D on the wire are ignored. */
static void decode_a0_ignores_bcd_mpa2_p2p_4(struct kunit *test)
{
	static const struct { u16 irdw, ordw; bool p2p; u8 rtr; u16 ird, ord; } c[] = {
		{ 0x4010, 0xc010, false, 0, 16, 16 },	/* A=0 B=1 C=1 D=1 */
		{ 0x0005, 0x8007, false, 0, 5, 7 },	/* A=0 C=1 */
		{ 0x3fff, 0x7fff, false, 0, 0x3fff, 0x3fff },
		{ 0xc010, 0xc010, true, B | W | R, 16, 16 },
		{ 0x8000, 0x0000, true, 0, 0, 0 },
		{ 0x8001, 0x4002, true, R, 1, 2 },
		{ 0xc003, 0x0004, true, B, 3, 4 },
		{ 0x8003, 0x8004, true, W, 3, 4 },
	};
	struct siw2_mpa_frame f;
	u8 buf[HDR + ENH];
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		put_enh(put_hdr(buf, KEY_REQ, 0x10, 2, ENH), c[i].irdw, c[i].ordw);
		KUNIT_ASSERT_EQ(test, siw2_mpa_decode(buf, sizeof(buf), SIW2_MPA_REQUEST, &f),
				SIW2_MPA_OK);
		KUNIT_EXPECT_EQ_MSG(test, f.p2p, c[i].p2p, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, f.rtr, c[i].rtr, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, f.ird, c[i].ird, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, f.ord, c[i].ord, "case %d", i);
	}
}

static void err_name_every_value(struct kunit *test)
{
	static const struct { enum siw2_mpa_err e; const char *name; } c[] = {
		{ SIW2_MPA_OK, "ok" },
		{ SIW2_MPA_INCOMPLETE, "incomplete" },
		{ SIW2_MPA_E_KEY, "wrong key" },
		{ SIW2_MPA_E_REV, "unsupported revision" },
		{ SIW2_MPA_E_PD_LEN, "private data too long" },
		{ SIW2_MPA_E_ENHANCED, "bad enhanced data" },
	};
	int i;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(c), (size_t)SIW2_MPA_NUM_ERRS);
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		KUNIT_ASSERT_NOT_NULL(test, siw2_mpa_err_name(c[i].e));
		KUNIT_EXPECT_STREQ(test, siw2_mpa_err_name(c[i].e), c[i].name);
	}
	KUNIT_EXPECT_STREQ(test, siw2_mpa_err_name(SIW2_MPA_NUM_ERRS), "?");
	KUNIT_EXPECT_STREQ(test, siw2_mpa_err_name((enum siw2_mpa_err)1000), "?");
}

static struct kunit_case decode_cases[] = {
	KUNIT_CASE(decode_wrong_kind_key),
	KUNIT_CASE(decode_key_corrupted_each_byte),
	KUNIT_CASE(decode_rev_base_mpa_3),
	KUNIT_CASE(decode_pd_len_limit_base_mpa_5),
	KUNIT_CASE(decode_truncated_header),
	KUNIT_CASE(decode_truncated_frame),
	KUNIT_CASE(decode_s_short_pd_rev2_mpa2_hdr_6),
	KUNIT_CASE(decode_s_on_rev1_ignored_mpa2_hdr_2),
	KUNIT_CASE(decode_res_bits_rev2_dec_4),
	KUNIT_CASE(decode_flags_r_in_request_ignored),
	KUNIT_CASE_PARAM(decode_pd_round_trip, pd_gen_params),
	KUNIT_CASE(decode_a0_ignores_bcd_mpa2_p2p_4),
	KUNIT_CASE(err_name_every_value),
	{}
};

static struct kunit_suite siw2_mpa_decode_suite = {
	.name = "siw2_mpa_decode",
	.test_cases = decode_cases,
};

/* ====================== Negotiation ====================== */

/* A decoded frame as the tables spell it. */
struct fr {
	u8 rev;
	bool s, a;
	u8 rtr;
	u16 ird, ord;
	u8 caps;
	bool crc;
};

static void to_frame(const struct fr *in, enum siw2_mpa_kind kind,
		     struct siw2_mpa_frame *f)
{
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->rev = in->rev;
	f->enhanced = in->s;
	f->p2p = in->a;
	f->rtr = in->rtr;
	f->ird = in->ird;
	f->ord = in->ord;
	f->caps = in->caps;
	f->crc = in->crc;
}

/* --- Responder: siw2_mpa_respond() --- */

struct respond_case {
	const char *desc;
	struct fr request;
	u16 ulp_ird, ulp_ord, max_ird;
	u8 local_caps;
	int exp_ret;
	/* Reply and connection (Reply carries the Responder's own values) */
	bool exp_s, exp_a;
	u8 exp_rtr;
	u16 exp_ird, exp_ord;
	u8 exp_rep_caps, exp_conn_caps;
	/* rtr_forms argument: SIW2_RTR_WRITE | SIW2_RTR_READ unless forms_set */
	bool forms_set;
	u8 rtr_forms;
	const char *req;	/* the requirements the row asserts, for messages */
};

/* Rev 2, S=1, A=0 unless the row says otherwise. */
#define E2(...) { .rev = 2, .s = true, __VA_ARGS__ }
#define P2(...) { .rev = 2, .s = true, .a = true, __VA_ARGS__ }
/* The RTR forms the Responder accepts, when not the default C and D. */
#define FORMS(f) .forms_set = true, .rtr_forms = (f)

static const struct respond_case respond_cases[] = {
	/* IRD/ORD, MPA2-IRD-2..4, AMB-27/DEC-2 */
	{ "equal", E2(.ird = 4, .ord = 4), 4, 4, 16, 0, 0, 1, 0, 0, 4, 4 },
	{ "initiator_larger_ird_raised_amb_27", E2(.ird = 8, .ord = 8), 2, 2, 16, 0, 0,
	  1, 0, 0, 8, 2, .req = "AMB-27, MPA2-IRD-2" },
	{ "responder_larger_ord_capped_mpa2_ird_4", E2(.ird = 2, .ord = 2), 8, 8, 16, 0, 0,
	  1, 0, 0, 8, 2 },
	{ "initiator_ord_0", E2(.ird = 4, .ord = 0), 2, 2, 16, 0, 0, 1, 0, 0, 2, 2 },
	{ "initiator_ird_0_ord_0_mpa2_ird_4", E2(.ird = 0, .ord = 2), 4, 4, 16, 0, 0,
	  1, 0, 0, 4, 0 },
	{ "ulp_0_0", E2(.ird = 4, .ord = 4), 0, 0, 16, 0, 0, 1, 0, 0, 4, 0 },
	{ "all_0", E2(), 0, 0, 16, 0, 0, 1, 0, 0, 0, 0 },
	{ "initiator_ord_eq_max_ird", E2(.ird = 4, .ord = 16), 2, 2, 16, 0, 0, 1, 0, 0, 16, 2,
	  .req = "MPA2-IRD-2" },
	{ "initiator_ord_above_max_ird_enomem_mpa2_ird_5", E2(.ird = 4, .ord = 17), 2, 2, 16,
	  0, -ENOMEM },
	{ "initiator_ord_3ffe_above_max_enomem", E2(.ird = 4, .ord = 0x3ffe), 2, 2, 255,
	  0, -ENOMEM },
	/* MPA2-IRD-6: 0x3FFF in either field: pass the ULP values through */
	{ "ird_3fff_pass_through_mpa2_ird_6", E2(.ird = 0x3fff, .ord = 2), 5, 6, 16, 0, 0,
	  1, 0, 0, 5, 6 },
	{ "ord_3fff_pass_through_mpa2_ird_6", E2(.ird = 2, .ord = 0x3fff), 5, 6, 16, 0, 0,
	  1, 0, 0, 5, 6 },
	{ "both_3fff_no_enomem_mpa2_ird_6", E2(.ird = 0x3fff, .ord = 0x3fff), 1, 1, 1, 0, 0,
	  1, 0, 0, 1, 1 },
	/* unenhanced Requests: no negotiation, Reply unenhanced (MPA2-IOP-4) */
	{ "rev1_unenhanced_mpa2_iop_4", { .rev = 1 }, 3, 5, 16, 0x06, 0, 0, 0, 0, 3, 5, 0, 0 },
	{ "rev2_unenhanced_caps", { .rev = 2, .caps = 0x04 }, 3, 5, 16, 0x06, 0, 0, 0, 0, 3, 5,
	  0x05, 0x04 },
	{ "rev2_unenhanced_a_ignored", { .rev = 2, .a = true, .rtr = W }, 3, 5, 16, 0, 0,
	  0, 0, 0, 3, 5 },
	/* RTR choice as Responder (DEC-3, AMB-7) */
	{ "rtr_offer_CD_picks_C_dec_3", P2(.ird = 4, .ord = 4, .rtr = W | R), 4, 4, 16, 0, 0,
	  1, 1, W, 4, 4, .req = "MPA2-P2P-7" },
	{ "rtr_offer_C_mpa2_p2p_10", P2(.ird = 4, .ord = 4, .rtr = W), 4, 4, 16, 0, 0,
	  1, 1, W, 4, 4, .req = "MPA2-P2P-7" },
	{ "rtr_offer_D_picks_D_mpa2_p2p_8", P2(.ird = 4, .ord = 4, .rtr = R), 4, 4, 16, 0, 0,
	  1, 1, R, 4, 4, .req = "MPA2-P2P-7" },
	{ "rtr_offer_BCD_picks_C", P2(.ird = 4, .ord = 4, .rtr = B | W | R), 4, 4, 16, 0, 0,
	  1, 1, W, 4, 4, .req = "MPA2-P2P-7" },
	{ "rtr_offer_BD_picks_D", P2(.ird = 4, .ord = 4, .rtr = B | R), 4, 4, 16, 0, 0,
	  1, 1, R, 4, 4, .req = "MPA2-P2P-7" },
	{ "rtr_offer_B_only_write_amb_7", P2(.ird = 4, .ord = 4, .rtr = B), 4, 4, 16, 0, 0,
	  1, 1, W, 4, 4, .req = "MPA2-P2P-7" },
	{ "rtr_offer_none_write_dec_3", P2(.ird = 4, .ord = 4), 4, 4, 16, 0, 0,
	  1, 1, W, 4, 4, .req = "MPA2-P2P-7" },
	{ "rtr_D_initiator_ord_0_ird_1_mpa2_ird_3", P2(.ird = 4, .ord = 0, .rtr = R), 0, 4, 16,
	  0, 0, 1, 1, R, 1, 4 },
	{ "rtr_D_initiator_ord_0_ulp_ird_2", P2(.ird = 4, .ord = 0, .rtr = R), 2, 4, 16,
	  0, 0, 1, 1, R, 2, 4 },
	{ "rtr_C_initiator_ord_0_ird_stays_0", P2(.ird = 4, .ord = 0, .rtr = W | R), 0, 4, 16,
	  0, 0, 1, 1, W, 0, 4 },
	{ "a0_rtr_bits_ignored_mpa2_p2p_4", E2(.ird = 4, .ord = 4, .rtr = W | R), 4, 4, 16,
	  0, 0, 1, 0, 0, 4, 4 },
	/* RTR forms this side accepts (rtr_forms): MPA2-P2P-9/11, DEC-3, AMB-7 */
	{ "forms_D_offer_CD_picks_D_ird_1_mpa2_ird_3", P2(.ird = 4, .ord = 0, .rtr = W | R),
	  0, 4, 16, 0, 0, 1, 1, R, 1, 4, FORMS(R), .req = "MPA2-P2P-7" },
	{ "forms_D_offer_CD_picks_D_ird_stays", P2(.ird = 4, .ord = 4, .rtr = W | R),
	  4, 4, 16, 0, 0, 1, 1, R, 4, 4, FORMS(R), .req = "MPA2-P2P-7" },
	{ "forms_D_offer_C_names_D_mpa2_p2p_9", P2(.ird = 4, .ord = 4, .rtr = W),
	  4, 4, 16, 0, 0, 1, 1, R, 4, 4, FORMS(R), .req = "MPA2-P2P-7" },
	{ "forms_C_offer_D_names_C_mpa2_p2p_9", P2(.ird = 4, .ord = 4, .rtr = R),
	  4, 4, 16, 0, 0, 1, 1, W, 4, 4, FORMS(W), .req = "MPA2-P2P-7" },
	{ "forms_C_offer_D_ord_0_ird_stays_0", P2(.ird = 4, .ord = 0, .rtr = R),
	  0, 4, 16, 0, 0, 1, 1, W, 0, 4, FORMS(W), .req = "MPA2-P2P-7" },
	{ "forms_C_offer_CD_picks_C", P2(.ird = 4, .ord = 4, .rtr = W | R),
	  4, 4, 16, 0, 0, 1, 1, W, 4, 4, FORMS(W), .req = "MPA2-P2P-7" },
	{ "forms_0_offer_CD_like_C", P2(.ird = 4, .ord = 4, .rtr = W | R),
	  4, 4, 16, 0, 0, 1, 1, W, 4, 4, FORMS(0) },
	{ "forms_0_offer_D_like_C", P2(.ird = 4, .ord = 0, .rtr = R),
	  0, 4, 16, 0, 0, 1, 1, W, 0, 4, FORMS(0) },
	{ "forms_B_only_like_0_dec_3", P2(.ird = 4, .ord = 4, .rtr = B | R),
	  4, 4, 16, 0, 0, 1, 1, W, 4, 4, FORMS(B) },
	{ "forms_BCD_offer_B_picks_C_amb_7", P2(.ird = 4, .ord = 4, .rtr = B),
	  4, 4, 16, 0, 0, 1, 1, W, 4, 4, FORMS(B | W | R), .req = "MPA2-P2P-7" },
	{ "forms_C_offer_B_picks_C_amb_7", P2(.ird = 4, .ord = 4, .rtr = B),
	  4, 4, 16, 0, 0, 1, 1, W, 4, 4, FORMS(W), .req = "MPA2-P2P-7" },
	{ "forms_D_offer_B_names_D_never_B", P2(.ird = 4, .ord = 4, .rtr = B),
	  4, 4, 16, 0, 0, 1, 1, R, 4, 4, FORMS(R), .req = "MPA2-P2P-7" },
	/* not peer-to-peer: no RTR, no Read-RTR IRD slot, whatever the forms */
	{ "a0_forms_D_no_rtr_ird_stays_0_mpa2_p2p_4", E2(.ird = 4, .ord = 0, .rtr = W | R),
	  0, 4, 16, 0, 0, 1, 0, 0, 0, 4, FORMS(R) },
	{ "a0_forms_C_no_rtr", E2(.ird = 4, .ord = 4, .rtr = R), 4, 4, 16, 0, 0, 1, 0, 0, 4, 4,
	  FORMS(W) },
	{ "a0_forms_0_no_rtr", E2(.ird = 4, .ord = 4), 4, 4, 16, 0, 0, 1, 0, 0, 4, 4, FORMS(0) },
	{ "rev1_forms_D_no_rtr_mpa2_iop_4", { .rev = 1 }, 0, 5, 16, 0, 0, 0, 0, 0, 0, 5,
	  FORMS(R) },
	{ "rev2_unenhanced_a_forms_D_no_rtr", { .rev = 2, .a = true, .rtr = W | R }, 0, 5, 16,
	  0, 0, 0, 0, 0, 0, 5, FORMS(R) },
	/* caps (DEC-4) */
	{ "caps_rev2_intersection_ack", E2(.caps = 0x06), 0, 0, 16, 0x04, 0, 1, 0, 0, 0, 0,
	  0x05, 0x04 },
	{ "caps_rev2_disjoint_no_ack", E2(.caps = 0x02), 0, 0, 16, 0x04, 0, 1, 0, 0, 0, 0, 0, 0 },
	{ "caps_rev2_both_ack", E2(.caps = 0x06), 0, 0, 16, 0x06, 0, 1, 0, 0, 0, 0, 0x07, 0x06 },
	{ "caps_rev2_local_none", E2(.caps = 0x06), 0, 0, 16, 0, 0, 1, 0, 0, 0, 0, 0, 0 },
	{ "caps_rev1_none", { .rev = 1, .caps = 0x06 }, 0, 0, 16, 0x06, 0, 0, 0, 0, 0, 0, 0, 0 },
};

static void respond_desc(const struct respond_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

static u8 respond_forms(const struct respond_case *t)
{
	return t->forms_set ? t->rtr_forms : W | R;
}

KUNIT_ARRAY_PARAM(respond, respond_cases, respond_desc);

static void respond_table(struct kunit *test)
{
	const struct respond_case *t = test->param_value;
	struct siw2_mpa_frame req, rep;
	struct siw2_mpa_conn conn;
	int ret;

	to_frame(&t->request, SIW2_MPA_REQUEST, &req);
	memset(&rep, 0x5a, sizeof(rep));
	memset(&conn, 0x5a, sizeof(conn));
	ret = siw2_mpa_respond(&req, t->ulp_ird, t->ulp_ord, t->max_ird, t->local_caps,
			       respond_forms(t), &rep, &conn);
	KUNIT_ASSERT_EQ_MSG(test, ret, t->exp_ret, "%s", t->req ?: "");
	if (ret)
		return;
	KUNIT_EXPECT_EQ(test, rep.kind, SIW2_MPA_REPLY);
	KUNIT_EXPECT_EQ(test, rep.rev, t->request.rev);
	KUNIT_EXPECT_FALSE(test, rep.reject);
	KUNIT_EXPECT_FALSE(test, rep.markers);
	KUNIT_EXPECT_EQ(test, rep.enhanced, t->exp_s);
	KUNIT_EXPECT_EQ_MSG(test, rep.p2p, t->exp_a, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, rep.rtr, t->exp_rtr, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, rep.ird, t->exp_ird, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, rep.ord, t->exp_ord, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ(test, rep.caps, t->exp_rep_caps);
	KUNIT_EXPECT_EQ(test, rep.pd_len, 0);

	KUNIT_EXPECT_EQ(test, conn.rev, t->request.rev);
	KUNIT_EXPECT_EQ_MSG(test, conn.p2p, t->exp_a, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, conn.rtr, t->exp_rtr, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, conn.ird, t->exp_ird, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, conn.ord, t->exp_ord, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ(test, conn.caps, t->exp_conn_caps);
}

/*
 * MPA fencing (BASE-MPA-11) as the Responder settles it: only a Rev 2
 * Request with a DEC-4 bit (a siw2 Initiator) lifts the fence, whatever
 * this side offers; peer-to-peer mode never fences (its RTR comes first);
 * the Initiator never fences.
 */
static void respond_fence_base_mpa_11_dec_4(struct kunit *test)
{
	static const struct {
		const char *desc;
		struct fr req;
		u8 local_caps;
		bool early, fenced;
	} t[] = {
		{ "rev2_caps_6", E2(.caps = 0x06), 0x06, true, false },
		{ "rev2_caps_2_local_none", E2(.caps = 0x02), 0, true, false },
		{ "rev2_caps_4_unenhanced", { .rev = 2, .caps = 0x04 }, 0x06, true, false },
		{ "rev2_no_caps_linux_siw", E2(), 0x06, false, true },
		{ "rev2_ack_bit_only", E2(.caps = 0x01), 0x06, false, true },
		{ "rev1_caps_ignored", { .rev = 1, .caps = 0x06 }, 0x06, false, true },
		{ "rev1_plain", { .rev = 1 }, 0x06, false, true },
		{ "p2p_no_caps", P2(.ird = 1, .ord = 1, .rtr = W), 0x06, false, false },
	};
	struct siw2_mpa_frame req, rep;
	struct siw2_mpa_conn conn;
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		to_frame(&t[i].req, SIW2_MPA_REQUEST, &req);
		KUNIT_ASSERT_EQ(test, siw2_mpa_respond(&req, 1, 1, 16, t[i].local_caps,
						       W | R, &rep, &conn), 0);
		KUNIT_EXPECT_EQ_MSG(test, conn.early_fpdu, t[i].early, "%s", t[i].desc);
		KUNIT_EXPECT_EQ_MSG(test, siw2_conn_fenced(&conn, false), t[i].fenced,
				    "%s", t[i].desc);
		KUNIT_EXPECT_FALSE_MSG(test, siw2_conn_fenced(&conn, true), "%s", t[i].desc);
	}
}

/* The Reply siw2_mpa_respond() builds must be encodable (14-bit, Rev, caps). */
static void respond_reply_encodes(struct kunit *test)
{
	struct siw2_mpa_frame req, rep, back;
	struct siw2_mpa_conn conn;
	u8 buf[64];
	int i;

	for (i = 0; i < ARRAY_SIZE(respond_cases); i++) {
		const struct respond_case *t = &respond_cases[i];
		int len;

		if (t->exp_ret)
			continue;
		to_frame(&t->request, SIW2_MPA_REQUEST, &req);
		KUNIT_ASSERT_EQ(test, siw2_mpa_respond(&req, t->ulp_ird, t->ulp_ord, t->max_ird,
						       t->local_caps, respond_forms(t),
						       &rep, &conn), 0);
		len = siw2_mpa_encode(&rep, buf, sizeof(buf));
		KUNIT_EXPECT_EQ_MSG(test, len, HDR + (t->exp_s ? ENH : 0), "%s", t->desc);
		if (len < 0)
			continue;
		KUNIT_ASSERT_EQ(test, siw2_mpa_decode(buf, len, SIW2_MPA_REPLY, &back),
				SIW2_MPA_OK);
		KUNIT_EXPECT_EQ_MSG(test, back.rtr, t->exp_rtr, "%s", t->desc);
		KUNIT_EXPECT_EQ_MSG(test, back.p2p, t->exp_a, "%s", t->desc);
	}
}

/* --- Initiator: siw2_mpa_complete() --- */

struct complete_case {
	const char *desc;
	struct fr request, reply;
	u16 max_ird;
	int exp_ret;
	u8 exp_rev;
	bool exp_crc, exp_p2p;
	u8 exp_rtr;
	u16 exp_ird, exp_ord;
	u8 exp_caps;
	const char *req;	/* the requirements the row asserts, for messages */
};

/* The Request siw2 sends by default: Rev 2, S, A, offers C and D (DEC-3). */
#define RQ(...) { .rev = 2, .s = true, .a = true, .rtr = W | R, .ird = 8, .ord = 8, __VA_ARGS__ }
#define RP(...) { .rev = 2, .s = true, .a = true, .rtr = W, .ird = 8, .ord = 8, __VA_ARGS__ }
#define T_BAD SIW2_TERM_MPA_BAD_FRAME
#define T_IRD SIW2_TERM_MPA_NO_IRD
#define T_RTR SIW2_TERM_MPA_NO_RTR

static const struct complete_case complete_cases[] = {
	/* IRD/ORD: MPA2-IRD-7/8/9, AMB-27 */
	{ "equal", RQ(), RP(), 16, 0, 2, 0, 1, W, 8, 8 },
	{ "rep_ird_smaller_ord_drops_mpa2_ird_8", RQ(), RP(.ird = 2), 16, 0, 2, 0, 1, W, 8, 2 },
	{ "rep_ird_larger_ord_stays", RQ(), RP(.ird = 12), 16, 0, 2, 0, 1, W, 8, 8 },
	{ "rep_ord_larger_ird_rises_mpa2_ird_7", RQ(), RP(.ord = 12), 16, 0, 2, 0, 1, W, 12, 8 },
	{ "rep_ord_eq_max_ird", RQ(), RP(.ord = 16), 16, 0, 2, 0, 1, W, 16, 8 },
	{ "rep_ord_above_max_term_6_mpa2_ird_9", RQ(), RP(.ord = 17), 16, T_IRD },
	{ "rep_ord_3ffe_term_6", RQ(), RP(.ord = 0x3ffe), 255, T_IRD },
	{ "rep_ord_smaller_ird_stays", RQ(), RP(.ord = 2), 16, 0, 2, 0, 1, W, 8, 8 },
	{ "rep_zero", RQ(), RP(.ird = 0, .ord = 0), 16, 0, 2, 0, 1, W, 8, 0 },
	{ "req_zero", RQ(.ird = 0, .ord = 0), RP(.ird = 4, .ord = 4), 16, 0, 2, 0, 1, W, 4, 0 },
	{ "req_ird_above_max_rep_ord_within", RQ(.ird = 20), RP(.ord = 18), 16, 0, 2, 0, 1, W,
	  20, 8 },
	/* MPA2-IRD-6: 0x3FFF: the Initiator's own values stand */
	{ "rep_ird_3fff_pass_through_mpa2_ird_6", RQ(), RP(.ird = 0x3fff, .ord = 30), 16,
	  0, 2, 0, 1, W, 8, 8 },
	{ "rep_ord_3fff_pass_through_mpa2_ird_6", RQ(), RP(.ird = 2, .ord = 0x3fff), 16,
	  0, 2, 0, 1, W, 8, 8 },
	{ "req_3fff_pass_through_mpa2_ird_6", RQ(.ird = 0x3fff, .ord = 0x3fff),
	  RP(.ird = 4, .ord = 4), 16, 0, 2, 0, 1, W, 0x3fff, 0x3fff },
	/* RTR as Initiator (MPA2-P2P-12/13/14) */
	{ "rtr_rep_C", RQ(), RP(.rtr = W), 16, 0, 2, 0, 1, W, 8, 8 },
	{ "rtr_rep_D", RQ(), RP(.rtr = R), 16, 0, 2, 0, 1, R, 8, 8 },
	{ "rtr_rep_CD_picks_C", RQ(), RP(.rtr = W | R), 16, 0, 2, 0, 1, W, 8, 8 },
	{ "rtr_rep_BD_picks_D", RQ(), RP(.rtr = B | R), 16, 0, 2, 0, 1, R, 8, 8 },
	{ "rtr_rep_B_only_term_7_mpa2_p2p_14", RQ(), RP(.rtr = B), 16, T_RTR },
	{ "rtr_rep_none_ulp_send_mpa2_p2p_12", RQ(), RP(.rtr = 0), 16, 0, 2, 0, 1, 0, 8, 8,
	  .req = "MPA2-P2P-12/16" },
	{ "a0_rep_rtr_bits_ignored", RQ(.a = false, .rtr = 0), RP(.a = false, .rtr = W | R), 16,
	  0, 2, 0, 0, 0, 8, 8, .req = "MPA2-P2P-6" },
	/* Reply contradicting the Request: TERM 4 (MPA2-P2P-5, MPA2-IOP-3/4) */
	{ "rep_a0_req_a1_term_4_mpa2_p2p_5", RQ(), RP(.a = false, .rtr = 0), 16, T_BAD },
	{ "rep_a1_req_a0_term_4_mpa2_p2p_5", RQ(.a = false, .rtr = 0), RP(), 16, T_BAD },
	{ "rep_unenhanced_term_4_mpa2_iop_3", RQ(), { .rev = 2 }, 16, T_BAD },
	{ "rep_rev1_to_enhanced_req_term_4", RQ(), { .rev = 1 }, 16, T_BAD },
	{ "rep_enhanced_req_unenhanced_term_4_mpa2_iop_4", { .rev = 2, .ird = 3, .ord = 3 }, RP(),
	  16, T_BAD },
	{ "rep_rev2_req_rev1_term_4", { .rev = 1 }, { .rev = 2 }, 16, T_BAD },
	{ "rep_rev3_term_4", RQ(), RP(.rev = 3), 16, T_BAD },
	/* unenhanced: no negotiation, a lower Rev is accepted */
	{ "rev1_both", { .rev = 1, .ird = 3, .ord = 5 }, { .rev = 1, .ird = 1, .ord = 9 }, 16,
	  0, 1, 0, 0, 0, 3, 5 },
	{ "req_rev2_plain_rep_rev1", { .rev = 2, .ird = 3, .ord = 5, .caps = 0x06 },
	  { .rev = 1, .caps = 0x06 }, 16, 0, 1, 0, 0, 0, 3, 5, 0 },
	/* caps (DEC-4): intersection, Rev 2 only */
	{ "caps_intersection", RQ(.caps = 0x06), RP(.caps = 0x05), 16, 0, 2, 0, 1, W, 8, 8, 0x04 },
	{ "caps_disjoint", RQ(.caps = 0x02), RP(.caps = 0x05), 16, 0, 2, 0, 1, W, 8, 8, 0 },
	{ "caps_both", RQ(.caps = 0x06), RP(.caps = 0x07), 16, 0, 2, 0, 1, W, 8, 8, 0x06 },
	/* Linux siw echoes the Request's Res bits: without ACK nothing is agreed */
	{ "caps_echo_without_ack_siw", RQ(.caps = 0x06), RP(.caps = 0x06), 16, 0, 2, 0, 1, W,
	  8, 8, 0 },
	{ "caps_rev2_plain", { .rev = 2, .caps = 0x06 }, { .rev = 2, .caps = 0x03 }, 16,
	  0, 2, 0, 0, 0, 0, 0, 0x02 },
	/* BASE-MPA-4: conn->crc = req.crc || rep.crc */
	{ "crc_req0_rep0_base_mpa_4", RQ(), RP(), 16, 0, 2, 0, 1, W, 8, 8 },
	{ "crc_req1_rep0_base_mpa_4", RQ(.crc = true), RP(), 16, 0, 2, 1, 1, W, 8, 8 },
	{ "crc_req0_rep1_base_mpa_4", RQ(), RP(.crc = true), 16, 0, 2, 1, 1, W, 8, 8 },
	{ "crc_req1_rep1_base_mpa_4", RQ(.crc = true), RP(.crc = true), 16, 0, 2, 1, 1, W, 8, 8 },
	{ "crc_rev1_rep1", { .rev = 1 }, { .rev = 1, .crc = true }, 16, 0, 1, 1, 0, 0, 0, 0 },
};

static void complete_desc(const struct complete_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(complete, complete_cases, complete_desc);

/*
 * MPA2-P2P-16: a Reply naming no RTR form completes, the RTR left to the
 * ULPs (row rtr_rep_none_ulp_send_mpa2_p2p_12).
 */
static void complete_table(struct kunit *test)
{
	const struct complete_case *t = test->param_value;
	struct siw2_mpa_frame req, rep;
	struct siw2_mpa_conn conn;
	int ret;

	to_frame(&t->request, SIW2_MPA_REQUEST, &req);
	to_frame(&t->reply, SIW2_MPA_REPLY, &rep);
	memset(&conn, 0x5a, sizeof(conn));
	ret = siw2_mpa_complete(&req, &rep, t->max_ird, &conn);
	KUNIT_ASSERT_EQ_MSG(test, ret, t->exp_ret, "%s", t->req ?: "");
	if (ret)
		return;
	KUNIT_EXPECT_EQ(test, conn.rev, t->exp_rev);
	KUNIT_EXPECT_EQ(test, conn.crc, t->exp_crc);
	KUNIT_EXPECT_EQ_MSG(test, conn.p2p, t->exp_p2p, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, conn.rtr, t->exp_rtr, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ(test, conn.ird, t->exp_ird);
	KUNIT_EXPECT_EQ(test, conn.ord, t->exp_ord);
	KUNIT_EXPECT_EQ(test, conn.caps, t->exp_caps);
}

/* TERM codes are RFC 5044/6581's (DIGEST 3.4, MPA2-ERR-1). */
static void term_codes_mpa2_err_1(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, SIW2_TERM_LAYER_LLP, 2);
	KUNIT_EXPECT_EQ(test, SIW2_TERM_MPA_BAD_FRAME, 4);
	KUNIT_EXPECT_EQ(test, SIW2_TERM_MPA_CATASTROPHIC, 5);
	KUNIT_EXPECT_EQ(test, SIW2_TERM_MPA_NO_IRD, 6);
	KUNIT_EXPECT_EQ(test, SIW2_TERM_MPA_NO_RTR, 7);
}

/* --- CRC policy: siw2_mpa_crc_resolve() (BASE-MPA-4) --- */

struct crc_case {
	const char *desc;
	enum siw2_crc_policy policy;
	bool peer;
	int exp_ret;
	bool exp_use;
};

static const struct crc_case crc_cases[] = {
	{ "peer_policy_peer_off", SIW2_CRC_PEER, false, 0, false },
	{ "peer_policy_peer_on", SIW2_CRC_PEER, true, 0, true },
	{ "required_peer_off", SIW2_CRC_REQUIRED, false, 0, true },
	{ "required_peer_on", SIW2_CRC_REQUIRED, true, 0, true },
	{ "off_peer_off", SIW2_CRC_OFF, false, 0, false },
	{ "off_peer_on_refused", SIW2_CRC_OFF, true, -EPROTONOSUPPORT, false },
};

static void crc_desc(const struct crc_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(crc, crc_cases, crc_desc);

static void crc_resolve_table_base_mpa_4(struct kunit *test)
{
	const struct crc_case *t = test->param_value;
	bool use = !t->exp_use;

	KUNIT_ASSERT_EQ(test, siw2_mpa_crc_resolve(t->policy, t->peer, &use), t->exp_ret);
	if (!t->exp_ret)
		KUNIT_EXPECT_EQ(test, use, t->exp_use);
}

static struct kunit_case negotiate_cases[] = {
	KUNIT_CASE_PARAM(respond_table, respond_gen_params),
	KUNIT_CASE(respond_reply_encodes),
	KUNIT_CASE(respond_fence_base_mpa_11_dec_4),
	KUNIT_CASE_PARAM(complete_table, complete_gen_params),
	KUNIT_CASE(term_codes_mpa2_err_1),
	KUNIT_CASE_PARAM(crc_resolve_table_base_mpa_4, crc_gen_params),
	{}
};

static struct kunit_suite siw2_mpa_negotiate_suite = {
	.name = "siw2_mpa_negotiate",
	.test_cases = negotiate_cases,
};

kunit_test_suites(&siw2_mpa_encode_suite, &siw2_mpa_vector_suite,
		  &siw2_mpa_decode_suite, &siw2_mpa_negotiate_suite);

MODULE_DESCRIPTION("KUnit tests for the siw2 MPA codec");
MODULE_LICENSE("Dual BSD/GPL");
