#pragma once
/// The messages of a recorded run and the phase table they form.
///
/// Matching follows MPI's order rule: between one sender and one receiver, messages with one tag
/// are received in the order they were sent, so the k-th send from s to d with tag t is taken by
/// the k-th receive that d posted and that completed from s with tag t.
///
/// Phases are causal levels, so that the table says what the run really allowed: a rank's
/// message goes one phase after its previous message and one phase after every message whose
/// receive the rank had completed before sending it. For the algorithms that go in steps (Bruck,
/// ring, pairwise, linear) this is each rank's j-th message in phase j, as `import
/// simgrid-trace` makes it; a relay is never seen forwarding a block before it holds it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "record/elements.hpp"
#include "record/recording.hpp"

namespace phasecheck::record {

struct Message {
  Rank src = 0, dst = 0;
  std::int64_t tag = 0;
  std::size_t send = 0;                  ///< the send's index in src's events
  std::optional<std::size_t> recv;       ///< the receive's post in dst's events; empty: never taken
  std::optional<std::size_t> completion;  ///< the receive's complete line in dst's events
  std::uint32_t step = 0;                ///< among src's sends, from 0
  std::uint32_t phase = 0;               ///< causal level (above)
};

struct Messages {
  std::vector<Message> list;  ///< by sender, then in the sender's order
  std::uint32_t phases = 0;
  /// Receives that completed but that no send matches (a recording that is not one run).
  std::vector<std::string> unmatched;
};

/// Matches and levels the messages. Throws InputError when the recording cannot be one run
/// (a receive completed from a rank that sent nothing to match it, a causal cycle).
Messages match_messages(const Recording& rec);

/// "rank 2's 3rd send (to 5, tag 7)", for counterexamples.
std::string describe(const Message& m);

/// The phase table of the run: every message a transfer from src to dst in its phase, carrying
/// the elements its payload decodes to (alltoall element (o, d, k) is block [o, d, k]; allgather
/// (o, *, k) is [o] part k); header.parts = count. Empty when a payload holds a word that is not
/// an element of this run; `bad` then says which message and which word.
struct RecordedTable {
  std::optional<Schedule> schedule;
  std::string bad;
  std::optional<std::size_t> bad_phase;
};
RecordedTable recorded_table(const Recording& rec, const Messages& messages,
                             const Topology& model, const std::string& algorithm);

}  // namespace phasecheck::record
