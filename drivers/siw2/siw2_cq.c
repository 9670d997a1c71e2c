// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: completion queues.
 *
 * A CQ is a ring of struct ib_wc under a spinlock. Producers (the QP
 * paths) may run in any context, so the lock is taken irqsave.
 */

#include <linux/overflow.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>

#include <uapi/rdma/siw2-abi.h>

#include "siw2.h"

static atomic_t siw2_cq_ids = ATOMIC_INIT(0);

static int siw2_cq_check_depth(int cqe)
{
	return cqe < 1 || cqe > SIW2_MAX_CQE ? -EINVAL : 0;
}

/**
 * siw2_create_cq - create a completion queue
 * @ibcq: core-allocated CQ
 * @attr: depth, vector and flags
 * @attrs: uverbs bundle, NULL for kernel callers
 *
 * Return: 0, -EINVAL for a depth outside [1, max_cqe], an unknown vector
 * or flags, -ENOMEM over the CQ limit or without memory, -EFAULT.
 */
int siw2_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
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

	cq->wc = kvcalloc(attr->cqe, sizeof(*cq->wc), GFP_KERNEL);
	if (!cq->wc) {
		rv = -ENOMEM;
		goto err;
	}
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	cq->id = atomic_inc_return(&siw2_cq_ids);
	ibcq->cqe = attr->cqe;

	resp.cq_id = cq->id;
	resp.num_cqe = cq->size;
	rv = siw2_udata_respond(udata, &resp, sizeof(resp));
	if (rv)
		goto err_free;
	return 0;

err_free:
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

	kvfree(cq->wc);
	siw2_obj_put(to_siw2_dev(ibcq->device), SIW2_OBJ_CQ);
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
 * Return: the number of completions taken.
 */
int siw2_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct siw2_cq *cq = to_siw2_cq(ibcq);
	unsigned long flags;
	int n;

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
	/* A solicited-only request never weakens an armed "any" request. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		rv = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return rv;
}

/**
 * siw2_cq_add - queue one completion and notify an armed consumer
 * @cq: CQ
 * @wc: the completion
 * @solicited: the completion satisfies a solicited-only request
 *
 * A full CQ is the consumer's sizing error (IB spec: CQ overrun); the
 * completion is lost and the consumer gets IB_EVENT_CQ_ERR.
 */
void siw2_cq_add(struct siw2_cq *cq, const struct ib_wc *wc, bool solicited)
{
	unsigned long flags;
	bool notify = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count == cq->size) {
		spin_unlock_irqrestore(&cq->lock, flags);
		if (cq->base.event_handler) {
			struct ib_event event = {
				.device = cq->base.device,
				.event = IB_EVENT_CQ_ERR,
				.element.cq = &cq->base,
			};

			cq->base.event_handler(&event, cq->base.cq_context);
		}
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

	spin_lock_irqsave(&cq->lock, flags);
	for (i = 0; i < cq->count; i++) {
		struct ib_wc *wc = &cq->wc[(cq->head + i) % cq->size];

		if (wc->qp != qp)
			cq->wc[(cq->head + kept++) % cq->size] = *wc;
	}
	cq->count = kept;
	spin_unlock_irqrestore(&cq->lock, flags);
}
