// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_integrity: randomized data-integrity test over one RC QP (rdma_cm).
 *
 *   siw2_integrity -s ADDR [options]     server, listens on ADDR
 *   siw2_integrity -c ADDR [options]     client, connects to ADDR
 *
 * Both sides derive the same plan from (seed, iteration): the operation
 * (RDMA Write, RDMA Read, Send), which side initiates it, its total size,
 * how it is split into 1..depth work requests, the remote offset, which
 * WRs are signaled or solicited.  Each side then draws its own SGE layouts
 * (1..min(max_sge, 6) SGEs, max_sge_rd for Read sinks, random split points
 * and gaps, random offsets in large MRs) from its own stream, within its
 * own device limits.  Byte k of iteration i's data is pat_byte(key(seed, i),
 * k), so every receiver checks every byte without the expected data being
 * transferred.  Sink MRs are filled with SENTINEL; whatever an operation
 * must not touch (gaps between SGEs, unused receive capacity, WINDOW bytes
 * around each sink range, and the whole sink MR every FULL_SCAN_EVERY
 * iterations and at the end) must still hold it.
 *
 * Per iteration, T = target, I = initiator, all control messages are small
 * Sends on the same QP:
 *   T: prepare (Read: fill its source; Send: post the receives), READY ->
 *   I: post the WRs (a few in flight, signaled or not, chained or not),
 *      reap the signaled completions (status, opcode, order, Read byte_len)
 *      Write: DONE -> (sometimes posted right behind the Writes: RDMAP
 *             delivers a Send only after the Writes before it are placed)
 *      Read:  check the sink, then DONE ->
 *      Send:  the data messages are the signal
 *   T: Write: check the sink; Read: check its source was not modified;
 *      Send: check each receive (byte_len, data, untouched rest).
 *   I: Write/Send: check its source was not modified (inline WRs excepted:
 *      their source is overwritten right after posting, so a late copy
 *      shows up as corrupt data at the target).
 * Receives are posted in the order the peer's messages arrive, each before
 * the peer can send it (iWARP has no receiver-not-ready retry).  INFO
 * (MR addresses, rkeys, parameters, which must match; the client's
 * first, see exchange_info()) starts the run;
 * FIN both ways (counters, which must match) and BYE end it (finish()).
 *
 * Solicited events: a target of a Send arms its receive CQ for solicited
 * completions.  With --check-se an SE Send must raise a CQ event and
 * an operation without one must not; without it events are only counted
 * (Linux siw 6.12 never raises one: siw_rqe_complete() ignores the SE bit).
 *
 * Output (line-buffered): LISTENING (server), DEVICE ..., progress lines,
 * and at the end
 *   INTEGRITY OK iterations=N bytes=B writes=W reads=R sends=S ...
 * exit 0; or a line starting "INTEGRITY FAIL" with the iteration, the
 * operation and, for data, the MR offset and expected/actual byte; exit 1.
 * --selftest-flip flips one received byte before the first check of a
 * non-empty sink on this side, which must then fail.  Every wait ends
 * after -t seconds.  "siw2_integrity -h" lists the options.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define DEFAULT_PORT	"7490"
#define DEFAULT_ITERS	100
#define DEFAULT_MAX_RW	(16ull << 20)
#define DEFAULT_MAX_SEND (1ull << 20)
#define DEFAULT_DEPTH	4
#define DEFAULT_TMO	30
#define MAX_DEPTH	16
#define MAX_SGE		6
#define MAX_BYTES	(1ull << 30)	/* keeps every length in 32 bits */
#define MR_SLACK	(64u << 10)	/* room for SGE gaps and receive slack */
#define WINDOW		4096		/* checked around every sink range */
#define SENTINEL	0xa5
#define SRC_FILL	0x3c
#define RD_ATOM		16		/* IRD/ORD asked for */
#define INLINE_ASK	64
#define CTRL_SLOTS	8
#define CTRL_MAGIC	0x53324954u	/* "S2IT" */
#define FULL_SCAN_EVERY	64
#define RESOLVE_MS	5000
#define RQ_RING		64

enum { OP_WRITE, OP_READ, OP_SEND, OP_NUM };
#define PLAN_NO_ZERO_READ	1u	/* options that change the plan */
#define PLAN_NO_SMALL_CROSS	2u
#define SMALL_MSG		64	/* --no-small-cross: "small" */
static const char *const op_name[OP_NUM] = { "WRITE", "READ", "SEND" };

enum { CT_INFO = 1, CT_READY, CT_DONE, CT_FIN, CT_BYE };
static const char *const ct_name[] = {
	"?", "INFO", "READY", "DONE", "FIN", "BYE"
};

/* Control message; both ends run on one host, so native byte order. */
struct ctrl {
	uint32_t magic;
	uint32_t type;
	uint32_t iter;
	uint32_t depth;
	uint64_t seed;
	uint64_t iters;
	uint64_t max_rw;
	uint64_t max_send;
	uint64_t mr_len;
	uint32_t ops;
	uint32_t src_rkey;
	uint32_t dst_rkey;
	uint32_t flags;			/* PLAN_* */
	uint64_t src_addr;
	uint64_t dst_addr;
	uint64_t bytes;			/* FIN: totals, cross-checked */
	uint64_t nops[OP_NUM];
};

static struct {
	bool server;
	const char *addr;
	const char *port;
	uint64_t seed;
	uint64_t iters;
	uint64_t max_rw;
	uint64_t max_send;
	uint32_t depth;
	unsigned int ops;		/* bit per OP_* */
	int timeout;
	bool verbose;
	bool selftest_flip;
	bool check_se;
	bool no_zero_read;
	bool no_small_cross;
	unsigned int first_delay_ms;
} opt = {
	.port = DEFAULT_PORT,
	.seed = 1,
	.iters = DEFAULT_ITERS,
	.max_rw = DEFAULT_MAX_RW,
	.max_send = DEFAULT_MAX_SEND,
	.depth = DEFAULT_DEPTH,
	.ops = 7,
	.timeout = DEFAULT_TMO,
};

/* One SGE: offset into the local MR and length. */
struct sge_l {
	uint64_t off;
	uint32_t len;
};

/* One WR: its share [a, a + len) of the operation's bytes and its SGEs. */
struct wr_l {
	uint64_t a;
	uint64_t len;
	uint64_t cap;			/* receives: buffer capacity >= len */
	int nsge;
	struct sge_l sge[MAX_SGE];
	bool signaled;
	bool solicited;
	bool inl;
};

struct plan {
	uint32_t iter;
	int op;
	bool client_init;		/* the client is the initiator */
	uint64_t size;
	uint64_t roff;			/* Write sink / Read source in the target */
	uint64_t key;			/* pattern key */
	int nwr;
	bool chain;			/* post the WRs as one list */
	bool done_early;		/* Write: DONE posted behind the Writes */
	struct wr_l wr[MAX_DEPTH];	/* initiator: source or Read sink */
	struct wr_l rcv[MAX_DEPTH];	/* target: receives of a Send */
	uint64_t lo, hi;		/* local span of wr[] or rcv[] */
};

/* Posted receives, in the order the peer's messages consume them. */
struct rq_ent {
	uint64_t id;
	bool ctrl;
	int slot;			/* control slot */
	uint32_t type;			/* control: expected type and iteration */
	uint32_t iter;
	uint32_t len;			/* data: expected byte_len */
};

/* Signaled send WRs, in completion order. */
struct sq_ent {
	uint64_t id;
	enum ibv_wc_opcode opcode;
	int64_t len;			/* expected byte_len, -1 = not checked */
};

static const char *side = "?";
static struct rdma_event_channel *cm_chan;
static struct rdma_cm_id *listen_id, *cm_id;
static bool connected;
static struct ibv_pd *pd;
static struct ibv_comp_channel *s_chan, *r_chan;
static struct ibv_cq *scq, *rcq;
static struct ibv_qp *qp;
static uint8_t *src, *dst;
static struct ctrl *ctl;		/* CTRL_SLOTS receive slots + 1 send */
static struct ibv_mr *src_mr, *dst_mr, *ctl_mr;
static uint64_t mr_len;
static int ctl_next;

static struct {
	uint64_t src_addr, dst_addr;
	uint32_t src_rkey, dst_rkey;
} peer;

static struct {
	int send_sge, recv_sge, rd_sge;
	uint32_t max_inline;
	uint64_t max_msg;
	int rd_atom;
} lim;

static struct rq_ent rq[RQ_RING];
static unsigned int rq_head, rq_tail;
static struct sq_ent sq[RQ_RING];
static unsigned int sq_head, sq_tail;
static uint64_t wr_seq = 1;

static bool se_armed;
static bool flip_pending;
static uint8_t sentinel_buf[8192];

/* What is going on, for failure messages. */
static uint64_t cur_iter;
static const char *cur_op = "setup";
static const struct plan *cur_plan;

static struct {
	uint64_t bytes, nops[OP_NUM], wrs, sges, inl, zero, se, se_events;
	uint64_t early, verified;
} st;

static double t_start;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* Reporting                                                          */

static void plan_print(const struct plan *p)
{
	const struct wr_l *w;
	int k, j;

	printf("  plan: iter=%u op=%s initiator=%s size=%" PRIu64 " roff=%" PRIu64
	       " nwr=%d chain=%d done_early=%d\n", p->iter, op_name[p->op],
	       p->client_init ? "client" : "server", p->size, p->roff,
	       p->nwr, p->chain, p->done_early);
	for (k = 0; k < p->nwr; k++) {
		w = &p->wr[k];
		printf("  wr%d: [%" PRIu64 ",+%" PRIu64 ") sig=%d se=%d inl=%d",
		       k, w->a, w->len, w->signaled, w->solicited, w->inl);
		for (j = 0; j < w->nsge; j++)
			printf(" %" PRIu64 "+%u", w->sge[j].off, w->sge[j].len);
		if (p->op == OP_SEND && p->rcv[k].nsge) {
			printf(" | rcv cap=%" PRIu64, p->rcv[k].cap);
			for (j = 0; j < p->rcv[k].nsge; j++)
				printf(" %" PRIu64 "+%u", p->rcv[k].sge[j].off,
				       p->rcv[k].sge[j].len);
		}
		printf("\n");
	}
}

static void leave(void) __attribute__((noreturn));
static void leave(void)
{
	if (cur_plan)
		plan_print(cur_plan);
	fflush(stdout);
	/* The peer sees the close (flushed receives) instead of a timeout. */
	if (connected)
		rdma_disconnect(cm_id);
	exit(1);
}

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2),
						      noreturn));
static void fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	printf("INTEGRITY FAIL side=%s iter=%" PRIu64 " op=%s seed=%" PRIu64 ": ",
	       side, cur_iter, cur_op, opt.seed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	leave();
}

static void fail_errno(const char *what)
{
	fail("%s: %s (errno %d)", what, strerror(errno), errno);
}

static void vlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!opt.verbose)
		return;
	printf("%s %.3f: ", side, now_s() - t_start);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ------------------------------------------------------------------ */
/* Random numbers and the data pattern                                */

#define GOLDEN	0x9e3779b97f4a7c15ull

static uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

struct rng {
	uint64_t s;
};

/* Stream 0: the shared plan; 1: initiator layout; 2: target layout. */
static void rng_init(struct rng *r, uint64_t iter, uint64_t stream)
{
	r->s = mix64(mix64(opt.seed) + iter * 0xc2b2ae3d27d4eb4full +
		     stream * 0x165667b19e3779f9ull);
}

static uint64_t rnd(struct rng *r)
{
	r->s += GOLDEN;
	return mix64(r->s);
}

/* Uniform in [lo, hi] (modulo bias does not matter here). */
static uint64_t rnd_u(struct rng *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	return lo + rnd(r) % (hi - lo + 1);
}

static bool chance(struct rng *r, unsigned int pct)
{
	return rnd_u(r, 0, 99) < pct;
}

static uint64_t pat_key(uint64_t iter)
{
	return mix64(mix64(opt.seed ^ 0x51ed270b27a5c3d1ull) + iter * GOLDEN);
}

/*
 * Word w (bytes 8w..8w+7, little endian) of the data with key: a 4 KiB
 * table drawn from the key, XORed with a tag per 4 KiB of the operation,
 * so no two pages of one operation and no two iterations look alike.
 * One mix64() per page instead of per word: the checks run under TCG.
 */
#define PAT_WORDS	512

static uint64_t pat_tab[PAT_WORDS];
static uint64_t pat_tab_key;
static bool pat_tab_valid;

static const uint64_t *pat_table(uint64_t key)
{
	int j;

	if (!pat_tab_valid || pat_tab_key != key) {
		for (j = 0; j < PAT_WORDS; j++)
			pat_tab[j] = mix64(key ^ (j * GOLDEN +
						  0x6a09e667f3bcc909ull));
		pat_tab_key = key;
		pat_tab_valid = true;
	}
	return pat_tab;
}

static uint64_t pat_tag(uint64_t key, uint64_t w)
{
	return mix64(key + (w / PAT_WORDS + 1) * 0xd6e8feb86659fd93ull);
}

static uint8_t pat_byte(uint64_t key, uint64_t idx)
{
	uint64_t w = idx >> 3;

	return (uint8_t)((pat_table(key)[w % PAT_WORDS] ^ pat_tag(key, w)) >>
			 ((idx & 7) * 8));
}

/*
 * Fill (cmp == NULL) or compare buf[0..len) with the data from logical
 * index idx on.  Returns the offset of the first differing byte, or len.
 */
static uint64_t pat_run(uint8_t *buf, const uint8_t *cmp, uint64_t key,
			uint64_t idx, uint64_t len)
{
	const uint64_t *tab = pat_table(key);
	uint64_t pos = 0, w, tag, n, i, v, have;

	while (pos < len && ((idx + pos) & 7)) {
		if (cmp && cmp[pos] != pat_byte(key, idx + pos))
			return pos;
		if (!cmp)
			buf[pos] = pat_byte(key, idx + pos);
		pos++;
	}
	while (len - pos >= 8) {
		w = (idx + pos) >> 3;
		tag = pat_tag(key, w);
		n = PAT_WORDS - w % PAT_WORDS;
		if (n > (len - pos) / 8)
			n = (len - pos) / 8;
		for (i = 0; i < n; i++, pos += 8) {
			v = htole64(tab[(w + i) % PAT_WORDS] ^ tag);
			if (!cmp) {
				memcpy(buf + pos, &v, 8);
				continue;
			}
			memcpy(&have, cmp + pos, 8);
			if (have != v) {
				while (cmp[pos] == pat_byte(key, idx + pos))
					pos++;
				return pos;
			}
		}
	}
	for (; pos < len; pos++) {
		if (cmp && cmp[pos] != pat_byte(key, idx + pos))
			return pos;
		if (!cmp)
			buf[pos] = pat_byte(key, idx + pos);
	}
	return len;
}

static void pat_fill(uint8_t *buf, uint64_t key, uint64_t idx, uint64_t len)
{
	pat_run(buf, NULL, key, idx, len);
}

/* ------------------------------------------------------------------ */
/* Checking memory                                                    */

/*
 * Expected content of a range: the pattern from logical index idx on, or
 * the sentinel (pattern == false).
 */
struct expect {
	bool pattern;
	uint64_t key;
	uint64_t idx;
};

static uint8_t exp_byte(const struct expect *e, uint64_t i)
{
	return e->pattern ? pat_byte(e->key, e->idx + i) : SENTINEL;
}

static void mismatch(const char *where, const char *mrname,
		     const uint8_t *base, uint64_t off, uint64_t len,
		     const struct expect *e, uint64_t first)
	__attribute__((noreturn));
static void mismatch(const char *where, const char *mrname,
		     const uint8_t *base, uint64_t off, uint64_t len,
		     const struct expect *e, uint64_t first)
{
	uint64_t i, bad = 0, last = first;

	/* Slow path: how much is wrong tells a flipped bit from lost data. */
	for (i = first; i < len; i++) {
		if (base[off + i] != exp_byte(e, i)) {
			bad++;
			last = i;
		}
	}
	fflush(stdout);
	printf("INTEGRITY FAIL side=%s iter=%" PRIu64 " op=%s seed=%" PRIu64
	       ": %s mr=%s offset=%" PRIu64 " index=%" PRIu64
	       " expected=0x%02x actual=0x%02x (%s) bad_bytes=%" PRIu64
	       " in [%" PRIu64 ",+%" PRIu64 ") last_bad_offset=%" PRIu64 "\n",
	       side, cur_iter, cur_op, opt.seed, where, mrname, off + first,
	       e->pattern ? e->idx + first : 0, exp_byte(e, first),
	       base[off + first], e->pattern ? "data" : "sentinel", bad, off,
	       len, off + last);
	printf("  bytes at offset %" PRIu64 ":", off + first);
	for (i = first; i < len && i < first + 16; i++)
		printf(" %02x/%02x", base[off + i], exp_byte(e, i));
	printf("  (actual/expected)\n");
	leave();
}

static void check_range(const char *where, const char *mrname,
			const uint8_t *base, uint64_t off, uint64_t len,
			const struct expect *e)
{
	uint64_t done = 0, n, i;

	if (e->pattern) {
		i = pat_run(NULL, base + off, e->key, e->idx, len);
		if (i < len)
			mismatch(where, mrname, base, off, len, e, i);
		return;
	}
	while (done < len) {
		n = len - done;
		if (n > sizeof(sentinel_buf))
			n = sizeof(sentinel_buf);
		if (memcmp(base + off + done, sentinel_buf, n)) {
			for (i = 0; base[off + done + i] == SENTINEL; i++)
				;
			mismatch(where, mrname, base, off, len, e, done + i);
		}
		done += n;
	}
}

static void check_sentinel(const char *where, const char *mrname,
			   const uint8_t *base, uint64_t off, uint64_t len)
{
	struct expect e = { .pattern = false };

	check_range(where, mrname, base, off, len, &e);
}

/* WINDOW bytes (within the MR) on both sides of [lo, hi) hold the sentinel. */
static void check_window(const char *where, uint64_t lo, uint64_t hi)
{
	uint64_t a = lo > WINDOW ? lo - WINDOW : 0;
	uint64_t b = hi + WINDOW < mr_len ? hi + WINDOW : mr_len;
	char what[64];

	snprintf(what, sizeof(what), "%s: below the range", where);
	check_sentinel(what, "dst", dst, a, lo - a);
	snprintf(what, sizeof(what), "%s: above the range", where);
	check_sentinel(what, "dst", dst, hi, b - hi);
}

/* --selftest-flip: corrupt the first received byte we are about to check. */
static void maybe_flip(uint64_t off, uint64_t len)
{
	if (!flip_pending || !len)
		return;
	flip_pending = false;
	off += len / 2;
	dst[off] ^= 0x01;
	printf("SELFTEST side=%s iter=%" PRIu64 " op=%s flipped dst offset %" PRIu64
	       " (expect INTEGRITY FAIL)\n", side, cur_iter, cur_op, off);
}

/*
 * Check received data laid out over the SGEs of w[0..nwr): the first len
 * bytes of each WR's scatter list are the pattern from index a, the rest
 * of its capacity and the gaps between SGEs (also between WRs) hold the
 * sentinel.  [lo, hi) is the whole layout.
 */
static void check_sinks(const char *where, const struct plan *p,
			const struct wr_l *w, int nwr)
{
	struct expect e = { .pattern = true, .key = p->key };
	uint64_t pos, n, prev_end = p->lo;
	char what[80];
	int k, j;

	for (k = 0; k < nwr; k++) {
		for (j = 0, pos = 0; j < w[k].nsge; j++) {
			const struct sge_l *s = &w[k].sge[j];

			if (s->off > prev_end) {
				snprintf(what, sizeof(what),
					 "%s: gap before wr %d sge %d", where,
					 k, j);
				check_sentinel(what, "dst", dst, prev_end,
					       s->off - prev_end);
			}
			n = pos < w[k].len ? w[k].len - pos : 0;
			if (n > s->len)
				n = s->len;
			if (n) {
				maybe_flip(s->off, n);
				e.idx = w[k].a + pos;
				snprintf(what, sizeof(what),
					 "%s: data in wr %d sge %d", where, k,
					 j);
				check_range(what, "dst", dst, s->off, n, &e);
			}
			if (s->len > n) {
				snprintf(what, sizeof(what),
					 "%s: unused capacity in wr %d sge %d",
					 where, k, j);
				check_sentinel(what, "dst", dst, s->off + n,
					       s->len - n);
			}
			pos += s->len;
			prev_end = s->off + s->len;
		}
		st.verified += w[k].len;
	}
	check_window(where, p->lo, p->hi);
}

static void reset_sink(uint64_t lo, uint64_t hi)
{
	memset(dst + lo, SENTINEL, hi - lo);
}

/* ------------------------------------------------------------------ */
/* The plan                                                           */

static uint64_t pick_size(struct rng *r, uint64_t max)
{
	unsigned int c = rnd_u(r, 0, 99);
	uint64_t s;

	if (c < 30) {
		s = rnd_u(r, 0, 64);			/* tiny */
	} else if (c < 55) {
		s = rnd_u(r, 0, 4) * 4096 + rnd_u(r, 0, 128);
		s = s > 64 ? s - 64 : s;		/* around pages */
	} else if (c < 85) {
		s = rnd_u(r, 65, 256 << 10);		/* medium */
	} else {
		s = rnd_u(r, (256 << 10) < max ? 256 << 10 : 0, max);
	}
	return s < max ? s : max;
}

/* Start of a span of span bytes in an MR: edges, aligned, or anywhere. */
static uint64_t pick_off(struct rng *r, uint64_t span)
{
	uint64_t room = mr_len - span, o;
	unsigned int c = rnd_u(r, 0, 9);

	if (c == 0)
		return 0;
	if (c == 1)
		return room;
	o = rnd_u(r, 0, room);
	if (c < 4)
		o &= ~4095ull;
	else if (c < 6)
		o &= ~7ull;
	return o;
}

static uint64_t pick_gap(struct rng *r)
{
	unsigned int c = rnd_u(r, 0, 9);

	if (c < 5)
		return 0;
	if (c < 9)
		return rnd_u(r, 1, 64);
	return rnd_u(r, 65, 512);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Lay w[0..nwr) out one after another from a random MR offset: each WR's
 * bytes (its capacity for receives) split into up to max_sge SGEs at
 * random points, random gaps between SGEs.  A WR with no bytes gets one
 * zero-length SGE if one_sge (receives: libsiw refuses none; Reads: siw
 * wants exactly one), else none or one.
 */
static void lay_out(struct rng *r, struct wr_l *w, int nwr, int max_sge,
		    bool recv, bool one_sge, uint64_t *lo, uint64_t *hi)
{
	uint64_t gaps[MAX_DEPTH * MAX_SGE], cuts[MAX_SGE + 1];
	uint64_t bytes, span = 0, base, pos;
	int k, j, n, ng = 0, g;

	for (k = 0; k < nwr; k++) {
		bytes = recv ? w[k].cap : w[k].len;
		n = rnd_u(r, 1, max_sge);
		if (!bytes)
			n = one_sge ? 1 : (int)rnd_u(r, 0, 1);
		else if ((uint64_t)n > bytes)
			n = (int)bytes;
		/* n - 1 distinct cut points in (0, bytes) */
		for (j = 0; j < n - 1; j++)
			cuts[j] = rnd_u(r, 1, bytes - 1);
		qsort(cuts, n > 0 ? n - 1 : 0, sizeof(cuts[0]), cmp_u64);
		for (j = 1, g = n > 1 ? 1 : 0; j < n - 1; j++)
			if (cuts[j] != cuts[g - 1])
				cuts[g++] = cuts[j];
		if (n > 1)
			n = g + 1;
		w[k].nsge = n;
		pos = 0;
		for (j = 0; j < n; j++) {
			uint64_t end = j < n - 1 ? cuts[j] : bytes;

			w[k].sge[j].len = (uint32_t)(end - pos);
			pos = end;
			gaps[ng] = ng ? pick_gap(r) : 0;
			span += gaps[ng++] + w[k].sge[j].len;
		}
	}
	/* Too wide for the MR's slack: no gaps (keeps the draws the same). */
	if (span > mr_len) {
		for (j = 0, span = 0; j < ng; j++)
			gaps[j] = 0;
		for (k = 0; k < nwr; k++)
			span += recv ? w[k].cap : w[k].len;
	}
	base = pick_off(r, span);
	pos = base;
	for (k = 0, g = 0; k < nwr; k++) {
		for (j = 0; j < w[k].nsge; j++) {
			pos += gaps[g++];
			w[k].sge[j].off = pos;
			pos += w[k].sge[j].len;
		}
	}
	*lo = base;
	*hi = pos;
}

static int pick_op(struct rng *r)
{
	static const unsigned int weight[OP_NUM] = { 40, 30, 30 };
	unsigned int total = 0, x;
	int op;

	for (op = 0; op < OP_NUM; op++)
		if (opt.ops & (1u << op))
			total += weight[op];
	x = rnd_u(r, 0, total - 1);
	for (op = 0; op < OP_NUM; op++) {
		if (!(opt.ops & (1u << op)))
			continue;
		if (x < weight[op])
			return op;
		x -= weight[op];
	}
	return OP_WRITE;
}

/* A message of at most SMALL_MSG bytes from [off, off + len) crosses a page. */
static bool small_cross(uint64_t off, uint64_t len)
{
	return len && len <= SMALL_MSG && (off & 4095) + len > 4096;
}

/*
 * --no-small-cross, Read: each WR's source is a Read Response of its own;
 * move the remote range to the nearest offset (down, else up) where no
 * small one crosses a page.  Both sides compute the same.
 */
static uint64_t read_roff_fix(const struct plan *p, uint64_t roff)
{
	uint64_t c;
	int k, pass;

	for (pass = 0; pass < 2; pass++) {
		for (c = roff; c <= mr_len - p->size; pass ? c++ : c--) {
			for (k = 0; k < p->nwr; k++)
				if (small_cross(c + p->wr[k].a, p->wr[k].len))
					break;
			if (k == p->nwr)
				return c;
			if (!pass && !c)
				break;
		}
	}
	return roff;		/* cannot happen: at most 16 small WRs */
}

/* What both sides agree on: stream 0, no device limits involved. */
static void plan_shared(struct plan *p, uint64_t iter)
{
	uint64_t cuts[MAX_DEPTH];
	struct rng r;
	int k;

	bool nz;
	int g;

	memset(p, 0, sizeof(*p));
	rng_init(&r, iter, 0);
	p->iter = (uint32_t)iter;
	p->op = pick_op(&r);
	p->client_init = rnd(&r) & 1;
	p->size = pick_size(&r, p->op == OP_SEND ? opt.max_send : opt.max_rw);
	p->nwr = opt.depth == 1 || chance(&r, 50) ? 1 :
		 (int)rnd_u(&r, 2, opt.depth);
	/* --no-zero-read: every Read WR moves at least one byte */
	nz = p->op == OP_READ && opt.no_zero_read;
	if (nz && !p->size)
		p->size = 1;
	if (nz && (uint64_t)p->nwr > p->size)
		p->nwr = (int)p->size;
	for (k = 0; k < p->nwr - 1; k++)
		cuts[k] = nz ? rnd_u(&r, 1, p->size - 1) :
			       rnd_u(&r, 0, p->size);
	qsort(cuts, p->nwr - 1, sizeof(cuts[0]), cmp_u64);
	if (nz && p->nwr > 1) {
		for (k = 1, g = 1; k < p->nwr - 1; k++)
			if (cuts[k] != cuts[g - 1])
				cuts[g++] = cuts[k];
		p->nwr = g + 1;
	}
	cuts[p->nwr - 1] = p->size;
	for (k = 0; k < p->nwr; k++) {
		struct wr_l *w = &p->wr[k];

		w->a = k ? cuts[k - 1] : 0;
		w->len = cuts[k] - w->a;
		w->signaled = k == p->nwr - 1 || chance(&r, 30);
		w->solicited = p->op == OP_SEND &&
			       chance(&r, k == p->nwr - 1 ? 25 : 10);
		p->rcv[k].a = w->a;
		p->rcv[k].len = w->len;
	}
	p->roff = p->op != OP_SEND ? pick_off(&r, p->size) : 0;
	if (p->op == OP_READ && opt.no_small_cross)
		p->roff = read_roff_fix(p, p->roff);
	p->chain = chance(&r, 70);
	p->done_early = p->op == OP_WRITE && chance(&r, 30);
	p->key = pat_key(iter);
}

static bool is_initiator(const struct plan *p)
{
	return p->client_init == !opt.server;
}

/* --no-small-cross: a small single-SGE source crosses a page. */
static bool small_cross_src(const struct plan *p)
{
	int k;

	if (!opt.no_small_cross || p->op == OP_READ)
		return false;
	for (k = 0; k < p->nwr; k++)
		if (p->wr[k].nsge == 1 &&
		    small_cross(p->wr[k].sge[0].off, p->wr[k].len))
			return true;
	return false;
}

/* This side's SGE layout: stream 1 (initiator) or 2 (target). */
static void plan_local(struct plan *p)
{
	struct rng r;
	int k, tries = 0;

	if (is_initiator(p)) {
		rng_init(&r, p->iter, 1);
		for (k = 0; k < p->nwr; k++)
			p->wr[k].inl = p->op != OP_READ && lim.max_inline &&
				       p->wr[k].len <= lim.max_inline &&
				       chance(&r, 30);
		/* Only this side draws from stream 1: redrawing is fine. */
		do {
			if (tries++ == 1000)
				fail("internal: no layout without a small page-crossing source");
			lay_out(&r, p->wr, p->nwr,
				p->op == OP_READ ? lim.rd_sge : lim.send_sge,
				false, p->op == OP_READ, &p->lo, &p->hi);
		} while (small_cross_src(p));
	} else if (p->op == OP_SEND) {
		rng_init(&r, p->iter, 2);
		for (k = 0; k < p->nwr; k++)
			p->rcv[k].cap = p->rcv[k].len +
					(chance(&r, 50) ? 0 : rnd_u(&r, 1, 256));
		lay_out(&r, p->rcv, p->nwr, lim.recv_sge, true, true, &p->lo,
			&p->hi);
	}
}

/* ------------------------------------------------------------------ */
/* Completions                                                        */

/*
 * Next completion of cq within the timeout.  The send CQ sleeps on its
 * channel; the receive CQ is polled with a growing pause instead, because
 * arming it for every completion would mask the solicited-only check.
 */
static void cq_wait(struct ibv_cq *cq, struct ibv_comp_channel *ch,
		    struct ibv_wc *wc, const char *what)
{
	double deadline = now_s() + opt.timeout;
	struct pollfd pfd;
	struct ibv_cq *ecq;
	unsigned int spins = 0, us = 2;
	void *ectx;
	int n, ms;

	for (;;) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			fail("ibv_poll_cq failed (%d) waiting for %s", n, what);
		if (n)
			return;
		if (now_s() > deadline)
			fail("timeout (%d s) waiting for %s", opt.timeout,
			     what);
		if (!ch) {
			if (spins++ < 64) {
				sched_yield();
				continue;
			}
			usleep(us);
			if (us < 500)
				us *= 2;
			continue;
		}
		if (ibv_req_notify_cq(cq, 0))
			fail("ibv_req_notify_cq failed");
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			fail("ibv_poll_cq failed (%d) waiting for %s", n, what);
		if (n)
			return;
		pfd.fd = ch->fd;
		pfd.events = POLLIN;
		ms = (int)((deadline - now_s()) * 1000) + 1;
		n = poll(&pfd, 1, ms > 0 ? ms : 0);
		if (n < 0 && errno != EINTR)
			fail_errno("poll (CQ channel)");
		if (n > 0 && !ibv_get_cq_event(ch, &ecq, &ectx))
			ibv_ack_cq_events(ecq, 1);
	}
}

/* @req: the requirement IDs the caller's check asserts, or NULL. */
static void wc_fail(const char *q, const struct ibv_wc *wc, const char *what,
		    uint64_t want_id, const char *req) __attribute__((noreturn));
static void wc_fail(const char *q, const struct ibv_wc *wc, const char *what,
		    uint64_t want_id, const char *req)
{
	fail("%s completion while waiting for %s: status %s (%d) opcode %d wr_id %"
	     PRIu64 " (expected %" PRIu64 ") byte_len %u vendor_err %u%s%s%s%s",
	     q, what, ibv_wc_status_str(wc->status), wc->status, wc->opcode,
	     wc->wr_id, want_id, wc->byte_len, wc->vendor_err,
	     wc->status == IBV_WC_WR_FLUSH_ERR ?
	     " (QP in error: peer failed or connection lost)" : "",
	     req ? " [" : "", req ? req : "", req ? "]" : "");
}

static struct rq_ent *rq_push(void)
{
	struct rq_ent *e;

	if (rq_tail - rq_head >= RQ_RING)
		fail("internal: receive ring full");
	e = &rq[rq_tail++ % RQ_RING];
	memset(e, 0, sizeof(*e));
	e->id = wr_seq++;
	return e;
}

/* The oldest posted receive, completed: wr_id, status, opcode, length. */
static struct rq_ent *rq_wait(const char *what)
{
	struct rq_ent *e;
	struct ibv_wc wc;

	if (rq_head == rq_tail)
		fail("internal: no receive posted for %s", what);
	e = &rq[rq_head % RQ_RING];
	cq_wait(rcq, NULL, &wc, what);
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != e->id ||
	    wc.opcode != IBV_WC_RECV)
		wc_fail("receive", &wc, what, e->id, NULL);
	if (wc.byte_len != e->len)
		fail("receive completion for %s: byte_len %u, expected %u",
		     what, wc.byte_len, e->len);
	rq_head++;
	return e;
}

static void sq_push(uint64_t id, enum ibv_wc_opcode opcode, int64_t len)
{
	struct sq_ent *e;

	if (sq_tail - sq_head >= RQ_RING)
		fail("internal: send ring full");
	e = &sq[sq_tail++ % RQ_RING];
	e->id = id;
	e->opcode = opcode;
	e->len = len;
}

/* Every signaled send WR completes, in posting order. */
static void sq_wait_all(const char *what)
{
	struct sq_ent *e;
	struct ibv_wc wc;

	while (sq_head != sq_tail) {
		e = &sq[sq_head % RQ_RING];
		cq_wait(scq, s_chan, &wc, what);
		/* BASE-RDMAP-6, V2-READ-7 (Reads as Read V2): in posting order. */
		if (wc.status != IBV_WC_SUCCESS || wc.wr_id != e->id)
			wc_fail("send", &wc, what, e->id,
				"BASE-RDMAP-6, V2-READ-7 (Reads as Read V2): completions in posting order");
		if (wc.opcode != e->opcode)
			fail("send completion for %s: opcode %d, expected %d (wr_id %"
			     PRIu64 ")", what, wc.opcode, e->opcode, wc.wr_id);
		if (e->len >= 0 && wc.byte_len != (uint64_t)e->len)
			fail("send completion for %s: byte_len %u, expected %" PRId64
			     " (wr_id %" PRIu64 ")", what, wc.byte_len, e->len,
			     wc.wr_id);
		sq_head++;
	}
}

/* ------------------------------------------------------------------ */
/* Control messages                                                   */

static void ctrl_recv_post(uint32_t type, uint64_t iter)
{
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	struct rq_ent *e = rq_push();

	e->ctrl = true;
	e->slot = ctl_next++ % CTRL_SLOTS;
	e->type = type;
	e->iter = (uint32_t)iter;
	e->len = sizeof(struct ctrl);
	sge.addr = (uintptr_t)&ctl[e->slot];
	sge.length = sizeof(struct ctrl);
	sge.lkey = ctl_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = e->id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (ibv_post_recv(qp, &wr, &bad))
		fail_errno("ibv_post_recv (control)");
}

/* The next receive must be the control message type/iter. */
static struct ctrl *ctrl_wait(uint32_t type, uint64_t iter)
{
	struct rq_ent *e;
	struct ctrl *m;
	char what[48];

	snprintf(what, sizeof(what), "%s(%" PRIu64 ")", ct_name[type], iter);
	e = rq_wait(what);
	if (!e->ctrl || e->type != type || e->iter != iter)
		fail("internal: receive order: got slot for %s(%u), waiting for %s",
		     e->ctrl ? ct_name[e->type] : "data", e->iter, what);
	m = &ctl[e->slot];
	if (m->magic != CTRL_MAGIC || m->type != type || m->iter != iter)
		fail("control message: magic 0x%x type %u iter %u, expected %s",
		     m->magic, m->type, m->iter, what);
	return m;
}

static struct ctrl *ctrl_out(uint32_t type, uint64_t iter)
{
	struct ctrl *m = &ctl[CTRL_SLOTS];

	memset(m, 0, sizeof(*m));
	m->magic = CTRL_MAGIC;
	m->type = type;
	m->iter = (uint32_t)iter;
	return m;
}

/* Post the message built by ctrl_out(); wait for it unless nowait. */
static void ctrl_send(bool nowait)
{
	struct ctrl *m = &ctl[CTRL_SLOTS];
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;

	sge.addr = (uintptr_t)m;
	sge.length = sizeof(*m);
	sge.lkey = ctl_mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_seq++;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(qp, &wr, &bad))
		fail_errno("ibv_post_send (control)");
	sq_push(wr.wr_id, IBV_WC_SEND, -1);
	if (!nowait)
		sq_wait_all(ct_name[m->type]);
}

/*
 * Post the receive for the next control message after iteration next - 1
 * that reaches this side: READY(next) when it initiates iteration next
 * (the target of an iteration posts its own receives before its READY),
 * FIN after the last one.  Called before this side sends the message
 * that lets the peer go on.
 */
static void post_next_ctrl(uint64_t next)
{
	static struct plan q;

	if (next >= opt.iters) {
		ctrl_recv_post(CT_FIN, opt.iters);
		return;
	}
	plan_shared(&q, next);
	if (is_initiator(&q))
		ctrl_recv_post(CT_READY, next);
}

/* ------------------------------------------------------------------ */
/* One iteration                                                      */

static void post_data_recvs(const struct plan *p)
{
	struct ibv_recv_wr wr[MAX_DEPTH], *bad;
	struct ibv_sge sg[MAX_DEPTH][MAX_SGE];
	int k, j;

	for (k = 0; k < p->nwr; k++) {
		const struct wr_l *w = &p->rcv[k];
		struct rq_ent *e = rq_push();

		e->len = (uint32_t)w->len;
		e->iter = p->iter;
		for (j = 0; j < w->nsge; j++) {
			sg[k][j].addr = (uintptr_t)(dst + w->sge[j].off);
			sg[k][j].length = w->sge[j].len;
			sg[k][j].lkey = dst_mr->lkey;
		}
		memset(&wr[k], 0, sizeof(wr[k]));
		wr[k].wr_id = e->id;
		wr[k].sg_list = sg[k];
		wr[k].num_sge = w->nsge;
		wr[k].next = k + 1 < p->nwr ? &wr[k + 1] : NULL;
	}
	if (ibv_post_recv(qp, wr, &bad))
		fail_errno("ibv_post_recv (data)");
}

/* Solicited-event bookkeeping after a Send's receives completed. */
static void se_check(const struct plan *p)
{
	struct pollfd pfd = { .fd = r_chan->fd, .events = POLLIN };
	bool want = false, got;
	struct ibv_cq *ecq;
	void *ectx;
	int k, n;

	for (k = 0; k < p->nwr; k++)
		want |= p->wr[k].solicited;
	if (want)
		st.se++;
	if (!se_armed)
		return;
	n = poll(&pfd, 1, want && opt.check_se ? opt.timeout * 1000 : 0);
	if (n < 0 && errno != EINTR)
		fail_errno("poll (receive CQ channel)");
	got = n > 0 && !ibv_get_cq_event(r_chan, &ecq, &ectx);
	if (got) {
		ibv_ack_cq_events(ecq, 1);
		se_armed = false;
		st.se_events++;
	}
	if (opt.check_se && want && !got)
		fail("no CQ event within %d s for a solicited Send (receive CQ armed for solicited completions)",
		     opt.timeout);
	if (opt.check_se && !want && got)
		fail("CQ event for a receive CQ armed for solicited completions, but no Send was solicited");
}

static void run_target(struct plan *p)
{
	char what[48];
	int k;

	switch (p->op) {
	case OP_READ:
		pat_fill(src + p->roff, p->key, 0, p->size);
		break;
	case OP_SEND:
		if (!se_armed) {
			if (ibv_req_notify_cq(rcq, 1))
				fail("ibv_req_notify_cq (solicited) failed");
			se_armed = true;
		}
		post_data_recvs(p);
		break;
	}
	if (p->op != OP_SEND)
		ctrl_recv_post(CT_DONE, p->iter);
	post_next_ctrl(p->iter + 1);
	ctrl_out(CT_READY, p->iter);
	ctrl_send(false);
	vlog("  READY sent");

	switch (p->op) {
	case OP_WRITE: {
		struct expect e = { .pattern = true, .key = p->key };

		ctrl_wait(CT_DONE, p->iter);
		vlog("  DONE received");
		maybe_flip(p->roff, p->size);
		/* BASE-RDMAP-6: placed once the Send posted after them is delivered. */
		check_range("write sink", "dst", dst, p->roff, p->size, &e);
		check_window("write sink", p->roff, p->roff + p->size);
		reset_sink(p->roff, p->roff + p->size);
		st.verified += p->size;
		break;
	}
	case OP_READ: {
		struct expect e = { .pattern = true, .key = p->key };

		ctrl_wait(CT_DONE, p->iter);
		check_range("read source modified", "src", src, p->roff,
			    p->size, &e);
		break;
	}
	case OP_SEND:
		for (k = 0; k < p->nwr; k++) {
			snprintf(what, sizeof(what), "receive %d of %d", k + 1,
				 p->nwr);
			rq_wait(what);
		}
		vlog("  %d receives completed", p->nwr);
		se_check(p);
		check_sinks("receive", p, p->rcv, p->nwr);
		reset_sink(p->lo, p->hi);
		break;
	}
}

static void fill_source(const struct plan *p)
{
	int k, j;

	for (k = 0; k < p->nwr; k++) {
		const struct wr_l *w = &p->wr[k];
		uint64_t pos = w->a;

		for (j = 0; j < w->nsge; j++) {
			pat_fill(src + w->sge[j].off, p->key, pos,
				 w->sge[j].len);
			pos += w->sge[j].len;
		}
	}
}

/* Inline data was copied at post time: spoil the source to prove it. */
static void spoil_inline(const struct plan *p)
{
	int k, j;
	uint32_t i;

	for (k = 0; k < p->nwr; k++) {
		const struct wr_l *w = &p->wr[k];

		if (!w->inl)
			continue;
		for (j = 0; j < w->nsge; j++)
			for (i = 0; i < w->sge[j].len; i++)
				src[w->sge[j].off + i] ^= 0xff;
	}
}

static void check_source(const struct plan *p)
{
	struct expect e = { .pattern = true, .key = p->key };
	char what[48];
	int k, j;

	for (k = 0; k < p->nwr; k++) {
		const struct wr_l *w = &p->wr[k];

		if (w->inl)
			continue;
		e.idx = w->a;
		for (j = 0; j < w->nsge; j++) {
			snprintf(what, sizeof(what),
				 "source modified: wr %d sge %d", k, j);
			check_range(what, "src", src, w->sge[j].off,
				    w->sge[j].len, &e);
			e.idx += w->sge[j].len;
		}
	}
}

static void post_data(const struct plan *p)
{
	static const enum ibv_wr_opcode wr_op[OP_NUM] = {
		IBV_WR_RDMA_WRITE, IBV_WR_RDMA_READ, IBV_WR_SEND
	};
	static const enum ibv_wc_opcode wc_op[OP_NUM] = {
		IBV_WC_RDMA_WRITE, IBV_WC_RDMA_READ, IBV_WC_SEND
	};
	struct ibv_send_wr wr[MAX_DEPTH], *bad;
	struct ibv_sge sg[MAX_DEPTH][MAX_SGE];
	uint8_t *base = p->op == OP_READ ? dst : src;
	uint32_t lkey = p->op == OP_READ ? dst_mr->lkey : src_mr->lkey;
	int k, j;

	for (k = 0; k < p->nwr; k++) {
		const struct wr_l *w = &p->wr[k];

		for (j = 0; j < w->nsge; j++) {
			sg[k][j].addr = (uintptr_t)(base + w->sge[j].off);
			sg[k][j].length = w->sge[j].len;
			sg[k][j].lkey = lkey;
		}
		memset(&wr[k], 0, sizeof(wr[k]));
		wr[k].wr_id = wr_seq++;
		wr[k].sg_list = sg[k];
		wr[k].num_sge = w->nsge;
		wr[k].opcode = wr_op[p->op];
		wr[k].send_flags = (w->signaled ? IBV_SEND_SIGNALED : 0) |
				   (w->solicited ? IBV_SEND_SOLICITED : 0) |
				   (w->inl ? IBV_SEND_INLINE : 0);
		if (p->op == OP_WRITE) {
			wr[k].wr.rdma.remote_addr = peer.dst_addr + p->roff +
						    w->a;
			wr[k].wr.rdma.rkey = peer.dst_rkey;
		} else if (p->op == OP_READ) {
			wr[k].wr.rdma.remote_addr = peer.src_addr + p->roff +
						    w->a;
			wr[k].wr.rdma.rkey = peer.src_rkey;
		}
		wr[k].next = p->chain && k + 1 < p->nwr ? &wr[k + 1] : NULL;
		/* byte_len is defined for Read completions only */
		if (w->signaled)
			sq_push(wr[k].wr_id, wc_op[p->op],
				p->op == OP_READ ? (int64_t)w->len : -1);
		st.wrs++;
		st.sges += w->nsge;
		st.inl += w->inl;
		st.zero += !w->len;
	}
	for (k = 0; k < p->nwr; k++) {
		if (p->chain && k)
			break;
		if (ibv_post_send(qp, &wr[k], &bad))
			fail("ibv_post_send (%s, wr %d of %d): %s", op_name[p->op],
			     (int)(bad - wr), p->nwr, strerror(errno));
	}
}

static void run_initiator(struct plan *p)
{
	if (p->op != OP_READ)
		fill_source(p);
	vlog("  source filled");
	ctrl_wait(CT_READY, p->iter);
	vlog("  READY received");
	post_next_ctrl(p->iter + 1);
	post_data(p);
	spoil_inline(p);
	if (p->done_early) {
		/* RDMAP: a Send is delivered after the Writes before it. */
		ctrl_out(CT_DONE, p->iter);
		ctrl_send(true);
		st.early++;
	}
	sq_wait_all(op_name[p->op]);
	vlog("  completed");
	if (p->op == OP_READ) {
		check_sinks("read sink", p, p->wr, p->nwr);
		reset_sink(p->lo, p->hi);
	}
	if (p->op != OP_SEND && !p->done_early) {
		ctrl_out(CT_DONE, p->iter);
		ctrl_send(false);
	}
	if (p->op != OP_READ)
		check_source(p);
	vlog("  checked");
}

/* ------------------------------------------------------------------ */
/* Connection and verbs objects                                       */

static struct rdma_cm_event *get_event(enum rdma_cm_event_type want,
				       const char *what, int secs)
{
	struct pollfd pfd = { .fd = cm_chan->fd, .events = POLLIN };
	double deadline = now_s() + secs;
	struct rdma_cm_event *ev;
	int ms, n;

	for (;;) {
		if (!rdma_get_cm_event(cm_chan, &ev))
			break;
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			fail_errno("rdma_get_cm_event");
		ms = (int)((deadline - now_s()) * 1000);
		if (ms <= 0)
			fail("timeout (%d s) waiting for %s", secs, what);
		n = poll(&pfd, 1, ms);
		if (n < 0 && errno != EINTR)
			fail_errno("poll (CM channel)");
	}
	vlog("CM event %s status %d", rdma_event_str(ev->event), ev->status);
	if (ev->event != want) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			connected = false;
		fail("%s (status %d) while waiting for %s",
		     rdma_event_str(ev->event), ev->status, what);
	}
	return ev;
}

static int imin(int a, int b)
{
	return a < b ? a : b;
}

static void setup_verbs(struct rdma_cm_id *id)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_qp_init_attr qa;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;
	int cqe = 2 * MAX_DEPTH + 16;

	if (ibv_query_device(id->verbs, &da))
		fail_errno("ibv_query_device");
	if (ibv_query_port(id->verbs, id->port_num, &pa))
		fail_errno("ibv_query_port");
	lim.send_sge = imin(da.max_sge, MAX_SGE);
	lim.recv_sge = imin(da.max_sge, MAX_SGE);
	/* iWARP Read sinks: max_sge_rd, usually 1 (0 read as 1) */
	lim.rd_sge = imin(da.max_sge_rd > 0 ? da.max_sge_rd : 1, lim.send_sge);
	lim.max_msg = pa.max_msg_sz;
	lim.rd_atom = imin(imin(da.max_qp_rd_atom, da.max_qp_init_rd_atom),
			   RD_ATOM);
	if (lim.rd_atom < 1)
		lim.rd_atom = 1;
	if (lim.send_sge < 1)
		fail("device max_sge %d", da.max_sge);
	if (opt.max_rw > lim.max_msg || opt.max_send > lim.max_msg)
		fail("-m %" PRIu64 " / -M %" PRIu64 " exceed the port's max_msg_sz %" PRIu64,
		     opt.max_rw, opt.max_send, lim.max_msg);
	if (mr_len > da.max_mr_size)
		fail("MR length %" PRIu64 " exceeds max_mr_size %" PRIu64,
		     mr_len, (uint64_t)da.max_mr_size);

	pd = ibv_alloc_pd(id->verbs);
	if (!pd)
		fail_errno("ibv_alloc_pd");
	s_chan = ibv_create_comp_channel(id->verbs);
	r_chan = ibv_create_comp_channel(id->verbs);
	if (!s_chan || !r_chan)
		fail_errno("ibv_create_comp_channel");
	if (fcntl(s_chan->fd, F_SETFL, O_NONBLOCK) ||
	    fcntl(r_chan->fd, F_SETFL, O_NONBLOCK))
		fail_errno("fcntl (CQ channel)");
	scq = ibv_create_cq(id->verbs, cqe, NULL, s_chan, 0);
	rcq = ibv_create_cq(id->verbs, cqe, NULL, r_chan, 0);
	if (!scq || !rcq)
		fail_errno("ibv_create_cq");

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = scq;
	qa.recv_cq = rcq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;
	qa.cap.max_send_wr = opt.depth + 4;
	qa.cap.max_recv_wr = opt.depth + 4;
	qa.cap.max_send_sge = lim.send_sge;
	qa.cap.max_recv_sge = lim.recv_sge;
	qa.cap.max_inline_data = INLINE_ASK;
	if (rdma_create_qp(id, pd, &qa)) {
		/* No inline support: go without. */
		qa.cap.max_inline_data = 0;
		if (rdma_create_qp(id, pd, &qa))
			fail_errno("rdma_create_qp");
	}
	qp = id->qp;
	lim.max_inline = qa.cap.max_inline_data < INLINE_ASK ?
			 qa.cap.max_inline_data : INLINE_ASK;

	if (posix_memalign((void **)&src, 4096, mr_len) ||
	    posix_memalign((void **)&dst, 4096, mr_len) ||
	    posix_memalign((void **)&ctl, 4096,
			   (CTRL_SLOTS + 1) * sizeof(struct ctrl)))
		fail("out of memory (2 x %" PRIu64 " bytes)", mr_len);
	memset(src, SRC_FILL, mr_len);
	memset(dst, SENTINEL, mr_len);
	memset(ctl, 0, (CTRL_SLOTS + 1) * sizeof(struct ctrl));
	src_mr = ibv_reg_mr(pd, src, mr_len, access);
	dst_mr = ibv_reg_mr(pd, dst, mr_len, access);
	ctl_mr = ibv_reg_mr(pd, ctl, (CTRL_SLOTS + 1) * sizeof(struct ctrl),
			    IBV_ACCESS_LOCAL_WRITE);
	if (!src_mr || !dst_mr || !ctl_mr)
		fail_errno("ibv_reg_mr");

	printf("DEVICE side=%s name=%s max_sge=%d max_sge_rd=%d max_msg_sz=%u max_qp_rd_atom=%d max_qp_init_rd_atom=%d qp_inline=%u use: sge=%d rd_sge=%d inline=%u ird_ord=%d mr_len=%" PRIu64 "\n",
	       side, ibv_get_device_name(id->verbs->device), da.max_sge,
	       da.max_sge_rd, pa.max_msg_sz, da.max_qp_rd_atom,
	       da.max_qp_init_rd_atom, qa.cap.max_inline_data, lim.send_sge,
	       lim.rd_sge, lim.max_inline, lim.rd_atom, mr_len);
}

/* Before the connection exists: INFO, then READY(0) or FIN if ours. */
static void post_initial(void)
{
	ctrl_recv_post(CT_INFO, 0);
	post_next_ctrl(0);
}

static void conn_param(struct rdma_conn_param *p, int ird, int ord)
{
	memset(p, 0, sizeof(*p));
	p->responder_resources = (uint8_t)ird;
	p->initiator_depth = (uint8_t)ord;
	p->retry_count = 7;
	p->rnr_retry_count = 7;
}

static struct addrinfo *resolve(const char *addr, bool passive)
{
	struct addrinfo hints, *res;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
			 (passive ? AI_PASSIVE : 0);
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(addr, opt.port, &hints, &res);
	if (rc)
		fail("address '%s' port '%s': %s", addr, opt.port,
		     gai_strerror(rc));
	return res;
}

static void connect_server(void)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;
	int ird, ord;

	ai = resolve(opt.addr, true);
	if (rdma_create_id(cm_chan, &listen_id, NULL, RDMA_PS_TCP))
		fail_errno("rdma_create_id");
	if (rdma_bind_addr(listen_id, ai->ai_addr))
		fail_errno("rdma_bind_addr");
	freeaddrinfo(ai);
	if (rdma_listen(listen_id, 1))
		fail_errno("rdma_listen");
	printf("LISTENING %s:%s\n", opt.addr, opt.port);
	fflush(stdout);

	ev = get_event(RDMA_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST",
		       opt.timeout * 2);
	cm_id = ev->id;
	setup_verbs(cm_id);
	post_initial();
	/* Our IRD at most the peer's ORD, our ORD at most its IRD. */
	ird = imin(lim.rd_atom, ev->param.conn.initiator_depth);
	ord = imin(lim.rd_atom, ev->param.conn.responder_resources);
	conn_param(&cp, ird, ord);
	if (rdma_accept(cm_id, &cp))
		fail_errno("rdma_accept");
	rdma_ack_cm_event(ev);
	ev = get_event(RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED", opt.timeout);
	rdma_ack_cm_event(ev);
	connected = true;
	vlog("accepted, ird %d ord %d", ird, ord);
}

static void connect_client(void)
{
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	struct addrinfo *ai;

	ai = resolve(opt.addr, false);
	if (rdma_create_id(cm_chan, &cm_id, NULL, RDMA_PS_TCP))
		fail_errno("rdma_create_id");
	if (rdma_resolve_addr(cm_id, NULL, ai->ai_addr, RESOLVE_MS))
		fail_errno("rdma_resolve_addr");
	freeaddrinfo(ai);
	ev = get_event(RDMA_CM_EVENT_ADDR_RESOLVED, "ADDR_RESOLVED",
		       opt.timeout);
	rdma_ack_cm_event(ev);
	if (rdma_resolve_route(cm_id, RESOLVE_MS))
		fail_errno("rdma_resolve_route");
	ev = get_event(RDMA_CM_EVENT_ROUTE_RESOLVED, "ROUTE_RESOLVED",
		       opt.timeout);
	rdma_ack_cm_event(ev);
	setup_verbs(cm_id);
	post_initial();
	conn_param(&cp, lim.rd_atom, lim.rd_atom);
	if (rdma_connect(cm_id, &cp))
		fail_errno("rdma_connect");
	ev = get_event(RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED", opt.timeout);
	rdma_ack_cm_event(ev);
	connected = true;
}

static uint32_t plan_flags(void)
{
	return (opt.no_zero_read ? PLAN_NO_ZERO_READ : 0) |
	       (opt.no_small_cross ? PLAN_NO_SMALL_CROSS : 0);
}

static void info_check(const struct ctrl *m)
{
	if (m->seed != opt.seed || m->iters != opt.iters ||
	    m->max_rw != opt.max_rw || m->max_send != opt.max_send ||
	    m->depth != opt.depth || m->ops != opt.ops || m->mr_len != mr_len ||
	    m->flags != plan_flags())
		fail("peer parameters differ: seed %" PRIu64 " n %" PRIu64 " m %" PRIu64
		     " M %" PRIu64 " d %u ops 0x%x flags 0x%x (ours: %" PRIu64
		     " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u 0x%x 0x%x)",
		     m->seed, m->iters, m->max_rw, m->max_send, m->depth,
		     m->ops, m->flags, opt.seed, opt.iters, opt.max_rw,
		     opt.max_send, opt.depth, opt.ops, plan_flags());
	peer.src_addr = m->src_addr;
	peer.dst_addr = m->dst_addr;
	peer.src_rkey = m->src_rkey;
	peer.dst_rkey = m->dst_rkey;
}

/*
 * The client speaks first: without MPA peer-to-peer RTR the passive side
 * must not send before the active side's first FPDU arrived, and Linux
 * siw fails the connection (CONNECT_ERROR -EINVAL, "peer sent extra
 * data" in its debug log) when the server's first FPDU comes in with the
 * MPA Reply.
 *
 * A Linux siw 6.12 server, for its part, sends the MPA Reply before it
 * hands the socket's data_ready callback to the QP (siw_accept()); an
 * FPDU arriving in between stays unread in the socket until more data
 * comes, and both sides wait forever (seen once in 120 connections under
 * TCG, the server's Recv-Q holding the client's INFO).  The client can
 * only make that window unlikely: --first-send-delay.
 */
static void exchange_info(void)
{
	struct ctrl *m;

	if (opt.server)
		info_check(ctrl_wait(CT_INFO, 0));
	else if (opt.first_delay_ms)
		usleep(opt.first_delay_ms * 1000u);
	m = ctrl_out(CT_INFO, 0);

	m->depth = opt.depth;
	m->seed = opt.seed;
	m->iters = opt.iters;
	m->max_rw = opt.max_rw;
	m->max_send = opt.max_send;
	m->mr_len = mr_len;
	m->ops = opt.ops;
	m->flags = plan_flags();
	m->src_addr = (uintptr_t)src;
	m->dst_addr = (uintptr_t)dst;
	m->src_rkey = src_mr->rkey;
	m->dst_rkey = dst_mr->rkey;
	ctrl_send(false);
	if (!opt.server)
		info_check(ctrl_wait(CT_INFO, 0));
}

static void fin_check(const struct ctrl *m)
{
	int op;

	if (m->bytes != st.bytes)
		fail("peer counted %" PRIu64 " bytes, we %" PRIu64, m->bytes,
		     st.bytes);
	for (op = 0; op < OP_NUM; op++)
		if (m->nops[op] != st.nops[op])
			fail("peer counted %" PRIu64 " %s, we %" PRIu64,
			     m->nops[op], op_name[op], st.nops[op]);
}

/*
 * The end: FIN client -> server, FIN server -> client (both with the
 * totals, both completions checked), BYE client -> server, then the
 * server disconnects.  Nobody closes while the peer may still have a send
 * completion to come: Linux siw completes a Send whose last segment went
 * out with LOC_QP_OP_ERR if the peer closes before its TX thread looked
 * at the socket again (siw_qp_sq_proc_tx() checks tx_suspend before
 * DDP_FLAG_LAST).  Only the BYE's completion may be either.
 */
static void finish(void)
{
	struct rdma_cm_event *ev;
	struct ctrl *m;
	struct ibv_wc wc;

	cur_op = "FIN";
	if (opt.server) {
		fin_check(ctrl_wait(CT_FIN, opt.iters));
		ctrl_recv_post(CT_BYE, opt.iters);
	}
	m = ctrl_out(CT_FIN, opt.iters);
	m->bytes = st.bytes;
	memcpy(m->nops, st.nops, sizeof(m->nops));
	ctrl_send(false);
	if (opt.server) {
		ctrl_wait(CT_BYE, opt.iters);
		if (rdma_disconnect(cm_id))
			fail_errno("rdma_disconnect");
	} else {
		fin_check(ctrl_wait(CT_FIN, opt.iters));
		ctrl_out(CT_BYE, opt.iters);
		ctrl_send(true);
	}
	ev = get_event(RDMA_CM_EVENT_DISCONNECTED, "DISCONNECTED",
		       opt.timeout);
	rdma_ack_cm_event(ev);
	connected = false;
	if (!opt.server) {
		cq_wait(scq, s_chan, &wc, "BYE");
		if (wc.wr_id != sq[sq_head % RQ_RING].id ||
		    (wc.status != IBV_WC_SUCCESS &&
		     wc.status != IBV_WC_LOC_QP_OP_ERR &&
		     wc.status != IBV_WC_WR_FLUSH_ERR))
			wc_fail("send", &wc, "BYE", sq[sq_head % RQ_RING].id, NULL);
		sq_head++;
		rdma_disconnect(cm_id);	/* completes the close */
	}

	rdma_destroy_qp(cm_id);
	if (ibv_dereg_mr(src_mr) || ibv_dereg_mr(dst_mr) ||
	    ibv_dereg_mr(ctl_mr))
		fail("ibv_dereg_mr failed");
	if (ibv_destroy_cq(scq) || ibv_destroy_cq(rcq))
		fail("ibv_destroy_cq failed");
	if (ibv_destroy_comp_channel(s_chan) ||
	    ibv_destroy_comp_channel(r_chan))
		fail("ibv_destroy_comp_channel failed");
	if (ibv_dealloc_pd(pd))
		fail("ibv_dealloc_pd failed");
	if (rdma_destroy_id(cm_id))
		fail_errno("rdma_destroy_id");
	if (listen_id && rdma_destroy_id(listen_id))
		fail_errno("rdma_destroy_id (listener)");
	rdma_destroy_event_channel(cm_chan);
	free(src);
	free(dst);
	free(ctl);
}

/* ------------------------------------------------------------------ */
/* Main                                                               */

static void usage(int rc)
{
	printf("usage: siw2_integrity -s ADDR | -c ADDR [options]\n"
	       "  -s ADDR        server: listen on ADDR\n"
	       "  -c ADDR        client: connect to ADDR\n"
	       "  -p PORT        port (default %s)\n"
	       "  -S SEED        seed of the plan and the data (default 1; must match)\n"
	       "  -n N           iterations (default %d)\n"
	       "  -m BYTES       largest RDMA Write/Read operation (default 16M)\n"
	       "  -M BYTES       largest Send operation (default 1M; up to max_msg_sz)\n"
	       "  -d DEPTH       at most DEPTH data WRs in flight (1..%d, default %d)\n"
	       "  -O OPS         operations to use, letters w r s (default wrs)\n"
	       "  -t SECS        timeout of every wait (default %d)\n"
	       "  -v             one line per iteration\n"
	       "  --check-se     a solicited Send must raise a CQ event (armed for solicited only)\n"
	       "  --no-zero-read  no zero-length RDMA Read WRs (Linux siw mishandles them)\n"
	       "  --no-small-cross  no message of <= 64 bytes from one SGE or Read source\n"
	       "                 crossing a page boundary (Linux siw's siw_try_1seg() bug)\n"
	       "  --selftest-flip  flip one received byte before checking it: must FAIL\n"
	       "  --first-send-delay MS  client: wait MS ms after ESTABLISHED before the\n"
	       "                 first Send (Linux siw's accept race, see exchange_info())\n"
	       "BYTES may end in K, M or G.  Both sides need the same -S -n -m -M -d -O\n"
	       "and --no-zero-read --no-small-cross.\n",
	       DEFAULT_PORT, DEFAULT_ITERS, MAX_DEPTH, DEFAULT_DEPTH,
	       DEFAULT_TMO);
	exit(rc);
}

static uint64_t parse_u64(const char *s, const char *what, bool suffix)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (suffix && *end) {
		switch (*end++) {
		case 'k':
		case 'K':
			v <<= 10;
			break;
		case 'm':
		case 'M':
			v <<= 20;
			break;
		case 'g':
		case 'G':
			v <<= 30;
			break;
		default:
			end--;
		}
	}
	if (errno || end == s || *end || *s == '-') {
		fprintf(stderr, "siw2_integrity: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void parse_args(int argc, char **argv)
{
	enum { OPT_CHECK_SE = 256, OPT_FLIP, OPT_NO_ZERO_READ,
	       OPT_NO_SMALL_CROSS, OPT_FIRST_DELAY };
	static const struct option lo[] = {
		{ "check-se", no_argument, NULL, OPT_CHECK_SE },
		{ "no-zero-read", no_argument, NULL, OPT_NO_ZERO_READ },
		{ "no-small-cross", no_argument, NULL, OPT_NO_SMALL_CROSS },
		{ "selftest-flip", no_argument, NULL, OPT_FLIP },
		{ "first-send-delay", required_argument, NULL, OPT_FIRST_DELAY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *p;
	int c;

	while ((c = getopt_long(argc, argv, "s:c:p:S:n:m:M:d:O:t:vh", lo,
				NULL)) != -1) {
		switch (c) {
		case 's':
		case 'c':
			if (opt.addr)
				usage(2);
			opt.server = c == 's';
			opt.addr = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 'S':
			opt.seed = parse_u64(optarg, "seed", false);
			break;
		case 'n':
			opt.iters = parse_u64(optarg, "count", false);
			break;
		case 'm':
			opt.max_rw = parse_u64(optarg, "size", true);
			break;
		case 'M':
			opt.max_send = parse_u64(optarg, "size", true);
			break;
		case 'd':
			opt.depth = (uint32_t)parse_u64(optarg, "depth", false);
			break;
		case 'O':
			opt.ops = 0;
			for (p = optarg; *p; p++) {
				if (*p == 'w')
					opt.ops |= 1u << OP_WRITE;
				else if (*p == 'r')
					opt.ops |= 1u << OP_READ;
				else if (*p == 's')
					opt.ops |= 1u << OP_SEND;
				else
					usage(2);
			}
			break;
		case 't':
			opt.timeout = (int)parse_u64(optarg, "timeout", false);
			break;
		case 'v':
			opt.verbose = true;
			break;
		case OPT_CHECK_SE:
			opt.check_se = true;
			break;
		case OPT_FLIP:
			opt.selftest_flip = true;
			break;
		case OPT_NO_ZERO_READ:
			opt.no_zero_read = true;
			break;
		case OPT_NO_SMALL_CROSS:
			opt.no_small_cross = true;
			break;
		case OPT_FIRST_DELAY:
			opt.first_delay_ms = (unsigned int)parse_u64(optarg, "delay",
								     false);
			if (opt.first_delay_ms > 10000)
				usage(2);
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (!opt.addr || optind != argc || !opt.ops || opt.depth < 1 ||
	    opt.depth > MAX_DEPTH || opt.timeout < 1 ||
	    opt.iters > UINT32_MAX || opt.max_rw > MAX_BYTES ||
	    opt.max_send > MAX_BYTES)
		usage(2);
}

int main(int argc, char **argv)
{
	struct plan *p;
	uint64_t i, every;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_args(argc, argv);
	side = opt.server ? "server" : "client";
	flip_pending = opt.selftest_flip;
	memset(sentinel_buf, SENTINEL, sizeof(sentinel_buf));
	mr_len = (opt.max_rw > opt.max_send ? opt.max_rw : opt.max_send) +
		 MR_SLACK;
	mr_len = (mr_len + 4095) & ~4095ull;
	t_start = now_s();

	cm_chan = rdma_create_event_channel();
	if (!cm_chan)
		fail_errno("rdma_create_event_channel");
	if (fcntl(cm_chan->fd, F_SETFL, O_NONBLOCK))
		fail_errno("fcntl (CM channel)");
	if (opt.server)
		connect_server();
	else
		connect_client();
	exchange_info();
	printf("CONNECTED side=%s seed=%" PRIu64 " iterations=%" PRIu64
	       " max_rw=%" PRIu64 " max_send=%" PRIu64 " depth=%u (%.2f s)\n",
	       side, opt.seed, opt.iters, opt.max_rw, opt.max_send,
	       opt.depth, now_s() - t_start);

	p = malloc(sizeof(*p));
	if (!p)
		fail("out of memory");
	every = opt.iters >= 5 ? opt.iters / 5 : 1;
	for (i = 0; i < opt.iters; i++) {
		cur_iter = i;
		plan_shared(p, i);
		plan_local(p);
		cur_op = op_name[p->op];
		cur_plan = p;
		vlog("iter %" PRIu64 " %s %s size %" PRIu64 " nwr %d roff %" PRIu64,
		     i, op_name[p->op], is_initiator(p) ? "initiator" : "target",
		     p->size, p->nwr, p->roff);
		if (is_initiator(p))
			run_initiator(p);
		else
			run_target(p);
		st.bytes += p->size;
		st.nops[p->op]++;
		cur_plan = NULL;
		cur_op = "scan";
		if ((i + 1) % FULL_SCAN_EVERY == 0)
			check_sentinel("full sink MR scan", "dst", dst, 0,
				       mr_len);
		if (!opt.verbose && (i + 1) % every == 0)
			printf("progress side=%s iter=%" PRIu64 "/%" PRIu64
			       " bytes=%" PRIu64 " (%.1f s)\n", side, i + 1,
			       opt.iters, st.bytes, now_s() - t_start);
	}
	cur_iter = opt.iters;
	cur_op = "scan";
	check_sentinel("final sink MR scan", "dst", dst, 0, mr_len);
	finish();
	if (flip_pending)
		printf("SELFTEST side=%s: no non-empty sink to corrupt on this side\n",
		       side);
	printf("INTEGRITY OK iterations=%" PRIu64 " bytes=%" PRIu64
	       " writes=%" PRIu64 " reads=%" PRIu64 " sends=%" PRIu64
	       " side=%s seed=%" PRIu64 " verified=%" PRIu64 " wrs=%" PRIu64
	       " sges=%" PRIu64 " inline=%" PRIu64 " zero_len_wrs=%" PRIu64
	       " early_done=%" PRIu64 " se_ops=%" PRIu64 " se_events=%" PRIu64
	       " time=%.2fs\n", opt.iters, st.bytes, st.nops[OP_WRITE],
	       st.nops[OP_READ], st.nops[OP_SEND], side, opt.seed,
	       st.verified, st.wrs, st.sges, st.inl, st.zero, st.early,
	       st.se, st.se_events, now_s() - t_start);
	free(p);
	return 0;
}
