-- HAProxy Lua service for the integration tests: burns CPU in known Lua functions.
local function checksum(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967296 end
  return h
end

local function render_page(applet)
  local body = string.rep("abcdefgh", 2000)
  local h = 0
  for _ = 1, 20 do h = checksum(body) end
  return tostring(h)
end

core.register_service("busy", "http", function(applet)
  local out = render_page(applet)
  applet:set_status(200)
  applet:add_header("content-length", #out)
  applet:start_response()
  applet:send(out)
end)
