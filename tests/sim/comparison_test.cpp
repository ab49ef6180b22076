// A/B's arithmetic: paired speed-ups with their confidence interval, per-stage medians and spreads,
// and the force agreement, from samples made up here (no GPU).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/comparison.hpp"

namespace nbl {
namespace {

ComparisonSample sample(double a_force, double b_force, double a_tree = -1, double b_tree = -1) {
  ComparisonSample s;
  if (a_tree >= 0) s.a.push_back({"tree build", a_tree});
  s.a.push_back({"force", a_force});
  if (b_tree >= 0) s.b.push_back({"tree build", b_tree});
  s.b.push_back({"force", b_force});
  s.difference_relative_norm = 1e-6;
  s.difference_max = 3e-6;
  return s;
}

TEST(PairedSpeedup, IsTheMedianRatioWithAnIntervalThatHoldsIt) {
  std::mt19937 rng(1);
  std::normal_distribution<double> noise(1.0, 0.02);
  std::vector<double> a, b;
  for (int i = 0; i < 200; ++i) {
    const double frame = noise(rng);  // a slow frame slows both: pairing cancels it
    a.push_back(1.19 * frame * noise(rng));
    b.push_back(1.00 * frame * noise(rng));
  }
  const Speedup s = paired_speedup(a, b);
  EXPECT_EQ(s.pairs, 200u);
  EXPECT_NEAR(s.median, 1.19, 0.02);
  EXPECT_LT(s.low, s.median);
  EXPECT_GT(s.high, s.median);
  EXPECT_LT(s.high - s.low, 0.05) << "200 pairs with 3% noise pin the median down to a few percent";
  EXPECT_GT(s.low, 1.0) << "B is faster beyond doubt";
  EXPECT_NE(s.describe().find("faster"), std::string::npos);
}

TEST(PairedSpeedup, NoiseWithoutADifferenceGivesAnIntervalAroundOne) {
  std::mt19937 rng(2);
  std::normal_distribution<double> noise(1.0, 0.05);
  std::vector<double> a, b;
  for (int i = 0; i < 60; ++i) a.push_back(noise(rng)), b.push_back(noise(rng));
  const Speedup s = paired_speedup(a, b);
  EXPECT_LE(s.low, 1.0);
  EXPECT_GE(s.high, 1.0);
}

TEST(PairedSpeedup, FewPairsSpanTheirRangeAndBadOnesAreLeftOut) {
  const Speedup s = paired_speedup({2.0, 3.0, 4.0, 1.0, 0.0}, {1.0, 1.0, 1.0, 1.0, 1.0});
  EXPECT_EQ(s.pairs, 4u);  // a zero time is not a ratio
  EXPECT_EQ(s.low, 1.0);
  EXPECT_EQ(s.high, 4.0);
  EXPECT_EQ(s.median, 2.5);
  EXPECT_TRUE(paired_speedup({}, {}).empty());
  EXPECT_NE(paired_speedup({1.0}, {2.0}).describe().find("slower"), std::string::npos);
  // The figure alone: callers say whose it is ("B is 2.00x slower ..."), so it must not say it again
  // (the lab's stats line read "B B is ..." and the presenter caption "B is B is ...").
  EXPECT_EQ(paired_speedup({1.0}, {2.0}).describe(), "2.00x slower (+-0.00)");
}

TEST(ComparisonHistory, RowsPerStageWithTheTotalLastAndAWindow) {
  ComparisonHistory h(3);
  for (int i = 0; i < 5; ++i) h.add(sample(4.0 + i, 2.0 + i, 1.0, 0.5));
  EXPECT_EQ(h.size(), 3u);  // the window keeps the newest
  const auto rows = h.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].stage, "tree build");
  EXPECT_EQ(rows[1].stage, "force");
  EXPECT_EQ(rows[2].stage, "total");
  EXPECT_DOUBLE_EQ(rows[1].a_ms.median, 7.0);  // of 6, 7, 8
  EXPECT_DOUBLE_EQ(rows[1].b_ms.median, 5.0);
  EXPECT_DOUBLE_EQ(rows[2].a_ms.median, 8.0);
  EXPECT_DOUBLE_EQ(rows[0].speedup.median, 2.0);
}

TEST(ComparisonHistory, AStageOnlyOneSideHasIsShownWithoutASpeedup) {
  ComparisonHistory h;
  h.add(sample(4.0, 3.0, 1.0));  // A builds a tree, B does not (another build strategy's stages)
  const auto rows = h.rows();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].stage, "tree build");
  EXPECT_TRUE(rows[0].b_ms.empty());
  EXPECT_TRUE(rows[0].speedup.empty());
  EXPECT_DOUBLE_EQ(rows[2].speedup.median, 5.0 / 3.0);
}

TEST(ComparisonHistory, ForceAgreementAndNanAreReported) {
  ComparisonHistory h;
  h.add(sample(1, 1));
  EXPECT_DOUBLE_EQ(h.difference_max().median, 3e-6);
  EXPECT_FALSE(h.any_non_finite());
  ComparisonSample bad = sample(1, 1);
  bad.non_finite = true;
  h.add(bad);
  EXPECT_TRUE(h.any_non_finite());
}

}  // namespace
}  // namespace nbl
