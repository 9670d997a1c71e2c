# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The client guest of tools/check-crash.sh (the power-fail test of RDMA
# Commit, issue 34 item 4). It stays up for the whole run, on eth0,
# 198.18.91.2, and for each round K the host announces in its results
# directory (round-K: MODE, SEED, RECORD, PORT) appends to the server
# guest's log with "siw2-pmlog append --resume --count 0" until the host
# kills the server: each record acknowledged (push: its Commit with the
# log update completed; classic: the server's reply) is one line of
# acks-K, written to the results directory, which is the host's, before
# the next record is sent. The append fails once the server is gone (no
# completion within 5 s); its status goes to done-K. "stop" ends the
# run.
#
# Not a case of make check (tests/vm/cases/): tools/check-crash.sh boots it.
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

R=$SIW2_RESULTS
PL=$SIW2_TOP/tools/pmlog/siw2-pmlog
[[ -x $PL ]] || fail "$PL not built (make pmlog)"

modprobe virtio_net || fail "modprobe virtio_net"
wait_until 20 test -e /sys/class/net/eth0 || fail "no eth0 (virtio-net)"
ip addr add 198.18.91.2/24 dev eth0 || fail "address on eth0"
ip link set eth0 up || fail "eth0 up"
siw2_load
siw2_link_add - s2c eth0 || fail "rdma link add s2c"
wait_port_active s2c || fail "s2c port not ACTIVE"
log "client ready"
echo ready >"$R/ready"

k=1
while :; do
	# The host's next word; a round takes a server boot (some 30 s).
	wait_until 900 eval "[[ -e $R/round-$k || -e $R/stop ]]" ||
		fail "no round $k and no stop from the host within 900 s"
	[[ -e $R/round-$k ]] || break
	MODE= SEED= RECORD= PORT=
	# shellcheck source=/dev/null
	source "$R/round-$k"
	log "round $k: $MODE, seed $SEED, records up to $RECORD octets"
	timeout 600 "$PL" append -a 198.18.91.1 -p "$PORT" --mode "$MODE" --resume \
		--count 0 --seed "$SEED" --record "$RECORD" -t 5 --ack-log "$R/acks-$k" \
		>"$R/append-$k.txt" 2>&1
	rc=$?
	log "round $k: append rc $rc, $(wc -l <"$R/acks-$k" 2>/dev/null || echo 0) acks: $(tail -n 1 "$R/append-$k.txt")"
	echo "$rc" >"$R/done-$k"
	k=$((k + 1))
done
siw2_link_del s2c || fail "rdma link delete s2c"
log "stop after $((k - 1)) rounds"
