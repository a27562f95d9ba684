-- rsysbench: sysbench 1.0's legacy globals (the SQL ones live in sql.lua).

thread_id = sysbench.tid
test = sysbench.cmdline.script_path

-- The low 32 bits of a 64-bit draw, as a Lua number.
function sb_rnd()
   return tonumber(sysbench.rand.uniform_uint64() % 4294967296)
end

sb_rand = sysbench.rand.default
sb_rand_str = sysbench.rand.string
sb_rand_uniform = sysbench.rand.uniform
sb_rand_gaussian = sysbench.rand.gaussian
sb_rand_special = sysbench.rand.special

function sb_rand_uniq(a, b)
   a = a or 0
   b = b or 4294967295
   while true do
      local v = sysbench.rand.unique()
      if v >= a and v <= b then
         return v
      end
   end
end

mysql_table_engine = mysql_table_engine or "innodb"
myisam_max_rows = 1000000
