// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: module entry, device lifecycle (rdma link add/delete) and netdev
 * tracking.
 *
 * An out-of-tree driver has no rdma_driver_id of its own, so siw2 never
 * looks devices up through the core by driver id: it keeps its own list.
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/random.h>
#include <net/addrconf.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>
#include <rdma/uverbs_ioctl.h>

#include <uapi/rdma/siw2-abi.h>

#include "siw2.h"
#include "siw2_cm.h"
#include "siw2_fuzz.h"
#include "siw2_trace.h"

MODULE_AUTHOR("The siw2 authors");
MODULE_DESCRIPTION("siw2: software iWARP RDMA device");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(SIW2_VERSION);
MODULE_ALIAS_RDMA_LINK("siw2");

/*
 * siw2_dev_mutex protects siw2_dev_list and the per-device fields marked
 * in struct siw2_device. Lock order: RTNL -> siw2_dev_mutex. Never call
 * into the RDMA core's (un)registration while holding it.
 */
static DEFINE_MUTEX(siw2_dev_mutex);
static LIST_HEAD(siw2_dev_list);
static DEFINE_IDA(siw2_dev_ida);
/* Second octet of the GIDs siw2 generates (siw2_gid_from_netdev()). */
static u8 siw2_gid_salt;

static void siw2_dealloc_driver(struct ib_device *ibdev);

static const struct ib_device_ops siw2_device_ops = {
	.owner = THIS_MODULE,
	.uverbs_abi_ver = SIW2_ABI_VERSION,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.alloc_hw_port_stats = siw2_alloc_hw_port_stats,
	.alloc_mr = siw2_alloc_mr,
	.alloc_mw = siw2_alloc_mw,
	.iw_accept = siw2_iw_accept,
	.iw_add_ref = siw2_iw_add_ref,
	.iw_connect = siw2_iw_connect,
	.iw_create_listen = siw2_iw_create_listen,
	.iw_destroy_listen = siw2_iw_destroy_listen,
	.iw_get_qp = siw2_iw_get_qp,
	.iw_reject = siw2_iw_reject,
	.iw_rem_ref = siw2_iw_rem_ref,
	.alloc_pd = siw2_alloc_pd,
	.alloc_ucontext = siw2_alloc_ucontext,
	.create_cq = siw2_create_cq,
	.create_qp = siw2_create_qp,
	.counter_alloc_stats = siw2_counter_alloc_stats,
	.counter_bind_qp = siw2_counter_bind_qp,
	.counter_dealloc = siw2_counter_dealloc,
	.counter_unbind_qp = siw2_counter_unbind_qp,
	.counter_update_stats = siw2_counter_update_stats,
	.create_srq = siw2_create_srq,
	.dealloc_driver = siw2_dealloc_driver,
	.dealloc_mw = siw2_dealloc_mw,
	.dealloc_pd = siw2_dealloc_pd,
	.dealloc_ucontext = siw2_dealloc_ucontext,
	.dereg_mr = siw2_dereg_mr,
	.destroy_cq = siw2_destroy_cq,
	.destroy_qp = siw2_destroy_qp,
	.destroy_srq = siw2_destroy_srq,
	.disassociate_ucontext = siw2_disassociate_ucontext,
	.fill_res_cq_entry = siw2_fill_res_cq_entry,
	.fill_res_mr_entry = siw2_fill_res_mr_entry,
	.fill_res_qp_entry = siw2_fill_res_qp_entry,
	.get_dev_fw_str = siw2_get_dev_fw_str,
	.get_dma_mr = siw2_get_dma_mr,
	.get_hw_stats = siw2_get_hw_stats,
	.get_link_layer = siw2_get_link_layer,
	.get_port_immutable = siw2_get_port_immutable,
	.map_mr_sg = siw2_map_mr_sg,
	.mmap = siw2_mmap,
	.mmap_free = siw2_mmap_free,
	.modify_qp = siw2_modify_qp,
	.modify_srq = siw2_modify_srq,
	.poll_cq = siw2_poll_cq,
	.post_recv = siw2_post_recv,
	.post_send = siw2_post_send,
	.post_srq_recv = siw2_post_srq_recv,
	.query_device = siw2_query_device,
	.query_gid = siw2_query_gid,
	.query_pkey = siw2_query_pkey,
	.query_port = siw2_query_port,
	.query_qp = siw2_query_qp,
	.query_srq = siw2_query_srq,
	.reg_user_mr = siw2_reg_user_mr,
	.req_notify_cq = siw2_req_notify_cq,
	.resize_cq = siw2_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, siw2_cq, base),
	INIT_RDMA_OBJ_SIZE(ib_mw, siw2_mw, base),
	INIT_RDMA_OBJ_SIZE(ib_pd, siw2_pd, base),
	INIT_RDMA_OBJ_SIZE(ib_qp, siw2_qp, base),
	INIT_RDMA_OBJ_SIZE(ib_srq, siw2_srq, base),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, siw2_ucontext, base),
};

/* An Ethernet-like netdev whose unicast hardware address is the GID. */
static bool siw2_netdev_has_mac(const struct net_device *ndev)
{
	return (ndev->type == ARPHRD_ETHER || ndev->type == ARPHRD_IEEE802) &&
	       ndev->addr_len == ETH_ALEN && is_valid_ether_addr(ndev->dev_addr);
}

/*
 * lo and netdevs without a hardware address (ARPHRD_NONE: tun, WireGuard)
 * qualify with a generated GID where rdma_cm finds an iWARP device by its
 * netdev. Where it compares GIDs with the netdev's address instead, their
 * zero address matches no device, so they are refused.
 */
static bool siw2_netdev_qualified(const struct net_device *ndev)
{
	if (siw2_netdev_has_mac(ndev))
		return true;
	if (!SIW2_CMA_FINDS_IWARP_BY_NETDEV)
		return false;
	switch (ndev->type) {
	case ARPHRD_ETHER:
	case ARPHRD_IEEE802:
	case ARPHRD_LOOPBACK:
	case ARPHRD_NONE:
		return true;
	default:
		return false;
	}
}

static struct siw2_device *siw2_dev_find_locked(const struct net_device *ndev)
{
	struct siw2_device *sdev;

	lockdep_assert_held(&siw2_dev_mutex);

	list_for_each_entry(sdev, &siw2_dev_list, list)
		if (sdev->netdev == ndev)
			return sdev;
	return NULL;
}

/*
 * Releases everything siw2_dev_alloc() set up. The core calls it from
 * ib_dealloc_device(), both after unregistration and when registration
 * never happened.
 */
static void siw2_dealloc_driver(struct ib_device *ibdev)
{
	struct siw2_device *sdev = to_siw2_dev(ibdev);
	int i;

	trace_siw2_dev_del(sdev->dev_id, sdev->netdev->name);
	siw2_cm_dev_drain(sdev);
	siw2_debugfs_del_dev(sdev);
	for (i = 0; i < SIW2_OBJ_NUM; i++)
		WARN_ON_ONCE(atomic_read(&sdev->count[i]));
	WARN_ON_ONCE(!xa_empty(&sdev->qp_xa));
	WARN_ON_ONCE(!xa_empty(&sdev->mr_xa));
	WARN_ON_ONCE(!xa_empty(&sdev->counter_xa));
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->mr_xa);
	xa_destroy(&sdev->counter_xa);
	free_percpu(sdev->stats);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
	ida_free(&siw2_dev_ida, sdev->dev_id);

	mutex_lock(&siw2_dev_mutex);
	list_del_init(&sdev->list);
	mutex_unlock(&siw2_dev_mutex);
	siw2_count_device(-1);
}

static void siw2_unreg_work(struct work_struct *work)
{
	struct siw2_device *sdev =
		container_of(work, struct siw2_device, unreg_work);
	struct ib_device *ibdev = &sdev->ibdev;

	/* The reference taken when queueing keeps *sdev valid until here. */
	ib_unregister_device(ibdev);
	put_device(&ibdev->dev);
}

/* Queue unregistration once; the work may not run under RTNL's holder. */
static void siw2_dev_unregister_async(struct siw2_device *sdev)
{
	lockdep_assert_held(&siw2_dev_mutex);

	if (!sdev->registered || sdev->unreg_queued)
		return;
	sdev->unreg_queued = true;
	get_device(&sdev->ibdev.dev);
	queue_work(siw2_async_wq, &sdev->unreg_work);
}

/*
 * GID[0] is the netdev's MAC. A netdev without one gets a generated GID
 * that never changes while the device lives: a locally administered
 * unicast address whose second octet is drawn once per module load and
 * whose last four are the instance number, so no two siw2 devices of a
 * host share it (the core ignores an all-zero GID, and rdma_cm then finds
 * no device).
 */
static void siw2_gid_from_netdev(struct siw2_device *sdev)
{
	if (siw2_netdev_has_mac(sdev->netdev)) {
		ether_addr_copy(sdev->raw_gid, sdev->netdev->dev_addr);
		sdev->gid_generated = false;
		return;
	}
	if (sdev->gid_generated)
		return;
	sdev->raw_gid[0] = 0x02;
	sdev->raw_gid[1] = siw2_gid_salt;
	put_unaligned_be32(sdev->dev_id, &sdev->raw_gid[2]);
	sdev->gid_generated = true;
}

static struct siw2_device *siw2_dev_alloc(struct net_device *ndev)
{
	static const enum siw2_obj kinds[] = {
		SIW2_OBJ_QP, SIW2_OBJ_CQ, SIW2_OBJ_PD, SIW2_OBJ_MR, SIW2_OBJ_SRQ,
	};
	const unsigned int limits[] = {
		siw2_clamped_max_qp(), siw2_clamped_max_cq(),
		siw2_clamped_max_pd(), siw2_clamped_max_mr(),
		siw2_clamped_max_srq(),
	};
	struct siw2_device *sdev;
	struct ib_device *ibdev;
	int id, i;

	id = ida_alloc(&siw2_dev_ida, GFP_KERNEL);
	if (id < 0)
		return ERR_PTR(id);

	sdev = ib_alloc_device(siw2_device, ibdev);
	if (!sdev) {
		ida_free(&siw2_dev_ida, id);
		return ERR_PTR(-ENOMEM);
	}
	sdev->stats = alloc_percpu(struct siw2_stats);
	if (!sdev->stats) {
		/* No device ops yet: siw2_dealloc_driver() is not called. */
		ib_dealloc_device(&sdev->ibdev);
		ida_free(&siw2_dev_ida, id);
		return ERR_PTR(-ENOMEM);
	}
	ibdev = &sdev->ibdev;
	sdev->dev_id = id;
	sdev->netdev = ndev;
	netdev_hold(ndev, &sdev->netdev_tracker, GFP_KERNEL);
	INIT_LIST_HEAD(&sdev->list);
	INIT_WORK(&sdev->unreg_work, siw2_unreg_work);
	xa_init_flags(&sdev->qp_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->mr_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->counter_xa, XA_FLAGS_ALLOC1);
	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		sdev->limit[kinds[i]] = limits[i];
	sdev->limit[SIW2_OBJ_UCTX] = U32_MAX;
	sdev->limit[SIW2_OBJ_CEP] = SIW2_MAX_CEP;
	siw2_cm_dev_init(sdev);
	siw2_gid_from_netdev(sdev);
	sdev->port_state = siw2_netdev_port_state(ndev);

	ibdev->node_type = RDMA_NODE_RNIC;
	/*
	 * The core leaves the post/poll write commands off by default: most
	 * providers do them in user space. siw2's provider uses them until the
	 * mapped rings exist.
	 */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_SRQ_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_POLL_CQ) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = 1;
	ibdev->iw_driver_flags = IW_F_NO_PORT_MAP;
	addrconf_addr_eui48((u8 *)&ibdev->node_guid, sdev->raw_gid);
	memcpy(ibdev->node_desc, "siw2 software iWARP", 20);
	memcpy(ibdev->iw_ifname, ndev->name, sizeof(ibdev->iw_ifname));
	ibdev->attrs.kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	ib_set_device_ops(ibdev, &siw2_device_ops);
	siw2_count_device(1);
	return sdev;
}

/* rdma link add NAME type siw2 netdev NETDEV */
static int siw2_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct siw2_device *sdev;
	bool gone;
	int rv;

	if (!siw2_netdev_qualified(ndev))
		return -EOPNOTSUPP;

	sdev = siw2_dev_alloc(ndev);
	if (IS_ERR(sdev))
		return PTR_ERR(sdev);

	rv = ib_device_set_netdev(&sdev->ibdev, ndev, 1);
	if (rv)
		goto err_free;

	/* Claim the netdev before registering so duplicates fail fast. */
	mutex_lock(&siw2_dev_mutex);
	if (siw2_dev_find_locked(ndev)) {
		mutex_unlock(&siw2_dev_mutex);
		rv = -EEXIST;
		goto err_free;
	}
	list_add_tail(&sdev->list, &siw2_dev_list);
	mutex_unlock(&siw2_dev_mutex);

	rv = ib_register_device(&sdev->ibdev, ibdev_name, NULL);
	if (rv)
		goto err_free;
	siw2_debugfs_add_dev(sdev);
	siw2_fuzz_add_dev(sdev);
	trace_siw2_dev_add(sdev->dev_id, ndev->name);

	/* A netdev removed while we registered produced no event for us. */
	mutex_lock(&siw2_dev_mutex);
	sdev->registered = true;
	gone = READ_ONCE(ndev->reg_state) != NETREG_REGISTERED;
	if (gone)
		siw2_dev_unregister_async(sdev);
	mutex_unlock(&siw2_dev_mutex);
	return 0;

err_free:
	/* Calls siw2_dealloc_driver(), which also leaves the list. */
	ib_dealloc_device(&sdev->ibdev);
	return rv;
}

static struct rdma_link_ops siw2_link_ops = {
	.type = "siw2",
	.newlink = siw2_newlink,
};

static void siw2_port_event(struct siw2_device *sdev, enum ib_event_type type)
{
	struct ib_event event = {
		.device = &sdev->ibdev,
		.event = type,
		.element.port_num = 1,
	};

	ib_dispatch_event(&event);
}

/* Dispatch PORT_ACTIVE/PORT_ERR once per real change of the port state. */
static void siw2_port_update(struct siw2_device *sdev)
{
	enum ib_port_state state = siw2_netdev_port_state(sdev->netdev);

	if (state == sdev->port_state)
		return;
	trace_siw2_port_state(sdev->dev_id, sdev->port_state, state);
	sdev->port_state = state;
	siw2_port_event(sdev, state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							 IB_EVENT_PORT_ERR);
}

static int siw2_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct siw2_device *sdev;
	u8 gid[ETH_ALEN];

	ASSERT_RTNL();

	mutex_lock(&siw2_dev_mutex);
	sdev = siw2_dev_find_locked(ndev);
	if (!sdev || !sdev->registered)
		goto out;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		siw2_port_update(sdev);
		break;
	case NETDEV_CHANGEADDR:
		memcpy(gid, sdev->raw_gid, ETH_ALEN);
		siw2_gid_from_netdev(sdev);
		if (memcmp(gid, sdev->raw_gid, ETH_ALEN))
			siw2_port_event(sdev, IB_EVENT_GID_CHANGE);
		break;
	case NETDEV_CHANGENAME:
		memcpy(sdev->ibdev.iw_ifname, ndev->name,
		       sizeof(sdev->ibdev.iw_ifname));
		break;
	case NETDEV_UNREGISTER:
		siw2_dev_unregister_async(sdev);
		break;
	default:
		/* NETDEV_CHANGEMTU: query_port reads the MTU live. */
		break;
	}
out:
	mutex_unlock(&siw2_dev_mutex);
	return NOTIFY_OK;
}

static struct notifier_block siw2_netdev_nb = {
	.notifier_call = siw2_netdev_event,
};

/* Synchronously unregister every device still on our list. */
static void siw2_unregister_all(void)
{
	struct siw2_device *sdev;

	for (;;) {
		mutex_lock(&siw2_dev_mutex);
		sdev = list_first_entry_or_null(&siw2_dev_list,
						struct siw2_device, list);
		if (sdev)
			get_device(&sdev->ibdev.dev);
		mutex_unlock(&siw2_dev_mutex);
		if (!sdev)
			break;
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}

static int __init siw2_init(void)
{
	int rv;

	/*
	 * Not WQ_MEM_RECLAIM: unregistration flushes the core's workqueues,
	 * which a reclaim workqueue must not wait on, and it frees memory
	 * only incidentally.
	 */
	siw2_gid_salt = get_random_u8();
	siw2_async_wq = alloc_workqueue("siw2", WQ_UNBOUND, 0);
	if (!siw2_async_wq)
		return -ENOMEM;
	/*
	 * Reclaim-safe: NFS and other storage ULPs run over the data path.
	 * Unbound: the CPU that queued a run is often busy polling the CQ.
	 */
	siw2_dp_wq = alloc_workqueue("siw2_dp", WQ_UNBOUND | WQ_MEM_RECLAIM |
				     WQ_HIGHPRI, 0);
	if (!siw2_dp_wq) {
		rv = -ENOMEM;
		goto err_wq;
	}
	rv = siw2_cm_init();
	if (rv)
		goto err_wq;
	siw2_debugfs_init();

	rv = register_netdevice_notifier(&siw2_netdev_nb);
	if (rv)
		goto err;
	rdma_link_register(&siw2_link_ops);
	return 0;
err:
	siw2_debugfs_exit();
	siw2_cm_exit();
err_wq:
	if (siw2_dp_wq)
		destroy_workqueue(siw2_dp_wq);
	destroy_workqueue(siw2_async_wq);
	return rv;
}

static void __exit siw2_exit(void)
{
	/* No new devices after this; newlink runs under the link ops lock. */
	rdma_link_unregister(&siw2_link_ops);
	unregister_netdevice_notifier(&siw2_netdev_nb);
	siw2_unregister_all();
	/* Fence queued unregistrations before the module text goes away. */
	destroy_workqueue(siw2_async_wq);
	siw2_cm_exit();
	destroy_workqueue(siw2_dp_wq);
	siw2_debugfs_exit();
	ida_destroy(&siw2_dev_ida);
}

module_init(siw2_init);
module_exit(siw2_exit);
