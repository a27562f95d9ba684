-- rbench: OLTP insert workload (MIT licensed).
-- One event inserts one row with random k, c and pad into a random table.
-- With --auto-inc (the default) the server picks the id; without it the id
-- comes from sysbench.rand.unique(), and prepare leaves the tables empty so
-- those ids cannot collide with rows made by prepare.

require("oltp_common")

sysbench.cmdline.commands.prepare = {
   function ()
      if not sysbench.opt.auto_inc then
         sysbench.opt.table_size = 0
      end
      cmd_prepare()
   end,
   sysbench.cmdline.PARALLEL_COMMAND
}

-- No prepared statements: each insert is a plain query.
function prepare_statements()
end

function event()
   local o = sysbench.opt
   local tbl = "sbtest" .. sysbench.rand.uniform(1, o.tables)
   local k = sysbench.rand.default(1, o.table_size)
   local c = get_c_value()
   local pad = get_pad_value()

   if o.auto_inc and drv:name() == "pgsql" then
      -- SERIAL ids: leave the column out.
      con:query(string.format("INSERT INTO %s (k, c, pad) VALUES " ..
                                 "(%d, '%s', '%s')", tbl, k, c, pad))
      return
   end

   local id = 0 -- MySQL's AUTO_INCREMENT takes 0 as "next id"
   if not o.auto_inc then
      -- a unique uint32 shifted into the range of a signed INT
      id = sysbench.rand.unique() - 2147483648
   end
   con:query(string.format("INSERT INTO %s (id, k, c, pad) VALUES " ..
                              "(%d, %d, '%s', '%s')", tbl, id, k, c, pad))
end
