// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_fault: a checked rdma_cm load that reports how it ended, for the
 * fault scenarios (tests/vm/cases/70-faults.sh, 71-failslab.sh).
 *
 *   siw2_fault -s ADDR [options]    server: accept, echo the client's pings
 *   siw2_fault -c ADDR [options]    client: drive the load
 *
 * The load, per connection: the client keeps up to -d iterations in
 * flight, each an RDMA Write of -S bytes of pattern into a slot of the
 * server's MR and an RDMA Read of that slot back into a sink slot, whose
 * every byte it checks; beside that one ping-pong Send at a time (the
 * server checks it, reposts its receive and echoes a Send the client
 * checks).  Both sides keep RQ_DEPTH receives posted, so a fault always
 * finds receives to flush.  A normal end: the client sends BYE, waits for
 * every completion and disconnects; the server, having seen BYE, gets
 * DISCONNECTED and its receives flushed.
 *
 * A fault is an error completion, a DISCONNECTED the program did not
 * cause (or, at the server, one before BYE), an affiliated async event, or
 * (with --stall-ok) no progress for -t seconds.  The program then posts
 * nothing more and polls until every work request it posted has
 * completed (flushed) or -t seconds pass, disconnects, destroys its
 * objects (each destroy must succeed) and reports.  DEVICE_REMOVAL (the
 * device went away) skips the polling: the program acks it and destroys
 * its objects, as rdma_cm asks.
 *
 * Output, line-buffered: LISTENING (server), CONNECTED, RUNNING (client,
 * after the first checked iterations), progress lines, ASYNC <event>,
 * CM <event> status=<n>, and one line
 *   END side=S result=ok|fault|removed first=<status>/<op> wc_ok=N
 *       flushed=N wc_err=N send=DONE/POSTED recv=DONE/POSTED
 *       cm=<event>:<status> async=<events> iters=N verified=N
 *       drain_ms=N time=T
 * Exit: 0 ok, 3 fault (everything flushed and destroyed), 4 removed,
 * 1 a check failed (bad data, a completion never came, a destroy failed),
 * 5 setup failed (--tolerate-setup), 2 usage.
 *
 * Extra modes (client): --cq-overflow (a send CQ smaller than the Writes
 * posted, not polled: IB_EVENT_CQ_ERR, exactly the CQ's depth of
 * completions kept), --memlock (register 64 KiB MRs until RLIMIT_MEMLOCK
 * refuses, then the load), --fill-limits (during the load, create CQs, MRs
 * and QPs until the device refuses), --failnth (repeat the connection
 * setup with the Nth kernel allocation of this thread failed through
 * /proc/thread-self/fail-nth, N = 1, 2, ... until one setup needs fewer).
 * "siw2_fault -h" lists the options.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define RQ_DEPTH	4
#define MAX_DEPTH	32
#define MAX_SIZE	(1u << 20)
#define PING_MAGIC	0x53324654u	/* "S2FT" */
#define SEQ_BYE		UINT64_MAX
#define POLL_BATCH	16
#define LIMIT_CAP	4096
#define MEMLOCK_CHUNK	(64u << 10)
#define MEMLOCK_CAP	1024

enum wr_kind { K_WRITE = 1, K_READ, K_SEND, K_RECV, K_OVF };
static const char *const kind_name[] = {
	"?", "WRITE", "READ", "SEND", "RECV", "WRITE"
};

/* What the server tells the client in its accept's private data. */
struct srv_info {
	uint32_t magic;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
};

/* A ping or echo: seq, then pattern. */
struct ping {
	uint32_t magic;
	uint32_t pad;
	uint64_t seq;
};

static struct {
	bool server;
	const char *addr;
	const char *port;
	unsigned int size;
	unsigned int depth;
	uint64_t iters;
	double secs;
	int tmo;
	unsigned int conns;
	unsigned int ready_after;
	bool stall_ok;
	bool tolerate_setup;
	bool cq_overflow;
	bool memlock;
	bool fill_limits;
	bool failnth;
	double limits_hold;
	const char *release_file;
	unsigned int loop;
} opt = {
	.port = "7700",
	.size = 4096,
	.depth = 4,
	.iters = 0,
	.secs = 0,
	.tmo = 10,
	.conns = 1,
	.ready_after = 8,
	.limits_hold = 1,
};

static const char *side;
static double t_start;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						      noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL side=%s: ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap(void)
{
	struct timespec ts = { 0, 200000 };

	nanosleep(&ts, NULL);
}

static const char *ename(int e)
{
	const char *n = e ? strerrorname_np(e) : "0";

	return n ? n : "?";
}

static uint8_t pat(uint64_t seq, uint64_t k)
{
	uint64_t x = (seq + 1) * 0x9e3779b97f4a7c15ull + k * 0x100000001b3ull;

	return (uint8_t)(x >> 29 ^ k);
}

static void fill(uint8_t *p, uint64_t seq, size_t len)
{
	size_t k;

	for (k = 0; k < len; k++)
		p[k] = pat(seq, k);
}

/* Offset of the first wrong byte, or -1. */
static long check(const uint8_t *p, uint64_t seq, size_t len)
{
	size_t k;

	for (k = 0; k < len; k++)
		if (p[k] != pat(seq, k))
			return (long)k;
	return -1;
}

static uint64_t wrid(enum wr_kind k, uint64_t n)
{
	return (uint64_t)k << 56 | (n & ((1ull << 56) - 1));
}

static enum wr_kind wr_kind(uint64_t id)
{
	unsigned int k = id >> 56;

	return k >= K_WRITE && k <= K_OVF ? (enum wr_kind)k : 0;
}

/*
 * A failed post names its first unposted WR. Regression check
 * post-bad-wr-null: siw2's provider used to fail a post whose WRs were all
 * in the ring, with bad_wr NULL, when the wakeup failed during
 * `rdma link delete`; they then completed as flushed.
 */
static void check_bad_wr(int rv, const void *bad)
{
	if (rv && !bad)
		fail("post-bad-wr-null: a post failed (%s) with bad_wr NULL",
		     strerror(rv));
}

/* ------------------------------------------------------------------ */
/* One connection                                                     */

struct conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *id;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_cq *scq;		/* --cq-overflow: the small send CQ */
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
	/* Areas of buf. */
	uint8_t *src, *sink, *tgt, *sbuf, *rbuf;
	struct srv_info peer;
	/* Work requests posted and completed. */
	uint64_t posted_s, done_s, posted_r, done_r;
	uint64_t wc_ok, flushed, wc_err;
	/* The first error completion. */
	int first_status;
	enum wr_kind first_kind;
	/* Client load. */
	uint64_t next_iter, verified, slot_iter[MAX_DEPTH];
	unsigned int inflight;
	bool ping_out, bye_sent, bye_seen;
	uint64_t ping_seq, echoes;
	double last_progress;
	/* How it ended. */
	bool fault, removed, disconnected, we_disconnect, self_flushed;
	bool expect_cq_err;
	char fault_why[96];
	char cm_last[64];
	char async_seen[256];
	double t_fault;
};

static void note_fault(struct conn *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note_fault(struct conn *c, const char *fmt, ...)
{
	va_list ap;

	if (c->fault)
		return;
	c->fault = true;
	c->t_fault = now_s();
	va_start(ap, fmt);
	vsnprintf(c->fault_why, sizeof(c->fault_why), fmt, ap);
	va_end(ap);
	printf("FAULT side=%s %s (%.2f s)\n", side, c->fault_why,
	       now_s() - t_start);
}

static void buf_areas(struct conn *c)
{
	size_t s = opt.size, d = opt.depth;

	c->src = c->buf;
	c->sink = c->src + d * s;
	c->tgt = c->sink + d * s;
	c->sbuf = c->tgt + d * s;
	c->rbuf = c->sbuf + s;
}

static size_t buf_len(void)
{
	size_t s = opt.size, d = opt.depth;

	return (3 * d + 1 + RQ_DEPTH) * s;
}

static int post_recv(struct conn *c, unsigned int i)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->rbuf + (size_t)i * opt.size),
		.length = opt.size,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wrid(K_RECV, i), .sg_list = &sge, .num_sge = 1,
	}, *bad = NULL;
	int rv = ibv_post_recv(c->qp, &wr, &bad);

	check_bad_wr(rv, bad);
	if (!rv)
		c->posted_r++;
	return rv;
}

/* A ping (client) or echo (server) of seq; BYE carries no pattern. */
static int post_ping(struct conn *c, uint64_t seq)
{
	struct ping *p = (struct ping *)c->sbuf;
	uint32_t len = seq == SEQ_BYE ? sizeof(*p) : opt.size;
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->sbuf, .length = len, .lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wrid(K_SEND, seq), .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad = NULL;
	int rv;

	if (len > sizeof(*p))
		fill(c->sbuf + sizeof(*p), seq, len - sizeof(*p));
	p->magic = PING_MAGIC;
	p->pad = 0;
	p->seq = seq;
	rv = ibv_post_send(c->qp, &wr, &bad);
	check_bad_wr(rv, bad);
	if (!rv)
		c->posted_s++;
	return rv;
}

/* Client: iteration n's Write and Read, one slot. */
static int post_iter(struct conn *c, uint64_t n)
{
	unsigned int slot = n % opt.depth;
	size_t off = (size_t)slot * opt.size;
	struct ibv_sge ws = {
		.addr = (uintptr_t)(c->src + off), .length = opt.size,
		.lkey = c->mr->lkey,
	}, rs = {
		.addr = (uintptr_t)(c->sink + off), .length = opt.size,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr rd = {
		.wr_id = wrid(K_READ, n), .sg_list = &rs, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = c->peer.addr + off,
			     .rkey = c->peer.rkey },
	}, wr = {
		.wr_id = wrid(K_WRITE, n), .sg_list = &ws, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = c->peer.addr + off,
			     .rkey = c->peer.rkey },
		.next = &rd,
	}, *bad = NULL;
	int rv;

	fill(c->src + off, n, opt.size);
	memset(c->sink + off, 0, opt.size);
	rv = ibv_post_send(c->qp, &wr, &bad);
	check_bad_wr(rv, bad);
	if (!rv)
		c->posted_s += 2;
	else if (bad == &rd)
		c->posted_s += 1;
	if (!rv) {
		c->slot_iter[slot] = n;
		c->inflight++;
	}
	return rv;
}

/* Names without blanks, for the END line. */
static const char *async_name(enum ibv_event_type e)
{
	static char buf[24];

	switch (e) {
	case IBV_EVENT_CQ_ERR: return "CQ_ERR";
	case IBV_EVENT_QP_FATAL: return "QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "PORT_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
	default:
		snprintf(buf, sizeof(buf), "event%d", e);
		return buf;
	}
}

static const char *wc_name(int st)
{
	static char buf[24];

	switch (st) {
	case IBV_WC_SUCCESS: return "SUCCESS";
	case IBV_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case IBV_WC_LOC_QP_OP_ERR: return "LOC_QP_OP_ERR";
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case IBV_WC_FATAL_ERR: return "FATAL_ERR";
	case IBV_WC_GENERAL_ERR: return "GENERAL_ERR";
	default:
		snprintf(buf, sizeof(buf), "status%d", st);
		return buf;
	}
}

/* Non-blocking: record every async event queued. */
static void read_async(struct conn *c)
{
	struct ibv_async_event ev;

	if (!c->ctx)
		return;
	while (!ibv_get_async_event(c->ctx, &ev)) {
		const char *n = async_name(ev.event_type);

		printf("ASYNC %s (%.2f s)\n", n, now_s() - t_start);
		if (strlen(c->async_seen) + strlen(n) + 2 <
		    sizeof(c->async_seen)) {
			if (c->async_seen[0])
				strcat(c->async_seen, ",");
			strcat(c->async_seen, n);
		}
		switch (ev.event_type) {
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_CQ_ERR:
			if (!c->expect_cq_err)
				note_fault(c, "async %s", n);
			break;
		case IBV_EVENT_DEVICE_FATAL:
			note_fault(c, "async %s", n);
			break;
		default:
			break;
		}
		ibv_ack_async_event(&ev);
	}
}

static int poll_some(struct conn *c, struct ibv_cq *cq);

/* Non-blocking: handle every CM event queued for the connection. */
static void read_cm(struct conn *c)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(c->ch, &ev)) {
		enum rdma_cm_event_type e = ev->event;
		int st = ev->status;

		rdma_ack_cm_event(ev);
		printf("CM %s status=%d (%.2f s)\n", rdma_event_str(e), st,
		       now_s() - t_start);
		snprintf(c->cm_last, sizeof(c->cm_last), "%s:%d",
			 rdma_event_str(e), st);
		switch (e) {
		case RDMA_CM_EVENT_DISCONNECTED:
			/* BYE's receive may be queued behind the close. */
			while (opt.server && !c->bye_seen && c->cq &&
			       poll_some(c, c->cq) > 0)
				;
			c->disconnected = true;
			if (!c->we_disconnect && !(opt.server && c->bye_seen))
				note_fault(c, "DISCONNECTED status %d", st);
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			c->removed = true;
			note_fault(c, "DEVICE_REMOVAL");
			break;
		case RDMA_CM_EVENT_TIMEWAIT_EXIT:
			break;
		default:
			note_fault(c, "CM event %s status %d",
				   rdma_event_str(e), st);
		}
	}
}

/* One completion: account, check, and drive the load. */
static void handle_wc(struct conn *c, struct ibv_wc *wc)
{
	enum wr_kind k = wr_kind(wc->wr_id);
	uint64_t n = wc->wr_id & ((1ull << 56) - 1);
	struct ping *p;
	long bad;
	int rv;

	if (!k)
		fail("completion with unknown wr_id 0x%" PRIx64 " status %s",
		     wc->wr_id, ibv_wc_status_str(wc->status));
	if (k == K_RECV) {
		c->done_r++;
	} else {
		c->done_s++;
	}
	if (c->done_s > c->posted_s || c->done_r > c->posted_r)
		fail("more completions than posted: send %" PRIu64 "/%" PRIu64
		     " recv %" PRIu64 "/%" PRIu64, c->done_s, c->posted_s,
		     c->done_r, c->posted_r);
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status == IBV_WC_WR_FLUSH_ERR)
			c->flushed++;
		else
			c->wc_err++;
		/* The receives left when a normal end closes the QP. */
		if (wc->status == IBV_WC_WR_FLUSH_ERR &&
		    (opt.server ? c->bye_seen : c->bye_sent) && !c->fault)
			return;
		if (c->first_status < 0) {
			c->first_status = wc->status;
			c->first_kind = k;
		}
		note_fault(c, "completion %s %s", kind_name[k],
			   wc_name(wc->status));
		return;
	}
	c->wc_ok++;
	c->last_progress = now_s();
	if (c->fault)
		return;		/* completed before the flush: not checked */
	switch (k) {
	case K_READ:
		bad = check(c->sink + (n % opt.depth) * opt.size, n, opt.size);
		if (bad >= 0)
			fail("iteration %" PRIu64 ": Read back byte %ld is 0x%02x, expected 0x%02x",
			     n, bad, c->sink[(n % opt.depth) * opt.size + bad],
			     pat(n, bad));
		if (wc->byte_len != opt.size)
			fail("Read byte_len %u, expected %u", wc->byte_len,
			     opt.size);
		c->verified++;
		c->inflight--;
		break;
	case K_RECV:
		p = (struct ping *)(c->rbuf + n * opt.size);
		if (wc->byte_len < sizeof(*p) || p->magic != PING_MAGIC)
			fail("received a message that is not a ping (%u bytes)",
			     wc->byte_len);
		if (p->seq == SEQ_BYE) {
			c->bye_seen = true;
		} else {
			bad = check((uint8_t *)(p + 1), p->seq,
				    wc->byte_len - sizeof(*p));
			if (bad >= 0 || wc->byte_len != opt.size)
				fail("ping %" PRIu64 ": %u bytes, byte %ld wrong",
				     p->seq, wc->byte_len, bad);
		}
		if (opt.server) {
			int rv = p->seq != SEQ_BYE ? post_ping(c, p->seq) : 0;

			if (rv)
				note_fault(c, "post echo: %s", strerror(rv));
		} else {
			if (p->seq != c->ping_seq)
				fail("echo of ping %" PRIu64 ", expected %" PRIu64,
				     p->seq, c->ping_seq);
			c->ping_out = false;
			c->ping_seq++;
			c->echoes++;
		}
		rv = post_recv(c, n);
		if (rv)
			note_fault(c, "repost receive: %s", strerror(rv));
		break;
	default:
		break;
	}
}

static int poll_some(struct conn *c, struct ibv_cq *cq)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, i;

	n = ibv_poll_cq(cq, POLL_BATCH, wc);
	if (n < 0)
		fail("ibv_poll_cq: %d", n);
	for (i = 0; i < n; i++)
		handle_wc(c, &wc[i]);
	return n;
}

static bool all_done(struct conn *c)
{
	return c->done_s == c->posted_s && c->done_r == c->posted_r;
}

/* ------------------------------------------------------------------ */
/* Setup and teardown (errors returned, not fatal: --failnth)         */

static char setup_step[48];
static int setup_err;

static int setup_fail(const char *step, int err)
{
	snprintf(setup_step, sizeof(setup_step), "%s", step);
	setup_err = err ? err : EIO;
	return -1;
}

static int wait_cm(struct conn *c, enum rdma_cm_event_type want,
		   struct rdma_cm_event **out, const char *step)
{
	struct pollfd pfd = { .fd = c->ch->fd, .events = POLLIN };
	double deadline = now_s() + opt.tmo;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *cid;
	int ms;

	for (;;) {
		while (rdma_get_cm_event(c->ch, &ev)) {
			if (errno != EAGAIN && errno != EINTR)
				return setup_fail(step, errno);
			ms = (int)((deadline - now_s()) * 1000);
			if (ms <= 0)
				return setup_fail(step, ETIMEDOUT);
			poll(&pfd, 1, ms);
		}
		if (ev->id == c->id || ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
			break;
		/*
		 * The server's channel: the client's next attempt, while this
		 * one still waits. Refused, so that no request is left
		 * unanswered; this connection waits on for its own event.
		 */
		printf("CM RDMA_CM_EVENT_CONNECT_REQUEST of another connection during %s: rejected\n",
		       step);
		cid = ev->id;
		rdma_ack_cm_event(ev);
		rdma_reject(cid, NULL, 0);
		rdma_destroy_id(cid);
	}
	if (ev->event != want) {
		snprintf(setup_step, sizeof(setup_step), "%s: %s %d", step,
			 rdma_event_str(ev->event), ev->status);
		setup_err = ev->status < 0 ? -ev->status : EPROTO;
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (out)
		*out = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

/* CQ, QP (through rdma_cm), buffer and MR on c->id. */
static int make_objects(struct conn *c)
{
	struct ibv_qp_init_attr qa = {};
	unsigned int ovf = 0;
	int flags;

	c->ctx = c->id->verbs;
	flags = fcntl(c->ctx->async_fd, F_GETFL);
	if (fcntl(c->ctx->async_fd, F_SETFL, flags | O_NONBLOCK))
		return setup_fail("fcntl async_fd", errno);
	c->pd = ibv_alloc_pd(c->ctx);
	if (!c->pd)
		return setup_fail("alloc_pd", errno);
	c->cq = ibv_create_cq(c->ctx, 2 * opt.depth + 2 * RQ_DEPTH + 4, NULL,
			      NULL, 0);
	if (!c->cq)
		return setup_fail("create_cq", errno);
	if (opt.cq_overflow) {
		c->scq = ibv_create_cq(c->ctx, 4, NULL, NULL, 0);
		if (!c->scq)
			return setup_fail("create_cq (small)", errno);
		ovf = c->scq->cqe + 8;
	}
	qa.send_cq = c->scq ? c->scq : c->cq;
	qa.recv_cq = c->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.cap.max_send_wr = 2 * opt.depth + 2 + ovf;
	qa.cap.max_recv_wr = RQ_DEPTH;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qa))
		return setup_fail("rdma_create_qp", errno);
	c->qp = c->id->qp;
	c->len = buf_len();
	c->buf = mmap(NULL, c->len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->buf == MAP_FAILED) {
		c->buf = NULL;
		return setup_fail("mmap", errno);
	}
	buf_areas(c);
	c->mr = ibv_reg_mr(c->pd, c->buf, c->len, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c->mr)
		return setup_fail("reg_mr", errno);
	for (unsigned int i = 0; i < RQ_DEPTH; i++)
		if (post_recv(c, i))
			return setup_fail("post_recv", EIO);
	return 0;
}

static int destroy_objects(struct conn *c)
{
	int bad = 0;

	if (c->qp) {
		rdma_destroy_qp(c->id);
		c->qp = NULL;
	}
	if (c->mr && ibv_dereg_mr(c->mr)) {
		printf("ERROR side=%s: ibv_dereg_mr: %s\n", side, strerror(errno));
		bad++;
	}
	c->mr = NULL;
	if (c->scq && ibv_destroy_cq(c->scq)) {
		printf("ERROR side=%s: ibv_destroy_cq: %s\n", side, strerror(errno));
		bad++;
	}
	c->scq = NULL;
	if (c->cq && ibv_destroy_cq(c->cq)) {
		printf("ERROR side=%s: ibv_destroy_cq: %s\n", side, strerror(errno));
		bad++;
	}
	c->cq = NULL;
	if (c->pd && ibv_dealloc_pd(c->pd)) {
		printf("ERROR side=%s: ibv_dealloc_pd: %s\n", side, strerror(errno));
		bad++;
	}
	c->pd = NULL;
	if (c->buf)
		munmap(c->buf, c->len);
	c->buf = NULL;
	if (c->id && rdma_destroy_id(c->id)) {
		printf("ERROR side=%s: rdma_destroy_id: %s\n", side, strerror(errno));
		bad++;
	}
	c->id = NULL;
	return bad;
}

static void conn_reset(struct conn *c, struct rdma_event_channel *ch)
{
	memset(c, 0, sizeof(*c));
	c->ch = ch;
	c->first_status = -1;
	snprintf(c->cm_last, sizeof(c->cm_last), "none");
	c->last_progress = now_s();
}

static int client_setup(struct conn *c)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
		.ai_socktype = SOCK_STREAM,
	}, *ai;
	struct rdma_conn_param cp = {
		.initiator_depth = opt.depth, .responder_resources = 1,
		.retry_count = 7,
	};
	struct rdma_cm_event *ev;
	const struct srv_info *si;
	int rv;

	rv = getaddrinfo(opt.addr, opt.port, &hints, &ai);
	if (rv)
		fail("address %s: %s", opt.addr, gai_strerror(rv));
	if (rdma_create_id(c->ch, &c->id, NULL, RDMA_PS_TCP)) {
		freeaddrinfo(ai);
		c->id = NULL;
		return setup_fail("rdma_create_id", errno);
	}
	rv = rdma_resolve_addr(c->id, NULL, ai->ai_addr, 5000);
	freeaddrinfo(ai);
	if (rv)
		return setup_fail("rdma_resolve_addr", errno);
	if (wait_cm(c, RDMA_CM_EVENT_ADDR_RESOLVED, NULL, "ADDR_RESOLVED"))
		return -1;
	if (rdma_resolve_route(c->id, 5000))
		return setup_fail("rdma_resolve_route", errno);
	if (wait_cm(c, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, "ROUTE_RESOLVED"))
		return -1;
	if (make_objects(c))
		return -1;
	if (rdma_connect(c->id, &cp))
		return setup_fail("rdma_connect", errno);
	if (wait_cm(c, RDMA_CM_EVENT_ESTABLISHED, &ev, "ESTABLISHED"))
		return -1;
	si = ev->param.conn.private_data;
	if (ev->param.conn.private_data_len < sizeof(*si) ||
	    si->magic != PING_MAGIC) {
		rdma_ack_cm_event(ev);
		return setup_fail("server info", EPROTO);
	}
	c->peer = *si;
	rdma_ack_cm_event(ev);
	if (c->peer.len < (uint64_t)opt.depth * opt.size)
		fail("server MR of %" PRIu64 " bytes: different -S/-d?",
		     c->peer.len);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The end of a connection                                            */

static unsigned long long ms_since(double t)
{
	return (unsigned long long)((now_s() - t) * 1000);
}

/*
 * After a fault: poll until everything posted completed (no polling after
 * DEVICE_REMOVAL), disconnect, destroy, report.  Return the exit status.
 */
static int finish(struct conn *c, bool normal)
{
	struct ibv_cq *cqs[2] = { c->cq, c->scq };
	unsigned long long drain_ms = 0;
	double t0 = c->fault ? c->t_fault : now_s();
	bool drained = true;
	int phase, bad, rc;

	/*
	 * Phase 0: what the driver completes by itself (after a fault:
	 * everything; after BYE: the sends).  Phase 1: our disconnect.
	 * Phase 2: the rest flushed.
	 */
	for (phase = 0; phase < 3 && !c->removed; phase++) {
		double deadline = now_s() + (phase == 0 && c->fault ? 2 : opt.tmo);

		if (phase == 1) {
			if (c->disconnected)
				continue;
			c->we_disconnect = true;
			rdma_disconnect(c->id);
		}
		for (;;) {
			int n = 0, i;

			if (phase == 0 && (c->fault ? all_done(c) :
					   c->done_s == c->posted_s))
				break;
			if (phase == 1 && c->disconnected)
				break;
			if (phase == 2 && all_done(c))
				break;
			if (now_s() >= deadline || c->removed)
				break;
			for (i = 0; i < 2; i++)
				if (cqs[i])
					n += poll_some(c, cqs[i]);
			read_async(c);
			read_cm(c);
			if (!n)
				nap();
		}
		if (phase == 0 && c->fault)
			c->self_flushed = all_done(c);
		if (phase == 1 && !c->disconnected && !c->removed)
			printf("NOTE side=%s: no DISCONNECTED within %d s of rdma_disconnect\n",
			       side, opt.tmo);
	}
	if (!c->removed) {
		drained = all_done(c);
		drain_ms = ms_since(t0);
		if (!drained)
			printf("UNFLUSHED side=%s send=%" PRIu64 "/%" PRIu64
			       " recv=%" PRIu64 "/%" PRIu64 "\n",
			       side, c->done_s, c->posted_s, c->done_r,
			       c->posted_r);
	}
	read_async(c);
	bad = destroy_objects(c);
	if (c->removed)
		rc = 4;
	else if (c->fault)
		rc = 3;
	else
		rc = normal ? 0 : 3;
	printf("END side=%s result=%s first=%s/%s wc_ok=%" PRIu64
	       " flushed=%" PRIu64 " wc_err=%" PRIu64 " send=%" PRIu64 "/%"
	       PRIu64 " recv=%" PRIu64 "/%" PRIu64 " cm=%s async=%s iters=%"
	       PRIu64 " verified=%" PRIu64 " echoes=%" PRIu64
	       " drain_ms=%llu self_flushed=%s why=\"%s\" time=%.2f\n", side,
	       rc == 0 ? "ok" : rc == 4 ? "removed" : "fault",
	       c->first_status < 0 ? "none" : wc_name(c->first_status),
	       c->first_status < 0 ? "none" : kind_name[c->first_kind],
	       c->wc_ok, c->flushed, c->wc_err, c->done_s, c->posted_s,
	       c->done_r, c->posted_r, c->cm_last,
	       c->async_seen[0] ? c->async_seen : "none", c->next_iter,
	       c->verified, c->echoes, drain_ms,
	       c->fault ? (c->self_flushed ? "yes" : "no") : "-", c->fault_why,
	       now_s() - t_start);
	if (!drained && !c->removed)
		return 1;
	if (bad)
		return 1;
	return rc;
}

/* ------------------------------------------------------------------ */
/* Client modes                                                       */

/* --fill-limits: CQs, MRs and QPs until the device refuses. */
static void fill_limits(struct conn *c)
{
	static struct ibv_cq *cqs[LIMIT_CAP];
	static struct ibv_mr *mrs[LIMIT_CAP];
	static struct ibv_qp *qps[LIMIT_CAP];
	struct ibv_device_attr da;
	int ncq = 0, nmr = 0, nqp = 0, ecq, emr, eqp, i;
	double until;

	if (ibv_query_device(c->ctx, &da))
		fail("ibv_query_device: %s", strerror(errno));
	while (ncq < LIMIT_CAP &&
	       (cqs[ncq] = ibv_create_cq(c->ctx, 1, NULL, NULL, 0)))
		ncq++;
	ecq = errno;
	while (nmr < LIMIT_CAP &&
	       (mrs[nmr] = ibv_reg_mr(c->pd, c->tgt, 4096,
				      IBV_ACCESS_LOCAL_WRITE)))
		nmr++;
	emr = errno;
	for (;;) {
		struct ibv_qp_init_attr qa = {
			.send_cq = c->cq, .recv_cq = c->cq,
			.qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		if (nqp >= LIMIT_CAP)
			break;
		qps[nqp] = ibv_create_qp(c->pd, &qa);
		if (!qps[nqp])
			break;
		nqp++;
	}
	eqp = errno;
	printf("LIMITS max_cq=%d max_mr=%d max_qp=%d extra_cq=%d errno_cq=%s extra_mr=%d errno_mr=%s extra_qp=%d errno_qp=%s\n",
	       da.max_cq, da.max_mr, da.max_qp, ncq, ename(ecq),
	       nmr, ename(emr), nqp, ename(eqp));
	if (ncq >= LIMIT_CAP || nmr >= LIMIT_CAP || nqp >= LIMIT_CAP)
		fail("no limit within %d objects: load siw2 with small max_*",
		     LIMIT_CAP);
	/* The load goes on with every table full. */
	until = now_s() + opt.limits_hold;
	printf("LIMITS FULL\n");
	while (now_s() < until && !c->fault) {
		if (opt.release_file && !access(opt.release_file, F_OK))
			break;
		if (!poll_some(c, c->cq))
			nap();
		read_cm(c);
		read_async(c);
		if (!c->fault && c->inflight < opt.depth &&
		    post_iter(c, c->next_iter) == 0)
			c->next_iter++;
	}
	for (i = nqp - 1; i >= 0; i--)
		if (ibv_destroy_qp(qps[i]))
			fail("destroy extra QP: %s", strerror(errno));
	for (i = nmr - 1; i >= 0; i--)
		if (ibv_dereg_mr(mrs[i]))
			fail("dereg extra MR: %s", strerror(errno));
	for (i = ncq - 1; i >= 0; i--)
		if (ibv_destroy_cq(cqs[i]))
			fail("destroy extra CQ: %s", strerror(errno));
	printf("LIMITS RELEASED\n");
}

static unsigned int count_of(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* --cq-overflow: more signaled Writes than the send CQ holds, unpolled. */
static void cq_overflow(struct conn *c)
{
	unsigned int depth = c->scq->cqe, n = depth + 8, i, got = 0;
	struct ibv_wc wc[8];
	double until;
	int r;

	c->expect_cq_err = true;
	for (i = 0; i < n; i++) {
		struct ibv_sge s = {
			.addr = (uintptr_t)c->src, .length = 64,
			.lkey = c->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = wrid(K_OVF, i), .sg_list = &s, .num_sge = 1,
			.opcode = IBV_WR_RDMA_WRITE,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = c->peer.addr,
				     .rkey = c->peer.rkey },
		}, *bad;

		if (ibv_post_send(c->qp, &wr, &bad))
			fail("post Write %u of %u: %s", i, n, strerror(errno));
		c->posted_s++;
	}
	until = now_s() + opt.tmo;
	while (!strstr(c->async_seen, "CQ_ERR") && now_s() < until) {
		read_async(c);
		nap();
	}
	/* The rest of the Writes: one CQ_ERR each, bounded. */
	until = now_s() + opt.tmo;
	while (now_s() < until && count_of(c->async_seen, "CQ_ERR") < n - depth) {
		read_async(c);
		nap();
	}
	read_async(c);
	while ((r = ibv_poll_cq(c->scq, 8, wc)) > 0) {
		for (i = 0; i < (unsigned int)r; i++) {
			if (wc[i].status != IBV_WC_SUCCESS ||
			    wc[i].wr_id != wrid(K_OVF, got))
				fail("overflowed CQ entry %u: wr_id 0x%" PRIx64 " status %s",
				     got, wc[i].wr_id,
				     ibv_wc_status_str(wc[i].status));
			got++;
		}
	}
	if (r < 0)
		fail("ibv_poll_cq: %d", r);
	printf("CQ_OVERFLOW cqe=%u posted=%u polled=%u lost=%u async=%s\n",
	       depth, n, got, n - got,
	       c->async_seen[0] ? c->async_seen : "none");
	/* The polled ones and the lost ones, which are not coming. */
	c->done_s += n;
	c->wc_ok += got;
	c->expect_cq_err = false;
	/* The load on: one iteration (two WRs) and a ping fit the 4 entries. */
	opt.depth = 1;
}

/* --memlock: 64 KiB MRs until RLIMIT_MEMLOCK refuses. */
static void memlock_exhaust(struct ibv_context *ctx)
{
	static struct ibv_mr *mrs[MEMLOCK_CAP];
	struct rlimit rl;
	struct ibv_pd *pd;
	uint8_t *area;
	size_t len = (size_t)MEMLOCK_CAP * MEMLOCK_CHUNK;
	int n = 0, err, i;

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		fail("getrlimit: %s", strerror(errno));
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		fail("alloc_pd: %s", strerror(errno));
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (area == MAP_FAILED)
		fail("mmap: %s", strerror(errno));
	while (n < MEMLOCK_CAP &&
	       (mrs[n] = ibv_reg_mr(pd, area + (size_t)n * MEMLOCK_CHUNK,
				    MEMLOCK_CHUNK, IBV_ACCESS_LOCAL_WRITE)))
		n++;
	err = errno;
	printf("MEMLOCK limit=%llu registered=%d bytes=%llu errno=%s\n",
	       (unsigned long long)rl.rlim_cur, n,
	       (unsigned long long)n * MEMLOCK_CHUNK, ename(err));
	if (n >= MEMLOCK_CAP)
		fail("RLIMIT_MEMLOCK never refused a registration");
	if ((unsigned long long)n * MEMLOCK_CHUNK > rl.rlim_cur)
		fail("registered %llu bytes beyond RLIMIT_MEMLOCK %llu",
		     (unsigned long long)n * MEMLOCK_CHUNK,
		     (unsigned long long)rl.rlim_cur);
	/* The charge comes back with each deregistration. */
	if (n > 0) {
		if (ibv_dereg_mr(mrs[n - 1]))
			fail("dereg_mr: %s", strerror(errno));
		mrs[n - 1] = ibv_reg_mr(pd, area, MEMLOCK_CHUNK,
					IBV_ACCESS_LOCAL_WRITE);
		if (!mrs[n - 1])
			fail("registration after a deregistration refused: %s",
			     strerror(errno));
	}
	for (i = n - 1; i >= 0; i--)
		if (ibv_dereg_mr(mrs[i]))
			fail("dereg_mr: %s", strerror(errno));
	mrs[0] = ibv_reg_mr(pd, area, MEMLOCK_CHUNK * (n ? n : 1) / 2 + 4096,
			    IBV_ACCESS_LOCAL_WRITE);
	if (!mrs[0] && n > 1)
		fail("registering half the limit after releasing all: %s",
		     strerror(errno));
	if (mrs[0] && ibv_dereg_mr(mrs[0]))
		fail("dereg_mr: %s", strerror(errno));
	munmap(area, len);
	if (ibv_dealloc_pd(pd))
		fail("dealloc_pd: %s", strerror(errno));
	printf("MEMLOCK ok: %s after %d MRs, charge returned on deregistration\n",
	       ename(err), n);
}

static bool load_over(struct conn *c)
{
	if (opt.iters && c->next_iter >= opt.iters)
		return true;
	return opt.secs > 0 && now_s() - t_start >= opt.secs;
}

/* The client's load on an established connection; returns exit status. */
static int client_run(struct conn *c)
{
	double next_report = now_s() + 1;
	bool running = false;
	int n;

	printf("CONNECTED side=client (%.2f s)\n", now_s() - t_start);
	if (opt.cq_overflow)
		cq_overflow(c);
	c->last_progress = now_s();
	while (!c->fault) {
		while (!load_over(c) && c->inflight < opt.depth) {
			int rv = post_iter(c, c->next_iter);

			if (rv) {
				note_fault(c, "post Write/Read: %s",
					   strerror(rv));
				break;
			}
			c->next_iter++;
		}
		if (!c->fault && !c->ping_out && !load_over(c)) {
			int rv = post_ping(c, c->ping_seq);

			if (rv)
				note_fault(c, "post ping: %s", strerror(rv));
			else
				c->ping_out = true;
		}
		n = poll_some(c, c->cq);
		if (c->scq)
			n += poll_some(c, c->scq);
		read_async(c);
		read_cm(c);
		if (!running && c->verified >= opt.ready_after) {
			running = true;
			printf("RUNNING side=client verified=%" PRIu64 " (%.2f s)\n",
			       c->verified, now_s() - t_start);
			if (opt.fill_limits)
				fill_limits(c);
		}
		if (load_over(c) && !c->inflight && !c->ping_out)
			break;
		if (!n) {
			if (now_s() - c->last_progress > opt.tmo) {
				if (!opt.stall_ok)
					fail("no completion for %d s: %u iterations in flight, ping %s",
					     opt.tmo, c->inflight,
					     c->ping_out ? "out" : "idle");
				note_fault(c, "stalled %d s", opt.tmo);
				break;
			}
			nap();
		}
		if (now_s() >= next_report) {
			printf("progress side=client iters=%" PRIu64 " verified=%" PRIu64
			       " echoes=%" PRIu64 " (%.1f s)\n", c->next_iter,
			       c->verified, c->echoes, now_s() - t_start);
			next_report += 1;
		}
	}
	if (!c->fault) {
		/* BYE, then the last completions, then close. */
		int rv = post_ping(c, SEQ_BYE);

		if (rv)
			note_fault(c, "post BYE: %s", strerror(rv));
		c->bye_sent = true;
	}
	return finish(c, true);
}

/* Arm fail-nth for this thread (n > 0); return the open file. */
static int failnth_arm(int n)
{
	char v[16];
	int fd = open("/proc/thread-self/fail-nth", O_RDWR);

	if (fd < 0)
		fail("open /proc/thread-self/fail-nth: %s", strerror(errno));
	snprintf(v, sizeof(v), "%d", n);
	if (write(fd, v, strlen(v)) < 0)
		fail("write fail-nth: %s", strerror(errno));
	return fd;
}

/* Disarm; true if the armed failure was injected. */
static bool failnth_disarm(int fd)
{
	char v[16];
	ssize_t r = pread(fd, v, sizeof(v) - 1, 0);

	if (write(fd, "0", 1) < 0)
		fail("write fail-nth 0: %s", strerror(errno));
	close(fd);
	if (r <= 0)
		fail("read fail-nth");
	v[r] = 0;
	return atoi(v) == 0;
}

/* --failnth: repeat the setup with allocation N of this thread failed. */
static int client_failnth(struct rdma_event_channel *ch)
{
	struct conn c;
	int fd, n, injected = 0, failed = 0, rc;

	for (n = 1; n < 100000; n++) {
		conn_reset(&c, ch);
		fd = failnth_arm(n);
		rc = client_setup(&c);
		if (!failnth_disarm(fd)) {
			/* Fewer than n allocations: every one was failed once. */
			if (rc)
				fail("setup failed without an injected failure: %s: %s",
				     setup_step, strerror(setup_err));
			printf("FAILNTH covered=%d injected=%d setup_failed=%d\n",
			       n - 1, injected, failed);
			opt.iters = 4;
			return client_run(&c);
		}
		injected++;
		if (rc) {
			failed++;
			printf("FAILNTH n=%d step=\"%s\" errno=%s\n", n,
			       setup_step, ename(setup_err));
			/* Flush what is posted, tear down, go on. */
			if (c.qp && c.cq)
				ibv_modify_qp(c.qp, &(struct ibv_qp_attr){
					.qp_state = IBV_QPS_ERR }, IBV_QP_STATE);
			if (destroy_objects(&c))
				fail("teardown after injected failure %d", n);
			continue;
		}
		/* Failure absorbed: the connection must still work. */
		printf("FAILNTH n=%d absorbed\n", n);
		opt.iters = 4;
		rc = client_run(&c);
		if (rc != 0 && rc != 3)
			return rc;
		opt.iters = 0;
	}
	fail("fail-nth loop did not end");
}

/* --loop N: short connections until the release file exists. */
static int client_loop(struct rdma_event_channel *ch)
{
	unsigned int i, ok = 0, setup_failed = 0, faults = 0;
	struct conn c;
	int rc;

	opt.iters = 4;
	for (i = 0; i < opt.loop; i++) {
		if (opt.release_file && !access(opt.release_file, F_OK))
			break;
		conn_reset(&c, ch);
		if (client_setup(&c)) {
			setup_failed++;
			destroy_objects(&c);
			usleep(50000);
			continue;
		}
		rc = client_run(&c);
		if (rc == 1)
			return 1;
		if (rc)
			faults++;
		else
			ok++;
	}
	printf("LOOP connections=%u ok=%u faults=%u setup_failed=%u\n", i, ok,
	       faults, setup_failed);
	return ok ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* Server                                                             */

/* Server --failnth: the allocation failed in this connection's setup. */
static int srv_failnth, srv_failnth_fd = -1;
static bool srv_injected;

static void srv_failnth_end(void)
{
	if (srv_failnth_fd < 0)
		return;
	srv_injected = failnth_disarm(srv_failnth_fd);
	srv_failnth_fd = -1;
}

static int server_conn(struct conn *c, struct rdma_cm_id *cid)
{
	struct srv_info si = { .magic = PING_MAGIC };
	struct rdma_conn_param cp = {
		.initiator_depth = 1, .responder_resources = opt.depth,
		.private_data = &si, .private_data_len = sizeof(si),
	};
	double next_report = now_s() + 1;
	int n, rv;

	c->id = cid;
	if (srv_failnth)
		srv_failnth_fd = failnth_arm(srv_failnth);
	if (make_objects(c)) {
		srv_failnth_end();
		printf("SETUP FAIL side=server step=%s errno=%s\n", setup_step,
		       ename(setup_err));
		rdma_reject(cid, NULL, 0);
		destroy_objects(c);
		return 5;
	}
	si.rkey = c->mr->rkey;
	si.addr = (uintptr_t)c->tgt;
	si.len = (uint64_t)opt.depth * opt.size;
	if (rdma_accept(cid, &cp)) {
		srv_failnth_end();
		printf("SETUP FAIL side=server step=rdma_accept errno=%s\n",
		       ename(errno));
		destroy_objects(c);
		return 5;
	}
	rv = wait_cm(c, RDMA_CM_EVENT_ESTABLISHED, NULL, "ESTABLISHED");
	srv_failnth_end();
	if (rv) {
		printf("SETUP FAIL side=server step=%s errno=%s\n", setup_step,
		       ename(setup_err));
		note_fault(c, "%s", setup_step);
		return finish(c, false) == 1 ? 1 : 5;
	}
	printf("CONNECTED side=server (%.2f s)\n", now_s() - t_start);
	while (!c->fault && !c->disconnected) {
		n = poll_some(c, c->cq);
		read_async(c);
		read_cm(c);
		if (!n) {
			if (opt.stall_ok && now_s() - c->last_progress > opt.tmo) {
				note_fault(c, "stalled %d s", opt.tmo);
				break;
			}
			nap();
		}
		if (now_s() >= next_report) {
			printf("progress side=server echoes=%" PRIu64 " (%.1f s)\n",
			       c->posted_s, now_s() - t_start);
			next_report += 1;
		}
	}
	c->echoes = c->posted_s;
	return finish(c, c->bye_seen && !c->fault);
}

static int server_main(struct rdma_event_channel *ch)
{
	struct addrinfo hints = {
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
		.ai_socktype = SOCK_STREAM,
	}, *ai;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *lid, *cid;
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	unsigned int served = 0;
	struct conn c;
	int rc = 0, r, worst = 0;
	double deadline;

	r = getaddrinfo(opt.addr, opt.port, &hints, &ai);
	if (r)
		fail("address %s: %s", opt.addr, gai_strerror(r));
	if (rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP))
		fail("rdma_create_id: %s", strerror(errno));
	if (rdma_bind_addr(lid, ai->ai_addr))
		fail("rdma_bind_addr: %s", strerror(errno));
	freeaddrinfo(ai);
	if (rdma_listen(lid, 4))
		fail("rdma_listen: %s", strerror(errno));
	printf("LISTENING %s:%s\n", opt.addr, opt.port);
	if (opt.failnth)
		opt.tolerate_setup = true;
	while (opt.failnth || served < opt.conns) {
		deadline = now_s() + opt.tmo * 3;
		while (rdma_get_cm_event(ch, &ev)) {
			if (now_s() > deadline)
				fail("no connection request within %d s",
				     opt.tmo * 3);
			poll(&pfd, 1, 100);
		}
		if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL && ev->id == lid) {
			rdma_ack_cm_event(ev);
			printf("END side=server result=removed (listener)\n");
			return 4;
		}
		if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
			/* A half-made connection of a failed client setup. */
			printf("CM %s status=%d (between connections)\n",
			       rdma_event_str(ev->event), ev->status);
			cid = ev->id;
			r = ev->event;
			rdma_ack_cm_event(ev);
			if (cid != lid && (opt.tolerate_setup ||
					   r == RDMA_CM_EVENT_DISCONNECTED ||
					   r == RDMA_CM_EVENT_TIMEWAIT_EXIT))
				continue;
			fail("unexpected %s", rdma_event_str(ev->event));
		}
		cid = ev->id;
		rdma_ack_cm_event(ev);
		conn_reset(&c, ch);
		if (opt.failnth)
			srv_failnth++;
		srv_injected = false;
		rc = server_conn(&c, cid);
		served++;
		if (opt.failnth) {
			if (!srv_injected) {
				printf("FAILNTH covered=%d\n", srv_failnth - 1);
				if (rc == 1)
					return 1;
				break;
			}
			printf("FAILNTH n=%d rc=%d\n", srv_failnth, rc);
			if (rc == 1)
				return 1;
			continue;
		}
		if (rc == 5 && opt.tolerate_setup) {
			served--;
			continue;
		}
		if (rc == 1)
			return 1;
		if (rc > worst)
			worst = rc;
		if (rc == 4)
			break;
	}
	rdma_destroy_id(lid);
	return opt.conns == 1 ? rc : worst;
}

/* ------------------------------------------------------------------ */

static void usage(int rc)
{
	printf("usage: siw2_fault -s ADDR | -c ADDR [options]\n"
	       "  -p PORT          port (default 7700)\n"
	       "  -S BYTES         size of each Write/Read and ping (64..1M, default 4096)\n"
	       "  -d DEPTH         iterations in flight (1..%d, default 4)\n"
	       "  -n N             client: iterations (0: no limit)\n"
	       "  -T SECS          client: run for SECS seconds (0: no limit)\n"
	       "  -t SECS          limit on every wait, and on a drain (default 10)\n"
	       "  -N CONNS         server: connections to serve in turn (default 1)\n"
	       "  -r N             client: print RUNNING after N checked iterations (8)\n"
	       "  --stall-ok       no progress for -t s is a fault (client: not a failure)\n"
	       "  --tolerate-setup server: a failed connection setup does not count\n"
	       "  --cq-overflow    client: overrun a small send CQ first\n"
	       "  --memlock        client: exhaust RLIMIT_MEMLOCK with 64 KiB MRs first\n"
	       "  --fill-limits    client: fill the device's CQ, MR, QP tables under load\n"
	       "  --limits-hold S  how long the tables stay full at most (default 1)\n"
	       "  --release-file F  ... or until file F exists\n"
	       "  --failnth        client: fail-nth loop over the connection setup;\n"
	       "                   server: fail allocation k of connection k's setup\n"
	       "                   (k = 1, 2, ...) until one needs fewer, then end\n"
	       "  --loop N         client: up to N short connections (4 iterations each),\n"
	       "                   retrying failed setups, until --release-file exists\n"
	       "Exit: 0 ok, 3 fault handled, 4 device removed, 5 setup failed,\n"
	       "1 a check failed, 2 usage.\n", MAX_DEPTH);
	exit(rc);
}

static unsigned long num(const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s)
		usage(2);
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	if (*end)
		usage(2);
	return v;
}

int main(int argc, char **argv)
{
	enum { O_STALL = 256, O_TOL, O_OVF, O_MEMLOCK, O_LIMITS, O_HOLD,
	       O_FAILNTH, O_REL, O_LOOP };
	static const struct option lo[] = {
		{ "stall-ok", no_argument, NULL, O_STALL },
		{ "tolerate-setup", no_argument, NULL, O_TOL },
		{ "cq-overflow", no_argument, NULL, O_OVF },
		{ "memlock", no_argument, NULL, O_MEMLOCK },
		{ "fill-limits", no_argument, NULL, O_LIMITS },
		{ "limits-hold", required_argument, NULL, O_HOLD },
		{ "release-file", required_argument, NULL, O_REL },
		{ "loop", required_argument, NULL, O_LOOP },
		{ "failnth", no_argument, NULL, O_FAILNTH },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct rdma_event_channel *ch;
	struct conn c;
	int o;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((o = getopt_long(argc, argv, "s:c:p:S:d:n:T:t:N:r:h", lo,
				NULL)) != -1) {
		switch (o) {
		case 's':
		case 'c':
			if (opt.addr)
				usage(2);
			opt.server = o == 's';
			opt.addr = optarg;
			break;
		case 'p': opt.port = optarg; break;
		case 'S': opt.size = num(optarg); break;
		case 'd': opt.depth = num(optarg); break;
		case 'n': opt.iters = num(optarg); break;
		case 'T': opt.secs = strtod(optarg, NULL); break;
		case 't': opt.tmo = num(optarg); break;
		case 'N': opt.conns = num(optarg); break;
		case 'r': opt.ready_after = num(optarg); break;
		case O_STALL: opt.stall_ok = true; break;
		case O_TOL: opt.tolerate_setup = true; break;
		case O_OVF: opt.cq_overflow = true; break;
		case O_MEMLOCK: opt.memlock = true; break;
		case O_LIMITS: opt.fill_limits = true; break;
		case O_HOLD: opt.limits_hold = strtod(optarg, NULL); break;
		case O_FAILNTH: opt.failnth = true; break;
		case O_REL: opt.release_file = optarg; break;
		case O_LOOP: opt.loop = num(optarg); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (!opt.addr || optind != argc || opt.size < 64 ||
	    opt.size > MAX_SIZE || opt.depth < 1 || opt.depth > MAX_DEPTH ||
	    opt.tmo < 1 || opt.conns < 1)
		usage(2);
	side = opt.server ? "server" : "client";
	t_start = now_s();
	ch = rdma_create_event_channel();
	if (!ch)
		fail("rdma_create_event_channel: %s", strerror(errno));
	if (fcntl(ch->fd, F_SETFL, O_NONBLOCK))
		fail("fcntl: %s", strerror(errno));
	if (opt.server)
		return server_main(ch);
	if (opt.failnth)
		return client_failnth(ch);
	if (opt.loop)
		return client_loop(ch);
	conn_reset(&c, ch);
	if (client_setup(&c)) {
		printf("SETUP FAIL side=client step=\"%s\" errno=%s\n",
		       setup_step, ename(setup_err));
		destroy_objects(&c);
		return 5;
	}
	if (opt.memlock)
		memlock_exhaust(c.ctx);
	return client_run(&c);
}
