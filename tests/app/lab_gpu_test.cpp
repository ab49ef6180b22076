// The whole lab on a GPU (label gpu; skips without one), offscreen through the NVIDIA driver's EGL: a
// script drives A/B as the panel does, and the trace carries B's figures frame by frame. This is the
// lab loop with interop, the build queue and A/B together, which no display-bound test can run there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "app/lab/lab.hpp"
#include "cuda/device.hpp"

namespace nbl {
namespace {

LabOptions scripted(Algorithm algorithm, std::size_t n, const std::string& events) {
  LabOptions o;
  o.offscreen = true;
  o.window.width = 960;
  o.window.height = 540;
  o.settings.scene = algorithm == Algorithm::allpairs ? Scene::plummer : Scene::collision;
  o.settings.algorithm = algorithm;
  o.settings.body_count = n;
  o.settings.backend = BackendKind::gpu;
  o.tune_body_count = false;
  o.script = parse_script("{\"events\": [" + events + "]}", "ab.json");
  return o;
}

// The frames that compared B, and their rows.
std::vector<FrameRecord> compared(const Lab& lab) {
  std::vector<FrameRecord> rows;
  for (const FrameRecord& r : lab.trace().records())
    if (r.ab_a_ms && r.ab_b_ms) rows.push_back(r);
  return rows;
}

TEST(LabOnGpu, AScriptedAllPairsABTracesBsFiguresAndSwaps) {
  std::string why;
  if (!query_device(&why)) GTEST_SKIP() << why;
  Lab lab(scripted(Algorithm::allpairs, 16384, R"(
    {"frame": 2, "action": "ab_start", "rung": "unroll 8"},
    {"time": 6, "action": "ab_swap"},
    {"time": 12, "action": "quit"})"));
  ASSERT_EQ(lab.run(), 0);
  // What the lab went through, one line per change of variant, B, B's state, swap or script action,
  // so a failure below says where the A/B stopped producing figures.
  std::string previous;
  for (const FrameRecord& r : lab.trace().records()) {
    const std::string now = r.variant + " | B: " + r.ab_b + " (" + r.ab_state + ")" + (r.ab_b_ms ? " compared" : "") +
                            (r.swap.empty() ? "" : " | swap " + r.swap) +
                            (r.script.empty() ? "" : " | script " + r.script) +
                            (r.build_state.empty() ? "" : " | build " + r.build_state + " " + r.build_label);
    if (now != previous) std::printf("frame %lld: %s\n", static_cast<long long>(r.frame), now.c_str());
    previous = now;
  }
  std::printf("last status: %s\nlast error: %s\n", lab.last_status().c_str(), lab.last_error().c_str());
  const auto rows = compared(lab);
  ASSERT_GT(rows.size(), 20u) << "B built and compared within seconds";
  const std::string first_b = rows.front().ab_b;
  EXPECT_NE(first_b.find("unroll=8"), std::string::npos) << first_b;
  EXPECT_NE(rows.back().ab_b, first_b) << "the swap made A's old toggles B";
  for (const FrameRecord& r : rows) {
    EXPECT_GT(*r.ab_a_ms, 0);
    EXPECT_GT(*r.ab_b_ms, 0);
    EXPECT_LT(*r.ab_difference, 1e-5) << "two fp32 all-pairs variants agree to rounding";
  }
  const TraceSummary s = lab.trace().summarize();
  ASSERT_EQ(s.comparisons.size(), 2u);
  EXPECT_FALSE(s.comparisons[0].speedup.empty());
  std::ostringstream out;
  lab.trace().print_summary(out);
  std::printf("%s", out.str().c_str());
}

// B opens cells by the angle 0.3, A by the default relative test.
TEST(LabOnGpu, AScriptedBarnesHutABComparesTheAngleWithTheRelativeTest) {
  std::string why;
  if (!query_device(&why)) GTEST_SKIP() << why;
  Lab lab(scripted(Algorithm::barneshut, 65536, R"(
    {"frame": 2, "action": "ab_start", "theta": 0.3, "toggles": {"bh_sort": false, "bh_opening": "geometric"}},
    {"time": 8, "action": "ab_stop"},
    {"time": 9, "action": "quit"})"));
  ASSERT_EQ(lab.run(), 0);
  const auto rows = compared(lab);
  ASSERT_GT(rows.size(), 10u);
  EXPECT_NE(rows.front().ab_b.find("theta=0.3"), std::string::npos) << rows.front().ab_b;
  EXPECT_NE(rows.front().ab_b.find("bh_sort=off"), std::string::npos) << rows.front().ab_b;
  EXPECT_NE(rows.front().ab_b.find("bh_opening=geometric"), std::string::npos) << rows.front().ab_b;
  for (const FrameRecord& r : rows)
    EXPECT_LT(*r.ab_difference, 1e-2) << "either opening test differs by the tree's error";
  EXPECT_TRUE(lab.trace().records().back().ab_b.empty()) << "stopped";
}

}  // namespace
}  // namespace nbl
