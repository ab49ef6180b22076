// Reads what the compiler made of a kernel, from text alone (no GPU): the PTX instruction mix of
// each entry point and of its hot loop, and ptxas's resource report (registers, spills, shared
// memory) from the NVRTC log. The advice "check the generated code" of Burtscher's CUDA optimization tutorial
// (Part I: "Rearranging Terms") as a table: the panel's generated-code view, `nbodylab kernels`,
// and the tests that prove each toggle changed the code.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nbl {

// Instruction counts by class, in a fixed order (kInstructionClasses).
struct InstructionMix {
  std::vector<std::pair<std::string, int>> counts;
  int operator[](std::string_view cls) const;
  int total() const { return (*this)["total"]; }
};

// The classes, in report order: "fma.f32", "mul.f32", "add.f32" (add and sub), "fma.f64", "rsqrt",
// "sqrt", "div", "rcp", "f64", "cvt", "ld.shared", "ld.shared.v4", "st.shared", "ld.global",
// "ld.global.v4", "st.global", "ld.const", "ld.param", "ld.local", "st.local", "shfl.sync", "setp",
// "selp", "bra", "bar.sync", "atom", "ftz", "total".
// An instruction can be in several: "f64" counts every one that computes in double, "ftz" every one
// that flushes denormals, "*.v4" the 16-byte vector loads among the loads; "ld.global" includes the
// read-only path (ld.global.nc); "total" counts every instruction once.
const std::vector<std::string>& instruction_classes();

// The classes one PTX opcode (e.g. "fma.rn.ftz.f32", "ld.global.nc.v4.f32") belongs to.
std::vector<std::string_view> classify_opcode(std::string_view opcode);

struct PtxEntryStats {
  std::string name;
  int max_threads = 0;  // .maxntid (launch bounds), 0 when absent
  InstructionMix mix;   // the whole entry point
  // The hot loop: the innermost loop that evaluates interactions, and among several the one with
  // the most. An interaction is one square root (rsqrt, or sqrt on the 1/sqrt path), so
  // loop_bodies is the unrolled body count: unroll factor x bodies per thread.
  bool has_loop = false;
  int loop_bodies = 0;
  InstructionMix loop_mix;
  double loop_instructions_per_body() const {
    return loop_bodies > 0 ? static_cast<double>(loop_mix.total()) / loop_bodies : 0.0;
  }
};

// Every .entry in a PTX module.
std::vector<PtxEntryStats> analyze_ptx(std::string_view ptx);

// ptxas -v lines for one function ("Function properties for ...", "Used N registers, ...").
struct PtxasStats {
  std::string name;
  int registers = -1;
  int spill_store_bytes = 0, spill_load_bytes = 0;
  int stack_bytes = 0;
  int shared_bytes = 0;
  int barriers = 0;
};
std::vector<PtxasStats> parse_ptxas_log(std::string_view log);

}  // namespace nbl
