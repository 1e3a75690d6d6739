#!/bin/sh
# pprof, speedscope and callgrind files read by the ecosystem's own tools: `go tool pprof`,
# speedscope's schema and importer (npm package, in headless Chromium) and
# callgrind_annotate. Profiles come from folded files with a known split, converted by
# build/tests/test_formats --convert (no BPF needed). Installs missing tools itself.
. "$(dirname "$0")/../lib.sh"
CONV=${CONV:-$ROOT/build/tests/test_formats}
FMT=$ROOT/tests/formats

apt_install() {
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1; }
}
command -v go >/dev/null 2>&1 || apt_install golang-go
command -v callgrind_annotate >/dev/null 2>&1 || apt_install valgrind
command -v node >/dev/null 2>&1 || apt_install nodejs npm
[ -x /usr/bin/chromium ] || apt_install chromium
if [ ! -d "$FMT/node_modules/speedscope" ] || [ ! -d "$FMT/node_modules/ajv" ] ||
   [ ! -d "$FMT/node_modules/playwright-core" ]; then
	(cd "$FMT" && npm install --no-package-lock --no-audit --no-fund --silent >"$OUT/npm.log" 2>&1)
fi
have_tools() { for t in go callgrind_annotate node; do command -v "$t" >/dev/null || return 1; done; }
check tools_installed have_tools
check speedscope_installed test -f "$FMT/node_modules/speedscope/dist/release/file-format-schema.json"
check converter_built test -x "$CONV"

# 50/30/20 between three Lua functions; hot_c spends its time in a C function.
cat >"$OUT/split.folded" <<'F'
lua5.4;main chunk (bench.lua:0);work (bench.lua:10);hot_a (bench.lua:1) 500
lua5.4;main chunk (bench.lua:0);work (bench.lua:10);hot_b (bench.lua:4) 300
lua5.4;main chunk (bench.lua:0);work (bench.lua:10);hot_c (bench.lua:7);string.rep 200
F
# Recursion: f and g call each other; each edge must count once per stack.
cat >"$OUT/recursive.folded" <<'F'
luajit;f (r.lua:1);g (r.lua:5);f (r.lua:1);g (r.lua:5) 60
luajit;f (r.lua:1)_[j];[trace 3] 30
luajit;f (r.lua:1);do_syscall_64_[k] 10
F
# Hostile names: quotes, backslashes, control bytes, invalid UTF-8, brackets and parens.
{
	printf 'app;"quoted" \\back\\slash;\001\002\033[31mred\177 2\n'
	printf 'app;\377\376bad utf8 \300\200;(anonymous namespace)::f() const 3\n'
	printf 'app;? ([string "x = f (y:1)"]:3);libweird.so (deleted)+0x1f;[unwind: no table] 4\n'
	printf 'app;%s 1\n' "$(head -c 3000 /dev/zero | tr '\0' x)"
} >"$OUT/hostile.folded"

for n in split recursive hostile; do
	for ext in pb.gz speedscope.json callgrind; do
		check "convert_${n}_$ext" "$CONV" --convert "$OUT/$n.folded" "$OUT/$n.$ext" 99
	done
done
check convert_callgrind_out_name "$CONV" --convert "$OUT/split.folded" "$OUT/callgrind.out.42" 99
check callgrind_out_name_same cmp "$OUT/split.callgrind" "$OUT/callgrind.out.42"

# ---- pprof ----
# pprof_row FILE NAME: "flat% cum%" of NAME in `go tool pprof -top`.
pprof_row() {
	go tool pprof -top -nodecount=20 "$1" 2>/dev/null | awk -v name="$2" '
		$2 ~ /%$/ { n = $6; for (i = 7; i <= NF; i++) n = n " " $i; if (n == name) print $2, $5 }'
}
expect_row() {
	got=$(pprof_row "$1" "$2")
	if [ "$got" = "$3" ]; then pass "pprof_$4"; else fail "pprof_$4" "$2: '$got', expected '$3'"; fi
}
go tool pprof -top -nodecount=20 "$OUT/split.pb.gz" >"$OUT/split.pprof.txt" 2>&1
check pprof_reads_file grep -q 'Type: cpu' "$OUT/split.pprof.txt"
check pprof_total_time grep -q 'of 10.10s total' "$OUT/split.pprof.txt"
expect_row "$OUT/split.pb.gz" hot_a "50.00% 50.00%" hot_a
expect_row "$OUT/split.pb.gz" hot_b "30.00% 30.00%" hot_b
expect_row "$OUT/split.pb.gz" string.rep "20.00% 20.00%" string_rep
expect_row "$OUT/split.pb.gz" hot_c "0% 20.00%" hot_c_cum
expect_row "$OUT/split.pb.gz" "main chunk" "0% 100%" main_chunk_cum
go tool pprof -sample_index=samples -top "$OUT/split.pb.gz" 2>/dev/null >"$OUT/split.samples.txt"
check pprof_sample_counts grep -Eq '^ +500 +50\.00% .* hot_a$' "$OUT/split.samples.txt"
go tool pprof -raw "$OUT/split.pb.gz" >"$OUT/split.raw.txt" 2>&1
check pprof_lua_file_line grep -Eq 'hot_a bench\.lua:1 s=1' "$OUT/split.raw.txt"
expect_row "$OUT/recursive.pb.gz" f "0% 70.00%" recursive_f
expect_row "$OUT/recursive.pb.gz" "f_[j]" "0% 30.00%" jit_frame
expect_row "$OUT/recursive.pb.gz" "do_syscall_64_[k]" "10.00% 10.00%" kernel_frame
go tool pprof -raw "$OUT/hostile.pb.gz" >"$OUT/hostile.raw.txt" 2>&1
check pprof_hostile grep -q 'libweird.so (deleted)+0x1f libweird.so (deleted):0' "$OUT/hostile.raw.txt"

# ---- speedscope ----
node "$FMT/check-speedscope.js" speedscope_split "$OUT/split.speedscope.json" hot_a=50 hot_b=30 string.rep=20 ||
	FAILED=$((FAILED + 1))
node "$FMT/check-speedscope.js" speedscope_recursive "$OUT/recursive.speedscope.json" 'g=60' 'do_syscall_64_[k]=10' ||
	FAILED=$((FAILED + 1))
node "$FMT/check-speedscope.js" speedscope_hostile "$OUT/hostile.speedscope.json" || FAILED=$((FAILED + 1))

# ---- callgrind ----
callgrind_annotate "$OUT/split.callgrind" >"$OUT/split.annotate.txt" 2>&1
check callgrind_reads_file grep -q 'Events recorded: *Samples' "$OUT/split.annotate.txt"
check callgrind_no_warnings sh -c "! grep -q WARNING '$OUT/split.annotate.txt'"
check callgrind_totals grep -Eq '^1,000 \(100\.0%\) +PROGRAM TOTALS' "$OUT/split.annotate.txt"
check callgrind_hot_a grep -Eq '^500 \(50\.00%\) +bench\.lua:hot_a \(bench\.lua:1\)$' "$OUT/split.annotate.txt"
check callgrind_hot_b grep -Eq '^300 \(30\.00%\) +bench\.lua:hot_b \(bench\.lua:4\)$' "$OUT/split.annotate.txt"
check callgrind_string_rep grep -Eq '^200 \(20\.00%\) +\?\?\?:string\.rep$' "$OUT/split.annotate.txt"
callgrind_annotate --inclusive=yes "$OUT/split.callgrind" >"$OUT/split.inclusive.txt" 2>&1
check callgrind_inclusive_work grep -Eq '^1,000 \(100\.0%\) +bench\.lua:work \(bench\.lua:10\)$' "$OUT/split.inclusive.txt"
check callgrind_inclusive_hot_c grep -Eq '^ *200 \(20\.00%\) +bench\.lua:hot_c \(bench\.lua:7\)$' "$OUT/split.inclusive.txt"
callgrind_annotate --inclusive=yes "$OUT/recursive.callgrind" >"$OUT/recursive.inclusive.txt" 2>&1
check callgrind_recursive_totals grep -Eq '^100 \(100\.0%\) +PROGRAM TOTALS' "$OUT/recursive.inclusive.txt"
# g is entered twice in one stack of 60 samples: its inclusive cost is 60, not 120.
check callgrind_recursion_once grep -Eq '^ *60 \(60\.00%\) +r\.lua:g \(r\.lua:5\)$' "$OUT/recursive.inclusive.txt"
callgrind_annotate "$OUT/hostile.callgrind" >"$OUT/hostile.annotate.txt" 2>&1
check callgrind_hostile_totals grep -Eq '^10 \(100\.0%\) +PROGRAM TOTALS' "$OUT/hostile.annotate.txt"
check callgrind_hostile_no_warnings sh -c "! grep -q WARNING '$OUT/hostile.annotate.txt'"
finish
