/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * User-space stand-in for the two RDMA core enums siw2_term.c returns.
 * Only the names it uses, each with the value of Linux 6.12's
 * include/rdma/ib_verbs.h, so that the harness compares the same numbers
 * the kernel would see.
 */
#ifndef _SIW2_SHIM_RDMA_IB_VERBS_H
#define _SIW2_SHIM_RDMA_IB_VERBS_H

enum ib_wc_status {
	IB_WC_SUCCESS = 0,
	IB_WC_REM_INV_REQ_ERR = 9,
	IB_WC_REM_ACCESS_ERR = 10,
	IB_WC_REM_OP_ERR = 11,
	IB_WC_FATAL_ERR = 19,
};

enum ib_event_type {
	IB_EVENT_QP_FATAL = 1,
	IB_EVENT_QP_REQ_ERR = 2,
	IB_EVENT_QP_ACCESS_ERR = 3,
};

#endif
