// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_manyqp: hold N connected RC QPs, for measuring what a connected QP
 * costs the kernel (make bench; any iWARP device through librdmacm).
 *
 *   siw2_manyqp -s -a ADDR [-p PORT] -c N [-d DEPTH] [-t SECS]   server
 *   siw2_manyqp -a ADDR [-p PORT] -c N [-d DEPTH] [-t SECS]      client
 *
 * The server accepts N connections, the client makes them one after the
 * other. All QPs of a side share one PD and one CQ, so what grows with N
 * is the QP and its connection (rdma_cm ID, TCP socket, queues). Each QP
 * has DEPTH (default 64) send and receive entries of one SGE; nothing is
 * posted. Once all N are established a side prints
 *   HELD n=N secs=T.TT
 * (T: the time the N connections took) and keeps them until its standard
 * input reaches end of file or SECS (default 600) pass; then it
 * disconnects, destroys everything and prints "MANYQP OK side=S n=N".
 * Any failure prints "MANYQP FAIL side=S <reason>" and exits 1.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "cm_common.h"

static struct {
	bool server;
	const char *addr, *port;
	unsigned int n, depth;
	int timeout;
} opt = { .port = "7900", .depth = 64, .timeout = 600 };

static const char *side = "client";

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("MANYQP FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct rdma_cm_id **ids, *lid;

/* The PD and CQ all QPs share, on the first ID's device. */
static void shared_objects(struct rdma_cm_id *id)
{
	if (pd)
		return;
	pd = ibv_alloc_pd(id->verbs);
	if (!pd)
		fail_errno("ibv_alloc_pd");
	cq = ibv_create_cq(id->verbs, 256, NULL, NULL, 0);
	if (!cq)
		fail_errno("ibv_create_cq");
}

static void make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = {
			.max_send_wr = opt.depth, .max_recv_wr = opt.depth,
			.max_send_sge = 1, .max_recv_sge = 1,
		},
	};

	shared_objects(id);
	qa.send_cq = qa.recv_cq = cq;
	if (rdma_create_qp(id, pd, &qa))
		fail_errno("rdma_create_qp");
}

static void server_connect(struct rdma_event_channel *ch)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	struct rdma_cm_event *ev;
	unsigned int est = 0, req = 0;

	lid = cm_listen(ch, opt.addr, opt.port);
	while (est < opt.n) {
		ev = cm_next_event(ch, opt.timeout * tmo_scale());
		if (!ev)
			fail("timeout (%d s): %u requests, %u established",
			     opt.timeout, req, est);
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (req == opt.n)
				fail("more than %u connection requests", opt.n);
			ids[req++] = ev->id;
			make_qp(ev->id);
			if (rdma_accept(ev->id, &cp))
				fail_errno("rdma_accept");
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			est++;
			break;
		default:
			fail("%s (status %d) after %u established",
			     rdma_event_str(ev->event), ev->status, est);
		}
		rdma_ack_cm_event(ev);
	}
}

static void client_connect(struct rdma_event_channel *ch)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1,
				      .retry_count = 7 };
	unsigned int i;

	for (i = 0; i < opt.n; i++) {
		ids[i] = cm_route(ch, opt.timeout, opt.addr, opt.port);
		make_qp(ids[i]);
		if (rdma_connect(ids[i], &cp))
			fail_errno("rdma_connect");
		rdma_ack_cm_event(cm_get_event(ch, opt.timeout,
					       RDMA_CM_EVENT_ESTABLISHED,
					       "ESTABLISHED"));
	}
}

/* Until standard input ends or the timeout passes. */
static void hold(void)
{
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	double deadline = now_s() + opt.timeout;
	char buf[256];

	while (now_s() < deadline) {
		if (poll(&pfd, 1, 1000) > 0 && read(0, buf, sizeof(buf)) <= 0)
			return;
	}
}

static void teardown(void)
{
	unsigned int i;

	for (i = 0; i < opt.n && ids[i]; i++)
		rdma_disconnect(ids[i]);
	for (i = 0; i < opt.n && ids[i]; i++) {
		rdma_destroy_qp(ids[i]);
		if (rdma_destroy_id(ids[i]))
			fail_errno("rdma_destroy_id");
	}
	if (cq && ibv_destroy_cq(cq))
		fail_errno("ibv_destroy_cq");
	if (pd && ibv_dealloc_pd(pd))
		fail_errno("ibv_dealloc_pd");
	if (lid && rdma_destroy_id(lid))
		fail_errno("rdma_destroy_id (listener)");
}

static void usage(void)
{
	fprintf(stderr,
		"usage: siw2_manyqp [-s] -a ADDR [-p PORT] -c N [-d DEPTH] [-t SECS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ch;
	double t0;
	int c;

	while ((c = getopt(argc, argv, "sa:p:c:d:t:")) != -1) {
		switch (c) {
		case 's': opt.server = true; side = "server"; break;
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 'c': opt.n = strtoul(optarg, NULL, 0); break;
		case 'd': opt.depth = strtoul(optarg, NULL, 0); break;
		case 't': opt.timeout = atoi(optarg); break;
		default: usage();
		}
	}
	if (!opt.addr || !opt.n || opt.n > 100000 || !opt.depth ||
	    opt.timeout <= 0 || optind != argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	ids = calloc(opt.n, sizeof(*ids));
	ch = rdma_create_event_channel();
	if (!ids || !ch)
		fail_errno("setup");
	t0 = now_s();
	if (opt.server)
		server_connect(ch);
	else
		client_connect(ch);
	printf("HELD n=%u secs=%.2f\n", opt.n, now_s() - t0);
	hold();
	teardown();
	printf("MANYQP OK side=%s n=%u\n", side, opt.n);
	return 0;
}
