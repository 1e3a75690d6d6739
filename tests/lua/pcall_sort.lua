local function cmp(a, b) local x = 0 for i = 1, 30 do x = x + i end return a < b end
local function rep(s) local x = 0 for i = 1, 30 do x = x + i end return s:upper() end
local function round()
  local t = {}
  for i = 1, 300 do t[i] = (i * 7919) % 1000 end
  table.sort(t, cmp)
  local s = ("abc def "):rep(50)
  s = s:gsub("%a+", rep)
  return s
end
local function ev() round() end
-- Handlers run under pcall, as servers run them: the callbacks of table.sort and
-- string.gsub must stay under the built-in that calls them.
while true do pcall(ev) end
