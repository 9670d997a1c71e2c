// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: completion queues.
 *
 * A kernel CQ is a ring of struct ib_wc under a spinlock. A user CQ is a
 * ring of struct siw2_cqe shared with the process (siw2_ring.c), which
 * polls and arms it without system calls; the kernel only produces.
 * Producers (the QP paths) may run in any context, so the lock is taken
 * irqsave.
 */

#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include <uapi/rdma/siw2-abi.h>

#include "siw2.h"
#include "siw2_trace.h"

static atomic_t siw2_cq_ids = ATOMIC_INIT(0);

static int siw2_cq_check_depth(int cqe)
{
	return cqe < 1 || cqe > SIW2_MAX_CQE ? -EINVAL : 0;
}

/**
 * siw2_create_cq - create a completion queue
 * @ibcq: core-allocated CQ
 * @attr: depth, vector and flags
 * @attrs: uverbs bundle (before 6.11 its udata: siw2_compat.h), NULL for
 *	   kernel callers
 *
 * Return: 0, -EINVAL for a depth outside [1, max_cqe], an unknown vector
 * or flags, -ENOMEM over the CQ limit or without memory, -EFAULT.
 */
int siw2_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct siw2_cq_attrs *attrs)
{
	struct ib_udata *udata = siw2_cq_udata(attrs);
	struct siw2_ucontext *uctx = siw2_udata_uctx(udata);
	struct siw2_device *sdev = to_siw2_dev(ibcq->device);
	struct siw2_cq *cq = to_siw2_cq(ibcq);
	struct siw2_uresp_create_cq resp = {};
	int rv;

	if (attr->flags)
		return -EOPNOTSUPP;
	rv = siw2_cq_check_depth(attr->cqe);
	if (rv)
		return rv;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	rv = siw2_udata_no_input(udata);
	if (rv)
		return rv;
	rv = siw2_obj_get(sdev, SIW2_OBJ_CQ);
	if (rv)
		return rv;

	spin_lock_init(&cq->lock);
	if (uctx && uctx->rings) {
		cq->size = siw2_ring_slots(attr->cqe);
		cq->ring = siw2_ring_create(&uctx->base, cq->size,
					    sizeof(struct siw2_cqe));
		if (IS_ERR(cq->ring)) {
			rv = PTR_ERR(cq->ring);
			cq->ring = NULL;
			goto err;
		}
		resp.ring_offset = siw2_ring_offset(cq->ring);
		resp.ring_slots = cq->size;
		resp.ring_stride = sizeof(struct siw2_cqe);
	} else {
		cq->wc = kvcalloc(attr->cqe, sizeof(*cq->wc), GFP_KERNEL);
		if (!cq->wc) {
			rv = -ENOMEM;
			goto err;
		}
		cq->size = attr->cqe;
	}
	cq->id = atomic_inc_return(&siw2_cq_ids);
	ibcq->cqe = cq->size;

	resp.cq_id = cq->id;
	resp.num_cqe = cq->size;
	rv = siw2_udata_respond(udata, &resp, sizeof(resp));
	if (rv)
		goto err_free;
	return 0;

err_free:
	siw2_ring_destroy(cq->ring);
	kvfree(cq->wc);
err:
	siw2_obj_put(sdev, SIW2_OBJ_CQ);
	return rv;
}

/**
 * siw2_destroy_cq - destroy a completion queue (the core checks it is unused)
 * @ibcq: CQ
 * @udata: user data
 *
 * Return: 0
 */
int siw2_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct siw2_cq *cq = to_siw2_cq(ibcq);

	siw2_ring_destroy(cq->ring);
	kvfree(cq->wc);
	siw2_obj_put(to_siw2_dev(ibcq->device), SIW2_OBJ_CQ);
	return 0;
}

/*
 * Completions queued in a ring CQ, by the process's consumer index. A
 * consumer index the kernel never produced reads as a full CQ: a lying
 * process overflows only its own CQ.
 */
static u32 siw2_cq_ring_count(struct siw2_cq *cq)
{
	u32 n = cq->ring_prod - READ_ONCE(cq->ring->ctl->cons);

	return n > cq->size ? cq->size : n;
}

/* A user CQ's resize: the queued completions move to a new ring. */
static int siw2_cq_ring_resize(struct siw2_cq *cq, u32 cqe,
			       struct siw2_ucontext *uctx,
			       struct siw2_uresp_resize_cq *resp)
{
	u32 slots = siw2_ring_slots(cqe), n, i, cons, notify;
	struct siw2_ring *new, *old;
	unsigned long flags;

	new = siw2_ring_create(&uctx->base, slots, sizeof(struct siw2_cqe));
	if (IS_ERR(new))
		return PTR_ERR(new);
	spin_lock_irqsave(&cq->lock, flags);
	old = cq->ring;
	cons = READ_ONCE(old->ctl->cons);
	n = cq->ring_prod - cons;
	/* As for kernel CQs: the depth asked for must hold what is queued. */
	if (n > cq->size || n > cqe) {
		spin_unlock_irqrestore(&cq->lock, flags);
		siw2_ring_destroy(new);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		memcpy(siw2_ring_at(new, i), siw2_ring_at(old, cons + i),
		       sizeof(struct siw2_cqe));
	notify = READ_ONCE(old->ctl->notify);
	if (notify == SIW2_NOTIFY_SOLICITED || notify == SIW2_NOTIFY_NEXT)
		new->ctl->notify = notify;
	/* The copied entries before the index the process reads. */
	smp_store_release(&new->ctl->prod, n);
	cq->ring = new;
	cq->ring_prod = n;
	cq->size = slots;
	cq->base.cqe = slots;
	spin_unlock_irqrestore(&cq->lock, flags);
	siw2_ring_destroy(old);

	resp->num_cqe = slots;
	resp->ring_slots = slots;
	resp->ring_stride = sizeof(struct siw2_cqe);
	resp->ring_offset = siw2_ring_offset(new);
	return 0;
}

/**
 * siw2_resize_cq - change a CQ's depth, keeping queued completions in order
 * @ibcq: CQ
 * @cqe: new depth
 * @udata: response: struct siw2_uresp_resize_cq
 *
 * Return: 0, -EINVAL for a depth outside [1, max_cqe] or below the number
 * of queued completions, -ENOMEM, -EFAULT.
 */
int siw2_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct siw2_cq *cq = to_siw2_cq(ibcq);
	struct siw2_uresp_resize_cq resp = {};
	struct ib_wc *new, *old;
	unsigned long flags;
	u32 i;
	int rv;

	rv = siw2_cq_check_depth(cqe);
	if (rv)
		return rv;
	rv = siw2_udata_no_input(udata);
	if (rv)
		return rv;
	if (cq->ring) {
		rv = siw2_cq_ring_resize(cq, cqe, siw2_udata_uctx(udata), &resp);
		if (rv)
			return rv;
		return siw2_udata_respond(udata, &resp, sizeof(resp));
	}
	new = kvcalloc(cqe, sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count > cqe) {
		spin_unlock_irqrestore(&cq->lock, flags);
		kvfree(new);
		return -EINVAL;
	}
	for (i = 0; i < cq->count; i++)
		new[i] = cq->wc[(cq->head + i) % cq->size];
	old = cq->wc;
	cq->wc = new;
	cq->size = cqe;
	cq->head = 0;
	ibcq->cqe = cqe;
	spin_unlock_irqrestore(&cq->lock, flags);
	kvfree(old);

	resp.num_cqe = cqe;
	return siw2_udata_respond(udata, &resp, sizeof(resp));
}

/**
 * siw2_poll_cq - take up to @num_entries completions, oldest first
 * @ibcq: CQ
 * @num_entries: capacity of @wc
 * @wc: filled in
 *
 * A user CQ with a ring is polled in user space only.
 *
 * Return: the number of completions taken, or -EOPNOTSUPP for a ring CQ.
 */
int siw2_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct siw2_cq *cq = to_siw2_cq(ibcq);
	unsigned long flags;
	int n;

	if (cq->ring)
		return -EOPNOTSUPP;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num_entries && cq->count; n++) {
		wc[n] = cq->wc[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * siw2_req_notify_cq - arm the CQ for the next (solicited) completion
 * @ibcq: CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally
 *	   IB_CQ_REPORT_MISSED_EVENTS
 *
 * Return: 1 if missed events were asked for and completions are queued,
 * else 0.
 */
int siw2_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct siw2_cq *cq = to_siw2_cq(ibcq);
	unsigned long irqflags;
	int rv = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->ring) {
		/* What the process would write into its ring. */
		u32 *n = &cq->ring->ctl->notify;

		if (READ_ONCE(*n) != SIW2_NOTIFY_NEXT)
			WRITE_ONCE(*n, (flags & IB_CQ_SOLICITED_MASK) ==
					       IB_CQ_SOLICITED ?
					       SIW2_NOTIFY_SOLICITED :
					       SIW2_NOTIFY_NEXT);
		if ((flags & IB_CQ_REPORT_MISSED_EVENTS) &&
		    siw2_cq_ring_count(cq))
			rv = 1;
		spin_unlock_irqrestore(&cq->lock, irqflags);
		return rv;
	}
	/* A solicited-only request never weakens an armed "any" request. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		rv = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return rv;
}

static void siw2_cq_overrun(struct siw2_cq *cq)
{
	struct ib_event event = {
		.device = cq->base.device,
		.event = IB_EVENT_CQ_ERR,
		.element.cq = &cq->base,
	};

	if (cq->base.event_handler)
		cq->base.event_handler(&event, cq->base.cq_context);
}

/*
 * The uverbs number of a completion opcode.  uverbs has no masked atomics:
 * siw2dv's report as the plain ones.  Flush and Atomic Write have numbers
 * of their own before 6.2 (siw2_compat.h); from 6.2 on both are the same.
 */
static u8 siw2_cqe_opcode(enum ib_wc_opcode op)
{
	switch ((int)op) {
	case IB_WC_MASKED_COMP_SWAP:
		return IB_UVERBS_WC_COMP_SWAP;
	case IB_WC_MASKED_FETCH_ADD:
		return IB_UVERBS_WC_FETCH_ADD;
	case IB_WC_FLUSH:
		return IB_UVERBS_WC_FLUSH;
	case IB_WC_ATOMIC_WRITE:
		return IB_UVERBS_WC_ATOMIC_WRITE;
	default:
		return op;
	}
}

/*
 * Write one completion into a user CQ's ring (cq->lock held). Return:
 * false when the ring is full, else whether the process armed for it.
 */
static bool siw2_cq_ring_add(struct siw2_cq *cq, const struct ib_wc *wc,
			     const struct siw2_wc_ext *x, bool solicited,
			     bool *full)
{
	struct siw2_ring_ctl *ctl = cq->ring->ctl;
	struct siw2_cqe *e;
	u32 armed;

	lockdep_assert_held(&cq->lock);

	*full = siw2_cq_ring_count(cq) >= cq->size;
	if (*full)
		return false;
	e = siw2_ring_at(cq->ring, cq->ring_prod);
	e->wr_id = wc->wr_id;
	e->opcode = siw2_cqe_opcode(wc->opcode);
	e->status = wc->status;
	e->flags = (wc->wc_flags & IB_WC_WITH_IMM ? SIW2_CQE_WITH_IMM : 0) |
		   (wc->wc_flags & IB_WC_WITH_INVALIDATE ?
			    SIW2_CQE_WITH_INV : 0);
	e->rsvd = 0;
	e->byte_len = wc->byte_len;
	e->qp_num = wc->qp->qp_num;
	e->ex = wc->wc_flags & IB_WC_WITH_INVALIDATE ?
			wc->ex.invalidate_rkey : (__force u32)wc->ex.imm_data;
	e->vendor_err = wc->vendor_err;
	e->inv_stag = wc->wc_flags & IB_WC_WITH_INVALIDATE ?
		      wc->ex.invalidate_rkey : 0;
	e->imm = 0;
	if (x && x->with_imm) {
		/* Both values, where struct ib_wc holds only one. */
		e->flags |= SIW2_CQE_WITH_IMM;
		e->ex = (__force u32)cpu_to_be32(x->imm >> 32);
		e->imm = x->imm;
	}
	/* The entry before the index (pairs with the process's acquire). */
	smp_store_release(&ctl->prod, ++cq->ring_prod);
	/*
	 * The index before the arm flag: the process arms, then polls again
	 * (with a full barrier between); one of us sees the other.
	 */
	smp_mb();
	armed = READ_ONCE(ctl->notify);
	if (armed != SIW2_NOTIFY_NEXT &&
	    !(armed == SIW2_NOTIFY_SOLICITED && solicited))
		return false;
	return cmpxchg(&ctl->notify, armed, SIW2_NOTIFY_NONE) == armed;
}

/**
 * siw2_cq_add - queue one completion and notify an armed consumer
 * @cq: CQ
 * @wc: the completion
 * @x: what a user CQE carries beyond @wc (8-byte immediate), or NULL
 * @solicited: the completion satisfies a solicited-only request
 *
 * A full CQ is the consumer's sizing error (IB spec: CQ overrun); the
 * completion is lost and the consumer gets IB_EVENT_CQ_ERR.
 */
void siw2_cq_add(struct siw2_cq *cq, const struct ib_wc *wc,
		 const struct siw2_wc_ext *x, bool solicited)
{
	unsigned long flags;
	bool notify = false, full;

	trace_siw2_dp_cqe(cq->id, wc->qp ? wc->qp->qp_num : 0, wc->opcode,
			  wc->status, wc->byte_len);
	spin_lock_irqsave(&cq->lock, flags);
	if (cq->ring) {
		notify = siw2_cq_ring_add(cq, wc, x, solicited, &full);
		spin_unlock_irqrestore(&cq->lock, flags);
		if (full)
			siw2_cq_overrun(cq);
		goto out;
	}
	if (cq->count == cq->size) {
		spin_unlock_irqrestore(&cq->lock, flags);
		siw2_cq_overrun(cq);
		return;
	}
	cq->wc[(cq->head + cq->count) % cq->size] = *wc;
	cq->count++;
	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && solicited)) {
		cq->notify = 0;
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
out:
	if (notify && cq->base.comp_handler)
		cq->base.comp_handler(&cq->base, cq->base.cq_context);
}

/**
 * siw2_cq_purge_qp - drop the completions of a QP being destroyed
 * @cq: CQ
 * @qp: the QP
 *
 * Queued completions point at their QP; once it is gone they could not be
 * reported safely, so they go with it.
 */
void siw2_cq_purge_qp(struct siw2_cq *cq, struct ib_qp *qp)
{
	unsigned long flags;
	u32 i, kept = 0;

	/* A ring's entries name the QP by number only. */
	if (cq->ring)
		return;
	spin_lock_irqsave(&cq->lock, flags);
	for (i = 0; i < cq->count; i++) {
		struct ib_wc *wc = &cq->wc[(cq->head + i) % cq->size];

		if (wc->qp != qp)
			cq->wc[(cq->head + kept++) % cq->size] = *wc;
	}
	cq->count = kept;
	spin_unlock_irqrestore(&cq->lock, flags);
}
