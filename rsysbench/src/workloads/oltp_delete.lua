-- rbench: OLTP delete workload (MIT licensed).
-- One event deletes one random row of one random table.

require("oltp_common")

function prepare_statements()
   prepare_for_each_table("deletes")
end

function event()
   local t = sysbench.rand.uniform(1, sysbench.opt.tables)
   local id = sysbench.rand.default(1, sysbench.opt.table_size)
   param[t].deletes[1]:set(id)
   stmt[t].deletes:execute()
end
