/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: calls for kernel consumers beyond the RDMA core's verbs.
 *
 * RDMA Commit (draft-talpey-rdma-commit, DEC-12/13): the core's
 * IB_WR_FLUSH has no work request structure that carries a range length,
 * so a kernel consumer posts a Commit with siw2_post_commit(). It is
 * exported by siw2.ko (build against its Module.symvers).
 */
#ifndef SIW2_KAPI_H
#define SIW2_KAPI_H

#include <linux/types.h>

struct ib_qp;

/* Commit Response Status values (DEC-13), in a failed Commit's vendor_err. */
enum {
	SIW2_COMMIT_STATUS_OK = 0,
	SIW2_COMMIT_STATUS_MEDIA = 1,	/* durability failed; data in buffer */
	SIW2_COMMIT_STATUS_LIMIT = 2,	/* exceeds implementation limits */
	SIW2_COMMIT_STATUS_RETRY = 3,	/* transient: may be retried */
	SIW2_COMMIT_STATUS_NOT_DURABLE = 4,	/* visible only (SIW2-DEC-2) */
	SIW2_COMMIT_STATUS_LOG_REFUSED = 5,	/* word durable, range not */
};

/*
 * siw2_post_commit() @type: what the Requester needs, as the core's
 * IB_FLUSH_GLOBAL and IB_FLUSH_PERSISTENT. PERSISTENT fails a Commit
 * whose range the peer could not make durable (SIW2-DEC-2); GLOBAL alone
 * is satisfied by a range that is only globally visible.
 */
enum {
	SIW2_COMMIT_GLOBAL = 1 << 0,
	SIW2_COMMIT_PERSISTENT = 1 << 1,
};

/**
 * struct siw2_commit_log - a Commit's log update (siw2's own, SIW2-DEC-1)
 * @rkey: the peer's STag of the log word
 * @raddr: its tagged offset, 8-octet aligned
 * @value: the 8 octets stored there as they lie in memory, after the
 *	Commit's range is durable, and made durable too
 */
struct siw2_commit_log {
	u32 rkey;
	u64 raddr;
	u64 value;
};

int siw2_post_commit(struct ib_qp *ibqp, u64 wr_id, u32 rkey, u64 raddr,
		     u32 len, const struct siw2_commit_log *log, u32 type,
		     int send_flags);

#endif /* SIW2_KAPI_H */
