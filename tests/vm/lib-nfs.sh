# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# The kernel NFS server in a network namespace and the client's mount
# helpers, shared by case 64 (NFS over RDMA) and make bench's NFS rows.
# nfsd is configured through /proc/fs/nfsd alone; its file system is per
# network namespace, so every server command mounts it first (srv).
#
# Globals: NFS_NS (the server's namespace, default pa; - the initial one), R (results
# directory: mountd.log), MNT (the client's mount point, for nfs_xprt).

NFS_NS=${NFS_NS:-pa}
mountd_pid='' rpcbind_pid=''
# The server's daemons run under timeout(1) so that none outlives its
# case, with a limit no case reaches: rpc.mountd's end takes its mount
# namespace's nfsd file system with it, and the last such unmount stops
# the server (6.12's nfsd_umount(): nfsd_shutdown_threads()).  Its former
# 600 s stopped nfsd under case 74's mount on a slow run: the mount hung.
NFS_DAEMON_TMO=$((3000 * ${SIW2_TIMEOUT_SCALE:-1}))

ms_now() { echo $(( ${EPOCHREALTIME/./} / 1000 )); }

# nfs_topology CLI SRV: the server's namespace pa joined by veth to the
# initial one, where the client runs: c0 (CLI/24) <-> pa-v (SRV/24), both
# up with carrier.
nfs_topology() {
	ip netns add pa || fail "ip netns add pa"
	ip link add c0 type veth peer name pa-v netns pa || fail "veth c0/pa-v"
	ip addr add "$1/24" dev c0 || fail "addr c0"
	ip -n pa addr add "$2/24" dev pa-v || fail "addr pa-v"
	ip link set c0 up || fail "c0 up"
	ip -n pa link set lo up || fail "lo up in pa"
	ip -n pa link set pa-v up || fail "pa-v up"
	wait_until 10 eval "ip link show c0 | grep -q LOWER_UP &&
		ip -n pa link show pa-v | grep -q LOWER_UP" || fail "no carrier on c0/pa-v"
}

# NFS_NS=- is the initial namespace (a one-host mount over lo): its nfsd
# file system is mounted once and stays.  "ip netns exec" gives every
# command a mount namespace of its own, where nfsd's is mounted afresh.
_nfs_ns() {
	if [[ $NFS_NS == - ]]; then
		"$@"
	else
		ip netns exec "$NFS_NS" "$@"
	fi
}
# _nfs_mount FSTYPE DIR: the command that mounts FSTYPE on DIR for
# _nfs_ns's command.
_nfs_mount() {
	if [[ $NFS_NS == - ]]; then
		echo "{ mountpoint -q $2 || mount -t $1 $1 $2; }"
	else
		echo "mount -t $1 $1 $2"
	fi
}

# srv CMD: the shell command CMD in the server's namespace, with its nfsd
# file system mounted.
srv() {
	_nfs_ns bash -c "$(_nfs_mount nfsd /proc/fs/nfsd) || exit 99; $1"
}

# nfsd_start VERSIONS [LISTENER]: e.g. "-3 +4 +4.1 +4.2" and "rdma 20049"
# (the default; "tcp 2049" for NFS over TCP), 8 threads, the shortest v4
# grace period (10 s).
nfsd_start() {
	srv "echo $1 >/proc/fs/nfsd/versions && echo 10 >/proc/fs/nfsd/nfsv4gracetime &&
		echo '${2:-rdma 20049}' >/proc/fs/nfsd/portlist && echo 8 >/proc/fs/nfsd/threads" ||
		fail "nfsd start ($1, ${2:-rdma 20049})"
	log "nfsd: versions '$(srv 'cat /proc/fs/nfsd/versions')', portlist '$(srv 'cat /proc/fs/nfsd/portlist' | tr '\n' ' ')', threads $(srv 'cat /proc/fs/nfsd/threads')"
}

# nfsdcld_start: nfsd's client tracking daemon in NFS_NS, with that
# namespace's rpc_pipefs (it is per network namespace), before nfsd starts:
# nfsd creates the cld pipe when it starts and waits about a second for
# nfsdcld to open it.  nfsd outside the initial namespace has no other
# tracking ("attempt to initialize legacy client tracking in a container
# ignored"); without any, a kernel without
# CONFIG_NFSD_LEGACY_CLIENT_TRACKING (the debug kernel's) refuses to start
# nfsd's threads, and one with it has no reclaim.  Sets cldpid;
# nfsdcld_stop ends it.
NFSDCLD_PIPEFS=/var/lib/nfs/rpc_pipefs
cldpid=''
nfsdcld_start() {
	mkdir -p /var/lib/nfs/nfsdcld "$NFSDCLD_PIPEFS" || fail "mkdir for nfsdcld"
	rm -rf /var/lib/nfs/nfsdcld/*
	_nfs_ns timeout "$NFS_DAEMON_TMO" bash -c "$(_nfs_mount rpc_pipefs "$NFSDCLD_PIPEFS") &&
		exec nfsdcld -F -p $NFSDCLD_PIPEFS" >"$R/nfsdcld.log" 2>&1 &
	cldpid=$!
	wait_until 20 eval "[[ -e /var/lib/nfs/nfsdcld/main.sqlite ]] || ! kill -0 $cldpid 2>/dev/null"
	kill -0 "$cldpid" 2>/dev/null || { cat "$R/nfsdcld.log" >&2; fail "nfsdcld ended"; }
}
nfsdcld_stop() {
	[[ -n $cldpid ]] || return 0
	kill "$cldpid" 2>/dev/null
	wait "$cldpid" 2>/dev/null
	cldpid=''
}

# With nfsdcld and no client to reclaim, nfsd skips the v4 grace period;
# otherwise it lasts nfsv4gracetime, set to its minimum, 10 s.
grace_over() {
	[[ $(srv 'cat /proc/fs/nfsd/v4_end_grace') == Y* ]]
}

nfsd_stop() {
	srv 'echo 0 >/proc/fs/nfsd/threads' || echo "nfsd stop failed" >&2
}

mountd_start() {	# mountd_start ARGS...
	_nfs_ns timeout "$NFS_DAEMON_TMO" bash -c "$(_nfs_mount nfsd /proc/fs/nfsd)"' && exec rpc.mountd -F "$@"' \
		mountd "$@" >"$R/mountd.log" 2>&1 &
	mountd_pid=$!
}

mountd_stop() {
	[[ -n $mountd_pid ]] || return 0
	kill "$mountd_pid" 2>/dev/null
	wait "$mountd_pid" 2>/dev/null
	mountd_pid=
}

# rpcbind_start: rpcbind in the server's namespace, up once it listens.
rpcbind_start() {
	_nfs_ns timeout "$NFS_DAEMON_TMO" rpcbind -f -w >"$R/rpcbind.log" 2>&1 &
	rpcbind_pid=$!
	wait_until 10 eval "_nfs_ns ss -tlnH | grep -q ':111 '" ||
		fail "rpcbind not listening in ${NFS_NS/#-/the initial namespace}"
}

rpcbind_stop() {
	[[ -n $rpcbind_pid ]] || return 0
	kill "$rpcbind_pid" 2>/dev/null
	wait "$rpcbind_pid" 2>/dev/null
	rpcbind_pid=
}

# nfs_xprt: the transport line of the mount on $MNT in
# /proc/self/mountstats ("xprt: rdma ..." or "xprt: tcp ...").
nfs_xprt() {
	awk -v m="$MNT" '$1 == "device" && $5 == m { on = 1; next }
		$1 == "device" { on = 0 }
		on && $1 == "xprt:" { print; found = 1 } END { exit !found }' /proc/self/mountstats
}

rate() {	# rate BYTES MS: MB/s (10^6 bytes / s)
	awk -v b="$1" -v ms="$2" 'BEGIN { if (ms < 1) ms = 1; printf "%.1f", b / ms / 1000 }'
}

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches; }
