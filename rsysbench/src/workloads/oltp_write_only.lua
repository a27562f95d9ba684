-- rbench: OLTP write-only workload (MIT licensed).
-- One event is one transaction of index updates, non-index updates and
-- delete/insert pairs.

require("oltp_common")

function prepare_statements()
   if not sysbench.opt.skip_trx then
      prepare_begin()
      prepare_commit()
   end
   prepare_index_updates()
   prepare_non_index_updates()
   prepare_delete_inserts()
end

function event()
   local trx = not sysbench.opt.skip_trx
   if trx then begin() end

   execute_index_updates()
   execute_non_index_updates()
   execute_delete_inserts()

   if trx then commit() end
end
