# Lua releases newer than lua-flame's tables, made from Debian unstable's 5.5.1 and 5.4.9 sources:
# "5.5.2" and "5.4.10" with their predecessor's layout are checked against the live VM and used,
# with a message saying so and the same stacks as their predecessor; a "5.5.2" whose lua_State
# gained a field is refused as not supported yet, and no Lua frame comes from the guessed layout.
. "$(dirname "$0")/../lib.sh"

"$ROOT/scripts/build-lua-sources.sh" || { fail build "scripts/build-lua-sources.sh failed"; finish; }
SID=$("$ROOT/scripts/build-lua-sources.sh" --dir)
S='tests/lua/shape.lua'
L() { printf '%s \\(%s:%s\\)' "$1" "$S" "$2"; }

# variant NAME TREE SED-SCRIPT-FOR-lua.h [SED-SCRIPT-FOR-lstate.h]: $OUT/NAME/src/lua, stripped
variant() {
	d=$OUT/$1
	mkdir -p "$d" && cp -r "$2/Makefile" "$2/src" "$d/"
	make -s -C "$d" clean >/dev/null 2>&1
	sed -i "$3" "$d/src/lua.h"
	[ -z "${4:-}" ] || sed -i "$4" "$d/src/lstate.h"
	make -s -C "$d" -j2 linux >"$d/build.log" 2>&1 && strip "$d/src/lua" && echo "$d/src/lua"
}

# run NAME BINARY: profiles the shape workload for 3 s.
run() {
	cd "$ROOT" && bg_start "$2" "$S"
	sleep 0.3
	"$LF" -p "$LAST_PID" -d 3 -F 499 -o "$OUT/$1.folded" 2>"$OUT/$1.err"
	rc=$?
	kill "$LAST_PID"
	return $rc
}

V552=$(variant v552 "$SID/lua5.5-5.5.1" 's/^#define LUA_VERSION_RELEASE_N\t1$/#define LUA_VERSION_RELEASE_N\t2/')
V5410=$(variant v5410 "$SID/lua5.4-5.4.9" 's/^#define LUA_VERSION_RELEASE\t"9"$/#define LUA_VERSION_RELEASE\t"10"/')
# a field more in lua_State, before l_G: every offset after it moves
BAD=$(variant bad552 "$SID/lua5.5-5.5.1" 's/^#define LUA_VERSION_RELEASE_N\t1$/#define LUA_VERSION_RELEASE_N\t2/' \
	's/^  TStatus status;$/  TStatus status;\n  void *newer_field[2];/')
# a minor release this build has no table for at all
V560=$(variant v560 "$SID/lua5.5-5.5.1" 's/^#define LUA_VERSION_MINOR_N\t5$/#define LUA_VERSION_MINOR_N\t6/; s/^#define LUA_VERSION_RELEASE_N\t1$/#define LUA_VERSION_RELEASE_N\t0/')
for b in "$V552" "$V5410" "$BAD" "$V560"; do
	[ -x "$b" ] || { fail build "a variant did not build: $(ls "$OUT"/*/build.log)"; finish; }
done
check "variants say they are 5.5.2, 5.4.10 and 5.6.0" sh -c "'$V552' -v | grep -q 'Lua 5.5.2' && \
	'$V5410' -v | grep -q 'Lua 5.4.10' && '$BAD' -v | grep -q 'Lua 5.5.2' && '$V560' -v | grep -q 'Lua 5.6.0'"

for v in 5.5.2:5.5.1:"$V552" 5.4.10:5.4.9:"$V5410"; do
	new=${v%%:*} rest=${v#*:}
	old=${rest%%:*} bin=${rest#*:}
	run "$new" "$bin"
	check "$new: exit status 0" [ $? = 0 ]
	check "$new: says it is newer and matched the $old layout" \
		grep -q "Lua $new in .* is newer than this build of lua-flame knows (up to $old); its VM matches the $old layout" "$OUT/$new.err"
	check "$new: 1 VM found" grep -q "Lua $new in .*, 1 VM found" "$OUT/$new.err"
	expect_stack "$new: Lua -> Lua -> Lua in order, no C between" "$OUT/$new.folded" \
		";lua_pcallk;$(L 'main chunk' 0);$(L tick 46);$(L burn_a 10);$(L work 4)\$"
	lua=$(share "$OUT/$new.folded" "\\($S:")
	check "$new: ${lua}% of samples carry a Lua stack (>= 95%)" [ "$lua" -ge 95 ]
done

run bad "$BAD"
check "changed layout: exit status 0" [ $? = 0 ]
check "changed layout: not supported yet, and what to do" \
	grep -q "Lua 5.5.2 in .* is not supported yet: .* no VM in its memory matches a known layout.*; update lua-flame" "$OUT/bad.err"
check "changed layout: native stacks only" grep -q "profiling native stacks only" "$OUT/bad.err"
lua=$(count "$OUT/bad.folded" '\(')
native=$(total "$OUT/bad.folded")
check "changed layout: no Lua frame in $native samples ($lua with one)" sh -c "[ $native -ge 100 ] && [ $lua = 0 ]"

run v560 "$V560"
check "5.6.0: exit status 0" [ $? = 0 ]
check "5.6.0: not supported yet, and what to do" \
	grep -q "Lua 5.6.0 in .* is not supported yet: this build of lua-flame knows Lua 5.1 to 5.5; update lua-flame" "$OUT/v560.err"
check "5.6.0: said once" [ "$(grep -c 'not supported yet' "$OUT/v560.err")" = 1 ]
check "5.6.0: no Lua frame" [ "$(count "$OUT/v560.folded" '\(')" = 0 ]
finish
