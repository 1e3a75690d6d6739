# Helpers for the container tests (sourced after tests/lib.sh): fresh copies of the cached
# roots from mkroot.sh, and workloads started in them with run.sh, known by their host PID.
CT=$ROOT/tests/container

# ct_root KIND DIR: a private copy of root KIND at DIR (tests may delete or replace files in it).
ct_root() {
	src=$(sh "$CT/mkroot.sh" "$1") || return 1
	rm -rf "$2" && cp -a "$src" "$2"
}

# ct_start ROOT COMM CMD [ARGS...]: runs CMD in a container on ROOT (run.sh options in
# $CT_OPTS) and waits until it runs as COMM; CONTAINER_PID is its host PID. Both it and
# the unshare process around it are killed at exit.
ct_start() {
	r=$1 comm=$2; shift 2
	# shellcheck disable=SC2086
	sh "$CT/run.sh" $CT_OPTS "$r" "$@" &
	outer=$!
	PIDS_TO_KILL="$PIDS_TO_KILL $outer"
	CONTAINER_PID=""
	for _ in $(seq 100); do
		CONTAINER_PID=$(pgrep -P "$outer" 2>/dev/null | head -1)
		if [ -n "$CONTAINER_PID" ] && [ "$(cat "/proc/$CONTAINER_PID/comm" 2>/dev/null)" = "$comm" ]; then
			PIDS_TO_KILL="$PIDS_TO_KILL $CONTAINER_PID"
			return 0
		fi
		sleep 0.1
	done
	echo "container on $r did not start $comm" >&2
	return 1
}
