local function burn(n, k)
  local s = 0
  for i = 1, n do s = (s + i * k) % 1000003 end
  return s
end
local function burn_fifty(n) local s = burn(n, 5) return s end
local function burn_thirty(n) local s = burn(n, 3) return s end
local function burn_twenty(n) local s = burn(n, 2) return s end
-- A DNS query handler for dnsdist (tests/integ/lua_servers.sh): burns CPU 50/30/20 in the three
-- named local functions above (lines 6-8, as in ts_remap.lua) and drops the query. The global
-- answer is returned to dnsdist's LuaAction (its shared state, where DNSAction exists) or
-- LuaFFIPerThreadAction (a state per thread, which takes the action's number).
local drop = DNSAction and DNSAction.Drop
function answer(dq)
  local s = burn_fifty(5000) + burn_thirty(3000) + burn_twenty(2000)
  if drop then return drop, tostring(s) end
  return 1
end
return answer
