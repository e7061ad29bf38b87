#include "deploy/c_source.hpp"

#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/error.hpp"
#include "deploy/sources.hpp"

namespace phasecheck::deploy {
namespace {

using programs::Op;

/// Text safe inside a C comment: printable ASCII (anything else is '?'), and neither "*/",
/// which would end it, nor "/*", which -Wcomment reports: a space goes between.
std::string comment_text(std::string_view s) {
  std::string out;
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c > 0x7e) {
      out += '?';
      continue;
    }
    if (!out.empty() && ((c == '/' && out.back() == '*') || (c == '*' && out.back() == '/')))
      out += ' ';
    out += ch;
  }
  return out;
}

/// A C string literal.
std::string c_string(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c > 0x7e || c == '?') {  // '?': no trigraphs
      static const char digits[] = "01234567";
      out += '\\';
      out += digits[(c >> 6) & 7];
      out += digits[(c >> 3) & 7];
      out += digits[c & 7];
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

const char* buffer_constant(Buffer b) {
  switch (b) {
    case Buffer::input:
      return "PC_INPUT";
    case Buffer::output:
      return "PC_OUTPUT";
    case Buffer::scratch:
      break;
  }
  return "PC_SCRATCH";
}

const char* kind_constant(Op::Kind k) {
  switch (k) {
    case Op::Kind::send:
      return "PC_SEND";
    case Op::Kind::recv:
      return "PC_RECV";
    case Op::Kind::copy:
      return "PC_COPY";
    case Op::Kind::wait:
      return "PC_WAIT";
    case Op::Kind::sync_send:
      return "PC_SYNC_SEND";
    case Op::Kind::sync_recv:
      return "PC_SYNC_RECV";
    case Op::Kind::barrier:
      return "PC_BARRIER";
  }
  // The runtime refuses a kind it does not know; none must be written.
  throw std::logic_error("kind_constant: not an Op::Kind");
}

std::string segments_text(const std::vector<Segment>& segments) {
  std::ostringstream os;
  for (std::size_t i = 0; i < segments.size(); ++i) os << (i ? " " : "") << segments[i];
  return os.str();
}

/// What a step does, for the comment beside it: "send to 3: input[3]".
std::string describe(const Step& s) {
  switch (s.kind) {
    case Op::Kind::send:
      return "send to " + std::to_string(s.peer) + ": " + segments_text(s.from) +
             (s.staged ? " (packed)" : "");
    case Op::Kind::recv:
      return "receive from " + std::to_string(s.peer) + ": " + segments_text(s.to) +
             (s.staged ? " (staged)" : "");
    case Op::Kind::copy:
      return "copy " + segments_text(s.from) + " -> " + segments_text(s.to) +
             (s.staged ? " (staged)" : "");
    case Op::Kind::wait:
      return "wait for the phase's messages";
    case Op::Kind::sync_send:
      return "synchronization to " + std::to_string(s.peer);
    case Op::Kind::sync_recv:
      return "wait for synchronization from " + std::to_string(s.peer);
    case Op::Kind::barrier:
      break;
  }
  return "barrier";
}

const char* collective_constant(const Plan& plan) {
  if (plan.alltoallv) return "PC_ALLTOALLV";
  return plan.collective == Collective::alltoall ? "PC_ALLTOALL" : "PC_ALLGATHER";
}

/// The tables of `plan` as `static const` C data named pc_<id>_*, and the pc_schedule pc_<id>.
void write_tables(std::ostream& os, const Plan& plan, const std::string& id) {
  std::ostringstream segments, steps;
  std::vector<std::uint64_t> first;
  std::uint64_t nsegments = 0, nsteps = 0;
  for (Rank r = 0; r < plan.programs.size(); ++r) {
    first.push_back(nsteps);
    std::uint32_t phase = UINT32_MAX;
    for (const Step& s : plan.programs[r].steps) {
      if (s.phase != phase) {
        phase = s.phase;
        steps << "    /* rank " << r << ", phase " << phase << " \""
              << comment_text(plan.phase_labels.at(phase)) << "\" */\n";
      }
      const std::uint64_t from = nsegments;
      for (const Segment& g : s.from) {
        segments << "    {" << buffer_constant(g.buffer) << ", " << g.index << ", " << g.count
                 << "},\n";
        ++nsegments;
      }
      const std::uint64_t to = nsegments;
      for (const Segment& g : s.to) {
        segments << "    {" << buffer_constant(g.buffer) << ", " << g.index << ", " << g.count
                 << "},\n";
        ++nsegments;
      }
      steps << "    {" << kind_constant(s.kind) << ", " << (s.staged ? 1 : 0) << ", " << s.peer
            << ", " << s.phase << ", " << from << ", " << s.from.size() << ", " << to << ", "
            << s.to.size() << ", " << s.chunks << ", " << s.staging << "}, /* "
            << comment_text(describe(s)) << " */\n";
      ++nsteps;
    }
  }
  first.push_back(nsteps);
  // C has no empty arrays: a table without entries gets one that is never read.
  if (nsegments == 0) segments << "    {PC_INPUT, 0, 0} /* none */\n";
  if (nsteps == 0) steps << "    {PC_WAIT, 0, 0, 0, 0, 0, 0, 0, 0, 0} /* none */\n";

  os << "/* Segments of slots: {buffer, first slot, slots}; steps refer to them by position. */\n"
     << "static const pc_segment pc_" << id << "_segments[] = {\n"
     << segments.str() << "};\n\n"
     << "/* Each rank's program, phase by phase: {kind, staged, peer, phase, first segment read, "
        "segments read,\n * first segment written, segments written, chunks, staging offset}. "
        "*/\n"
     << "static const pc_step pc_" << id << "_steps[] = {\n"
     << steps.str() << "};\n\n"
     << "/* Rank r's steps are pc_" << id << "_steps[first[r]] .. [first[r + 1] - 1]. */\n"
     << "static const uint32_t pc_" << id << "_first[] = {";
  for (std::size_t i = 0; i < first.size(); ++i) os << (i ? ", " : "") << first[i];
  os << "};\n\n/* Per rank: staging memory in chunks, and the most requests outstanding. */\n"
     << "static const uint32_t pc_" << id << "_staging[] = {";
  for (std::size_t r = 0; r < plan.programs.size(); ++r)
    os << (r ? ", " : "") << plan.programs[r].staging;
  os << "};\nstatic const uint32_t pc_" << id << "_requests[] = {";
  for (std::size_t r = 0; r < plan.programs.size(); ++r)
    os << (r ? ", " : "") << plan.programs[r].requests;
  os << "};\n\n"
     << "static const pc_schedule pc_" << id << " = {\n"
     << "    " << c_string(plan.algorithm) << ", " << collective_constant(plan) << ", "
     << plan.ranks << ", " << plan.chunks << ", " << (plan.inplace ? 1 : 0) << ", " << plan.scratch
     << ", " << plan.max_message << ",\n"
     << "    pc_" << id << "_steps, pc_" << id << "_first, pc_" << id << "_segments, pc_" << id
     << "_staging, pc_" << id << "_requests};\n";
}

/// The comment that opens a schedule's tables.
void write_heading(std::ostream& os, const Plan& plan, std::string_view what) {
  os << "\n/* ---- " << comment_text(what) << ": " << comment_text(plan.algorithm) << " ("
     << collective_name(plan) << ") on " << plan.ranks << " ranks ----\n"
     << " * From " << comment_text(plan.source)
     << ", verified by phasecheck: " << comment_text(plan.verdict) << ".\n"
     << " * " << plan.phase_labels.size() << " phases, " << plan.chunks
     << (plan.chunks == 1 ? " chunk" : " chunks") << " per "
     << (plan.collective == Collective::alltoall ? "message" : "contribution") << ", "
     << plan.scratch << " scratch slots; phase separation: " << programs::to_string(plan.separation)
     << ".\n";
  for (std::size_t i = 0; i < plan.phase_labels.size(); ++i)
    os << " *   phase " << i << ": " << comment_text(plan.phase_labels[i]) << "\n";
  os << " */\n";
}

/// The opening comment, the collectives the file needs (an interposer defines all three,
/// whatever it deploys) and the runtime.
void write_prelude(std::ostream& os, const std::vector<Plan>& plans, std::string_view title,
                   bool all) {
  bool alltoall = all, allgather = all, alltoallv = all;
  for (const Plan& p : plans)
    (p.alltoallv                              ? alltoallv
     : p.collective == Collective::alltoall ? alltoall
                                            : allgather) = true;
  os << "/* " << title << "\n * Generated by phasecheck deploy from:";
  for (const Plan& p : plans) os << " " << comment_text(p.source);
  os << ".\n * Do not edit: regenerate it. docs/run.md, \"Deploy\". */\n"
     << "#define PC_USE_ALLTOALL " << (alltoall ? 1 : 0) << "\n"
     << "#define PC_USE_ALLGATHER " << (allgather ? 1 : 0) << "\n"
     << "#define PC_USE_ALLTOALLV " << (alltoallv ? 1 : 0) << "\n\n"
     << runtime_c();
}

/// The routine of the alltoallv plan `plan` (tables pc_<id>), named `name`.
void write_alltoallv_routine(std::ostream& os, const Plan& plan, const std::string& name,
                             std::size_t id) {
  const std::string parameters =
      "(const void *sendbuf, const int sendcounts[], const int sdispls[],\n"
      "    MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],\n"
      "    MPI_Datatype recvtype, MPI_Comm comm)";
  const std::string arguments =
      "(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,\n"
      "                        recvtype, comm";
  os << "\n/* " << name << ": MPI_Alltoallv by the pattern above, rank r of `comm` as its rank "
     << "r, with the\n * call's own counts, displacements and datatypes. A communicator of another "
     << "size than " << plan.ranks << ",\n * or a call the pattern cannot serve (an "
     << "intercommunicator, an erroneous call), goes to\n * PMPI_Alltoallv. */\n"
     << "int " << name << parameters << ";\n"
     << "int " << name << parameters << " {\n"
     << "  int size = 0, err;\n"
     << "  const char *why = 0;\n"
     << "  PMPI_Comm_size(comm, &size);\n"
     << "  if (size == " << plan.ranks << ") {\n"
     << "    err = pc_alltoallv(&pc_" << id << ", sendbuf, sendcounts, sdispls, sendtype, "
     << "recvbuf, recvcounts,\n                       rdispls, recvtype, comm, &why);\n"
     << "    if (err != PC_FALLBACK) return err;\n"
     << "  }\n"
     << "  return PMPI_Alltoallv" << arguments << ");\n"
     << "}\n";
}

}  // namespace

std::string c_identifier(std::string_view name) {
  std::string out;
  for (const char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_';
    out += ok ? ch : '_';
  }
  return out.empty() ? "schedule" : out;
}

std::vector<std::string> routine_names(const std::vector<Plan>& plans) {
  std::map<std::string, int> uses;
  const auto base = [](const Plan& p) {
    return "phasecheck_" + c_identifier(p.algorithm) + "_" + collective_name(p);
  };
  for (const Plan& p : plans) ++uses[base(p)];
  std::vector<std::string> names;
  std::set<std::string> taken;
  for (const Plan& p : plans) {
    std::string name = base(p);
    if (uses[name] > 1)
      name = "phasecheck_" + c_identifier(p.algorithm) + "_p" + std::to_string(p.ranks) + "_" +
             collective_name(p);
    const std::string stem = name;
    for (int n = 2; taken.count(name); ++n)
      name =
          stem.substr(0, stem.rfind('_')) + "_" + std::to_string(n) + stem.substr(stem.rfind('_'));
    taken.insert(name);
    names.push_back(name);
  }
  return names;
}

std::string routine_source(const std::vector<Plan>& plans) {
  std::ostringstream os;
  const std::vector<std::string> names = routine_names(plans);
  write_prelude(os, plans, "Verified collective routines, one function per schedule.", false);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const Plan& plan = plans[i];
    const std::string& name = names[i];
    const bool alltoall = plan.collective == Collective::alltoall;
    const char* mpi = alltoall ? "Alltoall" : "Allgather";
    write_heading(os, plan, name);
    write_tables(os, plan, std::to_string(i));
    if (plan.alltoallv) {
      write_alltoallv_routine(os, plan, name, i);
      continue;
    }
    os << "\n/* " << name << ": MPI_" << mpi << " by the schedule above, rank r of `comm` as its "
       << "rank r.\n * A communicator of another size than " << plan.ranks
       << ", or a call the schedule cannot serve (an intercommunicator,\n * a size not a multiple "
          "of its chunks, send and receive signatures that differ), goes to PMPI_"
       << mpi << ". */\n"
       << "int " << name << "(const void *sendbuf, int sendcount, MPI_Datatype sendtype, "
       << "void *recvbuf,\n    int recvcount, MPI_Datatype recvtype, MPI_Comm comm);\n"
       << "int " << name << "(const void *sendbuf, int sendcount, MPI_Datatype sendtype, "
       << "void *recvbuf,\n    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {\n"
       << "  int size = 0, err;\n"
       << "  const char *why = 0;\n"
       << "  PMPI_Comm_size(comm, &size);\n"
       << "  if (size == " << plan.ranks << ") {\n"
       << "    err = pc_" << (alltoall ? "alltoall" : "allgather") << "(&pc_" << i
       << ", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,\n"
       << "                       &why);\n"
       << "    if (err != PC_FALLBACK) return err;\n"
       << "  }\n"
       << "  return PMPI_" << mpi
       << "(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);\n"
       << "}\n";
  }
  return os.str();
}

std::string interposer_source(const std::vector<Plan>& plans) {
  std::map<std::pair<std::string, Rank>, const Plan*> served;
  for (const Plan& p : plans) {
    const auto [at, fresh] = served.emplace(std::pair{mpi_name(p), p.ranks}, &p);
    if (!fresh)
      throw InputError(at->second->source + " and " + p.source + " are both " + mpi_name(p) +
                       " on " + std::to_string(p.ranks) +
                       " ranks: deploy one schedule per collective and communicator size");
  }
  std::ostringstream os;
  write_prelude(os, plans,
                "The phasecheck PMPI interposer: MPI_Alltoall, MPI_Allgather and MPI_Alltoallv.",
                true);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    write_heading(os, plans[i], "schedule " + std::to_string(i));
    write_tables(os, plans[i], std::to_string(i));
  }
  os << "\n/* The deployed schedules. */\nstatic const pc_schedule *const pc_deployed[] = {";
  for (std::size_t i = 0; i < plans.size(); ++i) os << (i ? ", " : "") << "&pc_" << i;
  if (plans.empty()) os << "0";
  os << "};\nstatic const int pc_deployed_count = " << plans.size() << ";\n\n" << interposer_c();
  return os.str();
}

}  // namespace phasecheck::deploy
