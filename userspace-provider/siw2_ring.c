// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2 rdma-core provider: the fast path. Work requests are written into
 * rings the kernel maps to the process, completions are read from one;
 * no system call is made unless the kernel's transmit engine has stopped
 * and must be woken (a doorbell), or a QP in Error must flush what was
 * just posted. Layout and protocol: include/uapi/rdma/siw2-abi.h.
 *
 * Posting checks what the kernel would refuse with an error code, so that
 * the verb returns that code; the kernel checks every entry again.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "siw2.h"
#include <rdma/siw2-wr.h>

static inline uint32_t load_acquire(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline uint32_t load_relaxed(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void store_release(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void *ring_at(const struct siw2_uring *r, uint32_t i)
{
	return r->ents + (size_t)(i & (r->slots - 1)) * r->stride;
}

int siw2_uring_map(struct ibv_context *ctx, struct siw2_uring *r,
		   uint64_t offset, uint32_t slots, uint32_t stride)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = SIW2_RING_LEN(slots, stride);
	void *p;

	if (!slots || (slots & (slots - 1)) || stride < 8 || page <= 0)
		return EPROTO;
	len = (len + page - 1) & ~((size_t)page - 1);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd,
		 offset);
	if (p == MAP_FAILED)
		return errno;
	r->map = p;
	r->len = len;
	r->ctl = p;
	r->ents = (uint8_t *)p + SIW2_RING_CTL_SIZE;
	r->slots = slots;
	r->stride = stride;
	r->idx = 0;
	return 0;
}

void siw2_uring_unmap(struct siw2_uring *r)
{
	if (r->map)
		munmap(r->map, r->len);
	r->map = NULL;
}

/* ---- completion queue ---- */

static void cqe_to_wc(const struct siw2_cqe *e, struct ibv_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = e->wr_id;
	wc->status = e->status;
	wc->opcode = e->opcode;
	wc->vendor_err = e->vendor_err;
	wc->byte_len = e->byte_len;
	wc->qp_num = e->qp_num;
	/* ibv_wc holds one: the immediate, where there are both. */
	if (e->flags & SIW2_CQE_WITH_IMM) {
		wc->wc_flags |= IBV_WC_WITH_IMM;
		wc->imm_data = e->ex;
	} else if (e->flags & SIW2_CQE_WITH_INV) {
		wc->wc_flags |= IBV_WC_WITH_INV;
		wc->invalidated_rkey = e->ex;
	}
}

int siw2_ring_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct siw2_cq *cq = to_scq(ibcq);
	struct siw2_uring *r = &cq->ring;
	uint32_t prod;
	int n = 0;

	pthread_spin_lock(&cq->lock);
	if (cq->lost) {
		pthread_spin_unlock(&cq->lock);
		return -EIO;
	}
	/* The index before the entries (pairs with the kernel's release). */
	prod = load_acquire(&r->ctl->prod);
	while (n < ne && r->idx != prod) {
		cqe_to_wc(ring_at(r, r->idx), &wc[n++]);
		r->idx++;
	}
	/* Entries read before the kernel may reuse their slots. */
	if (n)
		store_release(&r->ctl->cons, r->idx);
	pthread_spin_unlock(&cq->lock);
	return n;
}

int siw2_ring_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct siw2_cq *cq = to_scq(ibcq);
	uint32_t *n = &cq->ring.ctl->notify;

	/* A solicited-only request never weakens an armed "any" request. */
	if (!solicited_only)
		__atomic_store_n(n, SIW2_NOTIFY_NEXT, __ATOMIC_RELAXED);
	else
		__atomic_compare_exchange_n(n, &(uint32_t){ SIW2_NOTIFY_NONE },
					    SIW2_NOTIFY_SOLICITED, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	/*
	 * The arm before the next poll reads the index: the kernel writes the
	 * index, then reads the arm; one of us sees the other.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return 0;
}

/*
 * Drop the completions of a destroyed QP still queued in a CQ, keeping
 * the others in order: walk from the newest entry down, moving kept ones
 * up over dropped ones, then consume as many as were dropped. Only
 * entries the kernel has published are touched, so it may go on adding.
 */
void siw2_ring_cq_clean(struct siw2_cq *cq, uint32_t qp_num)
{
	struct siw2_uring *r = &cq->ring;
	uint32_t prod, i, dropped = 0;

	if (!r->map)
		return;
	pthread_spin_lock(&cq->lock);
	prod = load_acquire(&r->ctl->prod);
	/* The ring is the process's memory: a scribbled index stays bounded. */
	if (prod - r->idx > r->slots)
		prod = r->idx + r->slots;
	for (i = prod; i != r->idx; i--) {
		struct siw2_cqe *e = ring_at(r, i - 1);

		if (e->qp_num == qp_num)
			dropped++;
		else if (dropped)
			memcpy(ring_at(r, i - 1 + dropped), e, sizeof(*e));
	}
	if (dropped) {
		r->idx += dropped;
		store_release(&r->ctl->cons, r->idx);
	}
	pthread_spin_unlock(&cq->lock);
}

/* ---- send queue ---- */

/*
 * Atomics need a peer that takes RFC 7306 messages (a siw2 peer, which
 * the kernel shows in conn_flags on entering RTS): towards any other the
 * post fails rather than send what the peer cannot parse.
 */
static bool peer_takes_ext(const struct siw2_qp *qp)
{
	return load_acquire(&qp->sq.ctl->conn_flags) & SIW2_CONN_F_EXT;
}

/* Send with Immediate Data is RDMAP v2 (a siw2 peer with the v2 bit). */
static bool peer_takes_rv2(const struct siw2_qp *qp)
{
	return load_acquire(&qp->sq.ctl->conn_flags) & SIW2_CONN_F_RV2;
}

/* The shared opcode names are libibverbs' numbers. */
#define SIW2_SAME_OP(a, b) _Static_assert((int)(a) == (int)(b), #a)
SIW2_SAME_OP(SIW2_SQ_OP_RDMA_WRITE, IBV_WR_RDMA_WRITE);
SIW2_SAME_OP(SIW2_SQ_OP_SEND, IBV_WR_SEND);
SIW2_SAME_OP(SIW2_SQ_OP_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM);
SIW2_SAME_OP(SIW2_SQ_OP_RDMA_READ, IBV_WR_RDMA_READ);
SIW2_SAME_OP(SIW2_SQ_OP_LOCAL_INV, IBV_WR_LOCAL_INV);
SIW2_SAME_OP(SIW2_SQ_OP_BIND_MW, IBV_WR_BIND_MW);
SIW2_SAME_OP(SIW2_SQ_OP_SEND_WITH_INV, IBV_WR_SEND_WITH_INV);
SIW2_SAME_OP(SIW2_SQ_OP_ATOMIC_WRITE, IBV_WR_ATOMIC_WRITE);
SIW2_SAME_OP(SIW2_SQ_OP_MASKED_ATOMIC_CMP_AND_SWP,
	     IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP);
SIW2_SAME_OP(SIW2_SQ_OP_MASKED_ATOMIC_FETCH_AND_ADD,
	     IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD);

/*
 * May an operation with these rules (siw2-wr.h) be posted on the QP's
 * connection? RFC 7306 messages need a siw2 peer, Send with Immediate
 * Data RDMAP v2, RDMA Commit a peer that negotiated it.
 */
static int peer_check(const struct siw2_qp *qp, uint32_t rules)
{
	if ((rules & SIW2_WRF_COMMIT) &&
	    !(load_acquire(&qp->sq.ctl->conn_flags) & SIW2_CONN_F_COMMIT))
		return EOPNOTSUPP;
	if ((rules & SIW2_WRF_RV2) && !peer_takes_rv2(qp))
		return EOPNOTSUPP;
	if ((rules & SIW2_WRF_EXT) && !peer_takes_ext(qp))
		return EOPNOTSUPP;
	return 0;
}

/* Read V2 lifts the one-sink limit of a Read (DEC-7). */
static bool read_sges_ok(const struct siw2_qp *qp, size_t num_sge)
{
	return num_sge <= SIW2_WR_MAX_SGE_RD ||
	       (load_acquire(&qp->sq.ctl->conn_flags) & SIW2_CONN_F_READ_V2);
}

/* The kernel's checks (siw2_wr_check()), made before the entry is written. */
static int check_send_wr(const struct siw2_qp *qp, const struct ibv_send_wr *wr)
{
	uint32_t r = siw2_wr_rules(wr->opcode);
	bool inl = wr->send_flags & IBV_SEND_INLINE;
	uint64_t len = 0;
	int i;

	/* What ibv_post_send() carries; the rest only through siw2dv. */
	if (!(r & SIW2_WRF_OK) || (r & (SIW2_WRF_NO_RING | SIW2_WRF_DV)))
		return EOPNOTSUPP;
	if ((r & SIW2_WRF_READ) && (!read_sges_ok(qp, wr->num_sge) || inl))
		return EINVAL;
	/* A type 2 window onto an MR; no local buffer. */
	if (r & SIW2_WRF_BIND)
		return wr->num_sge || inl || !wr->bind_mw.mw ||
		       wr->bind_mw.mw->type != IBV_MW_TYPE_2 ||
		       !wr->bind_mw.bind_info.mr ||
		       (wr->send_flags & ~(unsigned int)SIW2_WQE_FLAGS) ?
		       EINVAL : 0;
	/* The original value lands in one 8-byte buffer. */
	if ((r & SIW2_WRF_ATOMIC) &&
	    (wr->num_sge != 1 || wr->sg_list[0].length != 8 || inl))
		return EINVAL;
	/* An Atomic Write's 8 bytes: one SGE, or inline. */
	if ((r & SIW2_WRF_WORD) && wr->num_sge > 1)
		return EINVAL;
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > UINT32_MAX)
		return EINVAL;
	if (inl && (len > qp->max_inline || !(r & SIW2_WRF_INLINE)))
		return EINVAL;
	if ((r & SIW2_WRF_WORD) && len != 8)
		return EINVAL;
	if (wr->send_flags & ~(unsigned int)SIW2_WQE_FLAGS)
		return EINVAL;
	return peer_check(qp, r);
}

static void fill_sq_wqe(struct siw2_sq_wqe *e, const struct ibv_send_wr *wr)
{
	uint32_t r = siw2_wr_rules(wr->opcode);
	int i;

	memset(e, 0, sizeof(*e));
	e->wr_id = wr->wr_id;
	e->opcode = wr->opcode;
	e->flags = wr->send_flags;
	/* The operands the opcode's rules say it has. */
	if (r & SIW2_WRF_IMM)
		/* DEC-5: imm_data is octets 0..3 of the 8. */
		e->imm = (uint64_t)be32toh(wr->imm_data) << 32;
	if (r & SIW2_WRF_BIND) {
		const struct ibv_mw_bind_info *b = &wr->bind_mw.bind_info;

		e->rkey = wr->bind_mw.rkey;
		e->bind.addr = b->addr;
		e->bind.length = b->length;
		e->bind.mr_lkey = b->mr->lkey;
		e->bind.access = b->mw_access_flags;
		return;
	}
	if ((r & SIW2_WRF_REMOTE) && (r & SIW2_WRF_ATOMIC)) {
		e->raddr = wr->wr.atomic.remote_addr;
		e->rkey = wr->wr.atomic.rkey;
		e->atomic.compare_add = wr->wr.atomic.compare_add;
		e->atomic.swap = wr->wr.atomic.swap;
	} else if (r & SIW2_WRF_REMOTE) {
		e->raddr = wr->wr.rdma.remote_addr;
		e->rkey = wr->wr.rdma.rkey;
	}
	if (r & SIW2_WRF_INV)
		e->inv_stag = wr->invalidate_rkey;
	if (wr->send_flags & IBV_SEND_INLINE) {
		uint8_t *d = (uint8_t *)e->sge;

		/* Copied now: the buffer is the caller's again on return. */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(d, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			d += wr->sg_list[i].length;
		}
		e->inline_len = d - (uint8_t *)e->sge;
		return;
	}
	e->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		e->sge[i].addr = wr->sg_list[i].addr;
		e->sge[i].length = wr->sg_list[i].length;
		e->sge[i].lkey = wr->sg_list[i].lkey;
	}
}

void siw2_qp_db_init(struct siw2_qp *qp)
{
	qp->db.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	qp->db.hdr.in_words = sizeof(qp->db) / 4;
	qp->db.hdr.out_words = sizeof(qp->db_resp) / 4;
	qp->db.cmd.response = (uintptr_t)&qp->db_resp;
	qp->db.cmd.qp_handle = qp->vqp.qp.handle;
	qp->db.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);
	qp->db_write = true;
}

/*
 * The doorbell is uverbs' post_send without work requests. write() of the
 * built command reaches the driver through fewer layers than the ioctl
 * libibverbs makes of it (Documentation/performance.md, "The doorbell");
 * where the write() path is refused, libibverbs' call takes over for good.
 * A failure of both (the device going away) loses no entry: sq_publish().
 */
static void sq_doorbell(struct siw2_qp *qp)
{
	struct ibv_send_wr *bad;

	__atomic_fetch_add(&qp->doorbells, 1, __ATOMIC_RELAXED);
	if (qp->db_write &&
	    write(qp->vqp.qp.context->cmd_fd, &qp->db, sizeof(qp->db)) ==
	    (ssize_t)sizeof(qp->db))
		return;
	if (!ibv_cmd_post_send(&qp->vqp.qp, NULL, &bad))
		qp->db_write = false;
}

/*
 * Publish the send queue entries written up to sq.idx and wake the
 * kernel's transmit engine if it stopped; the caller holds sq_lock.
 * The entries are posted even when the wakeup fails (the device going
 * away): they complete, flushed, as all posted work does then.
 */
static void sq_publish(struct siw2_qp *qp)
{
	struct siw2_uring *r = &qp->sq;

	/* The entries before the index (pairs with the kernel's acquire). */
	store_release(&r->ctl->prod, r->idx);
	/*
	 * The index before the busy flag: the kernel clears the flag, then
	 * looks at the index; one of us sees the other.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (load_relaxed(&r->ctl->kflags) & SIW2_RING_F_BUSY)
		return;
	sq_doorbell(qp);
}

int siw2_ring_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			struct ibv_send_wr **bad_wr)
{
	struct siw2_qp *qp = to_sqp(ibqp);
	struct siw2_uring *r = &qp->sq;
	uint32_t state, start;
	int ret = 0;

	pthread_spin_lock(&qp->sq_lock);
	start = r->idx;
	state = load_relaxed(&r->ctl->qp_state);
	/* As the kernel: sends need a connection; Error flushes them. */
	if (state != IBV_QPS_RTS && state != IBV_QPS_ERR) {
		ret = ENOTCONN;
		goto out;
	}
	for (; wr; wr = wr->next) {
		ret = check_send_wr(qp, wr);
		if (ret)
			break;
		if (r->idx - load_acquire(&r->ctl->cons) >= r->slots) {
			ret = ENOMEM;
			break;
		}
		fill_sq_wqe(ring_at(r, r->idx), wr);
		r->idx++;
	}
	/*
	 * An error here would tell the caller that the WRs from *bad_wr on
	 * were not posted; after a failed wakeup all of them were (see
	 * sq_publish()).
	 */
	if (r->idx != start)
		sq_publish(qp);
out:
	pthread_spin_unlock(&qp->sq_lock);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* ---- receive queues ---- */

static void fill_rq_wqe(struct siw2_rq_wqe *e, const struct ibv_recv_wr *wr)
{
	int i;

	e->wr_id = wr->wr_id;
	e->num_sge = wr->num_sge;
	e->rsvd = 0;
	for (i = 0; i < wr->num_sge; i++) {
		e->sge[i].addr = wr->sg_list[i].addr;
		e->sge[i].length = wr->sg_list[i].length;
		e->sge[i].lkey = wr->sg_list[i].lkey;
	}
}

/* Post to a receive ring; the caller holds its lock. */
static int post_rq(struct siw2_uring *r, uint32_t max_sge,
		   struct ibv_recv_wr **wrp)
{
	struct ibv_recv_wr *wr = *wrp;
	uint32_t start = r->idx;
	int ret = 0;

	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge) {
			ret = EINVAL;
			break;
		}
		if (r->idx - load_acquire(&r->ctl->cons) >= r->slots) {
			ret = ENOMEM;
			break;
		}
		fill_rq_wqe(ring_at(r, r->idx), wr);
		r->idx++;
	}
	if (r->idx != start)
		store_release(&r->ctl->prod, r->idx);
	*wrp = wr;
	return ret;
}

int siw2_ring_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct siw2_qp *qp = to_sqp(ibqp);
	struct siw2_uring *r = &qp->rq;
	uint32_t start;
	int ret;

	if (!r->map) {
		/* An SRQ's QP, or one without a receive queue. */
		*bad_wr = wr;
		return ibqp->srq ? EINVAL : ENOMEM;
	}
	pthread_spin_lock(&qp->rq_lock);
	if (load_relaxed(&r->ctl->qp_state) == IBV_QPS_RESET) {
		ret = EINVAL;
		goto out;
	}
	start = r->idx;
	ret = post_rq(r, qp->max_recv_sge, &wr);
	if (r->idx != start) {
		/* The index before the state (the kernel: state, then index). */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (load_relaxed(&r->ctl->qp_state) == IBV_QPS_ERR) {
			struct ibv_recv_wr *bad;

			__atomic_fetch_add(&qp->doorbells, 1,
					   __ATOMIC_RELAXED);
			ibv_cmd_post_recv(ibqp, NULL, &bad);
		}
	}
out:
	pthread_spin_unlock(&qp->rq_lock);
	if (ret)
		*bad_wr = wr;
	return ret;
}

int siw2_ring_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			    struct ibv_recv_wr **bad_wr)
{
	struct siw2_srq *srq = to_ssrq(ibsrq);
	int ret;

	pthread_spin_lock(&srq->lock);
	ret = post_rq(&srq->ring, srq->max_sge, &wr);
	pthread_spin_unlock(&srq->lock);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* ---- extended CQ: ibv_start_poll() .. ibv_end_poll() ---- */

static void wc_to_cqe(const struct ibv_wc *wc, struct siw2_cqe *e)
{
	memset(e, 0, sizeof(*e));
	e->wr_id = wc->wr_id;
	e->opcode = wc->opcode;
	e->status = wc->status;
	e->byte_len = wc->byte_len;
	e->qp_num = wc->qp_num;
	e->vendor_err = wc->vendor_err;
	if (wc->wc_flags & IBV_WC_WITH_IMM) {
		e->flags = SIW2_CQE_WITH_IMM;
		e->ex = wc->imm_data;
		e->imm = (uint64_t)be32toh(wc->imm_data) << 32;
	} else if (wc->wc_flags & IBV_WC_WITH_INV) {
		e->flags = SIW2_CQE_WITH_INV;
		e->ex = wc->invalidated_rkey;
		e->inv_stag = wc->invalidated_rkey;
	}
}

/*
 * The next completion into cq->cur, wr_id and status; the caller holds
 * the lock. A ring entry is read in place: the kernel does not reuse its
 * slot before end_poll publishes the consumer index.
 */
static int cqx_fetch(struct siw2_cq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;
	struct siw2_uring *r = &cq->ring;
	const struct siw2_cqe *e;

	if (r->map) {
		/* The index before the entry (pairs with the kernel's release). */
		if (r->idx == load_acquire(&r->ctl->prod))
			return ENOENT;
		e = ring_at(r, r->idx);
		r->idx++;
	} else {
		struct ibv_wc wc;
		int n = ibv_cmd_poll_cq(&cq->vcq.cq, 1, &wc);

		if (n < 0)
			return EIO;
		if (!n)
			return ENOENT;
		wc_to_cqe(&wc, &cq->cur_copy);
		e = &cq->cur_copy;
	}
	cq->cur = e;
	cqx->wr_id = e->wr_id;
	cqx->status = e->status;
	return 0;
}

static int cqx_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct siw2_cq *cq = to_scq_ex(cqx);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	pthread_spin_lock(&cq->lock);
	if (cq->lost) {
		ret = EIO;
	} else {
		cq->poll_start = cq->ring.idx;
		ret = cqx_fetch(cq);
	}
	/* Without a completion the caller makes no end_poll to unlock. */
	if (ret)
		pthread_spin_unlock(&cq->lock);
	return ret;
}

static int cqx_next_poll(struct ibv_cq_ex *cqx)
{
	return cqx_fetch(to_scq_ex(cqx));
}

static void cqx_end_poll(struct ibv_cq_ex *cqx)
{
	struct siw2_cq *cq = to_scq_ex(cqx);
	struct siw2_uring *r = &cq->ring;

	/* Entries read before the kernel may reuse their slots. */
	if (r->map && r->idx != cq->poll_start)
		store_release(&r->ctl->cons, r->idx);
	cq->cur = NULL;
	pthread_spin_unlock(&cq->lock);
}

static enum ibv_wc_opcode cqx_read_opcode(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur->opcode;
}

static uint32_t cqx_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur->vendor_err;
}

static uint32_t cqx_read_byte_len(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur->byte_len;
}

/*
 * As ibv_wc's union: immediate data in network order, or the invalidated
 * STag in host order (ibv_wc_read_invalidated_rkey() reads it here).
 */
static __be32 cqx_read_imm_data(struct ibv_cq_ex *cqx)
{
	const struct siw2_cqe *e = to_scq_ex(cqx)->cur;

	if (e->flags & (SIW2_CQE_WITH_IMM | SIW2_CQE_WITH_INV))
		return e->ex;
	return 0;
}

static uint32_t cqx_read_qp_num(struct ibv_cq_ex *cqx)
{
	return to_scq_ex(cqx)->cur->qp_num;
}

/*
 * The SIW2_CQE_* flags have the ibv_wc_flags values. With both, as in
 * cqe_to_wc(), the immediate is what ibv_wc_read_imm_data() returns:
 * only IBV_WC_WITH_IMM is reported (siw2dv_cq_read_imm() has both).
 */
static unsigned int cqx_read_wc_flags(struct ibv_cq_ex *cqx)
{
	uint8_t f = to_scq_ex(cqx)->cur->flags;

	if (f & SIW2_CQE_WITH_IMM)
		return IBV_WC_WITH_IMM;
	return f & SIW2_CQE_WITH_INV;
}

/* Connected iWARP QPs have no source QP, LIDs or service levels. */
static uint32_t cqx_read_zero32(struct ibv_cq_ex *cqx)
{
	(void)cqx;
	return 0;
}

static uint8_t cqx_read_zero8(struct ibv_cq_ex *cqx)
{
	(void)cqx;
	return 0;
}

/*
 * Installed on every CQ, so that a CQ from ibv_create_cq() cast to an
 * ibv_cq_ex polls as well. The readers of fields the rings do not carry
 * (timestamps, cvlan, flow tag, tag matching) stay NULL.
 */
void siw2_cq_ex_init(struct siw2_cq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = cqx_start_poll;
	cqx->next_poll = cqx_next_poll;
	cqx->end_poll = cqx_end_poll;
	cqx->read_opcode = cqx_read_opcode;
	cqx->read_vendor_err = cqx_read_vendor_err;
	cqx->read_byte_len = cqx_read_byte_len;
	cqx->read_imm_data = cqx_read_imm_data;
	cqx->read_qp_num = cqx_read_qp_num;
	cqx->read_src_qp = cqx_read_zero32;
	cqx->read_wc_flags = cqx_read_wc_flags;
	cqx->read_slid = cqx_read_zero32;
	cqx->read_sl = cqx_read_zero8;
	cqx->read_dlid_path_bits = cqx_read_zero8;
}

/* ---- extended QP: ibv_wr_start() .. ibv_wr_complete() ---- */

/*
 * Entries are written straight into the send queue ring at sq.idx; only
 * wr_complete publishes them. After the first error the batch is dead:
 * later calls do nothing and wr_complete returns that error.
 */
static void wr_fail(struct siw2_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr_cur = NULL;
}

static void qpx_wr_start(struct ibv_qp_ex *qpx)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);
	uint32_t state;

	pthread_spin_lock(&qp->sq_lock);
	qp->wr_first = qp->sq.idx;
	qp->wr_cur = NULL;
	qp->wr_err = 0;
	state = load_relaxed(&qp->sq.ctl->qp_state);
	/* As ibv_post_send(): sends need a connection; Error flushes them. */
	if (state != IBV_QPS_RTS && state != IBV_QPS_ERR)
		qp->wr_err = ENOTCONN;
}

/* A new entry for @opcode with wr_id and wr_flags as set now, or NULL. */
static struct siw2_sq_wqe *wr_new(struct ibv_qp_ex *qpx, uint8_t opcode)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);
	struct siw2_uring *r = &qp->sq;
	struct siw2_sq_wqe *e;

	qp->wr_cur = NULL;
	if (qp->wr_err)
		return NULL;
	if (qpx->wr_flags & ~(unsigned int)SIW2_WQE_FLAGS) {
		wr_fail(qp, EINVAL);
		return NULL;
	}
	if (r->idx - load_acquire(&r->ctl->cons) >= r->slots) {
		wr_fail(qp, ENOMEM);
		return NULL;
	}
	e = ring_at(r, r->idx);
	r->idx++;
	memset(e, 0, sizeof(*e));
	e->wr_id = qpx->wr_id;
	e->opcode = opcode;
	/* Inline is what wr_set_inline_data*() make it, not the flag. */
	e->flags = qpx->wr_flags & ~(unsigned int)SIW2_WQE_INLINE;
	qp->wr_cur = e;
	return e;
}

static void qpx_wr_send(struct ibv_qp_ex *qpx)
{
	wr_new(qpx, IBV_WR_SEND);
}

static void qpx_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct siw2_sq_wqe *e = wr_new(qpx, IBV_WR_SEND_WITH_INV);

	if (e)
		e->inv_stag = invalidate_rkey;
}

static void qpx_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct siw2_sq_wqe *e = wr_new(qpx, IBV_WR_LOCAL_INV);

	if (e)
		e->inv_stag = invalidate_rkey;
}

static void qpx_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	struct siw2_sq_wqe *e = wr_new(qpx, IBV_WR_RDMA_WRITE);

	if (e) {
		e->rkey = rkey;
		e->raddr = remote_addr;
	}
}

/* An entry for an extension operation, or NULL if the peer lacks it. */
static struct siw2_sq_wqe *wr_ext(struct ibv_qp_ex *qpx, uint8_t opcode,
				     uint32_t rkey, uint64_t remote_addr)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);
	struct siw2_sq_wqe *e;

	if (!qp->wr_err && peer_check(qp, siw2_wr_rules(opcode))) {
		wr_fail(qp, EOPNOTSUPP);
		return NULL;
	}
	e = wr_new(qpx, opcode);
	if (e) {
		e->rkey = rkey;
		e->raddr = remote_addr;
	}
	return e;
}

static void qpx_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare,
				  uint64_t swap)
{
	struct siw2_sq_wqe *e = wr_ext(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey,
					  remote_addr);

	if (e) {
		e->atomic.compare_add = compare;
		e->atomic.swap = swap;
	}
}

static void qpx_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add)
{
	struct siw2_sq_wqe *e = wr_ext(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD,
					  rkey, remote_addr);

	if (e)
		e->atomic.compare_add = add;
}

static void qpx_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data)
{
	struct siw2_sq_wqe *e = wr_ext(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey,
					  remote_addr);

	if (e)
		e->imm = (uint64_t)be32toh(imm_data) << 32;
}

static void qpx_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct siw2_sq_wqe *e = wr_ext(qpx, IBV_WR_SEND_WITH_IMM, 0, 0);

	if (e)
		e->imm = (uint64_t)be32toh(imm_data) << 32;
}

/**
 * siw2_wr_imm64 - start a work request with full 8-byte Immediate Data
 * @qpx: QP between ibv_wr_start() and ibv_wr_complete()
 * @opcode: IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM or
 *	SIW2_WR_SEND_WITH_INV_IMM
 * @rkey: Write: remote STag; @remote_addr: Write: remote address
 * @inv: SIW2_WR_SEND_WITH_INV_IMM: the STag to invalidate
 * @imm: the 8 octets as a big-endian number
 */
void siw2_wr_imm64(struct ibv_qp_ex *qpx, unsigned int opcode, uint32_t rkey,
		   uint64_t remote_addr, uint32_t inv, uint64_t imm)
{
	struct siw2_sq_wqe *e = wr_ext(qpx, opcode, rkey, remote_addr);

	if (e) {
		e->imm = imm;
		e->inv_stag = inv;
	}
}

/**
 * siw2_wr_masked_atomic - start a masked atomic work request
 * @qpx: QP between ibv_wr_start() and ibv_wr_complete()
 * @opcode: IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD or _CMP_AND_SWP
 * @rkey: remote STag; @remote_addr: the 8-byte aligned target
 * @compare_add: Compare Data or Add Data, @compare_add_mask its mask
 * @swap: Swap Data, @swap_mask its mask (CmpSwap)
 */
void siw2_wr_masked_atomic(struct ibv_qp_ex *qpx, unsigned int opcode,
			   uint32_t rkey, uint64_t remote_addr,
			   uint64_t compare_add, uint64_t compare_add_mask,
			   uint64_t swap, uint64_t swap_mask)
{
	struct siw2_sq_wqe *e = wr_ext(qpx, opcode, rkey, remote_addr);

	if (e) {
		e->atomic.compare_add = compare_add;
		e->atomic.compare_add_mask = compare_add_mask;
		e->atomic.swap = swap;
		e->atomic.swap_mask = swap_mask;
	}
}

/**
 * siw2_wr_commit - start an RDMA Commit work request
 * @qpx: QP between ibv_wr_start() and ibv_wr_complete()
 * @rkey: remote STag; @remote_addr: the range's first octet
 * @len: octets of the range (0: nothing to commit)
 * @type: SIW2DV_COMMIT_PERSISTENT (the range must become durable) and/or
 *	SIW2DV_COMMIT_GLOBAL (visibility is enough when PERSISTENT is not
 *	set): the values of IBV_FLUSH_PERSISTENT and IBV_FLUSH_GLOBAL
 * @log: NULL, or a log update: @log->addr 8-byte aligned (SIW2-DEC-1)
 *
 * A bad type or a misaligned log word fails the batch with EINVAL. On a
 * kernel that predates SIW2_UCTX_CAP_COMMIT_TYPE every Commit is sent as
 * one that needs durability, and such a kernel completes one of memory
 * that is not durable successfully.
 */
void siw2_wr_commit(struct ibv_qp_ex *qpx, uint32_t rkey,
		    uint64_t remote_addr, uint32_t len, unsigned int type,
		    const struct siw2dv_commit_log *log)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);
	struct siw2_sq_wqe *e;

	if (!type || (type & ~(SIW2DV_COMMIT_GLOBAL | SIW2DV_COMMIT_PERSISTENT)) ||
	    (log && (log->addr & 7))) {
		wr_fail(qp, EINVAL);
		return;
	}
	e = wr_ext(qpx, SIW2_SQ_OP_FLUSH, rkey, remote_addr);
	if (!e)
		return;
	e->commit.len = len;
	if (!(type & SIW2DV_COMMIT_PERSISTENT) &&
	    (to_sctx(qpx->qp_base.context)->caps & SIW2_UCTX_CAP_COMMIT_TYPE))
		e->commit.flags |= SIW2_COMMIT_F_GLOBAL;
	if (log) {
		e->commit.flags |= SIW2_COMMIT_F_LOG;
		e->commit.log_stag = log->rkey;
		e->commit.log_to = log->addr;
		e->commit.log_value = log->value;
	}
	/* So no data setter can name one. */
	qp->wr_cur = NULL;
}

#ifdef SIW2_HAVE_WR_FLUSH
/*
 * ibv_wr_flush() (rdma-core 45 and later): a range is one RDMA Commit of
 * it; the persistent type needs a durable target, the global one does
 * not (SIW2-DEC-2). A whole MR cannot be named on the wire: the
 * Requester does not know its length (DEC-18).
 */
static void qpx_wr_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);

	if (level == IBV_FLUSH_MR) {
		wr_fail(qp, EOPNOTSUPP);
		return;
	}
	if (level != IBV_FLUSH_RANGE || len > UINT32_MAX) {
		wr_fail(qp, EINVAL);
		return;
	}
	siw2_wr_commit(qpx, rkey, remote_addr, len, type, NULL);
}
#endif

/* The 8 bytes go inline: no buffer of the caller's is read later. */
static void qpx_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, const void *atomic_wr)
{
	struct siw2_sq_wqe *e = wr_ext(qpx, IBV_WR_ATOMIC_WRITE, rkey,
					  remote_addr);

	if (e) {
		memcpy(e->sge, atomic_wr, 8);
		e->flags |= SIW2_WQE_INLINE;
		e->inline_len = 8;
		/* Not an entry the data setters may change. */
		to_sqp_ex(qpx)->wr_cur = NULL;
	}
}

static void qpx_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	struct siw2_sq_wqe *e = wr_new(qpx, IBV_WR_RDMA_READ);

	if (e) {
		e->rkey = rkey;
		e->raddr = remote_addr;
	}
}

/* The entry the data setters fill: the one built last. */
static struct siw2_sq_wqe *wr_data(struct siw2_qp *qp)
{
	/* A setter with no work request before it spoils the batch. */
	if (!qp->wr_cur && !qp->wr_err)
		qp->wr_err = EINVAL;
	return qp->wr_cur;
}

static void qpx_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);
	struct siw2_sq_wqe *e = wr_data(qp);
	uint64_t len = 0;
	uint32_t r;
	size_t i;

	if (!e)
		return;
	r = siw2_wr_rules(e->opcode);
	/* The limits of check_send_wr(). */
	if (num_sge > qp->max_send_sge ||
	    ((r & SIW2_WRF_READ) && !read_sges_ok(qp, num_sge)) ||
	    ((r & SIW2_WRF_ATOMIC) &&
	     (num_sge != 1 || sg_list[0].length != 8))) {
		wr_fail(qp, EINVAL);
		return;
	}
	for (i = 0; i < num_sge; i++)
		len += sg_list[i].length;
	if (len > UINT32_MAX) {
		wr_fail(qp, EINVAL);
		return;
	}
	e->flags &= ~SIW2_WQE_INLINE;
	e->inline_len = 0;
	e->num_sge = num_sge;
	for (i = 0; i < num_sge; i++) {
		e->sge[i].addr = sg_list[i].addr;
		e->sge[i].length = sg_list[i].length;
		e->sge[i].lkey = sg_list[i].lkey;
	}
}

static void qpx_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	qpx_wr_set_sge_list(qpx, 1, &sge);
}

static void qpx_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);
	struct siw2_sq_wqe *e = wr_data(qp);
	size_t i, len = 0;
	uint32_t r;
	uint8_t *d;

	if (!e)
		return;
	/* An Atomic Write's 8 inline bytes come through its own setter. */
	r = siw2_wr_rules(e->opcode);
	if (!(r & SIW2_WRF_INLINE) || (r & SIW2_WRF_WORD)) {
		wr_fail(qp, EINVAL);
		return;
	}
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > qp->max_inline - len) {
			wr_fail(qp, EINVAL);
			return;
		}
		len += buf_list[i].length;
	}
	/* Copied now: the buffers are the caller's again on return. */
	d = (uint8_t *)e->sge;
	for (i = 0; i < num_buf; i++) {
		memcpy(d, buf_list[i].addr, buf_list[i].length);
		d += buf_list[i].length;
	}
	e->num_sge = 0;
	e->flags |= SIW2_WQE_INLINE;
	e->inline_len = len;
}

static void qpx_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	qpx_wr_set_inline_data_list(qpx, 1, &buf);
}

static int qpx_wr_complete(struct ibv_qp_ex *qpx)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);
	int ret = qp->wr_err;

	if (ret)
		qp->sq.idx = qp->wr_first;	/* none of a failed batch */
	else if (qp->sq.idx != qp->wr_first)
		sq_publish(qp);		/* posted even if the wakeup fails */
	qp->wr_cur = NULL;
	pthread_spin_unlock(&qp->sq_lock);
	return ret;
}

/* Unpublished entries are the process's: the kernel reads up to prod. */
static void qpx_wr_abort(struct ibv_qp_ex *qpx)
{
	struct siw2_qp *qp = to_sqp_ex(qpx);

	qp->sq.idx = qp->wr_first;
	qp->wr_cur = NULL;
	pthread_spin_unlock(&qp->sq_lock);
}

/*
 * The builders of every operation the send queue ring takes, whatever
 * send_ops_flags asked for; memory windows, UD and XRC stay NULL. Needs
 * the send queue ring.
 */
void siw2_qp_ex_init(struct siw2_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qpx->wr_atomic_cmp_swp = qpx_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = qpx_wr_atomic_fetch_add;
	qpx->wr_atomic_write = qpx_wr_atomic_write;
#ifdef SIW2_HAVE_WR_FLUSH
	qpx->wr_flush = qpx_wr_flush;
#endif
	qpx->wr_local_inv = qpx_wr_local_inv;
	qpx->wr_rdma_write_imm = qpx_wr_rdma_write_imm;
	qpx->wr_send_imm = qpx_wr_send_imm;
	qpx->wr_rdma_read = qpx_wr_rdma_read;
	qpx->wr_rdma_write = qpx_wr_rdma_write;
	qpx->wr_send = qpx_wr_send;
	qpx->wr_send_inv = qpx_wr_send_inv;
	qpx->wr_set_inline_data = qpx_wr_set_inline_data;
	qpx->wr_set_inline_data_list = qpx_wr_set_inline_data_list;
	qpx->wr_set_sge = qpx_wr_set_sge;
	qpx->wr_set_sge_list = qpx_wr_set_sge_list;
	qpx->wr_start = qpx_wr_start;
	qpx->wr_complete = qpx_wr_complete;
	qpx->wr_abort = qpx_wr_abort;
	qp->vqp.comp_mask |= VERBS_QP_EX;
}
