// Traffic matrices as JSON (io/traffic.hpp, io/traffic_json.hpp).

#include "io/traffic.hpp"

#include <ostream>
#include <string>

#include "core/files.hpp"
#include "core/limits.hpp"
#include "io/traffic_json.hpp"

namespace phasecheck::io {

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
  with_source(std::string(field.source), [&] {
    traffic = zero_traffic(static_cast<Rank>(ranks), element_bytes);
  });
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
