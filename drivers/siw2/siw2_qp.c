// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: queue pairs - creation, the iWARP QP state machine, work request
 * posting and flushing.
 *
 * States follow the RFC 5040 verbs model (Idle, RTS, Closing, Terminate,
 * Error). The consumer asks for IB states; each iWARP state has one
 * function deciding which requests it accepts. Only the connection manager
 * moves a QP to RTS, once its connection is in RDMA mode (siw2_qp_llp_up()).
 */

#include <linux/slab.h>
#include <linux/uaccess.h>
#include <net/sock.h>
#include <rdma/uverbs_ioctl.h>

#include <siw2/kapi.h>
#include <uapi/rdma/siw2-abi.h>

#include "siw2.h"
#include "siw2_cm.h"
#include "siw2_fuzz.h"
#include "siw2_trace.h"
#include "siw2_wr.h"

static const char * const siw2_qp_state_names[SIW2_QP_NUM_STATES] = {
	[SIW2_QP_IDLE] = "IDLE",
	[SIW2_QP_RTS] = "RTS",
	[SIW2_QP_CLOSING] = "CLOSING",
	[SIW2_QP_TERMINATE] = "TERMINATE",
	[SIW2_QP_ERROR] = "ERROR",
};

/* The iWARP state each requested IB state means. */
static const enum siw2_qp_state siw2_state_of_ib[] = {
	[IB_QPS_RESET] = SIW2_QP_IDLE,
	[IB_QPS_INIT] = SIW2_QP_IDLE,
	[IB_QPS_RTR] = SIW2_QP_IDLE,
	[IB_QPS_RTS] = SIW2_QP_RTS,
	[IB_QPS_SQD] = SIW2_QP_CLOSING,
	[IB_QPS_SQE] = SIW2_QP_TERMINATE,
	[IB_QPS_ERR] = SIW2_QP_ERROR,
};

/**
 * siw2_qp_state_name - printable name of an iWARP QP state
 * @state: state
 *
 * Return: the name, or "?" for an invalid value.
 */
const char *siw2_qp_state_name(enum siw2_qp_state state)
{
	return state < SIW2_QP_NUM_STATES ? siw2_qp_state_names[state] : "?";
}

/* Attributes iWARP QPs accept in modify_qp; IB path attributes do not apply. */
#define SIW2_QP_ATTR_SUPPORTED                                           \
	(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_EN_SQD_ASYNC_NOTIFY |     \
	 IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX | IB_QP_PORT |            \
	 IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC)

#define SIW2_QP_ACCESS_SUPPORTED                                         \
	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |                \
	 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)

static void siw2_qp_flush(struct siw2_qp *qp)
{
	lockdep_assert_held(&qp->state_lock);

	siw2_rx_release(qp);
	siw2_tx_release(qp);
	siw2_irq_drop(qp);
	siw2_dp_sq_flush(qp);
	siw2_dp_rq_flush(qp);
}

/*
 * Stop both engines; neither runs or is queued afterwards. A data_ready
 * run holds the socket's lock, a direct TX run the TX lock: taking each
 * once waits for a run in progress, and later ones see @dp_on false.
 */
static void siw2_qp_dp_stop(struct siw2_qp *qp)
{
	WRITE_ONCE(qp->dp_on, false);
	if (qp->sock) {
		lock_sock(qp->sock->sk);
		release_sock(qp->sock->sk);
	}
	mutex_lock(&qp->tx_lock);
	mutex_unlock(&qp->tx_lock);
	cancel_work_sync(&qp->rx_work);
	/* A run may arm the linger timer, whose expiry may queue a run. */
	cancel_work_sync(&qp->tx_work);
	hrtimer_cancel(&qp->tx_linger);
	cancel_work_sync(&qp->tx_work);
}

/* Drop queued work without completions (IB RESET semantics). */
static void siw2_qp_discard(struct siw2_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->sq.lock, flags);
	qp->sq.head = 0;
	qp->sq.count = 0;
	siw2_wq_ring_reset(&qp->sq);
	qp->sq_txpos = 0;
	qp->orq_count = 0;
	qp->err_slot = U32_MAX;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	spin_lock_irqsave(&qp->rq.lock, flags);
	qp->rq.head = 0;
	qp->rq.count = 0;
	siw2_wq_ring_reset(&qp->rq);
	spin_unlock_irqrestore(&qp->rq.lock, flags);
}

static void siw2_qp_set_state(struct siw2_qp *qp, enum ib_qp_state ib_state)
{
	enum siw2_qp_state state = siw2_state_of_ib[ib_state];

	lockdep_assert_held(&qp->state_lock);

	if (state != qp->state)
		trace_siw2_qp_state(qp->base.qp_num,
				    siw2_qp_state_name(qp->state),
				    siw2_qp_state_name(state));
	WRITE_ONCE(qp->state, state);
	WRITE_ONCE(qp->ib_state, ib_state);
	siw2_qp_rings_state(qp, ib_state);
}

static int siw2_qp_enter_error(struct siw2_qp *qp)
{
	siw2_qp_set_state(qp, IB_QPS_ERR);
	siw2_qp_dp_stop(qp);
	/*
	 * The engine is stopped: from now on the process rings for every
	 * post, and the flush below or that doorbell completes it.
	 */
	if (qp->sq.ring)
		siw2_sq_ring_busy(qp, false);
	siw2_qp_flush(qp);
	return 0;
}

/* Idle covers IB RESET, INIT and RTR; it may only leave to RTS connected. */
static int siw2_qp_from_idle(struct siw2_qp *qp, enum ib_qp_state new)
{
	enum ib_qp_state cur = qp->ib_state;

	switch (new) {
	case IB_QPS_RESET:
		siw2_qp_discard(qp);
		break;
	case IB_QPS_INIT:
		if (cur == IB_QPS_RTR)
			return -EINVAL;
		break;
	case IB_QPS_RTR:
		if (cur == IB_QPS_RESET)
			return -EINVAL;
		break;
	case IB_QPS_RTS:
		if (cur == IB_QPS_RESET)
			return -EINVAL;
		/* RTS comes with the connection, never from the consumer. */
		return -ENOTCONN;
	case IB_QPS_ERR:
		return siw2_qp_enter_error(qp);
	default:
		return -EINVAL;
	}
	siw2_qp_set_state(qp, new);
	return 0;
}

/*
 * What the process published in its send queue ring before a graceful
 * close is part of what the close sends. A ring the process overfilled
 * is left as the TX engine would leave it: its entries are flushed.
 */
static void siw2_qp_sq_take_ring(struct siw2_qp *qp)
{
	unsigned long flags;
	int n;

	if (!qp->sq.ring)
		return;
	spin_lock_irqsave(&qp->sq.lock, flags);
	n = siw2_wq_pull(&qp->sq);
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	/* Counted as the TX engine counts what it takes. */
	if (n > 0)
		siw2_stat_add(qp, SIW2_STAT_SQ_RING_POSTS, n);
}

static int siw2_qp_from_rts(struct siw2_qp *qp, enum ib_qp_state new)
{
	switch (new) {
	case IB_QPS_RTS:
		return 0;
	case IB_QPS_SQD:
		/*
		 * Graceful close: what is posted now is sent, then the LLP
		 * closes (siw2_qp_close_work()); nothing is taken after this.
		 * The time limit is set first: the engine's "drained" must
		 * not be overtaken by it.
		 */
		siw2_qp_sq_take_ring(qp);
		siw2_qp_get(qp);
		if (mod_delayed_work(siw2_async_wq, &qp->close_work,
				     msecs_to_jiffies(READ_ONCE(siw2_mpa_timeout_ms))))
			siw2_qp_put(qp);
		set_bit(SIW2_FIN_OWED, &qp->fin_owed);
		siw2_qp_set_state(qp, new);
		return 0;
	case IB_QPS_SQE:
		siw2_qp_set_state(qp, new);
		return 0;
	case IB_QPS_ERR:
		return siw2_qp_enter_error(qp);
	default:
		/* A connected QP must go through Error before Idle. */
		return -EINVAL;
	}
}

/*
 * Closing and Terminate only wind down: stay, or fall into Error. A
 * graceful close (SQD) asked for after the connection has begun to end
 * is already under way: librdmacm's rdma_disconnect() asks for it on
 * iWARP whichever side closed first, so it succeeds and changes nothing.
 */
static int siw2_qp_stay_or_error(struct siw2_qp *qp, enum ib_qp_state new)
{
	if (new == qp->ib_state || new == IB_QPS_SQD)
		return 0;
	if (new == IB_QPS_ERR)
		return siw2_qp_enter_error(qp);
	return -EINVAL;
}

static int siw2_qp_from_closing(struct siw2_qp *qp, enum ib_qp_state new)
{
	return siw2_qp_stay_or_error(qp, new);
}

static int siw2_qp_from_terminate(struct siw2_qp *qp, enum ib_qp_state new)
{
	return siw2_qp_stay_or_error(qp, new);
}

static int siw2_qp_from_error(struct siw2_qp *qp, enum ib_qp_state new)
{
	switch (new) {
	case IB_QPS_ERR:
		return 0;
	case IB_QPS_SQD:
		/* Nothing is left to close gracefully (see above). */
		return 0;
	case IB_QPS_RESET:
		siw2_qp_discard(qp);
		siw2_qp_set_state(qp, new);
		return 0;
	default:
		return -EINVAL;
	}
}

typedef int (*siw2_qp_state_fn)(struct siw2_qp *qp, enum ib_qp_state new);

static const siw2_qp_state_fn siw2_qp_state_fns[SIW2_QP_NUM_STATES] = {
	[SIW2_QP_IDLE] = siw2_qp_from_idle,
	[SIW2_QP_RTS] = siw2_qp_from_rts,
	[SIW2_QP_CLOSING] = siw2_qp_from_closing,
	[SIW2_QP_TERMINATE] = siw2_qp_from_terminate,
	[SIW2_QP_ERROR] = siw2_qp_from_error,
};

static void siw2_qp_free_queues(struct siw2_qp *qp)
{
	/* The owner of a queue destroys the ring that feeds it. */
	siw2_ring_destroy(qp->sq.ring);
	siw2_ring_destroy(qp->rq.ring);
	siw2_wq_free(&qp->sq);
	siw2_wq_free(&qp->rq);
	kvfree(qp->sq_inline);
	kfree(qp->orq);
	kfree(qp->irq);
	kfree(qp->tx_bvec);
	kvfree(qp->tx_rresp_copy);
}

/*
 * After a data path error: the QP enters Terminate and its connection
 * closes - gracefully behind a Terminate, so that it arrives, abortively
 * when the stream itself failed. The LLP close then moves the QP to Error
 * and flushes (siw2_qp_llp_down()).
 */
static void siw2_qp_fail_work(struct work_struct *work)
{
	struct siw2_qp *qp = container_of(work, struct siw2_qp, fail_work);
	struct ib_event ev = {
		.device = qp->base.device,
		.element.qp = &qp->base,
		.event = qp->fail_event,
	};
	struct siw2_cep *cep = NULL;
	bool raise = false;

	mutex_lock(&qp->state_lock);
	if (qp->state == SIW2_QP_RTS || qp->state == SIW2_QP_CLOSING) {
		siw2_qp_set_state(qp, IB_QPS_SQE);
		raise = true;
	}
	/* The close the failure caused may have come first (llp_down). */
	raise |= qp->fail_owed;
	qp->fail_owed = false;
	if (qp->cep) {
		cep = qp->cep;
		siw2_cep_get(cep);
	}
	mutex_unlock(&qp->state_lock);
	if (raise && qp->base.event_handler)
		qp->base.event_handler(&ev, qp->base.qp_context);
	if (cep) {
		siw2_cm_qp_close(cep, READ_ONCE(qp->fail_abort));
		siw2_cep_put(cep);
	}
	siw2_qp_put(qp);
}

/*
 * A graceful close whose TX engine has sent what was posted before it
 * (siw2_dp_sq_drained()): now the CM sends the FIN. One that could not
 * within mpa_timeout_ms (the peer takes nothing) ends abortively, as a
 * Closing endpoint whose peer does not close does. A QP that has left
 * Closing meanwhile closed abortively, or its connection is gone.
 */
static void siw2_qp_close_work(struct work_struct *work)
{
	struct siw2_qp *qp = container_of(to_delayed_work(work),
					  struct siw2_qp, close_work);
	struct siw2_cep *cep = NULL;
	bool drained = false;

	mutex_lock(&qp->state_lock);
	if (test_and_clear_bit(SIW2_FIN_OWED, &qp->fin_owed) &&
	    qp->state == SIW2_QP_CLOSING && qp->cep) {
		drained = test_bit(SIW2_FIN_DRAINED, &qp->fin_owed);
		cep = qp->cep;
		siw2_cep_get(cep);
	}
	mutex_unlock(&qp->state_lock);
	if (cep) {
		siw2_cm_qp_close(cep, !drained);
		siw2_cep_put(cep);
	}
	siw2_qp_put(qp);
}

/* A close's time limit goes with its connection, and its reference. */
static void siw2_qp_close_cancel(struct siw2_qp *qp)
{
	if (cancel_delayed_work(&qp->close_work))
		siw2_qp_put(qp);
}

static int siw2_qp_check_caps(struct ib_qp_init_attr *attr)
{
	struct ib_qp_cap *cap = &attr->cap;

	if (!cap->max_send_wr || cap->max_send_wr > SIW2_MAX_QP_WR ||
	    cap->max_send_sge > SIW2_MAX_SGE ||
	    cap->max_inline_data > SIW2_MAX_INLINE)
		return -EINVAL;
	/* With an SRQ the receive queue attributes are ignored. */
	if (!attr->srq && (cap->max_recv_wr > SIW2_MAX_QP_WR ||
			   cap->max_recv_sge > SIW2_MAX_SGE))
		return -EINVAL;
	return 0;
}

/**
 * siw2_create_qp - create a reliable connected QP in IB state RESET
 * @ibqp: core-allocated QP
 * @attr: type, CQs, SRQ and capacities; capacities are returned as allocated
 * @udata: response: struct siw2_uresp_create_qp
 *
 * Return: 0, -EOPNOTSUPP for a type other than RC or creation flags,
 * -EINVAL for capacities beyond the device limits or an empty send queue,
 * -ENOMEM over the QP limit or without memory, -EFAULT.
 */
int siw2_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata)
{
	struct siw2_ucontext *uctx = siw2_udata_uctx(udata);
	struct siw2_device *sdev = to_siw2_dev(ibqp->device);
	struct siw2_qp *qp = to_siw2_qp(ibqp);
	struct siw2_uresp_create_qp resp = {};
	bool rings = uctx && uctx->rings;
	u32 qpn;
	int rv;

	if (attr->qp_type != IB_QPT_RC || attr->create_flags)
		return -EOPNOTSUPP;
	rv = siw2_qp_check_caps(attr);
	if (!rv)
		rv = siw2_udata_no_input(udata);
	if (rv)
		return rv;
	rv = siw2_obj_get(sdev, SIW2_OBJ_QP);
	if (rv)
		return rv;

	if (attr->srq) {
		attr->cap.max_recv_wr = 0;
		attr->cap.max_recv_sge = 0;
	}
	if (rings) {
		/* Ring indices wrap at 2^32: power-of-two depths. */
		attr->cap.max_send_wr = siw2_ring_slots(attr->cap.max_send_wr);
		if (attr->cap.max_recv_wr)
			attr->cap.max_recv_wr =
				siw2_ring_slots(attr->cap.max_recv_wr);
	}
	/* A ring QP's kernel queues are windows onto its rings. */
	rv = siw2_wq_init(&qp->sq, rings ? min(attr->cap.max_send_wr,
					       SIW2_SQ_WINDOW) :
					   attr->cap.max_send_wr,
			  siw2_sqe_size(attr->cap.max_send_sge));
	if (!rv)
		rv = siw2_wq_init(&qp->rq, rings ? min(attr->cap.max_recv_wr,
						       SIW2_RQ_WINDOW) :
						   attr->cap.max_recv_wr,
				  siw2_rqe_size(attr->cap.max_recv_sge));
	if (rv)
		goto err_wq;
	rv = -ENOMEM;
	if (attr->cap.max_inline_data) {
		/* By send queue slot: inline data is copied into the window. */
		qp->sq_inline = kvcalloc(qp->sq.size,
					 attr->cap.max_inline_data, GFP_KERNEL);
		if (!qp->sq_inline)
			goto err_wq;
	}
	spin_lock_init(&qp->irq_lock);
	INIT_WORK(&qp->tx_work, siw2_tx_work);
	hrtimer_init(&qp->tx_linger, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	qp->tx_linger.function = siw2_tx_linger_fire;
	mutex_init(&qp->tx_lock);
	INIT_WORK(&qp->rx_work, siw2_rx_work);
	INIT_WORK(&qp->fail_work, siw2_qp_fail_work);
	INIT_DELAYED_WORK(&qp->close_work, siw2_qp_close_work);
	qp->err_slot = U32_MAX;

	qp->sdev = sdev;
	qp->stats = sdev->stats;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	mutex_init(&qp->state_lock);
	qp->state = SIW2_QP_IDLE;
	/* iWARP verbs have no Reset: a new QP is in INIT, as on any RNIC. */
	qp->ib_state = IB_QPS_INIT;
	qp->srq = attr->srq ? to_siw2_srq(attr->srq) : NULL;
	qp->scq = to_siw2_cq(attr->send_cq);
	qp->rcq = to_siw2_cq(attr->recv_cq);
	qp->cap = attr->cap;
	qp->sq_sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	if (rings) {
		rv = siw2_qp_rings_create(qp, uctx, &resp);
		if (rv)
			goto err_wq;
		siw2_qp_rings_state(qp, qp->ib_state);
	}

	rv = xa_alloc_cyclic(&sdev->qp_xa, &qpn, qp,
			     XA_LIMIT(1, SIW2_QPN_MAX), &sdev->qpn_next,
			     GFP_KERNEL);
	if (rv < 0)
		goto err_wq;
	ibqp->qp_num = qpn;

	resp.qp_id = qpn;
	resp.num_sqe = qp->cap.max_send_wr;
	resp.num_rqe = qp->cap.max_recv_wr;
	rv = siw2_udata_respond(udata, &resp, sizeof(resp));
	if (rv)
		goto err_xa;
	return 0;

err_xa:
	xa_erase(&sdev->qp_xa, qpn);
err_wq:
	siw2_qp_free_queues(qp);
	siw2_obj_put(sdev, SIW2_OBJ_QP);
	return rv == -EBUSY ? -ENOMEM : rv;
}

static int siw2_qp_check_attr(struct siw2_qp *qp, struct ib_qp_attr *attr,
			      int mask)
{
	if (mask & ~SIW2_QP_ATTR_SUPPORTED)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_STATE) && attr->qp_state > IB_QPS_ERR)
		return -EINVAL;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != qp->ib_state)
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~SIW2_QP_ACCESS_SUPPORTED))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SIW2_MAX_ORD)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SIW2_MAX_IRD)
		return -EINVAL;
	/* IRD/ORD are negotiated at connection setup (RFC 6581) and fixed after. */
	if ((mask & (IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC)) &&
	    qp->state != SIW2_QP_IDLE)
		return -EINVAL;
	return 0;
}

/**
 * siw2_modify_qp - change QP attributes and state
 * @ibqp: QP
 * @attr: new attributes
 * @mask: IB_QP_* attributes to apply
 * @udata: user data (no input)
 *
 * All attributes are checked before any is applied.
 *
 * Return: 0, -EOPNOTSUPP for attributes iWARP has no use for, -EINVAL for
 * invalid values or an illegal transition, -ENOTCONN for RTS without a
 * connection.
 */
int siw2_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);
	enum siw2_qp_state before;
	struct siw2_cep *cep = NULL;
	bool closing = false;
	int rv;

	rv = siw2_udata_no_input(udata);
	if (rv)
		return rv;

	mutex_lock(&qp->state_lock);
	rv = siw2_qp_check_attr(qp, attr, mask);
	if (rv)
		goto out;
	before = qp->state;
	if (mask & IB_QP_STATE) {
		rv = siw2_qp_state_fns[qp->state](qp, attr->qp_state);
		if (rv)
			goto out;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->ord = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->ird = attr->max_dest_rd_atomic;
	/*
	 * Error ends the connection abortively at once, SQD gracefully once
	 * the TX engine has sent what it had (RFC 5040 6.2): the engine's
	 * run that finds it done asks for the FIN (siw2_qp_close_work()).
	 */
	if (qp->cep && qp->state != before && qp->state == SIW2_QP_ERROR) {
		cep = qp->cep;
		siw2_cep_get(cep);
	}
	closing = qp->state != before && qp->state == SIW2_QP_CLOSING;
out:
	mutex_unlock(&qp->state_lock);
	if (cep) {
		siw2_cm_qp_close(cep, true);
		siw2_cep_put(cep);
	}
	if (closing)
		siw2_tx_kick(qp);
	return rv;
}

/**
 * siw2_query_qp - report QP attributes
 * @ibqp: QP
 * @attr: filled in
 * @mask: ignored, everything is reported
 * @init_attr: filled in with the creation attributes
 *
 * Return: 0
 */
int siw2_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));

	mutex_lock(&qp->state_lock);
	attr->qp_state = qp->ib_state;
	attr->cur_qp_state = qp->ib_state;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->ord;
	attr->max_dest_rd_atomic = qp->ird;
	mutex_unlock(&qp->state_lock);

	attr->path_mtu = ib_mtu_int_to_enum(READ_ONCE(qp->sdev->netdev->mtu));
	attr->port_num = 1;
	attr->cap = qp->cap;

	init_attr->qp_type = IB_QPT_RC;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->srq = ibqp->srq;
	init_attr->cap = qp->cap;
	init_attr->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
						  IB_SIGNAL_REQ_WR;
	return 0;
}

/**
 * siw2_destroy_qp - destroy a QP; its queued work and completions go with it
 * @ibqp: QP
 * @udata: user data
 *
 * A connection still attached is aborted first. Returns once nobody else
 * holds the QP.
 *
 * Return: 0
 */
int siw2_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);
	struct siw2_device *sdev = qp->sdev;
	struct siw2_fuzz_llp *llp;
	struct siw2_cep *cep;

	mutex_lock(&qp->state_lock);
	cep = qp->cep;
	qp->cep = NULL;
	llp = siw2_qp_fuzz(qp);
	mutex_unlock(&qp->state_lock);
	if (cep) {
		siw2_cm_qp_close(cep, true);
		siw2_cep_put(cep);
	}
	/* A fuzz file finds the QP no more; it keeps the connection. */
	siw2_fuzz_llp_orphan(llp);
	xa_erase(&sdev->qp_xa, ibqp->qp_num);
	siw2_qp_close_cancel(qp);
	/*
	 * The IWCM and the endpoint may still hold the QP: they let go once
	 * the connection has closed, which the abort above makes prompt.
	 */
	siw2_qp_put(qp);
	wait_for_completion(&qp->released);

	/* Nothing may run for this QP any more (the fail work held a ref). */
	siw2_qp_dp_stop(qp);
	mutex_lock(&qp->state_lock);
	siw2_qp_flush(qp);
	/* Armed again meanwhile, perhaps: the engines are stopped now. */
	llp = siw2_qp_fuzz(qp);
	siw2_qp_set_fuzz(qp, NULL);
	mutex_unlock(&qp->state_lock);
	siw2_fuzz_llp_put(llp);
	siw2_cq_purge_qp(qp->scq, ibqp);
	if (qp->rcq != qp->scq)
		siw2_cq_purge_qp(qp->rcq, ibqp);
	siw2_qp_free_queues(qp);
	mutex_destroy(&qp->tx_lock);
	mutex_destroy(&qp->state_lock);
	siw2_obj_put(sdev, SIW2_OBJ_QP);
	return 0;
}

static int siw2_check_send_wr(struct siw2_qp *qp, const struct ib_send_wr *wr)
{
	u64 len = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > qp->cap.max_send_sge)
		return -EINVAL;
	if (wr->opcode == IB_WR_REG_MR &&
	    (!reg_wr(wr)->mr || reg_wr(wr)->mr->device != qp->base.device))
		return -EINVAL;
	/* No kernel work request carries a range length: siw2_post_commit(). */
	if (wr->opcode == IB_WR_FLUSH)
		return -EOPNOTSUPP;
	/* Nor a window to bind: only a send queue ring entry does. */
	if (siw2_wr_rules_of(wr->opcode) & SIW2_WRF_BIND)
		return -EOPNOTSUPP;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	return siw2_wr_check(qp, wr->opcode, wr->send_flags & IB_SEND_INLINE,
			     wr->num_sge, len);
}

/*
 * Inline data is copied now (IB_SEND_INLINE): the consumer may reuse the
 * buffer on return, and it need not be registered. A user QP posts from
 * its own system call, so its addresses are its own.
 */
static int siw2_copy_inline(struct siw2_qp *qp, u8 *dst,
			    const struct ib_send_wr *wr)
{
	const struct ib_sge *s;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		s = &wr->sg_list[i];
		if (qp->base.uobject) {
			if (copy_from_user(dst,
					   u64_to_user_ptr(s->addr), s->length))
				return -EFAULT;
		} else {
			memcpy(dst, (void *)(uintptr_t)s->addr, s->length);
		}
		dst += s->length;
	}
	return 0;
}

/* What a kernel RDMA Commit carries beyond its struct ib_send_wr. */
struct siw2_commit_wr {
	u32 len;		/* the range's octets */
	bool global;		/* visibility is enough (SIW2-DEC-2) */
	const struct siw2_commit_log_info *log;	/* or NULL */
};

/*
 * Fill the SQ slot @sqe (ring index @slot) from @wr; @ibuf: inline data;
 * @cw: an RDMA Commit's range and log update, else NULL.
 */
static void siw2_sqe_fill(struct siw2_qp *qp, struct siw2_sqe *sqe, u32 slot,
			  const struct ib_send_wr *wr, const u8 *ibuf,
			  const struct siw2_commit_wr *cw)
{
	u32 rules = siw2_wr_rules_of(wr->opcode);
	u32 i;

	memset(sqe, 0, qp->sq.esize);
	sqe->wr_id = wr->wr_id;
	sqe->opcode = wr->opcode;
	sqe->send_flags = wr->send_flags;
	sqe->num_sge = wr->num_sge;
	siw2_sge_copy(sqe->sge, wr->sg_list, wr->num_sge,
		      qp->cap.max_send_sge);
	for (i = 0; i < sqe->num_sge; i++)
		sqe->len += sqe->sge[i].length;
	/* The operands the opcode's rules say it has (siw2_wr.c). */
	if ((rules & SIW2_WRF_REMOTE) && (rules & SIW2_WRF_ATOMIC)) {
		sqe->raddr = atomic_wr(wr)->remote_addr;
		sqe->rkey = atomic_wr(wr)->rkey;
		siw2_wr_atomic(sqe, atomic_wr(wr)->compare_add,
			       atomic_wr(wr)->swap,
			       atomic_wr(wr)->compare_add_mask,
			       atomic_wr(wr)->swap_mask);
	} else if (rules & SIW2_WRF_REMOTE) {
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		/* An Atomic Write: its data is set when it starts. */
		siw2_wr_atomic(sqe, 0, 0, 0, 0);
	}
	/* DEC-5: the verbs' 4 octets are octets 0..3 of the 8. */
	if (rules & SIW2_WRF_IMM)
		sqe->imm = (u64)be32_to_cpu(wr->ex.imm_data) << 32;
	if (rules & SIW2_WRF_INV)
		sqe->inv_stag = wr->ex.invalidate_rkey;
	if ((rules & SIW2_WRF_COMMIT) && cw) {
		sqe->len = cw->len;
		sqe->commit_global = cw->global;
		sqe->commit_log = cw->log;
		if (cw->log)
			sqe->log = *cw->log;
	}
	if (rules & SIW2_WRF_KVERB) {
		sqe->reg_mr = to_siw2_mr(reg_wr(wr)->mr);
		sqe->reg_key = reg_wr(wr)->key;
		sqe->reg_access = reg_wr(wr)->access;
		kref_get(&sqe->reg_mr->ref);
	}
	if (wr->send_flags & IB_SEND_INLINE)
		memcpy(qp->sq_inline + slot * qp->cap.max_inline_data, ibuf,
		       sqe->len);
	sqe->state = SIW2_SQE_QUEUED;
}

/*
 * A user QP with rings posts there; a post with no work requests is its
 * doorbell (siw2-abi.h: SIW2_RING_F_BUSY). In Error the doorbell flushes
 * what was posted; in the other states before RTS, posts wait in the ring.
 */
static int siw2_sq_doorbell(struct siw2_qp *qp)
{
	siw2_stat_add(qp, SIW2_STAT_SQ_DOORBELLS, 1);
	if (READ_ONCE(qp->state) == SIW2_QP_RTS) {
		siw2_sq_ring_busy(qp, true);
		siw2_tx_doorbell(qp);
		if (READ_ONCE(qp->state) == SIW2_QP_RTS)
			return 0;
		/* It left RTS meanwhile: never leave the flag up behind it. */
		siw2_sq_ring_busy(qp, false);
	}
	if (READ_ONCE(qp->state) == SIW2_QP_ERROR) {
		mutex_lock(&qp->state_lock);
		if (qp->state == SIW2_QP_ERROR)
			siw2_dp_sq_flush(qp);
		mutex_unlock(&qp->state_lock);
	}
	return 0;
}

/* Receives in a ring wait there for a message; in Error they flush. */
static int siw2_rq_doorbell(struct siw2_qp *qp)
{
	if (READ_ONCE(qp->state) != SIW2_QP_ERROR)
		return 0;
	mutex_lock(&qp->state_lock);
	if (qp->state == SIW2_QP_ERROR)
		siw2_dp_rq_flush(qp);
	mutex_unlock(&qp->state_lock);
	return 0;
}

/*
 * Queue one checked work request (qp->sq.lock taken here). In Error it
 * completes at once, flushed. Sets *@posted when it was queued.
 */
static int siw2_sq_post(struct siw2_qp *qp, const struct ib_send_wr *wr,
			const u8 *ibuf, const struct siw2_commit_wr *cw,
			bool *posted)
{
	struct siw2_sqe *sqe;
	unsigned long flags;
	int rv = 0;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (READ_ONCE(qp->state) == SIW2_QP_ERROR) {
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		siw2_dp_wc(qp, qp->scq, wr->wr_id, IB_WC_WR_FLUSH_ERR,
			   siw2_wr_wc_opcode(wr->opcode), 0, false);
		return 0;
	}
	if (READ_ONCE(qp->state) != SIW2_QP_RTS) {
		rv = -ENOTCONN;
	} else {
		sqe = siw2_wq_tail(&qp->sq);
		if (!sqe) {
			rv = -ENOMEM;
		} else {
			siw2_sqe_fill(qp, sqe,
				      siw2_wq_slot(&qp->sq, qp->sq.count),
				      wr, ibuf, cw);
			siw2_wq_push(&qp->sq);
			*posted = true;
		}
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return rv;
}

/* Make the TX engine take what was posted. */
static void siw2_sq_posted(struct siw2_qp *qp, bool posted)
{
	/* A user QP posts from its system call: send from there. */
	if (posted && qp->base.uobject)
		siw2_tx_direct(qp);
	else if (posted)
		siw2_tx_kick(qp);
}

/**
 * siw2_post_send - queue send work requests
 * @ibqp: QP
 * @wr: chain of send work requests
 * @bad_wr: set to the first request not queued
 *
 * On a QP in Error every request completes at once with
 * IB_WC_WR_FLUSH_ERR.
 *
 * A user QP with a send queue ring takes work requests from the ring
 * only; this call is its doorbell and carries none.
 *
 * Return: 0, -ENOTCONN before RTS, -EOPNOTSUPP for an opcode siw2 does
 * not implement, -EINVAL for too many SGEs, too much inline data or a
 * request the opcode does not allow (or any request on a ring QP),
 * -EFAULT for unreadable inline data, -ENOMEM when the send queue is full.
 */
int siw2_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);
	u8 ibuf[SIW2_MAX_INLINE];
	bool posted = false;
	int rv = 0;

	if (qp->sq.ring) {
		if (!wr)
			return siw2_sq_doorbell(qp);
		*bad_wr = wr;
		return -EINVAL;
	}

	for (; wr; wr = wr->next) {
		rv = siw2_check_send_wr(qp, wr);
		if (!rv && (wr->send_flags & IB_SEND_INLINE))
			rv = siw2_copy_inline(qp, ibuf, wr);
		if (!rv)
			rv = siw2_sq_post(qp, wr, ibuf, NULL, &posted);
		if (rv)
			break;
	}
	siw2_sq_posted(qp, posted);
	if (rv)
		*bad_wr = wr;
	return rv;
}

/**
 * siw2_post_commit - post an RDMA Commit of a remote range
 * @ibqp: a kernel QP of siw2, connected to a peer that negotiated
 *	Commit (DEC-4)
 * @wr_id: the completion's wr_id
 * @rkey: the peer's STag of the range
 * @raddr: the range's first octet (tagged offset)
 * @len: octets, 0 commits nothing (DEC-12)
 * @log: NULL, or a log update: once the range is durable, the peer
 *	stores the 8 octets of @log->value at @log->raddr (8-octet aligned)
 *	of @log->rkey and makes them durable too (SIW2-DEC-1)
 * @type: SIW2_COMMIT_PERSISTENT (the range must become durable), or
 *	SIW2_COMMIT_GLOBAL alone (global visibility is enough), as the
 *	core's IB_FLUSH_* placement types
 * @send_flags: IB_SEND_SIGNALED, IB_SEND_FENCE
 *
 * The kernel's IB_WR_FLUSH has no work request structure that carries a
 * length, so kernel consumers call this instead of ib_post_send(). It
 * completes on the send CQ as IB_WC_FLUSH: IB_WC_SUCCESS once the peer
 * made the range durable (or visible, for SIW2_COMMIT_GLOBAL);
 * IB_WC_REM_ACCESS_ERR with vendor_err SIW2_COMMIT_STATUS_NOT_DURABLE
 * when a persistent Commit's range (or log word) is not in memory the
 * peer registered durable (SIW2-DEC-2); IB_WC_REM_OP_ERR with the Commit
 * Response's Status in vendor_err for any other failure. The QP stays in
 * RTS in each case (DEC-13).
 *
 * Return: 0, -EOPNOTSUPP when the peer did not negotiate Commit, -EINVAL
 * for a QP of user space, unknown flags or type, or a misaligned log
 * word, -ENOTCONN before RTS, -ENOMEM when the send queue is full.
 */
int siw2_post_commit(struct ib_qp *ibqp, u64 wr_id, u32 rkey, u64 raddr,
		     u32 len, const struct siw2_commit_log *log, u32 type,
		     int send_flags)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_id = wr_id,
			.opcode = IB_WR_FLUSH,
			.send_flags = send_flags,
		},
		.remote_addr = raddr,
		.rkey = rkey,
	};
	struct siw2_commit_log_info li = {};
	struct siw2_commit_wr cw = {
		.len = len,
		.global = !(type & SIW2_COMMIT_PERSISTENT),
		.log = log ? &li : NULL,
	};
	bool posted = false;
	int rv;

	/* Only a siw2 QP is a struct siw2_qp. */
	if (ibqp->device->ops.post_send != siw2_post_send || ibqp->uobject ||
	    (send_flags & ~(IB_SEND_SIGNALED | IB_SEND_FENCE)) ||
	    !type || (type & ~(SIW2_COMMIT_GLOBAL | SIW2_COMMIT_PERSISTENT)) ||
	    (log && (log->raddr & 7)))
		return -EINVAL;
	if (log) {
		li.stag = log->rkey;
		li.to = log->raddr;
		li.value = log->value;
	}
	rv = siw2_wr_check(qp, IB_WR_FLUSH, false, 0, len);
	if (!rv)
		rv = siw2_sq_post(qp, &wr.wr, NULL, &cw, &posted);
	siw2_sq_posted(qp, posted);
	return rv;
}
EXPORT_SYMBOL_GPL(siw2_post_commit);

/**
 * siw2_post_recv - queue receive work requests
 * @ibqp: QP
 * @wr: chain of receive work requests
 * @bad_wr: set to the first request not queued
 *
 * Receives may be posted from INIT on, before the connection exists. On a
 * QP in Error every request completes at once with IB_WC_WR_FLUSH_ERR.
 *
 * A user QP with a receive queue ring takes receives from the ring only;
 * this call is its doorbell (needed in Error only) and carries none.
 *
 * Return: 0, -EINVAL on a QP with an SRQ, in RESET or with too many SGEs
 * (or any request on a ring QP), -ENOMEM when the receive queue is full.
 */
int siw2_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);
	unsigned long flags;
	int rv = 0;

	if (qp->rq.ring) {
		if (!wr)
			return siw2_rq_doorbell(qp);
		*bad_wr = wr;
		return -EINVAL;
	}

	for (; wr; wr = wr->next) {
		if (qp->srq) {
			rv = -EINVAL;
			break;
		}
		spin_lock_irqsave(&qp->rq.lock, flags);
		if (READ_ONCE(qp->state) == SIW2_QP_ERROR) {
			spin_unlock_irqrestore(&qp->rq.lock, flags);
			siw2_dp_wc(qp, qp->rcq, wr->wr_id, IB_WC_WR_FLUSH_ERR,
				   IB_WC_RECV, 0, false);
			continue;
		}
		if (READ_ONCE(qp->ib_state) == IB_QPS_RESET)
			rv = -EINVAL;
		else
			rv = siw2_wq_post_recv(&qp->rq, wr, qp->cap.max_recv_sge);
		spin_unlock_irqrestore(&qp->rq.lock, flags);
		if (rv)
			break;
	}
	if (rv)
		*bad_wr = wr;
	return rv;
}

/**
 * siw2_iw_get_qp - find a QP by number for the IWCM
 * @ibdev: device
 * @qpn: QP number
 *
 * Called under the IWCM's spinlock: no sleeping.
 *
 * Return: the QP, or NULL.
 */
struct ib_qp *siw2_iw_get_qp(struct ib_device *ibdev, int qpn)
{
	struct siw2_qp *qp = xa_load(&to_siw2_dev(ibdev)->qp_xa, qpn);

	return qp ? &qp->base : NULL;
}

/**
 * siw2_iw_add_ref - the IWCM's reference on a QP
 * @ibqp: QP
 */
void siw2_iw_add_ref(struct ib_qp *ibqp)
{
	siw2_qp_get(to_siw2_qp(ibqp));
}

/**
 * siw2_iw_rem_ref - drop the IWCM's reference
 * @ibqp: QP
 */
void siw2_iw_rem_ref(struct ib_qp *ibqp)
{
	siw2_qp_put(to_siw2_qp(ibqp));
}

/**
 * siw2_qp_attach_cep - bind a QP to the connection being set up for it
 * @qp: QP, in Idle
 * @cep: the endpoint; the QP takes a reference
 *
 * Return: 0, or -EINVAL if the QP is not Idle or has a connection already.
 */
int siw2_qp_attach_cep(struct siw2_qp *qp, struct siw2_cep *cep)
{
	int rv = 0;

	mutex_lock(&qp->state_lock);
	if (qp->cep || qp->state != SIW2_QP_IDLE) {
		rv = -EINVAL;
	} else {
		siw2_cep_get(cep);
		qp->cep = cep;
	}
	mutex_unlock(&qp->state_lock);
	return rv;
}

/*
 * The ORQ and IRQ, as deep as the ORD and IRD the MPA exchange settled
 * (at least one entry each): sized at the maximum from the start they
 * cost a connected QP some 20 KiB more than a typical IRD of a few
 * needs. Engines stopped; a previous connection's queues go.
 */
static int siw2_qp_alloc_rd_queues(struct siw2_qp *qp,
				   const struct siw2_mpa_conn *conn)
{
	u32 ird = min_t(u32, conn->ird, SIW2_MAX_IRD);
	u32 ord = min_t(u32, conn->ord, SIW2_MAX_ORD);
	struct siw2_orqe *orq = kcalloc(max(ord, 1U), sizeof(*orq), GFP_KERNEL);
	struct siw2_irqe *irq = kcalloc(max(ird, 1U), sizeof(*irq), GFP_KERNEL);
	/* Only Read Responses go zero-copy (siw2_tx_zc_map()). */
	struct bio_vec *bvec = ird ? kcalloc(SIW2_TX_BVEC_MAX, sizeof(*bvec),
					     GFP_KERNEL) : NULL;
	/* With CRC they are copied once more (siw2_tx_build()). */
	u8 *copy = ird && conn->crc ? kvmalloc(SIW2_TX_RRESP_COPY,
					       GFP_KERNEL) : NULL;

	if (!orq || !irq || (ird && !bvec) || (ird && conn->crc && !copy)) {
		kfree(orq);
		kfree(irq);
		kfree(bvec);
		kvfree(copy);
		return -ENOMEM;
	}
	kfree(qp->orq);
	kfree(qp->irq);
	kfree(qp->tx_bvec);
	kvfree(qp->tx_rresp_copy);
	qp->orq = orq;
	qp->irq = irq;
	qp->tx_bvec = bvec;
	qp->tx_rresp_copy = copy;
	qp->ird = ird;
	qp->ord = ord;
	return 0;
}

/* siw2_qp_llp_up() and siw2_qp_fuzz_up(), under the state lock. */
static int siw2_qp_up_locked(struct siw2_qp *qp,
			     const struct siw2_mpa_conn *conn,
			     struct socket *sock, bool active)
{
	int rv = siw2_qp_alloc_rd_queues(qp, conn);

	if (!rv) {
		qp->conn = *conn;
		WRITE_ONCE(qp->read_v2, READ_ONCE(siw2_read_v2) &&
			   siw2_conn_rv(conn) == SIW2_RDMAP_V2);
		qp->sock = sock;
		siw2_dp_reset(qp);
		qp->fenced = siw2_conn_fenced(conn, active);
		siw2_tx_init(qp);
		/* A Read RTR used QN 1 MSN 1 of the Initiator (MPA2-P2P-15). */
		if (conn->p2p && conn->rtr == SIW2_RTR_READ && active)
			qp->tx.msn_next[SIW2_QN_READ_REQ] = 2;
		siw2_rx_init(qp,
			     conn->p2p && conn->rtr == SIW2_RTR_READ && !active);
		WRITE_ONCE(qp->dp_on, true);
		siw2_qp_set_state(qp, IB_QPS_RTS);
	}
	return rv;
}

/**
 * siw2_qp_llp_up - the connection is in RDMA mode: the QP enters RTS
 * @qp: QP
 * @cep: its endpoint
 * @conn: what the MPA exchange settled; IRD/ORD replace the QP's
 * @sock: the connection's socket; the endpoint keeps owning it and
 *	calls siw2_qp_llp_down() before releasing it
 * @active: this side sent the MPA Request
 *
 * Starts the data path. A client-server Responder sends nothing before
 * the Initiator's first FPDU (siw2_conn_fenced()).
 *
 * Return: 0, -ECONNABORTED if the QP left Idle or was detached (its
 * consumer moved it to Error or destroyed it meanwhile), or -ENOMEM.
 */
int siw2_qp_llp_up(struct siw2_qp *qp, struct siw2_cep *cep,
		   const struct siw2_mpa_conn *conn, struct socket *sock,
		   bool active)
{
	int rv;

	mutex_lock(&qp->state_lock);
	if (qp->cep != cep || qp->state != SIW2_QP_IDLE)
		rv = -ECONNABORTED;
	else
		rv = siw2_qp_up_locked(qp, conn, sock, active);
	mutex_unlock(&qp->state_lock);
	if (!rv) {
		/* FPDUs may be queued already, behind the MPA exchange. */
		siw2_rx_kick(qp);
		siw2_tx_kick(qp);
	}
	return rv;
}

/**
 * siw2_qp_llp_down - the connection has ended: the QP enters Error
 * @qp: QP
 * @cep: the endpoint that ended; detached if still attached
 *
 * Stops the data path (the endpoint releases the socket afterwards);
 * outstanding work completes with IB_WC_WR_FLUSH_ERR (RFC 5040 6.2).
 */
void siw2_qp_llp_down(struct siw2_qp *qp, struct siw2_cep *cep)
{
	bool put = false;

	mutex_lock(&qp->state_lock);
	/* What arrived before the close is still processed: a Terminate, say. */
	if (READ_ONCE(qp->dp_on) && !test_bit(0, &qp->dp_failed)) {
		siw2_rx_kick(qp);
		flush_work(&qp->rx_work);
	}
	siw2_qp_dp_stop(qp);
	siw2_qp_close_cancel(qp);
	if (cep && qp->cep == cep) {
		qp->cep = NULL;
		put = true;
	}
	/*
	 * A failure the engines reported in RTS or Closing gets its event
	 * from siw2_qp_fail_work() even if this close overtakes that work.
	 */
	if (test_bit(0, &qp->dp_failed) &&
	    (qp->state == SIW2_QP_RTS || qp->state == SIW2_QP_CLOSING))
		qp->fail_owed = true;
	if (qp->state != SIW2_QP_ERROR)
		siw2_qp_enter_error(qp);
	qp->sock = NULL;
	mutex_unlock(&qp->state_lock);
	if (put)
		siw2_cep_put(cep);
}

#ifdef SIW2_FUZZ
/**
 * siw2_qp_fuzz_up - SIW2_FUZZ builds: RTS on a connection without TCP
 * @qp: QP, Idle and without an endpoint
 * @llp: the connection (siw2_fuzz_llp.c); the QP takes a reference
 * @conn: the MPA exchange's outcome to act on, as siw2_qp_llp_up()
 *
 * siw2 is the Responder of a client-server connection: fenced until the
 * first FPDU arrives, as after a real exchange.
 *
 * Return: 0, -EBUSY if the QP is not Idle or has a connection, -ENOMEM.
 */
int siw2_qp_fuzz_up(struct siw2_qp *qp, struct siw2_fuzz_llp *llp,
		    const struct siw2_mpa_conn *conn)
{
	int rv = -EBUSY;

	mutex_lock(&qp->state_lock);
	if (!qp->cep && !qp->fuzz && qp->state == SIW2_QP_IDLE) {
		qp->fuzz = llp;
		rv = siw2_qp_up_locked(qp, conn, NULL, false);
		if (rv)
			qp->fuzz = NULL;
		else
			siw2_fuzz_llp_get(llp);
	}
	mutex_unlock(&qp->state_lock);
	return rv;
}

/**
 * siw2_qp_fuzz_down - SIW2_FUZZ builds: the connection without TCP ends
 * @qp: QP
 *
 * As a close of its socket: input already queued is processed, then the
 * QP enters Error and lets go of the connection.
 */
void siw2_qp_fuzz_down(struct siw2_qp *qp)
{
	struct siw2_fuzz_llp *llp;

	siw2_qp_llp_down(qp, NULL);
	mutex_lock(&qp->state_lock);
	llp = qp->fuzz;
	qp->fuzz = NULL;
	mutex_unlock(&qp->state_lock);
	siw2_fuzz_llp_put(llp);
}
#endif
