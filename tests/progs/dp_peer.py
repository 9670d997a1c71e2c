#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""dp_peer.py - a hostile iWARP peer for data path protection tests.

Plain TCP, Python 3 standard library only; the MPA/DDP/RDMAP builders and
decoders come from mpa_peer.py next to this file.  The peer is the MPA
Initiator (Rev 1 or 2, CRC on or off) towards tests/progs/siw2_prot_target,
an rdma_cm server that registers memory regions between guard areas.  Once
in RDMA mode it sends one crafted FPDU per scenario (an RDMA Write to an
STag it may not use, a Read Request out of bounds, a Send without a
receive, a bad version, opcode, QN, MSN, MO or CRC, ...) and checks that
the target answers with a Terminate (RFC 5040 4.8: untagged, QN 2, opcode 7;
Layer/EType/Code as expected; the offending DDP/RDMAP headers where
DIGEST 3.3 says they are included), then closes the connection, leaves
every byte outside what a valid operation may change untouched, puts its
QP in the error state and raises the async event of DEC-11.  Positive
controls (valid Writes, a Send and Reads whose Read Responses are checked
byte for byte) prove that the peer can place data at all.

  dp_peer.py list                        one line per scenario:
                                         NAME<TAB>target arguments
  dp_peer.py table                       the expected table (Markdown)
  dp_peer.py selftest                    offline checks of builders/judge
  dp_peer.py run SCENARIO HOST PORT --target-out FILE [--driver D]
                                         one scenario; FILE is the running
                                         target's stdout (MR lines, later
                                         its verdict lines)
  dp_peer.py rejudge --driver D --results DIR
                                         judge a suite's saved observations
                                         (DIR/<driver>-<scenario>.json) again
  dp_peer.py suite --driver siw|siw2 --host ADDR --port-base N
                   --results DIR [--only A,B] -- TARGET-CMD...
                                         every scenario: start TARGET-CMD -a
                                         ADDR -p PORT ARGS per scenario,
                                         run it, judge it, summary table

--driver siw2 judges strictly: every observation must equal the expected
table.  --driver siw (the Linux siw baseline) accepts the deviations listed
in SIW_KNOWN and reports them; anything else fails.

Output of run/suite: observations, one per line, then per scenario
  RESULT <name> <driver> <verdict> req="<IDs>" term=<L/E/C|none>
         layout=<rfc|siw|either> hdrs=<...> close=<...> event=<...>
         guards=<...> ...
with verdict MATCH, KNOWN (a listed siw deviation) or FAIL and req the
requirement IDs the scenario asserts (its table entry's); the suite ends
with "SUITE <driver> N scenarios: N match, N known, N failed".
Exit 0 = no FAIL, 1 = some FAIL, 2 = usage.
"""

import json
import os
import re
import struct
import subprocess
import sys
import time
import socket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpa_peer as mp  # noqa: E402

# --------------------------------------------------------------------------
# Patterns and memory layout shared with siw2_prot_target.c.

# name: (length, seed, rights, pd); keep in step with regions[] there.
MR_LAYOUT = {
    "rw": (8000, 0x11, "rw", 1), "ro": (3000, 0x22, "r", 1),
    "wo": (3000, 0x33, "w", 1), "none": (3000, 0x44, "-", 1),
    "pd2": (3000, 0x55, "rw", 2), "dereg": (3000, 0x66, "rw", 1),
    "recv": (4096, 0x77, "l", 1), "big": (1 << 20, 0x88, "r", 1),
}


def mr_byte(seed, o):
    return (seed + 7 * o + (o >> 8)) & 0xFF


def peer_byte(k):
    return (0x3C + 11 * k + 3 * (k >> 8)) & 0xFF


def mr_bytes(seed, off, n):
    return bytes(mr_byte(seed, o) for o in range(off, off + n))


def peer_bytes(k0, n):
    return bytes(peer_byte(k) for k in range(k0, k0 + n))


# --------------------------------------------------------------------------
# Terminate codes, DEC-11 consequences.

def code_str(c):
    return "%d/%d/0x%02x" % c if c else "none"


CODE_NAMES = {
    (0, 1, 0x00): "RDMAP Remote Protection: Invalid STag",
    (0, 1, 0x01): "RDMAP Remote Protection: Base or bounds violation",
    (0, 1, 0x02): "RDMAP Remote Protection: Access rights violation",
    (0, 1, 0x03): "RDMAP Remote Protection: STag not associated with RDMAP Stream",
    (0, 1, 0x04): "RDMAP Remote Protection: TO wrap",
    (0, 2, 0x05): "RDMAP Remote Operation: Invalid RDMAP version",
    (0, 2, 0x06): "RDMAP Remote Operation: Unexpected OpCode",
    (0, 2, 0x07): "RDMAP Remote Operation: Catastrophic, localized to RDMAP Stream",
    (0, 2, 0xFF): "RDMAP Remote Operation: Unspecified",
    (0, 0, 0xFF): "RDMAP Local Catastrophic (unspecified)",
    (1, 0, 0x00): "DDP Local Catastrophic",
    (1, 1, 0x00): "DDP tagged: Invalid STag",
    (1, 1, 0x01): "DDP tagged: Base or bounds violation",
    (1, 1, 0x02): "DDP tagged: STag not associated with DDP Stream",
    (1, 1, 0x03): "DDP tagged: TO wrap",
    (1, 1, 0x04): "DDP tagged: Invalid DDP version",
    (1, 2, 0x01): "DDP untagged: Invalid QN",
    (1, 2, 0x02): "DDP untagged: Invalid MSN - no buffer available",
    (1, 2, 0x03): "DDP untagged: Invalid MSN - MSN range is not valid",
    (1, 2, 0x04): "DDP untagged: Invalid MO",
    (1, 2, 0x05): "DDP untagged: DDP Message too long for available buffer",
    (1, 2, 0x06): "DDP untagged: Invalid DDP version",
    (2, 0, 0x02): "MPA: CRC error",
    (2, 0, 0x03): "MPA: Marker and ULPDU Length field mismatch",
}


def dec11_event(code):
    """QP async event the target raises for a Terminate (DIGEST 3.5, DEC-11;
    the table of drivers/siw2/siw2_term.c)."""
    if code is None:
        return "none"
    l, e, c = code
    if l in (0, 1) and e == 1:
        return "QP_ACCESS_ERR"
    if (l, e) == (0, 2) and c in (0x05, 0x06):
        return "QP_REQ_ERR"
    if (l, e) == (0, 2) and c == 0x09:
        return "QP_ACCESS_ERR"
    if (l, e) == (1, 2) and c in (0x05, 0x06):
        return "QP_REQ_ERR"
    return "QP_FATAL"


# --------------------------------------------------------------------------
# FPDU builders.  A Msg is one FPDU plus what a Terminate may echo of it.

class Msg:
    def __init__(self, what, ddp_hdr, rdmap_hdr=b"", payload=b"", crc=True, corrupt=False):
        self.what = what
        self.ddp_hdr = ddp_hdr
        self.rdmap_hdr = rdmap_hdr
        self.payload = payload
        ulpdu = ddp_hdr + rdmap_hdr + payload
        self.ulpdu_len = len(ulpdu)
        self.raw = mp.build_fpdu(ulpdu, crc)
        if corrupt:
            self.raw = mp.corrupt_crc(self.raw)


def ctrl_word(tagged, last, op, dv=1, rv=1):
    # op & 0x3f: the RDMAP octet's low 6 bits, so that an RV 1 message can
    # carry a 5-bit opcode (DEC-1) or set the reserved bits.
    return (0x8000 if tagged else 0) | (0x4000 if last else 0) | (dv & 3) << 8 | \
        (rv & 3) << 6 | (op & 0x3F)


def tagged_hdr(op, stag, to, last=True, dv=1, rv=1):
    return struct.pack(">HIQ", ctrl_word(True, last, op, dv, rv), stag & 0xFFFFFFFF,
                       to & 0xFFFFFFFFFFFFFFFF)


def untagged_hdr(op, qn, msn, mo, last=True, dv=1, rv=1, inval=0, tagged=False):
    return struct.pack(">HIIII", ctrl_word(tagged, last, op, dv, rv), inval, qn, msn, mo)


def rreq_hdr(sink_stag, sink_to, size, src_stag, src_to):
    return struct.pack(">IQIIQ", sink_stag, sink_to, size & 0xFFFFFFFF, src_stag & 0xFFFFFFFF,
                       src_to & 0xFFFFFFFFFFFFFFFF)


class Ctx:
    """What a scenario's builder sees: the target's MRs and the MPA mode."""

    def __init__(self, mrs, crc, ird=None, tout=None):
        self.mrs = mrs
        self.crc = crc
        self.ird = ird          # the target's IRD from its MPA Reply
        self.tout = tout        # the target's output file

    def mr(self, name):
        return self.mrs[name]

    def write(self, stag, to, n, k0=0, last=True, dv=1, rv=1, op=0x0, corrupt=False):
        return Msg("write", tagged_hdr(op, stag, to, last, dv, rv), payload=peer_bytes(k0, n),
                   crc=self.crc, corrupt=corrupt)

    def rreq(self, src_stag, src_to, size, sink_stag=0x00C0FFEE, sink_to=0x10000, msn=1,
             qn=1, mo=0, last=True):
        return Msg("read-req", untagged_hdr(0x1, qn, msn, mo, last),
                   rreq_hdr(sink_stag, sink_to, size, src_stag, src_to), crc=self.crc)

    def send(self, n, msn=1, qn=0, mo=0, last=True, dv=1, rv=1, op=0x3, tagged=False):
        return Msg("send", untagged_hdr(op, qn, msn, mo, last, dv, rv, tagged=tagged),
                   payload=peer_bytes(0, n), crc=self.crc)


BAD_STAG = 0xFFFFFE5A          # index 0xfffffe: no region of a fresh device
WRAP_TO = 0xFFFFFFFFFFFFFFF8   # TO + 16 wraps past 2^64


# --------------------------------------------------------------------------
# The expected table.
#
# code: the Terminate (Layer, EType, Code) per DIGEST 3.4; hdrs: what the
# Terminate must carry after its control word (DIGEST 3.3, BASE-RDMAP-8):
#   ddp        D=1: the DDP Segment Length and the offending DDP header
#   ddp+rdmap  D=1 R=1: also the 28-octet Read Request header
#   opt        headers optional (the layout of the offending header is not
#              known, or the FPDU itself failed), but if present, correct
# event: DEC-11 (derived from code unless given); rwc: the receives'
# completions (None: every posted receive completes once, none SUCCESS);
# mpa: r2c = Rev 2 with CRC (default), r2 = Rev 2 without, r1 = Rev 1
# without CRC; recv/recv_size: receives the target posts; allow/maybe:
# target --allow/--maybe ranges (bytes a valid operation may change);
# ird: the target's --ird; extra: the FPDUs expected before the Terminate
# ("none", or "NAME*": any number of NAME, none included); wait: seconds
# to collect the answer (default --wait); log_fpdus: print only the first
# N data FPDUs received.

DEREG_LEN = 2000        # the Write cut by the deregistration
DEREG_CUT = 100         # octets of its FPDU sent before it


class Scn:
    def __init__(self, name, req, desc, build, code=None, hdrs="ddp", mpa="r2c", recv=1,
                 recv_size=256, allow=(), maybe=(), event=None, rwc=None, positive=False,
                 why="", ird=None, extra="none", wait=None, log_fpdus=None, run=None,
                 rcvbuf=None, scribble=None, dereg_on=None):
        self.name, self.req, self.desc, self.build = name, req, desc, build
        self.code, self.hdrs, self.mpa = code, hdrs, mpa
        self.recv, self.recv_size = recv, recv_size
        self.ird, self.extra = ird, extra
        self.wait, self.log_fpdus = wait, log_fpdus
        self.allow, self.maybe = allow, maybe
        self.event = event if event is not None else dec11_event(code)
        self.rwc = rwc
        self.positive = positive
        self.why = why
        self.run = run              # a positive scenario's own runner
        self.rcvbuf = rcvbuf        # our SO_RCVBUF, set before connecting
        self.scribble = scribble    # the region the target rewrites meanwhile
        self.dereg_on = dereg_on    # the region the target deregisters on our word

    def target_args(self, tout):
        """The target's arguments; @tout: its output file, whose name
        with ".dereg" added is our word to deregister (--dereg-on)."""
        a = ["--recv", str(self.recv), "--recv-size", str(self.recv_size)]
        if self.ird is not None:
            a += ["--ird", str(self.ird)]
        for r in self.allow:
            a += ["--allow", r]
        for r in self.maybe:
            a += ["--maybe", r]
        if self.scribble:
            a += ["--scribble", self.scribble]
        if self.dereg_on:
            a += ["--dereg-on", "%s.dereg:%s" % (tout, self.dereg_on)]
        return a


RW_LEN = MR_LAYOUT["rw"][0]
RO_LEN = MR_LAYOUT["ro"][0]

SCENARIOS = [
    # ---- positive controls
    Scn("valid-ops", req="BASE-DDP-3 BASE-DDP-4 BASE-RDMAP-4 BASE-RDMAP-6 BASE-MPA-8 BASE-MPA-9",
        desc="Writes (2 segments; one FPDU larger than a TCP segment), a Send, 3 Reads checked "
        "byte for byte, then FIN", build=None, positive=True,
        allow=("rw:16:2000", "rw:4000:3000", "wo:0:64", "recv:0:100"), rwc="SUCCESS"),
    Scn("valid-ops-rev1", req="BASE-MPA-3 BASE-DDP-3 BASE-RDMAP-4",
        desc="as valid-ops, MPA Rev 1 without CRC", build=None, positive=True, mpa="r1",
        allow=("rw:16:2000", "rw:4000:3000", "wo:0:64", "recv:0:100"), rwc="SUCCESS"),
    Scn("rresp-source-written", req="BASE-MPA-9",
        desc="16 Reads of rw stalled by a 4 KiB receive window, a Write rewriting rw, then "
        "every Response read: any mix of old and new octets, every CRC matching",
        build=None, positive=True, run=lambda *a: run_rresp_race(*a), rcvbuf=4096, ird=16,
        allow=("rw:0:%d" % MR_LAYOUT["rw"][0],)),
    Scn("write-dest-scribbled", req="BASE-MPA-9",
        desc="%d Writes of all of rw while the target's application rewrites rw, then a Read "
        "of ro: rw's octets are anyone's, but every Write's CRC matched the wire's octets, so "
        "none is Terminated" % 1000,
        build=None, positive=True, run=lambda *a: run_write_scribbled(*a), scribble="rw"),
    Scn("write-dereg-mid", req="BASE-DDP-6",
        desc="a Write of %d octets into rw, its FPDU cut after %d octets while the target's "
        "application deregisters rw, then a Read of ro: the Write validated before the "
        "deregistration is placed, nothing is Terminated, the QP lives on" % (
            DEREG_LEN, DEREG_CUT),
        build=None, positive=True, run=lambda *a: run_write_dereg_mid(*a), dereg_on="rw",
        maybe=("rw:0:%d" % DEREG_LEN,)),
    # ---- RDMA Write: DDP tagged buffer errors
    Scn("write-bad-stag", req="BASE-DDP-6 BASE-RDMAP-8", desc="Write to an STag no region has",
        build=lambda c: [c.write(BAD_STAG, c.mr("rw").addr, 16)], code=(1, 1, 0x00)),
    Scn("write-bad-stag-r1", req="BASE-DDP-6 BASE-MPA-3",
        desc="write-bad-stag over MPA Rev 1 without CRC",
        build=lambda c: [c.write(BAD_STAG, c.mr("rw").addr, 16)], code=(1, 1, 0x00), mpa="r1"),
    Scn("write-bad-key", req="BASE-DDP-6 BASE-RDMAP-3",
        desc="Write to rw's STag index with another key",
        build=lambda c: [c.write(c.mr("rw").stag ^ 0x01, c.mr("rw").addr, 16)], code=(1, 1, 0x00)),
    Scn("write-dereg", req="BASE-DDP-6", desc="Write to a deregistered (invalidated) STag",
        build=lambda c: [c.write(c.mr("dereg").stag, c.mr("dereg").addr, 16)], code=(1, 1, 0x00)),
    Scn("write-ro", req="BASE-DDP-6 DIGEST 3.4 DEC-10",
        desc="Write to an MR without REMOTE_WRITE (read-only)",
        build=lambda c: [c.write(c.mr("ro").stag, c.mr("ro").addr, 16)], code=(0, 1, 0x02),
        why="DDP has no access-rights code (BASE-DDP-6); RDMAP has one (DIGEST 3.4), as "
        "DEC-10 uses for Atomic/Commit targets; Linux siw sends DDP Invalid STag"),
    Scn("write-none", req="BASE-DDP-6 DIGEST 3.4 DEC-10",
        desc="Write to an MR without remote rights",
        build=lambda c: [c.write(c.mr("none").stag, c.mr("none").addr, 16)], code=(0, 1, 0x02),
        why="as write-ro"),
    Scn("write-pd2", req="BASE-DDP-6", desc="Write to an MR of another PD",
        build=lambda c: [c.write(c.mr("pd2").stag, c.mr("pd2").addr, 16)], code=(1, 1, 0x02)),
    Scn("write-below", req="BASE-DDP-6", desc="Write starting 16 bytes below the MR (32 bytes)",
        build=lambda c: [c.write(c.mr("rw").stag, c.mr("rw").addr - 16, 32)], code=(1, 1, 0x01)),
    Scn("write-past-end", req="BASE-DDP-6", desc="Write of 16 bytes at MR end - 8",
        build=lambda c: [c.write(c.mr("rw").stag, c.mr("rw").addr + RW_LEN - 8, 16)],
        code=(1, 1, 0x01)),
    Scn("write-far", req="BASE-DDP-6", desc="Write 1 MiB past the MR start (beyond the guards)",
        build=lambda c: [c.write(c.mr("rw").stag, c.mr("rw").addr + (1 << 20), 16)],
        code=(1, 1, 0x01)),
    Scn("write-wrap", req="BASE-DDP-6", desc="Write of 16 bytes at TO 2^64-8 (TO + length wraps)",
        build=lambda c: [c.write(c.mr("rw").stag, WRAP_TO, 16)], code=(1, 1, 0x03)),
    Scn("write-seg2-past-end", req="BASE-DDP-3 BASE-DDP-6",
        desc="a 2-segment Write whose first segment fits and second crosses the end",
        build=lambda c: [c.write(c.mr("rw").stag, c.mr("rw").addr + RW_LEN - 100, 64, last=False),
                         c.write(c.mr("rw").stag, c.mr("rw").addr + RW_LEN - 36, 64, k0=64)],
        code=(1, 1, 0x01), maybe=("rw:%d:64" % (RW_LEN - 100),),
        why="the first segment is valid and may be placed (BASE-DDP-3)"),
    # ---- RDMA Read Request: RDMAP Remote Protection (source checks)
    Scn("rreq-bad-stag", req="BASE-RDMAP-4 BASE-RDMAP-8",
        desc="Read Request from an STag no region has",
        build=lambda c: [c.rreq(BAD_STAG, c.mr("ro").addr, 16)], code=(0, 1, 0x00),
        hdrs="ddp+rdmap"),
    Scn("rreq-dereg", req="BASE-RDMAP-4 BASE-RDMAP-8", desc="Read Request from a deregistered STag",
        build=lambda c: [c.rreq(c.mr("dereg").stag, c.mr("dereg").addr, 16)], code=(0, 1, 0x00),
        hdrs="ddp+rdmap"),
    Scn("rreq-wo", req="BASE-RDMAP-4 BASE-RDMAP-8",
        desc="Read Request from an MR without REMOTE_READ",
        build=lambda c: [c.rreq(c.mr("wo").stag, c.mr("wo").addr, 16)], code=(0, 1, 0x02),
        hdrs="ddp+rdmap", mpa="r2"),
    Scn("rreq-none", req="BASE-RDMAP-4 BASE-RDMAP-8",
        desc="Read Request from an MR without remote rights",
        build=lambda c: [c.rreq(c.mr("none").stag, c.mr("none").addr, 16)], code=(0, 1, 0x02),
        hdrs="ddp+rdmap"),
    Scn("rreq-pd2", req="BASE-RDMAP-4 BASE-RDMAP-8", desc="Read Request from an MR of another PD",
        build=lambda c: [c.rreq(c.mr("pd2").stag, c.mr("pd2").addr, 16)], code=(0, 1, 0x03),
        hdrs="ddp+rdmap"),
    Scn("rreq-below", req="BASE-RDMAP-4", desc="Read Request of 16 bytes from 8 below the MR",
        build=lambda c: [c.rreq(c.mr("ro").stag, c.mr("ro").addr - 8, 16)], code=(0, 1, 0x01),
        hdrs="ddp+rdmap"),
    Scn("rreq-past-end", req="BASE-RDMAP-4", desc="Read Request of 16 bytes at MR end - 8",
        build=lambda c: [c.rreq(c.mr("ro").stag, c.mr("ro").addr + RO_LEN - 8, 16)],
        code=(0, 1, 0x01), hdrs="ddp+rdmap"),
    Scn("rreq-wrap", req="BASE-RDMAP-4", desc="Read Request of 16 bytes at TO 2^64-8",
        build=lambda c: [c.rreq(c.mr("ro").stag, WRAP_TO, 16)], code=(0, 1, 0x04),
        hdrs="ddp+rdmap"),
    Scn("rreq-ird-overflow", req="BASE-RDMAP-5 AMB-18",
        desc="IRD + 1 Read Requests of 1 MiB in one burst (IRD as the target's MPA Reply "
        "states it; the peer asks ORD 4): the last finds every Response still going",
        build=lambda c: [c.rreq(c.mr("big").stag, c.mr("big").addr, 1 << 20,
                                sink_to=0x100000 * (i + 1), msn=i + 1)
                         for i in range((c.ird or 4) + 1)],
        code=(0, 2, 0x07), hdrs="ddp+rdmap", extra="read-resp*", wait=30, log_fpdus=20,
        why="a 1 MiB Response is not all with TCP microseconds after its Request, so "
        "the burst's last Request always finds the IRD full; the Terminate follows the "
        "Response FPDU in progress"),
    # ---- Read Request: DDP untagged (QN 1) errors
    Scn("rreq-bad-msn", req="BASE-DDP-4 BASE-DDP-5", desc="Read Request with MSN 0 (expected 1)",
        build=lambda c: [c.rreq(c.mr("ro").stag, c.mr("ro").addr, 16, msn=0)], code=(1, 2, 0x03)),
    Scn("rreq-bad-mo", req="BASE-DDP-5", desc="Read Request with MO 4 (a single-segment message)",
        build=lambda c: [c.rreq(c.mr("ro").stag, c.mr("ro").addr, 16, mo=4)], code=(1, 2, 0x04)),
    Scn("rreq-bad-qn", req="BASE-DDP-5 DIGEST 1.2", desc="Read Request opcode on QN 0",
        build=lambda c: [c.rreq(c.mr("ro").stag, c.mr("ro").addr, 16, qn=0)], code=(1, 2, 0x01)),
    # ---- Send: DDP untagged buffer errors
    Scn("send-no-recv", req="BASE-DDP-5", desc="Send of 64 bytes with no receive posted",
        build=lambda c: [c.send(64)], code=(1, 2, 0x02), recv=0),
    Scn("send-no-recv-r1", req="BASE-DDP-5 BASE-MPA-3",
        desc="send-no-recv over MPA Rev 1 without CRC",
        build=lambda c: [c.send(64)], code=(1, 2, 0x02), recv=0, mpa="r1"),
    Scn("send-too-long", req="BASE-DDP-5 DEC-11", desc="Send of 128 bytes into a 64-byte receive",
        build=lambda c: [c.send(128)], code=(1, 2, 0x05), recv_size=64, rwc="LOC_LEN_ERR"),
    Scn("send-bad-qn", req="BASE-DDP-5", desc="Send on QN 5",
        build=lambda c: [c.send(64, qn=5)], code=(1, 2, 0x01)),
    Scn("send-bad-msn", req="BASE-DDP-4 BASE-DDP-5", desc="Send with MSN 0 (expected 1)",
        build=lambda c: [c.send(64, msn=0)], code=(1, 2, 0x03)),
    Scn("send-bad-mo", req="BASE-DDP-5", desc="first Send segment with MO 8",
        build=lambda c: [c.send(64, mo=8)], code=(1, 2, 0x04),
        why="TCP delivers in order: a message's first segment has MO 0"),
    # ---- versions and opcodes
    Scn("write-bad-dv", req="BASE-DDP-1 BASE-DDP-6", desc="Write with DDP version 2",
        build=lambda c: [c.write(c.mr("rw").stag, c.mr("rw").addr, 16, dv=2)], code=(1, 1, 0x04),
        hdrs="opt"),
    Scn("send-bad-dv", req="BASE-DDP-1 BASE-DDP-5", desc="Send with DDP version 0",
        build=lambda c: [c.send(64, dv=0)], code=(1, 2, 0x06), hdrs="opt"),
    Scn("send-bad-rv", req="BASE-RDMAP-1", desc="Send with RDMAP version 0",
        build=lambda c: [c.send(64, rv=0)], code=(0, 2, 0x05), hdrs="opt"),
    Scn("write-rv2", req="BASE-RDMAP-1 AMB-4 DEC-4",
        desc="Write with RDMAP version 2 (not negotiated)",
        build=lambda c: [c.write(c.mr("rw").stag, c.mr("rw").addr, 16, rv=2)], code=(0, 2, 0x05),
        hdrs="opt"),
    Scn("op-reserved", req="BASE-RDMAP-1 DEC-1", desc="untagged opcode 0xF on QN 0",
        build=lambda c: [c.send(64, op=0xF)], code=(0, 2, 0x06), hdrs="opt"),
    Scn("op-imm-unneg", req="DEC-1 DEC-4", desc="Immediate Data (0x8) without DEC-4 negotiation",
        build=lambda c: [c.send(8, op=0x8)], code=(0, 2, 0x06), hdrs="opt"),
    Scn("op-5bit-rv1", req="DEC-1", desc="opcode 0x13 (Send with Immediate, v2) with RV 1",
        build=lambda c: [c.send(64, op=0x13)], code=(0, 2, 0x06), hdrs="opt"),
    Scn("send-tagged", req="BASE-DDP-2 DIGEST 3.3", desc="a Send with the T bit set",
        build=lambda c: [Msg("send", struct.pack(">HIQ", ctrl_word(True, True, 0x3),
                                                 c.mr("rw").stag, c.mr("rw").addr),
                             payload=peer_bytes(0, 16), crc=c.crc)],
        code=(0, 2, 0x06), hdrs="opt", why="DIGEST 3.3: the opcode fixes T"),
    # ---- MPA
    Scn("bad-crc", req="BASE-MPA-4 BASE-MPA-9 AMB-5", desc="a Write to rw with its CRC inverted",
        build=lambda c: [c.write(c.mr("rw").stag, c.mr("rw").addr, 16, corrupt=True)],
        code=(2, 0, 0x02), hdrs="opt", maybe=("rw:0:16",),
        why="payload may be placed before the trailer is checked (rights were valid)"),
]
SCN = {s.name: s for s in SCENARIOS}

# What Linux siw (6.12) was seen to answer where it differs from the table:
# scenario -> {signature field: value}.  Filled from runs of
# tests/vm/cases/63-dp-protection.sh; see the case's header.
_NO_EV = {"event": "none"}
# A Read Request error found while building the Read Response: siw's
# Terminate rebuilds the request with the read size in the MSN field, and
# siw neither moves the QP to ERR nor flushes the receives (until the
# consumer disconnects); its async event is QP_REQ_ERR.
_RREQ_TX = {"hdrs": "bad(ddp.msn)", "qp": "RTS", "event": "QP_REQ_ERR", "rwc": "=none"}
# The request is answered with a Read Response: no Terminate, no close.
_RRESP = {"term": "none", "extra": "read-resp", "close": "open", "event": "none"}
SIW_KNOWN = {
    "write-bad-stag": _NO_EV, "write-bad-stag-r1": _NO_EV, "write-bad-key": _NO_EV,
    "write-dereg": _NO_EV,
    # DDP Invalid STag for a missing right (BASE-DDP-6 notes why)
    "write-ro": {"term": "1/1/0x00"}, "write-none": {"term": "1/1/0x00"},
    # no TO wrap check: TO + len wraps below the region end, the bounds
    # check passes and placement fails ("bogus addr"): DDP catastrophic
    "write-wrap": {"term": "1/0/0x00", "event": "none"},
    "rreq-bad-stag": _RREQ_TX, "rreq-dereg": _RREQ_TX, "rreq-pd2": _RREQ_TX,
    "rreq-below": _RREQ_TX, "rreq-past-end": _RREQ_TX,
    # REMOTE_READ is never checked: the region's bytes are sent
    "rreq-wo": _RRESP, "rreq-none": _RRESP,
    # no wrap check either; the Read Response fails: FIN, no Terminate
    "rreq-wrap": dict(_RREQ_TX, term="none"),
    "rreq-bad-msn": _NO_EV,
    # neither MO nor QN of a Read Request is checked
    "rreq-bad-mo": _RRESP, "rreq-bad-qn": _RRESP,
    "send-no-recv": _NO_EV, "send-no-recv-r1": _NO_EV,
    # "no buffer available" also for a buffer that is too small
    "send-too-long": {"term": "1/2/0x02", "event": "QP_FATAL"},
    "write-bad-dv": _NO_EV, "send-bad-dv": _NO_EV, "send-bad-rv": _NO_EV,
    "write-rv2": _NO_EV, "op-reserved": _NO_EV, "op-imm-unneg": _NO_EV,
    # the CRC is taken when an FPDU is framed, the source sent later: a
    # Read source rewritten in between leaves with the old CRC
    "rresp-source-written": {"data": "bad"},
    # the STag is looked up again for every piece of an FPDU that comes in:
    # a region deregistered in between fails the rest (Terminate 1/1/0x00)
    "write-dereg-mid": {"data": "bad", "event": "QP_ACCESS_ERR"},
    # a 4-bit opcode: 0x13 is a Send, placed and completed with SUCCESS
    "op-5bit-rv1": {"term": "none", "close": "open", "guards": "FAIL", "event": "none",
                    "rwc": "=SUCCESS"},
    # T is not checked against the opcode: the tagged header read as an
    # untagged one gives QN = TO bits
    "send-tagged": {"term": "1/2/0x01", "hdrs": "bad(seglen)", "seglen": "?",
                    "event": "QP_FATAL"},
    "bad-crc": _NO_EV,
    # the IRQ slot is free once the Response starts: IRD + 1 Reads are all
    # answered (the Reply said IRD 4; 5 Reads of 1 MiB came back whole)
    "rreq-ird-overflow": {"term": "none", "extra": "*", "close": "*", "qp": "RTS",
                          "event": "none", "rwc": "=none"},
}
# ... and in every scenario: siw writes the Terminate control word as a C
# bitfield, Layer and EType nibble-swapped and M/D/R in the low bits of
# octet 2 (mpa_peer.py decode_term_ctrl), and its DDP Segment Length
# counts the payload only.
SIW_KNOWN_ALL = {"layout": "siw", "seglen": "payload"}


def kernel_series(release=None):
    """(major, minor) of a kernel release string, by default the running
    kernel's (the guest's: Linux siw is built from that kernel's source)."""
    m = re.match(r"(\d+)\.(\d+)", release or os.uname().release)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def siw_reports_qp_state(release=None):
    """Linux siw before 6.8 (Debian 12's 6.1) leaves the state out of
    query_qp ("RDMA/siw: Set qp_state in siw_query_qp", 2023): the target
    reads RESET whatever the QP's state is."""
    return kernel_series(release) >= (6, 8)


# --------------------------------------------------------------------------
# Target output.

class MR:
    def __init__(self, name, stag, addr, length, seed, state):
        self.name, self.stag, self.addr, self.len, self.seed, self.state = \
            name, stag, addr, length, seed, state


def parse_kv(line):
    d = {}
    for tok in line.split()[1:]:
        if "=" in tok:
            k, v = tok.split("=", 1)
            d[k] = v
    return d


def parse_mrs(text):
    mrs = {}
    for line in text.splitlines():
        if not line.startswith("MR "):
            continue
        kv = parse_kv(line)
        name = kv.get("name")
        if kv.get("state") == "deregistered" and name in mrs:
            mrs[name].state = "deregistered"
            continue
        mrs[name] = MR(name, int(kv["stag"], 16), int(kv["addr"], 16), int(kv["len"]),
                       int(kv["seed"], 16), kv.get("state", "valid"))
    return mrs


def parse_target(text):
    t = {"guards": "none", "guards_detail": "", "qp": "none", "events": "none",
         "rwc": "none", "posted": 0, "timeout": False, "done": False, "fail": ""}
    for line in text.splitlines():
        if line.startswith("GUARDS "):
            t["guards"] = line.split()[1]
            t["guards_detail"] = line[len("GUARDS FAIL"):].strip() if "FAIL" in line else ""
        elif line.startswith("QP state="):
            t["qp"] = line.split("=", 1)[1].split()[0]
        elif line.startswith("SUMMARY "):
            kv = parse_kv(line)
            t["events"] = kv.get("events", "none")
            t["rwc"] = kv.get("recv_wcs", "none")
            t["posted"] = int(kv.get("posted", "0"))
        elif line.startswith("TIMEOUT"):
            t["timeout"] = True
        elif line.startswith("DONE"):
            t["done"] = True
        elif line.startswith("FAIL:"):
            t["fail"] = line
    qp_events = [e for e in t["events"].split(",") if e.startswith("QP_")]
    t["event"] = qp_events[0] if qp_events else "none"
    return t


# --------------------------------------------------------------------------
# One scenario on the wire.

def mpa_connect(host, port, mode, out, timeout=5.0, rcvbuf=None, ord_=4):
    """TCP connect and the MPA exchange as Initiator.  Returns (conn, sess)
    or raises RuntimeError.  @rcvbuf: SO_RCVBUF before the connect (a
    small window stalls the target's transmitter); @ord_: the ORD our
    Request states."""
    rev = 1 if mode == "r1" else 2
    crc = mode == "r2c"

    class A:
        pass
    a = A()
    a.timeout = timeout
    sess = mp.Session(a, out)
    sess.is_initiator = True
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.settimeout(timeout)
    sock.connect((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.settimeout(None)
    conn = mp.Conn(sock, out)
    pd = mp.enh_data(4, ord_) if rev == 2 else b""
    req = mp.build_rr(mp.KEY_REQ, rev=rev, c=1 if crc else 0, s=1 if rev == 2 else 0, pd=pd)
    out(mp.describe_rr("request", mp.parse_rr(req[:20], req[20:])))
    conn.send(req, "request")
    rep = sess.read_rr(conn, time.monotonic() + timeout, "reply")
    if rep is None or rep["key"] != mp.KEY_REP or rep["R"] or rep.get("incomplete"):
        conn.close()
        raise RuntimeError("no accepting MPA Reply")
    sess.crc_on = bool(crc or rep["C"])
    if rep["M"]:
        conn.close()
        raise RuntimeError("the Reply asks for markers")
    # The Responder's IRD as its Reply states it (Rev 1: none stated).
    sess.granted_ird = rep["enh"]["ird"] if rep.get("enh") else None
    out("negotiated rev=%d crc=%d" % (rep["rev"], sess.crc_on))
    return conn, sess


def send_msgs(conn, sess, msgs, out):
    for m in msgs:
        out("sent %s %d bytes: %s" % (m.what, len(m.raw), mp.hexs(m.raw, 64)))
        if not conn.send(m.raw, m.what):
            return False
        sess.sent_fpdu = True
    return True


def collect(conn, sess, deadline, stop_at_term=False):
    """FPDUs until close or deadline."""
    got = []
    while not conn.closed and time.monotonic() < deadline:
        d = sess.next_fpdu(conn, deadline)
        if d is None:
            break
        got.append(d)
        if stop_at_term and d.get("op") == 0x7 and not d.get("T"):
            break
    return got


def fpdu_name(d):
    if d.get("op") is None:
        return "raw"
    return mp.OPNAMES.get(d["op"], "op%x" % d["op"])


def fpdu_names(ds):
    """FPDU names, a run of one name as "NAME xN"; "none" if empty."""
    out = []
    for n in (fpdu_name(d) for d in ds):
        if out and out[-1][0] == n:
            out[-1][1] += 1
        else:
            out.append([n, 1])
    return ",".join(n if k == 1 else "%s x%d" % (n, k) for n, k in out) or "none"


def check_included(term, flags, msg):
    """The headers a Terminate carries after its control word, against the
    FPDU that caused it.  Returns (hdrs, seglen, problems), problems as
    (key, text) pairs."""
    rest = term["rest"]
    m, d, r = flags
    if not d and not r:
        return ("none" if not rest else "none+%dB" % len(rest)), "-", []
    probs = []
    kind = "ddp+rdmap" if r else "ddp"
    if not d:
        probs.append(("flags", "R without D"))
    dl = len(msg.ddp_hdr)
    want_len = 2 + dl + (28 if r else 0)
    if len(rest) < want_len:
        return kind, "-", [("len", "only %d header octets (want %d)" % (len(rest), want_len))]
    if len(rest) > want_len:
        probs.append(("len", "%d octets after the headers" % (len(rest) - want_len)))
    seg = struct.unpack(">H", rest[:2])[0]
    payload_len = msg.ulpdu_len - dl - len(msg.rdmap_hdr)
    if seg == payload_len and seg == msg.ulpdu_len:
        seglen = "%d" % seg
    elif seg == payload_len:
        seglen = "%d(payload)" % seg
    elif seg == msg.ulpdu_len:
        seglen = "%d(ulpdu)" % seg
    elif seg == msg.ulpdu_len - dl:
        seglen = "%d(after-ddp)" % seg
    else:
        seglen = "%d(?)" % seg
        if m:
            probs.append(("seglen", "DDP Segment Length %d (payload %d, ULPDU %d)" %
                          (seg, payload_len, msg.ulpdu_len)))
    got = rest[2:2 + dl]
    if got != msg.ddp_hdr:
        names = ["ctrl", "stag", "to"] if dl == 14 else ["ctrl", "rsvdulp", "qn", "msn", "mo"]
        fmt = ">HIQ" if dl == 14 else ">HIIII"
        gv, wv = struct.unpack(fmt, got), struct.unpack(fmt, msg.ddp_hdr)
        for n, g, w in zip(names, gv, wv):
            if g != w:
                probs.append(("ddp." + n, "ddp.%s=0x%x(sent 0x%x)" % (n, g, w)))
    if r:
        got = rest[2 + dl:2 + dl + 28]
        if got != msg.rdmap_hdr:
            names = ["sink_stag", "sink_to", "size", "src_stag", "src_to"]
            if len(msg.rdmap_hdr) == 28:
                gv = struct.unpack(">IQIIQ", got)
                wv = struct.unpack(">IQIIQ", msg.rdmap_hdr)
                for n, g, w in zip(names, gv, wv):
                    if g != w:
                        probs.append(("rdmap." + n, "rdmap.%s=0x%x(sent 0x%x)" % (n, g, w)))
            else:
                probs.append(("rdmap", "R=1 but the offending message has no RDMAP header"))
    return kind, seglen, probs


def term_layout(t, want):
    """Pick the reading of the control word: RFC 5040, or Linux siw's
    nibble-swapped bitfield.  Returns (code, layout, flags).

    The flag bits decide first: RFC M/D/R are 0xE0 of octet 2, siw's are
    0x07 (reserved bits in the RFC layout).  Without flags, the reading
    that gives the expected code wins, then the one that gives a known
    code, RFC first.  "either": nothing tells the layouts apart."""
    rfc = (t["layer"], t["etype"], t["code"])
    w = t["siw"]
    siw = (w["layer"], w["etype"], w["code"])
    rf = (t["M"], t["D"], t["R"])
    sf = (w["M"], w["D"], w["R"])
    o2 = t["raw"][2]
    if o2 & 0x07 and not o2 & 0xE0:
        return siw, "siw", sf
    if o2 & 0xE0 and not o2 & 0x07:
        return rfc, "rfc", rf
    if rfc == siw:
        return rfc, "either", rf
    if want is not None and rfc == tuple(want):
        return rfc, "rfc", rf
    if want is not None and siw == tuple(want):
        return siw, "siw", sf
    if rfc in CODE_NAMES or siw not in CODE_NAMES:
        return rfc, "rfc", rf
    return siw, "siw", sf


def run_negative(s, ctx, conn, sess, out, wait):
    obs = {}
    msgs = s.build(ctx)
    send_msgs(conn, sess, msgs, out)
    got = collect(conn, sess, time.monotonic() + wait)
    if not conn.closed:
        out("no close within %.1fs; closing" % wait)
    terms = [i for i, d in enumerate(got) if d.get("op") == 0x7 and not d.get("T")]
    before = got[:terms[0]] if terms else got
    after = got[terms[0] + 1:] if terms else []
    obs["extra"] = fpdu_names(before)
    obs["after"] = fpdu_names(after)
    obs["close"] = "closed" if conn.closed else "open"
    obs["close_how"] = conn.closed or "open"
    if not terms:
        obs.update(term="none", layout="-", flags="-", hdrs="-", seglen="-", tddp="-",
                   tcrc="-", hdr_probs="")
        return obs
    d = got[terms[0]]
    t = d["term"]
    if t is None:
        obs.update(term="short", layout="-", flags="-", hdrs="-", seglen="-", tddp="-",
                   tcrc=d["crc"], hdr_probs="")
        return obs
    code, layout, flags = term_layout(t, s.code)
    obs["term"] = code_str(code)
    obs["layout"] = layout
    obs["flags"] = "".join(n for n, v in zip("MDR", flags) if v) or "-"
    probs = []
    for k, want in (("T", 0), ("L", 1), ("dv", 1), ("rv", 1), ("qn", 2), ("msn", 1), ("mo", 0)):
        if d.get(k) != want:
            probs.append("%s=%s" % (k, d.get(k)))
    obs["tddp"] = "ok" if not probs else "bad(" + " ".join(probs) + ")"
    obs["tcrc"] = d["crc"] if sess.crc_on else "off"
    # The offending FPDU: the last one sent.
    hdrs, seglen, hp = check_included(t, flags, msgs[-1])
    obs["hdrs"] = hdrs if not hp else "bad(%s)" % ",".join(k for k, _ in hp)
    obs["hdr_probs"] = "; ".join(t for _, t in hp)
    obs["seglen"] = seglen
    return obs


def read_responses(conn, sess, reqs, out, wait):
    """reqs: list of (sink_stag, sink_to, expected bytes).  Returns problems."""
    probs = []
    deadline = time.monotonic() + wait
    for sink, to0, want in reqs:
        data = b""
        while True:
            d = sess.next_fpdu(conn, deadline)
            if d is None:
                probs.append("read sink 0x%08x: %d of %d bytes before %s" %
                             (sink, len(data), len(want), conn.closed or "the deadline"))
                return probs
            if d.get("op") != 0x2 or not d.get("T"):
                probs.append("read sink 0x%08x: %s instead of a Read Response" %
                             (sink, fpdu_name(d)))
                return probs
            if d["stag"] != sink or d["to"] != to0 + len(data):
                probs.append("Read Response stag 0x%08x to 0x%x, want 0x%08x 0x%x" %
                             (d["stag"], d["to"], sink, to0 + len(data)))
                return probs
            data += d["ulpdu"][14:]
            if d["L"]:
                break
        if data != want:
            bad = next(i for i in range(min(len(data), len(want)) + 1)
                       if i >= len(data) or i >= len(want) or data[i] != want[i])
            probs.append("read sink 0x%08x: %d bytes, want %d; first difference at %d" %
                         (sink, len(data), len(want), bad))
        else:
            out("read-resp ok sink=0x%08x %d bytes" % (sink, len(data)))
    return probs


def positive_obs():
    """A positive scenario's observations before its data is judged: no
    Terminate, so no Terminate fields."""
    return {"term": "none", "layout": "-", "flags": "-", "hdrs": "-", "seglen": "-",
            "tddp": "-", "tcrc": "-", "hdr_probs": ""}


def run_positive(s, ctx, conn, sess, out, wait):
    rw, wo, ro = ctx.mr("rw"), ctx.mr("wo"), ctx.mr("ro")
    msgs = [
        ctx.write(rw.stag, rw.addr + 16, 1000, k0=0, last=False),
        ctx.write(rw.stag, rw.addr + 1016, 1000, k0=1000),
        ctx.write(rw.stag, rw.addr + 4000, 3000),          # one FPDU, several segments
        ctx.write(wo.stag, wo.addr, 64),
        ctx.send(100, msn=1),
        ctx.rreq(rw.stag, rw.addr, 3000, sink_stag=0x00C0FFEE, sink_to=0x10000, msn=1),
        ctx.rreq(ro.stag, ro.addr, 100, sink_stag=0x00C0FF01, sink_to=0x20000, msn=2),
        ctx.rreq(rw.stag, rw.addr + 3900, 200, sink_stag=0x00C0FF02, sink_to=0x30000, msn=3),
    ]

    def rw_now(off, n):
        b = bytearray(mr_bytes(rw.seed, off, n))
        for start, ln in ((16, 2000), (4000, 3000)):
            for o in range(max(off, start), min(off + n, start + ln)):
                b[o - off] = peer_byte(o - start)
        return bytes(b)

    reqs = [(0x00C0FFEE, 0x10000, rw_now(0, 3000)),
            (0x00C0FF01, 0x20000, mr_bytes(ro.seed, 0, 100)),
            (0x00C0FF02, 0x30000, rw_now(3900, 200))]
    obs = positive_obs()
    send_msgs(conn, sess, msgs, out)
    probs = read_responses(conn, sess, reqs, out, wait)
    obs["data"] = "ok" if not probs else "bad"
    obs["data_probs"] = "; ".join(probs)
    return end_positive(conn, sess, out, wait, obs)


def end_positive(conn, sess, out, wait, obs):
    """After a positive scenario's checks: anything else (a Terminate?)
    within 0.3 s, then our FIN and the target's close."""
    more = collect(conn, sess, time.monotonic() + 0.3)
    obs["extra"] = ",".join(fpdu_name(d) for d in more) or "none"
    obs["after"] = "none"
    if not conn.closed:
        try:
            conn.sock.shutdown(socket.SHUT_WR)
            out("sent FIN")
        except OSError as e:
            out("shutdown: %s" % e.strerror)
        conn.set_mark()
        more = collect(conn, sess, time.monotonic() + wait)
        if more:
            obs["after"] = ",".join(fpdu_name(d) for d in more)
    obs["close"] = "closed" if conn.closed else "open"
    obs["close_how"] = conn.closed or "open"
    return obs


RACE_READS = 16         # Read Requests of all of rw: 128,000 octets of Responses
RACE_K0 = 0             # the Write's pattern, peer_byte(offset): what --allow wants


def run_rresp_race(s, ctx, conn, sess, out, wait):
    """Read Responses whose source changes while they are sent: our small
    window stalls the target's transmitter inside the Responses (more than
    its socket holds), then a Write rewrites all of rw, then we read.  Each
    octet may be old or new (RFC 5040 leaves it undefined), but every
    FPDU's CRC must match the octets it carries (BASE-MPA-9), and the
    Responses read after the stall carry new octets (else the stall was
    not inside them and the scenario proved nothing)."""
    rw = ctx.mr("rw")
    if (ctx.ird or 0) < RACE_READS:
        return {"error": "the target granted IRD %s, the scenario needs %d" % (ctx.ird,
                                                                              RACE_READS)}
    reqs = [ctx.rreq(rw.stag, rw.addr, RW_LEN, sink_stag=0x00C0F000 + i,
                     sink_to=0x100000 * (i + 1), msn=i + 1) for i in range(RACE_READS)]
    scale = float(os.environ.get("SIW2_TIMEOUT_SCALE", "1") or 1)
    send_msgs(conn, sess, reqs, out)
    time.sleep(0.5 * scale)
    send_msgs(conn, sess, [ctx.write(rw.stag, rw.addr, RW_LEN, k0=RACE_K0)], out)
    time.sleep(0.3 * scale)
    old, new = mr_bytes(rw.seed, 0, RW_LEN), peer_bytes(RACE_K0, RW_LEN)
    probs, changed, deadline = [], 0, time.monotonic() + wait
    for i in range(RACE_READS):
        data = b""
        while len(data) < RW_LEN:
            d = sess.next_fpdu(conn, deadline)
            if d is None or d.get("op") != 0x2 or not d.get("T"):
                probs.append("Read %d: %s after %d octets" % (
                    i + 1, fpdu_name(d) if d else conn.closed or "nothing", len(data)))
                break
            if sess.crc_on and d["crc"] != "ok":
                probs.append("BASE-MPA-9: Read %d, the FPDU at octet %d has CRC %s" % (
                    i + 1, len(data), d["crc"]))
            data += d["ulpdu"][14:]
        else:
            odd = [o for o in range(RW_LEN) if data[o] not in (old[o], new[o])]
            if odd:
                probs.append("Read %d: octet %d is neither the old nor the new value" % (
                    i + 1, odd[0]))
            rewritten = sum(1 for o in range(RW_LEN) if data[o] != old[o])
            changed += rewritten
            out("read-resp %d: %d octets, %d of them already rewritten" % (
                i + 1, len(data), rewritten))
            continue
        break
    if not probs and not changed:
        probs.append("no Response carried the Write's octets: the stall was not inside them")
    obs = positive_obs()
    obs.update(data="ok" if not probs else "bad", data_probs="; ".join(probs))
    # The CRC errors are this scenario's data; the session's copy of them
    # would fail it twice.
    sess.errors = [e for e in sess.errors if "CRC is bad" not in e]
    out("read responses: %s; %d octets read after the Write reached them" % (
        "; ".join(probs) or "every CRC matched", changed))
    return end_positive(conn, sess, out, wait, obs)


SCRIBBLE_WRITES = 1000  # of all of rw: 8 MB placed while rw changes


def run_write_scribbled(s, ctx, conn, sess, out, wait):
    """Writes into a region the target's application rewrites all the time
    (target --scribble rw): a receiver that took the CRC over the
    destination after placing the octets would see another writer's
    octets and Terminate (2/0/0x02) a Write that arrived intact
    (BASE-MPA-9).  A Read of ro after them proves the QP lives on."""
    rw, ro = ctx.mr("rw"), ctx.mr("ro")
    # One FPDU sent over and over: its CRC computed once.
    w = ctx.write(rw.stag, rw.addr, RW_LEN)
    obs = positive_obs()
    out("sending %d Writes of %d octets to rw" % (SCRIBBLE_WRITES, RW_LEN))
    if conn.send(w.raw * SCRIBBLE_WRITES, "writes"):
        sess.sent_fpdu = True
        send_msgs(conn, sess, [ctx.rreq(ro.stag, ro.addr, 100, sink_stag=0x00C0FF01,
                                        sink_to=0x20000, msn=1)], out)
    probs = read_responses(conn, sess, [(0x00C0FF01, 0x20000, mr_bytes(ro.seed, 0, 100))],
                           out, wait)
    obs["data"] = "ok" if not probs else "bad"
    obs["data_probs"] = "; ".join(probs)
    return end_positive(conn, sess, out, wait, obs)


def run_write_dereg_mid(s, ctx, conn, sess, out, wait):
    """A Write into rw whose FPDU arrives in two parts, the target's
    application deregistering rw in between (target --dereg-on): the
    receiver validated the header while rw was valid, so it places the
    rest into the memory it still holds and only then lets go of the
    region (its last reference then drops where the receive engine runs,
    which may be the socket's data_ready callback).  No Terminate; a Read
    of ro after it proves the QP lives on; rw's octets may be old or new."""
    rw, ro = ctx.mr("rw"), ctx.mr("ro")
    word = ctx.tout + ".dereg"
    w = ctx.write(rw.stag, rw.addr, DEREG_LEN)
    obs = positive_obs()
    probs = []
    scale = float(os.environ.get("SIW2_TIMEOUT_SCALE", "1") or 1)
    if conn.send(w.raw[:DEREG_CUT], "write head"):
        out("sent the first %d of the write's %d octets" % (DEREG_CUT, len(w.raw)))
        sess.sent_fpdu = True
        # The target's receive engine has read the head by then.
        time.sleep(0.3 * scale)
        open(word, "w").close()
        gone = re.compile(r"^MR name=rw stag=\S+ state=deregistered$", re.M)
        text = wait_for(ctx.tout, gone.search, time.monotonic() + 10 * scale)
        os.unlink(word)
        if not gone.search(text):
            probs.append("the target did not deregister rw")
        else:
            out("the target deregistered rw")
        if conn.send(w.raw[DEREG_CUT:], "write tail"):
            out("sent the write's other %d octets" % (len(w.raw) - DEREG_CUT))
            send_msgs(conn, sess, [ctx.rreq(ro.stag, ro.addr, 100, sink_stag=0x00C0FF02,
                                            sink_to=0x30000, msn=1)], out)
    probs += read_responses(conn, sess, [(0x00C0FF02, 0x30000, mr_bytes(ro.seed, 0, 100))],
                            out, wait)
    obs["data"] = "ok" if not probs else "bad"
    obs["data_probs"] = "; ".join(probs)
    return end_positive(conn, sess, out, wait, obs)


def run_scenario(s, host, port, mrs, out, wait=4.0, ready=None, tout=None):
    missing = [n for n in MR_LAYOUT if n not in mrs]
    if missing:
        return {"error": "target published no MR %s" % ",".join(missing)}
    for n, (ln, seed, _, _) in MR_LAYOUT.items():
        if mrs[n].len != ln or mrs[n].seed != seed:
            return {"error": "MR %s: len %d seed 0x%x, dp_peer.py expects %d 0x%x" %
                    (n, mrs[n].len, mrs[n].seed, ln, seed)}
    try:
        conn, sess = mpa_connect(host, port, s.mpa, out, rcvbuf=s.rcvbuf,
                                 ord_=s.ird if s.run and s.ird else 4)
    except (OSError, RuntimeError) as e:
        return {"error": "MPA connect: %s" % e}
    ctx = Ctx(mrs, sess.crc_on, sess.granted_ird, tout)
    sess.log_fpdus = s.log_fpdus
    wait = s.wait or wait
    # Linux siw hands the socket to the QP only after sending its Reply: an
    # FPDU arriving in between is not read until more data comes.  The
    # target's ESTABLISHED line comes after that hand-over.
    if ready is not None:
        t0 = time.monotonic()
        if ready():
            out("target ESTABLISHED (%.3fs after the Reply)" % (time.monotonic() - t0))
        else:
            out("no ESTABLISHED from the target within 5s; going on")
    try:
        if s.run:
            obs = s.run(s, ctx, conn, sess, out, wait)
        elif s.positive:
            obs = run_positive(s, ctx, conn, sess, out, wait)
        else:
            obs = run_negative(s, ctx, conn, sess, out, wait)
    finally:
        conn.close()
    if sess.errors:
        obs["peer_errors"] = "; ".join(sess.errors)
    return obs


# --------------------------------------------------------------------------
# Judging.

FIELDS = ["term", "layout", "hdrs", "seglen", "tddp", "tcrc", "extra", "after", "close",
          "data", "guards", "qp", "event", "rwc"]
TERM_FIELDS = ("layout", "hdrs", "seglen", "tddp", "tcrc")


def seglen_kind(v):
    """check_included()'s "16(payload)" -> "payload"; "-" (no headers) stays."""
    return v[v.index("(") + 1:-1] if "(" in v else v


def expected(s):
    """The expected signature of a scenario (the siw2 table)."""
    # seglen: the echoed DDP Segment Length is the offending ULPDU_Length,
    # the whole DDP segment (Documentation/design.md, RFC 5040 4.8).
    e = {"term": code_str(s.code), "layout": "rfc", "hdrs": s.hdrs, "seglen": "ulpdu",
         "tddp": "ok",
         "tcrc": "ok" if s.mpa == "r2c" else "off", "extra": s.extra, "after": "none",
         "close": "closed", "data": "ok" if s.positive else "-", "guards": "OK",
         "qp": "ERR", "event": s.event, "rwc": s.rwc}
    if s.positive:
        e.update(layout="-", hdrs="-", seglen="-", tddp="-", tcrc="-")
    return e


def field_ok(f, want, got, obs, s):
    if f == "layout":
        return got == want or got == "either"
    if f == "hdrs":
        if want == "opt":
            return got in ("none", "ddp", "ddp+rdmap")
        return got == want
    if f == "seglen":
        # "-": no headers to measure (the hdrs field judges whether some
        # were due); otherwise the kind must be the one wanted.
        return seglen_kind(got) == want or (got == "-" and want != "-" and
                                            obs.get("hdrs") in ("none", "-"))
    if f == "extra" and want.endswith("*"):
        return got == "none" or all(x.split(" x")[0] == want[:-1] for x in got.split(","))
    if f == "rwc":
        wcs = [] if got in ("none", None) else got.split(",")
        posted = obs.get("posted", 0)
        if isinstance(want, str) and want.startswith("="):
            return got == want[1:]
        if len(wcs) != posted:
            return False
        if want is None:
            return all(w != "SUCCESS" for w in wcs)
        return wcs[:1] == [want] and all(w != "SUCCESS" for w in wcs[1:])
    return got == want


def judge(s, obs, driver, release=None):
    """Returns (verdict, mismatches, known) where mismatches lists
    (field, want, got) that are not accepted; release is the kernel's
    (default the running one's)."""
    if "error" in obs:
        return "FAIL", [("run", "-", obs["error"])], []
    exp = expected(s)
    known = dict(SIW_KNOWN_ALL, **SIW_KNOWN.get(s.name, {})) if driver == "siw" else {}
    if driver == "siw" and not siw_reports_qp_state(release):
        known["qp"] = "RESET"
    bad, seen_known = [], []
    no_term = obs.get("term") in ("none", "short") and exp["term"] != obs.get("term")
    for f in FIELDS:
        if no_term and f in TERM_FIELDS:
            continue        # no Terminate: the term mismatch says it all
        want, got = exp[f], obs.get(f, "-")
        if field_ok(f, want, got, obs, s):
            continue
        kv = known.get(f)
        if f == "seglen":
            got = seglen_kind(got)
        if kv is not None and (got == kv or kv == "*" or
                               (f == "rwc" and kv.startswith("=") and got == kv[1:])):
            seen_known.append((f, want, got))
            continue
        bad.append((f, want, got))
    if obs.get("peer_errors"):
        bad.append(("peer", "-", obs["peer_errors"]))
    if obs.get("timeout_target"):
        bad.append(("target", "done", "no DONE line"))
    if bad:
        return "FAIL", bad, seen_known
    return ("KNOWN" if seen_known else "MATCH"), [], seen_known


def want_str(f, w):
    if f == "rwc":
        if w is None:
            return "every posted receive completes, none SUCCESS"
        if isinstance(w, str) and w.startswith("="):
            return w[1:]
        return "%s first, all complete" % w
    return str(w)


def result_line(name, req, driver, verdict, obs):
    keys = ["term", "layout", "flags", "hdrs", "seglen", "tddp", "tcrc", "extra", "after",
            "close", "close_how", "data", "guards", "qp", "event", "events", "rwc"]
    return 'RESULT %s %s %s req="%s" ' % (name, driver, verdict, req) + \
        " ".join("%s=%s" % (k, obs.get(k, "-")) for k in keys)


# --------------------------------------------------------------------------
# Commands.

def cmd_list(out):
    for s in SCENARIOS:
        out("%s\t%s" % (s.name, " ".join(s.target_args())))
    return 0


def cmd_table(out):
    out("| Scenario | What the peer sends | MPA | Expected Terminate | Headers | QP event "
        "(DEC-11) | Requirements |")
    out("|---|---|---|---|---|---|---|")
    for s in SCENARIOS:
        if s.positive:
            term = "none: data placed and read back"
        else:
            term = "%s %s" % (code_str(s.code), CODE_NAMES.get(s.code, "?"))
        note = (" (%s)" % s.why) if s.why else ""
        out("| %s | %s%s | %s | %s | %s | %s | %s |" % (
            s.name, s.desc, note, {"r2c": "Rev 2, CRC", "r2": "Rev 2", "r1": "Rev 1"}[s.mpa],
            term, "-" if s.positive else s.hdrs, s.event, s.req))
    return 0


def wait_for(path, pred, deadline):
    text = ""
    while True:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        if pred(text) or time.monotonic() >= deadline:
            return text
        time.sleep(0.05)


def ready_fn(path, secs=5.0):
    def ready():
        text = wait_for(path, lambda t: "ESTABLISHED" in t or "DONE" in t,
                        time.monotonic() + secs)
        return "ESTABLISHED" in text
    return ready


def finish_target(obs, text):
    t = parse_target(text)
    obs.update(guards=t["guards"], qp=t["qp"], event=t["event"], events=t["events"],
               rwc=t["rwc"], posted=t["posted"])
    if t["guards_detail"]:
        obs["guards_detail"] = t["guards_detail"]
    if t["fail"]:
        obs["error"] = "target: " + t["fail"]
    if not t["done"]:
        obs["timeout_target"] = True
    return obs


def report(s, driver, obs, out):
    verdict, bad, known = judge(s, obs, driver)
    out(result_line(s.name, s.req, driver, verdict, obs))
    if obs.get("hdr_probs"):
        out("  headers: %s" % obs["hdr_probs"])
    if obs.get("data_probs"):
        out("  data: %s" % obs["data_probs"])
    if obs.get("guards_detail"):
        out("  guards: %s" % obs["guards_detail"])
    for f, w, g in known:
        out("  known siw deviation: %s=%s (table: %s)" % (f, g, want_str(f, w)))
    for f, w, g in bad:
        out("  MISMATCH %s: got %s, want %s" % (f, g, want_str(f, w)))
    return verdict


def cmd_run(a, out):
    s = SCN[a.scenario]
    text = wait_for(a.target_out, lambda t: "LISTENING" in t, time.monotonic() + 20)
    if "LISTENING" not in text:
        out("FAIL: the target is not listening")
        return 1
    obs = run_scenario(s, a.host, a.port, parse_mrs(text), out, a.wait,
                       ready_fn(a.target_out), a.target_out)
    text = wait_for(a.target_out, lambda t: "DONE" in t or "FAIL:" in t,
                    time.monotonic() + a.target_wait)
    finish_target(obs, text)
    return 0 if report(s, a.driver, obs, out) != "FAIL" else 1


def cmd_suite(a, out):
    names = a.only.split(",") if a.only else [s.name for s in SCENARIOS]
    for n in names:
        if n not in SCN:
            out("unknown scenario %s" % n)
            return 2
    os.makedirs(a.results, exist_ok=True)
    counts = {"MATCH": 0, "KNOWN": 0, "FAIL": 0}
    rows = []
    t_suite = time.monotonic()
    for i, n in enumerate(names):
        s = SCN[n]
        port = a.port_base + i
        tout = os.path.join(a.results, "%s-%s.target" % (a.driver, n))
        pout = os.path.join(a.results, "%s-%s.peer" % (a.driver, n))
        t0 = time.monotonic()
        # A word to deregister left by an earlier run would act at once.
        if os.path.exists(tout + ".dereg"):
            os.unlink(tout + ".dereg")
        with open(tout, "w") as tf:
            proc = subprocess.Popen(a.target + ["-a", a.host, "-p", str(port), "--timeout",
                                                str(a.target_timeout)] + s.target_args(tout),
                                    stdout=tf, stderr=subprocess.STDOUT)
        with open(pout, "w") as pf:
            def pout_fn(line, _pf=pf, _t0=t0):
                _pf.write("[%7.3f] %s\n" % (time.monotonic() - _t0, line))
                _pf.flush()
            text = wait_for(tout, lambda t: "LISTENING" in t or "FAIL:" in t,
                            time.monotonic() + 20)
            if "LISTENING" not in text:
                obs = {"error": "target not listening: %s" % text.strip()[-200:]}
            else:
                obs = run_scenario(s, a.host, port, parse_mrs(text), pout_fn, a.wait,
                                   ready_fn(tout), tout)
            try:
                proc.wait(timeout=a.target_timeout + 10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            with open(tout, encoding="utf-8", errors="replace") as tf:
                finish_target(obs, tf.read())
            verdict = report(s, a.driver, obs, pout_fn)
        with open(os.path.join(a.results, "%s-%s.json" % (a.driver, n)), "w") as jf:
            json.dump(obs, jf, sort_keys=True)
            jf.write("\n")
        counts[verdict] += 1
        with open(pout, encoding="utf-8") as pf:
            tail = [l.split("] ", 1)[1].rstrip("\n") for l in pf if "] RESULT " in l or
                    "]   " in l]
        for l in tail:
            out(l)
        rows.append((s, verdict, obs, time.monotonic() - t0))
    out("")
    out("| Scenario | Expected | %s answered | Headers | Event | Guards | Verdict |" % a.driver)
    out("|---|---|---|---|---|---|---|")
    for s, v, obs, dt in rows:
        got = obs.get("term", "?")
        if obs.get("layout") == "siw":
            got += " (siw layout)"
        out("| %s | %s | %s | %s %s | %s | %s | %s (%.1fs) |" % (
            s.name, "data ok" if s.positive else code_str(s.code),
            ("data " + obs.get("data", "?")) if s.positive else got,
            obs.get("flags", "-"), obs.get("hdrs", "-"), obs.get("event", "-"),
            obs.get("guards", "-"), v, dt))
    out("SUITE %s %d scenarios: %d match, %d known, %d failed (%.1fs)" % (
        a.driver, len(names), counts["MATCH"], counts["KNOWN"], counts["FAIL"],
        time.monotonic() - t_suite))
    return 1 if counts["FAIL"] else 0


def cmd_rejudge(a, out):
    """Judge saved observations again (after a change of the table or of
    SIW_KNOWN), without a VM."""
    fails = 0
    for s in SCENARIOS:
        path = os.path.join(a.results, "%s-%s.json" % (a.driver, s.name))
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            obs = json.load(f)
        if report(s, a.driver, obs, out) == "FAIL":
            fails += 1
    return 1 if fails else 0


def cmd_selftest(out):
    fails = []

    def check(name, ok, detail=""):
        out("%s %s%s" % ("ok  " if ok else "FAIL", name, (": " + detail) if detail else ""))
        if not ok:
            fails.append(name)

    # Builders agree with mpa_peer.py's (checked against the DIGEST there).
    check("read request = mpa_peer's read RTR layout",
          Ctx({}, True).rreq(1, 0, 0, sink_stag=1, sink_to=0, msn=1).raw ==
          mp.build_read_rtr(1, 0, 1, 0, 1, 0, True))
    check("tagged header = mpa_peer's", tagged_hdr(0, 0x1234, 0x1000) ==
          mp.ddp_tagged(0, 0x1234, 0x1000))
    check("send = mpa_peer's send", Msg("send", untagged_hdr(3, 0, 1, 0),
                                        payload=bytes(range(16))).raw == mp.build_send())
    check("ctrl with DV 2", ctrl_word(True, True, 0, dv=2) == 0xC240)
    check("ctrl with a 5-bit opcode on RV 1", ctrl_word(False, True, 0x13) == 0x4153)
    # Patterns (the C program uses the same formulas).
    check("patterns", mr_byte(0x11, 0) == 0x11 and mr_byte(0x11, 256) == (0x11 + 7 * 256 + 1) &
          0xFF and peer_byte(0) == 0x3C and peer_byte(256) == (0x3C + 11 * 256 + 3) & 0xFF)
    # Terminate parsing, both layouts, included headers.
    msg = Ctx({}, True).write(0x100, 0x7000, 16)
    tb = mp.build_terminate(1, 1, 1, flags=0xC000, extra=struct.pack(">H", 16) + msg.ddp_hdr)
    d = mp.decode_fpdu(tb)
    code, layout, flags = term_layout(d["term"], (1, 1, 1))
    hdrs, seglen, probs = check_included(d["term"], flags, msg)
    check("terminate 1/1/1 with DDP header", (code, layout, flags, hdrs, seglen, probs) ==
          ((1, 1, 1), "rfc", (1, 1, 0), "ddp", "16(payload)", []),
          repr((code, layout, flags, hdrs, seglen, probs)))
    # Linux siw writes 0/2/5 as 20 05 00 00 (layer low nibble) with D=M=0.
    swapped = mp.build_fpdu(mp.ddp_untagged(0x7, 2, 1, 0) + bytes.fromhex("20050000"))
    d = mp.decode_fpdu(swapped)
    code, layout, flags = term_layout(d["term"], (0, 2, 5))
    check("siw layout 0/2/5", (code, layout) == ((0, 2, 5), "siw"), repr((code, layout)))
    # siw's 1/0/0 with M=D=1 is 01 00 03 00: read as RFC it would be 0/1/0.
    swapped = mp.build_fpdu(mp.ddp_untagged(0x7, 2, 1, 0) + bytes.fromhex("01000300") +
                            struct.pack(">H", 16) + msg.ddp_hdr)
    d = mp.decode_fpdu(swapped)
    code, layout, flags = term_layout(d["term"], (1, 1, 3))
    check("siw layout 1/0/0 told by its flag bits", (code, layout, flags) ==
          ((1, 0, 0), "siw", (1, 1, 0)), repr((code, layout, flags)))
    rq = Ctx({}, True).rreq(0x200, 0x9000, 16, msn=1)
    bad_rq = rq.ddp_hdr[:10] + struct.pack(">I", 16) + rq.ddp_hdr[14:]
    tb = mp.build_terminate(0, 1, 0, flags=0xE000,
                            extra=struct.pack(">H", 0) + bad_rq + rq.rdmap_hdr)
    d = mp.decode_fpdu(tb)
    code, layout, flags = term_layout(d["term"], (0, 1, 0))
    hdrs, seglen, probs = check_included(d["term"], flags, rq)
    check("terminate with Read Request headers, wrong MSN spotted",
          hdrs == "ddp+rdmap" and probs == [("ddp.msn", "ddp.msn=0x10(sent 0x1)")],
          repr((hdrs, probs)))
    # Judge: the expected signature matches itself; a wrong code fails.
    s = SCN["write-pd2"]
    obs = dict(expected(s), posted=1, rwc="WR_FLUSH_ERR")
    check("judge: expected signature is a MATCH", judge(s, obs, "siw2")[0] == "MATCH",
          repr(judge(s, obs, "siw2")))
    obs["term"] = "1/1/0x00"
    check("judge: another code fails", judge(s, obs, "siw2")[0] == "FAIL")
    obs = dict(expected(s), posted=1, rwc="WR_FLUSH_ERR", seglen="16(payload)")
    check("judge: a payload-only DDP Segment Length fails siw2",
          judge(s, obs, "siw2")[0] == "FAIL", repr(judge(s, obs, "siw2")))
    check("judge: ... and is siw's known deviation", judge(s, obs, "siw")[0] in
          ("KNOWN", "FAIL") and ("seglen", "ulpdu", "payload") in judge(s, obs, "siw")[2],
          repr(judge(s, obs, "siw")))
    obs["seglen"] = "34(ulpdu)"
    check("judge: the ULPDU_Length matches", judge(s, obs, "siw2")[0] == "MATCH",
          repr(judge(s, obs, "siw2")))
    obs["qp"] = "RESET"
    check("judge: siw on 6.1 reports no QP state: known",
          judge(s, obs, "siw", "6.1.0-56-amd64")[0] == "KNOWN" and
          ("qp", "ERR", "RESET") in judge(s, obs, "siw", "6.1.0-56-amd64")[2],
          repr(judge(s, obs, "siw", "6.1.0-56-amd64")))
    check("judge: ... but siw on 6.12 must report it",
          judge(s, obs, "siw", "6.12.117+deb12-amd64")[0] == "FAIL")
    check("judge: ... and siw2 always",
          judge(s, obs, "siw2", "6.1.0-56-amd64")[0] == "FAIL")
    # The table: unique names, codes with names, IDs present.
    check("scenario names unique", len(SCN) == len(SCENARIOS))
    for s in SCENARIOS:
        if not s.positive and s.code not in CODE_NAMES:
            check("code of %s is named" % s.name, False, code_str(s.code))
        if not s.req:
            check("%s cites requirements" % s.name, False)
    if fails:
        out("FAIL: %d check(s) failed: %s" % (len(fails), ", ".join(fails)))
        return 1
    out("PASS: all checks")
    return 0


def main(argv):
    import argparse
    p = mp.Parser(prog="dp_peer.py", description=__doc__.split("\n")[0],
                  formatter_class=argparse.RawDescriptionHelpFormatter,
                  epilog="\n".join(__doc__.split("\n")[2:]))
    sub = p.add_subparsers(dest="cmd", parser_class=mp.Parser)
    sub.add_parser("list")
    sub.add_parser("table")
    sub.add_parser("selftest")
    r = sub.add_parser("run")
    r.add_argument("scenario", choices=list(SCN))
    r.add_argument("host")
    r.add_argument("port", type=int)
    r.add_argument("--target-out", required=True)
    r.add_argument("--driver", choices=["siw", "siw2"], default="siw2")
    r.add_argument("--wait", type=float, default=4.0)
    r.add_argument("--target-wait", type=float, default=15.0)
    r.add_argument("--timestamps", action="store_true")
    j = sub.add_parser("rejudge")
    j.add_argument("--driver", choices=["siw", "siw2"], required=True)
    j.add_argument("--results", required=True)
    u = sub.add_parser("suite")
    u.add_argument("--driver", choices=["siw", "siw2"], required=True)
    u.add_argument("--host", required=True)
    u.add_argument("--port-base", type=int, default=7630)
    u.add_argument("--results", required=True)
    u.add_argument("--only", default="")
    u.add_argument("--wait", type=float, default=4.0)
    u.add_argument("--target-timeout", type=float, default=10.0)
    u.add_argument("target", nargs="+", help="the target command (after --)")
    a = p.parse_args(argv)
    out = mp.Out(getattr(a, "timestamps", False))
    if a.cmd == "list":
        return cmd_list(out)
    if a.cmd == "table":
        return cmd_table(out)
    if a.cmd == "selftest":
        return cmd_selftest(out)
    if a.cmd == "run":
        return cmd_run(a, out)
    if a.cmd == "rejudge":
        return cmd_rejudge(a, out)
    if a.cmd == "suite":
        return cmd_suite(a, out)
    p.print_usage(sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(1)
