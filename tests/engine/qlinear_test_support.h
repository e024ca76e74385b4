#pragma once
// Small constructors of the quantized-op tests (tst_quantized_ops, tst_quantization_errors).

#include <map>
#include <string>

#include "test_support.h"

namespace ql::test {

// A node of a com.microsoft contrib op (QLinearAdd, QGemm, ...).
inline Node msNode(const std::string &op, std::map<std::string, Attribute> attrs = {}) {
    Node n = makeNode(op, std::move(attrs));
    n.domain = "com.microsoft";
    return n;
}

inline Tensor fscalar(float v) { return Tensor::scalar<float>(v); }
// A zero-point scalar of type T.
template <class T>
Tensor zscalar(int v) { return Tensor::scalar<T>(static_cast<T>(v)); }

}  // namespace ql::test
