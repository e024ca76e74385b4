#include "kernels/dnnl_scratchpad.h"

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>

#include "kernels/dnnl_support.h"

namespace ql::dnnl_support {

namespace {

std::atomic<int64_t> g_libraryScratchpadRuns{0};

// Page-aligned like oneDNN's own scratchpad: its kernels align their parts relative to the base.
constexpr size_t kScratchpadAlignment = 4096;

struct FreeDeleter {
    void operator()(void *p) const { std::free(p); }
};

void *threadScratchpad(size_t bytes) {
    thread_local std::unique_ptr<void, FreeDeleter> buffer;
    thread_local size_t capacity = 0;
    if (bytes > capacity) {
        const size_t rounded =
            (bytes + kScratchpadAlignment - 1) / kScratchpadAlignment * kScratchpadAlignment;
        buffer.reset();  // the old one first: no two at once
        void *p = std::aligned_alloc(kScratchpadAlignment, rounded);
        if (!p) throw std::bad_alloc();
        buffer.reset(p);
        capacity = rounded;
    }
    return buffer.get();
}

}  // namespace

dnnl::primitive_attr ownScratchpad(dnnl::primitive_attr attr) {
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    return attr;
}

dnnl::reorder makeReorder(const dnnl::memory &from, const dnnl::memory &to) {
    return dnnl::reorder(dnnl::reorder::primitive_desc(from, to, ownScratchpad()));
}

void execute(const dnnl::primitive &primitive, dnnl::stream &stream,
             std::unordered_map<int, dnnl::memory> args) {
    const_dnnl_primitive_desc_t pd = primitive.get_primitive_desc();
    const_dnnl_primitive_attr_t attr = nullptr;
    dnnl_scratchpad_mode_t mode = dnnl_scratchpad_mode_library;
    dnnl::error::wrap_c_api(dnnl_primitive_desc_get_attr(pd, &attr), "scratchpad attribute");
    dnnl::error::wrap_c_api(dnnl_primitive_attr_get_scratchpad_mode(attr, &mode),
                            "scratchpad mode");
    if (mode == dnnl_scratchpad_mode_library) {
        g_libraryScratchpadRuns.fetch_add(1, std::memory_order_relaxed);
    } else if (const dnnl_memory_desc_t *md =
                   dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0)) {
        const size_t bytes = dnnl_memory_desc_get_size(md);
        if (bytes > 0)
            args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(*md, cpuEngine(), threadScratchpad(bytes));
    }
    primitive.execute(stream, args);
}

void execute(const dnnl::reorder &reorder, dnnl::stream &stream, const dnnl::memory &from,
             const dnnl::memory &to) {
    execute(reorder, stream, {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
}

int64_t libraryScratchpadRuns() {
    return g_libraryScratchpadRuns.load(std::memory_order_relaxed);
}

}  // namespace ql::dnnl_support
