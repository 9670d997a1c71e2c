// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_fuzz_target: the RDMA end of the wire fuzzer (tests/fuzz/wire_fuzz.py,
 * run by tests/vm/cases/69-wire-fuzz.sh). One process serves a whole fuzz
 * run: it registers its memory once and takes one connection after the
 * other, each on a fresh CQ and QP, so thousands of connections cost no
 * process start each.
 *
 *   siw2_fuzz_target --listen ADDR:PORT [--conns N] [options]
 *       passive: siw2 is the MPA Responder; N connections (0: until killed)
 *   siw2_fuzz_target --connect ADDR:PORT --conns N [options]
 *       active: siw2 is the MPA Initiator; N connection attempts
 *   siw2_fuzz_target --inject ADDR:PORT [options]
 *       no rdma_cm, no MPA, no TCP between fuzzer and QP: each fuzzer lane
 *       connects to ADDR:PORT with plain TCP (the control connection) and
 *       gets a thread and one QP, which the fuzz file of a SIW2_FUZZ=1 module
 *       (include/uapi/rdma/siw2-fuzz.h) puts into RTS again after every
 *       connection's end; the fuzzer's octets go to it as TCP segments
 *       would, its answers come back on the control connection;
 *       --fuzz-file PATH names the file (default
 *       /sys/kernel/debug/siw2/<ibdev>/fuzz; "ip netns exec" hides that
 *       /sys)
 *   options: --ird N --ord N (4, 4)  --recv N (16 posted receives of 512
 *       octets, each reposted when it completes)  --conn-timeout SECS (20:
 *       a connection still up after that is a HANG; the target ends it)
 *       --slots N (4, at most 64): connections alive at once; in active
 *       mode that many attempts are kept in flight (a fuzzer with --jobs)
 *
 * One anonymous mapping holds every region with a 16 KiB guard on each
 * side; regions start inside a page. Guards are filled with guard_byte(),
 * regions with mr_byte(seed, offset), as siw2_prot_target does:
 *
 *   rw     LOCAL_WRITE REMOTE_WRITE REMOTE_READ REMOTE_ATOMIC  may change
 *   wo     LOCAL_WRITE REMOTE_WRITE                            may change
 *   recv   LOCAL_WRITE, the posted receives                    may change
 *   ro     REMOTE_READ                                         never changes
 *   none   LOCAL_WRITE (no remote right)                       never changes
 *   pd2    all rights, in a second PD                          never changes
 *   dereg  deregistered after registration (a dead STag)       never changes
 *   probe  as rw, 16 octets per fuzzer lane for its probes     may change
 *
 * After each connection the target checks every byte that must not change
 * (the guards and the last four regions), then refills them, so one bad
 * connection does not taint the next verdicts.
 *
 * Output, one line per fact, written out every 50 ms (OUT_FLUSH_MS):
 *   MR name=rw stag=0x... addr=0x... len=N seed=0x..
 *   READY listen|connect ADDR:PORT
 *   CONN n tag=K est=0|1 end=<cm event> state=<QP state> recv_ok=N
 *        flushed=N wc_err=N unflushed=N async=<events|none>
 *        guards=OK|FAIL[:details] ms=N
 * K is the fuzzer's number for the connection: the ULP private data of its
 * MPA Request or Reply starts with "FZ" and K as a big-endian u32 (-1 when
 * it does not).
 *   HANG n                    (the connection outlived --conn-timeout;
 *                             with SIW2_FUZZ_HANG_CMD set, that shell
 *                             command's output follows, taken before the
 *                             target ends the connection)
 *   DONE conns=N est=N guard_fail=N hang=N
 *   LANE n up|down
 * In --inject mode the CONN line's end= is TERM (siw2 ended the stream)
 * or DOWN (the fuzzer did), and there is no HANG: a QP that never settles
 * leaves the fuzzer waiting for its answer, which is its verdict.
 *
 * The control connection (--inject) carries records of a type octet,
 * three zero octets and a big-endian u32 length, then the payload:
 *   'A' arm: rev crc caps ird ord 0 0 0, tag (be32)      -> 'R'
 *   'D' input: segments, each a be32 length and octets   -> 'O'
 *   'S' the fuzzer's FIN                                 -> 'O'
 *   'E' the fuzzer ends the connection                   -> 'O'
 * 'R' carries the errno of the arm (be32 payload, 0: armed); 'O' carries closed
 * (1: the connection has ended) and the QP state (ibv_qp_state) in the
 * header's octets 1 and 2, and all siw2 sent since the last 'O' as its
 * payload.
 * Exit status: 0 = no guard failure, no hang; 1 = some, or a setup
 * failure; 2 = usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <rdma/siw2-fuzz.h>

#define GUARD		(16 * 1024)
#define PAGE		4096
#define RECV_SIZE	512
#define MAX_RECV	16
#define OUT_FLUSH_MS	50	/* output flushed this often */
#define MAX_SLOTS	64	/* connections (--inject: lanes) at once, at most */
#define CQ_DEPTH	64
#define PROBE_LEN	(MAX_SLOTS * 16)	/* a 16-octet probe slot per lane */
/* Every QP's shape (rdma_cm's per connection, --inject's per lane). */
#define QP_ATTR { .qp_type = IBV_QPT_RC, .sq_sig_all = 1, \
		  .cap = { .max_send_wr = 4, .max_recv_wr = MAX_RECV, \
			   .max_send_sge = 1, .max_recv_sge = 1 } }

struct region {
	const char *name;
	int access;
	int pd;			/* 0 or 1 */
	size_t len;
	size_t inner;		/* offset of the region in its first page */
	uint8_t seed;
	bool fixed;		/* must never change */
	bool dereg;
	size_t off;		/* in the mapping */
	struct ibv_mr *mr;
};

#define RWA (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	     IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
/* Keep in step with tests/fuzz/wire_fuzz.py (REGIONS). */
#define REGION(n, a, p, l, i, s, f, d) \
	{ .name = n, .access = a, .pd = p, .len = l, .inner = i, .seed = s, \
	  .fixed = f, .dereg = d }
static struct region regions[] = {
	REGION("rw", RWA, 0, 8192, 0x40, 0x11, false, false),
	REGION("wo", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 0, 3000,
	       0x80, 0x33, false, false),
	REGION("recv", IBV_ACCESS_LOCAL_WRITE, 0, MAX_RECV * RECV_SIZE, 0, 0x77,
	       false, false),
	REGION("ro", IBV_ACCESS_REMOTE_READ, 0, 4096, 0x100, 0x22, true, false),
	REGION("none", IBV_ACCESS_LOCAL_WRITE, 0, 3000, 0x10, 0x44, true, false),
	REGION("pd2", RWA, 1, 3000, 0x20, 0x55, true, false),
	REGION("dereg", RWA, 0, 3000, 0x30, 0x66, true, true),
	REGION("probe", RWA, 0, PROBE_LEN, 0x50, 0x88, false, false),
};
#define NREG (sizeof(regions) / sizeof(regions[0]))
#define RECV_REG 2

/* A QP's receives and completions, as its CONN line reports them. */
struct wcs {
	int posted;		/* receives posted and not completed */
	int recv_ok, flushed, wc_err;
};

struct slot {
	bool used;
	bool est;		/* established now */
	bool ever_est;
	struct rdma_cm_id *id;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct wcs wc;
	char async[160];
	double t0;
	bool hang;
	bool closing;		/* ended, waiting for the flushes */
	double close_by;
	const char *end;	/* the CM event that ended it */
	long tag;		/* the fuzzer's connection number, -1: none */
};

struct lane {
	int sock;		/* the control connection, -1: lane free */
	int fz;			/* its fuzz file */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	bool live;		/* armed, its connection not yet ended */
	struct wcs wc;
	char async[160];
	long tag;
	double t0;
	pthread_t thread;
	bool used, done;	/* a thread serves it; it has ended (big) */
	uint8_t *io;		/* a fuzz file command or read */
	uint8_t *ob;		/* an 'O' record: its header, what siw2 sent */
	size_t olen, ocap;	/* of its payload */
};

static struct lane lanes[MAX_SLOTS];

static struct {
	const char *host;
	const char *port;
	bool active;
	bool inject;
	const char *fuzz_file;
	long conns;
	int ird, ord, nrecv;
	int slots;
	double conn_timeout;
} opt = { .ird = 4, .ord = 4, .nrecv = MAX_RECV, .slots = 4,
	.conn_timeout = 20.0 };

static uint8_t *map;
static uint8_t *ref;		/* the mapping as filled: compared with memcmp() */
static size_t map_len;
static struct rdma_event_channel *ch;
static struct ibv_context *ctx;
static struct ibv_pd *pd[2];
static struct ibv_comp_channel *cc;
static struct slot slots[MAX_SLOTS];
static struct lane lanes[MAX_SLOTS];	/* --inject */
static long n_done, n_est, n_guard_fail, n_hang;

/* A line; stdout is line-buffered (main()), so it goes out at once. */
static void out(const char *fmt, ...)
{
	va_list ap;

	flockfile(stdout);	/* --inject's lane threads: whole lines */
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	funlockfile(stdout);
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The main loops' flush: output is at most OUT_FLUSH_MS old. */
static void out_flush_due(void)
{
	static double last;
	double t = now();

	if (t - last >= OUT_FLUSH_MS / 1000.0) {
		fflush(stdout);
		last = t;
	}
}

/* The fill patterns; wire_fuzz.py computes the same. */
static uint8_t mr_byte(uint8_t seed, size_t o)
{
	return (uint8_t)(seed + 7 * o + (o >> 8));
}

static uint8_t guard_byte(size_t o)
{
	return (uint8_t)(0xa5 ^ (o * 13) ^ (o >> 9));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: siw2_fuzz_target --listen|--connect|--inject ADDR:PORT [--conns N]\n"
		"       [--ird N] [--ord N] [--recv N] [--conn-timeout SECS]\n"
		"       [--slots N] [--fuzz-file PATH]\n");
	exit(2);
}

static void split_addr(char *s)
{
	char *c = strrchr(s, ':');

	if (!c)
		usage();
	*c = 0;
	opt.host = s;
	opt.port = c + 1;
}

static void parse_args(int argc, char **argv)
{
	enum { O_LISTEN = 256, O_CONNECT, O_INJECT, O_CONNS, O_IRD, O_ORD,
	       O_RECV, O_TMO, O_SLOTS, O_FFILE };
	static const struct option lo[] = {
		{ "listen", required_argument, NULL, O_LISTEN },
		{ "connect", required_argument, NULL, O_CONNECT },
		{ "inject", required_argument, NULL, O_INJECT },
		{ "fuzz-file", required_argument, NULL, O_FFILE },
		{ "conns", required_argument, NULL, O_CONNS },
		{ "ird", required_argument, NULL, O_IRD },
		{ "ord", required_argument, NULL, O_ORD },
		{ "recv", required_argument, NULL, O_RECV },
		{ "conn-timeout", required_argument, NULL, O_TMO },
		{ "slots", required_argument, NULL, O_SLOTS },
		{ NULL, 0, NULL, 0 },
	};
	int c, modes = 0;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case O_LISTEN: split_addr(optarg); modes++; break;
		case O_CONNECT: split_addr(optarg); opt.active = true; modes++; break;
		case O_INJECT: split_addr(optarg); opt.inject = true; modes++; break;
		case O_FFILE: opt.fuzz_file = optarg; break;
		case O_CONNS: opt.conns = atol(optarg); break;
		case O_IRD: opt.ird = atoi(optarg); break;
		case O_ORD: opt.ord = atoi(optarg); break;
		case O_RECV: opt.nrecv = atoi(optarg); break;
		case O_TMO: opt.conn_timeout = atof(optarg); break;
		case O_SLOTS: opt.slots = atoi(optarg); break;
		default: usage();
		}
	}
	if (modes != 1 || optind != argc || opt.conns < 0 ||
	    (opt.active && !opt.conns) || opt.nrecv < 0 ||
	    opt.nrecv > MAX_RECV || opt.conn_timeout <= 0 ||
	    opt.slots < 1 || opt.slots > MAX_SLOTS)
		usage();
}

/* ------------------------------------------------------------ memory */

static size_t region_end(size_t i)
{
	return i + 1 < NREG ? regions[i + 1].off - regions[i + 1].inner - GUARD : map_len;
}

/* Refill the guards and the fixed regions (after a failed check). */
static void fill_fixed(void)
{
	size_t i, o;

	for (i = 0; i < NREG; i++) {
		const struct region *r = &regions[i];

		for (o = r->off - r->inner - GUARD; o < region_end(i); o++) {
			bool in = o >= r->off && o < r->off + r->len;

			if (!in)
				map[o] = guard_byte(o);
			else if (r->fixed)
				map[o] = mr_byte(r->seed, o - r->off);
		}
	}
}

static void map_regions(void)
{
	size_t off = 0, i, o;

	for (i = 0; i < NREG; i++) {
		struct region *r = &regions[i];

		off += GUARD;
		r->off = off + r->inner;
		off += (r->inner + r->len + PAGE - 1) / PAGE * PAGE;
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
	ref = malloc(map_len);
	if (!ref)
		die("out of memory");
	memcpy(ref, map, map_len);
}

/*
 * The quick check, after every connection: the octets that must hold their
 * fill equal the copy taken when they were filled (byte by byte under TCG
 * took a millisecond or more per connection).
 */
static bool guards_intact(void)
{
	size_t i;

	for (i = 0; i < NREG; i++) {
		const struct region *r = &regions[i];
		size_t lo = r->off - r->inner - GUARD, end = r->off + r->len;

		if (memcmp(map + lo, ref + lo, r->off - lo) ||
		    (r->fixed && memcmp(map + r->off, ref + r->off, r->len)) ||
		    memcmp(map + end, ref + end, region_end(i) - end))
			return false;
	}
	return true;
}

/*
 * Every byte that must hold its fill: all guards, and the fixed regions.
 * Writes "OK" or "FAIL:<area>@<offset>=<got>/<want>,..." (at most four
 * areas) into @buf.
 */
static bool check_guards(char *buf, size_t sz)
{
	size_t i, o, len = 0;
	int bad = 0;

	if (guards_intact()) {
		snprintf(buf, sz, "OK");
		return true;
	}
	for (i = 0; i < NREG; i++) {
		const struct region *r = &regions[i];
		size_t lo = r->off - r->inner - GUARD;

		for (o = lo; o < region_end(i); o++) {
			bool in = o >= r->off && o < r->off + r->len;
			uint8_t want;

			if (in && !r->fixed)
				continue;
			want = in ? mr_byte(r->seed, o - r->off) : guard_byte(o);
			if (map[o] == want)
				continue;
			if (bad++ < 4)
				len += snprintf(buf + len, sz - len, "%s%s:%s@%ld=%02x/%02x",
						bad == 1 ? "FAIL:" : ",", r->name,
						in ? "in" : "guard", (long)o - (long)r->off,
						map[o], want);
			/* The rest of this area only counts. */
			while (o + 1 < region_end(i) && map[o + 1] != want)
				o++;
		}
	}
	if (!bad)
		snprintf(buf, sz, "OK");
	return !bad;
}

/* ------------------------------------------------------------ verbs */

static void setup_device(struct ibv_context *c)
{
	size_t i;

	ctx = c;
	pd[0] = ibv_alloc_pd(ctx);
	pd[1] = ibv_alloc_pd(ctx);
	if (!pd[0] || !pd[1])
		die_errno("ibv_alloc_pd");
	cc = ibv_create_comp_channel(ctx);
	if (!cc)
		die_errno("ibv_create_comp_channel");
	if (fcntl(cc->fd, F_SETFL, fcntl(cc->fd, F_GETFL) | O_NONBLOCK) ||
	    fcntl(ctx->async_fd, F_SETFL, fcntl(ctx->async_fd, F_GETFL) | O_NONBLOCK))
		die_errno("fcntl O_NONBLOCK");
	for (i = 0; i < NREG; i++) {
		struct region *r = &regions[i];

		r->mr = ibv_reg_mr(pd[r->pd], map + r->off, r->len, r->access);
		if (!r->mr)
			die("ibv_reg_mr %s: %s", r->name, strerror(errno));
		out("MR name=%s stag=0x%08x addr=0x%llx len=%zu seed=0x%02x",
		    r->name, r->mr->rkey,
		    (unsigned long long)(uintptr_t)(map + r->off), r->len, r->seed);
	}
	/* Only now: a freed STag may be handed out again at once. */
	for (i = 0; i < NREG; i++)
		if (regions[i].dereg) {
			if (ibv_dereg_mr(regions[i].mr))
				die_errno("ibv_dereg_mr");
			regions[i].mr = NULL;
		}
}

/* Receive @i of the recv region on @qp. Return: 1 when posted. */
static int post_recv_qp(struct ibv_qp *qp, int i)
{
	const struct region *r = &regions[RECV_REG];
	struct ibv_sge sge = {
		.addr = (uintptr_t)(map + r->off + i * RECV_SIZE),
		.length = RECV_SIZE,
		.lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad) == 0;
}

static void post_recv(struct slot *s, int i)
{
	s->wc.posted += post_recv_qp(s->qp, i);
}

/* A CQ and a QP with all receives posted, on @id. */
static void slot_init(struct slot *s, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = QP_ATTR;
	int i;

	memset(s, 0, sizeof(*s));
	s->used = true;
	s->tag = -1;
	s->id = id;
	s->t0 = now();
	strcpy(s->async, "none");
	s->cq = ibv_create_cq(ctx, CQ_DEPTH, s, cc, 0);
	if (!s->cq)
		die_errno("ibv_create_cq");
	if (ibv_req_notify_cq(s->cq, 0))
		die_errno("ibv_req_notify_cq");
	qa.send_cq = qa.recv_cq = s->cq;
	if (rdma_create_qp(id, pd[0], &qa))
		die_errno("rdma_create_qp");
	s->qp = id->qp;
	for (i = 0; i < opt.nrecv; i++)
		post_recv(s, i);
}

/*
 * Count @cq's completions into @c; with @repost, each receive that
 * succeeded goes back to @qp. Return: how many went back.
 */
static int poll_wcs(struct ibv_cq *cq, struct ibv_qp *qp, struct wcs *c,
		    bool repost)
{
	struct ibv_wc wc[16];
	int n, i, again = 0;

	while ((n = ibv_poll_cq(cq, 16, wc)) > 0)
		for (i = 0; i < n; i++) {
			if (wc[i].opcode & IBV_WC_RECV)
				c->posted--;
			if (wc[i].status == IBV_WC_SUCCESS) {
				c->recv_ok++;
				if (repost && post_recv_qp(qp, (int)wc[i].wr_id)) {
					c->posted++;
					again++;
				}
			} else if (wc[i].status == IBV_WC_WR_FLUSH_ERR) {
				c->flushed++;
			} else {
				c->wc_err++;
			}
		}
	return again;
}

static void poll_slot(struct slot *s)
{
	poll_wcs(s->cq, s->qp, &s->wc, s->est);
}

static const char *state_name(enum ibv_qp_state st)
{
	static const char *const n[] = { "RESET", "INIT", "RTR", "RTS", "SQD",
					 "SQE", "ERR" };

	return st < sizeof(n) / sizeof(n[0]) ? n[st] : "UNKNOWN";
}

/*
 * After its flushes (or 3 s): record the QP state, tear everything down,
 * check the guards and print the CONN line.
 */
static void slot_done(struct slot *s)
{
	struct ibv_qp_init_attr qia;
	struct ibv_qp_attr qpa;
	const char *state = "none";
	const char *end = s->end;
	char g[256];

	if (s->qp && !ibv_query_qp(s->qp, &qpa, IBV_QP_STATE, &qia))
		state = state_name(qpa.qp_state);
	rdma_destroy_qp(s->id);
	if (ibv_destroy_cq(s->cq))
		die_errno("ibv_destroy_cq");
	rdma_destroy_id(s->id);
	if (!check_guards(g, sizeof(g))) {
		n_guard_fail++;
		fill_fixed();
	}
	out("CONN %ld tag=%ld est=%d end=%s state=%s recv_ok=%d flushed=%d wc_err=%d unflushed=%d async=%s guards=%s ms=%ld",
	    n_done, s->tag, s->ever_est, end, state, s->wc.recv_ok, s->wc.flushed,
	    s->wc.wc_err, s->wc.posted, s->async, g, (long)((now() - s->t0) * 1000));
	n_done++;
	memset(s, 0, sizeof(*s));
}

/*
 * The connection is over (@end names the CM event that said so). Its
 * receives are flushed by then or soon: the slot waits for them in the
 * main loop (slot_reap()), so other connections go on meanwhile.
 */
static void slot_finish(struct slot *s, const char *end)
{
	if (s->closing)
		return;
	if (s->est)
		rdma_disconnect(s->id);
	s->est = false;
	s->end = end;
	s->closing = true;
	s->close_by = now() + 3.0;
	poll_slot(s);
	if (s->wc.posted <= 0)
		slot_done(s);
}

/* Closing slots whose flushes came, or whose time is up. */
static bool slot_reap(void)
{
	bool waiting = false;
	int i;

	for (i = 0; i < opt.slots; i++) {
		struct slot *s = &slots[i];

		if (!s->used || !s->closing)
			continue;
		poll_slot(s);
		if (s->wc.posted <= 0 || now() >= s->close_by)
			slot_done(s);
		else
			waiting = true;
	}
	return waiting;
}

static struct slot *slot_of(struct rdma_cm_id *id)
{
	int i;

	for (i = 0; i < opt.slots; i++)
		if (slots[i].used && slots[i].id == id)
			return &slots[i];
	return NULL;
}

static struct slot *free_slot(void)
{
	int i;

	for (i = 0; i < opt.slots; i++)
		if (!slots[i].used)
			return &slots[i];
	return NULL;
}

static const char *async_name(enum ibv_event_type t)
{
	switch (t) {
	case IBV_EVENT_QP_FATAL: return "QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case IBV_EVENT_COMM_EST: return "COMM_EST";
	case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "LAST_WQE";
	case IBV_EVENT_CQ_ERR: return "CQ_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "PORT_ERR";
	default: return "OTHER";
	}
}

/* QP async events go to their connection's list; others are printed. */
static void handle_async(void)
{
	struct ibv_async_event ev;
	int i;

	while (!ibv_get_async_event(ctx, &ev)) {
		const char *n = async_name(ev.event_type);
		char *a = NULL;

		for (i = 0; i < opt.slots; i++) {
			if (slots[i].used && slots[i].qp &&
			    slots[i].qp == ev.element.qp)
				a = slots[i].async;
			if (lanes[i].qp && lanes[i].qp == ev.element.qp)
				a = lanes[i].async;
		}
		if (a && ev.event_type != IBV_EVENT_PORT_ACTIVE &&
		    ev.event_type != IBV_EVENT_PORT_ERR &&
		    ev.event_type != IBV_EVENT_DEVICE_FATAL) {
			size_t l = strlen(a);

			if (!strcmp(a, "none"))
				snprintf(a, 160, "%s", n);
			else if (l + strlen(n) + 2 < 160)
				snprintf(a + l, 160 - l, ",%s", n);
		} else {
			out("ASYNC %s", n);
		}
		ibv_ack_async_event(&ev);
	}
}

static void handle_cq_events(void)
{
	struct ibv_cq *cq;
	void *cq_ctx;

	while (!ibv_get_cq_event(cc, &cq, &cq_ctx)) {
		struct slot *s = cq_ctx;

		ibv_ack_cq_events(cq, 1);
		if (!s->used || s->cq != cq)
			continue;
		ibv_req_notify_cq(cq, 0);
		poll_slot(s);
	}
}

static void conn_params(struct rdma_conn_param *cp)
{
	memset(cp, 0, sizeof(*cp));
	cp->responder_resources = opt.ird;
	cp->initiator_depth = opt.ord;
}

static struct addrinfo *resolve(void)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV,
				  .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int rc = getaddrinfo(opt.host, opt.port, &hints, &ai);

	if (rc)
		die("getaddrinfo %s:%s: %s", opt.host, opt.port, gai_strerror(rc));
	return ai;
}

/* Active mode: start the next connection attempt in free slot @s. */
static void start_connect(struct slot *s)
{
	struct addrinfo *ai = resolve();

	memset(s, 0, sizeof(*s));
	s->used = true;
	s->tag = -1;
	s->t0 = now();
	strcpy(s->async, "none");
	if (rdma_create_id(ch, &s->id, NULL, RDMA_PS_TCP))
		die_errno("rdma_create_id");
	if (rdma_resolve_addr(s->id, NULL, ai->ai_addr, 5000))
		die_errno("rdma_resolve_addr");
	freeaddrinfo(ai);
}

/* A slot whose QP is not there yet (active mode before the route). */
static void slot_drop(struct slot *s, const char *end)
{
	if (!s->cq) {
		rdma_destroy_id(s->id);
		out("CONN %ld tag=-1 est=0 end=%s state=none recv_ok=0 flushed=0 wc_err=0 unflushed=0 async=none guards=OK ms=%ld",
		    n_done, end, (long)((now() - s->t0) * 1000));
		n_done++;
		memset(s, 0, sizeof(*s));
	} else {
		slot_finish(s, end);
	}
}

/* The fuzzer's connection number from MPA private data ("FZ" + be32). */
static long pd_tag(const struct rdma_cm_event *ev)
{
	const uint8_t *p = ev->param.conn.private_data;

	if (!p || ev->param.conn.private_data_len < 6 || p[0] != 'F' || p[1] != 'Z')
		return -1;
	return (long)((uint32_t)p[2] << 24 | p[3] << 16 | p[4] << 8 | p[5]);
}

static void handle_cm(void)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(ch, &ev)) {
		enum rdma_cm_event_type t = ev->event;
		struct rdma_cm_id *id = ev->id;
		struct slot *s = slot_of(id);
		int status = ev->status;
		long tag = pd_tag(ev);

		rdma_ack_cm_event(ev);
		switch (t) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			s = free_slot();
			if (!s) {
				out("BUSY: a connection request beyond %d at once, rejected",
				    opt.slots);
				rdma_reject(id, NULL, 0);
				rdma_destroy_id(id);
				break;
			}
			slot_init(s, id);
			s->tag = tag;
			conn_params(&cp);
			if (rdma_accept(id, &cp))
				slot_finish(s, "ACCEPT_FAILED");
			break;
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (!ctx)
				setup_device(id->verbs);
			if (rdma_resolve_route(id, 5000))
				slot_drop(s, "ROUTE_FAILED");
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			slot_init(s, id);
			conn_params(&cp);
			if (rdma_connect(id, &cp))
				slot_finish(s, "CONNECT_FAILED");
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (s) {
				s->est = s->ever_est = true;
				if (tag >= 0)
					s->tag = tag;
				n_est++;
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
		case RDMA_CM_EVENT_REJECTED:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
			if (s) {
				handle_async();
				slot_drop(s, rdma_event_str(t));
			}
			break;
		default:
			out("CM %s status=%d", rdma_event_str(t), status);
			break;
		}
	}
	if (errno != EAGAIN)
		die_errno("rdma_get_cm_event");
}

/*
 * What the stuck connection looks like from here (the kernel's endpoint
 * and socket), while it is still stuck.
 */
static void hang_report(void)
{
	const char *cmd = getenv("SIW2_FUZZ_HANG_CMD");

	if (!cmd || !*cmd)
		return;
	fflush(stdout);
	if (system(cmd) == -1)
		out("HANG-CMD failed: %s", strerror(errno));
	fflush(stdout);
}

/* A connection that outlived --conn-timeout: say so and end it. */
static void check_hangs(void)
{
	int i;

	for (i = 0; i < opt.slots; i++) {
		struct slot *s = &slots[i];
		double age = now() - s->t0;

		if (!s->used)
			continue;
		if (!s->hang && age > opt.conn_timeout) {
			s->hang = true;
			n_hang++;
			out("HANG %ld est=%d after %.1fs", n_done, s->ever_est, age);
			hang_report();
			if (s->qp)
				rdma_disconnect(s->id);
		} else if (s->hang && age > 2 * opt.conn_timeout + 5) {
			die("connection %ld still not ended %.0fs after HANG",
			    n_done, age - opt.conn_timeout);
		}
	}
}

static bool busy(void)
{
	int i;

	for (i = 0; i < opt.slots; i++)
		if (slots[i].used)
			return true;
	return false;
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* ------------------------------------------------------------ inject */

static char fuzz_path[256];
#define IO_MAX (sizeof(struct siw2_fuzz_cmd) + 65536)
/* The lane threads share the counters, the async events and the guards. */
static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;

static bool full_recv(int fd, void *p, size_t n)
{
	return recv(fd, p, n, MSG_WAITALL) == (ssize_t)n;
}

static bool full_send(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	ssize_t k;

	while (n) {
		k = send(fd, b, n, MSG_NOSIGNAL);
		if (k <= 0)
			return false;
		b += k;
		n -= k;
	}
	return true;
}

static void out_add(struct lane *l, const void *p, size_t n)
{
	if (!l->ob || l->olen + n > l->ocap) {
		l->ocap = (l->olen + n) * 2 + 4096;
		l->ob = realloc(l->ob, 8 + l->ocap);
		if (!l->ob)
			die("out of memory");
	}
	memcpy(l->ob + 8 + l->olen, p, n);
	l->olen += n;
}

/* DOWN on an ended connection fails (ENOTCONN), as it may. */
static void fz_cmd(struct lane *l, uint32_t op)
{
	struct siw2_fuzz_cmd c = { .op = op };

	if (write(l->fz, &c, sizeof(c)) != sizeof(c) && op != SIW2_FUZZ_DOWN)
		die_errno("fuzz file command");
}

static int lane_poll(struct lane *l, bool repost)
{
	return poll_wcs(l->cq, l->qp, &l->wc, repost);
}

/*
 * All siw2 says until it has nothing left to do (the fuzz file's read
 * waits for that), reposting completed receives as they come: a Send
 * that waited for one goes on then. Return: the connection has ended.
 */
static bool lane_drain(struct lane *l, uint8_t *state)
{
	struct siw2_fuzz_rep rep;
	ssize_t n;

	for (;;) {
		n = read(l->fz, l->io, IO_MAX);
		if (n < (ssize_t)sizeof(rep))
			die("fuzz file read: %s", n < 0 ? strerror(errno) : "short");
		memcpy(&rep, l->io, sizeof(rep));
		out_add(l, l->io + sizeof(rep), rep.len);
		*state = rep.state;
		if (rep.more)
			continue;
		if (rep.closed)
			return true;
		if (!lane_poll(l, true))
			return false;
	}
}

/* The connection has ended: its verdict line, the guards checked. */
static void lane_conn_end(struct lane *l, const char *end)
{
	/* Intact guards and fixed regions: no lane's QP may change them. */
	bool ok = guards_intact();
	char g[256] = "OK";

	lane_poll(l, false);
	pthread_mutex_lock(&big);
	handle_async();
	/* Looked at again under the lock: another lane may be refilling. */
	if (!ok && !check_guards(g, sizeof(g))) {
		n_guard_fail++;
		fill_fixed();
	}
	out("CONN %ld tag=%ld est=1 end=%s state=ERR recv_ok=%d flushed=%d wc_err=%d unflushed=%d async=%s guards=%s ms=%ld",
	    n_done, l->tag, end, l->wc.recv_ok, l->wc.flushed, l->wc.wc_err, l->wc.posted,
	    l->async, g, (long)((now() - l->t0) * 1000));
	n_done++;
	pthread_mutex_unlock(&big);
	l->live = false;
}

static int lane_arm(struct lane *l, const uint8_t *p)
{
	struct ibv_qp_init_attr qa = QP_ATTR;
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_RESET };
	struct siw2_fuzz_cmd c = { .op = SIW2_FUZZ_ARM };
	int i;

	if (!l->qp) {
		l->cq = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
		if (!l->cq)
			die_errno("ibv_create_cq");
		qa.send_cq = qa.recv_cq = l->cq;
		l->qp = ibv_create_qp(pd[0], &qa);
		if (!l->qp)
			die_errno("ibv_create_qp");
	} else if (ibv_modify_qp(l->qp, &at, IBV_QP_STATE)) {
		die_errno("ibv_modify_qp RESET");
	}
	lane_poll(l, false);
	at.qp_state = IBV_QPS_INIT;
	at.qp_access_flags = RWA & ~IBV_ACCESS_LOCAL_WRITE;
	if (ibv_modify_qp(l->qp, &at, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS))
		die_errno("ibv_modify_qp INIT");
	memset(&l->wc, 0, sizeof(l->wc));
	strcpy(l->async, "none");
	for (i = 0; i < opt.nrecv; i++)
		l->wc.posted += post_recv_qp(l->qp, i);
	l->tag = (long)((uint32_t)p[8] << 24 | p[9] << 16 | p[10] << 8 | p[11]);
	l->t0 = now();
	c.arg[0] = l->qp->qp_num;
	for (i = 0; i < 5; i++)
		c.arg[i + 1] = p[i];
	if (write(l->fz, &c, sizeof(c)) != sizeof(c))
		return errno;
	l->live = true;
	pthread_mutex_lock(&big);
	n_est++;
	pthread_mutex_unlock(&big);
	return 0;
}

static void lane_free(struct lane *l)
{
	uint8_t st;

	if (l->live) {
		fz_cmd(l, SIW2_FUZZ_DOWN);
		lane_drain(l, &st);
		lane_conn_end(l, "DOWN");
	}
	fz_cmd(l, SIW2_FUZZ_DISARM);
	if (l->qp && ibv_destroy_qp(l->qp))
		die_errno("ibv_destroy_qp");
	if (l->cq && ibv_destroy_cq(l->cq))
		die_errno("ibv_destroy_cq");
	l->qp = NULL;
	l->cq = NULL;
	close(l->fz);
	close(l->sock);
	free(l->io);
	free(l->ob);
	l->io = l->ob = NULL;
	out("LANE %ld down", (long)(l - lanes));
}

/* One record from the fuzzer; false when the lane is done. */
static bool lane_serve(struct lane *l)
{
	uint8_t hdr[8], st = IBV_QPS_ERR, rep[12];
	uint32_t len, seg;
	bool closed = !l->live;
	size_t off;
	uint8_t *p;
	uint32_t err;

	if (!full_recv(l->sock, hdr, sizeof(hdr)))
		return false;
	memcpy(&len, hdr + 4, 4);
	len = ntohl(len);
	if (len > (1 << 20))
		die("a record of %u octets", len);
	/* Room for a fuzz file command before the payload ('D'). */
	p = malloc(sizeof(struct siw2_fuzz_cmd) + len);
	if (!p)
		die("out of memory");
	if (len && !full_recv(l->sock, p + sizeof(struct siw2_fuzz_cmd), len)) {
		free(p);
		return false;
	}
	l->olen = 0;
	switch (hdr[0]) {
	case 'A':
		if (l->live) {
			fz_cmd(l, SIW2_FUZZ_DOWN);
			lane_drain(l, &st);
			lane_conn_end(l, "DOWN");
		}
		err = htonl(len == 12 ? lane_arm(l, p + sizeof(struct siw2_fuzz_cmd)) : EINVAL);
		memset(rep, 0, sizeof(rep));
		rep[0] = 'R';
		len = htonl(4);
		memcpy(rep + 4, &len, 4);
		memcpy(rep + 8, &err, 4);
		free(p);
		return full_send(l->sock, rep, sizeof(rep));
	case 'D':
		/* The fuzz file's segments, lengths in host order: one write. */
		for (off = 0; off + 4 <= len; off += 4 + seg) {
			memcpy(&seg, p + sizeof(struct siw2_fuzz_cmd) + off, 4);
			seg = ntohl(seg);
			if (!seg || seg > len - off - 4 || seg > 65536)
				die("a bad 'D' record");
			memcpy(p + sizeof(struct siw2_fuzz_cmd) + off, &seg, 4);
		}
		if (off != len)
			die("a bad 'D' record");
		if (l->live) {
			struct siw2_fuzz_cmd c = { .op = SIW2_FUZZ_DATA, .len = len };

			memcpy(p, &c, sizeof(c));
			/* EPIPE: ended meanwhile, as a send after a RST. */
			if (write(l->fz, p, sizeof(c) + len) < 0 && errno != EPIPE)
				die_errno("fuzz file DATA");
			closed = lane_drain(l, &st);
		}
		break;
	case 'S':
	case 'E':
		if (l->live) {
			fz_cmd(l, SIW2_FUZZ_DOWN);
			lane_drain(l, &st);
		}
		closed = true;
		break;
	default:
		die("a record of unknown type 0x%02x", hdr[0]);
	}
	free(p);
	if (closed && l->live)
		lane_conn_end(l, hdr[0] == 'D' ? "TERM" : "DOWN");
	/* One send: with TCP_NODELAY, two would be two segments. */
	out_add(l, "", 0);
	l->ob[0] = 'O';
	l->ob[1] = closed;
	l->ob[2] = st;
	l->ob[3] = 0;
	len = htonl(l->olen);
	memcpy(l->ob + 4, &len, 4);
	return full_send(l->sock, l->ob, 8 + l->olen);
}

static int inject_listen(void)
{
	struct addrinfo *ai = resolve();
	int one = 1, fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64))
		die_errno("control listen");
	freeaddrinfo(ai);
	return fd;
}

/* A lane's thread: the lanes' QPs keep both vCPUs of the guest busy. */
static void *lane_main(void *arg)
{
	struct lane *l = arg;

	while (!stop && lane_serve(l))
		;
	lane_free(l);
	pthread_mutex_lock(&big);
	l->done = true;
	pthread_mutex_unlock(&big);
	return NULL;
}

static void inject_accept(int lfd)
{
	int i, one = 1, fd = accept(lfd, NULL, NULL);
	struct lane *l = NULL;

	if (fd < 0)
		return;
	pthread_mutex_lock(&big);
	for (i = 0; i < opt.slots && !l; i++)
		if (!lanes[i].used || lanes[i].done)
			l = &lanes[i];
	pthread_mutex_unlock(&big);
	if (!l) {
		out("BUSY: a lane beyond %d at once, refused", opt.slots);
		close(fd);
		return;
	}
	if (l->used && pthread_join(l->thread, NULL))
		die("pthread_join");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	memset(l, 0, sizeof(*l));
	l->sock = fd;
	l->fz = open(fuzz_path, O_RDWR);
	if (l->fz < 0)
		die("%s: %s (a module built with SIW2_FUZZ=1?)", fuzz_path,
		    strerror(errno));
	l->io = malloc(IO_MAX);
	if (!l->io)
		die("out of memory");
	out("LANE %ld up", (long)(l - lanes));
	l->used = true;
	if (pthread_create(&l->thread, NULL, lane_main, l))
		die("pthread_create");
}

/* --inject: serve fuzzer lanes, one thread each, until stopped. */
static void inject_run(void)
{
	struct pollfd pfd = { .events = POLLIN };
	int i;

	pfd.fd = inject_listen();
	if (opt.fuzz_file)
		snprintf(fuzz_path, sizeof(fuzz_path), "%s", opt.fuzz_file);
	else
		snprintf(fuzz_path, sizeof(fuzz_path), "/sys/kernel/debug/siw2/%s/fuzz",
			 ibv_get_device_name(ctx->device));
	out("READY inject %s:%s", opt.host, opt.port);
	while (!stop) {
		out_flush_due();
		if (poll(&pfd, 1, OUT_FLUSH_MS) < 0 && errno != EINTR)
			die_errno("poll");
		if (pfd.revents & POLLIN)
			inject_accept(pfd.fd);
	}
	/* A lane waiting for its fuzzer's next record stops at once. */
	for (i = 0; i < opt.slots; i++)
		if (lanes[i].used) {
			pthread_mutex_lock(&big);
			if (!lanes[i].done)
				shutdown(lanes[i].sock, SHUT_RDWR);
			pthread_mutex_unlock(&big);
			pthread_join(lanes[i].thread, NULL);
		}
	close(pfd.fd);
}

int main(int argc, char **argv)
{
	struct rdma_cm_id *listen_id = NULL;
	long started = 0;
	bool reaping = false;
	size_t i;

	parse_args(argc, argv);
	/*
	 * Lines go out in batches, every OUT_FLUSH_MS (the main loops): a write
	 * per line to the results file (9p in the VM harness) took 9 % of
	 * the debug kernel's CPU.
	 */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	map_regions();
	ch = rdma_create_event_channel();
	if (!ch)
		die_errno("rdma_create_event_channel");
	if (fcntl(ch->fd, F_SETFL, fcntl(ch->fd, F_GETFL) | O_NONBLOCK))
		die_errno("fcntl O_NONBLOCK");
	if (!opt.active) {
		struct addrinfo *ai = resolve();

		if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP))
			die_errno("rdma_create_id");
		/* --inject: the device only; its port is the control one. */
		if (opt.inject)
			((struct sockaddr_in *)ai->ai_addr)->sin_port = 0;
		if (rdma_bind_addr(listen_id, ai->ai_addr))
			die_errno("rdma_bind_addr");
		freeaddrinfo(ai);
		if (!listen_id->verbs)
			die("%s is on no RDMA device", opt.host);
		setup_device(listen_id->verbs);
		if (!opt.inject && rdma_listen(listen_id, 64))
			die_errno("rdma_listen");
	}
	if (opt.inject)
		inject_run();
	else
		out("READY %s %s:%s", opt.active ? "connect" : "listen",
		    opt.host, opt.port);

	while (!opt.inject && !stop &&
	       (!opt.conns || n_done < opt.conns || busy())) {
		struct pollfd pfd[3] = {
			{ .fd = ch->fd, .events = POLLIN },
			{ .fd = cc ? cc->fd : -1, .events = POLLIN },
			{ .fd = ctx ? ctx->async_fd : -1, .events = POLLIN },
		};

		while (opt.active && started < opt.conns) {
			struct slot *s = free_slot();

			if (!s)
				break;
			start_connect(s);
			started++;
		}
		out_flush_due();
		if (poll(pfd, 3, reaping ? 5 : OUT_FLUSH_MS) < 0 && errno != EINTR)
			die_errno("poll");
		if (ctx) {
			handle_cq_events();
			handle_async();
		}
		handle_cm();
		reaping = slot_reap();
		check_hangs();
	}
	for (i = 0; i < (size_t)opt.slots; i++)
		if (slots[i].used)
			slot_drop(&slots[i], "STOPPED");
	while (slot_reap())
		usleep(1000);
	for (i = 0; i < NREG; i++)
		if (regions[i].mr)
			ibv_dereg_mr(regions[i].mr);
	if (listen_id)
		rdma_destroy_id(listen_id);
	if (cc)
		ibv_destroy_comp_channel(cc);
	if (pd[0]) {
		ibv_dealloc_pd(pd[0]);
		ibv_dealloc_pd(pd[1]);
	}
	rdma_destroy_event_channel(ch);
	free(ref);
	out("DONE conns=%ld est=%ld guard_fail=%ld hang=%ld", n_done, n_est,
	    n_guard_fail, n_hang);
	return n_guard_fail || n_hang ? 1 : 0;
}
