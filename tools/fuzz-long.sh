#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/fuzz-long.sh [--seed S] [--fpdu N] [--hs N] [--phases LIST]
#                    [--kver KVER] [--hours H] [--jobs J] [--inject]
#
# A long run of the wire fuzzer (tests/fuzz/README.md): the fuzzer runs on
# the host at native speed, siw2 and tests/progs/siw2_fuzz_target in a
# QEMU guest (tests/fuzz/long-guest.sh) whose user-mode NIC forwards a
# port of the host's loopback to it; nothing leaves this machine.  Under
# TCG the guest side is then the only slow part.  Phases run one after the
# other: fpdu-init, fpdu-resp, fpdu-resp-p2p (N FPDU cases each, siw2 the
# MPA Responder, the Initiator, the Initiator asking for peer-to-peer),
# hs-init, hs-resp (N handshake cases each), and fpdu-inject (N FPDU
# cases through the fuzz file, below).
#   --inject      the phase fpdu-inject alone (unless --phases says more):
#                 the same FPDU cases without a TCP connection, MPA
#                 exchange and QP per connection (wire_fuzz.py --inject);
#                 HEAD is built with SIW2_FUZZ=1, the fuzz file's module,
#                 in build/inject/<kernel>/tree (never installed)
#   --kver KVER   the guest kernel, e.g. 6.12.117-siw2dbg (the debug kernel
#                 of tools/debug-kernel.sh) or 6.12.117-siw2cov (its
#                 coverage kernel); the module and programs must be built
#                 against it: tools/check-debug.sh [--coverage] --build-only
#                 builds build/debug/tree (build/coverage/tree), used then,
#                 with gcov counters the guest saves (tools/coverage.sh)
#   --hours H     the guest's time limit (default 12)
#   --jobs J      J connections at once (default 8, at most 32): J fuzzer processes
#                 (wire_fuzz.py --jobs), the target with room for 2J
# SIGTERM or Ctrl-C ends the run early and cleanly: the phase in progress
# stops after its current connection and prints its summary, later phases
# are skipped, the guest's checks still run.
# Output in build/fuzz-long/<date>/: <phase>.fuzz (the fuzzer),
# results/<phase>.target (the target), console, dmesg, summary.txt, and on
# a gcov kernel coverage/ (tools/coverage.sh: summary.txt, unreached.txt).
# Exit 0 when every phase passed and the guest's kernel log is clean.
# The guest runs with SIW2_VM_ACCEL=tcg,thread=multi unless that is set.
# As in tools/check-debug.sh, a report from the kernel's own boot (before
# the fuzz script started, so before siw2 was loaded: the debug kernel's
# KASAN report in handle_edge_irq under TCG is one) is shown, not counted.
#
# Unlike the VM case (69-wire-fuzz), the guest sees TCP segments as QEMU's
# user-mode stack cuts them, not as the fuzzer's send() calls did: the
# split/coalesce property is the VM case's to test.
set -u
seed=1 nf=100000 nh=10000 phases=fpdu-init,fpdu-resp,fpdu-resp-p2p,hs-init,hs-resp
kver= hours=12 jobs=8 inject=0
while [[ $# -gt 0 ]]; do
	case $1 in
	--seed) seed=$2; shift ;;
	--fpdu) nf=$2; shift ;;
	--hs) nh=$2; shift ;;
	--phases) phases=$2; shift ;;
	--kver) kver=$2; shift ;;
	--hours) hours=$2; shift ;;
	--jobs) jobs=$2; shift ;;
	--inject) inject=1 ;;
	*) sed -n '3,/^set -u/p' "$0" | sed 's/^# \{0,1\}//;/^set -u/d'; exit 2 ;;
	esac
	shift
done

[[ $jobs =~ ^[0-9]+$ ]] && (( jobs >= 1 && jobs <= 32 )) ||
	{ echo "fuzz-long: --jobs takes 1 to 32" >&2; exit 2; }
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tree=$TOP
if [[ -n $kver ]]; then
	export SIW2_VM_KVER=$kver SIW2_VM_TIMEOUT_SCALE=4
	[[ $kver == *siw2dbg* ]] && tree=$TOP/build/debug/tree
	[[ $kver == *siw2cov* ]] && tree=$TOP/build/coverage/tree SIW2_VM_TIMEOUT_SCALE=2
	(( inject )) || [[ -f $tree/drivers/siw2/siw2.ko ]] ||
		{ echo "fuzz-long: no module built for $kver in $tree (tools/check-debug.sh builds it)" >&2; exit 1; }
fi
if (( inject )); then
	[[ $phases == *fpdu-inject* ]] || phases=fpdu-inject
	tree=$TOP/build/inject/${kver:-default}/tree
	kdir=()
	[[ -n $kver ]] && kdir=(KDIR="/lib/modules/$kver/build")
	# Gcov counters where the kernel has them (the coverage kernel).
	rm -rf "$tree" && mkdir -p "$tree" || exit 1
	git -C "$TOP" archive HEAD | tar -x -C "$tree" || exit 1
	echo "fuzz-long: building HEAD with SIW2_FUZZ=1 in $tree"
	make -C "$tree" "${kdir[@]}" SIW2_FUZZ=1 SIW2_GCOV=1 all >"$tree/../build.log" 2>&1 ||
		{ tail -20 "$tree/../build.log"; echo "fuzz-long: build failed" >&2; exit 1; }
fi
export SIW2_TOP=$tree
# shellcheck source=tests/vm/vm.sh
source "$tree/tests/vm/vm.sh"

out=$TOP/build/fuzz-long/$(date +%Y%m%d-%H%M%S)
res=$out/vm
mkdir -p "$res/results"
p_init=$((17000 + RANDOM % 1000)) p_resp=$((18000 + RANDOM % 1000))
export SIW2_VM_NIC="user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$p_init-10.0.2.15:7900"
export SIW2_VM_APPEND="siw2_fuzz_phases=$phases siw2_fuzz_port=$p_resp siw2_fuzz_jobs=$jobs ${SIW2_VM_APPEND:-}"
export SIW2_TIMEOUT_SCALE=${SIW2_VM_TIMEOUT_SCALE:-1}
# A host thread per vCPU: 2 to 4 times the cases per second of the
# suite's thread=single here (tests/vm/vm.sh has the early-boot reason the
# suite keeps thread=single).
export SIW2_VM_ACCEL=${SIW2_VM_ACCEL:-tcg,thread=multi}
echo "fuzz-long: seed $seed, $nf FPDU and $nh handshake cases per phase ($phases), $jobs at once, in $out"
vm_boot "$res" $((hours * 3600)) "$out/console" run "$tree/tests/fuzz/long-guest.sh" &
vmpid=$!
R=$res/results
# Debian's python3, whose python3-crc32c (tools/install-deps.sh debug)
# takes the CRCs off the fuzzer's critical path.
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
FUZZ=("$py" "$TOP/tests/fuzz/wire_fuzz.py")
echo "fuzz-long: fuzzer CRC32c in $("$py" -c "import sys; sys.path.insert(0, '$TOP/tests/progs'); import mpa_peer; print(mpa_peer.CRC32C_IMPL)")"
failed=0
t_all=$EPOCHSECONDS
# SIGTERM or Ctrl-C: the running phase ends after its connection in
# progress (with its summary), the rest are skipped, and the guest still
# tears down and checks as usual.
stopping=0 fpid=
trap 'stopping=1; [[ -n $fpid ]] && kill -TERM "$fpid" 2>/dev/null' TERM INT

# until_file FILE: wait for the guest (false if the guest is gone).
until_file() {
	while [[ ! -e $1 ]]; do
		kill -0 "$vmpid" 2>/dev/null || return 1
		sleep 1
	done
}

for ph in ${phases//,/ }; do
	mode=fpdu n=$nf
	[[ $ph == hs-* ]] && mode=handshake n=$nh
	until_file "$R/$ph.ready" || { echo "fuzz-long: the guest ended before $ph"; failed=1; break; }
	t0=$EPOCHSECONDS
	if (( stopping )); then
		: >"$R/$ph.go"
		: >"$R/$ph.done"
		continue
	fi
	if [[ $ph == *-init* || $ph == *-inject ]]; then
		how=--connect
		[[ $ph == *-inject ]] && how=--inject
		"${FUZZ[@]}" "$mode" --jobs "$jobs" "$how" "127.0.0.1:$p_init" --target-out "$R/$ph.target" \
			--seed "$seed" --cases "$n" >"$out/$ph.fuzz" 2>&1 &
		fpid=$!
		wait "$fpid"
		rc=$?
		# A signal to us interrupts wait: the fuzzer then ends its
		# connection in progress and prints its summary.
		kill -0 "$fpid" 2>/dev/null && { wait "$fpid"; rc=$?; }
	else
		"${FUZZ[@]}" "$mode" --jobs "$jobs" --listen "127.0.0.1:$p_resp" --target-out "$R/$ph.target" \
			--seed "$seed" --cases "$n" >"$out/$ph.fuzz" 2>&1 &
		fpid=$!
		while ! grep -q '^LISTENING' "$out/$ph.fuzz" 2>/dev/null; do
			kill -0 "$fpid" 2>/dev/null || break
			sleep 0.2
		done
		: >"$R/$ph.go"
		wait "$fpid"
		rc=$?
		kill -0 "$fpid" 2>/dev/null && { wait "$fpid"; rc=$?; }
	fi
	fpid=
	: >"$R/$ph.done"
	(( rc == 0 )) || failed=1
	line="$ph rc=$rc $(( EPOCHSECONDS - t0 ))s $(grep '^FUZZ ' "$out/$ph.fuzz") retries=$(grep -c '^RETRY' "$out/$ph.fuzz")"
	echo "fuzz-long: $line"
	echo "$line" >>"$out/summary.txt"
	grep -E '^(FAIL|STOP)' "$out/$ph.fuzz" | head -10
done
wait "$vmpid"
vrc=$?
[[ -f $res/dmesg ]] && cp "$res/dmesg" "$out/dmesg"
grc=$(cat "$res/rc" 2>/dev/null)
# klog case|boot: the reports of the guest's kernel log and console from
# the fuzz script's start on, or before it (vm.sh's klog_part; a file
# without that start counts whole).
klog() {
	local f
	for f in "$out/dmesg" "$out/console"; do
		if [[ -f $f ]] && ! grep -q 'siw2-vm: running' "$f"; then
			[[ $1 == case ]] && klog_part all "$f"
		else
			klog_part "$1" "$f"
		fi
	done | grep -Ev "$KLOG_USER" | grep -E -m3 "$KLOG_BAD"
}
bad=$(klog case)
boot_bad=$(klog boot)
echo "fuzz-long: guest rc ${grc:-none} (QEMU $vrc), $(( EPOCHSECONDS - t_all ))s in all"
[[ -n $boot_bad ]] && echo "fuzz-long: the kernel's boot, before siw2 (shown, not counted): $boot_bad"
[[ -n $bad ]] && { echo "fuzz-long: kernel log: $bad"; failed=1; }
[[ $grc == 0 ]] || { tail -5 "$res/out" 2>/dev/null; failed=1; }
# The counters fit this build only (--inject rebuilds its tree each run):
# the run's coverage now, where the kernel kept counters (a gcov kernel).
if [[ -d $R/gcov ]] && command -v lcov >/dev/null; then
	"$TOP/tools/coverage.sh" --tree "$tree" --out "$out/coverage" "$res" 2>&1 | tail -2 |
		tee -a "$out/summary.txt"
fi
echo "kernel=${kver:-default} guest_rc=${grc:-none} klog=${bad:+BAD}${bad:-clean}${boot_bad:+ (a boot-time report, before siw2: shown above)}" >>"$out/summary.txt"
exit "$failed"
