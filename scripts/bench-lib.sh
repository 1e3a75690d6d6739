# Shared by the benchmark scripts (sourced): medians, the processes a run started, and the
# BPF run time of one lua-flame process, read through its own file descriptors so that other
# BPF users on the machine do not count. Needs $W (a work directory), bpftool and jq.

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
started() { STARTED="$STARTED $1"; }
forget() { STARTED=$(echo "$STARTED" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' '); }

# wait_sampling ERRFILE PID: until lua-flame PID says it samples (at most 10 s).
wait_sampling() {
	for _ in $(seq 100); do
		grep -q 'sampling .* ms after start' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# bpf_counters LFPID: "run_time_ns run_cnt samples" of the BPF programs lua-flame LFPID
# loaded: run time summed over on_sample and unwind_user (a tail-called program is
# accounted to its caller, so unwind_user usually shows none), run_cnt of on_sample,
# and the target samples counted in on_sample's stats map.
bpf_counters() {
	# The programs are found through the maps lua-flame holds: once attached, a program is
	# held by its perf events and links, not necessarily by a descriptor of its own.
	ids=$(grep -h '^map_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u | tr '\n' ' ')
	[ -n "$ids" ] || return 1
	bpftool -j prog show | jq -r --arg ids "$ids" '
		($ids | split(" ") | map(select(. != "") | tonumber)) as $mine
		| [.[] | select(((.map_ids // []) | any(. as $m | $mine | index($m))) and
				(.name == "on_sample" or .name == "unwind_user"))]
		| "\(map(.run_time_ns // 0) | add) \(map(select(.name == "on_sample") | .run_cnt // 0) | add)",
		  (map(select(.name == "on_sample") | .map_ids[]) | map(tostring) | join(" "))' >"$W/prog" ||
		return 1
	read -r rt cnt <"$W/prog"
	samples=0
	for m in $(sed -n 2p "$W/prog"); do
		[ "$(bpftool -j map show id "$m" | jq -r .name)" = stats ] || continue
		samples=$(bpftool -j map dump id "$m" | jq '[.[] | select(.formatted.key == 0) | .formatted.values[].value] | add')
	done
	echo "$rt $cnt $samples"
}

