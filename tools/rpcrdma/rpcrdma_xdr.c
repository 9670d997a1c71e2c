// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RPC-over-RDMA transport header codec, Versions 1 and 2 (rpcrdma_xdr.h).
 * Requirement IDs: Documentation/conformance.md, RPCRDMA2-*.
 */
#include <errno.h>
#include <string.h>

#include "rpcrdma_xdr.h"

/* A bounded XDR reader: every get fails once the buffer is exhausted. */
struct rr_in {
	const uint8_t *p;
	size_t len;
	size_t off;
};

static bool rr_get32(struct rr_in *in, uint32_t *v)
{
	const uint8_t *b;

	if (in->len - in->off < 4)
		return false;
	b = in->p + in->off;
	*v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	     (uint32_t)b[2] << 8 | b[3];
	in->off += 4;
	return true;
}

static bool rr_get64(struct rr_in *in, uint64_t *v)
{
	uint32_t hi, lo;

	if (in->len - in->off < 8 || !rr_get32(in, &hi) || !rr_get32(in, &lo))
		return false;
	*v = (uint64_t)hi << 32 | lo;
	return true;
}

/* Octets left, in whole XDR words. */
static size_t rr_words_left(const struct rr_in *in)
{
	return (in->len - in->off) / 4;
}

struct rr_out {
	uint8_t *p;
	size_t room;
	size_t off;
};

static bool rr_put32(struct rr_out *o, uint32_t v)
{
	uint8_t *b;

	if (o->room - o->off < 4)
		return false;
	b = o->p + o->off;
	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
	o->off += 4;
	return true;
}

static bool rr_put64(struct rr_out *o, uint64_t v)
{
	return rr_put32(o, v >> 32) && rr_put32(o, (uint32_t)v);
}

static int rr_fail(struct rr_status *st, uint32_t err, uint32_t arg,
		   size_t where)
{
	st->err = err;
	st->arg = arg;
	st->where = where;
	return -EINVAL;
}

static bool rr_get_seg(struct rr_in *in, struct rr_seg *s)
{
	return rr_get32(in, &s->handle) && rr_get32(in, &s->length) &&
	       rr_get64(in, &s->offset);
}

/*
 * An XDR optional-data discriminator: 0 ends a list, 1 announces an
 * entry; anything else is not XDR (RPCRDMA2-ERR-4).
 */
static int rr_get_more(struct rr_in *in, bool *more, struct rr_status *st)
{
	size_t at = in->off;
	uint32_t v;

	if (!rr_get32(in, &v) || v > 1)
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	*more = v;
	return 0;
}

static uint32_t rr_min(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* The read list: segments, one chunk per run of equal positions. */
static int rr_get_reads(struct rr_in *in, const struct rr_limits *lim,
			struct rr_hdr *h, struct rr_status *st)
{
	uint32_t chunks = 0, in_chunk = 0, max_chunks;
	struct rr_read r;
	bool more;
	size_t at;

	max_chunks = rr_min(lim->max_reads, RR_MAX_READS);
	for (;;) {
		if (rr_get_more(in, &more, st))
			return -EINVAL;
		if (!more)
			return 0;
		at = in->off;
		if (!rr_get32(in, &r.position) || !rr_get_seg(in, &r.seg))
			return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
		if (!h->nreads || r.position != h->reads[h->nreads - 1].position) {
			chunks++;
			in_chunk = 0;
		}
		in_chunk++;
		/* Storage counts segments: a list beyond it is too long. */
		if (chunks > max_chunks || h->nreads == RR_MAX_READS)
			return rr_fail(st, RR_ERR_READ_CHUNKS, max_chunks, at);
		if (in_chunk > lim->max_segs)
			return rr_fail(st, RR_ERR_SEGMENTS, lim->max_segs, at);
		h->reads[h->nreads++] = r;
	}
}

/* A counted array of segments into h->segs (a write or reply chunk). */
static int rr_get_chunk(struct rr_in *in, const struct rr_limits *lim,
			struct rr_hdr *h, struct rr_chunk *c,
			struct rr_status *st)
{
	uint32_t n, i, max;
	size_t at = in->off;

	if (!rr_get32(in, &n) || n > rr_words_left(in) / 4)
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	max = rr_min(lim->max_segs, RR_MAX_SEGS - h->nsegs);
	if (n > max)
		return rr_fail(st, RR_ERR_SEGMENTS, lim->max_segs, at);
	c->first = h->nsegs;
	c->nsegs = n;
	for (i = 0; i < n; i++)
		rr_get_seg(in, &h->segs[h->nsegs++]);	/* length checked */
	return 0;
}

static int rr_get_lists(struct rr_in *in, const struct rr_limits *lim,
			struct rr_hdr *h, struct rr_status *st)
{
	bool more;
	size_t at;

	if (rr_get_reads(in, lim, h, st))
		return -EINVAL;
	for (;;) {
		if (rr_get_more(in, &more, st))
			return -EINVAL;
		if (!more)
			break;
		at = in->off;
		if (h->nwrites == rr_min(lim->max_writes, RR_MAX_WRITES))
			return rr_fail(st, RR_ERR_WRITE_CHUNKS,
				       rr_min(lim->max_writes, RR_MAX_WRITES), at);
		if (rr_get_chunk(in, lim, h, &h->writes[h->nwrites], st))
			return -EINVAL;
		h->nwrites++;
	}
	if (rr_get_more(in, &more, st))
		return -EINVAL;
	h->has_reply = more;
	return more ? rr_get_chunk(in, lim, h, &h->reply, st) : 0;
}

/*
 * RDMA2_ERROR's body (v2 6.4), or v1's (ERR_VERS and ERR_CHUNK only).
 * An error code this side does not know has no body (XDR "default:
 * void"): new codes come with extensions (RPCRDMA2-EXT-1).
 */
static int rr_get_error(struct rr_in *in, struct rr_hdr *h,
			struct rr_status *st)
{
	size_t at = in->off;
	int nargs;

	if (!rr_get32(in, &h->err))
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	switch (h->err) {
	case RR_ERR_VERS:
	case RR_ERR_WRITE_RESOURCE:
		nargs = 2;
		break;
	case RR_ERR_READ_CHUNKS:
	case RR_ERR_WRITE_CHUNKS:
	case RR_ERR_SEGMENTS:
	case RR_ERR_REPLY_RESOURCE:
		nargs = 1;
		break;
	default:
		nargs = 0;
	}
	if (h->vers == RR_VERS_1 && h->err != RR_ERR_VERS &&
	    h->err != RR_ERR_BAD_XDR)
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	if ((nargs > 0 && !rr_get32(in, &h->err_a)) ||
	    (nargs > 1 && !rr_get32(in, &h->err_b)))
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	return 0;
}

/*
 * A property's data: empty means the default (RPCRDMA2-PROP-1); a known
 * property's data must be exactly its type (RPCRDMA2-PROP-3).
 */
static int rr_get_prop(struct rr_in *in, struct rr_hdr *h,
		       struct rr_status *st)
{
	uint32_t id, dlen, value = 0;
	struct rr_prop *p;
	size_t at = in->off;
	bool known;

	if (!rr_get32(in, &id) || !rr_get32(in, &dlen) ||
	    dlen > rr_words_left(in) * 4)	/* RPCRDMA2-PROP-2 */
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	known = id == RR_PROP_RBSIZ || id == RR_PROP_BRS;
	if (!known) {
		/* RPCRDMA2-PROP-4: skipped, padding included. */
		in->off += (dlen + 3) & ~3u;
		return 0;
	}
	if ((dlen && dlen != 4) || (dlen && !rr_get32(in, &value)))
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	if (!dlen)
		value = id == RR_PROP_RBSIZ ? RR_RBSIZ_DEFAULT : RR_BRS_INLINE;
	if (id == RR_PROP_BRS && value > RR_BRS_GENL)
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	/* One value per property: a second is ambiguous, not an update. */
	if (rr_find_prop(h, id) || h->nprops == RR_MAX_PROPS)
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	p = &h->props[h->nprops++];
	p->id = id;
	p->value = value;
	p->present = dlen != 0;
	return 0;
}

static int rr_get_props(struct rr_in *in, struct rr_hdr *h,
			struct rr_status *st)
{
	size_t at = in->off;
	uint32_t n, i;

	/* Each propval is at least two words. */
	if (!rr_get32(in, &n) || n > rr_words_left(in) / 2)
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	for (i = 0; i < n; i++)
		if (rr_get_prop(in, h, st))
			return -EINVAL;
	return 0;
}

/*
 * A Version 1 server (Linux nfsd) answers a Version 2 message with a
 * Version 1 RDMA_ERROR/ERR_VERS that copies the failing rdma_vers, 2:
 * seven words with no flags word (RPCRDMA2-VER-4).  Read as Version 2,
 * such a message is error code 1 (its rdma_vers_low) with one argument
 * where ERR_VERS has two: no valid Version 2 error looks like it.
 */
static bool rr_v1_vers_error(const struct rr_in *in, struct rr_hdr *h)
{
	struct rr_in v1 = { in->p, in->len, 16 };
	uint32_t err, low, high;

	if (h->vers != RR_VERS_2 || h->htype != RR_ERROR || in->len != 28 ||
	    !rr_get32(&v1, &err) || err != RR_ERR_VERS ||
	    !rr_get32(&v1, &low) || !rr_get32(&v1, &high) ||
	    low != RR_VERS_1 || high < low)
		return false;
	h->flags = RR_F_RESPONSE;
	h->err = RR_ERR_VERS;
	h->err_a = low;
	h->err_b = high;
	h->payload = in->len;
	return true;
}

static int rr_get_v2(struct rr_in *in, const struct rr_limits *lim,
		     struct rr_hdr *h, struct rr_status *st)
{
	size_t at = in->off;

	/*
	 * Reserved flags are kept, not refused: an extension that defines
	 * one says where it matters (draft 9.4), and no sender sets one
	 * unasked (RPCRDMA2-HDR-2).
	 */
	if (!rr_get32(in, &h->flags))
		return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
	switch (h->htype) {
	case RR_MSG:
	case RR_NOMSG:
		at = in->off;
		if (!rr_get32(in, &h->inv_handle))
			return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
		return rr_get_lists(in, lim, h, st);
	case RR_ERROR:
		/* RPCRDMA2-HDR-6: an error is always a response. */
		if (!(h->flags & RR_F_RESPONSE))
			return rr_fail(st, RR_ERR_BAD_XDR, 0, at);
		return rr_get_error(in, h, st);
	case RR_CONNPROP:
		return rr_get_props(in, h, st);
	default:
		/* RPCRDMA2-TYPE-1, RPCRDMA2-ERR-3, RPCRDMA2-EXT-1 */
		return rr_fail(st, RR_ERR_INVAL_HTYPE, 0, 12);
	}
}

static int rr_get_v1(struct rr_in *in, const struct rr_limits *lim,
		     struct rr_hdr *h, struct rr_status *st)
{
	switch (h->htype) {
	case RR_MSG:
	case RR_NOMSG:
		return rr_get_lists(in, lim, h, st);
	case RR_ERROR:
		return rr_get_error(in, h, st);
	default:
		/* RDMA_MSGP, RDMA_DONE, unknown: v1 has only ERR_CHUNK. */
		return rr_fail(st, RR_ERR_BAD_XDR, 0, 12);
	}
}

/**
 * rr_decode - parse a transport header
 * @buf: the received Send's payload
 * @len: its length
 * @lim: versions and list sizes this receiver accepts
 * @h: the header; reads, writes and the reply chunk index h->segs
 * @st: on failure, the RR_ERR_* to answer with (RPCRDMA2-ERR-2..7)
 *
 * rdma_vers is checked before any field after it (RPCRDMA2-HDR-7).
 * For RR_MSG, h->payload is where the RPC message starts.
 *
 * Return: 0, or -EINVAL with @st filled.
 */
int rr_decode(const void *buf, size_t len, const struct rr_limits *lim,
	      struct rr_hdr *h, struct rr_status *st)
{
	struct rr_in in = { buf, len, 0 };
	int rv;

	memset(h, 0, sizeof(*h));
	memset(st, 0, sizeof(*st));
	if (!rr_get32(&in, &h->xid) || !rr_get32(&in, &h->vers))
		return rr_fail(st, RR_ERR_BAD_XDR, 0, 0);
	if ((h->vers != RR_VERS_1 && h->vers != RR_VERS_2) ||
	    h->vers < lim->vers_low || h->vers > lim->vers_high)
		return rr_fail(st, RR_ERR_VERS, 0, 4);	/* RPCRDMA2-VER-4 */
	if (!rr_get32(&in, &h->credit) || !rr_get32(&in, &h->htype))
		return rr_fail(st, RR_ERR_BAD_XDR, 0, in.off);
	if (rr_v1_vers_error(&in, h))
		return 0;
	rv = h->vers == RR_VERS_2 ? rr_get_v2(&in, lim, h, st) :
				    rr_get_v1(&in, lim, h, st);
	if (rv)
		return rv;
	h->payload = in.off;
	/* RDMA2_MSG ends with the RPC message's first word at least. */
	if (h->htype == RR_MSG && len - in.off < 4)
		return rr_fail(st, RR_ERR_BAD_XDR, 0, in.off);
	return 0;
}

static bool rr_put_seg(struct rr_out *o, const struct rr_seg *s)
{
	return rr_put32(o, s->handle) && rr_put32(o, s->length) &&
	       rr_put64(o, s->offset);
}

static bool rr_put_chunk(struct rr_out *o, const struct rr_hdr *h,
			 const struct rr_chunk *c)
{
	uint32_t i;

	if (!rr_put32(o, c->nsegs))
		return false;
	for (i = 0; i < c->nsegs; i++)
		if (!rr_put_seg(o, &h->segs[c->first + i]))
			return false;
	return true;
}

static bool rr_put_lists(struct rr_out *o, const struct rr_hdr *h)
{
	uint32_t i;

	for (i = 0; i < h->nreads; i++)
		if (!rr_put32(o, 1) || !rr_put32(o, h->reads[i].position) ||
		    !rr_put_seg(o, &h->reads[i].seg))
			return false;
	if (!rr_put32(o, 0))
		return false;
	for (i = 0; i < h->nwrites; i++)
		if (!rr_put32(o, 1) || !rr_put_chunk(o, h, &h->writes[i]))
			return false;
	if (!rr_put32(o, 0) || !rr_put32(o, h->has_reply))
		return false;
	return !h->has_reply || rr_put_chunk(o, h, &h->reply);
}

static bool rr_put_error(struct rr_out *o, const struct rr_hdr *h)
{
	if (!rr_put32(o, h->err))
		return false;
	switch (h->err) {
	case RR_ERR_VERS:
	case RR_ERR_WRITE_RESOURCE:
		return rr_put32(o, h->err_a) && rr_put32(o, h->err_b);
	case RR_ERR_READ_CHUNKS:
	case RR_ERR_WRITE_CHUNKS:
	case RR_ERR_SEGMENTS:
	case RR_ERR_REPLY_RESOURCE:
		return rr_put32(o, h->err_a);
	default:
		return true;
	}
}

/* Known properties only; a defaulted one goes with empty data. */
static bool rr_put_props(struct rr_out *o, const struct rr_hdr *h)
{
	uint32_t i;

	if (!rr_put32(o, h->nprops))
		return false;
	for (i = 0; i < h->nprops; i++) {
		const struct rr_prop *p = &h->props[i];

		if (!rr_put32(o, p->id) || !rr_put32(o, p->present ? 4 : 0) ||
		    (p->present && !rr_put32(o, p->value)))
			return false;
	}
	return true;
}

/* What a sender must not put on the wire (RPCRDMA2-HDR-2, -6, TYPE-1). */
static bool rr_hdr_valid(const struct rr_hdr *h)
{
	uint32_t i, used = 0;

	if (h->nreads > RR_MAX_READS || h->nwrites > RR_MAX_WRITES ||
	    h->nsegs > RR_MAX_SEGS || h->nprops > RR_MAX_PROPS)
		return false;
	for (i = 0; i < h->nwrites; i++)
		used += h->writes[i].nsegs;
	if (h->has_reply)
		used += h->reply.nsegs;
	if (used > h->nsegs)
		return false;
	if (h->vers == RR_VERS_1)
		return h->htype == RR_MSG || h->htype == RR_NOMSG ||
		       (h->htype == RR_ERROR && (h->err == RR_ERR_VERS ||
						 h->err == RR_ERR_BAD_XDR));
	if (h->vers != RR_VERS_2 || (h->flags & ~RR_F_RESPONSE))
		return false;
	if (h->htype == RR_ERROR)
		return h->flags & RR_F_RESPONSE;
	return h->htype == RR_MSG || h->htype == RR_NOMSG ||
	       h->htype == RR_CONNPROP;
}

/**
 * rr_encode - build a transport header
 * @h: the header (rr_hdr_init() and the rr_add_*()/rr_set_*() helpers)
 * @buf: where to write it; an RR_MSG's RPC message follows at *@len
 * @room: size of @buf
 * @len: octets written
 *
 * Return: 0; -EINVAL for a header no sender may send; -ENOSPC.
 */
int rr_encode(const struct rr_hdr *h, void *buf, size_t room, size_t *len)
{
	struct rr_out o = { buf, room, 0 };
	bool ok;

	if (!rr_hdr_valid(h))
		return -EINVAL;
	ok = rr_put32(&o, h->xid) && rr_put32(&o, h->vers) &&
	     rr_put32(&o, h->credit) && rr_put32(&o, h->htype);
	if (ok && h->vers == RR_VERS_2)
		ok = rr_put32(&o, h->flags);
	if (!ok)
		return -ENOSPC;
	switch (h->htype) {
	case RR_MSG:
	case RR_NOMSG:
		if (h->vers == RR_VERS_2)
			ok = rr_put32(&o, h->inv_handle);
		ok = ok && rr_put_lists(&o, h);
		break;
	case RR_ERROR:
		ok = rr_put_error(&o, h);
		break;
	default:
		ok = rr_put_props(&o, h);
	}
	if (!ok)
		return -ENOSPC;
	*len = o.off;
	return 0;
}

/**
 * rr_hdr_init - start a header to encode
 * @h: header
 * @vers: RR_VERS_1 or RR_VERS_2
 * @xid: transaction ID
 * @credit: credits requested (a Call) or granted (a Reply)
 * @htype: header type
 */
void rr_hdr_init(struct rr_hdr *h, uint32_t vers, uint32_t xid,
		 uint32_t credit, uint32_t htype)
{
	memset(h, 0, sizeof(*h));
	h->vers = vers;
	h->xid = xid;
	h->credit = credit;
	h->htype = htype;
}

/**
 * rr_add_read - append a read segment
 * @h: header
 * @position: XDR position of the chunk (0: the whole RPC message)
 * @s: segment
 *
 * Return: 0, or -ENOSPC.
 */
int rr_add_read(struct rr_hdr *h, uint32_t position, const struct rr_seg *s)
{
	if (h->nreads == RR_MAX_READS)
		return -ENOSPC;
	h->reads[h->nreads].position = position;
	h->reads[h->nreads++].seg = *s;
	return 0;
}

static int rr_put_segs(struct rr_hdr *h, struct rr_chunk *c,
		       const struct rr_seg *s, uint32_t n)
{
	if (n > RR_MAX_SEGS - h->nsegs)
		return -ENOSPC;
	c->first = h->nsegs;
	c->nsegs = n;
	memcpy(&h->segs[h->nsegs], s, n * sizeof(*s));
	h->nsegs += n;
	return 0;
}

/**
 * rr_add_write - append a write chunk of @n segments
 * @h: header
 * @s: segments
 * @n: how many
 *
 * Return: 0, or -ENOSPC.
 */
int rr_add_write(struct rr_hdr *h, const struct rr_seg *s, uint32_t n)
{
	if (h->nwrites == RR_MAX_WRITES ||
	    rr_put_segs(h, &h->writes[h->nwrites], s, n))
		return -ENOSPC;
	h->nwrites++;
	return 0;
}

/**
 * rr_set_reply - give the header a reply chunk of @n segments
 * @h: header
 * @s: segments
 * @n: how many
 *
 * Return: 0, or -ENOSPC (or -EEXIST: one reply chunk per header).
 */
int rr_set_reply(struct rr_hdr *h, const struct rr_seg *s, uint32_t n)
{
	if (h->has_reply)
		return -EEXIST;
	if (rr_put_segs(h, &h->reply, s, n))
		return -ENOSPC;
	h->has_reply = true;
	return 0;
}

/**
 * rr_set_error - the RDMA2_ERROR answering a header that failed
 * @h: the error header to encode
 * @failed: what rr_decode() got of the failing header (xid, vers)
 * @credit: this side's current grant
 * @st: rr_decode()'s verdict
 * @lim: this side's limits (ERR_VERS carries its version range)
 *
 * The error copies rdma_xid and rdma_vers (RPCRDMA2-ERR-2).  A version
 * whose layout this side does not know is answered in Version 1's, with
 * rdma_vers 1: words 0-3 are common to every version (RPCRDMA2-HDR-1).
 * A Version 1 answer has only ERR_VERS and ERR_CHUNK (RR_ERR_BAD_XDR):
 * every other error becomes ERR_CHUNK.
 *
 * Return: 0, or -EINVAL when the verdict is no error.
 */
int rr_set_error(struct rr_hdr *h, const struct rr_hdr *failed,
		 uint32_t credit, const struct rr_status *st,
		 const struct rr_limits *lim)
{
	uint32_t vers = failed->vers;

	if (!st->err)
		return -EINVAL;
	if (vers != RR_VERS_1 && vers != RR_VERS_2)
		vers = RR_VERS_1;
	rr_hdr_init(h, vers, failed->xid, credit, RR_ERROR);
	h->flags = vers == RR_VERS_2 ? RR_F_RESPONSE : 0;	/* HDR-6 */
	h->err = st->err;
	if (vers == RR_VERS_1 && st->err != RR_ERR_VERS)
		h->err = RR_ERR_BAD_XDR;
	switch (h->err) {
	case RR_ERR_VERS:
		h->err_a = lim->vers_low;
		h->err_b = lim->vers_high;
		break;
	case RR_ERR_READ_CHUNKS:
	case RR_ERR_WRITE_CHUNKS:
	case RR_ERR_SEGMENTS:
		h->err_a = st->arg;
		break;
	default:
		break;
	}
	return 0;
}

/**
 * rr_add_prop - add a known property to an RR_CONNPROP header
 * @h: header
 * @id: RR_PROP_RBSIZ or RR_PROP_BRS
 * @value: its value
 *
 * Return: 0; -EINVAL for an unknown id, a bad value or a duplicate;
 * -ENOSPC.
 */
int rr_add_prop(struct rr_hdr *h, uint32_t id, uint32_t value)
{
	struct rr_prop *p;

	if ((id != RR_PROP_RBSIZ && id != RR_PROP_BRS) ||
	    (id == RR_PROP_BRS && value > RR_BRS_GENL) || rr_find_prop(h, id))
		return -EINVAL;
	if (h->nprops == RR_MAX_PROPS)
		return -ENOSPC;
	p = &h->props[h->nprops++];
	p->id = id;
	p->value = value;
	p->present = true;
	return 0;
}

/**
 * rr_find_prop - a property a CONNPROP carried
 * @h: decoded header
 * @id: property
 *
 * Return: the property, or NULL when absent (its default applies and
 * may not change later, RPCRDMA2-CONNPROP-2).
 */
const struct rr_prop *rr_find_prop(const struct rr_hdr *h, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < h->nprops; i++)
		if (h->props[i].id == id)
			return &h->props[i];
	return NULL;
}

/* Linux encodes an inline size in 1 KiB units, minus one, in an octet. */
static uint8_t rr_cm_size(uint32_t size)
{
	if (size < 1024)
		return 0;
	if (size > 256 * 1024)
		return 255;
	return size / 1024 - 1;
}

/**
 * rr_cm_encode - Linux's RPC-over-RDMA connection private data
 * @out: 8 octets: magic, version 1, flags, send and receive sizes
 * @flags: RR_CM_F_SND_W_INV_OK when this side takes Send with Invalidate
 * @send_size: largest inline message this side sends
 * @recv_size: largest inline message this side receives
 */
void rr_cm_encode(uint8_t out[RR_CM_LEN], uint8_t flags, uint32_t send_size,
		  uint32_t recv_size)
{
	out[0] = (RR_CM_MAGIC >> 24) & 0xff;
	out[1] = (RR_CM_MAGIC >> 16) & 0xff;
	out[2] = (RR_CM_MAGIC >> 8) & 0xff;
	out[3] = RR_CM_MAGIC & 0xff;
	out[4] = RR_VERS_1;
	out[5] = flags;
	out[6] = rr_cm_size(send_size);
	out[7] = rr_cm_size(recv_size);
}

/**
 * rr_cm_decode - read a peer's connection private data
 * @pd: the private data of the connect request or accept
 * @len: its length (iWARP may pad it)
 * @flags: RR_CM_F_* the peer set
 * @send_size: the peer's largest inline send
 * @recv_size: the peer's largest inline receive
 *
 * Return: 0, or -ENOENT when it is not RPC-over-RDMA private data (the
 * Version 1 default, 1024 each way, applies).
 */
int rr_cm_decode(const void *pd, size_t len, uint8_t *flags,
		 uint32_t *send_size, uint32_t *recv_size)
{
	const uint8_t *b = pd;
	uint32_t magic;

	if (!pd || len < RR_CM_LEN)
		return -ENOENT;
	magic = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
		(uint32_t)b[2] << 8 | b[3];
	if (magic != RR_CM_MAGIC || b[4] != RR_VERS_1)
		return -ENOENT;
	*flags = b[5];
	*send_size = ((uint32_t)b[6] + 1) * 1024;
	*recv_size = ((uint32_t)b[7] + 1) * 1024;
	return 0;
}

/**
 * rr_err_name - an RR_ERR_* code's name
 * @err: code
 *
 * Return: a static string.
 */
const char *rr_err_name(uint32_t err)
{
	static const char * const names[] = {
		[RR_ERR_VERS] = "ERR_VERS",
		[RR_ERR_BAD_XDR] = "ERR_BAD_XDR",
		[RR_ERR_INVAL_HTYPE] = "ERR_INVAL_HTYPE",
		[RR_ERR_READ_CHUNKS] = "ERR_READ_CHUNKS",
		[RR_ERR_WRITE_CHUNKS] = "ERR_WRITE_CHUNKS",
		[RR_ERR_SEGMENTS] = "ERR_SEGMENTS",
		[RR_ERR_WRITE_RESOURCE] = "ERR_WRITE_RESOURCE",
		[RR_ERR_REPLY_RESOURCE] = "ERR_REPLY_RESOURCE",
		[RR_ERR_SYSTEM] = "ERR_SYSTEM",
	};

	if (err < sizeof(names) / sizeof(names[0]) && names[err])
		return names[err];
	return "ERR_UNKNOWN";
}
