// The all-pairs switchboard and launch planner (host logic only): how toggles become a kernel file,
// macros and options, which combinations are normalised and which toggles are inert, how the source
// range is split across blocks, and the ladder's data.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "cuda/allpairs/variant.hpp"
#include "cuda/launch.hpp"
#include "sim/ladder.hpp"

namespace nbl {
namespace {

// Inert with a reason in words: the panel's tooltip and the CLI's warning show it.
bool has(const std::vector<InertToggle>& v, std::string_view key) {
  const InertToggle* i = find_inert(v, key);
  return i && i->reason.size() > 10;
}

std::string macro(const AllPairsVariant& v, const std::string& name) {
  for (const auto& [n, value] : v.source.macros)
    if (n == name) return value;
  return "<undefined>";
}

TEST(AllPairsVariant, EveryAllPairsToggleBecomesItsMacroAndEveryChoiceAConstant) {
  const AllPairsVariant v = select_allpairs_variant(ToggleValues{}, 0.01);
  for (const ToggleDef& t : kToggles) {
    if (t.algorithm != Algorithm::allpairs || t.macro.empty()) continue;
    EXPECT_NE(macro(v, std::string(t.macro)), "<undefined>") << t.key;
    for (std::size_t c = 0; c < t.choices.size(); ++c) {
      std::string name = std::string(t.macro) + "_";
      for (char ch : t.choices[c].name) name += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      EXPECT_EQ(macro(v, name), std::to_string(c)) << name;
    }
  }
  EXPECT_EQ(macro(v, "NBL_UNROLL"), std::to_string(ToggleId("unroll").def().default_value));
}

TEST(AllPairsVariant, TilingPicksTheKernelFile) {
  ToggleValues t;
  t["tiling"] = 0;
  EXPECT_EQ(select_allpairs_variant(t, 0.01).source.file, "allpairs_global.cu");
  t["tiling"] = 1;
  EXPECT_EQ(select_allpairs_variant(t, 0.01).source.file, "allpairs_shared.cu");
  t["tiling"] = 2;
  EXPECT_EQ(select_allpairs_variant(t, 0.01).source.file, "allpairs_shuffle.cu");
  t["parallelism"] = 0;
  EXPECT_EQ(select_allpairs_variant(t, 0.01).source.file, "allpairs_single_thread.cu");
}

TEST(AllPairsVariant, FloatFlagsBecomeCompilerOptions) {
  ToggleValues t;
  t["fast_math"] = 0;
  EXPECT_TRUE(select_allpairs_variant(t, 0.01).source.options.empty());
  t["fast_math"] = 1;
  EXPECT_EQ(select_allpairs_variant(t, 0.01).source.options, std::vector<std::string>{"-ftz=true"});
  t["fast_math"] = 2;
  EXPECT_EQ(select_allpairs_variant(t, 0.01).source.options, std::vector<std::string>{"--use_fast_math"});
}

TEST(AllPairsVariant, SingleThreadMakesTilingBlockSizeAndBodiesPerThreadInert) {
  ToggleValues a, b;
  a["parallelism"] = b["parallelism"] = 0;
  b["tiling"] = 2;
  b["block_size"] = 64;
  b["bodies_per_thread"] = 7;
  const auto va = select_allpairs_variant(a, 0.01), vb = select_allpairs_variant(b, 0.01);
  for (const char* key : {"tiling", "block_size", "bodies_per_thread"}) EXPECT_TRUE(has(vb.inert, key)) << key;
  EXPECT_TRUE(va.source.same_code(vb.source)) << "inert toggles must not change the code (or the cache key)";
  EXPECT_TRUE(vb.single_thread);
  EXPECT_EQ(vb.block_size, 1);
  EXPECT_EQ(vb.bodies_per_thread, 1);
  EXPECT_FALSE(has(vb.inert, "unroll"));
}

TEST(AllPairsVariant, SofteningSelfInteractionFallsBackToTheBranchWithoutSoftening) {
  ToggleValues t;
  t["self_interaction"] = 2;
  const auto softened = select_allpairs_variant(t, 0.01);
  EXPECT_EQ(softened.toggles["self_interaction"], 2);
  EXPECT_TRUE(softened.notices.empty());
  const auto unsoftened = select_allpairs_variant(t, 0.0);
  EXPECT_EQ(unsoftened.toggles["self_interaction"], 0);
  ASSERT_EQ(unsoftened.notices.size(), 1u);
  EXPECT_NE(unsoftened.notices[0].find("softening"), std::string::npos);
}

TEST(AllPairsVariant, ShuffleTilesWithTwoLoopsFallBackToTheBranch) {
  ToggleValues t;
  t["tiling"] = 2;
  t["self_interaction"] = 1;
  const auto v = select_allpairs_variant(t, 0.01);
  EXPECT_EQ(v.toggles["self_interaction"], 0);
  EXPECT_EQ(v.notices.size(), 1u);
  t["tiling"] = 1;  // shared tiles keep two loops
  EXPECT_EQ(select_allpairs_variant(t, 0.01).toggles["self_interaction"], 1);
}

TEST(AllPairsVariant, Fp64MakesTheFloatFlagsInert) {
  ToggleValues a, b;
  a["precision"] = b["precision"] = 1;
  a["fast_math"] = 0;
  b["fast_math"] = 2;
  const auto va = select_allpairs_variant(a, 0.01), vb = select_allpairs_variant(b, 0.01);
  EXPECT_TRUE(has(vb.inert, "fast_math"));
  EXPECT_TRUE(va.source.same_code(vb.source));
  EXPECT_TRUE(vb.fp64);
  EXPECT_EQ(vb.real_bytes(), 8u);
}

TEST(AllPairsVariant, FastMathMakesRsqrtInert) {
  ToggleValues t;
  t["fast_math"] = 2;
  t["rsqrt"] = 0;
  const auto v = select_allpairs_variant(t, 0.01);
  EXPECT_TRUE(has(v.inert, "rsqrt"));
  EXPECT_EQ(v.notices.size(), 1u);
}

TEST(AllPairsVariant, DefaultsHaveNothingInertAndNoNotices) {
  const auto v = select_allpairs_variant(ToggleValues{}, 0.01);
  EXPECT_TRUE(v.inert.empty());
  EXPECT_TRUE(v.notices.empty());
  EXPECT_EQ(v.layout, BodyLayout::float4);
  EXPECT_EQ(v.tile_size, v.block_size);
  EXPECT_FALSE(v.description.empty());
  EXPECT_EQ(v.source.label, v.description);
}

TEST(AllPairsLaunch, SplitsTheSourcesWhenTooFewBlocksFillTheGpu) {
  // 65536 bodies, 4 per thread, 256 threads: 64 blocks for 132 SMs.
  const auto v = select_allpairs_variant(ToggleValues{}, 0.01);
  const AllPairsLaunch l = plan_allpairs_launch(v, 65536, 65536, 132, 4);
  EXPECT_EQ(l.grid_i, 64);
  EXPECT_GT(l.j_splits, 1);
  EXPECT_GE(static_cast<double>(l.grid_i) * l.j_splits, 132.0);
  EXPECT_EQ(l.j_slice % v.tile_size, 0);
  EXPECT_GE(static_cast<long>(l.j_slice) * l.j_splits, 65536L);        // the slices cover every source
  EXPECT_LT(static_cast<long>(l.j_slice) * (l.j_splits - 1), 65536L);  // and none is empty
}

TEST(AllPairsLaunch, LargeNKeepsLongSlicesAndBalancesTheLastRound) {
  // 1024 blocks are 7.76 per SM: eight rounds, the last one short. Slicing may even that out, but
  // each slice stays long and the partial sums stay within their memory budget.
  const auto v = select_allpairs_variant(ToggleValues{}, 0.01);
  const AllPairsLaunch l = plan_allpairs_launch(v, 1 << 20, 1 << 20, 132, 4);
  EXPECT_EQ(l.grid_i, 1024);
  EXPECT_GE(l.j_slice, 32768);
  EXPECT_LE(static_cast<double>(l.j_splits) * (1 << 20) * 12, 256.0 * (1 << 20));
  const double blocks = static_cast<double>(l.grid_i) * l.j_splits;
  EXPECT_GE(blocks / 132 / std::ceil(blocks / 132), 0.97);  // SMs busy until the end
  // A GPU the grid divides evenly needs no slicing at all.
  EXPECT_EQ(plan_allpairs_launch(v, 1 << 20, 1 << 20, 128, 4).j_splits, 1);
}

TEST(AllPairsLaunch, TinyNIsOneBlockAndOneSlice) {
  const auto v = select_allpairs_variant(ToggleValues{}, 0.01);
  for (std::size_t n : {1u, 7u, 31u}) {
    const AllPairsLaunch l = plan_allpairs_launch(v, n, n, 132, 4);
    EXPECT_EQ(l.grid_i, 1) << n;
    EXPECT_EQ(l.j_splits, 1) << n;
    EXPECT_GE(l.j_slice, static_cast<int>(n));
  }
}

TEST(AllPairsLaunch, SingleThreadIsOneThread) {
  ToggleValues t;
  t["parallelism"] = 0;
  const AllPairsLaunch l = plan_allpairs_launch(select_allpairs_variant(t, 0.01), 5000, 5000, 132, 4);
  EXPECT_EQ(l.grid_i, 1);
  EXPECT_EQ(l.block_size, 1);
  EXPECT_EQ(l.j_splits, 1);
}

TEST(AllPairsLaunch, SampleOfBodiesNeedsFewerBlocks) {
  ToggleValues t;
  t["bodies_per_thread"] = 1;
  const AllPairsLaunch l = plan_allpairs_launch(select_allpairs_variant(t, 0.01), 100000, 1000, 132, 8);
  EXPECT_EQ(l.grid_i, 4);
}

TEST(AllPairsLaunch, OccupancyEstimateFollowsRegistersAndSharedMemory) {
  EXPECT_EQ(estimate_blocks_per_sm(256, 32, 4096), 8);  // 2048 threads
  EXPECT_EQ(estimate_blocks_per_sm(256, 64, 4096), 4);  // 65536 registers
  EXPECT_EQ(estimate_blocks_per_sm(256, 128, 4096), 2);
  EXPECT_EQ(estimate_blocks_per_sm(1024, 255, 0), 1);  // never below one
}

TEST(Ladder, RungsApplyCumulativelyAndSideTripsAreNotCarriedOn) {
  std::size_t two_loops = 0, shared = 0;
  for (std::size_t r = 0; r < kLadder.size(); ++r) {
    if (kLadder[r].name == "two loops") two_loops = r;
    if (kLadder[r].name == "shared tiles") shared = r;
  }
  ASSERT_GT(shared, two_loops);
  EXPECT_EQ(ladder_toggles(two_loops)["self_interaction"], 1);
  EXPECT_EQ(ladder_toggles(shared)["self_interaction"], 0);  // the tutorial went back to the if
  EXPECT_EQ(ladder_toggles(shared)["rsqrt"], 1);             // kept from earlier rungs
  EXPECT_EQ(ladder_toggles(0)["parallelism"], 0);
  EXPECT_EQ(ladder_toggles(1)["parallelism"], 1);
}

TEST(Ladder, LastKeptRungIsTheDefaultToggles) {
  std::size_t last_kept = 0;
  for (std::size_t r = 0; r < kLadder.size(); ++r)
    if (kLadder[r].kept) last_kept = r;
  const ToggleValues ladder = ladder_toggles(last_kept), defaults;
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    if (kToggles[i].algorithm != Algorithm::allpairs) continue;
    EXPECT_EQ(ladder.values[i], defaults.values[i]) << kToggles[i].key;
  }
}

TEST(Ladder, EveryRungChangesSomethingAndTutorialRungsCarryTheirSpeedups) {
  for (std::size_t r = 1; r < kLadder.size(); ++r) {
    EXPECT_FALSE(kLadder[r].changes.empty()) << kLadder[r].name;
    EXPECT_FALSE(select_allpairs_variant(ladder_toggles(r), 0.01)
                     .source.same_code(select_allpairs_variant(ladder_toggles(r - 1), 0.01).source))
        << kLadder[r].name << " runs the same code as the rung before";
  }
  EXPECT_DOUBLE_EQ(kLadder[1].speedup_cc20, 6495);
}

TEST(CheckCombinations, CoverEveryValueOfEveryToggle) {
  const auto combos = allpairs_check_combinations(true);
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& t = kToggles[i];
    if (t.algorithm != Algorithm::allpairs) continue;
    for (int v = t.min_value; v <= t.max_value; v += t.step)
      EXPECT_TRUE(std::any_of(combos.begin(), combos.end(), [&](const ToggleValues& c) { return c.values[i] == v; }))
          << t.key << " = " << v;
  }
  EXPECT_LT(allpairs_check_combinations(false).size(), combos.size());
}

}  // namespace
}  // namespace nbl
