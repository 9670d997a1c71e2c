// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: iWARP connection manager. The iw_cm verbs over kernel TCP sockets:
 * listening, the MPA Request/Reply exchange (RFC 5044 7.1, RFC 6581), the
 * peer-to-peer RTR, and teardown.
 *
 * Each TCP connection (and each listener) is a connection endpoint (cep)
 * driven by the table in siw2_cm_fsm.c. Socket callbacks run in softirq
 * and only record what happened and queue the endpoint's work; the work
 * runs every step under cep->lock on siw2_cm_wq, so upcalls to the IWCM
 * and QP changes happen in process context, one endpoint step at a time.
 *
 * Lock order: cep->lock -> qp->state_lock -> sk_callback_lock. The QP side
 * never takes cep->lock: it only queues work (siw2_cm_qp_close()).
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
#include <linux/unaligned.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "siw2.h"
#include "siw2_cm.h"
#include "siw2_cm_fsm.h"
#include "siw2_fpdu.h"
#include "siw2_mpa.h"
#include "siw2_trace.h"

/* ---- module parameters: the local MPA policy ---- */

static unsigned int mpa_crc = SIW2_CRC_PEER;
static unsigned int mpa_rev = SIW2_MPA_REV2;
static bool peer_to_peer;
static unsigned int rtr_forms = SIW2_RTR_WRITE | SIW2_RTR_READ;
static unsigned int mpa_caps = SIW2_MPA_CAPS;
static unsigned int mpa_timeout_ms = 10000;

static int siw2_param_set_crc(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, SIW2_CRC_PEER, SIW2_CRC_OFF);
}

static int siw2_param_set_rev(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, SIW2_MPA_REV1, SIW2_MPA_REV2);
}

static int siw2_param_set_rtr(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int rv = kstrtouint(val, 0, &v);

	if (rv)
		return rv;
	/* B (zero-length FPDU) is never offered (DEC-3). */
	if (!v || (v & ~(SIW2_RTR_WRITE | SIW2_RTR_READ)))
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

static int siw2_param_set_caps(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int rv = kstrtouint(val, 0, &v);

	if (rv)
		return rv;
	if (v & ~SIW2_MPA_CAPS)
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

static int siw2_param_set_timeout(const char *val,
				  const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 100, 600000);
}

static const struct kernel_param_ops siw2_crc_ops = {
	.set = siw2_param_set_crc, .get = param_get_uint,
};

static const struct kernel_param_ops siw2_rev_ops = {
	.set = siw2_param_set_rev, .get = param_get_uint,
};

static const struct kernel_param_ops siw2_rtr_ops = {
	.set = siw2_param_set_rtr, .get = param_get_uint,
};

static const struct kernel_param_ops siw2_caps_ops = {
	.set = siw2_param_set_caps, .get = param_get_uint,
};

static const struct kernel_param_ops siw2_timeout_ops = {
	.set = siw2_param_set_timeout, .get = param_get_uint,
};

module_param_cb(mpa_crc, &siw2_crc_ops, &mpa_crc, 0644);
MODULE_PARM_DESC(mpa_crc,
		 "MPA CRC policy: 0 use CRC if the peer asks (default, as Linux siw), 1 always ask for CRC, 2 never use CRC (refuse peers that ask)");
module_param_cb(mpa_rev, &siw2_rev_ops, &mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev,
		 "MPA revision of outgoing Requests: 1 (RFC 5044) or 2 (RFC 6581 enhanced, default); both are accepted");
module_param(peer_to_peer, bool, 0644);
MODULE_PARM_DESC(peer_to_peer,
		 "Request peer-to-peer mode (RTR) on outgoing Rev 2 connections (default off)");
module_param_cb(rtr_forms, &siw2_rtr_ops, &rtr_forms, 0644);
MODULE_PARM_DESC(rtr_forms,
		 "RTR forms offered and accepted: 2 zero-length Write, 4 zero-length Read, 6 both (default)");
module_param_cb(mpa_caps, &siw2_caps_ops, &mpa_caps, 0644);
MODULE_PARM_DESC(mpa_caps,
		 "Private MPA Rev 2 capability bits advertised: 0x4 RDMAP v2, 0x2 Commit (default 0x6)");
module_param_cb(mpa_timeout_ms, &siw2_timeout_ops, &mpa_timeout_ms, 0644);
MODULE_PARM_DESC(mpa_timeout_ms,
		 "Limit on each connection setup or close step, in ms (100..600000, default 10000)");

/* ---- the endpoint ---- */

/* Longest MPA Request/Reply: 20-octet header and 512 octets of PD. */
#define SIW2_MPA_FRAME_MAX (sizeof(struct siw2_mpa_hdr) + SIW2_MPA_MAX_PD_WIRE)

/*
 * The IWCM reports private data length in a u8 (struct iw_cm_event), and
 * Linux siw refuses PD_Length above 256: a ULP may send at most 256 octets
 * minus the 4 enhanced ones, and receive at most 255.
 */
#define SIW2_PD_WIRE_LINUX	256
#define SIW2_PD_ULP_RCV_MAX	255

/* Work pending for an endpoint, in the order it is handled. */
enum {
	SIW2_CEPF_ABORT,	/* QP to ERR, QP destroyed, listener gone */
	SIW2_CEPF_READ,		/* bytes arrived, or a connection to accept */
	SIW2_CEPF_CLOSE,	/* QP to SQD: graceful close */
	SIW2_CEPF_STATE,	/* TCP state changed */
	SIW2_CEPF_TIMEOUT,	/* the step timer fired */
	SIW2_CEPF_NUM
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
 * @pending: SIW2_CEPF_* bits, set from any context
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
 * @req: the Request (sent or received); @req.pd points into @req_buf
 * @req_buf: the Request's bytes
 * @rbuf: receive buffer
 * @rlen: bytes in @rbuf
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
	unsigned long pending;
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
	u8 req_buf[SIW2_MPA_FRAME_MAX];
	u8 rbuf[SIW2_MPA_FRAME_MAX];
	size_t rlen;
	size_t rframe;
	struct siw2_mpa_conn conn;
	bool crc_sent;
	bool abortive;
};

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

/* Queue the endpoint's work with a reference it drops when done. */
static void siw2_cep_kick(struct siw2_cep *cep, int bit)
{
	set_bit(bit, &cep->pending);
	siw2_cep_get(cep);
	if (!queue_work(siw2_cm_wq, &cep->work))
		siw2_cep_put(cep);
}

static void siw2_cep_timer_fn(struct timer_list *t)
{
	struct siw2_cep *cep = from_timer(cep, t, timer);

	/* The armed timer's reference passes to the work. */
	set_bit(SIW2_CEPF_TIMEOUT, &cep->pending);
	if (!queue_work(siw2_cm_wq, &cep->work))
		siw2_cep_put(cep);
}

static void siw2_cep_arm(struct siw2_cep *cep)
{
	cep->deadline = jiffies + msecs_to_jiffies(READ_ONCE(mpa_timeout_ms));
	if (!mod_timer(&cep->timer, cep->deadline))
		siw2_cep_get(cep);
}

static void siw2_cep_disarm(struct siw2_cep *cep)
{
	if (timer_delete(&cep->timer))
		siw2_cep_put(cep);
}

static void siw2_cep_work(struct work_struct *work);

static struct siw2_cep *siw2_cep_alloc(struct siw2_device *sdev)
{
	struct siw2_cep *cep;

	if (siw2_obj_get(sdev, SIW2_OBJ_CEP))
		return NULL;
	cep = kzalloc(sizeof(*cep), GFP_KERNEL);
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

/*
 * Take one step of the state table. Every state that waits on the peer
 * runs under the step timer (siw2_cep_timed()).
 */
static bool siw2_cep_step(struct siw2_cep *cep, enum siw2_cep_event ev)
{
	enum siw2_cep_state next = siw2_cep_next(cep->state, ev);

	lockdep_assert_held(&cep->lock);

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
	if (cep)
		siw2_cep_kick(cep, SIW2_CEPF_READ);
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
		siw2_cep_kick(cep, SIW2_CEPF_STATE);
	}
	read_unlock_bh(&sk->sk_callback_lock);
	if (saved)
		saved(sk);
}

/*
 * Route the socket's callbacks to @cep. SK_USER_DATA_NOCOPY keeps
 * connections cloned from a listener from inheriting the pointer; they
 * inherit the callbacks, so the originals are passed in.
 */
static void siw2_sk_attach(struct siw2_cep *cep, struct socket *sock,
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
	rcu_assign_sk_user_data(sk, NULL);
	write_unlock_bh(&sk->sk_callback_lock);
	siw2_cep_put(cep);
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

static int siw2_cep_send(struct siw2_cep *cep, const void *buf, size_t len)
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
 * Read up to @want bytes in total into rbuf, never past them: what
 * follows an MPA frame belongs to the FPDU stream.
 * Return: 0 when rbuf holds @want bytes, -EAGAIN for more to come,
 * -ESHUTDOWN at end of stream, another negative errno on error.
 */
static int siw2_cep_recv(struct siw2_cep *cep, size_t want)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec iov;
	int rv;

	while (cep->rlen < want) {
		iov.iov_base = cep->rbuf + cep->rlen;
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

static void siw2_cep_upcall(struct siw2_cep *cep, enum iw_cm_event_type type,
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

static void siw2_cep_drop_cm_id(struct siw2_cep *cep)
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

/*
 * The endpoint has reached CLOSED from @prev through @ev: release the
 * socket, put the QP into Error, and tell the IWCM what its state
 * expects: a failed CONNECT_REPLY before establishment on the active
 * side; ESTABLISHED then CLOSE after an accept; CLOSE in RDMA mode.
 */
static void siw2_cep_closed(struct siw2_cep *cep, enum siw2_cep_state prev,
			    enum siw2_cep_event ev, int status,
			    const struct siw2_mpa_frame *rep)
{
	struct siw2_cep *child, *tmp;

	siw2_cep_sock_release(cep);
	if (cep->qp) {
		siw2_qp_llp_down(cep->qp, cep);
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
			siw2_cep_kick(child, SIW2_CEPF_ABORT);
		spin_unlock_bh(&cep->child_lock);
		break;
	default:
		break;
	}
	siw2_cep_drop_cm_id(cep);
	siw2_cep_leave_listener(cep);
}

/* Step to CLOSED through @ev, if the state allows it, and clean up. */
static void siw2_cep_close(struct siw2_cep *cep, enum siw2_cep_event ev,
			   int status, const struct siw2_mpa_frame *rep)
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
	siw2_cep_close(cep, SIW2_CEV_PROTO, status, NULL);
}

static void siw2_cep_mpa_error(struct siw2_cep *cep, u8 code, bool crc,
			       int status)
{
	siw2_cep_proto(cep, SIW2_TERM_LAYER_LLP, SIW2_TERM_ETYPE_MPA, code, crc,
		       status);
}

/* What the socket's state means for an endpoint that is not reading. */
static enum siw2_cep_event siw2_cep_sock_event(struct siw2_cep *cep)
{
	struct sock *sk = cep->sock->sk;

	if (READ_ONCE(sk->sk_err))
		return SIW2_CEV_RESET;
	switch (READ_ONCE(sk->sk_state)) {
	case TCP_CLOSE:
		return cep->state == SIW2_CEP_CLOSING ? SIW2_CEV_DONE :
							SIW2_CEV_RESET;
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
 * data points into rbuf), -EAGAIN, or another error already handled
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
		err = siw2_mpa_parse_hdr(cep->rbuf, cep->rlen, kind,
					 &cep->rframe);
		if (err)
			goto malformed;
	}
	rv = siw2_cep_recv(cep, cep->rframe);
	if (rv == -EAGAIN)
		return rv;
	if (rv)
		goto failed;
	err = siw2_mpa_decode(cep->rbuf, cep->rlen, kind, f);
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

static u16 siw2_dev_max_ird(void)
{
	return SIW2_MAX_IRD;
}

/* A Reply with R=1 (RFC 5044 7.1.3, BASE-MPA-12), then a graceful close. */
static int siw2_cep_send_reject(struct siw2_cep *cep, const void *pd, u8 len)
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
	/* Keep the Request: rbuf is reused for the RTR. */
	memcpy(cep->req_buf, cep->rbuf, cep->rlen);
	if (req->pd)
		req->pd = cep->req_buf + (req->pd - cep->rbuf);
	cep->rlen = 0;
	cep->rframe = 0;

	/* Markers are not implemented: refuse, as Linux siw does (BASE-MPA-7). */
	if (req->markers)
		return siw2_cep_refuse(cep, "markers requested");
	if (siw2_mpa_crc_resolve(READ_ONCE(mpa_crc), req->crc, &crc))
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
	 * The peer's IRD/ORD seen from this side (DEC-2, MPA2-IRD-1); without
	 * enhanced data (or with 0x3FFF) the ULP decides, up to the maxima.
	 */
	siw2_cep_event_init(cep, &ev, IW_CM_EVENT_CONNECT_REQUEST, 0);
	if (req->enhanced && req->ird != SIW2_MPA_V2_NO_NEG &&
	    req->ord != SIW2_MPA_V2_NO_NEG) {
		ev.ird = siw2_u8(req->ord);
		ev.ord = siw2_u8(req->ird);
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

static void siw2_cep_on_await_req(struct siw2_cep *cep, int bit)
{
	switch (bit) {
	case SIW2_CEPF_READ:
	case SIW2_CEPF_STATE:
		/* Reading also notices the end of the stream. */
		siw2_cep_got_request(cep);
		break;
	case SIW2_CEPF_TIMEOUT:
		siw2_cep_close(cep, SIW2_CEV_TIMEOUT, -ETIMEDOUT, NULL);
		break;
	case SIW2_CEPF_ABORT:
		siw2_cep_close(cep, SIW2_CEV_ABORT, -ECONNABORTED, NULL);
		break;
	}
}

static void siw2_cep_on_req_rcvd(struct siw2_cep *cep, int bit)
{
	enum siw2_cep_event ev;

	/*
	 * The ULP decides; bytes from the peer wait in the socket. If the
	 * peer goes or the ULP takes too long, the connection closes and the
	 * ULP's accept fails; the IWCM still owns the endpoint.
	 */
	switch (bit) {
	case SIW2_CEPF_STATE:
		ev = siw2_cep_sock_event(cep);
		if (ev != SIW2_CEV_NUM_EVENTS)
			siw2_cep_close(cep, ev, -ECONNRESET, NULL);
		break;
	case SIW2_CEPF_TIMEOUT:
		siw2_cep_close(cep, SIW2_CEV_TIMEOUT, -ETIMEDOUT, NULL);
		break;
	case SIW2_CEPF_ABORT:
		siw2_cep_close(cep, SIW2_CEV_ABORT, -ECONNABORTED, NULL);
		break;
	}
}

/* RDMA mode: the QP goes to RTS with what was negotiated. */
static int siw2_cep_rdma_mode(struct siw2_cep *cep, enum siw2_cep_event ev)
{
	int rv = siw2_qp_llp_up(cep->qp, cep, &cep->conn);

	if (rv) {
		siw2_cep_close(cep, SIW2_CEV_ABORT, rv, NULL);
		return rv;
	}
	siw2_cep_step(cep, ev);
	trace_siw2_cep_conn(cep->id, cep->active, cep->conn.rev, cep->conn.crc,
			    cep->conn.p2p, cep->conn.rtr, cep->conn.ird,
			    cep->conn.ord, cep->conn.caps);
	return 0;
}

/* Responder, peer-to-peer: the first FPDU must be the agreed RTR. */
static void siw2_cep_got_rtr(struct siw2_cep *cep, bool initiator)
{
	enum siw2_fpdu_kind kind, want;
	size_t ulpdu, fpdu;
	u32 stag;
	u64 to;
	int rv;

	rv = siw2_cep_recv(cep, SIW2_MPA_HDR_LEN);
	if (!rv) {
		ulpdu = get_unaligned_be16(cep->rbuf);
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
	if (siw2_fpdu_check(cep->rbuf, cep->rlen, cep->conn.crc, &fpdu)) {
		siw2_cep_mpa_error(cep, SIW2_TERM_MPA_CRC, cep->conn.crc,
				   -EPROTO);
		return;
	}
	kind = siw2_fpdu_classify_rtr(cep->rbuf, cep->rlen, &stag, &to);
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
		if (!siw2_cep_rdma_mode(cep, SIW2_CEV_RRESP))
			siw2_cep_upcall(cep, IW_CM_EVENT_CONNECT_REPLY, 0,
					NULL);
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
	if (!siw2_cep_rdma_mode(cep, SIW2_CEV_RTR))
		siw2_cep_upcall(cep, IW_CM_EVENT_ESTABLISHED, 0, NULL);
}

static void siw2_cep_on_await_rtr(struct siw2_cep *cep, int bit)
{
	switch (bit) {
	case SIW2_CEPF_READ:
	case SIW2_CEPF_STATE:
		siw2_cep_got_rtr(cep, cep->active);
		break;
	case SIW2_CEPF_TIMEOUT:
		siw2_cep_close(cep, SIW2_CEV_TIMEOUT, -ETIMEDOUT, NULL);
		break;
	case SIW2_CEPF_ABORT:
		siw2_cep_close(cep, SIW2_CEV_ABORT, -ECONNABORTED, NULL);
		break;
	}
}

/* ---- active side ---- */

static void siw2_cep_tcp_up(struct siw2_cep *cep)
{
	struct sock *sk = cep->sock->sk;
	u8 *buf = cep->req_buf;
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
	siw2_cep_kick(cep, SIW2_CEPF_READ);
}

static void siw2_cep_on_connecting(struct siw2_cep *cep, int bit)
{
	switch (bit) {
	case SIW2_CEPF_STATE:
		siw2_cep_tcp_up(cep);
		break;
	case SIW2_CEPF_TIMEOUT:
		siw2_cep_close(cep, SIW2_CEV_TIMEOUT, -ETIMEDOUT, NULL);
		break;
	case SIW2_CEPF_ABORT:
		siw2_cep_close(cep, SIW2_CEV_ABORT, -ECONNABORTED, NULL);
		break;
	}
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
				 READ_ONCE(mpa_crc), rep.crc, &crc)) {
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
			/* Established once the Read Response is in. */
			siw2_cep_step(cep, SIW2_CEV_REP_READ_RTR);
			siw2_cep_kick(cep, SIW2_CEPF_READ);
			return;
		}
	}
	if (!siw2_cep_rdma_mode(cep, SIW2_CEV_REP))
		siw2_cep_upcall(cep, IW_CM_EVENT_CONNECT_REPLY, 0, &rep);
}

static void siw2_cep_on_await_rep(struct siw2_cep *cep, int bit)
{
	switch (bit) {
	case SIW2_CEPF_READ:
	case SIW2_CEPF_STATE:
		siw2_cep_got_reply(cep);
		break;
	case SIW2_CEPF_TIMEOUT:
		siw2_cep_close(cep, SIW2_CEV_TIMEOUT, -ETIMEDOUT, NULL);
		break;
	case SIW2_CEPF_ABORT:
		siw2_cep_close(cep, SIW2_CEV_ABORT, -ECONNABORTED, NULL);
		break;
	}
}

/* ---- RDMA mode and teardown ---- */

static void siw2_cep_on_rdma(struct siw2_cep *cep, int bit)
{
	enum siw2_cep_event ev;

	switch (bit) {
	case SIW2_CEPF_CLOSE:
		/* Graceful: FIN now, CLOSE once the peer's FIN is in. */
		kernel_sock_shutdown(cep->sock, SHUT_WR);
		siw2_cep_step(cep, SIW2_CEV_ULP_CLOSE);
		siw2_cep_kick(cep, SIW2_CEPF_STATE);
		break;
	case SIW2_CEPF_STATE:
		ev = siw2_cep_sock_event(cep);
		if (ev != SIW2_CEV_NUM_EVENTS)
			siw2_cep_close(cep, ev, ev == SIW2_CEV_PEER_CLOSE ? 0 :
					    -ECONNRESET, NULL);
		break;
	case SIW2_CEPF_ABORT:
		siw2_cep_close(cep, SIW2_CEV_ABORT, 0, NULL);
		break;
	}
}

static void siw2_cep_on_closing(struct siw2_cep *cep, int bit)
{
	enum siw2_cep_event ev;

	switch (bit) {
	case SIW2_CEPF_STATE:
	case SIW2_CEPF_READ:
		ev = siw2_cep_sock_event(cep);
		if (ev != SIW2_CEV_NUM_EVENTS)
			siw2_cep_close(cep, ev, 0, NULL);
		break;
	case SIW2_CEPF_TIMEOUT:
		siw2_cep_close(cep, SIW2_CEV_TIMEOUT, 0, NULL);
		break;
	case SIW2_CEPF_ABORT:
		siw2_cep_close(cep, SIW2_CEV_ABORT, 0, NULL);
		break;
	}
}

/* ---- listening ---- */

static void siw2_cep_accept_one(struct siw2_cep *l, struct socket *s)
{
	struct siw2_cep *cep = siw2_cep_alloc(l->sdev);

	if (!cep) {
		/* Over the endpoint limit: refuse at once. */
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
	siw2_cep_kick(cep, SIW2_CEPF_READ);
	siw2_cep_put(cep);
}

static void siw2_cep_on_listen(struct siw2_cep *cep, int bit)
{
	struct socket *s;

	switch (bit) {
	case SIW2_CEPF_READ:
		while (cep->sock &&
		       !kernel_accept(cep->sock, &s, O_NONBLOCK))
			siw2_cep_accept_one(cep, s);
		break;
	case SIW2_CEPF_ABORT:
		siw2_cep_close(cep, SIW2_CEV_ABORT, 0, NULL);
		break;
	}
}

typedef void (*siw2_cep_state_fn)(struct siw2_cep *cep, int bit);

/* One handler per state; IDLE and CLOSED ignore everything. */
static const siw2_cep_state_fn siw2_cep_state_fns[SIW2_CEP_NUM_STATES] = {
	[SIW2_CEP_LISTEN] = siw2_cep_on_listen,
	[SIW2_CEP_CONNECTING] = siw2_cep_on_connecting,
	[SIW2_CEP_AWAIT_REQ] = siw2_cep_on_await_req,
	[SIW2_CEP_REQ_RCVD] = siw2_cep_on_req_rcvd,
	[SIW2_CEP_AWAIT_REP] = siw2_cep_on_await_rep,
	[SIW2_CEP_AWAIT_RTR] = siw2_cep_on_await_rtr,
	[SIW2_CEP_AWAIT_RRESP] = siw2_cep_on_await_rtr,
	[SIW2_CEP_RDMA] = siw2_cep_on_rdma,
	[SIW2_CEP_CLOSING] = siw2_cep_on_closing,
};

static void siw2_cep_work(struct work_struct *work)
{
	struct siw2_cep *cep = container_of(work, struct siw2_cep, work);
	siw2_cep_state_fn fn;
	int bit;

	mutex_lock(&cep->lock);
	for (bit = 0; bit < SIW2_CEPF_NUM; bit++) {
		if (!test_and_clear_bit(bit, &cep->pending))
			continue;
		/* A timeout from an earlier step is stale. */
		if (bit == SIW2_CEPF_TIMEOUT &&
		    time_before(jiffies, cep->deadline))
			continue;
		fn = siw2_cep_state_fns[cep->state];
		if (fn)
			fn(cep, bit);
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
	siw2_cep_kick(cep, abort ? SIW2_CEPF_ABORT : SIW2_CEPF_CLOSE);
}

/* ---- iw_cm verbs ---- */

static int siw2_addr_len(const struct sockaddr_storage *a)
{
	switch (a->ss_family) {
	case AF_INET:
		return sizeof(struct sockaddr_in);
	case AF_INET6:
		return sizeof(struct sockaddr_in6);
	default:
		return -EAFNOSUPPORT;
	}
}

/* Sockets live in the netdev's namespace, whoever the caller is. */
static int siw2_sock_create(struct siw2_device *sdev, int family,
			    struct socket **s)
{
	int rv = __sock_create(dev_net(sdev->netdev), family, SOCK_STREAM,
			       IPPROTO_TCP, s, 0);

	if (rv)
		return rv;
	/* Ports held in TIME_WAIT must not block the next connection. */
	sock_set_reuseaddr((*s)->sk);
	return 0;
}

/* The network namespace of the task calling into the IWCM. */
static struct net *siw2_caller_net(void)
{
	return current->nsproxy ? current->nsproxy->net_ns : &init_net;
}

static struct siw2_qp *siw2_qp_lookup(struct siw2_device *sdev, u32 qpn)
{
	struct ib_qp *ibqp = siw2_iw_get_qp(&sdev->ibdev, qpn);

	return ibqp ? to_siw2_qp(ibqp) : NULL;
}

static int siw2_check_conn_param(const struct iw_cm_conn_param *p,
				 bool enhanced)
{
	if (p->private_data_len > SIW2_PD_WIRE_LINUX -
				  (enhanced ? sizeof(struct siw2_mpa_v2) : 0) ||
	    p->private_data_len > SIW2_PD_ULP_RCV_MAX)
		return -EINVAL;
	if (p->private_data_len && !p->private_data)
		return -EINVAL;
	if (p->ird > SIW2_MAX_IRD || p->ord > SIW2_MAX_ORD)
		return -EINVAL;
	return 0;
}

/**
 * siw2_iw_connect - start an active connection (IWCM connect verb)
 * @id: the connecting cm_id; m_local_addr and m_remote_addr are used
 * @param: private data, IRD/ORD and the QP number
 *
 * Returns once the TCP handshake is under way; the outcome arrives as one
 * IW_CM_EVENT_CONNECT_REPLY.
 *
 * Return: 0, -EINVAL for a bad QP, private data or IRD/ORD, -EAFNOSUPPORT,
 * -ENOMEM, or the socket layer's error for bind or connect.
 */
int siw2_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siw2_device *sdev = to_siw2_dev(id->device);
	struct siw2_mpa_frame *req;
	struct siw2_cep *cep;
	struct siw2_qp *qp;
	struct socket *s;
	int alen, rv, len;
	u8 rev = READ_ONCE(mpa_rev);

	alen = siw2_addr_len(&id->m_local_addr);
	if (alen < 0 || id->m_remote_addr.ss_family != id->m_local_addr.ss_family)
		return -EAFNOSUPPORT;
	rv = siw2_check_conn_param(param, rev == SIW2_MPA_REV2);
	if (rv)
		return rv;
	qp = siw2_qp_lookup(sdev, param->qpn);
	if (!qp)
		return -EINVAL;

	cep = siw2_cep_alloc(sdev);
	if (!cep)
		return -ENOMEM;
	rv = siw2_sock_create(sdev, id->m_local_addr.ss_family, &s);
	if (rv)
		goto err_cep;
	if (id->m_local_addr.ss_family == AF_INET6 && id->afonly)
		ip6_sock_set_v6only(s->sk);
	tcp_sock_set_nodelay(s->sk);
	rv = kernel_bind(s, (struct sockaddr *)&id->m_local_addr, alen);
	if (rv)
		goto err_sock;

	mutex_lock(&cep->lock);
	cep->active = true;
	cep->laddr = id->m_local_addr;
	cep->raddr = id->m_remote_addr;

	/* The Request, built now so private data need not be kept. */
	req = &cep->req;
	req->kind = SIW2_MPA_REQUEST;
	req->rev = rev;
	req->crc = READ_ONCE(mpa_crc) == SIW2_CRC_REQUIRED;
	if (rev == SIW2_MPA_REV2) {
		req->enhanced = true;
		req->caps = READ_ONCE(mpa_caps);
		req->p2p = READ_ONCE(peer_to_peer);
		req->rtr = req->p2p ? READ_ONCE(rtr_forms) : 0;
		req->ird = param->ird;
		req->ord = param->ord;
	}
	req->pd = param->private_data;
	req->pd_len = param->private_data_len;
	len = siw2_mpa_encode(req, cep->req_buf, sizeof(cep->req_buf));
	req->pd = NULL;
	if (len < 0) {
		rv = len;
		goto err_unlock;
	}
	cep->crc_sent = req->crc;

	rv = siw2_qp_attach_cep(qp, cep);
	if (rv)
		goto err_unlock;
	siw2_qp_get(qp);
	cep->qp = qp;
	id->add_ref(id);
	cep->cm_id = id;
	siw2_cep_step(cep, SIW2_CEV_CONNECT);
	siw2_sk_attach(cep, s, s->sk->sk_data_ready, s->sk->sk_state_change);

	rv = kernel_connect(s, (struct sockaddr *)&id->m_remote_addr, alen,
			    O_NONBLOCK);
	if (rv && rv != -EINPROGRESS) {
		/* A failed verb reports no events. */
		siw2_cep_drop_cm_id(cep);
		siw2_cep_close(cep, SIW2_CEV_ABORT, rv, NULL);
		mutex_unlock(&cep->lock);
		siw2_cep_put(cep);
		return rv;
	}
	mutex_unlock(&cep->lock);
	siw2_cep_kick(cep, SIW2_CEPF_STATE);
	siw2_cep_put(cep);
	return 0;

err_unlock:
	mutex_unlock(&cep->lock);
err_sock:
	sock_release(s);
err_cep:
	siw2_cep_put(cep);
	return rv;
}

/* Take the provider_data reference the IWCM held; NULL if already taken. */
static struct siw2_cep *siw2_cep_from_id(struct iw_cm_id *id)
{
	struct siw2_cep *cep = id->provider_data;

	if (!cep)
		return NULL;
	mutex_lock(&cep->lock);
	if (!cep->ulp_ref) {
		mutex_unlock(&cep->lock);
		return NULL;
	}
	cep->ulp_ref = false;
	return cep;
}

/**
 * siw2_iw_accept - accept a connection request (IWCM accept verb)
 * @id: the cm_id the IWCM created for the request
 * @param: private data, IRD/ORD and the QP number
 *
 * Sends the MPA Reply. Without peer-to-peer the connection is established
 * at once; with it, once the RTR has arrived (IW_CM_EVENT_ESTABLISHED).
 *
 * Return: 0, -EINVAL for a bad QP, private data or IRD/ORD, -ECONNRESET if
 * the connection is gone, -ENOMEM when the peer's ORD exceeds this
 * device's IRD (the request is then rejected, MPA2-IRD-5).
 */
int siw2_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siw2_device *sdev = to_siw2_dev(id->device);
	struct siw2_cep *cep = siw2_cep_from_id(id);
	struct siw2_mpa_frame rep;
	struct siw2_mpa_conn conn;
	u8 buf[SIW2_MPA_FRAME_MAX];
	struct siw2_qp *qp;
	bool crc;
	int rv, len;

	if (!cep)
		return -EINVAL;
	if (cep->state != SIW2_CEP_REQ_RCVD) {
		rv = -ECONNRESET;
		goto out;
	}
	rv = siw2_check_conn_param(param, cep->req.enhanced);
	qp = rv ? NULL : siw2_qp_lookup(sdev, param->qpn);
	if (!qp) {
		rv = -EINVAL;
		goto refuse;
	}
	rv = siw2_mpa_respond(&cep->req, param->ird, param->ord,
			      siw2_dev_max_ird(), READ_ONCE(mpa_caps),
			      READ_ONCE(rtr_forms), &rep, &conn);
	if (rv)
		goto refuse;
	crc = cep->conn.crc;
	rep.crc = crc;
	rep.pd = param->private_data;
	rep.pd_len = param->private_data_len;
	len = siw2_mpa_encode(&rep, buf, sizeof(buf));
	if (len < 0) {
		rv = -EINVAL;
		goto refuse;
	}
	rv = siw2_qp_attach_cep(qp, cep);
	if (rv)
		goto refuse;
	conn.crc = crc;
	cep->conn = conn;
	siw2_qp_get(qp);
	cep->qp = qp;
	rv = siw2_cep_send(cep, buf, len);
	if (rv) {
		siw2_cep_close(cep, SIW2_CEV_RESET, rv, NULL);
		rv = -ECONNRESET;
		goto out;
	}
	id->add_ref(id);
	cep->cm_id = id;
	if (conn.p2p && conn.rtr) {
		/* MPA2-P2P: nothing is sent before the RTR arrives. */
		siw2_cep_step(cep, SIW2_CEV_ULP_ACCEPT_P2P);
		siw2_cep_kick(cep, SIW2_CEPF_READ);
	} else if (!siw2_cep_rdma_mode(cep, SIW2_CEV_ULP_ACCEPT)) {
		siw2_cep_upcall(cep, IW_CM_EVENT_ESTABLISHED, 0, NULL);
	}
	rv = 0;
	goto out;

refuse:
	/* The ULP's accept cannot be honoured: the peer gets a reject. */
	siw2_cep_send_reject(cep, NULL, 0);
	siw2_cep_close(cep, SIW2_CEV_PROTO, rv, NULL);
out:
	mutex_unlock(&cep->lock);
	siw2_cep_put(cep);
	return rv;
}

/**
 * siw2_iw_reject - reject a connection request (IWCM reject verb)
 * @id: the cm_id the IWCM created for the request
 * @pdata: private data for the Reject Reply
 * @pd_len: its length
 *
 * Return: 0 (also when the peer has gone already), -EINVAL for too much
 * private data or a request not pending.
 */
int siw2_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pd_len)
{
	struct siw2_cep *cep = id->provider_data;
	int rv = 0;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	if (!cep->ulp_ref) {
		mutex_unlock(&cep->lock);
		return -EINVAL;
	}
	if (pd_len > SIW2_PD_WIRE_LINUX -
		     (cep->req.enhanced ? sizeof(struct siw2_mpa_v2) : 0)) {
		mutex_unlock(&cep->lock);
		return -EINVAL;
	}
	cep->ulp_ref = false;
	if (cep->state == SIW2_CEP_REQ_RCVD) {
		siw2_cep_send_reject(cep, pdata, pd_len);
		siw2_cep_step(cep, SIW2_CEV_ULP_REJECT);
		siw2_cep_closed(cep, SIW2_CEP_REQ_RCVD, SIW2_CEV_ULP_REJECT, 0,
				NULL);
	}
	mutex_unlock(&cep->lock);
	siw2_cep_put(cep);
	return rv;
}

/**
 * siw2_iw_create_listen - listen on the cm_id's address (IWCM verb)
 * @id: the listening cm_id; m_local_addr is used
 * @backlog: TCP accept backlog
 *
 * A wildcard address listens on this device's netdev only, so several
 * devices in one namespace can listen on the same port, and only when the
 * device is in the caller's network namespace.
 *
 * Return: 0, -EAFNOSUPPORT, -ENOMEM, or the socket layer's error.
 */
int siw2_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct siw2_device *sdev = to_siw2_dev(id->device);
	struct sockaddr_storage *a = &id->m_local_addr;
	struct siw2_cep *cep;
	struct socket *s;
	bool any;
	int alen, rv;

	alen = siw2_addr_len(a);
	if (alen < 0)
		return alen;
	if (a->ss_family == AF_INET)
		any = ((struct sockaddr_in *)a)->sin_addr.s_addr == INADDR_ANY;
	else
		any = ipv6_addr_any(&((struct sockaddr_in6 *)a)->sin6_addr);
	cep = siw2_cep_alloc(sdev);
	if (!cep)
		return -ENOMEM;
	/*
	 * rdma_cm extends a wildcard listen to every device. Connections
	 * reaching a device in another network namespace are not meant for
	 * the caller, and a socket there would take the port from that
	 * namespace's own listeners: such a listener stays dormant.
	 */
	if (any && !net_eq(dev_net(sdev->netdev), siw2_caller_net())) {
		mutex_lock(&cep->lock);
		cep->laddr = *a;
		id->add_ref(id);
		cep->cm_id = id;
		id->provider_data = cep;
		siw2_cep_step(cep, SIW2_CEV_LISTEN);
		mutex_unlock(&cep->lock);
		return 0;
	}
	rv = siw2_sock_create(sdev, a->ss_family, &s);
	if (rv)
		goto err_cep;
	if (a->ss_family == AF_INET6 && id->afonly)
		ip6_sock_set_v6only(s->sk);
	if (any)
		s->sk->sk_bound_dev_if = sdev->netdev->ifindex;
	rv = kernel_bind(s, (struct sockaddr *)a, alen);
	if (!rv)
		rv = kernel_listen(s, backlog);
	if (rv)
		goto err_sock;

	mutex_lock(&cep->lock);
	cep->laddr = *a;
	id->add_ref(id);
	cep->cm_id = id;
	id->provider_data = cep;
	siw2_cep_step(cep, SIW2_CEV_LISTEN);
	siw2_sk_attach(cep, s, s->sk->sk_data_ready, s->sk->sk_state_change);
	mutex_unlock(&cep->lock);
	/* Connections may have queued before the callbacks were in place. */
	siw2_cep_kick(cep, SIW2_CEPF_READ);
	return 0;

err_sock:
	sock_release(s);
err_cep:
	siw2_cep_put(cep);
	return rv;
}

/**
 * siw2_iw_destroy_listen - stop listening (IWCM verb)
 * @id: the listening cm_id
 *
 * Connections still reading their Request are closed; those handed to
 * the ULP already belong to their own cm_ids.
 *
 * Return: 0, or -EINVAL if @id is not listening.
 */
int siw2_iw_destroy_listen(struct iw_cm_id *id)
{
	struct siw2_cep *cep = id->provider_data;

	if (!cep)
		return -EINVAL;
	mutex_lock(&cep->lock);
	siw2_cep_close(cep, SIW2_CEV_ABORT, 0, NULL);
	mutex_unlock(&cep->lock);
	id->provider_data = NULL;
	/* The listener's own reference, from siw2_cep_alloc(). */
	siw2_cep_put(cep);
	return 0;
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
		2 * msecs_to_jiffies(READ_ONCE(mpa_timeout_ms)) + HZ;
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
