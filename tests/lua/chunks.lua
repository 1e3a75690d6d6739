-- Loads N chunks in turn (24 by default), runs each one's function for MS milliseconds of CPU
-- time (60), drops it and collects garbage, so that the next chunk may get the memory of the
-- last. A profile must give every chunk its own share, under its own name. With a third
-- argument "wait", it starts when a line arrives on stdin.
local N, MS = tonumber(arg and arg[1]) or 24, tonumber(arg and arg[2]) or 60
if arg and arg[3] == "wait" then io.read("l") end
local src = [[
local t0, secs = ...
local function spin()
  local x = 0
  while os.clock() - t0 < secs do x = x + 1 end
  return x
end
local n = spin()
return n
]]
for i = 1, N do
  local chunk = load(src, "=chunk" .. i)
  chunk(os.clock(), MS / 1000)
  chunk = nil
  collectgarbage()
  collectgarbage()
end
