#include "cuda/engine/sass_analysis.hpp"

#include <unistd.h>

#include <cstdio>
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
  long address = -1;       // /*0a10*/
  std::string label;       // ".L_x_5" on a label line
  std::string opcode;      // "FFMA", "@P0 BRA", ...
  std::string branch_to;   // the label a BRA names (a listing with labels: nvdisasm, or cuobjdump of an ELF with them)
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
  static const std::regex& instruction_re = *new std::regex(R"(^\s*/\*([0-9a-f]+)\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*);)");
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

}  // namespace

std::optional<HotLoop> sass_hot_loop(std::string_view sass, std::string_view entry) {
  const std::vector<Line> lines = function_lines(sass, entry);
  std::map<std::string, std::size_t> label_at;
  std::map<long, std::size_t> address_at;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!lines[i].label.empty()) label_at[lines[i].label] = i;
    if (lines[i].address >= 0) address_at[lines[i].address] = i;
  }
  struct Loop {
    std::size_t begin, end;
  };
  std::vector<Loop> loops;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::optional<std::size_t> target;
    if (auto it = label_at.find(lines[i].branch_to); !lines[i].branch_to.empty() && it != label_at.end()) target = it->second;
    if (auto it = address_at.find(lines[i].branch_address); lines[i].branch_address >= 0 && it != address_at.end())
      target = it->second;
    if (target && *target < i) loops.push_back({*target, i});  // a backward branch closes a loop
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
    h.source = "SASS (cuobjdump)";
    for (std::size_t i = loop.begin; i <= loop.end; ++i) {
      if (lines[i].address < 0 || lines[i].opcode == "NOP") continue;
      ++h.instructions;
      h.interactions += is_rsqrt(lines[i].opcode);
    }
    if (h.interactions > 0 && (!best || h.interactions > best->interactions)) best = h;
  }
  return best;
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
  std::optional<HotLoop> found;
  const char* cuda_home = std::getenv("CUDA_HOME");
  std::vector<std::filesystem::path> tools{"/usr/local/cuda/bin/cuobjdump"};
  if (cuda_home && *cuda_home) tools.insert(tools.begin(), std::filesystem::path(cuda_home) / "bin" / "cuobjdump");
  std::filesystem::path tool;
  for (const auto& t : tools)
    if (std::filesystem::exists(t)) tool = t;
  if (program.arch.rfind("sm_", 0) != 0) {
    why = "the program is PTX for the driver to compile, not a cubin";
  } else if (tool.empty()) {
    why = "cuobjdump (CUDA Toolkit) is not installed";
  } else {
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
  }
  if (!found) {
    if (const PtxEntryStats* e = program.entry(entry); e && e->has_loop && e->loop_bodies > 0)
      found = HotLoop{e->loop_mix.total(), e->loop_bodies, "PTX"};
  }
  const std::string reason = found && found->source == "PTX" ? why : std::string();
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
      it = jobs.by_key.emplace(key, std::async(std::launch::async, [program, name = std::string(entry)] {
                                      std::string why;
                                      auto loop = hot_loop(*program, name, &why);
                                      return std::make_pair(loop, why);
                                    }).share()).first;
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
