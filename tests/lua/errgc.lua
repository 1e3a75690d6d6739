-- Errors caught by pcall and finalizers run by the garbage collector, for the Lua stack tests
-- (Lua 5.1-5.5): stacks under them must stay whole after every error's longjmp and GC step.
local function work(n)
  local s = 0
  for i = 1, n do s = s + i % 7 end
  return s
end

local function fail_deep(n)
  work(3000)
  error({ code = n })  -- a table: no message to format
end

function thrower()
  for i = 1, 10 do pcall(fail_deep, i) end
end

local mt = { __gc = function(o) work(300) end }
function churn()
  for i = 1, 100 do setmetatable({}, mt) end
  collectgarbage()
end

while true do thrower() churn() end
