// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2 rdma-core provider: the siw2dv.h functions, the only symbols the
 * library exports (siw2.map).
 */
#include <errno.h>
#include <string.h>

#include "siw2.h"
#include "siw2dv.h"

SIW2_EXPORT bool siw2dv_is_siw2_context(struct ibv_context *ctx)
{
	return ctx && siw2_is_own_device(ctx->device);
}

SIW2_EXPORT int siw2dv_query_qp(struct ibv_qp *ibqp,
				struct siw2dv_qp_attr *attr)
{
	struct siw2_qp *qp;

	if (!ibqp || !attr)
		return EINVAL;
	if (!siw2dv_is_siw2_context(ibqp->context))
		return EOPNOTSUPP;
	qp = to_sqp(ibqp);
	/* No optional fields yet: none of the wanted ones is filled. */
	attr->comp_mask = 0;
	attr->rings = !!qp->sq.map;
	memset(attr->reserved, 0, sizeof(attr->reserved));
	attr->sq_slots = qp->num_sqe;
	attr->rq_slots = qp->num_rqe;
	attr->max_inline = qp->max_inline;
	/* Other threads may be posting: one untorn read. */
	attr->doorbells = __atomic_load_n(&qp->doorbells, __ATOMIC_RELAXED);
	return 0;
}
