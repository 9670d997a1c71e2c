#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The siw2 provider next to another driver's devices: with our provider
# loaded (RDMAV_DRIVERS), libibverbs must still enumerate and open an
# rdma_rxe device through librxe, alone and beside a siw2 device, and our
# provider must claim only the siw2 one.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"
need rdma ibv_devices ibv_devinfo

modprobe rdma_rxe || fail "rdma_rxe not available"
ns_dummy - co_r
rdma link add rxe_co type rxe netdev co_r || fail "rdma link add rxe_co"

# Only a foreign device present, our provider loaded.
out=$(ibv_devices 2>&1) || fail "ibv_devices with only rxe_co: $out"
[[ $out == *rxe_co* ]] || fail "ibv_devices misses rxe_co: $out"
out=$(ibv_devinfo -d rxe_co 2>&1) || fail "ibv_devinfo -d rxe_co: $out"

siw2_load
ns_dummy - co_s
siw2_link_add - siw2_co co_s || fail "rdma link add siw2_co"
out=$(ibv_devices 2>&1) || fail "ibv_devices with both: $out"
[[ $out == *rxe_co* && $out == *siw2_co* ]] || fail "ibv_devices lists: $out"
out=$(ibv_devinfo -d rxe_co 2>&1) || fail "ibv_devinfo -d rxe_co beside siw2: $out"
[[ $out == *"transport:"*"InfiniBand"* ]] || fail "rxe_co not opened by librxe: $out"
out=$(ibv_devinfo -d siw2_co 2>&1) || fail "ibv_devinfo -d siw2_co: $out"
[[ $out == *"transport:"*"iWARP"* ]] || fail "siw2_co transport: $out"

siw2_link_del siw2_co || fail "rdma link delete siw2_co"
rdma link delete rxe_co || fail "rdma link delete rxe_co"
siw2_assert_zero_counts
siw2_unload
log "provider coexists with librxe"
