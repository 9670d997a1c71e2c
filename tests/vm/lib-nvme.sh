# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# NVMe over Fabrics helpers for cases 91 and 92: the kernel's target
# (nvmet, configured through configfs), the host's controllers and
# namespaces (sysfs), verified I/O, whole-device comparison and a
# blackhole for one flow on lo.  Both ULPs use init_net: everything runs
# in the initial namespace, over loopback routes.  Source after lib.sh
# and lib-peer.sh.
#
# NVME_DRV (from SIW2_NVME_DRV, default siw2) is the RDMA driver under
# nvme-rdma and nvmet-rdma: "siw" runs the same case on Linux siw for a
# side-by-side comparison (the closing notes and the admin guide report
# those runs; make check runs siw2).
#
#   nvme_modules             load the target and host modules of both
#                            transports, brd and the tc modules; mount configfs
#   nvme_rdma_dev NAME NETDEV   an RDMA device of NVME_DRV on NETDEV, ACTIVE
#   nvme_rdma_end DEV...     the devices' QPs and cm_ids gone (nvme-rdma's
#                            CQs come from the core's per-device pool and
#                            stay until the device goes), the devices deleted,
#                            object counts zero, the driver unloaded
#   nvmet_subsys NQN         a subsystem any host may connect to
#   nvmet_ns NQN NSID PATH   an enabled namespace backed by PATH
#   nvmet_port ID TRTYPE ADDR SVCID NQN   a port offering NQN
#   nvmet_port_del ID        the port gone (its subsystem links first)
#   nvmet_clear              every port, namespace, subsystem and host gone
#   nvme_conn TRTYPE ADDR SVCID NQN [ARGS...]   nvme connect; fails the case
#                            if it fails; output in $R/connect-*
#   nvme_ctrl NQN [ADDR]     the host's controller (nvmeN) of NQN (at ADDR)
#   nvme_ctrl_state CTRL     its state: live, connecting, resetting, ...
#   nvme_ns_devs NQN         the namespace (path) devices of NQN's
#                            controllers, "nvmeXcYnZ" or "nvmeXnY" per line
#   nvme_head NQN NSID       /dev/nvmeXnY, the block device of namespace NSID
#   nvme_wait_ns WHAT TEST   NQN's namespace paths number TEST ("-ge 2",
#                            "-eq 2", "-ge 1") within 20 s, else WHAT
#                            fails; NVME_DEV is then namespace 1's device
#   nvme_fio NAME DEV ARGS...   fio random 4 KiB writes at queue depth 16 with
#                            crc32c verification (ARGS add or override);
#                            fails the case on any error; output $R/fio-NAME
#   nvme_fio_bg NAME DEV SECS   nvme_fio over 48 MiB for SECS seconds, each
#                            block verified soon after it is written, in the
#                            background: NVME_FIO_PID
#   nvme_same WHAT DEV SRC IFLAG   the whole of DEV (read over the fabric)
#                            equals SRC (the backing store, read with
#                            iflag=IFLAG); on a difference the first differing
#                            4 KiB blocks are printed and the case fails
#   blackhole_on MATCH...    drop every packet lo sends that matches the tc
#                            flower MATCH (both directions of a local flow
#                            leave through lo); blackhole_off lifts them all

NVME_DRV=${SIW2_NVME_DRV:-siw2}
NVME_CFS=/sys/kernel/config/nvmet

nvme_modules() {
	local m
	case $NVME_DRV in
	siw2) siw2_load ;;
	siw) siw_peer_load ;;
	*) fail "SIW2_NVME_DRV=$NVME_DRV: siw2 or siw" ;;
	esac
	for m in nvmet nvmet-rdma nvmet-tcp nvme-rdma nvme-tcp sch_ingress cls_flower act_gact; do
		modprobe "$m" || fail "modprobe $m"
	done
	mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config ||
		fail "mount configfs"
}

nvme_rdma_dev() {
	if [[ $NVME_DRV == siw2 ]]; then
		siw2_link_add - "$1" "$2" || fail "rdma link add $1 type siw2 netdev $2"
	else
		siw_link_add - "$1" "$2" || fail "rdma link add $1 type siw netdev $2"
	fi
	wait_port_active "$1" || fail "$1 not ACTIVE"
}

nvme_rdma_end() {
	local d
	for d in "$@"; do
		wait_until 20 eval "! rdma resource show qp | grep -q 'link $d/' &&
			! rdma resource show cm_id | grep -q 'link $d/'" ||
			{ rdma resource show; fail "QPs or cm_ids left on $d after every disconnect and port removal"; }
		timeout 60 rdma link delete "$d" || fail "rdma link delete $d"
	done
	if [[ $NVME_DRV == siw2 ]]; then
		siw2_assert_zero_counts
		siw2_unload
	else
		siw_peer_unload
	fi
}

nvmet_subsys() {
	mkdir "$NVME_CFS/subsystems/$1" || fail "nvmet subsystem $1"
	echo 1 >"$NVME_CFS/subsystems/$1/attr_allow_any_host" || fail "allow any host on $1"
}

nvmet_ns() {
	local d=$NVME_CFS/subsystems/$1/namespaces/$2
	mkdir "$d" || fail "namespace $2 of $1"
	echo -n "$3" >"$d/device_path" || fail "namespace $2: device_path $3"
	echo 1 >"$d/enable" || fail "enable namespace $2 ($3)"
}

nvmet_port() {
	local d=$NVME_CFS/ports/$1
	mkdir "$d" || fail "nvmet port $1"
	echo "$2" >"$d/addr_trtype" && echo ipv4 >"$d/addr_adrfam" &&
		echo "$3" >"$d/addr_traddr" && echo "$4" >"$d/addr_trsvcid" ||
		fail "nvmet port $1: $2 $3:$4"
	ln -s "$NVME_CFS/subsystems/$5" "$d/subsystems/$5" ||
		fail "port $1 ($2 $3:$4): offering $5"
}

nvmet_port_del() {
	rm -f "$NVME_CFS/ports/$1/subsystems/"* && rmdir "$NVME_CFS/ports/$1" ||
		fail "removing nvmet port $1"
}

nvmet_clear() {
	local s
	for s in "$NVME_CFS"/subsystems/*; do
		[[ -d $s ]] || continue
		nvme disconnect -n "${s##*/}" >/dev/null 2>&1
	done
	rm -f "$NVME_CFS"/ports/*/subsystems/* "$NVME_CFS"/subsystems/*/allowed_hosts/*
	rmdir "$NVME_CFS"/ports/* "$NVME_CFS"/subsystems/*/namespaces/* \
		"$NVME_CFS"/subsystems/* "$NVME_CFS"/hosts/* 2>/dev/null
	return 0
}

_nvme_conn_n=0
nvme_conn() {
	local t=$1 a=$2 s=$3 n=$4 out
	shift 4
	_nvme_conn_n=$((_nvme_conn_n + 1))
	out=$R/connect-$_nvme_conn_n-$t
	nvme connect -t "$t" -a "$a" -s "$s" -n "$n" "$@" >"$out" 2>&1 ||
		{ cat "$out"; fail "nvme connect -t $t -a $a -s $s -n $n $*"; }
}

nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[[ $(cat "$c/subsysnqn" 2>/dev/null) == "$1" ]] || continue
		[[ -z ${2:-} ]] || grep -q "traddr=$2," "$c/address" 2>/dev/null || continue
		basename "$c"
	done
}

nvme_ctrl_state() { cat "/sys/class/nvme/$1/state" 2>/dev/null; }

nvme_ns_devs() {
	local c d
	for c in $(nvme_ctrl "$1"); do
		for d in "/sys/class/nvme/$c"/nvme*; do
			[[ ${d##*/} =~ ^nvme[0-9]+(c[0-9]+)?n[0-9]+$ ]] && echo "${d##*/}"
		done
	done | sort
}

nvme_head() {
	local d h
	for d in $(nvme_ns_devs "$1"); do
		h=${d/c[0-9]*n/n}
		[[ $(cat "/sys/block/$h/nsid" 2>/dev/null) == "$2" ]] && { echo "/dev/$h"; return 0; }
	done
	return 1
}

nvme_wait_ns() {
	local what=$1 test=$2
	wait_until 20 eval "[[ \$(nvme_ns_devs $NQN | wc -l) $test ]]" ||
		{ nvme_ns_devs "$NQN"; fail "$what: namespace paths not $test within 20 s"; }
	# shellcheck disable=SC2034 # the cases read it
	NVME_DEV=$(nvme_head "$NQN" 1) || fail "$what: no device of namespace 1"
}

nvme_fio() {
	local name=$1 dev=$2
	shift 2
	fio --name="$name" --filename="$dev" --rw=randwrite --bs=4k --iodepth=16 \
		--ioengine=libaio --direct=1 --verify=crc32c --randrepeat=0 "$@" \
		--output="$R/fio-$name" >/dev/null 2>&1 ||
		{ cat "$R/fio-$name"; fail "$name: fio failed on $dev"; }
	grep -q 'err= 0' "$R/fio-$name" ||
		{ cat "$R/fio-$name"; fail "$name: fio reported errors on $dev"; }
}

nvme_fio_bg() {
	nvme_fio "$1" "$2" --size=48M --time_based --runtime="$3" --verify_backlog=256 &
	# shellcheck disable=SC2034 # the cases wait for it
	NVME_FIO_PID=$!
}

nvme_same() {
	local what=$1 dev=$2 src=$3 iflag=$4 tmp=${NVME_TMP:-/tmp}
	sync
	[[ $(dd if="$dev" bs=1M iflag=direct status=none | sha256sum) == \
	   "$(dd if="$src" bs=1M iflag="$iflag" status=none | sha256sum)" ]] && return 0
	dd if="$dev" of="$tmp/host.img" bs=1M iflag=direct status=none
	dd if="$src" of="$tmp/target.img" bs=1M iflag="$iflag" status=none
	cmp -l "$tmp/host.img" "$tmp/target.img" | awk '
		{ b = int(($1 - 1) / 4096); if (!(b in s)) { s[b] = 1; n++; if (n <= 10) print "  4 KiB block", b, "differs" } }
		END { print "  " n + 0 " blocks differ" }'
	rm -f "$tmp/host.img" "$tmp/target.img"
	fail "$what: $dev read over the fabric differs from $src"
}

_blackhole_pref=0
blackhole_on() {
	tc qdisc show dev lo | grep -q clsact || tc qdisc add dev lo clsact ||
		fail "tc qdisc add dev lo clsact"
	_blackhole_pref=$((_blackhole_pref + 1))
	tc filter add dev lo egress protocol ip pref "$_blackhole_pref" flower "$@" action drop ||
		fail "tc filter: drop $* on lo"
}

blackhole_off() {
	! tc qdisc show dev lo | grep -q clsact || tc qdisc del dev lo clsact ||
		fail "tc qdisc del dev lo clsact"
}
