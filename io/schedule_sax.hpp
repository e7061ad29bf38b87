#pragma once
// Internal to io/: the schedule reader's state machine over nlohmann's SAX parser. It reads the
// header as ordinary JSON values (io/schedule_header.hpp) and the phases with a small state
// machine, one event at a time, and hands each phase on whole (io/schedule_phases.hpp).
//
// With the fast path (io/schedule_json_reader.cpp), the parser may stop at the phases and resume
// later: handoff() stops it at the '[' of "phases" once the header is built; resume_at() starts
// it again on a synthetic text (JsonSource) that opens the containers around a place of the file,
// whose events are dropped, as are those of the phase delivered already that the file text
// starts with; bounded, it stops again after a phase whose text the window still holds. A resumed
// parser's positions are moved to the file's, so its messages are the ones a parser that read the
// whole file would give.

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>

#include "core/schedule.hpp"
#include "io/json.hpp"
#include "io/schedule_json_source.hpp"

namespace phasecheck::io::detail {

class ScheduleSax {
 public:
  /// Reads the file `source` from `input`; on_header, on_phase and tables as read_schedule takes
  /// them.
  ScheduleSax(std::string_view source, const std::function<void(const ScheduleHeader&)>& on_header,
              const PhaseSink& on_phase, Tables tables, JsonSource& input);
  ~ScheduleSax();
  ScheduleSax(const ScheduleSax&) = delete;
  ScheduleSax& operator=(const ScheduleSax&) = delete;

  /// Runs the parser on the input from where it is: true at the end of the document, false when
  /// it stopped as asked (a handoff or a hand-back). Throws InputError for bad input.
  bool parse();

  /// Stop at the '[' of "phases" when the header is complete there and the key is written as
  /// such (`"phases"`, which the scanner's text starts with).
  void handoff();
  bool handed_off() const;
  /// The offset of the key "phases" (after a handoff).
  std::size_t phases_key() const;
  /// Resumes on the text `{` + the file from the key "phases" (`at_key`), or `{"phases":[` + the
  /// file from phase `index`, delivered already. `bounded`: stops after a phase whose first byte
  /// the input still holds, once `progress` bytes of the file have been read. The file's text
  /// starts at `line`:`column`, after an opening text of `opening` bytes.
  void resume_at(bool at_key, std::size_t index, bool bounded, std::size_t progress,
                 std::size_t line, std::size_t column, std::size_t opening);
  bool handed_back() const;
  /// The first byte of the last phase delivered (after a hand-back).
  std::size_t last_phase_start() const;
  /// Delivers a phase read by the fast path, as the next one.
  void deliver_scanned(Phase& phase, bool has_ops);
  /// The index of the next phase.
  std::size_t phase_index() const;
  /// The header's collective (once the header is built).
  Collective collective() const;

 private:
  class Machine;
  std::unique_ptr<Machine> machine_;
};

}  // namespace phasecheck::io::detail
