#pragma once
// Precompiled header of growbench_core: the LibTorch C++ API. Only .cpp files of the core,
// the CLI, benchmarks and tests get it; keep torch/torch.h out of widely included headers.
#include <torch/torch.h>
