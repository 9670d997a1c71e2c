#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tools/wireshark/check.py [PCAP...]: siw2.lua under tshark.

Without arguments: mkcap.py's capture (every opcode siw2 knows, MPA Rev 2
with CRC and Rev 1 without) must decode with no malformed frame, no
dissector bug and no expert item, every FPDU with CRC good, every opcode
present, the split Write reassembled; and the same capture with one CRC
flipped must show exactly that FPDU's CRC as bad.  With arguments: each
capture (e.g. of real siw2 traffic) must decode with no malformed frame,
no dissector bug, every CRC good, at least one siw2 FPDU; the opcodes seen
are printed.  Exit 0 when every check holds.  As root, tshark runs as
nobody: Wireshark 4.4 loads no Lua script for root.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LUA = os.path.join(HERE, "siw2.lua")
ALL_OPS = {0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9, 0xa, 0xb, 0xc, 0xd,
           0x11, 0x12, 0x13, 0x14, 0x15, 0x16}
FAILED = []


def bad(msg):
    FAILED.append(msg)
    print("FAIL: " + msg)


def unprivileged(files):
    """A command prefix, and copies of the files tshark reads, for a user
    tshark runs Lua for.

    Wireshark 4.4 (Debian 13) ignores -X lua_script for root without a word:
    as root, tshark runs as nobody (setpriv) on copies of the script and the
    capture in a directory that user can read (a tree under /root is not).
    """
    if os.geteuid() != 0:
        return [], files
    d = tempfile.mkdtemp(prefix="siw2-lua-")
    os.chmod(d, 0o755)
    copies = []
    for f in files:
        c = os.path.join(d, os.path.basename(f))
        shutil.copyfile(f, c)
        os.chmod(c, 0o644)
        copies.append(c)
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"], copies


def tshark(pcap):
    """[(frame, [opcodes], [crc_good], malformed, experts)] and stderr."""
    pre, (lua, cap) = unprivileged([LUA, pcap])
    cmd = pre + ["tshark", "-n", "-X", "lua_script:" + lua, "--disable-protocol", "iwarp_mpa",
                 "-r", cap, "-T", "fields", "-E", "separator=|", "-e", "frame.number",
                 "-e", "siw2.rdmap.opcode", "-e", "siw2.crc.good", "-e", "_ws.malformed",
                 "-e", "_ws.expert.message"]
    p = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, HOME="/tmp"))
    if lua != LUA:
        shutil.rmtree(os.path.dirname(lua), ignore_errors=True)
    if p.returncode != 0:
        bad("tshark exited %d: %s" % (p.returncode, p.stderr.strip()[-300:]))
    rows = []
    for line in p.stdout.splitlines():
        fr, ops, crcs, mal, exp = (line.split("|") + [""] * 5)[:5]
        # A boolean field prints as 1/0 in tshark 4.0, True/False in 4.4.
        rows.append((int(fr), [int(x, 0) for x in ops.split(",") if x],
                     [{"True": "1", "False": "0"}.get(x, x) for x in crcs.split(",") if x],
                     mal, exp))
    return rows, p.stderr


def dissector_bugs(err):
    return [ln for ln in err.splitlines() if "Dissector bug" in ln or "Lua" in ln and "rror" in ln]


def common(rows, err, name):
    for ln in dissector_bugs(err):
        bad("%s: %s" % (name, ln.strip()))
    for fr, ops, crcs, mal, exp in rows:
        if mal:
            bad("%s: frame %d malformed" % (name, fr))


def check_generated():
    with tempfile.TemporaryDirectory() as d:
        good, flipped = os.path.join(d, "good.pcap"), os.path.join(d, "bad.pcap")
        for out, extra in ((good, []), (flipped, ["--bad-crc"])):
            subprocess.run([sys.executable, os.path.join(HERE, "mkcap.py"), out] + extra,
                           check=True, capture_output=True)
        rows, err = tshark(good)
        common(rows, err, "generated")
        seen = set()
        nfpdu = ncrc = 0
        for fr, ops, crcs, mal, exp in rows:
            seen.update(ops)
            nfpdu += len(ops)
            ncrc += len(crcs)
            if exp and "SYN" not in exp:
                bad("generated: frame %d: expert item '%s'" % (fr, exp))
            if any(c != "1" for c in crcs):
                bad("generated: frame %d: a CRC not good (%s)" % (fr, ",".join(crcs)))
        missing = sorted(ALL_OPS - seen)
        if missing:
            bad("generated: opcodes not decoded: %s" % ", ".join("0x%x" % o for o in missing))
        # Connection 1 has CRC, connection 2 (2 Sends) has not.
        if ncrc != nfpdu - 2:
            bad("generated: %d FPDUs, %d CRCs checked (want %d)" % (nfpdu, ncrc, nfpdu - 2))
        if not any(ops == [0x0] and len(ops) == 1 and fr == 30 for fr, ops, *_ in rows):
            bad("generated: the Write split over frames 28-30 was not reassembled in frame 30")
        print("generated: %d frames, %d FPDUs, %d CRCs good, %d opcodes" %
              (len(rows), nfpdu, ncrc, len(seen)))

        rows, err = tshark(flipped)
        common(rows, err, "bad-crc")
        badcrc = [(fr, c) for fr, ops, crcs, *_ in rows for c in crcs if c != "1"]
        experts = [fr for fr, ops, crcs, mal, exp in rows if "CRC32c 0x" in exp]
        if badcrc != [(7, "0")] or experts != [7]:
            bad("bad-crc: want frame 7's CRC alone flagged, got %s (experts in %s)" %
                (badcrc, experts))
        else:
            print("bad-crc: frame 7's CRC flagged, nothing else")


def check_capture(pcap):
    rows, err = tshark(pcap)
    common(rows, err, pcap)
    ops = [o for r in rows for o in r[1]]
    crcs = [c for r in rows for c in r[2]]
    if not ops:
        bad("%s: no siw2 FPDU decoded" % pcap)
    if any(c != "1" for c in crcs):
        bad("%s: %d CRC(s) not good" % (pcap, sum(c != "1" for c in crcs)))
    print("%s: %d FPDUs, %d CRCs good, opcodes %s" %
          (pcap, len(ops), len(crcs), " ".join("0x%x" % o for o in sorted(set(ops)))))


def main():
    if len(sys.argv) > 1:
        for p in sys.argv[1:]:
            check_capture(p)
    else:
        check_generated()
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
