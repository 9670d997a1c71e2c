// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for the Terminate -> completion status and async event
 * mapping (drivers/siw2/siw2_term.c), against DIGEST 3.5 (DEC-11), and
 * the completion status of an answered RDMA Commit (DEC-13, SIW2-DEC-2).
 */

#include <kunit/test.h>

#include "siw2_term.h"

struct term_case {
	const char *name;
	u8 layer, etype, code;
	enum ib_wc_status status;
	enum ib_event_type event;
};

static const struct term_case term_cases[] = {
	{ "rdmap_invalid_stag_dec_11", 0, 1, 0x00, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "rdmap_bounds_dec_11", 0, 1, 0x01, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "rdmap_access_rights_dec_11", 0, 1, 0x02, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "rdmap_to_wrap_dec_11", 0, 1, 0x04, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "rdmap_prot_unspec_dec_11", 0, 1, 0xff, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "ddp_tag_invalid_stag_dec_11", 1, 1, 0x00, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "ddp_tagged_bounds_dec_11", 1, 1, 0x01, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "ddp_tagged_version_dec_11", 1, 1, 0x04, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "rdmap_version_dec_11", 0, 2, 0x05, IB_WC_REM_INV_REQ_ERR, IB_EVENT_QP_REQ_ERR },
	{ "rdmap_opcode_dec_11", 0, 2, 0x06, IB_WC_REM_INV_REQ_ERR, IB_EVENT_QP_REQ_ERR },
	{ "rdmap_catastr_stream_dec_11", 0, 2, 0x07, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "rdmap_catastr_global_dec_11", 0, 2, 0x08, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "rdmap_op_unspecified_dec_11", 0, 2, 0xff, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "rdmap_cannot_invalidate", 0, 2, 0x09, IB_WC_REM_ACCESS_ERR, IB_EVENT_QP_ACCESS_ERR },
	{ "ddp_too_long_dec_11", 1, 2, 0x05, IB_WC_REM_INV_REQ_ERR, IB_EVENT_QP_REQ_ERR },
	{ "ddp_untagged_version", 1, 2, 0x06, IB_WC_REM_INV_REQ_ERR, IB_EVENT_QP_REQ_ERR },
	{ "ddp_invalid_qn_dec_11", 1, 2, 0x01, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "ddp_no_buffer_dec_11", 1, 2, 0x02, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "ddp_msn_range_dec_11", 1, 2, 0x03, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "ddp_invalid_mo_dec_11", 1, 2, 0x04, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "rdmap_local_catastrophic", 0, 0, 0x00, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "ddp_local_catastrophic", 1, 0, 0x00, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "mpa_crc_dec_11", 2, 0, 0x02, IB_WC_FATAL_ERR, IB_EVENT_QP_FATAL },
	{ "mpa_tcp_lost_dec_11", 2, 0, 0x01, IB_WC_FATAL_ERR, IB_EVENT_QP_FATAL },
	{ "mpa_no_ird_etype_3_amb_5", 2, 3, 0x06, IB_WC_FATAL_ERR, IB_EVENT_QP_FATAL },
	{ "unknown_layer", 7, 0, 0x00, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
	{ "unknown_ddp_etype", 1, 3, 0x00, IB_WC_REM_OP_ERR, IB_EVENT_QP_FATAL },
};

static void term_desc(const struct term_case *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(term, term_cases, term_desc);

/* DEC-11: every Terminate maps to one status and one async event. */
static void term_map_table(struct kunit *test)
{
	const struct term_case *t = test->param_value;

	KUNIT_EXPECT_EQ(test, siw2_term_wc_status(t->layer, t->etype, t->code), t->status);
	KUNIT_EXPECT_EQ(test, siw2_term_qp_event(t->layer, t->etype, t->code), t->event);
}

/*
 * SIW2-DEC-2: "visible, not durable" (Status 4) satisfies a global
 * Commit and fails a persistent one as a remote access error; every
 * other non-zero Status is an operation error either way (DEC-13).
 */
static void commit_status_map_dec_2(struct kunit *test)
{
	static const struct {
		u32 status;
		enum ib_wc_status persistent, global;
	} c[] = {
		{ 0, IB_WC_SUCCESS, IB_WC_SUCCESS },
		{ 1, IB_WC_REM_OP_ERR, IB_WC_REM_OP_ERR },
		{ 2, IB_WC_REM_OP_ERR, IB_WC_REM_OP_ERR },
		{ 3, IB_WC_REM_OP_ERR, IB_WC_REM_OP_ERR },
		{ 4, IB_WC_REM_ACCESS_ERR, IB_WC_SUCCESS },
		{ 5, IB_WC_REM_OP_ERR, IB_WC_REM_OP_ERR },
		{ 0xffffffff, IB_WC_REM_OP_ERR, IB_WC_REM_OP_ERR },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		KUNIT_EXPECT_EQ_MSG(test, siw2_commit_wc_status(c[i].status, false),
				    c[i].persistent,
				    "SIW2-DEC-2: persistent Commit, Status %u", c[i].status);
		KUNIT_EXPECT_EQ_MSG(test, siw2_commit_wc_status(c[i].status, true),
				    c[i].global,
				    "SIW2-DEC-2: global Commit, Status %u", c[i].status);
	}
}

static struct kunit_case siw2_term_cases[] = {
	KUNIT_CASE_PARAM(term_map_table, term_gen_params),
	KUNIT_CASE(commit_status_map_dec_2),
	{}
};

static struct kunit_suite siw2_term_suite = {
	.name = "siw2_term",
	.test_cases = siw2_term_cases,
};

kunit_test_suite(siw2_term_suite);
