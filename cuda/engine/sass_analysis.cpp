#include "cuda/engine/sass_analysis.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>
#include <memory>
#include <chrono>
#include <future>
#include <mutex>
#include <regex>
#include <sstream>
#include <vector>

namespace nbl {

namespace {

struct Line {
  long address = -1;      // /*0a10*/
  std::string label;      // ".L_x_5" on a label line
  std::string opcode;     // "FFMA", "MUFU.RSQ", ... (the predicate left out)
  std::string branch_to;  // the label a BRA names (a listing with labels: nvdisasm, or cuobjdump of an ELF with them)
  long branch_address = -1;  // the address a BRA names (cuobjdump of a bare cubin, as NVRTC makes: `BRA 0x4b0`)
};

std::vector<Line> function_lines(std::string_view sass, std::string_view entry) {
  std::vector<Line> lines;
  std::istringstream in{std::string(sass)};
  std::string text;
  bool inside = false;
  // Never destroyed (each one below): analyses run on worker threads until stop_background_work().
  static const std::regex& function_re = *new std::regex(R"(^\s*Function\s*:\s*(\S+))");
  static const std::regex& label_re = *new std::regex(R"(^\s*(\.L_x_\d+):)");
  static const std::regex& instruction_re =
      *new std::regex(R"(^\s*/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*);)");
  static const std::regex& target_re = *new std::regex(R"(`\((\.L_x_\d+)\))");
  static const std::regex& address_re = *new std::regex(R"(^\s*(0x[0-9a-f]+)\s*$)");
  while (std::getline(in, text)) {
    std::smatch m;
    if (std::regex_search(text, m, function_re)) {
      inside = m[1].str() == entry;
      continue;
    }
    if (!inside) continue;
    if (std::regex_search(text, m, label_re)) {
      lines.push_back({-1, m[1].str(), "", ""});
    } else if (std::regex_search(text, m, instruction_re)) {
      Line l;
      l.address = std::stol(m[1].str(), nullptr, 16);
      l.opcode = m[3].str();
      const std::string rest = m[4].str();
      std::smatch t;
      const bool branch = l.opcode.rfind("BRA", 0) == 0;  // BRA, BRA.U, BRA.DIV ...
      if (branch && std::regex_search(rest, t, target_re)) l.branch_to = t[1].str();
      else if (branch && std::regex_search(rest, t, address_re)) l.branch_address = std::stol(t[1].str(), nullptr, 16);
      lines.push_back(std::move(l));
    }
  }
  return lines;
}

bool is_rsqrt(const std::string& opcode) { return opcode == "MUFU.RSQ" || opcode == "MUFU.RSQ64H"; }

// ---- the cubin reader ------------------------------------------------------------------------------
// Volta to Hopper encode an instruction in 128 bits; in the first 64-bit word, bits 0-8 name the
// operation and bits 9-11 the form of its operands (register, immediate, constant bank, uniform
// register). The names below are the opcodes of sm_70 to sm_86 as nvdisasm prints them (the same in each
// of those architectures, checked against disassembled instructions of each), and Hopper's integer adds
// and min/max (VIADD, VIADDMNMX, VIMNMX), checked against cuobjdump's listing of an sm_90 force kernel
// (tests/cuda/sass_analysis_test.cpp).
const std::map<int, std::string_view>& opcode_names() {
  static const std::map<int, std::string_view>& names = *new std::map<int, std::string_view>{
      {0x002, "MOV"},    {0x003, "P2R"},       {0x004, "R2P"},    {0x005, "CS2R"},      {0x006, "VOTE"},
      {0x007, "SEL"},    {0x008, "FSEL"},      {0x009, "FMNMX"},  {0x00a, "FSET"},      {0x00b, "FSETP"},
      {0x00c, "ISETP"},  {0x010, "IADD3"},     {0x011, "LEA"},    {0x012, "LOP3"},      {0x013, "IABS"},
      {0x016, "PRMT"},   {0x017, "IMNMX"},     {0x019, "SHF"},    {0x01a, "SGXT"},      {0x01b, "BMSK"},
      {0x01c, "PLOP3"},  {0x020, "FMUL"},      {0x021, "FADD"},   {0x022, "FSWZADD"},   {0x023, "FFMA"},
      {0x024, "IMAD"},   {0x025, "IMAD"},      {0x026, "IDP"},    {0x027, "IMAD"},      {0x028, "DMUL"},
      {0x029, "DADD"},   {0x02a, "DSETP"},     {0x02b, "DFMA"},   {0x030, "HADD2"},     {0x031, "HFMA2"},
      {0x032, "HMUL2"},  {0x033, "HSET2"},     {0x034, "HSETP2"}, {0x035, "HFMA2"},     {0x036, "VIADD"},
      {0x037, "IMMA"},   {0x038, "I2I"},       {0x039, "I2IP"},   {0x03b, "LDSM"},      {0x03c, "HMMA"},
      {0x03e, "F2FP"},   {0x03f, "DMMA"},      {0x043, "F2IP"},   {0x045, "I2FP"},      {0x046, "VIADDMNMX"},
      {0x048, "VIMNMX"}, {0x082, "UMOV"},      {0x086, "VOTEU"},  {0x087, "USEL"},      {0x08c, "UISETP"},
      {0x090, "UIADD3"}, {0x091, "ULEA"},      {0x092, "ULOP3"},  {0x096, "UPRMT"},     {0x099, "USHF"},
      {0x09a, "USGXT"},  {0x09c, "UPLOP3"},    {0x0a4, "UIMAD"},  {0x0a5, "UIMAD"},     {0x0b9, "ULDC"},
      {0x0bb, "ULDC"},   {0x0bd, "UFLO"},      {0x0be, "UBREV"},  {0x0bf, "UPOPC"},     {0x100, "FLO"},
      {0x101, "BREV"},   {0x102, "FCHK"},      {0x104, "F2F"},    {0x105, "F2I"},       {0x106, "I2F"},
      {0x107, "FRND"},   {0x108, "MUFU"},      {0x109, "POPC"},   {0x110, "F2F"},       {0x111, "F2I"},
      {0x112, "I2F"},    {0x113, "FRND"},      {0x118, "NOP"},    {0x119, "S2R"},       {0x11a, "DEPBAR"},
      {0x11c, "B2R"},    {0x11d, "BAR"},       {0x141, "BSYNC"},  {0x142, "BREAK"},     {0x143, "CALL"},
      {0x144, "CALL"},   {0x145, "BSSY"},      {0x146, "YIELD"},  {0x147, "BRA"},       {0x148, "WARPSYNC"},
      {0x149, "BRX"},    {0x14d, "EXIT"},      {0x150, "RET"},    {0x15d, "NANOSLEEP"}, {0x180, "LD"},
      {0x181, "LDG"},    {0x182, "LDC"},       {0x183, "LDL"},    {0x184, "LDS"},       {0x185, "ST"},
      {0x186, "STG"},    {0x187, "STL"},       {0x188, "STS"},    {0x189, "SHFL"},      {0x18a, "ATOM"},
      {0x18b, "ATOM"},   {0x18c, "ATOMS"},     {0x18d, "ATOMS"},  {0x18e, "RED"},       {0x18f, "CCTL"},
      {0x192, "MEMBAR"}, {0x1a1, "MATCH"},     {0x1a8, "ATOMG"},  {0x1a9, "ATOMG"},     {0x1ab, "ERRBAR"},
      {0x1ae, "LDGSTS"}, {0x1af, "LDGDEPBAR"}, {0x1c2, "R2UR"},   {0x1c3, "S2UR"},      {0x1c4, "REDUX"},
  };
  return names;
}

// The functions of MUFU (bits 10-13 of the second word), and the widths of loads and stores (bits 9-11).
constexpr std::string_view kMufu[] = {"COS", "SIN", "EX2", "LG2", "RCP", "RSQ", "RCP64H", "RSQ64H", "SQRT", "TANH"};
constexpr std::string_view kWidth[] = {".U8", ".S8", ".U16", ".S16", "", ".64", ".128", ".128"};

bool is_memory(std::string_view name) {
  return name == "LDS" || name == "LDG" || name == "STS" || name == "STG" || name == "LD" || name == "ST" ||
         name == "LDL" || name == "STL" || name == "LDC";
}

template <class T>
bool read_at(std::string_view bytes, std::size_t offset, T& out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

// The bytes of section `name` of a little-endian 64-bit ELF image; nothing when there is none.
std::optional<std::string_view> elf_section(std::string_view elf, std::string_view name) {
  if (elf.size() < 64 ||
      elf.substr(0, 4) !=
          "\x7f"
          "ELF" ||
      elf[4] != 2 || elf[5] != 1)
    return std::nullopt;
  std::uint64_t section_offset = 0;
  std::uint16_t entry_size = 0, count = 0, names_index = 0;
  if (!read_at(elf, 0x28, section_offset) || !read_at(elf, 0x3a, entry_size) || !read_at(elf, 0x3c, count) ||
      !read_at(elf, 0x3e, names_index) || entry_size < 64 || names_index >= count)
    return std::nullopt;
  auto header = [&](std::size_t i, std::uint32_t& name, std::uint64_t& offset, std::uint64_t& size) {
    const std::size_t at = static_cast<std::size_t>(section_offset) + i * entry_size;
    return read_at(elf, at, name) && read_at(elf, at + 0x18, offset) && read_at(elf, at + 0x20, size) &&
           offset <= elf.size() && size <= elf.size() - offset;
  };
  std::uint32_t names_name = 0;
  std::uint64_t names_offset = 0, names_size = 0;
  if (!header(names_index, names_name, names_offset, names_size)) return std::nullopt;
  const std::string_view names =
      elf.substr(static_cast<std::size_t>(names_offset), static_cast<std::size_t>(names_size));
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t n = 0;
    std::uint64_t offset = 0, size = 0;
    if (!header(i, n, offset, size) || n >= names.size()) continue;
    const std::string_view section = names.substr(n, names.find('\0', n) - n);
    if (section == name) return elf.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(size));
  }
  return std::nullopt;
}

}  // namespace

std::string sass_opcode_class(std::string_view opcode) {
  const std::size_t dot = opcode.find('.');
  const std::string base(opcode.substr(0, dot));
  if (dot == std::string_view::npos) return base;
  std::vector<std::string_view> parts;
  for (std::size_t at = dot + 1; at <= opcode.size();) {
    const std::size_t next = std::min(opcode.find('.', at), opcode.size());
    parts.push_back(opcode.substr(at, next - at));
    at = next + 1;
  }
  if (base == "MUFU" && !parts.empty()) return base + "." + std::string(parts.front());
  if (is_memory(base))
    for (std::string_view p : parts)
      if (p == "64" || p == "128" || p == "U8" || p == "S8" || p == "U16" || p == "S16")
        return base + "." + std::string(p);
  return base;
}

std::optional<std::vector<SassInstruction>> read_cubin_sass(std::string_view cubin, std::string_view entry,
                                                            std::string_view arch, std::string* why_not) {
  auto fail = [&](const std::string& why) -> std::optional<std::vector<SassInstruction>> {
    if (why_not) *why_not = why;
    return std::nullopt;
  };
  int sm = 0;
  if (arch.rfind("sm_", 0) == 0) {
    const std::string digits(arch.substr(3, arch.find_first_not_of("0123456789", 3) - 3));
    if (!digits.empty() && digits.size() <= 3) sm = std::stoi(digits);
  }
  if (sm < 70 || sm > 90)
    return fail("the cubin reader knows the instruction encodings of sm_70 to sm_90, not " + std::string(arch));
  const auto text = elf_section(cubin, ".text." + std::string(entry));
  if (!text) return fail("the cubin has no code for " + std::string(entry));
  return decode_sass(*text, sm);
}

std::vector<SassInstruction> decode_sass(std::string_view code_bytes, int sm) {
  std::vector<SassInstruction> code;
  code.reserve(code_bytes.size() / 16);
  const auto& names = opcode_names();
  for (std::size_t at = 0; at + 16 <= code_bytes.size(); at += 16) {
    std::uint64_t low = 0, high = 0;
    read_at(code_bytes, at, low);
    read_at(code_bytes, at + 8, high);
    SassInstruction i;
    i.address = static_cast<long>(at);
    const int op = static_cast<int>(low & 0x1ff);
    const auto name = names.find(op);
    if (name == names.end()) {
      char unknown[32];
      std::snprintf(unknown, sizeof unknown, "opcode 0x%03x", op);
      i.opcode = unknown;
    } else {
      i.opcode = name->second;
    }
    if (i.opcode == "MUFU") {
      const std::size_t function = (high >> 10) & 0xf;
      i.opcode += function < std::size(kMufu) ? "." + std::string(kMufu[function]) : std::string(".?");
    } else if (is_memory(i.opcode)) {
      i.opcode += kWidth[(high >> 9) & 7];
    } else if (i.opcode == "BRA") {
      // The offset from the next instruction: sm_70 to sm_89 give it in bytes in bits 32-81 (the low bits of
      // which carry flags); sm_90 in 4-byte words, the low 8 bits in bits 16-23 and the rest from bit 34 on.
      if (sm < 90) {
        std::int64_t offset = static_cast<std::int64_t>((low >> 32) | ((high & 0x3ffff) << 32));
        if (offset & (std::int64_t(1) << 49)) offset -= std::int64_t(1) << 50;
        i.branch_to = static_cast<long>(static_cast<std::int64_t>(at) + 16 + (offset & ~std::int64_t(0xf)));
      } else {
        std::int64_t upper = static_cast<std::int64_t>((low >> 34) | ((high & 0x3ffff) << 30));
        if (upper & (std::int64_t(1) << 47)) upper -= std::int64_t(1) << 48;
        const std::int64_t words = upper * 256 + static_cast<std::int64_t>((low >> 16) & 0xff);
        i.branch_to = static_cast<long>(static_cast<std::int64_t>(at) + 16 + 4 * words);
      }
    }
    code.push_back(std::move(i));
  }
  return code;
}

std::optional<HotLoop> sass_hot_loop(const std::vector<SassInstruction>& code, std::string_view source) {
  std::map<long, std::size_t> address_at;
  for (std::size_t i = 0; i < code.size(); ++i) address_at[code[i].address] = i;
  struct Loop {
    std::size_t begin, end;
  };
  std::vector<Loop> loops;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i].branch_to < 0) continue;
    const auto it = address_at.find(code[i].branch_to);
    if (it != address_at.end() && it->second < i) loops.push_back({it->second, i});  // a backward branch closes a loop
  }
  std::optional<HotLoop> best;
  for (const Loop& loop : loops) {
    bool innermost = true;  // no other loop strictly inside it
    for (const Loop& other : loops)
      if (&other != &loop && other.begin >= loop.begin && other.end <= loop.end &&
          (other.begin != loop.begin || other.end != loop.end))
        innermost = false;
    if (!innermost) continue;
    HotLoop h;
    h.source = std::string(source);
    std::map<std::string, int> mix;
    for (std::size_t i = loop.begin; i <= loop.end; ++i) {
      if (code[i].opcode == "NOP") continue;
      ++h.instructions;
      h.interactions += is_rsqrt(code[i].opcode);
      ++mix[code[i].opcode];
    }
    if (h.interactions > 0 && (!best || h.interactions > best->interactions)) {
      h.mix.assign(mix.begin(), mix.end());
      std::stable_sort(h.mix.begin(), h.mix.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
      best = std::move(h);
    }
  }
  return best;
}

std::optional<HotLoop> sass_hot_loop(std::string_view sass, std::string_view entry) {
  const std::vector<Line> lines = function_lines(sass, entry);
  std::map<std::string, long> label_address;  // a label stands for the next instruction's address
  for (std::size_t i = lines.size(); i-- > 0;) {
    if (lines[i].label.empty()) continue;
    for (std::size_t k = i + 1; k < lines.size(); ++k)
      if (lines[k].address >= 0) {
        label_address[lines[i].label] = lines[k].address;
        break;
      }
  }
  std::vector<SassInstruction> code;
  for (const Line& l : lines) {
    if (l.address < 0) continue;
    SassInstruction i;
    i.address = l.address;
    i.opcode = sass_opcode_class(l.opcode);
    if (const auto it = label_address.find(l.branch_to); !l.branch_to.empty() && it != label_address.end())
      i.branch_to = it->second;
    if (l.branch_address >= 0) i.branch_to = l.branch_address;
    code.push_back(std::move(i));
  }
  return sass_hot_loop(code, kSassFromCuobjdump);
}

std::optional<HotLoop> machine_code_hot_loop(const CompiledProgram& program, std::string_view entry,
                                             std::string* why_not) {
  std::string why;
  std::optional<HotLoop> found;
  const char* cuda_home = std::getenv("CUDA_HOME");
  std::vector<std::filesystem::path> tools{"/usr/local/cuda/bin/cuobjdump"};
  if (cuda_home && *cuda_home) tools.insert(tools.begin(), std::filesystem::path(cuda_home) / "bin" / "cuobjdump");
  std::filesystem::path tool;
  for (const auto& t : tools)
    if (std::filesystem::exists(t)) tool = t;
  if (program.arch.rfind("sm_", 0) != 0) {
    why = "the program is PTX for the driver to compile, not a cubin";
  } else if (!tool.empty()) {
    const auto dir = std::filesystem::temp_directory_path();
    const auto cubin = dir / ("nbodylab-" + std::to_string(::getpid()) + "-" + program.key + ".cubin");
    std::ofstream(cubin, std::ios::binary) << program.image;
    const std::string command = tool.string() + " -sass " + cubin.string() + " 2>/dev/null";
    std::string listing;
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char buffer[4096];
      while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) listing.append(buffer, got);
      pclose(pipe);
    }
    std::error_code ec;
    std::filesystem::remove(cubin, ec);
    found = sass_hot_loop(listing, entry);
    if (!found) why = "cuobjdump's listing has no loop of interactions";
  } else if (const auto code = read_cubin_sass(program.image, entry, program.arch, &why)) {
    // No cuobjdump (the CUDA Toolkit's binaries are not installed): the cubin's own bytes.
    found = sass_hot_loop(*code, kSassFromCubin);
    if (!found) why = "the cubin's code has no loop of interactions";
  } else {
    why = "cuobjdump (CUDA Toolkit) is not installed and " + why;
  }
  if (why_not) *why_not = found ? std::string() : why;
  return found;
}

std::optional<HotLoop> ptx_hot_loop(const CompiledProgram& program, std::string_view entry) {
  const PtxEntryStats* e = program.entry(entry);
  if (!e || !e->has_loop || e->loop_bodies <= 0) return std::nullopt;
  HotLoop loop{e->loop_mix.total(), e->loop_bodies, std::string(kFromPtx), {}};
  for (const auto& [cls, count] : e->loop_mix.counts)
    if (count > 0 && cls != "total") loop.mix.emplace_back(cls, count);
  return loop;
}

std::optional<HotLoop> hot_loop(const CompiledProgram& program, std::string_view entry, std::string* why_not_sass) {
  struct Found {
    std::optional<HotLoop> loop;
    std::string why_not_sass;
  };
  // Never destroyed: hot_loop_if_ready() runs this on std::async threads, which may outlive the
  // statics of a process that exits without stop_code_analyses().
  static std::mutex& mutex = *new std::mutex;
  static std::map<std::string, Found>& cache = *new std::map<std::string, Found>;  // by program key + entry
  const std::string key = program.key + "/" + std::string(entry);
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) {
      if (why_not_sass) *why_not_sass = it->second.why_not_sass;
      return it->second.loop;
    }
  }
  std::string why;
  std::optional<HotLoop> found = machine_code_hot_loop(program, entry, &why);
  if (!found) found = ptx_hot_loop(program, entry);
  const std::string reason = found && !found->sass() ? why : std::string();
  if (why_not_sass) *why_not_sass = reason;
  std::lock_guard lock(mutex);
  cache[key] = {found, reason};
  return found;
}

namespace {

// The analyses started by hot_loop_if_ready(), each on a std::async thread. Never destroyed: the map of
// futures used to be a static whose destructor, at exit, waited for a cuobjdump still running while the
// statics that job used were already gone. stop_code_analyses() waits for them before main returns.
struct AnalysisJobs {
  using Job = std::shared_future<std::pair<std::optional<HotLoop>, std::string>>;
  std::mutex mutex;
  std::map<std::string, Job> by_key;
  bool stopped = false;

  static AnalysisJobs& get() {
    static AnalysisJobs& jobs = *new AnalysisJobs;
    return jobs;
  }
};

}  // namespace

std::optional<HotLoop> hot_loop_if_ready(const std::shared_ptr<const CompiledProgram>& program, std::string_view entry,
                                         std::string* why_not_sass) {
  AnalysisJobs& jobs = AnalysisJobs::get();
  const std::string key = program->key + "/" + std::string(entry);
  AnalysisJobs::Job job;
  {
    std::lock_guard lock(jobs.mutex);
    auto it = jobs.by_key.find(key);
    if (it == jobs.by_key.end()) {
      if (jobs.stopped) return std::nullopt;  // the process is ending: nothing new starts
      // cuobjdump takes up to a second: never on the caller's (the UI's) thread.
      it = jobs.by_key
               .emplace(key, std::async(std::launch::async,
                                        [program, name = std::string(entry)] {
                                          std::string why;
                                          auto loop = hot_loop(*program, name, &why);
                                          return std::make_pair(loop, why);
                                        })
                                 .share())
               .first;
    }
    job = it->second;
  }
  if (job.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
  const auto& [loop, why] = job.get();
  if (why_not_sass) *why_not_sass = why;
  return loop;
}

void stop_code_analyses() {
  std::vector<AnalysisJobs::Job> running;
  {
    AnalysisJobs& jobs = AnalysisJobs::get();
    std::lock_guard lock(jobs.mutex);
    jobs.stopped = true;
    for (const auto& [key, job] : jobs.by_key) running.push_back(job);
  }
  for (const auto& job : running) job.wait();
}

}  // namespace nbl
