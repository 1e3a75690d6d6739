-- Workload of the embedding tests: half the time in a coroutine's work, half in a
-- table.sort comparator, under named functions.
local function work()
  local x = 0
  for i = 1, 200000 do x = x + i % 7 end
  return x
end
local function body()
  while true do
    work()
    coroutine.yield()
  end
end
local function cmp(a, b)
  local x = 0
  for i = 1, 60 do x = x + i end
  return a < b
end
local function sorter()
  local t = {}
  for i = 1, 400 do t[i] = (i * 7919) % 1000 end
  table.sort(t, cmp)
end
local co = coroutine.create(body)
local function driver()
  coroutine.resume(co)
  sorter()
end
local secs = tonumber(arg and arg[1]) or tonumber(os.getenv("EMBED_SECS")) or 1e9
local t0 = os.clock()
while os.clock() - t0 < secs do driver() end
