-- Keeps making new huge functions whose calls are costly to name from bytecode: 300,000
-- instructions, 30,000 local variable entries (Lua 5.4 allows 32,767), and 200 call sites
-- each reached through a chain of 30 field lookups (T.a.a...a.spin()), which the namer
-- follows one instruction scan per link. A fresh chunk each round, so no name is cached.
local N = tonumber(arg[1]) or 300000
local chain = string.rep(".a", 30)
local t = {}
t.a = t
function t.spin()
  local x = 0
  for i = 1, 1000000 do x = x + i end
  return x
end
T = t
local round = 0
while true do
  round = round + 1
  local parts = { "local T = T\n" }
  for i = 1, 30000 do parts[#parts + 1] = "do local v = " .. (i + round) % 1000 .. " end\n" end
  for i = 1, N do parts[#parts + 1] = "G = " .. i % 1000 .. "\n" end
  for _ = 1, 200 do parts[#parts + 1] = "T" .. chain .. ".spin()\n" end
  assert(load(table.concat(parts), "=gen" .. round))()
end
