/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 rdma-core provider: private types.
 */
#ifndef SIW2_H
#define SIW2_H

#include <stddef.h>
#include <stdint.h>

#include "siw2_abi34.h"
#include <rdma/siw2-abi.h>

#define SIW2_PROVIDER_NAME "siw2"

/* Driver id carried in uverbs ioctl headers: out-of-tree, so none. */
#define SIW2_DRIVER_ID 0	/* RDMA_DRIVER_UNKNOWN */

#define siw2_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

SIW2_DECLARE_RESP(siw2_get_context_resp, ib_uverbs_get_context_resp,
		  siw2_uresp_alloc_ctx);
SIW2_DECLARE_RESP(siw2_create_cq_resp, ib_uverbs_create_cq_resp,
		  siw2_uresp_create_cq);
SIW2_DECLARE_RESP(siw2_resize_cq_resp, ib_uverbs_resize_cq_resp,
		  siw2_uresp_resize_cq);
SIW2_DECLARE_RESP(siw2_create_qp_resp, ib_uverbs_create_qp_resp,
		  siw2_uresp_create_qp);
SIW2_DECLARE_RESP(siw2_create_srq_resp, ib_uverbs_create_srq_resp,
		  siw2_uresp_create_srq);

struct siw2_device {
	struct verbs_device vdev;
};

struct siw2_context {
	struct verbs_context vctx;
	uint32_t dev_id;
	uint64_t caps;
};

struct siw2_cq {
	struct ibv_cq ibcq;
	uint32_t id;
	uint32_t num_cqe;
};

struct siw2_qp {
	struct ibv_qp ibqp;
	uint32_t num_sqe;
	uint32_t num_rqe;
};

struct siw2_srq {
	struct ibv_srq ibsrq;
	uint32_t num_rqe;
};

struct siw2_mr {
	struct verbs_mr vmr;
};

static inline struct siw2_context *to_sctx(struct ibv_context *ctx)
{
	return siw2_container_of(ctx, struct siw2_context, vctx.context);
}

static inline struct siw2_cq *to_scq(struct ibv_cq *cq)
{
	return siw2_container_of(cq, struct siw2_cq, ibcq);
}

static inline struct siw2_qp *to_sqp(struct ibv_qp *qp)
{
	return siw2_container_of(qp, struct siw2_qp, ibqp);
}

static inline struct siw2_srq *to_ssrq(struct ibv_srq *srq)
{
	return siw2_container_of(srq, struct siw2_srq, ibsrq);
}

static inline struct siw2_mr *to_smr(struct verbs_mr *vmr)
{
	return siw2_container_of(vmr, struct siw2_mr, vmr);
}

/* siw2.c */
int siw2_read_fw_ver(const char *ibdev_path, char *buf, size_t len);
void siw2_free_context(struct ibv_context *ibctx);

/* siw2_verbs.c */
extern const struct verbs_context_ops siw2_ctx_ops;

#endif /* SIW2_H */
