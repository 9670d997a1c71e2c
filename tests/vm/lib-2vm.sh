# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The case guest's side of a two-guest case (tests/vm/run.sh, "# guests:
# 2"): its virtio-net NIC (eth0, initial namespace, 198.18.90.1/24) and the
# peer guest's (namespace pa, 198.18.90.2/24) are joined by a real Ethernet
# link between two kernels, kind siw2_link (run.sh's link_make): tap (a
# bridge on the host; the NICs have checksum and TSO offloads both ways) or
# socket (no offloads); the peer runs tests/vm/peer-agent.py
# (tests/vm/peer-guest.sh).
#
#   two_net            eth0 up with its address; waits for the peer's agent;
#                      on a tap link, both NICs must have negotiated their
#                      offloads
#   two_mtu MTU        both NICs' MTU
#   peer CMD           run the shell command CMD in the peer (lib.sh,
#                      lib-peer.sh and lib-nfs.sh sourced, R its results
#                      directory): its output on stdout, its status returned
#                      (255: no agent)
#   peer_exit          end the agent, and so the peer guest

PEER_ADDR=198.18.90.2
PEER_PORT=7000

peer() {
	local fd line rc=255
	exec {fd}<>"/dev/tcp/$PEER_ADDR/$PEER_PORT" || return 255
	# One line on the wire, whatever CMD holds: base64.
	printf '%s' "$*" | base64 -w0 >&"$fd"
	echo >&"$fd"
	while IFS= read -r line <&"$fd"; do
		[[ $line == "AGENT RC "* ]] && { rc=${line#AGENT RC }; break; }
		printf '%s\n' "$line"
	done
	exec {fd}>&-
	return "$rc"
}

# nic_offloads: the offloads this guest's virtio-net device negotiated
# with QEMU, from its feature bits (VIRTIO_NET_F_CSUM 0, GUEST_CSUM 1,
# GUEST_TSO4 7, HOST_TSO4 11): "csum guest_csum guest_tso4 host_tso4" or
# the subset, "none" without any.  Also run in the peer (peer-agent.py
# sources this file).
nic_offloads() {
	local f out=() b n
	f=$(cat /sys/bus/virtio/drivers/virtio_net/virtio*/features 2>/dev/null | head -n1)
	for b in 0:csum 1:guest_csum 7:guest_tso4 11:host_tso4; do
		n=${b%%:*}
		[[ ${f:n:1} == 1 ]] && out+=("${b#*:}")
	done
	echo "${out[*]:-none}"
}

two_net() {
	modprobe virtio_net || fail "modprobe virtio_net"
	wait_until 20 test -e /sys/class/net/eth0 || fail "no eth0 (virtio-net)"
	ip link set lo up || fail "lo up"
	ip addr add 198.18.90.1/24 dev eth0 || fail "address on eth0"
	ip link set eth0 up || fail "eth0 up"
	wait_until 20 eval "ip link show eth0 | grep -q LOWER_UP" || fail "no carrier on eth0"
	# The peer boots beside this guest; its agent comes when it is up.
	wait_until 120 eval "peer true >/dev/null 2>&1" || fail "no agent at $PEER_ADDR:$PEER_PORT"
	log "two guests: eth0 $(ip -br addr show eth0 | awk '{ print $3 }'), peer $(peer 'uname -r')"
	local kind here there all="csum guest_csum guest_tso4 host_tso4"
	kind=$(knob siw2_link socket)
	here=$(nic_offloads)
	there=$(peer nic_offloads)
	log "link: $kind; offloads here: $here; on the peer: $there"
	if [[ $kind == tap ]]; then
		[[ $here == "$all" ]] || fail "tap link, but this NIC has offloads '$here', not '$all'"
		[[ $there == "$all" ]] || fail "tap link, but the peer's NIC has offloads '$there', not '$all'"
	fi
}

two_mtu() {
	ip link set eth0 mtu "$1" || fail "mtu $1 on eth0"
	peer "ip link set eth0 mtu $1" || fail "mtu $1 on the peer's eth0"
}

peer_exit() { peer exit >/dev/null 2>&1; }
