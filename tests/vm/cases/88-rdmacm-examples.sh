#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma-core's rsockets and librdmacm examples over siw2, a server in
# namespace pa and a client in pb (veth), each run's both ends exiting 0:
#  - rstream (rsockets, blocking and nonblocking calls), 200 transfers of
#    4 KiB and 50 of 64 KiB, each verified (-T v: the receiver checks every
#    octet of the pattern);
#  - riostream (rsockets' riomap RDMA Writes), 50 transfers of 64 KiB,
#    verified;
#  - rdma_server / rdma_client (the librdmacm example: a Send each way
#    through rdma_get_request / rdma_connect);
# ucmatose, rping and the perftests run in cases 50-67.  Then the devices
# go, object counts are zero and the module unloads.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"

need rdma ip rstream riostream rdma_server rdma_client
R=$SIW2_RESULTS
SRV=198.18.88.1

siw2_load
ns_pair pa pb 88
dp_pair_devices siw2 siw2	# s2a on pa-v, s2b on pb-v, ports ACTIVE

# stream NAME TOOL PORT OPTS...: TOOL's server in pa, its client in pb.
stream() {
	local name=$1 tool=$2 port=$3
	shift 3
	srv_cli "$name" pa pb "$port" "$tool" -b "$SRV" -p "$port" "$@" -- \
		"$tool" -s "$SRV" -p "$port" "$@" || fail "$name: $tool $*"
	# The client prints a header (name bytes xfers iters total time
	# Gb/sec usec/xfer), then a result line.
	awk '/usec\/xfer/ { h = 1; next } h && NF >= 7 { f = 1 } END { exit !f }' "$R/$name.c" ||
		{ cat "$R/$name.c"; fail "$name: no result line from the client"; }
	log "$name: $(tail -n 1 "$R/$name.c" | tr -s ' \t' ' ')"
}
stream rstream-4k-blocking rstream 7801 -S 4096 -C 200 -T b -T v
stream rstream-64k-nonblocking rstream 7802 -S 65536 -C 50 -T n -T v
stream riostream-64k riostream 7803 -S 65536 -C 50 -T v

srv_cli rdma-example pa pb 7471 rdma_server -s "$SRV" -p 7471 -- \
	rdma_client -s "$SRV" -p 7471 || fail "rdma_server/rdma_client"
grep -q 'rdma_client: end 0' "$R/rdma-example.c" || { cat "$R/rdma-example.c"; fail "rdma_client did not end with 0"; }
grep -q 'rdma_server: end 0' "$R/rdma-example.s" || { cat "$R/rdma-example.s"; fail "rdma_server did not end with 0"; }
log "rdma_server/rdma_client: a Send each way"

dp_devices_gone s2a s2b
siw2_assert_zero_counts
siw2_unload
log "rstream, riostream, rdma_server/rdma_client: passed"
