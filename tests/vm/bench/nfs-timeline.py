#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Split each NFS READ of a trace from tests/vm/bench/profile-nfs.sh.

    tests/vm/bench/nfs-timeline.py XPRT.trace...

Per RPC (matched by xid, and by task for its end), from the sunrpc events
both transports have: the call's transmission to nfsd beginning the RPC
(delivery and nfsd's wake-up), nfsd's work up to its reply being sent
(for RPC-over-RDMA: posted, the Writes of the data included), the reply's
transfer until the client looks the request up, and from there to the
RPC's end (for TCP the client then reads the data from the socket).
Prints the median and mean of each, microseconds, per trace.
"""
import re
import statistics
import sys

EV = re.compile(r'\s(\d+\.\d+): (\w+): (.*)')
STEPS = (('xprt_transmit', 'svc_process', 'call sent -> nfsd begins'),
         ('svc_process', 'svc_send', 'nfsd begins -> reply sent/posted'),
         ('svc_send', 'xprt_lookup_rqst', 'reply sent -> client sees it'),
         ('xprt_lookup_rqst', 'rpc_task_end', 'client sees it -> RPC ends'),
         ('xprt_transmit', 'rpc_task_end', 'call sent -> RPC ends'))


def rpcs(path):
    """Return {xid: {event: first time}} for the RPCs of one trace."""
    by_xid, task_xid = {}, {}
    with open(path) as f:
        for line in f:
            m = EV.search(line)
            if not m:
                continue
            t, ev, rest = float(m.group(1)), m.group(2), m.group(3)
            xid = re.search(r'xid=(0x[0-9a-f]+)', rest)
            task = re.search(r'task:([0-9a-f]+)@', rest)
            if ev == 'rpc_task_end' and task and task.group(1) in task_xid:
                by_xid[task_xid[task.group(1)]].setdefault(ev, t)
            elif xid:
                if ev == 'xprt_transmit' and task:
                    task_xid[task.group(1)] = xid.group(1)
                by_xid.setdefault(xid.group(1), {}).setdefault(ev, t)
    return by_xid


def main():
    for path in sys.argv[1:]:
        r = [v for v in rpcs(path).values() if 'xprt_transmit' in v]
        print(f'{path}: {len(r)} RPCs')
        for a, b, what in STEPS:
            d = [(v[b] - v[a]) * 1e6 for v in r if a in v and b in v]
            if d:
                print(f'  {what:36} n={len(d):3} median {statistics.median(d):7.0f} us'
                      f'  mean {statistics.mean(d):7.0f}')


if __name__ == '__main__':
    main()
