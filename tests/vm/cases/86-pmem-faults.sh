# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# shellcheck shell=bash
#
# What persistent memory siw2 cannot promise durability for (issue 34
# item 5), on a 128 MiB emulated NVDIMM, between two siw2 devices in
# namespaces pa (server, 198.18.86.1) and pb (client), with
# tests/progs/siw2_pmcommit:
#  f  fsdax: the namespace as fsdax (/dev/pmemN), ext4 on it mounted with
#     -o dax, a 4 MiB file mapped shared: registering it fails with
#     EOPNOTSUPP, plain and durable (the kernel pins no page of a DAX file
#     for long: FOLL_LONGTERM; COMMIT-REG-1), while the same file's
#     registration on tmpfs works plain and is refused durable with
#     EMEDIUMTYPE (COMMIT-ACC-1); then the namespace is device DAX again
#     and registers both ways.
#  n  ndctl inject-error on the namespace (ACPI ARS error injection):
#     what it says is logged. QEMU's NFIT implements no ARS, so it fails
#     ("error injection not supported") and the region lists no bad
#     block: emulation cannot put a range in the namespace's badblocks.
#  p  a page the kernel knows poisoned: the server registers 8 MiB of the
#     device-DAX namespace durable; a Commit of [0, 2 MiB) succeeds; then
#     the kernel's memory failure handling is run on the window's page at
#     1 MiB (/sys/devices/system/memory/hard_offline_page, as after an
#     uncorrectable machine check: the page is marked HWPoison and unmapped
#     from the server, which asked to be told early, PR_MCE_KILL_EARLY,
#     and gets SIGBUS BUS_MCEERR_AO for it). A Commit
#     of [0, 2 MiB) now answers Status 1 (media failure) and writes back
#     every line but the poisoned page's (siw2_dp_commit: 32704 of 32768
#     lines); [2 MiB, 4 MiB) on the same QP, Status 0 (the QP goes on,
#     COMMIT-ERR-3, DEC-13); a Commit of a clean range whose log word is
#     in the poisoned page answers Status 1 and the word is not stored
#     (siw2_dp_commit_log: lines 0 status 1; SIW2-DEC-1); one of the
#     poisoned range with a clean log word answers Status 1 with no log
#     update at all (COMMIT-ATOM-2).
# Then every link is deleted, siw2's object counts are zero and it
# unloads; the harness fails the case on any kernel warning.
# timeout: 900
# pmem: 128M
source "$SIW2_TOP/tests/vm/lib.sh"
source "$SIW2_TOP/tests/vm/lib-peer.sh"
source "$SIW2_TOP/tests/vm/lib-cm.sh"

need rdma ip ndctl mkfs.ext4 fallocate
R=$SIW2_RESULTS
SRV=198.18.86.1
PM=$SIW2_PROGS/siw2_pmcommit
[[ -x $PM ]] || fail "$PM not built (make progs)"
T=/sys/kernel/tracing
MB=$((1024 * 1024))

bad=()
bad() { bad+=("$*"); log "FAILED: $*"; }
show() {
	local f
	for f in "$@"; do
		[[ -s $R/$f ]] && tail -n 15 "$R/$f" | sed "s|^|  $f: |"
	done
	return 0
}
sp=
mnt=/run/siw2-fsdax
cleanup() {
	cp "$T/trace" "$R/trace.txt" 2>/dev/null
	[[ -n $sp ]] && { kill -9 "$sp" 2>/dev/null; wait "$sp" 2>/dev/null; }
	mountpoint -q "$mnt" && umount "$mnt"
}
trap cleanup EXIT

siw2_load
for e in siw2_dp_commit siw2_dp_commit_log; do
	echo 1 >"$T/events/siw2/$e/enable" || fail "enable $e"
done
cm_ns_pair pa pb 86
siw2_link_add pa s2a pa-v || fail "rdma link add s2a"
siw2_link_add pb s2b pb-v || fail "rdma link add s2b"
wait_port_active s2a || fail "s2a port not ACTIVE"
wait_port_active s2b || fail "s2b port not ACTIVE"
pmem_devdax 4K
ns=$(ndctl list -N -r region0 | sed -n 's/.*"dev":"\(namespace[0-9.]*\)".*/\1/p' | head -n 1)
[[ $ns ]] || fail "no namespace on region0: $(ndctl list -N 2>&1 | tr -d '\n ')"

# reg NAME FILE: siw2_pmcommit's two registrations of FILE's first 4 MiB.
reg() {
	"$PM" reg -d s2a -f "$2" -l 4M >"$R/reg-$1.out" 2>&1 || { bad "reg $1: rc $?"; show "reg-$1.out"; }
	log "reg $1: $(grep -h '^PMC REG' "$R/reg-$1.out" | sed 's/^PMC REG //' | tr '\n' ';')"
}

# ---------------------------------------------------------------- f
out=$(ndctl create-namespace -f -e "$ns" -m fsdax 2>&1) ||
	fail "ndctl create-namespace -e $ns -m fsdax: ${out//$'\n'/ }"
[[ $out =~ \"blockdev\":[[:space:]]*\"(pmem[0-9]+[a-z0-9.]*)\" ]] ||
	fail "fsdax: no block device in ndctl's answer: ${out//$'\n'/ }"
bdev=/dev/${BASH_REMATCH[1]}
wait_until 20 test -b "$bdev" || fail "fsdax: $bdev did not appear"
mkfs.ext4 -q -F -b 4096 "$bdev" >"$R/mkfs.out" 2>&1 || { show mkfs.out; fail "mkfs.ext4 $bdev"; }
mkdir -p "$mnt"
mount -o dax "$bdev" "$mnt" || fail "mount -o dax $bdev"
grep -q " $mnt ext4 .*dax" /proc/mounts || bad "fsdax: $mnt is not mounted with dax: $(grep " $mnt " /proc/mounts)"
fallocate -l 4M "$mnt/f" || fail "fallocate on $mnt"
reg fsdax "$mnt/f"
grep -q '^PMC REG plain errno [0-9]* EOPNOTSUPP ' "$R/reg-fsdax.out" ||
	bad "COMMIT-REG-1: a file on ext4 -o dax registered plain: $(grep -h 'REG plain' "$R/reg-fsdax.out"), want EOPNOTSUPP (no long-term pin of fsdax)"
grep -q '^PMC REG durable errno [0-9]* EOPNOTSUPP ' "$R/reg-fsdax.out" ||
	bad "COMMIT-REG-1: a file on ext4 -o dax registered durable: $(grep -h 'REG durable' "$R/reg-fsdax.out"), want EOPNOTSUPP"
umount "$mnt"
fallocate -l 4M /tmp/siw2-ram || fail "fallocate on /tmp"
reg tmpfs /tmp/siw2-ram
grep -q '^PMC REG plain ok$' "$R/reg-tmpfs.out" || bad "tmpfs: plain registration failed"
grep -q '^PMC REG durable errno [0-9]* EMEDIUMTYPE ' "$R/reg-tmpfs.out" ||
	bad "COMMIT-ACC-1: tmpfs registered durable: $(grep -h 'REG durable' "$R/reg-tmpfs.out"), want EMEDIUMTYPE"
rm -f /tmp/siw2-ram
out=$(ndctl create-namespace -f -e "$ns" -m devdax -a 4K 2>&1) ||
	fail "ndctl create-namespace -e $ns -m devdax: ${out//$'\n'/ }"
pmem_devdax 4K
reg devdax "$PMEM_DAX"
grep -q '^PMC REG plain ok$' "$R/reg-devdax.out" && grep -q '^PMC REG durable ok$' "$R/reg-devdax.out" ||
	bad "COMMIT-REG-1: device DAX not registered both ways"

# ---------------------------------------------------------------- n
out=$(ndctl inject-error "$ns" -B 2048 -n 1 2>&1)
rc=$?
log "n: ndctl inject-error $ns -B 2048 -n 1: rc $rc: ${out//$'\n'/ }"
log "n: region0 badblocks: [$(tr '\n' ' ' </sys/bus/nd/devices/region0/badblocks)]"
ndctl inject-error --uninject "$ns" -B 2048 -n 1 >/dev/null 2>&1

# ---------------------------------------------------------------- p
ip netns exec pa timeout 600 "$PM" serve -a "$SRV" -p 7880 -f "$PMEM_DAX" -l 8M -n 4 \
	-t 120 >"$R/server.out" 2>&1 &
sp=$!
wait_until 120 grep -q '^LISTENING' "$R/server.out" || { show server.out; fail "server not listening"; }
# client N ARGS...: one connection's Commits; each must end as its step says.
client() {
	local n=$1
	shift
	ip netns exec pb timeout 300 "$PM" commit -a "$SRV" -p 7880 -t 120 "$@" >"$R/p.c$n" 2>&1 ||
		{ bad "p: client $n ($*): rc $?"; show "p.c$n"; }
	log "p: client $n: $(grep -h '^PMC COMMIT' "$R/p.c$n" | sed 's/^PMC COMMIT //' | tr '\n' ';')"
}
echo >"$T/trace"
client 0 0:2M:0
page=$((PMEM_START + MB))
log "p: poisoning the window's page at 1 MiB, physical $(printf 0x%x "$page")"
echo "$page" >/sys/devices/system/memory/hard_offline_page ||
	fail "hard_offline_page $(printf 0x%x "$page") failed (CONFIG_MEMORY_FAILURE?)"
dmesg | grep -i 'memory failure' | tail -n 3 | sed 's/^/  /'
dmesg | grep -q "$(printf '%#x' $((page >> 12))): recovery action for dax page: Recovered" ||
	bad "p: the kernel did not report the dax page recovered: $(dmesg | grep -i 'memory failure' | tail -n 2 | tr '\n' ' ')"
client 1 0:2M:1 2M:2M:0
client 2 --log $((MB + 8)) 2M:4K:1
client 3 --log $((2 * MB)) 0:2M:1
wait "$sp" || { bad "p: server rc $?"; show server.out; }
sp=
grep -q '^PMC OK side=server conns=4$' "$R/server.out" || bad "p: server: $(tail -n 1 "$R/server.out")"
grep -q "^PMC SIGBUS n=1 code=5 off=$MB\$" "$R/server.out" ||
	bad "p: the server was not told of the poisoned page (SIGBUS BUS_MCEERR_AO at 1 MiB): $(grep -h SIGBUS "$R/server.out")"
cp "$T/trace" "$R/p-trace.txt"
# In posting order: len, lines written back, Status.
want=("2097152 32768 0" "2097152 32704 1" "2097152 32768 0" "4096 64 1" "2097152 32704 1")
mapfile -t got < <(sed -n 's/.*siw2_dp_commit: .* len \([0-9]*\) lines \([0-9]*\) status \([0-9]*\)$/\1 \2 \3/p' "$R/p-trace.txt")
[[ "${got[*]}" == "${want[*]}" ]] ||
	bad "DEC-13 COMMIT-ERR-3 COMMIT-VAL-2: Commits traced as (len lines status) [$(printf '%s, ' "${got[@]}")], want [$(printf '%s, ' "${want[@]}")]"
mapfile -t lg < <(sed -n 's/.*siw2_dp_commit_log: .* lines \([0-9]*\) status \([0-9]*\)$/\1 \2/p' "$R/p-trace.txt")
[[ "${lg[*]}" == "0 1" ]] ||
	bad "SIW2-DEC-1 COMMIT-ATOM-2: log updates traced as [${lg[*]}], want one, not stored, Status 1 (its word poisoned), and none after the poisoned range"

if (( ${#bad[@]} )); then
	printf '  failed: %s\n' "${bad[@]}"
	fail "${#bad[@]} check(s) failed"
fi
siw2_link_del s2a || fail "link delete s2a"
siw2_link_del s2b || fail "link delete s2b"
siw2_assert_zero_counts
siw2_unload
log "all checks passed"
