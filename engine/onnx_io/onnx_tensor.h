#pragma once
// Internal: conversion between onnx::TensorProto and Tensor. Not part of the public API
// (it exposes protobuf types); public callers use tensor_file.h or model_loader.h.

#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql {

// `what` names the tensor in messages. External data must already be resolved.
// fp16 and bf16 become float32 when convertHalfToFloat is set (initializers); kept otherwise.
Result<Tensor> tensorFromProto(const onnx::TensorProto &proto, const std::string &what,
                               bool convertHalfToFloat);
// Same, taking over the proto's raw data instead of copying it (the proto loses it).
Result<Tensor> takeTensorFromProto(onnx::TensorProto &proto, const std::string &what,
                                   bool convertHalfToFloat);
// The bytes a file holds for the tensor: its plain values; 4-bit types packed two per byte.
Tensor storedValues(const Tensor &tensor);
void tensorToProto(const Tensor &tensor, const std::string &name, onnx::TensorProto *proto);
// Name, type and dims of a plain-layout tensor, without its values.
void tensorHeaderToProto(const Tensor &plain, const std::string &name, onnx::TensorProto *proto);

}  // namespace ql
