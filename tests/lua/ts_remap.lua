local function burn(n, k)
  local s = 0
  for i = 1, n do s = (s + i * k) % 1000003 end
  return s
end
local function burn_fifty(n) local s = burn(n, 5) return s end
local function burn_thirty(n) local s = burn(n, 3) return s end
local function burn_twenty(n) local s = burn(n, 2) return s end
-- A remap handler for Traffic Server's Lua plugin (tests/integ/lua_servers.sh): burns CPU 50/30/20
-- in the three named local functions above (lines 6-8, as in server_burn.lua) and answers
-- itself, without an origin server.
function do_remap()
  local s = burn_fifty(50000) + burn_thirty(30000) + burn_twenty(20000)
  ts.http.set_resp(200, tostring(s) .. "\n")
  return 0
end
