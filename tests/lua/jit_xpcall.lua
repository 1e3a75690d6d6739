-- Keeps LuaJIT's trace compiler busy under xpcall: every call loads a new chunk whose loop
-- gets compiled.
local function gen(i)
  local f = load("local s = 0 for j = 1, 200 do s = s + j * " .. i .. " end return s")
  return f()
end
local i = 0
while true do
  i = i + 1
  xpcall(gen, debug.traceback, i)
end
