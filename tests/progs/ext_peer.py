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
As MPA Responder, for a siw2_counter client (--responder; it posts one
FetchAdd, or one Read with -r, and the peer answers it):
  resp-ok       a correct Atomic Response: the client's FetchAdd completes
  resp-msn      an Atomic Response with QN 3 MSN 2: 1/2/0x03 (DEC-8)
  resp-reqid    the right MSN, another Request Identifier: 0/2/0x07
  read-v2-ok    a correct 16-octet Read V2 Response (client: read_v2=1)
  read-v2-long  a 32-octet Read V2 Response to a 16-octet Read: 1/2/0x05
                (DEC-8, oversized response)

  ext_peer.py run SCENARIO HOST PORT       one Initiator scenario
  ext_peer.py serve SCENARIO PORT          one Responder scenario
  ext_peer.py list                         the scenarios

Prints "EXTPEER RESULT <scenario> PASS|FAIL <why>"; exit 0 on PASS.
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

# name: (caps offered, expected Terminate (L, E, C) or None)
INITIATOR = {
    "atomic-ok": (CAP_V2 | CAP_COMMIT, None),
    "imm-len": (CAP_V2 | CAP_COMMIT, (0, 2, 0xFF)),
    "rv1-on-rv2": (CAP_V2 | CAP_COMMIT, (0, 2, 0x05)),
    "rv2-on-rv1": (CAP_COMMIT, (0, 2, 0x05)),
    "v2op-on-rv1": (CAP_COMMIT, (0, 2, 0x06)),
    "ext-no-caps": (0, (0, 2, 0x06)),
    "aop-reserved": (CAP_V2 | CAP_COMMIT, (0, 2, 0x06)),
    "resp-no-req": (CAP_V2 | CAP_COMMIT, (1, 2, 0x02)),
}
RESPONDER = {
    "resp-ok": None,
    "resp-msn": (1, 2, 0x03),
    "resp-reqid": (0, 2, 0x07),
    "read-v2-ok": None,
    "read-v2-long": (1, 2, 0x05),
}


def out(msg):
    print("EXTPEER " + msg, flush=True)


def result(name, ok, why):
    out("RESULT %s %s %s" % (name, "PASS" if ok else "FAIL", why))
    sys.exit(0 if ok else 1)


def atomic_req(rv, msn, aop, req_id, stag, to, add):
    """Atomic Request ULPDU (DIGEST 2.2.2), FetchAdd fields."""
    return (mp.ddp_untagged(0xA, 1, msn, 0, rv=rv) +
            struct.pack(">IIIQQQQQ", aop, req_id, stag, to, add, 0, 0,
                        0xFFFFFFFFFFFFFFFF))


def atomic_resp(rv, msn, req_id, value):
    return mp.ddp_untagged(0xB, 3, msn, 0, rv=rv) + struct.pack(">IQ", req_id, value)


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


def judge_term(name, d, want, rv, sent):
    """The Terminate @d against @want (L, E, C) for the offending ULPDU
    @sent (EXT-ERR-2, V2-ERR-2): D=1 M=1 R=0, the connection's RV, and the
    headers echoed exactly as sent (mpa_peer.term_echo_problems)."""
    if d is None:
        result(name, False, "no Terminate")
    t = d["term"]
    got = (t["layer"], t["etype"], t["code"])
    why = "term=%d/%d/0x%02x D=%d M=%d R=%d rv=%d" % (
        got + (t["D"], t["M"], t["R"], d["rv"]))
    probs = mp.term_echo_problems(t, "rfc", mp.build_fpdu(sent, crc=False))
    ok = got == want and t["D"] == 1 and t["M"] == 1 and t["R"] == 0 and \
        d["rv"] == rv and not probs
    if not ok:
        why += " want %d/%d/0x%02x D=1 M=1 R=0 rv=%d" % (want + (rv,))
        why += "".join("; " + p for p in probs)
    result(name, ok, why)


def connect_mpa(host, port, caps):
    """MPA Rev 2 Request with @caps; returns (conn, reply dict)."""
    s = socket.create_connection((host, port), timeout=TIMEOUT)
    s.settimeout(None)
    conn = mp.Conn(s, lambda m: out(m))
    req = mp.build_rr(mp.KEY_REQ, rev=2, s=1, caps=caps, pd=mp.enh_data(16, 16))
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
    caps, want = INITIATOR[name]
    conn, rep = connect_mpa(host, int(port), caps)
    shared = caps & rep["caps"] & (CAP_V2 | CAP_COMMIT)
    if caps and rep["caps"] != (caps | CAP_ACK):
        result(name, False, "reply caps 0x%x, expected 0x%x" % (rep["caps"], caps | CAP_ACK))
    if not caps and rep["caps"]:
        result(name, False, "reply caps 0x%x to a Request without" % rep["caps"])
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
    else:  # resp-no-req
        u = atomic_resp(rv, 1, 1, 0)
    conn.send(mp.build_fpdu(u, crc=False), name)
    if want is None:
        d = next_fpdu(conn, deadline)
        if d is None or d["op"] != 0xB or d["qn"] != 3 or d["msn"] != 1 or \
                d["rv"] != rv:
            result(name, False, "no Atomic Response: %s" % (d and d["text"]))
        req_id, value = struct.unpack(">IQ", d["ulpdu"][18:30])
        expect = int.from_bytes(bytes((i * 13 + (i >> 8) + 7) & 0xFF
                                      for i in range(8)), "little")
        ok = req_id == 0x1234 and value == expect
        result(name, ok, "resp req_id=0x%x orig=0x%016x (want 0x1234, 0x%016x)" %
               (req_id, value, expect))
    judge_term(name, wait_terminate(conn, deadline), want, rv, u)


def serve(name, port):
    want = RESPONDER[name]
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
    # The window a siw2_counter client aims at (address, rkey): any.
    rep = mp.build_rr(mp.KEY_REP, rev=2, s=1, caps=caps | CAP_ACK,
                      pd=mp.enh_data(enh["ord"], enh["ird"]) +
                      struct.pack("<QI", 0x10000, 0x4242))
    conn.send(rep, "reply")
    d = next_fpdu(conn, deadline)
    if d is None:
        result(name, False, "no request from the client")
    out("got " + d["text"])
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


def main(argv):
    if len(argv) >= 2 and argv[1] == "list":
        for n in INITIATOR:
            print("initiator", n)
        for n in RESPONDER:
            print("responder", n)
        return 0
    if len(argv) == 5 and argv[1] == "run" and argv[2] in INITIATOR:
        run(argv[2], argv[3], argv[4])
    elif len(argv) == 4 and argv[1] == "serve" and argv[2] in RESPONDER:
        serve(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
