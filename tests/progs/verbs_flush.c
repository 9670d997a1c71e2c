// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * verbs_flush: RDMA Flush through the standard verb ibv_wr_flush()
 * (rdma-core 45 and later), written only against <infiniband/verbs.h>
 * and librdmacm, so that the same binary runs against any device that
 * offers it: siw2 (where a Flush is an RDMA Commit) and rdma_rxe.
 *
 *   verbs_flush -s -a ADDR [-p PORT] --dax DEV [-t SECS]
 *   verbs_flush -a ADDR [-p PORT] [-t SECS] [--mr-level ok|refused]
 *               [--after-error rts|error]
 *
 * Server: two windows, "pm" (the first 2 MiB of the device-DAX DEV,
 * mapped shared, registered with IBV_ACCESS_FLUSH_PERSISTENT and
 * _GLOBAL) and "ram" (ordinary memory, IBV_ACCESS_FLUSH_GLOBAL), both
 * with REMOTE_WRITE and REMOTE_READ, named in the accept's private data.
 * When the client has disconnected it checks both windows hold what the
 * client wrote and prints "FLUSHV WIN pm=ok|bad ram=ok|bad".
 *
 * Client steps (each "FLUSHV PASS <step>"):
 *   create-qp     ibv_create_qp_ex() (rdma_create_qp_ex()) with
 *                 IBV_QP_EX_WITH_FLUSH in send_ops_flags succeeds
 *   device-caps   ibv_query_device_ex() reports the Flush placement
 *                 types (IB_UVERBS_DEVICE_FLUSH_GLOBAL, _PERSISTENT)
 *   persistent    a 64 KiB Write to pm and ibv_wr_flush(PERSISTENT,
 *                 RANGE) of it in one batch: the Write completes, then
 *                 the Flush with IBV_WC_SUCCESS and opcode IBV_WC_FLUSH
 *   global        a 4 KiB Write to ram and ibv_wr_flush(GLOBAL, RANGE):
 *                 both succeed, the Flush as IBV_WC_FLUSH
 *   read-back     RDMA Reads of both windows return what was written
 *   mr-level      ibv_wr_flush(PERSISTENT, MR) of pm: "ok" wants a
 *                 successful IBV_WC_FLUSH (rxe flushes whole MRs),
 *                 "refused" wants ibv_wr_complete() to fail with
 *                 EOPNOTSUPP and nothing posted (siw2: DEC-18)
 *   not-durable   (last) ibv_wr_flush(PERSISTENT, RANGE) of ram, which
 *                 is not registered persistent: IBV_WC_REM_ACCESS_ERR;
 *                 then with --after-error rts a global Flush of it on
 *                 the same QP succeeds (siw2 keeps the QP, SIW2-DEC-2),
 *                 with "error" the QP is in the error state (rxe)
 * Then "FLUSHV OK side=client steps=N". Any failed check prints
 * "FLUSHV FAIL ..." and exits 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "cm_common.h"

#define PM_WIN		(2u << 20)
#define RAM_WIN		65536
#define BIG		65536
#define SMALL		4096
/* enum ib_uverbs_device_cap_flags (Linux 6.2): rdma-core names neither. */
#define DEV_FLUSH_GLOBAL	(1ULL << 38)
#define DEV_FLUSH_PERSISTENT	(1ULL << 39)

/* The server's windows, in the accept's private data. */
struct hello {
	uint64_t pm_addr;
	uint64_t ram_addr;
	uint32_t pm_rkey;
	uint32_t ram_rkey;
};

static struct {
	bool server;
	const char *addr;
	const char *port;
	const char *dax;
	const char *mr_level;
	const char *after_error;
	int timeout;
} opt = { .port = "7820", .timeout = 30, .mr_level = "refused",
	  .after_error = "rts" };

static const char *side = "?";
static struct rdma_event_channel *ch;
static struct ibv_cq *cq;
static struct ibv_pd *pd;
static struct rdma_cm_id *id;
static struct ibv_qp_ex *qpx;
static struct hello peer;
static int steps;

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FLUSHV FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static void pass(const char *step)
{
	printf("FLUSHV PASS %s\n", step);
	fflush(stdout);
	steps++;
}

static uint8_t pat(uint32_t off, uint32_t s)
{
	return (uint8_t)(off * 167u + s * 31u + (off >> 9));
}

static void fill(uint8_t *p, uint32_t len, uint32_t s)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(i, s);
}

static bool same(const uint8_t *p, uint32_t len, uint32_t s)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(i, s))
			return false;
	return true;
}

/* The next completion, polled until the deadline. */
static struct ibv_wc get_wc(const char *what)
{
	double deadline = now_s() + opt.timeout * tmo_scale();
	struct ibv_wc wc;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, &wc)))
		if (now_s() > deadline)
			fail("timeout waiting for the completion of %s", what);
	if (n < 0)
		fail("ibv_poll_cq: %d", n);
	return wc;
}

static void expect_wc(uint64_t wr_id, enum ibv_wc_status status,
		      enum ibv_wc_opcode opcode, const char *what)
{
	struct ibv_wc wc = get_wc(what);

	if (wc.wr_id != wr_id || wc.status != status ||
	    (status == IBV_WC_SUCCESS && wc.opcode != opcode))
		fail("%s: completion wr_id %" PRIu64 " status %s opcode %d vendor_err %u, want wr_id %" PRIu64 " %s opcode %d",
		     what, wc.wr_id, ibv_wc_status_str(wc.status), wc.opcode,
		     wc.vendor_err, wr_id, ibv_wc_status_str(status), opcode);
}

static struct ibv_mr *reg(void *p, size_t len, int access, const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, p, len, access);

	if (!mr)
		fail("ibv_reg_mr of %s: %s", what, strerror(errno));
	return mr;
}

static void setup_verbs(struct rdma_cm_id *cid, bool client)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
	};

	pd = ibv_alloc_pd(cid->verbs);
	cq = ibv_create_cq(cid->verbs, 32, NULL, NULL, 0);
	if (!pd || !cq)
		fail_errno("ibv_alloc_pd / ibv_create_cq");
	qa.pd = pd;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	if (client) {
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_RDMA_READ |
				    IBV_QP_EX_WITH_FLUSH;
	}
	if (rdma_create_qp_ex(cid, &qa))
		fail("rdma_create_qp_ex%s: %s",
		     client ? " with IBV_QP_EX_WITH_FLUSH" : "",
		     strerror(errno));
	if (client) {
		qpx = ibv_qp_to_qp_ex(cid->qp);
		if (!qpx)
			fail("ibv_qp_to_qp_ex: no extended QP");
		pass("create-qp");
	}
}

/* ---- server ---- */

static void serve(void)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ;
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
		.private_data = &peer, .private_data_len = sizeof(peer),
	};
	struct ibv_mr *pm_mr, *ram_mr;
	struct rdma_cm_id *lid;
	struct rdma_cm_event *ev;
	uint8_t *pm;
	void *ram;
	int fd;

	fd = open(opt.dax, O_RDWR);
	if (fd < 0)
		fail_errno(opt.dax);
	pm = mmap(NULL, PM_WIN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (pm == MAP_FAILED)
		fail_errno("mmap of the device");
	if (posix_memalign(&ram, 4096, RAM_WIN))
		fail("out of memory");
	memset(pm, 0, PM_WIN);
	memset(ram, 0, RAM_WIN);
	lid = cm_listen(ch, opt.addr, opt.port);
	ev = cm_get_event(ch, opt.timeout, RDMA_CM_EVENT_CONNECT_REQUEST,
			  "CONNECT_REQUEST");
	id = ev->id;
	rdma_ack_cm_event(ev);
	setup_verbs(id, false);
	pm_mr = reg(pm, PM_WIN, rw | IBV_ACCESS_FLUSH_PERSISTENT |
		    IBV_ACCESS_FLUSH_GLOBAL, "pm (persistent)");
	ram_mr = reg(ram, RAM_WIN, rw | IBV_ACCESS_FLUSH_GLOBAL, "ram");
	peer.pm_addr = (uintptr_t)pm;
	peer.pm_rkey = pm_mr->rkey;
	peer.ram_addr = (uintptr_t)ram;
	peer.ram_rkey = ram_mr->rkey;
	if (rdma_accept(id, &cp))
		fail_errno("rdma_accept");
	rdma_ack_cm_event(cm_get_event(ch, opt.timeout,
				       RDMA_CM_EVENT_ESTABLISHED,
				       "ESTABLISHED"));
	if (!cm_wait_disconnected(ch, 600))
		fail("no DISCONNECTED");
	printf("FLUSHV WIN pm=%s ram=%s\n", same(pm, BIG, 1) ? "ok" : "bad",
	       same(ram, SMALL, 2) ? "ok" : "bad");
	rdma_destroy_qp(id);
	ibv_dereg_mr(pm_mr);
	ibv_dereg_mr(ram_mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	rdma_destroy_id(lid);
	if (!same(pm, BIG, 1) || !same(ram, SMALL, 2))
		fail("the windows do not hold what the client wrote");
	printf("FLUSHV OK side=server\n");
}

/* ---- client ---- */

static void post_write(uint64_t wr_id, struct ibv_mr *mr, uint32_t off,
		       uint32_t len, uint32_t rkey, uint64_t raddr)
{
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, rkey, raddr);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)mr->addr + off, len);
}

static void post_flush(uint64_t wr_id, uint32_t rkey, uint64_t raddr,
		       size_t len, uint8_t type, uint8_t level)
{
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_flush(qpx, rkey, raddr, len, type, level);
}

static void complete(const char *what)
{
	int rc = ibv_wr_complete(qpx);

	if (rc)
		fail("%s: ibv_wr_complete: %s", what, strerror(rc));
}

/*
 * siw2 (--mr-level refused) refuses at post time, with EINVAL and nothing
 * sent, a Flush of no type, of an unknown type bit, of another level, and
 * one longer than a Commit can name (2^32 - 1 octets).
 */
static void refused_at_post(void)
{
	static const struct {
		const char *what;
		size_t len;
		uint8_t type, level;
	} bad[] = {
		{ "no type", 64, 0, IBV_FLUSH_RANGE },
		{ "an unknown type bit", 64, IBV_FLUSH_PERSISTENT | 0x80, IBV_FLUSH_RANGE },
		{ "another level", 64, IBV_FLUSH_PERSISTENT, 7 },
		{ "2^32 octets", (size_t)1 << 32, IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE },
	};
	unsigned int i;
	int rc;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ibv_wr_start(qpx);
		post_flush(40 + i, peer.pm_rkey, peer.pm_addr, bad[i].len,
			   bad[i].type, bad[i].level);
		rc = ibv_wr_complete(qpx);
		if (rc != EINVAL)
			fail("mr-level: a Flush of %s: ibv_wr_complete returned %d (%s), want EINVAL",
			     bad[i].what, rc, strerror(rc));
	}
}

static void device_caps(void)
{
	struct ibv_device_attr_ex a = {};
	uint64_t want = DEV_FLUSH_GLOBAL | DEV_FLUSH_PERSISTENT;

	if (ibv_query_device_ex(id->verbs, NULL, &a))
		fail_errno("ibv_query_device_ex");
	if ((a.device_cap_flags_ex & want) != want)
		fail("device caps 0x%" PRIx64 " lack the Flush types 0x%" PRIx64,
		     a.device_cap_flags_ex, want);
	pass("device-caps");
}

static void read_back(struct ibv_mr *mr, uint32_t len, uint32_t rkey,
		      uint64_t raddr, uint32_t s, const char *what)
{
	memset(mr->addr, 0, len);
	ibv_wr_start(qpx);
	qpx->wr_id = 90;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qpx, rkey, raddr);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)mr->addr, len);
	complete(what);
	expect_wc(90, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, what);
	if (!same(mr->addr, len, s))
		fail("%s: the window does not read back as written", what);
}

static void client(void)
{
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
	};
	struct rdma_cm_event *ev;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_mr *mr;
	uint8_t *buf;
	int rc;

	id = cm_route(ch, opt.timeout, opt.addr, opt.port);
	setup_verbs(id, true);
	device_caps();
	if (posix_memalign((void **)&buf, 4096, 2 * BIG))
		fail("out of memory");
	mr = reg(buf, 2 * BIG, IBV_ACCESS_LOCAL_WRITE, "the client buffer");
	if (rdma_connect(id, &cp))
		fail_errno("rdma_connect");
	ev = cm_get_event(ch, opt.timeout, RDMA_CM_EVENT_ESTABLISHED,
			  "ESTABLISHED");
	if (ev->param.conn.private_data_len < sizeof(peer))
		fail("hello of %u octets", ev->param.conn.private_data_len);
	memcpy(&peer, ev->param.conn.private_data, sizeof(peer));
	rdma_ack_cm_event(ev);

	fill(buf, BIG, 1);
	ibv_wr_start(qpx);
	post_write(1, mr, 0, BIG, peer.pm_rkey, peer.pm_addr);
	post_flush(2, peer.pm_rkey, peer.pm_addr, BIG, IBV_FLUSH_PERSISTENT,
		   IBV_FLUSH_RANGE);
	complete("persistent");
	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "persistent: Write");
	expect_wc(2, IBV_WC_SUCCESS, IBV_WC_FLUSH, "persistent: Flush");
	pass("persistent");

	fill(buf + BIG, SMALL, 2);
	ibv_wr_start(qpx);
	post_write(3, mr, BIG, SMALL, peer.ram_rkey, peer.ram_addr);
	post_flush(4, peer.ram_rkey, peer.ram_addr, SMALL, IBV_FLUSH_GLOBAL,
		   IBV_FLUSH_RANGE);
	complete("global");
	expect_wc(3, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "global: Write");
	expect_wc(4, IBV_WC_SUCCESS, IBV_WC_FLUSH, "global: Flush");
	pass("global");

	read_back(mr, BIG, peer.pm_rkey, peer.pm_addr, 1, "read-back pm");
	read_back(mr, SMALL, peer.ram_rkey, peer.ram_addr, 2, "read-back ram");
	pass("read-back");

	ibv_wr_start(qpx);
	post_flush(5, peer.pm_rkey, peer.pm_addr, 0, IBV_FLUSH_PERSISTENT,
		   IBV_FLUSH_MR);
	rc = ibv_wr_complete(qpx);
	if (!strcmp(opt.mr_level, "ok")) {
		if (rc)
			fail("mr-level: ibv_wr_complete: %s", strerror(rc));
		expect_wc(5, IBV_WC_SUCCESS, IBV_WC_FLUSH, "mr-level");
	} else {
		if (rc != EOPNOTSUPP)
			fail("DEC-18: mr-level: ibv_wr_complete returned %d (%s), want EOPNOTSUPP",
			     rc, strerror(rc));
		refused_at_post();
	}
	pass("mr-level");

	ibv_wr_start(qpx);
	post_flush(6, peer.ram_rkey, peer.ram_addr, SMALL,
		   IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE);
	complete("not-durable");
	expect_wc(6, IBV_WC_REM_ACCESS_ERR, IBV_WC_FLUSH,
		  "SIW2-DEC-2: not-durable: a persistent Flush of memory not registered persistent");
	if (!strcmp(opt.after_error, "rts")) {
		ibv_wr_start(qpx);
		post_flush(7, peer.ram_rkey, peer.ram_addr, SMALL,
			   IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE);
		complete("not-durable: the next Flush");
		expect_wc(7, IBV_WC_SUCCESS, IBV_WC_FLUSH,
			  "SIW2-DEC-2: not-durable: a global Flush on the same QP");
	} else {
		if (ibv_query_qp(id->qp, &qa, IBV_QP_STATE, &qia))
			fail_errno("ibv_query_qp");
		if (qa.qp_state != IBV_QPS_ERR)
			fail("not-durable: QP state %d, want IBV_QPS_ERR",
			     qa.qp_state);
	}
	pass("not-durable");

	rdma_disconnect(id);
	cm_wait_disconnected(ch, opt.timeout);
	rdma_destroy_qp(id);
	ibv_dereg_mr(mr);
	free(buf);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
	printf("FLUSHV OK side=client steps=%d\n", steps);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dax", required_argument, NULL, 1 },
		{ "mr-level", required_argument, NULL, 2 },
		{ "after-error", required_argument, NULL, 3 },
		{ }
	};
	int c;

	while ((c = getopt_long(argc, argv, "sa:p:t:", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.server = true; break;
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 't': opt.timeout = atoi(optarg); break;
		case 1: opt.dax = optarg; break;
		case 2: opt.mr_level = optarg; break;
		case 3: opt.after_error = optarg; break;
		default:
			fprintf(stderr, "usage: see the top of verbs_flush.c\n");
			return 2;
		}
	}
	if (!opt.addr || (opt.server && !opt.dax)) {
		fprintf(stderr, "verbs_flush: -a ADDR is required, and --dax DEV with -s\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	side = opt.server ? "server" : "client";
	ch = rdma_create_event_channel();
	if (!ch)
		fail_errno("rdma_create_event_channel");
	if (opt.server)
		serve();
	else
		client();
	rdma_destroy_event_channel(ch);
	return 0;
}
