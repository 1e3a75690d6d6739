-- sysbench script (tests/integ/lua_vm_threads.sh): every thread has its own LuaJIT VM; each
-- event burns in round(), compiled to a trace
function thread_init() end
local function round(n)
  local s = 0
  for i = 1, n do s = (s + i * 7) % 1000003 end
  return s
end
function event()
  round(200000)
end
