#!/bin/sh
# Builds the libFuzzer targets of tests/fuzz/ with ASan and UBSan and runs each for SECONDS
# (default 600) on a working corpus seeded from tests/fuzz/corpus/. Exits non-zero when a
# target crashes; the input that did it is left in build/fuzz/artifacts/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]        targets: cfi, pprof (default: all)
# FUZZ_CORPUS_DIR overrides where the working corpora live (default build/fuzz/corpus-TARGET);
# FUZZ_BUILD_ONLY=1 builds build/fuzz/fuzz_TARGET without running it.
# Needs clang and libclang-rt-14-dev.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SECS=${1:-600}
[ $# -gt 0 ] && shift
TARGETS=${*:-cfi pprof}
B=build/fuzz
CLANG=${CLANG:-clang}
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Icmd -Icmd/unwind -Irender -Ibpf"

# Sources each target needs besides tests/fuzz/fuzz_TARGET.c (no libelf/libbpf: raw bytes only).
sources() {
	case $1 in
	cfi) echo cmd/unwind/cfi.c cmd/unwind/cfi_read.c cmd/unwind/cfi_insn.c cmd/unwind/cfi_crt.c ;;
	pprof) echo render/pprof_read.c render/tree.c render/names.c render/arena.c render/text.c -lz ;;
	*) return 1 ;;
	esac
}

build() {
	src=$(sources "$1") || { echo "fuzz.sh: unknown target $1" >&2; return 1; }
	mkdir -p "$B"
	# shellcheck disable=SC2086
	$CLANG $FLAGS -o "$B/fuzz_$1" "tests/fuzz/fuzz_$1.c" $src
}

run() {
	t=$1
	corpus=${FUZZ_CORPUS_DIR:-$B/corpus-$t}
	mkdir -p "$corpus" "$B/artifacts"
	for s in tests/fuzz/corpus/"$t"-*; do
		[ -f "$s" ] && cp -n "$s" "$corpus/" 2>/dev/null || true
	done
	echo "fuzz.sh: $t for ${SECS}s, corpus $corpus"
	"$B/fuzz_$t" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$B/artifacts/$t-" "$corpus"
}

status=0
for t in $TARGETS; do
	if ! build "$t"; then
		echo "fuzz.sh: cannot build fuzz_$t (is libclang-rt-14-dev installed?)" >&2
		status=1
		continue
	fi
	[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && continue
	if ! run "$t"; then
		echo "fuzz.sh: fuzz_$t failed; crashing input in $B/artifacts/" >&2
		status=1
	fi
done
exit $status
