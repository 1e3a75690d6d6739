-- Workload with a known shape for the LuaJIT stack tests: three functions burning CPU
-- 50/30/20, a coroutine, an FFI call into a C library (LF_FFI_LIB), a C function that
-- calls back into Lua (table.sort), recursion 200 deep and garbage, all under tick().
local ffi = require("ffi")
ffi.cdef("double lf_ffi_spin(int n);")
local lib = ffi.load(os.getenv("LF_FFI_LIB"))

local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

function burn_a() return work(1000000) + 1 end
function burn_b() return work(600000) + 1 end
function burn_c() return work(400000) + 1 end

function ffi_caller() return lib.lf_ffi_spin(2000000) + 1 end

local co = coroutine.create(function()
  while true do
    work(200000)
    coroutine.yield()
  end
end)
function run_coro() coroutine.resume(co) end

function deep(n)
  if n == 0 then return work(200000) + 1 end
  return deep(n - 1) + 1
end

-- Random pauses and a rotating order keep the loop from beating with the sampling period.
function jitter() return work(math.random(1, 300000)) + 1 end
local turn = 0

function tick()
  turn = turn + 1
  if turn % 3 == 0 then burn_a() jitter() burn_b() jitter() burn_c() jitter()
  elseif turn % 3 == 1 then burn_b() jitter() burn_c() jitter() burn_a() jitter()
  else burn_c() jitter() burn_a() jitter() burn_b() jitter() end
  ffi_caller()
  run_coro()
  deep(200)
  garbage()
  sorter()
end

-- Short-lived tables keep the garbage collector busy: its cost must show as [GC].
function garbage()
  local t = {}
  for i = 1, 20000 do t[i] = { i, tostring(i) } end
  return #t
end

-- A C function calling back into Lua: table.sort with a Lua comparator that does work.
local function cmp(x, y)
  work(400)
  return x < y
end

function sorter()
  local t = {}
  for i = 1, 300 do t[i] = (i * 7919) % 300 end
  table.sort(t, cmp)
end

while true do tick() end
