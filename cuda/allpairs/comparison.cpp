#include "cuda/allpairs/comparison.hpp"

namespace nbl {

namespace {

comparison::AccelerationView view(const AllPairsState& s) {
  return {s.acc[0].data(), s.acc[1].data(), s.acc[2].data(), 1, s.real_bytes == sizeof(double)};
}

}  // namespace

AllPairsComparison::AllPairsComparison(AllPairsBuild build, double softening, int sm_count)
    : build_(std::move(build)), sm_count_(sm_count), eps2_(softening * softening) {
  blocks_per_sm_ = AllPairsPass(build_.variant, build_.kernels->module(0)).force_blocks_per_sm();
}

ComparisonSample AllPairsComparison::run(AllPairsState& a, const AllPairsPass& a_pass, const AllPairsLaunch& a_plan,
                                         cudaStream_t stream) {
  const std::size_t n = a.size();
  const AllPairsVariant& v = build_.variant;
  state_.bodies.copy_from(a.bodies, v.layout, stream);
  state_.real_bytes = v.real_bytes();
  for (auto& acc : state_.acc) acc.resize(n * state_.real_bytes);
  state_.status.resize(1);
  state_.eps2 = eps2_;
  const AllPairsPass pass(v, build_.kernels->module(0));
  const AllPairsLaunch plan = plan_allpairs_launch(v, n, n, sm_count_, blocks_per_sm_);
  const auto timed = [&](const AllPairsPass& p, AllPairsState& s, const AllPairsLaunch& l) {
    timer_.begin(stream);
    timer_.stage(Stage::force, [&] { p.force(s, n, l, stream); });
    StepStats stats;
    timer_.finish(stats);
    return stats.stages;
  };
  std::vector<StageTime> a_force, b_force;
  if (a_first_) {
    a_force = timed(a_pass, a, a_plan);
    b_force = timed(pass, state_, plan);
  } else {
    b_force = timed(pass, state_, plan);
    a_force = timed(a_pass, a, a_plan);
  }
  a_first_ = !a_first_;
  return difference_.measure(view(a), view(state_), n, a_force, b_force, stream);
}

bool AllPairsComparison::accelerations(Accelerations& out, cudaStream_t stream) const {
  if (!difference_.measured()) return false;
  state_.download_accelerations(out, state_.size(), stream);
  return true;
}

void AllPairsComparison::write_keys(float* keys, std::size_t n, cudaStream_t stream) const {
  difference_.write_keys(keys, n, stream);
}

}  // namespace nbl
