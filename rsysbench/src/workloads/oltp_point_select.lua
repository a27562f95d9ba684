-- rbench: OLTP point select workload (MIT licensed).
-- One event is a single primary key lookup, outside any explicit
-- transaction.

require("oltp_common")

function prepare_statements()
   -- One select per event, whatever --point-selects says.
   sysbench.opt.point_selects = 1
   prepare_point_selects()
end

function event()
   execute_point_selects()
end
