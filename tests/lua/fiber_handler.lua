-- Handler of tests/progs/fiber_host.cc: handle(n), a global called from C, burns in work(n).
local function work(n)
  local s = 0
  for i = 1, n do s = (s + i * 3) % 1000003 end
  return s
end
function handle(n)
  local s = work(n)
  return s
end
