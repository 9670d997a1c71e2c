#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/build-fuzz-module.sh [KDIR]: the module with the wire fuzzer's
# injection file (SIW2_FUZZ=1: drivers/siw2/siw2_fuzz.c, siw2_fuzz_llp.c)
# in build/fuzz-module/, from this tree's sources, W=1 and sparse (C=1),
# against KDIR (else $SIW2_FUZZ_KDIR, which tools/check-debug.sh sets to
# its kernel's; else the Makefile's, Debian's 6.12 headers).  Case 69
# loads it for its fpdu-inject phase; it is never installed or packaged.
# The layering check runs over its objects, which include the two files.
# Exit 0 when it built without a warning and keeps to the layering.
set -u
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$TOP/build/fuzz-module
rm -rf "$OUT"
mkdir -p "$OUT/drivers" "$OUT/include" || exit 1
cp -r "$TOP/drivers/siw2" "$OUT/drivers/" && cp -r "$TOP/include/." "$OUT/include/" &&
	cp "$TOP/Kbuild" "$TOP/Makefile" "$TOP/dkms.conf" "$OUT/" || exit 1
find "$OUT/drivers" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \
	-o -name 'modules.order' \) -delete
kdir=()
k=${1:-${SIW2_FUZZ_KDIR:-}}
[[ -n $k ]] && kdir=(KDIR="$k")
make -C "$OUT" "${kdir[@]}" SIW2_FUZZ=1 module C=1 >"$OUT/build.log" 2>&1
rc=$?
bad=$(grep -E 'warning:|error:' "$OUT/build.log")
if (( rc )) || [[ -n $bad ]]; then
	echo "build-fuzz-module: make rc $rc"
	grep -E 'warning:|error:' "$OUT/build.log" | head -20
	tail -5 "$OUT/build.log"
	exit 1
fi
nm "$OUT/drivers/siw2/siw2.ko" | grep -q ' siw2_fuzz_add_dev$' ||
	{ echo "build-fuzz-module: siw2.ko has no fuzz file"; exit 1; }
python3 "$TOP/tools/layering.py" "$OUT/drivers/siw2" || exit 1
echo "build-fuzz-module: $OUT/drivers/siw2/siw2.ko"
