#include "app/core/settings_editor.hpp"

#include "sim/error.hpp"

namespace nbl {

namespace {

// The restart group of kSettings (scene, N, seed): what makes the bodies.
void copy_restart_fields(Settings& to, const Settings& from) {
  for (const SettingDef& s : kSettings)
    if (s.group == SettingGroup::restart) s.access.set(to, s.access.get(from));
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

void SettingsEditor::set_algorithm(Algorithm algorithm) {
  set(SettingId("algorithm").def(), setting_access::to_value(algorithm));
}
void SettingsEditor::set_backend(BackendKind backend) {
  set(SettingId("backend").def(), setting_access::to_value(backend));
}
void SettingsEditor::set_opening_angle(double theta) { set(SettingId("theta").def(), setting_access::to_value(theta)); }
void SettingsEditor::set_dt(std::optional<double> dt) { set(SettingId("dt").def(), setting_access::to_value(dt)); }
void SettingsEditor::set_softening(std::optional<double> softening) {
  set(SettingId("softening").def(), setting_access::to_value(softening));
}
void SettingsEditor::set_steps_per_frame(int steps) {
  set(SettingId("steps_per_frame").def(), setting_access::to_value(steps));
}
void SettingsEditor::set_scene(Scene scene) { set(SettingId("scene").def(), setting_access::to_value(scene)); }
void SettingsEditor::set_body_count(std::optional<std::int64_t> n) {
  set(SettingId("bodies").def(), setting_access::to_value(n));
}
void SettingsEditor::set_seed(std::uint64_t seed) { set(SettingId("seed").def(), setting_access::to_value(seed)); }

bool SettingsEditor::restart_pending(const Settings& live) const { return Simulation::needs_reset(live, draft_); }

void SettingsEditor::load(const Settings& settings) {
  draft_ = settings;
  request_restart();
}

void SettingsEditor::start_comparison(const Settings& b) {
  comparison_ = b;
  comparison_dirty_ = true;
}

void SettingsEditor::set_comparison(const SettingDef& setting, const SettingValue& value) {
  if (!setting.varies_in_ab) throw Error("an A/B's B shares " + std::string(setting.noun) + " with A");
  if (!comparison_) comparison_ = draft_;
  setting.access.set(*comparison_, value);
  comparison_dirty_ = true;
}

void SettingsEditor::set_comparison_toggle(const ToggleDef& toggle, int value) {
  if (!comparison_) comparison_ = draft_;
  comparison_->toggles.values[static_cast<std::size_t>(&toggle - kToggles.data())] = value;
  comparison_dirty_ = true;
}

void SettingsEditor::set_comparison_theta(double theta) {
  set_comparison(SettingId("theta").def(), setting_access::to_value(theta));
}

void SettingsEditor::clear_comparison() {
  comparison_.reset();
  comparison_dirty_ = true;
}

void SettingsEditor::refused(const Simulation& simulation) {
  if (!building_origin_.empty()) refusals_.push_back({std::exchange(building_origin_, ""), simulation.last_refusal()});
  const Settings kept = draft_;
  draft_ = simulation.settings();
  draft_.view = kept.view;
  draft_.scene = kept.scene;
  draft_.body_count = kept.body_count;
  draft_.seed = kept.seed;
}

std::optional<std::string> SettingsEditor::sync(Simulation& simulation, bool* restarted, bool asynchronous) {
  if (restarted) *restarted = false;
  if (!dirty_) return std::nullopt;
  const std::string origin = std::exchange(origin_, "");
  const Settings live = simulation.settings();
  Settings next = draft_;
  const bool restart = restart_;
  if (!restart) copy_restart_fields(next, live);
  dirty_ = restart_ = false;
  try {
    if (asynchronous && !restart) {
      // Building: a refusal comes later (refused()); running now: nothing is pending any more.
      building_origin_ = simulation.request(next) ? std::string() : origin;
    } else {
      simulation.apply(next);
      building_origin_.clear();
    }
    if (restarted) *restarted = restart && Simulation::needs_reset(live, next);
    return std::nullopt;
  } catch (const Error& e) {
    // Simulation::apply() changes nothing when it throws: what runs is still `live`.
    // Keep what runs; keep the panel's view and its pending scene / N / seed (they were not the problem
    // unless this was the restart).
    const Settings kept = draft_;
    draft_ = simulation.settings();
    draft_.view = kept.view;
    if (!restart) copy_restart_fields(draft_, kept);
    if (!origin.empty()) refusals_.push_back({origin, e.what()});
    return std::string(e.what());
  }
}

Settings SettingsEditor::current(const Simulation& simulation) const {
  Settings s = simulation.settings();
  s.view = draft_.view;
  return s;
}

}  // namespace nbl
