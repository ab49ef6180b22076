#include "cuda/barneshut_variant.hpp"

namespace nbl {

namespace {

std::string flag(int v) { return v ? "1" : "0"; }

// Every BH kernel is compiled with denormals flushed to zero, as the tutorial's code was (-ftz=true):
// without it rsqrtf needs a slow path for denormal inputs.
const std::vector<std::string> kOptions{"-ftz=true"};

}  // namespace

BarnesHutVariant barneshut_variant(const ToggleValues& t, bool softened) {
  BarnesHutVariant v;
  v.morton_build = t["bh_build"] == 1;
  v.sort = t["bh_sort"] != 0;
  v.traversal = t["bh_traversal"];
  v.leaf_capacity = v.morton_build ? t["bh_leaf_capacity"] : 1;
  v.force_block = t["bh_block_size"];
  const std::string build_macro = v.morton_build ? "1" : "0";

  v.bounding_box = {"bh_bbox.cu", {{"NBL_BH_BUILD", build_macro}}, kOptions, "bounding box"};
  if (v.morton_build) {
    v.build = {"bh_morton.cu", {}, kOptions, "Morton keys + radix tree + octree"};
    v.inert = {"bh_throttle", "bh_combined_fence", "bh_waitfree"};
  } else {
    v.build = {"bh_build_insert.cu",
               {{"NBL_BH_THROTTLE", flag(t["bh_throttle"])}, {"NBL_BH_COMBINED_FENCE", flag(t["bh_combined_fence"])}},
               kOptions,
               std::string("lock-based insertion") + (t["bh_throttle"] ? ", throttled" : "") +
                   (t["bh_combined_fence"] ? ", combined fence" : "")};
    v.summarize = {"bh_summarize.cu", {{"NBL_BH_WAITFREE", flag(t["bh_waitfree"])}}, kOptions,
                   t["bh_waitfree"] ? "summarize, wait-free pre-pass" : "summarize, waiting"};
    v.sort_bodies = {"bh_sort.cu", {}, kOptions, "sort"};
    v.inert = {"bh_leaf_capacity"};
  }

  static constexpr const char* kForceFiles[] = {"bh_force_thread.cu", "bh_force_warp.cu", "bh_force_group.cu"};
  static constexpr const char* kTraversalNames[] = {"per-thread walk", "warp union (vote)", "group lists"};
  v.force = {kForceFiles[v.traversal],
             {{"NBL_BH_RSQRT", flag(t["bh_rsqrt"])},
              {"NBL_BH_AVOID_VOLATILE", flag(t["bh_avoid_volatile"])},
              {"NBL_BH_SORT", flag(v.sort)},
              {"NBL_BH_SOFTENED", flag(softened)},
              {"NBL_BH_BLOCK_SIZE", std::to_string(v.force_block)}},
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
  }
  v.force.label = std::string(kTraversalNames[v.traversal]) + (v.sort ? ", sorted" : ", unsorted") +
                  (t["bh_rsqrt"] ? ", rsqrtf" : ", 1/sqrtf") + (t["bh_avoid_volatile"] ? "" : ", volatile") +
                  ", " + std::to_string(v.force_block) + " threads";
  if (v.traversal == 2 && v.sort) v.groups = {"bh_groups.cu", {}, kOptions, "force groups"};
  v.integrate = {"bh_integrate.cu", {}, kOptions, "integrate"};
  v.label = (v.morton_build ? "Morton build, leaf " + std::to_string(v.leaf_capacity) : v.build.label) + "; " +
            v.force.label;
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
  return out;
}

}  // namespace nbl
