-- The workload cs_etm_qemu_lua.sh traces: recursion, closures, a table
-- sort, string matching and an error caught by pcall, run by the vendored
-- Lua interpreter. Prints one line the test checks; the argument is the
-- Fibonacci number to compute (another argument, another execution).
local n = tonumber(arg[1] or "18")
local function fib(k) if k < 2 then return k end return fib(k - 1) + fib(k - 2) end
local t = {}
for i = 1, 300 do t[i] = (i * 7919) % 1009 end
table.sort(t)
local sum = 0
for i, v in ipairs(t) do sum = sum + i * v end
local words = {}
for w in ("the quick brown fox jumps over the lazy dog"):gmatch("%a+") do
  words[#words + 1] = w:upper()
end
local ok, err = pcall(function() error("boom") end)
print(fib(n), sum, table.concat(words, ","), ok, err:match("boom"),
      string.format("%.3f", math.sqrt(2)))
