// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_kext: the RDMAP extension operations from kernel verbs, as a
 * kernel ULP posts them: an rdma_cm client in the initial namespace
 * against "siw2_ext -s" (tests/progs/siw2_ext_proto.h), which reports
 * every receive it consumed.
 *
 *   insmod siw2_kext.ko addr=IPV4 port=N [rv2=1] [read_v2=0] [timeout_ms=T]
 *
 * Everything runs in the module's init: it prints
 * "siw2_kext: ok|not ok - NAME" per check and fails the load (-EINVAL)
 * if any check failed, so insmod's exit status is the verdict; the test
 * script removes the module after a successful load. Checks:
 *   write-imm   IB_WR_RDMA_WRITE_WITH_IMM of 1000 octets, the server's
 *               report (IB_WC_RECV_RDMA_WITH_IMM, 0 octets, the immediate
 *               as octets 0..3 of 8, DEC-5) and a Read of the data back
 *   imm-only    the same with no data: Immediate Data alone (DEC-16)
 *   send-imm    IB_WR_SEND_WITH_IMM of 3000 octets, reported with the
 *               payload checked; with rv2=0 the post must fail -EOPNOTSUPP
 *   inline      (rv2=1) the same, 64 octets inline from unregistered
 *               memory overwritten once the post returns; 65 are refused
 *   fetch-add, cmp-swap, masked-fetch-add, masked-cmp-swap, atomic-write:
 *               the returned original value and the target's new value,
 *               read back (masked semantics of DIGEST 2.2.5)
 *   inv-imm, inv-imm-se (rv2=1) a Send with Invalidate (and SE) and
 *               Immediate Data from the server invalidates a fast-
 *               registration STag of ours and reports it
 *   read        with read_v2=1 a Read into 3 SGEs (a Read V2); else a
 *               3-SGE Read is refused (-EINVAL) and a 1-SGE one works
 *   flush-wr    IB_WR_FLUSH through ib_post_send() is refused
 *               (-EOPNOTSUPP: no kernel work request carries its length)
 *   commit      with commit=1 (the connection negotiated Commit) a Write
 *               and a persistent RDMA Commit of it through
 *               siw2_post_commit(): the peer's memory is not durable, so
 *               it completes as IB_WC_FLUSH with IB_WC_REM_ACCESS_ERR and
 *               vendor_err 4, and a global Commit of it on the same QP
 *               then succeeds (SIW2-DEC-2); with commit=0 the post fails
 *               with -EOPNOTSUPP (DEC-4); a type of 0 is -EINVAL
 *   commit-log  (commit=1) a global Commit with a log update
 *               (SIW2-DEC-1): a misaligned log word is refused (-EINVAL),
 *               an aligned one reads back as the value after the Commit
 *               completed
 */

#include <linux/completion.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "siw2_compat.h"	/* IB_WR_FLUSH and IB_WC_FLUSH before 6.2 */

#include <siw2/kapi.h>

#include "../progs/siw2_ext_proto.h"

static char *addr = "198.18.68.1";
module_param(addr, charp, 0444);
MODULE_PARM_DESC(addr, "server IPv4 address");
static ushort port = 7790;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "server port");
static bool rv2 = true;
module_param(rv2, bool, 0444);
MODULE_PARM_DESC(rv2, "the connection negotiates RDMAP version 2");
static bool read_v2;
module_param(read_v2, bool, 0444);
MODULE_PARM_DESC(read_v2, "siw2's read_v2 is on: Reads go as Read V2");
static bool commit;
module_param(commit, bool, 0444);
MODULE_PARM_DESC(commit, "the connection negotiates RDMA Commit");
static uint timeout_ms = 10000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "limit on every wait");

#define KX_BUF		(64 * 1024)
#define KX_RPT		(KX_BUF - 4096)	/* report receive buffers */
#define KX_RECVS	4
#define KX_INLINE	64	/* the QP's max_inline_data */

static int failures;

#define CHECK(cond, fmt, ...)						\
	do {								\
		bool _ok = (cond);					\
		pr_info("siw2_kext: %s - " fmt "\n",			\
			_ok ? "ok" : "not ok", ##__VA_ARGS__);		\
		if (!_ok)						\
			failures++;					\
	} while (0)

/* The last rdma_cm event, for the one waiter. */
static struct {
	struct completion done;
	enum rdma_cm_event_type type;
	int status;
	struct siw2_ext_hello hello;
	bool have_hello;
} kx_ev;

static struct rdma_cm_id *kx_id;
static struct ib_pd *kx_pd;
static struct ib_cq *kx_cq;
static u8 *kx_buf;
static u64 kx_dma;
static struct siw2_ext_hello peer;
static u32 kx_seq;

static int kx_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	kx_ev.type = ev->event;
	kx_ev.status = ev->status;
	if (ev->event == RDMA_CM_EVENT_ESTABLISHED &&
	    ev->param.conn.private_data_len >= sizeof(kx_ev.hello)) {
		memcpy(&kx_ev.hello, ev->param.conn.private_data,
		       sizeof(kx_ev.hello));
		kx_ev.have_hello = true;
	}
	complete(&kx_ev.done);
	return 0;
}

static int kx_wait_event(enum rdma_cm_event_type want)
{
	if (!wait_for_completion_timeout(&kx_ev.done,
					 msecs_to_jiffies(timeout_ms))) {
		pr_info("siw2_kext: no event in %u ms, expected %s\n",
			timeout_ms, rdma_event_msg(want));
		return -ETIMEDOUT;
	}
	reinit_completion(&kx_ev.done);
	if (kx_ev.type != want) {
		pr_info("siw2_kext: event %s (status %d), expected %s\n",
			rdma_event_msg(kx_ev.type), kx_ev.status,
			rdma_event_msg(want));
		return -EPROTO;
	}
	return 0;
}

/* The next completion within timeout_ms; false if none came. */
static bool kx_poll(struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(timeout_ms);

	while (ib_poll_cq(kx_cq, 1, wc) < 1) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(50, 200);
	}
	return true;
}

static struct ib_sge kx_sge(u32 off, u32 len)
{
	return (struct ib_sge){ .addr = kx_dma + off, .length = len,
				.lkey = kx_pd->local_dma_lkey };
}

static int kx_post_recv(u32 i)
{
	struct ib_sge sge = kx_sge(KX_RPT + i * 256, 256);
	struct ib_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };

	return ib_post_recv(kx_id->qp, &wr, NULL);
}

/*
 * Wait for @wr's completion (kx_complete), or post it and wait (kx_run);
 * a report that overtakes it is kept for kx_report().
 * Return: 0, or a negative error.
 */
static struct ib_wc kx_early;
static bool kx_have_early;

static int kx_complete(const struct ib_send_wr *wr, enum ib_wc_opcode op)
{
	struct ib_wc wc;

	for (;;) {
		if (!kx_poll(&wc))
			return -ETIMEDOUT;
		if (wc.status == IB_WC_SUCCESS && (wc.opcode & IB_WC_RECV) &&
		    !kx_have_early) {
			kx_early = wc;
			kx_have_early = true;
			continue;
		}
		break;
	}
	if (wc.status != IB_WC_SUCCESS || wc.opcode != op ||
	    wc.wr_id != wr->wr_id) {
		pr_info("siw2_kext: completion status %d opcode %d wr_id %llu\n",
			wc.status, wc.opcode, wc.wr_id);
		return -EIO;
	}
	return 0;
}

static int kx_run(struct ib_send_wr *wr, enum ib_wc_opcode op)
{
	int rv;

	wr->send_flags |= IB_SEND_SIGNALED;
	rv = ib_post_send(kx_id->qp, wr, NULL);
	return rv ?: kx_complete(wr, op);
}

/* The server's next report into @r. Return: 0 or a negative error. */
static int kx_report(struct siw2_ext_report *r)
{
	struct ib_wc wc;

	if (kx_have_early) {
		wc = kx_early;
		kx_have_early = false;
	} else if (!kx_poll(&wc)) {
		return -ETIMEDOUT;
	}
	if (wc.status != IB_WC_SUCCESS || !(wc.opcode & IB_WC_RECV) ||
	    wc.byte_len != sizeof(*r))
		return -EIO;
	memcpy(r, kx_buf + KX_RPT + wc.wr_id * 256, sizeof(*r));
	kx_post_recv(wc.wr_id);
	kx_seq++;
	return r->seq == kx_seq ? 0 : -EPROTO;
}

static bool kx_report_ok(const struct siw2_ext_report *r, u32 opcode,
			 u32 len, u64 imm64)
{
	return !r->status && r->opcode == opcode && r->byte_len == len &&
	       (r->wc_flags & 2) && r->imm64 == imm64 &&
	       r->imm_data == (__force u32)cpu_to_be32(imm64 >> 32) &&
	       r->data_ok;
}

/* RDMA Write @len octets at @off of the buffer to window offset @roff. */
static int kx_write(u32 off, u32 len, u32 roff, enum ib_wr_opcode op,
		    u32 imm)
{
	struct ib_sge sge = kx_sge(off, len);
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 1, .sg_list = &sge, .num_sge = len ? 1 : 0,
			.opcode = op, .ex.imm_data = cpu_to_be32(imm) },
		.remote_addr = peer.addr + roff, .rkey = peer.rkey,
	};

	return kx_run(&wr.wr, IB_WC_RDMA_WRITE);
}

static int kx_read(struct ib_sge *sg, int n, u32 roff)
{
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 2, .sg_list = sg, .num_sge = n,
			.opcode = IB_WR_RDMA_READ },
		.remote_addr = peer.addr + roff, .rkey = peer.rkey,
	};

	return kx_run(&wr.wr, IB_WC_RDMA_READ);
}

static u64 kx_peek(u32 roff)
{
	struct ib_sge sge = kx_sge(8192, 8);
	u64 v = 0;

	if (!kx_read(&sge, 1, roff))
		memcpy(&v, kx_buf + 8192, 8);
	return v;
}

static void kx_seed(u32 roff, u64 v)
{
	memcpy(kx_buf + 8200, &v, 8);
	kx_write(8200, 8, roff, IB_WR_RDMA_WRITE, 0);
}

/* One atomic on window offset @roff; returns the original value. */
static u64 kx_atomic(enum ib_wr_opcode op, u32 roff, u64 ca, u64 swap,
		     u64 ca_mask, u64 swap_mask, enum ib_wc_opcode want,
		     int *rv)
{
	struct ib_sge sge = kx_sge(8208, 8);
	struct ib_atomic_wr wr = {
		.wr = { .wr_id = 3, .sg_list = &sge, .num_sge = 1,
			.opcode = op },
		.remote_addr = peer.addr + roff, .compare_add = ca,
		.swap = swap, .compare_add_mask = ca_mask,
		.swap_mask = swap_mask, .rkey = peer.rkey,
	};
	u64 v = 0;

	*rv = kx_run(&wr.wr, want);
	memcpy(&v, kx_buf + 8208, 8);
	return v;
}

/* DIGEST 2.2.5's FetchAdd with an Add Mask, bit by bit. */
static u64 kx_fetchadd_ref(u64 orig, u64 add, u64 mask)
{
	unsigned int bit, carry = 0, sum;
	u64 res = 0, m;

	for (bit = 0; bit < 64; bit++) {
		m = 1ULL << bit;
		sum = carry + !!(orig & m) + !!(add & m);
		carry = (sum >> 1) & 1;
		if (sum & 1)
			res |= m;
		carry = carry && !(mask & m);
	}
	return res;
}

static void kx_imm_steps(void)
{
	struct siw2_ext_report r = {};
	struct ib_sge sge;
	struct ib_send_wr wr = {};
	int rv, i;

	for (i = 0; i < 1000; i++)
		kx_buf[i] = (u8)(i * 5 + 1);
	rv = kx_write(0, 1000, 4096, IB_WR_RDMA_WRITE_WITH_IMM, 0x11223344);
	rv = rv ?: kx_report(&r);
	CHECK(!rv && kx_report_ok(&r, 129, 0, 0x1122334400000000ULL),
	      "write-imm [EXT-IMM-1] (rv %d, server opcode %u len %u imm64 0x%llx)", rv,
	      r.opcode, r.byte_len, r.imm64);
	sge = kx_sge(2048, 1000);
	rv = kx_read(&sge, 1, 4096);
	CHECK(!rv && !memcmp(kx_buf, kx_buf + 2048, 1000),
	      "write-imm data read back (rv %d)", rv);

	rv = kx_write(0, 0, 4096, IB_WR_RDMA_WRITE_WITH_IMM, 0xcafe0002);
	rv = rv ?: kx_report(&r);
	CHECK(!rv && kx_report_ok(&r, 129, 0, 0xcafe000200000000ULL),
	      "imm-only (rv %d, server opcode %u len %u)", rv, r.opcode,
	      r.byte_len);

	for (i = 0; i < 3000; i++)
		kx_buf[i] = siw2_ext_byte(i, kx_seq + 1);
	sge = kx_sge(0, 3000);
	wr = (struct ib_send_wr){ .wr_id = 4, .sg_list = &sge, .num_sge = 1,
				  .opcode = IB_WR_SEND_WITH_IMM,
				  .send_flags = IB_SEND_SOLICITED,
				  .ex.imm_data = cpu_to_be32(0xa5a5a5a5) };
	if (!rv2) {
		rv = ib_post_send(kx_id->qp, &wr, NULL);
		CHECK(rv == -EOPNOTSUPP, "send-imm refused on RV 1 (rv %d)", rv);
		return;
	}
	rv = kx_run(&wr, IB_WC_SEND);
	rv = rv ?: kx_report(&r);
	CHECK(!rv && kx_report_ok(&r, 128, 3000, 0xa5a5a5a500000000ULL),
	      "send-imm (rv %d, server opcode %u len %u data_ok %u)", rv,
	      r.opcode, r.byte_len, r.data_ok);
}

/*
 * A Send with Immediate Data whose payload is inline (IB_SEND_INLINE):
 * copied at post time from memory that is neither registered nor mapped,
 * so overwriting it as soon as the post returns changes nothing the peer
 * sees; one octet over the QP's max_inline_data is refused.
 */
static void kx_inline_step(void)
{
	struct siw2_ext_report r = {};
	struct ib_send_wr wr;
	struct ib_sge sge;
	u8 *src;
	int i, rv;

	src = kmalloc(KX_INLINE + 1, GFP_KERNEL);
	if (!src) {
		CHECK(false, "inline: no memory");
		return;
	}
	for (i = 0; i < KX_INLINE; i++)
		src[i] = siw2_ext_byte(i, kx_seq + 1);
	sge = (struct ib_sge){ .addr = (uintptr_t)src, .length = KX_INLINE };
	wr = (struct ib_send_wr){ .wr_id = 5, .sg_list = &sge, .num_sge = 1,
				  .opcode = IB_WR_SEND_WITH_IMM,
				  .send_flags = IB_SEND_INLINE | IB_SEND_SIGNALED,
				  .ex.imm_data = cpu_to_be32(0x5a5a0001) };
	rv = ib_post_send(kx_id->qp, &wr, NULL);
	memset(src, 0xee, KX_INLINE + 1);
	rv = rv ?: kx_complete(&wr, IB_WC_SEND);
	rv = rv ?: kx_report(&r);
	CHECK(!rv && kx_report_ok(&r, 128, KX_INLINE, 0x5a5a000100000000ULL),
	      "inline send-imm of %u octets, source overwritten after the post (rv %d, server opcode %u len %u data_ok %u)",
	      KX_INLINE, rv, r.opcode, r.byte_len, r.data_ok);
	sge.length = KX_INLINE + 1;
	rv = ib_post_send(kx_id->qp, &wr, NULL);
	CHECK(rv == -EINVAL, "inline of max_inline_data + 1 refused (rv %d)", rv);
	kfree(src);
}

static void kx_atomic_steps(void)
{
	const u64 fa_orig = 0x00000001ffffffffULL, fa_add = 0x0000000100000001ULL;
	const u64 fa_mask = 0x8000000080000000ULL;
	const u64 cs_orig = 0xaaaaaaaa55555555ULL;
	const u64 aw = 0x0102030405060708ULL;
	struct ib_sge sge;
	struct ib_rdma_wr wr;
	u64 v, want;
	int rv;

	kx_seed(0, 41);
	v = kx_atomic(IB_WR_ATOMIC_FETCH_AND_ADD, 0, 1, 0, 0, 0,
		      IB_WC_FETCH_ADD, &rv);
	CHECK(!rv && v == 41 && kx_peek(0) == 42,
	      "fetch-add [EXT-ATOMIC-1] (rv %d, orig %llu)", rv, v);

	kx_seed(8, 7);
	v = kx_atomic(IB_WR_ATOMIC_CMP_AND_SWP, 8, 7, 99, 0, 0,
		      IB_WC_COMP_SWAP, &rv);
	CHECK(!rv && v == 7 && kx_peek(8) == 99,
	      "cmp-swap [EXT-ATOMIC-1] (rv %d, orig %llu)", rv, v);

	kx_seed(16, fa_orig);
	v = kx_atomic(IB_WR_MASKED_ATOMIC_FETCH_AND_ADD, 16, fa_add, 0,
		      fa_mask, 0, IB_WC_MASKED_FETCH_ADD, &rv);
	want = kx_fetchadd_ref(fa_orig, fa_add, fa_mask);
	CHECK(!rv && v == fa_orig && want == 0x0000000200000000ULL &&
	      kx_peek(16) == want,
	      "masked-fetch-add [EXT-ATOMIC-1] (rv %d, new 0x%llx)", rv, kx_peek(16));

	kx_seed(24, cs_orig);
	v = kx_atomic(IB_WR_MASKED_ATOMIC_CMP_AND_SWP, 24,
		      0x1234567855555555ULL, 0xdeadbeef00000000ULL,
		      0x00000000ffffffffULL, 0xffffffff00000000ULL,
		      IB_WC_MASKED_COMP_SWAP, &rv);
	CHECK(!rv && v == cs_orig && kx_peek(24) == 0xdeadbeef55555555ULL,
	      "masked-cmp-swap [EXT-ATOMIC-1] (rv %d, new 0x%llx)", rv, kx_peek(24));

	memcpy(kx_buf + 8216, &aw, 8);
	sge = kx_sge(8216, 8);
	wr = (struct ib_rdma_wr){
		.wr = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
			.opcode = IB_WR_ATOMIC_WRITE },
		.remote_addr = peer.addr + 32, .rkey = peer.rkey,
	};
	rv = kx_run(&wr.wr, IB_WC_ATOMIC_WRITE);
	CHECK(!rv && kx_peek(32) == aw, "atomic-write [EXT-ATOMIC-1] (rv %d)", rv);
}

/*
 * Send with Invalidate and Immediate Data towards us (0x14, and 0x16
 * with SE): the server sends it on request (struct siw2_ext_invi) naming
 * a fast-registration STag of ours. The kernel's ib_wc holds one of the
 * two: siw2 reports the invalidation (DIGEST 4.1); the STag must then be
 * invalid, which a second registration with a new key proves.
 */
static void kx_inv_imm_step(void)
{
	struct siw2_ext_invi *req = (void *)(kx_buf + 40960);
	struct ib_sge sge = kx_sge(40960, sizeof(*req));
	struct ib_send_wr wr = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				 .opcode = IB_WR_SEND };
	struct ib_reg_wr reg = { .wr = { .wr_id = 8, .opcode = IB_WR_REG_MR },
				 .access = IB_ACCESS_LOCAL_WRITE |
					   IB_ACCESS_REMOTE_WRITE };
	struct scatterlist sg;
	struct ib_mr *mr;
	struct ib_wc wc;
	int rv, n, se;

	mr = ib_alloc_mr(kx_pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(mr)) {
		CHECK(false, "inv-imm: alloc_mr %ld", PTR_ERR(mr));
		return;
	}
	sg_init_one(&sg, kx_buf + 49152, PAGE_SIZE / 2);
	sg_dma_address(&sg) = kx_dma + 49152;
	sg_dma_len(&sg) = PAGE_SIZE / 2;
	for (se = 0; se < 2; se++) {
		ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
		n = ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE);
		reg.mr = mr;
		reg.key = mr->rkey;
		rv = n == 1 ? kx_run(&reg.wr, IB_WC_REG_MR) : -EINVAL;
		req->magic = SIW2_EXT_INVI_MAGIC;
		req->stag = mr->rkey;
		req->se = se;
		rv = rv ?: kx_run(&wr, IB_WC_SEND);
		kx_seq++;	/* the request counts as a report number */
		if (!rv && kx_have_early) {
			wc = kx_early;
			kx_have_early = false;
		} else if (!rv && !kx_poll(&wc)) {
			rv = -ETIMEDOUT;
		}
		if (!rv)
			kx_post_recv(wc.wr_id);
		/* V2-HDR-6: 0x14/0x16 carried our STag in RsvdULP: reported invalidated. */
		CHECK(!rv && wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_RECV &&
		      !wc.byte_len && (wc.wc_flags & IB_WC_WITH_INVALIDATE) &&
		      wc.ex.invalidate_rkey == mr->rkey,
		      "inv-imm%s [V2-HDR-6 V2-CAP-2] (rv %d, status %d, flags 0x%x, inv 0x%x/0x%x)",
		      se ? "-se" : "", rv, wc.status, wc.wc_flags,
		      wc.ex.invalidate_rkey, mr->rkey);
	}
	ib_dereg_mr(mr);
}

static void kx_read_step(void)
{
	struct ib_sge sg[3] = { kx_sge(16384, 100), kx_sge(20000, 5000),
				kx_sge(30000, 27) };
	struct ib_rdma_wr wr = {
		.wr = { .wr_id = 6, .sg_list = sg, .num_sge = 3,
			.opcode = IB_WR_RDMA_READ },
		.remote_addr = peer.addr + 8192, .rkey = peer.rkey,
	};
	u32 i, k, o = 0;
	bool same = true;
	int rv;

	if (!read_v2) {
		rv = ib_post_send(kx_id->qp, &wr.wr, NULL);
		CHECK(rv == -EINVAL, "3-SGE Read refused without Read V2 (rv %d)",
		      rv);
		sg[0].length = 5127;
		wr.wr.num_sge = 1;
	}
	rv = kx_run(&wr.wr, IB_WC_RDMA_READ);
	for (k = 0; k < wr.wr.num_sge; k++)
		for (i = 0; i < sg[k].length; i++, o++)
			same &= kx_buf[sg[k].addr - kx_dma + i] ==
				siw2_ext_byte(8192 + o, 0);
	CHECK(!rv && same, "read into %d SGE(s) (rv %d)", wr.wr.num_sge, rv);
}

/*
 * A Commit with a log update (SIW2-DEC-1): a misaligned log word is
 * refused at post time; an aligned one holds the value once the Commit
 * completed, read back.
 */
static void kx_commit_log_step(void)
{
	struct siw2_commit_log log = {
		.rkey = peer.rkey, .raddr = peer.addr + 5124,
		.value = 0x0123456789abcdefULL,
	};
	struct ib_wc wc = {};
	int rv;

	kx_seed(5120, 0);
	rv = siw2_post_commit(kx_id->qp, 10, peer.rkey, peer.addr + 4096, 1000,
			      &log, SIW2_COMMIT_GLOBAL, IB_SEND_SIGNALED);
	CHECK(rv == -EINVAL, "commit-log misaligned word refused (rv %d)", rv);
	log.raddr = peer.addr + 5120;
	rv = siw2_post_commit(kx_id->qp, 11, peer.rkey, peer.addr + 4096, 1000,
			      &log, SIW2_COMMIT_GLOBAL, IB_SEND_SIGNALED);
	if (!rv && !kx_poll(&wc))
		rv = -ETIMEDOUT;
	CHECK(!rv && wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_FLUSH &&
	      wc.wr_id == 11 && kx_peek(5120) == log.value,
	      "commit-log: the log word holds 0x%llx (rv %d, status %d)",
	      kx_peek(5120), rv, wc.status);
}

/*
 * No DMA MR is durable: all of kernel memory is not persistent memory.
 * No core API asks a driver for one with the Flush right, so the
 * driver's op is called directly (and its MR, if any, freed the same
 * way).
 */
static void kx_durable_dma_mr(void)
{
	struct ib_device *dev = kx_pd->device;
	struct ib_mr *mr;

	mr = dev->ops.get_dma_mr(kx_pd, IB_ACCESS_LOCAL_WRITE |
				 IB_ACCESS_FLUSH_PERSISTENT);
	CHECK(IS_ERR(mr) && PTR_ERR(mr) == -EMEDIUMTYPE,
	      "a durable DMA MR refused with EMEDIUMTYPE (%ld)",
	      IS_ERR(mr) ? PTR_ERR(mr) : 0L);
	if (!IS_ERR(mr)) {
		mr->device = dev;
		mr->pd = kx_pd;
		dev->ops.dereg_mr(mr, NULL);
	}
}

static void kx_commit_step(void)
{
	struct ib_rdma_wr fw = {
		.wr = { .wr_id = 8, .opcode = IB_WR_FLUSH },
		.remote_addr = peer.addr + 4096, .rkey = peer.rkey,
	};
	struct ib_wc wc = {};
	int rv;

	rv = ib_post_send(kx_id->qp, &fw.wr, NULL);
	CHECK(rv == -EOPNOTSUPP, "flush-wr IB_WR_FLUSH refused (rv %d)", rv);
	if (!commit) {
		rv = siw2_post_commit(kx_id->qp, 9, peer.rkey, peer.addr + 4096,
				      1000, NULL, SIW2_COMMIT_PERSISTENT,
				      IB_SEND_SIGNALED);
		CHECK(rv == -EOPNOTSUPP,
		      "commit refused without negotiation (rv %d)", rv);
		return;
	}
	rv = siw2_post_commit(kx_id->qp, 9, peer.rkey, peer.addr + 4096,
			      1000, NULL, 0, IB_SEND_SIGNALED);
	CHECK(rv == -EINVAL, "commit of no type refused (rv %d)", rv);
	kx_durable_dma_mr();
	rv = kx_write(0, 1000, 4096, IB_WR_RDMA_WRITE, 0);
	rv = rv ?: siw2_post_commit(kx_id->qp, 9, peer.rkey, peer.addr + 4096,
				    1000, NULL, SIW2_COMMIT_PERSISTENT,
				    IB_SEND_SIGNALED);
	if (!rv && !kx_poll(&wc))
		rv = -ETIMEDOUT;
	CHECK(!rv && wc.status == IB_WC_REM_ACCESS_ERR &&
	      wc.opcode == IB_WC_FLUSH && wc.wr_id == 9 &&
	      wc.vendor_err == SIW2_COMMIT_STATUS_NOT_DURABLE,
	      "SIW2-DEC-2: persistent commit of memory not durable (rv %d, status %d, opcode %d, vendor_err %u)",
	      rv, wc.status, wc.opcode, wc.vendor_err);
	rv = siw2_post_commit(kx_id->qp, 12, peer.rkey, peer.addr + 4096,
			      1000, NULL, SIW2_COMMIT_GLOBAL, IB_SEND_SIGNALED);
	if (!rv && !kx_poll(&wc))
		rv = -ETIMEDOUT;
	CHECK(!rv && wc.status == IB_WC_SUCCESS && wc.opcode == IB_WC_FLUSH &&
	      wc.wr_id == 12,
	      "SIW2-DEC-2: global commit of a Write's 1000 octets, same QP (rv %d, status %d, opcode %d)",
	      rv, wc.status, wc.opcode);
	kx_commit_log_step();
}

static void kx_teardown(void)
{
	if (kx_id && kx_id->qp)
		rdma_destroy_qp(kx_id);
	if (kx_cq)
		ib_free_cq(kx_cq);
	if (kx_buf && kx_pd)
		ib_dma_unmap_single(kx_pd->device, kx_dma, KX_BUF,
				    DMA_BIDIRECTIONAL);
	if (kx_pd)
		ib_dealloc_pd(kx_pd);
	if (kx_id)
		rdma_destroy_id(kx_id);
	kfree(kx_buf);
}

static int kx_connect(void)
{
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
	};
	struct ib_qp_init_attr qa = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = { .max_send_wr = 16, .max_recv_wr = KX_RECVS,
			 .max_send_sge = 3, .max_recv_sge = 1,
			 .max_inline_data = KX_INLINE },
	};
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	int rv, i;

	if (!in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	init_completion(&kx_ev.done);
	kx_id = rdma_create_id(&init_net, kx_handler, NULL, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (IS_ERR(kx_id)) {
		rv = PTR_ERR(kx_id);
		kx_id = NULL;
		return rv;
	}
	rv = rdma_resolve_addr(kx_id, NULL, (struct sockaddr *)&sin,
			       timeout_ms);
	rv = rv ?: kx_wait_event(RDMA_CM_EVENT_ADDR_RESOLVED);
	rv = rv ?: rdma_resolve_route(kx_id, timeout_ms);
	rv = rv ?: kx_wait_event(RDMA_CM_EVENT_ROUTE_RESOLVED);
	if (rv)
		return rv;
	kx_pd = ib_alloc_pd(kx_id->device, 0);
	if (IS_ERR(kx_pd)) {
		rv = PTR_ERR(kx_pd);
		kx_pd = NULL;
		return rv;
	}
	kx_cq = ib_alloc_cq(kx_id->device, NULL, 64, 0, IB_POLL_DIRECT);
	if (IS_ERR(kx_cq)) {
		rv = PTR_ERR(kx_cq);
		kx_cq = NULL;
		return rv;
	}
	kx_buf = kzalloc(KX_BUF, GFP_KERNEL);
	if (!kx_buf)
		return -ENOMEM;
	kx_dma = ib_dma_map_single(kx_pd->device, kx_buf, KX_BUF,
				   DMA_BIDIRECTIONAL);
	qa.send_cq = kx_cq;
	qa.recv_cq = kx_cq;
	rv = rdma_create_qp(kx_id, kx_pd, &qa);
	for (i = 0; !rv && i < KX_RECVS; i++)
		rv = kx_post_recv(i);
	rv = rv ?: rdma_connect(kx_id, &cp);
	rv = rv ?: kx_wait_event(RDMA_CM_EVENT_ESTABLISHED);
	if (!rv && !kx_ev.have_hello)
		rv = -EPROTO;
	peer = kx_ev.hello;
	return rv;
}

static int __init siw2_kext_init(void)
{
	int rv = kx_connect();

	CHECK(!rv, "connect to %s:%u (rv %d)", addr, port, rv);
	if (!rv) {
		kx_imm_steps();
		if (rv2) {
			kx_inline_step();
			kx_inv_imm_step();
		}
		kx_atomic_steps();
		kx_read_step();
		kx_commit_step();
		rdma_disconnect(kx_id);
		kx_wait_event(RDMA_CM_EVENT_DISCONNECTED);
	}
	kx_teardown();
	pr_info("siw2_kext: %s, %d failed\n", failures ? "FAIL" : "PASS",
		failures);
	return failures ? -EINVAL : 0;
}

static void __exit siw2_kext_exit(void)
{
}

module_init(siw2_kext_init);
module_exit(siw2_kext_exit);
MODULE_DESCRIPTION("siw2 test: RDMAP extension operations from kernel verbs");
MODULE_LICENSE("Dual BSD/GPL");
