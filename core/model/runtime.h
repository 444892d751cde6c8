#pragma once
// Device and dtype names used on command lines and in specs: "cpu", "cuda", "cuda:1";
// "float32", "bfloat16", "float16" (also f32/bf16/f16/fp32/...).

#include <string>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

namespace gb {

c10::Device parse_device(const std::string& name);  // throws when CUDA is asked for but absent
c10::ScalarType parse_dtype(const std::string& name);
std::string dtype_name(c10::ScalarType dtype);

}  // namespace gb
