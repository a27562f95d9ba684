-- rbench: random ranges workload (MIT licensed).
-- One event is one SELECT count(k) over --number-of-ranges ranges of k, each
-- --delta wide, starting at random values from the thread's own slice of
-- [0, table_size]. Uses sbtest1 only.

require("oltp_common")

sysbench.cmdline.options.number_of_ranges =
   {"Number of random BETWEEN ranges per SELECT", 10}
sysbench.cmdline.options.delta =
   {"Size of BETWEEN ranges", 5}

local oltp_cleanup = cleanup

function cleanup()
   assert(sysbench.opt.tables == 1,
          "this benchmark does not support --tables > 1")
   oltp_cleanup()
end

local query, binds, slice_lo, slice_len

function thread_init()
   local o = sysbench.opt
   drv = sysbench.sql.driver()
   con = drv:connect()

   query = con:prepare("        SELECT count(k)\n" ..
                       "          FROM sbtest1\n" ..
                       "          WHERE " ..
                       string.rep("k BETWEEN ? AND ? OR ",
                                  o.number_of_ranges - 1) ..
                       "k BETWEEN ? AND ?")

   binds = {}
   for n = 1, 2 * o.number_of_ranges do
      binds[n] = query:bind_create(sysbench.sql.type.INT)
   end
   query:bind_param(unpack(binds))

   slice_len = o.table_size / o.threads
   slice_lo = slice_len * (sysbench.tid % o.threads)
end

function thread_done()
   query:close()
   con:disconnect()
end

function event()
   local delta = sysbench.opt.delta
   for n = 1, #binds, 2 do
      local lo = sysbench.rand.default(slice_lo, slice_lo + slice_len)
      binds[n]:set(lo)
      binds[n + 1]:set(lo + delta)
   end
   query:execute()
end
