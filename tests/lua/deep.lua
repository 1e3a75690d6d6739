-- Deep recursion under a main chunk that burns half the time itself: rec(D) keeps D + 1 frames of rec on the stack
-- while work() runs at its bottom; then the main chunk spins for as much CPU time as that took. Halves last a few ms
-- here, a random length each, so neither where a profile stops nor a sampling period in step with them favours one.
local depth = tonumber(arg and arg[1]) or 300
local base, iters = math.max(200000, 150 * depth), 0 -- deeper: more work, the descent stays a small part of it
local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

local function rec(n)
  if n == 0 then return work(iters) + 1 end
  return rec(n - 1) + 1
end

while true do
  iters = base + math.random(base)
  local t0 = os.clock()
  rec(depth)
  local stop = os.clock() + (os.clock() - t0)
  while os.clock() < stop do end
end
