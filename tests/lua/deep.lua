-- Deep recursion under a main chunk that burns half the time itself: rec(D) keeps D + 1
-- frames of rec on the stack while work() runs, then the main chunk runs the same work.
local depth = tonumber(arg and arg[1]) or 300

local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

local function rec(n)
  if n == 0 then return work(2000000) + 1 end
  return rec(n - 1) + 1
end

while true do
  rec(depth)
  work(2000000)
end
