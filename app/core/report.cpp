#include "app/core/report.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/error.hpp"
#include "sim/file_util.hpp"

namespace nbl {

namespace {

std::string format(const char* fmt, int precision, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, precision, value);
  return buffer;
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

nlohmann::json cell_json(const Table::Cell& c) {
  if (const double* d = std::get_if<double>(&c.value))
    return std::isfinite(*d) ? nlohmann::json(*d) : nlohmann::json(nullptr);
  if (const std::string* s = std::get_if<std::string>(&c.value)) return *s;
  return nullptr;
}

}  // namespace

Table& Table::column(std::string key, std::string heading) {
  keys_.push_back(std::move(key));
  headings_.push_back(std::move(heading));
  return *this;
}

Table& Table::row() {
  rows_.emplace_back();
  return *this;
}

Table& Table::add(double value, int precision) {
  if (rows_.empty()) row();
  rows_.back().push_back({value, std::isfinite(value) ? format("%.*f", precision, value) : "n/a"});
  return *this;
}

Table& Table::add_sci(double value, int precision) {
  if (rows_.empty()) row();
  rows_.back().push_back({value, std::isfinite(value) ? format("%.*e", precision, value) : "n/a"});
  return *this;
}

Table& Table::add(std::string text) {
  if (rows_.empty()) row();
  Cell c;
  c.value = text;
  c.text = std::move(text);
  rows_.back().push_back(std::move(c));
  return *this;
}

Table& Table::add_empty() {
  if (rows_.empty()) row();
  rows_.back().push_back({std::monostate{}, "-"});
  return *this;
}

Table& Table::note(std::string line) {
  notes_.push_back(std::move(line));
  return *this;
}

double Table::number(std::size_t row, const std::string& key) const {
  for (std::size_t c = 0; c < keys_.size(); ++c)
    if (keys_[c] == key && c < rows_.at(row).size())
      if (const double* d = std::get_if<double>(&rows_[row][c].value)) return *d;
  return std::nan("");
}

std::string Table::text() const {
  std::vector<std::size_t> width(headings_.size());
  for (std::size_t c = 0; c < headings_.size(); ++c) width[c] = headings_[c].size();
  for (const auto& r : rows_)
    for (std::size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].text.size());
  std::ostringstream out;
  if (!title_.empty()) out << title_ << "\n";
  auto line = [&](auto text_of) {
    for (std::size_t c = 0; c < width.size(); ++c) {
      const std::string t = text_of(c);
      // Text columns align left, numbers right.
      const bool left = c == 0;
      out << (c ? "  " : "") << (left ? t : "") << std::string(width[c] - t.size(), ' ') << (left ? "" : t);
    }
    out << "\n";
  };
  line([&](std::size_t c) { return headings_[c]; });
  std::size_t total = 0;
  for (auto w : width) total += w + 2;
  out << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
  for (const auto& r : rows_) line([&](std::size_t c) { return c < r.size() ? r[c].text : std::string(); });
  for (const auto& n : notes_) out << n << "\n";
  return out.str();
}

std::string Table::csv() const {
  std::ostringstream out;
  for (std::size_t c = 0; c < keys_.size(); ++c) out << (c ? "," : "") << csv_escape(keys_[c]);
  out << "\n";
  for (const auto& r : rows_) {
    for (std::size_t c = 0; c < keys_.size(); ++c) {
      if (c) out << ",";
      if (c >= r.size()) continue;
      if (const double* d = std::get_if<double>(&r[c].value)) {
        char buffer[64];
        std::snprintf(buffer, sizeof buffer, "%.9g", *d);
        out << buffer;
      } else if (const std::string* s = std::get_if<std::string>(&r[c].value)) {
        out << csv_escape(*s);
      }
    }
    out << "\n";
  }
  return out.str();
}

std::string Table::json() const {
  nlohmann::json j;
  j["title"] = title_;
  j["columns"] = keys_;
  j["rows"] = nlohmann::json::array();
  for (const auto& r : rows_) {
    nlohmann::json row = nlohmann::json::object();
    for (std::size_t c = 0; c < keys_.size() && c < r.size(); ++c) row[keys_[c]] = cell_json(r[c]);
    j["rows"].push_back(row);
  }
  j["notes"] = notes_;
  return j.dump(2);
}

void write_tables_csv(const std::filesystem::path& file, const std::vector<Table>& tables) {
  std::string out;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (i) out += "\n";
    if (!tables[i].title().empty()) out += "# " + tables[i].title() + "\n";
    out += tables[i].csv();
  }
  write_file_atomically(file, out);
}

void write_tables_json(const std::filesystem::path& file, const std::vector<Table>& tables) {
  nlohmann::json all = nlohmann::json::array();
  for (const auto& t : tables) all.push_back(nlohmann::json::parse(t.json()));
  write_file_atomically(file, all.dump(2) + "\n");
}

}  // namespace nbl
