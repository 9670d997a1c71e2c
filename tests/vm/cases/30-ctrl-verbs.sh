#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Control-path verbs through the siw2 provider: siw2_ctrl with the default
# limits, then with small max_* module parameters in --limits mode. The
# driver's debugfs counts must match while it runs and be 0 afterwards.
# timeout: 600
source "$SIW2_TOP/tests/vm/lib.sh"

dev_exists() { [[ -e /sys/class/infiniband/$1 ]]; }

need rdma ip
[[ -x $SIW2_PROGS/siw2_ctrl ]] || fail "siw2_ctrl not built (make progs)"

failed=()

# run_ctrl IBDEV NETDEV TAG [siw2_ctrl args...]
run_ctrl() {
	local dev=$1 nd=$2 tag=$3 rc k n
	shift 3
	ns_dummy - "$nd"
	siw2_link_add - "$dev" "$nd" || fail "rdma link add $dev"
	wait_until 10 dev_exists "$dev" || fail "$dev not in sysfs"
	log "siw2_ctrl -d $dev $* ($tag)"
	"$SIW2_PROGS/siw2_ctrl" -d "$dev" --debugfs /sys/kernel/debug/siw2 "$@" \
		>"$SIW2_RESULTS/ctrl-$tag.txt" 2>&1
	rc=$?
	cat "$SIW2_RESULTS/ctrl-$tag.txt"
	(( rc == 0 )) || failed+=("siw2_ctrl $tag exited $rc: $(grep -c FAIL "$SIW2_RESULTS/ctrl-$tag.txt") FAIL lines")
	for k in ucontexts pds cqs mrs srqs qps; do
		n=$(siw2_count "$k" "$dev") || fail "no debugfs count $k for $dev"
		[[ $n == 0 ]] || failed+=("$tag: $k count $n after siw2_ctrl exited")
	done
	siw2_link_del "$dev" || fail "rdma link delete $dev"
	wait_until 10 eval "! dev_exists $dev" || fail "$dev still present after delete"
	siw2_assert_zero_counts
	siw2_unload
}

siw2_load
run_ctrl siw2_c ctl0 default

siw2_load max_pd=8 max_cq=8 max_qp=8 max_mr=8 max_srq=4
run_ctrl siw2_l ctl1 limits --limits

if (( ${#failed[@]} )); then
	printf '%s\n' "${failed[@]}" >&2
	fail "${#failed[@]} problem(s), see above"
fi
log "ctrl verbs ok"
