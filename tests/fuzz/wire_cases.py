#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""wire_cases.py - what tests/fuzz/wire_fuzz.py sends, and what it expects.

The building blocks (DDP segments of named fields, so that one field can be
mutated; the expected responses) and the case generators: every case kind
of the wire fuzzer (tests/fuzz/README.md), drawn from a random.Random the
caller seeds.  A generator sees the connection through a few attributes
(rv, crc, feats, ird, mrs and the MSN counters msn0, msn1) and advances
the counters as the peer will.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "progs"))
import mpa_peer as mp  # noqa: E402

# What tests/progs/siw2_fuzz_target posts: 16 receives of 512 octets,
# each reposted when it completes (its regions come from its MR lines).
RECV_SIZE = 512
NRECV = 16
PING_STAG = 0xFE000000         # sink STags of pings: PING_STAG | n
CASE_STAG = 0x5A000000         # sink STags of the cases' Reads

OP_WRITE, OP_RREQ, OP_RRESP, OP_SEND, OP_SEND_INV, OP_SEND_SE, \
    OP_SEND_SE_INV, OP_TERM, OP_IMM, OP_IMM_SE, OP_ATOMIC, OP_ATOMIC_RESP, \
    OP_COMMIT, OP_COMMIT_RESP = range(14)
OP_READ2, OP_READ2_RESP, OP_SEND_IMM, OP_SEND_INV_IMM, OP_SEND_SE_IMM, \
    OP_SEND_SE_INV_IMM = range(0x11, 0x17)

# DIGEST 3.4: (layer, etype) -> codes (None: any).
TERM_CODES = {
    (0, 0): None, (0, 1): {0, 1, 2, 3, 4, 9, 0xFF}, (0, 2): {5, 6, 7, 8, 9, 0xFF},
    (1, 0): {0}, (1, 1): {0, 1, 2, 3, 4}, (1, 2): {1, 2, 3, 4, 5, 6},
    (2, 0): {1, 2, 3, 4, 5, 6, 7},
}


def mr_byte(seed, o):
    return (seed + 7 * o + (o >> 8)) & 0xFF


_MR_FILL = {}


def mr_bytes(seed, off, n):
    """Octets off..off+n of a region filled with @seed (regions are at
    most 64 KiB: the fill is computed once per seed)."""
    if off + n > 65536:
        return bytes(mr_byte(seed, o) for o in range(off, off + n))
    fill = _MR_FILL.get(seed)
    if fill is None:
        fill = _MR_FILL[seed] = bytes(mr_byte(seed, o) for o in range(65536))
    return fill[off:off + n]


class Fail(Exception):
    """A case's verdict: what siw2 did wrong."""


class Dead(Exception):
    """The connection ended (Terminate or close), as allowed."""



# --------------------------------------------------------------------------
# Messages: segments of named fields, so that one field can be mutated.

class Seg:
    """One DDP segment: header fields (name, struct format, value), then
    payload.  fields[0] is always the DDP control word."""

    def __init__(self, fields, payload=b""):
        self.fields = list(fields)
        self.payload = payload
        self.crc_bad = False

    def ulpdu(self):
        return b"".join(struct.pack(">" + f, v) for _, f, v in self.fields) + self.payload

    def fpdu(self, crc):
        u = self.ulpdu()
        body = struct.pack(">H", len(u) & 0xFFFF) + u + bytes(mp.pad_len(len(u)))
        c = mp.crc32c(body) if crc else 0
        if self.crc_bad:
            c ^= 0xFFFFFFFF if crc else 0x5A5A5A5A
        return body + struct.pack("<I", c)

    def set(self, name, value):
        for i, (n, f, _) in enumerate(self.fields):
            if n == name:
                self.fields[i] = (n, f, value)
                return


def ctrl(tagged, last, op, rv, dv=1):
    return (0x8000 if tagged else 0) | (0x4000 if last else 0) | (dv & 3) << 8 | \
        (rv & 3) << 6 | (op & (0x1F if rv == 2 else 0x0F))


def tagged(op, rv, stag, to, payload=b"", last=True):
    return Seg([("ctrl", "H", ctrl(True, last, op, rv)), ("stag", "I", stag),
                ("to", "Q", to)], payload)


def untagged(op, rv, qn, msn, mo, rest=(), payload=b"", last=True, inval=0):
    return Seg([("ctrl", "H", ctrl(False, last, op, rv)), ("inval", "I", inval),
                ("qn", "I", qn), ("msn", "I", msn), ("mo", "I", mo)] + list(rest),
               payload)




class Want:
    """An expected response."""

    def __init__(self, kind, ping=False, stag=0, to=0, length=0, data=None,
                 msn=0, req_id=None, status=None):
        self.kind = kind          # "rresp", "atomic", "commit", "read2"
        self.ping = ping
        self.stag, self.to, self.length, self.data = stag, to, length, data
        self.msn, self.req_id, self.status = msn, req_id, status
        self.got = 0

    def what(self):
        if self.kind == "rresp":
            return "Read Response stag=0x%08x to=0x%x len=%d (got %d)" % (
                self.stag, self.to, self.length, self.got)
        return "%s Response MSN %d" % (self.kind, self.msn)

    def accepts(self, d):
        op = d["op"]
        if self.kind == "rresp":
            return op == OP_RRESP and d["stag"] == self.stag
        want = {"atomic": OP_ATOMIC_RESP, "commit": OP_COMMIT_RESP, "read2": OP_READ2_RESP}
        return op == want[self.kind] and d["msn"] == self.msn

    def take(self, d):
        """True when this response is complete; Fail if it is wrong."""
        u = d["ulpdu"]
        if self.kind in ("rresp", "read2"):
            hdr = 14 if self.kind == "rresp" else 18
            pay = u[hdr:]
            off = d["to"] - self.to if self.kind == "rresp" else d["mo"]
            if off != self.got:
                raise Fail("%s segment at %d, want %d" % (self.what(), off, self.got))
            if self.got + len(pay) > self.length:
                raise Fail("%s longer than asked" % self.what())
            if self.data is not None and pay != self.data[self.got:self.got + len(pay)]:
                raise Fail("%s data differs at %d: got %s want %s" % (
                    self.what(), self.got, pay[:16].hex(),
                    self.data[self.got:self.got + 16].hex()))
            self.got += len(pay)
            if d["L"] != (self.got == self.length):
                raise Fail("%s: L=%d with %d of %d octets" % (self.what(), d["L"], self.got,
                                                              self.length))
            return bool(d["L"])
        if self.kind == "atomic":
            if len(u) != 30 or struct.unpack(">I", u[18:22])[0] != self.req_id:
                raise Fail("Atomic Response %s, want Request Identifier %d" % (u[18:].hex(),
                                                                               self.req_id))
        if self.kind == "commit":
            if len(u) != 26:
                raise Fail("Commit Response of %d octets" % len(u))
            rid, st = struct.unpack(">II", u[18:26])
            if rid != self.req_id or (self.status is not None and st != self.status):
                raise Fail("Commit Response id %d status %d, want id %d status %s" % (
                    rid, st, self.req_id, self.status))
        if not d["L"]:
            raise Fail("%s with L=0" % self.what())
        return True


# --------------------------------------------------------------------------
# Cases.

class Case:
    """Generated FPDUs and what they must cause.

    expect: "live" (answered, never Terminated), "term" (a Terminate must
    come), "any" (either, as long as every FPDU is well formed), "close"
    (we sent a Terminate: siw2 closes and sends nothing), "shut" (we
    close after a partial FPDU: siw2 closes, a Terminate first is fine)."""

    def __init__(self, kind, segs=(), wants=(), expect="live", code=None, raw=None):
        self.kind = kind
        self.segs = list(segs)
        self.wants = list(wants)
        self.expect = expect
        self.code = code          # (layer, etype, code) a "term" case must get
        self.raw = raw            # octets sent as they are (no FPDU building)
        self.chunks = 1
        self.exact = raw is None
        self.mutated = False


def rand_len(rng, hi):
    """Mostly small, sometimes at the edges."""
    r = rng.random()
    if r < 0.1:
        return 0
    if r < 0.2:
        return hi
    if r < 0.6:
        return rng.randint(1, min(hi, 64))
    return rng.randint(1, hi)


def split_len(rng, n, maxseg=3):
    """@n octets in 1..maxseg segment lengths (a zero-length message is one)."""
    k = rng.randint(1, maxseg) if n > 1 else 1
    if k == 1:
        return [n]
    cuts = sorted(rng.sample(range(1, n), min(k - 1, n - 1)))
    return [b - a for a, b in zip([0] + cuts, cuts + [n])]


def rbytes(rng, n):
    return rng.getrandbits(8 * n).to_bytes(n, "little") if n else b""


def region(c, name):
    return c.mrs[name]


def g_write(c, rng):
    name = rng.choice(["rw", "rw", "wo"])
    m = region(c, name)
    n = rand_len(rng, min(m["len"], 1200))
    off = rng.randint(0, m["len"] - n)
    segs, pos = [], 0
    data = rbytes(rng, n)
    parts = split_len(rng, n)
    for i, ln in enumerate(parts):
        segs.append(tagged(OP_WRITE, c.rv, m["stag"], m["addr"] + off + pos,
                           data[pos:pos + ln], last=i == len(parts) - 1))
        pos += ln
    return Case("write", segs)


def read_req(c, sink_stag, sink_to, size, src_stag, src_to):
    s = untagged(OP_RREQ, c.rv, 1, c.msn1, 0,
                 [("sink_stag", "I", sink_stag), ("sink_to", "Q", sink_to),
                  ("size", "I", size), ("src_stag", "I", src_stag), ("src_to", "Q", src_to)])
    c.msn1 += 1
    return s


def g_read(c, rng, nmax=None):
    segs, wants = [], []
    for _ in range(rng.randint(1, nmax or max(1, min(3, c.ird - 1)))):
        name = rng.choice(["ro", "ro", "rw"])
        m = region(c, name)
        n = rand_len(rng, min(m["len"], 1500))
        off = rng.randint(0, m["len"] - n)
        sink = CASE_STAG | rng.getrandbits(16)
        sto = rng.getrandbits(40)
        segs.append(read_req(c, sink, sto, n, m["stag"], m["addr"] + off))
        wants.append(Want("rresp", stag=sink, to=sto, length=n,
                          data=mr_bytes(m["seed"], off, n) if name == "ro" else None))
    return Case("read", segs, wants)


def send_segs(c, rng, op, n, inval=0, imm=None):
    """The segments of one Send-type message of @n payload octets; with
    @imm, a Send with Immediate: the 8 octets in a last segment at MO n."""
    data = rbytes(rng, n)
    parts = split_len(rng, n) if n else ([] if imm is not None else [0])
    segs, pos = [], 0
    for i, ln in enumerate(parts):
        last = imm is None and i == len(parts) - 1
        segs.append(untagged(op, c.rv, 0, c.msn0, pos, payload=data[pos:pos + ln],
                             last=last, inval=inval))
        pos += ln
    if imm is not None:
        segs.append(untagged(op, c.rv, 0, c.msn0, n, payload=imm, last=True, inval=inval))
    c.msn0 += 1
    return segs


def g_send(c, rng):
    op = rng.choice([OP_SEND, OP_SEND_SE])
    return Case("send", send_segs(c, rng, op, rand_len(rng, RECV_SIZE)))


def g_imm(c, rng):
    op = rng.choice([OP_IMM, OP_IMM_SE])
    s = untagged(op, c.rv, 0, c.msn0, 0, payload=rbytes(rng, 8))
    c.msn0 += 1
    return Case("imm", [s])


def g_send_imm(c, rng):
    op = rng.choice([OP_SEND_IMM, OP_SEND_SE_IMM])
    return Case("send-imm", send_segs(c, rng, op, rand_len(rng, RECV_SIZE - 8),
                                      imm=rbytes(rng, 8)))


def qn3_want(c, kind, **kw):
    """Its MSN is set when the case is sent (run_case)."""
    return Want(kind, **kw)


def g_atomic(c, rng, count=None):
    segs, wants = [], []
    m = region(c, "rw")
    for _ in range(count or rng.randint(1, max(1, min(2, c.ird - 1)))):
        rid = c.req_id
        c.req_id += 1
        to = m["addr"] + 8 * rng.randrange(m["len"] // 8)
        segs.append(untagged(OP_ATOMIC, c.rv, 1, c.msn1, 0, [
            ("aop", "I", rng.choice([0, 1, 2])), ("req_id", "I", rid),
            ("stag", "I", m["stag"]), ("ato", "Q", to),
            ("add_swap", "Q", rng.getrandbits(64)), ("add_swap_mask", "Q", rng.getrandbits(64)),
            ("cmp", "Q", rng.getrandbits(64)), ("cmp_mask", "Q", rng.getrandbits(64))]))
        c.msn1 += 1
        wants.append(qn3_want(c, "atomic", req_id=rid))
    return Case("atomic", segs, wants)


def g_commit(c, rng, count=None):
    segs, wants = [], []
    m = region(c, "rw")
    for _ in range(count or 1):
        rid = c.req_id
        c.req_id += 1
        n = rand_len(rng, m["len"])
        off = rng.randint(0, m["len"] - n)
        stag = m["stag"] if n or rng.random() < 0.5 else 0
        rest = [("req_id", "I", rid), ("cstag", "I", stag), ("clen", "I", n),
                ("cto", "Q", m["addr"] + off if stag else 0)]
        log = rng.random() < 0.4
        if log:
            rest += [("ltype", "H", 0x8001), ("lrsvd", "H", 0), ("lstag", "I", m["stag"]),
                     ("lto", "Q", m["addr"] + 8 * rng.randrange(m["len"] // 8)),
                     ("lvalue", "Q", rng.getrandbits(64))]
        segs.append(untagged(OP_COMMIT, c.rv, 1, c.msn1, 0, rest))
        c.msn1 += 1
        # The target's regions are ordinary memory: a range or log word in
        # them is visible, not durable (Status 4, SIW2-DEC-2); nothing to
        # commit at all is Status 0 (DEC-12).
        wants.append(qn3_want(c, "commit", req_id=rid, status=4 if n or log else 0))
    return Case("commit", segs, wants)


def g_read2(c, rng, count=None):
    segs, wants = [], []
    for _ in range(count or 1):
        name = rng.choice(["ro", "ro", "rw"])
        m = region(c, name)
        n = rand_len(rng, min(m["len"], 1500))
        off = rng.randint(0, m["len"] - n)
        segs.append(untagged(OP_READ2, c.rv, 1, c.msn1, 0, [
            ("size", "I", n), ("src_stag", "I", m["stag"]), ("src_to", "Q", m["addr"] + off)]))
        c.msn1 += 1
        wants.append(qn3_want(c, "read2", length=n,
                              data=mr_bytes(m["seed"], off, n) if name == "ro" else None))
    return Case("read2", segs, wants)


def valid_gens(c):
    g = [g_write, g_write, g_read, g_read, g_send, g_send]
    if "ext" in c.feats:
        g += [g_imm, g_atomic, g_atomic]
    if c.rv == 2:
        g += [g_send_imm, g_read2]
    if "commit" in c.feats:
        g += [g_commit, g_commit]
    return g


EDGE32 = [0, 1, 2, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFE, 0xFFFFFFFF]
EDGE64 = [0, 1, 1 << 63, (1 << 64) - 1, (1 << 64) - 8]


def edge(rng, fmt, cur):
    bits = {"B": 8, "H": 16, "I": 32, "Q": 64}[fmt]
    top = (1 << bits) - 1
    r = rng.random()
    if r < 0.35:
        return rng.choice([v & top for v in (EDGE64 if bits == 64 else EDGE32)] + [top])
    if r < 0.55:
        return (cur + rng.choice([-4096, -8, -1, 1, 8, 4096, 1 << 20])) & top
    if r < 0.7:
        return cur ^ (1 << rng.randrange(bits))
    return rng.getrandbits(bits)


def mutate_ctrl(rng, v):
    which = rng.randrange(6)
    if which == 0:
        return v ^ 0x8000                        # T
    if which == 1:
        return v ^ 0x4000                        # L
    if which == 2:
        return (v & ~0x0300) | rng.choice([0, 2, 3]) << 8   # DV
    if which == 3:
        return (v & ~0x00C0) | rng.choice([0, 1, 2, 3]) << 6  # RV
    if which == 4:
        return (v & ~0x001F) | rng.randrange(32)   # opcode, all 5 bits
    return v | rng.choice([0x2000, 0x1000, 0x0800, 0x0400, 0x0020])  # reserved


def g_mutate(c, rng):
    """A valid case with one field (or a few bits) changed; CRC still valid."""
    case = rng.choice(valid_gens(c))(c, rng)
    case.kind = "mut-" + case.kind
    case.wants, case.expect, case.mutated = [], "any", True
    seg = rng.choice(case.segs)
    how = rng.random()
    if how < 0.7:
        i = rng.randrange(len(seg.fields))
        name, fmt, cur = seg.fields[i]
        new = mutate_ctrl(rng, cur) if name == "ctrl" else edge(rng, fmt, cur)
        seg.fields[i] = (name, fmt, new)
        case.kind += ":" + name
    elif how < 0.85:
        u = bytearray(seg.ulpdu())
        for _ in range(rng.randint(1, 3)):
            u[rng.randrange(len(u))] ^= 1 << rng.randrange(8)
        seg.fields, seg.payload = [("ctrl", "H", u[0] << 8 | u[1])], bytes(u[2:])
        case.kind += ":bits"
    else:
        # payload length: shorter or longer than the message needs
        n = len(seg.payload)
        seg.payload = seg.payload[:rng.randint(0, n)] if n and rng.random() < 0.5 else \
            seg.payload + rbytes(rng, rng.choice([1, 7, 8, 100, 600]))
        case.kind += ":paylen"
    return case


def g_garbage(c, rng):
    """Random ULPDU octets behind a valid MPA header and CRC."""
    n = rng.choice([0, 1, 2, 13, 14, 17, 18, 22, 30, 46, 52, 70, rng.randint(0, 300)])
    s = Seg([("ctrl", "H", rng.getrandbits(16))], rbytes(rng, max(0, n - 2)))
    case = Case("garbage", [s], expect="any")
    return case


def g_truncated(c, rng):
    """A DDP header cut short by the MPA length (CRC valid)."""
    full = rng.choice(valid_gens(c))(c, rng).segs[0].ulpdu()
    n = rng.randint(0, min(len(full) - 1, 45))
    s = Seg([], full[:n])
    return Case("truncated", [s], expect="any")


def g_oversize(c, rng):
    """A segment beyond every bound: a Write past the region or a Send past
    the receive."""
    n = rng.choice([RECV_SIZE + 1, 4000, 9000, 16000, 16000, 65535 - 14])
    if rng.random() < 0.5:
        m = region(c, "rw")
        n = max(n, m["len"] + 1)
        s = tagged(OP_WRITE, c.rv, m["stag"], m["addr"], bytes(min(n, 65535 - 14)))
        return Case("oversize-write", [s], expect="term", code=(1, 1, 1))
    segs = send_segs(c, rng, OP_SEND, 0)
    segs[0].payload = bytes(min(n, 65535 - 18))
    return Case("oversize-send", segs, expect="term")


def g_fault(c, rng):
    """A fault the digest names, with the Terminate it must bring."""
    m = region(c, "rw")
    f = rng.randrange(12)
    if f == 0 and c.crc:
        case = g_write(c, rng)
        rng.choice(case.segs).crc_bad = True
        case.kind, case.expect, case.code, case.exact = "bad-crc", "term", (2, 0, 2), False
        return case
    if f <= 1:
        name = rng.choice(["ro", "none", "pd2", "dereg"])
        r = region(c, name)
        s = tagged(OP_WRITE, c.rv, r["stag"], r["addr"], rbytes(rng, rng.randint(1, 64)))
        return Case("write-" + name, [s], expect="term")
    if f == 2:
        to = m["addr"] + m["len"] - rng.randint(0, 8)
        s = tagged(OP_WRITE, c.rv, m["stag"], to, rbytes(rng, 16))
        return Case("write-bounds", [s], expect="term", code=(1, 1, 1))
    if f == 3:
        name = rng.choice(["none", "wo", "pd2", "dereg"])
        r = region(c, name)
        s = read_req(c, CASE_STAG, 0, 16, r["stag"], r["addr"])
        return Case("read-" + name, [s], expect="term")
    if f == 4:
        segs = send_segs(c, rng, OP_SEND, 0)
        segs[0].payload = rbytes(rng, RECV_SIZE + rng.randint(1, 600))
        return Case("send-long", segs, expect="term")
    if f == 5:
        msn = (c.msn0 + rng.choice([NRECV, NRECV + 1, 1000, -1])) & 0xFFFFFFFF
        s = untagged(OP_SEND, c.rv, 0, msn, 0, payload=rbytes(rng, 8))
        return Case("send-msn", [s], expect="term")
    if f == 6:
        s = untagged(OP_SEND, c.rv, rng.choice([3, 4, 7, 0xFFFFFFFF]), c.msn0, 0, payload=b"x")
        return Case("send-qn", [s], expect="term")
    if f == 7:
        s = tagged(OP_WRITE, c.rv, m["stag"], m["addr"], b"dv")
        s.set("ctrl", ctrl(True, True, OP_WRITE, c.rv, dv=rng.choice([0, 2, 3])))
        return Case("bad-dv", [s], expect="term")
    if f == 8:
        s = tagged(OP_WRITE, c.rv, m["stag"], m["addr"], b"rv")
        s.set("ctrl", ctrl(True, True, OP_WRITE, rng.choice([v for v in (0, 1, 2, 3) if v != c.rv])))
        return Case("bad-rv", [s], expect="term", code=(0, 2, 5))
    if f == 9:
        ops = [0xE, 0xF] + ([0x17, 0x1F] if c.rv == 2 else [0x13, 0x11])
        if "ext" not in c.feats:
            ops += [OP_IMM, OP_ATOMIC]
        if "commit" not in c.feats:
            ops += [OP_COMMIT]
        op = rng.choice(ops)
        s = untagged(op, c.rv, 1, c.msn1, 0, payload=bytes(52))
        s.set("ctrl", 0x4000 | 1 << 8 | c.rv << 6 | op)
        return Case("bad-op-0x%x" % op, [s], expect="term", code=(0, 2, 6))
    if f == 10:
        s = read_req(c, CASE_STAG, 0, 8, region(c, "ro")["stag"], region(c, "ro")["addr"])
        s.set("qn", rng.choice([0, 2, 3]))
        return Case("rreq-qn", [s], expect="term")
    return g_unsolicited(c, rng)


def g_unsolicited(c, rng):
    """A response to no request of siw2's (the target never posts one):
    a Read Response into any region, even one siw2 may write only
    locally, or a QN 3 response (DEC-8: 1/2/0x02 for those)."""
    kinds = ["rresp"] + (["atomic"] if "ext" in c.feats else []) + \
        (["commit"] if "commit" in c.feats else []) + (["read2"] if c.rv == 2 else [])
    k = rng.choice(kinds)
    if k == "rresp":
        name = rng.choice(["none", "ro", "rw", "recv", "pd2"])
        m = region(c, name)
        s = tagged(OP_RRESP, c.rv, m["stag"], m["addr"], rbytes(rng, rng.randint(0, 64)))
        return Case("unsolicited-rresp-" + name, [s], expect="term")
    if k == "atomic":
        s = untagged(OP_ATOMIC_RESP, c.rv, 3, 1, 0, [("req_id", "I", rng.getrandbits(32)),
                                                      ("value", "Q", rng.getrandbits(64))])
    elif k == "commit":
        s = untagged(OP_COMMIT_RESP, c.rv, 3, 1, 0, [("req_id", "I", rng.getrandbits(32)),
                                                      ("status", "I", 0)])
    else:
        s = untagged(OP_READ2_RESP, c.rv, 3, 1, 0, payload=rbytes(rng, 8))
    return Case("unsolicited-" + k, [s], expect="term", code=(1, 2, 2))


def g_flood(c, rng):
    """More outstanding requests than the IRD granted."""
    gens = [lambda: g_read(c, rng, 1)]
    if "ext" in c.feats:
        gens.append(lambda: g_atomic(c, rng, 1))
    if "commit" in c.feats:
        gens.append(lambda: g_commit(c, rng, 1))
    if c.rv == 2:
        gens.append(lambda: g_read2(c, rng, 1))
    segs, wants = [], []
    for _ in range(c.ird + rng.randint(1, 3)):
        one = rng.choice(gens)()
        segs += one.segs
        wants += one.wants
    return Case("flood", segs, wants, expect="any")


def g_peer_term(c, rng):
    ctl = rng.choice([(0, 2, 7), (1, 2, 3), (2, 0, 2), (rng.randrange(16), rng.randrange(16),
                                                       rng.randrange(256))])
    word = ctl[0] << 28 | ctl[1] << 24 | ctl[2] << 16
    s = untagged(OP_TERM, c.rv, 2, 1, 0, [("term", "I", word)])
    return Case("peer-term", [s], expect="close")


def g_partial(c, rng):
    case = rng.choice(valid_gens(c))(c, rng)
    raw = case.segs[0].fpdu(c.crc)
    return Case("partial-close", raw=raw[:rng.randint(1, len(raw) - 1)], expect="shut")


# Weights: about one case in four ends its connection, so connections
# carry several cases past their setup.
KINDS = [(g_mutate, 16), ("valid", 60), (g_fault, 8), (g_garbage, 3), (g_truncated, 2),
         (g_oversize, 2), (g_flood, 3), (g_peer_term, 1), (g_partial, 1)]


def gen_case(c, rng):
    total = sum(w for _, w in KINDS)
    r = rng.uniform(0, total)
    for g, w in KINDS:
        r -= w
        if r <= 0:
            break
    case = rng.choice(valid_gens(c))(c, rng) if g == "valid" else g(c, rng)
    if rng.random() < 0.25:
        case.chunks = rng.choice([2, 3, 4, 8, 16])
    return case
