// `nbodylab kernels`: what the compiler makes of the all-pairs kernels, no GPU needed (NVRTC only).
//   --list   the generated-code table: every ladder rung and a representative set of toggle values,
//            with registers, spills, shared memory and the hot loop's PTX instruction mix; a kernel that
//            does not compile is a row that says so, its log on stderr, and exit 1
//   --check  compiles every toggle combination that matters and checks that each one's PTX shows
//            what its toggles claim (allpairs_code_violations); exits non-zero when one does not
//   --ptx    prints the PTX of one variant (--variant, default: the default toggles)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unistd.h>

#include "app/core/commands.hpp"
#include "app/core/report.hpp"
#include "app/core/options/run_options.hpp"
#include "cuda/allpairs/variant.hpp"
#include "cuda/barneshut/variant.hpp"
#include "cuda/engine/kernel_engine.hpp"
#include "sim/error.hpp"
#include "sim/file_util.hpp"
#include "sim/ladder.hpp"
#include "sim/resources.hpp"

namespace nbl {

namespace {

// Softening the variants are selected for: > 0, so "self-interaction by softening" stays itself.
constexpr double kSoftening = 0.01;

struct KernelsOptions {
  bool list = false, check = false, ptx = false, quick = false;
  std::vector<std::string> archs;
  std::string variant, json_file, csv_file, kernels_dir, export_dir;
  int jobs = 0;
};

// "sm_75" or "compute_90", and one this NVRTC knows: an InputError listing the ones it does otherwise.
void check_arch(const std::string& arch) {
  const auto underscore = arch.find('_');
  const std::string kind = arch.substr(0, underscore);
  const std::string digits = underscore == std::string::npos ? "" : arch.substr(underscore + 1);
  const bool well_formed = (kind == "sm" || kind == "compute") && !digits.empty() && digits.size() <= 3 &&
                           std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
  const auto known = KernelEngine::supported_archs();
  std::string names;
  for (int a : known) names += (names.empty() ? "" : ", ") + ("sm_" + std::to_string(a));
  const bool known_arch = well_formed && std::find(known.begin(), known.end(), std::stoi(digits)) != known.end();
  if (!known_arch)
    throw InputError("--arch " + arch + ": not an architecture this NVRTC (" + KernelEngine::nvrtc_version() +
                     ") compiles for; it knows " + names);
}

// "layout=soa,unroll=8" on top of the defaults.
ToggleValues parse_variant(const std::string& text) {
  ToggleValues t;
  apply_toggle_changes(text, Algorithm::allpairs, t, "--variant");
  return t;
}

struct Compiled {
  std::string name;  // row label
  AllPairsVariant variant;
  std::shared_ptr<const CompiledProgram> program;
  std::string error;  // compile error
};

// Compiles the distinct variants among `toggles` on `jobs` threads, in the order given.
std::vector<Compiled> compile_all(KernelEngine& engine,
                                  const std::vector<std::pair<std::string, ToggleValues>>& toggles, int jobs) {
  std::vector<Compiled> out;
  for (const auto& [name, t] : toggles) {
    AllPairsVariant v = select_allpairs_variant(t, kSoftening);
    const bool seen =
        std::any_of(out.begin(), out.end(), [&](const Compiled& c) { return c.variant.source.same_code(v.source); });
    if (!seen) out.push_back({name, std::move(v), nullptr, {}});
  }
  std::atomic<std::size_t> next{0};
  std::mutex progress_mutex;
  std::size_t done = 0;
  auto worker = [&] {
    for (std::size_t i = next++; i < out.size(); i = next++) {
      try {
        out[i].program = engine.compile(out[i].variant.source);
      } catch (const CompileError& e) {
        out[i].error = e.log().empty() ? e.what() : e.log();
      } catch (const std::exception& e) {
        out[i].error = e.what();
      }
      std::lock_guard lock(progress_mutex);
      if ((++done % 10 == 0 || done == out.size()) && isatty(2))
        std::fprintf(stderr, "\rcompiled %zu/%zu variants", done, out.size()), std::fflush(stderr);
    }
  };
  const int threads = std::max(1, jobs > 0 ? jobs : static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int i = 0; i < threads; ++i) pool.emplace_back(worker);
  for (auto& th : pool) th.join();
  if (isatty(2)) std::fprintf(stderr, "\r%40s\r", "");
  return out;
}

std::vector<std::pair<std::string, ToggleValues>> representative_variants(const std::string& extra) {
  std::vector<std::pair<std::string, ToggleValues>> out;
  for (std::size_t r = 0; r < kLadder.size(); ++r)
    out.emplace_back(std::to_string(r) + " " + std::string(kLadder[r].name), ladder_toggles(r));
  out.emplace_back("defaults", ToggleValues{});
  for (std::size_t i = 0; i < kToggleCount; ++i) {
    const ToggleDef& def = kToggles[i];
    if (def.algorithm != Algorithm::allpairs) continue;
    std::vector<int> values;
    if (def.key == "unroll") values = {1, 8, 128};
    else if (def.key == "block_size") values = {64, 128, 512, 1024};
    else if (def.key == "bodies_per_thread") values = {1, 2, 8};
    else
      for (int v = def.min_value; v <= def.max_value; v += def.step) values.push_back(v);
    for (int v : values) {
      if (v == def.default_value) continue;
      ToggleValues t;
      t.values[i] = v;
      std::string label = std::string(def.key) + "=";
      label += def.kind == ToggleKind::choice ? std::string(def.choices[static_cast<std::size_t>(v)].name)
                                              : std::to_string(v);
      out.emplace_back(label, t);
    }
  }
  if (!extra.empty()) out.emplace_back("--variant " + extra, parse_variant(extra));
  return out;
}

Table list_table(const std::vector<Compiled>& compiled, const KernelEngine& engine) {
  Table t("Generated code of the all-pairs force kernel (" + engine.arch() + ", NVRTC " +
          KernelEngine::nvrtc_version() + "): hot-loop PTX instructions per interaction");
  t.column("variant", "variant")
      .column("file", "file")
      .column("registers", "regs")
      .column("spill_bytes", "spill B")
      .column("shared_bytes", "smem B")
      .column("loop_bodies", "loop bodies")
      .column("per_interaction", "PTX/int");
  const std::vector<std::pair<const char*, const char*>> classes = {{"fma.f32", "fma"},
                                                                    {"mul.f32", "mul"},
                                                                    {"add.f32", "add"},
                                                                    {"rsqrt", "rsqrt"},
                                                                    {"sqrt", "sqrt"},
                                                                    {"rcp", "rcp"},
                                                                    {"div", "div"},
                                                                    {"f64", "f64"},
                                                                    {"cvt", "cvt"},
                                                                    {"ld.shared", "ld.shared"},
                                                                    {"ld.global", "ld.global"},
                                                                    {"shfl.sync", "shfl"},
                                                                    {"setp", "setp"},
                                                                    {"selp", "selp"},
                                                                    {"bra", "bra"}};
  for (const auto& [cls, heading] : classes) t.column(cls, heading);
  t.column("ld_const", "ld.const*").column("bar_sync", "bar.sync*").column("description", "toggles as they run");
  for (const Compiled& c : compiled) {
    t.row().add(c.name).add(c.variant.source.file);
    if (!c.program) {
      for (std::size_t i = 2; i + 1 < t.columns(); ++i) t.add_empty();
      t.add("does not compile");
      continue;
    }
    const PtxasStats* r = c.program->resource(kAllPairsForceKernel);
    const PtxEntryStats* e = c.program->entry(kAllPairsForceKernel);
    t.add(r ? r->registers : -1, 0)
        .add(r ? r->spill_store_bytes + r->spill_load_bytes : -1, 0)
        .add(r ? r->shared_bytes : -1, 0);
    const double bodies = e ? e->loop_bodies : 0;
    t.add(bodies, 0).add(e ? e->loop_instructions_per_body() : 0, 2);
    for (const auto& [cls, heading] : classes) {
      (void)heading;
      if (bodies > 0) t.add(e->loop_mix[cls] / bodies, 2);
      else t.add_empty();
    }
    t.add(e ? e->mix["ld.const"] : 0, 0).add(e ? e->mix["bar.sync"] : 0, 0).add(c.variant.description);
  }
  t.note(
      "Counts are per interaction in the hot loop (the innermost loop that evaluates interactions); "
      "* columns count the whole kernel. PTX, not SASS: sqrt.rn and rcp.rn expand to several machine "
      "instructions each, rsqrt.approx.ftz to one MUFU.RSQ.");
  t.note(
      "Rows numbered 0.. are the ladder's rungs (nbodylab bench ladder times them); the rest change one toggle "
      "from the defaults.");
  return t;
}

// The Barnes-Hut kernels of each switch setting: resources and the instructions the switches are about.
// A kernel that does not compile gets a row saying so, and its log goes into `failures`.
Table barneshut_list_table(KernelEngine& engine, std::vector<std::string>& failures) {
  Table t("Generated code of the Barnes-Hut kernels (" + engine.arch() + "): one row per kernel and switch setting");
  t.column("variant", "variant")
      .column("kernel", "kernel")
      .column("registers", "regs")
      .column("spill_bytes", "spill B")
      .column("shared_bytes", "smem B")
      .column("rsqrt", "rsqrt")
      .column("vote_all", "vote.all")
      .column("ballot", "ballot")
      .column("shfl", "shfl")
      .column("bar", "bar.*")
      .column("fences", "fences")
      .column("volatile", "ld.volatile")
      .column("nanosleep", "nanosleep")
      .column("total", "PTX instr.")
      .column("loop_bodies", "loop bodies")
      .column("per_interaction", "PTX/int");
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  for (const ToggleValues& toggles : barneshut_toggle_sweep()) {
    const BarnesHutVariant v = barneshut_variant(toggles, true);
    for (const KernelSource* source : {&v.build, &v.summarize, &v.force}) {
      if (source->file.empty()) continue;
      std::shared_ptr<const CompiledProgram> program;
      try {
        program = engine.compile(*source);
      } catch (const CompileError& e) {
        const std::string label = source == &v.force ? v.force.label : source->label;
        t.row().add(label).add(source->file);
        for (std::size_t i = 2; i + 1 < t.columns(); ++i) t.add_empty();
        t.add("does not compile");
        failures.push_back("Barnes-Hut " + label + " (" + source->file + ") does not compile:\n" +
                           (e.log().empty() ? std::string(e.what()) : e.log()));
        continue;
      }
      for (const PtxEntryStats& e : program->entries) {
        if (source == &v.build && v.morton_build && e.name != "bh_radix_tree" && e.name != "bh_octree_emit") continue;
        // The entry's own PTX text: from its .entry line to the next one.
        const std::string& ptx = program->ptx;
        const auto from = ptx.find(".entry " + e.name);
        const auto to = ptx.find(".entry ", from + 1);
        const std::string body = ptx.substr(from, to == std::string::npos ? std::string::npos : to - from);
        const PtxasStats* r = program->resource(e.name);
        t.row().add(source == &v.force ? v.force.label : source->label).add(e.name);
        t.add(r ? r->registers : -1, 0)
            .add(r ? r->spill_store_bytes + r->spill_load_bytes : -1, 0)
            .add(r ? r->shared_bytes : -1, 0);
        t.add(count(body, "rsqrt.approx"), 0)
            .add(count(body, "vote.sync.all"), 0)
            .add(count(body, "vote.sync.ballot"), 0)
            .add(count(body, "shfl.sync"), 0)
            .add(count(body, "bar.sync") + count(body, "bar.red"), 0)
            .add(count(body, "membar.gl") + count(body, "fence.sc"), 0)
            .add(count(body, "ld.volatile"), 0)
            .add(count(body, "nanosleep"), 0)
            .add(e.mix.total(), 0);
        if (source == &v.force && e.has_loop && e.loop_bodies > 0) {
          t.add(e.loop_bodies, 0).add(e.loop_instructions_per_body(), 2);
        } else {
          t.add_empty().add_empty();
        }
      }
    }
  }
  t.note(
      "Counts are PTX instructions in the kernel's code (not executions). The group traversal's shared memory is "
      "dynamic: lists and stacks, sized per block at launch.");
  t.note(
      "PTX/int: the force kernel's hot loop (the innermost loop with the most square roots) per interaction, as in "
      "the all-pairs table. In the group traversal that is the point list applied to every slot of a lane: "
      "loop bodies = unroll x bodies per lane. Quadrupole cells are a loop of their own, with fewer square roots.");
  return t;
}

int run_barneshut_check(KernelEngine& engine) {
  int failures = 0;
  const auto sweep = barneshut_toggle_sweep();
  for (const ToggleValues& t : sweep) {
    for (bool softened : {true, false}) {
      const BarnesHutVariant v = barneshut_variant(t, softened);
      for (const KernelSource* s :
           {&v.bounding_box, &v.build, &v.summarize, &v.sort_bodies, &v.groups, &v.force, &v.integrate}) {
        if (s->file.empty()) continue;
        try {
          engine.compile(*s);
        } catch (const CompileError& e) {
          ++failures;
          std::printf("FAIL  Barnes-Hut %s (%s): does not compile\n%s\n", v.label.c_str(), s->file.c_str(),
                      e.log().c_str());
        }
      }
    }
    for (const auto& problem : barneshut_code_violations(t, engine)) {
      ++failures;
      std::printf("FAIL  Barnes-Hut %s\n", problem.c_str());
    }
  }
  std::printf("Barnes-Hut: %zu switch settings x 2 (softened or not), %d failures\n", sweep.size(), failures);
  return failures;
}

int run_check(KernelEngine& engine, const KernelsOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::pair<std::string, ToggleValues>> toggles;
  for (const auto& t : allpairs_check_combinations(!o.quick)) toggles.emplace_back("", t);
  if (!o.variant.empty()) toggles.emplace_back("", parse_variant(o.variant));
  const auto compiled = compile_all(engine, toggles, o.jobs);
  int failures = 0, claims_failed = 0, spilling = 0;
  for (const Compiled& c : compiled) {
    if (!c.program) {
      ++failures;
      std::printf("FAIL  %s (%s): does not compile\n%s\n", c.variant.description.c_str(), c.variant.source.file.c_str(),
                  c.error.c_str());
      continue;
    }
    const auto violations = allpairs_code_violations(c.variant, *c.program);
    if (!violations.empty()) {
      ++failures;
      claims_failed += static_cast<int>(violations.size());
      std::printf("FAIL  %s (%s)\n", c.variant.description.c_str(), c.variant.source.file.c_str());
      for (const auto& v : violations) std::printf("        %s\n", v.c_str());
    }
    if (const PtxasStats* r = c.program->resource(kAllPairsForceKernel);
        r && r->spill_store_bytes + r->spill_load_bytes > 0)
      ++spilling;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const auto counters = engine.counters();
  std::printf("%zu toggle combinations, %zu distinct variants (%s): %zu passed, %d failed (%d claims)\n",
              toggles.size(), compiled.size(), engine.arch().c_str(),
              compiled.size() - static_cast<std::size_t>(failures), failures, claims_failed);
  std::printf("%d compiled by NVRTC %s, %d from the disk cache, %.1f s", counters.compiled,
              KernelEngine::nvrtc_version().c_str(), counters.disk_hits, seconds);
  if (spilling) std::printf("; %d variants spill registers to local memory (slow, not wrong)", spilling);
  std::printf("\n");
  failures += run_barneshut_check(engine);
  return failures ? kExitError : kExitOk;
}

}  // namespace

Command add_kernels_command(CLI::App& root) {
  auto o = std::make_shared<KernelsOptions>();
  CLI::App* sub = root.add_subcommand(
      "kernels", "What the compiler makes of every kernel variant (NVRTC; no GPU needed): --list, --check, --ptx");
  sub->add_flag("--list", o->list, "Print the generated-code table: registers, spills, shared memory, PTX mix");
  sub->add_flag("--check", o->check,
                "Compile every toggle combination that matters and check each PTX shows what its toggles claim");
  sub->add_flag("--quick", o->quick, "--check: a spread of unroll factors and block sizes instead of every one");
  sub->add_flag("--ptx", o->ptx, "Print the PTX of one variant (--variant; default: the default toggles)");
  sub->add_option("--variant", o->variant, "Toggles on top of the defaults, e.g. layout=soa,unroll=8,tiling=shuffle");
  sub->add_option("--arch", o->archs,
                  "Target architectures, comma-separated, e.g. sm_75,sm_80,sm_86,sm_89,sm_90 (default: this GPU's, or "
                  "sm_90 without one); --list, --check and --ptx run once per architecture")
      ->delimiter(',');
  sub->add_option("--kernels", o->kernels_dir,
                  "Compile the kernel sources in this folder (made by --export) instead of the installed ones");
  sub->add_option("--export", o->export_dir,
                  "Copy the kernel sources and the physics headers they include into this new or empty folder, to edit "
                  "them; then run with --kernels DIR (the window recompiles them when they change)");
  sub->add_option("--jobs", o->jobs, "Parallel compiles (default: one per core)")->check(CLI::Range(1, 256));
  sub->add_option("--json", o->json_file, "--list: also write the table as JSON to this file");
  sub->add_option("--csv", o->csv_file, "--list: also write the table as CSV to this file");
  return {sub, [o] {
            if (!o->export_dir.empty()) {
              if (o->list || o->check || o->ptx)
                throw InputError("--export copies the sources and does nothing else; run --list/--check on its own");
              check_output_folder(o->export_dir, "--export");
              const int files = export_kernel_sources(o->export_dir);
              std::printf(
                  "exported %d kernel files (and the physics headers they include) from %s to %s\n"
                  "edit them there and run with --kernels %s (the window recompiles a kernel when its file changes)\n",
                  files, find_resource("cuda/kernels").string().c_str(), o->export_dir.c_str(), o->export_dir.c_str());
              return kExitOk;
            }
            if (!o->list && !o->check && !o->ptx) o->list = true;
            check_output_file(o->json_file, "--json");
            check_output_file(o->csv_file, "--csv");
            check_distinct_outputs({{"--json", o->json_file}, {"--csv", o->csv_file}});
            if (!o->kernels_dir.empty()) check_kernels_workspace(o->kernels_dir);
            KernelEngine::nvrtc_version();                 // throws, saying what to install, when NVRTC is missing
            if (o->archs.empty()) o->archs.push_back("");  // this GPU's, or sm_90
            for (const auto& arch : o->archs)
              if (!arch.empty()) check_arch(arch);
            if (o->archs.size() > 1 && (!o->json_file.empty() || !o->csv_file.empty()))
              throw InputError("--json and --csv take one architecture's table; give one --arch");
            int status = kExitOk;
            for (const auto& arch : o->archs) {
              KernelEngine::Config config;
              config.kernels_dir = o->kernels_dir;
              config.arch = arch;
              KernelEngine engine(config);
              if (o->archs.size() > 1) std::printf("== %s\n", engine.arch().c_str());
              if (o->ptx) {
                const AllPairsVariant v = select_allpairs_variant(parse_variant(o->variant), kSoftening);
                std::printf("// %s (%s)\n%s", v.description.c_str(), v.source.file.c_str(),
                            engine.compile(v.source)->ptx.c_str());
              }
              if (o->list) {
                const auto compiled = compile_all(engine, representative_variants(o->variant), o->jobs);
                std::vector<std::string> failures;
                std::map<std::string, std::string> first_with_log;  // one broken header fails many variants alike
                for (const Compiled& c : compiled) {
                  if (c.program) continue;
                  const std::string what = c.name + " (" + c.variant.source.file + ") does not compile";
                  const auto [first, fresh] = first_with_log.emplace(c.error, c.name);
                  failures.push_back(what + (fresh ? ":\n" + c.error : ": the same log as " + first->second));
                }
                const Table t = list_table(compiled, engine);
                const Table bh = barneshut_list_table(engine, failures);
                std::printf("%s\n%s\n", t.text().c_str(), bh.text().c_str());
                if (!o->json_file.empty()) write_tables_json(o->json_file, {t, bh});
                if (!o->csv_file.empty()) write_tables_csv(o->csv_file, {t, bh});
                // The table says "does not compile"; the compiler's log says why, and the run fails.
                std::fflush(stdout);
                for (const std::string& f : failures) std::fprintf(stderr, "nbodylab: %s\n", f.c_str());
                if (!failures.empty()) status = kExitError;
              }
              if (o->check && run_check(engine, *o) != kExitOk) status = kExitError;
            }
            return status;
          }};
}

}  // namespace nbl
