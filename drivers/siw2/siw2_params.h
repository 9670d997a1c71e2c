/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: the module parameters. Their list, with each one's default, values
 * and description, is in siw2_params.c; here are the variables the rest of
 * the driver reads.
 */
#ifndef _SIW2_PARAMS_H
#define _SIW2_PARAMS_H

#include <linux/types.h>

/*
 * Per-device object limits, read when a device is created. Any value is
 * taken; siw2_clamped_<name>() gives it within the parameter's range.
 */
extern unsigned int siw2_max_qp;
extern unsigned int siw2_max_cq;
extern unsigned int siw2_max_pd;
extern unsigned int siw2_max_mr;
extern unsigned int siw2_max_srq;
unsigned int siw2_clamped_max_qp(void);
unsigned int siw2_clamped_max_cq(void);
unsigned int siw2_clamped_max_pd(void);
unsigned int siw2_clamped_max_mr(void);
unsigned int siw2_clamped_max_srq(void);

/* The local MPA policy, read when a connection starts. */
extern unsigned int siw2_mpa_crc;
extern unsigned int siw2_mpa_rev;
extern bool siw2_peer_to_peer;
extern unsigned int siw2_rtr_forms;
extern unsigned int siw2_mpa_caps;
extern unsigned int siw2_mpa_timeout_ms;
extern unsigned int siw2_keepalive_s;

/* The data path. */
extern bool siw2_user_rings;
extern unsigned int siw2_tx_linger_us;
extern bool siw2_read_v2;
extern bool siw2_tx_zcopy;

#endif
