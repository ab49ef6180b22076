// kSettings is what validate(), the JSON settings, the command line and the panel are made from: every
// row must reach each of them, with the same range. (The command line and the panel are checked in
// tests/app/setting_options_test.cpp.)
#include "sim/settings_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "sim/error.hpp"
#include "sim/settings_io.hpp"

namespace nbl {
namespace {

// A valid value for the row that differs from its default, so a round trip that drops it shows.
SettingValue changed_value(const SettingDef& s) {
  const SettingValue fallback = s.access.get(Settings{});
  switch (s.kind) {
    case SettingKind::choice:
      for (const EnumName& c : s.choices)
        if (!(SettingValue{EnumValue{c.value}} == fallback)) return EnumValue{c.value};
      break;
    case SettingKind::integer: return s.integer_max == kNoIntegerLimit ? s.integer_min + 12345 : s.integer_max;
    case SettingKind::unsigned64: return std::uint64_t{0xFEDCBA9876543210ull};
    case SettingKind::real: return std::isinf(s.real_max) ? s.real_min + 0.375 : s.real_max;
    case SettingKind::flag: return !std::get<bool>(fallback);
  }
  ADD_FAILURE() << s.key << ": no value other than the default";
  return fallback;
}

// The message validate() gives for `value` in the row, "" when it accepts it.
std::string validate_message(const SettingDef& s, const SettingValue& value) {
  Settings settings;
  s.access.set(settings, value);
  try {
    validate(settings);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SettingsTable, KeysOptionsAndLabelsAreUnique) {
  std::set<std::string_view> keys, labels, options;
  for (const auto& s : kSettings) {
    EXPECT_TRUE(keys.insert(s.key).second) << s.key;
    EXPECT_TRUE(labels.insert(s.label).second) << s.label;
    EXPECT_TRUE(options.insert(s.cli).second) << s.cli;
    EXPECT_EQ(find_setting(s.key), &s);
    EXPECT_FALSE(s.noun.empty() || s.help.empty()) << s.key << ": messages and tooltips need its noun and help";
    EXPECT_TRUE(s.access.get && s.access.set) << s.key;
  }
}

TEST(SettingsTable, TheDefaultsAreValid) {
  const Settings defaults;
  for (const auto& s : kSettings) EXPECT_EQ(check_setting(s, s.access.get(defaults)), "") << s.key;
  EXPECT_NO_THROW(validate(defaults));
}

TEST(SettingsTable, EveryRowHasAJsonKeyThatRoundTrips) {
  for (const auto& s : kSettings) {
    Settings settings;
    const SettingValue value = changed_value(s);
    ASSERT_EQ(check_setting(s, value), "") << s.key;
    s.access.set(settings, value);
    const std::string text = settings_to_json(settings);
    const auto json = nlohmann::json::parse(text);
    const auto& section = s.group == SettingGroup::view ? json.at("view") : json;
    EXPECT_TRUE(section.contains(std::string(s.key))) << json_path(s) << " missing from\n" << text;
    EXPECT_TRUE(s.access.get(settings_from_json(text)) == value) << json_path(s) << " did not survive the round trip";
  }
}

TEST(SettingsTable, ValidateEnforcesEveryRowsRangeAndNamesIt) {
  for (const auto& s : kSettings) {
    std::vector<SettingValue> inside, outside;
    switch (s.kind) {
      case SettingKind::integer:
        inside = {s.integer_min};
        outside = {s.integer_min - 1};
        if (s.integer_max != kNoIntegerLimit) {
          inside.push_back(s.integer_max);
          outside.push_back(s.integer_max + 1);
        }
        break;
      case SettingKind::real: {
        const double step = std::max(std::abs(s.real_min) * 0.01, 1e-3);  // beyond a float's rounding
        inside = {s.real_min_exclusive ? s.real_min + step : s.real_min};
        outside = {s.real_min_exclusive ? s.real_min : s.real_min - step, NAN, INFINITY};
        if (!std::isinf(s.real_max)) {
          inside.push_back(s.real_max);
          outside.push_back(s.real_max * 1.01);
        }
        break;
      }
      case SettingKind::choice:
        for (const EnumName& c : s.choices) inside.push_back(EnumValue{c.value});
        outside = {EnumValue{-1}, EnumValue{static_cast<int>(s.choices.size()) + 7}};
        break;
      case SettingKind::unsigned64: inside = {std::uint64_t{0}, std::uint64_t{~0ull}}; break;  // every value is one
      case SettingKind::flag: inside = {true, false}; break;
    }
    for (const auto& v : inside) EXPECT_EQ(validate_message(s, v), "") << s.key << " = " << format_setting(s, v);
    for (const auto& v : outside) {
      const std::string message = validate_message(s, v);
      EXPECT_NE(message.find(std::string(s.noun)), std::string::npos)
          << s.key << " = " << format_setting(s, v) << ": " << (message.empty() ? "accepted" : message);
    }
  }
}

TEST(SettingsTable, OptionalRowsAcceptUnsetAndTheOthersRefuseIt) {
  for (const auto& s : kSettings) {
    if (s.unset_means) {
      EXPECT_EQ(check_setting(s, Unset{}), "") << s.key;
      EXPECT_FALSE(s.unset_means().empty()) << s.key;
    } else {
      EXPECT_NE(check_setting(s, Unset{}), "") << s.key;
    }
  }
}

TEST(SettingsTable, ChoicesComeFromTheEnumsNameTables) {
  for (const auto& s : kSettings) {
    if (s.kind != SettingKind::choice) continue;
    ASSERT_FALSE(s.choices.empty()) << s.key;
    std::set<std::string_view> names;
    for (const EnumName& c : s.choices) EXPECT_TRUE(names.insert(c.name).second) << s.key << ": " << c.name;
  }
  EXPECT_EQ(SettingId("scene").def().choices.size(), kSceneNames.size());
  EXPECT_EQ(to_string(Scene::kepler), "kepler");
  EXPECT_EQ(parse_color_mode("index"), ColorMode::body_index);
}

TEST(SettingsTable, MessagesSayWhatWasGiven) {
  const SettingDef& depth = SettingId("octree_depth").def();
  EXPECT_EQ(check_setting(depth, std::int64_t{40}), "must lie in [0, 32] (got 40)");
  EXPECT_EQ(check_setting(SettingId("bodies").def(), std::int64_t{0}), "must be at least 1 (got 0)");
  EXPECT_EQ(check_setting(SettingId("dt").def(), 0.0), "must be a positive number (got 0)");
  EXPECT_EQ(check_setting(SettingId("backend").def(), EnumValue{9}), "must be one of: auto, gpu, cpu (got 9)");
}

TEST(SettingsTable, TheDefaultBodyCountRuleStatesEveryCase) {
  const std::string rule = default_body_count_rule();
  for (const Algorithm a : {Algorithm::allpairs, Algorithm::barneshut})
    for (const bool gpu : {false, true})
      EXPECT_NE(rule.find(std::to_string(default_body_count(Scene::collision, a, gpu))), std::string::npos) << rule;
  EXPECT_EQ(default_body_count(Scene::kepler, Algorithm::barneshut, true), 2u);
}

// A/B: B is A's settings with changes, each a toggle or a row that varies_in_ab. The rows are data:
// what the A/B path (bench --compare, a script's ab_start, the lab's swap, the trace) carries of them
// comes from the table, for theta as for any row so marked.
TEST(SettingsTable, AnAbsBDiffersInTogglesAndTheRowsThatVaryInAnAb) {
  std::set<std::string_view> varying;
  for (const SettingDef& s : kSettings)
    if (s.varies_in_ab) varying.insert(s.key);
  // dt and softening vary per run, but the simulation resolves B's as A's (one state, one force law).
  EXPECT_EQ(varying, std::set<std::string_view>{"theta"});

  Settings a;
  a.algorithm = Algorithm::barneshut;
  Settings b = a;
  EXPECT_EQ(ab_changes(a, b), "");
  EXPECT_TRUE(same_ab_settings(a, b));
  b.toggles[ToggleId("bh_sort")] = 0;
  b.opening_angle = 0.3;
  b.dt = 0.125;  // shared with A: neither named nor compared
  EXPECT_EQ(ab_changes(a, b), "bh_sort=off, theta=0.3");
  EXPECT_FALSE(same_ab_settings(a, b));

  Settings swapped = a;
  copy_ab_settings(swapped, b);
  EXPECT_TRUE(same_ab_settings(swapped, b));
  EXPECT_EQ(swapped.opening_angle, 0.3);
  EXPECT_EQ(swapped.dt, a.dt) << "dt is not B's to carry over";

  // A row that applies to another algorithm is not named, as the toggles of the other algorithm are not.
  a.algorithm = b.algorithm = Algorithm::allpairs;
  EXPECT_EQ(ab_changes(a, b), "");
}

}  // namespace
}  // namespace nbl
