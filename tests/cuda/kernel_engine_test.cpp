// The kernel variant engine without a GPU: what it hashes, what it caches, how it reports a failed
// compile, and hot reload (an edited kernel that breaks keeps the last good build and exposes the log;
// fixing it reloads).
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "cuda/allpairs/variant.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "kernel_test_support.hpp"
#include "sim/error.hpp"
#include "sim/resources.hpp"

namespace nbl {
namespace {

using test::ScratchDir;

void write(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
}

std::string read(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Replaces the first `from` in `file` by `to` (the test fails if there is none).
void edit(const std::filesystem::path& file, const std::string& from, const std::string& to) {
  std::string text = read(file);
  const auto at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << file;
  text.replace(at, from.size(), to);
  write(file, text);
}

KernelSource default_source() { return select_allpairs_variant(ToggleValues{}, 0.01).source; }

TEST(KernelEngine, SnapshotHoldsTheSourceAndEveryFileItIncludes) {
  KernelEngine engine(test::sm90_config());
  const SourceSnapshot snap = engine.snapshot(default_source());
  std::vector<std::string> names;
  for (const auto& h : snap.headers) names.push_back(h.include_name);
  for (const char* expected :
       {"allpairs_common.cuh", "allpairs_params.h", "physics/gravity.hpp", "physics/hd.hpp", "allpairs_advance.cuh"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  EXPECT_EQ(snap.main.path.filename(), "allpairs_shared.cu");
}

TEST(KernelEngine, AnExportedWorkspaceIsCompiledFromItsOwnFilesPhysicsIncluded) {
  test::ScratchDir dir("nbl-workspace");
  const auto workspace = dir.path() / "kernels";
  EXPECT_GT(export_kernel_sources(workspace), 10);
  EXPECT_NO_THROW(check_kernels_workspace(workspace));
  KernelEngine::Config config = kernel_config_for(workspace);
  config.arch = "sm_90";
  config.cache_dir = std::filesystem::path();
  KernelEngine engine(config);
  const SourceSnapshot snap = engine.snapshot(default_source());
  const auto root = std::filesystem::weakly_canonical(workspace).string();
  for (const auto& path : snap.paths())
    EXPECT_EQ(std::filesystem::weakly_canonical(path).string().rfind(root, 0), 0u) << path << " is outside " << root;
  // An edit of the workspace's physics header changes what is compiled.
  const std::string before = engine.cache_key(snap, default_source());
  std::ofstream(workspace / "physics" / "gravity.hpp", std::ios::app) << "\n// edited\n";
  EXPECT_NE(engine.cache_key(engine.snapshot(default_source()), default_source()), before);
  EXPECT_THROW(export_kernel_sources(workspace), InputError) << "an export never overwrites";
  EXPECT_THROW(check_kernels_workspace(dir.path() / "nowhere"), InputError);
  EXPECT_THROW(check_kernels_workspace(dir.path()), InputError) << "a folder without kernel sources";
}

TEST(KernelEngine, CacheKeyCoversIncludedTextMacrosOptionsAndArch) {
  ScratchDir dir("nbl-key");
  auto engine = test::engine_on_copy(dir.path() / "kernels");
  const KernelSource source = default_source();
  const std::string key = engine->cache_key(engine->snapshot(source), source);
  EXPECT_EQ(key, engine->cache_key(engine->snapshot(source), source));  // deterministic

  KernelSource other_macro = source;
  other_macro.macros.back().second += "0";
  EXPECT_NE(key, engine->cache_key(engine->snapshot(other_macro), other_macro));
  KernelSource other_option = source;
  other_option.options.push_back("--use_fast_math");
  EXPECT_NE(key, engine->cache_key(engine->snapshot(other_option), other_option));
  KernelSource relabelled = source;
  relabelled.label = "a different name";
  EXPECT_EQ(key, engine->cache_key(engine->snapshot(relabelled), relabelled));  // the label is for people

  edit(dir.path() / "kernels" / "allpairs_common.cuh", "#pragma once", "#pragma once\n// an edit in an include");
  EXPECT_NE(key, engine->cache_key(engine->snapshot(source), source));

  KernelEngine::Config c = test::sm90_config(std::filesystem::path());
  c.arch = "sm_80";
  KernelEngine sm80(c);
  const SourceSnapshot snap = sm80.snapshot(source);
  EXPECT_NE(sm80.cache_key(snap, source), test::sm90_engine()->cache_key(snap, source));
}

TEST(KernelEngine, CompiledProgramHasCubinPtxAndResourceReport) {
  auto engine = test::sm90_engine();
  const auto program = engine->compile(default_source());
  EXPECT_EQ(program->arch, "sm_90");
  EXPECT_FALSE(program->image.empty());
  EXPECT_NE(program->ptx.find(".entry allpairs_force"), std::string::npos);
  EXPECT_NE(program->log.find("Used"), std::string::npos) << "ptxas -v output expected in the log";
  const KernelInfo info = program->kernel_info(kAllPairsForceKernel);
  EXPECT_GT(info.registers, 0);
  EXPECT_EQ(info.spill_bytes, 0);
  EXPECT_EQ(info.shared_bytes, 16 * 256);
  EXPECT_FALSE(info.instruction_mix.empty());
  EXPECT_NE(program->files.size(), 1u);
}

// NVRTC (CUDA 12.9+) with a driver present skips ptxas for code in the driver's compute cache and
// then omits the resource report; the engine turns that cache off. Without a driver (CI) this passes
// trivially; on the GPU machine it failed before that fix.
TEST(KernelEngine, EveryFreshCompileOfTheSameProgramCarriesItsResourceReport) {
  for (int i = 0; i < 2; ++i) {
    KernelEngine engine(test::sm90_config(std::filesystem::path{}));  // no disk cache
    const auto program = engine.compile(default_source());
    EXPECT_EQ(engine.counters().compiled, 1);
    EXPECT_NE(program->log.find("Used"), std::string::npos) << "compile " << i << " log:\n" << program->log;
  }
}

TEST(KernelEngine, SecondCompileIsServedFromMemory) {
  auto engine = test::sm90_engine();
  const auto first = engine->compile(default_source());
  const auto second = engine->compile(default_source());
  EXPECT_EQ(first.get(), second.get());
  EXPECT_GE(engine->counters().memory_hits, 1);
}

TEST(KernelEngine, SecondEngineLoadsFromTheDiskCache) {
  ScratchDir cache("nbl-cache");
  const KernelSource source = select_allpairs_variant(ToggleValues{}, 0.02).source;
  std::string ptx;
  {
    KernelEngine first(test::sm90_config(cache.path()));
    const auto program = first.compile(source);
    EXPECT_FALSE(program->from_disk_cache);
    EXPECT_EQ(first.counters().compiled, 1);
    EXPECT_GT(program->kernel_info(kAllPairsForceKernel).registers, 0) << "fresh log:\n"
                                                                       << program->log.substr(0, 1200);
    ptx = program->ptx;
  }
  KernelEngine second(test::sm90_config(cache.path()));
  const auto program = second.compile(source);
  EXPECT_TRUE(program->from_disk_cache);
  EXPECT_EQ(second.counters().compiled, 0);
  EXPECT_EQ(second.counters().disk_hits, 1);
  EXPECT_EQ(program->ptx, ptx);
  EXPECT_GT(program->kernel_info(kAllPairsForceKernel).registers, 0)  // the report survives the cache
      << "log read back:\n"
      << program->log.substr(0, 1200);
}

TEST(KernelEngine, CompileErrorCarriesTheCompilerLog) {
  ScratchDir dir("nbl-broken");
  auto engine = test::engine_on_copy(dir.path() / "kernels");
  write(dir.path() / "kernels" / "broken.cu", "extern \"C\" __global__ void k() { this is not C++; }\n");
  try {
    engine->compile({"broken.cu", {}, {}, "broken"});
    FAIL() << "a broken kernel compiled";
  } catch (const CompileError& e) {
    EXPECT_NE(e.log().find("error"), std::string::npos) << e.log();
    EXPECT_NE(std::string(e.what()).find("broken.cu"), std::string::npos);
  }
}

TEST(KernelEngine, MissingSourceIsACompileErrorNamingTheFile) {
  auto engine = test::sm90_engine();
  EXPECT_THROW(engine->compile({"no_such_kernel.cu", {}, {}, ""}), CompileError);
}

TEST(KernelEngine, ArchForKnownGpuIsItsRealArchitecture) {
  EXPECT_EQ(KernelEngine::arch_for(9, 0), "sm_90");
  EXPECT_EQ(KernelEngine::arch_for(8, 0), "sm_80");
}

TEST(HotReload, BrokenEditKeepsTheLastGoodBuildAndExposesTheLog) {
  ScratchDir dir("nbl-reload");
  auto engine = test::engine_on_copy(dir.path() / "kernels");
  WatchedProgram watched(*engine, default_source(), std::chrono::milliseconds(0));
  const auto good = watched.current();
  EXPECT_EQ(watched.poll(true), WatchedProgram::Change::none);  // nothing changed yet

  const auto file = dir.path() / "kernels" / "allpairs_shared.cu";
  edit(file, "__syncthreads();  // everyone is done with it before it is overwritten",
       "__syncthreads()  // a missing semicolon");
  EXPECT_EQ(watched.poll(true), WatchedProgram::Change::failed);
  EXPECT_TRUE(watched.reload_failed());
  EXPECT_NE(watched.failure_log().find("error"), std::string::npos) << watched.failure_log();
  EXPECT_EQ(watched.current(), good);                           // the last good build keeps running
  EXPECT_EQ(watched.poll(true), WatchedProgram::Change::none);  // reported once, not recompiled every poll

  edit(file, "__syncthreads()  // a missing semicolon", "__syncthreads();  // fixed, and different text");
  EXPECT_EQ(watched.poll(true), WatchedProgram::Change::compiled);
  ASSERT_TRUE(watched.candidate());
  EXPECT_EQ(watched.current(), good);  // not swapped until the caller has validated it
  watched.accept();
  EXPECT_NE(watched.current(), good);
  EXPECT_FALSE(watched.reload_failed());
  EXPECT_TRUE(watched.failure_log().empty());
}

TEST(HotReload, EditedIncludeTriggersARecompile) {
  ScratchDir dir("nbl-reload-include");
  auto engine = test::engine_on_copy(dir.path() / "kernels");
  WatchedProgram watched(*engine, default_source(), std::chrono::milliseconds(0));
  edit(dir.path() / "kernels" / "allpairs_common.cuh", "#pragma once", "#pragma once\n// edited");
  EXPECT_EQ(watched.poll(true), WatchedProgram::Change::compiled);
}

TEST(HotReload, RejectedCandidateKeepsTheOldBuildAndSaysWhy) {
  ScratchDir dir("nbl-reload-reject");
  auto engine = test::engine_on_copy(dir.path() / "kernels");
  WatchedProgram watched(*engine, default_source(), std::chrono::milliseconds(0));
  const auto good = watched.current();
  edit(dir.path() / "kernels" / "allpairs_shared.cu", "#include", "// compiles, but validation will fail\n#include");
  ASSERT_EQ(watched.poll(true), WatchedProgram::Change::compiled);
  watched.reject("force error 0.5 on 256 bodies");
  EXPECT_TRUE(watched.reload_failed());
  EXPECT_NE(watched.failure_log().find("force error 0.5"), std::string::npos);
  EXPECT_EQ(watched.current(), good);
  EXPECT_FALSE(watched.candidate());
}

TEST(HotReload, PollIsThrottled) {
  ScratchDir dir("nbl-reload-throttle");
  auto engine = test::engine_on_copy(dir.path() / "kernels");
  WatchedProgram watched(*engine, default_source(), std::chrono::hours(1));
  edit(dir.path() / "kernels" / "allpairs_shared.cu", "#include", "// edited\n#include");
  EXPECT_EQ(watched.poll(), WatchedProgram::Change::none);  // too soon: the files are not even looked at
  EXPECT_EQ(watched.poll(true), WatchedProgram::Change::compiled);
}

}  // namespace
}  // namespace nbl
