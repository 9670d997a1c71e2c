#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tests/vm/run.sh [-j[N]] [case-file ...]
#
# Boot one fresh QEMU guest per case (default: tests/vm/cases/*.sh, sorted),
# run the case inside it (see tests/vm/guest-init.sh and tests/vm/lib.sh),
# and report TAP on stdout, ending with the line
#     N passed, N failed, N skipped
# Exit status is non-zero if any case failed.
#
# A case fails when it exits with a status other than 0 or 77 (77 = skip,
# reason = first stdout line starting with "SKIP:"), when it runs out of
# time (300 s, or "# timeout: N" in the case file, times
# SIW2_VM_TIMEOUT_SCALE if set; QEMU is then killed), or
# when the guest kernel log shows a warning, BUG, oops, leak report and the
# like (KLOG_BAD in tests/vm/vm.sh) at any time of the guest's life: the
# log saved just before power-off and the serial console, which carries
# every kernel message of warning level and worse from boot through the
# power-off (loglevel=5).
#
# A case whose header has "# pmem: SIZE" (e.g. 256M) boots with an emulated
# NVDIMM of that size (tests/vm/vm.sh; lib.sh's pmem_devdax makes a
# device-DAX namespace on it); SIW2_VM_PMEM=SIZE gives one to every case.
#
# A case whose header has "# guests: 2" runs with a second guest
# (tests/vm/peer-guest.sh) whose virtio-net NIC is joined to the case
# guest's by an Ethernet link of their own (tests/vm/lib-2vm.sh): as root,
# two tap devices on a bridge in a network namespace made for the case
# (the NICs get their checksum and segmentation offloads); otherwise, or
# with SIW2_VM_LINK=socket, a QEMU socket network on loopback (no
# offloads).  The second guest's kernel log is judged as the case's, its
# logs kept as <case>.peer.{out,dmesg,console}.
#
# -j runs up to N guests at once (default: number of CPUs), the longest
# first (tests/vm/durations); each guest takes 2 vCPUs on one host thread
# (thread=single TCG, so one host core) and SIW2_VM_MEM (2G) of memory.
#
# Logs stay in build/vm-logs/: <case>.out (case output), <case>.dmesg (guest
# kernel log), <case>.console (serial console), <case>/ (what the case put
# in $SIW2_RESULTS).
set -u

SIW2_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export SIW2_TOP
# shellcheck source=tests/vm/vm.sh
source "$SIW2_TOP/tests/vm/vm.sh"

LOGDIR=$SIW2_TOP/build/vm-logs
DEFAULT_TIMEOUT=300
# KLOG_BAD and KLOG_USER (the kernel log lines that fail a case): vm.sh.

jobs=1
cases=()
while [[ $# -gt 0 ]]; do
	case $1 in
	-j) jobs=$(nproc)
	    if [[ ${2:-} =~ ^[0-9]+$ ]]; then jobs=$2; shift; fi ;;
	-j[0-9]*) jobs=${1#-j} ;;
	-h|--help) sed -n '3,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*)  cases+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")") ;;
	esac
	shift
done
if [[ ${#cases[@]} -eq 0 ]]; then
	shopt -s nullglob
	cases=("$SIW2_TOP"/tests/vm/cases/*.sh)
	shopt -u nullglob
fi
(( jobs >= 1 )) || jobs=1

# Build the initramfs once up front, not racing in parallel guests.
if kinfo=$(vm_kernel); then
	vm_initramfs "${kinfo%% *}" >/dev/null || kinfo=
	[[ -f $SIW2_TOP/drivers/siw2/siw2.ko ]] &&
		vm_modindex "${kinfo%% *}" "$SIW2_TOP/drivers/siw2/siw2.ko" >/dev/null
fi

# Per-run scratch: two runs in one tree (two engineers, CI) must not clash.
SCRATCH=$LOGDIR/.run.$$
mkdir -p "$SCRATCH/tap"
trap 'rm -rf "$SCRATCH"' EXIT

# diag FILE N: the last N lines of FILE as indented TAP diagnostics.
diag() {
	[[ -s $1 ]] || return 0
	tail -n "$2" "$1" | sed 's/^/#     /'
}

# A two-guest case ("# guests: 2" in its header, tests/vm/lib-2vm.sh):
# link_make NAME TIMEOUT makes the two guests' Ethernet link, nothing else on it,
# and sets link_kind and nic_a/nic_b (the case guest's and the peer's
# -nic).
#  tap     as root with /dev/net/tun: a bridge and two tap devices (MTU
#          9000, the largest a case sets) in a network namespace of their
#          own, held by a sleep process (link_ns) that outlives the case's
#          budget by a minute at most, if run.sh itself is killed; both
#          QEMUs run in it (vm.sh's SIW2_VM_NETNS) with vnet_hdr, so the
#          virtio-net NICs have checksum and segmentation offloads, as on
#          a real host.  Failing to make it fails the case (its .link log).
#  socket  a QEMU socket network: the peer's NIC listens on a free
#          loopback port, the case guest's connects.  QEMU's socket
#          backend carries no virtio-net header: no offloads.
# SIW2_VM_LINK=socket|tap chooses; the default is tap where it can be made.
# The guests see the kind as the kernel command line's siw2_link.
link_make() {
	local name=$1 tmo=$2 want=${SIW2_VM_LINK:-}
	link_ns=
	rm -f "$LOGDIR/$name.link"
	if [[ $want != socket && $(id -u) -eq 0 && -c /dev/net/tun ]]; then
		unshare -n sleep $((2 * tmo + 60)) &
		link_ns=$!
		# Not before it is in its own namespace: the bridge would be
		# made in ours.
		local i me
		me=$(readlink /proc/self/ns/net)
		for ((i = 0; i < 100; i++)); do
			[[ $(readlink "/proc/$link_ns/ns/net" 2>/dev/null) == "$me" ]] || break
			sleep 0.05
		done
		if [[ $(readlink "/proc/$link_ns/ns/net" 2>/dev/null) != "$me" ]] &&
		   kill -0 "$link_ns" 2>/dev/null && nsenter -t "$link_ns" -n sh -ec '
			ip link add br0 mtu 9000 type bridge stp_state 0 forward_delay 0
			for t in tapa tapb; do
				ip tuntap add dev $t mode tap vnet_hdr
				ip link set $t mtu 9000 master br0 up
			done
			ip link set br0 up' >"$LOGDIR/$name.link" 2>&1; then
			rm -f "$LOGDIR/$name.link"
			link_kind=tap
			nic_a="tap,ifname=tapa,script=no,downscript=no,vnet_hdr=on"
			nic_b="tap,ifname=tapb,script=no,downscript=no,vnet_hdr=on"
			return 0
		fi
		link_drop
		return 1
	fi
	[[ $want == tap ]] && { echo "SIW2_VM_LINK=tap needs root and /dev/net/tun" >"$LOGDIR/$name.link"; return 1; }
	link_kind=socket
	local port
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	nic_b="socket,listen=127.0.0.1:$port"
	nic_a="socket,connect=127.0.0.1:$port"
	peer_port=$port
}

# link_drop: the tap link's namespace goes with its holder (and the
# bridge and taps with it).
link_drop() {
	[[ -n ${link_ns:-} ]] || return 0
	kill "$link_ns" 2>/dev/null
	wait "$link_ns" 2>/dev/null
	link_ns=
}

# peer_start NAME TIMEOUT boots the second guest (tests/vm/peer-guest.sh)
# on the link.  peer_stop waits for it to power off (the case ends its
# agent, peer_exit) or kills it after 30 s, and keeps its logs as
# <case>.peer.{out,dmesg,console}; peer_rc is its status.
peer_start() {
	local name=$1 tmo=$2
	peer_res=$SCRATCH/$name.peer
	rm -rf "$peer_res" "$peer_res.pid" "$LOGDIR/$name.peer".{out,dmesg,console}
	mkdir -p "$peer_res"
	SIW2_VM_PIDFILE=$peer_res.pid SIW2_VM_NETNS=${link_ns:-} \
	SIW2_VM_APPEND="${SIW2_VM_APPEND:-} siw2_link=$link_kind" \
	SIW2_VM_NIC="$nic_b,model=virtio-net-pci,mac=52:54:00:90:00:02" \
		vm_boot "$peer_res" "$tmo" "$LOGDIR/$name.peer.console" run "$SIW2_TOP/tests/vm/peer-guest.sh" &
	peer_job=$!
	[[ $link_kind == socket ]] || return 0
	# Not by connecting: QEMU would take that for the other guest.
	local i
	for ((i = 0; i < 300; i++)); do
		ss -Hltn "sport = :$peer_port" | grep -q . && return 0
		kill -0 "$peer_job" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

peer_stop() {
	local name=$1 i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$peer_job" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$peer_job" 2>/dev/null && [[ -s $peer_res.pid ]] && kill "$(cat "$peer_res.pid")" 2>/dev/null
	wait "$peer_job" 2>/dev/null
	[[ -f $peer_res/out ]] && mv "$peer_res/out" "$LOGDIR/$name.peer.out"
	if [[ -f $peer_res/dmesg ]]; then
		mv "$peer_res/dmesg" "$LOGDIR/$name.peer.dmesg"
	else
		cat "$peer_res/dmesg.live" 2>/dev/null >"$LOGDIR/$name.peer.dmesg"
	fi
	peer_rc=$(cat "$peer_res/rc" 2>/dev/null)
	rm -rf "$peer_res" "$peer_res.pid"
}

# run_case IDX CASE: boot, run, judge; writes the TAP block to .tap/IDX.
run_case() {
	local idx=$1 case=$2 name tmo res rc status msg boot end reason bad boot_bad f nretry
	name=$(basename "$case" .sh)
	res=$SCRATCH/$name
	local tap=$SCRATCH/tap/$idx
	tmo=$(sed -n 's/^#[[:space:]]*timeout:[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$case" | head -n1)
	tmo=${tmo:-$DEFAULT_TIMEOUT}
	# A slower guest kernel (the debug kernel) scales every budget.
	tmo=$((tmo * ${SIW2_VM_TIMEOUT_SCALE:-1}))

	rm -rf "$res" "$LOGDIR/$name" "$LOGDIR/$name".{out,dmesg,console}
	mkdir -p "$res"
	local t0=$EPOCHREALTIME
	if [[ -z $kinfo ]]; then
		rc=1; echo "no usable kernel/initramfs" >"$LOGDIR/$name.console"
	elif grep -Eq '^#[[:space:]]*guests:[[:space:]]*2' "$case"; then
		peer_rc=
		if ! link_make "$name" "$tmo"; then
			rc=1; cp "$LOGDIR/$name.link" "$LOGDIR/$name.console"
		else
			if peer_start "$name" "$tmo"; then
				SIW2_VM_NETNS=${link_ns:-} SIW2_VM_APPEND="${SIW2_VM_APPEND:-} siw2_link=$link_kind" \
				SIW2_VM_NIC="$nic_a,model=virtio-net-pci,mac=52:54:00:90:00:01" \
					vm_boot "$res" "$tmo" "$LOGDIR/$name.console" run "$case"
				rc=$?
			else
				rc=1; echo "the peer guest's NIC never listened" >"$LOGDIR/$name.console"
			fi
			peer_stop "$name"
		fi
		link_drop
	else
		vm_boot "$res" "$tmo" "$LOGDIR/$name.console" run "$case"
		rc=$?
	fi
	local wall
	wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

	# Keep the logs where the brief says; a guest that hung or died left
	# no final dmesg: fall back to the streamed copy plus the console.
	[[ -f $res/out ]] && mv "$res/out" "$LOGDIR/$name.out" || : >"$LOGDIR/$name.out"
	if [[ -f $res/dmesg ]]; then
		mv "$res/dmesg" "$LOGDIR/$name.dmesg"
	else
		cat "$res/dmesg.live" "$LOGDIR/$name.console" 2>/dev/null |
			sed 's/\x1bc//g; s/\x1b\[[0-9;?]*[A-Za-z]//g' >"$LOGDIR/$name.dmesg"
	fi
	[[ -d $res/results ]] && mv "$res/results" "$LOGDIR/$name"
	boot=$(cat "$res/boot" 2>/dev/null); end=$(cat "$res/end" 2>/dev/null)
	status=$(cat "$res/rc" 2>/dev/null)

	msg=""
	if [[ $rc -eq 124 ]]; then
		status=fail; msg="timed out after ${tmo}s (QEMU killed)"
	elif [[ -z $status ]]; then
		status=fail; msg="guest did not finish the case (QEMU status $rc)"
	elif [[ $status -eq 0 ]]; then
		status=pass
	elif [[ $status -eq 77 ]]; then
		status=skip
		reason=$(grep -m1 '^SKIP:' "$LOGDIR/$name.out" | sed 's/^SKIP:[[:space:]]*//')
		reason=${reason:-no reason given}
	else
		msg="exit status $status"; status=fail
	fi
	# The console also catches what a dying guest printed (panics).
	# SIW2_VM_KLOG_FROM_CASE=1 (tools/check-debug.sh): a report from the
	# boot, before the case's marker and so before siw2 exists, is the
	# kernel's own; it is shown, not counted.
	local part=all
	if [[ ${SIW2_VM_KLOG_FROM_CASE:-0} == 1 ]]; then
		part=case
		boot_bad=$(klog_part boot "$LOGDIR/$name".{dmesg,console} |
			grep -Ev "$KLOG_USER" | grep -E -m1 "$KLOG_BAD")
		[[ -n $boot_bad ]] && echo "# $name: before the case, not counted: $boot_bad" >&2
	fi
	bad=$(klog_part "$part" "$LOGDIR/$name".{dmesg,console} "$LOGDIR/$name".peer.{dmesg,console} |
		grep -Ev "$KLOG_USER" | grep -E -m1 "$KLOG_BAD")
	if [[ -n $bad ]]; then
		msg="${msg:+$msg; }kernel log: $bad"; status=fail
	fi
	# The peer guest of a two-guest case must have ended its agent cleanly.
	if [[ -f $LOGDIR/$name.peer.console && $status == pass && ${peer_rc:-x} != 0 ]]; then
		msg="peer guest: status ${peer_rc:-none} (${LOGDIR}/$name.peer.out)"; status=fail
	fi

	{
		case $status in
		pass) echo "ok $idx - $name" ;;
		skip) echo "ok $idx - $name # SKIP $reason" ;;
		*)    echo "not ok $idx - $name" ;;
		esac
		echo "# $name: boot ${boot:-?} s, case done at ${end:-?} s guest uptime, ${wall} s wall"
		# Every retry a case made (its RETRY: lines) shows here.
		nretry=$(grep -c 'RETRY:' "$LOGDIR/$name.out" 2>/dev/null)
		if (( ${nretry:-0} )); then
			echo "# $name: $nretry retry(ies):"
			grep 'RETRY:' "$LOGDIR/$name.out" | head -n 5 | sed 's/^/#   /'
		fi
		echo "${nretry:-0}" >"$tap.retries"
		if [[ $status == fail ]]; then
			echo "# $msg"
			# FAIL lines first: a long case's tail may not reach them.
			if grep -q 'FAIL' "$LOGDIR/$name.out"; then
				echo "#   FAIL lines of the output:"
				grep 'FAIL' "$LOGDIR/$name.out" | head -n 15 | sed 's/^/#     /'
			fi
			echo "#   output ($LOGDIR/$name.out), last lines:"
			diag "$LOGDIR/$name.out" 25
			echo "#   kernel log ($LOGDIR/$name.dmesg):"
			if [[ -n $bad ]]; then
				# Where it is: the saved log, or only the console
				# (printed after the log was saved, e.g. at power-off).
				f=$LOGDIR/$name.dmesg
				grep -Ev "$KLOG_USER" "$f" | grep -Eq "$KLOG_BAD" ||
					{ f=$LOGDIR/$name.console
					  echo "#   (only on the console: $f)"; }
				grep -E -m5 -B2 -A8 "$KLOG_BAD" "$f" |
					head -n 40 | sed 's/^/#     /'
			elif grep -q 'siw2-vm: running' "$LOGDIR/$name.dmesg"; then
				# Only what the case caused, not the boot.
				sed -n '/siw2-vm: running/,$p' "$LOGDIR/$name.dmesg" |
					tail -n 25 | sed 's/^/#     /'
			else
				diag "$LOGDIR/$name.dmesg" 25
			fi
		fi
		echo "$status" >"$tap.status"
	} >"$tap"
	rm -rf "$res"
}

n=${#cases[@]}
echo "1..$n"
passed=0 failed=0 skipped=0 retries=0
emit() {		# print case IDX's block and count it
	cat "$SCRATCH/tap/$1"
	retries=$((retries + $(cat "$SCRATCH/tap/$1.retries" 2>/dev/null || echo 0)))
	case $(cat "$SCRATCH/tap/$1.status" 2>/dev/null) in
	pass) passed=$((passed + 1)) ;;
	skip) skipped=$((skipped + 1)) ;;
	*)    failed=$((failed + 1)) ;;
	esac
}

if (( jobs == 1 )); then
	for ((i = 1; i <= n; i++)); do
		run_case "$i" "${cases[i-1]}"
		emit "$i"
	done
else
	# Up to $jobs guests at once, the longest (tests/vm/durations) first
	# so that the long cases do not end up alone at the tail;
	# results printed in case order.
	running=0
	for i in $(for ((j = 1; j <= n; j++)); do
			t=$(awk -v c="$(basename "${cases[j-1]}" .sh)" \
				'$1 == c { print $2 }' "$SIW2_TOP/tests/vm/durations")
			echo "${t:-60} $j"
		done | sort -k1,1nr -k2,2n | cut -d' ' -f2); do
		if (( running >= jobs )); then
			wait -n; running=$((running - 1))
		fi
		run_case "$i" "${cases[i-1]}" &
		running=$((running + 1))
	done
	wait
	for ((i = 1; i <= n; i++)); do
		emit "$i"
	done
fi
rm -rf "$SCRATCH"

# A retry is allowed only on evidence that the failure was not siw2's;
# more than a few in one run is a flaky run, and that fails it.
bound=${SIW2_RETRY_BOUND:-3}
echo "# retries: $retries in this run (at most $bound)"
if (( retries > bound )); then
	echo "not ok - retries: $retries in this run, more than $bound (see the RETRY lines above)"
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed, $skipped skipped"
(( failed == 0 ))
