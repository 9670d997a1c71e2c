#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Metadata workload on a directory (case 74, an NFS mount over siw2).

nfs_meta.py DIR N: creates N files in DIR/meta (each holds its own name),
stats each (size checked), renames each, lists the directory (exactly the
new names), reads each back (content checked) and unlinks them all; the
directory must then be empty and is removed.  One line per phase with its
rate; exit 1 with the first mismatch on stderr.
"""
import os
import sys
import time


def phase(name, n, fn):
    t0 = time.monotonic()
    fn()
    dt = max(time.monotonic() - t0, 1e-6)
    print(f"meta {name}: {n} in {dt:.1f} s ({n / dt:.0f}/s)", flush=True)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: nfs_meta.py DIR N")
    top = os.path.join(sys.argv[1], "meta")
    n = int(sys.argv[2])
    names = [f"f{i:06d}" for i in range(n)]
    os.mkdir(top)

    def create():
        for nm in names:
            fd = os.open(os.path.join(top, nm), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            os.write(fd, nm.encode())
            os.close(fd)

    def stat():
        for nm in names:
            st = os.stat(os.path.join(top, nm))
            if st.st_size != len(nm):
                sys.exit(f"stat {nm}: size {st.st_size}, want {len(nm)}")

    def rename():
        for nm in names:
            os.rename(os.path.join(top, nm), os.path.join(top, "r" + nm))

    def listing():
        got = sorted(os.listdir(top))
        want = sorted("r" + nm for nm in names)
        if got != want:
            missing = set(want) - set(got)
            extra = set(got) - set(want)
            sys.exit(f"listing: {len(got)} entries, {len(missing)} missing, {len(extra)} unexpected")

    def read():
        for nm in names:
            with open(os.path.join(top, "r" + nm), "rb") as f:
                data = f.read()
            if data != nm.encode():
                sys.exit(f"read r{nm}: {data!r}, want {nm!r}")

    def unlink():
        for nm in names:
            os.unlink(os.path.join(top, "r" + nm))

    phase("create", n, create)
    phase("stat", n, stat)
    phase("rename", n, rename)
    phase("list", n, listing)
    phase("read", n, read)
    phase("unlink", n, unlink)
    left = os.listdir(top)
    if left:
        sys.exit(f"after unlink: {len(left)} entries left")
    os.rmdir(top)


if __name__ == "__main__":
    main()
