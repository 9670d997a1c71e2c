#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/checkpatch.sh [FILE...]
#
# Run the kernel's scripts/checkpatch.pl (--strict, file mode) on every
# .c/.h under drivers/siw2/, on include/uapi/rdma/siw2-*.h and on
# include/siw2/*.h (the kernel API for consumers), or on the
# FILEs given.  Exit 0 only if it reports no error, warning or check.
#
# checkpatch.pl comes from Debian's linux-source-6.12 package: the few files
# it needs are extracted once into ${XDG_CACHE_HOME:-~/.cache}/siw2-ksrc/
# (re-extracted when the tarball changes).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/siw2-ksrc
TARBALL=$(ls -1 /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | sort -V | tail -n1 || true)
[[ -n $TARBALL ]] || { echo "checkpatch: /usr/src/linux-source-6.12.tar.xz missing (tools/install-deps.sh)" >&2; exit 1; }

stamp=$(stat -c '%s %Y' "$TARBALL")
if [[ ! -x $CACHE/scripts/checkpatch.pl || "$(cat "$CACHE/.stamp" 2>/dev/null)" != "$stamp" ]]; then
	echo "checkpatch: extracting checkpatch.pl from $TARBALL (once)" >&2
	rm -rf "$CACHE"
	mkdir -p "$CACHE"
	top=$( (tar -tJf "$TARBALL" 2>/dev/null || true) | head -n1 | cut -d/ -f1)
	# checkpatch.pl reads spelling.txt and const_structs.checkpatch next to
	# itself; nothing else is needed with --no-tree.
	tar -xJf "$TARBALL" -C "$CACHE" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
	echo "$stamp" >"$CACHE/.stamp"
fi

if [[ $# -gt 0 ]]; then
	files=("$@")
else
	cd "$TOP"
	mapfile -t files < <( { find drivers/siw2 -name '*.[ch]' -not -name '*.mod.c' 2>/dev/null;
		ls include/uapi/rdma/siw2-*.h include/siw2/*.h 2>/dev/null; } | LC_ALL=C sort)
fi
if [[ ${#files[@]} -eq 0 ]]; then
	echo "checkpatch: no files to check"
	exit 0
fi

# Ignored types, each because it cannot apply to an out-of-tree module:
#   FILE_PATH_CHANGES  asks for a MAINTAINERS entry for new files; this repo
#                      has no MAINTAINERS file.
# Everything else, SPDX_LICENSE_TAG included, is checked.
rc=0
"$CACHE/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
	--ignore FILE_PATH_CHANGES -f "${files[@]}" || rc=$?
if [[ $rc -eq 0 ]]; then
	echo "checkpatch: ${#files[@]} files clean"
else
	echo "checkpatch: problems found (see above)"
fi
exit "$rc"
