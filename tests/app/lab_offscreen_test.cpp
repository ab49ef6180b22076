// The whole lab without a display (`--offscreen`): Mesa's EGL in CI, the CPU backend. The same frame
// loop as the window draws the scene and the panel into a framebuffer object; a script's keys, drags
// and wheel reach the lab through ImGui's IO as a user's would; every frame is traced.
#include <chrono>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/lab/lab.hpp"
#include "held_backend.hpp"
#include "png_file.hpp"
#include "sim/ladder.hpp"
#include "sim/error.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;
constexpr int kWidth = 1280, kHeight = 720;

class LabOffscreen : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nbl_offscreen_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  LabOptions scripted(const std::string& events) const {
    LabOptions o;
    o.offscreen = true;
    o.window.width = kWidth;
    o.window.height = kHeight;
    o.settings.scene = Scene::galaxy;
    o.settings.body_count = 4096;
    o.settings.backend = BackendKind::cpu;
    o.tune_body_count = false;
    o.script = parse_script("{\"events\": [" + events + "]}", "test.json");
    return o;
  }
  std::string shot(const std::string& name) const { return (dir_ / name).string(); }

  // A small offscreen lab on a backend whose steps wait at `gate` (held_backend.hpp).
  LabOptions held(std::shared_ptr<testing::StepGate> gate, const std::string& events) const {
    LabOptions o = scripted(events);
    o.window.width = 480;
    o.window.height = 270;
    o.settings.body_count = 512;
    o.backend_factory = [gate](const Settings&) { return std::make_unique<testing::HeldBackend>(gate); };
    return o;
  }

  fs::path dir_;
};

TEST_F(LabOffscreen, DrawsTheBodiesAndThePanelIntoItsFramebuffer) {
  Lab lab(scripted(R"({"frame": 5, "action": "screenshot", "file": ")" + shot("lab.png") + R"("},
                 {"frame": 5, "action": "quit"})"));
  EXPECT_STREQ(lab.surface().kind(), "offscreen");
  EXPECT_EQ(lab.run(), 0);
  const Image image = testing::load_png(shot("lab.png"));
  ASSERT_EQ(image.width, kWidth);
  ASSERT_EQ(image.height, kHeight);
  const int scene_width = lab.scene_viewport().width;
  ASSERT_GT(scene_width, kWidth / 2);
  ASSERT_LT(scene_width, kWidth);
  const int cx = scene_width / 2, cy = kHeight / 2;
  EXPECT_GT(testing::fraction(image, cx - 60, cy - 60, cx + 60, cy + 60, [](auto p) { return testing::luma(p) > 80; }),
            0.05)
      << "bodies should be drawn in the scene region";
  EXPECT_GT(testing::fraction(image, 5, 5, 60, 60, [](auto p) { return testing::luma(p) < 25; }), 0.95);
  const int px0 = scene_width + 10, px1 = kWidth - 10;
  EXPECT_GT(testing::fraction(
                image, px0, 0, px1, kHeight,
                [](auto p) { return std::abs(p[0] - 18) < 8 && std::abs(p[1] - 19) < 8 && std::abs(p[2] - 26) < 8; }),
            0.3)
      << "the panel's background should cover its area";
  EXPECT_GT(testing::fraction(image, px0, 0, px1, kHeight, [](auto p) { return testing::luma(p) > 160; }), 0.003)
      << "the panel should show text";
  ASSERT_EQ(lab.trace().records().size(), 6u) << "frames 0 to 5, the last one quits";
  EXPECT_EQ(lab.trace().records().back().script, "screenshot+quit");
}

TEST_F(LabOffscreen, ScriptedKeysAndMouseReachTheLabThroughImGui) {
  Lab lab(scripted(R"({"frame": 2, "action": "key", "key": "h"},
                 {"frame": 4, "action": "drag", "by": [200, 0], "frames": 4},
                 {"frame": 12, "action": "wheel", "by": 3},
                 {"frame": 14, "action": "key", "key": "space"},
                 {"frame": 30, "action": "quit"})"));
  for (int i = 0; i < 2; ++i) lab.frame();
  const float panel_width = lab.panel().width();
  EXPECT_GT(panel_width, 0);
  lab.frame();  // frame 2: H is down
  lab.frame();
  EXPECT_FALSE(lab.panel().visible()) << "H hides the panel";
  EXPECT_EQ(lab.scene_viewport().width, kWidth);
  const float yaw = lab.camera().yaw_deg();
  for (int i = 4; i < 12; ++i) lab.frame();  // the drag: move to the start, press, four moves, release
  EXPECT_NE(lab.camera().yaw_deg(), yaw) << "a left drag over the scene orbits";
  const float distance = lab.camera().distance();
  for (int i = 12; i < 14; ++i) lab.frame();
  EXPECT_LT(lab.camera().distance(), distance) << "the wheel zooms in";
  EXPECT_FALSE(lab.paused());
  for (int i = 14; i < 16; ++i) lab.frame();
  EXPECT_TRUE(lab.paused()) << "Space pauses";
}

TEST_F(LabOffscreen, SettingsChangesApplyWhileFramesKeepFlowing) {
  Lab lab(scripted(R"({"frame": 3, "action": "set", "settings": {"algorithm": "allpairs", "toggles": {"unroll": 8}}},
                 {"frame": 6, "action": "set", "settings": {"algorithm": "barneshut", "theta": 0.8}},
                 {"frame": 9, "action": "pause"},
                 {"frame": 11, "action": "resume"},
                 {"frame": 13, "action": "quit"})"));
  EXPECT_EQ(lab.run(), 0);
  const auto& rows = lab.trace().records();
  ASSERT_EQ(rows.size(), 14u);
  std::int64_t steps = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].frame, static_cast<std::int64_t>(i));
    EXPECT_GT(rows[i].interval_ms, 0);
    steps += rows[i].steps;
    EXPECT_EQ(rows[i].steps_completed, steps) << "frame " << i;
  }
  EXPECT_GT(rows[8].steps_completed, 0) << "the simulation steps beside the frames";
  // The pause at frame 9 starts no job and drops one queued that has not started; the job running at
  // frame 8 and the one queued behind it, which may have started since, may still finish in frame 9 or 10.
  EXPECT_LE(rows[10].steps_completed - rows[8].steps_completed, 2);
  EXPECT_EQ(rows[3].script, "set");
  // Each switch applies between two jobs: all-pairs from frame 3 on, Barnes-Hut again from frame 6 on.
  auto runs = [&](std::size_t from, std::size_t to, const std::string& what) {
    for (std::size_t i = from; i < to; ++i)
      if (rows[i].variant.find(what) != std::string::npos) return true;
    return false;
  };
  EXPECT_FALSE(runs(0, 3, "all-pairs"));
  EXPECT_TRUE(runs(3, 6, "all-pairs")) << "the algorithm switch applies once the running step ends";
  EXPECT_TRUE(runs(6, 14, "Barnes-Hut"));
  EXPECT_DOUBLE_EQ(lab.simulation().settings().opening_angle, 0.8);
  EXPECT_EQ(lab.simulation().settings().toggles["unroll"], 8);
}

// Frames until `done` holds, at most `limit` of them (the steps run on their own thread).
template <class Done>
bool frames_until(Lab& lab, Done done, int limit = 400) {
  for (int i = 0; i < limit && !done(); ++i) {
    lab.frame();
    usleep(1000);
  }
  return done();
}

// The display never waits for a step (app/core/stepper.hpp): while a step is held, frames keep coming,
// a drag turns the camera in every one of them and the state on screen grows older; once the step
// ends, its state is drawn and the next one starts.
TEST_F(LabOffscreen, FramesKeepComingWhileAStepIsHeld) {
  auto gate = std::make_shared<testing::StepGate>();
  Lab lab(held(gate, R"({"frame": 2, "action": "drag", "by": [300, 0], "frames": 12},
                        {"frame": 400, "action": "quit"})"));
  const double t0 = lab.simulation().time();
  for (int i = 0; i < 21; ++i) lab.frame();
  EXPECT_EQ(gate->steps, 0);
  EXPECT_EQ(lab.simulation().time(), t0) << "a frame waited for the held step";
  const auto& rows = lab.trace().records();
  ASSERT_EQ(rows.size(), 21u);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    EXPECT_EQ(rows[i].steps, 0);
    ASSERT_TRUE(rows[i].state_age_ms && rows[i - 1].state_age_ms);
    EXPECT_GT(*rows[i].state_age_ms, *rows[i - 1].state_age_ms) << "the state on screen grows older";
    EXPECT_TRUE(rows[i].stepping);
  }
  // The drag: frame 2 moves to its start, 3 presses, 4 to 15 move, 16 releases.
  for (std::size_t i = 5; i <= 15; ++i)
    EXPECT_NE(rows[i].camera_yaw_deg, rows[i - 1].camera_yaw_deg) << "the camera turns in frame " << i;
  gate->open = true;
  EXPECT_TRUE(frames_until(lab, [&] { return lab.steps_completed() >= 2; }));
  EXPECT_GT(lab.simulation().time(), t0);
}

// A frame whose picture would be the one on screen draws nothing (its GPU time goes to the steps), at a
// display's pace: while a step is held and nothing moves, frames skip their drawing, one still draws at
// least every tenth of a second for the panel's live figures, every frame of a drag draws, and a
// screenshot asked for in a still moment shows the scene. Unpaced, every frame draws.
TEST_F(LabOffscreen, AnUnchangedPictureIsNotDrawnAgainButInputDrawsAtOnce) {
  auto gate = std::make_shared<testing::StepGate>();
  LabOptions o = held(gate, R"({"frame": 40, "action": "drag", "by": [300, 0], "frames": 12},
                                {"frame": 70, "action": "screenshot", "file": ")" +
                                shot("still.png") + R"("},
                                {"frame": 90, "action": "quit"})");
  o.refresh_hz = 60;
  o.settings.view.vsync = true;
  {  // one lab at a time: ImGui's context is the process's
    Lab lab(o);
    EXPECT_EQ(lab.run(), 0);
    const auto& rows = lab.trace().records();
    ASSERT_EQ(rows.size(), 91u);
    EXPECT_EQ(gate->steps, 0) << "the step was meant to stay held";
    auto drawn = [&](std::size_t i) { return rows[i].drawn.value_or(true); };
    int still_undrawn = 0;
    double since_drawn_ms = 0, longest_tick_ms = 0, longest_undrawn_ms = 0;
    for (std::size_t i = 10; i < 40; ++i) {  // still: no input, no new state
      if (!drawn(i)) ++still_undrawn;
      since_drawn_ms = drawn(i - 1) ? rows[i - 1].interval_ms : since_drawn_ms + rows[i - 1].interval_ms;
      if (!drawn(i)) longest_undrawn_ms = std::max(longest_undrawn_ms, since_drawn_ms);
      longest_tick_ms = std::max(longest_tick_ms, rows[i].interval_ms);
    }
    EXPECT_GT(still_undrawn, 0) << "every still frame drew again";
    EXPECT_LT(longest_undrawn_ms, 100.0 + longest_tick_ms) << "the panel's figures stood still too long";
    // The drag: frame 40 moves to its start, 41 presses, 42 to 53 move, 54 releases; all draw.
    for (std::size_t i = 40; i <= 54; ++i) EXPECT_TRUE(drawn(i)) << "frame " << i << " of the drag did not draw";
    EXPECT_TRUE(drawn(70)) << "the screenshot's frame did not draw";
    const Image image = testing::load_png(shot("still.png"));
    const int cx = lab.scene_viewport().width / 2, cy = image.height / 2;
    EXPECT_GT(
        testing::fraction(image, cx - 30, cy - 30, cx + 30, cy + 30, [](auto p) { return testing::luma(p) > 80; }),
        0.02)
        << "the screenshot taken in a still moment shows no bodies";
  }
  gate->open = true;

  auto unpaced_gate = std::make_shared<testing::StepGate>();
  Lab unpaced(held(unpaced_gate, R"({"frame": 30, "action": "quit"})"));
  EXPECT_EQ(unpaced.run(), 0);
  for (const FrameRecord& r : unpaced.trace().records())
    EXPECT_TRUE(r.drawn.value_or(false)) << "frame " << r.frame << " of an unpaced lab did not draw";
  unpaced_gate->open = true;
}

// Leaving a variant whose step is slow does not wait for that step: it is abandoned, its result
// discarded, and the new settings run from the last finished state.
TEST_F(LabOffscreen, AStepOfAVariantTheUserLeftIsAbandoned) {
  auto gate = std::make_shared<testing::StepGate>();
  Lab lab(held(gate, R"({"frame": 4000, "action": "quit"})"));
  const double t0 = lab.simulation().time();
  lab.frame();
  ASSERT_TRUE(frames_until(lab, [&] { return gate->waiting == 1; }));
  lab.editor().set_algorithm(Algorithm::allpairs);
  EXPECT_TRUE(frames_until(lab, [&] { return lab.simulation().settings().algorithm == Algorithm::allpairs; }))
      << "the switch waited for the held step";
  EXPECT_EQ(gate->abandoned, 1);
  EXPECT_EQ(gate->steps, 0);
  EXPECT_EQ(lab.simulation().time(), t0) << "the abandoned step's result was discarded";
  ASSERT_FALSE(lab.trace().steps().empty());
  EXPECT_TRUE(lab.trace().steps().back().abandoned);
}

// A frame that finds a slow step running queues the next behind it: once the step ends, the queued one
// runs without waiting for a frame, and the next frame draws the newest state from the vertices the
// stepping thread wrote aside (here on the host: a CPU-side backend).
TEST_F(LabOffscreen, AQueuedStepRunsWithoutWaitingForAFrame) {
  auto gate = std::make_shared<testing::StepGate>();
  Lab lab(held(gate, R"({"frame": 4000, "action": "quit"})"));
  ASSERT_TRUE(frames_until(lab, [&] { return gate->waiting == 1 && lab.steps_queued(); }))
      << "no step was queued behind the held one";
  const auto before = lab.scene().vertices().host_copy();
  gate->open = true;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (gate->steps < 2 && std::chrono::steady_clock::now() < end) usleep(1000);
  EXPECT_GE(gate->steps, 2) << "the queued step waited for a frame";
  // One frame takes both jobs and draws the newer state from the vertices its job wrote aside: the
  // held backend moves every body by 1e-3 a step.
  lab.frame();
  EXPECT_GE(lab.steps_completed(), 2);
  const auto& drawn = lab.scene().vertices().host_copy();
  ASSERT_FALSE(before.empty());
  ASSERT_FALSE(drawn.empty());
  EXPECT_NEAR(drawn[0], before[0] + 2e-3f, 1e-6f) << "the frame does not draw the state after the two steps";
}

// The energy drift in the panel is read while the simulation runs: its measurements take the time
// between two jobs, which the frame gives them before it starts the next step.
TEST_F(LabOffscreen, TheEnergyDriftIsReadWhileTheSimulationRuns) {
  LabOptions o = scripted(R"({"frame": 100000, "action": "quit"})");
  o.window.width = 320;
  o.window.height = 180;
  o.settings.body_count = 1024;
  Lab lab(o);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (lab.energy().drift().size() < 2 && std::chrono::steady_clock::now() < end) lab.frame();
  EXPECT_GT(lab.steps_completed(), 10) << "the simulation was not running";
  ASSERT_GE(lab.energy().drift().size(), 2u) << "after " << lab.steps_completed() << " steps";
  EXPECT_GT(lab.energy().drift().back().sim_time, 0.0) << "no reading after the start";
}

TEST_F(LabOffscreen, ASessionThatCannotEndOrRunsWhatTheLabLacksIsRefusedFirst) {
  LabOptions endless = scripted(R"({"frame": 1, "action": "stats"})");
  EXPECT_THROW(Lab{endless}, InputError);
  endless.frames = 3;  // with an end it runs
  Lab ends(endless);
  EXPECT_EQ(ends.run(), 0);

  try {
    Lab ab(
        scripted(R"({"frame": 1, "action": "ab_start", "toggles": {"unroll": 128}}, {"frame": 2, "action": "quit"})"));
    FAIL() << "an A/B entry was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("test.json: entry 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("A/B"), std::string::npos) << e.what();
  }
}

// The A/B path carries theta as a row of the settings table, as it carries toggles: ab_start's B, the
// swap and "make current" move it between A and B. (Only a GPU computes B; these edit the settings.)
TEST_F(LabOffscreen, TheAbPathCarriesThetaAsASettingsRow) {
  SettingsChange change;
  change.settings.emplace_back(&SettingId("theta").def(), 0.3);
  change.toggles.emplace_back(&ToggleId("bh_sort").def(), 0);
  {
    LabOptions allpairs = scripted(R"({"frame": 1, "action": "quit"})");
    allpairs.settings.algorithm = Algorithm::allpairs;
    Lab lab(allpairs);
    try {
      lab.ab_start(change);
      FAIL() << "B's theta was accepted in an all-pairs session";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("B's theta needs barneshut"), std::string::npos) << e.what();
    }
  }
  LabOptions o = scripted(R"({"frame": 1, "action": "quit"})");
  o.settings.algorithm = Algorithm::barneshut;
  Lab lab(o);
  lab.ab_start(change);
  ASSERT_TRUE(lab.editor().comparison());
  EXPECT_EQ(ab_changes(lab.editor().draft(), *lab.editor().comparison()), "bh_sort=off, theta=0.3");
  const double a_theta = lab.editor().draft().opening_angle;
  lab.ab_swap();
  EXPECT_DOUBLE_EQ(lab.editor().draft().opening_angle, 0.3) << "the swap's A runs B's theta";
  EXPECT_EQ(lab.editor().draft().toggles[ToggleId("bh_sort")], 0);
  lab.ab_start(change);
  lab.ab_make_current();
  EXPECT_FALSE(lab.editor().comparison());
  EXPECT_DOUBLE_EQ(lab.editor().draft().opening_angle, 0.3);
  EXPECT_NE(a_theta, 0.3);
}

// The tour on the CPU backend (CI has no GPU): --tour opens its window at the scene's left with the first
// step; the Right key and a script's tour entry walk it, each step setting exactly its rung's toggles;
// the live figure says a GPU is needed, while the code change is there. The screenshots are checked for
// the tour's window, the scene between it and the panel, and text in both.
TEST_F(LabOffscreen, TheTourOpensWalksAndDrawsBesideTheScene) {
  LabOptions o = scripted(R"({"frame": 4, "action": "screenshot", "file": ")" + shot("tour-1.png") + R"("},
                 {"frame": 5, "action": "key", "key": "right"},
                 {"frame": 8, "action": "tour", "tour": "allpairs", "step": 5},
                 {"frame": 30, "action": "screenshot", "file": ")" +
                          shot("tour-5.png") + R"("},
                 {"frame": 31, "action": "quit"})");
  o.tour = TourKind::allpairs;
  Lab lab(o);
  ASSERT_NE(lab.tour_session(), nullptr);
  EXPECT_EQ(lab.tour_session()->step(), 0u);
  for (int i = 0; i < 7; ++i) lab.frame();
  EXPECT_EQ(lab.tour_session()->step(), 1u) << "Right moves to the next step";
  EXPECT_EQ(lab.simulation().settings().algorithm, Algorithm::allpairs);
  EXPECT_EQ(toggle_changes(lab.simulation().settings().toggles, lab.tour_session()->tour().steps[1].toggles,
                           Algorithm::allpairs),
            "")
      << "the step runs exactly its rung's toggles";
  for (int i = 7; i < 9; ++i) lab.frame();
  const TourSession& tour = *lab.tour_session();
  EXPECT_EQ(tour.step(), 4u) << "the script's step 5 (rsqrtf)";
  EXPECT_EQ(kLadder[*tour.current().rung].name, "rsqrtf");
  ASSERT_EQ(tour.code().changes.size(), 1u);
  EXPECT_EQ(tour.code().changes[0].macro_changes, std::vector<std::string>{"NBL_RSQRT: 0 -> 1"});
  const LiveSpeedup live = tour.live(lab.simulation(), lab.ab_history(), false, 1.0);
  EXPECT_EQ(live.state, LiveSpeedup::State::no_gpu);
  EXPECT_NE(live.text.find("Live GPU timings need a GPU"), std::string::npos) << live.text;
  EXPECT_EQ(lab.run(), 0);

  for (const char* name : {"tour-1.png", "tour-5.png"}) {
    SCOPED_TRACE(name);
    const Image image = testing::load_png(shot(name));
    ASSERT_EQ(image.width, kWidth);
    const Viewport scene = lab.scene_viewport();
    ASSERT_GT(scene.x, kWidth / 5) << "the tour's window takes the left of the scene";
    ASSERT_GT(scene.width, kWidth / 5);
    const auto window_colour = [](auto p) {
      return std::abs(p[0] - 18) < 8 && std::abs(p[1] - 19) < 8 && std::abs(p[2] - 26) < 8;
    };
    EXPECT_GT(testing::fraction(image, 10, 0, scene.x - 10, kHeight, window_colour), 0.3)
        << "the tour window's background";
    EXPECT_GT(testing::fraction(image, 10, 0, scene.x - 10, kHeight, [](auto p) { return testing::luma(p) > 160; }),
              0.004)
        << "the tour window shows text";
    const int cx = scene.x + scene.width / 2, cy = kHeight / 2;
    EXPECT_GT(
        testing::fraction(image, cx - 60, cy - 60, cx + 60, cy + 60, [](auto p) { return testing::luma(p) > 60; }),
        0.03)
        << "the bodies are drawn in the scene between the tour and the panel";
  }
}

TEST_F(LabOffscreen, TheTraceFileAndSummaryComeAtTheEnd) {
  LabOptions o = scripted(R"({"frame": 2, "action": "quit"})");
  o.trace_file = dir_ / "trace.csv";
  Lab lab(o);
  for (int i = 0; i < 3; ++i) lab.frame();
  std::ostringstream out;
  lab.finish_session(out);
  EXPECT_NE(out.str().find("trace: 3 frame(s) written to"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("frame intervals: 2 frame(s) after the first"), std::string::npos) << out.str();
  std::ifstream csv(o.trace_file);
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, 4);  // the header and three frames
}

}  // namespace
}  // namespace nbl
