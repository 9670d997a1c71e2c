// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * KUnit suite for what persistent memory allows (drivers/siw2/siw2_pmem.h):
 * the one gate, CONFIG_ARCH_HAS_PMEM_API, behind both the device's
 * IB_DEVICE_FLUSH_PERSISTENT and a durable registration (DEC-14), run in
 * UML, a kernel without that API; and the Status an RDMA Commit's range
 * and log word earn (DEC-13, SIW2-DEC-1, SIW2-DEC-2), poisoned pages
 * included. Which pages are poisoned is the kernel's to say (PageHWPoison,
 * which UML cannot set): case 86 makes one in a guest.
 */

#include <kunit/test.h>

#include "siw2_pmem.h"

/*
 * DEC-14: without CONFIG_ARCH_HAS_PMEM_API, arch_wb_cache_pmem() writes
 * nothing back: no IB_DEVICE_FLUSH_PERSISTENT, and a durable
 * registration fails with EOPNOTSUPP (as the RDMA core refuses a right
 * the device does not advertise). UML is such a kernel.
 */
static void no_pmem_api_no_durability_dec_14(struct kunit *test)
{
	if (IS_ENABLED(CONFIG_ARCH_HAS_PMEM_API))
		kunit_skip(test, "this kernel has CONFIG_ARCH_HAS_PMEM_API");
	KUNIT_EXPECT_FALSE(test, siw2_pmem_capable());
	KUNIT_EXPECT_EQ_MSG(test, siw2_flush_caps(), (u64)IB_DEVICE_FLUSH_GLOBAL,
			    "DEC-14: FLUSH_PERSISTENT advertised without the PMEM API");
	KUNIT_EXPECT_EQ_MSG(test,
			    siw2_durable_access(IB_ACCESS_LOCAL_WRITE |
						IB_ACCESS_REMOTE_WRITE |
						IB_ACCESS_FLUSH_PERSISTENT),
			    -EOPNOTSUPP,
			    "DEC-14: a durable registration allowed without the PMEM API");
	KUNIT_EXPECT_EQ(test, siw2_durable_access(IB_ACCESS_LOCAL_WRITE |
						  IB_ACCESS_REMOTE_WRITE |
						  IB_ACCESS_FLUSH_GLOBAL), 0);
}

/* DEC-14: caps and registration follow the same gate on any kernel. */
static void pmem_gate_one_answer_dec_14(struct kunit *test)
{
	bool cap = siw2_pmem_capable();

	KUNIT_EXPECT_EQ(test, cap, IS_ENABLED(CONFIG_ARCH_HAS_PMEM_API));
	KUNIT_EXPECT_TRUE(test, siw2_flush_caps() & IB_DEVICE_FLUSH_GLOBAL);
	KUNIT_EXPECT_EQ_MSG(test,
			    !!(siw2_flush_caps() & IB_DEVICE_FLUSH_PERSISTENT), cap,
			    "DEC-14: FLUSH_PERSISTENT differs from the gate");
	KUNIT_EXPECT_EQ_MSG(test, siw2_durable_access(IB_ACCESS_FLUSH_PERSISTENT),
			    cap ? 0 : -EOPNOTSUPP,
			    "DEC-14: durable registration differs from the gate");
	KUNIT_EXPECT_EQ(test, siw2_durable_access(0), 0);
}

struct commit_case {
	const char *name;
	u32 arrival;		/* Status decided at arrival */
	u32 len;
	bool durable;		/* the range's MR */
	bool poisoned;		/* a page of the range */
	bool log;		/* a log update follows */
	bool log_durable;
	bool log_poisoned;
	u32 status;		/* the Response's Status */
	bool stored;		/* the log word is stored */
};

static const struct commit_case commit_cases[] = {
	{ "durable_range_ok_commit_dur_1", 0, 4096, true, false,
	  false, false, false, 0, false },
	{ "zero_len_ok_dec_12", 0, 0, false, false,
	  false, false, false, 0, false },
	{ "ram_range_not_durable_siw2_dec_2", 0, 4096, false, false,
	  false, false, false, 4, false },
	{ "poisoned_range_media_dec_13", 0, 4096, true, true,
	  false, false, false, 1, false },
	{ "poisoned_ram_range_media_dec_13", 0, 4096, false, true,
	  false, false, false, 1, false },
	{ "arrival_limits_kept_amb_14", 2, 4096, true, true,
	  false, false, false, 2, false },
	{ "log_durable_after_durable_siw2_dec_1", 0, 512, true, false,
	  true, true, false, 0, true },
	{ "log_ram_after_durable_siw2_dec_2", 0, 512, true, false,
	  true, false, false, 4, true },
	{ "log_ram_after_ram_siw2_dec_2", 0, 512, false, false,
	  true, false, false, 4, true },
	{ "log_durable_after_ram_refused_siw2_dec_1", 0, 512, false, false,
	  true, true, false, 5, false },
	{ "log_durable_after_zero_len_dec_12", 0, 0, false, false,
	  true, true, false, 0, true },
	{ "log_poisoned_media_dec_13", 0, 512, true, false,
	  true, true, true, 1, false },
	{ "log_poisoned_ram_media_dec_13", 0, 512, false, false,
	  true, false, true, 1, false },
	{ "log_after_poisoned_range_commit_atom_2", 0, 512, true, true,
	  true, true, false, 1, false },
	{ "log_after_limits_commit_atom_2", 2, 512, true, false,
	  true, true, false, 2, false },
};

static void commit_desc(const struct commit_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(commit, commit_cases, commit_desc);

/*
 * The Responder's flow (siw2_tx_commit_answer()): the range's Status,
 * then the log update only after a commit carried out, the word stored
 * only if that still holds after it.
 */
static void commit_status_table_dec_13(struct kunit *test)
{
	const struct commit_case *c = test->param_value;
	u32 st = siw2_commit_range_status(c->arrival, c->len, c->durable,
					  c->poisoned);
	bool stored = false;

	if (c->log && siw2_commit_done(st)) {
		st = siw2_commit_log_status(st, c->log_durable, c->log_poisoned);
		stored = siw2_commit_done(st);
	}
	KUNIT_EXPECT_EQ_MSG(test, st, c->status,
			    "DEC-13 SIW2-DEC-1 SIW2-DEC-2: %s", c->name);
	KUNIT_EXPECT_EQ_MSG(test, stored, c->stored,
			    "SIW2-DEC-1 COMMIT-ATOM-2: %s: log word stored", c->name);
}

/* DEC-20, COMMIT-ATOM-2: only 0 and 4 are a commit carried out. */
static void commit_done_statuses_dec_13(struct kunit *test)
{
	static const bool done[] = { true, false, false, false, true, false };
	u32 s;

	for (s = 0; s < ARRAY_SIZE(done); s++)
		KUNIT_EXPECT_EQ_MSG(test, siw2_commit_done(s), done[s],
				    "DEC-13: Status %u", s);
	KUNIT_EXPECT_FALSE(test, siw2_commit_done(0xffffffff));
}

static struct kunit_case siw2_pmem_cases[] = {
	KUNIT_CASE(no_pmem_api_no_durability_dec_14),
	KUNIT_CASE(pmem_gate_one_answer_dec_14),
	KUNIT_CASE_PARAM(commit_status_table_dec_13, commit_gen_params),
	KUNIT_CASE(commit_done_statuses_dec_13),
	{}
};

static struct kunit_suite siw2_pmem_suite = {
	.name = "siw2_pmem",
	.test_cases = siw2_pmem_cases,
};

kunit_test_suite(siw2_pmem_suite);
