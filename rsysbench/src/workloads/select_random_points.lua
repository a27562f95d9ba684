-- rbench: random points workload (MIT licensed).
-- One event is one SELECT of the rows whose k is any of --random-points
-- random values. Each thread draws its values from its own slice of
-- [0, table_size], so threads do not overlap. Uses sbtest1 only.

require("oltp_common")

sysbench.cmdline.options.random_points =
   {"Number of random points in the IN() clause in generated SELECTs", 10}

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

   query = con:prepare("        SELECT id, k, c, pad\n" ..
                       "          FROM sbtest1\n" ..
                       "          WHERE k IN (" ..
                       string.rep("?, ", o.random_points - 1) .. "?" .. ")\n        ")

   binds = {}
   for n = 1, o.random_points do
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
   for n = 1, #binds do
      binds[n]:set(sysbench.rand.default(slice_lo, slice_lo + slice_len))
   end
   query:execute()
end
