// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: Terminate -> completion status and async event (DIGEST 3.5,
 * DEC-11). One table, first match wins; a Terminate that matches no row
 * is treated as an operation error. Also the completion of an RDMA
 * Commit by its Response's Status, which is no Terminate. Pure: KUnit
 * tests it.
 */

#include <linux/kernel.h>

#include "siw2_term.h"
#include "siw2_wire.h"

#define ANY 0xff

struct siw2_term_map {
	u8 layer;
	u8 etype;
	u8 code;	/* ANY: every code */
	enum ib_wc_status status;
	enum ib_event_type event;
};

static const struct siw2_term_map siw2_term_maps[] = {
	/* Protection errors, RDMAP and DDP tagged (0/1/x, 1/1/x) */
	{ SIW2_TERM_LAYER_RDMAP, 1, ANY, IB_WC_REM_ACCESS_ERR,
	  IB_EVENT_QP_ACCESS_ERR },
	{ SIW2_TERM_LAYER_DDP, 1, ANY, IB_WC_REM_ACCESS_ERR,
	  IB_EVENT_QP_ACCESS_ERR },
	/* Invalid RDMAP version, unexpected opcode (0/2/5, 0/2/6) */
	{ SIW2_TERM_LAYER_RDMAP, 2, 0x05, IB_WC_REM_INV_REQ_ERR,
	  IB_EVENT_QP_REQ_ERR },
	{ SIW2_TERM_LAYER_RDMAP, 2, 0x06, IB_WC_REM_INV_REQ_ERR,
	  IB_EVENT_QP_REQ_ERR },
	/* STag cannot be invalidated is a protection matter (0/2/9) */
	{ SIW2_TERM_LAYER_RDMAP, 2, 0x09, IB_WC_REM_ACCESS_ERR,
	  IB_EVENT_QP_ACCESS_ERR },
	/* Catastrophic and unspecified operation errors (0/2/7, 8, 0xff) */
	{ SIW2_TERM_LAYER_RDMAP, 2, ANY, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	/* DDP untagged: message too long is the requester's fault (1/2/5) */
	{ SIW2_TERM_LAYER_DDP, 2, 0x05, IB_WC_REM_INV_REQ_ERR,
	  IB_EVENT_QP_REQ_ERR },
	{ SIW2_TERM_LAYER_DDP, 2, 0x06, IB_WC_REM_INV_REQ_ERR,
	  IB_EVENT_QP_REQ_ERR },
	/* QN, MSN, MO (1/2/1..4) */
	{ SIW2_TERM_LAYER_DDP, 2, ANY, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	/* Local catastrophic at either layer */
	{ SIW2_TERM_LAYER_RDMAP, 0, ANY, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ SIW2_TERM_LAYER_DDP, 0, ANY, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	/* The LLP (MPA): the stream itself failed */
	{ SIW2_TERM_LAYER_LLP, ANY, ANY, IB_WC_FATAL_ERR, IB_EVENT_QP_FATAL },
};

static const struct siw2_term_map *siw2_term_lookup(u8 layer, u8 etype,
						    u8 code)
{
	const struct siw2_term_map *m;

	for (m = siw2_term_maps; m < siw2_term_maps + ARRAY_SIZE(siw2_term_maps);
	     m++)
		if (m->layer == layer && (m->etype == ANY || m->etype == etype) &&
		    (m->code == ANY || m->code == code))
			return m;
	return NULL;
}

/**
 * siw2_term_wc_status - completion status for the work request a
 *	Terminate refers to
 * @layer: Terminate layer (0 RDMAP, 1 DDP, 2 LLP)
 * @etype: error type
 * @code: error code
 *
 * Return: the status of DIGEST 3.5; IB_WC_REM_OP_ERR for a Terminate the
 * table does not know.
 */
enum ib_wc_status siw2_term_wc_status(u8 layer, u8 etype, u8 code)
{
	const struct siw2_term_map *m = siw2_term_lookup(layer, etype, code);

	return m ? m->status : IB_WC_REM_OP_ERR;
}

/**
 * siw2_term_qp_event - the QP async event a Terminate raises
 * @layer: Terminate layer
 * @etype: error type
 * @code: error code
 *
 * Return: IB_EVENT_QP_ACCESS_ERR for protection errors,
 * IB_EVENT_QP_REQ_ERR for version, opcode and length errors,
 * IB_EVENT_QP_FATAL otherwise.
 */
enum ib_event_type siw2_term_qp_event(u8 layer, u8 etype, u8 code)
{
	const struct siw2_term_map *m = siw2_term_lookup(layer, etype, code);

	return m ? m->event : IB_EVENT_QP_FATAL;
}

/**
 * siw2_commit_wc_status - completion status of an answered RDMA Commit
 * @status: the Commit Response's Status (enum siw2_commit_status)
 * @global: the Requester asked for global visibility only
 *	(IB_FLUSH_GLOBAL); else for durability (IB_FLUSH_PERSISTENT)
 *
 * "Visible, not durable" satisfies a global Commit; a persistent one
 * fails as rdma_rxe fails a persistent FLUSH of memory registered
 * without that right, with IB_WC_REM_ACCESS_ERR (SIW2-DEC-2). Any other
 * non-zero Status is IB_WC_REM_OP_ERR (DEC-13). None of them ends the
 * stream (COMMIT-ERR-3).
 *
 * Return: IB_WC_SUCCESS, IB_WC_REM_ACCESS_ERR or IB_WC_REM_OP_ERR.
 */
enum ib_wc_status siw2_commit_wc_status(u32 status, bool global)
{
	if (status == SIW2_COMMIT_ST_OK)
		return IB_WC_SUCCESS;
	if (status == SIW2_COMMIT_ST_NOT_DURABLE)
		return global ? IB_WC_SUCCESS : IB_WC_REM_ACCESS_ERR;
	return IB_WC_REM_OP_ERR;
}
