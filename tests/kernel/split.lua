-- Workload of the kernel tests: burns about 60% of its time in sixty() and 40% in forty()
-- (measured with os.clock), for SECONDS seconds of CPU time, or until killed without one.
local function spin(t)
  local s, x = os.clock(), 0
  while os.clock() - s < t do x = x + 1 end
  return x
end
-- not tail calls: the callers stay on the stack
local function sixty() local x = spin(0.006) return x end
local function forty() local x = spin(0.004) return x end
local secs = tonumber(arg and arg[1])
local start = os.clock()
while not secs or os.clock() - start < secs do
  sixty()
  forty()
end
