// Reading a schedule of any format (io/format_sniff.hpp tells which), MSCCL XML and MSCCL++
// plans lowered to their format-3 programs and judged as they are (verify/msccl_execution.hpp,
// verify/mscclpp_execution.hpp), and the conveniences on top (a file, a whole table, a text).

#include "pipeline/read_schedule.hpp"

#include <algorithm>
#include <istream>
#include <iterator>
#include <optional>
#include <sstream>

#include "core/buffer_state.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "io/format_sniff.hpp"
#include "io/msccl_xml.hpp"
#include "io/mscclpp_plan.hpp"
#include "io/schedule_binary.hpp"
#include "io/schedule_json_stream.hpp"
#include "verify/msccl_execution.hpp"
#include "verify/mscclpp_execution.hpp"

namespace phasecheck::pipeline {
namespace {

/// A lowered program (MSCCL XML, an MSCCL++ plan) handed over as a schedule is read.
void deliver(Schedule s, const std::function<void(const ScheduleHeader&)>& on_header,
             const PhaseSink& on_phase, io::Tables tables) {
  on_header(s.header);
  std::optional<BufferState> state;
  if (tables == io::Tables::derive)
    state.emplace(s.header.collective, s.header.ranks(), *s.header.buffers);
  for (std::size_t i = 0; i < s.phases.size(); ++i) {
    Phase& phase = s.phases[i];
    if (state) state->apply(i, phase.ops(), phase, [](const OpFault&) {});
    on_phase(phase);
  }
}

/// The bytes of `prefix`, then the rest of `rest`: a JSON stream whose first bytes were read to
/// tell a plan from a schedule, handed to the schedule reader whole.
class Prefixed : public std::streambuf {
 public:
  Prefixed(std::string prefix, std::streambuf* rest) : prefix_(std::move(prefix)), rest_(rest) {
    setg(prefix_.data(), prefix_.data(), prefix_.data() + prefix_.size());
  }

 protected:
  // Large reads (the schedule reader reads windows) go straight from the rest into the caller's
  // buffer once the prefix is used up: no second copy. The reader asks what is there
  // (in_avail: what the rest holds, once the prefix is used up), reads that (xsgetn), and when
  // nothing is, has one byte read (underflow), which refills the rest.
  std::streamsize xsgetn(char* to, std::streamsize n) override {
    std::streamsize got = std::min<std::streamsize>(n, egptr() - gptr());
    std::copy_n(gptr(), got, to);
    gbump(static_cast<int>(got));
    if (got < n) got += rest_->sgetn(to + got, n - got);
    return got;
  }
  std::streamsize showmanyc() override { return rest_->in_avail(); }
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (rest_->sgetn(&byte_, 1) != 1) return traits_type::eof();
    setg(&byte_, &byte_, &byte_ + 1);
    return traits_type::to_int_type(byte_);
  }

 private:
  std::string prefix_;
  std::streambuf* rest_;
  char byte_ = 0;
};

/// The bytes read to tell an MSCCL++ plan from a schedule: a plan names "gpus" after a few
/// scalar keys (the DSL writes about 300 bytes before it).
constexpr std::size_t kSniffBytes = std::size_t{1} << 16;

}  // namespace

void read_schedule(std::istream& in, std::string_view source,
                   const std::function<void(const ScheduleHeader&)>& on_header,
                   const PhaseSink& on_phase, io::Tables tables) {
  std::string text;
  switch (io::sniff_schedule_format(in, source, text)) {
    case io::ScheduleFormat::binary:  // phase tables only
      io::read_binary_schedule(in, source, on_header, on_phase);
      return;
    case io::ScheduleFormat::msccl_xml:
      text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
      if (in.bad()) throw InputError(std::string(source) + ": read error");
      deliver(msccl::lower(io::parse_msccl(text, source), source), on_header, on_phase, tables);
      return;
    case io::ScheduleFormat::json: {
      const std::streampos start = in.tellg();  // -1 for a pipe
      std::string prefix(kSniffBytes, '\0');
      in.read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
      prefix.resize(static_cast<std::size_t>(in.gcount()));
      if (in.bad()) throw InputError(std::string(source) + ": read error");
      if (io::looks_like_mscclpp_plan(prefix)) {
        text += prefix;
        text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
        if (in.bad()) throw InputError(std::string(source) + ": read error");
        deliver(mscclpp::lower(io::parse_mscclpp_plan(text, source), source), on_header, on_phase,
                tables);
        return;
      }
      in.clear(in.rdstate() & std::ios::badbit);  // a short file hit its end: not an error here
      // A file goes back to where the schedule starts and streams as it did before the sniff; a
      // pipe gets the bytes read put in front of the rest.
      if (start != std::streampos(-1) && in.seekg(start)) {
        io::detail::read_json_schedule(in, source, on_header, on_phase, tables, {});
        return;
      }
      in.clear(in.rdstate() & std::ios::badbit);
      Prefixed rest(std::move(prefix), in.rdbuf());
      std::istream whole(&rest);
      io::detail::read_json_schedule(whole, source, on_header, on_phase, tables, {});
      if (whole.bad()) throw InputError(std::string(source) + ": read error");
      return;
    }
  }
}

void read_schedule_file(const std::string& path,
                        const std::function<void(const ScheduleHeader&)>& on_header,
                        const PhaseSink& on_phase, io::Tables tables) {
  InputFile in(path);
  read_schedule(in.stream(), in.name(), on_header, on_phase, tables);
}

namespace {

Schedule read_whole(const std::function<void(const std::function<void(const ScheduleHeader&)>&,
                                             const PhaseSink&)>& read) {
  Schedule s;
  read([&](const ScheduleHeader& h) { s.header = h; }, collect_into(s.phases));
  return s;
}

}  // namespace

Schedule read_schedule_file(const std::string& path,
                            const std::function<void(const ScheduleHeader&)>& check_header) {
  return read_whole([&](const auto& on_header, const auto& on_phase) {
    read_schedule_file(
        path,
        [&](const ScheduleHeader& h) {
          if (check_header) with_source(path, [&] { check_header(h); });
          on_header(h);
        },
        on_phase);
  });
}

Schedule parse_schedule(std::string_view text, std::string_view source) {
  std::istringstream in{std::string(text)};
  return read_whole([&](const auto& on_header, const auto& on_phase) {
    read_schedule(in, source, on_header, on_phase);
  });
}

}  // namespace phasecheck::pipeline
