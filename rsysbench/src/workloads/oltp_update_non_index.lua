-- rbench: OLTP non-index update workload (MIT licensed).
-- One event is --non-index-updates updates of the unindexed column c.

require("oltp_common")

function prepare_statements()
   prepare_non_index_updates()
end

function event()
   execute_non_index_updates()
end
