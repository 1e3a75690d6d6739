#!/bin/sh
# Fuzzes the CFI parser (cmd/unwind/cfi.c) for about 20 seconds under ASan and UBSan, starting from
# the seed corpus tests/fuzz/corpus/cfi-* (real .eh_frame/.debug_frame sections and damaged
# copies). Any crash, leak or broken table invariant fails the test.
. "$(dirname "$0")/../lib.sh"
fuzz_target cfi 5 "clang and libclang-rt-14-dev"
finish
