-- Tarantool script for the LuaJIT stack tests: a busy loop in known Lua functions (it never
-- yields to Tarantool's event loop, so the test stops it with SIGKILL).
local function checksum(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967296 end
  return h
end

local function serve()
  local body = string.rep("abcdefgh", 2000)
  return checksum(body)
end

while true do serve() end
