#include "deploy/msccl_export.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/msccl.hpp"
#include "io/msccl_xml.hpp"
#include "verify/msccl_execution.hpp"

namespace phasecheck::deploy {

MscclExport export_msccl(const Schedule& schedule, const std::string& source,
                         const programs::MscclExportOptions& options) {
  MscclExport out;
  if (schedule.header.traffic)  // MSCCL's chunks are of one size
    throw InputError(std::string(source) +
                     ": an alltoallv is not exported to MSCCL XML (its chunks have one size)");
  // MSCCL runtimes run an alltoall in place, but phasecheck's model of them does not: the XML
  // could not be read back and judged (core/msccl.cpp).
  if (schedule.header.in_place() && schedule.header.collective == Collective::alltoall)
    throw InputError(std::string(source) +
                     ": an alltoall in place (format 4) is not exported: an MSCCL alltoall in "
                     "place cannot be read back and verified");
  // before the work, with any --channels
  with_source(source, [&] { programs::check_threadblock_room(schedule); });
  msccl::Program xml_program;
  export_verified(
      schedule, source, out,
      [&](const Schedule& program) {
        // (An InputError here: the runtime's limits, as the program uses them.)
        xml_program = programs::to_msccl(program, options);
        return io::msccl_to_xml(xml_program);
      },
      [](const std::string& xml) {
        return msccl::lower(io::parse_msccl(xml, "<export>"), "<export>");
      });
  if (out.stage != MscclExport::Stage::exported) return out;
  for (const msccl::Gpu& g : xml_program.gpus)
    for (const msccl::Threadblock& t : g.threadblocks) out.steps += t.steps.size();
  out.gpus = xml_program.ngpus;
  out.channels = xml_program.nchannels.value_or(0);
  return out;
}

}  // namespace phasecheck::deploy
