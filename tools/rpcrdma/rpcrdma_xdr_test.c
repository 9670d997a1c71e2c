// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rpcrdma_xdr.c's tests, built with ASan and UBSan (make -C tools/rpcrdma
 * check): byte images written out by hand from the XDR, every prefix of
 * a valid header, each error a receiver must name, the properties, the
 * Linux peer's Version 1 answers, and a seeded round of random and
 * mutated headers whose decodes must re-encode to the same header.
 * Output is TAP; the last line is "N passed, N failed".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpcrdma_xdr.h"

static int passed, failed;

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", passed + failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (ok)
		passed++;
	else
		failed++;
}

static const struct rr_limits lim12 = { 1, 2, 4, 4, 8 };

/* Build a buffer of big-endian words. */
static size_t words(uint8_t *b, const uint32_t *w, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		b[4 * i] = w[i] >> 24;
		b[4 * i + 1] = w[i] >> 16;
		b[4 * i + 2] = w[i] >> 8;
		b[4 * i + 3] = w[i];
	}
	return 4 * n;
}

static int decode_words(const uint32_t *w, size_t n, const struct rr_limits *l,
			struct rr_hdr *h, struct rr_status *st)
{
	uint8_t b[1024];

	return rr_decode(b, words(b, w, n), l, h, st);
}

/* RFC 8166 layout: a v1 RDMA_MSG with no chunks, then the RPC message. */
static void test_v1_msg(void)
{
	static const uint32_t w[] = { 0x11223344, 1, 32, RR_MSG, 0, 0, 0,
				      0x11223344, 0 /* RPC xid, CALL */ };
	uint8_t b[64], e[64];
	struct rr_status st;
	struct rr_hdr h;
	size_t n = words(b, w, 9), len;
	int rv;

	rv = rr_decode(b, n, &lim12, &h, &st);
	check(!rv && h.xid == 0x11223344 && h.vers == 1 && h.credit == 32 &&
	      h.htype == RR_MSG && !h.nreads && !h.nwrites && !h.has_reply &&
	      h.payload == 28, "v1 RDMA_MSG decodes, RPC message at 28");
	rv = rr_encode(&h, e, sizeof(e), &len);
	check(!rv && len == 28 && !memcmp(b, e, 28),
	      "v1 RDMA_MSG re-encodes to the same 28 octets");
}

/* A v2 RDMA2_MSG with every list, against its image word by word. */
static void test_v2_lists(void)
{
	static const uint32_t img[] = {
		7, 2, 16, RR_MSG, 0 /* flags: a Call */, 0x1001 /* inv */,
		1, 0, 0x1001, 4096, 0, 0x10000,	/* read: pos 0 */
		1, 0, 0x1002, 100, 1, 0x20,	/* same chunk */
		0,
		1, 2, 0x2001, 8192, 0, 0x3000, 0x2002, 512, 0, 0x5000,
		0,
		1, 1, 0x3001, 65536, 0xffffffff, 0xfffff000,
		0xdeadbeef,			/* RPC message */
	};
	struct rr_seg rs[2] = { { 0x1001, 4096, 0x10000 },
				{ 0x1002, 100, 0x100000020ull } };
	struct rr_seg ws[2] = { { 0x2001, 8192, 0x3000 },
				{ 0x2002, 512, 0x5000 } };
	struct rr_seg rp = { 0x3001, 65536, 0xfffffffffffff000ull };
	uint8_t want[256], got[256];
	size_t n = words(want, img, sizeof(img) / 4), len = 0;
	struct rr_hdr h, d;
	struct rr_status st;
	int rv;

	rr_hdr_init(&h, RR_VERS_2, 7, 16, RR_MSG);
	h.inv_handle = 0x1001;
	rv = rr_add_read(&h, 0, &rs[0]) | rr_add_read(&h, 0, &rs[1]) |
	     rr_add_write(&h, ws, 2) | rr_set_reply(&h, &rp, 1) |
	     rr_encode(&h, got, sizeof(got), &len);
	check(!rv && len == n - 4 && !memcmp(got, want, len),
	      "v2 RDMA2_MSG with read, write and reply chunks: the XDR image");
	rv = rr_decode(want, n, &lim12, &d, &st);
	check(!rv && d.inv_handle == 0x1001 && d.nreads == 2 &&
	      d.reads[1].seg.offset == 0x100000020ull && d.nwrites == 1 &&
	      d.writes[0].nsegs == 2 && d.segs[d.writes[0].first + 1].length == 512 &&
	      d.has_reply && d.segs[d.reply.first].offset == rp.offset &&
	      d.payload == n - 4, "v2 RDMA2_MSG decodes every list (RPCRDMA2-INV-1)");
	check(rr_set_reply(&h, &rp, 1) == -EEXIST, "one reply chunk per header");
}

/* Every proper prefix of a valid header fails, as BAD_XDR. */
static void test_prefixes(void)
{
	static const uint32_t img[] = {
		9, 2, 4, RR_NOMSG, 1, 0,
		1, 4, 0x1, 16, 0, 0, 0,
		1, 1, 0x2, 16, 0, 0, 0,
		1, 1, 0x3, 16, 0, 0,
	};
	uint8_t b[256];
	size_t n = words(b, img, sizeof(img) / 4), i;
	struct rr_status st;
	struct rr_hdr h;
	int bad = 0;

	check(!rr_decode(b, n, &lim12, &h, &st) && h.payload == n,
	      "v2 RDMA2_NOMSG decodes whole");
	for (i = 0; i < n; i++)
		if (!rr_decode(b, i, &lim12, &h, &st) || st.err != RR_ERR_BAD_XDR)
			bad++;
	check(!bad, "all %zu proper prefixes refused with ERR_BAD_XDR (RPCRDMA2-ERR-4)", n);
}

static void test_bad_xdr(void)
{
	static const uint32_t disc[] = { 1, 2, 0, RR_NOMSG, 0, 0, 2, 0, 0 };
	static const uint32_t huge[] = { 1, 2, 0, RR_NOMSG, 0, 0, 0, 1,
					 0xffffffff, 0, 0 };
	static const uint32_t nomsg_rpc[] = { 1, 1, 0, RR_MSG, 0, 0, 0, 0xab };
	static const uint32_t msg_empty[] = { 1, 1, 0, RR_MSG, 0, 0, 0 };
	struct rr_status st;
	struct rr_hdr h;

	check(decode_words(disc, 9, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR &&
	      st.where == 24, "list discriminator 2: ERR_BAD_XDR at octet 24");
	check(decode_words(huge, 11, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "a write chunk counting 2^32-1 segments: ERR_BAD_XDR, nothing read");
	check(!decode_words(nomsg_rpc, 8, &lim12, &h, &st) && h.payload == 28,
	      "v1 RDMA_MSG with a one-word RPC message decodes");
	check(decode_words(msg_empty, 7, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "v1 RDMA_MSG without an RPC message: ERR_BAD_XDR");
}

static void test_limits(void)
{
	/* Reads at positions 0, 8, 16: three chunks against max_reads 2. */
	static const uint32_t reads[] = {
		1, 2, 0, RR_NOMSG, 0, 0,
		1, 0, 1, 4, 0, 0, 1, 8, 1, 4, 0, 0, 1, 16, 1, 4, 0, 0,
		0, 0, 0,
	};
	/* One read chunk of three segments against max_segs 2. */
	static const uint32_t rsegs[] = {
		1, 2, 0, RR_NOMSG, 0, 0,
		1, 8, 1, 4, 0, 0, 1, 8, 1, 4, 0, 0, 1, 8, 1, 4, 0, 0,
		0, 0, 0,
	};
	static const uint32_t writes[] = {
		1, 2, 0, RR_NOMSG, 0, 0, 0,
		1, 0, 1, 0, 1, 0, 0, 0,
	};
	static const uint32_t wsegs[] = {
		1, 2, 0, RR_NOMSG, 0, 0, 0, 0,
		1, 3, 1, 4, 0, 0, 2, 4, 0, 0, 3, 4, 0, 0,
	};
	const struct rr_limits l = { 1, 2, 2, 2, 2 };
	struct rr_status st;
	struct rr_hdr h;

	check(decode_words(reads, 27, &l, &h, &st) && st.err == RR_ERR_READ_CHUNKS &&
	      st.arg == 2, "3 read chunks over 2: ERR_READ_CHUNKS, max 2 (RPCRDMA2-ERR-5)");
	check(decode_words(rsegs, 27, &l, &h, &st) && st.err == RR_ERR_SEGMENTS &&
	      st.arg == 2, "3 segments in one read chunk over 2: ERR_SEGMENTS (RPCRDMA2-ERR-7)");
	check(decode_words(writes, 15, &l, &h, &st) && st.err == RR_ERR_WRITE_CHUNKS &&
	      st.arg == 2, "3 write chunks over 2: ERR_WRITE_CHUNKS, max 2 (RPCRDMA2-ERR-6)");
	check(decode_words(wsegs, 22, &l, &h, &st) && st.err == RR_ERR_SEGMENTS &&
	      st.arg == 2, "a reply chunk of 3 segments over 2: ERR_SEGMENTS");
}

static void test_versions(void)
{
	static const uint32_t v3[] = { 0x55, 3, 8, RR_MSG, 0, 0, 0, 0, 1 };
	static const uint32_t v2[] = { 0x56, 2, 8, RR_MSG, 0, 0, 0, 0, 0, 1 };
	/* What Linux nfsd (svc_rdma_send_error_msg) sends to a v2 Call. */
	static const uint32_t linux_vers[] = { 0x56, 2, 128, RR_ERROR,
					       RR_ERR_VERS, 1, 1 };
	const struct rr_limits v1only = { 1, 1, 4, 4, 8 };
	uint32_t out[16];
	uint8_t b[64];
	struct rr_status st;
	struct rr_hdr h, e, d;
	size_t len, i;

	check(decode_words(v3, 9, &lim12, &h, &st) && st.err == RR_ERR_VERS &&
	      h.xid == 0x55, "rdma_vers 3: ERR_VERS before any other field (RPCRDMA2-HDR-7)");
	check(!rr_set_error(&e, &h, 8, &st, &lim12) && !rr_encode(&e, b, sizeof(b), &len) &&
	      len == 28, "ERR_VERS to an unknown version goes in Version 1's layout");
	for (i = 0; i < len / 4; i++)
		out[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
			 (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	check(out[0] == 0x55 && out[1] == 1 && out[3] == RR_ERROR && out[4] == RR_ERR_VERS &&
	      out[5] == 1 && out[6] == 2, "it copies the XID and gives the range 1-2 (RPCRDMA2-VER-4)");

	check(decode_words(v2, 10, &v1only, &h, &st) && st.err == RR_ERR_VERS,
	      "a Version 1 receiver refuses rdma_vers 2");
	check(!rr_set_error(&e, &h, 8, &st, &v1only) && !rr_encode(&e, b, sizeof(b), &len) &&
	      len == 32 && !rr_decode(b, len, &lim12, &d, &st) && d.vers == 2 &&
	      (d.flags & RR_F_RESPONSE) && d.err == RR_ERR_VERS && d.err_a == 1 && d.err_b == 1,
	      "its ERR_VERS copies rdma_vers 2, sets F_RESPONSE (RPCRDMA2-ERR-2, HDR-6)");

	check(!decode_words(linux_vers, 7, &lim12, &h, &st) && h.htype == RR_ERROR &&
	      h.err == RR_ERR_VERS && h.err_a == 1 && h.err_b == 1 && h.xid == 0x56,
	      "Linux's Version 1 ERR_VERS to a Version 2 Call reads as range 1-1");
}

static void test_htypes(void)
{
	uint32_t w[8] = { 1, 2, 0, 0, 0, 0, 0, 0 };
	struct rr_status st;
	struct rr_hdr h;
	uint32_t t;
	int bad = 0;

	for (t = 2; t < 64; t++) {
		if (t == RR_ERROR || t == RR_CONNPROP)
			continue;
		w[1] = 2;
		w[3] = t;
		if (!decode_words(w, 8, &lim12, &h, &st) || st.err != RR_ERR_INVAL_HTYPE)
			bad++;
		w[1] = 1;
		if (t != RR_ERROR &&
		    (!decode_words(w, 8, &lim12, &h, &st) || st.err != RR_ERR_BAD_XDR))
			bad++;
	}
	check(!bad, "v2 header types other than 0, 1, 4, 5: ERR_INVAL_HTYPE; %s",
	      "v1's: ERR_CHUNK (RPCRDMA2-TYPE-1, RPCRDMA2-ERR-3)");
	w[1] = 1;
	w[3] = RR_CONNPROP;
	check(decode_words(w, 8, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "v1 has no CONNPROP");
}

static void test_errors(void)
{
	static const uint32_t nresp[] = { 1, 2, 0, RR_ERROR, 0, RR_ERR_SYSTEM };
	static const uint32_t v1code[] = { 1, 1, 0, RR_ERROR, RR_ERR_SEGMENTS, 4 };
	static const uint32_t unknown[] = { 1, 2, 0, RR_ERROR, 1, 77 };
	struct rr_status st = { 0 };
	struct rr_hdr h, d, f;
	uint8_t b[64];
	size_t len;
	uint32_t c;
	int bad = 0;

	for (c = RR_ERR_VERS; c <= RR_ERR_SYSTEM; c++) {
		rr_hdr_init(&h, RR_VERS_2, 0x99, 5, RR_ERROR);
		h.flags = RR_F_RESPONSE;
		h.err = c;
		/* Two arguments, one, or none (draft 6.4). */
		if (c == RR_ERR_VERS || c == RR_ERR_WRITE_RESOURCE) {
			h.err_a = 1;
			h.err_b = 2;
		} else if (c != RR_ERR_BAD_XDR && c != RR_ERR_INVAL_HTYPE &&
			   c != RR_ERR_SYSTEM) {
			h.err_a = 3;
		}
		if (rr_encode(&h, b, sizeof(b), &len) || rr_decode(b, len, &lim12, &d, &st) ||
		    d.err != c || d.err_a != h.err_a || d.err_b != h.err_b || d.payload != len)
			bad++;
	}
	check(!bad, "every RDMA2_ERROR body round-trips (draft 5.3.3)");
	check(decode_words(nresp, 6, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "RDMA2_ERROR without F_RESPONSE is refused (RPCRDMA2-HDR-6)");
	check(decode_words(v1code, 6, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "v1 RDMA_ERROR with a Version 2 code is refused");
	check(!decode_words(unknown, 6, &lim12, &h, &st) && h.err == 77,
	      "an unknown error code has no body (RPCRDMA2-EXT-1)");

	/* A v1 Call with too many write chunks is answered with ERR_CHUNK. */
	rr_hdr_init(&f, RR_VERS_1, 0x42, 0, RR_MSG);
	st.err = RR_ERR_WRITE_CHUNKS;
	st.arg = 1;
	check(!rr_set_error(&h, &f, 3, &st, &lim12) && h.vers == 1 &&
	      h.err == RR_ERR_BAD_XDR && !rr_encode(&h, b, sizeof(b), &len) && len == 20,
	      "in Version 1 every error but ERR_VERS is ERR_CHUNK");
	st.err = 0;
	check(rr_set_error(&h, &f, 3, &st, &lim12) == -EINVAL, "no error to answer with");
}

static void test_props(void)
{
	/* RBSIZ defaulted (empty), an unknown property of 5 octets, BRS 2. */
	static const uint32_t ok[] = { 1, 2, 0, RR_CONNPROP, 0, 3,
				       RR_PROP_RBSIZ, 0,
				       99, 5, 0x01020304, 0x05000000,
				       RR_PROP_BRS, 4, RR_BRS_GENL };
	static const uint32_t past[] = { 1, 2, 0, RR_CONNPROP, 0, 1, 99, 9, 0, 0 };
	static const uint32_t shortv[] = { 1, 2, 0, RR_CONNPROP, 0, 1, RR_PROP_RBSIZ, 2, 0 };
	static const uint32_t brs3[] = { 1, 2, 0, RR_CONNPROP, 0, 1, RR_PROP_BRS, 4, 3 };
	static const uint32_t dup[] = { 1, 2, 0, RR_CONNPROP, 0, 2,
					RR_PROP_BRS, 0, RR_PROP_BRS, 4, 1 };
	static const uint32_t many[] = { 1, 2, 0, RR_CONNPROP, 0, 0x40000000, 0, 0 };
	const struct rr_prop *p, *q;
	struct rr_status st;
	struct rr_hdr h, d;
	uint8_t b[64];
	size_t len;
	int good;

	good = !decode_words(ok, 15, &lim12, &h, &st) && h.nprops == 2 &&
	       (p = rr_find_prop(&h, RR_PROP_RBSIZ)) && !p->present &&
	       p->value == RR_RBSIZ_DEFAULT && (q = rr_find_prop(&h, RR_PROP_BRS)) &&
	       q->present && q->value == RR_BRS_GENL && h.payload == 60;
	check(good, "CONNPROP: an empty value is the default (RPCRDMA2-PROP-1), %s",
	      "an unknown property is skipped (RPCRDMA2-PROP-4)");
	check(decode_words(past, 10, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "a property whose data runs past the message: ERR_BAD_XDR (RPCRDMA2-PROP-2)");
	check(decode_words(shortv, 9, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "RBSIZ of 2 octets: ERR_BAD_XDR (RPCRDMA2-PROP-3)");
	check(decode_words(brs3, 9, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "BRS 3 is no rvreqsup value: ERR_BAD_XDR (RPCRDMA2-PROP-3)");
	check(decode_words(dup, 11, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "the same property twice: ERR_BAD_XDR");
	check(decode_words(many, 8, &lim12, &h, &st) && st.err == RR_ERR_BAD_XDR,
	      "a propset counting 2^30 entries: ERR_BAD_XDR, nothing read");

	rr_hdr_init(&h, RR_VERS_2, 0, 32, RR_CONNPROP);
	check(!rr_add_prop(&h, RR_PROP_RBSIZ, 8192) && !rr_add_prop(&h, RR_PROP_BRS, 1) &&
	      rr_add_prop(&h, RR_PROP_BRS, 1) == -EINVAL && rr_add_prop(&h, 99, 1) == -EINVAL &&
	      !rr_encode(&h, b, sizeof(b), &len) && len == 48 &&
	      !rr_decode(b, len, &lim12, &d, &st) &&
	      rr_find_prop(&d, RR_PROP_RBSIZ)->value == 8192,
	      "CONNPROP with RBSIZ 8192 and BRS inline round-trips in 48 octets");
}

static void test_encode_refusals(void)
{
	struct rr_hdr h;
	uint8_t b[64];
	size_t len;

	rr_hdr_init(&h, RR_VERS_2, 1, 1, RR_MSG);
	h.flags = 2;
	check(rr_encode(&h, b, sizeof(b), &len) == -EINVAL,
	      "a reserved flag is never sent (RPCRDMA2-HDR-2)");
	rr_hdr_init(&h, RR_VERS_2, 1, 1, RR_ERROR);
	check(rr_encode(&h, b, sizeof(b), &len) == -EINVAL,
	      "an error without F_RESPONSE is never sent (RPCRDMA2-HDR-6)");
	rr_hdr_init(&h, RR_VERS_1, 1, 1, RR_CONNPROP);
	check(rr_encode(&h, b, sizeof(b), &len) == -EINVAL, "v1 sends no CONNPROP");
	rr_hdr_init(&h, RR_VERS_2, 1, 1, RR_MSGP);
	check(rr_encode(&h, b, sizeof(b), &len) == -EINVAL, "RDMA_MSGP is never sent");
	rr_hdr_init(&h, RR_VERS_2, 1, 1, RR_NOMSG);
	check(rr_encode(&h, b, 27, &len) == -ENOSPC && !rr_encode(&h, b, 36, &len) &&
	      len == 36, "ENOSPC below the header's 36 octets");
}

static void test_cm(void)
{
	static const uint8_t want[8] = { 0xf6, 0xab, 0x0e, 0x18, 1, 1, 3, 15 };
	uint8_t pd[12] = { 0 };
	uint32_t s, r;
	uint8_t f;

	rr_cm_encode(pd, RR_CM_F_SND_W_INV_OK, 4096, 16384);
	check(!memcmp(pd, want, 8),
	      "connection private data: magic, version 1, flags, (size / 1 KiB) - 1");
	check(!rr_cm_decode(pd, 12, &f, &s, &r) && f == 1 && s == 4096 && r == 16384,
	      "it decodes, padded to 12 octets");
	pd[0] = 0;
	check(rr_cm_decode(pd, 12, &f, &s, &r) == -ENOENT, "another magic is not ours");
	check(rr_cm_decode(want, 7, &f, &s, &r) == -ENOENT, "7 octets are not enough");
}

static uint64_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 16);
}

/* A plausible word: small values hit the discriminators and counts. */
static uint32_t rnd_word(void)
{
	switch (rnd() % 4) {
	case 0:
		return rnd() % 3;
	case 1:
		return rnd() % 16;
	case 2:
		return 0xffffffff - rnd() % 4;
	default:
		return rnd();
	}
}

/* A random round's failure, as a TAP diagnostic (the first few). */
static int diag(unsigned int seed, unsigned int round, const char *what)
{
	static int shown;

	if (shown++ < 5)
		printf("# seed %u, round %u: %s\n", seed, round, what);
	return 1;
}

/*
 * Random headers after a valid prefix: whatever decodes must encode, and
 * decode again to the same header (the payload offset aside: unknown
 * properties are not re-sent).
 */
static void test_random(unsigned int seed, unsigned int rounds)
{
	const struct rr_limits l = { 1, 2, 3, 3, 5 };
	unsigned int i, decoded = 0, bad = 0;
	uint8_t b[512], e[1024] = { 0 };
	struct rr_status st, st2;
	struct rr_hdr h, d;
	size_t n, len, j;

	rng = 0x9e3779b97f4a7c15ull ^ seed;
	for (i = 0; i < rounds; i++) {
		uint32_t w[96];
		size_t nw = 4 + rnd() % 60;

		w[0] = rnd();
		w[1] = 1 + rnd() % 2;
		w[2] = rnd() % 256;
		w[3] = rnd() % 7;
		for (j = 4; j < nw; j++)
			w[j] = rnd_word();
		if (w[1] == 2 && rnd() % 2)
			w[4] = rnd() % 2;
		n = words(b, w, nw);
		if (rnd() % 4 == 0)
			n -= rnd() % 4;	/* not a whole word */
		if (rr_decode(b, n, &l, &h, &st)) {
			if (!st.err || st.where > n)
				bad += diag(seed, i, "refused without an error");
			continue;
		}
		decoded++;
		if (h.vers == 2 && (h.flags & ~RR_F_RESPONSE))
			continue;	/* kept on receipt, never sent */
		/* Four more octets: an RDMA2_MSG's RPC message. */
		if (rr_encode(&h, e, sizeof(e) - 4, &len) ||
		    rr_decode(e, len + 4, &l, &d, &st2)) {
			bad += diag(seed, i, "does not re-encode and decode");
			continue;
		}
		d.payload = h.payload;
		if (memcmp(&h, &d, sizeof(h)))
			bad += diag(seed, i, "decodes to another header once re-encoded");
	}
	check(!bad && decoded > rounds / 100,
	      "%u random headers (seed %u): %u decoded, each re-encodes to itself; %s",
	      rounds, seed, decoded, "every refusal names an error");
}

int main(int argc, char **argv)
{
	unsigned int seed = argc > 1 ? strtoul(argv[1], NULL, 0) : 1;
	unsigned int rounds = argc > 2 ? strtoul(argv[2], NULL, 0) : 200000;

	test_v1_msg();
	test_v2_lists();
	test_prefixes();
	test_bad_xdr();
	test_limits();
	test_versions();
	test_htypes();
	test_errors();
	test_props();
	test_encode_refusals();
	test_cm();
	test_random(seed, rounds);
	printf("1..%d\n%d passed, %d failed\n", passed + failed, passed, failed);
	return failed ? 1 : 0;
}
