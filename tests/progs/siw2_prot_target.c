// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_prot_target: the passive end of the data path protection tests
 * (tests/vm/cases/63-dp-protection.sh, driven by tests/progs/dp_peer.py).
 *
 *   siw2_prot_target -a ADDR [-p PORT] [--recv N] [--recv-size BYTES]
 *                    [--timeout SECS] [--settle MS] [--ird N] [--ord N]
 *                    [--allow NAME:OFF:LEN]... [--maybe NAME:OFF:LEN]...
 *                    [--scribble NAME] [--dereg-on FILE:NAME]
 *
 * One anonymous mapping holds every memory region with a 64 KiB guard on
 * each side; MRs start inside a page and end inside one, so the bytes next
 * to them share their pages. Guards are filled with guard_byte(), MR bytes
 * with mr_byte(seed, offset). The MRs (all in PD 1 unless said otherwise):
 *
 *   rw     LOCAL_WRITE REMOTE_WRITE REMOTE_READ
 *   ro     REMOTE_READ
 *   wo     LOCAL_WRITE REMOTE_WRITE
 *   none   LOCAL_WRITE (no remote right)
 *   pd2    LOCAL_WRITE REMOTE_WRITE REMOTE_READ, in a second PD
 *   dereg  LOCAL_WRITE REMOTE_WRITE REMOTE_READ, deregistered once all
 *          regions are registered: its STag names no region any more
 *   recv   LOCAL_WRITE: the buffers of the posted receives
 *   big    REMOTE_READ, 1 MiB: Read Responses that outlast a burst of
 *          Requests (IRD overflow)
 *
 * Output, one fact per line:
 *   MR name=rw stag=0x... addr=0x... len=N access=rw pd=1 seed=0x.. state=valid
 *   LISTENING ADDR:PORT
 *   REQUEST / ACCEPTED recv=N / ESTABLISHED
 *   CM <event> status=<s>
 *   ASYNC <event>                      (QP and device async events)
 *   WC wr_id=N status=<name>(<n>) opcode=<name> len=N vendor_err=N
 *   QP state=<name>
 *   SUMMARY events=<list|none> recv_wcs=<status list|none> posted=N
 *           disconnected=0|1 error_seen=0|1
 *   GUARDS OK | GUARDS FAIL <first differences>
 *   DONE
 * "Error seen" is the first QP async event, flushed or failed completion,
 * or DISCONNECTED; the program then collects events for --settle ms more
 * (default 500), longer while posted receives have not completed, queries
 * the QP state, and compares every byte of the mapping with what it must
 * hold: the fill patterns, except --allow ranges, which must hold the
 * peer's pattern peer_byte(k) (k counted from OFF), and --maybe ranges,
 * which may hold either, byte by byte. Without an error the program gives
 * up after --timeout seconds (default 10) from LISTENING, prints
 * "TIMEOUT", and checks all the same. --scribble NAME: a thread rewrites
 * region NAME over and over from LISTENING to the check, as an application
 * may while the peer writes there (its octets are then anyone's: the
 * region is not checked, its guards are). --dereg-on FILE:NAME: region NAME
 * is deregistered as soon as FILE exists (the peer creates it in the middle
 * of an FPDU into NAME), then "MR name=NAME stag=.. state=deregistered".
 *
 * Exit status: 0 = the run completed and the guards are intact, 1 = GUARDS
 * FAIL or a setup failure, 2 = usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define GUARD		(64 * 1024)
#define PAGE		4096
#define MAX_RANGES	16
#define MAX_RECV	16
#define MAX_EVENTS	32
#define MAX_WCS		64

struct region {
	const char *name;
	const char *rights;
	int access;
	int pd;			/* 1 or 2 */
	size_t len;
	size_t inner;		/* offset of the MR in its first page */
	uint8_t seed;
	bool dereg;
	/* filled in */
	size_t off;		/* of the MR in the mapping */
	struct ibv_mr *mr;
	uint32_t stag;
};

/*
 * Keep in step with dp_peer.py (MR_LAYOUT): names, lengths and seeds are
 * what the peer computes expected Read Response data and offsets from.
 */
#define RW (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)
#define REGION(n, r, a, p, l, i, s, d) \
	{ .name = n, .rights = r, .access = a, .pd = p, .len = l, .inner = i, \
	  .seed = s, .dereg = d }
static struct region regions[] = {
	REGION("rw", "rw", RW, 1, 8000, 0x40, 0x11, false),
	REGION("ro", "r", IBV_ACCESS_REMOTE_READ, 1, 3000, 0x100, 0x22, false),
	REGION("wo", "w", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 1,
	       3000, 0x80, 0x33, false),
	REGION("none", "-", IBV_ACCESS_LOCAL_WRITE, 1, 3000, 0x10, 0x44, false),
	REGION("pd2", "rw", RW, 2, 3000, 0x20, 0x55, false),
	REGION("dereg", "rw", RW, 1, 3000, 0x30, 0x66, true),
	REGION("recv", "l", IBV_ACCESS_LOCAL_WRITE, 1, 4096, 0x0, 0x77, false),
	REGION("big", "r", IBV_ACCESS_REMOTE_READ, 1, 1 << 20, 0x200, 0x88, false),
};
#define NREG (sizeof(regions) / sizeof(regions[0]))
#define RECV_REG 6

struct range {
	int reg;
	size_t off;
	size_t len;
	bool maybe;
};

static struct {
	const char *addr;
	const char *port;
	int nrecv;
	size_t recv_size;
	double timeout;
	int settle_ms;
	int ird;
	int ord;
	struct range ranges[MAX_RANGES];
	int nranges;
	int scribble;		/* region a thread rewrites, or -1 */
	const char *dereg_file;	/* --dereg-on: deregister dereg_reg once it exists */
	int dereg_reg;
} opt = {
	.scribble = -1,
	.port = "7630",
	.nrecv = 1,
	.recv_size = 256,
	.timeout = 10.0,
	.settle_ms = 500,
	.ird = 4,
	.ord = 4,
};

static uint8_t *map;
static size_t map_len;

/* Summary state. */
static char events[MAX_EVENTS][32];
static int nevents;
static char recv_wcs[MAX_WCS][32];
static int nrecv_wcs;
static bool disconnected;

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	exit(1);
}

static void die_errno(const char *what)
{
	die("%s: %s", what, strerror(errno));
}

/* The fill patterns; dp_peer.py has the same three functions. */
static uint8_t mr_byte(uint8_t seed, size_t o)
{
	return (uint8_t)(seed + 7 * o + (o >> 8));
}

static uint8_t guard_byte(size_t o)
{
	return (uint8_t)(0xa5 ^ (o * 13) ^ (o >> 9));
}

static uint8_t peer_byte(size_t k)
{
	return (uint8_t)(0x3c + 11 * k + 3 * (k >> 8));
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: siw2_prot_target -a ADDR [-p PORT] [--recv N] [--recv-size BYTES]\n"
		"       [--timeout SECS] [--settle MS] [--ird N] [--ord N]\n"
		"       [--allow NAME:OFF:LEN]... [--maybe NAME:OFF:LEN]...\n"
		"       [--scribble NAME] [--dereg-on FILE:NAME]\n");
	exit(2);
}

static int region_index(const char *name, size_t n)
{
	size_t i;

	for (i = 0; i < NREG; i++)
		if (strlen(regions[i].name) == n &&
		    !strncmp(regions[i].name, name, n))
			return i;
	return -1;
}

static void parse_range(const char *s, bool maybe)
{
	const char *c = strchr(s, ':');
	struct range *r;
	char *end;
	int reg;

	if (!c || opt.nranges >= MAX_RANGES)
		usage();
	reg = region_index(s, c - s);
	if (reg < 0) {
		fprintf(stderr, "siw2_prot_target: no region '%.*s'\n", (int)(c - s), s);
		usage();
	}
	r = &opt.ranges[opt.nranges++];
	r->reg = reg;
	r->maybe = maybe;
	r->off = strtoul(c + 1, &end, 0);
	if (*end != ':')
		usage();
	r->len = strtoul(end + 1, &end, 0);
	if (*end || r->off + r->len > regions[reg].len)
		usage();
}

static void parse_args(int argc, char **argv)
{
	enum { O_RECV = 256, O_RSIZE, O_TMO, O_SETTLE, O_IRD, O_ORD, O_ALLOW, O_MAYBE,
	       O_SCRIBBLE, O_DEREG_ON };
	static const struct option lo[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "recv", required_argument, NULL, O_RECV },
		{ "recv-size", required_argument, NULL, O_RSIZE },
		{ "timeout", required_argument, NULL, O_TMO },
		{ "settle", required_argument, NULL, O_SETTLE },
		{ "ird", required_argument, NULL, O_IRD },
		{ "ord", required_argument, NULL, O_ORD },
		{ "allow", required_argument, NULL, O_ALLOW },
		{ "maybe", required_argument, NULL, O_MAYBE },
		{ "scribble", required_argument, NULL, O_SCRIBBLE },
		{ "dereg-on", required_argument, NULL, O_DEREG_ON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "a:p:h", lo, NULL)) != -1) {
		switch (c) {
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case O_RECV: opt.nrecv = atoi(optarg); break;
		case O_RSIZE: opt.recv_size = strtoul(optarg, NULL, 0); break;
		case O_TMO: opt.timeout = atof(optarg); break;
		case O_SETTLE: opt.settle_ms = atoi(optarg); break;
		case O_IRD: opt.ird = atoi(optarg); break;
		case O_ORD: opt.ord = atoi(optarg); break;
		case O_ALLOW: parse_range(optarg, false); break;
		case O_MAYBE: parse_range(optarg, true); break;
		case O_SCRIBBLE:
			opt.scribble = region_index(optarg, strlen(optarg));
			if (opt.scribble < 0)
				usage();
			break;
		case O_DEREG_ON: {
			char *c = strrchr(optarg, ':');

			if (!c)
				usage();
			*c = 0;
			opt.dereg_file = optarg;
			opt.dereg_reg = region_index(c + 1, strlen(c + 1));
			if (opt.dereg_reg < 0)
				usage();
			break;
		}
		default: usage();
		}
	}
	if (!opt.addr || optind != argc || opt.nrecv < 0 || opt.nrecv > MAX_RECV ||
	    opt.recv_size == 0 || opt.nrecv * opt.recv_size > regions[RECV_REG].len ||
	    opt.timeout <= 0 || opt.settle_ms < 0)
		usage();
}

/* ------------------------------------------------------------ memory */

static void map_regions(void)
{
	size_t off = 0, i, o;

	for (i = 0; i < NREG; i++) {
		struct region *r = &regions[i];
		size_t span = (r->inner + r->len + PAGE - 1) / PAGE * PAGE;

		off += GUARD;
		r->off = off + r->inner;
		off += span;
	}
	map_len = off + GUARD;
	map = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		die_errno("mmap");
	for (o = 0; o < map_len; o++)
		map[o] = guard_byte(o);
	for (i = 0; i < NREG; i++)
		for (o = 0; o < regions[i].len; o++)
			map[regions[i].off + o] = mr_byte(regions[i].seed, o);
}

/* What byte @o of region @reg must hold, and what it may hold instead. */
static void want_byte(int reg, size_t o, int *want, int *alt)
{
	int i;

	*want = mr_byte(regions[reg].seed, o);
	*alt = -1;
	for (i = 0; i < opt.nranges; i++) {
		const struct range *r = &opt.ranges[i];

		if (r->reg != reg || o < r->off || o >= r->off + r->len)
			continue;
		if (r->maybe) {
			*alt = peer_byte(o - r->off);
		} else {
			*want = peer_byte(o - r->off);
			*alt = -1;
		}
	}
}

/*
 * Compare the whole mapping. Differences are reported per area (the guard
 * before a region, inside it, the guard after it), each with its count and
 * first and last offset, relative to the MR start.
 */
static bool check_guards(void)
{
	char buf[2048];
	size_t len = 0, i;
	bool ok = true;

	buf[0] = 0;
	for (i = 0; i < NREG; i++) {
		const struct region *r = &regions[i];
		size_t lo = r->off - r->inner - GUARD;	/* start of its guard */
		size_t hi = (i + 1 < NREG) ? regions[i + 1].off - regions[i + 1].inner - GUARD
					   : map_len;
		size_t o, nbad[3] = { 0, 0, 0 };
		long first[3] = { 0, 0, 0 }, last[3] = { 0, 0, 0 };
		int got1[3] = { 0, 0, 0 }, want1[3] = { 0, 0, 0 };
		static const char *const area[3] = { "before", "inside", "after" };
		int a;

		for (o = lo; o < hi; o++) {
			int want, alt;

			if (o < r->off) {
				a = 0;
				want = guard_byte(o);
				alt = -1;
			} else if (o < r->off + r->len) {
				a = 1;
				if ((int)i == opt.scribble)
					continue;
				want_byte(i, o - r->off, &want, &alt);
			} else {
				a = 2;
				want = guard_byte(o);
				alt = -1;
			}
			if (map[o] == want || map[o] == alt)
				continue;
			if (!nbad[a]++) {
				first[a] = (long)o - (long)r->off;
				got1[a] = map[o];
				want1[a] = want;
			}
			last[a] = (long)o - (long)r->off;
		}
		for (a = 0; a < 3; a++) {
			if (!nbad[a])
				continue;
			ok = false;
			if (len < sizeof(buf) - 200)
				len += snprintf(buf + len, sizeof(buf) - len,
						" %s:%s n=%zu first=%ld last=%ld got=0x%02x want=0x%02x",
						r->name, area[a], nbad[a], first[a], last[a],
						got1[a], want1[a]);
		}
	}
	if (ok)
		out("GUARDS OK");
	else
		out("GUARDS FAIL%s", buf);
	return ok;
}

/* ------------------------------------------------------------ names */

static const char *wc_status_name(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS: return "SUCCESS";
	case IBV_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case IBV_WC_LOC_QP_OP_ERR: return "LOC_QP_OP_ERR";
	case IBV_WC_LOC_EEC_OP_ERR: return "LOC_EEC_OP_ERR";
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case IBV_WC_MW_BIND_ERR: return "MW_BIND_ERR";
	case IBV_WC_BAD_RESP_ERR: return "BAD_RESP_ERR";
	case IBV_WC_LOC_ACCESS_ERR: return "LOC_ACCESS_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	case IBV_WC_LOC_RDD_VIOL_ERR: return "LOC_RDD_VIOL_ERR";
	case IBV_WC_REM_INV_RD_REQ_ERR: return "REM_INV_RD_REQ_ERR";
	case IBV_WC_REM_ABORT_ERR: return "REM_ABORT_ERR";
	case IBV_WC_INV_EECN_ERR: return "INV_EECN_ERR";
	case IBV_WC_INV_EEC_STATE_ERR: return "INV_EEC_STATE_ERR";
	case IBV_WC_FATAL_ERR: return "FATAL_ERR";
	case IBV_WC_RESP_TIMEOUT_ERR: return "RESP_TIMEOUT_ERR";
	case IBV_WC_GENERAL_ERR: return "GENERAL_ERR";
	default: return "UNKNOWN";
	}
}

static const char *wc_opcode_name(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	case IBV_WC_LOCAL_INV: return "LOCAL_INV";
	default: return "OTHER";
	}
}

static const char *async_name(enum ibv_event_type t)
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
	default: return "OTHER";
	}
}

static const char *qp_state_name(enum ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

/* ------------------------------------------------------------ run */

struct conn {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen_id;
	struct rdma_cm_id *id;
	struct ibv_context *ctx;
	struct ibv_pd *pd[2];
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int posted;
	bool error_seen;
	double error_at;
};

static void note_error(struct conn *c)
{
	if (!c->error_seen) {
		c->error_seen = true;
		c->error_at = now();
	}
}

static void set_nonblock(int fd)
{
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK))
		die_errno("fcntl O_NONBLOCK");
}

static void listen_on(struct conn *c)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int rc;

	c->ch = rdma_create_event_channel();
	if (!c->ch)
		die_errno("rdma_create_event_channel");
	set_nonblock(c->ch->fd);
	if (rdma_create_id(c->ch, &c->listen_id, NULL, RDMA_PS_TCP))
		die_errno("rdma_create_id");
	rc = getaddrinfo(opt.addr, opt.port, &hints, &ai);
	if (rc)
		die("getaddrinfo %s:%s: %s", opt.addr, opt.port, gai_strerror(rc));
	if (rdma_bind_addr(c->listen_id, ai->ai_addr))
		die_errno("rdma_bind_addr");
	freeaddrinfo(ai);
	c->ctx = c->listen_id->verbs;
	if (!c->ctx)
		die("%s is on no RDMA device", opt.addr);
}

static void register_regions(struct conn *c)
{
	size_t i;

	c->pd[0] = ibv_alloc_pd(c->ctx);
	c->pd[1] = ibv_alloc_pd(c->ctx);
	if (!c->pd[0] || !c->pd[1])
		die_errno("ibv_alloc_pd");
	for (i = 0; i < NREG; i++) {
		struct region *r = &regions[i];

		r->mr = ibv_reg_mr(c->pd[r->pd - 1], map + r->off, r->len, r->access);
		if (!r->mr)
			die_errno("ibv_reg_mr");
		r->stag = r->mr->rkey;
		out("MR name=%s stag=0x%08x addr=0x%llx len=%zu access=%s pd=%d seed=0x%02x lkey=0x%08x state=valid",
		    r->name, r->stag, (unsigned long long)(uintptr_t)(map + r->off),
		    r->len, r->rights, r->pd, r->seed, r->mr->lkey);
	}
	/*
	 * Deregister only once every region is registered: a provider may
	 * hand a freed STag out again at once (siw2 does, key included), and
	 * then "dereg" would name a live region.
	 */
	for (i = 0; i < NREG; i++) {
		struct region *r = &regions[i];

		if (!r->dereg)
			continue;
		if (ibv_dereg_mr(r->mr))
			die_errno("ibv_dereg_mr");
		r->mr = NULL;
		out("MR name=%s stag=0x%08x state=deregistered", r->name, r->stag);
	}
}

static void post_receives(struct conn *c)
{
	const struct region *r = &regions[RECV_REG];
	int i;

	for (i = 0; i < opt.nrecv; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(map + r->off + i * opt.recv_size),
			.length = opt.recv_size,
			.lkey = r->mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;

		if (ibv_post_recv(c->qp, &wr, &bad))
			die("ibv_post_recv: %s", strerror(errno));
		c->posted++;
	}
}

static void accept_conn(struct conn *c, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = MAX_RECV,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct rdma_conn_param cp = {
		.responder_resources = opt.ird,
		.initiator_depth = opt.ord,
	};

	if (id->verbs != c->ctx)
		die("connection on another device context");
	c->id = id;
	c->cq = ibv_create_cq(c->ctx, MAX_WCS, NULL, NULL, 0);
	if (!c->cq)
		die_errno("ibv_create_cq");
	qa.send_cq = qa.recv_cq = c->cq;
	if (rdma_create_qp(id, c->pd[0], &qa))
		die_errno("rdma_create_qp");
	c->qp = id->qp;
	post_receives(c);
	if (rdma_accept(id, &cp))
		die_errno("rdma_accept");
	out("ACCEPTED recv=%d recv_size=%zu ird=%d ord=%d", c->posted, opt.recv_size,
	    opt.ird, opt.ord);
}

static void handle_cm(struct conn *c)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(c->ch, &ev)) {
		enum rdma_cm_event_type t = ev->event;
		struct rdma_cm_id *id = ev->id;
		int status = ev->status;

		if (t == RDMA_CM_EVENT_CONNECT_REQUEST && !c->id) {
			out("REQUEST");
			rdma_ack_cm_event(ev);
			accept_conn(c, id);
			continue;
		}
		rdma_ack_cm_event(ev);
		switch (t) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			out("CM CONNECT_REQUEST (a second one: rejected)");
			rdma_reject(id, NULL, 0);
			rdma_destroy_id(id);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			out("ESTABLISHED");
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			out("CM DISCONNECTED status=%d", status);
			disconnected = true;
			note_error(c);
			break;
		default:
			out("CM %s status=%d", rdma_event_str(t), status);
			if (id == c->id)
				note_error(c);
			break;
		}
	}
	if (errno != EAGAIN)
		die_errno("rdma_get_cm_event");
}

static void handle_async(struct conn *c)
{
	struct ibv_async_event ev;

	while (!ibv_get_async_event(c->ctx, &ev)) {
		const char *n = async_name(ev.event_type);

		out("ASYNC %s", n);
		if (nevents < MAX_EVENTS)
			snprintf(events[nevents++], sizeof(events[0]), "%s", n);
		if (ev.event_type == IBV_EVENT_QP_FATAL ||
		    ev.event_type == IBV_EVENT_QP_REQ_ERR ||
		    ev.event_type == IBV_EVENT_QP_ACCESS_ERR ||
		    ev.event_type == IBV_EVENT_CQ_ERR ||
		    ev.event_type == IBV_EVENT_DEVICE_FATAL)
			note_error(c);
		ibv_ack_async_event(&ev);
	}
}

static void handle_cq(struct conn *c)
{
	struct ibv_wc wc[8];
	int n, i;

	if (!c->cq)
		return;
	while ((n = ibv_poll_cq(c->cq, 8, wc)) > 0) {
		for (i = 0; i < n; i++) {
			out("WC wr_id=%llu status=%s(%d) opcode=%s len=%u vendor_err=%u",
			    (unsigned long long)wc[i].wr_id, wc_status_name(wc[i].status),
			    wc[i].status, wc_opcode_name(wc[i].opcode), wc[i].byte_len,
			    wc[i].vendor_err);
			if (wc[i].opcode & IBV_WC_RECV || wc[i].status != IBV_WC_SUCCESS) {
				if (nrecv_wcs < MAX_WCS)
					snprintf(recv_wcs[nrecv_wcs++], sizeof(recv_wcs[0]),
						 "%s", wc_status_name(wc[i].status));
			}
			if (wc[i].status != IBV_WC_SUCCESS)
				note_error(c);
		}
	}
	if (n < 0)
		die("ibv_poll_cq: %d", n);
}

static void summary(struct conn *c)
{
	char ev[MAX_EVENTS * 32 + 8] = "none", wcs[MAX_WCS * 32 + 8] = "none";
	size_t len;
	int i;

	if (nevents) {
		len = 0;
		for (i = 0; i < nevents; i++)
			len += snprintf(ev + len, sizeof(ev) - len, "%s%s", i ? "," : "",
					events[i]);
	}
	if (nrecv_wcs) {
		len = 0;
		for (i = 0; i < nrecv_wcs; i++)
			len += snprintf(wcs + len, sizeof(wcs) - len, "%s%s", i ? "," : "",
					recv_wcs[i]);
	}
	out("SUMMARY events=%s recv_wcs=%s posted=%d disconnected=%d error_seen=%d",
	    ev, wcs, c->posted, disconnected, c->error_seen);
}

/* --dereg-on: the region goes once the peer has made the file. */
static void dereg_on_file(void)
{
	struct region *r;

	if (!opt.dereg_file || access(opt.dereg_file, F_OK))
		return;
	r = &regions[opt.dereg_reg];
	if (ibv_dereg_mr(r->mr))
		die_errno("ibv_dereg_mr (--dereg-on)");
	r->mr = NULL;
	opt.dereg_file = NULL;
	out("MR name=%s stag=0x%08x state=deregistered", r->name, r->stag);
}

static volatile bool scribbling;

/* --scribble: rewrite the region, each pass with other values. */
static void *scribble_main(void *arg)
{
	const struct region *r = &regions[opt.scribble];
	volatile uint8_t *p = map + r->off;
	uint8_t v = 0;
	size_t o;

	(void)arg;
	while (scribbling) {
		for (o = 0; o < r->len; o++)
			p[o] = (uint8_t)(v + o);
		v += 0x35;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t scribbler;
	struct conn c = { 0 };
	struct ibv_qp_attr qpa;
	struct ibv_qp_init_attr qia;
	double deadline;
	bool guards_ok;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	map_regions();
	listen_on(&c);
	register_regions(&c);
	set_nonblock(c.ctx->async_fd);
	if (rdma_listen(c.listen_id, 1))
		die_errno("rdma_listen");
	scribbling = opt.scribble >= 0;
	if (scribbling && pthread_create(&scribbler, NULL, scribble_main, NULL))
		die("pthread_create");
	out("LISTENING %s:%s", opt.addr, opt.port);
	deadline = now() + opt.timeout;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = c.ch->fd, .events = POLLIN },
			{ .fd = c.ctx->async_fd, .events = POLLIN },
		};
		double t = now();

		if (c.error_seen) {
			/*
			 * Collect for settle_ms, and up to 3 s while posted
			 * receives have not completed (flushed).
			 */
			if (t >= c.error_at + opt.settle_ms / 1000.0 &&
			    (nrecv_wcs >= c.posted || t >= c.error_at + 3.0))
				break;
		} else if (t >= deadline) {
			out("TIMEOUT no QP error within %.1fs", opt.timeout);
			break;
		}
		if (poll(pfd, 2, 10) < 0 && errno != EINTR)
			die_errno("poll");
		handle_cm(&c);
		handle_async(&c);
		handle_cq(&c);
		dereg_on_file();
	}
	if (c.qp) {
		/*
		 * SQE is siw2's TERMINATE: the Terminate is out and the QP
		 * goes on to ERR once the connection is down, which on a busy
		 * host can take longer than the settle time. Give it 5 s.
		 */
		deadline = now() + 5.0;
		while (!ibv_query_qp(c.qp, &qpa, IBV_QP_STATE, &qia) &&
		       qpa.qp_state == IBV_QPS_SQE && now() < deadline) {
			usleep(10000);
			handle_cm(&c);
			handle_async(&c);
			handle_cq(&c);
		}
		if (ibv_query_qp(c.qp, &qpa, IBV_QP_STATE, &qia))
			out("QP state=? (ibv_query_qp: %s)", strerror(errno));
		else
			out("QP state=%s", qp_state_name(qpa.qp_state));
	} else {
		out("QP state=none (no connection)");
	}
	summary(&c);
	if (opt.scribble >= 0) {
		scribbling = false;
		pthread_join(scribbler, NULL);
	}
	guards_ok = check_guards();

	if (c.id) {
		rdma_disconnect(c.id);
		handle_cq(&c);
		rdma_destroy_qp(c.id);
		rdma_destroy_id(c.id);
	}
	if (c.cq)
		ibv_destroy_cq(c.cq);
	for (i = 0; i < NREG; i++)
		if (regions[i].mr)
			ibv_dereg_mr(regions[i].mr);
	ibv_dealloc_pd(c.pd[0]);
	ibv_dealloc_pd(c.pd[1]);
	rdma_destroy_id(c.listen_id);
	rdma_destroy_event_channel(c.ch);
	munmap(map, map_len);
	out("DONE");
	return guards_ok ? 0 : 1;
}
