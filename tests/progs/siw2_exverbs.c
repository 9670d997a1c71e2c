// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_exverbs: extended verbs (ibv_create_cq_ex, ibv_create_qp_ex and the
 * ibv_wr_*() builders) through the siw2 provider's rings, and siw2dv.h.
 *
 *   siw2_exverbs -s -a ADDR [-p PORT] [-t SECS]    server
 *   siw2_exverbs -a ADDR [-p PORT] [-t SECS]       client
 *
 * One RC QP per side over rdma_cm (RDMA_PS_TCP), from rdma_create_qp_ex()
 * with IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, and one CQ from ibv_create_cq_ex()
 * (IBV_WC_STANDARD_FLAGS) polled only with ibv_start_poll() /
 * ibv_next_poll() / ibv_end_poll(). Every Send, Write and Read is built
 * with ibv_wr_*() and signaled; every completion must succeed, name this
 * QP, have no wc_flags and the expected opcode.
 *
 * Data message k is LEN octets: k and LEN (4 octets each, host order),
 * then octet i is (k * 37 + i) & 0xff. The server checks every message,
 * in order and octet by octet.
 *
 * Server: posts RX_N receives, accepts, sends its window (address, rkey,
 * length; inline) and checks the client's Sends until DONE, which gives
 * the number of messages and the octets written into the window; it checks
 * both and the window's contents, answers with a verdict Send and waits
 * for the client to disconnect.
 *
 * Client, after the server's window arrived; each step one wr_start ..
 * wr_complete (or wr_abort), then all its completions:
 *   empty   wr_start, wr_complete: 0, no doorbell
 *   sge     8 Sends, wr_send + wr_set_sge
 *   inline  8 Sends, wr_send + wr_set_inline_data, the source overwritten
 *           right after each call (the data must have been copied)
 *   list    2 Sends, wr_set_sge_list with 3 SGEs in 3 separate buffers
 *   abort   3 Sends built, then wr_abort: none may complete or arrive
 *   error   a good Send, then one with max_inline + 1 inline octets:
 *           wr_complete returns EINVAL (another provider: any error), the
 *           good Send neither completes nor arrives, no doorbell
 *   after   4 Sends: the QP works after the abort and the error
 *   write   an RDMA Write of WRITE_LEN octets from 2 SGEs and an inline
 *           one of WRITE_INL octets after it, into the server's window
 *   read    one RDMA Read (fenced) of both back, compared octet by octet
 *   done    DONE, built with wr_set_inline_data_list (2 buffers)
 * then waits for the verdict and disconnects. Before connecting the client
 * also checks (siw2 only) that ibv_create_cq_ex() with a completion
 * timestamp and ibv_create_qp_ex() with a memory window op fail with
 * EOPNOTSUPP and that ibv_qp_to_qp_ex() is NULL for a QP from
 * ibv_create_qp(); with siw2 the completions' src_qp, slid, sl and
 * dlid_path_bits must read 0.
 *
 * Needs the siw2 provider with rings (user_rings=1) for the siw2 checks;
 * on another device those are skipped ("siw2=no"). The siw2dv functions
 * come from the provider library this program links (run path: the tree's
 * userspace-provider/build); libibverbs must load that same file
 * (RDMAV_DRIVERS=<tree>/userspace-provider/build/libsiw2), or a siw2
 * device reads as "not siw2" and the program fails saying so.
 *
 * Output: the server prints "LISTENING ADDR:PORT"; both print
 *   EXVERBS QP side=S when=connected|end rings=yes|no sq_slots=N
 *      rq_slots=N max_inline=N doorbells=D       (siw2; else siw2=no)
 * and at the end, exit 0:
 *   EXVERBS OK side=client sends=N writes=W reads=R aborted=A
 *      latched=ERR polls=P doorbells=D
 *   EXVERBS OK side=server recvs=N bytes=B written=W polls=P doorbells=D
 * (polls: start_poll calls that found a completion; doorbells "-" without
 * siw2). Errors print "EXVERBS FAIL side=S <reason>" and exit 1; bad
 * options print the usage and exit 2. Every wait ends after -t SECS
 * (default 30) without progress.
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
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "cm_common.h"
#include <rdma/siw2-abi.h>	/* SIW2_FW_VER_MARKER */

#include "siw2dv.h"		/* -I../../userspace-provider */

#define HELLO_MAGIC	0x53325856u	/* "S2XV" */
#define VERDICT_MAGIC	0x53325644u
#define DONE_K		0xd0d0d0d0u
#define NEVER_K		0x40000000u	/* messages that must not arrive */
#define MEM_LEN		65536
#define MSG_HDR		8

/* Client memory (one MR, local access only). */
#define C_MSG		0		/* Send sources */
#define C_WSRC		8192		/* RDMA Write source */
#define C_RBACK		16384		/* RDMA Read sink */
#define C_RX		32768		/* window, verdict */
#define C_RX_SLOT	64

/* Server memory: receive slots, then the window the client writes. */
#define RX_N		64
#define RX_SLOT		256
#define S_WIN		(RX_N * RX_SLOT)
#define WIN_LEN		16384

#define SGE_N		8
#define SGE_LEN		64
#define INL_N		8
#define INL_LEN		48
#define LIST_N		2
#define LIST_LEN	100	/* in pieces of 20, 30 and 50 */
#define ABORT_N		3
#define AFTER_N		4
#define WRITE_LEN	4096	/* two SGEs of half of it */
#define WRITE_INL	32
#define MAX_INLINE	64	/* asked for; the QP's own value is used */

/* wr_id: kind in the top byte, sequence number below it. */
enum { K_SEND = 1, K_WRITE, K_READ, K_NEVER, K_WIN_RECV, K_VERDICT_RECV,
       K_RECV, K_WIN_SEND, K_VERDICT_SEND };
#define WRID(kind, seq)	((uint64_t)(kind) << 56 | (uint64_t)(seq))
#define WR_KIND(id)	((unsigned int)((id) >> 56))
#define WR_SEQ(id)	((id) & ((1ull << 56) - 1))

struct hello {
	uint32_t magic;
};

/* The server's window, its first Send. */
struct win_msg {
	uint64_t addr;
	uint32_t rkey;
	uint32_t len;
};

/* DONE: a message header and this body. */
struct done_body {
	uint32_t msgs;		/* data messages before DONE */
	uint32_t written;	/* octets written into the window */
};

struct verdict_msg {
	uint32_t magic;
	uint32_t recvs;		/* data messages checked */
	uint32_t written;	/* window octets checked */
	uint32_t pad;
};

static struct {
	bool server;
	const char *addr, *port;
	int timeout;
} opt = { .port = "7520" };

static const char *side = "?";
static struct rdma_event_channel *cm_chan;
static struct rdma_cm_id *listen_id, *id;
static struct ibv_pd *pd;
static struct ibv_cq_ex *cqx;
static struct ibv_qp *qp;
static struct ibv_qp_ex *qpx;
static struct ibv_mr *mr;
static uint8_t *mem;
static bool siw2;
static uint32_t max_inline;

static struct {
	uint64_t polls;
	/* client */
	uint64_t sends, sends_done, writes, writes_done, reads, reads_done;
	uint64_t win_done, verdict_done, aborted;
	uint32_t next_k;	/* data messages sent */
	int latched;
	/* server */
	uint64_t recvs, bytes, win_sent, verdict_sent;
	uint32_t expect_k, written;
	bool done;
} st;

/* ------------------------------------------------------------------ */
/* Reporting                                                          */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						      noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("EXVERBS FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

/* The provider's doorbell count, or 0 without siw2. */
static uint64_t doorbells(void)
{
	struct siw2dv_qp_attr a = {};
	int rc;

	if (!siw2)
		return 0;
	rc = siw2dv_query_qp(qp, &a);
	if (rc)
		fail("siw2dv_query_qp: %s", strerror(rc));
	return a.doorbells;
}

static void print_dv(const char *when)
{
	/* Every optional field wanted: the provider clears what it lacks. */
	struct siw2dv_qp_attr a = { .comp_mask = ~0ull };
	int rc;

	if (!siw2) {
		printf("EXVERBS QP side=%s when=%s siw2=no\n", side, when);
		return;
	}
	rc = siw2dv_query_qp(qp, &a);
	if (rc)
		fail("siw2dv_query_qp: %s", strerror(rc));
	if (a.comp_mask)
		fail("siw2dv_query_qp: comp_mask 0x%" PRIx64 " back (none defined)",
		     a.comp_mask);
	printf("EXVERBS QP side=%s when=%s rings=%s sq_slots=%u rq_slots=%u max_inline=%u doorbells=%" PRIu64 "\n",
	       side, when, a.rings ? "yes" : "no", a.sq_slots, a.rq_slots,
	       a.max_inline, a.doorbells);
	if (!a.rings)
		fail("the QP does not post through rings (siw2 user_rings=0?)");
	if (a.max_inline != max_inline)
		fail("siw2dv max_inline %u, the QP's cap %u", a.max_inline,
		     max_inline);
}

static void teardown(void);

/* The end of a run: doorbells, destroy everything, the result line. */
static void finish(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void finish(const char *fmt, ...)
{
	char db[24] = "-";
	va_list ap;

	if (siw2)
		snprintf(db, sizeof(db), "%" PRIu64, doorbells());
	teardown();
	printf("EXVERBS OK side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" polls=%" PRIu64 " doorbells=%s\n", st.polls, db);
}

/* ------------------------------------------------------------------ */
/* Messages                                                           */

static void fill_msg(uint8_t *p, uint32_t k, uint32_t len)
{
	uint32_t i;

	memcpy(p, &k, 4);
	memcpy(p + 4, &len, 4);
	for (i = MSG_HDR; i < len; i++)
		p[i] = (uint8_t)(k * 37 + i);
}

/* Message k as received: NULL if right, else what is wrong. */
static const char *msg_bad(const uint8_t *p, uint32_t k, uint32_t byte_len)
{
	static char why[96];
	uint32_t i, v;

	if (byte_len < MSG_HDR || byte_len > RX_SLOT) {
		snprintf(why, sizeof(why), "byte_len %u", byte_len);
		return why;
	}
	memcpy(&v, p, 4);
	if (v != k) {
		snprintf(why, sizeof(why), "message 0x%x, expected %u", v, k);
		return why;
	}
	memcpy(&v, p + 4, 4);
	if (v != byte_len) {
		snprintf(why, sizeof(why), "length field %u, byte_len %u", v,
			 byte_len);
		return why;
	}
	for (i = MSG_HDR; i < byte_len; i++)
		if (p[i] != (uint8_t)(k * 37 + i))
			break;
	if (i == byte_len)
		return NULL;
	snprintf(why, sizeof(why), "octet %u is 0x%02x, expected 0x%02x", i,
		 p[i], (uint8_t)(k * 37 + i));
	return why;
}

/* The window's octet i after the client's writes. */
static uint8_t wpat(uint32_t i)
{
	return (uint8_t)(i * 13 + 5);
}

/* ------------------------------------------------------------------ */
/* Completions, only through the extended CQ                          */

static void client_wc(unsigned int kind, uint64_t seq, enum ibv_wc_opcode op,
		      uint32_t len)
{
	switch (kind) {
	case K_SEND:
		if (op != IBV_WC_SEND || seq != st.sends_done)
			break;
		st.sends_done++;
		return;
	case K_WRITE:
		if (op != IBV_WC_RDMA_WRITE || seq != st.writes_done)
			break;
		st.writes_done++;
		return;
	case K_READ:
		if (op != IBV_WC_RDMA_READ || seq != st.reads_done)
			break;
		st.reads_done++;
		return;
	case K_WIN_RECV:
		if (op != IBV_WC_RECV || len != sizeof(struct win_msg))
			break;
		st.win_done++;
		return;
	case K_VERDICT_RECV:
		if (op != IBV_WC_RECV || len != sizeof(struct verdict_msg))
			break;
		st.verdict_done++;
		return;
	case K_NEVER:
		fail("wr_id 0x%" PRIx64 " of an aborted or failed batch completed",
		     WRID(kind, seq));
	}
	fail("unexpected completion wr_id 0x%" PRIx64 " opcode %d byte_len %u",
	     WRID(kind, seq), op, len);
}

static void server_done(const uint8_t *p, uint32_t len)
{
	const uint8_t *win = mem + S_WIN;
	struct done_body b;
	uint32_t i, v;

	memcpy(&v, p + 4, 4);
	if (len != MSG_HDR + sizeof(b) || v != len)
		fail("DONE: byte_len %u, length field %u", len, v);
	memcpy(&b, p + MSG_HDR, sizeof(b));
	if (b.msgs != st.expect_k)
		fail("DONE says %u messages, %u arrived", b.msgs, st.expect_k);
	if (b.written > WIN_LEN - 1)
		fail("DONE says %u octets written", b.written);
	for (i = 0; i < b.written; i++)
		if (win[i] != wpat(i))
			fail("window octet %u is 0x%02x, expected 0x%02x", i,
			     win[i], wpat(i));
	if (win[b.written])
		fail("window octet %u after the writes is 0x%02x", b.written,
		     win[b.written]);
	st.written = b.written;
	st.done = true;
}

static void server_wc(unsigned int kind, uint64_t seq, enum ibv_wc_opcode op,
		      uint32_t len)
{
	const uint8_t *p;
	const char *bad;
	uint32_t k;

	switch (kind) {
	case K_RECV:
		/* Receives are used in posting order: slot = arrival. */
		if (op != IBV_WC_RECV || seq != st.recvs || st.done)
			break;
		p = mem + seq * RX_SLOT;
		memcpy(&k, p, 4);
		st.recvs++;
		if (k == DONE_K && len >= MSG_HDR) {
			server_done(p, len);
			return;
		}
		bad = msg_bad(p, st.expect_k, len);
		if (bad)
			fail("receive %" PRIu64 ": %s", seq, bad);
		st.expect_k++;
		st.bytes += len;
		return;
	case K_WIN_SEND:
		if (op != IBV_WC_SEND)
			break;
		st.win_sent++;
		return;
	case K_VERDICT_SEND:
		if (op != IBV_WC_SEND)
			break;
		st.verdict_sent++;
		return;
	}
	fail("unexpected completion wr_id 0x%" PRIx64 " opcode %d byte_len %u",
	     WRID(kind, seq), op, len);
}

/* The completion start_poll or next_poll made current. */
static void one_wc(void)
{
	uint64_t wr_id = cqx->wr_id;
	enum ibv_wc_opcode op;
	unsigned int flags;
	uint32_t len, qpn;

	if (cqx->status != IBV_WC_SUCCESS)
		fail("wr_id 0x%" PRIx64 ": status %s (vendor_err %u)", wr_id,
		     ibv_wc_status_str(cqx->status),
		     ibv_wc_read_vendor_err(cqx));
	op = ibv_wc_read_opcode(cqx);
	len = ibv_wc_read_byte_len(cqx);
	qpn = ibv_wc_read_qp_num(cqx);
	flags = ibv_wc_read_wc_flags(cqx);
	if (qpn != qp->qp_num)
		fail("wr_id 0x%" PRIx64 ": qp_num %u, the QP is %u", wr_id, qpn,
		     qp->qp_num);
	if (flags)
		fail("wr_id 0x%" PRIx64 ": wc_flags 0x%x", wr_id, flags);
	if (siw2 && (ibv_wc_read_src_qp(cqx) || ibv_wc_read_slid(cqx) ||
		     ibv_wc_read_sl(cqx) || ibv_wc_read_dlid_path_bits(cqx)))
		fail("wr_id 0x%" PRIx64 ": src_qp, slid, sl or dlid_path_bits not 0",
		     wr_id);
	if (opt.server)
		server_wc(WR_KIND(wr_id), WR_SEQ(wr_id), op, len);
	else
		client_wc(WR_KIND(wr_id), WR_SEQ(wr_id), op, len);
}

/* One start_poll .. end_poll round; the number of completions. */
static int poll_round(void)
{
	struct ibv_poll_cq_attr pa = {};
	int rc, n = 0;

	rc = ibv_start_poll(cqx, &pa);
	if (rc == ENOENT)
		return 0;
	if (rc)
		fail("ibv_start_poll: %s", strerror(rc));
	st.polls++;
	do {
		one_wc();
		n++;
		rc = ibv_next_poll(cqx);
	} while (!rc);
	ibv_end_poll(cqx);
	if (rc != ENOENT)
		fail("ibv_next_poll: %s", strerror(rc));
	return n;
}

/* Poll until *cnt reaches want; what: for the timeout message. */
static void wait_for(const uint64_t *cnt, uint64_t want, const char *what)
{
	double deadline = now_s() + opt.timeout;

	while (*cnt < want) {
		if (poll_round())
			deadline = now_s() + opt.timeout;
		else if (now_s() > deadline)
			fail("timeout (%d s) waiting for %s: %" PRIu64 " of %" PRIu64,
			     opt.timeout, what, *cnt, want);
	}
}

/* A short grace poll: anything that completes here is checked too. */
static void drain(double secs)
{
	double end = now_s() + secs;

	while (now_s() < end)
		poll_round();
}

/* ------------------------------------------------------------------ */
/* Connection and verbs objects                                       */

static struct rdma_cm_event *get_event(enum rdma_cm_event_type want,
				       const char *what)
{
	return cm_get_event(cm_chan, opt.timeout, want, what);
}

/* Is the device siw2, and is its provider the library linked here? */
static void check_device(struct ibv_context *ctx)
{
	struct ibv_device_attr da;
	bool marked;

	if (ibv_query_device(ctx, &da))
		fail_errno("ibv_query_device");
	marked = !strncmp(da.fw_ver, SIW2_FW_VER_MARKER,
			  strlen(SIW2_FW_VER_MARKER));
	siw2 = siw2dv_is_siw2_context(ctx);
	if (marked && !siw2)
		fail("device %s is siw2, but libibverbs drives it with another copy of the provider (RDMAV_DRIVERS=<tree>/userspace-provider/build/libsiw2)",
		     ibv_get_device_name(ctx->device));
}

/* What the provider must refuse (siw2 only), before the real objects. */
static void check_refusals(struct ibv_context *ctx)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 4,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN |
			    IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_BIND_MW,
	};
	struct ibv_qp_init_attr pa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_cq_ex *c;
	struct ibv_qp *q;

	errno = 0;
	c = ibv_create_cq_ex(ctx, &ca);
	if (c || errno != EOPNOTSUPP)
		fail("ibv_create_cq_ex with a completion timestamp: %s, errno %d",
		     c ? "created" : "refused", errno);
	qa.send_cq = ibv_cq_ex_to_cq(cqx);
	qa.recv_cq = qa.send_cq;
	errno = 0;
	q = ibv_create_qp_ex(ctx, &qa);
	if (q || errno != EOPNOTSUPP)
		fail("ibv_create_qp_ex with a memory window send op: %s, errno %d",
		     q ? "created" : "refused", errno);
	pa.send_cq = ibv_cq_ex_to_cq(cqx);
	pa.recv_cq = pa.send_cq;
	q = ibv_create_qp(pd, &pa);
	if (!q)
		fail_errno("ibv_create_qp (plain)");
	if (ibv_qp_to_qp_ex(q))
		fail("ibv_qp_to_qp_ex() of a plain QP is not NULL");
	if (ibv_destroy_qp(q))
		fail_errno("ibv_destroy_qp (plain)");
}

/* PD, extended CQ, MR and the QP with the builders. */
static void setup_verbs(struct rdma_cm_id *cid, uint32_t sq, uint32_t rq,
			int access)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = sq + rq + 8,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = sq, .max_recv_wr = rq,
			 .max_send_sge = 3, .max_recv_sge = 1,
			 .max_inline_data = MAX_INLINE },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_SEND_WITH_INV |
				  IBV_QP_EX_WITH_LOCAL_INV,
	};

	check_device(cid->verbs);
	pd = ibv_alloc_pd(cid->verbs);
	if (!pd)
		fail_errno("ibv_alloc_pd");
	cqx = ibv_create_cq_ex(cid->verbs, &ca);
	if (!cqx)
		fail_errno("ibv_create_cq_ex");
	if (siw2 && !opt.server)
		check_refusals(cid->verbs);
	qa.pd = pd;
	qa.send_cq = ibv_cq_ex_to_cq(cqx);
	qa.recv_cq = qa.send_cq;
	if (rdma_create_qp_ex(cid, &qa))
		fail("rdma_create_qp_ex: %s (errno %d)%s", strerror(errno),
		     errno, siw2 && errno == EOPNOTSUPP ?
		     " (siw2 user_rings=0?)" : "");
	qp = cid->qp;
	qpx = ibv_qp_to_qp_ex(qp);
	if (!qpx)
		fail("ibv_qp_to_qp_ex() of the QP is NULL");
	max_inline = qa.cap.max_inline_data;
	if (max_inline < INL_LEN || max_inline < sizeof(struct win_msg) ||
	    max_inline < WRITE_INL || qa.cap.max_send_sge < 3)
		fail("QP caps: max_inline %u, max_send_sge %u", max_inline,
		     qa.cap.max_send_sge);
	if (posix_memalign((void **)&mem, 4096, MEM_LEN))
		fail("out of memory");
	memset(mem, 0, MEM_LEN);
	mr = ibv_reg_mr(pd, mem, MEM_LEN, access);
	if (!mr)
		fail_errno("ibv_reg_mr");
}

static void post_recv(uint64_t wr_id, void *addr, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	}, *bad;
	int rc = ibv_post_recv(qp, &wr, &bad);

	if (rc)
		fail("ibv_post_recv wr_id 0x%" PRIx64 ": %s", wr_id,
		     strerror(rc));
}

/* Destroy everything, failing on an error; before it: the doorbells. */
static void teardown(void)
{
	if (ibv_destroy_qp(qp))
		fail_errno("ibv_destroy_qp");
	id->qp = NULL;
	if (ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)))
		fail_errno("ibv_destroy_cq");
	if (ibv_dereg_mr(mr))
		fail_errno("ibv_dereg_mr");
	if (ibv_dealloc_pd(pd))
		fail_errno("ibv_dealloc_pd");
	if (rdma_destroy_id(id) || (listen_id && rdma_destroy_id(listen_id)))
		fail_errno("rdma_destroy_id");
	rdma_destroy_event_channel(cm_chan);
	free(mem);
}

/* ------------------------------------------------------------------ */
/* Client                                                             */

static void wr_complete(const char *step)
{
	int rc = ibv_wr_complete(qpx);

	if (rc)
		fail("%s: ibv_wr_complete: %s", step, strerror(rc));
}

/* A signaled Send of one SGE, in the open batch. */
static void wr_sge_send(uint64_t wr_id, const uint8_t *p, uint32_t len)
{
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)p, len);
}

/* n data Sends of len octets from one SGE each, at mem + off. */
static void sge_sends(const char *step, uint32_t off, uint32_t n,
		      uint32_t len)
{
	uint8_t *p;
	uint32_t i;

	ibv_wr_start(qpx);
	for (i = 0; i < n; i++) {
		p = mem + off + i * 128;
		fill_msg(p, st.next_k++, len);
		wr_sge_send(WRID(K_SEND, st.sends++), p, len);
	}
	wr_complete(step);
	wait_for(&st.sends_done, st.sends, step);
}

static void step_empty(void)
{
	uint64_t db = doorbells();
	int rc;

	ibv_wr_start(qpx);
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("empty batch: ibv_wr_complete: %s", strerror(rc));
	if (doorbells() != db)
		fail("an empty batch rang the doorbell");
}

static void step_inline(void)
{
	uint8_t b[INL_LEN];
	uint32_t i;

	ibv_wr_start(qpx);
	for (i = 0; i < INL_N; i++) {
		fill_msg(b, st.next_k++, INL_LEN);
		qpx->wr_id = WRID(K_SEND, st.sends++);
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qpx);
		ibv_wr_set_inline_data(qpx, b, INL_LEN);
		/* Copied by now: this must not be what goes out. */
		memset(b, 0xee, sizeof(b));
	}
	wr_complete("inline");
	wait_for(&st.sends_done, st.sends, "inline Sends");
}

/* Each message in 3 pieces, out of address order, 1 KiB apart per message. */
static void step_list(void)
{
	static const uint32_t off[3] = { 700, 0, 350 }, plen[3] = { 20, 30, 50 };
	uint8_t whole[LIST_LEN], *p;
	struct ibv_sge sg[3];
	uint32_t i, j, o;

	_Static_assert(20 + 30 + 50 == LIST_LEN, "pieces");
	ibv_wr_start(qpx);
	for (i = 0; i < LIST_N; i++) {
		fill_msg(whole, st.next_k++, LIST_LEN);
		for (j = 0, o = 0; j < 3; o += plen[j], j++) {
			p = mem + C_MSG + 2048 + i * 1024 + off[j];
			memcpy(p, whole + o, plen[j]);
			sg[j] = (struct ibv_sge){
				.addr = (uintptr_t)p, .length = plen[j],
				.lkey = mr->lkey,
			};
		}
		qpx->wr_id = WRID(K_SEND, st.sends++);
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qpx);
		ibv_wr_set_sge_list(qpx, 3, sg);
	}
	wr_complete("list");
	wait_for(&st.sends_done, st.sends, "3-SGE Sends");
}

/* Messages the server would refuse (NEVER_K + i), and wr_ids of K_NEVER. */
static void step_abort(void)
{
	uint64_t db = doorbells();
	uint8_t *p;
	uint32_t i;

	ibv_wr_start(qpx);
	for (i = 0; i < ABORT_N; i++) {
		p = mem + C_MSG + 6144 + i * 128;
		fill_msg(p, NEVER_K + i, SGE_LEN);
		wr_sge_send(WRID(K_NEVER, i), p, SGE_LEN);
	}
	ibv_wr_abort(qpx);
	st.aborted += ABORT_N;
	if (doorbells() != db)
		fail("wr_abort rang the doorbell");
}

static void step_error(void)
{
	uint64_t db = doorbells();
	uint8_t *big, *p = mem + C_MSG + 6144 + 512;
	int rc;

	big = calloc(1, max_inline + 1);
	if (!big)
		fail("out of memory");
	fill_msg(p, NEVER_K + 100, SGE_LEN);
	ibv_wr_start(qpx);
	wr_sge_send(WRID(K_NEVER, 100), p, SGE_LEN);
	qpx->wr_id = WRID(K_NEVER, 101);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, big, max_inline + 1);
	/* After the error the batch is dead: this must not go out either. */
	wr_sge_send(WRID(K_NEVER, 102), p, SGE_LEN);
	rc = ibv_wr_complete(qpx);
	free(big);
	st.latched = rc;
	if (!rc)
		fail("error: %u inline octets (max_inline %u) accepted",
		     max_inline + 1, max_inline);
	if (siw2 && rc != EINVAL)
		fail("error: ibv_wr_complete: %s, expected EINVAL",
		     strerror(rc));
	if (doorbells() != db)
		fail("a failed batch rang the doorbell");
}

static void step_write(const struct win_msg *win)
{
	uint8_t *src = mem + C_WSRC, tail[WRITE_INL];
	struct ibv_sge sg[2];
	uint32_t i;

	for (i = 0; i < WRITE_LEN; i++)
		src[i] = wpat(i);
	for (i = 0; i < WRITE_INL; i++)
		tail[i] = wpat(WRITE_LEN + i);
	for (i = 0; i < 2; i++)
		sg[i] = (struct ibv_sge){
			.addr = (uintptr_t)(src + i * WRITE_LEN / 2),
			.length = WRITE_LEN / 2, .lkey = mr->lkey,
		};
	ibv_wr_start(qpx);
	qpx->wr_id = WRID(K_WRITE, st.writes++);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, win->rkey, win->addr);
	ibv_wr_set_sge_list(qpx, 2, sg);
	qpx->wr_id = WRID(K_WRITE, st.writes++);
	ibv_wr_rdma_write(qpx, win->rkey, win->addr + WRITE_LEN);
	ibv_wr_set_inline_data(qpx, tail, WRITE_INL);
	memset(tail, 0xee, sizeof(tail));
	wr_complete("write");
	wait_for(&st.writes_done, st.writes, "RDMA Writes");
}

static void step_read(const struct win_msg *win)
{
	uint32_t i, n = WRITE_LEN + WRITE_INL;
	uint8_t *dst = mem + C_RBACK;

	memset(dst, 0x5a, n + 16);
	ibv_wr_start(qpx);
	qpx->wr_id = WRID(K_READ, st.reads++);
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_rdma_read(qpx, win->rkey, win->addr);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)dst, n);
	wr_complete("read");
	wait_for(&st.reads_done, st.reads, "RDMA Read");
	for (i = 0; i < n; i++)
		if (dst[i] != wpat(i))
			fail("read back: octet %u is 0x%02x, expected 0x%02x",
			     i, dst[i], wpat(i));
	for (; i < n + 16; i++)
		if (dst[i] != 0x5a)
			fail("read back: octet %u beyond the SGE was written", i);
}

static void step_done(void)
{
	struct done_body b = {
		.msgs = st.next_k, .written = WRITE_LEN + WRITE_INL,
	};
	uint32_t k = DONE_K, len = MSG_HDR + sizeof(b);
	struct verdict_msg v;
	uint8_t hdr[MSG_HDR];
	struct ibv_data_buf bufs[2] = {
		{ .addr = hdr, .length = sizeof(hdr) },
		{ .addr = &b, .length = sizeof(b) },
	};

	memcpy(hdr, &k, 4);
	memcpy(hdr + 4, &len, 4);
	ibv_wr_start(qpx);
	qpx->wr_id = WRID(K_SEND, st.sends++);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	wr_complete("done");
	wait_for(&st.sends_done, st.sends, "DONE");
	wait_for(&st.verdict_done, 1, "the server's verdict");
	memcpy(&v, mem + C_RX + C_RX_SLOT, sizeof(v));
	if (v.magic != VERDICT_MAGIC || v.recvs != b.msgs ||
	    v.written != b.written)
		fail("verdict: magic 0x%x recvs %u written %u, sent %u and %u",
		     v.magic, v.recvs, v.written, b.msgs, b.written);
}

static void client_run(void)
{
	struct hello h = { .magic = HELLO_MAGIC };
	struct rdma_conn_param cp = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
		.private_data = &h, .private_data_len = sizeof(h),
	};
	struct win_msg win;

	id = cm_route(cm_chan, opt.timeout, opt.addr, opt.port);
	/* Room for two batches: cons may trail the completions. */
	setup_verbs(id, 32, 4, IBV_ACCESS_LOCAL_WRITE);
	post_recv(WRID(K_WIN_RECV, 0), mem + C_RX, C_RX_SLOT);
	post_recv(WRID(K_VERDICT_RECV, 0), mem + C_RX + C_RX_SLOT, C_RX_SLOT);
	if (rdma_connect(id, &cp))
		fail_errno("rdma_connect");
	rdma_ack_cm_event(get_event(RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED"));

	wait_for(&st.win_done, 1, "the server's window");
	memcpy(&win, mem + C_RX, sizeof(win));
	if (win.len <= WRITE_LEN + WRITE_INL)
		fail("window of %u octets", win.len);
	print_dv("connected");

	step_empty();
	sge_sends("sge Sends", C_MSG, SGE_N, SGE_LEN);
	step_inline();
	step_list();
	step_abort();
	step_error();
	sge_sends("Sends after abort and error", C_MSG + 4096, AFTER_N,
		  SGE_LEN);
	step_write(&win);
	step_read(&win);
	step_done();
	/* Late strays of the aborted or failed batches fail here. */
	drain(0.1);
	print_dv("end");

	rdma_disconnect(id);
	if (!cm_wait_disconnected(cm_chan, opt.timeout))
		fail("no DISCONNECTED within %d s", opt.timeout);
	finish("sends=%" PRIu64 " writes=%" PRIu64 " reads=%" PRIu64 " aborted=%" PRIu64 " latched=%s",
	       st.sends, st.writes, st.reads, st.aborted,
	       st.latched == EINVAL ? "EINVAL" : strerror(st.latched));
}

/* ------------------------------------------------------------------ */
/* Server                                                             */

/* One inline, signaled Send of len octets. */
static void send_inline(uint64_t wr_id, void *p, size_t len, const char *what)
{
	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, p, len);
	wr_complete(what);
}

static void server_run(void)
{
	struct rdma_conn_param cp = {
		.responder_resources = 1, .initiator_depth = 1,
		.retry_count = 7, .rnr_retry_count = 7,
	};
	const struct hello *h;
	struct rdma_cm_event *ev;
	struct verdict_msg v;
	struct win_msg w;
	double deadline;
	uint32_t i;

	listen_id = cm_listen(cm_chan, opt.addr, opt.port);

	ev = get_event(RDMA_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST");
	id = ev->id;
	h = ev->param.conn.private_data;
	if (ev->param.conn.private_data_len < sizeof(*h) ||
	    h->magic != HELLO_MAGIC) {
		rdma_reject(id, NULL, 0);
		rdma_ack_cm_event(ev);
		fail("connection request refused: not a siw2_exverbs client");
	}
	setup_verbs(id, 8, RX_N, IBV_ACCESS_LOCAL_WRITE |
		    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	for (i = 0; i < RX_N; i++)
		post_recv(WRID(K_RECV, i), mem + i * RX_SLOT, RX_SLOT);
	if (rdma_accept(id, &cp))
		fail_errno("rdma_accept");
	rdma_ack_cm_event(ev);
	rdma_ack_cm_event(get_event(RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED"));
	print_dv("connected");

	w = (struct win_msg){
		.addr = (uintptr_t)(mem + S_WIN), .rkey = mr->rkey,
		.len = WIN_LEN,
	};
	send_inline(WRID(K_WIN_SEND, 0), &w, sizeof(w), "window Send");
	wait_for(&st.win_sent, 1, "the window Send");

	/* Until DONE: every arrival restarts the timeout. */
	deadline = now_s() + opt.timeout;
	while (!st.done) {
		if (poll_round())
			deadline = now_s() + opt.timeout;
		else if (now_s() > deadline)
			fail("timeout (%d s) waiting for DONE: %" PRIu64 " messages",
			     opt.timeout, st.recvs);
	}
	v = (struct verdict_msg){
		.magic = VERDICT_MAGIC, .recvs = st.expect_k,
		.written = st.written,
	};
	send_inline(WRID(K_VERDICT_SEND, 0), &v, sizeof(v), "verdict Send");
	wait_for(&st.verdict_sent, 1, "the verdict Send");
	print_dv("end");

	if (!cm_wait_disconnected(cm_chan, opt.timeout))
		fail("no DISCONNECTED from the client within %d s",
		     opt.timeout);
	rdma_disconnect(id);
	finish("recvs=%" PRIu64 " bytes=%" PRIu64 " written=%u", st.recvs,
	       st.bytes, st.written);
}

/* ------------------------------------------------------------------ */
/* Main                                                               */

static void usage(int rc)
{
	printf("usage: siw2_exverbs -s -a ADDR [-p PORT] [-t SECS]\n"
	       "       siw2_exverbs -a ADDR [-p PORT] [-t SECS]\n"
	       "  -s         server\n"
	       "  -a ADDR    address to listen on or connect to\n"
	       "  -p PORT    port (default 7520)\n"
	       "  -t SECS    timeout of every wait (default 30)\n");
	exit(rc);
}

static void parse_args(int argc, char **argv)
{
	long t = 30;
	char *end;
	int c;

	while ((c = getopt(argc, argv, "sa:p:t:h")) != -1) {
		if (c == 's') {
			opt.server = true;
		} else if (c == 'a') {
			opt.addr = optarg;
		} else if (c == 'p') {
			opt.port = optarg;
		} else if (c == 't') {
			errno = 0;
			t = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || t < 1 || t > 3600)
				usage(2);
		} else {
			usage(c == 'h' ? 0 : 2);
		}
	}
	if (!opt.addr || optind != argc)
		usage(2);
	opt.timeout = t;
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
	if (opt.server)
		server_run();
	else
		client_run();
	return 0;
}
