#pragma once
// Internal to the kernels: calling a generic lambda with the C++ element type of a dtype.

#include "ir/data_type.h"

namespace ql {

// Calls fn(T()) for the T among Ts whose dtype is `type`; false when there is none.
template <class... Ts, class Fn>
bool dispatchAmong(DataType type, Fn &&fn) {
    return ((type == DataTypeOf<Ts>::value ? (fn(Ts()), true) : false) || ...);
}

}  // namespace ql
