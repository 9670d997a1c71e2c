# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# siw2: software iWARP RDMA device (kernel module + rdma-core provider).
#
#   make            build drivers/siw2/siw2.ko, the provider and test programs
#   make install    install the module (depmod) and the provider system-wide
#   make check      the whole suite: host checks, KUnit (UML), the VM cases,
#                   the core VM cases on Linux 6.1 (vm61) and on a Debian 13
#                   root (vm13; root needed) (installs missing packages first)
#   make check-trixie  only the vm13 stage: the core VM cases and those that
#                   need rdma-core 56 in a cached Debian 13 root (chroot;
#                   tools/check-release.sh trixie; root needed)
#   make kunit      only the KUnit suites (tests/kunit/run.sh)
#   make demo       boot a VM with two namespaces and show siw2 devices working
#   make bench      siw2 vs Linux siw, rxe and TCP in one VM (tools/bench.sh;
#                   BENCH_QUICK=1 for a short run); results in build/bench/
#   make bench-pmlog  RDMA Commit (push) against Write + Send (classic) on a
#                   remote log on emulated pmem, two guests (tools/bench-pmlog.sh)
#   make check-crash  the power-fail test of RDMA Commit: a server guest's
#                   QEMU killed in mid-append (CRASH_KILLS, 20 per mode), the
#                   next guest on the same NVDIMM file recovers the log, which
#                   must hold every acknowledged record (tools/check-crash.sh;
#                   about 30 minutes; not part of make check)
#   make bench-ab REVS="A B"  siw2 built from revisions (or built trees) A,
#                   B, ... compared in one VM, interleaved (tools/bench-ab.sh)
#   make fuzz-lib   the libFuzzer target of the pure protocol code
#                   (tests/fuzz/run.sh) for FUZZ_TIME seconds (default 60)
#   make debug-kernel  build and install the debug guest kernel (KASAN,
#                   lockdep, kmemleak, ...; tools/debug-kernel.sh; root)
#   make check-debug  the suite with its VM cases on that kernel
#                   (tools/check-debug.sh; not part of make check)
#   make soak       only the soak VM case (tests/vm/cases/72-soak.sh) for
#                   SOAK_SECS seconds of traffic (default 1800; make check
#                   runs it for 120): mixed user and kernel traffic with
#                   link flaps, checked end to end
#   make dkms-install  register the module's source with DKMS
#                   (/usr/src/siw2-VERSION) and build and install it for
#                   KVER; DKMS rebuilds it for every kernel whose headers
#                   are installed later (make dkms-uninstall removes it)
#   make check-fresh  make demo, then make check, each once, in a clean
#                   Debian 12 root (debootstrap + chroot; needs root; not
#                   part of make check; tools/check-fresh.sh)
#
# KDIR defaults to the running kernel's build tree if it is a 6.12 kernel
# and that tree exists, else to the newest installed Debian 6.12 headers.
# KDIR and KVER are never exported: the targets that install packages first
# (check, demo, kunit, check-fresh) build in a sub-make, which resolves them
# again after the headers are there.  A KDIR= given on the command line
# reaches every sub-make through MAKEFLAGS.

TOP := $(CURDIR)
RUNNING_BUILD := $(wildcard /lib/modules/$(shell uname -r)/build)
ifeq ($(origin KDIR),undefined)
  ifneq ($(and $(RUNNING_BUILD),$(filter 6.12.%,$(shell uname -r))),)
    KDIR := $(RUNNING_BUILD)
  else
    KDIR := $(lastword $(sort $(wildcard /usr/src/linux-headers-6.12*-amd64)))
  endif
endif
# siw2's version: dkms.conf's PACKAGE_VERSION.
SIW2_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' $(TOP)/dkms.conf)
DKMS_SRC := /usr/src/siw2-$(SIW2_VERSION)
KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

.PHONY: all module sparse ktest provider progs pmlog rpcrdma peer kunit fuzz-lib install uninstall dkms-src dkms-install dkms-uninstall check check-host check-fresh check-trixie demo deps clean checkpatch bench bench-ab bench-pmlog check-crash debug-kernel check-debug coverage soak nfs-long

all: module ktest provider progs pmlog rpcrdma

NEED_KDIR = @test -d "$(KDIR)" || { echo "KDIR not found: install linux-headers-6.12-amd64 (tools/install-deps.sh) or set KDIR=" >&2; exit 1; }

module:
	$(NEED_KDIR)
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 modules

# sparse over every driver file (C=2: checked even when up to date); the
# same W=1 as "module", so no object is rebuilt. tools/sparse.sh judges.
sparse:
	$(NEED_KDIR)
	$(MAKE) -C $(KDIR) M=$(TOP) W=1 C=2 modules

# In-kernel verbs test module, loaded only inside the test VM.
# siw2_kext calls siw2_post_commit(): siw2.ko's Module.symvers resolves it.
ktest: module
	$(NEED_KDIR)
	$(MAKE) -C $(KDIR) M=$(TOP)/tests/kmod W=1 \
		KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers modules

provider:
	$(MAKE) -C userspace-provider

progs: provider
	$(MAKE) -C tests/progs

# tools/pmlog/siw2-pmlog: RDMA Commit against Write + Send on a remote log.
pmlog: provider
	$(MAKE) -C tools/pmlog

# tools/rpcrdma: RPC-over-RDMA Versions 1 and 2 in user space (issue 19).
rpcrdma:
	$(MAKE) -C tools/rpcrdma

# Debian's headers ask for module signing but carry no key; the module is
# installed unsigned (signatures are not enforced), so skip the attempt.
install: module provider rpcrdma
	$(NEED_KDIR)
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_DIR=updates CONFIG_MODULE_SIG_ALL= modules_install
	depmod -a $(KVER)
	$(MAKE) -C userspace-provider install
	$(MAKE) -C tools/rpcrdma install

uninstall:
	rm -f /lib/modules/$(KVER)/updates/drivers/siw2/siw2.ko*
	-rmdir /lib/modules/$(KVER)/updates/drivers/siw2 2>/dev/null
	depmod -a $(KVER)
	$(MAKE) -C userspace-provider uninstall
	$(MAKE) -C tools/rpcrdma uninstall

# The module's source as DKMS builds it (the top Kbuild, the driver, the
# uapi headers and the kernel API header it includes) in $(DESTDIR)/usr/src/siw2-VERSION; the
# siw2-dkms package is this (debian/rules).
dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	install -d $(DESTDIR)$(DKMS_SRC)/drivers/siw2 $(DESTDIR)$(DKMS_SRC)/include/uapi/rdma \
		$(DESTDIR)$(DKMS_SRC)/include/siw2
	install -m 0644 dkms.conf Kbuild LICENSE $(DESTDIR)$(DKMS_SRC)/
	install -m 0644 drivers/siw2/Kbuild drivers/siw2/compat.mk $(filter-out %.mod.c,$(wildcard drivers/siw2/*.c)) \
		drivers/siw2/*.h $(DESTDIR)$(DKMS_SRC)/drivers/siw2/
	install -m 0644 include/uapi/rdma/siw2-*.h $(DESTDIR)$(DKMS_SRC)/include/uapi/rdma/
	install -m 0644 include/siw2/*.h $(DESTDIR)$(DKMS_SRC)/include/siw2/

# That source registered with DKMS, then built and installed for KVER;
# any earlier registration of this version goes first.
dkms-install:
	$(NEED_KDIR)
	@command -v dkms >/dev/null || { echo "dkms not installed (apt-get install dkms)" >&2; exit 1; }
	-dkms remove siw2/$(SIW2_VERSION) --all >/dev/null 2>&1
	$(MAKE) dkms-src DESTDIR=
	dkms add siw2/$(SIW2_VERSION)
	dkms install siw2/$(SIW2_VERSION) -k $(KVER)

dkms-uninstall:
	-dkms remove siw2/$(SIW2_VERSION) --all
	rm -rf $(DKMS_SRC)

deps:
	tools/install-deps.sh

# Linux siw.ko, the interoperability peer of the VM tests (built from
# Debian's linux-source-6.12, cached outside the repo, never committed).
peer:
	tools/build-siw.sh

kunit: deps
	tests/kunit/run.sh

# tests/run-all.sh runs a fixed 100000-input slice; this runs longer.
FUZZ_TIME ?= 60
# Guests at once in make check's VM stage: each runs on one host core
# (single-threaded TCG), so two on the 2-core machines CI uses.
VM_JOBS ?= 2
# Host builds (module, provider, peer) use every core.
NPROC := $(shell nproc)
fuzz-lib: deps
	tests/fuzz/run.sh --time $(FUZZ_TIME)

check: deps
	$(MAKE) -j$(NPROC) all peer
	tests/run-all.sh -j$(VM_JOBS)

# The host stage of make check alone (no VM, no KUnit): the builds,
# checkpatch, conformance, layering, parameters, fuzz slice, packages.
check-host: deps
	$(MAKE) -j$(NPROC) all
	tests/run-all.sh --host

demo: deps
	$(MAKE) -j$(NPROC) all
	tools/demo.sh

# The case reads its duration from the guest's kernel command line; its
# 300 s budget ("# timeout:") is scaled to cover the run (times any scale
# already set, e.g. the debug kernel's).
SOAK_SECS ?= 1800
soak: deps
	$(MAKE) all
	SIW2_VM_APPEND="$(strip $(SIW2_VM_APPEND) siw2_soak_secs=$(SOAK_SECS))" \
	SIW2_VM_TIMEOUT_SCALE=$$(( ($(SOAK_SECS) + 180 + 299) / 300 * $${SIW2_VM_TIMEOUT_SCALE:-1} )) \
		tests/vm/run.sh tests/vm/cases/72-soak.sh

# Case 74 with 1 GiB of verified fio I/O per NFS version (make check runs
# 256 MiB); the server's tmpfs holds it, so the guest gets more memory.
NFS_LONG_MIB ?= 1024
nfs-long: deps
	$(MAKE) all
	SIW2_VM_MEM=$${SIW2_VM_MEM:-3G} \
	SIW2_VM_APPEND="$(strip $(SIW2_VM_APPEND) SIW2_NFS_SIZE=$(NFS_LONG_MIB))" \
	SIW2_VM_TIMEOUT_SCALE=$$(( 2 * $${SIW2_VM_TIMEOUT_SCALE:-1} )) \
		tests/vm/run.sh tests/vm/cases/74-nfs-real-use.sh

# The README's two commands on a clean Debian 12 root (root needed).
check-fresh:
	$(if $(filter 0,$(shell id -u)),,sudo) tools/check-fresh.sh

# make check's vm13 stage alone (root needed): the Debian 13 root is made
# once (debootstrap: tools/install-deps.sh fresh) and kept in check-fresh's
# cache.
check-trixie:
	$(if $(filter 0,$(shell id -u)),,sudo) tools/check-release.sh trixie -j$(VM_JOBS)

# Issue 17's debug guest kernel, installed beside Debian's (root needed).
debug-kernel:
	tools/install-deps.sh debug
	$(if $(filter 0,$(shell id -u)),,sudo) tools/debug-kernel.sh

check-debug: debug-kernel
	tools/install-deps.sh
	$(if $(filter 0,$(shell id -u)),,sudo) tools/check-debug.sh

# Issue 36: coverage of drivers/siw2 by make check's VM cases and the
# KUnit module, on the coverage kernel (gcov, no checkers; root needed).
# Report: build/coverage/coverage/ (summary.txt, unreached.txt, siw2.info).
coverage:
	tools/install-deps.sh debug
	$(if $(filter 0,$(shell id -u)),,sudo) tools/debug-kernel.sh --coverage
	$(if $(filter 0,$(shell id -u)),,sudo) tools/check-debug.sh --coverage -j$(VM_JOBS) \
		$(sort $(wildcard tests/vm/cases/*.sh))

bench:
	tools/install-deps.sh bench
	$(MAKE) all peer
	tools/bench.sh

bench-pmlog:
	tools/install-deps.sh
	$(MAKE) all
	tools/bench-pmlog.sh

# Issue 34 item 4: tools/check-crash.sh kills the server guest's QEMU
# while a client guest appends to its log, CRASH_KILLS times per mode.
check-crash:
	tools/install-deps.sh
	$(MAKE) all
	tools/check-crash.sh

bench-ab:
	@test -n "$(REVS)" || { echo 'usage: make bench-ab REVS="A B" (git revisions or built trees)' >&2; exit 1; }
	tools/install-deps.sh bench
	tools/bench-ab.sh $(REVS)

checkpatch:
	tools/checkpatch.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(TOP) clean
	-$(MAKE) -C $(KDIR) M=$(TOP)/tests/kmod clean
	-$(MAKE) -C userspace-provider clean
	-$(MAKE) -C tests/progs clean
	-$(MAKE) -C tools/pmlog clean
	-$(MAKE) -C tools/rpcrdma clean
