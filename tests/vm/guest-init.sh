# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# Stage 2 of the siw2 test guest, run by bash as PID 1 after the initramfs
# (tests/vm/mkinitramfs.sh) switched into the overlay of the host's root.
# /proc, /sys, /dev, /tmp, /run, the repo and /run/siw2 (the read-write
# results share holding "job", written by tests/vm/vm.sh) are mounted.
# Runs the job's script, saves its status and the kernel log, powers off.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=${TERM:-linux}
R=/run/siw2

# devtmpfs has no /dev/fd (udev would add it): process substitution and
# /dev/stdin in the job's scripts need it.
[[ -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd
[[ -e /dev/stdin ]] || ln -s /proc/self/fd/0 /dev/stdin
[[ -e /dev/stdout ]] || ln -s /proc/self/fd/1 /dev/stdout
[[ -e /dev/stderr ]] || ln -s /proc/self/fd/2 /dev/stderr

# Power-off is asynchronous and shuts the 9p transports down while it runs,
# so neither an exec (sleep) nor bash re-reading this script may follow it:
# either can fail and let PID 1 exit, which panics the guest after a passing
# case.  PID 1 waits with a builtin on a pipe nobody writes to, opened now,
# while every file system is still there.
exec {never_fd}<> <(:)

# The kernel log is saved at the last moment before power-off; what the
# kernel prints while powering off reaches only the serial console
# (loglevel=5, tests/vm/vm.sh), which run.sh scans as well.
poweroff_now() {
	dmesg >"$R/dmesg" 2>&1
	sync
	echo o >/proc/sysrq-trigger || busybox poweroff -f
	while :; do read -r -u "$never_fd" _; done 2>/dev/null
}

# shellcheck source=/dev/null
source "$R/job" || { echo "guest-init: no job file" >/dev/console; poweroff_now; }

# Mounts, lo and the hostname were done by the initramfs (fast busybox).
# /etc/mtab may point at the host's; make it the guest's view.
[[ -L /etc/mtab ]] || ln -sf /proc/self/mounts /etc/mtab
echo siw2-vm >/etc/hostname
ulimit -l unlimited		# RDMA memory registration pins pages

dmesg -w >"$R/dmesg.live" 2>&1 &
dmesg_pid=$!

export SIW2_TOP
# A slower kernel (SIW2_VM_TIMEOUT_SCALE, the debug kernel) stretches the
# cases' own budgets too: timeout(1) through tests/vm/slow-bin, lib.sh's
# wait_until by itself.
export SIW2_TIMEOUT_SCALE=${SIW2_TIMEOUT_SCALE:-1}
if (( SIW2_TIMEOUT_SCALE > 1 )); then
	export PATH=$SIW2_TOP/tests/vm/slow-bin:$PATH
fi
export SIW2_KO=$SIW2_TOP/drivers/siw2/siw2.ko
export SIW2_PROGS=$SIW2_TOP/tests/progs/bin
export RDMAV_DRIVERS=$SIW2_TOP/userspace-provider/build/libsiw2
export SIW2_RESULTS=$R/results
# Host-made depmod output including siw2.ko (lib.sh: siw2_install_only).
[[ -f $R/modindex/modules.dep.bin ]] && export SIW2_MODINDEX=$R/modindex
[[ -d $SIW2_RESULTS ]] || mkdir -p "$SIW2_RESULTS"

read -r up _ </proc/uptime; echo "$up" >"$R/boot"
# A debug kernel (tools/debug-kernel.sh) has kmemleak: what boot left is
# not the case's; after the case a scan puts any leak in the kernel log.
KMEMLEAK=/sys/kernel/debug/kmemleak
[[ -w $KMEMLEAK ]] && echo clear >"$KMEMLEAK"
# Marks where the case begins in the kernel log (run.sh shows what follows).
echo "siw2-vm: running $SIW2_SCRIPT" >/dev/kmsg
cd "$SIW2_TOP" || { echo 1 >"$R/rc"; poweroff_now; }
if [[ $SIW2_MODE == demo ]]; then
	# Console is the user's terminal: show everything, keep a copy.
	bash "$SIW2_SCRIPT" </dev/null 2>&1 | tee "$R/out" >/dev/console
	rc=${PIPESTATUS[0]}
else
	bash "$SIW2_SCRIPT" </dev/null >"$R/out" 2>&1
	rc=$?
fi
cd /
# A siw2 built for coverage (SIW2_GCOV=1, a kernel with CONFIG_GCOV_KERNEL):
# its counters, and those of the KUnit module, outlive the module's unload
# in debugfs; each case keeps its own in its results, gcov/ (tools/coverage.sh
# adds them up).
GCOV=/sys/kernel/debug/gcov
if [[ -d $GCOV ]]; then
	(cd "$GCOV" && find . -name '*.gcda' \( -path '*/drivers/siw2/*' -o -path '*/kunit-mod/*' \)) |
		while read -r f; do
			mkdir -p "$SIW2_RESULTS/gcov/${f%/*}" && cat "$GCOV/$f" >"$SIW2_RESULTS/gcov/$f"
		done
fi
if [[ -w $KMEMLEAK ]]; then
	echo scan >"$KMEMLEAK"
	echo scan >"$KMEMLEAK"
fi
echo "$rc" >"$R/rc"
read -r up _ </proc/uptime; echo "$up" >"$R/end"
kill "$dmesg_pid" 2>/dev/null
poweroff_now
