# The committed LuaJIT layout table against the sources it was generated from:
# scripts/gen-luajit-layouts.sh --check builds the table file again from Debian's LuaJIT trees
# (upstream, its 2.1.0-beta3 release, OpenResty's and Tarantool's forks, GC64 and not) and diffs
# it with the committed one, then, where the aarch64 cross compiler is installed, compares each
# fork's arm64 layout with what the arm64 build patches the x86-64 table to.
. "$(dirname "$0")/../lib.sh"

"$ROOT/scripts/gen-luajit-layouts.sh" --check >"$OUT/check.out" 2>"$OUT/check.err"
rc=$?
check "gen-luajit-layouts.sh --check: exit status 0" [ $rc = 0 ]
check "the committed table is what the generator writes" grep -qx "luajit layouts: up to date" "$OUT/check.out"
if grep -q "arm64 not checked" "$OUT/check.out"; then
	grep "arm64 not checked" "$OUT/check.out" # said, not failed: make test-arm64 installs the cross tools
else
	for fork in upstream openresty tarantool; do
		check "arm64 $fork: its layout is the x86-64 one as luajit_arch.c patches it" \
			grep -q "^luajit layouts: arm64 $fork GC64 matches luajit_arch.c" "$OUT/check.out"
	done
fi
finish
