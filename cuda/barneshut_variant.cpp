#include "cuda/barneshut_variant.hpp"

#include <algorithm>

namespace nbl {

namespace {

// Every BH kernel is compiled with denormals flushed to zero, as the tutorial's code was (-ftz=true):
// without it rsqrtf needs a slow path for denormal inputs.
const std::vector<std::string> kOptions{"-ftz=true"};

// The macro a toggle becomes (its name from the toggle table, its value the toggle's).
std::pair<std::string, std::string> macro(const ToggleValues& t, ToggleId id) {
  return {std::string(id.def().macro), std::to_string(t[id])};
}

}  // namespace

BarnesHutVariant barneshut_variant(const ToggleValues& t, bool softened) {
  BarnesHutVariant v;
  v.morton_build = t["bh_build"] == 1;
  v.sort = t["bh_sort"] != 0;
  v.traversal = t["bh_traversal"];
  v.leaf_capacity = v.morton_build ? t["bh_leaf_capacity"] : 1;
  v.force_block = t["bh_block_size"];

  v.bounding_box = {"bh_bbox.cu", {macro(t, "bh_build")}, kOptions, "bounding box"};
  if (v.morton_build) {
    v.build = {"bh_morton.cu", {macro(t, "bh_leaf_capacity")}, kOptions,
               "Morton build, leaves of up to " + std::to_string(v.leaf_capacity)};
    v.inert = {"bh_throttle", "bh_combined_fence", "bh_waitfree"};
  } else {
    v.build = {"bh_build_insert.cu", {macro(t, "bh_throttle"), macro(t, "bh_combined_fence")}, kOptions,
               std::string("lock-based insertion") + (t["bh_throttle"] ? ", throttled" : "") +
                   (t["bh_combined_fence"] ? ", combined fence" : "")};
    v.summarize = {"bh_summarize.cu", {macro(t, "bh_waitfree")}, kOptions,
                   t["bh_waitfree"] ? "summarize, wait-free pre-pass" : "summarize, waiting"};
    v.sort_bodies = {"bh_sort.cu", {}, kOptions, "sort"};
    v.inert = {"bh_leaf_capacity"};
  }

  // The traversal picks the kernel file: three different algorithms, not one with a run-time switch.
  static constexpr const char* kForceFiles[] = {"bh_force_thread.cu", "bh_force_warp.cu", "bh_force_group.cu"};
  static constexpr const char* kTraversalNames[] = {"per-thread walk", "warp union (vote)", "group lists"};
  v.force = {kForceFiles[v.traversal],
             {macro(t, "bh_rsqrt"), macro(t, "bh_avoid_volatile"), macro(t, "bh_sort"), macro(t, "bh_block_size"),
              {"NBL_BH_SOFTENED", softened ? "1" : "0"}},
             kOptions,
             ""};
  if (v.traversal == 2) {
    // Shared memory per warp: the interaction list (float4 entries) and the node stack (ints). Big
    // blocks get shorter lists so a block still fits an SM's 227 KB.
    const int warps = v.force_block / 32;
    const int list_cap = warps <= 8 ? 512 : warps <= 16 ? 256 : 128;
    const int stack_cap = warps <= 16 ? 1024 : 640;
    constexpr int kMaxDepth = 21;  // cuda/kernels/bh_tree.hpp
    const int stack_alloc = stack_cap + 7 * (kMaxDepth + 1) + 8;
    v.force.macros.emplace_back("NBL_BH_LIST_CAP", std::to_string(list_cap));
    v.force.macros.emplace_back("NBL_BH_STACK_CAP", std::to_string(stack_cap));
    v.force_shared_bytes = static_cast<std::size_t>(warps) * (list_cap * 16 + stack_alloc * 4);
    if (v.sort) v.groups = {"bh_groups.cu", {}, kOptions, "force groups"};
  }
  v.force.label = std::string(kTraversalNames[v.traversal]) + (v.sort ? ", sorted" : ", unsorted") +
                  (t["bh_rsqrt"] ? ", rsqrtf" : ", 1/sqrtf") + (t["bh_avoid_volatile"] ? "" : ", volatile") +
                  ", " + std::to_string(v.force_block) + " threads";
  v.integrate = {"bh_integrate.cu", {}, kOptions, "integrate"};
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
      ToggleValues t;
      t.values[i] = value;
      // Insertion-only toggles mean something only with the insertion build.
      if (def.key == "bh_throttle" || def.key == "bh_combined_fence" || def.key == "bh_waitfree") t["bh_build"] = 0;
      out.push_back(t);
    }
  }
  // Every traversal with and without sorting, in both builds.
  for (int build = 0; build < 2; ++build)
    for (int traversal = 0; traversal < 3; ++traversal)
      for (int sort = 0; sort < 2; ++sort) {
        ToggleValues t;
        t["bh_build"] = build, t["bh_traversal"] = traversal, t["bh_sort"] = sort;
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
  claim((count(force, "vote.sync.all") > 0) == (v.traversal == 1), "vote.sync.all exactly in the warp traversal");
  claim((count(force, "vote.sync.ballot") > 0 && count(force, "shfl.sync.up") > 0) == (v.traversal == 2),
        "ballot + shfl.up (interaction lists) exactly in the group traversal");
  claim((count(force, "ld.volatile.global") > 1) == (t["bh_avoid_volatile"] == 0),
        "volatile tree reads exactly when bh_avoid_volatile is off");
  claim(ptx(flipped("bh_sort").force) != force, "bh_sort changes the force kernel");
  if (v.morton_build) {
    claim(count(ptx(v.build), ".entry bh_radix_tree") == 1, "the Morton build has the radix-tree kernel");
  } else {
    const std::string build = ptx(v.build);
    claim((count(build, "bar.red.or") > 0) == (t["bh_throttle"] != 0), "bar.red.or (the throttle) exactly with bh_throttle");
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
