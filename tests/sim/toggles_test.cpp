// The toggle table is what the panel's tooltips, the CLI and the JSON settings are made from.
#include "sim/toggles.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace nbl {
namespace {

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

// Every switch whose speedup the tutorial measured carries our H100 figure beside it (the panel shows
// both), except the ones listed here, which BENCHMARKS.md does not measure.
TEST(Toggles, EveryTutorialFigureHasAnH100FigureBesideIt) {
  const std::set<std::string_view> not_measured = {"bh_block_size"};
  for (const auto& t : kToggles) {
    if (t.tutorial.empty() || not_measured.count(t.key)) continue;
    EXPECT_FALSE(t.measured.empty()) << t.key << ": the tutorial measured it, we did not say what the H100 does";
  }
}

}  // namespace
}  // namespace nbl
