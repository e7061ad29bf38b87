#pragma once
// Internal to io/: what the schedule readers do with a phase once it is read whole: validate it
// against the header and, for a version-3 program, run it to fill in the table its sends form.
// docs/formats.md is the specification.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/buffer_state.hpp"
#include "core/schedule.hpp"
#include "io/json.hpp"

namespace phasecheck::io::detail {

class PhaseDelivery {
 public:
  /// For the file `source` whose header has `shape` (its collective, ranks, parts and buffers
  /// are used); `tables` as read_schedule takes it. Throws InputError naming the file when a
  /// version-3 program's buffers pass the memory limit (with Tables::derive, which keeps them).
  PhaseDelivery(std::string_view source, const ScheduleHeader& shape, Tables tables,
                const PhaseSink& on_phase);

  /// Validates phase `index` against the header, then hands it on. `has_ops`: the phase was
  /// written with "ops" (else with "transfers"). A transfer read before the header was known,
  /// without "blocks", has no block yet: it gets the direct message of the collective here.
  void deliver(Phase& phase, std::size_t index, bool has_ops);

 private:
  void deliver_program(Phase& phase, std::size_t index);
  [[noreturn]] void fail(std::size_t index, const std::string& path, const std::string& what) const;

  std::string_view source_;
  Collective collective_;
  Rank ranks_;
  std::uint32_t parts_;
  SharedTraffic traffic_;  // an alltoallv's matrix
  Pieces pieces_;
  bool program_;  // version 3: phases hold ops
  const PhaseSink& on_phase_;
  std::optional<BufferState> state_machine_;  // format 3 with tables: derives each phase's table
};

}  // namespace phasecheck::io::detail
