// The one rule every new kernel build passes before it runs (sim/accuracy.hpp), and the check problem
// it is judged on. No GPU: the verdicts are arithmetic on force errors.
#include <gtest/gtest.h>

#include "sim/accuracy.hpp"

namespace nbl {
namespace {

ForceError error_of(double p99, double max, bool non_finite = false) {
  ForceError e;
  e.p99 = p99;
  e.max = max;
  e.count = 1031;
  e.non_finite = non_finite;
  return e;
}

TEST(BuildRule, AcceptsUpToTwiceTheLastGoodBuildsError) {
  const ForceErrorBound tight{1e-9, 1e-9};  // a bound the figures below exceed: only the 2x rule can accept
  EXPECT_TRUE(judge_build(error_of(2e-6, 4e-6), error_of(1e-6, 2e-6), tight).accepted);
  EXPECT_FALSE(judge_build(error_of(2.1e-6, 4e-6), error_of(1e-6, 2e-6), tight).accepted);  // p99 too large
  EXPECT_FALSE(judge_build(error_of(2e-6, 4.1e-6), error_of(1e-6, 2e-6), tight).accepted);  // max too large
}

TEST(BuildRule, AcceptsWithinTheBoundWhateverTheLastBuild) {
  const ForceErrorBound bound = force_error_bound(Algorithm::allpairs, false, 0);
  // From fp64 (1e-14) to fp32 (1e-6): far more than twice worse, but within the fp32 bound.
  EXPECT_TRUE(judge_build(error_of(1e-6, 5e-6), error_of(1e-14, 1e-13), bound).accepted);
  EXPECT_TRUE(judge_build(error_of(1e-6, 5e-6), std::nullopt, bound).accepted);
  EXPECT_FALSE(judge_build(error_of(1e-3, 1e-2), std::nullopt, bound).accepted);
}

TEST(BuildRule, NanNeverPassesAndARefusalSaysWhy) {
  const BuildVerdict v =
      judge_build(error_of(0, 0, /*non_finite=*/true), error_of(1e-6, 1e-6), ForceErrorBound{1e9, 1e9});
  EXPECT_FALSE(v.accepted);
  EXPECT_NE(v.report.find("NaN"), std::string::npos) << v.report;
  EXPECT_NE(v.report.find("refused"), std::string::npos) << v.report;
  EXPECT_FALSE(judge_build(ForceError{}, std::nullopt, ForceErrorBound{1, 1}).accepted);  // nothing compared
}

TEST(BuildRule, BoundsFollowPrecisionAndOpeningAngle) {
  EXPECT_LT(force_error_bound(Algorithm::allpairs, true, 0).p99, force_error_bound(Algorithm::allpairs, false, 0).p99);
  const auto at = [](double theta) { return force_error_bound(Algorithm::barneshut, false, theta); };
  EXPECT_LT(at(0).p99, at(0.5).p99);
  EXPECT_EQ(at(0.3).p99, at(0.5).p99);  // never tighter than at the usual theta
  EXPECT_LT(at(0.5).p99, at(1.0).p99);
  EXPECT_LT(at(1.0).max, at(2.0).max);
  for (double theta : {0.0, 0.5, 1.0, 2.0}) EXPECT_LE(at(theta).p99, at(theta).max);
}

TEST(CheckProblem, IsFixedAndItsReferenceIsTheDirectSum) {
  const auto a = validation_problem(0.01);
  const auto b = validation_problem(0.01);
  EXPECT_EQ(a.get(), b.get());  // computed once
  ASSERT_EQ(a->bodies.size(), ValidationProblem::kBodies);
  ASSERT_EQ(a->reference.size(), ValidationProblem::kChecked);
  const Accelerations direct = reference_accelerations(a->bodies, 0.01, {0, 500, 1030});
  EXPECT_DOUBLE_EQ(direct.x[1], a->reference.x[500]);
  EXPECT_DOUBLE_EQ(direct.z[2], a->reference.z[1030]);
  const auto softer = validation_problem(0.1);
  EXPECT_EQ(softer->bodies.x, a->bodies.x);  // the same bodies, another softening
  EXPECT_NE(softer->reference.x[0], a->reference.x[0]);
}

TEST(CheckProblem, ErrorIsZeroForTheReferenceAndGrowsWithAPerturbation) {
  const auto p = validation_problem(0.02);
  EXPECT_EQ(validation_error(*p, p->reference).max, 0.0);
  Accelerations off = p->reference;
  off.x[7] *= 1.01;
  const ForceError e = validation_error(*p, off);
  EXPECT_GT(e.max, 0.005);
  Accelerations few = p->reference;
  few.resize(ValidationProblem::kCheckedSlow);  // the slow single-thread port checks fewer bodies
  EXPECT_EQ(validation_error(*p, few).count, ValidationProblem::kCheckedSlow);
}

}  // namespace
}  // namespace nbl
