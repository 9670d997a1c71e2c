# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# Guest side of "make bench" (tools/bench.sh boots it with tests/vm/vm.sh's
# vm_boot).  Not a test case: it never fails on slow numbers, it only
# measures and records.  A driver that cannot be loaded or whose runs fail
# is recorded as failed and the bench goes on with the next driver.
#
# Input:  $SIW2_RESULTS/bench.conf (written by tools/bench.sh): BENCH_REPEATS,
#         BENCH_DURATION, BENCH_SIZES, BENCH_LAT_SIZE, BENCH_LAT_ITERS,
#         BENCH_DRIVERS, BENCH_MTU, BENCH_MAX_FAIL, BENCH_TESTS, BENCH_ROUNDS,
#         BENCH_MQP, BENCH_ATOMIC, BENCH_NFS, BENCH_NFS_MIB, BENCH_MANYQP,
#         BENCH_NVME, BENCH_NVME_MIB.
#         A driver "siw2@NAME" is siw2 built from another tree
#         (tools/bench-ab.sh): its module and provider are taken from
#         $SIW2_TOP/build/ab/NAME/.
# Output: $SIW2_RESULTS/runs.tsv   one line per run (see RUN_HDR below)
#         $SIW2_RESULTS/raw/       every program's stdout+stderr
#         $SIW2_RESULTS/info.txt   guest facts (kernel, tools, topology)
#
# Paths (both veth pairs get BENCH_MTU):
#   nspair  namespaces bench_a (server, 198.18.7.1/24 on bench_a-v) and
#           bench_b (client, 198.18.7.2/24 on bench_b-v) joined by one veth
#           pair; used by siw, siw2 and TCP.  The two veth ends get distinct
#           ifindexes (30, 31): Linux siw binds a wildcard listener to its
#           netdev's ifindex inside the listener's namespace, so with equal
#           ifindexes (what "ip link add ... netns" gives both ends) the
#           listeners of siw_a and siw_b collide (cma_listen_on_dev error
#           -98) and perftest's wildcard rdma_listen fails.
#   initns  rdma_rxe of 6.12 opens its UDP socket in the initial namespace
#           only, so both rxe devices sit on the two ends of one veth pair
#           in the initial namespace: brx-a (server, 198.18.8.1/32, rxe_a)
#           and brx-b (client, 198.18.8.2/32, rxe_b).  Both addresses are
#           local, so policy routing keeps the traffic on the veth instead of
#           the loopback shortcut: rules before the "local" table (moved from
#           priority 0 to 100) send locally generated packets (iif lo) and
#           lookups bound to the veth (oif, as rxe and rdma_cm's netdev check
#           do) for the peer's address out of the local veth end; received
#           packets still hit the local table; accept_local=1 lets a packet
#           whose source address is local in (rp_filter 0); neighbours are
#           static.  TCP is measured on this path too (tcp-initns) to show
#           the two paths carry TCP alike.
set -u
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-nfs.sh"
source "$SIW2_TOP/tests/vm/lib-nvme.sh"

OUT=$SIW2_RESULTS
RAW=$OUT/raw
TSV=$OUT/runs.tsv
INFO=$OUT/info.txt
mkdir -p "$RAW"

BENCH_REPEATS=3 BENCH_DURATION=3 BENCH_SIZES="64 4096 65536 1048576"
BENCH_LAT_SIZE=64 BENCH_LAT_ITERS=1000 BENCH_DRIVERS="tcp siw rxe siw2 siw2-syscalls nfs nvme"
BENCH_MTU=1500 BENCH_MAX_FAIL=3 BENCH_ROUNDS=1
BENCH_NFS="tcp siw2 siw" BENCH_NFS_MIB=256 BENCH_MANYQP=1000
BENCH_NVME="tcp siw2 siw" BENCH_NVME_MIB=256
BENCH_ATOMIC="ib_atomic_lat-fa:8 ib_atomic_lat-cs:8 ib_read_lat:8 ib_atomic_bw-fa:8 ib_atomic_bw-cs:8 ib_read_bw:8"
BENCH_MQP="ib_write_bw-q4:65536 ib_write_bw-q16:65536 ib_write_bw-p2:65536 ib_write_bw-q4:64 ib_write_bw-q16:64"
BENCH_TESTS="ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat"
# shellcheck source=/dev/null
[[ -f $OUT/bench.conf ]] && source "$OUT/bench.conf"
REPS=$BENCH_REPEATS D=$BENCH_DURATION
# Repeat numbers of the current round: REP0 + 1 .. REP0 + REPS.
REP0=0

NS_A=bench_a NS_B=bench_b
NSP_SRV=198.18.7.1 NSP_CLI=198.18.7.2
INI_A=brx-a INI_B=brx-b
INI_SRV=198.18.8.1 INI_CLI=198.18.8.2

BW_TESTS='' LAT_TESTS=''
for t in $BENCH_TESTS; do
	case $t in
	ib_*_bw) BW_TESTS+=" $t" ;;
	ib_*_lat) LAT_TESTS+=" $t" ;;
	esac
done

# runs.tsv: one line per run.  value: Gbit/s (bw, iperf3) or usec (lat:
# perftest t_typical = median; sockperf: median of RTT/2).  extra: bw: the
# message rate in Mmsg/s; lat: "avg=..,p99=..".  note: calibration warnings
# and the like.
RUN_HDR="driver	path	test	size	rep	status	value	extra	secs	log	note"
[[ -f $TSV ]] || echo "$RUN_HDR" >"$TSV"

say() { log "$*"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }

record() {		# record DRIVER PATH TEST SIZE REP STATUS VALUE EXTRA SECS LOG NOTE
	local IFS=$'\t'
	echo "$*" >>"$TSV"
}

# bg_start NS LOG CMD...: CMD in namespace NS ("-" = initial) in the
# background under timeout(1); BG_PID is the timeout process (ip netns exec
# execs it), so a kill reaches the program.
BG_PID=
bg_start() {
	local ns=$1 logf=$2
	shift 2
	if [[ $ns == - ]]; then
		timeout "$@" >"$logf" 2>&1 &
	else
		ip netns exec "$ns" timeout "$@" >"$logf" 2>&1 &
	fi
	BG_PID=$!
}
bg_stop() {		# bg_stop [GRACE]: wait GRACE s (default 0) for it, then kill
	[[ -n $BG_PID ]] || return 0
	wait_until "${1:-0}" eval "! kill -0 $BG_PID 2>/dev/null" ||
		kill "$BG_PID" 2>/dev/null
	wait "$BG_PID" 2>/dev/null
	BG_PID=
}
trap 'bg_stop' EXIT

# bench_tcp_listening PID PORT: the network namespace of process PID has a
# TCP socket listening on PORT.  Bash builtins only: under TCG a process
# start costs ~0.1 s of guest CPU, and polling with ss slowed down the very
# server it waited for.
bench_tcp_listening() {
	local hex f laddr st
	printf -v hex ':%04X' "$2"
	for f in "/proc/$1/net/tcp" "/proc/$1/net/tcp6"; do
		[[ -r $f ]] || continue
		while read -r _ laddr _ st _; do
			[[ $st == 0A && $laddr == *"$hex" ]] && return 0
		done <"$f"
	done 2>/dev/null
	return 1
}

# --- topologies --------------------------------------------------------

nspair_up() {
	local ns
	ip netns add $NS_A && ip netns add $NS_B || return 1
	ip link add $NS_A-v index 30 netns $NS_A mtu "$BENCH_MTU" type veth \
		peer name $NS_B-v index 31 netns $NS_B mtu "$BENCH_MTU" || return 1
	ip -n $NS_A addr add $NSP_SRV/24 dev $NS_A-v || return 1
	ip -n $NS_B addr add $NSP_CLI/24 dev $NS_B-v || return 1
	for ns in $NS_A $NS_B; do
		ip -n "$ns" link set lo up && ip -n "$ns" link set "$ns-v" up || return 1
	done
	wait_until 10 eval "ip -n $NS_A link show $NS_A-v | grep -q LOWER_UP &&
		ip -n $NS_B link show $NS_B-v | grep -q LOWER_UP"
}

INI_RULES=(
	"pref 10 iif lo to $INI_SRV lookup 181"
	"pref 11 oif $INI_B to $INI_SRV lookup 181"
	"pref 12 iif lo to $INI_CLI lookup 182"
	"pref 13 oif $INI_A to $INI_CLI lookup 182"
)
initns_up() {
	local d r
	ip link add $INI_A mtu "$BENCH_MTU" type veth peer name $INI_B mtu "$BENCH_MTU" || return 1
	ip addr add $INI_SRV/32 dev $INI_A && ip addr add $INI_CLI/32 dev $INI_B || return 1
	ip link set $INI_A up && ip link set $INI_B up || return 1
	ip route add $INI_SRV/32 dev $INI_B src $INI_CLI table 181 || return 1
	ip route add $INI_CLI/32 dev $INI_A src $INI_SRV table 182 || return 1
	for r in "${INI_RULES[@]}"; do
		# shellcheck disable=SC2086
		ip rule add $r || return 1
	done
	ip rule add pref 100 lookup local && ip rule del pref 0 lookup local || return 1
	for d in all default $INI_A $INI_B; do
		sysctl -qw "net.ipv4.conf.$d.accept_local=1" "net.ipv4.conf.$d.rp_filter=0" || return 1
	done
	ip neigh replace $INI_SRV lladdr "$(cat /sys/class/net/$INI_A/address)" \
		dev $INI_B nud permanent || return 1
	ip neigh replace $INI_CLI lladdr "$(cat /sys/class/net/$INI_B/address)" \
		dev $INI_A nud permanent || return 1
	wait_until 10 eval "ip link show $INI_A | grep -q LOWER_UP &&
		ip link show $INI_B | grep -q LOWER_UP" || return 1
	# The proof that nothing takes the loopback shortcut.
	ip route get $INI_SRV | grep -q "dev $INI_B" &&
		ip route get $INI_CLI | grep -q "dev $INI_A"
}
initns_down() {
	local r d
	ip rule add pref 0 lookup local 2>/dev/null
	ip rule del pref 100 lookup local 2>/dev/null
	for r in "${INI_RULES[@]}"; do
		# shellcheck disable=SC2086
		ip rule del $r 2>/dev/null
	done
	ip route flush table 181 2>/dev/null
	ip route flush table 182 2>/dev/null
	ip link del $INI_A 2>/dev/null
	for d in all default; do
		sysctl -qw net.ipv4.conf.$d.accept_local=0 2>/dev/null
	done
	return 0
}

# Byte counters of a netdev: "rx tx".
dev_bytes() {
	in_ns "$1" cat "/sys/class/net/$2/statistics/rx_bytes" "/sys/class/net/$2/statistics/tx_bytes" |
		tr '\n' ' '
}

# --- perftest ----------------------------------------------------------

PORT=21000

# cpu_ticks: guest CPU time spent so far in all but idle, iowait and
# steal (user, nice, system, irq, softirq), in USER_HZ ticks.
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat; }

# net_bytes NS: rx + tx octets of the client's end of the path (NS "-":
# the initial-namespace path's $INI_B, else NS's NS-v).
net_bytes() {
	local dev=$1-v
	[[ $1 == - ]] && dev=$INI_B
	in_ns "$1" cat "/sys/class/net/$dev/statistics/rx_bytes" \
		"/sys/class/net/$dev/statistics/tx_bytes" |
		awk '{ n += $1 } END { printf "%.0f\n", n }'	# %.0f: mawk prints 5.8e+09
}

# cpu_per_gib TICKS0 TICKS1 BYTES0 BYTES1: CPU seconds per GiB carried.
cpu_per_gib() {
	awk -v t="$(($2 - $1))" -v b="$(($4 - $3))" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { if (b > 0) printf "%.3f", t / hz / (b / 1073741824) }'
}

# pt_attempt TEST SIZE SRVNS CLINS SRVDEV CLIDEV ADDR BASE: one perftest
# client/server run on fresh ports, output in $RAW/BASE.{cli,srv}[.K].
# TEST may carry a suffix: TOOL-qN runs TOOL with N QPs (-q N), TOOL-pN
# runs N server/client pairs at once (the value is their sum), TOOL-fa
# and TOOL-cs are ib_atomic_* with FETCH_AND_ADD or CMP_AND_SWAP.  Sets
# A_STATUS (ok, timeout, rcN, nolisten, noresult), A_VALUE, A_EXTRA (bw:
# message rate, then ",cpu=" guest CPU seconds per GiB carried, both ends
# together: over veth in one guest neither side's share can be told
# apart), A_NOTE.
pt_attempt() {
	local test=$1 size=$2 sns=$3 cns=$4 sdev=$5 cdev=$6 addr=$7 base=$8
	local tool=${1%%-*} var='' procs=1 k tmo crc line f t0=$EPOCHREALTIME t1 t2
	local c0 c1 n0 n1 sum=0 rate=0
	local -a args fields spids=() cpids=() ports=()
	A_STATUS=ok A_VALUE='' A_EXTRA='' A_TIMES=''
	[[ $test == *-* ]] && var=${test#*-}
	args=(-R -F -s "$size")
	# perftest's atomic tools move 8 octets and take no size.
	[[ $tool == ib_atomic_* ]] && args=(-R -F)
	case $var in
	q*) args+=(-q "${var#q}") ;;
	p*) procs=${var#p} ;;
	fa) args+=(-A FETCH_AND_ADD) ;;
	cs) args+=(-A CMP_AND_SWAP) ;;
	esac
	if [[ $tool == *_bw ]]; then
		args+=(-D "$D" -f 1 --report_gbits)
		tmo=$((3 * D + 40))
	else
		args+=(-n "$BENCH_LAT_ITERS")
		tmo=60
	fi
	for ((k = 0; k < procs; k++)); do
		PORT=$((PORT + 1))
		ports+=("$PORT")
		bg_start "$sns" "$RAW/$base.srv${k/#0/}" $((tmo + 30)) stdbuf -oL "$tool" \
			"${args[@]}" -p "$PORT" -d "$sdev"
		spids+=("$BG_PID")
	done
	# iWARP: the rdma_cm id shows LISTEN before the driver's TCP socket
	# listens; wait for the socket (in the server's namespace for siw and
	# siw2).  RoCE (rxe) has no socket: the id is the listener.
	for ((k = 0; k < procs; k++)); do
		if [[ $sns == - ]]; then
			wait_cm_listen "${ports[k]}" 20 && continue
		else
			wait_until 20 bench_tcp_listening "${spids[k]}" "${ports[k]}" && continue
		fi
		A_STATUS=nolisten
		kill "${spids[@]}" 2>/dev/null
		wait "${spids[@]}" 2>/dev/null
		BG_PID=
		return
	done
	t1=$EPOCHREALTIME
	c0=$(cpu_ticks) n0=$(net_bytes "$cns")
	for ((k = 0; k < procs; k++)); do
		in_ns "$cns" timeout "$tmo" stdbuf -oL "$tool" "${args[@]}" -p "${ports[k]}" \
			-d "$cdev" "$addr" >"$RAW/$base.cli${k/#0/}" 2>&1 &
		cpids+=($!)
	done
	crc=0
	for k in "${cpids[@]}"; do
		wait "$k"
		f=$?
		(( f != 0 && crc == 0 )) && crc=$f
	done
	c1=$(cpu_ticks) n1=$(net_bytes "$cns")
	t2=$EPOCHREALTIME
	for ((k = 0; k < procs; k++)); do
		BG_PID=${spids[k]}
		bg_stop 15
	done
	A_TIMES="server start $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, client $(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", b - a }') s"
	if (( crc == 124 )); then
		A_STATUS=timeout
	elif (( crc != 0 )); then
		A_STATUS=rc$crc
	fi
	[[ $A_STATUS == ok ]] || return
	for ((k = 0; k < procs; k++)); do
		f=$RAW/$base.cli${k/#0/}
		# perftest converts CPU cycles to time with a clock rate it
		# measures at start; on a busy host that measurement fails
		# ("Correlation coefficient r^2 < 0.9"), the fallback rate can be
		# far off (bandwidth 0.000000 was seen), so such a run counts as
		# failed (and is retried).
		if grep -q 'Correlation coefficient' "$f"; then
			A_STATUS=calibration
			return
		fi
		# The result line: first field the size, second the iteration count.
		line=$(awk -v s="$size" '$1 == s && $2 ~ /^[0-9]+$/ { print; exit }' "$f")
		if [[ -z $line ]]; then
			A_STATUS=noresult
			return
		fi
		if [[ $tool == *_bw ]]; then
			# bytes iters peak average msgrate
			read -r _ _ _ A_VALUE A_EXTRA _ <<<"$line"
			sum=$(awk -v a="$sum" -v b="$A_VALUE" 'BEGIN { print a + b }')
			rate=$(awk -v a="$rate" -v b="$A_EXTRA" 'BEGIN { print a + b }')
		else
			# bytes iters t_min t_max t_typical t_avg t_stdev p99 p99.9
			read -r -a fields <<<"$line"
			A_VALUE=${fields[4]} A_EXTRA="avg=${fields[5]},p99=${fields[7]}"
		fi
	done
	if [[ $tool == *_bw ]]; then
		A_VALUE=$sum A_EXTRA=$rate
		f=$(cpu_per_gib "$c0" "$c1" "$n0" "$n1")
		[[ -n $f ]] && A_EXTRA+=",cpu=$f"
	fi
	awk -v v="$A_VALUE" 'BEGIN { exit !(v + 0 > 0) }' || A_STATUS=zero
}

# pt_run DRIVER PATH TEST SIZE REP SRVNS CLINS SRVDEV CLIDEV ADDR: one
# measurement, recorded in runs.tsv; a run that failed fast (not a
# timeout) is tried once more, on a new port.  Returns 0 if it produced a
# number.
pt_run() {
	local drv=$1 path=$2 test=$3 size=$4 rep=$5 base t0 note unit=us
	shift 5
	base=$drv-$test-$size-r$rep
	t0=$EPOCHREALTIME
	pt_attempt "$test" "$size" "$@" "$base"
	note=''
	if [[ $A_STATUS != ok && $A_STATUS != timeout ]]; then
		say "$drv $test $size B rep $rep: $A_STATUS, trying once more"
		note="attempt 1: $A_STATUS"
		base+=-a2
		pt_attempt "$test" "$size" "$@" "$base"
	fi
	record "$drv" "$path" "$test" "$size" "$rep" "$A_STATUS" "$A_VALUE" "$A_EXTRA" \
		"$(elapsed "$t0")" "raw/$base.cli" "$note"
	[[ ${test%%-*} == *_bw ]] && unit=Gbit/s
	say "$drv $test $size B rep $rep: $A_STATUS${A_VALUE:+ $A_VALUE $unit} ($A_TIMES)"
	[[ $A_STATUS == ok ]]
}

# pt_driver DRIVER PATH SRVNS CLINS SRVDEV CLIDEV ADDR: every perftest
# configuration, BENCH_REPEATS times (repeat-major order, so that slow
# phases of a noisy host spread over all configurations).  A configuration
# that fails is not repeated; after BENCH_MAX_FAIL consecutive failed
# configurations the driver's remaining runs are skipped.
pt_driver() {
	local drv=$1 path=$2 rep cfg test size consec=0 broken=
	shift 2
	local -a cfgs=()
	local -A failed=()
	for test in $BW_TESTS; do
		for size in $BENCH_SIZES; do cfgs+=("$test:$size"); done
	done
	for test in $LAT_TESTS; do cfgs+=("$test:$BENCH_LAT_SIZE"); done
	for cfg in $BENCH_MQP; do cfgs+=("$cfg"); done
	# Atomics where the device has them (Linux siw has none).
	[[ $drv == siw2* || $drv == rxe ]] && for cfg in $BENCH_ATOMIC; do cfgs+=("$cfg"); done
	for ((rep = REP0 + 1; rep <= REP0 + REPS; rep++)); do
		for cfg in "${cfgs[@]}"; do
			test=${cfg%%:*} size=${cfg#*:}
			if [[ -n $broken || -n ${failed[$cfg]:-} ]]; then
				record "$drv" "$path" "$test" "$size" "$rep" skipped "" "" 0 "" \
					"${broken:-earlier repeat failed}"
				continue
			fi
			if pt_run "$drv" "$path" "$test" "$size" "$rep" "$@"; then
				consec=0
			else
				failed[$cfg]=1
				consec=$((consec + 1))
				if (( consec >= BENCH_MAX_FAIL )); then
					broken="$consec consecutive configurations failed"
					say "$drv: $broken, skipping the rest"
				fi
			fi
		done
	done
}

# kmem_kb: kernel memory that connected QPs hold, kB: unreclaimable slab,
# vmalloc (queues mapped to user space live there) and per-CPU areas.
kmem_kb() {
	awk '$1 == "SUnreclaim:" || $1 == "VmallocUsed:" || $1 == "Percpu:" { n += $2 }
		END { print n }' /proc/meminfo
}

# slab_growth BEFORE AFTER N: each slab cache's growth between two copies
# of /proc/slabinfo, in bytes per QP (2N QPs), largest first.
slab_growth() {
	awk -v n="$3" 'FNR == NR { if (FNR > 2) b[$1] = $3 * $4; next }
		FNR > 2 { d = $3 * $4 - b[$1]; if (d > 0) printf "%-28s %8.0f\n", $1, d / (2 * n) }' \
		"$1" "$2" | sort -k2,2nr
}

# manyqp_run DRIVER PATH SRVNS CLINS SRVDEV CLIDEV ADDR: BENCH_MANYQP
# connected RC QPs (siw2_manyqp: one PD and CQ per side, 64-entry queues)
# held at once between the two devices; records kernel memory per QP (kB,
# the growth of kmem_kb over both sides' QPs) and the connect time.
# The same set is first held once unmeasured: a driver's first QPs pay
# one-time growth (the program's inodes, TCP and socket slabs, radix tree
# nodes) that would otherwise be charged to whichever driver runs first.
manyqp_run() {
	local drv=$1 path=$2 sns=$3 cns=$4 addr=$7 n=$BENCH_MANYQP rep=$((REP0 + 1))
	local prog=$SIW2_PROGS/siw2_manyqp m0 m1 t0=$EPOCHREALTIME status value extra spid cpid
	local fifo pass	# fifo: the programs' standard input: EOF ends their hold
	(( n > 0 )) || return 0
	[[ -x $prog ]] || { say "$drv manyqp: $prog not built"; return 0; }
	# In the guest's own /tmp: the results directory (9p) takes no FIFO.
	fifo=$(mktemp -d /tmp/manyqp.XXXXXX) && mkfifo "$fifo/s" "$fifo/c" ||
		{ say "$drv manyqp: no FIFOs"; return 0; }
	for pass in warm-up measure; do
		status=ok value='' extra=''
		PORT=$((PORT + 1))
		sync
		# Empty slabs back to the page allocator first: a driver
		# measured after another would otherwise fill the slabs its
		# predecessor's freed objects left and look smaller.
		for f in /sys/kernel/slab/*/shrink; do echo 1 >"$f"; done 2>/dev/null
		m0=$(kmem_kb)
		cat /proc/slabinfo >"$fifo/slab0" 2>/dev/null
		in_ns "$sns" timeout 1200 "$prog" -s -a "$addr" -p "$PORT" -c "$n" -t 900 \
			<"$fifo/s" >"$RAW/$drv-manyqp.srv" 2>&1 &
		spid=$!
		exec 7>"$fifo/s"
		if ! wait_until 20 grep -q '^LISTENING' "$RAW/$drv-manyqp.srv"; then
			status=nolisten
		else
			in_ns "$cns" timeout 1200 "$prog" -a "$addr" -p "$PORT" -c "$n" -t 900 \
				<"$fifo/c" >"$RAW/$drv-manyqp.cli" 2>&1 &
			cpid=$!
			exec 8>"$fifo/c"
			if wait_until 900 eval "grep -q '^HELD' '$RAW/$drv-manyqp.srv' &&
					grep -q '^HELD' '$RAW/$drv-manyqp.cli'"; then
				sleep 2
				m1=$(kmem_kb)
				# Where it went: slab caches (bytes per QP, objects' sizes).
				cat /proc/slabinfo >"$fifo/slab1" 2>/dev/null &&
					slab_growth "$fifo/slab0" "$fifo/slab1" "$n" \
						>"$RAW/$drv-manyqp.slab"
				value=$(awk -v a="$m0" -v b="$m1" -v n="$n" 'BEGIN { printf "%.1f", (b - a) / (2 * n) }')
				extra="connect=$(sed -n 's/^HELD n=[0-9]* secs=//p' "$RAW/$drv-manyqp.cli")s"
			else
				status=noheld
			fi
			exec 8>&-
			wait "$cpid" || status=${status/ok/client-rc}
		fi
		exec 7>&-
		wait "$spid" || status=${status/ok/server-rc}
		say "$drv manyqp $n, $pass: $status${value:+ $value kB per QP}"
		[[ $status == ok ]] || break
		# The QPs' sockets linger closing; let them go before measuring.
		[[ $pass == warm-up ]] && sleep 5
	done
	rm -rf "$fifo"
	[[ $status == ok ]] || value=
	record "$drv" "$path" manyqp "$n" "$rep" "$status" "$value" "$extra" \
		"$(elapsed "$t0")" "raw/$drv-manyqp.cli" ""
	say "$drv manyqp $n: $status${value:+ $value kB per QP} ($extra)"
}

# driver_failed DRIVER PATH REASON: record every configuration as failed
# (the driver could not be set up).
driver_failed() {
	local drv=$1 path=$2 why=$3 test size
	say "$drv: not measured: $why"
	for test in $BW_TESTS; do
		for size in $BENCH_SIZES; do
			record "$drv" "$path" "$test" "$size" 1 setup-failed "" "" 0 "" "$why"
		done
	done
	for test in $LAT_TESTS; do
		record "$drv" "$path" "$test" "$BENCH_LAT_SIZE" 1 setup-failed "" "" 0 "" "$why"
	done
	for test in $BENCH_MQP; do
		record "$drv" "$path" "${test%%:*}" "${test#*:}" 1 setup-failed "" "" 0 "" "$why"
	done
}

# Nothing may hold the devices when they are deleted, or the delete blocks
# (see tests/vm/cases/50-siw-peer.sh).
# Only user contexts and rdma_cm ids count: a RoCE device keeps a PD, CQ
# and QP of its own (the GSI QP of the MAD layer).
no_rdma_objects() {
	rdma resource show | awk -v a="$1:" -v b="$2:" '$2 == a || $2 == b {
		for (i = 3; i < NF; i += 2)
			if (($i == "ctx" || $i == "cm_id") && $(i + 1) != 0) bad = 1
	} END { exit bad }'
}
devs_delete() {		# devs_delete DEV...
	local d
	wait_until 20 no_rdma_objects "$1" "${2:-$1}" ||
		say "rdma objects left: $(rdma resource show | tr '\n' ' ')"
	for d in "$@"; do
		siw2_dev_exists "$d" || continue
		timeout 60 rdma link delete "$d" || say "rdma link delete $d failed"
	done
}

devs_add() {		# devs_add TYPE NS_A DEV_A NETDEV_A NS_B DEV_B NETDEV_B
	local type=$1
	in_ns "$2" rdma link add "$3" type "$type" netdev "$4" || return 1
	in_ns "$5" rdma link add "$6" type "$type" netdev "$7" || return 1
	wait_port_active "$3" && wait_port_active "$6" || return 1
	# RoCE: the IPv4 GIDs come from the netdev's addresses a moment after
	# the device (ib_core's GID cache work); the first rdma_cm connect
	# before that failed ("Failed to handle RDMA CM event", then perftest
	# crashed).
	[[ $type == rxe ]] || return 0
	wait_until 10 has_ipv4_gid "$3" && wait_until 10 has_ipv4_gid "$6"
}
has_ipv4_gid() {	# has_ipv4_gid IBDEV: a ::ffff:a.b.c.d GID on port 1
	grep -qs '^0000:0000:0000:0000:0000:ffff:' /sys/class/infiniband/"$1"/ports/1/gids/*
}

# --- TCP ---------------------------------------------------------------

# tcp_runs DRIVER PATH SRVNS CLINS ADDR: iperf3 (one stream) and sockperf
# TCP ping-pong, BENCH_REPEATS times each.
# iperf3_run DRIVER PATH SRVNS CLINS ADDR REP STREAMS: one iperf3 run
# (-P STREAMS), recorded as test "iperf3" (one stream) or "iperf3-PN";
# extra: retransmits and guest CPU seconds per GiB carried.
iperf3_run() {
	local drv=$1 path=$2 sns=$3 cns=$4 addr=$5 rep=$6 n=$7 test=iperf3
	local base t0 status=ok value='' extra='' crc c0 c1 n0 n1 cpu
	(( n > 1 )) && test=iperf3-P$n
	PORT=$((PORT + 1))
	base=$drv-$test-r$rep
	t0=$EPOCHREALTIME
	bg_start "$sns" "$RAW/$base.srv" $((D + 60)) iperf3 -s -1 -B "$addr" -p "$PORT"
	if ! wait_until 20 bench_tcp_listening "$BG_PID" "$PORT"; then
		status=nolisten
	else
		c0=$(cpu_ticks) n0=$(net_bytes "$cns")
		in_ns "$cns" timeout $((D + 40)) iperf3 -c "$addr" -p "$PORT" -P "$n" \
			-t $((D - 1)) -O 1 -J >"$RAW/$base.cli" 2>&1
		crc=$?
		c1=$(cpu_ticks) n1=$(net_bytes "$cns")
		(( crc == 0 )) || status=rc$crc
		value=$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["end"]
print("%.4f %d" % (d["sum_received"]["bits_per_second"] / 1e9, d["sum_sent"].get("retransmits", 0)))' \
			"$RAW/$base.cli" 2>/dev/null)
		if [[ -n $value ]]; then
			extra="retransmits=${value#* }" value=${value%% *}
			cpu=$(cpu_per_gib "$c0" "$c1" "$n0" "$n1")
			[[ -n $cpu ]] && extra+=",cpu=$cpu"
		elif [[ $status == ok ]]; then
			status=noresult
		fi
		[[ $status == ok ]] || value=
	fi
	bg_stop 10
	record "$drv" "$path" "$test" stream "$rep" "$status" "$value" "$extra" \
		"$(elapsed "$t0")" "raw/$base.cli" ""
	say "$drv $test rep $rep: $status ${value:+$value Gbit/s}"
}

# The stream counts iperf3 runs with: 1, and each N of BENCH_MQP's -qN
# and -pN configurations (as many streams as QPs or processes).
iperf3_streams() {
	local c n out=" 1 "
	for c in $BENCH_MQP; do
		c=${c%%:*}
		n=${c##*-[qp]}
		[[ $n =~ ^[0-9]+$ && $out != *" $n "* ]] && out+="$n "
	done
	echo $out
}

tcp_runs() {
	local drv=$1 path=$2 sns=$3 cns=$4 addr=$5 rep base t0 status value extra crc n
	for ((rep = REP0 + 1; rep <= REP0 + REPS; rep++)); do
		for n in $(iperf3_streams); do
			iperf3_run "$drv" "$path" "$sns" "$cns" "$addr" "$rep" "$n"
		done

		PORT=$((PORT + 1))
		base=$drv-sockperf-r$rep
		t0=$EPOCHREALTIME status=ok value='' extra=''
		# Both ends busy-poll (recvfrom on a non-blocking socket), as
		# perftest polls its completion queue: a blocking ping-pong
		# measures how fast QEMU wakes a halted vCPU on a busy host
		# (2-4 ms seen with thread=multi) rather than the path.  sockperf
		# allows its recvfrom loop only with a feed file.
		echo "T:$addr:$PORT" >"$RAW/$base.feed"
		bg_start "$sns" "$RAW/$base.srv" $((D + 60)) sockperf server -f "$RAW/$base.feed" \
			-F recvfrom --nonblocked
		if ! wait_until 20 bench_tcp_listening "$BG_PID" "$PORT"; then
			status=nolisten
		else
			in_ns "$cns" timeout $((D + 40)) sockperf ping-pong -f "$RAW/$base.feed" \
				-F recvfrom --nonblocked -m "$BENCH_LAT_SIZE" -t "$D" >"$RAW/$base.cli" 2>&1
			crc=$?
			(( crc == 0 )) || status=rc$crc
			value=$(sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' "$RAW/$base.cli")
			extra=$(sed -n 's/.*avg-latency=\([0-9.]*\).*/avg=\1/p' "$RAW/$base.cli")
			extra+=$(sed -n 's/.*percentile 99.000 = *\([0-9.]*\).*/,p99=\1/p' "$RAW/$base.cli")
			[[ -n $value ]] || { [[ $status == ok ]] && status=noresult; }
			[[ $status == ok ]] || value=
		fi
		bg_stop
		record "$drv" "$path" sockperf "$BENCH_LAT_SIZE" "$rep" "$status" "$value" "$extra" \
			"$(elapsed "$t0")" "raw/$base.cli" ""
		say "$drv sockperf rep $rep: $status ${value:+$value us}"
	done
}

# --- drivers -----------------------------------------------------------

run_tcp() {
	say "== tcp on nspair ($NSP_CLI -> $NSP_SRV)"
	tcp_runs tcp nspair $NS_A $NS_B $NSP_SRV
}

run_siw() {
	local why
	say "== siw (Linux siw.ko) on nspair"
	if ! why=$( (siw_peer_load) 2>&1 ); then
		driver_failed siw nspair "load: $(echo "$why" | tail -n1)"
		return
	fi
	echo "siw.ko: $(siw_peer_ko)" >>"$INFO"
	if ! devs_add siw $NS_A siw_a $NS_A-v $NS_B siw_b $NS_B-v; then
		driver_failed siw nspair "rdma link add / port not active"
	else
		pt_driver siw nspair $NS_A $NS_B siw_a siw_b $NSP_SRV
		manyqp_run siw nspair $NS_A $NS_B siw_a siw_b $NSP_SRV
	fi
	devs_delete siw_a siw_b
	rmmod siw 2>/dev/null || say "rmmod siw failed"
}

run_rxe() {
	local b0 b1
	say "== rxe on initns (veth $INI_B -> $INI_A in the initial namespace)"
	if ! modprobe rdma_rxe; then
		driver_failed rxe initns "modprobe rdma_rxe failed"
		return
	fi
	if ! initns_up; then
		driver_failed rxe initns "initial-namespace veth path setup failed"
		initns_down
		return
	fi
	b0=$(dev_bytes - $INI_B)
	if ! devs_add rxe - rxe_a $INI_A - rxe_b $INI_B; then
		driver_failed rxe initns "rdma link add / port not active"
	else
		ibv_devinfo -d rxe_a >>"$INFO" 2>&1
		pt_driver rxe initns - - rxe_a rxe_b $INI_SRV
	fi
	devs_delete rxe_a rxe_b
	b1=$(dev_bytes - $INI_B)
	echo "rxe phase: $INI_B rx/tx bytes before: $b0 after: $b1; lo: $(dev_bytes - lo)" >>"$INFO"
	# TCP on the same path: shows whether the two paths carry TCP alike.
	say "== tcp on initns ($INI_CLI -> $INI_SRV)"
	tcp_runs tcp-initns initns - - $INI_SRV
	initns_down
	modprobe -r rdma_rxe 2>/dev/null || say "modprobe -r rdma_rxe failed"
}

# run_siw2 [LABEL]: siw2 with its user-space rings, or, as siw2-syscalls,
# with user_rings=0 (every post and poll a system call: the fast path's
# "before"), or, as siw2@NAME, the module and provider of
# $SIW2_TOP/build/ab/NAME/ (tools/bench-ab.sh), default parameters.
run_siw2() {
	local why drv=${1:-siw2} ab=
	say "== $drv on nspair"
	if [[ $drv == siw2@* ]]; then
		ab=$SIW2_TOP/build/ab/${drv#siw2@}
		why=$( (siw2_load_ab "$ab") 2>&1 ) || {
			driver_failed "$drv" nspair "load: $(echo "$why" | tail -n1)"
			return
		}
		export RDMAV_DRIVERS=$ab/libsiw2
	elif ! why=$( (siw2_load) 2>&1 ); then
		driver_failed "$drv" nspair "load: $(echo "$why" | tail -n1)"
		return
	fi
	[[ $drv == siw2-syscalls ]] && echo 0 >/sys/module/siw2/parameters/user_rings
	# Default parameters: ib_write_lat's server writes first, which a
	# siw2 Responder may towards a siw2 client (design.md, "MPA fencing").
	say "$drv: peer_to_peer=$(cat /sys/module/siw2/parameters/peer_to_peer), mpa_crc=$(cat /sys/module/siw2/parameters/mpa_crc) user_rings=$(cat /sys/module/siw2/parameters/user_rings)"
	if ! devs_add siw2 $NS_A siw2_a $NS_A-v $NS_B siw2_b $NS_B-v; then
		driver_failed "$drv" nspair "rdma link add / port not active"
	else
		pt_driver "$drv" nspair $NS_A $NS_B siw2_a siw2_b $NSP_SRV
		[[ $drv == siw2 ]] && manyqp_run siw2 nspair $NS_A $NS_B siw2_a siw2_b $NSP_SRV
	fi
	devs_delete siw2_a siw2_b
	if [[ -n $ab ]]; then
		# Loaded by insmod: modprobe may not find it in the module index.
		rmmod siw2 2>/dev/null || say "rmmod siw2 failed"
		export RDMAV_DRIVERS=$AB_SAVED_DRIVERS
	else
		modprobe -r siw2 2>/dev/null || say "modprobe -r siw2 failed"
	fi
}

# siw2_load_ab DIR: siw2 from DIR/siw2.ko (insmod: the guest's module
# index knows only this tree's siw2.ko) with DIR's provider.
siw2_load_ab() {
	local m
	for m in ib_core ib_uverbs iw_cm rdma_cm rdma_ucm libcrc32c; do
		modprobe "$m" || fail "modprobe $m"
	done
	[[ -f $1/siw2.ko && -f $1/libsiw2-rdmav34.so ]] || fail "$1: no siw2.ko or provider"
	insmod "$1/siw2.ko" || fail "insmod $1/siw2.ko"
}

# --- NFS ---------------------------------------------------------------

# NFSv4.2 over each of BENCH_NFS ("tcp siw2 siw") on one veth pair: the
# kernel server in namespace bench_nfs (nfs-s, 198.18.9.2) exporting a
# tmpfs, the kernel client in the initial namespace (nfs-c, 198.18.9.1):
# xprtrdma connects from the initial namespace, so the client's RDMA
# device must sit on a netdev there (tests/vm/cases/64-dp-nfs-rdma.sh).
# Per repeat: a mount with the neighbour entry flushed (nfs-mount-cold:
# ib_core's address resolution can lose the ARP reply's wake-up on a
# path this fast and wait out its 5 s timeout, see performance.md), a
# mount with it known (nfs-mount), seconds; then a sequential write of
# BENCH_NFS_MIB MiB with dd conv=fsync (nfs-write) and, after dropping the
# client's caches, its cold read (nfs-read), MB/s (10^6 B/s).
NFS_SRV=198.18.9.2 NFS_CLI=198.18.9.1
NFS_EXP=/srv/bench-nfs NFS_MNT=/mnt/bench-nfs

nfs_up() {
	ip netns add bench_nfs || return 1
	ip link add nfs-c mtu "$BENCH_MTU" type veth peer name nfs-s netns bench_nfs \
		mtu "$BENCH_MTU" || return 1
	ip addr add $NFS_CLI/24 dev nfs-c && ip -n bench_nfs addr add $NFS_SRV/24 dev nfs-s || return 1
	ip link set nfs-c up && ip -n bench_nfs link set lo up && ip -n bench_nfs link set nfs-s up ||
		return 1
	wait_until 10 eval "ip link show nfs-c | grep -q LOWER_UP" || return 1
	mkdir -p $NFS_EXP $NFS_MNT || return 1
	mount -t tmpfs -o size=$((BENCH_NFS_MIB + 64))m bench-nfs $NFS_EXP || return 1
	chmod 0777 $NFS_EXP
	srv "exportfs -o rw,fsid=0,no_root_squash,insecure,no_subtree_check,sync 198.18.9.0/24:$NFS_EXP" ||
		return 1
	mountd_start -N 3
}

nfs_down() {
	mountpoint -q $NFS_MNT && { timeout 30 umount -f $NFS_MNT || umount -l $NFS_MNT; } 2>/dev/null
	nfsd_stop 2>/dev/null
	srv 'exportfs -ua' 2>/dev/null
	mountd_stop
	umount $NFS_EXP 2>/dev/null
	ip link del nfs-c 2>/dev/null
	ip netns del bench_nfs 2>/dev/null
	return 0
}

# nfs_mount DRV OPTS TEST REP: time one mount, check its transport, record.
nfs_mount() {
	local drv=$1 opts=$2 test=$3 rep=$4 t0 ms x='' status=ok want=rdma value=''
	[[ $drv == nfs-tcp ]] && want=tcp
	t0=$(ms_now)
	if ! timeout -k 5 90 mount -t nfs -o "$opts" "$NFS_SRV:/" $NFS_MNT >"$RAW/$drv-mount.out" 2>&1; then
		status=mount-failed
	else
		ms=$(( $(ms_now) - t0 ))
		value=$(awk -v ms="$ms" 'BEGIN { printf "%.3f", ms / 1000 }')
		x=$(nfs_xprt) || x=
		read -r _ x _ <<<"$x"	# "xprt:	tcp ..." or "xprt:	rdma ..."
		if [[ $x != "$want" ]]; then
			# Never leave it mounted: the next transport's mount would
			# stat a mount point whose server is gone, and hang.
			status=wrong-xprt value=
			timeout -k 5 60 umount $NFS_MNT || umount -l $NFS_MNT
		fi
	fi
	record "$drv" nfs "$test" 0 "$rep" "$status" "$value" "" \
		"$(elapsed "$t0")" "raw/$drv-mount.out" ""
	say "$drv $test rep $rep: $status${value:+ $value s}"
	[[ $status == ok ]]
}

# nfs_dd DRV TEST REP ARGS...: one timed dd, recorded as MB/s.
nfs_dd() {
	local drv=$1 test=$2 rep=$3 t0 ms status=ok value='' bytes=$((BENCH_NFS_MIB << 20))
	shift 3
	t0=$(ms_now)
	if timeout -k 5 600 dd bs=1M "$@" status=none 2>"$RAW/$drv-$test-r$rep.err"; then
		ms=$(( $(ms_now) - t0 ))
		value=$(rate "$bytes" "$ms")
	else
		status=rc$?
	fi
	if [[ $test == nfs-write && $status == ok ]] &&
	   (( $(stat -c %s "$NFS_EXP/bench" 2>/dev/null || echo 0) != bytes )); then
		status=short value=
	fi
	record "$drv" nfs "$test" "$bytes" "$rep" "$status" "$value" "" \
		"$(elapsed "$t0")" "raw/$drv-$test-r$rep.err" ""
	say "$drv $test rep $rep: $status${value:+ $value MB/s}"
}

# nfs_transport T: nfsd on T's listener, the repeats, everything undone.
nfs_transport() {
	local t=$1 drv=nfs-$1 opts listener='rdma 20049' devc='' devs='' rep why
	opts=vers=4.2,rdma,port=20049
	case $t in
	tcp)	listener='tcp 2049' opts=vers=4.2,proto=tcp,port=2049 ;;
	siw2)	why=$( (siw2_load) 2>&1 ) || { say "$drv: siw2 load failed: $why"; return; }
		devc=s2nc devs=s2ns
		devs_add siw2 bench_nfs $devs nfs-s - $devc nfs-c ||
			{ say "$drv: devices failed"; devs_delete $devs $devc; return; } ;;
	siw)	why=$( (siw_peer_load) 2>&1 ) || { say "$drv: siw load failed: $why"; return; }
		# Linux siw: the client's device after nfsd listens (case 64).
		devc=siw_nc devs=siw_ns
		siw_link_add bench_nfs $devs nfs-s && wait_port_active $devs ||
			{ say "$drv: device failed"; devs_delete $devs; return; } ;;
	*)	say "unknown BENCH_NFS transport '$t'"; return ;;
	esac
	if ! ( nfsd_start "-3 +4 +4.1 +4.2" "$listener" ); then
		say "$drv: nfsd did not start"
	else
		if [[ $t == siw ]]; then
			siw_link_add - $devc nfs-c && wait_port_active $devc || say "$drv: client device failed"
		fi
		wait_until 30 grace_over || say "$drv: grace period not over after 30 s"
		for ((rep = REP0 + 1; rep <= REP0 + REPS; rep++)); do
			ip neigh flush dev nfs-c
			ip -n bench_nfs neigh flush dev nfs-s
			nfs_mount $drv $opts nfs-mount-cold $rep || continue
			timeout -k 5 60 umount $NFS_MNT
			nfs_mount $drv $opts nfs-mount $rep || continue
			nfs_dd $drv nfs-write $rep if=/dev/zero of=$NFS_MNT/bench \
				count="$BENCH_NFS_MIB" conv=fsync
			drop_caches
			nfs_dd $drv nfs-read $rep if=$NFS_MNT/bench of=/dev/null
			rm -f $NFS_MNT/bench
			timeout -k 5 60 umount $NFS_MNT || say "$drv: umount failed"
		done
		nfsd_stop
	fi
	[[ -n $devs ]] && devs_delete $devs $devc
	case $t in
	siw2) modprobe -r siw2 2>/dev/null || say "modprobe -r siw2 failed" ;;
	siw) rmmod siw 2>/dev/null || say "rmmod siw failed" ;;
	esac
}

run_nfs() {
	local t m
	say "== NFSv4.2 over $BENCH_NFS ($NFS_CLI -> $NFS_SRV, $BENCH_NFS_MIB MiB)"
	for m in sunrpc nfsd rpcrdma nfs nfsv4; do
		modprobe "$m" || { say "modprobe $m failed: no NFS rows"; return; }
	done
	NFS_NS=bench_nfs MNT=$NFS_MNT R=$RAW
	if ! nfs_up; then
		say "NFS path setup failed"
	else
		for t in $BENCH_NFS; do
			nfs_transport "$t"
		done
	fi
	nfs_down
}

# NVMe over Fabrics over each of BENCH_NVME ("tcp siw2 siw"): nvmet and the
# host both use init_net, so they run on the initial-namespace veth pair
# (initns, policy-routed past the loopback shortcut as for rxe): the
# target listens on $INI_SRV ($INI_A), the host connects from $INI_CLI
# ($INI_B).  The namespace is a brd RAM disk of BENCH_NVME_MIB MiB.  Per
# repeat, fio (libaio, direct I/O, 1 s of ramp, then D s measured):
# 128 KiB sequential writes and reads at queue depth 16 (MB/s, 10^6 B/s),
# 4 KiB random writes and reads at queue depth 32 (IOPS).
NVME_NQN=nqn.2026-11.org.siw2:bench
NVME_RUNS=(
	"nvme-write:131072:mbps:--rw=write --bs=128k --iodepth=16"
	"nvme-read:131072:mbps:--rw=read --bs=128k --iodepth=16"
	"nvme-randwrite:4096:iops:--rw=randwrite --bs=4k --iodepth=32"
	"nvme-randread:4096:iops:--rw=randread --bs=4k --iodepth=32"
)

# nvme_run DRV REP DEV TEST:SIZE:UNIT:FIO-ARGS: one fio run, recorded.
nvme_run() {
	local drv=$1 rep=$2 dev=$3 test size unit args t0 status=ok value='' out
	IFS=: read -r test size unit args <<<"$4"
	out=$RAW/$drv-$test-r$rep
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2086
	if timeout -k 5 $((D + 90)) fio --name="$test" --filename="$dev" --ioengine=libaio \
		--direct=1 --time_based --ramp_time=1 --runtime="$D" --output-format=json $args \
		>"$out.json" 2>"$out.err"; then
		value=$(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print("%.0f" % d["iops"] if sys.argv[2] == "iops" else "%.1f" % (d["bw_bytes"] / 1e6))
' "$out.json" "$unit" 2>>"$out.err") || status=no-result
		[[ $(python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))["jobs"][0]; print(j["error"])' \
			"$out.json" 2>/dev/null) == 0 ]] || status=io-error value=
	else
		status=rc$?
	fi
	record "$drv" initns "$test" "$size" "$rep" "$status" "$value" "" \
		"$(elapsed "$t0")" "raw/${out##*/}.json" ""
	say "$drv $test rep $rep: $status${value:+ $value $unit}"
}

# nvme_transport T: T's device pair and target port, the repeats, all undone.
nvme_transport() {
	local t=$1 drv=nvme-$1 trtype=rdma svc=4420 devs=() rep r dev='' why b0
	case $t in
	tcp)	trtype=tcp svc=4421 ;;
	siw2)	why=$( (siw2_load) 2>&1 ) || { say "$drv: siw2 load failed: $why"; return; }
		devs=(s2ia s2ib)
		devs_add siw2 - s2ia $INI_A - s2ib $INI_B ||
			{ say "$drv: devices failed"; devs_delete "${devs[@]}"; return; } ;;
	siw)	why=$( (siw_peer_load) 2>&1 ) || { say "$drv: siw load failed: $why"; return; }
		devs=(siw_ia siw_ib)
		devs_add siw - siw_ia $INI_A - siw_ib $INI_B ||
			{ say "$drv: devices failed"; devs_delete "${devs[@]}"; return; } ;;
	*)	say "unknown BENCH_NVME transport '$t'"; return ;;
	esac
	if ! ( nvmet_port 1 $trtype $INI_SRV $svc $NVME_NQN ) >"$RAW/$drv-port.err" 2>&1; then
		say "$drv: target port failed: $(cat "$RAW/$drv-port.err")"
	elif ! nvme connect -t $trtype -a $INI_SRV -s $svc -w $INI_CLI -n $NVME_NQN \
		>"$RAW/$drv-connect.out" 2>&1 ||
		! wait_until 20 eval 'dev=$(nvme_head $NVME_NQN 1)'; then
		say "$drv: nvme connect failed: $(tr '\n' ' ' <"$RAW/$drv-connect.out")"
	else
		b0=$(dev_bytes - $INI_B)
		for ((rep = REP0 + 1; rep <= REP0 + REPS; rep++)); do
			for r in "${NVME_RUNS[@]}"; do
				nvme_run "$drv" "$rep" "$dev" "$r"
			done
		done
		say "$drv: $INI_B rx/tx bytes before: $b0 after: $(dev_bytes - $INI_B)"
	fi
	nvme disconnect -n $NVME_NQN >/dev/null 2>&1
	( nvmet_port_del 1 ) 2>/dev/null
	((${#devs[@]} == 0)) || devs_delete "${devs[@]}"
	case $t in
	siw2) modprobe -r siw2 2>/dev/null || say "modprobe -r siw2 failed" ;;
	siw) rmmod siw 2>/dev/null || say "rmmod siw failed" ;;
	esac
}

run_nvme() {
	local t m
	say "== NVMe over Fabrics over $BENCH_NVME (host $INI_CLI -> target $INI_SRV, $BENCH_NVME_MIB MiB brd)"
	for m in nvmet nvmet-rdma nvmet-tcp nvme-rdma nvme-tcp; do
		modprobe "$m" || { say "modprobe $m failed: no NVMe rows"; return; }
	done
	modprobe brd rd_nr=1 rd_size=$((BENCH_NVME_MIB * 1024)) || { say "modprobe brd failed"; return; }
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
	if ! initns_up; then
		say "NVMe: initial-namespace veth path setup failed"
	elif ! ( nvmet_subsys $NVME_NQN && nvmet_ns $NVME_NQN 1 /dev/ram0 ) >"$RAW/nvmet.err" 2>&1; then
		say "NVMe: target subsystem failed: $(cat "$RAW/nvmet.err")"
	else
		for t in $BENCH_NVME; do
			nvme_transport "$t"
		done
	fi
	nvmet_clear
	initns_down
	modprobe -r brd 2>/dev/null || say "modprobe -r brd failed"
}

# --- main --------------------------------------------------------------

{
	echo "kernel: $(uname -r)"
	echo "cpus: $(nproc)  mem: $(awk '/MemTotal/ { print $2 " kB" }' /proc/meminfo)"
	echo "cmdline: $(cat /proc/cmdline)"
	echo "perftest: $(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
	echo "iperf3: $(dpkg-query -W -f='${Version}' iperf3 2>/dev/null)"
	echo "sockperf: $(dpkg-query -W -f='${Version}' sockperf 2>/dev/null)"
	echo "rdma-core: $(dpkg-query -W -f='${Version}' rdma-core 2>/dev/null)"
	echo "config: repeats=$REPS duration=${D}s sizes=$BENCH_SIZES lat_size=$BENCH_LAT_SIZE"
	echo "config: lat_iters=$BENCH_LAT_ITERS drivers=$BENCH_DRIVERS mtu=$BENCH_MTU max_fail=$BENCH_MAX_FAIL"
	echo "config: rounds=$BENCH_ROUNDS tests=$BENCH_TESTS"
} >"$INFO"

missing=
for c in ib_write_bw iperf3 sockperf rdma ss stdbuf python3; do
	command -v "$c" >/dev/null || missing+=" $c"
done
[[ -z $missing ]] || say "missing tools:$missing (tools/install-deps.sh bench); their runs fail"

for m in ib_core ib_uverbs iw_cm rdma_cm rdma_ucm; do
	modprobe "$m" || say "modprobe $m failed"
done
if ! nspair_up; then
	say "namespace pair setup failed"
	exit 1
fi
echo "nspair: $NS_A $(ip -n $NS_A -br addr show $NS_A-v) / $NS_B $(ip -n $NS_B -br addr show $NS_B-v)" >>"$INFO"

T0=$EPOCHREALTIME
AB_SAVED_DRIVERS=$RDMAV_DRIVERS
# BENCH_ROUNDS > 1 interleaves the drivers: every round runs each driver's
# REPS repeats, so that slow phases of a noisy host spread over all of
# them (tools/bench-ab.sh compares builds this way).
for ((round = 1; round <= BENCH_ROUNDS; round++)); do
REP0=$(((round - 1) * REPS))
for drv in $BENCH_DRIVERS; do
	t=$EPOCHREALTIME
	b0=$(dev_bytes $NS_B $NS_B-v)
	case $drv in
	tcp)  run_tcp ;;
	siw)  run_siw ;;
	rxe)  run_rxe ;;
	siw2) run_siw2 ;;
	siw2-syscalls) run_siw2 siw2-syscalls ;;
	siw2@*) run_siw2 "$drv" ;;
	nfs)  run_nfs ;;
	nvme) run_nvme ;;
	*)    say "unknown driver '$drv' in BENCH_DRIVERS" ;;
	esac
	echo "phase $drv (round $round): $(elapsed "$t") s; $NS_B-v rx/tx bytes before: $b0 after: $(dev_bytes $NS_B $NS_B-v)" >>"$INFO"
done
done
echo "total: $(elapsed "$T0") s" >>"$INFO"
say "bench done in $(elapsed "$T0") s"
exit 0
