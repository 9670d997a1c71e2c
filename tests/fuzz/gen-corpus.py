#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tests/fuzz/gen-corpus.py: write the seed corpus of siw2-proto-fuzz.

Rewrites tests/fuzz/corpus/ from the byte images of DIGEST section 1.4
(the ones tests/kunit/*_kunit.c also use) and a few frames built here, each
behind the selector octet that sends it to the right area of
siw2_proto_fuzz.c. The output is checked in; run this again only when the
seeds or the selector layout change. "--check" compares instead of writing
(exit 1 on a difference).
"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

# Selector octet (siw2_proto_fuzz.c): area, RV 2, feature mask, CRC, Reply.
DDP, TERM, LOG, MPA, NEG, COMPLETE, FPDU, BUILD = range(8)
RV2 = 0x08
FEAT_ALL = 0x30
CRC = 0x40
REPLY = 0x80


def h(text):
    return bytes.fromhex(text)


# DIGEST 1.4: whole FPDUs, CRC included (RV 1 unless named _rv2).
FPDUS = {
    "rtr-write": h("000ec140 00000001 00000000 00000000 ebd34c5f"),
    "rtr-read": h("002e4141 00000000 00000001 00000001 00000000 00000001"
                  "00000000 00000000 00000000 00000001 00000000 00000000"
                  "27dbd7e7"),
    "atomic-req": h("0046414a 00000000 00000001 00000001 00000000 00000000"
                    "00000007 00001234 00000000 00001000 00000000 00000001"
                    "00000000 00000000 00000000 00000000 ffffffff ffffffff"
                    "fa4596ce"),
    "atomic-resp": h("001e414b 00000000 00000003 00000001 00000000 00000007"
                     "00000000 00000029 b9ebafe8"),
    "imm": h("001a4148 00000000 00000000 00000005 00000000 01020304"
             "05060708 922360c6"),
    "send-imm1_rv2": h("00170193 00000000 00000000 00000001 00000000 68656c6c"
                       "6f000000 4cc1915f"),
    "send-imm2_rv2": h("001a4193 00000000 00000000 00000001 00000005 01020304"
                       "05060708 6dde1830"),
    "read-v2-req_rv2": h("00224191 00000000 00000001 00000001 00000000 00001000"
                         "00005678 00000000 00020000 f860af82"),
    "read-v2-resp_rv2": h("001a4192 00000000 00000003 00000001 00000000 abababab"
                          "abababab 503dac0a"),
    "commit-req": h("0026414c 00000000 00000001 00000001 00000000 00000009"
                    "00001234 00001000 00000000 00001000 b65ca48c"),
    "commit-resp": h("001a414d 00000000 00000003 00000001 00000000 00000009"
                     "00000000 388a3544"),
    "term-mpa-ird": h("00164147 00000000 00000002 00000001 00000000 20060000"
                      "6540fb1b"),
}

# ULPDUs without an FPDU image: a Send "abcd" (siw2_ddp_kunit.c), Linux
# siw's nibble-swapped Terminate 2/0/4 and a Commit Request with siw2's
# log update (SIW2-DEC-1) after its region.
LOG_EXT = h("80010000 00005678 00000000 00002000 0102030405060708")
ULPDUS = {
    "send-abcd": h("41430000 00000000 00000000 00010000 000061626364"),
    "term-siw-swapped": h("41470000 00000000 00020000 00010000 00000204 0000"),
    "commit-req-log": FPDUS["commit-req"][2:-4] + LOG_EXT,
}

# DIGEST 1.4 MPA frames, and a Rev 1 Request and a rejecting Reply.
MPA_REQ = h("4d504120 49442052 65712046 72616d65 50020004 8010c010")
MPA_REP = h("4d504120 49442052 65702046 72616d65 50020004 80108010")
MPA_REQ_V1 = h("4d504120 49442052 65712046 72616d65 4001000a") + b"0123456789"
MPA_REP_REJECT = h("4d504120 49442052 65702046 72616d65 20020004 00040004")
# Rev 2 Request with both siw2 capability bits, IRD 16 ORD 16, A=1 C=1.
MPA_REQ_CAPS = h("4d504120 49442052 65712046 72616d65 56020004 80108010")


def seeds():
    out = {}
    for name, img in FPDUS.items():
        rv = RV2 if name.endswith("_rv2") else 0
        base = name.replace("_rv2", "")
        out[f"ddp-{base}"] = bytes([DDP | rv | FEAT_ALL]) + img[2:-4]
        out[f"fpdu-{base}"] = bytes([FPDU | rv | FEAT_ALL | CRC]) + img
    for name, u in ULPDUS.items():
        out[f"ddp-{name}"] = bytes([DDP | FEAT_ALL]) + u
    # Without the features the extension images must be refused.
    out["ddp-atomic-req-nofeat"] = bytes([DDP]) + FPDUS["atomic-req"][2:-4]
    # One stream: every RV 1 image back to back, then the RV 2 ones.
    v1 = [i for n, i in FPDUS.items() if not n.endswith("_rv2")]
    v2 = [i for n, i in FPDUS.items() if n.endswith("_rv2")]
    out["fpdu-stream-rv1"] = bytes([FPDU | FEAT_ALL | CRC]) + b"".join(v1)
    out["fpdu-stream-rv2"] = bytes([FPDU | RV2 | FEAT_ALL | CRC]) + b"".join(v2)
    out["fpdu-rtr-write-nocrc"] = bytes([FPDU]) + FPDUS["rtr-write"][:-4] + bytes(4)

    out["term-rfc-ird"] = bytes([TERM]) + h("20060000")
    out["term-siw-swapped"] = bytes([TERM]) + h("0204 0000")
    out["term-ddp-bounds-hdrs"] = bytes([TERM]) + h("1101e000")
    out["log-update"] = bytes([LOG]) + LOG_EXT

    out["mpa-req"] = bytes([MPA]) + MPA_REQ
    out["mpa-rep"] = bytes([MPA | REPLY]) + MPA_REP
    out["mpa-req-v1-pd"] = bytes([MPA]) + MPA_REQ_V1
    out["mpa-rep-reject"] = bytes([MPA | REPLY]) + MPA_REP_REJECT
    # With the CRC bit the MPA area encodes a frame described field by
    # field: rev | M C R S A bits, caps, RTR forms, IRD, ORD, buffer size,
    # PD_Length, private data.
    enc = struct.pack(">BBBHHHH", 2 | 0x08 | 0x20 | 0x40, 0x06, 0x02, 16, 16,
                      64, 4) + b"abcd"
    out["mpa-encode-req"] = bytes([MPA | CRC]) + enc
    out["mpa-encode-rep-ack"] = (bytes([MPA | CRC | REPLY]) +
                                 struct.pack(">BBBHHHH", 2 | 0x20 | 0x40,
                                             0x07, 0x04, 8, 8, 64, 0))
    # ulp_ird, ulp_ord, max_ird (Responder), max_ird (Initiator), caps,
    # RTR forms, CRC policy; then the Request.
    neg = struct.pack(">HHHHBBB", 16, 16, 128, 128, 0x06, 0x06, 0)
    out["neg-req"] = bytes([NEG]) + neg + MPA_REQ
    out["neg-req-caps"] = bytes([NEG]) + neg + MPA_REQ_CAPS
    out["neg-req-v1"] = bytes([NEG]) + struct.pack(">HHHHBBB", 8, 8, 8, 8, 0,
                                                   0, 1) + MPA_REQ_V1
    # max_ird, Request length; then Request and Reply.
    out["complete-digest"] = (bytes([COMPLETE]) +
                              struct.pack(">HH", 128, len(MPA_REQ)) +
                              MPA_REQ + MPA_REP)

    # Builder number, buffer size, then its arguments.
    out["build-seal"] = (bytes([BUILD | FEAT_ALL | CRC]) +
                         struct.pack(">BHI", 0, 64, 22) + ULPDUS["send-abcd"])
    out["build-rtr-write"] = bytes([BUILD | CRC]) + struct.pack(">BH", 1, 20)
    out["build-rtr-read"] = bytes([BUILD | CRC]) + struct.pack(">BH", 2, 52)
    out["build-read-resp0"] = (bytes([BUILD | CRC]) +
                               struct.pack(">BHIQ", 3, 20, 0x1234, 0x1000))
    out["build-terminate"] = (bytes([BUILD | CRC]) +
                              struct.pack(">BHIBBB", 4, 28, 1, 2, 0, 6))
    return out


def main():
    check = sys.argv[1:] == ["--check"]
    want = seeds()
    have = set(os.listdir(CORPUS)) if os.path.isdir(CORPUS) else set()
    bad = 0
    if not check:
        os.makedirs(CORPUS, exist_ok=True)
        for name in have - set(want):
            os.unlink(os.path.join(CORPUS, name))
    for name, data in sorted(want.items()):
        path = os.path.join(CORPUS, name)
        if check:
            if name not in have or open(path, "rb").read() != data:
                print(f"gen-corpus: {name} differs", file=sys.stderr)
                bad = 1
        else:
            with open(path, "wb") as f:
                f.write(data)
    if check and have - set(want):
        print(f"gen-corpus: extra files {sorted(have - set(want))}",
              file=sys.stderr)
        bad = 1
    if not check:
        print(f"gen-corpus: {len(want)} seeds in {CORPUS}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
