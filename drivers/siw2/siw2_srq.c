// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: shared receive queues.
 */

#include <rdma/uverbs_ioctl.h>

#include <uapi/rdma/siw2-abi.h>

#include "siw2.h"

/* IBA 11.2.3: the limit must be below the queue depth; 0 disarms. */
static int siw2_srq_check_limit(u32 limit, u32 max_wr)
{
	return limit >= max_wr ? -EINVAL : 0;
}

/**
 * siw2_create_srq - create a shared receive queue
 * @ibsrq: core-allocated SRQ
 * @attr: depth, SGEs per receive, limit
 * @udata: response: struct siw2_uresp_create_srq
 *
 * Return: 0, -EOPNOTSUPP for a non-basic SRQ, -EINVAL for a depth outside
 * [1, max_srq_wr], too many SGEs or a limit not below the depth, -ENOMEM
 * over the SRQ limit or without memory, -EFAULT.
 */
int siw2_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata)
{
	struct siw2_ucontext *uctx = siw2_udata_uctx(udata);
	struct siw2_device *sdev = to_siw2_dev(ibsrq->device);
	struct siw2_srq *srq = to_siw2_srq(ibsrq);
	struct ib_srq_attr *a = &attr->attr;
	struct siw2_uresp_create_srq resp = {};
	bool rings = uctx && uctx->rings;
	int rv;

	if (attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->max_wr || a->max_wr > SIW2_MAX_SRQ_WR ||
	    a->max_sge > SIW2_MAX_SRQ_SGE)
		return -EINVAL;
	rv = siw2_srq_check_limit(a->srq_limit, a->max_wr);
	if (!rv)
		rv = siw2_udata_no_input(udata);
	if (rv)
		return rv;
	rv = siw2_obj_get(sdev, SIW2_OBJ_SRQ);
	if (rv)
		return rv;

	/* Ring indices wrap at 2^32: a power-of-two depth. */
	if (rings)
		a->max_wr = siw2_ring_slots(a->max_wr);
	rv = siw2_wq_init(&srq->rq, a->max_wr, siw2_rqe_size(a->max_sge));
	if (rv)
		goto err;
	srq->max_sge = a->max_sge;
	srq->limit = a->srq_limit;
	if (rings) {
		rv = siw2_srq_ring_create(srq, uctx, &resp);
		if (rv)
			goto err_free;
	}

	resp.num_rqe = a->max_wr;
	rv = siw2_udata_respond(udata, &resp, sizeof(resp));
	if (rv)
		goto err_free;
	return 0;

err_free:
	siw2_ring_destroy(srq->rq.ring);
	siw2_wq_free(&srq->rq);
err:
	siw2_obj_put(sdev, SIW2_OBJ_SRQ);
	return rv;
}

/**
 * siw2_modify_srq - arm the SRQ limit event
 * @ibsrq: SRQ
 * @attr: new attributes
 * @mask: IB_SRQ_LIMIT; resizing (IB_SRQ_MAX_WR) is not supported
 * @udata: user data
 *
 * Return: 0, -EOPNOTSUPP for a resize, -EINVAL for a limit not below the
 * depth.
 */
int siw2_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct siw2_srq *srq = to_siw2_srq(ibsrq);
	unsigned long flags;
	int rv;

	if (mask & ~IB_SRQ_LIMIT)
		return -EOPNOTSUPP;
	rv = siw2_udata_no_input(udata);
	if (rv || !(mask & IB_SRQ_LIMIT))
		return rv;
	rv = siw2_srq_check_limit(attr->srq_limit, srq->rq.size);
	if (rv)
		return rv;
	spin_lock_irqsave(&srq->rq.lock, flags);
	srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return 0;
}

/**
 * siw2_query_srq - report depth, SGEs and the armed limit
 * @ibsrq: SRQ
 * @attr: filled in
 *
 * Return: 0
 */
int siw2_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct siw2_srq *srq = to_siw2_srq(ibsrq);

	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

/**
 * siw2_destroy_srq - destroy an SRQ (the core checks no QP uses it)
 * @ibsrq: SRQ
 * @udata: user data
 *
 * Return: 0
 */
int siw2_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct siw2_srq *srq = to_siw2_srq(ibsrq);

	siw2_ring_destroy(srq->rq.ring);
	siw2_wq_free(&srq->rq);
	siw2_obj_put(to_siw2_dev(ibsrq->device), SIW2_OBJ_SRQ);
	return 0;
}

/**
 * siw2_post_srq_recv - queue receives on an SRQ
 * @ibsrq: SRQ
 * @wr: chain of receive work requests
 * @bad_wr: set to the first request not queued
 *
 * A user SRQ with a ring takes receives from the ring only, when a
 * message needs one: it has no doorbell, and this call carries none.
 *
 * Return: 0, -EINVAL for too many SGEs (or any request on a ring SRQ),
 * -ENOMEM when the SRQ is full.
 */
int siw2_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr)
{
	struct siw2_srq *srq = to_siw2_srq(ibsrq);
	unsigned long flags;
	int rv = 0;

	if (srq->rq.ring && wr) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&srq->rq.lock, flags);
	for (; wr; wr = wr->next) {
		rv = siw2_wq_post_recv(&srq->rq, wr, srq->max_sge);
		if (rv)
			break;
	}
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	if (rv)
		*bad_wr = wr;
	return rv;
}
