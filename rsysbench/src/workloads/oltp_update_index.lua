-- rbench: OLTP index update workload (MIT licensed).
-- One event is --index-updates updates of the indexed column k.

require("oltp_common")

function prepare_statements()
   prepare_index_updates()
end

function event()
   execute_index_updates()
end
