-- For SECS seconds of CPU time (2 by default), loads a chunk, runs it for about a millisecond
-- and drops it, over and over: functions that live too briefly to be named after the fact (the
-- collector frees a dropped chunk within a few iterations).
local SECS = tonumber(arg and arg[1]) or 2
local t0, i = os.clock(), 0
while os.clock() - t0 < SECS do
  i = i + 1
  local f = load("local n = ... local s = 0 for k = 1, n do s = s + k end return s", "=gen" .. (i % 1000))
  f(150000)
end
