/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: receive-side decoding and validation of the DDP/RDMAP header of one
 * FPDU (RFC 5041, RFC 5040), after MPA framing and CRC were checked, and
 * parsing of a received Terminate's control word. Pure functions.
 */
#ifndef _SIW2_DDP_H
#define _SIW2_DDP_H

#include "siw2_wire.h"

/*
 * Terminate codes used by the decoder that siw2_wire.h does not name yet
 * (DIGEST 3.4, BASE-DDP-5, BASE-DDP-6).
 */
#define SIW2_TERM_ETYPE_CATASTROPHIC	0	/* Layer 0 or 1: Local Catastrophic */
#define SIW2_TERM_ETYPE_DDP_TAGGED	1
#define SIW2_TERM_ETYPE_DDP_UNTAGGED	2
#define SIW2_TERM_ETYPE_REMOTE_PROT	1	/* Layer 0: Remote Protection */
#define SIW2_TERM_RDMAP_BAD_STAG	0x00	/* 0/1: Invalid STag */
#define SIW2_TERM_RDMAP_BOUNDS		0x01	/* 0/1: Base or bounds violation */
#define SIW2_TERM_RDMAP_ACCESS		0x02	/* 0/1: Access rights violation */
#define SIW2_TERM_RDMAP_STAG_STREAM	0x03	/* 0/1: STag not on this stream */
#define SIW2_TERM_RDMAP_TO_WRAP		0x04	/* 0/1: TO wrap */
#define SIW2_TERM_RDMAP_BAD_RV		0x05	/* 0/2: Invalid RDMAP version */
#define SIW2_TERM_RDMAP_CATASTROPHIC	0x07	/* 0/2: localized to the stream */
#define SIW2_TERM_RDMAP_CANT_INVAL	0x09	/* 0/2: STag cannot be invalidated */
#define SIW2_TERM_RDMAP_UNSPECIFIED	0xff	/* 0/2: e.g. Immediate not 8 octets (DEC-9) */
#define SIW2_TERM_DDP_T_BAD_STAG	0x00	/* 1/1: Invalid STag */
#define SIW2_TERM_DDP_T_BOUNDS		0x01	/* 1/1: Base or bounds violation */
#define SIW2_TERM_DDP_T_STAG_STREAM	0x02	/* 1/1: STag not on this stream */
#define SIW2_TERM_DDP_T_TO_WRAP		0x03	/* 1/1: TO wrap */
#define SIW2_TERM_DDP_U_NO_BUF		0x02	/* 1/2: MSN, no buffer */
#define SIW2_TERM_DDP_U_MSN_RANGE	0x03	/* 1/2: MSN range not valid */
#define SIW2_TERM_DDP_U_TOO_LONG	0x05	/* 1/2: message too long */
#define SIW2_TERM_DDP_T_BAD_DV		0x04	/* 1/1: Invalid DDP version */
#define SIW2_TERM_DDP_U_BAD_QN		0x01	/* 1/2: Invalid QN */
#define SIW2_TERM_DDP_U_BAD_MO		0x04	/* 1/2: Invalid MO */
#define SIW2_TERM_DDP_U_BAD_DV		0x06	/* 1/2: Invalid DDP version */

/*
 * siw2_ddp_decode() @feat: the optional message families the connection
 * negotiated (DEC-4; siw2_conn_feat() derives them from MPA). An opcode
 * of a family not in @feat is Terminate 0/2/0x06.
 */
#define SIW2_DDP_FEAT_EXT	0x01	/* RFC 7306; on RV 2 also the v2 messages */
#define SIW2_DDP_FEAT_COMMIT	0x02	/* RDMA Commit Request and Response */

/* Length of the Terminate Control word, the Terminate's RDMAP header. */
#define SIW2_TERM_CTRL_LEN		4

/* One error code a Terminate carries (RFC 5040 4.8, DIGEST 3.4). */
struct siw2_term_code {
	u8 layer;
	u8 etype;
	u8 code;
};

/**
 * struct siw2_ddp_info - the decoded DDP/RDMAP header of one DDP segment
 * @tagged: T bit
 * @last: L bit
 * @dv: DDP version
 * @rv: RDMAP version
 * @opcode: RDMAP opcode, 5 bits (DEC-1)
 * @stag: tagged: STag
 * @to: tagged: Tagged Offset
 * @inval_stag: untagged Send with (SE and) Invalidate, Commit Request: the
 *	STag to invalidate (RsvdULP[8..39]), 0 for none (a Commit's is to be
 *	invalidated after it succeeded, DEC-20); 0 for every other opcode
 * @qn: untagged: Queue Number
 * @msn: untagged: Message Sequence Number
 * @mo: untagged: Message Offset
 * @hdr_len: DDP plus RDMAP header octets: where the payload starts in the
 *	ULPDU. For a Terminate this includes the Terminate Control word.
 * @payload_len: ULPDU octets after @hdr_len. For a Commit Request: the
 *	octets after its 20-octet header (extra regions or a ULP message the
 *	draft leaves undefined), which the decoder accepts so that the
 *	Responder answers Status SIW2_COMMIT_ST_LIMITS without a Terminate
 *	(AMB-14); 0 for a single-region Commit
 * @sink_stag: Read Request, Commit Request: Data Sink STag
 * @sink_to: Read Request, Commit Request: Data Sink Tagged Offset
 * @sink_len: Commit Request: Data Sink Length, the octets from @sink_to
 *	to commit; 0 commits nothing (DEC-12)
 * @read_size: Read Request: RDMA Read Message Size
 * @src_stag: Read Request: Data Source STag
 * @src_to: Read Request: Data Source Tagged Offset
 * @term_ctrl: Terminate: the Terminate Control word, host order, as sent
 * @imm: Immediate Data, or the last segment of a Send with Immediate Data:
 *	the 8 octets as a big-endian number (octets 0..3 are the verbs'
 *	imm_data, DEC-5)
 * @aop: Atomic Request: AOpCode (SIW2_AOP_*)
 * @req_id: Atomic or Commit Request: Request Identifier; Atomic or Commit
 *	Response: Original Request Identifier
 * @atomic_stag: Atomic Request: Remote STag
 * @atomic_to: Atomic Request: Remote Tagged Offset
 * @add_swap: Atomic Request: Add or Swap Data
 * @add_swap_mask: Atomic Request: Add or Swap Mask
 * @cmp: Atomic Request: Compare Data
 * @cmp_mask: Atomic Request: Compare Mask
 * @orig_value: Atomic Response: Original Remote Data Value
 * @commit_status: Commit Response: Status (enum siw2_commit_status, DEC-13;
 *	any value is decoded, what it means is the Requester's business)
 *
 * An RDMA Read Request V2 fills @read_size, @src_stag and @src_to.
 */
struct siw2_ddp_info {
	bool tagged;
	bool last;
	u8 dv;
	u8 rv;
	u8 opcode;
	u32 stag;
	u64 to;
	u32 inval_stag;
	u32 qn;
	u32 msn;
	u32 mo;
	u32 hdr_len;
	u32 payload_len;
	u32 sink_stag;
	u64 sink_to;
	u32 sink_len;
	u32 read_size;
	u32 src_stag;
	u64 src_to;
	u32 term_ctrl;
	u64 imm;
	u8 aop;
	u32 req_id;
	u32 atomic_stag;
	u64 atomic_to;
	u64 add_swap;
	u64 add_swap_mask;
	u64 cmp;
	u64 cmp_mask;
	u64 orig_value;
	u32 commit_status;
};

/**
 * struct siw2_commit_log_info - a Commit's log update (SIW2-DEC-1)
 * @stag: the STag of the log word
 * @to: its Tagged Offset, 8-octet aligned
 * @value: the 8 octets to store, as they travel (no byte order applied)
 */
struct siw2_commit_log_info {
	u32 stag;
	u64 to;
	u64 value;
};

int siw2_ddp_decode(const void *ulpdu, size_t ulpdu_len, u8 rv, u8 feat,
		    struct siw2_ddp_info *info, struct siw2_term_code *term);
const char *siw2_rdmap_op_name(u8 op);
bool siw2_rdmap_op_tagged(u8 op);
u32 siw2_rdmap_op_qn(u8 op);
u8 siw2_rdmap_send_op(bool inv, bool se, bool imm);
u32 siw2_ddp_hdr_len(u16 ctrl);
bool siw2_term_code_known(const struct siw2_term_code *c);
int siw2_ddp_term_parse(const void *payload, size_t len,
			struct siw2_term_code *code, bool *m, bool *d, bool *r,
			bool *swapped);
bool siw2_commit_log_decode(const void *tail, size_t len,
			    struct siw2_commit_log_info *log);
void siw2_commit_log_encode(void *tail, const struct siw2_commit_log_info *log);

#endif /* _SIW2_DDP_H */
