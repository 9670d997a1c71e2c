#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Install the Debian packages siw2 needs to build and to run its VM test
# suite.  Idempotent: only missing packages are installed, and the (slow)
# "apt-get update" runs only when something is missing, so a fully set up
# machine pays nothing but one dpkg-query call.
#
# Packages are installed without their recommended packages: those of
# qemu-system-x86 alone pull a GTK desktop stack (qemu-system-gui) that
# nothing here runs.  Every package a step uses is named below instead,
# including those that another package here only recommends: iproute2
# (rdma-core), cpio, kmod, bc, flex and bison (linux-source-6.12), python3
# (nfs-kernel-server), libc6-dev (gcc).  make check-fresh found the rest
# that a minimal Debian root lacks: perl's modules and procps.
#
#   tools/install-deps.sh          build + test packages (make check, CI)
#   tools/install-deps.sh bench    those plus the benchmark's (make bench)
#   tools/install-deps.sh fresh    what make check-fresh needs on the host
#   tools/install-deps.sh debug    those plus the debug kernel build's (make debug-kernel)
set -euo pipefail

PKGS=(
	qemu-system-x86		# the TCG guest that runs every module test
	linux-image-6.12-amd64	# guest kernel and its modules
	linux-headers-6.12-amd64	# to build siw2.ko
	linux-headers-amd64	# Debian 12's default kernel (6.1): tools/build-compat.sh
	linux-image-amd64 linux-source-6.1	# 6.1 as a guest, Linux siw for it: tools/check-kernel.sh 6.1
	dkms debhelper dh-dkms	# make dkms-install; the packages (tools/build-debs.sh)
	build-essential		# dpkg-buildpackage's implicit build dependency
	linux-source-6.12	# scripts/checkpatch.pl
	sparse			# tools/sparse.sh (make sparse: C=2)
	coccinelle ocaml-nox	# tools/coccicheck.sh (spatch; some rules run OCaml)
	rdma-core ibverbs-utils rdmacm-utils perftest
	nfs-kernel-server	# cases 64, 74: exportfs, rpc.mountd, rpcbind, nfsdcld, mount.nfs
	fio			# cases 74, 91, 92: verified NFS and NVMe I/O; make bench NVMe rows
	libibverbs-dev librdmacm-dev
	busybox-static cpio kmod iproute2 xz-utils	# initramfs + guest tools
	gcc libc6-dev make pkg-config strace	# gcc only recommends libc6-dev
	perl			# kernel-doc (W=1 module builds) needs Pod::Usage
	procps			# pgrep/pkill in the VM cases
	tshark			# case 66: decode a capture of the atomic traffic
	iperf3			# make demo: TCP throughput on the same veth
	wireguard-tools		# case 87: siw2 over a WireGuard tunnel (wg)
	libfabric-bin		# case 89: fi_info, fi_pingpong (verbs, verbs;ofi_rxm)
	openmpi-bin libopenmpi-dev	# case 90: mpirun, mpicc (tests/progs/mpi_check)
	nvme-cli		# cases 91, 92, make bench: nvme connect, DH-HMAC-CHAP keys
	ndctl daxctl		# emulated NVDIMM: device-DAX namespaces (lib.sh pmem_devdax)
	e2fsprogs		# case 86: mkfs.ext4 (Debian 13 no longer installs it by default)
	flex bison bc python3	# KUnit: UML kernel build from linux-source + kunit.py
	# tests/fuzz: clang -fsanitize=fuzzer needs the compiler-rt package of
	# clang's own major version; libclang-rt-dev (llvm-defaults, like
	# clang) depends on exactly that one: libclang-rt-14-dev on Debian 12,
	# libclang-rt-19-dev on Debian 13.
	clang libclang-rt-dev
	# make check's vm13 stage (tools/check-release.sh trixie) debootstraps
	# its Debian 13 root once, with the host's debootstrap and keyring.
	debootstrap debian-archive-keyring
)

# Only "make bench" needs these (tools/bench.sh): TCP baselines in the
# guest and the plots on the host.
BENCH_PKGS=(
	sockperf		# TCP ping-pong latency (iperf3 is in PKGS)
	gnuplot-nox		# bandwidth.png, latency.png
	linux-perf		# tests/vm/bench/profile.sh: CPU profile in the guest
)

# "make check-fresh" needs these (tools/check-fresh.sh), on the host that
# builds the clean root; the root itself installs PKGS.  debootstrap and
# the keyring are in PKGS too (make check's vm13 stage); git only here.
FRESH_PKGS=(
	debootstrap debian-archive-keyring	# the clean Debian root
	git			# git archive of HEAD
)

# Only "make debug-kernel" and what runs on that kernel need these
# (tools/debug-kernel.sh): a full x86_64 kernel build (objtool needs
# libelf, the key tools libssl); lcov turns the gcov counters of siw2 into
# the coverage report (tools/coverage.sh); the long fuzz runs on it go
# faster with the CRC in C.
DEBUG_PKGS=(
	libelf-dev libssl-dev
	lcov
	python3-crc32c		# tools/fuzz-long.sh: the fuzzer's CRC32c in C
)

# Debian 12 has two kernels: its default, 6.1 (linux-image-amd64 and
# linux-headers-amd64, for tools/build-compat.sh and tools/check-kernel.sh),
# and 6.12, named by series, which the suite runs.
# Debian 13 has 6.12 alone, under the plain names.
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
if [[ $codename == trixie ]]; then
	deb13=()
	for p in "${PKGS[@]}"; do
		case $p in
		linux-image-6.12-amd64) deb13+=(linux-image-amd64) ;;
		linux-headers-6.12-amd64) ;;	# linux-headers-amd64 is 6.12 here
		linux-image-amd64 | linux-source-6.1) ;;	# no 6.1 kernel here
		*) deb13+=("$p") ;;
		esac
	done
	PKGS=("${deb13[@]}")
fi

want=("${PKGS[@]}")
case ${1:-} in
'') ;;
bench) want+=("${BENCH_PKGS[@]}") ;;
fresh) want=("${FRESH_PKGS[@]}") ;;
debug) want+=("${DEBUG_PKGS[@]}") ;;
*) echo "install-deps: unknown argument '$1' (usage: $0 [bench|fresh|debug])" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ "$st" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
	echo "install-deps: all ${#want[@]} packages present"
	exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
	command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
	SUDO=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
