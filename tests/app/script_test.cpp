// Scripts without a window: the parser accepts every action and the shipped scripts, and refuses each
// kind of bad file with a message naming the entry and its line; the runner runs entries in order at
// their frame or time, through the settings editor for settings, and refuses what its target cannot do
// before the run; the trace's CSV and summary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "app/core/frame_trace.hpp"
#include "app/core/lab_commands.hpp"
#include "app/core/script.hpp"
#include "app/core/script_runner.hpp"
#include "app/core/simulation.hpp"
#include "sim/ladder.hpp"
#include "sim/error.hpp"
#include "sim/ladder.hpp"
#include "sim/resources.hpp"
#include "sim/tour.hpp"

namespace nbl {
namespace {

namespace fs = std::filesystem;

std::string events(const std::string& entries) { return "{\"events\": [\n" + entries + "\n]}"; }

// The message a bad script is refused with ("" when it is accepted).
std::string refusal(const std::string& text) {
  try {
    parse_script(text, "s.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ScriptParse, ReadsEveryAction) {
  const Script s = parse_script(R"({
  "description": "all of them",
  "events": [
    {"frame": 0, "action": "set", "settings": {"theta": 0.7, "toggles": {"unroll": 8, "tiling": "shuffle"}, "view": {"exposure": 2.0}}},
    {"frame": 1, "action": "ladder_rung", "rung": 3},
    {"frame": 1, "action": "ladder_rung", "rung": "unroll 8", "note": "by name"},
    {"frame": 2, "action": "screenshot", "file": "a.png"},
    {"frame": 2, "action": "stats"},
    {"frame": 3, "action": "pause"},
    {"frame": 4, "action": "resume"},
    {"frame": 5, "action": "key", "key": "Ctrl+S"},
    {"frame": 6, "action": "drag", "by": [120, -40], "button": "right", "from": [10, 20], "frames": 4},
    {"frame": 7, "action": "wheel", "by": -2},
    {"time": 0.5, "action": "ab_start", "toggles": {"unroll": 128}, "theta": 0.4},
    {"time": 1, "action": "ab_swap"},
    {"time": 1, "action": "ab_make_current"},
    {"time": 2.5, "action": "ab_stop"},
    {"frame": 9, "action": "quit"}
  ]})",
                                "s.json");
  ASSERT_EQ(s.entries.size(), 15u);
  EXPECT_EQ(s.description, "all of them");
  EXPECT_TRUE(s.quits());
  const ScriptEntry& set = s.entries[0];
  EXPECT_EQ(set.line, 4);
  EXPECT_EQ(set.action, ScriptAction::set);
  EXPECT_EQ(set.change.settings.size(), 2u);  // theta and exposure
  ASSERT_EQ(set.change.toggles.size(), 2u);
  for (const auto& [toggle, value] : set.change.toggles) {
    if (toggle->key == "unroll") {
      EXPECT_EQ(value, 8);
    } else {
      EXPECT_EQ(toggle->choices[static_cast<std::size_t>(value)].name, "shuffle");
    }
  }
  EXPECT_FALSE(set.change.restarts());
  EXPECT_EQ(s.entries[1].rung, 3u);
  EXPECT_EQ(kLadder[s.entries[2].rung].name, "unroll 8");
  EXPECT_EQ(s.entries[3].file, "a.png");
  EXPECT_EQ(s.entries[7].key, keys::s);
  EXPECT_TRUE(s.entries[7].ctrl);
  EXPECT_EQ(s.entries[8].button, MouseButton::right);
  EXPECT_EQ(s.entries[8].frames, 4);
  ASSERT_TRUE(s.entries[8].position);
  EXPECT_EQ((*s.entries[8].position)[1], 20.0f);
  EXPECT_EQ(s.entries[9].by[0], -2.0f);
  EXPECT_EQ(s.entries[10].change.toggles.size(), 1u);
  EXPECT_EQ(s.entries[10].change.settings.size(), 1u);  // theta
  EXPECT_EQ(s.entries[10].when(), "t = 0.5 s");
  EXPECT_EQ(s.entries[14].line, 18);
}

TEST(ScriptParse, ALadderRungAsBTakesTheRungsTogglesThenTheEntrysOwn) {
  const Script s = parse_script(
      events(R"({"frame": 0, "action": "ab_start", "rung": "unroll 8", "toggles": {"block_size": 128}})"), "s");
  const SettingsChange& c = s.entries[0].change;
  Settings b;
  for (const auto& [toggle, value] : c.toggles)
    b.toggles.values[static_cast<std::size_t>(toggle - kToggles.data())] = value;
  ToggleValues expected = ladder_toggles(7);
  ASSERT_EQ(kLadder[7].name, "unroll 8");
  expected[ToggleId("block_size")] = 128;
  EXPECT_EQ(b.toggles, expected) << "every all-pairs toggle of the rung, and the entry's block size over it";
  EXPECT_TRUE(c.settings.empty());
}

TEST(ScriptParse, RestartSettingsAskForARestart) {
  const Script s =
      parse_script(events(R"({"frame": 0, "action": "set", "settings": {"bodies": 2048, "scene": "plummer"}})"), "s");
  EXPECT_TRUE(s.entries[0].change.restarts());
}

TEST(ScriptParse, TheShippedScriptsParseAndTheToggleScriptSwitchesEverySecond) {
  for (const char* name : {"toggle-every-second.json", "ladder-walk.json"}) {
    SCOPED_TRACE(name);
    const Script s = load_script(name);  // a bare name: found among the shipped scripts
    EXPECT_TRUE(s.quits());
    EXPECT_FALSE(s.description.empty());
  }
  const Script toggle = load_script(find_resource("assets/scripts/toggle-every-second.json"));
  int switches = 0;
  double last = 0;
  for (const ScriptEntry& e : toggle.entries) {
    if (e.action != ScriptAction::set) continue;
    ++switches;
    ASSERT_TRUE(e.time_s);
    EXPECT_DOUBLE_EQ(*e.time_s - last, 1.0);
    last = *e.time_s;
  }
  EXPECT_EQ(switches, 30);
  const Script ladder = load_script(find_resource("assets/scripts/ladder-walk.json"));
  int rungs = 0;
  for (const ScriptEntry& e : ladder.entries) rungs += e.action == ScriptAction::ladder_rung;
  EXPECT_EQ(rungs, static_cast<int>(kLadder.size()) - 1) << "every rung but the single thread's";
}

TEST(ScriptParse, TheLiveTourScriptsGiveEveryStepTimeForItsBuildAndItsAB) {
  // The lab never waits for a build: a step must last longer than the build of its variant and of its
  // A/B's B (up to 2 s each on an H200), or its live speed-up is never measured.
  for (const TourKind kind : {TourKind::allpairs, TourKind::barneshut}) {
    const std::string name = "tour-" + std::string(to_string(kind)) + "-live.json";
    SCOPED_TRACE(name);
    const Script s = load_script(name);
    EXPECT_TRUE(s.quits());
    std::size_t next = 0;
    double started = -1;
    bool stats_since_step = true;
    for (const ScriptEntry& e : s.entries) {
      ASSERT_TRUE(e.time_s) << "timed in seconds, not frames";
      if (e.action == ScriptAction::stats) stats_since_step = e.time_s > started;
      // A step opens by its number, or by a prediction (predict, then measure), which opens the next one.
      const bool predicts = e.action == ScriptAction::predict && !e.predict_mode;
      if (e.action != ScriptAction::tour && !predicts) continue;
      if (e.action == ScriptAction::tour) {
        EXPECT_EQ(e.tour, kind);
        EXPECT_EQ(e.tour_step, next) << "every step, in order";
      } else {
        EXPECT_GT(next, 0u) << "a prediction opens the step after the open one";
      }
      EXPECT_TRUE(stats_since_step) << "the previous step's figures are printed before the next";
      if (next > 0) {
        EXPECT_GE(*e.time_s - started, 6.0);
      }
      started = *e.time_s;
      stats_since_step = false;
      ++next;
    }
    EXPECT_EQ(next, load_tour(kind).steps.size());
    // The session's table of predictions and live speed-ups, as CSV and Markdown, before the script quits.
    int exports = 0;
    for (const ScriptEntry& e : s.entries) exports += e.action == ScriptAction::export_predictions;
    EXPECT_EQ(exports, 2);
  }
}

TEST(ScriptParse, EachKindOfBadFileIsRefusedNamingWhereAndWhy) {
  struct Case {
    std::string text, expected;
  };
  const std::vector<Case> cases = {
      {"{\"events\": [", "not valid JSON"},
      {"[1, 2]", "a script is an object"},
      {R"({"events": [], "steps": 3})", "unknown key \"steps\""},
      {R"({"description": "x"})", "no \"events\""},
      {R"({"events": []})", "non-empty array"},
      {events("3"), "entry 1 (line 2): must be an object"},
      {events(R"({"action": "stats"})"), "entry 1 (line 2): needs exactly one of \"frame\""},
      {events(R"({"frame": 1, "time": 2, "action": "stats"})"), "needs exactly one of"},
      {events(R"({"frame": -1, "action": "stats"})"), "\"frame\" must be a whole number"},
      {events(R"({"frame": 1.5, "action": "stats"})"), "\"frame\" must be a whole number"},
      {events(R"({"time": -0.5, "action": "stats"})"), "\"time\" must be a number of seconds >= 0"},
      {events(R"({"time": "soon", "action": "stats"})"), "\"time\" must be a number"},
      {events(R"({"frame": 1})"), "has no \"action\""},
      {events(R"({"frame": 1, "action": "screenshoot"})"), "unknown action \"screenshoot\"; the actions are: set,"},
      {events(R"({"frame": 1, "action": "stats", "file": "x.png"})"), "unknown key \"file\" for the action \"stats\""},
      {events(R"({"frame": 1, "action": "screenshot"})"), "\"screenshot\" needs \"file\""},
      {events(R"({"frame": 1, "action": "screenshot", "file": ""})"), "\"file\" must be a file name"},
      {events(R"({"frame": 1, "action": "set", "settings": {"toggles": {"unroll": 0}}})"), "'toggles.unroll'"},
      {events(R"({"frame": 1, "action": "set", "settings": {"unroll": 8}})"), "kernel toggles go under \"toggles\""},
      {events(R"({"frame": 1, "action": "set", "settings": {"theta": "wide"}})"), "'theta' must be a number"},
      {events(R"({"frame": 1, "action": "set", "settings": {}})"), "\"settings\" must be a non-empty object"},
      {events(R"({"frame": 1, "action": "ladder_rung", "rung": 99})"), "\"rung\" must be a number in [0, 16]"},
      {events(R"({"frame": 1, "action": "ladder_rung", "rung": "unroll 9"})"), "no ladder rung is named \"unroll 9\""},
      {events(R"({"frame": 1, "action": "key", "key": "x"})"), "\"key\" must be one of the lab's keys: space, p,"},
      {events(R"({"frame": 1, "action": "drag", "by": [1]})"), "\"by\" must be [x, y] in pixels"},
      {events(R"({"frame": 1, "action": "drag", "by": [1, 2], "button": "side"})"), "\"button\" must be \"left\""},
      {events(R"({"frame": 1, "action": "drag", "by": [1, 2], "frames": 0})"),
       "\"frames\" must be a whole number in [1,"},
      {events(R"({"frame": 1, "action": "wheel", "by": 0})"), "\"by\" must be a non-zero number"},
      {events(R"({"frame": 1, "action": "ab_start"})"), "\"ab_start\" needs \"toggles\""},
      {events(R"({"frame": 1, "action": "ab_start", "toggles": {"unroll": 8}, "seed": 3})"), "unknown key \"seed\""},
      {events(R"({"frame": 1, "action": "tour", "tour": "fmm", "step": 1})"),
       "\"tour\" must be \"allpairs\" or \"barneshut\""},
      {events(R"({"frame": 1, "action": "tour", "tour": "allpairs", "step": 0})"),
       "\"step\" must be a number in [1, 17]"},
      {events(R"({"frame": 1, "action": "tour", "tour": "allpairs"})"), "\"tour\" needs \"step\""},
      {events(R"({"frame": 1, "action": "ab_start", "rung": 0})"),
       "rung 0 (\"1 thread\") as B would take seconds per step"},
      {events(R"({"frame": 1, "action": "ab_start", "rung": "unroll 9"})"), "no ladder rung is named \"unroll 9\""},
      {events("{\"frame\": 5, \"action\": \"stats\"},\n{\"frame\": 4, \"action\": \"stats\"}"),
       "entry 2 (line 3): frame 4 comes after frame 5 (entry 1 (line 2))"},
      {events("{\"time\": 2, \"action\": \"stats\"},\n{\"frame\": 9, \"action\": \"stats\"},\n{\"time\": 1.5, "
              "\"action\": \"stats\"}"),
       "entry 3 (line 4): t = 1.5 s comes after t = 2 s"},
  };
  for (const Case& c : cases) {
    const std::string message = refusal(c.text);
    EXPECT_NE(message.find(c.expected), std::string::npos) << "script: " << c.text << "\nmessage: " << message;
    EXPECT_EQ(message.rfind("s.json: ", 0), 0u) << message;
  }
}

TEST(ScriptParse, AMissingFileIsBadInputNamingIt) {
  try {
    load_script("/nonexistent/script.json");
    FAIL() << "a missing script was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/script.json"), std::string::npos) << e.what();
  }
}

// A target that records what the runner asks of it.
class RecordingTarget : public ScriptTarget {
 public:
  explicit RecordingTarget(Simulation& simulation) : simulation_(simulation), editor_(simulation.settings()) {}
  std::string cannot(ScriptAction action) const override {
    return action == ScriptAction::wheel ? "no wheel here" : "";
  }
  SettingsEditor& editor() override { return editor_; }
  void restart() override { calls.push_back("restart"); }
  void screenshot(const fs::path& file) override { calls.push_back("screenshot " + file.string()); }
  void print_stats() override { calls.push_back("stats"); }
  void set_paused(bool paused) override { calls.push_back(paused ? "pause" : "resume"); }
  void quit() override { calls.push_back("quit"); }
  void press_key(int key, bool ctrl) override { calls.push_back("key " + std::to_string(key) + (ctrl ? " ctrl" : "")); }
  void drag(MouseButton, std::optional<std::array<float, 2>>, std::array<float, 2> by, int frames) override {
    calls.push_back("drag " + std::to_string(static_cast<int>(by[0])) + " in " + std::to_string(frames));
  }
  void scroll(std::optional<std::array<float, 2>>, float) override { calls.push_back("wheel"); }
  void ab_start(const SettingsChange& b) override { calls.push_back("ab_start " + std::to_string(b.toggles.size())); }
  void ab_stop() override { calls.push_back("ab_stop"); }
  void ab_swap() override { throw Error("no B to swap with"); }
  void ab_make_current() override { calls.push_back("ab_make_current"); }
  void tour(TourKind kind, std::size_t step) override {
    calls.push_back("tour " + std::string(to_string(kind)) + " " + std::to_string(step));
    apply_tour_step(kind, step, editor_);
  }

  std::vector<std::string> calls;

 private:
  Simulation& simulation_;
  SettingsEditor editor_;
};

Settings cpu_settings() {
  Settings s;
  s.backend = BackendKind::cpu;
  s.body_count = 256;
  return s;
}

TEST(ScriptRunner, RunsEntriesInOrderAtTheirFrameOrTime) {
  Simulation simulation(cpu_settings());
  RecordingTarget target(simulation);
  ScriptRunner runner(parse_script(events(R"({"frame": 2, "action": "pause"},
{"time": 1.0, "action": "stats"},
{"frame": 2, "action": "key", "key": "h"},
{"frame": 3, "action": "drag", "by": [50, 0], "frames": 5},
{"frame": 3, "action": "quit"})"),
                                   "s"));
  EXPECT_TRUE(runner.run_due(0, 0.0, target).empty());
  EXPECT_TRUE(runner.run_due(1, 5.0, target).empty());
  EXPECT_EQ(runner.run_due(2, 0.5, target), std::vector<ScriptAction>{ScriptAction::pause});  // the time entry waits
  EXPECT_EQ(runner.run_due(2, 1.0, target), (std::vector<ScriptAction>{ScriptAction::stats, ScriptAction::key}));
  EXPECT_FALSE(runner.finished());
  EXPECT_NE(runner.unfinished_note(3).find("2 of 5 script entries did not run"), std::string::npos)
      << runner.unfinished_note(3);
  runner.run_due(3, 1.1, target);
  EXPECT_TRUE(runner.finished());
  EXPECT_EQ(runner.unfinished_note(4), "");
  EXPECT_EQ(target.calls,
            (std::vector<std::string>{"pause", "stats", "key " + std::to_string(keys::h), "drag 50 in 5", "quit"}));
}

TEST(ScriptRunner, SettingsGoThroughTheEditorAndRestartsAreAskedFor) {
  Simulation simulation(cpu_settings());
  RecordingTarget target(simulation);
  ScriptRunner runner(parse_script(
      events(
          R"({"frame": 0, "action": "set", "settings": {"theta": 0.9, "toggles": {"unroll": 8}, "view": {"exposure": 3.0}}},
{"frame": 1, "action": "set", "settings": {"seed": 7}})"),
      "s"));
  runner.run_due(0, 0, target);
  EXPECT_TRUE(target.editor().pending());
  EXPECT_DOUBLE_EQ(target.editor().draft().opening_angle, 0.9);
  EXPECT_EQ(target.editor().draft().toggles["unroll"], 8);
  EXPECT_FLOAT_EQ(target.editor().draft().view.exposure, 3.0f);
  EXPECT_TRUE(target.calls.empty());
  EXPECT_FALSE(target.editor().sync(simulation));  // what the lab's apply_settings does next
  EXPECT_DOUBLE_EQ(simulation.settings().opening_angle, 0.9);
  EXPECT_EQ(simulation.settings().toggles["unroll"], 8);
  runner.run_due(1, 0, target);
  EXPECT_EQ(target.calls, std::vector<std::string>{"restart"});
  EXPECT_EQ(target.editor().draft().seed, 7u);
}

TEST(ScriptRunner, ALadderRungSetsTheRungsAllPairsTogglesFromTheLadder) {
  Simulation simulation(cpu_settings());
  RecordingTarget target(simulation);
  target.editor().set_toggle(*find_toggle("bh_sort"), 0);  // not the ladder's: stays
  ScriptRunner runner(parse_script(events(R"({"frame": 0, "action": "ladder_rung", "rung": 7})"), "s"));
  runner.run_due(0, 0, target);
  const ToggleValues expected = ladder_toggles(7);
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    if (kToggles[i].algorithm != Algorithm::allpairs) continue;
    EXPECT_EQ(target.editor().draft().toggles.values[i], expected.values[i]) << kToggles[i].key;
  }
  EXPECT_EQ(target.editor().draft().toggles["bh_sort"], 0);
  EXPECT_EQ(target.editor().draft().toggles["unroll"], 8);
}

// A tour step sets exactly the toggles it names: its algorithm's toggles as the tour runs them, the
// other algorithm's untouched.
TEST(ScriptRunner, ATourStepSetsTheStepsAlgorithmAndToggles) {
  Simulation simulation(cpu_settings());
  RecordingTarget target(simulation);
  target.editor().set_toggle(*find_toggle("unroll"), 3);  // all-pairs: not the Barnes-Hut tour's, stays
  ScriptRunner runner(parse_script(
      events(R"({"frame": 0, "action": "tour", "tour": "barneshut", "step": "Kernel 4: sort the bodies in tree order"},
    {"frame": 1, "action": "tour", "tour": "allpairs", "step": 1})"),
      "s"));
  runner.run_due(0, 0, target);
  const Tour bh = load_tour(TourKind::barneshut);
  EXPECT_EQ(target.calls, std::vector<std::string>{"tour barneshut 4"});
  EXPECT_EQ(target.editor().draft().algorithm, Algorithm::barneshut);
  const Settings before = simulation.settings();
  EXPECT_EQ(toggle_changes(bh.steps[4].toggles, target.editor().draft().toggles, Algorithm::barneshut), "");
  EXPECT_EQ(toggle_changes(before.toggles, target.editor().draft().toggles, Algorithm::allpairs), "unroll=3");
  runner.run_due(1, 0, target);
  const Tour ap = load_tour(TourKind::allpairs);
  EXPECT_EQ(target.editor().draft().algorithm, Algorithm::allpairs);
  EXPECT_EQ(toggle_changes(ap.steps[1].toggles, target.editor().draft().toggles, Algorithm::allpairs), "")
      << "step 1 (one thread) runs step 2's code: one GPU thread is too slow to run live";
}

TEST(ScriptRunner, WhatTheTargetCannotDoIsRefusedBeforeTheRun) {
  ScriptRunner runner(parse_script(events(R"({"frame": 0, "action": "stats"},
{"frame": 4, "action": "wheel", "by": 1})"),
                                   "s.json"));
  try {
    runner.check(
        [](ScriptAction a) { return a == ScriptAction::wheel ? std::string("no wheel here") : std::string(); });
    FAIL() << "a wheel entry was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "s.json: entry 2 (line 3): \"wheel\": no wheel here");
  }
}

TEST(ScriptRunner, AScreenshotThatCannotBeWrittenIsRefusedBeforeTheRun) {
  ScriptRunner runner(
      parse_script(events(R"({"frame": 3, "action": "screenshot", "file": "/nonexistent/dir/a.png"})"), "s.json"));
  try {
    runner.check([](ScriptAction) { return std::string(); });
    FAIL() << "an unwritable screenshot was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("entry 1 (line 2)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir"), std::string::npos) << e.what();
  }
}

TEST(ScriptRunner, AFailingHookNamesTheEntry) {
  Simulation simulation(cpu_settings());
  RecordingTarget target(simulation);
  ScriptRunner runner(parse_script(events(R"({"time": 2, "action": "ab_swap"})"), "s.json"));
  try {
    runner.run_due(10, 2.0, target);
    FAIL() << "the hook's error was swallowed";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "s.json: entry 1 (line 2), \"ab_swap\" at t = 2 s: no B to swap with");
  }
  EXPECT_TRUE(runner.finished()) << "a failed entry is not retried";
}

FrameRecord row(std::int64_t frame, double interval_ms, bool building = false, std::string swap = "") {
  FrameRecord r;
  r.frame = frame;
  r.interval_ms = interval_ms;
  r.building = building;
  r.swap = std::move(swap);
  r.swap_latency_s = r.swap.empty() ? 0 : 0.5;
  r.variant = "morton leaf=4, sorted";
  return r;
}

TEST(FrameTrace, WritesOneQuotedCsvRowPerFrame) {
  FrameTrace trace;
  trace.record(row(0, 100));
  FrameRecord r = row(1, 16.5, true, "accepted");
  r.panel_ms = 1.25;
  r.build_state = "checking";
  r.script = "set+screenshot";
  r.swap_ms = 0.75;
  r.teardown_ms = 0.05;
  r.state_age_ms = 40.125;
  r.steps_completed = 7;
  r.stepping = true;
  r.camera_yaw_deg = 30;
  r.camera_pitch_deg = -12.5;
  r.camera_distance = 4.5;
  r.drawn = false;
  trace.record(r);
  std::istringstream csv(trace.csv());
  std::string header, first, second, extra;
  std::getline(csv, header);
  std::getline(csv, first);
  std::getline(csv, second);
  EXPECT_FALSE(std::getline(csv, extra));
  EXPECT_EQ(header, FrameTrace::csv_header());
  EXPECT_EQ(first, "0,0.000000,100.000,0.000,0.000,0.000,,0,0,,,\"morton leaf=4, sorted\",,,,,,,,,,,,0,0,,,,");
  // Newer columns come after the older ones (the swap's costs, then the stepping thread's and the camera's,
  // then whether the frame drew),
  // so readers of an older format still find theirs.
  EXPECT_EQ(second,
            "1,0.000000,16.500,0.000,0.000,0.000,1.250,0,1,checking,,\"morton leaf=4, "
            "sorted\",accepted,0.500,set+screenshot,,,,,,"
            "0.7500,0.0500,40.125,7,1,30.0000,-12.5000,4.5,0");
}

// A/B in the trace: B's changes, its state, and each frame's comparison; the summary pairs the frames of
// each B (a swap makes another B) into medians and a speed-up with its interval.
FrameRecord compared(std::int64_t frame, std::string b, double a_ms, double b_ms) {
  FrameRecord r = row(frame, 10);
  r.ab_b = std::move(b);
  r.ab_state = "ready";
  r.ab_a_ms = a_ms;
  r.ab_b_ms = b_ms;
  r.ab_difference = 3e-7;
  return r;
}

TEST(FrameTrace, RecordsBsFiguresAndSummarizesEachB) {
  FrameTrace trace;
  trace.record(row(0, 100));
  FrameRecord building = row(1, 10);
  building.ab_b = "unroll=128, layout=soa";
  building.ab_state = "building";
  trace.record(building);
  for (int i = 2; i < 22; ++i) trace.record(compared(i, "unroll=128, layout=soa", 2.0 + 0.01 * (i % 3), 1.0));
  for (int i = 22; i < 32; ++i) trace.record(compared(i, "unroll=8", 1.0, 2.0));  // swapped: A is now the faster
  std::istringstream csv(trace.csv());
  std::vector<std::string> lines;
  for (std::string line; std::getline(csv, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 33u);
  EXPECT_NE(lines[2].find(",\"unroll=128, layout=soa\",building,,,"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find(",\"unroll=128, layout=soa\",ready,2.0200,1.0000,3e-07"), std::string::npos) << lines[3];

  const TraceSummary s = trace.summarize();
  ASSERT_EQ(s.comparisons.size(), 2u);
  EXPECT_EQ(s.comparisons[0].b, "unroll=128, layout=soa");
  EXPECT_EQ(s.comparisons[0].frames, 20u);
  EXPECT_NEAR(s.comparisons[0].a_median_ms, 2.01, 1e-12);
  EXPECT_NEAR(s.comparisons[0].speedup.median, 2.01, 1e-12);
  EXPECT_GT(s.comparisons[0].speedup.low, 1.99);
  EXPECT_EQ(s.comparisons[1].frames, 10u);
  EXPECT_DOUBLE_EQ(s.comparisons[1].speedup.median, 0.5);
  std::ostringstream out;
  trace.print_summary(out);
  EXPECT_NE(
      out.str().find("A/B, B = unroll=128, layout=soa: 20 frame(s) compared; force computation A 2.010 ms, B 1.000 ms "
                     "(medians); B is 2.01x faster"),
      std::string::npos)
      << out.str();
  EXPECT_NE(
      out.str().find("A/B, B = unroll=8: 10 frame(s) compared; force computation A 1.000 ms, B 2.000 ms (medians); "
                     "B is 2.00x slower"),
      std::string::npos)
      << out.str();
}

TEST(FrameTrace, TheSummaryLeavesTheFirstFrameOutAndSplitsBuildFrames) {
  FrameTrace trace;
  trace.record(row(0, 900));  // start-up
  for (int i = 1; i <= 8; ++i) trace.record(row(i, 10 + i % 2));
  trace.record(row(9, 30, true));
  trace.record(row(10, 12, true, "accepted"));
  trace.record(row(11, 10, false, "refused"));
  const TraceSummary s = trace.summarize();
  EXPECT_EQ(s.frames, 11u);
  EXPECT_EQ(s.build_frames, 2u);
  EXPECT_DOUBLE_EQ(s.max_ms, 30);
  EXPECT_DOUBLE_EQ(s.max_during_builds_ms, 30);
  EXPECT_DOUBLE_EQ(s.max_outside_builds_ms, 11);
  EXPECT_DOUBLE_EQ(s.median_outside_builds_ms, 10);
  EXPECT_EQ(s.swaps_accepted, 1);
  EXPECT_EQ(s.swaps_refused, 1);
  EXPECT_DOUBLE_EQ(s.median_swap_latency_s, 0.5);
  std::ostringstream out;
  trace.print_summary(out);
  EXPECT_NE(out.str().find("11 frame(s) after the first"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("during builds:   max   30.000 ms (3.00x the median outside)"), std::string::npos)
      << out.str();
}

TEST(FrameTrace, TheSummaryGivesTheAcceptedSwapsOwnCosts) {
  FrameTrace trace;
  trace.record(row(0, 900));
  const double swap_ms[] = {0.4, 2.5, 0.6}, teardown_ms[] = {0.02, 0.04, 0.03};
  for (int i = 0; i < 3; ++i) {
    trace.record(row(1 + 2 * i, 10));
    FrameRecord r = row(2 + 2 * i, 12, true, "accepted");
    r.swap_ms = swap_ms[i];
    r.teardown_ms = teardown_ms[i];
    trace.record(r);
  }
  FrameRecord refused = row(7, 10, false, "refused");  // a refusal swaps nothing in: not counted
  refused.swap_ms = 9.0;
  refused.teardown_ms = 0.0;
  trace.record(refused);
  const TraceSummary s = trace.summarize();
  EXPECT_DOUBLE_EQ(s.median_swap_ms, 0.6);
  EXPECT_DOUBLE_EQ(s.max_swap_ms, 2.5);
  EXPECT_DOUBLE_EQ(s.median_teardown_ms, 0.03);
  EXPECT_DOUBLE_EQ(s.max_teardown_ms, 0.04);
  std::ostringstream out;
  trace.print_summary(out);
  EXPECT_NE(
      out.str().find("swap calls (frame loop): median 0.600 ms, max 2.500 ms; of that the old build's teardown median "
                     "0.030 ms, max 0.040 ms"),
      std::string::npos)
      << out.str();
}

TEST(FrameTrace, WritesTheFileWhole) {
  const fs::path file = fs::temp_directory_path() / ("nbl_trace_" + std::to_string(getpid()) + ".csv");
  FrameTrace trace;
  trace.record(row(0, 5));
  trace.write_csv(file);
  std::ifstream in(file);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header, FrameTrace::csv_header());
  fs::remove(file);
}

}  // namespace
}  // namespace nbl
