#include "kernels/dnnl_support.h"

#include <atomic>
#include <mutex>
#include <utility>

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

namespace {

std::atomic<int64_t> g_sharedPackings{0};

// The packed copies of constants, by their storage and both layouts. An entry lives while its
// source storage does (so its address cannot belong to another tensor) and while a kernel uses
// the copy.
class PackedWeightStore {
public:
    static PackedWeightStore &instance() {
        static PackedWeightStore store;
        return store;
    }

    std::shared_ptr<const dnnl::memory> find(const std::shared_ptr<Storage> &source,
                                             const dnnl::memory::desc &user,
                                             const dnnl::memory::desc &wanted) {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::shared_ptr<const dnnl::memory> found;
        for (auto it = m_entries.begin(); it != m_entries.end();) {
            std::shared_ptr<Storage> alive = it->source.lock();
            std::shared_ptr<const dnnl::memory> packed = it->packed.lock();
            if (!alive || !packed) {
                it = m_entries.erase(it);
                continue;
            }
            if (alive == source && it->user == user && it->wanted == wanted) found = packed;
            ++it;
        }
        return found;
    }

    void add(const std::shared_ptr<Storage> &source, const dnnl::memory::desc &user,
             const dnnl::memory::desc &wanted, const std::shared_ptr<const dnnl::memory> &packed) {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_entries.push_back({source, user, wanted, packed});
    }

private:
    struct Entry {
        std::weak_ptr<Storage> source;
        dnnl::memory::desc user, wanted;
        std::weak_ptr<const dnnl::memory> packed;
    };
    std::mutex m_mutex;
    std::vector<Entry> m_entries;
};

}  // namespace

void PackedWeights::init(const dnnl::memory::desc &user, const dnnl::memory::desc &wanted) {
    m_user = dnnl::memory(user, cpuEngine(), nullptr);
    m_wanted = wanted;
    m_needsReorder = wanted != user;
    m_ready = m_seen = false;
    m_shared.reset();
    if (m_needsReorder) m_reorder = makeReorder(m_user, dnnl::memory(wanted, cpuEngine(), nullptr));
}

bool PackedWeights::packNow(const void *data, bool constant, const Tensor *source) {
    const bool seen = std::exchange(m_seen, true);
    if (!m_needsReorder || !constant || seen || m_shared || m_ready) return true;
    // Packed by another plan already: use that copy at once.
    return source && source->rawData() == data && source->storage() &&
           PackedWeightStore::instance().find(source->storage(), m_user.get_desc(), m_wanted);
}

const dnnl::memory &PackedWeights::plain(const void *data) {
    m_user.set_data_handle(const_cast<void *>(data));
    return m_user;
}

int64_t sharedPackings() {
    return g_sharedPackings.load(std::memory_order_relaxed);
}

const dnnl::memory &PackedWeights::prepare(dnnl::stream &stream, const void *data, bool constant,
                                           const Tensor *source) {
    m_user.set_data_handle(const_cast<void *>(data));
    if (!m_needsReorder) return m_user;
    if (m_shared) return *m_shared;
    const bool shareable = constant && source && source->rawData() == data && source->storage();
    if (shareable) {
        PackedWeightStore &store = PackedWeightStore::instance();
        const dnnl::memory::desc user = m_user.get_desc();
        m_shared = store.find(source->storage(), user, m_wanted);
        if (!m_shared) {
            auto packed = std::make_shared<dnnl::memory>(m_wanted, cpuEngine());
            execute(m_reorder, stream, m_user, *packed);
            g_sharedPackings.fetch_add(1, std::memory_order_relaxed);
            stream.wait();  // complete before another plan may read it
            m_shared = packed;
            store.add(source->storage(), user, m_wanted, m_shared);
        }
        return *m_shared;
    }
    if (!m_packed) m_packed = dnnl::memory(m_wanted, cpuEngine());
    if (!constant || !m_ready) {
        execute(m_reorder, stream, m_user, m_packed);
        m_ready = constant;
    }
    return m_packed;
}

}  // namespace ql::dnnl_support
