// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_ext: Immediate Data, Send with Immediate Data and RDMA Read V2
 * from user space, with the protocol of siw2_ext_proto.h (the server
 * reports every receive it consumed back to the client).
 *
 *   siw2_ext -s -a ADDR [-p PORT] [-n CONNS] [-t SECS]      server
 *   siw2_ext -a ADDR [-p PORT] [-t SECS] [--rv1] [--read-v2] [--inv-imm]
 *            [--no-ext] [--bad-align | --bad-access]
 *            [--order | --order-wrong]                      client
 *
 * Client steps (each checked, "EXT PASS <step>" printed):
 *   write-imm   ibv_post_send RDMA_WRITE_WITH_IMM, 1000 octets to the
 *               window at 4096, imm 0x11223344: the server's receive is
 *               RECV_RDMA_WITH_IMM, 0 octets, the immediate as sent, its
 *               8 octets 0x11223344_00000000 (DEC-5); a Read of the 1000
 *               octets compares them
 *   imm-only    ibv_wr_rdma_write_imm with no data: Immediate Data alone
 *               (DEC-16), reported the same way
 *   imm64       siw2dv_wr_rdma_write_imm64: all 8 octets arrive
 *   send-imm    SEND_WITH_IMM of 0, 3000 and 200000 octets (the last in
 *               several FPDUs; solicited), then siw2dv_wr_send_imm64 with
 *               100 inline octets: RECV, the length, the immediate, every
 *               payload octet checked by the server (DEC-6: the immediate
 *               is not placed). With --rv1 (an RFC 7306 connection, RV 1)
 *               the post and the builder fail with EOPNOTSUPP instead
 *   read        with --read-v2 (siw2 read_v2=1 on the client: a Read V2,
 *               DEC-15) a Read into 3 SGEs of a sink registered with
 *               LOCAL_WRITE only; else a 3-SGE Read is refused (EINVAL)
 *               and a 1-SGE Read works; the data are compared
 *   atomics     FetchAdd (also wrapping), CmpSwap that matches and one that
 *               does not, by ibv_post_send and by the ibv_wr builders, and
 *               ibv_wr_atomic_write, and the masked forms through siw2dv:
 *               the returned original value and the target's new value
 *               (read back) are checked; a FetchAdd and
 *               a fenced Read of the same slot return the added value
 *   order       (--order, RDMAP v2 only) 22 work requests posted by one
 *               ibv_post_send(), nothing waited for in between: a plan
 *               Send, Writes of 150000, 100000 and 131072 octets, Send
 *               with Immediate of 1000, 0 and 60000 octets, Write with
 *               Immediate, Immediate Data alone twice, Sends, Reads (Read V2
 *               with --read-v2), FetchAdds on one u64 and on a Send's
 *               receive buffer, a fenced Write. Checked, each failure
 *               naming the requirement IDs it breaks (step_order): the
 *               server's receives complete in posting order, each with
 *               its opcode, length and immediate, and a Write's data is
 *               in the window when the server polls the next message's
 *               completion (the plan); the requester's completions come
 *               in posting order with each sink already filled; each Read
 *               and FetchAdd returns what the responder held after the
 *               Writes, Sends and atomics before it and before the
 *               atomics and the fenced Write after it. --order-wrong
 *               (proof only) expects two receives swapped: it must fail
 *   bad-align   (--bad-align, last) a FetchAdd to a misaligned target: it
 *               completes in error, the QP goes to the error state, and
 *               the server's guard u64s ("EXT WIN") stay as seeded
 *   bad-access  (--bad-access, last) the same through the STag without
 *               REMOTE_ATOMIC
 *   inv-imm     (--inv-imm, last) siw2dv_wr_send_inv_imm naming the
 *               server's window, a regular MR that cannot be invalidated:
 *               the server's receive fails (it prints its status), the
 *               connection ends with a Terminate and the client's QP goes
 *               to the error state
 * With --no-ext (the connection negotiated no extension: a peer with
 * mpa_caps=0, or Linux siw, whose server this program can be too) the
 * steps are instead:
 *   no-ext      Write with Immediate, Send with Immediate, FetchAdd and
 *               CmpSwap, by ibv_post_send and by the builders: each fails
 *               with EOPNOTSUPP and sends nothing; then an RDMA Write and a
 *               Read of it back work (the QP is intact)
 * then "EXT OK side=client steps=N". The server prints one
 * "EXT RECV seq=.. status=.. opcode=.. len=.. flags=.. imm=.. imm64=..
 * inv=.. data_ok=.." line per receive and "EXT OK side=server conns=N".
 * A receive holding struct siw2_ext_invi (from the kernel client) is
 * answered with a Send with Invalidate and Immediate Data instead of a
 * report ("EXT INVIMM ...").
 *
 * Needs the siw2 provider this program links, with rings (the siw2dv
 * builders): RDMAV_DRIVERS=<tree>/userspace-provider/build/libsiw2.
 */
#include <endian.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <linux/types.h>
#include <infiniband/verbs.h>

#include "cm_common.h"
#include "siw2_ext_proto.h"
#include "siw2dv.h"

#define REPORTS		16	/* client receives for reports */
#define BUF_LEN		(512 * 1024)
#define RPT_OFF		(BUF_LEN - 4096)	/* report buffers, client */

static struct {
	bool server;
	const char *addr;
	const char *port;
	int conns;
	int timeout;
	bool rv1;
	bool read_v2;
	bool inv_imm;
	bool no_ext;
	bool bad_align;
	bool bad_access;
	bool order;
	bool order_wrong;
} opt = { .port = "7700", .conns = 1, .timeout = 30 };

static const char *side = "?";
static struct rdma_event_channel *cm_chan;
static struct rdma_cm_id *listen_id, *id;
static struct ibv_pd *pd;
static struct ibv_cq_ex *cqx;
static struct ibv_cq *pcq;	/* not siw2 (a Linux siw server): plain verbs */
static struct ibv_qp *qp;
static struct ibv_qp_ex *qpx;
static struct ibv_mr *mr, *win_mr, *lw_mr, *noat_mr;
static struct ibv_mr *rrem_mr;	/* server: the receive area, remotely */
static uint8_t *buf, *win, *lw;
static int steps;
static bool siw2;	/* the device is siw2's: siw2dv calls work */

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("EXT FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static void pass(const char *step)
{
	printf("EXT PASS %s\n", step);
	fflush(stdout);
	steps++;
}

/* ---- verbs objects ---- */

static void setup(struct rdma_cm_id *cid)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 3, .max_recv_sge = 1,
			 .max_inline_data = 128 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ,
	};
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	uint32_t i;

	siw2 = siw2dv_is_siw2_context(cid->verbs);
	/* Only a server may run on another device (Linux siw). */
	if (!siw2 && !opt.server)
		fail("not a siw2 device of the linked provider (RDMAV_DRIVERS?)");
	pd = ibv_alloc_pd(cid->verbs);
	if (!pd)
		fail_errno("ibv_alloc_pd");
	if (!siw2) {
		/* The server needs no extended verbs; Linux siw has none. */
		struct ibv_qp_init_attr pa = {
			.qp_type = IBV_QPT_RC, .cap = qa.cap,
		};

		pcq = ibv_create_cq(cid->verbs, 256, NULL, NULL, 0);
		if (!pcq)
			fail_errno("ibv_create_cq");
		pa.send_cq = pcq;
		pa.recv_cq = pcq;
		pa.cap.max_inline_data = 0;
		if (rdma_create_qp(cid, pd, &pa))
			fail_errno("rdma_create_qp");
		qp = cid->qp;
		goto mem;
	}
	cqx = ibv_create_cq_ex(cid->verbs, &ca);
	if (!cqx)
		fail_errno("ibv_create_cq_ex");
	qa.pd = pd;
	qa.send_cq = ibv_cq_ex_to_cq(cqx);
	qa.recv_cq = qa.send_cq;
	if (rdma_create_qp_ex(cid, &qa))
		fail_errno("rdma_create_qp_ex (siw2 user_rings=0?)");
	qp = cid->qp;
	qpx = ibv_qp_to_qp_ex(qp);
	if (!qpx)
		fail("ibv_qp_to_qp_ex() is NULL");
mem:
	if (posix_memalign((void **)&buf, 4096, BUF_LEN) ||
	    posix_memalign((void **)&win, 4096, SIW2_EXT_WIN) ||
	    posix_memalign((void **)&lw, 4096, 65536))
		fail("out of memory");
	memset(buf, 0, BUF_LEN);
	for (i = 0; i < SIW2_EXT_WIN; i++)
		win[i] = siw2_ext_byte(i, 0);
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
	win_mr = ibv_reg_mr(pd, win, SIW2_EXT_WIN, acc);
	/* A Read V2 sink needs no remote right (DEC-7). */
	lw_mr = ibv_reg_mr(pd, lw, 65536, IBV_ACCESS_LOCAL_WRITE);
	noat_mr = ibv_reg_mr(pd, win, SIW2_EXT_WIN,
			     acc & ~IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr || !win_mr || !lw_mr || !noat_mr)
		fail_errno("ibv_reg_mr");
}

static void teardown(void)
{
	if (qp)
		rdma_destroy_qp(id);
	qp = NULL;
	if (mr)
		ibv_dereg_mr(mr);
	if (win_mr)
		ibv_dereg_mr(win_mr);
	if (lw_mr)
		ibv_dereg_mr(lw_mr);
	if (noat_mr)
		ibv_dereg_mr(noat_mr);
	if (rrem_mr)
		ibv_dereg_mr(rrem_mr);
	mr = win_mr = lw_mr = noat_mr = rrem_mr = NULL;
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	if (pcq)
		ibv_destroy_cq(pcq);
	cqx = NULL;
	pcq = NULL;
	if (pd)
		ibv_dealloc_pd(pd);
	pd = NULL;
	free(buf);
	free(win);
	free(lw);
	buf = win = lw = NULL;
}

static void post_recv(uint64_t wr_id, void *addr, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (ibv_post_recv(qp, &wr, &bad))
		fail_errno("ibv_post_recv");
}

/* A completion as this program reads it. */
struct wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t len;
	unsigned int flags;
	__be32 imm;
	uint64_t imm64;
	uint32_t inv;
};

/* The next completion within the timeout; false if none (no fail). */
static bool next_wc(struct wc *w, double secs)
{
	struct ibv_poll_cq_attr pa = {};
	double deadline = now_s() + secs;
	struct ibv_wc wc;
	int rc;

	if (pcq) {
		while (!(rc = ibv_poll_cq(pcq, 1, &wc)))
			if (now_s() > deadline)
				return false;
		if (rc < 0)
			fail("ibv_poll_cq: %d", rc);
		memset(w, 0, sizeof(*w));
		w->wr_id = wc.wr_id;
		w->status = wc.status;
		w->opcode = wc.opcode;
		w->len = wc.byte_len;
		w->flags = wc.wc_flags;
		w->imm = wc.imm_data;
		return true;
	}
	while ((rc = ibv_start_poll(cqx, &pa)) == ENOENT)
		if (now_s() > deadline)
			return false;
	if (rc)
		fail("ibv_start_poll: %s", strerror(rc));
	memset(w, 0, sizeof(*w));
	w->wr_id = cqx->wr_id;
	w->status = cqx->status;
	w->opcode = ibv_wc_read_opcode(cqx);
	w->len = ibv_wc_read_byte_len(cqx);
	w->flags = ibv_wc_read_wc_flags(cqx);
	if (w->flags & IBV_WC_WITH_IMM)
		w->imm = ibv_wc_read_imm_data(cqx);
	rc = siw2 ? siw2dv_cq_read_imm(cqx, &w->imm64, &w->inv) : ENOENT;
	if (rc && rc != ENOENT)
		fail("siw2dv_cq_read_imm: %s", strerror(rc));
	if (siw2 && !rc != !!(w->flags & IBV_WC_WITH_IMM) &&
	    w->status == IBV_WC_SUCCESS)
		fail("siw2dv_cq_read_imm %d, wc_flags 0x%x disagree", rc,
		     w->flags);
	ibv_end_poll(cqx);
	return true;
}

static void get_wc(struct wc *w, const char *what)
{
	if (!next_wc(w, opt.timeout))
		fail("timeout (%d s) waiting for %s", opt.timeout, what);
}

/* ---- server ---- */

/*
 * The client asked for a Send with Invalidate and Immediate Data
 * (struct siw2_ext_invi): send it and return true.
 */
static bool serve_invi(const uint8_t *p, uint32_t len, uint32_t seq)
{
	struct siw2_ext_invi r;
	int rc;

	if (len != sizeof(r))
		return false;
	memcpy(&r, p, sizeof(r));
	if (r.magic != SIW2_EXT_INVI_MAGIC)
		return false;
	ibv_wr_start(qpx);
	qpx->wr_id = 2000 + seq;
	qpx->wr_flags = IBV_SEND_SIGNALED | (r.se ? IBV_SEND_SOLICITED : 0);
	siw2dv_wr_send_inv_imm(qpx, r.stag, siw2_ext_inv_imm(seq));
	ibv_wr_set_sge_list(qpx, 0, NULL);
	rc = ibv_wr_complete(qpx);
	printf("EXT INVIMM seq=%u stag=0x%x se=%u rc=%d\n", seq, r.stag, r.se, rc);
	return true;
}

static struct siw2_ext_plan plan;

/* The message is a plan (struct siw2_ext_plan): keep it, return true. */
static bool serve_plan(const uint8_t *p, uint32_t len, uint32_t seq)
{
	if (len != sizeof(plan) || *(const uint32_t *)p != SIW2_EXT_PLAN_MAGIC)
		return false;
	memcpy(&plan, p, sizeof(plan));
	if (plan.n > SIW2_EXT_PLAN_MAX)
		plan.n = 0;
	printf("EXT PLAN seq=%u n=%u\n", seq, plan.n);
	return true;
}

/*
 * The plan's window ranges for report @seq, read as soon as its
 * completion is polled: an earlier Write's data must be placed already.
 */
static bool plan_ok(uint32_t seq)
{
	uint32_t k, i;

	for (k = 0; k < plan.n; k++) {
		if (plan.e[k].seq != seq)
			continue;
		if (plan.e[k].off > SIW2_EXT_WIN ||
		    plan.e[k].len > SIW2_EXT_WIN - plan.e[k].off) {
			printf("EXT ORDER seq=%u bad plan range\n", seq);
			return false;
		}
		for (i = 0; i < plan.e[k].len; i++)
			if (win[plan.e[k].off + i] !=
			    siw2_ext_byte(i, plan.e[k].seed)) {
				printf("EXT ORDER seq=%u window 0x%x+%u: octet %u not placed when the completion was polled\n",
				       seq, plan.e[k].off, plan.e[k].len, i);
				return false;
			}
	}
	return true;
}

static void serve_one(void)
{
	struct siw2_ext_hello hello;
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
		.private_data = &hello, .private_data_len = sizeof(hello),
	};
	struct siw2_ext_report *r;
	struct rdma_cm_event *ev;
	uint32_t seq = 0, i, ok;
	struct ibv_sge sge;
	struct ibv_send_wr swr, *bad;
	uint8_t *p;
	struct wc w;
	bool done = false;
	int posted = 0;
	double drain_end = 0;

	memset(&plan, 0, sizeof(plan));
	ev = cm_get_event(cm_chan, 3600, RDMA_CM_EVENT_CONNECT_REQUEST,
			  "CONNECT_REQUEST");
	id = ev->id;
	rdma_ack_cm_event(ev);
	setup(id);
	/* Receives at 0 .. RECVS * RECV_LEN of the window's shadow buffer. */
	free(buf);
	ibv_dereg_mr(mr);
	if (posix_memalign((void **)&buf, 4096,
			   SIW2_EXT_RECVS * SIW2_EXT_RECV_LEN + 4096))
		fail("out of memory");
	mr = ibv_reg_mr(pd, buf, SIW2_EXT_RECVS * SIW2_EXT_RECV_LEN + 4096,
			IBV_ACCESS_LOCAL_WRITE);
	/* The same area for the client's Reads and Atomics (--order). */
	rrem_mr = ibv_reg_mr(pd, buf, SIW2_EXT_RECVS * SIW2_EXT_RECV_LEN,
			     IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			     IBV_ACCESS_REMOTE_ATOMIC);
	if (!mr || !rrem_mr)
		fail_errno("ibv_reg_mr");
	for (i = 0; i < SIW2_EXT_RECVS; i++)
		post_recv(i, buf + i * SIW2_EXT_RECV_LEN, SIW2_EXT_RECV_LEN);
	posted = SIW2_EXT_RECVS;
	hello.addr = (uintptr_t)win;
	hello.rkey = win_mr->rkey;
	hello.len = SIW2_EXT_WIN;
	hello.rkey_noatomic = noat_mr->rkey;
	hello.rbuf_addr = (uintptr_t)buf;
	hello.rbuf_rkey = rrem_mr->rkey;
	if (rdma_accept(id, &cp))
		fail_errno("rdma_accept");
	rdma_ack_cm_event(cm_get_event(cm_chan, opt.timeout,
				       RDMA_CM_EVENT_ESTABLISHED,
				       "ESTABLISHED"));
	/* Non-blocking CM channel: the loop watches it and the CQ. */
	fcntl(cm_chan->fd, F_SETFL, fcntl(cm_chan->fd, F_GETFL) | O_NONBLOCK);
	r = (void *)(buf + SIW2_EXT_RECVS * SIW2_EXT_RECV_LEN);
	/*
	 * Until DISCONNECTED, then until every posted receive has completed
	 * (the QP is in the error state: the rest are flushed), so that no
	 * completion the kernel wrote goes unread and unprinted.
	 */
	while (!done || (posted && now_s() < drain_end)) {
		if (!next_wc(&w, 0.01)) {
			if (done || rdma_get_cm_event(cm_chan, &ev))
				continue;
			done = ev->event == RDMA_CM_EVENT_DISCONNECTED;
			drain_end = now_s() + 5;
			rdma_ack_cm_event(ev);
			continue;
		}
		if (!(w.opcode & IBV_WC_RECV) && w.status == IBV_WC_SUCCESS)
			continue;	/* a report went */
		if (w.wr_id >= SIW2_EXT_RECVS) {
			if (w.status != IBV_WC_WR_FLUSH_ERR)
				printf("EXT SEND status=%s\n",
				       ibv_wc_status_str(w.status));
			continue;
		}
		seq++;
		posted--;
		if (w.status == IBV_WC_WR_FLUSH_ERR)
			continue;	/* the connection ended */
		p = buf + w.wr_id * SIW2_EXT_RECV_LEN;
		if (w.status == IBV_WC_SUCCESS && serve_invi(p, w.len, seq)) {
			post_recv(w.wr_id, p, SIW2_EXT_RECV_LEN);
			posted++;
			continue;
		}
		ok = w.status == IBV_WC_SUCCESS;
		if (ok && !serve_plan(p, w.len, seq))
			for (i = 0; ok && i < w.len; i++)
				ok = p[i] == siw2_ext_byte(i, seq);
		ok = ok && plan_ok(seq);
		printf("EXT RECV seq=%u status=%s opcode=%u len=%u flags=0x%x imm=0x%08x imm64=0x%016" PRIx64 " inv=0x%x data_ok=%u\n",
		       seq, ibv_wc_status_str(w.status), w.opcode, w.len,
		       w.flags, be32toh(w.imm), w.imm64, w.inv, ok);
		fflush(stdout);
		if (w.status != IBV_WC_SUCCESS)
			continue;	/* flushed, or the connection died */
		r[seq % 8] = (struct siw2_ext_report){
			.seq = seq, .status = w.status, .opcode = w.opcode,
			.byte_len = w.len, .wc_flags = w.flags,
			.imm_data = w.imm, .imm64 = w.imm64,
			.inv_rkey = w.inv, .data_ok = ok,
		};
		sge = (struct ibv_sge){ .addr = (uintptr_t)&r[seq % 8],
					.length = sizeof(*r),
					.lkey = mr->lkey };
		swr = (struct ibv_send_wr){ .wr_id = 1000 + seq,
					    .sg_list = &sge, .num_sge = 1,
					    .opcode = IBV_WR_SEND,
					    .send_flags = IBV_SEND_SIGNALED };
		if (ibv_post_send(qp, &swr, &bad))
			fail_errno("ibv_post_send (report)");
		post_recv(w.wr_id, p, SIW2_EXT_RECV_LEN);
		posted++;
	}
	if (posted)
		printf("EXT RQ %d receives not completed after the disconnect\n",
		       posted);
	fcntl(cm_chan->fd, F_SETFL, fcntl(cm_chan->fd, F_GETFL) & ~O_NONBLOCK);
	printf("EXT WIN off64=0x%016" PRIx64 " off72=0x%016" PRIx64 " off80=0x%016" PRIx64 "\n",
	       *(uint64_t *)(win + SIW2_EXT_GUARD_OFF),
	       *(uint64_t *)(win + SIW2_EXT_GUARD_OFF + 8),
	       *(uint64_t *)(win + SIW2_EXT_GUARD_OFF + 16));
	teardown();
	rdma_destroy_id(id);
	id = NULL;
}

/* ---- client ---- */

static struct siw2_ext_hello peer;
static uint32_t seq;	/* reports the server made so far */
/* A report that came in while a send completion was awaited. */
static struct wc early;
static bool have_early;

/*
 * The next report, numbered as the next receive the server consumed
 * (@req, or NULL: the requirement IDs that check asserts); the other
 * checks are the caller's.
 */
static void get_report(struct siw2_ext_report *out, const char *step,
		       const char *req)
{
	struct wc w;

	if (have_early) {
		w = early;
		have_early = false;
	} else {
		get_wc(&w, step);
	}
	if (w.status != IBV_WC_SUCCESS || !(w.opcode & IBV_WC_RECV))
		fail("%s: wr_id %" PRIu64 " status %s opcode %u, expected a report",
		     step, w.wr_id, ibv_wc_status_str(w.status), w.opcode);
	if (w.len != sizeof(*out))
		fail("%s: report of %u octets", step, w.len);
	memcpy(out, buf + RPT_OFF + w.wr_id * 256, sizeof(*out));
	post_recv(w.wr_id, buf + RPT_OFF + w.wr_id * 256, 256);
	if (out->seq != ++seq)
		fail("%s: report %u, expected %u%s%s%s", step, out->seq, seq,
		     req ? " [" : "", req ? req : "", req ? "]" : "");
}

/* Wait for the completion of send work request @wr_id, successful. */
static void get_send(uint64_t wr_id, enum ibv_wc_opcode op, const char *step)
{
	struct wc w;

	get_wc(&w, step);
	if (w.status == IBV_WC_SUCCESS && (w.opcode & IBV_WC_RECV) &&
	    !have_early) {
		/* The peer's report overtook our own completion. */
		early = w;
		have_early = true;
		get_wc(&w, step);
	}
	if (w.wr_id != wr_id || w.status != IBV_WC_SUCCESS || w.opcode != op)
		fail("%s: completion wr_id %" PRIu64 " status %s opcode %u, expected %" PRIu64 " success %u",
		     step, w.wr_id, ibv_wc_status_str(w.status), w.opcode,
		     wr_id, op);
}

/* @req: the requirement IDs the caller's check asserts. */
static void check_report(const struct siw2_ext_report *r, const char *step,
			 const char *req, uint32_t opcode, uint32_t len,
			 uint64_t imm64)
{
	if (r->status || r->opcode != opcode || r->byte_len != len ||
	    !(r->wc_flags & IBV_WC_WITH_IMM) ||
	    r->imm_data != htobe32(imm64 >> 32) || r->imm64 != imm64 ||
	    !r->data_ok)
		fail("%s: server saw status %u opcode %u len %u flags 0x%x imm 0x%08x imm64 0x%016" PRIx64 " data_ok %u; expected opcode %u len %u imm64 0x%016" PRIx64 " [%s]",
		     step, r->status, r->opcode, r->byte_len, r->wc_flags,
		     be32toh(r->imm_data), (uint64_t)r->imm64, r->data_ok,
		     opcode, len, imm64, req);
}

static void fill(uint8_t *p, uint32_t len, uint32_t s)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = siw2_ext_byte(i, s);
}

/* RDMA Read of @len window octets at @off into @sg (@n SGEs). */
static int post_read(uint64_t wr_id, uint32_t off, struct ibv_sge *sg, int n)
{
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = sg, .num_sge = n,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = peer.addr + off,
			     .rkey = peer.rkey },
	}, *bad;

	return ibv_post_send(qp, &wr, &bad);
}

static void step_write_imm(void)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 1000,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0x11223344),
		.wr.rdma = { .remote_addr = peer.addr + 4096,
			     .rkey = peer.rkey },
	}, *bad;
	struct siw2_ext_report r;
	uint32_t i;
	int rc;

	for (i = 0; i < 1000; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		fail("write-imm: ibv_post_send: %s", strerror(rc));
	get_send(1, IBV_WC_RDMA_WRITE, "write-imm");
	get_report(&r, "write-imm", NULL);
	/* EXT-IMM-1, EXT-IMM-2: the ULP's immediate, with the peer's completion. */
	check_report(&r, "write-imm", "EXT-IMM-1 EXT-IMM-2",
		     IBV_WC_RECV_RDMA_WITH_IMM, 0, 0x1122334400000000ULL);
	sge.addr = (uintptr_t)buf + 2000;
	if (post_read(2, 4096, &sge, 1))
		fail_errno("write-imm: read back");
	get_send(2, IBV_WC_RDMA_READ, "write-imm read back");
	if (memcmp(buf, buf + 2000, 1000))
		fail("write-imm: the window does not hold what was written");
	pass("write-imm");
}

static void wr_end(const char *step, int want)
{
	int rc = ibv_wr_complete(qpx);

	if (rc != want)
		fail("%s: ibv_wr_complete: %s, expected %s", step,
		     strerror(rc), strerror(want));
}

static void step_imm_only(void)
{
	struct siw2_ext_report r;

	ibv_wr_start(qpx);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, peer.rkey, peer.addr + 4096,
			      htobe32(0xcafe0001));
	ibv_wr_set_sge_list(qpx, 0, NULL);
	wr_end("imm-only", 0);
	get_send(3, IBV_WC_RDMA_WRITE, "imm-only");
	/* EXT-IMM-7: one receive (the next report number), 0 octets. */
	get_report(&r, "imm-only", "EXT-IMM-7");
	check_report(&r, "imm-only", "EXT-IMM-7", IBV_WC_RECV_RDMA_WITH_IMM, 0,
		     0xcafe000100000000ULL);
	pass("imm-only");

	ibv_wr_start(qpx);
	qpx->wr_id = 4;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
	siw2dv_wr_rdma_write_imm64(qpx, peer.rkey, peer.addr + 4096,
				   0x0102030405060708ULL);
	ibv_wr_set_sge_list(qpx, 0, NULL);
	wr_end("imm64", 0);
	get_send(4, IBV_WC_RDMA_WRITE, "imm64");
	get_report(&r, "imm64", "EXT-IMM-7");
	/* EXT-IMM-2: all 8 octets the ULP gave. */
	check_report(&r, "imm64", "EXT-IMM-2 EXT-IMM-7",
		     IBV_WC_RECV_RDMA_WITH_IMM, 0, 0x0102030405060708ULL);
	pass("imm64");
}

static void step_send_imm(void)
{
	static const uint32_t lens[] = { 0, 3000, 200000 };
	struct siw2_ext_report r;
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	uint8_t data[100];
	unsigned int i;
	int rc;

	if (opt.rv1) {
		sge.length = 10;
		rc = ibv_post_send(qp, &wr, &bad);
		if (rc != EOPNOTSUPP)
			fail("send-imm on RV 1: ibv_post_send: %s, expected EOPNOTSUPP",
			     strerror(rc));
		ibv_wr_start(qpx);
		ibv_wr_send_imm(qpx, htobe32(1));
		ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, 10);
		wr_end("send-imm on RV 1", EOPNOTSUPP);
		pass("send-imm-refused");
		return;
	}
	for (i = 0; i < 3; i++) {
		fill(buf, lens[i], seq + 1);
		sge.length = lens[i];
		wr.wr_id = 10 + i;
		wr.num_sge = lens[i] ? 1 : 0;
		wr.imm_data = htobe32(0xa5a50000 + i);
		wr.send_flags = IBV_SEND_SIGNALED |
				(i == 2 ? IBV_SEND_SOLICITED : 0);
		rc = ibv_post_send(qp, &wr, &bad);
		if (rc)
			fail("send-imm %u: ibv_post_send: %s", lens[i],
			     strerror(rc));
		get_send(10 + i, IBV_WC_SEND, "send-imm");
		get_report(&r, "send-imm", NULL);
		/*
		 * A receive of QN 0 like a Send's, payload checked, the 8 octets
		 * with its completion (V2-HDR-5, V2-IMM-1, V2-IMM-6, V2-IMM-9).
		 */
		check_report(&r, "send-imm", "V2-IMM-1 V2-IMM-6 V2-IMM-9",
			     IBV_WC_RECV, lens[i],
			     (uint64_t)(0xa5a50000 + i) << 32);
	}
	pass("send-imm");

	fill(data, sizeof(data), seq + 1);
	ibv_wr_start(qpx);
	qpx->wr_id = 20;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	siw2dv_wr_send_imm64(qpx, 0xfedcba9876543210ULL);
	ibv_wr_set_inline_data(qpx, data, sizeof(data));
	wr_end("send-imm64", 0);
	get_send(20, IBV_WC_SEND, "send-imm64");
	get_report(&r, "send-imm64", NULL);
	/* V2-IMM-2, V2-IMM-9: the ULP's 8 octets, outcome at completion. */
	check_report(&r, "send-imm64", "V2-IMM-2 V2-IMM-9", IBV_WC_RECV,
		     sizeof(data), 0xfedcba9876543210ULL);
	pass("send-imm64");
}

static void step_read(void)
{
	struct ibv_sge sg[3] = {
		{ .addr = (uintptr_t)lw, .length = 100, .lkey = lw_mr->lkey },
		{ .addr = (uintptr_t)lw + 1000, .length = 5000,
		  .lkey = lw_mr->lkey },
		{ .addr = (uintptr_t)lw + 9000, .length = 27,
		  .lkey = lw_mr->lkey },
	};
	uint32_t i, k, off = 8192, o;
	int rc;

	memset(lw, 0, 65536);
	rc = post_read(30, off, sg, 3);
	if (!opt.read_v2) {
		if (rc != EINVAL)
			fail("read: 3-SGE Read without Read V2: %s, expected EINVAL",
			     strerror(rc));
		/* The same 5127 octets into one SGE. */
		sg[0].length = 5127;
		rc = post_read(30, off, sg, 1);
	}
	if (rc)
		fail("read: ibv_post_send: %s", strerror(rc));
	get_send(30, IBV_WC_RDMA_READ, "read");
	/* V2-READ-3: the Response matched, placed into the SGEs, completed. */
	for (o = 0, k = 0; k < (opt.read_v2 ? 3u : 1u); k++)
		for (i = 0; i < sg[k].length; i++, o++)
			if (((uint8_t *)(uintptr_t)sg[k].addr)[i] !=
			    siw2_ext_byte(off + o, 0))
				fail("read: sink %u octet %u differs%s", k, i,
				     opt.read_v2 ? " [V2-READ-3]" : "");
	pass(opt.read_v2 ? "read-v2-3sge" : "read-1sge");
}

/* Write @v into the window at @off, waiting for its completion. */
static void seed(uint32_t off, uint64_t v)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf + 4096, .length = 8,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 60, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = peer.addr + off, .rkey = peer.rkey },
	}, *bad;

	memcpy(buf + 4096, &v, 8);
	if (ibv_post_send(qp, &wr, &bad))
		fail_errno("seed Write");
	get_send(60, IBV_WC_RDMA_WRITE, "seed");
}

/* The window's u64 at @off, by an RDMA Read. */
static uint64_t peek(uint32_t off)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf + 4104, .length = 8,
			       .lkey = mr->lkey };
	uint64_t v;

	if (post_read(61, off, &sge, 1))
		fail_errno("peek Read");
	get_send(61, IBV_WC_RDMA_READ, "peek");
	memcpy(&v, buf + 4104, 8);
	return v;
}

/* One atomic by ibv_post_send; returns the original value. */
static uint64_t atomic_post(enum ibv_wr_opcode op, uint32_t off, uint64_t ca,
			    uint64_t swap, enum ibv_wc_opcode want)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf + 4112, .length = 8,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 62, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = peer.addr + off,
			       .compare_add = ca, .swap = swap,
			       .rkey = peer.rkey },
	}, *bad;
	uint64_t v;
	int rc;

	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		fail("atomics: opcode %d: %s", op, strerror(rc));
	get_send(62, want, "atomic");
	memcpy(&v, buf + 4112, 8);
	return v;
}

static void expect(const char *what, uint64_t got, uint64_t want)
{
	if (got != want)
		fail("atomics: %s: 0x%016" PRIx64 ", expected 0x%016" PRIx64,
		     what, got, want);
}

static void step_atomics(void)
{
	const uint64_t aw = 0x1122334455667788ULL;
	struct ibv_sge sg[2] = {
		{ .addr = (uintptr_t)buf + 4112, .length = 8,
		  .lkey = mr->lkey },
		{ .addr = (uintptr_t)buf + 4120, .length = 8,
		  .lkey = mr->lkey },
	};
	struct ibv_send_wr wr[2] = {
		{ .wr_id = 63, .sg_list = &sg[0], .num_sge = 1,
		  .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		  .send_flags = IBV_SEND_SIGNALED,
		  .wr.atomic = { .remote_addr = peer.addr + 40,
				 .compare_add = 5, .rkey = peer.rkey } },
		{ .wr_id = 64, .sg_list = &sg[1], .num_sge = 1,
		  .opcode = IBV_WR_RDMA_READ,
		  .send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE,
		  .wr.rdma = { .remote_addr = peer.addr + 40,
			       .rkey = peer.rkey } },
	}, *bad;
	uint64_t v;

	/*
	 * The u64 at (STag, TO) read, modified and written; the original in
	 * the sink at completion (EXT-ATOMIC-1, EXT-ATOMIC-22, EXT-ORD-6).
	 */
	seed(0, 41);
	expect("FetchAdd original [EXT-ATOMIC-1 EXT-ATOMIC-22 EXT-ORD-6]",
	       atomic_post(IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 1, 0,
			   IBV_WC_FETCH_ADD), 41);
	expect("FetchAdd result [EXT-ATOMIC-1]", peek(0), 42);
	seed(8, ~0ULL);
	expect("FetchAdd wrap original",
	       atomic_post(IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 2, 0,
			   IBV_WC_FETCH_ADD), ~0ULL);
	expect("FetchAdd wrap result", peek(8), 1);
	seed(16, 7);
	expect("CmpSwap match original [EXT-ATOMIC-1 EXT-ATOMIC-22 EXT-ORD-6]",
	       atomic_post(IBV_WR_ATOMIC_CMP_AND_SWP, 16, 7, 99,
			   IBV_WC_COMP_SWAP), 7);
	expect("CmpSwap match result [EXT-ATOMIC-1]", peek(16), 99);
	seed(24, 7);
	expect("CmpSwap mismatch original",
	       atomic_post(IBV_WR_ATOMIC_CMP_AND_SWP, 24, 8, 99,
			   IBV_WC_COMP_SWAP), 7);
	expect("CmpSwap mismatch result", peek(24), 7);

	/* The same through the builders, and Atomic Write (DEC-17). */
	seed(32, 1000);
	ibv_wr_start(qpx);
	qpx->wr_id = 62;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_fetch_add(qpx, peer.rkey, peer.addr + 32, 24);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf + 4112, 8);
	wr_end("atomics: builder FetchAdd", 0);
	get_send(62, IBV_WC_FETCH_ADD, "builder FetchAdd");
	memcpy(&v, buf + 4112, 8);
	expect("builder FetchAdd original", v, 1000);
	ibv_wr_start(qpx);
	qpx->wr_id = 62;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_cmp_swp(qpx, peer.rkey, peer.addr + 32, 1024, 5);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf + 4112, 8);
	wr_end("atomics: builder CmpSwap", 0);
	get_send(62, IBV_WC_COMP_SWAP, "builder CmpSwap");
	memcpy(&v, buf + 4112, 8);
	expect("builder CmpSwap original", v, 1024);
	expect("builder CmpSwap result", peek(32), 5);
	ibv_wr_start(qpx);
	qpx->wr_id = 62;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_atomic_write(qpx, peer.rkey, peer.addr + 32, &aw);
	wr_end("atomics: Atomic Write", 0);
	get_send(62, IBV_WC_ATOMIC_WRITE, "Atomic Write");
	expect("Atomic Write result", peek(32), aw);

	/* Masked forms through siw2dv (no libibverbs verb): two 32-bit fields. */
	seed(48, 0x00000001ffffffffULL);
	ibv_wr_start(qpx);
	qpx->wr_id = 62;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	siw2dv_wr_masked_atomic_fetch_add(qpx, peer.rkey, peer.addr + 48,
					  0x0000000100000001ULL,
					  0x8000000080000000ULL);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf + 4112, 8);
	wr_end("atomics: masked FetchAdd", 0);
	get_send(62, IBV_WC_FETCH_ADD, "masked FetchAdd");
	memcpy(&v, buf + 4112, 8);
	expect("masked FetchAdd original", v, 0x00000001ffffffffULL);
	expect("masked FetchAdd result", peek(48), 0x0000000200000000ULL);
	seed(56, 0xaaaaaaaa55555555ULL);
	ibv_wr_start(qpx);
	qpx->wr_id = 62;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	siw2dv_wr_masked_atomic_cmp_swp(qpx, peer.rkey, peer.addr + 56,
					0x1234567855555555ULL, 0xffffffffULL,
					0xdeadbeef00000000ULL,
					0xffffffff00000000ULL);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf + 4112, 8);
	wr_end("atomics: masked CmpSwap", 0);
	get_send(62, IBV_WC_COMP_SWAP, "masked CmpSwap");
	memcpy(&v, buf + 4112, 8);
	expect("masked CmpSwap original", v, 0xaaaaaaaa55555555ULL);
	expect("masked CmpSwap result", peek(56), 0xdeadbeef55555555ULL);

	/* A fenced Read behind a FetchAdd sees its result. */
	seed(40, 10);
	wr[0].next = &wr[1];
	if (ibv_post_send(qp, wr, &bad))
		fail_errno("atomics: FetchAdd + fenced Read");
	get_send(63, IBV_WC_FETCH_ADD, "fence FetchAdd");
	get_send(64, IBV_WC_RDMA_READ, "fenced Read");
	memcpy(&v, buf + 4120, 8);
	expect("fenced Read", v, 15);
	pass("atomics");
}

/* ---- --order: many work requests in flight, the order each side sees ---- */

#define ORD_BUF		(2U << 20)
#define ORD_MAX		32
#define ORD_WR0		100	/* wr_id of the burst's first work request */

/* One work request of the burst and what its completion must show. */
static struct {
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	const char *what;
	const char *ids;	/* requirement IDs its check asserts */
	enum ibv_wc_opcode op;	/* the requester's completion */
	const uint8_t *want;	/* the sink's content when it completes */
} ord[ORD_MAX];
/* One message that consumes a server receive, in posting order. */
static struct {
	const char *what;
	const char *ids;
	uint32_t opcode;	/* the server's ibv_wc_opcode */
	uint32_t len;
	bool imm;
	uint32_t imm32;
} omsg[ORD_MAX];
static int nord, nomsg;
static uint8_t *obuf, *oexp;
static uint32_t obump, ebump;
static struct ibv_mr *omr;

static uint8_t *ord_mem(uint8_t *base, uint32_t *bump, uint32_t len)
{
	uint8_t *p = base + *bump;

	*bump += (len + 63) & ~63U;
	if (*bump > ORD_BUF)
		fail("order: buffer too small");
	return p;
}

/* @len octets of the pattern of @seed, in the burst's memory. */
static uint8_t *ord_pattern(bool expected, uint32_t len, uint32_t seed)
{
	uint8_t *p = expected ? ord_mem(oexp, &ebump, len) :
				ord_mem(obuf, &obump, len);

	fill(p, len, seed);
	return p;
}

static uint8_t *ord_u64(bool expected, uint64_t v)
{
	uint8_t *p = expected ? ord_mem(oexp, &ebump, 8) :
				ord_mem(obuf, &obump, 8);

	memcpy(p, &v, 8);
	return p;
}

/*
 * Append a work request with @len octets at @local (0: no SGE), and what
 * ord_done() expects of its completion: opcode @wc, the sink holding @want
 * (NULL: not checked); @ids, the requirement IDs that check asserts.
 */
static struct ibv_send_wr *ord_expect_wr(enum ibv_wr_opcode op,
					 uint8_t *local, uint32_t len,
					 enum ibv_wc_opcode wc,
					 const char *what, const char *ids,
					 const uint8_t *want)
{
	struct ibv_send_wr *w = &ord[nord].wr;

	if (nord == ORD_MAX)
		fail("order: too many work requests");
	ord[nord].sge = (struct ibv_sge){ .addr = (uintptr_t)local,
					  .length = len, .lkey = omr->lkey };
	*w = (struct ibv_send_wr){ .wr_id = ORD_WR0 + nord,
				   .sg_list = &ord[nord].sge,
				   .num_sge = len ? 1 : 0, .opcode = op,
				   .send_flags = IBV_SEND_SIGNALED };
	ord[nord].what = what;
	ord[nord].ids = ids;
	ord[nord].op = wc;
	ord[nord].want = want;
	if (nord)
		ord[nord - 1].wr.next = w;
	nord++;
	return w;
}

/*
 * The message also consumes a server receive: what ord_report() expects
 * of the receive in its place (@ids, the requirement IDs that check
 * asserts). Returns its report number.
 */
static uint32_t ord_expect_recv(const char *what, const char *ids,
				uint32_t opcode, uint32_t len, bool imm,
				uint32_t imm32)
{
	omsg[nomsg].what = what;
	omsg[nomsg].ids = ids;
	omsg[nomsg].opcode = opcode;
	omsg[nomsg].len = len;
	omsg[nomsg].imm = imm;
	omsg[nomsg].imm32 = imm32;
	return seq + ++nomsg;
}

/* A message's payload: @len octets of the pattern report @rpt checks. */
static void ord_payload(struct ibv_send_wr *w, uint32_t len, uint32_t rpt)
{
	w->sg_list->addr = (uintptr_t)ord_pattern(false, len, rpt);
	w->sg_list->length = len;
	w->num_sge = 1;
}

static void ord_remote(struct ibv_send_wr *w, uint64_t addr, uint32_t rkey)
{
	w->wr.rdma.remote_addr = addr;
	w->wr.rdma.rkey = rkey;
}

static void ord_atomic(struct ibv_send_wr *w, uint64_t addr, uint32_t rkey,
		       uint64_t add)
{
	w->wr.atomic.remote_addr = addr;
	w->wr.atomic.rkey = rkey;
	w->wr.atomic.compare_add = add;
}

/* The server's receive area for the message reported as @s. */
static uint64_t ord_rbuf(uint32_t s)
{
	return peer.rbuf_addr +
	       (uint64_t)((s - 1) % SIW2_EXT_RECVS) * SIW2_EXT_RECV_LEN;
}

/* A report of the burst against the message posted in that place. */
static void ord_report(const struct siw2_ext_report *r, int k)
{
	bool imm = r->wc_flags & IBV_WC_WITH_IMM;

	if (r->status || r->opcode != omsg[k].opcode ||
	    r->byte_len != omsg[k].len || imm != omsg[k].imm ||
	    (imm && (r->imm_data != htobe32(omsg[k].imm32) ||
		     r->imm64 != (uint64_t)omsg[k].imm32 << 32)) ||
	    !r->data_ok)
		fail("order: receive %d of the burst (report %u) has status %u opcode %u len %u imm %s0x%08x data_ok %u; expected %s (opcode %u len %u imm %s0x%08x, data placed) [%s]",
		     k + 1, r->seq, r->status, r->opcode, r->byte_len,
		     imm ? "" : "none ", be32toh(r->imm_data), r->data_ok,
		     omsg[k].what, omsg[k].opcode, omsg[k].len,
		     omsg[k].imm ? "" : "none ", omsg[k].imm32, omsg[k].ids);
}

/* A requester completion of the burst, its sink read at once. */
static void ord_done(const struct wc *w, int k)
{
	uint32_t i, len = ord[k].sge.length;
	const uint8_t *got = (const uint8_t *)(uintptr_t)ord[k].sge.addr;

	if (w->wr_id != ORD_WR0 + (uint64_t)k)
		fail("order: requester completion %d is wr_id %" PRIu64 ", expected %d (%s): send queue completions out of posting order [BASE-RDMAP-6 EXT-ATOMIC-24 EXT-IMM-13 V2-IMM-5]",
		     k + 1, w->wr_id, ORD_WR0 + k, ord[k].what);
	if (w->status != IBV_WC_SUCCESS || w->opcode != ord[k].op)
		fail("order: %s: status %s opcode %u, expected success %u",
		     ord[k].what, ibv_wc_status_str(w->status), w->opcode,
		     ord[k].op);
	if (!ord[k].want)
		return;
	for (i = 0; i < len; i++)
		if (got[i] != ord[k].want[i])
			fail("order: %s: octet %u of %u is 0x%02x, expected 0x%02x when its completion was polled [%s]",
			     ord[k].what, i, len, got[i], ord[k].want[i],
			     ord[k].ids);
}

/*
 * One burst of work requests posted by one ibv_post_send(), nothing
 * waited for in between: Writes, Writes with Immediate, Immediate Data
 * alone, Sends with and without Immediate, Reads (Read V2 with siw2
 * read_v2=1) and FetchAdds. Checked:
 *  - the server's receives complete in posting order (its reports, in
 *    its polling order, name each message's opcode, length and
 *    immediate), and a Write's data is in the window when the server
 *    polls the completion of the message after it (the plan);
 *  - every requester completion comes in posting order, and its sink
 *    holds the Read's data or the atomic's original value as soon as
 *    the completion is polled;
 *  - what each Read and FetchAdd returns shows where the responder
 *    executed it: after the Writes, Sends and atomics before it, before
 *    the atomics after it, and before a fenced Write after it.
 */
static void step_order(void)
{
	const uint64_t x0 = 0x1000000000000000ULL, k1 = 1, k2 = 0x100,
		       k3 = 0x10000;
	const uint32_t wo0 = 0x20000, wo3 = 0x50000, wox = 0x90000,
		       wof = 0xa0000, big = 131072;
	const char *fence_ids = opt.read_v2 ? "BASE-RDMAP-6 V2-READ-6" :
					      "BASE-RDMAP-6";
	struct siw2_ext_plan *pl;
	struct ibv_send_wr *w, *bad;
	struct siw2_ext_report r;
	uint32_t s1, s3, s8, s15;
	uint64_t v;
	int rc, k, sent = 0, rpts = 0;
	struct wc c;

	if (opt.rv1)
		fail("order: needs an RDMAP v2 connection (Send with Immediate)");
	if (have_early)
		fail("order: a report is pending before the burst");
	obuf = calloc(1, ORD_BUF);
	oexp = calloc(1, ORD_BUF);
	if (!obuf || !oexp)
		fail("out of memory");
	omr = ibv_reg_mr(pd, obuf, ORD_BUF, IBV_ACCESS_LOCAL_WRITE);
	if (!omr)
		fail_errno("order: ibv_reg_mr");
	nord = nomsg = 0;
	obump = ebump = 0;

	/* The plan, filled in below once the report numbers are known. */
	pl = (void *)ord_mem(obuf, &obump, sizeof(*pl));
	ord_expect_wr(IBV_WR_SEND, (uint8_t *)pl, sizeof(*pl), IBV_WC_SEND,
		      "plan Send", "", NULL);
	ord_expect_recv("the plan (a Send)", "BASE-RDMAP-6", IBV_WC_RECV,
			sizeof(*pl), false, 0);

	/* A long Write, then a Send with Immediate: placed before it completes. */
	w = ord_expect_wr(IBV_WR_RDMA_WRITE,
			  ord_pattern(false, 150000, 211), 150000,
			  IBV_WC_RDMA_WRITE, "Write of 150000 octets", "", NULL);
	ord_remote(w, peer.addr + wo0, peer.rkey);
	w = ord_expect_wr(IBV_WR_SEND_WITH_IMM, NULL, 0, IBV_WC_SEND,
			  "Send with Immediate of 1000 octets", "", NULL);
	s1 = ord_expect_recv("Send with Immediate, 1000 octets, after a Write",
			     "BASE-RDMAP-6 V2-IMM-5", IBV_WC_RECV, 1000, true,
			     0x0e0f0001);
	ord_payload(w, 1000, s1);
	w->imm_data = htobe32(0x0e0f0001);

	/* Write with Immediate: the Immediate Data completes after the data. */
	w = ord_expect_wr(IBV_WR_RDMA_WRITE_WITH_IMM,
			  ord_pattern(false, 100000, 212), 100000,
			  IBV_WC_RDMA_WRITE, "Write with Immediate", "", NULL);
	ord_remote(w, peer.addr + wo3, peer.rkey);
	w->imm_data = htobe32(0x0e0f0003);
	s3 = ord_expect_recv("Write with Immediate, 100000 octets",
			     "EXT-ORD-T6 EXT-IMM-1 EXT-IMM-8 EXT-IMM-13",
			     IBV_WC_RECV_RDMA_WITH_IMM, 0, true, 0x0e0f0003);

	/* Immediate Data alone, a Send, Immediate Data alone. */
	w = ord_expect_wr(IBV_WR_RDMA_WRITE_WITH_IMM, NULL, 0, IBV_WC_RDMA_WRITE,
			  "Immediate Data", "", NULL);
	ord_remote(w, peer.addr + wo3, peer.rkey);
	w->imm_data = htobe32(0x0e0f0004);
	ord_expect_recv("Immediate Data after a Write with Immediate",
			"EXT-ORD-T5 EXT-IMM-11 EXT-IMM-8 EXT-IMM-13",
			IBV_WC_RECV_RDMA_WITH_IMM, 0, true, 0x0e0f0004);
	w = ord_expect_wr(IBV_WR_SEND, NULL, 0, IBV_WC_SEND,
			  "Send of 2000 octets", "", NULL);
	k = ord_expect_recv("Send, 2000 octets, after Immediate Data",
			    "EXT-ORD-T1 V2-ORD-T1 EXT-IMM-13", IBV_WC_RECV, 2000,
			    false, 0);
	ord_payload(w, 2000, k);
	w = ord_expect_wr(IBV_WR_RDMA_WRITE_WITH_IMM, NULL, 0, IBV_WC_RDMA_WRITE,
			  "Immediate Data", "", NULL);
	ord_remote(w, peer.addr + wo3, peer.rkey);
	w->imm_data = htobe32(0x0e0f0006);
	ord_expect_recv("Immediate Data after a Send",
			"EXT-ORD-T5 EXT-IMM-11 V2-ORD-T3 EXT-IMM-8 EXT-IMM-13",
			IBV_WC_RECV_RDMA_WITH_IMM, 0, true, 0x0e0f0006);

	/* Sends with Immediate of 0 and 60000 octets, then a Read of the latter. */
	w = ord_expect_wr(IBV_WR_SEND_WITH_IMM, NULL, 0, IBV_WC_SEND,
			  "Send with Immediate of 0 octets", "", NULL);
	w->imm_data = htobe32(0x0e0f0007);
	ord_expect_recv("Send with Immediate, 0 octets, after Immediate Data",
			"V2-ORD-T3 V2-IMM-10 V2-IMM-5", IBV_WC_RECV, 0, true,
			0x0e0f0007);
	w = ord_expect_wr(IBV_WR_SEND_WITH_IMM, NULL, 0, IBV_WC_SEND,
			  "Send with Immediate of 60000 octets", "", NULL);
	w->imm_data = htobe32(0x0e0f0008);
	s8 = ord_expect_recv("Send with Immediate, 60000 octets",
			     "V2-ORD-T3 V2-IMM-5", IBV_WC_RECV, 60000, true,
			     0x0e0f0008);
	ord_payload(w, 60000, s8);
	w = ord_expect_wr(IBV_WR_RDMA_READ, ord_mem(obuf, &obump, 4096), 4096,
			  IBV_WC_RDMA_READ,
			  "Read of the Send with Immediate's receive buffer",
			  "V2-ORD-T2", ord_pattern(true, 4096, s8));
	ord_remote(w, ord_rbuf(s8), peer.rbuf_rkey);

	/* A Write, FetchAdds and Reads of one u64. */
	w = ord_expect_wr(IBV_WR_RDMA_WRITE, ord_u64(false, x0), 8,
			  IBV_WC_RDMA_WRITE, "Write of the counter", "", NULL);
	ord_remote(w, peer.addr + wox, peer.rkey);
	w = ord_expect_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, ord_mem(obuf, &obump, 8), 8,
			  IBV_WC_FETCH_ADD, "FetchAdd after the Write of its target",
			  "EXT-ORD-T14 EXT-ORD-4 EXT-ORD-6", ord_u64(true, x0));
	ord_atomic(w, peer.addr + wox, peer.rkey, k1);
	w = ord_expect_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, ord_mem(obuf, &obump, 8), 8,
			  IBV_WC_FETCH_ADD, "FetchAdd after a FetchAdd",
			  "EXT-ORD-T12 EXT-ORD-7 EXT-ATOMIC-15 EXT-ATOMIC-16 EXT-ATOMIC-24 EXT-ORD-6",
			  ord_u64(true, x0 + k1));
	ord_atomic(w, peer.addr + wox, peer.rkey, k2);
	w = ord_expect_wr(IBV_WR_RDMA_READ, ord_mem(obuf, &obump, 8), 8,
			  IBV_WC_RDMA_READ, "Read between the FetchAdds (unfenced)",
			  "EXT-ORD-T11 V2-ORD-T6 EXT-ORD-T15 V2-ORD-T8",
			  ord_u64(true, x0 + k1 + k2));
	ord_remote(w, peer.addr + wox, peer.rkey);
	w = ord_expect_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, ord_mem(obuf, &obump, 8), 8,
			  IBV_WC_FETCH_ADD, "FetchAdd after a Read",
			  "EXT-ORD-T15 V2-ORD-T8 EXT-ORD-7 EXT-ATOMIC-16 EXT-ORD-6",
			  ord_u64(true, x0 + k1 + k2));
	ord_atomic(w, peer.addr + wox, peer.rkey, k3);

	/* A Send, then a FetchAdd of 0 on the receive buffer it landed in. */
	w = ord_expect_wr(IBV_WR_SEND, NULL, 0, IBV_WC_SEND,
			  "Send of 4096 octets", "", NULL);
	s15 = ord_expect_recv("Send, 4096 octets, after the atomics",
			      "BASE-RDMAP-6", IBV_WC_RECV, 4096, false, 0);
	ord_payload(w, 4096, s15);
	w = ord_expect_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, ord_mem(obuf, &obump, 8), 8,
			  IBV_WC_FETCH_ADD,
			  "FetchAdd of 0 on the Send's receive buffer",
			  "EXT-ORD-T13 V2-ORD-T7 EXT-ORD-4 EXT-ORD-6",
			  ord_pattern(true, 8, s15));
	ord_atomic(w, ord_rbuf(s15), peer.rbuf_rkey, 0);

	/* Write, Read of it, a fenced Write of the same range, a Read again. */
	w = ord_expect_wr(IBV_WR_RDMA_WRITE, ord_pattern(false, big, 221), big,
			  IBV_WC_RDMA_WRITE, "Write of 131072 octets", "", NULL);
	ord_remote(w, peer.addr + wof, peer.rkey);
	w = ord_expect_wr(IBV_WR_RDMA_READ, ord_mem(obuf, &obump, big), big,
			  IBV_WC_RDMA_READ,
			  "Read after a Write and before a fenced Write of its range",
			  fence_ids, ord_pattern(true, big, 221));
	ord_remote(w, peer.addr + wof, peer.rkey);
	w = ord_expect_wr(IBV_WR_RDMA_WRITE, ord_pattern(false, big, 222), big,
			  IBV_WC_RDMA_WRITE, "fenced Write of 131072 octets", "",
			  NULL);
	ord_remote(w, peer.addr + wof, peer.rkey);
	w->send_flags |= IBV_SEND_FENCE;
	w = ord_expect_wr(IBV_WR_RDMA_READ, ord_mem(obuf, &obump, big), big,
			  IBV_WC_RDMA_READ, "Read after the fenced Write",
			  "BASE-RDMAP-6", ord_pattern(true, big, 222));
	ord_remote(w, peer.addr + wof, peer.rkey);
	w = ord_expect_wr(IBV_WR_RDMA_READ, ord_mem(obuf, &obump, 8), 8,
			  IBV_WC_RDMA_READ, "Read of the counter at the end",
			  "EXT-ORD-T11 V2-ORD-T6",
			  ord_u64(true, x0 + k1 + k2 + k3));
	ord_remote(w, peer.addr + wox, peer.rkey);

	/* The server checks the Writes' data when it polls these two. */
	pl->magic = SIW2_EXT_PLAN_MAGIC;
	pl->n = 2;
	pl->e[0].seq = s1;
	pl->e[0].off = wo0;
	pl->e[0].len = 150000;
	pl->e[0].seed = 211;
	pl->e[1].seq = s3;
	pl->e[1].off = wo3;
	pl->e[1].len = 100000;
	pl->e[1].seed = 212;

	/* Proof only: expect two receives in the wrong order (must fail). */
	if (opt.order_wrong) {
		typeof(omsg[0]) t = omsg[3];

		omsg[3] = omsg[4];
		omsg[4] = t;
	}

	rc = ibv_post_send(qp, &ord[0].wr, &bad);
	if (rc)
		fail("order: ibv_post_send: %s (at wr_id %" PRIu64 ")",
		     strerror(rc), bad ? bad->wr_id : 0);
	while (sent < nord || rpts < nomsg) {
		get_wc(&c, "the order burst");
		if (c.opcode & IBV_WC_RECV) {
			if (c.status != IBV_WC_SUCCESS ||
			    c.len != sizeof(r))
				fail("order: report receive status %s len %u",
				     ibv_wc_status_str(c.status), c.len);
			memcpy(&r, buf + RPT_OFF + c.wr_id * 256, sizeof(r));
			post_recv(c.wr_id, buf + RPT_OFF + c.wr_id * 256, 256);
			if (r.seq != ++seq)
				fail("order: report %u, expected %u", r.seq, seq);
			if (rpts == nomsg)
				fail("order: report %u beyond the burst", r.seq);
			/*
			 * EXT-IMM-8, EXT-IMM-13, V2-IMM-5, BASE-RDMAP-6, EXT-ORD-T1/T5/T6,
			 * EXT-IMM-11, V2-ORD-T1/T3, V2-IMM-10: receives in posting order,
			 * Immediate Data among the Sends, the Writes before them placed
			 * (omsg[].ids).
			 */
			ord_report(&r, rpts++);
			continue;
		}
		if (sent == nord)
			fail("order: completion wr_id %" PRIu64 " beyond the burst",
			     c.wr_id);
		/*
		 * EXT-ATOMIC-15/16/24, EXT-ORD-4/6/7, EXT-ORD-T11..T15, V2-ORD-T2/T6..T8:
		 * completions in posting order, each sink as the responder left it
		 * (ord[].ids).
		 */
		ord_done(&c, sent++);
	}
	memcpy(&v, (uint8_t *)(uintptr_t)ord[nord - 1].sge.addr, 8);
	printf("EXT ORDER requests=%d receives=%d counter=0x%016" PRIx64 "\n",
	       nord, nomsg, v);
	ibv_dereg_mr(omr);
	free(obuf);
	free(oexp);
	omr = NULL;
	obuf = oexp = NULL;
	pass("order");
}

/*
 * A refused atomic (misaligned, or through the STag without
 * REMOTE_ATOMIC) ends the connection: its completion is an error, the QP
 * goes to the error state; the server prints the guard u64s.
 */
static void step_bad_atomic(bool align)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf + 4112, .length = 8,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 65, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = {
			.remote_addr = peer.addr + SIW2_EXT_GUARD_OFF +
				       (align ? 4 : 16),
			.compare_add = 1,
			.rkey = align ? peer.rkey : peer.rkey_noatomic },
	}, *bad;
	const char *step = align ? "bad-align" : "bad-access";
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	double deadline;
	struct wc w;

	seed(SIW2_EXT_GUARD_OFF, 0x1111111111111111ULL);
	seed(SIW2_EXT_GUARD_OFF + 8, 0x2222222222222222ULL);
	seed(SIW2_EXT_GUARD_OFF + 16, 0x3333333333333333ULL);
	if (ibv_post_send(qp, &wr, &bad))
		fail_errno(step);
	get_wc(&w, step);
	if (w.wr_id != 65 || w.status == IBV_WC_SUCCESS)
		fail("%s: wr_id %" PRIu64 " status %s, expected an error [EXT-ATOMIC-13]",
		     step, w.wr_id, ibv_wc_status_str(w.status));
	deadline = now_s() + opt.timeout;
	do {
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
			fail_errno("ibv_query_qp");
		if (now_s() > deadline)
			fail("%s: the QP is still in state %d [EXT-ATOMIC-13]", step,
			     a.qp_state);
	} while (a.qp_state != IBV_QPS_ERR && (usleep(10000), 1));
	printf("EXT PASS %s status=%s\n", step, ibv_wc_status_str(w.status));
	steps++;
}

/* A connection without extensions refuses them all at post time. */
static void step_no_ext(void)
{
	struct ibv_sge sge = { .addr = (uintptr_t)buf, .length = 8,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr = { .wr_id = 50, .sg_list = &sge, .num_sge = 1,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	static const enum ibv_wr_opcode ops[] = {
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND_WITH_IMM,
		IBV_WR_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_CMP_AND_SWP,
	};
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		wr.opcode = ops[i];
		if (ops[i] == IBV_WR_ATOMIC_FETCH_AND_ADD ||
		    ops[i] == IBV_WR_ATOMIC_CMP_AND_SWP) {
			wr.wr.atomic.remote_addr = peer.addr;
			wr.wr.atomic.rkey = peer.rkey;
		} else {
			wr.wr.rdma.remote_addr = peer.addr;
			wr.wr.rdma.rkey = peer.rkey;
		}
		rc = ibv_post_send(qp, &wr, &bad);
		/* V2-CAP-3: no capability bits agreed (DEC-4), no extension. */
		if (rc != EOPNOTSUPP)
			fail("no-ext: opcode %d posted: %s, expected EOPNOTSUPP [V2-CAP-3 DEC-4]",
			     ops[i], strerror(rc));
	}
	ibv_wr_start(qpx);
	ibv_wr_rdma_write_imm(qpx, peer.rkey, peer.addr, htobe32(1));
	ibv_wr_set_sge_list(qpx, 0, NULL);
	wr_end("no-ext write-imm builder", EOPNOTSUPP);
	ibv_wr_start(qpx);
	ibv_wr_atomic_fetch_add(qpx, peer.rkey, peer.addr, 1);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, 8);
	wr_end("no-ext fetch-add builder", EOPNOTSUPP);

	/* The QP still works: a Write and a Read of it back. */
	fill(buf, 4000, 77);
	sge.length = 4000;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.remote_addr = peer.addr + 65536;
	wr.wr.rdma.rkey = peer.rkey;
	rc = ibv_post_send(qp, &wr, &bad);
	if (rc)
		fail("no-ext: Write: %s", strerror(rc));
	get_send(50, IBV_WC_RDMA_WRITE, "no-ext write");
	sge.addr = (uintptr_t)buf + 8192;
	if (post_read(51, 65536, &sge, 1))
		fail_errno("no-ext: Read");
	get_send(51, IBV_WC_RDMA_READ, "no-ext read");
	if (memcmp(buf, buf + 8192, 4000))
		fail("no-ext: the Read did not return the Write's data");
	pass("no-ext");
}

/* The server cannot invalidate a regular MR: the connection must end. */
static void step_inv_imm(void)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	double deadline;
	struct wc w;

	ibv_wr_start(qpx);
	qpx->wr_id = 40;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	siw2dv_wr_send_inv_imm(qpx, peer.rkey, 0x1111222233334444ULL);
	ibv_wr_set_sge_list(qpx, 0, NULL);
	wr_end("inv-imm", 0);
	deadline = now_s() + opt.timeout;
	for (;;) {
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
			fail_errno("ibv_query_qp");
		if (a.qp_state == IBV_QPS_ERR)
			break;
		if (now_s() > deadline)
			fail("inv-imm: the QP is still in state %d", a.qp_state);
		next_wc(&w, 0.01);
	}
	pass("inv-imm");
}

static void client(void)
{
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
	};
	struct rdma_cm_event *ev;
	uint32_t i;

	id = cm_route(cm_chan, opt.timeout, opt.addr, opt.port);
	setup(id);
	for (i = 0; i < REPORTS; i++)
		post_recv(i, buf + RPT_OFF + i * 256, 256);
	if (rdma_connect(id, &cp))
		fail_errno("rdma_connect");
	ev = cm_get_event(cm_chan, opt.timeout, RDMA_CM_EVENT_ESTABLISHED,
			  "ESTABLISHED");
	if (ev->param.conn.private_data_len < sizeof(peer))
		fail("hello of %u octets", ev->param.conn.private_data_len);
	memcpy(&peer, ev->param.conn.private_data, sizeof(peer));
	rdma_ack_cm_event(ev);

	if (opt.no_ext) {
		step_no_ext();
		rdma_disconnect(id);
		goto out;
	}
	step_write_imm();
	step_imm_only();
	step_send_imm();
	step_read();
	step_atomics();
	if (opt.order)
		step_order();
	if (opt.bad_align || opt.bad_access)
		step_bad_atomic(opt.bad_align);
	else if (opt.inv_imm && !opt.rv1)
		step_inv_imm();
	else
		rdma_disconnect(id);
out:
	cm_wait_disconnected(cm_chan, opt.timeout);
	teardown();
	rdma_destroy_id(id);
	printf("EXT OK side=client steps=%d\n", steps);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rv1", no_argument, NULL, 1 },
		{ "read-v2", no_argument, NULL, 2 },
		{ "inv-imm", no_argument, NULL, 3 },
		{ "no-ext", no_argument, NULL, 4 },
		{ "bad-align", no_argument, NULL, 5 },
		{ "bad-access", no_argument, NULL, 6 },
		{ "order", no_argument, NULL, 7 },
		{ "order-wrong", no_argument, NULL, 8 },
		{ }
	};
	int c, n;

	while ((c = getopt_long(argc, argv, "sa:p:n:t:", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.server = true; break;
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 'n': opt.conns = atoi(optarg); break;
		case 't': opt.timeout = atoi(optarg); break;
		case 1: opt.rv1 = true; break;
		case 2: opt.read_v2 = true; break;
		case 3: opt.inv_imm = true; break;
		case 4: opt.no_ext = true; break;
		case 5: opt.bad_align = true; break;
		case 6: opt.bad_access = true; break;
		case 7: opt.order = true; break;
		case 8: opt.order = opt.order_wrong = true; break;
		default:
			fprintf(stderr, "usage: see the top of siw2_ext.c\n");
			return 2;
		}
	}
	if (!opt.addr) {
		fprintf(stderr, "siw2_ext: -a ADDR is required\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	side = opt.server ? "server" : "client";
	cm_chan = rdma_create_event_channel();
	if (!cm_chan)
		fail_errno("rdma_create_event_channel");
	if (opt.server) {
		listen_id = cm_listen(cm_chan, opt.addr, opt.port);
		for (n = 0; n < opt.conns; n++)
			serve_one();
		rdma_destroy_id(listen_id);
		printf("EXT OK side=server conns=%d\n", n);
	} else {
		client();
	}
	rdma_destroy_event_channel(cm_chan);
	return 0;
}
