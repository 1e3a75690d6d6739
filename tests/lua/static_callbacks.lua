-- Workload of the static hosts' test: C functions of the Lua library that call back into
-- Lua, table.sort with a global comparator (Lua names it: 'cmp') and string.gsub with a
-- local function (Lua names it nothing: '?'), each spending its time in spin.
local function spin(n)
  local x = 0
  for i = 1, n do x = x + i % 7 end
  return x
end
function cmp(a, b)
  spin(40)
  return a < b
end
local function repl(s)
  spin(200)
  return s
end
local function sort_work()
  local t = {}
  for i = 1, 300 do t[i] = (i * 7919) % 1000 end
  table.sort(t, cmp)
end
local function gsub_work()
  local s = string.rep("ab ", 200)
  s:gsub("%a+", repl)
end
local secs = tonumber(arg and arg[1]) or tonumber(os.getenv("EMBED_SECS")) or 1e9
local t0 = os.clock()
while os.clock() - t0 < secs do
  sort_work()
  gsub_work()
end
