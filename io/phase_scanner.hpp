#pragma once
// Internal to io/: the fast path of the schedule JSON reader (io/schedule_json_reader.cpp).
// Phases written as phasecheck writes them are read byte by byte by a plain reader of that
// spelling; from the first phase it does not take, simdjson's On Demand parser reads whole phases
// out of the window and builds them as the SAX reader would. Both only accept: whatever they do not
// take as it is (any error, and spellings left to the SAX reader, such as a key written with
// escapes) is refused, and the SAX reader reads that phase and gives every message. This file and
// io/mscclpp_plan.cpp (plans, read whole) are the only ones that include simdjson.

#include <cstddef>
#include <functional>
#include <memory>

#include "core/schedule.hpp"

namespace phasecheck::io::detail {

/// Bytes after a scanned text that the scanner reads and uses as scratch (restored on return):
/// simdjson's padding and the text's closing sentinel.
inline constexpr std::size_t kScanPadding = 128;

/// Why a scan ended.
enum class ScanEnd {
  array_end,    ///< the phases array closed inside the text
  window_end,   ///< the text ends inside a phase or between phases: scan on with more text
  refused,      ///< a phase the scanner does not take (see above): the SAX reader reads it
  invalid_text  ///< simdjson's first stage refused the text (UTF-8, a control character, ...)
};

class PhaseScanner {
 public:
  /// Receives each phase read (valid only during the call), `start` its first byte, `end` a
  /// place between its last byte and the next token, `has_ops` whether it was written with
  /// "ops" (else with "transfers").
  using Sink = std::function<void(const char* start, const char* end, Phase& phase, bool has_ops)>;

  PhaseScanner();
  ~PhaseScanner();
  PhaseScanner(const PhaseScanner&) = delete;
  PhaseScanner& operator=(const PhaseScanner&) = delete;

  /// Scans the text [first, last), which ends between two tokens (at a line break, say) and
  /// starts either at the key "phases" written as such (`at_key`) or at the '{' of a phase that
  /// was delivered already and is skipped: `skip` is its `end - start` when it was scanned (0
  /// when not known). Every phase that closes inside the text and that the scanner takes goes to
  /// `sink`, in order, with blocks filled in as the SAX reader fills them (direct messages of
  /// `collective`); the phases are not checked against the header.
  /// first[-1] and [last, last + kScanPadding) must be writable; they are restored. O(text).
  ScanEnd scan(char* first, char* last, bool at_key, std::size_t skip, Collective collective,
               const Sink& sink);

 private:
  /// simdjson's part of scan(): the text that the plain reader (phasecheck's own spelling, byte
  /// by byte) did not take, from the key or from the last phase delivered.
  ScanEnd scan_simdjson(char* first, char* last, bool at_key, Collective collective,
                        const Sink& sink);

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace phasecheck::io::detail
