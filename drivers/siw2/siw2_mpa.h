/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 MPA Request/Reply codec and RFC 6581 negotiation. Pure functions:
 * no sockets, no RDMA core, so KUnit can test them in isolation.
 */
#ifndef _SIW2_MPA_H
#define _SIW2_MPA_H

#include "siw2_ddp.h"
#include "siw2_wire.h"

enum siw2_mpa_kind {
	SIW2_MPA_REQUEST,
	SIW2_MPA_REPLY,
};

/* RTR forms (RFC 6581 9), as a bit set. */
#define SIW2_RTR_FPDU	0x1	/* B: zero-length FULPDU, never used (DEC-3) */
#define SIW2_RTR_WRITE	0x2	/* C: zero-length RDMA Write */
#define SIW2_RTR_READ	0x4	/* D: zero-length RDMA Read */

/**
 * struct siw2_mpa_frame - an MPA Request or Reply, decoded
 * @kind: Request or Reply (the key)
 * @rev: 1 or 2
 * @markers: M flag
 * @crc: C flag
 * @reject: R flag (Reply)
 * @enhanced: S flag: IRD/ORD data present (Rev 2)
 * @caps: SIW2_MPA_CAP_* from the Res bits (Rev 2 only, DEC-4)
 * @p2p: A flag: peer-to-peer mode
 * @rtr: SIW2_RTR_* offered (Request) or accepted (Reply)
 * @ird: IRD field, @ord: ORD field (14 bits)
 * @pd: the ULP's private data, enhanced data excluded
 * @pd_len: its length
 */
struct siw2_mpa_frame {
	enum siw2_mpa_kind kind;
	u8 rev;
	bool markers;
	bool crc;
	bool reject;
	bool enhanced;
	u8 caps;
	bool p2p;
	u8 rtr;
	u16 ird;
	u16 ord;
	const u8 *pd;
	u16 pd_len;
};

/* Why a received frame is malformed; each maps to one reaction. */
enum siw2_mpa_err {
	SIW2_MPA_OK,
	SIW2_MPA_INCOMPLETE,	/* fewer bytes than the frame needs */
	SIW2_MPA_E_KEY,		/* wrong key for the role */
	SIW2_MPA_E_REV,		/* Rev not 1 or 2 */
	SIW2_MPA_E_PD_LEN,	/* PD_Length above 512 */
	SIW2_MPA_E_ENHANCED,	/* S on Rev 2 with PD_Length < 4 */
	SIW2_MPA_NUM_ERRS
};

/* Local CRC policy (module parameter mpa_crc). */
enum siw2_crc_policy {
	SIW2_CRC_PEER,		/* ask for nothing, use CRC if the peer asks */
	SIW2_CRC_REQUIRED,	/* always ask for CRC */
	SIW2_CRC_OFF,		/* never use CRC: refuse peers that ask */
};

/**
 * struct siw2_mpa_conn - what a connection negotiated
 * @rev: MPA revision in use
 * @crc: FPDUs carry a checked CRC
 * @caps: SIW2_MPA_CAP_* both sides advertised
 * @p2p: peer-to-peer mode (an RTR precedes all traffic)
 * @rtr: the single SIW2_RTR_* form used, 0 if none (or a ULP Send)
 * @ird: inbound RDMA Read queue depth, @ord: outbound
 * @early_fpdu: Responder only: the Initiator set a DEC-4 bit in its
 *	Request, which promises it takes FPDUs right behind the Reply, so
 *	client-server mode needs no MPA fence (design.md, "MPA fencing")
 */
struct siw2_mpa_conn {
	u8 rev;
	bool crc;
	u8 caps;
	bool p2p;
	bool early_fpdu;
	u8 rtr;
	u16 ird;
	u16 ord;
};

/*
 * An acknowledged capability exchange means a siw2 peer, which takes the
 * RFC 7306 messages (Immediate Data, Atomics) on RV 1: RFC 7306 leaves
 * discovery to the ULP (EXT-GEN-1), and DEC-4's bits are siw2's own.
 */
static inline bool siw2_conn_ext(const struct siw2_mpa_conn *c)
{
	return c->caps;
}

/*
 * The optional messages siw2_ddp_decode() accepts on the connection: the
 * RFC 7306 family with any acknowledged bit (siw2_conn_ext()), RDMA
 * Commit only when both sides advertised its bit (DEC-4); without it a
 * Commit is refused like any unsupported opcode (COMMIT-DISC-2).
 */
static inline u8 siw2_conn_feat(const struct siw2_mpa_conn *c)
{
	return (siw2_conn_ext(c) ? SIW2_DDP_FEAT_EXT : 0) |
	       (c->caps & SIW2_MPA_CAP_COMMIT ? SIW2_DDP_FEAT_COMMIT : 0);
}

/*
 * MPA fencing (RFC 5044 7.1.2, BASE-MPA-11): a client-server Responder
 * sends no FPDU before the Initiator's first one, unless the Initiator
 * promised to take FPDUs right behind the Reply (@early_fpdu, DEC-4).
 * Peer-to-peer mode has its RTR instead.
 */
static inline bool siw2_conn_fenced(const struct siw2_mpa_conn *c,
				    bool active)
{
	return !active && !c->p2p && !c->early_fpdu;
}

/* The RDMAP version of every message on the connection (DEC-4). */
static inline u8 siw2_conn_rv(const struct siw2_mpa_conn *c)
{
	return c->caps & SIW2_MPA_CAP_RDMAP_V2 ? SIW2_RDMAP_V2 : SIW2_RDMAP_V1;
}

const char *siw2_mpa_err_name(enum siw2_mpa_err err);
enum siw2_mpa_err siw2_mpa_parse_hdr(const void *buf, size_t len,
				     enum siw2_mpa_kind kind,
				     size_t *frame_len);
enum siw2_mpa_err siw2_mpa_decode(const void *buf, size_t len,
				  enum siw2_mpa_kind kind,
				  struct siw2_mpa_frame *f);
size_t siw2_mpa_frame_len(const struct siw2_mpa_frame *f);
int siw2_mpa_encode(const struct siw2_mpa_frame *f, void *buf, size_t size);
int siw2_mpa_crc_resolve(enum siw2_crc_policy policy, bool peer_crc,
			 bool *use_crc);
int siw2_mpa_respond(const struct siw2_mpa_frame *req, u16 ulp_ird,
		     u16 ulp_ord, u16 max_ird, u8 local_caps, u8 rtr_forms,
		     struct siw2_mpa_frame *rep, struct siw2_mpa_conn *conn);
int siw2_mpa_complete(const struct siw2_mpa_frame *req,
		      const struct siw2_mpa_frame *rep, u16 max_ird,
		      struct siw2_mpa_conn *conn);

#endif /* _SIW2_MPA_H */
