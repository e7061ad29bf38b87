// The JSON schedule reader: nlohmann's SAX parser for the header, the scanner (simdjson) for the
// phases when the header comes first, and the SAX parser again for anything the scanner does not
// take (io/schedule_json_stream.hpp has the whole story).

#include <algorithm>
#include <cstring>
#include <istream>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "io/phase_scanner.hpp"
#include "io/schedule_json_source.hpp"
#include "io/schedule_json_stream.hpp"
#include "io/schedule_sax.hpp"
#include "io/text_window.hpp"

namespace phasecheck::io {
namespace {

/// Reads one JSON schedule, handing the phases between the SAX parser and the scanner.
class JsonReader {
 public:
  JsonReader(std::istream& in, std::string_view source,
             const std::function<void(const ScheduleHeader&)>& on_header, const PhaseSink& on_phase,
             Tables tables, const detail::JsonReadOptions& options)
      : options_(options),
        window_(in, std::max<std::size_t>(options.max_window, 64), detail::kScanPadding),
        input_(window_),
        sax_(source, on_header, on_phase, tables, input_) {}

  void read() {
    input_.start(0);
    if (options_.scan) sax_.handoff();
    if (parse()) return;
    if (!sax_.handed_off()) throw std::logic_error("the JSON reader stopped without a reason");
    // The scanner's text starts at a replay point: where the SAX parser resumes when the scanner
    // stops, and a place the window keeps (with the byte before it, the text's opening bracket).
    Replay replay{true, sax_.phases_key(), 0, 0};
    std::size_t window =
        std::min(std::max<std::size_t>(options_.window, 16), window_.max_size() - 1);
    detail::PhaseScanner scanner;
    for (;;) {
      const std::size_t from = replay.offset;
      // (An exhausted window is scanned as it is: a read error the stream had is the SAX
      // parser's to meet, after the bytes before it, when it needs more.)
      if (!window_.exhausted()) window_.fill(from - 1, from + window);
      // Everything the stream has is in the window; else the text ends at its last line break,
      // which is never inside a JSON string.
      const bool whole = window_.exhausted();
      std::size_t cut = window_.end();
      if (!whole) {
        const char* text = window_.at(from);
        const auto* line_end = static_cast<const char*>(memrchr(text, '\n', cut - from));
        cut = line_end == nullptr ? from : from + static_cast<std::size_t>(line_end - text) + 1;
      }
      std::size_t delivered = 0;
      const detail::ScanEnd end =
          cut == from
              ? detail::ScanEnd::window_end
              : scanner.scan(window_.at(from), window_.at(cut), replay.at_key, replay.length,
                             sax_.collective(),
                             [&](const char* start, const char* stop, Phase& phase, bool has_ops) {
                               sax_.deliver_scanned(phase, has_ops);
                               replay = {false, from + (start - window_.at(from)),
                                         sax_.phase_index() - 1,
                                         static_cast<std::size_t>(stop - start)};
                               ++delivered;
                             });
      switch (end) {
        case detail::ScanEnd::array_end:
        case detail::ScanEnd::invalid_text:
          return finish(replay);
        case detail::ScanEnd::window_end:
          if (whole) return finish(replay);       // the file ends inside a phase, or is not closed
          if (delivered > 0) break;               // on with the next window
          if (window < window_.max_size() - 1) {  // one phase is longer than the window
            window = std::min(2 * window, window_.max_size() - 1);
            break;
          }
          [[fallthrough]];  // longer than the largest window: the SAX parser reads it
        case detail::ScanEnd::refused:
          // The SAX parser reads a window's worth at least, so that a file the scanner keeps
          // refusing costs little more than the SAX parser alone.
          if (resume(replay, window)) return;
          if (!sax_.handed_back())
            throw std::logic_error("the JSON reader stopped without a reason");
          replay = {false, sax_.last_phase_start(), sax_.phase_index() - 1, 0};
          break;
      }
    }
  }

 private:
  struct Replay {
    bool at_key;         ///< at the key "phases"; else at a phase delivered already
    std::size_t offset;  ///< the first byte of the key or of the phase
    std::size_t index;   ///< that phase's index (at the key: 0, the first phase's)
    std::size_t length;  ///< bytes from the phase to the token after it, when scanned (else 0)
  };

  bool parse() { return sax_.parse(); }

  /// The SAX parser from `replay` on: to the end of the document (true), or, with `progress`,
  /// until the end of a phase that the fast path can go on from (false).
  bool resume(const Replay& replay, std::optional<std::size_t> progress = std::nullopt) {
    // The synthetic text opens what is open at the replay point.
    const std::string_view opening = replay.at_key ? "{" : "{\"phases\":[";
    const auto [line, column] = window_.line_column(replay.offset);
    input_.start(replay.offset, opening);
    sax_.resume_at(replay.at_key, replay.index, progress.has_value(), progress.value_or(0), line,
                   column, opening.size());
    return parse();
  }

  void finish(const Replay& replay) {
    if (!resume(replay)) throw std::logic_error("the JSON reader stopped before the end");
  }

  detail::JsonReadOptions options_;
  detail::TextWindow window_;
  detail::JsonSource input_;
  detail::ScheduleSax sax_;
};

}  // namespace

void detail::read_json_schedule(std::istream& in, std::string_view source,
                                const std::function<void(const ScheduleHeader&)>& on_header,
                                const PhaseSink& on_phase, Tables tables,
                                const JsonReadOptions& options) {
  JsonReader(in, source, on_header, on_phase, tables, options).read();
  if (in.bad()) throw InputError(std::string(source) + ": read error");
}

}  // namespace phasecheck::io
