#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The guest side of tools/fuzz-long.sh: siw2 on the guest's user-mode NIC
# (QEMU slirp: 10.0.2.15, the host's loopback seen as 10.0.2.2), and one
# siw2_fuzz_target per phase while the host runs tests/fuzz/wire_fuzz.py
# against it.  Phases come from the kernel command line
# (siw2_fuzz_phases=fpdu-init,fpdu-resp,fpdu-resp-p2p,hs-init,hs-resp,fpdu-inject
# (the last needs a module built with SIW2_FUZZ=1); siw2_fuzz_port=N:
# the host's listening port for the -resp phases; siw2_fuzz_jobs=J: the
# host's fuzzer lanes, so the target keeps J connections).  Per phase, in
# $SIW2_RESULTS: the guest writes PHASE.ready once the target listens (or,
# for -resp phases, waits for the host's PHASE.go first: the host fuzzer
# must listen before the target connects), and stops the target when the
# host writes PHASE.done.  With siw2_fuzz_perf=1 a system-wide profile of
# each phase goes to PHASE.perf.txt (perf report, by command and symbol)
# and PHASE.perf-children.txt (the target's symbols, callees included).
# At the end: no RDMA resource and no siw2 object
# left, the module unloads; the harness checks the kernel log.
source "$SIW2_TOP/tests/vm/lib.sh"

need rdma ip timeout
TARGET=$SIW2_PROGS/siw2_fuzz_target
[[ -x $TARGET ]] || fail "siw2_fuzz_target not built (run make)"
R=$SIW2_RESULTS
phases=fpdu-init,fpdu-resp,fpdu-resp-p2p,hs-init,hs-resp port=17901 jobs=1 prof=0
for w in $(</proc/cmdline); do
	case $w in
	siw2_fuzz_phases=*) phases=${w#*=} ;;
	siw2_fuzz_port=*) port=${w#*=} ;;
	siw2_fuzz_jobs=*) jobs=${w#*=} ;;
	siw2_fuzz_perf=1) prof=1 ;;
	esac
done

modprobe virtio_net 2>/dev/null
wait_until 20 ip link show eth0 >/dev/null 2>&1 || fail "no eth0 (SIW2_VM_NIC unset?)"
ip link set eth0 up || fail "eth0 up"
ip addr add 10.0.2.15/24 dev eth0 || fail "address on eth0"
ip route add default via 10.0.2.2 || fail "default route"
siw2_load
siw2_link_add - s2e eth0 || fail "rdma link add s2e"
P=/sys/module/siw2/parameters
echo 2000 >"$P/mpa_timeout_ms"
# A connection the target finds stuck (HANG) is shown as the kernel holds
# it, before the target ends it (as case 69 does).
export SIW2_FUZZ_HANG_CMD='{ cat /sys/kernel/debug/siw2/*/connections; ss -tnie; } 2>&1 | sed "s/^/  hang| /"'

# wait_file FILE: until the host writes it (no limit: the host's run
# decides how long a phase takes; the harness's timeout bounds the guest).
# A nap, not sleep(1): on the debug kernel a process start every 0.5 s
# took 7 % of the guest's CPU from the phase being measured.
wait_file() { while [[ ! -e $1 ]]; do nap 1; done; }

for ph in ${phases//,/ }; do
	case $ph in
	*-init*) role=init args=(--listen 10.0.2.15:7900 --slots $((jobs > 2 ? 2 * jobs : 4))) ;;
	*-inject) role=init args=(--inject 10.0.2.15:7900 --slots "$jobs") ;;
	*-resp*) role=resp args=(--connect "10.0.2.2:$port" --conns 100000000 --slots "$jobs") ;;
	*) fail "unknown phase $ph" ;;
	esac
	# siw2's Request asks for peer-to-peer in fpdu-resp-p2p and hs-resp.
	p2p=off
	[[ $ph == *-p2p || $ph == hs-resp ]] && p2p=on
	echo "$p2p" >"$P/peer_to_peer"
	if [[ $role == resp ]]; then
		echo "waiting" >"$R/$ph.ready"
		wait_file "$R/$ph.go"
	fi
	"$TARGET" "${args[@]}" >"$R/$ph.target" 2>&1 &
	tpid=$!
	[[ $role == init ]] && { wait_until 30 grep -q '^READY' "$R/$ph.target"; echo ready >"$R/$ph.ready"; }
	ppid=
	if (( prof )); then
		perf record -q -a -g -e cpu-clock -F 499 -o "/tmp/$ph.perf" 2>/dev/null &
		ppid=$!
	fi
	wait_file "$R/$ph.done"
	kill -TERM "$tpid"
	wait "$tpid"
	log "$ph: target rc $?, $(grep '^DONE' "$R/$ph.target")"
	if [[ -n $ppid ]]; then
		kill -INT "$ppid"
		wait "$ppid"
		perf report -i "/tmp/$ph.perf" --stdio --no-children --sort comm,sym 2>/dev/null |
			grep -v '^$' | head -400 >"$R/$ph.perf.txt"
		# Where the target's time goes, callees included (system calls).
		perf report -i "/tmp/$ph.perf" --stdio --children --comms siw2_fuzz_targe \
			--sort sym -g none 2>/dev/null | grep -v '^$' | head -150 >"$R/$ph.perf-children.txt"
	fi
done
echo off >"$P/peer_to_peer"
echo 10000 >"$P/mpa_timeout_ms"
wait_until 30 eval '[[ -z $(rdma resource show qp 2>/dev/null | grep s2e) ]]' ||
	{ rdma resource show; fail "QPs left on s2e"; }
siw2_link_del s2e || fail "link delete"
siw2_assert_zero_counts
siw2_unload
grep -h '^DONE' "$R"/*.target | grep -v ' hang=0' && fail "a target saw a hang"
grep -h '^DONE' "$R"/*.target | grep -v ' guard_fail=0' && fail "a target saw guards changed"
log "ok"
