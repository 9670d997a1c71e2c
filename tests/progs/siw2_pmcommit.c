// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_pmcommit: RDMA Commits of large ranges of persistent memory, of
 * ranges the kernel knows poisoned, and what registering a DAX file does
 * (issue 34 item 5; draft-talpey-rdma-commit through siw2dv_wr_commit_ex()).
 *
 *   siw2_pmcommit reg -d IBDEV -f PATH [-l LEN]
 *   siw2_pmcommit serve -a ADDR [-p PORT] -f PATH -l LEN [-n CONNS] [-t SECS]
 *   siw2_pmcommit commit -a ADDR [-p PORT] [-t SECS] [--write OFF:LEN]
 *                        [--log OFF] [--repeat SECS [--stop FILE]] STEP...
 *
 * reg: maps LEN octets (default 2 MiB) of PATH (a device-DAX device or a
 * file, MAP_SHARED) and registers the mapping with
 * ibv_reg_mr() twice: with local write and remote read and write
 * ("plain"), and with SIW2DV_ACCESS_FLUSH_PERSISTENT too ("durable").
 * Prints "PMC REG plain ok" or "PMC REG plain errno N NAME (text)", the
 * same for durable; the calling script judges them. Exit 0 unless the
 * mapping itself fails.
 *
 * serve: maps LEN octets of PATH and registers them durable once, at the
 * first connection (a failure is fatal), then answers CONNS connections
 * (default 1), naming the window (address, STag, length) in the accept's
 * private data, each until the client disconnects. It asks to be told
 * early of memory failures (PR_MCE_KILL_EARLY), as a server of
 * persistent memory should: the kernel's memory failure handling then
 * sends it SIGBUS (BUS_MCEERR_AO) for a page of the window it poisons,
 * which is counted and printed at the end: "PMC SIGBUS n=N code=C
 * off=OFF". Last line "PMC OK side=server conns=N".
 *
 * commit: connects, and for each STEP, OFF:LEN[:STATUS], posts one
 * Commit of [OFF, OFF + LEN) of the window that needs durability
 * (SIW2DV_COMMIT_PERSISTENT) and waits for it: it must end with STATUS
 * (default 0: IBV_WC_SUCCESS; 4: IBV_WC_REM_ACCESS_ERR with vendor_err 4,
 * SIW2-DEC-2; any other: IBV_WC_REM_OP_ERR with the Status as vendor_err,
 * DEC-13), and the QP stays usable for the next (COMMIT-ERR-3). Each
 * Commit prints "PMC COMMIT off=.. len=.. status=S us=T". --write: first
 * an RDMA Write of a pattern to [OFF, OFF + LEN) (at most 1 MiB), read
 * back with an RDMA Read after the steps. --log OFF: every Commit carries
 * a log update of the window's word at OFF (SIW2-DEC-1). --repeat SECS:
 * the steps again until SECS have passed (at least once), or until FILE
 * exists (--stop); "PMC RUNNING" follows the first Commit. The client
 * waits for completions by polling with short sleeps, not by spinning,
 * so that it leaves the CPUs to what runs beside it. Last line
 * "PMC OK side=client commits=N us min=.. median=.. max=..".
 *
 * Needs the siw2 provider this program links, with rings:
 * RDMAV_DRIVERS=<tree>/userspace-provider/build/libsiw2.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "cm_common.h"
#include "siw2dv.h"

#define MAX_STEPS	16
#define MAX_WRITE	(1u << 20)
#define MAX_COMMITS	100000
#define LOG_MAGIC	0x504d430000000000ULL	/* "PMC" and the step */

/* The server's window, in the accept's private data. */
struct hello {
	uint64_t addr;
	uint64_t len;
	uint32_t rkey;
	uint32_t pad;
};

struct step {
	uint64_t off;
	uint32_t len;
	uint32_t status;
};

static struct {
	const char *dev;
	const char *path;
	const char *addr;
	const char *port;
	uint64_t len;
	int conns;
	int timeout;
	double repeat;
	bool write;
	uint64_t write_off;
	uint32_t write_len;
	bool log;
	uint64_t log_off;
	const char *stop;
	struct step steps[MAX_STEPS];
	int nsteps;
} opt = { .port = "7850", .conns = 1, .timeout = 60, .len = 2u << 20 };

static const char *side = "?";
static struct rdma_event_channel *cm_chan;
static struct rdma_cm_id *id;
static struct ibv_pd *pd;
static struct ibv_cq_ex *cqx;
static struct ibv_qp_ex *qpx;
static struct hello peer;

static volatile sig_atomic_t sigbus_n, sigbus_code;
static void *volatile sigbus_addr;

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("PMC FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static uint8_t pat(uint64_t off)
{
	return (uint8_t)(off * 131u + (off >> 8) + 7);
}

/*
 * PATH's first @len octets, mapped shared. Pages are not touched: the
 * registration faults them in, and a write would make the emulated
 * NVDIMM's sparse backing file real on the host.
 */
static uint8_t *map_path(const char *path, uint64_t len)
{
	void *p;
	int fd;

	fd = open(path, O_RDWR);
	if (fd < 0)
		fail_errno(path);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		fail_errno("mmap");
	return p;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **l = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!l)
		fail_errno("ibv_get_device_list");
	for (i = 0; l[i]; i++)
		if (!strcmp(ibv_get_device_name(l[i]), name))
			ctx = ibv_open_device(l[i]);
	ibv_free_device_list(l);
	if (!ctx)
		fail("no device %s (or it cannot be opened)", name);
	return ctx;
}

static void report_reg(struct ibv_pd *p, void *buf, uint64_t len, int access,
		       const char *what)
{
	struct ibv_mr *mr = ibv_reg_mr(p, buf, len, access);

	if (mr) {
		printf("PMC REG %s ok\n", what);
		ibv_dereg_mr(mr);
	} else {
		printf("PMC REG %s errno %d %s (%s)\n", what, errno,
		       strerrorname_np(errno) ?: "?", strerror(errno));
	}
}

static int do_reg(void)
{
	int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		 IBV_ACCESS_REMOTE_READ;
	struct ibv_context *ctx;
	struct ibv_pd *p;
	uint8_t *buf;

	if (!opt.dev || !opt.path)
		fail("reg needs -d IBDEV and -f PATH");
	buf = map_path(opt.path, opt.len);
	ctx = open_dev(opt.dev);
	p = ibv_alloc_pd(ctx);
	if (!p)
		fail_errno("ibv_alloc_pd");
	report_reg(p, buf, opt.len, rw, "plain");
	report_reg(p, buf, opt.len, rw | SIW2DV_ACCESS_FLUSH_PERSISTENT,
		   "durable");
	ibv_dealloc_pd(p);
	ibv_close_device(ctx);
	munmap(buf, opt.len);
	return 0;
}

static void setup(struct rdma_cm_id *cid)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 16, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_READ,
	};

	/* A server's connections share the device context: one PD. */
	if (!pd)
		pd = ibv_alloc_pd(cid->verbs);
	if (!pd)
		fail_errno("ibv_alloc_pd");
	if (!siw2dv_is_siw2_context(cid->verbs))
		fail("not a siw2 device of the linked provider (RDMAV_DRIVERS?)");
	cqx = ibv_create_cq_ex(cid->verbs, &ca);
	if (!cqx)
		fail_errno("ibv_create_cq_ex");
	qa.pd = pd;
	qa.send_cq = ibv_cq_ex_to_cq(cqx);
	qa.recv_cq = qa.send_cq;
	if (rdma_create_qp_ex(cid, &qa))
		fail_errno("rdma_create_qp_ex");
	qpx = ibv_qp_to_qp_ex(cid->qp);
	if (!qpx)
		fail("ibv_qp_to_qp_ex() is NULL");
}

static void teardown(void)
{
	rdma_destroy_qp(id);
	ibv_destroy_cq(ibv_cq_ex_to_cq(cqx));
	rdma_destroy_id(id);
}

/* ---- server ---- */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	sigbus_n++;
	sigbus_code = si->si_code;
	sigbus_addr = si->si_addr;
}

static int do_serve(void)
{
	struct sigaction sa = {
		.sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO | SA_RESTART,
	};
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
	};
	struct rdma_cm_id *lid;
	struct rdma_cm_event *ev;
	struct ibv_mr *mr = NULL;
	struct hello h;
	uint8_t *win;
	double t0;
	int n;

	if (!opt.path || !opt.addr)
		fail("serve needs -a ADDR and -f PATH");
	if (sigaction(SIGBUS, &sa, NULL))
		fail_errno("sigaction");
	if (prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0))
		fail_errno("prctl PR_MCE_KILL_EARLY");
	win = map_path(opt.path, opt.len);
	lid = cm_listen(cm_chan, opt.addr, opt.port);
	for (n = 0; n < opt.conns; n++) {
		ev = cm_get_event(cm_chan, 3600, RDMA_CM_EVENT_CONNECT_REQUEST,
				  "CONNECT_REQUEST");
		id = ev->id;
		rdma_ack_cm_event(ev);
		setup(id);
		if (!mr) {
			t0 = now_s();
			mr = ibv_reg_mr(pd, win, opt.len,
					IBV_ACCESS_LOCAL_WRITE |
					IBV_ACCESS_REMOTE_WRITE |
					IBV_ACCESS_REMOTE_READ |
					SIW2DV_ACCESS_FLUSH_PERSISTENT);
			if (!mr)
				fail_errno("durable ibv_reg_mr of the window");
			printf("PMC MR len=%" PRIu64 " durable rkey=0x%x in %.1f s\n",
			       opt.len, mr->rkey, now_s() - t0);
		}
		memset(&h, 0, sizeof(h));
		h.addr = (uintptr_t)win;
		h.len = opt.len;
		h.rkey = mr->rkey;
		cp.private_data = &h;
		cp.private_data_len = sizeof(h);
		if (rdma_accept(id, &cp))
			fail_errno("rdma_accept");
		rdma_ack_cm_event(cm_get_event(cm_chan, opt.timeout,
					       RDMA_CM_EVENT_ESTABLISHED,
					       "ESTABLISHED"));
		cm_wait_disconnected(cm_chan, 3600);
		printf("PMC CONN %d done\n", n);
		teardown();
	}
	if (mr)
		ibv_dereg_mr(mr);
	ibv_dealloc_pd(pd);
	rdma_destroy_id(lid);
	if (sigbus_n)
		printf("PMC SIGBUS n=%d code=%d off=%" PRId64 "\n",
		       (int)sigbus_n, (int)sigbus_code,
		       (int64_t)((uint8_t *)sigbus_addr - win));
	printf("PMC OK side=server conns=%d\n", n);
	return 0;
}

/* ---- client ---- */

/* The next completion: @wr_id, and the Commit Status it stands for. */
static uint32_t commit_wait(uint64_t wr_id)
{
	struct ibv_poll_cq_attr pa = {};
	double deadline = now_s() + opt.timeout;
	enum ibv_wc_status st;
	uint32_t ve, op;
	uint64_t got;
	int rc;

	while ((rc = ibv_start_poll(cqx, &pa)) == ENOENT) {
		if (now_s() > deadline)
			fail("timeout (%d s) waiting for Commit %" PRIu64,
			     opt.timeout, wr_id);
		usleep(50);
	}
	if (rc)
		fail("ibv_start_poll: %s", strerror(rc));
	got = cqx->wr_id;
	st = cqx->status;
	op = ibv_wc_read_opcode(cqx);
	ve = ibv_wc_read_vendor_err(cqx);
	ibv_end_poll(cqx);
	if (got != wr_id)
		fail("completion of wr_id %" PRIu64 ", want %" PRIu64, got,
		     wr_id);
	if (st == IBV_WC_SUCCESS) {
		if (op != SIW2DV_WC_COMMIT)
			fail("Commit %" PRIu64 " completed as opcode %u", wr_id,
			     op);
		return 0;
	}
	/* SIW2-DEC-2: not durable; DEC-13: the peer's Status otherwise. */
	if ((st == IBV_WC_REM_ACCESS_ERR &&
	     ve == SIW2DV_COMMIT_STATUS_NOT_DURABLE) ||
	    (st == IBV_WC_REM_OP_ERR && ve &&
	     ve != SIW2DV_COMMIT_STATUS_NOT_DURABLE))
		return ve;
	fail("Commit %" PRIu64 " completed with %s vendor_err %u (COMMIT-ERR-3, DEC-13: no such Commit outcome)",
	     wr_id, ibv_wc_status_str(st), ve);
}

static void rw_one(struct ibv_mr *mr, bool write)
{
	struct ibv_poll_cq_attr pa = {};
	double deadline = now_s() + opt.timeout;
	int rc;

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	if (write)
		ibv_wr_rdma_write(qpx, peer.rkey, peer.addr + opt.write_off);
	else
		ibv_wr_rdma_read(qpx, peer.rkey, peer.addr + opt.write_off);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)mr->addr, opt.write_len);
	rc = ibv_wr_complete(qpx);
	if (rc)
		fail("%s post: %s", write ? "Write" : "Read", strerror(rc));
	while ((rc = ibv_start_poll(cqx, &pa)) == ENOENT)
		if (now_s() > deadline)
			fail("timeout waiting for the %s",
			     write ? "Write" : "Read");
	if (rc)
		fail("ibv_start_poll: %s", strerror(rc));
	if (cqx->status != IBV_WC_SUCCESS)
		fail("%s completed with %s", write ? "Write" : "Read",
		     ibv_wc_status_str(cqx->status));
	ibv_end_poll(cqx);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void client_steps(uint32_t *us, int *n)
{
	struct siw2dv_commit_log lg;
	const struct step *s;
	uint32_t status;
	double t0;
	int i, rc;

	for (i = 0; i < opt.nsteps; i++) {
		s = &opt.steps[i];
		if (s->off + s->len > peer.len)
			fail("step %d: [%" PRIu64 ", +%u) is not in the %" PRIu64 "-octet window",
			     i, s->off, s->len, peer.len);
		lg.rkey = peer.rkey;
		lg.addr = peer.addr + opt.log_off;
		lg.value = LOG_MAGIC | (uint64_t)*n;
		t0 = now_s();
		ibv_wr_start(qpx);
		qpx->wr_id = 100 + *n;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		siw2dv_wr_commit_ex(qpx, peer.rkey, peer.addr + s->off, s->len,
				    SIW2DV_COMMIT_PERSISTENT,
				    opt.log ? &lg : NULL);
		rc = ibv_wr_complete(qpx);
		if (rc)
			fail("Commit %d post: %s (the QP left RTS? COMMIT-ERR-3)",
			     *n, strerror(rc));
		status = commit_wait(100 + *n);
		if (*n < MAX_COMMITS)
			us[*n] = (uint32_t)((now_s() - t0) * 1e6);
		printf("PMC COMMIT off=%" PRIu64 " len=%u status=%u us=%u\n",
		       s->off, s->len, status, us[*n < MAX_COMMITS ? *n : 0]);
		if (status != s->status)
			fail("Commit of [%" PRIu64 ", +%u) answered Status %u, want %u (%s)",
			     s->off, s->len, status, s->status,
			     s->status == 1 ? "COMMIT-ERR-3, DEC-13: a poisoned page" :
			     "COMMIT-DUR-1, DEC-13");
		++*n;
	}
}

static int do_commit(void)
{
	struct rdma_conn_param cp = {
		.responder_resources = 16, .initiator_depth = 16,
	};
	static uint32_t us[MAX_COMMITS];
	struct rdma_cm_event *ev;
	struct ibv_mr *mr = NULL;
	double end;
	void *buf = NULL;
	uint32_t i;
	int n = 0, m;

	if (!opt.addr || !opt.nsteps)
		fail("commit needs -a ADDR and at least one step");
	id = cm_route(cm_chan, opt.timeout, opt.addr, opt.port);
	setup(id);
	if (opt.write) {
		if (opt.write_len > MAX_WRITE || !opt.write_len)
			fail("--write: 1 to %u octets", MAX_WRITE);
		if (posix_memalign(&buf, 4096, opt.write_len))
			fail("out of memory");
		mr = ibv_reg_mr(pd, buf, opt.write_len,
				IBV_ACCESS_LOCAL_WRITE);
		if (!mr)
			fail_errno("ibv_reg_mr");
	}
	if (rdma_connect(id, &cp))
		fail_errno("rdma_connect");
	ev = cm_get_event(cm_chan, opt.timeout, RDMA_CM_EVENT_ESTABLISHED,
			  "ESTABLISHED");
	if (ev->param.conn.private_data_len < sizeof(peer))
		fail("hello of %u octets", ev->param.conn.private_data_len);
	memcpy(&peer, ev->param.conn.private_data, sizeof(peer));
	rdma_ack_cm_event(ev);
	printf("PMC PEER len=%" PRIu64 "\n", peer.len);
	if (opt.write) {
		if (opt.write_off + opt.write_len > peer.len)
			fail("--write beyond the window");
		for (i = 0; i < opt.write_len; i++)
			((uint8_t *)buf)[i] = pat(opt.write_off + i);
		rw_one(mr, true);
	}
	end = now_s() + opt.repeat;
	do {
		client_steps(us, &n);
		if (n == opt.nsteps)
			printf("PMC RUNNING\n");
	} while (now_s() < end && n + opt.nsteps <= MAX_COMMITS &&
		 !(opt.stop && !access(opt.stop, F_OK)));
	if (opt.write) {
		memset(buf, 0, opt.write_len);
		rw_one(mr, false);
		for (i = 0; i < opt.write_len; i++)
			if (((uint8_t *)buf)[i] != pat(opt.write_off + i))
				fail("Read back: octet %" PRIu64 " is 0x%02x, want 0x%02x",
				     opt.write_off + i, ((uint8_t *)buf)[i],
				     pat(opt.write_off + i));
		printf("PMC READBACK ok len=%u\n", opt.write_len);
	}
	rdma_disconnect(id);
	cm_wait_disconnected(cm_chan, opt.timeout);
	if (mr)
		ibv_dereg_mr(mr);
	teardown();
	ibv_dealloc_pd(pd);
	m = n < MAX_COMMITS ? n : MAX_COMMITS;
	qsort(us, m, sizeof(us[0]), cmp_u32);
	printf("PMC OK side=client commits=%d us min=%u median=%u max=%u\n", n,
	       us[0], us[m / 2], us[m - 1]);
	return 0;
}

static uint64_t num(const char *s, const char *what)
{
	char *e;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &e, 0);
	if (errno || e == s)
		fail("%s: '%s' is no number", what, s);
	switch (*e) {
	case 'K': v <<= 10; e++; break;
	case 'M': v <<= 20; e++; break;
	case 'G': v <<= 30; e++; break;
	}
	if (*e && *e != ':')
		fail("%s: '%s' is no number", what, s);
	return v;
}

static void parse_step(const char *s)
{
	struct step *st;
	const char *c;

	if (opt.nsteps == MAX_STEPS)
		fail("more than %d steps", MAX_STEPS);
	st = &opt.steps[opt.nsteps++];
	st->off = num(s, "step offset");
	c = strchr(s, ':');
	if (!c)
		fail("step '%s': OFF:LEN[:STATUS]", s);
	st->len = (uint32_t)num(c + 1, "step length");
	c = strchr(c + 1, ':');
	st->status = c ? (uint32_t)num(c + 1, "step status") : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "write", required_argument, NULL, 1 },
		{ "log", required_argument, NULL, 2 },
		{ "repeat", required_argument, NULL, 3 },
		{ "stop", required_argument, NULL, 4 },
		{ }
	};
	const char *mode;
	const char *c;
	int ch;

	if (argc < 2) {
		fprintf(stderr, "usage: see the top of siw2_pmcommit.c\n");
		return 2;
	}
	mode = argv[1];
	optind = 2;
	while ((ch = getopt_long(argc, argv, "d:f:a:p:l:n:t:", lo, NULL)) != -1) {
		switch (ch) {
		case 'd': opt.dev = optarg; break;
		case 'f': opt.path = optarg; break;
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 'l': opt.len = num(optarg, "-l"); break;
		case 'n': opt.conns = atoi(optarg); break;
		case 't': opt.timeout = atoi(optarg); break;
		case 1:
			opt.write = true;
			opt.write_off = num(optarg, "--write offset");
			c = strchr(optarg, ':');
			if (!c)
				fail("--write OFF:LEN");
			opt.write_len = (uint32_t)num(c + 1, "--write length");
			break;
		case 2:
			opt.log = true;
			opt.log_off = num(optarg, "--log");
			break;
		case 3: opt.repeat = atof(optarg); break;
		case 4: opt.stop = optarg; break;
		default:
			fprintf(stderr, "usage: see the top of siw2_pmcommit.c\n");
			return 2;
		}
	}
	for (; optind < argc; optind++)
		parse_step(argv[optind]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	side = mode;
	if (!strcmp(mode, "reg"))
		return do_reg();
	cm_chan = rdma_create_event_channel();
	if (!cm_chan)
		fail_errno("rdma_create_event_channel");
	if (!strcmp(mode, "serve"))
		ch = do_serve();
	else if (!strcmp(mode, "commit"))
		ch = do_commit();
	else
		fail("mode '%s': reg, serve or commit", mode);
	rdma_destroy_event_channel(cm_chan);
	return ch;
}
