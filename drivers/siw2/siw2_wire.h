/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 wire formats: every on-the-wire layout siw2 parses or builds, with
 * accessors. Shared by the protocol code and the KUnit suites. Requirement
 * IDs refer to ../shared/specs/DIGEST.md.
 */
#ifndef _SIW2_WIRE_H
#define _SIW2_WIRE_H

#include <linux/build_bug.h>
#include <linux/compiler_attributes.h>
#include <linux/types.h>
#include <asm/byteorder.h>

/* ---- MPA Request/Reply frame (RFC 5044 7.1, RFC 6581 6; BASE-MPA-1) ---- */

#define SIW2_MPA_KEY_LEN	16
#define SIW2_MPA_KEY_REQ	"MPA ID Req Frame"
#define SIW2_MPA_KEY_REP	"MPA ID Rep Frame"

/* Octet 16: M C R S, then the 4 Res bits (BASE-MPA-2, MPA2-HDR-2). */
#define SIW2_MPA_F_MARKERS	0x80	/* sender wants Markers */
#define SIW2_MPA_F_CRC		0x40	/* CRC used (BASE-MPA-4) */
#define SIW2_MPA_F_REJECT	0x20	/* Reply only: connection rejected */
#define SIW2_MPA_F_ENHANCED	0x10	/* S: Private Data starts with IRD/ORD */
#define SIW2_MPA_F_RES		0x0f

/*
 * siw2's capability bits in Res, meaningful with Rev 2 only (DEC-4).
 * 0x08 stays free: Linux siw uses it privately.
 */
#define SIW2_MPA_CAP_RDMAP_V2	0x04
#define SIW2_MPA_CAP_COMMIT	0x02
#define SIW2_MPA_CAPS		(SIW2_MPA_CAP_RDMAP_V2 | SIW2_MPA_CAP_COMMIT)

#define SIW2_MPA_REV1		1
#define SIW2_MPA_REV2		2

/* PD_Length bound on the wire (BASE-MPA-5, MPA2-HDR-7). */
#define SIW2_MPA_MAX_PD_WIRE	512

struct siw2_mpa_hdr {
	u8 key[SIW2_MPA_KEY_LEN];
	u8 flags;
	u8 rev;
	__be16 pd_len;
} __packed;
static_assert(sizeof(struct siw2_mpa_hdr) == 20);

static inline u16 siw2_mpa_pd_len(const struct siw2_mpa_hdr *h)
{
	return be16_to_cpu(h->pd_len);
}

/* ---- RFC 6581 9: enhanced connection data, first 4 octets of PD ---- */

#define SIW2_MPA_V2_P2P		0x8000	/* A, IRD word */
#define SIW2_MPA_V2_FPDU_RTR	0x4000	/* B, IRD word (never offered, DEC-3) */
#define SIW2_MPA_V2_WRITE_RTR	0x8000	/* C, ORD word */
#define SIW2_MPA_V2_READ_RTR	0x4000	/* D, ORD word */
#define SIW2_MPA_V2_VAL		0x3fff	/* IRD/ORD value */
#define SIW2_MPA_V2_NO_NEG	0x3fff	/* "ULP negotiates" (MPA2-IRD-6) */

struct siw2_mpa_v2 {
	__be16 ird;
	__be16 ord;
} __packed;
static_assert(sizeof(struct siw2_mpa_v2) == 4);

static inline u16 siw2_mpa_v2_ird(const struct siw2_mpa_v2 *v)
{
	return be16_to_cpu(v->ird) & SIW2_MPA_V2_VAL;
}

static inline u16 siw2_mpa_v2_ord(const struct siw2_mpa_v2 *v)
{
	return be16_to_cpu(v->ord) & SIW2_MPA_V2_VAL;
}

/* ---- Terminate codes for MPA errors: Layer 2, EType 0 (AMB-5) ---- */

#define SIW2_TERM_LAYER_LLP		2
#define SIW2_TERM_ETYPE_MPA		0
#define SIW2_TERM_MPA_TCP_LOST		0x01
#define SIW2_TERM_MPA_CRC		0x02
#define SIW2_TERM_MPA_MARKER		0x03
#define SIW2_TERM_MPA_BAD_FRAME		0x04
#define SIW2_TERM_MPA_CATASTROPHIC	0x05
#define SIW2_TERM_MPA_NO_IRD		0x06
#define SIW2_TERM_MPA_NO_RTR		0x07

#endif /* _SIW2_WIRE_H */
