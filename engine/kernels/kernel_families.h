#pragma once
// One registration function per kernel family file; kernel_registry.cpp calls them all.
// (Explicit calls, because static-registration objects vanish from static libraries.)

namespace ql {

class KernelRegistry;

void registerElementwiseKernels(KernelRegistry &registry);   // unary math and activations
void registerBinaryKernels(KernelRegistry &registry);        // broadcasting arithmetic, logic, Where
void registerShapeKernels(KernelRegistry &registry);         // reshape, slicing, gather, concat, ...
void registerReductionKernels(KernelRegistry &registry);     // Reduce*, ArgMax, Softmax, norms
void registerPoolingKernels(KernelRegistry &registry);       // MaxPool, AveragePool, Global*
void registerConvolutionKernels(KernelRegistry &registry);   // Conv, ConvTranspose
void registerMatMulKernels(KernelRegistry &registry);        // Gemm, MatMul
void registerNormalizationKernels(KernelRegistry &registry); // BatchNormalization
void registerResizeKernels(KernelRegistry &registry);        // Resize
void registerQuantizationKernels(KernelRegistry &registry);  // Q/DQ, QLinear*, *Integer
void registerQLinearContribKernels(KernelRegistry &registry);  // com.microsoft QLinearAdd, ...

inline void registerAllKernelFamilies(KernelRegistry &registry) {
    registerElementwiseKernels(registry);
    registerBinaryKernels(registry);
    registerShapeKernels(registry);
    registerReductionKernels(registry);
    registerPoolingKernels(registry);
    registerConvolutionKernels(registry);
    registerMatMulKernels(registry);
    registerNormalizationKernels(registry);
    registerResizeKernels(registry);
    registerQuantizationKernels(registry);
    registerQLinearContribKernels(registry);
}

}  // namespace ql
