// Every all-pairs toggle changes the code that runs: NVRTC compiles the variants for
// sm_90 without a GPU and the tests read the PTX. Each test names the toggle and what it must show.
// The exhaustive sweep over every value of every toggle is `nbodylab kernels --check`.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "cuda/allpairs/variant.hpp"
#include "kernel_test_support.hpp"
#include "sim/ladder.hpp"

namespace nbl {
namespace {

struct Built {
  AllPairsVariant variant;
  std::shared_ptr<const CompiledProgram> program;
  const PtxEntryStats& force() const {
    if (const auto* e = program->entry(kAllPairsForceKernel)) return *e;
    ADD_FAILURE() << "no force kernel in the PTX of " << variant.source.label;
    static const PtxEntryStats none{};
    return none;
  }
  const PtxasStats& resources() const {
    if (const auto* r = program->resource(kAllPairsForceKernel)) return *r;
    ADD_FAILURE() << "no ptxas resource report for " << variant.source.label << "; log:\n" << program->log;
    static const PtxasStats none{};
    return none;
  }
};

// The defaults with `edit` applied, compiled for sm_90.
template <class Edit>
Built build(Edit edit, double softening = 0.01) {
  ToggleValues t;
  edit(t);
  Built b{select_allpairs_variant(t, softening), nullptr};
  b.program = test::sm90_engine()->compile(b.variant.source);
  EXPECT_NE(b.program->entry(kAllPairsForceKernel), nullptr);
  return b;
}

TEST(AllPairsCodegen, RsqrtVariantEmitsRsqrtApprox) {
  const Built b = build([](ToggleValues& t) { t["rsqrt"] = 1; });
  EXPECT_GT(b.force().loop_mix["rsqrt"], 0);
  EXPECT_EQ(b.force().loop_mix["sqrt"], 0);
}

TEST(AllPairsCodegen, WithoutRsqrtTheLoopTakesAnIeeeSquareRootAndNoRsqrtApprox) {
  const Built b = build([](ToggleValues& t) { t["rsqrt"] = 0, t["fast_math"] = 0; });
  EXPECT_EQ(b.force().mix["rsqrt"], 0);
  EXPECT_GT(b.force().loop_mix["sqrt"], 0);
  EXPECT_NE(b.program->ptx.find("sqrt.rn.f32"), std::string::npos);
}

TEST(AllPairsCodegen, SharedTilingReadsSharedMemoryBetweenBarriers) {
  const Built b = build([](ToggleValues& t) { t["tiling"] = 1; });
  EXPECT_GT(b.force().loop_mix["ld.shared"], 0);
  EXPECT_EQ(b.force().loop_mix["ld.global"], 0);
  EXPECT_GT(b.force().mix["bar.sync"], 0);
  EXPECT_EQ(b.resources().shared_bytes, 16 * b.variant.block_size);
}

TEST(AllPairsCodegen, UntiledVariantHasNoSharedMemory) {
  const Built b = build([](ToggleValues& t) { t["tiling"] = 0; });
  EXPECT_EQ(b.force().mix["ld.shared"], 0);
  EXPECT_EQ(b.force().mix["bar.sync"], 0);
  EXPECT_GT(b.force().loop_mix["ld.global"], 0);
  EXPECT_EQ(b.resources().shared_bytes, 0);
}

TEST(AllPairsCodegen, ShuffleTilingEmitsShflSyncAndNoSharedMemory) {
  const Built b = build([](ToggleValues& t) { t["tiling"] = 2; });
  EXPECT_GT(b.force().loop_mix["shfl.sync"], 0);
  EXPECT_EQ(b.force().mix["ld.shared"], 0);
  EXPECT_EQ(b.force().mix["bar.sync"], 0);
}

TEST(AllPairsCodegen, UnrolledBodyCountMatchesTheUnrollFactor) {
  for (int unroll : {1, 8, 32}) {
    const Built b = build([&](ToggleValues& t) { t["unroll"] = unroll, t["bodies_per_thread"] = 1; });
    EXPECT_EQ(b.force().loop_bodies, unroll) << "unroll " << unroll;
  }
}

TEST(AllPairsCodegen, BodiesPerThreadMultiplyTheInteractionsPerLoadedBody) {
  const Built one = build([](ToggleValues& t) { t["unroll"] = 16, t["bodies_per_thread"] = 1; });
  const Built four = build([](ToggleValues& t) { t["unroll"] = 16, t["bodies_per_thread"] = 4; });
  EXPECT_EQ(four.force().loop_bodies, 4 * 16);
  // One 16-byte shared load per source body, whatever the bodies per thread: 4x fewer per interaction.
  EXPECT_EQ(one.force().loop_mix["ld.shared.v4"], 16);
  EXPECT_EQ(four.force().loop_mix["ld.shared.v4"], 16);
}

TEST(AllPairsCodegen, FtzFlagFlushesDenormalsAndIeeeFlagsDoNot) {
  const Built ftz = build([](ToggleValues& t) { t["fast_math"] = 1; });
  const Built ieee = build([](ToggleValues& t) { t["fast_math"] = 0; });
  EXPECT_GT(ftz.force().loop_mix["ftz"], 0);
  EXPECT_NE(ftz.program->ptx.find("rsqrt.approx.ftz.f32"), std::string::npos);
  EXPECT_EQ(ieee.force().mix["ftz"], 0);
}

TEST(AllPairsCodegen, Fp64VariantComputesInDoubleAndFp32DoesNot) {
  const Built fp64 = build([](ToggleValues& t) { t["precision"] = 1; });
  const Built fp32 = build([](ToggleValues& t) { t["precision"] = 0; });
  EXPECT_GE(fp64.force().loop_mix["fma.f64"], 6 * fp64.force().loop_bodies);
  EXPECT_EQ(fp64.force().loop_mix["fma.f32"], 0);
  EXPECT_EQ(fp32.force().mix["f64"], 0);
}

TEST(AllPairsCodegen, ConstantParamsAreReadFromConstantMemory) {
  const Built constant = build([](ToggleValues& t) { t["params"] = 1; });
  const Built arguments = build([](ToggleValues& t) { t["params"] = 0; });
  EXPECT_GT(constant.force().mix["ld.const"], 0);
  // Only the launch's range of targets stays an argument (two ints), read outside the hot loop.
  EXPECT_LT(constant.force().mix["ld.param"], constant.force().mix["ld.const"]);
  EXPECT_EQ(constant.force().loop_mix["ld.param"], 0);
  EXPECT_NE(constant.program->ptx.find(".const .align"), std::string::npos);
  EXPECT_EQ(arguments.force().mix["ld.const"], 0);
  EXPECT_GT(arguments.force().mix["ld.param"], 0);
}

TEST(AllPairsCodegen, Float4LayoutLoadsABodyInOneInstruction) {
  const Built f4 = build([](ToggleValues& t) { t["layout"] = 2; });
  const Built soa = build([](ToggleValues& t) { t["layout"] = 1; });
  EXPECT_GT(f4.force().mix["ld.global.v4"], 0);
  EXPECT_EQ(f4.force().loop_mix["ld.shared"], f4.force().loop_mix["ld.shared.v4"]);
  EXPECT_EQ(soa.force().mix["ld.global.v4"], 0);
  EXPECT_EQ(soa.force().loop_mix["ld.shared"], 4 * soa.force().loop_bodies / soa.variant.bodies_per_thread);
}

TEST(AllPairsCodegen, FmaOrderFusesSixMultiplyAddsPerInteraction) {
  const Built fused = build([](ToggleValues& t) { t["fma_order"] = 1; });
  const Built plain = build([](ToggleValues& t) { t["fma_order"] = 0; });
  EXPECT_EQ(fused.force().loop_mix["fma.f32"], 6 * fused.force().loop_bodies);
  EXPECT_LT(plain.force().loop_mix["fma.f32"], 6 * plain.force().loop_bodies);
}

TEST(AllPairsCodegen, SofteningLeavesNoSelfTestInTheLoopAndTheBranchKeepsOne) {
  const Built softened = build([](ToggleValues& t) { t["self_interaction"] = 2; });
  const Built branch = build([](ToggleValues& t) { t["self_interaction"] = 0; });
  EXPECT_LE(softened.force().loop_mix["setp"], 1);  // only the loop's own exit test
  EXPECT_GE(branch.force().loop_mix["setp"], branch.force().loop_bodies);
}

TEST(AllPairsCodegen, BlockSizeBecomesTheLaunchBounds) {
  const Built b = build([](ToggleValues& t) { t["block_size"] = 128; });
  EXPECT_EQ(b.force().max_threads, 128);
}

TEST(AllPairsCodegen, ClaimCheckerCatchesCodeThatDoesNotMatchItsToggles) {
  const Built with = build([](ToggleValues& t) { t["rsqrt"] = 1; });
  const Built without = build([](ToggleValues& t) { t["rsqrt"] = 0; });
  EXPECT_TRUE(allpairs_code_violations(without.variant, *without.program).empty());
  const auto violations = allpairs_code_violations(with.variant, *without.program);
  ASSERT_FALSE(violations.empty());
  EXPECT_NE(violations[0].find("rsqrt"), std::string::npos);
}

// The performance design, checked where it can be without a GPU: the default (best) variant needs
// about 13 issued instructions per interaction (3 FADD, 3 FFMA, MUFU.RSQ, 3 FMUL, 3 FFMA, plus a
// shared load shared by 4 bodies) and spills nothing.
TEST(AllPairsCodegen, BestVariantNeedsAboutThirteenInstructionsPerInteraction) {
  const Built b = build([](ToggleValues&) {});
  EXPECT_LE(b.force().loop_instructions_per_body(), 13.5);
  EXPECT_EQ(b.force().loop_mix["fma.f32"], 6 * b.force().loop_bodies);
  EXPECT_EQ(b.force().loop_mix["mul.f32"], 3 * b.force().loop_bodies);
  EXPECT_EQ(b.force().loop_mix["add.f32"], 3 * b.force().loop_bodies);
  EXPECT_EQ(b.force().loop_mix["rsqrt"], b.force().loop_bodies);
  EXPECT_EQ(b.resources().spill_store_bytes + b.resources().spill_load_bytes, 0);
}

// The whole ladder plus every choice of every toggle, compiled in parallel: each shows what its
// toggles claim (allpairs_code_violations). Also the integrate and vertex kernels exist in every
// module.
TEST(AllPairsCodegen, LadderAndEveryChoiceCompileAndShowWhatTheirTogglesClaim) {
  std::vector<ToggleValues> combos;
  for (std::size_t r = 0; r < kLadder.size(); ++r) combos.push_back(ladder_toggles(r));
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& def = kToggles[i];
    if (def.algorithm != Algorithm::allpairs || def.kind == ToggleKind::integer) continue;
    for (int v = def.min_value; v <= def.max_value; ++v) {
      ToggleValues t;
      t.values[i] = v;
      combos.push_back(t);
    }
  }
  std::vector<AllPairsVariant> variants;
  for (const auto& t : combos) {
    AllPairsVariant v = select_allpairs_variant(t, 0.01);
    if (std::none_of(variants.begin(), variants.end(), [&](const auto& o) { return o.source.same_code(v.source); }))
      variants.push_back(std::move(v));
  }
  auto engine = test::sm90_engine();
  std::vector<std::shared_ptr<const CompiledProgram>> programs(variants.size());
  std::vector<std::string> errors(variants.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < variants.size(); i = next++) {
      try {
        programs[i] = engine->compile(variants[i].source);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned k = 0; k < std::max(2u, std::thread::hardware_concurrency()); ++k) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  for (std::size_t i = 0; i < variants.size(); ++i) {
    SCOPED_TRACE(variants[i].description);
    ASSERT_TRUE(programs[i]) << errors[i];
    for (const auto& v : allpairs_code_violations(variants[i], *programs[i])) ADD_FAILURE() << v;
    for (const char* k :
         {kAllPairsKickDriftKernel, kAllPairsKickKernel, kAllPairsSumSlicesKernel, kAllPairsVerticesKernel})
      EXPECT_NE(programs[i]->entry(k), nullptr) << k;
  }
}

// `bench clock` times each block in SM cycles and in global-timer nanoseconds. (Dividing cycles by the
// launch's event time instead read 1323 MHz on the H100 while nvidia-smi showed 1980 MHz throughout.)
TEST(AllPairsCodegen, ClockProbeReadsBothTheCycleCounterAndTheGlobalTimer) {
  const auto program = test::sm90_engine()->compile({"clock_probe.cu", {}, {}, "clock probe"});
  EXPECT_NE(program->ptx.find("%clock64"), std::string::npos);
  EXPECT_NE(program->ptx.find("%globaltimer"), std::string::npos);
  const auto* e = program->entry("clock_probe");
  ASSERT_NE(e, nullptr);
  EXPECT_GE(e->mix["fma.f32"], 64) << "eight chains, unrolled eight times";
}

}  // namespace
}  // namespace nbl
