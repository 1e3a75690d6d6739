-- A request handler loaded into a fresh lua_State for every request (tests/progs/vm_threads.c
-- per-request): burns CPU 50/30/20 in three named local functions.
local function burn(n, k)
  local s = 0
  for i = 1, n do s = (s + i * k) % 1000003 end
  return s
end

local function burn_fifty(n) local s = burn(n, 5) return s end
local function burn_thirty(n) local s = burn(n, 3) return s end
local function burn_twenty(n) local s = burn(n, 2) return s end

function handle(n)
  return burn_fifty(5 * n) + burn_thirty(3 * n) + burn_twenty(2 * n)
end
