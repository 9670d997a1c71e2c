// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_mw: memory windows (type 2A) from user space, owner and peer.
 *
 *   siw2_mw server ADDR PORT     the owner: binds, invalidates, checks memory
 *   siw2_mw client ADDR PORT     the peer: reaches memory through windows
 *
 * The owner has one 64 KiB MR (zeroed, MW_BIND) and one window onto it.
 * One connection per step; the owner sends {rkey, addr, len} of the step's
 * window, the peer acts and reports; the owner checks its memory:
 *   1 bind RW over [4 KiB, 12 KiB) with a new key (IBV_WR_BIND_MW: an
 *     IBV_WC_BIND_MW completion); the peer Writes 8 KiB there and Reads it
 *     back; only that range changed; ibv_dereg_mr of the MR is EBUSY;
 *     then the peer's Send with Invalidate of the window's rkey: the
 *     owner's Receive says IBV_WC_WITH_INV with that rkey, and a Write
 *     through the rkey afterwards fails the peer's connection, memory
 *     untouched;
 *   2 rebind read-only with the next key: a Read works, a Write fails;
 *   3 Local Invalidate, rebind RW with the next key: the previous key
 *     fails;
 *   4 a Write across the window's end fails; nothing beyond it changed;
 *   5 a window's rkey as a local key fails the owner's own Send; binds
 *     refused: an MR without MW_BIND, a range beyond the MR, a type 1
 *     window (ibv_alloc_mw), ibv_bind_mw();
 * then ibv_dealloc_mw() and the MR deregisters.
 * One "ok N - ..." line per check; exit 1 at the first failure.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define BUF		65536
#define WIN_OFF		4096
#define WIN_LEN		8192
#define STEPS		5

struct info {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
	uint32_t step;
	uint32_t old_rkey;
};

static int nok;
static const char *role = "siw2_mw";

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("not ok %d - %s: ", nok + 1, role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

static void ok(const char *what)
{
	printf("ok %d - %s: %s\n", ++nok, role, what);
	fflush(stdout);
}

static double tmo(void)
{
	const char *s = getenv("SIW2_TIMEOUT_SCALE");

	return 10.0 * (s && atof(s) > 1 ? atof(s) : 1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One completion from @cq within the timeout; 0 if none came. */
static int poll1(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double end = now() + tmo();
	struct timespec nap = { 0, 100000 };
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc)) && now() < end)
		nanosleep(&nap, NULL);
	if (n < 0)
		fail("ibv_poll_cq");
	return n;
}

static void want_wc(struct ibv_cq *cq, enum ibv_wc_opcode op,
		    enum ibv_wc_status st, const char *what)
{
	struct ibv_wc wc;

	if (!poll1(cq, &wc))
		fail("%s: no completion", what);
	if (wc.status != st || (st == IBV_WC_SUCCESS && wc.opcode != op))
		fail("%s: completion %s opcode %d, want %s opcode %d", what,
		     ibv_wc_status_str(wc.status), wc.opcode,
		     ibv_wc_status_str(st), op);
}

/* ---------------------------------------------------------------- owner */

static uint8_t *buf;
static struct ibv_mr *mr, *mr_nobind;
static struct ibv_mw *mw;

static void mw_bind(struct rdma_cm_id *id, uint32_t rkey, struct ibv_mr *m,
		 uint64_t addr, uint64_t len, unsigned int acc,
		 enum ibv_wc_status want, const char *what)
{
	struct ibv_send_wr wr = { 0 }, *bad;

	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = rkey;
	wr.bind_mw.bind_info.mr = m;
	wr.bind_mw.bind_info.addr = addr;
	wr.bind_mw.bind_info.length = len;
	wr.bind_mw.bind_info.mw_access_flags = acc;
	if (ibv_post_send(id->qp, &wr, &bad))
		fail("%s: ibv_post_send(BIND_MW): %s", what, strerror(errno));
	want_wc(id->send_cq, IBV_WC_BIND_MW, want, what);
	ok(what);
}

static void untouched(uint64_t from, uint64_t to, const char *what)
{
	uint64_t i;

	for (i = from; i < to; i++)
		if (buf[i])
			fail("%s: octet %llu changed", what, (unsigned long long)i);
}

static void pattern_at(uint64_t off, uint64_t len, uint8_t seed, const char *what)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (buf[off + i] != (uint8_t)(i * 7 + seed))
			fail("%s: octet %llu is 0x%02x", what,
			     (unsigned long long)(off + i), buf[off + i]);
}

/* The peer's word (a Receive); its status when the connection failed. */
static enum ibv_wc_status peer_word(struct rdma_cm_id *id, struct ibv_wc *wc)
{
	if (!poll1(id->recv_cq, wc))
		fail("no word from the peer");
	return wc->status;
}

/* A connection's QP in the owner's one PD (librdmacm's default PD may change). */
static struct rdma_cm_id *accept_next(struct rdma_cm_id *lid, struct ibv_pd *pd)
{
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_cm_id *id;

	if (rdma_get_request(lid, &id) || rdma_create_qp(id, pd, &qa))
		fail("rdma_get_request/rdma_create_qp: %s", strerror(errno));
	return id;
}

static void owner(const char *addr, const char *port)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE,
				       .ai_port_space = RDMA_PS_TCP }, *res;
	struct rdma_cm_id *lid, *id;
	struct ibv_pd *pd;
	struct ibv_mr *rmr;
	struct info in, msg;
	uint32_t key = 0;
	struct ibv_wc wc;
	int step;

	role = "owner";
	if (rdma_getaddrinfo(addr, port, &hints, &res) ||
	    rdma_create_ep(&lid, res, NULL, NULL) || rdma_listen(lid, 2))
		fail("listen on %s:%s: %s", addr, port, strerror(errno));
	pd = lid->verbs ? ibv_alloc_pd(lid->verbs) : NULL;
	if (!pd)
		fail("ibv_alloc_pd on the listener's device");
	printf("listening\n");
	fflush(stdout);
	buf = calloc(1, BUF);
	for (step = 1; step <= STEPS; step++) {
		id = accept_next(lid, pd);
		if (!mr) {
			mr = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
					IBV_ACCESS_MW_BIND);
			mr_nobind = ibv_reg_mr(pd, buf, BUF, IBV_ACCESS_LOCAL_WRITE |
					       IBV_ACCESS_REMOTE_WRITE);
			mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
			if (!mr || !mr_nobind || !mw)
				fail("ibv_reg_mr/ibv_alloc_mw(type 2): %s", strerror(errno));
			key = mw->rkey;
			ok("a type 2 window allocated");
		}
		rmr = rdma_reg_msgs(id, &in, sizeof(in));
		if (!rmr || rdma_post_recv(id, NULL, &in, sizeof(in), rmr) ||
		    rdma_accept(id, NULL))
			fail("step %d: accept: %s", step, strerror(errno));
		memset(&msg, 0, sizeof(msg));
		msg.step = step;
		msg.old_rkey = key;
		msg.addr = (uintptr_t)buf + WIN_OFF;
		msg.len = WIN_LEN;
		switch (step) {
		case 1:
			key = ibv_inc_rkey(key);
			mw_bind(id, key, mr, msg.addr, WIN_LEN, IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ, IBV_WC_SUCCESS,
			     "bind RW [4 KiB, 12 KiB) (IBV_WC_BIND_MW)");
			break;
		case 2:
			key = ibv_inc_rkey(key);
			mw_bind(id, key, mr, msg.addr, WIN_LEN, IBV_ACCESS_REMOTE_READ,
			     IBV_WC_SUCCESS, "rebind read-only, next key");
			break;
		case 3: {
			struct ibv_send_wr wr = { .opcode = IBV_WR_LOCAL_INV,
						  .send_flags = IBV_SEND_SIGNALED,
						  .invalidate_rkey = key }, *bad;

			if (ibv_post_send(id->qp, &wr, &bad))
				fail("LOCAL_INV: %s", strerror(errno));
			want_wc(id->send_cq, IBV_WC_LOCAL_INV, IBV_WC_SUCCESS,
				"Local Invalidate of the window");
			ok("Local Invalidate of the window");
			key = ibv_inc_rkey(key);
			mw_bind(id, key, mr, msg.addr, WIN_LEN, IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ, IBV_WC_SUCCESS, "rebind RW, next key");
			break;
		}
		default:
			break;
		}
		msg.rkey = key;
		if (step == STEPS) {
			/* Own misuse: a window's rkey is no local key. */
			struct ibv_sge sge = { (uintptr_t)buf + WIN_OFF, 64, key };
			struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1,
						  .opcode = IBV_WR_SEND,
						  .send_flags = IBV_SEND_SIGNALED }, *bad;

			if (ibv_post_send(id->qp, &wr, &bad))
				fail("Send: %s", strerror(errno));
			want_wc(id->send_cq, IBV_WC_SEND, IBV_WC_LOC_PROT_ERR,
				"a window's rkey as a local key");
			ok("a window's rkey as a local key: IBV_WC_LOC_PROT_ERR");
			goto last;
		}
		if (rdma_post_send(id, NULL, &msg, sizeof(msg), NULL, IBV_SEND_INLINE |
				   IBV_SEND_SIGNALED))
			fail("send info: %s", strerror(errno));
		want_wc(id->send_cq, IBV_WC_SEND, IBV_WC_SUCCESS, "send info");
		switch (step) {
		case 1:
			if (peer_word(id, &wc) != IBV_WC_SUCCESS)
				fail("step 1: the peer's report: %s", ibv_wc_status_str(wc.status));
			pattern_at(WIN_OFF, WIN_LEN, 1, "the peer's Write through the window");
			untouched(0, WIN_OFF, "before the window");
			untouched(WIN_OFF + WIN_LEN, BUF, "after the window");
			ok("the peer's Write landed in the window, nothing outside it");
			if (!ibv_dereg_mr(mr) || errno != EBUSY)
				fail("ibv_dereg_mr with a window bound: %s, want EBUSY",
				     strerror(errno));
			ok("ibv_dereg_mr of an MR with a bound window: EBUSY");
			if (rdma_post_recv(id, NULL, &in, sizeof(in), rmr))
				fail("post_recv");
			if (rdma_post_send(id, NULL, &msg, sizeof(msg), NULL,
					   IBV_SEND_INLINE | IBV_SEND_SIGNALED))
				fail("send go: %s", strerror(errno));
			want_wc(id->send_cq, IBV_WC_SEND, IBV_WC_SUCCESS, "send go");
			if (peer_word(id, &wc) != IBV_WC_SUCCESS ||
			    !(wc.wc_flags & IBV_WC_WITH_INV) || wc.invalidated_rkey != key)
				fail("Send with Invalidate: status %s flags 0x%x rkey 0x%x, want 0x%x",
				     ibv_wc_status_str(wc.status), wc.wc_flags,
				     wc.invalidated_rkey, key);
			ok("Send with Invalidate of the window: IBV_WC_WITH_INV, its rkey");
			memset(buf + WIN_OFF, 0, WIN_LEN);
			break;
		case 2:
		case 3:
		case 4:
			break;
		}
		/* The peer's failing access ends the connection; memory unchanged. */
		if (rdma_post_recv(id, NULL, &in, sizeof(in), rmr))
			fail("post_recv");
		if (peer_word(id, &wc) == IBV_WC_SUCCESS)
			fail("step %d: the peer's forbidden access did not end the connection",
			     step);
		if (step == 2)
			untouched(0, BUF, "after a Write through a read-only window");
		else
			untouched(0, BUF, "after a Write through an invalid key");
		ok(step == 1 ? "a Write after the invalidation failed the connection, memory untouched" :
		   step == 2 ? "a Write through the read-only window failed, memory untouched" :
		   step == 3 ? "the previous key failed after the rebind, memory untouched" :
			       "a Write across the window's end failed, nothing beyond it changed");
last:
		rdma_disconnect(id);
		rdma_dereg_mr(rmr);
		rdma_destroy_ep(id);
	}
	/* Binds the owner may not make (a fresh connection: the QP is needed). */
	id = accept_next(lid, pd);
	if (rdma_accept(id, NULL))
		fail("bind step: accept");
	{
		struct ibv_mw *mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
		struct ibv_mw_bind mb = { 0 };

		if (mw1)
			fail("ibv_alloc_mw(type 1) succeeded");
		ok("ibv_alloc_mw(type 1) refused (type 2A only)");
		mb.bind_info.mr = mr;
		if (!ibv_bind_mw(id->qp, mw, &mb))
			fail("ibv_bind_mw (type 1 binding) succeeded");
		ok("ibv_bind_mw refused");
	}
	key = ibv_inc_rkey(key);
	/* The window is still bound (step 3): invalidate it first. */
	{
		struct ibv_send_wr wr = { .opcode = IBV_WR_LOCAL_INV,
					  .send_flags = IBV_SEND_SIGNALED,
					  .invalidate_rkey = msg.rkey }, *bad;

		if (ibv_post_send(id->qp, &wr, &bad))
			fail("LOCAL_INV: %s", strerror(errno));
		want_wc(id->send_cq, IBV_WC_LOCAL_INV, IBV_WC_SUCCESS, "Local Invalidate");
	}
	mw_bind(id, key, mr, (uintptr_t)buf, BUF + 4096, IBV_ACCESS_REMOTE_READ,
	     IBV_WC_MW_BIND_ERR, "a bind beyond the MR: IBV_WC_MW_BIND_ERR");
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	id = accept_next(lid, pd);
	if (rdma_accept(id, NULL))
		fail("bind step 2: accept");
	mw_bind(id, key, mr_nobind, (uintptr_t)buf, 4096, IBV_ACCESS_REMOTE_READ,
	     IBV_WC_MW_BIND_ERR, "a bind onto an MR without MW_BIND: IBV_WC_MW_BIND_ERR");
	rdma_disconnect(id);
	rdma_destroy_ep(id);
	if (ibv_dealloc_mw(mw))
		fail("ibv_dealloc_mw: %s", strerror(errno));
	if (ibv_dereg_mr(mr) || ibv_dereg_mr(mr_nobind))
		fail("ibv_dereg_mr after the window: %s", strerror(errno));
	ok("window deallocated, MRs deregistered");
	rdma_destroy_ep(lid);
	if (ibv_dealloc_pd(pd))
		fail("ibv_dealloc_pd: %s", strerror(errno));
	printf("owner: %d passed\n", nok);
}

/* ----------------------------------------------------------------- peer */

/* Post one signaled RDMA operation; the error ibv_post_send() returned. */
static int rdma_try_op(struct rdma_cm_id *id, enum ibv_wr_opcode op, void *local,
		       struct ibv_mr *lmr, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = { (uintptr_t)local, len, lmr->lkey };
	struct ibv_send_wr wr = { .sg_list = &sge, .num_sge = 1, .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(id->qp, &wr, &bad);
}

static void rdma_op(struct rdma_cm_id *id, enum ibv_wr_opcode op, void *local,
		    struct ibv_mr *lmr, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	int rv = rdma_try_op(id, op, local, lmr, len, raddr, rkey);

	if (rv)
		fail("ibv_post_send: %s", strerror(rv));
}

/* A Write through a forbidden window, then a Read: the Read fails. */
static void forbidden(struct rdma_cm_id *id, uint8_t *lb, struct ibv_mr *lmr,
		      uint64_t raddr, uint32_t len, uint32_t rkey, const char *what)
{
	double t0 = now();
	struct ibv_wc wc;
	int n, posted = 2, bad = 0, rv;

	rdma_op(id, IBV_WR_RDMA_WRITE, lb, lmr, len, raddr, rkey);
	/*
	 * The Write's Terminate may have failed the connection already (seen
	 * under load): then the Read is refused at the post, which is the
	 * failure this checks for; the Write's completion still comes.
	 */
	rv = rdma_try_op(id, IBV_WR_RDMA_READ, lb, lmr, 8, raddr, rkey);
	if (rv) {
		printf("# %s: the Read refused at the post (%s) after %.3f s\n",
		       what, strerror(rv), now() - t0);
		posted = 1;
		bad = 1;
		if (poll1(id->send_cq, &wc))
			printf("# %s: the Write's completion %s\n", what,
			       ibv_wc_status_str(wc.status));
	}
	for (n = 0; n < posted && !bad && poll1(id->send_cq, &wc); n++) {
		printf("# %s: completion %d %s after %.3f s\n", what, n,
		       ibv_wc_status_str(wc.status), now() - t0);
		bad += wc.status != IBV_WC_SUCCESS;
	}
	if (!bad)
		fail("%s: no completion with an error", what);
	ok(what);
}

static void peer(const char *addr, const char *port)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr qa = {
		.cap = { .max_send_wr = 8, .max_recv_wr = 4, .max_send_sge = 1,
			 .max_recv_sge = 1, .max_inline_data = 64 },
		.qp_type = IBV_QPT_RC,
	};
	struct rdma_conn_param cp = { .responder_resources = 4, .initiator_depth = 4,
				      .retry_count = 7 };
	static uint8_t lb[WIN_LEN + 64];
	struct rdma_cm_id *id;
	struct ibv_mr *lmr, *imr;
	struct info in;
	struct ibv_wc wc;
	uint32_t i, step;

	role = "peer";
	for (step = 1; step <= STEPS + 2; step++) {
		if (rdma_getaddrinfo(addr, port, &hints, &res))
			fail("step %u: rdma_getaddrinfo: %s", step, strerror(errno));
		/* rdma_create_ep() writes the CQs it made into the attributes. */
		qa.send_cq = qa.recv_cq = NULL;
		if (rdma_create_ep(&id, res, NULL, &qa))
			fail("step %u: rdma_create_ep: %s", step, strerror(errno));
		rdma_freeaddrinfo(res);
		lmr = ibv_reg_mr(id->pd, lb, sizeof(lb), IBV_ACCESS_LOCAL_WRITE);
		imr = rdma_reg_msgs(id, &in, sizeof(in));
		if (!lmr || !imr || rdma_post_recv(id, NULL, &in, sizeof(in), imr))
			fail("step %u: buffers", step);
		if (rdma_connect(id, &cp))
			fail("step %u: rdma_connect: %s", step, strerror(errno));
		if (step > STEPS - 1) {
			/* The owner's own checks: wait for its disconnect. */
			poll1(id->recv_cq, &wc);
			goto next;
		}
		want_wc(id->recv_cq, IBV_WC_RECV, IBV_WC_SUCCESS, "the window's info");
		switch (in.step) {
		case 1:
			for (i = 0; i < WIN_LEN; i++)
				lb[i] = (uint8_t)(i * 7 + 1);
			rdma_op(id, IBV_WR_RDMA_WRITE, lb, lmr, WIN_LEN, in.addr, in.rkey);
			want_wc(id->send_cq, IBV_WC_RDMA_WRITE, IBV_WC_SUCCESS,
				"Write through the window");
			memset(lb, 0, WIN_LEN);
			rdma_op(id, IBV_WR_RDMA_READ, lb, lmr, WIN_LEN, in.addr, in.rkey);
			want_wc(id->send_cq, IBV_WC_RDMA_READ, IBV_WC_SUCCESS,
				"Read through the window");
			for (i = 0; i < WIN_LEN; i++)
				if (lb[i] != (uint8_t)(i * 7 + 1))
					fail("Read back: octet %u differs", i);
			ok("Write and Read through the window");
			if (rdma_post_recv(id, NULL, &in, sizeof(in), imr) ||
			    rdma_post_send(id, NULL, &in, sizeof(in), imr, IBV_SEND_SIGNALED))
				fail("report");
			want_wc(id->send_cq, IBV_WC_SEND, IBV_WC_SUCCESS, "report");
			want_wc(id->recv_cq, IBV_WC_RECV, IBV_WC_SUCCESS, "go");
			{
				struct ibv_send_wr wr = { .opcode = IBV_WR_SEND_WITH_INV,
							  .send_flags = IBV_SEND_SIGNALED |
									IBV_SEND_INLINE,
							  .invalidate_rkey = in.rkey }, *bad;
				struct ibv_sge sge = { (uintptr_t)&in, sizeof(in), 0 };

				wr.sg_list = &sge;
				wr.num_sge = 1;
				if (ibv_post_send(id->qp, &wr, &bad))
					fail("Send with Invalidate: %s", strerror(errno));
				want_wc(id->send_cq, IBV_WC_SEND, IBV_WC_SUCCESS,
					"Send with Invalidate");
			}
			ok("Send with Invalidate of the window's rkey");
			forbidden(id, lb, lmr, in.addr, 64, in.rkey,
				  "Write and Read through the invalidated window fail");
			break;
		case 2:
			memset(lb, 0, 64);
			rdma_op(id, IBV_WR_RDMA_READ, lb, lmr, 64, in.addr, in.rkey);
			want_wc(id->send_cq, IBV_WC_RDMA_READ, IBV_WC_SUCCESS,
				"Read through the read-only window");
			ok("Read through the read-only window");
			for (i = 0; i < 64; i++)
				lb[i] = 0xee;
			forbidden(id, lb, lmr, in.addr, 64, in.rkey,
				  "Write through the read-only window fails");
			break;
		case 3:
			for (i = 0; i < 64; i++)
				lb[i] = 0xee;
			forbidden(id, lb, lmr, in.addr, 64, in.old_rkey,
				  "the previous key fails after the rebind");
			break;
		case 4:
			for (i = 0; i < 64; i++)
				lb[i] = 0xee;
			forbidden(id, lb, lmr, in.addr + in.len - 8, 16, in.rkey,
				  "a Write across the window's end fails");
			break;
		}
next:
		rdma_disconnect(id);
		rdma_dereg_mr(imr);
		ibv_dereg_mr(lmr);
		rdma_destroy_ep(id);
	}
	printf("peer: %d passed\n", nok);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "server"))
		owner(argv[2], argv[3]);
	else if (argc == 4 && !strcmp(argv[1], "client"))
		peer(argv[2], argv[3]);
	else {
		fprintf(stderr, "usage: siw2_mw server ADDR PORT | client ADDR PORT\n");
		return 2;
	}
	return 0;
}
