/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 limits and capabilities, in one place.
 *
 * Each value names the rule that bounds it. Object-count limits are
 * defaults: module parameters may lower them per device (see siw2_main.c).
 */
#ifndef _SIW2_LIMITS_H
#define _SIW2_LIMITS_H

#include <linux/bits.h>
#include <linux/sizes.h>
#include <linux/types.h>

#define SIW2_VERSION_MAJOR	0
#define SIW2_VERSION_MINOR	1
#define SIW2_VERSION_PATCH	0

/* No IEEE OUI of our own: software devices report all-ones. */
#define SIW2_VENDOR_ID		0xffffff
#define SIW2_VENDOR_PART_ID	0x5332	/* "S2" */

/* Default object-count limits per device (module parameters lower them). */
#define SIW2_MAX_QP		(16 * 1024)
#define SIW2_MAX_CQ		(16 * 1024)
#define SIW2_MAX_PD		(16 * 1024)
#define SIW2_MAX_MR		(64 * 1024)
#define SIW2_MAX_SRQ		(4 * 1024)
/*
 * Connection endpoints: listeners and TCP connections, including those
 * still in the MPA exchange, which a flood of peers could otherwise grow.
 */
#define SIW2_MAX_CEP		(2 * SIW2_MAX_QP)

/*
 * STags are 32 bits (RFC 5040 4.1, STag field): 24-bit index, 8-bit key
 * the consumer may change. The index space bounds SIW2_MAX_MR.
 */
#define SIW2_STAG_INDEX_MAX	((1U << 24) - 1)
/* QP numbers are 24 bits, as in IB; iWARP carries QNs, not QPNs. */
#define SIW2_QPN_MAX		((1U << 24) - 1)

/* Work queue depths (software queues; memory is the only real bound). */
#define SIW2_MAX_QP_WR		(16 * 1024)
#define SIW2_MAX_SRQ_WR		(16 * 1024)
/*
 * libfabric's rxm provider (the RDM endpoints of MPI and other
 * middleware) asks for (tx + rx depth) x universe size entries per CQ:
 * 262144 by default; 1M covers a universe of 1024. A ring entry is 40
 * octets.
 */
#define SIW2_MAX_CQE		(1024 * 1024)

/* Scatter/gather entries per work request. */
#define SIW2_MAX_SGE		6
#define SIW2_MAX_SRQ_SGE	SIW2_MAX_SGE
/*
 * An RDMA Read Request names one sink STag/TO (RFC 5040 4.4), so an
 * RFC 5040 read sink is one SGE. Read V2 lifts this in a later version.
 */
#define SIW2_MAX_SGE_RD		1

/* Inline send data copied at post time. */
#define SIW2_MAX_INLINE		256
/*
 * Largest ring entry: a send queue entry (struct siw2_sq_wqe, 64 octets)
 * with the most inline data, which is more than SIW2_MAX_SGE SGEs take.
 */
#define SIW2_RING_STRIDE_MAX	(64 + SIW2_MAX_INLINE)

/*
 * A user QP's queues are its rings; the kernel copies (and checks) ring
 * entries into a window of at most this many, and the rest wait in the
 * ring until the window has room. Send entries stay in the window until
 * they complete, so the send window bounds what is in flight (Reads and
 * Atomics awaiting their Responses, with the ORD); 16 is more than the
 * TX engine keeps in flight at the message rates measured here
 * (Documentation/performance.md). Receive entries leave the window when a
 * message takes them: their window is a staging area.
 */
#define SIW2_SQ_WINDOW		16
#define SIW2_RQ_WINDOW		8

/*
 * IRD/ORD: RFC 6581 carries them in 14 bits, but the IWCM reports them
 * to ULPs in u8 fields (struct iw_cm_event), hence <= 255 (DIGEST DEC-2).
 */
#define SIW2_MAX_IRD		128
#define SIW2_MAX_ORD		128

/*
 * A DDP message is addressed by a 32-bit MO and an RDMA Read by a 32-bit
 * RDMARDSZ (RFC 5041 5.1, RFC 5040 4.4): no message can exceed 4 GiB - 1.
 */
#define SIW2_MAX_MSG_SIZE	U32_MAX

/* Tagged Offsets are 64 bits (RFC 5041 5.1); registrations are bounded by memory. */
#define SIW2_MAX_MR_SIZE	BIT_ULL(40)

/* Pages one fast-registration MR can map. */
#define SIW2_MAX_FRMR_PAGES	(4 * 1024)

#endif /* _SIW2_LIMITS_H */
