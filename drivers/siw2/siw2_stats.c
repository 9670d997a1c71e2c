// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: counters for "rdma statistic show" and the port's hw_counters
 * directory in sysfs, per device and per QP. The engines count on the CPU
 * they run on (siw2_stat_add()); a read sums the CPUs. A sum read while
 * traffic runs may be a few counts behind: these are statistics, not a
 * ledger.
 *
 * Per QP, the RDMA core's counter objects ("rdma statistic qp"): a QP
 * bound to one counts into that counter's own per-CPU set instead of the
 * device's, from the bind to the unbind, as an RNIC's counter set counts
 * what its QPs carry while assigned. The core shows a port's counters as
 * the device set plus every counter (running or released), so a byte is
 * counted once whichever set took it.
 */

#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_counter.h>

#include "siw2.h"

/* One name per enum siw2_stat, in its order. */
static const struct rdma_stat_desc siw2_stat_descs[SIW2_STAT_NUM] = {
	[SIW2_STAT_TX_FPDUS] = { .name = "tx_fpdus" },
	[SIW2_STAT_TX_BYTES] = { .name = "tx_bytes" },
	[SIW2_STAT_RX_FPDUS] = { .name = "rx_fpdus" },
	[SIW2_STAT_RX_BYTES] = { .name = "rx_bytes" },
	[SIW2_STAT_CRC_ERRORS] = { .name = "rx_crc_errors" },
	[SIW2_STAT_TERM_TX_RDMAP] = { .name = "tx_terminate_rdmap" },
	[SIW2_STAT_TERM_TX_DDP] = { .name = "tx_terminate_ddp" },
	[SIW2_STAT_TERM_TX_LLP] = { .name = "tx_terminate_mpa" },
	[SIW2_STAT_TERM_RX_RDMAP] = { .name = "rx_terminate_rdmap" },
	[SIW2_STAT_TERM_RX_DDP] = { .name = "rx_terminate_ddp" },
	[SIW2_STAT_TERM_RX_LLP] = { .name = "rx_terminate_mpa" },
	[SIW2_STAT_RQ_EMPTY] = { .name = "rx_rq_empty" },
	[SIW2_STAT_SQ_DOORBELLS] = { .name = "sq_doorbells" },
	[SIW2_STAT_SQ_RING_POSTS] = { .name = "sq_ring_posts" },
};

/* Sum the CPUs of @pcpu into @stats. */
static void siw2_stats_sum(struct siw2_stats __percpu *pcpu,
			   struct rdma_hw_stats *stats)
{
	const struct siw2_stats *s;
	int cpu, i;

	for (i = 0; i < SIW2_STAT_NUM; i++)
		stats->value[i] = 0;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(pcpu, cpu);
		for (i = 0; i < SIW2_STAT_NUM; i++)
			stats->value[i] += READ_ONCE(s->v[i]);
	}
}

/**
 * siw2_alloc_hw_port_stats - the counter set of a port
 * @ibdev: device
 * @port: port number (1, the only one)
 *
 * Return: the core's counter structure, or NULL.
 */
struct rdma_hw_stats *siw2_alloc_hw_port_stats(struct ib_device *ibdev,
					       u32 port)
{
	return rdma_alloc_hw_stats_struct(siw2_stat_descs, SIW2_STAT_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * siw2_get_hw_stats - fill @stats with the device's counters
 * @ibdev: device
 * @stats: from siw2_alloc_hw_port_stats()
 * @port: port number
 * @index: the counter asked for; all are filled
 *
 * Return: the number of counters filled.
 */
int siw2_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		      u32 port, int index)
{
	siw2_stats_sum(to_siw2_dev(ibdev)->stats, stats);
	return SIW2_STAT_NUM;
}

/**
 * struct siw2_counter - the counter set behind one rdma_counter
 * @pcpu: per-CPU counts of the QPs bound to it
 */
struct siw2_counter {
	struct siw2_stats __percpu *pcpu;
};

/**
 * siw2_counter_alloc_stats - the value table of a new rdma_counter
 * @counter: counter being made by the core
 *
 * Return: the core's counter structure, or NULL.
 */
struct rdma_hw_stats *siw2_counter_alloc_stats(struct rdma_counter *counter)
{
	return rdma_alloc_hw_stats_struct(siw2_stat_descs, SIW2_STAT_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/* A counter set for @counter, its id made the xarray index. */
static struct siw2_counter *siw2_counter_new(struct siw2_device *sdev,
					     struct rdma_counter *counter)
{
	struct siw2_counter *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->pcpu = alloc_percpu(struct siw2_stats);
	if (c->pcpu &&
	    !xa_alloc(&sdev->counter_xa, &counter->id, c, xa_limit_32b,
		      GFP_KERNEL))
		return c;
	free_percpu(c->pcpu);
	kfree(c);
	return NULL;
}

/**
 * siw2_counter_bind_qp - count @ibqp into @counter from now on
 * @counter: counter; its first QP gives it a counter set
 * @ibqp: QP not bound to any counter
 *
 * Called with @counter's lock held.
 *
 * Return: 0, or -ENOMEM.
 */
int siw2_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);
	struct siw2_counter *c;

	if (counter->id)
		c = xa_load(&qp->sdev->counter_xa, counter->id);
	else
		c = siw2_counter_new(qp->sdev, counter);
	if (!c)
		return -ENOMEM;
	/* Pairs with READ_ONCE() in siw2_stat_add(): counters set up first. */
	smp_store_release(&qp->stats, c->pcpu);
	ibqp->counter = counter;
	return 0;
}

/**
 * siw2_counter_unbind_qp - count @ibqp into its device again
 * @ibqp: QP bound to a counter
 *
 * What it counted stays with the counter.
 *
 * Return: 0.
 */
int siw2_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct siw2_qp *qp = to_siw2_qp(ibqp);

	/* Pairs with READ_ONCE() in siw2_stat_add(). */
	smp_store_release(&qp->stats, qp->sdev->stats);
	ibqp->counter = NULL;
	return 0;
}

/**
 * siw2_counter_update_stats - fill @counter's values from its counter set
 * @counter: counter
 *
 * Return: 0, or -EINVAL for a counter no QP was ever bound to.
 */
int siw2_counter_update_stats(struct rdma_counter *counter)
{
	struct siw2_device *sdev = to_siw2_dev(counter->device);
	struct siw2_counter *c = xa_load(&sdev->counter_xa, counter->id);

	if (!counter->id || !c)
		return -EINVAL;
	siw2_stats_sum(c->pcpu, counter->stats);
	return 0;
}

/**
 * siw2_counter_dealloc - free @counter's counter set
 * @counter: counter with no QP bound any more
 *
 * Return: 0.
 */
int siw2_counter_dealloc(struct rdma_counter *counter)
{
	struct siw2_device *sdev = to_siw2_dev(counter->device);
	struct siw2_counter *c;

	if (!counter->id)
		return 0;
	c = xa_erase(&sdev->counter_xa, counter->id);
	if (!c)
		return 0;
	/* An engine may still count into it from before the unbind. */
	synchronize_rcu();
	free_percpu(c->pcpu);
	kfree(c);
	return 0;
}
