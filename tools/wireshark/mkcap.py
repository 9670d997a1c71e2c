#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tools/wireshark/mkcap.py OUT.pcap [--bad-crc]: a capture of iWARP as
siw2 speaks it, for testing siw2.lua: two TCP connections over IPv4.

 1. MPA Rev 2 with CRC, enhanced data (IRD/ORD) and siw2's capability bits
    (RDMAP v2, Commit, the Reply's acknowledgement), then one FPDU of every
    opcode siw2 knows, from both sides: the RFC 5040 set, RFC 7306's
    Immediate Data and atomics, RDMA Commit with and without siw2's log
    update, RDMAP v2's Read V2 and the four Send with Immediate Data
    variants (two segments each), and Terminates with and without the
    terminated headers.  Some FPDUs share a TCP segment, one is split
    across three.
 2. MPA Rev 1 without CRC (the CRC field is 0): a Send each way.

The byte images of the protocol digest's section 1.4 are used where it has
one.  --bad-crc flips one bit of the RDMA Write's CRC (the dissector must
flag exactly that).  Prints the number of FPDUs per connection.
"""
import struct
import sys


def crc32c(data):
    c = 0xFFFFFFFF
    for b in data:
        c ^= b
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def fpdu(ctrl, hdr, payload=b"", crc=True):
    """ULPDU_Length, control, DDP/RDMAP header (after the control word),
    payload, pad, CRC (little-endian; 0 without CRC)."""
    ulpdu = struct.pack(">H", ctrl) + hdr + payload
    body = struct.pack(">H", len(ulpdu)) + ulpdu
    body += b"\0" * ((4 - len(body) % 4) % 4)
    return body + struct.pack("<I", crc32c(body) if crc else 0)


def ctrl(op, tagged=False, last=True, rv=1):
    return (0x8000 if tagged else 0) | (0x4000 if last else 0) | 0x0100 | (rv << 6) | op


def tagged(op, stag, to, payload, rv=1, last=True, crc=True):
    return fpdu(ctrl(op, True, last, rv), struct.pack(">IQ", stag, to), payload, crc)


def untagged(op, qn, msn, mo, rdmap=b"", payload=b"", rv=1, last=True, rsvd=0, crc=True):
    return fpdu(ctrl(op, False, last, rv), struct.pack(">IIII", rsvd, qn, msn, mo) + rdmap,
                payload, crc)


def mpa(key, flags, rev, pd):
    return key + struct.pack(">BBH", flags, rev, len(pd)) + pd


def digest(hexdump):
    return bytes.fromhex(" ".join(hexdump.split()))


# Section 1.4 of the protocol digest (CRCs as given there).
V_READ_REQ = digest("""00 2e 41 41 00 00 00 00 00 00 00 01 00 00 00 01
  00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 01
  00 00 00 00 00 00 00 00 27 db d7 e7""")
V_ATOMIC_REQ = digest("""00 46 41 4a 00 00 00 00 00 00 00 01 00 00 00 01
  00 00 00 00 00 00 00 00 00 00 00 07 00 00 12 34 00 00 00 00 00 00 10 00
  00 00 00 00 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
  ff ff ff ff ff ff ff ff fa 45 96 ce""")
V_ATOMIC_RESP = digest("""00 1e 41 4b 00 00 00 00 00 00 00 03 00 00 00 01
  00 00 00 00 00 00 00 07 00 00 00 00 00 00 00 29 b9 eb af e8""")
V_IMM = digest("""00 1a 41 48 00 00 00 00 00 00 00 00 00 00 00 05
  00 00 00 00 01 02 03 04 05 06 07 08 92 23 60 c6""")
V_SEND_IMM_1 = digest("""00 17 01 93 00 00 00 00 00 00 00 00 00 00 00 01
  00 00 00 00 68 65 6c 6c 6f 00 00 00 4c c1 91 5f""")
V_SEND_IMM_2 = digest("""00 1a 41 93 00 00 00 00 00 00 00 00 00 00 00 01
  00 00 00 05 01 02 03 04 05 06 07 08 6d de 18 30""")
V_READ_V2_REQ = digest("""00 22 41 91 00 00 00 00 00 00 00 01 00 00 00 01
  00 00 00 00 00 00 10 00 00 00 56 78 00 00 00 00 00 02 00 00 f8 60 af 82""")
V_READ_V2_RESP = digest("""00 1a 41 92 00 00 00 00 00 00 00 03 00 00 00 01
  00 00 00 00 ab ab ab ab ab ab ab ab 50 3d ac 0a""")
V_COMMIT_REQ = digest("""00 26 41 4c 00 00 00 00 00 00 00 01 00 00 00 01
  00 00 00 00 00 00 00 09 00 00 12 34 00 00 10 00 00 00 00 00 00 00 10 00
  b6 5c a4 8c""")
V_COMMIT_RESP = digest("""00 1a 41 4d 00 00 00 00 00 00 00 03 00 00 00 01
  00 00 00 00 00 00 00 09 00 00 00 00 38 8a 35 44""")
V_TERM = digest("""00 16 41 47 00 00 00 00 00 00 00 02 00 00 00 01
  00 00 00 00 20 06 00 00 65 40 fb 1b""")


def check_vectors():
    """The digest's CRCs are recomputed: a typo here is caught at once."""
    for v in (V_READ_REQ, V_ATOMIC_REQ, V_ATOMIC_RESP, V_IMM, V_SEND_IMM_1, V_SEND_IMM_2,
              V_READ_V2_REQ, V_READ_V2_RESP, V_COMMIT_REQ, V_COMMIT_RESP, V_TERM):
        if struct.unpack("<I", v[-4:])[0] != crc32c(v[:-4]):
            sys.exit("mkcap: a digest vector's CRC does not match")


def streams_conn1(bad_crc):
    """(direction, bytes) chunks, each one TCP segment; 0 = initiator."""
    req = mpa(b"MPA ID Req Frame", 0x40 | 0x10 | 0x04 | 0x02, 2, struct.pack(">HH", 0x8010, 0xc010))
    rep = mpa(b"MPA ID Rep Frame", 0x40 | 0x10 | 0x04 | 0x02 | 0x01, 2,
              struct.pack(">HH", 0x8010, 0x8010) + b"siw2")
    write = tagged(0x0, 0x1234, 0x1000, b"payload of a write", rv=2)
    if bad_crc:
        write = write[:-4] + bytes([write[-4] ^ 1]) + write[-3:]
    term_hdrs = untagged(0x7, 2, 2, 0,
                         struct.pack(">IH", 0x0206C000, 44) +
                         struct.pack(">HIIII", ctrl(0xa, rv=2), 0, 1, 9, 0), rv=2)
    log_ext = struct.pack(">HHIQ", 0x8001, 0, 0x4321, 0x2000) + bytes(range(8))
    commit_log = untagged(0xc, 1, 2, 0, struct.pack(">IIIQ", 10, 0x1234, 512, 0x1000) + log_ext)
    out = [
        (0, req), (1, rep),
        # p2p RTR: a zero-length Write.
        (0, tagged(0x0, 1, 0, b"", rv=1)),
        (0, write),
        (0, V_READ_REQ),
        (1, tagged(0x2, 0x99, 0x40, b"read response data", rv=2)),
        (0, untagged(0x3, 0, 1, 0, payload=b"a send", rv=2)),
        (0, untagged(0x4, 0, 2, 0, payload=b"send inv", rv=2, rsvd=0x5555)),
        (0, untagged(0x5, 0, 3, 0, payload=b"send se", rv=2)),
        (0, untagged(0x6, 0, 4, 0, payload=b"send se inv", rv=2, rsvd=0x6666)),
        (0, V_IMM),
        (0, untagged(0x9, 0, 6, 0, bytes(range(8, 16)))),
        (0, V_ATOMIC_REQ), (1, V_ATOMIC_RESP),
        (0, V_COMMIT_REQ), (1, V_COMMIT_RESP),
        (0, commit_log),
        (1, untagged(0xd, 3, 2, 0, struct.pack(">II", 10, 2))),
        (0, V_READ_V2_REQ), (1, V_READ_V2_RESP),
        # Send with Immediate Data, both segments in one TCP segment.
        (0, V_SEND_IMM_1 + V_SEND_IMM_2),
    ]
    msn = 2
    for op in (0x14, 0x15, 0x16):
        rsvd = 0x7777 if op in (0x14, 0x16) else 0
        seg1 = untagged(op, 0, msn, 0, payload=b"data", rv=2, last=False, rsvd=rsvd)
        seg2 = untagged(op, 0, msn, 4, bytes(range(8)), rv=2, rsvd=rsvd)
        out.append((0, seg1 + seg2))
        msn += 1
    # A large Write split across three TCP segments.
    big = tagged(0x0, 0x1234, 0x2000, bytes(range(256)) * 4, rv=2)
    out += [(0, big[:100]), (0, big[100:700]), (0, big[700:])]
    out += [(1, V_TERM), (1, term_hdrs)]
    return out


def streams_conn2():
    req = mpa(b"MPA ID Req Frame", 0, 1, b"")
    rep = mpa(b"MPA ID Rep Frame", 0, 1, b"hello")
    return [(0, req), (1, rep),
            (0, untagged(0x3, 0, 1, 0, payload=b"rev 1, no crc", crc=False)),
            (1, untagged(0x3, 0, 1, 0, payload=b"answer", crc=False))]


def ip_csum(h):
    s = sum(struct.unpack(">%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def packets(chunks, cport, sport):
    """Ethernet/IPv4/TCP frames: SYN, SYN-ACK, ACK, the chunks (PSH|ACK)."""
    addr = (bytes([198, 18, 99, 2]), bytes([198, 18, 99, 1]))
    ports = (cport, sport)
    seq = [1000, 5000]
    ack = [0, 0]

    def frame(d, flags, data=b""):
        s, t = d, 1 - d
        tcp = struct.pack(">HHIIBBHHH", ports[s], ports[t], seq[s], ack[s] if flags & 0x10 else 0,
                          5 << 4, flags, 65535, 0, 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp) + len(data), 1, 0x4000, 64, 6, 0,
                         addr[s], addr[t])
        ip = ip[:10] + struct.pack(">H", ip_csum(ip)) + ip[12:]
        eth = bytes([2, 0, 0, 0, 0, t + 1]) + bytes([2, 0, 0, 0, 0, s + 1]) + b"\x08\x00"
        return eth + ip + tcp + data

    out = [frame(0, 0x02)]
    seq[0] += 1
    ack[1] = seq[0]
    out.append(frame(1, 0x12))
    seq[1] += 1
    ack[0] = seq[1]
    out.append(frame(0, 0x10))
    for d, data in chunks:
        out.append(frame(d, 0x18, data))
        seq[d] += len(data)
        ack[1 - d] = seq[d]
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    check_vectors()
    bad = "--bad-crc" in sys.argv[2:]
    c1, c2 = streams_conn1(bad), streams_conn2()
    frames = packets(c1, 40001, 7701) + packets(c2, 40002, 7702)
    with open(sys.argv[1], "wb") as fp:
        fp.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            fp.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)) + fr)
    print("mkcap: %d frames" % len(frames))


if __name__ == "__main__":
    main()
