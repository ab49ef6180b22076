// The machine code's view of a kernel's hot loop: instructions per interaction in the SASS (the code
// the SM runs), read from `cuobjdump -sass` when the CUDA Toolkit has it (the GPU machine does), else
// from the cubin itself: NVRTC's image for sm_70 to sm_90 is an ELF whose .text.<kernel> section holds
// 16-byte instructions with the opcode in their low bits (read_cubin_sass), so no GPU and no toolkit
// binary is needed. The PTX count (ptx_analysis.hpp) is the fallback where neither can be read. These are
// static counts: the instructions in the loop's code, each issued once per pass through it; what the SM
// issued in a run is Nsight Compute's to measure. This sets the issue-slot ceiling: an SM issues at most
// 128 thread-instructions per clock (4 schedulers x 32 lanes), so a loop of k instructions per
// interaction cannot beat sm_count x 128 x clock / k interactions per second.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuda/engine/kernel_engine.hpp"

namespace nbl {

// Where a hot loop's count comes from (HotLoop::source).
inline constexpr std::string_view kSassFromCuobjdump = "SASS (cuobjdump)";
inline constexpr std::string_view kSassFromCubin = "SASS (read from the cubin)";
inline constexpr std::string_view kFromPtx = "PTX";

struct HotLoop {
  int instructions = 0;  // instructions in the loop body, each issued once per pass (NOPs excluded)
  int interactions = 0;  // reciprocal square roots in it (MUFU.RSQ, or MUFU.RSQ64H in double)
  double per_interaction() const { return interactions ? static_cast<double>(instructions) / interactions : 0.0; }
  std::string source;  // kSassFromCuobjdump, kSassFromCubin or kFromPtx
  bool sass() const { return source != kFromPtx; }
  // The loop's instructions by opcode class ("FFMA", "MUFU.RSQ", "LDS.128": sass_opcode_class), most first;
  // for PTX the ptx_analysis classes.
  std::vector<std::pair<std::string, int>> mix;
};

// One SASS instruction: its address in the function, its opcode class, and for a branch where it goes.
struct SassInstruction {
  long address = -1;
  std::string opcode;   // sass_opcode_class() of it
  long branch_to = -1;  // a BRA's target address
};

// The opcode class the mixes count, from an opcode as cuobjdump prints it: the mnemonic without its
// modifiers ("FSETP.GEU.AND" -> "FSETP", "IMAD.MOV.U32" -> "IMAD"), except MUFU with its function
// ("MUFU.RSQ") and loads and stores with a width other than 32 bits ("LDS.128", "LDG.E.64" -> "LDG.64").
std::string sass_opcode_class(std::string_view opcode);

// The instructions of `entry` in `cubin`, an ELF image that ptxas or NVRTC made for `arch` ("sm_90"),
// decoded from their opcode fields (the encodings of sm_70 to sm_90; an opcode outside the reader's table
// is "opcode 0x1ab"). Nothing when the image is not such an ELF, has no such function, or the architecture
// is one the reader does not know; `why_not` says which.
std::optional<std::vector<SassInstruction>> read_cubin_sass(std::string_view cubin, std::string_view entry,
                                                            std::string_view arch, std::string* why_not = nullptr);

// The same for the bytes of one function's code (its .text section) for sm_`sm` (70 to 90).
std::vector<SassInstruction> decode_sass(std::string_view code, int sm);

// The innermost backward-branch loop with the most reciprocal square roots among `code`; nothing when the
// code has no such loop. `source` names where the code was read.
std::optional<HotLoop> sass_hot_loop(const std::vector<SassInstruction>& code, std::string_view source);
// The same in cuobjdump's SASS listing `sass`, for the function `entry`.
std::optional<HotLoop> sass_hot_loop(std::string_view sass, std::string_view entry);

// The SASS hot loop of `entry` in `program`, a cubin: through cuobjdump when it is installed, else
// read_cubin_sass. Nothing when neither can read it (`why_not` says why) or it has no loop of interactions.
std::optional<HotLoop> machine_code_hot_loop(const CompiledProgram& program, std::string_view entry,
                                             std::string* why_not = nullptr);
// The PTX hot loop of `entry` (ptx_analysis.hpp): instructions and their classes over the unrolled bodies.
std::optional<HotLoop> ptx_hot_loop(const CompiledProgram& program, std::string_view entry);

// The hot loop of `entry` in `program`: from its SASS when the program is a cubin (through cuobjdump when
// it is installed, else read_cubin_sass), else from its PTX. Cached per program. `why_not_sass` says why
// the PTX was used ("" when the count is SASS).
std::optional<HotLoop> hot_loop(const CompiledProgram& program, std::string_view entry,
                                std::string* why_not_sass = nullptr);

// The same without waiting: the first call starts the analysis on a worker and returns nothing; a
// later call returns the result once it is there (the lab's panel asks every half second).
std::optional<HotLoop> hot_loop_if_ready(const std::shared_ptr<const CompiledProgram>& program, std::string_view entry,
                                         std::string* why_not_sass = nullptr);

// Waits for every analysis hot_loop_if_ready() started, and starts no new one (stop_background_work()
// calls it before main returns).
void stop_code_analyses();

// Issue-slot ceiling in interactions/s for `instructions_per_interaction` at `clock_mhz` on `sm_count` SMs.
inline double issue_ceiling(int sm_count, double clock_mhz, double instructions_per_interaction) {
  return instructions_per_interaction > 0 ? sm_count * 128.0 * clock_mhz * 1e6 / instructions_per_interaction : 0.0;
}

}  // namespace nbl
