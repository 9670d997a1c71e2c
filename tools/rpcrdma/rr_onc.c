// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ONC RPC messages and TCP calls for the RPC-over-RDMA tools (rr_onc.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rr_onc.h"

void rr_xdr_init(struct rr_xdr *x, void *buf, size_t len)
{
	x->p = buf;
	x->len = len;
	x->off = 0;
	x->bad = false;
}

static bool rr_xdr_room(struct rr_xdr *x, size_t n)
{
	if (x->bad || x->len - x->off < n) {
		x->bad = true;
		return false;
	}
	return true;
}

void rr_xdr_u32(struct rr_xdr *x, uint32_t v)
{
	uint8_t *b;

	if (!rr_xdr_room(x, 4))
		return;
	b = x->p + x->off;
	b[0] = v >> 24;
	b[1] = v >> 16;
	b[2] = v >> 8;
	b[3] = v;
	x->off += 4;
}

void rr_xdr_u64(struct rr_xdr *x, uint64_t v)
{
	rr_xdr_u32(x, v >> 32);
	rr_xdr_u32(x, (uint32_t)v);
}

/* Variable-length opaque: length word, data, zero padding to a word. */
void rr_xdr_opaque(struct rr_xdr *x, const void *d, uint32_t n)
{
	size_t pad = (4 - n % 4) % 4;

	rr_xdr_u32(x, n);
	if (!rr_xdr_room(x, (size_t)n + pad))
		return;
	memcpy(x->p + x->off, d, n);
	memset(x->p + x->off + n, 0, pad);
	x->off += n + pad;
}

uint32_t rr_xdr_get_u32(struct rr_xdr *x)
{
	const uint8_t *b;

	if (!rr_xdr_room(x, 4))
		return 0;
	b = x->p + x->off;
	x->off += 4;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

uint64_t rr_xdr_get_u64(struct rr_xdr *x)
{
	uint64_t hi = rr_xdr_get_u32(x);

	return hi << 32 | rr_xdr_get_u32(x);
}

/**
 * rr_xdr_get_opaque - a variable-length opaque in place
 * @x: stream
 * @n: out: its length
 * @max: the most the caller accepts; more marks the stream bad
 *
 * Return: the data, or NULL (stream bad).
 */
const uint8_t *rr_xdr_get_opaque(struct rr_xdr *x, uint32_t *n, uint32_t max)
{
	const uint8_t *d;

	*n = rr_xdr_get_u32(x);
	if (x->bad || *n > max) {
		x->bad = true;
		return NULL;
	}
	if (!rr_xdr_room(x, (size_t)*n + (4 - *n % 4) % 4))
		return NULL;
	d = x->p + x->off;
	x->off += *n + (4 - *n % 4) % 4;
	return d;
}

void rr_xdr_skip(struct rr_xdr *x, size_t n)
{
	if (rr_xdr_room(x, n))
		x->off += n;
}

/**
 * rr_rpc_call_hdr - an RPC Call header with AUTH_SYS (uid 0, gid 0)
 * @x: stream
 * @xid: transaction id
 * @prog: program
 * @vers: program version
 * @proc: procedure
 */
void rr_rpc_call_hdr(struct rr_xdr *x, uint32_t xid, uint32_t prog,
		     uint32_t vers, uint32_t proc)
{
	static const char host[] = "siw2-rr";

	rr_xdr_u32(x, xid);
	rr_xdr_u32(x, RR_RPC_CALL);
	rr_xdr_u32(x, 2);		/* rpcvers */
	rr_xdr_u32(x, prog);
	rr_xdr_u32(x, vers);
	rr_xdr_u32(x, proc);
	/* cred: AUTH_SYS { stamp, machinename, uid, gid, gids<> } */
	rr_xdr_u32(x, RR_AUTH_SYS);
	rr_xdr_u32(x, 4 + 4 + 8 + 4 + 4 + 4);
	rr_xdr_u32(x, 0);
	rr_xdr_opaque(x, host, sizeof(host) - 1);
	rr_xdr_u32(x, 0);
	rr_xdr_u32(x, 0);
	rr_xdr_u32(x, 0);
	/* verf: AUTH_NONE */
	rr_xdr_u32(x, RR_AUTH_NONE);
	rr_xdr_u32(x, 0);
}

/**
 * rr_rpc_reply_hdr - check an RPC Reply header up to the results
 * @x: stream at the reply's first word
 * @xid: the xid the reply must carry
 * @why: out: what was wrong
 * @wlen: size of @why
 *
 * Return: 0 with @x at the results, or -EPROTO (not a reply to @xid,
 * denied, or not SUCCESS).
 */
int rr_rpc_reply_hdr(struct rr_xdr *x, uint32_t xid, char *why, size_t wlen)
{
	uint32_t v[3], n;

	v[0] = rr_xdr_get_u32(x);
	v[1] = rr_xdr_get_u32(x);
	v[2] = rr_xdr_get_u32(x);	/* reply_stat */
	if (x->bad || v[0] != xid || v[1] != RR_RPC_REPLY) {
		snprintf(why, wlen, "not a reply to xid 0x%08x", xid);
		return -EPROTO;
	}
	if (v[2] != 0) {
		snprintf(why, wlen, "RPC denied (reject_stat %u)",
			 rr_xdr_get_u32(x));
		return -EPROTO;
	}
	rr_xdr_get_u32(x);			/* verf flavor */
	rr_xdr_get_opaque(x, &n, 400);		/* verf body */
	v[0] = rr_xdr_get_u32(x);		/* accept_stat */
	if (x->bad || v[0] != 0) {
		snprintf(why, wlen, "RPC not accepted (accept_stat %u)", v[0]);
		return -EPROTO;
	}
	return 0;
}

static int rr_tcp_connect(const char *host, uint16_t port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	char ps[8];
	int fd = -1;

	snprintf(ps, sizeof(ps), "%u", port);
	if (getaddrinfo(host, ps, &hints, &ai))
		return -EHOSTUNREACH;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd < 0 ? -ECONNREFUSED : fd;
}

static int rr_read_full(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t r;

	while (n) {
		if (poll(&pfd, 1, 10000) != 1)
			return -ETIMEDOUT;
		r = read(fd, p, n);
		if (r <= 0)
			return r ? -errno : -ECONNRESET;
		p += r;
		n -= r;
	}
	return 0;
}

/**
 * rr_rpc_tcp - one RPC over TCP with record marking
 * @host: server
 * @port: its TCP port
 * @call: the whole Call message
 * @clen: its length
 * @reply: buffer for the Reply message
 * @rmax: its size
 * @rlen: out: the Reply's length
 *
 * Return: 0 or a negative errno.
 */
int rr_rpc_tcp(const char *host, uint16_t port, const void *call, size_t clen,
	       void *reply, size_t rmax, size_t *rlen)
{
	uint8_t mark[4];
	uint32_t frag;
	size_t got = 0;
	int fd, rv = 0;

	fd = rr_tcp_connect(host, port);
	if (fd < 0)
		return fd;
	frag = htonl(0x80000000u | (uint32_t)clen);
	if (write(fd, &frag, 4) != 4 || write(fd, call, clen) != (ssize_t)clen) {
		rv = -EIO;
		goto out;
	}
	for (;;) {
		rv = rr_read_full(fd, mark, 4);
		if (rv)
			goto out;
		frag = (uint32_t)mark[0] << 24 | (uint32_t)mark[1] << 16 |
		       (uint32_t)mark[2] << 8 | mark[3];
		if ((frag & 0x7fffffffu) > rmax - got) {
			rv = -EMSGSIZE;
			goto out;
		}
		rv = rr_read_full(fd, (uint8_t *)reply + got, frag & 0x7fffffffu);
		if (rv)
			goto out;
		got += frag & 0x7fffffffu;
		if (frag & 0x80000000u)
			break;
	}
	*rlen = got;
out:
	close(fd);
	return rv;
}

/**
 * rr_rpc_getport - rpcbind's port for a program over TCP (PMAPPROC_GETPORT)
 * @host: server
 * @prog: program
 * @vers: version
 * @port: out: the port
 *
 * Return: 0, -ENOENT when not registered, or a negative errno.
 */
int rr_rpc_getport(const char *host, uint32_t prog, uint32_t vers,
		   uint16_t *port)
{
	uint8_t call[128], reply[128];
	struct rr_xdr x;
	size_t rlen;
	uint32_t p;
	char why[64];
	int rv;

	rr_xdr_init(&x, call, sizeof(call));
	rr_rpc_call_hdr(&x, 0x706d6170, RR_PROG_PORTMAP, 2, 3);
	rr_xdr_u32(&x, prog);
	rr_xdr_u32(&x, vers);
	rr_xdr_u32(&x, IPPROTO_TCP);
	rr_xdr_u32(&x, 0);
	rv = rr_rpc_tcp(host, 111, call, x.off, reply, sizeof(reply), &rlen);
	if (rv)
		return rv;
	rr_xdr_init(&x, reply, rlen);
	if (rr_rpc_reply_hdr(&x, 0x706d6170, why, sizeof(why)))
		return -EPROTO;
	p = rr_xdr_get_u32(&x);
	if (x.bad || p > 65535)
		return -EPROTO;
	if (!p)
		return -ENOENT;
	*port = p;
	return 0;
}
