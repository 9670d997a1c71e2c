/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 rdma-core provider: private types.
 */
#ifndef SIW2_H
#define SIW2_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "siw2_abi34.h"
#include <rdma/siw2-abi.h>
#include "siw2dv.h"

#define SIW2_PROVIDER_NAME "siw2"

/* Driver id carried in uverbs ioctl headers: out-of-tree, so none. */
#define SIW2_DRIVER_ID 0	/* RDMA_DRIVER_UNKNOWN */

#define siw2_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* The build hides every symbol; siw2dv.h's functions are the exception. */
#define SIW2_EXPORT __attribute__((visibility("default")))

SIW2_DECLARE_DRV_CMD(siw2_reg_mr_cmd, ibv_reg_mr, siw2_ureq_reg_mr);
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

/*
 * A ring shared with the kernel (include/uapi/rdma/siw2-abi.h). @idx is
 * this side's own index: the producer index of a work queue, the
 * consumer index of a CQ.
 */
struct siw2_uring {
	void *map;		/* NULL: no ring, the verb is a system call */
	size_t len;
	struct siw2_ring_ctl *ctl;
	uint8_t *ents;
	uint32_t slots;
	uint32_t stride;
	uint32_t idx;
};

/*
 * Every CQ is a verbs_cq, created by ibv_create_cq() or ibv_create_cq_ex();
 * both kinds poll, arm, resize and clean alike, and both have the
 * ibv_cq_ex polling ops.
 */
struct siw2_cq {
	struct verbs_cq vcq;
	uint32_t id;
	uint32_t num_cqe;
	/* ring and its index; held from ibv_start_poll() to ibv_end_poll() */
	pthread_spinlock_t lock;
	struct siw2_uring ring;
	bool lost;		/* resized, but the new ring is not mapped */
	/* ibv_start_poll() .. ibv_end_poll() */
	const struct siw2_cqe *cur;	/* the completion read_*() return */
	struct siw2_cqe cur_copy;	/* without a ring: cur, from a polled wc */
	uint32_t poll_start;	/* ring.idx at ibv_start_poll() */
};

/*
 * Every QP is a verbs_qp (ibv_qp_to_qp_ex() reads its comp_mask); it has
 * the ibv_qp_ex builders when created with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS.
 */
/*
 * The send queue doorbell, built once: uverbs' POST_SEND without work
 * requests as a write() command (siw2_ring.c, sq_doorbell()).
 */
struct siw2_db_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send cmd;
};

struct siw2_qp {
	struct verbs_qp vqp;
	uint32_t num_sqe;
	uint32_t num_rqe;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
	/* sq ring and its index; held from ibv_wr_start() to complete/abort */
	pthread_spinlock_t sq_lock;
	pthread_spinlock_t rq_lock;	/* rq ring and its index */
	struct siw2_uring sq;
	struct siw2_uring rq;
	uint64_t doorbells;	/* system calls made to wake the kernel */
	/* An ibv_wr_*() batch: entries sq.idx - wr_first, not yet published */
	struct siw2_sq_wqe *wr_cur;	/* last entry built; NULL: none */
	uint32_t wr_first;	/* sq.idx at ibv_wr_start() */
	int wr_err;		/* first error of the batch, for wr_complete */
	/* The doorbell (sq_lock); false: write() refused, rdma-core's call */
	bool db_write;
	struct siw2_db_cmd db;
	struct ib_uverbs_post_send_resp db_resp;
};

struct siw2_srq {
	struct ibv_srq ibsrq;
	uint32_t num_rqe;
	uint32_t max_sge;
	pthread_spinlock_t lock;	/* ring and its index */
	struct siw2_uring ring;
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
	return siw2_container_of(cq, struct siw2_cq, vcq.cq);
}

static inline struct siw2_cq *to_scq_ex(struct ibv_cq_ex *cq)
{
	return siw2_container_of(cq, struct siw2_cq, vcq.cq_ex);
}

static inline struct siw2_qp *to_sqp(struct ibv_qp *qp)
{
	return siw2_container_of(qp, struct siw2_qp, vqp.qp);
}

static inline struct siw2_qp *to_sqp_ex(struct ibv_qp_ex *qp)
{
	return siw2_container_of(qp, struct siw2_qp, vqp.qp_ex);
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
bool siw2_is_own_device(struct ibv_device *ibdev);

/* siw2_verbs.c */
extern const struct verbs_context_ops siw2_ctx_ops;

/* siw2_ring.c: rings, and the verbs that post and poll through them */
void siw2_qp_db_init(struct siw2_qp *qp);
int siw2_uring_map(struct ibv_context *ctx, struct siw2_uring *r,
		   uint64_t offset, uint32_t slots, uint32_t stride);
void siw2_uring_unmap(struct siw2_uring *r);
int siw2_ring_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);
int siw2_ring_req_notify_cq(struct ibv_cq *ibcq, int solicited_only);
void siw2_ring_cq_clean(struct siw2_cq *cq, uint32_t qp_num);
int siw2_ring_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr);
int siw2_ring_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);
int siw2_ring_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr);
void siw2_cq_ex_init(struct siw2_cq *cq);
void siw2_qp_ex_init(struct siw2_qp *qp);
void siw2_wr_imm64(struct ibv_qp_ex *qpx, unsigned int opcode, uint32_t rkey,
		   uint64_t remote_addr, uint32_t inv, uint64_t imm);
void siw2_wr_commit(struct ibv_qp_ex *qpx, uint32_t rkey,
		    uint64_t remote_addr, uint32_t len, unsigned int type,
		    const struct siw2dv_commit_log *log);
void siw2_wr_masked_atomic(struct ibv_qp_ex *qpx, unsigned int opcode,
			   uint32_t rkey, uint64_t remote_addr,
			   uint64_t compare_add, uint64_t compare_add_mask,
			   uint64_t swap, uint64_t swap_mask);

#endif /* SIW2_H */
