-- rsysbench: the core of sysbench 1.0.20's Lua API, our own implementation.
-- Loaded first into every Lua state, before the script. The Rust side has
-- already made the `sysbench` table (tid, version, version_string, error,
-- cmdline.argv/command/script_path); the functions declared here are
-- exported by the rsysbench binary itself (src/lua/ffi.rs).

ffi = require("ffi")

ffi.cdef[[
void sb_event_start(int thread_id);
void sb_event_stop(int thread_id);
bool sb_more_events(int thread_id);
]]

local C = ffi.C

-- The event loop each worker thread runs (a script may define its own).
-- An event that raises sysbench.error.RESTART_EVENT is run again, counted
-- as one event; any other error ends the thread; an event returning a true
-- value ends the thread without being counted.
function thread_run(thread_id)
   while C.sb_more_events(thread_id) do
      C.sb_event_start(thread_id)
      local ok, ret
      while true do
         ok, ret = pcall(event, thread_id)
         if ok then
            break
         end
         if type(ret) ~= "table" or ret.errcode ~= sysbench.error.RESTART_EVENT then
            error(ret, 2)
         end
         local hook = sysbench.hooks.before_restart_event
         if hook then
            hook(ret)
         end
      end
      if ret then
         break
      end
      C.sb_event_stop(thread_id)
   end
end

sysbench.hooks = {}

-- The three stock report formats a script can plug into its hooks.
local function per_second(stat)
   local s = stat.time_interval
   return stat.events / s, (stat.reads + stat.writes + stat.other) / s,
      stat.reads / s, stat.writes / s, stat.other / s,
      stat.errors / s, stat.reconnects / s
end

function sysbench.report_csv(stat)
   local tps, qps, r, w, o, err, rec = per_second(stat)
   print(string.format("%.0f,%u,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f,%4.2f",
                       stat.time_total, stat.threads_running, tps, qps, r, w, o,
                       stat.latency_pct * 1000, err, rec))
end

-- JSON reports form one array per Lua state: '[' before the first report,
-- ']' when the state that printed it is closed.
function sysbench.report_json(stat)
   if rsysbench_json_array == nil then
      io.write("[\n")
      rsysbench_json_array = newproxy(true)
      getmetatable(rsysbench_json_array).__gc = function() io.write("\n]\n") end
   else
      io.write(",\n")
   end
   local tps, qps, r, w, o, err, rec = per_second(stat)
   local lines = {
      '  {',
      '    "time": %4.0f,',
      '    "threads": %u,',
      '    "tps": %4.2f,',
      '    "qps": {',
      '      "total": %4.2f,',
      '      "reads": %4.2f,',
      '      "writes": %4.2f,',
      '      "other": %4.2f',
      '    },',
      '    "latency": %4.2f,',
      '    "errors": %4.2f,',
      '    "reconnects": %4.2f',
      '  }',
   }
   io.write(string.format(table.concat(lines, "\n"), stat.time_total,
                          stat.threads_running, tps, qps, r, w, o,
                          stat.latency_pct * 1000, err, rec))
end

-- sysbench 1.0.20 prints "err/s" without a colon here (its default
-- intermediate line has one): kept, scripts parse it.
function sysbench.report_default(stat)
   local tps, qps, r, w, o, err, rec = per_second(stat)
   print(string.format("[ %.0fs ] thds: %u tps: %4.2f qps: %4.2f (r/w/o: %4.2f/%4.2f/%4.2f) lat (ms,%u%%): %4.2f err/s %4.2f reconn/s: %4.2f",
                       stat.time_total, stat.threads_running, tps, qps, r, w, o,
                       sysbench.opt.percentile, stat.latency_pct * 1000, err, rec))
end

-- Called by rsysbench to run a global function by name, the way sysbench
-- reports a failing one: the error text without a traceback.
function rsysbench_call(name, ...)
   local f = _G[name]
   if f == nil then
      return true
   end
   return pcall(f, ...)
end

-- Called by rsysbench to run a report hook with its stat table.
function rsysbench_hook(name, stat)
   local f = sysbench.hooks[name]
   if type(f) ~= "function" then
      return true
   end
   return pcall(f, stat)
end
