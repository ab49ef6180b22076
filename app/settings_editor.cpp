#include "app/settings_editor.hpp"

#include "sim/error.hpp"

namespace nbl {

namespace {

void keep_running_bodies(Settings& next, const Settings& live) {
  next.scene = live.scene;
  next.body_count = live.body_count;
  next.seed = live.seed;
}

}  // namespace

void SettingsEditor::set(const SettingDef& setting, const SettingValue& value) {
  setting.access.set(draft_, value);
  if (setting.group == SettingGroup::live) changed();  // restart waits for request_restart(); view never syncs
}

void SettingsEditor::set_toggle(const ToggleDef& toggle, int value) {
  draft_.toggles.values[static_cast<std::size_t>(&toggle - kToggles.data())] = value;
  changed();
}

namespace {
template <typename T>
SettingValue value_of(const T& v) {
  return setting_access::to_value(v);
}
}  // namespace

void SettingsEditor::set_algorithm(Algorithm algorithm) { set(SettingId("algorithm").def(), value_of(algorithm)); }
void SettingsEditor::set_backend(BackendKind backend) { set(SettingId("backend").def(), value_of(backend)); }
void SettingsEditor::set_opening_angle(double theta) { set(SettingId("theta").def(), value_of(theta)); }
void SettingsEditor::set_dt(std::optional<double> dt) { set(SettingId("dt").def(), value_of(dt)); }
void SettingsEditor::set_softening(std::optional<double> softening) { set(SettingId("softening").def(), value_of(softening)); }
void SettingsEditor::set_steps_per_frame(int steps) { set(SettingId("steps_per_frame").def(), value_of(steps)); }
void SettingsEditor::set_scene(Scene scene) { set(SettingId("scene").def(), value_of(scene)); }
void SettingsEditor::set_body_count(std::optional<std::int64_t> n) { set(SettingId("bodies").def(), value_of(n)); }
void SettingsEditor::set_seed(std::uint64_t seed) { set(SettingId("seed").def(), value_of(seed)); }

bool SettingsEditor::restart_pending(const Settings& live) const { return Simulation::needs_reset(live, draft_); }

void SettingsEditor::load(const Settings& settings) {
  draft_ = settings;
  request_restart();
}

std::optional<std::string> SettingsEditor::sync(Simulation& simulation, bool* restarted) {
  if (restarted) *restarted = false;
  if (!dirty_) return std::nullopt;
  const Settings live = simulation.settings();
  Settings next = draft_;
  const bool restart = restart_;
  if (!restart) keep_running_bodies(next, live);
  dirty_ = restart_ = false;
  try {
    simulation.apply(next);
    if (restarted) *restarted = restart && Simulation::needs_reset(live, next);
    return std::nullopt;
  } catch (const Error& e) {
    // Simulation::apply() changes nothing when it throws: what runs is still `live`.
    // Keep what runs; keep the panel's view and its pending scene / N / seed (they were not the problem
    // unless this was the restart).
    const Settings kept = draft_;
    draft_ = simulation.settings();
    draft_.view = kept.view;
    if (!restart) {
      draft_.scene = kept.scene;
      draft_.body_count = kept.body_count;
      draft_.seed = kept.seed;
    }
    return std::string(e.what());
  }
}

Settings SettingsEditor::current(const Simulation& simulation) const {
  Settings s = simulation.settings();
  s.view = draft_.view;
  return s;
}

}  // namespace nbl
