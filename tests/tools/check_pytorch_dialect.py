#!/usr/bin/python3
"""Checks a `quantlens search --format pytorch` skip-list with real PyTorch (1.13; not run by CI,
which has no PyTorch): the snippet's QConfigMapping is given to prepare_fx / convert_fx on the
corpus' SEResNet (tests/tools/make_pytorch_corpus.py, random weights: only the structure
matters), and every module it sets to None must stay a float module while the other convs are
quantized.

    quantlens search --float tests/data/pytorch_corpus/fx_seresnet/float.onnx \\
        --quant tests/data/pytorch_corpus/fx_seresnet/quant.onnx \\
        --data tests/data/pytorch_corpus/fx_seresnet/inputs.npy --target sqnr:27 \\
        --skip-list /tmp/qconfig.py --format pytorch
    /usr/bin/python3 tests/tools/check_pytorch_dialect.py /tmp/qconfig.py
"""
import importlib.util
import pathlib
import re
import sys

import torch
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

here = pathlib.Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("corpus", here / "make_pytorch_corpus.py")
corpus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(corpus)

text = open(sys.argv[1]).read()
kept = re.findall(r'set_module_name\("([^"]+)", None\)', text)
namespace = {}
exec(text, namespace)
# Debian's torch has onednn, not fbgemm; the mapping's observers do not depend on it.
torch.backends.quantized.engine = "onednn"
model = corpus.SEResNet().eval()
x = torch.randn(4, 1, 28, 28)
prepared = prepare_fx(model, namespace["qconfig_mapping"], (x,))
prepared(x)
quantized = convert_fx(prepared)
failures = 0
for name, module in quantized.named_modules():
    if not isinstance(module, torch.nn.Conv2d) and "Conv" not in type(module).__name__:
        continue
    is_float = type(module) is torch.nn.Conv2d
    expected_float = name in kept
    print(f"{name:20} {type(module).__module__}.{type(module).__name__}")
    if is_float != expected_float:
        failures += 1
        print(f"  expected {'float' if expected_float else 'quantized'}")
print(f"{len(kept)} module(s) kept in fp32: {kept}; {failures} mismatch(es)")
sys.exit(1 if failures or not kept else 0)
