-- Tens of thousands of calls deep (arg[1]) when the profiler attaches, and staying there: the VM
-- must still be found, though its CallInfo chain is longer than the attach-time check walks.
local function work(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function rec(n) if n == 0 then while true do work(100000) end end return rec(n - 1) + 1 end
rec(tonumber(arg and arg[1]) or 70000)
