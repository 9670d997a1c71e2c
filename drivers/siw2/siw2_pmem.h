/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: what persistent memory allows, decided in one place. Whether this
 * kernel can write CPU caches back to persistent memory decides both the
 * device's Flush capabilities and whether a registration may be durable;
 * what a Commit's range and log word earn decides its Response's Status
 * (DEC-13, DEC-14, SIW2-DEC-1, SIW2-DEC-2). Pure: the KUnit suite
 * siw2_pmem runs it in UML, a kernel without the PMEM API.
 */
#ifndef _SIW2_PMEM_H
#define _SIW2_PMEM_H

#include <linux/errno.h>
#include <linux/kconfig.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "siw2_compat.h"
#include "siw2_wire.h"

/**
 * siw2_pmem_capable - can this kernel make stores durable?
 *
 * Without CONFIG_ARCH_HAS_PMEM_API, arch_wb_cache_pmem() is an empty
 * stub: a Commit would write nothing back, so siw2 promises no durability
 * at all there.
 *
 * Return: true where arch_wb_cache_pmem() writes back.
 */
static inline bool siw2_pmem_capable(void)
{
	return IS_ENABLED(CONFIG_ARCH_HAS_PMEM_API);
}

/**
 * siw2_flush_caps - the device's Flush capabilities
 *
 * A Commit makes any range globally visible (COMMIT-DUR-4); durable only
 * where the kernel can write back (DEC-14).
 *
 * Return: IB_DEVICE_FLUSH_GLOBAL, with IB_DEVICE_FLUSH_PERSISTENT where
 * siw2_pmem_capable().
 */
static inline u64 siw2_flush_caps(void)
{
	return IB_DEVICE_FLUSH_GLOBAL |
	       (siw2_pmem_capable() ? IB_DEVICE_FLUSH_PERSISTENT : 0);
}

/**
 * siw2_durable_access - may a registration ask for @access here?
 * @access: IB_ACCESS_* flags
 *
 * Return: 0, or -EOPNOTSUPP for IB_ACCESS_FLUSH_PERSISTENT on a kernel
 * that cannot write back: the errno the RDMA core gives (Linux 6.2 and
 * later) for a right the device does not advertise.
 */
static inline int siw2_durable_access(int access)
{
	if ((access & IB_ACCESS_FLUSH_PERSISTENT) && !siw2_pmem_capable())
		return -EOPNOTSUPP;
	return 0;
}

/**
 * siw2_commit_done - was a Commit carried out?
 * @status: its Status so far
 *
 * Return: true for success and for "visible, not durable" (SIW2-DEC-2):
 * only then are its log word stored (COMMIT-ATOM-2) and its Invalidate
 * STag invalidated (DEC-20).
 */
static inline bool siw2_commit_done(u32 status)
{
	return status == SIW2_COMMIT_ST_OK ||
	       status == SIW2_COMMIT_ST_NOT_DURABLE;
}

/**
 * siw2_commit_range_status - the Status a Commit earns for its range
 * @arrival: a Status decided when the Request arrived (DEC-13), or 0
 * @len: the range's length (DEC-12: 0 names nothing)
 * @durable: its MR is registered durable (DEC-14)
 * @poisoned: the kernel knows a page of the range poisoned
 *
 * Return: @arrival if set; SIW2_COMMIT_ST_MEDIA for a poisoned page,
 * whose data is lost however it was written back (DEC-13, COMMIT-ERR-3);
 * SIW2_COMMIT_ST_OK when every octet named is durable (COMMIT-DUR-1);
 * SIW2_COMMIT_ST_NOT_DURABLE otherwise (SIW2-DEC-2).
 */
static inline u32 siw2_commit_range_status(u32 arrival, u32 len, bool durable,
					   bool poisoned)
{
	if (arrival)
		return arrival;
	if (poisoned)
		return SIW2_COMMIT_ST_MEDIA;
	if (!len || durable)
		return SIW2_COMMIT_ST_OK;
	return SIW2_COMMIT_ST_NOT_DURABLE;
}

/**
 * siw2_commit_log_status - the Status after a Commit's log update
 * @range: what siw2_commit_range_status() gave the range
 * @log_durable: the word's MR is registered durable
 * @log_poisoned: the kernel knows the word's page poisoned
 *
 * The word is stored exactly when siw2_commit_done() holds for the
 * result (SIW2-DEC-1): never after a failed commit (COMMIT-ATOM-2), never
 * into a poisoned page (DEC-13), never durable after a range that is not.
 *
 * Return: @range when the commit failed; SIW2_COMMIT_ST_MEDIA for a
 * poisoned word; SIW2_COMMIT_ST_LOG_REFUSED for a durable word after a
 * range that is not; else @range, or SIW2_COMMIT_ST_NOT_DURABLE for a
 * word that is not durable.
 */
static inline u32 siw2_commit_log_status(u32 range, bool log_durable,
					 bool log_poisoned)
{
	if (!siw2_commit_done(range))
		return range;
	if (log_poisoned)
		return SIW2_COMMIT_ST_MEDIA;
	if (log_durable && range == SIW2_COMMIT_ST_NOT_DURABLE)
		return SIW2_COMMIT_ST_LOG_REFUSED;
	return log_durable ? range : SIW2_COMMIT_ST_NOT_DURABLE;
}

#endif /* _SIW2_PMEM_H */
