// The toggle table is what the panel's tooltips, the CLI and the JSON settings are made from; what the
// toggles measured on a GPU is data beside it (assets/measured/figures.json).
#include "sim/toggles.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "sim/error.hpp"
#include "sim/measured_figures.hpp"
#include "sim/resources.hpp"

namespace nbl {
namespace {

MeasuredFigures committed_figures() { return MeasuredFigures::load(find_resource("assets/measured/figures.json")); }

TEST(Toggles, KeysAndMacrosAreUnique) {
  std::set<std::string_view> keys, macros;
  for (const auto& t : kToggles) {
    EXPECT_TRUE(keys.insert(t.key).second) << t.key;
    if (!t.macro.empty()) {
      EXPECT_TRUE(macros.insert(t.macro).second) << t.macro;
    }
  }
}

TEST(Toggles, DefaultsLieInTheirRange) {
  for (const auto& t : kToggles) {
    EXPECT_GE(t.default_value, t.min_value) << t.key;
    EXPECT_LE(t.default_value, t.max_value) << t.key;
    if (t.kind == ToggleKind::choice) {
      EXPECT_EQ(static_cast<int>(t.choices.size()), t.max_value + 1) << t.key;
    }
  }
}

// Choice values are named, checked at compile time against the table (a typo does not build).
TEST(Toggles, ChoicesAreLookedUpByName) {
  static_assert(Choice{"layout", "aos"}.value == 0 && Choice{"layout", "float4"}.value == 2);
  static_assert(Choice{"bh_traversal", "group"}.value == 2);
  ToggleValues t;
  EXPECT_TRUE(t.is({"layout", "float4"}));  // the default
  t.set({"layout", "soa"});
  EXPECT_TRUE(t.is({"layout", "soa"}));
  EXPECT_EQ(t["layout"], 1);
  EXPECT_FALSE(t.is({"bh_build", "insertion"}));
}

TEST(Toggles, ValuesAreCheckedInSixtyFourBits) {
  const ToggleDef& block = ToggleId("block_size").def();
  EXPECT_EQ(toggle_problem(block, 256), "");
  EXPECT_EQ(toggle_problem(block, 4294967552), "must lie in [32, 1024] in steps of 32 (got 4294967552)")
      << "4294967552 is 256 once cut to 32 bits";
  EXPECT_NE(toggle_problem(block, 100), "");
}

// Every switch whose speedup the tutorial measured carries our figure beside it (the panel shows both),
// read from the measured-figures file, except the ones listed here, which no kept log measures.
TEST(Toggles, EveryTutorialFigureHasAnH100FigureBesideIt) {
  const MeasuredFigures figures = committed_figures();
  const std::set<std::string_view> not_measured = {"bh_block_size"};
  for (const auto& t : kToggles) {
    if (t.tutorial.empty() || not_measured.count(t.key)) continue;
    EXPECT_FALSE(figures.of(t.key).empty()) << t.key << ": the tutorial measured it, assets/measured/figures.json "
                                            << "does not say what the H100 does";
    EXPECT_FALSE(figures.describe(t.key).empty()) << t.key;
  }
}

TEST(MeasuredFigures, EachNamesAToggleAndAKeptLogWithItsGpuAndCommit) {
  const MeasuredFigures figures = committed_figures();
  ASSERT_FALSE(figures.all().empty());
  for (const auto& f : figures.all()) {
    EXPECT_TRUE(find_toggle(f.toggle)) << f.toggle << ": no such toggle";
    EXPECT_TRUE(f.log.starts_with("benchmarks/")) << f.log;
    EXPECT_TRUE(std::filesystem::is_regular_file(resource_root() / f.log)) << f.log << " is not kept";
    EXPECT_FALSE(f.gpu.empty() || f.commit.empty()) << f.toggle << ": " << f.what;
  }
}

TEST(MeasuredFigures, ATooltipGroupsValuesByComparisonAndNamesTheirSource) {
  const MeasuredFigures figures = MeasuredFigures::parse(R"({"figures": [
    {"toggle": "rsqrt", "what": "rsqrtf vs sqrtf", "value": "1.3x at n = 1M", "gpu": "GPU A", "commit": "abc1234",
     "log": "benchmarks/r/ladder-1m.json"},
    {"toggle": "unroll", "what": "unroll 8 vs 1", "value": "1.1x", "gpu": "GPU A", "commit": "abc1234",
     "log": "benchmarks/r/ladder-1m.json"},
    {"toggle": "rsqrt", "what": "rsqrtf vs sqrtf", "value": "1.5x at n = 64k", "gpu": "GPU A", "commit": "abc1234",
     "log": "benchmarks/r/ladder-64k.json", "note": "a note"}]})");
  EXPECT_EQ(figures.describe("rsqrt"),
            "rsqrtf vs sqrtf: 1.3x at n = 1M, 1.5x at n = 64k\n"
            "(GPU A, commit abc1234: benchmarks/r/ladder-1m.json, benchmarks/r/ladder-64k.json)\n"
            "a note");
  EXPECT_EQ(figures.describe("tiling"), "");
}

TEST(MeasuredFigures, AMalformedFileIsAnInputErrorNamingTheEntry) {
  EXPECT_THROW(MeasuredFigures::parse("not json"), InputError);
  try {
    MeasuredFigures::parse(R"({"figures": [{"toggle": "rsqrt", "what": "x", "value": "1x", "gpu": "g", "log": "l"}]})");
    FAIL() << "a figure without its commit was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'commit'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nbl

namespace nbl {
namespace {

TEST(Toggles, ChangesNameEachDifferingToggleOfTheAlgorithmAsTheCliWritesIt) {
  ToggleValues a, b;
  EXPECT_EQ(toggle_changes(a, b, Algorithm::allpairs), "");
  b[ToggleId("unroll")] = 128;
  b.set(Choice{"layout", "soa"});
  b[ToggleId("rsqrt")] = 0;
  b[ToggleId("bh_sort")] = 0;  // another algorithm's: not named for all-pairs
  EXPECT_EQ(toggle_changes(a, b, Algorithm::allpairs), "layout=soa, rsqrt=off, unroll=128");
  EXPECT_EQ(toggle_changes(a, b, Algorithm::barneshut), "bh_sort=off");
}

}  // namespace
}  // namespace nbl
