-- A function returning two values, called in a loop that never ends: run with the JIT off,
-- the interpreter spends a good part of its time returning, when the results are copied down
-- over the returning frame's function and link (tests/integ/luajit_stacks.sh, tests/arm64).
local function two(a) return a, a + 1 end
local n = 0
for i = 1, 1e12 do
  local x, y = two(i)
  n = n + x - y
end
