#!/bin/sh
# Fuzzes the pprof reader of `lua-flame diff` (render/pprof_read.c) for about 20 seconds under
# ASan and UBSan, starting from the seed corpus tests/fuzz/corpus/pprof-* (lua-flame's own
# profiles, a cut one). Any crash, leak or tree that does not add up fails the test.
. "$(dirname "$0")/../lib.sh"
fuzz_target pprof 3 "clang, libclang-rt-14-dev and zlib1g-dev"
finish
