// Swaps without a stalled frame: a build swapped in has every kernel loaded into the context
// before its first launch, and the swap frame's work (the swap itself, the first step of the new kernels,
// their first vertex write) waits for no other work on the GPU. The second is checked with a gate: a
// kernel on a stream of its own that spins until the host opens it. Anything on the swap path that
// synchronizes the whole device (freeing memory, unloading the old module, loading a kernel lazily at
// its first launch) would wait for the gate; a watchdog opens it after a while, so a failing test ends
// and names the first phase that waited. Label gpu: each test skips without a device.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include "cuda/allpairs/backend.hpp"
#include "cuda/barneshut/backend.hpp"
#include "cuda/buffer.hpp"
#include "cuda/device.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "cuda/engine/kernel_loading.hpp"
#include "kernel_test_support.hpp"
#include "sim/render_vertices.hpp"
#include "sim/scenes.hpp"

namespace nbl {
namespace {

using namespace std::chrono_literals;

class SwapGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!query_device(&why)) GTEST_SKIP() << "no GPU: " << why;
  }
  static std::shared_ptr<KernelEngine> engine() { return test::this_gpu_engine(); }
};

Settings allpairs_settings(const ToggleValues& toggles) {
  Settings s;
  s.algorithm = Algorithm::allpairs;
  s.backend = BackendKind::gpu;
  s.softening = 0.05;
  s.dt = 1e-3;
  s.toggles = toggles;
  return s;
}

Settings barneshut_settings(const ToggleValues& toggles) {
  Settings s;
  s.algorithm = Algorithm::barneshut;
  s.backend = BackendKind::gpu;
  s.opening_angle = 0.5;
  s.softening = 0.01;
  s.dt = 1e-3;
  s.toggles = toggles;
  return s;
}

// Waits until the backend's requested build is ready to swap in, without taking it (a minute at most).
bool wait_until_ready(const Backend& backend) {
  for (int i = 0; i < 6000; ++i) {
    const auto builds = backend.builds();
    if (!builds.empty() && builds.back().state == BuildState::ready) return true;
    if (!builds.empty() && builds.back().state == BuildState::refused) {
      ADD_FAILURE() << "the build was refused: " << builds.back().detail;
      return false;
    }
    std::this_thread::sleep_for(10ms);
  }
  ADD_FAILURE() << "the build did not finish within a minute";
  return false;
}

// Compiles one small CUDA source of a test's own (no disk cache).
std::shared_ptr<const CompiledProgram> compile_scratch_program(const std::string& file, const std::string& text) {
  test::ScratchDir dir("nbl-swap-test");
  std::ofstream(dir.path() / file) << text;
  KernelEngine::Config c;
  c.kernels_dir = dir.path();
  c.include_dirs = {dir.path()};
  c.cache_dir = std::filesystem::path();
  KernelEngine engine(c);
  return engine.compile(KernelSource{file, {}, {}, file});
}

// A kernel on a stream of its own that spins until the host opens it, and a watchdog that opens it after
// `limit` when nobody did (then whatever waited for the device went on, and opened_by_watchdog() says so).
class GpuGate {
 public:
  explicit GpuGate(std::chrono::milliseconds limit) : limit_(limit) {
    module_.emplace(compile_scratch_program("gate.cu", R"(
extern "C" __global__ void nbl_test_gate(volatile int* state) {
  state[1] = 1;  // running
  __threadfence_system();
  while (state[0] == 0) __nanosleep(1000);
}
)"));
    state_.resize(2);
  }
  ~GpuGate() { open(); }
  GpuGate(const GpuGate&) = delete;
  GpuGate& operator=(const GpuGate&) = delete;

  // Closes the gate, launches the kernel and waits until it runs on the device (false: it never started).
  [[nodiscard]] bool close() {
    shared()[0] = 0;
    shared()[1] = 0;
    int* state = state_.data();
    void* args[] = {&state};
    NBL_CUDA_CHECK(cudaLaunchKernel(module_->kernel("nbl_test_gate"), dim3(1), dim3(1), args, 0, stream_.get()));
    for (int i = 0; i < 10000 && shared()[1] == 0; ++i) std::this_thread::sleep_for(1ms);
    if (shared()[1] != 1) {
      shared()[0] = 1;  // let it end whenever it starts
      return false;
    }
    {
      std::lock_guard lock(mutex_);
      opened_ = false;
      by_watchdog_ = false;
    }
    watchdog_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      if (!changed_.wait_for(lock, limit_, [this] { return opened_; })) {
        by_watchdog_ = true;
        opened_ = true;
        shared()[0] = 1;
      }
    });
    return true;
  }
  bool opened_by_watchdog() const {
    std::lock_guard lock(mutex_);
    return by_watchdog_;
  }
  // Opens it (if the watchdog did not), and waits for the kernel to end.
  void open() {
    {
      std::lock_guard lock(mutex_);
      opened_ = true;
      shared()[0] = 1;
    }
    changed_.notify_all();
    if (watchdog_.joinable()) watchdog_.join();
    stream_.synchronize();
  }

 private:
  volatile int* shared() { return state_.data(); }  // pinned: the device reads it through unified addressing

  std::chrono::milliseconds limit_;
  std::optional<KernelModule> module_;
  PinnedBuffer<int> state_;
  CudaStream stream_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool opened_ = true, by_watchdog_ = false;
  std::thread watchdog_;
};

// Runs the phases of a swap frame while the gate is closed; returns the first phase after which the
// watchdog had to open it ("" when none waited for the gate).
class SwapFrame {
 public:
  explicit SwapFrame(GpuGate& gate) : gate_(gate) {}
  template <class Phase>
  void run(const char* name, Phase&& phase) {
    std::forward<Phase>(phase)();
    if (first_waiting_.empty() && gate_.opened_by_watchdog()) first_waiting_ = name;
  }
  const std::string& first_waiting() const { return first_waiting_; }

 private:
  GpuGate& gate_;
  std::string first_waiting_;
};

constexpr auto kWatchdog = 5s;  // far beyond a swap frame, short enough for a failing test

TEST_F(SwapGpu, TheGateCatchesADeviceWideSynchronization) {
  // The method's own check: a device synchronization on this thread must wait for the gate kernel.
  GpuGate gate(1500ms);
  ASSERT_TRUE(gate.close()) << "the gate kernel did not start within 10 s";
  SwapFrame frame(gate);
  frame.run("cudaDeviceSynchronize", [] { NBL_CUDA_CHECK(cudaDeviceSynchronize()); });
  gate.open();
  EXPECT_EQ(frame.first_waiting(), "cudaDeviceSynchronize")
      << "the gate kernel did not hold a device synchronization back: the swap tests below prove nothing on this GPU";
}

// Which CUDA calls wait for other work on the GPU on this driver (the table goes to the log): each runs
// alone with the gate closed. The calls every step makes in the frame loop (launches on its own stream,
// copies into pinned memory, events, waiting for its own stream) must not, nor what a swap does in place
// of loading, unloading and freeing (pool blocks, idle modules); the others tell what a frame must not
// meet.
TEST_F(SwapGpu, WhichCallsWaitForOtherGpuWork) {
  const auto program = compile_scratch_program("probe.cu", R"(
__constant__ float nbl_probe_param[4];
extern "C" __global__ void nbl_probe(float* out) { out[threadIdx.x] = nbl_probe_param[threadIdx.x & 3] + 1.0f; }
extern "C" __global__ void nbl_probe_shared(float* out) {
  extern __shared__ float tile[];
  tile[threadIdx.x] = nbl_probe_param[threadIdx.x & 3];
  __syncthreads();
  out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}
)");
  const KernelModule running(program);
  CudaStream stream;
  DeviceBuffer<float> out(256);
  PinnedBuffer<float> pinned;
  pinned.resize(256);
  const std::vector<unsigned char> param(4 * sizeof(float), 0);
  auto launch = [&](const KernelModule& m, const char* name, std::size_t shared) {
    float* p = out.data();
    void* args[] = {&p};
    NBL_CUDA_CHECK(cudaLaunchKernel(m.kernel(name), dim3(1), dim3(256), args, shared, stream.get()));
  };
  running.write_global("nbl_probe_param", param, stream.get());
  launch(running, "nbl_probe", 0);
  stream.synchronize();
  CudaEvent event;

  struct Probe {
    const char* call;
    bool every_step;  // the frame loop's steps make it
    std::function<void()> run;
  };
  std::optional<KernelModule> fresh_a, fresh_b, fresh_c, fresh_d;
  void* allocated = nullptr;
  void* host_allocated = nullptr;
  void* pool_block = nullptr;
  std::shared_ptr<KernelModule> reused;
  const KernelModule* let_go = nullptr;
  {
    auto module = own_module(program);
    let_go = module.get();
    const IdleRelease idle;
    module.reset();
  }
  constexpr std::size_t kShared = 64 * 1024;
  const std::vector<Probe> probes = {
      {"kernel launch + wait for its stream", true,
       [&] {
         launch(running, "nbl_probe", 0);
         stream.synchronize();
       }},
      {"cudaMemcpyAsync device to pinned host + wait for its stream", true,
       [&] {
         NBL_CUDA_CHECK(
             cudaMemcpyAsync(pinned.data(), out.data(), 256 * sizeof(float), cudaMemcpyDeviceToHost, stream.get()));
         stream.synchronize();
       }},
      {"event record + cudaEventSynchronize", true,
       [&] {
         event.record(stream.get());
         event.synchronize();
       }},
      {"cudaEventCreate", false, [&] { CudaEvent e; }},
      {"cudaStreamCreate (non-blocking)", false, [&] { CudaStream s; }},
      {"loading a module (every kernel)", false, [&] { fresh_a.emplace(program); }},
      {"first launch of a loaded module's kernel", false,
       [&] {
         launch(*fresh_b, "nbl_probe", 0);
         stream.synchronize();
       }},
      {"cudaLibraryGetGlobal on a loaded module", false, [&] { (void)fresh_c->global("nbl_probe_param"); }},
      {"cudaMemcpyAsync pageable host to __constant__", false,
       [&] {
         fresh_d->write_global("nbl_probe_param", param, stream.get());
         stream.synchronize();
       }},
      {"cudaFuncSetAttribute (64 KiB dynamic shared)", false,
       [&] {
         NBL_CUDA_CHECK(cudaFuncSetAttribute(running.kernel("nbl_probe_shared"),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kShared)));
       }},
      {"first launch with 64 KiB dynamic shared", false,
       [&] {
         launch(running, "nbl_probe_shared", kShared);
         stream.synchronize();
       }},
      {"cudaMalloc 1 MiB", false, [&] { NBL_CUDA_CHECK(cudaMalloc(&allocated, 1 << 20)); }},
      {"cudaFree", false, [&] { NBL_CUDA_CHECK(cudaFree(allocated)); }},
      {"cudaMallocHost 1 MiB", false, [&] { NBL_CUDA_CHECK(cudaMallocHost(&host_allocated, 1 << 20)); }},
      {"cudaFreeHost", false, [&] { NBL_CUDA_CHECK(cudaFreeHost(host_allocated)); }},
      // What the swap path relies on instead (cuda/buffer.hpp, own_module):
      {"device_allocate 1 MiB (the stream-ordered pool)", true, [&] { pool_block = device_allocate(1 << 20); }},
      {"device_release of it under IdleRelease", true,
       [&] {
         const IdleRelease idle;
         device_release(pool_block);
       }},
      {"a stream synchronize after a pool block's release", true, [&] { stream.synchronize(); }},
      {"own_module of a program whose module was let go under IdleRelease", true,
       [&] { reused = own_module(program); }},
  };
  fresh_b.emplace(program);
  fresh_c.emplace(program);
  fresh_d.emplace(program);
  std::printf("%-62s %s\n", "call (alone, the gate closed)", "waits for other GPU work");
  for (const Probe& probe : probes) {
    GpuGate gate(1000ms);
    ASSERT_TRUE(gate.close()) << "the gate kernel did not start within 10 s";
    probe.run();
    const bool waited = gate.opened_by_watchdog();
    gate.open();
    std::printf("%-62s %s\n", probe.call, waited ? "yes" : "no");
    if (probe.every_step) {
      EXPECT_FALSE(waited) << probe.call << " waited for other work on the GPU";
    }
  }
  EXPECT_EQ(reused.get(), let_go) << "own_module loaded the program again instead of taking the idle module";
  EXPECT_EQ(reused->unloaded_kernels().value_or(0), 0);
}

TEST_F(SwapGpu, ALazilyLoadedModuleIsObservableAndABuildsModuleIsFullyLoaded) {
  const auto program = engine()->compile(select_allpairs_variant(ToggleValues{}, 0.05).source);
  const KernelModule lazy(program, KernelModule::Loading::lazy);
  const std::optional<int> lazy_unloaded = lazy.unloaded_kernels();
  if (!lazy_unloaded) GTEST_SKIP() << "this driver cannot tell whether a kernel is loaded (cuFuncIsLoaded needs 12.4)";
  const std::optional<bool> lazy_mode = lazy_loading_enabled();
  if (lazy_mode.value_or(false) && *lazy_unloaded == 0)
    GTEST_SKIP()
        << "lazy loading is on, yet a fresh module reports every kernel loaded: this driver loads them when asked";
  const KernelModule loaded(program);
  EXPECT_EQ(loaded.unloaded_kernels(), 0) << "KernelModule must load every kernel before its first launch";
  EXPECT_EQ(loaded.loading().problem, "");
  std::printf(
      "default all-pairs module: %d of its %d kernels unloaded when left to lazy loading (lazy loading %s); "
      "largest local memory per thread %zu bytes\n",
      *lazy_unloaded, loaded.loading().kernels, lazy_mode ? (*lazy_mode ? "on" : "off") : "unknown",
      loaded.loading().max_local_bytes);
  if (lazy_mode.value_or(false)) {
    EXPECT_GT(*lazy_unloaded, 0) << "lazy loading is on, but nothing was left to load";
  }
}

// After one step of the running build, a build for `next` is requested, becomes ready and is swapped in:
// every one of its kernels is loaded before its first launch, and its first step runs.
template <class SomeBackend>
void expect_a_swapped_in_build_fully_loaded(SomeBackend& backend, const Settings& next) {
  backend.step();
  ASSERT_FALSE(backend.configure_async(next));
  ASSERT_TRUE(wait_until_ready(backend));
  const auto outcome = backend.poll_configure();
  ASSERT_TRUE(outcome && outcome->accepted) << (outcome ? outcome->message : "no outcome");
  const std::optional<int> unloaded = backend.unloaded_kernels();  // before any launch of the new build
  if (!unloaded) GTEST_SKIP() << "this driver cannot tell whether a kernel is loaded";
  EXPECT_EQ(*unloaded, 0);
  EXPECT_FALSE(backend.step().non_finite);
}

TEST_F(SwapGpu, AllPairsSwapsInABuildWithEveryKernelLoaded) {
  AllPairsBackend backend(allpairs_settings(ToggleValues{}), engine());
  backend.set_bodies(make_scene(Scene::plummer, 8192, 3));
  ToggleValues t;
  t["unroll"] = 27;
  expect_a_swapped_in_build_fully_loaded(backend, allpairs_settings(t));
}

TEST_F(SwapGpu, BarnesHutSwapsInABuildWithEveryKernelLoaded) {
  BarnesHutBackend backend(barneshut_settings(ToggleValues{}), BarnesHutBackend::Options{0, engine()});
  backend.set_bodies(make_scene(Scene::plummer, 16384, 3));
  ToggleValues t;
  t["bh_rsqrt"] = 0;
  expect_a_swapped_in_build_fully_loaded(backend, barneshut_settings(t));
}

// The swap frame of `backend` (a build for `next` requested, ready, then swapped in) with the gate
// closed: the swap, the first step, the first vertex write and the backend's stream finishing must not
// wait for it. `warm_up` steps run first (the cell pool settles, the running kernels are loaded).
void expect_a_swap_frame_without_device_synchronization(Backend& backend, const Settings& next, int warm_up) {
  for (int i = 0; i < warm_up; ++i) ASSERT_FALSE(backend.step().non_finite);
  DeviceBuffer<unsigned char> vertices(vertex_buffer_bytes(backend.body_count()));
  const VertexTarget target{vertices.data(), true};
  backend.write_vertices(target, ColorMode::speed);
  ASSERT_FALSE(backend.configure_async(next));
  ASSERT_TRUE(wait_until_ready(backend));
  NBL_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(backend.cuda_stream())));

  GpuGate gate(kWatchdog);
  ASSERT_TRUE(gate.close()) << "the gate kernel did not start within 10 s";
  SwapFrame frame(gate);
  std::optional<ConfigureOutcome> outcome;
  StepStats before, stats, after;
  // The control: a step of the running build, as every frame makes one.
  frame.run("a step before the swap", [&] { before = backend.step(); });
  frame.run("the swap (poll_configure)", [&] { outcome = backend.poll_configure(); });
  frame.run("the new build's first step", [&] { stats = backend.step(); });
  frame.run("its first vertex write", [&] { backend.write_vertices(target, ColorMode::speed); });
  frame.run("the new build's second step", [&] { after = backend.step(); });
  frame.run("the backend's stream finishing",
            [&] { NBL_CUDA_CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(backend.cuda_stream()))); });
  gate.open();
  ASSERT_TRUE(outcome && outcome->accepted) << (outcome ? outcome->message : "no outcome");
  EXPECT_FALSE(before.non_finite);
  EXPECT_FALSE(stats.non_finite);
  EXPECT_FALSE(after.non_finite);
  EXPECT_EQ(frame.first_waiting(), "")
      << "the swap frame waited for other work on the GPU (a device-wide synchronization) in: "
      << frame.first_waiting();
}

// ---- Who gets the next free room on the GPU ----
// A kernel whose blocks fill every SM many times over, each block busy for a fixed time, and a one-block
// probe launched right behind it on another stream that reads how many of the big kernel's blocks had
// ended when it started. Blocks of equal priority start in launch order, so the probe would start only
// when the big kernel's last blocks did; a probe of a higher priority starts at the first block's end.
class RoomOnTheGpu {
 public:
  RoomOnTheGpu() {
    module_.emplace(compile_scratch_program("room.cu", R"(
__device__ long long nbl_now() {
  long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
extern "C" __global__ void nbl_test_busy(unsigned* ended, long long ns) {
  const long long start = nbl_now();
  while (nbl_now() - start < ns) {
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(ended, 1u);
}
extern "C" __global__ void nbl_test_probe(const volatile unsigned* ended, unsigned* seen) { *seen = *ended; }
)"));
    counters_.resize(2);
  }

  // The share of the big kernel's blocks that had ended when the probe started.
  double share_ended_before_probe(const CudaStream& big, const CudaStream& probe, int sm_count) {
    NBL_CUDA_CHECK(cudaMemsetAsync(counters_.data(), 0, 2 * sizeof(unsigned), big.get()));
    big.synchronize();
    const unsigned blocks = static_cast<unsigned>(sm_count) * 16 * 40;  // 16 blocks of 128 fill an SM: 40 waves
    unsigned* ended = counters_.data();
    unsigned* seen = counters_.data() + 1;
    long long ns = 50'000;
    void* busy_args[] = {&ended, &ns};
    void* probe_args[] = {&ended, &seen};
    NBL_CUDA_CHECK(
        cudaLaunchKernel(module_->kernel("nbl_test_busy"), dim3(blocks), dim3(128), busy_args, 0, big.get()));
    NBL_CUDA_CHECK(cudaLaunchKernel(module_->kernel("nbl_test_probe"), dim3(1), dim3(1), probe_args, 0, probe.get()));
    big.synchronize();
    probe.synchronize();
    unsigned host[2] = {0, 0};
    NBL_CUDA_CHECK(cudaMemcpy(host, counters_.data(), sizeof host, cudaMemcpyDeviceToHost));
    EXPECT_EQ(host[0], blocks);
    return static_cast<double>(host[1]) / blocks;
  }

 private:
  std::optional<KernelModule> module_;
  DeviceBuffer<unsigned> counters_;
};

TEST_F(SwapGpu, StreamsRankBackgroundBelowTheStepsAndTheDisplayAboveThem) {
  const auto device = query_device();
  ASSERT_TRUE(device);
  using P = CudaStream::Priority;
  const int background = CudaStream::priority_value(P::background);
  const int normal = CudaStream::priority_value(P::normal);
  const int display = CudaStream::priority_value(P::display);
  if (!(display < normal && normal < background)) GTEST_SKIP() << "this GPU has fewer than three stream priorities";
  EXPECT_EQ(CudaStream().priority(), normal) << "a stream made without a place must rank above the background";

  RoomOnTheGpu room;
  CudaStream background_stream(P::background), steps, display_stream(P::display);
  const double display_waited = room.share_ended_before_probe(steps, display_stream, device->sm_count);
  EXPECT_LT(display_waited, 0.5) << "the display's kernel waited for a long launch of the steps' stream";
  const double steps_waited = room.share_ended_before_probe(background_stream, steps, device->sm_count);
  EXPECT_LT(steps_waited, 0.5) << "a step's kernel waited for background work";
  const double background_waited = room.share_ended_before_probe(steps, background_stream, device->sm_count);
  EXPECT_GT(background_waited, 0.9) << "background work took room the steps' kernel was waiting for";
}

TEST_F(SwapGpu, AnAllPairsSwapFrameWaitsForNoOtherGpuWork) {
  AllPairsBackend backend(allpairs_settings(ToggleValues{}), engine());
  backend.set_bodies(make_scene(Scene::plummer, 16384, 5));
  ToggleValues t;
  t["unroll"] = 29;  // the stall measurement's kind of switch: new code, same buffers
  expect_a_swap_frame_without_device_synchronization(backend, allpairs_settings(t), 3);
}

TEST_F(SwapGpu, AnAllPairsLayoutAndPrecisionSwitchWaitsForNoOtherGpuWork) {
  // New buffers for the new layout and precision are allocated on the swap frame (cudaMalloc); the
  // replaced ones are released on the teardown worker. A failure in "the swap" here means allocating
  // synchronizes on this driver: then they must be made on the build's worker too.
  AllPairsBackend backend(allpairs_settings(ToggleValues{}), engine());
  backend.set_bodies(make_scene(Scene::plummer, 16384, 7));
  ToggleValues t;
  t.set({"layout", "soa"});
  t.set({"precision", "fp64"});
  expect_a_swap_frame_without_device_synchronization(backend, allpairs_settings(t), 3);
}

TEST_F(SwapGpu, ABarnesHutSwapFrameWaitsForNoOtherGpuWork) {
  BarnesHutBackend backend(barneshut_settings(ToggleValues{}), BarnesHutBackend::Options{0, engine()});
  backend.set_bodies(make_scene(Scene::plummer, 65536, 5));
  ToggleValues t;
  t["bh_rsqrt"] = 0;  // the stall measurement's Barnes-Hut switch
  expect_a_swap_frame_without_device_synchronization(backend, barneshut_settings(t), 4);
}

}  // namespace
}  // namespace nbl
