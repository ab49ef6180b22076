#include "cuda/energy_pass.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cuda/check.hpp"

namespace nbl {

namespace {

constexpr int kThreads = 256;       // rows per block; also the sources staged in shared memory at a time
constexpr int kReduceBlocks = 512;  // fixed, so the sums are added in the same order every time
constexpr std::size_t kPartialEntries = std::size_t{1} << 22;  // partial sums of one launch (32 MB)

// Rows [first, first + count) of the pass (row k is body `rows ? rows[k] : k`), block (x, y): 256 rows
// against sources [y * chunk, (y + 1) * chunk), staged a block at a time; every 32 sources are summed
// in float and added into a double. The chunk is fixed for the whole pass, so a row's partial sums and
// their order do not depend on how the rows are sliced: one pass or many slices give the same bits.
// Splitting the sources keeps the whole GPU busy even when a slice has only a few hundred rows.
__global__ void potential_chunks(const float4* __restrict__ pos, long long n, const long long* __restrict__ rows,
                                 long long first, long long count, long long chunk, float eps2,
                                 double* __restrict__ partial) {
  __shared__ float4 tile[kThreads];
  const long long local = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x;
  const long long k = first + local;
  const bool live = local < count;
  const long long i = live ? (rows ? rows[k] : k) : 0;
  const float4 me = pos[i];
  double phi = 0;
  const long long begin = blockIdx.y * chunk, end = min(n, begin + chunk);
  for (long long base = begin; base < end; base += kThreads) {
    const long long j_load = base + threadIdx.x;
    tile[threadIdx.x] = j_load < end ? pos[j_load] : make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
    const int in_tile = static_cast<int>(min(static_cast<long long>(kThreads), end - base));
    for (int sub = 0; sub < in_tile; sub += 32) {
      float part = 0.f;
      const int stop = min(sub + 32, in_tile);
      for (int t = sub; t < stop; ++t) {
        const float4 s = tile[t];
        const float dx = s.x - me.x, dy = s.y - me.y, dz = s.z - me.z;
        const float r2 = fmaf(dx, dx, fmaf(dy, dy, fmaf(dz, dz, eps2)));
        // A body and itself: no term. Two distinct bodies at one point without softening: inf, as the
        // CPU's double sum gives.
        part += (base + t == i) ? 0.f : s.w * rsqrtf(r2);
      }
      phi += part;
    }
    __syncthreads();
  }
  if (live) partial[local * gridDim.y + blockIdx.y] = phi;
}

// terms[k] = m_i * (the row's chunk sums, added in chunk order).
__global__ void potential_rows(const float4* __restrict__ pos, const long long* __restrict__ rows, long long first,
                               long long count, int chunks, const double* __restrict__ partial,
                               double* __restrict__ terms) {
  const long long local = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (local >= count) return;
  const long long k = first + local;
  const long long i = rows ? rows[k] : k;
  double phi = 0;
  for (int c = 0; c < chunks; ++c) phi += partial[local * chunks + c];
  terms[k] = static_cast<double>(pos[i].w) * phi;
}

__global__ void kinetic_terms(const float4* __restrict__ pos, const float4* __restrict__ vel, long long n,
                              double* __restrict__ out) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const float4 v = vel[i];
  const double vx = v.x, vy = v.y, vz = v.z;
  out[i] = 0.5 * static_cast<double>(pos[i].w) * (vx * vx + vy * vy + vz * vz);
}

// Block b sums values [b, b + blocks, ...) in a fixed tree: one partial per block.
__global__ void sum_kernel(const double* __restrict__ values, long long n, double* __restrict__ partials) {
  __shared__ double s[kThreads];
  double sum = 0;
  for (long long i = blockIdx.x * static_cast<long long>(kThreads) + threadIdx.x; i < n;
       i += static_cast<long long>(kThreads) * gridDim.x)
    sum += values[i];
  s[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

}  // namespace

void DeviceEnergy::begin(const float4* pos_mass, const float4* vel, std::size_t n, double softening, std::uint64_t seed,
                         cudaStream_t stream) {
  n_ = n;
  next_row_ = 0;
  slices_ = 0;
  timing_ = false;
  device_ms_ = 0;
  eps2_ = static_cast<float>(softening * softening);
  if (n == 0) return;
  pos_.resize(n);
  vel_.resize(n);
  NBL_CUDA_CHECK(cudaMemcpyAsync(pos_.data(), pos_mass, n * sizeof(float4), cudaMemcpyDeviceToDevice, stream));
  NBL_CUDA_CHECK(cudaMemcpyAsync(vel_.data(), vel, n * sizeof(float4), cudaMemcpyDeviceToDevice, stream));
  sampled_ = n > exact_limit_ && sample_rows_ >= 2 && sample_rows_ < n;
  rows_ = sampled_ ? sample_rows_ : n;
  if (sampled_) {
    const std::vector<std::size_t> picked = sample_indices(n, sample_rows_, seed);
    std::vector<long long> rows(picked.begin(), picked.end());
    sample_.upload(rows, stream);
  }
  terms_.resize(rows_);
  kinetic_.resize(n);
  // Sources per chunk: fixed for the pass (the bits must not depend on the slicing), at most 256
  // chunks, at least 4,096 sources each.
  chunk_ = std::max<std::size_t>(4096, ((n + 255) / 256 + kThreads - 1) / kThreads * kThreads);
  chunks_ = static_cast<int>((n + chunk_ - 1) / chunk_);
  partial_rows_.resize(
      std::max<std::size_t>(kThreads, kPartialEntries / static_cast<std::size_t>(chunks_) / kThreads * kThreads) *
      static_cast<std::size_t>(chunks_));
  const long long blocks = (static_cast<long long>(n) + kThreads - 1) / kThreads;
  kinetic_terms<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(pos_.data(), vel_.data(),
                                                                        static_cast<long long>(n), kinetic_.data());
  NBL_CUDA_CHECK_LAUNCH();
}

void DeviceEnergy::enqueue_rows(std::size_t count, cudaStream_t stream) {
  // At most kPartialEntries partial sums in flight: longer requests go in several launches.
  while (count > 0) {
    const std::size_t now =
        std::min(count, std::max<std::size_t>(kThreads, kPartialEntries / chunks_ / kThreads * kThreads));
    const unsigned row_blocks = static_cast<unsigned>((now + kThreads - 1) / kThreads);
    potential_chunks<<<dim3(row_blocks, static_cast<unsigned>(chunks_)), kThreads, 0, stream>>>(
        pos_.data(), static_cast<long long>(n_), sampled_ ? sample_.data() : nullptr, static_cast<long long>(next_row_),
        static_cast<long long>(now), static_cast<long long>(chunk_), eps2_, partial_rows_.data());
    NBL_CUDA_CHECK_LAUNCH();
    potential_rows<<<row_blocks, kThreads, 0, stream>>>(pos_.data(), sampled_ ? sample_.data() : nullptr,
                                                        static_cast<long long>(next_row_), static_cast<long long>(now),
                                                        chunks_, partial_rows_.data(), terms_.data());
    NBL_CUDA_CHECK_LAUNCH();
    next_row_ += now;
    count -= now;
  }
  ++slices_;
}

void DeviceEnergy::collect_timing() {
  if (!timing_ || cudaEventQuery(stop_.get()) != cudaSuccess) return;
  const double ms = stop_.ms_since(start_);
  timing_ = false;
  device_ms_ += ms;
  if (ms > 0.05) pairs_per_ms_ = static_cast<double>(timed_rows_) * static_cast<double>(n_) / ms;
}

std::optional<EnergyReport> DeviceEnergy::advance(double budget_ms, cudaStream_t stream) {
  if (!active()) return std::nullopt;
  collect_timing();
  if (next_row_ < rows_) {
    // Whole blocks of rows, at least one block, sized from the measured rate.
    const double want = std::max(1.0, budget_ms * pairs_per_ms_ / static_cast<double>(n_));
    std::size_t count = (static_cast<std::size_t>(want) + kThreads - 1) / kThreads * kThreads;
    count = std::min(count, rows_ - next_row_);
    const bool timed = !timing_;  // one slice in flight is timed at a time
    if (timed) start_.record(stream);
    enqueue_rows(count, stream);
    if (timed) {
      stop_.record(stream);
      timing_ = true;
      timed_rows_ = count;
    }
    return std::nullopt;
  }
  return finish(stream);
}

EnergyReport DeviceEnergy::run_all(cudaStream_t stream) {
  start_.record(stream);
  const std::size_t before = next_row_;
  if (next_row_ < rows_) enqueue_rows(rows_ - next_row_, stream);
  stop_.record(stream);
  timing_ = true;
  timed_rows_ = rows_ - before;
  return finish(stream);
}

EnergyReport DeviceEnergy::finish(cudaStream_t stream) {
  EnergyReport report;
  partials_.resize(2 * kReduceBlocks);
  host_.resize(2 * kReduceBlocks);
  sum_kernel<<<kReduceBlocks, kThreads, 0, stream>>>(kinetic_.data(), static_cast<long long>(n_), partials_.data());
  NBL_CUDA_CHECK_LAUNCH();
  if (!sampled_) {
    sum_kernel<<<kReduceBlocks, kThreads, 0, stream>>>(terms_.data(), static_cast<long long>(rows_),
                                                       partials_.data() + kReduceBlocks);
    NBL_CUDA_CHECK_LAUNCH();
  }
  NBL_CUDA_CHECK(cudaMemcpyAsync(host_.data(), partials_.data(), partials_.bytes(), cudaMemcpyDeviceToHost, stream));
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
  collect_timing();
  const double* h = host_.data();
  for (int b = 0; b < kReduceBlocks; ++b) report.kinetic += h[b];
  if (!sampled_) {
    double sum = 0;
    for (int b = 0; b < kReduceBlocks; ++b) sum += h[kReduceBlocks + b];
    report.potential = -0.5 * sum;
    report.method = "exact pair sum on the GPU: float pairs, double sums";
  } else {
    // The sampled rows' terms: the sample mean times n, with the finite-population standard error
    // (as sim/diagnostics.cpp estimates on the CPU).
    const std::vector<double> terms = terms_.to_host(stream);
    const double s = static_cast<double>(terms.size()), n = static_cast<double>(n_);
    double mean = 0;
    for (double t : terms) mean += t;
    mean /= s;
    double variance = 0;
    for (double t : terms) variance += (t - mean) * (t - mean);
    variance /= s - 1;
    report.potential = -0.5 * n * mean;
    report.potential_error = 0.5 * n * std::sqrt(variance / s * (1.0 - s / n));
    report.sampled = true;
    report.method = "sampled above " + std::to_string(exact_limit_) + " bodies: " + std::to_string(terms.size()) +
                    " random rows against every body, on the GPU";
  }
  report.total = report.kinetic + report.potential;
  n_ = 0;  // done: the next measurement begins afresh
  return report;
}

double DeviceEnergy::progress() const {
  return rows_ ? static_cast<double>(next_row_) / static_cast<double>(rows_) : 0.0;
}

}  // namespace nbl
