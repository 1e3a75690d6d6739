#!/bin/sh
# `lua-flame render` end to end: exit codes and messages, stdin and files, options,
# malformed and hostile input, other tools' folded output; every SVG must be
# well-formed XML (xmllint).
. "$(dirname "$0")/../lib.sh"
cd "$OUT" || exit 1
command -v xmllint >/dev/null 2>&1 ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >/dev/null 2>&1
check xmllint_installed test -x "$(command -v xmllint)"

wellformed() { xmllint --noout "$1" 2>>"$OUT/xmllint.log"; }
frames() { grep -c '^<g data-o=' "$1"; }
# render NAME EXPECTED_STATUS ARGS...: runs the renderer, stderr to NAME.err
render() {
	name=$1 want=$2; shift 2
	"$LF" render "$@" >"$OUT/$name.out" 2>"$OUT/$name.err" </dev/null
	got=$?
	if [ "$got" = "$want" ]; then pass "$name"; else fail "$name" "exit $got, expected $want: $(head -c 300 "$OUT/$name.err")"; fi
}

cat >perf.folded <<'F'
nginx;_start;__libc_start_main;main;ngx_master_process_cycle;ngx_start_worker_processes;ngx_spawn_process;ngx_worker_process_cycle;ngx_process_events_and_timers;ngx_epoll_process_events;epoll_wait;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_epoll_wait_[k];do_epoll_wait_[k];schedule_hrtimeout_range_[k] 118
nginx;_start;__libc_start_main;main;ngx_master_process_cycle;ngx_start_worker_processes;ngx_spawn_process;ngx_worker_process_cycle;ngx_process_events_and_timers;ngx_http_wait_request_handler;ngx_http_process_request;ngx_http_lua_content_handler;lua_pcall;handle_request (app.lua:42);string.format 57
nginx;_start;__libc_start_main;main;ngx_master_process_cycle;ngx_start_worker_processes;ngx_spawn_process;ngx_worker_process_cycle;ngx_process_events_and_timers;ngx_http_wait_request_handler;ngx_http_process_request;ngx_http_lua_content_handler;lua_pcall;handle_request (app.lua:42);render (view.lua:7)_[j] 33
nginx;_start;__libc_start_main;main;ngx_master_process_cycle;ngx_start_worker_processes;ngx_spawn_process;ngx_worker_process_cycle;ngx_process_events_and_timers;ngx_http_wait_request_handler;ngx_http_process_request;ngx_http_lua_content_handler;lua_pcall;[GC] 12
nginx;[unknown];libluajit-5.1.so.2.1.0+0x1a2b;[JIT compiler] 4
nginx;[libc.so.6];std::vector<int, std::allocator<int> >::push_back(int const&);operator new(unsigned long) 9
perf-exec;[unknown] 1
F
render default_output 0 perf.folded
check default_output_exists test -s perf.svg
check default_output_wellformed wellformed perf.svg
check default_output_frames test "$(frames perf.svg)" -ge 25
check escaped_cplusplus grep -q 'std::vector&lt;int, std::allocator&lt;int&gt; &gt;::push_back(int const&amp;)' perf.svg
check quiet_when_clean test ! -s default_output.err

# py-spy record --format raw (with --threads and a process root)
cat >pyspy.folded <<'F'
process 4242:"python3 app.py";thread (0x7F2C3B4E1740);<module> (app.py:30);main (app.py:25);work (app.py:12) 311
process 4242:"python3 app.py";thread (0x7F2C3B4E1740);<module> (app.py:30);main (app.py:25);sleep (time.py:0) 22
process 4242:"python3 app.py";thread (0x7F2C3A1FF6C0);_bootstrap (threading.py:995);run (threading.py:975) 7
F
render pyspy 0 -o pyspy.svg pyspy.folded
check pyspy_wellformed wellformed pyspy.svg
check pyspy_frames test "$(frames pyspy.svg)" = 10

# standard input, both '-' and no argument
"$LF" render -o stdin-dash.svg - <perf.folded 2>/dev/null
check stdin_dash cmp -s perf.svg stdin-dash.svg
"$LF" render -o stdin-none.svg <perf.folded 2>/dev/null
check stdin_none cmp -s perf.svg stdin-none.svg
"$LF" render -o - perf.folded >stdout.svg 2>/dev/null
check stdout_output cmp -s perf.svg stdout.svg

# options, in both spellings
render options 0 --title 'Busy <worker> & co' --subtitle='pid 4242, 30 s' --countname=microseconds \
	--width 800 --minwidth 0.05% --heaviest -o options.svg perf.folded
check options_wellformed wellformed options.svg
check options_title grep -q '>Busy &lt;worker&gt; &amp; co</text>' options.svg
check options_subtitle grep -q '>pid 4242, 30 s</text>' options.svg
check options_width grep -q 'width="800" height=' options.svg
check options_countname grep -q '234 microseconds' options.svg
render inverted 0 --inverted -o inverted.svg perf.folded
check inverted_wellformed wellformed inverted.svg
check inverted_title grep -q '>Icicle Graph</text>' inverted.svg
render reverse 0 --reverse -o reverse.svg perf.folded
check reverse_wellformed wellformed reverse.svg
# leaf first: the kernel's schedule_hrtimeout_range is now a root-level frame
check reverse_root grep -q '<title>schedule_hrtimeout_range_\[k\]$' reverse.svg
render prune 0 --minwidth 100 -o prune.svg perf.folded
check prune_fewer test "$(frames prune.svg)" -lt "$(frames perf.svg)"
check prune_keeps_totals grep -q '<title>nginx$' prune.svg

# bad usage: exit 2 with advice
render bad_option 2 --no-such-thing perf.folded
check bad_option_says_help grep -q 'lua-flame render --help' bad_option.err
render bad_width 2 --width abc perf.folded
render bad_width_small 2 --width 5 perf.folded
render bad_minwidth 2 --minwidth -1 perf.folded
render bad_minwidth_pct 2 --minwidth 0.1%% perf.folded
render missing_value 2 perf.folded --title
render two_inputs 2 perf.folded pyspy.folded
render missing_input 2 -o never.svg no-such-file.folded
check missing_input_says grep -q 'no-such-file.folded' missing_input.err
check missing_input_no_output test ! -e never.svg
render help 0 --help
check help_text grep -q 'usage: lua-flame render' help.out
# failure to write: exit 1, and nothing half-written
render unwritable 1 -o /nonexistent-dir/x.svg perf.folded
check unwritable_says grep -q 'choose another place with -o' unwritable.err

# empty input: a valid SVG that says so, exit 0
: >empty.folded
render empty 0 -o empty.svg empty.folded
check empty_wellformed wellformed empty.svg
check empty_says grep -q 'No samples' empty.svg
check empty_warns grep -q 'no samples' empty.err

# malformed lines are skipped and counted
printf 'a;b 3\nno count\na;b -4\na;b 123456789012345678901234567890\n\na;c 2\n;;; 7\n' >malformed.folded
render malformed 0 -o malformed.svg malformed.folded
check malformed_wellformed wellformed malformed.svg
check malformed_counted grep -q 'ignored 5 malformed lines' malformed.err
check malformed_total grep -q '<title>all$' malformed.svg

# binary junk, an over-long line, hostile names
head -c 2000000 /dev/urandom >junk.folded
render junk 0 -o junk.svg junk.folded
check junk_wellformed wellformed junk.svg
{ printf 'x;y 1\n'; head -c 3000000 /dev/zero | tr '\0' 'a'; printf ' 5\nx;z 2\n'; } >long.folded
render long_line 0 -o long.svg long.folded
check long_line_wellformed wellformed long.svg
check long_line_counted grep -q 'ignored 1 malformed line ' long_line.err
{
	printf 'app;<script>alert(1)</script> 5\n'
	printf 'app;]]><script>alert(2)</script> 4\n'
	printf 'app;"quoted" '"'"'single'"'"' &amp; &#0; &bogus 3\n'
	printf 'app;</svg><svg onload=alert(3)> 2\n'
	printf 'app;ctl\001\002\033[1m\177\302\205 2\n'
	printf 'app;bad\377\376\300\200\355\240\200utf8 2\n'
	printf 'app;\357\277\276nonchar 1\n'
} >hostile.folded
render hostile 0 --title '</text><script>alert(4)</script>' --subtitle "$(printf 'sub\001\377')" \
	-o hostile.svg hostile.folded
check hostile_wellformed wellformed hostile.svg
check hostile_one_script test "$(grep -c '<script' hostile.svg)" = 1
check hostile_no_svg_tag test "$(grep -c '<svg' hostile.svg)" = 1

# Limits are said, not silent: a stack deeper than 2048 frames, counts past 2^64-1.
{
	printf 'a'; seq 2100 | awk '{ printf ";f%d", $1 }'; printf ' 5\n'
	awk 'BEGIN { for (i = 0; i < 20000; i++) printf "b;c%d 1000000000000000\n", i % 3 }'
} >limits.folded
render limits 0 -o limits.svg limits.folded
check limits_wellformed wellformed limits.svg
check limits_cut_said grep -q '^lua-flame render: 1 stack deeper than 2048 frames cut there' limits.err
check limits_saturation_said grep -q 'counts add up past 18446744073709551615' limits.err
finish
