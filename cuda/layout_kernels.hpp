// The device kernels behind DeviceBodies::convert (layout_kernels.cu, compiled by nvcc): every body
// layout to and from float4 position+mass / float4 velocity. Included by nvcc, so C++17 only.
#pragma once
#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstddef>

#include "cuda/kernels/allpairs_params.h"

namespace nbl::layout_kernels {

// Loads the four kernels into the context now (lazy loading would at their first launch, which
// synchronizes the context: a layout switch's swap frame). The backend calls it when it starts. Best
// effort: a kernel that cannot load now fails at its launch, as before.
void load();

void aos_to_float4(const allpairs::BodyRecord* aos, float4* pos_mass, float4* vel, std::size_t n, cudaStream_t s);
void float4_to_aos(const float4* pos_mass, const float4* vel, allpairs::BodyRecord* aos, std::size_t n, cudaStream_t s);
void soa_to_float4(allpairs::SoaBodies soa, float4* pos_mass, float4* vel, std::size_t n, cudaStream_t s);
void float4_to_soa(const float4* pos_mass, const float4* vel, allpairs::SoaBodies soa, std::size_t n, cudaStream_t s);

}  // namespace nbl::layout_kernels
