#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""mpa_peer.py - a scriptable fake MPA peer for hostile-peer and protocol tests.

Speaks just enough iWARP over plain TCP to exercise an MPA (RFC 5044 / RFC 6581)
implementation from the other end of the wire: the MPA Request/Reply exchange,
the peer-to-peer RTR (zero-length RDMA Write or Read), and header-less
Terminates.  Python 3 standard library only.

  mpa_peer.py client HOST PORT [--scenario S] [options]   act as MPA Initiator
  mpa_peer.py server PORT [--bind ADDR] [--scenario S] [options]
                                                          act as MPA Responder
                                                          (PORT 0: any; the
                                                          "listening" line says
                                                          which)
  mpa_peer.py selftest [--digest PATH] [--no-net]         check the builders

Client scenarios (what is sent after the TCP connect):
  valid        a Request built from the options below
  garbage      64 random bytes (--seed N for a fixed pattern)
  silence      nothing
  half         the first 10 bytes of the Request, then FIN (shutdown(SHUT_WR);
               the socket is still read to see what the peer does)
  half-wait    the first 10 bytes of the Request, then nothing
  wrong-key    the Request with the key "MPA ID Rep Frame" (--key overrides)
  bad-rev      the Request with Rev 3
  pd-too-long  PD_Length 513 and 513 bytes of private data
  truncated    PD_Length 100 but only 50 bytes of private data, then nothing
  markers      the Request with M=1
Server scenarios (what is answered to the Request):
  valid        Reply echoing Rev and S; C if either side wants CRC; A as in the
               Request; one RTR flag (--rtr, default write if offered, else read,
               else write); IRD = Request ORD, ORD = Request IRD (--ird/--ord
               override).  With p2p the first FPDU must be the chosen RTR and is
               checked byte for byte (a Read RTR gets its zero-length Read
               Response).
  wrong-key    the valid Reply with the key "MPA ID Req Frame" (--key overrides)
  bad-rev      the valid Reply with Rev 3
  reject       R=1, --pd-len bytes of ULP private data
  markers      the valid Reply with M=1
  s-mismatch   Reply with S=0 and no enhanced data
  p2p-fpdu-only  A=1 with only B set (zero-length FULPDU RTR)
  ord-too-big  the valid Reply with ORD 0x3000
  silence      no Reply at all
  close        close as soon as the Request is read
Request options (client): --rev 1|2 --s 0|1 --crc --p2p --rtr LIST (write,
  read, fpdu; default write,read with --p2p) --ird N --ord N --caps MASK
  (low nibble of the flags octet: 0x4 RDMAP v2, 0x2 Commit) --pd-len N (ULP
  private data bytes after the 4 enhanced bytes) --send-rtr
  auto|write|read|none|send|garbage (the first FPDU after an accepting Reply;
  auto = in p2p mode the Write RTR if the Reply allows it, else the Read RTR,
  and nothing without p2p; send = a 40-byte RDMA Send FPDU with 16 payload
  bytes, garbage = 40 octets of 0xa5, i.e. a length field of 0xa5a5: two
  first FPDUs that are no RTR) --sink-stag/--sink-to (of the Read RTR)
  --hold SECS (keep the connection open, printing what arrives).
Reply options (server): --rev --s --crc --caps --ird --ord --rtr --pd-len
  override the echoed values; --strict-stag (the Write RTR STag must be 1; by
  default any STag is allowed, as RFC 6581 says); --accept-timeout SECS;
  --read-resp ok|none|bad-stag (answer a Read RTR with the zero-length Read
  Response (ok), not at all (none: silent-close-after then counts from the
  RTR), or with one whose STag is the sink STag + 1).
Both: --timeout SECS (10) --tolerance SECS (0.5) --key STR --timestamps
  --pd-pattern mpa|cmtest (ULP private data byte i of N: 0xa0 + i (mpa), or
  (i * 7 + N) & 0xff as tests/progs/siw2_cmtest.c sends and checks it)
  --corrupt-crc (invert the CRC field of the first FPDU we send: the RTR,
  the client's first FPDU, or the server's Read Response).
Built-in checks (fail even with --expect none): a bad CRC where CRC was
  negotiated, an RTR or Read Response that is not byte-exact, an FPDU from
  the Responder before the Initiator's first FPDU (MPA fencing; unless our
  Rev 2 Request carried --caps 0x2 or 0x4, siw2's promise to take them),
  and (server) no complete Request.
Expectations (--expect, default none = only the built-in checks):
  closed                  the peer closes (FIN or RST) within --timeout
  term:L/E/C              a Terminate with that Layer/EType/Code, then close
                          (--term-order rfc|siw|any: Linux siw puts Layer and
                          EType in swapped nibbles, e.g. 2/0/4 as 02 04 00 00)
  reject / accept         (client) a Reply with R=1 / R=0
  rtr:write / rtr:read    (server) that RTR arrives, byte-exact
  silent-close-after:SECS no byte after our last send (server: after the
                          Request), closed after SECS (-tolerance) at the
                          earliest; the wait is SECS + --timeout.  The
                          clock restarts when an accepting Reply arrives
                          (client) or the RTR has been read (server, with
                          --read-resp none): the peer's timeout then runs
                          from there
  rst-after-fin:SECS      (server) after the exchange the peer sends FIN;
                          we never answer it (no FIN from us: the
                          connection stays half open), and the peer resets
                          it no earlier than SECS (-tolerance) after its
                          FIN; the wait is SECS + --timeout
Output: one line per observation; the last line is "PASS: why" or
"FAIL: why".  Exit 0 = the expectation held, 1 = it did not, 2 = usage error.
"""

import argparse
import os
import select
import socket
import struct
import sys
import time

# random and subprocess are imported where needed: every process start
# counts under TCG.

# --------------------------------------------------------------------------
# CRC32c (Castagnoli, reflected polynomial 0x82F63B78), table-driven.


def _crc32c_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc32c_table()


def _crc32c_py(data):
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_TABLE[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


try:
    # Debian's python3-crc32c, in C: the same CRC, some 50 times faster
    # (the wire fuzzer computes one per FPDU each way).
    from crc32c import crc32c as _crc32c_c
    if _crc32c_c(b"123456789") != 0xE3069283:
        _crc32c_c = None
except ImportError:
    _crc32c_c = None

crc32c = _crc32c_c or _crc32c_py
CRC32C_IMPL = "C (python3-crc32c)" if _crc32c_c else "Python"


# --------------------------------------------------------------------------
# MPA Request / Reply frames.

KEY_REQ = b"MPA ID Req Frame"
KEY_REP = b"MPA ID Rep Frame"
F_M, F_C, F_R, F_S = 0x80, 0x40, 0x20, 0x10
MAX_PD = 512
# Enhanced data (first 4 PD octets when S=1)
E_A, E_B = 0x8000, 0x4000        # IRD word: peer-to-peer, zero-length FULPDU RTR
E_C, E_D = 0x8000, 0x4000        # ORD word: zero-length Write RTR, Read RTR
E_MASK = 0x3FFF

RTR_BITS = {"fpdu": ("ird", E_B), "write": ("ord", E_C), "read": ("ord", E_D)}


def enh_data(ird, ord_, p2p=False, rtr=()):
    iw = (ird & E_MASK) | (E_A if p2p else 0)
    ow = ord_ & E_MASK
    for r in rtr:
        word, bit = RTR_BITS[r]
        if word == "ird":
            iw |= bit
        else:
            ow |= bit
    return struct.pack(">HH", iw, ow)


def build_rr(key, rev=2, m=0, c=0, r=0, s=0, caps=0, pd=b"", pd_len=None):
    flags = (F_M if m else 0) | (F_C if c else 0) | (F_R if r else 0) | \
            (F_S if s else 0) | (caps & 0x0F)
    if pd_len is None:
        pd_len = len(pd)
    return key + struct.pack(">BBH", flags, rev & 0xFF, pd_len) + pd


def parse_rr(hdr, pd=b""):
    """hdr: the 20 header octets; pd: what arrived of the private data."""
    key = hdr[:16]
    flags, rev, pd_len = struct.unpack(">BBH", hdr[16:20])
    rr = {"key": key, "flags": flags, "rev": rev, "pd_len": pd_len,
          "M": flags >> 7 & 1, "C": flags >> 6 & 1, "R": flags >> 5 & 1,
          "S": flags >> 4 & 1, "caps": flags & 0x0F, "pd": pd, "enh": None}
    if rr["S"] and len(pd) >= 4:
        iw, ow = struct.unpack(">HH", pd[:4])
        rtr = [n for n, (w, b) in RTR_BITS.items() if (iw if w == "ird" else ow) & b]
        rr["enh"] = {"p2p": iw >> 15 & 1, "rtr": rtr, "ird": iw & E_MASK,
                     "ord": ow & E_MASK, "iw": iw, "ow": ow}
    return rr


def key_name(key):
    return {KEY_REQ: "req", KEY_REP: "rep"}.get(key, "bad:" + key.hex())


def describe_rr(kind, rr):
    s = "%s rev=%d M=%d C=%d R=%d S=%d caps=0x%x" % (
        kind, rr["rev"], rr["M"], rr["C"], rr["R"], rr["S"], rr["caps"])
    e = rr["enh"]
    if e:
        s += " p2p=%d rtr=%s ird=%d ord=%d" % (
            e["p2p"], ",".join(e["rtr"]) or "none", e["ird"], e["ord"])
    else:
        s += " p2p=- rtr=- ird=- ord=-"
    return s + " pd_len=%d key=%s" % (rr["pd_len"], key_name(rr["key"]))


# --------------------------------------------------------------------------
# FPDUs, DDP/RDMAP headers.

OPNAMES = {0x0: "write", 0x1: "read-req", 0x2: "read-resp", 0x3: "send",
           0x4: "send-inv", 0x5: "send-se", 0x6: "send-se-inv", 0x7: "terminate",
           0x8: "imm", 0x9: "imm-se", 0xA: "atomic-req", 0xB: "atomic-resp",
           0xC: "commit-req", 0xD: "commit-resp", 0x11: "read2-req",
           0x12: "read2-resp", 0x13: "send-imm", 0x14: "send-inv-imm",
           0x15: "send-se-imm", 0x16: "send-se-inv-imm"}
QN_SEND, QN_RDMA_REQ, QN_TERM = 0, 1, 2


def pad_len(ulpdu_len):
    return (4 - (2 + ulpdu_len) % 4) % 4


def build_fpdu(ulpdu, crc=True):
    body = struct.pack(">H", len(ulpdu)) + ulpdu + bytes(pad_len(len(ulpdu)))
    return body + struct.pack("<I", crc32c(body) if crc else 0)


def ddp_ctrl(tagged, last, opcode, rv=1):
    return (0x8000 if tagged else 0) | (0x4000 if last else 0) | 0x0100 | \
           (rv & 3) << 6 | (opcode & (0x1F if rv == 2 else 0x0F))


def ddp_tagged(opcode, stag, to, last=True, rv=1):
    return struct.pack(">HIQ", ddp_ctrl(True, last, opcode, rv), stag, to)


def ddp_untagged(opcode, qn, msn, mo, last=True, rv=1, inval=0):
    return struct.pack(">HIIII", ddp_ctrl(False, last, opcode, rv), inval, qn, msn, mo)


def build_write_rtr(stag=1, crc=True):
    return build_fpdu(ddp_tagged(0x0, stag, 0), crc)


def build_read_rtr(sink_stag=1, sink_to=0, src_stag=1, src_to=0, msn=1, size=0, crc=True):
    return build_fpdu(ddp_untagged(0x1, QN_RDMA_REQ, msn, 0) +
                      struct.pack(">IQIIQ", sink_stag, sink_to, size, src_stag, src_to), crc)


def build_read_resp(stag, to, data=b"", crc=True):
    return build_fpdu(ddp_tagged(0x2, stag, to) + data, crc)


def build_terminate(layer, etype, code, msn=1, flags=0, extra=b"", crc=True):
    ctl = (layer & 0xF) << 28 | (etype & 0xF) << 24 | (code & 0xFF) << 16 | (flags & 0xFFFF)
    return build_fpdu(ddp_untagged(0x7, QN_TERM, msn, 0) + struct.pack(">I", ctl) + extra, crc)


def fpdu_size(buf):
    """Total FPDU octets if buf holds at least the length field, else None."""
    if len(buf) < 2:
        return None
    n = struct.unpack(">H", buf[:2])[0]
    return 2 + n + pad_len(n) + 4


def crc_state(fpdu):
    body, wire = fpdu[:-4], struct.unpack("<I", fpdu[-4:])[0]
    want = crc32c(body)
    if wire == want:
        return "ok", wire, want
    return ("zero" if wire == 0 else "bad"), wire, want


def decode_fpdu(fpdu):
    """Decode one FPDU (no markers).  Returns a dict; 'text' is one line."""
    n = struct.unpack(">H", fpdu[:2])[0]
    u = fpdu[2:2 + n]
    d = {"len": n, "ulpdu": u, "op": None, "term": None}
    crc, wire, want = crc_state(fpdu)
    d["crc"] = crc
    d["crc_wire"] = wire
    if n < 2:
        d["text"] = "fpdu len=%d (too short for a DDP header) crc=%s" % (n, crc)
        return d
    ctrl = struct.unpack(">H", u[:2])[0]
    t, last, dv, rv = ctrl >> 15 & 1, ctrl >> 14 & 1, ctrl >> 8 & 3, ctrl >> 6 & 3
    op = ctrl & (0x1F if rv == 2 else 0x0F)
    d.update(ctrl=ctrl, T=t, L=last, dv=dv, rv=rv, op=op)
    txt = "fpdu len=%d ctrl=0x%04x T=%d L=%d dv=%d rv=%d op=0x%x(%s)" % (
        n, ctrl, t, last, dv, rv, op, OPNAMES.get(op, "?"))
    if t:
        if n < 14:
            d["text"] = txt + " (short tagged header) crc=%s" % crc
            return d
        stag, to = struct.unpack(">IQ", u[2:14])
        d.update(stag=stag, to=to, payload=n - 14)
        txt += " stag=0x%08x to=0x%x payload=%d" % (stag, to, n - 14)
    else:
        if n < 18:
            d["text"] = txt + " (short untagged header) crc=%s" % crc
            return d
        inval, qn, msn, mo = struct.unpack(">IIII", u[2:18])
        d.update(inval=inval, qn=qn, msn=msn, mo=mo, payload=n - 18)
        txt += " qn=%d msn=%d mo=%d" % (qn, msn, mo)
        if inval:
            txt += " rsvdulp=0x%08x" % inval
        if op == 0x1 and n >= 46:
            sk, skto, sz, ss, ssto = struct.unpack(">IQIIQ", u[18:46])
            d.update(sink_stag=sk, sink_to=skto, size=sz, src_stag=ss, src_to=ssto)
            txt += " sink_stag=0x%08x sink_to=0x%x size=%d src_stag=0x%08x src_to=0x%x" % (
                sk, skto, sz, ss, ssto)
        elif op == 0x7 and n >= 22:
            d["term"] = decode_term_ctrl(u[18:22])
            d["term"]["rest"] = u[22:]
        else:
            txt += " payload=%d" % (n - 18)
    d["text"] = txt + " crc=%s" % crc + ("" if crc == "ok" else " (wire 0x%08x, computed 0x%08x)" % (wire, want))
    return d


def decode_term_ctrl(b):
    """The 4-octet Terminate control field, read two ways:
    RFC 5040: be32 Layer(31..28) EType(27..24) ECode(23..16) M D R Rsvd(12..0);
    "siw": Linux siw (6.12) declares it as a C bitfield that x86 (little-endian
    bitfield order) lays out nibble-swapped: octet 0 = EType<<4 | Layer, octet
    1 = ECode, octet 2 bit 0/1/2 = M/D/R.  Seen on the wire in
    tests/vm/cases/59-mpa-peer-siw.sh."""
    ctl = struct.unpack(">I", b)[0]
    t = {"layer": ctl >> 28, "etype": ctl >> 24 & 0xF, "code": ctl >> 16 & 0xFF,
         "M": ctl >> 15 & 1, "D": ctl >> 14 & 1, "R": ctl >> 13 & 1,
         "rsvd": ctl & 0x1FFF, "raw": b}
    t["siw"] = {"layer": b[0] & 0xF, "etype": b[0] >> 4, "code": b[1],
                "M": b[2] & 1, "D": b[2] >> 1 & 1, "R": b[2] >> 2 & 1}
    return t


def term_codes(t, order):
    """(L, E, C) tuples the Terminate matches under --term-order."""
    rfc = (t["layer"], t["etype"], t["code"])
    siw = (t["siw"]["layer"], t["siw"]["etype"], t["siw"]["code"])
    return {"rfc": [rfc], "siw": [siw], "any": [rfc, siw]}[order]


def term_flags(t, layout):
    """(M, D, R) of a Terminate in the layout ("rfc" or "siw") it was read in."""
    if layout == "siw":
        return t["siw"]["M"], t["siw"]["D"], t["siw"]["R"]
    return t["M"], t["D"], t["R"]


def term_echo_problems(t, layout, fpdu):
    """What is wrong with the headers a Terminate carries after its control
    word, against the offending FPDU as we sent it (RFC 5040 4.8, DIGEST
    3.3, BASE-RDMAP-8): nothing without D or R; with D=1 the DDP Segment
    Length (if M=1) and the DDP header exactly as sent, with R=1 also the
    28-octet RDMAP header.  The Segment Length is the ULPDU_Length, the whole
    DDP segment (Documentation/design.md); Linux siw (layout "siw") counts
    the payload only.  Returns a list of problems, empty when all is right."""
    rest = t["rest"]
    m, d, r = term_flags(t, layout)
    if not d and not r:
        return ["%d octets after a control word with D=0 R=0: %s" % (len(rest), hexs(rest))] \
            if rest else []
    if fpdu is None:
        return ["headers included (D=%d R=%d) but we sent no FPDU" % (d, r)]
    if not d:
        return ["R=1 without D=1"]
    ulpdu = fpdu[2:]
    dl = 14 if ulpdu[:1] and ulpdu[0] & 0x80 else 18
    want = ulpdu[:dl] + (ulpdu[dl:dl + 28] if r else b"")
    probs = []
    if len(rest) != 2 + len(want):
        probs.append("%d header octets, want %d" % (len(rest), 2 + len(want)))
    ulen = struct.unpack(">H", fpdu[:2])[0]
    seg = struct.unpack(">H", rest[:2])[0] if len(rest) >= 2 else None
    ok_seg = [ulen] + ([ulen - dl - (28 if r else 0)] if layout == "siw" else [])
    if m and seg not in ok_seg:
        probs.append("DDP Segment Length %s, want %s (the ULPDU_Length sent)" %
                     (seg, " or ".join(str(x) for x in ok_seg)))
    if rest[2:2 + len(want)] != want:
        probs.append("echoed header %s differs from the one sent %s" %
                     (hexs(rest[2:2 + len(want)]), hexs(want)))
    return probs


def describe_term(t):
    s = "term layer=%d etype=%d code=%d M=%d D=%d R=%d" % (
        t["layer"], t["etype"], t["code"], t["M"], t["D"], t["R"])
    if t["rsvd"]:
        s += " rsvd=0x%x" % t["rsvd"]
    if t["rest"]:
        s += " hdrs=%s" % hexs(t["rest"], 64)
    w = t["siw"]
    if (w["layer"], w["etype"]) != (t["layer"], t["etype"]) or \
            (w["M"], w["D"], w["R"]) != (t["M"], t["D"], t["R"]):
        s += " [ctrl %s; read as Linux siw's nibble-swapped bitfield: layer=%d etype=%d " \
             "code=%d M=%d D=%d R=%d]" % (t["raw"].hex(), w["layer"], w["etype"], w["code"],
                                         w["M"], w["D"], w["R"])
    return s


def hexs(b, limit=64):
    s = " ".join("%02x" % x for x in b[:limit])
    if len(b) > limit:
        s += " ...(+%d)" % (len(b) - limit)
    return s


# --------------------------------------------------------------------------
# Output and the connection wrapper.

class Out:
    def __init__(self, timestamps=False):
        self.t0 = time.monotonic()
        self.ts = timestamps

    def now(self):
        return time.monotonic() - self.t0

    def __call__(self, line):
        if self.ts:
            line = "[%8.3f] %s" % (self.now(), line)
        print(line, flush=True)


class Conn:
    """A TCP stream with a receive buffer, deadlines and close detection."""

    def __init__(self, sock, out):
        self.sock = sock
        self.out = out
        self.buf = b""
        self.closed = None       # "fin" / "rst" / "error:..."
        self.closed_at = None
        self.rx_total = 0
        self.mark = time.monotonic()   # reference for close timing
        self.rx_mark = 0               # rx_total at the mark

    def set_mark(self):
        self.mark = time.monotonic()
        self.rx_mark = self.rx_total

    def _recv(self, deadline):
        """Wait for data until deadline.  False on timeout or close."""
        if self.closed:
            return False
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        r, _, _ = select.select([self.sock], [], [], left)
        if not r:
            return False
        try:
            data = self.sock.recv(65536)
        except ConnectionResetError:
            self._set_closed("rst")
            return False
        except OSError as e:
            self._set_closed("error:%s" % e.strerror)
            return False
        if not data:
            self._set_closed("fin")
            return False
        self.buf += data
        self.rx_total += len(data)
        return True

    def _set_closed(self, how):
        self.closed = how
        self.closed_at = time.monotonic()
        self.out("closed %s after %.3fs (rx %d bytes)" % (how, self.closed_at - self.mark, self.rx_total))

    def fill(self, n, deadline):
        """Wait until n octets are buffered; False on close/timeout."""
        while len(self.buf) < n:
            if not self._recv(deadline):
                return False
        return True

    def take(self, n):
        b, self.buf = self.buf[:n], self.buf[n:]
        return b

    def wait_any(self, deadline):
        if self.buf:
            return True
        return self._recv(deadline)

    def send(self, data, what):
        try:
            self.sock.sendall(data)
        except OSError as e:
            self.out("send %s failed: %s" % (what, e.strerror or e))
            return False
        self.set_mark()
        return True

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass

    def watch_reset(self, deadline):
        """After the peer's FIN (recv() then only returns 0): poll the TCP
        state until the connection is gone (the peer's RST) or deadline."""
        self.reset_at = None
        while time.monotonic() < deadline:
            try:
                state = self.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
            except OSError as e:
                self.out("TCP_INFO failed: %s" % e.strerror)
                return
            if state == 7:          # TCP_CLOSE
                self.reset_at = time.monotonic()
                err = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                self.reset_err = os.strerror(err) if err else "no error"
                self.out("connection gone after %.3fs from the peer's FIN (%s)" %
                         (self.reset_at - self.closed_at, self.reset_err))
                return
            time.sleep(0.02)
        self.out("still half open at the deadline (%.1fs after the peer's FIN)" %
                 (time.monotonic() - self.closed_at))


class Session:
    """Shared observation logic of both roles."""

    def __init__(self, args, out):
        self.a = args
        self.out = out
        self.errors = []
        self.terms = []
        self.fpdus = []
        self.crc_on = None        # None = unknown (before/without negotiation)
        self.markers = False
        self.sent_fpdu = False    # we (the Initiator) sent an FPDU
        self.last_fpdu = None     # the last FPDU we sent, as sent
        self.is_initiator = False
        # Our Request carried siw2's capability bits (Rev 2, 0x2/0x4): a
        # promise that FPDUs are welcome right behind the Reply, no fence.
        self.early_ok = False
        self.log_fpdus = None     # print only the first N data FPDUs (None: all)
        self.quiet_fpdus = 0      # FPDUs not printed

    def error(self, msg):
        self.errors.append(msg)
        self.out("error: " + msg)

    def read_rr(self, conn, deadline, kind):
        """Read a Request/Reply frame.  Returns rr, or None (closed/timeout/
        not a frame).  Incomplete frames are printed."""
        if not conn.fill(16, deadline):
            if conn.buf:
                self.out("rx %d bytes (no complete %s): %s" % (len(conn.buf), kind, hexs(conn.buf)))
                conn.take(len(conn.buf))
            elif not conn.closed:
                self.out("no %s within the deadline" % kind)
            return None
        if conn.buf[:16] not in (KEY_REQ, KEY_REP):
            # Perhaps an FPDU (e.g. a Terminate) instead of a frame.
            sz = fpdu_size(conn.buf)
            if sz and sz <= 600 and len(conn.buf) >= 4 and (conn.buf[2] & 0x03) == 1:
                self.out("rx no %s key; reading as FPDU" % kind)
                return None
        if not conn.fill(20, deadline):
            self.out("rx %d bytes (no complete %s header): %s" % (len(conn.buf), kind, hexs(conn.buf)))
            conn.take(len(conn.buf))
            return None
        hdr = conn.buf[:20]
        pdl = struct.unpack(">H", hdr[18:20])[0]
        want = min(pdl, MAX_PD + 64)
        complete = conn.fill(20 + want, deadline)
        raw = conn.take(20 + want if complete else len(conn.buf))
        rr = parse_rr(raw[:20], raw[20:])
        self.out("rx %s %d bytes: %s" % (kind, len(raw), hexs(raw, 96)))
        self.out(describe_rr(kind, rr))
        if not complete:
            self.out("%s private data incomplete: %d of %d bytes" % (kind, len(raw) - 20, pdl))
            rr["incomplete"] = True
        ulp = rr["pd"][4:] if rr["enh"] else rr["pd"]
        if ulp and complete:
            self.out("%s ulp private data %d bytes: %s" % (kind, len(ulp), hexs(ulp)))
        return rr

    def next_fpdu(self, conn, deadline):
        """Read and print one FPDU.  None on close/timeout."""
        if self.markers:
            # Markers are not parsed: dump raw octets.
            if not conn.wait_any(deadline):
                return None
            raw = conn.take(len(conn.buf))
            self.out("rx %d raw bytes (markers negotiated, not decoded): %s" % (len(raw), hexs(raw)))
            return {"raw": raw, "op": None, "term": None}
        if not conn.fill(2, deadline):
            if conn.buf:
                self.out("rx %d trailing bytes: %s" % (len(conn.buf), hexs(conn.take(len(conn.buf)))))
            return None
        sz = fpdu_size(conn.buf)
        if not conn.fill(sz, deadline):
            self.out("rx incomplete FPDU (%d of %d bytes): %s" % (len(conn.buf), sz, hexs(conn.buf)))
            conn.take(len(conn.buf))
            return None
        raw = conn.take(sz)
        d = decode_fpdu(raw)
        d["raw"] = raw
        if self.log_fpdus is not None and d["op"] != 0x7 and self.log_fpdus <= 0:
            self.quiet_fpdus += 1
        else:
            if self.log_fpdus is not None and d["op"] != 0x7:
                self.log_fpdus -= 1
            if self.quiet_fpdus:
                self.out("(%d FPDUs not printed)" % self.quiet_fpdus)
                self.quiet_fpdus = 0
            self.out("rx fpdu %d bytes: %s" % (len(raw), hexs(raw, 96)))
            self.out(d["text"])
        if d["term"]:
            self.out(describe_term(d["term"]))
            self.terms.append(d["term"])
        if self.crc_on and d["crc"] != "ok":
            self.error("CRC negotiated but FPDU CRC is %s" % d["crc"])
        if self.crc_on is False and d["crc"] == "bad":
            self.out("note: CRC not negotiated; CRC field is nonzero and not the CRC (allowed)")
        if self.is_initiator and not self.sent_fpdu and d["op"] != 0x7 and \
                not self.early_ok:
            self.error("Responder sent an FPDU before the Initiator's first FPDU (MPA fencing)")
        self.fpdus.append(d)
        return d

    def drain(self, conn, deadline):
        """Print FPDUs until close or deadline."""
        while not conn.closed and time.monotonic() < deadline:
            if self.next_fpdu(conn, deadline) is None:
                break

    def hold(self, conn):
        if self.a.hold > 0 and not conn.closed:
            self.out("holding %.1fs" % self.a.hold)
            self.drain(conn, time.monotonic() + self.a.hold)

    def wait_close(self, conn, deadline):
        self.drain(conn, deadline)
        if not conn.closed:
            self.out("still open at the deadline (%.1fs)" % (time.monotonic() - conn.mark))


def parse_expect(s):
    if s is None or s == "none":
        return ("none", None)
    if s in ("closed", "reject", "accept"):
        return (s, None)
    if s.startswith("term:"):
        try:
            l, e, c = (int(x, 0) for x in s[5:].split("/"))
        except ValueError:
            raise argparse.ArgumentTypeError("term:LAYER/ETYPE/CODE, e.g. term:2/0/4")
        return ("term", (l, e, c))
    if s in ("rtr:write", "rtr:read"):
        return ("rtr", s[4:])
    if s.startswith("rst-after-fin"):
        v = s[len("rst-after-fin"):].lstrip(":= ")
        try:
            return ("rst-after-fin", float(v))
        except ValueError:
            raise argparse.ArgumentTypeError("rst-after-fin:SECS")
    if s.startswith("silent-close-after"):
        v = s[len("silent-close-after"):].lstrip(":= ")
        try:
            return ("silent-close-after", float(v))
        except ValueError:
            raise argparse.ArgumentTypeError("silent-close-after:SECS")
    raise argparse.ArgumentTypeError("unknown expectation '%s'" % s)


def judge(sess, conn, kind, arg, role, extra_ok=None):
    """Evaluate the expectation.  Returns (ok, reason)."""
    if sess.errors:
        return False, "; ".join(sess.errors)
    if kind == "none":
        return True, "no protocol check failed"
    if kind == "closed":
        if conn.closed:
            return True, "peer closed (%s) after %.3fs" % (conn.closed, conn.closed_at - conn.mark)
        return False, "peer did not close within %.1fs" % sess.a.timeout
    if kind == "term":
        want = "%d/%d/%d" % arg
        order = sess.a.term_order
        got = ["%d/%d/%d" % (t["layer"], t["etype"], t["code"]) for t in sess.terms]
        match = [t for t in sess.terms if tuple(arg) in term_codes(t, order)]
        if not match:
            return False, "no Terminate %s (got %s as RFC 5040 reads it; --term-order %s)" % (
                want, ", ".join(got) or "none", order)
        layout = "rfc"
        if tuple(arg) not in term_codes(match[0], "rfc"):
            want += " (nibble-swapped like Linux siw)"
            layout = "siw"
        probs = term_echo_problems(match[0], layout, sess.last_fpdu)
        if probs:
            return False, "Terminate %s: %s" % (want, "; ".join(probs))
        if not conn.closed:
            return False, "Terminate %s arrived but the peer did not close" % want
        return True, "Terminate %s, then close (%s)" % (want, conn.closed)
    if kind == "silent-close-after":
        if not conn.closed:
            return False, "not closed within %.1fs" % (arg + sess.a.timeout)
        dt = conn.closed_at - conn.mark
        if conn.rx_total - conn.rx_mark:
            return False, "peer sent %d bytes before closing" % (conn.rx_total - conn.rx_mark)
        if dt < arg - sess.a.tolerance:
            return False, "closed after %.3fs, expected at least %.1fs" % (dt, arg)
        return True, "silent close (%s) after %.3fs (expected %.1fs)" % (conn.closed, dt, arg)
    if kind == "rst-after-fin":
        if conn.closed != "fin":
            return False, "the peer did not send FIN (%s)" % (conn.closed or "still open")
        if getattr(conn, "reset_at", None) is None:
            return False, "no RST within %.1fs after the peer's FIN" % (arg + sess.a.timeout)
        dt = conn.reset_at - conn.closed_at
        # An RST in CLOSE_WAIT sets EPIPE, elsewhere ECONNRESET (tcp_reset()).
        if conn.reset_err not in (os.strerror(104), os.strerror(32)):
            return False, "connection ended %.3fs after the FIN, but not by RST (%s)" % (
                dt, conn.reset_err)
        if dt < arg - sess.a.tolerance:
            return False, "RST %.3fs after the FIN, expected at least %.1fs" % (dt, arg)
        return True, "FIN, then (ours withheld) RST %.3fs later (expected %.1fs)" % (dt, arg)
    if extra_ok:
        return extra_ok(kind, arg)
    return False, "expectation %s does not apply to the %s role" % (kind, role)


# --------------------------------------------------------------------------
# Client (MPA Initiator).

def rtr_list(s):
    if s in (None, ""):
        return None
    if s == "none":
        return []
    out = []
    for r in s.split(","):
        if r not in RTR_BITS:
            raise argparse.ArgumentTypeError("RTR forms: write, read, fpdu, none")
        out.append(r)
    return out


def ulp_pd(n, pattern="mpa"):
    if pattern == "cmtest":
        return bytes((i * 7 + n) & 0xFF for i in range(n))
    return bytes((0xA0 + i) & 0xFF for i in range(n))


def corrupt_crc(fpdu):
    """The FPDU with its CRC field inverted."""
    return fpdu[:-4] + bytes(x ^ 0xFF for x in fpdu[-4:])


def build_send(payload=bytes(range(16)), msn=1, crc=True):
    """An RDMA Send (untagged, QN 0): with 16 payload bytes a 40-byte FPDU."""
    return build_fpdu(ddp_untagged(0x3, QN_SEND, msn, 0) + payload, crc)


def client_request(a):
    s = a.s if a.s is not None else (1 if a.rev >= 2 else 0)
    rtr = a.rtr if a.rtr is not None else (["write", "read"] if a.p2p else [])
    pd = (enh_data(a.ird, a.ord, a.p2p, rtr) if s else b"") + ulp_pd(a.pd_len, a.pd_pattern)
    fields = dict(rev=a.rev, c=a.crc, s=s, caps=a.caps, pd=pd)
    key = KEY_REQ
    sc = a.scenario
    if sc == "wrong-key":
        key = (a.key or "MPA ID Rep Frame").encode()[:16].ljust(16, b"\0")
    elif a.key:
        key = a.key.encode()[:16].ljust(16, b"\0")
    if sc == "bad-rev":
        fields["rev"] = 3
    elif sc == "markers":
        fields["m"] = 1
    elif sc == "pd-too-long":
        fields["pd"] = (pd + ulp_pd(MAX_PD + 1))[:MAX_PD + 1]
    elif sc == "truncated":
        fields["pd"] = (pd + ulp_pd(100))[:50]
        fields["pd_len"] = 100
    return build_rr(key, **fields)


def run_client(a, out):
    sess = Session(a, out)
    sess.is_initiator = True
    sess.early_ok = a.rev == 2 and bool(a.caps & 0x6)
    kind, arg = a.expect
    try:
        sock = socket.create_connection((a.host, a.port), timeout=a.timeout)
    except OSError as e:
        out("connect %s:%d failed: %s" % (a.host, a.port, e.strerror or e))
        out("FAIL: no TCP connection")
        return 1
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(None)
    conn = Conn(sock, out)
    out("connected %s:%d -> %s:%d" % (sock.getsockname()[:2] + sock.getpeername()[:2]))

    sc = a.scenario
    req = client_request(a)
    if sc == "garbage":
        import random
        rng = random.Random(a.seed) if a.seed is not None else random.SystemRandom()
        data = bytes(rng.randrange(256) for _ in range(64))
    elif sc in ("half", "half-wait"):
        data = req[:10]
    elif sc == "silence":
        data = b""
    else:
        data = req
    if data:
        if sc in ("valid", "markers", "bad-rev", "wrong-key", "pd-too-long", "truncated"):
            rr = parse_rr(req[:20], req[20:])
            out(describe_rr("request", rr))
        out("sent %s %d bytes: %s" % (sc, len(data), hexs(data, 96)))
        conn.send(data, sc)
    else:
        out("sent nothing")
    if sc == "half":
        try:
            sock.shutdown(socket.SHUT_WR)
            out("sent FIN")
        except OSError as e:
            out("shutdown failed: %s" % e.strerror)

    deadline = time.monotonic() + a.timeout
    if kind == "silent-close-after":
        deadline = conn.mark + arg + a.timeout
    rep = sess.read_rr(conn, deadline, "reply")
    reply_info = {"rep": rep}
    if rep is not None and kind == "silent-close-after":
        # The peer's next timeout (e.g. for the RTR) runs from its Reply.
        conn.set_mark()
        deadline = conn.mark + arg + a.timeout
    if rep is not None:
        if rep["key"] != KEY_REP:
            sess.out("reply key is not \"MPA ID Rep Frame\"")
        elif rep.get("incomplete"):
            pass
        elif rep["R"]:
            out("reject pd_len=%d" % rep["pd_len"])
        else:
            framed = sc in ("valid", "markers", "bad-rev", "wrong-key", "pd-too-long", "truncated")
            client_accepted(a, sess, conn, rep, req if framed else None)
    # Whatever is left: FPDUs (a Terminate, the responder's messages).
    if kind in ("closed", "term", "silent-close-after") or (rep is not None and rep["R"]):
        sess.wait_close(conn, deadline if rep is None or kind == "silent-close-after"
                        else time.monotonic() + a.timeout)
    elif rep is None and not conn.closed:
        sess.drain(conn, deadline)
    else:
        sess.hold(conn)
    if not conn.closed:
        out("closing")
    conn.close()

    def extra(k, v):
        r = reply_info["rep"]
        if k in ("reject", "accept"):
            if r is None:
                return False, "no Reply"
            if r["key"] != KEY_REP:
                return False, "Reply key wrong (%s)" % key_name(r["key"])
            if k == "reject":
                return (True, "rejected, pd_len %d" % r["pd_len"]) if r["R"] else \
                    (False, "Reply accepted (R=0)")
            return (False, "Reply rejected (R=1)") if r["R"] else (True, "accepted")
        return False, "expectation %s does not apply to the client role" % k

    ok, why = judge(sess, conn, kind, arg, "client", extra)
    out(("PASS: " if ok else "FAIL: ") + why)
    return 0 if ok else 1


def client_accepted(a, sess, conn, rep, req):
    out = sess.out
    if req is None:     # what we sent was no Request (garbage, half)
        rq = {"C": 0, "enh": None, "rev": 0}
    else:
        rq = parse_rr(req[:20], req[20:])
    sess.crc_on = bool(rq["C"] or rep["C"])
    sess.markers = bool(rep["M"])
    out("negotiated crc=%d markers=%d" % (sess.crc_on, rep["M"]))
    if rq["enh"] and rq["rev"] >= 2 and (rep["rev"] < 2 or not rep["enh"]):
        out("note: enhanced Request but the Reply has rev=%d S=%d" % (rep["rev"], rep["S"]))
    p2p = bool(rq["enh"] and rq["enh"]["p2p"] and rep["enh"] and rep["enh"]["p2p"])
    if rq["enh"] and rq["enh"]["p2p"] and rep["enh"] and not rep["enh"]["p2p"]:
        out("note: Reply clears A (p2p) although the Request set it")
    choice = a.send_rtr
    if choice in ("send", "garbage"):
        if choice == "send":
            f = build_send(crc=sess.crc_on)
        else:
            f = bytes([0xA5]) * 40
        if a.corrupt_crc:
            f = corrupt_crc(f)
        if conn.send(f, choice):
            sess.sent_fpdu = True
            sess.last_fpdu = f
            out("sent %s %d bytes: %s" % (choice, len(f), hexs(f)))
        return
    if choice == "auto":
        if not p2p:
            choice = "none"
        elif "write" in rep["enh"]["rtr"]:
            choice = "write"
        elif "read" in rep["enh"]["rtr"]:
            choice = "read"
        else:
            out("note: no Write/Read RTR allowed by the Reply (rtr=%s); sending none" %
                (",".join(rep["enh"]["rtr"]) or "none"))
            choice = "none"
    if choice == "none":
        return
    if choice == "write":
        f = build_write_rtr(stag=a.sink_stag, crc=sess.crc_on)
        if a.corrupt_crc:
            f = corrupt_crc(f)
            out("CRC field inverted (--corrupt-crc)")
        if conn.send(f, "write RTR"):
            sess.sent_fpdu = True
            sess.last_fpdu = f
            out("sent write-rtr %d bytes: %s" % (len(f), hexs(f)))
        return
    f = build_read_rtr(sink_stag=a.sink_stag, sink_to=a.sink_to, src_stag=a.src_stag,
                       src_to=0, crc=sess.crc_on)
    if a.corrupt_crc:
        f = corrupt_crc(f)
        out("CRC field inverted (--corrupt-crc)")
    if not conn.send(f, "read RTR"):
        return
    sess.sent_fpdu = True
    sess.last_fpdu = f
    out("sent read-rtr %d bytes: %s" % (len(f), hexs(f)))
    d = sess.next_fpdu(conn, time.monotonic() + a.timeout)
    if d is None:
        if a.expect[0] not in ("closed", "term", "silent-close-after"):
            sess.error("no Read Response to the Read RTR")
        return
    if d["term"] is not None and a.expect[0] == "term":
        out("Terminate instead of a Read Response")
        return
    want = build_read_resp(a.sink_stag, a.sink_to, crc=sess.crc_on)
    got = d["raw"]
    if got[:-4] != want[:-4] or (sess.crc_on and got != want):
        sess.error("Read Response is not the expected zero-length Read Response "
                   "(want %s)" % hexs(want))
    else:
        out("read-resp ok stag=0x%08x to=0x%x" % (a.sink_stag, a.sink_to))


# --------------------------------------------------------------------------
# Server (MPA Responder).

def server_reply(a, rq):
    """Build the Reply for scenario a.scenario to Request rq.  Returns
    (bytes, info dict)."""
    sc = a.scenario
    rev = a.rev if a.rev is not None else min(rq["rev"], 2) if rq["rev"] <= 2 else 2
    enh_req = rq["enh"] if (rq["rev"] >= 2) else None
    s = a.s if a.s is not None else (1 if enh_req else 0)
    crc = 1 if (a.crc or rq["C"]) else 0
    p2p = bool(enh_req and enh_req["p2p"])
    if enh_req:
        ird = a.ird if a.ird is not None else enh_req["ord"]
        ord_ = a.ord if a.ord is not None else enh_req["ird"]
    else:
        ird = a.ird if a.ird is not None else 16
        ord_ = a.ord if a.ord is not None else 16
    if a.rtr is not None:
        rtr = a.rtr
    elif p2p:
        offered = enh_req["rtr"]
        rtr = ["write"] if "write" in offered else ["read"] if "read" in offered else ["write"]
    else:
        rtr = []
    m = r = 0
    key = KEY_REP
    if sc == "wrong-key":
        key = (a.key or "MPA ID Req Frame").encode()[:16].ljust(16, b"\0")
    elif a.key:
        key = a.key.encode()[:16].ljust(16, b"\0")
    if sc == "bad-rev":
        rev = 3
    elif sc == "markers":
        m = 1
    elif sc == "reject":
        r = 1
    elif sc == "s-mismatch":
        s = 0
    elif sc == "p2p-fpdu-only":
        p2p, rtr = True, ["fpdu"]
    elif sc == "ord-too-big":
        ord_ = 0x3000
    pd = (enh_data(ird, ord_, p2p, rtr if p2p else []) if s else b"") + \
        ulp_pd(a.pd_len, a.pd_pattern)
    frame = build_rr(key, rev=rev, m=m, c=crc, r=r, s=s, caps=a.caps, pd=pd)
    return frame, {"crc": crc, "p2p": p2p and s == 1, "rtr": rtr, "m": m, "r": r}


def run_server(a, out):
    sess = Session(a, out)
    kind, arg = a.expect
    fam = socket.AF_INET6 if ":" in a.bind else socket.AF_INET
    ls = socket.socket(fam, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        ls.bind((a.bind, a.port))
        ls.listen(1)
    except OSError as e:
        out("bind/listen %s:%d failed: %s" % (a.bind, a.port, e.strerror or e))
        out("FAIL: cannot listen")
        return 1
    out("listening %s:%d" % ls.getsockname()[:2])
    r, _, _ = select.select([ls], [], [], a.accept_timeout if a.accept_timeout else a.timeout)
    if not r:
        out("FAIL: no connection within %.1fs" % (a.accept_timeout or a.timeout))
        return 1
    sock, peer = ls.accept()
    ls.close()
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    conn = Conn(sock, out)
    out("accepted %s:%d -> %s:%d" % (peer[:2] + sock.getsockname()[:2]))

    deadline = time.monotonic() + a.timeout
    rq = sess.read_rr(conn, deadline, "request")
    conn.set_mark()
    info = {"rtr_ok": None, "rq": rq}
    if rq is None:
        out("no valid Request; closing" if not conn.closed else "no Request")
        if conn.buf:
            out("rx %d bytes: %s" % (len(conn.buf), hexs(conn.buf)))
        if kind in ("none", "rtr"):
            sess.error("no MPA Request")
    elif rq.get("incomplete"):
        out("Request incomplete; not replying")
        if kind in ("none", "rtr"):
            sess.error("incomplete MPA Request")
    elif a.scenario == "close":
        out("closing after the Request")
    elif a.scenario == "silence":
        out("not replying")
        wait_dl = conn.mark + (arg if kind == "silent-close-after" else 0) + a.timeout
        sess.wait_close(conn, wait_dl)
    else:
        frame, ri = server_reply(a, rq)
        rr = parse_rr(frame[:20], frame[20:])
        out(describe_rr("sent-reply", rr))
        out("sent %s reply %d bytes: %s" % (a.scenario, len(frame), hexs(frame, 96)))
        conn.send(frame, "reply")
        if a.scenario == "valid":
            sess.crc_on = bool(ri["crc"])
            if ri["p2p"] and rq["enh"]["p2p"]:
                server_rtr(a, sess, conn, rq, ri, info)
        if kind in ("closed", "term", "silent-close-after"):
            sess.wait_close(conn, conn.mark + a.timeout +
                            (arg if kind == "silent-close-after" else 0))
        elif kind == "rst-after-fin":
            sess.wait_close(conn, time.monotonic() + a.timeout)
            if conn.closed == "fin":
                out("not answering the peer's FIN")
                conn.watch_reset(conn.closed_at + arg + a.timeout)
        else:
            sess.hold(conn)
    if not conn.closed:
        out("closing")
    conn.close()

    def extra(k, v):
        if k == "rtr":
            if info["rtr_ok"] == v:
                return True, "%s RTR received and checked" % v
            return False, "no valid %s RTR (got %s)" % (v, info["rtr_ok"] or "none")
        return False, "expectation %s does not apply to the server role" % k

    ok, why = judge(sess, conn, kind, arg, "server", extra)
    out(("PASS: " if ok else "FAIL: ") + why)
    return 0 if ok else 1


def server_rtr(a, sess, conn, rq, ri, info):
    out = sess.out
    d = sess.next_fpdu(conn, time.monotonic() + a.timeout)
    if d is None:
        sess.error("no RTR FPDU")
        return
    got = d["raw"]
    crc_on = sess.crc_on
    if d["op"] == 0x0 and d.get("T") == 1:
        form = "write"
        want = build_write_rtr(stag=d.get("stag", 0), crc=crc_on)
    elif d["op"] == 0x1 and d.get("T") == 0:
        form = "read"
        want = build_read_rtr(sink_stag=d.get("sink_stag", 0), sink_to=d.get("sink_to", 0),
                              src_stag=d.get("src_stag", 0), src_to=d.get("src_to", 0),
                              crc=crc_on)
    else:
        sess.error("first FPDU is not an RTR (op=%s)" % d["op"])
        return
    out("rtr form=%s" % form)
    if form not in ri["rtr"]:
        sess.error("%s RTR, but the Reply allowed only %s" % (form, ",".join(ri["rtr"]) or "none"))
    if got[:-4] != want[:-4] or (crc_on and got != want):
        sess.error("%s RTR differs from the expected image %s" % (form, hexs(want)))
        return
    if form == "write" and d["stag"] != 1:
        out("note: write RTR STag 0x%08x (any value is allowed; Linux siw uses 1)" % d["stag"])
    if form == "write" and a.strict_stag and d["stag"] != 1:
        sess.error("write RTR STag is not 1 (--strict-stag)")
        return
    if not crc_on and d["crc"] != "zero":
        out("note: CRC not negotiated, RTR CRC field 0x%08x" % d["crc_wire"])
    out("rtr ok form=%s" % form)
    if form == "read":
        if a.read_resp == "none":
            out("not answering the Read RTR (--read-resp none)")
            conn.set_mark()
        else:
            stag = d["sink_stag"] + (1 if a.read_resp == "bad-stag" else 0)
            resp = build_read_resp(stag & 0xFFFFFFFF, d["sink_to"], crc=crc_on)
            if a.corrupt_crc:
                resp = corrupt_crc(resp)
                out("CRC field inverted (--corrupt-crc)")
            if conn.send(resp, "read response"):
                sess.last_fpdu = resp
                out("sent read-resp %d bytes: %s" % (len(resp), hexs(resp)))
    info["rtr_ok"] = form


# --------------------------------------------------------------------------
# selftest

# Byte images transcribed from the protocol digest, section 1.4.
DIGEST_IMAGES = {
    "request": """
  0000: 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65
  0010: 50 02 00 04 80 10 c0 10""",
    "reply": """
  0000: 4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65
  0010: 50 02 00 04 80 10 80 10""",
    "write-rtr": """
  0000: 00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00
  0010: eb d3 4c 5f""",
    "read-rtr": """
  0000: 00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01
  0010: 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00
  0020: 00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00
  0030: 27 db d7 e7""",
    "terminate": """
  0000: 00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01
  0010: 00 00 00 00 20 06 00 00 65 40 fb 1b""",
}
# Title prefixes of those images in the digest (for --digest).
DIGEST_TITLES = {
    "request": "MPA Request, Rev 2",
    "reply": "MPA Reply, Rev 2",
    "write-rtr": "Zero-length RDMA Write RTR",
    "read-rtr": "Zero-length RDMA Read Request RTR",
    "terminate": "Terminate, Layer 2",
}


def parse_hexdump(text):
    out = b""
    for line in text.strip().splitlines():
        line = line.strip()
        if ":" not in line:
            continue
        off, rest = line.split(":", 1)
        if int(off, 16) != len(out):
            raise ValueError("hex dump offset %s out of sequence" % off)
        out += bytes(int(x, 16) for x in rest.split())
    return out


def digest_images(path):
    """All "### title" + hex dump blocks of the digest's section 1.4."""
    imgs, title, lines, in14 = {}, None, [], False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("### 1.4"):
                in14 = True
                continue
            if in14 and line.startswith("### 1.5"):
                break
            if not in14:
                continue
            if line.startswith("###"):
                if title is not None and lines:
                    imgs[title] = parse_hexdump("\n".join(lines))
                if line.startswith("###   "):      # continued title line
                    continue
                title, lines = line[3:].strip(), []
            elif title is not None and line.strip()[:5].rstrip(":").isalnum() and ":" in line:
                lines.append(line)
    if title is not None and lines:
        imgs[title] = parse_hexdump("\n".join(lines))
    return imgs


def selftest(a, out):
    fails = []

    def check(name, ok, detail=""):
        out("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""))
        if not ok:
            fails.append(name)

    v = crc32c(b"123456789")
    check("crc32c(\"123456789\") = 0x%08x" % v, v == 0xE3069283)
    img = {k: parse_hexdump(t) for k, t in DIGEST_IMAGES.items()}
    built = {
        "request": build_rr(KEY_REQ, rev=2, c=1, s=1,
                            pd=enh_data(16, 16, p2p=True, rtr=["write", "read"])),
        "reply": build_rr(KEY_REP, rev=2, c=1, s=1,
                          pd=enh_data(16, 16, p2p=True, rtr=["write"])),
        "write-rtr": build_write_rtr(stag=1, crc=True),
        "read-rtr": build_read_rtr(sink_stag=1, sink_to=0, src_stag=1, src_to=0, msn=1, crc=True),
        "terminate": build_terminate(2, 0, 6, msn=1, crc=True),
    }
    for k in DIGEST_IMAGES:
        check("builder %s = digest image (%d bytes)" % (k, len(img[k])), built[k] == img[k],
              "" if built[k] == img[k] else "built %s" % hexs(built[k], 96))
    check("write RTR CRC = 0x5f4cd3eb", struct.unpack("<I", img["write-rtr"][-4:])[0] == 0x5F4CD3EB)

    # Parsers on the same images.
    rq = parse_rr(img["request"][:20], img["request"][20:])
    check("parse request", describe_rr("request", rq) ==
          "request rev=2 M=0 C=1 R=0 S=1 caps=0x0 p2p=1 rtr=write,read ird=16 ord=16 pd_len=4 key=req",
          describe_rr("request", rq))
    rp = parse_rr(img["reply"][:20], img["reply"][20:])
    check("parse reply", describe_rr("reply", rp) ==
          "reply rev=2 M=0 C=1 R=0 S=1 caps=0x0 p2p=1 rtr=write ird=16 ord=16 pd_len=4 key=rep",
          describe_rr("reply", rp))
    t = decode_fpdu(img["terminate"])
    check("decode terminate", t["term"] is not None and t["crc"] == "ok" and
          (t["term"]["layer"], t["term"]["etype"], t["term"]["code"]) == (2, 0, 6) and
          t.get("qn") == 2 and t.get("msn") == 1 and t.get("mo") == 0, describe_term(t["term"]))
    w = decode_fpdu(img["write-rtr"])
    check("decode write RTR", (w["T"], w["L"], w["op"], w["stag"], w["to"], w["payload"], w["crc"]) ==
          (1, 1, 0, 1, 0, 0, "ok"), w["text"])
    rr = decode_fpdu(img["read-rtr"])
    check("decode read RTR", (rr["T"], rr["op"], rr["qn"], rr["msn"], rr["size"], rr["sink_stag"],
                              rr["crc"]) == (0, 1, 1, 1, 0, 1, "ok"), rr["text"])
    resp = build_read_resp(0x12345678, 0x1000, crc=True)
    d = decode_fpdu(resp)
    check("read response header", resp[:16] == bytes.fromhex("000ec142123456780000000000001000")
          and d["crc"] == "ok", hexs(resp))
    check("pad arithmetic", [pad_len(n) for n in (14, 15, 16, 17, 18)] == [0, 3, 2, 1, 0])
    sw = decode_term_ctrl(bytes.fromhex("02040000"))
    check("terminate ctrl as siw sends 2/0/4", term_codes(sw, "rfc") == [(0, 2, 4)] and
          term_codes(sw, "siw") == [(2, 0, 4)] and (2, 0, 4) in term_codes(sw, "any"))
    # A Terminate's echoed headers against the FPDU that caused it.
    snt = build_send(crc=True)
    ulen = struct.unpack(">H", snt[:2])[0]
    good = decode_fpdu(build_terminate(0, 2, 6, flags=0xC000,
                                       extra=struct.pack(">H", ulen) + snt[2:20]))["term"]
    check("terminate echo: header as sent", term_echo_problems(good, "rfc", snt) == [],
          repr(term_echo_problems(good, "rfc", snt)))
    for what, extra in (("a flipped MSN octet", struct.pack(">H", ulen) + snt[2:15] +
                         bytes([snt[15] ^ 1]) + snt[16:20]),
                        ("the payload length as Segment Length",
                         struct.pack(">H", ulen - 18) + snt[2:20]),
                        ("a short header", struct.pack(">H", ulen) + snt[2:16])):
        bad = decode_fpdu(build_terminate(0, 2, 6, flags=0xC000, extra=extra))["term"]
        check("terminate echo: %s is caught" % what, term_echo_problems(bad, "rfc", snt) != [])
    hl = decode_fpdu(build_terminate(2, 0, 4))["term"]
    check("terminate echo: no headers, none expected", term_echo_problems(hl, "rfc", None) == [])
    junk = decode_fpdu(build_terminate(2, 0, 4, extra=b"\x01\x02"))["term"]
    check("terminate echo: octets without D are caught",
          term_echo_problems(junk, "rfc", None) != [])
    nocrc = build_terminate(2, 0, 4, crc=False)
    check("terminate without CRC", nocrc[-4:] == bytes(4) and decode_fpdu(nocrc)["crc"] == "zero")
    snd = decode_fpdu(build_send(crc=True))
    check("send FPDU: 40 bytes, QN 0 MSN 1, 16 payload bytes",
          len(build_send()) == 40 and (snd["op"], snd["qn"], snd["msn"], snd["payload"], snd["crc"]) ==
          (3, 0, 1, 16, "ok"), snd["text"])
    check("corrupt CRC", decode_fpdu(corrupt_crc(build_write_rtr()))["crc"] == "bad")
    check("cmtest private data pattern", ulp_pd(8, "cmtest") == bytes.fromhex("080f161d242b3239"))

    # The digest itself, if it can be found: every 1.4 image carries a valid
    # CRC (FPDUs), and the five images above match it byte for byte.
    path = a.digest or os.environ.get("MPA_PEER_DIGEST")
    if path:
        try:
            dimgs = digest_images(path)
        except OSError as e:
            check("read digest %s" % path, False, e.strerror)
            dimgs = {}
        check("digest %s: %d images in 1.4" % (path, len(dimgs)), len(dimgs) >= 5)
        for k, prefix in DIGEST_TITLES.items():
            m = [v for t, v in dimgs.items() if t.startswith(prefix)]
            check("digest image '%s' = embedded %s" % (prefix, k), len(m) == 1 and m[0] == img[k])
        for title, data in dimgs.items():
            if data.startswith(KEY_REQ) or data.startswith(KEY_REP):
                continue
            ok = fpdu_size(data) == len(data) and crc_state(data)[0] == "ok"
            check("digest FPDU CRC/length: %s" % title[:60], ok)
    else:
        out("skip digest cross-check (no --digest PATH / MPA_PEER_DIGEST)")

    if not a.no_net:
        loopback_tests(out, check)
    if fails:
        out("FAIL: %d check(s) failed: %s" % (len(fails), ", ".join(fails)))
        return 1
    out("PASS: all checks")
    return 0


def loopback_tests(out, check):
    """Client against server over 127.0.0.1: the CLI end to end."""
    import subprocess
    me = [sys.executable, os.path.abspath(__file__)]
    cases = [
        # (name, server args, client args, server rc, client rc)
        ("p2p write RTR", ["--scenario", "valid", "--expect", "rtr:write"],
         ["--p2p", "--expect", "accept"], 0, 0),
        ("p2p read RTR, CRC", ["--scenario", "valid", "--rtr", "read", "--expect", "rtr:read"],
         ["--p2p", "--crc", "--sink-stag", "0x5a5a0001", "--sink-to", "0x1000",
          "--expect", "accept"], 0, 0),
        ("rev 1 client-server", ["--scenario", "valid"],
         ["--rev", "1", "--expect", "accept"], 0, 0),
        ("reject", ["--scenario", "reject", "--pd-len", "8"], ["--expect", "reject"], 0, 0),
        ("wrong-key reply fails accept", ["--scenario", "wrong-key"],
         ["--expect", "accept"], 0, 1),
        ("server closes: client sees close", ["--scenario", "close"],
         ["--expect", "closed"], 0, 0),
        ("silent close after 1s", ["--scenario", "valid", "--timeout", "1"],
         ["--scenario", "silence", "--expect", "silent-close-after:1"], 1, 0),
        ("term expectation fails on plain close", ["--scenario", "close"],
         ["--expect", "term:2/0/4"], 0, 1),
        ("a Send as first p2p FPDU is no RTR", ["--scenario", "valid", "--expect", "rtr:write"],
         ["--p2p", "--send-rtr", "send"], 1, 0),
        ("Read Response with a wrong STag", ["--scenario", "valid", "--rtr", "read",
                                             "--read-resp", "bad-stag"],
         ["--p2p", "--expect", "accept"], 0, 1),
    ]
    for name, sargs, cargs, src_want, crc_want in cases:
        srv = subprocess.Popen(me + ["server", "0", "--bind", "127.0.0.1"] + sargs,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first = srv.stdout.readline()
        port = first.rsplit(":", 1)[-1].strip() if first.startswith("listening") else None
        if not port:
            srv.kill()
            check("loopback %s" % name, False, "server did not listen: %s" % first.strip())
            continue
        cl = subprocess.run(me + ["client", "127.0.0.1", port, "--timeout", "3"] + cargs,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=30)
        try:
            srest, _ = srv.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            srv.kill()
            srest, _ = srv.communicate()
        ok = srv.returncode == src_want and cl.returncode == crc_want
        detail = "server rc %d, client rc %d" % (srv.returncode, cl.returncode)
        check("loopback %s" % name, ok, detail)
        if not ok:
            for l in (first + srest).splitlines():
                out("    server| " + l)
            for l in cl.stdout.splitlines():
                out("    client| " + l)


# --------------------------------------------------------------------------
# Command line.

CLIENT_SCENARIOS = ["valid", "garbage", "silence", "half", "half-wait", "wrong-key",
                    "bad-rev", "pd-too-long", "truncated", "markers"]
SERVER_SCENARIOS = ["valid", "wrong-key", "bad-rev", "reject", "markers", "s-mismatch",
                    "p2p-fpdu-only", "ord-too-big", "silence", "close"]


def intarg(s):
    try:
        return int(s, 0)
    except ValueError:
        raise argparse.ArgumentTypeError("not an integer: %s" % s)


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print("%s: error: %s" % (self.prog, message), file=sys.stderr)
        sys.exit(2)


def common(p, role):
    p.add_argument("--timeout", type=float, default=10.0,
                   help="deadline of every wait in seconds (default 10)")
    p.add_argument("--expect", type=parse_expect, default=("none", None),
                   help="closed | term:L/E/C | silent-close-after:SECS | " +
                   ("reject | accept" if role == "client" else
                    "rtr:write | rtr:read | rst-after-fin:SECS"))
    p.add_argument("--tolerance", type=float, default=0.5,
                   help="silent-close-after: how much earlier the close may come (0.5 s)")
    p.add_argument("--hold", type=float, default=0.0,
                   help="keep the connection open SECS after the handshake, printing what arrives")
    p.add_argument("--crc", action="store_true", help="set C")
    p.add_argument("--caps", type=intarg, default=0, help="low nibble of the flags octet")
    p.add_argument("--s", type=int, choices=[0, 1], default=None, help="force S")
    p.add_argument("--pd-len", type=int, default=0, help="ULP private data bytes")
    p.add_argument("--key", default=None, help="16-character key to send instead")
    p.add_argument("--rtr", type=rtr_list, default=None,
                   help="RTR forms: list of write,read,fpdu or none")
    p.add_argument("--timestamps", action="store_true", help="prefix lines with elapsed time")
    p.add_argument("--pd-pattern", choices=["mpa", "cmtest"], default="mpa",
                   help="ULP private data: 0xa0 + i (mpa) or (i * 7 + N) & 0xff (cmtest)")
    p.add_argument("--corrupt-crc", action="store_true",
                   help="invert the CRC field of the first FPDU we send")
    p.add_argument("--term-order", choices=["rfc", "siw", "any"], default="rfc",
                   help="term:L/E/C matches the RFC 5040 layout (default), Linux siw's "
                   "nibble-swapped one, or either")


def main(argv):
    p = Parser(prog="mpa_peer.py", description=__doc__.split("\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter,
               epilog="\n".join(__doc__.split("\n")[2:]))
    sub = p.add_subparsers(dest="role", parser_class=Parser)
    c = sub.add_parser("client", help="act as MPA Initiator")
    c.add_argument("host")
    c.add_argument("port", type=int)
    c.add_argument("--scenario", choices=CLIENT_SCENARIOS, default="valid")
    common(c, "client")
    c.add_argument("--rev", type=int, default=2)
    c.add_argument("--p2p", action="store_true", help="set A (peer-to-peer)")
    c.add_argument("--ird", type=intarg, default=16)
    c.add_argument("--ord", type=intarg, default=16)
    c.add_argument("--send-rtr", choices=["auto", "write", "read", "none", "send", "garbage"],
                   default="auto")
    c.add_argument("--sink-stag", type=intarg, default=1)
    c.add_argument("--sink-to", type=intarg, default=0)
    c.add_argument("--src-stag", type=intarg, default=1)
    c.add_argument("--seed", type=int, default=None, help="garbage: fixed random seed")
    s = sub.add_parser("server", help="act as MPA Responder")
    s.add_argument("port", type=int)
    s.add_argument("--bind", default="0.0.0.0")
    s.add_argument("--scenario", choices=SERVER_SCENARIOS, default="valid")
    common(s, "server")
    s.add_argument("--rev", type=int, default=None, help="Rev of the Reply (default: echo)")
    s.add_argument("--ird", type=intarg, default=None)
    s.add_argument("--ord", type=intarg, default=None)
    s.add_argument("--accept-timeout", type=float, default=None,
                   help="wait for the connection this long (default --timeout)")
    s.add_argument("--strict-stag", action="store_true", help="write RTR STag must be 1")
    s.add_argument("--read-resp", choices=["ok", "none", "bad-stag"], default="ok",
                   help="answer to a Read RTR: the Read Response, none, or one with a wrong STag")
    t = sub.add_parser("selftest", help="check CRC32c, builders and parsers")
    t.add_argument("--digest", default=None, help="DIGEST.md to cross-check the images with")
    t.add_argument("--no-net", action="store_true", help="skip the loopback client/server runs")
    a = p.parse_args(argv)
    if a.role is None:
        p.print_usage(sys.stderr)
        return 2
    out = Out(getattr(a, "timestamps", False))
    if a.role == "selftest":
        return selftest(a, out)
    if a.timeout <= 0 or a.hold < 0 or a.pd_len < 0 or a.pd_len > 4096:
        p.error("bad --timeout/--hold/--pd-len")
    kind = a.expect[0]
    if a.role == "client":
        if kind in ("rtr", "rst-after-fin"):
            p.error("--expect %s is for the server role" % kind)
        if not 0 <= a.ird <= E_MASK or not 0 <= a.ord <= E_MASK:
            p.error("--ird/--ord are 14-bit values")
        return run_client(a, out)
    if kind in ("reject", "accept"):
        p.error("--expect %s is for the client role" % kind)
    return run_server(a, out)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(1)
