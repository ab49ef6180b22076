// The GPU all-pairs backend against the CPU double-precision reference, on fresh random inputs every
// run (the seed is in the failure message): every ladder rung and every toggle value, for n that are
// 1, below one block, not a multiple of a block or tile, and 65536 for the best variant. Outputs are
// poisoned (0xff: NaN) before every force pass, so an element the kernel forgets to write fails.
// Also: the step against the CPU backend's, the vertex buffer, blow-up detection, layout switches,
// timing, and hot reload on the device. Label gpu: each test skips without a CUDA device.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>
#include <random>
#include <thread>

#include "cuda/allpairs/backend.hpp"
#include "cuda/buffer.hpp"
#include "cuda/clock_probe.hpp"
#include "cuda/device.hpp"
#include "kernel_test_support.hpp"
#include "tests/cuda/sliced_steps.hpp"
#include "sim/cpu_backends.hpp"
#include "sim/accuracy.hpp"
#include "sim/diagnostics.hpp"
#include "sim/ladder.hpp"
#include "sim/render_vertices.hpp"
#include "tests/fresh_seed.hpp"

namespace nbl {
namespace {

class AllPairsGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!query_device(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
  static std::shared_ptr<KernelEngine> engine() { return test::this_gpu_engine(); }
};

using test::fresh_seed;

// Bodies in a unit ball with a denser core, unequal masses, random velocities.
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
    const double squeeze = i % 3 == 0 ? 0.2 : 1.0;  // a third of them in a core
    b.x[i] = static_cast<float>(x * squeeze), b.y[i] = static_cast<float>(y * squeeze),
    b.z[i] = static_cast<float>(z * squeeze);
    b.vx[i] = static_cast<float>(v(rng)), b.vy[i] = static_cast<float>(v(rng)), b.vz[i] = static_cast<float>(v(rng));
    b.mass[i] = static_cast<float>(m(rng) / static_cast<double>(n));
  }
  return b;
}

Settings settings_for(const ToggleValues& toggles, double softening = 0.05) {
  Settings s;
  s.algorithm = Algorithm::allpairs;
  s.backend = BackendKind::gpu;
  s.softening = softening;
  s.dt = 1e-3;
  s.toggles = toggles;
  return s;
}

std::string describe(const ForceError& e) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "rms %.3g, max %.3g, norm %.3g%s", e.rms, e.max, e.relative_norm,
                e.non_finite ? " (NaN/inf!)" : "");
  return buf;
}

// Poisons the outputs, computes the forces and compares them with the double direct sum on `sample`
// bodies (all when 0). Single bodies feel no force: theirs must be exactly zero.
void expect_matches_reference(AllPairsBackend& backend, const Bodies& bodies, double softening,
                              std::size_t sample = 0) {
  backend.poison_outputs();
  Accelerations a;
  backend.compute_accelerations(a);
  ASSERT_EQ(a.size(), bodies.size());
  if (bodies.size() == 1) {
    EXPECT_EQ(a.x[0], 0.0);
    EXPECT_EQ(a.y[0], 0.0);
    EXPECT_EQ(a.z[0], 0.0);
    return;
  }
  const auto indices = sample_indices(bodies.size(), sample ? sample : bodies.size(), 3);
  const ForceError e = force_error(select(a, indices), reference_accelerations(bodies, softening, indices));
  // The bounds every build is held to (sim/accuracy.hpp), the same the lab's build check uses.
  const ForceErrorBound bound = force_error_bound(Algorithm::allpairs, backend.variant().fp64, 0.0);
  EXPECT_FALSE(e.non_finite) << backend.variant().description;
  EXPECT_LE(e.p99, bound.p99) << backend.variant().description << ": " << describe(e);
  EXPECT_LE(e.max, bound.max) << backend.variant().description << ": " << describe(e);
}

// Compiles the variants in parallel first (NVRTC is the slow part), then checks each on the GPU.
void check_variants(const std::shared_ptr<KernelEngine>& engine, const std::vector<ToggleValues>& combos,
                    const std::vector<std::size_t>& sizes, double softening) {
  std::vector<KernelSource> sources;
  for (const auto& t : combos) sources.push_back(select_allpairs_variant(t, softening).source);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < std::max(2u, std::thread::hardware_concurrency()); ++k)
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < sources.size(); i = next++) {
        try {
          engine->compile(sources[i]);
        } catch (...) {  // reported below, where the backend compiles it again
        }
      }
    });
  for (auto& th : pool) th.join();

  for (std::size_t n : sizes) {
    const std::uint64_t seed = fresh_seed();
    SCOPED_TRACE("n = " + std::to_string(n) + ", seed " + std::to_string(seed));
    const Bodies bodies = random_bodies(n, seed);
    AllPairsBackend backend(settings_for(combos.front(), softening), engine);
    backend.set_bodies(bodies);
    for (const auto& t : combos) {
      backend.configure(settings_for(t, softening));
      expect_matches_reference(backend, bodies, softening);
    }
  }
}

TEST_F(AllPairsGpu, EveryLadderRungMatchesTheReference) {
  std::vector<ToggleValues> rungs;
  for (std::size_t r = 0; r < kLadder.size(); ++r) rungs.push_back(ladder_toggles(r));
  check_variants(engine(), rungs, {1, 7, 31, 1000, 4099}, 0.05);
}

TEST_F(AllPairsGpu, EveryToggleValueMatchesTheReference) {
  check_variants(engine(), allpairs_check_combinations(false), {1, 7, 31, 1000, 4099}, 0.05);
}

TEST_F(AllPairsGpu, EveryUnrollFactorAndBlockSizeMatchesTheReference) {
  std::vector<ToggleValues> combos;
  for (const ToggleDef* def :
       {&ToggleId("unroll").def(), &ToggleId("block_size").def(), &ToggleId("bodies_per_thread").def()})
    for (int v = def->min_value; v <= def->max_value; v += def->step) {
      ToggleValues t;
      t.values[static_cast<std::size_t>(def - kToggles.data())] = v;
      combos.push_back(t);
    }
  check_variants(engine(), combos, {31, 1000}, 0.05);
}

TEST_F(AllPairsGpu, WithoutSofteningTheBranchKeepsEveryForceFinite) {
  ToggleValues t;  // asks for the softening trick, which cannot work at zero softening
  check_variants(engine(), {t}, {7, 1000}, 0.0);
  AllPairsBackend backend(settings_for(t, 0.0), engine());
  EXPECT_EQ(backend.variant().toggles["self_interaction"], 0);
}

TEST_F(AllPairsGpu, BestVariantMatchesTheReferenceAt65536Bodies) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies bodies = random_bodies(65536, seed);
  for (int precision : {0, 1}) {
    ToggleValues t;
    t["precision"] = precision;
    AllPairsBackend backend(settings_for(t), engine());
    backend.set_bodies(bodies);
    EXPECT_GT(backend.launch().j_splits, 1) << "65536 bodies should split the sources over more blocks";
    expect_matches_reference(backend, bodies, 0.05, 2048);
  }
}

TEST_F(AllPairsGpu, StepMatchesTheCpuBackendsStep) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies start = random_bodies(1000, seed);
  for (int precision : {0, 1}) {
    ToggleValues t;
    t["precision"] = precision;
    const Settings s = settings_for(t);
    AllPairsBackend gpu(s, engine());
    auto cpu = make_cpu_allpairs(s, CpuPrecision::double_accumulate);
    cpu->configure(s);
    gpu.set_bodies(start);
    cpu->set_bodies(start);
    for (int step = 0; step < 10; ++step) {
      const StepStats stats = gpu.step();
      cpu->step();
      EXPECT_FALSE(stats.non_finite);
      EXPECT_DOUBLE_EQ(stats.interactions, 1000.0 * 1000.0);
      EXPECT_GT(stats.stage_ms("force"), 0.0);
    }
    Bodies a, b;
    gpu.get_bodies(a);
    cpu->get_bodies(b);
    double dx = 0, dv = 0, vmax = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      dx = std::max<double>({dx, std::fabs(a.x[i] - b.x[i]), std::fabs(a.y[i] - b.y[i]), std::fabs(a.z[i] - b.z[i])});
      dv = std::max<double>(
          {dv, std::fabs(a.vx[i] - b.vx[i]), std::fabs(a.vy[i] - b.vy[i]), std::fabs(a.vz[i] - b.vz[i])});
      vmax = std::max<double>({vmax, std::fabs(b.vx[i]), std::fabs(b.vy[i]), std::fabs(b.vz[i])});
      EXPECT_EQ(a.mass[i], b.mass[i]);
    }
    // Ten steps of float state: positions agree to float rounding, velocities to the force error.
    EXPECT_LE(dx, 1e-5) << "precision " << precision;
    EXPECT_LE(dv, 1e-4 * vmax) << "precision " << precision;
  }
}

// The lab's stepping thread splits a slow force pass into launches of whole blocks (StepControl,
// sim/backend.hpp; cuda/step_slices.hpp) so that the display draws between them: the state is the
// unsliced one, bit for bit, in every kernel family (one thread, global memory, shared tiles, shuffles)
// and with several bodies per thread; and an abandoned step leaves the state as it was.
TEST_F(AllPairsGpu, SlicedStepsAreBitIdenticalAndAnAbandonedOneChangesNothing) {
  const std::uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Bodies start = random_bodies(5000, seed);
  std::vector<ToggleValues> variants(5);
  variants[0]["parallelism"] = 0;  // one GPU thread
  variants[1]["tiling"] = 0;       // global memory
  variants[2]["bodies_per_thread"] = 1;
  variants[4]["params"] = 0;  // kernel arguments (the default, constant memory, is rewritten for every slice)
  for (const ToggleValues& t : variants) {
    SCOPED_TRACE(toggle_changes(ToggleValues{}, t, Algorithm::allpairs));
    const Settings s = settings_for(t);
    AllPairsBackend whole(s, engine()), sliced(s, engine());
    test::expect_sliced_steps_match_whole_ones(whole, sliced, start, /*same_interactions=*/false);
  }
}

TEST_F(AllPairsGpu, VertexBufferHoldsPositionsMassesAndColourKeys) {
  const Bodies bodies = random_bodies(777, fresh_seed());
  AllPairsBackend backend(settings_for(ToggleValues{}), engine());
  backend.set_bodies(bodies);
  const std::size_t n = bodies.size();
  for (ColorMode mode : {ColorMode::speed, ColorMode::acceleration, ColorMode::mass, ColorMode::body_index,
                         ColorMode::warp_id, ColorMode::tree_depth}) {
    SCOPED_TRACE(std::string(to_string(mode)));
    std::vector<float> host(vertex_buffer_bytes(n) / sizeof(float), std::nanf(""));
    backend.write_vertices({host.data(), false}, mode);
    const float* key = host.data() + vertex_color_key_offset(n) / sizeof(float);
    float mass_max = 0;
    for (float m : bodies.mass) mass_max = std::max(mass_max, m);
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(host[4 * i + 0], bodies.x[i]);
      ASSERT_EQ(host[4 * i + 1], bodies.y[i]);
      ASSERT_EQ(host[4 * i + 2], bodies.z[i]);
      ASSERT_EQ(host[4 * i + 3], bodies.mass[i]);
      ASSERT_GE(key[i], 0.0f);
      ASSERT_LE(key[i], 1.0f);
      if (mode == ColorMode::body_index) {
        ASSERT_FLOAT_EQ(key[i], static_cast<float>(i) / static_cast<float>(n - 1));
      }
      if (mode == ColorMode::mass) {
        ASSERT_FLOAT_EQ(key[i], bodies.mass[i] / mass_max);
      }
    }
    // The device path (a mapped GL buffer in the program) writes the same bytes.
    DeviceBuffer<float> device(host.size());
    device.fill_bytes(0xff);
    backend.write_vertices({device.data(), true}, mode);  // stream-ordered on the backend's stream
    NBL_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(backend.cuda_stream())));
    EXPECT_EQ(device.to_host(), host);
  }
}

TEST_F(AllPairsGpu, NonFiniteStateIsReported) {
  Bodies bodies = random_bodies(100, fresh_seed());
  AllPairsBackend backend(settings_for(ToggleValues{}), engine());
  backend.set_bodies(bodies);
  EXPECT_FALSE(backend.step().non_finite);
  bodies.vx[42] = std::numeric_limits<float>::infinity();
  backend.set_bodies(bodies);
  const StepStats stats = backend.step();
  EXPECT_TRUE(stats.non_finite);
  EXPECT_FALSE(stats.notices.empty());
  backend.set_bodies(random_bodies(100, 1));  // a fresh, finite state: the flag was cleared once reported
  EXPECT_FALSE(backend.step().non_finite);
}

TEST_F(AllPairsGpu, LayoutAndPrecisionSwitchesKeepTheBodies) {
  const Bodies bodies = random_bodies(333, fresh_seed());
  AllPairsBackend backend(settings_for(ToggleValues{}), engine());
  backend.set_bodies(bodies);
  for (int layout : {0, 1, 2, 0}) {
    for (int precision : {1, 0}) {
      ToggleValues t;
      t["layout"] = layout;
      t["precision"] = precision;
      backend.configure(settings_for(t));
      Bodies back;
      backend.get_bodies(back);
      EXPECT_EQ(back.x, bodies.x);
      EXPECT_EQ(back.vz, bodies.vz);
      EXPECT_EQ(back.mass, bodies.mass);
      expect_matches_reference(backend, bodies, 0.05);
    }
  }
}

TEST_F(AllPairsGpu, TimingAndKernelReportAreFilledIn) {
  const Bodies bodies = random_bodies(4096, fresh_seed());
  AllPairsBackend backend(settings_for(ToggleValues{}), engine());
  backend.set_bodies(bodies);
  const auto t = backend.time_force(1, 3);
  EXPECT_EQ(t.ms.size(), 3u);
  EXPECT_GT(t.median_ms, 0.0);
  EXPECT_EQ(t.i_count, 4096u);
  const auto sample = backend.time_force(0, 1, 100);
  EXPECT_EQ(sample.i_count, 100u);
  const auto info = backend.kernel_info();
  ASSERT_FALSE(info.empty());
  EXPECT_EQ(info[0].name, "allpairs_force");
  EXPECT_GT(info[0].registers, 0);
  EXPECT_FALSE(info[0].reload_failed);
  const ClockMeasurement clock = measure_sm_clock(0.1);
  EXPECT_GT(clock.sm_clock_mhz, 100.0);
  EXPECT_LT(clock.sm_clock_mhz, 1.2 * clock.reported_max_mhz + 100);
}

TEST_F(AllPairsGpu, HotReloadSwapsInAValidatedEditAndKeepsTheOldBuildOtherwise) {
  test::ScratchDir dir("nbl-gpu-reload");
  auto copy = test::engine_on_copy(dir.path() / "kernels", "");
  const auto file = dir.path() / "kernels" / "allpairs_shared.cu";
  auto rewrite = [&](const std::string& from, const std::string& to) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find(from);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(file, std::ios::trunc) << text;
  };
  const Bodies bodies = random_bodies(1000, fresh_seed());
  AllPairsBackend backend(settings_for(ToggleValues{}), copy);
  backend.set_bodies(bodies);
  backend.step();

  // 1. Does not compile: the old build runs on, the log is exposed.
  rewrite("__syncthreads();  // everyone is done with it before it is overwritten", "__syncthreads()  // broken");
  EXPECT_FALSE(backend.poll_reload(true));
  auto info = backend.kernel_info();
  EXPECT_TRUE(info[0].reload_failed);
  EXPECT_NE(info[0].compile_log.find("error"), std::string::npos);
  EXPECT_FALSE(backend.step().notices.empty());
  Bodies now;
  backend.get_bodies(now);
  expect_matches_reference(backend, now, 0.05);

  // 2. Compiles but computes the wrong forces: rejected by the validation.
  rewrite("__syncthreads()  // broken", "__syncthreads();  // ok");
  rewrite("interact_run(t, from_tile, start, kBlockSize, p.eps2);",
          "interact_run(t, from_tile, start, kBlockSize, p.eps2);\n    interact_run(t, from_tile, start, kBlockSize, "
          "p.eps2);");
  EXPECT_FALSE(backend.poll_reload(true));
  info = backend.kernel_info();
  EXPECT_TRUE(info[0].reload_failed);
  EXPECT_NE(info[0].compile_log.find("refused"), std::string::npos) << info[0].compile_log;
  expect_matches_reference(backend, now, 0.05);  // the old build again

  // 3. A harmless edit: validated and swapped in.
  rewrite("\n    interact_run(t, from_tile, start, kBlockSize, p.eps2);", "  // edited while running");
  EXPECT_TRUE(backend.poll_reload(true));
  EXPECT_FALSE(backend.kernel_info()[0].reload_failed);
  expect_matches_reference(backend, now, 0.05);
  EXPECT_FALSE(backend.step().non_finite);
}

// Polls an asynchronous switch between steps (the lab's frame loop in miniature); at most a minute.
std::optional<ConfigureOutcome> step_until_swapped(Backend& backend, int& steps) {
  for (int i = 0; i < 6000; ++i) {
    if (auto outcome = backend.poll_configure()) return outcome;
    EXPECT_FALSE(backend.step().non_finite);
    ++steps;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

TEST_F(AllPairsGpu, AnAsynchronousSwitchBuildsBesideTheRunningVariantAndSwapsBetweenSteps) {
  const Bodies bodies = random_bodies(4096, fresh_seed());
  AllPairsBackend backend(settings_for(ToggleValues{}), engine());
  backend.set_bodies(bodies);
  const std::string before = backend.variant().description;
  ToggleValues t;
  t["unroll"] = 7;           // a variant nobody compiled yet in this process
  t.set({"layout", "soa"});  // and a layout switch: the bodies are converted on the device
  ASSERT_FALSE(backend.configure_async(settings_for(t)));
  EXPECT_EQ(backend.variant().description, before);  // the running variant is untouched meanwhile
  EXPECT_FALSE(backend.builds().empty());
  int steps = 0;
  const auto outcome = step_until_swapped(backend, steps);
  ASSERT_TRUE(outcome);
  EXPECT_TRUE(outcome->accepted) << outcome->message;
  EXPECT_NE(backend.variant().description, before);
  EXPECT_EQ(backend.variant().layout, BodyLayout::soa);
  Bodies now;
  backend.get_bodies(now);
  expect_matches_reference(backend, now, 0.05);
  // Back to what runs: applies at once, nothing to build.
  EXPECT_TRUE(backend.configure_async(settings_for(t)));
}

TEST_F(AllPairsGpu, ARefusedAsynchronousSwitchLeavesTheRunningVariant) {
  test::ScratchDir dir("nbl-gpu-async");
  auto copy = test::engine_on_copy(dir.path() / "kernels", "");
  {  // the untiled kernel counts every interaction twice; the running (tiled) one is fine
    const auto file = dir.path() / "kernels" / "allpairs_global.cu";
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto at = text.find("interact_run(");
    ASSERT_NE(at, std::string::npos);
    std::size_t end = at;  // the call's closing parenthesis: the lambda inside has its own
    for (int depth = 0; end < text.size(); ++end) {
      if (text[end] == '(') ++depth;
      if (text[end] == ')' && --depth == 0) break;
    }
    ASSERT_LT(end + 1, text.size());
    ASSERT_EQ(text[end + 1], ';');
    const std::string call = text.substr(at, end + 2 - at);  // the whole statement, over however many lines
    text.replace(at, call.size(), call + "\n  " + call);
    std::ofstream(file, std::ios::trunc) << text;
  }
  const Bodies bodies = random_bodies(2048, fresh_seed());
  AllPairsBackend backend(settings_for(ToggleValues{}), copy);
  backend.set_bodies(bodies);
  const std::string before = backend.variant().description;
  const std::size_t idle_before = idle_modules();
  ToggleValues t;
  t.set({"tiling", "none"});
  ASSERT_FALSE(backend.configure_async(settings_for(t)));
  int steps = 0;
  const auto outcome = step_until_swapped(backend, steps);
  ASSERT_TRUE(outcome);
  EXPECT_FALSE(outcome->accepted);
  EXPECT_NE(outcome->message.find("refused"), std::string::npos) << outcome->message;
  // The refused build's module went back to the idle pool: unloading it would have waited for every
  // kernel on the GPU, the running variant's steps with them. (A full pool would evict one for it.)
  if (idle_before < kIdleModules) {
    EXPECT_GT(idle_modules(), idle_before);
  }
  EXPECT_EQ(backend.variant().description, before);
  Bodies now;
  backend.get_bodies(now);
  expect_matches_reference(backend, now, 0.05);
}

TEST_F(AllPairsGpu, AbComparesTwoVariantsOnTheSameStateWithoutMovingIt) {
  const Bodies bodies = random_bodies(8192, fresh_seed());
  AllPairsBackend backend(settings_for(ToggleValues{}), engine());
  backend.set_bodies(bodies);
  ToggleValues b;
  b.set({"precision", "fp64"});  // fp32 against fp64: the difference is fp32's rounding
  b.set({"layout", "soa"});
  backend.set_comparison(settings_for(b));
  std::optional<ComparisonSample> sample;
  for (int i = 0; i < 6000 && !sample; ++i) {  // at most a minute
    backend.step();
    sample = backend.compare();
    if (!sample) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(sample) << "B was never built";
  EXPECT_TRUE(backend.comparison_ready());
  ASSERT_EQ(sample->a.size(), 1u);
  ASSERT_EQ(sample->b.size(), 1u);
  EXPECT_EQ(sample->b[0].name, "force");
  EXPECT_GT(sample->b[0].ms, sample->a[0].ms) << "fp64 costs more than fp32 on every GPU";
  EXPECT_FALSE(sample->non_finite);
  EXPECT_GT(sample->difference_relative_norm, 0.0);
  EXPECT_LT(sample->difference_relative_norm, 1e-5);
  EXPECT_LT(sample->difference_max, 1e-4);
  // B never moved the bodies: A's state is what A alone would have.
  Bodies now;
  backend.get_bodies(now);
  expect_matches_reference(backend, now, 0.05);
  // The same variant as B: the same forces.
  backend.set_comparison(settings_for(ToggleValues{}));
  std::optional<ComparisonSample> same;
  for (int i = 0; i < 6000 && !same; ++i) {
    backend.step();
    same = backend.compare();
    if (!same) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(same);
  EXPECT_EQ(same->difference_max, 0.0);
  backend.set_comparison(std::nullopt);
  EXPECT_FALSE(backend.comparison_ready());
}

}  // namespace
}  // namespace nbl
