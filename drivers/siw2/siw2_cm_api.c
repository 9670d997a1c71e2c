// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the connection manager's calls for the iw_cm glue (siw2_iwcm.c),
 * one per iw_cm verb: connect, accept, reject, listen, unlisten. Each
 * checks what the ULP offers, creates or answers an endpoint under its
 * lock and takes the first step; from then on the endpoint's work in
 * siw2_cm.c drives it, through the steps siw2_cep.h shares.
 *
 * The IWCM rules of siw2_cm.c hold here too: a call that fails reports
 * no event; a call that succeeds leaves exactly the events the IWCM
 * expects to the endpoint.
 */

#include <linux/err.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "siw2.h"
#include "siw2_cep.h"
#include "siw2_cm.h"
#include "siw2_cm_fsm.h"
#include "siw2_mpa.h"
#include "siw2_trace.h"

/**
 * siw2_cm_addr_len - length of a socket address the CM can use
 * @a: address
 *
 * Return: the length of an AF_INET or AF_INET6 address, else -EAFNOSUPPORT.
 */
int siw2_cm_addr_len(const struct sockaddr_storage *a)
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

/**
 * siw2_cm_addr_any - is an address the wildcard of its family
 * @a: an AF_INET or AF_INET6 address (siw2_cm_addr_len() checked)
 *
 * Return: true for INADDR_ANY and in6addr_any.
 */
bool siw2_cm_addr_any(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((struct sockaddr_in *)a)->sin_addr.s_addr == htonl(INADDR_ANY);
	return ipv6_addr_any(&((struct sockaddr_in6 *)a)->sin6_addr);
}

/**
 * siw2_cm_addr_loopback - is an address a loopback address of its family
 * @a: an AF_INET or AF_INET6 address (siw2_cm_addr_len() checked)
 *
 * rdma_cm binds no device for these (cma_any_addr()) and extends their
 * listens to every device, as for the wildcard.
 *
 * Return: true for 127.0.0.0/8 and ::1.
 */
bool siw2_cm_addr_loopback(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ipv4_is_loopback(((struct sockaddr_in *)a)->sin_addr.s_addr);
	return ipv6_addr_loopback(&((struct sockaddr_in6 *)a)->sin6_addr);
}

/**
 * siw2_addr_port - where an address keeps its port
 * @a: an AF_INET or AF_INET6 address (siw2_cm_addr_len() checked)
 *
 * Return: the port field, in network order.
 */
static __be16 *siw2_addr_port(struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return &((struct sockaddr_in *)a)->sin_port;
	return &((struct sockaddr_in6 *)a)->sin6_port;
}

/**
 * siw2_bind_active - bind an active socket, to another port if need be
 * @cep: endpoint, for the trace
 * @s: the socket
 * @laddr: the local address the IWCM asks for
 * @alen: its length
 *
 * rdma_cm picks a connection's port in its own port space, blind to TCP:
 * a plain TCP socket may hold the same port (one in TIME_WAIT that had no
 * SO_REUSEADDR, say).  The wire port is then the kernel's choice, as an
 * iWARP port mapper would make it: the IWCM keeps the ULP's address in
 * local_addr and takes the wire address from CONNECT_REPLY (m_local_addr).
 *
 * Return: 0 or kernel_bind()'s error.
 */
static int siw2_bind_active(struct siw2_cep *cep, struct socket *s,
			    const struct sockaddr_storage *laddr, int alen)
{
	struct sockaddr_storage a = *laddr;
	__be16 *port = siw2_addr_port(&a);
	int rv;

	rv = kernel_bind(s, (struct sockaddr *)&a, alen);
	if (rv != -EADDRINUSE || !*port)
		return rv;
	trace_siw2_cep_port_busy(cep->id, be16_to_cpu(*port));
	*port = 0;
	return kernel_bind(s, (struct sockaddr *)&a, alen);
}

/**
 * siw2_sock_create - a TCP socket for an endpoint
 * @sdev: device; the socket lives in its netdev's namespace, whoever the
 *	caller is
 * @family: AF_INET or AF_INET6
 * @v6only: an AF_INET6 socket carries IPv6 only
 * @s: the socket, on success
 *
 * Return: 0 or the socket layer's error.
 */
static int siw2_sock_create(struct siw2_device *sdev, int family,
			    bool v6only, struct socket **s)
{
	int rv = __sock_create(dev_net(sdev->netdev), family, SOCK_STREAM,
			       IPPROTO_TCP, s, 0);

	if (rv)
		return rv;
	/* Ports held in TIME_WAIT must not block the next connection. */
	sock_set_reuseaddr((*s)->sk);
	if (family == AF_INET6 && v6only)
		ip6_sock_set_v6only((*s)->sk);
	return 0;
}

/**
 * siw2_qp_lookup - the device's QP with a number
 * @sdev: device
 * @qpn: QP number from the ULP
 *
 * Return: the QP (no reference taken), or NULL.
 */
static struct siw2_qp *siw2_qp_lookup(struct siw2_device *sdev, u32 qpn)
{
	struct ib_qp *ibqp = siw2_iw_get_qp(&sdev->ibdev, qpn);

	return ibqp ? to_siw2_qp(ibqp) : NULL;
}

/**
 * siw2_cm_check_offer - can the ULP's part go into a Request or Reply
 * @o: the offer
 * @enhanced: the frame carries the 4 enhanced octets (Rev 2)
 *
 * Private data must fit what the IWCM and Linux siw take; IRD/ORD must be
 * within the device's limits.
 *
 * Return: 0 or -EINVAL.
 */
static int siw2_cm_check_offer(const struct siw2_cm_offer *o, bool enhanced)
{
	if (o->pd_len > SIW2_PD_WIRE_LINUX -
			(enhanced ? sizeof(struct siw2_mpa_v2) : 0) ||
	    o->pd_len > SIW2_PD_ULP_RCV_MAX)
		return -EINVAL;
	if (o->pd_len && !o->pd)
		return -EINVAL;
	if (o->ird > SIW2_MAX_IRD || o->ord > SIW2_MAX_ORD)
		return -EINVAL;
	return 0;
}

/**
 * siw2_cep_set_cm_id - from now on the endpoint's events go to @id
 * @cep: endpoint, locked, without a cm_id
 * @id: the cm_id; referenced until siw2_cep_drop_cm_id()
 */
static void siw2_cep_set_cm_id(struct siw2_cep *cep, struct iw_cm_id *id)
{
	id->add_ref(id);
	cep->cm_id = id;
}

/**
 * siw2_cep_bind_qp - bind an endpoint and a QP to each other
 * @cep: endpoint, locked, without a QP
 * @qp: the QP; each side takes a reference on the other
 *
 * Return: 0, or siw2_qp_attach_cep()'s -EINVAL (QP busy or not Idle).
 */
static int siw2_cep_bind_qp(struct siw2_cep *cep, struct siw2_qp *qp)
{
	int rv = siw2_qp_attach_cep(qp, cep);

	if (rv)
		return rv;
	siw2_qp_get(qp);
	cep->qp = qp;
	return 0;
}

/**
 * siw2_cep_build_request - encode the active side's MPA Request
 * @cep: endpoint, locked; the Request goes to @cep->req and @cep->fr->req
 * @o: the offer (siw2_cm_check_offer() passed)
 *
 * Built at once, so the ULP's private data need not be kept. Only Rev 2
 * carries capabilities, peer-to-peer mode and the RTR forms; Rev 1 has no
 * IRD/ORD on the wire, so the ULP's values then stand.
 *
 * Return: 0 or siw2_mpa_encode()'s error.
 */
static int siw2_cep_build_request(struct siw2_cep *cep,
				  const struct siw2_cm_offer *o)
{
	struct siw2_mpa_frame *req = &cep->req;
	int len;

	req->kind = SIW2_MPA_REQUEST;
	req->rev = o->rev;
	req->crc = o->crc;
	if (o->rev == SIW2_MPA_REV2) {
		req->enhanced = true;
		req->caps = o->caps;
		req->p2p = o->p2p;
		req->rtr = o->p2p ? o->rtr_forms : 0;
	}
	req->ird = o->ird;
	req->ord = o->ord;
	req->pd = o->pd;
	req->pd_len = o->pd_len;
	len = siw2_mpa_encode(req, cep->fr->req, sizeof(cep->fr->req));
	req->pd = NULL;
	if (len < 0)
		return len;
	cep->crc_sent = req->crc;
	return 0;
}

/**
 * siw2_cm_connect - start an active connection
 * @id: the cm_id to report to
 * @laddr: local address; a port that TCP finds busy is left to the kernel
 * @raddr: the peer's address, of the same family
 * @v6only: an AF_INET6 socket carries IPv6 only
 * @offer: the QP and this side's Request
 *
 * Returns once the TCP handshake is under way; the outcome arrives as one
 * IW_CM_EVENT_CONNECT_REPLY. A failed call reports no event.
 *
 * Return: 0, -EINVAL for a bad QP, private data or IRD/ORD, -EAFNOSUPPORT,
 * -ENOMEM, or the socket layer's error for bind or connect.
 */
int siw2_cm_connect(struct iw_cm_id *id, const struct sockaddr_storage *laddr,
		    const struct sockaddr_storage *raddr, bool v6only,
		    const struct siw2_cm_offer *offer)
{
	struct siw2_device *sdev = to_siw2_dev(id->device);
	struct siw2_cep *cep;
	struct siw2_qp *qp;
	struct socket *s;
	int alen, rv;

	alen = siw2_cm_addr_len(laddr);
	if (alen < 0 || raddr->ss_family != laddr->ss_family)
		return -EAFNOSUPPORT;
	rv = siw2_cm_check_offer(offer, offer->rev == SIW2_MPA_REV2);
	if (rv)
		return rv;
	qp = siw2_qp_lookup(sdev, offer->qpn);
	if (!qp)
		return -EINVAL;

	cep = siw2_cep_alloc(sdev, true);
	if (!cep)
		return -ENOMEM;
	rv = siw2_sock_create(sdev, laddr->ss_family, v6only, &s);
	if (rv)
		goto err_cep;
	tcp_sock_set_nodelay(s->sk);
	rv = siw2_bind_active(cep, s, laddr, alen);
	if (rv)
		goto err_sock;

	mutex_lock(&cep->lock);
	cep->active = true;
	cep->laddr = *laddr;
	cep->raddr = *raddr;
	rv = siw2_cep_build_request(cep, offer);
	if (rv)
		goto err_unlock;
	rv = siw2_cep_bind_qp(cep, qp);
	if (rv)
		goto err_unlock;
	siw2_cep_set_cm_id(cep, id);
	siw2_cep_step(cep, SIW2_CEV_CONNECT);
	siw2_sk_attach(cep, s, s->sk->sk_data_ready, s->sk->sk_state_change);

	rv = kernel_connect(s, (struct sockaddr *)&cep->raddr, alen,
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
	siw2_cep_kick(cep, SIW2_CEPI_STATE);
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

/**
 * siw2_cep_lock_request - lock an endpoint whose request awaits the ULP
 * @cep: the endpoint given to the IWCM with a CONNECT_REQUEST, or NULL
 *
 * Return: true with @cep locked if the IWCM still holds it (neither
 * accepted nor rejected yet); else false, unlocked.
 */
static bool siw2_cep_lock_request(struct siw2_cep *cep)
{
	if (!cep)
		return false;
	mutex_lock(&cep->lock);
	if (!cep->ulp_ref) {
		mutex_unlock(&cep->lock);
		return false;
	}
	return true;
}

/**
 * siw2_cm_accept - accept the connection request an endpoint reported
 * @cep: the endpoint given to the IWCM with the request, or NULL
 * @id: the cm_id to report to from now on
 * @offer: the QP and this side's part of the Reply
 *
 * Sends the MPA Reply. Without peer-to-peer the connection is established
 * at once; with it, once the RTR has arrived (IW_CM_EVENT_ESTABLISHED).
 * An offer that cannot be honoured gets the peer a Reject Reply. The
 * reference the IWCM held on @cep is gone when this returns.
 *
 * Return: 0, -EINVAL for no pending request, a bad QP, private data or
 * IRD/ORD, -ECONNRESET if the connection is gone, -ENOMEM when the peer's
 * ORD exceeds this device's IRD (MPA2-IRD-5).
 */
int siw2_cm_accept(struct siw2_cep *cep, struct iw_cm_id *id,
		   const struct siw2_cm_offer *offer)
{
	struct siw2_mpa_frame rep;
	struct siw2_mpa_conn conn;
	u8 buf[SIW2_MPA_FRAME_MAX];
	struct siw2_qp *qp;
	bool crc;
	int rv, len;

	if (!siw2_cep_lock_request(cep))
		return -EINVAL;
	cep->ulp_ref = false;
	if (cep->state != SIW2_CEP_REQ_RCVD) {
		rv = -ECONNRESET;
		goto out;
	}
	rv = siw2_cm_check_offer(offer, cep->req.enhanced);
	qp = rv ? NULL : siw2_qp_lookup(cep->sdev, offer->qpn);
	if (!qp) {
		rv = -EINVAL;
		goto refuse;
	}
	rv = siw2_mpa_respond(&cep->req, offer->ird, offer->ord,
			      siw2_dev_max_ird(), offer->caps,
			      offer->rtr_forms, &rep, &conn);
	if (rv)
		goto refuse;
	crc = cep->conn.crc;
	rep.crc = crc;
	rep.pd = offer->pd;
	rep.pd_len = offer->pd_len;
	len = siw2_mpa_encode(&rep, buf, sizeof(buf));
	if (len < 0) {
		rv = -EINVAL;
		goto refuse;
	}
	rv = siw2_cep_bind_qp(cep, qp);
	if (rv)
		goto refuse;
	conn.crc = crc;
	cep->conn = conn;
	rv = siw2_cep_send(cep, buf, len);
	if (rv) {
		siw2_cep_close(cep, SIW2_CEV_RESET, rv, NULL);
		rv = -ECONNRESET;
		goto out;
	}
	siw2_cep_set_cm_id(cep, id);
	if (conn.p2p && conn.rtr) {
		/* MPA2-P2P: nothing is sent before the RTR arrives. */
		siw2_cep_step(cep, SIW2_CEV_ULP_ACCEPT_P2P);
		siw2_cep_kick(cep, SIW2_CEPI_READ);
	} else {
		siw2_cep_established(cep, SIW2_CEV_ULP_ACCEPT,
				     IW_CM_EVENT_ESTABLISHED, NULL);
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
 * siw2_cm_reject - reject the connection request an endpoint reported
 * @cep: the endpoint given to the IWCM with the request, or NULL
 * @pd: private data for the Reject Reply
 * @pd_len: its length
 *
 * The reference the IWCM held on @cep is gone when this succeeds.
 *
 * Return: 0 (also when the peer has gone already), -EINVAL for too much
 * private data or a request not pending.
 */
int siw2_cm_reject(struct siw2_cep *cep, const void *pd, u8 pd_len)
{
	if (!siw2_cep_lock_request(cep))
		return -EINVAL;
	if (pd_len > SIW2_PD_WIRE_LINUX -
		     (cep->req.enhanced ? sizeof(struct siw2_mpa_v2) : 0)) {
		mutex_unlock(&cep->lock);
		return -EINVAL;
	}
	cep->ulp_ref = false;
	if (cep->state == SIW2_CEP_REQ_RCVD) {
		siw2_cep_send_reject(cep, pd, pd_len);
		siw2_cep_step(cep, SIW2_CEV_ULP_REJECT);
		siw2_cep_closed(cep, SIW2_CEP_REQ_RCVD, SIW2_CEV_ULP_REJECT, 0,
				NULL);
	}
	mutex_unlock(&cep->lock);
	siw2_cep_put(cep);
	return 0;
}

/**
 * siw2_cep_listening - a new endpoint starts listening
 * @cep: endpoint, locked, in IDLE
 * @id: the listening cm_id
 * @addr: the address listened on
 */
static void siw2_cep_listening(struct siw2_cep *cep, struct iw_cm_id *id,
			       const struct sockaddr_storage *addr)
{
	cep->laddr = *addr;
	siw2_cep_set_cm_id(cep, id);
	siw2_cep_step(cep, SIW2_CEV_LISTEN);
}

/**
 * siw2_cm_listen - listen for connections on behalf of a cm_id
 * @id: the cm_id that gets a CONNECT_REQUEST for each MPA Request
 * @addr: local address; a wildcard listens on this device's netdev only
 * @v6only: an AF_INET6 socket carries IPv6 only
 * @backlog: TCP accept backlog
 * @dormant: listen without a socket: no connection ever arrives
 *
 * Return: the listener, with the reference that siw2_cm_unlisten() drops,
 * or an ERR_PTR(): -EAFNOSUPPORT, -ENOMEM, or the socket layer's error.
 */
struct siw2_cep *siw2_cm_listen(struct iw_cm_id *id,
				const struct sockaddr_storage *addr,
				bool v6only, int backlog, bool dormant)
{
	struct siw2_device *sdev = to_siw2_dev(id->device);
	struct siw2_cep *cep;
	struct socket *s;
	int alen, rv;

	alen = siw2_cm_addr_len(addr);
	if (alen < 0)
		return ERR_PTR(alen);
	cep = siw2_cep_alloc(sdev, false);
	if (!cep)
		return ERR_PTR(-ENOMEM);
	if (dormant) {
		mutex_lock(&cep->lock);
		siw2_cep_listening(cep, id, addr);
		mutex_unlock(&cep->lock);
		return cep;
	}
	rv = siw2_sock_create(sdev, addr->ss_family, v6only, &s);
	if (rv)
		goto err_cep;
	if (siw2_cm_addr_any(addr))
		s->sk->sk_bound_dev_if = sdev->netdev->ifindex;
	rv = kernel_bind(s, (struct sockaddr *)addr, alen);
	if (!rv)
		rv = kernel_listen(s, backlog);
	if (rv)
		goto err_sock;

	mutex_lock(&cep->lock);
	siw2_cep_listening(cep, id, addr);
	siw2_sk_attach(cep, s, s->sk->sk_data_ready, s->sk->sk_state_change);
	mutex_unlock(&cep->lock);
	/* Connections may have queued before the callbacks were in place. */
	siw2_cep_kick(cep, SIW2_CEPI_READ);
	return cep;

err_sock:
	sock_release(s);
err_cep:
	siw2_cep_put(cep);
	return ERR_PTR(rv);
}

/**
 * siw2_cm_unlisten - stop listening and drop the listener
 * @listener: what siw2_cm_listen() returned
 *
 * Connections still reading their Request are closed; those handed to
 * the ULP already belong to their own cm_ids.
 */
void siw2_cm_unlisten(struct siw2_cep *listener)
{
	mutex_lock(&listener->lock);
	siw2_cep_close(listener, SIW2_CEV_ABORT, 0, NULL);
	mutex_unlock(&listener->lock);
	/* The listener's own reference, from siw2_cep_alloc(). */
	siw2_cep_put(listener);
}
