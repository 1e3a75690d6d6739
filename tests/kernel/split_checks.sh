# The checks of a profile of tests/kernel/split.lua (60% in sixty(), 40% in forty(), both in
# spin()) and of a wall-clock profile of tests/lua/wall_split.lua, shared by the kernel tests (tests/kernel/check.sh) and the arm64 tests
# (tests/arm64/check.sh). Sourced after tests/lib.sh.

# pct PART WHOLE: PART as an integer percentage of WHOLE (0 when WHOLE is 0)
pct() { [ "$2" -gt 0 ] && echo $(($1 * 100 / $2)) || echo 0; }

# A command's own start-up (the dynamic loader, the interpreter opening its libraries and
# compiling the script) and exit come before and after any Lua: on an emulated CPU they take
# a few percent of a short run, more on a busy host. The stand-alone interpreters run their
# setup in one protected call (lua_cpcall or lua_pcall) and the script in a second one, so a
# sample without Lua frames, rooted in the program's or the loader's entry, is start-up while
# it holds fewer than two; one with two and no Lua frame is a Lua stack lost.
# startup_lines FOLDED [lost]: the folded lines of start-up and exit; with "lost", those of
# every other sample without the main chunk instead
startup_lines() {
	awk -v lost="$2" '{ s = $0; sub(/ [0-9]+$/, "", s); st = 0
		if (s !~ /\(/) {
			n = split(s, f, ";"); p = 0
			for (i = 2; i <= n; i++) if (f[i] ~ /^lua_(pcallk?|cpcall)$/) p++
			st = s ~ /;exit;|;_Exit(;|$)/ || (p < 2 && (f[2] == "_start" || f[2] ~ /^ld-linux/))
		}
		if (lost ? !st && s !~ /main chunk/ : st) print }' "$1"
}

# show_lost TITLE FOLDED: the heaviest samples neither start-up nor in the main chunk, and the
# run's --stats line (its log beside FOLDED), for the log
show_lost() {
	grep -h 'stats:' "${2%.folded}.log" 2>/dev/null | sed 's/^/  /'
	startup_lines "$2" lost | sort -t' ' -k2 -nr | head -5 | awk -v t="$1" '{ n = $NF; s = $0
		sub(/ [0-9]+$/, "", s); if (length(s) > 240) s = "..." substr(s, length(s) - 240)
		print "  " t ": lost " n ": " s }'
}

# check_split TITLE FOLDED RC: the checks of one profile of split.lua (FOLDED, lua-flame's exit
# status in the file RC); a TITLE ending in -cmd is a run started with -- COMMAND.
check_split() {
	t=$1 f=$2
	check "$t: lua-flame exited 0" [ "$(cat "$3" 2>/dev/null)" = 0 ]
	n=$(total "$f" 2>/dev/null || echo 0)
	check "$t: at least 500 samples ($n)" [ "$n" -ge 500 ]
	[ "$n" -gt 0 ] || return 0
	chunk='main chunk \(/split\.lua:0\)'
	start=0
	case $t in *-cmd)
		start=$(startup_lines "$f" | awk '{ s += $NF } END { print s + 0 }')
		check "$t: start-up and exit at most 20% of the run ($start of $n)" [ $((start * 5)) -le "$n" ] ;;
	esac
	run=$((n - start))
	named=$(pct "$(count "$f" "$chunk")" "$run")
	[ "$named" -ge 95 ] || show_lost "$t" "$f"
	check "$t: named Lua frames in >= 95% of samples once Lua runs ($named%)" [ "$named" -ge 95 ]
	rooted=$(pct "$(count "$f" "(^|;)_start;.*$chunk")" "$run")
	check "$t: main chunk under the native root in >= 95% ($rooted%)" [ "$rooted" -ge 95 ]
	# the split among the samples in the main chunk
	m=$(count "$f" "$chunk")
	six=$(pct "$(count "$f" "$chunk;sixty \(/split\.lua:9\)")" "$m")
	forty=$(pct "$(count "$f" "$chunk;forty \(/split\.lua:10\)")" "$m")
	check "$t: sixty() 60% +-6 ($six%)" near "$six" 60 6
	check "$t: forty() 40% +-6 ($forty%)" near "$forty" 40 6
	spin=$(pct "$(count "$f" ';(sixty|forty) \(/split\.lua:(9|10)\);spin \(/split\.lua:3\)')" "$m")
	check "$t: spin() under its callers in >= 90% ($spin%)" [ "$spin" -ge 90 ]
	marks=$(count "$f" '\[unwind: ')
	check "$t: at most 1% of samples end in an unwinding marker ($marks of $n)" [ $((marks * 100)) -le "$n" ]
}


# check_wall TITLE FOLDED RC SAMPLES [PERCENT]: a wall-clock profile of wall_split.lua (one thread
# at 99 Hz: SAMPLES is 99 a second of the run), its count within PERCENT (default 10) of SAMPLES
check_wall() {
	t=$1 f=$2 tol=${5:-10}
	check "$t: lua-flame exited 0" [ "$(cat "$3" 2>/dev/null)" = 0 ]
	n=$(total "$f" 2>/dev/null || echo 0)
	check "$t: every moment counted: $4 samples within $tol% ($n)" \
		sh -c "[ $n -ge $(($4 * (100 - tol) / 100)) ] && [ $n -le $(($4 * (100 + tol) / 100)) ]"
	# the emulated CPU makes os.execute's spawn slow: the split is looser than on the host
	w=$(pct "$(count "$f" ';wait_sixty \(/wall_split\.lua:8\)(;[^;]*)*;\[off-CPU: [^]]+\]')" "$n")
	b=$(pct "$(count "$f" ';burn_forty \(/wall_split\.lua:3\)')" "$n")
	check "$t: waiting in wait_sixty, off the CPU, in >= 40% ($w%)" [ "$w" -ge 40 ]
	check "$t: computing in burn_forty in >= 20% ($b%)" [ "$b" -ge 20 ]
	check "$t: the wait for the child is named" grep -q '\[off-CPU: do_wait\]' "$f"
}
