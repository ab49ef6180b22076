#include "cuda/allpairs_backend.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "cuda/buffer.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/kernel_engine.hpp"
#include "cuda/kernels/allpairs_params.h"
#include "cuda/stage_timer.hpp"
#include "sim/diagnostics.hpp"
#include "sim/render_vertices.hpp"
#include "sim/statistics.hpp"

namespace nbl {

namespace ap = allpairs;

static_assert(ap::kKeySpeed == static_cast<int>(ColorMode::speed) &&
                  ap::kKeyAcceleration == static_cast<int>(ColorMode::acceleration) &&
                  ap::kKeyMass == static_cast<int>(ColorMode::mass) &&
                  ap::kKeyBodyIndex == static_cast<int>(ColorMode::body_index) &&
                  ap::kKeyWarpId == static_cast<int>(ColorMode::warp_id) &&
                  ap::kKeyTreeDepth == static_cast<int>(ColorMode::tree_depth),
              "the kernels' colour key numbers must follow ColorMode");
static_assert(sizeof(nbl_float4) == 16 && sizeof(ap::BodyRecord) == 28);

namespace {

using ByteBuffer = DeviceBuffer<unsigned char>;

int blocks_for(std::size_t count, int block) {
  return static_cast<int>((std::max<std::size_t>(count, 1) + static_cast<std::size_t>(block) - 1) / block);
}

// Parameters for one layout and precision, as raw bytes (what __constant__ memory or the kernel
// argument receives). The struct comes from the same header the kernels include.
template <class BodiesT, class Real>
std::vector<unsigned char> pack_params(const BodiesT& bodies, void* const acc[3], void* const force[3], int* status,
                                       std::size_t n, std::size_t i_end, int j_slice, double eps2, double dt) {
  ap::Params<BodiesT, Real> p{};
  p.bodies = bodies;
  p.ax = static_cast<Real*>(acc[0]);
  p.ay = static_cast<Real*>(acc[1]);
  p.az = static_cast<Real*>(acc[2]);
  p.force_x = static_cast<Real*>(force[0]);
  p.force_y = static_cast<Real*>(force[1]);
  p.force_z = static_cast<Real*>(force[2]);
  p.status = status;
  p.n = static_cast<int>(n);
  p.i_end = static_cast<int>(i_end);
  p.j_slice = j_slice;
  p.eps2 = static_cast<Real>(eps2);
  p.dt = static_cast<float>(dt);
  p.half_dt = static_cast<float>(0.5 * dt);
  std::vector<unsigned char> bytes(sizeof p);
  std::memcpy(bytes.data(), &p, sizeof p);
  return bytes;
}

}  // namespace

struct AllPairsBackend::Impl {
  std::shared_ptr<KernelEngine> engine;
  DeviceInfo device;
  CudaStream stream;
  StageTimer timer;

  AllPairsVariant variant;
  std::unique_ptr<WatchedProgram> watched;
  std::shared_ptr<KernelModule> module;
  std::map<std::string, std::shared_ptr<KernelModule>> modules;  // loaded variants, by cache key
  int blocks_per_sm = 1;
  bool reported_reload_failure = false;

  // The bodies, in the layout `layout` (the running variant's).
  std::size_t n = 0;
  BodyLayout layout = BodyLayout::float4;
  DeviceBuffer<ap::BodyRecord> aos;
  DeviceBuffer<float> soa[7];  // x, y, z, mass, vx, vy, vz
  DeviceBuffer<nbl_float4> pos_mass, vel;
  std::size_t real_bytes = 4;  // accelerations in float or double
  ByteBuffer acc[3], partial[3];
  DeviceBuffer<int> status;
  PinnedBuffer<int> status_host;
  DeviceBuffer<float> vertex_staging;
  bool acc_valid = false;

  double softening = 0, eps2 = 0, dt = 0;
  float speed_scale = 1, accel_scale = 1, mass_max = 1;

  std::vector<unsigned char> params;  // for the next launch
  std::shared_ptr<KernelModule> bound_module;
  std::vector<unsigned char> bound_params;  // what that module's __constant__ c_params holds

  std::vector<std::string> notices;  // reported with the next step

  // ---- compiling and loading ----
  std::shared_ptr<KernelModule> load_module(const std::shared_ptr<const CompiledProgram>& program) {
    if (auto it = modules.find(program->key); it != modules.end()) return it->second;
    if (modules.size() >= 64) modules.clear();  // the ladder and sweeps load many; keep memory bounded
    auto m = std::make_shared<KernelModule>(program);
    modules.emplace(program->key, m);
    return m;
  }

  int occupancy(const KernelModule& m) const {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, m.kernel(kAllPairsForceKernel), variant.block_size, 0) ==
            cudaSuccess &&
        blocks > 0)
      return blocks;
    cudaGetLastError();
    const PtxasStats* r = m.program().resource(kAllPairsForceKernel);
    return estimate_blocks_per_sm(variant.block_size, r ? r->registers : 0, r ? r->shared_bytes : 0);
  }

  void use_variant(const AllPairsVariant& v) {
    auto w = std::make_unique<WatchedProgram>(*engine, v.source);  // throws CompileError
    auto m = load_module(w->current());
    if (n > 0 && v.layout != layout) {  // re-lay the bodies out: once per switch, through the host
      Bodies host;
      download(host);
      layout = v.layout;
      upload(host);
    }
    layout = v.layout;
    if (v.real_bytes() != real_bytes) {
      real_bytes = v.real_bytes();
      allocate_accelerations();
    }
    variant = v;
    watched = std::move(w);
    module = std::move(m);
    blocks_per_sm = occupancy(*module);
    acc_valid = false;
    reported_reload_failure = false;
  }

  // ---- bodies ----
  void allocate_accelerations() {
    for (auto& a : acc) a.resize(n * real_bytes);
    for (auto& p : partial) p.resize(0);
    acc_valid = false;
  }

  void release_other_layouts() {
    if (layout != BodyLayout::aos) aos.resize(0);
    if (layout != BodyLayout::soa)
      for (auto& a : soa) a.resize(0);
    if (layout != BodyLayout::float4) {
      pos_mass.resize(0);
      vel.resize(0);
    }
  }

  void upload(const Bodies& b) {
    const cudaStream_t s = stream.get();
    if (n == 0) {  // nothing to copy: drop every layout's buffers
      aos.resize(0);
      for (auto& a : soa) a.resize(0);
      pos_mass.resize(0);
      vel.resize(0);
      return;
    }
    switch (layout) {
      case BodyLayout::aos: {
        std::vector<ap::BodyRecord> records(n);
        for (std::size_t i = 0; i < n; ++i)
          records[i] = {b.mass[i], b.x[i], b.y[i], b.z[i], b.vx[i], b.vy[i], b.vz[i]};
        aos.resize(n);
        aos.upload(records.data(), n, s);
        stream.synchronize();
        break;
      }
      case BodyLayout::soa: {
        const std::vector<float>* fields[7] = {&b.x, &b.y, &b.z, &b.mass, &b.vx, &b.vy, &b.vz};
        for (int f = 0; f < 7; ++f) {
          soa[f].resize(n);
          soa[f].upload(fields[f]->data(), n, s);
        }
        stream.synchronize();
        break;
      }
      case BodyLayout::float4: {
        std::vector<nbl_float4> p(n), v(n);
        for (std::size_t i = 0; i < n; ++i) {
          p[i] = {b.x[i], b.y[i], b.z[i], b.mass[i]};
          v[i] = {b.vx[i], b.vy[i], b.vz[i], 0.0f};
        }
        pos_mass.resize(n);
        vel.resize(n);
        pos_mass.upload(p.data(), n, s);
        vel.upload(v.data(), n, s);
        stream.synchronize();
        break;
      }
    }
    release_other_layouts();
  }

  void download(Bodies& b) const {
    b.resize(n);
    if (n == 0) return;
    const cudaStream_t s = stream.get();
    switch (layout) {
      case BodyLayout::aos: {
        std::vector<ap::BodyRecord> records(n);
        aos.download(records.data(), n, s);
        for (std::size_t i = 0; i < n; ++i) {
          const auto& r = records[i];
          b.mass[i] = r.mass, b.x[i] = r.x, b.y[i] = r.y, b.z[i] = r.z, b.vx[i] = r.vx, b.vy[i] = r.vy, b.vz[i] = r.vz;
        }
        break;
      }
      case BodyLayout::soa: {
        std::vector<float>* fields[7] = {&b.x, &b.y, &b.z, &b.mass, &b.vx, &b.vy, &b.vz};
        for (int f = 0; f < 7; ++f) soa[f].download(fields[f]->data(), n, s);
        break;
      }
      case BodyLayout::float4: {
        std::vector<nbl_float4> p(n), v(n);
        pos_mass.download(p.data(), n, s);
        vel.download(v.data(), n, s);
        for (std::size_t i = 0; i < n; ++i) {
          b.x[i] = p[i].x, b.y[i] = p[i].y, b.z[i] = p[i].z, b.mass[i] = p[i].w;
          b.vx[i] = v[i].x, b.vy[i] = v[i].y, b.vz[i] = v[i].z;
        }
        break;
      }
    }
  }

  // Colour-key scales from the scene's size (sim/render_vertices.hpp, shared by every backend).
  void set_color_scales(const Bodies& b) {
    const ColorScales scales = color_scales(b);
    speed_scale = scales.speed;
    accel_scale = scales.acceleration;
    mass_max = scales.max_mass;
  }

  void download_accelerations(Accelerations& out) const {
    out.resize(n);
    std::vector<double>* axes[3] = {&out.x, &out.y, &out.z};
    if (real_bytes == sizeof(double)) {
      for (int a = 0; a < 3; ++a) acc[a].download(reinterpret_cast<unsigned char*>(axes[a]->data()), n * 8, stream.get());
    } else {
      std::vector<float> tmp(n);
      for (int a = 0; a < 3; ++a) {
        acc[a].download(reinterpret_cast<unsigned char*>(tmp.data()), n * 4, stream.get());
        std::copy(tmp.begin(), tmp.end(), axes[a]->begin());
      }
    }
  }

  // ---- launching ----
  AllPairsLaunch plan(std::size_t i_count) const {
    return plan_allpairs_launch(variant, n, i_count, device.sm_count, blocks_per_sm);
  }

  void make_params(std::size_t i_end, const AllPairsLaunch& launch) {
    if (launch.j_splits > 1)
      for (auto& p : partial) p.resize(static_cast<std::size_t>(launch.j_splits) * n * real_bytes);
    void* a[3] = {acc[0].data(), acc[1].data(), acc[2].data()};
    void* pp[3] = {partial[0].data(), partial[1].data(), partial[2].data()};
    void* const* force = launch.j_splits > 1 ? pp : a;
    const bool fp64 = real_bytes == sizeof(double);
    int* st = status.data();
    switch (layout) {
      case BodyLayout::aos: {
        const ap::AosBodies b{aos.data()};
        params = fp64 ? pack_params<ap::AosBodies, double>(b, a, force, st, n, i_end, launch.j_slice, eps2, dt)
                      : pack_params<ap::AosBodies, float>(b, a, force, st, n, i_end, launch.j_slice, eps2, dt);
        break;
      }
      case BodyLayout::soa: {
        const ap::SoaBodies b{soa[0].data(), soa[1].data(), soa[2].data(), soa[3].data(),
                              soa[4].data(), soa[5].data(), soa[6].data()};
        params = fp64 ? pack_params<ap::SoaBodies, double>(b, a, force, st, n, i_end, launch.j_slice, eps2, dt)
                      : pack_params<ap::SoaBodies, float>(b, a, force, st, n, i_end, launch.j_slice, eps2, dt);
        break;
      }
      case BodyLayout::float4: {
        const ap::Float4Bodies b{pos_mass.data(), vel.data()};
        params = fp64 ? pack_params<ap::Float4Bodies, double>(b, a, force, st, n, i_end, launch.j_slice, eps2, dt)
                      : pack_params<ap::Float4Bodies, float>(b, a, force, st, n, i_end, launch.j_slice, eps2, dt);
        break;
      }
    }
  }

  // Constant-memory variants read their parameters from the module's c_params: written when they
  // change, not per launch (reference 000, Part I: "Constant Kernel Parameters").
  void bind(const std::shared_ptr<KernelModule>& m) {
    if (!variant.constant_params) return;
    if (m == bound_module && params == bound_params) return;
    const KernelModule::Symbol symbol = m->global(kAllPairsParamsSymbol);
    if (symbol.bytes != params.size())
      throw Error("kernel " + m->program().source.file + ": c_params is " + std::to_string(symbol.bytes) +
                  " bytes, the host's Params " + std::to_string(params.size()) +
                  " (cuda/kernels/allpairs_params.h was compiled differently on the two sides)");
    NBL_CUDA_CHECK(cudaMemcpyAsync(symbol.device_ptr, params.data(), params.size(), cudaMemcpyHostToDevice, stream.get()));
    bound_module = m;
    bound_params = params;
  }

  template <class... Extra>
  void launch(const KernelModule& m, const char* kernel, dim3 grid, dim3 block, Extra*... extra) {
    static char no_args = 0;  // the constant-memory kernels' empty NoArgs parameter
    void* first = variant.constant_params ? static_cast<void*>(&no_args) : static_cast<void*>(params.data());
    void* args[] = {first, static_cast<void*>(extra)...};
    NBL_CUDA_CHECK(cudaLaunchKernel(m.kernel(kernel), grid, block, args, 0, stream.get()));
  }

  void run_force(const std::shared_ptr<KernelModule>& m, std::size_t i_end, const AllPairsLaunch& l) {
    make_params(i_end, l);
    bind(m);
    launch(*m, kAllPairsForceKernel, dim3(l.grid_i, l.j_splits), dim3(l.block_size));
    if (l.j_splits > 1) {
      int slices = l.j_splits;
      launch(*m, kAllPairsSumSlicesKernel, dim3(blocks_for(i_end, kAllPairsAdvanceBlockSize)),
             dim3(kAllPairsAdvanceBlockSize), &slices);
    }
  }

  void ensure_accelerations() {
    if (acc_valid || n == 0) return;
    run_force(module, n, plan(n));
    acc_valid = true;
  }

  // ---- hot reload ----
  bool validate(const std::shared_ptr<KernelModule>& candidate, std::string& report) {
    if (n == 0) {
      report = "not checked: no bodies";
      return true;
    }
    run_force(candidate, n, plan(n));
    acc_valid = false;  // the buffers now hold the candidate's answer
    Accelerations all;
    download_accelerations(all);
    Bodies host;
    download(host);
    const auto sample = sample_indices(n, std::min<std::size_t>(n, 256), 0x5eed);
    const ForceError err = force_error(select(all, sample), reference_accelerations(host, softening, sample));
    const double tolerance = variant.fp64 ? 1e-9 : 1e-3;
    char buf[160];
    std::snprintf(buf, sizeof buf, "relative RMS force error %.2e on %zu bodies (tolerance %.0e)%s", err.rms,
                  sample.size(), tolerance, err.non_finite ? ", NaN or inf in the result" : "");
    report = buf;
    return !err.non_finite && err.rms <= tolerance;
  }

  bool poll_reload(bool force) {
    if (!watched) return false;
    const auto change = watched->poll(force);
    if (change == WatchedProgram::Change::failed) {
      if (!reported_reload_failure)
        notices.push_back("kernel " + variant.source.file +
                          " was edited but does not compile; the previous build keeps running (see its compiler log)");
      reported_reload_failure = true;
      return false;
    }
    if (change != WatchedProgram::Change::compiled) return false;
    std::shared_ptr<KernelModule> candidate;
    try {
      candidate = load_module(watched->candidate());
    } catch (const Error& e) {
      watched->reject(std::string("the edited kernel compiled but does not load: ") + e.what());
      notices.push_back("kernel " + variant.source.file + " was edited but does not load; the previous build keeps running");
      return false;
    }
    std::string report;
    if (validate(candidate, report)) {
      watched->accept();
      module = candidate;
      blocks_per_sm = occupancy(*module);
      acc_valid = false;
      reported_reload_failure = false;
      notices.push_back("kernel " + variant.source.file + " reloaded: " + report);
      return true;
    }
    modules.erase(watched->candidate()->key);
    watched->reject("the edited kernel compiles but does not match the double-precision reference: " + report);
    notices.push_back("kernel " + variant.source.file + " was edited but fails validation (" + report +
                      "); the previous build keeps running");
    reported_reload_failure = true;
    return false;
  }
};

// -------------------------------------------------------------------------------------------------

AllPairsBackend::AllPairsBackend(const Settings& settings, std::shared_ptr<KernelEngine> engine)
    : impl_(std::make_unique<Impl>()) {
  std::string why;
  auto device = query_device(&why);
  if (!device) throw Error("the GPU all-pairs backend needs a CUDA device: " + why);
  impl_->device = *device;
  impl_->engine = engine ? std::move(engine) : shared_kernel_engine();
  impl_->status.resize(1);
  impl_->status.fill_bytes(0, impl_->stream.get());
  impl_->status_host.resize(1);
  impl_->status_host.data()[0] = 0;
  configure(settings);
}

AllPairsBackend::~AllPairsBackend() = default;

std::string AllPairsBackend::name() const { return "all-pairs on " + impl_->device.name; }

const AllPairsVariant& AllPairsBackend::variant() const { return impl_->variant; }

AllPairsLaunch AllPairsBackend::launch() const { return impl_->plan(impl_->n); }

std::size_t AllPairsBackend::body_count() const { return impl_->n; }

void AllPairsBackend::configure(const Settings& settings) {
  Impl& s = *impl_;
  const double softening = settings.softening.value_or(0.0);
  AllPairsVariant v = select_allpairs_variant(settings.toggles, softening);
  if (!s.module || !v.source.same_code(s.variant.source)) {
    s.use_variant(v);
    for (const auto& notice : v.notices) s.notices.push_back(notice);
  } else {
    const bool new_notices = v.notices != s.variant.notices;
    s.variant = std::move(v);
    if (new_notices)
      for (const auto& notice : s.variant.notices) s.notices.push_back(notice);
  }
  if (softening != s.softening) {
    s.softening = softening;
    s.eps2 = softening * softening;
    s.acc_valid = false;
  }
  s.dt = settings.dt.value_or(0.0);
}

void AllPairsBackend::set_bodies(const Bodies& bodies) {
  Impl& s = *impl_;
  s.n = bodies.size();
  s.upload(bodies);
  s.allocate_accelerations();
  s.set_color_scales(bodies);
  s.bound_module.reset();  // the pointers in c_params changed
}

void AllPairsBackend::get_bodies(Bodies& bodies) { impl_->download(bodies); }

StepStats AllPairsBackend::step() {
  Impl& s = *impl_;
  StepStats stats;
  if (s.n > 0) {
    s.poll_reload(false);
    s.ensure_accelerations();
    const AllPairsLaunch l = s.plan(s.n);
    const dim3 advance_grid(blocks_for(s.n, kAllPairsAdvanceBlockSize)), advance_block(kAllPairsAdvanceBlockSize);
    s.make_params(s.n, l);
    s.bind(s.module);
    s.timer.begin(s.stream.get());
    s.launch(*s.module, kAllPairsKickDriftKernel, advance_grid, advance_block);
    s.timer.mark("integrate");  // both halves of the leapfrog add up under one name, as on the CPU
    s.run_force(s.module, s.n, l);
    s.timer.mark("force");
    s.launch(*s.module, kAllPairsKickKernel, advance_grid, advance_block);
    s.timer.mark("integrate");
    NBL_CUDA_CHECK(cudaMemcpyAsync(s.status_host.data(), s.status.data(), sizeof(int), cudaMemcpyDeviceToHost,
                                   s.stream.get()));
    s.timer.finish(stats);
    s.stream.synchronize();
    if (s.status_host.data()[0] != 0) {
      stats.non_finite = true;
      s.status.fill_bytes(0, s.stream.get());
      s.status_host.data()[0] = 0;
      stats.notices.push_back("NaN or inf in the positions or velocities: the simulation blew up");
    }
    stats.interactions = static_cast<double>(s.n) * static_cast<double>(s.n);
  }
  stats.notices.insert(stats.notices.begin(), s.notices.begin(), s.notices.end());
  s.notices.clear();
  return stats;
}

void AllPairsBackend::compute_accelerations(Accelerations& out) {
  Impl& s = *impl_;
  if (s.n == 0) {
    out.resize(0);
    return;
  }
  s.run_force(s.module, s.n, s.plan(s.n));
  s.acc_valid = true;
  s.download_accelerations(out);
}

void AllPairsBackend::write_vertices(VertexTarget target, ColorMode mode) {
  Impl& s = *impl_;
  if (s.n == 0 || !target.data) return;
  s.ensure_accelerations();
  ap::VertexParams v{};
  if (target.on_device) {
    v.position = static_cast<nbl_float4*>(target.data);
    v.color_key = reinterpret_cast<float*>(static_cast<unsigned char*>(target.data) + vertex_color_key_offset(s.n));
  } else {
    s.vertex_staging.resize(s.n * 5);
    v.position = reinterpret_cast<nbl_float4*>(s.vertex_staging.data());
    v.color_key = s.vertex_staging.data() + 4 * s.n;
  }
  v.mode = static_cast<int>(mode);
  v.n = static_cast<int>(s.n);
  v.speed_scale = s.speed_scale;
  v.accel_scale = s.accel_scale;
  v.mass_max = s.mass_max;
  v.bodies_per_block = s.variant.single_thread ? static_cast<int>(s.n) : s.variant.bodies_per_block();
  v.block_size = s.variant.block_size;
  s.make_params(s.n, s.plan(s.n));
  s.bind(s.module);
  s.launch(*s.module, kAllPairsVerticesKernel, dim3(blocks_for(s.n, kAllPairsAdvanceBlockSize)),
           dim3(kAllPairsAdvanceBlockSize), &v);
  if (!target.on_device)
    NBL_CUDA_CHECK(cudaMemcpyAsync(target.data, s.vertex_staging.data(), vertex_buffer_bytes(s.n),
                                   cudaMemcpyDeviceToHost, s.stream.get()));
  // The renderer hands the buffer to GL next, outside this (non-blocking) stream: finish first.
  s.stream.synchronize();
}

std::vector<KernelInfo> AllPairsBackend::kernel_info() const {
  const Impl& s = *impl_;
  std::vector<KernelInfo> out;
  if (!s.module) return out;
  const AllPairsLaunch l = s.plan(s.n);
  std::vector<const char*> names{kAllPairsForceKernel, kAllPairsKickDriftKernel, kAllPairsKickKernel};
  if (l.j_splits > 1) names.push_back(kAllPairsSumSlicesKernel);
  names.push_back(kAllPairsVerticesKernel);
  for (const char* name : names) {
    KernelInfo info = s.module->program().kernel_info(name);
    if (name == std::string_view(kAllPairsForceKernel)) {
      info.variant += " | grid " + std::to_string(l.grid_i) + "x" + std::to_string(l.j_splits) + " of " +
                      std::to_string(l.block_size) + " threads";
    }
    if (s.watched && s.watched->reload_failed()) {
      info.reload_failed = true;
      info.compile_log = s.watched->failure_log();
    }
    out.push_back(std::move(info));
  }
  return out;
}

AllPairsBackend::ForceTiming AllPairsBackend::time_force(int warmups, int repeats, std::size_t i_count) {
  Impl& s = *impl_;
  ForceTiming t;
  if (s.n == 0) return t;
  t.n = s.n;
  t.i_count = i_count == 0 ? s.n : std::min(i_count, s.n);
  t.launch = s.plan(t.i_count);
  for (int w = 0; w < warmups; ++w) s.run_force(s.module, t.i_count, t.launch);
  std::vector<CudaEvent> start(static_cast<std::size_t>(repeats)), stop(static_cast<std::size_t>(repeats));
  for (int r = 0; r < repeats; ++r) {
    start[r].record(s.stream.get());
    s.run_force(s.module, t.i_count, t.launch);
    stop[r].record(s.stream.get());
  }
  for (int r = 0; r < repeats; ++r) t.ms.push_back(stop[r].ms_since(start[r]));
  t.median_ms = t.ms.empty() ? 0 : median(t.ms);
  s.acc_valid = t.i_count == s.n;  // a sample leaves the other bodies' accelerations stale
  return t;
}

void AllPairsBackend::read_accelerations(Accelerations& out) const { impl_->download_accelerations(out); }

void AllPairsBackend::poison_outputs() {
  Impl& s = *impl_;
  for (auto& a : s.acc) a.fill_bytes(0xff, s.stream.get());
  for (auto& p : s.partial) p.fill_bytes(0xff, s.stream.get());
  s.stream.synchronize();
  s.acc_valid = false;
}

bool AllPairsBackend::poll_reload(bool force) { return impl_->poll_reload(force); }

}  // namespace nbl
