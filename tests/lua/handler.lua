-- nginx request handler for the integration tests: burns CPU in known Lua functions.
local M = {}

local function checksum(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967296 end
  return h
end

local function render(n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = string.format("<li>%d</li>", i) end
  return table.concat(parts)
end

function M.handle()
  local body = render(200)
  local h = 0
  for _ = 1, 20 do h = checksum(body) end
  ngx.say(h)
end

return M
