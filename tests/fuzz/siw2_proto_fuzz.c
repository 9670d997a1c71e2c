// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for siw2's pure protocol layer: siw2_ddp.c, siw2_mpa.c,
 * siw2_fpdu.c and siw2_term.c, compiled unmodified in user space against
 * the headers in shim/ (see README.md).
 *
 * One binary, not one per area: the first input octet selects what the
 * rest is fed to. A single run then covers every area with one corpus
 * and one time budget (the 2-core hosts cannot afford a run per area),
 * and the receive path crosses the areas anyway: an FPDU's ULPDU goes to
 * the DDP decoder, a Terminate's payload to the Terminate parser, a
 * Commit's tail to the log decoder. libFuzzer's coverage feedback keeps
 * the inputs of each area apart by itself.
 *
 * Selector octet: bits 0..2 the area, bit 3 the RDMAP version (0: 1,
 * 1: 2), bits 4..5 the SIW2_DDP_FEAT_* mask, bit 6 the CRC flag, bit 7
 * the MPA frame kind (0: Request, 1: Reply).
 *
 * Every area checks properties of the results, not only that nothing
 * crashed; a broken property aborts with the line that found it. The
 * input is libFuzzer's own exact-size heap copy and every output buffer
 * is allocated at the exact size asked for, so ASan catches any access
 * one octet outside.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/unaligned.h>

#include "siw2_ddp.h"
#include "siw2_fpdu.h"
#include "siw2_mpa.h"
#include "siw2_term.h"

enum {
	AREA_DDP,		/* siw2_ddp_decode() on a ULPDU */
	AREA_TERM,		/* Terminate Control parse and mapping */
	AREA_COMMIT_LOG,	/* the octets after a Commit Request's region */
	AREA_MPA,		/* MPA Request/Reply decode and encode */
	AREA_MPA_NEG,		/* Responder and Initiator agree */
	AREA_MPA_COMPLETE,	/* Initiator against any Reply */
	AREA_FPDU,		/* a stream of FPDUs as the receiver sees it */
	AREA_BUILD,		/* the FPDU builders */
};

#define SEL_RV2		0x08
#define SEL_FEAT_SHIFT	4
#define SEL_CRC		0x40
#define SEL_REPLY	0x80

/* The RDMAP Rsv bits of the control word: ignored on receive. */
#define RDMAP_RSV	0x0020

#define CHECK(cond)							\
	do {								\
		if (!(cond))						\
			check_failed(#cond, __LINE__);			\
	} while (0)

static void check_failed(const char *what, int line)
{
	fprintf(stderr, "siw2-proto-fuzz: property broken at line %d: %s\n",
		line, what);
	abort();
}

/* Reads the input field by field; past its end every field reads 0. */
struct cursor {
	const u8 *p;
	size_t n;
};

static u8 get8(struct cursor *c)
{
	u8 v = 0;

	if (c->n) {
		v = *c->p++;
		c->n--;
	}
	return v;
}

static u16 get16(struct cursor *c)
{
	u16 hi = get8(c);

	return hi << 8 | get8(c);
}

static u32 get32(struct cursor *c)
{
	u32 hi = get16(c);

	return hi << 16 | get16(c);
}

static u64 get64(struct cursor *c)
{
	u64 hi = get32(c);

	return hi << 32 | get32(c);
}

static void *xmalloc(size_t n)
{
	/* malloc(0) is a zero-size region to ASan: any store is caught. */
	void *p = malloc(n);

	if (!p && n)
		abort();
	return p;
}

/* ---- Terminate mapping and parsing ---- */

static void check_term_map(u8 layer, u8 etype, u8 code)
{
	enum ib_wc_status st = siw2_term_wc_status(layer, etype, code);
	enum ib_event_type ev = siw2_term_qp_event(layer, etype, code);

	CHECK(st == IB_WC_REM_INV_REQ_ERR || st == IB_WC_REM_ACCESS_ERR ||
	      st == IB_WC_REM_OP_ERR || st == IB_WC_FATAL_ERR);
	/* The status and the event tell the consumer the same story. */
	CHECK((st == IB_WC_REM_ACCESS_ERR) == (ev == IB_EVENT_QP_ACCESS_ERR));
	CHECK((st == IB_WC_REM_INV_REQ_ERR) == (ev == IB_EVENT_QP_REQ_ERR));
	CHECK((st == IB_WC_REM_OP_ERR || st == IB_WC_FATAL_ERR) ==
	      (ev == IB_EVENT_QP_FATAL));
	/* Protection errors at RDMAP and DDP tagged are access errors. */
	if (layer <= SIW2_TERM_LAYER_DDP && etype == 1)
		CHECK(st == IB_WC_REM_ACCESS_ERR);
	/* A failed stream is fatal, and so is what no row knows. */
	if (layer == SIW2_TERM_LAYER_LLP)
		CHECK(st == IB_WC_FATAL_ERR);
	if (layer > SIW2_TERM_LAYER_LLP)
		CHECK(st == IB_WC_REM_OP_ERR && ev == IB_EVENT_QP_FATAL);
}

static void check_term_parse(const u8 *p, size_t len)
{
	struct siw2_term_code code, rfc, swp;
	bool m, d, r, swapped;
	int rc;

	rc = siw2_ddp_term_parse(p, len, &code, &m, &d, &r, &swapped);
	CHECK(rc == 0 || rc == -ENOENT || rc == -EMSGSIZE);
	CHECK((rc == -EMSGSIZE) == (len < SIW2_TERM_CTRL_LEN));
	if (len < SIW2_TERM_CTRL_LEN) {
		CHECK(!swapped);
		return;
	}
	rfc.layer = p[0] >> 4;
	rfc.etype = p[0] & 0xf;
	rfc.code = p[1];
	swp.layer = rfc.etype;
	swp.etype = rfc.layer;
	swp.code = p[1];
	/* The RFC reading wins whenever it is a known code. */
	if (siw2_term_code_known(&rfc) || !siw2_term_code_known(&swp)) {
		CHECK(rc == (siw2_term_code_known(&rfc) ? 0 : -ENOENT));
		CHECK(!swapped);
		CHECK(!memcmp(&code, &rfc, sizeof(code)));
		CHECK(m == !!(p[2] & 0x80) && d == !!(p[2] & 0x40) &&
		      r == !!(p[2] & 0x20));
		/* Encoding the code again gives the octets received. */
		CHECK(siw2_term_ctrl(code.layer, code.etype, code.code) >> 16 ==
		      get_unaligned_be16(p));
	} else {
		CHECK(rc == 0 && swapped);
		CHECK(!memcmp(&code, &swp, sizeof(code)));
		CHECK(m == !!(p[2] & 0x01) && d == !!(p[2] & 0x02) &&
		      r == !!(p[2] & 0x04));
	}
	check_term_map(code.layer, code.etype, code.code);
}

static void check_commit_log(const u8 *p, size_t len)
{
	struct siw2_commit_log_info log;
	u8 out[sizeof(struct siw2_rdmap_commit_log)];
	bool want = len == sizeof(out) &&
		    get_unaligned_be16(p) == SIW2_COMMIT_EXT_LOG &&
		    !get_unaligned_be16(p + 2);

	CHECK(siw2_commit_log_decode(p, len, &log) == want);
	if (!want)
		return;
	CHECK(log.stag == get_unaligned_be32(p + 4));
	CHECK(log.to == get_unaligned_be64(p + 8));
	siw2_commit_log_encode(out, &log);
	CHECK(!memcmp(out, p, sizeof(out)));
}

/* ---- DDP/RDMAP header decoding ---- */

static bool op_is(u8 op, const u8 *ops, size_t n)
{
	while (n--)
		if (ops[n] == op)
			return true;
	return false;
}

#define OP_IS(op, ...) \
	op_is(op, (const u8[]){ __VA_ARGS__ }, sizeof((const u8[]){ __VA_ARGS__ }))

/* Messages of exactly one segment (L=1, MO 0). */
static bool op_single(u8 op)
{
	return OP_IS(op, SIW2_OP_READ_REQ, SIW2_OP_TERMINATE, SIW2_OP_IMM,
		     SIW2_OP_IMM_SE, SIW2_OP_ATOMIC_REQ, SIW2_OP_ATOMIC_RESP,
		     SIW2_OP_COMMIT_REQ, SIW2_OP_COMMIT_RESP,
		     SIW2_OP_READ_V2_REQ);
}

/* Messages that are their header and nothing else. */
static bool op_no_payload(u8 op)
{
	return OP_IS(op, SIW2_OP_READ_REQ, SIW2_OP_IMM, SIW2_OP_IMM_SE,
		     SIW2_OP_ATOMIC_REQ, SIW2_OP_ATOMIC_RESP,
		     SIW2_OP_COMMIT_RESP, SIW2_OP_READ_V2_REQ);
}

static bool op_send_imm(u8 op)
{
	return op >= SIW2_OP_SEND_IMM && op <= SIW2_OP_SEND_SE_INV_IMM;
}

/* Send with Invalidate and Commit Request carry an STag in RsvdULP. */
static bool op_inval(u8 op)
{
	return OP_IS(op, SIW2_OP_SEND_INV, SIW2_OP_SEND_SE_INV,
		     SIW2_OP_COMMIT_REQ, SIW2_OP_SEND_INV_IMM,
		     SIW2_OP_SEND_SE_INV_IMM);
}

static int decode(const u8 *u, size_t len, u8 rv, u8 feat,
		  struct siw2_ddp_info *info, struct siw2_term_code *term)
{
	int rc = siw2_ddp_decode(u, len, rv, feat, info, term);

	CHECK(rc == 0 || rc == -EPROTO);
	return rc;
}

/*
 * The decoder takes exactly the header its opcode defines: a ULPDU one
 * octet shorter than the header it reported is refused, and one octet
 * longer is refused exactly when the message has no payload.
 */
static void check_ddp_length(const u8 *u, size_t len, u8 rv, u8 feat,
			     const struct siw2_ddp_info *info)
{
	struct siw2_ddp_info again;
	struct siw2_term_code term;
	u8 *longer;
	bool exact;
	int rc;

	CHECK(decode(u, info->hdr_len - 1, rv, feat, &again, &term));
	CHECK(siw2_term_code_known(&term));

	longer = xmalloc(len + 1);
	memcpy(longer, u, len);
	longer[len] = 0x5a;
	rc = decode(longer, len + 1, rv, feat, &again, &term);
	exact = op_no_payload(info->opcode) ||
		(op_send_imm(info->opcode) && info->last);
	CHECK(!rc == !exact);
	if (!rc)
		CHECK(again.hdr_len == info->hdr_len &&
		      again.payload_len == info->payload_len + 1);
	free(longer);
}

static void check_ddp(const u8 *u, size_t len, u8 rv, u8 feat)
{
	struct siw2_ddp_info info;
	struct siw2_term_code term;
	u16 ctrl = 0;
	u8 op;

	if (len >= 2) {
		ctrl = get_unaligned_be16(u);
		CHECK(siw2_ddp_hdr_len(ctrl) >= sizeof(struct siw2_ddp_tagged));
		CHECK(siw2_ddp_hdr_len(ctrl) <= SIW2_DDP_HDR_MAX);
		CHECK(siw2_rdmap_op_name(ctrl));
	}
	if (decode(u, len, rv, feat, &info, &term)) {
		/* Every Terminate the decoder asks for is a defined code. */
		CHECK(siw2_term_code_known(&term));
		check_term_map(term.layer, term.etype, term.code);
		return;
	}
	CHECK(len >= 2);
	op = info.opcode;
	CHECK(info.hdr_len <= len && info.hdr_len + info.payload_len == len);
	CHECK(info.hdr_len == siw2_ddp_hdr_len(ctrl));
	CHECK(info.rv == rv && info.dv == 1);
	CHECK(op == (ctrl & SIW2_RDMAP_OP_MASK));
	CHECK(info.tagged == !!(ctrl & SIW2_DDP_F_TAGGED));
	CHECK(info.last == !!(ctrl & SIW2_DDP_F_LAST));
	/* The control word, reserved bits aside, encodes back to itself. */
	CHECK((ctrl & ~(SIW2_DDP_RSVD | RDMAP_RSV)) ==
	      siw2_ddp_ctrl(info.tagged, info.last, info.rv, op));
	CHECK(strcmp(siw2_rdmap_op_name(op), "reserved"));
	CHECK(info.tagged == siw2_rdmap_op_tagged(op));
	/* Only what the connection negotiated gets through. */
	if (op >= SIW2_OP_IMM && op <= SIW2_OP_ATOMIC_RESP)
		CHECK(feat & SIW2_DDP_FEAT_EXT);
	if (op == SIW2_OP_COMMIT_REQ || op == SIW2_OP_COMMIT_RESP)
		CHECK(feat & SIW2_DDP_FEAT_COMMIT);
	if (op & 0x10)
		CHECK(rv == SIW2_RDMAP_V2 && (feat & SIW2_DDP_FEAT_EXT));
	if (op_single(op))
		CHECK(info.last && !info.mo);
	if (op_no_payload(op) || (op_send_imm(op) && info.last))
		CHECK(!info.payload_len);

	if (info.tagged) {
		CHECK(info.stag == get_unaligned_be32(u + 2));
		CHECK(info.to == get_unaligned_be64(u + 6));
	} else {
		CHECK(info.qn == siw2_rdmap_op_qn(op));
		CHECK(info.inval_stag ==
		      (op_inval(op) ? get_unaligned_be32(u + 2) : 0));
		CHECK(info.msn == get_unaligned_be32(u + 10));
		CHECK(info.mo == get_unaligned_be32(u + 14));
	}
	check_ddp_length(u, len, rv, feat, &info);

	/* What the receive path does next with the octets after it. */
	if (op == SIW2_OP_TERMINATE) {
		CHECK(info.term_ctrl == get_unaligned_be32(u + 18));
		check_term_parse(u + sizeof(struct siw2_ddp_untagged),
				 len - sizeof(struct siw2_ddp_untagged));
	}
	if (op == SIW2_OP_COMMIT_REQ && info.payload_len)
		check_commit_log(u + info.hdr_len, info.payload_len);
}

/* ---- MPA Request/Reply ---- */

#define MPA_HDR		sizeof(struct siw2_mpa_hdr)
#define MPA_V2		sizeof(struct siw2_mpa_v2)

static bool no_neg(u16 ird, u16 ord)
{
	return ird == SIW2_MPA_V2_NO_NEG || ord == SIW2_MPA_V2_NO_NEG;
}

/* Without enhanced data a frame carries no IRD, ORD, A or RTR. */
static void check_mpa_same(const struct siw2_mpa_frame *a,
			   const struct siw2_mpa_frame *b)
{
	CHECK(a->kind == b->kind && a->rev == b->rev);
	CHECK(a->markers == b->markers && a->crc == b->crc);
	CHECK(a->reject == b->reject && a->enhanced == b->enhanced);
	CHECK(a->caps == b->caps);
	if (a->enhanced)
		CHECK(a->p2p == b->p2p && a->rtr == b->rtr &&
		      a->ird == b->ird && a->ord == b->ord);
	CHECK(a->pd_len == b->pd_len);
	CHECK(!a->pd_len || !memcmp(a->pd, b->pd, a->pd_len));
}

/*
 * Decode @len octets as @kind and check the result. Return: true with
 * @f filled when the input starts with a whole valid frame.
 */
static bool check_mpa(const u8 *buf, size_t len, enum siw2_mpa_kind kind,
		      struct siw2_mpa_frame *f)
{
	struct siw2_mpa_frame again;
	enum siw2_mpa_err err, derr;
	size_t flen = 0;
	u8 flags, mask, *out;
	u16 w;
	int n;

	err = siw2_mpa_parse_hdr(buf, len, kind, &flen);
	CHECK(err < SIW2_MPA_NUM_ERRS);
	CHECK(strcmp(siw2_mpa_err_name(err), "?"));
	derr = siw2_mpa_decode(buf, len, kind, f);
	if (err) {
		CHECK(derr == err);
		return false;
	}
	CHECK(flen >= MPA_HDR && flen <= MPA_HDR + SIW2_MPA_MAX_PD_WIRE);
	CHECK(flen == MPA_HDR + get_unaligned_be16(buf + 18));
	if (len < flen) {
		CHECK(derr == SIW2_MPA_INCOMPLETE);
		return false;
	}
	CHECK(derr == SIW2_MPA_OK);

	flags = buf[16];
	CHECK(f->kind == kind && f->rev == buf[17]);
	CHECK(f->rev == SIW2_MPA_REV1 || f->rev == SIW2_MPA_REV2);
	CHECK(f->markers == !!(flags & SIW2_MPA_F_MARKERS));
	CHECK(f->crc == !!(flags & SIW2_MPA_F_CRC));
	/* The private data lies inside the frame, after the IRD/ORD words. */
	CHECK(f->pd_len + (f->enhanced ? MPA_V2 : 0) == flen - MPA_HDR);
	if (f->pd_len)
		CHECK(f->pd == buf + MPA_HDR + (f->enhanced ? MPA_V2 : 0) &&
		      f->pd + f->pd_len == buf + flen);
	else
		CHECK(!f->pd);
	if (f->rev == SIW2_MPA_REV1)
		CHECK(!f->enhanced && !f->caps);
	if (kind == SIW2_MPA_REQUEST)
		CHECK(!f->reject && !(f->caps & SIW2_MPA_CAP_ACK));
	CHECK(!(f->caps & ~(SIW2_MPA_CAPS | SIW2_MPA_CAP_ACK)));
	CHECK(f->ird <= SIW2_MPA_V2_VAL && f->ord <= SIW2_MPA_V2_VAL);
	CHECK(!(f->rtr & ~(SIW2_RTR_FPDU | SIW2_RTR_WRITE | SIW2_RTR_READ)));
	CHECK(!f->rtr || f->p2p);
	CHECK(f->enhanced || (!f->p2p && !f->ird && !f->ord));

	/*
	 * Encoding the decoded frame gives the octets received, less what
	 * the decoder ignores: Res bits that are no capability, the R bit
	 * of a Request, S and Res with Rev 1, B/C/D without A.
	 */
	CHECK(siw2_mpa_frame_len(f) == flen);
	out = xmalloc(flen - 1);
	CHECK(siw2_mpa_encode(f, out, flen - 1) == -ENOSPC);
	free(out);
	out = xmalloc(flen);
	n = siw2_mpa_encode(f, out, flen);
	CHECK(n >= 0 && (size_t)n == flen);
	CHECK(!memcmp(out, buf, SIW2_MPA_KEY_LEN));
	mask = SIW2_MPA_F_MARKERS | SIW2_MPA_F_CRC;
	if (kind == SIW2_MPA_REPLY)
		mask |= SIW2_MPA_F_REJECT;
	if (f->rev == SIW2_MPA_REV2)
		mask |= SIW2_MPA_F_ENHANCED | SIW2_MPA_CAPS |
			(kind == SIW2_MPA_REPLY ? SIW2_MPA_CAP_ACK : 0);
	CHECK(out[16] == (flags & mask));
	CHECK(!memcmp(out + 17, buf + 17, 3));
	if (f->enhanced) {
		w = get_unaligned_be16(buf + MPA_HDR);
		CHECK(get_unaligned_be16(out + MPA_HDR) ==
		      (f->p2p ? w : (w & SIW2_MPA_V2_VAL)));
		w = get_unaligned_be16(buf + MPA_HDR + 2);
		CHECK(get_unaligned_be16(out + MPA_HDR + 2) ==
		      (f->p2p ? w : (w & SIW2_MPA_V2_VAL)));
	}
	CHECK(!memcmp(out + flen - f->pd_len, f->pd ? f->pd : out, f->pd_len));
	/* ... and decodes to the same frame. */
	CHECK(siw2_mpa_decode(out, flen, kind, &again) == SIW2_MPA_OK);
	check_mpa_same(f, &again);
	free(out);
	return true;
}

/*
 * Any frame a caller may hand to the encoder: refused with the documented
 * error, or encoded into a frame that decodes to what was asked for.
 */
static void fuzz_mpa_encode(struct cursor *c, enum siw2_mpa_kind kind)
{
	struct siw2_mpa_frame f = { .kind = kind }, back;
	u8 bits = get8(c);
	size_t size, len;
	bool bad;
	u8 *out;
	int rc;

	f.rev = bits & 3;
	f.markers = bits & 0x04;
	f.crc = bits & 0x08;
	f.reject = bits & 0x10;
	f.enhanced = bits & 0x20;
	f.p2p = bits & 0x40;
	f.caps = get8(c);
	f.rtr = get8(c) & (SIW2_RTR_FPDU | SIW2_RTR_WRITE | SIW2_RTR_READ);
	f.ird = get16(c) & 0x7fff;
	f.ord = get16(c) & 0x7fff;
	size = get16(c) % 640;
	f.pd_len = get16(c) % 600;
	if (f.pd_len > c->n)
		f.pd_len = c->n;
	f.pd = f.pd_len ? c->p : NULL;

	len = siw2_mpa_frame_len(&f);
	CHECK(len == MPA_HDR + (f.enhanced ? MPA_V2 : 0) + f.pd_len);
	bad = (f.rev != SIW2_MPA_REV1 && f.rev != SIW2_MPA_REV2) ||
	      (f.rev == SIW2_MPA_REV1 && (f.enhanced || f.caps)) ||
	      (f.caps & ~(SIW2_MPA_CAPS | SIW2_MPA_CAP_ACK)) ||
	      (kind == SIW2_MPA_REQUEST && (f.caps & SIW2_MPA_CAP_ACK)) ||
	      f.ird > SIW2_MPA_V2_VAL || f.ord > SIW2_MPA_V2_VAL;
	out = xmalloc(size);
	rc = siw2_mpa_encode(&f, out, size);
	if (bad)
		CHECK(rc == -EINVAL);
	else if (len - MPA_HDR > SIW2_MPA_MAX_PD_WIRE)
		CHECK(rc == -EMSGSIZE);
	else if (size < len)
		CHECK(rc == -ENOSPC);
	else
		CHECK(rc >= 0 && (size_t)rc == len);
	if (rc < 0) {
		free(out);
		return;
	}
	CHECK(check_mpa(out, len, kind, &back));
	CHECK(back.rev == f.rev && back.markers == f.markers &&
	      back.crc == f.crc && back.enhanced == f.enhanced &&
	      back.caps == f.caps);
	CHECK(back.reject == (f.reject && kind == SIW2_MPA_REPLY));
	/* A, B/C/D, IRD and ORD travel only in the enhanced data. */
	CHECK(back.p2p == (f.enhanced && f.p2p));
	CHECK(back.rtr == (back.p2p ? f.rtr : 0));
	CHECK(back.ird == (f.enhanced ? f.ird : 0) &&
	      back.ord == (f.enhanced ? f.ord : 0));
	CHECK(back.pd_len == f.pd_len);
	CHECK(!f.pd_len || !memcmp(back.pd, f.pd, f.pd_len));
	free(out);
}

/*
 * A siw2 Responder answers a Request, the Initiator settles from that
 * Reply, and both must end up with the same connection.
 */
static void fuzz_mpa_neg(struct cursor *c)
{
	u16 ulp_ird = get16(c) & SIW2_MPA_V2_VAL;
	u16 ulp_ord = get16(c) & SIW2_MPA_V2_VAL;
	u16 max_ird_r = get16(c), max_ird_i = get16(c);
	u8 local_caps = get8(c), rtr_forms = get8(c);
	enum siw2_crc_policy policy = get8(c) % 3;
	struct siw2_mpa_frame req, rep, rep2;
	struct siw2_mpa_conn conn_r, conn_i;
	bool neg, use_crc = false;
	size_t flen;
	int rc, want;
	u8 *out;

	if (!check_mpa(c->p, c->n, SIW2_MPA_REQUEST, &req))
		return;
	neg = req.enhanced && !no_neg(req.ird, req.ord);
	rc = siw2_mpa_respond(&req, ulp_ird, ulp_ord, max_ird_r, local_caps,
			      rtr_forms, &rep, &conn_r);
	CHECK(rc == 0 || rc == -ENOMEM);
	CHECK(!rc == !(neg && req.ord > ulp_ird && req.ord > max_ird_r));
	if (rc)
		return;
	CHECK(conn_r.rev == req.rev);
	CHECK(!(conn_r.caps & ~(local_caps & req.caps & SIW2_MPA_CAPS)));
	CHECK(conn_r.p2p == (req.enhanced && req.p2p));
	CHECK(conn_r.rtr == 0 || conn_r.rtr == SIW2_RTR_WRITE ||
	      conn_r.rtr == SIW2_RTR_READ);
	CHECK(!conn_r.rtr == !conn_r.p2p);
	CHECK(conn_r.rtr != SIW2_RTR_READ || conn_r.ird);
	if (neg)
		CHECK(conn_r.ord <= req.ird && conn_r.ird >= req.ord);

	rc = siw2_mpa_crc_resolve(policy, req.crc, &use_crc);
	CHECK(rc == 0 || rc == -EPROTONOSUPPORT);
	CHECK(!rc == !(policy == SIW2_CRC_OFF && req.crc));
	if (rc)
		return;
	rep.crc = use_crc;
	rep.pd = req.pd;
	rep.pd_len = req.pd_len;

	flen = siw2_mpa_frame_len(&rep);
	out = xmalloc(flen);
	rc = siw2_mpa_encode(&rep, out, flen);
	CHECK(rc >= 0 && (size_t)rc == flen);
	CHECK(check_mpa(out, flen, SIW2_MPA_REPLY, &rep2));
	check_mpa_same(&rep, &rep2);
	free(out);

	rc = siw2_mpa_complete(&req, &rep2, max_ird_i, &conn_i);
	want = neg && !no_neg(rep2.ird, rep2.ord) && rep2.ord > req.ird &&
	       rep2.ord > max_ird_i ? SIW2_TERM_MPA_NO_IRD : 0;
	CHECK(rc == want);
	if (rc)
		return;
	CHECK(conn_i.rev == conn_r.rev && conn_i.caps == conn_r.caps);
	CHECK(conn_i.p2p == conn_r.p2p && conn_i.rtr == conn_r.rtr);
	CHECK(conn_i.crc == use_crc);
	CHECK(siw2_conn_feat(&conn_i) == siw2_conn_feat(&conn_r));
	CHECK(siw2_conn_rv(&conn_i) == siw2_conn_rv(&conn_r));
	/* Neither side sends more Reads than the other side takes. */
	if (neg && !no_neg(rep2.ird, rep2.ord))
		CHECK(conn_i.ord <= conn_r.ird && conn_r.ord <= conn_i.ird);
}

/* The Initiator against any Request/Reply pair. */
static void fuzz_mpa_complete(struct cursor *c)
{
	u16 max_ird = get16(c);
	size_t split = get16(c);
	struct siw2_mpa_frame req, rep;
	struct siw2_mpa_conn conn;
	bool bad;
	int rc;

	if (split > c->n)
		split = c->n;
	if (!check_mpa(c->p, split, SIW2_MPA_REQUEST, &req) ||
	    !check_mpa(c->p + split, c->n - split, SIW2_MPA_REPLY, &rep) ||
	    rep.reject)
		return;
	rc = siw2_mpa_complete(&req, &rep, max_ird, &conn);
	CHECK(rc == 0 || rc == SIW2_TERM_MPA_BAD_FRAME ||
	      rc == SIW2_TERM_MPA_NO_IRD || rc == SIW2_TERM_MPA_NO_RTR);
	bad = rep.rev > req.rev || rep.enhanced != req.enhanced ||
	      (req.enhanced && rep.p2p != req.p2p);
	CHECK((rc == SIW2_TERM_MPA_BAD_FRAME) == bad);
	if (rc)
		return;
	CHECK(conn.rev == rep.rev && conn.crc == (req.crc || rep.crc));
	CHECK(!(conn.caps & ~(req.caps & rep.caps & SIW2_MPA_CAPS)));
	CHECK(!conn.caps ||
	      (rep.rev == SIW2_MPA_REV2 && (rep.caps & SIW2_MPA_CAP_ACK)));
	CHECK(conn.p2p == (req.enhanced && req.p2p));
	CHECK(conn.rtr == 0 || conn.rtr == SIW2_RTR_WRITE ||
	      conn.rtr == SIW2_RTR_READ);
	CHECK(!conn.rtr || conn.p2p);
	CHECK(conn.ord <= req.ord && conn.ird >= req.ird);
	if (req.enhanced && !no_neg(req.ird, req.ord) &&
	    !no_neg(rep.ird, rep.ord))
		CHECK(conn.ord <= rep.ird && conn.ird >= rep.ord &&
		      (conn.ird == req.ird || conn.ird <= max_ird));
}

/* ---- MPA FPDU framing ---- */

static size_t fpdu_need(size_t ulpdu_len)
{
	return SIW2_MPA_HDR_LEN + ulpdu_len + siw2_mpa_pad(ulpdu_len) +
	       SIW2_MPA_CRC_LEN;
}

/* The RTR classifier and the DDP decoder agree on an RTR. */
static void check_rtr(const u8 *buf, size_t fl, size_t n, u8 feat,
		      bool crc_ok)
{
	u16 ulen = get_unaligned_be16(buf), ctrl = 0;
	struct siw2_ddp_info info;
	struct siw2_term_code term;
	enum siw2_fpdu_kind k;
	u32 stag = 0;
	u64 to = 0;
	u8 *out;
	int rc;

	k = siw2_fpdu_classify_rtr(buf, fl, &stag, &to);
	CHECK(k <= SIW2_FPDU_READ_RESP0);
	/* The octets after the FPDU change nothing. */
	CHECK(siw2_fpdu_classify_rtr(buf, n, &stag, &to) == k);
	if (ulen >= 2)
		ctrl = get_unaligned_be16(buf + 2);
	rc = decode(buf + 2, ulen, SIW2_RDMAP_V1, feat, &info, &term);
	if (k == SIW2_FPDU_OTHER) {
		/* The exact zero-length forms are always recognised. */
		if (!rc && ctrl == siw2_ddp_ctrl(true, true, 1, SIW2_OP_WRITE))
			CHECK(info.payload_len);
		if (!rc && ctrl == siw2_ddp_ctrl(true, true, 1, SIW2_OP_READ_RESP))
			CHECK(info.payload_len);
		if (!rc && ctrl == siw2_ddp_ctrl(false, true, 1, SIW2_OP_READ_REQ))
			CHECK(info.msn != 1 || info.read_size);
		return;
	}
	CHECK(!rc && !info.payload_len);
	switch (k) {
	case SIW2_FPDU_WRITE_RTR:
	case SIW2_FPDU_READ_RESP0:
		CHECK(info.opcode == (k == SIW2_FPDU_WRITE_RTR ?
				      SIW2_OP_WRITE : SIW2_OP_READ_RESP));
		CHECK(info.stag == stag && info.to == to);
		/* Built again from what was recognised: the same octets. */
		out = xmalloc(fl);
		if (k == SIW2_FPDU_READ_RESP0)
			rc = siw2_fpdu_read_resp0(out, fl, stag, to, crc_ok);
		else
			rc = siw2_fpdu_rtr_write(out, fl, crc_ok);
		CHECK(rc >= 0 && (size_t)rc == fl);
		if (k == SIW2_FPDU_READ_RESP0 || (stag == 1 && !to))
			CHECK(!memcmp(out, buf, crc_ok ? fl : fl - 4));
		free(out);
		break;
	default:
		CHECK(info.opcode == SIW2_OP_READ_REQ && info.msn == 1 &&
		      !info.read_size);
		CHECK(info.sink_stag == stag && info.sink_to == to);
		break;
	}
}

static void fuzz_fpdu(const u8 *buf, size_t n, bool crc, u8 rv, u8 feat)
{
	enum siw2_fpdu_err r;
	size_t fl, need, i;
	u32 stag;
	u64 to;
	bool pad_zero;
	u16 ulen;
	u8 *copy;
	int frames;

	for (frames = 0; frames < 64; frames++) {
		fl = 0;
		r = siw2_fpdu_check(buf, n, crc, &fl);
		CHECK(r == SIW2_FPDU_OK || r == SIW2_FPDU_INCOMPLETE ||
		      (crc && r == SIW2_FPDU_E_CRC));
		if (n < SIW2_MPA_HDR_LEN) {
			CHECK(r == SIW2_FPDU_INCOMPLETE);
			return;
		}
		ulen = get_unaligned_be16(buf);
		need = fpdu_need(ulen);
		CHECK(need % 4 == 0);
		CHECK((r == SIW2_FPDU_INCOMPLETE) == (n < need));
		if (r == SIW2_FPDU_INCOMPLETE) {
			/* Not its contract, but it must not read past @n. */
			siw2_fpdu_classify_rtr(buf, n, &stag, &to);
			return;
		}
		CHECK(fl == need);

		/* Sealing the same octets again gives a valid FPDU. */
		copy = xmalloc(fl);
		memcpy(copy, buf, fl);
		CHECK(siw2_fpdu_seal(copy, fl, ulen, true) == (int)fl);
		CHECK(siw2_fpdu_check(copy, fl, true, &i) == SIW2_FPDU_OK &&
		      i == fl);
		pad_zero = true;
		for (i = SIW2_MPA_HDR_LEN + ulen; i < fl - SIW2_MPA_CRC_LEN; i++)
			pad_zero &= !buf[i];
		if (crc && r == SIW2_FPDU_OK && pad_zero)
			CHECK(!memcmp(copy, buf, fl));
		free(copy);
		if (r == SIW2_FPDU_E_CRC)
			return;	/* the receiver terminates the stream */

		check_ddp(buf + SIW2_MPA_HDR_LEN, ulen, rv, feat);
		check_rtr(buf, fl, n, feat, crc);
		buf += fl;
		n -= fl;
	}
}

/* ---- FPDU builders, into buffers of the exact size offered ---- */

static void check_built(const u8 *out, int len, bool crc, u8 rv, u8 feat)
{
	size_t fl = 0;

	CHECK(len >= 0);
	CHECK(siw2_fpdu_check(out, len, crc, &fl) == SIW2_FPDU_OK);
	CHECK(fl == (size_t)len);
	if (!crc)
		CHECK(!get_unaligned_le32(out + len - SIW2_MPA_CRC_LEN));
	check_ddp(out + SIW2_MPA_HDR_LEN, get_unaligned_be16(out), rv, feat);
}

static void fuzz_build(struct cursor *c, bool crc, u8 rv, u8 feat)
{
	u8 what = get8(c) % 5;
	size_t size = get16(c) % 640;
	struct siw2_ddp_info info;
	struct siw2_term_code term, code;
	bool m, d, r, swapped;
	u8 *out = xmalloc(size), *before;
	u32 ulen, stag, stag2, msn;
	u8 layer, etype, ecode;
	u64 to;
	int rc;

	switch (what) {
	case 0:
		/* Up to 17 bits: the 16-bit field must refuse the rest. */
		ulen = get32(c) & 0x1ffff;
		for (size_t i = SIW2_MPA_HDR_LEN; i < size; i++)
			out[i] = get8(c);
		before = xmalloc(size);
		memcpy(before, out, size);
		rc = siw2_fpdu_seal(out, size, ulen, crc);
		if (ulen > U16_MAX || size < fpdu_need(ulen)) {
			CHECK(rc == (ulen > U16_MAX ? -EMSGSIZE : -ENOSPC));
			/* A refused seal leaves the buffer alone. */
			CHECK(!memcmp(out, before, size));
		} else {
			CHECK(rc >= 0 && (size_t)rc == fpdu_need(ulen));
			CHECK(!memcmp(out + SIW2_MPA_HDR_LEN,
				      before + SIW2_MPA_HDR_LEN, ulen));
			check_built(out, rc, crc, rv, feat);
		}
		free(before);
		break;
	case 1:
		rc = siw2_fpdu_rtr_write(out, size, crc);
		if (size < fpdu_need(sizeof(struct siw2_ddp_tagged))) {
			CHECK(rc == -ENOSPC);
			break;
		}
		check_built(out, rc, crc, SIW2_RDMAP_V1, feat);
		CHECK(siw2_fpdu_classify_rtr(out, rc, &stag, &to) ==
		      SIW2_FPDU_WRITE_RTR);
		break;
	case 2:
		rc = siw2_fpdu_rtr_read(out, size, crc);
		if (size < SIW2_FPDU_RTR_MAX) {
			CHECK(rc == -ENOSPC);
			break;
		}
		CHECK(rc == SIW2_FPDU_RTR_MAX);
		check_built(out, rc, crc, SIW2_RDMAP_V1, feat);
		CHECK(siw2_fpdu_classify_rtr(out, rc, &stag, &to) ==
		      SIW2_FPDU_READ_RTR);
		break;
	case 3:
		stag = get32(c);
		to = get64(c);
		rc = siw2_fpdu_read_resp0(out, size, stag, to, crc);
		if (size < fpdu_need(sizeof(struct siw2_ddp_tagged))) {
			CHECK(rc == -ENOSPC);
			break;
		}
		check_built(out, rc, crc, SIW2_RDMAP_V1, feat);
		CHECK(siw2_fpdu_classify_rtr(out, rc, &stag2, &to) ==
		      SIW2_FPDU_READ_RESP0 && stag2 == stag);
		break;
	default:
		msn = get32(c);
		layer = get8(c);
		etype = get8(c);
		ecode = get8(c);
		rc = siw2_fpdu_terminate(out, size, rv, msn, layer, etype,
					 ecode, crc);
		if (size < fpdu_need(sizeof(struct siw2_ddp_untagged) +
				     SIW2_TERM_CTRL_LEN)) {
			CHECK(rc == -ENOSPC);
			break;
		}
		check_built(out, rc, crc, rv, feat);
		CHECK(!decode(out + 2, get_unaligned_be16(out), rv, feat,
			      &info, &term));
		CHECK(info.opcode == SIW2_OP_TERMINATE && info.msn == msn);
		CHECK(info.term_ctrl == siw2_term_ctrl(layer, etype, ecode));
		/* A defined code comes back as sent, no flags set. */
		code.layer = layer & 0xf;
		code.etype = etype & 0xf;
		code.code = ecode;
		if (siw2_term_code_known(&code)) {
			CHECK(!siw2_ddp_term_parse(out + 2 + 18, 4, &term, &m,
						   &d, &r, &swapped));
			CHECK(!swapped && !m && !d && !r);
			CHECK(!memcmp(&term, &code, sizeof(term)));
		}
		break;
	}
	free(out);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct cursor c = { data + 1, size ? size - 1 : 0 };
	struct siw2_mpa_frame f;
	u8 sel, rv, feat;
	bool crc;

	if (!size)
		return 0;
	sel = data[0];
	rv = sel & SEL_RV2 ? SIW2_RDMAP_V2 : SIW2_RDMAP_V1;
	feat = (sel >> SEL_FEAT_SHIFT) & 3;
	crc = sel & SEL_CRC;

	switch (sel & 7) {
	case AREA_DDP:
		check_ddp(c.p, c.n, rv, feat);
		break;
	case AREA_TERM:
		check_term_parse(c.p, c.n);
		if (c.n >= 3)
			check_term_map(c.p[0], c.p[1], c.p[2]);
		break;
	case AREA_COMMIT_LOG:
		check_commit_log(c.p, c.n);
		break;
	case AREA_MPA:
		/* The CRC bit means nothing here: it picks decode or encode. */
		if (crc)
			fuzz_mpa_encode(&c, sel & SEL_REPLY ? SIW2_MPA_REPLY :
					SIW2_MPA_REQUEST);
		else
			check_mpa(c.p, c.n, sel & SEL_REPLY ? SIW2_MPA_REPLY :
				  SIW2_MPA_REQUEST, &f);
		break;
	case AREA_MPA_NEG:
		fuzz_mpa_neg(&c);
		break;
	case AREA_MPA_COMPLETE:
		fuzz_mpa_complete(&c);
		break;
	case AREA_FPDU:
		fuzz_fpdu(c.p, c.n, crc, rv, feat);
		break;
	default:
		fuzz_build(&c, crc, rv, feat);
		break;
	}
	return 0;
}

/*
 * Before any input: the shim's CRC-32C against its check value, and the
 * builders against two byte images of DIGEST 1.4, so that a broken shim
 * cannot make the CRC and byte order properties agree with themselves.
 */
static const u8 digest_rtr_write[20] = {
	0x00, 0x0e, 0xc1, 0x40, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xeb, 0xd3, 0x4c, 0x5f,
};

static const u8 digest_term_ird[28] = {
	0x00, 0x16, 0x41, 0x47, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x20, 0x06, 0x00, 0x00,
	0x65, 0x40, 0xfb, 0x1b,
};

/* siw2_rdmap_send_op() takes no input octets: all eight Sends, once. */
static void check_send_ops(void)
{
	u32 seen = 0;
	int i;
	u8 op;

	for (i = 0; i < 8; i++) {
		op = siw2_rdmap_send_op(i & 1, i & 2, i & 4);
		CHECK(!(seen & BIT(op)));
		seen |= BIT(op);
		CHECK(!siw2_rdmap_op_tagged(op) &&
		      siw2_rdmap_op_qn(op) == SIW2_QN_SEND);
		CHECK(op_inval(op) == !!(i & 1) && op_send_imm(op) == !!(i & 4));
		CHECK(strcmp(siw2_rdmap_op_name(op), "reserved"));
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	u8 buf[sizeof(digest_term_ird)];

	check_send_ops();

	CHECK(siw2_fpdu_crc("123456789", 9) == 0xe3069283U);
	CHECK(siw2_fpdu_rtr_write(buf, sizeof(buf), true) ==
	      sizeof(digest_rtr_write));
	CHECK(!memcmp(buf, digest_rtr_write, sizeof(digest_rtr_write)));
	CHECK(siw2_fpdu_terminate(buf, sizeof(buf), 1, 1,
				  SIW2_TERM_LAYER_LLP, SIW2_TERM_ETYPE_MPA,
				  SIW2_TERM_MPA_NO_IRD, true) == sizeof(buf));
	CHECK(!memcmp(buf, digest_term_ird, sizeof(buf)));
	return 0;
}
