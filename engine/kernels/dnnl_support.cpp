#include "kernels/dnnl_support.h"

#include "kernels/dnnl_scratchpad.h"

namespace ql::dnnl_support {

using tag = dnnl::memory::format_tag;

dnnl::engine &cpuEngine() {
    static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
    return engine;
}

dnnl::stream &threadStream() {
    thread_local dnnl::stream stream(cpuEngine());
    return stream;
}

tag plainTag(int rank) {
    switch (rank) {
        case 1: return tag::a;
        case 2: return tag::ab;
        case 3: return tag::abc;
        case 4: return tag::abcd;
        case 5: return tag::abcde;
        case 6: return tag::abcdef;
        default: return tag::undef;
    }
}

tag storageTag(const Tensor &tensor) {
    if (tensor.layout() == Layout::ChannelsLast) return tag::acdb;
    return plainTag(tensor.rank());
}

dnnl::memory::desc describe(const Tensor &tensor, dnnl::memory::data_type type) {
    return dnnl::memory::desc(toDims(tensor.shape()), type, storageTag(tensor));
}

dnnl::memory wrap(const Tensor &tensor, const dnnl::memory::desc &desc) {
    return dnnl::memory(desc, cpuEngine(), const_cast<void *>(tensor.rawData()));
}

Status dnnlFailure(const std::string &what, const dnnl::error &e, bool creating) {
    const std::string message =
        "oneDNN " + std::string(creating ? "refused " : "failed to run ") + what + ": " + e.what();
    return creating ? Status::unsupported(message) : Status::internal(message);
}

void PackedWeights::init(const dnnl::memory::desc &user, const dnnl::memory::desc &wanted) {
    m_user = dnnl::memory(user, cpuEngine(), nullptr);
    m_needsReorder = wanted != user;
    m_ready = false;
    if (m_needsReorder) {
        m_packed = dnnl::memory(wanted, cpuEngine());
        m_reorder = makeReorder(m_user, m_packed);
    }
}

const dnnl::memory &PackedWeights::prepare(dnnl::stream &stream, const void *data, bool constant) {
    m_user.set_data_handle(const_cast<void *>(data));
    if (!m_needsReorder) return m_user;
    if (!constant || !m_ready) {
        execute(m_reorder, stream, m_user, m_packed);
        m_ready = constant;
    }
    return m_packed;
}

}  // namespace ql::dnnl_support
