// The tour's data (assets/tour/*.json) against the lab's own tables: every step names a rung of kLadder
// or a Barnes-Hut switch that exists, sets exactly what it names, and has the words a teacher reads out.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "sim/error.hpp"
#include "sim/ladder.hpp"
#include "sim/measured_figures.hpp"
#include "sim/resources.hpp"
#include "sim/tour.hpp"

namespace nbl {
namespace {

int sentences(const std::string& text) {
  int n = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i)
    if ((text[i] == '.' || text[i] == '!' || text[i] == '?') && text[i + 1] == ' ') ++n;
  return n + (text.empty() ? 0 : 1);
}

TEST(Tour, TheShippedToursLoadAndEveryStepHasItsWords) {
  for (TourKind kind : {TourKind::allpairs, TourKind::barneshut}) {
    SCOPED_TRACE(std::string(to_string(kind)));
    const Tour tour = load_tour(kind);
    EXPECT_EQ(tour.kind, kind);
    ASSERT_GE(tour.steps.size(), 8u);
    for (const TourStep& s : tour.steps) {
      SCOPED_TRACE(s.title);
      EXPECT_GE(sentences(s.text), 2) << s.text;
      EXPECT_LE(sentences(s.text), 4) << "two or three sentences (four at most): " << s.text;
      EXPECT_FALSE(tutorial_reference(tour, s).empty());
    }
  }
}

TEST(Tour, AllPairsStepsRunTheirRungsToggles) {
  const Tour tour = load_tour(TourKind::allpairs);
  ASSERT_EQ(tour.steps.size(), kLadder.size()) << "one step per rung";
  for (std::size_t i = 0; i < tour.steps.size(); ++i) {
    const TourStep& s = tour.steps[i];
    ASSERT_TRUE(s.rung);
    EXPECT_EQ(*s.rung, i) << "in the ladder's order";
    EXPECT_EQ(s.toggles, ladder_toggles(*s.rung)) << "exactly the rung's toggles";
    if (i == 0) {
      EXPECT_FALSE(s.previous);
      EXPECT_TRUE(s.sampled_only) << "one GPU thread is too slow to run live";
      EXPECT_EQ(tour.running_toggles(0), tour.steps[1].toggles);
      continue;
    }
    ASSERT_TRUE(s.previous);
    EXPECT_TRUE(kLadder[*tour.steps[*s.previous].rung].kept) << "compared with the rung it builds on";
    EXPECT_FALSE(s.sampled_only);
    EXPECT_EQ(tour.running_toggles(i), s.toggles);
    // The step changes exactly its rung's toggles from the one it builds on.
    for (const ToggleChange& c : kLadder[*s.rung].changes)
      EXPECT_EQ(s.toggles[c.toggle], c.value) << kToggles[c.toggle.index].key;
    for (std::size_t t = 0; t < kToggleCount; ++t) {
      const bool named = std::any_of(kLadder[*s.rung].changes.begin(), kLadder[*s.rung].changes.end(),
                                     [&](const ToggleChange& c) { return c.toggle.index == t; });
      if (!named) {
        EXPECT_EQ(s.toggles.values[t], tour.steps[*s.previous].toggles.values[t]) << kToggles[t].key;
      }
    }
  }
  // Two loops (rung 5) is a side trip: shared tiles (rung 6) builds on rsqrtf (rung 4).
  EXPECT_EQ(*tour.steps[6].previous, 4u);
}

TEST(Tour, AllPairsStepsSayWhereTodaysGpuDisagrees) {
  const Tour tour = load_tour(TourKind::allpairs);
  for (const char* rung : {"SoA", "two loops", "float4"}) {
    const auto s = std::find_if(tour.steps.begin(), tour.steps.end(),
                                [&](const TourStep& t) { return kLadder[*t.rung].name == rung; });
    ASSERT_NE(s, tour.steps.end());
    EXPECT_FALSE(s->this_gpu.empty()) << rung;
  }
  EXPECT_NE(tutorial_speedup(tour, tour.steps[4]).find("1.83x on a Tesla C2050 (CC 2.0)"), std::string::npos)
      << tutorial_speedup(tour, tour.steps[4]);
  EXPECT_EQ(tutorial_speedups(tour, tour.steps[4]), (std::vector<double>{0.99, 1.83, 1.64}));
  EXPECT_EQ(tutorial_speedup(tour, tour.steps[12]), "") << "float4 is beyond the tutorial";
}

// Every Barnes-Hut toggle at its default, and theta 0.5, as a tour's "start" object.
std::string full_start() {
  std::string start;
  for (const ToggleDef& t : kToggles)
    if (t.algorithm == Algorithm::barneshut)
      start += (start.empty() ? "" : ", ") + ("\"" + std::string(t.key) + "\": ") +
               (t.kind == ToggleKind::flag      ? std::string(t.default_value ? "true" : "false")
                : t.kind == ToggleKind::integer ? std::to_string(t.default_value)
                                                : "\"" + toggle_value_text(t, t.default_value) + "\"");
  return R"({"toggles": {)" + start + R"(}, "settings": {"theta": 0.5}})";
}

// Each step after the first turns one switch or changes one setting on top of the step before, or is a
// note that switches nothing; the tutorial's steps come first, in the order of its kernel slides.
TEST(Tour, BarnesHutStepsTurnOneSwitchEachOnTopOfTheLast) {
  const Tour tour = load_tour(TourKind::barneshut);
  const TourStep& first = tour.steps.front();
  EXPECT_EQ(first.toggle, nullptr);
  EXPECT_FALSE(first.note);
  EXPECT_FALSE(first.tutorial.empty());
  std::vector<std::string> switched, rows;
  bool beyond = false;
  for (std::size_t i = 1; i < tour.steps.size(); ++i) {
    const TourStep& s = tour.steps[i];
    const TourStep& before = tour.steps[i - 1];
    SCOPED_TRACE(s.title);
    ASSERT_EQ(s.previous, i - 1);
    EXPECT_FALSE(s.kernel.empty());
    if (s.tutorial.empty()) beyond = true;
    EXPECT_FALSE(beyond && !s.tutorial.empty()) << "the tutorial's steps come before the ones beyond it";
    if (s.note) {
      EXPECT_EQ(s.toggle, nullptr);
      EXPECT_EQ(s.toggles, before.toggles) << "a note switches nothing";
      EXPECT_EQ(s.settings, before.settings);
      EXPECT_EQ(tutorial_speedups(tour, s).size(), 3u) << "the row's figures at 50k, 500k and 5M";
      rows.push_back(s.row);
      continue;
    }
    ASSERT_NE(s.toggle, nullptr) << "the shipped tour changes one switch a step";
    EXPECT_EQ(s.toggle->algorithm, Algorithm::barneshut);
    EXPECT_EQ(toggle_changes(before.toggles, s.toggles, Algorithm::barneshut),
              std::string(s.toggle->key) + "=" + toggle_value_text(*s.toggle, s.value))
        << "a step sets exactly the switch it names";
    EXPECT_EQ(s.settings, before.settings) << "and nothing else";
    switched.push_back(std::string(s.toggle->key));
  }
  // Every switch of the tutorial's table and kernel slides is on the tour, and every row without one has its note.
  for (const char* key : {"bh_throttle", "bh_combined_fence", "bh_waitfree", "bh_sort", "bh_sort_throttle",
                          "bh_early_out", "bh_traversal", "bh_vote", "bh_rsqrt", "bh_avoid_volatile"})
    EXPECT_NE(std::find(switched.begin(), switched.end(), key), switched.end()) << key;
  for (const TutorialRow& r : kTutorialRowsWithoutSwitch)
    EXPECT_NE(std::find(rows.begin(), rows.end(), r.name), rows.end()) << r.name;
  // The steps beyond the tutorial, each on its own.
  for (const char* key : {"bh_build", "bh_moments", "bh_opening", "bh_block_size"})
    EXPECT_NE(std::find(switched.begin(), switched.end(), key), switched.end()) << key;
  EXPECT_EQ(tutorial_speedups(tour, tour.steps[1]), (std::vector<double>{0.97, 1.03, 1.04}))
      << "throttling, from its toggle";
  // The warp walk and its vote carry the two columns the tutorial measured apart.
  for (const TourStep& s : tour.steps) {
    if (s.toggle && s.toggle->key == "bh_vote") {
      EXPECT_EQ(tutorial_speedups(tour, s), (std::vector<double>{2.04, 2.49, 2.47}));
    }
    if (s.toggle && s.toggle->key == "bh_traversal" && s.value == Choice{"bh_traversal", "warp"}.value) {
      EXPECT_EQ(tutorial_speedups(tour, s), (std::vector<double>{6.23, 8.04, 8.60}));
    }
    if (s.toggle && s.toggle->key == "bh_traversal" && s.value == Choice{"bh_traversal", "group"}.value) {
      EXPECT_EQ(tutorial_speedup(tour, s), "") << "the group walk is beyond the tutorial";
      EXPECT_EQ(tutorial_reference(tour, s), "beyond the tutorial");
    }
    if (s.toggle && s.toggle->key == "bh_sort_throttle") {
      EXPECT_NE(tutorial_speedup(tour, s).find("Not measured on its own"), std::string::npos)
          << tutorial_speedup(tour, s);
    }
  }
}

// The first step is the tutorial's configuration, as kTutorialConfiguration states it with its slides.
TEST(Tour, TheBarnesHutTourStartsFromTheTutorialsConfiguration) {
  const Tour tour = load_tour(TourKind::barneshut);
  const TourStep& first = tour.steps.front();
  for (const TutorialChoice& c : kTutorialConfiguration) {
    SCOPED_TRACE(std::string(c.key));
    EXPECT_FALSE(c.evidence.empty());
    if (const ToggleDef* def = find_toggle(c.key)) {
      EXPECT_EQ(def->algorithm, Algorithm::barneshut);
      EXPECT_EQ(toggle_value_text(*def, first.toggles.values[static_cast<std::size_t>(def - kToggles.data())]),
                c.value);
      continue;
    }
    const TourSetting* s = find_tour_setting(first, c.key);
    ASSERT_NE(s, nullptr) << "the first step declares it";
    EXPECT_EQ(s->value, SettingValue(std::stod(std::string(c.value))));
  }
  const Settings runs = with_step_settings(tour, 0, Settings{});
  EXPECT_DOUBLE_EQ(runs.opening_angle, 0.5);
  EXPECT_TRUE(runs.toggles.is(Choice{"bh_opening", "geometric"}));
}

// docs/teaching-audit.md states the tutorial's configuration in one row, key=value by key=value, with its slides.
TEST(Tour, TheAuditStatesTheTutorialsConfiguration) {
  std::ifstream in(resource_root() / "docs" / "teaching-audit.md");
  ASSERT_TRUE(in) << "docs/teaching-audit.md";
  std::string line, row;
  while (std::getline(in, line))
    if (line.find("The tutorial's configuration") != std::string::npos && line.starts_with("|")) row = line;
  ASSERT_FALSE(row.empty()) << "no row for the tutorial's configuration";
  for (const TutorialChoice& c : kTutorialConfiguration)
    EXPECT_NE(row.find("`" + std::string(c.key) + "=" + std::string(c.value) + "`"), std::string::npos)
        << c.key << " in: " << row;
  EXPECT_NE(row.find("slide 103"), std::string::npos);
}

// The tour ends where the lab starts: every Barnes-Hut toggle at its default.
TEST(Tour, TheBarnesHutTourEndsAtTheDefaults) {
  const Tour tour = load_tour(TourKind::barneshut);
  EXPECT_EQ(toggle_changes(ToggleValues{}, tour.steps.back().toggles, Algorithm::barneshut), "");
}

// What the lab applies at a step (step_settings): the algorithm, its toggles and the declared settings,
// nothing else; a step may change theta alone.
TEST(Tour, AStepsSettingsAreWhatItDeclares) {
  const std::string text =
      R"({"tour": "barneshut", "title": "t", "intro": "i", "start": )" + full_start() + R"(, "steps": [
      {"title": "a", "text": "b"},
      {"settings": {"theta": 0.7}, "title": "c", "text": "d", "kernel": "force"},
      {"switch": "bh_sort", "value": false, "title": "e", "text": "f", "kernel": "force"}]})";
  const Tour tour = parse_tour(text, "t.json");
  ASSERT_EQ(tour.steps.size(), 3u);
  EXPECT_EQ(tour.steps[1].toggle, nullptr);
  EXPECT_EQ(tour.steps[1].toggles, tour.steps[0].toggles);
  Settings base;
  base.algorithm = Algorithm::allpairs;
  base.dt = 0.125;
  base.toggles[ToggleId("unroll")] = 8;
  const Settings s0 = with_step_settings(tour, 0, base), s1 = with_step_settings(tour, 1, base),
                 s2 = with_step_settings(tour, 2, base);
  EXPECT_EQ(s0.algorithm, Algorithm::barneshut);
  EXPECT_DOUBLE_EQ(s0.opening_angle, 0.5);
  EXPECT_DOUBLE_EQ(s1.opening_angle, 0.7);
  EXPECT_DOUBLE_EQ(s2.opening_angle, 0.7) << "a setting stays as the last step left it";
  EXPECT_EQ(s2.toggles[ToggleId("bh_sort")], 0);
  EXPECT_EQ(s2.dt, base.dt) << "what a step does not declare stays the user's";
  EXPECT_EQ(s2.toggles[ToggleId("unroll")], 8) << "another algorithm's toggles too";
  const TourStepSettings d = step_settings(tour, 1);
  ASSERT_EQ(d.settings.size(), 1u);
  EXPECT_EQ(d.settings[0].setting->key, "theta");
}

TEST(Tour, TheBarnesHutStartNamesEveryToggleSoNoStepDependsOnTheDefaults) {
  const Tour tour = load_tour(TourKind::barneshut);
  EXPECT_TRUE(tour.steps.front().toggles.is(Choice{"bh_opening", "geometric"})) << "the tutorial opens by angle";
  const std::string without_one =
      R"({"tour": "barneshut", "title": "t", "intro": "i", "start": {"toggles": {"bh_sort": false}},
      "steps": [{"title": "a", "text": "b"}]})";
  try {
    parse_tour(without_one, "t.json");
    ADD_FAILURE() << "a start without every toggle was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\"start\": \"toggles\" must name every Barnes-Hut toggle; it lacks bh_build"),
              std::string::npos)
        << e.what();
  }
  const std::string full = full_start();
  const std::string without_theta = full.substr(0, full.find(R"("settings")")) + R"("settings": {}})";
  try {
    parse_tour(R"({"tour": "barneshut", "title": "t", "intro": "i", "start": )" + without_theta +
                   R"(, "steps": [{"title": "a", "text": "b"}]})",
               "t.json");
    ADD_FAILURE() << "a start without theta was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(
        std::string(e.what()).find("\"start\": \"settings\" must name every setting a step may change; it lacks theta"),
        std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(parse_tour(R"({"tour": "barneshut", "title": "t", "intro": "i", "start": )" + full_start() +
                                 R"(, "steps": [{"title": "a", "text": "b"}]})",
                             "t.json"));
}

TEST(Tour, ATutorialTagIsShownAsTheTutorialsFigure) {
  EXPECT_EQ(teaching_text("It gained 3.6x at 50,000 bodies [tutorial: Part II, Kernel Speedups]."),
            "It gained 3.6x at 50,000 bodies (the tutorial, Part II, Kernel Speedups).");
  EXPECT_EQ(teaching_text("No tag here."), "No tag here.");
  EXPECT_EQ(teaching_text("An open [tutorial: tag"), "An open [tutorial: tag");
}

// The tour shows a GPU's figure for a step only when it was measured between the step's configuration
// and the previous step's (assets/measured/figures.json): the ladder's runs measured exactly the tour's
// all-pairs steps; the Barnes-Hut runs kept so far measured other configurations, so none shows.
TEST(Tour, AStepShowsOnlyFiguresMeasuredInItsOwnConfiguration) {
  const MeasuredFigures figures = MeasuredFigures::load(find_resource("assets/measured/figures.json"));
  const Tour allpairs = load_tour(TourKind::allpairs);
  for (std::size_t i = 1; i < allpairs.steps.size(); ++i) {
    const TourStep& s = allpairs.steps[i];
    SCOPED_TRACE(s.title);
    const auto found = figures.comparing(Algorithm::allpairs, s.toggles, allpairs.steps[*s.previous].toggles);
    EXPECT_FALSE(found.empty()) << "the ladder's kept runs measured this rung against the one it builds on";
    for (const MeasuredFigure* f : found) EXPECT_TRUE(measured_in(f->config.toggles, Algorithm::allpairs, s.toggles));
  }
  const Tour barneshut = load_tour(TourKind::barneshut);
  for (std::size_t i = 1; i < barneshut.steps.size(); ++i) {
    const TourStep& s = barneshut.steps[i];
    for (const MeasuredFigure* f : figures.comparing(Algorithm::barneshut, s.toggles, barneshut.steps[i - 1].toggles))
      EXPECT_TRUE(f->log.find("tour-barneshut-step-") != std::string::npos)
          << s.title << ": " << f->log << " measured another configuration";
  }
}

TEST(Tour, BadToursAreRefusedNamingTheStep) {
  const std::string head = R"({"tour": "allpairs", "title": "t", "intro": "i", "steps": [)";
  const std::string bh =
      R"({"tour": "barneshut", "title": "t", "intro": "i", "start": )" + full_start() + R"(, "steps": [)";
  struct Case {
    std::string text, expected;
  };
  const Case cases[] = {
      {"not json", "t.json: not JSON"},
      {R"({"tour": "fmm", "title": "t", "intro": "i", "steps": []})", "\"tour\" must be \"allpairs\" or \"barneshut\""},
      {head + R"({"rung": "unroll 9", "title": "x", "text": "y"}]})", "step 1: no ladder rung \"unroll 9\""},
      {head + R"({"rung": 99, "title": "x", "text": "y"}]})", "step 1: no ladder rung 99"},
      {head + R"({"rung": 1, "title": "x"}]})", "step 1 needs \"text\""},
      {head + R"({"rung": 1, "title": "x", "text": "y", "colour": 1}]})", "step 1: unknown key \"colour\""},
      {bh + R"({"title": "a", "text": "b"}, {"switch": "unroll", "value": 8, "title": "x", "text": "y"}]})",
       "step 2: \"switch\" must name a Barnes-Hut toggle (got \"unroll\")"},
      {bh + R"({"title": "a", "text": "b"}, {"switch": "bh_sort", "value": "sideways", "title": "x", "text": "y"}]})",
       "step 2: "},
      {bh + R"({"title": "a", "text": "b"}, {"switch": "bh_sort", "value": true, "title": "x", "text": "y"}]})",
       "step 2: bh_sort is on already: the step changes nothing"},
      {R"({"tour": "barneshut", "title": "t", "intro": "i", "start": {"toggles": {"unroll": 8}}, "steps": [{"title": "a", "text": "b"}]})",
       "\"start\": \"toggles\": \"unroll\" is not a Barnes-Hut toggle"},
      {R"({"tour": "barneshut", "title": "t", "intro": "i", "start": {"bh_sort": true}, "steps": [{"title": "a", "text": "b"}]})",
       "\"start\": unknown key \"bh_sort\""},
      {bh + R"({"title": "a", "text": "b"}, {"title": "x", "text": "y"}]})",
       "step 2 needs \"switch\" and \"value\", or \"settings\", or a \"row\" it explains"},
      {bh + R"({"title": "a", "text": "b", "settings": {"theta": 0.7}}]})", "step 1 shows the starting point"},
      {bh + R"({"title": "a", "text": "b"}, {"settings": {"dt": 0.1}, "title": "x", "text": "y"}]})",
       "step 2: \"settings\": \"dt\" is not a setting a tour step may change (\"theta\""},
      {bh + R"({"title": "a", "text": "b"}, {"settings": {"theta": 0.5}, "title": "x", "text": "y"}]})",
       "step 2: \"settings\" changes nothing"},
      {bh + R"({"title": "a", "text": "b"}, {"settings": {"theta": "wide"}, "title": "x", "text": "y"}]})",
       "step 2: \"settings\": "},
      {bh + R"({"title": "a", "text": "b"}, {"row": "magic", "title": "x", "text": "y"}]})",
       "step 2: \"row\" must name a row of the tutorial's table that has no switch: \"recalc. data\", \"full "
       "multithreading\""},
      {bh +
           R"({"title": "a", "text": "b"}, {"row": "recalc. data", "switch": "bh_sort", "value": false, "title": "x", "text": "y"}]})",
       "step 2: a step with \"row\" is a note"},
  };
  for (const Case& c : cases) {
    try {
      parse_tour(c.text, "t.json");
      ADD_FAILURE() << "accepted: " << c.text;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what() << "\nexpected: " << c.expected;
    }
  }
}

}  // namespace
}  // namespace nbl
