// The layer between the panel and the simulation: what applies at once, what waits for a restart, and
// what happens when the simulation refuses an edit.
#include "app/core/settings_editor.hpp"

#include <gtest/gtest.h>

#include "cuda/device.hpp"

namespace nbl {
namespace {

Settings small_cpu_run() {
  Settings s;
  s.scene = Scene::plummer;
  s.body_count = 512;
  s.backend = BackendKind::cpu;
  return s;
}

TEST(SettingsEditor, ToggleAndPhysicsEditsApplyAtTheNextSync) {
  Simulation sim(small_cpu_run());
  SettingsEditor editor(sim.settings());
  editor.set_toggle(*find_toggle("bh_rsqrt"), 0);
  editor.set_opening_angle(0.8);
  editor.set_dt(0.002);
  EXPECT_EQ(sim.settings().toggles["bh_rsqrt"], 1) << "nothing applies before sync";
  EXPECT_FALSE(editor.sync(sim));
  EXPECT_EQ(sim.settings().toggles["bh_rsqrt"], 0);
  EXPECT_DOUBLE_EQ(sim.settings().opening_angle, 0.8);
  EXPECT_DOUBLE_EQ(sim.dt(), 0.002);
}

TEST(SettingsEditor, SceneAndNWaitForARestart) {
  Simulation sim(small_cpu_run());
  SettingsEditor editor(sim.settings());
  editor.set_body_count(256);
  editor.set_scene(Scene::cube);
  editor.set_dt(0.001);  // applies now; the others wait
  bool restarted = true;
  EXPECT_FALSE(editor.sync(sim, &restarted));
  EXPECT_FALSE(restarted);
  EXPECT_EQ(sim.body_count(), 512u);
  EXPECT_EQ(sim.settings().scene, Scene::plummer);
  EXPECT_TRUE(editor.restart_pending(sim.settings()));
  editor.request_restart();
  EXPECT_FALSE(editor.sync(sim, &restarted));
  EXPECT_TRUE(restarted);
  EXPECT_EQ(sim.body_count(), 256u);
  EXPECT_EQ(sim.settings().scene, Scene::cube);
  EXPECT_FALSE(editor.restart_pending(sim.settings()));
}

TEST(SettingsEditor, AlgorithmSwitchKeepsTheBodies) {
  Simulation sim(small_cpu_run());
  sim.step();
  const double x = sim.bodies().x[7];
  SettingsEditor editor(sim.settings());
  editor.set_algorithm(Algorithm::allpairs);
  EXPECT_FALSE(editor.sync(sim));
  EXPECT_EQ(sim.backend().algorithm(), Algorithm::allpairs);
  EXPECT_FLOAT_EQ(sim.bodies().x[7], static_cast<float>(x));
}

TEST(SettingsEditor, ARefusedValueIsReportedAndTheDraftReturnsToWhatRuns) {
  Simulation sim(small_cpu_run());
  SettingsEditor editor(sim.settings());
  editor.view().exposure = 3.0f;
  const double running = sim.settings().opening_angle;
  editor.set_opening_angle(5.0);  // theta must lie in [0, 2]
  const auto message = editor.sync(sim);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("theta"), std::string::npos) << *message;
  EXPECT_DOUBLE_EQ(sim.settings().opening_angle, running);
  EXPECT_DOUBLE_EQ(editor.draft().opening_angle, running);
  EXPECT_FLOAT_EQ(editor.draft().view.exposure, 3.0f) << "the view is the panel's, not the simulation's";
}

TEST(SettingsEditor, AMissingGpuLeavesTheCpuRunConsistent) {
  if (query_device()) GTEST_SKIP() << "this machine has a GPU";
  Simulation sim(small_cpu_run());
  SettingsEditor editor(sim.settings());
  editor.set_backend(BackendKind::gpu);
  const auto message = editor.sync(sim);
  ASSERT_TRUE(message);
  EXPECT_EQ(sim.settings().backend, BackendKind::cpu);
  EXPECT_FALSE(sim.backend().on_gpu());
  EXPECT_EQ(editor.draft().backend, BackendKind::cpu);
  EXPECT_NO_THROW(sim.step());
}

TEST(SettingsEditor, ARestartThatCannotFitChangesNothing) {
  Simulation sim(small_cpu_run());
  sim.step();
  const Bodies before = sim.bodies();
  const double time = sim.time(), dt = sim.dt();
  SettingsEditor editor(sim.settings());
  editor.set_body_count(2'000'000'000);  // about 100 GB of host memory
  editor.set_scene(Scene::cube);
  editor.set_dt(0.5 * dt);
  editor.request_restart();
  const auto message = editor.sync(sim);
  ASSERT_TRUE(message);
  EXPECT_NE(message->find("memory"), std::string::npos) << *message;
  EXPECT_EQ(sim.settings().scene, Scene::plummer);
  EXPECT_EQ(sim.body_count(), before.size());
  EXPECT_DOUBLE_EQ(sim.time(), time);
  EXPECT_DOUBLE_EQ(sim.dt(), dt);
  EXPECT_EQ(sim.bodies().x, before.x);
  sim.reset();  // the initial conditions are still the running scene's
  EXPECT_EQ(sim.body_count(), before.size());
  EXPECT_NO_THROW(sim.step());
}

TEST(SettingsEditor, ARestartOnAMissingGpuKeepsTheOldScene) {
  if (query_device()) GTEST_SKIP() << "this machine has a GPU";
  Simulation sim(small_cpu_run());
  SettingsEditor editor(sim.settings());
  editor.set_scene(Scene::galaxy);
  editor.set_backend(BackendKind::gpu);
  editor.request_restart();
  ASSERT_TRUE(editor.sync(sim));
  EXPECT_EQ(sim.settings().scene, Scene::plummer);
  EXPECT_FALSE(sim.backend().on_gpu());
  const Bodies running = sim.bodies();
  sim.reset();
  EXPECT_EQ(sim.bodies().x, running.x) << "reset returns to the Plummer sphere that was running";
}

TEST(SettingsEditor, CurrentIsWhatRunsWithThePanelsView) {
  Simulation sim(small_cpu_run());
  SettingsEditor editor(sim.settings());
  editor.view().color_mode = ColorMode::mass;
  editor.set_seed(99);  // pending, not running
  const Settings current = editor.current(sim);
  EXPECT_EQ(current.view.color_mode, ColorMode::mass);
  EXPECT_EQ(current.seed, sim.settings().seed);
}

// A/B's B is the draft with changes, each a toggle or a row of kSettings that varies in an A/B (theta):
// the typed setter is the table's row, and a row that B shares with A is refused.
TEST(SettingsEditor, BChangesThetaAsASettingsRowAndSharesTheRest) {
  Settings a = small_cpu_run();
  a.algorithm = Algorithm::barneshut;
  SettingsEditor editor(a);
  editor.set_comparison(SettingId("theta").def(), 0.3);
  ASSERT_TRUE(editor.comparison());
  EXPECT_TRUE(editor.take_comparison_change());
  EXPECT_DOUBLE_EQ(editor.comparison()->opening_angle, 0.3);
  EXPECT_EQ(ab_changes(editor.draft(), *editor.comparison()), "theta=0.3");
  editor.set_comparison_theta(0.4);  // the typed shorthand goes through the same row
  EXPECT_EQ(ab_changes(editor.draft(), *editor.comparison()), "theta=0.4");
  EXPECT_THROW(editor.set_comparison(SettingId("dt").def(), 0.5), Error);
  EXPECT_FALSE(editor.comparison()->dt.has_value()) << "a refused row changes nothing";
  EXPECT_FALSE(editor.pending()) << "B's edits are not A's";
}

}  // namespace
}  // namespace nbl
