// Every row of kSettings reaches the command line (an option that parses into the field, with the
// range of validate()) and the panel (a widget whose range is that same range), without ImGui.
#include "app/core/options/setting_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "app/core/options/run_options.hpp"
#include "app/lab/setting_widgets.hpp"
#include "app/core/options/view_options.hpp"
#include "sim/error.hpp"

namespace nbl {
namespace {

// The window's command line, as cmd_window.cpp builds it: every run option and every view option.
struct WindowCommandLine {
  CLI::App app{"test"};
  RunOptions run;
  ViewOptions view;
  WindowCommandLine() {
    run.add_to(app);
    view.add_to(app, true);
  }
  Settings parse(std::vector<std::string> args) {
    std::reverse(args.begin(), args.end());  // CLI11 takes them last to first
    app.parse(args);
    Settings s = run.resolve();
    view.apply(s);
    return s;
  }
};

// What to write after a row's option to get a valid value that is not its default, and that value.
std::pair<std::string, SettingValue> changed_text(const SettingDef& s) {
  switch (s.kind) {
    case SettingKind::choice: {
      const SettingValue fallback = s.access.get(Settings{});
      for (const EnumName& c : s.choices)
        if (!(SettingValue{EnumValue{c.value}} == fallback)) return {std::string(c.name), EnumValue{c.value}};
      break;
    }
    case SettingKind::integer:
      if (s.integer_max == kNoIntegerLimit) return {std::to_string(s.integer_min + 4096), s.integer_min + 4096};
      return {std::to_string(s.integer_max), s.integer_max};
    case SettingKind::unsigned64: return {"18446744073709551615", std::uint64_t{18446744073709551615ull}};
    case SettingKind::real: return {"0.75", 0.75};
    case SettingKind::flag: break;
  }
  ADD_FAILURE() << s.key;
  return {};
}

std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(SettingOptions, EveryRowHasAnOptionThatSetsItsField) {
  for (const SettingDef& s : kSettings) {
    WindowCommandLine cli;
    ASSERT_NE(cli.app.get_option_no_throw(cli_name(s)), nullptr) << s.key << ": no option " << cli_name(s);
    if (s.kind == SettingKind::flag) {
      const Settings parsed = cli.parse({cli_name(s)});
      EXPECT_EQ(std::get<bool>(s.access.get(parsed)), flag_sets(s)) << cli_name(s);
      EXPECT_NE(flag_sets(s), std::get<bool>(s.access.get(Settings{}))) << cli_name(s) << " would change nothing";
      continue;
    }
    const auto [text, value] = changed_text(s);
    const Settings parsed = cli.parse({cli_name(s), text});
    EXPECT_TRUE(s.access.get(parsed) == value)
        << cli_name(s) << " " << text << " gave " << format_setting(s, s.access.get(parsed));
  }
}

TEST(SettingOptions, RenderHasNoWindowOnlyOption) {
  CLI::App app{"render"};
  ViewOptions view;
  view.add_to(app, false);
  for (const SettingDef& s : kSettings) {
    if (s.group == SettingGroup::view) {
      EXPECT_EQ(app.get_option_no_throw(cli_name(s)) == nullptr, s.window_only) << s.key;
    }
  }
}

TEST(SettingOptions, EveryNumericOptionRefusesWhatValidateRefuses) {
  for (const SettingDef& s : kSettings) {
    std::vector<std::string> refused;
    if (s.kind == SettingKind::integer) {
      refused = {std::to_string(s.integer_min - 1), "1.5", "12abc", "99999999999999999999"};
      if (s.integer_max != kNoIntegerLimit) refused.push_back(std::to_string(s.integer_max + 1));
    } else if (s.kind == SettingKind::real) {
      refused = {"abc", "1e400", "nan", "inf", s.real_min_exclusive ? "0" : "-1"};
      if (!std::isinf(s.real_max)) refused.push_back(std::to_string(s.real_max * 2));
    } else {
      continue;
    }
    for (const auto& text : refused) {
      const std::string message = input_error([&] { parse_setting_value(s, text); });
      EXPECT_NE(message.find(option_names(s)), std::string::npos) << s.key << " " << text << ": " << message;
    }
  }
}

// A seed is a 64-bit unsigned number; "-1" is not 2^64 - 1 and 2^64 is not 0.
TEST(SettingOptions, NegativeAndOverflowingSeedsAreRefused) {
  const SettingDef& seed = SettingId("seed").def();
  for (const char* text : {"-1", "18446744073709551616", "+5", "1e3"}) {
    const std::string message = input_error([&] { parse_setting_value(seed, text); });
    EXPECT_NE(message.find("--seed"), std::string::npos) << text << ": " << message;
    EXPECT_NE(message.find(text), std::string::npos) << message;
  }
  EXPECT_TRUE(parse_setting_value(seed, "18446744073709551615") ==
              SettingValue{std::uint64_t{18446744073709551615ull}});
}

// A toggle's message names the dashed option, whichever spelling was typed.
TEST(SettingOptions, ToggleMessagesNameTheDashedOption) {
  const std::string message = input_error([] { parse_toggle_value(ToggleId("block_size").def(), "100"); });
  EXPECT_NE(message.find("--block-size"), std::string::npos) << message;
  EXPECT_EQ(message.find("--block_size"), std::string::npos) << message;
  const std::string huge = input_error([] { parse_toggle_value(ToggleId("block_size").def(), "4294967552"); });
  EXPECT_NE(huge.find("(got 4294967552)"), std::string::npos) << huge;
  WindowCommandLine cli;
  const std::string typed = input_error([&] { cli.parse({"--block_size", "100"}); });
  EXPECT_NE(typed.find("--block-size"), std::string::npos) << typed;
}

// --help shows integer toggles as INT (not TEXT) and states the default N's rule.
TEST(SettingOptions, HelpShowsTypesRangesAndTheDefaultBodyCount) {
  WindowCommandLine cli;
  const std::string help = cli.app.help();
  EXPECT_NE(help.find("--unroll INT"), std::string::npos) << help;
  EXPECT_NE(help.find("--rsqrt on|off"), std::string::npos) << help;
  EXPECT_NE(help.find("--steps-per-frame INT"), std::string::npos) << help;
  EXPECT_NE(help.find("[1, 1000]"), std::string::npos) << help;
  for (const bool gpu : {false, true})
    EXPECT_NE(help.find(std::to_string(default_body_count(Scene::collision, Algorithm::barneshut, gpu))),
              std::string::npos)
        << help;
  for (const auto& t : kToggles) {
    const auto at = help.find(toggle_option_name(t));
    ASSERT_NE(at, std::string::npos) << t.key;
    EXPECT_EQ(help.substr(at, help.find('\n', at) - at).find("TEXT"), std::string::npos) << t.key;
  }
}

// The panel draws the scalar settings by iterating setting_widgets(): every row must have exactly one
// widget, of a kind that can hold its values, over the range validate() enforces.
TEST(PanelSettings, EveryRowHasAWidgetOverItsValidRange) {
  const std::vector<std::string_view> drawn = panel_setting_keys();
  for (const SettingDef& s : kSettings)
    EXPECT_EQ(std::count(drawn.begin(), drawn.end(), s.key), 1) << s.key << ": the panel has no widget for it";
  for (const SettingGroup group : {SettingGroup::restart, SettingGroup::live, SettingGroup::view}) {
    for (const SettingWidget& w : setting_widgets(group)) {
      const SettingDef& s = *w.setting;
      EXPECT_EQ(s.group, group) << s.key;
      EXPECT_EQ(w.has_auto, s.unset_means != nullptr) << s.key;
      switch (w.kind) {
        case PanelWidget::combo:
        case PanelWidget::radio: EXPECT_EQ(s.kind, SettingKind::choice) << s.key; break;
        case PanelWidget::checkbox: EXPECT_EQ(s.kind, SettingKind::flag) << s.key; break;
        case PanelWidget::input:
          EXPECT_TRUE(s.kind == SettingKind::integer || s.kind == SettingKind::unsigned64 ||
                      s.kind == SettingKind::real)
              << s.key;
          break;
        case PanelWidget::slider:
        case PanelWidget::log_slider:
          ASSERT_TRUE(s.kind == SettingKind::integer || s.kind == SettingKind::real) << s.key;
          EXPECT_FALSE(w.has_auto) << s.key << ": a slider has no 'auto'";
          EXPECT_TRUE(std::isfinite(w.max) && w.max <= 1e9) << s.key << ": a slider needs a finite range";
          EXPECT_EQ(w.min, s.kind == SettingKind::integer ? static_cast<double>(s.integer_min) : s.real_min) << s.key;
          EXPECT_EQ(w.max, s.kind == SettingKind::integer ? static_cast<double>(s.integer_max) : s.real_max) << s.key;
          EXPECT_FALSE(s.kind == SettingKind::real && s.real_min_exclusive) << s.key << ": a slider reaches its ends";
          if (w.kind == PanelWidget::log_slider) {
            EXPECT_GT(w.min, 0.0) << s.key << ": a log scale starts above 0";
          }
          break;
      }
    }
  }
}

}  // namespace
}  // namespace nbl
