#include "cuda/allpairs/force_pass.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cuda/launch.hpp"
#include "cuda/step_slices.hpp"
#include "cuda/retire.hpp"
#include "sim/accuracy.hpp"

namespace nbl {

namespace ap = allpairs;

namespace {

template <class BodiesT, class Real>
ap::Params<BodiesT, Real> make_params(const BodiesT& bodies, AllPairsState& s, std::size_t i_end, int j_splits,
                                      int j_slice, std::size_t i_first) {
  ap::Params<BodiesT, Real> p{};
  auto real = [](DeviceBuffer<unsigned char>& b) { return reinterpret_cast<Real*>(b.data()); };
  p.bodies = bodies;
  p.ax = real(s.acc[0]), p.ay = real(s.acc[1]), p.az = real(s.acc[2]);
  // With a split source range each slice writes its own partial sums, n apart; the sum kernel adds them.
  DeviceBuffer<unsigned char>* force = j_splits > 1 ? s.partial : s.acc;
  p.force_x = real(force[0]), p.force_y = real(force[1]), p.force_z = real(force[2]);
  p.status = s.status.data();
  p.n = static_cast<int>(s.size());
  p.i_end = static_cast<int>(i_end);
  p.i_first = static_cast<int>(i_first);
  p.j_slice = j_slice;
  p.eps2 = static_cast<Real>(s.eps2);
  p.dt = static_cast<float>(s.dt);
  p.half_dt = static_cast<float>(0.5 * s.dt);
  return p;
}

// Calls fn(params) with the Params of the state's layout and the variant's precision.
template <class Fn>
void with_params(const AllPairsVariant& v, AllPairsState& s, std::size_t i_end, int j_splits, int j_slice, Fn&& fn,
                 std::size_t i_first = 0) {
  switch (s.bodies.layout()) {
    case BodyLayout::aos:
      return v.fp64 ? fn(make_params<ap::AosBodies, double>(s.bodies.aos(), s, i_end, j_splits, j_slice, i_first))
                    : fn(make_params<ap::AosBodies, float>(s.bodies.aos(), s, i_end, j_splits, j_slice, i_first));
    case BodyLayout::soa:
      return v.fp64 ? fn(make_params<ap::SoaBodies, double>(s.bodies.soa(), s, i_end, j_splits, j_slice, i_first))
                    : fn(make_params<ap::SoaBodies, float>(s.bodies.soa(), s, i_end, j_splits, j_slice, i_first));
    case BodyLayout::float4:
      return v.fp64 ? fn(make_params<ap::Float4Bodies, double>(s.bodies.float4_pair(), s, i_end, j_splits, j_slice,
                                                               i_first))
                    : fn(make_params<ap::Float4Bodies, float>(s.bodies.float4_pair(), s, i_end, j_splits, j_slice,
                                                              i_first));
  }
}

// Calls fn(args) with what the kernels take: the Params themselves, or the launch's range of targets
// once the rest sits in the module's __constant__ c_params (Burtscher's CUDA optimization tutorial, Part
// I: "Constant Kernel Parameters": written when they change, not per launch). The copy there holds
// every target, so the launches of one pass, slices included, share it and none rewrites it.
template <class P, class Fn>
void with_args(const AllPairsVariant& v, const KernelModule& m, const P& params, cudaStream_t stream, Fn&& fn) {
  if (!v.constant_params) return fn(params);
  P constant = params;
  constant.i_first = 0;
  constant.i_end = constant.n;
  std::vector<unsigned char> bytes(sizeof(P));
  std::memcpy(bytes.data(), &constant, sizeof(P));
  m.write_global(ap::kParamsSymbol, bytes, stream);
  fn(ap::LaunchRange{params.i_first, params.i_end});
}

LaunchShape advance_shape(std::size_t n) { return LaunchShape::cover(n, ap::kAdvanceBlockSize); }

}  // namespace

// ---------------------------------------------------------------------------------------------------

void AllPairsState::set_bodies(const Bodies& b, BodyLayout layout, std::size_t precision_bytes, cudaStream_t stream) {
  bodies.upload(b, layout, stream);
  real_bytes = precision_bytes;
  for (auto& a : acc) a.resize(size() * real_bytes);
  for (auto& p : partial) p.resize(0);
  status.resize(1);
  status.fill_bytes(0, stream);
}

void AllPairsState::adapt_to(const AllPairsVariant& variant, cudaStream_t stream, RetiredObjects* old) {
  bodies.convert(variant.layout, stream, old);
  if (variant.real_bytes() != real_bytes) {
    real_bytes = variant.real_bytes();
    for (auto& a : acc) resize_retiring(a, size() * real_bytes, old);
    for (auto& p : partial) resize_retiring(p, 0, old);
  }
}

void AllPairsState::fit_partials(int j_splits, RetiredObjects* old) {
  if (j_splits <= 1) return;
  const std::size_t bytes = static_cast<std::size_t>(j_splits) * size() * real_bytes;
  for (auto& p : partial)
    if (p.size() < bytes) resize_retiring(p, bytes, old);
}

void AllPairsState::download_accelerations(Accelerations& out, std::size_t count, cudaStream_t stream) const {
  count = std::min(count, size());
  out.resize(count);
  if (count == 0) return;
  std::vector<double>* axes[3] = {&out.x, &out.y, &out.z};
  if (real_bytes == sizeof(double)) {
    for (int a = 0; a < 3; ++a) acc[a].download(reinterpret_cast<unsigned char*>(axes[a]->data()), count * 8, stream);
  } else {
    std::vector<float> tmp(count);
    for (int a = 0; a < 3; ++a) {
      acc[a].download(reinterpret_cast<unsigned char*>(tmp.data()), count * 4, stream);
      std::copy(tmp.begin(), tmp.end(), axes[a]->begin());
    }
  }
}

void AllPairsState::poison(cudaStream_t stream) {
  for (auto& a : acc) a.fill_bytes(0xff, stream);
  for (auto& p : partial) p.fill_bytes(0xff, stream);
  NBL_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// ---------------------------------------------------------------------------------------------------

void AllPairsPass::force(AllPairsState& s, std::size_t i_end, const AllPairsLaunch& l, cudaStream_t stream,
                         std::size_t i_first) const {
  s.fit_partials(l.j_splits);
  with_params(
      variant_, s, i_end, l.j_splits, l.j_slice,
      [&](const auto& params) {
        with_args(variant_, module_, params, stream, [&](const auto& args) {
          using Args = std::decay_t<decltype(args)>;
          launch(module_, ap::kForceKernel<Args>, LaunchShape{dim3(l.grid_i, l.j_splits), dim3(l.block_size)}, stream,
                 args);
          if (l.j_splits > 1)
            launch(module_, ap::kSumSlicesKernel<Args>, advance_shape(i_end - i_first), stream, args, l.j_splits);
        });
      },
      i_first);
}

int AllPairsPass::slice_count(const AllPairsLaunch& plan, std::size_t n, const StepControl& control, double whole_ms,
                              int sm_count, int blocks_per_sm) const {
  // Slices are ranges of whole blocks of targets, each with all its source splits; where each launch
  // must fill the GPU, whole waves of them (whole_wave_slice_count). The single thread's items are
  // bodies, in one block.
  const std::size_t per_block = variant_.single_thread ? 1 : static_cast<std::size_t>(variant_.bodies_per_block());
  const int items = static_cast<int>((n + per_block - 1) / per_block);
  const int wanted = force_slice_count(control, whole_ms, items, 1);
  if (variant_.single_thread || !control.fill_each_slice) return wanted;
  const int wave = std::max(1, sm_count * std::max(blocks_per_sm, 1) / std::max(plan.j_splits, 1));
  return whole_wave_slice_count(wanted, items, wave);
}

bool AllPairsPass::force_in_slices(AllPairsState& s, const AllPairsLaunch& plan, int slices, const StepControl& control,
                                   cudaStream_t stream, Overlap& overlap) const {
  const std::size_t n = s.size();
  if (slices <= 1) {
    force(s, n, plan, stream);
    return true;
  }
  s.fit_partials(plan.j_splits);  // sized before two streams use the buffers
  // Where the variant keeps its parameters in __constant__ memory, they are written for the whole pass
  // before either stream launches (with_args): no slice rewrites them under the other.
  with_params(variant_, s, n, plan.j_splits, plan.j_slice,
              [&](const auto& params) { with_args(variant_, module_, params, stream, [](const auto&) {}); });
  overlap.started.record(stream);
  NBL_CUDA_CHECK(cudaStreamWaitEvent(overlap.side.get(), overlap.started.get(), 0));
  // The side stream's last slice ends before anything after the pass runs on `stream`.
  auto join = [&](int launched) {
    if (launched > 1) NBL_CUDA_CHECK(cudaStreamWaitEvent(stream, overlap.ended[1].get(), 0));
  };
  const std::size_t per_block = variant_.single_thread ? 1 : static_cast<std::size_t>(variant_.bodies_per_block());
  const std::size_t blocks = (n + per_block - 1) / per_block;
  for (int k = 0; k < slices; ++k) {
    const cudaStream_t on = (k & 1) ? overlap.side.get() : stream;
    if (k >= 2) NBL_CUDA_CHECK(cudaEventSynchronize(overlap.ended[k & 1].get()));  // two in flight at most
    if (k > 0 && control.abandoned()) {
      join(k);
      return false;
    }
    const std::size_t first = per_block * (blocks * k / slices);
    const std::size_t last = std::min(n, per_block * (blocks * (k + 1) / slices));
    AllPairsLaunch part = plan;
    part.grid_i = variant_.single_thread ? 1 : static_cast<int>((last - first + per_block - 1) / per_block);
    force(s, last, part, on, first);
    overlap.ended[k & 1].record(on);
  }
  join(slices);
  return true;
}

std::vector<std::pair<void*, std::size_t>> AllPairsState::regions() {
  auto r = bodies.regions();
  for (auto& a : acc) r.emplace_back(a.data(), size() * real_bytes);
  return r;
}

void AllPairsPass::kick_drift(AllPairsState& s, cudaStream_t stream) const {
  with_params(variant_, s, s.size(), 1, 0, [&](const auto& params) {
    with_args(variant_, module_, params, stream, [&](const auto& args) {
      launch(module_, ap::kKickDriftKernel<std::decay_t<decltype(args)>>, advance_shape(s.size()), stream, args);
    });
  });
}

void AllPairsPass::kick(AllPairsState& s, cudaStream_t stream) const {
  with_params(variant_, s, s.size(), 1, 0, [&](const auto& params) {
    with_args(variant_, module_, params, stream, [&](const auto& args) {
      launch(module_, ap::kKickKernel<std::decay_t<decltype(args)>>, advance_shape(s.size()), stream, args);
    });
  });
}

static_assert(ap::kKeySpeed == static_cast<int>(ColorMode::speed) &&
                  ap::kKeyAcceleration == static_cast<int>(ColorMode::acceleration) &&
                  ap::kKeyMass == static_cast<int>(ColorMode::mass) &&
                  ap::kKeyBodyIndex == static_cast<int>(ColorMode::body_index) &&
                  ap::kKeyWarpId == static_cast<int>(ColorMode::warp_id) &&
                  ap::kKeyTreeDepth == static_cast<int>(ColorMode::tree_depth),
              "the kernels' colour key numbers must follow ColorMode");

void AllPairsPass::vertices(AllPairsState& s, nbl_float4* positions, float* color_keys, ColorMode mode,
                            const ColorScales& scales, cudaStream_t stream) const {
  ap::VertexParams v{};
  v.position = positions;
  v.color_key = color_keys;
  v.mode = static_cast<int>(mode);
  v.n = static_cast<int>(s.size());
  v.speed_scale = scales.speed;
  v.accel_scale = scales.acceleration;
  v.mass_max = scales.max_mass;
  v.bodies_per_block = variant_.single_thread ? v.n : variant_.bodies_per_block();
  v.block_size = variant_.block_size;
  with_params(variant_, s, s.size(), 1, 0, [&](const auto& params) {
    with_args(variant_, module_, params, stream, [&](const auto& args) {
      launch(module_, ap::kVerticesKernel<std::decay_t<decltype(args)>>, advance_shape(s.size()), stream, args, v);
    });
  });
}

std::vector<double> AllPairsPass::time_force(AllPairsState& s, std::size_t i_end, const AllPairsLaunch& plan,
                                             int warmups, int repeats, cudaStream_t stream) const {
  for (int w = 0; w < warmups; ++w) force(s, i_end, plan, stream);
  std::vector<CudaEvent> start(static_cast<std::size_t>(repeats)), stop(static_cast<std::size_t>(repeats));
  for (int r = 0; r < repeats; ++r) {
    start[r].record(stream);
    force(s, i_end, plan, stream);
    stop[r].record(stream);
  }
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) ms.push_back(stop[r].ms_since(start[r]));
  return ms;
}

int AllPairsPass::force_blocks_per_sm() const {
  return resident_blocks_per_sm(module_, kAllPairsForceKernel, variant_.block_size);
}

// ---------------------------------------------------------------------------------------------------

std::vector<KernelInfo> allpairs_kernel_info(const ReloadableKernels& kernels, const AllPairsLaunch& plan) {
  std::vector<const char*> names{kAllPairsForceKernel, kAllPairsKickDriftKernel, kAllPairsKickKernel};
  if (plan.j_splits > 1) names.push_back(kAllPairsSumSlicesKernel);
  names.push_back(kAllPairsVerticesKernel);
  std::vector<KernelInfo> out;
  for (const char* name : names) {
    KernelInfo info = kernels.info(0, name);
    if (name == std::string_view(kAllPairsForceKernel))
      info.variant += " | grid " + std::to_string(plan.grid_i) + "x" + std::to_string(plan.j_splits) + " of " +
                      std::to_string(plan.block_size) + " threads";
    out.push_back(std::move(info));
  }
  return out;
}

ForceError check_allpairs_build(const AllPairsVariant& variant, const KernelModule& module, double softening,
                                int sm_count, AllPairsState& scratch, cudaStream_t stream) {
  const auto problem = validation_problem(softening);
  scratch.set_bodies(problem->bodies, variant.layout, variant.real_bytes(), stream);
  scratch.eps2 = softening * softening;
  scratch.poison(stream);  // a kernel that skips a body shows up as NaN, never as a stale right answer
  const AllPairsPass pass(variant, module);
  // One GPU thread manages about 2e6 interactions/s: it is checked on fewer bodies (0.13 s, not 2 s).
  const std::size_t checked = variant.single_thread ? ValidationProblem::kCheckedSlow : ValidationProblem::kChecked;
  const AllPairsLaunch plan = plan_allpairs_launch(variant, scratch.size(), checked, sm_count,
                                                   variant.single_thread ? 1 : pass.force_blocks_per_sm());
  pass.force(scratch, checked, plan, stream);
  Accelerations computed;
  scratch.download_accelerations(computed, checked, stream);
  return validation_error(*problem, computed);
}

AsyncBuilds<AllPairsBuild>::Make make_allpairs_build(std::shared_ptr<KernelEngine> engine, const AllPairsVariant& v,
                                                     double softening, int sm_count,
                                                     std::optional<ForceError> last_good) {
  return [engine = std::move(engine), v, softening, sm_count, last_good](BuildTicket& ticket) {
    auto build = std::make_unique<AllPairsBuild>();
    build->variant = v;
    build->kernels = std::make_unique<ReloadableKernels>(*engine, std::vector<KernelSource>{v.source});
    ticket.set(BuildState::checking);
    CudaStream stream{CudaStream::Priority::background};  // the check yields to the running lab's kernels
    AllPairsState scratch;
    const BuildVerdict verdict = build->kernels->adopt(
        [&](const ReloadableKernels::Modules& m) {
          return check_allpairs_build(v, *m[0], softening, sm_count, scratch, stream.get());
        },
        force_error_bound(Algorithm::allpairs, v.fp64, 0.0), last_good);
    if (!verdict.accepted) throw refuse(std::move(build), stream, verdict.report);
    build->report = verdict.report;
    return build;
  };
}

}  // namespace nbl
