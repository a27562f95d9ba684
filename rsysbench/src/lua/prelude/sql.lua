-- rsysbench: sysbench 1.0.20's SQL API for scripts, `sysbench.sql`, and
-- the 1.0 legacy SQL globals (db_connect(), db_query(), ...), over the
-- db_* functions the program exports (rsysbench/src/db/ffi.rs).
--
-- Names, arguments, return values, error messages and the level errors are
-- raised at (so the position a message carries) are sysbench 1.0.20's:
-- scripts and their expected outputs depend on them. Where a function
-- ends in `return f(...)` that is a tail call on purpose: the error
-- positions are counted from the script's frame.

local ffi = require("ffi")
local C = ffi.C

sysbench.sql = {}

-- The counter types (sysbench declares them with the SQL API).
pcall(ffi.cdef, [[
typedef enum
{
  SB_CNT_OTHER,
  SB_CNT_READ,
  SB_CNT_WRITE,
  SB_CNT_TRX,
  SB_CNT_ERROR,
  SB_CNT_RECONNECT,
  SB_CNT_MAX
} sb_counter_type;
]])

-- Also declared by the rand module; a second declaration is refused.
pcall(ffi.cdef, "void sb_rand_str(const char *, char *);")

-- The ABI: public fields as sysbench's headers have them, the rest opaque.
ffi.cdef[[
typedef enum
{
  DB_ERROR_NONE,
  DB_ERROR_IGNORABLE,
  DB_ERROR_FATAL
} sql_error_t;

typedef struct
{
  const char      *sname;
  const char      *lname;
  const char      opaque[?];
} sql_driver;

typedef struct {
  uint32_t        len;
  const char      *ptr;
} sql_value;

typedef struct
{
  void            *ptr;
  sql_value       *values;
} sql_row;

typedef struct
{
  sql_error_t     error;
  int             sql_errno;
  const char      *sql_state;
  const char      *sql_errmsg;
  sql_driver      *driver;
  const char      opaque[?];
} sql_connection;

typedef struct
{
  sql_connection  *connection;
  const char      opaque[?];
} sql_statement;

typedef struct
{
  sb_counter_type   counter;
  uint32_t       nrows;
  uint32_t       nfields;
  sql_statement  *statement;
  void           *ptr;
  sql_row        row;
} sql_result;

typedef enum
{
  SQL_TYPE_NONE,
  SQL_TYPE_TINYINT,
  SQL_TYPE_SMALLINT,
  SQL_TYPE_INT,
  SQL_TYPE_BIGINT,
  SQL_TYPE_FLOAT,
  SQL_TYPE_DOUBLE,
  SQL_TYPE_TIME,
  SQL_TYPE_DATE,
  SQL_TYPE_DATETIME,
  SQL_TYPE_TIMESTAMP,
  SQL_TYPE_CHAR,
  SQL_TYPE_VARCHAR
} sql_bind_type_t;

typedef struct
{
  sql_bind_type_t   type;
  void             *buffer;
  unsigned long    *data_len;
  unsigned long    max_len;
  char             *is_null;
} sql_bind;

sql_driver *db_create(const char *);
int db_destroy(sql_driver *drv);

sql_connection *db_connection_create(sql_driver * drv);
int db_connection_close(sql_connection *con);
int db_connection_reconnect(sql_connection *con);
void db_connection_free(sql_connection *con);

int db_bulk_insert_init(sql_connection *, const char *, size_t);
int db_bulk_insert_next(sql_connection *, const char *, size_t);
int db_bulk_insert_done(sql_connection *);

sql_result *db_query(sql_connection *con, const char *query, size_t len);

sql_row *db_fetch_row(sql_result *rs);

sql_statement *db_prepare(sql_connection *con, const char *query, size_t len);
int db_bind_param(sql_statement *stmt, sql_bind *params, size_t len);
int db_bind_result(sql_statement *stmt, sql_bind *results, size_t len);
sql_result *db_execute(sql_statement *stmt);
int db_close(sql_statement *stmt);

int db_free_results(sql_result *);
]]

local T = {
   NONE = C.SQL_TYPE_NONE,
   TINYINT = C.SQL_TYPE_TINYINT,
   SMALLINT = C.SQL_TYPE_SMALLINT,
   INT = C.SQL_TYPE_INT,
   BIGINT = C.SQL_TYPE_BIGINT,
   FLOAT = C.SQL_TYPE_FLOAT,
   DOUBLE = C.SQL_TYPE_DOUBLE,
   TIME = C.SQL_TYPE_TIME,
   DATE = C.SQL_TYPE_DATE,
   DATETIME = C.SQL_TYPE_DATETIME,
   TIMESTAMP = C.SQL_TYPE_TIMESTAMP,
   CHAR = C.SQL_TYPE_CHAR,
   VARCHAR = C.SQL_TYPE_VARCHAR,
}
sysbench.sql.type = T

local E = {
   NONE = C.DB_ERROR_NONE,
   IGNORABLE = C.DB_ERROR_IGNORABLE,
   FATAL = C.DB_ERROR_FATAL,
}
sysbench.sql.error = E

-- Which kind of buffer a bind type gets.
local INTEGER = { [T.TINYINT] = true, [T.SMALLINT] = true, [T.INT] = true,
                  [T.BIGINT] = true }
local REAL = { [T.FLOAT] = true, [T.DOUBLE] = true }
local STRING = { [T.CHAR] = true, [T.VARCHAR] = true }

local function unsupported(btype)
   return "Unsupported argument type: " .. btype
end

-- ---------------------------------------------------------------- driver

-- The driver `name`, or the --db-driver one without an argument.
function sysbench.sql.driver(name)
   local drv = C.db_create(name)
   if drv == nil then
      error("failed to initialize the DB driver", 2)
   end
   return ffi.gc(drv, C.db_destroy)
end

local driver = {}

function driver.connect(self)
   local con = C.db_connection_create(self)
   if con == nil then
      error("connection creation failed", 2)
   end
   return ffi.gc(con, C.db_connection_free)
end

function driver.name(self)
   return ffi.string(self.sname)
end

ffi.metatype("sql_driver", {
   __index = driver,
   __tostring = function() return "<sql_driver>" end,
   __gc = C.db_destroy,
})

-- ------------------------------------------------------------ connection

local connection = {}

function connection.disconnect(self)
   return assert(C.db_connection_close(self) == 0)
end

function connection.reconnect(self)
   return assert(C.db_connection_reconnect(self) == 0)
end

-- Turn a failed call into sysbench's errors: an API error, a restart of
-- the event for an ignorable SQL error (or one the sql_error_ignorable
-- hook lets go), else the SQL error's message. Returns `rs` otherwise.
function connection.check_error(self, rs, query)
   if rs ~= nil or self.error == E.NONE then
      return rs
   end
   if self.sql_state == nil or self.sql_errmsg == nil then
      error("SQL API error", 3)
   end
   local state = ffi.string(self.sql_state)
   local msg = ffi.string(self.sql_errmsg)
   -- sysbench keeps the last descriptor in this global.
   errdesc = {
      connection = self,
      query = query,
      sql_errno = self.sql_errno,
      sql_state = state,
      sql_errmsg = msg,
   }
   local ignorable = self.error == E.IGNORABLE
   if not ignorable and self.error == E.FATAL then
      local hook = sysbench.hooks.sql_error_ignorable
      ignorable = type(hook) == "function" and hook(errdesc)
   end
   if ignorable then
      errdesc.errcode = sysbench.error.RESTART_EVENT
      error(errdesc, 3)
   end
   error(string.format("SQL error, errno = %d, state = '%s': %s",
                       self.sql_errno, state, msg), 2)
end

function connection.query(self, query)
   local rs = C.db_query(self, query, #query)
   return self:check_error(rs, query)
end

function connection.bulk_insert_init(self, query)
   return assert(C.db_bulk_insert_init(self, query, #query) == 0,
                 "db_bulk_insert_init() failed")
end

function connection.bulk_insert_next(self, row)
   return assert(C.db_bulk_insert_next(self, row, #row) == 0,
                 "db_bulk_insert_next() failed")
end

function connection.bulk_insert_done(self)
   return assert(C.db_bulk_insert_done(self) == 0,
                 "db_bulk_insert_done() failed")
end

-- A statement keeps its connection alive (the connection is collected,
-- and freed, only once no statement of it is left).
local owner = setmetatable({}, { __mode = "k" })

function connection.prepare(self, query)
   local stmt = C.db_prepare(self, query, #query)
   if stmt == nil then
      self:check_error(nil, query)
   else
      owner[stmt] = self
   end
   return stmt
end

-- The first row of a query's result as separate values (nil without one).
function connection.query_row(self, query)
   local rs = self:query(query)
   if rs == nil or rs.nrows == 0 then
      return nil
   end
   return unpack(rs:fetch_row(), 1, rs.nfields)
end

ffi.metatype("sql_connection", {
   __index = connection,
   __tostring = function() return "<sql_connection>" end,
   __gc = C.db_connection_free,
})

-- ------------------------------------------------------------ parameters

-- A parameter of a prepared statement: a buffer of its type with its
-- length and NULL flag, handed to bind_param().
local param = {}
param.__index = param
param.__tostring = function() return "<sql_param>" end

function param.set(self, value)
   if value == nil then
      self.is_null[0] = 1
      return
   end
   self.is_null[0] = 0
   local btype = self.type
   if INTEGER[btype] or REAL[btype] then
      self.buffer[0] = value
   elseif STRING[btype] then
      local n = math.min(#value, self.max_len)
      ffi.copy(self.buffer, value, n)
      self.data_len[0] = n
   else
      error(unsupported(btype), 2)
   end
end

-- Fill a string parameter from a sysbench.rand.string() template.
function param.set_rand_str(self, fmt)
   self.is_null[0] = 0
   local btype = self.type
   if not STRING[btype] then
      error(unsupported(btype), 2)
   end
   local n = math.min(#fmt, self.max_len)
   if #fmt <= self.max_len then
      C.sb_rand_str(fmt, self.buffer)
   else
      -- Longer than the buffer: draw into a scratch one, keep what fits.
      local scratch = self.scratch
      if scratch == nil or self.scratch_len < #fmt then
         scratch = ffi.new("char[?]", #fmt + 1)
         self.scratch, self.scratch_len = scratch, #fmt
      end
      C.sb_rand_str(fmt, scratch)
      ffi.copy(self.buffer, scratch, n)
   end
   self.data_len[0] = n
end

-- ------------------------------------------------------------- statement

local statement = {}

-- A parameter of type `btype`: every integer type binds as BIGINT, both
-- floating types as DOUBLE, both string types as VARCHAR of `max_len`.
function statement.bind_create(self, btype, max_len)
   local p = setmetatable({}, param)
   if INTEGER[btype] then
      p.type, p.buffer, p.max_len = T.BIGINT, ffi.new("int64_t[1]"), 8
   elseif REAL[btype] then
      p.type, p.buffer, p.max_len = T.DOUBLE, ffi.new("double[1]"), 8
   elseif STRING[btype] then
      p.type, p.buffer, p.max_len = T.VARCHAR, ffi.new("char[?]", max_len), max_len
   else
      error(unsupported(btype), 2)
   end
   p.data_len = ffi.new("unsigned long[1]")
   p.is_null = ffi.new("char[1]")
   return p
end

function statement.bind_param(self, ...)
   local n = select("#", ...)
   if n < 1 then
      return nil
   end
   local binds = ffi.new("sql_bind[?]", n)
   for i, p in ipairs({...}) do
      local b = binds[i - 1]
      b.type = p.type
      b.buffer = p.buffer
      b.data_len = p.data_len
      b.max_len = p.max_len
      b.is_null = p.is_null
   end
   return C.db_bind_param(self, binds, n)
end

function statement.execute(self)
   local rs = C.db_execute(self)
   return self.connection:check_error(rs, "<prepared statement>")
end

function statement.close(self)
   return C.db_close(self)
end

ffi.metatype("sql_statement", {
   __index = statement,
   __tostring = function() return "<sql_statement>" end,
   __gc = C.db_close,
})

ffi.metatype("sql_bind", {
   __tostring = function() return "<sql_bind>" end,
})

-- ------------------------------------------------------------ result set

local result = {}

-- The next row as an array of strings (nil for SQL NULL), or nil at the
-- end; rs.nfields is its length.
function result.fetch_row(self)
   local row = C.db_fetch_row(self)
   if row == nil then
      return nil
   end
   local values = {}
   for i = 0, self.nfields - 1 do
      local v = row.values[i]
      if v.ptr ~= nil then
         values[i + 1] = ffi.string(v.ptr, tonumber(v.len))
      end
   end
   return values
end

function result.free(self)
   return assert(C.db_free_results(self) == 0, "db_free_results() failed")
end

ffi.metatype("sql_result", {
   __index = result,
   __tostring = function() return "<sql_result>" end,
   __gc = C.db_free_results,
})

-- -------------------------------------------------------------------------
-- sysbench 1.0's legacy API: sysbench.db.* on one connection per thread
-- (this Lua state), and the db_* globals over it.
-- -------------------------------------------------------------------------

local db = {}
sysbench.db = db

db.DB_ERROR_NONE = E.NONE
db.DB_ERROR_RESTART_TRANSACTION = E.IGNORABLE
db.DB_ERROR_FAILED = E.FATAL

local legacy = { driver = nil, con = nil }

local function restart_event()
   error({ errcode = sysbench.error.RESTART_EVENT })
end

local function need_connection()
   if legacy.con == nil then
      error("Uninitialized database connection", 0)
   end
end

-- Statements and result sets of this API are userdata, as sysbench's
-- are: proxies whose fields live in a weak table.
local fields = setmetatable({}, { __mode = "k" })

local function kind()
   local base = newproxy(true)
   local mt = getmetatable(base)
   mt.__index = function(self, k) return fields[self][k] end
   mt.__newindex = function(self, k, v) fields[self][k] = v end
   return { base = base, mt = mt }
end

local stmt_mt = kind()   -- sysbench.stmt
local rs_mt = kind()     -- sysbench.rs

local function new_object(k, t)
   local u = newproxy(k.base)
   fields[u] = t
   return u
end

-- A string argument as the C API takes it (numbers are converted).
local function checkstr(v, fname)
   local t = type(v)
   if t == "number" then
      return tostring(v)
   elseif t ~= "string" then
      error(string.format("bad argument #1 to '%s' (string expected, got %s)",
                          fname, v == nil and "no value" or t), 0)
   end
   return v
end

local function check_object(v, mt, fname, what)
   if type(v) ~= "userdata" or getmetatable(v) ~= mt.mt then
      error(string.format("bad argument #1 to '%s' (%s expected, got %s)",
                          fname, what, type(v)), 0)
   end
end

function db.connect()
   local drv = C.db_create(nil)
   if drv == nil then
      error("DB initialization failed", 0)
   end
   legacy.driver = ffi.gc(drv, C.db_destroy)
   db_driver = ffi.string(drv.sname)
   if legacy.con ~= nil then
      return
   end
   local con = C.db_connection_create(drv)
   if con == nil then
      error("Failed to connect to the database", 0)
   end
   legacy.con = ffi.gc(con, C.db_connection_free)
end

function db.disconnect()
   local con = legacy.con
   if con ~= nil then
      legacy.con = nil
      C.db_connection_close(con)
      ffi.gc(con, nil)
      C.db_connection_free(con)
   end
end

function db.query(query)
   if legacy.con == nil then
      db.connect()
   end
   local con = legacy.con
   query = checkstr(query, "query")
   local rs = C.db_query(con, query, #query)
   if rs == nil then
      if con.error == E.IGNORABLE then
         restart_event()
      elseif con.error == E.FATAL then
         error("db_query() failed", 0)
      end
      return
   end
   C.db_free_results(rs)
end

function db.bulk_insert_init(query)
   if legacy.con == nil then
      db.connect()
   end
   query = checkstr(query, "bulk_insert_init")
   if C.db_bulk_insert_init(legacy.con, query, #query) ~= 0 then
      error("db_bulk_insert_init() failed", 0)
   end
end

function db.bulk_insert_next(row)
   need_connection()
   row = checkstr(row, "bulk_insert_next")
   if C.db_bulk_insert_next(legacy.con, row, #row) ~= 0 then
      error("db_bulk_insert_next() failed", 0)
   end
end

function db.bulk_insert_done()
   need_connection()
   C.db_bulk_insert_done(legacy.con)
end

function db.prepare(query)
   if legacy.con == nil then
      db.connect()
   end
   query = checkstr(query, "prepare")
   local ptr = C.db_prepare(legacy.con, query, #query)
   if ptr == nil then
      error("db_prepare() failed", 0)
   end
   return new_object(stmt_mt, { ptr = ptr, params = {}, results = {} })
end

-- The variables of a legacy bind: the key of each value in `tbl` (read
-- again at every execution), typed by the value's type now: numbers bind
-- as `int_type`, strings as CHAR bound at execution time.
local function legacy_vars(tbl, int_type, int_ctype)
   if type(tbl) ~= "table" then
      error("table was expected", 0)
   end
   local vars, ready = {}, true
   for k, v in pairs(tbl) do
      if type(k) ~= "number" then
         error(string.format("bad argument #-2 (number expected, got %s)",
                             type(k)), 0)
      end
      local var = { id = k, is_null = ffi.new("char[1]") }
      if type(v) == "number" then
         var.type, var.buf = int_type, ffi.new(int_ctype)
      elseif type(v) == "string" then
         var.type, var.size = T.CHAR, 0
         var.len = ffi.new("unsigned long[1]")
         ready = false
      else
         error("Unsupported variable type: " .. type(v), 0)
      end
      vars[#vars + 1] = var
   end
   if #vars == 0 then
      error("table is empty", 0)
   end
   local binds = ffi.new("sql_bind[?]", #vars)
   for i, var in ipairs(vars) do
      local b = binds[i - 1]
      b.type = var.type
      b.buffer = var.buf
      b.is_null = var.is_null
   end
   return vars, binds, ready
end

function db.bind_param(stmt, tbl)
   need_connection()
   check_object(stmt, stmt_mt, "bind_param", "sysbench.stmt")
   local vars, binds, ready = legacy_vars(tbl, T.INT, "int[1]")
   if ready and C.db_bind_param(stmt.ptr, binds, #vars) ~= 0 then
      error("db_bind_param() failed", 0)
   end
   stmt.params, stmt.param_tbl = vars, tbl
end

function db.bind_result(stmt, tbl)
   need_connection()
   check_object(stmt, stmt_mt, "bind_result", "sysbench.stmt")
   local vars, binds, ready = legacy_vars(tbl, T.BIGINT, "int64_t[1]")
   if ready and C.db_bind_result(stmt.ptr, binds, #vars) ~= 0 then
      error("db_bind_result() failed", 0)
   end
   stmt.results, stmt.result_tbl = vars, tbl
end

function db.execute(stmt)
   need_connection()
   check_object(stmt, stmt_mt, "execute", "sysbench.stmt")
   local vars, tbl = stmt.params, stmt.param_tbl
   local rebind = false
   for _, var in ipairs(vars) do
      local v = tbl[var.id]
      if v == nil then
         var.is_null[0] = 1
      else
         var.is_null[0] = 0
         if var.type == T.INT then
            local n = tonumber(v)
            if n == nil then
               error("bad argument #-1 to 'execute' (number expected, got "
                        .. type(v) .. ")", 0)
            end
            var.buf[0] = n
         else
            local s = tostring(v)
            if #s > var.size then
               var.buf = ffi.new("char[?]", #s)
               rebind = true
            end
            ffi.copy(var.buf, s, #s)
            var.size = #s
            var.len[0] = #s
         end
      end
   end
   if rebind then
      local binds = ffi.new("sql_bind[?]", #vars)
      for i, var in ipairs(vars) do
         local b = binds[i - 1]
         b.type = var.type
         b.is_null = var.is_null
         if var.is_null[0] == 0 then
            b.buffer = var.buf
            if var.type == T.CHAR then
               b.data_len = var.len
               b.is_null = nil
            end
         end
      end
      if C.db_bind_param(stmt.ptr, binds, #vars) ~= 0 then
         error("db_bind_param() failed", 0)
      end
   end
   local ptr = C.db_execute(stmt.ptr)
   if ptr == nil and legacy.con.error == E.IGNORABLE then
      restart_event()
   end
   return new_object(rs_mt, { ptr = ptr })
end

function db.close(stmt)
   need_connection()
   check_object(stmt, stmt_mt, "close", "sysbench.stmt")
   stmt.params, stmt.param_tbl = {}, nil
   C.db_close(stmt.ptr)
end

function db.store_results(rs)
   need_connection()
   check_object(rs, rs_mt, "store_results", "sysbench.rs")
end

function db.free_results(rs)
   need_connection()
   check_object(rs, rs_mt, "free_results", "sysbench.rs")
   if rs.ptr ~= nil then
      C.db_free_results(rs.ptr)
      rs.ptr = nil
   end
end

db_connect = db.connect
db_disconnect = db.disconnect
db_query = db.query
db_bulk_insert_init = db.bulk_insert_init
db_bulk_insert_next = db.bulk_insert_next
db_bulk_insert_done = db.bulk_insert_done
db_prepare = db.prepare
db_bind_param = db.bind_param
db_bind_result = db.bind_result
db_execute = db.execute
db_store_results = db.store_results
db_free_results = db.free_results
db_close = db.close

DB_ERROR_NONE = db.DB_ERROR_NONE
DB_ERROR_RESTART_TRANSACTION = db.DB_ERROR_RESTART_TRANSACTION
DB_ERROR_FAILED = db.DB_ERROR_FAILED
