-- Wall-clock test program: each round waits 60 ms in wait_sixty (os.execute of sleep: the
-- thread blocks in wait4) and computes 40 ms of CPU time in burn_forty, forever.
local function burn_forty(secs)
  local t, x = os.clock() + secs, 0
  while os.clock() < t do for i = 1, 1000 do x = x + i end end
  return x
end
local function wait_sixty(secs) os.execute("sleep " .. secs) end
while true do wait_sixty(0.06) burn_forty(0.04) end
