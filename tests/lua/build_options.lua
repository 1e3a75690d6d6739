-- Workload for tests/integ/luajit_build_options.sh: work() under burn_a, burn_b and burn_c in a
-- 50/30/20 split of its iterations, all under outer(), and a coroutine resumed by run_coro()
-- whose body calls work() too. The order rotates so that no call beats with the sampling.
local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

function burn_a() return work(500000) + 1 end
function burn_b() return work(300000) + 1 end
function burn_c() return work(200000) + 1 end

local turn = 0
function outer()
  turn = turn + 1
  if turn % 3 == 0 then burn_a() burn_b() burn_c()
  elseif turn % 3 == 1 then burn_b() burn_c() burn_a()
  else burn_c() burn_a() burn_b() end
end

local co = coroutine.create(function()
  while true do
    work(100000)
    coroutine.yield()
  end
end)
function run_coro() coroutine.resume(co) end

while true do
  outer()
  run_coro()
end
