-- rsysbench: sysbench.histogram, histograms kept by rsysbench.

sysbench.histogram = {}

ffi.cdef[[
typedef struct histogram sb_histogram_t;
sb_histogram_t *sb_histogram_new(size_t size, double range_min, double range_max);
void sb_histogram_delete(sb_histogram_t *h);
void sb_histogram_update(sb_histogram_t *h, double value);
void sb_histogram_print(sb_histogram_t *h);
]]

local methods = {
   update = function(self, value) ffi.C.sb_histogram_update(self, value) end,
   print = function(self) ffi.C.sb_histogram_print(self) end,
}

ffi.metatype("sb_histogram_t", { __index = methods, __tostring = "<sb_histogram>" })

function sysbench.histogram.new(size, range_min, range_max)
   local h = ffi.C.sb_histogram_new(size, range_min, range_max)
   return ffi.gc(h, ffi.C.sb_histogram_delete)
end
