#pragma once
// Internal to io/: a schedule file's header (every top-level key but "phases"), validated and
// built from its JSON values as the SAX reader (io/schedule_sax.cpp) captured them.
// docs/formats.md is the specification.

#include <functional>
#include <string_view>

#include "core/schedule.hpp"
#include "io/json_common.hpp"

namespace phasecheck::io::detail {

/// Whether `key` is one of the header's top-level keys ("phases" is not).
bool is_header_key(std::string_view key);

/// Whether the header keys read so far (`values`, an object) are all the header there is to wait
/// for: the required ones, and the topology (versions 1 and 2) or the buffers (version 3).
bool header_complete(const Json& values);

/// Validates the header keys `values` (an object) of the file `source` and builds the header.
/// `on_shape` sees the header as soon as what its phases are checked against is valid (the
/// collective, ranks, parts and buffers), before the parameters are read: a refusal it throws
/// (an InputError) comes before theirs. Throws InputError naming the file and the key.
ScheduleHeader header_from_json(const Json& values, std::string_view source,
                                const std::function<void(const ScheduleHeader&)>& on_shape);

}  // namespace phasecheck::io::detail
