// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2 rdma-core provider: verbs. Control verbs are uverbs commands; CQs,
 * send and receive queues and SRQs are rings shared with the kernel when
 * it offers them (create responses name them), and posting and polling
 * then happen in siw2_ring.c without system calls. Without rings (module
 * parameter user_rings=0) every verb is a uverbs command.
 *
 * Conventions expected by libibverbs: create/alloc verbs return NULL and
 * set errno; destroy/modify/query/post verbs return an errno value.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "siw2.h"
#include "siw2dv.h"

static int siw2_query_device(struct ibv_context *ctx,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	char *fw = attr->orig_attr.fw_ver;
	int ret;

	ret = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;
	/* The numeric fw_ver is meaningless; report the sysfs string. */
	if (siw2_read_fw_ver(ctx->device->ibdev_path, fw,
			     sizeof(attr->orig_attr.fw_ver)))
		strcpy(fw, SIW2_FW_VER_MARKER "unknown");
	return 0;
}

static int siw2_query_port(struct ibv_context *ctx, uint8_t port,
			   struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *siw2_alloc_pd(struct ibv_context *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	ret = ibv_cmd_alloc_pd(ctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int siw2_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(pd);
	return ret;
}

#define SIW2_ACCESS_FLUSH \
	(SIW2DV_ACCESS_FLUSH_GLOBAL | SIW2DV_ACCESS_FLUSH_PERSISTENT)

static struct ibv_mr *siw2_reg_mr(struct ibv_pd *pd, void *addr, size_t len,
				  uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct siw2_reg_mr_cmd cmd = {};
	struct siw2_mr *mr;
	int ret;

	/* A core that would refuse them: they travel as siw2's own data. */
	if (to_sctx(pd->context)->caps & SIW2_UCTX_CAP_MR_FLUSH_UDATA) {
		cmd.drv.access_flush = access & SIW2_ACCESS_FLUSH;
		access &= ~SIW2_ACCESS_FLUSH;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	ret = ibv_cmd_reg_mr(pd, addr, len, hca_va, access, &mr->vmr,
			     &cmd.ibv_cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->vmr.ibv_mr;
}

static int siw2_dereg_mr(struct verbs_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(to_smr(vmr));
	return ret;
}

/*
 * Memory windows are type 2 (2A): bound by a work request on a send queue
 * (IBV_WR_BIND_MW, siw2_ring.c), for the peer's access only. ibv_bind_mw(),
 * for type 1, keeps libibverbs' EOPNOTSUPP.
 */
static struct ibv_mw *siw2_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_2) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int siw2_dealloc_mw(struct ibv_mw *mw)
{
	int ret = ibv_cmd_dealloc_mw(mw);

	if (!ret)
		free(mw);
	return ret;
}

/* A CQ of either kind: the basic create_cq command, the ring mapped. */
static struct siw2_cq *create_cq(struct ibv_context *ctx, int cqe,
				 struct ibv_comp_channel *channel,
				 int comp_vector)
{
	struct siw2_create_cq_resp resp = {};
	struct ibv_create_cq cmd = {};
	struct siw2_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	cq->id = resp.drv.cq_id;
	cq->num_cqe = resp.drv.num_cqe;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (resp.drv.ring_slots) {
		ret = siw2_uring_map(ctx, &cq->ring, resp.drv.ring_offset,
				     resp.drv.ring_slots, resp.drv.ring_stride);
		if (ret) {
			ibv_cmd_destroy_cq(&cq->vcq.cq);
			pthread_spin_destroy(&cq->lock);
			free(cq);
			errno = ret;
			return NULL;
		}
	}
	siw2_cq_ex_init(cq);
	return cq;
}

static struct ibv_cq *siw2_create_cq(struct ibv_context *ctx, int cqe,
				     struct ibv_comp_channel *channel,
				     int comp_vector)
{
	struct siw2_cq *cq = create_cq(ctx, cqe, channel, comp_vector);

	return cq ? &cq->vcq.cq : NULL;
}

/*
 * What a completion queue entry carries: byte_len, qp_num, immediate
 * data or invalidated STag, and wc_flags. Source QP, SLID, SL and DLID
 * path bits are accepted and read as 0 (iWARP RC has none of them), so
 * that programs asking for IBV_WC_STANDARD_FLAGS work; timestamps,
 * cvlan, flow tag and tag matching are refused.
 */
enum {
	SIW2_CQ_WC_FLAGS = IBV_WC_STANDARD_FLAGS,
	SIW2_CQ_INIT_MASK = IBV_CQ_INIT_ATTR_MASK_FLAGS,
	/* A hint: the CQ locks all the same. */
	SIW2_CQ_CREATE_FLAGS = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
};

/*
 * libibverbs initialises the core fields (verbs_init_cq()) after this
 * returns, as it does for ibv_create_cq().
 */
static struct ibv_cq_ex *siw2_create_cq_ex(struct ibv_context *ctx,
					   struct ibv_cq_init_attr_ex *attr)
{
	struct siw2_cq *cq;

	if ((attr->wc_flags & ~(uint64_t)SIW2_CQ_WC_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)SIW2_CQ_INIT_MASK) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)SIW2_CQ_CREATE_FLAGS))) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->cqe > INT_MAX) {
		errno = EINVAL;
		return NULL;
	}
	cq = create_cq(ctx, attr->cqe, attr->channel, attr->comp_vector);
	return cq ? &cq->vcq.cq_ex : NULL;
}

/*
 * A ring CQ's completions move to a new ring: held under the CQ lock
 * from the command to the new mapping, so no poll sees the old ring's
 * entries twice.
 */
static int siw2_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct siw2_resize_cq_resp resp = {};
	struct siw2_cq *cq = to_scq(ibcq);
	struct ibv_resize_cq cmd = {};
	struct siw2_uring old;
	int ret;

	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto out;
	cq->num_cqe = resp.drv.num_cqe;
	if (cq->ring.map) {
		old = cq->ring;
		ret = siw2_uring_map(ibcq->context, &cq->ring,
				     resp.drv.ring_offset, resp.drv.ring_slots,
				     resp.drv.ring_stride);
		if (ret) {
			/* The kernel fills the new ring: polls fail from now. */
			cq->ring = old;
			cq->lost = true;
			goto out;
		}
		siw2_uring_unmap(&old);
	}
out:
	pthread_spin_unlock(&cq->lock);
	return ret;
}

static int siw2_destroy_cq(struct ibv_cq *ibcq)
{
	struct siw2_cq *cq = to_scq(ibcq);
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (ret)
		return ret;
	siw2_uring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
	return 0;
}

static int siw2_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	if (to_scq(ibcq)->ring.map)
		return siw2_ring_poll_cq(ibcq, ne, wc);
	return ibv_cmd_poll_cq(ibcq, ne, wc);
}

static int siw2_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	if (to_scq(ibcq)->ring.map)
		return siw2_ring_req_notify_cq(ibcq, solicited_only);
	return ibv_cmd_req_notify_cq(ibcq, solicited_only);
}

enum {
	SIW2_QP_INIT_MASK = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
	/* What the send queue ring takes: the builders siw2_qp_ex_init() sets. */
	SIW2_QP_SEND_OPS = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND |
			   IBV_QP_EX_WITH_SEND_WITH_INV |
			   IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_LOCAL_INV |
			   IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			   IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
			   IBV_QP_EX_WITH_ATOMIC_WRITE |
			   IBV_QP_EX_WITH_SEND_WITH_IMM |
			   IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
#ifdef SIW2_HAVE_WR_FLUSH
			   IBV_QP_EX_WITH_FLUSH |
#endif
			   0,
};

/*
 * Both ibv_create_qp() and ibv_create_qp_ex() end here. The command is the
 * basic create_qp, so the kernel's driver op and response are the same;
 * ibv_cmd_create_qp_ex() also sets up the verbs_qp.
 */
static struct ibv_qp *siw2_create_qp_ex(struct ibv_context *ctx,
					struct ibv_qp_init_attr_ex *attr)
{
	struct siw2_create_qp_resp resp = {};
	struct ibv_create_qp cmd = {};
	struct siw2_qp *qp;
	bool ex;
	int ret;

	if (attr->comp_mask & ~(uint32_t)SIW2_QP_INIT_MASK) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd) {
		errno = EINVAL;
		return NULL;
	}
	ex = attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	if (ex && (attr->send_ops_flags & ~(uint64_t)SIW2_QP_SEND_OPS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = ibv_cmd_create_qp_ex(ctx, &qp->vqp, attr, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp));
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	qp->num_sqe = resp.drv.num_sqe;
	qp->num_rqe = resp.drv.num_rqe;
	qp->max_send_sge = attr->cap.max_send_sge;
	qp->max_recv_sge = attr->cap.max_recv_sge;
	qp->max_inline = resp.drv.max_inline;
	pthread_spin_init(&qp->sq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&qp->rq_lock, PTHREAD_PROCESS_PRIVATE);
	siw2_qp_db_init(qp);
	if (resp.drv.sq_stride) {
		ret = siw2_uring_map(ctx, &qp->sq, resp.drv.sq_offset,
				     qp->num_sqe, resp.drv.sq_stride);
		if (!ret && resp.drv.rq_stride)
			ret = siw2_uring_map(ctx, &qp->rq, resp.drv.rq_offset,
					     qp->num_rqe, resp.drv.rq_stride);
		if (ret)
			goto err;
	}
	if (ex) {
		/* The builders write into the ring (no user_rings=0 path). */
		if (!qp->sq.map) {
			ret = EOPNOTSUPP;
			goto err;
		}
		siw2_qp_ex_init(qp);
	}
	return &qp->vqp.qp;

err:
	siw2_uring_unmap(&qp->sq);
	siw2_uring_unmap(&qp->rq);
	ibv_cmd_destroy_qp(&qp->vqp.qp);
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
	errno = ret;
	return NULL;
}

static struct ibv_qp *siw2_create_qp(struct ibv_pd *pd,
				     struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ax = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp = siw2_create_qp_ex(pd->context, &ax);

	/* The capacities actually allocated, as ibv_cmd_create_qp() does. */
	if (qp)
		attr->cap = ax.cap;
	return qp;
}

static int siw2_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(qp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

static int siw2_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			  int attr_mask)
{
	struct ibv_modify_qp cmd = {};

	return ibv_cmd_modify_qp(qp, attr, attr_mask, &cmd, sizeof(cmd));
}

/*
 * The kernel drops a destroyed QP's completions from its own CQs; from a
 * ring only the process can, once the QP is gone.
 */
static int siw2_destroy_qp(struct ibv_qp *ibqp)
{
	struct siw2_qp *qp = to_sqp(ibqp);
	uint32_t qpn = ibqp->qp_num;
	int ret = ibv_cmd_destroy_qp(ibqp);

	if (ret)
		return ret;
	siw2_ring_cq_clean(to_scq(ibqp->send_cq), qpn);
	if (ibqp->recv_cq != ibqp->send_cq)
		siw2_ring_cq_clean(to_scq(ibqp->recv_cq), qpn);
	siw2_uring_unmap(&qp->sq);
	siw2_uring_unmap(&qp->rq);
	pthread_spin_destroy(&qp->sq_lock);
	pthread_spin_destroy(&qp->rq_lock);
	free(qp);
	return 0;
}

static struct ibv_srq *siw2_create_srq(struct ibv_pd *pd,
				       struct ibv_srq_init_attr *attr)
{
	struct siw2_create_srq_resp resp = {};
	struct ibv_create_srq cmd = {};
	struct siw2_srq *srq;
	int ret;

	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq(pd, &srq->ibsrq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (ret) {
		free(srq);
		errno = ret;
		return NULL;
	}
	srq->num_rqe = resp.drv.num_rqe;
	srq->max_sge = attr->attr.max_sge;
	pthread_spin_init(&srq->lock, PTHREAD_PROCESS_PRIVATE);
	if (resp.drv.stride) {
		ret = siw2_uring_map(pd->context, &srq->ring, resp.drv.offset,
				     srq->num_rqe, resp.drv.stride);
		if (ret) {
			ibv_cmd_destroy_srq(&srq->ibsrq);
			pthread_spin_destroy(&srq->lock);
			free(srq);
			errno = ret;
			return NULL;
		}
	}
	return &srq->ibsrq;
}

static int siw2_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr,
			   int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(srq, attr, attr_mask, &cmd, sizeof(cmd));
}

static int siw2_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int siw2_destroy_srq(struct ibv_srq *ibsrq)
{
	struct siw2_srq *srq = to_ssrq(ibsrq);
	int ret = ibv_cmd_destroy_srq(ibsrq);

	if (ret)
		return ret;
	siw2_uring_unmap(&srq->ring);
	pthread_spin_destroy(&srq->lock);
	free(srq);
	return 0;
}

static int siw2_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
			  struct ibv_send_wr **bad_wr)
{
	if (to_sqp(qp)->sq.map)
		return siw2_ring_post_send(qp, wr, bad_wr);
	return ibv_cmd_post_send(qp, wr, bad_wr);
}

static int siw2_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad_wr)
{
	/* A ring QP's receive queue: a ring, or none (SRQ, depth 0). */
	if (to_sqp(qp)->sq.map)
		return siw2_ring_post_recv(qp, wr, bad_wr);
	return ibv_cmd_post_recv(qp, wr, bad_wr);
}

static int siw2_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			      struct ibv_recv_wr **bad_wr)
{
	if (to_ssrq(srq)->ring.map)
		return siw2_ring_post_srq_recv(srq, wr, bad_wr);
	return ibv_cmd_post_srq_recv(srq, wr, bad_wr);
}

const struct verbs_context_ops siw2_ctx_ops = {
	.alloc_mw = siw2_alloc_mw,
	.alloc_pd = siw2_alloc_pd,
	.create_cq = siw2_create_cq,
	.create_cq_ex = siw2_create_cq_ex,
	.create_qp = siw2_create_qp,
	.create_qp_ex = siw2_create_qp_ex,
	.create_srq = siw2_create_srq,
	.dealloc_mw = siw2_dealloc_mw,
	.dealloc_pd = siw2_dealloc_pd,
	.dereg_mr = siw2_dereg_mr,
	.destroy_cq = siw2_destroy_cq,
	.destroy_qp = siw2_destroy_qp,
	.destroy_srq = siw2_destroy_srq,
	.free_context = siw2_free_context,
	.modify_qp = siw2_modify_qp,
	.modify_srq = siw2_modify_srq,
	.poll_cq = siw2_poll_cq,
	.post_recv = siw2_post_recv,
	.post_send = siw2_post_send,
	.post_srq_recv = siw2_post_srq_recv,
	.query_device_ex = siw2_query_device,
	.query_port = siw2_query_port,
	.query_qp = siw2_query_qp,
	.query_srq = siw2_query_srq,
	.reg_mr = siw2_reg_mr,
	.req_notify_cq = siw2_req_notify_cq,
	.resize_cq = siw2_resize_cq,
};
