#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Port state follows the netdev: down/up give PORT_ERR/PORT_ACTIVE async
# events and port states, an MTU change moves active_mtu, and deleting the
# netdev removes the device under an open context (the program sees
# DEVICE_FATAL and exits cleanly; counts are 0 afterwards).
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"

dev_exists() { [[ -e /sys/class/infiniband/$1 ]]; }

need rdma ip
[[ -x $SIW2_PROGS/siw2_async ]] || fail "siw2_async not built (make progs)"

DEV=siw2_e
ND=ev0
OUT=$SIW2_RESULTS/async.txt
ASYNC=("$SIW2_PROGS/siw2_async" -d "$DEV")
apid=

cleanup() { [[ -n $apid ]] && kill "$apid" 2>/dev/null; }
trap cleanup EXIT

# port_line: the port state line from a fresh context.
port_line() { "${ASYNC[@]}" --once 2>&1 | grep '^port 1 '; }
# After an event line, the next line is the port state queried after it.
after_event() { grep -A1 "^event $1 port 1\$" "$OUT" | grep -q "^port 1 state $2 "; }
mtu_of() { sed -n 's/.* active_mtu \([0-9]*\) .*/\1/p' <<<"$1"; }

siw2_load
ns_dummy - "$ND"
siw2_link_add - "$DEV" "$ND" || fail "rdma link add $DEV"
wait_until 10 dev_exists "$DEV" || fail "$DEV not in sysfs"

"${ASYNC[@]}" --hold --timeout 200 >"$OUT" 2>&1 &
apid=$!
wait_until 30 grep -q '^ready$' "$OUT" || { cat "$OUT"; fail "siw2_async not ready"; }
grep -q '^port 1 state ACTIVE ' "$OUT" || { cat "$OUT"; fail "port not ACTIVE at start"; }

log "netdev down"
ip link set "$ND" down || fail "ip link set down"
wait_until 20 grep -q '^event PORT_ERR port 1$' "$OUT" || { cat "$OUT"; fail "no PORT_ERR event"; }
wait_until 5 after_event PORT_ERR DOWN || { cat "$OUT"; fail "port not DOWN after PORT_ERR"; }
port_line | grep -q ' state DOWN ' || fail "new context: port not DOWN ($(port_line))"

log "netdev up"
ip link set "$ND" up || fail "ip link set up"
wait_until 20 grep -q '^event PORT_ACTIVE port 1$' "$OUT" || { cat "$OUT"; fail "no PORT_ACTIVE event"; }
wait_until 5 after_event PORT_ACTIVE ACTIVE || { cat "$OUT"; fail "port not ACTIVE after PORT_ACTIVE"; }
port_line | grep -q ' state ACTIVE ' || fail "new context: port not ACTIVE ($(port_line))"

log "mtu 1500 -> 9000 -> 1500"
m1500=$(mtu_of "$(port_line)")
[[ $m1500 =~ ^[0-9]+$ ]] && (( m1500 > 0 && m1500 <= 1500 )) || fail "active_mtu at 1500 is '$m1500'"
ip link set "$ND" mtu 9000 || fail "ip link set mtu 9000"
mtu_grew() { m9000=$(mtu_of "$(port_line)"); (( m9000 > m1500 )); }
wait_until 10 mtu_grew || fail "active_mtu did not grow at mtu 9000 ($m1500 -> $m9000)"
ip link set "$ND" mtu 1500 || fail "ip link set mtu 1500"
mtu_back() { [[ $(mtu_of "$(port_line)") == "$m1500" ]]; }
wait_until 10 mtu_back || fail "active_mtu not back to $m1500 at mtu 1500"
log "active_mtu $m1500 -> $m9000 -> $m1500"

log "delete netdev under an open context"
ip link del "$ND" || fail "ip link del $ND"
gone() { ! kill -0 "$apid" 2>/dev/null; }
wait_until 30 gone || { cat "$OUT"; fail "siw2_async still running 30 s after netdev removal (no DEVICE_FATAL: disassociate?)"; }
wait "$apid"
arc=$?
apid=
cat "$OUT"
grep -q '^event DEVICE_FATAL$' "$OUT" || fail "no DEVICE_FATAL event"
grep -q '^closed$' "$OUT" || fail "siw2_async did not close the device"
(( arc == 0 )) || fail "siw2_async exit status $arc"
wait_until 30 eval "! dev_exists $DEV" || fail "$DEV still present after netdev removal"
siw2_assert_zero_counts
siw2_unload
log "port events ok"
