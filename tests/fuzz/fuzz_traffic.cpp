// fuzz-traffic: arbitrary bytes into the traffic file reader (io/traffic.hpp: parse_traffic,
// JSON by its SAX consumer or CSV). An InputError is the expected answer to bad input; a crash, a
// sanitizer report or any other exception is a finding. A matrix it accepts must survive a round
// trip through both writers; on JSON, the reader a schedule's "traffic" member goes through (a
// document, then traffic_from_json) must accept exactly what the file reader accepts, the same
// matrix.

#include <cstdint>
#include <exception>
#include <optional>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "finding.hpp"
#include "io/traffic.hpp"
#include "io/traffic_json.hpp"

using namespace phasecheck;

namespace {

/// Low, so that the memory check before the matrix is fuzzed too (a 2,896-rank matrix).
constexpr std::uint64_t kMemoryLimit = std::uint64_t{64} << 20;

void round_trip(const Traffic& traffic, const std::string& written, std::string_view source) {
  try {
    if (!(io::parse_traffic(written, source, traffic.element_bytes) == traffic))
      fuzz::finding("the matrix read back from what a writer wrote differs", written);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("the reader refuses what a writer wrote: ") + e.what(), written);
  }
}

/// The matrix through a JSON document and traffic_from_json, or nothing when refused.
std::optional<Traffic> through_document(std::string_view text) {
  try {
    const auto document = io::detail::parse_document(text, "fuzz.json");
    return io::detail::traffic_from_json({document, "fuzz.json", ""});
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Limits l = limits();
  l.max_memory_bytes = kMemoryLimit;
  set_limits(l);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::as_text(data, size);
  std::optional<Traffic> traffic;
  try {
    traffic = io::parse_traffic(text, "fuzz");
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    fuzz::finding(std::string("parse_traffic threw something other than InputError: ") + e.what());
  }
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && text[first] == '{') {
    std::optional<Traffic> other;
    try {
      other = through_document(text);
    } catch (const std::exception& e) {
      fuzz::finding(std::string("traffic_from_json threw something other than InputError: ") +
                    e.what());
    }
    if (traffic.has_value() != other.has_value() || (traffic && !(*traffic == *other)))
      fuzz::finding(traffic ? "the file reader accepts what the document reader refuses"
                            : "the document reader accepts what the file reader refuses",
                    text);
  }
  if (!traffic) return 0;
  std::ostringstream json, csv;
  io::write_traffic_json(json, *traffic);
  io::write_traffic_csv(csv, *traffic);
  round_trip(*traffic, json.str(), "written.json");
  round_trip(*traffic, csv.str(), "written.csv");
  return 0;
}
