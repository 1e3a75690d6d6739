#!/bin/sh
# Fuzzes the CFI parser (cmd/unwind/cfi.c) for about 20 seconds under ASan and UBSan, starting from
# the seed corpus tests/fuzz/corpus/cfi-* (real .eh_frame/.debug_frame sections and damaged
# copies). Any crash, leak or broken table invariant fails the test.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

if FUZZ_BUILD_ONLY=1 scripts/fuzz.sh 0 cfi >"$OUT/build.log" 2>&1; then
	pass fuzz_cfi_build
else
	fail fuzz_cfi_build "see $OUT/build.log (needs clang and libclang-rt-14-dev)"
	finish
fi

# Every seed once: the committed corpus itself must be clean.
n=$(ls tests/fuzz/corpus/cfi-* 2>/dev/null | wc -l)
if [ "$n" -ge 5 ] && build/fuzz/fuzz_cfi tests/fuzz/corpus/cfi-* >"$OUT/seeds.log" 2>&1; then
	pass fuzz_cfi_seeds
else
	fail fuzz_cfi_seeds "$n seeds; see $OUT/seeds.log"
fi

if FUZZ_CORPUS_DIR="$OUT/corpus" scripts/fuzz.sh 20 cfi >"$OUT/fuzz.log" 2>&1; then
	pass fuzz_cfi_20s
else
	fail fuzz_cfi_20s "crash or invariant failure; see $OUT/fuzz.log and build/fuzz/artifacts/"
fi
finish
