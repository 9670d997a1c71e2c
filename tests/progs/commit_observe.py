#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""commit_observe.py - RDMA Commit durability observed from outside siw2.

Case 68 (part p) records, with kprobe events and one global trace clock,
what the kernel does around siw2 rather than what siw2 says it did:

  obs_wb      arch_wb_cache_pmem(addr, size) entered: the kernel's pmem
              write-back of [addr, addr + size) (addr in the direct map;
              pob is page_offset_base, so addr - pob is physical)
  obs_wb_ret  ... returned
  obs_st      skb_copy_bits(skb, off, to, len) entered: payload copied out
              of a socket buffer into memory (an RDMA Write's placement)
  obs_st_ret  ... returned
  obs_tx      sock_sendmsg() entered: octets handed to TCP; fpdu is the
              first 64 octets of the first kvec (the FPDU's MPA header,
              DDP/RDMAP headers), off the iterator's offset in it

and the server's window's physical pages from /proc/PID/pagemap.  From
that alone it tells each Commit Request the client handed to TCP (Request
Identifier, STag, length, TO, log update) and each Commit Response the
server handed to TCP (Request Identifier, Status), and checks for each
Response, against the physical cache lines of its Request's range:

  COMMIT-DUR-1  every line of the range was written back, the write-back
                returned, before the Response was handed to TCP (Status 0
                on a durable window); the write-backs between the previous
                Response and this one are exactly those lines (plus the
                log word's line after a log update), nothing else (DEC-14):
                a wrong virtual-to-physical step writes back other lines
  COMMIT-DUR-4  a window not durable: no line written back
  COMMIT-DUR-5, COMMIT-ORD-1
                no line of the range is dirty when the Response leaves:
                every copy of payload into one of its lines seen before
                then had returned before a write-back of that line began
  SIW2-DEC-1    the log word's line is written back after every line of
                the range (the word is stored once the range is durable)
  and that every write-back is on the device-DAX namespace.

  commit_observe.py pagemap PID ADDR LEN     "PAGE index pfn" per page of
                                             [ADDR, ADDR+LEN) of PID
  commit_observe.py check --trace F --pagemap F --server F
                    --pmem-start X --pmem-size N [--line 64]
                    [--fault K | --faults]

check prints "OBSERVE COMMIT req=.. len=L lines=N status=S stored=K" per
Response (lines: distinct lines written back for it; stored: lines of the
range that payload was seen copied into before the Response), then
"OBSERVE BAD <IDs>: ..." per violation and "OBSERVE RESULT ok" or
"OBSERVE RESULT N bad"; exit 1 on any violation.  --fault K changes the
observed events as a broken siw2 would before checking; --faults checks
the events as observed, then once more with each fault, each of which
must be reported by its own finding ("OBSERVE FAULT K caught: ..." or
"... MISSED", exit 1), so that the case sees every check able to fail:
page-step (each range's write-back taken as
physically contiguous from its first octet: a wrong page-to-address
step), drop-line (the last write-back of the first durable Commit lost),
late-wb (the first durable Commit's Response handed to TCP before its
last write-back), late-store (the first durable Commit's last payload
copy into its range moved after its write-backs).
"""

import argparse
import copy
import re
import struct
import sys

PAGE = 4096
OP_COMMIT_REQ = 0xC
OP_COMMIT_RESP = 0xD

LINE_RE = re.compile(r'^\s*(?P<task>.*)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+'
                     r'(?P<flags>\S+)\s+(?P<ts>\d+\.\d+):\s+(?P<ev>\w+):\s+'
                     r'\((?P<where>.*)\)(?P<args>(\s+\w+=\S+)*)\s*$')
ARG_RE = re.compile(r'(\w+)=(\{[^}]*\}|\S+)')


def num(s):
    return int(s, 0)


def cmd_pagemap(a):
    """PAGE lines for [addr, addr + len) of pid, from its pagemap."""
    addr, length = num(a.addr), num(a.len)
    if addr % PAGE or length % PAGE:
        sys.exit('pagemap: address and length must be page aligned')
    with open('/proc/%d/pagemap' % a.pid, 'rb') as f:
        f.seek(addr // PAGE * 8)
        raw = f.read(length // PAGE * 8)
    for i in range(length // PAGE):
        (e,) = struct.unpack_from('<Q', raw, i * 8)
        present = e >> 63 & 1
        pfn = e & ((1 << 55) - 1)
        if not present or not pfn:
            sys.exit('pagemap: page %d of 0x%x not present or no PFN shown '
                     '(entry 0x%016x; root needed)' % (i, addr, e))
        print('PAGE %d 0x%x' % (i, pfn))
    return 0


def parse_trace(path):
    """The obs_* events in trace order, entries paired with returns."""
    evs = []
    stacks = {}
    with open(path) as f:
        for n, line in enumerate(f):
            if line.startswith('#'):
                continue
            m = LINE_RE.match(line.rstrip('\n'))
            if not m or not m.group('ev').startswith('obs_'):
                continue
            e = {'seq': float(n), 'ev': m.group('ev'),
                 'pid': int(m.group('pid')), 'ts': m.group('ts')}
            for k, v in ARG_RE.findall(m.group('args')):
                e[k] = v
            # A return closes the latest open entry of its function in
            # the same task and context (softirq nests in a task).
            fl = m.group('flags')
            key = (e['ev'].replace('_ret', ''), e['pid'],
                   fl[2] if len(fl) > 2 else '.')
            if e['ev'].endswith('_ret'):
                if stacks.get(key):
                    stacks[key].pop()['ret'] = e['seq']
                continue
            if e['ev'] in ('obs_wb', 'obs_st'):
                stacks.setdefault(key, []).append(e)
            evs.append(e)
    return evs


def fpdu_bytes(e):
    v = e.get('fpdu', '')
    if not v.startswith('{'):
        return None
    return bytes(int(x, 16) for x in v.strip('{}').split(','))


class Obs:
    def __init__(self, a):
        self.a = a
        self.line = a.line
        self.bad = []
        self.start = num(a.pmem_start)
        self.end = self.start + num(a.pmem_size)
        self.pfn = {}
        with open(a.pagemap) as f:
            for ln in f:
                w = ln.split()
                if len(w) == 3 and w[0] == 'PAGE':
                    self.pfn[int(w[1])] = num(w[2])
        srv = open(a.server).read()
        m = re.search(r'^COMMIT MAP pid=\d+ pm=(0x[0-9a-f]+) len=(\d+)', srv,
                      re.M)
        r = re.search(r'^COMMIT MR pm durable=1 rkey=(0x[0-9a-f]+)', srv, re.M)
        if not m or not r:
            sys.exit('check: no "COMMIT MAP" or durable "COMMIT MR" line in '
                     + a.server)
        self.pm, self.pmlen, self.rkey = num(m.group(1)), int(m.group(2)), \
            num(r.group(1))
        self.inv = {pfn: i for i, pfn in self.pfn.items()}

    def badf(self, ids, msg):
        self.bad.append('%s: %s' % (ids, msg))

    def phys(self, va):
        """Physical address of window address va (the pagemap's)."""
        i = (va - self.pm) // PAGE
        if i not in self.pfn:
            raise KeyError('window page %d has no pagemap entry' % i)
        return self.pfn[i] * PAGE + (va - self.pm) % PAGE

    def lines(self, p, n):
        first = p // self.line * self.line
        return set(range(first, p + n, self.line)) if n else set()

    def range_lines(self, to, n):
        """Physical lines of window range [to, to + n), page by page."""
        out = set()
        while n:
            k = min(n, PAGE - (to - self.pm) % PAGE)
            out |= self.lines(self.phys(to), k)
            to += k
            n -= k
        return out

    def in_window(self, stag, to, n):
        return stag == self.rkey and self.pm <= to and \
            to + n <= self.pm + self.pmlen


def decode(evs):
    """Commit Requests and Responses among the obs_tx events."""
    reqs, resps = [], []
    for e in evs:
        if e['ev'] != 'obs_tx' or num(e.get('off', '1')) != 0:
            continue
        b = fpdu_bytes(e)
        if b is None or len(b) < 28:
            continue
        ulpdu, ddp, rdmap = struct.unpack_from('>HBB', b, 0)
        op = rdmap & 0x0F
        if ddp & 0xC0 != 0x40:  # untagged (T=0), last segment (L=1)
            continue
        if op == OP_COMMIT_REQ and ulpdu >= 38 and len(b) >= 40:
            r = {'seq': e['seq'], 'req': struct.unpack_from('>I', b, 20)[0]}
            r['stag'], r['len'], r['to'] = struct.unpack_from('>IIQ', b, 24)
            if ulpdu >= 62 and len(b) >= 64:
                r['log_stag'], r['log_to'] = struct.unpack_from('>IQ', b, 44)
            reqs.append(r)
        elif op == OP_COMMIT_RESP and ulpdu == 26:
            req, st = struct.unpack_from('>II', b, 20)
            resps.append({'seq': e['seq'], 'req': req, 'status': st})
    return reqs, resps


# Each fault and the finding that must report it.
FAULTS = {'page-step': "not its range's", 'drop-line': 'not written back',
          'late-wb': 'not written back', 'late-store': 'dirty'}


def apply_fault(o, kind, reqs, resps, wbs):
    """Change the events as a broken siw2 would (see the module doc)."""
    k, req = o.first_durable
    lo = resps[k - 1]['seq'] if k else -1.0
    mine = [w for w in wbs if lo < w['seq'] < resps[k]['seq']]
    if kind == 'page-step':
        for i, r in enumerate(resps):
            q = o.req_of(r)
            if not q or not q['len'] or not o.in_window(q['stag'], q['to'],
                                                       q['len']):
                continue
            base = o.phys(q['to'])
            lo2 = resps[i - 1]['seq'] if i else -1.0
            for w in wbs:
                if lo2 < w['seq'] < r['seq'] and w['p'] // PAGE in o.inv:
                    va = o.pm + o.inv[w['p'] // PAGE] * PAGE + w['p'] % PAGE
                    if q['to'] <= va < q['to'] + q['len']:
                        w['p'] = base + (va - q['to'])
    elif kind == 'drop-line':
        wbs.remove(mine[-1])
    elif kind == 'late-wb':
        resps[k]['seq'] = mine[-1]['seq'] - 0.5
    elif kind == 'late-store':
        rl = o.range_lines(req['to'], req['len'])
        sts = [s for s in o.stores if s['seq'] < resps[k]['seq'] and
               o.lines(s['p'], s['n']) & rl]
        s = sts[-1]
        s['seq'] = (max(w['ret'] for w in mine) + resps[k]['seq']) / 2
        s['ret'] = s['seq'] + 0.01
    else:
        sys.exit('check: unknown fault ' + kind)


def judge(a, evs, fault=None):
    """Check the events (changed by fault first); return (lines, bad)."""
    o = Obs(a)
    evs = copy.deepcopy(evs)
    reqs, resps = decode(evs)
    wbs, o.stores = [], []
    pob = set()
    out = []
    for e in evs:
        if e['ev'] in ('obs_wb', 'obs_st'):
            pob.add(num(e['pob']))
            kaddr = num(e['addr'] if e['ev'] == 'obs_wb' else e['to'])
            n = num(e['size'] if e['ev'] == 'obs_wb' else e['len'])
            e['p'], e['n'] = kaddr - num(e['pob']), n
            if e['ev'] == 'obs_wb':
                wbs.append(e)
            elif n > 0 and o.start <= e['p'] < o.end:
                o.stores.append(e)
            else:
                continue
            if 'ret' not in e:
                o.badf('COMMIT-DUR-1', 'the observation is incomplete: %s at '
                       '%s never returned in the trace' % (e['ev'], e['ts']))
    if len(pob) > 1:
        o.badf('COMMIT-DUR-1', 'page_offset_base changed during the '
               'observation: %s' % sorted(hex(x) for x in pob))
    if not resps:
        o.badf('COMMIT-DUR-1', 'no Commit Response seen handed to TCP '
               '(sock_sendmsg): nothing observed')

    def req_of(r):
        c = [q for q in reqs if q['req'] == r['req'] and q['seq'] < r['seq']]
        return c[-1] if c else None
    o.req_of = req_of
    o.first_durable = next(((i, req_of(r)) for i, r in enumerate(resps)
                            if r['status'] == 0 and req_of(r) and
                            req_of(r)['len'] and
                            o.in_window(req_of(r)['stag'], req_of(r)['to'],
                                        req_of(r)['len'])), (None, None))
    if fault:
        if o.first_durable[0] is None:
            sys.exit('check: no durable Commit to apply a fault to')
        apply_fault(o, fault, reqs, resps, wbs)
    for e in wbs + o.stores:
        e['lines'] = o.lines(e['p'], e['n'])

    for w in wbs:
        if not (o.start <= w['p'] and w['p'] + w['n'] <= o.end):
            o.badf('COMMIT-DUR-1 DEC-14', 'a write-back of %d octets at '
                   'physical 0x%x, outside the device-DAX namespace '
                   '[0x%x, 0x%x)' % (w['n'], w['p'], o.start, o.end))
    prev = -1.0
    for r in resps:
        q = req_of(r)
        if not q:
            o.badf('COMMIT-DUR-1', 'Commit Response for Request %d: no such '
                   'Request seen handed to TCP before it' % r['req'])
            prev = r['seq']
            continue
        mine = [w for w in wbs if prev < w['seq'] < r['seq']]
        got = set()
        for w in mine:
            got |= w['lines']
        durable = o.in_window(q['stag'], q['to'], q['len'])
        want, rl, logl = set(), set(), set()
        if r['status'] == 0 and durable:
            rl = o.range_lines(q['to'], q['len'])
            want |= rl
        if r['status'] == 0 and 'log_stag' in q and \
                o.in_window(q['log_stag'], q['log_to'], 8):
            logl = o.lines(o.phys(q['log_to']), 8)
            want |= logl
        what = 'Commit %d of [0x%x, +%d) (STag 0x%x%s), Status %d' % (
            r['req'], q['to'], q['len'], q['stag'],
            ', log word 0x%x' % q['log_to'] if 'log_stag' in q else '',
            r['status'])
        ids = 'COMMIT-DUR-1 DEC-14' if durable else 'COMMIT-DUR-4 DEC-14'
        if want - got:
            o.badf(ids, '%s: %d line(s) not written back before its Response '
                   'was handed to TCP, first at physical 0x%x' % (
                       what, len(want - got), min(want - got)))
        if got - want:
            o.badf(ids, '%s: %d line(s) written back that are not its '
                   'range\'s (a wrong page-to-address step?), first at '
                   'physical 0x%x' % (what, len(got - want), min(got - want)))
        late = [w for w in mine if w.get('ret', 1e30) > r['seq']]
        if late:
            o.badf('COMMIT-DUR-1', '%s: a write-back of physical 0x%x was '
                   'still running when the Response was handed to TCP' % (
                       what, late[0]['p']))
        # Dirty lines: payload copied in, not written back after the copy.
        last = {}
        for s in o.stores:
            if s['seq'] < r['seq']:
                for ln in s['lines'] & want:
                    last[ln] = max(last.get(ln, -1.0), s.get('ret', 1e30))
        clean = {}
        for w in mine:
            if w.get('ret', 1e30) < r['seq']:
                for ln in w['lines']:
                    clean[ln] = max(clean.get(ln, -1.0), w['seq'])
        stored = len(rl & set(last))
        dirty = sorted((ln, t) for ln, t in last.items()
                       if clean.get(ln, -1.0) <= t)
        if dirty:
            o.badf('COMMIT-DUR-5 COMMIT-ORD-1', '%s: %d line(s) dirty when '
                   'the Response was handed to TCP (payload copied in, no '
                   'write-back of the line begun after the copy returned), '
                   'first at physical 0x%x' % (what, len(dirty), dirty[0][0]))
        if logl and rl:
            lw = [w for w in mine if w['lines'] & logl]
            rw = [w for w in mine if w['lines'] & rl]
            if lw and rw and min(w['seq'] for w in lw) < \
                    max(w.get('ret', 1e30) for w in rw):
                o.badf('SIW2-DEC-1 COMMIT-ATOM-2', '%s: the log word\'s line '
                       'written back before its range\'s were' % what)
        out.append('OBSERVE COMMIT req=%d stag=0x%x to=0x%x len=%d lines=%d '
                   'status=%d stored=%d' % (r['req'], q['stag'], q['to'],
                                            q['len'], len(got), r['status'],
                                            stored))
        prev = r['seq']
    after = [w for w in wbs if w['seq'] > prev]
    if after and resps:
        o.badf('COMMIT-DUR-1', '%d write-back(s) after the last Commit '
               'Response, first at physical 0x%x' % (len(after),
                                                     after[0]['p']))
    return out, o.bad


def cmd_check(a):
    evs = parse_trace(a.trace)
    out, bad = judge(a, evs, a.fault)
    for ln in out:
        print(ln)
    for b in bad:
        print('OBSERVE BAD ' + b)
    print('OBSERVE RESULT ' + ('%d bad' % len(bad) if bad else 'ok'))
    missed = 0
    for f in FAULTS if a.faults else ():
        _, fb = judge(a, evs, f)
        fb = [b for b in fb if FAULTS[f] in b]
        if fb:
            print('OBSERVE FAULT %s caught: %s' % (f, fb[0]))
        else:
            print('OBSERVE FAULT %s MISSED (no "%s" finding)' % (f, FAULTS[f]))
            missed += 1
    return 1 if bad or missed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('pagemap')
    p.add_argument('pid', type=int)
    p.add_argument('addr')
    p.add_argument('len')
    c = sub.add_parser('check')
    c.add_argument('--trace', required=True)
    c.add_argument('--pagemap', required=True)
    c.add_argument('--server', required=True)
    c.add_argument('--pmem-start', required=True)
    c.add_argument('--pmem-size', required=True)
    c.add_argument('--line', type=int, default=64)
    c.add_argument('--fault', choices=sorted(FAULTS))
    c.add_argument('--faults', action='store_true')
    a = ap.parse_args()
    return cmd_pagemap(a) if a.cmd == 'pagemap' else cmd_check(a)


if __name__ == '__main__':
    sys.exit(main())
