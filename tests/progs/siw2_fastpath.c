// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_fastpath: Send traffic through the siw2 provider's shared rings, and
 * a client that breaks its own rings on purpose.
 *
 *   siw2_fastpath -s -a ADDR [-p PORT] [--echo] [-t SECS]             server
 *   siw2_fastpath -a ADDR [-p PORT] [-n N] [-w W] [-S SIZE] [-t SECS]  client
 *   siw2_fastpath -a ADDR [-p PORT] --hostile SCENARIO [--seed S] [-S SIZE]
 *   siw2_fastpath -a ADDR ... --fork-at K     client that forks before
 *                 message K: the child must see no device mapping (printed
 *                 as "FORK child maps=M"), the parent's traffic goes on
 *
 * One RC QP over rdma_cm (RDMA_PS_TCP) and one busy-polled CQ for sends and
 * receives per side. The client sends N (default 10000) signaled Sends of
 * SIZE bytes (default 64), at most W (default 64, at most 256) of them not
 * completed; byte i of message k is (k * 31 + i) & 0xff. N, SIZE, W and the
 * mode reach the server as connection private data. The server checks
 * byte_len and data of every message in order and reposts its receive.
 *
 * Flow control (iWARP has no receiver-not-ready retry, and a Send completes
 * once TCP has taken it): the server posts 2W receives before rdma_accept()
 * and reposts each as soon as it is checked, so after c messages it holds
 * receives for messages c .. c+2W-1. It grants that as an absolute count:
 * an 8-byte credit Send holding c+2W whenever this exceeds its last grant
 * by max(W/2, 1), while its last grant is below N. The client sends message
 * k only if k < the largest grant read (at first 2W). A grant goes out after
 * the receives it covers were posted, so no Send overtakes its receive.
 * Grants grow by W/2 and the client gets at most 2W messages past the last
 * grant it read, so at most 2W/(W/2)+1 are unread: the client keeps
 * 2W/(W/2)+2 credit receives posted, each reposted once read. The server
 * disconnects when it checked N messages and its Sends completed; the
 * client, after its last completion, waits for that.
 *
 * Output: the server prints "LISTENING ADDR:PORT"; at the end both print
 *   FASTPATH STATS side=S rings=yes|no doorbells=D polls=P empty_polls=E
 *   FASTPATH OK side=client|server n=N size=S window=W secs=T.TT msgs_per_s=R
 * and exit 0 (doorbells: the provider's wake-up system calls, "-" without
 * rings; secs: the data phase). Errors print "FASTPATH FAIL side=S <reason>"
 * and exit 1; bad options print the usage and exit 2. Every wait ends after
 * -t SECS (default 30) without progress; a server with a --hostile client
 * waits twice as long.
 *
 * strace markers: each side calls syscall(SYS_getppid), which nothing else
 * here calls, just before its data phase (client: before its first post;
 * server: after ESTABLISHED, before its first poll) and just after its last
 * completion. In between the program makes no system call of its own: it
 * prints nothing and reads the clock (CLOCK_MONOTONIC, from the vDSO; a
 * system call only on a clocksource the vDSO cannot read) only after 1024
 * empty polls in a row. Any other system call seen there comes from
 * libibverbs or the provider (doorbells).
 *
 * Hostile mode (client, siw2 with rings, against "-s --echo", which sends
 * every message back): after 8 good messages, each with one echo receive
 * posted just before its Send, the client writes into its own rings through
 * the provider's structures (userspace-provider/siw2.h):
 *   sq-opcode  an SQ entry at sq.idx, wr_id 0xbad1, a valid 64 B Send but
 *              for opcode 0x77, sq.idx advanced unpublished, then a valid
 *              signaled Send 0x600d through ibv_post_send(), which publishes
 *              both and rings. Expected: 0xbad1 LOC_QP_OP_ERR, 0x600d
 *              WR_FLUSH_ERR, async event QP_FATAL, ibv_query_qp() ERR or
 *              SQE (reported), no echo.
 *   sq-sge     the same with num_sge 200; sq-inline: with SIW2_WQE_INLINE
 *              and inline_len 100000; sq-rsvd: a Send with an atomic operand set;
 *              sq-commit: an RDMA Commit (FLUSH) of 64 octets with a log
 *              value but no SIW2_COMMIT_F_LOG (COMMIT-ERR-1).
 *   sq-prod    SQ ctl->prod = sq.idx + 1000000, then the doorbell
 *              ibv_cmd_post_send(qp, NULL, &bad). Expected: QP_FATAL, QP in
 *              ERR/SQE, completions (if any) only with error status.
 *   rq-sge     an RQ entry 0xbad2 with num_sge 200 published as the next
 *              echo's receive, then one Send. Expected: 0xbad2
 *              LOC_QP_OP_ERR, QP_FATAL or QP_REQ_ERR (reported), ERR/SQE.
 *   cq-cons    CQ ctl->cons = ctl->prod + 12345, then 4 messages. Expected:
 *              CQ_ERR (the kernel sees the CQ full), no completion in it.
 *   cq-notify  CQ ctl->notify = 0xdeadbeef, 4 messages, ibv_req_notify_cq()
 *              and 4 more. Expected: all work, no async event, QP in RTS.
 *   fuzz       200 rounds (xorshift64, --seed): random bytes anywhere in the
 *              SQ, RQ and CQ rings or (1 in 4) a random word in a control
 *              field, both doorbells (ibv_cmd_post_send/recv without work
 *              requests), at times a normal post, a poll. Expected: no
 *              crash; completions and events are counted. The CQ's prod is
 *              spared: only the kernel writes it, only the provider reads
 *              it, and siw2_ring_cq_clean() would walk up to 2^32 entries
 *              from a wrong one when the QP is destroyed.
 * Async events come from the context's async fd (poll() with a timeout).
 * The client then disconnects, destroys QP, CQ, MR, PD and id and prints
 *   HOSTILE OK scenario=X <statuses, events, qp_state, ...>       (exit 0)
 *   HOSTILE FAIL scenario=X <details>: <what differed>             (exit 1)
 * The server takes a --hostile client only with --echo, and one without
 * only without it. When the connection ends after C >= 1 checked messages
 * it prints, and exits 0,
 *   FASTPATH PEER-GONE side=server n=C echoed=E reason=R secs=T.TT
 * with R "wc:<STATUS>" of the first failed completion, or "bad-message"
 * (a wrong message from a fuzzing client).
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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cm_common.h"

/* The provider's private types (-I../../userspace-provider). */
#include "siw2.h"
#include <rdma/siw2-wr.h>

#define MAX_WINDOW	256
#define MAX_SIZE	(1u << 20)
#define MAX_RX_BYTES	(64ull << 20)	/* server: 2 * W * SIZE */
#define CREDIT_SLOTS	4		/* server: credit Sends in flight */
#define HELLO_MAGIC	0x53324650u	/* "S2FP" */
#define WARMUP		8
#define H_DEPTH		16		/* hostile client: queue depths */
#define FUZZ_ROUNDS	200
#define GRACE_S		0.2
#define NPOLL		16

/* Connection private data, client to server (one host: native order). */
enum { HF_HOSTILE = 1, HF_FUZZ = 2 };
struct hello {
	uint32_t magic;
	uint32_t n;		/* messages; 0: until the client goes */
	uint32_t size;
	uint32_t window;
	uint32_t flags;		/* HF_* */
};

/* wr_id: kind in the top byte, message or slot number below it. */
enum { K_DATA_SEND = 1, K_DATA_RECV, K_ECHO_SEND, K_ECHO_RECV,
       K_CREDIT_SEND, K_CREDIT_RECV };
#define WRID(kind, seq)	((uint64_t)(kind) << 56 | (uint64_t)(seq))
#define WR_KIND(id)	((unsigned int)((id) >> 56))
#define WR_SEQ(id)	((id) & ((1ull << 56) - 1))
#define BAD_SQ_ID	0xbad1
#define GOOD_ID		0x600d
#define BAD_RQ_ID	0xbad2

enum { SC_SQ_OPCODE, SC_SQ_SGE, SC_SQ_INLINE, SC_SQ_RSVD, SC_SQ_COMMIT,
       SC_SQ_PROD, SC_RQ_SGE, SC_CQ_CONS, SC_CQ_NOTIFY, SC_FUZZ, SC_NUM };
static const char *const sc_names[SC_NUM] = {
	"sq-opcode", "sq-sge", "sq-inline", "sq-rsvd", "sq-commit", "sq-prod",
	"rq-sge", "cq-cons", "cq-notify", "fuzz",
};

static struct {
	bool server, echo;
	const char *addr, *port, *hostile;
	uint32_t n, size, window;
	uint32_t flags;		/* server: the client's HF_* */
	int timeout, sc;	/* sc: SC_* */
	uint64_t seed;
	uint64_t fork_at;	/* client: fork before message K (0: never) */
} opt = { .port = "7500" };

static const char *side = "?";
static struct rdma_event_channel *cm_chan;
static struct rdma_cm_id *listen_id, *id;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_qp *qp;
static struct ibv_mr *mr;
static uint8_t *mem, *tx_mem, *rx_mem;
static uint64_t *cr_mem;
static uint32_t tx_slots, rx_slots, cr_slots;
static bool siw2_dev;
static uint64_t polls, empty_polls;

static struct {
	uint64_t sent, done, granted;				/* client */
	uint64_t checked, echo_posted, echo_done;		/* server */
	uint64_t cr_posted, cr_done, grant_sent;
} st;

/* ------------------------------------------------------------------ */
/* Reporting                                                          */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						      noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	if (opt.hostile)
		printf("HOSTILE FAIL scenario=%s ", opt.hostile);
	else
		printf("FASTPATH FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static const char *const wc_names[] = {
	"SUCCESS", "LOC_LEN_ERR", "LOC_QP_OP_ERR", "LOC_EEC_OP_ERR",
	"LOC_PROT_ERR", "WR_FLUSH_ERR", "MW_BIND_ERR", "BAD_RESP_ERR",
	"LOC_ACCESS_ERR", "REM_INV_REQ_ERR", "REM_ACCESS_ERR", "REM_OP_ERR",
	"RETRY_EXC_ERR", "RNR_RETRY_EXC_ERR", "LOC_RDD_VIOL_ERR",
	"REM_INV_RD_REQ_ERR", "REM_ABORT_ERR", "INV_EECN_ERR",
	"INV_EEC_STATE_ERR", "FATAL_ERR", "RESP_TIMEOUT_ERR", "GENERAL_ERR",
};
#define N_WC	(sizeof(wc_names) / sizeof(wc_names[0]))

static const char *const ev_names[] = {
	"CQ_ERR", "QP_FATAL", "QP_REQ_ERR", "QP_ACCESS_ERR", "COMM_EST",
	"SQ_DRAINED", "PATH_MIG", "PATH_MIG_ERR", "DEVICE_FATAL",
	"PORT_ACTIVE", "PORT_ERR", "LID_CHANGE", "PKEY_CHANGE", "SM_CHANGE",
	"SRQ_ERR", "SRQ_LIMIT_REACHED", "QP_LAST_WQE_REACHED",
};
#define N_EV	(sizeof(ev_names) / sizeof(ev_names[0]))

static const char *wc_name(int s)
{
	if (s < 0)
		return "none";
	return (unsigned int)s < N_WC ? wc_names[s] : "OTHER";
}

static const char *qps_name(int s)
{
	static const char *const n[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"
	};

	return s >= 0 && s < 7 ? n[s] : "?";
}

/* ------------------------------------------------------------------ */
/* Data and posting                                                   */

#define TX_SLOT(k)	(tx_mem + ((k) % tx_slots) * opt.size)
#define RX_SLOT(k)	(rx_mem + ((k) % rx_slots) * opt.size)

/* Message k's pattern into its send slot. */
static uint8_t *fill(uint64_t k)
{
	uint8_t *p = TX_SLOT(k), b = (uint8_t)(k * 31);
	uint32_t i;

	for (i = 0; i < opt.size; i++)
		p[i] = (uint8_t)(b + i);
	return p;
}

/* Message k as received: NULL if right, else what is wrong. */
static const char *msg_bad(const uint8_t *p, uint64_t k, uint32_t byte_len)
{
	static char why[96];
	uint8_t b = (uint8_t)(k * 31);
	uint32_t i;

	if (byte_len != opt.size) {
		snprintf(why, sizeof(why), "byte_len %u, expected %u",
			 byte_len, opt.size);
		return why;
	}
	for (i = 0; i < opt.size; i++)
		if (p[i] != (uint8_t)(b + i))
			break;
	if (i == opt.size)
		return NULL;
	snprintf(why, sizeof(why), "byte %u is 0x%02x, expected 0x%02x", i,
		 p[i], (uint8_t)(b + i));
	return why;
}

/* A signaled Send or a receive of one SGE; must: fail on an error. */
static int post(bool send, uint64_t wr_id, void *addr, uint32_t len,
		bool must)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr swr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *sbad;
	struct ibv_recv_wr rwr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *rbad;
	int rv = send ? ibv_post_send(qp, &swr, &sbad) :
			ibv_post_recv(qp, &rwr, &rbad);

	if (rv && must)
		fail("ibv_post_%s wr_id 0x%" PRIx64 ": %s",
		     send ? "send" : "recv", wr_id, strerror(rv));
	return rv;
}

static void post_msg(uint64_t wr_id, uint64_t k)
{
	post(true, wr_id, fill(k), opt.size, true);
}

static void post_echo_recv(uint64_t k)
{
	post(false, WRID(K_ECHO_RECV, k), RX_SLOT(k), opt.size, true);
}

static void marker(void)
{
	syscall(SYS_getppid);
}

/*
 * A poll of the data loops. The clock is read only after 1024 empty polls
 * in a row, then every 1024 more; tmo seconds without a completion fail.
 */
static int data_poll(struct ibv_wc *wc, double tmo)
{
	static uint32_t idle;
	static double since;
	int got = ibv_poll_cq(cq, NPOLL, wc);

	polls++;
	if (got < 0)
		fail("ibv_poll_cq: %d", got);
	if (got) {
		idle = 0;
		return got;
	}
	empty_polls++;
	if (++idle & 1023)
		return 0;
	if (idle == 1024)
		since = now_s();
	if (now_s() - since > tmo)
		fail("timeout (%.0f s): sent %" PRIu64 " completed %" PRIu64 " granted %" PRIu64 " checked %" PRIu64 " echoed %" PRIu64 " credits %" PRIu64,
		     tmo, st.sent, st.done, st.granted, st.checked,
		     st.echo_done, st.cr_done);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Connection and verbs objects                                       */

static struct rdma_cm_event *get_event(enum rdma_cm_event_type want,
				       const char *what)
{
	return cm_get_event(cm_chan, opt.timeout, want, what);
}

/* PD, CQ, QP and one MR: cr_n credit words, tx_n and rx_n message slots. */
static void setup_verbs(struct rdma_cm_id *cid, uint32_t sq, uint32_t rq,
			uint32_t tx_n, uint32_t rx_n, uint32_t cr_n)
{
	struct ibv_device_attr da;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = sq, .max_recv_wr = rq,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	size_t len = (size_t)cr_n * 8 + ((size_t)tx_n + rx_n) * opt.size;

	if (ibv_query_device(cid->verbs, &da))
		fail_errno("ibv_query_device");
	siw2_dev = !strncmp(da.fw_ver, SIW2_FW_VER_MARKER,
			    strlen(SIW2_FW_VER_MARKER));
	pd = ibv_alloc_pd(cid->verbs);
	if (!pd)
		fail_errno("ibv_alloc_pd");
	cq = ibv_create_cq(cid->verbs, sq + rq + 8, NULL, NULL, 0);
	if (!cq)
		fail_errno("ibv_create_cq");
	qa.send_cq = cq;
	qa.recv_cq = cq;
	if (rdma_create_qp(cid, pd, &qa))
		fail_errno("rdma_create_qp");
	qp = cid->qp;
	if (posix_memalign((void **)&mem, 4096, len))
		fail("out of memory (%zu bytes)", len);
	memset(mem, 0, len);
	/* Credit words first: 8-byte aligned whatever SIZE is. */
	cr_mem = (uint64_t *)mem;
	tx_mem = mem + (size_t)cr_n * 8;
	rx_mem = tx_mem + (size_t)tx_n * opt.size;
	cr_slots = cr_n;
	tx_slots = tx_n;
	rx_slots = rx_n;
	mr = ibv_reg_mr(pd, mem, len, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		fail_errno("ibv_reg_mr");
}

/* What is wrong with a connection request, or NULL. */
static const char *hello_bad(const struct rdma_conn_param *c)
{
	const struct hello *h = c->private_data;

	if (c->private_data_len < sizeof(*h) || h->magic != HELLO_MAGIC)
		return "not a siw2_fastpath client";
	if (!h->size || h->size > MAX_SIZE || !h->window ||
	    h->window > MAX_WINDOW || 2ull * h->window * h->size > MAX_RX_BYTES)
		return "bad size or window";
	if (!(h->flags & HF_HOSTILE) != !opt.echo)
		return opt.echo ? "--echo serves --hostile clients only" :
				  "a --hostile client needs a server with --echo";
	if (!h->n != !!(h->flags & HF_HOSTILE))
		return "bad message count";
	return NULL;
}

static void server_connect(void)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	struct rdma_cm_event *ev;
	const struct hello *h;
	const char *bad;
	uint32_t w, k;

	listen_id = cm_listen(cm_chan, opt.addr, opt.port);

	ev = get_event(RDMA_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST");
	id = ev->id;
	bad = hello_bad(&ev->param.conn);
	if (bad) {
		rdma_reject(id, NULL, 0);
		rdma_ack_cm_event(ev);
		fail("connection request refused: %s", bad);
	}
	h = ev->param.conn.private_data;
	opt.n = h->n;
	opt.size = h->size;
	opt.window = w = h->window;
	opt.flags = h->flags;
	setup_verbs(id, (opt.echo ? w : 0) + CREDIT_SLOTS, 2 * w,
		    opt.echo ? w : 0, 2 * w, CREDIT_SLOTS);
	for (k = 0; k < 2 * w; k++)
		post(false, WRID(K_DATA_RECV, k), RX_SLOT(k), opt.size, true);
	if (rdma_accept(id, &cp))
		fail_errno("rdma_accept");
	rdma_ack_cm_event(ev);
	rdma_ack_cm_event(get_event(RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED"));
}

static void client_connect(uint32_t sq, uint32_t rq, uint32_t tx_n,
			   uint32_t rx_n, uint32_t cr_n, const struct hello *h)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
		.private_data = h, .private_data_len = sizeof(*h),
	};
	uint32_t i;

	id = cm_route(cm_chan, opt.timeout, opt.addr, opt.port);
	setup_verbs(id, sq, rq, tx_n, rx_n, cr_n);
	for (i = 0; i < cr_n; i++)
		post(false, WRID(K_CREDIT_RECV, i), &cr_mem[i], 8, true);
	if (rdma_connect(id, &cp))
		fail_errno("rdma_connect");
	rdma_ack_cm_event(get_event(RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED"));
}

/* Destroy everything; false if something could not be destroyed. */
static bool teardown(void)
{
	bool ok = !ibv_destroy_qp(qp);

	id->qp = NULL;
	ok &= !ibv_destroy_cq(cq) && !ibv_dereg_mr(mr) && !ibv_dealloc_pd(pd);
	ok &= !rdma_destroy_id(id);
	ok &= !listen_id || !rdma_destroy_id(listen_id);
	rdma_destroy_event_channel(cm_chan);
	free(mem);
	return ok;
}

/* The end of a normal run: STATS, destroy, then the result line. */
static void finish(const char *gone, double secs)
{
	bool rings = siw2_dev && to_sqp(qp)->sq.map;
	char db[24] = "-";

	if (rings)
		snprintf(db, sizeof(db), "%" PRIu64, to_sqp(qp)->doorbells);
	printf("FASTPATH STATS side=%s rings=%s doorbells=%s polls=%" PRIu64 " empty_polls=%" PRIu64 "\n",
	       side, rings ? "yes" : "no", db, polls, empty_polls);
	if (!teardown())
		fail("destroying the verbs objects failed");
	if (gone)
		printf("FASTPATH PEER-GONE side=server n=%" PRIu64 " echoed=%" PRIu64 " reason=%s secs=%.2f\n",
		       st.checked, st.echo_done, gone, secs);
	else
		printf("FASTPATH OK side=%s n=%u size=%u window=%u secs=%.2f msgs_per_s=%.0f\n",
		       side, opt.n, opt.size, opt.window, secs,
		       opt.n / (secs > 0 ? secs : 1e-9));
}

/* ------------------------------------------------------------------ */
/* Normal mode                                                        */

static void client_wc(const struct ibv_wc *wc)
{
	uint64_t seq = WR_SEQ(wc->wr_id);

	/* The server disconnects once it has all: credit receives flush. */
	if (wc->status == IBV_WC_WR_FLUSH_ERR &&
	    WR_KIND(wc->wr_id) == K_CREDIT_RECV && st.done == opt.n)
		return;
	if (wc->status != IBV_WC_SUCCESS)
		fail("wr_id 0x%" PRIx64 ": status %s (vendor_err %u) after %" PRIu64 " sends completed",
		     wc->wr_id, wc_name(wc->status), wc->vendor_err, st.done);
	if (WR_KIND(wc->wr_id) == K_DATA_SEND && seq == st.done) {
		st.done++;
	} else if (WR_KIND(wc->wr_id) == K_CREDIT_RECV && seq < cr_slots &&
		   wc->byte_len == 8) {
		if (cr_mem[seq] > st.granted)
			st.granted = cr_mem[seq];
		post(false, wc->wr_id, &cr_mem[seq], 8, true);
	} else {
		fail("unexpected completion wr_id 0x%" PRIx64 " byte_len %u (%" PRIu64 " sends completed)",
		     wc->wr_id, wc->byte_len, st.done);
	}
}

/*
 * --fork-at: fork in the middle of the traffic. The child must not have
 * inherited the device's mappings (the kernel maps rings VM_DONTCOPY: a
 * child writing into them would post on the parent's QP); it checks its
 * /proc/self/maps and exits. The parent's traffic must go on unharmed.
 */
static void fork_check(void)
{
	char line[512];
	int status, n = 0;
	pid_t pid;
	FILE *f;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		fail_errno("fork");
	if (!pid) {
		f = fopen("/proc/self/maps", "r");
		if (!f)
			_exit(2);
		while (fgets(line, sizeof(line), f))
			n += !!strstr(line, "/dev/infiniband/uverbs");
		printf("FORK child maps=%d\n", n);
		fflush(stdout);
		_exit(n ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		fail_errno("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		fail("forked child: status 0x%x (inherited ring mappings?)",
		     status);
}

static void client_run(void)
{
	struct hello h = {
		.magic = HELLO_MAGIC, .n = opt.n, .size = opt.size,
		.window = opt.window,
	};
	uint32_t w = opt.window, cr = 2 * w / (w / 2 ? w / 2 : 1) + 2;
	struct ibv_wc wc[NPOLL];
	double t0, secs;
	int i, got;

	client_connect(w, cr, w, 0, cr, &h);
	st.granted = 2ull * w;

	t0 = now_s();
	marker();
	while (st.done < opt.n) {
		while (st.sent < opt.n && st.sent - st.done < w &&
		       st.sent < st.granted) {
			if (opt.fork_at && st.sent + 1 == opt.fork_at)
				fork_check();
			post_msg(WRID(K_DATA_SEND, st.sent), st.sent);
			st.sent++;
		}
		got = data_poll(wc, opt.timeout);
		for (i = 0; i < got; i++)
			client_wc(&wc[i]);
	}
	marker();
	secs = now_s() - t0;

	if (!cm_wait_disconnected(cm_chan, opt.timeout))
		fail("no DISCONNECTED from the server within %d s",
		     opt.timeout);
	rdma_disconnect(id);
	finish(NULL, secs);
}

/* One server completion; returns why the peer is gone, or NULL. */
static const char *server_wc(const struct ibv_wc *wc)
{
	static char why[48];
	uint64_t seq = WR_SEQ(wc->wr_id), *cnt;
	const char *bad;

	if (wc->status != IBV_WC_SUCCESS) {
		if (!opt.echo || !st.checked)
			fail("wr_id 0x%" PRIx64 ": status %s (vendor_err %u) after %" PRIu64 " messages",
			     wc->wr_id, wc_name(wc->status), wc->vendor_err,
			     st.checked);
		snprintf(why, sizeof(why), "wc:%s", wc_name(wc->status));
		return why;
	}
	switch (WR_KIND(wc->wr_id)) {
	case K_DATA_RECV:
		cnt = &st.checked;
		bad = seq != st.checked ? "out of order" :
		      msg_bad(RX_SLOT(seq), seq, wc->byte_len);
		if (bad && (opt.flags & HF_FUZZ))
			return "bad-message";
		if (bad)
			fail("message %" PRIu64 " (expected %" PRIu64 "): %s",
			     seq, st.checked, bad);
		post(false, WRID(K_DATA_RECV, seq + 2ull * opt.window),
		     RX_SLOT(seq), opt.size, true);
		break;
	case K_ECHO_SEND:
		cnt = &st.echo_done;
		break;
	case K_CREDIT_SEND:
		cnt = &st.cr_done;
		break;
	default:
		fail("unexpected completion wr_id 0x%" PRIx64, wc->wr_id);
	}
	if (seq != *cnt)
		fail("completion wr_id 0x%" PRIx64 " out of order", wc->wr_id);
	(*cnt)++;
	return NULL;
}

static void server_run(void)
{
	uint64_t w2, c, *m;
	double tmo = opt.timeout, t0, secs;
	const char *gone = NULL;
	struct ibv_wc wc[NPOLL];
	int i, got;

	server_connect();
	w2 = 2ull * opt.window;
	c = opt.window / 2 ? opt.window / 2 : 1;
	st.grant_sent = w2;
	if (!opt.n)
		tmo *= 2;	/* the hostile client has waits of its own */

	t0 = now_s();
	marker();
	while (!gone && (!opt.n || st.checked < opt.n ||
			 st.cr_done < st.cr_posted)) {
		while (!gone && opt.echo && st.echo_posted < st.checked &&
		       st.echo_posted - st.echo_done < tx_slots) {
			/* The hostile client's QP failing closes ours. */
			int rv = post(true, WRID(K_ECHO_SEND, st.echo_posted),
				      fill(st.echo_posted), opt.size, false);

			if (rv == ENOTCONN)
				gone = "post:ENOTCONN";
			else if (rv)
				fail("ibv_post_send (echo %" PRIu64 "): %s",
				     st.echo_posted, strerror(rv));
			else
				st.echo_posted++;
		}
		if (!opt.echo && st.grant_sent < opt.n &&
		    st.checked + w2 - st.grant_sent >= c &&
		    st.cr_posted - st.cr_done < CREDIT_SLOTS) {
			m = &cr_mem[st.cr_posted % CREDIT_SLOTS];
			*m = st.checked + w2;
			post(true, WRID(K_CREDIT_SEND, st.cr_posted), m, 8,
			     true);
			st.grant_sent = *m;
			st.cr_posted++;
		}
		got = data_poll(wc, tmo);
		for (i = 0; i < got && !gone; i++)
			gone = server_wc(&wc[i]);
	}
	marker();
	secs = now_s() - t0;

	rdma_disconnect(id);
	if (!cm_wait_disconnected(cm_chan, opt.timeout))
		fail("no DISCONNECTED within %d s", opt.timeout);
	finish(gone, secs);
}

/* ------------------------------------------------------------------ */
/* Hostile mode                                                       */

static struct {
	int bad_sq, good, bad_rq, send;	/* last status seen, -1: none */
	unsigned int wcs, wc_err, echo_ok, poll_err, events;
	unsigned int st[N_WC + 1];	/* [N_WC]: out of range */
	unsigned int ev[N_EV + 1];
} hl = { .bad_sq = -1, .good = -1, .bad_rq = -1, .send = -1 };

static char det[1024], why[512];

static void cat(char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t size, const char *fmt, ...)
{
	size_t l = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + l, size - l, fmt, ap);
	va_end(ap);
}

#define dcat(...)	cat(det, sizeof(det), __VA_ARGS__)

static void expect(bool ok, const char *what)
{
	if (!ok)
		cat(why, sizeof(why), "%s%s", why[0] ? "; " : "", what);
}

/* " key=NAME:count,..." or " key=none" */
static void dlist(const char *key, const unsigned int *cnt, unsigned int n,
		  const char *const *names)
{
	const char *sep = "";
	unsigned int i;

	dcat(" %s=", key);
	for (i = 0; i <= n; i++) {
		if (!cnt[i])
			continue;
		dcat("%s%s:%u", sep, i < n ? names[i] : "OTHER", cnt[i]);
		sep = ",";
	}
	if (!sep[0])
		dcat("none");
}

static void hl_wc(const struct ibv_wc *wc)
{
	unsigned int s = wc->status;

	hl.wcs++;
	hl.st[s < N_WC ? s : N_WC]++;
	hl.wc_err += s != IBV_WC_SUCCESS;
	if (wc->wr_id == BAD_SQ_ID)
		hl.bad_sq = s;
	else if (wc->wr_id == GOOD_ID)
		hl.good = s;
	else if (wc->wr_id == BAD_RQ_ID)
		hl.bad_rq = s;
	else if (WR_KIND(wc->wr_id) == K_DATA_SEND)
		hl.send = s;
	else if (WR_KIND(wc->wr_id) == K_ECHO_RECV)
		hl.echo_ok += s == IBV_WC_SUCCESS;
}

/* What a scenario waits for before its grace period. */
static bool hl_done(void)
{
	bool qp_ev = hl.ev[IBV_EVENT_QP_FATAL] || hl.ev[IBV_EVENT_QP_REQ_ERR] ||
		     hl.ev[IBV_EVENT_QP_ACCESS_ERR];

	switch (opt.sc) {
	case SC_SQ_PROD:
		return qp_ev;
	case SC_RQ_SGE:
		return qp_ev && hl.bad_rq >= 0;
	case SC_CQ_CONS:
		return hl.ev[IBV_EVENT_CQ_ERR];
	default:
		return qp_ev && hl.bad_sq >= 0 && hl.good >= 0;
	}
}

/* Completions and async events until hl_done() (if wait) or secs pass. */
static void hl_collect(bool wait, double secs)
{
	struct pollfd pfd = { .fd = id->verbs->async_fd, .events = POLLIN };
	double deadline = now_s() + secs;
	struct ibv_async_event ev;
	struct ibv_wc wc[NPOLL];
	unsigned int e;
	int i, n;

	for (;;) {
		n = ibv_poll_cq(cq, NPOLL, wc);
		hl.poll_err += n < 0;
		for (i = 0; i < n; i++)
			hl_wc(&wc[i]);
		while (!ibv_get_async_event(id->verbs, &ev)) {
			e = ev.event_type;
			hl.ev[e < N_EV ? e : N_EV]++;
			hl.events++;
			ibv_ack_async_event(&ev);
		}
		if ((wait && hl_done()) || now_s() >= deadline)
			return;
		if (n <= 0)
			poll(&pfd, 1, 1);
	}
}

static int qp_state(void)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return -1;
	return a.qp_state;
}

/* One message and its echo in lockstep: its receive, then its Send. */
static void exchange_one(uint64_t k)
{
	double deadline = now_s() + opt.timeout;
	const char *bad = NULL;
	struct ibv_wc wc;
	int n, left = 2;

	post_echo_recv(k);
	post_msg(WRID(K_DATA_SEND, k), k);
	while (left) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0 || (!n && now_s() > deadline))
			fail("message %" PRIu64 ": poll %d, %d completions missing",
			     k, n, left);
		if (!n)
			continue;
		if (wc.wr_id == WRID(K_ECHO_RECV, k))
			bad = msg_bad(RX_SLOT(k), k, wc.byte_len);
		else if (wc.wr_id != WRID(K_DATA_SEND, k))
			bad = "unexpected completion";
		if (wc.status != IBV_WC_SUCCESS)
			bad = wc_name(wc.status);
		if (bad)
			fail("message %" PRIu64 ": wr_id 0x%" PRIx64 ": %s", k,
			     wc.wr_id, bad);
		left--;
	}
}

/* SQ entry for message k, spoiled as the scenario says, not published. */
static void put_bad_sqe(struct siw2_qp *s, uint64_t k)
{
	struct siw2_sq_wqe *e = (void *)(s->sq.ents + (size_t)(s->sq.idx &
				(s->sq.slots - 1)) * s->sq.stride);

	memset(e, 0, s->sq.stride);
	e->wr_id = BAD_SQ_ID;
	e->opcode = IBV_WR_SEND;
	e->num_sge = 1;
	e->flags = SIW2_WQE_SIGNALED;
	e->sge[0].addr = (uintptr_t)fill(k);
	e->sge[0].length = opt.size;
	e->sge[0].lkey = mr->lkey;
	if (opt.sc == SC_SQ_OPCODE) {
		e->opcode = 0x77;
	} else if (opt.sc == SC_SQ_SGE) {
		e->num_sge = 200;
	} else if (opt.sc == SC_SQ_INLINE) {
		memset(&e->sge[0], 0, sizeof(e->sge[0]));
		e->num_sge = 0;
		e->flags |= SIW2_WQE_INLINE;
		e->inline_len = 100000;
	} else if (opt.sc == SC_SQ_COMMIT) {
		/* Log fields without the flag that gives them a meaning. */
		memset(&e->sge[0], 0, sizeof(e->sge[0]));
		e->num_sge = 0;
		e->opcode = SIW2_SQ_OP_FLUSH;
		e->rkey = mr->rkey;
		e->raddr = (uintptr_t)fill(k);
		e->commit.len = 64;
		e->commit.log_value = 1;
	} else {
		e->atomic.swap = 1;	/* operands on a Send */
	}
	s->sq.idx++;	/* published by the next ibv_post_send() */
}

/* Break a ring, wait for the outcome, judge it into det and why. */
static void hostile_step(struct siw2_qp *s, struct siw2_cq *c)
{
	struct siw2_rq_wqe *re;
	struct ibv_send_wr *bad;
	int rv = 0, state;
	uint32_t prod;
	uint64_t k;

	switch (opt.sc) {
	case SC_SQ_PROD:
		__atomic_store_n(&s->sq.ctl->prod, s->sq.idx + 1000000,
				 __ATOMIC_RELEASE);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		rv = ibv_cmd_post_send(qp, NULL, &bad);
		break;
	case SC_RQ_SGE:
		re = (void *)(s->rq.ents + (size_t)(s->rq.idx &
				(s->rq.slots - 1)) * s->rq.stride);
		memset(re, 0, s->rq.stride);
		re->wr_id = BAD_RQ_ID;
		re->num_sge = 200;
		__atomic_store_n(&s->rq.ctl->prod, ++s->rq.idx,
				 __ATOMIC_RELEASE);
		post_msg(WRID(K_DATA_SEND, WARMUP), WARMUP);
		break;
	case SC_CQ_CONS:
		prod = __atomic_load_n(&c->ring.ctl->prod, __ATOMIC_ACQUIRE);
		if (prod != c->ring.idx)
			fail("CQ not drained before the hostile step");
		__atomic_store_n(&c->ring.ctl->cons, prod + 12345,
				 __ATOMIC_RELEASE);
		for (k = WARMUP; k < WARMUP + 4; k++) {
			post_echo_recv(k);
			post_msg(WRID(K_DATA_SEND, k), k);
		}
		break;
	default:	/* the SQ entry scenarios */
		post_echo_recv(WARMUP);
		post_echo_recv(WARMUP + 1);
		put_bad_sqe(s, WARMUP);
		post_msg(GOOD_ID, WARMUP + 1);
	}
	hl_collect(true, opt.timeout);
	hl_collect(false, GRACE_S);
	state = qp_state();

	switch (opt.sc) {
	case SC_SQ_PROD:
		dcat("doorbell=%d", rv);
		expect(hl.wc_err == hl.wcs, "a completion with SUCCESS");
		break;
	case SC_RQ_SGE:
		dcat("bad=%s send=%s event=%s", wc_name(hl.bad_rq),
		     wc_name(hl.send), hl.ev[IBV_EVENT_QP_FATAL] ? "QP_FATAL" :
		     hl.ev[IBV_EVENT_QP_REQ_ERR] ? "QP_REQ_ERR" : "none");
		expect(hl.bad_rq == IBV_WC_LOC_QP_OP_ERR,
		       "0xbad2 should complete with LOC_QP_OP_ERR");
		break;
	case SC_CQ_CONS:
		dcat("cq_err=%u", hl.ev[IBV_EVENT_CQ_ERR]);
		expect(hl.ev[IBV_EVENT_CQ_ERR], "no CQ_ERR event");
		expect(!hl.wcs, "completions in a CQ the kernel must see full");
		break;
	default:
		dcat("bad=%s good=%s", wc_name(hl.bad_sq), wc_name(hl.good));
		expect(hl.bad_sq == IBV_WC_LOC_QP_OP_ERR,
		       "0xbad1 should complete with LOC_QP_OP_ERR");
		expect(hl.good == IBV_WC_WR_FLUSH_ERR,
		       "0x600d should complete with WR_FLUSH_ERR");
		expect(!hl.echo_ok, "an echo arrived: a bad entry was sent");
	}
	dcat(" qp_state=%s", qps_name(state));
	if (opt.sc == SC_CQ_CONS)
		return;
	if (opt.sc == SC_RQ_SGE)
		expect(hl.ev[IBV_EVENT_QP_FATAL] || hl.ev[IBV_EVENT_QP_REQ_ERR],
		       "no QP_FATAL or QP_REQ_ERR event");
	else
		expect(hl.ev[IBV_EVENT_QP_FATAL], "no QP_FATAL event");
	expect(state == IBV_QPS_ERR || state == IBV_QPS_SQE,
	       "QP not in ERR or SQE");
}

static void hostile_notify(struct siw2_cq *c)
{
	uint32_t *nf = &c->ring.ctl->notify, v1, v2;
	int rv, state;
	uint64_t k;

	__atomic_store_n(nf, 0xdeadbeef, __ATOMIC_RELAXED);
	for (k = WARMUP; k < WARMUP + 4; k++)
		exchange_one(k);
	v1 = __atomic_load_n(nf, __ATOMIC_RELAXED);
	rv = ibv_req_notify_cq(cq, 0);
	for (; k < WARMUP + 8; k++)
		exchange_one(k);
	v2 = __atomic_load_n(nf, __ATOMIC_RELAXED);
	hl_collect(false, GRACE_S);
	state = qp_state();
	dcat("msgs=8 notify_after_garbage=0x%x req_notify=%d notify_after_arm=0x%x qp_state=%s",
	     v1, rv, v2, qps_name(state));
	expect(!rv, "ibv_req_notify_cq failed");
	expect(!hl.events, "unexpected async event");
	expect(!hl.wcs, "stray completions");
	expect(state == IBV_QPS_RTS, "QP not in RTS");
}

static uint64_t xorshift(void)
{
	static uint64_t x;

	if (!x)
		x = opt.seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static void hostile_fuzz(struct siw2_qp *s, struct siw2_cq *c)
{
	static const size_t ctl_off[] = {
		offsetof(struct siw2_ring_ctl, prod),
		offsetof(struct siw2_ring_ctl, cons),
		offsetof(struct siw2_ring_ctl, kflags),
		offsetof(struct siw2_ring_ctl, qp_state),
		offsetof(struct siw2_ring_ctl, notify),
	};
	struct siw2_uring *rings[3] = { &s->sq, &s->rq, &c->ring };
	unsigned int round, j, ri, bytes = 0, db_err = 0, post_err = 0;
	struct ibv_send_wr *bs;
	struct ibv_recv_wr *br;
	uint64_t k = WARMUP;
	size_t len, off;
	uint8_t *base;

	for (round = 0; round < FUZZ_ROUNDS; round++) {
		ri = xorshift() % 3;
		base = rings[ri]->map;
		len = SIW2_RING_LEN(rings[ri]->slots, rings[ri]->stride);
		j = xorshift() % 4 ? 1 + xorshift() % 8 : 0;
		if (!j) {
			off = ctl_off[xorshift() % 5];
			/* Not the CQ's prod: see the top comment. */
			if (ri != 2 || off) {
				__atomic_store_n((uint32_t *)(base + off),
						 (uint32_t)xorshift(),
						 __ATOMIC_RELEASE);
				bytes += 4;
			}
		}
		for (; j; j--) {
			off = xorshift() % len;
			if (ri == 2 && off < sizeof(uint32_t))
				continue;
			*(volatile uint8_t *)(base + off) = xorshift();
			bytes++;
		}
		db_err += !!ibv_cmd_post_send(qp, NULL, &bs);
		db_err += !!ibv_cmd_post_recv(qp, NULL, &br);
		j = xorshift() % 8;
		if (j == 0)
			post_err += !!post(false, WRID(K_ECHO_RECV, k),
					   RX_SLOT(k), opt.size, false);
		else if (j == 1)
			post_err += !!post(true, WRID(K_DATA_SEND, k), fill(k),
					   opt.size, false);
		k += j == 1;
		hl_collect(false, 0);
	}
	hl_collect(false, GRACE_S);
	dcat("seed=%" PRIu64 " rounds=%u bytes=%u doorbell_errs=%u post_errs=%u poll_errs=%u qp_state=%s",
	     opt.seed, FUZZ_ROUNDS, bytes, db_err, post_err, hl.poll_err,
	     qps_name(qp_state()));
}

static void hostile_run(void)
{
	struct hello h = {
		.magic = HELLO_MAGIC, .n = 0, .size = opt.size,
		.window = opt.window,
		.flags = HF_HOSTILE | (opt.sc == SC_FUZZ ? HF_FUZZ : 0),
	};
	struct siw2_qp *s;
	struct siw2_cq *c;
	uint64_t k;
	bool disc;
	int fl;

	client_connect(H_DEPTH, H_DEPTH, H_DEPTH, H_DEPTH, 0, &h);
	if (!siw2_dev)
		fail("device %s is not siw2",
		     ibv_get_device_name(id->verbs->device));
	s = to_sqp(qp);
	c = to_scq(cq);
	if (!s->sq.map || !s->rq.map || !c->ring.map)
		fail("the provider does not use rings (siw2 user_rings=0?)");
	fl = fcntl(id->verbs->async_fd, F_GETFL);
	if (fl < 0 || fcntl(id->verbs->async_fd, F_SETFL, fl | O_NONBLOCK))
		fail_errno("fcntl (async fd)");
	for (k = 0; k < WARMUP; k++)
		exchange_one(k);

	if (opt.sc == SC_CQ_NOTIFY)
		hostile_notify(c);
	else if (opt.sc == SC_FUZZ)
		hostile_fuzz(s, c);
	else
		hostile_step(s, c);
	dlist("events", hl.ev, N_EV, ev_names);
	dcat(" wcs=%u", hl.wcs);
	dlist("statuses", hl.st, N_WC, wc_names);

	disc = cm_wait_disconnected(cm_chan, 0);
	rdma_disconnect(id);
	if (!disc)
		disc = cm_wait_disconnected(cm_chan, opt.timeout);
	dcat(" disconnected=%s", disc ? "yes" : "no");
	expect(teardown(), "destroying QP, CQ, MR, PD or id failed");
	if (why[0])
		fail("%s: %s", det, why);
	printf("HOSTILE OK scenario=%s %s\n", opt.hostile, det);
}

/* ------------------------------------------------------------------ */
/* Main                                                               */

static void usage(int rc)
{
	printf("usage: siw2_fastpath -s -a ADDR [-p PORT] [--echo] [-t SECS]\n"
	       "       siw2_fastpath -a ADDR [-p PORT] [-n N] [-w W] [-S SIZE] [-t SECS]\n"
	       "       siw2_fastpath -a ADDR [-p PORT] --hostile SCENARIO [--seed S] [-S SIZE] [-t SECS]\n"
	       "  -s            server (N, W and SIZE come from the client)\n"
	       "  -a ADDR       address to listen on or connect to\n"
	       "  -p PORT       port (default 7500)\n"
	       "  -n N          messages (default 10000)\n"
	       "  -w W          Sends in flight, 1..%d (default 64)\n"
	       "  -S SIZE       message size, 1..%u (default 64; 2*W*SIZE <= 64M)\n"
	       "  -t SECS       timeout of every wait (default 30)\n"
	       "  --echo        server: send every message back (for --hostile)\n"
	       "  --hostile SC  break the client's own rings: sq-opcode sq-sge\n"
	       "                sq-inline sq-rsvd sq-prod rq-sge cq-cons cq-notify fuzz\n"
	       "  --seed S      fuzz seed (default 1)\n"
	       "  --fork-at K   client: fork before message K; the child must see\n"
	       "                no device mapping\n", MAX_WINDOW, MAX_SIZE);
	exit(rc);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "echo", no_argument, NULL, 'E' },
		{ "hostile", required_argument, NULL, 'H' },
		{ "seed", required_argument, NULL, 'R' },
		{ "fork-at", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char numeric[] = "nwStRF";
	uint64_t v[] = { 10000, 64, 64, 30, 1, 0 };	/* as in numeric[] */
	const char *p;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "sa:p:n:w:S:t:h", lo, NULL)) != -1) {
		p = c > 0 && c < 128 ? strchr(numeric, c) : NULL;
		if (p) {
			errno = 0;
			v[p - numeric] = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end || *optarg == '-')
				usage(2);
		} else if (c == 's') {
			opt.server = true;
		} else if (c == 'a') {
			opt.addr = optarg;
		} else if (c == 'p') {
			opt.port = optarg;
		} else if (c == 'E') {
			opt.echo = true;
		} else if (c == 'H') {
			opt.hostile = optarg;
		} else {
			usage(c == 'h' ? 0 : 2);
		}
	}
	for (opt.sc = 0; opt.hostile && opt.sc < SC_NUM; opt.sc++)
		if (!strcmp(opt.hostile, sc_names[opt.sc]))
			break;
	if (!opt.addr || optind != argc || !v[0] || v[0] > UINT32_MAX ||
	    !v[1] || v[1] > MAX_WINDOW || !v[2] || v[2] > MAX_SIZE ||
	    2 * v[1] * v[2] > MAX_RX_BYTES || !v[3] || v[3] > 3600 ||
	    (opt.hostile && (opt.server || opt.sc == SC_NUM)) ||
	    (opt.echo && !opt.server))
		usage(2);
	opt.n = v[0];
	opt.window = v[1];
	opt.size = v[2];
	opt.timeout = v[3];
	opt.seed = v[4];
	opt.fork_at = v[5];
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	side = opt.server ? "server" : "client";
	cm_chan = rdma_create_event_channel();
	if (!cm_chan)
		fail_errno("rdma_create_event_channel");
	if (fcntl(cm_chan->fd, F_SETFL, O_NONBLOCK))
		fail_errno("fcntl (CM channel)");
	if (opt.hostile)
		hostile_run();
	else if (opt.server)
		server_run();
	else
		client_run();
	return 0;
}
