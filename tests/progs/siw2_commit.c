// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_commit: RDMA Commit (draft-talpey-rdma-commit) from user space
 * through siw2dv_wr_commit_ex(), against a server whose window is durable
 * memory (a device-DAX mapping, --pmem) or ordinary memory. Commits of
 * the pm window need durability when the server says it is durable
 * (SIW2DV_COMMIT_PERSISTENT), global visibility otherwise
 * (SIW2DV_COMMIT_GLOBAL: a "not durable" answer is then a success,
 * SIW2-DEC-2).
 *
 *   siw2_commit -s -a ADDR [-p PORT] [-n CONNS] [--pmem DEV [--swap-pages]]
 *               [-t SECS]
 *   siw2_commit -a ADDR [-p PORT] [-t SECS]
 *               [--no-commit | --bad-bounds | --bad-stag | --status-peer]
 *
 * Server: two windows of WIN octets, "pm" (DEV mapped shared and
 * registered with SIW2DV_ACCESS_FLUSH_PERSISTENT; without --pmem ordinary
 * memory with SIW2DV_ACCESS_FLUSH_GLOBAL) and "ram" (ordinary memory,
 * FLUSH_GLOBAL, after a durable registration of it was refused with
 * EMEDIUMTYPE: "COMMIT PASS ram-not-durable"); both with REMOTE_WRITE and
 * REMOTE_READ, named to the client in the accept's private data. After
 * each connection it checks what the client wrote and prints
 * "COMMIT WIN conn=N pm=ok|bad ram=ok|bad".
 * Before listening it prints "COMMIT MAP pid=PID pm=0xADDR len=WIN
 * swapped=0|1", for an observer to read the window's physical pages in
 * /proc/PID/pagemap. --swap-pages (with --pmem): the window's first two
 * pages are the device's pages 1 and 0, mapped over the first mapping
 * with MAP_FIXED, so that the window is virtually contiguous but not
 * physically (case 68 checks that a Commit across them writes back the
 * lines of the right pages); the window's pages are faulted in first.
 *
 * Client steps (each "COMMIT PASS <step>"):
 *   write-commit  a 64 KiB Write to pm and a Commit of it, posted in one
 *                 ibv_wr_complete(): the Write completes first, then the
 *                 Commit as SIW2DV_WC_COMMIT with success (COMMIT-ORD-1)
 *   ranges        Commits of [100, 300) and [4088, 4104) (a page
 *                 boundary) and of length 0 (DEC-12): success; each range
 *                 is printed as "COMMIT RANGE to=.. len=.." for the trace
 *   ram           a Commit of ram that needs durability completes with
 *                 IBV_WC_REM_ACCESS_ERR and vendor_err 4 (not durable,
 *                 SIW2-DEC-2), then a Write and a global Commit of it
 *                 on the same QP succeed (global visibility only,
 *                 COMMIT-DUR-4)
 *   read-back     RDMA Reads of both windows return what was written
 * --no-commit (the connection did not negotiate Commit): the Commit, and
 * one with a log update, fail at ibv_wr_complete() with EOPNOTSUPP and
 * the QP works on (a Write and a
 * Read of it back). --bad-bounds / --bad-stag (last): a Commit past the
 * end of pm / with a wrong STag completes in error and the QP fails
 * (the responder sent a Terminate, COMMIT-ACC-1, DEC-10). --status-peer
 * (against "ext_peer.py serve commit-status", which answers the first
 * Commit with Status 1): that Commit completes with IBV_WC_REM_OP_ERR and
 * vendor_err 1, and a second one succeeds on the same QP (DEC-13).
 *   log           a 512-octet Write to pm and a Commit of it with a log
 *                 update (siw2dv_wr_commit_log(), SIW2-DEC-1) naming the
 *                 word at LOG_OFF, posted together: both succeed and the
 *                 word reads back as the value ("COMMIT LOG ..."); a log
 *                 word off 8-byte alignment fails ibv_wr_complete() with
 *                 EINVAL and the QP works on
 *   log-refused   (a durable pm only) a Commit of a ram range with a log
 *                 word in pm completes with IBV_WC_REM_OP_ERR and
 *                 vendor_err 5, and the word still holds the log step's
 *                 value: a durable word never outlives a range that is
 *                 not (SIW2-DEC-1)
 * The server seeds the pm word at LOG_OFF with LOG_SEED for each
 * connection and shows it afterwards as "log=0x..." in its WIN line.
 * Then "COMMIT OK side=client steps=N".
 *
 * Needs the siw2 provider this program links, with rings:
 * RDMAV_DRIVERS=<tree>/userspace-provider/build/libsiw2.
 */
#include <endian.h>
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
#include "siw2dv.h"

#define WIN		(1u << 20)	/* each window */
#define BIG		65536		/* the first Write and Commit */
#define SMALL		4096		/* the ram Write */
#define REC_OFF		0x80000		/* the log step's record in pm */
#define REC_LEN		512
#define LOG_OFF		0xFF000		/* the log word in pm */
#define LOG_SEED	0x5EED5EED5EED5EEDULL	/* its value at each connection */

/*
 * The server's windows, in the accept's private data; it begins like
 * siw2_ext's (address, STag), which tests/progs/ext_peer.py reads.
 */
struct hello {
	uint64_t pm_addr;
	uint32_t pm_rkey;
	uint32_t ram_rkey;
	uint64_t ram_addr;
	uint32_t durable;
	uint32_t pad;
};

static struct {
	bool server;
	const char *addr;
	const char *port;
	const char *pmem;
	int conns;
	int timeout;
	bool no_commit;
	bool bad_bounds;
	bool bad_stag;
	bool status_peer;
	bool swap_pages;
} opt = { .port = "7800", .conns = 1, .timeout = 30 };

static const char *side = "?";
static struct rdma_event_channel *cm_chan;
static struct rdma_cm_id *listen_id, *id;
static struct ibv_pd *pd;
static struct ibv_cq_ex *cqx;
static struct ibv_cq *pcq;	/* a Linux siw server: plain verbs */
static struct ibv_qp *qp;
static struct ibv_qp_ex *qpx;
static struct hello peer;
static int steps;

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("COMMIT FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static void pass(const char *step)
{
	printf("COMMIT PASS %s\n", step);
	fflush(stdout);
	steps++;
}

/* The pattern octet at window offset @off for seed @s. */
static uint8_t pat(uint32_t off, uint32_t s)
{
	return (uint8_t)(off * 131u + s * 29u + (off >> 8));
}

static void setup(struct rdma_cm_id *cid)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 32, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ,
	};

	pd = ibv_alloc_pd(cid->verbs);
	if (!pd)
		fail_errno("ibv_alloc_pd");
	if (!siw2dv_is_siw2_context(cid->verbs)) {
		/* Only a server may run on another device (Linux siw). */
		struct ibv_qp_init_attr pa = {
			.qp_type = IBV_QPT_RC, .cap = qa.cap,
		};

		if (!opt.server)
			fail("not a siw2 device of the linked provider (RDMAV_DRIVERS?)");
		pcq = ibv_create_cq(cid->verbs, 64, NULL, NULL, 0);
		if (!pcq)
			fail_errno("ibv_create_cq");
		pa.send_cq = pcq;
		pa.recv_cq = pcq;
		if (rdma_create_qp(cid, pd, &pa))
			fail_errno("rdma_create_qp");
		qp = cid->qp;
		return;
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
}

static void teardown(void)
{
	rdma_destroy_qp(id);
	if (cqx)
		ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	if (pcq)
		ibv_destroy_cq(pcq);
	cqx = NULL;
	pcq = NULL;
	ibv_dealloc_pd(pd);
	rdma_destroy_id(id);
}

struct wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	uint32_t opcode;
	uint32_t vendor_err;
};

static void get_wc(struct wc *w, const char *what)
{
	struct ibv_poll_cq_attr pa = {};
	double deadline = now_s() + opt.timeout;
	int rc;

	while ((rc = ibv_start_poll(cqx, &pa)) == ENOENT)
		if (now_s() > deadline)
			fail("timeout (%d s) waiting for %s", opt.timeout,
			     what);
	if (rc)
		fail("ibv_start_poll: %s", strerror(rc));
	w->wr_id = cqx->wr_id;
	w->status = cqx->status;
	w->opcode = ibv_wc_read_opcode(cqx);
	w->vendor_err = ibv_wc_read_vendor_err(cqx);
	ibv_end_poll(cqx);
}

/* The next completion must be @wr_id with @status and @opcode. */
static void expect_wc(uint64_t wr_id, enum ibv_wc_status status,
		      uint32_t opcode, const char *what)
{
	struct wc w;

	get_wc(&w, what);
	if (w.wr_id != wr_id || w.status != status ||
	    (status == IBV_WC_SUCCESS && w.opcode != opcode))
		fail("%s: completion wr_id %" PRIu64 " status %s (%d) opcode %u vendor_err %u, expected wr_id %" PRIu64 " status %s opcode %u",
		     what, w.wr_id, ibv_wc_status_str(w.status), w.status,
		     w.opcode, w.vendor_err, wr_id, ibv_wc_status_str(status),
		     opcode);
}

/* ---- server ---- */

/* A window: @dev mapped (device DAX) or ordinary memory. */
static uint8_t *win_alloc(const char *dev)
{
	void *p;
	int fd;

	if (!dev) {
		if (posix_memalign(&p, 4096, WIN))
			fail("out of memory");
		return p;
	}
	fd = open(dev, O_RDWR);
	if (fd < 0)
		fail_errno(dev);
	p = mmap(NULL, WIN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		fail_errno("mmap of the device");
	if (opt.swap_pages) {
		/* Window page 0 is the device's page 1, and page 1 its page 0. */
		if (mmap(p, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
			 fd, 4096) != p ||
		    mmap((uint8_t *)p + 4096, 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd, 0) != (uint8_t *)p + 4096)
			fail_errno("MAP_FIXED mmap of device pages 1 and 0 (a 4 KiB aligned namespace?)");
		/* Present, for /proc/PID/pagemap. */
		memset(p, 0, WIN);
	}
	close(fd);
	return p;
}

static bool win_ok(const uint8_t *w, uint32_t len, uint32_t s)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (w[i] != pat(i, s))
			return false;
	return true;
}

static void serve_one(int n, uint8_t *pm, uint8_t *ram)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		 IBV_ACCESS_REMOTE_READ;
	struct hello h = { .durable = !!opt.pmem };
	int flush_g = SIW2DV_ACCESS_FLUSH_GLOBAL;
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
		.private_data = &h, .private_data_len = sizeof(h),
	};
	struct ibv_mr *pm_mr, *ram_mr;
	struct rdma_cm_event *ev;

	ev = cm_get_event(cm_chan, 3600, RDMA_CM_EVENT_CONNECT_REQUEST,
			  "CONNECT_REQUEST");
	id = ev->id;
	rdma_ack_cm_event(ev);
	setup(id);
	memset(pm, 0, WIN);
	memset(ram, 0, WIN);
	*(volatile uint64_t *)(pm + LOG_OFF) = LOG_SEED;
	if (pcq) {
		/* Linux siw has no flush access; no Commit can reach it. */
		flush_g = 0;
	} else {
		/* Ordinary memory cannot be registered durable (COMMIT-ACC-1). */
		ram_mr = ibv_reg_mr(pd, ram, WIN,
				    rw | SIW2DV_ACCESS_FLUSH_PERSISTENT);
		if (ram_mr || errno != EMEDIUMTYPE)
			fail("durable registration of ordinary memory: %s, want EMEDIUMTYPE",
			     ram_mr ? "accepted" : strerror(errno));
		pass("ram-not-durable");
	}
	ram_mr = ibv_reg_mr(pd, ram, WIN, rw | flush_g);
	pm_mr = ibv_reg_mr(pd, pm, WIN, rw | (opt.pmem ?
			   SIW2DV_ACCESS_FLUSH_PERSISTENT : flush_g));
	if (!ram_mr || !pm_mr)
		fail_errno("ibv_reg_mr");
	printf("COMMIT MR pm durable=%u rkey=0x%x\n", h.durable, pm_mr->rkey);
	h.pm_addr = (uintptr_t)pm;
	h.pm_rkey = pm_mr->rkey;
	h.ram_addr = (uintptr_t)ram;
	h.ram_rkey = ram_mr->rkey;
	if (rdma_accept(id, &cp))
		fail_errno("rdma_accept");
	rdma_ack_cm_event(cm_get_event(cm_chan, opt.timeout,
				       RDMA_CM_EVENT_ESTABLISHED,
				       "ESTABLISHED"));
	cm_wait_disconnected(cm_chan, 3600);
	printf("COMMIT WIN conn=%d pm=%s ram=%s log=0x%016" PRIx64 "\n", n,
	       win_ok(pm, BIG, 1) ? "ok" : "bad",
	       win_ok(ram, SMALL, 2) ? "ok" : "bad",
	       *(volatile uint64_t *)(pm + LOG_OFF));
	ibv_dereg_mr(pm_mr);
	ibv_dereg_mr(ram_mr);
	teardown();
}

/* ---- client ---- */

static void post_write(uint64_t wr_id, struct ibv_mr *mr, uint32_t len,
		       uint32_t rkey, uint64_t raddr)
{
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, rkey, raddr);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)mr->addr, len);
}

/* What a Commit of the pm window needs: what the server says it has. */
static unsigned int pm_type(void)
{
	return peer.durable ? SIW2DV_COMMIT_PERSISTENT : SIW2DV_COMMIT_GLOBAL;
}

static void post_commit(uint64_t wr_id, uint32_t rkey, uint64_t raddr,
			uint32_t len, unsigned int type)
{
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	siw2dv_wr_commit_ex(qpx, rkey, raddr, len, type, NULL);
}

static int commit_one(uint64_t wr_id, uint32_t rkey, uint64_t raddr,
		      uint32_t len, unsigned int type)
{
	ibv_wr_start(qpx);
	post_commit(wr_id, rkey, raddr, len, type);
	return ibv_wr_complete(qpx);
}

/* The next completion: a failed Commit @wr_id, @status, @vendor_err. */
static void expect_commit_err(uint64_t wr_id, enum ibv_wc_status status,
			      uint32_t vendor_err, const char *what)
{
	struct wc w;

	get_wc(&w, what);
	if (w.wr_id != wr_id || w.status != status ||
	    w.vendor_err != vendor_err)
		fail("%s: completion wr_id %" PRIu64 " status %s vendor_err %u, want wr_id %" PRIu64 " %s and vendor_err %u",
		     what, w.wr_id, ibv_wc_status_str(w.status), w.vendor_err,
		     wr_id, ibv_wc_status_str(status), vendor_err);
}

static void read_back(struct ibv_mr *mr, uint32_t len, uint32_t rkey,
		      uint64_t raddr, uint32_t s, const char *what)
{
	uint32_t i;
	int rc;

	memset(mr->addr, 0, len);
	ibv_wr_start(qpx);
	qpx->wr_id = 90;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qpx, rkey, raddr);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)mr->addr, len);
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("%s: Read post: %s", what, strerror(rc));
	expect_wc(90, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, what);
	for (i = 0; i < len; i++)
		if (((uint8_t *)mr->addr)[i] != pat(i, s))
			fail("%s: octet %u is 0x%02x, want 0x%02x", what, i,
			     ((uint8_t *)mr->addr)[i], pat(i, s));
}

static void fill(struct ibv_mr *mr, uint32_t len, uint32_t s)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)mr->addr)[i] = pat(i, s);
}

static void step_write_commit(struct ibv_mr *mr)
{
	int rc;

	fill(mr, BIG, 1);
	ibv_wr_start(qpx);
	post_write(1, mr, BIG, peer.pm_rkey, peer.pm_addr);
	post_commit(2, peer.pm_rkey, peer.pm_addr, BIG, pm_type());
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("write-commit: ibv_wr_complete: %s", strerror(rc));
	expect_wc(1, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "write-commit Write");
	expect_wc(2, IBV_WC_SUCCESS, SIW2DV_WC_COMMIT, "write-commit Commit");
	printf("COMMIT RANGE to=0 len=%u\n", BIG);
	pass("write-commit");
}

static void step_ranges(void)
{
	static const uint32_t r[][2] = { { 100, 200 }, { 4088, 16 }, { 0, 0 } };
	static const unsigned int bad_type[] = {
		0, 1u << 2, SIW2DV_COMMIT_PERSISTENT | 1u << 7,
	};
	uint32_t i;
	int rc;

	/* Refused at post time, nothing sent: no type, an unknown type bit. */
	for (i = 0; i < sizeof(bad_type) / sizeof(bad_type[0]); i++) {
		rc = commit_one(20 + i, peer.pm_rkey, peer.pm_addr, 64,
				bad_type[i]);
		if (rc != EINVAL)
			fail("ranges: a Commit of type 0x%x: ibv_wr_complete returned %d (%s), want EINVAL",
			     bad_type[i], rc, strerror(rc));
	}
	for (i = 0; i < 3; i++) {
		if (i == 0 && peer.durable) {
			/* The version 3 builder: a persistent Commit. */
			ibv_wr_start(qpx);
			qpx->wr_id = 10;
			qpx->wr_flags = IBV_SEND_SIGNALED;
			siw2dv_wr_commit(qpx, peer.pm_rkey,
					 peer.pm_addr + r[i][0], r[i][1]);
			rc = ibv_wr_complete(qpx);
		} else {
			rc = commit_one(10 + i, peer.pm_rkey,
					peer.pm_addr + r[i][0], r[i][1],
					pm_type());
		}
		if (rc)
			fail("ranges: ibv_wr_complete: %s", strerror(rc));
		expect_wc(10 + i, IBV_WC_SUCCESS, SIW2DV_WC_COMMIT, "ranges");
		printf("COMMIT RANGE to=%u len=%u\n", r[i][0], r[i][1]);
	}
	pass("ranges");
}

static void step_ram(struct ibv_mr *mr)
{
	int rc;

	rc = commit_one(22, peer.ram_rkey, peer.ram_addr, SMALL,
			SIW2DV_COMMIT_PERSISTENT);
	if (rc)
		fail("ram: ibv_wr_complete: %s", strerror(rc));
	expect_commit_err(22, IBV_WC_REM_ACCESS_ERR,
			  SIW2DV_COMMIT_STATUS_NOT_DURABLE,
			  "SIW2-DEC-2: a persistent Commit of memory not durable");
	fill(mr, SMALL, 2);
	ibv_wr_start(qpx);
	post_write(20, mr, SMALL, peer.ram_rkey, peer.ram_addr);
	post_commit(21, peer.ram_rkey, peer.ram_addr, SMALL,
		    SIW2DV_COMMIT_GLOBAL);
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("ram: ibv_wr_complete: %s", strerror(rc));
	expect_wc(20, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "ram Write");
	expect_wc(21, IBV_WC_SUCCESS, SIW2DV_WC_COMMIT,
		  "SIW2-DEC-2: a global Commit of memory not durable, same QP");
	pass("ram");
}

/* Post a Commit of [@off, +@len) of @rkey's window with a pm log word. */
static void post_commit_log(uint64_t wr_id, uint32_t rkey, uint64_t raddr,
			    uint32_t len, uint32_t log_off, uint64_t value)
{
	const struct siw2dv_commit_log log = {
		.rkey = peer.pm_rkey, .addr = peer.pm_addr + log_off,
		.value = value,
	};

	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	siw2dv_wr_commit_ex(qpx, rkey, raddr, len, pm_type(), &log);
}

/* A Commit of pm with a log update at pm offset @log_off, alone. */
static int commit_log_one(uint64_t wr_id, uint32_t off, uint32_t len,
			  uint32_t log_off, uint64_t value)
{
	ibv_wr_start(qpx);
	post_commit_log(wr_id, peer.pm_rkey, peer.pm_addr + off, len, log_off,
			value);
	return ibv_wr_complete(qpx);
}

/* The pm log word, read back. */
static uint64_t read_log_word(struct ibv_mr *mr, uint64_t wr_id,
			      const char *what)
{
	uint64_t got;
	int rc;

	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qpx, peer.pm_rkey, peer.pm_addr + LOG_OFF);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)mr->addr, sizeof(got));
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("%s: Read post: %s", what, strerror(rc));
	expect_wc(wr_id, IBV_WC_SUCCESS, IBV_WC_RDMA_READ, what);
	memcpy(&got, mr->addr, sizeof(got));
	return got;
}

/*
 * A record and its Commit with a log update (SIW2-DEC-1): the word holds
 * the value once the Commit completed; a misaligned word is refused.
 */
static void step_log(struct ibv_mr *mr)
{
	const uint64_t value = REC_OFF + REC_LEN;	/* the log's new end */
	uint64_t got;
	int rc;

	rc = commit_log_one(61, REC_OFF, REC_LEN, LOG_OFF + 4, value);
	if (rc != EINVAL)
		fail("log: a misaligned log word: ibv_wr_complete returned %d (%s), want EINVAL",
		     rc, strerror(rc));
	fill(mr, REC_LEN, 3);
	ibv_wr_start(qpx);
	post_write(60, mr, REC_LEN, peer.pm_rkey, peer.pm_addr + REC_OFF);
	post_commit_log(62, peer.pm_rkey, peer.pm_addr + REC_OFF, REC_LEN,
			LOG_OFF, value);
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("log: ibv_wr_complete: %s", strerror(rc));
	expect_wc(60, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "log Write");
	expect_wc(62, IBV_WC_SUCCESS, SIW2DV_WC_COMMIT, "log Commit");
	got = read_log_word(mr, 63, "log Read");
	if (got != value)
		fail("log: the log word holds 0x%016" PRIx64 ", want 0x%016" PRIx64,
		     got, value);
	printf("COMMIT RANGE to=%u len=%u\n", REC_OFF, REC_LEN);
	printf("COMMIT LOG to=%u value=0x%016" PRIx64 "\n", LOG_OFF, value);
	pass("log");
}

/*
 * A log word in durable memory after a range that is not durable is
 * refused, and left as it was (SIW2-DEC-1); the QP works on.
 */
static void step_log_refused(struct ibv_mr *mr)
{
	const uint64_t before = REC_OFF + REC_LEN;	/* step_log's */
	uint64_t got;
	int rc;

	ibv_wr_start(qpx);
	post_commit_log(64, peer.ram_rkey, peer.ram_addr, SMALL, LOG_OFF,
			0xbadbadbadbadbadULL);
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("log-refused: ibv_wr_complete: %s", strerror(rc));
	expect_commit_err(64, IBV_WC_REM_OP_ERR,
			  SIW2DV_COMMIT_STATUS_LOG_REFUSED,
			  "SIW2-DEC-1: a durable log word after a range not durable");
	got = read_log_word(mr, 65, "log-refused Read");
	if (got != before)
		fail("SIW2-DEC-1: log-refused: the log word holds 0x%016" PRIx64 ", want 0x%016" PRIx64 " (untouched)",
		     got, before);
	pass("log-refused");
}

/* Without Commit on the connection nothing is sent and the QP works. */
static void step_no_commit(struct ibv_mr *mr)
{
	int rc = commit_one(30, peer.pm_rkey, peer.pm_addr, 64, pm_type());

	if (rc != EOPNOTSUPP)
		fail("no-commit: ibv_wr_complete returned %d (%s), want EOPNOTSUPP",
		     rc, strerror(rc));
	rc = commit_log_one(32, 0, 64, LOG_OFF, 1);
	if (rc != EOPNOTSUPP)
		fail("no-commit: with a log update, ibv_wr_complete returned %d (%s), want EOPNOTSUPP",
		     rc, strerror(rc));
	fill(mr, BIG, 1);
	ibv_wr_start(qpx);
	post_write(31, mr, BIG, peer.pm_rkey, peer.pm_addr);
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("no-commit: Write post: %s", strerror(rc));
	expect_wc(31, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, "no-commit Write");
	read_back(mr, BIG, peer.pm_rkey, peer.pm_addr, 1, "no-commit Read");
	pass("no-commit");
}

/* A Commit the responder must refuse: the QP fails. */
static void step_bad(bool bounds)
{
	uint32_t rkey = bounds ? peer.pm_rkey : peer.pm_rkey ^ 0x80;
	uint64_t addr = peer.pm_addr + (bounds ? WIN - 8 : 0);
	struct wc w;
	int rc;

	rc = commit_one(40, rkey, addr, 16, pm_type());
	if (rc)
		fail("bad: ibv_wr_complete: %s", strerror(rc));
	get_wc(&w, "bad Commit");
	if (w.wr_id != 40 || w.status == IBV_WC_SUCCESS)
		fail("bad Commit completed with %s (wr_id %" PRIu64 ")",
		     ibv_wc_status_str(w.status), w.wr_id);
	printf("COMMIT BAD status=%s\n", ibv_wc_status_str(w.status));
	pass(bounds ? "bad-bounds" : "bad-stag");
}

/* A peer's non-zero Status fails the work request, not the QP. */
static void step_status(void)
{
	struct wc w;
	int rc;

	rc = commit_one(50, peer.pm_rkey, peer.pm_addr, 64, pm_type());
	if (rc)
		fail("status: ibv_wr_complete: %s", strerror(rc));
	get_wc(&w, "status: the first Commit");
	if (w.wr_id != 50 || w.status != IBV_WC_REM_OP_ERR || w.vendor_err != 1)
		fail("status: first Commit completed with %s vendor_err %u, want REM_OP_ERR and 1 (DEC-13)",
		     ibv_wc_status_str(w.status), w.vendor_err);
	rc = commit_one(51, peer.pm_rkey, peer.pm_addr, 64, pm_type());
	if (rc)
		fail("status: second post: %s (the QP left RTS?)", strerror(rc));
	expect_wc(51, IBV_WC_SUCCESS, SIW2DV_WC_COMMIT, "status: second Commit");
	pass("status-peer");
}

static void client(void)
{
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
	};
	struct rdma_cm_event *ev;
	struct ibv_mr *mr;
	void *buf;

	id = cm_route(cm_chan, opt.timeout, opt.addr, opt.port);
	setup(id);
	if (posix_memalign(&buf, 4096, BIG))
		fail("out of memory");
	mr = ibv_reg_mr(pd, buf, BIG, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		fail_errno("ibv_reg_mr");
	if (rdma_connect(id, &cp))
		fail_errno("rdma_connect");
	ev = cm_get_event(cm_chan, opt.timeout, RDMA_CM_EVENT_ESTABLISHED,
			  "ESTABLISHED");
	if (ev->param.conn.private_data_len < sizeof(peer))
		fail("hello of %u octets", ev->param.conn.private_data_len);
	memcpy(&peer, ev->param.conn.private_data, sizeof(peer));
	rdma_ack_cm_event(ev);
	printf("COMMIT PEER durable=%u\n", peer.durable);

	if (opt.no_commit) {
		step_no_commit(mr);
	} else if (opt.status_peer) {
		step_status();
	} else {
		step_write_commit(mr);
		step_ranges();
		step_ram(mr);
		step_log(mr);
		if (peer.durable)
			step_log_refused(mr);
		read_back(mr, BIG, peer.pm_rkey, peer.pm_addr, 1, "pm Read");
		read_back(mr, SMALL, peer.ram_rkey, peer.ram_addr, 2,
			  "ram Read");
		pass("read-back");
		if (opt.bad_bounds || opt.bad_stag)
			step_bad(opt.bad_bounds);
	}
	rdma_disconnect(id);
	cm_wait_disconnected(cm_chan, opt.timeout);
	ibv_dereg_mr(mr);
	free(buf);
	teardown();
	printf("COMMIT OK side=client steps=%d\n", steps);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "pmem", required_argument, NULL, 1 },
		{ "no-commit", no_argument, NULL, 2 },
		{ "bad-bounds", no_argument, NULL, 3 },
		{ "bad-stag", no_argument, NULL, 4 },
		{ "status-peer", no_argument, NULL, 5 },
		{ "swap-pages", no_argument, NULL, 6 },
		{ }
	};
	uint8_t *pm, *ram;
	int c, n;

	while ((c = getopt_long(argc, argv, "sa:p:n:t:", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.server = true; break;
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 'n': opt.conns = atoi(optarg); break;
		case 't': opt.timeout = atoi(optarg); break;
		case 1: opt.pmem = optarg; break;
		case 2: opt.no_commit = true; break;
		case 3: opt.bad_bounds = true; break;
		case 4: opt.bad_stag = true; break;
		case 5: opt.status_peer = true; break;
		case 6: opt.swap_pages = true; break;
		default:
			fprintf(stderr, "usage: see the top of siw2_commit.c\n");
			return 2;
		}
	}
	if (!opt.addr) {
		fprintf(stderr, "siw2_commit: -a ADDR is required\n");
		return 2;
	}
	if (opt.swap_pages && !opt.pmem) {
		fprintf(stderr, "siw2_commit: --swap-pages needs --pmem\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	side = opt.server ? "server" : "client";
	cm_chan = rdma_create_event_channel();
	if (!cm_chan)
		fail_errno("rdma_create_event_channel");
	if (opt.server) {
		pm = win_alloc(opt.pmem);
		ram = win_alloc(NULL);
		printf("COMMIT MAP pid=%d pm=0x%" PRIxPTR " len=%u swapped=%d\n",
		       (int)getpid(), (uintptr_t)pm, WIN, opt.swap_pages);
		listen_id = cm_listen(cm_chan, opt.addr, opt.port);
		for (n = 0; n < opt.conns; n++)
			serve_one(n, pm, ram);
		rdma_destroy_id(listen_id);
		printf("COMMIT OK side=server conns=%d\n", n);
	} else {
		client();
	}
	rdma_destroy_event_channel(cm_chan);
	return 0;
}
