/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 data path: the per-QP transmit and receive engines (siw2_tx.c,
 * siw2_rx.c) and what the QP, memory and CM code share with them.
 *
 * Threading: each engine has one runner at a time. TX runs under
 * qp->tx_lock, as the QP's work item or in a user QP's post_send. RX runs
 * under the socket lock, in the socket's data_ready callback or as the
 * QP's work item. The engines meet only in the SQ and ORQ (qp->sq.lock)
 * and the IRQ (qp->irq_lock). Neither takes qp->state_lock or the
 * endpoint's mutex, so a holder of either may stop them
 * (siw2_qp_dp_stop()).
 */
#ifndef _SIW2_DP_H
#define _SIW2_DP_H

#include <linux/bvec.h>
#include <linux/uio.h>

#include "siw2_atomic.h"
#include "siw2_ddp.h"
#include "siw2_wire.h"

struct siw2_qp;
struct siw2_mr;
struct sock;

/*
 * FPDU sizing. Towards a peer that is not siw2 an FPDU fits one TCP
 * segment (RFC 5044 5, MULPDU from the EMSS). Between siw2 peers (DEC-4
 * with ACK) an FPDU may carry up to SIW2_FPDU_BIG_PAYLOAD octets and
 * rides on TSO/GSO: fewer headers, CRCs and sendmsg calls per byte.
 */
#define SIW2_FPDU_BIG_PAYLOAD	(63 * 1024)
#define SIW2_TX_HDR_MAX		(SIW2_MPA_HDR_LEN + SIW2_DDP_HDR_MAX)
/* kvecs of one FPDU: header, payload pieces, pad + CRC. */
#define SIW2_TX_IOV_MAX		40
/* Pages of a zero-copy payload: each kvec piece may cross pages. */
#define SIW2_TX_BVEC_MAX	(SIW2_FPDU_BIG_PAYLOAD / PAGE_SIZE + SIW2_TX_IOV_MAX)
/*
 * Read Response payloads of at least this many octets per FPDU go to
 * TCP as page references (MSG_SPLICE_PAGES). Measured siw2 <-> siw2 on
 * veth (ib_read_bw): 8-16 KiB Reads lose a third of their rate that way,
 * 32 KiB break even, 64 KiB gain ~1.4x and 1 MiB ~2.2x.
 */
#define SIW2_TX_ZC_MIN		(32 * 1024)
/* A Read Response payload copied for its CRC: below MPA's 16-bit ULPDU. */
#define SIW2_TX_RRESP_COPY	U16_MAX
/* Terminate: control, DDP Segment Length, DDP and RDMAP headers. */
#define SIW2_TERM_PAYLOAD_MAX	(4 + 2 + 18 + 28)

/*
 * Budgets per engine run, then the work item goes on (nvmet-tcp's
 * pattern). RX first runs in the socket's data_ready callback, bounded.
 */
#define SIW2_RX_BUDGET		(256 * 1024)
#define SIW2_RX_SOFTIRQ_BUDGET	(64 * 1024)
#define SIW2_TX_BUDGET		(256 * 1024)

/*
 * A streaming engine whose send queue ring ran empty looks at it
 * SIW2_TX_LINGER_ROUNDS more times, tx_linger_us apart, before it stops
 * and the process must ring. An engine woken by a doorbell that answered
 * a message does so only after a burst of SIW2_TX_LINGER_BURST entries:
 * a ping-pong (one entry per doorbell) never waits for the timer.
 */
#define SIW2_TX_LINGER_BURST	8
#define SIW2_TX_LINGER_ROUNDS	4

/* SQE life cycle (siw2_sqe.state), under qp->sq.lock. */
enum siw2_sqe_state {
	SIW2_SQE_QUEUED,	/* posted, not yet taken by TX */
	SIW2_SQE_ACTIVE,	/* taken by TX; a Read stays here until answered */
	SIW2_SQE_DONE,		/* finished with @status; reaped in order */
};

/**
 * struct siw2_orqe - a QN 1 request this side sent and awaits (ORQ): an
 *	RDMA Read or an Atomic Request, which share the ORD (EXT-ATOMIC-21)
 * @slot: the SQ ring slot of its work request
 * @op: SIW2_OP_READ_REQ or SIW2_OP_ATOMIC_REQ: the response it expects
 * @qn3_msn: Atomic: the QN 3 MSN of its response, which is also the
 *	Request Identifier sent (DEC-8)
 * @sink: the local sink (one SGE, max_sge_rd; an Atomic's 8 octets)
 * @got: response octets placed so far
 */
struct siw2_orqe {
	u32 slot;
	u8 op;
	u32 qn3_msn;
	struct siw2_sge sink;
	u32 got;
};

/**
 * struct siw2_irqe - a QN 1 request the peer sent (IRQ): an RDMA Read or
 *	an Atomic Request, answered in the order they came (EXT-ORD-7)
 * @op: SIW2_OP_READ_REQ or SIW2_OP_ATOMIC_REQ
 * @mr: the source (target) MR, referenced (NULL for a zero-length Read)
 * @sink_stag: Read: where the response goes, as the peer named it
 * @sink_to: likewise
 * @src_to: Read: where the data comes from; Atomic: the target
 * @len: RDMARDSZ
 * @req_id: Atomic, Commit: the Request Identifier to echo (EXT-ATOMIC-18,
 *	COMMIT-HDR-6)
 * @aop: Atomic: the operation, executed when its response is made
 * @status: Commit: a Status already decided at arrival (DEC-13), or 0
 * @inv_stag: Commit: the STag to invalidate after success (DEC-20), or 0
 * @log_mr: Commit: the MR of its log update (SIW2-DEC-1), referenced; NULL
 *	for none
 * @log: Commit: that log update, checked (bounds, rights, alignment)
 */
struct siw2_irqe {
	u8 op;
	struct siw2_mr *mr;
	u32 sink_stag;
	u64 sink_to;
	u64 src_to;
	u32 len;
	u32 req_id;
	struct siw2_atomic_op aop;
	u32 status;
	u32 inv_stag;
	struct siw2_mr *log_mr;
	struct siw2_commit_log_info log;
};

/* What the TX engine is sending. */
enum siw2_tx_kind {
	SIW2_TX_IDLE,
	SIW2_TX_SQE,		/* a send queue work request */
	SIW2_TX_RRESP,		/* an RDMA Read Response */
};

/**
 * struct siw2_tx - transmit engine state (TX work only)
 * @kind: what the current message is
 * @slot: SIW2_TX_SQE: the SQ ring slot
 * @wqe: SIW2_TX_SQE: a copy of the work request
 * @irqe: SIW2_TX_RRESP: the Read being answered
 * @src: payload source pieces (SGEs, or the Read source)
 * @src_mr: the MR of each @src piece, referenced; NULL for inline data
 * @inline_buf: inline payload (SIW2_TX_SQE with IB_SEND_INLINE)
 * @nsrc: entries in @src
 * @si: current @src entry, @soff: offset in it
 * @op: RDMAP opcode of the message
 * @tagged: the message is tagged
 * @stag: tagged: the sink STag; @to: the sink TO of offset 0
 * @qn: untagged: queue number, @msn: its message sequence number
 * @len: message length, @off: octets put into FPDUs so far
 * @fpdus: FPDUs built for the message (a zero-length one needs one)
 * @inval: Send with Invalidate: the STag to invalidate
 * @msn_next: the next MSN per untagged queue (QN 0, 1, 2, 3)
 * @qn3_next: the QN 3 MSN the next Atomic Request's response will carry
 * @imm_next: an Immediate Data message follows the current Write
 * @imm_sent: Send with Immediate Data: its last (immediate) segment is built
 * @req_id: Atomic Request: its Request Identifier
 * @orig: Atomic Response: the target's value before the operation
 * @commit_status: Commit Response: its Status (DEC-13)
 * @wb_on: an RDMA Commit's range is being written back, @wb_done octets
 *	of it so far in @wb_lines cache lines (a run does a budget's worth)
 * @wb_poisoned: a page of that range was found poisoned and skipped
 * @rv: RDMAP version of every message sent (DEC-4)
 * @ext: the peer takes the RFC 7306 messages
 * @hdr: MPA length and DDP/RDMAP header of the FPDU being sent
 * @trailer: pad and CRC of the FPDU being sent
 * @iov: the FPDU, @niov entries; @iter walks what is still unsent
 * @bvec: zero-copy FPDU: the payload's pages, @nbvec entries, @zc_len octets
 * @zc_part: 0 for an FPDU sent as copied kvecs; else which part of a
 *	zero-copy FPDU @iter walks: 1 header, 2 payload pages, 3 trailer
 * @fpdu_left: octets of the FPDU not yet accepted by TCP
 * @term: a complete Terminate FPDU waiting to go (@term_len octets)
 * @term_sent: the Terminate has been handed to TCP (or is being)
 * @taken: send queue ring entries taken since the engine was last
 *	woken by a doorbell
 * @linger_left: looks at an empty ring left before the engine stops
 * @rx_took: siw2_rx.msgs when the engine last took ring entries
 * @rx_linger: siw2_rx.msgs when it last began to linger
 * @answer: a message came in between the last entries taken and the
 *	doorbell that woke the engine (@rx_took)
 * @big: FPDUs may exceed one TCP segment (siw2 peer)
 * @ulpdu_max: longest ULPDU (DDP segment) to send
 * @corked: the last FPDU went to TCP with MSG_MORE: the run's end pushes
 */
struct siw2_tx {
	enum siw2_tx_kind kind;
	bool sq_empty;	/* the last look at the send queue ring found none */
	u32 taken;
	u32 linger_left;
	u32 rx_took;
	u32 rx_linger;
	bool answer;
	u32 slot;
	struct siw2_sqe wqe;
	struct siw2_irqe irqe;
	struct siw2_sge src[SIW2_MAX_SGE];
	struct siw2_mr *src_mr[SIW2_MAX_SGE];
	u8 *inline_buf;
	u32 nsrc;
	u32 si;
	u32 soff;
	u8 op;
	bool tagged;
	u32 stag;
	u64 to;
	u32 qn;
	u32 msn;
	u32 len;
	u32 off;
	u32 fpdus;
	u32 inval;
	u32 msn_next[4];
	u32 qn3_next;
	bool imm_next;
	bool imm_sent;
	u32 req_id;
	u64 orig;
	u32 commit_status;
	bool wb_on;
	u32 wb_done;
	u32 wb_lines;
	bool wb_poisoned;
	u8 rv;
	bool ext;
	u8 hdr[SIW2_TX_HDR_MAX];
	u8 trailer[8];
	struct kvec iov[SIW2_TX_IOV_MAX];
	int niov;
	struct iov_iter iter;
	u32 nbvec;	/* in qp->tx_bvec */
	u32 zc_len;
	u8 zc_part;
	size_t fpdu_left;
	u8 term[SIW2_MPA_HDR_LEN + 18 + SIW2_TERM_PAYLOAD_MAX + 8];
	u32 term_len;
	bool term_sent;
	bool big;
	u32 ulpdu_max;
	bool corked;
};

enum siw2_rx_stage {
	SIW2_RX_HDR,		/* gathering MPA length and DDP/RDMAP header */
	SIW2_RX_PAYLOAD,	/* placing (or skipping) the payload */
	SIW2_RX_TRAILER,	/* gathering pad and CRC */
	SIW2_RX_DEAD,		/* after an error: input is dropped */
};

/* Where the current segment's payload goes. */
enum siw2_rx_sink {
	SIW2_RX_SINK_NONE,	/* skip it (after a header error, or 0 octets) */
	SIW2_RX_SINK_MR,	/* tagged: @mr at @va */
	SIW2_RX_SINK_RQE,	/* untagged Send: the receive's SGEs */
	SIW2_RX_SINK_TERM,	/* a Terminate's payload: @term_buf */
	SIW2_RX_SINK_RV2,	/* a Read V2 Response: the Read's SGEs */
	SIW2_RX_SINK_CTAIL,	/* a Commit's log update: @ctail */
};

/**
 * struct siw2_rx - receive engine state (RX work only)
 * @stage: parser position
 * @hdr: the FPDU's first octets: ULPDU_Length and the DDP/RDMAP header
 * @hdr_have: octets in @hdr, @hdr_want: octets the header needs
 * @ulpdu_len: ULPDU_Length of the current FPDU
 * @info: the decoded header
 * @sink: where the payload goes
 * @pay_left: payload octets still to come
 * @trailer: pad and CRC, @tr_have of @tr_want octets
 * @crc: running CRC32c state (before the final inversion)
 * @err: a header error found: sent as Terminate once the CRC is checked
 * @err_hdrs: include the DDP (and for Read Requests RDMAP) header
 * @mr: SIW2_RX_SINK_MR: target MR (referenced), @va where the next octet goes
 * @rqe: the receive the current Send fills (@rqe_valid)
 * @rqe_mr: the MR of each @rqe SGE, referenced
 * @rqe_srq: @rqe came from the SRQ
 * @msg_msn: MSN of the Send being received, @msg_len: octets placed
 * @si: current @rqe SGE, @soff: offset in it
 * @msn_expect: next expected MSN per untagged queue (QN 0, 1, 2, 3)
 * @rv: the RDMAP version every message must carry (DEC-4)
 * @feat: the optional messages the connection negotiated, SIW2_DDP_FEAT_*
 *	(siw2_ddp_decode() @feat)
 * @term_buf: a received Terminate's payload, @term_have octets
 * @ctail: the octets after a Commit Request's region when they can be a
 *	log update (SIW2-DEC-1), @ctail_have of them
 * @first_seen: an FPDU arrived (MPA fencing of a client-server Responder)
 * @msgs: messages whose last segment's header came in (the TX doorbell
 *	compares it)
 * @rv2_sge: the sink SGEs of the Read V2 being answered (@rv2_n, loaded
 *	at its first response segment), @rv2_mr their MRs, referenced
 * @rv2_si: current @rv2_sge, @rv2_soff: offset in it
 */
struct siw2_rx {
	enum siw2_rx_stage stage;
	u8 hdr[SIW2_TX_HDR_MAX];
	u32 hdr_have;
	u32 hdr_want;
	u32 ulpdu_len;
	struct siw2_ddp_info info;
	enum siw2_rx_sink sink;
	u32 pay_left;
	u8 trailer[8];
	u32 tr_have;
	u32 tr_want;
	u32 crc;
	struct siw2_term_code err;
	bool err_set;
	bool err_hdrs;
	struct siw2_mr *mr;
	u64 va;
	struct siw2_rqe rqe;
	struct siw2_mr *rqe_mr[SIW2_MAX_SGE];
	bool rqe_valid;
	bool rqe_srq;
	u32 msg_msn;
	u32 msg_len;
	u32 si;
	u32 soff;
	u32 msn_expect[4];
	u8 rv;
	u8 feat;
	u8 term_buf[SIW2_TERM_PAYLOAD_MAX];
	u32 term_have;
	u8 ctail[sizeof(struct siw2_rdmap_commit_log)];
	u32 ctail_have;
	bool first_seen;
	u32 msgs;
	struct siw2_sge rv2_sge[SIW2_MAX_SGE];
	struct siw2_mr *rv2_mr[SIW2_MAX_SGE];
	u32 rv2_n;
	u32 rv2_si;
	u32 rv2_soff;
};

/* siw2_mem.c: the MR view of the data path */
struct siw2_mr *siw2_mr_get(struct siw2_device *sdev, u32 stag);
void siw2_mr_put(struct siw2_mr *mr);
int siw2_mr_kaddr(struct siw2_mr *mr, u64 va, u32 len, void **kaddr);

/* Result of siw2_mr_check(). */
enum siw2_mem_err {
	SIW2_MEM_OK,
	SIW2_MEM_E_STAG,	/* no such STag, wrong key, or invalidated */
	SIW2_MEM_E_PD,		/* another PD: not associated with the stream */
	SIW2_MEM_E_ACCESS,	/* a right is missing */
	SIW2_MEM_E_WRAP,	/* TO + length wraps */
	SIW2_MEM_E_BOUNDS,	/* outside the region */
};

enum siw2_mem_err siw2_mr_check(struct siw2_mr *mr, struct ib_pd *pd,
				u64 va, u64 len, int access);
enum siw2_mem_err siw2_mr_lookup(struct siw2_device *sdev, struct ib_pd *pd,
				 u32 stag, u64 va, u64 len, int access,
				 struct siw2_mr **mrp);
int siw2_mr_invalidate(struct siw2_device *sdev, struct ib_pd *pd, u32 stag);
int siw2_mw_bind(struct siw2_device *sdev, struct ib_pd *pd, u32 rkey,
		 const struct siw2_bind_info *b);
int siw2_mr_fast_reg(struct siw2_mr *mr, struct ib_pd *pd, u32 key,
		     int access);

/* siw2_tx.c */
void siw2_tx_work(struct work_struct *work);
enum hrtimer_restart siw2_tx_linger_fire(struct hrtimer *t);
void siw2_tx_linger_msg(struct siw2_qp *qp);
void siw2_tx_direct(struct siw2_qp *qp);
void siw2_tx_doorbell(struct siw2_qp *qp);
void siw2_tx_kick(struct siw2_qp *qp);
void siw2_tx_kick_waiting(struct siw2_qp *qp);
void siw2_tx_init(struct siw2_qp *qp);
void siw2_tx_release(struct siw2_qp *qp);
void siw2_tx_terminate(struct siw2_qp *qp, const struct siw2_term_code *c,
		       const u8 *ddp_hdr, u32 ddp_len, u32 seg_len,
		       const u8 *rdmap_hdr);

/* siw2_rx.c */
void siw2_rx_work(struct work_struct *work);
void siw2_rx_data_ready(struct siw2_qp *qp, struct sock *sk);
void siw2_rx_kick(struct siw2_qp *qp);
void siw2_rx_init(struct siw2_qp *qp, bool read_rtr);
void siw2_rx_release(struct siw2_qp *qp);

/* siw2_dp.c: the data-path core */
void siw2_dp_wc(struct siw2_qp *qp, struct siw2_cq *cq, u64 wr_id,
		enum ib_wc_status status, enum ib_wc_opcode opcode,
		u32 byte_len, bool solicited);
void siw2_dp_fail(struct siw2_qp *qp, bool abort);
void siw2_dp_sq_drained(struct siw2_qp *qp);
void siw2_dp_reset(struct siw2_qp *qp);
struct siw2_orqe *siw2_orq_head(struct siw2_qp *qp);
bool siw2_orq_full(struct siw2_qp *qp);
struct siw2_orqe *siw2_orq_push(struct siw2_qp *qp);
void siw2_orq_pop(struct siw2_qp *qp);
struct siw2_irqe *siw2_irq_push(struct siw2_qp *qp);
struct siw2_irqe *siw2_irq_head(struct siw2_qp *qp);
void siw2_irq_pop(struct siw2_qp *qp);
void siw2_irq_drop(struct siw2_qp *qp);
void siw2_dp_sq_error(struct siw2_qp *qp, u32 slot, enum ib_wc_status status);
void siw2_dp_sq_error_oldest(struct siw2_qp *qp, enum ib_wc_status status);
u32 siw2_dp_sq_reap(struct siw2_qp *qp);
void siw2_dp_sqe_done(struct siw2_qp *qp, u32 slot, enum ib_wc_status status,
		      u32 vendor_err);
void siw2_dp_sq_flush(struct siw2_qp *qp);
void siw2_dp_rq_flush(struct siw2_qp *qp);

extern struct workqueue_struct *siw2_dp_wq;

#endif /* _SIW2_DP_H */
