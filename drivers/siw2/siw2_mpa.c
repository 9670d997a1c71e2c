// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: MPA Request/Reply codec and RFC 6581 IRD/ORD and RTR negotiation.
 *
 * Everything here is a pure function of its arguments; the connection
 * manager does the I/O and decides how to react to each result.
 */

#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "siw2_mpa.h"

static const char * const siw2_mpa_err_names[SIW2_MPA_NUM_ERRS] = {
	[SIW2_MPA_OK] = "ok",
	[SIW2_MPA_INCOMPLETE] = "incomplete",
	[SIW2_MPA_E_KEY] = "wrong key",
	[SIW2_MPA_E_REV] = "unsupported revision",
	[SIW2_MPA_E_PD_LEN] = "private data too long",
	[SIW2_MPA_E_ENHANCED] = "bad enhanced data",
};

/**
 * siw2_mpa_err_name - printable reason for a decode result
 * @err: result of siw2_mpa_parse_hdr() or siw2_mpa_decode()
 *
 * Return: a constant string.
 */
const char *siw2_mpa_err_name(enum siw2_mpa_err err)
{
	return err < SIW2_MPA_NUM_ERRS ? siw2_mpa_err_names[err] : "?";
}

static const char *siw2_mpa_key(enum siw2_mpa_kind kind)
{
	return kind == SIW2_MPA_REQUEST ? SIW2_MPA_KEY_REQ : SIW2_MPA_KEY_REP;
}

/**
 * siw2_mpa_parse_hdr - validate the fixed 20-octet part of a frame
 * @buf: received bytes
 * @len: how many
 * @kind: the frame this side expects (Request as Responder, else Reply)
 * @frame_len: set to the whole frame's length on success
 *
 * Res bits are not checked (MPA2-HDR-2): with Rev 1 the S bit is one of
 * them. Rev 1 and 2 are accepted (BASE-MPA-3, MPA2-HDR-5).
 *
 * Return: SIW2_MPA_OK, SIW2_MPA_INCOMPLETE, or the malformation found.
 */
enum siw2_mpa_err siw2_mpa_parse_hdr(const void *buf, size_t len,
				     enum siw2_mpa_kind kind,
				     size_t *frame_len)
{
	const struct siw2_mpa_hdr *h = buf;
	u16 pd_len;

	if (len < sizeof(*h))
		return SIW2_MPA_INCOMPLETE;
	if (memcmp(h->key, siw2_mpa_key(kind), SIW2_MPA_KEY_LEN))
		return SIW2_MPA_E_KEY;
	if (h->rev != SIW2_MPA_REV1 && h->rev != SIW2_MPA_REV2)
		return SIW2_MPA_E_REV;
	pd_len = siw2_mpa_pd_len(h);
	if (pd_len > SIW2_MPA_MAX_PD_WIRE)
		return SIW2_MPA_E_PD_LEN;
	if (h->rev == SIW2_MPA_REV2 && (h->flags & SIW2_MPA_F_ENHANCED) &&
	    pd_len < sizeof(struct siw2_mpa_v2))
		return SIW2_MPA_E_ENHANCED;
	*frame_len = sizeof(*h) + pd_len;
	return SIW2_MPA_OK;
}

/**
 * siw2_mpa_decode - decode a whole MPA Request or Reply
 * @buf: received bytes, starting at the key
 * @len: how many; bytes past the frame are not looked at
 * @kind: the frame expected
 * @f: filled in; @f->pd points into @buf
 *
 * With A=0 the B/C/D flags are ignored (MPA2-P2P-4).
 *
 * Return: as siw2_mpa_parse_hdr().
 */
enum siw2_mpa_err siw2_mpa_decode(const void *buf, size_t len,
				  enum siw2_mpa_kind kind,
				  struct siw2_mpa_frame *f)
{
	const struct siw2_mpa_hdr *h = buf;
	const u8 *pd = (const u8 *)(h + 1);
	enum siw2_mpa_err err;
	size_t frame_len;

	err = siw2_mpa_parse_hdr(buf, len, kind, &frame_len);
	if (err)
		return err;
	if (len < frame_len)
		return SIW2_MPA_INCOMPLETE;

	memset(f, 0, sizeof(*f));
	f->kind = kind;
	f->rev = h->rev;
	f->markers = h->flags & SIW2_MPA_F_MARKERS;
	f->crc = h->flags & SIW2_MPA_F_CRC;
	f->reject = kind == SIW2_MPA_REPLY && (h->flags & SIW2_MPA_F_REJECT);
	f->pd_len = siw2_mpa_pd_len(h);
	if (h->rev == SIW2_MPA_REV2) {
		f->enhanced = h->flags & SIW2_MPA_F_ENHANCED;
		f->caps = h->flags & SIW2_MPA_CAPS;
		if (kind == SIW2_MPA_REPLY)
			f->caps |= h->flags & SIW2_MPA_CAP_ACK;
	}
	if (f->enhanced) {
		const struct siw2_mpa_v2 *v2 = (const void *)pd;
		u16 ird = be16_to_cpu(v2->ird), ord = be16_to_cpu(v2->ord);

		f->p2p = ird & SIW2_MPA_V2_P2P;
		if (f->p2p) {
			if (ird & SIW2_MPA_V2_FPDU_RTR)
				f->rtr |= SIW2_RTR_FPDU;
			if (ord & SIW2_MPA_V2_WRITE_RTR)
				f->rtr |= SIW2_RTR_WRITE;
			if (ord & SIW2_MPA_V2_READ_RTR)
				f->rtr |= SIW2_RTR_READ;
		}
		f->ird = ird & SIW2_MPA_V2_VAL;
		f->ord = ord & SIW2_MPA_V2_VAL;
		pd += sizeof(*v2);
		f->pd_len -= sizeof(*v2);
	}
	f->pd = f->pd_len ? pd : NULL;
	return SIW2_MPA_OK;
}

/**
 * siw2_mpa_frame_len - bytes siw2_mpa_encode() writes for @f
 * @f: frame
 *
 * Return: the length.
 */
size_t siw2_mpa_frame_len(const struct siw2_mpa_frame *f)
{
	return sizeof(struct siw2_mpa_hdr) +
	       (f->enhanced ? sizeof(struct siw2_mpa_v2) : 0) + f->pd_len;
}

/**
 * siw2_mpa_encode - build an MPA Request or Reply
 * @f: frame; Res bits carry @f->caps only with Rev 2, B/C/D only with A
 * @buf: output
 * @size: room in @buf
 *
 * Return: bytes written, -EINVAL for an impossible frame (Rev other than
 * 1 or 2, enhanced data or capabilities with Rev 1, values beyond 14
 * bits), -EMSGSIZE for private data above 512 octets, -ENOSPC if @buf
 * is too small.
 */
int siw2_mpa_encode(const struct siw2_mpa_frame *f, void *buf, size_t size)
{
	struct siw2_mpa_hdr *h = buf;
	size_t len = siw2_mpa_frame_len(f);
	size_t wire_pd = len - sizeof(*h);
	u8 *pd = (u8 *)(h + 1);

	if (f->rev != SIW2_MPA_REV1 && f->rev != SIW2_MPA_REV2)
		return -EINVAL;
	if (f->rev == SIW2_MPA_REV1 && (f->enhanced || f->caps))
		return -EINVAL;
	if ((f->caps & ~(SIW2_MPA_CAPS | SIW2_MPA_CAP_ACK)) ||
	    (f->kind == SIW2_MPA_REQUEST && (f->caps & SIW2_MPA_CAP_ACK)) ||
	    f->ird > SIW2_MPA_V2_VAL ||
	    f->ord > SIW2_MPA_V2_VAL)
		return -EINVAL;
	if (wire_pd > SIW2_MPA_MAX_PD_WIRE)
		return -EMSGSIZE;
	if (size < len)
		return -ENOSPC;

	memcpy(h->key, siw2_mpa_key(f->kind), SIW2_MPA_KEY_LEN);
	h->flags = f->caps;
	if (f->markers)
		h->flags |= SIW2_MPA_F_MARKERS;
	if (f->crc)
		h->flags |= SIW2_MPA_F_CRC;
	if (f->reject && f->kind == SIW2_MPA_REPLY)
		h->flags |= SIW2_MPA_F_REJECT;
	if (f->enhanced)
		h->flags |= SIW2_MPA_F_ENHANCED;
	h->rev = f->rev;
	h->pd_len = cpu_to_be16(wire_pd);

	if (f->enhanced) {
		struct siw2_mpa_v2 *v2 = (void *)pd;
		u16 ird = f->ird, ord = f->ord;

		/* B/C/D are zero unless A is set (MPA2-P2P-3). */
		if (f->p2p) {
			ird |= SIW2_MPA_V2_P2P;
			if (f->rtr & SIW2_RTR_FPDU)
				ird |= SIW2_MPA_V2_FPDU_RTR;
			if (f->rtr & SIW2_RTR_WRITE)
				ord |= SIW2_MPA_V2_WRITE_RTR;
			if (f->rtr & SIW2_RTR_READ)
				ord |= SIW2_MPA_V2_READ_RTR;
		}
		v2->ird = cpu_to_be16(ird);
		v2->ord = cpu_to_be16(ord);
		pd += sizeof(*v2);
	}
	if (f->pd_len)
		memcpy(pd, f->pd, f->pd_len);
	return len;
}

/**
 * siw2_mpa_crc_resolve - does this side use CRC, given the peer's C flag
 * @policy: the local policy
 * @peer_crc: the peer asked for CRC
 * @use_crc: set to the outcome
 *
 * C in either frame means both sides use CRC (BASE-MPA-4), so a local
 * "off" can only refuse a peer that asks.
 *
 * Return: 0, or -EPROTONOSUPPORT when the policy forbids what the peer asks.
 */
int siw2_mpa_crc_resolve(enum siw2_crc_policy policy, bool peer_crc,
			 bool *use_crc)
{
	switch (policy) {
	case SIW2_CRC_REQUIRED:
		*use_crc = true;
		return 0;
	case SIW2_CRC_OFF:
		if (peer_crc)
			return -EPROTONOSUPPORT;
		*use_crc = false;
		return 0;
	default:
		*use_crc = peer_crc;
		return 0;
	}
}

static bool siw2_mpa_no_neg(u16 ird, u16 ord)
{
	return ird == SIW2_MPA_V2_NO_NEG || ord == SIW2_MPA_V2_NO_NEG;
}

/**
 * siw2_mpa_respond - Responder: the accepting Reply to a decoded Request
 * @req: the Request
 * @ulp_ird: IRD the ULP accepts with
 * @ulp_ord: ORD the ULP accepts with
 * @max_ird: the device's IRD limit
 * @local_caps: SIW2_MPA_CAP_* this side offers
 * @rtr_forms: SIW2_RTR_WRITE and/or SIW2_RTR_READ: RTRs this side accepts
 * @rep: filled in, except @rep->crc and the private data
 * @conn: filled in with what the connection will use
 *
 * IRD/ORD follow MPA2-IRD-2..4, relaxed like Linux siw (AMB-27, DEC-2):
 * the ORD never exceeds the Initiator's IRD; the IRD rises to the
 * Initiator's ORD when the device allows it. The RTR is a zero-length
 * Write when offered and accepted, else a Read when offered and accepted,
 * else the form this side accepts, Write first (DEC-3, AMB-7, MPA2-P2P-9).
 *
 * Return: 0, or -ENOMEM when the Initiator's ORD exceeds both @ulp_ird and
 * @max_ird (the Request must then be rejected, MPA2-IRD-5).
 */
int siw2_mpa_respond(const struct siw2_mpa_frame *req, u16 ulp_ird,
		     u16 ulp_ord, u16 max_ird, u8 local_caps, u8 rtr_forms,
		     struct siw2_mpa_frame *rep, struct siw2_mpa_conn *conn)
{
	u8 both;

	u16 ird = ulp_ird, ord = ulp_ord;
	u8 rtr = 0;

	if (req->enhanced && !siw2_mpa_no_neg(req->ird, req->ord)) {
		ord = min(ord, req->ird);
		if (req->ord > ird) {
			if (req->ord > max_ird)
				return -ENOMEM;
			ird = req->ord;
		}
	}
	if (req->enhanced && req->p2p) {
		rtr_forms &= SIW2_RTR_WRITE | SIW2_RTR_READ;
		if (!rtr_forms)
			rtr_forms = SIW2_RTR_WRITE;
		both = req->rtr & rtr_forms;
		if (!both)
			both = rtr_forms;
		rtr = both & SIW2_RTR_WRITE ? SIW2_RTR_WRITE : SIW2_RTR_READ;
		/* A Read RTR takes one IRD slot (MPA2-IRD-3 exception). */
		if (rtr == SIW2_RTR_READ && !ird)
			ird = 1;
	}

	memset(rep, 0, sizeof(*rep));
	rep->kind = SIW2_MPA_REPLY;
	rep->rev = req->rev;
	rep->enhanced = req->enhanced;
	/* Only what both offer, confirmed with ACK (DEC-4 as amended). */
	if (req->rev == SIW2_MPA_REV2)
		rep->caps = local_caps & req->caps & SIW2_MPA_CAPS;
	if (rep->caps)
		rep->caps |= SIW2_MPA_CAP_ACK;
	rep->p2p = req->enhanced && req->p2p;
	rep->rtr = rtr;
	rep->ird = ird;
	rep->ord = ord;

	memset(conn, 0, sizeof(*conn));
	conn->rev = req->rev;
	conn->caps = rep->caps & SIW2_MPA_CAPS;
	/* Only a siw2 Initiator sets these bits, whatever we offer. */
	conn->early_fpdu = req->rev == SIW2_MPA_REV2 &&
			   (req->caps & SIW2_MPA_CAPS);
	conn->p2p = rep->p2p;
	conn->rtr = rtr;
	conn->ird = ird;
	conn->ord = ord;
	return 0;
}

/**
 * siw2_mpa_complete - Initiator: settle the connection from an accepting Reply
 * @req: the Request this side sent
 * @rep: the decoded Reply (R=0)
 * @max_ird: the device's IRD limit
 * @conn: filled in with what the connection will use
 *
 * The ORD drops to the Responder's IRD (MPA2-IRD-8); the IRD rises to the
 * Responder's ORD within the device limit (MPA2-IRD-7, AMB-27). The RTR is
 * a zero-length Write if the Responder accepts one, else a Read; a Reply
 * naming no form means the ULP's first Send is the RTR (MPA2-P2P-12).
 *
 * Return: 0, or the MPA Terminate code (Layer 2, EType 0) to send:
 * SIW2_TERM_MPA_BAD_FRAME when the Reply contradicts the Request
 * (MPA2-P2P-5, MPA2-IOP-3/4), SIW2_TERM_MPA_NO_IRD (MPA2-IRD-9),
 * SIW2_TERM_MPA_NO_RTR (MPA2-P2P-14).
 */
int siw2_mpa_complete(const struct siw2_mpa_frame *req,
		      const struct siw2_mpa_frame *rep, u16 max_ird,
		      struct siw2_mpa_conn *conn)
{
	u16 ird = req->ird, ord = req->ord;
	u8 rtr = 0;

	if (rep->rev > req->rev || rep->enhanced != req->enhanced ||
	    (req->enhanced && rep->p2p != req->p2p))
		return SIW2_TERM_MPA_BAD_FRAME;

	/* Either side's 0x3FFF leaves IRD/ORD to the ULPs (MPA2-IRD-6). */
	if (req->enhanced && !siw2_mpa_no_neg(req->ird, req->ord) &&
	    !siw2_mpa_no_neg(rep->ird, rep->ord)) {
		ord = min(ord, rep->ird);
		if (rep->ord > ird) {
			if (rep->ord > max_ird)
				return SIW2_TERM_MPA_NO_IRD;
			ird = rep->ord;
		}
	}
	if (req->enhanced && req->p2p) {
		if (rep->rtr & SIW2_RTR_WRITE)
			rtr = SIW2_RTR_WRITE;
		else if (rep->rtr & SIW2_RTR_READ)
			rtr = SIW2_RTR_READ;
		else if (rep->rtr & SIW2_RTR_FPDU)
			return SIW2_TERM_MPA_NO_RTR;
	}

	memset(conn, 0, sizeof(*conn));
	conn->rev = rep->rev;
	conn->crc = req->crc || rep->crc;
	/* An echo of the Request's bits without ACK is no agreement. */
	if (rep->rev == SIW2_MPA_REV2 && (rep->caps & SIW2_MPA_CAP_ACK))
		conn->caps = req->caps & rep->caps & SIW2_MPA_CAPS;
	conn->p2p = req->enhanced && req->p2p;
	conn->rtr = rtr;
	conn->ird = ird;
	conn->ord = ord;
	return 0;
}
