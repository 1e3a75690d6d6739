#!/bin/sh
# Runs every unit test binary (build/tests/test_*) and integration script
# (tests/integ/*.sh), counts "PASS:"/"FAIL:" case lines and ends with "N passed, N failed".
# A test that exits non-zero without reporting a failure counts as one failure.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
mkdir -p tests/out
passed=0; failed=0
ONLY=${ONLY:-}

run_one() {
	name=$1; shift
	log=tests/out/$(basename "$name").log
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	p=$(grep -c '^PASS: ' "$log"); f=$(grep -c '^FAIL: ' "$log")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "FAIL: $name exited with status $rc" >>"$log"; fi
	passed=$((passed + p)); failed=$((failed + f))
	echo "$name: $p passed, $f failed ($(( $(date +%s) - start ))s)"
	[ "$f" = 0 ] || grep -E '^(FAIL: |  )' "$log" | head -20 | sed 's/^/    /'
}

for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	case $t in *"$ONLY"*) run_one "$t" "$t" ;; esac
done
for t in tests/integ/*.sh; do
	[ -f "$t" ] || continue
	case $t in *"$ONLY"*) run_one "$t" sh "$t" ;; esac
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
