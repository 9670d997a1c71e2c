#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""ext_peer.py - a hostile iWARP peer for the RDMAP extensions (issue 6).

Plain TCP, Python 3 standard library; the MPA/DDP builders come from
mpa_peer.py next to this file.  The peer negotiates siw2's capability bits
(DEC-4: MPA Rev 2, Res bits 0x4 RDMAP v2 / 0x2 Commit, acknowledged with
0x1), then sends one crafted FPDU and checks the Terminate siw2 answers
with (Layer/EType/Code, and D=1, M=1, R=0 with the offending DDP header:
EXT-ERR-2, V2-ERR-2): the echoed DDP Segment Length must be the offending
ULPDU_Length and the echoed DDP header the one we sent, octet for octet,
with nothing after it.  Every error case of DIGEST.md for these drafts:

As MPA Initiator, against "siw2_ext -s" (one connection per scenario):
  atomic-ok     positive control: a valid FetchAdd on the server's window
                is answered with an Atomic Response (QN 3, MSN 1, the
                Request Identifier echoed, the original value = the
                window's first 8 octets, RV 2)
  imm-len       Immediate Data of 4 octets: 0/2/0xFF (DEC-9, EXT-IMM-12)
  rv1-on-rv2    a Send with RV 1 on an RV 2 connection: 0/2/0x05 (V2-HDR-1)
  rv2-on-rv1    a Send with RV 2 on an RFC 7306 (RV 1) connection: 0/2/0x05
  v2op-on-rv1   Send with Immediate (0x13) on the RV 1 connection: 0/2/0x06
                (DEC-1)
  ext-no-caps   an Atomic Request without negotiated bits: 0/2/0x06
  aop-reserved  an Atomic Request with AOpCode 3: 0/2/0x06
  resp-no-req   an Atomic Response with nothing outstanding: 1/2/0x02
                (DEC-8)
  atomic-misaligned
                a FetchAdd of 1 at the window's guard u64 + 4 (window offset
                68): 0/2/0x07 (EXT-ERR-6); the server's "EXT WIN" line of
                this connection must still show the window's initial
                octets, printed as "EXTPEER GUARD" (EXT-ATOMIC-3)
  atomic-bad-crc
                CRC negotiated (C=1), a valid FetchAdd of 1 at the guard
                u64 whose FPDU CRC is inverted: 2/0/0x02 without headers,
                and the guard as above: a request not Delivered is never
                executed (EXT-ORD-2)
  RDMA Commit (against "siw2_ext -s" or "siw2_commit -s --pmem DEV",
  whose window the MPA Reply names the same way, durable for siw2_commit;
  Commit negotiated unless said):
  commit-ok     a Commit of 64 octets of the window: a Commit Response
                (0xD, QN 3, MSN 1, the connection's RV, the Request
                Identifier echoed, Status 0: COMMIT-HDR-4/6)
  commit-not-durable
                (siw2_commit) a Commit of 64 octets of its ram window,
                ordinary memory: Status 4, visible but not durable, no
                Terminate (SIW2-DEC-2, COMMIT-DUR-4)
  commit-zero   a Commit of 0 octets naming STag 0: Status 0 (DEC-12)
  commit-tail   a Commit Request with 8 octets after its one region:
                Status 2, no Terminate (AMB-14, COMMIT-VAL-2)
  commit-no-caps
                a Commit Request without the Commit bit: 0/2/0x06
                (COMMIT-DISC-2)
  commit-bad-stag
                a Commit naming an STag that does not exist: 0/1/0x00
                (COMMIT-ACC-1, DEC-10)
  commit-bounds a Commit past the window's end: 0/1/0x01
  commit-resp-no-req
                a Commit Response with nothing outstanding: 1/2/0x02
  siw2's log update after the region (against "siw2_commit -s"; octets
  38..61 of the 62-octet ULPDU: type, rsvd, log STag, log TO, 8 value
  octets; COMMIT-ATOM-2, SIW2-DEC-1), the Commit range always 64 octets
  of the window; each prints "EXTPEER LOG 0x..." (the u64 at window
  offset 0xFF000, little-endian, that the server's "COMMIT WIN" line of
  this connection must show as log=; seeded 0x5eed5eed5eed5eed):
  commit-log    a log update of octets 11 22 .. 88 at window offset
                0xFF000: Status 0, the Request Identifier echoed, no
                Terminate; LOG 0x8877665544332211
  commit-log-type
                the same with type 0x8002: Status 2, no Terminate
                (AMB-14); LOG unchanged
  commit-log-rsvd
                type 0x8001 with rsvd 1: Status 2, no Terminate; LOG
                unchanged
  commit-log-misaligned
                the log TO at window offset 0xFF004: 0/2/0x07 (as
                EXT-ERR-6 for an atomic); LOG unchanged
  commit-log-bad-stag
                a log STag that does not exist: 0/1/0x00 (DEC-10); LOG
                unchanged
  commit-log-bounds
                the log TO 1 GiB past the window: 0/1/0x01 (DEC-10); LOG
                unchanged
  commit-log-refused
                a Commit of the ram window with a log update of the
                durable window's word: Status 5, the word is never stored
                after a range that is not durable (SIW2-DEC-1); LOG
                unchanged
  commit-inval-mr
                a Commit whose Invalidate STag is the window's own, an
                ordinary MR that cannot be invalidated: after the commit,
                0/2/0x09 without headers (DEC-20)
As MPA Responder, for a siw2_counter client (--responder; it posts one
FetchAdd, or one Read with -r, and the peer answers it):
  resp-ok       a correct Atomic Response: the client's FetchAdd completes
  resp-msn      an Atomic Response with QN 3 MSN 2: 1/2/0x03 (DEC-8)
  resp-reqid    the right MSN, another Request Identifier: 0/2/0x07
  read-v2-ok    a correct 16-octet Read V2 Response (client: read_v2=1)
  read-v2-long  a 32-octet Read V2 Response to a 16-octet Read: 1/2/0x05
                (DEC-8, oversized response)
  commit-status for a "siw2_commit --status-peer" client: its first Commit
                is answered with Status 1 (not made durable), its second
                with Status 0; no Terminate either way (COMMIT-ERR-3), the
                client checks the completions (DEC-13)

  ext_peer.py run SCENARIO HOST PORT       one Initiator scenario
  ext_peer.py serve SCENARIO PORT          one Responder scenario
  ext_peer.py list                         the scenarios
  ext_peer.py wire FOLLOW                  check a captured siw2_ext --order
                                           connection ("tshark -q -z
                                           follow,tcp,raw,N" output): the
                                           Requester's QN 1 MSNs count Read
                                           and Atomic Requests as one
                                           sequence (EXT-ATOMIC-14), and a
                                           Send with Immediate of 0 octets
                                           is one FPDU, L=1, MO=0, holding
                                           the 8 immediate octets only
                                           (V2-IMM-10)
  ext_peer.py commit-wire FOLLOW [ST,..]   check a captured siw2_commit
                                           connection: every FPDU's CRC,
                                           Commit Requests on QN 1 in the
                                           Reads' MSN sequence, L=1, MO=0,
                                           the connection's RV, 20 octets,
                                           or 44 with a log update (type
                                           0x8001, rsvd 0, an 8-aligned
                                           log TO: SIW2-DEC-1),
                                           Invalidate STag 0; Responses on
                                           QN 3, 8 octets, identifiers in
                                           order, each Status one of ST
                                           (default 0; "0,4" where the
                                           windows are not durable,
                                           SIW2-DEC-2) (COMMIT-HDR-*)
  ext_peer.py selftest                     the wire checks on built streams

Prints "EXTPEER RESULT <scenario> PASS|FAIL <why>", ending with
req="<IDs>" where the table names the requirement IDs the scenario or
wire check asserts; exit 0 on PASS.
"""

import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpa_peer as mp  # noqa: E402

CAP_V2, CAP_COMMIT, CAP_ACK = 0x4, 0x2, 0x1
TIMEOUT = 10.0


class Case:
    """A scenario's entry: the capability bits it offers (Initiator
    scenarios), the Terminate it expects ((L, E, C), or None), and req, the
    requirement IDs its verdict asserts: its RESULT line ends with them."""

    def __init__(self, caps=0, term=None, req=""):
        self.caps, self.term, self.req = caps, term, req


V2C = CAP_V2 | CAP_COMMIT
INITIATOR = {
    "atomic-ok": Case(V2C, req="EXT-ATOMIC-17 EXT-ATOMIC-18 EXT-ATOMIC-19 EXT-ATOMIC-26"),
    "imm-len": Case(V2C, (0, 2, 0xFF), req="EXT-IMM-12 DEC-9 EXT-IMM-4 EXT-ERR-2"),
    "rv1-on-rv2": Case(V2C, (0, 2, 0x05), req="EXT-ERR-5 V2-ERR-3 V2-HDR-1 EXT-ERR-2"),
    "rv2-on-rv1": Case(CAP_COMMIT, (0, 2, 0x05), req="EXT-ERR-5"),
    "v2op-on-rv1": Case(CAP_COMMIT, (0, 2, 0x06), req="EXT-ERR-4 DEC-1 V2-HDR-4"),
    "ext-no-caps": Case(0, (0, 2, 0x06), req="EXT-GEN-1 EXT-ERR-4"),
    "aop-reserved": Case(V2C, (0, 2, 0x06), req="EXT-ATOMIC-13 EXT-ERR-4 EXT-ERR-2"),
    "resp-no-req": Case(V2C, (1, 2, 0x02), req="EXT-ATOMIC-23 DEC-8"),
    "atomic-misaligned": Case(V2C, (0, 2, 0x07), req="EXT-ATOMIC-3 EXT-ERR-6"),
    "atomic-bad-crc": Case(V2C, (2, 0, 0x02), req="EXT-ORD-2"),
    "commit-ok": Case(V2C, req="COMMIT-HDR-1 COMMIT-HDR-4 COMMIT-HDR-6"),
    "commit-zero": Case(V2C, req="DEC-12"),
    "commit-tail": Case(V2C, req="AMB-14 COMMIT-VAL-2 COMMIT-HDR-6"),
    "commit-no-caps": Case(CAP_V2, (0, 2, 0x06), req="COMMIT-DISC-2 COMMIT-ERR-2"),
    "commit-bad-stag": Case(V2C, (0, 1, 0x00), req="COMMIT-ACC-1 DEC-10 COMMIT-ERR-2"),
    "commit-bounds": Case(V2C, (0, 1, 0x01), req="COMMIT-ACC-1 DEC-10 COMMIT-ERR-2"),
    "commit-resp-no-req": Case(V2C, (1, 2, 0x02), req="DEC-8 COMMIT-ERR-2"),
    "commit-log": Case(V2C, req="COMMIT-ATOM-2 SIW2-DEC-1"),
    "commit-log-type": Case(V2C, req="SIW2-DEC-1 AMB-14 COMMIT-VAL-2 COMMIT-ATOM-2"),
    "commit-log-rsvd": Case(V2C, req="SIW2-DEC-1 AMB-14 COMMIT-VAL-2 COMMIT-ATOM-2"),
    # 0/2/0x07 as EXT-ERR-6 has it for an atomic
    "commit-log-misaligned": Case(V2C, (0, 2, 0x07), req="SIW2-DEC-1 COMMIT-ATOM-2"),
    "commit-log-bad-stag": Case(V2C, (0, 1, 0x00), req="SIW2-DEC-1 DEC-10 COMMIT-ATOM-2"),
    "commit-log-bounds": Case(V2C, (0, 1, 0x01), req="SIW2-DEC-1 DEC-10 COMMIT-ATOM-2"),
    "commit-inval-mr": Case(V2C, (0, 2, 0x09), req="DEC-20"),
    "commit-not-durable": Case(V2C, req="SIW2-DEC-2 COMMIT-DUR-4 COMMIT-ERR-3"),
    "commit-log-refused": Case(V2C, req="SIW2-DEC-1 COMMIT-ATOM-2"),
}
# commit scenario: (length, STag (0: the window's, None: 0, "bad": none,
# "ram": siw2_commit's ram window), TO offset, extra octets (None: the
# log update of LOG), Status)
COMMIT = {
    "commit-ok": (64, 0, 0, b"", 0),
    "commit-zero": (0, None, 0, b"", 0),
    "commit-tail": (64, 0, 0, bytes(8), 2),
    "commit-no-caps": (64, 0, 0, b"", None),
    "commit-bad-stag": (64, "bad", 0, b"", None),
    "commit-bounds": (64, 0, 1 << 30, b"", None),
    "commit-log": (64, 0, 0, None, 0),
    "commit-log-type": (64, 0, 0, None, 2),
    "commit-log-rsvd": (64, 0, 0, None, 2),
    "commit-log-misaligned": (64, 0, 0, None, None),
    "commit-log-bad-stag": (64, 0, 0, None, None),
    "commit-log-bounds": (64, 0, 0, None, None),
    "commit-inval-mr": (64, 0, 0, b"", None),
    "commit-not-durable": (64, "ram", 0, b"", 4),
    "commit-log-refused": (64, "ram", 0, None, 5),
}
LOG_EXT = 0x8001        # siw2_wire.h SIW2_COMMIT_EXT_LOG
LOG_OFF = 0xFF000       # siw2_commit.c: the log word in the pm window
LOG_SEED = 0x5EED5EED5EED5EED   # what the server seeds it with
LOG_VALUE = bytes((0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88))
# log update scenario: (type, rsvd, STag (0: the window's, "bad": none),
# TO offset in the window); stored only where the Status is 0 or 4
LOG = {
    "commit-log": (LOG_EXT, 0, 0, LOG_OFF),
    "commit-log-type": (0x8002, 0, 0, LOG_OFF),
    "commit-log-rsvd": (LOG_EXT, 1, 0, LOG_OFF),
    "commit-log-misaligned": (LOG_EXT, 0, 0, LOG_OFF + 4),
    "commit-log-bad-stag": (LOG_EXT, 0, "bad", LOG_OFF),
    "commit-log-bounds": (LOG_EXT, 0, 0, 1 << 30),
    "commit-log-refused": (LOG_EXT, 0, 0, LOG_OFF),
}
GUARD_OFF = 64          # siw2_ext_proto.h SIW2_EXT_GUARD_OFF
RESPONDER = {
    "resp-ok": Case(),
    "resp-msn": Case(term=(1, 2, 0x03), req="EXT-ATOMIC-23 DEC-8 EXT-ERR-2"),
    "resp-reqid": Case(term=(0, 2, 0x07), req="EXT-ATOMIC-23 EXT-ATOMIC-18"),
    "read-v2-ok": Case(req="V2-QN-1 V2-READ-1 V2-READ-2 V2-READ-3 V2-READ-5"),
    "read-v2-long": Case(term=(1, 2, 0x05), req="V2-QN-1 V2-READ-2 V2-READ-3 V2-ERR-2 DEC-8"),
    "commit-status": Case(req="COMMIT-ERR-3 DEC-13"),
}
# The checks of captured connections (wire, commit-wire).
CHECKS = {
    "wire": Case(req="EXT-ATOMIC-14 V2-IMM-10"),
    "wire-rv2": Case(req="EXT-IMM-9 V2-IMM-7 EXT-ATOMIC-20"),
    "commit-wire": Case(req="COMMIT-HDR-1..7 COMMIT-QUEUE-1 SIW2-DEC-1 SIW2-DEC-2"),
}


def out(msg):
    print("EXTPEER " + msg, flush=True)


def result(name, ok, why):
    """The verdict line, then exit (0 on PASS).  A scenario's or a wire
    check's line ends with req="ID ...": what its table entry asserts."""
    case = INITIATOR.get(name) or RESPONDER.get(name) or CHECKS.get(name)
    out(result_line(name, ok, why, case.req if case else ""))
    sys.exit(0 if ok else 1)


def result_line(name, ok, why, req):
    line = "RESULT %s %s %s" % (name, "PASS" if ok else "FAIL", why)
    return line + ' req="%s"' % req if req else line


def win_u64(off):
    """The server window's initial u64 at @off (siw2_ext_byte(i, 0), LE)."""
    return int.from_bytes(bytes((i * 13 + (i >> 8) + 7) & 0xFF
                                for i in range(off, off + 8)), "little")


def atomic_req(rv, msn, aop, req_id, stag, to, add):
    """Atomic Request ULPDU (DIGEST 2.2.2), FetchAdd fields."""
    return (mp.ddp_untagged(0xA, 1, msn, 0, rv=rv) +
            struct.pack(">IIIQQQQQ", aop, req_id, stag, to, add, 0, 0,
                        0xFFFFFFFFFFFFFFFF))


def atomic_resp(rv, msn, req_id, value):
    return mp.ddp_untagged(0xB, 3, msn, 0, rv=rv) + struct.pack(">IQ", req_id, value)


def commit_req(rv, msn, req_id, stag, length, to, extra=b""):
    """Commit Request ULPDU (DIGEST 2.4.2): one region, then @extra."""
    return (mp.ddp_untagged(0xC, 1, msn, 0, rv=rv) +
            struct.pack(">IIIQ", req_id, stag, length, to) + extra)


def commit_log(stag, to, value, typ=LOG_EXT, rsvd=0):
    """siw2's log update after a Commit's region (struct
    siw2_rdmap_commit_log, SIW2-DEC-1): @value travels as it is."""
    return struct.pack(">HHIQ", typ, rsvd, stag, to) + value


def commit_resp(rv, msn, req_id, status):
    return mp.ddp_untagged(0xD, 3, msn, 0, rv=rv) + struct.pack(">II", req_id, status)


def next_fpdu(conn, deadline):
    """The next FPDU (no markers), or None on close/timeout."""
    if not conn.fill(2, deadline):
        return None
    n = mp.fpdu_size(conn.buf)
    if not conn.fill(n, deadline):
        return None
    return mp.decode_fpdu(conn.take(n))


def wait_terminate(conn, deadline):
    """FPDUs until a Terminate (returned) or the end (None)."""
    while True:
        d = next_fpdu(conn, deadline)
        if d is None or d["op"] == 0x7:
            return d
        out("got " + d["text"])


def judge_term(name, d, want, rv, sent, hdrs=True):
    """The Terminate @d against @want (L, E, C) for the offending ULPDU
    @sent (EXT-ERR-2, V2-ERR-2): D=1 M=1 R=0, the connection's RV, and the
    headers echoed exactly as sent (mpa_peer.term_echo_problems); with
    @hdrs false (an FPDU that failed its CRC) D=M=R=0 and nothing after the
    control word."""
    if d is None:
        result(name, False, "no Terminate")
    t = d["term"]
    got = (t["layer"], t["etype"], t["code"])
    why = "term=%d/%d/0x%02x D=%d M=%d R=%d rv=%d" % (
        got + (t["D"], t["M"], t["R"], d["rv"]))
    probs = mp.term_echo_problems(t, "rfc", mp.build_fpdu(sent, crc=False))
    flags = (1, 1, 0) if hdrs else (0, 0, 0)
    ok = got == want and (t["D"], t["M"], t["R"]) == flags and \
        d["rv"] == rv and not probs
    if not ok:
        why += " want %d/%d/0x%02x D=%d M=%d R=%d rv=%d" % (want + flags + (rv,))
        why += "".join("; " + p for p in probs)
    result(name, ok, why)


def connect_mpa(host, port, caps, crc=False):
    """MPA Rev 2 Request with @caps (and C=1 if @crc); returns (conn,
    reply dict)."""
    s = socket.create_connection((host, port), timeout=TIMEOUT)
    s.settimeout(None)
    conn = mp.Conn(s, lambda m: out(m))
    req = mp.build_rr(mp.KEY_REQ, rev=2, c=int(crc), s=1, caps=caps,
                      pd=mp.enh_data(16, 16))
    conn.send(req, "request")
    deadline = time.monotonic() + TIMEOUT
    if not conn.fill(20, deadline):
        result("connect", False, "no MPA Reply")
    pd_len = struct.unpack(">H", conn.buf[18:20])[0]
    conn.fill(20 + pd_len, deadline)
    raw = conn.take(20 + pd_len)
    rep = mp.parse_rr(raw[:20], raw[20:])
    out("reply " + mp.describe_rr("rep", rep))
    return conn, rep


def run(name, host, port):
    caps, want = INITIATOR[name].caps, INITIATOR[name].term
    crc = name == "atomic-bad-crc"
    conn, rep = connect_mpa(host, int(port), caps, crc)
    if crc and not rep["C"]:
        result(name, False, "the Reply does not confirm CRC (C=0)")
    shared = caps & rep["caps"] & (CAP_V2 | CAP_COMMIT)
    # EXT-GEN-1: the extensions are agreed through siw2's MPA capability bits.
    if caps and rep["caps"] != (caps | CAP_ACK):
        result(name, False, "EXT-GEN-1: reply caps 0x%x, expected 0x%x" %
               (rep["caps"], caps | CAP_ACK))
    if not caps and rep["caps"]:
        result(name, False, "EXT-GEN-1: reply caps 0x%x to a Request without" % rep["caps"])
    rv = 2 if shared & CAP_V2 else 1
    hello = rep["pd"][4:]
    addr, rkey = struct.unpack("<QI", hello[:12])
    deadline = time.monotonic() + TIMEOUT
    if name == "atomic-ok":
        u = atomic_req(rv, 1, 0, 0x1234, rkey, addr, 5)
    elif name == "imm-len":
        u = mp.ddp_untagged(0x8, 0, 1, 0, rv=rv) + b"\x01\x02\x03\x04"
    elif name in ("rv1-on-rv2", "rv2-on-rv1"):
        u = mp.ddp_untagged(0x3, 0, 1, 0, rv=3 - rv) + b"hello"
    elif name == "v2op-on-rv1":
        # 0x13 with RV 1: ddp_ctrl() would cut it to 4 bits; build it.
        u = struct.pack(">HIIII", 0x4100 | rv << 6 | 0x13, 0, 0, 1, 0) + bytes(8)
    elif name == "ext-no-caps":
        u = atomic_req(1, 1, 0, 1, rkey, addr, 1)
    elif name == "aop-reserved":
        u = atomic_req(rv, 1, 3, 1, rkey, addr, 1)
    elif name == "atomic-misaligned":
        u = atomic_req(rv, 1, 0, 1, rkey, addr + GUARD_OFF + 4, 1)
    elif name == "atomic-bad-crc":
        u = atomic_req(rv, 1, 0, 1, rkey, addr + GUARD_OFF, 1)
    elif name in COMMIT:
        length, soff, toff, extra, status = COMMIT[name]
        # "bad": an STag index beyond any siw2 MR (max_mr 65536).
        bad = 0xFFFFFF00 | (rkey & 0xFF)
        stag = {None: 0, "bad": bad}.get(soff, rkey)
        raddr = addr
        if soff == "ram":
            # siw2_commit's struct hello: pm addr, pm STag, ram STag, ram addr.
            if len(hello) < 24:
                result(name, False, "the server named no ram window")
            stag, raddr = struct.unpack("<IQ", hello[12:24])
        if extra is None:
            typ, rsvd, lsoff, ltoff = LOG[name]
            extra = commit_log(bad if lsoff == "bad" else rkey, addr + ltoff,
                               LOG_VALUE, typ, rsvd)
            # What the server's "COMMIT WIN" line must show as log=.
            out("LOG 0x%016x" % (int.from_bytes(LOG_VALUE, "little")
                                 if status in (0, 4) else LOG_SEED))
        u = commit_req(rv, 1, 0x77, stag, length, raddr + toff, extra)
        if name == "commit-inval-mr":
            # The window's own STag as the Invalidate STag (DDP octets 2..5).
            u = u[:2] + struct.pack(">I", rkey) + u[6:]
    elif name == "commit-resp-no-req":
        u = commit_resp(rv, 1, 1, 0)
    else:  # resp-no-req
        u = atomic_resp(rv, 1, 1, 0)
    if name.startswith("atomic-") and name != "atomic-ok":
        # What the server's "EXT WIN" line must show: nothing executed.
        out("GUARD off64=0x%016x off72=0x%016x off80=0x%016x" %
            tuple(win_u64(GUARD_OFF + 8 * i) for i in range(3)))
    f = mp.build_fpdu(u, crc=crc)
    conn.send(mp.corrupt_crc(f) if crc else f, name)
    if want is None and name in COMMIT:
        d = next_fpdu(conn, deadline)
        # COMMIT-HDR-4: untagged on QN 3, the first response, the stream's RV.
        if d is None or d["op"] != 0xD or d["qn"] != 3 or d["msn"] != 1 or \
                d["rv"] != rv or len(d["ulpdu"]) != 26:
            result(name, False, "no Commit Response: %s" % (d and d["text"]))
        req_id, status = struct.unpack(">II", d["ulpdu"][18:26])
        want_st = COMMIT[name][4]
        # COMMIT-HDR-6: the identifier echoed, and the Status.
        ok = req_id == 0x77 and status == want_st
        why = "resp req_id=0x%x status=%d (want 0x77, %d)" % (req_id, status, want_st)
        # COMMIT-VAL-2: a Status, no Terminate; nothing more comes, and
        # the connection stays up for the server to read its window.
        d = next_fpdu(conn, time.monotonic() + 1.0)
        if d is not None or conn.closed:
            ok = False
            why += "; then " + (d["text"] if d else "closed " + conn.closed)
        result(name, ok, why)
    if want is None:
        d = next_fpdu(conn, deadline)
        # EXT-ATOMIC-17/19: answered, untagged on QN 3 (tagged: no "qn", fails)
        if d is None or d["op"] != 0xB or d["qn"] != 3 or d["msn"] != 1 or \
                d["rv"] != rv:
            result(name, False, "no Atomic Response: %s" % (d and d["text"]))
        req_id, value = struct.unpack(">IQ", d["ulpdu"][18:30])
        expect = int.from_bytes(bytes((i * 13 + (i >> 8) + 7) & 0xFF
                                      for i in range(8)), "little")
        # EXT-ATOMIC-18: the identifier echoed; EXT-ATOMIC-26: the window's
        # u64 in host (little-endian) order, sent big-endian.
        ok = req_id == 0x1234 and value == expect
        result(name, ok, "resp req_id=0x%x orig=0x%016x (want 0x1234, 0x%016x)" %
               (req_id, value, expect))
    # DEC-20: a failed invalidation comes after the commit, when the
    # Request's headers are gone: a Terminate without them.
    judge_term(name, wait_terminate(conn, deadline), want, rv, u,
               hdrs=not crc and name != "commit-inval-mr")


def serve(name, port):
    want = RESPONDER[name].term
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", int(port)))
    ls.listen(1)
    out("LISTENING %s" % port)
    ls.settimeout(60)
    s, _ = ls.accept()
    conn = mp.Conn(s, lambda m: out(m))
    deadline = time.monotonic() + TIMEOUT
    if not conn.fill(20, deadline):
        result(name, False, "no MPA Request")
    pd_len = struct.unpack(">H", conn.buf[18:20])[0]
    conn.fill(20 + pd_len, deadline)
    raw = conn.take(20 + pd_len)
    req = mp.parse_rr(raw[:20], raw[20:])
    out("request " + mp.describe_rr("req", req))
    caps = req["caps"] & (CAP_V2 | CAP_COMMIT)
    if not caps & CAP_V2:
        result(name, False, "the Request offers no RDMAP v2 (caps 0x%x)" % req["caps"])
    enh = req["enh"] or {"ird": 16, "ord": 16}
    # The window a siw2_counter client aims at (address, rkey): any; a
    # siw2_commit client reads a longer hello (its struct hello).
    hello = struct.pack("<QI", 0x10000, 0x4242)
    if name.startswith("commit-"):
        hello = struct.pack("<QIIQII", 0x10000, 0x4242, 0x4343, 0x20000, 1, 0)
    rep = mp.build_rr(mp.KEY_REP, rev=2, s=1, caps=caps | CAP_ACK,
                      pd=mp.enh_data(enh["ord"], enh["ird"]) + hello)
    conn.send(rep, "reply")
    d = next_fpdu(conn, deadline)
    if d is None:
        result(name, False, "no request from the client")
    out("got " + d["text"])
    if name == "commit-status":
        for msn, status in ((1, 1), (2, 0)):
            if msn == 2:
                d = next_fpdu(conn, deadline)
                if d is None:
                    result(name, False, "no second Commit: the QP left RTS?")
                out("got " + d["text"])
            if d["op"] != 0xC or d["qn"] != 1 or d["msn"] != msn:
                result(name, False, "expected Commit Request %d: %s" % (msn, d["text"]))
            req_id = struct.unpack(">I", d["ulpdu"][18:22])[0]
            conn.send(mp.build_fpdu(commit_resp(2, msn, req_id, status), crc=False), name)
        d = wait_terminate(conn, deadline)
        result(name, d is None, "two Commits answered with Status 1 and 0, no Terminate"
               if d is None else "unexpected Terminate: " + d["text"])
    if name.startswith("resp-"):
        if d["op"] != 0xA or d["qn"] != 1 or d["rv"] != 2:
            result(name, False, "expected an Atomic Request: " + d["text"])
        req_id = struct.unpack(">I", d["ulpdu"][22:26])[0]
        msn = 2 if name == "resp-msn" else 1
        rid = req_id + 1 if name == "resp-reqid" else req_id
        sent = atomic_resp(2, msn, rid, 12345)
    else:
        if d["op"] != 0x11 or d["qn"] != 1 or d["rv"] != 2:
            result(name, False, "expected a Read V2 Request: " + d["text"])
        size = struct.unpack(">I", d["ulpdu"][18:22])[0]
        n = size * 2 if name == "read-v2-long" else size
        data = bytes((i * 7 + 1) & 0xFF for i in range(n))
        sent = mp.ddp_untagged(0x12, 3, 1, 0, rv=2) + data
    conn.send(mp.build_fpdu(sent, crc=False), name)
    if want is None:
        # The client completes and disconnects: no Terminate may come.
        d = wait_terminate(conn, deadline)
        result(name, d is None, "closed without a Terminate" if d is None
               else "unexpected Terminate: " + d["text"])
    judge_term(name, wait_terminate(conn, deadline), want, 2, sent)


# --------------------------------------------------------------------------
# The wire of a siw2_ext --order connection.

def follow_streams(text):
    """(Node 0's bytes, Node 1's bytes) of "tshark -q -z follow,tcp,raw,N"
    output: Node 1's lines start with a tab."""
    a, b = bytearray(), bytearray()
    started = False
    for line in text.splitlines():
        if line.startswith("Node 1:"):
            started = True
        elif started and line.strip() and not line.startswith("="):
            (b if line.startswith("\t") else a).extend(bytes.fromhex(line.strip()))
    return bytes(a), bytes(b)


def stream_fpdus(data):
    """The FPDUs after the MPA Request or Reply that opens @data."""
    if len(data) < 20:
        return []
    off = 20 + struct.unpack(">H", data[18:20])[0]
    got = []
    while off + 2 <= len(data):
        n = mp.fpdu_size(data[off:])
        if off + n > len(data):
            break
        got.append(mp.decode_fpdu(data[off:off + n]))
        off += n
    return got


def wire_problems(client):
    """What the Requester's stream breaks: EXT-ATOMIC-14 (Read and Atomic
    Requests share the QN 1 MSN sequence) and V2-IMM-10 (a Send with
    Immediate of 0 octets is one ULPDU, L=1, with the immediate only).
    Returns (problems, summary)."""
    probs = []
    fp = stream_fpdus(client)
    q1 = [d for d in fp if not d.get("T") and d.get("qn") == 1]
    kinds = set(d["op"] for d in q1)
    for i, d in enumerate(q1):
        if d["msn"] != i + 1:
            probs.append("EXT-ATOMIC-14: QN 1 request %d (opcode 0x%x) has MSN %d, "
                         "expected %d: Reads and Atomics are not one sequence" %
                         (i + 1, d["op"], d["msn"], i + 1))
            break
    if not kinds & {0x1, 0x11} or 0xA not in kinds:
        probs.append("EXT-ATOMIC-14: no Read and Atomic Requests both on QN 1 "
                     "(opcodes %s)" % sorted(kinds))
    msgs = {}
    for d in fp:
        if not d.get("T") and d.get("qn") == 0 and d["op"] in (0x13, 0x14, 0x15, 0x16):
            msgs.setdefault(d["msn"], []).append(d)
    empty = 0
    for msn, segs in sorted(msgs.items()):
        if sum(d["payload"] for d in segs) != 8:
            continue
        empty += 1
        d = segs[0]
        if len(segs) != 1 or not d["L"] or d["mo"] != 0:
            probs.append("V2-IMM-10: the Send with Immediate of 0 octets (MSN %d) is %d "
                         "FPDU(s), first L=%d MO=%d, not one ULPDU with L=1" %
                         (msn, len(segs), d["L"], d["mo"]))
    if not empty:
        probs.append("V2-IMM-10: no Send with Immediate of 0 octets on the wire")
    return probs, "%d FPDUs, %d QN 1 requests (opcodes %s), %d Sends with Immediate " \
        "(%d of 0 octets)" % (len(fp), len(q1), ",".join("0x%x" % k for k in sorted(kinds)),
                             len(msgs), empty)


def rv2_wire_problems(client, server):
    """What a captured RV 2 connection with every extension message breaks,
    seen from outside siw2: EXT-IMM-9 (Immediate Data messages are untagged
    on QN 0), V2-IMM-7 (a Send with Immediate in several FPDUs has L only
    on its last, which holds the immediate) and EXT-ATOMIC-20 (Atomic
    Responses are untagged on QN 3).  Returns (problems, summary)."""
    probs = []
    cf, sf = stream_fpdus(client), stream_fpdus(server)
    imm = [d for d in cf if d.get("op") in (0x8, 0x9)]
    for d in imm:
        if d.get("T") or d.get("qn") != 0:
            probs.append("EXT-IMM-9: Immediate Data (opcode 0x%x) T=%d QN %s, want "
                         "untagged on QN 0" % (d["op"], d.get("T", 0), d.get("qn")))
            break
    if not imm:
        probs.append("EXT-IMM-9: no Immediate Data message on the wire")
    msgs = {}
    for d in cf:
        if not d.get("T") and d.get("qn") == 0 and d.get("op") in (0x13, 0x14, 0x15, 0x16):
            msgs.setdefault(d["msn"], []).append(d)
    multi = [(msn, segs) for msn, segs in sorted(msgs.items()) if len(segs) > 1]
    for msn, segs in multi:
        flags = [d["L"] for d in segs]
        if flags != [0] * (len(segs) - 1) + [1] or segs[-1]["payload"] < 8:
            probs.append("V2-IMM-7: Send with Immediate MSN %d in %d FPDUs has L %s, want "
                         "L only on the last, which holds the immediate" %
                         (msn, len(segs), "".join(str(f) for f in flags)))
    if not multi:
        probs.append("V2-IMM-7: no Send with Immediate in several FPDUs on the wire")
    resp = [d for d in sf if d.get("op") == 0xB]
    for d in resp:
        if d.get("T") or d.get("qn") != 3:
            probs.append("EXT-ATOMIC-20: Atomic Response T=%d QN %s, want untagged on QN 3"
                         % (d.get("T", 0), d.get("qn")))
            break
    if not resp:
        probs.append("EXT-ATOMIC-20: no Atomic Response on the wire")
    return probs, "%d FPDUs, %d Immediate Data, %d Sends with Immediate (%d in several "         "FPDUs, up to %d), %d Atomic Responses" % (
            len(cf) + len(sf), len(imm), len(msgs), len(multi),
            max([len(s) for _, s in multi] or [0]), len(resp))


def commit_wire_problems(client, server, rv=2, statuses=(0,)):
    """What a captured siw2_commit connection breaks: every FPDU's CRC,
    and the Commit Requests (client) and Responses (server) of
    DIGEST 2.4, each Response's Status one of @statuses. Returns
    (problems, summary)."""
    probs = []
    cf, sf = stream_fpdus(client), stream_fpdus(server)
    for d in cf + sf:
        if d["crc"] != "ok":
            probs.append("CRC %s: %s" % (d["crc"], d["text"]))
    q1 = [d for d in cf if not d.get("T") and d.get("qn") == 1]
    for i, d in enumerate(q1):
        if d["msn"] != i + 1:
            probs.append("COMMIT-HDR-3, COMMIT-QUEUE-1: QN 1 request %d (opcode 0x%x) has "
                         "MSN %d, not %d: Commits and Reads are not one queue" %
                         (i + 1, d["op"], d["msn"], i + 1))
            break
    reqs = [d for d in q1 if d["op"] == 0xC]
    ids = []
    logs = 0
    for d in reqs:
        u = d["ulpdu"]
        if not d["L"] or d["mo"] or d["rv"] != rv or len(u) not in (38, 62):
            probs.append("COMMIT-HDR-1/5/7: Request L=%d MO=%d RV=%d of %d octets, want "
                         "L=1 MO=0 RV=%d 38 (62 with a log update)" %
                         (d["L"], d["mo"], d["rv"], len(u), rv))
        if len(u) == 62:
            typ, rsvd, lstag, lto = struct.unpack(">HHIQ", u[38:54])
            if typ != LOG_EXT or rsvd or lto % 8:
                probs.append("SIW2-DEC-1: 24 octets after the region that are no log "
                             "update siw2 sends: type 0x%04x rsvd 0x%x stag 0x%x to 0x%x, "
                             "want type 0x%04x rsvd 0, an 8-aligned TO" %
                             (typ, rsvd, lstag, lto, LOG_EXT))
            else:
                logs += 1
        if d["inval"]:
            probs.append("COMMIT-HDR-2: Request with Invalidate STag 0x%x, siw2 sends 0"
                         % d["inval"])
        if len(u) >= 22:
            ids.append(struct.unpack(">I", u[18:22])[0])
    got = []
    for d in sf:
        if d.get("T") or d.get("op") != 0xD:
            continue
        u = d["ulpdu"]
        if d["qn"] != 3 or not d["L"] or d["mo"] or d["rv"] != rv or len(u) != 26:
            probs.append("COMMIT-HDR-4: Response QN %d L=%d MO=%d RV=%d of %d octets" %
                         (d["qn"], d["L"], d["mo"], d["rv"], len(u)))
            continue
        got.append(struct.unpack(">II", u[18:26]))
    if not reqs:
        probs.append("no Commit Request on the wire")
    if [i for i, _ in got] != ids:
        probs.append("COMMIT-HDR-6: Response identifiers %s, Requests %s" %
                     ([i for i, _ in got], ids))
    if any(st not in statuses for _, st in got):
        probs.append("COMMIT-HDR-6, SIW2-DEC-2: Statuses %s, want each one of %s" %
                     ([st for _, st in got], list(statuses)))
    return probs, "%d FPDUs, %d QN 1 requests, %d Commit Requests (%d with a log update), " \
        "%d Responses, all CRCs checked" % (len(cf) + len(sf), len(q1), len(reqs), logs,
                                            len(got))


def commit_wire(path, statuses="0"):
    with open(path) as f:
        client, server = follow_streams(f.read())
    probs, summary = commit_wire_problems(client, server,
                                          statuses=[int(x) for x in statuses.split(",")])
    for p in probs:
        out("commit-wire: " + p)
    # COMMIT-HDR-1..7 and COMMIT-QUEUE-1 on the wire, every CRC: what
    # commit_wire_problems() found.
    result("commit-wire", not probs, summary)


def wire_rv2(path):
    with open(path) as f:
        client, server = follow_streams(f.read())
    probs, summary = rv2_wire_problems(client, server)
    for p in probs:
        out("wire-rv2: " + p)
    # EXT-IMM-9, V2-IMM-7, EXT-ATOMIC-20: what rv2_wire_problems() found.
    result("wire-rv2", not probs, summary)


def wire(path):
    with open(path) as f:
        client, _ = follow_streams(f.read())
    probs, summary = wire_problems(client)
    for p in probs:
        out("wire: " + p)
    # EXT-ATOMIC-14, V2-IMM-10: what wire_problems() found.
    result("wire", not probs, summary)


def selftest():
    """The wire check on streams built here: right, then each rule broken."""
    fails = 0

    def stream(fpdus):
        req = mp.build_rr(mp.KEY_REQ, rev=2, s=1, caps=CAP_V2, pd=mp.enh_data(16, 16))
        return req + b"".join(mp.build_fpdu(u, crc=False) for u in fpdus)

    def rreq(msn):
        return mp.ddp_untagged(0x1, 1, msn, 0, rv=2) + bytes(28)

    def simm(msn, data, mo=0, last=True):
        return mp.ddp_untagged(0x13, 0, msn, mo, last=last, rv=2) + data

    good = [rreq(1), atomic_req(2, 2, 0, 1, 1, 0, 1), rreq(3), simm(1, bytes(8)),
            simm(2, bytes(100), last=False), simm(2, bytes(108), mo=100)]
    cases = [
        ("right", good, 0),
        ("an Atomic with its own MSN sequence",
         [rreq(1), atomic_req(2, 1, 0, 1, 1, 0, 1), rreq(2), simm(1, bytes(8))], 1),
        ("no Atomic", [rreq(1), simm(1, bytes(8))], 1),
        ("0 octets in two FPDUs", good[:3] + [simm(1, b"", last=False), simm(1, bytes(8))], 1),
        ("0 octets, L=0", good[:3] + [simm(1, bytes(8), last=False)], 1),
        ("no Send with Immediate of 0 octets", good[:3] + good[4:], 1),
    ]
    for name, fpdus, nbad in cases:
        probs, summary = wire_problems(stream(fpdus))
        ok = (len(probs) == 0) == (nbad == 0)
        print("%s wire %s: %s" % ("ok  " if ok else "FAIL", name, "; ".join(probs) or summary))
        fails += not ok

    def immd(msn, op=0x8):
        return mp.ddp_untagged(op, 0, msn, 0, rv=2) + bytes(8)

    def aresp(qn):
        return mp.ddp_untagged(0xB, qn, 1, 0, rv=2) + bytes(20)

    srep = mp.build_rr(mp.KEY_REP, rev=2, s=1, caps=CAP_V2 | CAP_ACK, pd=mp.enh_data(16, 16))
    rgood = [immd(1), simm(2, bytes(100), last=False), simm(2, bytes(108), mo=100)]
    # (name, client ULPDUs, server ULPDUs, the rule a problem must name or None)
    rcases = [
        ("right", rgood, [aresp(3)], None),
        ("Immediate Data on QN 1", [mp.ddp_untagged(0x8, 1, 1, 0, rv=2) + bytes(8)] + rgood[1:],
         [aresp(3)], "EXT-IMM-9"),
        ("no Immediate Data", rgood[1:], [aresp(3)], "EXT-IMM-9"),
        ("L on the first segment too",
         rgood[:1] + [simm(2, bytes(100)), simm(2, bytes(108), mo=100)], [aresp(3)], "V2-IMM-7"),
        ("L on no segment",
         rgood[:1] + [simm(2, bytes(100), last=False), simm(2, bytes(108), mo=100, last=False)],
         [aresp(3)], "V2-IMM-7"),
        ("no Send with Immediate in several FPDUs", rgood[:1] + [simm(2, bytes(8))],
         [aresp(3)], "V2-IMM-7"),
        ("an Atomic Response on QN 1", rgood, [aresp(1)], "EXT-ATOMIC-20"),
        ("no Atomic Response", rgood, [], "EXT-ATOMIC-20"),
    ]
    for name, cu, su, rule in rcases:
        ss = srep + b"".join(mp.build_fpdu(u, crc=False) for u in su)
        probs, summary = rv2_wire_problems(stream(cu), ss)
        ok = not probs if rule is None else any(p.startswith(rule + ":") for p in probs)
        print("%s wire-rv2 %s: %s" % ("ok  " if ok else "FAIL", name,
                                       "; ".join(probs) or summary))
        fails += not ok
    def creq(msn, req_id, inval=0, extra=b""):
        u = commit_req(2, msn, req_id, 0x100, 64, 0, extra)
        return u[:2] + struct.pack(">I", inval) + u[6:]

    rep = mp.build_rr(mp.KEY_REP, rev=2, s=1, caps=CAP_V2 | CAP_COMMIT | CAP_ACK,
                      pd=mp.enh_data(16, 16))
    r1, r2 = commit_resp(2, 1, 1, 0), commit_resp(2, 2, 2, 0)
    # (name, client ULPDUs, server ULPDUs, the rule a problem must name or None)
    ccases = [
        ("right", [creq(1, 1), creq(2, 2)], [r1, r2], None),
        ("right, with a log update",
         [creq(1, 1), creq(2, 2, extra=commit_log(0x100, LOG_OFF, LOG_VALUE))], [r1, r2], None),
        ("a non-zero Invalidate STag", [creq(1, 1, 5)], [r1], "COMMIT-HDR-2"),
        ("a Response with another identifier", [creq(1, 1)], [commit_resp(2, 1, 7, 0)],
         "COMMIT-HDR-6"),
        ("a bad CRC", [creq(1, 1)], [r1], "CRC bad"),
        ("8 octets after the region", [creq(1, 1, extra=bytes(8))], [r1], "COMMIT-HDR-1/5/7"),
        ("a 62-octet Request of type 0x8002",
         [creq(1, 1, extra=commit_log(0x100, LOG_OFF, LOG_VALUE, typ=0x8002))], [r1],
         "SIW2-DEC-1"),
        ("a log update with rsvd 1",
         [creq(1, 1, extra=commit_log(0x100, LOG_OFF, LOG_VALUE, rsvd=1))], [r1], "SIW2-DEC-1"),
        ("a log update at a misaligned TO",
         [creq(1, 1, extra=commit_log(0x100, LOG_OFF + 4, LOG_VALUE))], [r1], "SIW2-DEC-1"),
    ]
    ccases += [
        ("a Status 4 where 0 is wanted", [creq(1, 1)], [commit_resp(2, 1, 1, 4)], "SIW2-DEC-2"),
    ]
    for name, cu, su, rule in ccases:
        fpdus = [mp.build_fpdu(u, crc=True) for u in cu]
        if name == "a bad CRC":
            fpdus[0] = mp.corrupt_crc(fpdus[0])
        cs = mp.build_rr(mp.KEY_REQ, rev=2, s=1, caps=CAP_V2, pd=mp.enh_data(16, 16)) + \
            b"".join(fpdus)
        ss = rep + b"".join(mp.build_fpdu(u, crc=True) for u in su)
        probs, summary = commit_wire_problems(cs, ss)
        ok = not probs if rule is None else any(rule in p for p in probs)
        print("%s commit-wire %s: %s" % ("ok  " if ok else "FAIL", name, "; ".join(probs) or summary))
        fails += not ok
    text = "Node 0: a\nNode 1: b\n0102\n\taabb\n03\n====\n"
    ok = follow_streams(text) == (b"\x01\x02\x03", b"\xaa\xbb")
    print("%s follow output parsed" % ("ok  " if ok else "FAIL"))
    fails += not ok
    print("PASS: all checks" if not fails else "FAIL: %d check(s)" % fails)
    return 1 if fails else 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        for n in INITIATOR:
            print("initiator", n)
        for n in RESPONDER:
            print("responder", n)
        return 0
    if len(argv) == 3 and argv[1] == "wire":
        wire(argv[2])
    if len(argv) == 3 and argv[1] == "wire-rv2":
        wire_rv2(argv[2])
    if len(argv) in (3, 4) and argv[1] == "commit-wire":
        commit_wire(*argv[2:])
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) == 5 and argv[1] == "run" and argv[2] in INITIATOR:
        run(argv[2], argv[3], argv[4])
    elif len(argv) == 4 and argv[1] == "serve" and argv[2] in RESPONDER:
        serve(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
