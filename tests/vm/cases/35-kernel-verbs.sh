#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Kernel consumers: tests/kmod/siw2_ktest.ko drives the kernel verbs of a
# siw2 device as a ULP would, including what user space cannot reach
# (get_dma_mr via ib_alloc_pd, alloc_mr + map_mr_sg), and the error paths.
# Object counts must return to zero after it, and the module must unload.
# timeout: 300
source "$SIW2_TOP/tests/vm/lib.sh"

ktest=$SIW2_TOP/tests/kmod/siw2_ktest.ko
[[ -f $ktest ]] || fail "missing $ktest (make ktest)"

siw2_load
ns_dummy - kt0
siw2_link_add - siw2_k kt0 || fail "rdma link add siw2_k"

# A mark, not "dmesg -C": the harness scans the whole kernel log, so a
# warning from the module load or rdma link add must stay in it.
echo "siw2-test: ktest starts" >/dev/kmsg
klog() { dmesg | sed -n '/siw2-test: ktest starts/,$p' | grep siw2_ktest; }
if ! insmod "$ktest" dev=siw2_k; then
	klog
	fail "siw2_ktest reported failures"
fi
klog
klog | grep -q 'siw2_ktest: not ok' && fail "a check failed"
n=$(klog | grep -c 'siw2_ktest: ok')
[[ $n -ge 30 ]] || fail "only $n checks ran"
rmmod siw2_ktest || fail "rmmod siw2_ktest"

for k in ucontexts pds cqs mrs srqs qps; do
	c=$(siw2_count "$k" siw2_k) || fail "no debugfs count for $k"
	[[ $c -eq 0 ]] || fail "$k count is $c after the kernel test"
done
siw2_link_del siw2_k || fail "rdma link delete siw2_k"
siw2_assert_zero_counts
siw2_unload
log "kernel verbs: $n checks passed"
