/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * siw2 kernel <-> user-space provider ABI.
 *
 * Shared verbatim by drivers/siw2 and userspace-provider/. Every structure
 * uses fixed-width fields with explicit padding so that 32- and 64-bit
 * processes see the same layout. Bump SIW2_ABI_VERSION on any incompatible
 * change; the provider refuses devices with a different version.
 */
#ifndef SIW2_ABI_H
#define SIW2_ABI_H

#include <linux/types.h>

/* Reported as the uverbs ABI version (sysfs .../infiniband_verbs/uverbsN/abi_version). */
#define SIW2_ABI_VERSION 1

/*
 * The device's firmware version string (sysfs .../infiniband/<dev>/fw_ver)
 * starts with this marker. Out-of-tree drivers have no rdma_driver_id of
 * their own, so the provider matches devices on it instead.
 */
#define SIW2_FW_VER_MARKER "siw2-"

/* Response to ibv_open_device() (alloc_ucontext). */
struct siw2_uresp_alloc_ctx {
	__u32 dev_id;		/* device instance number, for diagnostics */
	__u32 abi_version;	/* SIW2_ABI_VERSION */
	__aligned_u64 caps;	/* SIW2_UCTX_CAP_*, none defined yet */
};

/* Response to ibv_create_cq(). */
struct siw2_uresp_create_cq {
	__u32 cq_id;		/* driver-internal CQ number */
	__u32 num_cqe;		/* CQ depth actually allocated */
};

/* Response to ibv_resize_cq(). */
struct siw2_uresp_resize_cq {
	__u32 num_cqe;		/* new CQ depth actually allocated */
	__u32 reserved;
};

/* Response to ibv_create_qp(). */
struct siw2_uresp_create_qp {
	__u32 qp_id;		/* equals the QP number */
	__u32 num_sqe;		/* send queue depth actually allocated */
	__u32 num_rqe;		/* receive queue depth (0 with an SRQ) */
	__u32 reserved;
};

/* Response to ibv_create_srq(). */
struct siw2_uresp_create_srq {
	__u32 num_rqe;		/* SRQ depth actually allocated */
	__u32 reserved;
};

#endif /* SIW2_ABI_H */
