# A dry run plans and changes nothing: `make -n TARGET` in a fresh clone runs no recipe (the
# dependency build above all, whose libraries' own makes would see the -n and fail midway)
# and leaves the tree as it was.
. "$(dirname "$0")/../lib.sh"

CLONE="$OUT/clone"
rm -rf "$CLONE"
git clone -q "$ROOT" "$CLONE"
list() { (cd "$CLONE" && find . -path ./.git -prune -o -print | sort); }
list >"$OUT/before"
for t in all test demo test-kernels test-arm64 bench dist clean; do
	(cd "$CLONE" && make -n "$t") >"$OUT/dry-$t.log" 2>&1
	rc=$?
	list >"$OUT/after-$t"
	check "make -n $t: succeeds (status $rc)" [ "$rc" = 0 ]
	check "make -n $t: changes nothing in the tree" cmp -s "$OUT/before" "$OUT/after-$t"
done
check "make -n test: prints the dependency build it would run" grep -q 'build-deps.sh' "$OUT/dry-test.log"
rm -rf "$CLONE"
finish
