/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: software iWARP RDMA device - core objects shared by all files.
 */
#ifndef _SIW2_H
#define _SIW2_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include <uapi/rdma/siw2-abi.h>

#include "siw2_atomic.h"
#include "siw2_compat.h"
#include "siw2_limits.h"
#include "siw2_mpa.h"
#include "siw2_params.h"
#include "siw2_wire.h"

struct siw2_cep;

#define SIW2_DRV_NAME "siw2"

/* Objects whose live count is accounted (and limited) per device. */
enum siw2_obj {
	SIW2_OBJ_UCTX,
	SIW2_OBJ_PD,
	SIW2_OBJ_CQ,
	SIW2_OBJ_MR,
	SIW2_OBJ_SRQ,
	SIW2_OBJ_QP,
	SIW2_OBJ_CEP,
	SIW2_OBJ_NUM
};

/*
 * Counters, shown by "rdma statistic" and in the port's hw_counters
 * (siw2_stats.c names them, in this order): a QP counts into its
 * device's set, or into an rdma_counter's while bound to one.
 */
enum siw2_stat {
	SIW2_STAT_TX_FPDUS,
	SIW2_STAT_TX_BYTES,
	SIW2_STAT_RX_FPDUS,
	SIW2_STAT_RX_BYTES,
	SIW2_STAT_CRC_ERRORS,
	SIW2_STAT_TERM_TX_RDMAP,	/* by Layer, SIW2_TERM_LAYER_* apart */
	SIW2_STAT_TERM_TX_DDP,
	SIW2_STAT_TERM_TX_LLP,
	SIW2_STAT_TERM_RX_RDMAP,
	SIW2_STAT_TERM_RX_DDP,
	SIW2_STAT_TERM_RX_LLP,
	SIW2_STAT_RQ_EMPTY,
	SIW2_STAT_SQ_DOORBELLS,
	SIW2_STAT_SQ_RING_POSTS,
	SIW2_STAT_NUM
};

struct siw2_stats {
	u64 v[SIW2_STAT_NUM];
};

/**
 * struct siw2_device - one siw2 RDMA device bound to one netdev
 * @ibdev: the core device (must stay first for ib_alloc_device())
 * @netdev: the attached netdev; a reference is held for the device's lifetime
 * @netdev_tracker: tracks that reference
 * @list: entry in the driver's own device list (siw2_dev_mutex)
 * @unreg_work: unregistration triggered by netdev removal
 * @registered: ib_register_device() completed (siw2_dev_mutex)
 * @unreg_queued: @unreg_work has been queued once (siw2_dev_mutex)
 * @dev_id: instance number, reported to user space
 * @raw_gid: GID[0]: the netdev MAC or a generated one, zero padded
 *	(siw2_dev_mutex, RTNL)
 * @gid_generated: @raw_gid was generated: the netdev has no MAC
 * @port_state: last port state dispatched as an event (siw2_dev_mutex)
 * @limit: object-count limits, snapshot of the module parameters
 * @count: live objects by kind
 * @qp_xa: QP number -> QP
 * @qpn_next: next QP number to try (cyclic, so numbers are not reused soon)
 * @mr_xa: STag index -> MR
 * @mr_next: next STag index to try (cyclic: a stale STag stays invalid)
 * @debugfs: per-device debugfs directory
 * @cep_lock: protects @cep_list
 * @cep_list: every connection endpoint of the device (siw2_cm.c)
 * @cep_wait: woken when an endpoint is freed
 * @stats: per-CPU device counters (siw2_stats.c)
 * @counter_xa: rdma_counter id -> that counter's siw2_counter
 */
struct siw2_device {
	struct ib_device ibdev;
	struct net_device *netdev;
	netdevice_tracker netdev_tracker;
	struct list_head list;
	struct work_struct unreg_work;
	bool registered;
	bool unreg_queued;
	u32 dev_id;
	u8 raw_gid[ETH_ALEN];
	bool gid_generated;
	enum ib_port_state port_state;
	u32 limit[SIW2_OBJ_NUM];
	atomic_t count[SIW2_OBJ_NUM];
	struct xarray qp_xa;
	u32 qpn_next;
	struct xarray mr_xa;
	u32 mr_next;
	struct dentry *debugfs;
	spinlock_t cep_lock; /* cep_list */
	struct list_head cep_list;
	wait_queue_head_t cep_wait;
	struct siw2_stats __percpu *stats;
	struct xarray counter_xa;
};

struct siw2_ucontext {
	struct ib_ucontext base;
	bool rings;	/* queues and CQs of this context are rings */
};

/* A ring shared with a user process (siw2_ring.c). */
struct siw2_ring {
	struct rdma_user_mmap_entry mentry;
	void *mem;
	struct siw2_ring_ctl *ctl;
	u32 slots;
	u32 stride;
};

static inline void *siw2_ring_at(const struct siw2_ring *r, u32 i)
{
	return r->mem + SIW2_RING_CTL_SIZE +
	       (size_t)(i & (r->slots - 1)) * r->stride;
}

struct siw2_pd {
	struct ib_pd base;
};

/**
 * struct siw2_cq - completion queue
 * @base: core CQ
 * @lock: protects the ring and @notify
 * @wc: ring of @size completions; entry (@head + i) % @size, i < @count
 * @size: ring capacity (the depth the consumer asked for)
 * @head: index of the oldest completion
 * @count: completions queued
 * @notify: IB_CQ_SOLICITED / IB_CQ_NEXT_COMP armed, or 0
 * @id: number reported to user space
 */
struct siw2_cq {
	struct ib_cq base;
	spinlock_t lock; /* ring and notify state */
	struct siw2_ring *ring;	/* a user CQ's ring, else @wc */
	u32 ring_prod;		/* the kernel's copy of ring->ctl->prod */
	struct ib_wc *wc;
	u32 size;
	u32 head;
	u32 count;
	u32 notify;
	u32 id;
};

enum siw2_mr_type {
	SIW2_MR_DMA,	/* all of kernel memory (get_dma_mr) */
	SIW2_MR_USER,	/* pinned user memory (reg_user_mr) */
	SIW2_MR_FRMR,	/* fast registration page list (alloc_mr) */
	SIW2_MR_MW,	/* memory window (type 2A), bound to a parent MR */
};

/**
 * struct siw2_mr - memory region and its STag
 * @base: core MR; lkey == rkey == the STag as registered
 * @ref: references: the registration, and each data path user
 * @rcu: frees the MR after lockless lookups are done with it
 * @free_work: unpins from process context when the last put is in softirq
 * @type: how the region's pages are found
 * @umem: pinned user memory (SIW2_MR_USER)
 * @upages: its pages, one per PAGE_SIZE of the region (@nupages)
 * @uoff: offset of the region's first octet in @upages[0]
 * @pages: page addresses (SIW2_MR_FRMR), @max_pages capacity, @npages used
 * @first_off: SIW2_MR_FRMR: offset of the first octet in @pages[0]
 * @access: IB_ACCESS_* granted
 * @stag: the STag the data path accepts; fast registration changes its key
 * @iova: the region's first address as the data path sees it
 * @length: the region's length as the data path sees it
 * @valid: the STag is valid; fast-registration MRs start invalid
 * @mw_bound: windows bound to this MR now (deregistration waits for 0)
 * @mw_lock: SIW2_MR_MW: orders a window's bind and invalidation against
 *	lookups, which take @parent's reference under it
 * @parent: SIW2_MR_MW: the MR the window is bound to (referenced), or NULL
 *
 * @access, @stag, @iova, @length and @valid of an FRMR change by
 * IB_WR_REG_MR and invalidation, in the QP's data path, and are read
 * by the data path of any QP of the PD: they are published with
 * WRITE_ONCE/READ_ONCE, @valid last (consumers order registration against
 * use, RFC 5040 5.2).
 */
struct siw2_mr {
	struct ib_mr base;
	struct kref ref;
	struct rcu_head rcu;
	struct work_struct free_work;
	enum siw2_mr_type type;
	struct ib_umem *umem;
	struct page **upages;
	u32 nupages;
	u32 uoff;
	u64 *pages;
	u32 max_pages;
	u32 npages;
	u32 first_off;
	int access;
	u32 stag;
	u64 iova;
	u64 length;
	bool valid;
	atomic_t mw_bound;
	spinlock_t mw_lock;	/* see @mw_lock above */
	struct siw2_mr *parent;
};

/* A memory window: its STag is a table entry of its own (SIW2_MR_MW). */
struct siw2_mw {
	struct ib_mw base;
	struct siw2_mr *entry;
};

/* What a ring entry binds (IB_UVERBS_WR_BIND_MW): rkey is the new STag. */
struct siw2_bind_info {
	u64 addr;
	u64 length;
	u32 mr_lkey;
	u32 access;
};

struct siw2_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

/*
 * A posted receive (QP receive queue or SRQ). @sge comes last: a queue's
 * entries have room for its max_recv_sge only (siw2_rqe_size()).
 */
struct siw2_rqe {
	u64 wr_id;
	bool bad;	/* a ring entry that failed its checks */
	u32 num_sge;
	struct siw2_sge sge[SIW2_MAX_SGE];
};

/* Octets of a receive queue entry with room for @max_sge SGEs. */
static inline size_t siw2_rqe_size(u32 max_sge)
{
	return offsetof(struct siw2_rqe, sge) +
	       max_sge * sizeof(struct siw2_sge);
}

/**
 * struct siw2_sqe - a posted send work request, as validated at post time
 * @wr_id: the consumer's id
 * @opcode: IB_WR_*
 * @send_flags: IB_SEND_*
 * @num_sge: SGEs in @sge
 * @sge: local buffers (inline data: copied to the QP's inline area); a
 *	queue's entries end after its max_send_sge of them, so an entry
 *	is copied with memcpy() of the queue's esize, never by assignment
 * @len: total octets of @sge
 * @raddr: RDMA Write/Read: remote address
 * @rkey: RDMA Write/Read: remote STag
 * @inv_stag: Send with Invalidate: the peer's STag to invalidate; Local
 *	Invalidate: the local STag
 * @reg_mr: IB_WR_REG_MR: the MR, referenced until the request is done
 * @reg_key: IB_WR_REG_MR: the new STag
 * @reg_access: IB_WR_REG_MR: the rights granted
 * @atomic: atomics: the Atomic Request's operation (IB_WR_ATOMIC_WRITE
 *	takes its Swap Data from @sge when the request starts)
 * @imm: *_WITH_IMM: the 8 octets of Immediate Data, big-endian number
 * @inv_imm: IB_WR_SEND_WITH_IMM that also invalidates @inv_stag (a Send
 *	with Invalidate and Immediate Data; no verb, the ring's own opcode)
 * @commit_log: RDMA Commit: @log follows its region (SIW2-DEC-1)
 * @log: RDMA Commit: the log update, if @commit_log
 * @state: SIW2_SQE_* (siw2_dp.h), under the SQ lock
 * @status: completion status once @state is SIW2_SQE_DONE
 */
struct siw2_sqe {
	u64 wr_id;
	u64 raddr;
	u64 imm;
	struct siw2_mr *reg_mr;
	int send_flags;
	u32 num_sge;
	u32 len;
	u32 rkey;
	u32 inv_stag;
	u32 reg_key;
	int reg_access;
	u32 vendor_err;	/* the peer's reason, QP still in RTS (DEC-13) */
	u8 opcode;	/* enum ib_wr_opcode */
	u8 status;	/* enum ib_wc_status */
	u8 state;
	bool bad;	/* a ring entry that failed its checks */
	bool inv_imm;
	bool commit_log;
	bool commit_global;	/* visibility is enough (SIW2-DEC-2) */
	/* The opcode's rules say which one it has (siw2_wr.c). */
	union {
		struct siw2_atomic_op atomic;
		struct siw2_commit_log_info log;
		struct siw2_bind_info bind;
	};
	/* Last: a queue's entries hold its max_send_sge (siw2_sqe_size()). */
	struct siw2_sge sge[SIW2_MAX_SGE];
};

/* Octets of a send queue entry with room for @max_sge SGEs. */
static inline size_t siw2_sqe_size(u32 max_sge)
{
	return offsetof(struct siw2_sqe, sge) +
	       max_sge * sizeof(struct siw2_sge);
}

/**
 * struct siw2_wq - a bounded FIFO of work queue entries
 * @lock: protects the queue (the post and flush paths run in any context)
 * @entries: @size entries of @esize bytes
 * @head: oldest entry, @count entries queued
 */
struct siw2_wq;
/* Fill queue slot @slot from @entry, a checked-as-copied ring entry. */
typedef void (*siw2_wq_fill_fn)(struct siw2_wq *wq, u32 slot,
				const void *entry);

struct siw2_wq {
	spinlock_t lock; /* all fields below */
	void *entries;
	size_t esize;
	u32 size;
	u32 head;
	u32 count;
	struct siw2_ring *ring;	/* a user queue's ring, feeding @entries */
	siw2_wq_fill_fn fill;
	u32 ring_next;		/* next ring entry to take */
	u32 ring_cons;		/* the kernel's copy of ring->ctl->cons */
	bool ring_dead;		/* the process lied about its index */
};

/**
 * struct siw2_srq - shared receive queue
 * @base: core SRQ
 * @rq: posted receives
 * @max_sge: SGEs per receive
 * @limit: IB_EVENT_SRQ_LIMIT_REACHED fires when fewer remain (0: disarmed)
 */
struct siw2_srq {
	struct ib_srq base;
	struct siw2_wq rq;
	u32 max_sge;
	u32 limit;
};

#include "siw2_dp.h"

/*
 * iWARP QP states (RFC 5040 verbs model: Idle, RTS, Closing, Terminate,
 * Error). IB RESET, INIT and RTR are all iWARP Idle; the IB state is kept
 * beside it for query_qp.
 */
enum siw2_qp_state {
	SIW2_QP_IDLE,
	SIW2_QP_RTS,
	SIW2_QP_CLOSING,
	SIW2_QP_TERMINATE,
	SIW2_QP_ERROR,
	SIW2_QP_NUM_STATES
};

/* Bits of siw2_qp.fin_owed. */
enum {
	SIW2_FIN_OWED,
	SIW2_FIN_DRAINED,
};

/**
 * struct siw2_qp - reliable connected queue pair
 * @base: core QP
 * @sdev: owning device
 * @state_lock: serialises state changes and attribute updates
 * @state: iWARP state (@state_lock)
 * @ib_state: IB view of @state, for query_qp (@state_lock)
 * @ref: references: the QP's own, the IWCM's (iw_add_ref), the endpoint's
 * @released: completed when @ref drops to zero; destroy waits for it
 * @cep: the connection endpoint, from connect/accept until the
 *	connection ends; RTS needs one in RDMA mode (@state_lock)
 * @conn: what the MPA exchange settled (@state_lock)
 * @read_v2: RDMA Reads go as Read V2 (DEC-15), set with @conn
 * @sq: send queue (siw2_sqe)
 * @rq: receive queue (siw2_rqe), unused with an SRQ
 * @srq: shared receive queue or NULL
 * @scq: send completion queue, @rcq: receive completion queue
 * @cap: queue capacities as created
 * @sq_sig_all: every send WR generates a completion
 * @access: IB_ACCESS_REMOTE_* granted to the peer (@state_lock)
 * @ord: outbound RDMA Read depth, @ird: inbound RDMA Read depth (@state_lock)
 * @sq_inline: inline data, cap.max_inline_data octets per SQ slot
 * @sq_txpos: SQ entries (from the head) TX has taken (@sq.lock)
 * @orq: outstanding outbound Reads, a ring of @ord (@sq.lock)
 * @orq_head: oldest, @orq_count: how many
 * @irq_lock: protects the IRQ
 * @irq: inbound Reads to answer, a ring of @ird
 * @irq_head: oldest, @irq_count: how many
 * @tx_bvec: SIW2_TX_BVEC_MAX pages of a zero-copy Read Response, with
 *	the IRQ when the IRD is not 0; a QP without it sends copies
 * @tx_rresp_copy: with MPA CRC and an IRD, SIW2_TX_RRESP_COPY octets:
 *	a Read Response's payload is copied here before its CRC is taken
 * @dp_on: the data path runs (set at LLP up, cleared when it stops)
 * @dp_failed: an engine reported a fatal error (first one wins)
 * @sock: the connection's socket while @dp_on; the endpoint owns it
 * @fuzz: SIW2_FUZZ builds: the connection without TCP that replaces
 *	@sock while the fuzz file holds the QP (siw2_fuzz.c), else NULL
 * @tx_work: runs the TX engine, @rx_work: the RX engine
 * @tx_linger: queues @tx_work once more while a busy send queue ring is
 *	watched after running empty (siw2_tx_linger())
 * @tx_lock: held by the TX engine's runner
 * @fail_work: moves the QP to Terminate after a data path error
 * @close_work: asks the CM for the graceful close that waited for the TX
 *	engine to hand everything posted before it to TCP; queued at once
 *	when it has, else after mpa_timeout_ms (then the close is abortive)
 * @fin_owed: bit SIW2_FIN_OWED: a graceful close (SQD) waits for the TX
 *	engine to run dry; bit SIW2_FIN_DRAINED: it has
 *	(siw2_dp_sq_drained())
 * @fenced: a client-server Responder may not send before the first
 *	FPDU arrives (RFC 5044 7.1.2)
 * @err_slot: SQ slot whose completion carries @err_status instead of
 *	IB_WC_WR_FLUSH_ERR, or U32_MAX (@sq.lock)
 * @err_status: that status
 * @fail_event: async event for @fail_work to raise
 * @fail_abort: @fail_work closes the connection abortively
 * @fail_owed: the connection went down after the data path failed in RTS
 *	or Closing but before @fail_work ran: it still raises the event
 *	(@state_lock)
 * @stats: where the QP counts: its device's counters, or while it is
 *	bound to an rdma_counter that counter's; read under rcu_read_lock(),
 *	published with smp_store_release() (an __rcu per-CPU pointer is two
 *	address spaces to sparse), freed after a grace period (siw2_stats.c)
 * @tx: TX engine state, @rx: RX engine state
 */
struct siw2_qp {
	struct ib_qp base;
	struct siw2_device *sdev;
	struct mutex state_lock; /* state, attributes, cep, conn */
	enum siw2_qp_state state;
	enum ib_qp_state ib_state;
	refcount_t ref;
	struct completion released;
	struct siw2_cep *cep;
	struct siw2_mpa_conn conn;
	bool read_v2;
	struct siw2_wq sq;
	struct siw2_wq rq;
	struct siw2_srq *srq;
	struct siw2_cq *scq;
	struct siw2_cq *rcq;
	struct ib_qp_cap cap;
	bool sq_sig_all;
	int access;
	u32 ord;
	u32 ird;
	u8 *sq_inline;
	u32 sq_txpos;
	struct siw2_orqe *orq;
	u32 orq_head;
	u32 orq_count;
	spinlock_t irq_lock; /* irq ring */
	struct siw2_irqe *irq;
	u32 irq_head;
	u32 irq_count;
	struct bio_vec *tx_bvec;
	u8 *tx_rresp_copy;
	bool dp_on;
	unsigned long dp_failed;
	struct socket *sock;
#ifdef SIW2_FUZZ
	struct siw2_fuzz_llp *fuzz;
#endif
	struct work_struct tx_work;
	struct work_struct rx_work;
	struct hrtimer tx_linger;
	struct mutex tx_lock; /* the TX engine */
	struct work_struct fail_work;
	struct delayed_work close_work;
	unsigned long fin_owed;
	bool fenced;
	u32 err_slot;
	enum ib_wc_status err_status;
	enum ib_event_type fail_event;
	bool fail_abort;
	bool fail_owed;
	struct siw2_stats __percpu *stats;
	struct siw2_tx tx;
	struct siw2_rx rx;
};

/**
 * siw2_qp_get - take a reference on a QP
 * @qp: QP the caller holds a reference on
 */
static inline void siw2_qp_get(struct siw2_qp *qp)
{
	refcount_inc(&qp->ref);
}

/**
 * siw2_qp_put - drop a QP reference; the last one lets destroy finish
 * @qp: QP
 */
static inline void siw2_qp_put(struct siw2_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/* The QP's connection without TCP (SIW2_FUZZ builds), or NULL. */
static inline struct siw2_fuzz_llp *siw2_qp_fuzz(const struct siw2_qp *qp)
{
#ifdef SIW2_FUZZ
	return qp->fuzz;
#else
	return NULL;
#endif
}

static inline void siw2_qp_set_fuzz(struct siw2_qp *qp,
				    struct siw2_fuzz_llp *llp)
{
#ifdef SIW2_FUZZ
	qp->fuzz = llp;
#endif
}

static inline struct siw2_device *to_siw2_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct siw2_device, ibdev);
}

/* Count @n for @stat of @qp on this CPU; any context. */
static inline void siw2_stat_add(struct siw2_qp *qp, enum siw2_stat stat,
				 u64 n)
{
	struct siw2_stats __percpu *s;

	/* A counter unbound meanwhile is freed after a grace period. */
	rcu_read_lock();
	s = READ_ONCE(qp->stats);
	this_cpu_add(s->v[stat], n);
	rcu_read_unlock();
}

/* A Terminate sent (@base SIW2_STAT_TERM_TX_RDMAP) or received, by Layer. */
static inline void siw2_stat_term(struct siw2_qp *qp, enum siw2_stat base,
				  u8 layer)
{
	if (layer <= SIW2_TERM_LAYER_LLP)
		siw2_stat_add(qp, base + layer, 1);
}

static inline struct siw2_ucontext *to_siw2_uctx(struct ib_ucontext *uctx)
{
	return container_of(uctx, struct siw2_ucontext, base);
}

static inline struct siw2_pd *to_siw2_pd(struct ib_pd *pd)
{
	return container_of(pd, struct siw2_pd, base);
}

static inline struct siw2_cq *to_siw2_cq(struct ib_cq *cq)
{
	return container_of(cq, struct siw2_cq, base);
}

static inline struct siw2_mr *to_siw2_mr(struct ib_mr *mr)
{
	return container_of(mr, struct siw2_mr, base);
}

static inline struct siw2_mw *to_siw2_mw(struct ib_mw *mw)
{
	return container_of(mw, struct siw2_mw, base);
}

static inline struct siw2_srq *to_siw2_srq(struct ib_srq *srq)
{
	return container_of(srq, struct siw2_srq, base);
}

static inline struct siw2_qp *to_siw2_qp(struct ib_qp *qp)
{
	return container_of(qp, struct siw2_qp, base);
}

/* The context of a user verb's udata, or NULL for a kernel caller. */
static inline struct siw2_ucontext *siw2_udata_uctx(struct ib_udata *udata)
{
	return udata ? rdma_udata_to_drv_context(udata, struct siw2_ucontext,
						 base) : NULL;
}

/* siw2_main.c */
extern struct workqueue_struct *siw2_async_wq;

/* siw2_obj.c: object accounting and the udata helpers (call nothing above) */
int siw2_obj_get(struct siw2_device *sdev, enum siw2_obj kind);
void siw2_obj_put(struct siw2_device *sdev, enum siw2_obj kind);
int siw2_obj_count(struct siw2_device *sdev, enum siw2_obj kind);
void siw2_count_device(int delta);
int siw2_count_devices(void);
int siw2_udata_input(struct ib_udata *udata, void *req, size_t len);
int siw2_udata_no_input(struct ib_udata *udata);
int siw2_udata_respond(struct ib_udata *udata, const void *resp, size_t len);

/* siw2_debugfs.c: the debugfs view of the counters and endpoints */
void siw2_debugfs_init(void);
void siw2_debugfs_exit(void);
void siw2_debugfs_add_dev(struct siw2_device *sdev);
void siw2_debugfs_del_dev(struct siw2_device *sdev);

/* siw2_verbs.c: device, port, context and PD verbs */
int siw2_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata);
int siw2_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr);
int siw2_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable);
int siw2_query_gid(struct ib_device *ibdev, u32 port, int index,
		   union ib_gid *gid);
int siw2_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
enum rdma_link_layer siw2_get_link_layer(struct ib_device *ibdev, u32 port);
void siw2_get_dev_fw_str(struct ib_device *ibdev, char *str);
enum ib_port_state siw2_netdev_port_state(struct net_device *ndev);
int siw2_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata);
void siw2_dealloc_ucontext(struct ib_ucontext *uctx);
void siw2_disassociate_ucontext(struct ib_ucontext *uctx);
int siw2_alloc_pd(struct ib_pd *pd, struct ib_udata *udata);
int siw2_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata);

/* siw2_ring.c: rings shared with user processes */
struct siw2_ring *siw2_ring_create(struct ib_ucontext *uctx, u32 slots,
				   u32 stride);
u64 siw2_ring_offset(struct siw2_ring *r);
void siw2_ring_destroy(struct siw2_ring *r);
void siw2_mmap_free(struct rdma_user_mmap_entry *e);
int siw2_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
u32 siw2_ring_slots(u32 depth);
int siw2_qp_rings_create(struct siw2_qp *qp, struct siw2_ucontext *uctx,
			 struct siw2_uresp_create_qp *resp);
int siw2_srq_ring_create(struct siw2_srq *srq, struct siw2_ucontext *uctx,
			 struct siw2_uresp_create_srq *resp);
void siw2_qp_rings_state(struct siw2_qp *qp, enum ib_qp_state state);
void siw2_sq_ring_busy(struct siw2_qp *qp, bool busy);

/* siw2_stats.c */
struct rdma_hw_stats *siw2_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port);
int siw2_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index);
struct rdma_hw_stats *siw2_counter_alloc_stats(struct rdma_counter *counter);
int siw2_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp);
int siw2_counter_unbind_qp(struct ib_qp *ibqp);
int siw2_counter_update_stats(struct rdma_counter *counter);
int siw2_counter_dealloc(struct rdma_counter *counter);

/* siw2_res.c */
int siw2_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int siw2_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr);
int siw2_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);

/* siw2_cq.c */
int siw2_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		   struct siw2_cq_attrs *attrs);
int siw2_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int siw2_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int siw2_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int siw2_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
/**
 * struct siw2_wc_ext - what a user CQE carries beyond struct ib_wc
 * @imm: all 8 octets of Immediate Data, as a big-endian number
 * @with_imm: @imm is valid, also where @wc reports only an invalidation
 */
struct siw2_wc_ext {
	u64 imm;
	bool with_imm;
};

void siw2_cq_add(struct siw2_cq *cq, const struct ib_wc *wc,
		 const struct siw2_wc_ext *x, bool solicited);
void siw2_cq_purge_qp(struct siw2_cq *cq, struct ib_qp *qp);

/* siw2_mem.c */
struct ib_mr *siw2_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *siw2_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			       u64 iova, int access, struct ib_udata *udata);
struct ib_mr *siw2_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			    u32 max_num_sg);
int siw2_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset);
int siw2_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int siw2_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int siw2_dealloc_mw(struct ib_mw *ibmw);

/* siw2_wq.c: bounded work queues shared by QPs and SRQs */
int siw2_wq_init(struct siw2_wq *wq, u32 size, size_t esize);
void siw2_wq_free(struct siw2_wq *wq);
void *siw2_wq_tail(struct siw2_wq *wq);
void siw2_wq_push(struct siw2_wq *wq);
void *siw2_wq_head(struct siw2_wq *wq);
void *siw2_wq_at(struct siw2_wq *wq, u32 i);
u32 siw2_wq_slot(struct siw2_wq *wq, u32 i);
void siw2_wq_pop(struct siw2_wq *wq);
bool siw2_wq_take(struct siw2_wq *wq, void *out);
void siw2_wq_attach_ring(struct siw2_wq *wq, struct siw2_ring *r,
			 siw2_wq_fill_fn fill);
int siw2_wq_pull(struct siw2_wq *wq);
bool siw2_wq_ring_waiting(const struct siw2_wq *wq);
void siw2_wq_ring_reset(struct siw2_wq *wq);
void siw2_rqe_from_ring(struct siw2_rqe *rqe, const struct siw2_rq_wqe *e,
			u32 max_sge);
u64 siw2_ring_sge_copy(struct siw2_sge *dst, const struct siw2_ring_sge *src,
		       u32 n);
int siw2_sge_copy(struct siw2_sge *dst, const struct ib_sge *src, int num_sge,
		  u32 max_sge);
int siw2_wq_post_recv(struct siw2_wq *wq, const struct ib_recv_wr *wr,
		      u32 max_sge);

/* siw2_srq.c */
int siw2_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *attr,
		    struct ib_udata *udata);
int siw2_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		    enum ib_srq_attr_mask mask, struct ib_udata *udata);
int siw2_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int siw2_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int siw2_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		       const struct ib_recv_wr **bad_wr);

/* siw2_qp.c */
int siw2_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *attr,
		   struct ib_udata *udata);
int siw2_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_udata *udata);
int siw2_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_qp_init_attr *init_attr);
int siw2_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int siw2_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		   const struct ib_send_wr **bad_wr);
int siw2_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		   const struct ib_recv_wr **bad_wr);
const char *siw2_qp_state_name(enum siw2_qp_state state);
struct ib_qp *siw2_iw_get_qp(struct ib_device *ibdev, int qpn);
void siw2_iw_add_ref(struct ib_qp *ibqp);
void siw2_iw_rem_ref(struct ib_qp *ibqp);
int siw2_qp_attach_cep(struct siw2_qp *qp, struct siw2_cep *cep);
int siw2_qp_llp_up(struct siw2_qp *qp, struct siw2_cep *cep,
		   const struct siw2_mpa_conn *conn, struct socket *sock,
		   bool active);
void siw2_qp_llp_down(struct siw2_qp *qp, struct siw2_cep *cep);
int siw2_qp_fuzz_up(struct siw2_qp *qp, struct siw2_fuzz_llp *llp,
		    const struct siw2_mpa_conn *conn);
void siw2_qp_fuzz_down(struct siw2_qp *qp);

#endif /* _SIW2_H */
