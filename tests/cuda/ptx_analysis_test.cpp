// The generated-code report read from text: PTX instruction classes, the hot loop, ptxas's resource
// lines. Synthetic inputs, so each rule is checked on its own.
#include <gtest/gtest.h>

#include <algorithm>

#include "cuda/engine/ptx_analysis.hpp"

namespace nbl {
namespace {

bool in(const std::vector<std::string_view>& classes, std::string_view c) {
  return std::find(classes.begin(), classes.end(), c) != classes.end();
}

TEST(PtxAnalysis, FtzFmaCountsAsFmaAndAsFlushing) {
  const auto classes = classify_opcode("fma.rn.ftz.f32");
  EXPECT_TRUE(in(classes, "fma.f32"));
  EXPECT_TRUE(in(classes, "ftz"));
  EXPECT_TRUE(in(classes, "total"));
  EXPECT_FALSE(in(classes, "f64"));
}

TEST(PtxAnalysis, ReadOnlyVectorLoadCountsAsGlobalAndAsVector) {
  const auto classes = classify_opcode("ld.global.nc.v4.f32");
  EXPECT_TRUE(in(classes, "ld.global"));
  EXPECT_TRUE(in(classes, "ld.global.v4"));
  EXPECT_FALSE(in(classes, "ld.shared"));
}

TEST(PtxAnalysis, DoubleArithmeticCountsAsF64ButConversionsDoNot) {
  EXPECT_TRUE(in(classify_opcode("fma.rn.f64"), "f64"));
  EXPECT_TRUE(in(classify_opcode("fma.rn.f64"), "fma.f64"));
  EXPECT_TRUE(in(classify_opcode("rsqrt.approx.f64"), "rsqrt"));
  EXPECT_FALSE(in(classify_opcode("cvt.f64.f32"), "f64"));
  EXPECT_TRUE(in(classify_opcode("cvt.f64.f32"), "cvt"));
  EXPECT_FALSE(in(classify_opcode("ld.global.f64"), "f64"));
}

TEST(PtxAnalysis, SubtractionCountsAsAdd) { EXPECT_TRUE(in(classify_opcode("sub.ftz.f32"), "add.f32")); }

TEST(PtxAnalysis, WarpBarrierIsNotABlockBarrier) {
  EXPECT_TRUE(in(classify_opcode("bar.sync"), "bar.sync"));
  EXPECT_TRUE(in(classify_opcode("barrier.sync.aligned"), "bar.sync"));
  EXPECT_FALSE(in(classify_opcode("bar.warp.sync"), "bar.sync"));
}

constexpr const char* kPtx = R"(
.version 8.8
.target sm_90
.address_size 64

.visible .entry force(
	.param .u64 force_param_0
)
.maxntid 256, 1, 1
{
	.reg .f32 	%f<20>;
	ld.param.u64 	%rd1, [force_param_0];
$L__BB0_1:
	ld.shared.v4.f32 	{%f1, %f2, %f3, %f4}, [%rd2];
$L__BB0_2:
	sub.ftz.f32 	%f5, %f1, %f9;
	fma.rn.ftz.f32 	%f6, %f5, %f5, %f10;
	rsqrt.approx.ftz.f32 	%f7, %f6;
	sub.ftz.f32 	%f5, %f1, %f11;
	fma.rn.ftz.f32 	%f6, %f5, %f5, %f10;
	rsqrt.approx.ftz.f32 	%f7, %f6;
	setp.ne.s32 	%p1, %r1, 256;
	@%p1 bra 	$L__BB0_2;
	bar.sync 	0;
	@%p2 bra 	$L__BB0_1;
$L__BB0_3:
	rsqrt.approx.ftz.f32 	%f7, %f6;
	@!%p3 bra.uni 	$L__BB0_3;
	{ // callseq
	.reg .b32 temp_param_reg;
	}
	ret;
}

.visible .entry other()
{
	ret;
}
)";

TEST(PtxAnalysis, HotLoopIsTheInnermostLoopWithTheMostInteractions) {
  const auto entries = analyze_ptx(kPtx);
  ASSERT_EQ(entries.size(), 2u);
  const PtxEntryStats& e = entries[0];
  EXPECT_EQ(e.name, "force");
  EXPECT_EQ(e.max_threads, 256);
  EXPECT_EQ(e.mix["rsqrt"], 3);
  EXPECT_EQ(e.mix["bra"], 3);
  EXPECT_EQ(e.mix["ld.param"], 1);
  EXPECT_EQ(e.mix["ld.shared.v4"], 1);
  // $L__BB0_1 .. the outer branch contains the inner loop, so the inner one (2 bodies) is the hot
  // loop even though the outer one holds the same interactions; $L__BB0_3 has only one.
  ASSERT_TRUE(e.has_loop);
  EXPECT_EQ(e.loop_bodies, 2);
  EXPECT_EQ(e.loop_mix["fma.f32"], 2);
  EXPECT_EQ(e.loop_mix["ld.shared"], 0);
  EXPECT_EQ(e.loop_mix.total(), 8);
  EXPECT_DOUBLE_EQ(e.loop_instructions_per_body(), 4.0);
  EXPECT_EQ(entries[1].name, "other");
  EXPECT_FALSE(entries[1].has_loop);
}

TEST(PtxAnalysis, ReadsPtxasResourceReportPerFunction) {
  const char* log =
      "ptxas info    : 4 bytes gmem, 72 bytes cmem[3]\n"
      "ptxas info    : Compiling entry function 'allpairs_force' for 'sm_90'\n"
      "ptxas info    : Function properties for allpairs_force\n"
      "ptxas         .     8 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 48 registers, used 1 barriers, 4096 bytes smem, 400 bytes cmem[0]\n"
      "ptxas info    : Compile time = 9.769 ms\n"
      "ptxas info    : Compiling entry function 'allpairs_kick' for 'sm_90'\n"
      "ptxas info    : Function properties for allpairs_kick\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 22 registers, 380 bytes cmem[0]\n";
  const auto stats = parse_ptxas_log(log);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].name, "allpairs_force");
  EXPECT_EQ(stats[0].registers, 48);
  EXPECT_EQ(stats[0].shared_bytes, 4096);
  EXPECT_EQ(stats[0].spill_store_bytes, 12);
  EXPECT_EQ(stats[0].spill_load_bytes, 16);
  EXPECT_EQ(stats[0].stack_bytes, 8);
  EXPECT_EQ(stats[0].barriers, 1);
  EXPECT_EQ(stats[1].name, "allpairs_kick");
  EXPECT_EQ(stats[1].registers, 22);
  EXPECT_EQ(stats[1].shared_bytes, 0);
}

}  // namespace
}  // namespace nbl
