#pragma once
/// A schedule of any format read as phases: JSON (io/json.hpp), the binary stream
/// (io/schedule_binary.hpp) or MSCCL XML (io/msccl_xml.hpp), told apart by their first bytes
/// (io/format_sniff.hpp). An MSCCL program becomes its format-3 schedule through the model of its
/// execution, whose faults are judged on the way (verify/msccl_execution.hpp): that is why this
/// lives in the pipeline and not in io/, which never includes verify/. Errors are InputError
/// messages that start with the source.

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

#include "core/schedule.hpp"
#include "io/json.hpp"

namespace phasecheck::pipeline {

/// Streams a schedule: on_header once, then on_phase for each phase in order.
void read_schedule(std::istream& in, std::string_view source,
                   const std::function<void(const ScheduleHeader&)>& on_header,
                   const PhaseSink& on_phase, io::Tables tables = io::Tables::derive);
void read_schedule_file(const std::string& path,
                        const std::function<void(const ScheduleHeader&)>& on_header,
                        const PhaseSink& on_phase, io::Tables tables = io::Tables::derive);
/// The whole table. `check_header` sees the header before any phase is stored (when the header
/// comes first in the file, as phasecheck writes it), so that a command refuses a machine too
/// large for it before reading the phases; it throws InputError to refuse.
Schedule read_schedule_file(const std::string& path,
                            const std::function<void(const ScheduleHeader&)>& check_header = {});
Schedule parse_schedule(std::string_view text, std::string_view source);

}  // namespace phasecheck::pipeline
