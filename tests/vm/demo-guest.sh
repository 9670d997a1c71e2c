# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest side of tools/demo.sh: load siw2 with its default parameters, join
# two network namespaces with a veth pair, put a siw2 device on each end,
# show what the RDMA tools see, then move data between the two devices:
#   - rping, 10 ping-pongs of 64 B with data verification (-V), whose
#     printed data is also compared with what rping's client sends;
#   - ib_write_bw -R, 64 KiB Writes for 3 s;
#   - ib_send_lat -R, 64 B Sends, 1000 ping-pongs;
#   - iperf3 (plain TCP) on the same veth for 3 s, for comparison.
# Each result becomes one line of $SIW2_RESULTS/summary, which tools/demo.sh
# prints last.  Any failed step fails the demo.
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip rping ib_write_bw ib_send_lat iperf3 stdbuf awk
SUM=$SIW2_RESULTS/summary
OUT=$SIW2_RESULTS
R=$OUT	# lib-peer.sh's srv_cli and perftest_pair write there
SRV=198.18.0.1
: >"$SUM"

show() {		# show CMD...: print the command, then run it
	echo
	echo "### $*"
	"$@" 2>&1
}

# bg_server NS PORT OUTFILE CMD...: start a server in NS, wait until it
# listens on TCP PORT; sets srv_pid.
srv_pid=
bg_server() {
	local ns=$1 port=$2 out=$3
	shift 3
	ip netns exec "$ns" "$@" >"$out" 2>&1 &
	srv_pid=$!
	wait_tcp_listen "$srv_pid" "$port" 20 ||
		{ cat "$out"; fail "${1##*/} is not listening on port $port"; }
}

# finish NAME RC SECS: reap the server (SECS at most) after a client that
# returned RC; fail on either's error, naming the first error line of the
# failed side's output (the output itself is printed above).
finish() {
	local name=$1 rc=$2 src
	reap src "$srv_pid" "$3"
	srv_pid=
	[[ $rc -eq 0 ]] || { cat "$OUT/$name.c" "$OUT/$name.s"; fail "$name client failed ($rc): $(first_error "$OUT/$name.c")"; }
	[[ $src -eq 0 ]] || { cat "$OUT/$name.c" "$OUT/$name.s"; fail "$name server failed ($src): $(first_error "$OUT/$name.s")"; }
}

# perftest NAME PORT ARGS...: ib_<NAME> -R, server on siw2_a, client on
# siw2_b, through lib-peer.sh's perftest_pair: repeated once, printed as
# RETRY with its evidence, only after perftest's own connect race (not a
# siw2 failure); outputs $OUT/NAME.c and $OUT/NAME.s (stderr in .err).
perftest() {
	local name=$1 port=$2
	shift 2
	perftest_pair "$name" siwa siwb siw2_a siw2_b "$SRV" "$port" "ib_$name" "$@" ||
		fail "$name failed: $(perftest_why "$name")"
}

if [[ ${SIW2_FROM_PACKAGES:-0} == 1 ]]; then
	log "loading siw2 ($(modinfo -n siw2)), default parameters"
else
	log "loading siw2 ($SIW2_KO), default parameters"
fi
siw2_load
log "namespaces siwa <-> siwb over veth siwa-v/siwb-v (198.18.0.1 <-> 198.18.0.2)"
ns_pair siwa siwb 0
siw2_link_add siwa siw2_a siwa-v || fail "rdma link add siw2_a"
siw2_link_add siwb siw2_b siwb-v || fail "rdma link add siw2_b"

show ip -n siwa -br addr show siwa-v
show ip -n siwb -br addr show siwb-v
# Each namespace sees its own netdev name; the initial one sees none.
show rdma link show
show ip netns exec siwa rdma link show
show ip netns exec siwb rdma link show
show ibv_devices
show ibv_devinfo -d siw2_a

echo
echo "### rping: 10 x 64 B, data verified (-V)"
bg_server siwa 7001 "$OUT/rping.s" rping -s -a "$SRV" -p 7001 -S 64 -v -V
timeout 30 ip netns exec siwb rping -c -a "$SRV" -p 7001 -S 64 -C 10 -v -V \
	>"$OUT/rping.c" 2>&1
finish rping $? 15
cat "$OUT/rping.c"
bad=$(rping_check_data "$OUT/rping.c" 'ping data: ' 64 10) || fail "rping client data: $bad"
bad=$(rping_check_data "$OUT/rping.s" 'server ping data: ' 64 10) || fail "rping server data: $bad"
grep -Eiq 'mismatch|error|fail' "$OUT/rping.c" "$OUT/rping.s" && fail "rping reported an error"
echo "siw2 rping 64 B: 10 ping-pongs, data verified" >>"$SUM"

echo
echo "### ib_write_bw -R: 64 KiB RDMA Writes for 3 s"
perftest write_bw 7002 -s 65536 -D 3 --report_gbits
cat "$OUT/write_bw.c"
# The result line: bytes, iterations, BW peak, BW average (Gb/s), MsgRate.
wbw=$(awk '/^ *#bytes/ { h = 1; next } h && $1 == 65536 { print $4; exit }' "$OUT/write_bw.c")
[[ $wbw =~ ^[0-9.]+$ ]] && awk -v v="$wbw" 'BEGIN { exit !(v > 0) }' ||
	fail "ib_write_bw: no bandwidth in its result line"

echo
echo "### ib_send_lat -R: 64 B Sends, 1000 ping-pongs"
perftest send_lat 7003 -s 64 -n 1000
cat "$OUT/send_lat.c"
# bytes, iterations, t_min, t_max, t_typical, t_avg, ...
lat=$(awk '/^ *#bytes/ { h = 1; next } h && $1 == 64 { print $5; exit }' "$OUT/send_lat.c")
[[ $lat =~ ^[0-9.]+$ ]] || fail "ib_send_lat: no typical latency in its result line"

echo
echo "### iperf3: TCP on the same veth for 3 s, for comparison"
bg_server siwa 7004 "$OUT/iperf3.s" iperf3 -s -1 -p 7004
timeout 60 ip netns exec siwb iperf3 -c "$SRV" -p 7004 -t 3 -f g \
	>"$OUT/iperf3.c" 2>&1
finish iperf3 $? 15
cat "$OUT/iperf3.c"
tcp=$(awk '/ receiver$/ { for (i = 1; i < NF; i++) if ($(i + 1) == "Gbits/sec") v = $i } END { print v }' "$OUT/iperf3.c")
[[ $tcp =~ ^[0-9.]+$ ]] || fail "iperf3: no receiver throughput"

echo "siw2 write 64 KiB: $wbw Gbit/s (TCP on the same veth: $tcp Gbit/s)" >>"$SUM"
echo "siw2 send 64 B latency: $lat us typical, half a round trip" >>"$SUM"

echo
log "cleaning up"
siw2_link_del siw2_a || fail "rdma link delete siw2_a"
siw2_link_del siw2_b || fail "rdma link delete siw2_b"
siw2_unload
log "demo done"
