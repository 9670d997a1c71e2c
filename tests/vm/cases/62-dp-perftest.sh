#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The data path under perftest (4.5+0.17, over rdma_cm: -R): ib_send_bw,
# ib_write_bw, ib_read_bw, ib_send_lat, ib_write_lat and ib_read_lat at
# 1 B, 64 B, 4 KiB, 64 KiB and 1 MiB, one QP, the server in namespace pa
# (198.18.10.1), the client in pb, joined by veth (MTU 1500: a message
# longer than one MSS becomes several FPDUs).  20 iterations (-n), 5 at
# 1 MiB.  Where siw2 is the Read Responder, ib_read_bw also runs for 4 s
# at 64 KiB (-D 4), which keeps the IRD full (128 Reads in flight), and
# ib_send_bw --use-srq at 64 B and 64 KiB (the receiver's SRQ).
# Pairs (server:client:tools; knob SIW2_DP_PAIRS, see below):
#   - siw2:siw2:all  every tool at every size;
#   - siw2:siw:bw    Linux siw client, siw2 server, the three bw tools: the
#                    client is the requester, so siw2 is the Send receiver,
#                    the Write target and the Read Responder;
#   - siw:siw2:lat   siw2 client, Linux siw server, the three lat tools:
#                    Send and Write ping-pong (siw2 sends and receives) and
#                    siw2 as the Read requester.
# With siw at one end each operation thus runs with siw2 in both roles;
# each tool runs in one direction (the runtime would double otherwise).
# Every pair runs siw2 with its default parameters, except mpa_crc
# (SIW2_DP_CRC): ib_write_lat's server writes first, which a siw2
# Responder may do because a siw2 client's MPA Request carries siw2's
# capability bits (no MPA fence, design.md "MPA fencing").  Towards a Linux
# siw client it may not: 67-perftest-defaults.sh shows that case.
#
# What perftest checks, and what this case adds: perftest 4.5 verifies no
# data for any of these tests (there is no validation option; the
# receiver of ib_send_bw does not look at the bytes; ib_write_lat waits
# until the last byte of each message holds the iteration number, so a
# lost Write, or its last byte, makes it hang).  So a run passes when
#   - both sides exit 0 within their time limit, and neither prints an
#     error ("error|fail|unable|couldn't|can't|invalid|not supported"; a
#     failing rdma_disconnect() counts too: "Failed to disconnect RDMA CM
#     connection. ERRNO: ...");
#   - the client prints its result line with the size and iteration count
#     asked for, every figure a finite number ("inf" or any other word
#     fails), and a nonzero result: MsgRate (and, from 4 KiB on, the
#     average bandwidth: below that it rounds to 0.00 MB/sec under TCG) for
#     bw, t_typical and t_avg for lat.  The server's result line is checked
#     the same way, except for ib_read_lat, whose server prints none;
#   - the bytes moved on the veth (pa-v's counters, read from
#     /proc/PID/net/dev of a process in pa) cover the payload at least
#     once in the direction of the data: client to server for Send and
#     Write bw, server to client for Read, both ways for the Send and
#     Write ping-pong.  This catches completions without data; the content
#     itself is checked by 61-dp-rping.sh (and the provider's own tests).
# Sizes: every tool accepts 1 B to 1 MiB on siw and siw2 (ib_read_* and
# the lat tests at 1 B too).  perftest disables inline data for both
# ("Device not recognized to implement inline feature"): not tested here.
#
# A failure is listed and the case goes on; the larger sizes of the same
# tool in the same pair are not run (a hang costs the client's 45 s), nor
# is anything started after SIW2_DP_BUDGET seconds of guest uptime
# (default 480, times SIW2_TIMEOUT_SCALE; the case's timeout is 600).  The case then fails, listing
# every failed and skipped run.  Outputs: build/vm-logs/62-dp-perftest/
# <pair>/<tool>-<size>.{s,c} (server and client, stdout and stderr) and
# summary.txt (one line per run: pair, tool, size, iterations, client and
# server results, time).
#
# Knobs (the harness does not pass the host's environment into the guest:
# put them on the kernel command line, which the guest's init exports,
# e.g. SIW2_VM_APPEND="SIW2_DP_PAIRS=siw SIW2_DP_SIZES=1,4096"; the case
# also reads them from /proc/cmdline):
#   SIW2_DP_PAIRS  comma or blank separated: SRV:CLI[:all|bw|lat] with
#                  drivers siw2/siw, or a preset: siw2 (the three pairs
#                  above, the default), siw (siw:siw:all, the baseline), all
#   SIW2_DP_SIZES  sizes in bytes, comma separated (default
#                  1,64,4096,65536,1048576)
#   SIW2_DP_CRC    siw2's mpa_crc during the case (default 0: CRC off with
#                  these peers; 1: CRC on everywhere siw2 is)
#   SIW2_DP_BUDGET guest uptime in seconds after which no run starts
#
# Facts (rdma-core 44, perftest 4.5+0.17, siw of 6.12.117, TCG guest):
#  - -R is needed on iWARP; the server listens on the wildcard address, so
#    Linux siw needs distinct veth ifindexes (lib-cm.sh cm_ns_pair);
#  - "-d DEV" on both sides: without it perftest opens the first device of
#    the list, which may be the other namespace's;
#  - readiness: the server's TCP listening socket (lib-peer.sh
#    wait_tcp_listen), polled without starting processes, not perftest's
#    "Waiting for client" banners (the first comes before any set-up);
#  - perftest calibrates its cycle counter against gettimeofday() at start
#    (200 samples, ~0.2 s of busy loop) and gives up below r^2 = 0.9
#    ("Correlation coefficient r^2: 0.88 < 0.9"), which happens under TCG
#    when the host is busy: the lat tools then print "inf" for every time,
#    the bw tools print "Can't produce a report" and exit 1 (their peer
#    then sees a flushed completion, status 5).  Such a run measured
#    nothing: it fails, and is not repeated;
#  - after the handshake on its first connection, the perftest client
#    connects the data QP at once, possibly before the server listens
#    again: REJECTED -111 (nothing listens).  perftest 4.5-0.17 then
#    retries with the cm ids it has just destroyed and crashes in
#    librdmacm (general protection fault; fixed upstream by 3d9d8d0,
#    "Fix crashes and logical flaws in RDMA CM connection retry", in
#    26.04).  A Linux siw client fails in rdma_connect itself instead
#    ("ERRNO: Connection refused").  Seen in CI with both, first with
#    Linux siw servers, later once with a siw2 server (ib_read_lat 64 B,
#    2026-11-26): a run whose client says exactly that while the server
#    reported no error is repeated once (logged, the first attempt kept
#    as .try1), whoever the server is;
#  - Linux siw's accept race (lib-peer.sh siw_rx_stalled): where siw is
#    the server, a run that hangs with unread bytes in the server's socket
#    is repeated once the same way;
#  - a run whose only fault is perftest's clock calibration (r^2 < 0.9,
#    no time base, seen at 1 MiB; a bw server that fails it exits 1 and
#    flushes its client, seen at 4 KiB) is repeated once the same way;
#  - any other failure of a siw2 <-> siw2 run fails the case at once
#    (lib-perftest.sh pt_run);
#  - siw <-> siw on this veth: about 4 ms per message round trip (one
#    jiffy at HZ=250) whatever the size up to 64 KiB, and 1 MiB Writes at
#    about 3 MB/s: TCG, not siw's speed; a run takes 3-6 s, mostly process
#    start and perftest's set-up.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"
source "$SIW2_TOP/tests/vm/lib-perftest.sh"

TOOLS_BW="ib_send_bw ib_write_bw ib_read_bw"
TOOLS_LAT="ib_send_lat ib_write_lat ib_read_lat"
# shellcheck disable=SC2086
need rdma ip stdbuf awk $TOOLS_BW $TOOLS_LAT

pairs_knob=$(knob SIW2_DP_PAIRS siw2)
SIZES=$(knob SIW2_DP_SIZES 1,64,4096,65536,1048576)
SIZES=${SIZES//,/ }
CRC=$(knob SIW2_DP_CRC 0)
# Stretched on a slower kernel, as the case's own timeout is (run.sh).
BUDGET=$(knob SIW2_DP_BUDGET $((480 * ${SIW2_TIMEOUT_SCALE:-1})))

PAIRS=()
for w in ${pairs_knob//,/ }; do
	case $w in
	siw2) PAIRS+=(siw2:siw2:all siw2:siw:bw siw:siw2:lat) ;;
	siw) PAIRS+=(siw:siw:all) ;;
	all) PAIRS+=(siw:siw:all siw2:siw2:all siw2:siw:bw siw:siw2:lat) ;;
	siw2:siw2 | siw2:siw | siw:siw2 | siw:siw) PAIRS+=("$w:all") ;;
	siw2:siw2:* | siw2:siw:* | siw:siw2:* | siw:siw:*)
		[[ ${w##*:} =~ ^(all|bw|lat)$ ]] || fail "SIW2_DP_PAIRS: bad tool set in '$w'"
		PAIRS+=("$w") ;;
	*) fail "SIW2_DP_PAIRS: unknown word '$w' (siw2, siw, all or SRV:CLI[:all|bw|lat])" ;;
	esac
done
# Each pair once (their outputs are named after them).
dp_uniq_pairs
log "pairs (server:client:tools): ${PAIRS[*]}"
want_siw2=0 want_siw=0
for p in "${PAIRS[@]}"; do
	p=${p%:*}
	[[ $p == *siw2* ]] && want_siw2=1
	[[ $p == siw:* || $p == *:siw ]] && want_siw=1
done

R=$SIW2_RESULTS
SRV=198.18.10.1
(( want_siw )) && siw_peer_load
if (( want_siw2 )); then
	siw2_load
	echo "$CRC" >/sys/module/siw2/parameters/mpa_crc || fail "mpa_crc=$CRC"
fi
cm_ns_pair pa pb 10

pt_start

for pair in "${PAIRS[@]}"; do
	set=${pair##*:} drv=${pair%:*}
	sd=${drv%:*} cd=${drv#*:}
	case $set in
	all) tools="$TOOLS_BW $TOOLS_LAT" ;;
	bw) tools=$TOOLS_BW ;;
	lat) tools=$TOOLS_LAT ;;
	esac
	dp_pair_devices "$sd" "$cd"
	log "pair $pair: server $DP_DEV_A (pa), client $DP_DEV_B (pb), sizes $SIZES"
	# Reads kept in flight for seconds fill siw2's IRD (perftest keeps
	# 128 outstanding): the IRD slot of a Response must be free by the
	# time the Requester can send its next Read (a race on veth).
	if [[ $sd == siw2 && $set != lat ]]; then
		if (( $(uptime_s) >= BUDGET )); then
			NOTRUN+=("$pair/ib_read_bw-65536-D4 (time budget)")
		else
			pt_run "$pair" ib_read_bw 65536 D4
		fi
	fi
	# The server's receives from a shared receive queue (ib_send_bw's
	# server only receives; the client's SRQ is idle).
	if [[ $sd == siw2 && $set != lat ]]; then
		PT_OPTS=(--use-srq) PT_TAG=srq
		for size in 64 65536; do
			if (( $(uptime_s) >= BUDGET )); then
				NOTRUN+=("$pair/ib_send_bw-$size-srq (time budget)")
			else
				pt_run "$pair" ib_send_bw "$size"
			fi
		done
		PT_OPTS=() PT_TAG=''
	fi
	for tool in $tools; do
		broken=''
		for size in $SIZES; do
			if [[ -n $broken ]]; then
				NOTRUN+=("$pair/$tool-$size (after $broken)")
			elif (( $(uptime_s) >= BUDGET )); then
				NOTRUN+=("$pair/$tool-$size (time budget: ${BUDGET} s of uptime)")
			else
				pt_run "$pair" "$tool" "$size" || broken="$tool-$size failed"
			fi
		done
	done
done
# --- teardown: devices, modules, leaks
pt_end
if (( want_siw2 )); then
	echo 0 >/sys/module/siw2/parameters/mpa_crc
	siw2_assert_zero_counts
	siw2_unload
fi
(( want_siw )) && siw_peer_unload

if (( ${#FAILED[@]} || ${#NOTRUN[@]} )); then
	printf 'failed: %s\n' "${FAILED[@]}" >&2
	(( ${#NOTRUN[@]} )) && printf 'not run: %s\n' "${NOTRUN[@]}" >&2
	fail "${#FAILED[@]} of $runs perftest runs failed, ${#NOTRUN[@]} not run"
fi
log "ok: $runs perftest runs"
