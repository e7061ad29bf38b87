#include "deploy/msccl_export.hpp"

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/msccl.hpp"
#include "io/msccl_xml.hpp"
#include "schedules/registry.hpp"
#include "verify/msccl_execution.hpp"
#include "verify/verifier.hpp"

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
  out.input = with_source(source, [&] {
    return verify::verify(schedule, schedule.header.topology,
                          schedules::claims_for(schedule.header));
  });
  if (out.input.verdict() != Verdict::pass) return out;  // refused

  // A phase table becomes the program a careful implementation runs (core/buffer_lowering.hpp).
  const Schedule program =
      schedule.header.buffers ? schedule : lower_to_buffers(schedule);
  // (An InputError here: the runtime's limits, as the program uses them.)
  const msccl::Program xml_program =
      with_source(source, [&] { return programs::to_msccl(program, options); });
  std::string xml = io::msccl_to_xml(xml_program);

  // The XML is what ships: read it back and judge it as any imported file.
  const Schedule back = msccl::lower(io::parse_msccl(xml, "<export>"), "<export>");
  out.read_back = verify::verify(back, back.header.topology);
  if (out.read_back.verdict() != Verdict::pass) {
    out.stage = MscclExport::Stage::self_check_failed;
    return out;
  }
  out.stage = MscclExport::Stage::exported;
  out.xml = std::move(xml);
  for (const msccl::Gpu& g : xml_program.gpus)
    for (const msccl::Threadblock& t : g.threadblocks) out.steps += t.steps.size();
  out.gpus = xml_program.ngpus;
  out.channels = xml_program.nchannels.value_or(0);
  return out;
}

}  // namespace phasecheck::deploy
