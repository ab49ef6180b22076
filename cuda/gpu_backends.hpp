// Factories for the GPU backends, declared without CUDA types so app/ can pick a backend without
// including CUDA headers. Each throws Error when the GPU cannot run it (no device, out of memory).
#pragma once
#include <cstddef>
#include <memory>

#include "sim/backend.hpp"

namespace nbl {

std::unique_ptr<Backend> make_gpu_allpairs(const Settings& settings);
std::unique_ptr<Backend> make_gpu_barneshut(const Settings& settings);

// Device memory the backend these settings ask for needs per body at n bodies, so an n that cannot fit
// is refused before allocating.
std::size_t gpu_bytes_per_body(const Settings& settings, std::size_t n);

}  // namespace nbl
