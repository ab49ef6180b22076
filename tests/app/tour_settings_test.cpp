// The guided tour in the lab runs the configuration each step declares: the Barnes-Hut tour opened in an
// offscreen lab on the CPU backend, step by step, and the simulation's settings compared at every step
// with the step's declared toggles and theta (sim/tour.hpp, step_settings), through the lab's own path
// (TourSession::go and the settings editor).
#include <gtest/gtest.h>

#include <cstdlib>

#include "app/lab/lab.hpp"
#include "sim/tour.hpp"

namespace nbl {
namespace {

// Each step compiles its kernels' generated-code mix with NVRTC on a worker, and the next step waits for
// it: minutes for the whole tour on a small machine, and not what this test checks. Without NVRTC the
// tour says there are no generated-code figures and applies its steps all the same.
const bool kNoNvrtc = [] { return setenv("NBODYLAB_NVRTC", "/nonexistent/libnvrtc.so", 1) == 0; }();

TEST(TourSettings, EveryBarnesHutStepRunsTheConfigurationItDeclares) {
  ASSERT_TRUE(kNoNvrtc);
  LabOptions o;
  o.offscreen = true;
  o.window.width = 480;
  o.window.height = 270;
  o.settings.scene = Scene::plummer;
  o.settings.body_count = 1024;
  o.settings.backend = BackendKind::cpu;
  o.settings.algorithm = Algorithm::allpairs;
  o.settings.opening_angle = 0.9;  // not the tour's: the step must set it
  o.tune_body_count = false;
  o.frames = 1000000;  // an offscreen lab needs an end; the test drives its frames itself
  Lab lab(o);
  const Tour tour = load_tour(TourKind::barneshut);
  ASSERT_GE(tour.steps.size(), 10u);
  for (std::size_t i = 0; i < tour.steps.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i + 1) + ": " + tour.steps[i].title);
    lab.open_tour(TourKind::barneshut, i);
    ASSERT_NE(lab.tour_session(), nullptr);
    ASSERT_EQ(lab.tour_session()->step(), i);
    const Settings declared = with_step_settings(tour, i, lab.simulation().settings());
    // The edits reach the simulation between two jobs of steps.
    for (int frame = 0; frame < 200 && (lab.simulation().settings().algorithm != Algorithm::barneshut ||
                                        lab.simulation().settings().toggles != declared.toggles ||
                                        lab.simulation().settings().opening_angle != declared.opening_angle);
         ++frame)
      lab.frame();
    const Settings& runs = lab.simulation().settings();
    EXPECT_EQ(runs.algorithm, Algorithm::barneshut);
    EXPECT_EQ(toggle_changes(declared.toggles, runs.toggles, Algorithm::barneshut), "") << "every Barnes-Hut toggle";
    const TourSetting* theta = find_tour_setting(tour.steps[i], "theta");
    ASSERT_NE(theta, nullptr) << "every step declares theta";
    EXPECT_EQ(SettingValue(runs.opening_angle), theta->value) << "theta";
    EXPECT_EQ(runs.toggles, declared.toggles);
    EXPECT_DOUBLE_EQ(lab.editor().draft().opening_angle, runs.opening_angle) << "the panel shows what runs";
  }
}

}  // namespace
}  // namespace nbl
