/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The protocol between tests/progs/siw2_ext (user space) and its peers
 * (another siw2_ext, or the kernel client tests/kmod/siw2_extktest.ko):
 * a test of the RDMAP extension operations whose results the receiving
 * side reports back, so that the requester checks what arrived.
 *
 * Server ("siw2_ext -s"), per connection:
 *  - registers a window of SIW2_EXT_WIN octets (LOCAL_WRITE, REMOTE_WRITE,
 *    REMOTE_READ, REMOTE_ATOMIC), octet i filled with siw2_ext_byte(i, 0);
 *  - posts SIW2_EXT_RECVS receives of SIW2_EXT_RECV_LEN octets each, the
 *    one with wr_id i at offset i * SIW2_EXT_RECV_LEN of its receive area,
 *    and reposts each as soon as its completion is polled: the message
 *    reported as s lands in receive (s - 1) % SIW2_EXT_RECVS;
 *  - accepts with struct siw2_ext_hello as private data;
 *  - for every receive completion, checks the payload (octet i of a
 *    message of sequence number s must be siw2_ext_byte(i, s), s being
 *    the report number, counted from 1) and sends one Send of
 *    struct siw2_ext_report back, then reposts the receive.
 * Client: posts receives for the reports, then runs its operations; each
 * operation that consumes a server receive is followed by waiting for its
 * report. It ends with rdma_disconnect().
 *
 * All fields are little-endian (the test machines are x86).
 */
#ifndef SIW2_EXT_PROTO_H
#define SIW2_EXT_PROTO_H

#define SIW2_EXT_WIN		(1U << 20)
#define SIW2_EXT_RECVS		32
#define SIW2_EXT_RECV_LEN	(256U * 1024)

/*
 * Accept private data: the server's window, a second STag for the same
 * memory without REMOTE_ATOMIC (for the access error), and its receive
 * area (REMOTE_READ and REMOTE_ATOMIC), where the client reads back what
 * its Sends placed (the order checks of "siw2_ext --order").
 */
struct siw2_ext_hello {
	__u64 addr;
	__u32 rkey;
	__u32 len;
	__u32 rkey_noatomic;
	__u64 rbuf_addr;
	__u32 rbuf_rkey;
} __attribute__((packed));

/*
 * A Send of struct siw2_ext_plan names, for some later receives (by
 * report number), a window range that must already hold its pattern
 * (octet i: siw2_ext_byte(i, seed)) when the server polls that receive's
 * completion: data an earlier Write placed before a later message
 * completes. The result goes into that report's data_ok; the plan's own
 * report has data_ok 1.
 */
#define SIW2_EXT_PLAN_MAGIC	0x4e414c50	/* "PLAN" */
#define SIW2_EXT_PLAN_MAX	4
struct siw2_ext_plan {
	__u32 magic;
	__u32 n;
	struct {
		__u32 seq;
		__u32 off;
		__u32 len;
		__u32 seed;
	} e[SIW2_EXT_PLAN_MAX];
} __attribute__((packed));

/*
 * At the end of every connection the server prints the window's u64s at
 * these offsets ("EXT WIN ..."): the error tests seed them and check that
 * a refused atomic left them alone.
 */
#define SIW2_EXT_GUARD_OFF	64

/* What the server saw of one receive completion. */
struct siw2_ext_report {
	__u32 seq;		/* report number, from 1 */
	__u32 status;		/* ibv_wc_status */
	__u32 opcode;		/* ibv_wc_opcode */
	__u32 byte_len;
	__u32 wc_flags;		/* IBV_WC_WITH_IMM 2, IBV_WC_WITH_INV 8 */
	__u32 imm_data;		/* ibv_wc.imm_data as received (network order) */
	__u64 imm64;		/* siw2dv_cq_read_imm(): all 8 octets */
	__u32 inv_rkey;		/* siw2dv_cq_read_imm(): invalidated STag */
	__u32 data_ok;		/* 1: every payload octet as expected */
} __attribute__((packed));

/*
 * A client that holds an STag the server may invalidate (a kernel client's
 * fast-registration MR) sends this instead of data: the server answers
 * with a Send with Invalidate and Immediate Data naming @stag (with SE if
 * @se), Immediate Data siw2_ext_inv_imm(seq), and no report. The message
 * still counts as one report number.
 */
#define SIW2_EXT_INVI_MAGIC	0x49564e49	/* "INVI" */
struct siw2_ext_invi {
	__u32 magic;
	__u32 stag;
	__u32 se;
} __attribute__((packed));

static inline __u64 siw2_ext_inv_imm(__u32 seq)
{
	return 0x5151515100000000ULL | seq;
}

/* Payload octet @i of the message the server reports as @seq. */
static inline __u8 siw2_ext_byte(__u32 i, __u32 seq)
{
	return (__u8)(i * 13 + (i >> 8) + seq * 101 + 7);
}

#endif /* SIW2_EXT_PROTO_H */
