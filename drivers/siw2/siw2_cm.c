// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: iWARP connection endpoints: the MPA Request/Reply exchange
 * (RFC 5044 7.1, RFC 6581), the peer-to-peer RTR, listening and teardown,
 * the sockets they run on, and the device's list of them. The iw_cm verbs
 * (siw2_iwcm.c) start and answer endpoints through siw2_cm.h only; those
 * calls are in siw2_cm_api.c, which takes its steps through siw2_cep.h.
 *
 * Each TCP connection (and each listener) is a connection endpoint (cep)
 * driven by the tables in siw2_cm_fsm.c. Socket callbacks run in softirq
 * and only record what happened and queue the endpoint's work; the work
 * runs every step under cep->lock on siw2_cm_wq, so upcalls to the IWCM
 * and QP changes happen in process context, one endpoint step at a time.
 * The locking rules are in siw2_cep.h.
 *
 * IWCM rules this code keeps (drivers/infiniband/core/iwcm.c): after a
 * successful iw_connect exactly one CONNECT_REPLY; after a successful
 * iw_accept an ESTABLISHED before anything else; CLOSE only after one of
 * those reported success; nothing after CLOSE or a failed CONNECT_REPLY.
 */

#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include "siw2_compat.h"
#include <net/sock.h>
#include <net/tcp.h>

#include "siw2.h"
#include "siw2_cep.h"
#include "siw2_cm.h"
#include "siw2_cm_fsm.h"
#include "siw2_fpdu.h"
#include "siw2_mpa.h"
#include "siw2_trace.h"

static struct workqueue_struct *siw2_cm_wq;
static atomic_t siw2_cep_ids;

static void siw2_cep_release(struct kref *ref)
{
	struct siw2_cep *cep = container_of(ref, struct siw2_cep, ref);
	struct siw2_device *sdev = cep->sdev;

	WARN_ON_ONCE(cep->sock || cep->qp || cep->cm_id || cep->listener);
	spin_lock_bh(&sdev->cep_lock);
	list_del(&cep->dev_entry);
	spin_unlock_bh(&sdev->cep_lock);
	mutex_destroy(&cep->lock);
	kfree(cep->fr);
	kfree(cep);
	siw2_obj_put(sdev, SIW2_OBJ_CEP);
	wake_up_all(&sdev->cep_wait);
}

/**
 * siw2_cep_get - take a reference on an endpoint
 * @cep: endpoint the caller already holds a reference on
 */
void siw2_cep_get(struct siw2_cep *cep)
{
	kref_get(&cep->ref);
}

/**
 * siw2_cep_put - drop a reference; the last one frees the endpoint
 * @cep: endpoint
 *
 * Never the last reference from softirq: callbacks and timers run on a
 * reference that someone else still holds.
 */
void siw2_cep_put(struct siw2_cep *cep)
{
	kref_put(&cep->ref, siw2_cep_release);
}

/**
 * siw2_cep_kick - queue the endpoint's work for an input
 * @cep: endpoint the caller holds a reference on
 * @in: the input to handle
 *
 * Any context. The queued work holds its own reference.
 */
void siw2_cep_kick(struct siw2_cep *cep, enum siw2_cep_input in)
{
	set_bit(in, &cep->pending);
	siw2_cep_get(cep);
	if (!queue_work(siw2_cm_wq, &cep->work))
		siw2_cep_put(cep);
}

static void siw2_cep_timer_fn(struct timer_list *t)
{
	struct siw2_cep *cep = from_timer(cep, t, timer);

	/* The armed timer's reference passes to the work. */
	set_bit(SIW2_CEPI_TIMEOUT, &cep->pending);
	if (!queue_work(siw2_cm_wq, &cep->work))
		siw2_cep_put(cep);
}

static void siw2_cep_arm(struct siw2_cep *cep)
{
	cep->deadline = jiffies + msecs_to_jiffies(READ_ONCE(siw2_mpa_timeout_ms));
	if (!mod_timer(&cep->timer, cep->deadline))
		siw2_cep_get(cep);
}

static void siw2_cep_disarm(struct siw2_cep *cep)
{
	if (timer_delete(&cep->timer))
		siw2_cep_put(cep);
}

static void siw2_cep_work(struct work_struct *work);

/**
 * siw2_cep_alloc - a new endpoint in IDLE, on the device's list
 * @sdev: device
 * @frames: with buffers for an MPA exchange (not for a listener)
 *
 * Return: the endpoint with one reference, or NULL over the endpoint
 * limit or without memory.
 */
struct siw2_cep *siw2_cep_alloc(struct siw2_device *sdev, bool frames)
{
	struct siw2_cep *cep;

	if (siw2_obj_get(sdev, SIW2_OBJ_CEP))
		return NULL;
	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
	if (cep && frames) {
		cep->fr = kmalloc(sizeof(*cep->fr), GFP_KERNEL);
		if (!cep->fr) {
			kfree(cep);
			cep = NULL;
		}
	}
	if (!cep) {
		siw2_obj_put(sdev, SIW2_OBJ_CEP);
		return NULL;
	}
	kref_init(&cep->ref);
	mutex_init(&cep->lock);
	cep->sdev = sdev;
	cep->id = atomic_inc_return(&siw2_cep_ids);
	cep->state = SIW2_CEP_IDLE;
	INIT_WORK(&cep->work, siw2_cep_work);
	timer_setup(&cep->timer, siw2_cep_timer_fn, 0);
	INIT_LIST_HEAD(&cep->children);
	INIT_LIST_HEAD(&cep->child);
	spin_lock_init(&cep->child_lock);
	spin_lock_bh(&sdev->cep_lock);
	list_add_tail(&cep->dev_entry, &sdev->cep_list);
	spin_unlock_bh(&sdev->cep_lock);
	return cep;
}

/**
 * siw2_cep_step - take one step of the state table
 * @cep: endpoint, locked
 * @ev: what happened
 *
 * Every state that waits on the peer runs under the step timer
 * (siw2_cep_timed()); other states disarm it. While an action runs, it
 * may take only the events siw2_cep_action_events() lists for it, the
 * ones the state table was checked against.
 *
 * Return: false if the current state does not accept @ev (nothing changes).
 */
bool siw2_cep_step(struct siw2_cep *cep, enum siw2_cep_event ev)
{
	enum siw2_cep_state next = siw2_cep_next(cep->state, ev);

	lockdep_assert_held(&cep->lock);

	WARN_ONCE(cep->action != SIW2_CEA_NONE &&
		  !(siw2_cep_action_events(cep->action) & BIT(ev)),
		  "siw2: cep %u in %s: action %u took %s\n", cep->id,
		  siw2_cep_state_name(cep->state), cep->action,
		  siw2_cep_event_name(ev));
	if (next == SIW2_CEP_INVALID)
		return false;
	trace_siw2_cep_state(cep->id, siw2_cep_state_name(cep->state),
			     siw2_cep_event_name(ev),
			     siw2_cep_state_name(next));
	WRITE_ONCE(cep->state, next);
	if (siw2_cep_timed(next))
		siw2_cep_arm(cep);
	else
		siw2_cep_disarm(cep);
	return true;
}

/* ---- socket callbacks (softirq) ---- */

static struct siw2_cep *siw2_sk_cep(struct sock *sk)
{
	return __locked_read_sk_user_data_with_flags(sk, 0);
}

static void siw2_sk_data_ready(struct sock *sk)
{
	struct siw2_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = siw2_sk_cep(sk);
	if (cep && cep->dp_qp)
		siw2_rx_data_ready(cep->dp_qp, sk);
	else if (cep)
		siw2_cep_kick(cep, SIW2_CEPI_READ);
	read_unlock_bh(&sk->sk_callback_lock);
}

/*
 * Room in the send buffer again: the TX engine may go on. TCP calls this
 * on every ACK while SOCK_NOSPACE is set; clear it once there is room,
 * as sk_stream_write_space() does, so that one kick suffices.
 */
static void siw2_sk_write_space(struct sock *sk)
{
	struct siw2_cep *cep;

	if (!sk_stream_is_writeable(sk) || !sk->sk_socket)
		return;
	clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
	read_lock_bh(&sk->sk_callback_lock);
	cep = siw2_sk_cep(sk);
	if (cep && cep->dp_qp)
		siw2_tx_kick(cep->dp_qp);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void siw2_sk_state_change(struct sock *sk)
{
	void (*saved)(struct sock *sk) = NULL;
	struct siw2_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = siw2_sk_cep(sk);
	if (cep) {
		saved = cep->saved_state_change;
		siw2_cep_kick(cep, SIW2_CEPI_STATE);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (saved)
		saved(sk);
}

/**
 * siw2_sk_attach - route a socket's callbacks to an endpoint
 * @cep: endpoint, locked; takes a reference for the socket
 * @sock: the socket
 * @data_ready: the socket's original callback, restored on detach
 * @state_change: likewise
 *
 * SK_USER_DATA_NOCOPY keeps connections cloned from a listener from
 * inheriting the pointer; they do inherit the callbacks, so the originals
 * are passed in.
 */
void siw2_sk_attach(struct siw2_cep *cep, struct socket *sock,
		    void (*data_ready)(struct sock *sk),
		    void (*state_change)(struct sock *sk))
{
	struct sock *sk = sock->sk;

	siw2_cep_get(cep);
	cep->sock = sock;
	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_data_ready = data_ready;
	cep->saved_state_change = state_change;
	sk->sk_data_ready = siw2_sk_data_ready;
	sk->sk_state_change = siw2_sk_state_change;
	__rcu_assign_sk_user_data_with_flags(sk, cep, SK_USER_DATA_NOCOPY);
	write_unlock_bh(&sk->sk_callback_lock);
}

static void siw2_sk_detach(struct siw2_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_data_ready = cep->saved_data_ready;
	sk->sk_state_change = cep->saved_state_change;
	if (cep->saved_write_space)
		sk->sk_write_space = cep->saved_write_space;
	cep->dp_qp = NULL;
	rcu_assign_sk_user_data(sk, NULL);
	write_unlock_bh(&sk->sk_callback_lock);
	siw2_cep_put(cep);
}

/* Route the socket's input and send space to the QP's engines. */
static void siw2_sk_dp_attach(struct siw2_cep *cep, struct siw2_qp *qp)
{
	struct sock *sk = cep->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	cep->saved_write_space = sk->sk_write_space;
	sk->sk_write_space = siw2_sk_write_space;
	cep->dp_qp = qp;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* No callback reaches the QP's engines after this returns. */
static void siw2_sk_dp_detach(struct siw2_cep *cep)
{
	struct sock *sk;

	if (!cep->sock || !cep->dp_qp)
		return;
	sk = cep->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	cep->dp_qp = NULL;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void siw2_cep_sock_release(struct siw2_cep *cep)
{
	struct socket *sock = cep->sock;

	if (!sock)
		return;
	siw2_sk_detach(cep);
	cep->sock = NULL;
	if (cep->abortive)
		sock_no_linger(sock->sk);	/* RST */
	sock_release(sock);
}

/* ---- socket I/O (process context, never blocking) ---- */

/**
 * siw2_cep_send - send a small frame without blocking
 * @cep: endpoint, locked
 * @buf: bytes
 * @len: how many
 *
 * Return: 0, -EAGAIN if the socket took only part (never expected: the
 * frames are small and come first), or the socket's error.
 */
int siw2_cep_send(struct siw2_cep *cep, const void *buf, size_t len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int rv;

	if (!cep->sock)
		return -ENOTCONN;
	/* Frames here are small and the send buffer empty: all or nothing. */
	rv = kernel_sendmsg(cep->sock, &msg, &iov, 1, len);
	if (rv < 0)
		return rv;
	return rv == len ? 0 : -EAGAIN;
}

/*
 * Read up to @want bytes in total into fr->rx, never past them: what
 * follows an MPA frame belongs to the FPDU stream.
 * Return: 0 when fr->rx holds @want bytes, -EAGAIN for more to come,
 * -ESHUTDOWN at end of stream, another negative errno on error.
 */
static int siw2_cep_recv(struct siw2_cep *cep, size_t want)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec iov;
	int rv;

	while (cep->rlen < want) {
		iov.iov_base = cep->fr->rx + cep->rlen;
		iov.iov_len = want - cep->rlen;
		rv = kernel_recvmsg(cep->sock, &msg, &iov, 1, iov.iov_len,
				    MSG_DONTWAIT);
		if (rv == 0)
			return -ESHUTDOWN;
		if (rv < 0)
			return rv;
		cep->rlen += rv;
	}
	return 0;
}

/*
 * Drop what the peer sent and we will not read, so that closing sends a
 * FIN behind the Terminate rather than an RST that may overtake it.
 * Bounded: a peer that keeps sending gets the RST.
 */
static void siw2_cep_discard(struct siw2_cep *cep)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec iov;
	u8 sink[256];
	int i;

	for (i = 0; i < 128; i++) {
		iov.iov_base = sink;
		iov.iov_len = sizeof(sink);
		if (kernel_recvmsg(cep->sock, &msg, &iov, 1, iov.iov_len,
				   MSG_DONTWAIT) <= 0)
			break;
	}
	cep->rlen = 0;
}

static void siw2_cep_send_term(struct siw2_cep *cep, u8 layer, u8 etype,
			       u8 code, bool crc)
{
	u8 buf[32];
	int len;

	len = siw2_fpdu_terminate(buf, sizeof(buf), 1, 1, layer, etype, code,
				  crc);
	if (len > 0)
		siw2_cep_send(cep, buf, len);
	trace_siw2_cep_term(cep->id, layer, etype, code);
}

/* ---- upcalls ---- */

static void siw2_cep_event_init(struct siw2_cep *cep, struct iw_cm_event *ev,
				enum iw_cm_event_type type, int status)
{
	memset(ev, 0, sizeof(*ev));
	ev->event = type;
	ev->status = status;
	ev->local_addr = cep->laddr;
	ev->remote_addr = cep->raddr;
}

/* IRD/ORD travel to the IWCM in u8 fields (DEC-2). */
static u8 siw2_u8(u32 v)
{
	return min_t(u32, v, U8_MAX);
}

/**
 * siw2_cep_upcall - report an event to the endpoint's cm_id
 * @cep: endpoint, locked; nothing happens without a cm_id
 * @type: IW_CM_EVENT_*
 * @status: 0 or a negative errno
 * @pd: frame whose ULP private data goes with the event, or NULL
 *
 * IRD/ORD are the negotiated local values.
 */
void siw2_cep_upcall(struct siw2_cep *cep, enum iw_cm_event_type type,
		     int status, const struct siw2_mpa_frame *pd)
{
	struct iw_cm_event ev;

	if (!cep->cm_id)
		return;
	siw2_cep_event_init(cep, &ev, type, status);
	ev.ird = siw2_u8(cep->conn.ird);
	ev.ord = siw2_u8(cep->conn.ord);
	if (pd && pd->pd_len) {
		ev.private_data = (void *)pd->pd;
		ev.private_data_len = pd->pd_len;
	}
	trace_siw2_cep_upcall(cep->id, type, status);
	cep->cm_id->event_handler(cep->cm_id, &ev);
}

/**
 * siw2_cep_drop_cm_id - release the cm_id; no event can follow
 * @cep: endpoint, locked
 */
void siw2_cep_drop_cm_id(struct siw2_cep *cep)
{
	if (cep->cm_id) {
		cep->cm_id->rem_ref(cep->cm_id);
		cep->cm_id = NULL;
	}
}

static void siw2_cep_leave_listener(struct siw2_cep *cep)
{
	struct siw2_cep *l = cep->listener;

	if (!l)
		return;
	spin_lock_bh(&l->child_lock);
	list_del_init(&cep->child);
	spin_unlock_bh(&l->child_lock);
	cep->listener = NULL;
	siw2_cep_put(l);
}

/**
 * siw2_cep_closed - clean up an endpoint that has just reached CLOSED
 * @cep: endpoint, locked
 * @prev: the state it left
 * @ev: the event that closed it
 * @status: status for the IWCM
 * @rep: the Reply whose private data goes with a CONNECT_REPLY, or NULL
 *
 * Releases the socket, puts the QP into Error, and tells the IWCM what its
 * state expects: a failed CONNECT_REPLY before establishment on the active
 * side; ESTABLISHED then CLOSE after an accept; CLOSE in RDMA mode.
 */
void siw2_cep_closed(struct siw2_cep *cep, enum siw2_cep_state prev,
		     enum siw2_cep_event ev, int status,
		     const struct siw2_mpa_frame *rep)
{
	struct siw2_cep *child, *tmp;

	/* The data path lets go of the socket before it is released. */
	siw2_sk_dp_detach(cep);
	if (cep->qp)
		siw2_qp_llp_down(cep->qp, cep);
	siw2_cep_sock_release(cep);
	if (cep->qp) {
		siw2_qp_put(cep->qp);
		cep->qp = NULL;
	}
	switch (prev) {
	case SIW2_CEP_CONNECTING:
	case SIW2_CEP_AWAIT_REP:
	case SIW2_CEP_AWAIT_RRESP:
		siw2_cep_upcall(cep, IW_CM_EVENT_CONNECT_REPLY, status, rep);
		break;
	case SIW2_CEP_AWAIT_RTR:
		siw2_cep_upcall(cep, IW_CM_EVENT_ESTABLISHED, 0, NULL);
		siw2_cep_upcall(cep, IW_CM_EVENT_CLOSE, status, NULL);
		break;
	case SIW2_CEP_RDMA:
		if (ev == SIW2_CEV_PEER_CLOSE)
			siw2_cep_upcall(cep, IW_CM_EVENT_DISCONNECT, 0, NULL);
		siw2_cep_upcall(cep, IW_CM_EVENT_CLOSE, status, NULL);
		break;
	case SIW2_CEP_CLOSING:
		siw2_cep_upcall(cep, IW_CM_EVENT_CLOSE, status, NULL);
		break;
	case SIW2_CEP_LISTEN:
		/* Endpoints still reading a Request die with the listener. */
		spin_lock_bh(&cep->child_lock);
		list_for_each_entry_safe(child, tmp, &cep->children, child)
			siw2_cep_kick(child, SIW2_CEPI_ABORT);
		spin_unlock_bh(&cep->child_lock);
		break;
	default:
		break;
	}
	siw2_cep_drop_cm_id(cep);
	siw2_cep_leave_listener(cep);
}

/**
 * siw2_cep_close - step to CLOSED through @ev, if allowed, and clean up
 * @cep: endpoint, locked
 * @ev: the event; abort, reset and timeout close with RST
 * @status: status for the IWCM
 * @rep: as for siw2_cep_closed()
 */
void siw2_cep_close(struct siw2_cep *cep, enum siw2_cep_event ev, int status,
		    const struct siw2_mpa_frame *rep)
{
	enum siw2_cep_state prev = cep->state;

	if (ev == SIW2_CEV_ABORT || ev == SIW2_CEV_RESET ||
	    ev == SIW2_CEV_TIMEOUT)
		cep->abortive = true;
	if (!siw2_cep_step(cep, ev))
		return;
	if (cep->state == SIW2_CEP_CLOSED)
		siw2_cep_closed(cep, prev, ev, status, rep);
}

/* A protocol error: Terminate (RFC 5044 8, RFC 6581 8), then close. */
static void siw2_cep_proto(struct siw2_cep *cep, u8 layer, u8 etype, u8 code,
			   bool crc, int status)
{
	siw2_cep_send_term(cep, layer, etype, code, crc);
	siw2_cep_discard(cep);
	siw2_cep_close(cep, SIW2_CEV_PROTO, status, NULL);
}

static void siw2_cep_mpa_error(struct siw2_cep *cep, u8 code, bool crc,
			       int status)
{
	siw2_cep_proto(cep, SIW2_TERM_LAYER_LLP, SIW2_TERM_ETYPE_MPA, code, crc,
		       status);
}

/**
 * siw2_cep_sock_event - what the socket's state means for an endpoint
 *	that is not reading the stream
 * @cep: endpoint, locked, with its socket
 * @fin_sent: this side has shut down its sending half
 *
 * Return: SIW2_CEV_RESET on a socket error, or a closed socket this side
 * did not close; SIW2_CEV_DONE for a closed socket after this side's FIN;
 * SIW2_CEV_PEER_CLOSE once the peer's FIN is in; SIW2_CEV_NUM_EVENTS if
 * nothing changed.
 */
static enum siw2_cep_event siw2_cep_sock_event(struct siw2_cep *cep,
					       bool fin_sent)
{
	struct sock *sk = cep->sock->sk;

	if (READ_ONCE(sk->sk_err))
		return SIW2_CEV_RESET;
	switch (READ_ONCE(sk->sk_state)) {
	case TCP_CLOSE:
		return fin_sent ? SIW2_CEV_DONE : SIW2_CEV_RESET;
	case TCP_CLOSE_WAIT:
	case TCP_LAST_ACK:
	case TCP_CLOSING:
	case TCP_TIME_WAIT:
		return SIW2_CEV_PEER_CLOSE;
	default:
		if (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN)
			return SIW2_CEV_PEER_CLOSE;
		return SIW2_CEV_NUM_EVENTS;
	}
}

/* Map a failed read to the event and the IWCM status it means. */
static void siw2_cep_read_failed(struct siw2_cep *cep, int rv)
{
	if (rv == -ESHUTDOWN)
		siw2_cep_close(cep, SIW2_CEV_PEER_CLOSE, -ECONNRESET, NULL);
	else
		siw2_cep_close(cep, SIW2_CEV_RESET, -ECONNRESET, NULL);
}

/*
 * Read one MPA Request or Reply. Return: 0 with @f decoded (its private
 * data points into fr->rx), -EAGAIN, or another error already handled
 * (the endpoint is closed).
 */
static int siw2_cep_read_mpa(struct siw2_cep *cep, enum siw2_mpa_kind kind,
			     struct siw2_mpa_frame *f)
{
	enum siw2_mpa_err err;
	int rv;

	if (!cep->rframe) {
		rv = siw2_cep_recv(cep, sizeof(struct siw2_mpa_hdr));
		if (rv == -EAGAIN)
			return rv;
		if (rv)
			goto failed;
		err = siw2_mpa_parse_hdr(cep->fr->rx, cep->rlen, kind,
					 &cep->rframe);
		if (err)
			goto malformed;
	}
	rv = siw2_cep_recv(cep, cep->rframe);
	if (rv == -EAGAIN)
		return rv;
	if (rv)
		goto failed;
	err = siw2_mpa_decode(cep->fr->rx, cep->rlen, kind, f);
	if (err)
		goto malformed;
	return 0;

malformed:
	trace_siw2_cep_bad_mpa(cep->id, siw2_mpa_err_name(err));
	siw2_cep_mpa_error(cep, SIW2_TERM_MPA_BAD_FRAME, cep->crc_sent, -EPROTO);
	return -EPROTO;
failed:
	siw2_cep_read_failed(cep, rv);
	return rv;
}

/* ---- passive side ---- */

/**
 * siw2_cep_send_reject - send a Reply with R=1 (RFC 5044 7.1.3, BASE-MPA-12)
 * @cep: endpoint, locked, holding the Request
 * @pd: private data, or NULL
 * @len: its length
 *
 * Rev and S follow the Request; enhanced data states this side's limits.
 *
 * Return: 0 or an error from encoding or sending.
 */
int siw2_cep_send_reject(struct siw2_cep *cep, const void *pd, u8 len)
{
	struct siw2_mpa_frame rep = {
		.kind = SIW2_MPA_REPLY,
		.rev = cep->req.rev,
		.reject = true,
		.enhanced = cep->req.enhanced,
		.ird = SIW2_MAX_IRD,
		.ord = SIW2_MAX_ORD,
		.pd = pd,
		.pd_len = len,
	};
	u8 buf[SIW2_MPA_FRAME_MAX];
	int n;

	n = siw2_mpa_encode(&rep, buf, sizeof(buf));
	if (n < 0)
		return n;
	return siw2_cep_send(cep, buf, n);
}

/* The driver itself refuses a Request: Reject Reply, then close. */
static void siw2_cep_refuse(struct siw2_cep *cep, const char *why)
{
	trace_siw2_cep_refuse(cep->id, why);
	net_info_ratelimited("siw2: %s: refusing MPA Request from %pISpc: %s\n",
			     dev_name(&cep->sdev->ibdev.dev), &cep->raddr,
			     why);
	siw2_cep_send_reject(cep, NULL, 0);
	siw2_cep_close(cep, SIW2_CEV_PROTO, -ECONNREFUSED, NULL);
}

/**
 * siw2_cep_got_request - passive: read the MPA Request and hand it over
 * @cep: endpoint, locked, in AWAIT_REQ
 *
 * A complete, acceptable Request goes to the listener's cm_id as a
 * CONNECT_REQUEST with this endpoint as provider_data; from then on the
 * ULP's accept or reject decides. A Request this side cannot serve gets a
 * Reject Reply; a malformed one a Terminate.
 */
static void siw2_cep_got_request(struct siw2_cep *cep)
{
	struct siw2_cep *l;
	struct siw2_mpa_frame *req = &cep->req;
	struct iw_cm_event ev;
	bool crc;
	int rv;

	rv = siw2_cep_read_mpa(cep, SIW2_MPA_REQUEST, req);
	if (rv)
		return;
	/* Keep the Request: fr->rx is reused for the RTR. */
	memcpy(cep->fr->req, cep->fr->rx, cep->rlen);
	if (req->pd)
		req->pd = cep->fr->req + (req->pd - cep->fr->rx);
	cep->rlen = 0;
	cep->rframe = 0;

	/* Markers are not implemented: refuse, as Linux siw does (BASE-MPA-7). */
	if (req->markers)
		return siw2_cep_refuse(cep, "markers requested");
	if (siw2_mpa_crc_resolve(READ_ONCE(siw2_mpa_crc), req->crc, &crc))
		return siw2_cep_refuse(cep, "CRC requested, mpa_crc=2");
	if (req->pd_len > SIW2_PD_ULP_RCV_MAX)
		return siw2_cep_refuse(cep, "private data too long for the IWCM");
	l = cep->listener;
	if (!l) {
		siw2_cep_close(cep, SIW2_CEV_ABORT, -ECONNABORTED, NULL);
		return;
	}
	/* The listener's cm_id is only stable under its lock. */
	mutex_lock_nested(&l->lock, SINGLE_DEPTH_NESTING);
	if (l->state != SIW2_CEP_LISTEN || !l->cm_id) {
		mutex_unlock(&l->lock);
		siw2_cep_close(cep, SIW2_CEV_ABORT, -ECONNABORTED, NULL);
		return;
	}
	cep->conn.crc = crc;
	siw2_cep_step(cep, SIW2_CEV_REQ);

	/*
	 * The peer's IRD/ORD, seen from this side as the IB CM reports them
	 * (DEC-2, MPA2-IRD-1): rdma_cm turns event.ird into initiator_depth
	 * (this side may issue as many Reads as the peer's IRD) and event.ord
	 * into responder_resources (the peer's ORD). Without enhanced data
	 * (or with 0x3FFF) the ULP decides, up to the maxima.
	 */
	siw2_cep_event_init(cep, &ev, IW_CM_EVENT_CONNECT_REQUEST, 0);
	if (req->enhanced && req->ird != SIW2_MPA_V2_NO_NEG &&
	    req->ord != SIW2_MPA_V2_NO_NEG) {
		ev.ird = siw2_u8(req->ird);
		ev.ord = siw2_u8(req->ord);
	} else {
		ev.ird = SIW2_MAX_IRD;
		ev.ord = SIW2_MAX_ORD;
	}
	ev.private_data = (void *)req->pd;
	ev.private_data_len = req->pd_len;
	ev.provider_data = cep;
	cep->ulp_ref = true;
	siw2_cep_get(cep);
	trace_siw2_cep_upcall(cep->id, ev.event, 0);
	rv = l->cm_id->event_handler(l->cm_id, &ev);
	mutex_unlock(&l->lock);
	/* From here on the new cm_id, not the listener, owns the endpoint. */
	siw2_cep_leave_listener(cep);
	if (rv) {
		cep->ulp_ref = false;
		siw2_cep_put(cep);
		siw2_cep_close(cep, SIW2_CEV_ABORT, rv, NULL);
	}
}

/*
 * TCP keepalive on a connection in RDMA mode. A peer whose socket went
 * while nothing could reach this side (the link down, or its RST lost)
 * leaves this side's TCP with nothing to retransmit: a Requester waiting
 * for a Read Response, or any QP waiting for a message, would wait
 * forever. A probe draws the peer's RST, which fails the QP and flushes
 * its work requests. A soak with link flaps found this (72-soak.sh;
 * 73-half-open.sh is its test).
 */
static void siw2_sk_keepalive(struct sock *sk)
{
	unsigned int idle = READ_ONCE(siw2_keepalive_s);

	if (!idle)
		return;
	sock_set_keepalive(sk);
	tcp_sock_set_keepidle(sk, idle);
	tcp_sock_set_keepintvl(sk, max(idle / 3, 1U));
	tcp_sock_set_keepcnt(sk, 3);
}

/**
 * siw2_cep_established - enter RDMA mode, then tell the IWCM
 * @cep: endpoint, locked, with its QP and negotiated values
 * @ev: the event that completes the exchange
 * @type: the IWCM event that reports it (CONNECT_REPLY or ESTABLISHED)
 * @rep: for CONNECT_REPLY, the Reply (its private data may point into
 *	@cep->fr), else NULL
 *
 * The QP goes to RTS; if it has gone meanwhile, the connection is aborted
 * instead. Once the event is out, the MPA frame buffers are freed.
 */
void siw2_cep_established(struct siw2_cep *cep, enum siw2_cep_event ev,
			  enum iw_cm_event_type type,
			  const struct siw2_mpa_frame *rep)
{
	int rv;

	siw2_sk_keepalive(cep->sock->sk);
	/* Before the QP's engines run: their socket callbacks must reach them. */
	siw2_sk_dp_attach(cep, cep->qp);
	rv = siw2_qp_llp_up(cep->qp, cep, &cep->conn, cep->sock, cep->active);
	if (rv) {
		siw2_sk_dp_detach(cep);
		siw2_cep_close(cep, SIW2_CEV_ABORT, rv, NULL);
		return;
	}
	siw2_cep_step(cep, ev);
	/*
	 * A FIN that came with the last frame of the exchange was taken as
	 * a cue to read it: look at the socket once more in RDMA mode.
	 */
	siw2_cep_kick(cep, SIW2_CEPI_STATE);
	trace_siw2_cep_conn(cep->id, cep->active, &cep->conn,
			    siw2_conn_fenced(&cep->conn, cep->active));
	siw2_cep_upcall(cep, type, 0, rep);
	/* Nothing may point into the buffers once they are gone. */
	cep->req.pd = NULL;
	cep->rep.pd = NULL;
	kfree(cep->fr);
	cep->fr = NULL;
	cep->rlen = 0;
	cep->rframe = 0;
}

/**
 * siw2_cep_read_rtr - read the first FPDU of a peer-to-peer connection
 * @cep: endpoint, locked
 * @initiator: this side sent a Read RTR and reads its Response; else this
 *	side is the Responder and reads the agreed RTR
 *
 * Anything else as first FPDU is a protocol error (RFC 6581 9): Terminate
 * and close. Once the FPDU is in, the connection enters RDMA mode.
 */
static void siw2_cep_read_rtr(struct siw2_cep *cep, bool initiator)
{
	enum siw2_fpdu_kind kind, want;
	size_t ulpdu, fpdu;
	u32 stag;
	u64 to;
	int rv;

	rv = siw2_cep_recv(cep, SIW2_MPA_HDR_LEN);
	if (!rv) {
		ulpdu = get_unaligned_be16(cep->fr->rx);
		fpdu = SIW2_MPA_HDR_LEN + ulpdu + siw2_mpa_pad(ulpdu) +
		       SIW2_MPA_CRC_LEN;
		if (fpdu > SIW2_FPDU_RTR_MAX) {
			/* Not an RTR: RFC 6581 9 makes it the first FPDU. */
			siw2_cep_proto(cep, SIW2_TERM_LAYER_RDMAP,
				       SIW2_TERM_ETYPE_REMOTE_OP,
				       SIW2_TERM_RDMAP_BAD_OPCODE,
				       cep->conn.crc, -EPROTO);
			return;
		}
		rv = siw2_cep_recv(cep, fpdu);
	}
	if (rv == -EAGAIN)
		return;
	if (rv) {
		siw2_cep_read_failed(cep, rv);
		return;
	}
	if (siw2_fpdu_check(cep->fr->rx, cep->rlen, cep->conn.crc, &fpdu)) {
		siw2_cep_mpa_error(cep, SIW2_TERM_MPA_CRC, cep->conn.crc,
				   -EPROTO);
		return;
	}
	kind = siw2_fpdu_classify_rtr(cep->fr->rx, cep->rlen, &stag, &to);
	cep->rlen = 0;
	if (initiator)
		want = SIW2_FPDU_READ_RESP0;
	else
		want = cep->conn.rtr == SIW2_RTR_READ ? SIW2_FPDU_READ_RTR :
							SIW2_FPDU_WRITE_RTR;
	if (kind != want || (initiator && stag != 1)) {
		siw2_cep_proto(cep, SIW2_TERM_LAYER_RDMAP,
			       SIW2_TERM_ETYPE_REMOTE_OP,
			       SIW2_TERM_RDMAP_BAD_OPCODE, cep->conn.crc,
			       -EPROTO);
		return;
	}
	if (initiator) {
		siw2_cep_established(cep, SIW2_CEV_RRESP,
				     IW_CM_EVENT_CONNECT_REPLY, &cep->rep);
		return;
	}
	if (kind == SIW2_FPDU_READ_RTR) {
		u8 buf[32];
		int n = siw2_fpdu_read_resp0(buf, sizeof(buf), stag, to,
					     cep->conn.crc);

		rv = n < 0 ? n : siw2_cep_send(cep, buf, n);
		if (rv) {
			siw2_cep_close(cep, SIW2_CEV_RESET, rv, NULL);
			return;
		}
	}
	siw2_cep_established(cep, SIW2_CEV_RTR, IW_CM_EVENT_ESTABLISHED, NULL);
}

/**
 * siw2_cep_got_rtr - passive, peer-to-peer: read the Initiator's RTR
 * @cep: endpoint, locked, in AWAIT_RTR
 */
static void siw2_cep_got_rtr(struct siw2_cep *cep)
{
	siw2_cep_read_rtr(cep, false);
}

/**
 * siw2_cep_got_rresp - active: read the Response to this side's Read RTR
 * @cep: endpoint, locked, in AWAIT_RRESP
 */
static void siw2_cep_got_rresp(struct siw2_cep *cep)
{
	siw2_cep_read_rtr(cep, true);
}

/* ---- active side ---- */

/**
 * siw2_cep_tcp_up - active: once the handshake is done, send the Request
 * @cep: endpoint, locked, in CONNECTING
 *
 * A handshake still under way waits for the next state change; a failed
 * one fails the connection (-ECONNREFUSED, or the socket's error).
 */
static void siw2_cep_tcp_up(struct siw2_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	u8 *buf = cep->fr->req;
	int rv, len;

	switch (READ_ONCE(sk->sk_state)) {
	case TCP_ESTABLISHED:
		break;
	case TCP_SYN_SENT:
		return;
	default:
		rv = READ_ONCE(sk->sk_err);
		if (rv == ETIMEDOUT)
			siw2_cep_close(cep, SIW2_CEV_TIMEOUT, -ETIMEDOUT, NULL);
		else
			siw2_cep_close(cep, SIW2_CEV_RESET,
				       rv ? -rv : -ECONNREFUSED, NULL);
		return;
	}
	kernel_getsockname(cep->sock, (struct sockaddr *)&cep->laddr);
	len = siw2_mpa_frame_len(&cep->req);
	rv = siw2_cep_send(cep, buf, len);
	if (rv) {
		siw2_cep_close(cep, SIW2_CEV_RESET, -ECONNRESET, NULL);
		return;
	}
	siw2_cep_step(cep, SIW2_CEV_TCP_UP);
	siw2_cep_kick(cep, SIW2_CEPI_READ);
}

static int siw2_cep_send_rtr(struct siw2_cep *cep)
{
	u8 buf[SIW2_FPDU_RTR_MAX + 4];
	int n;

	if (cep->conn.rtr == SIW2_RTR_WRITE)
		n = siw2_fpdu_rtr_write(buf, sizeof(buf), cep->conn.crc);
	else
		n = siw2_fpdu_rtr_read(buf, sizeof(buf), cep->conn.crc);
	return n < 0 ? n : siw2_cep_send(cep, buf, n);
}

/**
 * siw2_cep_got_reply - active: read the MPA Reply and finish negotiating
 * @cep: endpoint, locked, in AWAIT_REP
 *
 * A Reject Reply closes the connection (-ECONNREFUSED). An accepting one
 * enters RDMA mode, after sending the RTR in peer-to-peer mode, or first
 * waits for the Response to a Read RTR. A Reply that cannot be honoured
 * gets a Terminate.
 */
static void siw2_cep_got_reply(struct siw2_cep *cep)
{
	struct siw2_mpa_frame rep;
	struct siw2_mpa_conn conn;
	bool crc;
	int code, rv;

	rv = siw2_cep_read_mpa(cep, SIW2_MPA_REPLY, &rep);
	if (rv)
		return;
	cep->rlen = 0;
	cep->rframe = 0;

	/* The peer's view of IRD/ORD, reported with a reject (MPA2-IRD-1). */
	cep->conn.ird = rep.enhanced ? rep.ord : 0;
	cep->conn.ord = rep.enhanced ? rep.ird : 0;
	if (rep.reject) {
		cep->abortive = false;
		siw2_cep_step(cep, SIW2_CEV_REP_REJECT);
		siw2_cep_closed(cep, SIW2_CEP_AWAIT_REP, SIW2_CEV_REP_REJECT,
				-ECONNREFUSED, &rep);
		return;
	}
	if (rep.markers) {
		siw2_cep_mpa_error(cep, SIW2_TERM_MPA_CATASTROPHIC,
				   cep->crc_sent || rep.crc, -EPROTONOSUPPORT);
		return;
	}
	if (siw2_mpa_crc_resolve(cep->crc_sent ? SIW2_CRC_REQUIRED :
				 READ_ONCE(siw2_mpa_crc), rep.crc, &crc)) {
		siw2_cep_mpa_error(cep, SIW2_TERM_MPA_CATASTROPHIC, true,
				   -EPROTONOSUPPORT);
		return;
	}
	if (rep.pd_len > SIW2_PD_ULP_RCV_MAX) {
		siw2_cep_mpa_error(cep, SIW2_TERM_MPA_CATASTROPHIC, crc,
				   -EMSGSIZE);
		return;
	}
	code = siw2_mpa_complete(&cep->req, &rep, siw2_dev_max_ird(), &conn);
	if (code) {
		siw2_cep_mpa_error(cep, code, crc,
				   code == SIW2_TERM_MPA_NO_IRD ? -ENOMEM :
				   code == SIW2_TERM_MPA_NO_RTR ?
				   -EPROTONOSUPPORT : -EPROTO);
		return;
	}
	conn.crc = crc;
	cep->conn = conn;

	if (conn.p2p && conn.rtr) {
		/* The RTR is the first FPDU (MPA2-P2P-13, MPA2-P2P-15). */
		rv = siw2_cep_send_rtr(cep);
		if (rv) {
			siw2_cep_close(cep, SIW2_CEV_RESET, -ECONNRESET, NULL);
			return;
		}
		if (conn.rtr == SIW2_RTR_READ) {
			/*
			 * Established once the Read Response is in; fr->rx
			 * will hold it, so keep the Reply's private data for
			 * the CONNECT_REPLY (fr->req is free once the Request
			 * went).
			 */
			if (rep.pd_len)
				memcpy(cep->fr->req, rep.pd, rep.pd_len);
			cep->rep = rep;
			cep->rep.pd = rep.pd_len ? cep->fr->req : NULL;
			siw2_cep_step(cep, SIW2_CEV_REP_READ_RTR);
			siw2_cep_kick(cep, SIW2_CEPI_READ);
			return;
		}
	}
	siw2_cep_established(cep, SIW2_CEV_REP, IW_CM_EVENT_CONNECT_REPLY, &rep);
}

/* ---- RDMA mode and teardown ---- */

/**
 * siw2_cep_watch - close if the peer closed or the socket failed
 * @cep: endpoint, locked, in REQ_RCVD or RDMA, not reading the stream
 *
 * The peer's FIN ends a connection in RDMA mode normally (status 0). In
 * REQ_RCVD the IWCM has no cm_id of the endpoint yet and hears nothing;
 * the ULP's accept then fails.
 */
static void siw2_cep_watch(struct siw2_cep *cep)
{
	enum siw2_cep_event ev = siw2_cep_sock_event(cep, false);

	if (ev != SIW2_CEV_NUM_EVENTS)
		siw2_cep_close(cep, ev, ev == SIW2_CEV_PEER_CLOSE ? 0 :
					-ECONNRESET, NULL);
}

/**
 * siw2_cep_fin_wait - closing: the end of the socket ends the endpoint
 * @cep: endpoint, locked, in CLOSING (its FIN sent)
 */
static void siw2_cep_fin_wait(struct siw2_cep *cep)
{
	enum siw2_cep_event ev = siw2_cep_sock_event(cep, true);

	if (ev != SIW2_CEV_NUM_EVENTS)
		siw2_cep_close(cep, ev, 0, NULL);
}

/**
 * siw2_cep_shutdown - the QP asked for a graceful close
 * @cep: endpoint, locked, in RDMA mode
 *
 * FIN now; the CLOSE upcall follows once the peer's FIN is in
 * (siw2_cep_fin_wait()) or the step times out. A socket that failed
 * before this close request was handled (its state change may still be
 * pending behind it) ends as a reset, with the error status it has.
 */
static void siw2_cep_shutdown(struct siw2_cep *cep)
{
	if (siw2_cep_sock_event(cep, false) == SIW2_CEV_RESET) {
		siw2_cep_close(cep, SIW2_CEV_RESET, -ECONNRESET, NULL);
		return;
	}
	kernel_sock_shutdown(cep->sock, SHUT_WR);
	siw2_cep_step(cep, SIW2_CEV_ULP_CLOSE);
	siw2_cep_kick(cep, SIW2_CEPI_STATE);
}

/* ---- listening ---- */

/**
 * siw2_cep_accept_one - give a new TCP connection an endpoint of its own
 * @l: the listener, locked
 * @s: the connection TCP accepted
 *
 * Over the endpoint limit the connection is reset at once.
 */
static void siw2_cep_accept_one(struct siw2_cep *l, struct socket *s)
{
	struct siw2_cep *cep = siw2_cep_alloc(l->sdev, true);

	if (!cep) {
		/*
		 * Over the endpoint limit: refuse at once. The socket has the
		 * listener's callbacks; give it the originals, as it may
		 * outlive the module.
		 */
		write_lock_bh(&s->sk->sk_callback_lock);
		s->sk->sk_data_ready = l->saved_data_ready;
		s->sk->sk_state_change = l->saved_state_change;
		write_unlock_bh(&s->sk->sk_callback_lock);
		sock_no_linger(s->sk);
		sock_release(s);
		return;
	}
	mutex_lock_nested(&cep->lock, SINGLE_DEPTH_NESTING);
	siw2_cep_get(l);
	cep->listener = l;
	spin_lock_bh(&l->child_lock);
	list_add_tail(&cep->child, &l->children);
	spin_unlock_bh(&l->child_lock);
	kernel_getsockname(s, (struct sockaddr *)&cep->laddr);
	kernel_getpeername(s, (struct sockaddr *)&cep->raddr);
	tcp_sock_set_nodelay(s->sk);
	siw2_cep_step(cep, SIW2_CEV_ACCEPTED);
	siw2_sk_attach(cep, s, l->saved_data_ready, l->saved_state_change);
	mutex_unlock(&cep->lock);
	/* The Request may be in already. */
	siw2_cep_kick(cep, SIW2_CEPI_READ);
	siw2_cep_put(cep);
}

/**
 * siw2_cep_take_conns - a listener takes the connections TCP has queued
 * @cep: listener, locked
 */
static void siw2_cep_take_conns(struct siw2_cep *cep)
{
	struct socket *s;

	while (cep->sock && !kernel_accept(cep->sock, &s, O_NONBLOCK))
		siw2_cep_accept_one(cep, s);
}

/* ---- what is pending ---- */

typedef void (*siw2_cep_action_fn)(struct siw2_cep *cep);

/* The function behind each action that looks at the socket. */
static const siw2_cep_action_fn siw2_cep_action_fns[SIW2_CEA_NUM] = {
	[SIW2_CEA_ACCEPT] = siw2_cep_take_conns,
	[SIW2_CEA_TCP_UP] = siw2_cep_tcp_up,
	[SIW2_CEA_READ_REQ] = siw2_cep_got_request,
	[SIW2_CEA_READ_REP] = siw2_cep_got_reply,
	[SIW2_CEA_READ_RTR] = siw2_cep_got_rtr,
	[SIW2_CEA_READ_RRESP] = siw2_cep_got_rresp,
	[SIW2_CEA_WATCH] = siw2_cep_watch,
	[SIW2_CEA_FIN_WAIT] = siw2_cep_fin_wait,
	[SIW2_CEA_SHUTDOWN] = siw2_cep_shutdown,
};

/**
 * siw2_cep_handle - handle one pending input as the state table says
 * @cep: endpoint, locked
 * @in: the input
 *
 * Abort and timeout are handled here for every state alike: the state's
 * own edge for the event closes the endpoint, and the IWCM hears the
 * status siw2_cep_fail_status() gives. Every other input goes to the
 * action siw2_cep_action() names, which siw2_cep_step() holds to the
 * events declared for it.
 */
static void siw2_cep_handle(struct siw2_cep *cep, enum siw2_cep_input in)
{
	enum siw2_cep_action action = siw2_cep_action(cep->state, in);
	enum siw2_cep_event ev;

	cep->action = action;
	switch (action) {
	case SIW2_CEA_NONE:
		break;
	case SIW2_CEA_FAIL:
		ev = siw2_cep_input_event(in);
		siw2_cep_close(cep, ev, siw2_cep_fail_status(cep->state, ev),
			       NULL);
		break;
	default:
		if (!WARN_ON_ONCE(!siw2_cep_action_fns[action]))
			siw2_cep_action_fns[action](cep);
		break;
	}
	cep->action = SIW2_CEA_NONE;
}

/**
 * siw2_cep_work - handle what is pending for an endpoint
 * @work: the endpoint's work
 *
 * Runs on siw2_cm_wq with the reference its queuer took, and handles the
 * pending inputs in the order of enum siw2_cep_input, each in the state
 * the previous one left.
 */
static void siw2_cep_work(struct work_struct *work)
{
	struct siw2_cep *cep = container_of(work, struct siw2_cep, work);
	int in;

	mutex_lock(&cep->lock);
	for (in = 0; in < SIW2_CEPI_NUM; in++) {
		if (!test_and_clear_bit(in, &cep->pending))
			continue;
		/* A timeout from an earlier step is stale. */
		if (in == SIW2_CEPI_TIMEOUT &&
		    time_before(jiffies, cep->deadline))
			continue;
		siw2_cep_handle(cep, in);
	}
	mutex_unlock(&cep->lock);
	siw2_cep_put(cep);
}

/* ---- the QP's requests ---- */

/**
 * siw2_cm_qp_close - the QP asks for its connection to end
 * @cep: the QP's endpoint
 * @abort: true for an abortive close (QP to Error, or destroyed), false
 *	for a graceful one (QP to SQD)
 *
 * Only queues the request: the QP calls this under its state lock.
 */
void siw2_cm_qp_close(struct siw2_cep *cep, bool abort)
{
	siw2_cep_kick(cep, abort ? SIW2_CEPI_ABORT : SIW2_CEPI_CLOSE);
}

/* ---- device and module ---- */

/**
 * siw2_cm_dev_init - set up a device's endpoint list
 * @sdev: device being allocated
 */
void siw2_cm_dev_init(struct siw2_device *sdev)
{
	spin_lock_init(&sdev->cep_lock);
	INIT_LIST_HEAD(&sdev->cep_list);
	init_waitqueue_head(&sdev->cep_wait);
}

/**
 * siw2_cm_dev_drain - end every endpoint of a device being released
 * @sdev: device; the RDMA core has no users of it left
 *
 * With no cm_ids left, an endpoint the IWCM was given but never accepted
 * or rejected (its CONNECT_REQUEST was dropped) can only be freed here.
 * Everything else is closed and waited for.
 */
void siw2_cm_dev_drain(struct siw2_device *sdev)
{
	unsigned long deadline = jiffies +
		2 * msecs_to_jiffies(READ_ONCE(siw2_mpa_timeout_ms)) + HZ;
	struct siw2_cep *cep, *found;

	while (!list_empty(&sdev->cep_list)) {
		found = NULL;
		spin_lock_bh(&sdev->cep_lock);
		list_for_each_entry(cep, &sdev->cep_list, dev_entry) {
			if (kref_get_unless_zero(&cep->ref)) {
				found = cep;
				break;
			}
		}
		spin_unlock_bh(&sdev->cep_lock);
		if (found) {
			mutex_lock(&found->lock);
			if (found->ulp_ref) {
				found->ulp_ref = false;
				siw2_cep_put(found);
			}
			siw2_cep_close(found, SIW2_CEV_ABORT, 0, NULL);
			mutex_unlock(&found->lock);
			siw2_cep_put(found);
		}
		/* Let queued work drop its references, then look again. */
		flush_workqueue(siw2_cm_wq);
		wait_event_timeout(sdev->cep_wait, list_empty(&sdev->cep_list),
				   HZ / 10);
		if (WARN_ONCE(time_after(jiffies, deadline),
			      "siw2: connection endpoints outlive their device\n"))
			break;
	}
}

/**
 * siw2_cm_show - list a device's endpoints (debugfs "connections")
 * @m: output
 * @sdev: device
 *
 * One line per endpoint: id, state, role, addresses, and for connections
 * what the MPA exchange settled.
 */
void siw2_cm_show(struct seq_file *m, struct siw2_device *sdev)
{
	struct siw2_cep *cep;

	spin_lock_bh(&sdev->cep_lock);
	list_for_each_entry(cep, &sdev->cep_list, dev_entry) {
		enum siw2_cep_state state = READ_ONCE(cep->state);

		seq_printf(m, "cep %u %s %s local %pISpc remote %pISpc",
			   cep->id, siw2_cep_state_name(state),
			   state == SIW2_CEP_LISTEN ? "listener" :
			   cep->active ? "active" : "passive",
			   &cep->laddr, &cep->raddr);
		if (state == SIW2_CEP_RDMA || state == SIW2_CEP_CLOSING)
			seq_printf(m, " rev %u crc %u p2p %u rtr %s ird %u ord %u caps 0x%x",
				   cep->conn.rev, cep->conn.crc, cep->conn.p2p,
				   cep->conn.rtr == SIW2_RTR_WRITE ? "write" :
				   cep->conn.rtr == SIW2_RTR_READ ? "read" :
				   "none", cep->conn.ird, cep->conn.ord,
				   cep->conn.caps);
		seq_putc(m, '\n');
	}
	spin_unlock_bh(&sdev->cep_lock);
}

/**
 * siw2_cm_init - create the connection manager's workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int siw2_cm_init(void)
{
	siw2_cm_wq = alloc_workqueue("siw2_cm", WQ_UNBOUND, 0);
	return siw2_cm_wq ? 0 : -ENOMEM;
}

/**
 * siw2_cm_exit - destroy the workqueue; every device is gone already
 */
void siw2_cm_exit(void)
{
	destroy_workqueue(siw2_cm_wq);
}
