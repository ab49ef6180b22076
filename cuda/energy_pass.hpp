// The energy of a snapshot of the bodies, measured on the device in slices spread across frames, so a
// million bodies get an exact figure without a frame waiting for it (a sampled potential's
// standard error at 1M, +-1.7e-2, was larger than the drift it should show).
//
// W = -1/2 sum_i m_i sum_{j != i} m_j / sqrt(|r_ij|^2 + eps^2). Up to kExactLimit bodies every pair is
// summed: each pair in float, as the state is stored (one rsqrt, ~2 ulp), every 32 sources added into a
// double, every row's m_i phi_i kept in double and summed in a fixed order on the device, so the
// figure is reproducible and its error (~1e-7 relative) lies far below any drift worth showing. Above
// the limit (a 4M pass is already 1.6e13 pairs, ~8 s of an H100) the rows are a random sample of
// kSampleRows bodies, each still against every body, and the estimate carries its standard error, as
// sim/diagnostics.hpp's sampled estimate does on the CPU. The kinetic energy is exact in both cases.
// C++17, compiled by nvcc.
#pragma once
#include <cuda_runtime_api.h>
#include <vector_types.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "cuda/buffer.hpp"
#include "sim/diagnostics.hpp"

namespace nbl {

class DeviceEnergy {
 public:
  static constexpr std::size_t kExactLimit = std::size_t{1} << 22;  // 4,194,304 bodies
  static constexpr std::size_t kSampleRows = std::size_t{1} << 16;  // rows of the sampled estimate above it

  // Tests lower the limit to reach the sampled estimate at a small n.
  explicit DeviceEnergy(std::size_t exact_limit = kExactLimit, std::size_t sample_rows = kSampleRows)
      : exact_limit_(exact_limit), sample_rows_(sample_rows) {}

  // Copies n bodies (x, y, z, mass and vx, vy, vz, -) on `stream` and starts a measurement of that
  // state; a measurement still running is dropped. Sampled rows are drawn with `seed`.
  void begin(const float4* pos_mass, const float4* vel, std::size_t n, double softening, std::uint64_t seed,
             cudaStream_t stream);
  bool active() const { return n_ > 0; }
  // Enqueues rows worth about `budget_ms` of device time (learned from the slices timed so far) on
  // `stream`; nothing here waits for the device except the last call, which reads the sums back and
  // returns the report. Nothing while rows remain.
  std::optional<EnergyReport> advance(double budget_ms, cudaStream_t stream);
  // The whole measurement at once (bench, tests): waits for the device.
  EnergyReport run_all(cudaStream_t stream);
  double progress() const;                         // rows enqueued / rows, 0..1
  double device_ms() const { return device_ms_; }  // device time of the slices timed so far
  std::size_t rows() const { return rows_; }
  std::size_t slices() const { return slices_; }

 private:
  void enqueue_rows(std::size_t count, cudaStream_t stream);
  void collect_timing();
  EnergyReport finish(cudaStream_t stream);

  std::size_t exact_limit_, sample_rows_;
  std::size_t n_ = 0, rows_ = 0, next_row_ = 0, slices_ = 0;
  float eps2_ = 0;
  bool sampled_ = false;
  DeviceBuffer<float4> pos_, vel_;
  DeviceBuffer<long long> sample_;     // the sampled rows' body indices
  DeviceBuffer<double> terms_;         // m_i phi_i per row
  DeviceBuffer<double> kinetic_;       // 1/2 m v^2 per body
  DeviceBuffer<double> partials_;      // block sums of the final reduction
  DeviceBuffer<double> partial_rows_;  // per row of a launch, one sum per chunk of sources
  std::size_t chunk_ = 0;              // sources per chunk
  int chunks_ = 1;
  PinnedBuffer<double> host_;
  // The slice in flight, timed with events so the next one can size itself without a host wait.
  CudaEvent start_, stop_;
  bool timing_ = false;
  std::size_t timed_rows_ = 0;
  double pairs_per_ms_ = 2e8;  // a cautious first guess (an H100 runs ~1e9); the first slice corrects it
  double device_ms_ = 0;
};

}  // namespace nbl
