// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: device, port, user context and protection domain verbs.
 */

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include <uapi/rdma/siw2-abi.h>

#include "siw2.h"
#include "siw2_pmem.h"

/**
 * siw2_query_device - report device attributes and limits
 * @ibdev: device
 * @attr: filled in
 * @udata: must carry no input
 *
 * Return: 0 or -EINVAL for unexpected user input.
 */
int siw2_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		      struct ib_udata *udata)
{
	struct siw2_device *sdev = to_siw2_dev(ibdev);

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = ((u64)SIW2_VERSION_MAJOR << 32) |
		       (SIW2_VERSION_MINOR << 16) | SIW2_VERSION_PATCH;
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = SIW2_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = SIW2_VENDOR_ID;
	attr->vendor_part_id = SIW2_VENDOR_PART_ID;
	attr->max_qp = sdev->limit[SIW2_OBJ_QP];
	attr->max_qp_wr = SIW2_MAX_QP_WR;
	/*
	 * iWARP devices must offer the memory management extensions. Atomic
	 * Write is a CmpSwap that always matches (DEC-17). An RDMA Commit
	 * writes back the CPU caches of a durable MR's range (DEC-14), and
	 * makes any other range globally visible: FLUSH_PERSISTENT only
	 * where the kernel can write back (siw2_flush_caps()). Memory
	 * windows are type 2A: bound by a send queue work request,
	 * associated with the PD (not one QP).
	 */
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS |
				 IB_DEVICE_MEM_WINDOW |
				 IB_DEVICE_MEM_WINDOW_TYPE_2A |
				 IB_DEVICE_ATOMIC_WRITE |
				 siw2_flush_caps();
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = SIW2_MAX_SGE;
	attr->max_recv_sge = SIW2_MAX_SGE;
	attr->max_sge_rd = SIW2_MAX_SGE_RD;
	attr->max_cq = sdev->limit[SIW2_OBJ_CQ];
	attr->max_cqe = SIW2_MAX_CQE;
	attr->max_mr = sdev->limit[SIW2_OBJ_MR];
	/* A window takes an STag table entry, as a region does. */
	attr->max_mw = sdev->limit[SIW2_OBJ_MR];
	attr->max_pd = sdev->limit[SIW2_OBJ_PD];
	attr->max_qp_rd_atom = SIW2_MAX_IRD;
	attr->max_qp_init_rd_atom = SIW2_MAX_ORD;
	attr->max_res_rd_atom = sdev->limit[SIW2_OBJ_QP] * SIW2_MAX_IRD;
	/*
	 * RFC 7306 atomics run as CPU atomics on the target page, so they are
	 * atomic against the CPUs too (siw2_atomic.c), on connections to a
	 * peer that takes them (siw2_conn_ext()).
	 */
	attr->atomic_cap = IB_ATOMIC_GLOB;
	attr->masked_atomic_cap = IB_ATOMIC_GLOB;
	attr->max_srq = sdev->limit[SIW2_OBJ_SRQ];
	attr->max_srq_wr = SIW2_MAX_SRQ_WR;
	attr->max_srq_sge = SIW2_MAX_SRQ_SGE;
	attr->max_fast_reg_page_list_len = SIW2_MAX_FRMR_PAGES;
	attr->max_pkeys = 1;
	return 0;
}

/**
 * siw2_netdev_port_state - the port state a netdev implies
 * @ndev: netdev
 *
 * Return: IB_PORT_ACTIVE when the netdev is up with carrier, else IB_PORT_DOWN.
 */
enum ib_port_state siw2_netdev_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/* IB width/speed pairs approximating Ethernet rates, slowest first. */
static const struct {
	u32 mbps;
	u8 width;
	u16 speed;
} siw2_rates[] = {
	{ SPEED_1000, IB_WIDTH_1X, IB_SPEED_SDR },
	{ SPEED_10000, IB_WIDTH_1X, IB_SPEED_FDR10 },
	{ SPEED_25000, IB_WIDTH_1X, IB_SPEED_EDR },
	{ SPEED_40000, IB_WIDTH_4X, IB_SPEED_FDR10 },
	{ SPEED_100000, IB_WIDTH_4X, IB_SPEED_EDR },
	{ SPEED_200000, IB_WIDTH_4X, IB_SPEED_HDR },
	{ U32_MAX, IB_WIDTH_4X, IB_SPEED_NDR },
};

/*
 * Like ib_get_eth_speed(), but silent: virtual netdevs (dummy, veth)
 * often report no speed, and any user can query the port.
 */
static void siw2_port_rate(struct net_device *ndev, struct ib_port_attr *attr)
{
	struct ethtool_link_ksettings lks = {};
	u32 mbps = SPEED_1000;
	int i;

	rtnl_lock();
	if (READ_ONCE(ndev->reg_state) == NETREG_REGISTERED &&
	    !__ethtool_get_link_ksettings(ndev, &lks) &&
	    lks.base.speed != (u32)SPEED_UNKNOWN && lks.base.speed)
		mbps = lks.base.speed;
	rtnl_unlock();

	for (i = 0; mbps > siw2_rates[i].mbps; i++)
		;
	attr->active_width = siw2_rates[i].width;
	attr->active_speed = siw2_rates[i].speed;
}

/**
 * siw2_query_port - report port attributes, read live from the netdev
 * @ibdev: device
 * @port: port number (always 1)
 * @attr: filled in
 *
 * Return: 0
 */
int siw2_query_port(struct ib_device *ibdev, u32 port,
		    struct ib_port_attr *attr)
{
	struct net_device *ndev = to_siw2_dev(ibdev)->netdev;

	/* The core zeroes *attr. */
	siw2_port_rate(ndev, attr);
	attr->state = siw2_netdev_port_state(ndev);
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
				   IB_PORT_PHYS_STATE_LINK_UP :
				   IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(ndev->mtu));
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	attr->max_msg_sz = SIW2_MAX_MSG_SIZE;
	return 0;
}

/**
 * siw2_get_port_immutable - the port's fixed properties: iWARP, 1 GID
 * @ibdev: device
 * @port: port number
 * @immutable: filled in
 *
 * Return: 0
 */
int siw2_get_port_immutable(struct ib_device *ibdev, u32 port,
			    struct ib_port_immutable *immutable)
{
	immutable->gid_tbl_len = 1;
	immutable->pkey_tbl_len = 1;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/**
 * siw2_query_gid - GID 0 is the netdev MAC, zero padded
 * @ibdev: device
 * @port: port number
 * @index: GID index, only 0 exists
 * @gid: filled in
 *
 * Return: 0 or -EINVAL for another index.
 */
int siw2_query_gid(struct ib_device *ibdev, u32 port, int index,
		   union ib_gid *gid)
{
	struct siw2_device *sdev = to_siw2_dev(ibdev);

	if (index)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, sdev->raw_gid, ETH_ALEN);
	return 0;
}

/**
 * siw2_query_pkey - the single default P_Key
 * @ibdev: device
 * @port: port number
 * @index: P_Key index, only 0 exists
 * @pkey: filled in
 *
 * Return: 0 or -EINVAL for another index.
 */
int siw2_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

/**
 * siw2_get_link_layer - iWARP runs over Ethernet
 * @ibdev: device
 * @port: port number
 *
 * Return: IB_LINK_LAYER_ETHERNET
 */
enum rdma_link_layer siw2_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

/**
 * siw2_get_dev_fw_str - firmware version, carrying the provider's match marker
 * @ibdev: device
 * @str: IB_FW_VERSION_NAME_MAX bytes
 */
void siw2_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, SIW2_FW_VER_MARKER "%u.%u.%u",
		 SIW2_VERSION_MAJOR, SIW2_VERSION_MINOR, SIW2_VERSION_PATCH);
}

/**
 * siw2_alloc_ucontext - open the device from user space
 * @uctx: core-allocated context
 * @udata: response: struct siw2_uresp_alloc_ctx
 *
 * Return: 0, -EOPNOTSUPP for unknown input or -EFAULT.
 */
int siw2_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	struct siw2_device *sdev = to_siw2_dev(uctx->device);
	struct siw2_uresp_alloc_ctx resp = {
		.dev_id = sdev->dev_id,
		.abi_version = SIW2_ABI_VERSION,
	};
	int rv;

	/* Fixed for the context's life: its objects are all of one kind. */
	to_siw2_uctx(uctx)->rings = READ_ONCE(siw2_user_rings);
	if (to_siw2_uctx(uctx)->rings)
		resp.caps |= SIW2_UCTX_CAP_RINGS;
	if (!SIW2_CORE_PASSES_FLUSH_ACCESS)
		resp.caps |= SIW2_UCTX_CAP_MR_FLUSH_UDATA;
	resp.caps |= SIW2_UCTX_CAP_COMMIT_TYPE;
	rv = siw2_udata_no_input(udata);
	if (rv)
		return rv;
	rv = siw2_obj_get(sdev, SIW2_OBJ_UCTX);
	if (rv)
		return rv;
	rv = siw2_udata_respond(udata, &resp, sizeof(resp));
	if (rv)
		siw2_obj_put(sdev, SIW2_OBJ_UCTX);
	return rv;
}

/**
 * siw2_dealloc_ucontext - close a user context
 * @uctx: context
 */
void siw2_dealloc_ucontext(struct ib_ucontext *uctx)
{
	siw2_obj_put(to_siw2_dev(uctx->device), SIW2_OBJ_UCTX);
}

/**
 * siw2_disassociate_ucontext - detach a context from a device going away
 * @uctx: context
 *
 * Offering this lets the core remove the device while processes still
 * have it open (they see IBV_EVENT_DEVICE_FATAL and EIO) instead of
 * blocking removal until they exit. The core destroys the context's
 * objects through the usual verbs and zaps its mappings; siw2 keeps no
 * other per-context state, so nothing is left to do here.
 */
void siw2_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

/**
 * siw2_alloc_pd - create a protection domain
 * @pd: core-allocated PD
 * @udata: user data (no input, no response)
 *
 * Return: 0, -EOPNOTSUPP for unknown input or -ENOMEM over the PD limit.
 */
int siw2_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	int rv = siw2_udata_no_input(udata);

	if (rv)
		return rv;
	return siw2_obj_get(to_siw2_dev(pd->device), SIW2_OBJ_PD);
}

/**
 * siw2_dealloc_pd - destroy a protection domain (the core checks it is unused)
 * @pd: PD
 * @udata: user data
 *
 * Return: 0
 */
int siw2_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	siw2_obj_put(to_siw2_dev(pd->device), SIW2_OBJ_PD);
	return 0;
}
