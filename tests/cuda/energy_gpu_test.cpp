// The device's energy pass (cuda/energy_pass.hpp) against the CPU's double-precision energy
// (sim/diagnostics.hpp) on fresh random bodies every run (the seed is in the failure message): exact
// below the limit, sampled above it within its stated error, the same bits whether run in one go or
// in many small slices, and through both GPU backends (all-pairs in a layout other than float4). NaN
// never passes. Label gpu: each test skips without a CUDA device.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "cuda/allpairs/backend.hpp"
#include "cuda/barneshut/backend.hpp"
#include "cuda/buffer.hpp"
#include "cuda/device.hpp"
#include "cuda/device_bodies.hpp"
#include "cuda/energy_pass.hpp"
#include "sim/diagnostics.hpp"
#include "tests/fresh_seed.hpp"

namespace nbl {
namespace {

class EnergyGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!query_device(&why)) GTEST_SKIP() << "no GPU: " << why;
    seed_ = test::fresh_seed();
  }
  std::uint64_t seed_ = 0;
};

// A clumpy ball: a third of the bodies in a dense core, unequal masses, random velocities.
Bodies random_bodies(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), m(0.5, 1.5);
  std::normal_distribution<double> v(0.0, 0.3);
  Bodies b;
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    double x, y, z;
    do x = u(rng), y = u(rng), z = u(rng);
    while (x * x + y * y + z * z > 1.0);
    const double squeeze = i % 3 == 0 ? 0.1 : 1.0;
    b.x[i] = static_cast<float>(x * squeeze), b.y[i] = static_cast<float>(y * squeeze),
    b.z[i] = static_cast<float>(z * squeeze);
    b.vx[i] = static_cast<float>(v(rng)), b.vy[i] = static_cast<float>(v(rng)), b.vz[i] = static_cast<float>(v(rng));
    b.mass[i] = static_cast<float>(m(rng) / static_cast<double>(n));
  }
  return b;
}

struct Uploaded {
  DeviceBuffer<float4> pos, vel;
};
Uploaded upload(const Bodies& b, cudaStream_t stream) {
  Uploaded u;
  u.pos.resize(b.size());
  u.vel.resize(b.size());
  upload_float4_bodies(b, u.pos.data(), u.vel.data(), stream);
  return u;
}

double relative(double a, double b) { return std::abs(a - b) / std::abs(b); }

TEST_F(EnergyGpu, ExactPassMatchesTheDoubleSumOnTheCpu) {
  for (std::size_t n : {1u, 2u, 255u, 257u, 5000u}) {
    const Bodies b = random_bodies(n, seed_ + n);
    for (double eps : {0.0, 0.02}) {
      CudaStream stream;
      const Uploaded u = upload(b, stream.get());
      DeviceEnergy pass;
      pass.begin(u.pos.data(), u.vel.data(), n, eps, 1, stream.get());
      const EnergyReport gpu = pass.run_all(stream.get());
      const EnergyReport cpu = energy(b, eps, std::numeric_limits<std::size_t>::max());
      ASSERT_TRUE(std::isfinite(gpu.total)) << "seed " << seed_ << " n " << n;
      EXPECT_FALSE(gpu.sampled);
      EXPECT_LT(relative(gpu.kinetic, cpu.kinetic), 1e-12) << "seed " << seed_ << " n " << n;
      if (n > 1)
        EXPECT_LT(relative(gpu.potential, cpu.potential), 2e-6) << "seed " << seed_ << " n " << n << " eps " << eps;
      else EXPECT_EQ(gpu.potential, 0.0);
      EXPECT_NE(gpu.method.find("exact"), std::string::npos);
    }
  }
}

TEST_F(EnergyGpu, SlicesAcrossFramesGiveTheSameBitsAsOnePass) {
  const std::size_t n = 20000;
  const Bodies b = random_bodies(n, seed_);
  CudaStream stream;
  const Uploaded u = upload(b, stream.get());
  DeviceEnergy whole, sliced;
  whole.begin(u.pos.data(), u.vel.data(), n, 0.01, 1, stream.get());
  const EnergyReport one = whole.run_all(stream.get());
  sliced.begin(u.pos.data(), u.vel.data(), n, 0.01, 1, stream.get());
  std::optional<EnergyReport> many;
  int calls = 0;
  while (!(many = sliced.advance(0.001, stream.get()))) ASSERT_LT(++calls, 100000);
  EXPECT_GT(sliced.slices(), 5u);  // a tiny budget really did split the rows
  EXPECT_EQ(many->potential, one.potential);
  EXPECT_EQ(many->kinetic, one.kinetic);
}

TEST_F(EnergyGpu, AboveTheLimitASampleOfRowsStatesItsError) {
  const std::size_t n = 30000;
  const Bodies b = random_bodies(n, seed_);
  CudaStream stream;
  const Uploaded u = upload(b, stream.get());
  DeviceEnergy pass(/*exact_limit=*/1000, /*sample_rows=*/4096);
  pass.begin(u.pos.data(), u.vel.data(), n, 0.01, seed_, stream.get());
  const EnergyReport gpu = pass.run_all(stream.get());
  const EnergyReport cpu = energy(b, 0.01, std::numeric_limits<std::size_t>::max());
  ASSERT_TRUE(gpu.sampled);
  ASSERT_GT(gpu.potential_error, 0.0);
  EXPECT_LT(gpu.potential_error, 0.05 * std::abs(cpu.potential));
  // Within five standard errors (a false alarm about once in 1.7 million runs).
  EXPECT_LT(std::abs(gpu.potential - cpu.potential), 5 * gpu.potential_error) << "seed " << seed_;
  EXPECT_NE(gpu.method.find("sampled"), std::string::npos);
}

TEST_F(EnergyGpu, ANonFiniteBodyNeverPasses) {
  Bodies b = random_bodies(1000, seed_);
  b.x[17] = std::numeric_limits<float>::quiet_NaN();
  CudaStream stream;
  const Uploaded u = upload(b, stream.get());
  DeviceEnergy pass;
  pass.begin(u.pos.data(), u.vel.data(), b.size(), 0.01, 1, stream.get());
  EXPECT_FALSE(std::isfinite(pass.run_all(stream.get()).total));
}

TEST_F(EnergyGpu, BothBackendsMeasureTheirOwnStateOnTheDevice) {
  const std::size_t n = 3000;
  const Bodies b = random_bodies(n, seed_);
  const EnergyReport cpu = energy(b, 0.02, std::numeric_limits<std::size_t>::max());
  Settings s;
  s.backend = BackendKind::gpu;
  s.softening = 0.02;
  s.dt = 1e-3;
  s.algorithm = Algorithm::allpairs;
  s.toggles.set({"layout", "soa"});  // not float4: the pass gets a converted copy
  AllPairsBackend allpairs(s);
  s.algorithm = Algorithm::barneshut;
  BarnesHutBackend barneshut(s);
  for (Backend* backend : {static_cast<Backend*>(&allpairs), static_cast<Backend*>(&barneshut)}) {
    backend->set_bodies(b);
    ASSERT_TRUE(backend->begin_energy(1));
    std::optional<EnergyReport> r;
    while (!(r = backend->advance_energy(0.05))) {
    }
    EXPECT_LT(relative(r->potential, cpu.potential), 2e-6) << backend->name() << " seed " << seed_;
    EXPECT_LT(relative(r->kinetic, cpu.kinetic), 1e-12) << backend->name();
    EXPECT_DOUBLE_EQ(backend->energy_progress(), 1.0);
  }
}

}  // namespace
}  // namespace nbl
