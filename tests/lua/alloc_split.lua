-- Alloc mode's workload: three functions allocate the same small tables 5:3:2 per round
-- (loops long enough under a JIT to be traces of their own); five() also burns arithmetic,
-- so its CPU share is far above its share of the bytes; burn() allocates nothing. Runs for
-- arg[1] seconds of CPU (default: until killed), then prints the rounds it made; loaded by a
-- host without a command line (dofile in an nginx handler), it returns the four functions.
local sink
local function five()
	local x = 0
	for i = 1, 3000 do x = x + i % 7 end
	for i = 1, 50 do sink = { i, i } end
	return x
end
local function three() for i = 1, 30 do sink = { i, i } end end
local function two() for i = 1, 20 do sink = { i, i } end end
local function burn()
	local x = 0
	for i = 1, 2000 do x = x + i % 3 end
	return x
end
if not arg then
	return { five = five, three = three, two = two, burn = burn }
end
local limit, rounds, t0 = tonumber(arg[1] or "1e9"), 0, os.clock()
while os.clock() - t0 < limit do
	five() three() two() burn()
	rounds = rounds + 1
end
print(rounds)
