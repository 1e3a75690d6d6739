# The checks of a profile of tests/kernel/split.lua (60% in sixty(), 40% in forty(), both in
# spin()) and of a wall-clock profile of tests/lua/wall_split.lua, shared by the kernel tests (tests/kernel/check.sh) and the arm64 tests
# (tests/arm64/check.sh). Sourced after tests/lib.sh.

# pct PART WHOLE: PART as an integer percentage of WHOLE (0 when WHOLE is 0)
pct() { [ "$2" -gt 0 ] && echo $(($1 * 100 / $2)) || echo 0; }

# A command's own start-up (the dynamic loader, the interpreter opening its libraries) and
# exit come before and after any Lua: on an emulated CPU they take a few percent of a short
# run. They are told apart by their native frames; any other sample must carry Lua frames.
STARTUP='(ld-linux|_dl_start|luaL_openlibs|luaopen_|luaL_newstate|lua_newstate|;exit;|_Exit)'

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
		start=$(count "$f" "^[^(]*$STARTUP[^(]*\$")
		check "$t: start-up and exit at most 20% of the run ($start of $n)" [ $((start * 5)) -le "$n" ] ;;
	esac
	run=$((n - start))
	named=$(pct "$(count "$f" "$chunk")" "$run")
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
