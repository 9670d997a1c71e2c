// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the iw_cm verbs (connect, accept, reject, listen) that start
 * connection endpoints, and the module parameters of the local MPA policy.
 * The endpoints themselves run in siw2_cm.c.
 */

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/nsproxy.h>
#include <linux/tcp.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <rdma/rdma_cm.h>

#include "siw2.h"
#include "siw2_cep.h"
#include "siw2_cm.h"
#include "siw2_mpa.h"
#include "siw2_trace.h"

/* ---- module parameters: the local MPA policy ---- */

unsigned int siw2_mpa_crc = SIW2_CRC_PEER;
unsigned int siw2_mpa_rev = SIW2_MPA_REV2;
bool siw2_peer_to_peer;
unsigned int siw2_rtr_forms = SIW2_RTR_WRITE | SIW2_RTR_READ;
unsigned int siw2_mpa_caps = SIW2_MPA_CAPS;
unsigned int siw2_mpa_timeout_ms = 10000;

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

module_param_cb(mpa_crc, &siw2_crc_ops, &siw2_mpa_crc, 0644);
MODULE_PARM_DESC(mpa_crc,
		 "MPA CRC policy: 0 use CRC if the peer asks (default, as Linux siw), 1 always ask for CRC, 2 never use CRC (refuse peers that ask)");
module_param_cb(mpa_rev, &siw2_rev_ops, &siw2_mpa_rev, 0644);
MODULE_PARM_DESC(mpa_rev,
		 "MPA revision of outgoing Requests: 1 (RFC 5044) or 2 (RFC 6581 enhanced, default); both are accepted");
module_param_named(peer_to_peer, siw2_peer_to_peer, bool, 0644);
MODULE_PARM_DESC(peer_to_peer,
		 "Request peer-to-peer mode (RTR) on outgoing Rev 2 connections (default off)");
module_param_cb(rtr_forms, &siw2_rtr_ops, &siw2_rtr_forms, 0644);
MODULE_PARM_DESC(rtr_forms,
		 "RTR forms offered and accepted: 2 zero-length Write, 4 zero-length Read, 6 both (default)");
module_param_cb(mpa_caps, &siw2_caps_ops, &siw2_mpa_caps, 0644);
MODULE_PARM_DESC(mpa_caps,
		 "Private MPA Rev 2 capability bits advertised: 0x4 RDMAP v2, 0x2 Commit (default 0x6)");
module_param_cb(mpa_timeout_ms, &siw2_timeout_ops, &siw2_mpa_timeout_ms, 0644);
MODULE_PARM_DESC(mpa_timeout_ms,
		 "Limit on each connection setup or close step, in ms (100..600000, default 10000)");

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

/* The port field of an AF_INET/AF_INET6 address (siw2_addr_len() checked). */
static __be16 *siw2_addr_port(struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return &((struct sockaddr_in *)a)->sin_port;
	return &((struct sockaddr_in6 *)a)->sin6_port;
}

/*
 * rdma_cm picks a connection's port in its own port space, blind to TCP:
 * a plain TCP socket may hold the same port (one in TIME_WAIT that had no
 * SO_REUSEADDR, say).  The wire port is then the kernel's choice, as an
 * iWARP port mapper would make it: the IWCM keeps the ULP's address in
 * local_addr and takes the wire address from CONNECT_REPLY (m_local_addr).
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

/*
 * The namespace of the rdma_cm id behind a listening iw_cm_id: rdma_cm
 * (cma_iw_listen) passes its rdma_id_private, which begins with the
 * rdma_cm_id, as context. When rdma_cm extends a wildcard listen to a new
 * device (cma_add_one), the caller is whoever registers the device, so
 * the caller's namespace would be wrong. rdma_cm is the only user of
 * iw_cm in the kernel; the source address it copied into the iw_cm_id
 * confirms the context is its id before the namespace is trusted.
 */
static struct net *siw2_listener_net(struct iw_cm_id *id, int alen)
{
	struct rdma_cm_id *rid = id->context;

	if (rid && rid->route.addr.dev_addr.net &&
	    !memcmp(&rid->route.addr.src_addr, &id->local_addr, alen))
		return rid->route.addr.dev_addr.net;
	return siw2_caller_net();
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
	u8 rev = READ_ONCE(siw2_mpa_rev);

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
	rv = siw2_bind_active(cep, s, &id->m_local_addr, alen);
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
	req->crc = READ_ONCE(siw2_mpa_crc) == SIW2_CRC_REQUIRED;
	if (rev == SIW2_MPA_REV2) {
		req->enhanced = true;
		req->caps = READ_ONCE(siw2_mpa_caps);
		req->p2p = READ_ONCE(siw2_peer_to_peer);
		req->rtr = req->p2p ? READ_ONCE(siw2_rtr_forms) : 0;
	}
	/* Rev 1 carries no IRD/ORD: the ULP's values then stand. */
	req->ird = param->ird;
	req->ord = param->ord;
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
			      siw2_dev_max_ird(), READ_ONCE(siw2_mpa_caps),
			      READ_ONCE(siw2_rtr_forms), &rep, &conn);
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
	if (any && !net_eq(dev_net(sdev->netdev), siw2_listener_net(id, alen))) {
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
