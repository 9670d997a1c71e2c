# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# rdma link add/delete lifecycle: 50 rounds of two siw2 devices on two dummy
# netdevs created and deleted together (concurrently); "rdma link show" lists them with the
# port state following the netdev; debugfs counts return to zero; duplicate
# links (EEXIST) and links on an ipip tunnel (ARPHRD_TUNNEL: EOPNOTSUPP)
# are refused; a link on lo is refused on Linux before 6.5 (rdma_cm could
# never find it) and accepted after, with a generated GID (case 87 uses
# it); the module unloads.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"
need rdma ip modprobe depmod

ROUNDS=50

# link_line IBDEV: the "rdma link show" line of IBDEV's port 1, or nothing.
link_line() { rdma link show 2>/dev/null | grep "^link $1/1 "; }
link_state() { link_line "$1" | sed -n 's/.* state \([A-Z_]*\) .*/\1/p'; }
state_is() { [[ $(link_state "$1") == "$2" ]]; }

siw2_load
[[ $(siw2_count devices) == 0 ]] || fail "devices not 0 after load"
ns_dummy - lk_a
ns_dummy - lk_b
ip link add lk_tun type ipip local 198.18.10.1 remote 198.18.10.2 || fail "ip link add lk_tun type ipip"
# rdma_cm finds an iWARP device by its netdev from Linux 6.5 (siw2_compat.h).
lo_ok=0
IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
(( kmaj * 1000 + kmin >= 6005 )) && lo_ok=1

log "$ROUNDS rounds of link add/delete on lk_a and lk_b"
for ((i = 1; i <= ROUNDS; i++)); do
	# Both adds at once: two devices registering concurrently.
	siw2_link_add - siw2_a lk_a & pa=$!
	siw2_link_add - siw2_b lk_b & pb=$!
	wait "$pa" || fail "round $i: rdma link add siw2_a"
	wait "$pb" || fail "round $i: rdma link add siw2_b"
	show=$(rdma link show) || fail "round $i: rdma link show"
	[[ $show == *"link siw2_a/1 "*"netdev lk_a"* ]] || fail "round $i: siw2_a missing: $show"
	[[ $show == *"link siw2_b/1 "*"netdev lk_b"* ]] || fail "round $i: siw2_b missing: $show"
	if (( i == 1 || i == ROUNDS )); then
		[[ $(siw2_count devices) == 2 ]] || fail "round $i: devices $(siw2_count devices), want 2"
		[[ -r /sys/kernel/debug/siw2/siw2_a/objects ]] || fail "no per-device debugfs for siw2_a"
		[[ $(siw2_count qps siw2_a) == 0 ]] || fail "siw2_a has qps"
		wait_until 5 state_is siw2_a ACTIVE || fail "siw2_a state $(link_state siw2_a), want ACTIVE"
		# Port state follows the netdev.
		ip link set lk_a down
		wait_until 5 state_is siw2_a DOWN || fail "lk_a down: siw2_a state $(link_state siw2_a)"
		state_is siw2_b ACTIVE || fail "lk_a down changed siw2_b: $(link_state siw2_b)"
		ip link set lk_a up
		wait_until 5 state_is siw2_a ACTIVE || fail "lk_a up: siw2_a state $(link_state siw2_a)"

		# Duplicates: a second device on the same netdev, a device on lo.
		out=$(siw2_link_add - siw2_c lk_a 2>&1) && fail "second link on lk_a accepted"
		[[ $out == *"File exists"* ]] || fail "duplicate link not refused with EEXIST: $out"
		out=$(siw2_link_add - siw2_c lk_tun 2>&1) && fail "link on an ipip tunnel accepted"
		[[ $out == *"not supported"* ]] || fail "link on an ipip tunnel not refused with EOPNOTSUPP: $out"
		if (( lo_ok )); then
			siw2_link_add - siw2_c lo || fail "link on lo refused on $(uname -r)"
			siw2_link_del siw2_c || fail "rdma link delete siw2_c (on lo)"
		else
			out=$(siw2_link_add - siw2_c lo 2>&1) && fail "link on lo accepted on $(uname -r)"
			[[ $out == *"not supported"* ]] || fail "link on lo not refused with EOPNOTSUPP: $out"
		fi
		siw2_dev_exists siw2_c && fail "siw2_c exists after refused adds"
		[[ $(siw2_count devices) == 2 ]] || fail "refused adds changed devices to $(siw2_count devices)"
	fi
	# Deletes run one after the other: rdma(8) resolves a name from a
	# device dump that the core resumes by position, so while one device
	# unregisters the tool can miss the other ("Wrong device name") even
	# though it exists. That race is in the tool, not in siw2.
	siw2_link_del siw2_a || fail "round $i: rdma link delete siw2_a"
	siw2_link_del siw2_b || fail "round $i: rdma link delete siw2_b"
	siw2_dev_exists siw2_a && fail "round $i: siw2_a still in /sys/class/infiniband"
	siw2_dev_exists siw2_b && fail "round $i: siw2_b still in /sys/class/infiniband"
done
log "rounds done"

rdma link show | grep -q 'siw2_[ab]/' && fail "devices listed after delete: $(rdma link show)"
siw2_assert_zero_counts
[[ $(siw2_count devices) == 0 ]] || fail "devices $(siw2_count devices) after the loop"
[[ -e /sys/kernel/debug/siw2/siw2_a ]] && fail "per-device debugfs of siw2_a left behind"
siw2_unload
log "ok"
