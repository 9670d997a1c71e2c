#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""wire_fuzz.py - a generating wire fuzzer against a live siw2 QP.

Plain TCP, Python 3 standard library; MPA framing, CRC32c and the FPDU
decoder come from tests/progs/mpa_peer.py.  The other end is
tests/progs/siw2_fuzz_target (one process, one QP per connection, memory
regions between guard areas; its stdout is read for the MR table and for
its per-connection verdict lines).  Everything is derived from --seed: the
connection number k draws from random.Random("SEED:k"), so one failing
connection replays alone with --only K.

  wire_fuzz.py fpdu --target-out FILE --seed S (--cases N | --conns N)
               (--connect HOST:PORT | --listen ADDR:PORT | --inject HOST:PORT)
               [--only K] [--jobs J]
  wire_fuzz.py handshake --target-out FILE --seed S --cases N
               (--connect HOST:PORT | --listen ADDR:PORT) [--only K] [--jobs J]
  wire_fuzz.py selftest

--jobs J: J processes ("lanes") at once, lane i taking connections (or
handshake cases) first+i, first+i+J, ...; each connection is the same as
with one lane (its numbers come from "SEED:k"), only their interleaving
differs.  The target needs --slots J or more.  With several lanes a guard
failure shows on the connection that ends next, not necessarily the one
that caused it: --only K, one lane, tells which.

--connect: the fuzzer is the MPA Initiator, siw2 (target --listen) the
Responder.  --listen: the other way round (target --connect).  --inject
(fpdu only; target --inject, a module built with SIW2_FUZZ=1): no TCP
connection, MPA exchange or QP per connection.  Each lane holds one
control connection to the target, whose QP the module's fuzz file puts
into RTS again for every connection, as the MPA exchange drawn from the
seed would have left it (siw2 the Responder; no peer-to-peer); the
fuzzer's sends go to the QP's receive engine as TCP segments, cut where
they would be cut, and its answers come back once siw2 has nothing left
to do, so silence is known at once instead of after a timeout.  The
cases and checks are the same.

fpdu mode, per connection: an MPA exchange drawn from the seed (Rev 1 or 2,
CRC on or off, siw2's capability bits 0x4 RDMAP v2 and 0x2 Commit or
not, peer-to-peer with a Write or Read RTR or not); a probe (an RDMA Write
of 16 random octets to the rw region and a Read Request of them, checked
byte for byte: the fresh QP works); then up to 48 cases, each one to
several generated FPDUs followed by a ping (a Read Request of 1..8 octets
of the read-only region, whose Read Response must come back exact).  The
connection ends at the first Terminate, close, or after its cases.  Case
kinds: valid operations of every opcode (Write, Read, Send and its SE and
Invalidate variants, Immediate Data, Atomic, Commit with and without the
log update, Read V2, Send with Immediate), the same with one header field
at an edge or random value (DDP control bits, opcode, RV, DV, STag, TO,
QN, MSN, MO, Invalidate STag, sizes, atomic operands), random bit flips,
random ULPDU octets, truncated and oversized segments, bad CRCs, Send MSN
and MO out of order, Read/Atomic/Commit/Read V2 floods beyond IRD, a
Terminate from us, a partial FPDU and close; any of them split over many
TCP segments or coalesced with the next.

Checked for every case (a failure prints "FAIL seed=S conn=K case=C"):
  - every FPDU siw2 sends is well formed: length, CRC when negotiated,
    DDP version 1, the connection's RDMAP version, an opcode a Responder
    sends (Read Response, Terminate, Atomic/Commit/Read V2 Response);
  - responses come in request order: Read Responses with the requested
    STag, TO and length (exact data where the source is known), QN 3
    responses with MSN 1, 2, 3, ... and the Request Identifier;
  - a Terminate has QN 2, MSN 1, MO 0, L=1, a Layer/EType/Code of DIGEST
    3.4, headers echoed as sent where it includes them, nothing after it,
    and the TCP connection closes;
  - valid operations are answered and never Terminated; faults the
    digest names (bad CRC, a bad, foreign, dead or read-only STag, out of
    bounds, a bad version, opcode, QN or MSN, a Send too long for the
    receive, an extension not negotiated) are Terminated;
  - no silence: the ping is answered, or a Terminate or a close comes,
    within the time limit (10 s times SIW2_TIMEOUT_SCALE);
  - the target's CONN line: established, QP in ERR, every receive
    completed, guards intact (the regions without remote write rights and
    64 KiB... see siw2_fuzz_target.c), no HANG.

handshake mode: each case is one TCP connection with a mutated MPA
Request (--connect) or Reply (--listen): key, flags, revision, private
data length (short, long, lying), enhanced data (IRD/ORD edges, P2P and
RTR bits), truncation with or without close, garbage after the frame,
slow delivery.  siw2 must answer with a well-formed Reply, a Terminate or
a close, or go on waiting for octets that are missing (we then close);
every 25 cases a valid connection with the probe proves the device works.

Output: one line per connection ("CONN k ..."), "FAIL ..." lines, and a
summary "FUZZ <mode> seed=S conns=N cases=N fpdus=N fail=N terms=N ...".
Exit 0 = no failure, 1 = failures, 2 = usage.
"""

import json
import os
import random
import signal
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "progs"))
import mpa_peer as mp  # noqa: E402
from wire_cases import (  # noqa: E402
    Case, Dead, Fail, OP_ATOMIC_RESP, OP_COMMIT_RESP, OP_READ2_RESP, OP_RREQ, OP_RRESP,
    OP_TERM, OP_WRITE, PING_STAG, TERM_CODES, Want, g_read, g_write, gen_case, mr_bytes,
    rbytes, read_req, tagged, untagged)

MAX_FAILS = 50                 # a run stops after this many
SCALE = float(os.environ.get("SIW2_TIMEOUT_SCALE", "1") or 1)
WAIT = 10.0 * SCALE            # for an answer, a Terminate or a close
CLOSE_WAIT = 10.0 * SCALE      # for the close after a Terminate
TARGET_WAIT = 15.0 * SCALE     # for the target's CONN line


# --------------------------------------------------------------------------
# Target output.

def parse_kv(line):
    d = {}
    for w in line.split()[1:]:
        if "=" in w:
            k, v = w.split("=", 1)
            d[k] = v
    return d


class Target:
    """The target's stdout file, read as it grows."""

    def __init__(self, path):
        self.path = path
        self.pos = 0
        self.lines = []
        self.mrs = {}
        self.f = None             # open in this process (lanes fork)
        self.fpid = None
        self.part = b""

    def poll(self):
        try:
            if self.fpid != os.getpid():
                # A forked lane: its own descriptor, so its own offset.
                self.f = open(self.path, "rb")
                self.f.seek(self.pos)
                self.fpid = os.getpid()
                self.part = b""
            data = self.f.read()
        except OSError:
            return
        if not data:
            return
        data = self.part + data
        # Only whole lines.
        cut = data.rfind(b"\n") + 1
        self.part = data[cut:]
        self.pos += cut
        for line in data[:cut].decode(errors="replace").splitlines():
            self.lines.append(line)
            if line.startswith("MR "):
                kv = parse_kv(line)
                self.mrs[kv["name"]] = {"stag": int(kv["stag"], 16),
                                        "addr": int(kv["addr"], 16),
                                        "len": int(kv["len"]),
                                        "seed": int(kv["seed"], 16)}

    def wait(self, pred, secs):
        deadline = time.monotonic() + secs
        while True:
            self.poll()
            for i, line in enumerate(self.lines):
                if pred(line):
                    return self.lines.pop(i)
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.005)



# --------------------------------------------------------------------------
# One connection's state.

class Conn:
    def __init__(self, k, rng, mrs, sock, rv, crc, feats, ird, msn1):
        self.k = k
        self.rng = rng
        self.mrs = mrs
        self.sock = sock
        self.buf = b""
        self.closed = None
        self.rv = rv
        self.crc = crc
        self.feats = feats        # {"ext", "commit"}
        self.ird = ird
        self.msn0 = 1             # next Send MSN (QN 0)
        self.msn1 = msn1          # next request MSN (QN 1)
        self.qn3 = 1              # next QN 3 response MSN
        self.pending = []         # expected responses, in order
        self.loose = False        # responses to mutated requests allowed
        self.sent = []            # FPDUs of the current case (for echo checks)
        self.pings = 0
        self.terms = 0
        self.fpdus = 0            # generated FPDUs sent
        self.req_id = 1
        self.gen_qn3 = 1          # QN 3 MSN of the next generated request
        self.tainted = False      # a mutated case survived: no strict outcomes
        self.exact = True
        self.setup = True         # before the probe (RTR exchange)
        self.lane = 0             # its probe slot (wire_fuzz.py --jobs)

    # -- wire
    def send(self, data, chunks=1):
        if chunks <= 1 or len(data) < 2:
            parts = [data]
        else:
            cuts = sorted(self.rng.sample(range(1, len(data)), min(chunks - 1, len(data) - 1)))
            parts = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
        for p in parts:
            try:
                self.sock.sendall(p)
            except OSError as e:
                # The peer may have closed on an earlier FPDU: what it
                # sent before is still to be read.
                self.closed = self.closed or "send:%s" % (e.strerror or e)
                return False
        return True

    def _recv(self, deadline):
        if self.closed and not self.closed.startswith("send:"):
            return False
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        self.sock.settimeout(left)
        try:
            data = self.sock.recv(65536)
        except socket.timeout:
            return False
        except ConnectionResetError:
            self.closed = "rst"
            return False
        except OSError as e:
            self.closed = "error:%s" % (e.strerror or e)
            return False
        if not data:
            self.closed = "fin"
            return False
        self.buf += data
        return True

    def next_fpdu(self, deadline):
        """The next FPDU siw2 sent (decoded), or None: closed (self.closed
        set) or nothing before @deadline."""
        while len(self.buf) < 2:
            if not self._recv(deadline):
                if self.buf and self.closed:
                    raise Fail("%d trailing octets before the close" % len(self.buf))
                return None
        n = mp.fpdu_size(self.buf)
        while len(self.buf) < n:
            if not self._recv(deadline):
                if self.closed:
                    raise Fail("an incomplete FPDU (%d of %d octets) before the close" %
                               (len(self.buf), n))
                return None
        raw, self.buf = self.buf[:n], self.buf[n:]
        d = mp.decode_fpdu(raw)
        d["raw"] = raw
        self.check_frame(d)
        return d

    # -- checks
    def check_frame(self, d):
        """Well formed, from a Responder.  RTRs and a Terminate before the
        connection is in RDMA mode may carry RDMAP version 1 (RFC 6581
        predates version 2; DEC-4 settles the version with the Reply)."""
        if self.crc and d["crc"] != "ok":
            raise Fail("CRC %s on a connection with CRC: %s" % (d["crc"], d["text"]))
        if d["len"] < 14 or d.get("op") is None:
            raise Fail("a runt FPDU from siw2: %s" % d["text"])
        if d["dv"] != 1:
            raise Fail("DDP version %d: %s" % (d["dv"], d["text"]))
        if d["rv"] != self.rv and not (self.setup and d["rv"] == 1):
            raise Fail("RDMAP version %d on an RV %d connection: %s" % (d["rv"], self.rv, d["text"]))
        op = d["op"]
        if op == OP_RRESP:
            if not d["T"]:
                raise Fail("an untagged Read Response: %s" % d["text"])
        elif op in (OP_TERM, OP_ATOMIC_RESP, OP_COMMIT_RESP, OP_READ2_RESP):
            if d["T"] or "qn" not in d:
                raise Fail("a tagged or short %s: %s" % (mp.OPNAMES[op], d["text"]))
            if op == OP_ATOMIC_RESP and "ext" not in self.feats or \
                    op == OP_COMMIT_RESP and "commit" not in self.feats or \
                    op == OP_READ2_RESP and self.rv != 2:
                raise Fail("%s on a connection without it" % mp.OPNAMES[op])
        elif self.setup and op in (OP_WRITE, OP_RREQ):
            pass                  # its RTR, checked by accept_responder
        else:
            raise Fail("siw2 sent opcode 0x%x, which a responder never sends: %s" %
                       (op, d["text"]))

    def check_term(self, d):
        u = d["ulpdu"]
        if d["len"] < 22 or d["qn"] != 2 or d["msn"] != 1 or d["mo"] != 0 or not d["L"]:
            raise Fail("a Terminate with a bad header (QN 2, MSN 1, MO 0, L=1): %s" % d["text"])
        t = mp.decode_term_ctrl(u[18:22])
        t["rest"] = u[22:]
        key = (t["layer"], t["etype"])
        if key not in TERM_CODES or (TERM_CODES[key] is not None and
                                     t["code"] not in TERM_CODES[key]):
            raise Fail("a Terminate code not in DIGEST 3.4: %d/%d/0x%02x" %
                       (t["layer"], t["etype"], t["code"]))
        if (t["D"] or t["R"]) and self.exact:
            probs = None
            for f in self.sent:
                p = mp.term_echo_problems(t, "rfc", f)
                if not p:
                    probs = None
                    break
                probs = probs or p
            if probs:
                raise Fail("Terminate %d/%d/0x%02x echoes no FPDU of the case: %s" %
                           (t["layer"], t["etype"], t["code"], "; ".join(probs)))
        self.terms += 1
        return t

    def after_term(self, t):
        """Nothing may follow a Terminate but the close."""
        d = self.next_fpdu(time.monotonic() + CLOSE_WAIT)
        if d is not None:
            raise Fail("an FPDU after the Terminate: %s" % d["text"])
        if not self.closed:
            raise Fail("no close within %.0fs of the Terminate %d/%d/0x%02x" %
                       (CLOSE_WAIT, t["layer"], t["etype"], t["code"]))
        raise Dead("term %d/%d/0x%02x" % (t["layer"], t["etype"], t["code"]))

    def match(self, d):
        """Match a response against the pending list."""
        op = d["op"]
        if op != OP_RRESP:
            if d["msn"] != self.qn3 or d["qn"] != 3 or d["mo"] != 0 and op != OP_READ2_RESP:
                raise Fail("QN 3 response with QN %d MSN %d MO %d, want QN 3 MSN %d: %s" %
                           (d["qn"], d["msn"], d["mo"], self.qn3, d["text"]))
            if d["L"] or op != OP_READ2_RESP:
                self.qn3 += 1
        head = self.pending[0] if self.pending else None
        if head is None or not head.accepts(d):
            if self.loose:
                # An answer to a mutated request (well formed, checked).
                return
            raise Fail("unexpected response (waiting for %s): %s" %
                       (head.what() if head else "nothing", d["text"]))
        if head.take(d):
            self.pending.pop(0)
            return head


# --------------------------------------------------------------------------
# --inject: the QP's stream through the target's control connection.

class InjectLink:
    """A lane's control connection to siw2_fuzz_target --inject (its
    header comment has the records)."""

    TRIES = 5

    def __init__(self, addr):
        self.arming = False       # an arm's answer is still to be read
        for attempt in range(1, self.TRIES + 1):
            try:
                self.sock = socket.create_connection(addr, timeout=TARGET_WAIT)
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.sock.settimeout(WAIT * 3)
                # A no-op ('E' with nothing armed): the target answers.
                t, h, _ = self.call("E")
                if t == "O":
                    return
                why = "answered %r" % t
            except (OSError, Fail) as e:
                why = str(e)
            self.sock.close()
            if attempt == self.TRIES:
                raise Fail("no control connection to the target after %d attempts: %s" % (
                    attempt, why))
            # QEMU's user-mode NIC resets a forwarded connection it could
            # not open to the guest (24 lanes at once, 3 of them): the
            # target never answered, so no case ran on it.
            print("RETRY control connection (attempt %d of %d): %s, before the target "
                  "answered anything" % (attempt, self.TRIES, why), flush=True)
            time.sleep(0.5)

    def _read(self, n):
        b = b""
        while len(b) < n:
            d = self.sock.recv(n - len(b))
            if not d:
                raise Fail("the target closed the control connection")
            b += d
        return b

    def _reply(self, typ):
        try:
            h = self._read(8)
            return chr(h[0]), h[1:4], self._read(struct.unpack(">I", h[4:8])[0])
        except socket.timeout:
            raise Fail("the target did not answer a '%s' record within %.0fs: "
                       "siw2 never settled" % (typ, WAIT * 3))

    def call(self, typ, payload=b""):
        """Send a record; return (type, header octets 1..3, payload).  An
        arm's answer, not yet read, is read first (arm() does not wait)."""
        self.sock.sendall(struct.pack(">B3xI", ord(typ), len(payload)) + payload)
        armed = self._armed() if self.arming else None
        r = self._reply(typ)
        if armed:
            raise Fail(armed)
        return r

    def finish(self):
        """The lane's last connection ends; so does the link."""
        try:
            self.call("E")
        finally:
            self.sock.close()

    def arm(self, k, rev, crc, caps, ird, ord_):
        """Ask for the QP in RTS; its answer is read with the next record's,
        which goes out at once behind it: one round trip for both."""
        if self.arming:
            err = self._armed()
            if err:
                raise Fail(err)
        self.sock.sendall(struct.pack(">B3xI", ord("A"), 12) +
                          struct.pack(">5B3xI", rev, crc, caps, ird, ord_, k & 0xFFFFFFFF))
        self.arming = True

    def _armed(self):
        """The pending arm's answer: None, or what went wrong."""
        self.arming = False
        t, _, pl = self._reply("A")
        err = struct.unpack(">I", pl[:4])[0] if t == "R" and len(pl) == 4 else -1
        if err:
            return "the target could not arm its QP (%s)" % (
                os.strerror(err) if err > 0 else "reply %r" % t)
        return None


class InjectSock:
    """What Conn needs of a socket, over an InjectLink: sends gather as
    segments until the next recv() hands them over and takes siw2's
    answer; with nothing buffered and the connection up, recv() times out
    at once (the target waited until siw2 had nothing left to do)."""

    SEG = 65536                   # the fuzz file's largest segment
    BATCH = 1 << 20               # and its largest input at once

    def __init__(self, link):
        self.link = link
        self.segs = []
        self.rbuf = b""
        self.ended = False

    def settimeout(self, t):
        pass

    def sendall(self, data):
        if self.ended:
            raise BrokenPipeError(32, "Broken pipe")
        data = bytes(data)
        for i in range(0, len(data), self.SEG):
            self.segs.append(data[i:i + self.SEG])

    def _exchange(self, typ, payload=b""):
        t, h, out = self.link.call(typ, payload)
        if t != "O":
            raise Fail("the target answered '%s' with %r" % (typ, t))
        self.rbuf += out
        self.ended = self.ended or bool(h[0])

    def _flush(self):
        # A 'D' record carries at most 1 MiB (the fuzz file's limit).
        batch, size = [], 0
        for g in self.segs + [None]:
            if batch and (g is None or size + 4 + len(g) > self.BATCH):
                if not self.ended:
                    self._exchange("D", b"".join(batch))
                batch, size = [], 0
            if g is not None:
                batch.append(struct.pack(">I", len(g)) + g)
                size += 4 + len(g)
        self.segs = []

    def recv(self, n):
        self._flush()
        if self.rbuf:
            d, self.rbuf = self.rbuf[:n], self.rbuf[n:]
            return d
        if self.ended:
            return b""
        raise socket.timeout("siw2 has nothing more to say")

    def shutdown(self, how):
        self._flush()
        if not self.ended:
            self._exchange("S")

    def close(self):
        # The target ends a connection still up when the next one is
        # armed ('A'), or at the lane's 'E': a round trip saved.
        self.segs = []
        self.ended = True


def inject_conn(k, rng, mrs, link):
    """The QP in RTS as an MPA exchange drawn from the seed leaves it: a
    Conn.  Peer-to-peer and its RTRs are --connect's to test."""
    p = mpa_params(rng)
    caps = p["caps"] & 6 if p["rev"] == 2 else 0
    feats = conn_feats(caps)
    # siw2's IRD: 2 at least, as over TCP (its Reply's), since a valid
    # case may have a Read outstanding with the ping.
    ird = max(2, p["ird"])
    link.arm(k, p["rev"], int(p["crc"]), caps, ird, p["ord"])
    c = Conn(k, rng, mrs, InjectSock(link), 2 if "v2" in feats else 1, p["crc"], feats,
             ird, 1)
    c.desc = "inject rev=%d crc=%d feats=%s ird=%d" % (
        p["rev"], p["crc"], ",".join(sorted(feats)) or "-", ird)
    return c


# --------------------------------------------------------------------------
# Running cases.

def ping_seg(c):
    """A Read Request of 1..8 octets of the read-only region, and its Want."""
    m = c.mrs["ro"]
    n = c.rng.randint(1, 8)
    off = c.rng.randint(0, m["len"] - n)
    c.pings += 1
    stag = PING_STAG | (c.pings & 0xFFFF)
    s = read_req(c, stag, c.pings << 4, n, m["stag"], m["addr"] + off)
    return s, Want("rresp", ping=True, stag=stag, to=c.pings << 4, length=n,
                   data=mr_bytes(m["seed"], off, n))


def run_case(c, case):
    """Send @case (and a ping), read until the ping's answer.  Raises Fail
    (siw2 misbehaved), Dead (the connection ended as allowed)."""
    strict = not c.tainted
    c.exact = case.exact
    # An "any" case may or may not be taken (a truncated Send still
    # consumes its MSN, random octets may form a valid message): what it
    # is answered with, and the connection's counters after it, are open.
    c.loose = case.mutated or case.expect == "any" or c.tainted
    for w in case.wants:
        if w.kind != "rresp":
            w.msn = c.gen_qn3
            c.gen_qn3 += 1
    if case.raw is not None:
        frames = [case.raw]
    else:
        frames = [s.fpdu(c.crc) for s in case.segs]
    c.fpdus += max(1, len(case.segs))
    c.sent = frames[:]
    data = b"".join(frames)
    ping = None
    if case.expect not in ("close", "shut"):
        ps, ping = ping_seg(c)
        pf = ps.fpdu(c.crc)
        c.sent.append(pf)
        data += pf
    c.pending = [] if c.loose else list(case.wants)
    if ping:
        c.pending.append(ping)
    c.send(data, case.chunks)
    if case.expect == "shut":
        try:
            c.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
    deadline = time.monotonic() + WAIT
    while True:
        d = c.next_fpdu(deadline)
        if d is None:
            if not c.closed:
                raise Fail("no answer, Terminate or close within %.0fs (waiting for %s)" % (
                    WAIT, c.pending[0].what() if c.pending else "the close"))
            if case.expect in ("close", "shut"):
                raise Dead("closed")
            raise Fail("closed (%s) without a Terminate%s" % (
                c.closed, ", waiting for " + c.pending[0].what() if c.pending else ""))
        if d["op"] == OP_TERM:
            t = c.check_term(d)
            got = (t["layer"], t["etype"], t["code"])
            if case.expect == "close":
                raise Fail("a Terminate %d/%d/0x%02x answered our Terminate" % got)
            if strict and case.expect == "live":
                raise Fail("a valid %s Terminated: %d/%d/0x%02x" % ((case.kind,) + got))
            if strict and case.code and got != case.code:
                raise Fail("Terminate %d/%d/0x%02x, want %d/%d/0x%02x" % (got + case.code))
            c.after_term(t)
        if case.expect in ("close", "shut"):
            raise Fail("an FPDU after our %s: %s" % (case.expect, d["text"]))
        w = c.match(d)
        if w is not None and w.ping:
            break
    if case.expect == "term" and strict:
        raise Fail("no Terminate for the fault %s (the ping was answered)" % case.kind)
    if c.loose:
        c.tainted = True
        c.gen_qn3 = c.qn3


def probe(c):
    """The fresh QP places a Write and answers a Read of it, in the probe
    region's 16 octets of this lane, which nothing else writes."""
    c.setup = False
    m = c.mrs["probe"]
    off = 16 * c.lane
    data = rbytes(c.rng, 16)
    w = tagged(OP_WRITE, c.rv, m["stag"], m["addr"] + off, data)
    sink = 0xC0DE0000 | (c.k & 0xFFFF)
    r = read_req(c, sink, 0x1000, 16, m["stag"], m["addr"] + off)
    c.pending = [Want("rresp", ping=True, stag=sink, to=0x1000, length=16, data=data)]
    c.sent = [w.fpdu(c.crc), r.fpdu(c.crc)]
    c.loose, c.exact = False, True
    c.send(b"".join(c.sent))
    deadline = time.monotonic() + WAIT
    while True:
        d = c.next_fpdu(deadline)
        if d is None:
            raise Fail("probe: no Read Response (%s)" % (c.closed or "timeout"))
        if d["op"] == OP_TERM:
            t = c.check_term(d)
            raise Fail("probe: Terminated %d/%d/0x%02x" % (t["layer"], t["etype"], t["code"]))
        w = c.match(d)
        if w is not None:
            return


def mpa_params(rng):
    rev = rng.choice([1, 2, 2, 2])
    p = {"rev": rev, "crc": rng.random() < 0.5,
         "caps": rng.choice([0, 2, 4, 6, 6]) if rev == 2 else 0,
         "p2p": rev == 2 and rng.random() < 0.4,
         "ird": rng.choice([1, 2, 4, 8, 16]), "ord": rng.choice([1, 2, 4, 8, 16])}
    p["rtr"] = rng.choice([("write",), ("read",), ("write", "read")]) if p["p2p"] else ()
    return p


def read_frame(conn_sock, deadline):
    """An MPA Request/Reply frame: (rr dict or None, raw octets)."""
    buf = b""
    while True:
        if len(buf) >= 20:
            need = 20 + struct.unpack(">H", buf[18:20])[0]
            if len(buf) >= need or buf[:16] not in (mp.KEY_REQ, mp.KEY_REP) and \
                    len(buf) >= 2 + struct.unpack(">H", buf[:2])[0] + 4:
                rr = mp.parse_rr(buf[:20], buf[20:need])
                rr["raw"] = buf
                return rr, buf[need:]
        left = deadline - time.monotonic()
        if left <= 0:
            return None, buf
        conn_sock.settimeout(left)
        try:
            d = conn_sock.recv(4096)
        except (socket.timeout, OSError):
            return None, buf
        if not d:
            return None, buf
        buf += d


def tag_pd(k):
    """ULP private data naming our connection number: the target prints
    it in its verdict line (tag=K), so verdicts need not be waited for."""
    return b"FZ" + struct.pack(">I", k & 0xFFFFFFFF)


def conn_feats(bits):
    """What an acknowledged capability exchange enables (siw2_conn_feat()):
    any bit means a siw2 peer, which takes the RFC 7306 messages ("ext")
    even on RV 1; 0x4 RDMAP v2 ("v2"), 0x2 Commit ("commit")."""
    f = set()
    if bits:
        f.add("ext")
    if bits & 4:
        f.add("v2")
    if bits & 2:
        f.add("commit")
    return f


def connect_initiator(k, rng, mrs, addr):
    """TCP connect, our Request, siw2's Reply, the RTR: a Conn."""
    p = mpa_params(rng)
    sock = socket.create_connection(addr, timeout=WAIT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pd = mp.enh_data(p["ird"], p["ord"], p["p2p"], p["rtr"]) if p["rev"] == 2 else b""
    pd += tag_pd(k)
    req = mp.build_rr(mp.KEY_REQ, rev=p["rev"], c=p["crc"], s=p["rev"] == 2,
                      caps=p["caps"], pd=pd)
    sock.sendall(req)
    rep, rest = read_frame(sock, time.monotonic() + WAIT)
    if rep is None or rep["key"] != mp.KEY_REP or rep["R"] or rep["M"] or rep["rev"] != p["rev"]:
        sock.close()
        raise Fail("no accepting MPA Reply to a valid Request (%s): %s" % (
            mp.describe_rr("req", mp.parse_rr(req[:20], req[20:])),
            mp.describe_rr("rep", rep) if rep else "none"))
    # siw2 agrees to a capability bit only with its ACK bit 0x1 (DEC-4).
    feats = conn_feats(p["caps"] & rep["caps"] if rep["caps"] & 1 else 0)
    crc = p["crc"] or bool(rep["C"])
    ird = rep["enh"]["ird"] if rep["enh"] else 4
    c = Conn(k, rng, mrs, sock, 2 if "v2" in feats else 1, crc, feats, max(1, ird), 1)
    c.buf = rest
    c.desc = "init rev=%d crc=%d feats=%s p2p=%s ird=%d" % (
        p["rev"], crc, ",".join(sorted(feats)) or "-",
        ",".join(rep["enh"]["rtr"]) if rep["enh"] and p["p2p"] else "-", ird)
    if p["p2p"]:
        rtr = rep["enh"]["rtr"] if rep["enh"] else []
        if "write" in rtr:
            c.send(mp.build_write_rtr(crc=crc))
        elif "read" in rtr:
            c.send(mp.build_read_rtr(msn=1, crc=crc))
            c.msn1 = 2
            d = c.next_fpdu(time.monotonic() + WAIT)
            if d is None or d["op"] != OP_RRESP or d["payload"] != 0 or not d["L"]:
                raise Fail("Read RTR: no zero-length Read Response (%s)" % (
                    d["text"] if d else c.closed or "timeout"))
        else:
            raise Fail("P2P Request offering %s: the Reply chose no RTR" % ",".join(p["rtr"]))
    return c


def accept_responder(k, rng, mrs_source, lsock):
    """siw2 connects: its Request, our Reply, its RTR: a Conn."""
    mrs = mrs_source.mrs
    lsock.settimeout(TARGET_WAIT)
    try:
        sock, _ = lsock.accept()
    except socket.timeout:
        raise Fail("the target did not connect within %.0fs" % TARGET_WAIT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    req, rest = read_frame(sock, time.monotonic() + WAIT)
    if req is None or req["key"] != mp.KEY_REQ:
        sock.close()
        raise Fail("no MPA Request from siw2 (%r)" % rest[:20])
    while not mrs.get("probe"):
        # The target printed its MR table before it connected ("probe"
        # last), maybe not all of it when we first looked.
        time.sleep(0.01)
        mrs_source.poll()
    p = mpa_params(rng)
    crc = p["crc"] or bool(req["C"])
    caps = req["caps"] & rng.choice([0, 2, 4, 6, 6]) if req["rev"] == 2 else 0
    if caps:
        caps |= 1                 # the ACK: without it no agreement (DEC-4)
    if req["enh"]:
        # An ORD above the Initiator's IRD is a valid Reply only within
        # siw2's limit (it answers more with "insufficient IRD").
        p["ord"] = min(p["ord"], max(1, req["enh"]["ird"]))
    rtr = ()
    if req["enh"] and req["enh"]["p2p"]:
        offered = req["enh"]["rtr"]
        pick = [r for r in ("write", "read") if r in offered]
        rtr = (rng.choice(pick),) if pick else ()
    pd = mp.enh_data(p["ird"], p["ord"], bool(rtr), rtr) if req["S"] else b""
    pd += tag_pd(k)
    rep = mp.build_rr(mp.KEY_REP, rev=req["rev"], c=crc, s=req["S"], caps=caps, pd=pd)
    sock.sendall(rep)
    feats = conn_feats(caps & 6)
    c = Conn(k, rng, mrs, sock, 2 if "v2" in feats else 1, crc, feats, max(1, p["ird"]), 1)
    c.buf = rest
    c.desc = "resp rev=%d crc=%d feats=%s p2p=%s ird=%d" % (
        req["rev"], crc, ",".join(sorted(feats)) or "-", ",".join(rtr) or "-", p["ird"])
    if rtr:
        d = c.next_fpdu(time.monotonic() + WAIT)
        if d is None:
            raise Fail("no RTR from siw2 (%s)" % (c.closed or "timeout"))
        if rtr[0] == "write" and not (d["op"] == OP_WRITE and d["T"] and d["payload"] == 0):
            raise Fail("want a zero-length Write RTR: %s" % d["text"])
        if rtr[0] == "read":
            if d["op"] != OP_RREQ or d.get("size") != 0:
                raise Fail("want a zero-length Read RTR: %s" % d["text"])
            c.send(mp.build_read_resp(d["sink_stag"], d["sink_to"], crc=crc))
    return c


def target_problems(line):
    """What is wrong in the target's verdict line of an FPDU connection."""
    kv = parse_kv(line)
    bad = []
    if kv.get("est") != "1":
        bad.append("not established")
    if kv.get("state") != "ERR":
        bad.append("QP state %s, want ERR" % kv.get("state"))
    if kv.get("unflushed") != "0":
        bad.append("%s receives never completed" % kv.get("unflushed"))
    if kv.get("guards") != "OK":
        bad.append("guards " + kv.get("guards", "?"))
    return bad


class Verdicts:
    """The target's lines for our connections, taken as they come: at most
    MAX_OPEN connections wait for theirs at a time (the --inject target
    writes its lines every 50 ms: a lane runs several connections in that
    time)."""
    MAX_OPEN = 8

    def __init__(self, tgt, st, seed, watch=True, mine=None):
        self.tgt, self.st, self.seed = tgt, st, seed
        self.watch = watch        # report HANG/FAIL lines (one lane does)
        self.mine = mine or (lambda k: True)   # this lane's connections
        self.open = {}            # k -> (desc, cases)

    def add(self, k, what):
        self.open[k] = what
        self.collect(0)
        while len(self.open) > self.MAX_OPEN:
            if not self.collect(TARGET_WAIT):
                break

    def collect(self, secs):
        """Judge the lines there (waiting up to @secs for one); False when
        none came."""
        deadline = time.monotonic() + secs
        while True:
            self.tgt.poll()
            got = False
            keep = []
            for line in self.tgt.lines:
                kv = parse_kv(line)
                if line.startswith(("HANG", "FAIL")):
                    if self.watch:
                        self.fail(None, "target: " + line)
                    got = True
                    continue
                k = int(kv.get("tag", "-1")) if line.startswith("CONN ") else -1
                if k not in self.open:
                    # Another lane's, or other lines, go: a long run's
                    # lanes would each keep all the others' otherwise.
                    if k >= 0 and self.mine(k):
                        keep.append(line)
                    continue
                desc = self.open.pop(k)
                got = True
                bad = target_problems(line)
                if bad:
                    self.fail(k, "target %s: %s | %s" % ("; ".join(bad), line, desc))
            self.tgt.lines = keep
            if got or time.monotonic() >= deadline:
                return got
            time.sleep(0.005)

    def finish(self):
        deadline = time.monotonic() + TARGET_WAIT
        while self.open and time.monotonic() < deadline:
            self.collect(0.2)
        for k, desc in sorted(self.open.items()):
            self.fail(k, "no verdict line from the target within %.0fs | %s" % (TARGET_WAIT, desc))
        self.open = {}

    def fail(self, k, msg):
        self.st.fails += 1
        print("FAIL seed=%s conn=%s %s" % (self.seed, "?" if k is None else k, msg), flush=True)


class Stats:
    COUNTS = ("conns", "cases", "fpdus", "fails", "terms")

    def __init__(self):
        self.conns = self.cases = self.fpdus = self.fails = self.terms = 0
        self.ends = {}
        self.t0 = time.monotonic()

    def dump(self):
        return json.dumps({"counts": [getattr(self, n) for n in self.COUNTS],
                           "ends": self.ends})

    def add(self, text):
        d = json.loads(text)
        for n, v in zip(self.COUNTS, d["counts"]):
            setattr(self, n, getattr(self, n) + v)
        for key, v in d["ends"].items():
            self.ends[key] = self.ends.get(key, 0) + v

    def finish(self, mode, seed):
        """Print the run's summary line; the exit status."""
        ends = " ".join("%s=%d" % kv for kv in sorted(self.ends.items()))
        secs = time.monotonic() - self.t0
        print("FUZZ %s seed=%s conns=%d cases=%d fpdus=%d fail=%d terms=%d %s "
              "secs=%.0f cases/s=%.1f" % (
                  mode, seed, self.conns, self.cases, self.fpdus, self.fails, self.terms,
                  ends, secs, self.cases / max(secs, 1e-3)), flush=True)
        return 1 if self.fails else 0


def fpdu_conn(a, k, tgt, lsock, st, verdicts=None, budget=None, cases=None, lane=0,
              link=None):
    rng = random.Random("%s:%d" % (a.seed, k))
    where = "seed=%s conn=%d" % (a.seed, k)
    case_no, end, c = 0, "budget", None
    try:
        if a.role == "inject":
            c = inject_conn(k, rng, tgt.mrs, link)
        elif a.role == "init":
            c = connect_initiator(k, rng, tgt.mrs, a.addr)
        else:
            c = accept_responder(k, rng, tgt, lsock)
        c.lane = lane
        probe(c)
        if budget is None:
            budget = rng.choice([4, 16, 48])
        limit = a.cases if cases is None else cases
        while case_no < budget and (not limit or st.cases < limit):
            case = gen_case(c, rng)
            case_no += 1
            st.cases += 1
            try:
                run_case(c, case)
            finally:
                st.fpdus += c.fpdus
                c.fpdus = 0
    except Dead as e:
        end = str(e)
    except Fail as e:
        st.fails += 1
        end = "FAIL"
        print("FAIL %s case=%d kind=%s: %s" % (where, case_no,
                                               case.kind if case_no else "setup", e), flush=True)
    except OSError as e:
        st.fails += 1
        end = "FAIL"
        print("FAIL %s case=%d: socket: %s" % (where, case_no, e), flush=True)
    if c is not None:
        st.terms += c.terms
        c.sock.close()
    st.conns += 1
    key = end.split()[0] if end != "FAIL" else "fail"
    st.ends[key] = st.ends.get(key, 0) + 1
    desc = "CONN %d %s cases=%d end=%s" % (k, c.desc if c else "-", case_no, end)
    # The target's verdict of this connection comes later (handshake mode
    # checks the target's lines as a whole, at the end).
    if verdicts is not None and c is not None:
        verdicts.add(k, desc)
    if a.verbose or end == "FAIL":
        print(desc, flush=True)


def start_run(a):
    """Listen first (role resp: the target connects to us), then wait for
    the target's READY line.  Returns (Target, listening socket or None),
    or (None, None) when the target never got ready."""
    tgt = Target(a.target_out)
    lsock = None
    if a.role == "resp":
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind(a.addr)
        # Room for every connection the target starts at once (2 per
        # lane): a full queue drops a SYN, whose retry can outlast the
        # target's connect timeout; the late connection then ends before
        # its MPA Request, which reads as siw2's fault.
        lsock.listen(max(8, 4 * a.jobs))
        print("LISTENING %s:%d" % a.addr, flush=True)
    if tgt.wait(lambda ln: ln.startswith(("READY", "FAIL")), TARGET_WAIT) is None:
        print("FAIL the target is not READY", flush=True)
        return None, None
    return tgt, lsock


def share(n, lane, lanes):
    """Lane @lane's part of @n (0: no limit)."""
    return n // lanes + (lane < n % lanes) if n else 0


# Lane processes of the parent, which passes its signals on to them.
KIDS = []


def run_lanes(a, body):
    """body(lane, lanes, st) in a.jobs processes at once (in this one when
    a.jobs is 1); their Stats, added up."""
    total = Stats()
    if a.jobs <= 1:
        body(0, 1, total)
        return total
    pipes = []
    sys.stdout.flush()
    for lane in range(a.jobs):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            del KIDS[:]
            st = Stats()
            try:
                body(lane, a.jobs, st)
            except BaseException as e:  # noqa: B902 - reported, then counted
                st.fails += 1
                print("FAIL lane %d: %r" % (lane, e), flush=True)
            sys.stdout.flush()
            os.write(w, st.dump().encode())
            os._exit(0)
        os.close(w)
        KIDS.append(pid)
        pipes.append((pid, r))
    for pid, r in pipes:
        chunks = []
        while True:
            b = os.read(r, 65536)
            if not b:
                break
            chunks.append(b)
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if chunks:
            total.add(b"".join(chunks).decode())
        if not chunks or status:
            total.fails += 1
            print("FAIL a lane (pid %d) ended with status %d and %s" % (
                pid, status, "its counts" if chunks else "no counts"), flush=True)
    del KIDS[:]
    return total


def cmd_fpdu(a):
    tgt, lsock = start_run(a)
    if tgt is None:
        return 1

    def lane_run(lane, lanes, st):
        first = a.first + lane
        verdicts = Verdicts(tgt, st, a.seed, watch=lanes == 1,
                            mine=lambda k: k >= first and (k - first) % lanes == 0)
        conns, cases = share(a.conns, lane, lanes), share(a.cases, lane, lanes)
        k = first
        link = InjectLink(a.addr) if a.role == "inject" else None
        while not (conns and st.conns >= conns or cases and st.cases >= cases):
            if STOP[0]:
                print("STOP on a signal: the summary counts the connections run", flush=True)
                break
            if st.fails >= MAX_FAILS:
                print("STOP after %d failures" % st.fails, flush=True)
                break
            tgt.poll()
            fpdu_conn(a, k, tgt, lsock, st, verdicts, cases=cases, lane=lane, link=link)
            k += lanes
        if link:
            link.finish()
        verdicts.finish()

    st = run_lanes(a, lane_run)
    if a.jobs > 1:
        target_lines(tgt, st, lambda line: line.startswith(("HANG", "FAIL")))
    return st.finish("fpdu", a.seed)


def target_lines(tgt, st, bad):
    """Count the target's lines @bad picks as failures."""
    time.sleep(0.5)
    tgt.poll()
    for line in tgt.lines:
        if bad(line):
            st.fails += 1
            print("FAIL target: " + line, flush=True)


# --------------------------------------------------------------------------
# Handshake mode.

HS_KINDS = ["valid", "valid", "dribble", "key", "flags", "markers", "rev", "caps",
            "pd-long", "pd-lie", "enh", "s0", "truncate", "garbage-after", "fpdu-early"]
HS_RESP_KINDS = ["valid", "valid", "key", "flags", "markers", "rev", "caps", "reject",
                 "pd-long", "pd-lie", "enh", "rtr-none", "rtr-many", "truncate", "close",
                 "garbage", "silence"]
# What siw2 must never accept (an R=0 Reply, or an established QP).
HS_REFUSE = {"key", "markers", "rev", "reject", "garbage", "close", "truncate", "silence"}


def hs_frame(rng, key, kind, p, caps_mask=0xF):
    """A mutated Request or Reply: (octets, short_by): short_by > 0 when
    the frame promises more octets than it has."""
    flags = (mp.F_C if p["crc"] else 0) | (mp.F_S if p["rev"] == 2 else 0) | \
        (p["caps"] & caps_mask)
    rev = p["rev"]
    pd = mp.enh_data(p["ird"], p["ord"], p["p2p"], p["rtr"]) if p["rev"] == 2 else b""
    pd += rbytes(rng, rng.choice([0, 0, 1, 16, 100]))
    pd_len = len(pd)
    if kind == "key":
        k = bytearray(key)
        for _ in range(rng.randint(1, 3)):
            k[rng.randrange(16)] = rng.getrandbits(8)
        key = bytes(k) if bytes(k) != key else b"MPA ID Rep Frame" if key == mp.KEY_REQ \
            else mp.KEY_REQ
    elif kind == "flags":
        flags = rng.getrandbits(8)
    elif kind == "markers":
        flags |= mp.F_M
    elif kind == "rev":
        rev = rng.choice([0, 3, 4, 0x7F, 0xFF])
    elif kind == "caps":
        flags = (flags & 0xF0) | rng.getrandbits(4)
    elif kind == "reject":
        flags |= mp.F_R
    elif kind == "pd-long":
        pd_len = rng.choice([513, 1024, 4096, 65535])
        pd = pd + rbytes(rng, pd_len - len(pd))
    elif kind == "pd-lie":
        pd_len = len(pd) + rng.randint(1, 600)
    elif kind == "enh":
        iw = rng.choice([0, 0x3FFF, 0x8000, 0xC000, 0x4000, rng.getrandbits(16)])
        ow = rng.choice([0, 0x3FFF, 0x3000, 0x8000, 0x4000, 0xC000, rng.getrandbits(16)])
        flags |= mp.F_S
        rev = 2
        pd = struct.pack(">HH", iw, ow) + pd[4:]
        pd_len = len(pd)
    elif kind == "s0":
        flags &= ~mp.F_S
        rev = 2
    elif kind == "rtr-none" and len(pd) >= 4:
        iw, ow = struct.unpack(">HH", pd[:4])
        pd = struct.pack(">HH", iw | mp.E_A, ow & mp.E_MASK) + pd[4:]
    elif kind == "rtr-many" and len(pd) >= 4:
        iw, ow = struct.unpack(">HH", pd[:4])
        pd = struct.pack(">HH", iw | mp.E_A | mp.E_B, ow | mp.E_C | mp.E_D) + pd[4:]
    hdr = key + struct.pack(">BBH", flags, rev & 0xFF, pd_len & 0xFFFF)
    return hdr + pd, max(0, pd_len - len(pd))


def hs_read(sock, deadline):
    """What siw2 answers: ("frame", rr, rest) / ("closed", None, buf) /
    ("timeout", None, buf)."""
    rr, rest = read_frame(sock, deadline)
    if rr is not None and rr["key"] not in (mp.KEY_REQ, mp.KEY_REP):
        # Not a frame: an MPA Terminate (RFC 6581 8: Invalid Request).
        raw = rr["raw"]
        n = mp.fpdu_size(raw)
        if n is None or len(raw) < n:
            return "garbled", None, raw
        d = mp.decode_fpdu(raw[:n])
        if d.get("op") != OP_TERM or d["term"] is None or d.get("qn") != 2:
            return "garbled", d, raw
        t = d["term"]
        key = (t["layer"], t["etype"])
        if key not in TERM_CODES or TERM_CODES[key] is not None and \
                t["code"] not in TERM_CODES[key]:
            return "garbled", d, raw
        return "term", d, raw[n:]
    if rr is not None:
        return "frame", rr, rest
    try:
        sock.settimeout(0.001)
        if sock.recv(1, socket.MSG_PEEK) == b"":
            return "closed", None, rest
    except socket.timeout:
        return "timeout", None, rest
    except OSError:
        return "closed", None, rest
    return "timeout", None, rest


def hs_case_init(a, k, st):
    """One mutated Request to siw2 (the Responder)."""
    rng = random.Random("%s:hs:%d" % (a.seed, k))
    kind = rng.choice(HS_KINDS)
    p = mpa_params(rng)
    frame, short = hs_frame(rng, mp.KEY_REQ, kind, p)
    sock = socket.create_connection(a.addr, timeout=WAIT)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        if kind == "dribble":
            for i in range(len(frame)):
                sock.sendall(frame[i:i + 1])
        elif kind == "truncate":
            sock.sendall(frame[:rng.randint(1, 19)])
            if rng.random() < 0.5:
                sock.shutdown(socket.SHUT_WR)
        else:
            sock.sendall(frame)
        if kind == "garbage-after":
            sock.sendall(rbytes(rng, rng.randint(1, 64)))
        elif kind == "fpdu-early":
            sock.sendall(mp.build_send(crc=p["crc"]))
        # A frame that promises more than it has is left waiting: siw2's
        # MPA timer ends it, we do not wait for that.
        wait = 0.3 * SCALE if short or kind == "truncate" else WAIT
        what, rr, rest = hs_read(sock, time.monotonic() + wait)
    except OSError as e:
        what, rr, rest = "closed", None, str(e).encode()
    verdict = what if what != "frame" else ("accept" if not rr["R"] else "reject")
    problems = []
    if what == "garbled":
        problems.append("answered with neither a Reply nor a Terminate: %s" % mp.hexs(rest, 40))
    if what == "frame" and rr["key"] != mp.KEY_REP:
        problems.append("answered with key %r" % rr["key"])
    if verdict == "accept" and kind in HS_REFUSE:
        problems.append("accepted a %s Request" % kind)
    if verdict != "accept" and kind in ("valid", "dribble"):
        problems.append("did not accept a valid Request (%s)" % verdict)
    if what == "timeout" and not short and kind != "truncate":
        problems.append("no answer and no close within %.0fs" % wait)
    if verdict == "accept" and p["p2p"] and rr["enh"] and not problems:
        rtr = rr["enh"]["rtr"]
        crc = p["crc"] or bool(rr["C"])
        try:
            if "write" in rtr:
                sock.sendall(mp.build_write_rtr(crc=crc))
            elif "read" in rtr:
                sock.sendall(mp.build_read_rtr(crc=crc))
        except OSError:
            pass
    sock.close()
    st.cases += 1
    st.ends[kind + ":" + verdict] = st.ends.get(kind + ":" + verdict, 0) + 1
    if problems:
        st.fails += 1
        print("FAIL seed=%s hs=%d kind=%s: %s" % (a.seed, k, kind, "; ".join(problems)),
              flush=True)
    elif a.verbose:
        print("HS %d kind=%s %s" % (k, kind, verdict), flush=True)


def hs_case_resp(a, k, lsock, tgt, st):
    """siw2 (the Initiator, peer-to-peer on) connects; one mutated Reply.
    What siw2 makes of it shows on the wire: its RTR (it took the Reply),
    a Terminate or a close (it refused it).  The target's lines are judged
    together at the end: which line belongs to which case cannot be told
    when a NAT (tools/fuzz-long.sh) hides the guest's ports."""
    rng = random.Random("%s:hs:%d" % (a.seed, k))
    kind = rng.choice(HS_RESP_KINDS)
    lsock.settimeout(TARGET_WAIT)
    try:
        sock, _ = lsock.accept()
    except socket.timeout:
        st.fails += 1
        print("FAIL seed=%s hs=%d: the target did not connect" % (a.seed, k), flush=True)
        return
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    req, rest = read_frame(sock, time.monotonic() + WAIT)
    problems = []
    verdict = "-"
    if req is None or req["key"] != mp.KEY_REQ:
        problems.append("no MPA Request from siw2 (%d octets came: %r)" % (len(rest), rest[:20]))
    else:
        p = mpa_params(rng)
        p["rev"] = req["rev"]
        p["caps"] = req["caps"]
        if req["enh"] and req["enh"]["p2p"]:
            p["p2p"] = True
            offered = [r for r in ("write", "read") if r in req["enh"]["rtr"]]
            p["rtr"] = (rng.choice(offered),) if offered else ()
        else:
            p["p2p"], p["rtr"] = False, ()
        if req["enh"]:
            p["ord"] = min(p["ord"], max(1, req["enh"]["ird"]))
        frame, short = hs_frame(rng, mp.KEY_REP, kind, p)
        try:
            if kind == "truncate":
                sock.sendall(frame[:rng.randint(1, 19)])
            elif kind == "garbage":
                sock.sendall(rbytes(rng, rng.randint(1, 40)))
            elif kind not in ("close", "silence"):
                sock.sendall(frame)
            if kind == "silence":
                time.sleep(0.3 * SCALE)
            elif kind not in ("close", "truncate", "garbage") and not short:
                # A P2P Reply that names no RTR form leaves the RTR to the
                # ULP's first Send (MPA2-P2P-12): siw2 then sends nothing.
                sent = mp.parse_rr(frame[:20], frame[20:])
                want_rtr = bool(sent["enh"] and sent["enh"]["p2p"] and sent["enh"]["rtr"])
                verdict = hs_resp_outcome(sock, want_rtr)
        except OSError:
            pass
        if verdict == "rtr" and kind in HS_REFUSE:
            problems.append("siw2 sent its RTR after a %s Reply" % kind)
        if verdict == "silent":
            problems.append("neither an RTR, a Terminate nor a close within %.0fs" % WAIT)
        if verdict == "garbled":
            problems.append("after the Reply siw2 sent neither an RTR nor a Terminate")
    sock.close()
    st.cases += 1
    key = kind + ":" + verdict
    st.ends[key] = st.ends.get(key, 0) + 1
    if problems:
        st.fails += 1
        print("FAIL seed=%s hs=%d kind=%s: %s" % (a.seed, k, kind, "; ".join(problems)),
              flush=True)
    elif a.verbose:
        print("HS %d kind=%s %s" % (k, kind, verdict), flush=True)


def hs_resp_outcome(sock, p2p):
    """After our Reply: "rtr" (siw2's first FPDU: it took the Reply),
    "term", "closed", "quiet" (no p2p: an Initiator that took the Reply
    sends nothing by itself), "silent" (p2p and nothing), "garbled"."""
    deadline = time.monotonic() + (WAIT if p2p else 0.2 * SCALE)
    buf = b""
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return "silent" if p2p else "quiet"
        sock.settimeout(left)
        try:
            d = sock.recv(4096)
        except socket.timeout:
            continue
        except OSError:
            return "closed"
        if not d:
            return "closed" if not buf else "garbled"
        buf += d
        n = mp.fpdu_size(buf)
        if n is not None and len(buf) >= n:
            f = mp.decode_fpdu(buf[:n])
            if f.get("op") == OP_TERM:
                return "term"
            if f.get("op") in (OP_WRITE, OP_RREQ) and f.get("payload", 1) == 0 or \
                    f.get("op") == OP_RREQ and f.get("size") == 0:
                return "rtr"
            return "garbled"


def cmd_handshake(a):
    tgt, lsock = start_run(a)
    if tgt is None:
        return 1
    last = a.first + (1 if a.only is not None else a.cases)

    def lane_run(lane, lanes, st):
        for k in range(a.first + lane, last, lanes):
            if STOP[0]:
                print("STOP on a signal: the summary counts the cases run", flush=True)
                break
            if a.role == "init":
                hs_case_init(a, k, st)
                if (k + 1) % 25 == 0 or k == last - 1:
                    # The device still works: a valid connection and the probe.
                    tgt.poll()
                    fpdu_conn(a, k, tgt, None, st, budget=0, lane=lane)
            else:
                hs_case_resp(a, k, lsock, tgt, st)

    st = run_lanes(a, lane_run)

    def bad(line):
        # Every connection the target saw: no hang, guards intact, an
        # established one ended with its QP in ERR and receives completed.
        kv = parse_kv(line)
        return line.startswith(("HANG", "FAIL")) or "guards=FAIL" in line or \
            line.startswith("CONN") and kv.get("est") == "1" and \
            (kv.get("state") != "ERR" or kv.get("unflushed") != "0")
    target_lines(tgt, st, bad)
    return st.finish("handshake", a.seed)


# --------------------------------------------------------------------------
# Self test (no network): the builders against mpa_peer's, and thousands of
# generated cases on a connection without a socket.

def selftest():
    fails = []

    def check(name, ok, detail=""):
        print("%s %s%s" % ("ok" if ok else "FAIL", name, " " + detail if detail else ""))
        if not ok:
            fails.append(name)

    check("write-rtr", tagged(OP_WRITE, 1, 1, 0).fpdu(True) == mp.build_write_rtr(1, True))
    check("read-rtr", untagged(OP_RREQ, 1, 1, 1, 0, [
        ("a", "I", 1), ("b", "Q", 0), ("c", "I", 0), ("d", "I", 1), ("e", "Q", 0)]).fpdu(True)
        == mp.build_read_rtr(crc=True))
    check("crc32c", mp.crc32c(b"123456789") == 0xE3069283)
    mrs = {n: {"stag": 0x100 * (i + 1), "addr": 0x10000 * (i + 1), "len": ln, "seed": i}
           for i, (n, ln) in enumerate([("rw", 8192), ("wo", 3000), ("recv", 8192),
                                        ("ro", 4096), ("none", 3000), ("pd2", 3000),
                                        ("dereg", 3000), ("probe", 1024)])}
    kinds = {}
    n = 0
    for k in range(300):
        rng = random.Random("selftest:%d" % k)
        p = mpa_params(rng)
        feats = conn_feats(p["caps"])
        c = Conn(k, rng, mrs, None, 2 if "v2" in feats else 1, p["crc"], feats, p["ird"], 1)
        for _ in range(20):
            case = gen_case(c, rng)
            frames = [case.raw] if case.raw is not None else [s.fpdu(c.crc) for s in case.segs]
            for f in frames:
                if case.raw is None and mp.fpdu_size(f) != len(f):
                    check("frame size " + case.kind, False, f[:8].hex())
            kinds[case.kind.split(":")[0]] = kinds.get(case.kind.split(":")[0], 0) + 1
            n += 1
    check("generated %d cases" % n, n == 6000, " ".join("%s=%d" % kv for kv in sorted(kinds.items())))
    for want in ("write", "read", "send", "imm", "atomic", "commit", "read2", "send-imm",
                 "mut-write", "garbage", "truncated", "flood", "peer-term", "partial-close",
                 "bad-crc", "write-bounds", "send-long", "send-msn", "bad-rv",
                 "unsolicited-rresp-none", "unsolicited-atomic", "unsolicited-read2"):
        check("kind " + want, kinds.get(want, 0) > 0)
    # Determinism: the same seed, the same octets.
    def octets(seed):
        rng = random.Random(seed)
        c = Conn(0, rng, mrs, None, 2, True, conn_feats(6), 4, 1)
        return b"".join(s.fpdu(True) for _ in range(50) for s in gen_case(c, rng).segs)
    check("deterministic", octets("x:1") == octets("x:1") and octets("x:1") != octets("x:2"))
    judge_selftest(check, mrs)
    print("selftest: %d failed" % len(fails))
    return 1 if fails else 0


def fake_responder(sock, mrs, fault):
    """A minimal Responder over a socketpair for the judge's self test:
    answers Read Requests from the region table, nothing else; @fault
    makes it misbehave: "data" (a wrong octet), "crc" (a bad CRC),
    "silent" (no answers), "term-bad" (a Terminate with an unknown code
    to everything)."""
    buf = b""
    by_stag = {m["stag"]: m for m in mrs.values()}
    while True:
        try:
            d = sock.recv(65536)
        except OSError:
            return
        if not d:
            return
        buf += d
        while len(buf) >= 2 and len(buf) >= mp.fpdu_size(buf):
            n = mp.fpdu_size(buf)
            f, buf = mp.decode_fpdu(buf[:n]), buf[n:]
            if fault == "silent" or f.get("op") != OP_RREQ or "size" not in f:
                continue
            if fault == "term-bad":
                out = mp.build_terminate(3, 3, 3, crc=True)
            else:
                m = by_stag[f["src_stag"]]
                off = f["src_to"] - m["addr"]
                data = bytearray(mr_bytes(m["seed"], off, f["size"]))
                if fault == "data" and data:
                    data[0] ^= 1
                out = mp.build_read_resp(f["sink_stag"], f["sink_to"], bytes(data), crc=True)
                if fault == "crc":
                    out = out[:-1] + bytes([out[-1] ^ 1])
            try:
                sock.sendall(out)
            except OSError:
                return


def judge_selftest(check, mrs):
    """The judge must pass a well-behaved Responder and fail each fault."""
    import threading
    global WAIT
    saved, WAIT = WAIT, 0.5
    try:
        for fault, case_gen, want in (
                (None, g_write, "pass"), (None, g_read, "pass"),
                ("data", g_read, "data differs"), ("crc", g_write, "CRC"),
                ("silent", g_write, "no answer"), ("term-bad", g_write, "not in DIGEST"),
                (None, lambda c, r: Case("write-ro", [tagged(OP_WRITE, 1, mrs["ro"]["stag"],
                                                             mrs["ro"]["addr"], b"x")],
                                         expect="term"), "no Terminate")):
            a, b = socket.socketpair()
            t = threading.Thread(target=fake_responder, args=(b, mrs, fault), daemon=True)
            t.start()
            rng = random.Random("judge:%s" % fault)
            c = Conn(0, rng, mrs, a, 1, True, set(), 4, 1)
            c.setup = False
            got = "pass"
            try:
                run_case(c, case_gen(c, rng))
            except (Fail, Dead) as e:
                got = str(e)
            a.close()
            b.close()
            check("judge %s/%s" % (fault or "good", want), want in got, got)
    finally:
        WAIT = saved


# SIGTERM/SIGINT end a run after the connection in progress, with its
# summary (a long run cut short still says what it covered).
STOP = [False]


def main(argv):
    import argparse

    def stop(signum, frame):
        STOP[0] = True
        for pid in KIDS:
            try:
                os.kill(pid, signal.SIGTERM)
            except OSError:
                pass
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    p = argparse.ArgumentParser(prog="wire_fuzz.py")
    sub = p.add_subparsers(dest="cmd", required=True)
    for name in ("fpdu", "handshake"):
        q = sub.add_parser(name)
        g = q.add_mutually_exclusive_group(required=True)
        g.add_argument("--connect", metavar="HOST:PORT")
        g.add_argument("--listen", metavar="ADDR:PORT")
        if name == "fpdu":
            g.add_argument("--inject", metavar="HOST:PORT")
        q.add_argument("--target-out", required=True)
        q.add_argument("--seed", default="1")
        q.add_argument("--cases", type=int, default=0)
        q.add_argument("--conns", type=int, default=0)
        q.add_argument("--first", type=int, default=0)
        q.add_argument("--only", type=int, default=None, help="replay connection/case K alone")
        q.add_argument("--verbose", action="store_true")
        q.add_argument("--jobs", type=int, default=1, help="lanes at once (see above)")
    sub.add_parser("selftest")
    a = p.parse_args(argv)
    if a.cmd == "selftest":
        return selftest()
    hp = a.connect or a.listen or getattr(a, "inject", None)
    host, port = hp.rsplit(":", 1)
    a.addr = (host, int(port))
    a.role = "init" if a.connect else "resp" if a.listen else "inject"
    if not 1 <= a.jobs <= 64:
        p.error("--jobs takes 1 to 64 (the target's probe region has 64 slots)")
    if a.only is not None:
        a.first, a.conns, a.cases, a.jobs = a.only, 1, 0, 1
    elif not (a.cases or a.conns):
        p.error("--cases or --conns")
    return cmd_fpdu(a) if a.cmd == "fpdu" else cmd_handshake(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
