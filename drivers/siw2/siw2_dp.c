// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the data-path core - what the QP code and both engines share.
 *
 * It owns the outbound and inbound read queues (ORQ, IRQ: one small API
 * for their ring arithmetic), the in-order retirement of send work
 * requests, completion reporting, the first error of a QP and its
 * failure signal. It sits below siw2_qp.c, siw2_tx.c and siw2_rx.c and
 * calls only the CQ, MR and queue code beneath it: the engines report
 * through here and never call up into the QP code.
 *
 * Locking (siw2_dp.h): the ORQ and the send queue under qp->sq.lock, the
 * IRQ under qp->irq_lock. Completions are delivered without either held:
 * a consumer's completion handler may post again.
 */

#include <rdma/ib_verbs.h>

#include "siw2.h"
#include "siw2_wr.h"

/**
 * siw2_dp_wc - report one completion of a QP
 * @qp: QP
 * @cq: its send or receive CQ
 * @wr_id: the work request's id
 * @status: IB_WC_*
 * @opcode: IB_WC_* opcode
 * @byte_len: octets transferred
 * @solicited: satisfies a solicited-only notification request
 */
void siw2_dp_wc(struct siw2_qp *qp, struct siw2_cq *cq, u64 wr_id,
		enum ib_wc_status status, enum ib_wc_opcode opcode,
		u32 byte_len, bool solicited)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp = &qp->base,
	};

	siw2_cq_add(cq, &wc, NULL, solicited);
}

/* A send completion that carries the peer's reason (a Commit's Status). */
static void siw2_dp_wc_vendor(struct siw2_qp *qp, u64 wr_id,
			      enum ib_wc_status status,
			      enum ib_wc_opcode opcode, u32 byte_len,
			      u32 vendor_err)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.vendor_err = vendor_err,
		.qp = &qp->base,
	};

	siw2_cq_add(qp->scq, &wc, NULL, false);
}

/**
 * siw2_dp_fail - the stream of a QP is dead
 * @qp: QP; qp->dp_failed is set and qp->fail_event chosen
 * @abort: the stream itself failed (reset); else a Terminate went or came
 *
 * Queues the QP's failure work (siw2_qp.c), which moves it to Terminate
 * and closes the connection: the engines may not take the state lock.
 */
void siw2_dp_fail(struct siw2_qp *qp, bool abort)
{
	WRITE_ONCE(qp->fail_abort, abort);
	siw2_qp_get(qp);
	if (!queue_work(siw2_async_wq, &qp->fail_work))
		siw2_qp_put(qp);
}

/**
 * siw2_dp_sq_drained - a closing QP's TX engine has sent all it had
 * @qp: QP in Closing, its graceful close owed
 *
 * Runs the QP's close work (siw2_qp.c) now instead of at its time limit:
 * the FIN it asks the CM for goes behind everything posted before the
 * close (SIW2-DEC-3), not ahead of what the engine had not sent yet.
 */
void siw2_dp_sq_drained(struct siw2_qp *qp)
{
	if (test_and_set_bit(SIW2_FIN_DRAINED, &qp->fin_owed))
		return;
	siw2_qp_get(qp);
	/* Pending already (the time limit): that one holds a reference. */
	if (mod_delayed_work(siw2_async_wq, &qp->close_work, 0))
		siw2_qp_put(qp);
}

/**
 * siw2_dp_reset - the shared data-path state of a new stream
 * @qp: QP, its engines stopped (state lock held)
 *
 * No error recorded, no request outstanding either way, nothing sent.
 */
void siw2_dp_reset(struct siw2_qp *qp)
{
	qp->dp_failed = 0;
	qp->fail_owed = false;
	qp->fin_owed = 0;
	qp->irq_head = 0;
	qp->irq_count = 0;
	qp->orq_head = 0;
	qp->orq_count = 0;
	qp->sq_txpos = 0;
	qp->err_slot = U32_MAX;
}

/* ---- ORQ: QN 1 requests this side sent (qp->sq.lock) ---- */

/**
 * siw2_orq_head - the oldest outstanding Read or Atomic
 * @qp: QP, sq.lock held
 *
 * Return: the entry, or NULL if none is outstanding.
 */
struct siw2_orqe *siw2_orq_head(struct siw2_qp *qp)
{
	lockdep_assert_held(&qp->sq.lock);
	return qp->orq_count ? &qp->orq[qp->orq_head] : NULL;
}

/**
 * siw2_orq_full - has every ORD slot a request?
 * @qp: QP, sq.lock held
 *
 * Return: true if the next Read or Atomic must wait (RFC 5040 6.1).
 */
bool siw2_orq_full(struct siw2_qp *qp)
{
	return qp->orq_count == qp->ord;
}

/**
 * siw2_orq_push - take the next ORD slot
 * @qp: QP, sq.lock held, not siw2_orq_full()
 *
 * Return: the new entry, the youngest; the caller fills it.
 */
struct siw2_orqe *siw2_orq_push(struct siw2_qp *qp)
{
	struct siw2_orqe *o;

	lockdep_assert_held(&qp->sq.lock);
	o = &qp->orq[(qp->orq_head + qp->orq_count) % qp->ord];
	qp->orq_count++;
	return o;
}

/**
 * siw2_orq_pop - the oldest request is answered: free its slot
 * @qp: QP, sq.lock held, siw2_orq_head() not NULL
 */
void siw2_orq_pop(struct siw2_qp *qp)
{
	lockdep_assert_held(&qp->sq.lock);
	qp->orq_head = (qp->orq_head + 1) % qp->ord;
	qp->orq_count--;
}

/* ---- IRQ: QN 1 requests the peer sent (qp->irq_lock) ---- */

/**
 * siw2_irq_push - queue an inbound Read or Atomic for the TX engine
 * @qp: QP, irq_lock held
 *
 * Return: the new entry, zeroed, or NULL when the IRD is used up.
 */
struct siw2_irqe *siw2_irq_push(struct siw2_qp *qp)
{
	struct siw2_irqe *e;

	lockdep_assert_held(&qp->irq_lock);
	if (qp->irq_count == qp->ird)
		return NULL;
	e = &qp->irq[(qp->irq_head + qp->irq_count) % qp->ird];
	memset(e, 0, sizeof(*e));
	qp->irq_count++;
	return e;
}

/**
 * siw2_irq_head - the oldest inbound request not yet answered
 * @qp: QP, irq_lock held
 *
 * Return: the entry, or NULL.
 */
struct siw2_irqe *siw2_irq_head(struct siw2_qp *qp)
{
	lockdep_assert_held(&qp->irq_lock);
	return qp->irq_count ? &qp->irq[qp->irq_head] : NULL;
}

/**
 * siw2_irq_pop - the oldest inbound request is answered
 * @qp: QP, irq_lock held, siw2_irq_head() not NULL
 */
void siw2_irq_pop(struct siw2_qp *qp)
{
	lockdep_assert_held(&qp->irq_lock);
	qp->irq_head = (qp->irq_head + 1) % qp->ird;
	qp->irq_count--;
}

/**
 * siw2_irq_drop - drop the inbound requests not yet answered
 * @qp: QP whose engines are stopped
 *
 * They go with the stream (RFC 5040 6.2); each drops its MR reference.
 */
void siw2_irq_drop(struct siw2_qp *qp)
{
	struct siw2_irqe *e;

	spin_lock_bh(&qp->irq_lock);
	while ((e = siw2_irq_head(qp))) {
		if (e->mr)
			siw2_mr_put(e->mr);
		if (e->log_mr)
			siw2_mr_put(e->log_mr);
		e->mr = NULL;
		e->log_mr = NULL;
		siw2_irq_pop(qp);
	}
	qp->irq_head = 0;
	spin_unlock_bh(&qp->irq_lock);
}

/* ---- the send queue: in-order retirement, errors, flush ---- */

/* Record the QP's first error (DEC-11): later ones change nothing. */
static void siw2_dp_sq_error_at(struct siw2_qp *qp, bool oldest, u32 slot,
				enum ib_wc_status status)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (oldest)
		slot = qp->sq.count ? siw2_wq_slot(&qp->sq, 0) : U32_MAX;
	if (qp->err_slot == U32_MAX && slot != U32_MAX) {
		qp->err_slot = slot;
		qp->err_status = status;
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
}

/**
 * siw2_dp_sq_error - name the work request a QP's first error completes
 * @qp: QP
 * @slot: its SQ slot; U32_MAX: none (the error has no work request)
 * @status: the status it completes with instead of IB_WC_WR_FLUSH_ERR
 */
void siw2_dp_sq_error(struct siw2_qp *qp, u32 slot, enum ib_wc_status status)
{
	siw2_dp_sq_error_at(qp, false, slot, status);
}

/**
 * siw2_dp_sq_error_oldest - the QP's first error completes its oldest
 *	send work request, if one is queued (a Terminate received)
 * @qp: QP
 * @status: the status it completes with instead of IB_WC_WR_FLUSH_ERR
 */
void siw2_dp_sq_error_oldest(struct siw2_qp *qp, enum ib_wc_status status)
{
	siw2_dp_sq_error_at(qp, true, 0, status);
}

/**
 * siw2_dp_sq_reap - retire the send work requests that are done, in order
 * @qp: QP
 *
 * An entry completes once it and every older one are done: a Send
 * posted behind an RDMA Read completes after the Read.
 *
 * Return: how many entries were retired.
 */
u32 siw2_dp_sq_reap(struct siw2_qp *qp)
{
	struct {
		u64 wr_id;
		struct siw2_mr *reg_mr;
		u32 len;
		enum ib_wc_status status;
		u32 vendor_err;
		enum ib_wr_opcode opcode;
		bool signaled;
	} done[16];
	struct siw2_sqe *sqe;
	unsigned long flags;
	u32 n, i, total = 0;

	do {
		n = 0;
		spin_lock_irqsave(&qp->sq.lock, flags);
		while (n < ARRAY_SIZE(done)) {
			sqe = siw2_wq_head(&qp->sq);
			if (!sqe || sqe->state != SIW2_SQE_DONE)
				break;
			done[n].wr_id = sqe->wr_id;
			done[n].reg_mr = sqe->reg_mr;
			done[n].len = sqe->len;
			done[n].status = sqe->status;
			done[n].vendor_err = sqe->vendor_err;
			done[n].opcode = sqe->opcode;
			done[n].signaled = qp->sq_sig_all || sqe->status ||
					   (sqe->send_flags & IB_SEND_SIGNALED);
			n++;
			siw2_wq_pop(&qp->sq);
			qp->sq_txpos--;
		}
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		/* Without the lock: a completion handler may post again. */
		for (i = 0; i < n; i++) {
			if (done[i].reg_mr)
				siw2_mr_put(done[i].reg_mr);
			if (done[i].signaled)
				siw2_dp_wc_vendor(qp, done[i].wr_id,
						  done[i].status,
						  siw2_wr_wc_opcode(done[i].opcode),
						  done[i].len, done[i].vendor_err);
		}
		total += n;
	} while (n == ARRAY_SIZE(done));
	return total;
}

/**
 * siw2_dp_sqe_done - a send work request has finished
 * @qp: QP
 * @slot: its SQ slot
 * @status: how it finished
 * @vendor_err: the peer's reason for a failure that leaves the QP in RTS
 *	(a Commit Response's Status, DEC-13), else 0
 *
 * It completes with every older one done (siw2_dp_sq_reap()).
 */
void siw2_dp_sqe_done(struct siw2_qp *qp, u32 slot, enum ib_wc_status status,
		      u32 vendor_err)
{
	struct siw2_sqe *sqe;
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	sqe = siw2_wq_at(&qp->sq, slot);
	sqe->status = status;
	sqe->vendor_err = vendor_err;
	sqe->state = SIW2_SQE_DONE;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	siw2_dp_sq_reap(qp);
}

/* Take the oldest SQ entry and the status it completes with. */
static bool siw2_dp_sq_take_flush(struct siw2_qp *qp, struct siw2_sqe *out)
{
	struct siw2_sqe *sqe;
	unsigned long flags;
	u32 slot;

	spin_lock_irqsave(&qp->sq.lock, flags);
	sqe = siw2_wq_head(&qp->sq);
	if (!sqe && siw2_wq_pull(&qp->sq) > 0)
		sqe = siw2_wq_head(&qp->sq);
	if (sqe) {
		slot = siw2_wq_slot(&qp->sq, 0);
		memcpy(out, sqe, qp->sq.esize);
		if (slot == qp->err_slot) {
			out->status = qp->err_status;
			qp->err_slot = U32_MAX;
		} else if (sqe->state != SIW2_SQE_DONE) {
			out->status = IB_WC_WR_FLUSH_ERR;
		}
		siw2_wq_pop(&qp->sq);
	}
	qp->sq_txpos = 0;
	qp->orq_count = 0;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return sqe;
}

/**
 * siw2_dp_sq_flush - complete every queued send work request
 * @qp: QP in Error, its engines stopped
 *
 * With IB_WC_WR_FLUSH_ERR (RFC 5040 6.2), except the one a Terminate or
 * a local error names (DEC-11) and those that finished but waited
 * behind a Read. Posts racing with the flush complete directly.
 */
void siw2_dp_sq_flush(struct siw2_qp *qp)
{
	struct siw2_sqe sqe;

	while (siw2_dp_sq_take_flush(qp, &sqe)) {
		if (sqe.reg_mr)
			siw2_mr_put(sqe.reg_mr);
		if (sqe.status == IB_WC_SUCCESS && !qp->sq_sig_all &&
		    !(sqe.send_flags & IB_SEND_SIGNALED))
			continue;
		siw2_dp_wc(qp, qp->scq, sqe.wr_id, sqe.status,
			   siw2_wr_wc_opcode(sqe.opcode), sqe.len, false);
	}
}

/**
 * siw2_dp_rq_flush - complete every queued receive with IB_WC_WR_FLUSH_ERR
 * @qp: QP in Error, its engines stopped
 */
void siw2_dp_rq_flush(struct siw2_qp *qp)
{
	struct siw2_rqe rqe;

	while (siw2_wq_take(&qp->rq, &rqe))
		siw2_dp_wc(qp, qp->rcq, rqe.wr_id, IB_WC_WR_FLUSH_ERR,
			   IB_WC_RECV, 0, false);
}
