#include "app/lab/setting_widgets.hpp"

namespace nbl {

std::vector<SettingWidget> setting_widgets(SettingGroup group) {
  std::vector<SettingWidget> widgets;
  for (const SettingDef& s : kSettings) {
    if (s.group != group) continue;
    SettingWidget w{&s, s.widget};
    if (s.kind == SettingKind::integer) {
      w.min = static_cast<double>(s.integer_min);
      w.max = static_cast<double>(s.integer_max);
    } else if (s.kind == SettingKind::real) {
      w.min = s.real_min;
      w.max = s.real_max;
    }
    w.has_auto = s.unset_means != nullptr;
    widgets.push_back(w);
  }
  return widgets;
}

std::vector<std::string_view> panel_setting_keys() {
  std::vector<std::string_view> keys;
  for (const SettingGroup group : {SettingGroup::restart, SettingGroup::live, SettingGroup::view})
    for (const SettingWidget& w : setting_widgets(group)) keys.push_back(w.setting->key);
  return keys;
}

}  // namespace nbl
