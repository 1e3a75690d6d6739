-- Burns in early() for SECS seconds of CPU time (0.4 by default), then in late() for as long
-- again, and exits from inside late() with os.exit: the process ends while hot, so the last
-- samples before its exit must be named like the others.
local SECS = tonumber(arg and arg[1]) or 0.4

local function early(t_end)
  local x = 0
  while os.clock() < t_end do x = x + 1 end
  return x
end

local function late(t_end)
  local x = 0
  while os.clock() < t_end do x = x + 1 end
  os.exit(0)
end

early(os.clock() + SECS)
late(os.clock() + SECS)
