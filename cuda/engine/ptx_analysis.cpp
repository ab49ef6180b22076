#include "cuda/engine/ptx_analysis.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <regex>
#include <sstream>

namespace nbl {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

bool has_part(const std::vector<std::string_view>& parts, std::string_view p) {
  return std::find(parts.begin() + 1, parts.end(), p) != parts.end();
}

struct MixCounter {
  std::map<std::string, int, std::less<>> counts;
  void add(std::string_view opcode) {
    for (auto cls : classify_opcode(opcode)) ++counts[std::string(cls)];
  }
  InstructionMix finish() const {
    InstructionMix mix;
    for (const auto& cls : instruction_classes()) {
      auto it = counts.find(cls);
      mix.counts.emplace_back(cls, it == counts.end() ? 0 : it->second);
    }
    return mix;
  }
};

// One line of an entry's body: an instruction (opcode), a label, or nothing we count.
struct Line {
  enum Kind { instruction, label } kind;
  std::string opcode;  // instruction: the opcode with its modifiers; label: the label's name
  std::string target;  // bra: the label it jumps to
};

PtxEntryStats analyze_entry(std::string name, int max_threads, const std::vector<Line>& lines) {
  PtxEntryStats stats;
  stats.name = std::move(name);
  stats.max_threads = max_threads;
  MixCounter whole;
  std::map<std::string, std::size_t> label_at;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].kind == Line::label) label_at[lines[i].opcode] = i;
    else whole.add(lines[i].opcode);
  }
  stats.mix = whole.finish();

  // Loops: a branch back to a label above it. Bodies per loop: square-root instructions inside.
  struct Loop {
    std::size_t begin, end;
    int bodies;
  };
  auto is_body = [](std::string_view opcode) {
    const auto base = opcode.substr(0, opcode.find('.'));
    return base == "rsqrt" || base == "sqrt";
  };
  std::vector<Loop> loops;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (l.kind != Line::instruction || l.target.empty()) continue;
    auto it = label_at.find(l.target);
    if (it == label_at.end() || it->second > i) continue;
    Loop loop{it->second, i, 0};
    for (std::size_t k = loop.begin; k <= loop.end; ++k)
      if (lines[k].kind == Line::instruction && is_body(lines[k].opcode)) ++loop.bodies;
    if (loop.bodies > 0) loops.push_back(loop);
  }
  const Loop* hot = nullptr;
  for (const Loop& loop : loops) {
    const bool contains_another = std::any_of(loops.begin(), loops.end(), [&](const Loop& other) {
      return &other != &loop && other.begin >= loop.begin && other.end <= loop.end &&
             (other.begin != loop.begin || other.end != loop.end);
    });
    if (contains_another) continue;
    if (!hot || loop.bodies > hot->bodies) hot = &loop;
  }
  if (hot) {
    MixCounter in_loop;
    for (std::size_t k = hot->begin; k <= hot->end; ++k)
      if (lines[k].kind == Line::instruction) in_loop.add(lines[k].opcode);
    stats.has_loop = true;
    stats.loop_bodies = hot->bodies;
    stats.loop_mix = in_loop.finish();
  } else {
    stats.loop_mix = MixCounter{}.finish();
  }
  return stats;
}

int to_int(std::string_view s) {
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

}  // namespace

int InstructionMix::operator[](std::string_view cls) const {
  for (const auto& [name, count] : counts)
    if (name == cls) return count;
  return 0;
}

const std::vector<std::string>& instruction_classes() {
  // Never destroyed: build workers analyse PTX until shutdown.
  static const std::vector<std::string>& classes = *new std::vector<std::string>{
      "fma.f32",      "mul.f32",   "add.f32",  "fma.f64",   "rsqrt",        "sqrt",      "div",
      "rcp",          "f64",       "cvt",      "ld.shared", "ld.shared.v4", "st.shared", "ld.global",
      "ld.global.v4", "st.global", "ld.const", "ld.param",  "ld.local",     "st.local",  "shfl.sync",
      "setp",         "selp",      "bra",      "bar.sync",  "atom",         "ftz",       "total"};
  return classes;
}

std::vector<std::string_view> classify_opcode(std::string_view opcode) {
  std::vector<std::string_view> out;
  const auto parts = split(opcode, '.');
  const std::string_view base = parts.front();
  const std::string_view type = parts.back();
  const bool f32 = type == "f32", f64 = has_part(parts, "f64");
  if (base == "fma" && f32) out.push_back("fma.f32");
  if (base == "fma" && type == "f64") out.push_back("fma.f64");
  if (base == "mul" && f32) out.push_back("mul.f32");
  if ((base == "add" || base == "sub") && f32) out.push_back("add.f32");
  if (base == "rsqrt") out.push_back("rsqrt");
  if (base == "sqrt") out.push_back("sqrt");
  if (base == "div" && (f32 || type == "f64")) out.push_back("div");
  if (base == "rcp") out.push_back("rcp");
  if (f64 && base != "ld" && base != "st" && base != "mov" && base != "cvt" && base != "shfl") out.push_back("f64");
  if (base == "cvt") out.push_back("cvt");
  if (base == "ld" || base == "ldu") {
    const bool v4 = has_part(parts, "v4");
    if (has_part(parts, "shared")) {
      out.push_back("ld.shared");
      if (v4) out.push_back("ld.shared.v4");
    } else if (has_part(parts, "global")) {
      out.push_back("ld.global");
      if (v4) out.push_back("ld.global.v4");
    } else if (has_part(parts, "const")) out.push_back("ld.const");
    else if (has_part(parts, "param")) out.push_back("ld.param");
    else if (has_part(parts, "local")) out.push_back("ld.local");
  }
  if (base == "st") {
    if (has_part(parts, "shared")) out.push_back("st.shared");
    else if (has_part(parts, "global")) out.push_back("st.global");
    else if (has_part(parts, "local")) out.push_back("st.local");
  }
  if (base == "shfl") out.push_back("shfl.sync");
  if (base == "setp") out.push_back("setp");
  if (base == "selp") out.push_back("selp");
  if (base == "bra") out.push_back("bra");
  if ((base == "bar" || base == "barrier") && !has_part(parts, "warp")) out.push_back("bar.sync");
  if (base == "atom" || base == "red") out.push_back("atom");
  if (has_part(parts, "ftz")) out.push_back("ftz");
  out.push_back("total");
  return out;
}

std::vector<PtxEntryStats> analyze_ptx(std::string_view ptx) {
  std::vector<PtxEntryStats> entries;
  std::string name;
  int max_threads = 0;
  bool in_header = false;  // between ".entry name(" and the body's "{"
  int depth = 0;           // brace depth inside an entry's body
  std::vector<Line> lines;

  for (std::string_view raw : split(ptx, '\n')) {
    std::string_view line = trim(raw);
    if (auto c = line.find("//"); c != std::string_view::npos) line = trim(line.substr(0, c));
    if (line.empty()) continue;

    if (depth == 0 && !in_header) {
      const auto at = line.find(".entry ");
      if (at == std::string_view::npos) continue;
      auto rest = trim(line.substr(at + 7));
      name = std::string(rest.substr(0, rest.find_first_of("( ")));
      max_threads = 0;
      in_header = true;
      lines.clear();
      // The body may open on this line only in hand-written PTX; NVRTC puts "{" on its own line.
      continue;
    }
    if (in_header) {
      if (line.rfind(".maxntid", 0) == 0) max_threads = to_int(trim(line.substr(8)));
      if (line == "{") {
        in_header = false;
        depth = 1;
      }
      continue;
    }
    // Inside the body.
    if (line == "{") {
      ++depth;
      continue;
    }
    if (line == "}") {
      if (--depth == 0) entries.push_back(analyze_entry(name, max_threads, lines));
      continue;
    }
    if (line.front() == '.') continue;  // .reg, .shared, .loc, .pragma, ...
    if (line.back() == ':') {
      lines.push_back({Line::label, std::string(line.substr(0, line.size() - 1)), {}});
      continue;
    }
    if (line.front() == '@') {  // predicate guard: "@%p1 bra ..." or "@!%p1 ..."
      const auto space = line.find_first_of(" \t");
      if (space == std::string_view::npos) continue;
      line = trim(line.substr(space));
    }
    const auto end = line.find_first_of(" \t;");
    std::string_view opcode = line.substr(0, end);
    if (opcode.empty()) continue;
    Line l{Line::instruction, std::string(opcode), {}};
    if (opcode == "bra" || opcode == "bra.uni") {
      auto target = trim(line.substr(end));
      while (!target.empty() && (target.back() == ';' || target.back() == ' ')) target.remove_suffix(1);
      l.target = std::string(target);
    }
    lines.push_back(std::move(l));
  }
  return entries;
}

std::vector<PtxasStats> parse_ptxas_log(std::string_view log) {
  std::vector<PtxasStats> out;
  auto current = [&](std::string_view name) -> PtxasStats& {
    for (auto& s : out)
      if (s.name == name) return s;
    out.push_back({});
    out.back().name = std::string(name);
    return out.back();
  };
  // Never destroyed (each one below): build workers parse logs until shutdown, and a static destroyed
  // under a compile still running at exit crashed the process.
  static const std::regex& entry_re = *new std::regex(R"(Compiling entry function '([^']+)')");
  static const std::regex& props_re = *new std::regex(R"(Function properties for ([^\s]+))");
  static const std::regex& stack_re =
      *new std::regex(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex& regs_re = *new std::regex(R"(Used (\d+) registers)");
  static const std::regex& smem_re = *new std::regex(R"((\d+) bytes smem)");
  static const std::regex& bar_re = *new std::regex(R"(used (\d+) barriers)");
  std::string name;
  for (std::string_view raw : split(log, '\n')) {
    const std::string line(raw);
    std::smatch m;
    if (std::regex_search(line, m, entry_re) || std::regex_search(line, m, props_re)) {
      name = m[1].str();
      current(name);
      continue;
    }
    if (name.empty()) continue;
    PtxasStats& s = current(name);
    if (std::regex_search(line, m, stack_re)) {
      s.stack_bytes = std::stoi(m[1].str());
      s.spill_store_bytes = std::stoi(m[2].str());
      s.spill_load_bytes = std::stoi(m[3].str());
    }
    if (std::regex_search(line, m, regs_re)) {
      s.registers = std::stoi(m[1].str());
      if (std::regex_search(line, m, smem_re)) s.shared_bytes = std::stoi(m[1].str());
      if (std::regex_search(line, m, bar_re)) s.barriers = std::stoi(m[1].str());
    }
  }
  return out;
}

}  // namespace nbl
