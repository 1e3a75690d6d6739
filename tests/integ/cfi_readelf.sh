#!/bin/sh
# Compares the CFI parser's rows with `readelf --debug-dump=frames-interp` on programs built
# here in several ways: .debug_frame (gcc/clang -fno-asynchronous-unwind-tables) and .eh_frame,
# with and without frame pointers, and linked with the lazy and the IBT PLT, whose CFA
# expressions must come out with the threshold readelf shows. The row-by-row comparison itself
# is `build/tests/test_cfi --compare FILE` (tests/unit/test_cfi.c).
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1
T=build/tests/test_cfi
[ -x "$T" ] || make -s "$T" >"$OUT/make.log" 2>&1
if [ ! -x "$T" ]; then
	fail cfi_readelf_build "cannot build $T; see $OUT/make.log"
	finish
fi

cat >"$OUT/prog.c" <<'C'
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int sum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}
int rec(int n)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%d", n);
	return n <= 0 ? (int)strlen(buf) : rec(n - 1) + buf[0];
}
int vla(int n)
{
	int a[n];
	for (int i = 0; i < n; i++)
		a[i] = i * rec(i % 3);
	return a[n - 1] + sum(3, n, n, n);
}
int realigned(int n)
{
	_Alignas(64) char big[256];
	memset(big, n, sizeof(big));
	return big[n & 255] + vla(n + 1);
}
int main(int argc, char **argv)
{
	return realigned(argc + (argc > 1 ? atoi(argv[1]) : 0)) & 1;
}
C

# build NAME COMPILER FLAGS...: compiles prog.c into $OUT/NAME; skipped when COMPILER is absent.
build() {
	name=$1 cc=$2
	shift 2
	command -v "$cc" >/dev/null || return 1
	"$cc" "$@" -o "$OUT/$name" "$OUT/prog.c" >>"$OUT/cc.log" 2>&1
}

# compare NAME: every row readelf prints must match ours.
compare() {
	if "$T" --compare "$OUT/$1" >"$OUT/$1.log" 2>&1 && grep -q "^PASS: " "$OUT/$1.log"; then
		pass "cfi_readelf_$1"
	else
		fail "cfi_readelf_$1" "$(grep -m3 -E 'mismatch|readelf|cannot|FAIL' "$OUT/$1.log" | tr '\n' ' ')"
	fi
}

# plt NAME: the .plt row's threshold equals the litN in readelf's CFA expression.
plt() {
	want=$(readelf --debug-dump=frames "$OUT/$1" | grep -o 'DW_OP_lit[0-9]*; DW_OP_ge' | head -1 |
		sed 's/DW_OP_lit\([0-9]*\).*/\1/')
	got=$(sed -n 's/.*\.plt+16: plt_at=\([0-9]*\) cfa_off=8$/\1/p' "$OUT/$1.log" | head -1)
	if [ -n "$want" ] && [ "$want" = "$got" ]; then
		pass "cfi_plt_$1"
	else
		fail "cfi_plt_$1" "readelf says lit$want, parser says plt_at=$got"
	fi
}

for opt in O0 O2 Os; do
	for fp in omit-frame-pointer no-omit-frame-pointer; do
		n=gcc-$opt-$fp
		build "$n-debug_frame" gcc -g -$opt -f$fp -fno-asynchronous-unwind-tables && compare "$n-debug_frame"
		build "$n-eh_frame" gcc -$opt -f$fp && compare "$n-eh_frame"
	done
done
build clang-O2-debug_frame clang -g -O2 -fno-asynchronous-unwind-tables && compare clang-O2-debug_frame
build clang-O2-eh_frame clang -O2 && compare clang-O2-eh_frame

build lazy-plt gcc -O2 -Wl,-z,lazy && compare lazy-plt && plt lazy-plt
if build ibt-plt gcc -O2 -fcf-protection=full -Wl,-z,ibtplt,-z,lazy; then
	compare ibt-plt && plt ibt-plt
fi
finish
