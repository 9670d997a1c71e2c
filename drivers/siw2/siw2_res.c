// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: driver details for "rdma resource show" (the RDMA core's netlink
 * resource tracking): a QP's state, what its MPA exchange settled, the
 * connection's TCP addresses and TCP's retransmits and round trip, an
 * MR's type and rights (not its STag), a CQ's depth and whether it is a
 * ring.  "rdma -d resource show qp" prints them.  The
 * core calls these from its netlink dump with the object referenced, and
 * they may sleep.  A cm_id gets nothing more than the core shows: its QP
 * is not held by the dump, so it could go while being read.
 */

#include <linux/tcp.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "siw2.h"
#include "siw2_cep.h"

/*
 * The details go in one RDMA_NLDEV_ATTR_DRIVER table per object, which
 * "rdma -dd" prints; on -EMSGSIZE the table is taken back and the dump
 * continues in the next message.
 */
static struct nlattr *siw2_res_table(struct sk_buff *msg)
{
	return nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
}

static int siw2_res_table_end(struct sk_buff *msg, struct nlattr *table, int rv)
{
	if (rv) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}

static const char *siw2_rtr_name(u8 rtr)
{
	switch (rtr) {
	case SIW2_RTR_WRITE:
		return "write";
	case SIW2_RTR_READ:
		return "read";
	default:
		return "none";
	}
}

/*
 * What TCP below says of the connection: segments retransmitted and the
 * smoothed round trip. The socket stays while @qp->sock is set, which
 * only changes under @qp->state_lock; the fields are read unlocked, a
 * snapshot as ss(8) gives.
 */
static int siw2_res_put_tcp(struct sk_buff *msg, struct siw2_qp *qp)
{
	const struct tcp_sock *tp;

	lockdep_assert_held(&qp->state_lock);
	if (!qp->sock)
		return 0;
	tp = tcp_sk(qp->sock->sk);
	if (rdma_nl_put_driver_u32(msg, "tcp_retrans",
				   READ_ONCE(tp->total_retrans)) ||
	    rdma_nl_put_driver_u32(msg, "tcp_rtt_us", READ_ONCE(tp->srtt_us) >> 3))
		return -EMSGSIZE;
	return 0;
}

/* What the connection settled, and its addresses, under @qp->state_lock. */
static int siw2_res_put_conn(struct sk_buff *msg, struct siw2_qp *qp)
{
	const struct siw2_mpa_conn *c = &qp->conn;
	char addr[64];
	int rv;

	lockdep_assert_held(&qp->state_lock);
	if (rdma_nl_put_driver_string(msg, "state", siw2_qp_state_name(qp->state)))
		return -EMSGSIZE;
	if (!qp->cep)
		return 0;
	rv = rdma_nl_put_driver_u32(msg, "mpa_rev", c->rev) ||
	     rdma_nl_put_driver_u32(msg, "crc", c->crc) ||
	     rdma_nl_put_driver_u32(msg, "p2p", c->p2p) ||
	     rdma_nl_put_driver_string(msg, "rtr", siw2_rtr_name(c->rtr)) ||
	     rdma_nl_put_driver_u32(msg, "rdmap_v2",
				    !!(c->caps & SIW2_MPA_CAP_RDMAP_V2)) ||
	     rdma_nl_put_driver_u32(msg, "commit",
				    !!(c->caps & SIW2_MPA_CAP_COMMIT)) ||
	     rdma_nl_put_driver_u32(msg, "ird", qp->ird) ||
	     rdma_nl_put_driver_u32(msg, "ord", qp->ord);
	if (rv)
		return -EMSGSIZE;
	snprintf(addr, sizeof(addr), "%pISpc", &qp->cep->laddr);
	if (rdma_nl_put_driver_string(msg, "laddr", addr))
		return -EMSGSIZE;
	snprintf(addr, sizeof(addr), "%pISpc", &qp->cep->raddr);
	if (rdma_nl_put_driver_string(msg, "raddr", addr))
		return -EMSGSIZE;
	return siw2_res_put_tcp(msg, qp);
}

/**
 * siw2_fill_res_qp_entry - a QP's driver details
 * @msg: netlink message
 * @ibqp: the QP
 *
 * Return: 0 or -EMSGSIZE.
 */
int siw2_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);
	struct nlattr *table = siw2_res_table(msg);
	int rv;

	if (!table)
		return -EMSGSIZE;
	mutex_lock(&qp->state_lock);
	rv = siw2_res_put_conn(msg, qp);
	mutex_unlock(&qp->state_lock);
	if (!rv)
		rv = rdma_nl_put_driver_u32(msg, "rings", !!qp->sq.ring) ||
		     rdma_nl_put_driver_u32(msg, "read_v2", qp->read_v2);
	return siw2_res_table_end(msg, table, rv);
}

static const char *siw2_mr_type_name(enum siw2_mr_type type)
{
	switch (type) {
	case SIW2_MR_DMA:
		return "dma";
	case SIW2_MR_USER:
		return "user";
	case SIW2_MR_FRMR:
		return "fast_reg";
	default:
		return "window";
	}
}

/**
 * siw2_fill_res_mr_entry - an MR's driver details
 * @msg: netlink message
 * @ibmr: the MR
 *
 * Return: 0 or -EMSGSIZE.
 */
int siw2_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct siw2_mr *mr = to_siw2_mr(ibmr);
	struct nlattr *table = siw2_res_table(msg);
	int rv;

	if (!table)
		return -EMSGSIZE;
	/*
	 * No STag: the core shows an MR's keys to CAP_NET_ADMIN alone, and
	 * the driver table goes to every user who may dump the MR.
	 */
	rv = rdma_nl_put_driver_string(msg, "type", siw2_mr_type_name(mr->type)) ||
	     rdma_nl_put_driver_u32_hex(msg, "access", READ_ONCE(mr->access)) ||
	     rdma_nl_put_driver_u32(msg, "valid", READ_ONCE(mr->valid)) ||
	     rdma_nl_put_driver_u32(msg, "windows_bound",
				    atomic_read(&mr->mw_bound));
	return siw2_res_table_end(msg, table, rv);
}

/**
 * siw2_fill_res_cq_entry - a CQ's driver details
 * @msg: netlink message
 * @ibcq: the CQ
 *
 * Return: 0 or -EMSGSIZE.
 */
int siw2_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct siw2_cq *cq = to_siw2_cq(ibcq);
	struct nlattr *table = siw2_res_table(msg);
	int rv;

	if (!table)
		return -EMSGSIZE;
	rv = rdma_nl_put_driver_u32(msg, "depth", cq->size) ||
	     rdma_nl_put_driver_u32(msg, "ring", !!cq->ring);
	return siw2_res_table_end(msg, table, rv);
}
