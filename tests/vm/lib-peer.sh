# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Guest-side helpers for cases that use Linux's own software iWARP driver
# (siw) as the interoperability peer of siw2.  Source after lib.sh:
#     source "$SIW2_TOP/tests/vm/lib.sh"
#     source "$SIW2_TOP/tests/vm/lib-peer.sh"
#
# Debian's 6.12 kernel has no siw (CONFIG_RDMA_SIW unset); tools/build-siw.sh
# builds it on the host from linux-source-6.12 into
# ${XDG_CACHE_HOME:-$HOME/.cache}/siw2-peer/<kver>/src/siw.ko, outside the
# repo.  The guest sees that file through the read-only 9p root and insmods
# it from there.  rdma-core's libsiw-rdmav34.so (/etc/libibverbs.d/siw.driver)
# is the user-space provider of siw devices; libibverbs loads it also when
# RDMAV_DRIVERS points at the siw2 provider.
#
#   siw_peer_ko              echo the path of the cached siw.ko for the
#                            running kernel; return 1 if there is none.
#                            Looked up in order: $SIW2_PEER_KO (if the
#                            harness forwards it), ${XDG_CACHE_HOME:-$HOME/
#                            .cache}/siw2-peer/<kver>/src/siw.ko (the guest's
#                            HOME is /root), the same under the home of the
#                            repo's owner (the user who ran make check)
#   siw_peer_load            modprobe ib_core ib_uverbs iw_cm rdma_cm rdma_ucm
#                            libcrc32c, then insmod the cached siw.ko (its
#                            dependencies: ib_core, ib_uverbs, libcrc32c);
#                            skip the case if siw.ko was not built
#   siw_peer_loaded          true if the siw module is loaded
#   siw_peer_unload          rmmod siw; fail if it cannot
#   siw_link_add NS IBDEV NETDEV   rdma link add IBDEV type siw netdev NETDEV,
#                            run in namespace NS ("-" = initial); returns
#                            rdma's status (does not fail)
#   siw_link_del IBDEV       rdma link delete IBDEV; returns its status
#   wait_port_active IBDEV [SECS]  wait up to SECS (default 10) for port 1 of
#                            IBDEV to be ACTIVE; return 1 on timeout
#   cm_listening PORT        true if some RDMA CM id listens on TCP port PORT
#                            (rdma resource show cm_id; the listener is
#                            visible from every namespace)
#   wait_cm_listen PORT [SECS]   wait up to SECS (default 20) for
#                            cm_listening PORT; return 1 on timeout

siw_peer_ko() {
	local kver cand owner home
	kver=$(uname -r)
	local -a c=()
	[[ -n ${SIW2_PEER_KO:-} ]] && c+=("$SIW2_PEER_KO")
	c+=("${XDG_CACHE_HOME:-$HOME/.cache}/siw2-peer/$kver/src/siw.ko")
	owner=$(stat -c %U "$SIW2_TOP" 2>/dev/null)
	home=$(getent passwd "$owner" 2>/dev/null | cut -d: -f6)
	[[ -n $home ]] && c+=("$home/.cache/siw2-peer/$kver/src/siw.ko")
	for cand in "${c[@]}"; do
		[[ -f $cand ]] && { echo "$cand"; return 0; }
	done
	return 1
}

siw_peer_loaded() { [[ -d /sys/module/siw ]]; }

siw_peer_load() {
	local m ko
	ko=$(siw_peer_ko) ||
		skip "Linux siw.ko not built for $(uname -r): run tools/build-siw.sh on the host"
	for m in ib_core ib_uverbs iw_cm rdma_cm rdma_ucm libcrc32c; do
		modprobe "$m" || fail "modprobe $m"
	done
	siw_peer_loaded && return 0
	insmod "$ko" || fail "insmod $ko"
	siw_peer_loaded || fail "siw not loaded after insmod $ko"
}

siw_peer_unload() {
	rmmod siw || fail "rmmod siw failed (refcnt $(cat /sys/module/siw/refcnt 2>/dev/null))"
	! siw_peer_loaded || fail "siw still loaded after rmmod"
}

siw_link_add() {
	local ns=$1 ibdev=$2 netdev=$3
	in_ns "$ns" rdma link add "$ibdev" type siw netdev "$netdev"
}

siw_link_del() { rdma link delete "$1"; }

_port_active() {
	grep -q ACTIVE "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null
}

wait_port_active() {
	wait_until "${2:-10}" _port_active "$1"
}

cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -E "state LISTEN" | grep -Eq "src-addr [^ ]*:$1( |$)"
}

wait_cm_listen() {
	wait_until "${2:-20}" cm_listening "$1"
}
