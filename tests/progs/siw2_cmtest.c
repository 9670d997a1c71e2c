// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_cmtest: librdmacm connection setup test for iWARP devices.
 *
 *   siw2_cmtest -s [-a ADDR] [-p PORT] [-c N] [options]   server
 *   siw2_cmtest -a ADDR [-p PORT] [-c N] [options]        client
 *
 * Every connection gets its own PD, CQ and RC QP (iWARP cannot connect
 * without a QP); they are destroyed after the disconnect.  The client runs
 * N sequential connect/disconnect cycles, the server handles N connection
 * requests and exits.  Private data, IRD/ORD, rejects, abortive closes and
 * expected failures are checked; "siw2_cmtest -h" lists the options.
 *
 * Output: the server prints LISTENING once rdma_listen() succeeded, then
 *   REQ pd=<len> initiator_depth=<v> responder_resources=<v>
 * per request; both print
 *   EST pd=<len> initiator_depth=<v> responder_resources=<v>
 * per established connection (the server its passive ESTABLISHED event),
 * the client "REJ status=<s> pd=<len>" per reject;
 * an expected failure prints "FAILED event=<E> status=<s> pd=<len>" or
 * "FAILED call=<function> errno=<NAME>", a DISCONNECTED event with a
 * non-zero status "DISC status=<s>".  -v adds every event, timestamped.
 * --print-addr adds "ADDR local=<a>:<port> remote=<a>:<port>" after each
 * EST line: the addresses rdma_cm reports for the connection.
 *
 * "--terminate-state" (client) walks the QP state table's TERMINATE row
 * once established (TERM-STATE ok), then waits for the DISCONNECTED its
 * last step, ERR, causes.
 * Teardown tests: "--hold SECS" keeps each client connection up until a
 * DISCONNECTED event (the peer closed) or SECS pass; the client prints
 * HOLDING when the connection is up, then "HOLD DISCONNECTED status=<s>
 * after=<ms>" or "HOLD expired after=<ms>" (and then disconnects as
 * usual).  "--removal-ok" makes RDMA_CM_EVENT_DEVICE_REMOVAL an accepted
 * outcome instead of a failure: the program prints "REMOVED <what>
 * after=<ms>", destroys what the device carried (QP, id, CQ, PD; the
 * listener) and ends with status 0: the client at once, the server once
 * neither its listener nor any accepted connection is left.
 * "--sends N" checks what a graceful close owes: the server posts N
 * receives before it accepts, the client posts N signaled 4 KiB sends and
 * calls rdma_disconnect() at once; after DISCONNECTED every send and
 * receive must have completed successfully, in order, each message holding
 * its pattern ("SENDS send|receive N ok"); --send-len sets the size.
 * "--sends-stuck FILE" (client) prints SENDS-WAIT and waits for FILE
 * before the sends (the script drops the server's traffic, then creates
 * it): the close must still end, the sends TCP could not take flushed.
 * Both print a progress line every 100 connections and a summary line
 * "cmtest: client|server N connections ok (...)".  Any failed expectation,
 * unexpected event or timeout prints a "cmtest: FAIL" line and exits 1.
 *
 * Private data as librdmacm reports it (rdma-core 44, Linux 6.12): for
 * iWARP the rdma_cm adds no header of its own (InfiniBand's CM does) and
 * pads nothing: the event's private_data_len is exactly what the peer's
 * rdma_connect(), rdma_accept() or rdma_reject() carried; an MPA v2
 * provider strips its 4-byte IRD/ORD block before reporting.  Seen with
 * Linux siw on both ends: CONNECT_REQUEST, ESTABLISHED and REJECTED show
 * 0, 1, 200 and 251 bytes as sent.  252..255 bytes break siw itself (its
 * MPA v2 length wraps at 256); tests/vm/cases/51-cm-siw-baseline.sh has
 * the details.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#define DEFAULT_PORT	7480
#define DEFAULT_TMO	10
#define RESOLVE_MS	2000
#define QP_DEPTH	16
#define SEND_LEN	4096	/* --sends: each message, unless --send-len */
#define PD_MAX		255	/* rdma_conn_param.private_data_len is u8 */
#define RD_DEFAULT	1	/* IRD/ORD when not given (as rping does) */

enum {
	OPT_REJECT = 256,
	OPT_EXPECT_REJECT,
	OPT_REJECT_PD,
	OPT_IRD,
	OPT_ORD,
	OPT_EXP_REQ_IRD,
	OPT_EXP_REQ_ORD,
	OPT_EXP_EST_IRD,
	OPT_EXP_EST_ORD,
	OPT_SERVER_DISC,
	OPT_ABORT,
	OPT_EXPECT_FAIL,
	OPT_RESOLVE_MS,
	OPT_HOLD,
	OPT_REMOVAL_OK,
	OPT_SRC_PORT,
	OPT_PRINT_ADDR,
	OPT_SENDS,
	OPT_SEND_LEN,
	OPT_SENDS_STUCK,
	OPT_TERM_STATE,
};

static struct {
	bool server;
	const char *addr;
	const char *port;
	int count;
	int pd_send;		/* -P: client private data length */
	int pd_expect;		/* -E: server expects, -1 = unchecked */
	int pd_reply;		/* -R: server accept/reject data length */
	int pd_expect_reply;	/* -e: client expects in ESTABLISHED */
	bool reject;
	bool expect_reject;
	int reject_pd;		/* -1 = unchecked */
	int ird;
	int ord;
	int exp_req_ird, exp_req_ord;
	int exp_est_ird, exp_est_ord;
	bool server_disconnects;
	bool abort;
	int timeout;
	int resolve_ms;
	const char *expect_fail;	/* --expect-fail's argument, or NULL */
	unsigned long fail_events;	/* bit per rdma_cm event */
	int fail_errnos[8];		/* synchronous failures */
	int n_fail_errnos;
	int hold;		/* --hold: seconds, 0 = off */
	bool removal_ok;
	int src_port;		/* --src-port: client's rdma_cm port, 0 = any */
	bool print_addr;
	int sends;		/* --sends: messages before the close, 0 = off */
	int send_len;		/* --send-len: octets per message */
	const char *sends_stuck; /* --sends-stuck: the file that starts the sends */
	bool term_state;	/* --terminate-state */
	bool quiet;
	bool verbose;
} opt = {
	.port = NULL,
	.count = 1,
	.pd_expect = -1,
	.pd_expect_reply = -1,
	.reject_pd = -1,
	.ird = RD_DEFAULT,
	.ord = RD_DEFAULT,
	.exp_req_ird = -1, .exp_req_ord = -1,
	.exp_est_ird = -1, .exp_est_ord = -1,
	.timeout = DEFAULT_TMO,
	.resolve_ms = RESOLVE_MS,
	.send_len = SEND_LEN,
};

static const char *role;
static struct rdma_event_channel *chan;
static double t_start;

/* ------------------------------------------------------------------ */
/* Reporting                                                          */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						      noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("cmtest: FAIL: %s: ", role);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static void fail_errno(const char *what)
{
	fail("%s: %s (errno %d)", what, strerror(errno), errno);
}

static double now_s(void);

/* -v: "<role> <ms since start>: ..." */
static void vlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!opt.verbose)
		return;
	printf("%s %.1f: ", role, (now_s() - t_start) * 1000);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "RDMA_CM_EVENT_REJECTED" -> "REJECTED" */
static const char *ev_name(enum rdma_cm_event_type e)
{
	const char *s = rdma_event_str(e);

	return strncmp(s, "RDMA_CM_EVENT_", 14) ? s : s + 14;
}

/* Accepts "REJECTED" or "RDMA_CM_EVENT_REJECTED", any case. */
static int ev_parse(const char *name)
{
	int e;

	if (!strncasecmp(name, "RDMA_CM_EVENT_", 14))
		name += 14;
	for (e = RDMA_CM_EVENT_ADDR_RESOLVED; e <= RDMA_CM_EVENT_TIMEWAIT_EXIT;
	     e++)
		if (!strcasecmp(name, ev_name(e)))
			return e;
	return -1;
}

/* ------------------------------------------------------------------ */
/* Private data: byte i of an N-byte block is (i * 7 + N) & 0xff.      */

static void pd_fill(uint8_t *buf, int len)
{
	int i;

	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + len);
}

/* Check one event's private data against an expected length (-1: skip). */
static void pd_check(const char *where, const void *data, int len, int expect)
{
	const uint8_t *p = data;
	int i;

	if (expect < 0)
		return;
	if (len != expect)
		fail("%s: private data length %d, expected %d", where, len,
		     expect);
	if (len && !p)
		fail("%s: private data length %d but no data", where, len);
	for (i = 0; i < len; i++)
		if (p[i] != (uint8_t)(i * 7 + expect))
			fail("%s: private data byte %d is 0x%02x, expected 0x%02x",
			     where, i, p[i], (uint8_t)(i * 7 + expect));
}

static void check_rd(const char *where, const char *what, int got, int expect)
{
	if (expect >= 0 && got != expect)
		fail("%s: %s %d, expected %d", where, what, got, expect);
}

/* ------------------------------------------------------------------ */
/* Events                                                             */

/*
 * Next event on the channel, waiting at most opt.timeout seconds (poll()
 * on the non-blocking channel fd).  "what" names the awaited event for
 * the timeout message.  Device removal always ends the test.
 */
static struct rdma_cm_event *get_event(const char *what)
{
	struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };
	double deadline = now_s() + opt.timeout;
	struct rdma_cm_event *ev;
	int ms, n;

	for (;;) {
		if (!rdma_get_cm_event(chan, &ev))
			break;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			fail_errno("rdma_get_cm_event");
		ms = (int)((deadline - now_s()) * 1000);
		if (ms <= 0)
			fail("timeout (%d s) waiting for %s", opt.timeout, what);
		n = poll(&pfd, 1, ms);
		if (n < 0 && errno != EINTR)
			fail_errno("poll");
	}
	vlog("event %s status %d id %p", ev_name(ev->event), ev->status,
	     (void *)ev->id);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL && !opt.removal_ok)
		fail("RDMA_CM_EVENT_DEVICE_REMOVAL (status %d) while waiting for %s: device went away",
		     ev->status, what);
	return ev;
}

/*
 * Like get_event(), but a timeout returns NULL instead of failing: the
 * wait of --hold.  At most @secs seconds.
 */
static struct rdma_cm_event *get_event_within(double secs)
{
	struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };
	double deadline = now_s() + secs;
	struct rdma_cm_event *ev;
	int ms, n;

	for (;;) {
		if (!rdma_get_cm_event(chan, &ev))
			break;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			fail_errno("rdma_get_cm_event");
		ms = (int)((deadline - now_s()) * 1000);
		if (ms <= 0)
			return NULL;
		n = poll(&pfd, 1, ms);
		if (n < 0 && errno != EINTR)
			fail_errno("poll");
	}
	vlog("event %s status %d id %p", ev_name(ev->event), ev->status,
	     (void *)ev->id);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL && !opt.removal_ok)
		fail("RDMA_CM_EVENT_DEVICE_REMOVAL (status %d) while holding a connection: device went away",
		     ev->status);
	return ev;
}

static void unexpected(struct rdma_cm_event *ev, const char *what)
{
	fail("unexpected RDMA_CM_EVENT_%s (status %d) while waiting for %s",
	     ev_name(ev->event), ev->status, what);
}

/* ------------------------------------------------------------------ */
/* Per-connection verbs objects                                       */

struct conn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;	/* --sends: opt.sends * opt.send_len */
	uint8_t *buf;
	int n;			/* the connection's number, 1 on */
	bool established;
	bool disconnect_sent;
};

static void conn_create_qp(struct conn *c)
{
	struct ibv_qp_init_attr a;

	c->pd = ibv_alloc_pd(c->id->verbs);
	if (!c->pd)
		fail_errno("ibv_alloc_pd");
	c->cq = ibv_create_cq(c->id->verbs, 2 * QP_DEPTH, NULL, NULL, 0);
	if (!c->cq)
		fail_errno("ibv_create_cq");
	memset(&a, 0, sizeof(a));
	a.send_cq = c->cq;
	a.recv_cq = c->cq;
	a.qp_type = IBV_QPT_RC;
	a.cap.max_send_wr = QP_DEPTH;
	a.cap.max_recv_wr = QP_DEPTH;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &a))
		fail_errno("rdma_create_qp");
	if (!opt.sends)
		return;
	c->buf = calloc(opt.sends, (size_t)opt.send_len);
	if (!c->buf)
		fail("out of memory");
	c->mr = ibv_reg_mr(c->pd, c->buf, (size_t)opt.sends * opt.send_len,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		fail_errno("ibv_reg_mr");
}

/* --sends: message @i of connection @n, byte @k. */
static uint8_t msg_byte(int n, int i, int k)
{
	return (uint8_t)(n * 131 + i * 31 + k * 7 + 1);
}

/*
 * --sends: post one work request per message of c->buf, receives on the
 * server, sends (each signaled) on the client, which fills them first.
 */
static void conn_post(struct conn *c, bool send)
{
	struct ibv_send_wr swr, *sbad;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge;
	int i, k, rc;

	for (i = 0; i < opt.sends; i++) {
		sge.addr = (uintptr_t)(c->buf + (size_t)i * opt.send_len);
		sge.length = opt.send_len;
		sge.lkey = c->mr->lkey;
		if (!send) {
			memset(&rwr, 0, sizeof(rwr));
			rwr.wr_id = i;
			rwr.sg_list = &sge;
			rwr.num_sge = 1;
			rc = ibv_post_recv(c->id->qp, &rwr, &rbad);
			if (rc)
				fail("ibv_post_recv %d: %s", i, strerror(rc));
			continue;
		}
		for (k = 0; k < opt.send_len; k++)
			c->buf[(size_t)i * opt.send_len + k] = msg_byte(c->n, i, k);
		memset(&swr, 0, sizeof(swr));
		swr.wr_id = i;
		swr.sg_list = &sge;
		swr.num_sge = 1;
		swr.opcode = IBV_WR_SEND;
		swr.send_flags = IBV_SEND_SIGNALED;
		rc = ibv_post_send(c->id->qp, &swr, &sbad);
		if (rc)
			fail("ibv_post_send %d: %s", i, strerror(rc));
	}
}

/*
 * --sends: completion @got + 1 of opt.sends (of @what) into @wc; the run
 * fails if none comes within opt.timeout seconds of @t0 (SIW2-DEC-3).
 */
static void conn_next_wc(struct conn *c, double t0, int got, const char *what,
			 struct ibv_wc *wc)
{
	int rc;

	while (!(rc = ibv_poll_cq(c->cq, 1, wc))) {
		if (now_s() - t0 > opt.timeout)
			fail("connection %d: %d of %d %s completions after %d s (SIW2-DEC-3)",
			     c->n, got, opt.sends, what, opt.timeout);
		usleep(1000);
	}
	if (rc < 0)
		fail("ibv_poll_cq failed");
}

/*
 * --sends, after DISCONNECTED: every message posted before the close went
 * (RFC 5040 6.2, a graceful close, SIW2-DEC-3): each of opt.sends
 * completions succeeded, in order, and on the server each message holds
 * what the client sent.  At most opt.timeout seconds.
 */
static void conn_check_sends(struct conn *c, bool server)
{
	const char *what = server ? "receive" : "send";
	double t0 = now_s();
	struct ibv_wc wc;
	int got = 0, k;

	while (got < opt.sends) {
		conn_next_wc(c, t0, got, what, &wc);
		if (wc.status != IBV_WC_SUCCESS)
			fail("connection %d: %s %d of %d completed with %s after the close: a graceful close lost it (SIW2-DEC-3)",
			     c->n, what, got + 1, opt.sends,
			     ibv_wc_status_str(wc.status));
		if (wc.wr_id != (uint64_t)got)
			fail("connection %d: %s completion %d is wr_id %llu",
			     c->n, what, got, (unsigned long long)wc.wr_id);
		if (server && wc.byte_len != (uint32_t)opt.send_len)
			fail("connection %d: message %d: %u bytes, want %d",
			     c->n, got, wc.byte_len, opt.send_len);
		for (k = 0; server && k < opt.send_len; k++)
			if (c->buf[(size_t)got * opt.send_len + k] != msg_byte(c->n, got, k))
				fail("connection %d: message %d: byte %d is 0x%02x, want 0x%02x",
				     c->n, got, k, c->buf[(size_t)got * opt.send_len + k],
				     msg_byte(c->n, got, k));
		got++;
	}
	if (!opt.quiet)
		printf("SENDS %s %d ok\n", what, got);
}

/*
 * --sends-stuck, after DISCONNECTED: the peer took nothing (its traffic
 * dropped), so the graceful close could not send everything and ended
 * abortively after mpa_timeout_ms (SIW2-DEC-3): every send completed, the
 * first ones maybe successfully (handed to TCP), at least the last one
 * flushed, none with another status.
 */
static void conn_check_stuck(struct conn *c)
{
	double t0 = now_s();
	struct ibv_wc wc;
	int got = 0, ok = 0, flushed = 0;

	while (got < opt.sends) {
		conn_next_wc(c, t0, got, "send", &wc);
		if (wc.status == IBV_WC_SUCCESS && !flushed)
			ok++;
		else if (wc.status == IBV_WC_WR_FLUSH_ERR)
			flushed++;
		else
			fail("connection %d: send %d completed with %s (SIW2-DEC-3: success, then flushed)",
			     c->n, got + 1, ibv_wc_status_str(wc.status));
		got++;
	}
	if (!flushed)
		fail("connection %d: all %d sends succeeded though the peer took nothing (SIW2-DEC-3)",
		     c->n, got);
	printf("SENDS send %d ok, %d flushed\n", ok, flushed);
}

/* QP, then the id (all its events acked), then MR, CQ and PD. */
static void conn_destroy(struct conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->id && rdma_destroy_id(c->id))
		fail_errno("rdma_destroy_id");
	if (c->mr && ibv_dereg_mr(c->mr))
		fail("ibv_dereg_mr failed");
	free(c->buf);
	if (c->cq && ibv_destroy_cq(c->cq))
		fail("ibv_destroy_cq failed");
	if (c->pd && ibv_dealloc_pd(c->pd))
		fail("ibv_dealloc_pd failed");
	memset(c, 0, sizeof(*c));
}

/*
 * After DEVICE_REMOVAL: the same order, but failures are reported, not
 * fatal (the device is gone; libibverbs treats a disassociated context's
 * destroy as done).
 */
static void conn_destroy_removed(struct conn *c)
{
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->id && rdma_destroy_id(c->id))
		printf("cleanup: rdma_destroy_id: %s\n", strerror(errno));
	if (c->mr && ibv_dereg_mr(c->mr))
		printf("cleanup: ibv_dereg_mr failed\n");
	free(c->buf);
	if (c->cq && ibv_destroy_cq(c->cq))
		printf("cleanup: ibv_destroy_cq failed\n");
	if (c->pd && ibv_dealloc_pd(c->pd))
		printf("cleanup: ibv_dealloc_pd failed\n");
	memset(c, 0, sizeof(*c));
}

static void conn_param_init(struct rdma_conn_param *p, const uint8_t *pd,
			    int pd_len)
{
	memset(p, 0, sizeof(*p));
	p->private_data = pd_len ? pd : NULL;
	p->private_data_len = (uint8_t)pd_len;
	p->responder_resources = (uint8_t)opt.ird;
	p->initiator_depth = (uint8_t)opt.ord;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static void progress(int done, double t0)
{
	if (opt.count >= 100 && done % 100 == 0 && done != opt.count)
		printf("cmtest: %s %d/%d connections (%.2f s)\n", role, done,
		       opt.count, now_s() - t0);
}

/* ------------------------------------------------------------------ */
/* Address                                                            */

static struct addrinfo *resolve(const char *addr, bool passive)
{
	struct addrinfo hints, *res;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
			 (passive ? AI_PASSIVE : 0);
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(addr, opt.port, &hints, &res);
	if (rc)
		fail("address '%s' port '%s': %s", addr ? addr : "(any)",
		     opt.port, gai_strerror(rc));
	return res;
}

static void addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	const void *a = sa->sa_family == AF_INET6 ?
		(const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)sa)->sin_addr;

	inet_ntop(sa->sa_family, a, host, sizeof(host));
	snprintf(buf, len, "%s:%u", host,
		 ntohs(sa->sa_family == AF_INET6 ?
		       ((const struct sockaddr_in6 *)sa)->sin6_port :
		       ((const struct sockaddr_in *)sa)->sin_port));
}

static void print_addr(struct rdma_cm_id *id)
{
	char l[INET6_ADDRSTRLEN + 8], r[INET6_ADDRSTRLEN + 8];

	if (!opt.print_addr)
		return;
	addr_str(rdma_get_local_addr(id), l, sizeof(l));
	addr_str(rdma_get_peer_addr(id), r, sizeof(r));
	printf("ADDR local=%s remote=%s\n", l, r);
}

/* ------------------------------------------------------------------ */
/* Server                                                             */

static int srv_live;
static int srv_removed;

static void srv_request(struct rdma_cm_event *ev, int n)
{
	struct rdma_conn_param *rp = &ev->param.conn;
	uint8_t pd[PD_MAX];
	struct rdma_conn_param p;
	struct conn *c;
	char where[48];

	snprintf(where, sizeof(where), "request %d", n);
	if (!opt.quiet)
		printf("REQ pd=%u initiator_depth=%u responder_resources=%u\n",
		       rp->private_data_len, rp->initiator_depth,
		       rp->responder_resources);
	pd_check(where, rp->private_data, rp->private_data_len,
		 opt.pd_expect);
	check_rd(where, "responder_resources (IRD)", rp->responder_resources,
		 opt.exp_req_ird);
	check_rd(where, "initiator_depth (ORD)", rp->initiator_depth,
		 opt.exp_req_ord);
	pd_fill(pd, opt.pd_reply);

	if (opt.reject) {
		if (rdma_reject(ev->id, opt.pd_reply ? pd : NULL,
				(uint8_t)opt.pd_reply))
			fail_errno("rdma_reject");
		/* The new id has no further events: ack, then destroy. */
		c = calloc(1, sizeof(*c));
		if (!c)
			fail("out of memory");
		c->id = ev->id;
		rdma_ack_cm_event(ev);
		conn_destroy(c);
		free(c);
		return;
	}

	c = calloc(1, sizeof(*c));
	if (!c)
		fail("out of memory");
	c->id = ev->id;
	c->id->context = c;
	c->n = n;
	conn_create_qp(c);
	if (opt.sends)
		conn_post(c, false);
	conn_param_init(&p, pd, opt.pd_reply);
	if (rdma_accept(c->id, &p))
		fail_errno("rdma_accept");
	srv_live++;
	rdma_ack_cm_event(ev);
}

static int run_server(void)
{
	struct rdma_cm_id *lid;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	struct conn *c;
	int requests = 0, done = 0;
	double t0 = 0;
	char where[48];

	ai = resolve(opt.addr ? opt.addr : "0.0.0.0", true);
	if (rdma_create_id(chan, &lid, NULL, RDMA_PS_TCP))
		fail_errno("rdma_create_id");
	if (rdma_bind_addr(lid, ai->ai_addr))
		fail_errno("rdma_bind_addr");
	freeaddrinfo(ai);
	if (rdma_listen(lid, 16))
		fail_errno("rdma_listen");
	printf("LISTENING\n");
	fflush(stdout);

	/* lid is NULL once its device went away (--removal-ok). */
	while (done < opt.count && (lid || srv_live)) {
		ev = get_event(requests < opt.count && !srv_live ?
			       "CONNECT_REQUEST" :
			       "ESTABLISHED/DISCONNECTED/CONNECT_REQUEST");
		c = ev->id && ev->id != lid ? ev->id->context : NULL;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!requests)
				t0 = now_s();
			if (requests++ == opt.count)
				unexpected(ev, "no more requests");
			srv_request(ev, requests);
			if (opt.reject) {
				done++;
				progress(done, t0);
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (!c || c->established)
				unexpected(ev, "DISCONNECTED");
			c->established = true;
			if (!opt.quiet)
				printf("EST pd=%u initiator_depth=%u responder_resources=%u\n",
				       ev->param.conn.private_data_len,
				       ev->param.conn.initiator_depth,
				       ev->param.conn.responder_resources);
			print_addr(ev->id);
			snprintf(where, sizeof(where), "passive connection %d",
				 requests);
			check_rd(where, "responder_resources (IRD)",
				 ev->param.conn.responder_resources,
				 opt.exp_est_ird);
			check_rd(where, "initiator_depth (ORD)",
				 ev->param.conn.initiator_depth,
				 opt.exp_est_ord);
			rdma_ack_cm_event(ev);
			if (opt.server_disconnects) {
				c->disconnect_sent = true;
				if (rdma_disconnect(c->id))
					fail_errno("rdma_disconnect");
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			if (!c || !c->established)
				unexpected(ev, "ESTABLISHED");
			if (ev->status)
				printf("DISC status=%d\n", ev->status);
			rdma_ack_cm_event(ev);
			/* Completes the close; an error here is harmless. */
			if (!c->disconnect_sent)
				rdma_disconnect(c->id);
			if (opt.sends)
				conn_check_sends(c, true);
			conn_destroy(c);
			free(c);
			srv_live--;
			done++;
			progress(done, t0);
			break;
		case RDMA_CM_EVENT_DEVICE_REMOVAL:
			/* Only with --removal-ok (get_event). */
			if (ev->id == lid) {
				printf("REMOVED listener after=%.0f\n",
				       (now_s() - t_start) * 1000);
				rdma_ack_cm_event(ev);
				if (rdma_destroy_id(lid))
					printf("cleanup: rdma_destroy_id (listener): %s\n",
					       strerror(errno));
				lid = NULL;
				break;
			}
			if (!c)
				unexpected(ev, "ESTABLISHED/DISCONNECTED");
			printf("REMOVED connection %s after=%.0f\n",
			       c->established ? "established" : "accepting",
			       (now_s() - t_start) * 1000);
			rdma_ack_cm_event(ev);
			conn_destroy_removed(c);
			free(c);
			srv_live--;
			srv_removed++;
			done++;
			break;
		default:
			unexpected(ev, "CONNECT_REQUEST/ESTABLISHED/DISCONNECTED");
		}
	}
	if (lid && rdma_destroy_id(lid))
		fail_errno("rdma_destroy_id (listener)");
	if (!lid || srv_removed) {
		printf("cmtest: server %d of %d connections done, %d ended by device removal%s (%.3f s)\n",
		       done, opt.count, srv_removed,
		       lid ? "" : ", listener removed",
		       t0 ? now_s() - t0 : 0.0);
		return 0;
	}
	printf("cmtest: server %d connections ok (%s, %.3f s)\n", opt.count,
	       opt.reject ? "all rejected" : "accepted and disconnected",
	       t0 ? now_s() - t0 : 0.0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Client                                                             */

/*
 * The event that ended a connection attempt early: fine (return true) if
 * it is the one --expect-fail names, else a failure.
 */
static bool client_failed_as_expected(struct rdma_cm_event *ev,
				      const char *what)
{
	if (!(opt.fail_events & (1UL << ev->event)))
		unexpected(ev, what);
	if (!opt.quiet)
		printf("FAILED event=%s status=%d pd=%u\n", ev_name(ev->event),
		       ev->status, ev->param.conn.private_data_len);
	return true;
}

/*
 * A librdmacm call failed synchronously (Linux siw's rdma_connect()
 * connects the TCP socket inside the call: no listener gives
 * ECONNREFUSED there, not an event).  Fine if --expect-fail lists the
 * errno's name, else a failure.
 */
static void client_call_failed(const char *call)
{
	int e = errno, i;

	for (i = 0; i < opt.n_fail_errnos; i++)
		if (opt.fail_errnos[i] == e)
			break;
	if (i == opt.n_fail_errnos)
		fail_errno(call);
	if (!opt.quiet)
		printf("FAILED call=%s errno=%s\n", call, strerrorname_np(e));
}

/*
 * DEVICE_REMOVAL reached the client (--removal-ok): clean up and end.
 */
static void client_removed(struct conn *c, struct rdma_cm_event *ev,
			   const char *what)
{
	printf("REMOVED %s after=%.0f\n", what, (now_s() - t_start) * 1000);
	rdma_ack_cm_event(ev);
	conn_destroy_removed(c);
	rdma_destroy_event_channel(chan);
	printf("cmtest: client ended by device removal\n");
	exit(0);
}

/* Wait for a step's event; false if it was the expected failure. */
static bool client_step(struct conn *c, enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev = get_event(ev_name(want));

	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		client_removed(c, ev, "connecting");
	if (ev->id != c->id)
		unexpected(ev, ev_name(want));
	if (ev->event != want) {
		client_failed_as_expected(ev, ev_name(want));
		rdma_ack_cm_event(ev);
		return false;
	}
	rdma_ack_cm_event(ev);
	return true;
}

/*
 * --hold: stay connected until the peer disconnects or opt.hold seconds
 * pass.  True if DISCONNECTED arrived (already acked), false if the time
 * ran out (the caller then closes as usual).
 */
static bool client_hold(struct conn *c)
{
	double t0 = now_s();
	struct rdma_cm_event *ev;

	printf("HOLDING\n");
	fflush(stdout);
	ev = get_event_within(opt.hold);
	if (!ev) {
		printf("HOLD expired after=%.0f\n", (now_s() - t0) * 1000);
		return false;
	}
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		client_removed(c, ev, "established");
	if (ev->id != c->id || ev->event != RDMA_CM_EVENT_DISCONNECTED)
		unexpected(ev, "DISCONNECTED (holding)");
	printf("HOLD DISCONNECTED status=%d after=%.0f\n", ev->status,
	       (now_s() - t0) * 1000);
	rdma_ack_cm_event(ev);
	return true;
}

static const char *qp_state_name(enum ibv_qp_state st)
{
	static const char *const n[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR", [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD", [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	return (unsigned int)st < sizeof(n) / sizeof(n[0]) && n[st] ? n[st] : "?";
}

static enum ibv_qp_state qp_state_of(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		fail_errno("ibv_query_qp");
	return a.qp_state;
}

/*
 * --terminate-state: a connected QP moved to SQE (siw2's TERMINATE) takes
 * only the transitions of Documentation/design.md's TERMINATE row: SQD
 * and SQE succeed and change nothing, ERR flushes and ends the
 * connection, the others fail with EINVAL and change nothing.
 */
static void client_terminate_state(struct conn *c)
{
	static const struct {
		enum ibv_qp_state to;
		int err;
		enum ibv_qp_state after;
	} row[] = {
		{ IBV_QPS_SQE, 0, IBV_QPS_SQE },
		{ IBV_QPS_RESET, EINVAL, IBV_QPS_SQE },
		{ IBV_QPS_INIT, EINVAL, IBV_QPS_SQE },
		{ IBV_QPS_RTR, EINVAL, IBV_QPS_SQE },
		{ IBV_QPS_RTS, EINVAL, IBV_QPS_SQE },
		{ IBV_QPS_SQD, 0, IBV_QPS_SQE },
		{ IBV_QPS_SQE, 0, IBV_QPS_SQE },
		{ IBV_QPS_ERR, 0, IBV_QPS_ERR },
	};
	struct ibv_qp_attr a = {};
	enum ibv_qp_state st;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
		a.qp_state = row[i].to;
		rc = ibv_modify_qp(c->id->qp, &a, IBV_QP_STATE);
		st = qp_state_of(c->id->qp);
		if (rc != row[i].err || st != row[i].after)
			fail("terminate-state step %zu: to %s returned %d (%s), state %s; expected %d, state %s",
			     i, qp_state_name(row[i].to), rc, strerror(rc),
			     qp_state_name(st), row[i].err,
			     qp_state_name(row[i].after));
	}
	printf("TERM-STATE ok\n");
}

/* --src-port: the wildcard address of dst's family with that port. */
static struct sockaddr *src_addr(const struct addrinfo *dst,
				 struct sockaddr_storage *ss)
{
	if (!opt.src_port)
		return NULL;
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = dst->ai_family;
	if (dst->ai_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(opt.src_port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(opt.src_port);
	return (struct sockaddr *)ss;
}

/* One cycle; false if it ended with the expected failure event. */
static bool client_cycle(struct addrinfo *dst, int n)
{
	struct rdma_conn_param p;
	struct rdma_cm_event *ev;
	struct sockaddr_storage src;
	uint8_t pd[PD_MAX];
	struct conn c = { .n = n };
	bool ok = true;
	char where[48];
	int tmo = opt.resolve_ms;

	snprintf(where, sizeof(where), "connection %d", n);
	if (rdma_create_id(chan, &c.id, &c, RDMA_PS_TCP))
		fail_errno("rdma_create_id");
	if (rdma_resolve_addr(c.id, src_addr(dst, &src), dst->ai_addr, tmo)) {
		client_call_failed("rdma_resolve_addr");
		ok = false;
		goto out;
	}
	if (!client_step(&c, RDMA_CM_EVENT_ADDR_RESOLVED)) {
		ok = false;
		goto out;
	}
	if (rdma_resolve_route(c.id, tmo)) {
		client_call_failed("rdma_resolve_route");
		ok = false;
		goto out;
	}
	if (!client_step(&c, RDMA_CM_EVENT_ROUTE_RESOLVED)) {
		ok = false;
		goto out;
	}
	conn_create_qp(&c);
	pd_fill(pd, opt.pd_send);
	conn_param_init(&p, pd, opt.pd_send);
	if (rdma_connect(c.id, &p)) {
		client_call_failed("rdma_connect");
		ok = false;
		goto out;
	}

	ev = get_event("ESTABLISHED");
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		client_removed(&c, ev, "connecting");
	if (ev->id != c.id)
		unexpected(ev, "ESTABLISHED");
	if (ev->event == RDMA_CM_EVENT_REJECTED && opt.expect_reject) {
		if (!opt.quiet)
			printf("REJ status=%d pd=%u\n", ev->status,
			       ev->param.conn.private_data_len);
		pd_check(where, ev->param.conn.private_data,
			 ev->param.conn.private_data_len, opt.reject_pd);
		rdma_ack_cm_event(ev);
		ok = false;
		goto out;
	}
	if (ev->event != RDMA_CM_EVENT_ESTABLISHED) {
		client_failed_as_expected(ev, "ESTABLISHED");
		rdma_ack_cm_event(ev);
		ok = false;
		goto out;
	}
	if (opt.expect_reject || opt.expect_fail)
		fail("%s: established, expected %s", where,
		     opt.expect_reject ? "REJECTED" : opt.expect_fail);
	if (!opt.quiet)
		printf("EST pd=%u initiator_depth=%u responder_resources=%u\n",
		       ev->param.conn.private_data_len,
		       ev->param.conn.initiator_depth,
		       ev->param.conn.responder_resources);
	print_addr(ev->id);
	pd_check(where, ev->param.conn.private_data,
		 ev->param.conn.private_data_len, opt.pd_expect_reply);
	check_rd(where, "responder_resources (IRD)",
		 ev->param.conn.responder_resources, opt.exp_est_ird);
	check_rd(where, "initiator_depth (ORD)",
		 ev->param.conn.initiator_depth, opt.exp_est_ord);
	rdma_ack_cm_event(ev);

	if (opt.hold && client_hold(&c))
		goto disconnected;
	if (opt.term_state) {
		/* Error ends the connection: its DISCONNECTED comes unasked. */
		client_terminate_state(&c);
		ev = get_event("DISCONNECTED");
		if (ev->id != c.id || ev->event != RDMA_CM_EVENT_DISCONNECTED)
			unexpected(ev, "DISCONNECTED (after ERR)");
		rdma_ack_cm_event(ev);
		goto disconnected;
	}
	if (opt.abort)
		goto out;	/* no rdma_disconnect: destroying aborts */
	/* --sends: the close right behind them, not after their completions. */
	if (opt.sends_stuck) {
		/* The script cuts the peer off, then creates the file. */
		double t0 = now_s();

		printf("SENDS-WAIT\n");
		fflush(stdout);
		while (access(opt.sends_stuck, F_OK)) {
			if (now_s() - t0 > opt.timeout)
				fail("%s did not appear within %d s", opt.sends_stuck,
				     opt.timeout);
			usleep(10000);
		}
	}
	if (opt.sends)
		conn_post(&c, true);
	if (!opt.server_disconnects && rdma_disconnect(c.id))
		fail_errno("rdma_disconnect");
	ev = get_event("DISCONNECTED");
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		client_removed(&c, ev, "established");
	if (ev->id != c.id || ev->event != RDMA_CM_EVENT_DISCONNECTED)
		unexpected(ev, "DISCONNECTED");
	if (ev->status)
		printf("DISC status=%d\n", ev->status);
	rdma_ack_cm_event(ev);
	if (opt.server_disconnects)
		rdma_disconnect(c.id);	/* completes the close; may fail */
	if (opt.sends_stuck)
		conn_check_stuck(&c);
	else if (opt.sends)
		conn_check_sends(&c, false);
	goto out;
disconnected:
	rdma_disconnect(c.id);	/* the peer closed while we held */
out:
	conn_destroy(&c);
	return ok;
}

static int run_client(void)
{
	struct addrinfo *dst;
	int i, failed = 0;
	double t0 = now_s();

	dst = resolve(opt.addr, false);
	for (i = 1; i <= opt.count; i++) {
		if (!client_cycle(dst, i))
			failed++;
		progress(i, t0);
	}
	freeaddrinfo(dst);
	if (opt.expect_reject)
		printf("cmtest: client %d connections ok (all rejected as expected, %.3f s)\n",
		       opt.count, now_s() - t0);
	else if (opt.expect_fail)
		printf("cmtest: client %d connections ok (all ended with %s as expected, %.3f s)\n",
		       opt.count, opt.expect_fail, now_s() - t0);
	else
		printf("cmtest: client %d connections ok (%s, %.3f s)\n",
		       opt.count, opt.hold ? "held" : opt.abort ? "aborted" :
		       opt.server_disconnects ? "server disconnected" :
		       "disconnected", now_s() - t0);
	/* client_cycle() already failed on any outcome but the expected one */
	if (opt.expect_reject || opt.expect_fail)
		return failed == opt.count ? 0 : 1;
	return failed ? 1 : 0;
}

/* ------------------------------------------------------------------ */
/* Options                                                            */

static void usage(const char *prog, int status)
{
	fprintf(status ? stderr : stdout,
		"usage: %s [-s] [-a ADDR] [-p PORT] [-c N] [options]\n"
		"  -s, --server            server (default: client)\n"
		"  -a, --addr ADDR         numeric IPv4/IPv6 address: client: the server's;\n"
		"                          server: listen address (default wildcard 0.0.0.0;\n"
		"                          0.0.0.0 and :: are wildcards)\n"
		"  -p, --port PORT         TCP port (default %d)\n"
		"  -c, --count N           connections (server: handle N requests, then exit;\n"
		"                          client: N connect/disconnect cycles; default 1)\n"
		"  -t, --timeout SECS      limit of every wait for an event (default %d)\n"
		"  -P, --pd-send N         client: send N bytes of private data\n"
		"  -E, --pd-expect N       server: expect exactly N bytes of pattern in\n"
		"                          CONNECT_REQUEST (default unchecked)\n"
		"  -R, --pd-reply M        server: accept (or reject) with M bytes\n"
		"  -e, --pd-expect-reply M client: expect M bytes of pattern in ESTABLISHED\n"
		"      --reject            server: reject every request (with -R bytes)\n"
		"      --expect-reject     client: expect RDMA_CM_EVENT_REJECTED\n"
		"      --reject-pd M       client: expect M bytes of pattern in REJECTED\n"
		"                          (-1, the default: unchecked)\n"
		"      --ird X             conn_param.responder_resources (default %d;\n"
		"                          255 = librdmacm's default)\n"
		"      --ord Y             conn_param.initiator_depth (default %d; 255 idem)\n"
		"      --expect-req-ird V  server: request's responder_resources must be V\n"
		"      --expect-req-ord V  server: request's initiator_depth must be V\n"
		"      --expect-est-ird V  ESTABLISHED responder_resources must be V (the\n"
		"                          server checks its passive ESTABLISHED)\n"
		"      --expect-est-ord V  ESTABLISHED initiator_depth must be V (idem)\n"
		"      --server-disconnects  the server calls rdma_disconnect first\n"
		"      --abort             client: destroy QP and id without rdma_disconnect\n"
		"      --expect-fail LIST  client: every attempt must end with one of LIST,\n"
		"                          comma-separated rdma_cm event names (REJECTED,\n"
		"                          UNREACHABLE, CONNECT_ERROR, ADDR_ERROR, ...) or\n"
		"                          errno names of a failing rdma_resolve_addr/\n"
		"                          rdma_resolve_route/rdma_connect (ECONNREFUSED, ...)\n"
		"      --resolve-ms MS     client: rdma_resolve_addr/route timeout (default %d)\n"
		"      --hold SECS         client: once established, wait up to SECS for the\n"
		"                          peer's disconnect (HOLD DISCONNECTED / HOLD expired),\n"
		"                          then close as usual\n"
		"      --removal-ok        DEVICE_REMOVAL ends the program with status 0\n"
		"                          after cleaning up (REMOVED lines) instead of failing\n"
		"      --sends N           per connection: the server posts N receives, the\n"
		"                          client N 4 KiB sends and closes right behind them;\n"
		"                          each completion must succeed, each message arrive\n"
		"                          intact (SENDS receive|send N ok)\n"
		"      --send-len N        octets per --sends message (4096)\n"
		"      --sends-stuck FILE  client: print SENDS-WAIT, wait for FILE (the script\n"
		"                          cuts the server off, then creates it), then the sends\n"
		"                          and the close: it must end, the last sends flushed\n"
		"                          (SENDS send K ok, F flushed)\n"
		"      --terminate-state   client: once established, the QP to SQE\n"
		"                          (Terminate) and every transition out of it, as\n"
		"                          Documentation/design.md's table has them; ERR\n"
		"                          last, which ends the connection (TERM-STATE ok)\n"
		"      --src-port P        client: bind each connection to rdma_cm port P\n"
		"      --print-addr        print an ADDR line (rdma_cm's local and peer\n"
		"                          address) after each EST line\n"
		"  -q, --quiet             no per-connection REQ/EST/REJ lines\n"
		"  -v, --verbose           print every event\n"
		"Private data byte i of an N-byte block is (i * 7 + N) & 0xff.\n"
		"Exit status 0 only if every expectation held.\n",
		prog, DEFAULT_PORT, DEFAULT_TMO, RD_DEFAULT, RD_DEFAULT,
		RESOLVE_MS);
	exit(status);
}

static int num_arg(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "siw2_cmtest: %s: '%s' is not a number in [%ld, %ld]\n",
			name, s, lo, hi);
		exit(2);
	}
	return (int)v;
}

/* "REJECTED,ECONNREFUSED": rdma_cm event names and errno names. */
static void parse_expect_fail(const char *arg)
{
	char *list = strdup(arg), *tok, *save = NULL;
	int e;

	if (!list)
		exit(2);
	opt.expect_fail = arg;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		e = ev_parse(tok);
		if (e >= 0) {
			opt.fail_events |= 1UL << e;
			continue;
		}
		for (e = 1; e < 4096; e++) {
			const char *n = strerrorname_np(e);

			if (n && !strcasecmp(n, tok))
				break;
		}
		if (e == 4096 || opt.n_fail_errnos == 8) {
			fprintf(stderr, "siw2_cmtest: --expect-fail: '%s' is neither an rdma_cm event nor an errno name\n",
				tok);
			exit(2);
		}
		opt.fail_errnos[opt.n_fail_errnos++] = e;
	}
	free(list);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "server", no_argument, NULL, 's' },
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "pd-send", required_argument, NULL, 'P' },
		{ "pd-expect", required_argument, NULL, 'E' },
		{ "pd-reply", required_argument, NULL, 'R' },
		{ "pd-expect-reply", required_argument, NULL, 'e' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "reject", no_argument, NULL, OPT_REJECT },
		{ "expect-reject", no_argument, NULL, OPT_EXPECT_REJECT },
		{ "reject-pd", required_argument, NULL, OPT_REJECT_PD },
		{ "ird", required_argument, NULL, OPT_IRD },
		{ "ord", required_argument, NULL, OPT_ORD },
		{ "expect-req-ird", required_argument, NULL, OPT_EXP_REQ_IRD },
		{ "expect-req-ord", required_argument, NULL, OPT_EXP_REQ_ORD },
		{ "expect-est-ird", required_argument, NULL, OPT_EXP_EST_IRD },
		{ "expect-est-ord", required_argument, NULL, OPT_EXP_EST_ORD },
		{ "server-disconnects", no_argument, NULL, OPT_SERVER_DISC },
		{ "abort", no_argument, NULL, OPT_ABORT },
		{ "expect-fail", required_argument, NULL, OPT_EXPECT_FAIL },
		{ "resolve-ms", required_argument, NULL, OPT_RESOLVE_MS },
		{ "hold", required_argument, NULL, OPT_HOLD },
		{ "sends", required_argument, NULL, OPT_SENDS },
		{ "send-len", required_argument, NULL, OPT_SEND_LEN },
		{ "sends-stuck", required_argument, NULL, OPT_SENDS_STUCK },
		{ "terminate-state", no_argument, NULL, OPT_TERM_STATE },
		{ "removal-ok", no_argument, NULL, OPT_REMOVAL_OK },
		{ "src-port", required_argument, NULL, OPT_SRC_PORT },
		{ "print-addr", no_argument, NULL, OPT_PRINT_ADDR },
		{ NULL, 0, NULL, 0 },
	};
	static char port_buf[8];
	int c;

	while ((c = getopt_long(argc, argv, "sa:p:c:t:P:E:R:e:qvh", lo,
				NULL)) != -1) {
		switch (c) {
		case 's':
			opt.server = true;
			break;
		case 'a':
			opt.addr = optarg;
			break;
		case 'p':
			num_arg("-p", optarg, 1, 65535);
			opt.port = optarg;
			break;
		case 'c':
			opt.count = num_arg("-c", optarg, 1, 10000000);
			break;
		case 't':
			opt.timeout = num_arg("-t", optarg, 1, 3600);
			break;
		case 'P':
			opt.pd_send = num_arg("-P", optarg, 0, PD_MAX);
			break;
		case 'E':
			opt.pd_expect = num_arg("-E", optarg, -1, PD_MAX);
			break;
		case 'R':
			opt.pd_reply = num_arg("-R", optarg, 0, PD_MAX);
			break;
		case 'e':
			opt.pd_expect_reply = num_arg("-e", optarg, -1, PD_MAX);
			break;
		case 'q':
			opt.quiet = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case OPT_REJECT:
			opt.reject = true;
			break;
		case OPT_EXPECT_REJECT:
			opt.expect_reject = true;
			break;
		case OPT_REJECT_PD:
			opt.reject_pd = num_arg("--reject-pd", optarg, -1, PD_MAX);
			break;
		case OPT_IRD:
			opt.ird = num_arg("--ird", optarg, 0, 255);
			break;
		case OPT_ORD:
			opt.ord = num_arg("--ord", optarg, 0, 255);
			break;
		case OPT_EXP_REQ_IRD:
			opt.exp_req_ird = num_arg("--expect-req-ird", optarg, -1, 255);
			break;
		case OPT_EXP_REQ_ORD:
			opt.exp_req_ord = num_arg("--expect-req-ord", optarg, -1, 255);
			break;
		case OPT_EXP_EST_IRD:
			opt.exp_est_ird = num_arg("--expect-est-ird", optarg, -1, 255);
			break;
		case OPT_EXP_EST_ORD:
			opt.exp_est_ord = num_arg("--expect-est-ord", optarg, -1, 255);
			break;
		case OPT_SERVER_DISC:
			opt.server_disconnects = true;
			break;
		case OPT_ABORT:
			opt.abort = true;
			break;
		case OPT_RESOLVE_MS:
			opt.resolve_ms = num_arg("--resolve-ms", optarg, 1, 600000);
			break;
		case OPT_EXPECT_FAIL:
			parse_expect_fail(optarg);
			break;
		case OPT_HOLD:
			opt.hold = num_arg("--hold", optarg, 1, 3600);
			break;
		case OPT_TERM_STATE:
			opt.term_state = true;
			break;
		case OPT_REMOVAL_OK:
			opt.removal_ok = true;
			break;
		case OPT_SRC_PORT:
			opt.src_port = num_arg("--src-port", optarg, 1, 65535);
			break;
		case OPT_PRINT_ADDR:
			opt.print_addr = true;
			break;
		case OPT_SENDS:
			opt.sends = num_arg("--sends", optarg, 1, QP_DEPTH);
			break;
		case OPT_SEND_LEN:
			opt.send_len = num_arg("--send-len", optarg, 1, 1 << 20);
			break;
		case OPT_SENDS_STUCK:
			opt.sends_stuck = optarg;
			break;
		case 'h':
			usage(argv[0], 0);
			break;
		default:
			usage(argv[0], 2);
		}
	}
	if (optind != argc)
		usage(argv[0], 2);
	if (!opt.port) {
		snprintf(port_buf, sizeof(port_buf), "%d", DEFAULT_PORT);
		opt.port = port_buf;
	}
	if (!opt.server && !opt.addr) {
		fprintf(stderr, "siw2_cmtest: the client needs -a ADDR\n");
		exit(2);
	}
	if (opt.expect_reject && opt.expect_fail) {
		fprintf(stderr, "siw2_cmtest: --expect-reject and --expect-fail exclude each other\n");
		exit(2);
	}
	role = opt.server ? "server" : "client";
}

int main(int argc, char **argv)
{
	const char *scale;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	t_start = now_s();
	parse(argc, argv);
	/*
	 * A slower guest kernel stretches the waits (SIW2_TIMEOUT_SCALE, read
	 * as cm_common.h's tmo_scale() reads it for the other programs).
	 */
	scale = getenv("SIW2_TIMEOUT_SCALE");
	if (scale && atoi(scale) > 1)
		opt.timeout *= atoi(scale);
	chan = rdma_create_event_channel();
	if (!chan)
		fail_errno("rdma_create_event_channel");
	if (fcntl(chan->fd, F_SETFL, fcntl(chan->fd, F_GETFL) | O_NONBLOCK))
		fail_errno("fcntl O_NONBLOCK");
	rc = opt.server ? run_server() : run_client();
	rdma_destroy_event_channel(chan);
	return rc;
}
