#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# tools/conformance.sh [--check]
#
# Lists every requirement ID of the protocol digest (../shared/specs/DIGEST.md,
# or $SIW2_DIGEST). With --check, verifies Documentation/conformance.md has a
# row for each of them and that every test file and case it names exists.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DIGEST=${SIW2_DIGEST:-$TOP/../shared/specs/DIGEST.md}
MATRIX=$TOP/Documentation/conformance.md
ID_RE='\b(MPA2|EXT|V2|COMMIT|RPCRDMA2|BASE)-[A-Z][A-Z0-9]*(-[A-Z]*[0-9]+)\b'

ids() {
	grep -oE "$ID_RE" "$DIGEST" | sort -u -V
}

if [[ ${1:-} != --check ]]; then
	ids
	exit 0
fi

[[ -r $DIGEST ]] || { echo "conformance: digest not found: $DIGEST" >&2; exit 1; }
rc=0
missing=$(comm -23 <(ids | sort) <(grep -oE '^\| *'"${ID_RE#\\b}" "$MATRIX" |
	tr -d '| ' | sort -u))
if [[ -n $missing ]]; then
	echo "conformance: IDs without a row in Documentation/conformance.md:"
	echo "$missing" | sed 's/^/  /'
	rc=1
fi
# Test column: "-", or one or more entries separated by ";", each a file
# path relative to the repo top followed by the names of the test cases in
# it that prove the row (a parenthesised note may follow). Each name must
# occur in that file.
while IFS='|' read -r _ id _ tcol _; do
	tcol=$(sed 's/([^)]*)//g; s/`//g' <<<"$tcol" | xargs)
	[[ -z $tcol || $tcol == - ]] && continue
	IFS=';' read -ra entries <<<"$tcol"
	for entry in "${entries[@]}"; do
		entry=$(xargs <<<"$entry")
		file=${entry%% *}
		if [[ ! -f $TOP/$file ]]; then
			echo "conformance: $id: test file does not exist: $file"
			rc=1
			continue
		fi
		[[ $entry == "$file" ]] && continue
		for name in $(tr ',' ' ' <<<"${entry#"$file"}"); do
			grep -qw -- "$name" "$TOP/$file" ||
				{ echo "conformance: $id: no case $name in $file"; rc=1; }
		done
	done
done < <(grep -E '^\| *[A-Z0-9]+-[A-Z0-9-]+ *\|' "$MATRIX")
[[ $rc -eq 0 ]] && echo "conformance: $(ids | wc -l) IDs, all in the matrix"
exit $rc
