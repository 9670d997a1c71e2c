# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Host-side VM machinery shared by tests/vm/run.sh and tools/demo.sh.
# Source it; it defines:
#
#   vm_kernel            echo "VERSION IMAGE" of the newest installed 6.12.*-amd64,
#                        or of SIW2_VM_KVER if set (the debug kernel)
#   vm_initramfs KVER    echo the cached initramfs for KVER, (re)building it
#                        when the kernel or tests/vm/mkinitramfs.sh changed
#   vm_modindex KVER KO  echo a cached directory of module index files
#                        (depmod output) that include KO as updates/siw2.ko
#   vm_boot RESDIR TIMEOUT CONSOLE MODE SCRIPT
#                        boot one fresh guest that runs SCRIPT (absolute path
#                        inside the repo) and powers off.  RESDIR is a host
#                        directory shared read-write with the guest (mounted
#                        at /run/siw2): the guest leaves there
#                          out      the script's stdout+stderr
#                          rc       its exit status
#                          dmesg    the complete kernel log at the end
#                          dmesg.live  the kernel log streamed while running
#                                   (what survives a hung guest)
#                          boot     guest uptime (s) when SCRIPT started
#                          results/ = $SIW2_RESULTS
#                          modindex/ module indexes including siw2.ko
#                        MODE "run": output only to RESDIR/out, console (the
#                        serial line: kernel messages of warning level and
#                        worse, loglevel=5, from boot to power-off) to
#                        CONSOLE.  MODE "demo": output also to the
#                        terminal; the console shows errors only (quiet).
#                        Returns 0 when the guest ran to power-off, 124 when
#                        TIMEOUT seconds passed (QEMU is then killed), else
#                        QEMU's status.
#
# Environment: SIW2_VM_ACCEL (default tcg,thread=single; "kvm" where nested
# KVM works), SIW2_VM_MEM (2G), SIW2_VM_SMP (2), SIW2_VM_APPEND (extra
# kernel command line words), SIW2_VM_FAST (1; 0 = no boot-time trims),
# SIW2_VM_NIC (QEMU's -nic; default none: the guest has no network to the
# outside. tools/fuzz-long.sh gives it user-mode networking with ports
# forwarded from the host's loopback, so traffic stays on this machine;
# run.sh joins a two-guest case's guests by a tap link or a socket network),
# SIW2_VM_PIDFILE (QEMU writes its pid there), SIW2_VM_NETNS (the pid of a
# process whose network namespace QEMU runs in: run.sh's tap link).
#
# Emulated persistent memory (opt-in; without it the guest boots exactly as
# before): a script whose header has the line "# pmem: 256M", or
# SIW2_VM_PMEM=256M in the environment (which wins), gets one QEMU NVDIMM
# of that size (MiB, multiple of 2, at least 16M) with a 128 KiB label
# area, and "siw2_pmem=256M" on its kernel command line.  Its backing is a
# host file RESDIR.pmem (sparse, outside the shared RESDIR) made fresh for
# each boot and removed after it, so every guest starts with blank labels.
# SIW2_VM_PMEM_FILE=PATH uses PATH instead and keeps it across boots (to
# find there what an earlier guest made durable): created sparse when
# missing, refused when its size does not match; one guest at a time (two
# would share its memory: not with run.sh -j).  In the guest, lib.sh's
# pmem_devdax makes a device-DAX namespace on it.

SIW2_TOP=${SIW2_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
SIW2_VM_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/siw2-vm

# Kernel log lines that fail a case (run.sh) or the demo, whatever the
# exit status.  \bBUG\b so that "DEBUG" does not match; kmemleak's leak
# report, not its start-up line (the debug kernel, tools/debug-kernel.sh);
# ODEBUG and "possible ... locking" reports come with a WARNING.
KLOG_BAD='WARNING:|\bBUG\b|Oops|refcount_t|list_del corruption|list_add corruption|sleeping function called from invalid context|unregister_netdevice: waiting|KASAN|KFENCE|UBSAN|general protection|kmemleak: [0-9]+ new suspected|Call Trace|Kernel panic'
# A user-space program's fault is logged as "traps: PROG[PID] general
# protection fault ip:... in LIB[...]": the program's bug, not the kernel's
# (perftest 4.5-0.17 crashes that way in librdmacm, see 62-dp-perftest.sh);
# the case judges the program's exit.
KLOG_USER=' traps: [^ ]+\[[0-9]+\] .* in [^ ]+\['

# klog_part all|boot|case FILE...: the kernel log lines, those before the
# guest's "siw2-vm: running" marker (the boot), or those from it on (run.sh,
# tools/fuzz-long.sh).
klog_part() {
	local part=$1 f
	shift
	for f in "$@"; do
		[[ -f $f ]] || continue
		case $part in
		boot) sed '/siw2-vm: running/,$d' "$f" ;;
		case) sed -n '/siw2-vm: running/,$p' "$f" ;;
		*) cat "$f" ;;
		esac
	done
}

vm_kernel() {
	local img ver
	if [[ -n ${SIW2_VM_KVER:-} ]]; then
		# Another installed kernel, e.g. tools/debug-kernel.sh's.
		img=/boot/vmlinuz-$SIW2_VM_KVER
		[[ -f $img ]] || { echo "vm: no $img (SIW2_VM_KVER)" >&2; return 1; }
	else
		img=$(ls -1 /boot/vmlinuz-6.12*-amd64 2>/dev/null | sort -V | tail -n1)
	fi
	[[ -n $img ]] || { echo "vm: no /boot/vmlinuz-6.12*-amd64 (run tools/install-deps.sh)" >&2; return 1; }
	ver=${img#/boot/vmlinuz-}
	[[ -d /lib/modules/$ver ]] || { echo "vm: no /lib/modules/$ver" >&2; return 1; }
	echo "$ver $img"
}

vm_initramfs() {
	local kver=$1 gen=$SIW2_TOP/tests/vm/mkinitramfs.sh key out
	key=$( { echo "$kver"; stat -c %Y "/lib/modules/$kver/modules.dep"; cat "$gen"; } |
		sha256sum | cut -c1-16)
	out=$SIW2_VM_CACHE/initramfs-$kver-$key.cpio.gz
	if [[ ! -s $out ]]; then
		mkdir -p "$SIW2_VM_CACHE"
		# Drop stale images of this kernel so the cache does not grow.
		rm -f "$SIW2_VM_CACHE/initramfs-$kver-"*.cpio.gz
		bash "$gen" "$kver" "$out" >&2 || return 1
	fi
	echo "$out"
}

# vm_modindex KVER KO: echo a directory holding the kernel's module index
# files (modules.dep, .alias, .symbols and their .bin forms) regenerated
# with KO installed as updates/siw2.ko.  Running depmod -a inside the TCG
# guest takes minutes (it decompresses all ~4000 .ko.xz); on the host it
# takes seconds, and the result only depends on what siw2.ko declares
# (dependencies, aliases, exported symbols), so it is cached under that key.
vm_modindex() {
	local kver=$1 ko=$2 key dir base tmp
	key=$( { echo "$kver"; stat -c %Y "/lib/modules/$kver/modules.dep";
		modinfo -F depends "$ko"; modinfo -F alias "$ko"; modinfo -F softdep "$ko";
		nm -g --defined-only "$ko" 2>/dev/null | grep -o '__ksymtab_.*'; } |
		sha256sum | cut -c1-16) || return 1
	dir=$SIW2_VM_CACHE/modindex-$kver-$key
	if [[ ! -s $dir/modules.dep.bin ]]; then
		mkdir -p "$SIW2_VM_CACHE"
		rm -rf "$SIW2_VM_CACHE/modindex-$kver-"*
		tmp=$(mktemp -d "$SIW2_VM_CACHE/.modindex.XXXXXX")
		base=$tmp/lib/modules/$kver
		mkdir -p "$base/updates"
		# depmod follows the symlink: the stock modules are indexed in
		# place, under the same relative paths as in the guest.
		ln -s "/lib/modules/$kver/kernel" "$base/kernel"
		cp /lib/modules/"$kver"/modules.{order,builtin,builtin.modinfo} "$base/"
		cp "$ko" "$base/updates/siw2.ko"
		echo "vm: indexing modules with siw2.ko (depmod, once per siw2 dependency change)" >&2
		depmod -b "$tmp" "$kver" || { rm -rf "$tmp"; return 1; }
		mkdir -p "$tmp/out"
		cp "$base"/modules.* "$tmp/out/"
		rm -f "$tmp"/out/modules.{order,builtin,builtin.modinfo}
		mv "$tmp/out" "$dir"
		rm -rf "$tmp"
	fi
	echo "$dir"
}

# QEMU keeps an NVDIMM's label area at the end of its backing file, outside
# the guest-visible range: the file is the persistent memory plus this.
SIW2_VM_PMEM_LABEL_KIB=128

# vm_pmem_size SCRIPT: echo the persistent memory size in MiB the guest of
# SCRIPT gets (SIW2_VM_PMEM, else its "# pmem: SIZE" header), nothing when
# none; return 1 on a malformed or unusable size.
vm_pmem_size() {
	local want n
	want=${SIW2_VM_PMEM:-$(sed -n 's/^#[[:space:]]*pmem:[[:space:]]*\([0-9][0-9]*[MmGg]\{0,1\}\)\([[:space:]].*\)\{0,1\}$/\1/p' "$1" | head -n1)}
	[[ -z $want ]] && return 0
	n=$(vm_mem_mib "$want") || n=x
	# Linux maps ZONE_DEVICE memory in 2 MiB subsections; a devdax
	# namespace also spends some of it on its info block and memmap.
	if ! [[ $n =~ ^[0-9]+$ ]] || (( n < 16 || n % 2 )); then
		echo "vm: pmem size '$want': give an even number of MiB (at least 16M), like 256M or 1G" >&2
		return 1
	fi
	echo "$n"
}

# vm_mem_mib SIZE: QEMU's -m SIZE (default unit MiB) in MiB.
vm_mem_mib() {
	local v=$1
	case $v in
	*[Gg]) v=${v%?}; [[ $v =~ ^[0-9]+$ ]] && echo $(( v * 1024 )) ;;
	*[Mm]) v=${v%?}; [[ $v =~ ^[0-9]+$ ]] && echo "$v" ;;
	*) [[ $v =~ ^[0-9]+$ ]] && echo "$v" ;;
	esac
}

# vm_pmem_file RESDIR MIB: echo the NVDIMM's backing file, made (sparse)
# when missing; return 1 when a kept file has another size.
vm_pmem_file() {
	local f=${SIW2_VM_PMEM_FILE:-${1%/}.pmem}
	local bytes=$(( ($2 * 1024 + SIW2_VM_PMEM_LABEL_KIB) * 1024 )) have
	[[ -n ${SIW2_VM_PMEM_FILE:-} ]] || rm -f "$f"
	if [[ -e $f ]]; then
		have=$(stat -c %s "$f") || return 1
		if [[ $have != "$bytes" ]]; then
			echo "vm: $f holds $have bytes, the ${2}M NVDIMM needs $bytes: remove it or fix SIW2_VM_PMEM" >&2
			return 1
		fi
	else
		mkdir -p "$(dirname "$f")" && truncate -s "$bytes" "$f" || return 1
	fi
	echo "$f"
}

vm_boot() {
	local resdir=$1 tmo=$2 console=$3 mode=$4 script=$5
	local kver img initrd rc pmem pmemfile=
	read -r kver img < <(vm_kernel) || return 1
	[[ -n $kver ]] || return 1
	initrd=$(vm_initramfs "$kver") || return 1
	case $SIW2_TOP in
	*[[:space:]]*) echo "vm: repo path must not contain white space: $SIW2_TOP" >&2; return 1 ;;
	esac

	mkdir -p "$resdir/results"
	rm -rf "$resdir"/{out,rc,dmesg,dmesg.live,boot,end,modindex}
	# Module indexes with siw2 for lib.sh's siw2_install_only (see above).
	local ko=$SIW2_TOP/drivers/siw2/siw2.ko idx
	if [[ -f $ko ]] && idx=$(vm_modindex "$kver" "$ko"); then
		cp -r "$idx" "$resdir/modindex"
	fi
	# The guest sources this; %q keeps any value intact.
	{
		printf 'SIW2_MODE=%q\n' "$mode"
		printf 'SIW2_SCRIPT=%q\n' "$script"
		printf 'SIW2_TOP=%q\n' "$SIW2_TOP"
		printf 'SIW2_TIMEOUT_SCALE=%q\n' "${SIW2_VM_TIMEOUT_SCALE:-1}"
		# The RDMA driver of the NVMe cases (lib-nvme.sh), for a
		# comparison run on Linux siw.
		[[ -z ${SIW2_NVME_DRV:-} ]] || printf 'export SIW2_NVME_DRV=%q\n' "$SIW2_NVME_DRV"
	} >"$resdir/job"

	# Boot-time trims, each worth a fraction of a second under TCG:
	#   lpj=           skip the BogoMIPS calibration per CPU (delays use the TSC)
	#   acpi=noirq     skip probing the ACPI PCI interrupt links (~1 s);
	#                  the BIOS PIRQ table routes the virtio interrupts fine
	#   cryptomgr.notests, 8250.nr_uarts=1, no_timer_check  less probing
	# SIW2_VM_FAST=0 drops them if a kernel ever misbehaves with them.
	local fast="lpj=8000000 acpi=noirq cryptomgr.notests 8250.nr_uarts=1 no_timer_check"
	[[ ${SIW2_VM_FAST:-1} == 0 ]] && fast=
	# The final kernel log is saved before power-off starts; a WARNING
	# printed while powering off (device shutdown, module exit paths)
	# shows only on the console.  loglevel=5 lets warnings (level 4) and
	# worse reach it, so that run.sh's KLOG_BAD scan sees the guest's whole
	# life.  The demo's console is the user's terminal: quiet there.
	local klevel=loglevel=5
	[[ $mode == demo ]] && klevel=quiet
	# thread=single: with one host thread per vCPU (thread=multi), QEMU 7.2
	# intermittently runs a half-patched instruction while the guest
	# live-patches its text (an "Oops: int3" in early boot, ~1 boot in 8).
	# On a 2-core host both modes run the suite equally fast.
	local accel=${SIW2_VM_ACCEL:-tcg,thread=single}
	local mem=${SIW2_VM_MEM:-2G} machine=() nvdimm=() pmemarg=
	pmem=$(vm_pmem_size "$script") || return 1
	if [[ -n $pmem ]]; then
		local memmib
		memmib=$(vm_mem_mib "$mem") ||
			{ echo "vm: SIW2_VM_MEM '$mem': give MiB or a size ending in M or G" >&2; return 1; }
		pmemfile=$(vm_pmem_file "$resdir" "$pmem") || return 1
		# An NVDIMM is a memory device: it needs a hotplug slot and
		# room above the boot RAM (maxmem).  share=on: the guest's
		# stores reach the file; pmem=off: the file is not real pmem,
		# so QEMU does not try to persist it with pmem instructions.
		# nvdimm-persistence=mem-ctrl: the NFIT declares the ADR domain
		# of most real NVDIMM platforms (stores are durable once
		# written back from the CPU caches: Linux shows the region's
		# persistence_domain as "memory_controller", not "unknown").
		machine=(-machine "pc,nvdimm=on,nvdimm-persistence=mem-ctrl")
		mem="$mem,slots=1,maxmem=$((memmib + pmem))M"
		nvdimm=(-object "memory-backend-file,id=siw2pmem,share=on,mem-path=$pmemfile,size=$((pmem * 1024 + SIW2_VM_PMEM_LABEL_KIB))K,pmem=off"
			-device "nvdimm,id=siw2nvdimm0,memdev=siw2pmem,label-size=${SIW2_VM_PMEM_LABEL_KIB}K")
		pmemarg=" siw2_pmem=${pmem}M"
	fi
	local qemu=(qemu-system-x86_64 -accel "$accel" -cpu max "${machine[@]}"
		-smp "${SIW2_VM_SMP:-2}" -m "$mem" "${nvdimm[@]}"
		-nographic -no-reboot -nic "${SIW2_VM_NIC:-none}"
		${SIW2_VM_PIDFILE:+-pidfile "$SIW2_VM_PIDFILE"}
		-kernel "$img" -initrd "$initrd"
		-append "console=ttyS0 tsc=reliable panic=-1 $klevel $fast siw2_top=$SIW2_TOP${pmemarg} ${SIW2_VM_APPEND:-}"
		-virtfs "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
		-virtfs "local,path=$SIW2_TOP,mount_tag=siw2top,security_model=none,readonly=on"
		-virtfs "local,path=$resdir,mount_tag=siw2res,security_model=none")
	[[ -z ${SIW2_VM_NETNS:-} ]] || qemu=(nsenter -t "$SIW2_VM_NETNS" -n -- "${qemu[@]}")
	# timeout: TERM first, KILL if QEMU lingers.  --foreground keeps QEMU in
	# our process group so that Ctrl-C stops it too instead of orphaning it.
	if [[ $mode == demo ]]; then
		# Strip SeaBIOS's terminal resets/clears: they would wipe the
		# user's screen.
		timeout --foreground -k 5 "$tmo" "${qemu[@]}" </dev/null 2>&1 | tee "$console" |
			sed -u 's/\x1bc//g; s/\x1b\[[0-9;?]*[A-Za-z]//g'
		rc=${PIPESTATUS[0]}
	else
		timeout --foreground -k 5 "$tmo" "${qemu[@]}" </dev/null >"$console" 2>&1
		rc=$?
	fi
	[[ $rc -eq 137 ]] && rc=124	# killed after the grace period: still a timeout
	# A fresh backing file lives for one boot; a named one is kept.
	[[ -n $pmemfile && -z ${SIW2_VM_PMEM_FILE:-} ]] && rm -f "$pmemfile"
	return "$rc"
}
