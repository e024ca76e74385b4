#pragma once
// Internal to the kernels: every oneDNN primitive takes its scratchpad from the thread that runs
// it. oneDNN's default ("library") scratchpad, as Debian builds it (DNNL_ENABLE_CONCURRENT_EXEC
// off), is a thread_local of the thread that created the primitive: run on another thread, a
// primitive reads that thread's buffer, null or too small, and crashes (oneDNN's scratchpad
// guide says so). Plans are built on one thread and run on others (the GUI's job pool, session
// updates, the calibration lab's workers), so "user" mode with a per-thread buffer is the only
// safe choice.

#include <dnnl.hpp>

#include <cstdint>
#include <unordered_map>

namespace ql::dnnl_support {

// `attr` with the scratchpad in the caller's hands; every primitive descriptor must use it.
dnnl::primitive_attr ownScratchpad(dnnl::primitive_attr attr = dnnl::primitive_attr());

// A reorder between two memories, with its scratchpad in the caller's hands.
dnnl::reorder makeReorder(const dnnl::memory &from, const dnnl::memory &to);

// Runs `primitive` on `stream` with its scratchpad in a buffer owned by the calling thread (grown
// as needed, kept for the thread's life). A CPU stream on the OpenMP runtime runs each primitive
// to the end before execute returns, so consecutive runs on one thread may reuse the buffer.
void execute(const dnnl::primitive &primitive, dnnl::stream &stream,
             std::unordered_map<int, dnnl::memory> args);
void execute(const dnnl::reorder &reorder, dnnl::stream &stream, const dnnl::memory &from,
             const dnnl::memory &to);

// Runs so far of primitives made with the library's scratchpad: each one is a bug (tests want 0).
int64_t libraryScratchpadRuns();

}  // namespace ql::dnnl_support
