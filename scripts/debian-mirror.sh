# Sourced by the scripts that need the Debian mirror this machine already uses (to add a
# deb-src entry for it, or to bootstrap a clean Debian root from it); never a hard-coded host.
# Entries in SRCLIST (when set) are skipped: they are lua-flame's own.

# The machine's own Debian mirror: the URIs of the first deb entry that serves this release's
# main component, in deb822 files or one-line sources.list entries. Empty when there is none.
debian_mirror() {
	codename=$1
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "${SRCLIST:-}" ] || continue
		awk -v suite="$codename" '
			function flush() { if (deb && main && hit && uris != "") { print uris; found = 1; exit } deb = main = hit = 0; uris = "" }
			/^[ \t]*$/ { flush(); next }
			tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) hit = 1 }
			tolower($1) == "components:" { for (i = 2; i <= NF; i++) if ($i == "main") main = 1 }
			tolower($1) == "uris:" { uris = $2 }
			END { if (!found) flush() }' "$f"
	done | head -1 | grep . && return 0
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v suite="$codename" '$1 == "deb" {
			i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++; if ($i ~ /^\[/ || $i ~ /\]$/) i++
			if ($(i + 1) == suite) for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; exit } }' | head -1
}
