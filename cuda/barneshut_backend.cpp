#include "cuda/barneshut_backend.hpp"

#include <cuda_runtime_api.h>
#include <vector_functions.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "cuda/barneshut_buffers.hpp"
#include "cuda/barneshut_pipeline.hpp"
#include "cuda/barneshut_variant.hpp"
#include "cuda/buffer.hpp"
#include "cuda/device.hpp"
#include "cuda/device_bodies.hpp"
#include "cuda/kernel_engine.hpp"
#include "cuda/reloadable_kernels.hpp"
#include "cuda/stage_timer.hpp"
#include "sim/accuracy.hpp"
#include "sim/error.hpp"
#include "sim/render_vertices.hpp"

namespace nbl {

namespace {

bool same_code(const BarnesHutVariant& a, const BarnesHutVariant& b) {
  const auto sa = barneshut_sources(a), sb = barneshut_sources(b);
  for (std::size_t i = 0; i < sa.size(); ++i)
    if (!sa[i].same_code(sb[i])) return false;
  return a.leaf_capacity == b.leaf_capacity && a.sort == b.sort;
}

std::size_t slot(BarnesHutSlot s) { return static_cast<std::size_t>(s); }

}  // namespace

struct BarnesHutBackend::Impl {
  DeviceInfo device;
  std::shared_ptr<KernelEngine> engine = shared_kernel_engine();
  CudaStream stream;
  StageTimer timer;
  Options options;

  BarnesHutVariant variant;
  std::unique_ptr<ReloadableKernels> kernels;
  std::unique_ptr<BarnesHutPipeline> pipeline;
  BarnesHutBuffers buffers;                        // the lab's bodies and their tree
  std::unique_ptr<BarnesHutBuffers> check_buffers;  // the check problem's (sim/accuracy.hpp)
  DeviceBuffer<unsigned char> staging;               // host-copy vertices
  BarnesHutPhysics physics;
  double softening = 0, theta = 0.5;
  ColorScales scales;
  int last_max_depth = 1;
  bool acc_valid = false;
  std::vector<std::string> notices;

  ReloadableKernels::Evaluate evaluator(const BarnesHutVariant& v) {
    return [this, &v](const ReloadableKernels::Modules& modules) {
      return check_barneshut_build(v, modules, device, softening, theta, check_buffers, stream.get());
    };
  }
  ForceErrorBound bound() const { return force_error_bound(Algorithm::barneshut, false, theta); }

  // A new variant: compiled, checked against the running one, then adopted (or refused: throws with
  // the running variant untouched).
  void use_variant(const BarnesHutVariant& v) {
    auto candidate = std::make_unique<ReloadableKernels>(*engine, barneshut_sources(v));
    const BuildVerdict verdict = candidate->adopt(evaluator(v), bound(), kernels ? kernels->last_good() : std::nullopt);
    if (!verdict.accepted) throw Error("Barnes-Hut variant " + v.label + " is not used: " + verdict.report);
    auto next = std::make_unique<BarnesHutPipeline>(v, candidate->modules(), device);
    if (buffers.size()) buffers.fit_variant(v);
    variant = v;
    kernels = std::move(candidate);
    pipeline = std::move(next);
    acc_valid = false;
  }

  void poll_reload(bool force, bool& swapped) {
    swapped = false;
    if (!kernels) return;
    auto outcome = kernels->poll(evaluator(variant), bound(), force);
    notices.insert(notices.end(), outcome.notices.begin(), outcome.notices.end());
    if (!outcome.swapped) return;
    pipeline = std::make_unique<BarnesHutPipeline>(variant, kernels->modules(), device);
    acc_valid = false;
    swapped = true;
  }

  void forces(StageTimer* t, StepStats& stats, bool then_kick = false) {
    pipeline->forces(buffers, physics, stream.get(), t, stats, then_kick);
    if (stats.non_finite) return;
    last_max_depth = std::max(1, stats.tree.max_depth);
    acc_valid = true;
  }
};

// -------------------------------------------------------------------------------------------------

BarnesHutBackend::BarnesHutBackend(const Settings& settings, Options options) : impl_(std::make_unique<Impl>()) {
  std::string why;
  auto device = query_device(&why);
  if (!device) throw Error("the GPU Barnes-Hut backend needs a CUDA device: " + why);
  impl_->device = *device;
  impl_->options = options;
  if (options.engine) impl_->engine = options.engine;
  NBL_CUDA_CHECK(cudaSetDevice(impl_->device.index));
  configure(settings);
}

BarnesHutBackend::~BarnesHutBackend() = default;

std::string BarnesHutBackend::name() const { return "Barnes-Hut on " + impl_->device.name; }

std::size_t BarnesHutBackend::body_count() const { return impl_->buffers.size(); }

void* BarnesHutBackend::cuda_stream() const { return impl_->stream.get(); }

std::size_t BarnesHutBackend::device_bytes() const {
  return impl_->buffers.bytes() + (impl_->check_buffers ? impl_->check_buffers->bytes() : 0);
}

void BarnesHutBackend::configure(const Settings& settings) {
  Impl& s = *impl_;
  const double softening = settings.softening.value_or(0.0), theta = settings.opening_angle;
  const bool physics_changed = softening != s.softening || theta != s.theta;
  const double old_softening = s.softening, old_theta = s.theta;
  s.softening = softening;
  s.theta = theta;
  BarnesHutVariant v = barneshut_variant(settings.toggles, softening > 0.0);
  try {
    if (!s.kernels || !same_code(v, s.variant)) s.use_variant(v);
    else if (physics_changed) s.kernels->remeasure(s.evaluator(s.variant));  // the yardstick at the new theta
  } catch (...) {
    s.softening = old_softening, s.theta = old_theta;
    throw;
  }
  s.physics = {static_cast<float>(settings.dt.value_or(0.0)), static_cast<float>(softening * softening),
               static_cast<float>(theta)};
  if (physics_changed) s.acc_valid = false;
}

void BarnesHutBackend::set_bodies(const Bodies& bodies) {
  Impl& s = *impl_;
  const std::size_t n = bodies.size();
  if (n == 0) throw InputError("Barnes-Hut needs at least one body");
  if (n > BarnesHutBuffers::kMaxBodies)
    throw InputError("the GPU Barnes-Hut backend handles at most " + std::to_string(BarnesHutBuffers::kMaxBodies) +
                     " bodies");
  const int cells = s.options.initial_cells > 0 ? s.options.initial_cells : BarnesHutBuffers::initial_cells(n);
  s.buffers.allocate(n, s.variant, cells, s.device.sm_count);
  upload_float4_bodies(bodies, s.buffers.positions(), s.buffers.velocities(), s.stream.get());
  s.scales = color_scales(bodies);
  s.acc_valid = false;
}

void BarnesHutBackend::get_bodies(Bodies& bodies) {
  Impl& s = *impl_;
  download_float4_bodies(s.buffers.positions(), s.buffers.velocities(), s.buffers.size(), bodies, s.stream.get());
}

StepStats BarnesHutBackend::step() {
  Impl& s = *impl_;
  StepStats stats;
  if (s.buffers.size() > 0) {
    bool swapped = false;
    s.poll_reload(false, swapped);
    if (!s.acc_valid) {
      StepStats initial;
      s.forces(nullptr, initial);  // a(x) at the starting positions, for the first kick
      if (initial.non_finite) return initial;
      stats.notices = std::move(initial.notices);  // e.g. the pool grew while computing them
    }
    s.timer.begin(s.stream.get());
    s.pipeline->kick_drift(s.buffers, s.physics, s.stream.get());
    s.timer.mark("integrate");
    s.forces(&s.timer, stats, /*then_kick=*/true);
  }
  stats.notices.insert(stats.notices.begin(), s.notices.begin(), s.notices.end());
  s.notices.clear();
  return stats;
}

void BarnesHutBackend::compute_accelerations(Accelerations& out) {
  Impl& s = *impl_;
  const std::size_t n = s.buffers.size();
  if (n == 0) throw Error("no bodies to compute accelerations for");
  StepStats stats;
  s.forces(nullptr, stats);
  if (stats.non_finite) throw Error("the state holds NaN or inf values; no accelerations to compute");
  std::vector<float4> acc(n);
  NBL_CUDA_CHECK(cudaMemcpyAsync(acc.data(), s.buffers.accelerations(), n * sizeof(float4), cudaMemcpyDeviceToHost,
                                 s.stream.get()));
  s.stream.synchronize();
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) out.x[i] = acc[i].x, out.y[i] = acc[i].y, out.z[i] = acc[i].z;
}

void BarnesHutBackend::write_vertices(VertexTarget target, ColorMode mode) {
  Impl& s = *impl_;
  const std::size_t n = s.buffers.size();
  if (n == 0) return;
  const bh::VertexScales scales{s.scales.speed, s.scales.acceleration, s.scales.max_mass, s.last_max_depth};
  unsigned char* out = static_cast<unsigned char*>(target.data);
  if (!target.on_device) {
    s.staging.resize(vertex_buffer_bytes(n));
    out = s.staging.data();
  }
  s.pipeline->write_vertices(s.buffers, reinterpret_cast<float4*>(out),
                             reinterpret_cast<float*>(out + vertex_color_key_offset(n)), static_cast<int>(mode), scales,
                             s.stream.get());
  if (!target.on_device) s.staging.download(static_cast<unsigned char*>(target.data), vertex_buffer_bytes(n), s.stream.get());
}

std::vector<CellBox> BarnesHutBackend::tree_cells(int max_depth) {
  Impl& s = *impl_;
  const std::size_t n = s.buffers.size();
  if (n == 0 || max_depth < 0) return {};
  if (!s.acc_valid) {
    StepStats stats;
    s.forces(nullptr, stats);
  }
  const bh::Control ctl = s.buffers.read_control(s.stream.get());
  const int first = s.variant.morton_build ? 0 : ctl.bottom - static_cast<int>(n);
  const int last = s.variant.morton_build ? ctl.cells - 1 : ctl.root - static_cast<int>(n);
  if (last < first) return {};
  const std::size_t count = static_cast<std::size_t>(last - first + 1);
  std::vector<int> depth(count);
  std::vector<float4> com(count);
  NBL_CUDA_CHECK(cudaMemcpyAsync(depth.data(), s.buffers.depth_buffer().data() + first, count * sizeof(int),
                                 cudaMemcpyDeviceToHost, s.stream.get()));
  NBL_CUDA_CHECK(cudaMemcpyAsync(com.data(), s.buffers.node_buffer().data() + n + first, count * sizeof(float4),
                                 cudaMemcpyDeviceToHost, s.stream.get()));
  s.stream.synchronize();
  // A cell's centre of mass lies inside the cell, so snapping it to the grid of the cell's level
  // recovers the cell's box (cell centres are not stored: kernel 2 recomputes them on the way down).
  const float lo[3] = {ctl.root_x - 0.5f * ctl.root_size, ctl.root_y - 0.5f * ctl.root_size,
                       ctl.root_z - 0.5f * ctl.root_size};
  std::vector<CellBox> boxes;
  for (std::size_t c = 0; c < count; ++c) {
    if (depth[c] > max_depth) continue;
    const float size = std::ldexp(ctl.root_size, -depth[c]);
    const float p[3] = {com[c].x, com[c].y, com[c].z};
    CellBox box{};
    for (int k = 0; k < 3; ++k) box.center[k] = lo[k] + (std::floor((p[k] - lo[k]) / size) + 0.5f) * size;
    box.half_size = 0.5f * size;
    box.depth = depth[c];
    boxes.push_back(box);
  }
  return boxes;
}

std::vector<KernelInfo> BarnesHutBackend::kernel_info() const {
  const Impl& s = *impl_;
  std::vector<KernelInfo> info;
  if (!s.kernels) return info;
  auto add = [&](BarnesHutSlot which, std::initializer_list<const char*> entries) {
    if (!s.kernels->has(slot(which))) return;
    for (const char* e : entries) info.push_back(s.kernels->info(slot(which), e));
  };
  add(BarnesHutSlot::force, {bh::kForceKernel.name});
  add(BarnesHutSlot::bounding_box, {bh::kBoundingBoxKernel.name});
  if (s.variant.morton_build) {
    add(BarnesHutSlot::build, {bh::kMortonKeysKernel.name, bh::kRadixTreeKernel.name, bh::kOctreeCountKernel.name,
                               bh::kOctreeEmitKernel.name, bh::kOctreeAttachKernel.name, bh::kOctreeSummarizeKernel.name});
  } else {
    add(BarnesHutSlot::build, {bh::kInsertKernel.name});
    add(BarnesHutSlot::summarize, {bh::kSummarizeKernel.name});
    add(BarnesHutSlot::sort, {bh::kSortKernel.name});
  }
  add(BarnesHutSlot::groups, {bh::kMakeGroupsKernel.name});
  add(BarnesHutSlot::integrate, {bh::kKickDriftKernel.name, bh::kKickKernel.name});
  return info;
}

BarnesHutTreeCopy BarnesHutBackend::copy_tree() {
  Impl& s = *impl_;
  BarnesHutTreeCopy copy;
  const std::size_t n = s.buffers.size();
  if (n == 0) return copy;
  StepStats stats;
  s.forces(nullptr, stats);
  const cudaStream_t stream = s.stream.get();
  const bh::Control ctl = s.buffers.read_control(stream);
  copy.n = static_cast<int>(n);
  copy.morton_build = s.variant.morton_build;
  copy.sorted = s.variant.sort;
  copy.root = ctl.root;
  copy.first_cell = s.variant.morton_build ? copy.n : ctl.bottom;
  copy.last_cell = s.variant.morton_build ? copy.n + ctl.cells - 1 : ctl.root;
  copy.root_size = ctl.root_size;
  copy.root_center[0] = ctl.root_x, copy.root_center[1] = ctl.root_y, copy.root_center[2] = ctl.root_z;
  const std::vector<float4> node = s.buffers.node_buffer().to_host(stream);
  copy.node.reserve(node.size() * 4);
  for (const float4& p : node) copy.node.insert(copy.node.end(), {p.x, p.y, p.z, p.w});
  copy.child = s.buffers.child_buffer().to_host(stream);
  copy.depth = s.buffers.depth_buffer().to_host(stream);
  copy.count = s.buffers.count_buffer().to_host(stream);
  copy.start = s.buffers.start_buffer().to_host(stream);
  copy.order = s.buffers.sorted_buffer().to_host(stream);
  if (!s.variant.morton_build) copy.next = s.buffers.next_buffer().to_host(stream);
  copy.has_groups = s.buffers.groups_buffer().size() > 0;
  if (copy.has_groups) {
    copy.groups = ctl.groups;
    const std::vector<int2> groups = s.buffers.groups_buffer().to_host(stream);
    for (int g = 0; g < ctl.groups; ++g) {
      copy.group_first.push_back(groups[g].x);
      copy.group_size.push_back(groups[g].y);
    }
  }
  return copy;
}

bool BarnesHutBackend::poll_reload(bool force) {
  bool swapped = false;
  impl_->poll_reload(force, swapped);
  return swapped;
}

std::unique_ptr<Backend> make_barneshut_backend(const Settings& settings) {
  return std::make_unique<BarnesHutBackend>(settings);
}

std::size_t barneshut_bytes_per_body(std::size_t n, const ToggleValues& toggles) {
  const std::size_t bodies = std::max<std::size_t>(n, 1);
  return (BarnesHutBuffers::planned_bytes(bodies, barneshut_variant(toggles, true)) + bodies - 1) / bodies;
}

}  // namespace nbl
