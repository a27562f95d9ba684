-- rbench: bulk insert workload (MIT licensed).
-- Each thread N (from 1) fills its own table sbtestN with one multi-row
-- INSERT stream of rows (1,1), (2,2), ...; an event adds one row. prepare
-- and cleanup create and drop one table per --threads.

local drv, con
local rows = 0

function prepare()
   local c = sysbench.sql.driver():connect()
   for n = 1, sysbench.opt.threads do
      print("Creating table 'sbtest" .. n .. "'...")
      c:query(string.format(
         "        CREATE TABLE IF NOT EXISTS sbtest%d (\n" ..
         "          id INTEGER NOT NULL,\n" ..
         "          k INTEGER DEFAULT '0' NOT NULL,\n" ..
         "          PRIMARY KEY (id))", n))
   end
end

function cleanup()
   local c = sysbench.sql.driver():connect()
   for n = 1, sysbench.opt.threads do
      print("Dropping table 'sbtest" .. n .. "'...")
      c:query("DROP TABLE IF EXISTS sbtest" .. n)
   end
end

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()
end

function event()
   if rows == 0 then
      con:bulk_insert_init("INSERT INTO sbtest" .. (sysbench.tid + 1) ..
                              " VALUES")
   end
   rows = rows + 1
   con:bulk_insert_next("(" .. rows .. "," .. rows .. ")")
end

function thread_done()
   con:bulk_insert_done()
   con:disconnect()
end
