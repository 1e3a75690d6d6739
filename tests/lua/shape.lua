-- Workload with a known shape for the Lua stack tests (Lua 5.1-5.4): three functions
-- burning CPU 50/30/20, Lua -> Lua -> C -> Lua (table.sort with a Lua comparator), a
-- coroutine, recursion 200 deep and a tail call, all under tick().
local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

function burn_a() return work(100000) + 1 end
function burn_b() return work(60000) + 1 end
function burn_c() return work(40000) + 1 end

local function cmp(x, y)
  work(40)
  return x < y
end

function sorter()
  local t = {}
  for i = 1, 200 do t[i] = (i * 7919) % 200 end
  table.sort(t, cmp)
end

function deep(n)
  if n == 0 then return work(20000) end
  return deep(n - 1) + 1
end

local co = coroutine.create(function()
  while true do
    work(20000)
    coroutine.yield()
  end
end)

function run_coro() coroutine.resume(co) end

function tail_target() return work(20000) + 1 end
function tail_caller() return tail_target() end

-- Random pauses and a rotating order keep the loop from beating with the sampling period.
function jitter() return work(math.random(1, 30000)) end
local turn, split_only = 0, arg and arg[1] == "split"

function tick()
  turn = turn + 1
  if turn % 3 == 0 then burn_a() jitter() burn_b() jitter() burn_c() jitter()
  elseif turn % 3 == 1 then burn_b() jitter() burn_c() jitter() burn_a() jitter()
  else burn_c() jitter() burn_a() jitter() burn_b() jitter() end
  if split_only then return end
  sorter()
  deep(200)
  run_coro()
  tail_caller()
end

while true do tick() end
