// The switchboard's single list of kernel toggles (CONTRIBUTING.md). The panel, the CLI, the JSON settings,
// the kernel variant engine and the tests all iterate over kToggles; adding a toggle is one row here plus
// the kernel code that reads its macro. Every toggle changes the code that runs: it becomes a
// preprocessor macro (`macro`) or a compiler option in the NVRTC compile, never a run-time `if`.
#pragma once
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace nbl {

enum class Algorithm { allpairs, barneshut };

enum class ToggleKind {
  flag,     // on/off
  integer,  // a number in [min_value, max_value], moved in steps of `step`
  choice,   // one of `choices`; the value is the choice's index
};

struct ToggleChoice {
  std::string_view name;   // as written in JSON and on the command line
  std::string_view label;  // as shown in the panel
};

struct ToggleDef {
  std::string_view key;    // JSON key and CLI option (--key); also how code names the toggle
  std::string_view label;  // panel label
  Algorithm algorithm;
  std::string_view group;  // panel section; groups follow the tutorial's
  ToggleKind kind;
  int default_value;
  int min_value;
  int max_value;
  int step;
  std::span<const ToggleChoice> choices;
  std::string_view macro;  // the kernel macro it defines, or "" when it becomes a compiler option
  std::string_view help;   // what it does and why it matters (panel tooltip, --help)
  std::string_view
      tutorial;  // what Burtscher's CUDA optimization tutorial measured for it, "" when the tutorial did not
  // What we measured for it is data, not code: assets/measured/figures.json (sim/measured_figures.hpp),
  // generated from the kept benchmark logs by scripts/measured_figures.py.
};

namespace toggle_choices {
inline constexpr std::array<ToggleChoice, 2> parallelism{{
    {"single_thread", "1 GPU thread"},
    {"thread_per_body", "1 thread per body"},
}};
inline constexpr std::array<ToggleChoice, 3> layout{{
    {"aos", "array of structs"},
    {"soa", "structure of arrays"},
    {"float4", "float4 position+mass"},
}};
inline constexpr std::array<ToggleChoice, 2> params{{
    {"arguments", "kernel arguments"},
    {"constant", "constant memory"},
}};
inline constexpr std::array<ToggleChoice, 3> self_interaction{{
    {"branch", "if (i != j)"},
    {"two_loops", "two loops around i"},
    {"softening", "none: softening makes it zero"},
}};
inline constexpr std::array<ToggleChoice, 3> tiling{{
    {"none", "none (global loads)"},
    {"shared", "shared-memory tiles"},
    {"shuffle", "warp-shuffle broadcast"},
}};
inline constexpr std::array<ToggleChoice, 3> fast_math{{
    {"off", "IEEE (default flags)"},
    {"ftz", "-ftz=true"},
    {"fast_math", "--use_fast_math"},
}};
inline constexpr std::array<ToggleChoice, 2> precision{{
    {"fp32", "float"},
    {"fp64", "double"},
}};
inline constexpr std::array<ToggleChoice, 2> bh_build{{
    {"insertion", "lock-based insertion"},
    {"morton", "Morton sort + Karras hierarchy"},
}};
inline constexpr std::array<ToggleChoice, 3> bh_traversal{{
    {"thread", "per-thread walk"},
    {"warp", "warp walks the union (vote)"},
    {"group", "group interaction lists"},
}};
inline constexpr std::array<ToggleChoice, 3> bh_moments{{
    {"monopole", "monopole (mass at the centre of mass)"},
    {"quadrupole", "quadrupole (and the mass's spread)"},
    {"adaptive", "quadrupole where a monopole errs most"},
}};
inline constexpr std::array<ToggleChoice, 2> bh_opening{{
    {"geometric", "by angle (theta)"},
    {"relative", "by error relative to the RMS pull"},
}};
}  // namespace toggle_choices

inline constexpr std::span<const ToggleChoice> kNoChoices{};

// clang-format off
inline constexpr std::array kToggles = {
  // ---------------- all-pairs (the tutorial, Part I) ----------------
  ToggleDef{"parallelism", "Parallelism", Algorithm::allpairs, "Porting", ToggleKind::choice, 1, 0, 1, 1,
    toggle_choices::parallelism, "NBL_PARALLELISM",
    "One GPU thread computes every body (the first port), or one thread per body.",
    "N threads vs 1 thread: 7781x (CC 1.3), 6495x (CC 2.0), 12150x (CC 3.0)"},
  ToggleDef{"layout", "Data layout", Algorithm::allpairs, "Memory", ToggleKind::choice, 2, 0, 2, 1,
    toggle_choices::layout, "NBL_LAYOUT",
    "How bodies sit in memory: one struct per body, one array per field, or one 16-byte float4 "
    "(x, y, z, mass) per body that a thread loads in a single instruction.",
    "SoA vs AoS: 0.83x (CC 1.3), 0.96x (CC 2.0), 0.82x (CC 3.0)"},
  ToggleDef{"params", "Parameters", Algorithm::allpairs, "Memory", ToggleKind::choice, 1, 0, 1, 1,
    toggle_choices::params, "NBL_PARAMS",
    "Pass n, softening and the array pointers as kernel arguments or once into __constant__ memory.",
    "1.015x (CC 1.3), 1.016x (CC 2.0), 0.971x (CC 3.0)"},
  ToggleDef{"rsqrt", "rsqrtf", Algorithm::allpairs, "Arithmetic", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_RSQRT",
    "Use the hardware reciprocal square root (MUFU.RSQ, about 2 ulp) instead of 1.0f / sqrtf().",
    "0.99x (CC 1.3), 1.83x (CC 2.0), 1.64x (CC 3.0)"},
  ToggleDef{"self_interaction", "Self-interaction", Algorithm::allpairs, "Control flow", ToggleKind::choice, 2, 0, 2, 1,
    toggle_choices::self_interaction, "NBL_SELF",
    "How body i skips itself: a branch in the inner loop, the loop split in two around i, or no test at "
    "all because softening makes the self-term exactly zero (needs softening > 0).",
    "two loops: 0.55x (CC 1.3), 1.00x (CC 2.0/3.0); if-elimination: 1.38x, 1.54x, 1.64x"},
  ToggleDef{"tiling", "Tiling", Algorithm::allpairs, "Memory", ToggleKind::choice, 1, 0, 2, 1,
    toggle_choices::tiling, "NBL_TILING",
    "Each block stages a tile of bodies in shared memory (each thread copies one body with coalesced loads, and "
    "the whole block reads the tile), or each warp passes bodies lane to lane with __shfl_sync and needs no shared "
    "memory at all.",
    "shared-memory blocking: 3.7x (CC 1.3), 1.1x (CC 2.0), 1.6x (CC 3.0)"},
  ToggleDef{"unroll", "Unroll factor", Algorithm::allpairs, "Control flow", ToggleKind::integer, 32, 1, 128, 1,
    kNoChoices, "NBL_UNROLL",
    "#pragma unroll factor on the inner loop: fewer loop instructions per interaction, more registers.",
    "unroll 8: 1.07x, 1.16x, 1.07x; unroll 128: 1.01x, 1.04x, 0.93x"},
  ToggleDef{"fma_order", "FMA-friendly terms", Algorithm::allpairs, "Arithmetic", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_FMA_ORDER",
    "Write dx*dx + (dy*dy + (dz*dz + eps2)) so every multiply-add fuses into one FMA.",
    "1.03x (CC 1.3), 1.05x (CC 2.0), 1.06x (CC 3.0)"},
  ToggleDef{"fast_math", "Float flags", Algorithm::allpairs, "Arithmetic", ToggleKind::choice, 1, 0, 2, 1,
    toggle_choices::fast_math, "",
    "Compiler flags: flush denormals to zero (-ftz=true) or --use_fast_math (ftz, approximate division "
    "and square root). Without ftz the compiler wraps every rsqrtf in a compare and two multiplies that rescale "
    "denormal inputs: at the ladder's unroll-128 rung, 3 of its 17 machine instructions per interaction, none of "
    "them visible in the PTX counts.",
    "-ftz: 1.00x (CC 1.3), 1.18x (CC 2.0), 1.15x (CC 3.0)"},
  ToggleDef{"bodies_per_thread", "Bodies per thread", Algorithm::allpairs, "Beyond the tutorial", ToggleKind::integer, 4, 1, 8, 1,
    kNoChoices, "NBL_BODIES_PER_THREAD",
    "Each thread computes several bodies (register blocking): every body it loads is reused that many "
    "times from registers, trading occupancy (how many warps an SM holds at once, of the 64 it can; each "
    "thread's registers count against it) for instruction-level parallelism (Volkov).", ""},
  ToggleDef{"block_size", "Block size", Algorithm::allpairs, "Launch", ToggleKind::integer, 256, 32, 1024, 32,
    kNoChoices, "NBL_BLOCK_SIZE",
    "Threads per block; also the tile length for shared-memory tiling.",
    "the tutorial used 256 threads throughout"},
  ToggleDef{"precision", "Precision", Algorithm::allpairs, "Arithmetic", ToggleKind::choice, 0, 0, 1, 1,
    toggle_choices::precision, "NBL_PRECISION",
    "Compute interactions in float or double (positions stay float); double shows what accuracy costs.", ""},

  // ---------------- Barnes-Hut (the tutorial, Part II) ----------------
  ToggleDef{"bh_build", "Tree build", Algorithm::barneshut, "Tree build", ToggleKind::choice, 1, 0, 1, 1,
    toggle_choices::bh_build, "NBL_BH_BUILD",
    "Insert bodies top-down with per-child locks (the tutorial's kernel 2), or sort Morton codes and "
    "build the hierarchy from the sorted keys (Karras 2012): no locks, no retries.", ""},
  ToggleDef{"bh_throttle", "Throttling barrier", Algorithm::barneshut, "Tree build", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_THROTTLE",
    "A block-wide barrier (__syncthreads_or) after each insertion attempt in the lock-based build, so threads "
    "that failed to get a lock do not hammer it while the winner builds its subtree.",
    "0.97x (50k), 1.03x (500k), 1.04x (5M)"},
  ToggleDef{"bh_combined_fence", "Combined fence", Algorithm::barneshut, "Tree build", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_COMBINED_FENCE",
    "Lock-based build: one __threadfence() per subtree a thread builds, just before the store that publishes "
    "it, instead of one after every new cell. (The tutorial's combines the fence with the throttling barrier: "
    "one per round of insertions.)",
    "1.54x (50k), 1.57x (500k), 1.50x (5M)"},
  ToggleDef{"bh_waitfree", "Wait-free pre-pass", Algorithm::barneshut, "Summarize", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_WAITFREE",
    "Summarize first folds in every child that is already complete without waiting, remembering which were "
    "not (a bitmask), and only then waits for those.",
    "1.02x (50k), 1.21x (500k), 1.31x (5M)"},
  ToggleDef{"bh_sort_throttle", "Sort throttling barrier", Algorithm::barneshut, "Sort", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_SORT_THROTTLE",
    "Insertion build: the sort kernel hands each cell's start to its children once its own start is known. With "
    "the switch every thread tries its cell once a round and a block-wide barrier (__syncthreads_or) ends the "
    "round, so threads whose cells are not ready do not spin ahead of the ones that are (the tutorial's \"throttle "
    "warps with optional barrier\", Kernel 4).", ""},
  ToggleDef{"bh_sort", "Sort bodies", Algorithm::barneshut, "Force", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_SORT",
    "Process bodies in tree order so each warp's threads walk nearly the same path.",
    "3.60x (50k), 6.28x (500k), 8.21x (5M)"},
  ToggleDef{"bh_traversal", "Force traversal", Algorithm::barneshut, "Force", ToggleKind::choice, 2, 0, 2, 1,
    toggle_choices::bh_traversal, "",
    "Each thread walks the tree alone; or the whole warp walks the union of its threads' paths in step, "
    "accepting a cell only if it is far enough for every lane (the tutorial; Warp vote decides how); or the warp "
    "walks once for its group of up to Group size bodies, 32 nodes per step, collecting an interaction list "
    "that it then evaluates like the all-pairs kernel (beyond the tutorial). Each is its own kernel file.",
    "sync'ed execution: 6.23x (50k), 8.04x (500k), 8.60x (5M)"},
  ToggleDef{"bh_vote", "Warp vote", Algorithm::barneshut, "Force", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_VOTE",
    "Warp walk: whether a cell is far enough for every lane is one vote instruction (__all_sync). Without it the "
    "lanes decide through shared memory: each writes its verdict, and every lane reads all 32. The walk is the "
    "same union either way; the vote replaces a round trip through shared memory at every cell.",
    "thread voting: 2.04x (50k), 2.49x (500k), 2.47x (5M)"},
  ToggleDef{"bh_early_out", "Stop at an empty slot", Algorithm::barneshut, "Force", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_EARLY_OUT",
    "Insertion build, per-thread and warp walks: summarize moves a cell's empty child slots to the back, so the "
    "walk stops reading a cell's slots at the first empty one instead of testing all eight (the tutorial's "
    "\"early out (nulls in back)\", Kernel 5). The Morton build keeps children in their octants' slots.", ""},
  ToggleDef{"bh_leaf_capacity", "Leaf capacity", Algorithm::barneshut, "Tree build", ToggleKind::integer, 8, 1, 8, 1,
    kNoChoices, "NBL_BH_LEAF_CAPACITY",
    "Morton build: a cell holding at most this many bodies is not split further. 1 is the classic "
    "octree (one body per leaf); larger leaves mean fewer, shallower cells.", ""},
  ToggleDef{"bh_moments", "Cell moments", Algorithm::barneshut, "Force", ToggleKind::choice, 2, 0, 2, 1,
    toggle_choices::bh_moments, "NBL_BH_MOMENTS",
    "What a far cell stands in for its bodies with: their total mass at its centre of mass (monopole), or "
    "that plus their quadrupole moment, how the mass spreads about the centre. A quadrupole interaction is "
    "about 35 instructions against a monopole's 13 and cuts the error from order theta^2 to theta^3, so the "
    "same accuracy comes at a larger theta with fewer interactions. Adaptive: the quadrupole only where a "
    "monopole errs most; by angle, for the cells a monopole test at 0.7 theta would open, and with the relative "
    "test, for the cells whose monopole error exceeds 0.3 of the budget.", ""},
  ToggleDef{"bh_opening", "Opening test", Algorithm::barneshut, "Force", ToggleKind::choice, 1, 0, 1, 1,
    toggle_choices::bh_opening, "NBL_BH_OPENING",
    "When a cell may stand in for its bodies. By angle: when its size over its distance is below theta, the "
    "same for every cell (the tutorial). Relative (the default): when the error it would make, m s^2 / d^4 for a "
    "monopole and m s^3 / d^5 with its quadrupole, is below the tolerance times the RMS pull of all bodies in "
    "the previous pass, so light cells are accepted wider and heavy ones narrower (after GADGET-2's criterion). "
    "A cell so light that even its worst case, 2 m / D^2 at the gap D to its cube, is within the budget is "
    "accepted at any angle: a collision's ejecta then cost nothing. A new state's first pass opens by angle. "
    "On Plummer spheres of 1M to 10M bodies it was faster than theta 0.65 at a smaller p99 error (H200; "
    "docs/barneshut.md has the table and its logs).", ""},
  ToggleDef{"bh_tolerance", "Tolerance (x 1e-4)", Algorithm::barneshut, "Force", ToggleKind::integer, 80, 1, 400, 1,
    kNoChoices, "NBL_BH_TOLERANCE",
    "Relative opening: the share of the RMS pull one cell's error may be, in units of 1e-4. Smaller is "
    "more accurate and opens more cells.", ""},
  ToggleDef{"bh_group_size", "Group size", Algorithm::barneshut, "Force", ToggleKind::integer, 96, 32, 128, 32,
    kNoChoices, "NBL_BH_GROUP_SIZE",
    "Group walk: bodies that share one tree walk and one interaction list, a warp of 32 lanes each taking "
    "group size / 32 of them. Larger groups walk the tree less often per body and reuse every list entry "
    "from registers, for longer lists and more registers.", ""},
  ToggleDef{"bh_list_capacity", "List capacity", Algorithm::barneshut, "Force", ToggleKind::integer, 256, 128, 1024, 128,
    kNoChoices, "NBL_BH_LIST_CAP",
    "Group walk: entries a warp's interaction list holds in shared memory before it is evaluated. Shorter "
    "lists leave room for more warps per SM to hide the walk's memory latency, and for the walk's node "
    "stack, at the cost of more, shorter evaluation rounds.", ""},
  ToggleDef{"bh_fit_slots", "Fit slots", Algorithm::barneshut, "Force", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_FIT_SLOTS",
    "Group walk: each lane holds group size / 32 bodies, but a group of 40 fills only a lane's first slot "
    "(and 8 lanes' second). With the switch the warp evaluates its lists for the slots the group fills; "
    "without it every lane works through all its slots, the empty ones on copies of a body.", ""},
  ToggleDef{"bh_rsqrt", "rsqrtf", Algorithm::barneshut, "Force", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_RSQRT",
    "Hardware reciprocal square root in the force walk.",
    "1.43x (50k), 1.47x (500k), 1.46x (5M)"},
  ToggleDef{"bh_avoid_volatile", "Avoid volatile", Algorithm::barneshut, "Force", ToggleKind::flag, 1, 0, 1, 1,
    kNoChoices, "NBL_BH_AVOID_VOLATILE",
    "Read tree data that no longer changes through ordinary (cached) loads instead of volatile ones.",
    "1.14x (50k), 1.19x (500k), 1.18x (5M)"},
  ToggleDef{"bh_block_size", "Block size (force)", Algorithm::barneshut, "Launch", ToggleKind::integer, 128, 32, 1024, 32,
    kNoChoices, "NBL_BH_BLOCK_SIZE",
    "Threads per block of the force kernel. The group walk needs about 100 registers a thread, so an SM holds "
    "2 blocks of 256 (16 warps) but 5 of 128 (20 warps), though each warp's node stack gets less shared "
    "memory.", "the tutorial used 256 threads x 5 blocks per SM"},
};
// clang-format on

inline constexpr std::size_t kToggleCount = kToggles.size();

// Runtime lookup by name (CLI, JSON): nullptr when there is no such toggle.
inline const ToggleDef* find_toggle(std::string_view key) {
  for (const auto& t : kToggles)
    if (t.key == key) return &t;
  return nullptr;
}

// The values a toggle takes, in words: "must lie in [32, 1024] in steps of 32", "must be one of: aos, soa".
std::string toggle_requirement(const ToggleDef& toggle);
// "" when `value` is one the toggle takes; else what is wrong: "must lie in [1, 128] (got 0)". Takes the
// 64-bit value a reader parsed, so that a number too large for an int is refused, never cut to one.
std::string toggle_problem(const ToggleDef& toggle, std::int64_t value);

// A toggle named in code: checked at compile time, so a typo does not build.
struct ToggleId {
  std::size_t index;
  consteval ToggleId(const char* key) : index(lookup(key)) {}  // NOLINT(google-explicit-constructor)
  struct Index {
    std::size_t value;
  };
  constexpr explicit ToggleId(Index i) : index(i.value) {}  // from a table position known to be valid
  static consteval std::size_t lookup(std::string_view key) {
    for (std::size_t i = 0; i < kToggles.size(); ++i)
      if (kToggles[i].key == key) return i;
    throw "unknown toggle key";  // not a constant expression: a compile error names the call site
  }
  constexpr const ToggleDef& def() const { return kToggles[index]; }
};

// One choice of a choice toggle, named in code by the toggle's key and the choice's name, both checked
// at compile time: Choice{"layout", "float4"}. Code never compares a choice toggle with a bare index.
struct Choice {
  std::size_t toggle;
  int value;
  consteval Choice(const char* key, const char* name) : toggle(ToggleId::lookup(key)), value(find(toggle, name)) {}

 private:
  static consteval int find(std::size_t toggle, std::string_view name) {
    const ToggleDef& def = kToggles[toggle];
    if (def.kind != ToggleKind::choice) throw "not a choice toggle";
    for (std::size_t c = 0; c < def.choices.size(); ++c)
      if (def.choices[c].name == name) return static_cast<int>(c);
    throw "unknown choice name";  // not a constant expression: a compile error names the call site
  }
};

// A toggle that changes nothing in some combination, and why (in words for the panel's tooltip and the
// CLI's warning). The switchboards (cuda/allpairs_variant, cuda/barneshut_variant) are the one source.
struct InertToggle {
  std::string_view key;
  std::string reason;
};

inline const InertToggle* find_inert(std::span<const InertToggle> inert, std::string_view key) {
  for (const auto& i : inert)
    if (i.key == key) return &i;
  return nullptr;
}

// The current value of every toggle (a choice toggle holds its choice's index).
struct ToggleValues {
  std::array<int, kToggleCount> values{};

  ToggleValues() {
    for (std::size_t i = 0; i < kToggleCount; ++i) values[i] = kToggles[i].default_value;
  }
  int& operator[](ToggleId id) { return values[id.index]; }
  int operator[](ToggleId id) const { return values[id.index]; }
  bool is(Choice c) const { return values[c.toggle] == c.value; }
  ToggleValues& set(Choice c) {
    values[c.toggle] = c.value;
    return *this;
  }
  bool operator==(const ToggleValues&) const = default;
};

// One toggle's value as the CLI and JSON write it: "on"/"off", a choice's name, or the number.
std::string toggle_value_text(const ToggleDef& toggle, int value);
// The toggles of `algorithm` where `to` differs from `from`, as "key=value" joined by ", " ("unroll=128,
// layout=soa"); "" when none differs. What a trace and a tour step name a variant change by.
std::string toggle_changes(const ToggleValues& from, const ToggleValues& to, Algorithm algorithm);

// The readers of that text, for what a user typed (the command line, --variant, --compare).
// toggle_value_text's inverse: "on"/"off" (also true/false, yes/no, 1/0), a choice's name, or a whole
// number the toggle takes. Throws InputError that begins with `name`, how the input names the toggle
// ("--block-size", "--variant: block_size"), and says what the toggle takes.
int parse_toggle_value(const ToggleDef& toggle, std::string_view text, std::string_view name);
// toggle_changes's inverse: each "key=value" item of `text` (commas between items, spaces around them
// ignored) applied to `values` in order, each key a toggle of `algorithm`. A key that names no toggle
// goes to `other` when given, which applies it (to the toggles being built, or elsewhere) and returns
// true, or returns false when it does not know it either. Throws InputError that begins with `where` and
// names the item: no '=', an unknown key, another algorithm's toggle, a value the toggle does not take;
// `values` is then as it was.
using OtherChange = std::function<bool(const std::string& key, const std::string& value, ToggleValues& values)>;
void apply_toggle_changes(std::string_view text, Algorithm algorithm, ToggleValues& values, std::string_view where,
                          const OtherChange& other = {});

// The settings one click away from `t` for `algorithm`'s toggles: each flag flipped, each choice moved
// to the one before or after it, each number moved one step down or up (within range). What the lab
// compiles in the background after a switch, so the next click most likely finds its build ready.
inline std::vector<ToggleValues> toggle_neighbours(const ToggleValues& t, Algorithm algorithm) {
  std::vector<ToggleValues> out;
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& def = kToggles[i];
    if (def.algorithm != algorithm) continue;
    const int value = t.values[i];
    const int step = def.kind == ToggleKind::integer ? def.step : 1;
    for (int next : {value - step, value + step}) {
      if (def.kind == ToggleKind::flag) next = value ? 0 : 1;
      if (next < def.min_value || next > def.max_value || next == value) continue;
      ToggleValues n = t;
      n.values[i] = next;
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    }
  }
  return out;
}

}  // namespace nbl
