# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Harness self-test: the guest sees the repo at the host's path and the host
# tools, kernel modules load with kmod, and a soft RDMA device (rdma_rxe)
# comes up and is visible to libibverbs.  Needs nothing from siw2.
# timeout: 120
source "$SIW2_TOP/tests/vm/lib.sh"

[[ -f $SIW2_TOP/tests/vm/lib.sh && -f $SIW2_TOP/tests/vm/run.sh ]] || fail "repo not visible at $SIW2_TOP"
[[ $PWD == "$SIW2_TOP" ]] || fail "cwd is $PWD, not $SIW2_TOP"
[[ -d $SIW2_RESULTS && -w $SIW2_RESULTS ]] || fail "SIW2_RESULTS not writable"
echo "hello from $(uname -r)" >"$SIW2_RESULTS/hello" || fail "cannot write results"
touch "$SIW2_TOP/.guest-write-test" || fail "repo view is not writable (overlay)"
rm -f "$SIW2_TOP/.guest-write-test"
need rdma ibv_devices modprobe ip
mountpoint -q /sys/kernel/debug || fail "debugfs not mounted"
[[ $(hostname) == siw2-vm ]] || fail "hostname is $(hostname)"

log "loading ib_core, rdma_rxe"
modprobe ib_core || fail "modprobe ib_core"
modprobe rdma_rxe || fail "modprobe rdma_rxe"
ns_dummy - sanity0
rdma link add rxe0 type rxe netdev sanity0 || fail "rdma link add rxe0"
wait_until 10 eval 'rdma link show | grep -q "rxe0/1"' || fail "rxe0 not in rdma link show"
rdma link show
# Without RDMAV_DRIVERS: this checks the harness, not the siw2 provider.
env -u RDMAV_DRIVERS ibv_devices | tee "$SIW2_RESULTS/ibv_devices"
grep -q rxe0 "$SIW2_RESULTS/ibv_devices" || fail "ibv_devices does not list rxe0"
rdma link delete rxe0 || fail "rdma link delete rxe0"
wait_until 10 eval '! [[ -e /sys/class/infiniband/rxe0 ]]' || fail "rxe0 still present"
modprobe -r rdma_rxe || fail "modprobe -r rdma_rxe"
log "sanity ok"
