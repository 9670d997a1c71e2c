# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The server guest of tools/check-crash.sh (the power-fail test of RDMA
# Commit, issue 34 item 4): it boots on the NVDIMM backing file the host
# keeps across boots (SIW2_VM_PMEM_FILE), finds the device-DAX namespace
# an earlier guest made on it (lib.sh pmem_devdax), and checks the log
# the last guest left there, killed in mid-append, with "siw2-pmlog
# recover" (recover.txt, recover.rc in its results directory). Then,
# with crash_role=serve on the kernel command line, it serves the client
# guest (tests/crash/client-guest.sh) with "siw2-pmlog serve" (serve.txt)
# on eth0, 198.18.91.1, until the host kills its QEMU (crash_renew: its
# --renew, the log's end past which the client gets a fresh log); with
# crash_role=verify it powers off after the check.
#
# Not a case of make check (tests/vm/cases/): tools/check-crash.sh boots it.
# pmem: 256M
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

R=$SIW2_RESULTS
PL=$SIW2_TOP/tools/pmlog/siw2-pmlog
[[ -x $PL ]] || fail "$PL not built (make pmlog)"
role=$(knob crash_role serve)
port=$(knob crash_port 7900)
renew=$(knob crash_renew 16M)

modprobe virtio_net || fail "modprobe virtio_net"
wait_until 20 test -e /sys/class/net/eth0 || fail "no eth0 (virtio-net)"
ip addr add 198.18.91.1/24 dev eth0 || fail "address on eth0"
ip link set eth0 up || fail "eth0 up"
siw2_load
siw2_link_add - s2s eth0 || fail "rdma link add s2s"
wait_port_active s2s || fail "s2s port not ACTIVE"
pmem_devdax 4K
log "role $role: $PMEM_DAX, $PMEM_SIZE octets"

# What the killed guest left: every record below the end word whole, and
# nothing past the recovered end taken (COMMIT-DUR-1, SIW2-DEC-1).
"$PL" recover --dev "$PMEM_DAX" --size "$PMEM_SIZE" >"$R/recover.txt" 2>&1
echo $? >"$R/recover.rc"
log "$(grep -h '^pmlog: recover' "$R/recover.txt")"
[[ $role == verify ]] && exit 0

"$PL" serve -a 198.18.91.1 -p "$port" --dev "$PMEM_DAX" --size "$PMEM_SIZE" \
	--renew "$renew" --clients 1 >"$R/serve.txt" 2>&1
echo $? >"$R/serve.rc"
fail "siw2-pmlog serve ended (rc $(cat "$R/serve.rc")) before the host killed this guest: $(tail -n 3 "$R/serve.txt" | tr '\n' ' ')"
