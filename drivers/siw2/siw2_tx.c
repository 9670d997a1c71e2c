// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the transmit engine - work requests and RDMA Read Responses to
 * DDP segments (RFC 5041 5), framed as MPA FPDUs with CRC32c (RFC 5044 5),
 * handed to TCP without blocking.
 *
 * The engine runs under qp->tx_lock, either as the QP's work item or, for
 * user QPs, directly in the post_send system call (siw2_tx_direct()). A
 * run sends at most SIW2_TX_BUDGET octets, then the work item continues;
 * a full socket ends the run and write_space() starts the next.
 *
 * A user QP with a send queue ring posts without system calls: the engine
 * takes new entries whenever it looks for work, and only when it has
 * found none and stopped does the process have to ring (SIW2_RING_F_BUSY).
 * Stopping (siw2_tx_ring_idle()) is decided by the work item, which
 * a doorbell queues: what the process posts while the engine works, or
 * until that work item has run, needs no doorbell. A streaming engine
 * that runs dry lingers first: it looks again on a timer a few times
 * (siw2_tx_linger()), and a message coming in ends that at once. A
 * doorbell that answers a message is sent, and the engine stopped, in
 * the system call; any other is left to the work item, so the process
 * posts on in parallel.
 * (Spinning on an empty ring, or requeueing the work item, starved the
 * posting process on the 2-CPU test guest: the timer sleeps instead.)
 *
 * Messages go out whole, one after the other: Read Responses first
 * (RFC 5040 5.5 only orders them among themselves), then the send queue
 * in order. A Terminate goes out at the next FPDU boundary, and
 * nothing after it. Between siw2 peers, while more is queued behind an
 * FPDU, it goes to TCP with MSG_MORE, so that small messages share
 * segments (one TCP/IP and veth pass, one receive softirq, for many);
 * every run ends with a push (siw2_tx_run()), so nothing waits for a
 * later one. Towards other peers each FPDU is pushed on its own, as
 * Linux siw sends (RFC 5044 alignment).
 *
 * Sends and Writes are copied by TCP (sendmsg over kvecs): a work request
 * completes once TCP holds its data (BASE-RDMAP-7), and the consumer may
 * reuse the buffer at once without changing what a retransmission sends.
 * Read Responses complete nothing locally, so their payload pages go to
 * TCP by reference (MSG_SPLICE_PAGES, tx_zcopy); the header and trailer
 * are copied in calls of their own around them. With MPA CRC a Read
 * Response's payload is first copied into the QP's tx_rresp_copy and
 * the CRC taken over that copy: the consumer (or an inbound Write) may
 * change a Read source at any time, which leaves the data undefined
 * (RFC 5040) but must not make the CRC disagree with what TCP sends.
 */

#include <linux/cache.h>
#include <linux/crc32c.h>
#include <linux/libnvdimm.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/socket.h>
#include "siw2_compat.h"
#include <net/sock.h>
#include <net/tcp.h>

#include <siw2/kapi.h>

#include "siw2.h"
#include "siw2_fpdu.h"
#include "siw2_fuzz.h"
#include "siw2_pmem.h"
#include "siw2_term.h"
#include "siw2_trace.h"
#include "siw2_wr.h"

/**
 * siw2_tx_kick - make the TX engine run
 * @qp: QP; any context
 */
void siw2_tx_kick(struct siw2_qp *qp)
{
	if (READ_ONCE(qp->dp_on))
		queue_work(siw2_dp_wq, &qp->tx_work);
}

/*
 * Send queue entries taken but not started, or published in the ring and
 * not taken yet. A lockless hint.
 */
static bool siw2_tx_sq_waiting(struct siw2_qp *qp)
{
	return READ_ONCE(qp->sq_txpos) != READ_ONCE(qp->sq.count) ||
	       siw2_wq_ring_waiting(&qp->sq);
}

/**
 * siw2_tx_kick_waiting - make the TX engine run if send work waits for it
 * @qp: QP; any context
 *
 * For an event that can only unblock work already queued (an ORD slot
 * freed, a fence lifted, a send window slot retired): an engine with
 * nothing queued is not woken, since such a wake-up could only take the
 * TX lock from the process's next doorbell.
 */
void siw2_tx_kick_waiting(struct siw2_qp *qp)
{
	if (siw2_tx_sq_waiting(qp))
		siw2_tx_kick(qp);
}

/**
 * siw2_tx_init - prepare the TX engine for a connection in RDMA mode
 * @qp: QP, its socket and negotiated values set, engines stopped
 */
void siw2_tx_init(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	u32 mss = qp->sock ? READ_ONCE(tcp_sk(qp->sock->sk)->mss_cache) :
			     siw2_fuzz_llp_mss(siw2_qp_fuzz(qp));

	memset(tx, 0, sizeof(*tx));
	tx->msn_next[SIW2_QN_SEND] = 1;
	tx->msn_next[SIW2_QN_READ_REQ] = 1;
	tx->msn_next[SIW2_QN_TERMINATE] = 1;
	tx->msn_next[SIW2_QN_RESPONSE] = 1;
	tx->qn3_next = 1;
	tx->rv = siw2_conn_rv(&qp->conn);
	tx->ext = siw2_conn_ext(&qp->conn);
	tx->big = qp->conn.caps;
	/* 2 + ULPDU + PAD is a multiple of 4 and, with the CRC, fits the MSS. */
	mss = max_t(u32, mss, 128);
	tx->ulpdu_max = tx->big ? SIW2_FPDU_BIG_PAYLOAD + SIW2_TX_HDR_MAX :
				  round_down(mss - SIW2_MPA_CRC_LEN, 4) -
				  SIW2_MPA_HDR_LEN;
}

/* A message's FPDU or the Terminate, @len octets, is framed. */
static void siw2_tx_count_fpdu(struct siw2_qp *qp, u32 len)
{
	siw2_stat_add(qp, SIW2_STAT_TX_FPDUS, 1);
	siw2_stat_add(qp, SIW2_STAT_TX_BYTES, len);
}

static void siw2_tx_put_src(struct siw2_tx *tx)
{
	u32 i;

	for (i = 0; i < tx->nsrc; i++) {
		if (tx->src_mr[i])
			siw2_mr_put(tx->src_mr[i]);
		tx->src_mr[i] = NULL;
	}
	tx->nsrc = 0;
}

/* Drop the source MR of the Read (or Atomic) being answered. */
static void siw2_tx_put_irqe(struct siw2_tx *tx)
{
	if (tx->irqe.mr)
		siw2_mr_put(tx->irqe.mr);
	if (tx->irqe.log_mr)
		siw2_mr_put(tx->irqe.log_mr);
	tx->irqe.mr = NULL;
	tx->irqe.log_mr = NULL;
	tx->nsrc = 0;
}

/**
 * siw2_tx_release - drop what the TX engine holds
 * @qp: QP whose engines are stopped
 */
void siw2_tx_release(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;

	if (tx->kind == SIW2_TX_RRESP)
		siw2_tx_put_irqe(tx);
	siw2_tx_put_src(tx);
	tx->kind = SIW2_TX_IDLE;
	tx->wb_on = false;
	tx->fpdu_left = 0;
}

/**
 * siw2_tx_terminate - queue a Terminate as the last message of the stream
 * @qp: QP
 * @c: Layer, EType and Code
 * @ddp_hdr: the offending segment's DDP header, or NULL (RFC 5040 4.8)
 * @ddp_len: its length (14 or 18)
 * @seg_len: the offending segment's length (ULPDU_Length)
 * @rdmap_hdr: its RDMAP header (a Read Request's 28 octets), or NULL
 *
 * Called once per QP, by the engine that found the first fatal error;
 * the TX engine sends it at its next FPDU boundary, then reports the
 * failure (siw2_dp_fail()).
 */
void siw2_tx_terminate(struct siw2_qp *qp, const struct siw2_term_code *c,
		       const u8 *ddp_hdr, u32 ddp_len, u32 seg_len,
		       const u8 *rdmap_hdr)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_ddp_untagged *h = (void *)(tx->term + SIW2_MPA_HDR_LEN);
	u8 *p = (u8 *)(h + 1);
	u32 ctrl = siw2_term_ctrl(c->layer, c->etype, c->code);
	size_t ulpdu;
	int len;

	if (ddp_hdr) {
		ctrl |= SIW2_TERM_F_M | SIW2_TERM_F_D;
		if (rdmap_hdr)
			ctrl |= SIW2_TERM_F_R;
	}
	h->ctrl = cpu_to_be16(siw2_ddp_ctrl(false, true, tx->rv,
					    SIW2_OP_TERMINATE));
	h->rsvd_ulp = 0;
	h->qn = cpu_to_be32(SIW2_QN_TERMINATE);
	h->msn = cpu_to_be32(tx->msn_next[SIW2_QN_TERMINATE]++);
	h->mo = 0;
	put_unaligned_be32(ctrl, p);
	p += 4;
	if (ddp_hdr) {
		put_unaligned_be16(seg_len, p);
		memcpy(p + 2, ddp_hdr, ddp_len);
		p += 2 + ddp_len;
		if (rdmap_hdr) {
			memcpy(p, rdmap_hdr, sizeof(struct siw2_rdmap_read_req));
			p += sizeof(struct siw2_rdmap_read_req);
		}
	}
	ulpdu = p - (u8 *)h;
	len = siw2_fpdu_seal(tx->term, sizeof(tx->term), ulpdu, qp->conn.crc);
	if (len < 0)
		return;
	trace_siw2_dp_term(qp->base.qp_num, "send", c->layer, c->etype,
			   c->code);
	siw2_stat_term(qp, SIW2_STAT_TERM_TX_RDMAP, c->layer);
	/* Pairs with the acquire in siw2_tx_work(). */
	smp_store_release(&tx->term_len, len);
	siw2_tx_kick(qp);
}

/* A local error while making a message (BASE-RDMAP-8): no headers. */
static void siw2_tx_local_error(struct siw2_qp *qp, u32 slot,
				enum ib_wc_status status)
{
	static const struct siw2_term_code catastrophic = {
		SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_CATASTROPHIC, 0
	};

	siw2_dp_sq_error(qp, slot, status);
	if (test_and_set_bit(0, &qp->dp_failed))
		return;
	qp->fail_event = IB_EVENT_QP_FATAL;
	siw2_tx_terminate(qp, &catastrophic, NULL, 0, 0, NULL);
}

/*
 * A Commit's Invalidate STag could not be invalidated after the commit
 * (DEC-20): the stream ends with 0/2/0x09. The Commit's headers are gone
 * by now, so the Terminate carries none.
 */
static void siw2_tx_terminate_inv(struct siw2_qp *qp)
{
	static const struct siw2_term_code cant_inval = {
		SIW2_TERM_LAYER_RDMAP, SIW2_TERM_ETYPE_REMOTE_OP,
		SIW2_TERM_RDMAP_CANT_INVAL
	};

	if (test_and_set_bit(0, &qp->dp_failed))
		return;
	qp->fail_event = siw2_term_qp_event(cant_inval.layer, cant_inval.etype,
					    cant_inval.code);
	siw2_tx_terminate(qp, &cant_inval, NULL, 0, 0, NULL);
}

/* Look up and check the local SGEs of a work request. */
static enum siw2_mem_err siw2_tx_load_sges(struct siw2_qp *qp,
					   const struct siw2_sqe *wqe,
					   int access)
{
	struct siw2_tx *tx = &qp->tx;
	enum siw2_mem_err err;
	u32 i;

	tx->nsrc = 0;
	for (i = 0; i < wqe->num_sge; i++) {
		const struct siw2_sge *s = &wqe->sge[i];

		if (!s->length)
			continue;
		err = siw2_mr_lookup(qp->sdev, qp->base.pd, s->lkey, s->addr,
				     s->length, access, &tx->src_mr[tx->nsrc]);
		if (err) {
			siw2_tx_put_src(tx);
			return err;
		}
		tx->src[tx->nsrc++] = *s;
	}
	return SIW2_MEM_OK;
}

/* The QN 1 request a work request sends, 0 for none (siw2_orqe.op). */
static u8 siw2_tx_orq_op(struct siw2_qp *qp, u32 rules)
{
	if (!(rules & SIW2_WRF_ORQ))
		return 0;
	if (rules & SIW2_WRF_READ)
		return qp->read_v2 ? SIW2_OP_READ_V2_REQ : SIW2_OP_READ_REQ;
	if (rules & SIW2_WRF_COMMIT)
		return SIW2_OP_COMMIT_REQ;
	return SIW2_OP_ATOMIC_REQ;
}

/*
 * Set up the next message of the TX engine: RDMAP opcode @op, @len
 * octets. Tagged or not, and the queue, come from the opcode (DDP's
 * table); an untagged message takes the next MSN of its queue.
 */
static void siw2_tx_msg(struct siw2_tx *tx, u8 op, u32 len)
{
	tx->op = op;
	tx->tagged = siw2_rdmap_op_tagged(op);
	if (!tx->tagged) {
		tx->qn = siw2_rdmap_op_qn(op);
		tx->msn = tx->msn_next[tx->qn]++;
	}
	tx->inval = 0;
	tx->len = len;
	tx->off = 0;
	tx->si = 0;
	tx->soff = 0;
	tx->fpdus = 0;
}

/*
 * The local buffer of an atomic work request: the original value's sink
 * is checked, an Atomic Write's data is read now. Return: 0, or a
 * completion status for the local error.
 */
static enum ib_wc_status siw2_tx_atomic_local(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_sqe *wqe = &tx->wqe;
	u8 v[sizeof(u64)];
	u32 got = 0, n;
	void *kaddr;
	u64 val;

	if (!tx->ext)
		return IB_WC_LOC_QP_OP_ERR;	/* a ring entry, see post_send */
	if (wqe->opcode != IB_WR_ATOMIC_WRITE) {
		if (siw2_tx_load_sges(qp, wqe, IB_ACCESS_LOCAL_WRITE))
			return IB_WC_LOC_PROT_ERR;
		siw2_tx_put_src(tx);
		return IB_WC_SUCCESS;
	}
	if (wqe->send_flags & IB_SEND_INLINE) {
		memcpy(v, qp->sq_inline + tx->slot * qp->cap.max_inline_data,
		       sizeof(v));
	} else {
		if (siw2_tx_load_sges(qp, wqe, 0))
			return IB_WC_LOC_PROT_ERR;
		while (got < sizeof(v)) {
			n = siw2_mr_kaddr(tx->src_mr[0], tx->src[0].addr + got,
					  sizeof(v) - got, &kaddr);
			memcpy(v + got, kaddr, n);
			got += n;
		}
		siw2_tx_put_src(tx);
	}
	/* The target stores the 8 octets as given: host order both ends. */
	memcpy(&val, v, sizeof(val));
	wqe->atomic.add_swap = val;
	return IB_WC_SUCCESS;
}

/* An Atomic Request; its ORQ entry and Request Identifier came at pick-up. */
static enum ib_wc_status siw2_tx_start_atomic(struct siw2_qp *qp)
{
	enum ib_wc_status st = siw2_tx_atomic_local(qp);

	if (!st)
		siw2_tx_msg(&qp->tx, SIW2_OP_ATOMIC_REQ, 0);	/* EXT-ATOMIC-14 */
	return st;
}

/*
 * An RDMA Commit Request, on QN 1 like a Read (COMMIT-HDR-3); its ORQ
 * entry and Request Identifier came at pick-up. It names no local buffer.
 */
static enum ib_wc_status siw2_tx_start_commit(struct siw2_qp *qp)
{
	siw2_tx_msg(&qp->tx, SIW2_OP_COMMIT_REQ, 0);
	return IB_WC_SUCCESS;
}

/* A Send with Immediate Data: its last segment is the 8 octets (DEC-6). */
static bool siw2_tx_imm_tail(const struct siw2_tx *tx)
{
	return tx->op >= SIW2_OP_SEND_IMM && tx->op <= SIW2_OP_SEND_SE_INV_IMM;
}

/*
 * Make the current work request's next message an Immediate Data
 * message (EXT-IMM-5/10): alone, or after the Write of an
 * IB_WR_RDMA_WRITE_WITH_IMM (DEC-16).
 */
static void siw2_tx_imm_msg(struct siw2_tx *tx)
{
	tx->imm_next = false;
	/* EXT-IMM-9: on QN 0 */
	siw2_tx_msg(tx, tx->wqe.send_flags & IB_SEND_SOLICITED ?
			SIW2_OP_IMM_SE : SIW2_OP_IMM, 0);
	tx->inline_buf = NULL;
}

/* A local operation (no message): done here. */
static void siw2_tx_start_local(struct siw2_qp *qp, u32 rules)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_sqe *wqe = &tx->wqe;

	if (rules & SIW2_WRF_INV) {
		if (siw2_mr_invalidate(qp->sdev, qp->base.pd, wqe->inv_stag))
			siw2_tx_local_error(qp, tx->slot, IB_WC_LOC_PROT_ERR);
		else
			siw2_dp_sqe_done(qp, tx->slot, IB_WC_SUCCESS, 0);
		return;
	}
	if (rules & SIW2_WRF_BIND) {
		if (siw2_mw_bind(qp->sdev, qp->base.pd, wqe->rkey, &wqe->bind))
			siw2_tx_local_error(qp, tx->slot, IB_WC_MW_BIND_ERR);
		else
			siw2_dp_sqe_done(qp, tx->slot, IB_WC_SUCCESS, 0);
		return;
	}
	/* IB_WR_REG_MR, the other local operation. */
	if (siw2_mr_fast_reg(wqe->reg_mr, qp->base.pd, wqe->reg_key,
			     wqe->reg_access))
		siw2_tx_local_error(qp, tx->slot, IB_WC_MW_BIND_ERR);
	else
		siw2_dp_sqe_done(qp, tx->slot, IB_WC_SUCCESS, 0);
}

/* An RDMA Read: the sink is checked now (its ORQ entry came at pick-up). */
static enum ib_wc_status siw2_tx_start_read(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;

	if (siw2_tx_load_sges(qp, &tx->wqe, IB_ACCESS_LOCAL_WRITE))
		return IB_WC_LOC_PROT_ERR;
	siw2_tx_put_src(tx);
	/* DEC-15: a Read V2's response will be untagged, on QN 3. */
	siw2_tx_msg(tx, qp->read_v2 ? SIW2_OP_READ_V2_REQ : SIW2_OP_READ_REQ,
		    0);
	return IB_WC_SUCCESS;
}

/* A Write, a Send, or Immediate Data alone: the payload, then the message. */
static enum ib_wc_status siw2_tx_start_msg(struct siw2_qp *qp, u32 rules)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_sqe *wqe = &tx->wqe;
	bool inv;

	if (wqe->send_flags & IB_SEND_INLINE)
		tx->inline_buf = qp->sq_inline +
				 tx->slot * qp->cap.max_inline_data;
	else if (siw2_tx_load_sges(qp, wqe, 0))
		return IB_WC_LOC_PROT_ERR;
	if ((rules & SIW2_WRF_REMOTE) && (rules & SIW2_WRF_IMM) && !wqe->len) {
		/* Immediate Data alone (DEC-16). */
		siw2_tx_imm_msg(tx);
	} else if (rules & SIW2_WRF_REMOTE) {
		siw2_tx_msg(tx, SIW2_OP_WRITE, wqe->len);
		tx->stag = wqe->rkey;
		tx->to = wqe->raddr;
		tx->imm_next = rules & SIW2_WRF_IMM;
	} else {
		inv = (rules & SIW2_WRF_INV) || wqe->inv_imm;
		siw2_tx_msg(tx, siw2_rdmap_send_op(inv,
						   wqe->send_flags &
						   IB_SEND_SOLICITED,
						   rules & SIW2_WRF_IMM),
			    wqe->len);
		tx->inval = inv ? wqe->inv_stag : 0;
	}
	return IB_WC_SUCCESS;
}

/*
 * Start the work request copied to tx->wqe, as its rules say
 * (siw2_wr.c). Local operations finish here; messages are set up for
 * siw2_tx_build().
 */
static void siw2_tx_start_sqe(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_sqe *wqe = &tx->wqe;
	u32 rules = siw2_wr_rules_of(wqe->opcode);
	enum ib_wc_status st;

	tx->nsrc = 0;
	tx->inline_buf = NULL;
	tx->imm_next = false;
	tx->imm_sent = false;
	if (wqe->bad) {
		/* A ring entry the process filled in wrong. */
		siw2_tx_local_error(qp, tx->slot, IB_WC_LOC_QP_OP_ERR);
		return;
	}
	if (rules & SIW2_WRF_LOCAL) {
		siw2_tx_start_local(qp, rules);
		return;
	}
	if (rules & SIW2_WRF_READ)
		st = siw2_tx_start_read(qp);
	else if (rules & SIW2_WRF_COMMIT)
		st = siw2_tx_start_commit(qp);
	else if (rules & SIW2_WRF_ORQ)
		st = siw2_tx_start_atomic(qp);
	else
		st = siw2_tx_start_msg(qp, rules);
	if (st) {
		siw2_tx_local_error(qp, tx->slot, st);
		return;
	}
	tx->kind = SIW2_TX_SQE;
}

/*
 * Execute the Atomic Request at the head of the IRQ and make its
 * response. It runs when its turn to be answered comes, not when it
 * arrived: a Read Response queued before it still reads the memory as it
 * was (EXT-ORD-T12, T15), and one queued after it sees the result
 * (EXT-ORD-T11). RX checked the target (STag, rights, bounds, alignment).
 */
static void siw2_tx_atomic_exec(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	void *kaddr;

	siw2_mr_kaddr(tx->irqe.mr, tx->irqe.src_to, sizeof(u64), &kaddr);
	if (siw2_atomic_apply(kaddr, &tx->irqe.aop, &tx->orig))
		tx->orig = 0;	/* not reached: RX refused such requests */
	trace_siw2_dp_atomic(qp->base.qp_num, tx->irqe.aop.aop,
			     tx->irqe.req_id, tx->orig);
	siw2_tx_msg(tx, SIW2_OP_ATOMIC_RESP, 0);	/* EXT-ATOMIC-20: QN 3 */
}

/* The Status values kernel consumers see are the wire's (DEC-13). */
static_assert((int)SIW2_COMMIT_STATUS_MEDIA == (int)SIW2_COMMIT_ST_MEDIA &&
	      (int)SIW2_COMMIT_STATUS_LIMIT == (int)SIW2_COMMIT_ST_LIMITS &&
	      (int)SIW2_COMMIT_STATUS_RETRY == (int)SIW2_COMMIT_ST_RETRY);

/* How many CPU cache lines [@p, @p + @n) touches. */
static u32 siw2_cache_lines(const void *p, u32 n)
{
	uintptr_t a = (uintptr_t)p;

	return (ALIGN(a + n, L1_CACHE_BYTES) - ALIGN_DOWN(a, L1_CACHE_BYTES)) /
	       L1_CACHE_BYTES;
}

/* Registered durable: a Commit writes its lines back (DEC-14). */
static bool siw2_mr_durable(const struct siw2_mr *mr)
{
	return READ_ONCE(mr->access) & IB_ACCESS_FLUSH_PERSISTENT;
}

/*
 * Does the kernel know a page of [@kaddr, @kaddr + @n) poisoned (memory
 * failure handling, after a machine check or an injection)? Such a page
 * may be unmapped from the kernel's linear map: it must not be touched.
 * Device-DAX marks a large page's head.
 */
static bool siw2_kaddr_poisoned(const void *kaddr, u32 n)
{
	uintptr_t a = (uintptr_t)kaddr & PAGE_MASK;
	uintptr_t end = (uintptr_t)kaddr + n;
	struct page *pg;

	for (; a < end; a += PAGE_SIZE) {
		pg = virt_to_page((void *)a);
		if (PageHWPoison(pg) || PageHWPoison(compound_head(pg)))
			return true;
	}
	return false;
}

/*
 * A Commit's log update (SIW2-DEC-1, COMMIT-ATOM-2) after a range that
 * earned @range: one aligned 8-octet store (RX checked the alignment),
 * then the word's cache line written back if its MR is durable; or,
 * as siw2_commit_log_status() decides, no store at all.
 * Return: the Status the log update leaves.
 */
static u32 siw2_tx_commit_log(struct siw2_qp *qp, const struct siw2_irqe *e,
			      u32 range)
{
	bool durable = siw2_mr_durable(e->log_mr);
	u32 status;
	void *kaddr;

	siw2_mr_kaddr(e->log_mr, e->log.to, sizeof(u64), &kaddr);
	status = siw2_commit_log_status(range, durable,
					siw2_kaddr_poisoned(kaddr, sizeof(u64)));
	if (!siw2_commit_done(status)) {
		trace_siw2_dp_commit_log(qp->base.qp_num, e->req_id, e->log.to,
					 0, status);
		return status;
	}
	WRITE_ONCE(*(u64 *)kaddr, e->log.value);
	if (durable)
		arch_wb_cache_pmem(kaddr, sizeof(u64));
	wmb();	/* the word's write-back before the Response */
	trace_siw2_dp_commit_log(qp->base.qp_num, e->req_id, e->log.to,
				 durable, 0);
	return status;
}

/*
 * Make the range of the RDMA Commit at the head of the IRQ durable
 * (COMMIT-DUR-1). Placement is synchronous, so every Write that came
 * before the Commit is in memory now (COMMIT-ORD-1). A durable MR has
 * the CPU cache lines of exactly its range written back, about a
 * budget's worth per engine run (at least one page), so that a large
 * range shares the engine's worker with other QPs; any other range only
 * becomes globally visible
 * (COMMIT-DUR-4, DEC-14). A page the kernel knows poisoned is skipped
 * and fails the Commit with Status 1 (DEC-13). RX checked STag, rights
 * and bounds (COMMIT-ACC-1).
 */
static void siw2_tx_commit_wb(struct siw2_qp *qp, size_t *budget)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_irqe *e = &tx->irqe;
	size_t done = 0;
	void *kaddr;
	u32 n;

	/*
	 * Whole pieces (the MR's pages) only: a run that ended inside one
	 * would split a cache line between two runs and write it back twice.
	 */
	do {
		n = siw2_mr_kaddr(e->mr, e->src_to + tx->wb_done,
				  e->len - tx->wb_done, &kaddr);
		if (siw2_kaddr_poisoned(kaddr, n)) {
			tx->wb_poisoned = true;
		} else {
			arch_wb_cache_pmem(kaddr, n);
			tx->wb_lines += siw2_cache_lines(kaddr, n);
		}
		tx->wb_done += n;
		done += n;
	} while (tx->wb_done < e->len && done < *budget);
	*budget -= min(*budget, done);
	if (tx->wb_done == e->len)
		tx->wb_on = false;
}

/*
 * The range is done: the log update, the invalidation and the Response,
 * with the Status siw2_commit_range_status() and siw2_commit_log_status()
 * decide: 0 only if every octet named is durable. Return: false if the
 * stream ended instead (DEC-20).
 */
static bool siw2_tx_commit_answer(struct siw2_qp *qp)
{
	struct siw2_irqe *e = &qp->tx.irqe;
	u32 status;

	/* Ordered before the Response leaves (and before any later store). */
	wmb();
	/* A Status decided at arrival came with no range looked up. */
	status = siw2_commit_range_status(e->status, e->len,
					  !e->status && e->len &&
					  siw2_mr_durable(e->mr),
					  qp->tx.wb_poisoned);
	/* The log word only once the range is durable (COMMIT-ATOM-2). */
	if (siw2_commit_done(status) && e->log_mr)
		status = siw2_tx_commit_log(qp, e, status);
	/* DEC-20: an Invalidate STag only after a commit carried out. */
	if (siw2_commit_done(status) && e->inv_stag &&
	    siw2_mr_invalidate(qp->sdev, qp->base.pd, e->inv_stag)) {
		siw2_tx_put_irqe(&qp->tx);
		qp->tx.kind = SIW2_TX_IDLE;
		siw2_tx_terminate_inv(qp);
		return false;
	}
	qp->tx.commit_status = status;
	trace_siw2_dp_commit(qp->base.qp_num, e->req_id, e->src_to, e->len,
			     qp->tx.wb_lines, status);
	siw2_tx_msg(&qp->tx, SIW2_OP_COMMIT_RESP, 0);	/* COMMIT-HDR-4 */
	return true;
}

/* Start answering the RDMA Commit just taken from the IRQ. */
static bool siw2_tx_commit_start(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_irqe *e = &tx->irqe;

	tx->wb_done = 0;
	tx->wb_lines = 0;
	tx->wb_poisoned = false;
	/* No message yet: siw2_tx_msg_sent() must not see the last one's. */
	tx->len = 0;
	tx->fpdus = 0;
	tx->wb_on = !e->status && e->len && siw2_mr_durable(e->mr);
	if (tx->wb_on)
		return true;
	return siw2_tx_commit_answer(qp);
}

/* Take the oldest inbound Read, Atomic or Commit to answer, if any. */
static bool siw2_tx_pick_rresp(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_irqe *e;

	spin_lock_bh(&qp->irq_lock);
	e = siw2_irq_head(qp);
	if (e) {
		/* The engine owns the MR references from now on. */
		tx->irqe = *e;
		e->mr = NULL;
		e->log_mr = NULL;
	}
	spin_unlock_bh(&qp->irq_lock);
	if (!e)
		return false;

	tx->kind = SIW2_TX_RRESP;
	tx->inline_buf = NULL;
	tx->nsrc = 0;
	if (tx->irqe.op == SIW2_OP_ATOMIC_REQ) {
		siw2_tx_atomic_exec(qp);
		return true;
	}
	if (tx->irqe.op == SIW2_OP_COMMIT_REQ)
		return siw2_tx_commit_start(qp);
	if (tx->irqe.op == SIW2_OP_READ_V2_REQ) {
		/* One untagged message on QN 3 (V2-READ-1, V2-READ-7). */
		siw2_tx_msg(tx, SIW2_OP_READ_V2_RESP, tx->irqe.len);
	} else {
		siw2_tx_msg(tx, SIW2_OP_READ_RESP, tx->irqe.len);
		tx->stag = tx->irqe.sink_stag;
		tx->to = tx->irqe.sink_to;
	}
	if (tx->len) {
		tx->src[0].addr = tx->irqe.src_to;
		tx->src[0].length = tx->len;
		tx->src_mr[0] = NULL;
		tx->nsrc = 1;
	}
	return true;
}

/*
 * Take what the process published in its send queue ring (sq.lock held);
 * finding nothing marks the engine as out of work (tx.sq_empty).
 */
static int siw2_tx_sq_pull(struct siw2_qp *qp)
{
	int n;

	/* Closing (SQD) sends what it had; the rest waits for the flush. */
	if (READ_ONCE(qp->state) != SIW2_QP_RTS)
		return 0;
	n = siw2_wq_pull(&qp->sq);
	qp->tx.sq_empty = !n;
	if (n > 0) {
		siw2_stat_add(qp, SIW2_STAT_SQ_RING_POSTS, n);
		qp->tx.taken += n;
		qp->tx.linger_left = SIW2_TX_LINGER_ROUNDS;
		qp->tx.rx_took = READ_ONCE(qp->rx.msgs);
	}
	return n;
}

/*
 * Take the next send work request. Returns false when there is none, or
 * when it must wait: a fence behind outstanding Reads, or a Read beyond
 * the ORD (RFC 5040 6.1).
 */
static bool siw2_tx_pick_sqe(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	struct siw2_sqe *sqe;
	struct siw2_orqe *o;
	unsigned long flags;
	bool ord_zero = false;
	u32 rules, slot;
	u8 orq_op;

	spin_lock_irqsave(&qp->sq.lock, flags);
	if (qp->sq_txpos == qp->sq.count && qp->sq.ring &&
	    siw2_tx_sq_pull(qp) < 0) {
		spin_unlock_irqrestore(&qp->sq.lock, flags);
		siw2_tx_local_error(qp, U32_MAX, IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	if (qp->sq_txpos == qp->sq.count)
		goto wait;
	slot = siw2_wq_slot(&qp->sq, qp->sq_txpos);
	sqe = siw2_wq_at(&qp->sq, slot);
	rules = siw2_wr_rules_of(sqe->opcode);
	orq_op = siw2_tx_orq_op(qp, rules);
	/* A fence waits for Reads and Atomics alike (DIGEST 4.1). */
	if ((sqe->send_flags & IB_SEND_FENCE) && siw2_orq_head(qp))
		goto wait;
	if (orq_op) {
		if (!qp->ord)
			ord_zero = true;
		else if (siw2_orq_full(qp))
			goto wait;
	}
	sqe->state = SIW2_SQE_ACTIVE;
	qp->sq_txpos++;
	memcpy(&tx->wqe, sqe, qp->sq.esize);
	tx->slot = slot;
	if (orq_op && !ord_zero) {
		/* Before the Request goes: the Response may come at once. */
		o = siw2_orq_push(qp);
		o->slot = slot;
		o->op = orq_op;
		/* An Atomic Write's one SGE is its data, not a sink. */
		o->sink = sqe->num_sge && !(rules & SIW2_WRF_WORD) ?
			  sqe->sge[0] : (struct siw2_sge){ 0 };
		o->got = 0;
		if (orq_op != SIW2_OP_READ_REQ) {
			/* DEC-8: its response's QN 3 MSN (an Atomic's ReqID). */
			o->qn3_msn = tx->qn3_next++;
			tx->req_id = o->qn3_msn;
		}
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (ord_zero) {
		/* No Read may be outstanding: the peer would refuse it. */
		siw2_tx_local_error(qp, slot, IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	siw2_tx_start_sqe(qp);
	return true;
wait:
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	return false;
}

/* Up to @want octets of payload at the current source position. */
static u32 siw2_tx_piece(struct siw2_tx *tx, u32 want, void **kaddr)
{
	struct siw2_sge *s;
	u32 n;

	if (tx->inline_buf) {
		*kaddr = tx->inline_buf + tx->off;
		return want;
	}
	s = &tx->src[tx->si];
	n = min(want, s->length - tx->soff);
	if (tx->kind == SIW2_TX_RRESP)
		n = siw2_mr_kaddr(tx->irqe.mr, s->addr + tx->soff, n, kaddr);
	else
		n = siw2_mr_kaddr(tx->src_mr[tx->si], s->addr + tx->soff, n,
				  kaddr);
	return n;
}

static void siw2_tx_advance(struct siw2_tx *tx, u32 n)
{
	if (tx->inline_buf)
		return;
	tx->soff += n;
	if (tx->soff == tx->src[tx->si].length) {
		tx->si++;
		tx->soff = 0;
	}
}

/*
 * DDP plus RDMAP header octets of the current message's FPDUs; @tail: a
 * Send with Immediate Data's last segment, whose 8 octets count here.
 */
static u32 siw2_tx_hdr_len(const struct siw2_tx *tx, bool tail)
{
	return siw2_ddp_hdr_len(siw2_ddp_ctrl(tx->tagged, tail, tx->rv,
					      tx->op));
}

/* Atomic Request (EXT-ATOMIC-6..9: unused fields as sent by siw2_sqe_atomic()). */
static void siw2_tx_hdr_atomic_req(const struct siw2_tx *tx, void *p)
{
	const struct siw2_atomic_op *op = &tx->wqe.atomic;
	struct siw2_rdmap_atomic_req *a = p;

	a->aopcode = cpu_to_be32(op->aop);
	a->req_id = cpu_to_be32(tx->req_id);
	a->stag = cpu_to_be32(tx->wqe.rkey);
	a->to = cpu_to_be64(tx->wqe.raddr);
	a->add_swap = cpu_to_be64(op->add_swap);
	a->add_swap_mask = cpu_to_be64(op->add_swap_mask);
	a->cmp = cpu_to_be64(op->cmp);
	a->cmp_mask = cpu_to_be64(op->cmp_mask);
}

static u32 siw2_tx_hdr_untagged(struct siw2_tx *tx, void *p, u16 ctrl,
				bool tail)
{
	struct siw2_ddp_untagged *h = p;
	struct siw2_rdmap_read_req *rr = (void *)(h + 1);
	struct siw2_rdmap_atomic_resp *ar = (void *)(h + 1);
	struct siw2_rdmap_read_v2_req *r2 = (void *)(h + 1);
	struct siw2_rdmap_commit_req *cr = (void *)(h + 1);
	struct siw2_rdmap_commit_resp *cs = (void *)(h + 1);
	const struct siw2_sqe *w = &tx->wqe;

	h->ctrl = cpu_to_be16(ctrl);
	h->rsvd_ulp = cpu_to_be32(tx->inval);
	h->qn = cpu_to_be32(tx->qn);
	h->msn = cpu_to_be32(tx->msn);
	h->mo = cpu_to_be32(tx->off);
	if (tail || tx->op == SIW2_OP_IMM || tx->op == SIW2_OP_IMM_SE) {
		/* The 8 octets follow the DDP header (EXT-IMM-5, DEC-6). */
		put_unaligned_be64(w->imm, h + 1);
		return sizeof(*h) + SIW2_IMM_LEN;
	}
	switch (tx->op) {
	case SIW2_OP_READ_REQ:
		break;
	case SIW2_OP_ATOMIC_REQ:
		siw2_tx_hdr_atomic_req(tx, h + 1);
		return siw2_tx_hdr_len(tx, false);
	case SIW2_OP_ATOMIC_RESP:
		ar->orig_req_id = cpu_to_be32(tx->irqe.req_id);
		ar->orig_value = cpu_to_be64(tx->orig);
		return siw2_tx_hdr_len(tx, false);
	case SIW2_OP_COMMIT_REQ:
		/* One range, Invalidate STag 0 (COMMIT-HDR-5, DEC-12, DEC-20). */
		cr->req_id = cpu_to_be32(tx->req_id);
		cr->sink_stag = cpu_to_be32(w->rkey);
		cr->sink_len = cpu_to_be32(w->len);
		cr->sink_to = cpu_to_be64(w->raddr);
		if (!w->commit_log)
			return siw2_tx_hdr_len(tx, false);
		/* Its log update follows the region (SIW2-DEC-1). */
		siw2_commit_log_encode(cr + 1, &w->log);
		return siw2_tx_hdr_len(tx, false) +
		       sizeof(struct siw2_rdmap_commit_log);
	case SIW2_OP_COMMIT_RESP:
		/* COMMIT-HDR-6: the Request's identifier and the outcome. */
		cs->orig_req_id = cpu_to_be32(tx->irqe.req_id);
		cs->status = cpu_to_be32(tx->commit_status);
		return siw2_tx_hdr_len(tx, false);
	case SIW2_OP_READ_V2_REQ:
		/* No sink on the wire (V2-READ-4). */
		r2->read_size = cpu_to_be32(w->len);
		r2->src_stag = cpu_to_be32(w->rkey);
		r2->src_to = cpu_to_be64(w->raddr);
		return siw2_tx_hdr_len(tx, false);
	default:
		return sizeof(*h);
	}
	rr->sink_stag = cpu_to_be32(w->num_sge ? w->sge[0].lkey : 0);
	rr->sink_to = cpu_to_be64(w->num_sge ? w->sge[0].addr : 0);
	rr->read_size = cpu_to_be32(w->len);
	rr->src_stag = cpu_to_be32(w->rkey);
	rr->src_to = cpu_to_be64(w->raddr);
	return sizeof(*h) + sizeof(*rr);
}

/* Write the DDP/RDMAP header of the next segment; return its length. */
static u32 siw2_tx_hdr(struct siw2_qp *qp, bool last, bool tail)
{
	struct siw2_tx *tx = &qp->tx;
	u8 *p = tx->hdr + SIW2_MPA_HDR_LEN;
	u16 ctrl = siw2_ddp_ctrl(tx->tagged, last, tx->rv, tx->op);
	struct siw2_ddp_tagged *h = (void *)p;

	if (!tx->tagged)
		return siw2_tx_hdr_untagged(tx, p, ctrl, tail);
	h->ctrl = cpu_to_be16(ctrl);
	h->stag = cpu_to_be32(tx->stag);
	h->to = cpu_to_be64(tx->to + tx->off);
	return sizeof(*h);
}

/*
 * The payload kvecs of the FPDU being built as page references for
 * MSG_SPLICE_PAGES. False if a piece has no page TCP may hold on to
 * (slab memory, an address outside the linear map and vmalloc): the
 * FPDU is then copied like any other.
 */
static bool siw2_tx_zc_map(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	u32 i, nb = 0;

	if (!qp->tx_bvec)
		return false;
	for (i = 1; i < tx->niov; i++) {
		u8 *p = tx->iov[i].iov_base;
		size_t left = tx->iov[i].iov_len;

		while (left) {
			size_t in = offset_in_page(p);
			size_t n = min_t(size_t, left, PAGE_SIZE - in);
			struct page *pg;

			if (is_vmalloc_addr(p))
				pg = vmalloc_to_page(p);
			else if (virt_addr_valid(p))
				pg = virt_to_page(p);
			else
				return false;
			if (!pg || !sendpage_ok(pg) || nb == SIW2_TX_BVEC_MAX)
				return false;
			bvec_set_page(&qp->tx_bvec[nb++], pg, n, in);
			p += n;
			left -= n;
		}
	}
	tx->nbvec = nb;
	return true;
}

/* Point @iter at the next part of a zero-copy FPDU. */
static void siw2_tx_zc_next(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	struct kvec *t = &tx->iov[tx->niov - 1];

	if (++tx->zc_part == 2)
		iov_iter_bvec(&tx->iter, ITER_SOURCE, qp->tx_bvec, tx->nbvec,
			      tx->zc_len);
	else
		iov_iter_kvec(&tx->iter, ITER_SOURCE, t, 1, t->iov_len);
}

/*
 * The @seg payload octets of a Read Response FPDU, in iov[1..niov-1], as
 * one piece copied from the source now: what the CRC covers and what TCP
 * copies are then the same octets.
 */
static void siw2_tx_rresp_copy(struct siw2_qp *qp, u32 seg)
{
	struct siw2_tx *tx = &qp->tx;
	u32 i, at = 0;

	for (i = 1; i < tx->niov; i++) {
		memcpy(qp->tx_rresp_copy + at, tx->iov[i].iov_base,
		       tx->iov[i].iov_len);
		at += tx->iov[i].iov_len;
	}
	tx->iov[1].iov_base = qp->tx_rresp_copy;
	tx->iov[1].iov_len = seg;
	tx->niov = 2;
}

/* Frame the next DDP segment of the current message as one FPDU. */
static void siw2_tx_build(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	/* A Send with Immediate Data ends with the 8 octets alone (V2-IMM-8). */
	bool tail = siw2_tx_imm_tail(tx) && tx->off == tx->len;
	u32 hlen = siw2_tx_hdr_len(tx, tail);
	u32 room, seg = 0, n, pad, i;
	bool crc = qp->conn.crc, last;
	u32 c = ~0U;
	void *kaddr;
	size_t ulpdu;

	room = min(tx->len - tx->off, tx->ulpdu_max - hlen);

	tx->niov = 1;
	while (seg < room && tx->niov < SIW2_TX_IOV_MAX - 1) {
		n = siw2_tx_piece(tx, room - seg, &kaddr);
		tx->iov[tx->niov].iov_base = kaddr;
		tx->iov[tx->niov].iov_len = n;
		tx->niov++;
		siw2_tx_advance(tx, n);
		seg += n;
	}
	if (crc && tx->kind == SIW2_TX_RRESP && seg)
		siw2_tx_rresp_copy(qp, seg);
	last = tail || (tx->off + seg == tx->len && !siw2_tx_imm_tail(tx));
	hlen = siw2_tx_hdr(qp, last, tail);
	if (tail)
		tx->imm_sent = true;
	ulpdu = hlen + seg;
	put_unaligned_be16(ulpdu, tx->hdr);
	tx->iov[0].iov_base = tx->hdr;
	tx->iov[0].iov_len = SIW2_MPA_HDR_LEN + hlen;

	pad = siw2_mpa_pad(ulpdu);
	memset(tx->trailer, 0, pad);
	if (crc) {
		for (i = 0; i < tx->niov; i++)
			c = crc32c(c, tx->iov[i].iov_base, tx->iov[i].iov_len);
		c = ~crc32c(c, tx->trailer, pad);
	} else {
		c = 0;
	}
	/*
	 * A zero-copy payload is read again by TCP, and on a retransmission:
	 * only without CRC, which it could no longer match.
	 */
	tx->zc_part = 0;
	if (!crc && tx->kind == SIW2_TX_RRESP && seg >= SIW2_TX_ZC_MIN &&
	    READ_ONCE(siw2_tx_zcopy) && siw2_tx_zc_map(qp)) {
		tx->zc_part = 1;
		tx->zc_len = seg;
	}
	put_unaligned_le32(c, tx->trailer + pad);
	tx->iov[tx->niov].iov_base = tx->trailer;
	tx->iov[tx->niov].iov_len = pad + SIW2_MPA_CRC_LEN;
	tx->niov++;

	tx->fpdu_left = SIW2_MPA_HDR_LEN + ulpdu + pad + SIW2_MPA_CRC_LEN;
	if (tx->zc_part)
		iov_iter_kvec(&tx->iter, ITER_SOURCE, tx->iov, 1,
			      tx->iov[0].iov_len);
	else
		iov_iter_kvec(&tx->iter, ITER_SOURCE, tx->iov, tx->niov,
			      tx->fpdu_left);
	tx->off += seg;
	tx->fpdus++;
	siw2_tx_count_fpdu(qp, tx->fpdu_left);
	trace_siw2_dp_tx_fpdu(qp->base.qp_num,
			      get_unaligned_be16(tx->hdr + SIW2_MPA_HDR_LEN) &
			      SIW2_RDMAP_OP_MASK, tx->fpdu_left);
	/*
	 * The Response's last FPDU frees its IRD slot before it goes: on a
	 * local path sendmsg() can deliver it, and the peer can complete the
	 * Read and send its next Request, before sendmsg() returns.
	 */
	if (tx->kind == SIW2_TX_RRESP && tx->off == tx->len) {
		spin_lock_bh(&qp->irq_lock);
		siw2_irq_pop(qp);
		spin_unlock_bh(&qp->irq_lock);
	}
}

/*
 * Has every FPDU of the current message been framed (and, once fpdu_left
 * is 0, handed to TCP)?
 */
static bool siw2_tx_msg_sent(const struct siw2_tx *tx)
{
	return tx->kind != SIW2_TX_IDLE && tx->off >= tx->len && tx->fpdus &&
	       !(siw2_tx_imm_tail(tx) && !tx->imm_sent);
}

/* The current message is all with TCP. */
static void siw2_tx_msg_done(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;

	if (tx->kind == SIW2_TX_RRESP) {
		siw2_tx_put_irqe(tx);
	} else {
		siw2_tx_put_src(tx);
		if (tx->imm_next) {
			/* A Write with Immediate: now the Immediate Data. */
			siw2_tx_imm_msg(tx);
			return;
		}
		/* Reads and Atomics complete with their Response (siw2_rx.c). */
		if (!(siw2_wr_rules_of(tx->wqe.opcode) & SIW2_WRF_ORQ))
			siw2_dp_sqe_done(qp, tx->slot, IB_WC_SUCCESS, 0);
	}
	tx->kind = SIW2_TX_IDLE;
}

/*
 * Another message can follow the current FPDU at once: an inbound Read or
 * Atomic to answer, send queue entries taken but not started, or entries
 * the process published in its ring. A lockless hint: a stale answer
 * costs a batch, or a push at the run's end.
 */
static bool siw2_tx_more_queued(struct siw2_qp *qp)
{
	return qp->tx.imm_next || READ_ONCE(qp->irq_count) ||
	       siw2_tx_sq_waiting(qp);
}

/*
 * Hand the rest of the current FPDU to TCP.
 * Return: 0 when all of it went, -EAGAIN when the socket is full, or the
 * socket's error.
 */
static int siw2_tx_push(struct siw2_qp *qp, size_t *budget, bool more)
{
	struct siw2_tx *tx = &qp->tx;
	struct msghdr msg;
	int rv;

	while (tx->fpdu_left) {
		/* Only a zero-copy FPDU is sent in parts. */
		if (!iov_iter_count(&tx->iter))
			siw2_tx_zc_next(qp);
		memset(&msg, 0, sizeof(msg));
		msg.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL;
		if (more || tx->zc_part == 1 || tx->zc_part == 2)
			msg.msg_flags |= MSG_MORE;
		if (tx->zc_part == 2)
			msg.msg_flags |= MSG_SPLICE_PAGES;
		msg.msg_iter = tx->iter;
		if (siw2_qp_fuzz(qp))
			rv = siw2_fuzz_llp_send(siw2_qp_fuzz(qp), &msg);
		else
			rv = sock_sendmsg(qp->sock, &msg);
		if (rv < 0)
			return rv;
		/* Without MSG_MORE, TCP pushed all it held. */
		tx->corked = msg.msg_flags & MSG_MORE;
		tx->iter = msg.msg_iter;
		tx->fpdu_left -= rv;
		*budget -= min_t(size_t, *budget, rv);
	}
	return 0;
}

static void siw2_tx_llp_error(struct siw2_qp *qp)
{
	if (test_and_set_bit(0, &qp->dp_failed))
		return;
	qp->fail_event = IB_EVENT_QP_FATAL;
	siw2_dp_fail(qp, true);
}

/* The engine's loop; qp->tx_lock held. Return: true to run again. */
static bool siw2_tx_loop(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	size_t budget = SIW2_TX_BUDGET;
	bool more;
	int rv;

	while (READ_ONCE(qp->dp_on)) {
		if (tx->fpdu_left) {
			/*
			 * The message goes on, or (between siw2 peers, whose
			 * FPDUs need not align with segments) another is queued.
			 */
			more = tx->kind != SIW2_TX_IDLE && !tx->term_sent &&
			       (tx->off < tx->len ||
				(tx->big && budget > tx->fpdu_left &&
				 siw2_tx_more_queued(qp)));
			rv = siw2_tx_push(qp, &budget, more);
			if (rv == -EAGAIN)
				return false;	/* write_space() kicks us */
			if (rv) {
				siw2_tx_llp_error(qp);
				return false;
			}
			if (tx->term_sent) {
				/* The Terminate is out: the stream ends. */
				siw2_dp_fail(qp, false);
				return false;
			}
			continue;
		}
		/*
		 * A message all handed to TCP completes before a Terminate
		 * goes: TCP delivers it first, and the peer may act on it.
		 */
		if (siw2_tx_msg_sent(tx)) {
			siw2_tx_msg_done(qp);
			continue;
		}
		/* Pairs with the release in siw2_tx_terminate(). */
		if (smp_load_acquire(&tx->term_len) && !tx->term_sent) {
			tx->term_sent = true;
			siw2_tx_count_fpdu(qp, tx->term_len);
			tx->zc_part = 0;
			tx->iov[0].iov_base = tx->term;
			tx->iov[0].iov_len = tx->term_len;
			tx->fpdu_left = tx->term_len;
			iov_iter_kvec(&tx->iter, ITER_SOURCE, tx->iov, 1,
				      tx->fpdu_left);
			continue;
		}
		if (test_bit(0, &qp->dp_failed))
			return false;
		if (!budget)
			return true;
		if (tx->wb_on) {
			/* A Commit's write-back, a budget's worth per run. */
			siw2_tx_commit_wb(qp, &budget);
			if (!tx->wb_on)
				siw2_tx_commit_answer(qp);
			continue;
		}
		if (tx->kind != SIW2_TX_IDLE) {
			siw2_tx_build(qp);	/* not all sent: see above */
			continue;
		}
		if (READ_ONCE(qp->fenced))
			return false;	/* the first FPDU's arrival kicks us */
		if (!siw2_tx_pick_rresp(qp) && !siw2_tx_pick_sqe(qp))
			return false;
	}
	return false;
}

/*
 * A closing QP whose graceful close waits for this engine: nothing taken
 * is left unsent, no inbound Read is left unanswered (a fenced Responder
 * can send nothing yet).
 */
static bool siw2_tx_drained(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;

	if (READ_ONCE(qp->state) != SIW2_QP_CLOSING ||
	    !test_bit(SIW2_FIN_OWED, &qp->fin_owed) ||
	    test_bit(0, &qp->dp_failed))
		return false;
	if (READ_ONCE(qp->fenced))
		return true;
	return !tx->fpdu_left && tx->kind == SIW2_TX_IDLE && !tx->wb_on &&
	       READ_ONCE(qp->sq_txpos) == READ_ONCE(qp->sq.count) &&
	       !READ_ONCE(qp->irq_count);
}

/*
 * One TX engine run; qp->tx_lock held. What the run left with TCP under
 * MSG_MORE is pushed at its end: the next run may be far off. A graceful
 * close that waited for the run's end goes on once it has sent all.
 * Return: true to run again.
 */
static bool siw2_tx_run(struct siw2_qp *qp)
{
	bool again;

	lockdep_assert_held(&qp->tx_lock);

	again = siw2_tx_loop(qp);
	if (qp->tx.corked) {
		qp->tx.corked = false;
		if (qp->sock)
			tcp_sock_set_cork(qp->sock->sk, false);
	}
	if (!again && siw2_tx_drained(qp))
		siw2_dp_sq_drained(qp);
	return again;
}

/*
 * The engine ran out of work on a send queue ring: it stops and tells the
 * process (SIW2_RING_F_BUSY clear), then looks once more, since the
 * process may have published just before it read the flag. Return: true
 * when it did, to run on.
 */
static bool siw2_tx_ring_idle(struct siw2_qp *qp)
{
	unsigned long flags;
	int n;

	spin_lock_irqsave(&qp->sq.lock, flags);
	siw2_sq_ring_busy(qp, false);
	n = READ_ONCE(qp->state) == SIW2_QP_RTS ? siw2_wq_pull(&qp->sq) : 0;
	if (n > 0) {
		siw2_stat_add(qp, SIW2_STAT_SQ_RING_POSTS, n);
		siw2_sq_ring_busy(qp, true);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (n < 0)	/* the process claimed more than its ring holds */
		siw2_tx_local_error(qp, U32_MAX, IB_WC_LOC_QP_OP_ERR);
	return n > 0;
}

/*
 * The engine ran out of work on a send queue ring while streaming (woken
 * by a doorbell that answered nothing, or after a burst): keep the busy
 * flag up and look again a little later, as a process that streams posts
 * more within microseconds. Sleeping on a timer rather than spinning
 * leaves the CPU to that process. A message that comes in ends the
 * lingering (siw2_tx_linger_msg()): a process that waits for it answers
 * with a doorbell, sent from its system call. Return: true when a look is
 * due.
 */
static bool siw2_tx_linger(struct siw2_qp *qp)
{
	struct siw2_tx *tx = &qp->tx;
	u64 ns = (u64)READ_ONCE(siw2_tx_linger_us) * NSEC_PER_USEC;
	u32 msgs = READ_ONCE(qp->rx.msgs);

	if (!ns || (tx->answer && tx->taken < SIW2_TX_LINGER_BURST) ||
	    !tx->linger_left || !READ_ONCE(qp->dp_on))
		return false;
	/* A message came in while it lingered, and nothing was posted. */
	if (tx->linger_left < SIW2_TX_LINGER_ROUNDS && msgs != tx->rx_linger)
		return false;
	tx->linger_left--;
	tx->rx_linger = msgs;
	hrtimer_start_range_ns(&qp->tx_linger, ns_to_ktime(ns), ns / 4,
			       HRTIMER_MODE_REL);
	return true;
}

/**
 * siw2_tx_linger_fire - a lingering engine's next look at its ring
 * @t: the QP's tx_linger timer
 *
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart siw2_tx_linger_fire(struct hrtimer *t)
{
	siw2_tx_kick(container_of(t, struct siw2_qp, tx_linger));
	return HRTIMER_NORESTART;
}

/*
 * Run the engine until it stops; qp->tx_lock held. An engine on a send
 * queue ring that ran dry lingers, or stops and clears the busy flag.
 * Return: true when the work item must run again.
 */
static bool siw2_tx_run_ring(struct siw2_qp *qp)
{
	bool again;

	lockdep_assert_held(&qp->tx_lock);

	for (;;) {
		qp->tx.sq_empty = false;
		again = siw2_tx_run(qp);
		if (again || !qp->tx.sq_empty || !qp->sq.ring ||
		    siw2_tx_linger(qp))
			return again;
		qp->tx.taken = 0;
		if (!siw2_tx_ring_idle(qp))
			return false;
	}
}

/**
 * siw2_tx_work - the TX engine, as a work item
 * @work: the QP's tx_work
 */
void siw2_tx_work(struct work_struct *work)
{
	struct siw2_qp *qp = container_of(work, struct siw2_qp, tx_work);
	bool again;

	mutex_lock(&qp->tx_lock);
	again = siw2_tx_run_ring(qp);
	mutex_unlock(&qp->tx_lock);
	if (again)
		siw2_tx_kick(qp);
}

/**
 * siw2_tx_direct - run the TX engine in the poster's own context
 * @qp: QP; the caller may sleep (a user QP's post_send system call)
 *
 * Sending from the system call spares a work item wake-up, which waits
 * for a CPU that a polling consumer keeps busy. If the engine is busy
 * elsewhere, or the budget runs out, the work item takes over.
 */
void siw2_tx_direct(struct siw2_qp *qp)
{
	bool again;

	if (!mutex_trylock(&qp->tx_lock)) {
		siw2_tx_kick(qp);
		return;
	}
	again = siw2_tx_run(qp);
	mutex_unlock(&qp->tx_lock);
	if (again)
		siw2_tx_kick(qp);
}

/**
 * siw2_tx_doorbell - a user QP's send queue ring was rung
 * @qp: QP in RTS with a send queue ring, SIW2_RING_F_BUSY set
 *
 * A post that answers a message which came in since the engine last took
 * entries (ping-pong, request-response) is sent from the system call,
 * which also stops the engine when that was all: no work item stands
 * between the answer and the wire, or keeps the flag up after it (the
 * work item may wait for a CPU that two polling processes hold). Any
 * other post is left to the work item, so that a streaming process posts
 * on while the engine sends on another CPU, and the engine lingers.
 */
void siw2_tx_doorbell(struct siw2_qp *qp)
{
	bool again = true;

	if (mutex_trylock(&qp->tx_lock)) {
		qp->tx.answer = READ_ONCE(qp->rx.msgs) != qp->tx.rx_took;
		if (qp->tx.answer)
			again = siw2_tx_run_ring(qp);
		mutex_unlock(&qp->tx_lock);
	}
	if (again)
		siw2_tx_kick(qp);
}

/**
 * siw2_tx_linger_msg - a message came in: a lingering engine stops now
 * @qp: QP; RX context
 */
void siw2_tx_linger_msg(struct siw2_qp *qp)
{
	if (hrtimer_is_queued(&qp->tx_linger))
		siw2_tx_kick(qp);
}
