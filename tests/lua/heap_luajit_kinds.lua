-- LuaJIT only: objects PUC Lua has not, whose live size it measures with collectgarbage("count"),
-- full collections before and after each, as heap_shapes.lua does: a variable-length cdata array
-- (sized by its own header), 1,000 fixed-size cdata structs (sized from the C type table) and
-- string buffers (userdata owning their bytes). Writes "NAME BYTES" lines to arg[1], then waits.
local ffi = require("ffi")
local buffer = require("string.buffer")
local function kb()
  local c = collectgarbage("count")
  for _ = 1, 30 do
    collectgarbage()
    local n = collectgarbage("count")
    if n >= c then break end
    c = n
  end
  return math.floor(collectgarbage("count") * 1024)
end
ffi.cdef("typedef struct { int32_t v[250]; } block;")
local sizes = {}
local b = kb()

-- a variable-length array of 100,000 doubles held by a global
vla = ffi.new("double[?]", 100000)
local a = kb(); sizes[#sizes + 1] = "vla " .. (a - b); b = a

-- 1,000 structs of 1,000 bytes in a global list
blocks = {}
for i = 1, 1000 do blocks[i] = ffi.new("block") end
a = kb(); sizes[#sizes + 1] = "blocks " .. (a - b); b = a

-- 10 string buffers of 100 KB to 1 MB in a global list
bufs = {}
for i = 1, 10 do bufs[i] = buffer.new(); bufs[i]:put(string.rep("x", 100000 * i)) end
a = kb(); sizes[#sizes + 1] = "bufs " .. (a - b)

local out = io.open(arg[1] .. ".tmp", "w")
out:write(table.concat(sizes, "\n"), "\n")
out:close()
os.rename(arg[1] .. ".tmp", arg[1])
os.execute("exec sleep 1000")  -- exec: the sleep is the workload's own child, ended with it
