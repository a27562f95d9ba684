-- rsysbench: sysbench.cmdline, the options and commands a script declares.
--   sysbench.cmdline.options = { name = {description, default[, type[, validate]]} }
--   sysbench.cmdline.commands = { name = {func[, sysbench.cmdline.PARALLEL_COMMAND]} }

ffi.cdef[[
typedef enum
{
  SB_ARG_TYPE_NULL,
  SB_ARG_TYPE_BOOL,
  SB_ARG_TYPE_INT,
  SB_ARG_TYPE_SIZE,
  SB_ARG_TYPE_DOUBLE,
  SB_ARG_TYPE_STRING,
  SB_ARG_TYPE_LIST,
  SB_ARG_TYPE_FILE,
  SB_ARG_TYPE_MAX
} sb_arg_type_t;

typedef bool sb_opt_validate_t(const char *, const char *);

typedef struct
{
  const char         *name;
  const char         *desc;
  const char         *value;
  sb_arg_type_t      type;
  sb_opt_validate_t  *validate;
} sb_arg_t;

int sb_lua_set_test_args(sb_arg_t *args, size_t len);
void sb_print_test_options(void);
]]

local cmdline = sysbench.cmdline

cmdline.ARG_NULL = ffi.C.SB_ARG_TYPE_NULL
cmdline.ARG_BOOL = ffi.C.SB_ARG_TYPE_BOOL
cmdline.ARG_INT = ffi.C.SB_ARG_TYPE_INT
cmdline.ARG_SIZE = ffi.C.SB_ARG_TYPE_SIZE
cmdline.ARG_DOUBLE = ffi.C.SB_ARG_TYPE_DOUBLE
cmdline.ARG_STRING = ffi.C.SB_ARG_TYPE_STRING
cmdline.ARG_LIST = ffi.C.SB_ARG_TYPE_LIST
cmdline.ARG_FILE = ffi.C.SB_ARG_TYPE_FILE
cmdline.ARG_MAX = ffi.C.SB_ARG_TYPE_MAX

cmdline.PARALLEL_COMMAND = true

-- The type an option gets from its default when it names none.
local type_of_default = {
   boolean = cmdline.ARG_BOOL,
   string = cmdline.ARG_STRING,
   number = cmdline.ARG_DOUBLE,
   table = cmdline.ARG_LIST,
}

local function default_text(value)
   local t = type(value)
   if t == "table" then
      return table.concat(value, ",")
   elseif t == "boolean" then
      return value and "on" or "off"
   elseif t == "number" then
      return tostring(value)
   end
   return value
end

-- A boolean option's default as sysbench takes it: on, true or 1 is on;
-- off, false or 0 is off; anything else is refused (false). None stays
-- none (help shows no default).
local function bool_text(value)
   if value == nil then
      return true, nil
   end
   local s = default_text(value)
   if s == "on" or s == "true" or s == "1" then
      return true, "on"
   elseif s == "off" or s == "false" or s == "0" then
      return true, "off"
   end
   return false
end

-- Hand the declared options to rsysbench, sorted by name (help lists them
-- so). Returns false when rsysbench refused them, or when sysbench would
-- have: a boolean default it cannot read (silently), a type it does not
-- know given a default (saying so, without a newline, as sysbench does).
function cmdline.read_cmdline_options()
   local decl = cmdline.options
   if decl == nil then
      return true
   end
   assert(type(decl) == "table", "wrong type for sysbench.cmdline.options: " .. type(decl))
   local names = {}
   for name, def in pairs(decl) do
      assert(type(name) == "string" and type(def) == "table",
             "wrong table structure in sysbench.cmdline.options")
      names[#names + 1] = name
   end
   table.sort(names)
   local args = ffi.new("sb_arg_t[?]", #names)
   local keep = {}  -- the C strings must live until rsysbench copied them
   for i, name in ipairs(names) do
      local def = decl[name]
      assert(def[1] ~= nil, "nil description for option " .. name)
      if type(def[2]) == "table" then
         assert(def[3] == nil or def[3] == cmdline.ARG_LIST,
                "wrong type for list option " .. name)
      end
      local t = def[3]
      if t == nil then
         t = def[2] ~= nil and type_of_default[type(def[2])] or cmdline.ARG_STRING
      end
      assert(t ~= nil, "cannot determine type for option " .. name)
      local a = args[i - 1]
      a.name = name
      a.desc = def[1]
      a.type = t
      local kind = tonumber(ffi.cast("int", a.type))
      local value
      if kind == cmdline.ARG_BOOL then
         local readable
         readable, value = bool_text(def[2])
         if not readable then
            return false
         end
      else
         value = default_text(def[2])
      end
      if kind <= cmdline.ARG_NULL or kind >= cmdline.ARG_MAX then
         if value ~= nil and value ~= "" then
            io.write("Unknown argument type: " .. kind)
            return false
         end
         -- Without a default sysbench never looks at the type: the option
         -- is kept, and reads nil in sysbench.opt (as a file option does).
         a.type = cmdline.ARG_FILE
      end
      keep[#keep + 1] = value
      a.value = value
      a.validate = def[4]
   end
   -- sysbench registers the first option's validator (by name order) for
   -- every option of the set, and calls it with C strings (NULL for a bare
   -- --name) before it reads each value given; so does rsysbench.
   local first = names[1] ~= nil and decl[names[1]][4] or nil
   debug.getregistry()["rsysbench.validate"] = function(name, value)
      if first == nil then
         return true
      end
      local r = first(ffi.cast("const char *", name), ffi.cast("const char *", value))
      local ok = ffi.new("bool[1]")
      local converted, err = pcall(function() ok[0] = r end)
      if not converted and type(first) == "function" then
         -- A value that is no bool: sysbench's callback names the line
         -- its function ends on.
         local info = debug.getinfo(first, "S")
         err = tostring(err):gsub("^[^:]*:%d+: ", "")
         error(info.short_src .. ":" .. info.lastlinedefined .. ": " .. err, 0)
      elseif not converted then
         error(err, 0)
      end
      return ok[0]
   end
   local ok = ffi.C.sb_lua_set_test_args(args, #names) == 0
   keep = nil
   return ok
end

function cmdline.command_defined(name)
   local cmds = cmdline.commands
   return type(cmds) == "table" and cmds[name] ~= nil and cmds[name][1] ~= nil
end

function cmdline.command_parallel(name)
   return cmdline.command_defined(name) and
      cmdline.commands[name][2] == cmdline.PARALLEL_COMMAND
end

-- Run a declared command: success unless it returned false.
function cmdline.call_command(name)
   if not cmdline.command_defined(name) then
      return false
   end
   local rc = cmdline.commands[name][1]()
   return rc == nil or (rc and true or false)
end

function cmdline.print_test_options()
   ffi.C.sb_print_test_options()
end
