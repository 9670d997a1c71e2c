// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: rings shared with a user process (include/uapi/rdma/siw2-abi.h).
 *
 * A ring is vmalloc_user() memory offered to the process through the
 * uverbs mmap entry API. The kernel stops using it when its queue is
 * destroyed and frees it when the mmap entry goes (siw2_mmap_free());
 * pages a process still maps stay with that mapping (remap_vmalloc_range()
 * holds a reference on each) until it is unmapped.
 *
 * Everything in a ring is the process's to scribble on. The kernel keeps
 * its own copy of every index it publishes, reads an index the process
 * writes once and checks it against its own, and copies an entry before
 * it looks at any field of it.
 */

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

#include "siw2.h"
#include "siw2_wr.h"

static struct siw2_ring *to_siw2_ring(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct siw2_ring, mentry);
}

/**
 * siw2_ring_create - allocate a ring and offer it for mmap
 * @uctx: the process's context
 * @slots: number of entries, a power of two
 * @stride: entry size in octets, a multiple of 8
 *
 * Return: the ring, or ERR_PTR(-ENOMEM).
 */
struct siw2_ring *siw2_ring_create(struct ib_ucontext *uctx, u32 slots,
				   u32 stride)
{
	struct siw2_ring *r;
	size_t len;
	int rv;

	if (WARN_ON_ONCE(!is_power_of_2(slots) || stride % 8))
		return ERR_PTR(-EINVAL);
	len = PAGE_ALIGN(SIW2_RING_LEN(slots, stride));
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	r->mem = vmalloc_user(len);
	if (!r->mem) {
		kfree(r);
		return ERR_PTR(-ENOMEM);
	}
	r->ctl = r->mem;
	r->slots = slots;
	r->stride = stride;
	rv = rdma_user_mmap_entry_insert(uctx, &r->mentry, len);
	if (rv) {
		vfree(r->mem);
		kfree(r);
		return ERR_PTR(rv);
	}
	return r;
}

/**
 * siw2_ring_offset - the mmap offset the process maps the ring at
 * @r: ring
 *
 * Return: the offset.
 */
u64 siw2_ring_offset(struct siw2_ring *r)
{
	return rdma_user_mmap_get_offset(&r->mentry);
}

/**
 * siw2_ring_destroy - withdraw a ring; its memory goes with the last mapping
 * @r: ring, or NULL
 */
void siw2_ring_destroy(struct siw2_ring *r)
{
	if (r)
		rdma_user_mmap_entry_remove(&r->mentry);
}

/**
 * siw2_mmap_free - free a ring no process maps or can map any more
 * @e: its mmap entry
 */
void siw2_mmap_free(struct rdma_user_mmap_entry *e)
{
	struct siw2_ring *r = to_siw2_ring(e);

	vfree(r->mem);
	kfree(r);
}

/**
 * siw2_mmap - map a ring into a process
 * @uctx: the process's context
 * @vma: the mapping: shared, the ring's exact length at its offset
 *
 * Return: 0, -EINVAL for an unknown offset, a wrong length or a private
 * mapping, -EPERM for an executable one, or the error of
 * remap_vmalloc_range().
 */
int siw2_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *e;
	int rv;

	e = rdma_user_mmap_entry_get(uctx, vma);
	if (!e)
		return -EINVAL;
	/* A ring holds no code. */
	if (vma->vm_flags & VM_EXEC) {
		rdma_user_mmap_entry_put(e);
		return -EPERM;
	}
	vm_flags_clear(vma, VM_MAYEXEC);
	/*
	 * A forked child does not get it: its writes would post on the
	 * parent's QP, and libibverbs objects are the parent's alone.
	 */
	vm_flags_set(vma, VM_DONTCOPY);
	rv = remap_vmalloc_range(vma, to_siw2_ring(e)->mem, 0);
	rdma_user_mmap_entry_put(e);
	return rv;
}

/**
 * siw2_ring_slots - ring size for a queue depth
 * @depth: entries the consumer asked for, at least 1
 *
 * Return: the smallest power of two not below @depth.
 */
u32 siw2_ring_slots(u32 depth)
{
	return roundup_pow_of_two(depth);
}

/* ---- queues fed from rings ---- */

/* The opcode as the kernel's work requests name it. */
static enum ib_wr_opcode siw2_sq_ring_op(u8 op)
{
	return op == SIW2_WR_SEND_WITH_INV_IMM ? IB_WR_SEND_WITH_IMM : op;
}

/*
 * The checks siw2_post_send() makes on a work request, made on the copy
 * of a send queue ring entry, plus the entry's own format. A failing
 * entry is queued as bad and fails its QP when the TX engine reaches it
 * (IB_WC_LOC_QP_OP_ERR).
 */
/*
 * A Commit's log update names an 8-octet aligned word (SIW2-DEC-1); with
 * none, its fields are 0.
 */
static bool siw2_sq_commit_ok(const struct siw2_sq_wqe *e)
{
	if (e->commit.flags & ~(SIW2_COMMIT_F_LOG | SIW2_COMMIT_F_GLOBAL))
		return false;
	if (e->commit.flags & SIW2_COMMIT_F_LOG)
		return !(e->commit.log_to & 7);
	return !e->commit.log_to && !e->commit.log_value &&
	       !e->commit.log_stag;
}

static bool siw2_sq_wqe_ok(struct siw2_qp *qp, const struct siw2_sq_wqe *e)
{
	u32 r = siw2_wr_rules(e->opcode);
	bool inl = e->flags & SIW2_WQE_INLINE;
	u64 len = 0;
	u32 i;

	if (!(r & SIW2_WRF_OK) || (r & SIW2_WRF_NO_RING) ||
	    e->flags & ~SIW2_WQE_FLAGS ||
	    e->num_sge > qp->cap.max_send_sge || (inl && e->num_sge))
		return false;
	/* Operands only where the opcode has them (imm: compare_add). */
	if (r & SIW2_WRF_BIND) {
		/* The window in @rkey, the rest in @bind; nothing else. */
		if (e->num_sge || inl || e->raddr || e->inv_stag ||
		    e->inline_len)
			return false;
	} else if (r & SIW2_WRF_COMMIT) {
		if (!siw2_sq_commit_ok(e))
			return false;
	} else if (!(r & SIW2_WRF_ATOMIC) &&
		   ((e->atomic.compare_add && !(r & SIW2_WRF_IMM)) ||
		    e->atomic.swap || e->atomic.compare_add_mask ||
		    e->atomic.swap_mask)) {
		return false;
	}
	if (inl)
		len = e->inline_len;
	for (i = 0; i < e->num_sge; i++)
		len += e->sge[i].length;
	if (r & SIW2_WRF_COMMIT)
		len = e->commit.len;
	return !siw2_wr_check(qp, e->opcode, inl, e->num_sge, len);
}

static void siw2_sq_fill(struct siw2_wq *wq, u32 slot, const void *entry)
{
	struct siw2_qp *qp = container_of(wq, struct siw2_qp, sq);
	const struct siw2_sq_wqe *e = entry;
	struct siw2_sqe *sqe = siw2_wq_at(wq, slot);

	memset(sqe, 0, wq->esize);
	sqe->wr_id = e->wr_id;
	sqe->state = SIW2_SQE_QUEUED;
	if (!siw2_sq_wqe_ok(qp, e)) {
		/* Completes as a Send: it must not look like a Read. */
		sqe->opcode = IB_WR_SEND;
		sqe->bad = true;
		return;
	}
	sqe->opcode = siw2_sq_ring_op(e->opcode);
	sqe->inv_imm = e->opcode == SIW2_WR_SEND_WITH_INV_IMM;
	sqe->send_flags = e->flags;	/* the IB_SEND_* values */
	sqe->raddr = e->raddr;
	sqe->rkey = e->rkey;
	sqe->inv_stag = e->inv_stag;
	/* A Commit's operands share the union: they are read below. */
	if (siw2_wr_rules(e->opcode) & SIW2_WRF_IMM) {
		sqe->imm = e->imm;
	} else if (siw2_wr_rules(e->opcode) & SIW2_WRF_BIND) {
		sqe->bind.addr = e->bind.addr;
		sqe->bind.length = e->bind.length;
		sqe->bind.mr_lkey = e->bind.mr_lkey;
		sqe->bind.access = e->bind.access;
		return;
	} else if (!(siw2_wr_rules(e->opcode) & SIW2_WRF_COMMIT)) {
		siw2_wr_atomic(sqe, e->atomic.compare_add, e->atomic.swap,
			       e->atomic.compare_add_mask, e->atomic.swap_mask);
	}
	if (e->flags & SIW2_WQE_INLINE) {
		sqe->len = e->inline_len;
		memcpy(qp->sq_inline + slot * qp->cap.max_inline_data,
		       (const u8 *)e->sge, e->inline_len);
		return;
	}
	sqe->num_sge = e->num_sge;
	sqe->len = siw2_ring_sge_copy(sqe->sge, e->sge, e->num_sge);
	if (siw2_wr_rules(e->opcode) & SIW2_WRF_COMMIT) {
		sqe->len = e->commit.len;	/* checked: <= U32_MAX */
		sqe->commit_log = e->commit.flags & SIW2_COMMIT_F_LOG;
		sqe->commit_global = e->commit.flags & SIW2_COMMIT_F_GLOBAL;
		sqe->log.stag = e->commit.log_stag;
		sqe->log.to = e->commit.log_to;
		sqe->log.value = e->commit.log_value;
	}
}

static void siw2_rq_fill(struct siw2_wq *wq, u32 slot, const void *entry)
{
	struct siw2_qp *qp = container_of(wq, struct siw2_qp, rq);

	siw2_rqe_from_ring(siw2_wq_at(wq, slot), entry, qp->cap.max_recv_sge);
}

static void siw2_srq_fill(struct siw2_wq *wq, u32 slot, const void *entry)
{
	struct siw2_srq *srq = container_of(wq, struct siw2_srq, rq);

	siw2_rqe_from_ring(siw2_wq_at(wq, slot), entry, srq->max_sge);
}

static u32 siw2_rq_stride(u32 max_sge)
{
	return sizeof(struct siw2_rq_wqe) + max_sge * sizeof(struct siw2_ring_sge);
}

/**
 * siw2_qp_rings_create - give a user QP its send and receive queue rings
 * @qp: QP, its queues initialised with power-of-two sizes and @qp->cap set
 * @uctx: the process's context
 * @resp: the create_qp response, ring fields filled in here
 *
 * Return: 0 or -ENOMEM.
 */
int siw2_qp_rings_create(struct siw2_qp *qp, struct siw2_ucontext *uctx,
			 struct siw2_uresp_create_qp *resp)
{
	u32 sge = qp->cap.max_send_sge * sizeof(struct siw2_ring_sge);
	u32 stride = sizeof(struct siw2_sq_wqe) +
		     max(sge, ALIGN(qp->cap.max_inline_data, 8));
	struct siw2_ring *r;

	BUILD_BUG_ON(sizeof(struct siw2_ring_ctl) != SIW2_RING_CTL_SIZE);
	BUILD_BUG_ON(sizeof(struct siw2_sq_wqe) != 64);
	BUILD_BUG_ON(sizeof(struct siw2_rq_wqe) != 16);
	BUILD_BUG_ON(sizeof(struct siw2_cqe) != 40);
	BUILD_BUG_ON(64 + SIW2_MAX_SGE * sizeof(struct siw2_ring_sge) >
		     SIW2_RING_STRIDE_MAX);

	r = siw2_ring_create(&uctx->base, qp->cap.max_send_wr, stride);
	if (IS_ERR(r))
		return PTR_ERR(r);
	siw2_wq_attach_ring(&qp->sq, r, siw2_sq_fill);
	resp->sq_stride = stride;
	resp->sq_offset = siw2_ring_offset(r);
	resp->max_inline = qp->cap.max_inline_data;
	if (!qp->cap.max_recv_wr)
		return 0;
	stride = siw2_rq_stride(qp->cap.max_recv_sge);
	r = siw2_ring_create(&uctx->base, qp->cap.max_recv_wr, stride);
	if (IS_ERR(r))
		return PTR_ERR(r);
	siw2_wq_attach_ring(&qp->rq, r, siw2_rq_fill);
	resp->rq_stride = stride;
	resp->rq_offset = siw2_ring_offset(r);
	return 0;
}

/**
 * siw2_srq_ring_create - give a user SRQ its ring
 * @srq: SRQ, its queue initialised with a power-of-two size
 * @uctx: the process's context
 * @resp: the create_srq response, ring fields filled in here
 *
 * Return: 0 or -ENOMEM.
 */
int siw2_srq_ring_create(struct siw2_srq *srq, struct siw2_ucontext *uctx,
			 struct siw2_uresp_create_srq *resp)
{
	u32 stride = siw2_rq_stride(srq->max_sge);
	struct siw2_ring *r;

	r = siw2_ring_create(&uctx->base, srq->rq.size, stride);
	if (IS_ERR(r))
		return PTR_ERR(r);
	siw2_wq_attach_ring(&srq->rq, r, siw2_srq_fill);
	resp->stride = stride;
	resp->offset = siw2_ring_offset(r);
	return 0;
}

/**
 * siw2_qp_rings_state - show the process its QP's state
 * @qp: QP (state lock held)
 * @state: the new IB state
 */
void siw2_qp_rings_state(struct siw2_qp *qp, enum ib_qp_state state)
{
	u32 f;

	if (qp->sq.ring && state == IB_QPS_RTS) {
		/* Before the state: a process that sees RTS sees these. */
		f = (siw2_conn_ext(&qp->conn) ? SIW2_CONN_F_EXT : 0) |
		    (siw2_conn_rv(&qp->conn) == SIW2_RDMAP_V2 ?
		     SIW2_CONN_F_RV2 : 0) |
		    (qp->read_v2 ? SIW2_CONN_F_READ_V2 : 0) |
		    (qp->conn.caps & SIW2_MPA_CAP_COMMIT ? SIW2_CONN_F_COMMIT : 0);
		WRITE_ONCE(qp->sq.ring->ctl->conn_flags, f);
		smp_wmb(); /* conn_flags before qp_state */
	}
	if (qp->sq.ring)
		WRITE_ONCE(qp->sq.ring->ctl->qp_state, state);
	if (qp->rq.ring)
		WRITE_ONCE(qp->rq.ring->ctl->qp_state, state);
}

/**
 * siw2_sq_ring_busy - tell the process whether the TX engine looks again
 * @qp: a QP with a send queue ring
 * @busy: the engine will look at the ring without a doorbell
 *
 * Clearing is followed by a full barrier: the caller looks at the ring
 * once more afterwards, and the process reads the flag after publishing
 * its index, so a new entry is either seen here or rung for.
 */
void siw2_sq_ring_busy(struct siw2_qp *qp, bool busy)
{
	WRITE_ONCE(qp->sq.ring->ctl->kflags, busy ? SIW2_RING_F_BUSY : 0);
	if (!busy)
		smp_mb(); /* the cleared flag before the next look at the index */
}
