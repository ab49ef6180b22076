// The kernel variant engine (docs/architecture.md, the kernels): a variant is a kernel source file under
// cuda/kernels/, the macros its toggles became and a few compiler options. NVRTC compiles it for the
// GPU in front of us; the result is cached in memory and on disk, keyed by a hash of the source text
// (with every file it includes), the options, the architecture and the NVRTC version, so the second
// start loads instead of compiling. Modules load through the CUDA runtime's library API: the program
// never links the driver API, and still starts (CPU backends) on a machine without a driver.
//
// Generic: the all-pairs switchboard (cuda/allpairs/variant.hpp) and the Barnes-Hut backend both feed
// it KernelSources. Nothing here needs a GPU except KernelModule: compiling, the generated-code report
// and hot-reload bookkeeping run anywhere (tests, `nbodylab kernels --check`).
#pragma once
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cuda/engine/kernel_loading.hpp"
#include "cuda/engine/ptx_analysis.hpp"
#include "sim/backend.hpp"
#include "sim/error.hpp"

namespace nbl {

// What to compile.
struct KernelSource {
  std::string file;                                         // relative to the kernels directory
  std::vector<std::pair<std::string, std::string>> macros;  // -D NAME=VALUE, in this order
  std::vector<std::string> options;                         // further NVRTC options ("-ftz=true", ...)
  std::string label;  // what the variant is, for people ("float4 shared unroll=32 ..."); not hashed

  bool same_code(const KernelSource& o) const { return file == o.file && macros == o.macros && options == o.options; }
};

// NVRTC rejected a source: the message names the file, log() is the compiler's full output.
class CompileError : public Error {
 public:
  CompileError(const std::string& what, std::string log) : Error(what), log_(std::move(log)) {}
  const std::string& log() const { return log_; }

 private:
  std::string log_;
};

// A source file and every file it includes ("..." includes, searched beside the including file and
// then in the include directories), read at one moment. The cache key hashes exactly this text, and
// NVRTC compiles exactly this text: headers are handed to it from here, so an edit between hashing
// and compiling cannot slip in.
struct SourceSnapshot {
  struct File {
    std::string include_name;  // as written in the #include ("" for the main file)
    std::filesystem::path path;
    std::string text;
  };
  File main;
  std::vector<File> headers;
  std::vector<std::filesystem::path> paths() const;
};

// One compiled variant: the loadable image, its PTX, the compiler's log, and what they say.
struct CompiledProgram {
  KernelSource source;
  std::string key;    // the cache key (hex)
  std::string arch;   // "sm_90": image is a cubin; "compute_90": image is PTX for the driver to JIT
  std::string image;  // what cudaLibraryLoadData gets
  std::string ptx;
  std::string log;                           // NVRTC's messages, including ptxas's resource report (-v)
  std::vector<std::filesystem::path> files;  // the source and everything it includes
  bool from_disk_cache = false;
  double compile_ms = 0;               // NVRTC time (0 for a cache hit)
  std::vector<PtxEntryStats> entries;  // per entry point: instruction mix, hot loop
  std::vector<PtxasStats> resources;   // per function: registers, spills, shared memory

  const PtxEntryStats* entry(std::string_view name) const;
  const PtxasStats* resource(std::string_view name) const;
  // The generated-code report for one entry point (sim/backend.hpp, the panel's view).
  KernelInfo kernel_info(std::string_view entry_name) const;
};

class KernelEngine {
 public:
  struct Config {
    std::filesystem::path kernels_dir;  // empty: find_resource("cuda/kernels")
    // Empty: the kernels dir, and for "physics/..." the kernels dir itself when it holds physics/ (a
    // workspace made by `nbodylab kernels --export`), else the resource root.
    std::vector<std::filesystem::path> include_dirs;
    std::string arch;                                // empty: this GPU's (sm_XY), or sm_90 without one
    std::optional<std::filesystem::path> cache_dir;  // unset: default_cache_dir(); empty: no disk cache
  };

  explicit KernelEngine(Config config = {});

  // Memory cache, then disk cache, then NVRTC. Throws CompileError (with the log) when the source does
  // not compile or cannot be read. Thread-safe; compiles of different variants run in parallel.
  std::shared_ptr<const CompiledProgram> compile(const KernelSource& source);

  SourceSnapshot snapshot(const KernelSource& source) const;
  std::string cache_key(const SourceSnapshot& snapshot, const KernelSource& source) const;

  const std::string& arch() const { return arch_; }
  const std::filesystem::path& kernels_dir() const { return config_.kernels_dir; }
  const std::optional<std::filesystem::path>& cache_dir() const { return config_.cache_dir; }

  struct Counters {
    int compiled = 0, memory_hits = 0, disk_hits = 0;
  };
  Counters counters() const;

  // $NBODYLAB_KERNEL_CACHE ("off" disables), else $XDG_CACHE_HOME/nbodylab/kernels, else
  // ~/.cache/nbodylab/kernels; empty when none can be named.
  static std::filesystem::path default_cache_dir();
  static std::string nvrtc_version();  // throws Error, saying what to install, without NVRTC
  // Whether NVRTC can be loaded (cuda/engine/nvrtc_library.hpp); `why` gets what is missing when not.
  static bool nvrtc_available(std::string* why = nullptr);
  // The compute capabilities this NVRTC compiles for (75, 80, ...); empty without NVRTC.
  static std::vector<int> supported_archs();
  // The architecture NVRTC should target for a GPU of compute capability major.minor: sm_XY when NVRTC
  // knows it, else compute_XY of the newest one it knows below (PTX the driver compiles).
  static std::string arch_for(int major, int minor);

 private:
  std::shared_ptr<const CompiledProgram> load_from_disk(const std::string& key, const KernelSource& source,
                                                        const SourceSnapshot& snapshot) const;
  void save_to_disk(const CompiledProgram& program) const;
  std::shared_ptr<CompiledProgram> run_nvrtc(const KernelSource& source, const SourceSnapshot& snapshot) const;

  Config config_;
  std::string arch_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const CompiledProgram>> memory_;
  Counters counters_;
};

// The default configuration, compiling the sources in `kernels_dir` (empty: the installed ones).
KernelEngine::Config kernel_config_for(const std::filesystem::path& kernels_dir);

// The engine the backends share when none is given to them: one memory cache for the whole process per
// kernels folder (empty: the installed kernels; else a workspace, Settings::kernels_dir), created on
// first use with the default configuration otherwise.
std::shared_ptr<KernelEngine> shared_kernel_engine(const std::filesystem::path& kernels_dir = {});

// A compiled program loaded on the current device (RAII: cudaLibraryLoadData in the constructor,
// cudaLibraryUnload in the destructor). Kernel handles are `const void*` (a cudaKernel_t), what
// cudaLaunchKernel / cudaLaunchKernelExC take, so this header stays free of CUDA types.
//
// Every kernel is loaded into the context by the constructor (cuda/engine/kernel_loading.hpp), on the thread
// that makes the module: a build's worker. Left to lazy loading, a kernel its check never launched
// (the kicks, the vertex writer) was loaded at its first launch on the frame loop's thread, and loading
// synchronizes the context. Unloading waits for the device too: a module the frame loop stops using is
// destroyed on the build queue's teardown worker (cuda/retire.hpp).
class KernelModule {
 public:
  enum class Loading { every_kernel, lazy };  // lazy: as the driver does it (tests compare the two)
  explicit KernelModule(std::shared_ptr<const CompiledProgram> program, Loading loading = Loading::every_kernel);
  ~KernelModule();
  KernelModule(const KernelModule&) = delete;
  KernelModule& operator=(const KernelModule&) = delete;

  const void* kernel(std::string_view name) const;  // throws Error when the module has no such entry
  bool has_kernel(std::string_view name) const;
  struct Symbol {
    void* device_ptr = nullptr;
    std::size_t bytes = 0;
  };
  Symbol global(std::string_view name) const;  // a __constant__ or __device__ variable

  // Copies `bytes` into a __constant__ variable on `stream` (a cudaStream_t), unless it already holds
  // them: every writer of a module's constants goes through here, so the memo cannot go stale.
  void write_global(std::string_view name, const std::vector<unsigned char>& bytes, void* stream) const;

  const CompiledProgram& program() const { return *program_; }
  const std::shared_ptr<const CompiledProgram>& program_ptr() const { return program_; }

  // How many of its kernels are not loaded into the current context yet (0 once constructed, unless
  // Loading::lazy); nothing when the driver cannot say.
  std::optional<int> unloaded_kernels() const;
  // What loading every kernel found (Loading::every_kernel; empty otherwise): the kernels, the largest
  // per-thread local memory among them, and why some may still load at their first launch.
  const KernelLoading& loading() const { return loading_; }

 private:
  std::shared_ptr<const CompiledProgram> program_;
  void* library_ = nullptr;  // cudaLibrary_t
  KernelLoading loading_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, const void*, std::less<>> kernels_;
  mutable std::map<std::string, std::vector<unsigned char>, std::less<>> written_globals_;
};

// A module of its own for each user of a compiled program (a running variant, A/B's B, a build's check
// on a worker): a module's __constant__ parameters are its users' shared state, and two users on two
// streams overwrote each other's between a write and the launch that read it (on the H100, a check on
// a worker left the running kernels pointing at its freed scratch: an illegal address).
//
// Loading and unloading a module wait for every kernel on the GPU, whoever launched them, and a frame
// that launches meanwhile waits with them (H200, driver 580: swap_gpu_test's table). So a module let go
// while an IdleRelease lives on the thread (cuda/buffer.hpp: its users' streams are known to be done
// with it, as on the teardown worker after a swap) stays loaded in a pool, and the next own_module of
// the same program takes it instead of loading one: a switch toggled back and forth loads and unloads
// nothing. Up to kIdleModules wait there; beyond that the longest-waiting one is unloaded. Let go
// anywhere else, a module is unloaded as before (waiting for the GPU then keeps its last launches safe).
// Thread-safe.
std::shared_ptr<KernelModule> own_module(const std::shared_ptr<const CompiledProgram>& program);
inline constexpr std::size_t kIdleModules = 64;
std::size_t idle_modules();  // how many wait in the pool now

// Hot reload: a variant that follows its files on disk. poll() looks at the modification time and
// size of the source and of everything it includes, at most every `min_interval`; when one changed it
// recompiles. A success becomes candidate(): the caller checks it (against the reference) and then
// accept()s or reject()s it. A failure keeps current() and keeps the log. No GPU needed.
class WatchedProgram {
 public:
  // Compiles `source` now (throws CompileError).
  WatchedProgram(KernelEngine& engine, KernelSource source,
                 std::chrono::milliseconds min_interval = std::chrono::milliseconds(500));

  enum class Change { none, compiled, failed };
  Change poll(bool force = false);
  // Whether a file changed since the last look (at most every min_interval unless `force`), without
  // compiling: the caller compiles elsewhere (a worker thread). The new stamps count as seen.
  bool files_changed(bool force = false);
  // Records that the files on disk do not make a build that runs (the compiler log, or the check's
  // refusal): kernel_info shows it until the files change again.
  void mark_failed(const std::string& why);

  const std::shared_ptr<const CompiledProgram>& current() const { return current_; }
  const std::shared_ptr<const CompiledProgram>& candidate() const { return candidate_; }
  void accept();
  void reject(const std::string& why);

  bool reload_failed() const { return failed_; }
  const std::string& failure_log() const { return failure_log_; }  // compiler log or validation report
  const KernelSource& source() const { return source_; }

 private:
  struct Stamp {
    std::filesystem::path path;
    long long mtime = -1;
    long long size = -1;
    bool operator==(const Stamp&) const = default;
  };
  static std::vector<Stamp> stamps(const std::vector<std::filesystem::path>& files);

  KernelEngine& engine_;
  KernelSource source_;
  std::chrono::milliseconds min_interval_;
  std::chrono::steady_clock::time_point last_check_{};
  std::vector<Stamp> stamps_;
  std::shared_ptr<const CompiledProgram> current_, candidate_;
  bool failed_ = false;
  std::string failure_log_;
};

}  // namespace nbl
