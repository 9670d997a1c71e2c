// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: MPA FPDU framing (RFC 5044 5): ULPDU_Length, ULPDU, PAD, CRC32c.
 * Markers are never used (siw2 refuses peers that want them).
 *
 * Pure functions over buffers, shared by the connection manager and the
 * data path, and tested by KUnit.
 */

#include <linux/crc32c.h>
#include <linux/errno.h>
#include <linux/string.h>
#include "siw2_compat.h"

#include "siw2_fpdu.h"

/**
 * siw2_fpdu_crc - the MPA CRC of @len bytes
 * @buf: ULPDU_Length, ULPDU and PAD
 * @len: their length
 *
 * CRC-32C, initial value ~0, complemented result (BASE-MPA-9); the caller
 * stores it little-endian.
 *
 * Return: the CRC.
 */
u32 siw2_fpdu_crc(const void *buf, size_t len)
{
	return ~crc32c(~0U, buf, len);
}

/**
 * siw2_fpdu_seal - complete an FPDU around a ULPDU already in place
 * @buf: the FPDU; the ULPDU starts at offset 2
 * @size: room in @buf
 * @ulpdu_len: ULPDU length
 * @crc: compute the CRC; without it the CRC field is zero (BASE-MPA-4)
 *
 * Writes ULPDU_Length, zeroes the PAD and writes the CRC.
 *
 * Return: the FPDU length, -EMSGSIZE for a ULPDU beyond 16 bits, -ENOSPC
 * when @buf is too small.
 */
int siw2_fpdu_seal(void *buf, size_t size, size_t ulpdu_len, bool crc)
{
	size_t body, len;
	u8 *p = buf;

	if (ulpdu_len > U16_MAX)
		return -EMSGSIZE;
	body = SIW2_MPA_HDR_LEN + ulpdu_len + siw2_mpa_pad(ulpdu_len);
	len = body + SIW2_MPA_CRC_LEN;
	if (size < len)
		return -ENOSPC;

	put_unaligned_be16(ulpdu_len, p);
	memset(p + SIW2_MPA_HDR_LEN + ulpdu_len, 0, siw2_mpa_pad(ulpdu_len));
	put_unaligned_le32(crc ? siw2_fpdu_crc(p, body) : 0, p + body);
	return len;
}

/**
 * siw2_fpdu_check - find a received FPDU's extent and check its CRC
 * @buf: received bytes, starting at ULPDU_Length
 * @len: how many
 * @crc: the connection uses CRC
 * @fpdu_len: set to the FPDU's length when it is complete
 *
 * Return: SIW2_FPDU_OK, SIW2_FPDU_INCOMPLETE, or SIW2_FPDU_E_CRC.
 */
enum siw2_fpdu_err siw2_fpdu_check(const void *buf, size_t len, bool crc,
				   size_t *fpdu_len)
{
	const u8 *p = buf;
	size_t ulpdu_len, body;

	if (len < SIW2_MPA_HDR_LEN)
		return SIW2_FPDU_INCOMPLETE;
	ulpdu_len = get_unaligned_be16(p);
	body = SIW2_MPA_HDR_LEN + ulpdu_len + siw2_mpa_pad(ulpdu_len);
	if (len < body + SIW2_MPA_CRC_LEN)
		return SIW2_FPDU_INCOMPLETE;
	*fpdu_len = body + SIW2_MPA_CRC_LEN;
	if (crc && get_unaligned_le32(p + body) != siw2_fpdu_crc(p, body))
		return SIW2_FPDU_E_CRC;
	return SIW2_FPDU_OK;
}

/*
 * The STag of a zero-length RTR is never validated (BASE-DDP-7); 1, not
 * 0, because some hardware treats STag 0 specially (as Linux siw notes).
 */
#define SIW2_RTR_STAG 1

/**
 * siw2_fpdu_rtr_write - the zero-length RDMA Write RTR (RFC 6581 9, C)
 * @buf: output
 * @size: room in @buf
 * @crc: the connection uses CRC
 *
 * Return: the FPDU length or a siw2_fpdu_seal() error.
 */
int siw2_fpdu_rtr_write(void *buf, size_t size, bool crc)
{
	struct siw2_ddp_tagged *h = buf + SIW2_MPA_HDR_LEN;

	if (size < SIW2_MPA_HDR_LEN + sizeof(*h))
		return -ENOSPC;
	h->ctrl = cpu_to_be16(siw2_ddp_ctrl(true, true, 1, SIW2_OP_WRITE));
	h->stag = cpu_to_be32(SIW2_RTR_STAG);
	h->to = 0;
	return siw2_fpdu_seal(buf, size, sizeof(*h), crc);
}

static void siw2_untagged_hdr(struct siw2_ddp_untagged *h, u8 rv, u8 op,
			      u32 qn, u32 msn)
{
	h->ctrl = cpu_to_be16(siw2_ddp_ctrl(false, true, rv, op));
	h->rsvd_ulp = 0;
	h->qn = cpu_to_be32(qn);
	h->msn = cpu_to_be32(msn);
	h->mo = 0;
}

/**
 * siw2_fpdu_rtr_read - the zero-length RDMA Read Request RTR (RFC 6581 9, D)
 * @buf: output
 * @size: room in @buf
 * @crc: the connection uses CRC
 *
 * The first message on QN 1, so MSN 1 (BASE-DDP-4).
 *
 * Return: the FPDU length or a siw2_fpdu_seal() error.
 */
int siw2_fpdu_rtr_read(void *buf, size_t size, bool crc)
{
	struct siw2_ddp_untagged *h = buf + SIW2_MPA_HDR_LEN;
	struct siw2_rdmap_read_req *rr = (void *)(h + 1);

	if (size < SIW2_MPA_HDR_LEN + sizeof(*h) + sizeof(*rr))
		return -ENOSPC;
	siw2_untagged_hdr(h, 1, SIW2_OP_READ_REQ, SIW2_QN_READ_REQ, 1);
	rr->sink_stag = cpu_to_be32(SIW2_RTR_STAG);
	rr->sink_to = 0;
	rr->read_size = 0;
	rr->src_stag = cpu_to_be32(SIW2_RTR_STAG);
	rr->src_to = 0;
	return siw2_fpdu_seal(buf, size, sizeof(*h) + sizeof(*rr), crc);
}

/**
 * siw2_fpdu_terminate - a Terminate carrying no headers (M=D=R=0)
 * @buf: output
 * @size: room in @buf
 * @rv: RDMAP version of the connection
 * @msn: the next MSN on QN 2 (1 for the first Terminate)
 * @layer: error layer (0 RDMAP, 1 DDP, 2 LLP/MPA)
 * @etype: error type
 * @code: error code
 * @crc: the connection uses CRC
 *
 * For errors found without an offending incoming header, such as the MPA
 * negotiation errors of RFC 6581 (BASE-RDMAP-8).
 *
 * Return: the FPDU length or a siw2_fpdu_seal() error.
 */
int siw2_fpdu_terminate(void *buf, size_t size, u8 rv, u32 msn, u8 layer,
			u8 etype, u8 code, bool crc)
{
	struct siw2_ddp_untagged *h = buf + SIW2_MPA_HDR_LEN;
	__be32 *term = (void *)(h + 1);

	if (size < SIW2_MPA_HDR_LEN + sizeof(*h) + sizeof(*term))
		return -ENOSPC;
	siw2_untagged_hdr(h, rv, SIW2_OP_TERMINATE, SIW2_QN_TERMINATE, msn);
	put_unaligned_be32(siw2_term_ctrl(layer, etype, code), term);
	return siw2_fpdu_seal(buf, size, sizeof(*h) + sizeof(*term), crc);
}

/**
 * siw2_fpdu_read_resp0 - the zero-length RDMA Read Response to a Read RTR
 * @buf: output
 * @size: room in @buf
 * @stag: the Request's Data Sink STag
 * @to: the Request's Data Sink Tagged Offset
 * @crc: the connection uses CRC
 *
 * Return: the FPDU length or a siw2_fpdu_seal() error.
 */
int siw2_fpdu_read_resp0(void *buf, size_t size, u32 stag, u64 to, bool crc)
{
	struct siw2_ddp_tagged *h = buf + SIW2_MPA_HDR_LEN;

	if (size < SIW2_MPA_HDR_LEN + sizeof(*h))
		return -ENOSPC;
	h->ctrl = cpu_to_be16(siw2_ddp_ctrl(true, true, 1, SIW2_OP_READ_RESP));
	h->stag = cpu_to_be32(stag);
	h->to = cpu_to_be64(to);
	return siw2_fpdu_seal(buf, size, sizeof(*h), crc);
}

/**
 * siw2_fpdu_classify_rtr - recognise the FPDUs of the RFC 6581 RTR exchange
 * @buf: one complete FPDU whose CRC siw2_fpdu_check() accepted
 * @len: its length
 * @stag: set to the Sink STag (Read RTR) or the STag (Read Response)
 * @to: set to the Sink Tagged Offset (Read RTR)
 *
 * Only the exact zero-length forms count: a Write or Read Response with
 * a payload, a Read Request for data, or any other message is not an RTR
 * (MPA2-P2P-15). RV 1 is expected: the RTR precedes any use of RDMAP v2.
 *
 * Return: SIW2_FPDU_WRITE_RTR, SIW2_FPDU_READ_RTR, SIW2_FPDU_READ_RESP0,
 * or SIW2_FPDU_OTHER.
 */
enum siw2_fpdu_kind siw2_fpdu_classify_rtr(const void *buf, size_t len,
					   u32 *stag, u64 *to)
{
	const u8 *p = buf;
	size_t ulpdu_len;
	u16 ctrl;

	if (len < SIW2_MPA_HDR_LEN + sizeof(ctrl))
		return SIW2_FPDU_OTHER;
	ulpdu_len = get_unaligned_be16(p);
	ctrl = get_unaligned_be16(p + SIW2_MPA_HDR_LEN);

	if (ulpdu_len == sizeof(struct siw2_ddp_tagged) &&
	    len >= SIW2_MPA_HDR_LEN + ulpdu_len) {
		const struct siw2_ddp_tagged *h = (const void *)(p + 2);

		*stag = be32_to_cpu(h->stag);
		*to = be64_to_cpu(h->to);
		if (ctrl == siw2_ddp_ctrl(true, true, 1, SIW2_OP_WRITE))
			return SIW2_FPDU_WRITE_RTR;
		if (ctrl == siw2_ddp_ctrl(true, true, 1, SIW2_OP_READ_RESP))
			return SIW2_FPDU_READ_RESP0;
		return SIW2_FPDU_OTHER;
	}
	if (ulpdu_len == sizeof(struct siw2_ddp_untagged) +
			 sizeof(struct siw2_rdmap_read_req) &&
	    len >= SIW2_MPA_HDR_LEN + ulpdu_len) {
		const struct siw2_ddp_untagged *h = (const void *)(p + 2);
		const struct siw2_rdmap_read_req *rr = (const void *)(h + 1);

		if (ctrl != siw2_ddp_ctrl(false, true, 1, SIW2_OP_READ_REQ) ||
		    be32_to_cpu(h->qn) != SIW2_QN_READ_REQ ||
		    be32_to_cpu(h->msn) != 1 || h->mo || rr->read_size)
			return SIW2_FPDU_OTHER;
		*stag = be32_to_cpu(rr->sink_stag);
		*to = be64_to_cpu(rr->sink_to);
		return SIW2_FPDU_READ_RTR;
	}
	return SIW2_FPDU_OTHER;
}
