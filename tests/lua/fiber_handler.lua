-- Handler of tests/progs/fiber_host.cc: handle(n), a global called from C, burns CPU 50/30/20
-- in three named local functions.
local function burn(n, k)
  local s = 0
  for i = 1, n do s = (s + i * k) % 1000003 end
  return s
end

local function burn_fifty(n) local s = burn(n, 5) return s end
local function burn_thirty(n) local s = burn(n, 3) return s end
local function burn_twenty(n) local s = burn(n, 2) return s end

function handle(n)
  local m = math.floor(n / 10)
  return burn_fifty(5 * m) + burn_thirty(3 * m) + burn_twenty(2 * m)
end
