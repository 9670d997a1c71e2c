/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2dv: what the siw2 provider offers beyond libibverbs' verbs.
 *
 * The functions live in the provider library itself (libsiw2-rdmav34.so,
 * symbol version SIW2_1.0). A program links that library and must run
 * with the same file libibverbs loads for the device (the installed
 * provider, or RDMAV_DRIVERS=<dir>/libsiw2 for a build tree): a device
 * driven by another copy is not a siw2 device to these functions.
 *
 * SIW2DV_VERSION tells which functions are present.
 */
#ifndef SIW2DV_H
#define SIW2DV_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 1: siw2dv_is_siw2_context(), siw2dv_query_qp()
 * 2: 8-byte Immediate Data: siw2dv_wr_send_imm64(),
 *    siw2dv_wr_rdma_write_imm64(), siw2dv_wr_send_inv_imm(),
 *    siw2dv_cq_read_imm(); masked atomics:
 *    siw2dv_wr_masked_atomic_fetch_add(), siw2dv_wr_masked_atomic_cmp_swp()
 * 3: RDMA Commit: siw2dv_wr_commit(), siw2dv_wr_commit_log(),
 *    SIW2DV_ACCESS_FLUSH_*,
 *    SIW2DV_WC_COMMIT, SIW2DV_COMMIT_STATUS_*
 * 4: siw2dv_wr_commit_ex(), SIW2DV_COMMIT_GLOBAL/_PERSISTENT, struct
 *    siw2dv_commit_log, SIW2DV_COMMIT_STATUS_NOT_DURABLE/_LOG_REFUSED
 */
#define SIW2DV_VERSION 4

/* True if @ctx is a device context of this siw2 provider. */
bool siw2dv_is_siw2_context(struct ibv_context *ctx);

/*
 * Versioned by comp_mask: later fields are appended, each with a bit the
 * caller sets to want it and the provider leaves set when it filled it
 * (none is defined yet, so it is 0 on return). The fields below are
 * always filled.
 */
struct siw2dv_qp_attr {
	uint64_t comp_mask;
	bool rings;		/* posts through rings shared with the kernel */
	uint8_t reserved[3];
	uint32_t sq_slots;	/* send queue depth (ring slots with rings) */
	uint32_t rq_slots;	/* receive queue depth, 0 with an SRQ */
	uint32_t max_inline;	/* inline octets per send work request */
	uint64_t doorbells;	/* system calls made to wake the kernel */
};

/*
 * Provider-level attributes of @qp. Returns 0, EINVAL for a NULL
 * argument, or EOPNOTSUPP if @qp is not a siw2 QP.
 */
int siw2dv_query_qp(struct ibv_qp *qp, struct siw2dv_qp_attr *attr);

/*
 * Immediate Data is 8 octets on the wire (RFC 7306, RDMAP v2); verbs
 * carry 4 of them (octets 0..3, the rest zero). These take and return all
 * 8, as the big-endian number they form: octet 0 is imm >> 56.
 *
 * The builders work like ibv_wr_send_imm() and ibv_wr_rdma_write_imm()
 * between ibv_wr_start() and ibv_wr_complete() on a QP made with
 * ibv_create_qp_ex() (the data follows with ibv_wr_set_sge*() or
 * ibv_wr_set_inline_data*()). A Send with Invalidate and Immediate Data
 * has no verb at all. Errors surface at ibv_wr_complete(): EOPNOTSUPP when
 * the connection lacks the operation (Send with Immediate Data needs
 * RDMAP v2 with a siw2 peer; a Write with Immediate needs a siw2 peer),
 * EINVAL when @qp is not a siw2 QP with rings.
 */
void siw2dv_wr_send_imm64(struct ibv_qp_ex *qp, uint64_t imm);
void siw2dv_wr_send_inv_imm(struct ibv_qp_ex *qp, uint32_t invalidate_rkey,
			    uint64_t imm);
void siw2dv_wr_rdma_write_imm64(struct ibv_qp_ex *qp, uint32_t rkey,
				uint64_t remote_addr, uint64_t imm);

/*
 * Masked atomics (RFC 7306, the semantics of the kernel's
 * IB_WR_MASKED_ATOMIC_*; libibverbs has no verb for them), used like
 * ibv_wr_atomic_fetch_add() / ibv_wr_atomic_cmp_swp() with one 8-byte
 * ibv_wr_set_sge() for the original value. FetchAdd: a 1 in @add_mask
 * ends a field, no carry crosses it. CmpSwap: only the bits of
 * @compare_mask are compared, only those of @swap_mask are swapped. They
 * complete as IBV_WC_FETCH_ADD / IBV_WC_COMP_SWAP. Errors as for the
 * builders above (EOPNOTSUPP towards a peer without atomics).
 */
void siw2dv_wr_masked_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey,
				       uint64_t remote_addr, uint64_t add,
				       uint64_t add_mask);
void siw2dv_wr_masked_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey,
				     uint64_t remote_addr, uint64_t compare,
				     uint64_t compare_mask, uint64_t swap,
				     uint64_t swap_mask);

/*
 * RDMA Commit (draft-talpey-rdma-commit): the peer makes the range
 * [@remote_addr, @remote_addr + @len) of its STag @rkey durable, after
 * every earlier Write of this QP, and answers. Used like the other
 * builders (no data setter follows). It needs REMOTE_WRITE on the range
 * and a siw2 peer that negotiated Commit (module parameter mpa_caps with
 * 0x2 on both sides), else ibv_wr_complete() fails with EOPNOTSUPP and
 * nothing is sent.
 *
 * The range is durable only in an MR the peer registered with
 * SIW2DV_ACCESS_FLUSH_PERSISTENT, which ibv_reg_mr() refuses with
 * EMEDIUMTYPE unless every page is persistent memory (a device-DAX
 * mapping; a file on a DAX file system is refused with EOPNOTSUPP, as
 * its pages cannot be pinned for long). A range in any other MR is placed and globally visible but
 * not durable: the peer answers "not durable" (SIW2-DEC-2). (rdma-core
 * 44 names neither flag; these are the kernel's IB_UVERBS_ACCESS_FLUSH_*
 * bits, which rdma-core 45 and later call IBV_ACCESS_FLUSH_*.)
 *
 * siw2dv_wr_commit() and siw2dv_wr_commit_log() need durability. They
 * complete as SIW2DV_WC_COMMIT (the kernel's IB_UVERBS_WC_FLUSH, which
 * rdma-core 45 and later call IBV_WC_FLUSH): IBV_WC_SUCCESS once the
 * range is durable; IBV_WC_REM_ACCESS_ERR with vendor_err
 * SIW2DV_COMMIT_STATUS_NOT_DURABLE if the peer could only make it
 * visible; IBV_WC_REM_OP_ERR with the peer's Status in vendor_err for
 * any other failure. The QP stays usable in each case
 * (SIW2DV_COMMIT_STATUS_*).
 *
 * With rdma-core 45 or later, ibv_wr_flush() does the same with the
 * standard verb (IBV_QP_EX_WITH_FLUSH): IBV_FLUSH_RANGE only
 * (IBV_FLUSH_MR fails ibv_wr_complete() with EOPNOTSUPP), and
 * IBV_FLUSH_GLOBAL without IBV_FLUSH_PERSISTENT completes successfully
 * on a range that is visible but not durable.
 */
#define SIW2DV_ACCESS_FLUSH_GLOBAL	(1 << 8)
#define SIW2DV_ACCESS_FLUSH_PERSISTENT	(1 << 9)
#define SIW2DV_WC_COMMIT		8
enum {
	SIW2DV_COMMIT_STATUS_MEDIA = 1,	/* not made durable, still in memory */
	SIW2DV_COMMIT_STATUS_LIMIT = 2,	/* beyond the peer's limits */
	SIW2DV_COMMIT_STATUS_RETRY = 3,	/* transient: may be retried */
	SIW2DV_COMMIT_STATUS_NOT_DURABLE = 4,	/* visible, not durable */
	SIW2DV_COMMIT_STATUS_LOG_REFUSED = 5,	/* durable log, volatile range */
};
void siw2dv_wr_commit(struct ibv_qp_ex *qp, uint32_t rkey,
		      uint64_t remote_addr, uint32_t len);

/*
 * A Commit with a log update (siw2's own extension of the draft's
 * optional follow-on data, SIW2-DEC-1): once the range is durable, the
 * peer stores the 8 bytes of @value, as they lie in this process's
 * memory, at @log_addr of its STag @log_rkey in one aligned store and
 * makes them durable too, before it answers. If the commit fails, the
 * word is left alone. A log word in durable memory is never stored
 * after a range that is not durable: the peer answers
 * SIW2DV_COMMIT_STATUS_LOG_REFUSED (IBV_WC_REM_OP_ERR) and stores
 * nothing. A word in memory that is not durable is stored (visible
 * only) and the Commit answered "not durable". @log_addr must be 8-byte
 * aligned (else ibv_wr_complete() fails with EINVAL) and the word needs
 * REMOTE_WRITE. A bad log word (unknown STag, no rights, out of bounds,
 * misaligned in the peer's memory) ends the connection like a bad
 * range. A peer without the extension answers SIW2DV_COMMIT_STATUS_LIMIT
 * and stores nothing.
 */
void siw2dv_wr_commit_log(struct ibv_qp_ex *qp, uint32_t rkey,
			  uint64_t remote_addr, uint32_t len,
			  uint32_t log_rkey, uint64_t log_addr,
			  uint64_t value);

/*
 * Either of the above with the placement type said: @type
 * SIW2DV_COMMIT_PERSISTENT (as siw2dv_wr_commit()), or
 * SIW2DV_COMMIT_GLOBAL alone, which completes successfully when the
 * peer could make the range (and log word) only visible; the values of
 * IBV_FLUSH_PERSISTENT and IBV_FLUSH_GLOBAL. @log is NULL or a log
 * update. Another @type fails ibv_wr_complete() with EINVAL.
 */
#define SIW2DV_COMMIT_GLOBAL		(1 << 0)
#define SIW2DV_COMMIT_PERSISTENT	(1 << 1)
struct siw2dv_commit_log {
	uint32_t rkey;		/* the peer's STag of the log word */
	uint64_t addr;		/* the word, 8-byte aligned */
	uint64_t value;		/* stored as it lies in memory */
};
void siw2dv_wr_commit_ex(struct ibv_qp_ex *qp, uint32_t rkey,
			 uint64_t remote_addr, uint32_t len, unsigned int type,
			 const struct siw2dv_commit_log *log);

/*
 * The completion at the cursor of @cq (between ibv_start_poll() and
 * ibv_end_poll()): sets *@imm to its 8 octets of Immediate Data and, if
 * @inv_rkey is not NULL, *@inv_rkey to the STag a Send with Invalidate
 * invalidated (0 if none). Returns 0, ENOENT if the completion carries no
 * immediate data (*@imm is 0 then), or EINVAL if @cq is not a siw2 CQ.
 */
int siw2dv_cq_read_imm(struct ibv_cq_ex *cq, uint64_t *imm,
		       uint32_t *inv_rkey);

#ifdef __cplusplus
}
#endif

#endif /* SIW2DV_H */
