#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# A measurement, not a test (issue 18): where an NFSv4.2 cold read's time
# goes, over TCP and over siw2, on one veth pair (nfsd on a tmpfs in
# namespace pa, the client in the initial namespace, as case 64).  For each
# transport: a PN_MIB MiB file written with dd, the client's caches
# dropped, a dd read (bs=1M), the caches dropped again and the same read
# under a system-wide perf profile (which slows it).  Kept
# per transport: the mount's options and per-operation RPC statistics
# (/proc/self/mountstats: READ count, bytes, queue, RTT and execute times),
# the flat profile (symbols over 0.3 % of all samples), the read's MB/s.
#
#   SIW2_VM_ACCEL=tcg,thread=multi tests/vm/run.sh tests/vm/bench/profile-nfs.sh
#
# Knobs (kernel command line through SIW2_VM_APPEND):
#   PN_XPRTS  transports, in order ("tcp siw2")
#   PN_MIB    file size, MiB (128)
#   PN_FREQ   samples per second per CPU (1000)
#   PN_OPTS   extra mount options for every transport (none)
#   PN_PERF   0: no profiled read
#   PN_TRACE_MIB  MiB read again with RPC and siw2 trace events (0: none);
#             XPRT.trace
# Results: XPRT.report, XPRT.mountstats, XPRT.mount (the /proc/mounts line).
# timeout: 900
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-nfs.sh"

need rdma ip mount umount exportfs rpc.mountd perf dd timeout awk
R=$SIW2_RESULTS
CLI=198.18.66.1 SRV=198.18.66.2
EXP=/srv/nfs-prof MNT=/mnt/nfs-prof
MIB=${PN_MIB:-128}
FREQ=${PN_FREQ:-1000}

echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid
siw2_load
for m in sunrpc nfsd rpcrdma nfs nfsv4; do
	modprobe "$m" || fail "modprobe $m"
done
nfs_topology "$CLI" "$SRV"
siw2_link_add pa s2s pa-v || fail "rdma link add s2s"
siw2_link_add - s2c c0 || fail "rdma link add s2c"
wait_port_active s2s && wait_port_active s2c || fail "ports not ACTIVE"
mkdir -p "$EXP" "$MNT" || fail "mkdir"
mount -t tmpfs -o size=$((MIB + 64))m nfs-prof "$EXP" || fail "tmpfs"
chmod 0777 "$EXP"
srv "exportfs -o rw,fsid=0,no_root_squash,insecure,no_subtree_check,sync $CLI/32:$EXP" ||
	fail "exportfs"
mountd_start -N 3
nfsdcld_start
# The neighbour known (a connect to closed port 9): a cold mount waits out
# ib_core's resolution timer.
timeout 5 bash -c ": 2>/dev/null >/dev/tcp/$SRV/9" 2>/dev/null

# ops XPRT WHAT: the mount's READ and READ_PLUS statistics since the last
# call: operations, and per operation the octets received and the mean
# queue, RTT and execute times (ms).
OPS_LAST="0 0 0 0 0"
ops() {
	local now
	now=$(awk -v m="$MNT" '$1 == "device" { on = ($5 == m) }
		on && ($1 == "READ:" || $1 == "READ_PLUS:") { n += $2; b += $6; q += $7; r += $8; e += $9 }
		END { print n + 0, b + 0, q + 0, r + 0, e + 0 }' /proc/self/mountstats)
	log "$(awk -v x="$1" -v w="$2" -v now="$now" -v last="$OPS_LAST" 'BEGIN {
		split(now, a); split(last, l); n = a[1] - l[1]; if (n < 1) n = 1
		printf "%s %s: %d READs of %.0f KiB, per READ: queue %.2f ms, RTT %.2f ms, execute %.2f ms",
			x, w, a[1] - l[1], (a[2] - l[2]) / n / 1024, (a[3] - l[3]) / n,
			(a[4] - l[4]) / n, (a[5] - l[5]) / n }')"
	OPS_LAST=$now
}

# trace_read XPRT: the first PN_TRACE_MIB MiB read again, cold, with the
# RPC, RPC-over-RDMA and siw2 data path events on (XPRT.trace; on the
# host, tests/vm/bench/nfs-timeline.py XPRT.trace splits each READ).
T=/sys/kernel/tracing
TRACE_EVENTS="sunrpc/rpc_task_begin sunrpc/rpc_task_end sunrpc/xprt_transmit
	sunrpc/svc_process sunrpc/svc_send sunrpc/xprt_lookup_rqst
	rpcrdma/xprtrdma_post_send rpcrdma/xprtrdma_wc_send rpcrdma/xprtrdma_wc_receive
	rpcrdma/xprtrdma_reply rpcrdma/svcrdma_wc_recv rpcrdma/svcrdma_post_send
	rpcrdma/svcrdma_wc_send siw2/siw2_dp_tx_fpdu siw2/siw2_dp_rx_seg siw2/siw2_dp_cqe"
trace_read() {
	local e
	drop_caches
	echo 0 >$T/tracing_on
	echo 16384 >$T/buffer_size_kb
	for e in $TRACE_EVENTS; do
		[[ -d $T/events/$e ]] && echo 1 >"$T/events/$e/enable"
	done
	: >$T/trace
	echo 1 >$T/tracing_on
	dd if="$MNT/f" of=/dev/null bs=1M count="$PN_TRACE_MIB" status=none || fail "$1: traced read"
	echo 0 >$T/tracing_on
	cp $T/trace "$R/$1.trace"
	for e in $TRACE_EVENTS; do
		[[ -d $T/events/$e ]] && echo 0 >"$T/events/$e/enable"
	done
	log "$1: traced read of $PN_TRACE_MIB MiB: $(grep -vc '^#' "$R/$1.trace") events"
	ops "$1" "traced read"
}

# one XPRT LISTENER OPTS: nfsd on LISTENER, the write, the profiled read.
one() {
	local x=$1 t0 ms
	nfsd_start "-3 +4 +4.1 +4.2" "$2"
	wait_until 30 grace_over || log "$x: grace period not over"
	timeout 60 mount -t nfs -o "$3${PN_OPTS:+,$PN_OPTS}" "$SRV:/" "$MNT" ||
		fail "$x: mount -o $3"
	grep " $MNT " /proc/mounts >"$R/$x.mount"
	dd if=/dev/zero of="$MNT/f" bs=1M count="$MIB" conv=fsync status=none ||
		fail "$x: write"
	drop_caches
	t0=$(ms_now)
	dd if="$MNT/f" of=/dev/null bs=1M status=none || fail "$x: read"
	ms=$(( $(ms_now) - t0 ))
	log "$x: read $MIB MiB in $ms ms ($(rate $((MIB << 20)) "$ms") MB/s)"
	ops "$x" read
	(( ${PN_TRACE_MIB:-0} )) && trace_read "$x"
	[[ ${PN_PERF:-1} == 1 ]] || { rm -f "$MNT/f"; umount "$MNT" || fail "$x: umount"
		nfsd_stop; OPS_LAST="0 0 0 0 0"; return; }
	drop_caches
	t0=$(ms_now)
	perf record -q -a -e cpu-clock -F "$FREQ" -o "$R/$x.data" -- \
		dd if="$MNT/f" of=/dev/null bs=1M status=none 2>"$R/$x.err" ||
		fail "$x: read: $(cat "$R/$x.err")"
	ms=$(( $(ms_now) - t0 ))
	awk -v m="$MNT" '$1 == "device" && $5 == m { on = 1 }
		$1 == "device" && $5 != m { on = 0 } on' /proc/self/mountstats >"$R/$x.mountstats"
	perf report -i "$R/$x.data" --kallsyms /proc/kallsyms --stdio --no-children \
		--sort dso,sym --percent-limit 0.3 2>/dev/null | grep -v '^$' >"$R/$x.report"
	rm -f "$R/$x.data"
	ops "$x" "profiled read"
	log "$x: read $MIB MiB in $ms ms ($(rate $((MIB << 20)) "$ms") MB/s, profiled)"
	log "$x: $(cut -d' ' -f4 "$R/$x.mount")"
	rm -f "$MNT/f"
	umount "$MNT" || fail "$x: umount"
	nfsd_stop
	OPS_LAST="0 0 0 0 0"
}

for x in ${PN_XPRTS:-tcp siw2}; do
	case $x in
	tcp) one tcp "tcp 2049" vers=4.2,proto=tcp,port=2049 ;;
	siw2) one siw2 "rdma 20049" vers=4.2,rdma,port=20049 ;;
	*) fail "PN_XPRTS: '$x' (tcp or siw2)" ;;
	esac
done
nfsdcld_stop
mountd_stop
log "profile-nfs: done"
