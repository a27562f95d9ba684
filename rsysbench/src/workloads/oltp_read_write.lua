-- rbench: OLTP read/write workload (MIT licensed).
-- One event is one transaction: point selects, the four kinds of range
-- selects (unless --range-selects=off), index and non-index updates, and
-- delete/insert pairs, between BEGIN and COMMIT (unless --skip-trx).

require("oltp_common")

local RANGE_KINDS = {"simple_ranges", "sum_ranges", "order_ranges",
                     "distinct_ranges"}

function prepare_statements()
   local o = sysbench.opt
   if not o.skip_trx then
      prepare_begin()
      prepare_commit()
   end
   prepare_point_selects()
   if o.range_selects then
      for _, kind in ipairs(RANGE_KINDS) do
         prepare_for_each_table(kind)
      end
   end
   prepare_index_updates()
   prepare_non_index_updates()
   prepare_delete_inserts()
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
   execute_index_updates()
   execute_non_index_updates()
   execute_delete_inserts()

   if not o.skip_trx then commit() end
end
