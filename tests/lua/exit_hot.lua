-- Burns in early() for EARLY seconds of CPU time (0.4 by default), then in late() for LATE
-- seconds (0.05), a function that never ran before, and exits from inside it with os.exit:
-- the process ends while hot, and every sample of late() is taken in its last moments.
local EARLY = tonumber(arg and arg[1]) or 0.4
local LATE = tonumber(arg and arg[2]) or 0.05

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

early(os.clock() + EARLY)
late(os.clock() + LATE)
