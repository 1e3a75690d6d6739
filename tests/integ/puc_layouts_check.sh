# The committed PUC Lua layout tables against the sources they were generated from:
# scripts/gen-lua-layouts.sh --check compiles its offsetof() probes against Debian's lua5.1-lua5.4
# source packages and Debian unstable's 5.4.9 and 5.5.1, and compares each release's layout with
# the committed table that covers it.
. "$(dirname "$0")/../lib.sh"

"$ROOT/scripts/gen-lua-layouts.sh" --check >"$OUT/check.out" 2>"$OUT/check.err"
rc=$?
check "gen-lua-layouts.sh --check: exit status 0" [ $rc = 0 ]
for v in 5.4.9 5.5.1; do
	check "Lua $v: the committed table matches its sources" grep -qx "Lua $v: matches" "$OUT/check.out"
done
n=$(grep -c '^Lua 5\.[1-5]\.[0-9]*: matches$' "$OUT/check.out")
check "every release probed matches ($n releases, 6 expected: Debian 12's four, unstable's two)" [ "$n" -ge 6 ]
check "no release differs" sh -c "! grep -q 'differs\|no committed table' '$OUT/check.err'"
finish
