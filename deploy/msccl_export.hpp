#pragma once
/// A verified schedule out to the MSCCL runtimes (msccl-tools, RCCL, NCCL's MSCCL): `phasecheck
/// export msccl`. The schedule is verified first and refused unless every check passes; a phase
/// table becomes the buffer program a careful implementation runs (core/buffer_lowering.hpp); the
/// program is compiled to MSCCL XML (programs/msccl_export.hpp); and the XML, which is what
/// ships, is read back, lowered and verified again like any imported file.

#include <cstdint>
#include <string>

#include "core/schedule.hpp"
#include "core/verdict.hpp"
#include "programs/msccl_export.hpp"
#include "verify/report.hpp"

namespace phasecheck::deploy {

struct MscclExport {
  enum class Stage {
    refused,            ///< the schedule does not verify: nothing made
    self_check_failed,  ///< the XML made from it does not verify (a bug of the exporter)
    exported,           ///< made, read back and verified
  };
  Stage stage = Stage::refused;
  verify::Report input;      ///< the schedule's verification
  verify::Report read_back;  ///< the XML's, lowered again (not refused)
  std::string xml;           ///< exported only
  std::uint64_t steps = 0;   ///< over every threadblock
  std::uint32_t gpus = 0, channels = 0;

  /// pass when exported; fail otherwise.
  Verdict verdict() const { return stage == Stage::exported ? Verdict::pass : Verdict::fail; }
};

/// Throws InputError (prefixed with `source`) when the schedule cannot be verified at all, or
/// the export options are invalid.
MscclExport export_msccl(const Schedule& schedule, const std::string& source,
                         const programs::MscclExportOptions& options);

}  // namespace phasecheck::deploy
