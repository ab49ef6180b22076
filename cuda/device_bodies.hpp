// Bodies on the device, and the one place where host bodies (sim/bodies.hpp) are packed into device
// layouts and back. The all-pairs kernels read one of three layouts (the `layout` toggle: array of
// structs, structure of arrays, float4 position+mass with float4 velocity); Barnes-Hut keeps the
// float4 pair, its node array holding the bodies first and the cells after them. A layout switch
// converts on the device (no trip through the host).
#pragma once
#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cuda/allpairs/variant.hpp"
#include "cuda/buffer.hpp"
#include "cuda/kernels/allpairs_params.h"
#include "sim/bodies.hpp"

namespace nbl {

class RetiredObjects;

static_assert(sizeof(nbl_float4) == sizeof(float4) && alignof(nbl_float4) == alignof(float4),
              "the kernels' float4 and the host's nbl_float4 must be interchangeable");

// Packs positions and masses into (x, y, z, mass) and velocities into (vx, vy, vz, 0), uploads both
// into `pos_mass` and `vel` (n each) on `stream` and waits for the copy.
void upload_float4_bodies(const Bodies& bodies, float4* pos_mass, float4* vel, cudaStream_t stream);
// The reverse: n bodies from the two float4 arrays into `bodies` (resized).
void download_float4_bodies(const float4* pos_mass, const float4* vel, std::size_t n, Bodies& bodies,
                            cudaStream_t stream);
// n accelerations kept as float4 (x, y, z, unused), as Barnes-Hut keeps them, into `out` (resized).
void download_float4_accelerations(const float4* acc, std::size_t n, Accelerations& out, cudaStream_t stream);

class DeviceBodies {
 public:
  BodyLayout layout() const { return layout_; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const;

  void upload(const Bodies& bodies, BodyLayout layout, cudaStream_t stream);
  void download(Bodies& bodies, cudaStream_t stream) const;  // waits for the copy
  // Re-lays the bodies out in `layout` on the device (a no-op when they already are). The old layout's
  // buffers are freed after waiting for the stream, or, given `old`, handed to it instead (a swap: no
  // wait, no free on the caller's thread; cuda/retire.hpp).
  void convert(BodyLayout layout, cudaStream_t stream, RetiredObjects* old = nullptr);
  // A device-side copy of `other`'s bodies, laid out in `layout` (A/B: B reads A's state in its own layout).
  void copy_from(const DeviceBodies& other, BodyLayout layout, cudaStream_t stream);

  // What the kernels of each layout take (allpairs_params.h); valid until the next upload or convert.
  allpairs::AosBodies aos();
  allpairs::SoaBodies soa();
  allpairs::Float4Bodies float4_pair();
  // The device memory of the current layout (a step's snapshot copies it aside: cuda/step_slices.hpp).
  std::vector<std::pair<void*, std::size_t>> regions();

 private:
  void release_except(BodyLayout keep, RetiredObjects* old = nullptr);

  BodyLayout layout_ = BodyLayout::float4;
  std::size_t n_ = 0;
  DeviceBuffer<allpairs::BodyRecord> aos_;
  DeviceBuffer<float> soa_[7];  // x, y, z, mass, vx, vy, vz
  DeviceBuffer<float4> pos_mass_, vel_;
};

}  // namespace nbl
