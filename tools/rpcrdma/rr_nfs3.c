// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rr-nfs3: this library's client against an NFS server it did not write
 * (the kernel's nfsd): MOUNT over TCP for the export's root handle, then
 * over RPC-over-RDMA, offering Version 2 first: NFSv3 NULL (inline, and
 * as a Position-Zero Read chunk), GETATTR of the root (Reply chunk),
 * LOOKUP of FILE, GETATTR of it, and READ of all of it through Write
 * chunks and of its start inline; every byte compared with LOCAL, a
 * copy of the file.
 *
 *   rr-nfs3 [-v VERS] [-p PORT] [-t MS] SERVER EXPORT FILE LOCAL
 *
 * Exit 0 when everything matched; one line per step on stdout.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rr_onc.h"
#include "rpcrdma_xprt.h"

#define NFS3_OK		0
#define NF3DIR		2
#define NF3REG		1
#define FH_MAX		64
#define READ_CHUNK	(256 * 1024)
#define FATTR3_WORDS	21

struct fh {
	uint32_t len;
	uint8_t data[FH_MAX];
};

struct attr {
	uint32_t type;
	uint64_t size;
	uint64_t fileid;
};

static uint8_t callbuf[8192];
static uint8_t replybuf[65536];

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rr-nfs3: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void get_fattr(struct rr_xdr *x, struct attr *a)
{
	a->type = rr_xdr_get_u32(x);
	rr_xdr_skip(x, 4 * 4);		/* mode, nlink, uid, gid */
	a->size = rr_xdr_get_u64(x);
	rr_xdr_skip(x, 8 + 8 + 8);	/* used, rdev, fsid */
	a->fileid = rr_xdr_get_u64(x);
	rr_xdr_skip(x, 3 * 8);		/* atime, mtime, ctime */
}

static bool get_post_op_attr(struct rr_xdr *x, struct attr *a)
{
	if (!rr_xdr_get_u32(x))
		return false;
	get_fattr(x, a);
	return true;
}

static void get_fh(struct rr_xdr *x, struct fh *fh)
{
	const uint8_t *d = rr_xdr_get_opaque(x, &fh->len, FH_MAX);

	if (d)
		memcpy(fh->data, d, fh->len);
}

/* MOUNT v3 MNT over TCP (nfsd's mountd has no RDMA listener). */
static void mount_root(const char *host, const char *export, struct fh *fh)
{
	uint8_t call[1200], reply[1200];
	struct rr_xdr x;
	uint16_t port;
	size_t rlen;
	char why[96];
	int rv;

	rv = rr_rpc_getport(host, RR_PROG_MOUNT, 3, &port);
	if (rv)
		die("rpcbind: no MOUNT v3 on %s (%s)", host, strerror(-rv));
	rr_xdr_init(&x, call, sizeof(call));
	rr_rpc_call_hdr(&x, 0x6d6e7431, RR_PROG_MOUNT, 3, 1);
	rr_xdr_opaque(&x, export, strlen(export));
	rv = rr_rpc_tcp(host, port, call, x.off, reply, sizeof(reply), &rlen);
	if (rv)
		die("MOUNT over TCP: %s", strerror(-rv));
	rr_xdr_init(&x, reply, rlen);
	if (rr_rpc_reply_hdr(&x, 0x6d6e7431, why, sizeof(why)))
		die("MOUNT: %s", why);
	if (rr_xdr_get_u32(&x) != 0)
		die("MOUNT %s: refused", export);
	get_fh(&x, fh);
	if (x.bad)
		die("MOUNT %s: bad reply", export);
}

/*
 * call - one NFSv3 procedure over RDMA; @x is left at the results after
 * the nfsstat3, which is returned (or exit on a transport failure).
 */
static uint32_t call(struct rr_xprt *t, struct rr_call *c, struct rr_xdr *args,
		     uint32_t proc, struct rr_xdr *res)
{
	char why[96];
	int rv;

	c->msg = callbuf;
	c->msglen = args->off;
	if (!c->reply) {
		c->reply = replybuf;
		c->replymax = sizeof(replybuf);
	}
	rv = rr_xprt_call(t, c);
	if (rv)
		die("NFS procedure %u: %s", proc, t->err);
	rr_xdr_init(res, c->reply, c->replylen);
	if (rr_rpc_reply_hdr(res, t->xid, why, sizeof(why)))
		die("NFS reply: %s", why);
	return proc ? rr_xdr_get_u32(res) : NFS3_OK;
}

static void args_start(struct rr_xdr *a, uint32_t proc)
{
	rr_xdr_init(a, callbuf, sizeof(callbuf));
	rr_rpc_call_hdr(a, 0, RR_PROG_NFS, 3, proc);
}

static void do_null(struct rr_xprt *t, bool read_chunk)
{
	struct rr_call c = { .force_read = read_chunk };
	struct rr_xdr a, r;

	args_start(&a, 0);
	call(t, &c, &a, 0, &r);
	printf("NULL: ok (call %s, reply %s)\n", c.call_how, c.reply_how);
}

static void do_getattr(struct rr_xprt *t, const struct fh *fh, struct attr *at,
		       bool reply_chunk, const char *what)
{
	struct rr_call c = { .reply_chunk = reply_chunk };
	struct rr_xdr a, r;
	uint32_t st;

	args_start(&a, 1);
	rr_xdr_opaque(&a, fh->data, fh->len);
	st = call(t, &c, &a, 1, &r);
	if (st != NFS3_OK)
		die("GETATTR %s: nfsstat3 %u", what, st);
	get_fattr(&r, at);
	if (r.bad)
		die("GETATTR %s: short reply", what);
	printf("GETATTR %s: type %u size %llu fileid %llu (call %s, reply %s)\n", what,
	       at->type, (unsigned long long)at->size,
	       (unsigned long long)at->fileid, c.call_how, c.reply_how);
}

static void do_lookup(struct rr_xprt *t, const struct fh *dir, const char *name,
		      struct fh *out)
{
	struct rr_call c = { 0 };
	struct rr_xdr a, r;

	args_start(&a, 3);
	rr_xdr_opaque(&a, dir->data, dir->len);
	rr_xdr_opaque(&a, name, strlen(name));
	if (call(t, &c, &a, 3, &r) != NFS3_OK)
		die("LOOKUP %s: not found", name);
	get_fh(&r, out);
	if (r.bad)
		die("LOOKUP %s: bad reply", name);
	printf("LOOKUP %s: handle of %u octets\n", name, out->len);
}

/*
 * do_read - READ @count octets at @off into @buf; through a Write chunk
 * when @chunk (the DDP-eligible data item, RFC 8267), inline otherwise.
 * Return: octets read; *eof set.
 */
static uint32_t do_read(struct rr_xprt *t, const struct fh *fh, uint64_t off,
			uint32_t count, uint8_t *buf, bool chunk, bool *eof)
{
	struct rr_call c = { 0 };
	struct rr_xdr a, r;
	struct attr at;
	const uint8_t *d;
	uint32_t n, dl;

	args_start(&a, 6);
	rr_xdr_opaque(&a, fh->data, fh->len);
	rr_xdr_u64(&a, off);
	rr_xdr_u32(&a, count);
	if (chunk) {
		c.wdata = buf;
		c.wlen = count;
	}
	if (call(t, &c, &a, 6, &r) != NFS3_OK)
		die("READ: error status");
	get_post_op_attr(&r, &at);
	n = rr_xdr_get_u32(&r);
	*eof = rr_xdr_get_u32(&r);
	if (r.bad || n > count)
		die("READ: bad reply");
	if (chunk) {
		/* The reduced XDR stream keeps the data's length word. */
		if (r.off < r.len) {
			dl = rr_xdr_get_u32(&r);
			if (dl != n)
				die("READ: data length differs from count");
		}
		if (c.wgot < n || c.wgot > n + 3)
			die("READ: the write chunk holds other than count octets");
		return n;
	}
	d = rr_xdr_get_opaque(&r, &dl, count);
	if (!d || dl != n)
		die("READ: inline data missing");
	memcpy(buf, d, n);
	return n;
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot read %s", path);
	p = malloc(n + 1);
	if (!p || fread(p, 1, n, f) != (size_t)n)
		die("cannot read %s", path);
	fclose(f);
	*len = n;
	return p;
}

int main(int argc, char **argv)
{
	const char *port = "20049";
	uint32_t want = RR_VERS_2;
	int tmo = 10000, o;
	struct rr_xprt t = { 0 };
	struct fh root, file;
	struct attr at;
	uint8_t *local, *got;
	size_t llen, off = 0;
	uint32_t calls = 0, n;
	bool eof = false;

	while ((o = getopt(argc, argv, "v:p:t:")) != -1) {
		switch (o) {
		case 'v': want = atoi(optarg); break;
		case 'p': port = optarg; break;
		case 't': tmo = atoi(optarg); break;
		default: goto usage;
		}
	}
	if (argc - optind != 4) {
usage:
		fprintf(stderr, "usage: rr-nfs3 [-v VERS] [-p PORT] [-t MS] SERVER EXPORT FILE LOCAL\n");
		return 2;
	}
	local = slurp(argv[optind + 3], &llen);
	mount_root(argv[optind], argv[optind + 1], &root);
	printf("MOUNT %s: root handle of %u octets (TCP)\n", argv[optind + 1], root.len);

	if (rr_xprt_connect(&t, argv[optind], port, want, tmo))
		die("connect: %s", t.err);
	printf("version %u (offered %u", t.vers, want);
	if (t.peer_vers_high)
		printf("; ERR_VERS: the server speaks %u-%u", t.peer_vers_low, t.peer_vers_high);
	printf("), inline send %u, credits %u\n", t.send_inline, t.credits);

	do_null(&t, false);
	do_null(&t, true);
	do_getattr(&t, &root, &at, true, "/");
	if (at.type != NF3DIR)
		die("the export root is not a directory");
	do_lookup(&t, &root, argv[optind + 2], &file);
	do_getattr(&t, &file, &at, false, argv[optind + 2]);
	if (at.type != NF3REG || at.size != llen)
		die("%s: type %u size %llu, not a regular file of %zu octets",
		    argv[optind + 2], at.type, (unsigned long long)at.size, llen);

	got = calloc(1, llen + READ_CHUNK);
	if (!got)
		die("out of memory");
	while (!eof) {
		n = do_read(&t, &file, off, READ_CHUNK, got + off, true, &eof);
		off += n;
		calls++;
		if (!n && !eof)
			die("READ: no progress");
	}
	if (off != llen || memcmp(got, local, llen))
		die("READ %s: the data differs from %s", argv[optind + 2], argv[optind + 3]);
	printf("READ %s: %zu octets in %u calls through Write chunks, equal to the local copy\n",
	       argv[optind + 2], off, calls);
	n = do_read(&t, &file, 0, llen < 1000 ? llen : 1000, got, false, &eof);
	if (memcmp(got, local, n))
		die("inline READ of %s differs", argv[optind + 2]);
	printf("READ %s: %u octets inline, equal\n", argv[optind + 2], n);
	rr_xprt_close(&t);
	free(got);
	free(local);
	printf("ok\n");
	return 0;
}
