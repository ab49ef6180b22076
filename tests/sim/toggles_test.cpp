// The toggle table is what the panel's tooltips, the CLI and the JSON settings are made from; what the
// toggles measured on a GPU is data beside it (assets/measured/figures.json).
#include "sim/toggles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>
#include <string>

#include "sim/error.hpp"
#include "sim/measured_figures.hpp"
#include "sim/resources.hpp"
#include "tests/fresh_seed.hpp"

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
  const std::set<std::string_view> not_measured = {"bh_block_size", "bh_vote"};
  for (const auto& t : kToggles) {
    if (t.tutorial.empty() || not_measured.count(t.key)) continue;
    EXPECT_FALSE(figures.of(t.key).empty()) << t.key << ": the tutorial measured it, assets/measured/figures.json "
                                            << "does not say what the H100 does";
    EXPECT_FALSE(figures.describe(t.key).empty()) << t.key;
  }
}

TEST(MeasuredFigures, EachNamesAToggleAKeptLogItsGpuCommitAndConfiguration) {
  const MeasuredFigures figures = committed_figures();
  ASSERT_FALSE(figures.all().empty());
  for (const auto& f : figures.all()) {
    SCOPED_TRACE(f.toggle + ": " + f.what);
    EXPECT_TRUE(find_toggle(f.toggle)) << f.toggle << ": no such toggle";
    EXPECT_TRUE(f.log.starts_with("benchmarks/")) << f.log;
    EXPECT_TRUE(std::filesystem::is_regular_file(resource_root() / f.log)) << f.log << " is not kept";
    EXPECT_FALSE(f.gpu.empty() || f.commit.empty());
    // The configuration it was measured in: the toggle's algorithm, a scene, N, and the toggle itself.
    EXPECT_EQ(f.config.algorithm, find_toggle(f.toggle)->algorithm == Algorithm::allpairs ? "allpairs" : "barneshut");
    EXPECT_FALSE(f.config.scene.empty());
    EXPECT_GT(f.config.bodies, 0);
    EXPECT_FALSE(f.config.source.empty());
    const bool swept = std::find(f.config.varied.begin(), f.config.varied.end(), f.toggle) != f.config.varied.end();
    EXPECT_TRUE(swept || std::any_of(f.config.toggles.begin(), f.config.toggles.end(),
                                     [&](const auto& t) { return t.first == f.toggle; }))
        << "the configuration does not say what the toggle was";
    if (f.baseline) {
      // A comparison differs from its baseline in the toggle it is about (and a ladder rung in its other changes).
      EXPECT_NE(*f.baseline, f.config.toggles);
    }
  }
}

TEST(MeasuredFigures, ATooltipGroupsValuesByComparisonAndConfigurationAndNamesTheirSource) {
  const MeasuredFigures figures = MeasuredFigures::parse(R"({"figures": [
    {"toggle": "rsqrt", "what": "rsqrtf vs sqrtf", "value": "1.3x at n = 1M", "gpu": "GPU A", "commit": "abc1234",
     "log": "benchmarks/r/ladder-1m.json",
     "config": {"algorithm": "allpairs", "scene": "plummer", "bodies": 1048576, "toggles": {"rsqrt": "on", "unroll": "8"}, "source": "s"}},
    {"toggle": "unroll", "what": "unroll 8 vs 1", "value": "1.1x", "gpu": "GPU A", "commit": "abc1234",
     "log": "benchmarks/r/ladder-1m.json",
     "config": {"algorithm": "allpairs", "scene": "plummer", "bodies": 1048576, "toggles": {"unroll": "8"}, "source": "s"}},
    {"toggle": "rsqrt", "what": "rsqrtf vs sqrtf", "value": "1.5x at n = 64k", "gpu": "GPU A", "commit": "abc1234",
     "log": "benchmarks/r/ladder-64k.json", "note": "a note",
     "config": {"algorithm": "allpairs", "scene": "plummer", "bodies": 65536, "toggles": {"rsqrt": "on", "unroll": "8"}, "source": "s"}}]})");
  const std::string text = figures.describe("rsqrt");
  EXPECT_EQ(text.substr(0, text.find('\n')), "rsqrtf vs sqrtf: 1.3x at n = 1M, 1.5x at n = 64k");
  EXPECT_NE(text.find("measured in: plummer; unroll=8 (the rest at today's defaults); without the toggles added since: "
                      "parallelism"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(GPU A, commit abc1234: benchmarks/r/ladder-1m.json)\n  (GPU A, commit abc1234: "
                      "benchmarks/r/ladder-64k.json)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\na note"), std::string::npos) << text;
  EXPECT_EQ(figures.describe("tiling"), "");
}

// The tour shows a figure only where both of its sides are the step's configurations.
TEST(MeasuredFigures, AComparisonSpeaksOnlyForTheConfigurationsItWasMeasuredIn) {
  std::string all_toggles, baseline_toggles;
  ToggleValues after, before;
  before["bh_rsqrt"] = 0;
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    if (kToggles[i].algorithm != Algorithm::barneshut) continue;
    const std::string key(kToggles[i].key);
    all_toggles += (all_toggles.empty() ? "" : ", ") +
                   ("\"" + key + "\": \"" + toggle_value_text(kToggles[i], after.values[i]) + "\"");
    baseline_toggles += (baseline_toggles.empty() ? "" : ", ") +
                        ("\"" + key + "\": \"" + toggle_value_text(kToggles[i], before.values[i]) + "\"");
  }
  const std::string figure =
      R"({"toggle": "bh_rsqrt", "what": "w", "value": "2x", "gpu": "g", "commit": "c", "log": "l",
      "config": {"algorithm": "barneshut", "scene": "collision", "bodies": 1048576, "toggles": {)" +
      all_toggles + R"(}, "source": "s"}, "baseline": {"toggles": {)" + baseline_toggles + "}}}";
  const MeasuredFigures figures = MeasuredFigures::parse(R"({"figures": [)" + figure + "]}");
  EXPECT_EQ(figures.comparing(Algorithm::barneshut, after, before).size(), 1u);
  EXPECT_TRUE(figures.comparing(Algorithm::barneshut, before, after).empty()) << "the sides swapped";
  ToggleValues other = after;
  other.set(Choice{"bh_build", "insertion"});
  ToggleValues other_before = before;
  other_before.set(Choice{"bh_build", "insertion"});
  EXPECT_TRUE(figures.comparing(Algorithm::barneshut, other, other_before).empty()) << "measured with the Morton build";
  // A run from before a toggle existed names fewer toggles: it speaks for no configuration of today's.
  const MeasuredFigures older =
      MeasuredFigures::parse(R"({"figures": [{"toggle": "bh_rsqrt", "what": "w", "value": "2x",
      "gpu": "g", "commit": "c", "log": "l", "config": {"algorithm": "barneshut", "scene": "plummer", "bodies": 1,
      "toggles": {"bh_rsqrt": "on"}, "source": "s"}, "baseline": {"toggles": {"bh_rsqrt": "off"}}}]})");
  EXPECT_TRUE(older.comparing(Algorithm::barneshut, after, before).empty());
}

TEST(MeasuredFigures, AMalformedFileIsAnInputErrorNamingTheEntry) {
  EXPECT_THROW(MeasuredFigures::parse("not json"), InputError);
  const auto message = [](const std::string& json) {
    try {
      MeasuredFigures::parse(json);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(R"({"figures": [{"toggle": "rsqrt", "what": "x", "value": "1x", "gpu": "g", "log": "l"}]})")
                .find("'commit'"),
            std::string::npos);
  EXPECT_NE(
      message(
          R"({"figures": [{"toggle": "rsqrt", "what": "x", "value": "1x", "gpu": "g", "commit": "c", "log": "l"}]})")
          .find("'config'"),
      std::string::npos)
      << "a figure must say what configuration it was measured in";
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

// The one reader of the "key=value" text toggle_changes writes (--variant, --compare, a trace's B): what
// the writer wrote reads back to the same toggles, every value of every toggle and random mixtures.
TEST(Toggles, ChangesReadBackToTheToggleValuesTheyWereWrittenFrom) {
  for (Algorithm algorithm : {Algorithm::allpairs, Algorithm::barneshut}) {
    for (std::size_t i = 0; i < kToggleCount; ++i) {
      if (kToggles[i].algorithm != algorithm) continue;
      for (int v = kToggles[i].min_value; v <= kToggles[i].max_value; v += kToggles[i].step) {
        ToggleValues written;
        written.values[i] = v;
        ToggleValues read;
        apply_toggle_changes(toggle_changes(ToggleValues{}, written, algorithm), algorithm, read, "test");
        EXPECT_EQ(read, written) << kToggles[i].key << "=" << v;
      }
    }
  }
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (int trial = 0; trial < 200; ++trial) {
    const Algorithm algorithm = trial % 2 ? Algorithm::allpairs : Algorithm::barneshut;
    ToggleValues from, to;
    for (std::size_t i = 0; i < kToggleCount; ++i) {
      const ToggleDef& t = kToggles[i];
      const int steps = (t.max_value - t.min_value) / t.step + 1;
      from.values[i] = t.min_value + static_cast<int>(random() % steps) * t.step;
      to.values[i] =
          t.algorithm == algorithm ? t.min_value + static_cast<int>(random() % steps) * t.step : from.values[i];
    }
    const std::string text = toggle_changes(from, to, algorithm);
    ToggleValues read = from;
    apply_toggle_changes(text, algorithm, read, "test");
    EXPECT_EQ(read, to) << text;
  }
}

TEST(Toggles, ChangesMayBeWrittenWithoutSpacesOrWithMore) {
  ToggleValues read;
  apply_toggle_changes(" unroll = 8 ,layout=soa,, rsqrt=off ", Algorithm::allpairs, read, "test");
  EXPECT_EQ(read[ToggleId("unroll")], 8);
  EXPECT_TRUE(read.is({"layout", "soa"}));
  EXPECT_EQ(read[ToggleId("rsqrt")], 0);
}

// A refusal begins with where the text came from, names the item and says what was expected; the
// toggles are left as they were, even when earlier items were good.
TEST(Toggles, BadChangesAreRefusedNamingTheItemAndChangeNothing) {
  struct Case {
    const char* text;
    std::vector<std::string> named;
  };
  const std::vector<Case> cases = {
      {"unroll=8,unrol=16", {"--variant: ", "\"unrol\"", "no toggle named", "unroll, fma_order"}},
      {"unroll=8,bh_sort=off", {"--variant: ", "bh_sort is a barneshut toggle", "allpairs"}},
      {"unroll=0", {"--variant: unroll", "must lie in [1, 128] (got 0)"}},
      {"unroll=eight", {"--variant: unroll", "takes an integer (got \"eight\")"}},
      {"block_size=100", {"--variant: block_size", "in steps of 32 (got 100)"}},
      {"block_size=4294967552", {"--variant: block_size", "(got 4294967552)"}},
      {"layout=soaa", {"--variant: layout", "must be one of: aos, soa, float4", "\"soaa\""}},
      {"rsqrt=maybe", {"--variant: rsqrt", "takes on or off", "\"maybe\""}},
      {"unroll", {"--variant: ", "key=value", "\"unroll\""}},
      {"=8", {"--variant: ", "key=value", "\"=8\""}},
  };
  for (const Case& c : cases) {
    ToggleValues values;
    values[ToggleId("tiling")] = 2;
    const ToggleValues before = values;
    try {
      apply_toggle_changes(c.text, Algorithm::allpairs, values, "--variant");
      ADD_FAILURE() << c.text << " was accepted";
    } catch (const InputError& e) {
      for (const std::string& part : c.named)
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << c.text << ": " << e.what();
    }
    EXPECT_EQ(values, before) << c.text;
  }
}

// Keys that name no toggle go to the caller's reader (--compare's theta and rung), in their place in
// the text; a key neither knows is refused as unknown.
TEST(Toggles, KeysThatAreNoToggleGoToTheCallersReader) {
  std::vector<std::string> seen;
  const OtherChange rung = [&](const std::string& key, const std::string& value, ToggleValues& values) {
    if (key != "rung") return false;
    seen.push_back(value);
    values = ToggleValues{};
    values[ToggleId("unroll")] = 4;
    return true;
  };
  ToggleValues read;
  apply_toggle_changes("unroll=8, rung=3, rsqrt=off", Algorithm::allpairs, read, "test", rung);
  EXPECT_EQ(seen, std::vector<std::string>{"3"});
  EXPECT_EQ(read[ToggleId("unroll")], 4) << "the rung came after unroll=8";
  EXPECT_EQ(read[ToggleId("rsqrt")], 0) << "and before rsqrt=off";
  EXPECT_THROW(apply_toggle_changes("ladder=3", Algorithm::allpairs, read, "test", rung), InputError);
}

}  // namespace
}  // namespace nbl
