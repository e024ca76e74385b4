#pragma once
// Internal to the kernels: the one oneDNN engine and a per-thread stream, and small helpers.
// Never include this from a public header.

#include <dnnl.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql::dnnl_support {

dnnl::engine &cpuEngine();
dnnl::stream &threadStream();  // one stream per calling thread

inline dnnl::memory::dims toDims(const Shape &shape) { return dnnl::memory::dims(shape.begin(), shape.end()); }

// Format tag of a tensor's storage: plain row-major for its rank, or NHWC for channels-last.
dnnl::memory::format_tag storageTag(const Tensor &tensor);
dnnl::memory::format_tag plainTag(int rank);

// Memory descriptor of the tensor's storage (f32 only unless `type` is given).
dnnl::memory::desc describe(const Tensor &tensor, dnnl::memory::data_type type = dnnl::memory::data_type::f32);
// A oneDNN memory object over the tensor's storage (no copy).
dnnl::memory wrap(const Tensor &tensor, const dnnl::memory::desc &desc);

// Turns a oneDNN exception into a Status naming what was attempted: Unsupported when oneDNN
// refused to create a primitive, Internal when running one failed.
Status dnnlFailure(const std::string &what, const dnnl::error &e, bool creating);

// Runs body(stream) on the calling thread's stream and waits for it; oneDNN errors become
// dnnlFailure(what, e, false).
template <class Body>
Status runOnStream(const std::string &what, Body &&body) {
    try {
        dnnl::stream &stream = threadStream();
        body(stream);
        stream.wait();
    } catch (const dnnl::error &e) {
        return dnnlFailure(what, e, false);
    }
    return Status::ok();
}

// Weights as a primitive wants them: the caller's buffer as it is, or a reordered copy when the
// primitive picked another format. Constant weights are reordered once, others on every run.
// A constant passed with its tensor is packed once per process: every plan over the same model
// (an analysis builds the cumulative one, the isolated layers' and the kernel check's; a session
// one per toggle) shares that copy, since packing writes fresh memory, dear on a VM.
class PackedWeights {
public:
    // `user` describes the caller's buffer, `wanted` is the primitive's weights_desc().
    // Throws dnnl::error like the primitive constructors.
    void init(const dnnl::memory::desc &user, const dnnl::memory::desc &wanted);
    // The memory to pass as DNNL_ARG_WEIGHTS for weights at `data`; may throw dnnl::error.
    // `source`, when given, is the constant tensor whose storage `data` is: its packed copy is
    // shared with every other kernel packing that storage the same way.
    const dnnl::memory &prepare(dnnl::stream &stream, const void *data, bool constant,
                                const Tensor *source = nullptr);
    // For a kernel that can also run on the weights as they are (a float MatMul, an exact int8
    // one): false on the first run of a constant that no plan has packed yet, which should then
    // use the plain weights (plain()); true from the second run on, or where packing is not
    // needed or done.
    // Packing pays only when the weights are used again: oneDNN's float matmul takes about 20 %
    // longer on plain weights, while the packed copy is written to fresh memory (ViT-B: 330 MB,
    // 0.44 s, on a VM where a fresh page costs a fault; int8: ~7 % per run against 86 MB and
    // 0.25 s). An analysis of one batch runs each weight once per plan.
    bool packNow(const void *data, bool constant, const Tensor *source = nullptr);
    // The caller's weights as they are.
    const dnnl::memory &plain(const void *data);

private:
    dnnl::memory m_user, m_packed;
    dnnl::memory::desc m_wanted;
    dnnl::reorder m_reorder;
    std::shared_ptr<const dnnl::memory> m_shared;  // the process-wide copy, once found
    bool m_needsReorder = false;
    bool m_ready = false;  // m_packed holds the constant weights already
    bool m_seen = false;   // packNow() was asked before
};

// How many constants have been packed into the shared copies so far (for tests).
int64_t sharedPackings();

// What a kernel keeps per distinct input shape (primitives, packed weights); beyond
// kMaxEntries the oldest entry goes.
template <class Entry>
class ShapeCache {
public:
    static constexpr size_t kMaxEntries = 8;

    // The entry `matches` accepts, else a new one filled in by build(Entry &) -> Status.
    template <class Match, class Build>
    Result<Entry *> findOrBuild(Match &&matches, Build &&build) {
        for (Entry &e : m_entries)
            if (matches(e)) return &e;
        Entry fresh;
        QL_RETURN_IF_ERROR(build(fresh));
        if (m_entries.size() >= kMaxEntries) m_entries.erase(m_entries.begin());
        m_entries.push_back(std::move(fresh));
        return &m_entries.back();
    }

private:
    std::vector<Entry> m_entries;
};

}  // namespace ql::dnnl_support
