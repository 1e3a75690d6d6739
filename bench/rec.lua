-- The benchmarks' Lua workload: r(D) keeps D frames of r on the stack (plus the main chunk)
-- while the innermost one computes in a loop that never returns; with the JIT on, that loop
-- is a trace. usage: lua5.4 rec.lua D
local function r(n)
  if n <= 1 then
    local x = 0
    while true do x = (x * 7 + 1) % 1000003 end
  end
  return r(n - 1) + 1
end
r(tonumber(arg[1]))
