/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * siw2 kernel <-> user-space provider ABI.
 *
 * Shared verbatim by drivers/siw2 and userspace-provider/. Every structure
 * uses fixed-width fields with explicit padding so that 32- and 64-bit
 * processes see the same layout. Bump SIW2_ABI_VERSION on any incompatible
 * change; the provider refuses devices with a different version.
 */
#ifndef SIW2_ABI_H
#define SIW2_ABI_H

#include <linux/types.h>

/*
 * Reported as the uverbs ABI version (sysfs .../infiniband_verbs/uverbsN/
 * abi_version). 2: queues and CQs may be shared rings (struct siw2_ring).
 * 3: atomics and Immediate Data in send queue entries, the 40-byte CQE.
 */
#define SIW2_ABI_VERSION 3

/*
 * The device's firmware version string (sysfs .../infiniband/<dev>/fw_ver)
 * starts with this marker. Out-of-tree drivers have no rdma_driver_id of
 * their own, so the provider matches devices on it instead.
 */
#define SIW2_FW_VER_MARKER "siw2-"

/* siw2_uresp_alloc_ctx.caps */
enum {
	/* CQs, send and receive queues and SRQs are mmap'ed rings. */
	SIW2_UCTX_CAP_RINGS = 1 << 0,
	/*
	 * The kernel's RDMA core (before Linux 6.2) refuses the Flush
	 * rights (IB_UVERBS_ACCESS_FLUSH_GLOBAL/_PERSISTENT) in a user
	 * registration: they go in siw2_ureq_reg_mr.access_flush instead.
	 */
	SIW2_UCTX_CAP_MR_FLUSH_UDATA = 1 << 1,
	/*
	 * Commits take SIW2_COMMIT_F_GLOBAL, and one that needs durability
	 * fails when the peer answers "not durable" (SIW2-DEC-2).
	 */
	SIW2_UCTX_CAP_COMMIT_TYPE = 1 << 2,
};

/* Response to ibv_open_device() (alloc_ucontext). */
struct siw2_uresp_alloc_ctx {
	__u32 dev_id;		/* device instance number, for diagnostics */
	__u32 abi_version;	/* SIW2_ABI_VERSION */
	__aligned_u64 caps;	/* SIW2_UCTX_CAP_* */
};

/*
 * Driver data of ibv_reg_mr(): @access_flush holds Flush rights
 * (IB_UVERBS_ACCESS_FLUSH_GLOBAL, _PERSISTENT) the kernel adds to the
 * registration's, nothing else; @reserved is 0.  All 0, or absent, adds
 * nothing.
 */
struct siw2_ureq_reg_mr {
	__u32 access_flush;
	__u32 reserved;
};

/*
 * A ring: one mapping (mmap of the uverbs file at the offset a create
 * response names, of SIW2_RING_LEN(slots, stride) bytes), the control
 * block, then @slots entries of @stride bytes. @slots is a power of two;
 * the indices are free-running 32-bit counters, entry i is at slot
 * i & (slots - 1). The producer writes entries, then its index (release);
 * the consumer reads the index (acquire), then the entries, then writes
 * its own index (release).
 *
 * Send queue, receive queue, SRQ: the process produces, the kernel
 * consumes. The kernel advances @cons when a work request has completed
 * (or was dropped by a QP reset), so prod - cons is the queue's
 * occupancy. CQ: the kernel produces, the process consumes.
 *
 * The kernel reads only the fields the process writes (@prod of a work
 * queue, @cons and @notify of a CQ, the entries of a work queue), copies
 * each entry before it checks it, and keeps its own copy of every index
 * it writes: whatever a process writes here can break only its own QP or
 * CQ.
 */
struct siw2_ring_ctl {
	__u32 prod;
	__u32 pad0[15];
	__u32 cons;
	__u32 pad1[15];
	/* Written by the kernel (work queues): SIW2_RING_F_* */
	__u32 kflags;
	/* Written by the kernel (work queues): the QP's IB state (IB_QPS_*) */
	__u32 qp_state;
	/* Written by the kernel (send queue) on entering RTS: SIW2_CONN_F_* */
	__u32 conn_flags;
	__u32 pad2[13];
	/* Written by the process (CQ): SIW2_NOTIFY_*, cleared by the kernel */
	__u32 notify;
	__u32 pad3[15];
};

#define SIW2_RING_CTL_SIZE	256
#define SIW2_RING_LEN(slots, stride) \
	(SIW2_RING_CTL_SIZE + (__u64)(slots) * (stride))

/* siw2_ring_ctl.kflags */
enum {
	/*
	 * Send queue: the kernel's transmit engine will look at the ring
	 * again without being told. When it is clear, the process makes a
	 * doorbell system call (post_send with no work requests) after
	 * publishing @prod; both sides order their index and flag accesses
	 * with a full barrier, so one of them always sees the other.
	 */
	SIW2_RING_F_BUSY = 1 << 0,
};

/* siw2_ring_ctl.conn_flags: what the connection's peer takes */
enum {
	/* RFC 7306 Atomics and Immediate Data (a siw2 peer) */
	SIW2_CONN_F_EXT = 1 << 0,
	/* RDMAP version 2: Send with Immediate Data, RDMA Read V2 */
	SIW2_CONN_F_RV2 = 1 << 1,
	/* RDMA Reads go as Read V2: any number of sink SGEs (DEC-15) */
	SIW2_CONN_F_READ_V2 = 1 << 2,
	/* RDMA Commit (DEC-4 bit 0x2 on both sides) */
	SIW2_CONN_F_COMMIT = 1 << 3,
};

/* siw2_ring_ctl.notify (ibv_req_notify_cq) */
enum {
	SIW2_NOTIFY_NONE = 0,
	SIW2_NOTIFY_SOLICITED = 1,	/* next solicited or error completion */
	SIW2_NOTIFY_NEXT = 2,		/* next completion */
};

/* A scatter/gather element, as in struct ibv_sge. */
struct siw2_ring_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* siw2_sq_wqe.flags (the values of enum ibv_send_flags) */
enum {
	SIW2_WQE_FENCE = 1 << 0,
	SIW2_WQE_SIGNALED = 1 << 1,
	SIW2_WQE_SOLICITED = 1 << 2,
	SIW2_WQE_INLINE = 1 << 3,
	SIW2_WQE_FLAGS = 0xf,
};

/*
 * Send queue entry. With SIW2_WQE_INLINE, @num_sge is 0 and @inline_len
 * octets of data follow the header where the SGEs would be. The stride
 * (create_qp response) leaves room for max_send_sge SGEs or
 * max_inline_data octets, whichever is larger.
 *
 * Atomics (ATOMIC_FETCH_AND_ADD, ATOMIC_CMP_AND_SWP and their MASKED_
 * forms) use @raddr/@rkey for the target, one SGE of 8 octets for the
 * original value, and @atomic as struct ib_atomic_wr names the operands
 * (a plain FetchAdd or CmpSwap leaves the masks 0). ATOMIC_WRITE takes
 * its 8 octets from one SGE or as inline data.
 *
 * RDMA_WRITE_WITH_IMM, SEND_WITH_IMM and SIW2_WR_SEND_WITH_INV_IMM carry
 * the 8 octets of Immediate Data in @imm, as the big-endian number they
 * form on the wire: ibv_send_wr's 4-byte imm_data is octets 0..3, so
 * imm = (__u64)be32toh(imm_data) << 32 (DEC-5). A WRITE_WITH_IMM with no
 * data sends the Immediate Data message alone (DEC-16).
 *
 * Every other opcode leaves @atomic (and so @imm) zero.
 */
/*
 * FLUSH (an RDMA Commit) names its range with @raddr, @rkey and
 * @commit.len. With SIW2_COMMIT_F_LOG the peer then stores the 8 octets
 * of @commit.log_value at @commit.log_to of @commit.log_stag and makes
 * them durable, after the range (siw2's log update, SIW2-DEC-1);
 * without it the log fields are 0. SIW2_COMMIT_F_GLOBAL asks for global
 * visibility only (IBV_FLUSH_GLOBAL): a peer's "visible, not durable"
 * answer then completes successfully; without it the Commit needs
 * durability (IBV_FLUSH_PERSISTENT, SIW2-DEC-2).
 */
enum {
	SIW2_COMMIT_F_LOG = 1 << 0,
	SIW2_COMMIT_F_GLOBAL = 1 << 1,
};

/* siw2_sq_wqe.opcode beyond the IB_UVERBS_WR_* values (no verb has it) */
enum {
	/* Send with Invalidate and Immediate Data (RDMAP v2), @inv_stag + @imm */
	SIW2_WR_SEND_WITH_INV_IMM = 0x80,
};

struct siw2_sq_wqe {
	__aligned_u64 wr_id;
	__u8 opcode;		/* IB_UVERBS_WR_* (enum ibv_wr_opcode) */
	__u8 num_sge;
	__u16 flags;		/* SIW2_WQE_* */
	__u32 inv_stag;		/* SEND_INV, LOCAL_INV */
	__aligned_u64 raddr;	/* WRITE, READ */
	__u32 rkey;		/* WRITE, READ */
	__u32 inline_len;
	union {
		struct {
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__aligned_u64 compare_add_mask;
			__aligned_u64 swap_mask;
		} atomic;
		__aligned_u64 imm;
		/* BIND_MW: @rkey is the window's new STag (its key byte new) */
		struct {
			__aligned_u64 addr;	/* first address, in the MR */
			__aligned_u64 length;
			__u32 mr_lkey;		/* the MR it opens onto */
			__u32 access;		/* IBV_ACCESS_REMOTE_* */
		} bind;
		struct {
			__aligned_u64 len;	/* octets, <= U32_MAX */
			__aligned_u64 log_to;	/* 8-octet aligned */
			__aligned_u64 log_value;	/* stored as is */
			__u32 log_stag;
			__u32 flags;		/* SIW2_COMMIT_F_* */
		} commit;
	};
	struct siw2_ring_sge sge[];
};

/* Receive queue and SRQ entry; the stride holds max_recv_sge SGEs. */
struct siw2_rq_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 rsvd;		/* must be zero */
	struct siw2_ring_sge sge[];
};

/* siw2_cqe.flags (the values of enum ibv_wc_flags) */
enum {
	SIW2_CQE_WITH_IMM = 1 << 1,
	SIW2_CQE_WITH_INV = 1 << 3,
};

/*
 * Completion queue entry; opcode and status use the uverbs numbering.
 * A Send with Invalidate and Immediate Data sets both flags: @ex is then
 * the immediate data (as ibv_wc can hold one), @inv_stag the STag.
 */
struct siw2_cqe {
	__aligned_u64 wr_id;
	__u8 opcode;		/* IB_UVERBS_WC_* (enum ibv_wc_opcode) */
	__u8 status;		/* enum ibv_wc_status */
	__u8 flags;		/* SIW2_CQE_* */
	__u8 rsvd;
	__u32 byte_len;
	__u32 qp_num;
	__u32 ex;		/* immediate data octets 0..3 (network order) or STag */
	__u32 vendor_err;
	__u32 inv_stag;		/* SIW2_CQE_WITH_INV: the invalidated STag */
	__aligned_u64 imm;	/* SIW2_CQE_WITH_IMM: all 8 octets, big-endian number */
};

/* Response to ibv_create_cq(). */
struct siw2_uresp_create_cq {
	__u32 cq_id;		/* driver-internal CQ number */
	__u32 num_cqe;		/* CQ depth actually allocated */
	__aligned_u64 ring_offset;	/* mmap offset of the ring */
	__u32 ring_slots;	/* 0: no ring (poll through the kernel) */
	__u32 ring_stride;	/* sizeof(struct siw2_cqe) */
};

/* Response to ibv_resize_cq(): a new ring replaces the old one. */
struct siw2_uresp_resize_cq {
	__u32 num_cqe;		/* new CQ depth actually allocated */
	__u32 ring_slots;
	__aligned_u64 ring_offset;
	__u32 ring_stride;
	__u32 reserved;
};

/* Response to ibv_create_qp(). */
struct siw2_uresp_create_qp {
	__u32 qp_id;		/* equals the QP number */
	__u32 num_sqe;		/* send queue depth actually allocated */
	__u32 num_rqe;		/* receive queue depth (0 with an SRQ) */
	__u32 sq_stride;	/* 0: no rings */
	__aligned_u64 sq_offset;
	__aligned_u64 rq_offset;	/* no RQ ring with an SRQ */
	__u32 rq_stride;
	__u32 max_inline;	/* inline octets per send queue entry */
};

/* Response to ibv_create_srq(). */
struct siw2_uresp_create_srq {
	__u32 num_rqe;		/* SRQ depth actually allocated */
	__u32 stride;		/* 0: no ring */
	__aligned_u64 offset;
};

#endif /* SIW2_ABI_H */
