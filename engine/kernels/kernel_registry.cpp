#include "kernels/kernel.h"
#include "kernels/kernel_families.h"

namespace ql {

namespace {
std::string key(const std::string &domain, const std::string &op) {
    const std::string d = (domain == "ai.onnx") ? std::string() : domain;
    return d + "::" + op;
}

KernelRegistry buildRegistry() {
    KernelRegistry r;
    registerAllKernelFamilies(r);
    return r;
}
}  // namespace

const KernelRegistry &KernelRegistry::instance() {
    static const KernelRegistry registry = buildRegistry();
    return registry;
}

void KernelRegistry::add(const std::string &opType, KernelFactory factory, const std::string &domain) {
    m_factories.emplace_back(key(domain, opType), std::move(factory));
}

const KernelFactory *KernelRegistry::find(const std::string &domain, const std::string &opType) const {
    const std::string k = key(domain, opType);
    for (const auto &entry : m_factories)
        if (entry.first == k) return &entry.second;
    return nullptr;
}

std::vector<std::string> KernelRegistry::opTypes(const std::string &domain) const {
    std::vector<std::string> out;
    const std::string prefix = key(domain, "");
    for (const auto &entry : m_factories)
        if (entry.first.rfind(prefix, 0) == 0) out.push_back(entry.first.substr(prefix.size()));
    return out;
}

Result<KernelPtr> KernelRegistry::create(const KernelBuildInfo &info) const {
    const KernelFactory *factory = find(info.node.domain, info.node.opType);
    if (!factory) {
        return Status::unsupported("unsupported op " + info.node.opType + " (node '" +
                                   info.node.name + "', opset " + std::to_string(info.opset) + ")");
    }
    try {
        return (*factory)(info);
    } catch (const std::exception &e) {
        return Status::internal(info.node.describe() + ": " + e.what());
    }
}

}  // namespace ql
