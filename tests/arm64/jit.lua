-- JIT workload of the arm64 tests: work() is a loop LuaJIT compiles to a trace; burn_a() runs
-- it 60% of the time, burn_b() 40%, for ever.
local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end
function burn_a() return work(600000) + 1 end
function burn_b() return work(400000) + 1 end
while true do
  burn_a()
  burn_b()
end
