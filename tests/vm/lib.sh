# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Guest-side helpers for tests/vm/cases/*.sh:
#     source "$SIW2_TOP/tests/vm/lib.sh"
#
# Environment set by the harness (tests/vm/guest-init.sh): SIW2_TOP, SIW2_KO,
# SIW2_PROGS, RDMAV_DRIVERS, SIW2_RESULTS (kept on the host under
# build/vm-logs/<case>/).  Exit status 0 = pass, 77 = skip, else fail.
#
#   fail MSG                 "FAIL: MSG" on stderr, exit 1
#   skip MSG                 "SKIP: MSG" on stdout, exit 77
#   log MSG                  MSG on stdout with a timestamp (guest uptime)
#   need CMD...              skip unless every CMD is available
#   wait_until SECS CMD...   retry CMD until it succeeds or SECS (wall clock)
#                            passed, a nap of 0.1 s between tries; return 1
#                            on timeout
#   nap SECS                 sleep without starting a process (below)
#   siw2_load [param=val...] load ib_core ib_uverbs iw_cm rdma_cm rdma_ucm,
#                            install $SIW2_KO as updates/siw2.ko, depmod (the
#                            host's depmod output, $SIW2_MODINDEX), and
#                            modprobe siw2 with the parameters
#   siw2_install_only        just install $SIW2_KO + depmod data (for autoload
#                            tests: "rdma link add .. type siw2" loads it
#                            through the rdma-link-siw2 alias)
#   siw2_unload              modprobe -r siw2, fail if it cannot
#   siw2_loaded              true if the siw2 module is loaded
#   ns_pair A B [IDX]        namespaces A and B joined by veth A-v <-> B-v,
#                            198.18.IDX.1/24 + fd00:IDX::1/64 in A, .2 / ::2
#                            in B, lo and links up, carrier awaited
#   ns_dummy NS NAME [CIDR]  dummy netdev NAME in namespace NS ("-" = initial
#                            one), up, address CIDR (default 198.19.N.1/24,
#                            N counting up per call)
#   siw2_link_add NS IBDEV NETDEV   rdma link add IBDEV type siw2 netdev
#                            NETDEV, run in namespace NS ("-" = initial);
#                            returns rdma's status (does not fail)
#   siw2_link_del IBDEV      rdma link delete IBDEV; returns its status
#   siw2_dev_exists IBDEV    true if /sys/class/infiniband/IBDEV exists
#   siw2_count KIND [IBDEV]  echo the live object count from debugfs
#                            (/sys/kernel/debug/siw2[/IBDEV]/objects); KIND is
#                            devices (global only), ucontexts, pds, cqs, mrs,
#                            srqs, qps; return 1 if unavailable
#   siw2_assert_zero_counts  fail unless every global count is 0
#   in_ns NS CMD...          run CMD in namespace NS ("-" = initial)
#   pmem_devdax [ALIGN]      on a guest with an emulated NVDIMM (case header
#                            "# pmem: 256M", see tests/vm/vm.sh): load libnvdimm,
#                            nfit, nd_pmem, device_dax and dax_pmem, initialise the
#                            NVDIMM's labels when they are blank, make one
#                            device-DAX namespace over the whole region with
#                            ndctl (ALIGN: 4K by default, 2M or 1G), or reuse
#                            the one a kept backing file holds, check that its
#                            range lies in a "Persistent Memory" range of
#                            /proc/iomem, and set PMEM_DAX (/dev/daxN.M),
#                            PMEM_START (physical address, hex), PMEM_SIZE and
#                            PMEM_ALIGN (bytes); fail with the reason if any
#                            step cannot be done

SIW2_DEBUGFS=/sys/kernel/debug/siw2

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
log() {
	local up
	read -r up _ </proc/uptime
	printf '[%9s] %s\n' "$up" "$*"
}

# knob NAME DEFAULT: a case's setting: the environment's value (the guest's
# init exports the kernel command line's NAME=VALUE words), else the
# command line's, else DEFAULT.  Set from the host with SIW2_VM_APPEND.
knob() {
	local v=${!1:-}
	[[ -n $v ]] || v=$(sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" /proc/cmdline)
	echo "${v:-$2}"
}

need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || fail "missing command: $c (tools/install-deps.sh installs every tool the cases use)"
	done
}

# Wall-clock deadline: process start costs ~0.1 s under TCG, so counting
# iterations would stretch the timeout by an unknown factor.
# _until PAUSE SECS CMD...: the loop of wait_until and of lib-peer.sh's
# poll_until, PAUSE (a command and its words) between tries.
_until() {
	local pause=$1 secs=$2 deadline now
	shift 2
	# A slower guest kernel stretches every wait (tests/vm/guest-init.sh).
	deadline=$(( ${EPOCHREALTIME/./} + secs * ${SIW2_TIMEOUT_SCALE:-1} * 1000000 ))
	while :; do
		"$@" && return 0
		now=${EPOCHREALTIME/./}
		(( now >= deadline )) && return 1
		$pause
	done
}

# nap SECS: sleep without starting a process (read -t on a private FIFO
# nobody writes): under TCG a sleep(1) costs about 0.05-0.1 s of guest CPU
# (some 0.06 s more on the debug kernel), taken from what is waited for.
# The FIFO is named by $BASHPID: subshells that nap first get their own.
nap() {
	local f
	if [[ -z ${_nap_fd:-} ]]; then
		f=/tmp/.nap.$BASHPID
		rm -f "$f"
		mkfifo "$f" 2>/dev/null && exec {_nap_fd}<>"$f"
		rm -f "$f"
	fi
	if [[ -n ${_nap_fd:-} ]]; then
		read -r -t "$1" -u "$_nap_fd" _
	else
		sleep "$1"
	fi
	return 0
}

wait_until() { _until "nap 0.1" "$@"; }

in_ns() {
	local ns=$1
	shift
	if [[ $ns == - ]]; then
		"$@"
	else
		ip netns exec "$ns" "$@"
	fi
}

siw2_install_only() {
	local kver dst
	[[ -f $SIW2_KO ]] || fail "$SIW2_KO not built (run make)"
	kver=$(uname -r)
	dst=/lib/modules/$kver/updates
	mkdir -p "$dst" || fail "mkdir $dst"
	cp "$SIW2_KO" "$dst/siw2.ko" || fail "cannot install $SIW2_KO"
	# depmod -a in the guest takes minutes under TCG (it decompresses every
	# module); the host ran it for us with the same siw2.ko (tests/vm/vm.sh
	# vm_modindex), so install its output instead when available.
	if [[ -n ${SIW2_MODINDEX:-} && -f $SIW2_MODINDEX/modules.dep.bin ]]; then
		cp "$SIW2_MODINDEX"/modules.* "/lib/modules/$kver/" ||
			fail "cannot install module indexes"
	else
		log "no host-made module index: running depmod -a (slow under TCG)"
		depmod -a "$kver" || fail "depmod failed"
	fi
}

siw2_load() {
	local m
	for m in ib_core ib_uverbs iw_cm rdma_cm rdma_ucm; do
		modprobe "$m" || fail "modprobe $m"
	done
	# SIW2_FROM_PACKAGES=1: the module installed (case 79: the packages').
	[[ ${SIW2_FROM_PACKAGES:-0} == 1 ]] || siw2_install_only
	modprobe siw2 "$@" || fail "modprobe siw2 $*"
}

siw2_loaded() { [[ -d /sys/module/siw2 ]]; }

siw2_unload() {
	modprobe -r siw2 || fail "modprobe -r siw2 failed (refcnt $(cat /sys/module/siw2/refcnt 2>/dev/null))"
	! siw2_loaded || fail "siw2 still loaded after modprobe -r"
}

ns_pair() {
	local a=$1 b=$2 idx=${3:-0} ns
	ip netns add "$a" || fail "ip netns add $a"
	ip netns add "$b" || fail "ip netns add $b"
	ip link add "$a-v" netns "$a" type veth peer name "$b-v" netns "$b" ||
		fail "veth $a-v/$b-v"
	ip -n "$a" addr add "198.18.$idx.1/24" dev "$a-v" || fail "addr $a-v"
	ip -n "$b" addr add "198.18.$idx.2/24" dev "$b-v" || fail "addr $b-v"
	ip -n "$a" -6 addr add "fd00:$idx::1/64" dev "$a-v" nodad || fail "addr6 $a-v"
	ip -n "$b" -6 addr add "fd00:$idx::2/64" dev "$b-v" nodad || fail "addr6 $b-v"
	for ns in "$a" "$b"; do
		ip -n "$ns" link set lo up || fail "lo up in $ns"
		ip -n "$ns" link set "$ns-v" up || fail "$ns-v up"
	done
	wait_until 10 eval "ip -n '$a' link show '$a-v' | grep -q LOWER_UP &&
		ip -n '$b' link show '$b-v' | grep -q LOWER_UP" ||
		fail "no carrier on $a-v/$b-v"
}

_siw2_dummy_n=0
ns_dummy() {
	local ns=$1 name=$2 cidr=${3:-}
	if [[ -z $cidr ]]; then
		cidr=198.19.$_siw2_dummy_n.1/24
		_siw2_dummy_n=$((_siw2_dummy_n + 1))
	fi
	if [[ $ns != - ]] && ! ip netns list | grep -qw "^$ns"; then
		ip netns add "$ns" || fail "ip netns add $ns"
		ip -n "$ns" link set lo up
	fi
	in_ns "$ns" ip link add "$name" type dummy || fail "dummy $name in $ns"
	in_ns "$ns" ip addr add "$cidr" dev "$name" || fail "addr $cidr on $name"
	in_ns "$ns" ip link set "$name" up || fail "$name up"
}

siw2_link_add() {
	local ns=$1 ibdev=$2 netdev=$3
	in_ns "$ns" rdma link add "$ibdev" type siw2 netdev "$netdev"
}

siw2_link_del() { rdma link delete "$1"; }

siw2_dev_exists() { [[ -e /sys/class/infiniband/$1 ]]; }

siw2_count() {
	local kind=$1 file=$SIW2_DEBUGFS/objects v
	[[ -n ${2:-} ]] && file=$SIW2_DEBUGFS/$2/objects
	[[ -r $file ]] || { echo "siw2_count: no $file" >&2; return 1; }
	v=$(awk -v k="$kind" '$1 == k { print $2; exit }' "$file")
	[[ -n $v ]] || { echo "siw2_count: no '$kind' in $file" >&2; return 1; }
	echo "$v"
}

siw2_assert_zero_counts() {
	local file=$SIW2_DEBUGFS/objects
	[[ -r $file ]] || fail "no $file (siw2 loaded? debugfs mounted?)"
	awk '$2 != 0 { bad = 1 } END { exit bad }' "$file" ||
		fail "object counts not zero: $(tr '\n' ' ' <"$file")"
}

# The iomem range (e.g. "240000000-24fffffff : Persistent Memory") holding
# [$1, $1 + $2): echo it, or return 1.  The driver's durability check is
# region_intersects(..., IORES_DESC_PERSISTENT_MEMORY), and the resources
# named "Persistent Memory" are the ones the NFIT driver inserts with that
# descriptor.
_pmem_iomem_range() {
	local start=$(( $1 )) end=$(( $1 + $2 - 1 )) line range name lo hi
	while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		range=${line%% : *}
		name=${line#* : }
		[[ $name == "Persistent Memory" ]] || continue
		lo=$(( 16#${range%-*} )); hi=$(( 16#${range#*-} ))
		if (( lo <= start && end <= hi )); then
			echo "$line"
			return 0
		fi
	done </proc/iomem
	return 1
}

pmem_devdax() {
	local align=${1:-4K} m region nmem out dev sys
	grep -qw 'siw2_pmem=[0-9]*M' /proc/cmdline ||
		fail "pmem_devdax: this guest has no emulated NVDIMM (no siw2_pmem= on the kernel command line): give the case a '# pmem: 256M' header line (tests/vm/vm.sh)"
	need ndctl
	# No udev in the guest: nothing loads these on its own.  ndctl's
	# package hooks "ndctl load-keys" (NVDIMM security keys, a TPM
	# lookup) into "modprobe libnvdimm": the emulated DIMM has no
	# security, so skip the hook.
	for m in libnvdimm nfit nd_pmem device_dax dax_pmem; do
		[[ -d /sys/module/$m ]] && continue
		modprobe --ignore-install "$m" || fail "pmem_devdax: modprobe $m failed (Debian's 6.12 kernel has it under /lib/modules/$(uname -r)/kernel/drivers/{acpi/nfit,nvdimm,dax})"
	done
	# Regions are probed asynchronously after nfit binds the NFIT.
	wait_until 30 eval 'compgen -G "/sys/bus/nd/devices/region*/driver" >/dev/null' ||
		fail "pmem_devdax: no NVDIMM region appeared within 30 s of loading nfit (dmesg: $(dmesg | grep -iE 'nfit|nd_|nvdimm' | tail -n3 | tr '\n' ' '))"
	region=$(compgen -G "/sys/bus/nd/devices/region*/driver" | head -n1)
	region=${region%/driver}
	region=${region##*/}
	nmem=
	[[ -r /sys/bus/nd/devices/$region/mapping0 ]] &&
		read -r nmem <"/sys/bus/nd/devices/$region/mapping0"
	nmem=${nmem%%,*}
	[[ $nmem == nmem* ]] || fail "pmem_devdax: $region has no NVDIMM mapping (not an NFIT pmem region?)"

	out=$(ndctl list -N -X -m devdax -r "$region" 2>&1)
	if [[ $out == *'"chardev":"dax'* ]]; then
		log "pmem: reusing the devdax namespace on $region (kept backing file)"
	else
		# A blank label area leaves the region label-less (one raw
		# namespace, no sizing); a valid index block makes it
		# provisionable.  Labels can only be written while the region
		# is disabled.
		if ! ndctl check-labels "$nmem" >/dev/null 2>&1; then
			ndctl disable-region "$region" >/dev/null 2>&1 ||
				fail "pmem_devdax: ndctl disable-region $region failed"
			out=$(ndctl init-labels "$nmem" 2>&1) ||
				fail "pmem_devdax: ndctl init-labels $nmem failed: $out"
			ndctl enable-region "$region" >/dev/null 2>&1 ||
				fail "pmem_devdax: ndctl enable-region $region failed"
		fi
		out=$(ndctl create-namespace -r "$region" -m devdax -a "$align" 2>&1) ||
			fail "pmem_devdax: ndctl create-namespace -r $region -m devdax -a $align failed: ${out//$'\n'/ }"
	fi
	[[ $out =~ \"chardev\":[[:space:]]*\"(dax[0-9]+\.[0-9]+)\" ]] ||
		fail "pmem_devdax: no dax device in ndctl's answer: ${out//$'\n'/ }"
	dev=${BASH_REMATCH[1]}
	wait_until 10 test -c "/dev/$dev" ||
		fail "pmem_devdax: /dev/$dev did not appear (its driver: $(readlink "/sys/bus/dax/devices/$dev/driver" || echo none))"
	sys=/sys/bus/dax/devices/$dev
	PMEM_DAX=/dev/$dev
	{ read -r PMEM_START <"$sys/resource" && read -r PMEM_SIZE <"$sys/size" &&
	  read -r PMEM_ALIGN <"$sys/align"; } 2>/dev/null ||
		fail "pmem_devdax: cannot read $sys/{resource,size,align}"
	[[ $PMEM_START =~ ^0x[0-9a-f]+$ && $PMEM_SIZE =~ ^[1-9][0-9]*$ ]] ||
		fail "pmem_devdax: $sys: resource '$PMEM_START' size '$PMEM_SIZE'"
	m=$(_pmem_iomem_range "$PMEM_START" "$PMEM_SIZE") ||
		fail "pmem_devdax: $PMEM_DAX ($PMEM_START + $PMEM_SIZE) is in no \"Persistent Memory\" range of /proc/iomem: $(grep -i -e persistent -e dax /proc/iomem | tr '\n' ';')"
	log "pmem: $PMEM_DAX at $PMEM_START, $PMEM_SIZE bytes, align $PMEM_ALIGN, in [$m]"
	export PMEM_DAX PMEM_START PMEM_SIZE PMEM_ALIGN
}
