-- Benchmark target: a Lua process whose heap holds MB megabytes of live strings (argument,
-- default 2048), then runs two named functions for ever. Prints "ready" on stderr once the
-- heap is full. Used by scripts/bench-unwind.sh for start-up against heap size.
local keep, mb = {}, tonumber(arg[1] or 2048)
for i = 1, mb * 1024 do keep[i] = string.rep("x", 1000) .. i end
io.stderr:write("ready\n")
local function leaf(x)
	local s = 0
	for i = 1, 1000 do s = s + (x * i) % 7 end
	return s
end
local function mid(x) return leaf(x) + 1 end
while true do mid(#keep) end
