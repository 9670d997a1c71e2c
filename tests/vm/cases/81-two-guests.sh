#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Two machines over an Ethernet link: this guest (198.18.90.1, eth0 in the
# initial namespace) and a second guest (198.18.90.2, eth0 in its
# namespace pa, driven through tests/vm/peer-agent.py), each with a
# virtio-net NIC, joined by a link of their own (tests/vm/run.sh,
# lib-2vm.sh): tap devices on a bridge as root, where both NICs must have
# checksum and TSO offloads, else a QEMU socket network.  Every device is
# made by "rdma link add" on the NIC.
#  1  MTU 1500, siw2 on both: rping -V (data validated both ways), 50
#     pings of 4 KiB; ib_write_bw -R for 4 s; ib_send_lat -R, 1,000 Sends
#     of 64 octets; an NFSv4.2 mount over RDMA (port 20049, the peer's
#     nfsd on a tmpfs): a 16 MiB file written with fsync, read back after
#     a remount with the page cache dropped, its SHA-256 the same here and
#     on the peer, the mount's transport rdma.
#  2  Linux siw on the peer's NIC, siw2 here: rping -V both ways (siw2
#     client to a siw server, siw client to a siw2 server) and
#     ib_write_bw -R with the siw server.
#  3  MTU 9000 on both NICs, siw2 on both: rping -V of 32 KiB and
#     ib_write_bw -R, whose connection's TCP MSS must be a jumbo one
#     (above 8,000 octets), so its FPDUs travel in jumbo frames.
# Both guests' kernel logs must stay clean (run.sh).  Outputs: this
# guest's in build/vm-logs/81-two-guests/, the peer's (its server
# outputs) in its results directory, its log in 81-two-guests.peer.out.
# guests: 2
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-2vm.sh"
source "$SIW2_TOP/tests/vm/lib-nfs.sh"

need rdma ip ss rping ib_write_bw ib_send_lat mount sha256sum python3
R=$SIW2_RESULTS
SRV=198.18.90.2
FAILED=()
bad() { echo "FAILED: $*"; FAILED+=("$*"); }

two_net
log "eth0: $(ip -d link show eth0 | grep -o 'gso_max_size [0-9]*\|tso_max_size [0-9]*' | tr '\n' ' ')"
siw2_load
siw2_link_add - s2a eth0 || fail "rdma link add s2a"
wait_port_active s2a || fail "s2a port not ACTIVE"
peer_dev() {	# peer_dev siw2|siw: the peer's device on its eth0
	case $1 in
	siw2) peer "siw_link_del siw0 2>/dev/null; siw2_loaded || siw2_load >/dev/null;
		siw2_link_add pa s2p eth0 && wait_port_active s2p" || fail "peer: siw2 device" ;;
	siw) peer "siw2_link_del s2p; siw_peer_loaded || siw_peer_load;
		siw_link_add pa siw0 eth0 && wait_port_active siw0" || fail "peer: siw device" ;;
	esac
	PDEV=$([[ $1 == siw2 ]] && echo s2p || echo siw0)
}
port=7000
# peer_srv PORT CMD...: CMD in the background on the peer, its output in
# the peer's $R/srv.out, its exit status in $R/srv-PORT.rc when it ends.
peer_srv() {
	local p=$1
	shift
	peer "( $* >\$R/srv.out 2>&1; echo \$? >\$R/srv-$p.rc ) >/dev/null 2>&1 &"
}

# peer_srv_rc PORT: peer_srv PORT's exit status once it ended (20 s at
# most; "still running" if it did not).
peer_srv_rc() {
	wait_until 20 eval "peer 'test -s \$R/srv-$1.rc'" || { echo "still running"; return; }
	peer "cat \$R/srv-$1.rc"
}

# peer_listen PORT: the peer's server listens (TCP, as iw_cm listens).
peer_listen() {
	wait_until 30 eval "peer \"ss -Hltn 'sport = :$1' | grep -q .\" >/dev/null" ||
		{ peer "cat \$R/srv.out"; return 1; }
}

# rping_peer_srv NAME SIZE COUNT: rping server on the peer, client here.
# A run that hangs with unread bytes in a Linux siw server's socket is
# siw's accept race (lib-peer.sh siw_rx_stalled; 61-dp-rping.sh): logged,
# and repeated once.
rping_peer_srv() {
	local name=$1 size=$2 count=$3 rc n cpid stall probe=() ok=1 src
	port=$((port + 1))
	peer_srv "$port" timeout 90 rping -s -V -a "$SRV" -p "$port" -S "$size" -C "$count" ||
		{ bad "$name: peer rping server"; return; }
	peer_listen "$port" || { bad "$name: peer rping server not listening"; return; }
	rping -c -V -v -a "$SRV" -p "$port" -S "$size" -C "$count" >"$R/$name.c" 2>&1 &
	cpid=$!
	[[ $PDEV == siw0 ]] && probe=(peer "siw_rx_stalled pa $port")
	# 1-5 s a run here.
	reap rc "$cpid" 60 "${probe[@]}"
	stall=$REAP_NOTE
	n=$(grep -c 'ping data' "$R/$name.c")
	(( rc == 0 && n == count )) || ok=0
	if (( !ok )) && [[ -n $stall && -z ${RPS_RETRY:-} ]]; then
		log "RETRY: $name: hung with unread bytes in the siw server's socket (${stall//$'\n'/; }): Linux siw's accept race (lib-peer.sh siw_rx_stalled); once more"
		peer "pkill -x rping; cat \$R/srv.out" >"$R/$name.s.try1"
		wait_until 20 eval "! peer 'pgrep -x rping' >/dev/null"
		mv "$R/$name.c" "$R/$name.c.try1"
		RPS_RETRY=1 rping_peer_srv "$@"
		return
	fi
	if (( !ok )); then
		bad "$name: rping client rc $rc, $n of $count pings"
		tail -n 5 "$R/$name.c"
		echo "the peer's server:"
		peer "pkill -x rping; cat \$R/srv.out" | tail -n 10
	fi
	wait_until 20 eval "! peer 'pgrep -x rping' >/dev/null" || bad "$name: peer rping server still running"
	(( ok )) && src=$(peer_srv_rc "$port") && [[ $src != 0 ]] && bad "$name: the peer's rping server rc $src"
	log "$name: $n pings of $size octets validated"
}

# rping_here_srv NAME SIZE COUNT: rping server here, client on the peer.
rping_here_srv() {
	local name=$1 size=$2 count=$3 sp rc out
	port=$((port + 1))
	timeout 90 rping -s -V -a 198.18.90.1 -p "$port" -S "$size" -C "$count" >"$R/$name.s" 2>&1 &
	sp=$!
	wait_tcp_listen "$sp" "$port" 20 || { bad "$name: rping server not listening"; return; }
	out=$(peer "timeout 90 rping -c -V -v -a 198.18.90.1 -p $port -S $size -C $count")
	rc=$?
	printf '%s\n' "$out" >"$R/$name.c"
	wait "$sp" || bad "$name: rping server rc $?"
	n=$(grep -c 'ping data' "$R/$name.c")
	(( rc == 0 && n == count )) || { bad "$name: peer's rping client rc $rc, $n of $count pings"; tail -n 5 "$R/$name.c"; }
	log "$name: $n pings of $size octets validated (the peer's client)"
}

# write_bw NAME [MSS_MIN]: ib_write_bw -R for 4 s, server on the peer; with
# MSS_MIN, the connection's TCP MSS must exceed it.
write_bw() {
	local name=$1 mss_min=${2:-} cp rc mss= try src
	for try in 1 2; do
		port=$((port + 1))
		perftest_trace_mark "$R/$name"
		peer_srv "$port" timeout 90 ib_write_bw -R -d "$PDEV" -p "$port" -D 4 ||
			{ bad "$name: peer ib_write_bw server"; return; }
		peer_listen "$port" || { bad "$name: peer ib_write_bw server not listening"; return; }
		timeout 90 ib_write_bw -R -d s2a -p "$port" -D 4 "$SRV" >"$R/$name.c" 2>&1 &
		cp=$!
		if [[ -n $mss_min ]]; then
			wait_until 30 eval "ss -tinH '( dport = :$port )' | grep -q 'mss:'" &&
				mss=$(ss -tinH "( dport = :$port )" | grep -o 'mss:[0-9]*' | cut -d: -f2 | sort -n | tail -n1)
		fi
		wait "$cp"
		rc=$?
		peer "cat \$R/srv.out" >"$R/$name.s"
		perftest_race_retry "$R/$name" "$rc" "$try" "$port" || break
		peer "pkill -x ib_write_bw" >/dev/null 2>&1
	done
	bw=$(awk '/^ *#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print $4; exit }' "$R/$name.c")
	(( rc == 0 )) && [[ $bw =~ ^[0-9.]+$ ]] && awk -v b="$bw" 'BEGIN { exit !(b > 0) }' ||
		{ bad "$name: ib_write_bw rc $rc, average ${bw:-none} MB/s"; tail -n 8 "$R/$name.c" "$R/$name.s"; return; }
	src=$(peer_srv_rc "$port")
	[[ $src == 0 ]] || { bad "$name: the peer's ib_write_bw server rc $src"; peer "cat \$R/srv.out" | tail -n 8; }
	if [[ -n $mss_min ]] && ! (( ${mss:-0} > mss_min )); then
		bad "$name: TCP MSS ${mss:-unknown}, want above $mss_min"
	fi
	log "$name: ib_write_bw 64 KiB, 4 s: $bw MB/s${mss:+, TCP MSS $mss}"
}

send_lat() {
	local name=$1 rc try src
	for try in 1 2; do
		port=$((port + 1))
		perftest_trace_mark "$R/$name"
		peer_srv "$port" timeout 90 ib_send_lat -R -d "$PDEV" -p "$port" -s 64 -n 1000 ||
			{ bad "$name: peer ib_send_lat server"; return; }
		peer_listen "$port" || { bad "$name: peer ib_send_lat server not listening"; return; }
		timeout 90 ib_send_lat -R -d s2a -p "$port" -s 64 -n 1000 "$SRV" >"$R/$name.c" 2>&1
		rc=$?
		peer "cat \$R/srv.out" >"$R/$name.s"
		perftest_race_retry "$R/$name" "$rc" "$try" "$port" || break
		peer "pkill -x ib_send_lat" >/dev/null 2>&1
	done
	lat=$(awk '/^ *#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print $5; exit }' "$R/$name.c")
	(( rc == 0 )) && [[ $lat =~ ^[0-9.]+$ ]] ||
		{ bad "$name: ib_send_lat rc $rc, t_typical ${lat:-none}"; tail -n 8 "$R/$name.c"; return; }
	src=$(peer_srv_rc "$port")
	[[ $src == 0 ]] || { bad "$name: the peer's ib_send_lat server rc $src"; peer "cat \$R/srv.out" | tail -n 8; }
	log "$name: ib_send_lat 64 octets x 1000: t_typical $lat us"
}

nfs_rdma() {
	local mnt=/mnt/n81 sum psum rsum
	peer "for m in sunrpc nfsd rpcrdma; do modprobe \$m || exit 1; done
		mkdir -p /srv/n81 && mount -t tmpfs -o size=128m n81 /srv/n81 &&
		srv 'exportfs -o rw,fsid=0,no_root_squash,insecure,no_subtree_check,sync 198.18.90.0/24:/srv/n81' &&
		mountd_start -N 3 && nfsdcld_start && nfsd_start '-3 +4 +4.1 +4.2'" >"$R/nfsd.out" 2>&1 ||
		{ bad "nfs: the peer's nfsd"; cat "$R/nfsd.out"; return; }
	for m in sunrpc nfs nfsv4 rpcrdma; do
		modprobe "$m" || { bad "nfs: modprobe $m"; return; }
	done
	mkdir -p "$mnt"
	timeout -k 5 90 mount -t nfs -o rdma,port=20049,vers=4.2 "$SRV:/" "$mnt" >"$R/mount.out" 2>&1 ||
		{ bad "nfs: mount -o rdma,port=20049"; cat "$R/mount.out"; return; }
	xprt=$(MNT=$mnt nfs_xprt | awk '{ print $2 }')
	[[ $xprt == rdma ]] || bad "nfs: the mount's transport is '${xprt:-none}', not rdma"
	head -c 16777216 /dev/urandom >"$R/f16m" || fail "urandom"
	sum=$(sha256sum <"$R/f16m" | cut -d' ' -f1)
	timeout -k 5 120 dd if="$R/f16m" of="$mnt/f16m" bs=1M conv=fsync status=none || bad "nfs: write"
	umount "$mnt" || bad "nfs: umount"
	drop_caches
	timeout -k 5 90 mount -t nfs -o rdma,port=20049,vers=4.2 "$SRV:/" "$mnt" ||
		{ bad "nfs: remount"; return; }
	rsum=$(timeout -k 5 120 sha256sum <"$mnt/f16m" | cut -d' ' -f1)
	psum=$(peer "sha256sum </srv/n81/f16m | cut -d' ' -f1")
	[[ $rsum == "$sum" && $psum == "$sum" ]] ||
		bad "nfs: SHA-256 written $sum, read back ${rsum:-none}, on the peer ${psum:-none}"
	umount "$mnt" || bad "nfs: umount after the read"
	rm -f "$R/f16m"
	log "nfs: NFSv4.2 over RDMA (xprt $xprt): 16 MiB written and read back, SHA-256 equal here and on the peer"
	peer "nfsd_stop; srv 'exportfs -ua'" >/dev/null
}

# --- 1: MTU 1500, siw2 <-> siw2
peer_dev siw2
rping_peer_srv rping-1500 4096 50
write_bw write-bw-1500
send_lat send-lat-1500
nfs_rdma

# --- 2: Linux siw on the peer
peer_dev siw
rping_peer_srv rping-siw-srv 4096 50
rping_here_srv rping-siw-cli 4096 50
write_bw write-bw-siw-srv

# --- 3: MTU 9000, siw2 <-> siw2
peer_dev siw2
two_mtu 9000
rping_peer_srv rping-9000 32768 20
write_bw write-bw-9000 8000

peer "siw2_link_del s2p" >/dev/null || bad "peer: rdma link delete s2p"
siw2_link_del s2a || bad "rdma link delete s2a"
peer_exit
(( ${#FAILED[@]} == 0 )) || fail "${#FAILED[@]} check(s) failed"
siw2_assert_zero_counts
siw2_unload
log "ok: rping, perftest, NFS over RDMA and Linux siw interop between two guests at MTU 1500 and 9000"
