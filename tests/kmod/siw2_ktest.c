// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_ktest: drives the kernel verbs API of one siw2 device the way a
 * kernel ULP does, including the verbs user space cannot reach
 * (get_dma_mr through ib_alloc_pd, alloc_mr + map_mr_sg).
 *
 *   insmod siw2_ktest.ko dev=siw2_a
 *
 * Prints "siw2_ktest: ok|not ok - NAME" per check and fails the load
 * (-EINVAL) if any check failed, so the caller sees the result in the
 * insmod exit status. The test script removes it after a successful load.
 */

#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

static char *dev = "siw2_a";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "siw2 device to test");

static int failures;

#define CHECK(cond, fmt, ...)                                              \
	do {                                                               \
		bool _ok = (cond);                                         \
		pr_info("siw2_ktest: %s - " fmt "\n", _ok ? "ok" : "not ok", \
			##__VA_ARGS__);                                    \
		if (!_ok)                                                  \
			failures++;                                        \
	} while (0)

#define CHECK_ERR(ptr, want, what)                                         \
	CHECK(IS_ERR(ptr) && PTR_ERR(ptr) == (want), "%s: want %d got %ld", \
	      what, want, IS_ERR(ptr) ? PTR_ERR(ptr) : 0L)

static void test_mr(struct ib_pd *pd)
{
	struct scatterlist sg[3];
	struct ib_mr *mr;
	void *buf;
	int i, n;

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 0);
	CHECK_ERR(mr, -EINVAL, "alloc_mr with 0 pages");
	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG,
			 pd->device->attrs.max_fast_reg_page_list_len + 1);
	CHECK_ERR(mr, -EINVAL, "alloc_mr above max_fast_reg_page_list_len");
	mr = ib_alloc_mr(pd, IB_MR_TYPE_SG_GAPS, 4);
	CHECK_ERR(mr, -EOPNOTSUPP, "alloc_mr of type SG_GAPS");

	mr = ib_alloc_mr(pd, IB_MR_TYPE_MEM_REG, 2);
	CHECK(!IS_ERR(mr), "alloc_mr with 2 pages");
	if (IS_ERR(mr))
		return;
	CHECK(mr->lkey == mr->rkey && mr->lkey, "fast-reg MR has one STag %#x",
	      mr->lkey);

	buf = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
	if (!buf) {
		CHECK(false, "allocate test buffer");
		goto out;
	}
	sg_init_table(sg, 3);
	for (i = 0; i < 3; i++)
		sg_set_buf(&sg[i], buf + i * PAGE_SIZE, PAGE_SIZE);
	/* siw2 registers without a DMA device: the core maps virtually. */
	n = ib_dma_map_sg(pd->device, sg, 3, DMA_BIDIRECTIONAL);
	CHECK(n == 3, "dma_map_sg of 3 pages gives %d", n);

	n = ib_map_mr_sg(mr, sg, 2, NULL, PAGE_SIZE);
	CHECK(n == 2, "map_mr_sg maps 2 of 2 pages (got %d)", n);
	CHECK(mr->iova == (u64)(uintptr_t)buf && mr->length == 2 * PAGE_SIZE,
	      "MR iova/length follow the page list");
	n = ib_map_mr_sg(mr, sg, 3, NULL, PAGE_SIZE);
	CHECK(n == 2, "map_mr_sg stops at the MR's 2-page capacity (got %d)", n);
	ib_dma_unmap_sg(pd->device, sg, 3, DMA_BIDIRECTIONAL);
	kfree(buf);
out:
	CHECK(!ib_dereg_mr(mr), "dereg fast-reg MR");
}

static void test_cq_qp(struct ib_pd *pd)
{
	struct ib_device *ibdev = pd->device;
	struct ib_qp_init_attr init = {}, qinit;
	struct ib_qp_attr attr = {};
	const struct ib_recv_wr *bad_rwr;
	const struct ib_send_wr *bad_swr;
	struct ib_recv_wr rwr = {};
	struct ib_send_wr swr = {};
	struct ib_wc wc[8];
	struct ib_cq *cq, *bad;
	struct ib_qp *qp;
	int i, n, rv;

	bad = ib_alloc_cq(ibdev, NULL, ibdev->attrs.max_cqe + 1, 0,
			  IB_POLL_DIRECT);
	CHECK_ERR(bad, -EINVAL, "CQ above max_cqe");
	cq = ib_alloc_cq(ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	CHECK(!IS_ERR(cq), "alloc CQ of 16");
	if (IS_ERR(cq))
		return;

	init.send_cq = cq;
	init.recv_cq = cq;
	init.qp_type = IB_QPT_UD;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 4;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	qp = ib_create_qp(pd, &init);
	CHECK_ERR(qp, -EOPNOTSUPP, "UD QP");
	init.qp_type = IB_QPT_RC;
	init.cap.max_send_sge = ibdev->attrs.max_send_sge + 1;
	qp = ib_create_qp(pd, &init);
	CHECK_ERR(qp, -EINVAL, "QP above max_send_sge");
	init.cap.max_send_sge = 1;
	qp = ib_create_qp(pd, &init);
	CHECK(!IS_ERR(qp), "RC QP");
	if (IS_ERR(qp))
		goto out_cq;

	/* iWARP verbs have no Reset state: an RNIC's new QP is in INIT. */
	rv = ib_query_qp(qp, &attr, IB_QP_STATE, &qinit);
	CHECK(!rv && attr.qp_state == IB_QPS_INIT && attr.cur_qp_state == IB_QPS_INIT,
	      "new QP is INIT: %d, state %d", rv, attr.qp_state);
	attr.qp_state = IB_QPS_RESET;
	rv = ib_modify_qp(qp, &attr, IB_QP_STATE);
	CHECK(!rv, "INIT -> RESET: %d", rv);
	rv = ib_post_recv(qp, &rwr, &bad_rwr);
	CHECK(rv == -EINVAL, "post_recv in RESET: %d", rv);
	attr.qp_state = IB_QPS_INIT;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ;
	rv = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	CHECK(!rv, "RESET -> INIT: %d", rv);
	for (i = 0; i < 4; i++) {
		rwr.wr_id = 100 + i;
		rv = ib_post_recv(qp, &rwr, &bad_rwr);
		CHECK(!rv, "post_recv %d in INIT: %d", i, rv);
	}
	rv = ib_post_recv(qp, &rwr, &bad_rwr);
	CHECK(rv == -ENOMEM && bad_rwr == &rwr, "post_recv beyond depth: %d", rv);
	swr.opcode = IB_WR_SEND;
	rv = ib_post_send(qp, &swr, &bad_swr);
	CHECK(rv == -ENOTCONN, "post_send before RTS: %d", rv);
	attr.qp_state = IB_QPS_RTS;
	rv = ib_modify_qp(qp, &attr, IB_QP_STATE);
	CHECK(rv == -ENOTCONN, "INIT -> RTS without a connection: %d", rv);

	attr.qp_state = IB_QPS_ERR;
	rv = ib_modify_qp(qp, &attr, IB_QP_STATE);
	CHECK(!rv, "INIT -> ERR: %d", rv);
	n = ib_poll_cq(cq, ARRAY_SIZE(wc), wc);
	CHECK(n == 4, "4 receives flushed (got %d)", n);
	for (i = 0; i < n; i++)
		CHECK(wc[i].status == IB_WC_WR_FLUSH_ERR &&
		      wc[i].opcode == IB_WC_RECV && wc[i].wr_id == 100 + i &&
		      wc[i].qp == qp, "flush completion %d in order", i);
	swr.wr_id = 7;
	rv = ib_post_send(qp, &swr, &bad_swr);
	n = ib_poll_cq(cq, ARRAY_SIZE(wc), wc);
	CHECK(!rv && n == 1 && wc[0].wr_id == 7 &&
	      wc[0].status == IB_WC_WR_FLUSH_ERR,
	      "send posted in ERR completes flushed at once");

	rv = ib_destroy_qp(qp);
	CHECK(!rv, "destroy QP: %d", rv);
out_cq:
	ib_free_cq(cq);
}

static void test_srq(struct ib_pd *pd)
{
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 2, .max_sge = 1 },
	};
	const struct ib_recv_wr *bad;
	struct ib_recv_wr wr = {};
	struct ib_srq_attr attr;
	struct ib_srq *srq;
	int rv;

	srq = ib_create_srq(pd, &init);
	CHECK(!IS_ERR(srq), "create SRQ of 2");
	if (IS_ERR(srq))
		return;
	CHECK(!ib_post_srq_recv(srq, &wr, &bad) &&
	      !ib_post_srq_recv(srq, &wr, &bad), "post 2 SRQ receives");
	rv = ib_post_srq_recv(srq, &wr, &bad);
	CHECK(rv == -ENOMEM, "post beyond SRQ depth: %d", rv);
	attr.srq_limit = 2;
	rv = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	CHECK(rv == -EINVAL, "SRQ limit not below depth: %d", rv);
	attr.srq_limit = 1;
	rv = ib_modify_srq(srq, &attr, IB_SRQ_LIMIT);
	CHECK(!rv && !ib_query_srq(srq, &attr) && attr.srq_limit == 1 &&
	      attr.max_wr == 2, "arm SRQ limit and query it");
	ib_destroy_srq(srq);
}

static int __init siw2_ktest_init(void)
{
	char fw[IB_FW_VERSION_NAME_MAX] = "";
	struct ib_device *ibdev;
	struct ib_pd *pd;

	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		pr_err("siw2_ktest: no device %s\n", dev);
		return -ENODEV;
	}
	ib_get_device_fw_str(ibdev, fw);
	CHECK(!strncmp(fw, "siw2-", 5), "%s is a siw2 device (fw_ver %s)",
	      dev, fw);
	if (failures)
		goto out;

	/* Without a local DMA lkey, ib_alloc_pd() calls get_dma_mr. */
	pd = ib_alloc_pd(ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	CHECK(!IS_ERR(pd), "alloc PD with a global rkey (get_dma_mr)");
	if (IS_ERR(pd))
		goto out;
	CHECK(pd->local_dma_lkey && pd->unsafe_global_rkey,
	      "PD has a local DMA lkey and a global rkey");
	test_mr(pd);
	test_cq_qp(pd);
	test_srq(pd);
	ib_dealloc_pd(pd);
out:
	ib_device_put(ibdev);
	pr_info("siw2_ktest: %s: %d failure(s)\n", dev, failures);
	return failures ? -EINVAL : 0;
}

static void __exit siw2_ktest_exit(void)
{
}

module_init(siw2_ktest_init);
module_exit(siw2_ktest_exit);
MODULE_DESCRIPTION("siw2 kernel verbs test");
MODULE_LICENSE("Dual BSD/GPL");
