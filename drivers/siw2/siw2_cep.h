/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 connection endpoint: the object of the connection manager, and
 * what its two files share. siw2_cm.c drives endpoints (the state table,
 * the sockets, the MPA exchange, teardown); siw2_cm_api.c, a layer above,
 * starts and answers them for the iw_cm glue through the functions at the
 * end of this header. Only these two files include it: everyone else, the
 * iw_cm glue included, holds endpoints as opaque pointers and goes through
 * siw2_cm.h.
 *
 * Locking:
 * - cep->lock (mutex) serialises every step of one endpoint: the work
 *   that handles its pending inputs, and each siw2_cm.h call that
 *   changes it. Socket callbacks and the step timer never take it: they
 *   set a pending bit and queue the work.
 * - Lock order: cep->lock -> qp->state_lock -> sk->sk_callback_lock. The
 *   QP never takes cep->lock; it asks through siw2_cm_qp_close().
 * - Listener and child: a passive endpoint reading its Request takes its
 *   listener's lock inside its own (SINGLE_DEPTH_NESTING) to hand the
 *   Request to the listener's cm_id. A listener takes a child's lock
 *   inside its own only for a child it has just allocated, which nothing
 *   else can reach yet.
 * - A listener's @child_lock (spinlock) protects its @children; it is
 *   taken under either endpoint's mutex, never the other way round.
 * - sdev->cep_lock (spinlock, BH) protects the device's endpoint list;
 *   nothing is taken under it.
 * - @dp_qp and the socket's callbacks change under sk_callback_lock, so a
 *   callback never reaches a QP that is being detached.
 */
#ifndef _SIW2_CEP_H
#define _SIW2_CEP_H

#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/socket.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

#include "siw2.h"
#include "siw2_cm_fsm.h"
#include "siw2_mpa.h"

/* Longest MPA Request/Reply: 20-octet header and 512 octets of PD. */
#define SIW2_MPA_FRAME_MAX (sizeof(struct siw2_mpa_hdr) + SIW2_MPA_MAX_PD_WIRE)

/*
 * The IWCM reports private data length in a u8 (struct iw_cm_event), and
 * Linux siw refuses PD_Length above 256: a ULP may send at most 256 octets
 * minus the 4 enhanced ones, and receive at most 255.
 */
#define SIW2_PD_WIRE_LINUX	256
#define SIW2_PD_ULP_RCV_MAX	255

/**
 * struct siw2_cep_frames - what an endpoint reads and writes before RDMA mode
 * @req: the Request's bytes (later the Read RTR Reply's private data)
 * @rx: receive buffer for MPA frames and the first FPDU
 *
 * Apart from the endpoint: a connection in RDMA mode, which is what a
 * device holds by the thousand, no longer needs either.
 */
struct siw2_cep_frames {
	u8 req[SIW2_MPA_FRAME_MAX];
	u8 rx[SIW2_MPA_FRAME_MAX];
};

/**
 * struct siw2_cep - connection endpoint: one listener or one TCP connection
 * @ref: references: socket callbacks, queued work, armed timer, QP, the
 *	IWCM's provider_data between CONNECT_REQUEST and accept/reject
 * @lock: serialises every step; all fields below except noted
 * @sdev: device
 * @id: number for traces and debugfs
 * @dev_entry: in the device's endpoint list (sdev->cep_lock)
 * @state: where the endpoint is (read locklessly by debugfs)
 * @active: this side sent the MPA Request
 * @sock: the TCP socket, until the endpoint closes
 * @saved_data_ready: the socket's callbacks before ours
 * @saved_state_change: likewise
 * @saved_write_space: likewise
 * @dp_qp: the QP whose data path the socket feeds in RDMA mode, or NULL
 *	(written under the socket's sk_callback_lock)
 * @pending: bits of enum siw2_cep_input, set from any context
 * @action: the action handling an input right now, SIW2_CEA_NONE between
 *	inputs; it may take only the events siw2_cep_action_events() lists
 * @work: runs the pending bits
 * @timer: limits the current step
 * @deadline: when the current step's time is up
 * @cm_id: the IWCM id events go to; holds a reference
 * @listener: passive: the listener, until the Request is handed over
 * @children: listener: passive endpoints still reading their Request
 * @child_lock: protects @children (spinlock: taken under a child's lock)
 * @child: entry in the listener's @children
 * @ulp_ref: the IWCM holds this endpoint as provider_data
 * @qp: the QP, referenced, from iw_connect/iw_accept until close
 * @laddr: local address
 * @raddr: remote address
 * @req: the Request (sent or received); @req.pd points into @fr->req
 * @rep: active, Read RTR: the Reply, kept for the CONNECT_REPLY; its
 *	private data in @fr->req
 * @fr: the MPA exchange's frame buffers, NULL for a listener and once the
 *	connection is in RDMA mode
 * @rlen: bytes in @fr->rx
 * @rframe: length of the MPA frame being read, once its header is in
 * @conn: what the MPA exchange settled
 * @crc_sent: this side's C flag (CRC applies from the first FPDU on)
 * @abortive: close with RST rather than FIN
 */
struct siw2_cep {
	struct kref ref;
	struct mutex lock; /* every step of the endpoint */
	struct siw2_device *sdev;
	u32 id;
	struct list_head dev_entry;
	enum siw2_cep_state state;
	bool active;
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	struct siw2_qp *dp_qp;
	unsigned long pending;
	enum siw2_cep_action action;
	struct work_struct work;
	struct timer_list timer;
	unsigned long deadline;
	struct iw_cm_id *cm_id;
	struct siw2_cep *listener;
	struct list_head children;
	spinlock_t child_lock; /* @children */
	struct list_head child;
	bool ulp_ref;
	struct siw2_qp *qp;
	struct sockaddr_storage laddr;
	struct sockaddr_storage raddr;
	struct siw2_mpa_frame req;
	struct siw2_mpa_frame rep;
	struct siw2_cep_frames *fr;
	size_t rlen;
	size_t rframe;
	struct siw2_mpa_conn conn;
	bool crc_sent;
	bool abortive;
};

/**
 * siw2_dev_max_ird - the IRD limit negotiation works against
 *
 * Return: SIW2_MAX_IRD.
 */
static inline u16 siw2_dev_max_ird(void)
{
	return SIW2_MAX_IRD;
}

/* siw2_cm.c, for siw2_cm_api.c: endpoint steps the iw_cm glue's calls take */
struct siw2_cep *siw2_cep_alloc(struct siw2_device *sdev, bool frames);
void siw2_cep_kick(struct siw2_cep *cep, enum siw2_cep_input in);
bool siw2_cep_step(struct siw2_cep *cep, enum siw2_cep_event ev);
void siw2_sk_attach(struct siw2_cep *cep, struct socket *sock,
		    void (*data_ready)(struct sock *sk),
		    void (*state_change)(struct sock *sk));
int siw2_cep_send(struct siw2_cep *cep, const void *buf, size_t len);
int siw2_cep_send_reject(struct siw2_cep *cep, const void *pd, u8 len);
void siw2_cep_upcall(struct siw2_cep *cep, enum iw_cm_event_type type,
		     int status, const struct siw2_mpa_frame *pd);
void siw2_cep_drop_cm_id(struct siw2_cep *cep);
void siw2_cep_established(struct siw2_cep *cep, enum siw2_cep_event ev,
			  enum iw_cm_event_type type,
			  const struct siw2_mpa_frame *rep);
void siw2_cep_close(struct siw2_cep *cep, enum siw2_cep_event ev, int status,
		    const struct siw2_mpa_frame *rep);
void siw2_cep_closed(struct siw2_cep *cep, enum siw2_cep_state prev,
		     enum siw2_cep_event ev, int status,
		     const struct siw2_mpa_frame *rep);

#endif /* _SIW2_CEP_H */
