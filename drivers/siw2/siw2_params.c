// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2: every module parameter, in one list (the rows at the end of the
 * row kinds below). A row names a parameter once with its default, the
 * values it accepts, its sysfs permissions and its description; the row
 * kind makes from it the variable siw2_<name>, the value check and the
 * modinfo description, which ends in " (default: D; values: V)".
 * tools/check-params.py reads the rows to check the admin guide against
 * them. Numbers are written as literals because they become text; the
 * build checks after the rows tie them to the driver's constants.
 *
 * Calls nothing of siw2's.
 */

#include <linux/build_bug.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#include "siw2_limits.h"
#include "siw2_mpa.h"
#include "siw2_params.h"
#include "siw2_wire.h"

/**
 * siw2_param_set_bits - store a value made only of allowed bits
 * @val: the text written to the parameter
 * @kp: the parameter
 * @min: smallest value accepted (1 refuses 0)
 * @mask: the bits allowed
 *
 * Return: 0; -EINVAL for a value below @min or with a bit outside @mask;
 * kstrtouint()'s error for text that is not an unsigned int.
 */
static int siw2_param_set_bits(const char *val, const struct kernel_param *kp,
			       unsigned int min, unsigned int mask)
{
	unsigned int v;
	int rv = kstrtouint(val, 0, &v);

	if (rv)
		return rv;
	if (v < min || (v & ~mask))
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

/*
 * The row kinds. Each uses every argument once (checkpatch's macro rules),
 * reaching the numbers through SIW2_PARAM_<name>_DEF/_MIN/_MAX, so the
 * description and type are written as the MODULE_INFO() lines that
 * MODULE_PARM_DESC() and module_param() would make.
 */

#define SIW2_PARAM_ONOFF_true "on"
#define SIW2_PARAM_ONOFF_false "off"

/* ONOFF: a bool; values "on, off". */
#define SIW2_PARAM_ONOFF(name, def, perm, desc)				\
	bool siw2_##name = def;						\
	module_param_named(name, siw2_##name, bool, perm);		\
	MODULE_INFO(parm, #name ":" desc " (default: "			\
		    SIW2_PARAM_ONOFF_##def "; values: on, off)")

/* RANGE: an unsigned int; values outside min..max are refused (EINVAL). */
#define SIW2_PARAM_RANGE(name, def, min, max, perm, desc)		\
	enum siw2_param_##name {					\
		SIW2_PARAM_##name##_DEF = (def),			\
		SIW2_PARAM_##name##_MIN = (min),			\
		SIW2_PARAM_##name##_MAX = (max),			\
	};								\
	unsigned int siw2_##name = SIW2_PARAM_##name##_DEF;		\
	static int siw2_param_set_##name(const char *val,		\
					 const struct kernel_param *kp)	\
	{								\
		return param_set_uint_minmax(val, kp,			\
					     SIW2_PARAM_##name##_MIN,	\
					     SIW2_PARAM_##name##_MAX);	\
	}								\
	static const struct kernel_param_ops siw2_param_ops_##name = {	\
		.set = siw2_param_set_##name,				\
		.get = param_get_uint,					\
	};								\
	module_param_cb(name, &siw2_param_ops_##name, &siw2_##name, perm); \
	MODULE_INFO(parmtype, #name ":uint");				\
	MODULE_INFO(parm, #name ":" desc " (default: " #def		\
		    "; values: " #min ".." #max ")")

/*
 * CLAMP: an unsigned int that takes any value; its users read it through
 * siw2_clamped_<name>(), which clamps it to min..max.
 */
#define SIW2_PARAM_CLAMP(name, def, min, max, perm, desc)		\
	enum siw2_param_##name {					\
		SIW2_PARAM_##name##_DEF = (def),			\
		SIW2_PARAM_##name##_MIN = (min),			\
		SIW2_PARAM_##name##_MAX = (max),			\
	};								\
	unsigned int siw2_##name = SIW2_PARAM_##name##_DEF;		\
	unsigned int siw2_clamped_##name(void)				\
	{								\
		return clamp_val(READ_ONCE(siw2_##name),		\
				 SIW2_PARAM_##name##_MIN,		\
				 SIW2_PARAM_##name##_MAX);		\
	}								\
	module_param_named(name, siw2_##name, uint, perm);		\
	MODULE_INFO(parm, #name ":" desc " (default: " #def		\
		    "; values: " #min ".." #max ", others clamped)")

/* A BITS row's minimum: 0, or 1 for "at least one bit". */
#define SIW2_PARAM_NOT0_0 ""
#define SIW2_PARAM_NOT0_1 ", not 0"

/*
 * BITS: an unsigned int; values with a bit outside mask, or below min
 * (0 or 1), are refused (EINVAL).
 */
#define SIW2_PARAM_BITS(name, def, min, mask, perm, desc)		\
	enum siw2_param_##name {					\
		SIW2_PARAM_##name##_DEF = (def),			\
		SIW2_PARAM_##name##_MIN = (min),			\
		SIW2_PARAM_##name##_MAX = (mask),			\
	};								\
	unsigned int siw2_##name = SIW2_PARAM_##name##_DEF;		\
	static int siw2_param_set_##name(const char *val,		\
					 const struct kernel_param *kp)	\
	{								\
		return siw2_param_set_bits(val, kp,			\
					   SIW2_PARAM_##name##_MIN,	\
					   SIW2_PARAM_##name##_MAX);	\
	}								\
	static const struct kernel_param_ops siw2_param_ops_##name = {	\
		.set = siw2_param_set_##name,				\
		.get = param_get_uint,					\
	};								\
	module_param_cb(name, &siw2_param_ops_##name, &siw2_##name, perm); \
	MODULE_INFO(parmtype, #name ":uint");				\
	MODULE_INFO(parm, #name ":" desc " (default: " #def		\
		    "; values: bits of " #mask SIW2_PARAM_NOT0_##min ")")

/* ---- the list ---- */

/* Read when a device is created: its object limits. */
SIW2_PARAM_CLAMP(max_qp, 16384, 1, 16384, 0444, "QPs per device");
SIW2_PARAM_CLAMP(max_cq, 16384, 1, 16384, 0444, "CQs per device");
SIW2_PARAM_CLAMP(max_pd, 16384, 1, 16384, 0444, "PDs per device");
SIW2_PARAM_CLAMP(max_mr, 65536, 1, 65536, 0444, "MRs per device");
SIW2_PARAM_CLAMP(max_srq, 4096, 1, 4096, 0444, "SRQs per device");

/* The local MPA policy, read when a connection starts. */
SIW2_PARAM_RANGE(mpa_crc, 0, 0, 2, 0644,
		 "MPA CRC policy: 0 use CRC if the peer asks (as Linux siw), 1 always ask for CRC, 2 never use CRC (refuse peers that ask)");
SIW2_PARAM_RANGE(mpa_rev, 2, 1, 2, 0644,
		 "MPA revision of outgoing Requests: 1 (RFC 5044) or 2 (RFC 6581 enhanced); both are accepted");
SIW2_PARAM_ONOFF(peer_to_peer, false, 0644,
		 "Request peer-to-peer mode (RTR) on outgoing Rev 2 connections");
SIW2_PARAM_BITS(rtr_forms, 6, 1, 0x6, 0644,
		"RTR forms offered and accepted: 2 zero-length Write, 4 zero-length Read, 6 both");
SIW2_PARAM_BITS(mpa_caps, 0x6, 0, 0x6, 0644,
		"Private MPA Rev 2 capability bits advertised: 0x4 RDMAP v2, 0x2 RDMA Commit");
SIW2_PARAM_RANGE(mpa_timeout_ms, 10000, 100, 600000, 0644,
		 "Limit on each connection setup or close step, in ms");
SIW2_PARAM_RANGE(keepalive_s, 30, 0, 32767, 0644,
		 "seconds a connection in RDMA mode may receive nothing before TCP keepalive probes the peer (3 probes, a third of this apart); 0: off; read when a connection enters RDMA mode");

/* The data path. */
SIW2_PARAM_ONOFF(user_rings, true, 0644,
		 "user-space CQs, send/receive queues and SRQs as mmap'ed rings, posted and polled without system calls; read when a process opens the device");
SIW2_PARAM_RANGE(tx_linger_us, 50, 0, 4294967295, 0644,
		 "microseconds between looks at a streaming send queue ring run empty, 0: stop at once");
SIW2_PARAM_ONOFF(read_v2, false, 0644,
		 "send RDMA Reads as Read V2 on RDMAP v2 connections (DEC-15)");
SIW2_PARAM_ONOFF(tx_zcopy, true, 0644,
		 "send RDMA Read Response payload pages without copying");

/* ---- the list's numbers are the driver's: a change on one side fails ---- */

/* A row's number without its enum type, to compare with other constants. */
#define SIW2_PARAM_NUM(name, what) ((u64)SIW2_PARAM_##name##_##what)

static_assert(SIW2_PARAM_NUM(max_qp, DEF) == SIW2_MAX_QP &&
	      SIW2_PARAM_NUM(max_qp, MAX) == SIW2_MAX_QP);
static_assert(SIW2_PARAM_NUM(max_cq, DEF) == SIW2_MAX_CQ &&
	      SIW2_PARAM_NUM(max_cq, MAX) == SIW2_MAX_CQ);
static_assert(SIW2_PARAM_NUM(max_pd, DEF) == SIW2_MAX_PD &&
	      SIW2_PARAM_NUM(max_pd, MAX) == SIW2_MAX_PD);
static_assert(SIW2_PARAM_NUM(max_mr, DEF) == SIW2_MAX_MR &&
	      SIW2_PARAM_NUM(max_mr, MAX) == SIW2_MAX_MR);
static_assert(SIW2_PARAM_NUM(max_srq, DEF) == SIW2_MAX_SRQ &&
	      SIW2_PARAM_NUM(max_srq, MAX) == SIW2_MAX_SRQ);
static_assert(SIW2_PARAM_NUM(mpa_crc, DEF) == SIW2_CRC_PEER &&
	      SIW2_PARAM_NUM(mpa_crc, MIN) == SIW2_CRC_PEER &&
	      SIW2_PARAM_NUM(mpa_crc, MAX) == SIW2_CRC_OFF);
static_assert(SIW2_PARAM_NUM(mpa_rev, DEF) == SIW2_MPA_REV2 &&
	      SIW2_PARAM_NUM(mpa_rev, MIN) == SIW2_MPA_REV1 &&
	      SIW2_PARAM_NUM(mpa_rev, MAX) == SIW2_MPA_REV2);
/* B (zero-length FPDU) is never offered (DEC-3). */
static_assert(SIW2_PARAM_NUM(rtr_forms, DEF) == (SIW2_RTR_WRITE | SIW2_RTR_READ) &&
	      SIW2_PARAM_NUM(rtr_forms, MAX) == (SIW2_RTR_WRITE | SIW2_RTR_READ));
static_assert(SIW2_PARAM_NUM(mpa_caps, DEF) == SIW2_MPA_CAPS &&
	      SIW2_PARAM_NUM(mpa_caps, MAX) == SIW2_MPA_CAPS);
static_assert(SIW2_PARAM_NUM(tx_linger_us, MAX) == UINT_MAX);
