// Every Barnes-Hut toggle changes the code that runs: each variant compiles with NVRTC (no GPU
// needed) and its PTX shows what the toggle claims.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "cuda/barneshut/variant.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "sim/tour.hpp"

namespace nbl {
namespace {

KernelEngine& engine() {
  static KernelEngine e(KernelEngine::Config{.kernels_dir = {},
                                             .include_dirs = {},
                                             .arch = "sm_90",
                                             .cache_dir = std::filesystem::path(NBL_TEST_KERNEL_CACHE)});
  return e;
}

std::string ptx(const KernelSource& source) { return engine().compile(source)->ptx; }

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

BarnesHutVariant variant(void (*edit)(ToggleValues&)) {
  ToggleValues t;
  edit(t);
  return barneshut_variant(t, true);
}

TEST(BarnesHutVariants, EveryToggleValueCompiles) {
  for (const ToggleValues& t : barneshut_toggle_sweep()) {
    for (bool softened : {true, false}) {
      const BarnesHutVariant v = barneshut_variant(t, softened);
      for (const KernelSource* s : {&v.bounding_box, &v.build, &v.summarize, &v.sort_bodies, &v.force, &v.integrate}) {
        if (s->file.empty()) continue;
        auto program = engine().compile(*s);
        EXPECT_FALSE(program->ptx.empty()) << s->file << " " << v.label;
      }
    }
  }
}

TEST(BarnesHutVariants, EverySwitchSettingShowsWhatItClaimsInThePtx) {
  for (const ToggleValues& t : barneshut_toggle_sweep()) {
    const auto problems = barneshut_code_violations(t, engine());
    EXPECT_TRUE(problems.empty()) << problems.front();
  }
}

TEST(BarnesHutVariants, DefaultKernelsKeepEverythingInRegisters) {
  for (bool softened : {true, false}) {
    const BarnesHutVariant v = barneshut_variant(ToggleValues{}, softened);
    for (const KernelSource* s : {&v.bounding_box, &v.build, &v.force, &v.integrate}) {
      for (const auto& r : engine().compile(*s)->resources) {
        EXPECT_EQ(r.spill_store_bytes, 0) << r.name << " in " << v.label;
        EXPECT_EQ(r.stack_bytes, 0) << r.name << " in " << v.label;
      }
    }
  }
}

TEST(BarnesHutVariants, WarpTraversalVotesAndThreadTraversalDoesNot) {
  const std::string warp = ptx(variant([](ToggleValues& t) { t["bh_traversal"] = 1; }).force);
  const std::string thread = ptx(variant([](ToggleValues& t) { t["bh_traversal"] = 0; }).force);
  EXPECT_GT(occurrences(warp, "vote.sync.all"), 0);
  EXPECT_EQ(occurrences(thread, "vote.sync"), 0);
}

// The tutorial measured voting apart from walking in step: without bh_vote the warp walk is the same union,
// deciding through shared memory (each lane's verdict stored, all 32 read) instead of with vote.sync.all.
TEST(BarnesHutVariants, WithoutTheVoteTheWarpAgreesThroughSharedMemory) {
  const std::string vote = ptx(variant([](ToggleValues& t) { t["bh_traversal"] = 1, t["bh_vote"] = 1; }).force);
  const std::string shared = ptx(variant([](ToggleValues& t) { t["bh_traversal"] = 1, t["bh_vote"] = 0; }).force);
  EXPECT_GT(occurrences(vote, "vote.sync.all"), 0);
  EXPECT_EQ(occurrences(shared, "vote.sync"), 0);
  EXPECT_GT(occurrences(shared, "st.shared"), occurrences(vote, "st.shared")) << "each lane's verdict";
  EXPECT_GT(occurrences(shared, "ld.shared"), occurrences(vote, "ld.shared") + 8) << "every lane reads the verdicts";
  EXPECT_GT(occurrences(shared, "bar.warp.sync"), occurrences(vote, "bar.warp.sync"));
  // Inert in the other walks: the very same source, one module for both.
  for (int traversal : {0, 2}) {
    ToggleValues on, off;
    on["bh_traversal"] = off["bh_traversal"] = traversal;
    off["bh_vote"] = 0;
    EXPECT_TRUE(barneshut_variant(on, true).force.same_code(barneshut_variant(off, true).force)) << traversal;
    EXPECT_NE(find_inert(barneshut_variant(on, true).inert, "bh_vote"), nullptr) << traversal;
  }
}

// The early out stops reading a cell's slots at the first empty one: a different per-thread and warp walk
// with the insertion build, whose summarize moves empty slots to the back; the same source elsewhere.
TEST(BarnesHutVariants, TheEarlyOutActsInTheInsertionBuildsPerThreadAndWarpWalks) {
  for (int traversal : {0, 1, 2}) {
    for (int build : {0, 1}) {
      ToggleValues on, off;
      on["bh_traversal"] = off["bh_traversal"] = traversal;
      on["bh_build"] = off["bh_build"] = build;
      off["bh_early_out"] = 0;
      const BarnesHutVariant a = barneshut_variant(on, true), b = barneshut_variant(off, true);
      const bool acts = build == 0 && traversal != 2;
      SCOPED_TRACE(a.label);
      EXPECT_EQ(!a.force.same_code(b.force), acts);
      EXPECT_EQ(find_inert(a.inert, "bh_early_out") == nullptr, acts);
      if (acts) {
        EXPECT_NE(ptx(a.force), ptx(b.force));
      }
    }
  }
}

TEST(BarnesHutVariants, TheSortThrottleAddsABlockBarrierToTheSortKernel) {
  const BarnesHutVariant on = variant([](ToggleValues& t) { t["bh_build"] = 0, t["bh_sort_throttle"] = 1; });
  const BarnesHutVariant off = variant([](ToggleValues& t) { t["bh_build"] = 0, t["bh_sort_throttle"] = 0; });
  EXPECT_EQ(on.sort_bodies.file, "bh_sort.cu");
  EXPECT_GT(occurrences(ptx(on.sort_bodies), "bar.red.or.pred"), 0);
  EXPECT_EQ(occurrences(ptx(off.sort_bodies), "bar.red"), 0);
  EXPECT_EQ(occurrences(ptx(off.sort_bodies), "bar.sync"), 0);
  EXPECT_NE(find_inert(variant([](ToggleValues& t) { t["bh_build"] = 1; }).inert, "bh_sort_throttle"), nullptr);
}

// The tour's first step is the tutorial's configuration (sim/tour.hpp, kTutorialConfiguration); the
// Barnes-Hut toggles that list leaves out are not the tutorial's, and change nothing there.
TEST(BarnesHutVariants, TogglesOutsideTheTutorialsConfigurationAreInertInIt) {
  const Tour tour = load_tour(TourKind::barneshut);
  const BarnesHutVariant v = barneshut_variant(tour.steps.front().toggles, true);
  for (const ToggleDef& def : kToggles) {
    if (def.algorithm != Algorithm::barneshut) continue;
    const bool listed = std::any_of(kTutorialConfiguration.begin(), kTutorialConfiguration.end(),
                                    [&](const TutorialChoice& c) { return c.key == def.key; });
    if (!listed) {
      EXPECT_NE(find_inert(v.inert, def.key), nullptr)
          << def.key << " acts in the tutorial's configuration: " << v.label;
    }
  }
  EXPECT_EQ(v.label,
            "lock-based insertion; per-thread walk, unsorted, 1/sqrtf, volatile, all eight child slots, 256 threads");
}

TEST(BarnesHutVariants, GroupTraversalBuildsListsWithBallotAndShuffles) {
  const std::string group = ptx(variant([](ToggleValues& t) { t["bh_traversal"] = 2; }).force);
  EXPECT_GT(occurrences(group, "vote.sync.ballot"), 0);
  EXPECT_GT(occurrences(group, "shfl.sync.up"), 0);
  EXPECT_GT(occurrences(group, "ld.shared.v4.f32"), 0);  // the interaction list, read as a broadcast
}

TEST(BarnesHutVariants, ThrottlingAddsABlockBarrierToTheInsertionBuild) {
  const std::string on = ptx(variant([](ToggleValues& t) { t["bh_build"] = 0, t["bh_throttle"] = 1; }).build);
  const std::string off = ptx(variant([](ToggleValues& t) { t["bh_build"] = 0, t["bh_throttle"] = 0; }).build);
  EXPECT_GT(occurrences(on, "bar.red.or.pred"), 0);
  EXPECT_EQ(occurrences(off, "bar.red"), 0);
  EXPECT_EQ(occurrences(off, "bar.sync"), 0);
}

TEST(BarnesHutVariants, CombinedFenceLeavesFewerFencesInTheBuild) {
  auto fences = [](const std::string& p) { return occurrences(p, "membar.gl") + occurrences(p, "fence.sc.gpu"); };
  const std::string on = ptx(variant([](ToggleValues& t) { t["bh_build"] = 0, t["bh_combined_fence"] = 1; }).build);
  const std::string off = ptx(variant([](ToggleValues& t) { t["bh_build"] = 0, t["bh_combined_fence"] = 0; }).build);
  EXPECT_GT(fences(on), 0);
  EXPECT_GT(fences(off), fences(on));
}

TEST(BarnesHutVariants, WaitFreePrePassChangesTheSummarizeKernel) {
  const std::string on = ptx(variant([](ToggleValues& t) { t["bh_build"] = 0, t["bh_waitfree"] = 1; }).summarize);
  const std::string off = ptx(variant([](ToggleValues& t) { t["bh_build"] = 0, t["bh_waitfree"] = 0; }).summarize);
  EXPECT_NE(on, off);
  EXPECT_GT(occurrences(on, "nanosleep"), 0);  // both wait, bounded
  EXPECT_GT(occurrences(off, "nanosleep"), 0);
}

TEST(BarnesHutVariants, RsqrtToggleSelectsTheHardwareInstruction) {
  for (int traversal = 0; traversal < 3; ++traversal) {
    const std::string on = ptx(variant([](ToggleValues& t) { t["bh_rsqrt"] = 1; }).force);
    ToggleValues t;
    t["bh_traversal"] = traversal;
    t["bh_rsqrt"] = 0;
    const std::string off = ptx(barneshut_variant(t, true).force);
    EXPECT_GT(occurrences(on, "rsqrt.approx"), 0);
    EXPECT_EQ(occurrences(off, "rsqrt.approx"), 0) << "traversal " << traversal;
    EXPECT_GT(occurrences(off, "sqrt.rn"), 0);
  }
}

TEST(BarnesHutVariants, VolatileReadsOnlyWhenNotAvoided) {
  const std::string avoid = ptx(variant([](ToggleValues& t) { t["bh_avoid_volatile"] = 1; }).force);
  const std::string keep = ptx(variant([](ToggleValues& t) { t["bh_avoid_volatile"] = 0; }).force);
  // One volatile read remains either way: the tree-failed flag at the kernel's start.
  EXPECT_GT(occurrences(keep, "ld.volatile.global"), 4);
  EXPECT_EQ(occurrences(avoid, "ld.volatile.global"), 1);
  EXPECT_GT(occurrences(avoid, "ld.global.nc"), 0);
}

TEST(BarnesHutVariants, SortToggleReadsTheTreeOrder) {
  const BarnesHutVariant on = variant([](ToggleValues& t) { t["bh_sort"] = 1; });
  const BarnesHutVariant off = variant([](ToggleValues& t) { t["bh_sort"] = 0; });
  EXPECT_NE(ptx(on.force), ptx(off.force));
  EXPECT_TRUE(on.sort);
  EXPECT_FALSE(off.sort);
}

TEST(BarnesHutVariants, InsertionOnlyTogglesAreInertWithTheMortonBuild) {
  const BarnesHutVariant morton = variant([](ToggleValues& t) { t["bh_build"] = 1; });
  const BarnesHutVariant insertion = variant([](ToggleValues& t) { t["bh_build"] = 0; });
  auto inert = [](const BarnesHutVariant& v, std::string_view key) {
    const InertToggle* i = find_inert(v.inert, key);
    return i && i->reason.size() > 10;
  };
  EXPECT_TRUE(inert(morton, "bh_throttle"));
  EXPECT_TRUE(inert(morton, "bh_waitfree"));
  EXPECT_FALSE(inert(insertion, "bh_throttle"));
  EXPECT_TRUE(inert(insertion, "bh_leaf_capacity"));
  EXPECT_TRUE(morton.summarize.file.empty());
  EXPECT_EQ(insertion.summarize.file, "bh_summarize.cu");
}

TEST(BarnesHutVariants, BigForceBlocksShrinkTheListsToFitSharedMemory) {
  for (int block = 32; block <= 1024; block += 32) {
    ToggleValues t;
    t["bh_block_size"] = block;
    const BarnesHutVariant v = barneshut_variant(t, true);
    EXPECT_LE(v.force_shared_bytes, 227u * 1024) << block;
  }
}

}  // namespace
}  // namespace nbl
