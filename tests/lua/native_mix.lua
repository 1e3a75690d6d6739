-- Steady load for the native unwinding checks: string building and copying (memcpy),
-- sorting with C comparisons, errors caught by pcall (longjmp), formatting and pattern
-- matching, so that samples land in many libc and interpreter functions. Runs arg[1]
-- seconds of CPU time (default: until killed).
local big = ("x"):rep(262144)
local function work()
  local t = {}
  for i = 1, 200 do t[i] = string.format("%08d:%s", (i * 7919) % 1000, "v") end
  table.sort(t)
  local s = table.concat(t, ",")
  for k in s:gmatch("(%d+):") do local _ = tonumber(k) end
  local ok = pcall(error, { code = 1 })
  local c = big:rep(2)
  return #c + (ok and 1 or 0)
end
local dur = tonumber(arg and arg[1]) or 1e9
local t0 = os.clock()
while os.clock() - t0 < dur do work() end
