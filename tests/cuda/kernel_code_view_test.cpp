// The tour's "what changed in the code" view (cuda/engine/kernel_code_view.hpp): conditional inclusion as the
// compiler does it, a line diff, and for every step of both tours a non-empty view that shows the lines
// naming the step's macros. Text only: no GPU, no NVRTC. And the generated code's view of the hot loop,
// PTX and SASS side by side (NVRTC and the cubin reader; no GPU, no cuobjdump needed).
#include <gtest/gtest.h>

#include <algorithm>

#include "cuda/engine/kernel_code_view.hpp"
#include "sim/error.hpp"
#include "sim/ladder.hpp"
#include "sim/tour.hpp"

namespace nbl {
namespace {

SourceSnapshot snapshot(const std::string& main, const std::string& header = "") {
  SourceSnapshot s;
  s.main.path = "k.cu";
  s.main.text = main;
  if (!header.empty()) s.headers.push_back({"h.cuh", "h.cuh", header});
  return s;
}

std::vector<std::string> texts(const std::vector<SourceLine>& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(l.text);
  return out;
}

TEST(KernelCodeView, ConditionalInclusionFollowsTheMacros) {
  const std::string main =
      "#include \"h.cuh\"\n"
      "#if NBL_SELF == NBL_SELF_SOFTENING  // a comment\n"
      "  soft();\n"
      "#elif NBL_SELF == NBL_SELF_BRANCH\n"
      "  branch();\n"
      "#else\n"
      "  loops();\n"
      "#endif\n"
      "#if !defined(NBL_X) || \\\n"
      "    (NBL_Y > 2 && NBL_Y < 8)\n"
      "  x_or_y();\n"
      "#endif\n"
      "#ifdef LOCAL\n"
      "  local();\n"
      "#endif\n"
      "#pragma unroll NBL_UNROLL\n";
  const std::string header = "#pragma once\n#define LOCAL 1\nheader();\n";
  const MacroList branch{
      {"NBL_SELF", "1"}, {"NBL_SELF_SOFTENING", "0"}, {"NBL_SELF_BRANCH", "1"}, {"NBL_X", "1"}, {"NBL_Y", "4"}};
  EXPECT_EQ(texts(active_lines(snapshot(main, header), branch)),
            (std::vector<std::string>{"#define LOCAL 1", "header();", "  branch();", "  x_or_y();", "  local();",
                                      "#pragma unroll NBL_UNROLL"}));
  const MacroList loops{
      {"NBL_SELF", "2"}, {"NBL_SELF_SOFTENING", "0"}, {"NBL_SELF_BRANCH", "1"}, {"NBL_X", "1"}, {"NBL_Y", "9"}};
  EXPECT_EQ(texts(active_lines(snapshot(main, header), loops)),
            (std::vector<std::string>{"#define LOCAL 1", "header();", "  loops();", "  local();",
                                      "#pragma unroll NBL_UNROLL"}));
  EXPECT_THROW(active_lines(snapshot("#if A\nx\n"), {}), Error) << "an #if without #endif";
  EXPECT_THROW(active_lines(snapshot("#endif\n"), {}), Error);
}

TEST(KernelCodeView, TheDiffShowsWhatEachSideCompilesWithContext) {
  std::vector<SourceLine> a, b;
  for (const char* t : {"a", "b", "c", "old", "d", "e", "f", "g", "h"}) a.push_back({"k.cu", 0, t});
  for (const char* t : {"a", "b", "c", "new", "d", "e", "f", "g", "h"}) b.push_back({"k.cu", 0, t});
  const auto d = diff_lines(a, b, 1);
  std::string shape;
  for (const auto& l : d) shape += std::string(1, l.kind) + l.line.text + " ";
  EXPECT_EQ(shape, "@c  c -old +new  d ");
  EXPECT_TRUE(diff_lines(a, a).empty());
}

TEST(KernelCodeView, EveryTourStepShowsItsCodeChangeAndTheMacrosLines) {
  const KernelEngine engine;  // its sources and snapshots only: nothing is compiled
  for (TourKind kind : {TourKind::allpairs, TourKind::barneshut}) {
    const Tour tour = load_tour(kind);
    for (const TourStep& step : tour.steps) {
      if (!step.previous || step.note) continue;  // a note switches nothing: it says why there is no switch
      SCOPED_TRACE(std::string(to_string(kind)) + ": " + step.title);
      const auto changes =
          kernel_code_changes(engine, tour.algorithm(), tour.steps[*step.previous].toggles, step.toggles, 0.01);
      ASSERT_FALSE(changes.empty()) << "every step changes the code that runs";
      bool shows_something = false;
      for (const KernelCodeChange& c : changes) {
        shows_something = shows_something || !c.diff.empty() || !c.macro_lines.empty() || !c.option_changes.empty();
        // Every changed macro that the kernels use shows up with its lines.
        for (const std::string& macro : c.changed_macros) {
          const bool named = std::any_of(c.macro_lines.begin(), c.macro_lines.end(),
                                         [&](const SourceLine& l) { return l.text.find(macro) != std::string::npos; });
          const bool used = macro.find("NBL_PARALLELISM") == std::string::npos &&
                            macro.find("NBL_TILING") == std::string::npos &&
                            macro.find("NBL_BH_BUILD") == std::string::npos;  // these pick the kernel file instead
          if (used) {
            EXPECT_TRUE(named) << macro << " in " << c.kernel;
          }
        }
      }
      EXPECT_TRUE(shows_something);
    }
  }
}

TEST(KernelCodeView, TheRsqrtfStepShowsTheMacroAndTheSharedTilesStepTheNewKernel) {
  const KernelEngine engine;
  const Tour tour = load_tour(TourKind::allpairs);
  auto change = [&](std::size_t step) {
    return kernel_code_changes(engine, Algorithm::allpairs, tour.steps[*tour.steps[step].previous].toggles,
                               tour.steps[step].toggles, 0.01);
  };
  const auto rsqrt = change(4);
  ASSERT_EQ(rsqrt.size(), 1u);
  EXPECT_EQ(rsqrt[0].macro_changes, std::vector<std::string>{"NBL_RSQRT: 0 -> 1"});
  const auto shared = change(6);
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].file_before, "allpairs_global.cu");
  EXPECT_EQ(shared[0].file_after, "allpairs_shared.cu");
  EXPECT_TRUE(std::any_of(shared[0].diff.begin(), shared[0].diff.end(), [](const DiffLine& l) {
    return l.kind == '+' && l.line.text.find("__shared__") != std::string::npos;
  })) << "the tile in shared memory is new code";
  const auto softening = change(8);  // if (i != j) -> no test: the #if branch that compiles changes
  ASSERT_EQ(softening.size(), 1u);
  EXPECT_TRUE(std::any_of(softening[0].diff.begin(), softening[0].diff.end(), [](const DiffLine& l) {
    return l.kind == '-' && l.line.text.find("interact_all_but_self") != std::string::npos;
  }));
}

// The all-pairs tour's step that runs ladder rung `rung_name`, its force kernel's hot loop against the step
// before it, compiled by NVRTC for sm_90 (no disk cache: the test reads what NVRTC makes now).
HotLoopChange force_loop_of_step(const char* rung_name) {
  const Tour tour = load_tour(TourKind::allpairs);
  const auto step = std::find_if(tour.steps.begin(), tour.steps.end(), [&](const TourStep& s) {
    return s.rung && std::string(kLadder[*s.rung].name) == rung_name;
  });
  if (step == tour.steps.end() || !step->previous) {
    ADD_FAILURE() << "the all-pairs tour has no step for rung " << rung_name;
    return {};
  }
  KernelEngine::Config config;
  config.arch = "sm_90";
  config.cache_dir = std::filesystem::path();
  KernelEngine engine(config);
  const auto changes =
      hot_loop_changes(engine, Algorithm::allpairs, tour.steps[*step->previous].toggles, step->toggles, 0.01);
  if (changes.size() != 1) {
    ADD_FAILURE() << "one force kernel expected, got " << changes.size();
    return {};
  }
  return changes.front();
}

const HotLoopRow* row(const std::vector<HotLoopRow>& rows, const std::string& code, const std::string& label) {
  const auto it =
      std::find_if(rows.begin(), rows.end(), [&](const HotLoopRow& r) { return r.code == code && r.label == label; });
  return it == rows.end() ? nullptr : &*it;
}

// -ftz: the PTX is as long as before (NVRTC only adds .ftz to the instructions' names); the machine code
// loses the compare and two multiplies ptxas puts around each rsqrt with IEEE flags. The view shows
// both, each labelled, and says the PTX does not show the change.
TEST(KernelCodeView, TheFtzStepShowsASassDifferenceAndNoPtxDifference) {
  const HotLoopChange c = force_loop_of_step("-ftz");
  ASSERT_TRUE(c.sass_before && c.sass_after) << c.sass_missing;
  EXPECT_EQ(c.sass_after->source, kSassFromCubin);
  EXPECT_FALSE(c.ptx_changed());
  EXPECT_TRUE(c.sass_changed());
  const auto rows = hot_loop_rows(c);
  const HotLoopRow* ptx = row(rows, "PTX", "instructions per interaction (hot loop, static)");
  const HotLoopRow* sass = row(rows, "SASS", "instructions per interaction (hot loop, static)");
  ASSERT_TRUE(ptx && sass);
  EXPECT_EQ(ptx->before, ptx->after);
  EXPECT_NE(sass->before, sass->after);
  EXPECT_NEAR(std::stod(sass->before) - std::stod(sass->after), 3.0, 0.02)
      << "a compare and two multiplies per interaction";
  const HotLoopRow* compare = row(rows, "SASS", "FSETP per interaction");
  ASSERT_TRUE(compare);
  EXPECT_EQ(compare->before, "1.00");
  EXPECT_EQ(compare->after, "0.00");
  const std::string verdict = c.verdict();
  EXPECT_EQ(verdict.rfind("The SASS hot loop goes from " + sass->before + " to " + sass->after, 0), 0u) << verdict;
  EXPECT_NE(verdict.find("FSETP 1.00 -> 0.00"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("static count"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("the PTX does not show it"), std::string::npos) << verdict;
}

// float4: the PTX reads each body in one 16-byte load instead of four, but ptxas had already made one
// LDS.128 of the four: the machine code does not change, and the view says so.
TEST(KernelCodeView, TheFloat4StepShowsAPtxDifferenceAndNoSassDifference) {
  const HotLoopChange c = force_loop_of_step("float4");
  ASSERT_TRUE(c.sass_before && c.sass_after) << c.sass_missing;
  EXPECT_TRUE(c.ptx_changed());
  EXPECT_FALSE(c.sass_changed());
  const auto rows = hot_loop_rows(c);
  const HotLoopRow* ptx = row(rows, "PTX", "instructions per interaction (hot loop, static)");
  const HotLoopRow* sass = row(rows, "SASS", "instructions per interaction (hot loop, static)");
  ASSERT_TRUE(ptx && sass);
  EXPECT_NE(ptx->before, ptx->after);
  EXPECT_NEAR(std::stod(sass->before), std::stod(sass->after), 0.05);
  EXPECT_EQ(c.verdict().rfind("No SASS instruction of an interaction changed in the hot loop", 0), 0u) << c.verdict();
  EXPECT_NE(c.verdict().find("although the PTX goes from"), std::string::npos) << c.verdict();
}

// Without SASS the view says so rather than showing PTX alone as if it were the machine code.
TEST(KernelCodeView, AMissingSassCountIsARowThatSaysWhy) {
  HotLoopChange c;
  c.entry = "allpairs_force";
  c.has_before = true;
  c.ptx_before = c.ptx_after = HotLoop{170, 10, std::string(kFromPtx), {{"fma.f32", 60}}};
  c.sass_missing = "cuobjdump (CUDA Toolkit) is not installed and the cubin reader knows sm_70 to sm_90, not sm_100";
  const auto rows = hot_loop_rows(c);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back().code, "SASS");
  EXPECT_NE(rows.back().label.find("not read: cuobjdump"), std::string::npos);
  EXPECT_NE(c.verdict().find("No SASS to compare"), std::string::npos) << c.verdict();
}

}  // namespace
}  // namespace nbl
