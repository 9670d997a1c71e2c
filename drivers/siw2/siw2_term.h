/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2: what a Terminate means for the consumer (DIGEST DEC-11): the
 * completion status of the work request it hits and the QP's async event;
 * and what a Commit Response's Status means (DEC-13, SIW2-DEC-2).
 */
#ifndef _SIW2_TERM_H
#define _SIW2_TERM_H

#include <rdma/ib_verbs.h>

enum ib_wc_status siw2_term_wc_status(u8 layer, u8 etype, u8 code);
enum ib_event_type siw2_term_qp_event(u8 layer, u8 etype, u8 code);
enum ib_wc_status siw2_commit_wc_status(u32 status, bool global);

#endif /* _SIW2_TERM_H */
