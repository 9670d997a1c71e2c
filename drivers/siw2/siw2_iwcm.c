// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: the iw_cm verbs (connect, accept, reject, listen). Each verb
 * turns the IWCM's arguments and the local MPA policy (module parameters,
 * siw2_params.h) into one call of the connection manager (siw2_cm.h),
 * which runs the endpoints; an endpoint is opaque here.
 */

#include <linux/kernel.h>
#include <linux/nsproxy.h>
#include <net/net_namespace.h>
#include <rdma/rdma_cm.h>

#include "siw2.h"
#include "siw2_cm.h"
#include "siw2_mpa.h"

/* ---- iw_cm verbs ---- */

/**
 * siw2_caller_net - the network namespace of the task calling the IWCM
 *
 * Return: the namespace, or init_net for a task without one.
 */
static struct net *siw2_caller_net(void)
{
	return current->nsproxy ? current->nsproxy->net_ns : &init_net;
}

/**
 * siw2_listener_net - the network namespace a listening ULP lives in
 * @id: the listening cm_id
 * @alen: length of its address
 *
 * The namespace of the rdma_cm id behind a listening iw_cm_id: rdma_cm
 * (cma_iw_listen) passes its rdma_id_private, which begins with the
 * rdma_cm_id, as context. When rdma_cm extends a wildcard listen to a new
 * device (cma_add_one), the caller is whoever registers the device, so
 * the caller's namespace would be wrong. rdma_cm is the only user of
 * iw_cm in the kernel; the source address it copied into the iw_cm_id
 * confirms the context is its id before the namespace is trusted.
 *
 * Return: the rdma_cm id's namespace, else the caller's.
 */
static struct net *siw2_listener_net(struct iw_cm_id *id, int alen)
{
	struct rdma_cm_id *rid = id->context;

	if (rid && rid->route.addr.dev_addr.net &&
	    !memcmp(&rid->route.addr.src_addr, &id->local_addr, alen))
		return rid->route.addr.dev_addr.net;
	return siw2_caller_net();
}

/**
 * siw2_iw_offer - what a Request and a Reply take from the IWCM and policy
 * @param: the ULP's QP, IRD/ORD and private data
 * @offer: filled in: those, the capability bits advertised and the RTR
 *	forms offered or accepted (module parameters)
 */
static void siw2_iw_offer(const struct iw_cm_conn_param *param,
			  struct siw2_cm_offer *offer)
{
	*offer = (struct siw2_cm_offer) {
		.qpn = param->qpn,
		.ird = param->ird,
		.ord = param->ord,
		.pd = param->private_data,
		.pd_len = param->private_data_len,
		.caps = READ_ONCE(siw2_mpa_caps),
		.rtr_forms = READ_ONCE(siw2_rtr_forms),
	};
}

/**
 * siw2_iw_connect - start an active connection (IWCM connect verb)
 * @id: the connecting cm_id; m_local_addr and m_remote_addr are used
 * @param: private data, IRD/ORD and the QP number
 *
 * The Request follows the module parameters: revision, CRC, and for Rev 2
 * peer-to-peer mode with its RTR forms and the capability bits.
 * Returns once the TCP handshake is under way; the outcome arrives as one
 * IW_CM_EVENT_CONNECT_REPLY.
 *
 * Return: 0, -EINVAL for a bad QP, private data or IRD/ORD, -EAFNOSUPPORT,
 * -ENOMEM, or the socket layer's error for bind or connect.
 */
int siw2_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param)
{
	struct siw2_cm_offer offer;

	siw2_iw_offer(param, &offer);
	offer.rev = READ_ONCE(siw2_mpa_rev);
	offer.crc = READ_ONCE(siw2_mpa_crc) == SIW2_CRC_REQUIRED;
	offer.p2p = READ_ONCE(siw2_peer_to_peer);
	return siw2_cm_connect(id, &id->m_local_addr, &id->m_remote_addr,
			       id->afonly, &offer);
}

/**
 * siw2_iw_accept - accept a connection request (IWCM accept verb)
 * @id: the cm_id the IWCM created for the request; its provider_data is
 *	the endpoint that reported the request
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
	struct siw2_cm_offer offer;

	siw2_iw_offer(param, &offer);
	return siw2_cm_accept(id->provider_data, id, &offer);
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
	return siw2_cm_reject(id->provider_data, pdata, pd_len);
}

/**
 * siw2_iw_create_listen - listen on the cm_id's address (IWCM verb)
 * @id: the listening cm_id; m_local_addr is used
 * @backlog: TCP accept backlog
 *
 * A wildcard address listens on this device's netdev only, so several
 * devices in one namespace can listen on the same port, and only when the
 * device is in the listening ULP's network namespace; a loopback address
 * only on a device on the loopback netdev, in that namespace.
 *
 * Return: 0, -EAFNOSUPPORT, -ENOMEM, or the socket layer's error.
 */
int siw2_iw_create_listen(struct iw_cm_id *id, int backlog)
{
	struct siw2_device *sdev = to_siw2_dev(id->device);
	struct sockaddr_storage *a = &id->m_local_addr;
	struct siw2_cep *cep;
	bool dormant = false;
	int alen;

	alen = siw2_cm_addr_len(a);
	if (alen < 0)
		return alen;
	/*
	 * rdma_cm extends a wildcard or loopback listen to every device.
	 * Connections reaching a device in another network namespace are
	 * not meant for the caller, and a socket there would take the port
	 * from that namespace's own listeners: such a listener stays dormant.
	 * rdma_cm gives a connection to a loopback address to the device on
	 * the loopback netdev only (cma_validate_port() matches the address's
	 * netdev); the other devices' sockets would only take its port.
	 */
	if (siw2_cm_addr_any(a) || siw2_cm_addr_loopback(a))
		dormant = !net_eq(dev_net(sdev->netdev),
				  siw2_listener_net(id, alen));
	if (siw2_cm_addr_loopback(a) && !(sdev->netdev->flags & IFF_LOOPBACK))
		dormant = true;
	cep = siw2_cm_listen(id, a, id->afonly, backlog, dormant);
	if (IS_ERR(cep))
		return PTR_ERR(cep);
	id->provider_data = cep;
	return 0;
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
	siw2_cm_unlisten(cep);
	id->provider_data = NULL;
	return 0;
}
