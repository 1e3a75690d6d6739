#!/bin/sh
# `lua-flame diff`: two real profiles of one Lua program where one function's share is
# raised (the table names it first, folded and pprof inputs agree), exact
# `stack before after` lines for a hand-made pair, well-formed SVG with hostile names,
# usage errors, and the SVG in headless Chromium (hover shows the change).
. "$(dirname "$0")/../lib.sh"
cd "$OUT" || exit 1
command -v xmllint >/dev/null 2>&1 ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >/dev/null 2>&1
wellformed() { xmllint --noout "$1" 2>>"$OUT/xmllint.log"; }
# diff NAME EXPECTED_STATUS ARGS...: runs lua-flame diff, stdout to NAME.out, stderr to NAME.err
diff_run() {
	name=$1 want=$2; shift 2
	"$LF" diff "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" </dev/null
	got=$?
	if [ "$got" = "$want" ]; then pass "$name"; else fail "$name" "exit $got, expected $want: $(head -c 300 "$OUT/$name.err")"; fi
}

# --- a hand-made pair: exact lines, both sides' stacks, sorted bytewise ---
cat >before.folded <<'F'
app;main (a.lua:1);hot (a.lua:5) 10
app;main (a.lua:1);cold (a.lua:9) 30
app;main (a.lua:1);gone (a.lua:12);string.rep 10
app;main (a.lua:1) 50
F
cat >after.folded <<'F'
app;main (a.lua:1);hot (a.lua:5) 60
app;main (a.lua:1);cold (a.lua:9) 20
app;main (a.lua:1);cold (a.lua:9) 10
app;main (a.lua:1);new (a.lua:20);string.rep 5
app;main (a.lua:1) 5
F
cat >expected.folded <<'F'
app;main (a.lua:1) 50 5
app;main (a.lua:1);cold (a.lua:9) 30 30
app;main (a.lua:1);gone (a.lua:12);string.rep 10 0
app;main (a.lua:1);hot (a.lua:5) 10 60
app;main (a.lua:1);new (a.lua:20);string.rep 0 5
F
diff_run pair 0 -o pair.folded -o pair.svg --top 3 before.folded after.folded
check pair_folded_exact cmp -s expected.folded pair.folded
check pair_svg_wellformed wellformed pair.svg
# hot went from 10% to 60%: +50 points, shown in the tooltip, the script's data and red
check pair_hot_title grep -q '^60 samples, 60.00%; before 10, 10.00%; change +50.00 pts, +50; Lua</title><rect [^>]*fill="#d6181c"' pair.svg
check pair_new_marked grep -q '<g data-o="[0-9]*" data-b="0" data-k="Lua" class="new"><title>new (a.lua:20)$' pair.svg
check pair_gone_counted grep -q 'not drawn: 1 frame only in BEFORE (10 samples, 10.00%)' pair.svg
check pair_unchanged_pale grep -q '^30 samples, 30.00%; before 30, 30.00%; change +0.00 pts, +0; Lua</title><rect [^>]*fill="#e2e2da"' pair.svg
check pair_top_first sh -c "sed -n 2p pair.out | grep -Eq '^ +10.00% +60.00% +\\+50.00 +10.00% +60.00% +\\+50.00  Lua      hot \\(a.lua:5\\)\$'"
check pair_top_second sh -c "sed -n 3p pair.out | grep -Eq '^ +50.00% +5.00% +-45.00 +100.00% +100.00% +\\+0.00  Lua      main \\(a.lua:1\\)\$'"
check pair_top_rows test "$(wc -l <pair.out)" = 4
diff_run pair_raw 0 --raw --top 1 before.folded after.folded
check pair_raw_counts sh -c "sed -n 2p pair_raw.out | grep -Eq '^ +10 +60 +\\+50 +10 +60 +\\+50  Lua      hot \\(a.lua:5\\)\$'"
# --reverse merges both sides leaf first: string.rep (under gone before, under new after) is one root
diff_run pair_reverse 0 --reverse --inverted -o reverse.svg before.folded after.folded
check pair_reverse_wellformed wellformed reverse.svg
check pair_reverse_matched sh -c "grep -A1 '<title>string.rep\$' reverse.svg | grep -q '^5 samples, 5.00%; before 10, 10.00%; change -5.00 pts, -5; 10 before in child frames gone since; C/native</title>'"
# an empty side: valid outputs, and a warning naming it
: >empty.folded
diff_run empty_after 0 -o empty.svg --format folded -o empty-diff.txt before.folded empty.folded
check empty_after_svg wellformed empty.svg
check empty_after_says grep -q 'No samples' empty.svg
check empty_after_folded sh -c "[ \"\$(awk '\$NF != 0' empty-diff.txt | wc -l)\" = 0 ] && [ \"\$(wc -l <empty-diff.txt)\" = 4 ]"
check empty_after_warns grep -q 'empty.folded has no samples' empty_after.err
# the same stacks on both sides: nothing changed anywhere
diff_run same 0 -o same.folded --top 2 before.folded before.folded
check same_zero_change sh -c "awk '\$(NF-1) != \$NF' same.folded | grep -q . && exit 1 || exit 0"
check same_top_zero sh -c "sed -n 2p same.out | grep -Eq '\\+0.00 .*\\+0.00  '"

# --- two real profiles of one program: work() raised from 10% to 55% of the time ---
cat >shares.lua <<'LUA'
-- Spends HOT percent of each 20 ms round in work(), the rest in three other
-- functions that do the same arithmetic.
local function work(s) local t = os.clock() repeat for i = 1, 500 do local _ = i % 7 end until os.clock() - t >= s end
local function parse(s) local t = os.clock() repeat for i = 1, 500 do local _ = i % 7 end until os.clock() - t >= s end
local function render(s) local t = os.clock() repeat for i = 1, 500 do local _ = i % 7 end until os.clock() - t >= s end
local function log(s) local t = os.clock() repeat for i = 1, 500 do local _ = i % 7 end until os.clock() - t >= s end
local hot, round = tonumber(arg[1]) / 100, 0.02
for _ = 1, 75 do
	work(round * hot)
	parse(round * (1 - hot) / 3)
	render(round * (1 - hot) / 3)
	log(round * (1 - hot) / 3)
end
LUA
"$LF" -q -F 499 -o real-before.folded -o real-before.pb.gz -- lua5.4 shares.lua 10 2>real-before.err
check record_before [ $? = 0 ]
"$LF" -q -F 499 -o real-after.folded -o real-after.pb.gz -- lua5.4 shares.lua 55 2>real-after.err
check record_after [ $? = 0 ]
b=$(share real-before.folded ';work \([^;]*shares.lua:3\)')
a=$(share real-after.folded ';work \([^;]*shares.lua:3\)')
check "work's share raised: ${b}% -> ${a}% (10% -> 55% by construction)" [ "$((a - b))" -ge 25 ]
diff_run real 0 -o real.svg -o real.folded --top 5 real-before.folded real-after.folded
check real_top_names_work sh -c "sed -n 2p real.out | grep -Eq '  Lua      work \\([^;]*shares.lua:3\\)\$'"
check real_svg_wellformed wellformed real.svg
check real_folded_before_total [ "$(awk '{ t += $(NF-1) } END { print t }' real.folded)" = "$(total real-before.folded)" ]
check real_folded_after_total [ "$(awk '{ t += $NF } END { print t }' real.folded)" = "$(total real-after.folded)" ]
# lua-flame's own pprof files give the same stacks as its folded files
diff_run real_pprof 0 -o real-pprof.folded --top 5 real-before.pb.gz real-after.pb.gz
check pprof_same_stacks cmp -s real.folded real-pprof.folded
check pprof_same_table cmp -s real.out real_pprof.out
diff_run mixed_inputs 0 -o mixed.folded real-before.folded real-after.pb.gz
check mixed_same_stacks cmp -s real.folded mixed.folded
# standard input for one side
"$LF" diff -o stdin.folded - real-after.folded <real-before.folded 2>/dev/null
check stdin_before cmp -s real.folded stdin.folded
"$LF" diff --format folded -o - real-before.folded - <real-after.pb.gz >stdout.folded 2>/dev/null
check stdin_pprof_stdout cmp -s real.folded stdout.folded

# --- hostile names: the SVG stays well-formed and inert ---
{
	printf 'app;<script>window.__pwned=1</script> 5\n'
	printf 'app;]]><script>window.__pwned=2</script> 4\n'
	printf 'app;"quoted" '"'"'single'"'"' &amp; &#0; &bogus 3\n'
	printf 'app;</title><img src=x onerror=alert(3)> 2\n'
	printf 'app;ctl\001\002\033[1m\177 2\n'
	printf 'app;bad\377\376\300\200utf8 2\n'
} >hostile-before.folded
sed 's/ \([0-9]*\)$/ 1\1/' hostile-before.folded >hostile-after.folded
printf 'app;only after <&> ]]> 3\n' >>hostile-after.folded
diff_run hostile 0 --title '</text><script>alert(4)</script>' -o hostile.svg -o hostile.folded --top 3 \
	hostile-before.folded hostile-after.folded
check hostile_wellformed wellformed hostile.svg
check hostile_one_script test "$(grep -c '<script' hostile.svg)" = 1
check hostile_no_control_bytes sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' hostile.folded hostile.out"

# --- usage and input errors ---
diff_run one_input 2 before.folded
check one_input_says grep -q 'give two profiles' one_input.err
diff_run three_inputs 2 before.folded after.folded before.folded
diff_run bad_ext 2 -o diff.png before.folded after.folded
check bad_ext_says grep -q 'use .svg or .folded' bad_ext.err
diff_run bad_top 2 --top 0 before.folded after.folded
diff_run bad_option 2 --no-such before.folded after.folded
check bad_option_says grep -q "lua-flame diff --help" bad_option.err
diff_run missing_input 2 -o never.svg before.folded no-such.folded
check missing_input_says grep -q 'cannot open no-such.folded' missing_input.err
check missing_input_no_output test ! -e never.svg
head -c 300 real-before.pb.gz >cut.pb.gz
diff_run truncated_pprof 1 -o never.svg cut.pb.gz after.folded
check truncated_pprof_says grep -q 'reading cut.pb.gz failed: not a complete gzip stream' truncated_pprof.err
printf '\377\377\377\377' | gzip >notproto.pb.gz
diff_run notproto_pprof 1 -o never.svg notproto.pb.gz after.folded
check notproto_pprof_says grep -q 'malformed profile.proto' notproto_pprof.err
diff_run top_and_stdout 2 --top 3 -o - before.folded after.folded
check top_and_stdout_says grep -q 'both write to standard output' top_and_stdout.err
diff_run help 0 --help
check help_text grep -q 'usage: lua-flame diff' help.out
# every long option of diff's parser is in its --help, the manual page and the README
MANWIDTH=100 man -l "$ROOT/doc/lua-flame.1" 2>/dev/null | sed 's/‐/-/g' >man.txt
for opt in $(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", .*/\1/p' "$ROOT/render/diff_cli.c"); do
	check "diff --$opt documented" sh -c "grep -q -- '--$opt\\b' help.out && grep -q -- '--$opt\\b' man.txt &&
		grep -q -- '--$opt\\b' '$ROOT/README.md'"
done
check "diff in the manual page" grep -q 'DIFFERENTIAL FLAME GRAPHS' man.txt
check "diff in lua-flame --help" sh -c "'$LF' --help | grep -q '^       lua-flame diff '"
diff_run default_output 0 before.folded after.folded
check default_output_svg wellformed diff.svg

# --- in headless Chromium (Debian's chromium driven by playwright-core, as render_browser.sh) ---
BR=$ROOT/tests/browser
if [ ! -x /usr/bin/chromium ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; }
fi
command -v node >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null 2>&1
if [ ! -d "$BR/node_modules/playwright-core" ]; then
	(cd "$BR" && npm install --no-package-lock --no-audit --no-fund --silent >"$OUT/npm.log" 2>&1)
fi
check chromium_installed test -x /usr/bin/chromium
check playwright_installed test -d "$BR/node_modules/playwright-core"
if [ -d "$BR/node_modules/playwright-core" ] && [ -x /usr/bin/chromium ]; then
	node "$BR/check-diff.js" "$OUT/pair.svg" "$OUT/hostile.svg" "$OUT" || FAILED=$((FAILED + 1))
fi
finish
