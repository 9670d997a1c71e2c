/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2dv: what the siw2 provider offers beyond libibverbs' verbs.
 *
 * The functions live in the provider library itself (libsiw2-rdmav34.so,
 * symbol version SIW2_1.0). A program links that library and must run
 * with the same file libibverbs loads for the device (the installed
 * provider, or RDMAV_DRIVERS=<dir>/libsiw2 for a build tree): a device
 * driven by another copy is not a siw2 device to these functions.
 *
 * Later versions add the Commit (flush to persistence) operation and
 * 8-byte immediate data here; SIW2DV_VERSION tells which are present.
 */
#ifndef SIW2DV_H
#define SIW2DV_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 1: siw2dv_is_siw2_context(), siw2dv_query_qp() */
#define SIW2DV_VERSION 1

/* True if @ctx is a device context of this siw2 provider. */
bool siw2dv_is_siw2_context(struct ibv_context *ctx);

/*
 * Versioned by comp_mask: later fields are appended, each with a bit the
 * caller sets to want it and the provider leaves set when it filled it
 * (none is defined yet, so it is 0 on return). The fields below are
 * always filled.
 */
struct siw2dv_qp_attr {
	uint64_t comp_mask;
	bool rings;		/* posts through rings shared with the kernel */
	uint8_t reserved[3];
	uint32_t sq_slots;	/* send queue depth (ring slots with rings) */
	uint32_t rq_slots;	/* receive queue depth, 0 with an SRQ */
	uint32_t max_inline;	/* inline octets per send work request */
	uint64_t doorbells;	/* system calls made to wake the kernel */
};

/*
 * Provider-level attributes of @qp. Returns 0, EINVAL for a NULL
 * argument, or EOPNOTSUPP if @qp is not a siw2 QP.
 */
int siw2dv_query_qp(struct ibv_qp *qp, struct siw2dv_qp_attr *attr);

#ifdef __cplusplus
}
#endif

#endif /* SIW2DV_H */
