// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the receive engine - MPA FPDUs from the TCP stream, in whatever
 * pieces TCP delivers them, to DDP placement and RDMAP processing
 * (RFC 5044 5, RFC 5041 5-7, RFC 5040 5-7).
 *
 * The engine reads the socket with tcp_read_sock(): the parser below sees
 * the socket buffers directly and copies each payload octet once, from
 * the skb into the registered page. It first runs in the socket's
 * data_ready callback, for at most SIW2_RX_SOFTIRQ_BUDGET octets, then
 * as the QP's work item, SIW2_RX_BUDGET octets per run.
 *
 * Every header field is validated before the first payload octet is
 * placed: STag, PD, rights, bounds and TO wrap for tagged segments; QN,
 * MSN, MO and the receive's size for untagged ones. The CRC covers the
 * whole FPDU and can only be checked at its end: a bad CRC ends the
 * stream (Terminate 2/0/2) after the payload went to where the header,
 * already validated, allowed it to go. A header error is reported only
 * after the CRC was checked, so that a corrupted header yields the CRC
 * error RFC 5044 names.
 */

#include <linux/crc32c.h>
#include <linux/skbuff.h>
#include "siw2_compat.h"
#include <net/sock.h>
#include <net/tcp.h>

#include "siw2.h"
#include "siw2_fuzz.h"
#include "siw2_term.h"
#include "siw2_trace.h"

#define SIW2_RX_HDR_START	(SIW2_MPA_HDR_LEN + 2)	/* length + DDP ctrl */

/**
 * siw2_rx_kick - make the RX engine run
 * @qp: QP; any context
 */
void siw2_rx_kick(struct siw2_qp *qp)
{
	if (READ_ONCE(qp->dp_on))
		queue_work(siw2_dp_wq, &qp->rx_work);
}

static void siw2_rx_next_fpdu(struct siw2_rx *rx)
{
	rx->stage = SIW2_RX_HDR;
	rx->hdr_have = 0;
	rx->hdr_want = SIW2_RX_HDR_START;
}

/**
 * siw2_rx_init - prepare the RX engine for a connection in RDMA mode
 * @qp: QP, engines stopped
 * @read_rtr: a Read RTR (QN 1, MSN 1) already came in (MPA2-P2P)
 */
void siw2_rx_init(struct siw2_qp *qp, bool read_rtr)
{
	struct siw2_rx *rx = &qp->rx;

	memset(rx, 0, sizeof(*rx));
	rx->msn_expect[SIW2_QN_SEND] = 1;
	rx->msn_expect[SIW2_QN_READ_REQ] = read_rtr ? 2 : 1;
	rx->msn_expect[SIW2_QN_TERMINATE] = 1;
	rx->msn_expect[SIW2_QN_RESPONSE] = 1;
	rx->rv = siw2_conn_rv(&qp->conn);
	rx->feat = siw2_conn_feat(&qp->conn);
	siw2_rx_next_fpdu(rx);
}

static void siw2_rx_put_rqe(struct siw2_rx *rx)
{
	u32 i;

	for (i = 0; i < SIW2_MAX_SGE; i++) {
		if (rx->rqe_mr[i])
			siw2_mr_put(rx->rqe_mr[i]);
		rx->rqe_mr[i] = NULL;
	}
	rx->rqe_valid = false;
}

static void siw2_rx_put_mr(struct siw2_rx *rx)
{
	if (rx->mr)
		siw2_mr_put(rx->mr);
	rx->mr = NULL;
}

/* Drop the sink of a Read V2 (its last response came, or the stream died). */
static void siw2_rx_put_rv2(struct siw2_rx *rx)
{
	u32 i;

	for (i = 0; i < rx->rv2_n; i++)
		if (rx->rv2_mr[i])
			siw2_mr_put(rx->rv2_mr[i]);
	memset(rx->rv2_mr, 0, sizeof(rx->rv2_mr));
	rx->rv2_n = 0;
}

/* Complete the receive being filled, with an error, and drop it. */
static void siw2_rx_rqe_error(struct siw2_qp *qp, enum ib_wc_status status)
{
	struct siw2_rx *rx = &qp->rx;

	if (!rx->rqe_valid)
		return;
	siw2_dp_wc(qp, qp->rcq, rx->rqe.wr_id, status, IB_WC_RECV,
		   rx->msg_len, false);
	siw2_rx_put_rqe(rx);
}

/**
 * siw2_rx_release - drop what the RX engine holds
 * @qp: QP whose engines are stopped
 *
 * A receive still being filled completes with IB_WC_WR_FLUSH_ERR.
 */
void siw2_rx_release(struct siw2_qp *qp)
{
	siw2_rx_rqe_error(qp, IB_WC_WR_FLUSH_ERR);
	siw2_rx_put_mr(&qp->rx);
	siw2_rx_put_rv2(&qp->rx);
}

static void siw2_rx_err(struct siw2_rx *rx, u8 layer, u8 etype, u8 code)
{
	if (rx->err_set)
		return;
	rx->err.layer = layer;
	rx->err.etype = etype;
	rx->err.code = code;
	rx->err_set = true;
}

/* Memory check results for tagged placement (RFC 5041 7.2, RFC 5040 7). */
static void siw2_rx_tagged_err(struct siw2_rx *rx, enum siw2_mem_err err)
{
	switch (err) {
	case SIW2_MEM_E_STAG:
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP, SIW2_TERM_ETYPE_DDP_TAGGED,
			    SIW2_TERM_DDP_T_BAD_STAG);
		break;
	case SIW2_MEM_E_PD:
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP, SIW2_TERM_ETYPE_DDP_TAGGED,
			    SIW2_TERM_DDP_T_STAG_STREAM);
		break;
	case SIW2_MEM_E_WRAP:
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP, SIW2_TERM_ETYPE_DDP_TAGGED,
			    SIW2_TERM_DDP_T_TO_WRAP);
		break;
	case SIW2_MEM_E_BOUNDS:
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP, SIW2_TERM_ETYPE_DDP_TAGGED,
			    SIW2_TERM_DDP_T_BOUNDS);
		break;
	case SIW2_MEM_E_ACCESS:
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP,
			    SIW2_TERM_ETYPE_REMOTE_PROT,
			    SIW2_TERM_RDMAP_ACCESS);
		break;
	default:
		break;
	}
}

/* The Read Request's Data Source: RDMAP Remote Protection (RFC 5040 7). */
static void siw2_rx_read_err(struct siw2_rx *rx, enum siw2_mem_err err)
{
	static const u8 code[] = {
		[SIW2_MEM_E_STAG] = SIW2_TERM_RDMAP_BAD_STAG,
		[SIW2_MEM_E_PD] = SIW2_TERM_RDMAP_STAG_STREAM,
		[SIW2_MEM_E_ACCESS] = SIW2_TERM_RDMAP_ACCESS,
		[SIW2_MEM_E_WRAP] = SIW2_TERM_RDMAP_TO_WRAP,
		[SIW2_MEM_E_BOUNDS] = SIW2_TERM_RDMAP_BOUNDS,
	};

	siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_PROT,
		    code[err]);
}

/* ---- per-opcode header processing, before any payload is placed ---- */

/* A tagged segment's payload goes to its (STag, TO), if @access allows. */
static void siw2_rx_sink_tagged(struct siw2_qp *qp, int access)
{
	struct siw2_rx *rx = &qp->rx;
	enum siw2_mem_err err;

	err = siw2_mr_lookup(qp->sdev, qp->base.pd, rx->info.stag, rx->info.to,
			     rx->info.payload_len, access, &rx->mr);
	if (err) {
		siw2_rx_tagged_err(rx, err);
		return;
	}
	rx->va = rx->info.to;
	rx->sink = SIW2_RX_SINK_MR;
}

static void siw2_rx_begin_write(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;

	/* Zero-length Writes need no valid STag (BASE-DDP-7). */
	if (rx->info.payload_len)
		siw2_rx_sink_tagged(qp, IB_ACCESS_REMOTE_WRITE);
}

static void siw2_rx_begin_rresp(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_orqe o = {}, *head;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&qp->sq.lock, flags);
	head = siw2_orq_head(qp);
	if (head) {
		o = *head;
		found = true;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	/* None outstanding, or the oldest awaits an Atomic Response (DEC-8). */
	if (!found || o.op != SIW2_OP_READ_REQ) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_BAD_OPCODE);
		return;
	}
	if (!rx->info.payload_len)
		return;
	/* Responses come in order, each continuing where the last ended. */
	if (rx->info.stag != o.sink.lkey) {
		siw2_rx_tagged_err(rx, SIW2_MEM_E_STAG);
		return;
	}
	if (rx->info.to != o.sink.addr + o.got ||
	    rx->info.payload_len > o.sink.length - o.got) {
		siw2_rx_tagged_err(rx, SIW2_MEM_E_BOUNDS);
		return;
	}
	siw2_rx_sink_tagged(qp, IB_ACCESS_LOCAL_WRITE);
}

/* Take the next posted receive, from the SRQ or the QP's own queue. */
static bool siw2_rx_take_rqe(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_srq *srq = qp->srq;
	struct ib_event ev;
	unsigned long flags;
	bool limit = false;
	struct siw2_rqe *e;

	if (!srq)
		return siw2_wq_take(&qp->rq, &rx->rqe);

	spin_lock_irqsave(&srq->rq.lock, flags);
	/* All the ring holds first: the limit counts every posted receive. */
	siw2_wq_pull(&srq->rq);
	e = siw2_wq_head(&srq->rq);
	if (e) {
		memcpy(&rx->rqe, e, srq->rq.esize);
		siw2_wq_pop(&srq->rq);
		if (srq->limit && srq->rq.count < srq->limit) {
			srq->limit = 0;	/* fires once, until re-armed */
			limit = true;
		}
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	if (limit && srq->base.event_handler) {
		ev.device = srq->base.device;
		ev.event = IB_EVENT_SRQ_LIMIT_REACHED;
		ev.element.srq = &srq->base;
		srq->base.event_handler(&ev, srq->base.srq_context);
	}
	return e;
}

/* Check the taken receive's buffers; fail it as a local error if bad. */
static bool siw2_rx_load_rqe(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	u32 i;

	rx->rqe_valid = true;
	rx->msg_len = 0;
	rx->si = 0;
	rx->soff = 0;
	if (rx->rqe.bad) {
		/* A ring entry the process filled in wrong. */
		siw2_rx_rqe_error(qp, IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	for (i = 0; i < rx->rqe.num_sge; i++) {
		struct siw2_sge *s = &rx->rqe.sge[i];

		if (!s->length)
			continue;
		if (siw2_mr_lookup(qp->sdev, qp->base.pd, s->lkey, s->addr,
				   s->length, IB_ACCESS_LOCAL_WRITE,
				   &rx->rqe_mr[i])) {
			siw2_rx_rqe_error(qp, IB_WC_LOC_PROT_ERR);
			return false;
		}
	}
	return true;
}

static u64 siw2_rx_rqe_len(const struct siw2_rqe *rqe)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < rqe->num_sge; i++)
		len += rqe->sge[i].length;
	return len;
}

static void siw2_rx_begin_send(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_ddp_info *in = &rx->info;

	if (rx->rqe_valid) {
		/* A later segment of the message being received. */
		if (in->msn != rx->msg_msn) {
			siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
				    SIW2_TERM_ETYPE_DDP_UNTAGGED,
				    SIW2_TERM_DDP_U_MSN_RANGE);
			return;
		}
		if (in->mo != rx->msg_len) {
			siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
				    SIW2_TERM_ETYPE_DDP_UNTAGGED,
				    SIW2_TERM_DDP_U_BAD_MO);
			return;
		}
	} else {
		if (in->msn != rx->msn_expect[SIW2_QN_SEND]) {
			siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
				    SIW2_TERM_ETYPE_DDP_UNTAGGED,
				    SIW2_TERM_DDP_U_MSN_RANGE);
			return;
		}
		if (in->mo) {
			siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
				    SIW2_TERM_ETYPE_DDP_UNTAGGED,
				    SIW2_TERM_DDP_U_BAD_MO);
			return;
		}
		if (!siw2_rx_take_rqe(qp)) {
			siw2_stat_add(qp, SIW2_STAT_RQ_EMPTY, 1);
			siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
				    SIW2_TERM_ETYPE_DDP_UNTAGGED,
				    SIW2_TERM_DDP_U_NO_BUF);
			return;
		}
		if (!siw2_rx_load_rqe(qp)) {
			siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP,
				    SIW2_TERM_ETYPE_CATASTROPHIC, 0);
			return;
		}
		rx->msg_msn = in->msn;
	}
	if ((u64)rx->msg_len + in->payload_len > siw2_rx_rqe_len(&rx->rqe)) {
		siw2_rx_rqe_error(qp, IB_WC_LOC_LEN_ERR);
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
			    SIW2_TERM_ETYPE_DDP_UNTAGGED,
			    SIW2_TERM_DDP_U_TOO_LONG);
		return;
	}
	rx->sink = SIW2_RX_SINK_RQE;
}

static void siw2_rx_begin_read_req(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_ddp_info *in = &rx->info;
	enum siw2_mem_err err;

	if (in->msn != rx->msn_expect[SIW2_QN_READ_REQ]) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
			    SIW2_TERM_ETYPE_DDP_UNTAGGED,
			    SIW2_TERM_DDP_U_MSN_RANGE);
		return;
	}
	if (!in->read_size)
		return;
	err = siw2_mr_lookup(qp->sdev, qp->base.pd, in->src_stag, in->src_to,
			     in->read_size, IB_ACCESS_REMOTE_READ, &rx->mr);
	if (err)
		siw2_rx_read_err(rx, err);
}

/*
 * Atomic Request (rdmap-ext-04 5.2.1, 8.2): QN 1 sequence, then the
 * target: 8-byte aligned (EXT-ERR-6, checked on the address the CPU will
 * use as well as on the TO), REMOTE_ATOMIC on 8 octets (DEC-10).
 */
static void siw2_rx_begin_atomic_req(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_ddp_info *in = &rx->info;
	enum siw2_mem_err err;
	void *kaddr;

	if (in->msn != rx->msn_expect[SIW2_QN_READ_REQ]) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
			    SIW2_TERM_ETYPE_DDP_UNTAGGED,
			    SIW2_TERM_DDP_U_MSN_RANGE);
		return;
	}
	if (in->aop > SIW2_AOP_CMP_SWAP) {
		/* A reserved subcode names no operation (rdmap-ext-04 10). */
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_BAD_OPCODE);
		return;
	}
	if (in->atomic_to & 7) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_CATASTROPHIC);
		return;
	}
	err = siw2_mr_lookup(qp->sdev, qp->base.pd, in->atomic_stag,
			     in->atomic_to, sizeof(u64), IB_ACCESS_REMOTE_ATOMIC,
			     &rx->mr);
	if (err) {
		siw2_rx_read_err(rx, err);
		return;
	}
	siw2_mr_kaddr(rx->mr, in->atomic_to, sizeof(u64), &kaddr);
	if ((unsigned long)kaddr & 7)
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_CATASTROPHIC);
}

/* A Commit's range: REMOTE_WRITE on [TO, TO + Length), if any (DEC-12). */
static bool siw2_rx_commit_range(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_ddp_info *in = &rx->info;
	enum siw2_mem_err err;

	if (!in->sink_len)
		return true;
	err = siw2_mr_lookup(qp->sdev, qp->base.pd, in->sink_stag,
			     in->sink_to, in->sink_len, IB_ACCESS_REMOTE_WRITE,
			     &rx->mr);
	if (err)
		siw2_rx_read_err(rx, err);
	return !err;
}

/*
 * RDMA Commit Request (COMMIT-HDR-3, COMMIT-VAL-1): QN 1 sequence, then
 * the range: REMOTE_WRITE on [TO, TO + Length) of an STag of this
 * stream's PD (COMMIT-ACC-1, DEC-10), or nothing for Length 0 (DEC-12).
 * Octets after the region that can be a log update (SIW2-DEC-1) are
 * kept and checked with the range at the end of the segment; any others
 * are skipped, and the Request answered with Status 2 (AMB-14).
 */
static void siw2_rx_begin_commit_req(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_ddp_info *in = &rx->info;

	if (in->msn != rx->msn_expect[SIW2_QN_READ_REQ]) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
			    SIW2_TERM_ETYPE_DDP_UNTAGGED,
			    SIW2_TERM_DDP_U_MSN_RANGE);
		return;
	}
	rx->ctail_have = 0;
	if (in->payload_len == sizeof(rx->ctail))
		rx->sink = SIW2_RX_SINK_CTAIL;
	else if (!in->payload_len)
		siw2_rx_commit_range(qp);
}

/*
 * The octets after a Commit Request's region are in. A log update
 * (SIW2-DEC-1) needs its range and a log word it may store to in one
 * aligned 8-octet store (COMMIT-ATOM-2): REMOTE_WRITE on [TO, TO + 8) of
 * an STag of this stream's PD (DEC-10), 8-octet aligned in memory, else
 * 0/2/0x07 as for a misaligned Atomic (EXT-ERR-6). Anything else gets
 * Status 2 in @status (AMB-14). Takes @log_mr's reference.
 * Return: false if the stream ends instead.
 */
static bool siw2_rx_commit_tail(struct siw2_qp *qp,
				struct siw2_commit_log_info *log,
				struct siw2_mr **log_mr, u32 *status)
{
	struct siw2_rx *rx = &qp->rx;
	enum siw2_mem_err err;
	void *kaddr;

	if (!siw2_commit_log_decode(rx->ctail, rx->ctail_have, log)) {
		*status = SIW2_COMMIT_ST_LIMITS;
		return true;
	}
	if (!siw2_rx_commit_range(qp))
		return false;
	err = siw2_mr_lookup(qp->sdev, qp->base.pd, log->stag, log->to,
			     sizeof(u64), IB_ACCESS_REMOTE_WRITE, log_mr);
	if (err) {
		siw2_rx_read_err(rx, err);
		return false;
	}
	siw2_mr_kaddr(*log_mr, log->to, sizeof(u64), &kaddr);
	if ((unsigned long)kaddr & 7) {
		siw2_mr_put(*log_mr);
		*log_mr = NULL;
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_CATASTROPHIC);
		return false;
	}
	return true;
}

/*
 * A QN 3 response (DEC-8): the oldest outstanding QN 1 request must exist
 * (else 1/2/0x02), await this type of response (@want; else 0/2/0x06) and
 * carry the segment's MSN, which must also be the next on QN 3 (else
 * 1/2/0x03). Copies the ORQ entry to @o and its work request's length to
 * @len. Return: true if all holds.
 */
static bool siw2_rx_qn3_head(struct siw2_qp *qp, u8 want, struct siw2_orqe *o,
			     u32 *len)
{
	struct siw2_rx *rx = &qp->rx;
	u32 msn = rx->info.msn;
	struct siw2_orqe *head;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&qp->sq.lock, flags);
	head = siw2_orq_head(qp);
	if (head) {
		*o = *head;
		*len = ((struct siw2_sqe *)siw2_wq_at(&qp->sq, o->slot))->len;
		found = true;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (!found) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
			    SIW2_TERM_ETYPE_DDP_UNTAGGED,
			    SIW2_TERM_DDP_U_NO_BUF);
		return false;
	}
	if (o->op != want) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_BAD_OPCODE);
		return false;
	}
	if (msn != rx->msn_expect[SIW2_QN_RESPONSE] || msn != o->qn3_msn) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
			    SIW2_TERM_ETYPE_DDP_UNTAGGED,
			    SIW2_TERM_DDP_U_MSN_RANGE);
		return false;
	}
	return true;
}

/*
 * Atomic Response: a QN 3 response to an Atomic whose Original Request
 * Identifier is the one the Atomic was sent with (EXT-ATOMIC-18).
 */
static void siw2_rx_begin_atomic_resp(struct siw2_qp *qp)
{
	struct siw2_orqe o;
	u32 len;

	if (siw2_rx_qn3_head(qp, SIW2_OP_ATOMIC_REQ, &o, &len) &&
	    qp->rx.info.req_id != o.qn3_msn)
		siw2_rx_err(&qp->rx, SIW2_TERM_LAYER_RDMAP,
			    SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_CATASTROPHIC);
}

/*
 * Commit Response: a QN 3 response to a Commit whose Original Request
 * Identifier is the one the Commit was sent with (COMMIT-HDR-6).
 */
static void siw2_rx_begin_commit_resp(struct siw2_qp *qp)
{
	struct siw2_orqe o;
	u32 len;

	if (siw2_rx_qn3_head(qp, SIW2_OP_COMMIT_REQ, &o, &len) &&
	    qp->rx.info.req_id != o.qn3_msn)
		siw2_rx_err(&qp->rx, SIW2_TERM_LAYER_RDMAP,
			    SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_CATASTROPHIC);
}

/*
 * Load the local sink of the Read V2 in ORQ entry @o: every SGE of its
 * work request, with LOCAL_WRITE only (V2 needs no remote access, DEC-7).
 */
static bool siw2_rx_load_rv2(struct siw2_qp *qp, const struct siw2_orqe *o)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_sqe *sqe;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&qp->sq.lock, flags);
	sqe = siw2_wq_at(&qp->sq, o->slot);
	rx->rv2_n = sqe->num_sge;
	memcpy(rx->rv2_sge, sqe->sge, rx->rv2_n * sizeof(*sqe->sge));
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	rx->rv2_si = 0;
	rx->rv2_soff = 0;
	for (i = 0; i < rx->rv2_n; i++) {
		struct siw2_sge *s = &rx->rv2_sge[i];

		if (s->length &&
		    siw2_mr_lookup(qp->sdev, qp->base.pd, s->lkey, s->addr,
				   s->length, IB_ACCESS_LOCAL_WRITE,
				   &rx->rv2_mr[i]))
			return false;
	}
	return true;
}

/*
 * Read V2 Response (DEC-8): the oldest outstanding QN 1 request must be a
 * Read V2, the QN 3 MSN its own, the MO where the last segment ended, and
 * the data must fit its sink.
 */
static void siw2_rx_begin_rv2_resp(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_ddp_info *in = &rx->info;
	struct siw2_orqe o;
	u32 len;

	if (!siw2_rx_qn3_head(qp, SIW2_OP_READ_V2_REQ, &o, &len))
		return;
	if (in->mo != o.got) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
			    SIW2_TERM_ETYPE_DDP_UNTAGGED,
			    SIW2_TERM_DDP_U_BAD_MO);
		return;
	}
	if ((u64)o.got + in->payload_len > len) {
		siw2_rx_err(rx, SIW2_TERM_LAYER_DDP,
			    SIW2_TERM_ETYPE_DDP_UNTAGGED,
			    SIW2_TERM_DDP_U_TOO_LONG);
		return;
	}
	if (!o.got && !rx->rv2_n && !siw2_rx_load_rv2(qp, &o)) {
		/* The sink was deregistered meanwhile: a local error. */
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP,
			    SIW2_TERM_ETYPE_CATASTROPHIC, 0);
		return;
	}
	if (in->payload_len)
		rx->sink = SIW2_RX_SINK_RV2;
}

static void siw2_rx_begin_term(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;

	/* The control word is part of the header; keep it with the rest. */
	put_unaligned_be32(rx->info.term_ctrl, rx->term_buf);
	rx->term_have = SIW2_TERM_CTRL_LEN;
	rx->sink = SIW2_RX_SINK_TERM;
}

/**
 * struct siw2_rx_op - what the RX engine does with one RDMAP opcode
 * @begin: the header is in: check it, choose where the payload goes
 * @end: the segment is in and its CRC checked: act on it (NULL: nothing)
 */
struct siw2_rx_op {
	void (*begin)(struct siw2_qp *qp);
	void (*end)(struct siw2_qp *qp);
};

static const struct siw2_rx_op siw2_rx_ops[SIW2_RDMAP_OP_MASK + 1];

/* The header is in: check it and choose where the payload goes. */
static void siw2_rx_begin(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_term_code code;

	rx->crc = qp->conn.crc ? crc32c(~0U, rx->hdr, rx->hdr_have) : 0;
	rx->tr_have = 0;
	rx->tr_want = siw2_mpa_pad(rx->ulpdu_len) + SIW2_MPA_CRC_LEN;
	rx->pay_left = rx->ulpdu_len - (rx->hdr_have - SIW2_MPA_HDR_LEN);
	rx->sink = SIW2_RX_SINK_NONE;
	rx->err_set = false;
	if (!rx->first_seen) {
		/* A client-server Responder may send from now on. */
		rx->first_seen = true;
		if (READ_ONCE(qp->fenced)) {
			WRITE_ONCE(qp->fenced, false);
			siw2_tx_kick(qp);
		}
	}
	if (siw2_ddp_decode(rx->hdr + SIW2_MPA_HDR_LEN, rx->ulpdu_len,
			    rx->rv, rx->feat, &rx->info, &code)) {
		siw2_rx_err(rx, code.layer, code.etype, code.code);
		return;
	}
	if (rx->info.last) {
		/*
		 * Counted before the last payload lands: a process that
		 * polls for it, or for the completion, may answer at once
		 * (siw2_tx_doorbell()).
		 */
		WRITE_ONCE(rx->msgs, rx->msgs + 1);
		siw2_tx_linger_msg(qp);
	}
	if (!siw2_rx_ops[rx->info.opcode].begin) {
		/* Decoded, but not processed yet: never placed or answered. */
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_BAD_OPCODE);
		return;
	}
	siw2_rx_ops[rx->info.opcode].begin(qp);
}

/* ---- stages ---- */

static int siw2_rx_stage_hdr(struct siw2_qp *qp, struct sk_buff *skb,
			     unsigned int off, size_t len)
{
	struct siw2_rx *rx = &qp->rx;
	u32 n = min_t(size_t, rx->hdr_want - rx->hdr_have, len);
	u16 ctrl;

	if (skb_copy_bits(skb, off, rx->hdr + rx->hdr_have, n))
		return -EFAULT;
	rx->hdr_have += n;
	if (rx->hdr_have < rx->hdr_want)
		return n;
	if (rx->hdr_want == SIW2_RX_HDR_START) {
		rx->ulpdu_len = get_unaligned_be16(rx->hdr);
		ctrl = get_unaligned_be16(rx->hdr + SIW2_MPA_HDR_LEN);
		/* Octets 2..3 are the DDP control only with 2+ ULPDU octets. */
		if (rx->ulpdu_len < 2)
			return -EPROTO;
		rx->hdr_want = SIW2_MPA_HDR_LEN +
			       min_t(u32, rx->ulpdu_len, siw2_ddp_hdr_len(ctrl));
		if (rx->hdr_have < rx->hdr_want)
			return n;
	}
	siw2_rx_begin(qp);
	rx->stage = SIW2_RX_PAYLOAD;
	return n;
}

/*
 * Copy @len octets of @skb at @off to @kaddr, adding them to the CRC. The
 * CRC is taken over the socket buffer, not over @kaddr: that is the
 * consumer's memory, which another writer may change at any time, and a
 * CRC over it would then fail octets that arrived intact (RFC 5040 leaves
 * such a buffer's content undefined, not the stream: BASE-MPA-9).
 */
static int siw2_rx_copy(struct siw2_qp *qp, struct sk_buff *skb,
			unsigned int off, void *kaddr, u32 len)
{
	struct skb_seq_state st;
	const u8 *data;
	u32 done = 0, n;

	if (!qp->conn.crc)
		return skb_copy_bits(skb, off, kaddr, len) ? -EFAULT : 0;
	skb_prepare_seq_read(skb, off, off + len, &st);
	while (done < len) {
		n = skb_seq_read(done, &data, &st);
		if (!n)
			break;
		n = min(n, len - done);
		qp->rx.crc = crc32c(qp->rx.crc, data, n);
		memcpy(kaddr + done, data, n);
		done += n;
	}
	skb_abort_seq_read(&st);
	return done == len ? 0 : -EFAULT;
}

static int siw2_rx_to_mr(struct siw2_qp *qp, struct sk_buff *skb,
			 unsigned int off, u32 len)
{
	struct siw2_rx *rx = &qp->rx;
	u32 done = 0, n;
	void *kaddr;

	while (done < len) {
		n = siw2_mr_kaddr(rx->mr, rx->va, len - done, &kaddr);
		if (siw2_rx_copy(qp, skb, off + done, kaddr, n))
			return -EFAULT;
		rx->va += n;
		done += n;
	}
	return len;
}

/*
 * Place @len octets into an SGE list (a receive's, or a Read V2's sink)
 * at SGE *@si, offset *@soff, and advance them. @mr: each SGE's MR.
 */
static int siw2_rx_to_sgl(struct siw2_qp *qp, struct sk_buff *skb,
			  unsigned int off, u32 len, const struct siw2_sge *sge,
			  struct siw2_mr **mr, u32 *si, u32 *soff)
{
	const struct siw2_sge *s;
	u32 done = 0, n;
	void *kaddr;

	while (done < len) {
		s = &sge[*si];
		if (*soff == s->length) {
			/* Checked against the total: a next SGE exists. */
			(*si)++;
			*soff = 0;
			continue;
		}
		n = siw2_mr_kaddr(mr[*si], s->addr + *soff,
				  min(len - done, s->length - *soff), &kaddr);
		if (siw2_rx_copy(qp, skb, off + done, kaddr, n))
			return -EFAULT;
		*soff += n;
		done += n;
	}
	return len;
}

/* Payload nobody gets: only the CRC sees it. */
static int siw2_rx_skip(struct siw2_qp *qp, struct sk_buff *skb,
			unsigned int off, u32 len)
{
	u8 buf[64];
	u32 done = 0, n;

	if (!qp->conn.crc)
		return len;
	while (done < len) {
		n = min_t(u32, len - done, sizeof(buf));
		if (siw2_rx_copy(qp, skb, off + done, buf, n))
			return -EFAULT;
		done += n;
	}
	return len;
}

static int siw2_rx_to_term(struct siw2_qp *qp, struct sk_buff *skb,
			   unsigned int off, u32 len)
{
	struct siw2_rx *rx = &qp->rx;
	u32 n = min_t(u32, len, sizeof(rx->term_buf) - rx->term_have);

	if (n && siw2_rx_copy(qp, skb, off, rx->term_buf + rx->term_have, n))
		return -EFAULT;
	rx->term_have += n;
	if (n < len && siw2_rx_skip(qp, skb, off + n, len - n) < 0)
		return -EFAULT;
	return len;
}

/* A Commit's log update; begin chose this for sizeof(ctail) octets. */
static int siw2_rx_to_ctail(struct siw2_qp *qp, struct sk_buff *skb,
			    unsigned int off, u32 len)
{
	struct siw2_rx *rx = &qp->rx;

	if (siw2_rx_copy(qp, skb, off, rx->ctail + rx->ctail_have, len))
		return -EFAULT;
	rx->ctail_have += len;
	return len;
}

static int siw2_rx_stage_payload(struct siw2_qp *qp, struct sk_buff *skb,
				 unsigned int off, size_t len)
{
	struct siw2_rx *rx = &qp->rx;
	u32 n = min_t(size_t, len, rx->pay_left);
	int rv;

	if (!n) {
		rx->stage = SIW2_RX_TRAILER;
		return 0;
	}
	switch (rx->sink) {
	case SIW2_RX_SINK_MR:
		rv = siw2_rx_to_mr(qp, skb, off, n);
		break;
	case SIW2_RX_SINK_RQE:
		rv = siw2_rx_to_sgl(qp, skb, off, n, rx->rqe.sge, rx->rqe_mr,
				    &rx->si, &rx->soff);
		if (rv > 0)
			rx->msg_len += rv;
		break;
	case SIW2_RX_SINK_TERM:
		rv = siw2_rx_to_term(qp, skb, off, n);
		break;
	case SIW2_RX_SINK_RV2:
		rv = siw2_rx_to_sgl(qp, skb, off, n, rx->rv2_sge, rx->rv2_mr,
				    &rx->rv2_si, &rx->rv2_soff);
		break;
	case SIW2_RX_SINK_CTAIL:
		rv = siw2_rx_to_ctail(qp, skb, off, n);
		break;
	default:
		rv = siw2_rx_skip(qp, skb, off, n);
		break;
	}
	if (rv < 0)
		return rv;
	rx->pay_left -= n;
	if (!rx->pay_left)
		rx->stage = SIW2_RX_TRAILER;
	return n;
}

/* ---- completion of a segment, after its CRC was checked ---- */

/*
 * A QN 1 request's response is complete (its ORQ entry is gone): finish
 * its work request in SQ slot @slot with @st, after invalidating
 * @inv_stag (RDMA Read with Invalidate, 0: none; failing: a local
 * protection error), and retire what completes in order.
 */
static void siw2_rx_orq_done(struct siw2_qp *qp, u32 slot, u32 inv_stag,
			     enum ib_wc_status st, u32 vendor_err)
{
	if (inv_stag && siw2_mr_invalidate(qp->sdev, qp->base.pd, inv_stag))
		st = IB_WC_LOC_PROT_ERR;
	siw2_dp_sqe_done(qp, slot, st, vendor_err);
	/* An ORD and a window slot are free, and a fence may have lifted. */
	siw2_tx_kick_waiting(qp);
}

/*
 * A segment of a Read Response (tagged, RFC 5040 4.5) or a Read V2
 * Response (untagged on QN 3, V2-READ-1) is in: the last one completes
 * the oldest Read if all it asked for came - its one sink for a Read, its
 * whole work request for a Read V2.
 */
static void siw2_rx_end_read_resp(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	bool v2 = rx->info.opcode == SIW2_OP_READ_V2_RESP;
	bool done = false, short_resp = false;
	u32 slot = 0, sink = 0, want;
	struct siw2_orqe *o;
	struct siw2_sqe *sqe;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	o = siw2_orq_head(qp);	/* the segment's begin found it */
	o->got += rx->info.payload_len;
	if (rx->info.last) {
		slot = o->slot;
		sqe = siw2_wq_at(&qp->sq, slot);
		want = v2 ? sqe->len : o->sink.length;
		short_resp = o->got != want;
		if (!short_resp) {
			if (sqe->opcode == IB_WR_RDMA_READ_WITH_INV &&
			    sqe->num_sge)
				sink = sqe->sge[0].lkey;
			siw2_orq_pop(qp);
			done = true;
		}
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (short_resp) {
		/* Less than the Read asked for. */
		if (v2)
			siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP,
				    SIW2_TERM_ETYPE_REMOTE_OP,
				    SIW2_TERM_RDMAP_CATASTROPHIC);
		else
			siw2_rx_tagged_err(rx, SIW2_MEM_E_BOUNDS);
		return;
	}
	if (!done)
		return;
	if (v2) {
		siw2_rx_put_rv2(rx);
		rx->msn_expect[SIW2_QN_RESPONSE]++;
	}
	siw2_rx_orq_done(qp, slot, sink, IB_WC_SUCCESS, 0);
}

/*
 * A message on QN 0 is complete: a Send (any of the eight), or Immediate
 * Data (EXT-IMM-3: the 8 octets go with the completion; DEC-16: it
 * reports as the receive of a Write with Immediate, 0 octets). The
 * kernel's struct ib_wc holds one of an immediate and an invalidated
 * STag: with both, it reports the invalidation (DIGEST 4.1); a user CQE
 * gets both (@x).
 */
static void siw2_rx_end_send(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_ddp_info *in = &rx->info;
	struct ib_wc wc = {
		.wr_id = rx->rqe.wr_id,
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.qp = &qp->base,
	};
	struct siw2_wc_ext x = { .imm = in->imm };
	bool se, inv;

	if (!in->last)
		return;
	switch (in->opcode) {
	case SIW2_OP_IMM:
	case SIW2_OP_IMM_SE:
		wc.opcode = IB_WC_RECV_RDMA_WITH_IMM;
		fallthrough;
	case SIW2_OP_SEND_IMM:
	case SIW2_OP_SEND_INV_IMM:
	case SIW2_OP_SEND_SE_IMM:
	case SIW2_OP_SEND_SE_INV_IMM:
		x.with_imm = true;
		wc.wc_flags = IB_WC_WITH_IMM;
		/* DEC-5: the verbs see octets 0..3. */
		wc.ex.imm_data = cpu_to_be32(in->imm >> 32);
		break;
	default:
		break;
	}
	inv = in->opcode == SIW2_OP_SEND_INV || in->opcode == SIW2_OP_SEND_SE_INV ||
	      in->opcode == SIW2_OP_SEND_INV_IMM ||
	      in->opcode == SIW2_OP_SEND_SE_INV_IMM;
	if (inv) {
		if (siw2_mr_invalidate(qp->sdev, qp->base.pd, in->inval_stag)) {
			siw2_rx_rqe_error(qp, IB_WC_LOC_PROT_ERR);
			siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP,
				    SIW2_TERM_ETYPE_REMOTE_OP,
				    SIW2_TERM_RDMAP_CANT_INVAL);
			return;
		}
		wc.wc_flags = IB_WC_WITH_INVALIDATE;
		wc.ex.invalidate_rkey = in->inval_stag;
	}
	wc.byte_len = rx->msg_len;
	se = in->opcode == SIW2_OP_SEND_SE || in->opcode == SIW2_OP_SEND_SE_INV ||
	     in->opcode == SIW2_OP_IMM_SE || in->opcode == SIW2_OP_SEND_SE_IMM ||
	     in->opcode == SIW2_OP_SEND_SE_INV_IMM;
	siw2_rx_put_rqe(rx);
	rx->msn_expect[SIW2_QN_SEND]++;
	siw2_cq_add(qp->rcq, &wc, x.with_imm ? &x : NULL, se);
}

/*
 * A Read, Read V2, Atomic or Commit Request is in: queue it for the TX
 * engine, which answers them in the order they came (EXT-ORD-7). They
 * share the IRD (EXT-ATOMIC-21, EXT-ATOMIC-16/24, COMMIT-HDR-3).
 */
static void siw2_rx_end_qn1_req(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_ddp_info *in = &rx->info;
	struct siw2_commit_log_info log = {};
	struct siw2_mr *log_mr = NULL;
	struct siw2_irqe *e;
	u32 status = 0;

	if (in->opcode == SIW2_OP_COMMIT_REQ && in->payload_len &&
	    !siw2_rx_commit_tail(qp, &log, &log_mr, &status))
		return;
	spin_lock_bh(&qp->irq_lock);
	e = siw2_irq_push(qp);
	if (e) {
		e->op = in->opcode;	/* Read or Read V2 (DEC-7), Atomic */
		e->mr = rx->mr;
		rx->mr = NULL;	/* the IRQ entry owns the reference now */
		e->status = 0;
		e->inv_stag = 0;
		e->log_mr = log_mr;
		log_mr = NULL;
		if (in->opcode == SIW2_OP_COMMIT_REQ) {
			e->src_to = in->sink_to;
			e->len = in->sink_len;
			e->req_id = in->req_id;
			e->inv_stag = in->inval_stag;
			e->log = log;
			/* Not one region (AMB-14, COMMIT-VAL-2). */
			e->status = status;
		} else if (in->opcode == SIW2_OP_ATOMIC_REQ) {
			e->src_to = in->atomic_to;
			e->req_id = in->req_id;
			e->aop.aop = in->aop;
			e->aop.add_swap = in->add_swap;
			e->aop.add_swap_mask = in->add_swap_mask;
			e->aop.cmp = in->cmp;
			e->aop.cmp_mask = in->cmp_mask;
		} else {
			e->sink_stag = in->sink_stag;
			e->sink_to = in->sink_to;
			e->src_to = in->src_to;
			e->len = in->read_size;
		}
	}
	spin_unlock_bh(&qp->irq_lock);
	if (log_mr)
		siw2_mr_put(log_mr);
	if (!e) {
		/* More than the IRD we granted (BASE-RDMAP-5). */
		siw2_rx_err(rx, SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
			    SIW2_TERM_RDMAP_CATASTROPHIC);
		return;
	}
	rx->msn_expect[SIW2_QN_READ_REQ]++;
	siw2_tx_kick(qp);
}

/* Deliver the original value to the Requester's buffer (EXT-ATOMIC-22). */
static void siw2_rx_end_atomic_resp(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	enum ib_wc_status st = IB_WC_SUCCESS;
	struct siw2_mr *mr = NULL;
	struct siw2_orqe o;
	unsigned long flags;
	u64 v = rx->info.orig_value;
	u32 got = 0, n;
	void *kaddr;

	spin_lock_irqsave(&qp->sq.lock, flags);
	o = *siw2_orq_head(qp);	/* the segment's begin found it */
	siw2_orq_pop(qp);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	rx->msn_expect[SIW2_QN_RESPONSE]++;
	/* An Atomic Write has no sink: the value is dropped (DEC-17). */
	if (o.sink.length) {
		if (siw2_mr_lookup(qp->sdev, qp->base.pd, o.sink.lkey,
				   o.sink.addr, sizeof(v), IB_ACCESS_LOCAL_WRITE,
				   &mr)) {
			st = IB_WC_LOC_PROT_ERR;
		} else {
			while (got < sizeof(v)) {
				n = siw2_mr_kaddr(mr, o.sink.addr + got,
						  sizeof(v) - got, &kaddr);
				memcpy(kaddr, (u8 *)&v + got, n);
				got += n;
			}
			siw2_mr_put(mr);
		}
	}
	siw2_rx_orq_done(qp, o.slot, 0, st, 0);
}

/*
 * The Commit is answered. Its Status and what the work request asked for
 * (durability, or global visibility) give the completion status
 * (siw2_commit_wc_status(): DEC-13, SIW2-DEC-2); a failure carries the
 * Status in vendor_err, and the stream goes on (COMMIT-ERR-3).
 */
static void siw2_rx_end_commit_resp(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	u32 status = rx->info.commit_status;
	const struct siw2_sqe *sqe;
	enum ib_wc_status wc;
	struct siw2_orqe o;
	unsigned long flags;
	bool global;

	spin_lock_irqsave(&qp->sq.lock, flags);
	o = *siw2_orq_head(qp);	/* the segment's begin found it */
	siw2_orq_pop(qp);
	sqe = siw2_wq_at(&qp->sq, o.slot);
	global = sqe->commit_global;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	rx->msn_expect[SIW2_QN_RESPONSE]++;
	wc = siw2_commit_wc_status(status, global);
	siw2_rx_orq_done(qp, o.slot, 0, wc, wc == IB_WC_SUCCESS ? 0 : status);
}

/* The peer ended the stream (RFC 5040 5.4): report, never answer. */
static void siw2_rx_end_term(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	struct siw2_term_code c;
	bool m, d, r, swapped;

	siw2_ddp_term_parse(rx->term_buf, rx->term_have, &c, &m, &d, &r,
			    &swapped);
	trace_siw2_dp_term(qp->base.qp_num, swapped ? "rcvd-swapped" : "rcvd",
			   c.layer, c.etype, c.code);
	siw2_stat_term(qp, SIW2_STAT_TERM_RX_RDMAP, c.layer);
	rx->stage = SIW2_RX_DEAD;
	if (test_and_set_bit(0, &qp->dp_failed))
		return;
	siw2_dp_sq_error_oldest(qp, siw2_term_wc_status(c.layer, c.etype,
							c.code));
	siw2_rx_rqe_error(qp, siw2_term_wc_status(c.layer, c.etype, c.code));
	qp->fail_event = siw2_term_qp_event(c.layer, c.etype, c.code);
	siw2_dp_fail(qp, false);
}

/*
 * Indexed by the 5-bit opcode; siw2_ddp_decode() has refused every opcode
 * without an entry here, and every one the connection did not negotiate
 * (rx.feat).
 */
static const struct siw2_rx_op siw2_rx_ops[SIW2_RDMAP_OP_MASK + 1] = {
	[SIW2_OP_WRITE] = { siw2_rx_begin_write, NULL },
	[SIW2_OP_READ_REQ] = { siw2_rx_begin_read_req, siw2_rx_end_qn1_req },
	[SIW2_OP_READ_RESP] = { siw2_rx_begin_rresp, siw2_rx_end_read_resp },
	[SIW2_OP_SEND] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_SEND_INV] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_SEND_SE] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_SEND_SE_INV] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_TERMINATE] = { siw2_rx_begin_term, siw2_rx_end_term },
	/* Immediate Data consumes a receive, places nothing (DEC-16). */
	[SIW2_OP_IMM] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_IMM_SE] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_SEND_IMM] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_SEND_INV_IMM] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_SEND_SE_IMM] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_SEND_SE_INV_IMM] = { siw2_rx_begin_send, siw2_rx_end_send },
	[SIW2_OP_READ_V2_REQ] = { siw2_rx_begin_read_req, siw2_rx_end_qn1_req },
	[SIW2_OP_READ_V2_RESP] = { siw2_rx_begin_rv2_resp,
				   siw2_rx_end_read_resp },
	[SIW2_OP_ATOMIC_REQ] = { siw2_rx_begin_atomic_req,
				 siw2_rx_end_qn1_req },
	[SIW2_OP_ATOMIC_RESP] = { siw2_rx_begin_atomic_resp,
				  siw2_rx_end_atomic_resp },
	[SIW2_OP_COMMIT_REQ] = { siw2_rx_begin_commit_req,
				 siw2_rx_end_qn1_req },
	[SIW2_OP_COMMIT_RESP] = { siw2_rx_begin_commit_resp,
				  siw2_rx_end_commit_resp },
};

/* A segment without error is in, its CRC checked. */
static void siw2_rx_end(struct siw2_qp *qp)
{
	struct siw2_rx *rx = &qp->rx;
	const struct siw2_rx_op *op = &siw2_rx_ops[rx->info.opcode];

	trace_siw2_dp_rx_seg(qp->base.qp_num, rx->info.opcode, rx->info.last,
			     rx->info.tagged ? rx->info.stag : 0,
			     rx->info.tagged ? rx->info.to : 0,
			     rx->info.payload_len);
	if (op->end)
		op->end(qp);
	siw2_rx_put_mr(rx);
}

/*
 * A fatal error: send the Terminate (the first error of the QP only),
 * with the offending headers where RFC 5040 4.8 asks for them, and drop
 * all further input.
 */
static void siw2_rx_fail(struct siw2_qp *qp, const struct siw2_term_code *c,
			 bool hdrs)
{
	struct siw2_rx *rx = &qp->rx;
	const u8 *ddp = NULL, *rdmap = NULL;
	u32 ddp_len = 0;

	rx->stage = SIW2_RX_DEAD;
	siw2_rx_put_mr(rx);
	siw2_rx_put_rv2(rx);
	if (test_and_set_bit(0, &qp->dp_failed))
		return;
	if (hdrs) {
		ddp_len = rx->info.tagged ? sizeof(struct siw2_ddp_tagged) :
					    sizeof(struct siw2_ddp_untagged);
		if (rx->hdr_have >= SIW2_MPA_HDR_LEN + ddp_len)
			ddp = rx->hdr + SIW2_MPA_HDR_LEN;
		if (ddp && rx->info.opcode == SIW2_OP_READ_REQ &&
		    c->layer == SIW2_TERM_LAYER_RDMAP &&
		    rx->hdr_have >= SIW2_MPA_HDR_LEN + ddp_len +
				    sizeof(struct siw2_rdmap_read_req))
			rdmap = ddp + ddp_len;
	}
	qp->fail_event = siw2_term_qp_event(c->layer, c->etype, c->code);
	siw2_tx_terminate(qp, c, ddp, ddp ? ddp_len : 0, rx->ulpdu_len, rdmap);
}

static int siw2_rx_stage_trailer(struct siw2_qp *qp, struct sk_buff *skb,
				 unsigned int off, size_t len)
{
	static const struct siw2_term_code crc_err = {
		SIW2_TERM_LAYER_LLP, SIW2_TERM_ETYPE_MPA, SIW2_TERM_MPA_CRC
	};
	struct siw2_rx *rx = &qp->rx;
	u32 n = min_t(size_t, rx->tr_want - rx->tr_have, len);
	u32 pad = rx->tr_want - SIW2_MPA_CRC_LEN;

	if (skb_copy_bits(skb, off, rx->trailer + rx->tr_have, n))
		return -EFAULT;
	rx->tr_have += n;
	if (rx->tr_have < rx->tr_want)
		return n;
	if (qp->conn.crc &&
	    ~crc32c(rx->crc, rx->trailer, pad) !=
	    get_unaligned_le32(rx->trailer + pad)) {
		siw2_stat_add(qp, SIW2_STAT_CRC_ERRORS, 1);
		siw2_rx_fail(qp, &crc_err, false);
		return n;
	}
	siw2_stat_add(qp, SIW2_STAT_RX_FPDUS, 1);
	siw2_stat_add(qp, SIW2_STAT_RX_BYTES,
		      SIW2_MPA_HDR_LEN + rx->ulpdu_len + rx->tr_want);
	if (!rx->err_set)
		siw2_rx_end(qp);	/* may find an error of its own */
	if (rx->err_set) {
		siw2_rx_fail(qp, &rx->err, true);
		return n;
	}
	if (rx->stage != SIW2_RX_DEAD)
		siw2_rx_next_fpdu(rx);
	return n;
}

static int siw2_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			 unsigned int off, size_t len)
{
	static const struct siw2_term_code framing = {
		SIW2_TERM_LAYER_DDP, SIW2_TERM_ETYPE_CATASTROPHIC, 0
	};
	struct siw2_qp *qp = desc->arg.data;
	struct siw2_rx *rx = &qp->rx;
	size_t done = 0;
	int n;

	if (!desc->count)
		return 0;
	len = min(len, desc->count);
	while (done < len) {
		switch (rx->stage) {
		case SIW2_RX_HDR:
			n = siw2_rx_stage_hdr(qp, skb, off + done, len - done);
			break;
		case SIW2_RX_PAYLOAD:
			n = siw2_rx_stage_payload(qp, skb, off + done,
						  len - done);
			break;
		case SIW2_RX_TRAILER:
			n = siw2_rx_stage_trailer(qp, skb, off + done,
						  len - done);
			break;
		default:
			n = len - done;	/* dead stream: drop */
			break;
		}
		if (n < 0) {
			siw2_rx_fail(qp, &framing, false);
			n = len - done;
		}
		done += n;
	}
	desc->count -= done;
	return done;
}

/*
 * One RX engine run over what the socket holds, under the socket lock
 * (owned, or its spinlock in softirq): that lock serialises every run.
 * Return: true when the budget ran out with input left.
 */
static bool siw2_rx_run(struct siw2_qp *qp, struct sock *sk, size_t budget)
{
	read_descriptor_t desc = {
		.arg.data = qp,
		.count = budget,
	};

	if (!READ_ONCE(qp->dp_on))
		return false;
	tcp_read_sock(sk, &desc, siw2_rx_actor);
	return !desc.count && !skb_queue_empty(&sk->sk_receive_queue);
}

/**
 * siw2_rx_work - the RX engine, as a work item
 * @work: the QP's rx_work
 */
void siw2_rx_work(struct work_struct *work)
{
	struct siw2_qp *qp = container_of(work, struct siw2_qp, rx_work);
	struct sock *sk;
	bool more;

	if (!READ_ONCE(qp->dp_on))
		return;
	if (siw2_qp_fuzz(qp)) {
		read_descriptor_t desc = {
			.arg.data = qp,
			.count = SIW2_RX_BUDGET,
		};

		/* Only this work item reads it: no lock to serialise runs. */
		more = siw2_fuzz_llp_read(siw2_qp_fuzz(qp), &desc,
					  siw2_rx_actor);
	} else {
		sk = qp->sock->sk;
		lock_sock(sk);
		more = siw2_rx_run(qp, sk, SIW2_RX_BUDGET);
		release_sock(sk);
	}
	if (more)
		siw2_rx_kick(qp);
}

/**
 * siw2_rx_data_ready - input arrived: run the RX engine at once
 * @qp: QP
 * @sk: its socket, from its data_ready callback (socket lock held)
 *
 * At most SIW2_RX_SOFTIRQ_BUDGET octets are handled here, in the
 * caller's (softirq) context, so that a small message completes without
 * waiting for a worker; the work item takes over the rest.
 */
void siw2_rx_data_ready(struct siw2_qp *qp, struct sock *sk)
{
	if (siw2_rx_run(qp, sk, SIW2_RX_SOFTIRQ_BUDGET))
		siw2_rx_kick(qp);
}
