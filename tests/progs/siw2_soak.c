// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * siw2_soak: long mixed traffic over many rdma_cm connections, every
 * payload checked end to end, connections lost to link flaps rebuilt.
 *
 *   siw2_soak -s -a ADDR [-a ADDR ...] [-p PORT] [-T SECS] [-X]     server
 *   siw2_soak -a ADDR [-a ADDR ...] [-p PORT] -D SECS [-q QPS] [-d DEPTH]
 *             [-S SEED]                                             client
 *
 * The client keeps QPS connections ("slots"; slot k goes to the k-th
 * address modulo their number), each with its own PD, CQ, QP and MRs,
 * and on each a seeded random mix of transactions, at most DEPTH work
 * requests in flight:
 *   send       Send, Send with Immediate Data (verbs, 4 octets) or with
 *              8 octets (siw2dv_wr_send_imm64)
 *   write-imm  Write with Immediate Data (verbs or siw2dv 8 octets) into
 *              one of the server's message regions
 *   write      Write into a region of the server's window, then a Read of
 *              it back
 *   read       Read of the server's pattern area into 1 SGE, or into 3
 *              (a Read V2; on a connection without it the post fails with
 *              EINVAL and the 1-SGE form is used instead)
 *   atomic     FetchAdd, CmpSwap (matching and not), Atomic Write
 *              (fenced), masked FetchAdd and CmpSwap (siw2dv) on the
 *              slot's counter; each returned original value is checked
 *              against the value the posting order implies
 *   commit     Write, a global RDMA Commit of it (siw2dv_wr_commit_ex,
 *              or with a log update whose word a fenced Read then
 *              returns), Read back
 * Every message and region starts with struct soak_hdr and carries a
 * checksum of its payload. The server checks each message it receives
 * (order, length, immediate data, checksum) and answers it with an
 * acknowledgement Send of random length, itself checksummed, which the
 * client checks; the server also Reads the client's pattern area now and
 * then. Posting API: ibv_post_send() or the ibv_wr_*() builders, chosen
 * at random.
 *
 * A completion in error, or a CM event other than the expected ones,
 * ends the connection: the client disconnects, waits until every work
 * request it posted has completed (flushed), destroys everything and
 * connects again ("SOAK LOST slot=.. gen=.. t=.. reason=.."; t is
 * CLOCK_MONOTONIC seconds). Messages not yet acknowledged then are in
 * doubt ("lost"), never counted verified. The server drops an older
 * connection of a slot when the slot connects again.
 *
 * After SECS the client stops posting, waits for everything in flight and
 * every acknowledgement, disconnects, and prints
 *   SOAK OPS op=posted/ok/err ...
 *   SOAK SUMMARY side=client ops=.. ok=.. err=.. verified_bytes=..
 *       msgs_acked=.. in_doubt=.. reconnects=.. losses=.. corrupt=..
 *       unaccounted=.. bad=..
 *   SOAK STATUS <completion status>=count ...
 * The server runs until SIGTERM/SIGINT (or -T SECS), then closes what is
 * left and prints the same. Exit 0 only if nothing was corrupt
 * ("SOAK CORRUPT" lines, the first 50), every posted work request
 * completed (ok or in error: "unaccounted" counts the difference), and no
 * error other than a lost connection occurred ("bad" counts those, each
 * printed as "SOAK BAD").
 *
 * Server option -X (proof only): at each connection's 10th message it
 * flips a bit of that message and clears its pattern area, and at every
 * 10th message it changes the counter, as a broken data path would; both
 * sides must then report corruption and fail.
 *
 * Needs the siw2 provider this program links, with rings (the siw2dv
 * builders): RDMAV_DRIVERS=<tree>/userspace-provider/build/libsiw2.
 */
#include <endian.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "cm_common.h"
#include "siw2dv.h"

#define SOAK_MAGIC	0x4b414f53	/* "SOAK" */
#define HELLO_MAGIC	0x4f4c4548	/* "HELO" */
#define MAX_ADDRS	4
#define MAX_SLOTS	64

/* Client buffers */
#define NOPS		32		/* work requests in flight, at most */
#define OP_BUF		(128U * 1024)
#define NARECV		16		/* receives for acknowledgements */
#define ACK_MAX		(8U * 1024)
#define PAT_LEN		(1U << 20)	/* pattern areas, both sides */

/* Server window layout */
#define W_ATOM		0		/* counter, log word */
#define W_PAT		(64U * 1024)
#define NIMMR		16		/* Write with Immediate regions */
#define W_IMMR		(W_PAT + PAT_LEN)
#define REG_LEN		(128U * 1024)
#define NWREG		8		/* Write + Read back regions */
#define W_WREG		(W_IMMR + NIMMR * REG_LEN)
#define WIN_LEN		(W_WREG + NWREG * REG_LEN)
#define NSRECV		32
#define MSG_MAX		(64U * 1024)
#define NSACK		32
#define NSREAD		2
#define SREAD_MAX	(64U * 1024)

#define MSG_WIN		8		/* unacknowledged messages per slot */
#define ORD_MAX		8		/* Reads, atomics, Commits in flight */
#define SQ_DEPTH	64
#define DRAIN_SECS	20.0
#define RETRY_SECS	0.5

enum kind { K_SEND = 1, K_SENDIMM, K_WRIMM, K_WRITE, K_ACK };

/* At the start of every message, written region and acknowledgement. */
struct soak_hdr {
	uint32_t magic;
	uint16_t slot;
	uint16_t kind;
	uint32_t gen;
	uint32_t seq;		/* message number on this connection, from 1 */
	uint32_t len;		/* octets including this header */
	uint32_t ok;		/* acknowledgement: 1 if the message was right */
	uint64_t seed;		/* of the payload */
	uint64_t imm;		/* the Immediate Data sent, 8 octets */
	uint64_t sum;		/* checksum of the octets after the header */
} __attribute__((packed));

/* Connect private data: the client's pattern area, for the server's Reads. */
struct hello_c {
	uint32_t magic;
	uint32_t slot;
	uint32_t gen;
	uint32_t pat_rkey;
	uint64_t pat_addr;
	uint64_t seed;
} __attribute__((packed));

/* Accept private data: the server's window. */
struct hello_s {
	uint32_t magic;
	uint32_t rkey;
	uint64_t addr;
	uint64_t counter;	/* the counter's first value */
	uint64_t logword;	/* the log word's first value */
} __attribute__((packed));

static struct {
	bool server;
	const char *addr[MAX_ADDRS];
	int naddr;
	const char *port;
	double secs;
	int qps;
	int depth;
	uint64_t seed;
	bool proof;
} opt = { .port = "7720", .qps = 8, .depth = 12, .seed = 1 };

static const char *side = "?";
static struct rdma_event_channel *chan;
static volatile sig_atomic_t stop_sig;
static double t_start;

static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("SOAK FAIL side=%s ", side);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

/* ---- accounting shared by both sides ---- */

enum opk {
	O_SEND, O_SEND_IMM, O_SEND_IMM64, O_WRITE_IMM, O_WRITE_IMM64,
	O_WRITE, O_READBACK, O_READ, O_READ_V2, O_FADD, O_CSWAP, O_AWRITE,
	O_MFADD, O_MCSWAP, O_COMMIT, O_COMMIT_LOG, O_LOGREAD,
	O_RECV, O_ACK, O_SREAD, O_NKINDS
};

static const char *const opname[O_NKINDS] = {
	"send", "send_imm", "send_imm64", "write_imm", "write_imm64",
	"write", "read_back", "read", "read_v2", "fetch_add", "cmp_swap",
	"atomic_write", "masked_fetch_add", "masked_cmp_swap", "commit",
	"commit_log", "log_read", "recv", "ack_send", "server_read",
};

static struct {
	uint64_t posted[O_NKINDS], ok[O_NKINDS], err[O_NKINDS];
	uint64_t verified_bytes, msgs_acked, in_doubt, reconnects, losses;
	uint64_t corrupt, bad, conns, superseded, read_v1_fallback, forced_err;
	uint64_t status_hist[32];
} st;

static void corrupt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void corrupt(const char *fmt, ...)
{
	va_list ap;

	/* The first ones say enough. */
	if (++st.corrupt > 50)
		return;
	printf("SOAK CORRUPT side=%s t=%.3f ", side, now_s());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Something that no link flap explains: fails the run at the end. */
static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
	va_list ap;

	st.bad++;
	printf("SOAK BAD side=%s t=%.3f ", side, now_s());
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- data: generator, checksum, pattern ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static uint32_t rnd_range(uint64_t *s, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(rnd(s) % (hi - lo + 1));
}

static void fill(uint8_t *p, uint32_t len, uint64_t seed)
{
	uint64_t s = mix64(seed) | 1, w;
	uint32_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		w = rnd(&s);
		memcpy(p + i, &w, 8);
	}
	if (i < len) {
		w = rnd(&s);
		memcpy(p + i, &w, len - i);
	}
}

static uint64_t checksum(const uint8_t *p, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ len, w;
	uint32_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

static uint64_t pat_word(uint64_t idx)
{
	return mix64(idx ^ 0x70a77e3bULL);
}

static void pat_fill(uint8_t *p, uint32_t len)
{
	uint64_t w;
	uint32_t i;

	for (i = 0; i < len; i += 8) {
		w = pat_word(i / 8);
		memcpy(p + i, &w, 8);
	}
}

/* True if @len octets at @p are the pattern area's from offset @off. */
static bool pat_ok(const uint8_t *p, uint32_t off, uint32_t len)
{
	uint64_t w = 0, idx = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < len; i++) {
		if ((off + i) / 8 != idx) {
			idx = (off + i) / 8;
			w = pat_word(idx);
		}
		if (p[i] != ((uint8_t *)&w)[(off + i) % 8])
			return false;
	}
	return true;
}

/* Build a message or region: header then @len - header octets. */
static void mk_msg(uint8_t *p, uint32_t len, uint16_t slot, uint16_t kind,
		   uint32_t gen, uint32_t seq, uint64_t seed, uint64_t imm,
		   uint32_t ok)
{
	struct soak_hdr h = {
		.magic = SOAK_MAGIC, .slot = slot, .kind = kind, .gen = gen,
		.seq = seq, .len = len, .ok = ok, .seed = seed, .imm = imm,
	};

	fill(p + sizeof(h), len - sizeof(h), seed);
	h.sum = checksum(p + sizeof(h), len - sizeof(h));
	memcpy(p, &h, sizeof(h));
}

/*
 * Check a message or region against what it must be; returns NULL or what
 * is wrong. @len 0: take the header's length (at most @max).
 */
static const char *chk_msg(const uint8_t *p, uint32_t len, uint32_t max,
			   uint16_t slot, uint16_t kind, uint32_t gen,
			   uint32_t seq, struct soak_hdr *out)
{
	struct soak_hdr h;

	if ((len && len < sizeof(h)) || max < sizeof(h))
		return "shorter than the header";
	memcpy(&h, p, sizeof(h));
	if (out)
		*out = h;
	if (h.magic != SOAK_MAGIC)
		return "bad magic";
	if (h.slot != slot || h.kind != kind || h.gen != gen)
		return "header names another slot, kind or connection";
	if (h.seq != seq)
		return "out of order (sequence number)";
	if (len ? h.len != len : (h.len < sizeof(h) || h.len > max))
		return "length differs";
	if (checksum(p + sizeof(h), h.len - sizeof(h)) != h.sum)
		return "checksum differs";
	return NULL;
}

/* ---- verbs objects common to both sides ---- */

struct vconn {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	int sq_out;		/* send work requests posted, not completed */
	int rq_out;		/* receives posted, not completed */
};

static void v_setup(struct vconn *v, int nrecv)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 256,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = nrecv,
			 .max_send_sge = 3, .max_recv_sge = 1,
			 .max_inline_data = 64 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
				  IBV_QP_EX_WITH_ATOMIC_WRITE,
	};

	if (!siw2dv_is_siw2_context(v->id->verbs))
		fail("not a siw2 device of the linked provider (RDMAV_DRIVERS?)");
	v->pd = ibv_alloc_pd(v->id->verbs);
	if (!v->pd)
		fail_errno("ibv_alloc_pd");
	v->cq = ibv_create_cq_ex(v->id->verbs, &ca);
	if (!v->cq)
		fail_errno("ibv_create_cq_ex");
	qa.pd = v->pd;
	qa.send_cq = ibv_cq_ex_to_cq(v->cq);
	qa.recv_cq = qa.send_cq;
	if (rdma_create_qp_ex(v->id, &qa))
		fail_errno("rdma_create_qp_ex");
	v->qp = v->id->qp;
	v->qpx = ibv_qp_to_qp_ex(v->qp);
	if (!v->qpx)
		fail("ibv_qp_to_qp_ex() is NULL");
	v->sq_out = 0;
	v->rq_out = 0;
}

static struct ibv_mr *reg(struct vconn *v, void *p, size_t len, int acc)
{
	struct ibv_mr *mr = ibv_reg_mr(v->pd, p, len, acc);

	if (!mr)
		fail_errno("ibv_reg_mr");
	return mr;
}

static void *xalloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		fail("out of memory");
	memset(p, 0, len);
	return p;
}

static void dereg(struct ibv_mr **mr)
{
	if (*mr && ibv_dereg_mr(*mr))
		bad("ibv_dereg_mr: %s", strerror(errno));
	*mr = NULL;
}

/* Destroy QP, CQ, PD and the id (MRs are the caller's, before this). */
static void v_destroy(struct vconn *v)
{
	if (v->qp)
		rdma_destroy_qp(v->id);
	v->qp = NULL;
	v->qpx = NULL;
	if (v->cq && ibv_destroy_cq(ibv_cq_ex_to_cq(v->cq)))
		bad("ibv_destroy_cq: %s", strerror(errno));
	v->cq = NULL;
	if (v->pd && ibv_dealloc_pd(v->pd))
		bad("ibv_dealloc_pd: %s", strerror(errno));
	v->pd = NULL;
	if (v->id && rdma_destroy_id(v->id))
		bad("rdma_destroy_id: %s", strerror(errno));
	v->id = NULL;
}

static void post_recv(struct vconn *v, uint64_t wr_id, void *addr,
		      uint32_t len, uint32_t lkey)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = len,
			       .lkey = lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad_wr;

	if (ibv_post_recv(v->qp, &wr, &bad_wr))
		return;		/* the QP failed: nothing posted */
	v->rq_out++;
	st.posted[O_RECV]++;
}

/* True if the QP is in the error state (a lost connection). */
static bool qp_failed(struct vconn *v)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	if (ibv_query_qp(v->qp, &a, IBV_QP_STATE, &ia))
		return true;
	return a.qp_state == IBV_QPS_ERR;
}

/*
 * Work requests still outstanding @secs after the connection ended: move
 * the QP to the error state, which flushes them (counted: siw2 flushes
 * on its own when the connection closes).
 */
static void v_flush(struct vconn *v, double since, double secs)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };

	if (!v->qp || (!v->sq_out && !v->rq_out) || now_s() - since < secs ||
	    qp_failed(v))
		return;
	if (ibv_modify_qp(v->qp, &a, IBV_QP_STATE))
		bad("ibv_modify_qp to ERR: %s", strerror(errno));
	st.forced_err++;
}

/* One polled completion. */
struct wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t len;
	unsigned int flags;
	uint32_t imm32;
	uint64_t imm64;
	int imm_rc;
	uint32_t vendor_err;
};

/* Up to @max completions of @v into @w; returns how many. */
static int poll_cq(struct vconn *v, struct wc *w, int max)
{
	struct ibv_poll_cq_attr pa = {};
	int n = 0, rc;

	rc = ibv_start_poll(v->cq, &pa);
	if (rc == ENOENT)
		return 0;
	if (rc)
		fail("ibv_start_poll: %s", strerror(rc));
	do {
		struct wc *c = &w[n++];

		c->wr_id = v->cq->wr_id;
		c->status = v->cq->status;
		c->opcode = ibv_wc_read_opcode(v->cq);
		c->vendor_err = ibv_wc_read_vendor_err(v->cq);
		c->len = 0;
		c->flags = 0;
		c->imm32 = 0;
		c->imm64 = 0;
		c->imm_rc = ENOENT;
		if (c->status == IBV_WC_SUCCESS && (c->opcode & IBV_WC_RECV)) {
			c->len = ibv_wc_read_byte_len(v->cq);
			c->flags = ibv_wc_read_wc_flags(v->cq);
			if (c->flags & IBV_WC_WITH_IMM)
				c->imm32 = be32toh(ibv_wc_read_imm_data(v->cq));
			c->imm_rc = siw2dv_cq_read_imm(v->cq, &c->imm64, NULL);
		}
		st.status_hist[c->status < 32 ? c->status : 31]++;
	} while (n < max && ibv_next_poll(v->cq) == 0);
	ibv_end_poll(v->cq);
	return n;
}

/* ================================ server ================================ */

struct sconn {
	struct sconn *next;
	struct vconn v;
	int slot;
	uint32_t gen;
	bool established, draining, disconnected;
	double drain_end, t_disc;
	struct hello_c peer;
	uint8_t *win, *rbuf, *abuf, *sbuf;
	struct ibv_mr *win_mr, *rbuf_mr, *abuf_mr, *sbuf_mr;
	uint32_t seq;		/* messages received */
	bool ack_busy[NSACK];
	struct { bool busy; uint32_t off, len; } rd[NSREAD];
	uint64_t rng;
};

static struct sconn *sconns;

static void s_post_ack(struct sconn *c, uint32_t seq, uint32_t ok)
{
	uint32_t i = seq % NSACK, len;
	uint8_t *p = c->abuf + (size_t)i * ACK_MAX;
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .num_sge = 1, .sg_list = &sge,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad_wr;
	int rc;

	if (c->ack_busy[i]) {
		bad("slot %d: acknowledgement buffer %u still in use", c->slot,
		    i);
		return;
	}
	len = rnd_range(&c->rng, sizeof(struct soak_hdr), ACK_MAX);
	mk_msg(p, len, c->slot, K_ACK, c->gen, seq, rnd(&c->rng), 0, ok);
	sge = (struct ibv_sge){ .addr = (uintptr_t)p, .length = len,
				.lkey = c->abuf_mr->lkey };
	wr.wr_id = 1000 + i;
	if (rnd(&c->rng) & 1) {
		rc = ibv_post_send(c->v.qp, &wr, &bad_wr);
	} else {
		ibv_wr_start(c->v.qpx);
		c->v.qpx->wr_id = wr.wr_id;
		c->v.qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(c->v.qpx);
		ibv_wr_set_sge(c->v.qpx, sge.lkey, sge.addr, sge.length);
		rc = ibv_wr_complete(c->v.qpx);
	}
	if (rc) {
		if (!qp_failed(&c->v))
			bad("slot %d: acknowledgement post: %s", c->slot,
			    strerror(rc));
		return;
	}
	c->ack_busy[i] = true;
	c->v.sq_out++;
	st.posted[O_ACK]++;
}

static void s_post_read(struct sconn *c)
{
	struct ibv_sge sge;
	struct ibv_send_wr wr = { .num_sge = 1, .sg_list = &sge,
				  .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad_wr;
	int i;

	for (i = 0; i < NSREAD && c->rd[i].busy; i++)
		;
	if (i == NSREAD)
		return;
	c->rd[i].len = rnd_range(&c->rng, 1, SREAD_MAX);
	c->rd[i].off = rnd_range(&c->rng, 0, PAT_LEN - c->rd[i].len);
	sge = (struct ibv_sge){ .addr = (uintptr_t)c->sbuf + i * SREAD_MAX,
				.length = c->rd[i].len,
				.lkey = c->sbuf_mr->lkey };
	memset(c->sbuf + i * SREAD_MAX, 0, c->rd[i].len);
	wr.wr_id = 2000 + i;
	wr.wr.rdma.remote_addr = c->peer.pat_addr + c->rd[i].off;
	wr.wr.rdma.rkey = c->peer.pat_rkey;
	if (ibv_post_send(c->v.qp, &wr, &bad_wr)) {
		if (!qp_failed(&c->v))
			bad("slot %d: server Read post failed", c->slot);
		return;
	}
	c->rd[i].busy = true;
	c->v.sq_out++;
	st.posted[O_SREAD]++;
}

static void s_drain(struct sconn *c, const char *why)
{
	if (c->draining)
		return;
	c->draining = true;
	c->drain_end = now_s() + DRAIN_SECS;
	printf("SOAK SLOST slot=%d gen=%u t=%.3f reason=%s\n", c->slot, c->gen,
	       now_s(), why);
	rdma_disconnect(c->v.id);
}

/* A message in receive buffer @i, completion @w. */
static void s_message(struct sconn *c, const struct wc *w)
{
	uint32_t i = (uint32_t)w->wr_id, seq = ++c->seq;
	uint8_t *p = c->rbuf + (size_t)i * MSG_MAX;
	const char *err = NULL;
	struct soak_hdr h = {};
	uint32_t ok = 1;
	uint64_t imm;

	if (opt.proof && seq % 10 == 0) {
		/*
		 * Proof only: the counter changes at every 10th message, by a
		 * different amount each time. Once would not do: an Atomic
		 * Write the client makes next sets it to a value the client
		 * knows, and one in six atomics is one.
		 */
		uint64_t x;

		memcpy(&x, c->win + W_ATOM, 8);
		x ^= seq * 0x9e3779b97f4a7c15ull;
		memcpy(c->win + W_ATOM, &x, 8);
	}
	if (opt.proof && seq == 10) {
		/*
		 * Proof only: damage this message and the pattern area as a
		 * broken data path would; the checks must see it.
		 */
		uint8_t *m = w->opcode == IBV_WC_RECV ? p :
			     c->win + W_IMMR + (seq % NIMMR) * REG_LEN;
		uint32_t len = w->len;

		if (w->opcode != IBV_WC_RECV)
			memcpy(&len, m + offsetof(struct soak_hdr, len), 4);
		/* The last payload octet, or the header's gen field. */
		m[len > sizeof(h) && len <= REG_LEN ? len - 1 : 8] ^= 0x20;
		memset(c->win + W_PAT, 0, PAT_LEN);
	}
	if (w->opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
		/* The immediate names the message; its region holds it. */
		imm = w->imm_rc ? (uint64_t)w->imm32 << 32 : w->imm64;
		if (w->imm_rc || imm >> 32 != w->imm32)
			err = "immediate: verbs and siw2dv views differ";
		else if (imm >> 32 != seq)
			err = "immediate names another message";
		else if (w->len)
			err = "Write with Immediate reports a length";
		else
			err = chk_msg(c->win + W_IMMR + (seq % NIMMR) * REG_LEN,
				      0, REG_LEN, c->slot, K_WRIMM, c->gen,
				      seq, &h);
		if (!err && h.imm != imm)
			err = "immediate differs from the one recorded";
	} else if (w->opcode == IBV_WC_RECV) {
		bool wimm = w->flags & IBV_WC_WITH_IMM;

		err = chk_msg(p, w->len, MSG_MAX, c->slot,
			      wimm ? K_SENDIMM : K_SEND, c->gen, seq, &h);
		imm = w->imm_rc ? (uint64_t)w->imm32 << 32 : w->imm64;
		if (!err && wimm && (w->imm_rc || imm >> 32 != w->imm32 ||
				     imm != h.imm))
			err = "immediate differs";
		if (!err && !wimm && w->imm_rc != ENOENT)
			err = "immediate data on a plain Send";
	} else {
		err = "unexpected receive opcode";
	}
	if (err) {
		corrupt("slot=%d gen=%u msg=%u opcode=%u len=%u: %s", c->slot,
			c->gen, seq, w->opcode, w->len, err);
		ok = 0;
	} else {
		st.verified_bytes += h.len;
	}
	post_recv(&c->v, i, p, MSG_MAX, c->rbuf_mr->lkey);
	s_post_ack(c, seq, ok);
	if (seq % 8 == 0)
		s_post_read(c);
}

static void s_poll(struct sconn *c)
{
	struct wc w[16];
	int n, k, i;

	n = poll_cq(&c->v, w, 16);
	for (k = 0; k < n; k++) {
		bool recv = w[k].wr_id < NSRECV;
		enum opk o = recv ? O_RECV :
			     w[k].wr_id >= 2000 ? O_SREAD : O_ACK;

		if (recv)
			c->v.rq_out--;
		else
			c->v.sq_out--;
		if (w[k].status != IBV_WC_SUCCESS) {
			st.err[o]++;
			if (o == O_ACK)
				c->ack_busy[w[k].wr_id - 1000] = false;
			if (o == O_SREAD)
				c->rd[w[k].wr_id - 2000].busy = false;
			s_drain(c, ibv_wc_status_str(w[k].status));
			continue;
		}
		st.ok[o]++;
		if (recv) {
			if (!c->draining)
				s_message(c, &w[k]);
		} else if (o == O_ACK) {
			c->ack_busy[w[k].wr_id - 1000] = false;
		} else {
			i = w[k].wr_id - 2000;
			c->rd[i].busy = false;
			if (!pat_ok(c->sbuf + i * SREAD_MAX, c->rd[i].off,
				    c->rd[i].len))
				corrupt("slot=%d gen=%u server Read of %u at %u differs",
					c->slot, c->gen, c->rd[i].len,
					c->rd[i].off);
			else
				st.verified_bytes += c->rd[i].len;
		}
	}
}

static void s_free(struct sconn *c)
{
	struct sconn **pp;

	dereg(&c->win_mr);
	dereg(&c->rbuf_mr);
	dereg(&c->abuf_mr);
	dereg(&c->sbuf_mr);
	v_destroy(&c->v);
	free(c->win);
	free(c->rbuf);
	free(c->abuf);
	free(c->sbuf);
	for (pp = &sconns; *pp != c; pp = &(*pp)->next)
		;
	*pp = c->next;
	free(c);
}

static void s_request(struct rdma_cm_event *ev)
{
	struct hello_s hs = { .magic = HELLO_MAGIC };
	struct rdma_conn_param cp = {
		.responder_resources = ORD_MAX, .initiator_depth = ORD_MAX,
		.private_data = &hs, .private_data_len = sizeof(hs),
	};
	const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
			SIW2DV_ACCESS_FLUSH_GLOBAL;
	struct sconn *c, *o;
	uint32_t i;

	if (ev->param.conn.private_data_len < sizeof(c->peer)) {
		bad("connect request with %u octets of private data",
		    ev->param.conn.private_data_len);
		rdma_reject(ev->id, NULL, 0);
		rdma_destroy_id(ev->id);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		fail("out of memory");
	memcpy(&c->peer, ev->param.conn.private_data, sizeof(c->peer));
	if (c->peer.magic != HELLO_MAGIC || c->peer.slot >= MAX_SLOTS) {
		bad("connect request with a bad hello");
		free(c);
		rdma_reject(ev->id, NULL, 0);
		rdma_destroy_id(ev->id);
		return;
	}
	c->slot = c->peer.slot;
	c->gen = c->peer.gen;
	c->rng = mix64(c->peer.seed ^ 0x5e7e7) | 1;
	/* An older connection of this slot is dead on the client's side. */
	for (o = sconns; o; o = o->next)
		if (o->slot == c->slot && !o->draining) {
			st.superseded++;
			s_drain(o, "superseded");
		}
	c->v.id = ev->id;
	ev->id->context = c;
	c->next = sconns;
	sconns = c;
	v_setup(&c->v, NSRECV);
	c->win = xalloc(WIN_LEN);
	c->rbuf = xalloc((size_t)NSRECV * MSG_MAX);
	c->abuf = xalloc((size_t)NSACK * ACK_MAX);
	c->sbuf = xalloc((size_t)NSREAD * SREAD_MAX);
	pat_fill(c->win + W_PAT, PAT_LEN);
	hs.counter = rnd(&c->rng);
	hs.logword = rnd(&c->rng);
	memcpy(c->win + W_ATOM, &hs.counter, 8);
	memcpy(c->win + W_ATOM + 8, &hs.logword, 8);
	c->win_mr = reg(&c->v, c->win, WIN_LEN, acc);
	c->rbuf_mr = reg(&c->v, c->rbuf, (size_t)NSRECV * MSG_MAX,
			 IBV_ACCESS_LOCAL_WRITE);
	c->abuf_mr = reg(&c->v, c->abuf, (size_t)NSACK * ACK_MAX, 0);
	c->sbuf_mr = reg(&c->v, c->sbuf, (size_t)NSREAD * SREAD_MAX,
			 IBV_ACCESS_LOCAL_WRITE);
	for (i = 0; i < NSRECV; i++)
		post_recv(&c->v, i, c->rbuf + (size_t)i * MSG_MAX, MSG_MAX,
			  c->rbuf_mr->lkey);
	hs.addr = (uintptr_t)c->win;
	hs.rkey = c->win_mr->rkey;
	if (rdma_accept(c->v.id, &cp)) {
		printf("SOAK SLOST slot=%d gen=%u t=%.3f reason=accept-%s\n",
		       c->slot, c->gen, now_s(), strerror(errno));
		c->draining = true;
		c->disconnected = true;
		c->t_disc = now_s();
		c->drain_end = now_s() + DRAIN_SECS;
		return;
	}
	st.conns++;
}

static void s_cm(void)
{
	struct rdma_cm_event *ev;
	struct sconn *c;
	enum rdma_cm_event_type t;

	while (!rdma_get_cm_event(chan, &ev)) {
		t = ev->event;
		if (t == RDMA_CM_EVENT_CONNECT_REQUEST) {
			s_request(ev);
			rdma_ack_cm_event(ev);
			continue;
		}
		c = ev->id->context;
		rdma_ack_cm_event(ev);
		if (!c) {
			bad("%s on a listening id", rdma_event_str(t));
			continue;
		}
		if (t == RDMA_CM_EVENT_ESTABLISHED) {
			c->established = true;
			continue;
		}
		if (t == RDMA_CM_EVENT_DISCONNECTED ||
		    t == RDMA_CM_EVENT_CONNECT_ERROR ||
		    t == RDMA_CM_EVENT_UNREACHABLE ||
		    t == RDMA_CM_EVENT_REJECTED) {
			c->disconnected = true;
			c->t_disc = now_s();
			c->t_disc = now_s();
			s_drain(c, rdma_event_str(t));
			continue;
		}
		bad("slot %d: unexpected CM event %s", c->slot,
		    rdma_event_str(t));
	}
	if (errno != EAGAIN && errno != EINTR)
		fail_errno("rdma_get_cm_event");
}

static void on_signal(int sig)
{
	stop_sig = sig;
}

static void server(void)
{
	struct rdma_cm_id *lid[MAX_ADDRS];
	struct sconn *c, *n;
	double end = opt.secs > 0 ? t_start + opt.secs : 0, stop_end = 0;
	bool idle;
	int i;

	for (i = 0; i < opt.naddr; i++) {
		struct addrinfo *ai = cm_resolve(opt.addr[i], opt.port, true);

		if (rdma_create_id(chan, &lid[i], NULL, RDMA_PS_TCP))
			fail_errno("rdma_create_id");
		if (rdma_bind_addr(lid[i], ai->ai_addr))
			fail_errno("rdma_bind_addr");
		freeaddrinfo(ai);
		/* Every slot may connect at once. */
		if (rdma_listen(lid[i], MAX_SLOTS))
			fail_errno("rdma_listen");
	}
	fcntl(chan->fd, F_SETFL, fcntl(chan->fd, F_GETFL) | O_NONBLOCK);
	printf("SOAK READY\n");
	for (;;) {
		if (!stop_end && (stop_sig || (end && now_s() > end))) {
			stop_end = now_s() + DRAIN_SECS + 5;
			for (c = sconns; c; c = c->next)
				s_drain(c, "server-stop");
		}
		if (stop_end && (!sconns || now_s() > stop_end))
			break;
		s_cm();
		idle = true;
		for (c = sconns; c; c = n) {
			n = c->next;
			s_poll(c);
			if (!c->draining)
				continue;
			idle = false;
			if (c->disconnected)
				v_flush(&c->v, c->t_disc, 2);
			if (c->v.sq_out || c->v.rq_out || !c->disconnected) {
				if (now_s() < c->drain_end)
					continue;
				bad("slot %d gen %u: %d sends and %d receives not completed%s %.0f s after the disconnect",
				    c->slot, c->gen, c->v.sq_out, c->v.rq_out,
				    c->disconnected ? "" : ", no DISCONNECTED",
				    DRAIN_SECS);
			}
			s_free(c);
		}
		if (idle) {
			struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };

			poll(&pfd, 1, 1);
		}
	}
	while (sconns) {
		bad("slot %d gen %u: still open at the end", sconns->slot,
		    sconns->gen);
		s_free(sconns);
	}
	for (i = 0; i < opt.naddr; i++)
		rdma_destroy_id(lid[i]);
}

/* ================================ client ================================ */

enum cstate { C_IDLE, C_RESOLVING, C_CONNECTING, C_RUN, C_QUIESCE,
	      C_CLOSING, C_DRAIN, C_DONE };

struct op {
	bool busy;
	enum opk kind;
	uint32_t seq;		/* message or region's sequence number */
	uint32_t region;	/* Write/Read back region */
	uint32_t off, len;	/* pattern Read */
	uint64_t expect;	/* atomics' original value, log value */
	uint32_t sge_len[3];
	int nsge;
};

struct cconn {
	struct vconn v;
	int slot;
	uint32_t gen;
	enum cstate state;
	double t_next, t_state;
	uint8_t *lbuf, *abuf, *pat;
	struct ibv_mr *lbuf_mr, *abuf_mr, *pat_mr;
	struct hello_s peer;
	struct op ops[NOPS];
	int nops, ord;
	uint32_t seq;		/* messages sent (posted) */
	uint32_t acked;		/* acknowledgements received */
	bool wreg_busy[NWREG];
	bool log_busy;
	bool no_read_v2;
	uint64_t counter;	/* the counter after every posted atomic */
	uint64_t rng;
	bool disconnected;
	bool was_up;		/* an earlier generation was established */
	double t_disc;
	const char *lost_why;
	/* Messages posted, for their acknowledgements. */
	uint32_t msg_len[MSG_WIN * 2];
};

static struct cconn *cc;
static bool stopping;

/* The requester's completion opcode of each kind. */
static const int wc_opcode[O_NKINDS] = {
	[O_SEND] = IBV_WC_SEND, [O_SEND_IMM] = IBV_WC_SEND,
	[O_SEND_IMM64] = IBV_WC_SEND, [O_WRITE_IMM] = IBV_WC_RDMA_WRITE,
	[O_WRITE_IMM64] = IBV_WC_RDMA_WRITE, [O_WRITE] = IBV_WC_RDMA_WRITE,
	[O_READBACK] = IBV_WC_RDMA_READ, [O_READ] = IBV_WC_RDMA_READ,
	[O_READ_V2] = IBV_WC_RDMA_READ, [O_FADD] = IBV_WC_FETCH_ADD,
	[O_CSWAP] = IBV_WC_COMP_SWAP, [O_AWRITE] = IBV_WC_ATOMIC_WRITE,
	[O_MFADD] = IBV_WC_FETCH_ADD, [O_MCSWAP] = IBV_WC_COMP_SWAP,
	[O_COMMIT] = SIW2DV_WC_COMMIT, [O_COMMIT_LOG] = SIW2DV_WC_COMMIT,
	[O_LOGREAD] = IBV_WC_RDMA_READ,
};

static void c_teardown(struct cconn *c)
{
	dereg(&c->lbuf_mr);
	dereg(&c->abuf_mr);
	dereg(&c->pat_mr);
	v_destroy(&c->v);
	free(c->lbuf);
	free(c->abuf);
	free(c->pat);
	c->lbuf = c->abuf = c->pat = NULL;
}

static void c_set(struct cconn *c, enum cstate s)
{
	c->state = s;
	c->t_state = now_s();
}

/* The connection is gone (or going): flush everything, then rebuild. */
static void c_lose(struct cconn *c, const char *why)
{
	if (c->state == C_DRAIN || c->state == C_DONE)
		return;
	if (c->state == C_RUN || c->state == C_QUIESCE ||
	    c->state == C_CLOSING) {
		st.losses++;
		printf("SOAK LOST slot=%d gen=%u t=%.3f reason=%s in_doubt=%u\n",
		       c->slot, c->gen, now_s(), why, c->seq - c->acked);
		st.in_doubt += c->seq - c->acked;
	}
	c->lost_why = why;
	if (c->v.qp)
		rdma_disconnect(c->v.id);
	c_set(c, C_DRAIN);
}

static void c_start(struct cconn *c)
{
	struct addrinfo *ai = cm_resolve(opt.addr[c->slot % opt.naddr],
					 opt.port, false);

	c->gen++;
	c->rng = mix64(opt.seed * 1000003 + c->slot * 7919 + c->gen) | 1;
	c->disconnected = false;
	c->seq = c->acked = 0;
	c->nops = c->ord = 0;
	c->log_busy = c->no_read_v2 = false;
	memset(c->ops, 0, sizeof(c->ops));
	memset(c->wreg_busy, 0, sizeof(c->wreg_busy));
	if (rdma_create_id(chan, &c->v.id, c, RDMA_PS_TCP))
		fail_errno("rdma_create_id");
	c_set(c, C_RESOLVING);
	if (rdma_resolve_addr(c->v.id, NULL, ai->ai_addr, 2000)) {
		c_lose(c, "resolve_addr");
		c->disconnected = true;
		c->t_disc = now_s();
	}
	freeaddrinfo(ai);
}

static void c_connect(struct cconn *c)
{
	struct hello_c hc = { .magic = HELLO_MAGIC, .slot = c->slot,
			      .gen = c->gen, .seed = rnd(&c->rng) };
	struct rdma_conn_param cp = {
		.responder_resources = ORD_MAX, .initiator_depth = ORD_MAX,
		.private_data = &hc, .private_data_len = sizeof(hc),
	};
	uint32_t i;

	v_setup(&c->v, NARECV);
	c->lbuf = xalloc((size_t)NOPS * OP_BUF);
	c->abuf = xalloc((size_t)NARECV * ACK_MAX);
	c->pat = xalloc(PAT_LEN);
	pat_fill(c->pat, PAT_LEN);
	c->lbuf_mr = reg(&c->v, c->lbuf, (size_t)NOPS * OP_BUF,
			 IBV_ACCESS_LOCAL_WRITE);
	c->abuf_mr = reg(&c->v, c->abuf, (size_t)NARECV * ACK_MAX,
			 IBV_ACCESS_LOCAL_WRITE);
	c->pat_mr = reg(&c->v, c->pat, PAT_LEN, IBV_ACCESS_REMOTE_READ);
	for (i = 0; i < NARECV; i++)
		post_recv(&c->v, 1000 + i, c->abuf + (size_t)i * ACK_MAX,
			  ACK_MAX, c->abuf_mr->lkey);
	hc.pat_addr = (uintptr_t)c->pat;
	hc.pat_rkey = c->pat_mr->rkey;
	c_set(c, C_CONNECTING);
	if (rdma_connect(c->v.id, &cp)) {
		c_lose(c, "connect");
		c->disconnected = true;
		c->t_disc = now_s();
	}
}

static void c_cm(void)
{
	struct rdma_cm_event *ev;
	enum rdma_cm_event_type t;
	struct rdma_cm_id *id;
	struct cconn *c;
	struct hello_s hs = {};
	bool hello;

	while (!rdma_get_cm_event(chan, &ev)) {
		t = ev->event;
		id = ev->id;
		c = id->context;
		hello = t == RDMA_CM_EVENT_ESTABLISHED &&
			ev->param.conn.private_data_len >= sizeof(hs);
		if (hello)
			memcpy(&hs, ev->param.conn.private_data, sizeof(hs));
		rdma_ack_cm_event(ev);
		if (!c || id != c->v.id)
			continue;
		switch (t) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			if (c->state != C_RESOLVING)
				break;
			if (rdma_resolve_route(c->v.id, 2000)) {
				c->disconnected = true;
				c->t_disc = now_s();
				c_lose(c, "resolve_route");
			}
			continue;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			if (c->state != C_RESOLVING)
				break;
			c_connect(c);
			continue;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (c->state != C_CONNECTING)
				break;
			if (!hello || hs.magic != HELLO_MAGIC) {
				bad("slot %d: ESTABLISHED without the server's hello",
				    c->slot);
				c_lose(c, "no-hello");
				continue;
			}
			c->peer = hs;
			c->counter = hs.counter;
			c_set(c, stopping ? C_QUIESCE : C_RUN);
			st.conns++;
			/*
			 * A reconnection follows a lost connection, not a
			 * first connect that needed more than one attempt
			 * (slot 1's first gen failed on the debug kernel).
			 */
			if (c->was_up)
				st.reconnects++;
			c->was_up = true;
			printf("SOAK CONN slot=%d gen=%u t=%.3f\n", c->slot,
			       c->gen, now_s());
			continue;
		case RDMA_CM_EVENT_DISCONNECTED:
			c->disconnected = true;
			c->t_disc = now_s();
			if (c->state == C_CLOSING)
				continue;
			c_lose(c, "DISCONNECTED");
			continue;
		case RDMA_CM_EVENT_ADDR_ERROR:
		case RDMA_CM_EVENT_ROUTE_ERROR:
		case RDMA_CM_EVENT_CONNECT_ERROR:
		case RDMA_CM_EVENT_UNREACHABLE:
		case RDMA_CM_EVENT_REJECTED:
			c->disconnected = true;
			c->t_disc = now_s();
			c_lose(c, rdma_event_str(t));
			continue;
		default:
			break;
		}
		bad("slot %d: CM event %s in state %d", c->slot,
		    rdma_event_str(t), c->state);
		c_lose(c, "unexpected CM event");
	}
	if (errno != EAGAIN && errno != EINTR)
		fail_errno("rdma_get_cm_event");
}

/* ---- posting ---- */

static int op_get(struct cconn *c)
{
	int i;

	for (i = 0; i < NOPS; i++)
		if (!c->ops[i].busy) {
			memset(&c->ops[i], 0, sizeof(c->ops[i]));
			c->ops[i].busy = true;
			return i;
		}
	fail("no free op (logic)");
}

static uint8_t *op_buf(struct cconn *c, int i)
{
	return c->lbuf + (size_t)i * OP_BUF;
}

static bool is_ord(enum opk k)
{
	return k == O_READBACK || k == O_READ || k == O_READ_V2 ||
	       k >= O_FADD;
}

/* A batch of work requests through the builders or ibv_post_send(). */
struct batch {
	bool builder;
	int n;
	int idx[4];
	struct ibv_send_wr wr[4];
	struct ibv_sge sge[4][3];
};

static void b_start(struct cconn *c, struct batch *b)
{
	memset(b, 0, sizeof(*b));
	b->builder = rnd(&c->rng) & 1;
	if (b->builder)
		ibv_wr_start(c->v.qpx);
}

/* Add op @i: @opcode for ibv_post_send, set up by the caller's wr fields. */
static struct ibv_send_wr *b_add(struct cconn *c, struct batch *b, int i,
				 enum opk kind)
{
	struct ibv_send_wr *wr = &b->wr[b->n];

	c->ops[i].kind = kind;
	b->idx[b->n++] = i;
	wr->wr_id = i;
	wr->sg_list = b->sge[b->n - 1];
	wr->send_flags = IBV_SEND_SIGNALED;
	if (b->builder) {
		c->v.qpx->wr_id = i;
		c->v.qpx->wr_flags = IBV_SEND_SIGNALED;
	}
	return wr;
}

static void b_sge(struct cconn *c, struct batch *b, struct ibv_send_wr *wr,
		  uint8_t *p, uint32_t len)
{
	struct ibv_sge *s = &b->sge[b->n - 1][wr->num_sge++];

	s->addr = (uintptr_t)p;
	s->length = len;
	s->lkey = c->lbuf_mr->lkey;
	if (b->builder)
		ibv_wr_set_sge(c->v.qpx, s->lkey, s->addr, len);
}

/* Post the batch; on failure free its ops (nothing went). */
static int b_end(struct cconn *c, struct batch *b)
{
	struct ibv_send_wr *bad_wr;
	int rc, k;

	if (b->builder) {
		rc = ibv_wr_complete(c->v.qpx);
	} else {
		for (k = 0; k + 1 < b->n; k++)
			b->wr[k].next = &b->wr[k + 1];
		rc = ibv_post_send(c->v.qp, b->wr, &bad_wr);
		if (rc && bad_wr != b->wr) {
			/* Part of a chain went: their completions come. */
			for (k = 0; &b->wr[k] != bad_wr; k++) {
				st.posted[c->ops[b->idx[k]].kind]++;
				c->v.sq_out++;
				c->nops++;
				if (is_ord(c->ops[b->idx[k]].kind))
					c->ord++;
			}
			for (; k < b->n; k++)
				c->ops[b->idx[k]].busy = false;
			return rc;
		}
	}
	for (k = 0; k < b->n; k++) {
		struct op *o = &c->ops[b->idx[k]];

		if (rc) {
			o->busy = false;
			continue;
		}
		st.posted[o->kind]++;
		c->v.sq_out++;
		c->nops++;
		if (is_ord(o->kind))
			c->ord++;
	}
	return rc;
}

static uint32_t msg_len(struct cconn *c, uint32_t max)
{
	uint32_t hl = sizeof(struct soak_hdr);

	if (rnd(&c->rng) & 1)
		return rnd_range(&c->rng, hl, 4096);
	return rnd_range(&c->rng, hl, max);
}

/* A Send, Send with Immediate (4 or 8 octets) or Write with Immediate. */
static int c_message(struct cconn *c, bool write)
{
	uint32_t r = rnd(&c->rng) % 3, seq = c->seq + 1, len;
	int i = op_get(c);
	uint8_t *p = op_buf(c, i);
	struct ibv_send_wr *wr;
	enum opk kind;
	uint64_t imm = 0;
	struct batch b;
	uint16_t k;
	int rc;

	if (write) {
		kind = r ? O_WRITE_IMM : O_WRITE_IMM64;
		imm = (uint64_t)seq << 32 | (kind == O_WRITE_IMM64 ? ~seq : 0);
		k = K_WRIMM;
		len = msg_len(c, REG_LEN);
	} else {
		kind = r == 0 ? O_SEND : r == 1 ? O_SEND_IMM : O_SEND_IMM64;
		imm = kind == O_SEND ? 0 : (uint64_t)seq << 32 |
		      (kind == O_SEND_IMM64 ? (uint32_t)rnd(&c->rng) : 0);
		k = kind == O_SEND ? K_SEND : K_SENDIMM;
		len = msg_len(c, MSG_MAX);
	}
	mk_msg(p, len, c->slot, k, c->gen, seq, rnd(&c->rng), imm, 0);
	c->ops[i].seq = seq;
	b_start(c, &b);
	/* The siw2dv 8-octet forms exist only as builders. */
	if (kind == O_SEND_IMM64 || kind == O_WRITE_IMM64) {
		if (!b.builder) {
			b.builder = true;
			ibv_wr_start(c->v.qpx);
		}
	}
	wr = b_add(c, &b, i, kind);
	switch (kind) {
	case O_SEND:
		wr->opcode = IBV_WR_SEND;
		if (b.builder)
			ibv_wr_send(c->v.qpx);
		break;
	case O_SEND_IMM:
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htobe32(imm >> 32);
		if (b.builder)
			ibv_wr_send_imm(c->v.qpx, wr->imm_data);
		break;
	case O_SEND_IMM64:
		siw2dv_wr_send_imm64(c->v.qpx, imm);
		break;
	case O_WRITE_IMM:
		wr->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr->imm_data = htobe32(seq);
		wr->wr.rdma.remote_addr = c->peer.addr + W_IMMR +
					  (seq % NIMMR) * REG_LEN;
		wr->wr.rdma.rkey = c->peer.rkey;
		if (b.builder)
			ibv_wr_rdma_write_imm(c->v.qpx, wr->wr.rdma.rkey,
					      wr->wr.rdma.remote_addr,
					      wr->imm_data);
		break;
	default:
		siw2dv_wr_rdma_write_imm64(c->v.qpx, c->peer.rkey,
					   c->peer.addr + W_IMMR +
					   (seq % NIMMR) * REG_LEN, imm);
		break;
	}
	b_sge(c, &b, wr, p, len);
	rc = b_end(c, &b);
	if (!rc) {
		c->seq = seq;
		c->msg_len[seq % (MSG_WIN * 2)] = len;
	}
	return rc;
}

static int free_wreg(struct cconn *c)
{
	uint32_t r = rnd(&c->rng) % NWREG, k;

	for (k = 0; k < NWREG; k++)
		if (!c->wreg_busy[(r + k) % NWREG])
			return (r + k) % NWREG;
	return -1;
}

/* Write a region (header + checksum), optionally Commit it, Read it back. */
static int c_write(struct cconn *c, bool commit)
{
	int r = free_wreg(c), i, j, l = -1;
	uint64_t raddr = c->peer.addr + W_WREG + (uint64_t)r * REG_LEN;
	uint64_t laddr = c->peer.addr + W_ATOM + 8, logv = 0;
	uint32_t len = msg_len(c, REG_LEN), seq;
	bool log = commit && !c->log_busy && (rnd(&c->rng) & 1);
	struct ibv_send_wr *wr;
	struct batch b;
	int rc;

	seq = (uint32_t)rnd(&c->rng);
	i = op_get(c);
	mk_msg(op_buf(c, i), len, c->slot, K_WRITE, c->gen, seq,
	       rnd(&c->rng), 0, 0);
	b_start(c, &b);
	if (commit && !b.builder) {
		b.builder = true;
		ibv_wr_start(c->v.qpx);
	}
	wr = b_add(c, &b, i, O_WRITE);
	wr->opcode = IBV_WR_RDMA_WRITE;
	wr->wr.rdma.remote_addr = raddr;
	wr->wr.rdma.rkey = c->peer.rkey;
	if (b.builder)
		ibv_wr_rdma_write(c->v.qpx, c->peer.rkey, raddr);
	b_sge(c, &b, wr, op_buf(c, i), len);
	if (commit) {
		j = op_get(c);
		b_add(c, &b, j, log ? O_COMMIT_LOG : O_COMMIT);
		if (log) {
			struct siw2dv_commit_log lg = {
				.rkey = c->peer.rkey, .addr = laddr,
			};

			logv = rnd(&c->rng);
			c->ops[j].expect = logv;
			lg.value = logv;
			/* Visible is enough: the regions are not durable. */
			siw2dv_wr_commit_ex(c->v.qpx, c->peer.rkey, raddr,
					    len, SIW2DV_COMMIT_GLOBAL, &lg);
			/* The log word, once the Commit is done (fenced). */
			l = op_get(c);
			b_add(c, &b, l, O_LOGREAD);
			c->ops[l].expect = logv;
			c->v.qpx->wr_flags |= IBV_SEND_FENCE;
			ibv_wr_rdma_read(c->v.qpx, c->peer.rkey, laddr);
			ibv_wr_set_sge(c->v.qpx, c->lbuf_mr->lkey,
				       (uintptr_t)op_buf(c, l), 8);
		} else {
			siw2dv_wr_commit_ex(c->v.qpx, c->peer.rkey, raddr,
					    len, SIW2DV_COMMIT_GLOBAL, NULL);
		}
	}
	j = op_get(c);
	c->ops[j].seq = seq;
	c->ops[j].region = r;
	c->ops[j].len = len;
	wr = b_add(c, &b, j, O_READBACK);
	wr->opcode = IBV_WR_RDMA_READ;
	wr->wr.rdma.remote_addr = raddr;
	wr->wr.rdma.rkey = c->peer.rkey;
	memset(op_buf(c, j), 0, len);
	if (b.builder)
		ibv_wr_rdma_read(c->v.qpx, c->peer.rkey, raddr);
	b_sge(c, &b, wr, op_buf(c, j), len);
	rc = b_end(c, &b);
	if (!rc) {
		c->wreg_busy[r] = true;
		if (log)
			c->log_busy = true;
	}
	return rc;
}

/* A Read of the server's pattern area into 1 SGE, or 3 (Read V2). */
static int c_read(struct cconn *c)
{
	int i = op_get(c);
	bool v2 = !c->no_read_v2 && (rnd(&c->rng) & 1);
	uint32_t len = rnd_range(&c->rng, 1, OP_BUF / 2), a, bb;
	uint32_t off = rnd_range(&c->rng, 0, PAT_LEN - len);
	struct ibv_send_wr *wr;
	struct batch b;
	uint8_t *p = op_buf(c, i);
	int rc;

	c->ops[i].off = off;
	c->ops[i].len = len;
	memset(p, 0, OP_BUF);
	b_start(c, &b);
	if (v2 && len >= 3) {
		/* ibv_post_send alone: EINVAL tells a connection without V2. */
		if (b.builder)
			ibv_wr_abort(c->v.qpx);
		b.builder = false;
		a = rnd_range(&c->rng, 1, len - 2);
		bb = rnd_range(&c->rng, 1, len - a - 1);
		c->ops[i].nsge = 3;
		c->ops[i].sge_len[0] = a;
		c->ops[i].sge_len[1] = bb;
		c->ops[i].sge_len[2] = len - a - bb;
		wr = b_add(c, &b, i, O_READ_V2);
		wr->opcode = IBV_WR_RDMA_READ;
		wr->wr.rdma.remote_addr = c->peer.addr + W_PAT + off;
		wr->wr.rdma.rkey = c->peer.rkey;
		/* Gaps between the SGEs: each lands where it must. */
		b_sge(c, &b, wr, p, a);
		b_sge(c, &b, wr, p + a + 64, bb);
		b_sge(c, &b, wr, p + a + bb + 128, len - a - bb);
		rc = b_end(c, &b);
		if (rc != EINVAL || qp_failed(&c->v))
			return rc;
		c->no_read_v2 = true;
		st.read_v1_fallback++;
		i = op_get(c);
		c->ops[i].off = off;
		c->ops[i].len = len;
		p = op_buf(c, i);
		memset(p, 0, len);
		b_start(c, &b);
	}
	c->ops[i].nsge = 1;
	c->ops[i].sge_len[0] = len;
	wr = b_add(c, &b, i, O_READ);
	wr->opcode = IBV_WR_RDMA_READ;
	wr->wr.rdma.remote_addr = c->peer.addr + W_PAT + off;
	wr->wr.rdma.rkey = c->peer.rkey;
	if (b.builder)
		ibv_wr_rdma_read(c->v.qpx, c->peer.rkey, wr->wr.rdma.remote_addr);
	b_sge(c, &b, wr, p, len);
	return b_end(c, &b);
}

/* DIGEST 2.2.5's masked FetchAdd: no carry across a 1 bit of @mask. */
static uint64_t mfadd_ref(uint64_t orig, uint64_t add, uint64_t mask)
{
	uint64_t res = 0, m;
	unsigned int bit, carry = 0, sum;

	for (bit = 0; bit < 64; bit++) {
		m = 1ULL << bit;
		sum = carry + !!(orig & m) + !!(add & m);
		carry = (sum >> 1) & 1;
		if (sum & 1)
			res |= m;
		carry = carry && !(mask & m);
	}
	return res;
}

/* One atomic on the slot's counter; its original value is predicted. */
static int c_atomic(struct cconn *c)
{
	static const enum opk kinds[] = { O_FADD, O_CSWAP, O_CSWAP, O_AWRITE,
					  O_MFADD, O_MCSWAP };
	enum opk kind = kinds[rnd(&c->rng) % 6];
	uint64_t ctr = c->peer.addr + W_ATOM, v = c->counter, a, m, cmp, sw;
	int i = op_get(c);
	struct ibv_send_wr *wr;
	struct batch b;
	int rc;

	b_start(c, &b);
	if ((kind == O_AWRITE || kind == O_MFADD || kind == O_MCSWAP) &&
	    !b.builder) {
		b.builder = true;
		ibv_wr_start(c->v.qpx);
	}
	wr = b_add(c, &b, i, kind);
	wr->wr.atomic.remote_addr = ctr;
	wr->wr.atomic.rkey = c->peer.rkey;
	c->ops[i].expect = v;
	switch (kind) {
	case O_FADD:
		a = rnd(&c->rng);
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.compare_add = a;
		if (b.builder)
			ibv_wr_atomic_fetch_add(c->v.qpx, c->peer.rkey, ctr, a);
		v += a;
		break;
	case O_CSWAP:
		/* Half of them with the wrong value: nothing swapped. */
		cmp = (rnd(&c->rng) & 1) ? v : v ^ 0x100;
		sw = rnd(&c->rng);
		wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.compare_add = cmp;
		wr->wr.atomic.swap = sw;
		if (b.builder)
			ibv_wr_atomic_cmp_swp(c->v.qpx, c->peer.rkey, ctr, cmp,
					      sw);
		if (cmp == v)
			v = sw;
		break;
	case O_AWRITE:
		/* After the earlier atomics on the word, not before. */
		a = rnd(&c->rng);
		memcpy(op_buf(c, i), &a, 8);
		c->v.qpx->wr_flags |= IBV_SEND_FENCE;
		ibv_wr_atomic_write(c->v.qpx, c->peer.rkey, ctr, op_buf(c, i));
		v = a;
		break;
	case O_MFADD:
		a = rnd(&c->rng);
		m = rnd(&c->rng) & rnd(&c->rng);
		siw2dv_wr_masked_atomic_fetch_add(c->v.qpx, c->peer.rkey, ctr,
						  a, m);
		v = mfadd_ref(v, a, m);
		break;
	default:
		m = rnd(&c->rng);
		cmp = (rnd(&c->rng) & 1) ? v : v ^ (m & -m);
		sw = rnd(&c->rng);
		a = rnd(&c->rng);
		siw2dv_wr_masked_atomic_cmp_swp(c->v.qpx, c->peer.rkey, ctr,
						cmp, m, sw, a);
		if (!((v ^ cmp) & m))
			v = (v & ~a) | (sw & a);
		break;
	}
	if (kind != O_AWRITE) {
		/* Not what it must return: a sink left alone shows. */
		a = ~c->ops[i].expect;
		memcpy(op_buf(c, i), &a, 8);
		b_sge(c, &b, wr, op_buf(c, i), 8);
	}
	rc = b_end(c, &b);
	if (!rc)
		c->counter = v;
	return rc;
}

/* Post transactions while there is room. */
static void c_post(struct cconn *c)
{
	uint32_t r;
	int rc, need;

	while (c->state == C_RUN && c->nops < opt.depth) {
		r = rnd(&c->rng) % 100;
		if (r < 30) {		/* messages */
			if (c->seq - c->acked >= MSG_WIN)
				return;
			rc = c_message(c, r >= 18);
		} else if (r < 50) {	/* Write + Read back, or + Commit */
			need = r < 42 ? 1 : 3;
			if (free_wreg(c) < 0 || c->ord + need > ORD_MAX ||
			    c->nops + need + 1 > NOPS)
				return;
			rc = c_write(c, r >= 42);
		} else if (r < 75) {
			if (c->ord >= ORD_MAX)
				return;
			rc = c_read(c);
		} else {
			if (c->ord >= ORD_MAX)
				return;
			rc = c_atomic(c);
		}
		if (rc) {
			if (!qp_failed(&c->v))
				bad("slot %d: post failed: %s", c->slot,
				    strerror(rc));
			c_lose(c, "post");
			return;
		}
	}
}

/* ---- completions ---- */

static void c_done_op(struct cconn *c, const struct wc *w)
{
	struct op *o = w->wr_id < NOPS ? &c->ops[w->wr_id] : NULL;
	const char *err = NULL;
	uint8_t *p;
	uint32_t k, off;
	uint64_t v;

	if (!o || !o->busy) {
		bad("slot %d: completion for wr_id %" PRIu64 " not in flight",
		    c->slot, w->wr_id);
		return;
	}
	p = op_buf(c, (int)w->wr_id);
	o->busy = false;
	c->nops--;
	c->v.sq_out--;
	if (is_ord(o->kind))
		c->ord--;
	if (o->kind == O_READBACK)
		c->wreg_busy[o->region] = false;
	if (o->kind == O_LOGREAD)
		c->log_busy = false;
	if (w->status != IBV_WC_SUCCESS) {
		st.err[o->kind]++;
		if (w->status != IBV_WC_WR_FLUSH_ERR)
			printf("SOAK ERRWC slot=%d gen=%u t=%.3f op=%s status=%s vendor_err=%u\n",
			       c->slot, c->gen, now_s(), opname[o->kind],
			       ibv_wc_status_str(w->status), w->vendor_err);
		if (c->state != C_CLOSING)
			c_lose(c, ibv_wc_status_str(w->status));
		return;
	}
	st.ok[o->kind]++;
	if ((int)w->opcode != wc_opcode[o->kind])
		bad("slot %d: %s completed as opcode %d", c->slot,
		    opname[o->kind], w->opcode);
	switch (o->kind) {
	case O_READBACK:
		err = chk_msg(p, o->len, OP_BUF, c->slot, K_WRITE, c->gen,
			      o->seq, NULL);
		if (!err)
			st.verified_bytes += o->len;
		break;
	case O_READ:
	case O_READ_V2:
		for (k = 0, off = 0; k < (uint32_t)o->nsge && !err; k++) {
			if (!pat_ok(p + off + k * 64, o->off + off,
				    o->sge_len[k]))
				err = "Read data differs from the pattern";
			off += o->sge_len[k];
		}
		if (!err)
			st.verified_bytes += o->len;
		break;
	case O_FADD:
	case O_CSWAP:
	case O_MFADD:
	case O_MCSWAP:
		memcpy(&v, p, 8);
		if (v != o->expect)
			err = "atomic returned another original value";
		break;
	case O_LOGREAD:
		memcpy(&v, p, 8);
		if (v != o->expect)
			err = "log word differs from the Commit's value";
		break;
	default:
		break;
	}
	if (err)
		corrupt("slot=%d gen=%u op=%s: %s", c->slot, c->gen,
			opname[o->kind], err);
}

static void c_ack(struct cconn *c, const struct wc *w)
{
	uint32_t i = (uint32_t)w->wr_id - 1000;
	uint8_t *p = c->abuf + (size_t)i * ACK_MAX;
	struct soak_hdr h = {};
	const char *err;

	c->v.rq_out--;
	if (w->status != IBV_WC_SUCCESS) {
		st.err[O_RECV]++;
		if (c->state != C_CLOSING)
			c_lose(c, ibv_wc_status_str(w->status));
		return;
	}
	st.ok[O_RECV]++;
	err = chk_msg(p, w->len, ACK_MAX, c->slot, K_ACK, c->gen, c->acked + 1,
		      &h);
	if (!err && w->opcode != IBV_WC_RECV)
		err = "acknowledgement is not a Send";
	if (!err && c->acked + 1 > c->seq)
		err = "acknowledgement of a message not sent";
	if (err) {
		corrupt("slot=%d gen=%u ack=%u: %s", c->slot, c->gen,
			c->acked + 1, err);
	} else {
		st.verified_bytes += h.len;
		if (!h.ok)
			corrupt("slot=%d gen=%u msg=%u: the server found it damaged",
				c->slot, c->gen, h.seq);
		else
			st.verified_bytes +=
				c->msg_len[h.seq % (MSG_WIN * 2)];
	}
	c->acked++;
	st.msgs_acked++;
	if (c->state != C_DRAIN)
		post_recv(&c->v, w->wr_id, p, ACK_MAX, c->abuf_mr->lkey);
}

static bool c_poll(struct cconn *c)
{
	struct wc w[16];
	int n, k;

	if (!c->v.cq)
		return false;
	n = poll_cq(&c->v, w, 16);
	for (k = 0; k < n; k++) {
		if (w[k].wr_id >= 1000)
			c_ack(c, &w[k]);
		else
			c_done_op(c, &w[k]);
	}
	return n > 0;
}

/* Advance one slot's state machine; true if it did something. */
static bool c_step(struct cconn *c, double now)
{
	bool busy = c_poll(c);

	switch (c->state) {
	case C_IDLE:
		if (stopping) {
			c_set(c, C_DONE);
		} else if (now >= c->t_next) {
			c_start(c);
			busy = true;
		}
		break;
	case C_RESOLVING:
	case C_CONNECTING:
		if (now - c->t_state > 30) {
			bad("slot %d: connection setup stuck for 30 s", c->slot);
			c_lose(c, "setup-timeout");
		}
		break;
	case C_RUN:
		c_post(c);
		break;
	case C_QUIESCE:
		if (!c->nops && c->acked == c->seq) {
			rdma_disconnect(c->v.id);
			c_set(c, C_CLOSING);
		} else if (now - c->t_state > 60) {
			bad("slot %d: %d work requests and %u acknowledgements outstanding 60 s after the end",
			    c->slot, c->nops, c->seq - c->acked);
			c_lose(c, "quiesce-timeout");
		}
		break;
	case C_CLOSING:
		if (c->disconnected)
			v_flush(&c->v, c->t_disc, 2);
		if (c->disconnected && !c->v.sq_out && !c->v.rq_out) {
			c_teardown(c);
			c_set(c, C_DONE);
		} else if (now - c->t_state > DRAIN_SECS) {
			bad("slot %d: close: %d sends, %d receives outstanding%s",
			    c->slot, c->v.sq_out, c->v.rq_out,
			    c->disconnected ? "" : ", no DISCONNECTED");
			c_teardown(c);
			c_set(c, C_DONE);
		}
		break;
	case C_DRAIN:
		if (c->disconnected)
			v_flush(&c->v, c->t_disc, 2);
		if ((c->disconnected || !c->v.qp) && !c->v.sq_out &&
		    !c->v.rq_out) {
			c_teardown(c);
			c->t_next = now + RETRY_SECS;
			c_set(c, stopping ? C_DONE : C_IDLE);
			busy = true;
		} else if (now - c->t_state > DRAIN_SECS) {
			bad("slot %d gen %u: %d sends and %d receives not flushed%s %.0f s after the loss (%s)",
			    c->slot, c->gen, c->v.sq_out, c->v.rq_out,
			    c->disconnected ? "" : ", no DISCONNECTED",
			    DRAIN_SECS, c->lost_why);
			c_teardown(c);
			c->t_next = now + RETRY_SECS;
			c_set(c, stopping ? C_DONE : C_IDLE);
		}
		break;
	case C_DONE:
		break;
	}
	return busy;
}

static void client(void)
{
	double end = t_start + opt.secs, now;
	bool busy, all_done;
	int s;

	cc = calloc(opt.qps, sizeof(*cc));
	if (!cc)
		fail("out of memory");
	fcntl(chan->fd, F_SETFL, fcntl(chan->fd, F_GETFL) | O_NONBLOCK);
	for (s = 0; s < opt.qps; s++)
		cc[s].slot = s;
	printf("SOAK CLIENT qps=%d depth=%d secs=%.0f seed=%" PRIu64 "\n",
	       opt.qps, opt.depth, opt.secs, opt.seed);
	for (;;) {
		now = now_s();
		if (!stopping && (now >= end || stop_sig)) {
			stopping = true;
			printf("SOAK STOPPING t=%.3f\n", now);
			for (s = 0; s < opt.qps; s++)
				if (cc[s].state == C_RUN)
					c_set(&cc[s], C_QUIESCE);
		}
		c_cm();
		busy = false;
		all_done = true;
		for (s = 0; s < opt.qps; s++) {
			busy |= c_step(&cc[s], now);
			all_done &= cc[s].state == C_DONE;
		}
		if (all_done)
			break;
		if (stopping && now - end > 300)
			fail("slots still open 300 s after the end");
		if (!busy) {
			struct pollfd pfd = { .fd = chan->fd, .events = POLLIN };

			poll(&pfd, 1, 1);
		}
	}
	free(cc);
}

static void summary(void)
{
	uint64_t posted = 0, ok = 0, err = 0, unacc = 0;
	int k;

	printf("SOAK OPS");
	for (k = 0; k < O_NKINDS; k++) {
		if (!st.posted[k] && !st.ok[k] && !st.err[k])
			continue;
		printf(" %s=%" PRIu64 "/%" PRIu64 "/%" PRIu64, opname[k],
		       st.posted[k], st.ok[k], st.err[k]);
		posted += st.posted[k];
		ok += st.ok[k];
		err += st.err[k];
		if (st.posted[k] != st.ok[k] + st.err[k]) {
			unacc += st.posted[k] > st.ok[k] + st.err[k] ?
				 st.posted[k] - st.ok[k] - st.err[k] :
				 st.ok[k] + st.err[k] - st.posted[k];
		}
	}
	printf("\nSOAK STATUS");
	for (k = 0; k < 32; k++)
		if (st.status_hist[k])
			printf(" %s=%" PRIu64, ibv_wc_status_str(k),
			       st.status_hist[k]);
	printf("\nSOAK SUMMARY side=%s ops=%" PRIu64 " ok=%" PRIu64
	       " err=%" PRIu64 " verified_bytes=%" PRIu64 " msgs_acked=%" PRIu64
	       " in_doubt=%" PRIu64 " conns=%" PRIu64 " reconnects=%" PRIu64
	       " losses=%" PRIu64 " superseded=%" PRIu64
	       " read_v1_fallback=%" PRIu64 " forced_err=%" PRIu64
	       " corrupt=%" PRIu64
	       " unaccounted=%" PRIu64 " bad=%" PRIu64 " secs=%.1f\n",
	       side, posted, ok, err, st.verified_bytes, st.msgs_acked,
	       st.in_doubt, st.conns, st.reconnects, st.losses, st.superseded,
	       st.read_v1_fallback, st.forced_err, st.corrupt, unacc, st.bad,
	       now_s() - t_start);
	if (st.corrupt || unacc || st.bad)
		exit(1);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int c;

	while ((c = getopt(argc, argv, "sa:p:D:T:q:d:S:X")) != -1) {
		switch (c) {
		case 's':
			opt.server = true;
			break;
		case 'a':
			if (opt.naddr == MAX_ADDRS)
				fail("at most %d addresses", MAX_ADDRS);
			opt.addr[opt.naddr++] = optarg;
			break;
		case 'p':
			opt.port = optarg;
			break;
		case 'D':
		case 'T':
			opt.secs = atof(optarg);
			break;
		case 'q':
			opt.qps = atoi(optarg);
			break;
		case 'd':
			opt.depth = atoi(optarg);
			break;
		case 'S':
			opt.seed = strtoull(optarg, NULL, 0);
			break;
		case 'X':
			opt.proof = true;
			break;
		default:
			fprintf(stderr, "usage: see the top of siw2_soak.c\n");
			return 2;
		}
	}
	if (!opt.naddr || opt.qps < 1 || opt.qps > MAX_SLOTS ||
	    opt.depth < 4 || opt.depth > NOPS - 4 ||
	    (!opt.server && opt.secs <= 0)) {
		fprintf(stderr, "siw2_soak: -a ADDR needed; 1 <= -q <= %d; 4 <= -d <= %d; the client needs -D SECS\n",
			MAX_SLOTS, NOPS - 4);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	side = opt.server ? "server" : "client";
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	t_start = now_s();
	chan = rdma_create_event_channel();
	if (!chan)
		fail_errno("rdma_create_event_channel");
	if (opt.server)
		server();
	else
		client();
	rdma_destroy_event_channel(chan);
	summary();
	return 0;
}
