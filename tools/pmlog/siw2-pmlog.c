// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2-pmlog: a remote append-only log on persistent memory, to judge
 * RDMA Commit (draft-talpey-rdma-commit) against the classic way, and to
 * check what a crash leaves of it.
 *
 * The server maps the log (a device-DAX device or ordinary memory),
 * registers it for remote writing (durable when it is
 * persistent memory) and names it to the client. The log's first cache
 * line holds its end: the offset past the last durable record, which a
 * reader after a crash trusts, and the log's epoch. Every record carries
 * a header (its length, sequence number, place, epoch) and a CRC-32C of
 * all of it, so that a reader can tell a whole record from a torn or a
 * stale one. The client appends records one after the other and waits
 * until each, and the end after it, is durable:
 *
 *   push     an RDMA Write of the record and an RDMA Commit of its range
 *            with a log update of the end (siw2dv_wr_commit_log()),
 *            posted together; the server's CPU is never involved
 *   classic  an RDMA Write of the record and a Send naming its range,
 *            posted together; the server writes the range's cache lines
 *            back (clwb where the CPU has it) and fences, stores the end,
 *            writes it back and fences, then answers with a Send
 *
 * and prints the latency percentiles of an append, the rate, and the
 * server's CPU time per record: its process's, and its whole machine's
 * including the kernel (/proc/stat: push's receive copy and write-back
 * run there). "siw2-pmlog recover" checks a log after a crash, as
 * tools/check-crash.sh does after killing the server's guest. Run
 * "siw2-pmlog --help".
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
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
#define LOG_START	CACHE_LINE	/* records; the first line: the head */
#define MSG_APPEND	1	/* classic: a record is in [off, off + len) */
#define MSG_DONE	2	/* classic: it is durable */
#define MSG_STATS	3	/* the client asks for the server's CPU time */
#define MSG_BYE		4

#define HEAD_MAGIC	0x474c4d50u	/* "PMLG" */
#define REC_MAGIC	0x524c4d50u	/* "PMLR" */
#define REC_GEN		0x1	/* payload from the generator, else a pattern */
#define ASK_MAGIC	0x4b534150u	/* "PASK" */
#define ASK_RESUME	0x1	/* append after the log's end, do not reset it */
#define ASK_BUSY	0x2	/* the server busy-polls for this client */

/*
 * The log's first cache line. The end word is first: the Commit log
 * update (SIW2-DEC-1) stores it in one aligned 8-octet store. A new
 * epoch stores the end first and the epoch after it, each written back,
 * so a crash between leaves the old epoch with an end at its start: a
 * consistent, shorter log.
 */
struct log_head {
	uint64_t end;
	uint32_t magic;
	uint32_t epoch;
};

/*
 * Every record starts with this, and is a multiple of 64 octets long.
 * crc is the CRC-32C of the payload (the octets after the header), then
 * of this header with crc 0: a record partly overwritten, or written
 * only in part, fails it. seq counts from 1 in each epoch, and off is
 * where the record lies: a reader follows the chain from LOG_START and
 * takes each record only if it is the one expected there.
 */
struct rec {
	uint32_t magic;
	uint32_t len;
	uint64_t seq;
	uint64_t off;
	uint32_t epoch;
	uint32_t flags;
	uint32_t crc;
	uint32_t rsvd;
};
#define REC_MIN		CACHE_LINE

/* What the client asks for, in the connect's private data. */
struct ask {
	uint32_t magic;
	uint32_t flags;
};

/* The server's log, in the accept's private data. */
struct hello {
	uint64_t addr;
	uint32_t rkey;
	uint32_t durable;
	uint64_t size;
	uint64_t end;	/* where the client appends */
	uint64_t seq;	/* the sequence number of its first record */
	uint32_t epoch;
	uint32_t flags;	/* ASK_BUSY: the server busy-polls */
};

/* Classic mode messages (both ways), and the statistics reply. */
struct msg {
	uint32_t type;
	uint32_t len;
	uint64_t off;
	uint64_t cpu_ns;	/* MSG_STATS reply: the server's user+system */
	uint64_t records;	/* MSG_STATS reply: classic appends served */
	uint64_t mach_user_ns;	/* MSG_STATS reply: its machine, /proc/stat */
	uint64_t mach_kern_ns;	/* system + irq + softirq */
	uint32_t mach_cpus;
	uint32_t busy;		/* the server busy-polled */
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
	bool busy;		/* serve: busy-poll; append: ask for it */
	bool sleep;		/* append: sleep on a completion channel */
	bool resume;
	bool seeded;
	uint64_t seed;
	const char *ack_log;
	uint64_t renew;
} opt = { .port = "7900", .size = 64 << 20, .mode = "push", .rec = 4096,
	  .count = 10000, .warmup = 100, .timeout = 30 };

static struct rdma_event_channel *ch;
static struct rdma_cm_id *id;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_comp_channel *cc;	/* server: it sleeps between messages */
static bool sleeping;			/* poll_one waits on cc */
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

/*
 * The machine's CPUs so far (/proc/stat), all of them: not the process's
 * time, for in push mode the work is the kernel's, in siw2's receive
 * path. Busy time is the wall clock times the CPUs less their idle and
 * iowait time, which the kernel measures at every idle entry and exit
 * (NO_HZ); the user (user, nice) and kernel (system, irq, softirq)
 * fields are sampled at the tick instead (Debian's kernel has no
 * IRQ_TIME_ACCOUNTING), and work that keeps time with the tick can hide
 * from them, so only their ratio is used, to split the busy time.
 */
struct mach {
	double wall_ns;
	double idle_ns;
	double user_ns;
	double kern_ns;
	uint32_t cpus;
};

static void machine_now(struct mach *m)
{
	unsigned long long v[8] = {};
	double ns = 1e9 / sysconf(_SC_CLK_TCK);
	char line[256];
	FILE *f;

	memset(m, 0, sizeof(*m));
	m->wall_ns = now_us() * 1e3;
	f = fopen("/proc/stat", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu ", 4))
			sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu",
			       &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]);
		else if (!strncmp(line, "cpu", 3))
			m->cpus++;
	}
	fclose(f);
	m->idle_ns = (v[3] + v[4]) * ns;
	m->user_ns = (v[0] + v[1]) * ns;
	m->kern_ns = (v[2] + v[5] + v[6]) * ns;
}

/* The busy time since @a, split into user and kernel time. */
static void machine_busy(const struct mach *a, uint64_t *user, uint64_t *kern)
{
	struct mach b;
	double busy, u, k;

	machine_now(&b);
	busy = (b.wall_ns - a->wall_ns) * b.cpus - (b.idle_ns - a->idle_ns);
	u = b.user_ns - a->user_ns;
	k = b.kern_ns - a->kern_ns;
	if (busy < 0)
		busy = 0;
	*kern = (uint64_t)(u + k > 0 ? busy * k / (u + k) : 0);
	*user = (uint64_t)busy - *kern;
}

/* ---- CRC-32C (Castagnoli), the record checksum ---- */

static uint32_t crc_table[256];
static bool crc_hw;

static void crc_init(void)
{
	unsigned int a, b, c, d;
	uint32_t i, k, r;

	for (i = 0; i < 256; i++) {
		for (r = i, k = 0; k < 8; k++)
			r = r & 1 ? (r >> 1) ^ 0x82f63b78u : r >> 1;
		crc_table[i] = r;
	}
	crc_hw = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2);
}

__attribute__((target("sse4.2")))
static uint32_t crc_upd_hw(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc, w;

	for (; n >= 8; n -= 8, p += 8) {
		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
	}
	for (; n; n--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return (uint32_t)c;
}

/* The running CRC @crc over [p, p + n): no inversions (crc32c() has them). */
static uint32_t crc_upd(uint32_t crc, const void *p, size_t n)
{
	const uint8_t *q = p;

	if (crc_hw)
		return crc_upd_hw(crc, q, n);
	while (n--)
		crc = crc_table[(crc ^ *q++) & 0xff] ^ (crc >> 8);
	return crc;
}

static uint32_t crc32c(const void *p, size_t n)
{
	return ~crc_upd(~0u, p, n);
}

/* ---- records ---- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/*
 * A record's payload: REC_GEN, pseudo-random octets that only this
 * record (epoch, seq, off) has, so that a reader can check every octet;
 * else the fixed pattern of the benchmark.
 */
static void payload_fill(uint8_t *p, uint32_t n, uint32_t flags,
			 uint32_t epoch, uint64_t seq, uint64_t off)
{
	uint64_t s = ((uint64_t)epoch << 32) ^ (seq * 0x2545f4914f6cdd1dull) ^ off;
	uint64_t w;
	uint32_t i;

	if (!(flags & REC_GEN)) {
		for (i = 0; i < n; i++)
			p[i] = (uint8_t)(i * 7 + 1);
		return;
	}
	for (i = 0; i + 8 <= n; i += 8) {
		w = splitmix(&s);
		memcpy(p + i, &w, 8);
	}
	for (w = splitmix(&s); i < n; i++, w >>= 8)
		p[i] = (uint8_t)w;
}

static uint32_t rec_crc(const struct rec *h, uint32_t payload_crc)
{
	struct rec c = *h;

	c.crc = 0;
	return ~crc_upd(payload_crc, &c, sizeof(c));
}

/*
 * Make the record @seq of @len octets at @off in @p. The fixed pattern
 * and its running CRC are the same for records of one length: when the
 * last record built in @p was the pattern of that length, both are kept.
 */
static void rec_build(uint8_t *p, uint32_t len, uint64_t seq, uint64_t off,
		      uint32_t epoch, uint32_t flags)
{
	static uint32_t pat_len, pat_crc;
	static const uint8_t *pat_p;
	struct rec *h = (struct rec *)p;
	uint32_t n = len - sizeof(*h), pc;

	if (flags & REC_GEN || pat_p != p || pat_len != len) {
		payload_fill(p + sizeof(*h), n, flags, epoch, seq, off);
		pc = crc_upd(~0u, p + sizeof(*h), n);
		pat_p = flags & REC_GEN ? NULL : p;
		pat_len = len;
		pat_crc = pc;
	} else {
		pc = pat_crc;
	}
	*h = (struct rec){ .magic = REC_MAGIC, .len = len, .seq = seq,
			   .off = off, .epoch = epoch, .flags = flags };
	h->crc = rec_crc(h, pc);
}

/* What lies at a place where the chain of records expects one. */
enum rec_state {
	REC_OK,		/* the record expected there, whole */
	REC_ZERO,	/* its first cache line is all zero: nothing written */
	REC_TORN,	/* the expected header, but the rest does not match */
	REC_STALE,	/* a record header of another epoch or place */
	REC_JUNK,	/* something else */
	REC_END,	/* no room for a record */
};

static const char *const rec_state_name[] = {
	"whole", "zero", "torn", "stale", "junk", "end",
};

/*
 * Check the place @off of the log for the record @seq of @epoch; on
 * REC_OK its length is in *@len. A torn record is one whose header is
 * the one expected but whose checksum, length or payload fails: a
 * record written in part, or whose write never finished.
 */
static enum rec_state rec_check(const uint8_t *log, uint64_t size,
				uint64_t off, uint32_t epoch, uint64_t seq,
				uint32_t *len)
{
	const struct rec *h = (const void *)(log + off);
	static uint8_t *want;
	static uint32_t want_len;
	uint32_t pc, i;

	if (off + REC_MIN > size)
		return REC_END;
	for (i = 0; i < REC_MIN && !log[off + i]; i++)
		;
	if (i == REC_MIN)
		return REC_ZERO;
	if (h->magic != REC_MAGIC)
		return REC_JUNK;
	if (h->epoch != epoch || h->seq != seq || h->off != off)
		return REC_STALE;
	if (h->len < REC_MIN || h->len % CACHE_LINE || h->len > size - off ||
	    h->rsvd || h->flags & ~REC_GEN)
		return REC_TORN;
	pc = crc_upd(~0u, log + off + sizeof(*h), h->len - sizeof(*h));
	if (rec_crc(h, pc) != h->crc)
		return REC_TORN;
	/* Every octet of the payload is the one written. */
	if (h->len > want_len) {
		free(want);
		want = malloc(h->len);
		if (!want)
			die("out of memory");
		want_len = h->len;
	}
	payload_fill(want, h->len - sizeof(*h), h->flags, epoch, seq, off);
	if (memcmp(want, log + off + sizeof(*h), h->len - sizeof(*h)))
		return REC_TORN;
	*len = h->len;
	return REC_OK;
}

/*
 * What a reader after a crash finds: the chain of whole records of the
 * head's epoch from LOG_START (or from @from, the record @seq), and
 * how it ends.
 */
struct scan {
	bool fresh;		/* no head: a log never written */
	uint32_t epoch;
	uint64_t word;		/* the end word */
	uint64_t end;		/* past the last whole record */
	uint64_t records;	/* whole records, from LOG_START */
	uint64_t last_seq;	/* the last whole record's */
	uint64_t beyond;	/* whole records at or past the end word */
	bool word_ok;		/* the end word is at a record's boundary */
	enum rec_state next;	/* what lies at end */
	uint64_t islands;	/* whole records of the epoch past end */
};

static void log_scan(const uint8_t *log, uint64_t size, struct scan *s,
		     uint64_t from, uint64_t seq, bool islands)
{
	const struct log_head *hd = (const void *)log;
	uint64_t off, records = 0;
	uint32_t len;

	memset(s, 0, sizeof(*s));
	s->word = hd->end;
	s->end = LOG_START;
	s->next = REC_ZERO;
	if (hd->magic != HEAD_MAGIC) {
		s->fresh = true;
		return;
	}
	s->epoch = hd->epoch;
	if (!from) {
		from = LOG_START;
		seq = 1;
	}
	s->word_ok = s->word == LOG_START;
	for (off = from;; off += len, seq++) {
		s->next = rec_check(log, size, off, s->epoch, seq, &len);
		if (s->next != REC_OK)
			break;
		records++;
		if (off >= s->word)
			s->beyond++;
		if (off + len == s->word)
			s->word_ok = true;
	}
	s->end = off;
	s->records = records;
	s->last_seq = seq - 1;
	/* Nothing of this epoch may lie past the end: look at every line. */
	for (off += CACHE_LINE; islands && off + REC_MIN <= size;
	     off += CACHE_LINE) {
		const struct rec *h = (const void *)(log + off);

		if (h->magic == REC_MAGIC && h->epoch == s->epoch &&
		    h->off == off &&
		    rec_check(log, size, off, s->epoch, h->seq, &len) == REC_OK)
			s->islands++;
	}
}

/* The scan is consistent: the end word promises no more than is there. */
static bool scan_ok(const struct scan *s)
{
	return s->fresh || (s->word_ok && s->word <= s->end && !s->islands);
}

static void scan_print(const char *dev, const struct scan *s)
{
	if (s->fresh) {
		printf("pmlog: recover %s: no log head: a fresh log\n", dev);
		printf("RECOVER fresh=1 ok=1\n");
		return;
	}
	printf("pmlog: recover %s: epoch %u, end word %" PRIu64 ", %" PRIu64
	       " whole records (seq 1-%" PRIu64 ") up to %" PRIu64
	       ", then %s; %" PRIu64 " whole record(s) at or past the end word"
	       ", %" PRIu64 " past the end\n", dev, s->epoch, s->word,
	       s->records, s->last_seq, s->end, rec_state_name[s->next],
	       s->beyond, s->islands);
	if (!s->word_ok)
		printf("pmlog: BROKEN: the end word %" PRIu64 " is at no record's end: the records stop at %" PRIu64
		       " (%s there)\n", s->word, s->end, rec_state_name[s->next]);
	if (s->islands)
		printf("pmlog: BROKEN: %" PRIu64 " whole record(s) of epoch %u past the recovered end\n",
		       s->islands, s->epoch);
	printf("RECOVER fresh=0 epoch=%u word=%" PRIu64 " end=%" PRIu64
	       " records=%" PRIu64 " lastseq=%" PRIu64 " beyond=%" PRIu64
	       " next=%s islands=%" PRIu64 " ok=%d\n", s->epoch, s->word,
	       s->end, s->records, s->last_seq, s->beyond,
	       rec_state_name[s->next], s->islands, scan_ok(s));
}

/* ---- write-back ---- */

enum wb_kind { WB_CLWB, WB_CLFLUSHOPT, WB_CLFLUSH };
static enum wb_kind wb_kind;
static const char *const wb_name[] = { "clwb", "clflushopt", "clflush" };

/* The best write-back instruction of this CPU, as the kernel's clwb_cache_range(). */
static void wb_init(void)
{
	unsigned int a, b, c, d;

	wb_kind = WB_CLFLUSH;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
		if (b & bit_CLWB)
			wb_kind = WB_CLWB;
		else if (b & bit_CLFLUSHOPT)
			wb_kind = WB_CLFLUSHOPT;
	}
}

__attribute__((target("clwb")))
static void wb_clwb(uintptr_t a, uintptr_t e)
{
	for (; a < e; a += CACHE_LINE)
		_mm_clwb((void *)a);
}

__attribute__((target("clflushopt")))
static void wb_clflushopt(uintptr_t a, uintptr_t e)
{
	for (; a < e; a += CACHE_LINE)
		_mm_clflushopt((void *)a);
}

/* Write back [p, p + len) from the CPU caches, then fence. */
static void flush_range(const void *p, uint64_t len)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)(CACHE_LINE - 1);
	uintptr_t e = (uintptr_t)p + len;

	switch (wb_kind) {
	case WB_CLWB:
		wb_clwb(a, e);
		break;
	case WB_CLFLUSHOPT:
		wb_clflushopt(a, e);
		break;
	default:
		for (; a < e; a += CACHE_LINE)
			_mm_clflush((const void *)a);
	}
	_mm_sfence();
}

/* ---- verbs ---- */

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
	cc = opt.server || opt.sleep ? ibv_create_comp_channel(cid->verbs) :
				       NULL;
	if ((opt.server || opt.sleep) && !cc)
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

/* Add a Send of @m to the work requests being built (unsignaled). */
static void wr_send(const struct msg *m)
{
	struct msg *s = slot(32);

	*s = *m;
	qpx->wr_id = 1000;
	qpx->wr_flags = 0;	/* unsignaled: its receive tells */
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)s, sizeof(*s));
}

static void send_msg(const struct msg *m)
{
	int rc;

	ibv_wr_start(qpx);
	wr_send(m);
	rc = ibv_wr_complete(qpx);
	if (rc)
		die("Send: %s", strerror(rc));
}

/*
 * The next completion. The client busy-polls, as a latency-bound program
 * would (or, with --sleep, sleeps on a completion channel), and gives up
 * after -t seconds; the server sleeps on its completion channel (so that
 * its CPU time is the work it does), or busy-polls when asked to,
 * without a deadline.
 */
static void poll_one(struct ibv_wc *wc)
{
	double end = now_us() + opt.timeout * 1e6;
	struct pollfd pfd;
	struct ibv_cq *ev_cq;
	void *ctx;
	int n;

	while (!(n = ibv_poll_cq(cq, 1, wc))) {
		if (sleeping) {
			if (ibv_req_notify_cq(cq, 0))
				die("ibv_req_notify_cq: %s", strerror(errno));
			n = ibv_poll_cq(cq, 1, wc);
			if (n)
				break;
			pfd = (struct pollfd){ .fd = cc->fd, .events = POLLIN };
			if (!opt.server && poll(&pfd, 1, opt.timeout * 1000) == 0)
				die("no completion within %d s", opt.timeout);
			if (ibv_get_cq_event(cc, &ev_cq, &ctx))
				die("ibv_get_cq_event: %s", strerror(errno));
			ibv_ack_cq_events(ev_cq, 1);
			continue;
		}
		if (!opt.server && now_us() > end)
			die("no completion within %d s", opt.timeout);
	}
	if (n < 0)
		die("ibv_poll_cq: %d", n);
	if (wc->status == IBV_WC_REM_ACCESS_ERR &&
	    wc->vendor_err == SIW2DV_COMMIT_STATUS_NOT_DURABLE)
		die("completion wr_id %" PRIu64 ": the server's log is not durable (vendor_err %u: not on persistent memory; serve --dev /dev/daxN.M)",
		    wc->wr_id, wc->vendor_err);
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
	fd = open(opt.dev, opt.server ? O_RDWR : O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", opt.dev, strerror(errno));
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size < opt.size)
		die("%s: %" PRIu64 " octets, the log needs %" PRIu64, opt.dev,
		    (uint64_t)st.st_size, opt.size);
	p = mmap(NULL, opt.size, PROT_READ | (opt.server ? PROT_WRITE : 0),
		 MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		die("mmap %s: %s", opt.dev, strerror(errno));
	*durable = true;
	return p;
}

/* The server's view of the log: where the next record goes. */
static struct {
	uint8_t *log;
	uint64_t end;
	uint64_t seq;
	uint32_t epoch;
} lg;

static struct log_head *head(void)
{
	return (struct log_head *)lg.log;
}

/* Start a new epoch at LOG_START: the end first, then the epoch. */
static void new_epoch(void)
{
	struct log_head *hd = head();

	lg.epoch = hd->magic == HEAD_MAGIC ? hd->epoch + 1 : 1;
	*(volatile uint64_t *)&hd->end = LOG_START;
	flush_range(hd, sizeof(*hd));
	hd->magic = HEAD_MAGIC;
	*(volatile uint32_t *)&hd->epoch = lg.epoch;
	flush_range(hd, sizeof(*hd));
	lg.end = LOG_START;
	lg.seq = 1;
}

/*
 * A client that resumes appends after the last whole record. Records a
 * crash left past the end word are taken into the log (the end word
 * moves over them) as a storage engine replays them; past --renew (half
 * the log by default), a new epoch starts instead.
 */
static void log_resume(void)
{
	struct log_head *hd = head();
	struct scan s;

	if (hd->magic != HEAD_MAGIC) {
		new_epoch();
		return;
	}
	log_scan(lg.log, opt.size, &s, lg.epoch == hd->epoch ? lg.end : 0,
		 lg.seq, false);
	lg.epoch = s.epoch;
	lg.end = s.end;
	lg.seq = s.last_seq + 1;
	if (lg.end > (opt.renew ? opt.renew : opt.size / 2)) {
		new_epoch();
	} else if (hd->end != lg.end) {
		*(volatile uint64_t *)&hd->end = lg.end;
		flush_range(hd, sizeof(hd->end));
	}
}

static void serve(void)
{
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct rdma_conn_param cp = { .responder_resources = 16,
				      .initiator_depth = 16 };
	uint64_t cpu0, mu, mk, served = 0;
	struct mach m0;
	struct rdma_cm_id *lid;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	struct ibv_mr *log_mr;
	struct hello h = {};
	struct ask a;
	struct ibv_wc wc;
	struct msg m, r;
	uint32_t i, k, n;
	bool durable;

	lg.log = log_map(&durable);
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
	printf("pmlog: classic appends written back with %s and sfence%s\n",
	       wb_name[wb_kind], opt.busy ? "; the server busy-polls" : "");
	/* What a previous run left durable, as a reader would recover it. */
	printf("pmlog: the log ends at %" PRIu64 "\n", head()->end);
	fflush(stdout);
	for (i = 0; !opt.clients || i < opt.clients; i++) {
		ev = cm_event(RDMA_CM_EVENT_CONNECT_REQUEST);
		id = ev->id;
		a = (struct ask){};
		n = ev->param.conn.private_data_len;
		memcpy(&a, ev->param.conn.private_data,
		       n < sizeof(a) ? n : sizeof(a));
		if (a.magic != ASK_MAGIC)
			a.flags = 0;
		rdma_ack_cm_event(ev);
		setup(id);
		sleeping = !(opt.busy || a.flags & ASK_BUSY);
		log_mr = ibv_reg_mr(pd, lg.log, opt.size, acc | (durable ?
				    SIW2DV_ACCESS_FLUSH_PERSISTENT :
				    SIW2DV_ACCESS_FLUSH_GLOBAL));
		if (!log_mr)
			die("registering the log%s: %s", durable ?
			    " as durable (is it persistent memory?)" : "",
			    strerror(errno));
		/* A fresh log for each client, unless it resumes. */
		if (a.flags & ASK_RESUME)
			log_resume();
		else
			new_epoch();
		h = (struct hello){ (uintptr_t)lg.log, log_mr->rkey, durable,
				    opt.size, lg.end, lg.seq, lg.epoch,
				    sleeping ? 0 : ASK_BUSY };
		cp.private_data = &h;
		cp.private_data_len = sizeof(h);
		for (k = 0; k < 32; k++)
			post_recv(k);
		if (rdma_accept(id, &cp))
			die("rdma_accept: %s", strerror(errno));
		rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_ESTABLISHED));
		printf("pmlog: client %u appends at %" PRIu64 ", seq %" PRIu64
		       ", epoch %u%s\n", i, lg.end, lg.seq, lg.epoch,
		       sleeping ? "" : " (busy-polled)");
		cpu0 = cpu_ns();
		machine_now(&m0);
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
				flush_range(lg.log + m.off, m.len);
				/* The end moves only once the record is durable. */
				*(volatile uint64_t *)&head()->end = m.off + m.len;
				flush_range(head(), sizeof(uint64_t));
				served++;
				r = (struct msg){ .type = MSG_DONE, .off = m.off };
			} else if (m.type == MSG_STATS) {
				machine_busy(&m0, &mu, &mk);
				r = (struct msg){ .type = MSG_STATS,
						  .cpu_ns = cpu_ns() - cpu0,
						  .records = served,
						  .mach_user_ns = mu,
						  .mach_kern_ns = mk,
						  .mach_cpus = m0.cpus,
						  .busy = !sleeping };
				cpu0 = cpu_ns();
				machine_now(&m0);
				served = 0;
			} else {
				break;
			}
			send_msg(&r);
		}
		rdma_disconnect(id);
		rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_DISCONNECTED));
		printf("pmlog: client %u done, the log ends at %" PRIu64 "\n",
		       i, head()->end);
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

/* ---- recover ---- */

static int recover(void)
{
	struct scan s;
	bool durable;

	lg.log = log_map(&durable);
	log_scan(lg.log, opt.size, &s, 0, 0, true);
	scan_print(opt.dev ? opt.dev : "memory", &s);
	return scan_ok(&s) ? 0 : 1;
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

/*
 * Append the record of @len octets in buf at @off and wait until it and
 * the end after it are durable.
 */
static void append(bool push, const struct hello *h, uint64_t off,
		   uint32_t len)
{
	struct ibv_wc wc;
	struct msg m;
	int rc;

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, h->rkey, h->addr + off);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, len);
	if (push) {
		/*
		 * The Commit covers the Write before it (COMMIT-ORD-1); the
		 * end word moves once the record is durable (SIW2-DEC-1).
		 */
		qpx->wr_id = 2;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		siw2dv_wr_commit_log(qpx, h->rkey, h->addr + off, len,
				     h->rkey, h->addr, off + len);
		rc = ibv_wr_complete(qpx);
		if (rc)
			die("Write+Commit: %s%s", strerror(rc), rc == EOPNOTSUPP ?
			    " (the server did not negotiate RDMA Commit)" : "");
		poll_one(&wc);
		if (wc.wr_id != 2)
			die("unexpected completion %" PRIu64, wc.wr_id);
		return;
	}
	/* The Write and the Send naming it, posted together. */
	m = (struct msg){ .type = MSG_APPEND, .len = len, .off = off };
	wr_send(&m);
	rc = ibv_wr_complete(qpx);
	if (rc)
		die("Write+Send: %s", strerror(rc));
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

/*
 * --seed: a record size from 64 octets to --record, log-uniform (a size
 * class 64 << e, e uniform, then uniform within it): most records are
 * small, but most of the time goes to placing the large ones, so that a
 * crash often finds one in mid-placement.
 */
static uint32_t rec_len(uint64_t *rng)
{
	uint32_t e = 0, n = opt.rec / REC_MIN;

	while (2u << e <= n)
		e++;
	e = splitmix(rng) % (e + 1);
	return REC_MIN * (1 + splitmix(rng) % (1u << e));
}

/* --ack-log: one line per acknowledged record, written before the next. */
static int ack_fd = -1;

static void ack_note(uint32_t epoch, uint64_t seq, uint64_t end)
{
	char line[80];
	int n;

	if (ack_fd < 0)
		return;
	n = snprintf(line, sizeof(line), "ack %u %" PRIu64 " %" PRIu64 "\n",
		     epoch, seq, end);
	if (write(ack_fd, line, n) != n)
		die("%s: %s", opt.ack_log, strerror(errno));
}

static void client(void)
{
	struct rdma_conn_param cp = { .responder_resources = 16,
				      .initiator_depth = 16 };
	struct ask a = { ASK_MAGIC, (opt.resume ? ASK_RESUME : 0) |
				    (opt.busy ? ASK_BUSY : 0) };
	bool push = !strcmp(opt.mode, "push");
	uint32_t i, len = opt.rec, flags = 0;
	struct rdma_cm_event *ev;
	uint64_t off, seq, rng = opt.seed;
	double t0, t, *lat = NULL;
	struct addrinfo *ai;
	struct hello h;
	struct msg s;

	if (!push && strcmp(opt.mode, "classic"))
		die("--mode is push or classic, not %s", opt.mode);
	sleeping = opt.sleep;
	if (opt.ack_log) {
		ack_fd = open(opt.ack_log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (ack_fd < 0)
			die("%s: %s", opt.ack_log, strerror(errno));
	}
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
	cp.private_data = &a;
	cp.private_data_len = sizeof(a);
	if (rdma_connect(id, &cp))
		die("rdma_connect: %s", strerror(errno));
	ev = cm_event(RDMA_CM_EVENT_ESTABLISHED);
	if (ev->param.conn.private_data_len < sizeof(h))
		die("not a siw2-pmlog server (of this version)");
	memcpy(&h, ev->param.conn.private_data, sizeof(h));
	rdma_ack_cm_event(ev);
	if (h.size < LOG_START || opt.rec > h.size - LOG_START)
		die("records of %u octets do not fit a log of %" PRIu64,
		    opt.rec, h.size);
	off = h.end;
	seq = h.seq;
	if (opt.seeded) {
		flags = REC_GEN;
		printf("pmlog: seed %" PRIu64 ": records of 64-%u octets (log-uniform), generated payloads\n",
		       opt.seed, opt.rec);
	}
	printf("pmlog: appending at %" PRIu64 ", seq %" PRIu64 ", epoch %u (%s)\n",
	       off, seq, h.epoch, opt.resume ? "resumed" : "a fresh log");
	if (opt.count) {
		lat = calloc(opt.count, sizeof(*lat));
		if (!lat)
			die("out of memory");
	} else {
		opt.warmup = 0;
	}
	t0 = now_us();
	for (i = 0; !opt.count || i < opt.warmup + opt.count; i++) {
		if (i == opt.warmup && opt.count) {
			stats();	/* restarts the server's counters */
			t0 = now_us();
		}
		if (opt.seeded)
			len = rec_len(&rng);
		if (off + len > h.size) {
			if (opt.resume) {
				printf("pmlog: the log is full at %" PRIu64 "\n", off);
				break;
			}
			off = LOG_START;	/* wrap: only for a fresh log */
		}
		/* Built before the clock starts: the same for both modes. */
		rec_build(buf, len, seq, off, h.epoch, flags);
		t = now_us();
		append(push, &h, off, len);
		if (lat && i >= opt.warmup)
			lat[i - opt.warmup] = now_us() - t;
		ack_note(h.epoch, seq, off + len);
		off += len;
		seq++;
	}
	t = now_us() - t0;
	if (lat && i == opt.warmup + opt.count) {
		s = stats();
		qsort(lat, opt.count, sizeof(*lat), cmp_d);
		printf("pmlog: mode %s, %u records of %u octets, log %s, server %s, client %s\n",
		       opt.mode, opt.count, opt.rec, h.durable ?
		       "durable (persistent memory)" :
		       "not durable (ordinary memory)",
		       s.busy ? "busy-polls" : "sleeps",
		       opt.sleep ? "sleeps" : "busy-polls");
		printf("pmlog: latency us p50 %.1f p99 %.1f p99.9 %.1f max %.1f\n",
		       pct(lat, opt.count, 50), pct(lat, opt.count, 99),
		       pct(lat, opt.count, 99.9), lat[opt.count - 1]);
		printf("pmlog: rate %.0f records/s, %.1f MiB/s\n",
		       opt.count / t * 1e6,
		       opt.count * (double)opt.rec / t * 1e6 / (1 << 20));
		printf("pmlog: server process CPU %.2f us per record (%" PRIu64
		       " ns for %u records, of which it handled %" PRIu64 ")\n",
		       s.cpu_ns / 1e3 / opt.count, s.cpu_ns, opt.count,
		       s.records);
		printf("pmlog: server machine CPU %.2f us per record (user %.2f, kernel %.2f; %u CPUs busy, /proc/stat)\n",
		       (s.mach_user_ns + s.mach_kern_ns) / 1e3 / opt.count,
		       s.mach_user_ns / 1e3 / opt.count,
		       s.mach_kern_ns / 1e3 / opt.count, s.mach_cpus);
	} else {
		printf("pmlog: %u records appended, up to %" PRIu64 ", seq %" PRIu64 "\n",
		       i, off, seq - 1);
	}
	s = (struct msg){ .type = MSG_BYE };
	send_msg(&s);
	rdma_ack_cm_event(cm_event(RDMA_CM_EVENT_DISCONNECTED));
	free(lat);
	if (ack_fd >= 0)
		close(ack_fd);
}

/* ---- selftest ---- */

/*
 * The record format on a log in memory: a chain of records is recovered
 * whole; a record cut at any octet, or left stale, past it is never taken
 * (and one below the end word makes the log BROKEN); what past the end
 * is whole and of the epoch is flagged.
 */
static int selftest(void)
{
	const uint64_t size = 1 << 20;
	uint64_t seq, off, end, rng = 42;
	uint32_t len, cut, fails = 0, cuts = 0;
	uint8_t *log, *save;
	struct scan s;

#define ST(c, ...) do {							\
		if (!(c) && ++fails <= 10) {				\
			printf("pmlog: selftest FAIL: " __VA_ARGS__);	\
			printf("\n");					\
		}							\
	} while (0)
	ST(crc32c("123456789", 9) == 0xe3069283u,
	   "CRC-32C(\"123456789\") = 0x%08x, want 0xe3069283",
	   crc32c("123456789", 9));
	log = calloc(1, size);
	save = malloc(8192);
	if (!log || !save)
		die("out of memory");
	/* The instruction and the table agree, at every length and alignment. */
	payload_fill(save, 8192, REC_GEN, 1, 1, 0);
	for (cut = 0; crc_hw && cut < 300; cut++) {
		uint32_t t = ~0u, k;

		for (k = 0; k < 1000 + cut; k++)
			t = crc_table[(t ^ save[cut + k]) & 0xff] ^ (t >> 8);
		ST(crc_upd(~0u, save + cut, 1000 + cut) == t,
		   "SSE4.2 and table CRC differ at %u", cut);
	}
	lg.log = log;
	log_scan(log, size, &s, 0, 0, true);
	ST(s.fresh && scan_ok(&s), "a zeroed log is not fresh");
	opt.size = size;
	new_epoch();
	new_epoch();
	ST(head()->epoch == 2 && head()->end == LOG_START, "new_epoch");
	for (seq = 1, off = LOG_START; seq <= 100; seq++, off += len) {
		len = REC_MIN * (1 + splitmix(&rng) % 64);
		rec_build(log + off, len, seq, off, 2, seq % 2 ? REC_GEN : 0);
	}
	end = off;
	head()->end = end;
	log_scan(log, size, &s, 0, 0, true);
	ST(scan_ok(&s) && s.end == end && s.records == 100 &&
	   s.last_seq == 100 && s.next == REC_ZERO && !s.beyond,
	   "100 records: end %" PRIu64 " records %" PRIu64 " next %s",
	   s.end, s.records, rec_state_name[s.next]);
	/* One more record past the end word, cut at every 8th octet. */
	len = 4096;
	for (cut = 0; cut <= len; cut += 8, cuts++) {
		memset(log + end, 0, len);
		rec_build(save, len, 101, end, 2, REC_GEN);
		memcpy(log + end, save, cut);
		log_scan(log, size, &s, 0, 0, true);
		if (cut < len)
			ST(scan_ok(&s) && s.end == end && s.next != REC_OK &&
			   (cut < REC_MIN || s.next == REC_TORN || s.next == REC_JUNK),
			   "cut at %u: end %" PRIu64 ", next %s", cut, s.end,
			   rec_state_name[s.next]);
		else
			ST(scan_ok(&s) && s.end == end + len && s.beyond == 1,
			   "whole record past the end word: end %" PRIu64, s.end);
	}
	/* One flipped octet anywhere in it. */
	for (cut = 0; cut < len; cut += 61) {
		memcpy(log + end, save, len);
		log[end + cut] ^= 0x10;
		log_scan(log, size, &s, 0, 0, true);
		ST(s.end == end && s.next != REC_OK, "flip at %u taken", cut);
	}
	/* Last epoch's record at the same place: stale, never taken. */
	rec_build(log + end, len, 101, end, 1, REC_GEN);
	log_scan(log, size, &s, 0, 0, true);
	ST(scan_ok(&s) && s.end == end && s.next == REC_STALE,
	   "stale record: next %s", rec_state_name[s.next]);
	/* A torn record below the end word: BROKEN. */
	memset(log + end, 0, len);
	log[LOG_START + 200] ^= 1;
	log_scan(log, size, &s, 0, 0, true);
	ST(!scan_ok(&s) && !s.word_ok, "a torn record below the end word is not BROKEN");
	log[LOG_START + 200] ^= 1;
	/* An end word past the records, or inside one: BROKEN. */
	head()->end = end + 64;
	log_scan(log, size, &s, 0, 0, true);
	ST(!scan_ok(&s), "an end word past the records is not BROKEN");
	head()->end = end;
	/* A whole record of the epoch past a gap: an island, BROKEN. */
	rec_build(log + end + 4096, 128, 102, end + 4096, 2, REC_GEN);
	log_scan(log, size, &s, 0, 0, true);
	ST(!scan_ok(&s) && s.islands == 1, "an island is not found");
	memset(log + end + 4096, 0, 128);
	/* The incremental scan the server does for a resuming client. */
	lg.end = LOG_START;
	lg.seq = 1;
	lg.epoch = 2;
	log_resume();
	ST(lg.end == end && lg.seq == 101 && head()->end == end,
	   "log_resume: end %" PRIu64 " seq %" PRIu64, lg.end, lg.seq);
	/* Past --renew, a new epoch; the old records are stale then. */
	opt.renew = end - CACHE_LINE;
	log_resume();
	log_scan(log, size, &s, 0, 0, true);
	ST(lg.epoch == 3 && lg.end == LOG_START && lg.seq == 1 &&
	   scan_ok(&s) && s.epoch == 3 && !s.records && s.next == REC_STALE,
	   "renew: epoch %u end %" PRIu64 ", scan: %" PRIu64 " records, next %s",
	   lg.epoch, lg.end, s.records, rec_state_name[s.next]);
	opt.renew = 0;
	printf("pmlog: selftest: %s (CRC-32C %s; %u cuts of a 4096-octet record)\n",
	       fails ? "FAILED" : "ok", crc_hw ? "SSE4.2" : "table", cuts);
	free(save);
	free(log);
	return fails ? 1 : 0;
#undef ST
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: siw2-pmlog serve -a ADDR [-p PORT] [--dev PATH] [--size N]\n"
"                  [--clients N] [--busy-poll] [--renew N]\n"
"       siw2-pmlog append -a ADDR [-p PORT] [--mode push|classic]\n"
"                  [--record N] [--count N] [--warmup N] [-t SECS]\n"
"                  [--busy-poll] [--sleep] [--resume] [--seed N]\n"
"                  [--ack-log FILE]\n"
"       siw2-pmlog recover --dev PATH [--size N]\n"
"       siw2-pmlog selftest\n"
"\n"
"A remote append-only log on persistent memory, over a siw2 device.\n"
"\n"
"The log's first 64 octets hold its end (the offset past the last record\n"
"made durable, stored only after the record is durable) and its epoch.\n"
"Each record has a 40-octet header (length, sequence number, place,\n"
"epoch, CRC-32C of the whole record) and is a multiple of 64 octets:\n"
"after a crash a reader follows the records from offset 64 and stops at\n"
"the first that is not whole; a record written in part is never taken.\n"
"\n"
"serve    map the log and wait for clients, one at a time; each starts\n"
"         a fresh log (a new epoch) unless it resumes:\n"
"  --dev PATH   a device-DAX device (/dev/daxN.M), mapped shared and\n"
"               registered durable; the registration of anything else\n"
"               fails (a file in the page cache: EMEDIUMTYPE; a file on a\n"
"               DAX file system: EOPNOTSUPP, its pages cannot be pinned\n"
"               for long); without it, ordinary memory (no durability)\n"
"  --size N     log size in octets (default 64 MiB; K, M, G suffixes)\n"
"  --clients N  exit after N clients (default: serve until killed)\n"
"  --busy-poll  poll for classic messages instead of sleeping on a\n"
"               completion channel (for every client)\n"
"  --renew N    a resuming client gets a fresh log (a new epoch) when\n"
"               the log already ends past N octets (default: half of it)\n"
"append   append --count records (default 10000; after --warmup 100\n"
"         unmeasured ones) of --record octets (default 4096) one after\n"
"         the other, each waited for until it is durable:\n"
"  --mode push     RDMA Write + RDMA Commit with a log update of the end,\n"
"                  posted together; the server's CPU is not involved\n"
"                  (needs RDMA Commit negotiated: siw2's mpa_caps with\n"
"                  0x2 on both sides, the default)\n"
"  --mode classic  RDMA Write + Send naming the range, posted together;\n"
"                  the server writes back its cache lines (clwb, else\n"
"                  clflushopt, else clflush), fences, stores the end,\n"
"                  writes it back, fences and answers\n"
"  --busy-poll     ask the server to busy-poll for this client\n"
"  --sleep         wait for completions on a completion channel (the\n"
"                  default busy-polls: it takes a CPU of its machine)\n"
"  --resume        append after the log's last whole record (a fresh log\n"
"                  otherwise, which wraps at its end; a resumed one stops\n"
"                  there)\n"
"  --seed N        records of random sizes (64 to --record octets, log-\n"
"                  uniform) with random payloads, from seed N\n"
"  --ack-log FILE  add \"ack EPOCH SEQ END\" to FILE for each record once it\n"
"                  is durable, before the next is sent\n"
"  --count 0       append until the log is full or an append fails\n"
"  Prints the append latency (p50, p99, p99.9, max), the rate, and the\n"
"  server's CPU time per record: its process's, and its machine's\n"
"  (/proc/stat: the CPUs' time not idle, split into user and kernel with\n"
"  interrupts, where push's receive copy and write-back run, in the\n"
"  ratio the tick sampled; it counts whatever else that machine runs).\n"
"recover  check the log on --dev (read only): the chain of whole records,\n"
"         what lies after it, and that the end word is at a record's end\n"
"         at or before it; one RECOVER line for scripts; exit status 1\n"
"         when the log is BROKEN\n"
"selftest the record format on a log in memory (no device needed)\n"
"Common: -a ADDR (numeric), -p PORT (7900), -t SECS (30, per wait).\n"
"Needs the siw2 provider with rings (siw2dv): RDMAV_DRIVERS=<tree>/\n"
"userspace-provider/build/libsiw2 for a build tree.\n");
}

static uint64_t size_arg(const char *s, bool zero)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': v <<= 10; /* fall through */
	case 'M': v <<= 10; /* fall through */
	case 'K': v <<= 10; end++; break;
	}
	if (*end || (!v && !zero))
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
		{ "busy-poll", no_argument, NULL, 8 },
		{ "resume", no_argument, NULL, 9 },
		{ "seed", required_argument, NULL, 10 },
		{ "ack-log", required_argument, NULL, 11 },
		{ "renew", required_argument, NULL, 12 },
		{ "sleep", no_argument, NULL, 13 },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *cmd;
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "serve"))
		opt.server = true;
	else if (strcmp(cmd, "append") && strcmp(cmd, "recover") &&
		 strcmp(cmd, "selftest"))
		die("unknown command '%s' (serve, append, recover, selftest, --help)",
		    cmd);
	optind = 2;
	while ((c = getopt_long(argc, argv, "a:p:t:h", lo, NULL)) != -1) {
		switch (c) {
		case 'a': opt.addr = optarg; break;
		case 'p': opt.port = optarg; break;
		case 't': opt.timeout = atoi(optarg); break;
		case 1: opt.dev = optarg; break;
		case 2: opt.size = size_arg(optarg, false); break;
		case 3: opt.mode = optarg; break;
		case 4: opt.rec = (uint32_t)size_arg(optarg, false); break;
		case 5: opt.count = (uint32_t)size_arg(optarg, true); break;
		case 6: opt.warmup = atoi(optarg); break;
		case 7: opt.clients = atoi(optarg); break;
		case 8: opt.busy = true; break;
		case 9: opt.resume = true; break;
		case 10: opt.seed = strtoull(optarg, NULL, 0); opt.seeded = true; break;
		case 11: opt.ack_log = optarg; break;
		case 12: opt.renew = size_arg(optarg, false); break;
		case 13: opt.sleep = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	crc_init();
	wb_init();
	if (!strcmp(cmd, "selftest"))
		return selftest();
	if (!strcmp(cmd, "recover")) {
		if (!opt.dev)
			die("recover needs --dev PATH");
		return recover();
	}
	if (!opt.addr)
		die("-a ADDR is required");
	if (opt.rec % CACHE_LINE || opt.rec < REC_MIN || opt.rec > 1 << 20)
		die("--record must be a multiple of %d from %d up to 1 MiB",
		    CACHE_LINE, REC_MIN);
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
