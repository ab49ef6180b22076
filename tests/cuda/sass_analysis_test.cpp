// The SASS hot-loop reader on a listing in cuobjdump's format (no GPU, no cuobjdump needed): the
// innermost loop with the most reciprocal square roots, its issued instructions per interaction.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "cuda/allpairs/variant.hpp"
#include "cuda/engine/sass_analysis.hpp"
#include "sim/ladder.hpp"

namespace nbl {
namespace {

// Two functions; in allpairs_force an outer tile loop holds an inner loop of two interactions
// (2 x MUFU.RSQ) with one shared load, and a NOP that does not issue.
constexpr const char* kListing = R"sass(
	code for sm_90
		Function : other_kernel
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
.L_x_0:
        /*0000*/                   MUFU.RSQ R1, R2 ;                                   /* 0x0000000200017308 */
        /*0010*/                   BRA `(.L_x_0) ;                                      /* 0xfffffff000007947 */
		Function : allpairs_force
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                               /* 0x00000a00ff017b82 */
.L_x_1:
        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;                        /* 0x0000000000007b1d */
.L_x_2:
        /*0020*/                   LDS.128 R4, [R3] ;                                   /* 0x0000000003047984 */
        /*0030*/                   FADD R8, R4, -R20 ;                                  /* 0x8000001404087221 */
        /*0040*/                   FFMA R9, R8, R8, R21 ;                               /* 0x0000000808097223 */
        /*0050*/                   MUFU.RSQ R10, R9 ;                                   /* 0x00000009000a7308 */
        /*0060*/                   FMUL R11, R10, R10 ;                                 /* 0x0000000a0a0b7220 */
        /*0070*/                   FFMA R12, R8, R11, R12 ;                             /* 0x0000000b080c7223 */
        /*0080*/                   FADD R13, R5, -R20 ;                                 /* 0x8000001405087221 */
        /*0090*/                   FFMA R14, R13, R13, R21 ;                            /* 0x0000000d0d0e7223 */
        /*00a0*/                   MUFU.RSQ R15, R14 ;                                  /* 0x0000000e000f7308 */
        /*00b0*/                   NOP ;                                                /* 0x0000000000007918 */
        /*00c0*/                   FFMA R16, R13, R15, R16 ;                            /* 0x0000000f0d107223 */
        /*00d0*/              @P0 BRA `(.L_x_2) ;                                      /* 0xffffffff00000947 */
        /*00e0*/                   ISETP.GE.AND P1, PT, R2, R3, PT ;                    /* 0x000000030200720c */
        /*00f0*/              @!P1 BRA `(.L_x_1) ;                                     /* 0xfffffff000009947 */
        /*0100*/                   EXIT ;                                               /* 0x000000000000794d */
)sass";

TEST(SassAnalysis, FindsTheInnermostLoopOfInteractionsOfTheNamedFunction) {
  const auto loop = sass_hot_loop(kListing, "allpairs_force");
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->interactions, 2);
  EXPECT_EQ(loop->instructions, 11);  // LDS.128 .. BRA, the NOP left out
  EXPECT_DOUBLE_EQ(loop->per_interaction(), 5.5);
  EXPECT_EQ(loop->source, "SASS (cuobjdump)");
  const auto other = sass_hot_loop(kListing, "other_kernel");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->instructions, 2);
  EXPECT_FALSE(sass_hot_loop(kListing, "no_such_kernel"));
  EXPECT_FALSE(sass_hot_loop("", "allpairs_force"));
}

// A real listing: cuobjdump of a bare cubin names branch targets by address (`@!P0 BRA 0x4b0`), not
// by label, which is what NVRTC's cubins give on the GPU machine. This variant (SoA, untiled, 4 bodies
// per thread) runs its interactions in the loop 0x4b0 .. 0x950: 75 instructions, 4 MUFU.RSQ (counted
// by hand from the file); the outer loops hold no interactions of their own, and the trap loop after
// EXIT (`BRA 0xf00` to itself) holds none.
TEST(SassAnalysis, ReadsARealH100ListingWhoseBranchesNameAddresses) {
  std::ifstream in(std::string(NBL_SOURCE_DIR) + "/tests/cuda/data/sass_sm90_allpairs_soa_untiled.txt");
  ASSERT_TRUE(in) << "the fixture is missing";
  std::stringstream text;
  text << in.rdbuf();
  const auto loop = sass_hot_loop(text.str(), "allpairs_force");
  ASSERT_TRUE(loop) << "no loop of interactions found";
  EXPECT_EQ(loop->interactions, 4);
  EXPECT_EQ(loop->instructions, 75);
  EXPECT_DOUBLE_EQ(loop->per_interaction(), 18.75);
}

std::string fixture(const char* name) {
  std::ifstream in(std::string(NBL_SOURCE_DIR) + "/tests/cuda/data/" + name);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The same listing's machine words (each instruction's two 64-bit halves, in its comments) decoded by
// the cubin reader: every opcode, every branch target and the hot loop as cuobjdump printed them.
TEST(SassAnalysis, TheCubinReaderDecodesWhatCuobjdumpPrintedForTheSameWords) {
  const std::string listing = fixture("sass_sm90_allpairs_soa_untiled.txt");
  ASSERT_FALSE(listing.empty()) << "the fixture is missing";
  const std::regex instruction(
      R"(/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*);\s*/\* 0x([0-9a-f]{16}) \*/)");
  const std::regex second(R"(^\s*/\* 0x([0-9a-f]{16}) \*/)");
  std::istringstream in(listing);
  std::string line, code;
  struct Printed {
    std::string opcode, operands;
  };
  std::vector<Printed> printed;
  while (std::getline(in, line)) {
    std::smatch m, h;
    if (!std::regex_search(line, m, instruction)) continue;
    std::string next;
    ASSERT_TRUE(std::getline(in, next) && std::regex_search(next, h, second)) << line;
    for (const std::string& word : {m[5].str(), h[1].str()}) {
      const std::uint64_t value = std::stoull(word, nullptr, 16);
      char bytes[8];
      std::memcpy(bytes, &value, 8);  // the cubin stores each half little-endian, as this machine does
      code.append(bytes, 8);
    }
    printed.push_back({m[3].str(), m[4].str()});
  }
  const std::vector<SassInstruction> decoded = decode_sass(code, 90);
  ASSERT_EQ(decoded.size(), printed.size());
  ASSERT_EQ(decoded.size(), 256u);
  int branches = 0;
  for (std::size_t i = 0; i < decoded.size(); ++i) {
    SCOPED_TRACE(printed[i].opcode + printed[i].operands);
    EXPECT_EQ(decoded[i].address, static_cast<long>(16 * i));
    EXPECT_EQ(decoded[i].opcode, sass_opcode_class(printed[i].opcode));
    if (printed[i].opcode == "BRA") {
      ++branches;
      EXPECT_EQ(decoded[i].branch_to,
                std::stol(printed[i].operands.substr(printed[i].operands.find("0x")), nullptr, 16));
    }
  }
  EXPECT_EQ(branches, 6);
  const auto loop = sass_hot_loop(decoded, kSassFromCubin);
  ASSERT_TRUE(loop);
  EXPECT_EQ(loop->interactions, 4);
  EXPECT_EQ(loop->instructions, 75);
  EXPECT_EQ(loop->source, kSassFromCubin);
}

TEST(SassAnalysis, OpcodeClassesKeepTheFunctionOfMufuAndTheWidthOfLoads) {
  EXPECT_EQ(sass_opcode_class("FSETP.GEU.AND"), "FSETP");
  EXPECT_EQ(sass_opcode_class("IMAD.MOV.U32"), "IMAD");
  EXPECT_EQ(sass_opcode_class("MUFU.RSQ"), "MUFU.RSQ");
  EXPECT_EQ(sass_opcode_class("LDS.128"), "LDS.128");
  EXPECT_EQ(sass_opcode_class("LDG.E.64.CONSTANT"), "LDG.64");
  EXPECT_EQ(sass_opcode_class("LDG.E"), "LDG");
  EXPECT_EQ(sass_opcode_class("FFMA"), "FFMA");
}

// NVRTC's own cubins (no GPU, no cuobjdump): the ladder's -ftz rung against the one before it. The PTX
// is the same length both ways; in the machine code ptxas wraps each rsqrt of the IEEE build in a compare
// and two multiplies that rescale a denormal input, which -ftz drops.
TEST(SassAnalysis, TheCubinReaderSeesWhatFtzRemovesFromTheMachineCode) {
  KernelEngine::Config config;
  config.arch = "sm_90";
  config.cache_dir = std::filesystem::path();
  KernelEngine engine(config);
  auto loop_of = [&](std::size_t rung) {
    const auto program = engine.compile(select_allpairs_variant(ladder_toggles(rung), 0.01).source);
    std::string why;
    const auto code = read_cubin_sass(program->image, kAllPairsForceKernel, program->arch, &why);
    EXPECT_TRUE(code) << why;
    return code ? sass_hot_loop(*code, kSassFromCubin) : std::nullopt;
  };
  auto count = [](const HotLoop& l, const char* cls) {
    for (const auto& [name, n] : l.mix)
      if (name == cls) return n;
    return 0;
  };
  std::size_t ftz = 0;
  while (ftz < kLadder.size() && std::string(kLadder[ftz].name) != "-ftz") ++ftz;
  ASSERT_LT(ftz, kLadder.size()) << "the ladder has no -ftz rung";
  const auto ieee = loop_of(ftz - 1), flushed = loop_of(ftz);
  ASSERT_TRUE(ieee && flushed);
  EXPECT_EQ(ieee->interactions, flushed->interactions);
  EXPECT_EQ(count(*ieee, "MUFU.RSQ"), ieee->interactions) << "one rsqrt per interaction";
  EXPECT_EQ(count(*ieee, "FSETP"), ieee->interactions) << "IEEE flags: a denormal test around every rsqrt";
  EXPECT_EQ(count(*flushed, "FSETP"), 0);
  EXPECT_EQ(count(*ieee, "FMUL") - count(*flushed, "FMUL"), 2 * ieee->interactions);
  EXPECT_NEAR(ieee->per_interaction() - flushed->per_interaction(), 3.0, 0.01);
  std::string why;
  EXPECT_FALSE(read_cubin_sass("not an ELF", kAllPairsForceKernel, "sm_90", &why));
  EXPECT_FALSE(read_cubin_sass("", kAllPairsForceKernel, "sm_100", &why));
  EXPECT_NE(why.find("sm_70 to sm_90"), std::string::npos) << why;
}

TEST(SassAnalysis, IssueCeilingFollowsSmsClockAndInstructions) {
  // An H100 at 1980 MHz and 13.25 instructions per interaction: 2.52e12 interactions/s.
  EXPECT_NEAR(issue_ceiling(132, 1980, 13.25), 2.525e12, 0.005e12);
  EXPECT_EQ(issue_ceiling(132, 1980, 0), 0.0);
}

}  // namespace
}  // namespace nbl
