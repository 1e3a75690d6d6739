#!/bin/sh
# Fuzzes the pprof reader of `lua-flame diff` (render/pprof_read.c) for about 20 seconds under
# ASan and UBSan, starting from the seed corpus tests/fuzz/corpus/pprof-* (lua-flame's own
# profiles, a cut one). Any crash, leak or tree that does not add up fails the test.
. "$(dirname "$0")/../lib.sh"
cd "$ROOT" || exit 1

if FUZZ_BUILD_ONLY=1 scripts/fuzz.sh 0 pprof >"$OUT/build.log" 2>&1; then
	pass fuzz_pprof_build
else
	fail fuzz_pprof_build "see $OUT/build.log (needs clang, libclang-rt-14-dev and zlib1g-dev)"
	finish
fi

# Every seed once: the committed corpus itself must be clean.
n=$(ls tests/fuzz/corpus/pprof-* 2>/dev/null | wc -l)
if [ "$n" -ge 3 ] && build/fuzz/fuzz_pprof tests/fuzz/corpus/pprof-* >"$OUT/seeds.log" 2>&1; then
	pass fuzz_pprof_seeds
else
	fail fuzz_pprof_seeds "$n seeds; see $OUT/seeds.log"
fi

if FUZZ_CORPUS_DIR="$OUT/corpus" scripts/fuzz.sh 20 pprof >"$OUT/fuzz.log" 2>&1; then
	pass fuzz_pprof_20s
else
	fail fuzz_pprof_20s "crash or invariant failure; see $OUT/fuzz.log and build/fuzz/artifacts/"
fi
finish
