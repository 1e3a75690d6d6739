-- A CPU-busy Lua workload for `make demo`: a request handler that parses, renders and
-- hashes, in roughly a 50/30/20 split, until it is stopped.
local function parse(s)
  local t = {}
  for k, v in s:gmatch("(%w+)=(%w+)") do t[k] = v end
  return t
end

local function render(t)
  local parts = {}
  for k, v in pairs(t) do parts[#parts + 1] = string.format("<%s>%s</%s>", k, v, k) end
  table.sort(parts)
  return table.concat(parts)
end

local function checksum(s)
  local h = 0
  for i = 1, #s do h = (h * 31 + s:byte(i)) % 4294967296 end
  return h
end

local function handle(req)
  local t
  for _ = 1, 5 do t = parse(req) end
  local body
  for _ = 1, 3 do body = render(t) end
  for _ = 1, 2 do checksum(body) end
end

local req = "user=alice&item=42&lang=lua&mode=fast&page=7&sort=asc&q=flame"
while true do handle(req) end
