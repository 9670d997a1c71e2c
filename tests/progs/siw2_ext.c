// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_ext: Immediate Data, Send with Immediate Data and RDMA Read V2
 * from user space, with the protocol of siw2_ext_proto.h (the server
 * reports every receive it consumed back to the client).
 *
 *   siw2_ext -s -a ADDR [-p PORT] [-n CONNS] [-t SECS]      server
 *   siw2_ext -a ADDR [-p PORT] [-t SECS] [--rv1] [--read-v2] [--inv-imm]
 *            [--no-ext] [--bad-align | --bad-access]        client
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

#define REPORTS		8	/* client receives for reports */
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
	mr = win_mr = lw_mr = noat_mr = NULL;
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
	if (!mr)
		fail_errno("ibv_reg_mr");
	for (i = 0; i < SIW2_EXT_RECVS; i++)
		post_recv(i, buf + i * SIW2_EXT_RECV_LEN, SIW2_EXT_RECV_LEN);
	posted = SIW2_EXT_RECVS;
	hello.addr = (uintptr_t)win;
	hello.rkey = win_mr->rkey;
	hello.len = SIW2_EXT_WIN;
	hello.rkey_noatomic = noat_mr->rkey;
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
		for (i = 0; ok && i < w.len; i++)
			ok = p[i] == siw2_ext_byte(i, seq);
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

/* The next report; the checks are the caller's. */
static void get_report(struct siw2_ext_report *out, const char *step)
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
		fail("%s: report %u, expected %u", step, out->seq, seq);
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

static void check_report(const struct siw2_ext_report *r, const char *step,
			 uint32_t opcode, uint32_t len, uint64_t imm64)
{
	if (r->status || r->opcode != opcode || r->byte_len != len ||
	    !(r->wc_flags & IBV_WC_WITH_IMM) ||
	    r->imm_data != htobe32(imm64 >> 32) || r->imm64 != imm64 ||
	    !r->data_ok)
		fail("%s: server saw status %u opcode %u len %u flags 0x%x imm 0x%08x imm64 0x%016" PRIx64 " data_ok %u; expected opcode %u len %u imm64 0x%016" PRIx64,
		     step, r->status, r->opcode, r->byte_len, r->wc_flags,
		     be32toh(r->imm_data), (uint64_t)r->imm64, r->data_ok,
		     opcode, len, imm64);
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
	get_report(&r, "write-imm");
	check_report(&r, "write-imm", IBV_WC_RECV_RDMA_WITH_IMM, 0,
		     0x1122334400000000ULL);
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
	get_report(&r, "imm-only");
	check_report(&r, "imm-only", IBV_WC_RECV_RDMA_WITH_IMM, 0,
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
	get_report(&r, "imm64");
	check_report(&r, "imm64", IBV_WC_RECV_RDMA_WITH_IMM, 0,
		     0x0102030405060708ULL);
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
		get_report(&r, "send-imm");
		check_report(&r, "send-imm", IBV_WC_RECV, lens[i],
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
	get_report(&r, "send-imm64");
	check_report(&r, "send-imm64", IBV_WC_RECV, sizeof(data),
		     0xfedcba9876543210ULL);
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
	for (o = 0, k = 0; k < (opt.read_v2 ? 3u : 1u); k++)
		for (i = 0; i < sg[k].length; i++, o++)
			if (((uint8_t *)(uintptr_t)sg[k].addr)[i] !=
			    siw2_ext_byte(off + o, 0))
				fail("read: sink %u octet %u differs", k, i);
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

	seed(0, 41);
	expect("FetchAdd original", atomic_post(IBV_WR_ATOMIC_FETCH_AND_ADD, 0,
						1, 0, IBV_WC_FETCH_ADD), 41);
	expect("FetchAdd result", peek(0), 42);
	seed(8, ~0ULL);
	expect("FetchAdd wrap original",
	       atomic_post(IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 2, 0,
			   IBV_WC_FETCH_ADD), ~0ULL);
	expect("FetchAdd wrap result", peek(8), 1);
	seed(16, 7);
	expect("CmpSwap match original",
	       atomic_post(IBV_WR_ATOMIC_CMP_AND_SWP, 16, 7, 99,
			   IBV_WC_COMP_SWAP), 7);
	expect("CmpSwap match result", peek(16), 99);
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
		fail("%s: wr_id %" PRIu64 " status %s, expected an error", step,
		     w.wr_id, ibv_wc_status_str(w.status));
	deadline = now_s() + opt.timeout;
	do {
		if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
			fail_errno("ibv_query_qp");
		if (now_s() > deadline)
			fail("%s: the QP is still in state %d", step, a.qp_state);
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
		if (rc != EOPNOTSUPP)
			fail("no-ext: opcode %d posted: %s, expected EOPNOTSUPP",
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
