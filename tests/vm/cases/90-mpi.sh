#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Debian's Open MPI over siw2: tests/progs/mpi_check (point to point of
# 1 KiB to 1 MiB, each octet checked both ways, then an MPI_Allreduce of
# 64 Ki longs checked on every rank) with two ranks, one in namespace pa
# and one in pb (veth), each with its own hostname (UTS namespace).
# mpirun runs in pa and starts pb's daemon through an rsh agent that is
# "ip netns exec".  Transport: the cm PML with the
# OFI MTL on libfabric's "verbs;ofi_rxm" provider, byte transfer layers
# limited to "self", so no shared memory or TCP path carries MPI data;
# the siw2 devices' counters must show at least the 2 x 1.06 MiB of the
# point-to-point part.  Then the devices go, object counts are zero and
# the module unloads.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip mpirun fi_info
PROG=$SIW2_TOP/tests/progs/bin/mpi_check
[[ -x $PROG ]] || fail "$PROG not built (make)"
R=$SIW2_RESULTS

siw2_load
ns_pair pa pb 90
dp_pair_devices siw2 siw2	# s2a on pa-v, s2b on pb-v, ports ACTIVE
printf '198.18.90.1 pa\n198.18.90.2 pb\n' >>/etc/hosts

# The rsh agent: ORTE runs "AGENT HOST COMMAND...", COMMAND being shell code.
# Each rank's side gets a UTS namespace with its own hostname, as two hosts
# have: with one hostname Open MPI takes both ranks for one node, and 5.0.7
# (Debian 13) then crashes in coll/han (mca_coll_han_comm_create, SIGSEGV
# in MPI_Allreduce), over plain TCP (pml ob1, btl tcp) as well.
cat >/tmp/netns-rsh <<'EOF'
#!/bin/sh
host=$1
shift
exec ip netns exec "$host" unshare --uts sh -c "hostname $host && $*"
EOF
chmod +x /tmp/netns-rsh

rx0=$(cat /sys/class/infiniband/s2b/ports/1/hw_counters/rx_bytes)
tx0=$(cat /sys/class/infiniband/s2b/ports/1/hw_counters/tx_bytes)
ip netns exec pa unshare --uts sh -c 'hostname pa && exec "$@"' uts \
	env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	timeout 300 mpirun --host pa,pb -np 2 --map-by node \
	--mca plm_rsh_agent /tmp/netns-rsh \
	--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include 'verbs;ofi_rxm' \
	--mca btl self --mca oob_tcp_if_include 198.18.90.0/24 \
	"$PROG" >"$R/mpi.out" 2>"$R/mpi.err"
rc=$?
cat "$R/mpi.out"
(( rc == 0 )) || { cat "$R/mpi.err"; fail "mpirun of mpi_check: rc $rc"; }
grep -q '^MPI_CHECK OK ranks 2$' "$R/mpi.out" || { cat "$R/mpi.err"; fail "mpi_check did not report OK for 2 ranks"; }
rx=$(( $(cat /sys/class/infiniband/s2b/ports/1/hw_counters/rx_bytes) - rx0 ))
tx=$(( $(cat /sys/class/infiniband/s2b/ports/1/hw_counters/tx_bytes) - tx0 ))
(( rx >= 1113088 && tx >= 1113088 )) ||
	fail "s2b received $rx and sent $tx octets: the 1,113,088 of the point-to-point part each way did not all go over siw2"
log "mpi_check over the OFI MTL: OK; s2b received $rx, sent $tx octets"

dp_devices_gone s2a s2b
siw2_assert_zero_counts
siw2_unload
log "Open MPI (cm PML, OFI MTL, verbs;ofi_rxm) over siw2: passed"
