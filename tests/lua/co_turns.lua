-- Two coroutines resumed in turn from the same C call site: the same native frames at the
-- same stack addresses hold a different lua_State on every turn. a runs work_a (60% of the
-- time), b runs work_b (40%), each under its own resumer.
local function work_a(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function work_b(n) local s = 0 for i = 1, n do s = s + i % 5 end return s end
local function body(work, n)
  return function()
    while true do
      work(n)
      coroutine.yield()
    end
  end
end
local a = coroutine.create(body(work_a, 300000))
local b = coroutine.create(body(work_b, 200000))
local function resume(co) assert(coroutine.resume(co)) end
function turn_a() resume(a) end
function turn_b() resume(b) end
while true do turn_a() turn_b() end
