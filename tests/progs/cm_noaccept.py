#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""cm_noaccept.py - an rdma_cm listener whose ULP never answers a request.

  cm_noaccept.py ADDR PORT [--hold SECS] [--timeout SECS]

Listens with librdmacm (RDMA_PS_TCP) on the IPv4 address ADDR, prints
"LISTENING", waits up to --timeout (30) seconds for one CONNECT_REQUEST,
prints "REQUEST status=S pd=N", then neither accepts nor rejects it for
--hold (5) seconds: the provider's own limit on that step (siw2:
mpa_timeout_ms in REQ_RCVD) has to end the connection.  Any event on the
channel during the hold is printed as "EVENT NAME status=S" (none is
expected: the IWCM gives a request's cm_id no events before an accept).
Then it rejects the request late ("LATE-REJECT rc=R errno=E"), destroys
both ids and exits 0, or 1 if anything failed or an event came.

Python 3 standard library (ctypes) and librdmacm.so.1 only; for
tests/vm/cases/54-cm-hostile.sh.
"""

import argparse
import ctypes
import os
import select
import socket
import struct
import sys
import time

RDMA_PS_TCP = 0x0106
EV_CONNECT_REQUEST = 4


def main(argv):
    p = argparse.ArgumentParser(prog="cm_noaccept.py", description=__doc__.split("\n")[0])
    p.add_argument("addr")
    p.add_argument("port", type=int)
    p.add_argument("--hold", type=float, default=5.0)
    p.add_argument("--timeout", type=float, default=30.0)
    a = p.parse_args(argv)

    cm = ctypes.CDLL("librdmacm.so.1", use_errno=True)
    vp = ctypes.c_void_p
    cm.rdma_create_event_channel.restype = vp
    cm.rdma_destroy_event_channel.argtypes = [vp]
    cm.rdma_create_id.argtypes = [vp, ctypes.POINTER(vp), vp, ctypes.c_int]
    cm.rdma_bind_addr.argtypes = [vp, vp]
    cm.rdma_listen.argtypes = [vp, ctypes.c_int]
    cm.rdma_get_cm_event.argtypes = [vp, ctypes.POINTER(vp)]
    cm.rdma_ack_cm_event.argtypes = [vp]
    cm.rdma_reject.argtypes = [vp, vp, ctypes.c_uint8]
    cm.rdma_destroy_id.argtypes = [vp]
    cm.rdma_event_str.restype = ctypes.c_char_p
    cm.rdma_event_str.argtypes = [ctypes.c_int]

    def die(what):
        e = ctypes.get_errno()
        print("FAIL: %s: %s (errno %d)" % (what, os.strerror(e), e), flush=True)
        sys.exit(1)

    ch = cm.rdma_create_event_channel()
    if not ch:
        die("rdma_create_event_channel")
    fd = ctypes.c_int.from_address(ch).value      # struct rdma_event_channel { int fd; }
    lid = vp()
    if cm.rdma_create_id(ch, ctypes.byref(lid), None, RDMA_PS_TCP):
        die("rdma_create_id")
    sin = ctypes.create_string_buffer(struct.pack("=H", socket.AF_INET) +
                                      struct.pack(">H", a.port) +
                                      socket.inet_aton(a.addr) + bytes(8))
    if cm.rdma_bind_addr(lid, ctypes.cast(sin, vp)):
        die("rdma_bind_addr")
    if cm.rdma_listen(lid, 4):
        die("rdma_listen")
    print("LISTENING", flush=True)

    def next_event(timeout):
        """(id, event, status, pd_len) of the next event, or None."""
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            return None
        ev = vp()
        if cm.rdma_get_cm_event(ch, ctypes.byref(ev)):
            die("rdma_get_cm_event")
        # struct rdma_cm_event { id *; listen_id *; int event; int status;
        #   union { struct rdma_conn_param conn { const void *private_data;
        #   uint8_t private_data_len; ... } } }
        cid = vp.from_address(ev.value).value
        event = ctypes.c_int.from_address(ev.value + 16).value
        status = ctypes.c_int.from_address(ev.value + 20).value
        pd_len = ctypes.c_uint8.from_address(ev.value + 32).value
        cm.rdma_ack_cm_event(ev)
        return cid, event, status, pd_len

    def name(event):
        return cm.rdma_event_str(event).decode()

    got = next_event(a.timeout)
    if got is None:
        print("FAIL: no CONNECT_REQUEST within %.1fs" % a.timeout, flush=True)
        return 1
    cid, event, status, pd_len = got
    if event != EV_CONNECT_REQUEST:
        print("FAIL: first event %s status=%d" % (name(event), status), flush=True)
        return 1
    print("REQUEST status=%d pd=%d" % (status, pd_len), flush=True)
    print("not answering for %.1fs" % a.hold, flush=True)
    bad = 0
    left = a.hold
    end = time.monotonic() + a.hold
    while left > 0:
        got = next_event(left)
        if got is not None:
            print("EVENT %s status=%d" % (name(got[1]), got[2]), flush=True)
            bad = 1
        left = end - time.monotonic()
    ctypes.set_errno(0)
    rc = cm.rdma_reject(vp(cid), None, 0)
    e = ctypes.get_errno()
    print("LATE-REJECT rc=%d errno=%s" % (rc, os.strerror(e) if rc else "-"), flush=True)
    if cm.rdma_destroy_id(vp(cid)):
        die("rdma_destroy_id (request)")
    if cm.rdma_destroy_id(lid):
        die("rdma_destroy_id (listener)")
    cm.rdma_destroy_event_channel(ch)
    print("PASS" if not bad else "FAIL: unexpected event during the hold", flush=True)
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
