#include "cuda/engine/kernel_engine.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <list>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>
#include <utility>

#include "cuda/buffer.hpp"
#include "cuda/check.hpp"
#include "cuda/device.hpp"
#include "cuda/engine/nvrtc_library.hpp"
#include "sim/file_util.hpp"
#include "sim/resources.hpp"

namespace nbl {

namespace {

// Bumped when anything about how programs are compiled or stored changes (old cache entries then
// simply stop matching).
constexpr std::string_view kCacheFormat = "nbodylab-kernel-cache-2";

class Hasher {  // two independent 64-bit FNV-1a streams: a 128-bit key, ample for a cache
 public:
  void add(std::string_view s) {
    add_raw(std::to_string(s.size()));
    add_raw(":");
    add_raw(s);
  }
  std::string hex() const {
    char buf[33];
    std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(a_),
                  static_cast<unsigned long long>(b_));
    return buf;
  }

 private:
  void add_raw(std::string_view s) {
    for (unsigned char c : s) {
      a_ = (a_ ^ c) * 0x100000001b3ull;
      b_ = (b_ ^ static_cast<unsigned char>(c + 0x5b)) * 0x100000001b3ull;
    }
  }
  std::uint64_t a_ = 0xcbf29ce484222325ull;
  std::uint64_t b_ = 0x84222325cbf29ce4ull;
};

std::string read_file_or_throw(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError("cannot read kernel source " + path.string(), "cannot read " + path.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool read_file(const std::filesystem::path& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return static_cast<bool>(in) || in.eof();
}

// The "..." includes of a source text (the kernels use no <...> includes: NVRTC has no system headers).
std::vector<std::string> quoted_includes(const std::string& text) {
  // Never destroyed: build workers compile until shutdown, and a static destroyed under them crashed at exit.
  static const std::regex& include_re = *new std::regex(R"(^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\")");
  std::vector<std::string> names;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_search(line, m, include_re)) names.push_back(m[1].str());
  }
  return names;
}

struct NvrtcProgram {                               // RAII for nvrtcProgram
  const NvrtcLibrary& nvrtc = NvrtcLibrary::get();  // throws, saying what is missing, without NVRTC
  nvrtcProgram program = nullptr;
  ~NvrtcProgram() {
    if (program) nvrtc.destroy_program(&program);
  }
};

void check_nvrtc(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS)
    throw Error(std::string("NVRTC ") + what + " failed: " + NvrtcLibrary::get().get_error_string(result));
}

std::vector<int> nvrtc_supported_archs() {
  if (!NvrtcLibrary::available()) return {};
  const NvrtcLibrary& nvrtc = NvrtcLibrary::get();
  int count = 0;
  if (nvrtc.get_num_supported_archs(&count) != NVRTC_SUCCESS || count <= 0) return {};
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (nvrtc.get_supported_archs(archs.data()) != NVRTC_SUCCESS) return {};
  return archs;
}

void fill_reports(CompiledProgram& p) {
  p.entries = analyze_ptx(p.ptx);
  p.resources = parse_ptxas_log(p.log);
}

// Since CUDA 12.9, NVRTC on a machine with an NVIDIA driver keeps compiled code in the driver's compute
// cache (~/.nv/ComputeCache) and, on a hit, skips ptxas, so the resource report (-v) is missing from the
// log: seen on the H100 machine, across processes and for any program compiled there before. The engine
// has its own cache (memory and disk, with the log), so it turns the driver's off for this process unless
// the user chose otherwise (CUDA_CACHE_DISABLE set). The driver's cache only ever held JIT-compiled PTX
// for this program; every kernel here is loaded as a cubin.
void keep_ptxas_reports() {
  static std::once_flag once;
  std::call_once(once, [] { setenv("CUDA_CACHE_DISABLE", "1", /*overwrite=*/0); });
}

}  // namespace

// ---------------------------------------------------------------------------------------------------

std::vector<std::filesystem::path> SourceSnapshot::paths() const {
  std::vector<std::filesystem::path> out{main.path};
  for (const auto& h : headers) out.push_back(h.path);
  return out;
}

const PtxEntryStats* CompiledProgram::entry(std::string_view name) const {
  for (const auto& e : entries)
    if (e.name == name) return &e;
  return nullptr;
}

const PtxasStats* CompiledProgram::resource(std::string_view name) const {
  for (const auto& r : resources)
    if (r.name == name) return &r;
  return nullptr;
}

KernelInfo CompiledProgram::kernel_info(std::string_view entry_name) const {
  KernelInfo info;
  info.name = std::string(entry_name);
  info.variant = source.label.empty() ? source.file : source.label;
  if (const PtxasStats* r = resource(entry_name)) {
    info.registers = r->registers;
    info.spill_bytes = r->spill_store_bytes + r->spill_load_bytes;
    info.shared_bytes = r->shared_bytes;
  }
  if (const PtxEntryStats* e = entry(entry_name)) {
    info.instruction_mix = e->mix.counts;
    info.instruction_mix.emplace_back("loop bodies", e->loop_bodies);
    info.instruction_mix.emplace_back("loop instructions", e->loop_mix.total());
  }
  info.compile_log = log;
  return info;
}

// ---------------------------------------------------------------------------------------------------

KernelEngine::KernelEngine(Config config) : config_(std::move(config)) {
  keep_ptxas_reports();
  if (config_.kernels_dir.empty()) config_.kernels_dir = find_resource("cuda/kernels");
  if (config_.include_dirs.empty()) {
    config_.include_dirs.push_back(config_.kernels_dir);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(config_.kernels_dir / "physics" / "gravity.hpp", ec))
      config_.include_dirs.push_back(find_resource("physics").parent_path());  // for "physics/*.hpp"
  }
  if (!config_.cache_dir) config_.cache_dir = default_cache_dir();
  arch_ = config_.arch;
  if (arch_.empty()) {
    const auto device = query_device();
    arch_ = device ? arch_for(device->compute_major, device->compute_minor) : "sm_90";
  }
}

std::filesystem::path KernelEngine::default_cache_dir() {
  if (const char* env = std::getenv("NBODYLAB_KERNEL_CACHE"); env && *env) {
    if (std::string_view(env) == "off") return {};
    return env;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::filesystem::path(xdg) / "nbodylab" / "kernels";
  if (const char* home = std::getenv("HOME"); home && *home)
    return std::filesystem::path(home) / ".cache" / "nbodylab" / "kernels";
  return {};
}

std::string KernelEngine::nvrtc_version() { return NvrtcLibrary::get().version(); }

bool KernelEngine::nvrtc_available(std::string* why) { return NvrtcLibrary::available(why); }

std::vector<int> KernelEngine::supported_archs() { return nvrtc_supported_archs(); }

std::string KernelEngine::arch_for(int major, int minor) {
  const int cc = major * 10 + minor;
  const auto archs = nvrtc_supported_archs();
  if (archs.empty() || std::find(archs.begin(), archs.end(), cc) != archs.end()) return "sm_" + std::to_string(cc);
  int best = 0;
  for (int a : archs)
    if (a <= cc) best = std::max(best, a);
  if (best == 0) best = *std::min_element(archs.begin(), archs.end());
  return "compute_" + std::to_string(best);
}

KernelEngine::Counters KernelEngine::counters() const {
  std::lock_guard lock(mutex_);
  return counters_;
}

SourceSnapshot KernelEngine::snapshot(const KernelSource& source) const {
  SourceSnapshot snap;
  snap.main.path = config_.kernels_dir / source.file;
  snap.main.text = read_file_or_throw(snap.main.path);

  // Breadth-first over "..." includes; each include name is registered once (NVRTC matches headers by
  // the name written in the #include).
  std::set<std::string> seen;
  std::vector<SourceSnapshot::File> found;
  found.reserve(64);
  std::size_t next = 0;
  auto scan = [&](const SourceSnapshot::File& from) {
    for (const auto& name : quoted_includes(from.text)) {
      if (!seen.insert(name).second) continue;
      std::vector<std::filesystem::path> candidates{from.path.parent_path() / name};
      for (const auto& dir : config_.include_dirs) candidates.push_back(dir / name);
      for (const auto& candidate : candidates) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(candidate, ec)) continue;
        SourceSnapshot::File f{name, std::filesystem::weakly_canonical(candidate, ec), {}};
        if (!read_file(candidate, f.text))
          throw CompileError("cannot read " + candidate.string(), "cannot read " + candidate.string());
        found.push_back(std::move(f));
        break;
      }
      // Not found: NVRTC will say "cannot open source file" with the includer's line number.
    }
  };
  scan(snap.main);
  while (next < found.size()) {
    const SourceSnapshot::File f = found[next++];  // copy: `found` may grow
    scan(f);
  }
  snap.headers = std::move(found);
  return snap;
}

std::string KernelEngine::cache_key(const SourceSnapshot& snap, const KernelSource& source) const {
  Hasher h;
  h.add(kCacheFormat);
  h.add(nvrtc_version());
  h.add(arch_);
  h.add(source.file);
  h.add(snap.main.text);
  for (const auto& f : snap.headers) {
    h.add(f.include_name);
    h.add(f.text);
  }
  for (const auto& [name, value] : source.macros) {
    h.add(name);
    h.add(value);
  }
  for (const auto& o : source.options) h.add(o);
  return h.hex();
}

std::shared_ptr<const CompiledProgram> KernelEngine::compile(const KernelSource& source) {
  const SourceSnapshot snap = snapshot(source);
  const std::string key = cache_key(snap, source);
  {
    std::lock_guard lock(mutex_);
    if (auto it = memory_.find(key); it != memory_.end()) {
      ++counters_.memory_hits;
      if (it->second->source.label == source.label) return it->second;
      auto relabelled = std::make_shared<CompiledProgram>(*it->second);
      relabelled->source = source;
      return relabelled;
    }
  }
  std::shared_ptr<const CompiledProgram> program = load_from_disk(key, source, snap);
  if (program) {
    std::lock_guard lock(mutex_);
    ++counters_.disk_hits;
  } else {
    auto fresh = run_nvrtc(source, snap);
    fresh->key = key;
    // A cubin without its resource report is not kept on disk: the next start compiles it again.
    const bool report_missing = fresh->arch.rfind("sm_", 0) == 0 && !fresh->entries.empty() && fresh->resources.empty();
    if (!report_missing) save_to_disk(*fresh);
    program = std::move(fresh);
    std::lock_guard lock(mutex_);
    ++counters_.compiled;
  }
  std::lock_guard lock(mutex_);
  memory_.emplace(key, program);
  return program;
}

std::shared_ptr<CompiledProgram> KernelEngine::run_nvrtc(const KernelSource& source, const SourceSnapshot& snap) const {
  const auto start = std::chrono::steady_clock::now();
  std::vector<const char*> header_texts, header_names;
  for (const auto& f : snap.headers) {
    header_texts.push_back(f.text.c_str());
    header_names.push_back(f.include_name.c_str());
  }
  NvrtcProgram prog;
  const std::string program_name = snap.main.path.string();
  check_nvrtc(
      prog.nvrtc.create_program(&prog.program, snap.main.text.c_str(), program_name.c_str(),
                                static_cast<int>(header_texts.size()), header_texts.data(), header_names.data()),
      "nvrtcCreateProgram");

  const bool real_arch = arch_.rfind("sm_", 0) == 0;
  std::vector<std::string> options{"--gpu-architecture=" + arch_, "-std=c++17"};
  if (real_arch) options.push_back("--ptxas-options=-v");  // the resource report lands in the log
  for (const auto& [name, value] : source.macros) options.push_back("-D" + name + "=" + value);
  for (const auto& dir : config_.include_dirs) options.push_back("-I" + dir.string());
  for (const auto& o : source.options) options.push_back(o);
  std::vector<const char*> option_ptrs;
  for (const auto& o : options) option_ptrs.push_back(o.c_str());

  const nvrtcResult result =
      prog.nvrtc.compile_program(prog.program, static_cast<int>(option_ptrs.size()), option_ptrs.data());
  std::size_t log_size = 0;
  prog.nvrtc.get_program_log_size(prog.program, &log_size);
  std::string log(log_size, '\0');
  if (log_size) prog.nvrtc.get_program_log(prog.program, log.data());
  while (!log.empty() && log.back() == '\0') log.pop_back();
  if (result != NVRTC_SUCCESS) {
    throw CompileError("kernel " + source.file + (source.label.empty() ? "" : " (" + source.label + ")") +
                           " does not compile (" + prog.nvrtc.get_error_string(result) + "):\n" + log,
                       log);
  }

  auto program = std::make_shared<CompiledProgram>();
  program->source = source;
  program->arch = arch_;
  program->log = std::move(log);
  program->files = snap.paths();
  std::size_t ptx_size = 0;
  check_nvrtc(prog.nvrtc.get_ptx_size(prog.program, &ptx_size), "nvrtcGetPTXSize");
  program->ptx.assign(ptx_size, '\0');
  check_nvrtc(prog.nvrtc.get_ptx(prog.program, program->ptx.data()), "nvrtcGetPTX");
  while (!program->ptx.empty() && program->ptx.back() == '\0') program->ptx.pop_back();
  if (real_arch) {
    std::size_t cubin_size = 0;
    check_nvrtc(prog.nvrtc.get_cubin_size(prog.program, &cubin_size), "nvrtcGetCUBINSize");
    program->image.assign(cubin_size, '\0');
    check_nvrtc(prog.nvrtc.get_cubin(prog.program, program->image.data()), "nvrtcGetCUBIN");
  } else {
    program->image = program->ptx;  // std::string keeps the terminating NUL the loader wants
  }
  program->compile_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  fill_reports(*program);
  return program;
}

std::shared_ptr<const CompiledProgram> KernelEngine::load_from_disk(const std::string& key, const KernelSource& source,
                                                                    const SourceSnapshot& snap) const {
  if (!config_.cache_dir || config_.cache_dir->empty()) return nullptr;
  const auto base = *config_.cache_dir / key;
  auto program = std::make_shared<CompiledProgram>();
  // The image is written last, so its presence means the entry is complete.
  if (!read_file(base.string() + ".image", program->image)) return nullptr;
  if (!read_file(base.string() + ".ptx", program->ptx) || !read_file(base.string() + ".log", program->log))
    return nullptr;
  program->source = source;
  program->key = key;
  program->arch = arch_;
  program->files = snap.paths();
  program->from_disk_cache = true;
  fill_reports(*program);
  return program;
}

void KernelEngine::save_to_disk(const CompiledProgram& program) const {
  if (!config_.cache_dir || config_.cache_dir->empty()) return;
  try {
    std::filesystem::create_directories(*config_.cache_dir);
    const auto base = (*config_.cache_dir / program.key).string();
    write_file_atomically(base + ".ptx", program.ptx);
    write_file_atomically(base + ".log", program.log);
    write_file_atomically(base + ".image", program.image);
  } catch (const std::exception& e) {
    // A cache that cannot be written costs a recompile next time, nothing more: say so once.
    static std::once_flag warned;
    std::call_once(warned, [&] { std::fprintf(stderr, "nbodylab: not caching compiled kernels (%s)\n", e.what()); });
  }
}

std::shared_ptr<KernelEngine> shared_kernel_engine(const std::filesystem::path& kernels_dir) {
  static std::mutex mutex;
  static std::map<std::filesystem::path, std::shared_ptr<KernelEngine>> engines;
  std::lock_guard lock(mutex);
  auto& engine = engines[kernels_dir];
  if (!engine) engine = std::make_shared<KernelEngine>(kernel_config_for(kernels_dir));
  return engine;
}

KernelEngine::Config kernel_config_for(const std::filesystem::path& kernels_dir) {
  KernelEngine::Config config;
  config.kernels_dir = kernels_dir;
  return config;
}

// ---------------------------------------------------------------------------------------------------

KernelModule::KernelModule(std::shared_ptr<const CompiledProgram> program, Loading loading)
    : program_(std::move(program)) {
  cudaLibrary_t library = nullptr;
  NBL_CUDA_CHECK(cudaLibraryLoadData(&library, program_->image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  library_ = library;
  if (loading == Loading::every_kernel) loading_ = load_every_kernel(library_);
}

std::optional<int> KernelModule::unloaded_kernels() const { return nbl::unloaded_kernels(library_); }

KernelModule::~KernelModule() {
  if (library_) cudaLibraryUnload(static_cast<cudaLibrary_t>(library_));  // never throws from a destructor
}

const void* KernelModule::kernel(std::string_view name) const {
  std::lock_guard lock(mutex_);
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second;
  cudaKernel_t k = nullptr;
  const std::string key(name);
  const cudaError_t status = cudaLibraryGetKernel(&k, static_cast<cudaLibrary_t>(library_), key.c_str());
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw Error("kernel " + program_->source.file + " has no entry point '" + key + "' (" + cudaGetErrorString(status) +
                ")");
  }
  kernels_.emplace(key, reinterpret_cast<const void*>(k));
  return reinterpret_cast<const void*>(k);
}

bool KernelModule::has_kernel(std::string_view name) const { return program_->entry(name) != nullptr; }

KernelModule::Symbol KernelModule::global(std::string_view name) const {
  Symbol s;
  const std::string key(name);
  NBL_CUDA_CHECK(cudaLibraryGetGlobal(&s.device_ptr, &s.bytes, static_cast<cudaLibrary_t>(library_), key.c_str()));
  return s;
}

void KernelModule::write_global(std::string_view name, const std::vector<unsigned char>& bytes, void* stream) const {
  std::lock_guard lock(mutex_);
  auto it = written_globals_.find(name);
  if (it != written_globals_.end() && it->second == bytes) return;
  void* device_ptr = nullptr;
  std::size_t size = 0;
  const std::string key(name);
  NBL_CUDA_CHECK(cudaLibraryGetGlobal(&device_ptr, &size, static_cast<cudaLibrary_t>(library_), key.c_str()));
  if (size != bytes.size())
    throw Error("kernel " + program_->source.file + ": " + key + " is " + std::to_string(size) + " bytes, the host's " +
                std::to_string(bytes.size()) + " (the shared header was compiled differently on the two sides)");
  NBL_CUDA_CHECK(
      cudaMemcpyAsync(device_ptr, bytes.data(), size, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream)));
  written_globals_[key] = bytes;
}

namespace {

// The loaded modules nobody uses (own_module): the most recently let go first.
class ModulePool {
 public:
  static ModulePool& get() {
    static ModulePool& pool = *new ModulePool;  // never destroyed: at exit the driver unloads what is left
    return pool;
  }
  std::unique_ptr<KernelModule> take(const CompiledProgram& program) {
    std::lock_guard lock(mutex_);
    for (auto it = idle_.begin(); it != idle_.end(); ++it) {
      if ((*it)->program().key == program.key) {  // the caches' identity: source, headers, options, arch, NVRTC
        std::unique_ptr<KernelModule> m = std::move(*it);
        idle_.erase(it);
        return m;
      }
    }
    return nullptr;
  }
  void give_back(std::unique_ptr<KernelModule> module) {
    std::unique_ptr<KernelModule> evicted;
    {
      std::lock_guard lock(mutex_);
      idle_.push_front(std::move(module));
      if (idle_.size() > kIdleModules) {
        evicted = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    // `evicted` is unloaded here, outside the lock.
  }
  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return idle_.size();
  }

 private:
  mutable std::mutex mutex_;
  std::list<std::unique_ptr<KernelModule>> idle_;
};

}  // namespace

std::shared_ptr<KernelModule> own_module(const std::shared_ptr<const CompiledProgram>& program) {
  std::unique_ptr<KernelModule> module = ModulePool::get().take(*program);
  if (!module) module = std::make_unique<KernelModule>(program);
  return std::shared_ptr<KernelModule>(module.release(), [](KernelModule* m) {
    std::unique_ptr<KernelModule> owned(m);
    if (IdleRelease::here()) ModulePool::get().give_back(std::move(owned));
  });
}

std::size_t idle_modules() { return ModulePool::get().size(); }

// ---------------------------------------------------------------------------------------------------

WatchedProgram::WatchedProgram(KernelEngine& engine, KernelSource source, std::chrono::milliseconds min_interval)
    : engine_(engine), source_(std::move(source)), min_interval_(min_interval) {
  current_ = engine_.compile(source_);
  stamps_ = stamps(current_->files);
  last_check_ = std::chrono::steady_clock::now();
}

std::vector<WatchedProgram::Stamp> WatchedProgram::stamps(const std::vector<std::filesystem::path>& files) {
  std::vector<Stamp> out;
  for (const auto& f : files) {
    Stamp s{f};
    std::error_code ec;
    const auto t = std::filesystem::last_write_time(f, ec);
    if (!ec) s.mtime = static_cast<long long>(t.time_since_epoch().count());
    const auto size = std::filesystem::file_size(f, ec);
    if (!ec) s.size = static_cast<long long>(size);
    out.push_back(s);
  }
  return out;
}

WatchedProgram::Change WatchedProgram::poll(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_check_ < min_interval_) return Change::none;
  last_check_ = now;
  std::vector<std::filesystem::path> files;
  for (const auto& s : stamps_) files.push_back(s.path);
  auto now_stamps = stamps(files);
  if (now_stamps == stamps_) return Change::none;
  stamps_ = std::move(now_stamps);
  try {
    auto program = engine_.compile(source_);
    stamps_ = stamps(program->files);     // an edit may have added or removed an include
    if (program->key == current_->key) {  // back to the running text (an undo, or only touched)
      candidate_.reset();
      failed_ = false;
      failure_log_.clear();
      return Change::none;
    }
    candidate_ = std::move(program);
    return Change::compiled;
  } catch (const CompileError& e) {
    candidate_.reset();
    failed_ = true;
    failure_log_ = e.log().empty() ? e.what() : e.log();
    return Change::failed;
  }
}

bool WatchedProgram::files_changed(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_check_ < min_interval_) return false;
  last_check_ = now;
  std::vector<std::filesystem::path> files;
  for (const auto& s : stamps_) files.push_back(s.path);
  auto now_stamps = stamps(files);
  if (now_stamps == stamps_) return false;
  stamps_ = std::move(now_stamps);
  return true;
}

void WatchedProgram::mark_failed(const std::string& why) {
  failed_ = true;
  failure_log_ = why;
}

void WatchedProgram::accept() {
  if (!candidate_) return;
  current_ = std::move(candidate_);
  candidate_.reset();
  failed_ = false;
  failure_log_.clear();
}

void WatchedProgram::reject(const std::string& why) {
  failed_ = true;
  failure_log_ = why;
  if (candidate_ && !candidate_->log.empty()) failure_log_ += "\n" + candidate_->log;
  candidate_.reset();
}

}  // namespace nbl
