// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_ctrl: control-path verbs test for one siw2 device.
 *
 *   siw2_ctrl -d IBDEV [--limits] [--debugfs DIR]
 *
 * Checks device attributes, creates and destroys every object kind, walks
 * all error paths of the siw2 errno contract, the QP state machine, receive
 * flushing and SRQ handling. --limits expects the module to be loaded with
 * small max_* parameters and fills every object table to its limit.
 * --debugfs DIR (normally /sys/kernel/debug/siw2) compares the driver's live
 * object counts with what this program holds. It assumes it is the only user
 * of the device. Exit status 0 only if every check passed.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define FW_MARKER "siw2-"
#define LIMIT_LOOP_CAP 4096	/* never loop longer than this in --limits */

static int n_ok, n_fail;
static const char *opt_dev;
static const char *opt_debugfs;
static bool opt_limits;

/* ------------------------------------------------------------------ */
/* Reporting                                                          */

static const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "0";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOTCONN: return "ENOTCONN";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case ENOSYS: return "ENOSYS";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case EAGAIN: return "EAGAIN";
	case EIO: return "EIO";
	}
	snprintf(buf, sizeof(buf), "errno %d", e);
	return buf;
}

/* Record one errno check: expected and observed (0 = success). */
static bool check_errno(const char *name, int expect, int got)
{
	bool ok = expect == got;

	printf("%-58s %s (expected %s, got ", name, ok ? "ok" : "FAIL",
	       errname(expect));
	printf("%s)\n", errname(got));
	ok ? n_ok++ : n_fail++;
	return ok;
}

/* Record a boolean check with a free-form detail. */
static bool check(const char *name, bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%-58s %s (", name, ok ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(")\n");
	ok ? n_ok++ : n_fail++;
	return ok;
}

static void note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* libibverbs returns errno values, a few paths return -1 and set errno. */
static int rc_errno(int rc)
{
	return rc < 0 ? errno : rc;
}

static void fatal(const char *what)
{
	printf("%-58s FAIL (fatal: %s)\n", what, strerror(errno));
	n_fail++;
	printf("summary: %d ok, %d FAIL\n", n_ok, n_fail);
	exit(1);
}

/* ------------------------------------------------------------------ */
/* Shared state                                                       */

struct env {
	struct ibv_context *ctx;
	struct ibv_device_attr dattr;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	char *buf;
	size_t buf_len;
	struct ibv_mr *mr;
	uint32_t max_inline;
};

/* Driver object counts as shown in debugfs, -1 if unreadable. */
static long debugfs_count(const char *kind)
{
	char path[512], k[64];
	long v, found = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/objects", opt_debugfs, opt_dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", k, &v) == 2)
		if (!strcmp(k, kind))
			found = v;
	fclose(f);
	return found;
}

static void check_count(const char *kind, long expect)
{
	char name[96];
	long got;

	if (!opt_debugfs)
		return;
	got = debugfs_count(kind);
	snprintf(name, sizeof(name), "debugfs %s count", kind);
	check(name, got == expect, "expected %ld, got %ld", expect, got);
}

static void check_counts(long pds, long cqs, long mrs, long srqs, long qps)
{
	check_count("ucontexts", 1);
	check_count("pds", pds);
	check_count("cqs", cqs);
	check_count("mrs", mrs);
	check_count("srqs", srqs);
	check_count("qps", qps);
}

/* ------------------------------------------------------------------ */
/* Helpers that create an object and report the errno of a failure    */

static int create_cq_errno(struct env *e, int cqe, struct ibv_cq **out)
{
	struct ibv_cq *cq;

	errno = 0;
	cq = ibv_create_cq(e->ctx, cqe, NULL, NULL, 0);
	if (out)
		*out = cq;
	else if (cq)
		ibv_destroy_cq(cq);
	return cq ? 0 : (errno ? errno : -1);
}

static void rc_init_attr(struct env *e, struct ibv_qp_init_attr *a,
			 struct ibv_srq *srq)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = e->cq;
	a->recv_cq = e->cq;
	a->srq = srq;
	a->qp_type = IBV_QPT_RC;
	a->cap.max_send_wr = 4;
	a->cap.max_recv_wr = srq ? 0 : 4;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
}

/* Create a QP; on success either hand it out or destroy it at once. */
static int create_qp_errno(struct env *e, struct ibv_qp_init_attr *a,
			   struct ibv_qp **out)
{
	struct ibv_qp *qp;

	errno = 0;
	qp = ibv_create_qp(e->pd, a);
	if (out)
		*out = qp;
	else if (qp)
		ibv_destroy_qp(qp);
	return qp ? 0 : (errno ? errno : -1);
}

/*
 * The core refuses on-demand paging for a device without it before the
 * driver sees the MR (ib_check_mr_access()): with EINVAL in Linux 6.1's
 * core, with EOPNOTSUPP in 6.12's (siw2 builds for those two).
 */
static int odp_refusal(void)
{
	struct utsname u;
	unsigned int maj = 0, min = 0;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return EOPNOTSUPP;
	return (maj < 6 || (maj == 6 && min < 12)) ? EINVAL : EOPNOTSUPP;
}

static int reg_mr_errno(struct env *e, void *addr, size_t len, int access)
{
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_mr(e->pd, addr, len, access);
	if (mr) {
		ibv_dereg_mr(mr);
		return 0;
	}
	return errno ? errno : -1;
}

static int create_srq_errno(struct env *e, uint32_t wr, uint32_t sge,
			    struct ibv_srq **out)
{
	struct ibv_srq_init_attr a = {
		.attr = { .max_wr = wr, .max_sge = sge },
	};
	struct ibv_srq *srq;

	errno = 0;
	srq = ibv_create_srq(e->pd, &a);
	if (out)
		*out = srq;
	else if (srq)
		ibv_destroy_srq(srq);
	return srq ? 0 : (errno ? errno : -1);
}

static int modify_state(struct ibv_qp *qp, enum ibv_qp_state st)
{
	struct ibv_qp_attr a = { .qp_state = st };
	int mask = IBV_QP_STATE;

	if (st == IBV_QPS_INIT) {
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		a.port_num = 1;
		mask |= IBV_QP_ACCESS_FLAGS | IBV_QP_PORT;
	}
	return rc_errno(ibv_modify_qp(qp, &a, mask));
}

static int qp_state(struct ibv_qp *qp, struct ibv_qp_init_attr *init)
{
	struct ibv_qp_init_attr dummy;
	struct ibv_qp_attr a;
	int rc;

	memset(&a, 0, sizeof(a));
	rc = ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_CAP,
			  init ? init : &dummy);
	return rc ? -rc_errno(rc) : (int)a.qp_state;
}

static const char *state_name(int st)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS",
					 "SQD", "SQE", "ERR" };

	if (st >= 0 && st < (int)(sizeof(n) / sizeof(n[0])))
		return n[st];
	return "?";
}

static void check_state(const char *name, struct ibv_qp *qp, int expect)
{
	int st = qp_state(qp, NULL);

	check(name, st == expect, "expected %s, got %s (%d)",
	      state_name(expect), state_name(st), st);
}

static int post_recv_ids(struct ibv_qp *qp, struct env *e, uint64_t first,
			 int n, int num_sge)
{
	struct ibv_sge sge[64];
	struct ibv_recv_wr wr, *bad;
	int i, rc;

	for (i = 0; i < num_sge && i < 64; i++)
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)e->buf,
					   .length = 64, .lkey = e->mr->lkey };
	for (i = 0; i < n; i++) {
		wr = (struct ibv_recv_wr){ .wr_id = first + i, .sg_list = sge,
					   .num_sge = num_sge };
		rc = ibv_post_recv(qp, &wr, &bad);
		if (rc)
			return rc_errno(rc);
	}
	return 0;
}

static int post_srq_ids(struct ibv_srq *srq, struct env *e, uint64_t first,
			int n)
{
	struct ibv_sge sge = { .addr = (uintptr_t)e->buf, .length = 64,
			       .lkey = e->mr->lkey };
	struct ibv_recv_wr wr, *bad;
	int i, rc;

	for (i = 0; i < n; i++) {
		wr = (struct ibv_recv_wr){ .wr_id = first + i, .sg_list = &sge,
					   .num_sge = 1 };
		rc = ibv_post_srq_recv(srq, &wr, &bad);
		if (rc)
			return rc_errno(rc);
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Poll until n completions arrived or the deadline passed. */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, double tmo)
{
	double end = now_s() + tmo;
	int got = 0, rc;

	while (got < n && now_s() < end) {
		rc = ibv_poll_cq(cq, n - got, wc + got);
		if (rc < 0)
			return rc;
		got += rc;
	}
	return got;
}

/* ------------------------------------------------------------------ */
/* Tests                                                              */

static struct ibv_context *open_named(void)
{
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *ctx;
	int i, n;

	list = ibv_get_device_list(&n);
	if (!list)
		fatal("ibv_get_device_list");
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), opt_dev))
			dev = list[i];
	if (!dev) {
		errno = ENODEV;
		fatal("device present in ibv_get_device_list");
	}
	check("device node type RNIC", dev->node_type == IBV_NODE_RNIC,
	      "%s", ibv_node_type_str(dev->node_type));
	check("device transport iWARP",
	      dev->transport_type == IBV_TRANSPORT_IWARP, "transport %d",
	      dev->transport_type);
	ctx = ibv_open_device(dev);
	if (!ctx)
		fatal("ibv_open_device");
	ibv_free_device_list(list);
	return ctx;
}

static void test_device(struct env *e)
{
	struct ibv_device_attr *d = &e->dattr;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	int rc;

	rc = ibv_query_device(e->ctx, d);
	if (rc) {
		errno = rc_errno(rc);
		fatal("ibv_query_device");
	}
	note("max_qp %d max_cq %d max_pd %d max_mr %d max_srq %d", d->max_qp,
	     d->max_cq, d->max_pd, d->max_mr, d->max_srq);
	note("max_qp_wr %d max_sge %d max_sge_rd %d max_cqe %d max_srq_wr %d max_srq_sge %d",
	     d->max_qp_wr, d->max_sge, d->max_sge_rd, d->max_cqe,
	     d->max_srq_wr, d->max_srq_sge);
	check("query_device fw_ver has siw2 marker",
	      !strncmp(d->fw_ver, FW_MARKER, strlen(FW_MARKER)), "'%s'",
	      d->fw_ver);
	check("query_device max_qp/cq/pd/mr/srq > 0",
	      d->max_qp > 0 && d->max_cq > 0 && d->max_pd > 0 &&
	      d->max_mr > 0 && d->max_srq > 0, "see above");
	check("query_device max_qp_wr/sge/cqe/srq_wr/srq_sge > 0",
	      d->max_qp_wr > 0 && d->max_sge > 0 && d->max_cqe > 0 &&
	      d->max_srq_wr > 0 && d->max_srq_sge > 0, "see above");
	check("query_device max_mr_size > 0", d->max_mr_size > 0,
	      "%" PRIu64, (uint64_t)d->max_mr_size);
	check("query_device phys_port_cnt == 1", d->phys_port_cnt == 1,
	      "%u", d->phys_port_cnt);
	check("query_device node_guid != 0", d->node_guid != 0, "0x%016" PRIx64,
	      (uint64_t)be64toh(d->node_guid));
	note("vendor_id 0x%x vendor_part_id 0x%x hw_ver 0x%x", d->vendor_id,
	     d->vendor_part_id, d->hw_ver);

	rc = rc_errno(ibv_query_port(e->ctx, 1, &pa));
	check_errno("query_port 1", 0, rc);
	if (!rc) {
		check("port link layer Ethernet",
		      pa.link_layer == IBV_LINK_LAYER_ETHERNET, "%u",
		      pa.link_layer);
		check("port state ACTIVE", pa.state == IBV_PORT_ACTIVE, "%s",
		      ibv_port_state_str(pa.state));
		check("port gid_tbl_len >= 1", pa.gid_tbl_len >= 1, "%d",
		      pa.gid_tbl_len);
	}
	rc = rc_errno(ibv_query_gid(e->ctx, 1, 0, &gid));
	check("query_gid 0 non-zero (MAC based)",
	      !rc && (gid.global.subnet_prefix || gid.global.interface_id),
	      "rc %d", rc);
}

static void test_cq(struct env *e)
{
	int max = e->dattr.max_cqe;
	struct ibv_cq *cq = NULL;
	int rc;

	check_errno("create_cq cqe=1", 0, create_cq_errno(e, 1, NULL));
	check_errno("create_cq cqe=0 -> EINVAL", EINVAL,
		    create_cq_errno(e, 0, NULL));
	check_errno("create_cq cqe=-1 -> EINVAL", EINVAL,
		    create_cq_errno(e, -1, NULL));
	check_errno("create_cq cqe=max_cqe", 0, create_cq_errno(e, max, NULL));
	check_errno("create_cq cqe=max_cqe+1 -> EINVAL", EINVAL,
		    create_cq_errno(e, max + 1, NULL));

	rc = create_cq_errno(e, 4, &cq);
	if (!check_errno("create_cq cqe=4 for resize", 0, rc))
		return;
	check("create_cq returns cqe >= 4", cq->cqe >= 4, "%d", cq->cqe);
	check_errno("resize_cq 4 -> 32", 0, rc_errno(ibv_resize_cq(cq, 32)));
	check("resize_cq cqe >= 32", cq->cqe >= 32, "%d", cq->cqe);
	check_errno("resize_cq -> max_cqe+1 -> EINVAL", EINVAL,
		    rc_errno(ibv_resize_cq(cq, max + 1)));
	check_errno("resize_cq -> 0 -> EINVAL", EINVAL,
		    rc_errno(ibv_resize_cq(cq, 0)));
	check_errno("resize_cq 32 -> 8 (empty CQ)", 0,
		    rc_errno(ibv_resize_cq(cq, 8)));
	check_errno("req_notify_cq", 0, rc_errno(ibv_req_notify_cq(cq, 0)));
	check_errno("destroy_cq", 0, rc_errno(ibv_destroy_cq(cq)));
}

static void test_mr(struct env *e)
{
	int lw = IBV_ACCESS_LOCAL_WRITE;
	size_t pg = sysconf(_SC_PAGESIZE);
	void *hole;

	check_errno("reg_mr local write", 0, reg_mr_errno(e, e->buf, 4096, lw));
	check_errno("reg_mr read-only (access 0)", 0,
		    reg_mr_errno(e, e->buf, 4096, 0));
	check_errno("reg_mr unaligned addr/len", 0,
		    reg_mr_errno(e, e->buf + 3, 1000, lw));
	check_errno("reg_mr length 0 -> EINVAL", EINVAL,
		    reg_mr_errno(e, e->buf, 0, lw));
	check_errno("reg_mr remote write w/o local write -> EINVAL", EINVAL,
		    reg_mr_errno(e, e->buf, 4096, IBV_ACCESS_REMOTE_WRITE));
	check_errno("reg_mr remote atomic w/o local write -> EINVAL", EINVAL,
		    reg_mr_errno(e, e->buf, 4096, IBV_ACCESS_REMOTE_ATOMIC));
	check_errno("reg_mr ON_DEMAND -> refused by the core", odp_refusal(),
		    reg_mr_errno(e, e->buf, 4096, lw | IBV_ACCESS_ON_DEMAND));

	hole = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		fatal("mmap");
	munmap(hole, 4 * pg);
	check_errno("reg_mr unmapped address -> EFAULT", EFAULT,
		    reg_mr_errno(e, hole, 4 * pg, lw));
}

static void find_max_inline(struct env *e)
{
	struct ibv_qp_init_attr a;
	uint32_t lo = 0, hi = 1u << 16, mid;

	rc_init_attr(e, &a, NULL);
	if (create_qp_errno(e, &a, NULL) == 0 && a.cap.max_inline_data) {
		e->max_inline = a.cap.max_inline_data;
		note("max inline reported by create_qp: %u", e->max_inline);
		return;
	}
	/* Not reported: find the largest accepted value (it is rejected,
	 * never rounded down, above the maximum). */
	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		rc_init_attr(e, &a, NULL);
		a.cap.max_inline_data = mid;
		if (create_qp_errno(e, &a, NULL) == 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	e->max_inline = lo;
	note("max inline found by probing: %u", e->max_inline);
}

static void qp_create_case(struct env *e, const char *name, int expect,
			   void (*tweak)(struct env *, struct ibv_qp_init_attr *))
{
	struct ibv_qp_init_attr a;

	rc_init_attr(e, &a, NULL);
	tweak(e, &a);
	check_errno(name, expect, create_qp_errno(e, &a, NULL));
}

#define TWEAK(fn, body) \
	static void fn(struct env *e, struct ibv_qp_init_attr *a) \
	{ (void)e; body; }
TWEAK(tw_none, (void)a)
TWEAK(tw_swr_big, a->cap.max_send_wr = e->dattr.max_qp_wr + 1)
TWEAK(tw_rwr_big, a->cap.max_recv_wr = e->dattr.max_qp_wr + 1)
TWEAK(tw_swr_max, a->cap.max_send_wr = e->dattr.max_qp_wr)
TWEAK(tw_swr_zero, a->cap.max_send_wr = 0)
TWEAK(tw_rwr_zero, a->cap.max_recv_wr = 0)
TWEAK(tw_ssge_big, a->cap.max_send_sge = e->dattr.max_sge + 1)
TWEAK(tw_rsge_big, a->cap.max_recv_sge = e->dattr.max_sge + 1)
TWEAK(tw_sge_max, a->cap.max_send_sge = a->cap.max_recv_sge =
			  e->dattr.max_sge)
TWEAK(tw_inl_max, a->cap.max_inline_data = e->max_inline)
TWEAK(tw_inl_big, a->cap.max_inline_data = e->max_inline + 1)
TWEAK(tw_ud, a->qp_type = IBV_QPT_UD)
TWEAK(tw_uc, a->qp_type = IBV_QPT_UC)
TWEAK(tw_xrc_send, a->qp_type = IBV_QPT_XRC_SEND)
TWEAK(tw_raw, a->qp_type = IBV_QPT_RAW_PACKET)

static void test_qp_create(struct env *e)
{
	find_max_inline(e);
	qp_create_case(e, "create_qp RC", 0, tw_none);
	qp_create_case(e, "create_qp max_send_wr=max_qp_wr", 0, tw_swr_max);
	qp_create_case(e, "create_qp max_send_wr>max_qp_wr -> EINVAL", EINVAL,
		       tw_swr_big);
	qp_create_case(e, "create_qp max_recv_wr>max_qp_wr -> EINVAL", EINVAL,
		       tw_rwr_big);
	qp_create_case(e, "create_qp max_send_wr=0 -> EINVAL", EINVAL,
		       tw_swr_zero);
	/* A send-only QP is legal (as in Linux siw); receives then fail. */
	qp_create_case(e, "create_qp max_recv_wr=0 no SRQ (send-only)", 0,
		       tw_rwr_zero);
	qp_create_case(e, "create_qp sge=max_sge", 0, tw_sge_max);
	qp_create_case(e, "create_qp max_send_sge>max_sge -> EINVAL", EINVAL,
		       tw_ssge_big);
	qp_create_case(e, "create_qp max_recv_sge>max_sge -> EINVAL", EINVAL,
		       tw_rsge_big);
	qp_create_case(e, "create_qp max_inline=device max", 0, tw_inl_max);
	qp_create_case(e, "create_qp max_inline>device max -> EINVAL", EINVAL,
		       tw_inl_big);
	qp_create_case(e, "create_qp UD -> EOPNOTSUPP", EOPNOTSUPP, tw_ud);
	qp_create_case(e, "create_qp UC -> EOPNOTSUPP", EOPNOTSUPP, tw_uc);
	/* XRC_SEND needs no XRCD, so libibverbs passes it to the kernel. */
	qp_create_case(e, "create_qp XRC_SEND -> EOPNOTSUPP", EOPNOTSUPP,
		       tw_xrc_send);
	/* RAW_PACKET reaches the driver when run as root (CAP_NET_RAW). */
	if (geteuid() == 0)
		qp_create_case(e, "create_qp RAW_PACKET -> EOPNOTSUPP",
			       EOPNOTSUPP, tw_raw);
	/*
	 * XRC_RECV is not tested through ibv_create_qp: libibverbs itself
	 * fails it with EINVAL (no XRCD in the attributes), so the kernel
	 * never sees it.
	 */
}

static void check_flushes(struct ibv_cq *cq, uint32_t qpn, int n)
{
	struct ibv_wc wc[64];
	int got, i, bad = 0;

	if (n > 64)
		n = 64;
	got = poll_n(cq, wc, n, 5.0);
	check("flush: all queued receives completed", got == n,
	      "expected %d, got %d", n, got);
	for (i = 0; i < got; i++) {
		if (wc[i].status != IBV_WC_WR_FLUSH_ERR ||
		    wc[i].wr_id != (uint64_t)i || wc[i].qp_num != qpn) {
			printf("#   wc[%d]: wr_id %" PRIu64 " status %s qp %u\n",
			       i, wc[i].wr_id, ibv_wc_status_str(wc[i].status),
			       wc[i].qp_num);
			bad++;
		}
	}
	check("flush: status WR_FLUSH_ERR, wr_id in order, qp_num", !bad,
	      "%d bad of %d", bad, got);
	check("flush: no extra completions", poll_n(cq, wc, 1, 0.2) == 0,
	      "CQ empty");
}

static void test_qp_states(struct env *e)
{
	struct ibv_send_wr swr = { .wr_id = 1, .opcode = IBV_WR_SEND }, *sbad;
	struct ibv_qp_init_attr a, qa;
	struct ibv_cq *cq = NULL;
	struct ibv_qp *qp = NULL;
	int depth, sge_max, half, st;

	if (create_cq_errno(e, 64, &cq))
		fatal("create_cq for state test");
	rc_init_attr(e, &a, NULL);
	a.send_cq = a.recv_cq = cq;
	a.cap.max_recv_wr = 8;
	/* QP limit == device limit: "num_sge > max" is then unambiguous. */
	a.cap.max_recv_sge = e->dattr.max_sge;
	if (create_qp_errno(e, &a, &qp))
		fatal("create_qp for state test");
	depth = a.cap.max_recv_wr;
	sge_max = a.cap.max_recv_sge;
	check("create_qp caps >= requested",
	      a.cap.max_send_wr >= 4 && depth >= 8 && a.cap.max_send_sge >= 1 &&
	      sge_max >= 1, "swr %u rwr %u ssge %u rsge %u inline %u",
	      a.cap.max_send_wr, depth, a.cap.max_send_sge, sge_max,
	      a.cap.max_inline_data);

	st = qp_state(qp, &qa);
	/* iWARP verbs have no Reset state: an RNIC's new QP is in INIT. */
	check("new QP is INIT", st == IBV_QPS_INIT, "%s", state_name(st));
	check("query_qp init caps match create",
	      qa.cap.max_recv_wr == (uint32_t)depth &&
	      qa.cap.max_send_wr == a.cap.max_send_wr, "rwr %u swr %u",
	      qa.cap.max_recv_wr, qa.cap.max_send_wr);
	check_errno("post_recv on the new QP", 0,
		    post_recv_ids(qp, e, 3000, 1, 1));
	/* Reset discards it: no completion (check_flushes counts them). */
	check_errno("modify INIT->RESET", 0, modify_state(qp, IBV_QPS_RESET));
	check_state("query_qp state RESET", qp, IBV_QPS_RESET);
	check_errno("modify RESET->RTR -> EINVAL", EINVAL,
		    modify_state(qp, IBV_QPS_RTR));
	check_errno("modify RESET->SQD -> EINVAL", EINVAL,
		    modify_state(qp, IBV_QPS_SQD));
	check_errno("post_send in RESET -> ENOTCONN", ENOTCONN,
		    rc_errno(ibv_post_send(qp, &swr, &sbad)));
	/* RTS must be entered from INIT/RTR (Documentation/design.md). */
	check_errno("modify RESET->RTS -> EINVAL", EINVAL,
		    modify_state(qp, IBV_QPS_RTS));
	check_errno("post_recv in RESET -> EINVAL", EINVAL,
		    post_recv_ids(qp, e, 2000, 1, 1));

	check_errno("modify RESET->INIT (access, port)", 0,
		    modify_state(qp, IBV_QPS_INIT));
	check_state("query_qp state INIT", qp, IBV_QPS_INIT);
	check_errno("modify INIT->RTS -> ENOTCONN", ENOTCONN,
		    modify_state(qp, IBV_QPS_RTS));
	check_state("state still INIT after refused RTS", qp, IBV_QPS_INIT);
	check_errno("post_send in INIT -> ENOTCONN", ENOTCONN,
		    rc_errno(ibv_post_send(qp, &swr, &sbad)));
	check_errno("post_recv num_sge>max_recv_sge -> EINVAL", EINVAL,
		    post_recv_ids(qp, e, 1000, 1, sge_max + 1));

	half = depth / 2;
	check_errno("post_recv in INIT", 0, post_recv_ids(qp, e, 0, half, 1));
	check_errno("modify INIT->RTR (no-op on iWARP)", 0,
		    modify_state(qp, IBV_QPS_RTR));
	note("state after INIT->RTR: %s", state_name(qp_state(qp, NULL)));
	check_errno("modify RTR->RTS -> ENOTCONN", ENOTCONN,
		    modify_state(qp, IBV_QPS_RTS));
	check_errno("post_recv in RTR", 0,
		    post_recv_ids(qp, e, half, depth - half, 1));
	check_errno("post_recv beyond queue depth -> ENOMEM", ENOMEM,
		    post_recv_ids(qp, e, 999, 1, 1));
	check_errno("post_send in RTR -> ENOTCONN", ENOTCONN,
		    rc_errno(ibv_post_send(qp, &swr, &sbad)));

	check_errno("modify ->ERR", 0, modify_state(qp, IBV_QPS_ERR));
	check_state("query_qp state ERR", qp, IBV_QPS_ERR);
	if (depth >= 2)
		check_errno("resize_cq below queued CQEs -> EINVAL", EINVAL,
			    rc_errno(ibv_resize_cq(cq, depth - 1)));
	check_flushes(cq, qp->qp_num, depth);
	check_errno("modify ERR->RESET", 0, modify_state(qp, IBV_QPS_RESET));
	check_state("query_qp state RESET", qp, IBV_QPS_RESET);
	check_errno("modify RESET->INIT again", 0,
		    modify_state(qp, IBV_QPS_INIT));
	check_errno("modify INIT->ERR", 0, modify_state(qp, IBV_QPS_ERR));

	check_errno("destroy_cq in use by QP -> EBUSY", EBUSY,
		    rc_errno(ibv_destroy_cq(cq)));
	check_errno("destroy_qp", 0, rc_errno(ibv_destroy_qp(qp)));
	check_errno("destroy_cq after QP gone", 0, rc_errno(ibv_destroy_cq(cq)));
}

static void test_srq(struct env *e)
{
	uint32_t mwr = e->dattr.max_srq_wr, msge = e->dattr.max_srq_sge;
	struct ibv_srq_attr sa;
	struct ibv_qp_init_attr a;
	struct ibv_srq *srq = NULL;
	uint32_t depth;

	check_errno("create_srq max_wr=0 -> EINVAL", EINVAL,
		    create_srq_errno(e, 0, 1, NULL));
	check_errno("create_srq max_wr>max_srq_wr -> EINVAL", EINVAL,
		    create_srq_errno(e, mwr + 1, 1, NULL));
	check_errno("create_srq max_sge>max_srq_sge -> EINVAL", EINVAL,
		    create_srq_errno(e, 4, msge + 1, NULL));
	check_errno("create_srq max_wr=max_srq_wr", 0,
		    create_srq_errno(e, mwr, msge, NULL));
	if (!check_errno("create_srq max_wr=8", 0,
			 create_srq_errno(e, 8, 1, &srq)))
		return;

	memset(&sa, 0, sizeof(sa));
	check_errno("query_srq", 0, rc_errno(ibv_query_srq(srq, &sa)));
	check("query_srq max_wr>=8 max_sge>=1 limit 0",
	      sa.max_wr >= 8 && sa.max_sge >= 1 && sa.srq_limit == 0,
	      "max_wr %u max_sge %u limit %u", sa.max_wr, sa.max_sge,
	      sa.srq_limit);
	depth = sa.max_wr;

	check_errno("post_srq_recv up to depth", 0,
		    post_srq_ids(srq, e, 0, depth));
	check_errno("post_srq_recv beyond depth -> ENOMEM", ENOMEM,
		    post_srq_ids(srq, e, 999, 1));

	sa = (struct ibv_srq_attr){ .srq_limit = depth };
	check_errno("modify_srq limit>=max_wr -> EINVAL", EINVAL,
		    rc_errno(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT)));
	sa = (struct ibv_srq_attr){ .srq_limit = 2 };
	check_errno("modify_srq arm limit 2", 0,
		    rc_errno(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT)));
	memset(&sa, 0, sizeof(sa));
	ibv_query_srq(srq, &sa);
	check("query_srq shows limit 2 and depth", sa.srq_limit == 2 &&
	      sa.max_wr == depth, "limit %u max_wr %u", sa.srq_limit,
	      sa.max_wr);

	rc_init_attr(e, &a, srq);
	check_errno("create_qp with SRQ, max_recv_wr=0", 0,
		    create_qp_errno(e, &a, NULL));
	check_errno("destroy_srq", 0, rc_errno(ibv_destroy_srq(srq)));
}

/* All five object kinds alive at once; compare with debugfs. */
static void test_live_counts(struct env *e)
{
	struct ibv_qp_init_attr a;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_pd *pd2;
	struct ibv_mr *mr2;

	if (!opt_debugfs)
		return;
	check_counts(1, 1, 1, 0, 0);
	pd2 = ibv_alloc_pd(e->ctx);
	mr2 = ibv_reg_mr(e->pd, e->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	create_srq_errno(e, 4, 1, &srq);
	rc_init_attr(e, &a, NULL);
	create_qp_errno(e, &a, &qp);
	if (!pd2 || !mr2 || !srq || !qp)
		check("create objects for count check", false, "errno %d",
		      errno);
	check_counts(2, 1, 2, 1, 1);
	if (qp)
		ibv_destroy_qp(qp);
	if (srq)
		ibv_destroy_srq(srq);
	if (mr2)
		ibv_dereg_mr(mr2);
	if (pd2)
		ibv_dealloc_pd(pd2);
	check_counts(1, 1, 1, 0, 0);
}

static void test_busy(struct env *e)
{
	struct ibv_qp_init_attr a;
	struct ibv_pd *pd = ibv_alloc_pd(e->ctx), *keep = e->pd;
	struct ibv_qp *qp = NULL;
	struct ibv_mr *mr;

	if (!pd)
		fatal("alloc_pd for EBUSY test");
	mr = ibv_reg_mr(pd, e->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		fatal("reg_mr for EBUSY test");
	check_errno("dealloc_pd with live MR -> EBUSY", EBUSY,
		    rc_errno(ibv_dealloc_pd(pd)));
	ibv_dereg_mr(mr);
	e->pd = pd;
	rc_init_attr(e, &a, NULL);
	create_qp_errno(e, &a, &qp);
	e->pd = keep;
	if (!qp)
		fatal("create_qp for EBUSY test");
	check_errno("dealloc_pd with live QP -> EBUSY", EBUSY,
		    rc_errno(ibv_dealloc_pd(pd)));
	ibv_destroy_qp(qp);
	check_errno("dealloc_pd once empty", 0, rc_errno(ibv_dealloc_pd(pd)));
}

/* ------------------------------------------------------------------ */
/* --limits: fill each table to max_<kind>                            */

enum kind { K_PD, K_CQ, K_MR, K_SRQ, K_QP };

static void *make_one(struct env *e, enum kind k)
{
	struct ibv_qp_init_attr a;
	struct ibv_qp *qp = NULL;
	struct ibv_srq *srq = NULL;

	errno = 0;
	switch (k) {
	case K_PD:
		return ibv_alloc_pd(e->ctx);
	case K_CQ:
		return ibv_create_cq(e->ctx, 1, NULL, NULL, 0);
	case K_MR:
		return ibv_reg_mr(e->pd, e->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	case K_SRQ:
		create_srq_errno(e, 1, 1, &srq);
		return srq;
	case K_QP:
		rc_init_attr(e, &a, NULL);
		a.cap.max_send_wr = a.cap.max_recv_wr = 1;
		create_qp_errno(e, &a, &qp);
		return qp;
	}
	return NULL;
}

static void free_one(enum kind k, void *o)
{
	switch (k) {
	case K_PD: ibv_dealloc_pd(o); break;
	case K_CQ: ibv_destroy_cq(o); break;
	case K_MR: ibv_dereg_mr(o); break;
	case K_SRQ: ibv_destroy_srq(o); break;
	case K_QP: ibv_destroy_qp(o); break;
	}
}

static void fill_table(struct env *e, enum kind k, const char *name,
		       int max, int held)
{
	static void *objs[LIMIT_LOOP_CAP];
	char msg[96];
	int n = 0, err = 0, i;

	if (max <= 0 || max - held > LIMIT_LOOP_CAP - 1) {
		snprintf(msg, sizeof(msg), "limit %s: max small enough", name);
		check(msg, false, "max %d: load with small max_* params", max);
		return;
	}
	while (n < LIMIT_LOOP_CAP) {
		objs[n] = make_one(e, k);
		if (!objs[n]) {
			err = errno;
			break;
		}
		n++;
	}
	snprintf(msg, sizeof(msg), "limit %s: created up to max_%s", name, name);
	check(msg, n + held == max, "max %d, held %d, created %d", max, held,
	      n);
	snprintf(msg, sizeof(msg), "limit %s: one more -> ENOMEM", name);
	check_errno(msg, ENOMEM, err);
	if (opt_debugfs) {
		snprintf(msg, sizeof(msg), "%ss", name);
		check_count(msg, n + held);
	}
	for (i = n - 1; i >= 0; i--)
		free_one(k, objs[i]);
}

static void test_limits(struct env *e)
{
	struct ibv_device_attr *d = &e->dattr;

	/* Held by this program meanwhile: e->pd, e->cq, e->mr. */
	fill_table(e, K_PD, "pd", d->max_pd, 1);
	fill_table(e, K_CQ, "cq", d->max_cq, 1);
	fill_table(e, K_MR, "mr", d->max_mr, 1);
	fill_table(e, K_SRQ, "srq", d->max_srq, 0);
	fill_table(e, K_QP, "qp", d->max_qp, 0);
}

/* ------------------------------------------------------------------ */

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s -d IBDEV [--limits] [--debugfs DIR]\n",
		argv0);
	exit(2);
}

static void parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "limits", no_argument, NULL, 'l' },
		{ "debugfs", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "d:lD:", lo, NULL)) != -1) {
		switch (c) {
		case 'd': opt_dev = optarg; break;
		case 'l': opt_limits = true; break;
		case 'D': opt_debugfs = optarg; break;
		default: usage(argv[0]);
		}
	}
	if (!opt_dev || optind != argc)
		usage(argv[0]);
}

static void setup(struct env *e)
{
	e->ctx = open_named();
	test_device(e);
	e->pd = ibv_alloc_pd(e->ctx);
	if (!e->pd)
		fatal("alloc_pd");
	e->cq = ibv_create_cq(e->ctx, 16, NULL, NULL, 0);
	if (!e->cq)
		fatal("create_cq");
	e->buf_len = 1 << 16;
	e->buf = aligned_alloc(4096, e->buf_len);
	if (!e->buf)
		fatal("aligned_alloc");
	memset(e->buf, 0, e->buf_len);
	e->mr = ibv_reg_mr(e->pd, e->buf, e->buf_len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	if (!e->mr)
		fatal("reg_mr");
}

static void teardown(struct env *e)
{
	check_errno("dealloc_pd with live MR (main) -> EBUSY", EBUSY,
		    rc_errno(ibv_dealloc_pd(e->pd)));
	check_errno("dereg_mr", 0, rc_errno(ibv_dereg_mr(e->mr)));
	check_errno("destroy_cq", 0, rc_errno(ibv_destroy_cq(e->cq)));
	check_errno("dealloc_pd", 0, rc_errno(ibv_dealloc_pd(e->pd)));
	check_counts(0, 0, 0, 0, 0);
	check_errno("close_device", 0, rc_errno(ibv_close_device(e->ctx)));
	free(e->buf);
}

int main(int argc, char **argv)
{
	struct env e = { 0 };

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	setup(&e);
	test_live_counts(&e);
	test_cq(&e);
	test_mr(&e);
	test_qp_create(&e);
	test_qp_states(&e);
	test_srq(&e);
	test_busy(&e);
	if (opt_limits)
		test_limits(&e);
	test_live_counts(&e);
	teardown(&e);
	printf("summary: %d ok, %d FAIL\n", n_ok, n_fail);
	return n_fail ? 1 : 0;
}
