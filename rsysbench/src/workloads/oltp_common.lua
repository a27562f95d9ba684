-- rbench: shared part of the bundled OLTP workloads (MIT licensed).
--
-- Every oltp_*.lua workload does `require("oltp_common")` and then supplies
-- two globals of its own: prepare_statements(), called once per worker
-- thread after it has connected, and event(). This module provides the
-- command line options, the prepare / prewarm / cleanup commands, the
-- per-thread connection and prepared statements, and the execute_* helpers
-- the workloads combine into transactions.
--
-- The global names defined here (create_table, prepare_point_selects,
-- execute_delete_inserts, the stmt / param / con / drv tables, ...) are the
-- ones third-party scripts written for sysbench 1.0.20 rely on when they
-- require this module, so they are kept as they are there.

if sysbench.cmdline.command == nil then
   error("Command is required. Supported commands: prepare, prewarm, run, " ..
            "cleanup, help")
end

-- The module on its own has no event(): refuse `run` on it.
function init()
   assert(event ~= nil,
          "this script is meant to be included by other OLTP scripts and " ..
             "should not be called directly.")
end

------------------------------------------------------------------------------
-- Options. The help texts and defaults are what users of sysbench see, so
-- they are reproduced exactly. A numeric default makes an N option, a boolean
-- one an on/off switch; an option without a default is a plain string.
------------------------------------------------------------------------------

local function opt(help, default)
   return {help, default}
end

sysbench.cmdline.options = {
   tables = opt("Number of tables", 1),
   table_size = opt("Number of rows per table", 10000),
   range_size = opt("Range size for range SELECT queries", 100),

   point_selects =
      opt("Number of point SELECT queries per transaction", 10),
   simple_ranges =
      opt("Number of simple range SELECT queries per transaction", 1),
   sum_ranges = opt("Number of SELECT SUM() queries per transaction", 1),
   order_ranges =
      opt("Number of SELECT ORDER BY queries per transaction", 1),
   distinct_ranges =
      opt("Number of SELECT DISTINCT queries per transaction", 1),
   index_updates = opt("Number of UPDATE index queries per transaction", 1),
   non_index_updates =
      opt("Number of UPDATE non-index queries per transaction", 1),
   delete_inserts =
      opt("Number of DELETE/INSERT combinations per transaction", 1),
   range_selects = opt("Enable/disable all range SELECT queries", true),

   auto_inc = opt(table.concat({
      "Use AUTO_INCREMENT column as Primary Key (for MySQL),",
      "or its alternatives in other DBMS.",
      "When disabled, use client-generated IDs"}, " "), true),
   skip_trx = opt("Don't start explicit transactions and execute all " ..
                     "queries in the AUTOCOMMIT mode", false),
   secondary = opt("Use a secondary index in place of the PRIMARY KEY", false),
   create_secondary =
      opt("Create a secondary index in addition to the PRIMARY KEY", true),
   mysql_storage_engine = opt("Storage engine, if MySQL is used", "innodb"),
   pgsql_variant = opt(table.concat({
      "Use this PostgreSQL variant when running with the PostgreSQL driver.",
      "The only currently supported variant is 'redshift'.",
      "When enabled, create_secondary is automatically disabled,",
      "and delete_inserts is set to 0"}, " ")),
}

------------------------------------------------------------------------------
-- Random strings: groups of 11 random digits joined by dashes; 10 groups
-- (119 characters) fill column c, 5 groups (59 characters) fill pad.
------------------------------------------------------------------------------

local function digit_groups(n)
   local groups = {}
   for g = 1, n do
      groups[g] = string.rep("#", 11)
   end
   return table.concat(groups, "-")
end

local C_TEMPLATE = digit_groups(10)
local PAD_TEMPLATE = digit_groups(5)

function get_c_value()
   return sysbench.rand.string(C_TEMPLATE)
end

function get_pad_value()
   return sysbench.rand.string(PAD_TEMPLATE)
end

------------------------------------------------------------------------------
-- Schema and data
------------------------------------------------------------------------------

local MYSQL_FAMILY = { mysql = true, attachsql = true, drizzle = true }

-- Column definition of id and the trailing table options, per driver.
local function id_column_and_options(drv)
   local name = drv:name()
   local o = sysbench.opt

   if MYSQL_FAMILY[name] then
      local id = "INTEGER NOT NULL"
      if o.auto_inc then
         id = id .. " AUTO_INCREMENT"
      end
      -- mysql_table_options is a global a wrapper script may set.
      return id, "/*! ENGINE = " .. o.mysql_storage_engine .. " */",
         mysql_table_options or ""
   end

   if name == "pgsql" then
      local id
      if not o.auto_inc then
         id = "INTEGER NOT NULL"
      -- As in sysbench 1.0.20, the Redshift column type is chosen by a
      -- global named pgsql_variant (which only a wrapper script can set),
      -- not by --pgsql-variant: that option is accepted and has no effect.
      elseif pgsql_variant == "redshift" then
         id = "INTEGER IDENTITY(1,1)"
      else
         id = "SERIAL"
      end
      return id, "", ""
   end

   error("Unsupported database driver:" .. name)
end

function create_table(drv, con, table_num)
   local o = sysbench.opt
   local id_def, engine_def, extra_options = id_column_and_options(drv)
   local key_def = o.secondary and "KEY xid" or "PRIMARY KEY"

   print(string.format("Creating table 'sbtest%d'...", table_num))

   local ddl = table.concat({
      string.format("CREATE TABLE sbtest%d(", table_num),
      string.format("  id %s,", id_def),
      "  k INTEGER DEFAULT '0' NOT NULL,",
      "  c CHAR(120) DEFAULT '' NOT NULL,",
      "  pad CHAR(60) DEFAULT '' NOT NULL,",
      string.format("  %s (id)", key_def),
      string.format(") %s %s", engine_def, extra_options),
   }, "\n")
   con:query(ddl)

   if o.table_size > 0 then
      print(string.format("Inserting %d records into 'sbtest%d'",
                          o.table_size, table_num))
   end

   local columns = o.auto_inc and "(k, c, pad)" or "(id, k, c, pad)"
   con:bulk_insert_init("INSERT INTO sbtest" .. table_num .. columns ..
                           " VALUES")

   for row = 1, o.table_size do
      -- The draws happen in this order: c, pad, then k.
      local c = get_c_value()
      local pad = get_pad_value()
      local k = sysbench.rand.default(1, o.table_size)
      local tuple
      if o.auto_inc then
         tuple = string.format("(%d, '%s', '%s')", k, c, pad)
      else
         tuple = string.format("(%d, %d, '%s', '%s')", row, k, c, pad)
      end
      con:bulk_insert_next(tuple)
   end

   con:bulk_insert_done()

   if o.create_secondary then
      print(string.format("Creating a secondary index on 'sbtest%d'...",
                          table_num))
      con:query(string.format("CREATE INDEX k_%d ON sbtest%d(k)",
                              table_num, table_num))
   end
end

-- Calls fn(i) for each table number that belongs to the calling thread of a
-- parallel command: tables are dealt out to threads round robin, table 1 to
-- thread 0, table 2 to thread 1, ...
local function for_my_tables(fn)
   local threads = sysbench.opt.threads
   for i = sysbench.tid % threads + 1, sysbench.opt.tables, threads do
      fn(i)
   end
end

function cmd_prepare()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   for_my_tables(function (i) create_table(drv, con, i) end)
end

-- Reads every table once through the primary key and once through k, so a
-- following run starts with warm caches. Only meaningful for MySQL.
function cmd_prewarm()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   local rows = sysbench.opt.table_size

   assert(drv:name() == "mysql", "prewarm is currently MySQL only")

   -- Keep the derived tables of the queries below in memory.
   con:query("SET tmp_table_size=2*1024*1024*1024")
   con:query("SET max_heap_table_size=2*1024*1024*1024")

   for_my_tables(function (i)
      local name = "sbtest" .. i
      print("Prewarming table " .. name)
      con:query("ANALYZE TABLE " .. name)
      con:query(string.format("SELECT AVG(id) FROM (SELECT * FROM %s " ..
                                 "FORCE KEY (PRIMARY) LIMIT %u) t",
                              name, rows))
      con:query(string.format("SELECT COUNT(*) FROM (SELECT * FROM %s " ..
                                 "WHERE k LIKE '%%0%%' LIMIT %u) t",
                              name, rows))
   end)
end

sysbench.cmdline.commands = {
   prepare = {cmd_prepare, sysbench.cmdline.PARALLEL_COMMAND},
   prewarm = {cmd_prewarm, sysbench.cmdline.PARALLEL_COMMAND},
}

function cleanup()
   local drv = sysbench.sql.driver()
   local con = drv:connect()
   for i = 1, sysbench.opt.tables do
      print(string.format("Dropping table 'sbtest%d'...", i))
      con:query("DROP TABLE IF EXISTS sbtest" .. i)
   end
end

------------------------------------------------------------------------------
-- Prepared statements. Each thread keeps, per table number t,
--   stmt[t][kind]     the statement of that kind on sbtest<t>, and
--   param[t][kind][n] the bind variable of its n-th placeholder;
-- stmt.begin and stmt.commit hold BEGIN and COMMIT when used.
------------------------------------------------------------------------------

-- kind -> SQL (with %u for the table number) and the sysbench.sql.type
-- names of its placeholders; {name, length} gives a string placeholder's
-- buffer size. (Types are looked up when statements are prepared, so the
-- module loads, e.g. for `help`, before any SQL driver is touched.)
local STATEMENTS = {
   point_selects = {
      sql = "SELECT c FROM sbtest%u WHERE id=?",
      binds = {"INT"}},
   simple_ranges = {
      sql = "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?",
      binds = {"INT", "INT"}},
   sum_ranges = {
      sql = "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?",
      binds = {"INT", "INT"}},
   order_ranges = {
      sql = "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
      binds = {"INT", "INT"}},
   distinct_ranges = {
      sql = "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? " ..
         "ORDER BY c",
      binds = {"INT", "INT"}},
   index_updates = {
      sql = "UPDATE sbtest%u SET k=k+1 WHERE id=?",
      binds = {"INT"}},
   non_index_updates = {
      sql = "UPDATE sbtest%u SET c=? WHERE id=?",
      binds = {{"CHAR", 120}, "INT"}},
   deletes = {
      sql = "DELETE FROM sbtest%u WHERE id=?",
      binds = {"INT"}},
   inserts = {
      sql = "INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)",
      binds = {"INT", "INT", {"CHAR", 120}, {"CHAR", 60}}},
}

local function create_bind(statement, spec)
   local types = sysbench.sql.type
   if type(spec) == "table" then
      return statement:bind_create(types[spec[1]], spec[2])
   end
   return statement:bind_create(types[spec])
end

-- Prepares the statement of one kind on every table, with its binds.
function prepare_for_each_table(kind)
   local def = STATEMENTS[kind]
   for t = 1, sysbench.opt.tables do
      local s = con:prepare(string.format(def.sql, t))
      stmt[t][kind] = s
      if #def.binds > 0 then
         local binds = {}
         for n, spec in ipairs(def.binds) do
            binds[n] = create_bind(s, spec)
         end
         param[t][kind] = binds
         s:bind_param(unpack(binds))
      end
   end
end

function prepare_begin()
   stmt.begin = con:prepare("BEGIN")
end

function prepare_commit()
   stmt.commit = con:prepare("COMMIT")
end

function prepare_point_selects() prepare_for_each_table("point_selects") end
function prepare_simple_ranges() prepare_for_each_table("simple_ranges") end
function prepare_sum_ranges() prepare_for_each_table("sum_ranges") end
function prepare_order_ranges() prepare_for_each_table("order_ranges") end
function prepare_distinct_ranges()
   prepare_for_each_table("distinct_ranges")
end
function prepare_index_updates() prepare_for_each_table("index_updates") end
function prepare_non_index_updates()
   prepare_for_each_table("non_index_updates")
end
function prepare_delete_inserts()
   prepare_for_each_table("deletes")
   prepare_for_each_table("inserts")
end

function thread_init()
   drv = sysbench.sql.driver()
   con = drv:connect()

   stmt = {}
   param = {}
   for t = 1, sysbench.opt.tables do
      stmt[t] = {}
      param[t] = {}
   end

   -- Supplied by the workload script.
   prepare_statements()
end

function close_statements()
   for t = 1, sysbench.opt.tables do
      for _, s in pairs(stmt[t]) do
         s:close()
      end
   end
   if stmt.begin ~= nil then
      stmt.begin:close()
   end
   if stmt.commit ~= nil then
      stmt.commit:close()
   end
end

function thread_done()
   close_statements()
   con:disconnect()
end

------------------------------------------------------------------------------
-- Execution. Each execute_* helper picks one table at random (uniformly) and
-- runs its statements there with ids from the default distribution.
------------------------------------------------------------------------------

local function random_table()
   return sysbench.rand.uniform(1, sysbench.opt.tables)
end

local function random_id()
   return sysbench.rand.default(1, sysbench.opt.table_size)
end

function begin()
   stmt.begin:execute()
end

function commit()
   stmt.commit:execute()
end

-- Runs the statement of `kind` on one random table `count` times; before
-- each run, fill(binds) sets its bind variables. The fill functions are
-- made once, here, not per event: LuaJIT does not compile a trace that
-- creates a closure, and the whole event would run in the interpreter.
local function repeat_on_random_table(kind, count, fill)
   local t = random_table()
   local s, binds = stmt[t][kind], param[t][kind]
   for _ = 1, count do
      fill(binds)
      s:execute()
   end
end

local function fill_id(b)
   b[1]:set(random_id())
end

-- A range from a random id, --range-size ids wide.
local function fill_range(b)
   local first = random_id()
   b[1]:set(first)
   b[2]:set(first + sysbench.opt.range_size - 1)
end

local function fill_c_and_id(b)
   b[1]:set_rand_str(C_TEMPLATE)
   b[2]:set(random_id())
end

function execute_point_selects()
   repeat_on_random_table("point_selects", sysbench.opt.point_selects, fill_id)
end

-- A range kind's option holds its count per transaction.
local function execute_range(kind)
   repeat_on_random_table(kind, sysbench.opt[kind], fill_range)
end

function execute_simple_ranges() execute_range("simple_ranges") end
function execute_sum_ranges() execute_range("sum_ranges") end
function execute_order_ranges() execute_range("order_ranges") end
function execute_distinct_ranges() execute_range("distinct_ranges") end

function execute_index_updates()
   repeat_on_random_table("index_updates", sysbench.opt.index_updates, fill_id)
end

function execute_non_index_updates()
   repeat_on_random_table("non_index_updates", sysbench.opt.non_index_updates,
                          fill_c_and_id)
end

-- Deletes a random row and inserts it again under the same id, with a new
-- random k, c and pad.
function execute_delete_inserts()
   local t = random_table()
   local del, ins = stmt[t].deletes, stmt[t].inserts
   local del_b, ins_b = param[t].deletes, param[t].inserts

   for _ = 1, sysbench.opt.delete_inserts do
      local id = random_id()
      local k = random_id()

      del_b[1]:set(id)
      ins_b[1]:set(id)
      ins_b[2]:set(k)
      ins_b[3]:set_rand_str(C_TEMPLATE)
      ins_b[4]:set_rand_str(PAD_TEMPLATE)

      del:execute()
      ins:execute()
   end
end

-- With --mysql-ignore-errors naming a lost-connection error, the driver
-- reconnects and the event is restarted; the old prepared statements are
-- gone with the old connection, so make them again.
local RECONNECT_ERRNOS = {
   [2006] = true, -- CR_SERVER_GONE_ERROR
   [2011] = true, -- CR_TCP_CONNECTION
   [2013] = true, -- CR_SERVER_LOST
   [2055] = true, -- CR_SERVER_LOST_EXTENDED
}

function sysbench.hooks.before_restart_event(errdesc)
   if RECONNECT_ERRNOS[tonumber(errdesc.sql_errno)] then
      close_statements()
      prepare_statements()
   end
end
