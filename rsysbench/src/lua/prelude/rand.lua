-- rsysbench: sysbench.rand, over the generators exported by rsysbench
-- (the same ones the built-in tests use; src/lua/ffi.rs).

sysbench.rand = {}

ffi.cdef[[
uint64_t sb_rand_uniform_uint64(void);
uint32_t sb_rand_default(uint32_t, uint32_t);
uint32_t sb_rand_uniform(uint32_t, uint32_t);
uint32_t sb_rand_gaussian(uint32_t, uint32_t);
uint32_t sb_rand_special(uint32_t, uint32_t);
uint32_t sb_rand_pareto(uint32_t, uint32_t);
uint32_t sb_rand_unique(void);
void sb_rand_str(const char *, char *);
double sb_rand_uniform_double(void);
]]

local C = ffi.C

sysbench.rand.uniform_uint64 = function() return C.sb_rand_uniform_uint64() end
sysbench.rand.default = function(a, b) return C.sb_rand_default(a, b) end
sysbench.rand.uniform = function(a, b) return C.sb_rand_uniform(a, b) end
sysbench.rand.gaussian = function(a, b) return C.sb_rand_gaussian(a, b) end
sysbench.rand.special = function(a, b) return C.sb_rand_special(a, b) end
sysbench.rand.pareto = function(a, b) return C.sb_rand_pareto(a, b) end
sysbench.rand.unique = function() return C.sb_rand_unique() end
sysbench.rand.uniform_double = function() return C.sb_rand_uniform_double() end

-- '#' becomes a random digit, '@' a random lowercase letter.
function sysbench.rand.string(fmt)
   local n = #fmt
   local buf = ffi.new("uint8_t[?]", n)
   C.sb_rand_str(fmt, buf)
   return ffi.string(buf, n)
end
