#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""tests/vm/peer-agent.py ADDR PORT: the second guest's end of a two-guest
case (tests/vm/run.sh, "# guests: 2"; tests/vm/peer-guest.sh starts it).

It listens on ADDR:PORT, on the network between the two guests only.  Each
connection carries one command, base64 on one line (so that it may hold
newlines), which runs under bash with the VM helpers (tests/vm/lib.sh,
lib-peer.sh, lib-nfs.sh, lib-2vm.sh) sourced and R set to the results
directory; the reply is the command's output (stdout and stderr) and a last line
"AGENT RC <status>".  A command that starts a process to outlive it must
redirect that process's output (the reply ends when every writer of the
output pipe is gone).  The command "exit" ends the agent, and with it the
guest.  Commands run one at a time, each logged.
"""
import base64
import binascii
import socket
import subprocess
import sys

PRELUDE = ('source "$SIW2_TOP/tests/vm/lib.sh"; source "$SIW2_TOP/tests/vm/lib-peer.sh"; '
           'R=$SIW2_RESULTS; source "$SIW2_TOP/tests/vm/lib-nfs.sh"; '
           'source "$SIW2_TOP/tests/vm/lib-2vm.sh"; ')


def serve(conn):
    """Run one command; return False when told to exit."""
    f = conn.makefile("rwb")
    try:
        cmd = base64.b64decode(f.readline().strip(), validate=True).decode(errors="replace")
    except (binascii.Error, ValueError):
        f.write(b"AGENT: the command is not base64\nAGENT RC 2\n")
        f.flush()
        return True
    if cmd == "exit":
        f.write(b"AGENT RC 0\n")
        f.flush()
        return False
    print("AGENT RUN " + cmd.replace("\n", "\n    "), flush=True)
    p = subprocess.run(["bash", "-c", PRELUDE + cmd], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout
    if out and not out.endswith(b"\n"):
        out += b"\n"
    f.write(out + b"AGENT RC %d\n" % p.returncode)
    f.flush()
    print("AGENT RC %d" % p.returncode, flush=True)
    return True


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(4)
    print("AGENT LISTENING %s:%d" % (addr, port), flush=True)
    going = True
    while going:
        conn, _ = s.accept()
        with conn:
            going = serve(conn)
    print("AGENT EXIT", flush=True)


if __name__ == "__main__":
    main()
