// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_dbbench: what one kernel entry of a doorbell costs, by path.
 *
 *   siw2_dbbench [-d DEVICE] [-n N]
 *
 * A doorbell is a post_send system call without work requests
 * (userspace-provider/siw2_ring.c). On a QP that has just been created
 * (INIT: the driver returns at once) it costs the system call and the
 * uverbs dispatch only, which this program times N times (default
 * 100000) per way of making it:
 *
 *   getppid   a system call that does nothing, for scale
 *   ioctl     ibv_cmd_post_send(qp, NULL): rdma-core's command, which
 *             goes through uverbs' ioctl INVOKE_WRITE where the kernel
 *             has it
 *   write     the same POST_SEND command through write() on the
 *             device's command file, as rdma-core did before ioctl
 *
 * Output, one line per way, then "DBBENCH OK":
 *   DBBENCH way=W n=N ns_per_call=X rv=E
 * E is what the call returned (errno value; 0 for success): a driver
 * may refuse a post on a QP that is not connected (Linux siw says
 * ENOTCONN), which costs the same entry. Errors of the set-up print
 * "DBBENCH FAIL <reason>" and exit 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

/* libibverbs' private ABI (IBVERBS_PRIVATE_*), as the provider uses it. */
int ibv_cmd_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		      struct ibv_send_wr **bad_wr);

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						      noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("DBBENCH FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The legacy write() command: header, POST_SEND, no work requests. */
static struct {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_post_send cmd;
} wcmd;
static struct ib_uverbs_post_send_resp wresp;

static int way_getppid(struct ibv_qp *qp)
{
	(void)qp;
	return syscall(SYS_getppid) < 0 ? errno : 0;
}

static int way_ioctl(struct ibv_qp *qp)
{
	struct ibv_send_wr *bad;

	return ibv_cmd_post_send(qp, NULL, &bad);
}

static int way_write(struct ibv_qp *qp)
{
	ssize_t n = write(qp->context->cmd_fd, &wcmd, sizeof(wcmd));

	return n == (ssize_t)sizeof(wcmd) ? 0 : (n < 0 ? errno : EIO);
}

static const struct {
	const char *name;
	int (*call)(struct ibv_qp *qp);
} ways[] = {
	{ "getppid", way_getppid },
	{ "ioctl", way_ioctl },
	{ "write", way_write },
};

int main(int argc, char **argv)
{
	struct ibv_device **list, *dev = NULL;
	const char *want = NULL;
	struct ibv_context *ctx;
	struct ibv_qp *qp;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	long n = 100000, i;
	double t0, t1;
	unsigned int w;
	int c, rv, nd;

	while ((c = getopt(argc, argv, "d:n:")) != -1) {
		switch (c) {
		case 'd':
			want = optarg;
			break;
		case 'n':
			n = strtol(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEVICE] [-n N]\n",
				argv[0]);
			return 2;
		}
	}
	if (n <= 0)
		fail("bad -n");
	list = ibv_get_device_list(&nd);
	if (!list)
		fail("no device list: %s", strerror(errno));
	for (c = 0; c < nd && !dev; c++)
		if (!want || !strcmp(ibv_get_device_name(list[c]), want))
			dev = list[c];
	if (!dev)
		fail("no device %s", want ? want : "");
	ctx = ibv_open_device(dev);
	if (!ctx)
		fail("open %s: %s", ibv_get_device_name(dev), strerror(errno));
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 16, NULL, NULL, 0) : NULL;
	if (!cq)
		fail("PD/CQ: %s", strerror(errno));
	qp = ibv_create_qp(pd, &(struct ibv_qp_init_attr){
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 } });
	if (!qp)
		fail("create QP: %s", strerror(errno));

	wcmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	wcmd.hdr.in_words = sizeof(wcmd) / 4;
	wcmd.hdr.out_words = sizeof(wresp) / 4;
	wcmd.cmd.response = (uintptr_t)&wresp;
	wcmd.cmd.qp_handle = qp->handle;
	wcmd.cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);

	for (w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
		/* Once untimed: the first call faults pages and caches in. */
		rv = ways[w].call(qp);
		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (ways[w].call(qp) != rv)
				fail("%s call %ld: not as the first", ways[w].name,
				     i);
		t1 = now_ns();
		printf("DBBENCH way=%s n=%ld ns_per_call=%.0f rv=%d\n",
		       ways[w].name, n, (t1 - t0) / n, rv);
	}
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	printf("DBBENCH OK\n");
	return 0;
}
