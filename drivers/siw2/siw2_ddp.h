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
#define SIW2_TERM_RDMAP_BAD_RV		0x05	/* 0/2: Invalid RDMAP version */
#define SIW2_TERM_DDP_T_BAD_DV		0x04	/* 1/1: Invalid DDP version */
#define SIW2_TERM_DDP_U_BAD_QN		0x01	/* 1/2: Invalid QN */
#define SIW2_TERM_DDP_U_BAD_MO		0x04	/* 1/2: Invalid MO */
#define SIW2_TERM_DDP_U_BAD_DV		0x06	/* 1/2: Invalid DDP version */

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
 * @inval_stag: untagged Send with (SE and) Invalidate: the STag to
 *	invalidate (RsvdULP[8..39]); 0 for every other opcode
 * @qn: untagged: Queue Number
 * @msn: untagged: Message Sequence Number
 * @mo: untagged: Message Offset
 * @hdr_len: DDP plus RDMAP header octets: where the payload starts in the
 *	ULPDU. For a Terminate this includes the Terminate Control word.
 * @payload_len: ULPDU octets after @hdr_len
 * @sink_stag: Read Request: Data Sink STag
 * @sink_to: Read Request: Data Sink Tagged Offset
 * @read_size: Read Request: RDMA Read Message Size
 * @src_stag: Read Request: Data Source STag
 * @src_to: Read Request: Data Source Tagged Offset
 * @term_ctrl: Terminate: the Terminate Control word, host order, as sent
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
	u32 read_size;
	u32 src_stag;
	u64 src_to;
	u32 term_ctrl;
};

int siw2_ddp_decode(const void *ulpdu, size_t ulpdu_len, u8 rv,
		    struct siw2_ddp_info *info, struct siw2_term_code *term);
const char *siw2_rdmap_op_name(u8 op);
bool siw2_term_code_known(const struct siw2_term_code *c);
int siw2_ddp_term_parse(const void *payload, size_t len,
			struct siw2_term_code *code, bool *m, bool *d, bool *r,
			bool *swapped);

#endif /* _SIW2_DDP_H */
