#include "onnx_io/model_stream.h"

#include <algorithm>
#include <climits>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/wire_format_lite.h>

namespace ql {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

// Moves the fields of `from` numbered above `number` into `to` (a message of the same type):
// `from`, the field `number` written by hand, then `to` come out in protobuf's field order.
void moveFieldsAfter(Message &from, int number, Message &to) {
    const auto *reflection = from.GetReflection();
    std::vector<const FieldDescriptor *> set, after;
    reflection->ListFields(from, &set);
    for (const FieldDescriptor *field : set)
        if (field->number() > number) after.push_back(field);
    reflection->SwapFields(&from, &to, after);
}

uint32_t lengthTag(int field) {
    return WireFormatLite::MakeTag(field, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
}

// Bytes of a length-delimited field holding `length` bytes.
size_t fieldSize(int field, size_t length) {
    return CodedOutputStream::VarintSize32(lengthTag(field)) +
           CodedOutputStream::VarintSize64(length) + length;
}

void writeFieldHeader(CodedOutputStream &out, int field, size_t length) {
    out.WriteTag(lengthTag(field));
    out.WriteVarint64(length);
}

// One initializer: its proto's fields up to raw_data, the values, the fields after.
struct Initializer {
    onnx::TensorProto head, tail;
    const Tensor *values = nullptr;
    size_t size() const {
        return head.ByteSizeLong() + fieldSize(onnx::TensorProto::kRawDataFieldNumber, bytes()) +
               tail.ByteSizeLong();
    }
    size_t bytes() const { return static_cast<size_t>(values->byteSize()); }
};

void writeValues(CodedOutputStream &out, const Tensor &values) {
    const char *data = static_cast<const char *>(values.rawData());
    size_t left = static_cast<size_t>(values.byteSize());
    while (left > 0) {  // WriteRaw takes an int
        const size_t piece = std::min<size_t>(left, size_t(1) << 30);
        out.WriteRaw(data, static_cast<int>(piece));
        data += piece;
        left -= piece;
    }
}

}  // namespace

Status streamModel(onnx::ModelProto &model, const std::vector<Tensor> &values, std::ostream &out) {
    onnx::GraphProto graphHead;
    graphHead.Swap(model.mutable_graph());
    model.clear_graph();
    onnx::ModelProto modelTail;
    moveFieldsAfter(model, onnx::ModelProto::kGraphFieldNumber, modelTail);

    if (graphHead.initializer_size() != static_cast<int>(values.size()))
        return Status::internal("streamModel: " + std::to_string(values.size()) + " values for " +
                                std::to_string(graphHead.initializer_size()) + " initializers");
    std::vector<Initializer> initializers(values.size());
    for (size_t i = 0; i < values.size(); ++i) {
        Initializer &init = initializers[i];
        init.head.Swap(graphHead.mutable_initializer(static_cast<int>(i)));
        init.head.clear_raw_data();
        moveFieldsAfter(init.head, onnx::TensorProto::kRawDataFieldNumber, init.tail);
        init.values = &values[i];
    }
    graphHead.clear_initializer();
    onnx::GraphProto graphTail;
    moveFieldsAfter(graphHead, onnx::GraphProto::kInitializerFieldNumber, graphTail);

    size_t graphSize = graphHead.ByteSizeLong() + graphTail.ByteSizeLong();
    for (const Initializer &init : initializers)
        graphSize += fieldSize(onnx::GraphProto::kInitializerFieldNumber, init.size());
    const size_t total = model.ByteSizeLong() +
                         fieldSize(onnx::ModelProto::kGraphFieldNumber, graphSize) +
                         modelTail.ByteSizeLong();
    if (total > static_cast<size_t>(INT_MAX))
        return Status::badInput("model is too large to serialize (protobuf limit is 2 GiB)");

    google::protobuf::io::OstreamOutputStream stream(&out);
    {
        CodedOutputStream coded(&stream);
        model.SerializeToCodedStream(&coded);
        writeFieldHeader(coded, onnx::ModelProto::kGraphFieldNumber, graphSize);
        graphHead.SerializeToCodedStream(&coded);
        for (const Initializer &init : initializers) {
            writeFieldHeader(coded, onnx::GraphProto::kInitializerFieldNumber, init.size());
            init.head.SerializeToCodedStream(&coded);
            writeFieldHeader(coded, onnx::TensorProto::kRawDataFieldNumber, init.bytes());
            writeValues(coded, *init.values);
            init.tail.SerializeToCodedStream(&coded);
        }
        graphTail.SerializeToCodedStream(&coded);
        modelTail.SerializeToCodedStream(&coded);
        if (coded.HadError()) return Status::io("the model could not be written");
    }
    return out ? Status::ok() : Status::io("the model could not be written");
}

}  // namespace ql
