#pragma once
/// The parameter every algorithm declares: `collective`, which of the two collectives its pattern
/// moves. make_header reads it to fill ScheduleHeader::collective.

#include <string_view>

#include "core/parameter_spec.hpp"

namespace phasecheck::schedules {

inline constexpr std::string_view kAlltoallOrAllgather[] = {"alltoall", "allgather"};
inline constexpr std::string_view kAlltoallOnly[] = {"alltoall"};
inline constexpr std::string_view kAllgatherOnly[] = {"allgather"};
inline constexpr std::string_view kAlltoallvOnly[] = {"alltoallv"};

/// Either collective on the same pattern: a block is [o, d] (alltoall) or [o] (allgather).
inline constexpr ParameterSpec kCollective{
    "collective", Choice{kAlltoallOrAllgather}, Fixed{"alltoall"},
    "alltoall (rank o's block for d, [o, d]) or allgather (rank o's one block [o], for all)"};
/// An algorithm for the index operation only.
inline constexpr ParameterSpec kAlltoallCollective{"collective", Choice{kAlltoallOnly},
                                                   Fixed{"alltoall"}, "alltoall only"};
/// An algorithm for the concatenation operation only.
inline constexpr ParameterSpec kAllgatherCollective{"collective", Choice{kAllgatherOnly},
                                                    Fixed{"allgather"}, "allgather only"};

/// An algorithm for uneven messages (core/traffic.hpp): make_header takes its traffic matrix.
inline constexpr ParameterSpec kAlltoallvCollective{
    "collective", Choice{kAlltoallvOnly}, Fixed{"alltoallv"},
    "alltoallv only: message [o, d] has the traffic matrix's count (--traffic FILE)"};

}  // namespace phasecheck::schedules
