-- A heap that grows at a known rate beside one that does not: `flat`, 400 strings of 1,000
-- bytes made at the start, and `growing`, which gains ten such strings at every tick of a
-- ticker process (ten a second: about 100 KB/s). Around each addition, full collections and
-- collectgarbage("count") measure what it added; arg[1] gets "flat BYTES" once, then
-- "BATCH BYTES" after each batch (what `growing` gained in all). `progress.batch_N` tells
-- a heap snapshot how many batches it saw.
-- Full collections, at least two and until the count stops falling (LuaJIT frees some of a
-- batch's garbage only at the third).
local function kb()
  collectgarbage()
  local c = collectgarbage("count")
  for _ = 1, 30 do
    collectgarbage()
    local n = collectgarbage("count")
    if n >= c then break end
    c = n
  end
  return c * 1024
end

local function entry(tag, i)
  return string.rep(tag, 990) .. string.format("%010d", i)
end

local b = kb()
flat = {}
for i = 1, 400 do flat[i] = entry("f", i) end
local flat_bytes = kb() - b

local out = io.open(arg[1] .. ".tmp", "w")
out:write(string.format("flat %d\n", flat_bytes))
out:close()
os.rename(arg[1] .. ".tmp", arg[1])
out = io.open(arg[1], "a")

-- Blocking reads on a pipe pace the batches: no CPU is spent waiting.
local ticks = io.popen("exec sh -c 'while sleep 0.1; do echo; done'")
growing = {}
progress = {}
local grown, n = 0, 0
for batch = 1, 1e9 do
  if not ticks:read("l") then break end
  b = kb()
  for _ = 1, 10 do
    n = n + 1
    growing[n] = entry("g", n)
  end
  grown = grown + kb() - b
  progress = { ["batch_" .. batch] = {} }
  out:write(string.format("%d %d\n", batch, grown))
  out:flush()
end
