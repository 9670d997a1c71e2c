// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_async: report asynchronous events of one device, line by line.
 *
 *   siw2_async -d IBDEV [--timeout S] [--until EVENT] [--once] [--hold]
 *
 * Prints "port 1 state ACTIVE active_mtu 1024" once, then "ready" when it
 * is waiting on the async fd. Every event is printed as
 * "event PORT_ERR port 1", followed by the port state line (queried after
 * the event). A shell script can therefore toggle the netdev and wait for
 * the lines it expects. --once only prints the port state and exits.
 * --hold keeps a PD, CQ, MR and QP alive while waiting.
 *
 * Exit status: 0 when --until EVENT was seen, or on DEVICE_FATAL (after a
 * clean close), or at the timeout when no --until was given; 1 when the
 * --until event did not arrive before the timeout; 2 on usage or setup
 * errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

static const char *opt_dev;
static const char *opt_until;
static double opt_timeout = 30.0;
static bool opt_once;
static bool opt_hold;

/* Objects kept alive with --hold, so device removal has work to undo. */
struct held {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	char buf[4096];
};

static int hold_objects(struct ibv_context *ctx, struct held *h)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	h->pd = ibv_alloc_pd(ctx);
	h->cq = h->pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	h->mr = h->cq ? ibv_reg_mr(h->pd, h->buf, sizeof(h->buf),
				   IBV_ACCESS_LOCAL_WRITE) : NULL;
	a.send_cq = a.recv_cq = h->cq;
	h->qp = h->mr ? ibv_create_qp(h->pd, &a) : NULL;
	if (!h->qp) {
		perror("hold objects");
		return -1;
	}
	printf("holding pd cq mr qp\n");
	return 0;
}

/* Release held objects; after device removal the core reports success. */
static void release_objects(struct held *h)
{
	int r[4] = { 0 };

	if (h->qp)
		r[0] = ibv_destroy_qp(h->qp);
	if (h->mr)
		r[1] = ibv_dereg_mr(h->mr);
	if (h->cq)
		r[2] = ibv_destroy_cq(h->cq);
	if (h->pd)
		r[3] = ibv_dealloc_pd(h->pd);
	printf("released qp %d mr %d cq %d pd %d\n", r[0], r[1], r[2], r[3]);
}

static const char *event_name(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_CQ_ERR: return "CQ_ERR";
	case IBV_EVENT_QP_FATAL: return "QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case IBV_EVENT_COMM_EST: return "COMM_EST";
	case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case IBV_EVENT_PATH_MIG: return "PATH_MIG";
	case IBV_EVENT_PATH_MIG_ERR: return "PATH_MIG_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "PORT_ERR";
	case IBV_EVENT_LID_CHANGE: return "LID_CHANGE";
	case IBV_EVENT_PKEY_CHANGE: return "PKEY_CHANGE";
	case IBV_EVENT_SM_CHANGE: return "SM_CHANGE";
	case IBV_EVENT_SRQ_ERR: return "SRQ_ERR";
	case IBV_EVENT_SRQ_LIMIT_REACHED: return "SRQ_LIMIT_REACHED";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "QP_LAST_WQE_REACHED";
	case IBV_EVENT_CLIENT_REREGISTER: return "CLIENT_REREGISTER";
	case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
	case IBV_EVENT_WQ_FATAL: return "WQ_FATAL";
	}
	return "UNKNOWN";
}

static bool is_port_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_PORT_ACTIVE || t == IBV_EVENT_PORT_ERR ||
	       t == IBV_EVENT_LID_CHANGE || t == IBV_EVENT_PKEY_CHANGE ||
	       t == IBV_EVENT_SM_CHANGE || t == IBV_EVENT_CLIENT_REREGISTER ||
	       t == IBV_EVENT_GID_CHANGE;
}

static const char *state_name(enum ibv_port_state s)
{
	switch (s) {
	case IBV_PORT_NOP: return "NOP";
	case IBV_PORT_DOWN: return "DOWN";
	case IBV_PORT_INIT: return "INIT";
	case IBV_PORT_ARMED: return "ARMED";
	case IBV_PORT_ACTIVE: return "ACTIVE";
	case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
	}
	return "UNKNOWN";
}

static int mtu_bytes(enum ibv_mtu m)
{
	return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128 << m : 0;
}

static void print_port(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;
	int rc = ibv_query_port(ctx, 1, &pa);

	if (rc) {
		printf("port 1 query failed errno %d\n", rc < 0 ? errno : rc);
		return;
	}
	printf("port 1 state %s active_mtu %d max_mtu %d\n",
	       state_name(pa.state), mtu_bytes(pa.active_mtu),
	       mtu_bytes(pa.max_mtu));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct ibv_context *open_named(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list) {
		perror("ibv_get_device_list");
		return NULL;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fprintf(stderr, "cannot open device %s\n", name);
	return ctx;
}

/* Read and print one event. Returns 1 if the loop should end. */
static int handle_event(struct ibv_context *ctx, int *exit_code)
{
	struct ibv_async_event ev;
	enum ibv_event_type t;
	const char *name;

	if (ibv_get_async_event(ctx, &ev))
		return errno == EAGAIN ? 0 : (*exit_code = 2, 1);
	t = ev.event_type;
	name = event_name(t);
	if (is_port_event(t))
		printf("event %s port %d\n", name, ev.element.port_num);
	else
		printf("event %s\n", name);
	ibv_ack_async_event(&ev);
	if (t == IBV_EVENT_DEVICE_FATAL) {
		*exit_code = 0;
		return 1;
	}
	print_port(ctx);
	if (opt_until && !strcmp(opt_until, name)) {
		*exit_code = 0;
		return 1;
	}
	return 0;
}

static int event_loop(struct ibv_context *ctx)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	double end = now_s() + opt_timeout;
	int exit_code = opt_until ? 1 : 0;
	int left, rc;

	fcntl(ctx->async_fd, F_SETFL,
	      fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK);
	printf("ready\n");
	for (;;) {
		left = (int)((end - now_s()) * 1000);
		if (left <= 0) {
			printf("timeout\n");
			return exit_code;
		}
		rc = poll(&pfd, 1, left);
		if (rc < 0 && errno != EINTR) {
			perror("poll");
			return 2;
		}
		if (rc > 0 && handle_event(ctx, &exit_code))
			return exit_code;
	}
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s -d IBDEV [--timeout S] [--until EVENT] [--once] [--hold]\n",
		argv0);
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "until", required_argument, NULL, 'u' },
		{ "once", no_argument, NULL, 'o' },
		{ "hold", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:t:u:oH", lo, NULL)) != -1) {
		switch (c) {
		case 'd': opt_dev = optarg; break;
		case 't': opt_timeout = atof(optarg); break;
		case 'u': opt_until = optarg; break;
		case 'o': opt_once = true; break;
		case 'H': opt_hold = true; break;
		default: usage(argv[0]);
		}
	}
	if (!opt_dev || optind != argc || opt_timeout <= 0)
		usage(argv[0]);
}

int main(int argc, char **argv)
{
	static struct held h;
	struct ibv_context *ctx;
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	ctx = open_named(opt_dev);
	if (!ctx)
		return 2;
	print_port(ctx);
	if (opt_hold && hold_objects(ctx, &h))
		return 2;
	rc = opt_once ? 0 : event_loop(ctx);
	if (opt_hold)
		release_objects(&h);
	if (ibv_close_device(ctx)) {
		perror("ibv_close_device");
		rc = 2;
	}
	printf("closed\n");
	return rc;
}
