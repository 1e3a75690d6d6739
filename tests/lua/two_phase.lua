-- Two phases one after the other, the first twice as long as the second (A and B seconds of
-- CPU, from the environment); prints the split it measured itself on stderr.
local function phase_a() local x = 0 for i = 1, 1e5 do x = x + i % 7 end return x end
local function phase_b() local x = 0 for i = 1, 1e5 do x = x + i % 7 end return x end
local function run(f, secs)
  local t = os.clock()
  while os.clock() - t < secs do f() end
  return os.clock() - t
end
local a = run(phase_a, tonumber(os.getenv("A")) or 1.0)
local b = run(phase_b, tonumber(os.getenv("B")) or 0.5)
io.stderr:write(string.format("in-process: %d %d\n", math.floor(1000 * a / (a + b) + 0.5), math.floor(1000 * b / (a + b) + 0.5)))
