// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_counter: many requesters FetchAdd one remote counter while the
 * target's CPU increments it too; the final value must be exact
 * (RFC 7306 atomics are atomic against every agent, EXT-ATOMIC-25).
 *
 *   siw2_counter -s -a ADDR [-p PORT] -n CONNS [-l LOCAL_INCS]
 *                [-e EXPECTED] [-t SECS]                      server
 *   siw2_counter -a ADDR [-p PORT] [-q QPS] [-i ITERS] [-w WINDOW]
 *                [-r READ_LEN] [-t SECS]                      client
 *
 * Server: one PD and one 8-byte counter (in a 4 KiB region registered
 * with REMOTE_ATOMIC), CONNS connections accepted as they come, each
 * with its own QP; the accept's private data names the counter (address
 * and rkey, 12 octets, host order). From the first connection on, a
 * thread adds 1 to the counter LOCAL_INCS times with CPU atomics. When
 * every connection has ended and the thread is done, the counter must be
 * EXPECTED: "COUNTER OK value=V" (exit 0) or "COUNTER FAIL ...".
 *
 * Client: QPS connections, each posting ITERS FetchAdds of 1 with at
 * most WINDOW outstanding (at most the ORD of 16). Every completion must
 * succeed with opcode FETCH_ADD and 8 octets, and each QP's original
 * values must strictly increase (the target executes a QP's atomics in
 * order). Prints "COUNTER OK side=client qps=Q iters=I ops_per_s=R".
 * With -r READ_LEN the client instead posts one RDMA Read of READ_LEN
 * octets from the counter's address, whose octet i must be (7 i + 1) mod
 * 256 (what tests/progs/ext_peer.py's Read V2 Responses carry); it prints
 * "COUNTER READ OK" or fails with the completion's status.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "cm_common.h"

#define MAX_QPS		16
#define ORD		16

struct hello {
	uint64_t addr;
	uint32_t rkey;
} __attribute__((packed));

static struct {
	bool server;
	const char *addr;
	const char *port;
	int conns, qps, window, timeout, read_len;
	long iters, local_incs;
	long long expected;
} opt = { .port = "7780", .conns = 1, .qps = 1, .window = 8,
	  .timeout = 60, .iters = 1000, .expected = -1 };

static const char *side = "?";

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("COUNTER FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

/* ---- server ---- */

static uint64_t *counter;
static long local_done;

static void *incrementer(void *arg)
{
	long i;

	(void)arg;
	for (i = 0; i < opt.local_incs; i++) {
		__atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST);
		/* Interleave with the remote traffic on a 2-CPU guest. */
		if (!(i & 63))
			sched_yield();
	}
	__atomic_store_n(&local_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void server(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *lid, *ids[64];
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = NULL;
	struct rdma_cm_event *ev;
	struct hello h;
	struct rdma_conn_param cp = {
		.responder_resources = ORD, .initiator_depth = ORD,
		.private_data = &h, .private_data_len = sizeof(h),
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	pthread_t thr;
	bool started = false;
	int accepted = 0, ended = 0, n = 0;
	uint64_t v;

	if (!ch)
		fail_errno("rdma_create_event_channel");
	if (opt.conns > 64)
		fail("at most 64 connections");
	if (posix_memalign((void **)&counter, 4096, 4096))
		fail("out of memory");
	memset(counter, 0, 4096);
	lid = cm_listen(ch, opt.addr, opt.port);
	while (ended < opt.conns) {
		ev = cm_next_event(ch, opt.timeout * tmo_scale());
		if (!ev)
			fail("timeout (%d s): %d connected, %d ended", opt.timeout,
			     accepted, ended);
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!pd) {
				pd = ibv_alloc_pd(ev->id->verbs);
				cq = ibv_create_cq(ev->id->verbs, 16, NULL, NULL, 0);
				mr = ibv_reg_mr(pd, counter, 4096,
						IBV_ACCESS_LOCAL_WRITE |
						IBV_ACCESS_REMOTE_ATOMIC |
						IBV_ACCESS_REMOTE_READ);
				if (!pd || !cq || !mr)
					fail_errno("PD, CQ or MR");
			}
			qa.send_cq = cq;
			qa.recv_cq = cq;
			if (n == opt.conns || rdma_create_qp(ev->id, pd, &qa))
				fail_errno("rdma_create_qp (or too many)");
			ids[n++] = ev->id;
			h.addr = (uintptr_t)counter;
			h.rkey = mr->rkey;
			if (rdma_accept(ev->id, &cp))
				fail_errno("rdma_accept");
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			accepted++;
			if (!started && opt.local_incs) {
				if (pthread_create(&thr, NULL, incrementer, NULL))
					fail("pthread_create");
				started = true;
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			ended++;
			break;
		default:
			fail("%s (status %d)", rdma_event_str(ev->event),
			     ev->status);
		}
		rdma_ack_cm_event(ev);
	}
	if (started)
		pthread_join(thr, NULL);
	v = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
	while (n--) {
		rdma_destroy_qp(ids[n]);
		rdma_destroy_id(ids[n]);
	}
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(lid);
	rdma_destroy_event_channel(ch);
	/*
	 * No receive is posted here: RDMAP itself executed every FetchAdd,
	 * atomically against the CPU's (EXT-ATOMIC-12, EXT-ATOMIC-25).
	 */
	if (opt.expected >= 0 && v != (uint64_t)opt.expected)
		fail("counter %" PRIu64 ", expected %lld (%d connections, %ld local increments) [EXT-ATOMIC-12 EXT-ATOMIC-25]",
		     v, opt.expected, accepted, opt.local_incs);
	printf("COUNTER OK side=server value=%" PRIu64 " conns=%d local_incs=%ld\n",
	       v, accepted, opt.local_incs);
}

/* ---- client ---- */

struct cqp {
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint64_t *res;		/* one 8-octet result slot per window entry */
	struct hello peer;
	long posted, done;
	uint64_t last;
	bool any;
};

static void post_one(struct ibv_pd *pd, struct cqp *c)
{
	uint32_t slot = c->posted % opt.window;
	struct ibv_sge sge = {
		.addr = (uintptr_t)&c->res[slot], .length = 8,
		.lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = slot, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.atomic = { .remote_addr = c->peer.addr, .compare_add = 1,
			       .rkey = c->peer.rkey },
	}, *bad;
	int rc;

	(void)pd;
	rc = ibv_post_send(c->id->qp, &wr, &bad);
	if (rc)
		fail("ibv_post_send: %s", strerror(rc));
	c->posted++;
}

/* One RDMA Read of opt.read_len octets, checked against ext_peer's data. */
static void client_read(struct ibv_pd *pd, struct cqp *c)
{
	uint8_t *b = calloc(1, opt.read_len);
	struct ibv_mr *m = b ? ibv_reg_mr(pd, b, opt.read_len,
					  IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_sge sge = { .addr = (uintptr_t)b, .length = opt.read_len,
			       .lkey = m ? m->lkey : 0 };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = c->peer.addr, .rkey = c->peer.rkey },
	}, *bad;
	double deadline = now_s() + opt.timeout;
	struct ibv_wc wc;
	int i, k;

	if (!m)
		fail_errno("read buffer");
	if (ibv_post_send(c->id->qp, &wr, &bad))
		fail_errno("ibv_post_send (Read)");
	while (!(k = ibv_poll_cq(c->cq, 1, &wc)))
		if (now_s() > deadline)
			fail("timeout waiting for the Read");
	if (k < 0 || wc.status != IBV_WC_SUCCESS)
		fail("Read: status %s", ibv_wc_status_str(wc.status));
	for (i = 0; i < opt.read_len; i++)
		if (b[i] != (uint8_t)(i * 7 + 1))
			fail("Read: octet %d is 0x%02x", i, b[i]);
	printf("COUNTER READ OK len=%d\n", opt.read_len);
	ibv_dereg_mr(m);
	free(b);
}

static void client(void)
{
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_conn_param cp = {
		.responder_resources = ORD, .initiator_depth = ORD,
	};
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = ORD * 2, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct cqp c[MAX_QPS] = {};
	struct rdma_cm_event *ev;
	struct ibv_pd *pd = NULL;
	struct ibv_wc wc[16];
	double t0, deadline;
	long left;
	int q, i, k;

	if (!ch)
		fail_errno("rdma_create_event_channel");
	if (opt.qps < 1 || opt.qps > MAX_QPS || opt.window < 1 ||
	    opt.window > ORD)
		fail("1..%d QPs, window 1..%d", MAX_QPS, ORD);
	for (q = 0; q < opt.qps; q++) {
		c[q].id = cm_route(ch, opt.timeout, opt.addr, opt.port);
		if (!pd)
			pd = ibv_alloc_pd(c[q].id->verbs);
		c[q].cq = ibv_create_cq(c[q].id->verbs, ORD * 2, NULL, NULL, 0);
		if (!pd || !c[q].cq)
			fail_errno("PD or CQ");
		if (posix_memalign((void **)&c[q].res, 64, 8 * ORD))
			fail("out of memory");
		c[q].mr = ibv_reg_mr(pd, c[q].res, 8 * ORD,
				     IBV_ACCESS_LOCAL_WRITE);
		if (!c[q].mr)
			fail_errno("ibv_reg_mr");
		qa.send_cq = c[q].cq;
		qa.recv_cq = c[q].cq;
		if (rdma_create_qp(c[q].id, pd, &qa))
			fail_errno("rdma_create_qp");
		if (rdma_connect(c[q].id, &cp))
			fail_errno("rdma_connect");
		ev = cm_get_event(ch, opt.timeout, RDMA_CM_EVENT_ESTABLISHED,
				  "ESTABLISHED");
		if (ev->param.conn.private_data_len < sizeof(c[q].peer))
			fail("short private data");
		memcpy(&c[q].peer, ev->param.conn.private_data,
		       sizeof(c[q].peer));
		rdma_ack_cm_event(ev);
	}
	if (opt.read_len) {
		client_read(pd, &c[0]);
		left = 0;
	} else {
		left = opt.iters * opt.qps;
	}
	t0 = now_s();
	deadline = t0 + opt.timeout;
	while (left) {
		for (q = 0; q < opt.qps; q++) {
			while (c[q].posted < opt.iters &&
			       c[q].posted - c[q].done < opt.window)
				post_one(pd, &c[q]);
			k = ibv_poll_cq(c[q].cq, 16, wc);
			if (k < 0)
				fail("ibv_poll_cq: %d", k);
			for (i = 0; i < k; i++) {
				uint64_t v = c[q].res[wc[i].wr_id];

				if (wc[i].status != IBV_WC_SUCCESS ||
				    wc[i].opcode != IBV_WC_FETCH_ADD ||
				    wc[i].byte_len != 8)
					fail("QP %d: completion status %s opcode %d len %u",
					     q, ibv_wc_status_str(wc[i].status),
					     wc[i].opcode, wc[i].byte_len);
				/*
				 * Several in flight: sent, executed and answered in
				 * order (EXT-ATOMIC-15/16/24, EXT-ORD-7, EXT-ORD-T12).
				 */
				if (c[q].any && v <= c[q].last)
					fail("QP %d: original value %" PRIu64 " after %" PRIu64 " [EXT-ATOMIC-15/16/24 EXT-ORD-7 EXT-ORD-T12]",
					     q, v, c[q].last);
				c[q].last = v;
				c[q].any = true;
				c[q].done++;
				left--;
			}
			if (k)
				deadline = now_s() + opt.timeout;
		}
		if (now_s() > deadline)
			fail("timeout (%d s): %ld FetchAdds outstanding", opt.timeout,
			     left);
	}
	t0 = now_s() - t0;
	for (q = 0; q < opt.qps; q++) {
		rdma_disconnect(c[q].id);
		cm_wait_disconnected(ch, opt.timeout);
	}
	for (q = 0; q < opt.qps; q++) {
		rdma_destroy_qp(c[q].id);
		ibv_dereg_mr(c[q].mr);
		ibv_destroy_cq(c[q].cq);
		rdma_destroy_id(c[q].id);
		free(c[q].res);
	}
	ibv_dealloc_pd(pd);
	rdma_destroy_event_channel(ch);
	printf("COUNTER OK side=client qps=%d iters=%ld ops_per_s=%.0f\n",
	       opt.qps, opt.iters, opt.qps * opt.iters / t0);
}

int main(int argc, char **argv)
{
	int ch;

	while ((ch = getopt(argc, argv, "sa:p:n:l:e:q:i:w:r:t:")) != -1) {
		switch (ch) {
		case 's': opt.server = true; break;
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 'n': opt.conns = atoi(optarg); break;
		case 'l': opt.local_incs = atol(optarg); break;
		case 'e': opt.expected = atoll(optarg); break;
		case 'q': opt.qps = atoi(optarg); break;
		case 'i': opt.iters = atol(optarg); break;
		case 'w': opt.window = atoi(optarg); break;
		case 'r': opt.read_len = atoi(optarg); break;
		case 't': opt.timeout = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: see the top of siw2_counter.c\n");
			return 2;
		}
	}
	if (!opt.addr) {
		fprintf(stderr, "siw2_counter: -a ADDR is required\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	side = opt.server ? "server" : "client";
	if (opt.server)
		server();
	else
		client();
	return 0;
}
