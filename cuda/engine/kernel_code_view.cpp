#include "cuda/engine/kernel_code_view.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "cuda/allpairs/variant.hpp"
#include "cuda/barneshut/variant.hpp"
#include "sim/error.hpp"

namespace nbl {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// A comment-free copy of a directive's text (// to the end, /* ... */ inside).
std::string strip_comments(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "//") == 0) break;
    if (s.compare(i, 2, "/*") == 0) {
      const std::size_t end = s.find("*/", i + 2);
      if (end == std::string::npos) break;
      i = end + 1;
      out += ' ';
      continue;
    }
    out += s[i];
  }
  return out;
}

bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether the code of `line` (comments aside) uses `macro`: a check that it is defined at all (the
// kernels' guards against a build without the switchboard) is not a use.
bool uses(const std::string& line, const std::string& macro) {
  const std::string code = strip_comments(line);
  for (std::size_t at = code.find(macro); at != std::string::npos; at = code.find(macro, at + 1)) {
    const bool start = at == 0 || !is_identifier_char(code[at - 1]);
    const bool end = at + macro.size() >= code.size() || !is_identifier_char(code[at + macro.size()]);
    const std::string before = trim(code.substr(0, at));
    const bool guard =
        before.size() >= 7 && (before.compare(before.size() - 7, 7, "defined") == 0 ||
                               (before.size() >= 8 && before.compare(before.size() - 8, 8, "defined(") == 0));
    if (start && end && !guard) return true;
  }
  return false;
}

// #if expressions: integers, macros (undefined ones are 0), defined, and C's operators.
class Expression {
 public:
  Expression(std::string text, const std::map<std::string, std::string>& macros, int depth = 0)
      : text_(std::move(text)), macros_(macros), depth_(depth) {}

  long long evaluate() {
    const long long v = conditional();
    skip_space();
    if (pos_ != text_.size()) throw Error("unexpected \"" + text_.substr(pos_) + "\"");
    return v;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(std::string_view op) {
    skip_space();
    if (text_.compare(pos_, op.size(), op) != 0) return false;
    // "<" must not take "<<" or "<=", "&" not "&&", "|" not "||", "!" not "!=", "=" never alone.
    const char next = pos_ + op.size() < text_.size() ? text_[pos_ + op.size()] : '\0';
    if (op.size() == 1 && (op == "<" || op == ">") && (next == op[0] || next == '=')) return false;
    if (op.size() == 1 && (op == "&" || op == "|") && next == op[0]) return false;
    if (op == "!" && next == '=') return false;
    pos_ += op.size();
    return true;
  }
  long long conditional() {
    const long long c = logical_or();
    if (!take("?")) return c;
    const long long a = conditional();
    if (!take(":")) throw Error("expected ':'");
    const long long b = conditional();
    return c ? a : b;
  }
  long long logical_or() {
    long long v = logical_and();
    while (take("||")) {
      const long long r = logical_and();
      v = v || r;
    }
    return v;
  }
  long long logical_and() {
    long long v = bit_or();
    while (take("&&")) {
      const long long r = bit_or();
      v = v && r;
    }
    return v;
  }
  long long bit_or() {
    long long v = bit_xor();
    while (take("|")) v |= bit_xor();
    return v;
  }
  long long bit_xor() {
    long long v = bit_and();
    while (take("^")) v ^= bit_and();
    return v;
  }
  long long bit_and() {
    long long v = equality();
    while (take("&")) v &= equality();
    return v;
  }
  long long equality() {
    long long v = relational();
    for (;;) {
      if (take("==")) v = v == relational();
      else if (take("!=")) v = v != relational();
      else return v;
    }
  }
  long long relational() {
    long long v = shift();
    for (;;) {
      if (take("<=")) v = v <= shift();
      else if (take(">=")) v = v >= shift();
      else if (take("<")) v = v < shift();
      else if (take(">")) v = v > shift();
      else return v;
    }
  }
  long long shift() {
    long long v = additive();
    for (;;) {
      if (take("<<")) v <<= additive();
      else if (take(">>")) v >>= additive();
      else return v;
    }
  }
  long long additive() {
    long long v = multiplicative();
    for (;;) {
      if (take("+")) v += multiplicative();
      else if (take("-")) v -= multiplicative();
      else return v;
    }
  }
  long long multiplicative() {
    long long v = unary();
    for (;;) {
      if (take("*")) {
        v *= unary();
      } else if (take("/") || take("%")) {
        const bool divide = text_[pos_ - 1] == '/';
        const long long d = unary();
        if (d == 0) throw Error("division by zero");
        v = divide ? v / d : v % d;
      } else {
        return v;
      }
    }
  }
  long long unary() {
    if (take("!")) return !unary();
    if (take("-")) return -unary();
    if (take("+")) return unary();
    if (take("~")) return ~unary();
    return primary();
  }
  std::string identifier() {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_identifier_char(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  long long primary() {
    skip_space();
    if (take("(")) {
      const long long v = conditional();
      if (!take(")")) throw Error("expected ')'");
      return v;
    }
    if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      std::size_t used = 0;
      const long long v = std::stoll(text_.substr(pos_), &used, 0);
      pos_ += used;
      while (pos_ < text_.size() &&
             (text_[pos_] == 'u' || text_[pos_] == 'U' || text_[pos_] == 'l' || text_[pos_] == 'L'))
        ++pos_;
      return v;
    }
    const std::string name = identifier();
    if (name.empty()) throw Error("expected a value at \"" + text_.substr(pos_) + "\"");
    if (name == "defined") {
      const bool paren = take("(");
      const std::string macro = identifier();
      if (paren && !take(")")) throw Error("expected ')' after defined(" + macro);
      return macros_.count(macro) ? 1 : 0;
    }
    if (take("(")) {  // a function-like macro or a built-in: unknown, counts as 0 (skip its arguments)
      int level = 1;
      while (pos_ < text_.size() && level > 0) {
        if (text_[pos_] == '(') ++level;
        if (text_[pos_] == ')') --level;
        ++pos_;
      }
      return 0;
    }
    const auto it = macros_.find(name);
    if (it == macros_.end() || trim(it->second).empty()) return 0;
    if (depth_ > 16) throw Error("macro " + name + " expands too deep");
    return Expression(it->second, macros_, depth_ + 1).evaluate();
  }

  std::string text_;
  const std::map<std::string, std::string>& macros_;
  int depth_;
  std::size_t pos_ = 0;
};

// Conditional inclusion over a snapshot.
class Preprocessor {
 public:
  Preprocessor(const SourceSnapshot& snapshot, const MacroList& macros) : snapshot_(snapshot) {
    defines_ = {{"__CUDACC__", "1"}, {"__CUDACC_RTC__", "1"}, {"__CUDA_ARCH__", "900"}, {"__cplusplus", "201703L"}};
    for (const auto& [name, value] : macros) defines_[name] = value;
  }

  std::vector<SourceLine> run() {
    file(snapshot_.main.path.filename().string(), snapshot_.main.text);
    return out_;
  }

 private:
  struct Branch {
    bool parent_active;  // the enclosing block is active
    bool taken;          // an earlier branch of this #if was active
    bool active;
  };

  void file(const std::string& name, const std::string& text) {
    if (once_.count(name)) return;
    if (depth_ > 32) throw Error(name + ": includes nest too deep");
    ++depth_;
    const std::vector<std::string> lines = split_lines(text);
    std::vector<Branch> stack;
    auto active = [&] { return stack.empty() || stack.back().active; };
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const int number = static_cast<int>(i) + 1;
      std::string directive = lines[i];
      std::size_t last = i;
      while (!directive.empty() && directive.back() == '\\' && last + 1 < lines.size()) {  // continued line
        directive.pop_back();
        directive += " " + lines[++last];
      }
      const std::string t = trim(strip_comments(directive));
      if (t.empty() || t[0] != '#') {
        if (active()) out_.push_back({name, number, lines[i]});
        continue;
      }
      std::string rest = trim(t.substr(1));
      std::size_t word_end = 0;
      while (word_end < rest.size() && is_identifier_char(rest[word_end])) ++word_end;
      const std::string word = rest.substr(0, word_end);
      const std::string arg = trim(rest.substr(word_end));
      const auto where = [&] { return name + ":" + std::to_string(number) + ": "; };
      auto condition = [&](const std::string& expr) {
        try {
          return Expression(expr, defines_).evaluate() != 0;
        } catch (const Error& e) {
          throw Error(where() + "#" + word + " " + expr + ": " + e.what());
        }
      };
      if (word == "if" || word == "ifdef" || word == "ifndef") {
        const bool parent = active();
        bool c = false;
        if (parent) c = word == "if" ? condition(arg) : (defines_.count(trim(arg)) > 0) == (word == "ifdef");
        stack.push_back({parent, c, parent && c});
      } else if (word == "elif") {
        if (stack.empty()) throw Error(where() + "#elif without #if");
        Branch& b = stack.back();
        const bool c = b.parent_active && !b.taken && condition(arg);
        b.active = c;
        b.taken = b.taken || c;
      } else if (word == "else") {
        if (stack.empty()) throw Error(where() + "#else without #if");
        Branch& b = stack.back();
        b.active = b.parent_active && !b.taken;
        b.taken = true;
      } else if (word == "endif") {
        if (stack.empty()) throw Error(where() + "#endif without #if");
        stack.pop_back();
      } else if (!active()) {
        // inside a branch that is not compiled: nothing else counts
      } else if (word == "include" && arg.size() > 2 && arg.front() == '"') {
        const std::string included = arg.substr(1, arg.find('"', 1) - 1);
        const auto header = std::find_if(snapshot_.headers.begin(), snapshot_.headers.end(),
                                         [&](const SourceSnapshot::File& f) { return f.include_name == included; });
        if (header == snapshot_.headers.end()) out_.push_back({name, number, lines[i]});
        else file(included, header->text);
      } else if (word == "pragma" && arg == "once") {
        once_.insert(name);
      } else {
        if (word == "define") {
          std::size_t n = 0;
          while (n < arg.size() && is_identifier_char(arg[n])) ++n;
          const std::string macro = arg.substr(0, n);
          // A function-like macro is defined (for `defined`) but has no value here.
          defines_[macro] = n < arg.size() && arg[n] == '(' ? "" : trim(arg.substr(n));
        } else if (word == "undef") {
          defines_.erase(trim(arg));
        }
        for (std::size_t k = i; k <= last; ++k) out_.push_back({name, static_cast<int>(k) + 1, lines[k]});
      }
      i = last;
    }
    if (!stack.empty()) throw Error(name + ": #if without #endif");
    --depth_;
  }

  const SourceSnapshot& snapshot_;
  std::map<std::string, std::string> defines_;
  std::set<std::string> once_;
  std::vector<SourceLine> out_;
  int depth_ = 0;
};

// Every line of the snapshot's files that names one of `macros`.
void lines_naming(const SourceSnapshot& snap, const std::vector<std::string>& macros, std::vector<SourceLine>& out) {
  auto scan = [&](const std::string& name, const std::string& text) {
    const std::vector<std::string> lines = split_lines(text);
    for (std::size_t i = 0; i < lines.size(); ++i)
      for (const std::string& m : macros)
        if (uses(lines[i], m)) {
          const bool seen = std::any_of(out.begin(), out.end(), [&](const SourceLine& l) {
            return l.file == name && l.line == static_cast<int>(i) + 1;
          });
          if (!seen) out.push_back({name, static_cast<int>(i) + 1, lines[i]});
          break;
        }
  };
  scan(snap.main.path.filename().string(), snap.main.text);
  for (const auto& h : snap.headers) scan(h.include_name, h.text);
}

}  // namespace

std::vector<SourceLine> active_lines(const SourceSnapshot& snapshot, const MacroList& macros) {
  return Preprocessor(snapshot, macros).run();
}

std::vector<DiffLine> diff_lines(const std::vector<SourceLine>& before, const std::vector<SourceLine>& after,
                                 int context) {
  // The common prefix and suffix, then a longest common subsequence over what is left.
  std::size_t prefix = 0;
  while (prefix < before.size() && prefix < after.size() && before[prefix].text == after[prefix].text) ++prefix;
  std::size_t suffix = 0;
  while (suffix < before.size() - prefix && suffix < after.size() - prefix &&
         before[before.size() - 1 - suffix].text == after[after.size() - 1 - suffix].text)
    ++suffix;
  const std::size_t n = before.size() - prefix - suffix, m = after.size() - prefix - suffix;
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = before[prefix + i].text == after[prefix + j].text ? lcs[i + 1][j + 1] + 1
                                                                    : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<DiffLine> all;
  for (std::size_t k = 0; k < prefix; ++k) all.push_back({' ', after[k]});
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && before[prefix + i].text == after[prefix + j].text) {
      all.push_back({' ', after[prefix + j]});
      ++i, ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {  // removals first, as diff prints them
      all.push_back({'-', before[prefix + i++]});
    } else {
      all.push_back({'+', after[prefix + j++]});
    }
  }
  for (std::size_t k = after.size() - suffix; k < after.size(); ++k) all.push_back({' ', after[k]});

  // Hunks: the changed lines with `context` lines around them.
  std::vector<DiffLine> out;
  std::vector<bool> keep(all.size(), false);
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (all[k].kind == ' ') continue;
    const std::size_t from = k >= static_cast<std::size_t>(context) ? k - context : 0;
    const std::size_t to = std::min(all.size(), k + context + 1);
    for (std::size_t c = from; c < to; ++c) keep[c] = true;
  }
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (!keep[k]) continue;
    if (k == 0 || !keep[k - 1]) out.push_back({'@', all[k].line});
    out.push_back(all[k]);
  }
  return out;
}

std::vector<std::pair<std::string, KernelSource>> kernel_sources(Algorithm algorithm, const ToggleValues& toggles,
                                                                 double softening) {
  if (algorithm == Algorithm::allpairs) return {{"force", select_allpairs_variant(toggles, softening).source}};
  const BarnesHutVariant v = barneshut_variant(toggles, softening > 0);
  std::vector<std::pair<std::string, KernelSource>> out;
  auto add = [&](const char* stage, const KernelSource& s) {
    if (!s.file.empty()) out.emplace_back(stage, s);
  };
  add("bounding box", v.bounding_box);
  add("tree build", v.build);
  add("summarize", v.summarize);
  add("sort", v.sort_bodies);
  add("groups", v.groups);
  add("force", v.force);
  add("integrate", v.integrate);
  return out;
}

std::vector<KernelCodeChange> kernel_code_changes(const KernelEngine& engine, Algorithm algorithm,
                                                  const ToggleValues& before, const ToggleValues& after,
                                                  double softening) {
  const auto a = kernel_sources(algorithm, before, softening), b = kernel_sources(algorithm, after, softening);
  std::vector<std::string> stages;
  for (const auto& s : a) stages.push_back(s.first);
  for (const auto& s : b)
    if (std::find(stages.begin(), stages.end(), s.first) == stages.end()) stages.push_back(s.first);
  auto find = [](const std::vector<std::pair<std::string, KernelSource>>& sources,
                 const std::string& stage) -> const KernelSource* {
    for (const auto& s : sources)
      if (s.first == stage) return &s.second;
    return nullptr;
  };
  std::vector<KernelCodeChange> out;
  for (const std::string& stage : stages) {
    const KernelSource* x = find(a, stage);
    const KernelSource* y = find(b, stage);
    if (x && y && x->same_code(*y)) continue;
    KernelCodeChange c;
    c.kernel = stage;
    c.file_before = x ? x->file : "";
    c.file_after = y ? y->file : "";
    const MacroList none;
    const MacroList& mx = x ? x->macros : none;
    const MacroList& my = y ? y->macros : none;
    std::map<std::string, std::string> vx(mx.begin(), mx.end()), vy(my.begin(), my.end());
    for (const auto& [name, value] : vy) {
      const auto it = vx.find(name);
      if (it == vx.end()) c.macro_changes.push_back(name + ": defined as " + value);
      else if (it->second != value) c.macro_changes.push_back(name + ": " + it->second + " -> " + value);
      if (it == vx.end() || it->second != value) c.changed_macros.push_back(name);
    }
    for (const auto& [name, value] : vx)
      if (!vy.count(name)) c.macro_changes.push_back(name + ": no longer defined"), c.changed_macros.push_back(name);
    const std::vector<std::string> none_options;
    const auto& ox = x ? x->options : none_options;
    const auto& oy = y ? y->options : none_options;
    for (const auto& o : oy)
      if (std::find(ox.begin(), ox.end(), o) == ox.end()) c.option_changes.push_back(o + ": added");
    for (const auto& o : ox)
      if (std::find(oy.begin(), oy.end(), o) == oy.end()) c.option_changes.push_back(o + ": removed");
    std::vector<SourceLine> lx, ly;
    if (x) {
      const SourceSnapshot s = engine.snapshot(*x);
      lx = active_lines(s, mx);
      lines_naming(s, c.changed_macros, c.macro_lines);
    }
    if (y) {
      const SourceSnapshot s = engine.snapshot(*y);
      ly = active_lines(s, my);
      lines_naming(s, c.changed_macros, c.macro_lines);
    }
    c.diff = diff_lines(lx, ly);
    out.push_back(std::move(c));
  }
  return out;
}

bool is_force_entry(std::string_view entry) { return entry == "allpairs_force" || entry == "bh_force"; }

namespace {

std::string per_interaction_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", v);
  return text;
}

double per_interaction_of(const HotLoop& loop, const std::string& cls) {
  for (const auto& [name, count] : loop.mix)
    if (name == cls) return loop.interactions ? static_cast<double>(count) / loop.interactions : 0.0;
  return 0.0;
}

// A change per interaction smaller than this is the loop's own bookkeeping (its counter, compare and
// branch, spread over the unrolled bodies: 0.01 per interaction at 128 of them), not the interaction's code.
constexpr double kBookkeeping = 0.05;

// PTX's "ftz" class counts instructions that carry the .ftz flag: a modifier, not instructions of its own.
bool is_modifier(const std::string& cls) { return cls == "ftz"; }

// Two loops differ when an interaction's instructions do: their count or the count of a class.
bool differ(const HotLoop& a, const HotLoop& b) {
  if (std::abs(a.per_interaction() - b.per_interaction()) >= kBookkeeping) return true;
  for (const auto* side : {&a, &b})
    for (const auto& [cls, count] : side->mix)
      if (!is_modifier(cls) && std::abs(per_interaction_of(a, cls) - per_interaction_of(b, cls)) >= kBookkeeping)
        return true;
  return false;
}

bool modifiers_differ(const HotLoop& a, const HotLoop& b) {
  for (const auto* side : {&a, &b})
    for (const auto& [cls, count] : side->mix)
      if (is_modifier(cls) && std::abs(per_interaction_of(a, cls) - per_interaction_of(b, cls)) >= kBookkeeping)
        return true;
  return false;
}

void add_rows(std::vector<HotLoopRow>& rows, const char* code, const std::optional<HotLoop>& before,
              const std::optional<HotLoop>& after, bool has_before) {
  if (!before && !after) return;
  auto value = [](const std::optional<HotLoop>& l, double v) { return l ? per_interaction_text(v) : std::string(); };
  rows.push_back({code, "instructions per interaction (hot loop, static)",
                  has_before ? value(before, before ? before->per_interaction() : 0) : "",
                  value(after, after ? after->per_interaction() : 0)});
  std::vector<std::string> classes;
  for (const auto* side : {&after, &before})
    if (*side)
      for (const auto& [cls, count] : (*side)->mix)
        if (std::find(classes.begin(), classes.end(), cls) == classes.end()) classes.push_back(cls);
  for (const std::string& cls : classes) {
    const double b = before ? per_interaction_of(*before, cls) : 0, a = after ? per_interaction_of(*after, cls) : 0;
    if (b < 0.005 && a < 0.005) continue;  // a loop's counter, a fraction of an instruction per interaction either way
    rows.push_back({code, (is_modifier(cls) ? "." + cls + " flag (not an instruction)" : cls) + " per interaction",
                    has_before && before ? per_interaction_text(b) : "", after ? per_interaction_text(a) : ""});
  }
}

}  // namespace

bool HotLoopChange::ptx_changed() const {
  if (!ptx_before || !ptx_after) return ptx_before.has_value() != ptx_after.has_value();
  return differ(*ptx_before, *ptx_after);
}

bool HotLoopChange::sass_changed() const { return sass_before && sass_after && differ(*sass_before, *sass_after); }

std::string HotLoopChange::verdict() const {
  const auto ptx = [&](const std::optional<HotLoop>& l) {
    return l ? per_interaction_text(l->per_interaction()) : std::string("none");
  };
  if (!sass_after || (has_before && !sass_before)) {
    return "No SASS to compare (" + sass_missing +
           "): the PTX count is NVRTC's intermediate code, and ptxas can add or drop "
           "instructions it does not show (around rsqrt without -ftz, it adds three per interaction).";
  }
  if (!has_before) return "";
  const double b = sass_before->per_interaction(), a = sass_after->per_interaction();
  if (!sass_changed()) {
    const bool same = per_interaction_text(a) == per_interaction_text(b);
    std::string s = "No SASS instruction of an interaction changed in the hot loop (" +
                    (same ? per_interaction_text(a) : per_interaction_text(b) + " -> " + per_interaction_text(a)) +
                    " per interaction, static count" + (same ? "" : ", the difference is the loop's own counting") +
                    ")";
    if (ptx_changed())
      s += ", although the PTX goes from " + ptx(ptx_before) + " to " + ptx(ptx_after) +
           " per interaction: ptxas made the same machine code of both";
    return s + ". A speed-up here cannot come from fewer instructions in the loop.";
  }
  std::string s = "The SASS hot loop goes from " + per_interaction_text(b) + " to " + per_interaction_text(a) +
                  " instructions per interaction (static count)";
  std::string moved;
  std::vector<std::string> classes;
  for (const auto* side : {&*sass_before, &*sass_after})
    for (const auto& [cls, count] : side->mix)
      if (std::find(classes.begin(), classes.end(), cls) == classes.end()) classes.push_back(cls);
  for (const std::string& cls : classes) {
    const double x = per_interaction_of(*sass_before, cls), y = per_interaction_of(*sass_after, cls);
    if (std::abs(x - y) >= kBookkeeping)
      moved += (moved.empty() ? "" : ", ") + cls + " " + per_interaction_text(x) + " -> " + per_interaction_text(y);
  }
  if (!moved.empty()) s += ": " + moved;
  if (!ptx_changed() && ptx_before && ptx_after)
    s += "; the PTX does not show it (" + ptx(ptx_after) + " per interaction both ways" +
         (modifiers_differ(*ptx_before, *ptx_after) ? ", only the .ftz flag on its instructions changed" : "") + ")";
  return s + ".";
}

std::vector<HotLoopRow> hot_loop_rows(const HotLoopChange& change) {
  std::vector<HotLoopRow> rows;
  add_rows(rows, "PTX", change.ptx_before, change.ptx_after, change.has_before);
  if (!change.sass_missing.empty() && !change.sass_after)
    rows.push_back({"SASS", "not read: " + change.sass_missing, "", ""});
  else add_rows(rows, "SASS", change.sass_before, change.sass_after, change.has_before);
  return rows;
}

HotLoopChange hot_loop_change(const CompiledProgram* before, const CompiledProgram& after, std::string_view entry) {
  HotLoopChange c;
  c.entry = std::string(entry);
  c.has_before = before && before->entry(entry);
  c.ptx_after = ptx_hot_loop(after, entry);
  std::string why_after, why_before;
  c.sass_after = machine_code_hot_loop(after, entry, &why_after);
  if (c.has_before) {
    c.ptx_before = ptx_hot_loop(*before, entry);
    c.sass_before = machine_code_hot_loop(*before, entry, &why_before);
  }
  c.sass_missing = !why_after.empty() ? why_after : why_before;
  return c;
}

std::vector<HotLoopChange> hot_loop_changes(KernelEngine& engine, Algorithm algorithm, const ToggleValues& before,
                                            const ToggleValues& after, double softening) {
  std::vector<HotLoopChange> out;
  const auto a = kernel_sources(algorithm, before, softening), b = kernel_sources(algorithm, after, softening);
  for (const auto& [stage, source] : b) {
    const auto then = std::find_if(a.begin(), a.end(), [&](const auto& s) { return s.first == stage; });
    if (then != a.end() && then->second.same_code(source)) continue;  // the step does not change this kernel
    const auto now = engine.compile(source);
    const auto previous = then != a.end() ? engine.compile(then->second) : nullptr;
    for (const PtxEntryStats& e : now->entries)
      if (is_force_entry(e.name)) out.push_back(hot_loop_change(previous.get(), *now, e.name));
  }
  return out;
}

}  // namespace nbl
