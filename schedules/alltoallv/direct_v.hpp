#pragma once
/// What the alltoallv patterns that move every message whole and straight to its destination
/// share (linear-v, pairwise-v, scattered-v): the order of the messages is the library's and does
/// not depend on the counts, and a message of no elements is not sent (the libraries skip a zero
/// count on both sides). Their schedules are phase tables (format 1) of whole messages.

#include <cstdint>
#include <string>

#include "core/claims.hpp"
#include "core/schedule.hpp"
#include "schedules/ports.hpp"

namespace phasecheck::schedules::alltoallv {

/// Adds the message s -> d (block [s, d]) to `phase` unless it has no elements; a message to
/// itself is the free local copy the libraries make.
void add_message(Phase& phase, const Traffic& traffic, Rank s, Rank d);

/// The phase's cost in bytes: its largest message between two ranks.
std::uint64_t heaviest(const Phase& phase, const Traffic& traffic);

/// The traffic of an alltoallv header; InputError naming `name` when it has none.
const Traffic& traffic_of(const ScheduleHeader& header, std::string_view name);

}  // namespace phasecheck::schedules::alltoallv
