#include "cuda/barneshut/variant.hpp"

#include <algorithm>
#include <cctype>

#include "cuda/allpairs/variant.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "cuda/kernels/bh_tree.hpp"
#include "cuda/engine/ptx_analysis.hpp"
#include "sim/error.hpp"
#include "sim/tour.hpp"

namespace nbl {

namespace {

// Every BH kernel is compiled with denormals flushed to zero, as the tutorial's code was (-ftz=true):
// without it rsqrtf needs a slow path for denormal inputs.
const std::vector<std::string> kOptions{"-ftz=true"};

constexpr Choice kMorton{"bh_build", "morton"};
constexpr Choice kInsertion{"bh_build", "insertion"};

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// The macros a toggle becomes: its name from the toggle table, its value the toggle's, and for a choice
// toggle one constant per choice (NBL_BH_BUILD_MORTON, ...), so kernels compare names, never numbers.
std::vector<std::pair<std::string, std::string>> macros(const ToggleValues& t, ToggleId id) {
  const ToggleDef& def = id.def();
  std::vector<std::pair<std::string, std::string>> out{{std::string(def.macro), std::to_string(t[id])}};
  if (def.kind == ToggleKind::choice)
    for (std::size_t c = 0; c < def.choices.size(); ++c)
      out.emplace_back(std::string(def.macro) + "_" + upper(def.choices[c].name), std::to_string(c));
  return out;
}

// A kernel source of this switchboard: every BH file also gets NBL_BH_SWITCHBOARD (bh_common.cuh
// refuses to compile without it) and the common options.
KernelSource source(std::string file, std::initializer_list<ToggleId> toggles, const ToggleValues& t,
                    std::string label) {
  KernelSource s{std::move(file), {{"NBL_BH_SWITCHBOARD", "1"}}, kOptions, std::move(label)};
  for (ToggleId id : toggles)
    for (auto& m : macros(t, id)) s.macros.push_back(std::move(m));
  return s;
}

}  // namespace

BarnesHutVariant barneshut_variant(const ToggleValues& t, bool softened) {
  BarnesHutVariant v;
  v.morton_build = t.is(kMorton);
  v.sort = t["bh_sort"] != 0;
  v.traversal = static_cast<BhTraversal>(t["bh_traversal"]);
  v.leaf_capacity = v.morton_build ? t["bh_leaf_capacity"] : 1;
  v.force_block = t["bh_block_size"];

  v.bounding_box = source("bh_bbox.cu", {"bh_build"}, t, "bounding box");
  if (v.morton_build) {
    v.build = source("bh_morton.cu", {"bh_leaf_capacity"}, t,
                     "Morton build, leaves of up to " + std::to_string(v.leaf_capacity));
    const std::string no_locks = "only the lock-based insertion build has it; the Morton build takes no locks";
    v.inert = {{"bh_throttle", no_locks},
               {"bh_combined_fence", no_locks},
               {"bh_waitfree",
                "the Morton build summarizes its cells bottom-up in its own pass (the last child to arrive summarizes "
                "the parent); only the insertion build's "
                "summarize kernel waits on children"},
               {"bh_sort_throttle",
                "the Morton build sorts the bodies as it builds; only the insertion build runs the sort kernel"},
               {"bh_early_out",
                "the Morton build keeps every child in its octant's slot, with empty slots between them, so the walk "
                "reads all eight; only the insertion build's summarize moves empty slots to the back"}};
  } else {
    v.build = source("bh_build_insert.cu", {"bh_throttle", "bh_combined_fence"}, t,
                     std::string("lock-based insertion") + (t["bh_throttle"] ? ", throttled" : "") +
                         (t["bh_combined_fence"] ? ", combined fence" : ""));
    v.summarize = source("bh_summarize.cu", {"bh_waitfree"}, t,
                         t["bh_waitfree"] ? "summarize, wait-free pre-pass" : "summarize, waiting");
    v.sort_bodies = source("bh_sort.cu", {"bh_sort_throttle"}, t, t["bh_sort_throttle"] ? "sort, throttled" : "sort");
    v.inert = {
        {"bh_leaf_capacity", "the insertion build keeps one body per leaf; leaf capacity is the Morton build's"}};
  }

  // The traversal picks the kernel file: three different algorithms, not one with a run-time switch.
  const char* file = "bh_force_group.cu";
  const char* name = "group lists";
  if (v.traversal == BhTraversal::thread) file = "bh_force_thread.cu", name = "per-thread walk";
  if (v.traversal == BhTraversal::warp) file = "bh_force_warp.cu", name = "warp union (vote)";
  const bool monopole = t.is(Choice{"bh_moments", "monopole"});
  const bool group_walk = v.traversal == BhTraversal::group;
  v.force = group_walk ? source(file,
                                {"bh_rsqrt", "bh_avoid_volatile", "bh_sort", "bh_block_size", "bh_moments",
                                 "bh_opening", "bh_tolerance", "bh_group_size", "bh_fit_slots"},
                                t, "")
                       : source(file,
                                {"bh_rsqrt", "bh_avoid_volatile", "bh_sort", "bh_block_size", "bh_moments",
                                 "bh_opening", "bh_tolerance"},
                                t, "");
  auto inert = [&](std::string_view key, std::string reason) {
    if (!find_inert(v.inert, key)) v.inert.push_back({key, std::move(reason)});
  };
  // Inert means the same kernel: a switch reaches only the walks that read it, and there only where it acts.
  if (!group_walk) {
    const bool early_out = t["bh_early_out"] && !v.morton_build;
    v.force.macros.emplace_back("NBL_BH_EARLY_OUT", early_out ? "1" : "0");
  } else {
    inert("bh_early_out", "the group walk loads a cell's eight slots at once and keeps the children it needs");
  }
  if (v.traversal == BhTraversal::warp) {
    v.force.macros.emplace_back("NBL_BH_VOTE", std::to_string(t["bh_vote"]));
  } else {
    inert("bh_vote", v.traversal == BhTraversal::thread
                         ? "each thread walks alone: there is nothing to agree on"
                         : "only the warp walk votes on a cell; the group walk tests a whole group's box");
  }
  const bool relative = t.is(Choice{"bh_opening", "relative"});
  v.relative_opening = relative;
  v.tolerance = relative ? t["bh_tolerance"] : 0;
  if (!relative) {
    v.inert.push_back({"bh_tolerance", "cells open by the angle theta; the tolerance sets the relative opening test"});
    // Inert means the same kernel: every tolerance compiles to one module while cells open by angle.
    for (auto& [name, value] : v.force.macros)
      if (name == "NBL_BH_TOLERANCE") value = "0";
  }
  v.force.macros.emplace_back("NBL_BH_SOFTENED", softened ? "1" : "0");
  if (group_walk) {
    // Shared memory per warp: the point list (float4 entries, bh_list_capacity of them), with quadrupoles
    // a cell list a quarter as long (40 bytes an entry), and the node stack (ints), at least
    // kMinGroupStack entries; the launch gives the stack whatever more the kernel's occupancy leaves
    // (cuda/barneshut/pipeline.cpp, force_stack_capacity).
    // Big blocks get shorter lists so that one block still fits an SM's 227 KB.
    const int warps = v.force_block / 32;
    const int group_size = v.sort ? t["bh_group_size"] : 32;
    int list_cap = t["bh_list_capacity"];
    auto cells_for = [&](int list) { return monopole ? 0 : std::max(64, list / 4); };
    auto bytes_for = [&](int list) {
      return static_cast<std::size_t>(warps) *
             bh::group_shared_bytes_per_warp(list, cells_for(list), bh::kMinGroupStack);
    };
    while (list_cap > 64 && bytes_for(list_cap) > bh::kForceSharedLimit) list_cap /= 2;
    v.force.macros.emplace_back("NBL_BH_LIST_CAP", std::to_string(list_cap));
    v.force.macros.emplace_back("NBL_BH_CELL_CAP", std::to_string(cells_for(list_cap)));
    v.force_shared_bytes = bytes_for(list_cap);
    v.force_list_capacity = list_cap;
    v.force_cell_capacity = cells_for(list_cap);
    if (group_size == 32)
      v.inert.push_back(
          {"bh_fit_slots", v.sort ? "groups of 32 fill one slot of each lane: there is nothing to fit"
                                  : "unsorted runs of 32 fill one slot of each lane: there is nothing to fit"});
    if (v.sort) {
      v.groups = source("bh_groups.cu", {"bh_group_size"}, t, "force groups");
    } else {
      v.inert.push_back(
          {"bh_group_size", "unsorted bodies are taken in runs of 32 in memory order: groups need the tree order"});
    }
  } else {
    const std::string group_only =
        "only the group walk forms groups and lists; this traversal walks per thread or per warp";
    v.inert.push_back({"bh_group_size", group_only});
    v.inert.push_back({"bh_list_capacity", group_only});
    v.inert.push_back({"bh_fit_slots", group_only});
  }
  v.force.label = std::string(name) + (v.sort ? ", sorted" : ", unsorted") +
                  (group_walk && v.sort ? ", groups of " + std::to_string(t["bh_group_size"]) : std::string()) +
                  (group_walk ? ", lists of " + std::to_string(v.force_list_capacity) : std::string()) +
                  (t.is(Choice{"bh_moments", "quadrupole"}) ? ", quadrupoles"
                   : t.is(Choice{"bh_moments", "adaptive"}) ? ", adaptive quadrupoles"
                                                            : "") +
                  (relative ? ", relative opening at " + std::to_string(t["bh_tolerance"]) + "e-4" : std::string()) +
                  (group_walk && !t["bh_fit_slots"] ? ", every slot" : "") +
                  (t["bh_rsqrt"] ? ", rsqrtf" : ", 1/sqrtf") + (t["bh_avoid_volatile"] ? "" : ", volatile") +
                  (v.traversal == BhTraversal::warp && !t["bh_vote"] ? ", shared-memory verdicts" : "") +
                  (!group_walk && !v.morton_build && !t["bh_early_out"] ? ", all eight child slots" : "") + ", " +
                  std::to_string(v.force_block) + " threads";
  v.integrate = source("bh_integrate.cu", {}, t, "integrate");
  v.label = v.build.label + "; " + v.force.label;
  return v;
}

std::vector<ToggleValues> barneshut_toggle_sweep() {
  std::vector<ToggleValues> out;
  out.emplace_back();
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& def = kToggles[i];
    if (def.algorithm != Algorithm::barneshut) continue;
    const int step = def.key == "bh_block_size" ? 224 : def.step;  // 32, 256, 480, 704, 928: enough
    for (int value = def.min_value; value <= def.max_value; value += step) {
      if (value == def.default_value) continue;
      // The tolerance at the ends and in the middle.
      if (def.key == "bh_tolerance" && value != def.min_value && value != 20 && value != def.max_value) continue;
      ToggleValues t;
      t.values[i] = value;
      // Insertion-only toggles mean something only with the insertion build; the early out only in the walks
      // that read slot by slot, the vote only in the warp walk.
      if (def.key == "bh_throttle" || def.key == "bh_combined_fence" || def.key == "bh_waitfree" ||
          def.key == "bh_sort_throttle" || def.key == "bh_early_out")
        t.set(kInsertion);
      if (def.key == "bh_early_out" || def.key == "bh_vote") t.set(Choice{"bh_traversal", "warp"});
      out.push_back(t);
    }
  }
  // Every traversal with and without sorting, in both builds, with either moment order.
  for (int build = 0; build < 2; ++build)
    for (int traversal = 0; traversal < 3; ++traversal)
      for (int sort = 0; sort < 2; ++sort)
        for (int moments = 0; moments < 3; ++moments) {
          ToggleValues t;
          t["bh_build"] = build, t["bh_traversal"] = traversal, t["bh_sort"] = sort, t["bh_moments"] = moments;
          if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
        }
  // The tutorial's kernels one switch at a time: the per-thread and warp walks of the insertion build with and
  // without the early out, the warp walk with and without the vote, and everything off (the tour's first step).
  for (int traversal = 0; traversal < 2; ++traversal)
    for (int early_out = 0; early_out < 2; ++early_out)
      for (int vote = 0; vote < 2; ++vote) {
        if (traversal == 0 && vote == 0) continue;  // the vote is the warp walk's
        ToggleValues t;
        t.set(kInsertion);
        t["bh_traversal"] = traversal, t["bh_early_out"] = early_out, t["bh_vote"] = vote;
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
      }
  {
    ToggleValues t;
    t.set(kInsertion)
        .set(Choice{"bh_traversal", "thread"})
        .set(Choice{"bh_moments", "monopole"})
        .set(Choice{"bh_opening", "geometric"});
    for (const char* off : {"bh_throttle", "bh_combined_fence", "bh_waitfree", "bh_sort_throttle", "bh_sort",
                            "bh_early_out", "bh_vote", "bh_rsqrt", "bh_avoid_volatile"})
      t.values[static_cast<std::size_t>(find_toggle(off) - kToggles.data())] = 0;
    t["bh_block_size"] = 256;
    if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  }
  // Opening by angle in every traversal, with each moment order (the loops above open relatively).
  for (int traversal = 0; traversal < 3; ++traversal)
    for (int moments = 0; moments < 3; ++moments) {
      ToggleValues t;
      t["bh_traversal"] = traversal, t["bh_moments"] = moments;
      t.set(Choice{"bh_opening", "geometric"});
      if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    }
  // Every step of the Barnes-Hut tour, which a class runs one after the other (its parse is the tour
  // tests' to check: without the file, the steps above still cover every switch).
  try {
    for (const TourStep& step : load_tour(TourKind::barneshut).steps)
      if (std::find(out.begin(), out.end(), step.toggles) == out.end()) out.push_back(step.toggles);
  } catch (const InputError&) {
  }
  // The group walk's shapes: every group size and a short and a long list, with each moment order.
  for (int size = 32; size <= 128; size += 32)
    for (int list : {256, 1024})
      for (int moments = 0; moments < 3; ++moments) {
        ToggleValues t;
        t["bh_group_size"] = size, t["bh_list_capacity"] = list, t["bh_moments"] = moments;
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
      }
  return out;
}

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

std::vector<std::string> barneshut_code_violations(const ToggleValues& t, KernelEngine& engine) {
  std::vector<std::string> problems;
  const BarnesHutVariant v = barneshut_variant(t, true);
  auto ptx = [&](const KernelSource& s) { return engine.compile(s)->ptx; };
  auto flipped = [&](ToggleId id) {
    ToggleValues other = t;
    other[id] = t[id] ? 0 : 1;
    return barneshut_variant(other, true);
  };
  auto claim = [&](bool holds, const std::string& what) {
    if (!holds) problems.push_back(v.label + ": " + what);
  };

  const std::string force = ptx(v.force);
  claim((count(force, "rsqrt.approx") > 0) == (t["bh_rsqrt"] != 0), "rsqrt.approx present exactly when bh_rsqrt is on");
  claim((count(force, "vote.sync.all") > 0) == (v.traversal == BhTraversal::warp && t["bh_vote"]),
        "vote.sync.all exactly in the warp traversal with bh_vote");
  // A switch that acts changes the kernel; an inert one leaves the very same source (one module for both).
  const auto acts = [&](ToggleId id, bool expected, const std::string& what) {
    const BarnesHutVariant other = flipped(id);
    const bool changed = !v.force.same_code(other.force);
    claim(changed == expected, what);
    if (changed && expected)
      claim(ptx(other.force) != force, std::string(id.def().key) + " changes the force kernel's PTX");
  };
  acts("bh_vote", v.traversal == BhTraversal::warp, "bh_vote changes the force kernel exactly in the warp walk");
  acts("bh_early_out", !v.morton_build && v.traversal != BhTraversal::group,
       "bh_early_out changes the force kernel exactly in the insertion build's per-thread and warp walks");
  claim(
      (count(force, "vote.sync.ballot") > 0 && count(force, "shfl.sync.up") > 0) == (v.traversal == BhTraversal::group),
      "ballot + shfl.up (interaction lists) exactly in the group traversal");
  claim((count(force, "ld.volatile.global") > 1) == (t["bh_avoid_volatile"] == 0),
        "volatile tree reads exactly when bh_avoid_volatile is off");
  claim(ptx(flipped("bh_sort").force) != force, "bh_sort changes the force kernel");
  // Quadrupoles: the walk reads the cells' second moments (Tree::second_xz_yz, the only float2 the
  // force kernels load) and evaluates the longer force law.
  claim((count(force, "ld.global.nc.v2.f32") > 0) == !t.is(Choice{"bh_moments", "monopole"}),
        "the cells' second moments are read exactly with quadrupoles (bh_moments quadrupole or adaptive)");
  {
    ToggleValues other = t;
    other["bh_moments"] = (t["bh_moments"] + 1) % 3;
    claim(ptx(barneshut_variant(other, true).force) != force, "bh_moments changes the force kernel");
  }
  // Relative opening compares against the tolerance times the previous pass's RMS pull: a different
  // kernel from the angle's, and one per tolerance. (Checked from the variants that open by angle,
  // whose relative twins the sweep compiles anyway: one more compile each, not one per variant.)
  if (t.is(Choice{"bh_opening", "geometric"})) {
    const ToggleValues twin = ToggleValues(t).set(Choice{"bh_opening", "relative"});
    const std::string relative = ptx(barneshut_variant(twin, true).force);
    claim(relative != force, "bh_opening changes the force kernel");
    ToggleValues other = twin;
    other["bh_tolerance"] = twin["bh_tolerance"] == 40 ? 80 : 40;
    claim(ptx(barneshut_variant(other, true).force) != relative, "bh_tolerance changes the relative force kernel");
  }
  if (v.traversal == BhTraversal::group && t["bh_rsqrt"]) {
    // The point list is evaluated like the all-pairs kernel (so the force pass comes near its rate): the
    // same arithmetic per interaction as the default all-pairs variant's hot loop (6 FMA, 3 MUL, 3 ADD,
    // one RSQRT) and, per list entry, one 16-byte shared load that all of a lane's slots use and the
    // loop's bookkeeping: 3 PTX instructions an entry, unrolled 4 entries deep. Per interaction that is
    // 14.0 with groups of 96 (three slots a lane), 14.5 with 64 and 16.0 with 32, against the all-pairs
    // kernel's 13.28 (4 bodies per thread, unroll 32).
    const auto group_program = engine.compile(v.force);
    const auto allpairs_program = engine.compile(select_allpairs_variant(ToggleValues{}, 0.01).source);
    const PtxEntryStats* group = group_program->entry(bh::kForceKernel.name);
    const PtxEntryStats* allpairs = allpairs_program->entry(kAllPairsForceKernel);
    auto arithmetic = [](const PtxEntryStats& e) {
      const InstructionMix& m = e.loop_mix;
      return m["fma.f32"] + m["mul.f32"] + m["add.f32"] + m["rsqrt"];
    };
    const bool loops = group && allpairs && group->has_loop && allpairs->has_loop && group->loop_bodies > 0 &&
                       allpairs->loop_bodies > 0;
    claim(loops, "the group walk and the all-pairs kernel each have a hot loop of interactions");
    if (loops) {
      const double per_interaction = static_cast<double>(arithmetic(*group)) / group->loop_bodies;
      const double allpairs_per_interaction = static_cast<double>(arithmetic(*allpairs)) / allpairs->loop_bodies;
      claim(per_interaction == allpairs_per_interaction,
            "the point list's arithmetic per interaction is the all-pairs kernel's (" +
                std::to_string(per_interaction) + " against " + std::to_string(allpairs_per_interaction) + ")");
      const int slots = v.sort ? t["bh_group_size"] / 32 : 1;  // the hot loop applies each entry to every slot
      const double entries = static_cast<double>(group->loop_bodies) / slots;
      const double overhead = (group->loop_mix.total() - arithmetic(*group)) / entries;
      claim(overhead <= 3.0, "the point list spends at most 3 PTX instructions an entry besides the interactions (" +
                                 std::to_string(overhead) + ")");
    }
  }
  if (v.traversal == BhTraversal::group) {
    ToggleValues other = t;
    other["bh_group_size"] = t["bh_group_size"] == 32 ? 64 : 32;
    if (v.sort) claim(ptx(barneshut_variant(other, true).force) != force, "bh_group_size changes the group walk");
    other = t;
    other["bh_fit_slots"] = t["bh_fit_slots"] ? 0 : 1;
    const bool slots_to_fit = v.sort && t["bh_group_size"] > 32;
    claim((ptx(barneshut_variant(other, true).force) != force) == slots_to_fit,
          "bh_fit_slots changes the group walk exactly when a lane holds more than one body");
    other = t;
    other["bh_list_capacity"] = t["bh_list_capacity"] == 256 ? 512 : 256;
    const BarnesHutVariant resized = barneshut_variant(other, true);
    if (resized.force_list_capacity != v.force_list_capacity)  // big blocks may fit only the shorter list
      claim(ptx(resized.force) != force, "bh_list_capacity changes the group walk");
  }
  if (v.morton_build) {
    claim(count(ptx(v.build), ".entry bh_radix_tree") == 1, "the Morton build has the radix-tree kernel");
  } else {
    const std::string build = ptx(v.build);
    claim((count(build, "bar.red.or") > 0) == (t["bh_throttle"] != 0),
          "bar.red.or (the throttle) exactly with bh_throttle");
    claim((count(ptx(v.sort_bodies), "bar.red.or") > 0) == (t["bh_sort_throttle"] != 0),
          "bar.red.or in the sort kernel exactly with bh_sort_throttle");
    const int fences = count(build, "membar.gl") + count(build, "fence.sc.gpu");
    const std::string other = ptx(flipped("bh_combined_fence").build);
    const int other_fences = count(other, "membar.gl") + count(other, "fence.sc.gpu");
    claim(t["bh_combined_fence"] ? fences < other_fences : fences > other_fences,
          "the combined fence leaves fewer fences in the build");
    const std::string summarize = ptx(v.summarize);
    const std::string other_summarize = ptx(flipped("bh_waitfree").summarize);
    claim(t["bh_waitfree"] ? count(summarize, "nanosleep") < count(other_summarize, "nanosleep")
                           : count(summarize, "nanosleep") > count(other_summarize, "nanosleep"),
          "the wait-free pre-pass leaves fewer waits in summarize");
  }
  return problems;
}

}  // namespace nbl
