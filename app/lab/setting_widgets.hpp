// How the panel draws the scalar settings: one widget per row of kSettings, in the table's order, its
// kind and range taken from the row. The panel's Simulation section draws the restart and live groups
// and its View section the view group, each by iterating setting_widgets(group); this header knows no
// ImGui, so tests can check that every setting has a widget whose range is the one validate() enforces.
#pragma once
#include <string_view>
#include <vector>

#include "sim/settings_table.hpp"

namespace nbl {

struct SettingWidget {
  const SettingDef* setting = nullptr;
  PanelWidget kind = PanelWidget::input;
  double min = 0, max = 0;  // a slider's ends: the setting's valid range (unused by the other kinds)
  bool has_auto = false;    // an "auto" box beside it: the setting may be left to its default rule
};

// The widgets of one group, in the order the panel draws them.
std::vector<SettingWidget> setting_widgets(SettingGroup group);

// The keys of every setting the panel draws, section by section (restart, live, view).
std::vector<std::string_view> panel_setting_keys();

}  // namespace nbl
