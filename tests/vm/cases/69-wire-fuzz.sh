#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The wire fuzzer (tests/fuzz/wire_fuzz.py, tests/fuzz/README.md) against a
# live siw2 QP: a slice in four phases from a new seed each run, each against one
# tests/progs/siw2_fuzz_target process in namespace fa (siw2 on fa-v), the
# fuzzer in fb (no RDMA device, plain TCP):
#   fpdu-init   generated FPDUs, the fuzzer the MPA Initiator
#   fpdu-resp   the same with siw2 the Initiator (target --connect), half
#               of the connections with peer_to_peer=on (siw2 sends an RTR)
#   hs-init     mutated MPA Requests to siw2
#   hs-resp     mutated MPA Replies to siw2's Requests
#   fpdu-inject the fpdu-init cases without TCP, MPA exchange or QP per
#               connection: the fuzz file of the module built with
#               SIW2_FUZZ=1 (tools/build-fuzz-module.sh, make check's host
#               stage builds it), loaded after the four phases, two lanes
# The two roles run at once (two lanes, one per vCPU): fpdu-init then
# hs-init, and fpdu-resp then hs-resp; fpdu-inject last.
# Each FPDU case ends in a checked answer, Terminate or close; each
# connection in the target's verdict (QP in ERR, receives completed, guard
# areas and the regions without remote write rights unchanged); the
# harness checks the kernel log.  At the end the device has no object left.
#
# Sizes (cases per phase) from the environment or the kernel command line:
#   SIW2_FUZZ_SEED (random, printed; tests/run-all.sh passes the run's
#   libFuzzer seed as siw2_fuzz_seed=), SIW2_FUZZ_FPDU (6000: per fpdu phase),
#   SIW2_FUZZ_HS (600: per handshake phase), SIW2_FUZZ_INJECT (6000: the
#   fpdu-inject phase), SIW2_FUZZ_PHASES (all five)
# e.g. SIW2_VM_APPEND="siw2_fuzz_fpdu=200000 siw2_fuzz_hs=20000" for a
# long run (and a "timeout:" to match: SIW2_VM_TIMEOUT).
# Outputs in build/vm-logs/69-wire-fuzz/: <phase>.fuzz (the fuzzer's
# lines and summary), <phase>.target (the target's), summary.txt.
# timeout: 1500
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip python3 timeout
TARGET=$SIW2_PROGS/siw2_fuzz_target
[[ -x $TARGET ]] || fail "siw2_fuzz_target not built (run make)"

seed=${SIW2_FUZZ_SEED:-} nf=${SIW2_FUZZ_FPDU:-} nh=${SIW2_FUZZ_HS:-}
ni=${SIW2_FUZZ_INJECT:-} phases=${SIW2_FUZZ_PHASES:-}
for w in $(</proc/cmdline); do
	case $w in
	siw2_fuzz_seed=*) [[ -n $seed ]] || seed=${w#*=} ;;
	siw2_fuzz_fpdu=*) [[ -n $nf ]] || nf=${w#*=} ;;
	siw2_fuzz_hs=*) [[ -n $nh ]] || nh=${w#*=} ;;
	siw2_fuzz_inject=*) [[ -n $ni ]] || ni=${w#*=} ;;
	siw2_fuzz_phases=*) [[ -n $phases ]] || phases=${w#*=} ;;
	esac
done
seed=${seed:-$(( (RANDOM << 15 | RANDOM) + 1 ))} nf=${nf:-6000} nh=${nh:-600}
ni=${ni:-6000} phases=${phases:-fpdu-init,fpdu-resp,hs-init,hs-resp,fpdu-inject}
FUZZ_KO=$SIW2_TOP/build/fuzz-module/drivers/siw2/siw2.ko
[[ ,$phases, != *,fpdu-inject,* || -f $FUZZ_KO ]] ||
	fail "no $FUZZ_KO for fpdu-inject (tools/build-fuzz-module.sh builds it)"
REPEAT="SIW2_VM_APPEND=siw2_fuzz_seed=$seed tests/vm/run.sh ${0#"$SIW2_TOP"/}"
log "seed $seed, $nf FPDU cases and $nh handshake cases per phase, $ni injected: $phases (repeat: $REPEAT)"

R=$SIW2_RESULTS
FUZZ=(python3 -S "$SIW2_TOP/tests/fuzz/wire_fuzz.py")
"${FUZZ[@]}" selftest >"$R/selftest.out" 2>&1 ||
	{ cat "$R/selftest.out"; fail "wire_fuzz.py selftest"; }

siw2_load
cm_ns_pair fa fb 13
siw2_link_add fa s2f fa-v || fail "rdma link add s2f"
wait_port_active s2f || fail "s2f port not ACTIVE"
P=/sys/module/siw2/parameters
FAILED=()
: >"$R/summary.txt"

# A connection the target finds stuck (HANG) is shown as the kernel sees
# it before the target ends it: siw2's endpoints and the sockets.
export SIW2_FUZZ_HANG_CMD='{ cat /sys/kernel/debug/siw2/*/connections; ss -tnie; } 2>&1 | sed "s/^/  hang| /"'

# phase NAME MODE ROLE CASES [TARGET-ARGS]: one target, one fuzzer run.
# ROLE init: the target listens, the fuzzer connects.  ROLE resp: the
# fuzzer listens first, then the target starts connecting.
phase() {
	local name=$1 mode=$2 role=$3 n=$4 t0=${EPOCHREALTIME/./} tpid fpid rc trc
	local fargs=(--connect 198.18.13.1:7900) sum done_line
	shift 4
	[[ $role == resp ]] && fargs=(--listen 198.18.13.2:7901)
	[[ $role == inject ]] && fargs=(--inject 198.18.13.1:7900 --jobs 2)
	: >"$R/$name.target"
	if [[ $role == init || $role == inject ]]; then
		ip netns exec fa "$TARGET" "--${role/init/listen}" 198.18.13.1:7900 "$@" \
			>"$R/$name.target" 2>&1 &
		tpid=$!
		wait_until 30 grep -q '^READY' "$R/$name.target" ||
			FAILED+=("$name: the target is not READY")
	fi
	ip netns exec fb timeout $((n / 4 + 600)) "${FUZZ[@]}" "$mode" "${fargs[@]}" \
		--target-out "$R/$name.target" --seed "$seed" --cases "$n" \
		>"$R/$name.fuzz" 2>&1 &
	fpid=$!
	if [[ $role == resp ]]; then
		wait_until 60 grep -q '^LISTENING' "$R/$name.fuzz" ||
			{ FAILED+=("$name: the fuzzer does not listen"); }
		ip netns exec fa "$TARGET" --connect 198.18.13.2:7901 --conns 100000000 "$@" \
			>"$R/$name.target" 2>&1 &
		tpid=$!
	fi
	wait "$fpid"
	rc=$?
	kill -TERM "$tpid" 2>/dev/null
	wait_until 30 eval "! kill -0 $tpid 2>/dev/null" || kill -KILL "$tpid"
	wait "$tpid"
	trc=$?
	grep -E '^(FAIL|STOP)' "$R/$name.fuzz" | head -20 | cut -c1-300 | sed "s/^/  $name| /"
	grep -E '^(FAIL|HANG|BUSY|  hang\|)' "$R/$name.target" | head -60 | sed "s/^/  $name target| /"
	sum=$(grep '^FUZZ ' "$R/$name.fuzz")
	done_line=$(grep '^DONE ' "$R/$name.target")
	log "$name: fuzzer rc $rc, target rc $trc, $(( (${EPOCHREALTIME/./} - t0) / 1000000 )) s"
	log "  $sum"
	log "  target: $done_line"
	echo "$name rc=$rc target_rc=$trc $sum | $done_line" >>"$R/summary.txt"
	[[ -n $sum ]] || { tail -20 "$R/$name.fuzz"; FAILED+=("$name: no summary (rc $rc)"); return; }
	(( rc == 0 )) || FAILED+=("$name: fuzzer rc $rc")
	[[ -n $done_line ]] || FAILED+=("$name: target did not finish")
	[[ $done_line == *" hang=0"* && $done_line == *" guard_fail=0"* ]] ||
		FAILED+=("$name: target $done_line")
}

# run_phase PH: one phase by name (module parameters it needs set).
run_phase() {
	case $1 in
	fpdu-init) phase "$1" fpdu init "$nf" ;;
	fpdu-resp)
		# Half without, half with peer-to-peer (siw2 then sends an
		# RTR); the parameter only shapes the Initiator's Request, so
		# the other lane is not affected.
		echo off >"$P/peer_to_peer"
		phase "$1-nop2p" fpdu resp $((nf / 2))
		echo on >"$P/peer_to_peer"
		phase "$1-p2p" fpdu resp $((nf - nf / 2))
		;;
	hs-init) phase "$1" handshake init "$nh" ;;
	hs-resp)
		echo on >"$P/peer_to_peer"
		phase "$1" handshake resp "$nh"
		;;
	fpdu-inject) phase "$1" fpdu inject "$ni" --slots 2 --fuzz-file "$dbg/siw2/s2f/fuzz" ;;
	*) echo "unknown phase $1" >"$R/lane.fail" ;;
	esac
}

# Two lanes at once, one per vCPU: siw2 as Responder (fa listens), siw2
# as Initiator (fa connects).  Handshakes that promise octets they never
# send wait for siw2's MPA timer: a short one keeps them from piling up.
# Stretched on a slower kernel: on the debug kernel a Request sent an
# octet at a time took longer than 2 s to arrive and was timed out.
echo $((2000 * ${SIW2_TIMEOUT_SCALE:-1})) >"$P/mpa_timeout_ms"
lane() {
	local ph
	for ph in ${phases//,/ }; do
		[[ $ph == *-$1 ]] && run_phase "$ph"
	done
	(( ${#FAILED[@]} )) && printf '%s; ' "${FAILED[@]}" >"$R/lane-$1.fail"
	return 0
}
rm -f "$R"/lane*.fail
lane init &
lane_a=$!
lane resp &
lane_b=$!
wait "$lane_a" "$lane_b"
for f in "$R"/lane*.fail; do
	[[ -e $f ]] && FAILED+=("$(<"$f")")
done
echo off >"$P/peer_to_peer"
echo 10000 >"$P/mpa_timeout_ms"

wait_until 30 cm_no_resources s2f ||
	{ rdma resource show; fail "rdma resources left on s2f"; }
siw2_link_del s2f || fail "link delete s2f"
siw2_assert_zero_counts
siw2_unload

# fpdu-inject: the same FPDU cases through the fuzz file, siw2 reloaded
# from the module built with SIW2_FUZZ=1; its own leak and unload checks.
if [[ ,$phases, == *,fpdu-inject,* ]]; then
	SIW2_KO=$FUZZ_KO siw2_load
	siw2_link_add fa s2f fa-v || fail "rdma link add s2f (fuzz module)"
	wait_port_active s2f || fail "s2f port not ACTIVE (fuzz module)"
	# "ip netns exec" mounts its own /sys: the target gets debugfs here.
	dbg=/run/siw2-debugfs
	mkdir -p "$dbg" && mount -t debugfs none "$dbg" || fail "mount debugfs on $dbg"
	[[ -e $dbg/siw2/s2f/fuzz ]] || fail "the fuzz module has no fuzz file"
	run_phase fpdu-inject
	umount "$dbg"
	wait_until 30 cm_no_resources s2f ||
		{ rdma resource show; fail "rdma resources left on s2f (fuzz module)"; }
	siw2_link_del s2f || fail "link delete s2f (fuzz module)"
	siw2_assert_zero_counts
	siw2_unload
fi
cat "$R/summary.txt"
(( ${#FAILED[@]} )) && fail "seed $seed (repeat: $REPEAT): $(printf '%s; ' "${FAILED[@]}")"
log "ok"
