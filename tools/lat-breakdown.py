#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Where the time of a ping-pong message goes, layer by layer.

Reads an ftrace text trace taken during one ping-pong (perftest's
ib_*_lat over siw2, or sockperf over TCP; tests/vm/bench/lat-breakdown.sh
takes them) and attributes each interval on the message's critical path
to the layer that spent it:

  tx      siw2_dp_tx_fpdu     siw2 framed an FPDU (siw2 TX engine)
  xmit    net_dev_xmit        the packet left the sending veth
  nrx     netif_receive_skb   the packet entered the receiving stack
  rx      siw2_dp_rx_seg      siw2 RX placed it, CRC checked
  cqe     siw2_dp_cqe         its completion was queued (arrivals only:
                              Receive, Read, atomics, Commit)
  bell    sys_enter write()   the provider rang the send queue doorbell
          or ioctl()
  drv     kprobe siw2_bell    uverbs called siw2_post_send() (only when
                              lat-breakdown.sh ran with LB_DRV=1)
  send    sys_enter sendto()  sockperf sent (TCP)
  recv    sys_exit recvfrom() sockperf's receive returned data (TCP)

Each event is charged from the latest event of the stage that must come
before it (a packet is received after it was sent, a completion after
its segment was placed, a reply after the request arrived), so that
the sending side's own completions and TCP's acknowledgements, which are
off the path, do not split an interval.  Timestamps are ftrace's (1 us
resolution in its text output): each interval is summarised by its
median and its mean over the middle 80 % of the samples, which, unlike
the median, does not round to whole microseconds.

usage: lat-breakdown.py TRACE [--skip N] [--json]
"""
import argparse
import json
import re
import statistics
import sys

LINE = re.compile(r'^\s*(?P<comm>.*?)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?'
                  r'\[(?P<cpu>\d+)\]\s+(?:\S+\s+)?(?P<ts>\d+\.\d+):\s+'
                  r'(?P<ev>\w+):\s*(?P<rest>.*)$')
NUM = re.compile(r'(\w+)[=\s](0x[0-9a-f]+|-?\d+)')

# ib_wc_opcode values that mark a message's arrival at its consumer.
ARRIVAL_WC = {2, 3, 4, 5, 6, 7, 128, 129}
# The doorbell is a verbs write command: write(), or ioctl() when
# rdma-core sends write commands through RDMA_VERBS_IOCTL.
NR_BELL = {1, 16}
NR_SENDTO, NR_RECVFROM = 44, 45

# What each stage waits for: the stages whose latest event starts its
# interval (the latest of them wins).
PRED = {
    'xmit': ('tx', 'send'),
    'nrx': ('xmit',),
    'rx': ('nrx',),
    'cqe': ('rx',),
    'recv': ('nrx',),
    'bell': ('cqe', 'rx'),
    'drv': ('bell',),
    'tx': ('drv', 'bell', 'cqe', 'rx'),
    'send': ('recv',),
}

# The order a report lists intervals in, and what each one covers.
WHAT = {
    'bell>tx': 'doorbell system call to FPDU framed (siw2 TX, poster context)',
    'bell>drv': 'doorbell system call to siw2_post_send() (entry, uverbs)',
    'drv>tx': 'siw2_post_send() to FPDU framed (siw2 TX, poster context)',
    'cqe>tx': 'completion to next FPDU framed without a doorbell (user poll + post, engine)',
    'rx>tx': 'placed to next FPDU framed (write_lat: user polls memory, posts; read_lat server: kernel answers)',
    'tx>xmit': 'FPDU framed to packet out of veth (CRC, TCP/IP send)',
    'send>xmit': 'sendto() to packet out of veth (TCP/IP send)',
    'xmit>nrx': 'veth to receiving stack (backlog softirq)',
    'nrx>rx': 'IP/TCP receive, data_ready, siw2 RX parse, place, CRC',
    'nrx>recv': 'IP/TCP receive, wake-up, recvfrom() returns',
    'rx>cqe': 'placed to completion queued',
    'cqe>bell': 'completion queued to doorbell (user poll, post)',
    'rx>bell': 'placed to doorbell (user polls memory, posts)',
    'recv>send': 'recvfrom() returned to next sendto() (user)',
}


def parse(path):
    """Yield (ts_us, stage, fields) for each event of interest."""
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            ev, rest = m.group('ev'), m.group('rest')
            ts = float(m.group('ts')) * 1e6
            kv = {k: int(v, 16 if v.startswith('0x') else 10)
                  for k, v in NUM.findall(rest)}
            stage = None
            if ev == 'siw2_dp_tx_fpdu':
                stage = 'tx'
            elif ev == 'siw2_dp_rx_seg':
                stage = 'rx'
            elif ev == 'siw2_dp_cqe':
                if kv.get('opcode') in ARRIVAL_WC:
                    stage = 'cqe'
            elif ev == 'siw2_bell':
                stage = 'drv'
            elif ev == 'net_dev_xmit':
                stage = 'xmit'
            elif ev == 'netif_receive_skb':
                stage = 'nrx'
            elif ev == 'sys_enter':
                nr = sys_nr(rest)
                if nr in NR_BELL:
                    stage = 'bell'
                elif nr == NR_SENDTO:
                    stage = 'send'
            elif ev == 'sys_exit':
                nr = sys_nr(rest)
                if nr == NR_RECVFROM and sys_ret(rest) > 0:
                    stage = 'recv'
            if stage:
                yield ts, stage, kv


def sys_nr(rest):
    m = re.search(r'NR (\d+)', rest)
    return int(m.group(1)) if m else -1


def sys_ret(rest):
    m = re.search(r'= (-?\d+)', rest)
    return int(m.group(1)) if m else -1


def summary(v):
    v = sorted(v)
    k = len(v) // 10
    mid = v[k:len(v) - k] or v
    return {'n': len(v), 'median': statistics.median(v),
            'tmean': sum(mid) / len(mid)}


def breakdown(events, skip):
    last = {}
    deltas = {}
    txs = []
    for i, (ts, stage, kv) in enumerate(events):
        cands = [(last[p], p) for p in PRED.get(stage, ()) if p in last]
        if cands and i >= skip:
            t0, p = max(cands)
            deltas.setdefault(p + '>' + stage, []).append(ts - t0)
        last[stage] = ts
        if stage in ('tx', 'send') and i >= skip:
            txs.append(ts)
    # Interval between successive messages of the ping-pong (both ways).
    legs = [b - a for a, b in zip(txs, txs[1:])]
    out = {k: summary(v) for k, v in deltas.items()}
    return out, (summary(legs) if legs else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('--skip', type=int, default=200,
                    help='events to skip at the start (warm-up)')
    ap.add_argument('--json', action='store_true')
    a = ap.parse_args()
    events = list(parse(a.trace))
    if not events:
        print(f'{a.trace}: no events', file=sys.stderr)
        return 1
    parts, leg = breakdown(events, a.skip)
    if a.json:
        json.dump({'parts': parts, 'leg': leg}, sys.stdout, indent=1)
        print()
        return 0
    print('| Interval | What it covers | n | median, us | mean 10-90 %, us |')
    print('|---|---|---:|---:|---:|')
    order = list(WHAT) + sorted(set(parts) - set(WHAT))
    for k in order:
        if k not in parts or parts[k]['n'] < 10:
            continue
        s = parts[k]
        print(f"| {k.replace('>', ' → ')} | {WHAT.get(k, '')} | {s['n']} | "
              f"{s['median']:.1f} | {s['tmean']:.2f} |")
    if leg:
        print(f"| one message, send to next send | | {leg['n']} | "
              f"{leg['median']:.1f} | {leg['tmean']:.2f} |")
    return 0


if __name__ == '__main__':
    sys.exit(main())
