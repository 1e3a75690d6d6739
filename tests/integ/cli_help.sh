# --help, --version, the manual page and the README document every option the parser
# accepts, and `make install` puts the binary and the manual page under DESTDIR/PREFIX.
. "$(dirname "$0")/../lib.sh"

"$LF" --help >"$OUT/help" 2>&1
check "--help exits 0" [ $? = 0 ]
check "--help has examples" [ "$(grep -c '^  lua-flame ' "$OUT/help")" -ge 6 ]
check "--help explains exit statuses" grep -q "^Exit status: 0 success" "$OUT/help"
man_text=$OUT/man.txt
groff -man -Tutf8 -ww -z "$ROOT/doc/lua-flame.1" 2>"$OUT/groff.err"
check "manual page: no groff warnings" [ ! -s "$OUT/groff.err" ]
MANWIDTH=100 man -l "$ROOT/doc/lua-flame.1" 2>/dev/null | sed 's/‐/-/g' >"$man_text"
# Every long option of the parser (the option table in cmd/main.c) is documented.
for opt in $(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", .*/\1/p' "$ROOT/cmd/main.c"); do
	check "--$opt in --help" grep -q -- "--$opt\\b" "$OUT/help"
	check "--$opt in the manual page" grep -q -- "--$opt\\b" "$man_text"
	check "--$opt in README.md" grep -q -- "--$opt\\b" "$ROOT/README.md"
done
for cmd in "dump -p PID" "-- COMMAND"; do
	check "'$cmd' in --help, manual page and README" sh -c \
		"grep -q -- '$cmd' '$OUT/help' && grep -q -- '$cmd' '$man_text' && grep -q -- '$cmd' '$ROOT/README.md'"
done

"$LF" --version >"$OUT/version" 2>&1
check "--version exits 0" [ $? = 0 ]
check "--version: version" grep -Eq '^lua-flame [0-9]+\.[0-9]+\.[0-9]+$' "$OUT/version"
check "--version: libbpf version" grep -Eq 'libbpf [0-9]+\.[0-9]+' "$OUT/version"
check "--version: build information" grep -Eq '^built .* with gcc' "$OUT/version"
commit=$(git -C "$ROOT" describe --always --dirty --abbrev=12 2>/dev/null || echo unknown)
check "--version: the commit it was built from ($commit)" grep -Fq "built from commit $commit " "$OUT/version"

make -s -C "$ROOT" install DESTDIR="$OUT/root" PREFIX=/opt/lf >"$OUT/install.log" 2>&1
check "make install exits 0" [ $? = 0 ]
check "make install: binary under DESTDIR/PREFIX/bin" [ -x "$OUT/root/opt/lf/bin/lua-flame" ]
check "make install: manual page under DESTDIR/PREFIX/share/man/man1" [ -f "$OUT/root/opt/lf/share/man/man1/lua-flame.1" ]
check "installed manual page opens with man" sh -c \
	"MANPATH='$OUT/root/opt/lf/share/man' man lua-flame 2>/dev/null | grep -q 'sample running Lua'"
finish
