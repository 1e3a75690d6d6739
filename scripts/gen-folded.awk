# Folded stacks shaped like a real profile of an OpenResty server, for the renderer's
# benchmark: LINES lines ("frame;...;frame COUNT"), nearly every one a distinct stack.
# usage: awk -v lines=N [-v seed=42] -f scripts/gen-folded.awk | LC_ALL=C sort
# The output is unsorted (sort it as lua-flame and stackcollapse-perf.pl do) and the same
# for the same seed and awk; about 2 lines in 100 repeat a stack (scripts/bench-render.sh
# merges them).
#
# Shape, as real profiles have it:
# - a call graph of NFN functions (a few thousand distinct labels in all): Lua
#   "name (chunk.lua:LINE)", Lua in a JIT trace "..._[j]", C functions of LuaJIT, nginx
#   and its Lua module, shared-library addresses "libc.so.6+0x1a2b3", kernel "..._[k]"
#   and VM states "[GC]";
# - a few entry paths (request handler, timer, upstream socket, a syscall from C);
# - each frame calls one of 8 callees, the first far more often except in the last few
#   frames, so stacks share long prefixes and part near the leaf, as a call tree does;
# - 10 to 60 frames per stack;
# - counts mostly 1 to 5 with a long tail (a Pareto draw), as a few hot paths have.
BEGIN {
	if (!lines)
		lines = 10000
	srand(seed ? seed : 42)
	NFN = 2400
	nverb = split("handle get set parse encode decode load check call run init update " \
		"route auth query fetch render build send read write close open resolve", verb, " ")
	nnoun = split("request header body user session json cache row token route config " \
		"buffer list item peer timer upstream response cookie args", noun, " ")
	nmod = split("app app/handlers/api app/handlers/admin app/models app/util lib/resty/core " \
		"lib/resty/http lib/resty/redis lib/resty/mysql lib/resty/lrucache lib/cjson_safe " \
		"lib/resty/string lib/resty/jwt", mod, " ")
	nlib = split("libc.so.6 libcrypto.so.3 libssl.so.3 libz.so.1 libpcre2-8.so.0 " \
		"libluajit-5.1.so.2 libm.so.6 libyaml-0.so.2", lib, " ")
	ncfn = split("lj_tab_get lj_tab_set lj_str_new lj_gc_step lj_meta_tget lj_buf_putstr " \
		"lj_vm_call lj_ffh_string_format lj_cf_table_insert lua_pushlstring lua_getfield " \
		"luaL_checklstring ngx_http_lua_ffi_get_resp_status ngx_http_lua_ngx_say " \
		"ngx_http_lua_socket_tcp_receive ngx_palloc ngx_pnalloc ngx_http_send_header " \
		"ngx_http_output_filter ngx_linux_sendfile_chain ngx_http_lua_run_thread memcpy " \
		"malloc free strlen ngx_http_lua_ffi_req_get_headers ngx_http_lua_shdict_get", cfn, " ")
	for (i = 0; i < NFN; i++) {
		r = i % 20
		v = verb[1 + i % nverb]
		n = noun[1 + int(i / nverb) % nnoun]
		m = mod[1 + (i * 7) % nmod]
		if (r < 9)
			fn[i] = sprintf("%s_%s (%s.lua:%d)", v, n, m, 1 + (i * 37) % 900)
		else if (r < 10)
			fn[i] = sprintf("? (%s.lua:%d)", m, 1 + (i * 53) % 1200)
		else if (r < 12)
			fn[i] = sprintf("%s_%s (%s.lua:%d)_[j]", v, n, m, 1 + (i * 13) % 400)
		else if (r < 16)
			fn[i] = i < 20 * ncfn ? cfn[1 + int(i / 20)] : sprintf("%s_%s_%s", \
				(i % 3 ? "ngx_http_lua" : "lj"), n, v)
		else
			fn[i] = sprintf("%s+0x%x", lib[1 + i % nlib], 4096 + (i * 2654435761) % 1048576)
	}
	w = "nginx;_start;__libc_start_main;main;ngx_master_process_cycle;ngx_start_worker_processes;" \
		"ngx_spawn_process;ngx_worker_process_cycle;ngx_process_events_and_timers"
	pre[0] = w ";ngx_epoll_process_events;ngx_http_wait_request_handler;ngx_http_process_request;" \
		"ngx_http_core_run_phases;ngx_http_lua_content_handler;lua_pcall"
	pre[1] = w ";ngx_event_expire_timers;ngx_http_lua_timer_handler;lua_resume"
	pre[2] = w ";ngx_epoll_process_events;ngx_http_upstream_handler;" \
		"ngx_http_lua_socket_tcp_handler;lua_resume"
	pre[3] = "nginx;entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k]"
	for (i = 0; i < lines; i++) {
		x = rand()
		st = pre[int(x * x * 4)]
		d = split(st, tmp, ";")
		# 10 to 57 frames here, and up to 3 more for the leaf's syscall: 60 at most
		depth = d + 7 + int(rand() * rand() * (51 - d))
		f = int(rand() * rand() * 400)   # the handler: a few hundred, some far more often
		for (; d < depth; d++) {
			k = 0
			pp = (depth - d <= 3) ? 0.3 : 0.85
			while (k < 7 && rand() > pp)
				k++
			f = (f * 131 + k * 977 + d * 7 + 13) % NFN
			st = st ";" fn[f]
		}
		r = rand()
		if (r < 0.08)
			st = st ";entry_SYSCALL_64_after_hwframe_[k];do_syscall_64_[k];__x64_sys_" \
				(r < 0.04 ? "write" : "epoll_wait") "_[k]"
		else if (r < 0.11)
			st = st ";[GC]"
		else if (r < 0.13)
			st = st ";[JIT compiler]"
		else if (r < 0.15)
			st = st ";[trace " int(r * 10000) "]"
		# 1 - rand() is in (0, 1]: 89% of counts are 1 to 5, the largest of a million near 60,000
		print st, int((1 - rand()) ^ -0.8)
	}
}
