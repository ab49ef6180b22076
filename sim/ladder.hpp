// The all-pairs optimization ladder as data (docs/allpairs.md): Burtscher's CUDA optimization tutorial,
// Part I, step by step, then what came after. Each rung is a set of toggle changes; the ladder view
// and `nbodylab bench ladder` apply them cumulatively, as the tutorial did. A rung that is not `kept`
// is a side trip shown for comparison: later rungs continue from the rung before it (the tutorial
// itself dropped "two loops" again when it moved on to shared-memory blocking).
// No CUDA here: the panel shows this table too.
#pragma once
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

#include "sim/toggles.hpp"

namespace nbl {

struct ToggleChange {
  ToggleId toggle;
  int value;
  consteval ToggleChange(ToggleId t, int v) : toggle(t), value(v) {  // a flag (0/1) or a number
    if (t.def().kind == ToggleKind::choice) throw "name a choice toggle's value with Choice{key, name}";
  }
  consteval ToggleChange(Choice c) : toggle(ToggleId::Index{c.toggle}), value(c.value) {}  // a choice, by name
};

struct LadderRung {
  std::string_view name;         // short, for tables: "rsqrtf"
  std::string_view description;  // what changes and why it helps (or does not)
  std::string_view reference;    // where the step comes from
  // The tutorial's speedup of this step over the previous one on its three GPUs (Quadro FX 5800,
  // Tesla C2050, GeForce GTX 680); 0 when the tutorial did not measure it.
  double speedup_cc13, speedup_cc20, speedup_cc30;
  std::span<const ToggleChange> changes;
  bool kept = true;
};

namespace ladder_changes {
using T = ToggleChange;
inline constexpr std::array<T, 12> start{{{Choice{"parallelism", "single_thread"}},
                                          {Choice{"layout", "aos"}},
                                          {Choice{"params", "arguments"}},
                                          {"rsqrt", 0},
                                          {Choice{"self_interaction", "branch"}},
                                          {Choice{"tiling", "none"}},
                                          {"unroll", 1},
                                          {"fma_order", 0},
                                          {Choice{"fast_math", "off"}},
                                          {"bodies_per_thread", 1},
                                          {"block_size", 256},
                                          {Choice{"precision", "fp32"}}}};
inline constexpr std::array<T, 1> n_threads{{{Choice{"parallelism", "thread_per_body"}}}};
inline constexpr std::array<T, 1> soa{{{Choice{"layout", "soa"}}}};
inline constexpr std::array<T, 1> constant{{{Choice{"params", "constant"}}}};
inline constexpr std::array<T, 1> rsqrt{{{"rsqrt", 1}}};
inline constexpr std::array<T, 1> two_loops{{{Choice{"self_interaction", "two_loops"}}}};
inline constexpr std::array<T, 1> shared{{{Choice{"tiling", "shared"}}}};
inline constexpr std::array<T, 1> unroll8{{{"unroll", 8}}};
inline constexpr std::array<T, 1> softening{{{Choice{"self_interaction", "softening"}}}};
inline constexpr std::array<T, 1> fma{{{"fma_order", 1}}};
inline constexpr std::array<T, 1> unroll128{{{"unroll", 128}}};
inline constexpr std::array<T, 1> ftz{{{Choice{"fast_math", "ftz"}}}};
inline constexpr std::array<T, 1> float4{{{Choice{"layout", "float4"}}}};
inline constexpr std::array<T, 2> blocking{{{"bodies_per_thread", 4}, {"unroll", 32}}};
inline constexpr std::array<T, 1> shuffle{{{Choice{"tiling", "shuffle"}}}};
inline constexpr std::array<T, 1> block128{{{"block_size", 128}}};
inline constexpr std::array<T, 1> fp64{{{Choice{"precision", "fp64"}}}};
}  // namespace ladder_changes

// clang-format off
inline constexpr std::array kLadder = {
  LadderRung{"1 thread", "One GPU thread runs the CPU loops: every body, every partner, array of structs, 1/sqrtf, "
    "if (i != j). Slower than one CPU core: a simple, slower-clocked core, and nothing hides its memory latency.",
    "Burtscher's tutorial, Part I: C to CUDA Conversion, 1-Thread Performance", 0, 0, 0, ladder_changes::start},
  LadderRung{"N threads", "One thread per body, 256 threads per block: thousands of threads hide each other's latency.",
    "Burtscher's tutorial, Part I: Using N Threads", 7781, 6495, 12150, ladder_changes::n_threads},
  LadderRung{"SoA", "Structure of arrays: the threads of a warp all read the same body, so the layout barely "
    "matters yet (the tutorial saw slowdowns); both layouts load a body with four 4-byte loads, and SoA adds "
    "address arithmetic. The tutorial keeps it for the coalesced tile loads of shared-memory blocking.",
    "Burtscher's tutorial, Part I: Using Scalar Arrays", 0.83, 0.96, 0.82, ladder_changes::soa},
  LadderRung{"constant params", "n, softening and the array pointers copied once into __constant__ memory instead of "
    "passed to every launch.", "Burtscher's tutorial, Part I: Constant Kernel Parameters", 1.015, 1.016, 0.971,
    ladder_changes::constant},
  LadderRung{"rsqrtf", "The hardware reciprocal square root (MUFU.RSQ) instead of 1.0f / sqrtf(): one approximation "
    "instead of a correctly rounded square root and reciprocal (until -ftz, with a compare and two multiplies for "
    "denormal inputs around it).",
    "Burtscher's tutorial, Part I: Using the RSQRTF Instruction", 0.99, 1.83, 1.64, ladder_changes::rsqrt},
  LadderRung{"two loops", "The inner loop split around i instead of if (i != j). A side trip: the tutorial found it "
    "useless on Fermi and Kepler and went back to the if. Here it saves the compare and branch, 3 of 28 PTX "
    "instructions per interaction, which pays where the loop is limited by issue slots; rung 8 removes the test "
    "altogether.",
    "Burtscher's tutorial, Part I: Using 2 Loops to Avoid If Statement", 0.55, 1.00, 1.00, ladder_changes::two_loops,
    false},
  LadderRung{"shared tiles", "Each block loads a tile of 256 bodies into shared memory, each thread copying one body "
    "with coalesced loads; every thread then reads the tile from there.",
    "Burtscher's tutorial, Part I: Blocking using Shared Memory", 3.7, 1.1, 1.6, ladder_changes::shared},
  LadderRung{"unroll 8", "#pragma unroll 8 on the inner loop: fewer loop-counter and branch instructions per "
    "interaction.", "Burtscher's tutorial, Part I: Loop Unrolling", 1.07, 1.16, 1.07, ladder_changes::unroll8},
  LadderRung{"no if (softening)", "No self test at all: with softening > 0 a body's pull on itself is exactly zero. "
    "No divergence, and the compiler can schedule the loop freely.",
    "Burtscher's tutorial, Part I: Eliminating the If Statement", 1.38, 1.54, 1.64, ladder_changes::softening},
  LadderRung{"FMA order", "dx*dx + (dy*dy + (dz*dz + eps2)): every multiply-add fuses into one FMA.",
    "Burtscher's tutorial, Part I: Rearranging Terms", 1.03, 1.05, 1.06, ladder_changes::fma},
  LadderRung{"unroll 128", "A much larger unroll factor: little left to gain, more code.",
    "Burtscher's tutorial, Part I: Higher Unroll Factor", 1.01, 1.04, 0.93, ladder_changes::unroll128},
  LadderRung{"-ftz", "Flush denormals to zero: rsqrtf becomes a bare MUFU.RSQ without the denormal fix-up.",
    "Burtscher's tutorial, Part I: Compiler Flags", 1.00, 1.18, 1.15, ladder_changes::ftz},
  LadderRung{"float4", "Position and mass as one float4: one 16-byte load per body from global memory and one "
    "16-byte broadcast read per body from the shared tile, instead of four in the PTX (the compiler had already "
    "merged the SoA tile's reads four bodies at a time, so the machine code reads the tile no less often).",
    "beyond the tutorial (as NVIDIA's nbody sample)", 0, 0, 0, ladder_changes::float4},
  LadderRung{"4 bodies/thread", "Register blocking: each thread computes 4 bodies, so every body read from the tile "
    "serves 4 interactions, and the 4 are independent work for the scheduler. This rung changes two toggles: bodies "
    "per thread 1 -> 4 and unroll 128 -> 32 (to keep the 4-body loop compact), so its speed-up is of the pair. On the "
    "H100 at 64k bodies the sweep tells them apart: unroll 32 alone, at 1 body per thread, was within noise of "
    "unroll 128, so the gain there is register blocking's; at 1M they were not measured apart.",
    "beyond the tutorial: Volkov's 'Better Performance at Lower Occupancy'", 0, 0, 0,
    ladder_changes::blocking},
  LadderRung{"warp shuffle", "Tiles passed lane to lane with __shfl_sync instead of shared memory: no barriers, but "
    "four shuffles per body instead of one shared load. Not kept: shown for comparison.",
    "beyond the tutorial (Kepler and later)", 0, 0, 0, ladder_changes::shuffle, false},
  LadderRung{"block 128", "128 threads per block: smaller tiles, more blocks per SM, a finer tail at the end of "
    "the grid.", "beyond the tutorial: block size sweep", 0, 0, 0, ladder_changes::block128, false},
  LadderRung{"fp64", "The same interactions in double precision (from the same float positions): what accuracy "
    "costs on this GPU. Not kept: shown for comparison.", "beyond the tutorial", 0, 0, 0, ladder_changes::fp64, false},
};
// clang-format on

// The toggles rung `index` runs with: every kept rung up to it, then the rung itself. Toggles the
// ladder does not mention keep their defaults.
inline ToggleValues ladder_toggles(std::size_t index) {
  ToggleValues values;
  for (std::size_t r = 0; r <= index && r < kLadder.size(); ++r) {
    if (r != index && !kLadder[r].kept) continue;
    for (const ToggleChange& c : kLadder[r].changes) values[c.toggle] = c.value;
  }
  return values;
}

}  // namespace nbl
