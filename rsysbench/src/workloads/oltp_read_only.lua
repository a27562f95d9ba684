-- rbench: OLTP read-only workload (MIT licensed).
-- One event is one transaction of point selects and, unless
-- --range-selects=off, the four kinds of range selects.

require("oltp_common")

function prepare_statements()
   local o = sysbench.opt
   -- Here the point selects are prepared before BEGIN/COMMIT.
   prepare_point_selects()
   if not o.skip_trx then
      prepare_begin()
      prepare_commit()
   end
   if o.range_selects then
      prepare_simple_ranges()
      prepare_sum_ranges()
      prepare_order_ranges()
      prepare_distinct_ranges()
   end
end

function event()
   local o = sysbench.opt
   if not o.skip_trx then begin() end

   execute_point_selects()
   if o.range_selects then
      execute_simple_ranges()
      execute_sum_ranges()
      execute_order_ranges()
      execute_distinct_ranges()
   end

   if not o.skip_trx then commit() end
end
