// Traffic matrices: files told apart by content, and the JSON object (io/traffic.hpp,
// io/traffic_json.hpp). The CSV is io/traffic_csv.cpp, a JSON file read whole io/traffic_sax.cpp.

#include "io/traffic.hpp"

#include <ostream>
#include <string>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/traffic_json.hpp"

namespace phasecheck::io {

Traffic parse_traffic(std::string_view text, std::string_view source,
                      std::optional<std::uint64_t> element_bytes) {
  // JSON allows a byte order mark and white space before its value; so does a CSV here.
  const std::string_view rest = text.starts_with("\xEF\xBB\xBF") ? text.substr(3) : text;
  const std::size_t first = rest.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos)
    throw InputError(std::string(source) +
                     ": empty file (expected a traffic matrix: phasecheck.traffic/1 JSON, or p "
                     "lines of p comma-separated counts)");
  // A JSON array is no traffic file, but is refused as JSON (no CSV starts with '[').
  if (rest[first] == '{' || rest[first] == '[')
    return detail::traffic_from_json_text(text, source, element_bytes);
  return detail::traffic_from_csv(rest, source, element_bytes);
}

Traffic read_traffic_file(const std::string& path, std::optional<std::uint64_t> element_bytes) {
  return parse_traffic(read_input(path), input_name(path), element_bytes);
}

void write_traffic_json(std::ostream& out, const Traffic& traffic, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  out << "{\"format\": \"" << kTrafficFormat << "\", \"ranks\": " << traffic.ranks
      << ", \"element_bytes\": " << traffic.element_bytes << ",\n"
      << pad << " \"counts\": [";
  for (Rank s = 0; s < traffic.ranks; ++s) {
    out << (s == 0 ? "\n" : ",\n") << pad << "  [";
    const auto row = traffic.row(s);
    for (std::size_t d = 0; d < row.size(); ++d) out << (d == 0 ? "" : ", ") << row[d];
    out << ']';
  }
  out << "\n" << pad << "]}";
}

namespace detail {

Traffic traffic_from_json(const Field& field) {
  field.expect_object({"format", "ranks", "element_bytes", "counts"});
  const std::string format = field.at("format").string();
  if (format != kTrafficFormat)
    field.at("format").fail("unsupported format \"" + format + "\" (this phasecheck reads " +
                            std::string(kTrafficFormat) + ")");
  const std::uint64_t ranks = field.at("ranks").uint(kMaxRanks);
  if (ranks == 0) field.at("ranks").fail("must be at least 1");
  const std::uint64_t element_bytes =
      field.has("element_bytes") ? field.at("element_bytes").uint(kMaxElementBytes) : 1;
  if (element_bytes == 0) field.at("element_bytes").fail("must be at least 1");
  const Field counts = field.at("counts");
  const auto& rows = counts.array();
  if (rows.size() != ranks)
    counts.fail(std::to_string(rows.size()) + " rows for " + std::to_string(ranks) + " ranks");
  Traffic traffic;
  with_source(std::string(field.source),
              [&] { traffic = zero_traffic(static_cast<Rank>(ranks), element_bytes); });
  for (std::size_t s = 0; s < ranks; ++s) {
    const Field row = counts.at(s);
    const auto& cells = row.array();
    if (cells.size() != ranks)
      row.fail(std::to_string(cells.size()) + " counts for " + std::to_string(ranks) + " ranks");
    for (std::size_t d = 0; d < ranks; ++d)
      traffic.counts[s * ranks + d] = row.at(d).uint(kMaxTrafficCount);
  }
  if (const auto problem = traffic_problem(traffic)) field.fail(*problem);
  return traffic;
}

}  // namespace detail
}  // namespace phasecheck::io
