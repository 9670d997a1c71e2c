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

/* A siw2 QP whose builders are siw2's own (send queue ring), or NULL. */
static struct siw2_qp *dv_qpx(struct ibv_qp_ex *qpx)
{
	struct siw2_qp *qp;

	if (!qpx || !siw2dv_is_siw2_context(qpx->qp_base.context))
		return NULL;
	qp = to_sqp_ex(qpx);
	return qp->sq.map ? qp : NULL;
}

SIW2_EXPORT void siw2dv_wr_send_imm64(struct ibv_qp_ex *qpx, uint64_t imm)
{
	if (dv_qpx(qpx))
		siw2_wr_imm64(qpx, IBV_WR_SEND_WITH_IMM, 0, 0, 0, imm);
}

SIW2_EXPORT void siw2dv_wr_send_inv_imm(struct ibv_qp_ex *qpx,
					uint32_t invalidate_rkey, uint64_t imm)
{
	if (dv_qpx(qpx))
		siw2_wr_imm64(qpx, SIW2_WR_SEND_WITH_INV_IMM, 0, 0,
			      invalidate_rkey, imm);
}

SIW2_EXPORT void siw2dv_wr_rdma_write_imm64(struct ibv_qp_ex *qpx,
					    uint32_t rkey,
					    uint64_t remote_addr, uint64_t imm)
{
	if (dv_qpx(qpx))
		siw2_wr_imm64(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey,
			      remote_addr, 0, imm);
}

SIW2_EXPORT int siw2dv_cq_read_imm(struct ibv_cq_ex *cqx, uint64_t *imm,
				   uint32_t *inv_rkey)
{
	const struct siw2_cqe *e;

	if (!cqx || !imm ||
	    !siw2dv_is_siw2_context(ibv_cq_ex_to_cq(cqx)->context))
		return EINVAL;
	e = to_scq_ex(cqx)->cur;
	if (!e)
		return EINVAL;
	if (inv_rkey)
		*inv_rkey = e->flags & SIW2_CQE_WITH_INV ? e->inv_stag : 0;
	*imm = e->flags & SIW2_CQE_WITH_IMM ? e->imm : 0;
	return e->flags & SIW2_CQE_WITH_IMM ? 0 : ENOENT;
}

SIW2_EXPORT void siw2dv_wr_commit(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, uint32_t len)
{
	if (dv_qpx(qpx))
		siw2_wr_commit(qpx, rkey, remote_addr, len,
			       SIW2DV_COMMIT_PERSISTENT, NULL);
}

SIW2_EXPORT void siw2dv_wr_commit_log(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint32_t len,
				      uint32_t log_rkey, uint64_t log_addr,
				      uint64_t value)
{
	const struct siw2dv_commit_log log = {
		.rkey = log_rkey, .addr = log_addr, .value = value,
	};

	if (dv_qpx(qpx))
		siw2_wr_commit(qpx, rkey, remote_addr, len,
			       SIW2DV_COMMIT_PERSISTENT, &log);
}

SIW2_EXPORT void siw2dv_wr_commit_ex(struct ibv_qp_ex *qpx, uint32_t rkey,
				     uint64_t remote_addr, uint32_t len,
				     unsigned int type,
				     const struct siw2dv_commit_log *log)
{
	if (dv_qpx(qpx))
		siw2_wr_commit(qpx, rkey, remote_addr, len, type, log);
}

SIW2_EXPORT void siw2dv_wr_masked_atomic_fetch_add(struct ibv_qp_ex *qpx,
						   uint32_t rkey,
						   uint64_t remote_addr,
						   uint64_t add,
						   uint64_t add_mask)
{
	if (dv_qpx(qpx))
		siw2_wr_masked_atomic(qpx,
				      IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD,
				      rkey, remote_addr, add, add_mask, 0, 0);
}

SIW2_EXPORT void siw2dv_wr_masked_atomic_cmp_swp(struct ibv_qp_ex *qpx,
						 uint32_t rkey,
						 uint64_t remote_addr,
						 uint64_t compare,
						 uint64_t compare_mask,
						 uint64_t swap,
						 uint64_t swap_mask)
{
	if (dv_qpx(qpx))
		siw2_wr_masked_atomic(qpx,
				      IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP,
				      rkey, remote_addr, compare, compare_mask,
				      swap, swap_mask);
}
