// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: device counters for "rdma statistic show" and the port's
 * hw_counters directory in sysfs. The engines count on the CPU they run on
 * (siw2_stat_add()); a read sums the CPUs. A sum read while traffic runs
 * may be a few counts behind: these are statistics, not a ledger.
 */

#include <rdma/ib_verbs.h>

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
	struct siw2_device *sdev = to_siw2_dev(ibdev);
	const struct siw2_stats *s;
	int cpu, i;

	for (i = 0; i < SIW2_STAT_NUM; i++)
		stats->value[i] = 0;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(sdev->stats, cpu);
		for (i = 0; i < SIW2_STAT_NUM; i++)
			stats->value[i] += READ_ONCE(s->v[i]);
	}
	return SIW2_STAT_NUM;
}
