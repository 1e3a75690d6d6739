#!/bin/sh
# The SVG in headless Chromium (Debian's chromium driven by playwright-core): hover,
# click to zoom, search, URL state, hostile names. Installs chromium and the node
# module when missing, so it runs in CI as is.
. "$(dirname "$0")/../lib.sh"
BR=$ROOT/tests/browser

if [ ! -x /usr/bin/chromium ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1; }
fi
check chromium_installed test -x /usr/bin/chromium
command -v node >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null 2>&1
if [ ! -d "$BR/node_modules/playwright-core" ]; then
	(cd "$BR" && npm install --no-package-lock --no-audit --no-fund --silent >"$OUT/npm.log" 2>&1)
fi
check playwright_installed test -d "$BR/node_modules/playwright-core"

cat >"$OUT/main.folded" <<'F'
nginx;main;ngx_worker_process_cycle;epoll_wait;entry_SYSCALL_64_[k];do_epoll_wait_[k] 40
nginx;main;ngx_worker_process_cycle;ngx_http_lua_content_handler;handle (app.lua:42);string.format 25
nginx;main;ngx_worker_process_cycle;ngx_http_lua_content_handler;handle (app.lua:42);string.format;format_number 10
nginx;main;ngx_worker_process_cycle;ngx_http_lua_content_handler;handle (app.lua:42);render (view.lua:7)_[j] 30
nginx;main;ngx_worker_process_cycle;ngx_http_lua_content_handler;handle (app.lua:42);[GC] 8
nginx;main;ngx_worker_process_cycle;ngx_http_lua_content_handler;[JIT compiler] 5
nginx;main;ngx_worker_process_cycle;ngx_http_lua_content_handler;handle (app.lua:42) 12
nginx;main;[unknown] 2
F
printf '%s\n' \
	'app;<script>window.__pwned=1</script> 5' \
	'app;"><script>window.__pwned=2</script><x a=" 4' \
	'app;]]><script>window.__pwned=3</script> 3' \
	"app;</title><img src=x onerror='window.__pwned=4'> 3" \
	'app;&amp;&lt;&#0;&bogus; 2' >"$OUT/hostile.folded"
printf 'app;\001\002\033[31mred\177 2\napp;\377\376bad utf8 \300\200 3\n' >>"$OUT/hostile.folded"

check render_main_svg "$LF" render --subtitle 'browser fixture' -o "$OUT/main.svg" "$OUT/main.folded"
check render_hostile_svg "$LF" render -o "$OUT/hostile.svg" "$OUT/hostile.folded"
if [ -d "$BR/node_modules/playwright-core" ] && [ -x /usr/bin/chromium ]; then
	node "$BR/check-svg.js" "$OUT/main.svg" "$OUT/main.folded" "$OUT/hostile.svg" "$OUT" ||
		FAILED=$((FAILED + 1))
fi
finish
