-- Benchmark target for heap snapshots: about N objects (argument, default 1,000,000) of mixed
-- kinds shaped like a server's data (a cache of records keyed by strings, lists of numbers,
-- closures holding state, a few long strings), built once; prints "ready COUNT_KB" on stderr,
-- then sleeps for ever so every snapshot of it sees the same heap.
-- Used by scripts/bench-heap.sh; runs on Lua 5.1-5.5 and LuaJIT.
local n = tonumber(arg[1] or 1000000)
local entries = math.floor(n / 4.8)   -- objects per cache entry, its share of lists and closures
local cache, lists, handlers, blobs = {}, {}, {}, {}

local function record(i)
	-- a key string, a record table, two field strings, and a tags table every other entry
	local r = { id = i, name = "user" .. i, email = "u" .. i .. "@example.org", score = i % 97 }
	if i % 2 == 0 then r.tags = { "a", "b", i % 13 } end
	return r
end

for i = 1, entries do
	cache["session:" .. i] = record(i)
end
for i = 1, math.floor(entries / 10) do
	local l = {}
	for k = 1, 16 do l[k] = i * k end
	lists[i] = l
end
for i = 1, math.floor(entries / 10) do
	local count = i
	handlers[i] = function(x) count = count + x; return count end
end
for i = 1, 200 do
	blobs[i] = string.rep(string.char(65 + i % 26), 4096 + i)
end
collectgarbage()
collectgarbage()
if jit then jit.off() end   -- the idle loop would compile traces: new objects between snapshots
io.stderr:write(string.format("ready %d\n", math.floor(collectgarbage("count"))))
while true do os.execute("sleep 1") end
