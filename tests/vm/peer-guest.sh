#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The second guest of a two-guest case (tests/vm/run.sh, "# guests: 2"):
# its virtio-net NIC, joined to the case guest's by a link of their own,
# goes into namespace pa (so that lib-nfs.sh's server helpers work as in
# one guest) as eth0 with 198.18.90.2/24, and tests/vm/peer-agent.py runs
# there on port 7000 until the case says "exit" (lib-2vm.sh peer_exit).
# The host then collects this guest's kernel log and judges it as the
# case's (run.sh).
source "$SIW2_TOP/tests/vm/lib.sh"

modprobe virtio_net || fail "modprobe virtio_net"
wait_until 20 test -e /sys/class/net/eth0 || fail "no eth0 (virtio-net)"
ip netns add pa || fail "ip netns add pa"
ip link set eth0 netns pa || fail "eth0 into pa"
ip -n pa link set lo up || fail "lo up in pa"
ip -n pa addr add 198.18.90.2/24 dev eth0 || fail "address on eth0"
ip -n pa link set eth0 up || fail "eth0 up"
log "peer: eth0 $(ip -n pa -br addr show eth0)"
exec ip netns exec pa python3 -u "$SIW2_TOP/tests/vm/peer-agent.py" 198.18.90.2 7000
