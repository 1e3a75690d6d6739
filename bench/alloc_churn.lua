-- Allocation-heavy work of a fixed size for scripts/bench-alloc.sh: small tables in a loop and
-- strings built piece by piece, arg[1] rounds; prints the CPU seconds it took (os.clock:
-- user and system time, which a probe's trap into the kernel counts in).
local rounds = tonumber(arg[1] or "200")
local sink
local t0 = os.clock()
for _ = 1, rounds do
	for i = 1, 10000 do sink = { i, i + 1 } end
	local parts = {}
	for i = 1, 1000 do parts[#parts + 1] = "item" .. i end
	sink = table.concat(parts, ",")
end
print(string.format("%.4f", os.clock() - t0))
