#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/coccicheck.sh [DIR]
#
# The kernel's Coccinelle rules (scripts/coccinelle/**/*.cocci, what
# "make coccicheck MODE=report" applies) over drivers/siw2 (or DIR), in
# report mode, one spatch run per rule.  Exit 0 only if no rule reports
# anything; spatch's own notes on a rule's text ("should X be a
# metavariable?") are not reports of our code and are left out.
#
# The rules come from Debian's linux-source-6.12 package: extracted once
# into ${XDG_CACHE_HOME:-~/.cache}/siw2-cocci/ (again when the tarball
# changes).  spatch is Debian's coccinelle; the rules with OCaml scripts
# need ocaml-nox (tools/install-deps.sh).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIR=${1:-$TOP/drivers/siw2}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/siw2-cocci
TARBALL=$(ls -1 /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | sort -V | tail -n1 || true)
[[ -n $TARBALL ]] || { echo "coccicheck: /usr/src/linux-source-6.12.tar.xz missing (tools/install-deps.sh)" >&2; exit 1; }
command -v spatch >/dev/null || { echo "coccicheck: spatch missing (coccinelle; tools/install-deps.sh)" >&2; exit 1; }

stamp=$(stat -c '%s %Y' "$TARBALL")
if [[ ! -d $CACHE/scripts/coccinelle || "$(cat "$CACHE/.stamp" 2>/dev/null)" != "$stamp" ]]; then
	echo "coccicheck: extracting scripts/coccinelle from $TARBALL (once)" >&2
	rm -rf "$CACHE"
	mkdir -p "$CACHE"
	top=$( (tar -tJf "$TARBALL" 2>/dev/null || true) | head -n1 | cut -d/ -f1)
	tar -xJf "$TARBALL" -C "$CACHE" --strip-components=1 "$top/scripts/coccinelle"
	echo "$stamp" >"$CACHE/.stamp"
fi

mapfile -t rules < <(find "$CACHE/scripts/coccinelle" -name '*.cocci' | LC_ALL=C sort)
(( ${#rules[@]} )) || { echo "coccicheck: no rules under $CACHE/scripts/coccinelle" >&2; exit 1; }
reports=0
for r in "${rules[@]}"; do
	# A rule that does not end in 5 minutes fails the run as a report.
	out=$(timeout 300 spatch -D report --no-show-diff --very-quiet --no-includes \
		--include-headers --cocci-file "$r" --dir "$DIR" 2>&1 |
		grep -Ev '^warning: line [0-9]+: should .* be a metavariable\?$' || true)
	if [[ -n $out ]]; then
		echo "${r#"$CACHE"/scripts/coccinelle/}:"
		echo "$out" | sed 's/^/  /'
		reports=$((reports + 1))
	fi
done
if (( reports )); then
	echo "coccicheck: $reports of ${#rules[@]} rules report (see above)"
	exit 1
fi
echo "coccicheck: ${#rules[@]} rules, no report on ${DIR#"$TOP"/}"
