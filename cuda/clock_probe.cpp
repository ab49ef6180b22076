#include "cuda/clock_probe.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <vector>

#include "cuda/buffer.hpp"
#include "cuda/device.hpp"
#include "cuda/engine/kernel_engine.hpp"

namespace nbl {

ClockMeasurement measure_sm_clock(double seconds) {
  std::string why;
  const auto device = query_device(&why);
  if (!device) throw Error("measuring the SM clock needs a GPU: " + why);
  auto engine = shared_kernel_engine();
  KernelModule module(engine->compile({"clock_probe.cu", {}, {}, "clock probe"}));
  const void* kernel = module.kernel("clock_probe");

  constexpr int kBlockSize = 256;
  int per_sm = 0;
  NBL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlockSize, 0));
  const int blocks = std::max(1, per_sm) * device->sm_count;  // one full wave: every block runs at once
  DeviceBuffer<long long> cycles(static_cast<std::size_t>(blocks)), nanoseconds(static_cast<std::size_t>(blocks));
  DeviceBuffer<float> sink(1);
  CudaStream stream;
  CudaEvent start, stop;

  long long* cycles_ptr = cycles.data();
  long long* nanoseconds_ptr = nanoseconds.data();
  float* sink_ptr = sink.data();
  auto run = [&](int iterations) {
    void* args[] = {&cycles_ptr, &nanoseconds_ptr, &sink_ptr, &iterations};
    start.record(stream.get());
    NBL_CUDA_CHECK(cudaLaunchKernel(kernel, dim3(blocks), dim3(kBlockSize), args, 0, stream.get()));
    NBL_CUDA_CHECK(cudaGetLastError());
    stop.record(stream.get());
    return static_cast<double>(stop.ms_since(start)) * 1e-3;
  };

  // Calibrate the iteration count for the requested duration, warm up at that length, then measure.
  int iterations = 1000;
  double t = run(iterations);
  while (t < 0.02 && iterations < (1 << 28)) t = run(iterations *= 4);
  iterations = static_cast<int>(std::min(2e9, iterations * std::max(1.0, seconds / t)));
  run(iterations);
  ClockMeasurement m;
  m.seconds = run(iterations);
  m.blocks = blocks;
  const std::vector<long long> c = cycles.to_host(stream.get()), ns = nanoseconds.to_host(stream.get());
  std::vector<double> mhz;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (ns[i] > 0) mhz.push_back(static_cast<double>(c[i]) / static_cast<double>(ns[i]) * 1e3);
  if (mhz.empty()) throw Error("the clock probe measured no time (the GPU's global timer did not advance)");
  std::sort(mhz.begin(), mhz.end());
  m.sm_clock_mhz = mhz[mhz.size() / 2];
  m.reported_max_mhz = device->clock_mhz;
  return m;
}

}  // namespace nbl
