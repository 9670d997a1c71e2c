// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for the receive-side DDP/RDMAP header decoder and the
 * Terminate Control parser (drivers/siw2/siw2_ddp.c). The byte images are
 * those of ../shared/specs/DIGEST.md section 1.4, plus a Terminate as Linux
 * siw sends it. Case names cite the requirement or decision they prove.
 */

#include <kunit/test.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "siw2_ddp.h"
#include "siw2_fpdu.h"
#include "siw2_mpa.h"

/* siw2_ddp_decode() @feat values the cases use. */
#define F_EXT		SIW2_DDP_FEAT_EXT
#define F_COM		SIW2_DDP_FEAT_COMMIT
#define F_ALL		(SIW2_DDP_FEAT_EXT | SIW2_DDP_FEAT_COMMIT)

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

/* Linux siw's Terminate MPA 2/0/4: Layer in the low nibble (no CRC here). */
static const u8 siw_term_img[24] = {
	0x00, 0x16, 0x41, 0x47, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x02, 0x04, 0x00, 0x00,
};

/* Send, QN 0, MSN 1, MO 0, payload "abcd" (ULPDU only). */
static const u8 send_ulpdu[22] = {
	0x41, 0x43, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
	0x00, 0x00, 0x61, 0x62, 0x63, 0x64,
};

/* DIGEST 1.4 extension images, CRC included (tested: the ULPDU only). */
static const u8 atomic_req_img[76] = {	/* FetchAdd, ReqID 7, +1 at 0x1234:0x1000 */
	0x00, 0x46, 0x41, 0x4a, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x12, 0x34,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	0xfa, 0x45, 0x96, 0xce,
};

static const u8 atomic_resp_img[36] = {	/* OrigReqID 7, OrigValue 0x29 */
	0x00, 0x1e, 0x41, 0x4b, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x29,
	0xb9, 0xeb, 0xaf, 0xe8,
};

static const u8 imm_img[32] = {		/* QN 0, MSN 5, data 01..08 */
	0x00, 0x1a, 0x41, 0x48, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,
	0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04,
	0x05, 0x06, 0x07, 0x08, 0x92, 0x23, 0x60, 0xc6,
};

static const u8 send_imm1_img[32] = {	/* RV 2, L=0, MSN 1, MO 0, "hello" */
	0x00, 0x17, 0x01, 0x93, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x68, 0x65, 0x6c, 0x6c,
	0x6f, 0x00, 0x00, 0x00, 0x4c, 0xc1, 0x91, 0x5f,
};

static const u8 send_imm2_img[32] = {	/* RV 2, L=1, MSN 1, MO 5, imm 01..08 */
	0x00, 0x1a, 0x41, 0x93, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x05, 0x01, 0x02, 0x03, 0x04,
	0x05, 0x06, 0x07, 0x08, 0x6d, 0xde, 0x18, 0x30,
};

static const u8 read_v2_req_img[40] = {	/* 4096 from 0x5678:0x20000 */
	0x00, 0x22, 0x41, 0x91, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x56, 0x78, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x02, 0x00, 0x00, 0xf8, 0x60, 0xaf, 0x82,
};

static const u8 read_v2_resp_img[32] = {	/* QN 3, MSN 1, 8 x 0xab */
	0x00, 0x1a, 0x41, 0x92, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0xab, 0xab, 0xab, 0xab,
	0xab, 0xab, 0xab, 0xab, 0x50, 0x3d, 0xac, 0x0a,
};

/*
 * DIGEST 1.4: RDMA Commit Request, RV 1, QN 1, MSN 1, MO 0, ReqID 9,
 * STag 0x1234, Length 4096, TO 0x1000 (44 octets, CRC included).
 */
static const u8 commit_req_img[44] = {
	0x00, 0x26, 0x41, 0x4c, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,
	0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x10, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,
	0xb6, 0x5c, 0xa4, 0x8c,
};

/* DIGEST 1.4: RDMA Commit Response, QN 3, MSN 1, OrigReqID 9, Status 0. */
static const u8 commit_resp_img[32] = {
	0x00, 0x1a, 0x41, 0x4d, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,
	0x00, 0x00, 0x00, 0x00, 0x38, 0x8a, 0x35, 0x44,
};

/* ULPDU offsets of the fields the cases patch. */
#define O_DDP	0	/* DDP control octet: T L Rsvd DV */
#define O_RDMAP	1	/* RDMAP control octet: RV Rsv Opcode */
#define O_QN	9	/* low octet of QN */
#define O_QN_HI	6	/* high octet of QN */
#define O_MO	17	/* low octet of MO */

enum base { B_WRITE, B_READ, B_TERM, B_SEND };

struct patch {
	u8 off;
	u8 val;
};

struct dec_case {
	const char *desc;
	enum base base;
	int len;		/* ULPDU length, 0: the base's own */
	struct patch p[2];
	u8 np;
	u8 rv;			/* connection RDMAP version, 0 means 1 */
	u8 layer, etype, code;
	const char *req;	/* the requirements the row asserts, for messages */
};

/* A base ULPDU into @buf, zero-padded to its size; returns its length. */
static size_t base_ulpdu(enum base b, u8 *buf, size_t size)
{
	const u8 *src;
	size_t len;

	switch (b) {
	case B_WRITE:
		src = rtr_write_img + 2;
		len = rtr_write_img[1];
		break;
	case B_READ:
		src = rtr_read_img + 2;
		len = rtr_read_img[1];
		break;
	case B_TERM:
		src = term_img + 2;
		len = term_img[1];
		break;
	default:
		src = send_ulpdu;
		len = sizeof(send_ulpdu);
		break;
	}
	memset(buf, 0, size);
	memcpy(buf, src, len);
	return len;
}

#define P1(o, v)		.p = { { o, v } }, .np = 1
#define P2(o1, v1, o2, v2)	.p = { { o1, v1 }, { o2, v2 } }, .np = 2
#define T(l, e, c)		.layer = l, .etype = e, .code = c

static const struct dec_case dec_cases[] = {
	/* BASE-DDP-1: DDP version 1 only; the code depends on T. */
	{ "base_ddp_1_dv0_tagged_1_1_4", B_WRITE, 0, P1(O_DDP, 0xc0), 0, T(1, 1, 4),
	  .req = "BASE-DDP-1/6" },
	{ "base_ddp_1_dv2_tagged_1_1_4", B_WRITE, 0, P1(O_DDP, 0xc2), 0, T(1, 1, 4),
	  .req = "BASE-DDP-1/6" },
	{ "base_ddp_1_dv0_untagged_1_2_6", B_SEND, 0, P1(O_DDP, 0x40), 0, T(1, 2, 6) },
	{ "base_ddp_1_dv3_untagged_1_2_6", B_READ, 0, P1(O_DDP, 0x43), 0, T(1, 2, 6) },
	{ "base_ddp_1_dv_before_rv", B_WRITE, 0, P2(O_DDP, 0xc0, O_RDMAP, 0x80), 0,
	  T(1, 1, 4), .req = "BASE-DDP-1/6" },
	/* BASE-RDMAP-1: RV must be the connection's. */
	{ "base_rdmap_1_rv0_0_2_5", B_WRITE, 0, P1(O_RDMAP, 0x00), 0, T(0, 2, 5) },
	{ "base_rdmap_1_rv2_on_rv1_0_2_5", B_WRITE, 0, P1(O_RDMAP, 0x80), 0, T(0, 2, 5) },
	{ "base_rdmap_1_rv3_0_2_5", B_SEND, 0, P1(O_RDMAP, 0xc3), 0, T(0, 2, 5) },
	{ "base_rdmap_1_rv1_on_rv2_0_2_5", B_WRITE, 0, {}, 0, 2, T(0, 2, 5) },
	{ "base_rdmap_1_rv_before_opcode", B_SEND, 0, P1(O_RDMAP, 0x88), 0, T(0, 2, 5) },
	/* DEC-1: 5-bit opcode, 0x10 set on RV 1 is unexpected. */
	{ "dec_1_op_0x10_send_0_2_6", B_SEND, 0, P1(O_RDMAP, 0x50), 0, T(0, 2, 6) },
	{ "dec_1_op_0x11_read_v2_0_2_6", B_READ, 0, P1(O_RDMAP, 0x51), 0, T(0, 2, 6) },
	{ "dec_1_op_0x13_send_imm_0_2_6", B_SEND, 0, P1(O_RDMAP, 0x53), 0, T(0, 2, 6) },
	{ "dec_1_op_0x1f_0_2_6", B_WRITE, 0, P1(O_RDMAP, 0x5f), 0, T(0, 2, 6) },
	{ "dec_1_rv2_conn_v2_op_reserved", B_SEND, 0, P1(O_RDMAP, 0x93), 2, T(0, 2, 6) },
	/* DIGEST 3.3: opcodes 0x8..0xF are reserved in RFC 5040. */
	{ "base_rdmap_1_op_0x8_0_2_6", B_SEND, 0, P1(O_RDMAP, 0x48), 0, T(0, 2, 6) },
	{ "base_rdmap_1_op_0xa_0_2_6", B_READ, 0, P1(O_RDMAP, 0x4a), 0, T(0, 2, 6) },
	{ "base_rdmap_1_op_0xf_tagged_0_2_6", B_WRITE, 0, P1(O_RDMAP, 0x4f), 0,
	  T(0, 2, 6) },
	/* DIGEST 3.3: T bit fixed by the opcode. */
	{ "rfc5040_write_untagged_0_2_6", B_SEND, 0, P1(O_RDMAP, 0x40), 0, T(0, 2, 6) },
	{ "rfc5040_read_resp_untagged_0_2_6", B_SEND, 0, P1(O_RDMAP, 0x42), 0,
	  T(0, 2, 6) },
	{ "rfc5040_send_tagged_0_2_6", B_WRITE, 0, P1(O_RDMAP, 0x43), 0, T(0, 2, 6) },
	{ "rfc5040_send_inv_tagged_0_2_6", B_WRITE, 0, P1(O_RDMAP, 0x44), 0, T(0, 2, 6) },
	{ "rfc5040_read_req_tagged_0_2_6", B_WRITE, 0, P1(O_RDMAP, 0x41), 0, T(0, 2, 6) },
	{ "rfc5040_term_tagged_0_2_6", B_WRITE, 0, P1(O_RDMAP, 0x47), 0, T(0, 2, 6) },
	/* BASE-DDP-2: truncated DDP header, Local Catastrophic. */
	{ "base_ddp_2_len0_1_0_0", B_WRITE, -1, {}, 0, 0, T(1, 0, 0),
	  .req = "BASE-DDP-2/6" },
	{ "base_ddp_2_len1_1_0_0", B_WRITE, 1, {}, 0, 0, T(1, 0, 0),
	  .req = "BASE-DDP-2/6" },
	{ "base_ddp_2_tagged_13_1_0_0", B_WRITE, 13, {}, 0, 0, T(1, 0, 0),
	  .req = "BASE-DDP-2/6" },
	{ "base_ddp_2_untagged_17_1_0_0", B_SEND, 17, {}, 0, 0, T(1, 0, 0),
	  .req = "BASE-DDP-2/6" },
	{ "base_ddp_2_read_req_17_1_0_0", B_READ, 17, {}, 0, 0, T(1, 0, 0),
	  .req = "BASE-DDP-2/6" },
	/* BASE-DDP-5 0x01, DIGEST 1.2 QN map: Invalid QN. */
	{ "base_ddp_5_send_qn1_1_2_1", B_SEND, 0, P1(O_QN, 1), 0, T(1, 2, 1) },
	{ "base_ddp_5_send_qn3_1_2_1", B_SEND, 0, P1(O_QN, 3), 0, T(1, 2, 1) },
	{ "base_ddp_5_send_qn_2p24_1_2_1", B_SEND, 0, P1(O_QN_HI, 1), 0, T(1, 2, 1) },
	{ "base_ddp_5_send_inv_qn2_1_2_1", B_SEND, 0, P2(O_RDMAP, 0x44, O_QN, 2), 0,
	  T(1, 2, 1) },
	{ "base_ddp_5_send_se_qn1_1_2_1", B_SEND, 0, P2(O_RDMAP, 0x45, O_QN, 1), 0,
	  T(1, 2, 1) },
	{ "base_ddp_5_read_req_qn0_1_2_1", B_READ, 0, P1(O_QN, 0), 0, T(1, 2, 1) },
	{ "base_ddp_5_read_req_qn3_1_2_1", B_READ, 0, P1(O_QN, 3), 0, T(1, 2, 1) },
	{ "base_ddp_5_term_qn0_1_2_1", B_TERM, 0, P1(O_QN, 0), 0, T(1, 2, 1) },
	{ "base_ddp_5_term_qn3_1_2_1", B_TERM, 0, P1(O_QN, 3), 0, T(1, 2, 1) },
	/* BASE-DDP-5 0x04: Read Request and Terminate are MO 0. */
	{ "base_ddp_5_read_req_mo4_1_2_4", B_READ, 0, P1(O_MO, 4), 0, T(1, 2, 4) },
	{ "base_ddp_5_term_mo1_1_2_4", B_TERM, 0, P1(O_MO, 1), 0, T(1, 2, 4) },
	/* DIGEST 3.3: Read Request and Terminate are single segments, L=1. */
	{ "rfc5040_read_req_l0_0_2_6", B_READ, 0, P1(O_DDP, 0x01), 0, T(0, 2, 6) },
	{ "rfc5040_term_l0_0_2_6", B_TERM, 0, P1(O_DDP, 0x01), 0, T(0, 2, 6) },
	/* DIGEST 3.3: the RDMAP header is exactly as long as the opcode says. */
	{ "rfc5040_read_req_45_0_2_6", B_READ, 45, {}, 0, 0, T(0, 2, 6) },
	{ "rfc5040_read_req_18_0_2_6", B_READ, 18, {}, 0, 0, T(0, 2, 6) },
	{ "rfc5040_read_req_47_payload_0_2_6", B_READ, 47, {}, 0, 0, T(0, 2, 6) },
	{ "rfc5040_read_req_64_payload_0_2_6", B_READ, 64, {}, 0, 0, T(0, 2, 6) },
	{ "rfc5040_term_21_0_2_6", B_TERM, 21, {}, 0, 0, T(0, 2, 6) },
	{ "rfc5040_term_18_0_2_6", B_TERM, 18, {}, 0, 0, T(0, 2, 6) },
};

static void dec_case_desc(const struct dec_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(dec, dec_cases, dec_case_desc);

static void decode_rejects_table(struct kunit *test)
{
	const struct dec_case *t = test->param_value;
	struct siw2_term_code term = { 0xff, 0xff, 0xff };
	struct siw2_ddp_info info;
	size_t len;
	u8 buf[64];
	int i;

	len = base_ulpdu(t->base, buf, sizeof(buf));
	if (t->len)
		len = t->len < 0 ? 0 : t->len;
	for (i = 0; i < t->np; i++)
		buf[t->p[i].off] = t->p[i].val;
	KUNIT_ASSERT_EQ_MSG(test, siw2_ddp_decode(buf, len, t->rv ? t->rv : 1, 0, &info,
						  &term), -EPROTO, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, term.layer, t->layer, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, term.etype, t->etype, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, term.code, t->code, "%s", t->req ?: "");
}

/*
 * DEC-1, DIGEST 3.3: every opcode 0x08..0x1f, either T, is 0/2/6 on RV 1,
 * decoded as 5 bits (V2-HDR-3).
 */
static void reserved_opcodes_dec_1(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[64];
	int op, t;

	for (op = 0x08; op < 0x20; op++) {
		for (t = 0; t < 2; t++) {
			base_ulpdu(t ? B_WRITE : B_SEND, buf, sizeof(buf));
			buf[O_RDMAP] = 0x40 | op;
			KUNIT_EXPECT_EQ(test, siw2_ddp_decode(buf, 22, 1, 0, &info,
							      &term), -EPROTO);
			KUNIT_EXPECT_EQ(test, term.layer, 0);
			KUNIT_EXPECT_EQ(test, term.etype, 2);
			KUNIT_EXPECT_EQ(test, term.code, 6);
			KUNIT_EXPECT_EQ_MSG(test, info.opcode, op,
					    "V2-HDR-3: opcode 0x%02x read as 5 bits", op);
		}
	}
}

/* BASE-DDP-7: the zero-length Write RTR of DIGEST 1.4 decodes. */
static void write_rtr_image_base_ddp_7(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;

	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(rtr_write_img + 2, 14, 1, 0, &info,
					      &term), 0);
	KUNIT_EXPECT_TRUE(test, info.tagged);
	KUNIT_EXPECT_TRUE(test, info.last);
	KUNIT_EXPECT_EQ(test, info.dv, 1);
	KUNIT_EXPECT_EQ(test, info.rv, 1);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_WRITE);
	KUNIT_EXPECT_EQ(test, info.stag, 1);
	KUNIT_EXPECT_EQ(test, info.to, 0);
	KUNIT_EXPECT_EQ(test, info.hdr_len, 14);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
}

/* BASE-DDP-4, DIGEST 3.3: the Read RTR of DIGEST 1.4 and its fields. */
static void read_rtr_image_base_ddp_4(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[46];

	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(rtr_read_img + 2, 46, 1, 0, &info,
					      &term), 0);
	KUNIT_EXPECT_FALSE(test, info.tagged);
	KUNIT_EXPECT_TRUE(test, info.last);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_READ_REQ);
	KUNIT_EXPECT_EQ(test, info.qn, 1);
	KUNIT_EXPECT_EQ(test, info.msn, 1);
	KUNIT_EXPECT_EQ(test, info.mo, 0);
	KUNIT_EXPECT_EQ(test, info.sink_stag, 1);
	KUNIT_EXPECT_EQ(test, info.sink_to, 0);
	KUNIT_EXPECT_EQ(test, info.read_size, 0);
	KUNIT_EXPECT_EQ(test, info.src_stag, 1);
	KUNIT_EXPECT_EQ(test, info.src_to, 0);
	KUNIT_EXPECT_EQ(test, info.hdr_len, 46);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);

	/* Every Read Request field lands where DIGEST 3.3 puts it. */
	memcpy(buf, rtr_read_img + 2, sizeof(buf));
	buf[13] = 0x07;					/* MSN 7 */
	buf[18] = 0xaa; buf[21] = 0xbb;			/* Sink STag */
	buf[22] = 0x11; buf[29] = 0x22;			/* Sink TO */
	buf[30] = 0x00; buf[32] = 0x10;			/* RDMARDSZ 4096 */
	buf[34] = 0xcc; buf[37] = 0xdd;			/* Source STag */
	buf[38] = 0x33; buf[45] = 0x44;			/* Source TO */
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 46, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.msn, 7);
	KUNIT_EXPECT_EQ(test, info.sink_stag, 0xaa0000bb);
	KUNIT_EXPECT_EQ(test, info.sink_to, 0x1100000000000022ULL);
	KUNIT_EXPECT_EQ(test, info.read_size, 4096);
	KUNIT_EXPECT_EQ(test, info.src_stag, 0xcc0000dd);
	KUNIT_EXPECT_EQ(test, info.src_to, 0x3300000000000044ULL);
}

/* BASE-RDMAP-8: the Terminate image of DIGEST 1.4, read in the RFC layout. */
static void terminate_image_base_rdmap_8(struct kunit *test)
{
	struct siw2_term_code term, code;
	struct siw2_ddp_info info;
	bool m, d, r, swapped;

	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(term_img + 2, 22, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_TERMINATE);
	KUNIT_EXPECT_EQ(test, info.qn, 2);
	KUNIT_EXPECT_EQ(test, info.msn, 1);
	KUNIT_EXPECT_EQ(test, info.hdr_len, 22);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
	KUNIT_EXPECT_EQ(test, info.term_ctrl, 0x20060000);
	KUNIT_EXPECT_EQ(test, info.term_ctrl, siw2_term_ctrl(2, 0, 6));

	KUNIT_ASSERT_EQ(test, siw2_ddp_term_parse(term_img + 2 + 18, 4, &code, &m,
						  &d, &r, &swapped), 0);
	KUNIT_EXPECT_EQ(test, code.layer, 2);
	KUNIT_EXPECT_EQ(test, code.etype, 0);
	KUNIT_EXPECT_EQ(test, code.code, 6);
	KUNIT_EXPECT_FALSE(test, m || d || r);
	KUNIT_EXPECT_FALSE(test, swapped);
}

/* BASE-RDMAP-8: a Terminate carrying headers (D=1) has them as payload. */
static void terminate_with_headers_base_rdmap_8(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[64];

	base_ulpdu(B_TERM, buf, sizeof(buf));
	buf[18] = 0x12;		/* 1/2/0x01 Invalid QN */
	buf[19] = 0x01;
	buf[20] = 0xc0;		/* M D */
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 42, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.hdr_len, 22);
	KUNIT_EXPECT_EQ(test, info.payload_len, 20);
	KUNIT_EXPECT_EQ(test, info.term_ctrl, siw2_term_ctrl(1, 2, 1) |
			SIW2_TERM_F_M | SIW2_TERM_F_D);
}

/* DIGEST 1.2: Sends on QN 0, single or multi-segment, with payload. */
static void send_family_base_ddp_4(struct kunit *test)
{
	static const u8 sends[] = {
		SIW2_OP_SEND, SIW2_OP_SEND_INV, SIW2_OP_SEND_SE,
		SIW2_OP_SEND_SE_INV,
	};
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[64];
	int i;

	for (i = 0; i < ARRAY_SIZE(sends); i++) {
		base_ulpdu(B_SEND, buf, sizeof(buf));
		buf[O_RDMAP] = 0x40 | sends[i];
		KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 22, 1, 0, &info, &term), 0);
		KUNIT_EXPECT_EQ(test, info.opcode, sends[i]);
		KUNIT_EXPECT_EQ(test, info.qn, 0);
		KUNIT_EXPECT_EQ(test, info.msn, 1);
		KUNIT_EXPECT_EQ(test, info.hdr_len, 18);
		KUNIT_EXPECT_EQ(test, info.payload_len, 4);
		KUNIT_EXPECT_MEMEQ(test, buf + info.hdr_len, "abcd", 4);
	}
	/* A middle segment: L=0, MO 4096, MSN 9 (MO/MSN checks are the caller's). */
	base_ulpdu(B_SEND, buf, sizeof(buf));
	buf[O_DDP] = 0x01;
	buf[13] = 9;
	buf[16] = 0x10;
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 22, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_FALSE(test, info.last);
	KUNIT_EXPECT_EQ(test, info.msn, 9);
	KUNIT_EXPECT_EQ(test, info.mo, 4096);
	/* An empty Send is legal too. */
	KUNIT_EXPECT_EQ(test, siw2_ddp_decode(buf, 18, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
}

/*
 * BASE-RDMAP-2: the Invalidate STag is taken from RsvdULP for the two
 * invalidating Sends only; other Sends' RsvdULP is ignored, not rejected.
 */
static void send_inval_stag_base_rdmap_2(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[64];

	base_ulpdu(B_SEND, buf, sizeof(buf));
	buf[2] = 0x12; buf[3] = 0x34; buf[4] = 0x56; buf[5] = 0x78;
	buf[O_RDMAP] = 0x40 | SIW2_OP_SEND_INV;
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 22, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.inval_stag, 0x12345678);
	buf[O_RDMAP] = 0x40 | SIW2_OP_SEND_SE_INV;
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 22, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.inval_stag, 0x12345678);
	buf[O_RDMAP] = 0x40 | SIW2_OP_SEND;
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 22, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.inval_stag, 0);
	buf[O_RDMAP] = 0x40 | SIW2_OP_SEND_SE;
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 22, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.inval_stag, 0);
}

/* BASE-DDP-1, BASE-RDMAP-1: reserved control bits are ignored on receive. */
static void reserved_bits_ignored_base_ddp_1(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[64];

	base_ulpdu(B_WRITE, buf, sizeof(buf));
	buf[O_DDP] |= 0x3c;		/* DDP Rsvd */
	buf[O_RDMAP] |= 0x20;		/* RDMAP Rsv (0x10 is opcode, DEC-1) */
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 14, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_WRITE);
	KUNIT_EXPECT_EQ(test, info.rv, 1);
	KUNIT_EXPECT_EQ(test, info.dv, 1);

	base_ulpdu(B_READ, buf, sizeof(buf));
	buf[O_DDP] |= 0x3c;
	buf[O_RDMAP] |= 0x20;
	buf[2] = 0xff;			/* RsvdULP of a Read Request */
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 46, 1, 0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_READ_REQ);
	KUNIT_EXPECT_EQ(test, info.inval_stag, 0);
}

/* BASE-DDP-3: Write and Read Response segments carry STag/TO and payload. */
static void tagged_payload_base_ddp_3(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[64];
	int last;

	for (last = 0; last < 2; last++) {
		base_ulpdu(B_WRITE, buf, sizeof(buf));
		buf[O_DDP] = last ? 0xc1 : 0x81;
		buf[O_RDMAP] = 0x40 | SIW2_OP_READ_RESP;
		buf[2] = 0xde; buf[5] = 0xef;
		buf[6] = 0x01; buf[13] = 0x02;
		KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 40, 1, 0, &info, &term), 0);
		KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_READ_RESP);
		KUNIT_EXPECT_EQ(test, info.last, !!last);
		KUNIT_EXPECT_EQ(test, info.stag, 0xde0000ef);
		KUNIT_EXPECT_EQ(test, info.to, 0x0100000000000002ULL);
		KUNIT_EXPECT_EQ(test, info.hdr_len, 14);
		KUNIT_EXPECT_EQ(test, info.payload_len, 26);
	}
}

/* DEC-1, DIGEST 1.2: names, 5-bit index. */
static void op_names_dec_1(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(SIW2_OP_WRITE), "RDMA Write");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(SIW2_OP_READ_REQ),
			   "RDMA Read Request");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(SIW2_OP_SEND_SE_INV),
			   "Send with SE and Invalidate");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(SIW2_OP_TERMINATE), "Terminate");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(0x0a), "Atomic Request");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(0x13), "Send with Immediate Data");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(0x0c), "RDMA Commit Request");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(0x0d), "RDMA Commit Response");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(0x0e), "reserved");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(0x10), "reserved");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(0x1f), "reserved");
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(0x23), "Send");
}

/* Decode an image's ULPDU (after ULPDU_Length, before the CRC). */
static int dec_img(const u8 *img, u8 rv, u8 feat, struct siw2_ddp_info *info,
		   struct siw2_term_code *term)
{
	return siw2_ddp_decode(img + 2, (img[0] << 8) | img[1], rv, feat, info,
			       term);
}

/*
 * EXT-ATOMIC-1/6/10/14, EXT-HDR-1/2/4: the FetchAdd image of DIGEST 1.4,
 * its RDMAP control octet (RV, opcode) right after the DDP control field.
 */
static void atomic_req_image_ext_atomic_14(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;

	KUNIT_ASSERT_EQ(test, dec_img(atomic_req_img, 1, F_EXT, &info, &term), 0);
	KUNIT_EXPECT_EQ_MSG(test, info.opcode, SIW2_OP_ATOMIC_REQ,
			    "EXT-HDR-1: the opcode is read from octet 1 of the DDP header");
	KUNIT_EXPECT_EQ(test, info.qn, SIW2_QN_READ_REQ);
	KUNIT_EXPECT_EQ(test, info.msn, 1);
	KUNIT_EXPECT_EQ(test, info.aop, SIW2_AOP_FETCH_ADD);
	KUNIT_EXPECT_EQ(test, info.req_id, 7);
	KUNIT_EXPECT_EQ(test, info.atomic_stag, 0x1234);
	KUNIT_EXPECT_EQ(test, info.atomic_to, 0x1000);
	KUNIT_EXPECT_EQ(test, info.add_swap, 1);
	KUNIT_EXPECT_EQ(test, info.add_swap_mask, 0);
	KUNIT_EXPECT_EQ(test, info.cmp, 0);
	KUNIT_EXPECT_EQ(test, info.cmp_mask, U64_MAX);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
	/* The same image on an RDMAP v2 connection, with RV 2. */
	{
		u8 buf[sizeof(atomic_req_img)];

		memcpy(buf, atomic_req_img, sizeof(buf));
		buf[3] = 0x80 | SIW2_OP_ATOMIC_REQ;
		KUNIT_EXPECT_EQ_MSG(test, dec_img(buf, 2, F_EXT, &info, &term), 0,
				    "EXT-HDR-1: RV 2 in octet 1 of the DDP header");
	}
}

/* EXT-ATOMIC-6: the reserved 28 bits above AOpCode are ignored. */
static void atomic_req_reserved_ext_atomic_6(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[sizeof(atomic_req_img)];

	memcpy(buf, atomic_req_img, sizeof(buf));
	buf[2 + 18] = 0xff;
	buf[2 + 21] = 0xf2;
	KUNIT_ASSERT_EQ(test, dec_img(buf, 1, F_EXT, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.aop, SIW2_AOP_CMP_SWAP);
}

/* EXT-ATOMIC-18/20: the Atomic Response image. */
static void atomic_resp_image_ext_atomic_20(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;

	KUNIT_ASSERT_EQ(test, dec_img(atomic_resp_img, 1, F_EXT, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_ATOMIC_RESP);
	KUNIT_EXPECT_EQ(test, info.qn, SIW2_QN_RESPONSE);
	KUNIT_EXPECT_EQ(test, info.req_id, 7);
	KUNIT_EXPECT_EQ(test, info.orig_value, 0x29);
}

/* EXT-IMM-5/6/9/10, DEC-5: the Immediate Data image. */
static void imm_image_ext_imm_10(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;

	KUNIT_ASSERT_EQ(test, dec_img(imm_img, 1, F_EXT, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_IMM);
	KUNIT_EXPECT_EQ(test, info.msn, 5);
	KUNIT_EXPECT_EQ_MSG(test, info.imm, 0x0102030405060708ULL,
			    "EXT-IMM-5: the 8 octets right after the DDP header");
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
}

/* V2-IMM-7/8, DEC-6: both segments of the Send with Immediate Data image. */
static void send_imm_images_v2_imm_7(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;

	KUNIT_ASSERT_EQ(test, dec_img(send_imm1_img, 2, F_EXT, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_SEND_IMM);
	KUNIT_EXPECT_FALSE(test, info.last);
	KUNIT_EXPECT_EQ(test, info.payload_len, 5);
	KUNIT_EXPECT_EQ(test, info.hdr_len, 18);
	KUNIT_ASSERT_EQ(test, dec_img(send_imm2_img, 2, F_EXT, &info, &term), 0);
	KUNIT_EXPECT_TRUE(test, info.last);
	KUNIT_EXPECT_EQ(test, info.mo, 5);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
	KUNIT_EXPECT_EQ(test, info.imm, 0x0102030405060708ULL);
}

/* V2-READ-1/4/5: the Read V2 Request and Response images. */
static void read_v2_images_v2_read_4(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;

	KUNIT_ASSERT_EQ(test, dec_img(read_v2_req_img, 2, F_EXT, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_READ_V2_REQ);
	KUNIT_EXPECT_EQ_MSG(test, info.qn, SIW2_QN_READ_REQ,
			    "V2-HDR-5: Read V2 Request on QN 1");
	KUNIT_EXPECT_EQ(test, info.read_size, 4096);
	KUNIT_EXPECT_EQ(test, info.src_stag, 0x5678);
	KUNIT_EXPECT_EQ(test, info.src_to, 0x20000);
	KUNIT_ASSERT_EQ(test, dec_img(read_v2_resp_img, 2, F_EXT, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_READ_V2_RESP);
	KUNIT_EXPECT_EQ_MSG(test, info.qn, SIW2_QN_RESPONSE,
			    "V2-HDR-5: Read V2 Response on QN 3");
	KUNIT_EXPECT_EQ(test, info.hdr_len, 18);
	KUNIT_EXPECT_EQ(test, info.payload_len, 8);
}

/*
 * COMMIT-HDR-1/3/5, AMB-15: the Commit Request image of DIGEST 1.4, CRC
 * and every field, MO present and 0; the header of Figure 2 field by field.
 */
static void commit_req_image_commit_hdr_5(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	size_t len = 0;
	u8 buf[38];

	KUNIT_EXPECT_EQ(test, siw2_fpdu_check(commit_req_img, sizeof(commit_req_img),
					      true, &len), SIW2_FPDU_OK);
	KUNIT_EXPECT_EQ(test, len, 44);
	KUNIT_ASSERT_EQ(test, dec_img(commit_req_img, 1, F_COM, &info, &term), 0);
	KUNIT_EXPECT_FALSE(test, info.tagged);
	KUNIT_EXPECT_TRUE(test, info.last);
	KUNIT_EXPECT_EQ(test, info.dv, 1);
	KUNIT_EXPECT_EQ(test, info.rv, 1);
	KUNIT_EXPECT_EQ(test, info.opcode, 0x0c);
	KUNIT_EXPECT_EQ(test, info.qn, 1);			/* COMMIT-HDR-3 */
	KUNIT_EXPECT_EQ(test, info.msn, 1);
	KUNIT_EXPECT_EQ(test, info.mo, 0);			/* AMB-15 */
	KUNIT_EXPECT_EQ(test, info.inval_stag, 0);
	KUNIT_EXPECT_EQ(test, info.req_id, 9);			/* COMMIT-HDR-5 */
	KUNIT_EXPECT_EQ(test, info.sink_stag, 0x1234);
	KUNIT_EXPECT_EQ(test, info.sink_len, 4096);
	KUNIT_EXPECT_EQ(test, info.sink_to, 0x1000);
	KUNIT_EXPECT_EQ(test, info.hdr_len, 38);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(info.opcode), "RDMA Commit Request");

	/* Every field where Figure 2 puts it, big-endian. */
	memcpy(buf, commit_req_img + 2, sizeof(buf));
	memset(buf + 18, 0, 20);
	buf[13] = 0x05;					/* MSN 5 */
	buf[18] = 0xa1; buf[21] = 0xa2;			/* Request Identifier */
	buf[22] = 0xb1; buf[25] = 0xb2;			/* Data Sink STag */
	buf[26] = 0xc1; buf[29] = 0xc2;			/* Data Sink Length */
	buf[30] = 0xd1; buf[37] = 0xd2;			/* Data Sink TO */
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, sizeof(buf), 1, F_COM, &info,
					      &term), 0);
	KUNIT_EXPECT_EQ(test, info.msn, 5);
	KUNIT_EXPECT_EQ(test, info.req_id, 0xa10000a2);		/* COMMIT-HDR-5 */
	KUNIT_EXPECT_EQ(test, info.sink_stag, 0xb10000b2);
	KUNIT_EXPECT_EQ(test, info.sink_len, 0xc10000c2);
	KUNIT_EXPECT_EQ(test, info.sink_to, 0xd1000000000000d2ULL);

	/* The wire struct matches Figure 2 too. */
	KUNIT_EXPECT_EQ(test, offsetof(struct siw2_rdmap_commit_req, req_id), 0);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw2_rdmap_commit_req, sink_stag), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw2_rdmap_commit_req, sink_len), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw2_rdmap_commit_req, sink_to), 12);
	KUNIT_EXPECT_EQ(test, sizeof(struct siw2_rdmap_commit_req), 20);
}

/*
 * COMMIT-HDR-4/6, DEC-13: the Commit Response image of DIGEST 1.4, CRC and
 * every field; any Status is decoded as sent (its meaning is the
 * Requester's).
 */
static void commit_resp_image_commit_hdr_6(struct kunit *test)
{
	static const u32 st[] = {
		SIW2_COMMIT_ST_MEDIA, SIW2_COMMIT_ST_LIMITS, SIW2_COMMIT_ST_RETRY,
		0xdeadbeef,
	};
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	size_t len = 0;
	u8 buf[26];
	int i;

	KUNIT_EXPECT_EQ(test, siw2_fpdu_check(commit_resp_img, sizeof(commit_resp_img),
					      true, &len), SIW2_FPDU_OK);
	KUNIT_EXPECT_EQ(test, len, 32);
	KUNIT_ASSERT_EQ(test, dec_img(commit_resp_img, 1, F_COM, &info, &term), 0);
	KUNIT_EXPECT_FALSE(test, info.tagged);
	KUNIT_EXPECT_TRUE(test, info.last);
	KUNIT_EXPECT_EQ(test, info.dv, 1);
	KUNIT_EXPECT_EQ(test, info.rv, 1);
	KUNIT_EXPECT_EQ(test, info.opcode, 0x0d);
	KUNIT_EXPECT_EQ(test, info.qn, 3);			/* COMMIT-HDR-4 */
	KUNIT_EXPECT_EQ(test, info.msn, 1);
	KUNIT_EXPECT_EQ(test, info.mo, 0);
	KUNIT_EXPECT_EQ(test, info.req_id, 9);			/* COMMIT-HDR-6 */
	KUNIT_EXPECT_EQ(test, info.commit_status, SIW2_COMMIT_ST_OK);
	KUNIT_EXPECT_EQ(test, info.hdr_len, 26);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
	KUNIT_EXPECT_STREQ(test, siw2_rdmap_op_name(info.opcode), "RDMA Commit Response");

	/* DEC-13's values are 1, 2, 3; others pass through unchanged. */
	KUNIT_EXPECT_EQ(test, SIW2_COMMIT_ST_OK, 0);
	KUNIT_EXPECT_EQ(test, SIW2_COMMIT_ST_MEDIA, 1);
	KUNIT_EXPECT_EQ(test, SIW2_COMMIT_ST_LIMITS, 2);
	KUNIT_EXPECT_EQ(test, SIW2_COMMIT_ST_RETRY, 3);
	memcpy(buf, commit_resp_img + 2, sizeof(buf));
	buf[18] = 0x80; buf[21] = 0x01;			/* OrigReqID 0x80000001 */
	for (i = 0; i < ARRAY_SIZE(st); i++) {
		buf[22] = st[i] >> 24;
		buf[23] = st[i] >> 16;
		buf[24] = st[i] >> 8;
		buf[25] = st[i];
		KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, sizeof(buf), 1, F_COM,
						      &info, &term), 0);
		KUNIT_EXPECT_EQ(test, info.req_id, 0x80000001);	/* COMMIT-HDR-6 */
		KUNIT_EXPECT_EQ(test, info.commit_status, st[i]);	/* DEC-13 */
	}
	KUNIT_EXPECT_EQ(test, offsetof(struct siw2_rdmap_commit_resp, status), 4);
	KUNIT_EXPECT_EQ(test, sizeof(struct siw2_rdmap_commit_resp), 8);
}

/*
 * COMMIT-HDR-1, AMB-4, DEC-4: both Commit messages decode with the
 * connection's RV, 1 or 2, once Commit is negotiated (with or without
 * RFC 7306). COMMIT-HDR-7: their reserved control bits are ignored, as
 * RFC 5041 and RFC 5040 say for every message.
 */
static void commit_rv_and_feat_commit_hdr_1(struct kunit *test)
{
	static const u8 feats[] = { F_COM, F_ALL };
	const u8 *imgs[] = { commit_req_img, commit_resp_img };
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[sizeof(commit_req_img)];
	int i, f, rv;

	for (i = 0; i < ARRAY_SIZE(imgs); i++) {
		for (f = 0; f < ARRAY_SIZE(feats); f++) {
			for (rv = 1; rv <= 2; rv++) {
				memcpy(buf, imgs[i], imgs[i][1] + 2);
				buf[3] = rv << 6 | (imgs[i][3] & 0x1f);
				KUNIT_EXPECT_EQ_MSG(test, dec_img(buf, rv, feats[f], &info,
								  &term), 0,
						    "img %d feat %u rv %d", i, feats[f], rv);
				KUNIT_EXPECT_EQ(test, info.rv, rv);	/* COMMIT-HDR-1 */
				KUNIT_EXPECT_EQ(test, info.opcode, 0x0c + i);
				KUNIT_EXPECT_EQ(test, info.req_id, 9);
				buf[2] |= 0x3c;			/* DDP Rsvd */
				buf[3] |= 0x20;			/* RDMAP Rsv */
				KUNIT_EXPECT_EQ(test, dec_img(buf, rv, feats[f], &info,
							      &term), 0);	/* COMMIT-HDR-7 */
				KUNIT_EXPECT_EQ(test, info.opcode, 0x0c + i);
			}
		}
	}
}

/*
 * DEC-12, COMMIT-HDR-2, DEC-20: a zero Length decodes (it commits
 * nothing, the Responder's call), so does the largest; a Commit Request's
 * Invalidate STag is decoded, a Response's RsvdULP ignored.
 */
static void commit_zero_len_and_inval_dec_12(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[sizeof(commit_req_img)];

	memcpy(buf, commit_req_img, sizeof(buf));
	buf[2 + 28] = 0x00;				/* Length 0 */
	buf[2 + 29] = 0x00;
	KUNIT_ASSERT_EQ(test, dec_img(buf, 1, F_COM, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.sink_len, 0);		/* DEC-12 */
	KUNIT_EXPECT_EQ(test, info.sink_stag, 0x1234);
	KUNIT_EXPECT_EQ(test, info.sink_to, 0x1000);
	KUNIT_EXPECT_EQ(test, info.payload_len, 0);
	memset(buf + 2 + 26, 0xff, 4);			/* Length 2^32 - 1 */
	KUNIT_ASSERT_EQ(test, dec_img(buf, 1, F_COM, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.sink_len, U32_MAX);		/* DEC-12 */

	buf[2 + 2] = 0x87; buf[2 + 5] = 0x65;		/* Invalidate STag */
	KUNIT_ASSERT_EQ(test, dec_img(buf, 1, F_COM, &info, &term), 0);
	KUNIT_EXPECT_EQ_MSG(test, info.inval_stag, 0x87000065,
			    "COMMIT-HDR-2, DEC-20: a non-zero Invalidate STag is decoded");

	memcpy(buf, commit_resp_img, sizeof(commit_resp_img));
	buf[2 + 2] = 0x87; buf[2 + 5] = 0x65;
	KUNIT_ASSERT_EQ(test, dec_img(buf, 1, F_COM, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.inval_stag, 0);		/* COMMIT-HDR-2 */
}

/*
 * SIW2-DEC-1, COMMIT-ATOM-2: siw2's log update after a Commit Request's
 * region, octet for octet: type 0x8001, reserved 0, Log STag, Log TO,
 * then the 8 value octets as they are (no byte order applied). Decoding
 * gives back what was encoded, and the DDP decoder sees the 24 octets as
 * the Request's payload.
 */
static void commit_log_image_dec_1(struct kunit *test)
{
	static const u8 img[24] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x56, 0x78,
		0x00, 0x00, 0x7f, 0x00, 0x00, 0x00, 0x20, 0x08,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	struct siw2_commit_log_info in = { .stag = 0x5678, .to = 0x7f0000002008ULL };
	struct siw2_commit_log_info out = {};
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[38 + 24];

	memcpy(&in.value, img + 16, 8);
	siw2_commit_log_encode(buf + 38, &in);
	KUNIT_EXPECT_MEMEQ(test, buf + 38, img, sizeof(img));
	KUNIT_ASSERT_TRUE(test, siw2_commit_log_decode(img, sizeof(img), &out));
	KUNIT_EXPECT_EQ(test, out.stag, 0x5678);
	KUNIT_EXPECT_EQ(test, out.to, 0x7f0000002008ULL);
	KUNIT_EXPECT_MEMEQ(test, &out.value, img + 16, 8);

	memcpy(buf, commit_req_img + 2, 38);
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, sizeof(buf), 1, F_COM, &info,
					      &term), 0);
	KUNIT_EXPECT_EQ(test, info.hdr_len, 38);
	KUNIT_EXPECT_EQ(test, info.payload_len, 24);
	KUNIT_EXPECT_EQ(test, sizeof(struct siw2_rdmap_commit_log), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw2_rdmap_commit_log, log_stag), 4);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw2_rdmap_commit_log, log_to), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct siw2_rdmap_commit_log, value), 16);
}

/*
 * AMB-14 kept beside SIW2-DEC-1: any tail that is not exactly a log
 * update (another length, another type, reserved bits set) is no log
 * update, so the Responder answers Status 2 and stores nothing.
 */
static void commit_log_refuses_other_tails_amb_14(struct kunit *test)
{
	static const size_t lens[] = { 0, 1, 16, 23, 25, 48 };
	struct siw2_commit_log_info log = { .stag = 1, .to = 8, .value = 3 };
	struct siw2_commit_log_info out;
	u8 t[48];
	int i;

	memset(t, 0, sizeof(t));
	siw2_commit_log_encode(t, &log);
	KUNIT_EXPECT_TRUE(test, siw2_commit_log_decode(t, 24, &out));
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		KUNIT_EXPECT_FALSE_MSG(test, siw2_commit_log_decode(t, lens[i], &out),
				       "length %zu", lens[i]);
	t[1] = 0x02;					/* type 0x8002 */
	KUNIT_EXPECT_FALSE(test, siw2_commit_log_decode(t, 24, &out));
	t[0] = 0x00; t[1] = 0x01;			/* type 1 */
	KUNIT_EXPECT_FALSE(test, siw2_commit_log_decode(t, 24, &out));
	siw2_commit_log_encode(t, &log);
	t[3] = 0x01;					/* reserved */
	KUNIT_EXPECT_FALSE(test, siw2_commit_log_decode(t, 24, &out));
	t[3] = 0;
	t[2] = 0x80;
	KUNIT_EXPECT_FALSE(test, siw2_commit_log_decode(t, 24, &out));
}

/*
 * AMB-14, COMMIT-VAL-2: a Commit Request with octets after its 20-octet
 * header (more regions, a ULP message) is no DDP or RDMAP error: it
 * decodes, header fields intact, the extra octets as payload, so the
 * Responder can answer Status 2 without a Terminate.
 */
static void commit_req_tail_amb_14(struct kunit *test)
{
	static const u16 tails[] = { 1, 3, 4, 20, 64 };
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[38 + 64];
	u8 *big;
	int i;

	memcpy(buf, commit_req_img + 2, 38);
	memset(buf + 38, 0x5a, sizeof(buf) - 38);
	for (i = 0; i < ARRAY_SIZE(tails); i++) {
		KUNIT_ASSERT_EQ_MSG(test, siw2_ddp_decode(buf, 38 + tails[i], 1, F_COM,
							  &info, &term), 0,
				    "tail %u", tails[i]);
		KUNIT_EXPECT_EQ(test, info.hdr_len, 38);		/* AMB-14 */
		KUNIT_EXPECT_EQ(test, info.payload_len, tails[i]);	/* AMB-14 */
		KUNIT_EXPECT_EQ(test, info.req_id, 9);
		KUNIT_EXPECT_EQ(test, info.sink_stag, 0x1234);
		KUNIT_EXPECT_EQ(test, info.sink_len, 4096);
		KUNIT_EXPECT_EQ(test, info.sink_to, 0x1000);
	}
	/* So is the longest ULPDU an FPDU can carry. */
	big = kunit_kzalloc(test, U16_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, big);
	memcpy(big, commit_req_img + 2, 38);
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(big, U16_MAX, 1, F_COM, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.payload_len, U16_MAX - 38);		/* AMB-14 */
	KUNIT_EXPECT_EQ(test, info.sink_len, 4096);
	/* The Response has no such room: one octet more is 0/2/0x06. */
	memcpy(buf, commit_resp_img + 2, 26);
	buf[26] = 0;
	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(buf, 27, 1, F_COM, &info, &term), -EPROTO);
	KUNIT_EXPECT_EQ(test, term.layer, 0);		/* COMMIT-HDR-6 */
	KUNIT_EXPECT_EQ(test, term.etype, 2);
	KUNIT_EXPECT_EQ(test, term.code, 6);
}

/*
 * DEC-4, COMMIT-DISC-2: siw2_conn_feat() turns on Commit only when both
 * sides advertised its bit; any acknowledged bit means RFC 7306.
 */
static void conn_feat_dec_4(struct kunit *test)
{
	static const struct { u8 caps, feat; } t[] = {
		{ 0, 0 },
		{ SIW2_MPA_CAP_RDMAP_V2, F_EXT },
		{ SIW2_MPA_CAP_COMMIT, F_EXT | F_COM },
		{ SIW2_MPA_CAP_RDMAP_V2 | SIW2_MPA_CAP_COMMIT, F_EXT | F_COM },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct siw2_mpa_conn c = { .caps = t[i].caps };

		KUNIT_EXPECT_EQ_MSG(test, siw2_conn_feat(&c), t[i].feat,
				    "caps 0x%02x", t[i].caps);	/* DEC-4 */
	}
}

struct ext_case {
	const char *desc;
	const u8 *img;
	int len;		/* ULPDU length, 0: the image's own */
	struct patch p[2];
	u8 np;
	u8 rv;
	u8 feat;
	u8 layer, etype, code;
	const char *req;	/* the requirements the row asserts, for messages */
};

static const struct ext_case ext_cases[] = {
	/* The extensions only where the receiver processes them. */
	{ "ext_hdr_2_atomic_without_ext_0_2_6", atomic_req_img, 0, {}, 0, 1, 0,
	  T(0, 2, 6), .req = "EXT-HDR-2, EXT-ERR-4" },
	{ "ext_hdr_2_imm_without_ext_0_2_6", imm_img, 0, {}, 0, 1, 0, T(0, 2, 6),
	  .req = "EXT-HDR-2, EXT-ERR-4" },
	{ "v2_hdr_4_send_imm_without_ext_0_2_6", send_imm2_img, 0, {}, 0, 2, 0,
	  T(0, 2, 6), .req = "V2-HDR-4, V2-ERR-3" },
	/* DEC-1, V2-HDR-4: v2 opcodes on RV 1 are unexpected, with or without ext. */
	{ "dec_1_read_v2_on_rv1_0_2_6", read_v2_req_img, 0, P1(O_RDMAP, 0x51), 1, F_EXT,
	  T(0, 2, 6), .req = "DEC-1, V2-HDR-3/4, EXT-ERR-4" },
	{ "dec_1_send_imm_on_rv1_0_2_6", send_imm2_img, 0, P1(O_RDMAP, 0x53), 1, F_EXT,
	  T(0, 2, 6), .req = "DEC-1, V2-HDR-3/4, EXT-ERR-4" },
	/* V2-HDR-1, BASE-RDMAP-1: RV 1 messages on an RV 2 connection. */
	{ "v2_hdr_1_atomic_rv1_on_rv2_0_2_5", atomic_req_img, 0, {}, 0, 2, F_EXT,
	  T(0, 2, 5), .req = "V2-HDR-1, V2-ERR-3, EXT-ERR-5" },
	/*
	 * COMMIT-DISC-2, DEC-4: Commit only where both sides advertised it,
	 * else Remote Operation / Unexpected OpCode; RFC 7306 alone is not
	 * enough, and Commit does not enable RFC 7306.
	 */
	{ "commit_disc_2_req_unneg_0_2_6", commit_req_img, 0, {}, 0, 1, 0, T(0, 2, 6) },
	{ "commit_disc_2_req_ext_only_0_2_6", commit_req_img, 0, {}, 0, 1, F_EXT,
	  T(0, 2, 6) },
	{ "commit_disc_2_resp_unneg_0_2_6", commit_resp_img, 0, {}, 0, 1, 0,
	  T(0, 2, 6) },
	{ "commit_disc_2_resp_ext_only_0_2_6", commit_resp_img, 0, {}, 0, 1, F_EXT,
	  T(0, 2, 6) },
	{ "commit_disc_2_req_rv2_ext_only_0_2_6", commit_req_img, 0, P1(O_RDMAP, 0x8c),
	  2, F_EXT, T(0, 2, 6) },
	{ "commit_disc_2_resp_rv2_unneg_0_2_6", commit_resp_img, 0, P1(O_RDMAP, 0x8d),
	  2, 0, T(0, 2, 6) },
	{ "dec_4_atomic_commit_only_0_2_6", atomic_req_img, 0, {}, 0, 1, F_COM,
	  T(0, 2, 6), .req = "DEC-4, EXT-ERR-4" },
	{ "dec_4_imm_commit_only_0_2_6", imm_img, 0, {}, 0, 1, F_COM, T(0, 2, 6),
	  .req = "DEC-4, EXT-ERR-4" },
	/* COMMIT-HDR-1, AMB-4: the connection's RV only, 0/2/0x05 otherwise. */
	{ "commit_hdr_1_req_rv1_on_rv2_0_2_5", commit_req_img, 0, {}, 0, 2, F_ALL,
	  T(0, 2, 5) },
	{ "commit_hdr_1_resp_rv1_on_rv2_0_2_5", commit_resp_img, 0, {}, 0, 2, F_ALL,
	  T(0, 2, 5) },
	{ "commit_hdr_1_req_rv2_on_rv1_0_2_5", commit_req_img, 0, P1(O_RDMAP, 0x8c), 1,
	  F_ALL, T(0, 2, 5) },
	{ "commit_hdr_1_resp_rv2_on_rv1_0_2_5", commit_resp_img, 0, P1(O_RDMAP, 0x8d), 1,
	  F_ALL, T(0, 2, 5) },
	{ "commit_hdr_1_req_rv0_0_2_5", commit_req_img, 0, P1(O_RDMAP, 0x0c), 1, F_ALL,
	  T(0, 2, 5) },
	/*
	 * COMMIT-VAL-1, COMMIT-HDR-3/4/7: DDP validates every field; T, QN,
	 * L and MO as for an Atomic (AMB-15: MO present, 0).
	 */
	{ "commit_hdr_7_req_dv0_1_2_6", commit_req_img, 0, P1(O_DDP, 0x40), 1, F_ALL,
	  T(1, 2, 6) },
	{ "commit_hdr_7_resp_dv2_1_2_6", commit_resp_img, 0, P1(O_DDP, 0x42), 1, F_ALL,
	  T(1, 2, 6) },
	{ "commit_hdr_3_req_tagged_0_2_6", commit_req_img, 0, P1(O_DDP, 0xc1), 1, F_ALL,
	  T(0, 2, 6) },
	{ "commit_hdr_4_resp_tagged_0_2_6", commit_resp_img, 0, P1(O_DDP, 0xc1), 1,
	  F_ALL, T(0, 2, 6) },
	{ "commit_hdr_3_req_qn0_1_2_1", commit_req_img, 0, P1(O_QN, 0), 1, F_ALL,
	  T(1, 2, 1) },
	{ "commit_hdr_3_req_qn2_1_2_1", commit_req_img, 0, P1(O_QN, 2), 1, F_ALL,
	  T(1, 2, 1) },
	{ "commit_hdr_3_req_qn3_1_2_1", commit_req_img, 0, P1(O_QN, 3), 1, F_ALL,
	  T(1, 2, 1) },
	{ "commit_hdr_3_req_qn_2p24_1_2_1", commit_req_img, 0, P1(O_QN_HI, 1), 1, F_ALL,
	  T(1, 2, 1) },
	{ "commit_hdr_4_resp_qn0_1_2_1", commit_resp_img, 0, P1(O_QN, 0), 1, F_ALL,
	  T(1, 2, 1) },
	{ "commit_hdr_4_resp_qn1_1_2_1", commit_resp_img, 0, P1(O_QN, 1), 1, F_ALL,
	  T(1, 2, 1) },
	{ "commit_val_1_req_l0_0_2_6", commit_req_img, 0, P1(O_DDP, 0x01), 1, F_ALL,
	  T(0, 2, 6) },
	{ "commit_val_1_req_l0_rv2_0_2_6", commit_req_img, 0,
	  P2(O_DDP, 0x01, O_RDMAP, 0x8c), 2, F_ALL, T(0, 2, 6) },
	{ "commit_val_1_resp_l0_0_2_6", commit_resp_img, 0, P1(O_DDP, 0x01), 1, F_ALL,
	  T(0, 2, 6) },
	{ "commit_val_1_req_mo1_1_2_4", commit_req_img, 0, P1(O_MO, 1), 1, F_ALL,
	  T(1, 2, 4) },
	{ "commit_val_1_req_mo_2p24_1_2_4", commit_req_img, 0, P1(14, 1), 1, F_ALL,
	  T(1, 2, 4) },
	{ "commit_val_1_resp_mo8_1_2_4", commit_resp_img, 0, P1(O_MO, 8), 1, F_ALL,
	  T(1, 2, 4) },
	/* COMMIT-HDR-5/6: at least the 20-octet Request, exactly the 8-octet Response. */
	{ "commit_hdr_5_req_37_0_2_6", commit_req_img, 37, {}, 0, 1, F_ALL, T(0, 2, 6) },
	{ "commit_hdr_5_req_22_0_2_6", commit_req_img, 22, {}, 0, 1, F_ALL, T(0, 2, 6) },
	{ "commit_hdr_5_req_18_0_2_6", commit_req_img, 18, {}, 0, 1, F_ALL, T(0, 2, 6) },
	{ "commit_hdr_5_req_17_1_0_0", commit_req_img, 17, {}, 0, 1, F_ALL, T(1, 0, 0) },
	{ "commit_hdr_6_resp_25_0_2_6", commit_resp_img, 25, {}, 0, 1, F_ALL,
	  T(0, 2, 6) },
	{ "commit_hdr_6_resp_18_0_2_6", commit_resp_img, 18, {}, 0, 1, F_ALL,
	  T(0, 2, 6) },
	{ "commit_hdr_6_resp_27_0_2_6", commit_resp_img, 27, {}, 0, 1, F_ALL,
	  T(0, 2, 6) },
	{ "commit_hdr_6_resp_46_0_2_6", commit_resp_img, 46, {}, 0, 1, F_ALL,
	  T(0, 2, 6) },
	/* EXT-HDR-4: T bit, QN, single segment. */
	{ "ext_hdr_4_atomic_tagged_0_2_6", atomic_req_img, 0, P1(O_DDP, 0xc1), 1, F_EXT,
	  T(0, 2, 6), .req = "EXT-HDR-4, EXT-ATOMIC-10, EXT-ERR-3" },
	{ "ext_atomic_14_atomic_qn0_1_2_1", atomic_req_img, 0, P1(O_QN, 0), 1, F_EXT,
	  T(1, 2, 1), .req = "EXT-ATOMIC-14, EXT-ERR-3" },
	{ "ext_atomic_20_resp_qn1_1_2_1", atomic_resp_img, 0, P1(O_QN, 1), 1, F_EXT,
	  T(1, 2, 1), .req = "EXT-ATOMIC-20, EXT-ERR-3" },
	{ "ext_imm_9_imm_qn1_1_2_1", imm_img, 0, P1(O_QN, 1), 1, F_EXT, T(1, 2, 1),
	  .req = "EXT-IMM-9, EXT-ERR-3" },
	{ "v2_read_1_resp_qn0_1_2_1", read_v2_resp_img, 0, P1(O_QN, 0), 2, F_EXT,
	  T(1, 2, 1), .req = "V2-READ-1, V2-HDR-5, V2-ERR-3" },
	{ "ext_atomic_11_atomic_l0_0_2_6", atomic_req_img, 0, P1(O_DDP, 0x01), 1, F_EXT,
	  T(0, 2, 6), .req = "EXT-ERR-3" },
	{ "ext_atomic_11_atomic_mo8_1_2_4", atomic_req_img, 0, P1(O_MO, 8), 1, F_EXT,
	  T(1, 2, 4), .req = "EXT-ERR-3" },
	{ "ext_imm_7_imm_l0_0_2_6", imm_img, 0, P1(O_DDP, 0x01), 1, F_EXT, T(0, 2, 6),
	  .req = "EXT-ERR-3" },
	/* The header is exactly as long as the opcode says. */
	{ "ext_hdr_5_atomic_69_0_2_6", atomic_req_img, 69, {}, 0, 1, F_EXT, T(0, 2, 6) },
	{ "ext_hdr_5_atomic_payload_0_2_6", atomic_req_img, 71, {}, 0, 1, F_EXT,
	  T(0, 2, 6) },
	{ "ext_hdr_5_resp_29_0_2_6", atomic_resp_img, 29, {}, 0, 1, F_EXT, T(0, 2, 6) },
	{ "v2_read_4_req_33_0_2_6", read_v2_req_img, 33, {}, 0, 2, F_EXT, T(0, 2, 6),
	  .req = "V2-READ-4, V2-HDR-7" },
	/* EXT-IMM-12, V2-IMM-8, DEC-9: 8 octets of immediate, exactly. */
	{ "dec_9_imm_7_0_2_ff", imm_img, 25, {}, 0, 1, F_EXT, T(0, 2, 0xff),
	  .req = "EXT-IMM-12, DEC-9" },
	{ "dec_9_imm_9_0_2_ff", imm_img, 27, {}, 0, 1, F_EXT, T(0, 2, 0xff),
	  .req = "EXT-IMM-12, DEC-9" },
	{ "dec_9_send_imm_tail_7_0_2_ff", send_imm2_img, 25, {}, 0, 2, F_EXT,
	  T(0, 2, 0xff), .req = "V2-IMM-8, V2-HDR-7, DEC-9" },
	{ "dec_9_send_imm_tail_9_0_2_ff", send_imm2_img, 27, {}, 0, 2, F_EXT,
	  T(0, 2, 0xff), .req = "V2-IMM-8, V2-HDR-7, DEC-9" },
	{ "v2_imm_8_send_imm_tail_empty_0_2_ff", send_imm2_img, 18, {}, 0, 2, F_EXT,
	  T(0, 2, 0xff), .req = "V2-IMM-8, V2-HDR-7" },
};

static void ext_case_desc(const struct ext_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ext, ext_cases, ext_case_desc);

/*
 * EXT-ERR-3: the DDP fields of the extension messages are validated (T, QN,
 * L, MO, length); V2-HDR-7: each opcode's header and payload as Figure 3.
 */
static void ext_decode_rejects_table(struct kunit *test)
{
	const struct ext_case *t = test->param_value;
	struct siw2_term_code term = { 0xff, 0xff, 0xff };
	struct siw2_ddp_info info;
	size_t len = (t->img[0] << 8) | t->img[1];
	u8 buf[80];
	int i;

	memset(buf, 0, sizeof(buf));
	memcpy(buf, t->img + 2, len);
	if (t->len)
		len = t->len;
	for (i = 0; i < t->np; i++)
		buf[t->p[i].off] = t->p[i].val;
	KUNIT_ASSERT_EQ_MSG(test, siw2_ddp_decode(buf, len, t->rv, t->feat, &info,
						  &term), -EPROTO, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, term.layer, t->layer, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, term.etype, t->etype, "%s", t->req ?: "");
	KUNIT_EXPECT_EQ_MSG(test, term.code, t->code, "%s", t->req ?: "");
}

/*
 * V2-HDR-1: every RFC 5040 operation is valid on RV 2 (its image, RV 2);
 * V2-HDR-3: read as 5 bits, their opcodes and layouts are unchanged.
 */
static void rfc5040_on_rv2_v2_hdr_1(struct kunit *test)
{
	struct siw2_term_code term;
	struct siw2_ddp_info info;
	u8 buf[64];
	int b;

	for (b = B_WRITE; b <= B_SEND; b++) {
		size_t len = base_ulpdu(b, buf, sizeof(buf));

		buf[O_RDMAP] = (buf[O_RDMAP] & 0x3f) | 0x80;
		KUNIT_EXPECT_EQ_MSG(test, siw2_ddp_decode(buf, len, 2, 0, &info,
							  &term), 0,
				    "V2-HDR-1/3: RFC 5040 opcode 0x%02x on RV 2",
				    buf[O_RDMAP] & 0x1f);
	}
}

/*
 * The header length RX gathers before decoding (siw2_ddp_hdr_len()) is the
 * one the decoder then finds, for every opcode and L bit: an Atomic
 * Request (70) is the longest; a Send with Immediate Data's last segment
 * counts its 8 octets (DEC-6); a Commit Request its 20 octets only, on
 * either RV (AMB-14: what follows is payload).
 */
static void hdr_len_per_opcode(struct kunit *test)
{
	static const struct {
		u16 ctrl;
		u32 len;
	} t[] = {
		{ 0xc140 | SIW2_OP_WRITE, 14 },
		{ 0x4140 | SIW2_OP_READ_REQ, 18 + 28 },
		{ 0xc140 | SIW2_OP_READ_RESP, 14 },
		{ 0x4140 | SIW2_OP_SEND, 18 },
		{ 0x4140 | SIW2_OP_TERMINATE, 18 + 4 },
		{ 0x4140 | SIW2_OP_IMM, 18 + 8 },
		{ 0x4140 | SIW2_OP_ATOMIC_REQ, 18 + 52 },
		{ 0x4140 | SIW2_OP_ATOMIC_RESP, 18 + 12 },
		{ 0x4140 | SIW2_OP_COMMIT_REQ, 18 + 20 },
		{ 0x4180 | SIW2_OP_COMMIT_REQ, 18 + 20 },
		{ 0x4140 | SIW2_OP_COMMIT_RESP, 18 + 8 },
		{ 0x4180 | SIW2_OP_READ_V2_REQ, 18 + 16 },
		{ 0x4180 | SIW2_OP_READ_V2_RESP, 18 },
		{ 0x0180 | SIW2_OP_SEND_IMM, 18 },
		{ 0x4180 | SIW2_OP_SEND_IMM, 18 + 8 },
		{ 0x4180 | SIW2_OP_SEND_SE_INV_IMM, 18 + 8 },
		{ 0x4140 | 0x1f, 18 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_ddp_hdr_len(t[i].ctrl), t[i].len,
				    "ctrl 0x%04x", t[i].ctrl);
	KUNIT_EXPECT_LE(test, siw2_ddp_hdr_len(0x4140 | SIW2_OP_ATOMIC_REQ),
			(u32)SIW2_DDP_HDR_MAX);
}

/*
 * What the transmit engine derives from the opcode table: tagged or not
 * and the queue number of every opcode it sends (RFC 5040 4.1/5.1;
 * EXT-IMM-9, EXT-ATOMIC-14, EXT-ATOMIC-20, V2-READ-1, V2-HDR-5,
 * COMMIT-HDR-3, COMMIT-HDR-4), and the eight Send opcodes by Invalidate,
 * Solicited Event and Immediate Data (RFC 5040 4.3, V2-HDR-4). Expected
 * values written out, not taken from the table.
 */
static void tx_op_queue_and_send_ops(struct kunit *test)
{
	static const struct {
		u8 op;
		bool tagged;
		u32 qn;
		const char *req;
	} t[] = {
		{ SIW2_OP_WRITE, true, 0 },
		{ SIW2_OP_READ_REQ, false, 1 },
		{ SIW2_OP_READ_RESP, true, 0 },
		{ SIW2_OP_SEND, false, 0 },
		{ SIW2_OP_SEND_SE_INV, false, 0 },
		{ SIW2_OP_TERMINATE, false, 2 },
		{ SIW2_OP_IMM, false, 0, .req = "EXT-IMM-6/9" },
		{ SIW2_OP_IMM_SE, false, 0, .req = "EXT-IMM-6/9" },
		{ SIW2_OP_ATOMIC_REQ, false, 1, .req = "EXT-ATOMIC-10/14" },
		{ SIW2_OP_ATOMIC_RESP, false, 3, .req = "EXT-ATOMIC-20" },
		{ SIW2_OP_COMMIT_REQ, false, 1, .req = "COMMIT-HDR-3" },
		{ SIW2_OP_COMMIT_RESP, false, 3, .req = "COMMIT-HDR-4" },
		{ SIW2_OP_READ_V2_REQ, false, 1, .req = "V2-HDR-5" },
		{ SIW2_OP_READ_V2_RESP, false, 3, .req = "V2-READ-1, V2-HDR-5" },
		{ SIW2_OP_SEND_IMM, false, 0, .req = "V2-HDR-5" },
		{ SIW2_OP_SEND_SE_INV_IMM, false, 0, .req = "V2-HDR-5" },
	};
	static const u8 send[8] = {	/* index: imm << 2 | se << 1 | inv */
		0x03, 0x04, 0x05, 0x06, 0x13, 0x14, 0x15, 0x16,
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		KUNIT_EXPECT_EQ_MSG(test, siw2_rdmap_op_tagged(t[i].op),
				    t[i].tagged, "op 0x%02x %s", t[i].op, t[i].req ?: "");
		if (!t[i].tagged)
			KUNIT_EXPECT_EQ_MSG(test, siw2_rdmap_op_qn(t[i].op),
					    t[i].qn, "op 0x%02x %s", t[i].op, t[i].req ?: "");
	}
	for (i = 0; i < ARRAY_SIZE(send); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    siw2_rdmap_send_op(i & 1, i & 2, i & 4),
				    send[i], "imm %d se %d inv %d", !!(i & 4),
				    !!(i & 2), i & 1);
}

/*
 * Linux siw's Terminate MPA 2/0/4 (`02 04 00 00`) decodes as a Terminate;
 * the RFC reading 0/2/4 is no known code, the swapped one is.
 */
static void siw_swapped_terminate_base_rdmap_8(struct kunit *test)
{
	struct siw2_term_code term, code;
	struct siw2_ddp_info info;
	bool m, d, r, swapped;

	KUNIT_ASSERT_EQ(test, siw2_ddp_decode(siw_term_img + 2, siw_term_img[1], 1,
					      0, &info, &term), 0);
	KUNIT_EXPECT_EQ(test, info.opcode, SIW2_OP_TERMINATE);
	KUNIT_EXPECT_EQ(test, info.term_ctrl, 0x02040000);
	KUNIT_ASSERT_EQ(test, siw2_ddp_term_parse(siw_term_img + 2 + info.hdr_len - 4,
						  4, &code, &m, &d, &r, &swapped), 0);
	KUNIT_EXPECT_TRUE(test, swapped);
	KUNIT_EXPECT_EQ(test, code.layer, 2);
	KUNIT_EXPECT_EQ(test, code.etype, 0);
	KUNIT_EXPECT_EQ(test, code.code, 4);
	KUNIT_EXPECT_FALSE(test, m || d || r);
}

struct tp_case {
	const char *desc;
	u8 b[4];
	int ret;
	u8 layer, etype, code;
	bool m, d, r, swapped;
};

static const struct tp_case tp_cases[] = {
	{ "rfc_2_0_6_mpa2_ird_9", { 0x20, 0x06, 0x00, 0x00 }, 0, 2, 0, 6 },
	{ "rfc_1_2_1_mdr", { 0x12, 0x01, 0xe0, 0x00 }, 0, 1, 2, 1, 1, 1, 1 },
	{ "rfc_0_1_0_md", { 0x01, 0x00, 0xc0, 0x00 }, 0, 0, 1, 0, 1, 1 },
	{ "rfc_0_2_6_r", { 0x02, 0x06, 0x20, 0x00 }, 0, 0, 2, 6, 0, 0, 1 },
	{ "rfc_reserved_bits_ignored", { 0x02, 0x07, 0x1f, 0xff }, 0, 0, 2, 7 },
	{ "rfc_0_0_any", { 0x00, 0x42, 0x00, 0x00 }, 0, 0, 0, 0x42 },
	{ "siw_2_0_4", { 0x02, 0x04, 0x00, 0x00 }, 0, 2, 0, 4, .swapped = 1 },
	{ "siw_2_0_2_crc", { 0x02, 0x02, 0x00, 0x00 }, 0, 2, 0, 2, .swapped = 1 },
	{ "siw_1_2_1_md_flags", { 0x21, 0x01, 0x03, 0x00 }, 0, 1, 2, 1, 1, 1, 0, 1 },
	{ "siw_0_1_1_mdr_flags", { 0x10, 0x01, 0x07, 0x00 }, 0, 0, 1, 1, 1, 1, 1, 1 },
	{ "siw_0_1_2_md_flags", { 0x10, 0x02, 0x03, 0x00 }, 0, 0, 1, 2, 1, 1, 0, 1 },
	/* Known in both readings: the RFC layout wins (documented limit). */
	{ "both_known_rfc_wins_0_2_6", { 0x02, 0x06, 0x00, 0x00 }, 0, 0, 2, 6 },
	{ "both_known_rfc_wins_2_0_6", { 0x20, 0x06, 0x00, 0x00 }, 0, 2, 0, 6 },
	{ "neither_known_enoent", { 0x33, 0x33, 0x80, 0x00 }, -ENOENT, 3, 3, 0x33, 1 },
	{ "neither_known_2_0_0x0a", { 0x20, 0x0a, 0x00, 0x00 }, -ENOENT, 2, 0, 0x0a },
};

static void tp_case_desc(const struct tp_case *t, char *desc)
{
	strscpy(desc, t->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(tp, tp_cases, tp_case_desc);

/* BASE-RDMAP-8, DIGEST 3.4: Terminate Control, RFC and siw layouts. */
static void term_parse_table_base_rdmap_8(struct kunit *test)
{
	const struct tp_case *t = test->param_value;
	struct siw2_term_code code;
	bool m, d, r, swapped;

	KUNIT_ASSERT_EQ(test, siw2_ddp_term_parse(t->b, 4, &code, &m, &d, &r,
						  &swapped), t->ret);
	KUNIT_EXPECT_EQ(test, code.layer, t->layer);
	KUNIT_EXPECT_EQ(test, code.etype, t->etype);
	KUNIT_EXPECT_EQ(test, code.code, t->code);
	KUNIT_EXPECT_EQ(test, m, t->m);
	KUNIT_EXPECT_EQ(test, d, t->d);
	KUNIT_EXPECT_EQ(test, r, t->r);
	KUNIT_EXPECT_EQ(test, swapped, t->swapped);
}

static void term_parse_short(struct kunit *test)
{
	struct siw2_term_code code;
	bool m, d, r, swapped = true;

	KUNIT_EXPECT_EQ(test, siw2_ddp_term_parse(term_img + 20, 3, &code, &m, &d,
						  &r, &swapped), -EMSGSIZE);
	KUNIT_EXPECT_FALSE(test, swapped);
}

/* DIGEST 3.4: the known-code table, row by row, and its edges. */
static void term_known_codes_digest_3_4(struct kunit *test)
{
	static const struct { u8 l, e, c; bool known; } k[] = {
		{ 0, 0, 0x00, 1 }, { 0, 0, 0xff, 1 },
		{ 0, 1, 0x00, 1 }, { 0, 1, 0x04, 1 }, { 0, 1, 0x05, 0 },
		{ 0, 1, 0x09, 1 }, { 0, 1, 0x0a, 0 }, { 0, 1, 0xff, 1 },
		{ 0, 2, 0x04, 0 }, { 0, 2, 0x05, 1 }, { 0, 2, 0x09, 1 },
		{ 0, 2, 0x0a, 0 }, { 0, 2, 0xff, 1 }, { 0, 3, 0x00, 0 },
		{ 1, 0, 0x00, 1 }, { 1, 0, 0x01, 0 },
		{ 1, 1, 0x04, 1 }, { 1, 1, 0x05, 0 },
		{ 1, 2, 0x00, 0 }, { 1, 2, 0x01, 1 }, { 1, 2, 0x06, 1 },
		{ 1, 2, 0x07, 0 }, { 1, 3, 0x00, 0 },
		{ 2, 0, 0x00, 0 }, { 2, 0, 0x01, 1 }, { 2, 0, 0x07, 1 },
		{ 2, 0, 0x08, 0 }, { 2, 1, 0x01, 0 }, { 3, 0, 0x00, 0 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(k); i++) {
		struct siw2_term_code c = { k[i].l, k[i].e, k[i].c };

		KUNIT_EXPECT_EQ_MSG(test, siw2_term_code_known(&c), k[i].known,
				    "%u/%u/0x%02x", k[i].l, k[i].e, k[i].c);
	}
}

static struct kunit_case siw2_ddp_cases[] = {
	KUNIT_CASE_PARAM(decode_rejects_table, dec_gen_params),
	KUNIT_CASE(reserved_opcodes_dec_1),
	KUNIT_CASE(write_rtr_image_base_ddp_7),
	KUNIT_CASE(read_rtr_image_base_ddp_4),
	KUNIT_CASE(terminate_image_base_rdmap_8),
	KUNIT_CASE(terminate_with_headers_base_rdmap_8),
	KUNIT_CASE(send_family_base_ddp_4),
	KUNIT_CASE(send_inval_stag_base_rdmap_2),
	KUNIT_CASE(reserved_bits_ignored_base_ddp_1),
	KUNIT_CASE(tagged_payload_base_ddp_3),
	KUNIT_CASE(op_names_dec_1),
	KUNIT_CASE(siw_swapped_terminate_base_rdmap_8),
	KUNIT_CASE_PARAM(term_parse_table_base_rdmap_8, tp_gen_params),
	KUNIT_CASE(term_parse_short),
	KUNIT_CASE(term_known_codes_digest_3_4),
	KUNIT_CASE(atomic_req_image_ext_atomic_14),
	KUNIT_CASE(atomic_req_reserved_ext_atomic_6),
	KUNIT_CASE(atomic_resp_image_ext_atomic_20),
	KUNIT_CASE(imm_image_ext_imm_10),
	KUNIT_CASE(send_imm_images_v2_imm_7),
	KUNIT_CASE(read_v2_images_v2_read_4),
	KUNIT_CASE(commit_req_image_commit_hdr_5),
	KUNIT_CASE(commit_resp_image_commit_hdr_6),
	KUNIT_CASE(commit_rv_and_feat_commit_hdr_1),
	KUNIT_CASE(commit_zero_len_and_inval_dec_12),
	KUNIT_CASE(commit_req_tail_amb_14),
	KUNIT_CASE(commit_log_image_dec_1),
	KUNIT_CASE(commit_log_refuses_other_tails_amb_14),
	KUNIT_CASE(conn_feat_dec_4),
	KUNIT_CASE_PARAM(ext_decode_rejects_table, ext_gen_params),
	KUNIT_CASE(rfc5040_on_rv2_v2_hdr_1),
	KUNIT_CASE(hdr_len_per_opcode),
	KUNIT_CASE(tx_op_queue_and_send_ops),
	{}
};

static struct kunit_suite siw2_ddp_suite = {
	.name = "siw2_ddp",
	.test_cases = siw2_ddp_cases,
};

kunit_test_suites(&siw2_ddp_suite);

MODULE_LICENSE("Dual BSD/GPL");
