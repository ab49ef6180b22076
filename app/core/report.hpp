// A table of results, the one format every `bench` mode and `nbodylab kernels` produce: printed as
// aligned text for people, written as CSV and JSON for scripts. Cells keep their numeric value (for
// CSV/JSON) and their display text (for the terminal) separately.
#pragma once
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace nbl {

class Table {
 public:
  struct Cell {
    std::variant<std::monostate, double, std::string> value;  // monostate: empty / not applicable
    std::string text;                                         // how the terminal shows it
  };

  explicit Table(std::string title = {}) : title_(std::move(title)) {}

  // Columns: a machine name (CSV/JSON key) and a heading; a unit goes in the heading ("ms").
  Table& column(std::string key, std::string heading);
  Table& row();                                     // starts a new row; the cells below fill it left to right
  Table& add(double value, int precision = 3);      // fixed-point with `precision` decimals
  Table& add_sci(double value, int precision = 3);  // scientific: 1.23e+12
  Table& add(std::string text);
  Table& add_empty();
  Table& note(std::string line);  // printed under the table, kept in JSON

  const std::string& title() const { return title_; }
  std::size_t rows() const { return rows_.size(); }
  std::size_t columns() const { return keys_.size(); }
  const Cell& at(std::size_t row, std::size_t column) const { return rows_.at(row).at(column); }
  double number(std::size_t row, const std::string& key) const;  // NaN when empty or not a number

  std::string text() const;
  std::string csv() const;
  std::string json() const;  // {"title": ..., "columns": [...], "rows": [{key: value}], "notes": [...]}

 private:
  std::string title_;
  std::vector<std::string> keys_, headings_;
  std::vector<std::vector<Cell>> rows_;
  std::vector<std::string> notes_;
};

// Writes several tables to one file: CSV sections separated by a blank line, or one JSON array.
void write_tables_csv(const std::filesystem::path& file, const std::vector<Table>& tables);
void write_tables_json(const std::filesystem::path& file, const std::vector<Table>& tables);

}  // namespace nbl
