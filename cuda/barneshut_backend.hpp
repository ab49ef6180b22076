// The GPU Barnes-Hut backend: the tutorial's six kernels (reference 000, Part II) compiled by the
// kernel variant engine, their device memory, the per-step recovery from bad geometry, and the
// statistics the panel and `bench` show. Created through make_gpu_barneshut() (gpu_backends.hpp).
#pragma once
#include <cstddef>
#include <memory>

#include "sim/backend.hpp"

namespace nbl {

std::unique_ptr<Backend> make_barneshut_backend(const Settings& settings);

// Device bytes per body, cell pool and Morton scratch included (an upper bound).
std::size_t barneshut_bytes_per_body();

}  // namespace nbl
