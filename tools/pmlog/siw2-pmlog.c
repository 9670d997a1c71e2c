// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2-pmlog: a remote append-only log on persistent memory, to judge
 * RDMA Commit (draft-talpey-rdma-commit) against the classic way.
 *
 * The server maps the log (a device-DAX device, a file, or ordinary
 * memory), registers it for remote writing (durable when it is
 * persistent memory) and names it to the client. The log's first cache
 * line holds its end: the offset past the last durable record, which a
 * reader after a crash trusts. The client appends records one after the
 * other and waits until each, and the end after it, is durable:
 *
 *   push     an RDMA Write of the record and an RDMA Commit of its range
 *            with a log update of the end (siw2dv_wr_commit_log()),
 *            posted together; the server's CPU is never involved
 *   classic  an RDMA Write of the record, then a Send naming its range;
 *            the server flushes the range's cache lines and fences, stores
 *            the end, flushes it and fences, then answers with a Send
 *
 * and prints the latency percentiles of an append, the rate, and the
 * server's CPU time per record. Run "siw2-pmlog --help".
 */
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "siw2dv.h"

#define CACHE_LINE	64
#define LOG_START	CACHE_LINE	/* records; the first line: the end */
#define MSG_APPEND	1	/* classic: a record is in [off, off + len) */
#define MSG_DONE	2	/* classic: it is durable */
#define MSG_STATS	3	/* the client asks for the server's CPU time */
#define MSG_BYE		4

/* The server's log, in the accept's private data. */
struct hello {
	uint64_t addr;
	uint32_t rkey;
	uint32_t durable;
	uint64_t size;
};

/* Classic mode messages (both ways), and the statistics reply. */
struct msg {
	uint32_t type;
	uint32_t len;
	uint64_t off;
	uint64_t cpu_ns;	/* MSG_STATS reply: the server's user+system */
	uint64_t records;	/* MSG_STATS reply: classic appends served */
};

static struct {
	bool server;
	const char *addr;
	const char *port;
	const char *dev;
	uint64_t size;
	const char *mode;
	uint32_t rec;
	uint32_t count;
	uint32_t warmup;
	uint32_t clients;
	int timeout;
} opt = { .port = "7900", .size = 64 << 20, .mode = "push", .rec = 4096,
	  .count = 10000, .warmup = 100, .timeout = 30 };

static struct rdma_event_channel *ch;
static struct rdma_cm_id *id;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_comp_channel *cc;	/* server: it sleeps between messages */
static struct ibv_qp_ex *qpx;
static struct ibv_mr *mr;	/* messages (and the client's record) */
static uint8_t *buf;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						     noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "siw2-pmlog: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static uint64_t cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ull +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ull;
}

static struct rdma_cm_event *cm_event(enum rdma_cm_event_type want)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		die("rdma_get_cm_event: %s", strerror(errno));
	if (ev->event != want)
		die("%s (status %d), waiting for %s", rdma_event_str(ev->event),
		    ev->status, rdma_event_str(want));
	return ev;
}

static void setup(struct rdma_cm_id *cid)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_SEND,
	};

	if (!siw2dv_is_siw2_context(cid->verbs))
		die("%s is not a siw2 device of this provider (RDMAV_DRIVERS?)",
		    ibv_get_device_name(cid->verbs->device));
	pd = ibv_alloc_pd(cid->verbs);
	cc = opt.server ? ibv_create_comp_channel(cid->verbs) : NULL;
	if (opt.server && !cc)
		die("ibv_create_comp_channel: %s", strerror(errno));
	cq = pd ? ibv_create_cq(cid->verbs, 128, NULL, cc, 0) : NULL;
	if (!cq)
		die("PD/CQ: %s", strerror(errno));
	qa.pd = pd;
	qa.send_cq = cq;
	qa.recv_cq = cq;
	if (rdma_create_qp_ex(cid, &qa))
		die("rdma_create_qp_ex: %s (siw2 user_rings=0?)", strerror(errno));
	qpx = ibv_qp_to_qp_ex(cid->qp);
	if (posix_memalign((void **)&buf, 4096, opt.rec + 64 * 64))
		die("out of memory");
	memset(buf, 0, opt.rec + 64 * 64);
	mr = ibv_reg_mr(pd, buf, opt.rec + 64 * 64, IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		die("ibv_reg_mr: %s", strerror(errno));
}

/* Message slot @i (receives 0..31, sends 32..63) after the record. */
static struct msg *slot(uint32_t i)
{
	return (struct msg *)(buf + opt.rec + i * 64);
}

static void post_recv(uint32_t i)
{
	struct ibv_sge sge = { (uintptr_t)slot(i), sizeof(struct msg),
			       mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(id->qp, &wr, &bad))
		die("ibv_post_recv: %s", strerror(errno));
}

static void send_msg(const struct msg *m)
{
	struct msg *s = slot(32);
	int rc;

	*s = *m;
	ibv_wr_start(qpx);
	qpx->wr_id = 1000;
	qpx->wr_flags = 0;	/* unsignaled: its receive tells */
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)s, sizeof(*s));
	rc = ibv_wr_complete(qpx);
	if (rc)
		die("Send: %s", strerror(rc));
}

/*
 * The next completion. The client busy-polls, as a latency-bound program
 * would; the server sleeps on its completion channel, so that its CPU
 * time is the work it does.
 */
static void poll_one(struct ibv_wc *wc)
{
	double end = now_us() + opt.timeout * 1e6;
	struct ibv_cq *ev_cq;
	void *ctx;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc))) {
		if (cc) {
			if (ibv_req_notify_cq(cq, 0))
				die("ibv_req_notify_cq: %s", strerror(errno));
			n = ibv_poll_cq(cq, 1, wc);
			if (n)
				break;
			if (ibv_get_cq_event(cc, &ev_cq, &ctx))
				die("ibv_get_cq_event: %s", strerror(errno));
			ibv_ack_cq_events(ev_cq, 1);
			continue;
		}
		if (now_us() > end)
			die("no completion within %d s", opt.timeout);
	}
	if (n < 0)
		die("ibv_poll_cq: %d", n);
	if (wc->status)
		die("completion wr_id %" PRIu64 ": %s (vendor_err %u)",
		    wc->wr_id, ibv_wc_status_str(wc->status), wc->vendor_err);
}

/* ---- server ---- */

static uint8_t *log_map(bool *durable)
{
	struct stat st;
	void *p;
	int fd;

	*durable = false;
	if (!opt.dev) {
		if (posix_memalign(&p, 4096, opt.size))
			die("out of memory");
		memset(p, 0, opt.size);
		return p;
	}
	fd = open(opt.dev, O_RDWR);
	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", opt.dev, strerror(errno));
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < opt.size)
		die("%s: %" PRIu64 " octets, the log needs %" PRIu64, opt.dev,
		    (uint64_t)st.st_size, opt.size);
	p = mmap(NULL, opt.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		die("mmap %s: %s", opt.dev, strerror(errno));
	*durable = true;
	return p;
}

/* Write back [p, p + len) from the CPU caches, then fence. */
static void flush_range(const uint8_t *p, uint32_t len)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(CACHE_LINE - 1);

	for (; a < (uintptr_t)p + len; a += CACHE_LINE)
		_mm_clflush((const void *)a);
	_mm_sfence();
}

static void serve(void)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct rdma_conn_param cp = { .responder_resources = 16,
				      .initiator_depth = 16 };
	struct rdma_cm_id *lid;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	struct ibv_mr *log_mr;
	struct hello h = {};
	uint64_t cpu0, served = 0;
	struct ibv_wc wc;
	struct msg m, r;
	bool durable;
	uint8_t *log;
	uint32_t i, k;

	log = log_map(&durable);
	if (getaddrinfo(opt.addr, opt.port, &(struct addrinfo){
			.ai_flags = AI_PASSIVE | AI_NUMERICHOST,
			.ai_socktype = SOCK_STREAM }, &ai))
		die("bad address %s:%s", opt.addr, opt.port);
	if (rdma_create_id(ch, &lid, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(lid, ai->ai_addr) || rdma_listen(lid, 1))
		die("listen on %s:%s: %s", opt.addr, opt.port, strerror(errno));
	freeaddrinfo(ai);
	printf("pmlog: serving a %" PRIu64 "-octet log on %s (%s) at %s:%s\n",
	       opt.size, opt.dev ? opt.dev : "ordinary memory",
	       durable ? "durable" : "not durable", opt.addr, opt.port);
	/* What a previous run left durable, as a reader would recover it. */
	printf("pmlog: the log ends at %" PRIu64 "\n", *(volatile uint64_t *)log);
	fflush(stdout);
	for (i = 0; !opt.clients || i < opt.clients; i++) {
		ev = cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
		id = ev->id;
		rdma_ack_cm_event(ev);
		setup(id);
		log_mr = ibv_reg_mr(pd, log, opt.size, acc | (durable ?
				    SIW2DV_ACCESS_FLUSH_PERSISTENT :
				    SIW2DV_ACCESS_FLUSH_GLOBAL));
		if (!log_mr)
			die("registering the log%s: %s", durable ?
			    " as durable (is it persistent memory?)" : "",
			    strerror(errno));
		h = (struct hello){ (uintptr_t)log, log_mr->rkey, durable,
				    opt.size };
		cp.private_data = &h;
		cp.private_data_len = sizeof(h);
		for (k = 0; k < 32; k++)
			post_recv(k);
		if (rdma_accept(id, &cp))
			die("rdma_accept: %s", strerror(errno));
		rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_ESTABLISHED));
		cpu0 = cpu_ns();
		served = 0;
		for (;;) {
			poll_one(&wc);
			if (!(wc.opcode & IBV_WC_RECV))
				continue;
			m = *slot(wc.wr_id);
			post_recv(wc.wr_id);
			if (m.type == MSG_APPEND) {
				if (m.off < LOG_START || m.off > opt.size ||
				    m.len > opt.size - m.off)
					die("append outside the log");
				flush_range(log + m.off, m.len);
				/* The end moves only once the record is durable. */
				*(volatile uint64_t *)log = m.off + m.len;
				flush_range(log, sizeof(uint64_t));
				served++;
				r = (struct msg){ .type = MSG_DONE, .off = m.off };
			} else if (m.type == MSG_STATS) {
				r = (struct msg){ .type = MSG_STATS,
						  .cpu_ns = cpu_ns() - cpu0,
						  .records = served };
				cpu0 = cpu_ns();
				served = 0;
			} else {
				break;
			}
			send_msg(&r);
		}
		rdma_disconnect(id);
		rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_DISCONNECTED));
		printf("pmlog: client %u done, the log ends at %" PRIu64 "\n",
		       i, *(volatile uint64_t *)log);
		rdma_destroy_qp(id);
		ibv_dereg_mr(log_mr);
		ibv_dereg_mr(mr);
		ibv_destroy_cq(cq);
		ibv_destroy_comp_channel(cc);
		ibv_dealloc_pd(pd);
		free(buf);
		rdma_destroy_id(id);
	}
	rdma_destroy_id(lid);
}

/* ---- client ---- */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(const double *v, uint32_t n, double p)
{
	uint32_t i = (uint32_t)(p / 100.0 * (n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

/* Where the record after the one at @off goes: wrapping at the end. */
static uint64_t next_off(const struct hello *h, uint64_t off)
{
	return off + opt.rec > h->size - opt.rec ? LOG_START : off + opt.rec;
}

/* Append one record at @off and wait until it and the end are durable. */
static void append(bool push, const struct hello *h, uint64_t off)
{
	struct ibv_wc wc;
	struct msg m;
	int rc;

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, h->rkey, h->addr + off);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, opt.rec);
	if (push) {
		/*
		 * The Commit covers the Write before it (COMMIT-ORD-1); the
		 * end word moves once the record is durable (SIW2-DEC-1).
		 */
		qpx->wr_id = 2;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		siw2dv_wr_commit_log(qpx, h->rkey, h->addr + off, opt.rec,
				     h->rkey, h->addr, off + opt.rec);
		rc = ibv_wr_complete(qpx);
		if (rc)
			die("Write+Commit: %s%s", strerror(rc), rc == EOPNOTSUPP ?
			    " (the server did not negotiate RDMA Commit)" : "");
		poll_one(&wc);
		if (wc.wr_id != 2)
			die("unexpected completion %" PRIu64, wc.wr_id);
		return;
	}
	rc = ibv_wr_complete(qpx);
	if (rc)
		die("Write: %s", strerror(rc));
	m = (struct msg){ .type = MSG_APPEND, .len = opt.rec, .off = off };
	send_msg(&m);
	do
		poll_one(&wc);
	while (!(wc.opcode & IBV_WC_RECV));
	if (slot(wc.wr_id)->type != MSG_DONE || slot(wc.wr_id)->off != off)
		die("bad reply");
	post_recv(wc.wr_id);
}

static struct msg stats(void)
{
	struct ibv_wc wc;
	struct msg m = { .type = MSG_STATS };

	send_msg(&m);
	do
		poll_one(&wc);
	while (!(wc.opcode & IBV_WC_RECV));
	m = *slot(wc.wr_id);
	post_recv(wc.wr_id);
	return m;
}

static void client(void)
{
	struct rdma_conn_param cp = { .responder_resources = 16,
				      .initiator_depth = 16 };
	bool push = !strcmp(opt.mode, "push");
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	struct hello h;
	uint64_t off = LOG_START;
	double t0, t, *lat;
	struct msg s;
	uint32_t i;

	if (!push && strcmp(opt.mode, "classic"))
		die("--mode is push or classic, not %s", opt.mode);
	if (getaddrinfo(opt.addr, opt.port, &(struct addrinfo){
			.ai_flags = AI_NUMERICHOST,
			.ai_socktype = SOCK_STREAM }, &ai))
		die("bad address %s:%s", opt.addr, opt.port);
	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(id, NULL, ai->ai_addr, 5000))
		die("resolve %s: %s", opt.addr, strerror(errno));
	freeaddrinfo(ai);
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 5000))
		die("resolve route: %s", strerror(errno));
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_ROUTE_RESOLVED));
	setup(id);
	for (i = 0; i < 32; i++)
		post_recv(i);
	if (rdma_connect(id, &cp))
		die("rdma_connect: %s", strerror(errno));
	ev = cm_event(RDMA_CM_EVENT_ESTABLISHED);
	if (ev->param.conn.private_data_len < sizeof(h))
		die("not a siw2-pmlog server");
	memcpy(&h, ev->param.conn.private_data, sizeof(h));
	rdma_ack_cm_event(ev);
	if (h.size < LOG_START || opt.rec > h.size - LOG_START)
		die("records of %u octets do not fit a log of %" PRIu64,
		    opt.rec, h.size);
	lat = calloc(opt.count, sizeof(*lat));
	if (!lat)
		die("out of memory");
	for (i = 0; i < opt.rec; i++)
		buf[i] = (uint8_t)(i * 7 + 1);
	for (i = 0; i < opt.warmup; i++) {
		append(push, &h, off);
		off = next_off(&h, off);
	}
	stats();	/* restarts the server's counters */
	t0 = now_us();
	for (i = 0; i < opt.count; i++) {
		t = now_us();
		append(push, &h, off);
		lat[i] = now_us() - t;
		off = next_off(&h, off);
	}
	t = now_us() - t0;
	s = stats();
	qsort(lat, opt.count, sizeof(*lat), cmp_d);
	printf("pmlog: mode %s, %u records of %u octets, log %s\n", opt.mode,
	       opt.count, opt.rec, h.durable ? "durable (persistent memory)" :
	       "not durable (ordinary memory)");
	printf("pmlog: latency us p50 %.1f p99 %.1f p99.9 %.1f max %.1f\n",
	       pct(lat, opt.count, 50), pct(lat, opt.count, 99),
	       pct(lat, opt.count, 99.9), lat[opt.count - 1]);
	printf("pmlog: rate %.0f records/s, %.1f MiB/s\n", opt.count / t * 1e6,
	       opt.count * (double)opt.rec / t * 1e6 / (1 << 20));
	printf("pmlog: server process CPU %.2f us per record (%" PRIu64
	       " ns for %u records, of which it handled %" PRIu64 ")\n",
	       s.cpu_ns / 1e3 / opt.count, s.cpu_ns, opt.count, s.records);
	s = (struct msg){ .type = MSG_BYE };
	send_msg(&s);
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_DISCONNECTED));
	free(lat);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: siw2-pmlog serve -a ADDR [-p PORT] [--dev PATH] [--size N]\n"
"                  [--clients N]\n"
"       siw2-pmlog append -a ADDR [-p PORT] [--mode push|classic]\n"
"                  [--record N] [--count N] [--warmup N] [-t SECS]\n"
"\n"
"A remote append-only log on persistent memory, over a siw2 device.\n"
"\n"
"The log's first 64 octets hold its end: the offset past the last record\n"
"made durable, stored only after the record is durable, so that a reader\n"
"after a crash finds whole records up to it. The server prints it at the\n"
"start and after each client.\n"
"\n"
"serve    map the log and wait for clients, one at a time:\n"
"  --dev PATH   a device-DAX device (/dev/daxN.M) or a file on a DAX file\n"
"               system, mapped shared and registered durable (the\n"
"               registration fails unless all of it is persistent memory);\n"
"               without it, ordinary memory (no durability)\n"
"  --size N     log size in octets (default 64 MiB; K, M, G suffixes)\n"
"  --clients N  exit after N clients (default: serve until killed)\n"
"append   append --count records (default 10000; after --warmup 100\n"
"         unmeasured ones) of --record octets (default 4096) one after\n"
"         the other, each waited for until it is durable, wrapping at the\n"
"         log's end:\n"
"  --mode push     RDMA Write + RDMA Commit with a log update of the end,\n"
"                  posted together; the server's CPU is not involved\n"
"                  (needs RDMA Commit negotiated: siw2's mpa_caps with\n"
"                  0x2 on both sides, the default)\n"
"  --mode classic  RDMA Write, then a Send naming the range; the server\n"
"                  writes back its cache lines, fences, stores the end,\n"
"                  writes it back, fences and answers\n"
"Prints the append latency (p50, p99, p99.9, max), the rate, and the CPU\n"
"time the server process spent per record; it sleeps on a completion\n"
"channel between messages (push: the kernel does the work, in siw2's\n"
"work items, which are not the process's).\n"
"Common: -a ADDR (numeric), -p PORT (7900), -t SECS (30, per wait).\n"
"Needs the siw2 provider with rings (siw2dv): RDMAV_DRIVERS=<tree>/\n"
"userspace-provider/build/libsiw2 for a build tree.\n");
}

static uint64_t size_arg(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': v <<= 10; /* fall through */
	case 'M': v <<= 10; /* fall through */
	case 'K': v <<= 10; end++; break;
	}
	if (*end || !v)
		die("bad size '%s'", s);
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 1 },
		{ "size", required_argument, NULL, 2 },
		{ "mode", required_argument, NULL, 3 },
		{ "record", required_argument, NULL, 4 },
		{ "count", required_argument, NULL, 5 },
		{ "warmup", required_argument, NULL, 6 },
		{ "clients", required_argument, NULL, 7 },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "serve"))
		opt.server = true;
	else if (strcmp(argv[1], "append"))
		die("unknown command '%s' (serve, append, --help)", argv[1]);
	optind = 2;
	while ((c = getopt_long(argc, argv, "a:p:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 't': opt.timeout = atoi(optarg); break;
		case 1: opt.dev = optarg; break;
		case 2: opt.size = size_arg(optarg); break;
		case 3: opt.mode = optarg; break;
		case 4: opt.rec = (uint32_t)size_arg(optarg); break;
		case 5: opt.count = (uint32_t)size_arg(optarg); break;
		case 6: opt.warmup = atoi(optarg); break;
		case 7: opt.clients = atoi(optarg); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!opt.addr)
		die("-a ADDR is required");
	if (opt.rec % CACHE_LINE || opt.rec > 1 << 20)
		die("--record must be a multiple of %d up to 1 MiB", CACHE_LINE);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel: %s", strerror(errno));
	if (opt.server)
		serve();
	else
		client();
	rdma_destroy_event_channel(ch);
	return 0;
}
