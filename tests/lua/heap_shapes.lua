-- Builds four structures whose live size it measures with collectgarbage("count"), full
-- collections before and after each (repeated until the count stops falling: 5.1 halves its
-- concatenation buffer at each one), writes "NAME BYTES" lines to arg[1], then waits.
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
local sizes = {}
local b = kb()

-- a global table of 100,000 strings
strings = {}
for i = 1, 100000 do strings[i] = "s" .. i end
local a = kb(); sizes[#sizes + 1] = "strings " .. (a - b); b = a

-- a list of 1,000,000 numbers held only by a closure's upvalue
local function make()
  local list = {}
  for i = 1, 1000000 do list[i] = i * 1.5 end
  return function() return #list end
end
getter = make()
a = kb(); sizes[#sizes + 1] = "upvalue " .. (a - b); b = a

-- a 10 MB string held by a suspended coroutine's local (made by concatenation: 5.5's
-- string.rep returns an external string, whose bytes the VM does not count)
co = coroutine.create(function()
  local big = string.rep("x", 5 * 1024 * 1024) .. string.rep("y", 5 * 1024 * 1024)
  coroutine.yield()
  return big
end)
coroutine.resume(co)
a = kb(); sizes[#sizes + 1] = "coroutine " .. (a - b); b = a

-- a table held only by a registry key
local reg = debug.getregistry()
reg.only_here = {}
for i = 1, 1000 do reg.only_here["k" .. i] = { i } end
reg = nil
a = kb(); sizes[#sizes + 1] = "registry " .. (a - b)

local out = io.open(arg[1] .. ".tmp", "w")
out:write(table.concat(sizes, "\n"), "\n")
out:close()
os.rename(arg[1] .. ".tmp", arg[1])
os.execute("exec sleep 1000")  -- exec: the sleep is the workload's own child, ended with it
