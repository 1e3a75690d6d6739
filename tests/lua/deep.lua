-- Deep recursion under a main chunk that burns half the time itself: rec(D) keeps D + 1
-- frames of rec on the stack while work() runs at its bottom; then the main chunk spins
-- for as much CPU time as that took, so the two halves are equal whatever runs faster.
local depth = tonumber(arg and arg[1]) or 300

local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

local function rec(n)
  if n == 0 then return work(1000000) + 1 end
  return rec(n - 1) + 1
end

while true do
  local t0 = os.clock()
  rec(depth)
  local stop = os.clock() + (os.clock() - t0)
  while os.clock() < stop do end
end
