// All-pairs on the CPU: every body against every body, OpenMP across bodies and SIMD along the inner
// loop (the CPU's counterpart of Burtscher's CUDA optimization tutorial, Part I). The float mode does what the fp32 GPU
// kernels do; the double-accumulate mode is the reference the GPU kernels are held to.
#include <memory>

#include "sim/cpu_backend_common.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/force_sums.hpp"

namespace nbl {

namespace {

// Accelerations of all n bodies, accumulated in T. With softening the self-term is exactly zero, so
// one loop covers every j (the tutorial, Part I: "Eliminating the if statement"); without it the loop
// splits around i, as the tutorial's "two loops" step does. Bodies go to the threads in chunks as they
// ask: where the lab's display shares the cores (a software renderer), a thread it holds back leaves its
// bodies to the others instead of making the whole pass wait for it.
template <typename T>
void all_pairs(const T* x, const T* y, const T* z, const T* mass, std::size_t n, T eps2, float* out_x, float* out_y,
               float* out_z, std::size_t begin, std::size_t end) {
#pragma omp parallel for schedule(dynamic, 64)
  for (std::size_t i = begin; i < end; ++i) {
    T ax = 0, ay = 0, az = 0;
    if (eps2 > 0) {
      sum_accelerations(x, y, z, mass, 0, n, x[i], y[i], z[i], eps2, ax, ay, az);
    } else {
      sum_accelerations(x, y, z, mass, 0, i, x[i], y[i], z[i], eps2, ax, ay, az);
      sum_accelerations(x, y, z, mass, i + 1, n, x[i], y[i], z[i], eps2, ax, ay, az);
    }
    out_x[i] = static_cast<float>(ax);
    out_y[i] = static_cast<float>(ay);
    out_z[i] = static_cast<float>(az);
  }
}

class CpuAllPairs final : public CpuBackendBase {
 public:
  explicit CpuAllPairs(CpuPrecision precision) : precision_(precision) {}

  std::string name() const override {
    return "all-pairs, CPU (" + cpu_thread_description() + ", " +
           (precision_ == CpuPrecision::float32 ? "float" : "double accumulate") + ")";
  }
  Algorithm algorithm() const override { return Algorithm::allpairs; }

 protected:
  void compute_forces(StepStats& stats) override {
    const StageClock clock;
    const std::size_t n = bodies_.size();
    const double eps2 = softening_ * softening_;
    if (precision_ == CpuPrecision::float32) {
      force_abandoned_ = !for_slices(n, stats, [&](std::size_t begin, std::size_t end) {
        all_pairs<float>(bodies_.x.data(), bodies_.y.data(), bodies_.z.data(), bodies_.mass.data(), n,
                         static_cast<float>(eps2), accel_x_.data(), accel_y_.data(), accel_z_.data(), begin, end);
      });
    } else {
      // Widened once per evaluation so the O(n^2) loop runs entirely in double.
      wide_x_.assign(bodies_.x.begin(), bodies_.x.end());
      wide_y_.assign(bodies_.y.begin(), bodies_.y.end());
      wide_z_.assign(bodies_.z.begin(), bodies_.z.end());
      wide_mass_.assign(bodies_.mass.begin(), bodies_.mass.end());
      force_abandoned_ = !for_slices(n, stats, [&](std::size_t begin, std::size_t end) {
        all_pairs<double>(wide_x_.data(), wide_y_.data(), wide_z_.data(), wide_mass_.data(), n, eps2, accel_x_.data(),
                          accel_y_.data(), accel_z_.data(), begin, end);
      });
    }
    const double count = static_cast<double>(n);
    stats.interactions += eps2 > 0 ? count * count : count * (count - 1);
    add_stage_time(stats, stage_name(Stage::force), clock.elapsed_ms());
  }

 private:
  CpuPrecision precision_;
  std::vector<double> wide_x_, wide_y_, wide_z_, wide_mass_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_allpairs(const Settings& settings, CpuPrecision precision) {
  auto backend = std::make_unique<CpuAllPairs>(precision);
  backend->configure(settings);
  return backend;
}

}  // namespace nbl
